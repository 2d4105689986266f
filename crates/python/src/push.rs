//! `Board.push` of the Python layer (python-chess's semantics) in Rust: the
//! state of a board as the tuple the Python `Board` keeps on its stack, and
//! the state after a move, computed as python-chess computes it (without
//! checking that the move is legal).

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::board::Move;

/// python-chess's piece types.
const PAWN: u8 = 1;
const KING: u8 = 6;
const ROOK: u8 = 4;

/// A board's state: `pawns` .. `kings`, `occupied_co` (Black, White),
/// `occupied`, `promoted`, `turn`, `castling_rights`, `ep_square`,
/// `halfmove_clock`, `fullmove_number`.
struct State {
    masks: [u64; 6],
    co: [u64; 2],
    occupied: u64,
    promoted: u64,
    turn: bool,
    castling: u64,
    ep: Option<u8>,
    halfmoves: i64,
    fullmoves: i64,
}

fn bit(sq: u8) -> u64 {
    1u64 << (sq & 63)
}

impl State {
    /// Reads the tuple `(pawns, knights, bishops, rooks, queens, kings,
    /// white, black, occupied, promoted, turn, castling_rights, ep_square,
    /// halfmove_clock, fullmove_number)`.
    fn read(t: &Bound<'_, PyTuple>) -> PyResult<State> {
        let mut masks = [0u64; 6];
        for (i, m) in masks.iter_mut().enumerate() {
            *m = t.get_item(i)?.extract()?;
        }
        Ok(State {
            masks,
            co: [t.get_item(7)?.extract()?, t.get_item(6)?.extract()?],
            occupied: t.get_item(8)?.extract()?,
            promoted: t.get_item(9)?.extract()?,
            turn: t.get_item(10)?.is_truthy()?,
            castling: t.get_item(11)?.extract()?,
            ep: t.get_item(12)?.extract()?,
            halfmoves: t.get_item(13)?.extract()?,
            fullmoves: t.get_item(14)?.extract()?,
        })
    }

