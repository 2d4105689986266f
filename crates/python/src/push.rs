//! `Board.push` of the Python layer (python-chess's semantics) in Rust: the
//! state of a board as the tuple the Python `Board` keeps on its stack, and
//! the state after a move, computed as python-chess computes it (without
//! checking that the move is legal).

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use rookery_core::{CastlingMode, Position, Square, UciMove};

use crate::board::{position_of, Move};

/// python-chess's piece types.
const PAWN: u8 = 1;
const KING: u8 = 6;
const ROOK: u8 = 4;

const RANK_1: u64 = 0xff;
const RANK_8: u64 = 0xff << 56;
const CORNERS_1: u64 = 1 | 1 << 7;
const CORNERS_8: u64 = 1 << 56 | 1 << 63;
const E1: u64 = 1 << 4;
const E8: u64 = 1 << 60;

/// What python-chess compares for repetitions: the pieces, the side to
/// move, the castling rights that can be, and the en passant square where
/// a legal capture there exists.
type Key = ([u64; 6], [u64; 2], bool, u64, Option<u8>);

/// A board's state: `pawns` .. `kings`, `occupied_co` (Black, White),
/// `occupied`, `promoted`, `turn`, `castling_rights`, `ep_square`,
/// `halfmove_clock`, `fullmove_number`.
#[derive(Clone)]
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
    fn standard_notation(&self, m: Move, chess960: bool) -> Move {
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

    /// python-chess's `clean_castling_rights`.
    fn clean_castling(&self, chess960: bool) -> u64 {
        let castling = self.castling & self.masks[3];
        let mut white = castling & RANK_1 & self.co[1];
        let mut black = castling & RANK_8 & self.co[0];
        let kings = self.masks[5] & !self.promoted;
        if !chess960 {
            white &= CORNERS_1;
            black &= CORNERS_8;
            if self.co[1] & kings & E1 == 0 {
                white = 0;
            }
            if self.co[0] & kings & E8 == 0 {
                black = 0;
            }
            return white | black;
        }
        let mut out = 0;
        for (ours, rights, backrank) in [(self.co[1], white, RANK_1), (self.co[0], black, RANK_8)] {
            let king = ours & kings & backrank;
            if king.count_ones() != 1 {
                continue;
            }
            let k = king.trailing_zeros();
            let a_side = rights & ((1u64 << k) - 1);
            let h_side = rights & !(king | (king - 1));
            if a_side != 0 {
                out |= 1u64 << a_side.trailing_zeros();
            }
            if h_side != 0 {
                out |= 1u64 << (63 - h_side.leading_zeros());
            }
        }
        out
    }

    /// The pawns of the side to move that may take en passant, the pin and
    /// check aside (python-chess's `generate_pseudo_legal_ep`).
    fn ep_capturers(&self) -> u64 {
        let Some(ep) = self.ep.filter(|&ep| ep < 64) else {
            return 0;
        };
        if self.occupied & bit(ep) != 0 || ep / 8 != if self.turn { 5 } else { 2 } {
            return 0;
        }
        let behind = if self.turn { ep - 8 } else { ep + 8 };
        let pawns = self.masks[0];
        if pawns & self.co[usize::from(!self.turn)] & bit(behind) == 0 {
            return 0;
        }
        let mut from = 0;
        if ep % 8 > 0 {
            from |= bit(behind - 1);
        }
        if ep % 8 < 7 {
            from |= bit(behind + 1);
        }
        pawns & self.ours() & from
    }

    /// rookery-core's position of the state, as the Python `Board._rules`
    /// builds it; None where rookery-core refuses it.
    fn position(&self, chess960: bool) -> Option<Position> {
        let mut masks = [0u64; 12];
        for (i, &m) in self.masks.iter().enumerate() {
            masks[i] = m & self.co[1];
            masks[i + 6] = m & self.co[0];
        }
        let ep = if self.ep_capturers() != 0 {
            self.ep
        } else {
            None
        };
        position_of(
            &masks,
            self.turn,
            self.clean_castling(chess960),
            ep.map(u32::from),
            u32::try_from(self.halfmoves).ok()?,
            u32::try_from(self.fullmoves.max(1)).ok()?,
        )
        .ok()
    }

    /// python-chess's `has_legal_en_passant`; None where rookery-core
    /// refuses the position (and a capture is pseudo-legal).
    fn has_legal_ep(&self, chess960: bool) -> Option<bool> {
        let capturers = self.ep_capturers();
        if capturers == 0 {
            return Some(false);
        }
        let pos = self.position(chess960)?;
        let to = Square::new(u32::from(self.ep?));
        Some(rookery_core::Bitboard(capturers).into_iter().any(|from| {
            UciMove::Normal {
                from,
                to,
                promotion: None,
            }
            .to_move(&pos)
            .is_ok()
        }))
    }

    /// python-chess's `_transposition_key`.
    fn key(&self, chess960: bool) -> Option<Key> {
        let ep = if self.has_legal_ep(chess960)? {
            self.ep
        } else {
            None
        };
        Some((
            self.masks,
            self.co,
            self.turn,
            self.clean_castling(chess960),
            ep,
        ))
    }

    /// python-chess's `is_irreversible`: zeroing moves, moves that lose
    /// castling rights, moves that give up a legal en passant capture.
    fn is_irreversible(&self, m: Move, chess960: bool) -> Option<bool> {
        if !m.is_some() {
            return Some(false);
        }
        let (from, to, _, drop) = m.parts();
        let moved = bit(from) ^ bit(to);
        if moved & self.masks[0] != 0
            || moved & self.co[usize::from(!self.turn)] != 0
            || drop == Some(PAWN)
        {
            return Some(true);
        }
        let rights = self.clean_castling(chess960);
        if rights & (bit(from) | bit(to)) != 0 {
            return Some(true);
        }
        let backrank = if self.turn { RANK_1 } else { RANK_8 };
        if self.masks[5] & bit(from) != 0 && rights & backrank != 0 {
            return Some(true);
        }
        self.has_legal_ep(chess960)
    }

    /// python-chess's `Board.push` on the state; the move as the move stack
    /// keeps it.
    fn push(&mut self, m: Move, chess960: bool) -> Move {
        let m = self.to_chess960(m);
        // python-chess cleans the rights once the state is saved.
        self.castling = self.clean_castling(chess960);
        let stacked = self.standard_notation(m, chess960);
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
        // python-chess's `is_zeroing` (the turn already passed above).
        let moved = from_bb ^ to_bb;
        if moved & self.masks[0] != 0 || moved & self.co[usize::from(!turn)] != 0 {
            self.halfmoves = 0;
        }
        let mut promoted = self.promoted & from_bb != 0;
        let Some(mut piece_type) = self.remove_piece_at(from) else {
            return stacked;
        };
        self.castling &= !to_bb & !from_bb;
        let captured = self.piece_type_at(to);
        if piece_type == KING && !promoted {
            self.castling &= if turn { !RANK_1 } else { !RANK_8 };
        } else if captured == Some(KING) && self.promoted & to_bb == 0 {
            // A king taken (pushes are not checked): its side's rights go.
            if turn && to / 8 == 7 {
                self.castling &= !RANK_8;
            } else if !turn && to / 8 == 0 {
                self.castling &= !RANK_1;
            }
        }
        if piece_type == PAWN {
            let diff = i16::from(to) - i16::from(from);
            if (diff == 16 && from / 8 == 1) || (diff == -16 && from / 8 == 6) {
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

/// Repetitions as python-chess counts them (`is_repetition`,
/// `can_claim_threefold_repetition`): how many times the current position
/// (`current`, a state tuple) stands in its history back to the last
/// irreversible move (`stack`: the states before each move of `moves`,
/// the board's `_stack` and `move_stack`), and, with `claim`, whether a
/// threefold repetition can be claimed (it stands there three times, or a
/// legal move makes it stand there three times). None where rookery-core
/// refuses a position it needs (the Python layer then counts).
#[pyfunction]
pub fn repetition(
    stack: &Bound<'_, PyList>,
    moves: &Bound<'_, PyList>,
    current: &Bound<'_, PyTuple>,
    chess960: bool,
    claim: bool,
) -> PyResult<Option<(usize, bool)>> {
    let now = State::read(current)?;
    let Some(first) = now.key(chess960) else {
        return Ok(None);
    };
    let mut keys = vec![first];
    for i in (0..stack.len()).rev() {
        let before = State::read(stack.get_item(i)?.cast::<PyTuple>()?)?;
        let m: Move = moves.get_item(i)?.extract()?;
        match before.is_irreversible(m, chess960) {
            None => return Ok(None),
            Some(true) => break,
            Some(false) => {}
        }
        match before.key(chess960) {
            None => return Ok(None),
            Some(key) => keys.push(key),
        }
    }
    let count = keys.iter().filter(|&k| *k == keys[0]).count();
    if !claim || count >= 3 {
        return Ok(Some((count, count >= 3)));
    }
    let Some(pos) = now.position(chess960) else {
        return Ok(None);
    };
    for &legal in pos.legal_moves().iter() {
        let m = now.standard_notation(Move::of(&pos, legal, CastlingMode::Chess960), chess960);
        match now.is_irreversible(m, chess960) {
            None => return Ok(None),
            Some(true) => continue,
            Some(false) => {}
        }
        let mut after = now.clone();
        after.push(m, chess960);
        let Some(key) = after.key(chess960) else {
            return Ok(None);
        };
        if keys.iter().filter(|&k| *k == key).count() >= 2 {
            return Ok(Some((count, true)));
        }
    }
    Ok(Some((count, false)))
}
