//! The Polyglot opening-book scheme: the 64-bit key of a position and the
//! 16-bit encoding of a move, as Polyglot, python-chess
//! (`chess.polyglot.zobrist_hash`) and every engine that reads `.bin` books
//! compute them; and the book file's format of 16-byte entries ([`book`]:
//! from and to bytes, lookup, weighted picks, merge).
//!
//! The key is the exclusive or of published numbers (the 781
//! Random64 values): one per piece and square, one per castling right
//! (White short, White long, Black short, Black long: a right counts as in
//! FEN, whether or not castling is possible now), one for the file of the
//! en passant square **when a pawn of the side to move stands beside the
//! pawn that just moved two squares, whether or not its capture is legal**
//! (the published scheme says so, and Polyglot and python-chess 1.11.2
//! compute it so: a pinned pawn still counts, unlike FEN's legal-only
//! field; a key counting only legal captures would miss their books'
//! entries for such positions), and one when White is to move.
//!
//! ```
//! use rookery_core::polyglot::PolyglotMove;
//! use rookery_core::{Position, UciMove};
//!
//! let pos = Position::startpos();
//! assert_eq!(pos.polyglot_key(), 0x463b_9618_1691_fc9c);
//! let e4 = UciMove::from_ascii(b"e2e4")?.to_move(&pos)?;
//! let raw = PolyglotMove::from_move(e4);
//! assert_eq!(raw.to_string(), "e2e4");
//! assert_eq!(raw.to_move(&pos), Some(e4));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod book;
mod random;

use crate::attacks::pawn_attacks;
use crate::moves::Move;
use crate::position::Position;
use crate::types::{CastlingSide, Color, Role, Square};
use crate::uci::UciMove;
use core::fmt;
use random::RANDOM64;

/// Where the castling numbers start in the Random64 table.
const CASTLE_OFFSET: usize = 768;
/// Where the en-passant file numbers start.
const EP_OFFSET: usize = 772;
/// The number for White to move.
const TURN_OFFSET: usize = 780;

/// The number for `role` of `color` on `sq`: kind `2 * role + (1 for White)`.
#[inline]
fn piece_number(color: Color, role: Role, sq: Square) -> u64 {
    let kind = 2 * role.index() + usize::from(color == Color::White);
    RANDOM64[64 * kind + sq.index()]
}

/// The Polyglot key of `pos` (see the module documentation).
pub fn key(pos: &Position) -> u64 {
    let mut k = 0;
    for color in Color::ALL {
        for role in Role::ALL {
            for sq in pos.pieces(color, role) {
                k ^= piece_number(color, role, sq);
            }
        }
    }
    let rights = [
        (Color::White, CastlingSide::KingSide),
        (Color::White, CastlingSide::QueenSide),
        (Color::Black, CastlingSide::KingSide),
        (Color::Black, CastlingSide::QueenSide),
    ];
    for (i, (color, side)) in rights.into_iter().enumerate() {
        if pos.castling_rook(color, side).is_some() {
            k ^= RANDOM64[CASTLE_OFFSET + i];
        }
    }
    if let Some(ep) = pos.ep_target {
        let us = pos.turn();
        // Our pawns that would capture onto `ep` stand where a pawn of the
        // other colour on `ep` would attack: beside the pawn that moved.
        if (pawn_attacks(us.other(), ep) & pos.pieces(us, Role::Pawn)).nonempty() {
            k ^= RANDOM64[EP_OFFSET + ep.file().index()];
        }
    }
    if pos.turn() == Color::White {
        k ^= RANDOM64[TURN_OFFSET];
    }
    k
}

impl Position {
    /// The Polyglot opening-book key of the position (see [`crate::polyglot`]).
    pub fn polyglot_key(&self) -> u64 {
        key(self)
    }
}

/// A move as a Polyglot book stores it: bits 0-5 the destination, 6-11 the
/// origin (square `8 * rank + file`, a1 = 0), 12-14 the promotion (knight 1,
/// bishop 2, rook 3, queen 4). Castling is the king taking its own rook
/// (`e1h1`, `e8a8`), in Chess960 too.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PolyglotMove(pub u16);

impl PolyglotMove {
    /// The encoding of `m` (a move of some position; castling is already
    /// king-takes-rook in a [`Move`], so no position is needed).
    pub fn from_move(m: Move) -> PolyglotMove {
        if m.is_null() {
            return PolyglotMove(0);
        }
        let promo = m.promotion().map_or(0, |r| r.index() as u16);
        PolyglotMove(m.to().index() as u16 | (m.from().index() as u16) << 6 | promo << 12)
    }

    /// The origin square.
    pub fn from(self) -> Square {
        Square::new(u32::from(self.0 >> 6) & 63)
    }

    /// The destination square (the rook's square for castling).
    pub fn to(self) -> Square {
        Square::new(u32::from(self.0) & 63)
    }

    /// The promotion role, if the bits name one (1-4); other values give `None`.
    pub fn promotion(self) -> Option<Role> {
        match (self.0 >> 12) & 7 {
            p @ 1..=4 => Role::from_index(usize::from(p)),
            _ => None,
        }
    }

