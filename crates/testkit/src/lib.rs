//! Test fixtures for rookery's own tests, and `rookery-mock-engine`: a UCI
//! engine whose misbehaviour is chosen on the command line, for testing hosts.
//!
//! Flags of `rookery-mock-engine` (any combination):
//!
//! | flag | behaviour |
//! |---|---|
//! | `--no-uciok` | never answers `uci` |
//! | `--crash-on-go N` | exits with status 3 (after a line on stderr) on the N-th `go` |
//! | `--hang-on-go N` | on the N-th `go` never answers, and ignores `stop` |
//! | `--random SEED` | plays a legal move drawn from the position and SEED instead of the first |
//! | `--illegal-on-go N` | on the N-th `go` answers an illegal move ([`illegal_move`]) |
//! | `--garbage` | prints a non-UCI line before every answer |
//! | `--slow MS` | waits MS milliseconds before `bestmove` (unless stopped) |
//! | `--record FILE` | appends every line received to FILE |
//!
//! Otherwise it plays the first legal move (in UCI order, after sorting) and
//! reports it with an `info` line.

use rookery_core::{Position, UciMove};

/// The mock's flags, parsed from its arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MockBehaviour {
    /// Never answer `uci`.
    pub no_uciok: bool,
    /// Crash on this `go` (1-based).
    pub crash_on_go: Option<u32>,
    /// Hang on this `go` (1-based).
    pub hang_on_go: Option<u32>,
    /// Answer an illegal move on this `go` (1-based).
    pub illegal_on_go: Option<u32>,
    /// Draw the move from the position and this seed (longer, varied games).
    pub random: Option<u64>,
    /// Print garbage before answers.
    pub garbage: bool,
    /// Delay before `bestmove`, in ms.
    pub slow_ms: u64,
    /// Where to record received lines.
    pub record: Option<String>,
}

impl MockBehaviour {
    /// Parses the flags; unknown flags are ignored.
    pub fn from_args(args: impl IntoIterator<Item = String>) -> MockBehaviour {
        let mut b = MockBehaviour::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--no-uciok" => b.no_uciok = true,
                "--garbage" => b.garbage = true,
                "--crash-on-go" => b.crash_on_go = it.next().and_then(|n| n.parse().ok()),
                "--hang-on-go" => b.hang_on_go = it.next().and_then(|n| n.parse().ok()),
                "--random" => b.random = it.next().and_then(|n| n.parse().ok()),
                "--illegal-on-go" => b.illegal_on_go = it.next().and_then(|n| n.parse().ok()),
                "--slow" => b.slow_ms = it.next().and_then(|n| n.parse().ok()).unwrap_or(0),
                "--record" => b.record = it.next(),
                _ => {}
            }
        }
        b
    }
}

/// The first move in UCI notation, in square order (`a1b1`, `a1c1`, ...,
/// `a1h8`, `b1a1`, ..., `h8g8`), that is well formed but not legal in `pos`: what the mock
/// answers with `--illegal-on-go`.
pub fn illegal_move(pos: &Position) -> String {
    let squares: Vec<String> = (b'1'..=b'8')
        .flat_map(|r| (b'a'..=b'h').map(move |f| format!("{}{}", f as char, r as char)))
        .collect();
    for from in &squares {
        for to in &squares {
            if from == to {
                continue;
            }
            let text = format!("{from}{to}");
            let legal = text
                .parse::<UciMove>()
                .ok()
                .is_some_and(|m| m.to_move(pos).is_ok());
            if !legal {
                return text;
            }
        }
    }
    // A position has at most 218 legal moves, far fewer than 64 * 63.
    "a1a2".to_string()
}

/// The index of the move `--random SEED` plays among `count` sorted legal
/// moves of the position with this FEN: FNV-1a of the FEN and the seed.
pub fn random_pick(fen: &str, seed: u64, count: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in fen.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    if count == 0 {
        0
    } else {
        (h % count as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse() {
        let b = MockBehaviour::from_args(
            ["--illegal-on-go", "3", "--hang-on-go", "x", "--slow", "5"]
                .iter()
                .map(|s| s.to_string()),
        );
        assert_eq!(b.illegal_on_go, Some(3));
        assert_eq!(b.hang_on_go, None);
        assert_eq!(b.slow_ms, 5);
        assert_eq!(
            MockBehaviour::from_args(Vec::new()),
            MockBehaviour::default()
        );
        let b = MockBehaviour::from_args(["--random".to_string(), "7".to_string()]);
        assert_eq!(b.random, Some(7));
    }

    #[test]
    fn random_picks_vary_with_the_position_and_stay_in_range() {
        let picks: std::collections::BTreeSet<usize> = (0..50)
            .map(|i| random_pick(&format!("fen {i}"), 1, 20))
            .collect();
        assert!(picks.len() > 5, "{picks:?}");
        assert!(picks.iter().all(|&p| p < 20));
        assert_eq!(random_pick("x", 1, 0), 0);
        assert_eq!(random_pick("x", 1, 7), random_pick("x", 1, 7));
    }

    #[test]
    fn the_illegal_move_is_well_formed_and_illegal() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // White's rook on a1 may go to b1..d1: the first illegal one is later.
            "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
            "4k3/8/8/8/8/8/8/R3K3 b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let m = illegal_move(&pos);
            let parsed: UciMove = m.parse().unwrap();
            assert!(parsed.to_move(&pos).is_err(), "{fen}: {m} is legal");
        }
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap();
        assert_eq!(illegal_move(&pos), "a1e1");
    }
}
