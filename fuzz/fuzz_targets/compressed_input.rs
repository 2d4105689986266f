//! Any bytes as an input file: told apart by their first bytes and read to
//! the end (decompressed where they say so). Nothing may panic or hang; the
//! text read is whole lines when the input is damaged (but for a line
//! longer than a chunk).

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_io::input::{Input, CHUNK};
use std::io::Read;

fuzz_target!(|data: &[u8]| {
    let Ok(mut input) = Input::from_reader("fuzz", std::io::Cursor::new(data.to_vec())) else {
        return;
    };
    let damage = input.damage();
    let mut text = Vec::new();
    // Cap what a small input may expand to (a bomb), as a reader would.
    let _ = (&mut input).take(1 << 24).read_to_end(&mut text);
    if damage.is_damaged() && text.len() < 1 << 24 {
        // A line longer than a chunk is handed on in pieces as it comes.
        let last_line = text.len() - text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        assert!(
            last_line == 0 || last_line >= CHUNK,
            "a damaged input's text ends at a whole line"
        );
    }
});
