//! Moves at about one byte a ply, read back without generating moves.
//!
//! A game is stored as bytes from its start position. When neither side
//! starts with more than [`SLOTS`] pieces (every game of chess, and every
//! legal setup), a move is written by the piece that makes it, as Scid
//! writes games: each side's pieces are numbered once, at the start, in
//! the order of their squares (a1 = 0 .. h8 = 63), a piece keeps its
//! number to the end (a promoted pawn keeps the pawn's; a captured
//! piece's number is not given again), and a move is one byte, the
//! piece's number in the high four bits and in the low four what it
//! does:
//!
//! | piece | codes |
//! |---|---|
//! | pawn | 0 one square on, 1 two squares on, 2 a capture toward the a-file, 3 toward the h-file (en passant if the square is empty), 4..15 a promotion: `4 + 4 * way + role` (way: 0 on, 1 toward a, 2 toward h; role: 0 knight, 1 bishop, 2 rook, 3 queen) |
//! | knight | 0..7 its jumps: (+1,+2) (+2,+1) (+2,−1) (+1,−2) (−1,−2) (−2,−1) (−2,+1) (−1,+2) as (files, ranks) |
//! | bishop | 0..7 the file it goes to on the diagonal rising toward h; 8..15 eight plus the file on the other diagonal |
//! | rook | 0..7 the file it goes to on its rank; 8..15 eight plus the rank it goes to on its file |
//! | queen | as a rook; the code of its own file (a move to where it stands) says a diagonal move, whose square (0..63) is the next byte |
//! | king | 0..7 a step: (0,+1) (+1,+1) (+1,0) (+1,−1) (0,−1) (−1,−1) (−1,0) (−1,+1); 8..15 castling with the rook on file `code − 8` of its rank (so Chess960 needs nothing more); the code of its own file, a null move (PGN's `--`, ChessBase's `Z0`) |
//!
//! Only a queen's diagonal move takes two bytes (about 1.04 bytes a ply
//! over lichess-shaped games). A reader needs no move generator: it keeps
//! where each numbered piece stands ([`Board`]) and moves it, which is
//! what makes a scan of every ply of a million games a matter of seconds.
//!
//! A start position with more than [`SLOTS`] pieces on a side (only a
//! setup that cannot arise in a game) is written the other way: each move
//! as its index among the position's legal moves in a fixed order (by the
//! from square, the to square, then the promotion: none, knight, bishop,
//! rook, queen), one byte a ply (255, past the most legal moves a
//! position has, a null move), read back by generating the legal moves.
//! Which way a game was written is known from its start position alone.
//!
//! ```
//! use rookery_core::{Position, UciMove};
//! use rookery_db::codec;
//!
//! let start = Position::startpos();
//! let moves: Vec<_> = ["e2e4", "e7e5", "d1h5"]
//!     .iter()
//!     .scan(start.clone(), |pos, u| {
//!         let m = u.parse::<UciMove>().unwrap().to_move(pos).unwrap();
//!         pos.play_unchecked(m);
//!         Some(m)
//!     })
//!     .collect();
//! let bytes = codec::encode_line(&start, &moves).unwrap();
//! assert_eq!(bytes.len(), 4); // Qh5 is a queen's diagonal move: two bytes
//! assert_eq!(codec::decode_line(&start, &bytes).unwrap(), moves);
//! ```

use rookery_core::{Bitboard, Color, Move, MoveKind, Position, Role, Square};

/// A stored line that does not replay: the byte at `byte_at` (from 0), of
/// move `ply` (from 0), is not a legal move of its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("stored move {ply} (byte {byte}) is not a legal move")]
pub struct CodecError {
    /// The ply, from 0.
    pub ply: usize,
    /// The byte.
    pub byte: u8,
}

/// The most pieces a side may start with for moves to be written by the
/// piece that makes them (four bits of a byte number them).
pub const SLOTS: usize = 16;

/// No piece on a square; no square for a piece.
const NONE: u8 = 0xFF;

/// A knight's jumps, by code: (files, ranks). The stored format's own
/// order, kept here and not taken from rookery-core's attack tables
/// (whose order is theirs to change).
const JUMPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// A king's steps, by code: (files, ranks).
const STEPS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// The promotions, by the low two bits of a pawn's code above 3.
const PROMOTIONS: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// Whether the games from `start` are written by the piece that moves
/// (each side has at most [`SLOTS`] pieces), not by legal-move index.
pub fn by_piece(start: &Position) -> bool {
    start.by_color(Color::White).count() as usize <= SLOTS
        && start.by_color(Color::Black).count() as usize <= SLOTS
}

