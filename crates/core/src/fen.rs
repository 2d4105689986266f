//! FEN, Shredder-FEN and X-FEN: reading and writing.
//!
//! Reading is two steps, as with any notation here: [`Setup`] holds what the
//! text says without judging it (parsing reports syntax errors with a byte
//! offset), and [`Setup::into_position`] checks that it is a legal chess
//! position, naming every problem it finds.
//!
//! ```
//! use rookery_core::{Fen, Mode, Position};
//! let fen: Fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".parse()?;
//! let (pos, warnings) = fen.setup().clone().into_position(Mode::Strict)?;
//! assert!(warnings.is_empty());
//! // e3 is dropped on output: no black pawn can take en passant.
//! assert_eq!(Fen::from_position(&pos).to_string(),
//!            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::attacks::aligned;
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, File, Piece, Rank, Role, Square};
use core::fmt;

/// How forgiving a reader is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Exactly what the standard allows; anything else is an error.
    Strict,
    /// What real files contain: missing clocks, extra whitespace, castling
    /// letters in any order; impossible castling or en-passant rights are
    /// dropped with a warning instead of rejected.
    #[default]
    Lenient,
}

/// How to write castling rights.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum CastlingNotation {
    /// `KQkq` where that is unambiguous (the outermost rook), a file letter
    /// otherwise: standard FEN for normal chess, X-FEN for Chess960.
    #[default]
    XFen,
    /// Always file letters: `HAha` (Shredder-FEN).
    Shredder,
}

/// A position as written, not yet checked for legality.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The piece on each square, a1 first.
    pub board: [Option<Piece>; 64],
    /// The side to move.
    pub turn: Color,
    /// The castling field as written, each right with its byte offset.
    pub castling: Vec<(CastlingRight, usize)>,
    /// The en-passant square as written, with its byte offset.
    pub ep_square: Option<(Square, usize)>,
    /// The halfmove clock.
    pub halfmoves: u32,
    /// The fullmove number.
    pub fullmoves: u32,
    /// Byte offsets of the fields (board, turn, castling, en passant, halfmove, fullmove);
    /// used to point at the field a [`PositionError`] is about.
    pub field_offsets: [usize; 6],
    /// Where lenient reading met two digits in a row in the board field
    /// (`44` for `8`): [`Setup::into_position`] warns about it.
    pub adjacent_digits: Option<usize>,
}

/// One castling right as written in a FEN castling field.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CastlingRight {
    /// `K`/`k`: the outermost rook on the king side.
    KingSide(Color),
    /// `Q`/`q`: the outermost rook on the queen side.
    QueenSide(Color),
    /// `A`-`H` / `a`-`h`: the rook on that file.
    File(Color, File),
}

impl CastlingRight {
    fn color(self) -> Color {
        match self {
            CastlingRight::KingSide(c)
            | CastlingRight::QueenSide(c)
            | CastlingRight::File(c, _) => c,
        }
    }
}

/// What was wrong with the text of a FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseFenErrorKind {
    /// The text is empty or all whitespace.
    Empty,
    /// A field is missing.
    MissingField(&'static str),
    /// A character that is not a piece letter, a digit 1-8 or `/` in the board field.
    BadBoardChar(char),
    /// A rank describes more than 8 squares.
    RankTooLong(Rank),
    /// Two digits in a row (`17` for `8`); strict mode wants one digit per
    /// run of empty squares.
    AdjacentDigits,
    /// A rank describes fewer than 8 squares.
    RankTooShort(Rank),
    /// Not exactly 8 ranks.
    WrongRankCount(usize),
    /// The side to move is not `w` or `b`.
    BadTurn,
    /// A character that is not a castling letter, or a letter repeated or out of order.
    BadCastling(char),
    /// The en-passant field is not `-` or a square on rank 3 or 6.
    BadEnPassant,
    /// The halfmove clock is not a non-negative integer.
    BadHalfmoves,
    /// The fullmove number is not a positive integer.
    BadFullmoves,
    /// Whitespace that strict mode does not allow.
    BadWhitespace,
    /// Text after the last field.
    TrailingText,
}

/// A FEN that could not be read, with the byte offset of the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseFenError {
    /// Byte offset into the text.
    pub offset: usize,
    /// What is wrong.
    pub kind: ParseFenErrorKind,
}

impl fmt::Display for ParseFenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ParseFenErrorKind::*;
        write!(f, "at byte {}: ", self.offset)?;
        match &self.kind {
            Empty => f.write_str("empty FEN (expected piece placement)"),
            MissingField(name) => write!(f, "missing {name} field"),
            BadBoardChar(c) => write!(
                f,
                "unexpected {c:?} in piece placement (expected one of PNBRQKpnbrqk, a digit 1-8 or '/')"
            ),
            RankTooLong(r) => write!(f, "rank {} has more than 8 squares", r.char()),
            AdjacentDigits => f.write_str(
                "two digits in a row in piece placement (expected one digit per run of empty squares)",
            ),
            RankTooShort(r) => write!(f, "rank {} has fewer than 8 squares", r.char()),
            WrongRankCount(n) => write!(f, "piece placement has {n} ranks (expected 8)"),
            BadTurn => f.write_str("bad side to move (expected 'w' or 'b')"),
            BadCastling(c) => write!(
                f,
                "unexpected {c:?} in castling field (expected '-' or KQkq, or file letters A-H/a-h, each once, white first)"
            ),
            BadEnPassant => f.write_str("bad en-passant field (expected '-' or a square on rank 3 or 6)"),
            BadHalfmoves => f.write_str("bad halfmove clock (expected a non-negative integer)"),
            BadFullmoves => f.write_str("bad fullmove number (expected a positive integer)"),
            BadWhitespace => f.write_str("unexpected whitespace (expected single spaces between fields)"),
            TrailingText => f.write_str("unexpected text after the fullmove number"),
        }
    }
}

