//! CECP messages (engine to host): any line an engine prints must parse
//! without panicking, and parsing is a fixed point of writing: the message
//! written out (`Display`) reads back as the same message and writes out the
//! same text. Lines are split at `\n`, as the host reads them. Seeds
//! (corpus/cecp_message/seed-*) are real engine output (Fairy-Max 5.0b,
//! Phalanx XXV, GNU Chess 6.2.7 in `rookery match`) and hostile forms.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_fuzz::lines_round_trip;
use rookery_uci::cecp::Message;

fuzz_target!(|data: &[u8]| {
    lines_round_trip(data, Message::parse);
});
