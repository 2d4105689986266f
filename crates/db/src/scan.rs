//! Position search by a scan of the stored moves: what the explorer's
//! index cannot answer (a sub-position, a material signature or
//! imbalance, the side to move, a move played), in Scoutfish's
//! vocabulary, tested at every position of every game.
//!
//! A [`Query`] holds tests on one position: the pieces of a sub-FEN on
//! their squares ([`SubFen`], the other squares free), an exact material
//! signature ([`Material`], `pgn filter --material`'s), a material
//! imbalance ([`Imbalance`]: `vPP`, White two pawns down), exact
//! positions ([`PositionTest`]), the side to move and the move played
//! from the position ([`MovePattern`], SAN). Of the values of one test one
//! is enough (several sub-FENs are ORed); every test given must hold at
//! once, at the same ply. A game is found at the plies where they do
//! (ply 0 is the start, ply N the position after N half-moves, as
//! Scoutfish counts), and only if it passes the [`Criteria`] too: their
//! tests on tags, results and lengths judged on the header record before
//! a move is read, their positions and material signatures as `pgn
//! filter` judges them (each somewhere in the mainline).
//!
//! [`Database::scan`] reads each game's moves byte by byte onto a
//! [`Board`] ([`codec::Reader`]: no move generator, a plain move a table
//! load) and tests the positions as they are reached, never building a
//! PGN game (a [`Position`] is played beside the board only for the tests
//! that need its hash or SAN). It stops reading a game once, at a capture
//! or a promotion, it sees the tests cannot hold at any later ply:
//! material is only ever lost, except by a promotion, which costs a pawn;
//! a pawn never goes back, so a pawn a sub-FEN asks for is reachable only
//! from the squares behind it.
//!
//! ```
//! use rookery_db::scan::{Query, SubFen};
//!
//! let mut q = Query::default();
//! // A black pawn on a6, a white bishop on b3 and knight on f3.
//! q.sub_fens.push("8/8/p7/8/8/1B3N2/8/8".parse::<SubFen>()?);
//! q.imbalances.push("vP".parse()?); // White a pawn down
//! q.turn = Some(rookery_core::Color::White);
//! assert!(!q.is_empty());
//! # Ok::<(), rookery_db::scan::ScanError>(())
//! ```

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use redb::ReadableTable;
use rookery_core::{Bitboard, CastlingSide, Color, Move, Position, Role, San, Square};
use rookery_pgn::filter::{Criteria, FilterError, Material, PositionTest};

use crate::codec::{self, Board, Reader, Start};
use crate::header::{Header, NameId, NO_NAME};
use crate::headers::{HeaderReader, HEADERS};
use crate::store::{header_tag, name_in, Database, DbError, GAMES, NAME_OF};

