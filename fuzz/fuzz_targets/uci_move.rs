//! UCI move reader: the first byte picks a position, the rest is the move. A
//! move found must be legal and print back to text that reads to it again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_core::{CastlingMode, UciMove};
use rookery_fuzz::position_and_text;

/// Beside the positions of the move readers' property tests: a Chess960
/// position whose castling moves read differently in the two castling modes.
const EXTRA: &str = "1r2k2r/8/8/8/8/8/8/R2K3R w HAhb - 0 1";

fuzz_target!(|data: &[u8]| {
    let Some((pos, text)) = position_and_text(data, EXTRA) else {
        return;
    };
    let Ok(uci) = UciMove::from_ascii(text) else {
        return;
    };
    let printed = uci.to_string();
    assert_eq!(UciMove::from_ascii(printed.as_bytes()), Ok(uci));
    if let Ok(m) = uci.to_move(&pos) {
        assert!(pos.is_legal(m));
        for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
            let ours = UciMove::from_move(&pos, m, mode);
            if mode == CastlingMode::Chess960 || !pos.is_chess960_castling() {
                assert_eq!(ours.to_move(&pos), Ok(m), "{printed} -> {ours}");
            }
        }
    }
});
