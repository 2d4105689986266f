//! Standard Algebraic Notation: reading (as real files write it) and writing.
//!
//! ```
//! use rookery_core::{Position, San, SanPlus};
//! let pos = Position::startpos();
//! let san: San = "Nf3".parse()?;
//! let m = san.to_move(&pos)?;
//! assert_eq!(SanPlus::from_move(&pos, m).to_string(), "Nf3");
//! // Long algebraic and castling with zeros are read too.
//! assert_eq!("Ng1-f3".parse::<San>()?.to_move(&pos)?, m);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::position::Position;
use crate::types::{CastlingSide, File, Rank, Role, Square};
use core::fmt;

/// A move in SAN, read without a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum San {
    /// A piece or pawn move.
    Normal {
        /// The moving piece.
        role: Role,
        /// Disambiguating file (or the pawn's file for captures).
        file: Option<File>,
        /// Disambiguating rank.
        rank: Option<Rank>,
        /// Whether an `x` was written.
        capture: bool,
        /// The destination.
        to: Square,
        /// The promotion piece.
        promotion: Option<Role>,
    },
    /// `O-O` or `O-O-O`.
    Castle(CastlingSide),
    /// The null move, `--`.
    Null,
}

/// A check or mate marker after a SAN move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `+`
    Check,
    /// `#`
    Checkmate,
}

/// A SAN move with its check or mate marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SanPlus {
    /// The move.
    pub san: San,
    /// `+`, `#` or nothing.
    pub suffix: Option<Suffix>,
}

/// Text that is not a SAN move at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSanError {
    /// The text (lossily decoded).
    pub text: String,
}

impl fmt::Display for ParseSanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a move in SAN (expected e.g. e4, Nf3, exd5, e8=Q, O-O)",
            self.text
        )
    }
}

impl std::error::Error for ParseSanError {}

/// A SAN move that cannot be played in the position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SanError {
    /// No legal move matches.
    Illegal {
        /// The move as written.
        san: String,
        /// Why no move matched.
        reason: &'static str,
    },
    /// More than one legal move matches.
    Ambiguous {
        /// The move as written.
        san: String,
        /// The candidates, in UCI notation.
        candidates: Vec<String>,
    },
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Illegal { san, reason } => write!(f, "illegal move {san}: {reason}"),
            SanError::Ambiguous { san, candidates } => {
                write!(
                    f,
                    "ambiguous move {san}: could be {}",
                    candidates.join(" or ")
                )
            }
        }
    }
}

impl std::error::Error for SanError {}

impl San {
    /// Reads SAN as files contain it: `+`/`#` and `!?`-style suffixes are
    /// ignored, `0-0` is castling, `e8Q` and `e8=Q` are promotions, `Pe4`
    /// names the pawn, and long algebraic (`e2e4`, `e2-e4`, `Ng1-f3`, `Nb1xc3`)
    /// is accepted.
    ///
    /// # Errors
    /// [`ParseSanError`] if the text is not a move.
    pub fn from_ascii(s: &[u8]) -> Result<San, ParseSanError> {
        SanPlus::from_ascii(s).map(|sp| sp.san)
    }