/// The square `files` and `ranks` away from `sq`, if on the board.
#[inline]
fn offset(sq: usize, files: i8, ranks: i8) -> Option<usize> {
    let f = (sq & 7) as i8 + files;
    let r = (sq >> 3) as i8 + ranks;
    ((0..8).contains(&f) && (0..8).contains(&r)).then_some((r * 8 + f) as usize)
}

/// In [`TARGETS`]: no such move.
const NO_MOVE: u8 = 0xFF;

/// In [`TARGETS`]: a move read the long way ([`Board::decode_special`]):
/// a pawn's capture (en passant?) or promotion, castling, a queen's
/// diagonal move.
const SPECIAL: u8 = 0xFE;

/// The square each code of each piece goes to from each square, for the
/// plain moves (a step, a jump, a slide, a pawn's push), so that reading
/// one is a load, not a branch on the piece: indexed by the role (a
/// black pawn apart, at 6), the code and the from square.
static TARGETS: [[[u8; 64]; 16]; 7] = targets();

/// [`TARGETS`], worked out.
const fn targets() -> [[[u8; 64]; 16]; 7] {
    let mut t = [[[NO_MOVE; 64]; 16]; 7];
    let mut from = 0;
    while from < 64 {
        let (f, r) = ((from & 7) as i8, (from >> 3) as i8);
        let mut code = 0;
        while code < 16 {
            let c = code as i8;
            // (files, ranks) of the move for each kind, or None.
            let mut kind = 0;
            while kind < 7 {
                let on: i8 = if kind == 6 { -1 } else { 1 };
                let step: Option<(i8, i8)> = match kind {
                    0 | 6 => match code {
                        0 => Some((0, on)),
                        1 => Some((0, 2 * on)),
                        _ => None,
                    },
                    1 if code < 8 => Some(JUMPS[code]),
                    2 if (c & 7) != f => {
                        let df = (c & 7) - f;
                        Some((df, if code < 8 { df } else { -df }))
                    }
                    3 | 4 if code < 8 && c != f => Some((c - f, 0)),
                    3 | 4 if code >= 8 && c - 8 != r => Some((0, c - 8 - r)),
                    5 if code < 8 => Some(STEPS[code]),
                    _ => None,
                };
                let special = match kind {
                    0 | 6 => code >= 2,
                    4 => c == f,
                    5 => code >= 8,
                    _ => false,
                };
                if special {
                    t[kind][code][from] = SPECIAL;
                } else if let Some((df, dr)) = step {
                    let (tf, tr) = (f + df, r + dr);
                    if tf >= 0 && tf < 8 && tr >= 0 && tr < 8 {
                        t[kind][code][from] = (tr * 8 + tf) as u8;
                    }
                }
                kind += 1;
            }
            code += 1;
        }
        from += 1;
    }
    t
}

/// The pieces of a position and the numbers they were given at the start:
/// all a reader of stored moves keeps. It plays moves without asking
/// whether they are legal (a stored game's are), and answers what a scan
/// asks of a position: the pieces of each kind and the side to move.
#[derive(Clone, Debug)]
pub struct Board {
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 6],
    /// The role (its index) of the piece on each square, [`NONE`] if empty.
    role: [u8; 64],
    /// The number of the piece on each square.
    slot: [u8; 64],
    /// The square of each side's numbered pieces, [`NONE`] once captured.
    square: [[u8; SLOTS]; 2],
    turn: Color,
    /// Whether the last move played took a piece or promoted a pawn.
    changed: bool,
    /// The role (index) of the piece the last move moved, [`NONE`]
    /// before any move (a king's, for castling).
    moved: u8,
    /// The role (index) of the piece the last move took, [`NONE`] if none.
    taken: u8,
}

