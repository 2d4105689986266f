//! Static exchange evaluation and move ordering.

use crate::params::SEE_VALUE;
use rookery_core::{Bitboard, Color, Move, MoveKind, MoveList, Position, Role};

fn value(role: Role) -> i32 {
    SEE_VALUE[role.index()]
}

/// Whether the exchange sequence started by `m` on its target square wins at
/// least `threshold` centipawns for the side to move (both sides may stop
/// capturing whenever it suits them). Pins are ignored.
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    if m.is_castle() {
        return threshold <= 0;
    }
    let from = m.from();
    let to = m.to();
    let captured = pos.captured_role(m).map_or(0, value);
    let mut swap = captured - threshold;
    if let MoveKind::Promotion(r) = m.kind() {
        swap += value(r) - value(Role::Pawn);
    }
    if swap < 0 {
        return false;
    }
    let Some(mover) = pos.role_at(from) else {
        return false;
    };
    let mover_value = match m.kind() {
        MoveKind::Promotion(r) => value(r),
        _ => value(mover),
    };
    swap = mover_value - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = pos.occupied() ^ Bitboard::from_square(from) | Bitboard::from_square(to);
    if m.is_en_passant() {
        if let Some(cap) = to.offset(if pos.turn() == Color::White { -8 } else { 8 }) {
            occ ^= Bitboard::from_square(cap);
        }
    }
    let all_attackers = |occ: Bitboard| {
        (pos.attackers(to, Color::White, occ) | pos.attackers(to, Color::Black, occ)) & occ
    };
    let mut attackers = all_attackers(occ);
    let mut stm = pos.turn();
    let mut res = true;
    loop {
        stm = !stm;
        attackers &= occ;
        let mine = attackers & pos.by_color(stm);
        if mine.is_empty() {
            break;
        }
        res = !res;
        let mut picked = None;
        for r in Role::ALL {
            let bb = mine & pos.by_role(r);
            if let Some(sq) = bb.first() {
                picked = Some((r, sq));
                break;
            }
        }
        // `mine` is non-empty, so some role matched.
        let Some((role, sq)) = picked else { break };
        if role == Role::King {
            // The king may only take last: if the other side still attacks, it cannot.
            if (attackers & pos.by_color(!stm)).nonempty() {
                res = !res;
            }
            break;
        }
        swap = value(role) - swap;
        if swap < i32::from(res) {
            break;
        }
        occ ^= Bitboard::from_square(sq);
        attackers = all_attackers(occ);
    }
    res
}

/// Score bands for ordering.
const TT_MOVE: i32 = 4_000_000;
const GOOD_NOISY: i32 = 2_000_000;
const KILLER_1: i32 = 1_000_000;
const KILLER_2: i32 = 999_000;
const COUNTER: i32 = 998_000;
const BAD_NOISY: i32 = -2_000_000;

/// Moves with ordering scores, handed out best first.
pub struct Picker {
    moves: MoveList,
    scores: [i32; rookery_core::MAX_MOVES],
    next: usize,
}

/// Ordering hints for one node.
pub struct Hints<'a> {
    /// The transposition-table move.
    pub tt: Move,
    /// Killer moves of this ply.
    pub killers: [Move; 2],
    /// The counter move to the opponent's last move.
    pub counter: Move,
    /// Butterfly history of the side to move, indexed from*64+to.
    pub history: &'a [i32],
    /// Continuation histories after the moves one and two plies back,
    /// indexed piece*64+to (piece = colour*6+role of the moving piece).
    pub continuation: [Option<&'a [i32]>; 2],
}

/// The index (colour*6+role) of the piece that makes move `m` in `pos`.
pub(crate) fn piece_index(pos: &Position, m: Move) -> usize {
    let role = pos.role_at(m.from()).map_or(0, |r| r.index());
    pos.turn().index() * 6 + role
}

impl Hints<'_> {
    /// The history score of a quiet move `m` made by `piece` (colour*6+role).
    pub fn quiet_score(&self, piece: usize, m: Move) -> i32 {
        let to = m.to().index();
        let mut s = self.history[m.from().index() * 64 + to];
        for c in self.continuation.iter().flatten() {
            s += c[piece * 64 + to];
        }
        s
    }
}

impl Picker {
    /// Scores `moves` of `pos` for ordering.
    pub fn new(pos: &Position, moves: MoveList, h: &Hints<'_>) -> Picker {
        let mut scores = [0i32; rookery_core::MAX_MOVES];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if m == h.tt {
                TT_MOVE
            } else if let Some(victim) = pos.captured_role(m) {
                let attacker = pos.role_at(m.from()).map_or(0, |r| r.index() as i32);
                let mvv = SEE_VALUE[victim.index()] * 8 - attacker;
                if see_ge(pos, m, 0) {
                    GOOD_NOISY + mvv
                } else {
                    BAD_NOISY + mvv
                }
            } else if let MoveKind::Promotion(r) = m.kind() {
                if r == Role::Queen {
                    GOOD_NOISY + 800
                } else {
                    BAD_NOISY - 1000 + r.index() as i32
                }
            } else if m == h.killers[0] {
                KILLER_1
            } else if m == h.killers[1] {
                KILLER_2
            } else if m == h.counter {
                COUNTER
            } else {
                h.quiet_score(piece_index(pos, m), m)
            };
        }
        Picker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Noisy moves for quiescence, ordered by MVV-LVA.
    pub fn noisy(pos: &Position, moves: MoveList) -> Picker {
        let mut scores = [0i32; rookery_core::MAX_MOVES];
        for (i, &m) in moves.iter().enumerate() {
            let victim = pos.captured_role(m).map_or(0, |r| SEE_VALUE[r.index()]);
            let attacker = pos.role_at(m.from()).map_or(0, |r| r.index() as i32);
            let promo = m.promotion().map_or(0, |r| SEE_VALUE[r.index()]);
            scores[i] = (victim + promo) * 8 - attacker;
        }
        Picker {
            moves,
            scores,
            next: 0,
        }
    }

    /// The next best move and its ordering score.
    pub fn pick(&mut self) -> Option<(Move, i32)> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        let r = (self.moves[self.next], self.scores[self.next]);
        self.next += 1;
        Some(r)
    }

    /// Whether an ordering score marks a losing capture or minor promotion.
    pub fn is_bad_noisy(score: i32) -> bool {
        score < BAD_NOISY / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::UciMove;

    fn mv(pos: &Position, s: &str) -> Move {
        s.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    #[test]
    fn see() {
        // Rook takes a pawn defended by a pawn: loses 400.
        let p = Position::from_fen("4k3/8/2p5/3p4/8/8/8/3RK3 w - - 0 1").unwrap();
        let m = mv(&p, "d1d5");
        assert!(!see_ge(&p, m, 0));
        assert!(see_ge(&p, m, -400));
        assert!(!see_ge(&p, m, -399));
        // Pawn takes an undefended knight.
        let p = Position::from_fen("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1").unwrap();
        let m = mv(&p, "e4d5");
        assert!(see_ge(&p, m, 320));
        assert!(!see_ge(&p, m, 321));
        // X-ray: rooks doubled take a defended pawn: R x p, r x R, R x r = +100.
        let p = Position::from_fen("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1").unwrap();
        let m = mv(&p, "d2d5");
        assert!(see_ge(&p, m, 100));
        assert!(!see_ge(&p, m, 101));
    }
}