/// A query that cannot be used, naming the value that is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// A sub-FEN that is not a board.
    #[error("bad sub-FEN {text:?}: {reason}")]
    SubFen {
        /// The sub-FEN as given.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// An imbalance that is not a material signature.
    #[error("bad imbalance {text:?}: {reason}")]
    Imbalance {
        /// The imbalance as given.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// A move that is not SAN.
    #[error("bad move {text:?}: {reason}")]
    Move {
        /// The move as given.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// Pieces other than the letters K Q R B N P.
    #[error("bad pieces {text:?}: {reason}")]
    Pieces {
        /// The pieces as given.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// A side to move other than `white` or `black`.
    #[error("bad side to move {0:?}: expected white or black")]
    Turn(String),
    /// A sequence that cannot be searched for.
    #[error("bad sequence: {0}")]
    Sequence(String),
    /// A Scoutfish query ([`crate::scout`]) that does not read.
    #[error("bad query: {at}: {reason}")]
    Query {
        /// Where in the query (`sequence[1].streak[0]: sub-fen`).
        at: String,
        /// What is wrong.
        reason: String,
    },
}

/// The roles a material count keeps, in [`Counts`]' order.
const COUNTED: [Role; 5] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// The place of pawns in [`Counts`].
const PAWNS: usize = 4;

/// Pieces of each kind (White's, then Black's, each in [`COUNTED`]'s
/// order): a position's material, kings left out.
type Counts = [[u8; 5]; 2];

/// What the scan's tests read of a position: its pieces of each kind.
/// A [`Position`] has them, and so does the [`Board`] a scan keeps.
pub trait Pieces {
    /// The pieces of `color` and `role`.
    fn pieces(&self, color: Color, role: Role) -> Bitboard;
}

impl Pieces for Position {
    #[inline]
    fn pieces(&self, color: Color, role: Role) -> Bitboard {
        Position::pieces(self, color, role)
    }
}

impl Pieces for Board {
    #[inline]
    fn pieces(&self, color: Color, role: Role) -> Bitboard {
        Board::pieces(self, color, role)
    }
}

/// The material of `pos`.
fn counts_of(pos: &impl Pieces) -> Counts {
    let mut c = [[0; 5]; 2];
    for (side, color) in [Color::White, Color::Black].into_iter().enumerate() {
        for (i, role) in COUNTED.into_iter().enumerate() {
            c[side][i] = pos.pieces(color, role).count() as u8;
        }
    }
    c
}

/// The counts of a material signature.
fn counts_of_signature(m: &Material) -> Counts {
    let mut c = [[0; 5]; 2];
    for (side, color) in [Color::White, Color::Black].into_iter().enumerate() {
        for (i, role) in COUNTED.into_iter().enumerate() {
            c[side][i] = m.count(color, role);
        }
    }
    c
}

/// Whether a position with material `now` can still lead to one with at
/// least `least` of each kind: pieces are only lost, except that a pawn
/// may become a piece (so the pawns short are never made up, and the
/// pieces short must be made up by pawns beyond those kept).
fn may_reach(now: &Counts, least: &Counts) -> bool {
    (0..2).all(|side| {
        let (now, least) = (&now[side], &least[side]);
        let Some(spare) = now[PAWNS].checked_sub(least[PAWNS]) else {
            return false;
        };
        let short: u32 = (0..PAWNS)
            .map(|i| u32::from(least[i].saturating_sub(now[i])))
            .sum();
        short <= u32::from(spare)
    })
}

/// A partial board (Scoutfish's `sub-fen`): the pieces it shows must
/// stand on their squares, the squares it leaves empty may hold
/// anything. A whole FEN's board is a sub-FEN too (its other fields are
/// not read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubFen {
    /// The squares each piece must stand on: (colour, role, squares), only
    /// the kinds it shows.
    wanted: Vec<(Color, Role, Bitboard)>,
    /// How many of each kind it shows.
    least: Counts,
    /// The squares from which a pawn of each colour may yet reach each
    /// square the sub-FEN wants one of that colour on (a pawn only moves
    /// forward, a file aside at a capture): one for each such square.
    pawn_sources: Vec<Bitboard>,
    /// Pawn sources of White's, then Black's.
    pawn_side: Vec<Color>,
}

impl SubFen {
    /// Whether the pieces of the sub-FEN stand on their squares in `pos`.
    #[inline]
    pub fn matches(&self, pos: &impl Pieces) -> bool {
        self.wanted
            .iter()
            .all(|&(c, r, sq)| pos.pieces(c, r).0 & sq.0 == sq.0)
    }

    /// Whether a position reached later from `pos` (with material
    /// `counts`) may match.
    fn may_match(&self, pos: &impl Pieces, counts: &Counts) -> bool {
        may_reach(counts, &self.least)
            && self
                .pawn_sources
                .iter()
                .zip(&self.pawn_side)
                .all(|(&from, &c)| pos.pieces(c, Role::Pawn).intersects(from))
    }
}

/// The squares from which a pawn of `color` can reach `to` (`to`
/// included): behind it, within a file for each rank of distance.
fn pawn_cone(color: Color, to: Square) -> Bitboard {
    let (file, rank) = (to.file().index() as i32, to.rank().index() as i32);
    let mut cone = Bitboard::EMPTY;
    for sq in Square::all() {
        let (f, r) = (sq.file().index() as i32, sq.rank().index() as i32);
        let behind = match color {
            Color::White => rank - r,
            Color::Black => r - rank,
        };
        if behind >= 0 && (f - file).abs() <= behind {
            cone.add(sq);
        }
    }
    cone
}

impl FromStr for SubFen {
    type Err = ScanError;

    /// A board in FEN (`8/8/p7/8/8/1B3N2/8/8`: eight ranks from the
    /// eighth, White's pieces in capitals, digits for empty squares); what
    /// follows a space is not read.
    fn from_str(text: &str) -> Result<SubFen, ScanError> {
        let bad = |reason: String| ScanError::SubFen {
            text: text.to_owned(),
            reason,
        };
        let board = text.split_whitespace().next().unwrap_or("");
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != 8 {
            return Err(bad(format!(
                "expected 8 ranks separated by /, found {}",
                ranks.len()
            )));
        }
        let mut squares = [[Bitboard::EMPTY; 6]; 2];
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 7 - i as u32;
            let mut file = 0u32;
            for ch in rank_text.chars() {
                if let Some(d) = ch.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += d;
                } else {
                    let role = Role::from_char(ch.to_ascii_lowercase()).ok_or_else(|| {
                        bad(format!(
                            "{ch:?} is not a piece (K Q R B N P, Black's in small letters) or 1-8"
                        ))
                    })?;
                    if file >= 8 {
                        return Err(bad(format!("rank {} has more than 8 squares", rank + 1)));
                    }
                    let color = if ch.is_ascii_uppercase() {
                        Color::White
                    } else {
                        Color::Black
                    };
                    squares[color.index()][role.index()].add(Square::new(rank * 8 + file));
                    file += 1;
                }
            }
            if file != 8 {
                return Err(bad(format!(
                    "rank {} has {file} squares, expected 8",
                    rank + 1
                )));
            }
        }
        let mut s = SubFen {
            wanted: Vec::new(),
            least: [[0; 5]; 2],
            pawn_sources: Vec::new(),
            pawn_side: Vec::new(),
        };
        for color in [Color::White, Color::Black] {
            for role in [
                Role::Pawn,
                Role::Knight,
                Role::Bishop,
                Role::Rook,
                Role::Queen,
                Role::King,
            ] {
                let sq = squares[color.index()][role.index()];
                if sq.is_empty() {
                    continue;
                }
                s.wanted.push((color, role, sq));
                if let Some(i) = COUNTED.iter().position(|&r| r == role) {
                    s.least[color.index()][i] = sq.count() as u8;
                }
                if role == Role::Pawn {
                    for to in sq {
                        s.pawn_sources.push(pawn_cone(color, to));
                        s.pawn_side.push(color);
                    }
                }
            }
        }
        Ok(s)
    }
}

/// A material imbalance (Scoutfish's `imbalance`): for each kind of
/// piece, White's count less Black's. Written as a material signature of
/// the difference: `PPv` (White two pawns up), `vPP` (two down), `PPvN`
/// (two pawns up, a knight down), `BvN` (a bishop for a knight), `v` (level
/// material); kings are not counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Imbalance {
    /// White's count less Black's, in [`COUNTED`]'s order (Q R B N P).
    diff: [i8; 5],
}

impl Imbalance {
    /// Whether material `c` has this imbalance.
    fn holds(&self, c: &Counts) -> bool {
        (0..5).all(|i| c[0][i] as i8 - c[1][i] as i8 == self.diff[i])
    }
}

impl FromStr for Imbalance {
    type Err = ScanError;

    /// See [`Imbalance`]; the grammar is `pgn filter --material`'s
    /// ([`Material`]).
    fn from_str(text: &str) -> Result<Imbalance, ScanError> {
        if text.trim().eq_ignore_ascii_case("v") {
            // No difference: the material is level.
            return Ok(Imbalance { diff: [0; 5] });
        }
        let m: Material = text.parse().map_err(|e| ScanError::Imbalance {
            text: text.to_owned(),
            reason: match e {
                FilterError::Material { reason, .. } => reason.to_owned(),
                other => other.to_string(),
            },
        })?;
        let c = counts_of_signature(&m);
        let mut diff = [0i8; 5];
        for (i, d) in diff.iter_mut().enumerate() {
            *d = c[0][i] as i8 - c[1][i] as i8;
        }
        Ok(Imbalance { diff })
    }
}

/// A move in SAN (Scoutfish's `white-move`/`black-move`): the piece, its
/// destination, a capture if an `x` is written, the promotion; a file or
/// rank written before the destination must be the move's origin, and
/// none means any (`Rc1` finds `Rac1` too). A check or mate sign is not
/// read. `O-O` and `O-O-O` are castling.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MovePattern {
    san: San,
}

impl MovePattern {
    /// Whether `m`, played in `pos`, is this move.
    #[inline]
    pub fn matches(&self, pos: &Position, m: Move) -> bool {
        match self.san {
            San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } => {
                m.to() == to
                    && !m.is_null()
                    && !m.is_castle()
                    && m.promotion() == promotion
                    && pos.role_at(m.from()) == Some(role)
                    && file.is_none_or(|f| m.from().file() == f)
                    && rank.is_none_or(|r| m.from().rank() == r)
                    && pos.is_capture(m) == capture
            }
            San::Castle(side) => {
                m.is_castle()
                    && (m.to().file() > m.from().file()) == (side == CastlingSide::KingSide)
            }
            San::Null => false,
        }
    }
}

