//! UCI messages (engine to GUI): any line an engine prints must parse
//! without panicking, and parsing is a fixed point of writing: the message
//! written out (`Display`) reads back as the same message and writes out the
//! same text. Lines are split at `\n`, as the host reads them. Seeds
//! (corpus/uci_message/seed-*) are real engine output (Stockfish, rookery)
//! and hostile forms.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_uci::Message;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n') {
        let msg = Message::parse(line);
        let written = msg.to_string();
        assert!(!written.contains('\n'), "{line:?} -> {written:?}");
        let again = Message::parse(&written);
        assert_eq!(again, msg, "{line:?} -> {written:?}");
        assert_eq!(again.to_string(), written, "{line:?}");
    }
});
