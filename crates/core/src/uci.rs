//! UCI coordinate notation for moves: `e2e4`, `e7e8q`, `0000`.

use crate::moves::{Move, MoveKind};
use crate::position::Position;
use crate::types::{CastlingSide, Role, Square};
use core::fmt;

/// How castling is written in UCI.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum CastlingMode {
    /// The king moves two squares: `e1g1`.
    #[default]
    Standard,
    /// The king takes its own rook: `e1h1` (UCI_Chess960).
    Chess960,
}

/// A move in UCI notation, read without a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UciMove {
    /// From, to and an optional promotion.
    Normal {
        /// Origin square.
        from: Square,
        /// Destination square.
        to: Square,
        /// Promotion piece.
        promotion: Option<Role>,
    },
    /// `0000`.
    Null,
}

/// Text that is not a UCI move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseUciMoveError {
    /// The text (lossily decoded).
    pub text: String,
}

impl fmt::Display for ParseUciMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a UCI move (expected e.g. e2e4, e7e8q or 0000)",
            self.text
        )
    }
}

impl std::error::Error for ParseUciMoveError {}

/// A UCI move that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalUciMoveError {
    /// The move as written.
    pub uci: String,
}

impl fmt::Display for IllegalUciMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {}", self.uci)
    }
}

impl std::error::Error for IllegalUciMoveError {}

impl UciMove {
    /// Parses `e2e4`, `e7e8q` (promotion letter in either case) or `0000`.
    ///
    /// # Errors
    /// [`ParseUciMoveError`] if the text is not of that form.
    pub fn from_ascii(s: &[u8]) -> Result<UciMove, ParseUciMoveError> {
        let bad = || ParseUciMoveError {
            text: String::from_utf8_lossy(s).into_owned(),
        };
        if s == b"0000" {
            return Ok(UciMove::Null);
        }
        if s.len() != 4 && s.len() != 5 {
            return Err(bad());
        }
        let from = Square::from_ascii(&s[0..2]).ok_or_else(bad)?;
        let to = Square::from_ascii(&s[2..4]).ok_or_else(bad)?;
        let promotion = match s.get(4) {
            None => None,
            Some(&c) => match Role::from_char(c as char) {
                Some(r @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)) => Some(r),
                _ => return Err(bad()),
            },
        };
        Ok(UciMove::Normal {
            from,
            to,
            promotion,
        })
    }

    /// Writes a legal move of `pos` in UCI notation.
    pub fn from_move(pos: &Position, m: Move, mode: CastlingMode) -> UciMove {
        if m.is_null() {
            return UciMove::Null;
        }
        let to = if m.is_castle() && mode == CastlingMode::Standard {
            let side = if m.to().file() > m.from().file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            side.king_to(pos.turn())
        } else {
            m.to()
        };
        UciMove::Normal {
            from: m.from(),
            to,
            promotion: m.promotion(),
        }
    }

    /// Finds the legal move this stands for. Castling is accepted both as the
    /// king moving two squares and as the king taking its own rook.
    ///
    /// # Errors
    /// [`IllegalUciMoveError`] if no legal move matches.
    pub fn to_move(&self, pos: &Position) -> Result<Move, IllegalUciMoveError> {
        let illegal = || IllegalUciMoveError {
            uci: self.to_string(),
        };
        let UciMove::Normal {
            from,
            to,
            promotion,
        } = *self
        else {
            return Err(illegal());
        };
        let moves = pos.moves_from(from);
        if let Some(&m) = moves
            .iter()
            .find(|m| !m.is_castle() && m.to() == to && m.promotion() == promotion)
        {
            return Ok(m);
        }
        if promotion.is_none() {
            for &m in moves.iter().filter(|m| m.is_castle()) {
                let side = if m.to().file() > m.from().file() {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                if m.to() == to || side.king_to(pos.turn()) == to {
                    return Ok(m);
                }
            }
        }
        Err(illegal())
    }

    /// Appends the text to `out`.
    pub fn append_to(&self, out: &mut String) {
        match *self {
            UciMove::Null => out.push_str("0000"),
            UciMove::Normal {
                from,
                to,
                promotion,
            } => {
                out.push(from.file().char());
                out.push(from.rank().char());
                out.push(to.file().char());
                out.push(to.rank().char());
                if let Some(p) = promotion {
                    out.push(p.char());
                }
            }
        }
    }
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(5);
        self.append_to(&mut s);
        f.write_str(&s)
    }
}

impl core::str::FromStr for UciMove {
    type Err = ParseUciMoveError;
    fn from_str(s: &str) -> Result<UciMove, ParseUciMoveError> {
        UciMove::from_ascii(s.as_bytes())
    }
}

impl Move {
    /// Shorthand for [`UciMove::from_move`] rendered as text.
    pub fn to_uci(self, pos: &Position, mode: CastlingMode) -> String {
        UciMove::from_move(pos, self, mode).to_string()
    }

    /// Whether this is a quiet move (neither capture nor promotion) in `pos`.
    pub fn is_quiet_in(self, pos: &Position) -> bool {
        !pos.is_capture(self) && !matches!(self.kind(), MoveKind::Promotion(_))
    }
}
