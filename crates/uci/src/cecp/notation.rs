//! How CECP writes moves: coordinate notation or SAN, read without a position.

use rookery_core::{CastlingMode, CastlingSide, Move, Position, San, SanError, SanPlus, UciMove};
use std::fmt;

/// A move as CECP writes it, read without a position (the notation is a
/// type; [`CecpMove::to_move`] resolves it).
///
/// Engines send coordinate notation (`e2e4`, `e7e8q`, castling as the king's
/// two-square move `e1g1`) or SAN (`Nf3`, `exd5`, `e8=Q`, `O-O`), whatever
/// the `san` feature says; both are read either way.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CecpMove {
    /// Coordinate notation (`e2e4`, `e7e8q`, `e1g1`, and `0000`).
    Coord(UciMove),
    /// Standard algebraic notation (also `O-O`, `0-0`, long algebraic such
    /// as `Ng1-f3`), with its check marker.
    San(SanPlus),
    /// The null move, `@@@@`.
    Null,
}

/// Text that is not a move in either notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a move (expected coordinate notation such as e2e4 or SAN such as Nf3)")]
pub struct ParseCecpMoveError {
    /// The text (lossily decoded).
    pub text: String,
}

/// A move that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalCecpMoveError {
    /// A coordinate move no legal move matches (or the null move).
    #[error("illegal move {0}")]
    Coord(String),
    /// A SAN move that is illegal or ambiguous.
    #[error("{0}")]
    San(SanError),
}

/// Which notation moves are sent in (the `san` feature).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Notation {
    /// Coordinate notation (`e2e4`; `san=0`, the default).
    #[default]
    Coordinate,
    /// SAN (`san=1`).
    San,
}

impl CecpMove {
    /// Reads a move: coordinate notation first (so `e2e4` is a coordinate
    /// move, not long algebraic), then `@@@@`, then SAN. Text that SAN reads
    /// but writes back as a coordinate move (`e2-e4`) is a coordinate move.
    ///
    /// # Errors
    /// [`ParseCecpMoveError`] if it is neither.
    pub fn from_ascii(s: &[u8]) -> Result<CecpMove, ParseCecpMoveError> {
        if let Ok(m) = UciMove::from_ascii(s) {
            return Ok(CecpMove::Coord(m));
        }
        let san = SanPlus::from_ascii(s).map_err(|_| ParseCecpMoveError {
            text: String::from_utf8_lossy(s).into_owned(),
        })?;
        if san.san == San::Null {
            return Ok(CecpMove::Null);
        }
        // One spelling per move: what SAN writes as `e2e4` is that coordinate move.
        match UciMove::from_ascii(san.to_string().as_bytes()) {
            Ok(m) => Ok(CecpMove::Coord(m)),
            Err(_) => Ok(CecpMove::San(san)),
        }
    }

    /// The legal move of `pos` this stands for. Castling is accepted as the
    /// king's two-square move, as the king taking its own rook and as `O-O`.
    ///
    /// # Errors
    /// [`IllegalCecpMoveError`] if no legal move (or more than one) matches.
    pub fn to_move(&self, pos: &Position) -> Result<Move, IllegalCecpMoveError> {
        match self {
            CecpMove::Coord(m) => m
                .to_move(pos)
                .map_err(|_| IllegalCecpMoveError::Coord(m.to_string())),
            CecpMove::San(s) => s.san.to_move(pos).map_err(IllegalCecpMoveError::San),
            CecpMove::Null => Err(IllegalCecpMoveError::Coord("@@@@".to_string())),
        }
    }

    /// Writes a legal move of `pos` as xboard sends it: coordinate notation
    /// (castling as the king's two-square move, or `O-O`/`O-O-O` in
    /// Chess960, where the protocol writes castling so), or SAN.
    pub fn from_move(pos: &Position, m: Move, notation: Notation, chess960: bool) -> CecpMove {
        match notation {
            Notation::San => CecpMove::San(SanPlus::from_move(pos, m)),
            Notation::Coordinate if chess960 && m.is_castle() => {
                let side = if m.to().file() > m.from().file() {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                CecpMove::San(SanPlus {
                    san: San::Castle(side),
                    suffix: None,
                })
            }
            Notation::Coordinate => {
                CecpMove::Coord(UciMove::from_move(pos, m, CastlingMode::Standard))
            }
        }
    }
}

impl fmt::Display for CecpMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CecpMove::Coord(m) => m.fmt(f),
            CecpMove::San(s) => s.fmt(f),
            CecpMove::Null => f.write_str("@@@@"),
        }
    }
}

impl std::str::FromStr for CecpMove {
    type Err = ParseCecpMoveError;
    fn from_str(s: &str) -> Result<CecpMove, ParseCecpMoveError> {
        CecpMove::from_ascii(s.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> CecpMove {
        s.parse().unwrap()
    }

    #[test]
    fn reads_both_notations_and_resolves_them() {
        let pos = Position::startpos();
        assert!(matches!(mv("e2e4"), CecpMove::Coord(_)));
        assert!(matches!(mv("Nf3"), CecpMove::San(_)));
        assert!(matches!(mv("@@@@"), CecpMove::Null));
        // Long algebraic with a dash is the coordinate move.
        assert_eq!(mv("e2-e4"), mv("e2e4"));
        assert_eq!(mv("e2-e4").to_string(), "e2e4");
        let e4 = mv("e4").to_move(&pos).unwrap();
        assert_eq!(mv("e2e4").to_move(&pos).unwrap(), e4);
        assert!(mv("e2e5").to_move(&pos).is_err());
        assert!(mv("Nd2").to_move(&pos).is_err());
        assert!(mv("@@@@").to_move(&pos).is_err());
        assert!("castle".parse::<CecpMove>().is_err());
        assert!("".parse::<CecpMove>().is_err());
    }

    #[test]
    fn castling_in_every_form() {
        let pos = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let short = mv("e1g1").to_move(&pos).unwrap();
        for text in ["O-O", "0-0", "e1h1"] {
            assert_eq!(mv(text).to_move(&pos).unwrap(), short, "{text}");
        }
        let long = mv("O-O-O").to_move(&pos).unwrap();
        assert_eq!(mv("e1c1").to_move(&pos).unwrap(), long);
        let coord = CecpMove::from_move(&pos, short, Notation::Coordinate, false);
        assert_eq!(coord.to_string(), "e1g1");
        let frc = CecpMove::from_move(&pos, long, Notation::Coordinate, true);
        assert_eq!(frc.to_string(), "O-O-O");
        let san = CecpMove::from_move(&pos, short, Notation::San, false);
        assert_eq!(san.to_string(), "O-O");
    }

    #[test]
    fn promotions_and_checks_in_san() {
        let pos = Position::from_fen("4k3/P7/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        let m = mv("a7a8q").to_move(&pos).unwrap();
        assert_eq!(mv("a8=Q+").to_move(&pos).unwrap(), m);
        assert_eq!(mv("a7a8Q").to_move(&pos).unwrap(), m);
        assert_eq!(
            CecpMove::from_move(&pos, m, Notation::San, false).to_string(),
            "a8=Q+"
        );
        assert_eq!(
            CecpMove::from_move(&pos, m, Notation::Coordinate, false).to_string(),
            "a7a8q"
        );
    }
}
