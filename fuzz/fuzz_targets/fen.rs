//! FEN reader: any bytes, both modes. Whatever is accepted must be playable,
//! write a FEN that reads back to the same position, and give SAN and UCI
//! for every legal move that read back to that move.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_core::fen::PositionProblem;
use rookery_core::{CastlingMode, Mode, Position, SanPlus, Setup, UciMove};

fn check(pos: &Position, warnings: &[(PositionProblem, usize)]) {
    let fen = pos.fen();
    // Impossible checks are kept (with a warning) in lenient mode only.
    let impossible = warnings.iter().any(|(p, _)| {
        matches!(
            p,
            PositionProblem::ImpossibleCheck | PositionProblem::TooManyCheckers
        )
    });
    let back = if impossible {
        Position::from_fen_lenient(&fen).map(|(p, _)| p)
    } else {
        Position::from_fen(&fen)
    };
    assert_eq!(back.as_ref(), Ok(pos), "FEN round trip: {fen}");
    for &m in pos.legal_moves().iter() {
        let san = SanPlus::from_move(pos, m).to_string();
        let parsed = SanPlus::from_ascii(san.as_bytes()).expect("our SAN parses");
        assert_eq!(parsed.san.to_move(pos), Ok(m), "{fen}: SAN {san}");
        let uci = UciMove::from_move(pos, m, CastlingMode::Chess960);
        assert_eq!(uci.to_move(pos), Ok(m), "{fen}: UCI {uci}");
        let after = pos.after(m);
        let _ = after.is_checkmate();
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for text_mode in [Mode::Strict, Mode::Lenient] {
        if let Ok(setup) = Setup::from_fen(&text, text_mode) {
            for pos_mode in [Mode::Strict, Mode::Lenient] {
                if let Ok((pos, warnings)) = setup.clone().into_position(pos_mode) {
                    // Strict text and strict position: nothing to warn about.
                    // (Text read leniently carries its own warnings, e.g.
                    // adjacent digits.)
                    assert!(
                        pos_mode == Mode::Lenient
                            || text_mode == Mode::Lenient
                            || warnings.is_empty()
                    );
                    check(&pos, &warnings);
                }
            }
        }
        let _ = Setup::from_epd_prefix(data, text_mode);
    }
});