impl FromStr for MovePattern {
    type Err = ScanError;

    /// A move in SAN (`e8=Q`, `Nxf3`, `Rac1`, `O-O`); `+` or `#` after it
    /// is ignored.
    fn from_str(text: &str) -> Result<MovePattern, ScanError> {
        let bad = |reason: String| ScanError::Move {
            text: text.to_owned(),
            reason,
        };
        let t = text.trim().trim_end_matches(['+', '#', '!', '?']);
        let san = San::from_ascii(t.as_bytes()).map_err(|e| bad(e.to_string()))?;
        if san == San::Null {
            return Err(bad("the null move is never played".to_owned()));
        }
        Ok(MovePattern { san })
    }
}

/// Tests on one position (see the module documentation): of the values
/// of one test one is enough, every test given must hold.
#[derive(Clone, Debug, Default)]
pub struct Query {
    /// Sub-FENs, one of which the position matches.
    pub sub_fens: Vec<SubFen>,
    /// Material signatures, one of which is the position's exactly.
    pub materials: Vec<Material>,
    /// Imbalances, one of which the position has.
    pub imbalances: Vec<Imbalance>,
    /// Positions, one of which it is (by Zobrist key, as `pgn filter
    /// --position`).
    pub positions: Vec<PositionTest>,
    /// The side to move.
    pub turn: Option<Color>,
    /// Moves, one of which is played from the position.
    pub moves: Vec<MovePattern>,
    /// The move played from the position moves one of these kinds of
    /// piece (Scoutfish's `moved`; the king, for castling).
    pub moved: Option<Roles>,
    /// The move played from the position takes one of these kinds of
    /// piece, or, if there are none, takes nothing (Scoutfish's
    /// `captured`: `""` a quiet move).
    pub captured: Option<Roles>,
}

impl Query {
    /// Whether the query has no test (then it finds no ply).
    pub fn is_empty(&self) -> bool {
        self.sub_fens.is_empty()
            && self.materials.is_empty()
            && self.imbalances.is_empty()
            && self.positions.is_empty()
            && self.turn.is_none()
            && self.moves.is_empty()
            && self.moved.is_none()
            && self.captured.is_none()
    }

    /// Whether the kinds of piece the move played moved and took (`None`
    /// when no move is played) pass [`Query::moved`] and
    /// [`Query::captured`].
    #[inline]
    fn pieces_hold(&self, last: Option<(Role, Option<Role>)>) -> bool {
        if self.moved.is_none() && self.captured.is_none() {
            return true;
        }
        let Some((moved, taken)) = last else {
            return false;
        };
        self.moved.is_none_or(|s| s.contains(moved))
            && self.captured.is_none_or(|s| match taken {
                None => s.is_empty(),
                Some(r) => s.contains(r),
            })
    }

    /// Reads the side to move: `white` or `black` (`w`, `b`; any case).
    ///
    /// # Errors
    /// [`ScanError::Turn`] for another word.
    pub fn parse_turn(text: &str) -> Result<Color, ScanError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "white" | "w" => Ok(Color::White),
            "black" | "b" => Ok(Color::Black),
            _ => Err(ScanError::Turn(text.to_owned())),
        }
    }
}

/// A set of kinds of piece, written as their letters (`KP`, `QR`; either
/// case), as Scoutfish's `moved` and `captured` are; `""` is the empty set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Roles(u8);

impl Roles {
    /// Whether `role` is one of them.
    #[inline]
    pub fn contains(self, role: Role) -> bool {
        self.0 & 1 << role.index() != 0
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl FromStr for Roles {
    type Err = ScanError;

    fn from_str(text: &str) -> Result<Roles, ScanError> {
        let mut set = 0u8;
        for ch in text.chars() {
            let role =
                Role::from_char(ch.to_ascii_lowercase()).ok_or_else(|| ScanError::Pieces {
                    text: text.to_owned(),
                    reason: format!("{ch:?} is not a piece (K Q R B N P)"),
                })?;
            set |= 1 << role.index();
        }
        Ok(Roles(set))
    }
}

/// What a scan looks for in each game: one [`Query`] at any ply, or a
/// sequence of steps (Scoutfish's `sequence` and `streak`).
#[derive(Clone, Debug)]
pub enum Pattern {
    /// Every ply at which the query holds (an empty query asks for no
    /// ply: the game is found by its [`Criteria`] alone).
    Each(Query),
    /// Steps met in their order, each at plies strictly after those of the
    /// step before. A step is a streak: its conditions held at consecutive
    /// plies, the first condition at the step's first ply (a step of one
    /// condition is met at one ply). The earliest way the steps are met is
    /// the one found (each step at its earliest plies after the step
    /// before, which leaves the most room to those after), a ply for each
    /// condition. A condition with no test holds at every ply (Scoutfish's
    /// `pass`). Made by [`Pattern::sequence`].
    Sequence(Sequence),
}

/// The steps of a [`Pattern::Sequence`]: at least one, each of 1 to
/// [`Sequence::MAX_STREAK`] conditions.
#[derive(Clone, Debug)]
pub struct Sequence(Vec<Vec<Query>>);

impl Sequence {
    /// The most conditions a streak may have.
    pub const MAX_STREAK: usize = 64;

    /// The steps.
    pub fn steps(&self) -> &[Vec<Query>] {
        &self.0
    }
}

impl Pattern {
    /// A sequence of `steps` (see [`Pattern::Sequence`]).
    ///
    /// # Errors
    /// [`ScanError::Sequence`] for no step, an empty step or a streak of
    /// more than [`Sequence::MAX_STREAK`] conditions.
    pub fn sequence(steps: Vec<Vec<Query>>) -> Result<Pattern, ScanError> {
        if steps.is_empty() {
            return Err(ScanError::Sequence("a sequence needs a step".into()));
        }
        for s in &steps {
            if s.is_empty() {
                return Err(ScanError::Sequence("a streak needs a condition".into()));
            }
            if s.len() > Sequence::MAX_STREAK {
                return Err(ScanError::Sequence(format!(
                    "a streak of {} conditions: at most {} are read",
                    s.len(),
                    Sequence::MAX_STREAK
                )));
            }
        }
        Ok(Pattern::Sequence(Sequence(steps)))
    }

    /// Whether the pattern tests plies (not only the game's criteria).
    pub fn tests_plies(&self) -> bool {
        match self {
            Pattern::Each(q) => !q.is_empty(),
            Pattern::Sequence(_) => true,
        }
    }

    /// The conditions, in order.
    fn conditions(&self) -> Vec<&Query> {
        match self {
            Pattern::Each(q) => vec![q],
            Pattern::Sequence(s) => s.0.iter().flatten().collect(),
        }
    }
}

impl From<Query> for Pattern {
    fn from(q: Query) -> Pattern {
        Pattern::Each(q)
    }
}

/// A game [`Database::scan`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The game's number.
    pub id: u64,
    /// The plies at which the [`Pattern`] holds, in order (ply 0: the
    /// start position): for [`Pattern::Each`] every ply at which its query
    /// holds (none for an empty query), for a sequence one a condition.
    pub plies: Vec<u32>,
}

/// What a scan read.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanReport {
    /// Games whose header was read.
    pub games: u64,
    /// Of those, games whose moves were read (the others were turned away
    /// by their header).
    pub decoded: u64,
    /// Plies decoded (a game left as soon as it cannot match counts the
    /// plies read until then).
    pub plies: u64,
}

