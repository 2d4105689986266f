//! Moves and fixed-capacity move lists.

use crate::types::{Role, Square};
use core::fmt;
use core::mem::MaybeUninit;

/// What a move does besides going from one square to another.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// An ordinary move or capture.
    Normal,
    /// A pawn capturing en passant; `to` is the square the capturing pawn lands on.
    EnPassant,
    /// Castling, encoded as the king "capturing" its own rook: `from` is the
    /// king's square and `to` the rook's, which works for Chess960 too.
    Castle,
    /// A pawn promoting to the given role.
    Promotion(Role),
}

/// A move, packed into 16 bits: 6 bits from, 6 bits to, 4 bits of kind.
///
/// A `Move` means nothing without the position it was generated in; use
/// [`crate::San`] or [`crate::UciMove`] to write it down.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

const EP: u16 = 1;
const CASTLE: u16 = 2;
const PROMO: u16 = 4;

impl Move {
    /// The null move (`0000` in UCI, `--` in PGN): passes the turn.
    pub const NULL: Move = Move(0);

    /// An ordinary move.
    #[inline]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6)
    }

    /// A move of the given kind.
    #[inline]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Move {
        let flags = match kind {
            MoveKind::Normal => 0,
            MoveKind::EnPassant => EP,
            MoveKind::Castle => CASTLE,
            MoveKind::Promotion(role) => PROMO | ((role as u16).wrapping_sub(1) & 3),
        };
        Move(from.index() as u16 | (to.index() as u16) << 6 | flags << 12)
    }

    /// Castling with the king on `king` and the rook on `rook`.
    #[inline]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move::new(king, rook, MoveKind::Castle)
    }

    /// The square the moving piece leaves.
    #[inline]
    pub const fn from(self) -> Square {
        Square::new(self.0 as u32 & 63)
    }

    /// The destination; for castling, the rook's square.
    #[inline]
    pub const fn to(self) -> Square {
        Square::new((self.0 as u32 >> 6) & 63)
    }

    /// The kind of move.
    #[inline]
    pub const fn kind(self) -> MoveKind {
        let flags = self.0 >> 12;
        if flags & PROMO != 0 {
            MoveKind::Promotion(match flags & 3 {
                0 => Role::Knight,
                1 => Role::Bishop,
                2 => Role::Rook,
                _ => Role::Queen,
            })
        } else if flags == EP {
            MoveKind::EnPassant
        } else if flags == CASTLE {
            MoveKind::Castle
        } else {
            MoveKind::Normal
        }
    }

    /// The promotion role, if any.
    #[inline]
    pub const fn promotion(self) -> Option<Role> {
        match self.kind() {
            MoveKind::Promotion(r) => Some(r),
            _ => None,
        }
    }

    /// Whether this is castling.
    #[inline]
    pub const fn is_castle(self) -> bool {
        self.0 >> 12 == CASTLE
    }

    /// Whether this is an en-passant capture.
    #[inline]
    pub const fn is_en_passant(self) -> bool {
        self.0 >> 12 == EP
    }

    /// Whether this is a promotion.
    #[inline]
    pub const fn is_promotion(self) -> bool {
        (self.0 >> 12) & PROMO != 0
    }

    /// Whether this is the null move.
    #[inline]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    /// The raw 16-bit encoding (stable within one build; used by hash tables).
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    /// Rebuilds a move from [`Move::to_u16`].
    #[inline]
    pub const fn from_u16(bits: u16) -> Move {
        Move(bits)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            return f.write_str("Move(null)");
        }
        write!(f, "Move({}{}", self.from(), self.to())?;
        match self.kind() {
            MoveKind::Normal => {}
            MoveKind::EnPassant => f.write_str(" ep")?,
            MoveKind::Castle => f.write_str(" castle")?,
            MoveKind::Promotion(r) => write!(f, "={}", r.upper_char())?,
        }
        f.write_str(")")
    }
}

