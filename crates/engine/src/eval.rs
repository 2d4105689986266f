//! Evaluation: a small interface ([`Evaluator`]) and the classical
//! hand-crafted evaluation behind it, whose weights the Texel tuner
//! (crates/tuner) can fit to game results (see `weights.rs` for their status).
//!
//! Every term is linear in its weight, and every weight is a (middlegame,
//! endgame) pair blended by game phase. The evaluation is written once,
//! generic over a [`Trace`]: summing weights gives the score; recording
//! feature counts gives the tuner its coefficients, so the two can never drift
//! apart.

use crate::weights::WEIGHTS;
use rookery_core::attacks::{
    bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks,
};
use rookery_core::{Bitboard, Color, Position, Role, Square};

/// Anything that scores a position, in centipawns from the side to move's
/// view. A neural network can replace the classical evaluation behind this.
pub trait Evaluator: Send + Sync {
    /// The static score of `pos` for the side to move.
    fn evaluate(&self, pos: &Position) -> i32;
}

/// Index of the first weight of each feature group.
pub mod idx {
    /// Material: pawn, knight, bishop, rook, queen.
    pub const MATERIAL: usize = 0;
    /// Piece-square tables: 6 roles × 64 squares, from White's side.
    pub const PST: usize = 5;
    /// Knight mobility by number of safe squares (0..=8).
    pub const MOB_N: usize = PST + 384;
    /// Bishop mobility (0..=13).
    pub const MOB_B: usize = MOB_N + 9;
    /// Rook mobility (0..=14).
    pub const MOB_R: usize = MOB_B + 14;
    /// Queen mobility (0..=27).
    pub const MOB_Q: usize = MOB_R + 15;
    /// Passed pawn by relative rank.
    pub const PASSED: usize = MOB_Q + 28;
    /// Isolated pawn.
    pub const ISOLATED: usize = PASSED + 8;
    /// Doubled pawn (one with a friendly pawn ahead on its file).
    pub const DOUBLED: usize = ISOLATED + 1;
    /// Backward pawn.
    pub const BACKWARD: usize = DOUBLED + 1;
    /// Attacks on the enemy king zone, per attacking role (N, B, R, Q).
    pub const KING_ATTACK: usize = BACKWARD + 1;
    /// Friendly pawns shielding the king.
    pub const SHIELD: usize = KING_ATTACK + 4;
    /// Bishop pair.
    pub const BISHOP_PAIR: usize = SHIELD + 1;
    /// Rook on an open file.
    pub const ROOK_OPEN: usize = BISHOP_PAIR + 1;
    /// Rook on a half-open file.
    pub const ROOK_SEMI: usize = ROOK_OPEN + 1;
    /// Side to move.
    pub const TEMPO: usize = ROOK_SEMI + 1;
    /// Passed pawn whose path to promotion is empty, by relative rank.
    pub const PASSED_FREE: usize = TEMPO + 1;
    /// Enemy knight, bishop, rook, queen attacked by a pawn.
    pub const THREAT_PAWN: usize = PASSED_FREE + 8;
    /// Enemy rook, queen attacked by a knight or bishop.
    pub const THREAT_MINOR: usize = THREAT_PAWN + 4;
    /// Enemy queen attacked by a rook.
    pub const THREAT_ROOK: usize = THREAT_MINOR + 2;
    /// Enemy piece (not pawn or king) attacked and not defended.
    pub const HANGING: usize = THREAT_ROOK + 1;
    /// King danger by attack units on the enemy king zone (0..=39), counted
    /// once at least two pieces (or a queen) attack the zone.
    pub const KING_DANGER: usize = HANGING + 1;
    /// Own king's distance to a passed pawn's stop square, by relative rank.
    pub const PASSER_KING_OWN: usize = KING_DANGER + 40;
    /// Enemy king's distance to a passed pawn's stop square, by relative rank.
    pub const PASSER_KING_THEIR: usize = PASSER_KING_OWN + 8;
    /// Pawn with a friendly pawn beside it, by relative rank.
    pub const PHALANX: usize = PASSER_KING_THEIR + 8;
    /// Pawn defended by a friendly pawn, by relative rank.
    pub const SUPPORTED: usize = PHALANX + 8;
    /// Knight, bishop on an outpost (4th-6th rank, pawn-defended, no enemy
    /// pawn can attack it).
    pub const OUTPOST: usize = SUPPORTED + 8;
    /// Rook on the seventh rank.
    pub const ROOK_7TH: usize = OUTPOST + 2;
    /// Number of weights.
    pub const COUNT: usize = ROOK_7TH + 1;
}

