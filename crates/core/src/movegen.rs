//! Legal move generation.
//!
//! Moves are generated legal from the start: checks and pins are found once
//! per position and every piece is limited to the squares it may legally
//! reach, so there is no make-and-test. One generic generator feeds a
//! [`Sink`]: a list sink expands bitboards of targets into moves, a counting
//! sink only adds up population counts (perft's bulk counting).

use crate::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
};
use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind, MoveList};
use crate::position::Position;
use crate::types::{CastlingSide, Color, File, Rank, Role, Square};

/// Which moves to generate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum GenType {
    All,
    /// Captures (en passant included) and every promotion.
    Noisy,
    /// Non-captures that are not promotions, castling included.
    Quiet,
}

pub(crate) trait Sink {
    /// Moves of a non-pawn piece from `from` to each of `targets`.
    fn piece(&mut self, from: Square, targets: Bitboard);
    /// Pawn moves to each of `targets`, each from `target - delta`.
    fn pawns(&mut self, targets: Bitboard, delta: i32);
    /// Promotions (four each) to each of `targets`, each from `target - delta`.
    fn promotions(&mut self, targets: Bitboard, delta: i32);
    /// One move (castling, en passant, pinned pawn moves).
    fn single(&mut self, m: Move);
}

impl Sink for MoveList {
    #[inline]
    fn piece(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::normal(from, to));
        }
    }
    #[inline]
    fn pawns(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            self.push(Move::normal(to.offset_unchecked(-delta), to));
        }
    }
    #[inline]
    fn promotions(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            let from = to.offset_unchecked(-delta);
            for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                self.push(Move::new(from, to, MoveKind::Promotion(role)));
            }
        }
    }
    #[inline]
    fn single(&mut self, m: Move) {
        self.push(m);
    }
}

/// Counts moves without listing them.
pub(crate) struct Counter(pub u64);

impl Sink for Counter {
    #[inline]
    fn piece(&mut self, _from: Square, targets: Bitboard) {
        self.0 += u64::from(targets.count());
    }
    #[inline]
    fn pawns(&mut self, targets: Bitboard, _delta: i32) {
        self.0 += u64::from(targets.count());
    }
    #[inline]
    fn promotions(&mut self, targets: Bitboard, _delta: i32) {
        self.0 += 4 * u64::from(targets.count());
    }
    #[inline]
    fn single(&mut self, _m: Move) {
        self.0 += 1;
    }
}

/// Stops at the first move found (sets the flag).
struct Any(bool);

impl Sink for Any {
    #[inline]
    fn piece(&mut self, _from: Square, targets: Bitboard) {
        self.0 |= targets.nonempty();
    }
    #[inline]
    fn pawns(&mut self, targets: Bitboard, _delta: i32) {
        self.0 |= targets.nonempty();
    }
    #[inline]
    fn promotions(&mut self, targets: Bitboard, _delta: i32) {
        self.0 |= targets.nonempty();
    }
    #[inline]
    fn single(&mut self, _m: Move) {
        self.0 = true;
    }
}

/// Keeps only moves from one square.
struct FromSquare<'a> {
    from: Square,
    list: &'a mut MoveList,
}

impl Sink for FromSquare<'_> {
    fn piece(&mut self, from: Square, targets: Bitboard) {
        if from == self.from {
            self.list.piece(from, targets);
        }
    }
    fn pawns(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            if to.offset_unchecked(-delta) == self.from {
                self.list.push(Move::normal(self.from, to));
            }
        }
    }
    fn promotions(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            if to.offset_unchecked(-delta) == self.from {
                self.list.promotions(Bitboard::from_square(to), delta);
            }
        }
    }
    fn single(&mut self, m: Move) {
        if m.from() == self.from {
            self.list.push(m);
        }
    }
}

const RANK_3: Bitboard = Bitboard::rank(Rank::Third);
const RANK_6: Bitboard = Bitboard::rank(Rank::Sixth);
const NOT_A: Bitboard = Bitboard(!Bitboard::file(File::A).0);
const NOT_H: Bitboard = Bitboard(!Bitboard::file(File::H).0);

impl Position {
    /// Generates the legal moves of `kind` into `sink`.
    #[inline(always)]
    pub(crate) fn generate<S: Sink>(&self, kind: GenType, sink: &mut S) {
        self.generate_masked(kind, Bitboard::FULL, sink);
    }