impl std::error::Error for ParseFenError {}

/// A reason a setup is not a legal position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionProblem {
    /// A side has no king.
    MissingKing(Color),
    /// A side has more than one king.
    TooManyKings(Color),
    /// A pawn stands on rank 1 or 8.
    PawnOnBackRank(Square),
    /// The side not to move is in check.
    OppositeCheck,
    /// The side to move is in check from more than two pieces.
    TooManyCheckers,
    /// The side to move is in a check that no legal last move could give
    /// (two pawns, two knights, or two sliders on one line).
    ImpossibleCheck,
    /// A castling right without the king or the rook on its square.
    BadCastlingRight(CastlingRight),
    /// An en-passant square without a pawn that could just have moved two squares.
    BadEnPassant(Square),
    /// The fullmove number is 0.
    ZeroFullmoves,
    /// Two digits in a row in the board field (`44`), read as their sum.
    AdjacentDigits,
}

impl fmt::Display for PositionProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use PositionProblem::*;
        match self {
            MissingKing(c) => write!(f, "{c} has no king"),
            TooManyKings(c) => write!(f, "{c} has more than one king"),
            PawnOnBackRank(sq) => write!(f, "pawn on back rank ({sq})"),
            OppositeCheck => f.write_str("the side not to move is in check"),
            TooManyCheckers => f.write_str("the side to move is attacked by more than two pieces"),
            ImpossibleCheck => {
                f.write_str("the check on the king could not have come from a legal move")
            }
            BadCastlingRight(r) => write!(
                f,
                "castling right {} without its king and rook on their squares",
                castling_char(*r)
            ),
            BadEnPassant(sq) => write!(
                f,
                "en-passant square {sq} without a pawn that just moved two squares past it"
            ),
            ZeroFullmoves => f.write_str("fullmove number 0 (expected 1 or more)"),
            AdjacentDigits => f.write_str(
                "two digits in a row in piece placement (read as their sum; one digit per run of empty squares)",
            ),
        }
    }
}

fn castling_char(r: CastlingRight) -> char {
    let (c, ch) = match r {
        CastlingRight::KingSide(c) => (c, 'K'),
        CastlingRight::QueenSide(c) => (c, 'Q'),
        CastlingRight::File(c, f) => (c, f.char().to_ascii_uppercase()),
    };
    if c == Color::White {
        ch
    } else {
        ch.to_ascii_lowercase()
    }
}

/// A setup that is not a legal position: every problem found, each with the
/// byte offset of the FEN field it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    /// The problems, in the order of the fields they concern.
    pub problems: Vec<(PositionProblem, usize)>,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (p, off)) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "at byte {off}: {p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PositionError {}

/// A warning from lenient reading: something was fixed or dropped.
pub type FenWarning = (PositionProblem, usize);

/// A FEN that could not be turned into a position, for either reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text is malformed.
    Parse(ParseFenError),
    /// The text is well formed but not a legal position.
    Position(PositionError),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Parse(e) => e.fmt(f),
            FenError::Position(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FenError::Parse(e) => Some(e),
            FenError::Position(e) => Some(e),
        }
    }
}

impl From<ParseFenError> for FenError {
    fn from(e: ParseFenError) -> Self {
        FenError::Parse(e)
    }
}

impl From<PositionError> for FenError {
    fn from(e: PositionError) -> Self {
        FenError::Position(e)
    }
}

/// Splits fields on whitespace, keeping offsets; in strict mode only single spaces.
struct Fields<'a> {
    s: &'a [u8],
    pos: usize,
    mode: Mode,
}

impl<'a> Fields<'a> {
    fn next(&mut self, name: &'static str) -> Result<(&'a [u8], usize), ParseFenError> {
        let ws_start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if self.pos == self.s.len() {
            return Err(err(self.pos, ParseFenErrorKind::MissingField(name)));
        }
        if self.mode == Mode::Strict {
            let expected: &[u8] = if ws_start == 0 { b"" } else { b" " };
            if &self.s[ws_start..self.pos] != expected {
                return Err(err(ws_start, ParseFenErrorKind::BadWhitespace));
            }
        }
        let start = self.pos;
        while self.pos < self.s.len() && !self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        Ok((&self.s[start..self.pos], start))
    }

    fn at_end(&self) -> bool {
        self.s[self.pos..].iter().all(u8::is_ascii_whitespace)
    }
}