impl Board {
    /// The pieces of `pos`, each side's numbered in the order of their
    /// squares (past [`SLOTS`], unnumbered).
    pub fn new(pos: &Position) -> Board {
        let mut b = Board {
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 6],
            role: [NONE; 64],
            slot: [NONE; 64],
            square: [[NONE; SLOTS]; 2],
            turn: pos.turn(),
            changed: true,
            moved: NONE,
            taken: NONE,
        };
        for color in [Color::White, Color::Black] {
            for (n, sq) in pos.by_color(color).enumerate() {
                let role = pos.role_at(sq).unwrap_or(Role::Pawn);
                let slot = if n < SLOTS { n as u8 } else { NONE };
                b.put(color, role.index() as u8, slot, sq.index());
            }
        }
        b
    }

    /// The pieces of `color` and `role`.
    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        Bitboard(self.by_color[color.index()].0 & self.by_role[role.index()].0)
    }

    /// The pieces of `color`.
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The kind of piece the last move played moved (the king, for
    /// castling) and the kind it took, if any; `None` before any move.
    #[inline]
    pub fn last_move_pieces(&self) -> Option<(Role, Option<Role>)> {
        let moved = Role::from_index(usize::from(self.moved))?;
        Some((moved, Role::from_index(usize::from(self.taken))))
    }

    /// Whether the last move played changed the material (took a piece
    /// or promoted a pawn); true before any move.
    #[inline]
    pub fn material_changed(&self) -> bool {
        self.changed
    }

    #[inline]
    fn color_at(&self, sq: usize) -> usize {
        usize::from(!self.by_color[0].contains(Square::new(sq as u32)))
    }

    /// Takes the piece on `sq` (there is one) off the board.
    #[inline]
    fn lift(&mut self, sq: usize) {
        let color = self.color_at(sq);
        let role = usize::from(self.role[sq]);
        let bit = 1u64 << sq;
        self.by_color[color].0 &= !bit;
        self.by_role[role].0 &= !bit;
        let slot = self.slot[sq];
        if slot != NONE {
            self.square[color][usize::from(slot)] = NONE;
        }
        self.role[sq] = NONE;
        self.slot[sq] = NONE;
    }

    /// Puts a piece on the empty square `sq`.
    #[inline]
    fn put(&mut self, color: Color, role: u8, slot: u8, sq: usize) {
        let bit = 1u64 << sq;
        self.by_color[color.index()].0 |= bit;
        self.by_role[usize::from(role)].0 |= bit;
        self.role[sq] = role;
        self.slot[sq] = slot;
        if slot != NONE {
            self.square[color.index()][usize::from(slot)] = sq as u8;
        }
    }

    /// Plays `m`, a move of the side to move (not checked).
    #[inline]
    pub fn play(&mut self, m: Move) {
        let us = self.turn;
        let from = m.from().index();
        let to = m.to().index();
        if m.is_null() {
            self.turn = !us;
            self.changed = false;
            (self.moved, self.taken) = (NONE, NONE);
            return;
        }
        if self.role[from] == NONE {
            // Nothing to move (a damaged line): only the turn passes.
            self.turn = !us;
            return;
        }
        if m.is_castle() {
            let base = from & !7;
            let (king_to, rook_to) = if to > from {
                (base + 6, base + 5)
            } else {
                (base + 2, base + 3)
            };
            let (king, rook) = (self.slot[from], self.slot[to]);
            let rook_role = self.role[to];
            self.lift(from);
            if rook_role != NONE {
                self.lift(to);
            }
            for sq in [king_to, rook_to] {
                if self.role[sq] != NONE {
                    self.lift(sq);
                }
            }
            self.put(us, Role::King.index() as u8, king, king_to);
            if rook_role != NONE {
                self.put(us, rook_role, rook, rook_to);
            }
            self.changed = false;
            (self.moved, self.taken) = (Role::King.index() as u8, NONE);
        } else if self.role[to] == NONE && !m.is_en_passant() && !m.is_promotion() {
            // The common case, a move to an empty square: the piece's
            // bits flip, its number goes with it.
            let moving = self.role[from];
            let bits = 1u64 << from | 1u64 << to;
            self.by_color[us.index()].0 ^= bits;
            self.by_role[usize::from(moving)].0 ^= bits;
            let slot = self.slot[from];
            self.role[to] = moving;
            self.slot[to] = slot;
            self.role[from] = NONE;
            self.slot[from] = NONE;
            if slot != NONE {
                self.square[us.index()][usize::from(slot)] = to as u8;
            }
            self.changed = false;
            (self.moved, self.taken) = (moving, NONE);
        } else {
            let moving = self.role[from];
            let taken = if m.is_en_passant() {
                (from & !7) | (to & 7)
            } else {
                to
            };
            let capture = self.role[taken] != NONE;
            self.taken = self.role[taken];
            self.moved = moving;
            if capture {
                self.lift(taken);
            }
            if self.role[to] != NONE {
                self.lift(to);
            }
            let slot = self.slot[from];
            self.lift(from);
            let role = m.promotion().map_or(moving, |r| r.index() as u8);
            self.put(us, role, slot, to);
            self.changed = capture || m.is_promotion();
        }
        self.turn = !us;
    }

    /// The bytes of `m` (a legal move of the side to move), the second
    /// only for a queen's diagonal move; `None` if the moving piece has
    /// no number or `m` is not a move its piece makes.
    pub fn encode(&self, m: Move) -> Option<(u8, Option<u8>)> {
        if m.is_null() {
            // The king "castling" with itself.
            let king = self.pieces(self.turn, Role::King).first()?.index();
            let slot = self.slot[king];
            return (slot != NONE).then_some((slot << 4 | (8 + (king & 7) as u8), None));
        }
        let from = m.from().index();
        let to = m.to().index();
        if self.role[from] == NONE || self.color_at(from) != self.turn.index() {
            return None;
        }
        let slot = self.slot[from];
        if slot == NONE {
            return None;
        }
        let (ff, fr) = ((from & 7) as i8, (from >> 3) as i8);
        let (tf, tr) = ((to & 7) as i8, (to >> 3) as i8);
        let (df, dr) = (tf - ff, tr - fr);
        let role = Role::from_index(usize::from(self.role[from]))?;
        let mut second = None;
        let code = match role {
            _ if m.is_castle() => {
                if role != Role::King || dr != 0 {
                    return None;
                }
                8 + tf as u8
            }
            Role::Pawn => {
                let on = if self.turn == Color::White { dr } else { -dr };
                let way = match (df, on) {
                    (0, 1) => 0,
                    (0, 2) if m.promotion().is_none() => return Some((slot << 4 | 1, None)),
                    (-1, 1) => 1,
                    (1, 1) => 2,
                    _ => return None,
                };
                match m.promotion() {
                    None if way == 0 => 0,
                    None => way + 1,
                    Some(p) => 4 + 4 * way + PROMOTIONS.iter().position(|&r| r == p)? as u8,
                }
            }
            Role::Knight => JUMPS.iter().position(|&j| j == (df, dr))? as u8,
            Role::King => STEPS.iter().position(|&s| s == (df, dr))? as u8,
            Role::Bishop if df != 0 && dr == df => tf as u8,
            Role::Bishop if df != 0 && dr == -df => 8 + tf as u8,
            Role::Rook | Role::Queen if dr == 0 && df != 0 => tf as u8,
            Role::Rook | Role::Queen if df == 0 && dr != 0 => 8 + tr as u8,
            Role::Queen if df != 0 && (dr == df || dr == -df) => {
                second = Some(to as u8);
                ff as u8
            }
            _ => return None,
        };
        if m.promotion().is_some() != (role == Role::Pawn && code >= 4) {
            return None;
        }
        Some((slot << 4 | code, second))
    }

    /// The move of the bytes at the start of `bytes` and how many of them
    /// it takes; `None` if they are not a move of a piece of the side to
    /// move to a square on the board not its own.
    #[inline]
    pub fn decode(&self, bytes: &[u8]) -> Option<(Move, usize)> {
        let b = *bytes.first()?;
        let us = self.turn.index();
        let from = self.square[us][usize::from(b >> 4)];
        if from == NONE {
            return None;
        }
        let role = self.role[usize::from(from)];
        let kind = if role == 0 && us == 1 {
            6
        } else {
            usize::from(role)
        };
        let to = TARGETS[kind][usize::from(b & 15)][usize::from(from)];
        if to < 64 {
            if self.role[usize::from(to)] != NONE && self.color_at(usize::from(to)) == us {
                return None;
            }
            let m = Move::normal(Square::new(u32::from(from)), Square::new(u32::from(to)));
            return Some((m, 1));
        }
        if to == NO_MOVE {
            return None;
        }
        self.decode_special(bytes)
    }

    /// Reads and plays `byte` if it is a plain move (a step, a jump, a
    /// slide or a push: no castling, promotion or pawn's capture) to an
    /// empty square or onto a piece of the other side; `None` leaves the
    /// board as it was, for [`Board::decode`] and [`Board::play`]. The
    /// scan's inner loop: a table load, no branch on the kind of piece.
    #[inline]
    fn step(&mut self, byte: u8) -> Option<Move> {
        let us = self.turn.index();
        let slot = usize::from(byte >> 4);
        let from = self.square[us][slot];
        if from == NONE {
            return None;
        }
        let from = usize::from(from);
        let moving = self.role[from];
        let kind = if moving == 0 && us == 1 {
            6
        } else {
            usize::from(moving)
        };
        let to = TARGETS[kind][usize::from(byte & 15)][from];
        if to >= 64 {
            return None;
        }
        let to = usize::from(to);
        let taken = self.role[to];
        let changed = taken != NONE;
        (self.moved, self.taken) = (moving, taken);
        if changed {
            if self.color_at(to) == us {
                return None;
            }
            self.lift(to);
        }
        let bits = 1u64 << from | 1u64 << to;
        self.by_color[us].0 ^= bits;
        self.by_role[usize::from(moving)].0 ^= bits;
        self.role[to] = moving;
        self.slot[to] = slot as u8;
        self.role[from] = NONE;
        self.slot[from] = NONE;
        self.square[us][slot] = to as u8;
        self.changed = changed;
        self.turn = !self.turn;
        Some(Move::normal(
            Square::new(from as u32),
            Square::new(to as u32),
        ))
    }

    /// [`Board::decode`] of a move the table leaves to be worked out.
    #[cold]
    fn decode_special(&self, bytes: &[u8]) -> Option<(Move, usize)> {
        let b = *bytes.first()?;
        let us = self.turn.index();
        let from = self.square[us][usize::from(b >> 4)];
        if from == NONE {
            return None;
        }
        let from = usize::from(from);
        let code = b & 15;
        let (ff, fr) = ((from & 7) as i8, (from >> 3) as i8);
        let mut kind = MoveKind::Normal;
        let mut used = 1;
        let to = match self.role[from] {
            0 => {
                // A pawn.
                let on: i8 = if us == 0 { 1 } else { -1 };
                let (df, dr) = match code {
                    0 => (0, on),
                    1 => (0, 2 * on),
                    2 => (-1, on),
                    3 => (1, on),
                    c => {
                        let c = c - 4;
                        kind = MoveKind::Promotion(PROMOTIONS[usize::from(c & 3)]);
                        ([0, -1, 1][usize::from(c >> 2)], on)
                    }
                };
                let to = offset(from, df, dr)?;
                if df != 0 && self.role[to] == NONE && kind == MoveKind::Normal {
                    kind = MoveKind::EnPassant;
                }
                to
            }
            1 => {
                let (df, dr) = *JUMPS.get(usize::from(code))?;
                offset(from, df, dr)?
            }
            2 => {
                let tf = (code & 7) as i8;
                let dr = if code < 8 { tf - ff } else { ff - tf };
                if tf == ff {
                    return None;
                }
                offset(from, tf - ff, dr)?
            }
            3 | 4 if code < 8 && code as i8 != ff => (from & !7) | usize::from(code),
            3 | 4 if code >= 8 && (code - 8) as i8 != fr => usize::from(code - 8) << 3 | (from & 7),
            4 if code as i8 == ff => {
                // A queen's diagonal move: the square follows.
                let to = usize::from(*bytes.get(1)?);
                let (df, dr) = ((to & 7) as i8 - ff, (to >> 3) as i8 - fr);
                if to >= 64 || df == 0 || (df != dr && df != -dr) {
                    return None;
                }
                used = 2;
                to
            }
            5 if code < 8 => {
                let (df, dr) = STEPS[usize::from(code)];
                offset(from, df, dr)?
            }
            5 => {
                let rook = (from & !7) | usize::from(code - 8);
                if rook == from {
                    return Some((Move::NULL, 1));
                }
                if self.role[rook] != Role::Rook.index() as u8 || self.color_at(rook) != us {
                    return None;
                }
                kind = MoveKind::Castle;
                rook
            }
            _ => return None,
        };
        if kind != MoveKind::Castle && self.role[to] != NONE && self.color_at(to) == us {
            return None;
        }
        let m = Move::new(Square::new(from as u32), Square::new(to as u32), kind);
        Some((m, used))
    }
}

