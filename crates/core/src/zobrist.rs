//! Zobrist hashing keys, generated at compile time from a fixed seed.

use crate::types::{Color, Piece, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (s, v) = splitmix(state);
        state = s;
        out[i] = v;
        i += 1;
    }
    out
}

static PIECE_SQUARE: [u64; 12 * 64] = keys(0x726f_6f6b_6572_7931);
static CASTLING: [u64; 64] = keys(0x726f_6f6b_6572_7932);
static EP_FILE: [u64; 8] = keys(0x726f_6f6b_6572_7933);
/// Key mixed in when Black is to move.
pub(crate) const BLACK_TO_MOVE: u64 = 0xa3c5_9ac3_f0e1_d2b4;

#[inline]
pub(crate) fn piece(p: Piece, sq: Square) -> u64 {
    PIECE_SQUARE[(p.color.index() * 6 + p.role.index()) * 64 + sq.index()]
}

#[inline]
pub(crate) fn castling_rook(sq: Square) -> u64 {
    CASTLING[sq.index()]
}

#[inline]
pub(crate) fn ep_file(sq: Square) -> u64 {
    EP_FILE[sq.file().index()]
}

#[inline]
pub(crate) fn turn(c: Color) -> u64 {
    match c {
        Color::White => 0,
        Color::Black => BLACK_TO_MOVE,
    }
}