fn err(offset: usize, kind: ParseFenErrorKind) -> ParseFenError {
    ParseFenError { offset, kind }
}

/// The board, and where two digits stand in a row (lenient mode only).
type Board = ([Option<Piece>; 64], Option<usize>);

fn parse_board(field: &[u8], off: usize, mode: Mode) -> Result<Board, ParseFenError> {
    let mut board = [None; 64];
    let mut adjacent = None;
    let mut rank_idx = 0usize; // 0 = rank 8
    let mut file = 0u32;
    for (i, &c) in field.iter().enumerate() {
        let at = off + i;
        match c {
            b'/' => {
                if file < 8 {
                    return Err(err(
                        at,
                        ParseFenErrorKind::RankTooShort(Rank::new(7 - rank_idx as u32)),
                    ));
                }
                rank_idx += 1;
                file = 0;
                if rank_idx > 7 {
                    return Err(err(at, ParseFenErrorKind::WrongRankCount(rank_idx + 1)));
                }
            }
            b'1'..=b'8' => {
                if i > 0 && field[i - 1].is_ascii_digit() {
                    if mode == Mode::Strict {
                        return Err(err(at, ParseFenErrorKind::AdjacentDigits));
                    }
                    adjacent.get_or_insert(at);
                }
                file += u32::from(c - b'0');
                if file > 8 {
                    return Err(err(
                        at,
                        ParseFenErrorKind::RankTooLong(Rank::new(7 - rank_idx as u32)),
                    ));
                }
            }
            _ => {
                let p = Piece::from_char(c as char)
                    .ok_or(err(at, ParseFenErrorKind::BadBoardChar(c as char)))?;
                if file >= 8 {
                    return Err(err(
                        at,
                        ParseFenErrorKind::RankTooLong(Rank::new(7 - rank_idx as u32)),
                    ));
                }
                board[(7 - rank_idx) * 8 + file as usize] = Some(p);
                file += 1;
            }
        }
    }
    if rank_idx < 7 {
        return Err(err(
            off + field.len(),
            ParseFenErrorKind::WrongRankCount(rank_idx + 1),
        ));
    }
    if file < 8 {
        return Err(err(
            off + field.len(),
            ParseFenErrorKind::RankTooShort(Rank::First),
        ));
    }
    Ok((board, adjacent))
}

fn parse_castling(
    field: &[u8],
    off: usize,
    mode: Mode,
) -> Result<Vec<(CastlingRight, usize)>, ParseFenError> {
    if field == b"-" {
        return Ok(Vec::new());
    }
    let mut out: Vec<(CastlingRight, usize)> = Vec::with_capacity(4);
    // Rank of each letter for the order check: white before black, K before Q.
    let mut last_order = 0u32;
    for (i, &c) in field.iter().enumerate() {
        let at = off + i;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let right = match c.to_ascii_lowercase() {
            b'k' => CastlingRight::KingSide(color),
            b'q' => CastlingRight::QueenSide(color),
            b'a'..=b'h' => {
                CastlingRight::File(color, File::new(u32::from(c.to_ascii_lowercase() - b'a')))
            }
            _ => return Err(err(at, ParseFenErrorKind::BadCastling(c as char))),
        };
        if out.iter().any(|(r, _)| *r == right) {
            return Err(err(at, ParseFenErrorKind::BadCastling(c as char)));
        }
        if mode == Mode::Strict {
            let order =
                color.index() as u32 * 2 + u32::from(matches!(right, CastlingRight::QueenSide(_)));
            if order < last_order {
                return Err(err(at, ParseFenErrorKind::BadCastling(c as char)));
            }
            last_order = order;
        }
        out.push((right, at));
    }
    Ok(out)
}

fn parse_number(field: &[u8]) -> Option<u32> {
    if field.is_empty() || field.len() > 9 || !field.iter().all(u8::is_ascii_digit) {
        return None;
    }
    field.iter().try_fold(0u32, |acc, &d| {
        acc.checked_mul(10)?.checked_add(u32::from(d - b'0'))
    })
}

impl Setup {
    /// Reads a FEN (six fields; in lenient mode the two clocks may be missing).
    ///
    /// # Errors
    /// [`ParseFenError`] with the byte offset of the first problem.
    pub fn from_fen(s: &str, mode: Mode) -> Result<Setup, ParseFenError> {
        let (setup, used) = Setup::parse(s.as_bytes(), mode, true)?;
        let rest = &s.as_bytes()[used..];
        let skip = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
        if skip < rest.len() {
            return Err(err(used + skip, ParseFenErrorKind::TrailingText));
        }
        if mode == Mode::Strict && !rest.is_empty() {
            return Err(err(used, ParseFenErrorKind::BadWhitespace));
        }
        Ok(setup)
    }

    /// Reads the four position fields of an EPD record (board, side, castling,
    /// en passant) from the start of `s`, returning the setup (clocks 0 and 1)
    /// and the number of bytes used.
    ///
    /// # Errors
    /// [`ParseFenError`] with the byte offset of the first problem.
    pub fn from_epd_prefix(s: &[u8], mode: Mode) -> Result<(Setup, usize), ParseFenError> {
        Setup::parse(s, mode, false)
    }