/// A stored line read a move at a time, the position kept as a [`Board`]
/// (and, for a line written by legal-move index, as a [`Position`] too).
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    ply: usize,
    board: Board,
    /// The position, for a line written by legal-move index.
    by_index: Option<Position>,
}

/// A start position made ready for reading lines from it: its [`Board`]
/// built once for every game that starts there.
#[derive(Clone, Debug)]
pub struct Start {
    position: Position,
    board: Board,
    by_piece: bool,
}

impl Start {
    /// The lines from `position`.
    pub fn new(position: Position) -> Start {
        Start {
            board: Board::new(&position),
            by_piece: by_piece(&position),
            position,
        }
    }

    /// The start position.
    pub fn position(&self) -> &Position {
        &self.position
    }
}

impl<'a> Reader<'a> {
    /// The line `bytes` written from `start`.
    pub fn new(start: &Position, bytes: &'a [u8]) -> Reader<'a> {
        Reader::at(&Start::new(start.clone()), bytes)
    }

    /// The line `bytes` written from `start`, its board copied.
    #[inline]
    pub fn at(start: &Start, bytes: &'a [u8]) -> Reader<'a> {
        Reader {
            bytes,
            at: 0,
            ply: 0,
            board: start.board.clone(),
            by_index: (!start.by_piece).then(|| start.position.clone()),
        }
    }

    /// The position reached (before the next move).
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The next move, played on the board; `None` at the end of the line.
    ///
    /// # Errors
    /// [`CodecError`] at bytes that are not a move (a damaged line).
    #[inline]
    pub fn next_move(&mut self) -> Result<Option<Move>, CodecError> {
        let Some(&byte) = self.bytes.get(self.at) else {
            return Ok(None);
        };
        let error = CodecError {
            ply: self.ply,
            byte,
        };
        let m = match &mut self.by_index {
            None => {
                if let Some(m) = self.board.step(byte) {
                    self.at += 1;
                    self.ply += 1;
                    return Ok(Some(m));
                }
                let (m, used) = self.board.decode(&self.bytes[self.at..]).ok_or(error)?;
                self.at += used;
                m
            }
            Some(pos) => {
                let m = index::decode(pos, byte).ok_or(error)?;
                pos.play_unchecked(m);
                self.at += 1;
                m
            }
        };
        self.board.play(m);
        self.ply += 1;
        Ok(Some(m))
    }
}

/// The bytes of `moves` played from `start`; `None` at a move that is not
/// legal where it is played.
pub fn encode_line(start: &Position, moves: &[Move]) -> Option<Vec<u8>> {
    encode(start, moves, true)
}

/// [`encode_line`] of moves known to be legal, each where it is played (a
/// game the PGN reader read without an error: it resolved every move
/// against its position), not checked again: a game written by the
/// piece that moves then needs no position beside the board, and no
/// move generation (an import spent 12% of its time checking its moves
/// again). A move that is not legal gives `None` or bytes that do not read
/// back.
pub fn encode_line_unchecked(start: &Position, moves: &[Move]) -> Option<Vec<u8>> {
    encode(start, moves, false)
}

/// [`encode_line`], each move checked to be legal if `check`.
fn encode(start: &Position, moves: &[Move], check: bool) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(moves.len() + moves.len() / 16);
    if !by_piece(start) {
        // The index among the legal moves generates them: checked anyway.
        let mut pos = start.clone();
        for &m in moves {
            out.push(index::encode(&pos, m)?);
            pos.play_unchecked(m);
        }
        return Some(out);
    }
    let mut pos = check.then(|| start.clone());
    let mut board = Board::new(start);
    for &m in moves {
        if let Some(pos) = &mut pos {
            if !m.is_null() && !pos.is_legal(m) {
                return None;
            }
            pos.play_unchecked(m);
        }
        let (first, second) = board.encode(m)?;
        out.push(first);
        out.extend(second);
        board.play(m);
    }
    Some(out)
}

/// The moves of `bytes` played from `start`, each checked to be legal.
///
/// # Errors
/// [`CodecError`] at the first move that is not a legal move's bytes.
pub fn decode_line(start: &Position, bytes: &[u8]) -> Result<Vec<Move>, CodecError> {
    let mut reader = Reader::new(start, bytes);
    let mut pos = start.clone();
    let mut out = Vec::with_capacity(bytes.len());
    loop {
        let (ply, byte) = (reader.ply, reader.bytes.get(reader.at).copied());
        let Some(m) = reader.next_move()? else {
            return Ok(out);
        };
        if !m.is_null() && !pos.is_legal(m) {
            return Err(CodecError {
                ply,
                byte: byte.unwrap_or(0),
            });
        }
        pos.play_unchecked(m);
        out.push(m);
    }
}

/// Moves by their index among the legal moves in a fixed order, for a
/// start position with more pieces on a side than can be numbered (and
/// the way layout 5 wrote every game).
pub mod index {
    use rookery_core::{Move, Position, Role};

