//! UCI commands (GUI to engine): any line must parse without panicking,
//! and parsing is a fixed point of writing: the command written out
//! (`Display`) reads back as the same command and writes out the same
//! text. The engine reads lines split at `\n`, so the input is split there.
//! Seeds (corpus/uci_command/seed-*) are commands of the UCI protocol text
//! (../shared/spec/uci-protocol-ru.txt) and hostile forms.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_fuzz::lines_round_trip;
use rookery_uci::Command;

fuzz_target!(|data: &[u8]| {
    lines_round_trip(data, Command::parse);
});