    fn parse(s: &[u8], mode: Mode, with_clocks: bool) -> Result<(Setup, usize), ParseFenError> {
        if s.iter().all(u8::is_ascii_whitespace) {
            return Err(err(0, ParseFenErrorKind::Empty));
        }
        let mut fields = Fields { s, pos: 0, mode };
        let (board_f, board_off) = fields.next("piece placement")?;
        let (board, adjacent_digits) = parse_board(board_f, board_off, mode)?;
        let (turn_f, turn_off) = fields.next("side to move")?;
        let turn = match turn_f {
            b"w" => Color::White,
            b"b" => Color::Black,
            _ if mode == Mode::Lenient && (turn_f == b"W" || turn_f == b"B") => {
                if turn_f == b"W" {
                    Color::White
                } else {
                    Color::Black
                }
            }
            _ => return Err(err(turn_off, ParseFenErrorKind::BadTurn)),
        };
        let (cast_f, cast_off) = fields.next("castling")?;
        let castling = parse_castling(cast_f, cast_off, mode)?;
        let (ep_f, ep_off) = fields.next("en passant")?;
        let ep_square = if ep_f == b"-" {
            None
        } else {
            let sq =
                Square::from_ascii(ep_f).ok_or(err(ep_off, ParseFenErrorKind::BadEnPassant))?;
            let upper = ep_f.first().is_some_and(u8::is_ascii_uppercase);
            if (sq.rank() != Rank::Third && sq.rank() != Rank::Sixth)
                || (mode == Mode::Strict && upper)
            {
                return Err(err(ep_off, ParseFenErrorKind::BadEnPassant));
            }
            Some((sq, ep_off))
        };
        let mut setup = Setup {
            board,
            turn,
            castling,
            ep_square,
            halfmoves: 0,
            fullmoves: 1,
            field_offsets: [
                board_off, turn_off, cast_off, ep_off, fields.pos, fields.pos,
            ],
            adjacent_digits,
        };
        if !with_clocks {
            return Ok((setup, fields.pos));
        }
        if mode == Mode::Lenient && fields.at_end() {
            return Ok((setup, fields.pos));
        }
        let (hm_f, hm_off) = fields.next("halfmove clock")?;
        setup.halfmoves = parse_number(hm_f).ok_or(err(hm_off, ParseFenErrorKind::BadHalfmoves))?;
        setup.field_offsets[4] = hm_off;
        if mode == Mode::Lenient && fields.at_end() {
            return Ok((setup, fields.pos));
        }
        let (fm_f, fm_off) = fields.next("fullmove number")?;
        setup.fullmoves = parse_number(fm_f).ok_or(err(fm_off, ParseFenErrorKind::BadFullmoves))?;
        setup.field_offsets[5] = fm_off;
        Ok((setup, fields.pos))
    }