impl ScanReport {
    fn add(&mut self, o: &ScanReport) {
        self.games += o.games;
        self.decoded += o.decoded;
        self.plies += o.plies;
    }
}

/// Whether [`Database::scan`] can judge `criteria`: their tests on moves
/// are positions, material signatures, checkmate and stalemate only (no
/// opening, fifty-move or repetition test, no variations), and they are
/// not inverted.
pub fn scannable(criteria: &Criteria) -> bool {
    !criteria.invert
        && criteria.opening.is_none()
        && !criteria.fifty
        && !criteria.repetition
        && !criteria.variations
}

/// Games a worker reads at a time.
const BLOCK: usize = 4096;

/// One condition of a pattern made ready for the scan.
struct Cond<'a> {
    query: &'a Query,
    /// The query's material signatures.
    materials: Vec<Counts>,
    /// The squares the query's sub-FENs name: whether a position matches
    /// them changes only by a move to or from one of them.
    touched: Bitboard,
}

impl<'a> Cond<'a> {
    fn new(query: &'a Query) -> Cond<'a> {
        Cond {
            query,
            materials: query.materials.iter().map(counts_of_signature).collect(),
            touched: query
                .sub_fens
                .iter()
                .flat_map(|s| s.wanted.iter().map(|w| w.2))
                .fold(Bitboard::EMPTY, |a, b| a | b),
        }
    }

    /// Whether a test of the condition reads the material.
    fn counts(&self) -> bool {
        let q = self.query;
        !q.materials.is_empty() || !q.imbalances.is_empty() || !q.sub_fens.is_empty()
    }

    /// Whether the condition's tests of the pieces and the side to move
    /// hold at `board` (`sub_fens`, `material`: whether the sub-FENs and
    /// the material tests, if any, hold there).
    #[inline]
    fn holds_on(&self, board: &Board, sub_fens: bool, material: bool) -> bool {
        self.query.turn.is_none_or(|t| board.turn() == t) && sub_fens && material
    }

    /// Whether the condition's material signatures and imbalances (if
    /// any) hold for material `c`.
    fn material_holds(&self, c: &Counts) -> bool {
        let q = self.query;
        (self.materials.is_empty() || self.materials.contains(c))
            && (q.imbalances.is_empty() || q.imbalances.iter().any(|i| i.holds(c)))
    }

    /// Whether the condition's tests of the whole position hold at `pos`
    /// (`None` when no test needs it), `m` the move played from it, and
    /// its tests of the pieces that move moved and took (`last`).
    #[inline]
    fn holds_at(
        &self,
        pos: Option<&Position>,
        m: Option<Move>,
        last: Option<(Role, Option<Role>)>,
    ) -> bool {
        let q = self.query;
        pos.is_none_or(|pos| {
            (q.positions.is_empty() || q.positions.iter().any(|p| p.key == pos.hash()))
                && (q.moves.is_empty()
                    || m.is_some_and(|m| q.moves.iter().any(|p| p.matches(pos, m))))
        }) && q.pieces_hold(m.and(last))
    }

    /// Whether the condition may hold at `board` (material `c`) or a later
    /// position of its game.
    fn may_hold(&self, board: &Board, c: &Counts) -> bool {
        let q = self.query;
        (self.materials.is_empty() || self.materials.iter().any(|m| may_reach(c, m)))
            && (q.sub_fens.is_empty() || q.sub_fens.iter().any(|s| s.may_match(board, c)))
    }

    /// Whether the condition's sub-FENs (if any) match at `board`.
    #[inline]
    fn sub_fens_match(&self, board: &Board) -> bool {
        let q = self.query;
        q.sub_fens.is_empty() || q.sub_fens.iter().any(|s| s.matches(board))
    }

    /// Whether the verdict of its sub-FENs may have changed by `m`: a move
    /// that leaves and enters none of their squares leaves the verdict as
    /// it was (castling and en passant move a second piece: asked again).
    #[inline]
    fn touched_by(&self, m: Move) -> bool {
        self.touched
            .intersects(Bitboard::from_square(m.from()).with(m.to()))
            || m.is_castle()
            || m.is_en_passant()
    }

    /// Whether a test needs the whole position (its hash, or the move
    /// played as SAN reads it), not only where the pieces stand.
    fn needs_position(&self) -> bool {
        !self.query.positions.is_empty() || !self.query.moves.is_empty()
    }
}

/// A pattern and criteria made ready for the scan.
struct Plan<'a> {
    /// The pattern's conditions, in order.
    conds: Vec<Cond<'a>>,
    /// For a sequence, the conditions of each step (`None`: one query at
    /// every ply).
    steps: Option<Vec<Range<usize>>>,
    /// The criteria's tests on the header (positions, material and the
    /// game's end left out).
    header: Criteria,
    /// Whether the header test is needed at all.
    header_tests: bool,
    /// The criteria's positions: one must be passed through.
    positions: &'a [PositionTest],
    /// The criteria's material signatures: one must be reached.
    materials: Vec<Counts>,
    /// Whether the material is counted when it changes.
    counts: bool,
    /// Whether the game must end in checkmate, in stalemate.
    checkmate: bool,
    stalemate: bool,
}

