//! Property tests: the readers never panic on any input, and what we write
//! reads back to the same thing.
//!
//! `PROPTEST_CASES` overrides the number of cases of every property.

use proptest::prelude::*;
use rookery_core::{CastlingMode, Fen, Mode, Move, Position, San, SanPlus, Setup, UciMove};

/// Positions that `to_move` is tried on: the start, Kiwipete, promotions
/// with captures, an en-passant chance, and a Chess960 start (a file shared
/// with the fuzz targets of the SAN and UCI move readers).
fn position_fens() -> Vec<&'static str> {
    include_str!("data/move_readers.fen")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect()
}

fn positions() -> Vec<Position> {
    position_fens()
        .iter()
        .map(|f| Position::from_fen(f).expect("test position"))
        .collect()
}

/// A position reached by `plies` pseudo-random legal moves from one of `position_fens()`.
fn playout(start: usize, seed: u64, plies: usize) -> Position {
    let fens = position_fens();
    let mut pos = Position::from_fen(fens[start % fens.len()]).expect("test position");
    let mut x = seed | 1;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        // xorshift64
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        pos.play_unchecked(moves[(x % moves.len() as u64) as usize]);
    }
    pos
}

/// Reads a FEN every way there is; must never panic.
fn read_fen_all_ways(s: &str) {
    for text_mode in [Mode::Strict, Mode::Lenient] {
        if let Ok(setup) = Setup::from_fen(s, text_mode) {
            for pos_mode in [Mode::Strict, Mode::Lenient] {
                if let Ok((pos, _)) = setup.clone().into_position(pos_mode) {
                    // Whatever we accept is playable and writes a FEN.
                    let moves = pos.legal_moves();
                    let _ = pos.fen();
                    if let Some(&m) = moves.first() {
                        let _ = SanPlus::from_move(&pos, m).to_string();
                        let _ = pos.after(m);
                    }
                }
            }
        }
        let _ = Setup::from_epd_prefix(s.as_bytes(), text_mode);
    }
    let _ = s.parse::<Fen>();
}

fn read_san_all_ways(bytes: &[u8], positions: &[Position]) {
    let _ = San::from_ascii(bytes);
    if let Ok(sp) = SanPlus::from_ascii(bytes) {
        for pos in positions {
            if let Ok(m) = sp.san.to_move(pos) {
                assert!(pos.is_legal(m), "{sp} gave an illegal move");
            }
        }
    }
}

fn read_uci_all_ways(bytes: &[u8], positions: &[Position]) {
    if let Ok(u) = UciMove::from_ascii(bytes) {
        // What parses prints back as the same text, up to the case of a promotion letter.
        assert_eq!(
            u.to_string(),
            String::from_utf8_lossy(bytes).to_ascii_lowercase(),
            "UCI display"
        );
        for pos in positions {
            if let Ok(m) = u.to_move(pos) {
                assert!(pos.is_legal(m), "{u} gave an illegal move");
            }
        }
    }
}

fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// FEN-ish text: the characters a FEN is made of, plus a few strangers.
const FEN_CHARS: &str = "[pnbrqkPNBRQK0-9/ wbKQkqa-hA-H\\-\\t\\n+x]{0,90}";

