//! The state of a Python `BaseBoard`/`Board` held in Rust ([`BoardState`],
//! the base class of `rookery.BaseBoard`) and `Board.push` on it, with
//! python-chess's semantics: the state after a move, computed as
//! python-chess computes it (without checking that the move is legal), the
//! tuple the Python layer reads and sets the state as, and the repetition
//! counts of the history.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use pyo3::{PyTraverseError, PyVisit};
use rookery_core::{CastlingMode, Game, Position, Square, UciMove};

use crate::board::{position_of, Board, Move};

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
pub(crate) struct State {
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
    pub(crate) fn read(t: &Bound<'_, PyTuple>) -> PyResult<State> {
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

    /// Whether the castling rights that can be (standard chess's) are on
    /// the corners with the kings on e1 and e8 (the Python `Board`'s
    /// `_standard_castling`).
    fn standard_castling(&self) -> bool {
        let rights = self.clean_castling(false);
        let kings = self.masks[5];
        rights & !(CORNERS_1 | CORNERS_8) == 0
            && (rights & RANK_1 == 0 || kings & self.co[1] & E1 != 0)
            && (rights & RANK_8 == 0 || kings & self.co[0] & E8 != 0)
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

/// Repetitions as python-chess counts them (`is_repetition`,
/// `can_claim_threefold_repetition`): how many times the current position
/// (`now`) stands in its history back to the last irreversible move
/// (`stack`: the states before each move of `moves`), and, with `claim`,
/// whether a threefold repetition can be claimed (it stands there three
/// times, or a legal move makes it stand there three times). None where
/// rookery-core refuses a position it needs (the Python layer then counts).
fn repetition(
    stack: &[State],
    moves: &Bound<'_, PyAny>,
    now: &State,
    chess960: bool,
    claim: bool,
) -> PyResult<Option<(usize, bool)>> {
    let Some(first) = now.key(chess960) else {
        return Ok(None);
    };
    let mut keys = vec![first];
    for (i, before) in stack.iter().enumerate().rev() {
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

impl State {
    /// No pieces, White to move, no rights, move 1.
    fn empty() -> State {
        State {
            masks: [0; 6],
            co: [0; 2],
            occupied: 0,
            promoted: 0,
            turn: true,
            castling: 0,
            ep: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// The tuple [`State::read`] reads.
    fn tuple<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
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
            ],
        )
    }
}

/// The state of a Python `BaseBoard`/`Board` (the base class of
/// `rookery.BaseBoard`): python-chess's attributes `pawns` .. `kings`,
/// `occupied_co`, `occupied`, `promoted`, `turn`, `castling_rights`,
/// `ep_square`, `halfmove_clock`, `fullmove_number`, `chess960`,
/// `move_stack` and `_stack` as properties that can be read and set, and
/// `push`/`pop` on them without converting.
#[pyclass(subclass, module = "rookery._rookery")]
pub struct BoardState {
    s: State,
    chess960: bool,
    /// The states before each move of the move stack.
    stack: Vec<State>,
    /// `move_stack` (a list unless a script set something else).
    move_stack: Py<PyAny>,
}

/// A setter's value as a 64-bit mask: TypeError for a value that is not an
/// integer, OverflowError for one out of range.
fn mask_of(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    value.extract()
}

/// `ep_square`'s value: None or a square.
fn square_of(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u8>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => {
            let sq: u8 = v.extract()?;
            if sq > 63 {
                return Err(PyValueError::new_err(format!("no such square: {sq}")));
            }
            Ok(Some(sq))
        }
    }
}

#[pymethods]
impl BoardState {
    /// An empty state (the Python `__init__` sets it); takes any arguments,
    /// which the subclasses' `__init__` read.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(
        py: Python<'_>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> BoardState {
        BoardState {
            s: State::empty(),
            chess960: false,
            stack: Vec::new(),
            move_stack: PyList::empty(py).into_any().unbind(),
        }
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.move_stack)
    }

    fn __clear__(&mut self) {
        // A list with nothing to keep alive in place of the stack.
        Python::attach(|py| self.move_stack = PyList::empty(py).into_any().unbind());
    }

    /// The white and black pawns, a mask.
    #[getter]
    fn pawns(&self) -> u64 {
        self.s.masks[0]
    }
    #[setter]
    fn set_pawns(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.masks[0] = mask_of(value)?;
        Ok(())
    }
    /// The knights, a mask.
    #[getter]
    fn knights(&self) -> u64 {
        self.s.masks[1]
    }
    #[setter]
    fn set_knights(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.masks[1] = mask_of(value)?;
        Ok(())
    }
    /// The bishops, a mask.
    #[getter]
    fn bishops(&self) -> u64 {
        self.s.masks[2]
    }
    #[setter]
    fn set_bishops(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.masks[2] = mask_of(value)?;
        Ok(())
    }
    /// The rooks, a mask.
    #[getter]
    fn rooks(&self) -> u64 {
        self.s.masks[3]
    }
    #[setter]
    fn set_rooks(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.masks[3] = mask_of(value)?;
        Ok(())
    }
    /// The queens, a mask.
    #[getter]
    fn queens(&self) -> u64 {
        self.s.masks[4]
    }
    #[setter]
    fn set_queens(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.masks[4] = mask_of(value)?;
        Ok(())
    }
    /// The kings, a mask.
    #[getter]
    fn kings(&self) -> u64 {
        self.s.masks[5]
    }
    #[setter]
    fn set_kings(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.masks[5] = mask_of(value)?;
        Ok(())
    }
    /// The occupied squares, a mask.
    #[getter]
    fn occupied(&self) -> u64 {
        self.s.occupied
    }
    #[setter]
    fn set_occupied(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.occupied = mask_of(value)?;
        Ok(())
    }
    /// The squares of promoted pieces, a mask.
    #[getter]
    fn promoted(&self) -> u64 {
        self.s.promoted
    }
    #[setter]
    fn set_promoted(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.promoted = mask_of(value)?;
        Ok(())
    }
    /// Black's and White's pieces (`occupied_co[chess.WHITE]`): a list-like
    /// view that writes through to the board, as python-chess's list is
    /// changed in place.
    #[getter]
    fn occupied_co(slf: &Bound<'_, Self>) -> OccupiedCo {
        OccupiedCo {
            board: slf.clone().unbind(),
        }
    }
    #[setter]
    fn set_occupied_co(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if value.len()? != 2 {
            return Err(PyValueError::new_err(
                "occupied_co is two masks: Black's and White's",
            ));
        }
        let co = [mask_of(&value.get_item(0)?)?, mask_of(&value.get_item(1)?)?];
        self.s.co = co;
        Ok(())
    }
    /// The side to move (True for White).
    #[getter]
    fn turn(&self) -> bool {
        self.s.turn
    }
    #[setter]
    fn set_turn(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.turn = value.is_truthy()?;
        Ok(())
    }
    /// The rooks that may castle, a mask.
    #[getter]
    fn castling_rights(&self) -> u64 {
        self.s.castling
    }
    #[setter]
    fn set_castling_rights(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.castling = mask_of(value)?;
        Ok(())
    }
    /// The en passant square (after any double step), or None.
    #[getter]
    fn ep_square(&self) -> Option<u8> {
        self.s.ep
    }
    #[setter]
    fn set_ep_square(&mut self, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.s.ep = square_of(value)?;
        Ok(())
    }
    /// Half-moves since the last capture or pawn move.
    #[getter]
    fn halfmove_clock(&self) -> i64 {
        self.s.halfmoves
    }
    #[setter]
    fn set_halfmove_clock(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.halfmoves = value.extract()?;
        Ok(())
    }
    /// The move number (from 1, after Black's move one more).
    #[getter]
    fn fullmove_number(&self) -> i64 {
        self.s.fullmoves
    }
    #[setter]
    fn set_fullmove_number(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.s.fullmoves = value.extract()?;
        Ok(())
    }
    /// Whether castling is Chess960's (king takes rook in `move_stack`).
    #[getter]
    fn chess960(&self) -> bool {
        self.chess960
    }
    #[setter]
    fn set_chess960(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.chess960 = value.is_truthy()?;
        Ok(())
    }
    /// The moves played (a list).
    #[getter]
    fn move_stack(&self, py: Python<'_>) -> Py<PyAny> {
        self.move_stack.clone_ref(py)
    }
    #[setter]
    fn set_move_stack(&mut self, value: Option<Bound<'_, PyAny>>) -> PyResult<()> {
        let value = value.ok_or_else(|| PyValueError::new_err("move_stack cannot be deleted"))?;
        self.move_stack = value.unbind();
        Ok(())
    }
    /// The states before each move of `move_stack`: a new list of the
    /// tuples `_state()` makes (setting it sets the states).
    #[getter(_stack)]
    fn stack_states<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for s in &self.stack {
            list.append(s.tuple(py)?)?;
        }
        Ok(list)
    }
    #[setter(_stack)]
    fn set_stack_states(&mut self, value: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let value = value.ok_or_else(|| PyValueError::new_err("_stack cannot be deleted"))?;
        let mut stack = Vec::new();
        for item in value.try_iter()? {
            stack.push(State::read(item?.cast::<PyTuple>()?)?);
        }
        self.stack = stack;
        Ok(())
    }

