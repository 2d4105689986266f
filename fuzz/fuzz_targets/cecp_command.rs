//! CECP commands (host to engine), and the subcommands of edit mode: any
//! line must parse without panicking, and parsing is a fixed point of
//! writing. Seeds (corpus/cecp_command/seed-*) are what `rookery match`
//! sent to Fairy-Max, Phalanx and GNU Chess, and hostile forms.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_fuzz::lines_round_trip;
use rookery_uci::cecp::{Command, EditCommand};

fuzz_target!(|data: &[u8]| {
    lines_round_trip(data, Command::parse);
    lines_round_trip(data, EditCommand::parse);
});
