//! Attack tables, computed at compile time.
//!
//! Sliding pieces use "fancy" magic bitboards: every square has a mask of
//! relevant blockers and its own slice of one shared table. When the crate is
//! compiled with BMI2 enabled (`-C target-cpu=native` on a BMI2 machine) the
//! slice is indexed with the `pext` instruction instead of a magic multiply;
//! the tables are laid out to match at compile time, so both paths use the
//! same memory and the portable build never executes `pext`.

use crate::bitboard::Bitboard;
use crate::types::{Color, Role, Square};

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

/// Attacks of a slider on `sq` along `dirs`, stopping at (and including) blockers.
const fn slide(sq: usize, occ: u64, dirs: &[(i32, i32); 4]) -> u64 {
    let mut att = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let mut f = (sq % 8) as i32 + df;
        let mut r = (sq / 8) as i32 + dr;
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            let b = 1u64 << (r * 8 + f);
            att |= b;
            if occ & b != 0 {
                break;
            }
            f += df;
            r += dr;
        }
        d += 1;
    }
    att
}

/// Squares whose occupancy matters for a slider on `sq` (edges excluded).
const fn relevant_mask(sq: usize, dirs: &[(i32, i32); 4]) -> u64 {
    let mut m = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let mut f = (sq % 8) as i32 + df;
        let mut r = (sq / 8) as i32 + dr;
        while f + df >= 0 && f + df < 8 && r + dr >= 0 && r + dr < 8 {
            m |= 1u64 << (r * 8 + f);
            f += df;
            r += dr;
        }
        d += 1;
    }
    m
}