impl<'a> Plan<'a> {
    fn new(criteria: &'a Criteria, pattern: &'a Pattern) -> Plan<'a> {
        let mut header = criteria.clone();
        header.positions.clear();
        header.materials.clear();
        header.checkmate = false;
        header.stalemate = false;
        let header_tests = !header.tags.is_empty()
            || header.tests_players()
            || header.elo.is_some()
            || header.date.is_some()
            || header.eco.is_some()
            || header.plies.is_some()
            || !header.results.is_empty()
            || !header.terminations.is_empty();
        let materials: Vec<Counts> = criteria.materials.iter().map(counts_of_signature).collect();
        let conds: Vec<Cond> = pattern.conditions().into_iter().map(Cond::new).collect();
        let steps = match pattern {
            Pattern::Each(_) => None,
            Pattern::Sequence(s) => {
                let mut at = 0;
                Some(
                    s.0.iter()
                        .map(|step| {
                            at += step.len();
                            at - step.len()..at
                        })
                        .collect(),
                )
            }
        };
        Plan {
            counts: !materials.is_empty() || conds.iter().any(Cond::counts),
            conds,
            steps,
            header,
            header_tests,
            positions: &criteria.positions,
            materials,
            checkmate: criteria.checkmate,
            stalemate: criteria.stalemate,
        }
    }

    /// Whether a test needs the whole position (its hash, the move played
    /// as SAN reads it, how the game ends), not only where the pieces
    /// stand.
    fn needs_position(&self) -> bool {
        !self.positions.is_empty()
            || self.checkmate
            || self.stalemate
            || self.conds.iter().any(Cond::needs_position)
    }

    /// Whether the game's last position, `last`, ends it as the criteria
    /// ask.
    fn ends_as_asked(&self, last: Option<&Position>) -> bool {
        last.is_none_or(|p| {
            (!self.checkmate || p.is_checkmate()) && (!self.stalemate || p.is_stalemate())
        })
    }

    /// The plies of the game from `start` by `bytes` at which the pattern
    /// holds, if the game passes the criteria's positions, material and
    /// ending (`None` if it does not); `plies` counts those read.
    fn walk(
        &self,
        start: &Start,
        bytes: &[u8],
        plies: &mut u64,
    ) -> Result<Option<Vec<u32>>, codec::CodecError> {
        match &self.steps {
            None => self.walk_each(start, bytes, plies),
            Some(steps) => self.walk_steps(steps, start, bytes, plies),
        }
    }

    /// [`Plan::walk`] for one query, every ply at which it holds.
    ///
    /// The moves are read onto a [`Board`] without a move generator; a
    /// [`Position`] is played beside it only for a test that needs one.
    fn walk_each(
        &self,
        start: &Start,
        bytes: &[u8],
        plies: &mut u64,
    ) -> Result<Option<Vec<u32>>, codec::CodecError> {
        let cond = &self.conds[0];
        let per_ply = !cond.query.is_empty();
        let mut found = Vec::new();
        let mut need_position = !self.positions.is_empty();
        let mut need_material = !self.materials.is_empty();
        let need_end = self.checkmate || self.stalemate;
        let mut alive = per_ply;
        let mut reader = Reader::at(start, bytes);
        let mut pos = self.needs_position().then(|| start.position().clone());
        let mut ply = 0;
        let mut sub_fens = cond.sub_fens_match(reader.board());
        // Whether the material tests hold: worked out when it changes.
        let mut material = true;
        loop {
            let board = reader.board();
            // Material changes only at a capture or a promotion (true at
            // the start). A pawn's move (which may leave a pawn a sub-FEN
            // wants behind) is left to the next change: the early exit
            // only comes later.
            if self.counts && board.material_changed() {
                let c = counts_of(board);
                if alive && !cond.may_hold(board, &c) {
                    alive = false;
                    if found.is_empty() {
                        return Ok(None);
                    }
                }
                if need_material && !self.materials.iter().any(|t| may_reach(&c, t)) {
                    return Ok(None);
                }
                if need_material && self.materials.contains(&c) {
                    need_material = false;
                }
                material = cond.material_holds(&c);
            }
            let here = alive && cond.holds_on(board, sub_fens, material);
            if let Some(p) = &pos {
                if need_position && self.positions.iter().any(|t| t.key == p.hash()) {
                    need_position = false;
                }
            }
            let waiting = need_position || need_material || need_end;
            if !here && !alive && !waiting {
                break;
            }
            let m = reader.next_move()?;
            if here && cond.holds_at(pos.as_ref(), m, reader.board().last_move_pieces()) {
                found.push(ply as u32);
            }
            if !alive && !waiting {
                break;
            }
            let Some(m) = m else {
                break;
            };
            if cond.touched_by(m) {
                sub_fens = cond.sub_fens_match(reader.board());
            }
            if let Some(p) = &mut pos {
                p.play_unchecked(m);
            }
            ply += 1;
            *plies += 1;
        }
        if need_position
            || need_material
            || (per_ply && found.is_empty())
            || (need_end && !self.ends_as_asked(pos.as_ref()))
        {
            return Ok(None);
        }
        Ok(Some(found))
    }

    /// [`Plan::walk`] for a sequence: the plies at which its conditions
    /// are met, the earliest way.
    ///
    /// A streak is matched as the shift-and string search matches a
    /// pattern: bit `j` of `run` says the streak's first `j + 1`
    /// conditions held at the plies ending with this one.
    fn walk_steps(
        &self,
        steps: &[Range<usize>],
        start: &Start,
        bytes: &[u8],
        plies: &mut u64,
    ) -> Result<Option<Vec<u32>>, codec::CodecError> {
        let conds = &self.conds;
        let mut found = Vec::new();
        let mut need_position = !self.positions.is_empty();
        let mut need_material = !self.materials.is_empty();
        let need_end = self.checkmate || self.stalemate;
        let mut reader = Reader::at(start, bytes);
        let mut pos = self.needs_position().then(|| start.position().clone());
        let mut sub_fens: Vec<bool> = conds
            .iter()
            .map(|c| c.sub_fens_match(reader.board()))
            .collect();
        let mut material = vec![true; conds.len()];
        let mut step = 0;
        let mut run = 0u64;
        let mut ply = 0u32;
        loop {
            let board = reader.board();
            if self.counts && board.material_changed() {
                let c = counts_of(board);
                if step < steps.len() {
                    // Every condition still to be met must be within reach
                    // (those of a streak under way may have been met).
                    let from = if run == 0 {
                        steps[step].start
                    } else {
                        steps[step].end
                    };
                    if conds[from..].iter().any(|k| !k.may_hold(board, &c)) {
                        return Ok(None);
                    }
                }
                if need_material && !self.materials.iter().any(|t| may_reach(&c, t)) {
                    return Ok(None);
                }
                if need_material && self.materials.contains(&c) {
                    need_material = false;
                }
                for (k, m) in conds.iter().zip(&mut material) {
                    *m = k.material_holds(&c);
                }
            }
            if let Some(p) = &pos {
                if need_position && self.positions.iter().any(|t| t.key == p.hash()) {
                    need_position = false;
                }
            }
            let done = step == steps.len();
            if done && !need_position && !need_material && !need_end {
                break;
            }
            // The conditions of the step under way that hold on the board.
            let mut on = 0u64;
            if !done {
                for (j, i) in steps[step].clone().enumerate() {
                    if conds[i].holds_on(board, sub_fens[i], material[i]) {
                        on |= 1 << j;
                    }
                }
            }
            let m = reader.next_move()?;
            if !done {
                let range = steps[step].clone();
                let last = reader.board().last_move_pieces();
                let mut holds = 0u64;
                for (j, i) in range.clone().enumerate() {
                    if on & 1 << j != 0 && conds[i].holds_at(pos.as_ref(), m, last) {
                        holds |= 1 << j;
                    }
                }
                run = (run << 1 | 1) & holds;
                let len = range.len() as u32;
                if run & 1 << (len - 1) != 0 {
                    found.extend(ply + 1 - len..=ply);
                    step += 1;
                    run = 0;
                }
            }
            let Some(m) = m else {
                break;
            };
            for (i, k) in conds.iter().enumerate() {
                if k.touched_by(m) {
                    sub_fens[i] = k.sub_fens_match(reader.board());
                }
            }
            if let Some(p) = &mut pos {
                p.play_unchecked(m);
            }
            ply += 1;
            *plies += 1;
        }
        if need_position
            || need_material
            || step < steps.len()
            || (need_end && !self.ends_as_asked(pos.as_ref()))
        {
            return Ok(None);
        }
        Ok(Some(found))
    }
}