    /// Checks the setup and builds the position.
    ///
    /// In strict mode every problem is an error. In lenient mode impossible
    /// castling and en-passant rights and a zero fullmove number are fixed and
    /// returned as warnings, and an impossible (but playable) check is a
    /// warning; missing kings, pawns on the back rank and a side not to move
    /// in check stay errors, since no legal play follows from them.
    ///
    /// # Errors
    /// [`PositionError`] listing every problem found.
    pub fn into_position(self, mode: Mode) -> Result<(Position, Vec<FenWarning>), PositionError> {
        let mut errors = Vec::new();
        let mut warnings = Vec::new();
        let [board_off, turn_off, _, _, _, fm_off] = self.field_offsets;
        let mut pos = Position::empty();
        for (i, p) in self.board.iter().enumerate() {
            if let Some(p) = p {
                pos.put(Square::new(i as u32), *p);
            }
        }
        pos.turn = self.turn;
        for color in Color::ALL {
            match pos.pieces(color, Role::King).count() {
                0 => errors.push((PositionProblem::MissingKing(color), board_off)),
                1 => {}
                _ => errors.push((PositionProblem::TooManyKings(color), board_off)),
            }
        }
        for sq in pos.by_role(Role::Pawn) & Bitboard::BACKRANKS {
            errors.push((PositionProblem::PawnOnBackRank(sq), board_off));
        }
        if !errors.is_empty() {
            return Err(PositionError { problems: errors });
        }
        if let Some(off) = self.adjacent_digits {
            warnings.push((PositionProblem::AdjacentDigits, off));
        }

        // Castling rights.
        let problem =
            |p: PositionProblem, off: usize, errors: &mut Vec<_>, warnings: &mut Vec<_>| {
                if mode == Mode::Strict {
                    errors.push((p, off));
                } else {
                    warnings.push((p, off));
                }
            };
        let mut sides_taken: Vec<(Color, bool)> = Vec::new();
        for &(right, off) in &self.castling {
            let color = right.color();
            let king = pos.king(color);
            let back = color.back_rank();
            let rooks = pos.pieces(color, Role::Rook) & Bitboard::rank(back);
            let rook = if king.rank() != back {
                None
            } else {
                match right {
                    CastlingRight::KingSide(_) => { rooks }.rfind(|r| r.file() > king.file()),
                    CastlingRight::QueenSide(_) => { rooks }.find(|r| r.file() < king.file()),
                    CastlingRight::File(_, f) => {
                        let sq = Square::from_coords(f, back);
                        rooks.contains(sq).then_some(sq)
                    }
                }
            };
            match rook {
                Some(r) if r.file() != king.file() => {
                    let kingside = r.file() > king.file();
                    if sides_taken.contains(&(color, kingside)) {
                        problem(
                            PositionProblem::BadCastlingRight(right),
                            off,
                            &mut errors,
                            &mut warnings,
                        );
                    } else {
                        sides_taken.push((color, kingside));
                        pos.castling.add(r);
                    }
                }
                _ => problem(
                    PositionProblem::BadCastlingRight(right),
                    off,
                    &mut errors,
                    &mut warnings,
                ),
            }
        }

        // En passant.
        let mut written_ep = None;
        if let Some((ep, off)) = self.ep_square {
            let us = self.turn;
            let them = us.other();
            let ok_rank = ep.rank() == Rank::Sixth.relative_to(us);
            let pushed = ep.offset(if us == Color::White { -8 } else { 8 });
            let origin = ep.offset(if us == Color::White { 8 } else { -8 });
            let ok = ok_rank
                && pushed.is_some_and(|s| {
                    pos.piece_at(s)
                        == Some(Piece {
                            color: them,
                            role: Role::Pawn,
                        })
                })
                && pos.piece_at(ep).is_none()
                && origin.is_some_and(|s| pos.piece_at(s).is_none());
            if !ok {
                problem(
                    PositionProblem::BadEnPassant(ep),
                    off,
                    &mut errors,
                    &mut warnings,
                );
            } else {
                written_ep = Some(ep);
                pos.ep_target = Some(ep);
                if pos.ep_capture_legal(ep) {
                    pos.ep_square = Some(ep);
                }
            }
        }

        // Checks.
        let them = self.turn.other();
        if pos
            .attackers(pos.king(them), self.turn, pos.occupied())
            .nonempty()
        {
            errors.push((PositionProblem::OppositeCheck, turn_off));
        }
        let checkers = pos.checkers();
        if checkers.count() > 2 {
            problem(
                PositionProblem::TooManyCheckers,
                board_off,
                &mut errors,
                &mut warnings,
            );
        } else if impossible_check(&pos, checkers, written_ep) {
            problem(
                PositionProblem::ImpossibleCheck,
                board_off,
                &mut errors,
                &mut warnings,
            );
        }

        if self.fullmoves == 0 {
            problem(
                PositionProblem::ZeroFullmoves,
                fm_off,
                &mut errors,
                &mut warnings,
            );
        }
        if !errors.is_empty() {
            errors.sort_by_key(|(_, off)| *off);
            return Err(PositionError { problems: errors });
        }
        pos.halfmoves = self.halfmoves;
        pos.fullmoves = self.fullmoves.max(1);
        pos.hash = pos.compute_hash();
        Ok((pos, warnings))
    }
}

/// Checkers (at most two) that no single legal last move could have produced:
/// two pawns or knights; two pieces on one line through the king (on the same
/// side, one would block the other; on opposite sides, no move uncovers one
/// and gives the other); or, after a double pawn push (`ep`, the square it
/// passed), any check other than by the pushed pawn or uncovered by it.
fn impossible_check(pos: &Position, checkers: Bitboard, ep: Option<Square>) -> bool {
    let mut it = checkers;
    let Some(a) = it.next() else {
        return false;
    };
    let king = pos.king(pos.turn());
    let second = it.next();
    if let Some(b) = second {
        let steppers = |r: Option<Role>| matches!(r, Some(Role::Pawn) | Some(Role::Knight));
        if steppers(pos.role_at(a)) && steppers(pos.role_at(b)) {
            return true;
        }
        if aligned(a, b, king) {
            return true;
        }
    }
    let Some(ep) = ep else {
        return false;
    };
    if second.is_some() {
        // A double push gives at most one check, direct or uncovered.
        return true;
    }
    // Rank checked by the caller: ep is on the third or sixth rank, so both exist.
    let (Some(pushed_to), Some(pushed_from)) = (
        ep.offset(if pos.turn() == Color::White { -8 } else { 8 }),
        ep.offset(if pos.turn() == Color::White { 8 } else { -8 }),
    ) else {
        return false;
    };
    if a == pushed_to {
        return false;
    }
    // Put the pawn back: if the king is still attacked, the check was there before.
    let before =
        (pos.occupied() - Bitboard::from_square(pushed_to)) | Bitboard::from_square(pushed_from);
    pos.attackers(king, pos.turn().other(), before).nonempty()
}

/// A FEN string: a [`Setup`] that parses from text and writes back as text.
///
/// `str::parse` reads in [`Mode::Lenient`]; use [`Setup::from_fen`] to choose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fen(Setup);