/// Total phase of the starting material (N, B = 1; R = 2; Q = 4).
pub const MAX_PHASE: i32 = 24;

/// Receives feature counts: `n` is positive for White, negative for Black.
pub trait Trace {
    /// Adds `n` occurrences of feature `index`.
    fn add(&mut self, index: usize, n: i32);
}

struct Sum<'a> {
    w: &'a [[i32; 2]],
    mg: i32,
    eg: i32,
}

impl Trace for Sum<'_> {
    #[inline]
    fn add(&mut self, index: usize, n: i32) {
        let w = self.w[index];
        self.mg += w[0] * n;
        self.eg += w[1] * n;
    }
}

/// The classical evaluation with a set of weights.
#[derive(Clone, Debug)]
pub struct Classical {
    weights: Vec<[i32; 2]>,
}

impl Default for Classical {
    fn default() -> Self {
        Classical::new(
            WEIGHTS
                .iter()
                .map(|w| [i32::from(w[0]), i32::from(w[1])])
                .collect(),
        )
    }
}

impl Classical {
    /// The evaluation with the given weights; missing weights count as zero.
    pub fn new(mut weights: Vec<[i32; 2]>) -> Classical {
        weights.resize(idx::COUNT, [0, 0]);
        Classical { weights }
    }

    /// The weights.
    pub fn weights(&self) -> &[[i32; 2]] {
        &self.weights
    }
}

impl Evaluator for Classical {
    fn evaluate(&self, pos: &Position) -> i32 {
        let mut s = Sum {
            w: &self.weights,
            mg: 0,
            eg: 0,
        };
        let phase = trace(pos, &mut s);
        let white = (s.mg * phase + s.eg * (MAX_PHASE - phase)) / MAX_PHASE;
        let white = scale_drawish(pos, white);
        if pos.turn() == Color::White {
            white
        } else {
            -white
        }
    }
}

/// Halves scores where the side ahead has no pawns and little extra material,
/// which rarely wins.
fn scale_drawish(pos: &Position, white: i32) -> i32 {
    let strong = if white > 0 {
        Color::White
    } else {
        Color::Black
    };
    if pos.pieces(strong, Role::Pawn).nonempty() {
        return white;
    }
    let minor = |c: Color| {
        (pos.pieces(c, Role::Knight) | pos.pieces(c, Role::Bishop)).count() as i32 * 3
            + pos.pieces(c, Role::Rook).count() as i32 * 5
            + pos.pieces(c, Role::Queen).count() as i32 * 9
    };
    if minor(strong) - minor(!strong) <= 3 {
        white / 4
    } else {
        white
    }
}

const FILE_A: u64 = 0x0101_0101_0101_0101;

fn file_bb(f: usize) -> u64 {
    FILE_A << f
}

fn adjacent_files(f: usize) -> u64 {
    let mut m = 0;
    if f > 0 {
        m |= file_bb(f - 1);
    }
    if f < 7 {
        m |= file_bb(f + 1);
    }
    m
}

/// Squares strictly in front of `sq` (from `c`'s side), on any rank.
fn ranks_ahead(c: Color, rank: usize) -> u64 {
    match c {
        Color::White if rank < 7 => !0u64 << (8 * (rank + 1)),
        Color::Black => (1u64 << (8 * rank)) - 1,
        _ => 0,
    }
}

fn pawn_attacks_bb(c: Color, pawns: u64) -> u64 {
    let not_a = !FILE_A;
    let not_h = !(FILE_A << 7);
    match c {
        Color::White => ((pawns & not_a) << 7) | ((pawns & not_h) << 9),
        Color::Black => ((pawns & not_a) >> 9) | ((pawns & not_h) >> 7),
    }
}

fn rel_rank(c: Color, sq: Square) -> usize {
    match c {
        Color::White => sq.rank().index(),
        Color::Black => 7 - sq.rank().index(),
    }
}