    /// The state as a tuple: `(pawns, knights, bishops, rooks, queens,
    /// kings, white, black, occupied, promoted, turn, castling_rights,
    /// ep_square, halfmove_clock, fullmove_number)`.
    fn _state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.s.tuple(py)
    }

    /// Sets the state `_state()` gave.
    fn _set_state(&mut self, state: &Bound<'_, PyTuple>) -> PyResult<()> {
        self.s = State::read(state)?;
        Ok(())
    }

    /// Appends a state (a `_state()` tuple) to the stack.
    fn _stack_append(&mut self, state: &Bound<'_, PyTuple>) -> PyResult<()> {
        self.stack.push(State::read(state)?);
        Ok(())
    }

    /// The number of states on the stack.
    fn _stack_len(&self) -> usize {
        self.stack.len()
    }

    /// The state before move `index` of the stack, a tuple (IndexError
    /// where there is none).
    fn _stack_at<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyTuple>> {
        let len = self.stack.len() as isize;
        let i = if index < 0 { index + len } else { index };
        if i < 0 || i >= len {
            return Err(PyIndexError::new_err("no such state on the stack"));
        }
        self.stack[i as usize].tuple(py)
    }

    /// The placement: `(pawns, knights, bishops, rooks, queens, kings,
    /// white, black, promoted)`.
    fn _placement<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (m, s) = (&self.s.masks, &self.s);
        PyTuple::new(
            py,
            [
                m[0], m[1], m[2], m[3], m[4], m[5], s.co[1], s.co[0], s.promoted,
            ],
        )
    }

    /// Copies `other`'s state, its `chess960` and the last `stack` states
    /// and moves of its stacks (all of them for None).
    #[pyo3(signature = (other, stack = None))]
    fn _copy_state_from(
        &mut self,
        py: Python<'_>,
        other: &Bound<'_, BoardState>,
        stack: Option<usize>,
    ) -> PyResult<()> {
        let other = other.try_borrow()?;
        self.s = other.s.clone();
        self.chess960 = other.chess960;
        let n = stack.unwrap_or(usize::MAX).min(other.stack.len());
        self.stack = other.stack[other.stack.len() - n..].to_vec();
        let moves = other.move_stack.bind(py);
        let len = moves.len()?;
        let n = stack.unwrap_or(usize::MAX).min(len);
        let kept = moves.get_item(pyo3::types::PySlice::new(
            py,
            (len - n) as isize,
            len as isize,
            1,
        ))?;
        let list = PyList::empty(py);
        for m in kept.try_iter()? {
            list.append(m?)?;
        }
        self.move_stack = list.into_any().unbind();
        Ok(())
    }

    /// Plays `move` without checking that it is legal, as python-chess's
    /// `push` (castling as king takes rook on a Chess960 board, or as the
    /// king's two steps); `pop` takes it back. UCI text is read as a move.
    fn push(&mut self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<()> {
        // The move itself is kept on the move stack when it is a `Move`
        // written as the stack writes it.
        let (m, given) = match r#move.extract::<Move>() {
            Ok(m) => (m, true),
            Err(_) => {
                let m = py
                    .import("rookery._board")?
                    .getattr("_as_move")?
                    .call1((r#move,))?
                    .extract()?;
                (m, false)
            }
        };
        let before = self.s.clone();
        let stacked = self.s.push(m, self.chess960);
        self.stack.push(before);
        let moves = self.move_stack.bind(py);
        let appended = if given && stacked == m {
            r#move.clone()
        } else {
            stacked.into_pyobject(py)?.into_any()
        };
        let done = match moves.cast::<PyList>() {
            Ok(list) => list.append(appended),
            Err(_) => moves.call_method1("append", (appended,)).map(|_| ()),
        };
        if let Err(e) = done {
            // The move was not recorded: the state is put back.
            if let Some(s) = self.stack.pop() {
                self.s = s;
            }
            return Err(e);
        }
        Ok(())
    }

    /// Takes back the last move and returns it (IndexError if none was
    /// played).
    fn pop<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let m = self.move_stack.bind(py).call_method0("pop")?;
        let s = self
            .stack
            .pop()
            .ok_or_else(|| PyIndexError::new_err("pop from empty list"))?;
        self.s = s;
        Ok(m)
    }

    /// The castling rights that can be: a rook and a king of that colour on
    /// their back rank (in standard chess on their start squares), at most
    /// one rook on each side of the king (the outermost).
    fn clean_castling_rights(&self) -> u64 {
        self.s.clean_castling(self.chess960)
    }

    /// rookery-core's board of the position, as python-chess's rules see
    /// it (the en passant square only where a capture there is
    /// pseudo-legal, the castling rights that can be; Chess960 castling on
    /// a Chess960 board or where the rights are not the standard ones);
    /// None where rookery-core refuses the position.
    fn _rules_board(&self) -> Option<Board> {
        let pos = self.s.position(self.chess960)?;
        let mode = if self.chess960 || !self.s.standard_castling() || pos.is_chess960_castling() {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        Some(Board::of(Game::new(pos), mode))
    }

    /// Empties `move_stack` and the states before its moves.
    fn clear_stack(&mut self, py: Python<'_>) {
        self.move_stack = PyList::empty(py).into_any().unbind();
        self.stack.clear();
    }

    /// How many times the position stands in its history back to the last
    /// irreversible move, and (with `claim`) whether a threefold repetition
    /// can be claimed, as python-chess counts; None where rookery-core
    /// refuses a position on the way or the stacks do not match.
    fn _repetition_counts(&self, py: Python<'_>, claim: bool) -> PyResult<Option<(usize, bool)>> {
        let moves = self.move_stack.bind(py);
        if moves.len()? != self.stack.len() {
            return Ok(None);
        }
        repetition(&self.stack, moves, &self.s, self.chess960, claim)
    }
}

/// `occupied_co` of a board: its Black and White masks, read and written
/// through to the board (`board.occupied_co[chess.WHITE] |= mask`).
#[pyclass(module = "rookery._rookery", sequence)]
pub struct OccupiedCo {
    board: Py<BoardState>,
}

impl OccupiedCo {
    fn index(&self, index: &Bound<'_, PyAny>) -> PyResult<usize> {
        let i: isize = index.extract()?;
        match i {
            0 | -2 => Ok(0),
            1 | -1 => Ok(1),
            _ => Err(PyIndexError::new_err("list index out of range")),
        }
    }

    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let co = self.board.bind(py).try_borrow()?.s.co;
        PyList::new(py, co)
    }
}

#[pymethods]
impl OccupiedCo {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.board)
    }

    fn __len__(&self) -> usize {
        2
    }

    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = index.py();
        if let Ok(i) = self.index(index) {
            let co = self.board.bind(py).try_borrow()?.s.co;
            return Ok(co[i].into_pyobject(py)?.into_any());
        }
        // Slices and out-of-range indices: as the list would answer.
        self.list(py)?.as_any().get_item(index)
    }

    fn __setitem__(&self, index: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let i = self.index(index)?;
        let mask = mask_of(value)?;
        self.board.bind(index.py()).try_borrow_mut()?.s.co[i] = mask;
        Ok(())
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.list(py)?.as_any().try_iter()?.into_any())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = other.py();
        let mine = self.list(py)?;
        if let Ok(o) = other.cast::<OccupiedCo>() {
            return mine.as_any().eq(o.borrow().list(py)?);
        }
        mine.as_any().eq(other)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.list(py)?.as_any().repr()?.to_string())
    }

    /// A list of the two masks.
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.list(py)
    }
}