    /// Finds the legal move this SAN stands for.
    ///
    /// # Errors
    /// [`SanError`] if no legal move or more than one matches.
    pub fn to_move(&self, pos: &Position) -> Result<Move, SanError> {
        match *self {
            San::Null => Err(SanError::Illegal {
                san: self.to_string(),
                reason: "a null move is not a legal move",
            }),
            San::Castle(side) => {
                let us = pos.turn();
                let rook = pos
                    .castling_rook(us, side)
                    .ok_or_else(|| SanError::Illegal {
                        san: self.to_string(),
                        reason: "no castling right on that side",
                    })?;
                let m = Move::castle(pos.king(us), rook);
                if pos.is_legal(m) {
                    Ok(m)
                } else {
                    Err(SanError::Illegal {
                        san: self.to_string(),
                        reason: "castling is not legal now (check, attacked or occupied squares)",
                    })
                }
            }
            San::Normal {
                role,
                file,
                rank,
                to,
                promotion,
                ..
            } => {
                let mut found: Option<Move> = None;
                let mut candidates = Vec::new();
                let mut wrong_promotion = false;
                for &m in pos.moves_to(to).iter() {
                    if m.is_castle() {
                        continue;
                    }
                    if pos.role_at(m.from()) != Some(role) {
                        continue;
                    }
                    if file.is_some_and(|f| f != m.from().file())
                        || rank.is_some_and(|r| r != m.from().rank())
                    {
                        continue;
                    }
                    if m.promotion() != promotion {
                        wrong_promotion = true;
                        continue;
                    }
                    candidates.push(m);
                    found = Some(m);
                }
                match candidates.len() {
                    1 => Ok(found.unwrap_or(Move::NULL)),
                    0 => {
                        // A king moving two squares towards its rook: castling written as a king move.
                        if role == Role::King
                            && file.is_none_or(|f| f == pos.king(pos.turn()).file())
                        {
                            for &m in pos.legal_moves().iter().filter(|m| m.is_castle()) {
                                let side = if m.to().file() > m.from().file() {
                                    CastlingSide::KingSide
                                } else {
                                    CastlingSide::QueenSide
                                };
                                let dist = (side.king_to_file().index() as i32
                                    - m.from().file().index() as i32)
                                    .abs();
                                if side.king_to(pos.turn()) == to && dist >= 2 {
                                    return Ok(m);
                                }
                            }
                        }
                        Err(SanError::Illegal {
                            san: self.to_string(),
                            reason: if wrong_promotion {
                                if promotion.is_none() {
                                    "missing promotion piece"
                                } else {
                                    "promotion piece does not fit the move"
                                }
                            } else if (pos.pieces(pos.turn(), role)).is_empty() {
                                "no such piece"
                            } else {
                                "no piece of that kind can move there"
                            },
                        })
                    }
                    _ => Err(SanError::Ambiguous {
                        san: self.to_string(),
                        candidates: candidates
                            .iter()
                            .map(|m| {
                                crate::uci::UciMove::from_move(
                                    pos,
                                    *m,
                                    crate::uci::CastlingMode::Standard,
                                )
                                .to_string()
                            })
                            .collect(),
                    }),
                }
            }
        }
    }

    /// The SAN of a legal move, with minimal disambiguation and no check marker.
    pub fn from_move(pos: &Position, m: Move) -> San {
        if m.is_null() {
            return San::Null;
        }
        if m.is_castle() {
            return San::Castle(if m.to().file() > m.from().file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            });
        }
        let from = m.from();
        let to = m.to();
        let role = pos.role_at(from).unwrap_or(Role::Pawn);
        let capture = pos.is_capture(m);
        let promotion = m.promotion();
        if role == Role::Pawn {
            return San::Normal {
                role,
                file: capture.then(|| from.file()),
                rank: None,
                capture,
                to,
                promotion,
            };
        }
        let (mut file, mut rank) = (None, None);
        if role != Role::King {
            let others: Bitboard = pos
                .moves_to(to)
                .iter()
                .filter(|o| {
                    o.to() == to
                        && o.from() != from
                        && !o.is_castle()
                        && pos.role_at(o.from()) == Some(role)
                })
                .map(|o| o.from())
                .collect();
            if others.nonempty() {
                if !others.intersects(Bitboard::file(from.file())) {
                    file = Some(from.file());
                } else if !others.intersects(Bitboard::rank(from.rank())) {
                    rank = Some(from.rank());
                } else {
                    file = Some(from.file());
                    rank = Some(from.rank());
                }
            }
        }
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        }
    }
}

impl SanPlus {
    /// Reads SAN with its optional `+`/`#`; see [`San::from_ascii`].
    ///
    /// # Errors
    /// [`ParseSanError`] if the text is not a move.
    pub fn from_ascii(s: &[u8]) -> Result<SanPlus, ParseSanError> {
        let bad = || ParseSanError {
            text: String::from_utf8_lossy(s).into_owned(),
        };
        let mut t = s;
        // Annotation glyphs and check marks at the end, in any order.
        let mut suffix = None;
        while let Some((&last, rest)) = t.split_last() {
            match last {
                b'!' | b'?' => t = rest,
                b'+' => {
                    suffix.get_or_insert(Suffix::Check);
                    t = rest;
                }
                b'#' => {
                    suffix = Some(Suffix::Checkmate);
                    t = rest;
                }
                _ => break,
            }
        }
        if let Some(rest) = t.strip_suffix(b"e.p.") {
            t = rest.strip_suffix(b" ").unwrap_or(rest);
        }
        let san = match t {
            b"--" | b"Z0" | b"0000" | b"@@@@" => San::Null,
            b"O-O" | b"0-0" | b"o-o" => San::Castle(CastlingSide::KingSide),
            b"O-O-O" | b"0-0-0" | b"o-o-o" => San::Castle(CastlingSide::QueenSide),
            _ => parse_normal(t).ok_or_else(bad)?,
        };
        Ok(SanPlus { san, suffix })
    }