    /// Generates the legal moves of `kind` whose [`Move::to`] is in `mask`
    /// (for castling, the rook's square).
    #[inline(always)]
    pub(crate) fn generate_masked<S: Sink>(&self, kind: GenType, mask: Bitboard, sink: &mut S) {
        let us = self.turn;
        let them = us.other();
        let king = self.king(us);
        let occ = self.occupied();
        let ours = self.by_color(us);
        let theirs = self.by_color(them);
        let (checkers, pinned) = self.checkers_and_pinned();

        let dest = match kind {
            GenType::All => !ours,
            GenType::Noisy => theirs,
            GenType::Quiet => !occ,
        } & mask;

        // King moves: squares not attacked once the king has left its square.
        let occ_no_king = occ ^ Bitboard::from_square(king);
        let mut king_targets = Bitboard::EMPTY;
        for to in king_attacks(king) & dest {
            if !self.is_attacked(to, them, occ_no_king) {
                king_targets.add(to);
            }
        }
        sink.piece(king, king_targets);

        if checkers.more_than_one() {
            return;
        }
        let check_mask = match checkers.first() {
            Some(c) => between(king, c).with(c),
            None => Bitboard::FULL,
        };
        let target = dest & check_mask;

        // Knights: a pinned knight can never move.
        for from in self.pieces(us, Role::Knight) - pinned {
            sink.piece(from, knight_attacks(from) & target);
        }
        let queens = self.pieces(us, Role::Queen);
        for from in self.pieces(us, Role::Bishop) | queens {
            let mut t = bishop_attacks(from, occ) & target;
            if pinned.contains(from) {
                t &= line(king, from);
            }
            sink.piece(from, t);
        }
        for from in self.pieces(us, Role::Rook) | queens {
            let mut t = rook_attacks(from, occ) & target;
            if pinned.contains(from) {
                t &= line(king, from);
            }
            sink.piece(from, t);
        }

        self.gen_pawns(kind, sink, pinned, check_mask & mask, king);

        if kind != GenType::Quiet {
            if let Some(ep) = self.ep_square.filter(|&ep| mask.contains(ep)) {
                for from in pawn_attacks(them, ep) & self.pieces(us, Role::Pawn) {
                    if self.ep_is_safe(from, ep, king) {
                        sink.single(Move::new(from, ep, MoveKind::EnPassant));
                    }
                }
            }
        }
        if kind != GenType::Noisy && checkers.is_empty() {
            self.gen_castling(sink, king, occ, mask);
        }
    }