impl Fen {
    /// The FEN of a position, with X-FEN castling.
    pub fn from_position(pos: &Position) -> FenDisplay<'_> {
        FenDisplay {
            pos,
            notation: CastlingNotation::XFen,
            clocks: true,
        }
    }

    /// The setup read from the text.
    pub fn setup(&self) -> &Setup {
        &self.0
    }

    /// The setup read from the text.
    pub fn into_setup(self) -> Setup {
        self.0
    }

    /// Builds the position.
    ///
    /// # Errors
    /// [`PositionError`] if the setup is not a legal position.
    pub fn into_position(self, mode: Mode) -> Result<(Position, Vec<FenWarning>), PositionError> {
        self.0.into_position(mode)
    }
}

impl core::str::FromStr for Fen {
    type Err = ParseFenError;
    fn from_str(s: &str) -> Result<Fen, ParseFenError> {
        Setup::from_fen(s, Mode::Lenient).map(Fen)
    }
}

/// Writes a position as FEN; see [`Fen::from_position`].
#[derive(Copy, Clone, Debug)]
pub struct FenDisplay<'a> {
    pos: &'a Position,
    notation: CastlingNotation,
    clocks: bool,
}

impl FenDisplay<'_> {
    /// Chooses how castling rights are written.
    #[must_use]
    pub fn castling(mut self, notation: CastlingNotation) -> Self {
        self.notation = notation;
        self
    }

    /// Leaves out the two clocks: the four position fields of EPD.
    #[must_use]
    pub fn epd(mut self) -> Self {
        self.clocks = false;
        self
    }
}

impl FenDisplay<'_> {
    /// Appends the FEN to `out`: the same text as [`fmt::Display`], written
    /// byte by byte without `fmt` (writers of many positions, such as the
    /// EPD verbs, spend most of their time here otherwise).
    ///
    /// ```
    /// use rookery_core::{Fen, Position};
    /// let mut out = String::from("fen: ");
    /// Fen::from_position(&Position::startpos()).epd().append_to(&mut out);
    /// assert_eq!(out, "fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    /// ```
    pub fn append_to(&self, out: &mut String) {
        let mut buf = FenBuf::new();
        self.write_bytes(&mut buf);
        out.push_str(buf.as_str());
    }

    /// Appends the FEN to a byte buffer, as [`FenDisplay::append_to`] does
    /// to a string (for writers that assemble their output as bytes).
    pub fn append_bytes(&self, out: &mut Vec<u8>) {
        let mut buf = FenBuf::new();
        self.write_bytes(&mut buf);
        out.extend_from_slice(buf.as_str().as_bytes());
    }

    fn write_bytes(&self, buf: &mut FenBuf) {
        let pos = self.pos;
        // Only the occupied squares are visited (runs of empty ones become
        // one digit), each piece's letter read from the board's byte.
        let occ = pos.occupied().0;
        for rank in (0..8u32).rev() {
            let mut row = (occ >> (8 * rank)) & 0xff;
            let mut file = 0u32;
            while row != 0 {
                // Skip the empty squares before the next piece in one step.
                let gap = row.trailing_zeros();
                if gap > 0 {
                    // gap <= 7: a digit.
                    buf.push(b'0' + gap as u8);
                }
                file += gap;
                buf.push(
                    BOARD_LETTERS[usize::from(pos.board[(rank * 8 + file) as usize & 63] & 15)],
                );
                row >>= gap + 1;
                file += 1;
            }
            if file < 8 {
                // 8 - file <= 8: a digit.
                buf.push(b'0' + (8 - file) as u8);
            }
            if rank > 0 {
                buf.push(b'/');
            }
        }
        buf.push(b' ');
        buf.push(pos.turn().char() as u8);
        buf.push(b' ');
        write_castling(buf, pos, self.notation);
        buf.push(b' ');
        match pos.ep_square() {
            Some(sq) => {
                buf.push(sq.file().char() as u8);
                buf.push(sq.rank().char() as u8);
            }
            None => buf.push(b'-'),
        }
        if self.clocks {
            buf.push(b' ');
            buf.push_u32(pos.halfmoves());
            buf.push(b' ');
            buf.push_u32(pos.fullmoves());
        }
    }
}

/// The FEN letter of each byte of [`Position`]'s board (colour << 3 | role),
/// masked to four bits; the bytes of no piece never come up (only occupied
/// squares are looked up).
const BOARD_LETTERS: [u8; 16] = {
    let mut t = [b'?'; 16];
    let mut i = 0;
    while i < 6 {
        if let Some(role) = Role::from_index(i) {
            t[i] = Piece {
                color: Color::White,
                role,
            }
            .char() as u8;
            t[8 + i] = Piece {
                color: Color::Black,
                role,
            }
            .char() as u8;
        }
        i += 1;
    }
    t
};

/// The longest FEN: 64 piece letters, 7 slashes, 5 spaces, side, at most 4
/// castling letters (one right per side and colour), 2 for en passant and
/// two clocks of at most 10 digits each.
const FEN_MAX: usize = 64 + 7 + 5 + 1 + 4 + 2 + 10 + 10;