    fn write<'py>(&self, py: Python<'py>, stacked: Move) -> PyResult<Bound<'py, PyTuple>> {
        let m = &self.masks;
        PyTuple::new(
            py,
            [
                m[0].into_pyobject(py)?.into_any(),
                m[1].into_pyobject(py)?.into_any(),
                m[2].into_pyobject(py)?.into_any(),
                m[3].into_pyobject(py)?.into_any(),
                m[4].into_pyobject(py)?.into_any(),
                m[5].into_pyobject(py)?.into_any(),
                self.co[1].into_pyobject(py)?.into_any(),
                self.co[0].into_pyobject(py)?.into_any(),
                self.occupied.into_pyobject(py)?.into_any(),
                self.promoted.into_pyobject(py)?.into_any(),
                self.turn.into_pyobject(py)?.to_owned().into_any(),
                self.castling.into_pyobject(py)?.into_any(),
                self.ep.into_pyobject(py)?.into_any(),
                self.halfmoves.into_pyobject(py)?.into_any(),
                self.fullmoves.into_pyobject(py)?.into_any(),
                stacked.into_pyobject(py)?.into_any(),
            ],
        )
    }

    /// python-chess's `piece_type_at`.
    fn piece_type_at(&self, sq: u8) -> Option<u8> {
        let b = bit(sq);
        if self.occupied & b == 0 {
            return None;
        }
        Some(
            self.masks[..5]
                .iter()
                .position(|&m| m & b != 0)
                .map_or(KING, |i| i as u8 + 1),
        )
    }

    fn remove_piece_at(&mut self, sq: u8) -> Option<u8> {
        let pt = self.piece_type_at(sq)?;
        let keep = !bit(sq);
        self.masks[usize::from(pt - 1)] &= keep;
        self.occupied &= keep;
        self.co[0] &= keep;
        self.co[1] &= keep;
        self.promoted &= keep;
        Some(pt)
    }

    fn set_piece_at(&mut self, sq: u8, pt: u8, white: bool, promoted: bool) {
        self.remove_piece_at(sq);
        let b = bit(sq);
        self.masks[usize::from(pt.clamp(1, 6) - 1)] |= b;
        self.occupied ^= b;
        self.co[usize::from(white)] ^= b;
        if promoted {
            self.promoted ^= b;
        }
    }

    fn ours(&self) -> u64 {
        self.co[usize::from(self.turn)]
    }

    /// python-chess's `_to_chess960`: `e1g1` as king-takes-rook `e1h1`.
    fn to_chess960(&self, m: Move) -> Move {
        let (from, to, _, _) = m.parts();
        let rooks = self.masks[3] & self.ours();
        if (from == 4 || from == 60)
            && self.masks[5] & bit(from) != 0
            && self.promoted & bit(from) == 0
        {
            let rank = from - 4;
            if to == rank + 6 && rooks & bit(rank + 7) != 0 && rooks & bit(rank + 6) == 0 {
                return Move::plain(from, rank + 7);
            }
            if to == rank + 2 && rooks & bit(rank) != 0 && rooks & bit(rank + 2) == 0 {
                return Move::plain(from, rank);
            }
        }
        m
    }

    /// python-chess's `_from_chess960`: king-takes-rook castling as a
    /// standard board writes it.
    fn from_chess960(&self, m: Move, chess960: bool) -> Move {
        let (from, to, promotion, drop) = m.parts();
        if chess960 || promotion.is_some() || drop.is_some() {
            return m;
        }
        let (kings, rooks) = (self.masks[5], self.masks[3]);
        if from == 4 && kings & bit(4) != 0 {
            if to == 7 && rooks & bit(7) != 0 {
                return Move::plain(4, 6);
            }
            if to == 0 && rooks & bit(0) != 0 {
                return Move::plain(4, 2);
            }
        } else if from == 60 && kings & bit(60) != 0 {
            if to == 63 && rooks & bit(63) != 0 {
                return Move::plain(60, 62);
            }
            if to == 56 && rooks & bit(56) != 0 {
                return Move::plain(60, 58);
            }
        }
        m
    }

    /// python-chess's `Board.push` on the state; the move as the move stack
    /// keeps it.
    fn push(&mut self, m: Move, chess960: bool) -> Move {
        let m = self.to_chess960(m);
        let stacked = self.from_chess960(m, chess960);
        let ep_square = self.ep.take();
        self.halfmoves += 1;
        if !self.turn {
            self.fullmoves += 1;
        }
        let (from, to, promotion, drop) = m.parts();
        let turn = self.turn;
        self.turn = !turn;
        if !m.is_some() {
            return stacked;
        }
        if let Some(piece) = drop {
            self.set_piece_at(to, piece, turn, false);
            return stacked;
        }
        let (from_bb, to_bb) = (bit(from), bit(to));
        let mut promoted = self.promoted & from_bb != 0;
        let Some(mut piece_type) = self.remove_piece_at(from) else {
            return stacked;
        };
        let backrank = if turn { 0xff } else { 0xff << 56 };
        self.castling &= !to_bb & !from_bb;
        if piece_type == KING && !promoted {
            self.castling &= !backrank;
        }
        let captured = self.piece_type_at(to);
        if piece_type == PAWN {
            self.halfmoves = 0;
            let diff = i16::from(to) - i16::from(from);
            if diff == 16 || diff == -16 {
                self.ep = Some((i16::from(from) + diff / 2) as u8);
            } else if Some(to) == ep_square
                && (diff.abs() == 7 || diff.abs() == 9)
                && captured.is_none()
            {
                let capture_square = if turn { to.wrapping_sub(8) } else { to + 8 };
                self.remove_piece_at(capture_square & 63);
            }
        }
        if let Some(p) = promotion {
            promoted = true;
            piece_type = p;
        }
        if piece_type == KING && self.co[usize::from(turn)] & to_bb != 0 {
            let a_side = to % 8 < from % 8;
            self.remove_piece_at(to);
            let rank = if turn { 0 } else { 56 };
            self.set_piece_at(rank + if a_side { 2 } else { 6 }, KING, turn, false);
            self.set_piece_at(rank + if a_side { 3 } else { 5 }, ROOK, turn, false);
        } else {
            if captured.is_some() && self.co[usize::from(!turn)] & to_bb != 0 {
                self.halfmoves = 0;
            }
            self.set_piece_at(to, piece_type, turn, promoted);
        }
        stacked
    }
}

/// The state of a board after `move` (python-chess's `Board.push`, the
/// move not checked), from the state before (the tuple `Board._state()`
/// makes); the last item is the move as the move stack keeps it (standard
/// castling notation unless `chess960`).
#[pyfunction]
pub fn push_state<'py>(
    state: &Bound<'py, PyTuple>,
    r#move: Move,
    chess960: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut s = State::read(state)?;
    let stacked = s.push(r#move, chess960);
    s.write(state.py(), stacked)
}
