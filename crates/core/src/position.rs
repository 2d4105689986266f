//! The position: piece placement, side to move, castling rights, en passant,
//! clocks and an incrementally updated Zobrist key.

use crate::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};
use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::types::{CastlingSide, Color, File, Piece, Rank, Role, Square};
use crate::zobrist;

const EMPTY: u8 = 0xff;

/// Half-moves without capture or pawn move after which a draw may be
/// claimed (the 50-move rule: 50 moves by each side).
pub const FIFTY_MOVE_HALFMOVES: u32 = 100;

/// Half-moves without capture or pawn move after which the game is drawn
/// automatically (the 75-move rule: 75 moves by each side).
pub const SEVENTY_FIVE_MOVE_HALFMOVES: u32 = 150;

/// A legal chess position (standard chess or Chess960).
///
/// Build one with [`Position::startpos`] or from FEN ([`crate::Fen`]); every
/// `Position` has exactly one king per side and the side not to move is not in
/// check. Moves are applied in place ([`Position::play`]); to keep the old
/// position, clone it first (copy-make: a `Position` is about 160 bytes).
///
/// ```
/// use rookery_core::Position;
/// let pos = Position::startpos();
/// assert_eq!(pos.legal_moves().len(), 20);
/// ```

#[derive(Clone)]
pub struct Position {
    pub(crate) by_role: [Bitboard; 6],
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) board: [u8; 64],
    pub(crate) turn: Color,
    /// Squares of the rooks that may still castle.
    pub(crate) castling: Bitboard,
    /// Set only when an en-passant capture is legal.
    pub(crate) ep_square: Option<Square>,
    /// The square the last move's pawn passed over with a double step
    /// (FEN's en passant target square, set whether or not a capture is
    /// possible): the Polyglot key counts it when a pawn stands beside
    /// ([`crate::polyglot`]). Not part of the position's identity: `==`
    /// and `Hash` leave it out (the rules see only `ep_square`).
    pub(crate) ep_target: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    pub(crate) hash: u64,
}

/// Equality of everything the rules see: the last double step a capture
/// cannot use (`ep_target`) is history, not position.
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.by_role == other.by_role
            && self.by_color == other.by_color
            && self.board == other.board
            && self.turn == other.turn
            && self.castling == other.castling
            && self.ep_square == other.ep_square
            && self.halfmoves == other.halfmoves
            && self.fullmoves == other.fullmoves
            && self.hash == other.hash
    }
}

impl Eq for Position {}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // The Zobrist key covers the board, side, castling and en passant.
        self.hash.hash(state);
        self.halfmoves.hash(state);
        self.fullmoves.hash(state);
    }
}

#[inline]
const fn code(p: Piece) -> u8 {
    (p.color as u8) << 3 | p.role as u8
}

