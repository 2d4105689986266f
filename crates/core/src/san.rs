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
//!
//! Resolving is strict by default: [`San::to_move`] reads a move as
//! python-chess's `parse_san` does, so a pawn capture needs its file
//! (`exd5`, never `d5`) and `Kg1` is a king move, not castling. Leniency is
//! asked for: [`San::to_move_lenient`] also reads castling written as a king
//! move, and says which [`Leniency`] it took (and whether the capture mark
//! `x` tells the truth), so that a reader can warn.
//!
//! ```
//! use rookery_core::{Leniency, Position, San};
//! let pos = Position::from_fen("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")?;
//! // `d5` is no move here: the pawn on e4 takes only as `exd5`.
//! assert!("d5".parse::<San>()?.to_move(&pos).is_err());
//! assert!("d5".parse::<San>()?.to_move_lenient(&pos).is_err());
//! // `ed5` is read (as python-chess reads it), and the lenient call says the `x` is missing.
//! let (m, leniency) = "ed5".parse::<San>()?.to_move_lenient(&pos)?;
//! assert_eq!(m, "exd5".parse::<San>()?.to_move(&pos)?);
//! assert_eq!(leniency, Some(Leniency::MissingCapture));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::attacks::{
    aligned, attacks, between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks,
};
use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::position::Position;
use crate::types::{CastlingSide, Color, File, Rank, Role, Square};
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

/// How a SAN string departs from the standard although it still names one
/// legal move: what [`San::to_move_lenient`] and [`SanPlus::from_ascii`]
/// read where the standard (and, but for the capture mark, python-chess)
/// would not, so that a reader can say so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Leniency {
    /// A capture written without its `x` (`Nd5` taking on d5, `ed5`;
    /// not coordinates such as `e4d5`, which never write one). python-chess
    /// reads it too.
    MissingCapture,
    /// An `x` written for a move that takes nothing (`Nxf3` to an empty
    /// square, `xe4` for the pawn push). python-chess reads it too.
    SpuriousCapture,
    /// Castling written as the king's move to its castled square (`Kg1`,
    /// `Ke1c1`), which python-chess does not read.
    CastlingAsKingMove,
    /// A spelling that neither the standard nor python-chess reads: `Pe4`,
    /// `o-o`, `e4:d5`, `e8(Q)`, `e8/Q`, `dxe6 e.p.`, several check marks.
    /// See [`SanPlus::from_ascii_strict`].
    Spelling,
}

impl fmt::Display for Leniency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Leniency::MissingCapture => "a capture written without its x",
            Leniency::SpuriousCapture => "an x written for a move that captures nothing",
            Leniency::CastlingAsKingMove => "castling written as a king move",
            Leniency::Spelling => "a spelling that is not standard SAN",
        })
    }
}

impl San {
    /// Reads SAN as files contain it: `+`/`#` and `!?`-style suffixes are
    /// ignored, `0-0` is castling, `e8Q` and `e8=Q` are promotions, `Pe4`
    /// names the pawn, and long algebraic (`e2e4`, `e2-e4`, `Ng1-f3`, `Nb1xc3`)
    /// is accepted. [`SanPlus::from_ascii_strict`] reads only the standard
    /// spellings and those python-chess reads.
    ///
    /// # Errors
    /// [`ParseSanError`] if the text is not a move.
    pub fn from_ascii(s: &[u8]) -> Result<San, ParseSanError> {
        SanPlus::from_ascii(s).map(|sp| sp.san)
    }

    /// Finds the legal move this SAN stands for, strictly: as python-chess's
    /// `parse_san` reads it. A pawn move without a file is a move along its
    /// file (`d5` is never `exd5`); a king move is never castling (`Kg1`);
    /// the capture mark `x` is not checked (python-chess does not check it;
    /// [`San::to_move_lenient`] reports it).
    ///
    /// A plain piece or pawn move is found from the attack tables, pins and
    /// checks, without generating the legal moves; anything else (castling,
    /// en passant, every error) is decided by generating them, so the answer
    /// and the error are the same either way.
    ///
    /// # Errors
    /// [`SanError`] if no legal move or more than one matches.
    #[inline]
    pub fn to_move(&self, pos: &Position) -> Result<Move, SanError> {
        match fast_resolve(pos, self) {
            Some(m) => Ok(m),
            None => self.resolve_by_generation(pos),
        }
    }

