//! An engine's evaluation: centipawns or mate in N, from the side to move's
//! point of view, with its written forms (UCI `score cp|mate`, EPD `ce`/`dm`,
//! pawns for people).
//!
//! ```
//! use rookery_core::Score;
//!
//! let s: Score = "mate 3".parse().unwrap();
//! assert_eq!(s, Score::Mate(3));
//! assert_eq!(s.to_string(), "mate 3");
//! assert_eq!(s.ce(), 32762);
//! assert_eq!(Score::from_ce(32762), s);
//! assert_eq!(Score::Cp(-120).pawns().to_string(), "-1.20");
//! assert!(Score::Mate(3) > Score::Cp(5_000) && Score::Cp(5_000) > Score::Mate(-3));
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// An evaluation from the side to move's point of view.
///
/// Ordered from the side to move's view: a mate it gives beats any centipawn
/// score (a nearer mate ranks higher), any centipawn score beats a mate
/// against it (a farther one ranks higher), and `Mate(0)` (checkmated now)
/// is the least of all.
///
/// Written (`Display`, `FromStr`) in the UCI form `cp 25`, `mate -3`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many fullmoves: positive when the side to move mates,
    /// negative when it gets mated, 0 when it is checkmated now.
    Mate(i32),
}

/// What [`Score::as_cp`] counts a mate as, less its distance in moves.
pub const MATE_AS_CP: i64 = 100_000;

/// The largest `ce` of an ordinary score (§6.7 of the EPD spec); beyond it
/// lie the mate values.
pub const CE_MAX: i32 = 32_000;

/// The `ce` value of a mate (EPD spec §6.7): `n > 0` is a mate in `n`
/// fullmoves for the side to move (`32767 - (2n - 1)`), `n < 0` a mate in
/// `-n` against it (`-32767 + 2(-n)`), and `0` the side to move is
/// checkmated (`-32767`). `None` if the value would leave the side's mate
/// range (32001..=32766, or -32767..=-32001): a mate longer than 383 moves.
pub fn ce_from_mate(n: i32) -> Option<i32> {
    let ce = match n {
        0 => -32767,
        n if n > 0 => 32767i64 - (2 * i64::from(n) - 1),
        n => -32767 + 2 * -i64::from(n),
    };
    let ce = i32::try_from(ce).ok()?;
    // In the mate range of its own side: a long mate must not run through
    // the ordinary scores into the other side's range (or beyond it).
    let range = if n > 0 {
        CE_MAX + 1..=32766
    } else {
        -32767..=-CE_MAX - 1
    };
    range.contains(&ce).then_some(ce)
}

/// The mate a `ce` value stands for (EPD spec §6.7), the inverse of
/// [`ce_from_mate`]: `Some(n)` with `n > 0` mate in `n` for the side to
/// move, `n < 0` mate in `-n` against it, `0` checkmated; `None` for
/// ordinary scores and for -32768 (illegal position).
pub fn mate_from_ce(ce: i32) -> Option<i32> {
    if (CE_MAX + 1..=32766).contains(&ce) {
        let plies = 32767 - ce;
        Some((plies + 1) / 2)
    } else if (-32767..=-CE_MAX - 1).contains(&ce) {
        let plies = ce + 32767;
        Some(-(plies / 2))
    } else {
        None
    }
}

impl Score {
    /// Centipawns, with a mate as ±([`MATE_AS_CP`] − moves) so that nearer
    /// mates rank higher: for thresholds (adjudication) and spreads between
    /// scores. Agrees with the ordering unless a centipawn score exceeds
    /// ±[`MATE_AS_CP`] in size.
    pub fn as_cp(self) -> i64 {
        match self {
            Score::Cp(c) => i64::from(c),
            Score::Mate(m) if m > 0 => MATE_AS_CP - i64::from(m),
            Score::Mate(m) => -MATE_AS_CP - i64::from(m),
        }
    }