    /// The legal move of `pos` this stands for, or `None` (an illegal move,
    /// the empty move `a1a1`, promotion bits out of range, bit 15 set).
    /// Castling is accepted as king-takes-rook (the format's way) and also as
    /// the king's two-square step (`e1g1`) that some books write.
    pub fn to_move(self, pos: &Position) -> Option<Move> {
        if self.0 == 0 || self.0 >> 15 != 0 || ((self.0 >> 12) & 7) > 4 {
            return None;
        }
        UciMove::Normal {
            from: self.from(),
            to: self.to(),
            promotion: self.promotion(),
        }
        .to_move(pos)
        .ok()
    }
}

/// The move as coordinates, castling as king-takes-rook: `e2e4`, `e1h1`, `a7a8q`.
impl fmt::Display for PolyglotMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(r) = self.promotion() {
            write!(f, "{}", r.char())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    fn play(p: &mut Position, uci: &str) {
        let m = UciMove::from_ascii(uci.as_bytes())
            .unwrap()
            .to_move(p)
            .unwrap();
        p.play_unchecked(m);
    }

    /// The test keys published with the format (hgm.nubati.net/book_format.html,
    /// computed there with Toga II): each FEN, and the same position reached
    /// by playing its moves from the start.
    #[test]
    fn the_published_test_keys() {
        let cases: [(&str, &[&str], u64); 9] = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                &[],
                0x463b96181691fc9c,
            ),
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                &["e2e4"],
                0x823c9b50fd114196,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
                &["e2e4", "d7d5"],
                0x0756b94461c50fb0,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
                &["e2e4", "d7d5", "e4e5"],
                0x662fafb965db29d4,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                &["e2e4", "d7d5", "e4e5", "f7f5"],
                0x22a48b5a8e47ff78,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3",
                &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2"],
                0x652a607ca3f242c1,
            ),
            (
                "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4",
                &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"],
                0x00fdd303c946bdd9,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
                &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"],
                0x3c8123ea7b067637,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4",
                &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"],
                0x5c3f9b829b279560,
            ),
        ];
        for (fen, moves, want) in cases {
            assert_eq!(pos(fen).polyglot_key(), want, "{fen}");
            let mut p = Position::startpos();
            for m in moves {
                play(&mut p, m);
            }
            assert_eq!(p.polyglot_key(), want, "{moves:?}");
        }
    }

    /// A pawn beside the one that moved two squares counts even when it is
    /// pinned (the scheme's rule), though FEN and the rules drop the square.
    #[test]
    fn en_passant_counts_a_pinned_capturer() {
        // White king a5, white pawn b5 pinned along the fifth rank by the
        // rook h5 once c7-c5 is played.
        let mut p = pos("4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1");
        play(&mut p, "c7c5");
        assert_eq!(p.ep_square(), None, "the capture b5xc6 is illegal");
        let fen_key = pos("4k3/8/8/KPp4r/8/8/8/8 w - - 0 2").polyglot_key();
        assert_ne!(p.polyglot_key(), fen_key);
        assert_eq!(
            p.polyglot_key(),
            fen_key ^ RANDOM64[EP_OFFSET + 2],
            "the c-file's number is in"
        );
        // Read from FEN with its en passant field: the same key.
        assert_eq!(
            pos("4k3/8/8/KPp4r/8/8/8/8 w - c6 0 2").polyglot_key(),
            p.polyglot_key()
        );
        // No pawn beside: not counted.
        let mut q = Position::startpos();
        play(&mut q, "e2e4");
        assert_eq!(
            q.polyglot_key(),
            pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").polyglot_key()
        );
    }

    #[test]
    fn moves_encode_as_published() {
        let mut p = pos("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let cases = [
            ("e1g1", "e1h1", 0x0107),
            ("e1c1", "e1a1", 0x0100),
            ("b7a8q", "b7a8q", 0x4000 | (49 << 6) | 56),
            ("b7b8n", "b7b8n", 0x1000 | (49 << 6) | 57),
        ];
        for (uci, raw, bits) in cases {
            let m = UciMove::from_ascii(uci.as_bytes())
                .unwrap()
                .to_move(&p)
                .unwrap();
            let pm = PolyglotMove::from_move(m);
            assert_eq!(pm.to_string(), raw);
            assert_eq!(pm.0, bits, "{uci}");
            assert_eq!(pm.to_move(&p), Some(m));
        }
        // e1g1 written by some books is castling too; a1a1 and bad bits are nothing.
        let castle = PolyglotMove(0x0107).to_move(&p);
        assert_eq!(PolyglotMove((4 << 6) | 6).to_move(&p), castle);
        assert_eq!(PolyglotMove(0).to_move(&p), None);
        assert_eq!(PolyglotMove(0x5000 | (49 << 6) | 57).to_move(&p), None);
        assert_eq!(PolyglotMove(0x8000 | (4 << 6) | 5).to_move(&p), None);
        play(&mut p, "e1g1");
        assert_eq!(p.castling_rook(Color::White, CastlingSide::KingSide), None);
    }
}