const fn step_table(steps: &[(i32, i32)]) -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < steps.len() {
            let f = (sq % 8) as i32 + steps[i].0;
            let r = (sq / 8) as i32 + steps[i].1;
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                t[sq] |= 1u64 << (r * 8 + f);
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

static KNIGHT: [u64; 64] = step_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [u64; 64] = step_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static PAWN: [[u64; 64]; 2] = [
    step_table(&[(-1, 1), (1, 1)]),
    step_table(&[(-1, -1), (1, -1)]),
];

/// Knight moves from `sq`.
#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// King moves from `sq`.
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

pub(crate) const ROOK_MAGICS: [u64; 64] = [
    0x2080002080400010,
    0x00c0002001401000,
    0x2100110008402002,
    0x0880080081041000,
    0x0200020020041008,
    0x2300040008010012,
    0x0c00283004008201,
    0x0180010000407a80,
    0x0168800080400020,
    0x0010400040201000,
    0x1001002001001048,
    0x1001002408100100,
    0x0801000408010012,
    0x4001000209000400,
    0x08a20004c8020001,
    0x2002801145002280,
    0x0080860021004200,
    0x001000c009402002,
    0x00b0002004002800,
    0x100a808010020800,
    0x8101010008000410,
    0x0244008002000480,
    0x0000040010810208,
    0x2000020000448534,
    0x4104400480008033,
    0x0000810100204000,
    0x0440430900200010,
    0x4600240900100100,
    0x0060080080040080,
    0x0001000300080400,
    0x0004084400011002,
    0x0023040200008041,
    0x0580050043002080,
    0x0400804002802008,
    0x0001002001004010,
    0x1000200901001000,
    0x4410800801800c00,
    0xa012003806001004,
    0x0020100104008802,
    0x0004808402000041,
    0x0010400170898000,
    0x0080500020004004,
    0x1040408012020020,
    0x8010040008004040,
    0x2001080100110004,
    0x0000020004008080,
    0x0021010810040002,
    0x0800008c43020024,
    0x0000800021005100,
    0x0070201040008080,
    0x0000d04282006a00,
    0x0010014400080240,
    0x0001080110050100,
    0x0012000810240600,
    0x0402000801040200,
    0x028100108a004100,
    0x0050800300102045,
    0x8208210040120882,
    0x8010600101183441,
    0x020b000910006045,
    0x0241001002480005,
    0x0081000400880241,
    0x0000009008024124,
    0x0048122980410402,
];
pub(crate) const BISHOP_MAGICS: [u64; 64] = [
    0x0848020822040013,
    0x8010a40085821200,
    0x0008008430840822,
    0x0808048108040000,
    0x1304042100008104,
    0x5001012010204023,
    0x81048801b8200420,
    0x200a008084012000,
    0x0040102001042084,
    0x840a505042428020,
    0x0000700102202920,
    0x44101c0c10800002,
    0x0040040422000000,
    0x0180020802090202,
    0x4020020811041202,
    0x000104308c042000,
    0x4140661002424400,
    0x0028012008010460,
    0x0188062102002a00,
    0x0014004840102008,
    0x0105000290400002,
    0x8001022200410400,
    0x104a041918013446,
    0x008a000082008238,
    0x04a0060008100430,
    0x0008220008820801,
    0x2508041208005010,
    0x4008080200202020,
    0x2441001013004000,
    0x0030008060407000,
    0x4008108000420800,
    0x0012021050290100,
    0x0210080482200500,
    0xcc01112048100480,
    0x0020402806500440,
    0x00048e0080580080,
    0x0040102020020080,
    0x0028010440080807,
    0x4601041108008800,
    0x8040810e04104200,
    0x901210110400088a,
    0xa003080212081050,
    0x00c1004048401004,
    0x900000a014400800,
    0x0008021040405401,
    0x4020008206002090,
    0x0004190424030100,
    0x0424008a02026250,
    0x8004088250900040,
    0x1c00430088a04200,
    0x0001020094040001,
    0x8040210020880061,
    0x2010040450442032,
    0x0800840850044001,
    0x0004040802140004,
    0x0004080a04222020,
    0x8088802110022000,
    0x1081a10416114400,
    0x0205010a24060820,
    0x0000000720411080,
    0x1008000208430400,
    0x580c026028810840,
    0x802020441020a110,
    0x12c0022401020018,
];

#[derive(Copy, Clone)]
struct Magic {
    mask: u64,
    magic: u64,
    offset: u32,
    shift: u8,
}

const USE_PEXT: bool = cfg!(all(target_arch = "x86_64", target_feature = "bmi2"));

/// The slot of subset `occ` (the `k`-th subset of the mask in increasing
/// order) in the square's slice. `pext` of the k-th subset is k, because
/// `pext` keeps the order of the mask's bits.
const fn table_index(m: &Magic, occ: u64, k: usize) -> usize {
    if USE_PEXT {
        m.offset as usize + k
    } else {
        m.offset as usize + ((occ & m.mask).wrapping_mul(m.magic) >> m.shift) as usize
    }
}

const fn magics(dirs: &[(i32, i32); 4], nums: &[u64; 64], base: u32) -> ([Magic; 64], u32) {
    let mut out = [Magic {
        mask: 0,
        magic: 0,
        offset: 0,
        shift: 0,
    }; 64];
    let mut offset = base;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        out[sq] = Magic {
            mask,
            magic: nums[sq],
            offset,
            shift: (64 - bits) as u8,
        };
        offset += 1 << bits;
        sq += 1;
    }
    (out, offset)
}

const ROOK_TABLE: ([Magic; 64], u32) = magics(&ROOK_DIRS, &ROOK_MAGICS, 0);
const BISHOP_TABLE: ([Magic; 64], u32) = magics(&BISHOP_DIRS, &BISHOP_MAGICS, ROOK_TABLE.1);
const TABLE_SIZE: usize = BISHOP_TABLE.1 as usize;

static ROOK: [Magic; 64] = ROOK_TABLE.0;
static BISHOP: [Magic; 64] = BISHOP_TABLE.0;

const fn fill(table: &mut [u64; TABLE_SIZE], ms: &[Magic; 64], dirs: &[(i32, i32); 4]) {
    let mut sq = 0;
    while sq < 64 {
        let m = &ms[sq];
        // Enumerate every subset of the mask in increasing order (Carry-Rippler).
        let mut sub = 0u64;
        let mut k = 0;
        loop {
            let idx = table_index(m, sub, k);
            k += 1;
            let att = slide(sq, sub, dirs);
            // A magic that maps two occupancies with different attacks to one
            // slot would be a bug: fail the build.
            assert!(table[idx] == 0 || table[idx] == att, "bad magic number");
            table[idx] = att;
            sub = sub.wrapping_sub(m.mask) & m.mask;
            if sub == 0 {
                break;
            }
        }
        sq += 1;
    }
}