    /// The EPD `ce` operand (§6.7): centipawns clamped to ±[`CE_MAX`], a
    /// mate in its mate range; a mate too long for the range is written as
    /// the nearest ordinary-looking bound (±32001, "better/worse than any
    /// centipawn score").
    pub fn ce(self) -> i32 {
        match self {
            Score::Cp(c) => c.clamp(-CE_MAX, CE_MAX),
            Score::Mate(n) => {
                ce_from_mate(n).unwrap_or(if n > 0 { CE_MAX + 1 } else { -CE_MAX - 1 })
            }
        }
    }

    /// The score an EPD `ce` operand stands for: a mate in the mate ranges,
    /// centipawns otherwise.
    pub fn from_ce(ce: i32) -> Score {
        mate_from_ce(ce).map_or(Score::Cp(ce), Score::Mate)
    }

    /// The EPD `dm` operand (direct mate in N fullmoves, §6.8): `Some(n)`
    /// only for a mate the side to move gives.
    pub fn dm(self) -> Option<u32> {
        match self {
            Score::Mate(n) if n > 0 => u32::try_from(n).ok(),
            _ => None,
        }
    }

    /// Whether this is a mate the side to move gives in at most `moves`.
    pub fn mates_within(self, moves: u32) -> bool {
        self.dm().is_some_and(|n| n <= moves)
    }

    /// The score from the other side's point of view (the same mate
    /// distance; checkmated-now stays as it is, it has no other side).
    pub fn flip(self) -> Score {
        match self {
            Score::Cp(c) => Score::Cp(c.saturating_neg()),
            Score::Mate(m) => Score::Mate(m.saturating_neg()),
        }
    }

    /// The score in pawns for people, the cutechess convention: `+0.56`,
    /// `-1.20`, `+M5`, `-M3`.
    pub fn pawns(self) -> Pawns {
        Pawns(self)
    }

    /// Where the score stands in the order: (class, value) with winning
    /// mates above centipawns above losing mates.
    fn rank(self) -> (i8, i64) {
        match self {
            Score::Mate(m) if m > 0 => (1, -i64::from(m)),
            Score::Cp(c) => (0, i64::from(c)),
            Score::Mate(m) => (-1, -i64::from(m)),
        }
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Score) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Score) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Score {
    /// `cp 25`, `mate -3` (the UCI `score` operands).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "cp {c}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

/// A score that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseScoreError(pub String);

impl fmt::Display for ParseScoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad score {:?}: expected `cp N` or `mate N` (N an integer)",
            self.0
        )
    }
}

impl std::error::Error for ParseScoreError {}

impl Score {
    /// Reads the UCI pair `cp N` / `mate N` from its two words.
    ///
    /// # Errors
    /// [`ParseScoreError`] for another kind word or a value that is not a
    /// 32-bit integer.
    pub fn from_uci_words(kind: &str, value: &str) -> Result<Score, ParseScoreError> {
        let bad = || ParseScoreError(format!("{kind} {value}"));
        let v: i32 = value.parse().map_err(|_| bad())?;
        match kind {
            "cp" => Ok(Score::Cp(v)),
            "mate" => Ok(Score::Mate(v)),
            _ => Err(bad()),
        }
    }
}

impl FromStr for Score {
    type Err = ParseScoreError;

    fn from_str(s: &str) -> Result<Score, ParseScoreError> {
        let mut words = s.split_ascii_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some(kind), Some(value), None) => {
                Score::from_uci_words(kind, value).map_err(|_| ParseScoreError(s.to_string()))
            }
            _ => Err(ParseScoreError(s.to_string())),
        }
    }
}

/// A [`Score`] written in pawns (see [`Score::pawns`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pawns(pub Score);