    /// [`San::to_move`], and more leniently where the move is still
    /// unmistakable: castling written as the king's move to its castled
    /// square (`Kg1`, `Ke1c1`). Says which [`Leniency`] it took, if any,
    /// including a capture mark that does not tell the truth
    /// ([`Leniency::MissingCapture`], [`Leniency::SpuriousCapture`]), which
    /// the strict call reads silently as python-chess does. A string that
    /// fits no legal move or several is an error, as with the strict call.
    ///
    /// # Errors
    /// [`SanError`] if no legal move or more than one matches (the strict
    /// call's error).
    #[inline]
    pub fn to_move_lenient(&self, pos: &Position) -> Result<(Move, Option<Leniency>), SanError> {
        match self.to_move(pos) {
            Ok(m) => {
                let leniency = match *self {
                    // Coordinates (`e4d5`, UCI written as SAN) never write
                    // an `x`: only a needless one is said there.
                    San::Normal {
                        capture: false,
                        file: Some(_),
                        rank: Some(_),
                        ..
                    } => None,
                    San::Normal { capture, .. } if capture != pos.is_capture(m) => {
                        Some(if capture {
                            Leniency::SpuriousCapture
                        } else {
                            Leniency::MissingCapture
                        })
                    }
                    _ => None,
                };
                Ok((m, leniency))
            }
            Err(e) => match self.castling_as_king_move(pos) {
                Some(m) => Ok((m, Some(Leniency::CastlingAsKingMove))),
                None => Err(e),
            },
        }
    }

    /// The castling move a king move to the king's castled square stands
    /// for (`Kg1`, `Ke1g1` for `O-O`), where the king moves two squares or
    /// more; `None` for any other SAN.
    #[cold]
    fn castling_as_king_move(&self, pos: &Position) -> Option<Move> {
        let San::Normal {
            role: Role::King,
            file,
            rank,
            to,
            promotion: None,
            ..
        } = *self
        else {
            return None;
        };
        let king = pos.king(pos.turn());
        if file.is_some_and(|f| f != king.file()) || rank.is_some_and(|r| r != king.rank()) {
            return None;
        }
        pos.legal_moves().iter().copied().find(|m| {
            if !m.is_castle() {
                return false;
            }
            let side = if m.to().file() > m.from().file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            let dist = side
                .king_to_file()
                .index()
                .abs_diff(m.from().file().index());
            side.king_to(pos.turn()) == to && dist >= 2
        })
    }