    /// A move's place in the canonical order.
    pub(super) fn rank(m: Move) -> u32 {
        let promotion = match m.promotion() {
            None => 0,
            Some(Role::Knight) => 1,
            Some(Role::Bishop) => 2,
            Some(Role::Rook) => 3,
            Some(_) => 4,
        };
        (m.from().index() as u32) << 9 | (m.to().index() as u32) << 3 | promotion
    }

    /// The byte of `m` in `pos`; `None` if `m` is not legal there.
    pub fn encode(pos: &Position, m: Move) -> Option<u8> {
        if m.is_null() {
            return Some(NULL_MOVE);
        }
        let legal = pos.legal_moves();
        if !legal.contains(m) {
            return None;
        }
        let r = rank(m);
        let below = legal.iter().filter(|&&o| rank(o) < r).count();
        u8::try_from(below).ok().filter(|&b| b != NULL_MOVE)
    }

    /// The byte of a null move: no position has 256 legal moves (218 is
    /// the most).
    pub const NULL_MOVE: u8 = 255;

    /// The move of byte `b` in `pos`; `None` if there are not that many legal
    /// moves.
    ///
    /// A scan decodes every ply of every game, so this is its inner loop: the
    /// legal moves are generated once (on the stack), counted by their from
    /// square, and only the moves of the one square the byte falls in are
    /// put in order (the order is by from square first).
    pub fn decode(pos: &Position, b: u8) -> Option<Move> {
        if b == NULL_MOVE {
            return Some(Move::NULL);
        }
        let legal = pos.legal_moves();
        if usize::from(b) >= legal.len() {
            return None;
        }
        let mut per_from = [0u8; 64];
        for m in legal.iter() {
            per_from[m.from().index()] += 1;
        }
        let mut left = b;
        let mut from = None;
        // Every move starts on a square of the side to move, in rising order.
        for sq in pos.by_color(pos.turn()) {
            let n = per_from[sq.index()];
            if left < n {
                from = Some(sq);
                break;
            }
            left -= n;
        }
        let from = from?;
        // A piece has at most 27 moves (a queen); a pawn 12 (three squares,
        // four promotions each).
        let mut keys = [0u32; FROM_ONE_SQUARE];
        let mut k = 0;
        for &m in legal.iter().filter(|m| m.from() == from) {
            *keys.get_mut(k)? = rank(m) << 16 | u32::from(m.to_u16());
            k += 1;
        }
        let keys = &mut keys[..k];
        keys.sort_unstable();
        keys.get(usize::from(left))
            .map(|&key| Move::from_u16(key as u16))
    }

