//! `rookery.Board` and `rookery.Move`: python-chess's names over
//! [`rookery_core::Game`] (a position with the history repetitions need).

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rookery_core::{
    perft, polyglot, CastlingMode, Color, Fen, Game, Position, Role, San, SanPlus, UciMove,
};
use rookery_epd::{write_string, Mode, Record};

/// The standard starting position.
pub const STARTING_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A move in UCI notation, as python-chess's `chess.Move`: squares are
/// numbered `a1` = 0 to `h8` = 63, promotions are piece types (knight 2 ..
/// queen 5).
///
/// >>> m = rookery.Move.from_uci("e7e8q")
/// >>> (m.from_square, m.to_square, m.promotion, m.uci())
/// (52, 60, 5, 'e7e8q')
#[pyclass(module = "rookery", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Move {
    uci: UciMove,
}

impl Move {
    /// The move `m` of `pos`, written for castling `mode`.
    pub fn of(pos: &Position, m: rookery_core::Move, mode: CastlingMode) -> Move {
        Move {
            uci: UciMove::from_move(pos, m, mode),
        }
    }

    /// The UCI text.
    pub fn text(&self) -> String {
        self.uci.to_string()
    }
}

#[pymethods]
impl Move {
    /// Reads a move in UCI notation (`e2e4`, `e7e8q`, `0000`).
    ///
    /// Raises ValueError if the text is not a UCI move.
    #[new]
    fn new(uci: &str) -> PyResult<Move> {
        Move::from_uci(uci)
    }

    /// Reads a move in UCI notation (`e2e4`, `e7e8q`, `0000`).
    ///
    /// Raises ValueError if the text is not a UCI move.
    #[staticmethod]
    fn from_uci(uci: &str) -> PyResult<Move> {
        UciMove::from_ascii(uci.as_bytes())
            .map(|uci| Move { uci })
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The move in UCI notation.
    fn uci(&self) -> String {
        self.text()
    }

    /// The square the piece leaves (0 for the null move).
    #[getter]
    #[allow(clippy::wrong_self_convention)] // python-chess's name
    fn from_square(&self) -> usize {
        match self.uci {
            UciMove::Normal { from, .. } => from.index(),
            UciMove::Null => 0,
        }
    }

    /// The square the piece goes to (0 for the null move).
    #[getter]
    fn to_square(&self) -> usize {
        match self.uci {
            UciMove::Normal { to, .. } => to.index(),
            UciMove::Null => 0,
        }
    }

    /// The piece type promoted to (python-chess numbers: knight 2 .. queen
    /// 5), or None.
    #[getter]
    fn promotion(&self) -> Option<usize> {
        match self.uci {
            UciMove::Normal {
                promotion: Some(role),
                ..
            } => Some(role.index() + 1),
            _ => None,
        }
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self) -> String {
        format!("Move.from_uci({:?})", self.text())
    }

    fn __bool__(&self) -> bool {
        self.uci != UciMove::Null
    }
}

/// A chess position and the moves that led to it (for repetitions), with
/// python-chess's names.
///
/// >>> board = rookery.Board()
/// >>> board.push_san("e4")
/// Move.from_uci('e2e4')
/// >>> board.san(rookery.Move.from_uci("e7e5"))
/// 'e5'
/// >>> board.fen()
/// 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
/// >>> board.perft(3)
/// 9322
#[pyclass(module = "rookery")]
#[derive(Clone)]
pub struct Board {
    game: Game,
    mode: CastlingMode,
}

impl Board {
    /// A board of `game`, its moves written for castling `mode`.
    pub fn of(game: Game, mode: CastlingMode) -> Board {
        Board { game, mode }
    }

    fn pos(&self) -> &Position {
        self.game.position()
    }

    /// The move `m` (a `Move` or a UCI string) of the current position,
    /// the null move (`0000`) included, as python-chess pushes it.
    fn resolve(&self, m: &Bound<'_, PyAny>) -> PyResult<rookery_core::Move> {
        let uci = match m.extract::<Move>() {
            Ok(m) => m.uci,
            Err(_) => Move::from_uci(&m.extract::<String>()?)?.uci,
        };
        if uci == UciMove::Null {
            return Ok(rookery_core::Move::NULL);
        }
        uci.to_move(self.pos())
            .map_err(|e| illegal(m.py(), &e.to_string()))
    }