    /// The SAN of a legal move with `+` or `#` as the position after it warrants.
    pub fn from_move(pos: &Position, m: Move) -> SanPlus {
        let san = San::from_move(pos, m);
        let after = pos.after(m);
        let suffix = if after.is_check() {
            Some(if after.has_legal_move() {
                Suffix::Check
            } else {
                Suffix::Checkmate
            })
        } else {
            None
        };
        SanPlus { san, suffix }
    }
}

fn parse_normal(t: &[u8]) -> Option<San> {
    let mut t = t;
    // Promotion at the end: "=Q", "Q", "(Q)", "/Q", or lower case after '=' or a rank digit.
    let mut promotion = None;
    if let [rest @ .., b'(', p, b')'] = t {
        promotion = Some(Role::from_char(*p as char)?);
        t = rest;
    } else if let [rest @ .., sep, p] = t {
        if matches!(sep, b'=' | b'/') {
            promotion = Some(Role::from_char(*p as char)?);
            t = rest;
        } else if sep.is_ascii_digit() && p.is_ascii_alphabetic() {
            promotion = Some(Role::from_char(*p as char)?);
            t = &t[..t.len() - 1];
        }
    }
    if let Some(p) = promotion {
        if matches!(p, Role::Pawn | Role::King) {
            return None;
        }
    }
    let [rest @ .., tf, tr] = t else {
        return None;
    };
    let to = Square::from_coords(
        File::from_char(*tf as char).filter(|_| tf.is_ascii_lowercase())?,
        Rank::from_char(*tr as char)?,
    );
    let mut rest = rest;
    let mut capture = false;
    if let [r @ .., sep] = rest {
        match sep {
            b'x' | b':' => {
                capture = true;
                rest = r;
            }
            b'-' => rest = r,
            _ => {}
        }
    }
    let mut role = Role::Pawn;
    if let [c, r @ ..] = rest {
        if c.is_ascii_uppercase() {
            role = Role::from_char(*c as char)?;
            rest = r;
        }
    }
    let (file, rank) = match rest {
        [] => (None, None),
        [c] if c.is_ascii_digit() => (None, Some(Rank::from_char(*c as char)?)),
        [c] => (
            Some(File::from_char(*c as char).filter(|_| c.is_ascii_lowercase())?),
            None,
        ),
        [f, r] => (
            Some(File::from_char(*f as char).filter(|_| f.is_ascii_lowercase())?),
            Some(Rank::from_char(*r as char)?),
        ),
        _ => return None,
    };
    if promotion.is_some() && role != Role::Pawn {
        return None;
    }
    Some(San::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    })
}

impl core::str::FromStr for San {
    type Err = ParseSanError;
    fn from_str(s: &str) -> Result<San, ParseSanError> {
        San::from_ascii(s.as_bytes())
    }
}

impl core::str::FromStr for SanPlus {
    type Err = ParseSanError;
    fn from_str(s: &str) -> Result<SanPlus, ParseSanError> {
        SanPlus::from_ascii(s.as_bytes())
    }
}

impl San {
    /// Appends the SAN text to `out` (no allocation beyond `out`'s growth).
    pub fn append_to(&self, out: &mut String) {
        match *self {
            San::Null => out.push_str("--"),
            San::Castle(CastlingSide::KingSide) => out.push_str("O-O"),
            San::Castle(CastlingSide::QueenSide) => out.push_str("O-O-O"),
            San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } => {
                if role != Role::Pawn {
                    out.push(role.upper_char());
                }
                if let Some(f) = file {
                    out.push(f.char());
                }
                if let Some(r) = rank {
                    out.push(r.char());
                }
                if capture {
                    out.push('x');
                }
                out.push(to.file().char());
                out.push(to.rank().char());
                if let Some(p) = promotion {
                    out.push('=');
                    out.push(p.upper_char());
                }
            }
        }
    }
}

impl fmt::Display for San {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(8);
        self.append_to(&mut s);
        f.write_str(&s)
    }
}

impl fmt::Display for SanPlus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.san.fmt(f)?;
        match self.suffix {
            Some(Suffix::Check) => f.write_str("+"),
            Some(Suffix::Checkmate) => f.write_str("#"),
            None => Ok(()),
        }
    }
}

impl Move {
    /// Whether this move is a promotion to `role`.
    pub fn promotes_to(self, role: Role) -> bool {
        self.kind() == MoveKind::Promotion(role)
    }
}
