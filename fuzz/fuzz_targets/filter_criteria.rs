//! The words of `pgn filter` from any text: a tag test, a material
//! signature, a position, a date span, an opening prefix (in order and
//! transposed). Nothing may panic; a tag test that reads judges any value.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_pgn::filter::{DateSpan, Material, Opening, PositionTest, TagTest};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(t) = text.parse::<TagTest>() {
        let _ = t.passes(None);
        let _ = t.passes(Some(text));
        let _ = t.passes(Some("2500"));
        let _ = t.passes(Some("2024.05.??"));
    }
    let _ = text.parse::<Material>();
    let _ = text.parse::<PositionTest>();
    let _ = text.parse::<DateSpan>();
    let _ = Opening::from_moves(text, false);
    let _ = Opening::from_moves(text, true);
});