    fn play(&mut self, py: Python<'_>, m: rookery_core::Move) -> PyResult<Move> {
        let out = Move::of(self.pos(), m, self.mode);
        self.game
            .play_or_null(m)
            .map_err(|e| illegal(py, &e.to_string()))?;
        Ok(out)
    }

    /// The move `san` names, read strictly as python-chess's `parse_san`
    /// reads it (no leniency: [`SanPlus::from_ascii_strict`],
    /// [`San::to_move`]); `--`, `Z0`, `0000` and `@@@@` are the null move.
    fn parse_san_move(&self, py: Python<'_>, san: &str) -> PyResult<rookery_core::Move> {
        let parsed = SanPlus::from_ascii_strict(san.trim().as_bytes())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        match parsed.san {
            San::Null => Ok(rookery_core::Move::NULL),
            ref s => s
                .to_move(self.pos())
                .map_err(|e| illegal(py, &e.to_string())),
        }
    }
}

/// `rookery.IllegalMoveError` (a `ValueError`, as python-chess's).
fn illegal(py: Python<'_>, message: &str) -> PyErr {
    match crate::errors_class(py, "IllegalMoveError").and_then(|c| c.call1((message,))) {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

#[pymethods]
impl Board {
    /// A board at `fen` (the starting position by default). With
    /// `chess960`, castling moves are written king-takes-rook (`e1h1`), as
    /// python-chess's `chess960=True` writes them.
    ///
    /// Raises ValueError if the FEN cannot be read or is not a legal position.
    #[new]
    #[pyo3(signature = (fen = STARTING_FEN, *, chess960 = false))]
    fn new(fen: &str, chess960: bool) -> PyResult<Board> {
        let pos =
            Position::from_fen(fen.trim()).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mode = if chess960 || pos.is_chess960_castling() {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        Ok(Board::of(Game::new(pos), mode))
    }

    /// The legal moves of the position, as a list of `Move`.
    #[getter]
    fn legal_moves(&self) -> Vec<Move> {
        let pos = self.pos();
        pos.legal_moves()
            .iter()
            .map(|&m| Move::of(pos, m, self.mode))
            .collect()
    }

    /// The moves played since the board was made, in order.
    #[getter]
    fn move_stack(&self) -> Vec<Move> {
        let mut pos = self.game.start().clone();
        self.game
            .moves()
            .iter()
            .map(|&m| {
                let out = Move::of(&pos, m, self.mode);
                pos.play_unchecked(m);
                out
            })
            .collect()
    }

    /// The side to move: True for White, False for Black (python-chess's
    /// `chess.WHITE` and `chess.BLACK`).
    #[getter]
    fn turn(&self) -> bool {
        self.pos().turn() == Color::White
    }

    /// The fullmove number (1 at the start, +1 after each Black move).
    #[getter]
    fn fullmove_number(&self) -> u32 {
        self.pos().fullmoves()
    }

    /// Half-moves since the last capture or pawn move (the 50-move rule).
    #[getter]
    fn halfmove_clock(&self) -> u32 {
        self.pos().halfmoves()
    }

    /// Whether the board writes castling king-takes-rook (Chess960).
    #[getter]
    fn chess960(&self) -> bool {
        self.mode == CastlingMode::Chess960
    }

    /// Plays `move` (a `Move` or UCI text).
    ///
    /// Raises IllegalMoveError if it is not legal here.
    fn push(&mut self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = self.resolve(r#move)?;
        self.play(py, m).map(|_| ())
    }

    /// Plays a move given in UCI notation and returns it.
    ///
    /// Raises ValueError if the text is not UCI, IllegalMoveError if the
    /// move is not legal here.
    fn push_uci(&mut self, py: Python<'_>, uci: &Bound<'_, PyAny>) -> PyResult<Move> {
        let m = self.resolve(uci)?;
        self.play(py, m)
    }

    /// Plays a move given in SAN (`Nf3`, `exd8=Q+`, `O-O`) and returns it.
    ///
    /// Raises ValueError if the text is not SAN, IllegalMoveError if no
    /// legal move (or more than one) matches.
    fn push_san(&mut self, py: Python<'_>, san: &str) -> PyResult<Move> {
        let m = self.parse_san_move(py, san)?;
        self.play(py, m)
    }

    /// The legal move a SAN text names.
    ///
    /// Raises ValueError or IllegalMoveError as `push_san`.
    fn parse_san(&self, py: Python<'_>, san: &str) -> PyResult<Move> {
        let m = self.parse_san_move(py, san)?;
        Ok(Move::of(self.pos(), m, self.mode))
    }

    /// Takes back the last move and returns it.
    ///
    /// Raises IndexError if no move was played.
    fn pop(&mut self) -> PyResult<Move> {
        let moves = self.game.moves();
        let Some((&last, before)) = moves.split_last() else {
            return Err(PyIndexError::new_err("pop from an empty move stack"));
        };
        let mut game = Game::new(self.game.start().clone());
        for &m in before {
            game.play_or_null(m)
                .map_err(|e| crate::runtime_error(e.to_string()))?;
        }
        let out = Move::of(game.position(), last, self.mode);
        self.game = game;
        Ok(out)
    }

    /// `move` (a `Move` or UCI text) in SAN, with `+` or `#`.
    ///
    /// Raises IllegalMoveError if it is not legal here.
    fn san(&self, r#move: &Bound<'_, PyAny>) -> PyResult<String> {
        let m = self.resolve(r#move)?;
        Ok(SanPlus::from_move(self.pos(), m).to_string())
    }

    /// `move` in UCI notation (king-takes-rook castling on a Chess960 board).
    ///
    /// Raises IllegalMoveError if it is not legal here.
    fn uci(&self, r#move: &Bound<'_, PyAny>) -> PyResult<String> {
        let m = self.resolve(r#move)?;
        Ok(Move::of(self.pos(), m, self.mode).text())
    }

    /// Whether `move` (a `Move` or UCI text) is legal here.
    fn is_legal(&self, r#move: &Bound<'_, PyAny>) -> bool {
        self.resolve(r#move).is_ok()
    }

    /// The position in FEN (six fields).
    fn fen(&self) -> String {
        Fen::from_position(self.pos()).to_string()
    }

    /// The position in EPD: the four position fields, then the operations
    /// given as keywords, in the canonical order. Values: a `Move` (or a
    /// list of them) for move opcodes (`bm`, `am`, `pm`, `pv`...), `int`,
    /// `float`, `str` (quoted when the opcode takes a string), `None` for
    /// an opcode without operand.
    ///
    /// >>> rookery.Board().epd(bm=rookery.Move.from_uci("e2e4"), id="start")
    /// 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id "start";'
    ///
    /// Raises ValueError if an operation is not valid EPD.
    #[pyo3(signature = (**operations))]
    fn epd(&self, operations: Option<&Bound<'_, pyo3::types::PyDict>>) -> PyResult<String> {
        let mut line = Record::new(self.pos().clone()).to_string();
        for (opcode, value) in operations.into_iter().flatten() {
            let opcode: String = opcode.extract()?;
            line.push(' ');
            line.push_str(&opcode);
            let values: Vec<Bound<'_, PyAny>> = if value.is_none() {
                Vec::new()
            } else if value.is_instance_of::<pyo3::types::PyList>()
                || value.is_instance_of::<PyTuple>()
            {
                value.try_iter()?.collect::<PyResult<_>>()?
            } else {
                vec![value]
            };
            for v in values {
                line.push(' ');
                if let Ok(m) = v.extract::<Move>() {
                    line.push_str(&m.text());
                } else if let Ok(s) = v.extract::<String>() {
                    write_string(&mut line, &s);
                } else {
                    line.push_str(&v.str()?.to_string());
                }
            }
            line.push(';');
        }
        let (record, _warnings) = Record::parse(line.as_bytes(), Mode::Lenient)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(record.to_string())
    }

    /// Whether the side to move is checkmated.
    fn is_checkmate(&self) -> bool {
        self.pos().is_checkmate()
    }

    /// Whether the side to move has no legal move and is not in check.
    fn is_stalemate(&self) -> bool {
        self.pos().is_stalemate()
    }

    /// Whether the side to move is in check.
    fn is_check(&self) -> bool {
        self.pos().is_check()
    }

    /// Whether neither side has the material to mate.
    fn is_insufficient_material(&self) -> bool {
        self.pos().is_insufficient_material()
    }

    /// Whether a draw may be claimed by threefold repetition: the position
    /// has occurred three times, or a legal move makes it so.
    fn can_claim_threefold_repetition(&self) -> bool {
        if self.game.is_threefold_repetition() {
            return true;
        }
        self.pos().legal_moves().iter().any(|&m| {
            let mut next = self.game.clone();
            next.play(m).is_ok() && next.is_threefold_repetition()
        })
    }

    /// Whether a draw may be claimed by the fifty-move rule: fifty moves
    /// without capture or pawn move have been played, or a legal move
    /// makes it so (the claim made with the next move), and the side to
    /// move then has a move, as python-chess's `can_claim_fifty_moves`.
    fn can_claim_fifty_moves(&self) -> bool {
        let pos = self.pos();
        let fifty = |p: &Position| p.is_fifty_moves() && p.has_legal_move();
        fifty(pos)
            || (pos.halfmoves() + 1 >= rookery_core::FIFTY_MOVE_HALFMOVES
                && pos.legal_moves().iter().any(|&m| fifty(&pos.after(m))))
    }

    /// Leaf nodes of the legal move tree `depth` plies deep (GIL released).
    ///
    /// >>> rookery.Board().perft(4)
    /// 197281
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        let pos = self.pos().clone();
        crate::work(py, move || perft(&pos, depth))
    }

    /// rookery's 64-bit Zobrist key of the position (the key its
    /// repetition checks and position searches use).
    fn zobrist(&self) -> u64 {
        self.pos().hash()
    }

    /// The Polyglot opening-book key of the position (python-chess's
    /// `chess.polyglot.zobrist_hash`).
    fn polyglot_key(&self) -> u64 {
        polyglot::key(self.pos())
    }

    /// A copy of the board, history included.
    fn copy(&self) -> Board {
        self.clone()
    }

    /// The same position and moves as a `chess.Board` of python-chess
    /// (which must be installed): its move stack holds the moves played.
    fn to_python_chess<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let chess = py.import("chess")?;
        let start = Fen::from_position(self.game.start()).to_string();
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("chess960", self.mode == CastlingMode::Chess960)?;
        let board = chess.getattr("Board")?.call((start,), Some(&kwargs))?;
        let from_uci = chess.getattr("Move")?.getattr("from_uci")?;
        for m in self.move_stack() {
            board.call_method1("push", (from_uci.call1((m.text(),))?,))?;
        }
        Ok(board)
    }

    /// The pieces of each kind as 64-bit masks (bit `i` = square `i`,
    /// `a1` = 0): White's pawn, knight, bishop, rook, queen, king, then
    /// Black's.
    fn bitboards(&self) -> [u64; 12] {
        bitboards(self.pos())
    }

    fn __str__(&self) -> String {
        let s = self.pos().board_string();
        s.trim_end().to_owned()
    }

    fn __repr__(&self) -> String {
        format!("Board({:?})", self.fen())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .extract::<PyRef<'_, Board>>()
            .is_ok_and(|o| o.pos() == self.pos())
    }

    fn __copy__(&self) -> Board {
        self.clone()
    }
}

/// The pieces of `pos` as twelve masks: White's pawn, knight, bishop, rook,
/// queen, king, then Black's (`Board.bitboards()` in Python).
pub fn bitboards(pos: &Position) -> [u64; 12] {
    let mut out = [0; 12];
    for (c, color) in Color::ALL.into_iter().enumerate() {
        for role in Role::ALL {
            out[6 * c + role.index()] = pos.pieces(color, role).0;
        }
    }
    out
}

/// The SAN of `m` in `pos`, with `+` or `#`, as text.
pub fn san_text(pos: &Position, m: rookery_core::Move) -> String {
    SanPlus::from_move(pos, m).to_string()
}

/// Reads `san` in `pos` strictly, as python-chess's `parse_san`; `None`
/// if it is not a legal move there.
pub fn san_move(pos: &Position, san: &str) -> Option<rookery_core::Move> {
    SanPlus::from_ascii_strict(san.as_bytes())
        .ok()?
        .san
        .to_move(pos)
        .ok()
}