/// Which games a scan reads: all, or those of a list (the players
/// table's candidates).
enum Ids {
    Range(u64),
    List(Vec<u64>),
}

impl Ids {
    fn blocks(&self) -> usize {
        match self {
            Ids::Range(last) => (*last as usize).div_ceil(BLOCK),
            Ids::List(l) => l.len().div_ceil(BLOCK),
        }
    }
}

impl Database {
    /// The games that pass `criteria` (which must be [`scannable`]) and in
    /// which `pattern` is met, in order of number, each with the plies at
    /// which it is ([`Pattern`]): `found` gets each and returns whether to go on. The
    /// games are read on `jobs` threads (0 or 1: the calling thread),
    /// 4,096 games at a time, and handed to `found` in order on the
    /// calling thread.
    ///
    /// # Errors
    /// [`DbError::Store`]; [`DbError::Damaged`] for a game whose moves or
    /// start position do not read.
    pub fn scan(
        &self,
        criteria: &Criteria,
        pattern: &Pattern,
        jobs: usize,
        found: &mut dyn FnMut(Hit) -> bool,
    ) -> Result<ScanReport, DbError> {
        self.keeps_tags_of(criteria)?;
        let plan = Plan::new(criteria, pattern);
        let ids = match self.games_of_players(criteria)? {
            Some(list) => Ids::List(list),
            None => {
                let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
                let t = txn.open_table(GAMES).map_err(|e| self.fail(e))?;
                let last = t.last().map_err(|e| self.fail(e))?;
                Ids::Range(last.map_or(0, |(k, _)| k.value()))
            }
        };
        let blocks = ids.blocks();
        let mut report = ScanReport::default();
        if jobs <= 1 {
            let mut worker = Worker::new(self, &plan)?;
            for b in 0..blocks {
                let (hits, r) = worker.block(&ids, b)?;
                report.add(&r);
                for h in hits {
                    if !found(h) {
                        return Ok(report);
                    }
                }
            }
            return Ok(report);
        }
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        type Done = (usize, Result<(Vec<Hit>, ScanReport), DbError>);
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel::<Done>();
            for _ in 0..jobs {
                let tx = tx.clone();
                let (plan, ids, next, stop) = (&plan, &ids, &next, &stop);
                scope.spawn(move || {
                    let mut worker = match Worker::new(self, plan) {
                        Ok(w) => w,
                        Err(e) => {
                            let _ = tx.send((next.fetch_add(1, Ordering::Relaxed), Err(e)));
                            stop.store(true, Ordering::Relaxed);
                            return;
                        }
                    };
                    while !stop.load(Ordering::Relaxed) {
                        let b = next.fetch_add(1, Ordering::Relaxed);
                        if b >= blocks {
                            break;
                        }
                        let done = worker.block(ids, b);
                        let failed = done.is_err();
                        if tx.send((b, done)).is_err() || failed {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            // The blocks in order: those done early wait here.
            let mut waiting = BTreeMap::new();
            let mut due = 0;
            let mut outcome = Ok(());
            for (b, done) in rx {
                if outcome.is_err() || stop.load(Ordering::Relaxed) {
                    continue;
                }
                waiting.insert(b, done);
                while let Some(done) = waiting.remove(&due) {
                    due += 1;
                    match done {
                        Err(e) => {
                            outcome = Err(e);
                            stop.store(true, Ordering::Relaxed);
                            break;
                        }
                        Ok((hits, r)) => {
                            report.add(&r);
                            for h in hits {
                                if !found(h) {
                                    stop.store(true, Ordering::Relaxed);
                                    break;
                                }
                            }
                        }
                    }
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
            }
            outcome
        })?;
        Ok(report)
    }
}

/// One thread's reading: its transaction, its tables, the names and start
/// positions it has read.
struct Worker<'d, 'p> {
    db: &'d Database,
    plan: &'p Plan<'p>,
    games: redb::ReadOnlyTable<u64, &'static [u8]>,
    headers: redb::ReadOnlyTable<u64, &'static [u8]>,
    names: redb::ReadOnlyTable<u32, &'static str>,
    name_cache: HashMap<NameId, String>,
    /// The standard start position, made ready once.
    standard: Start,
    /// The other start positions met, by their name.
    starts: HashMap<NameId, Start>,
}

impl<'d, 'p> Worker<'d, 'p> {
    fn new(db: &'d Database, plan: &'p Plan<'p>) -> Result<Worker<'d, 'p>, DbError> {
        let txn = db.store.begin_read().map_err(|e| db.fail(e))?;
        Ok(Worker {
            db,
            plan,
            games: txn.open_table(GAMES).map_err(|e| db.fail(e))?,
            headers: txn.open_table(HEADERS).map_err(|e| db.fail(e))?,
            names: txn.open_table(NAME_OF).map_err(|e| db.fail(e))?,
            name_cache: HashMap::new(),
            standard: Start::new(Position::startpos()),
            starts: HashMap::new(),
        })
    }

    /// The games of block `b` of `ids` that are found.
    fn block(&mut self, ids_of: &Ids, b: usize) -> Result<(Vec<Hit>, ScanReport), DbError> {
        let mut hits = Vec::new();
        let mut report = ScanReport::default();
        let db = self.db;
        let ids: Vec<u64> = match ids_of {
            Ids::Range(last) => {
                let lo = 1 + (b * BLOCK) as u64;
                (lo..=(lo + BLOCK as u64 - 1).min(*last)).collect()
            }
            Ids::List(list) => list[b * BLOCK..((b + 1) * BLOCK).min(list.len())].to_vec(),
        };
        // The block's header records first (read a block of records at a
        // time), then each game's moves.
        let mut records = Vec::with_capacity(ids.len());
        let mut reader = HeaderReader::new(&self.headers, db.header_block);
        for &id in &ids {
            let Some(h) = reader.get(id).map_err(|e| db.fail(e))? else {
                return Err(db.damaged(format!("game {id}: no header record")));
            };
            records.push(h);
        }
        drop(reader);
        let missing = |id: u64| db.damaged(format!("game {id} is not stored"));
        if let (Some(&lo), Some(&hi), true) =
            (ids.first(), ids.last(), matches!(ids_of, Ids::Range(_)))
        {
            // Consecutive games: one walk along the table, not a lookup each.
            let mut rows = self.games.range(lo..=hi).map_err(|e| db.fail(e))?;
            for (&id, header) in ids.iter().zip(records) {
                let (k, v) = rows
                    .next()
                    .ok_or_else(|| missing(id))?
                    .map_err(|e| db.fail(e))?;
                if k.value() != id {
                    return Err(missing(id));
                }
                if let Some(h) = self.game(id, header, v.value(), &mut report)? {
                    hits.push(h);
                }
            }
            return Ok((hits, report));
        }
        for (&id, header) in ids.iter().zip(records) {
            let Some(v) = self.games.get(id).map_err(|e| db.fail(e))? else {
                return Err(missing(id));
            };
            if let Some(h) = self.game(id, header, v.value(), &mut report)? {
                hits.push(h);
            }
        }
        Ok((hits, report))
    }

    /// Name `id`, read once.
    fn name(&mut self, id: NameId) -> Result<String, DbError> {
        if let Some(n) = self.name_cache.get(&id) {
            return Ok(n.clone());
        }
        let n = name_in(&self.names, id).map_err(|e| self.db.fail(e))?;
        self.name_cache.insert(id, n.clone());
        Ok(n)
    }

    /// Game `id` (its stored `bytes`), if it is found.
    fn game(
        &mut self,
        id: u64,
        header: Header,
        moves: &[u8],
        report: &mut ScanReport,
    ) -> Result<Option<Hit>, DbError> {
        report.games += 1;
        let db = self.db;
        if header.start != NO_NAME && !self.starts.contains_key(&header.start) {
            let fen = self.name(header.start)?;
            let p = Position::from_fen(&fen)
                .map_err(|e| db.damaged(format!("game {id}: start {fen:?}: {e}")))?;
            self.starts.insert(header.start, Start::new(p));
        }
        if self.plan.header_tests {
            let plies = if header.plies < Header::MAX_PLIES {
                usize::from(header.plies)
            } else {
                // Longer than the record counts: the moves are counted.
                let mut reader = Reader::at(self.start_of(header.start), moves);
                let mut n = 0;
                while reader
                    .next_move()
                    .map_err(|e| db.damaged(format!("game {id}: {e}")))?
                    .is_some()
                {
                    n += 1;
                }
                n
            };
            if !self.header_passes(&header, plies)? {
                return Ok(None);
            }
        }
        report.decoded += 1;
        let plies = self
            .plan
            .walk(self.start_of(header.start), moves, &mut report.plies)
            .map_err(|e| db.damaged(format!("game {id}: {e}")))?;
        Ok(plies.map(|plies| Hit { id, plies }))
    }

    /// The start position named `name` (one met before: see
    /// [`Worker::game`]).
    #[inline]
    fn start_of(&self, name: NameId) -> &Start {
        if name == NO_NAME {
            &self.standard
        } else {
            &self.starts[&name]
        }
    }

    /// Whether the header passes the criteria's tests on tags, result and
    /// length (`plies`: the mainline's).
    fn header_passes(&mut self, h: &Header, plies: usize) -> Result<bool, DbError> {
        let plan: &'p Plan<'p> = self.plan;
        let failed = RefCell::new(None);
        let me = RefCell::new(self);
        let tag = |t: &str| -> Option<Cow<'static, str>> {
            let mut w = me.borrow_mut();
            match header_tag(h, t, &mut |id| w.name(id)) {
                Ok(v) => v.map(Cow::Owned),
                Err(e) => {
                    *failed.borrow_mut() = Some(e);
                    None
                }
            }
        };
        let verdict = plan.header.judge_summary(tag, h.result(), plies);
        match failed.into_inner() {
            Some(e) => Err(e),
            None => Ok(verdict.unwrap_or(true)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    #[test]
    fn a_sub_fen_matches_the_pieces_it_shows_and_nothing_else() {
        let s: SubFen = "8/8/8/8/4P3/8/8/8".parse().unwrap();
        let after_e4 = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert!(s.matches(&after_e4));
        assert!(!s.matches(&Position::startpos()));
        let whole: SubFen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
            .parse()
            .unwrap();
        assert!(whole.matches(&Position::startpos()));
        assert!(!whole.matches(&after_e4));
        let empty: SubFen = "8/8/8/8/8/8/8/8".parse().unwrap();
        assert!(empty.matches(&after_e4));
    }

    #[test]
    fn bad_sub_fens_imbalances_and_moves_are_named() {
        for bad in [
            "8/8/8",
            "9/8/8/8/8/8/8/8",
            "8/8/8/8/8/8/8/7X",
            "8/8/8/8/8/8/8/ppppppppp",
            "",
        ] {
            let e = bad.parse::<SubFen>().unwrap_err();
            assert!(e.to_string().contains(&format!("{bad:?}")), "{e}");
        }
        for bad in ["vX", "", "KKvK"] {
            let e = bad.parse::<Imbalance>().unwrap_err();
            assert!(matches!(e, ScanError::Imbalance { .. }), "{e}");
        }
        assert!("Zf3".parse::<MovePattern>().is_err());
        assert!(Query::parse_turn("red").is_err());
    }

    #[test]
    fn an_imbalance_is_a_difference_of_counts() {
        let i: Imbalance = "PPvN".parse().unwrap();
        // White: 8 pawns, 1 knight; Black: 6 pawns, 2 knights.
        let p = pos("rnbqkbnr/pp1pp1pp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1");
        assert!(i.holds(&counts_of(&p)));
        assert!(!i.holds(&counts_of(&Position::startpos())));
        let even: Imbalance = "KvK".parse().unwrap();
        assert!(even.holds(&counts_of(&Position::startpos())));
    }

    #[test]
    fn moves_match_modulo_disambiguation() {
        let start = Position::startpos();
        let nf3 = rookery_core::San::from_ascii(b"Nf3")
            .unwrap()
            .to_move(&start)
            .unwrap();
        for (text, want) in [
            ("Nf3", true),
            ("Ngf3", true),
            ("Nbf3", false),
            ("Nxf3", false),
            ("Nf3+", true),
            ("Bf3", false),
        ] {
            assert_eq!(
                text.parse::<MovePattern>().unwrap().matches(&start, nf3),
                want,
                "{text}"
            );
        }
    }

    /// The early exits are sound: from random positions of random games,
    /// a later position that matches a sub-FEN or reaches a material
    /// signature is never one the exit ruled out.
    fn random_game(picks: &[u16]) -> Vec<Position> {
        let mut p = Position::startpos();
        let mut out = vec![p.clone()];
        for &k in picks {
            let legal = p.legal_moves();
            if legal.is_empty() {
                break;
            }
            // Captures and pawn moves often, to reach endings.
            let noisy: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|&m| p.is_capture(m) || p.role_at(m.from()) == Some(Role::Pawn))
                .collect();
            let m = if !noisy.is_empty() && k % 3 != 0 {
                noisy[usize::from(k) % noisy.len()]
            } else {
                legal[usize::from(k) % legal.len()]
            };
            p.play_unchecked(m);
            out.push(p.clone());
        }
        out
    }

    /// A sub-FEN of some of the pieces of `p` (those `mask` picks).
    fn sub_fen_of(p: &Position, mask: u64) -> SubFen {
        let mut rows = Vec::new();
        for rank in (0..8).rev() {
            let mut row = String::new();
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::new(rank * 8 + file);
                match p.piece_at(sq).filter(|_| mask >> sq.index() & 1 == 1) {
                    Some(pc) => {
                        if empty > 0 {
                            row.push_str(&empty.to_string());
                            empty = 0;
                        }
                        row.push(pc.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            rows.push(row);
        }
        rows.join("/").parse().unwrap()
    }

    /// Games of random moves (captures and pawn moves often), as PGN.
    fn random_pgn(seed: u64, n: usize) -> String {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as u16
        };
        let mut out = String::new();
        for g in 0..n {
            let picks: Vec<u16> = (0..(20 + next() % 140)).map(|_| next()).collect();
            let game = random_game(&picks);
            let result = ["1-0", "0-1", "1/2-1/2"][g % 3];
            out.push_str(&format!(
                "[White \"W{}\"]\n[Black \"B\"]\n[Result \"{result}\"]\n\n",
                g % 7
            ));
            for w in game.windows(2) {
                let m = w[0]
                    .legal_moves()
                    .iter()
                    .copied()
                    .find(|&m| w[0].after(m) == w[1])
                    .unwrap();
                out.push_str(&rookery_core::SanPlus::from_move(&w[0], m).to_string());
                out.push(' ');
            }
            out.push_str(result);
            out.push_str("\n\n");
        }
        out
    }

    /// The scan keeps exactly the games the search keeps (each game
    /// written out as PGN and judged by `pgn filter`'s code), for tests on
    /// material and positions with header tests, on one thread and two.
    #[test]
    fn the_scan_keeps_what_the_search_keeps() {
        let t = rookery_testkit::TempDir::new("db-scan-lib");
        let db = Database::open(&t.join("g.rdb")).unwrap();
        let pgn = random_pgn(7, 300);
        let source = rookery_pgn::source::Source::reader(pgn.as_bytes());
        let report = db
            .import(
                vec![("g.pgn".into(), source)],
                Default::default(),
                &mut |_| {},
            )
            .unwrap();
        assert_eq!(report.games, 300);
        let mut kept_some = 0;
        for (materials, positions, players, results) in [
            (&["KQk", "KRkr"][..], &[][..], &[][..], &[][..]),
            (&["KRPPkrp", "KPk", "KRPkr"], &[], &[], &["1-0"]),
            (&["KQRRBBNNPPPPPPPkqrrbbnnppppppp"], &[], &["W3"], &[]),
            (
                &[],
                &["rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"],
                &[],
                &[],
            ),
            (
                &["KQRRBBNNPPPPPPkqrrbbnnpppppp"],
                &["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"],
                &[],
                &["0-1", "1/2-1/2"],
            ),
        ] {
            let text = rookery_pgn::filter::CriteriaText {
                materials: materials.iter().map(|s| s.to_string()).collect(),
                positions: positions.iter().map(|s| s.to_string()).collect(),
                players: players.iter().map(|s| s.to_string()).collect(),
                results: results.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            };
            let c = text.criteria().unwrap();
            let mut searched = Vec::new();
            db.search(&c, &mut |f| {
                searched.push(f.id);
                true
            })
            .unwrap();
            for jobs in [1, 2] {
                let mut scanned = Vec::new();
                db.scan(&c, &Query::default().into(), jobs, &mut |h| {
                    assert!(h.plies.is_empty());
                    scanned.push(h.id);
                    true
                })
                .unwrap();
                assert_eq!(scanned, searched, "{text:?}");
            }
            kept_some += usize::from(!searched.is_empty());
        }
        assert!(kept_some >= 4, "{kept_some}");
        // A query: its plies are those where it holds, tested here on the
        // positions replayed.
        let mut q = Query::default();
        q.imbalances.push("vP".parse().unwrap());
        q.turn = Some(Color::Black);
        let mut hits = Vec::new();
        db.scan(&Criteria::default(), &q.into(), 2, &mut |h| {
            hits.push(h);
            true
        })
        .unwrap();
        assert!(!hits.is_empty());
        let mut all = 0;
        db.for_each(&mut |g| {
            let mut pos = g.start.clone();
            let mut plies = Vec::new();
            for ply in 0..=g.moves.len() {
                let c = counts_of(&pos);
                if pos.turn() == Color::Black
                    && (0..5).all(|i| c[0][i] as i8 - c[1][i] as i8 == [0, 0, 0, 0, -1][i])
                {
                    plies.push(ply as u32);
                }
                if let Some(&m) = g.moves.get(ply) {
                    pos.play_unchecked(m);
                }
            }
            if !plies.is_empty() {
                assert_eq!(hits[all], Hit { id: g.id, plies });
                all += 1;
            }
            Ok(true)
        })
        .unwrap();
        assert_eq!(all, hits.len());
    }

    proptest! {
        #[test]
        fn early_exits_never_rule_out_a_later_match(
            picks in prop::collection::vec(any::<u16>(), 0..160),
            mask in any::<u64>(),
            at in any::<prop::sample::Index>(),
        ) {
            let game = random_game(&picks);
            let later = at.index(game.len());
            let target = &game[later];
            let s = sub_fen_of(target, mask);
            let m = Material::of(target);
            let least = counts_of_signature(&m);
            prop_assert!(s.matches(target));
            for p in &game[..=later] {
                let c = counts_of(p);
                prop_assert!(s.may_match(p, &c));
                prop_assert!(may_reach(&c, &least));
            }
        }
    }
}