/// Capacity of a [`MoveList`]: more than any position the rules accept can
/// have, with any material (a setup may hold 30 queens).
///
/// Positions reachable in a game have at most 218 legal moves, but a setup
/// is not limited to 16 pieces a side, so the bound must hold for any
/// board. With `W` pieces of the side to move, two bounds hold at once:
/// - by piece: a queen has at most 27 moves, a rook 14, a bishop 13, a
///   knight 8, a pawn 12 (3 squares times 4 promotions), the king 8 plus 2
///   castlings, so there are at most `27 (W - 1) + 10` moves;
/// - by target square (one of the `64 - W` squares not holding an own
///   piece): along each of the 8 lines through it only the nearest piece
///   can move there (sliders, king, pawn pushes and captures, castling,
///   en passant alike), plus at most 8 knights: 16 moves a square; a pawn
///   move to the last rank counts 4 times (at most 3 pawns on each of 8
///   squares: 72 more), and Chess960 castling onto the own rook 2 more: at
///   most `16 (64 - W) + 74` moves.
///
/// The smaller of the two is at most 685 for every `W` (at `W` = 26), so
/// 768 is enough and [`MoveList::push`] never finds the list full.
pub const MAX_MOVES: usize = 768;

/// A fixed-capacity list of moves on the stack: no allocation per node, and
/// no initialisation of unused slots.
pub struct MoveList {
    len: usize,
    moves: [MaybeUninit<Move>; MAX_MOVES],
}

impl Clone for MoveList {
    fn clone(&self) -> Self {
        let mut out = MoveList::new();
        for &m in self.iter() {
            out.push(m);
        }
        out
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    #[inline]
    pub const fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [MaybeUninit::uninit(); MAX_MOVES],
        }
    }

    /// Appends a move. No position has as many as [`MAX_MOVES`] legal
    /// moves (see there why), so the list is never full; were it ever, a
    /// debug build stops here, and a release build ignores the move rather
    /// than panicking.
    #[inline]
    pub fn push(&mut self, m: Move) {
        debug_assert!(
            self.len < MAX_MOVES,
            "move list full: MAX_MOVES is too small"
        );
        if let Some(slot) = self.moves.get_mut(self.len) {
            slot.write(m);
            self.len += 1;
        }
    }

    /// Number of moves.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every move.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps only the moves for which `f` returns true.
    pub fn retain(&mut self, mut f: impl FnMut(Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            let m = self[i];
            if f(m) {
                self[j] = m;
                j += 1;
            }
        }
        self.len = j;
    }

    /// Whether the list holds `m`.
    pub fn contains(&self, m: Move) -> bool {
        self[..].contains(&m)
    }
}

impl core::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        // SAFETY: the first `len` slots were written by `push` (len never
        // exceeds the capacity), and MaybeUninit<Move> has Move's layout.
        unsafe { core::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }
}

impl core::ops::DerefMut for MoveList {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Move] {
        // SAFETY: as in `deref`.
        unsafe { core::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = core::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Position;

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "move list full")]
    fn a_full_move_list_is_a_bug_not_a_silent_drop() {
        let mut list = MoveList::new();
        for _ in 0..=MAX_MOVES {
            list.push(Move::NULL);
        }
    }

    /// Boards crowded with sliders and knights (random, seeded): the move
    /// count stays below the capacity (the bound in [`MAX_MOVES`]'s doc).
    #[test]
    fn crowded_setups_fit() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut most = 0;
        for _ in 0..3000 {
            let mut board = [None::<char>; 64];
            board[(next() % 64) as usize] = Some('K');
            let bk = loop {
                let s = (next() % 64) as usize;
                if board[s].is_none() {
                    break s;
                }
            };
            board[bk] = Some('k');
            let pieces = 10 + next() % 30;
            for _ in 0..pieces {
                let s = (next() % 64) as usize;
                if board[s].is_none() {
                    board[s] = Some(['Q', 'Q', 'Q', 'R', 'B', 'N'][(next() % 6) as usize]);
                }
            }
            let mut fen = String::new();
            for rank in (0..8).rev() {
                let mut empty = 0;
                for file in 0..8 {
                    match board[rank * 8 + file] {
                        Some(c) => {
                            if empty > 0 {
                                fen.push_str(&empty.to_string());
                                empty = 0;
                            }
                            fen.push(c);
                        }
                        None => empty += 1,
                    }
                }
                if empty > 0 {
                    fen.push_str(&empty.to_string());
                }
                if rank > 0 {
                    fen.push('/');
                }
            }
            fen.push_str(" w - - 0 1");
            if let Ok((pos, _)) = Position::from_fen_lenient(&fen) {
                let n = pos.legal_moves().len();
                assert!(n < MAX_MOVES, "{fen}: {n}");
                most = most.max(n);
            }
        }
        assert!(most > 120, "the test reaches crowded positions: {most}");
        // The most moves known in a position of a game (Petrović, 1964).
        let (record, _) =
            Position::from_fen_lenient("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1")
                .unwrap();
        assert_eq!(record.legal_moves().len(), 218);
    }
}
