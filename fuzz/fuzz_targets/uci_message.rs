//! UCI messages (engine to GUI): any line an engine prints must parse
//! without panicking, and parsing is a fixed point of writing: the message
//! written out (`Display`) reads back as the same message and writes out the
//! same text. Lines are split at `\n`, as the host reads them. Seeds
//! (corpus/uci_message/seed-*) are real engine output (Stockfish, rookery)
//! and hostile forms.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_fuzz::lines_round_trip;
use rookery_uci::Message;

fuzz_target!(|data: &[u8]| {
    lines_round_trip(data, Message::parse);
});