proptest! {
    #![proptest_config(cases(20_000))]

    #[test]
    fn fen_reader_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
        read_fen_all_ways(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn fen_reader_never_panics_on_fen_like_text(s in FEN_CHARS) {
        read_fen_all_ways(&s);
    }

    /// One byte of a real FEN changed, inserted or removed.
    #[test]
    fn fen_reader_never_panics_on_mutated_fens(
        start in 0usize..5, seed in any::<u64>(), plies in 0usize..60,
        at in any::<prop::sample::Index>(), byte in any::<u8>(), how in 0u8..3,
    ) {
        let mut fen = playout(start, seed, plies).fen().into_bytes();
        let i = at.index(fen.len());
        match how {
            0 => fen[i] = byte,
            1 => fen.insert(i, byte),
            _ => { fen.remove(i); }
        }
        read_fen_all_ways(&String::from_utf8_lossy(&fen));
    }

    #[test]
    fn san_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..12)) {
        read_san_all_ways(&bytes, &positions());
    }

    #[test]
    fn san_reader_never_panics_on_san_like_text(s in "[NBRQKPa-h1-8x=+#O0o\\-:()/!?]{0,10}") {
        read_san_all_ways(s.as_bytes(), &positions());
    }

    #[test]
    fn uci_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..7)) {
        read_uci_all_ways(&bytes, &positions());
    }

    #[test]
    fn uci_reader_never_panics_on_uci_like_text(s in "[a-h1-8nbrqkNBRQK0]{0,6}") {
        read_uci_all_ways(s.as_bytes(), &positions());
    }
}

proptest! {
    #![proptest_config(cases(3000))]

    /// The FEN we write reads back strictly to an equal position (hash included),
    /// in X-FEN and Shredder-FEN castling notation alike, and as EPD.
    #[test]
    fn fen_round_trip(start in 0usize..5, seed in any::<u64>(), plies in 0usize..120) {
        let pos = playout(start, seed, plies);
        let fen = pos.fen();
        let back = Position::from_fen(&fen);
        prop_assert_eq!(back.as_ref(), Ok(&pos), "{}", fen);
        let shredder = Fen::from_position(&pos)
            .castling(rookery_core::CastlingNotation::Shredder)
            .to_string();
        let back = Position::from_fen(&shredder);
        prop_assert_eq!(back.as_ref(), Ok(&pos), "{}", shredder);
        let epd = Fen::from_position(&pos).epd().to_string();
        let (setup, used) = Setup::from_epd_prefix(epd.as_bytes(), Mode::Strict)
            .map_err(|e| TestCaseError::fail(format!("{epd}: {e}")))?;
        prop_assert_eq!(used, epd.len());
        let (from_epd, _) = setup.into_position(Mode::Strict)
            .map_err(|e| TestCaseError::fail(format!("{epd}: {e}")))?;
        let epd_fen = from_epd.fen();
        prop_assert_eq!(epd_fen.split(' ').take(4).collect::<Vec<_>>(),
                        fen.split(' ').take(4).collect::<Vec<_>>());
    }

    /// Every legal move's SAN and UCI (both castling notations) read back to it.
    #[test]
    fn move_text_round_trip(start in 0usize..5, seed in any::<u64>(), plies in 0usize..120) {
        let pos = playout(start, seed, plies);
        let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
        for &m in &moves {
            let san = SanPlus::from_move(&pos, m);
            let text = san.to_string();
            let parsed = SanPlus::from_ascii(text.as_bytes())
                .map_err(|e| TestCaseError::fail(format!("{}: {text}: {e}", pos.fen())))?;
            prop_assert_eq!(parsed, san);
            prop_assert_eq!(parsed.san.to_move(&pos), Ok(m), "{} {}", pos.fen(), text);

            let uci = UciMove::from_move(&pos, m, CastlingMode::Chess960);
            let parsed: UciMove = uci.to_string().parse()
                .map_err(|e| TestCaseError::fail(format!("{uci}: {e}")))?;
            prop_assert_eq!(parsed, uci);
            prop_assert_eq!(parsed.to_move(&pos), Ok(m), "{} {}", pos.fen(), uci);
            prop_assert_eq!(m.to_uci(&pos, CastlingMode::Chess960), uci.to_string());

            // Standard castling notation is unambiguous outside Chess960.
            if !pos.is_chess960_castling() {
                let std_uci = UciMove::from_move(&pos, m, CastlingMode::Standard);
                prop_assert_eq!(std_uci.to_move(&pos), Ok(m), "{} {}", pos.fen(), std_uci);
            }
        }
    }
}