    #[inline(always)]
    fn gen_pawns<S: Sink>(
        &self,
        kind: GenType,
        sink: &mut S,
        pinned: Bitboard,
        check_mask: Bitboard,
        king: Square,
    ) {
        let us = self.turn;
        let occ = self.occupied();
        let empty = !occ;
        let theirs = self.by_color(us.other());
        let pawns = self.pieces(us, Role::Pawn);
        let free = pawns - pinned;
        let promo_rank = Bitboard::rank(Rank::Eighth.relative_to(us));

        let (up, left, right, double_rank) = match us {
            Color::White => (8, 7, 9, RANK_3),
            Color::Black => (-8, -9, -7, RANK_6),
        };
        let shift = |b: Bitboard, d: i32| -> Bitboard {
            if d > 0 {
                Bitboard(b.0 << d)
            } else {
                Bitboard(b.0 >> -d)
            }
        };
        let (left_from, right_from) = match us {
            Color::White => (NOT_A, NOT_H),
            Color::Black => (NOT_A, NOT_H),
        };

        let push1 = shift(free, up) & empty;
        let push2 = shift(push1 & double_rank, up) & empty & check_mask;
        let push1 = push1 & check_mask;
        let cap_l = shift(free & left_from, left) & theirs & check_mask;
        let cap_r = shift(free & right_from, right) & theirs & check_mask;

        if kind != GenType::Noisy {
            sink.pawns(push1 - promo_rank, up);
            sink.pawns(push2, 2 * up);
        }
        if kind != GenType::Quiet {
            sink.pawns(cap_l - promo_rank, left);
            sink.pawns(cap_r - promo_rank, right);
            sink.promotions(push1 & promo_rank, up);
            sink.promotions(cap_l & promo_rank, left);
            sink.promotions(cap_r & promo_rank, right);
        }

        // Pinned pawns move only along the pin line; rare, so one at a time.
        for from in pawns & pinned {
            let pin = line(king, from);
            let mut targets = Bitboard::EMPTY;
            if let Some(one) = from.offset(up) {
                if empty.contains(one) {
                    targets.add(one);
                    if double_rank.contains(one) {
                        if let Some(two) = one.offset(up) {
                            if empty.contains(two) {
                                targets.add(two);
                            }
                        }
                    }
                }
            }
            targets |= pawn_attacks(us, from) & theirs;
            targets &= pin & check_mask;
            for to in targets {
                let capture = theirs.contains(to);
                if promo_rank.contains(to) {
                    if kind != GenType::Quiet {
                        for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                            sink.single(Move::new(from, to, MoveKind::Promotion(role)));
                        }
                    }
                } else if (capture && kind != GenType::Quiet)
                    || (!capture && kind != GenType::Noisy)
                {
                    sink.single(Move::normal(from, to));
                }
            }
        }
    }

    /// Whether capturing en passant from `from` leaves our king safe.
    #[inline]
    fn ep_is_safe(&self, from: Square, ep: Square, king: Square) -> bool {
        let captured = Square::from_coords(ep.file(), from.rank());
        let occ = (self.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(captured))
            | Bitboard::from_square(ep);
        (self.attackers(king, self.turn.other(), occ) - Bitboard::from_square(captured)).is_empty()
    }

    #[inline(always)]
    fn gen_castling<S: Sink>(&self, sink: &mut S, king: Square, occ: Bitboard, mask: Bitboard) {
        let us = self.turn;
        let rooks = self.castling & Bitboard::rank(us.back_rank()) & mask;
        for rook in rooks {
            let side = if rook.file() > king.file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            let king_to = side.king_to(us);
            let rook_to = side.rook_to(us);
            let king_path = between(king, king_to).with(king_to);
            let must_be_empty = (king_path | between(rook, rook_to).with(rook_to))
                - Bitboard::from_square(king)
                - Bitboard::from_square(rook);
            if (must_be_empty & occ).nonempty() {
                continue;
            }
            let occ_after = occ - Bitboard::from_square(king) - Bitboard::from_square(rook);
            if king_path
                .into_iter()
                .any(|sq| self.is_attacked(sq, us.other(), occ_after))
            {
                continue;
            }
            sink.single(Move::castle(king, rook));
        }
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(GenType::All, &mut list);
        list
    }

    /// Appends every legal move to `list` (which is not cleared first).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        self.generate(GenType::All, list);
    }

    /// Legal captures (en passant included) and promotions, for quiescence search.
    pub fn noisy_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(GenType::Noisy, &mut list);
        list
    }

    /// Legal moves that neither capture nor promote (castling included).
    pub fn quiet_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(GenType::Quiet, &mut list);
        list
    }

    /// Legal moves when in check (the generator specialises on checks
    /// automatically; this is [`Position::legal_moves`] under a name that says so).
    pub fn evasions(&self) -> MoveList {
        self.legal_moves()
    }

    /// Legal moves landing on `to` (castling excluded unless the castling
    /// rook stands on `to`). Cheaper than [`Position::legal_moves`]: what SAN
    /// resolution needs.
    pub fn moves_to(&self, to: Square) -> MoveList {
        let mut list = MoveList::new();
        self.generate_masked(GenType::All, Bitboard::from_square(to), &mut list);
        list
    }

    /// Whether castling with the rook on `rook` is legal now: what
    /// generating the king's moves would say, without generating the rest.
    pub(crate) fn castling_is_legal(&self, rook: Square) -> bool {
        if self.is_check() {
            return false;
        }
        let mut found = Any(false);
        let king = self.king(self.turn);
        self.gen_castling(
            &mut found,
            king,
            self.occupied(),
            Bitboard::from_square(rook),
        );
        found.0
    }

    /// Legal moves of the piece on `from`.
    pub fn moves_from(&self, from: Square) -> MoveList {
        let mut list = MoveList::new();
        self.gen_from_square(from, &mut list);
        list
    }

    pub(crate) fn gen_from_square(&self, from: Square, list: &mut MoveList) {
        self.generate(GenType::All, &mut FromSquare { from, list });
    }

    /// How many legal moves there are, without listing them.
    #[inline]
    pub fn count_legal(&self) -> u64 {
        let mut c = Counter(0);
        self.generate(GenType::All, &mut c);
        c.0
    }

    /// Whether there is at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut a = Any(false);
        self.generate(GenType::All, &mut a);
        a.0
    }
}