    /// [`San::to_move`] by generating the legal moves to the target.
    fn resolve_by_generation(&self, pos: &Position) -> Result<Move, SanError> {
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
                if pos.castling_is_legal(rook) {
                    Ok(Move::castle(pos.king(us), rook))
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
                let mut capture_without_file = false;
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
                    // A pawn written without its file moves along the
                    // file it names: a capture needs the file (`exd5`).
                    if role == Role::Pawn && file.is_none() && m.from().file() != to.file() {
                        capture_without_file = true;
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
                    0 => Err(SanError::Illegal {
                        san: self.to_string(),
                        reason: if capture_without_file {
                            "a pawn capture is written with the pawn's file (exd5)"
                        } else if wrong_promotion {
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
                    }),
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
            // Other pieces of the kind that could legally go there.
            let us = pos.turn();
            let rivals =
                (attacks(us, role, to, pos.occupied()) & pos.pieces(us, role)).without(from);
            let others = if rivals.is_empty() {
                rivals
            } else {
                legal_origins(pos, rivals, to)
            };
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
    /// Reads SAN with its optional `+`/`#`; see [`San::from_ascii`]. The
    /// standard spellings take a fast path.
    ///
    /// # Errors
    /// [`ParseSanError`] if the text is not a move.
    #[inline]
    pub fn from_ascii(s: &[u8]) -> Result<SanPlus, ParseSanError> {
        match parse_fast(s) {
            Some(sp) => Ok(sp),
            None => SanPlus::from_ascii_general(s),
        }
    }

    /// Reads only the standard spellings (`e4`, `exd5`, `Nbd2`, `R1e2`,
    /// `Qh4e1`, `e8=Q+`, `O-O#`), the fast path of [`SanPlus::from_ascii`]:
    /// `None` for anything else, which `from_ascii` may still read (`0-0`,
    /// `e2e4`, `Nf3!`) or reject. Where it answers, `from_ascii` answers the
    /// same.
    #[inline]
    pub fn from_ascii_standard(s: &[u8]) -> Option<SanPlus> {
        parse_fast(s)
    }

    /// [`SanPlus::from_ascii`] for the spellings of standard SAN and those
    /// python-chess's `parse_san` also reads, and no others: an optional
    /// piece letter `NBRQK`, an optional file and rank, an optional `-` or
    /// `x`, the target square, an optional promotion piece (with or without
    /// `=`, either case), one optional `+` or `#`; `O-O`, `O-O-O`, `0-0`,
    /// `0-0-0` with one optional `+` or `#`; the null moves `--`, `Z0`,
    /// `0000`, `@@@@`. What [`SanPlus::from_ascii`] reads beyond these
    /// (`Pe4`, `o-o`, `e4:d5`, `e8(Q)`, `Nf3!`, `e4++`) is an error here; a
    /// lenient reader reads it with [`Leniency::Spelling`].
    ///
    /// # Errors
    /// [`ParseSanError`] if the text is not a move in these spellings.
    pub fn from_ascii_strict(s: &[u8]) -> Result<SanPlus, ParseSanError> {
        if strict_spelling(s) {
            SanPlus::from_ascii(s)
        } else {
            Err(ParseSanError {
                text: String::from_utf8_lossy(s).into_owned(),
            })
        }
    }

    /// [`SanPlus::from_ascii`] for every spelling it reads.
    fn from_ascii_general(s: &[u8]) -> Result<SanPlus, ParseSanError> {
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
        let suffix = if pos.gives_check(m) {
            Some(if pos.after(m).has_legal_move() {
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

/// Whether `s` is spelled as [`SanPlus::from_ascii_strict`] reads: the
/// grammar python-chess's `parse_san` accepts (its castling and null-move
/// spellings, and `[NBKRQ]?[a-h]?[1-8]?[-x]?[a-h][1-8](=?[nbrqkNBRQK])?[+#]?`).
fn strict_spelling(s: &[u8]) -> bool {
    if matches!(s, b"--" | b"Z0" | b"0000" | b"@@@@") {
        return true;
    }
    let body = match s {
        [rest @ .., b'+' | b'#'] => rest,
        _ => s,
    };
    if matches!(body, b"O-O" | b"O-O-O" | b"0-0" | b"0-0-0") {
        return true;
    }
    // The promotion piece follows the target's rank digit, so a trailing
    // letter is one.
    let body = match body {
        [rest @ .., p] if b"nbrqkNBRQK".contains(p) => rest.strip_suffix(b"=").unwrap_or(rest),
        _ => body,
    };
    let [prefix @ .., b'a'..=b'h', b'1'..=b'8'] = body else {
        return false;
    };
    // The optional parts have disjoint alphabets, so reading them greedily
    // in order is the regular expression's reading.
    let mut rest = prefix;
    for class in [
        |c: u8| matches!(c, b'N' | b'B' | b'K' | b'R' | b'Q'),
        |c: u8| matches!(c, b'a'..=b'h'),
        |c: u8| matches!(c, b'1'..=b'8'),
        |c: u8| matches!(c, b'-' | b'x'),
    ] {
        if let [c, r @ ..] = rest {
            if class(*c) {
                rest = r;
            }
        }
    }
    rest.is_empty()
}

/// Which of `origins` (pieces of the side to move, not its king, that reach
/// `to` on the board as it is) may legally move to `to`: not pinned off the
/// line to their king, and capturing or blocking a single checker. `to` is
/// empty or holds an enemy piece; en passant is not a case here.
fn legal_origins(pos: &Position, origins: Bitboard, to: Square) -> Bitboard {
    let king = pos.king(pos.turn());
    let checkers = pos.checkers();
    let evades = match checkers.single_square() {
        None if checkers.nonempty() => return Bitboard::EMPTY,
        None => true,
        Some(c) => to == c || between(king, c).contains(to),
    };
    if !evades {
        return Bitboard::EMPTY;
    }
    let pinned = pos.pinned();
    let mut out = Bitboard::EMPTY;
    for o in origins {
        if !pinned.contains(o) || aligned(king, o, to) {
            out.add(o);
        }
    }
    out
}

/// Reads the standard spellings (`e4`, `exd5`, `Nbd2`, `R1e2`, `Qh4e1`,
/// `e8=Q+`, `O-O#`) without the general reader's detours; `None` for
/// anything else, which the general reader then decides. Where it answers,
/// it answers as the general reader does.
#[inline]
fn parse_fast(s: &[u8]) -> Option<SanPlus> {
    let (body, suffix) = match s {
        [rest @ .., b'+'] => (rest, Some(Suffix::Check)),
        [rest @ .., b'#'] => (rest, Some(Suffix::Checkmate)),
        _ => (s, None),
    };
    // The shapes of nearly every move (`e4`, `Nf3`, `exd5`, `Nxe5`), read
    // straight; the patterns below read them the same, more slowly.
    let plain = |role, file, capture, to_file: u8, to_rank: u8| {
        Some(SanPlus {
            san: San::Normal {
                role,
                file,
                rank: None,
                capture,
                to: Square::new(u32::from(to_rank - b'1') * 8 + u32::from(to_file - b'a')),
                promotion: None,
            },
            suffix,
        })
    };
    match *body {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => return plain(Role::Pawn, None, false, f, r),
        [p @ (b'N' | b'B' | b'R' | b'Q' | b'K'), f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            return plain(piece_role(p), None, false, f, r);
        }
        [from @ b'a'..=b'h', b'x', f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            let from = Some(File::new(u32::from(from - b'a')));
            return plain(Role::Pawn, from, true, f, r);
        }
        [p @ (b'N' | b'B' | b'R' | b'Q' | b'K'), b'x', f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            return plain(piece_role(p), None, true, f, r);
        }
        _ => {}
    }
    let san = match body {
        b"O-O" => San::Castle(CastlingSide::KingSide),
        b"O-O-O" => San::Castle(CastlingSide::QueenSide),
        _ => {
            let (b, promotion) = match body {
                [rest @ .., b'=', p @ (b'N' | b'B' | b'R' | b'Q')] => {
                    (rest, Role::from_char(*p as char))
                }
                _ => (body, None),
            };
            let [rest @ .., f @ b'a'..=b'h', r @ b'1'..=b'8'] = b else {
                return None;
            };
            let to = Square::from_coords(
                File::new(u32::from(f - b'a')),
                Rank::new(u32::from(r - b'1')),
            );
            let (rest, capture) = match rest {
                [r @ .., b'x'] => (r, true),
                _ => (rest, false),
            };
            let (role, rest) = match rest {
                [c @ (b'N' | b'B' | b'R' | b'Q' | b'K'), r @ ..] => {
                    (Role::from_char(*c as char)?, r)
                }
                _ => (Role::Pawn, rest),
            };
            let (file, rank) = match rest {
                [] => (None, None),
                [f @ b'a'..=b'h'] => (Some(File::new(u32::from(f - b'a'))), None),
                [r @ b'1'..=b'8'] if role != Role::Pawn => {
                    (None, Some(Rank::new(u32::from(r - b'1'))))
                }
                [f @ b'a'..=b'h', r @ b'1'..=b'8'] if role != Role::Pawn => (
                    Some(File::new(u32::from(f - b'a'))),
                    Some(Rank::new(u32::from(r - b'1'))),
                ),
                _ => return None,
            };
            if promotion.is_some() && role != Role::Pawn {
                return None;
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
    };
    Some(SanPlus { san, suffix })
}

/// The role of a piece letter `N`, `B`, `R`, `Q` or `K`.
#[inline]
fn piece_role(c: u8) -> Role {
    match c {
        b'N' => Role::Knight,
        b'B' => Role::Bishop,
        b'R' => Role::Rook,
        b'Q' => Role::Queen,
        _ => Role::King,
    }
}

/// The unique legal move for a plain piece or pawn move, found from the
/// attack tables, or `None` when generating the legal moves must decide
/// (castling, en passant, a double check, no or several candidates).
#[inline]
fn fast_resolve(pos: &Position, san: &San) -> Option<Move> {
    let San::Normal {
        role,
        file,
        rank,
        to,
        promotion,
        ..
    } = *san
    else {
        return None;
    };
    let us = pos.turn();
    let them = us.other();
    if pos.by_color(us).contains(to) {
        return None;
    }
    let occ = pos.occupied();
    let last = Rank::Eighth.relative_to(us);
    let mut cands = match role {
        Role::Pawn => {
            if promotion.is_some() != (to.rank() == last) {
                return None;
            }
            let pawns = pos.pieces(us, Role::Pawn);
            if pos.by_color(them).contains(to) {
                // A pawn capture without its file (`d5` for `exd5`) is no
                // move, which generating the moves explains.
                file?;
                pawn_attacks(them, to) & pawns
            } else {
                if pos.ep_square() == Some(to) {
                    return None;
                }
                let back = if us == Color::White { -8 } else { 8 };
                let one = to.offset(back)?;
                if pawns.contains(one) {
                    Bitboard::from_square(one)
                } else if !occ.contains(one) && to.rank() == Rank::Fourth.relative_to(us) {
                    let two = one.offset(back)?;
                    pawns & Bitboard::from_square(two)
                } else {
                    Bitboard::EMPTY
                }
            }
        }
        Role::King => {
            if promotion.is_some() {
                return None;
            }
            king_attacks(to) & pos.pieces(us, Role::King)
        }
        Role::Knight => {
            if promotion.is_some() {
                return None;
            }
            knight_attacks(to) & pos.pieces(us, Role::Knight)
        }
        _ => {
            if promotion.is_some() {
                return None;
            }
            // Sliders: pieces on a ray through `to` with nothing between
            // (small tables instead of the big magic ones).
            let rays = match role {
                Role::Rook => rook_rays(to),
                Role::Bishop => bishop_rays(to),
                _ => rook_rays(to) | bishop_rays(to),
            };
            let mut reach = Bitboard::EMPTY;
            for from in pos.pieces(us, role) & rays {
                if (between(from, to) & occ).is_empty() {
                    reach.add(from);
                }
            }
            reach
        }
    };
    if let Some(f) = file {
        cands &= Bitboard::file(f);
    }
    if let Some(r) = rank {
        cands &= Bitboard::rank(r);
    }
    if cands.is_empty() {
        return None;
    }
    let king = pos.king(us);
    let checkers = checkers(pos, king, us, occ);
    if role != Role::King && checkers.more_than_one() {
        return None;
    }
    let mut pinned: Option<Bitboard> = None;
    let mut found = None;
    for from in cands {
        let legal = if role == Role::King {
            !pos.is_attacked(to, them, occ ^ Bitboard::from_square(from))
        } else {
            let blocks = checkers
                .into_iter()
                .next()
                .is_none_or(|c: Square| c == to || between(king, c).contains(to));
            blocks && {
                // Only a piece on a line with its king and an enemy slider
                // that moves along that line can be pinned.
                let l = line(king, from);
                let sliders = if king.file() == from.file() || king.rank() == from.rank() {
                    pos.pieces(them, Role::Rook) | pos.pieces(them, Role::Queen)
                } else {
                    pos.pieces(them, Role::Bishop) | pos.pieces(them, Role::Queen)
                };
                !l.intersects(sliders) || {
                    let p = *pinned.get_or_insert_with(|| pos.pinned());
                    !p.contains(from) || aligned(king, from, to)
                }
            }
        };
        if legal {
            if found.is_some() {
                return None;
            }
            found = Some(match promotion {
                Some(p) => Move::new(from, to, MoveKind::Promotion(p)),
                None => Move::normal(from, to),
            });
        }
    }
    found
}

/// Squares on the same file or rank as `sq` (not `sq` itself).
#[inline]
fn rook_rays(sq: Square) -> Bitboard {
    (Bitboard::file(sq.file()) | Bitboard::rank(sq.rank())).without(sq)
}

/// Squares on the diagonals through `sq`: the empty-board bishop attacks
/// (one entry per square, so it stays in cache).
#[inline]
fn bishop_rays(sq: Square) -> Bitboard {
    bishop_attacks(sq, Bitboard::EMPTY)
}

/// Enemy pieces giving check to `us`, computed with the small ray tables.
#[inline]
fn checkers(pos: &Position, king: Square, us: Color, occ: Bitboard) -> Bitboard {
    let them = us.other();
    let mut c = (knight_attacks(king) & pos.pieces(them, Role::Knight))
        | (pawn_attacks(us, king) & pos.pieces(them, Role::Pawn));
    let queens = pos.pieces(them, Role::Queen);
    let sliders = ((pos.pieces(them, Role::Rook) | queens) & rook_rays(king))
        | ((pos.pieces(them, Role::Bishop) | queens) & bishop_rays(king));
    for s in sliders {
        if (between(king, s) & occ).is_empty() {
            c.add(s);
        }
    }
    c
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
        // Writing to a String cannot fail.
        let _ = self.write_to(out);
    }

    /// Writes the SAN text to any [`fmt::Write`] (a `String`, a formatter,
    /// a stack buffer), without allocating.
    ///
    /// # Errors
    /// Only those of `out`.
    pub fn write_to<W: fmt::Write + ?Sized>(&self, out: &mut W) -> fmt::Result {
        match *self {
            San::Null => out.write_str("--"),
            San::Castle(CastlingSide::KingSide) => out.write_str("O-O"),
            San::Castle(CastlingSide::QueenSide) => out.write_str("O-O-O"),
            San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } => {
                if role != Role::Pawn {
                    out.write_char(role.upper_char())?;
                }
                if let Some(f) = file {
                    out.write_char(f.char())?;
                }
                if let Some(r) = rank {
                    out.write_char(r.char())?;
                }
                if capture {
                    out.write_char('x')?;
                }
                out.write_char(to.file().char())?;
                out.write_char(to.rank().char())?;
                if let Some(p) = promotion {
                    out.write_char('=')?;
                    out.write_char(p.upper_char())?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for San {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The SAN of every legal move by shakmaty (an independent
    /// implementation), keyed by the move's UCI.
    fn shakmaty_sans(pos: &Position) -> std::collections::HashMap<String, String> {
        use shakmaty::Position as _;
        let fen = crate::Fen::from_position(pos).to_string();
        let theirs: shakmaty::Chess = shakmaty::fen::Fen::from_ascii(fen.as_bytes())
            .expect("shakmaty reads our FEN")
            .into_position(shakmaty::CastlingMode::Standard)
            .expect("shakmaty takes our position");
        theirs
            .legal_moves()
            .into_iter()
            .map(|m| {
                let uci = m.to_uci(shakmaty::CastlingMode::Standard).to_string();
                (uci, shakmaty::san::San::from_move(&theirs, m).to_string())
            })
            .collect()
    }

    /// Every legal move's SAN, and every plausible SAN spelling, resolves as
    /// generating the legal moves says; the SAN written from the attack
    /// tables is the one shakmaty writes, and its suffix is what playing
    /// the move shows.
    fn agree(pos: &Position) {
        let theirs = shakmaty_sans(pos);
        assert_eq!(theirs.len(), pos.legal_moves().len());
        for m in pos.legal_moves().iter().copied() {
            let san = San::from_move(pos, m);
            let uci = crate::UciMove::from_move(pos, m, crate::CastlingMode::Standard).to_string();
            assert_eq!(san.to_string(), theirs[&uci], "{pos:?} {m:?}");
            assert_eq!(san.to_move(pos), Ok(m), "{pos:?} {san}");
            let after = pos.after(m);
            assert_eq!(pos.gives_check(m), after.is_check(), "{pos:?} {san}");
        }
        // Castling, legal or not, as the generated moves say.
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let generated = pos.legal_moves().iter().copied().find(|m| {
                m.is_castle()
                    && (m.to().file() > m.from().file()) == (side == CastlingSide::KingSide)
            });
            assert_eq!(
                San::Castle(side).to_move(pos).ok(),
                generated,
                "{pos:?} {side:?}"
            );
        }
        for sq in Square::all() {
            for role in Role::ALL {
                for promotion in [None, Some(Role::Queen), Some(Role::Knight)] {
                    for file in [None, Some(File::E), Some(File::B)] {
                        for rank in [None, Some(Rank::Second)] {
                            let san = San::Normal {
                                role,
                                file,
                                rank,
                                capture: false,
                                to: sq,
                                promotion,
                            };
                            assert_eq!(
                                san.to_move(pos),
                                san.resolve_by_generation(pos),
                                "{pos:?} {san}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn fast_paths_agree_on_tricky_positions() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2",
            "1k6/8/8/8/1N3N2/8/1N3N2/4K3 w - - 0 1",
            "3k4/8/8/q7/8/2N5/3N4/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/3r4/R3K2R w KQ - 0 1",
            "8/1P6/8/8/8/8/k6K/8 w - - 0 1",
            "k7/8/8/8/1Q1Q4/8/1Q1Q4/7K w - - 0 1",
            "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
            "3k4/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
            "4k3/8/8/b7/8/2N1N3/8/4K3 w - - 0 1",
            "4k3/4r3/8/8/8/2N1N3/8/4K3 w - - 0 1",
        ] {
            agree(&Position::from_fen(fen).unwrap());
        }
    }

    #[test]
    fn fast_paths_agree_along_random_games() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut positions = 0;
        for _ in 0..12 {
            let mut pos = Position::startpos();
            for _ in 0..120 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                assert_eq!(
                    checkers(&pos, pos.king(pos.turn()), pos.turn(), pos.occupied()),
                    pos.checkers()
                );
                agree(&pos);
                positions += 1;
                let m = legal[(next() % legal.len() as u64) as usize];
                pos.play_unchecked(m);
            }
        }
        assert!(positions > 500);
    }

    #[test]
    fn fast_parse_agrees_with_the_general_reader() {
        let mut texts: Vec<String> = Vec::new();
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "1k6/8/8/8/1N3N2/8/1N3N2/4K3 w - - 0 1",
            "8/1P6/8/8/8/8/k6K/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for m in pos.legal_moves().iter().copied() {
                texts.push(SanPlus::from_move(&pos, m).to_string());
                texts.push(San::from_move(&pos, m).to_string());
            }
        }
        for t in [
            "e4", "exd5", "Nbd2", "R1e2", "Qh4e1", "e8=Q+", "O-O#", "O-O-O", "Kxe2", "e8Q", "e2e4",
            "Pe4", "e8=K", "Nf3+#", "0-0", "Nxf3!", "e1=Q#", "bxa8=N", "h9", "i4", "Ng1f3", "Bb",
            "x", "", "+", "=Q", "Qxx4", "Rd1d2", "exd", "e4e5", "e8=P", "Ke1=Q", "b1a", "Nb1-c3",
            "a1", "h8", "Ka1", "hxg1", "Bxh8#", "Px4", "Nxi3", "axa9", "kx3", "Rxa8+",
        ] {
            texts.push(t.to_owned());
        }
        let mut fast = 0;
        for t in &texts {
            if let Some(sp) = parse_fast(t.as_bytes()) {
                fast += 1;
                assert_eq!(Ok(sp), SanPlus::from_ascii_general(t.as_bytes()), "{t}");
            }
            assert_eq!(
                SanPlus::from_ascii(t.as_bytes()),
                SanPlus::from_ascii_general(t.as_bytes()),
                "{t}"
            );
        }
        assert!(fast > 50, "the fast path reads the standard spellings");
    }

    /// The move `text` names in `fen`, strictly and leniently, in UCI.
    fn read(fen: &str, text: &str) -> (Option<String>, Option<(String, Option<Leniency>)>) {
        let pos = Position::from_fen(fen).unwrap();
        let uci = |m| crate::UciMove::from_move(&pos, m, crate::CastlingMode::Standard).to_string();
        let san = San::from_ascii(text.as_bytes()).unwrap();
        (
            san.to_move(&pos).ok().map(uci),
            san.to_move_lenient(&pos).ok().map(|(m, l)| (uci(m), l)),
        )
    }

    #[test]
    fn a_pawn_capture_needs_its_file() {
        let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        // `d5` and `xd5` name no move: the pawn on e4 takes only as `exd5`.
        for text in ["d5", "xd5", "d5+"] {
            assert_eq!(read(fen, text), (None, None), "{text}");
        }
        let err = San::from_ascii(b"d5")
            .unwrap()
            .to_move(&Position::from_fen(fen).unwrap())
            .unwrap_err();
        assert!(err.to_string().contains("file"), "{err}");
        let exd5 = Some("e4d5".to_owned());
        assert_eq!(
            read(fen, "exd5"),
            (exd5.clone(), Some(("e4d5".into(), None)))
        );
        // Without its `x`, as python-chess reads it, with the leniency said.
        let missing = Some(Leniency::MissingCapture);
        assert_eq!(read(fen, "ed5"), (exd5, Some(("e4d5".into(), missing))));
        // En passant is a capture too.
        let ep = "4k3/8/8/2KPp3/8/8/8/8 w - e6 0 2";
        assert_eq!(read(ep, "e6"), (None, None));
        assert_eq!(read(ep, "dxe6").1, Some(("d5e6".into(), None)));
        assert_eq!(read(ep, "de6").1, Some(("d5e6".into(), missing)));
        // Coordinates never write an `x`: no leniency.
        assert_eq!(read(fen, "e4d5").1, Some(("e4d5".into(), None)));
        // An `x` on a push: python-chess reads it; the lenient call says so.
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let spurious = Some(Leniency::SpuriousCapture);
        assert_eq!(read(start, "xe4").1, Some(("e2e4".into(), spurious)));
        assert_eq!(read(start, "Nxf3").1, Some(("g1f3".into(), spurious)));
    }

    #[test]
    fn castling_as_a_king_move_only_leniently() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let lenient = Some(Leniency::CastlingAsKingMove);
        for (text, uci) in [("Kg1", "e1g1"), ("Kc1", "e1c1"), ("Ke1g1", "e1g1")] {
            assert_eq!(
                read(fen, text),
                (None, Some((uci.into(), lenient))),
                "{text}"
            );
        }
        // A king's ordinary move is no leniency; a king not on its file is no castling.
        assert_eq!(read(fen, "Kf1").1, Some(("e1f1".into(), None)));
        assert_eq!(read(fen, "Kdg1"), (None, None));
        assert_eq!(
            read(fen, "O-O"),
            (Some("e1g1".into()), Some(("e1g1".into(), None)))
        );
    }

    #[test]
    fn strict_spellings_are_python_chess_s() {
        for ok in [
            "e4", "exd5", "ed5", "Nf3", "Ng1f3", "Ng1-f3", "Ng1xf3", "N1f3", "e2e4", "e2-e4",
            "b8=Q", "b8Q", "b8q", "b8=n+", "O-O", "0-0", "O-O-O#", "0-0-0+", "--", "Z0", "0000",
            "@@@@", "Kxe2", "xe4", "Qh4xe1#",
        ] {
            assert!(SanPlus::from_ascii_strict(ok.as_bytes()).is_ok(), "{ok}");
            assert_eq!(
                SanPlus::from_ascii_strict(ok.as_bytes()),
                SanPlus::from_ascii(ok.as_bytes())
            );
        }
        for lenient in [
            "Pe4", "Pxd5", "o-o", "o-o-o", "e4:d5", "b8(Q)", "b8/Q", "Nf3!", "e4++", "Nf3+#",
            "dxe6e.p.", "O-O-O++",
        ] {
            assert!(SanPlus::from_ascii(lenient.as_bytes()).is_ok(), "{lenient}");
            assert!(
                SanPlus::from_ascii_strict(lenient.as_bytes()).is_err(),
                "{lenient}"
            );
        }
        for bad in ["nf3", "N", "e9", "b8=", "O-O-", "x", ""] {
            assert!(SanPlus::from_ascii_strict(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn written_without_allocating_as_displayed() {
        let pos = Position::from_fen("8/1P6/8/8/8/8/k6K/8 w - - 0 1").unwrap();
        for m in pos.legal_moves().iter().copied() {
            let san = San::from_move(&pos, m);
            let mut s = String::new();
            san.append_to(&mut s);
            assert_eq!(s, format!("{san}"));
        }
        let mut s = String::new();
        San::from_ascii(b"b8=Q").unwrap().append_to(&mut s);
        assert_eq!(s, "b8=Q");
    }
}