impl fmt::Display for Pawns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Score::Cp(c) => {
                let sign = if c < 0 { '-' } else { '+' };
                let a = c.unsigned_abs();
                write!(f, "{sign}{}.{:02}", a / 100, a % 100)
            }
            Score::Mate(m) => {
                write!(f, "{}M{}", if m < 0 { '-' } else { '+' }, m.unsigned_abs())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uci_form_round_trips() {
        for s in [
            Score::Cp(0),
            Score::Cp(-35),
            Score::Mate(4),
            Score::Mate(-2),
        ] {
            assert_eq!(s.to_string().parse::<Score>(), Ok(s));
        }
        assert_eq!("cp  12".parse::<Score>(), Ok(Score::Cp(12)));
        for bad in ["", "cp", "cp x", "pawns 3", "mate 1 2", "cp 99999999999"] {
            assert!(bad.parse::<Score>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ce_follows_the_spec() {
        assert_eq!(Score::Cp(50).ce(), 50);
        assert_eq!(Score::Cp(40_000).ce(), 32_000);
        assert_eq!(Score::Mate(1).ce(), 32766);
        assert_eq!(Score::Mate(-1).ce(), -32765);
        assert_eq!(Score::Mate(0).ce(), -32767);
        assert_eq!(Score::Mate(100_000).ce(), 32001);
        assert_eq!(Score::Mate(-100_000).ce(), -32001);
        for s in [
            Score::Cp(-7),
            Score::Mate(5),
            Score::Mate(-5),
            Score::Mate(0),
        ] {
            assert_eq!(Score::from_ce(s.ce()), s);
        }
        assert_eq!(Score::Mate(3).dm(), Some(3));
        assert_eq!(Score::Mate(-3).dm(), None);
        assert_eq!(Score::Cp(3).dm(), None);
        assert!(Score::Mate(3).mates_within(3) && !Score::Mate(4).mates_within(3));
    }

    #[test]
    fn ce_from_mate_matches_the_spec_examples() {
        assert_eq!(ce_from_mate(1), Some(32766));
        assert_eq!(ce_from_mate(5), Some(32758));
        assert_eq!(ce_from_mate(-1), Some(-32765));
        assert_eq!(ce_from_mate(-5), Some(-32757));
        assert_eq!(ce_from_mate(0), Some(-32767));
        assert_eq!(ce_from_mate(1000), None);
        for n in -383..=383 {
            assert_eq!(mate_from_ce(ce_from_mate(n).unwrap()), Some(n), "{n}");
        }
        assert_eq!(mate_from_ce(150), None);
        assert_eq!(mate_from_ce(-32768), None);
    }

    #[test]
    fn order_puts_mates_outside_centipawns() {
        let ascending = [
            Score::Mate(0),
            Score::Mate(-1),
            Score::Mate(-5),
            Score::Cp(-200_000),
            Score::Cp(-3),
            Score::Cp(0),
            Score::Cp(200_000),
            Score::Mate(7),
            Score::Mate(2),
        ];
        for w in ascending.windows(2) {
            assert!(w[0] < w[1], "{:?} < {:?}", w[0], w[1]);
        }
        assert!(Score::Mate(3).as_cp() > Score::Mate(5).as_cp());
        assert!(Score::Mate(-3).as_cp() < Score::Mate(-5).as_cp());
        assert!(Score::Mate(-5).as_cp() < Score::Cp(-30_000).as_cp());
        assert_eq!(Score::Mate(4).flip(), Score::Mate(-4));
    }

    #[test]
    fn pawns_follow_the_cutechess_convention() {
        assert_eq!(Score::Cp(56).pawns().to_string(), "+0.56");
        assert_eq!(Score::Cp(-120).pawns().to_string(), "-1.20");
        assert_eq!(Score::Cp(0).pawns().to_string(), "+0.00");
        assert_eq!(Score::Cp(-5).pawns().to_string(), "-0.05");
        assert_eq!(Score::Mate(5).pawns().to_string(), "+M5");
        assert_eq!(Score::Mate(-3).pawns().to_string(), "-M3");
    }
}