#[inline]
fn decode(c: u8) -> Option<Piece> {
    if c == EMPTY {
        None
    } else {
        Some(Piece {
            color: if c & 8 == 0 {
                Color::White
            } else {
                Color::Black
            },
            role: Role::from_index((c & 7) as usize)?,
        })
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

impl Position {
    /// An empty board (no kings: not a legal position; only for building one).
    pub(crate) fn empty() -> Position {
        Position {
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            board: [EMPTY; 64],
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep_square: None,
            ep_target: None,
            halfmoves: 0,
            fullmoves: 1,
            hash: 0,
        }
    }

    /// The standard starting position.
    pub fn startpos() -> Position {
        let mut pos = Position::empty();
        let back = [
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::Queen,
            Role::King,
            Role::Bishop,
            Role::Knight,
            Role::Rook,
        ];
        for (i, role) in back.iter().enumerate() {
            let f = File::new(i as u32);
            for color in Color::ALL {
                let r = color.back_rank();
                pos.put(Square::from_coords(f, r), Piece { color, role: *role });
                let pr = Rank::Second.relative_to(color);
                pos.put(
                    Square::from_coords(f, pr),
                    Piece {
                        color,
                        role: Role::Pawn,
                    },
                );
            }
        }
        pos.castling = Bitboard::from_square(Square::A1)
            | Bitboard::from_square(Square::H1)
            | Bitboard::from_square(Square::A8)
            | Bitboard::from_square(Square::H8);
        pos.hash = pos.compute_hash();
        pos
    }

    /// Puts a piece on an empty square (no hash update).
    #[inline]
    pub(crate) fn put(&mut self, sq: Square, p: Piece) {
        let bb = Bitboard::from_square(sq);
        self.by_role[p.role.index()] |= bb;
        self.by_color[p.color.index()] |= bb;
        self.board[sq.index()] = code(p);
    }

    /// Removes the piece on `sq`, which must be occupied by `p` (no hash update).
    #[inline]
    pub(crate) fn remove(&mut self, sq: Square, p: Piece) {
        let bb = Bitboard::from_square(sq);
        self.by_role[p.role.index()] ^= bb;
        self.by_color[p.color.index()] ^= bb;
        self.board[sq.index()] = EMPTY;
    }

    /// Recomputes the Zobrist key from scratch.
    pub(crate) fn compute_hash(&self) -> u64 {
        let mut h = zobrist::turn(self.turn);
        for sq in self.occupied() {
            if let Some(p) = self.piece_at(sq) {
                h ^= zobrist::piece(p, sq);
            }
        }
        for sq in self.castling {
            h ^= zobrist::castling_rook(sq);
        }
        if let Some(ep) = self.ep_square {
            h ^= zobrist::ep_file(ep);
        }
        h
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        decode(self.board[sq.index()])
    }

    /// The role of the piece on `sq`, if any.
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        let c = self.board[sq.index()];
        if c == EMPTY {
            None
        } else {
            Role::from_index((c & 7) as usize)
        }
    }

    /// Squares of all pieces of a role, both colours.
    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// Squares of all pieces of a colour.
    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Squares of the pieces of one colour and role.
    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_role[role.index()] & self.by_color[color.index()]
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The king of `color`. Every `Position` has one.
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        // Invariant: a Position always has exactly one king per side.
        self.pieces(color, Role::King).first().unwrap_or(Square::A1)
    }

    /// The en-passant target square, if an en-passant capture is legal now.
    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// FEN's en passant target square: the square the last move's pawn
    /// passed over with a double step, whether or not any capture onto it
    /// is possible (see [`Position::ep_square`] for the square a legal
    /// capture can use). `None` after any other move, and after a FEN that
    /// names none.
    #[inline]
    pub fn ep_target(&self) -> Option<Square> {
        self.ep_target
    }

    /// Half-moves since the last capture or pawn move (for the 50-move rule).
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// Whether the 50-move rule lets a draw be claimed: at least
    /// [`FIFTY_MOVE_HALFMOVES`] half-moves without capture or pawn move.
    /// (A checkmate on the move that reaches it still stands: callers that
    /// end the game check for mate first, as [`crate::Game::status`] does.)
    #[inline]
    pub fn is_fifty_moves(&self) -> bool {
        self.halfmoves >= FIFTY_MOVE_HALFMOVES
    }

    /// Whether the 75-move rule draws the game automatically: at least
    /// [`SEVENTY_FIVE_MOVE_HALFMOVES`] half-moves without capture or pawn move.
    #[inline]
    pub fn is_seventy_five_moves(&self) -> bool {
        self.halfmoves >= SEVENTY_FIVE_MOVE_HALFMOVES
    }

    /// The move number, starting at 1 and incremented after Black moves.
    #[inline]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// Sets the clocks (halfmove clock, fullmove number); the fullmove number is at least 1.
    pub fn set_clocks(&mut self, halfmoves: u32, fullmoves: u32) {
        self.halfmoves = halfmoves;
        self.fullmoves = fullmoves.max(1);
    }

    /// The Zobrist key of the position (pieces, side, castling rights, en passant).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Squares of the rooks that still have castling rights, both colours.
    #[inline]
    pub fn castling_rooks(&self) -> Bitboard {
        self.castling
    }

    /// The rook `color` may castle with on `side`, if it still has that right.
    pub fn castling_rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        let king = self.king(color);
        let rooks = self.castling & Bitboard::rank(color.back_rank());
        match side {
            CastlingSide::KingSide => rooks.into_iter().rfind(|r| r.file() > king.file()),
            CastlingSide::QueenSide => rooks.into_iter().find(|r| r.file() < king.file()),
        }
    }

    /// Pieces of `color` that attack `sq`, given the occupancy `occ`.
    #[inline]
    pub fn attackers(&self, sq: Square, color: Color, occ: Bitboard) -> Bitboard {
        let queens = self.by_role[Role::Queen.index()];
        let diag = (self.by_role[Role::Bishop.index()] | queens) & bishop_attacks(sq, occ);
        let orth = (self.by_role[Role::Rook.index()] | queens) & rook_attacks(sq, occ);
        let near = (self.by_role[Role::Knight.index()] & knight_attacks(sq))
            | (self.by_role[Role::King.index()] & king_attacks(sq))
            | (self.by_role[Role::Pawn.index()] & pawn_attacks(color.other(), sq));
        (diag | orth | near) & self.by_color[color.index()]
    }

    /// Checkers of the side to move and its pinned pieces, found in one pass
    /// over the sliders aimed at its king.
    #[inline]
    pub(crate) fn checkers_and_pinned(&self) -> (Bitboard, Bitboard) {
        let us = self.turn;
        let them = us.other();
        let king = self.king(us);
        let theirs = self.by_color[them.index()];
        let ours = self.by_color[us.index()];
        let queens = self.by_role[Role::Queen.index()];
        let snipers = ((rook_attacks(king, theirs) & (self.by_role[Role::Rook.index()] | queens))
            | (bishop_attacks(king, theirs) & (self.by_role[Role::Bishop.index()] | queens)))
            & theirs;
        let mut checkers = ((self.by_role[Role::Knight.index()] & knight_attacks(king))
            | (self.by_role[Role::Pawn.index()] & pawn_attacks(us, king)))
            & theirs;
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = between(king, s) & ours;
            if b.is_empty() {
                checkers.add(s);
            } else if !b.more_than_one() {
                pinned |= b;
            }
        }
        (checkers, pinned)
    }

    /// Whether any piece of `color` attacks `sq` with occupancy `occ`.
    #[inline]
    pub fn is_attacked(&self, sq: Square, color: Color, occ: Bitboard) -> bool {
        let them = self.by_color[color.index()];
        if (self.by_role[Role::Knight.index()] & them & knight_attacks(sq)).nonempty()
            || (self.by_role[Role::Pawn.index()] & them & pawn_attacks(color.other(), sq))
                .nonempty()
            || (self.by_role[Role::King.index()] & them & king_attacks(sq)).nonempty()
        {
            return true;
        }
        let queens = self.by_role[Role::Queen.index()] & them;
        ((self.by_role[Role::Rook.index()] & them | queens) & rook_attacks(sq, occ)).nonempty()
            || ((self.by_role[Role::Bishop.index()] & them | queens) & bishop_attacks(sq, occ))
                .nonempty()
    }

    /// Enemy pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.attackers(self.king(self.turn), self.turn.other(), self.occupied())
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers().nonempty()
    }

    /// Pieces of the side to move pinned to their own king.
    pub fn pinned(&self) -> Bitboard {
        let us = self.turn;
        let king = self.king(us);
        let them = self.by_color[us.other().index()];
        let queens = self.by_role[Role::Queen.index()];
        let snipers = ((rook_attacks(king, them) & (self.by_role[Role::Rook.index()] | queens))
            | (bishop_attacks(king, them) & (self.by_role[Role::Bishop.index()] | queens)))
            & them;
        let occ = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = between(king, s) & occ;
            if !b.more_than_one() {
                pinned |= b;
            }
        }
        pinned & self.by_color[us.index()]
    }

    /// Whether the side to move has any en-passant capture that is legal.
    /// `sq` is the candidate en-passant square (behind the pawn that just moved two).
    pub(crate) fn ep_capture_legal(&self, sq: Square) -> bool {
        let us = self.turn;
        let them = us.other();
        let captured = match sq.offset(if us == Color::White { -8 } else { 8 }) {
            Some(s) => s,
            None => return false,
        };
        if self.piece_at(captured)
            != Some(Piece {
                color: them,
                role: Role::Pawn,
            })
            || self.piece_at(sq).is_some()
        {
            return false;
        }
        let king = self.king(us);
        let capturers = pawn_attacks(them, sq) & self.pieces(us, Role::Pawn);
        for from in capturers {
            let occ =
                (self.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(captured))
                    | Bitboard::from_square(sq);
            let attackers = self.attackers(king, them, occ) & !Bitboard::from_square(captured);
            if attackers.is_empty() {
                return true;
            }
        }
        false
    }

    /// Plays `m`, which must be legal in this position (see [`Position::play`]
    /// for the checked version). Playing an illegal move leaves a position that
    /// may break invariants, though never memory safety.
    pub fn play_unchecked(&mut self, m: Move) {
        let us = self.turn;
        let them = us.other();
        let from = m.from();
        let to = m.to();
        let old_castling = self.castling;
        if let Some(ep) = self.ep_square.take() {
            self.hash ^= zobrist::ep_file(ep);
        }
        self.ep_target = None;
        self.halfmoves += 1;
        let mut double_push = None;

        if m.is_null() {
            // Null move: only the side to move changes.
        } else if m.is_castle() {
            let side = if to.file() > from.file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            let king = Piece {
                color: us,
                role: Role::King,
            };
            let rook = Piece {
                color: us,
                role: Role::Rook,
            };
            self.remove(from, king);
            self.remove(to, rook);
            let kt = side.king_to(us);
            let rt = side.rook_to(us);
            self.put(kt, king);
            self.put(rt, rook);
            self.hash ^= zobrist::piece(king, from)
                ^ zobrist::piece(rook, to)
                ^ zobrist::piece(king, kt)
                ^ zobrist::piece(rook, rt);
            self.castling = self.castling - Bitboard::rank(us.back_rank());
        } else {
            let role = self.role_at(from).unwrap_or(Role::Pawn);
            let mover = Piece { color: us, role };
            let capture_sq = if m.is_en_passant() {
                Square::from_coords(to.file(), from.rank())
            } else {
                to
            };
            if let Some(captured) = self.piece_at(capture_sq) {
                self.remove(capture_sq, captured);
                self.hash ^= zobrist::piece(captured, capture_sq);
                self.halfmoves = 0;
            }
            self.remove(from, mover);
            let placed = match m.kind() {
                MoveKind::Promotion(r) => Piece { color: us, role: r },
                _ => mover,
            };
            self.put(to, placed);
            self.hash ^= zobrist::piece(mover, from) ^ zobrist::piece(placed, to);
            self.castling = self.castling - Bitboard::from_square(from) - Bitboard::from_square(to);
            match role {
                Role::Pawn => {
                    self.halfmoves = 0;
                    if from.index() ^ to.index() == 16 {
                        double_push = Some(Square::new((from.index() + to.index()) as u32 / 2));
                    }
                }
                Role::King => self.castling = self.castling - Bitboard::rank(us.back_rank()),
                _ => {}
            }
        }

        for sq in old_castling ^ self.castling {
            self.hash ^= zobrist::castling_rook(sq);
        }
        if us == Color::Black {
            self.fullmoves += 1;
        }
        self.turn = them;
        self.hash ^= zobrist::BLACK_TO_MOVE;

        self.ep_target = double_push;
        if let Some(ep) = double_push {
            if (pawn_attacks(us, ep) & self.pieces(them, Role::Pawn)).nonempty()
                && self.ep_capture_legal(ep)
            {
                self.ep_square = Some(ep);
                self.hash ^= zobrist::ep_file(ep);
            }
        }
    }

    /// Plays `m` if it is legal here.
    ///
    /// # Errors
    /// [`IllegalMoveError`] if `m` is not among the legal moves.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMoveError> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(IllegalMoveError { mv: m })
        }
    }

    /// The position after `m` (which must be legal), leaving `self` untouched.
    #[must_use]
    pub fn after(&self, m: Move) -> Position {
        let mut p = self.clone();
        p.play_unchecked(m);
        p
    }

    /// Whether `m` is a legal move here.
    pub fn is_legal(&self, m: Move) -> bool {
        if m.is_null() {
            return false;
        }
        let mut list = crate::moves::MoveList::new();
        self.gen_from_square(m.from(), &mut list);
        list.contains(m)
    }

    /// Whether the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_move()
    }

    /// Whether the side to move is stalemated.
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_move()
    }

    /// Whether neither side can possibly checkmate, by any sequence of legal
    /// moves: K v K, K+N v K, and kings with bishops that all stand on squares
    /// of one colour (on either side).
    pub fn is_insufficient_material(&self) -> bool {
        let heavy = self.by_role(Role::Pawn) | self.by_role(Role::Rook) | self.by_role(Role::Queen);
        if heavy.nonempty() {
            return false;
        }
        let knights = self.by_role(Role::Knight);
        let bishops = self.by_role(Role::Bishop);
        if knights.nonempty() {
            // A lone knight (with nothing else besides kings) cannot mate.
            return knights.count() == 1 && bishops.is_empty();
        }
        // Only bishops: insufficient if they are all on one colour of square.
        (bishops & Bitboard::DARK_SQUARES).is_empty()
            || (bishops & Bitboard::LIGHT_SQUARES).is_empty()
    }

    /// Whether `color` alone lacks the material to ever checkmate
    /// (used when a flag falls: the opponent's win becomes a draw).
    pub fn has_insufficient_material(&self, color: Color) -> bool {
        let ours = self.by_color(color);
        if (ours
            & (self.by_role(Role::Pawn) | self.by_role(Role::Rook) | self.by_role(Role::Queen)))
        .nonempty()
        {
            return false;
        }
        let knights = ours & self.by_role(Role::Knight);
        let bishops = ours & self.by_role(Role::Bishop);
        let their_non_king = self.by_color(color.other()) - self.by_role(Role::King);
        if knights.nonempty() {
            // K+N can mate only with help from blocking enemy pieces.
            return knights.count() == 1 && bishops.is_empty() && their_non_king.is_empty();
        }
        if bishops.is_empty() {
            return true;
        }
        let all_bishops = self.by_role(Role::Bishop);
        let one_colour = (all_bishops & Bitboard::DARK_SQUARES).is_empty()
            || (all_bishops & Bitboard::LIGHT_SQUARES).is_empty();
        one_colour && (their_non_king - self.by_role(Role::Bishop)).is_empty()
    }

    /// Material signature helper: whether the side to move has pieces other than pawns and king.
    pub fn has_non_pawn_material(&self, color: Color) -> bool {
        (self.by_color(color) - self.by_role(Role::Pawn) - self.by_role(Role::King)).nonempty()
    }

    /// Whether `m` captures something (en passant included).
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        m.is_en_passant()
            || (!m.is_castle() && !m.is_null() && self.by_color(self.turn.other()).contains(m.to()))
    }

    /// The role that `m` captures, if any (pawn for en passant).
    #[inline]
    pub fn captured_role(&self, m: Move) -> Option<Role> {
        if m.is_en_passant() {
            Some(Role::Pawn)
        } else if m.is_castle() || m.is_null() {
            None
        } else {
            self.by_color(self.turn.other())
                .contains(m.to())
                .then(|| self.role_at(m.to()))
                .flatten()
        }
    }

    /// Whether the legal move `m` gives check: found from the attack
    /// tables, without making the move (castling, en passant and the null
    /// move are played out).
    pub fn gives_check(&self, m: Move) -> bool {
        if m.is_null() || m.is_castle() || m.is_en_passant() {
            return self.after(m).is_check();
        }
        let us = self.turn;
        let king = self.king(us.other());
        let (from, to) = (m.from(), m.to());
        let occ = self.occupied().without(from).with(to);
        let role = m
            .promotion()
            .or_else(|| self.role_at(from))
            .unwrap_or(Role::Pawn);
        // The moved piece from its new square.
        if crate::attacks::attacks(us, role, to, occ).contains(king) {
            return true;
        }
        // Another piece of ours through the new occupancy (a discovered
        // check); what stood on `to` was theirs and no longer counts.
        self.attackers(king, us, occ)
            .without(from)
            .without(to)
            .nonempty()
    }

    /// The board as 8 lines of FEN letters and dots, rank 8 first.
    pub fn board_string(&self) -> String {
        let mut s = String::with_capacity(8 * 17);
        for rank in Rank::ALL.iter().rev() {
            for (i, file) in File::ALL.iter().enumerate() {
                if i > 0 {
                    s.push(' ');
                }
                s.push(
                    self.piece_at(Square::from_coords(*file, *rank))
                        .map_or('.', Piece::char),
                );
            }
            s.push('\n');
        }
        s
    }
}

impl Position {
    /// Whether the castling rights need Chess960 notation (a king or castling
    /// rook off its standard square).
    pub fn is_chess960_castling(&self) -> bool {
        let rooks = self.castling_rooks();
        if rooks.is_empty() {
            return false;
        }
        let standard = Bitboard::from_square(Square::A1)
            | Bitboard::from_square(Square::H1)
            | Bitboard::from_square(Square::A8)
            | Bitboard::from_square(Square::H8);
        if (rooks - standard).nonempty() {
            return true;
        }
        Color::ALL.iter().any(|&c| {
            (rooks & Bitboard::rank(c.back_rank())).nonempty()
                && self.king(c) != Square::from_coords(File::E, c.back_rank())
        })
    }
}

/// A move that is not legal in the position it was played in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMoveError {
    /// The move.
    pub mv: Move,
}

impl core::fmt::Display for IllegalMoveError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "illegal move {:?}", self.mv)
    }
}

impl std::error::Error for IllegalMoveError {}
