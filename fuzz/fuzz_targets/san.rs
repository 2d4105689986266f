//! SAN reader: the first byte picks a position, the rest is SAN text. A move
//! found must be legal, and the SAN we write for it must read back to it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_core::{San, SanPlus};
use rookery_fuzz::position_and_text;

/// Beside the positions of the move readers' property tests: four knights
/// that reach the same squares (disambiguation by file, rank and both).
const EXTRA: &str = "1k6/8/8/8/8/2N1N3/8/1N1NK3 w - - 0 1";

fuzz_target!(|data: &[u8]| {
    let Some((pos, text)) = position_and_text(data, EXTRA) else {
        return;
    };
    let _ = San::from_ascii(text);
    let Ok(sp) = SanPlus::from_ascii(text) else {
        return;
    };
    let _ = sp.to_string();
    if let Ok(m) = sp.san.to_move(&pos) {
        assert!(pos.is_legal(m));
        let ours = SanPlus::from_move(&pos, m).to_string();
        let again = San::from_ascii(ours.as_bytes()).expect("our SAN parses");
        assert_eq!(again.to_move(&pos), Ok(m), "{text:?} -> {ours}");
    }
});
