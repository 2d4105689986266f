//! Moves at one byte a ply: a move is stored as its index among the legal
//! moves of its position in a canonical order, as Scid and En Croissant
//! store games. No position has more than 218 legal moves, so the index
//! fits a byte.
//!
//! The order is rookery's own and fixed, not the move generator's (which
//! may change): by the from square, then the to square (a1 = 0 .. h8 = 63;
//! castling is the king's move to the rook's square, as rookery's moves
//! are), then the promotion (none, knight, bishop, rook, queen). A stored
//! game reads back the same with any later version.
//!
//! ```
//! use rookery_core::{Position, UciMove};
//! use rookery_db::codec;
//!
//! let start = Position::startpos();
//! let moves: Vec<_> = ["e2e4", "e7e5", "g1f3"]
//!     .iter()
//!     .scan(start.clone(), |pos, u| {
//!         let m = u.parse::<UciMove>().unwrap().to_move(pos).unwrap();
//!         pos.play_unchecked(m);
//!         Some(m)
//!     })
//!     .collect();
//! let bytes = codec::encode_line(&start, &moves).unwrap();
//! assert_eq!(bytes.len(), 3);
//! assert_eq!(codec::decode_line(&start, &bytes).unwrap(), moves);
//! ```

use rookery_core::{Move, Position, Role};

/// A stored line that does not replay: the byte at `ply` (from 0) is not
/// the index of a legal move of its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("stored move {ply} (byte {byte}) is not a legal move")]
pub struct CodecError {
    /// The ply, from 0.
    pub ply: usize,
    /// The byte.
    pub byte: u8,
}

/// A move's place in the canonical order.
fn rank(m: Move) -> u32 {
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
    let legal = pos.legal_moves();
    if !legal.contains(m) {
        return None;
    }
    let r = rank(m);
    let below = legal.iter().filter(|&&o| rank(o) < r).count();
    u8::try_from(below).ok()
}

/// The move of byte `b` in `pos`; `None` if there are not that many legal
/// moves.
///
/// A scan decodes every ply of every game, so this is its inner loop: the
/// legal moves are generated once (on the stack), counted by their from
/// square, and only the moves of the one square the byte falls in are
/// put in order (the order is by from square first).
pub fn decode(pos: &Position, b: u8) -> Option<Move> {
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

/// The bytes of `moves` played from `start`; `None` at a move that is not
/// legal where it is played.
pub fn encode_line(start: &Position, moves: &[Move]) -> Option<Vec<u8>> {
    let mut pos = start.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        out.push(encode(&pos, m)?);
        pos.play_unchecked(m);
    }
    Some(out)
}

/// The moves of `bytes` played from `start`.
///
/// # Errors
/// [`CodecError`] at the first byte that is not a legal move's.
pub fn decode_line(start: &Position, bytes: &[u8]) -> Result<Vec<Move>, CodecError> {
    let mut pos = start.clone();
    let mut out = Vec::with_capacity(bytes.len());
    for (ply, &byte) in bytes.iter().enumerate() {
        let m = decode(&pos, byte).ok_or(CodecError { ply, byte })?;
        pos.play_unchecked(m);
        out.push(m);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The order's definition, slowly: the legal moves sorted, the byte's.
    fn decode_by_sorting(pos: &Position, b: u8) -> Option<Move> {
        let mut legal: Vec<Move> = pos.legal_moves().iter().copied().collect();
        legal.sort_by_key(|&m| rank(m));
        legal.get(usize::from(b)).copied()
    }

    proptest! {
        /// Random games (each ply a random legal move) read back the same,
        /// one byte a ply.
        #[test]
        fn random_games_round_trip(picks in prop::collection::vec(any::<u16>(), 0..200)) {
            let start = Position::startpos();
            let mut pos = start.clone();
            let mut moves = Vec::new();
            for p in picks {
                let legal: Vec<Move> = pos.legal_moves().iter().copied().collect();
                if legal.is_empty() {
                    break;
                }
                let m = legal[usize::from(p) % legal.len()];
                moves.push(m);
                pos.play_unchecked(m);
            }
            let bytes = encode_line(&start, &moves).unwrap();
            prop_assert_eq!(bytes.len(), moves.len());
            // Every byte of every position reads as the sorted list says.
            let mut pos = start.clone();
            for &m in &moves {
                for b in 0..=pos.legal_moves().len().min(255) as u8 {
                    prop_assert_eq!(decode(&pos, b), decode_by_sorting(&pos, b));
                }
                pos.play_unchecked(m);
            }
            prop_assert_eq!(decode_line(&start, &bytes).unwrap(), moves);
        }
    }

    #[test]
    fn every_move_of_a_crowded_position_has_its_own_byte() {
        // 218 legal moves, the most any position has.
        let pos =
            Position::from_fen("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1").unwrap();
        let legal: Vec<Move> = pos.legal_moves().iter().copied().collect();
        assert_eq!(legal.len(), 218);
        let mut bytes: Vec<u8> = legal.iter().map(|&m| encode(&pos, m).unwrap()).collect();
        for (&m, &b) in legal.iter().zip(&bytes) {
            assert_eq!(decode(&pos, b), Some(m));
            assert_eq!(decode_by_sorting(&pos, b), Some(m));
        }
        bytes.sort_unstable();
        bytes.dedup();
        assert_eq!(bytes.len(), 218);
        assert_eq!(decode(&pos, 218), None);
    }
}
