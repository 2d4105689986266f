//! Any bytes as an input file: told apart by their first bytes and read to
//! the end (decompressed where they say so). Nothing may panic or hang; the
//! text read is whole lines when the input is damaged.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_io::input::Input;
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
        assert!(
            text.is_empty() || text.ends_with(b"\n"),
            "a damaged input's text ends at a whole line"
        );
    }
});
