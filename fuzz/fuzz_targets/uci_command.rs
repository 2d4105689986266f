//! UCI commands (GUI to engine): any line must parse without panicking,
//! and parsing is a fixed point of writing: the command written out
//! (`Display`) reads back as the same command and writes out the same
//! text. The engine reads lines split at `\n`, so the input is split there.
//! Seeds (corpus/uci_command/seed-*) are commands of the UCI protocol text
//! (../shared/spec/uci-protocol-ru.txt) and hostile forms.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_uci::Command;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n') {
        let cmd = Command::parse(line);
        let written = cmd.to_string();
        assert!(!written.contains('\n'), "{line:?} -> {written:?}");
        let again = Command::parse(&written);
        assert_eq!(again, cmd, "{line:?} -> {written:?}");
        assert_eq!(again.to_string(), written, "{line:?}");
    }
});