/// Records every feature of `pos` into `t` and returns the game phase
/// (0 = bare endgame .. [`MAX_PHASE`]).
pub fn trace<T: Trace>(pos: &Position, t: &mut T) -> i32 {
    let occ = pos.occupied();
    let mut phase = 0;
    // Attack maps of both sides: by pawns, by minors, by rooks, by all.
    let mut att_pawn = [0u64; 2];
    let mut att_minor = [0u64; 2];
    let mut att_rook = [0u64; 2];
    let mut att_all = [0u64; 2];
    for c in Color::ALL {
        let ci = c.index();
        att_pawn[ci] = pawn_attacks_bb(c, pos.pieces(c, Role::Pawn).0);
        for sq in pos.pieces(c, Role::Knight) {
            att_minor[ci] |= knight_attacks(sq).0;
        }
        for sq in pos.pieces(c, Role::Bishop) {
            att_minor[ci] |= bishop_attacks(sq, occ).0;
        }
        for sq in pos.pieces(c, Role::Rook) {
            att_rook[ci] |= rook_attacks(sq, occ).0;
        }
        let mut queens = 0;
        for sq in pos.pieces(c, Role::Queen) {
            queens |= queen_attacks(sq, occ).0;
        }
        att_all[ci] =
            att_pawn[ci] | att_minor[ci] | att_rook[ci] | queens | king_attacks(pos.king(c)).0;
    }
    for c in Color::ALL {
        let sign = if c == Color::White { 1 } else { -1 };
        let us = pos.by_color(c);
        let them = !c;
        let our_pawns = pos.pieces(c, Role::Pawn).0;
        let their_pawns = pos.pieces(them, Role::Pawn).0;
        let enemy_pawn_att = pawn_attacks_bb(them, their_pawns);
        let safe = !(us.0 | enemy_pawn_att);
        let their_king = pos.king(them);
        let zone = (king_attacks(their_king) | Bitboard::from_square(their_king)).0;
        let (ci, ti) = (c.index(), them.index());
        let mut danger_units = 0i32;
        let mut danger_pieces = 0i32;
        let mut queen_attacks_zone = false;

        // Threats against their pieces.
        for (i, role) in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .enumerate()
        {
            let theirs = pos.pieces(them, role).0;
            let n = (theirs & att_pawn[ci]).count_ones() as i32;
            if n > 0 {
                t.add(idx::THREAT_PAWN + i, sign * n);
            }
            if role == Role::Rook || role == Role::Queen {
                let n = (theirs & att_minor[ci]).count_ones() as i32;
                if n > 0 {
                    t.add(idx::THREAT_MINOR + i - 2, sign * n);
                }
            }
            if role == Role::Queen {
                let n = (theirs & att_rook[ci]).count_ones() as i32;
                if n > 0 {
                    t.add(idx::THREAT_ROOK, sign * n);
                }
            }
            let n = (theirs & att_all[ci] & !att_all[ti]).count_ones() as i32;
            if n > 0 {
                t.add(idx::HANGING, sign * n);
            }
        }

        for role in Role::ALL {
            let pieces = pos.pieces(c, role);
            if role != Role::King {
                t.add(idx::MATERIAL + role.index(), sign * pieces.count() as i32);
            }
            for sq in pieces {
                let rel = if c == Color::White {
                    sq
                } else {
                    sq.flip_vertical()
                };
                t.add(idx::PST + role.index() * 64 + rel.index(), sign);
                let att = match role {
                    Role::Knight => knight_attacks(sq).0,
                    Role::Bishop => bishop_attacks(sq, occ).0,
                    Role::Rook => rook_attacks(sq, occ).0,
                    Role::Queen => queen_attacks(sq, occ).0,
                    _ => 0,
                };
                let (mob, cap, katt) = match role {
                    Role::Knight => (idx::MOB_N, 8, 0),
                    Role::Bishop => (idx::MOB_B, 13, 1),
                    Role::Rook => (idx::MOB_R, 14, 2),
                    Role::Queen => (idx::MOB_Q, 27, 3),
                    _ => continue,
                };
                let n = ((att & safe).count_ones() as usize).min(cap);
                t.add(mob + n, sign);
                let k = (att & zone).count_ones() as i32;
                if k > 0 {
                    t.add(idx::KING_ATTACK + katt, sign * k);
                    danger_pieces += 1;
                    danger_units += [2, 2, 3, 5][katt] + k;
                    queen_attacks_zone |= role == Role::Queen;
                }
                if role == Role::Knight || role == Role::Bishop {
                    let rr = rel_rank(c, sq);
                    let f = sq.file().index();
                    if (3..=5).contains(&rr)
                        && att_pawn[ci] & (1u64 << sq.index()) != 0
                        && their_pawns & adjacent_files(f) & ranks_ahead(c, sq.rank().index()) == 0
                    {
                        t.add(idx::OUTPOST + katt, sign);
                    }
                }
                if role == Role::Rook {
                    if rel_rank(c, sq) == 6 {
                        t.add(idx::ROOK_7TH, sign);
                    }
                    let f = file_bb(sq.file().index());
                    if f & (our_pawns | their_pawns) == 0 {
                        t.add(idx::ROOK_OPEN, sign);
                    } else if f & our_pawns == 0 {
                        t.add(idx::ROOK_SEMI, sign);
                    }
                }
            }
        }
        if danger_pieces >= 2 || (queen_attacks_zone && danger_pieces >= 1) {
            t.add(idx::KING_DANGER + danger_units.min(39) as usize, sign);
        }
        phase += pos.pieces(c, Role::Knight).count() as i32
            + pos.pieces(c, Role::Bishop).count() as i32
            + 2 * pos.pieces(c, Role::Rook).count() as i32
            + 4 * pos.pieces(c, Role::Queen).count() as i32;
        if pos.pieces(c, Role::Bishop).count() >= 2 {
            t.add(idx::BISHOP_PAIR, sign);
        }

        // Pawn structure.
        let our_att = pawn_attacks_bb(c, our_pawns);
        for sq in Bitboard(our_pawns) {
            let f = sq.file().index();
            let r = sq.rank().index();
            let ahead = ranks_ahead(c, r);
            let rr = rel_rank(c, sq);
            let bit = 1u64 << sq.index();
            let beside = ((bit & !FILE_A) >> 1) | ((bit & !(FILE_A << 7)) << 1);
            if our_pawns & beside != 0 {
                t.add(idx::PHALANX + rr, sign);
            }
            if our_att & bit != 0 {
                t.add(idx::SUPPORTED + rr, sign);
            }
            if their_pawns & ahead & (file_bb(f) | adjacent_files(f)) == 0 {
                t.add(idx::PASSED + rr, sign);
                if rr >= 3 {
                    let stop_rank = if c == Color::White { r + 1 } else { r - 1 };
                    let dist = |k: Square| {
                        let df = (k.file().index() as i32 - f as i32).abs();
                        let dr = (k.rank().index() as i32 - stop_rank as i32).abs();
                        df.max(dr)
                    };
                    t.add(idx::PASSER_KING_OWN + rr, sign * dist(pos.king(c)));
                    t.add(idx::PASSER_KING_THEIR + rr, sign * dist(their_king));
                }
                if occ.0 & ahead & file_bb(f) == 0 {
                    t.add(idx::PASSED_FREE + rr, sign);
                }
            }
            if our_pawns & adjacent_files(f) == 0 {
                t.add(idx::ISOLATED, sign);
            } else {
                // Backward: no friendly pawn beside or behind on adjacent
                // files, and the square in front is attacked by an enemy pawn.
                let behind_or_level = !ranks_ahead(c, r);
                let stop = match c {
                    Color::White => (1u64 << sq.index()) << 8,
                    Color::Black => (1u64 << sq.index()) >> 8,
                };
                if our_pawns & adjacent_files(f) & behind_or_level == 0
                    && stop & enemy_pawn_att != 0
                    && stop & our_att == 0
                {
                    t.add(idx::BACKWARD, sign);
                }
            }
            if our_pawns & ahead & file_bb(f) != 0 {
                t.add(idx::DOUBLED, sign);
            }
        }

        // King shelter: friendly pawns on the king's and adjacent files, one
        // or two ranks ahead.
        let ksq = pos.king(c);
        let kf = ksq.file().index();
        let kr = ksq.rank().index();
        let near = match c {
            Color::White => {
                if kr < 7 {
                    // Bits shifted past rank 8 fall off.
                    0xffffu64 << (8 * (kr + 1))
                } else {
                    0
                }
            }
            Color::Black => {
                if kr > 0 {
                    let lo = kr.saturating_sub(2);
                    let span = if kr >= 2 { 0xffffu64 } else { 0xff };
                    span << (8 * lo)
                } else {
                    0
                }
            }
        };
        let shield = (our_pawns & near & (file_bb(kf) | adjacent_files(kf))).count_ones();
        if shield > 0 {
            t.add(idx::SHIELD, sign * shield.min(3) as i32);
        }
    }
    t.add(idx::TEMPO, if pos.turn() == Color::White { 1 } else { -1 });
    phase.min(MAX_PHASE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Counts(HashMap<usize, i32>);

    impl Trace for Counts {
        fn add(&mut self, index: usize, n: i32) {
            *self.0.entry(index).or_insert(0) += n;
        }
    }

    fn counts(fen: &str) -> HashMap<usize, i32> {
        let mut c = Counts(HashMap::new());
        trace(&Position::from_fen(fen).unwrap(), &mut c);
        c.0.retain(|_, n| *n != 0);
        c.0
    }

    #[test]
    fn threats_and_hanging_pieces() {
        // e4 attacks the knight on d5, which nothing defends.
        let c = counts("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1");
        assert_eq!(c.get(&idx::THREAT_PAWN), Some(&1));
        assert_eq!(c.get(&idx::HANGING), Some(&1));
        // Defended by the c6 pawn: still a pawn threat, no longer hanging.
        let c = counts("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1");
        assert_eq!(c.get(&idx::THREAT_PAWN), Some(&1));
        assert_eq!(c.get(&idx::HANGING), None);
        // A black bishop attacks the white queen: negative count.
        let c = counts("4k3/8/8/8/8/2b5/8/Q3K3 w - - 0 1");
        assert_eq!(c.get(&(idx::THREAT_MINOR + 1)), Some(&-1));
    }

    #[test]
    fn passed_pawn_king_distances() {
        // e5 passer: its stop square e6 is 5 king steps from a1 and from h1.
        let c = counts("8/8/8/4P3/8/8/8/K6k w - - 0 1");
        assert_eq!(c.get(&(idx::PASSER_KING_OWN + 4)), Some(&5));
        assert_eq!(c.get(&(idx::PASSER_KING_THEIR + 4)), Some(&5));
        // Black's e4 passer (relative rank 4): stop square e3, 3 steps
        // from the black king on h1, 1 from the white king on e2.
        let c = counts("8/8/8/8/4p3/8/4K3/7k w - - 0 1");
        assert_eq!(c.get(&(idx::PASSER_KING_OWN + 4)), Some(&-3));
        assert_eq!(c.get(&(idx::PASSER_KING_THEIR + 4)), Some(&-1));
    }

    #[test]
    fn pawn_chains_outposts_and_seventh_rank() {
        let c = counts("4k3/8/8/8/3PP3/8/8/4K3 w - - 0 1");
        assert_eq!(c.get(&(idx::PHALANX + 3)), Some(&2));
        assert_eq!(c.get(&(idx::SUPPORTED + 3)), None);
        let c = counts("4k3/8/8/4P3/3P4/8/8/4K3 w - - 0 1");
        assert_eq!(c.get(&(idx::SUPPORTED + 4)), Some(&1));
        // Knight on d5 defended by e4, no black pawn on c or e files.
        let c = counts("4k3/8/8/3N4/4P3/8/8/4K3 w - - 0 1");
        assert_eq!(c.get(&idx::OUTPOST), Some(&1));
        // A black pawn on c6 could attack d5: no outpost.
        let c = counts("4k3/8/2p5/3N4/4P3/8/8/4K3 w - - 0 1");
        assert_eq!(c.get(&idx::OUTPOST), None);
        let c = counts("4k3/R7/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(c.get(&idx::ROOK_7TH), Some(&1));
    }

    #[test]
    fn king_danger_needs_two_attackers() {
        // Queen and rook bear on the black king's zone.
        let c = counts("6k1/5ppp/8/8/8/8/5Q2/K5R1 w - - 0 1");
        let danger: Vec<_> = c
            .iter()
            .filter(|(&i, _)| (idx::KING_DANGER..idx::KING_DANGER + 40).contains(&i))
            .collect();
        assert_eq!(danger.len(), 1, "{danger:?}");
        // A lone knight does not count.
        let c = counts("6k1/5ppp/8/6N1/8/8/8/6K1 w - - 0 1");
        assert!(!c
            .keys()
            .any(|i| (idx::KING_DANGER..idx::KING_DANGER + 40).contains(i)));
    }

    #[test]
    fn symmetric() {
        let e = Classical::default();
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8",
            "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            // Mirror: flip ranks and colours.
            let mirrored = mirror(fen);
            let mpos = Position::from_fen(&mirrored).unwrap();
            assert_eq!(e.evaluate(&pos), e.evaluate(&mpos), "{fen} vs {mirrored}");
        }
    }

    fn mirror(fen: &str) -> String {
        let f: Vec<&str> = fen.split(' ').collect();
        let board: Vec<String> = f[0]
            .split('/')
            .rev()
            .map(|r| {
                r.chars()
                    .map(|c| {
                        if c.is_ascii_uppercase() {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        }
                    })
                    .collect()
            })
            .collect();
        let turn = if f[1] == "w" { "b" } else { "w" };
        let castling: String = if f[2] == "-" {
            "-".into()
        } else {
            let mut v: Vec<char> = f[2]
                .chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect();
            v.sort();
            v.into_iter().collect()
        };
        format!(
            "{} {} {} - {} {}",
            board.join("/"),
            turn,
            castling,
            f[4],
            f[5]
        )
    }
}