/// A FEN being written: ASCII bytes on the stack.
struct FenBuf {
    bytes: [u8; FEN_MAX],
    len: usize,
}

impl FenBuf {
    fn new() -> FenBuf {
        FenBuf {
            bytes: [0; FEN_MAX],
            len: 0,
        }
    }

    fn push(&mut self, b: u8) {
        // FEN_MAX bounds what a position can need; a write past it would
        // be a bug here, so it is dropped rather than panicking.
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    fn push_u32(&mut self, v: u32) {
        // The largest power of ten not above `v`, then one digit per power.
        let mut unit = 1u32;
        while v / unit >= 10 {
            unit *= 10;
        }
        while unit > 0 {
            // A decimal digit: below 10.
            self.push(b'0' + (v / unit % 10) as u8);
            unit /= 10;
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII is ever pushed.
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl fmt::Display for FenDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = FenBuf::new();
        self.write_bytes(&mut buf);
        f.write_str(buf.as_str())
    }
}

/// Writes the castling field: each colour's rights from the highest file
/// down (king side first), `K`/`Q` for the outermost rook on a side in
/// X-FEN, the file letter otherwise.
fn write_castling(buf: &mut FenBuf, pos: &Position, notation: CastlingNotation) {
    let rights = pos.castling_rooks();
    if rights.is_empty() {
        buf.push(b'-');
        return;
    }
    for color in Color::ALL {
        let king = pos.king(color);
        let back = Bitboard::rank(color.back_rank());
        let rooks = pos.pieces(color, Role::Rook) & back;
        for r in (rights & back).rev() {
            let kingside = r.file() > king.file();
            let outermost = if kingside {
                { rooks }.rfind(|x| x.file() > king.file()) == Some(r)
            } else {
                { rooks }.find(|x| x.file() < king.file()) == Some(r)
            };
            let ch = match notation {
                CastlingNotation::XFen if outermost => {
                    if kingside {
                        b'K'
                    } else {
                        b'Q'
                    }
                }
                _ => r.file().char().to_ascii_uppercase() as u8,
            };
            buf.push(if color == Color::White {
                ch
            } else {
                ch.to_ascii_lowercase()
            });
        }
    }
}

/// What a byte of the board field is to [`read_plain_epd_fields`]:
/// looked up in [`BOARD_BYTES`] rather than told apart by comparisons (the
/// board is most of the bytes it reads).
#[derive(Copy, Clone)]
enum BoardByte {
    /// Not part of a plain board.
    Other,
    /// A piece letter.
    Piece(Piece),
    /// A digit `1`..=`8`: that many empty squares.
    Empty(u8),
    /// `/`, between ranks.
    Slash,
    /// The space after the board.
    Space,
}

/// [`BoardByte`] of every byte.
const BOARD_BYTES: [BoardByte; 256] = {
    let mut table = [BoardByte::Other; 256];
    let mut i = 0;
    while i < 256 {
        // i < 256: a byte.
        let c = i as u8;
        table[i] = match c {
            b'/' => BoardByte::Slash,
            b' ' => BoardByte::Space,
            b'1'..=b'8' => BoardByte::Empty(c - b'0'),
            _ => match Piece::from_char(c as char) {
                Some(p) => BoardByte::Piece(p),
                None => BoardByte::Other,
            },
        };
        i += 1;
    }
    table
};

/// The common case of the four EPD position fields at the start of `s`,
/// read straight into a [`Position`] (no [`Setup`] in between): single
/// spaces, a board without two digits in a row, `w`/`b`, castling `-` or
/// standard letters in `KQkq` order, no en-passant square, and a position
/// where every right is valid and only a possible check is given. That is what the
/// full reader ([`Setup::from_epd_prefix`], then [`Setup::into_position`])
/// accepts without a word in either [`Mode`], and it builds the same
/// position; anything else gives `None`, and the full reader then says
/// what is wrong. Returns the position (clocks 0 and 1) and the bytes used.
pub(crate) fn read_plain_epd_fields(s: &[u8]) -> Option<(Position, usize)> {
    let mut pos = Position::empty();
    // The Zobrist key, built as the pieces go on (as `compute_hash` would).
    let mut hash = 0u64;
    // The board: rank 8 first, each rank exactly 8 squares.
    let mut i = 0;
    let mut rank = 7u32;
    let mut file = 0u32;
    let mut last_digit = false;
    loop {
        let c = *s.get(i)?;
        i += 1;
        match BOARD_BYTES[usize::from(c)] {
            BoardByte::Slash => {
                if file != 8 || rank == 0 {
                    return None;
                }
                rank -= 1;
                file = 0;
                last_digit = false;
            }
            BoardByte::Empty(n) => {
                if last_digit {
                    return None;
                }
                file += u32::from(n);
                if file > 8 {
                    return None;
                }
                last_digit = true;
            }
            BoardByte::Space => break,
            BoardByte::Other => return None,
            BoardByte::Piece(p) => {
                if file >= 8 {
                    return None;
                }
                let sq = Square::new(rank * 8 + file);
                pos.put(sq, p);
                hash ^= crate::zobrist::piece(p, sq);
                file += 1;
                last_digit = false;
            }
        }
    }
    if rank != 0 || file != 8 {
        return None;
    }
    pos.turn = match (s.get(i)?, s.get(i + 1)?) {
        (b'w', b' ') => Color::White,
        (b'b', b' ') => Color::Black,
        _ => return None,
    };
    i += 2;
    // Castling: '-' or K, Q, k, q (each at most once, in that order).
    let mut rights: [bool; 4] = [false; 4];
    if s.get(i) == Some(&b'-') {
        i += 1;
    } else {
        let mut next = 0;
        while let Some(k) = s.get(i).and_then(|&c| b"KQkq".iter().position(|&x| x == c)) {
            if k < next {
                return None;
            }
            rights[k] = true;
            next = k + 1;
            i += 1;
        }
        if next == 0 {
            return None;
        }
    }
    // En passant: none.
    if s.get(i) != Some(&b' ') || s.get(i + 1) != Some(&b'-') {
        return None;
    }
    i += 2;
    if s.get(i).is_some_and(|c| !c.is_ascii_whitespace()) {
        return None;
    }
    // One king each, no pawn on a back rank.
    for color in Color::ALL {
        if pos.pieces(color, Role::King).count() != 1 {
            return None;
        }
    }
    if (pos.by_role(Role::Pawn) & Bitboard::BACKRANKS).nonempty() {
        return None;
    }
    // Each right names the outermost rook on its side of the king (as
    // `Setup::into_position` reads K and Q).
    for (k, &on) in rights.iter().enumerate() {
        if !on {
            continue;
        }
        let color = if k < 2 { Color::White } else { Color::Black };
        let king = pos.king(color);
        let back = color.back_rank();
        if king.rank() != back {
            return None;
        }
        let rooks = pos.pieces(color, Role::Rook) & Bitboard::rank(back);
        let rook = if k % 2 == 0 {
            { rooks }.rfind(|r| r.file() > king.file())
        } else {
            { rooks }.find(|r| r.file() < king.file())
        };
        let rook = rook?;
        pos.castling.add(rook);
        hash ^= crate::zobrist::castling_rook(rook);
    }
    // The side not to move in check is an error; the side to move may be
    // in a check some legal move could give.
    let them = pos.turn.other();
    if pos.is_attacked(pos.king(them), pos.turn, pos.occupied()) {
        return None;
    }
    let checkers = pos.checkers();
    if checkers.count() > 2 || impossible_check(&pos, checkers, None) {
        return None;
    }
    pos.hash = hash ^ crate::zobrist::turn(pos.turn);
    debug_assert_eq!(pos.hash, pos.compute_hash());
    Some((pos, i))
}

/// FEN in and out, here beside the reader and the writer, so that
/// the position module needs nothing of this one (a setup is read into a
/// position here; a position knows nothing of text).
impl Position {
    /// Reads a FEN in strict mode.
    ///
    /// # Errors
    /// [`FenError`] for malformed text or an illegal position.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let setup = Setup::from_fen(fen, Mode::Strict)?;
        Ok(setup.into_position(Mode::Strict)?.0)
    }

    /// Reads a FEN in lenient mode, returning what was fixed as warnings.
    ///
    /// # Errors
    /// [`FenError`] for malformed text or a position no play can follow from.
    pub fn from_fen_lenient(fen: &str) -> Result<(Position, Vec<FenWarning>), FenError> {
        let setup = Setup::from_fen(fen, Mode::Lenient)?;
        Ok(setup.into_position(Mode::Lenient)?)
    }

    /// The four position fields at the start of an EPD record (`s`) when
    /// they are plainly fine: read straight into a position, without the
    /// [`Setup`] in between, for readers of many records. `None` unless the
    /// full reader ([`Setup::from_epd_prefix`], then [`Setup::into_position`])
    /// would accept the text without an error or a warning in either
    /// [`Mode`] (single spaces, no en-passant square, `KQkq`-style
    /// castling, ...); it builds the same position. Returns the position
    /// (clocks 0 and 1) and the number of bytes used. Plain fields are
    /// canonical: [`Fen::from_position`]`(..).epd()` writes exactly the
    /// bytes used, so a writer may copy them instead.
    ///
    /// ```
    /// use rookery_core::Position;
    /// let line = b"4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+;";
    /// let (pos, used) = Position::from_plain_epd_fields(line).unwrap();
    /// assert_eq!(&line[..used], b"4k3/8/8/8/8/8/8/4K2R w K -");
    /// assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    /// // An en-passant square: the full reader's job.
    /// assert!(Position::from_plain_epd_fields(b"4k3/8/8/8/4Pp2/8/8/4K3 b - e3").is_none());
    /// ```
    pub fn from_plain_epd_fields(s: &[u8]) -> Option<(Position, usize)> {
        crate::fen::read_plain_epd_fields(s)
    }

    /// The position as FEN (X-FEN castling).
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(90);
        Fen::from_position(self).append_to(&mut out);
        out
    }
}

impl core::fmt::Debug for Position {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Position({})", crate::fen::Fen::from_position(self))
    }
}