const fn build_sliders() -> [u64; TABLE_SIZE] {
    let mut t = [0u64; TABLE_SIZE];
    fill(&mut t, &ROOK_TABLE.0, &ROOK_DIRS);
    fill(&mut t, &BISHOP_TABLE.0, &BISHOP_DIRS);
    t
}

static SLIDERS: [u64; TABLE_SIZE] = build_sliders();

#[inline(always)]
fn slider_index(m: &Magic, occ: Bitboard) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: this branch is only compiled when the BMI2 feature is enabled
        // for the whole build, so the instruction exists on the target.
        m.offset as usize + unsafe { core::arch::x86_64::_pext_u64(occ.0, m.mask) } as usize
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        m.offset as usize + ((occ.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize
    }
}

/// Rook moves from `sq` given the occupied squares `occ` (captures of blockers included).
#[inline]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let m = &ROOK[sq.index()];
    // The index is within the square's slice by construction of the table.
    Bitboard(SLIDERS[slider_index(m, occ)])
}

/// Bishop moves from `sq` given the occupied squares `occ`.
#[inline]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let m = &BISHOP[sq.index()];
    Bitboard(SLIDERS[slider_index(m, occ)])
}

/// Queen moves from `sq` given the occupied squares `occ`.
#[inline]
pub fn queen_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    rook_attacks(sq, occ) | bishop_attacks(sq, occ)
}

/// Squares attacked by a piece of `role` and `color` on `sq`.
#[inline]
pub fn attacks(color: Color, role: Role, sq: Square, occ: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn_attacks(color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occ),
        Role::Rook => rook_attacks(sq, occ),
        Role::Queen => queen_attacks(sq, occ),
        Role::King => king_attacks(sq),
    }
}

const fn build_lines() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut line = [[0u64; 64]; 64];
    let mut between = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            if a != b {
                let bb = 1u64 << b;
                let ra = slide(a, 0, &ROOK_DIRS);
                let ba = slide(a, 0, &BISHOP_DIRS);
                if ra & bb != 0 {
                    line[a][b] = (ra & slide(b, 0, &ROOK_DIRS)) | (1 << a) | bb;
                    between[a][b] = slide(a, bb, &ROOK_DIRS) & slide(b, 1 << a, &ROOK_DIRS);
                } else if ba & bb != 0 {
                    line[a][b] = (ba & slide(b, 0, &BISHOP_DIRS)) | (1 << a) | bb;
                    between[a][b] = slide(a, bb, &BISHOP_DIRS) & slide(b, 1 << a, &BISHOP_DIRS);
                }
            }
            b += 1;
        }
        a += 1;
    }
    (line, between)
}

const LINES: ([[u64; 64]; 64], [[u64; 64]; 64]) = build_lines();
static LINE: [[u64; 64]; 64] = LINES.0;
static BETWEEN: [[u64; 64]; 64] = LINES.1;

/// The squares strictly between `a` and `b` if they share a rank, file or diagonal.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index()][b.index()])
}

/// The whole line (edge to edge) through `a` and `b`, or empty if they are not aligned.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINE[a.index()][b.index()])
}

/// Whether `c` lies on the line through `a` and `b`.
#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sliders_match_slow_rays() {
        // A handful of pseudo-random occupancies on every square.
        let mut x = 0x1234_5678_9abc_def1u64;
        for sq in 0..64 {
            for _ in 0..64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let occ = x & (x >> 3);
                let s = Square::new(sq);
                assert_eq!(
                    rook_attacks(s, Bitboard(occ)).0,
                    slide(sq as usize, occ, &ROOK_DIRS)
                );
                assert_eq!(
                    bishop_attacks(s, Bitboard(occ)).0,
                    slide(sq as usize, occ, &BISHOP_DIRS)
                );
            }
        }
    }

    #[test]
    fn between_and_line() {
        assert_eq!(between(Square::A1, Square::H8).count(), 6);
        assert_eq!(between(Square::A1, Square::H1).count(), 6);
        assert!(between(Square::A1, Square::new(17)).is_empty());
        assert_eq!(line(Square::A1, Square::new(18)).count(), 8);
        assert!(aligned(Square::A1, Square::H8, Square::new(27)));
    }
}
