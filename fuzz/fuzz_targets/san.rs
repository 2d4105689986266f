//! SAN reader: the first byte picks a position, the rest is SAN text. A move
//! found must be legal, and the SAN we write for it must read back to it.
//! The strict spellings are a subset of the lenient ones, read alike; the
//! lenient resolver answers the strict one's move (with no leniency but a
//! capture mark's) wherever the strict one answers, and otherwise only
//! castling written as a king move.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_core::{Leniency, San, SanPlus};
use rookery_fuzz::position_and_text;

/// Beside the positions of the move readers' property tests: four knights
/// that reach the same squares (disambiguation by file, rank and both).
const EXTRA: &str = "1k6/8/8/8/8/2N1N3/8/1N1NK3 w - - 0 1";

fuzz_target!(|data: &[u8]| {
    let Some((pos, text)) = position_and_text(data, EXTRA) else {
        return;
    };
    let _ = San::from_ascii(text);
    let strict = SanPlus::from_ascii_strict(text);
    let Ok(sp) = SanPlus::from_ascii(text) else {
        assert!(
            strict.is_err(),
            "{text:?}: strict reads what lenient refuses"
        );
        return;
    };
    if let Ok(s) = strict {
        assert_eq!(s, sp, "{text:?}");
    }
    match (sp.san.to_move(&pos), sp.san.to_move_lenient(&pos)) {
        (Ok(m), Ok((l, leniency))) => {
            assert_eq!(m, l, "{text:?}");
            assert!(
                matches!(
                    leniency,
                    None | Some(Leniency::MissingCapture | Leniency::SpuriousCapture)
                ),
                "{text:?}"
            );
        }
        (Ok(_), Err(e)) => panic!("{text:?}: strict reads it, lenient says {e}"),
        (Err(_), Ok((l, leniency))) => {
            assert_eq!(leniency, Some(Leniency::CastlingAsKingMove), "{text:?}");
            assert!(l.is_castle() && pos.is_legal(l), "{text:?}");
        }
        (Err(_), Err(_)) => {}
    }
    let _ = sp.to_string();
    if let Ok(m) = sp.san.to_move(&pos) {
        assert!(pos.is_legal(m));
        let ours = SanPlus::from_move(&pos, m).to_string();
        let again = San::from_ascii(ours.as_bytes()).expect("our SAN parses");
        assert_eq!(again.to_move(&pos), Ok(m), "{text:?} -> {ours}");
    }
});