    /// More moves than any piece has from one square.
    const FROM_ONE_SQUARE: usize = 32;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Positions where every kind of move is legal somewhere: castling
    /// both ways (in Chess960 too, with the king or rook already on its
    /// square), en passant, promotions with and without a capture, queens
    /// on open diagonals, and more than [`SLOTS`] pieces on a side.
    const FENS: [&str; 9] = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 2",
        "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
        "rk5r/8/8/8/8/8/8/RK5R b HAha - 0 1",
        "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
        "R6R/3Q4/1Q4Q1/4Q2N/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
    ];

    fn start(i: usize) -> Position {
        match i % 13 {
            0..=3 => Position::startpos(),
            k @ 4..=12 if k - 4 < FENS.len() => Position::from_fen(FENS[k - 4]).unwrap(),
            _ => unreachable!(),
        }
    }

    /// The board the reader keeps is the position's, kind by kind.
    fn assert_same(board: &Board, pos: &Position) {
        assert_eq!(board.turn(), pos.turn());
        for color in [Color::White, Color::Black] {
            for role in Role::ALL {
                assert_eq!(board.pieces(color, role), pos.pieces(color, role));
            }
        }
    }

    /// A random game from `start`: each ply a legal move picked by `picks`.
    fn random_game(start: &Position, picks: &[u16]) -> Vec<Move> {
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for &p in picks {
            let legal: Vec<Move> = pos.legal_moves().iter().copied().collect();
            if legal.is_empty() {
                break;
            }
            // Prefer the rare kinds, so that every game has some.
            let special: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|m| m.is_castle() || m.is_en_passant() || m.is_promotion())
                .collect();
            let m = if !special.is_empty() && p % 3 == 0 {
                special[usize::from(p) % special.len()]
            } else {
                legal[usize::from(p) % legal.len()]
            };
            moves.push(m);
            pos.play_unchecked(m);
        }
        moves
    }

    proptest! {
        /// Random games (from the start, from Chess960 positions and from
        /// positions rich in castling, en passant and promotions) read
        /// back the same, and the reader's board is the position at every
        /// ply.
        #[test]
        fn random_games_round_trip(
            which in 0usize..13,
            chess960 in 0u32..960,
            picks in prop::collection::vec(any::<u16>(), 0..300),
        ) {
            let start = if which == 3 { Position::chess960(chess960).unwrap() } else { start(which) };
            let moves = random_game(&start, &picks);
            let bytes = encode_line(&start, &moves).unwrap();
            prop_assert_eq!(encode_line_unchecked(&start, &moves), Some(bytes.clone()));
            prop_assert!(bytes.len() >= moves.len());
            prop_assert_eq!(decode_line(&start, &bytes).unwrap(), moves.clone());
            let mut reader = Reader::new(&start, &bytes);
            let mut pos = start.clone();
            assert_same(reader.board(), &pos);
            for &m in &moves {
                prop_assert_eq!(reader.next_move().unwrap(), Some(m));
                let material = |p: &Position| Role::ALL.map(|r| [Color::White, Color::Black].map(|c| p.pieces(c, r).count()));
                let before = material(&pos);
                let moved = pos.role_at(m.from()).unwrap();
                let taken = if m.is_castle() { None } else { pos.captured_role(m) };
                pos.play_unchecked(m);
                prop_assert_eq!(reader.board().last_move_pieces(), Some((moved, taken)));
                assert_same(reader.board(), &pos);
                prop_assert_eq!(reader.board().material_changed(), material(&pos) != before);
            }
            prop_assert_eq!(reader.next_move().unwrap(), None);
        }

        /// Bytes that are no stored game never panic a reader: they read
        /// as moves or as an error, and `decode_line` returns only legal
        /// moves.
        #[test]
        fn any_bytes_read_without_panic(which in 0usize..13, bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let start = start(which);
            let mut reader = Reader::new(&start, &bytes);
            for _ in 0..bytes.len() {
                if !matches!(reader.next_move(), Ok(Some(_))) {
                    break;
                }
            }
            if let Ok(moves) = decode_line(&start, &bytes) {
                let mut pos = start.clone();
                for m in moves {
                    prop_assert!(pos.play(m).is_ok());
                }
            }
        }
    }

    #[test]
    fn every_legal_move_has_its_own_bytes_and_reads_back() {
        for fen in FENS {
            let pos = Position::from_fen(fen).unwrap();
            let legal: Vec<Move> = pos.legal_moves().iter().copied().collect();
            let mut seen = std::collections::HashSet::new();
            for &m in &legal {
                let bytes = encode_line(&pos, &[m]).unwrap();
                assert_eq!(encode_line_unchecked(&pos, &[m]), Some(bytes.clone()));
                assert!(seen.insert(bytes.clone()), "{fen}: {m:?} shares {bytes:?}");
                assert_eq!(decode_line(&pos, &bytes).unwrap(), vec![m], "{fen}");
                if by_piece(&pos) {
                    let two = matches!(pos.role_at(m.from()), Some(Role::Queen))
                        && m.from().file() != m.to().file()
                        && m.from().rank() != m.to().rank();
                    assert_eq!(bytes.len(), 1 + usize::from(two), "{fen}: {m:?}");
                } else {
                    assert_eq!(bytes.len(), 1);
                }
            }
            assert_eq!(seen.len(), legal.len());
        }
    }

    #[test]
    fn a_setup_with_too_many_pieces_to_number_is_written_by_index() {
        let crowded = Position::from_fen(FENS[8]).unwrap();
        assert!(crowded.by_color(Color::White).count() as usize > SLOTS);
        assert!(!by_piece(&crowded));
        assert!(by_piece(&Position::startpos()));
        // The index of the move among the legal moves in their order.
        let mut legal: Vec<Move> = crowded.legal_moves().iter().copied().collect();
        let n = legal.len();
        assert!(n > 200);
        legal.sort_by_key(|&m| index::rank(m));
        assert_eq!(encode_line(&crowded, &legal[..1]).unwrap(), vec![0]);
        assert_eq!(
            encode_line(&crowded, &legal[n - 1..]).unwrap(),
            vec![n as u8 - 1]
        );
        for (b, &m) in legal.iter().enumerate() {
            assert_eq!(index::decode(&crowded, b as u8), Some(m));
            assert_eq!(index::encode(&crowded, m), Some(b as u8));
        }
        assert!(decode_line(&crowded, &[n as u8]).is_err());
    }

    /// A null move (PGN's `--`, ChessBase's `Z0`) is stored both ways
    /// and reads back; the board and the position pass the turn, and a
    /// null move's bytes are no piece's move.
    #[test]
    fn a_null_move_is_stored_and_read_back() {
        for fen in [FENS[0], FENS[5], FENS[8]] {
            let start = Position::from_fen(fen).unwrap();
            let legal: Vec<Move> = start.legal_moves().iter().copied().collect();
            let mut after = start.clone();
            after.play_unchecked(Move::NULL);
            // A reply where there is one (the crowded setup has none).
            let reply = after.legal_moves().iter().copied().next();
            let line: Vec<Move> = [Some(Move::NULL), reply, Some(Move::NULL), Some(Move::NULL)]
                .into_iter()
                .flatten()
                .collect();
            let bytes = encode_line(&start, &line).unwrap();
            assert_eq!(bytes.len(), line.len(), "{fen}");
            assert_eq!(decode_line(&start, &bytes).unwrap(), line, "{fen}");
            let mut reader = Reader::new(&start, &bytes);
            assert_eq!(reader.next_move().unwrap(), Some(Move::NULL));
            assert_same(reader.board(), &after);
            assert_eq!(reader.board().last_move_pieces(), None);
            // No legal move has a null move's bytes.
            for m in legal {
                assert_ne!(
                    encode_line(&start, &[m]).unwrap(),
                    bytes[..1],
                    "{fen}: {m:?}"
                );
            }
        }
    }

    #[test]
    fn pieces_keep_their_numbers_and_an_illegal_move_is_refused() {
        let start = Position::startpos();
        // 1. e4 (the e-pawn is White's 13th piece: a1..h1 are 0..7, a2 8).
        let e4 = Move::normal(Square::new(12), Square::new(28));
        assert_eq!(encode_line(&start, &[e4]).unwrap(), vec![12 << 4 | 1]);
        // Rook a1 to a5 is not legal from the start.
        let illegal = Move::normal(Square::new(0), Square::new(32));
        assert_eq!(encode_line(&start, &[illegal]), None);
        // A null move is the king (piece 4, on e1) "castling" with itself:
        // code 8 + its file.
        assert_eq!(
            encode_line(&start, &[Move::NULL]),
            Some(vec![4 << 4 | (8 + 4)])
        );
        // Its bytes (piece 0, code 8 + the fifth rank) decode to it, and
        // are refused as not legal.
        assert_eq!(
            decode_line(&start, &[12]),
            Err(CodecError { ply: 0, byte: 12 })
        );
    }
}
