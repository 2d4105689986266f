//! `rookery.Board` and `rookery.Move`: python-chess's names over
//! [`rookery_core::Game`] (a position with the history repetitions need).

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rookery_core::{
    perft, polyglot, CastlingMode, Color, Fen, Game, Position, Role, San, SanPlus, Square, UciMove,
};
use rookery_epd::{write_string, Mode, Record};

/// The position of python-chess's state (see `Board.from_masks`), checked
/// as `Board(fen)` is: the message of rookery-core's refusal otherwise.
pub(crate) fn position_of(
    masks: &[u64; 12],
    turn: bool,
    castling: u64,
    ep_square: Option<u32>,
    halfmove_clock: u32,
    fullmove_number: u32,
) -> Result<Position, String> {
    let mut board = [None; 64];
    for (i, &mask) in masks.iter().enumerate() {
        let color = if i < 6 { Color::White } else { Color::Black };
        let role = Role::ALL[i % 6];
        for sq in rookery_core::Bitboard(mask) {
            board[sq.index()] = Some(rookery_core::Piece { color, role });
        }
    }
    let castling = rookery_core::Bitboard(castling)
        .into_iter()
        .filter(|sq| sq.index() < 8 || sq.index() >= 56)
        .map(|sq| {
            let color = if sq.index() < 8 {
                Color::White
            } else {
                Color::Black
            };
            (rookery_core::fen::CastlingRight::File(color, sq.file()), 0)
        })
        .collect();
    let setup = rookery_core::Setup {
        board,
        turn: color_of(turn),
        castling,
        ep_square: ep_square.and_then(Square::try_new).map(|sq| (sq, 0)),
        halfmoves: halfmove_clock,
        fullmoves: fullmove_number.max(1),
        field_offsets: [0; 6],
        adjacent_digits: None,
    };
    setup
        .into_position(rookery_core::Mode::Strict)
        .map(|(pos, _warnings)| pos)
        .map_err(|e| e.to_string())
}

/// King-takes-rook castling (`e1h1`) as a standard board writes it
/// (`e1g1`), where a king stands on e1 (e8) and a rook on the corner
/// (python-chess's `_from_chess960`).
fn standard_castling(m: Move, kings: u64, rooks: u64) -> Move {
    let (from, to, promotion, drop) = m.parts();
    if promotion.is_some() || drop.is_some() {
        return m;
    }
    let on = |mask: u64, sq: u8| mask & (1u64 << sq) != 0;
    match (from, to) {
        (4, 7) if on(kings, 4) && on(rooks, 7) => Move::plain(4, 6),
        (4, 0) if on(kings, 4) && on(rooks, 0) => Move::plain(4, 2),
        (60, 63) if on(kings, 60) && on(rooks, 63) => Move::plain(60, 62),
        (60, 56) if on(kings, 60) && on(rooks, 56) => Move::plain(60, 58),
        _ => m,
    }
}

/// The standard starting position.
pub const STARTING_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A move as python-chess's `chess.Move`: squares are numbered `a1` = 0 to
/// `h8` = 63, pieces are python-chess's piece types (pawn 1 .. king 6);
/// `promotion` is the piece a pawn becomes, `drop` the piece put on
/// `to_square` (Crazyhouse-style drops; a board of standard chess has none).
/// `Move(0, 0)` is the null move (`0000`), false in a boolean context.
///
/// >>> m = rookery.Move.from_uci("e7e8q")
/// >>> (m.from_square, m.to_square, m.promotion, m.uci())
/// (52, 60, 5, 'e7e8q')
/// >>> rookery.Move(12, 28) == rookery.Move.from_uci("e2e4")
/// True
#[pyclass(module = "rookery", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    from: u8,
    to: u8,
    promotion: Option<u8>,
    drop: Option<u8>,
}

/// python-chess's piece letters, by piece type (index 1 = pawn .. 6 = king).
const PIECE_LETTERS: &[u8; 7] = b" pnbrqk";

/// The piece type (1 = pawn .. 6 = king) a lowercase letter names.
fn piece_type_of(letter: u8) -> Option<u8> {
    PIECE_LETTERS[1..]
        .iter()
        .position(|&l| l == letter)
        .map(|i| i as u8 + 1)
}

/// `rookery.InvalidMoveError` (a `ValueError`): text that is not a move.
fn invalid(py: Python<'_>, message: &str) -> PyErr {
    match crate::errors_class(py, "InvalidMoveError").and_then(|c| c.call1((message,))) {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

impl Move {
    /// The move `m` of `pos`, written for castling `mode`.
    pub fn of(pos: &Position, m: rookery_core::Move, mode: CastlingMode) -> Move {
        Move::from_uci_move(UciMove::from_move(pos, m, mode))
    }

    /// The move a [`UciMove`] writes.
    pub fn from_uci_move(uci: UciMove) -> Move {
        match uci {
            UciMove::Normal {
                from,
                to,
                promotion,
            } => Move {
                from: from.index() as u8,
                to: to.index() as u8,
                promotion: promotion.map(|r| r.index() as u8 + 1),
                drop: None,
            },
            UciMove::Null => Move {
                from: 0,
                to: 0,
                promotion: None,
                drop: None,
            },
        }
    }

    /// The move as a [`UciMove`] of standard chess; `None` for a drop.
    pub fn uci_move(&self) -> Option<UciMove> {
        if self.drop.is_some() {
            return None;
        }
        if !self.is_some() {
            return Some(UciMove::Null);
        }
        let square = |i: u8| Square::new(u32::from(i & 63));
        Some(UciMove::Normal {
            from: square(self.from),
            to: square(self.to),
            promotion: self
                .promotion
                .and_then(|p| Role::ALL.get(usize::from(p).wrapping_sub(1)).copied()),
        })
    }

    /// The move's parts: from, to, promotion and drop (piece types 1..=6).
    pub(crate) fn parts(&self) -> (u8, u8, Option<u8>, Option<u8>) {
        (self.from, self.to, self.promotion, self.drop)
    }

    /// A move from `from` to `to` (squares 0..=63), no promotion or drop.
    pub(crate) fn plain(from: u8, to: u8) -> Move {
        Move {
            from: from & 63,
            to: to & 63,
            promotion: None,
            drop: None,
        }
    }

    /// Whether this is not the null move.
    pub(crate) fn is_some(&self) -> bool {
        self.from != 0 || self.to != 0 || self.promotion.is_some() || self.drop.is_some()
    }

    /// The UCI text (`e2e4`, `e7e8q`, `N@f3`, `0000`).
    pub fn text(&self) -> String {
        let name = |sq: u8| {
            let sq = sq & 63;
            format!("{}{}", char::from(b'a' + sq % 8), char::from(b'1' + sq / 8))
        };
        if let Some(piece) = self.drop {
            let letter = PIECE_LETTERS
                .get(usize::from(piece))
                .copied()
                .unwrap_or(b'?');
            format!(
                "{}@{}",
                char::from(letter.to_ascii_uppercase()),
                name(self.to)
            )
        } else if self.is_some() {
            let mut out = name(self.from) + &name(self.to);
            if let Some(p) = self.promotion {
                out.push(char::from(
                    PIECE_LETTERS.get(usize::from(p)).copied().unwrap_or(b'?'),
                ));
            }
            out
        } else {
            "0000".to_owned()
        }
    }

    /// Reads UCI text, drops (`Q@e4`) included.
    fn parse(py: Python<'_>, uci: &str) -> PyResult<Move> {
        let b = uci.as_bytes();
        let bad = || invalid(py, &format!("invalid uci: {uci:?}"));
        let square = |s: &[u8]| Square::from_ascii(s).map(|sq| sq.index() as u8);
        if b == b"0000" {
            return Ok(Move::from_uci_move(UciMove::Null));
        }
        if b.len() == 4 && b[1] == b'@' {
            let piece = piece_type_of(b[0].to_ascii_lowercase()).filter(|&p| p != 6);
            let to = square(&b[2..4]);
            return match (piece, to) {
                (Some(piece), Some(to)) if b[0].is_ascii_uppercase() => Ok(Move {
                    from: to,
                    to,
                    promotion: None,
                    drop: Some(piece),
                }),
                _ => Err(bad()),
            };
        }
        if b.len() != 4 && b.len() != 5 {
            return Err(bad());
        }
        let (Some(from), Some(to)) = (square(&b[0..2]), square(&b[2..4])) else {
            return Err(bad());
        };
        let promotion = match b.get(4) {
            None => None,
            // Any piece letter, as python-chess reads UCI; a board finds a
            // pawn or king promotion illegal.
            Some(&l) => Some(piece_type_of(l).ok_or_else(bad)?),
        };
        if from == to {
            return Err(invalid(
                py,
                &format!("invalid uci (use 0000 for null moves): {uci:?}"),
            ));
        }
        Ok(Move {
            from,
            to,
            promotion,
            drop: None,
        })
    }
}

#[pymethods]
impl Move {
    /// `Move(from_square, to_square, promotion=None, drop=None)` as
    /// python-chess's; `Move("e2e4")` reads UCI text.
    ///
    /// Raises InvalidMoveError (a ValueError) for text that is not UCI,
    /// ValueError for a square outside 0..64 or a piece type outside 1..6.
    #[new]
    #[pyo3(signature = (from_square, to_square = None, promotion = None, drop = None))]
    fn new(
        from_square: &Bound<'_, PyAny>,
        to_square: Option<u8>,
        promotion: Option<u8>,
        drop: Option<u8>,
    ) -> PyResult<Move> {
        let Some(to) = to_square else {
            return Move::parse(from_square.py(), &from_square.extract::<String>()?);
        };
        let from: u8 = from_square.extract()?;
        if from > 63 || to > 63 {
            return Err(PyValueError::new_err(format!(
                "no such square: {from} or {to}"
            )));
        }
        if promotion.is_some_and(|p| !(1..=6).contains(&p))
            || drop.is_some_and(|p| !(1..=6).contains(&p))
        {
            return Err(PyValueError::new_err(
                "piece types are 1 (pawn) to 6 (king)",
            ));
        }
        Ok(Move {
            from,
            to,
            promotion,
            drop,
        })
    }

    /// Reads a move in UCI notation (`e2e4`, `e7e8q`, `N@f3`, `0000`).
    ///
    /// Raises InvalidMoveError (a ValueError) if the text is not a UCI move.
    #[staticmethod]
    fn from_uci(py: Python<'_>, uci: &str) -> PyResult<Move> {
        Move::parse(py, uci)
    }

    /// The null move, `0000`.
    #[staticmethod]
    fn null() -> Move {
        Move::from_uci_move(UciMove::Null)
    }

    /// The move in UCI notation.
    fn uci(&self) -> String {
        self.text()
    }

    /// The move as XBoard writes it (`@@@@` for the null move).
    fn xboard(&self) -> String {
        if self.is_some() {
            self.text()
        } else {
            "@@@@".to_owned()
        }
    }

    /// The square the piece leaves (0 for the null move).
    #[getter]
    #[allow(clippy::wrong_self_convention)] // python-chess's name
    fn from_square(&self) -> u8 {
        self.from
    }

    /// The square the piece goes to (0 for the null move).
    #[getter]
    #[allow(clippy::wrong_self_convention)] // python-chess's name
    fn to_square(&self) -> u8 {
        self.to
    }

    /// The piece type promoted to (python-chess numbers: knight 2 .. queen
    /// 5), or None.
    #[getter]
    fn promotion(&self) -> Option<u8> {
        self.promotion
    }

    /// The piece type dropped, or None.
    #[getter]
    fn drop(&self) -> Option<u8> {
        self.drop
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self) -> String {
        format!("Move.from_uci('{}')", self.text())
    }

    fn __bool__(&self) -> bool {
        self.is_some()
    }

    fn __copy__(&self) -> Move {
        *self
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Move {
        *self
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let m = slf.get();
        let args = (m.from, m.to, m.promotion, m.drop);
        PyTuple::new(
            slf.py(),
            [
                slf.get_type().into_any(),
                args.into_pyobject(slf.py())?.into_any(),
            ],
        )
    }
}

/// rookery-core's view of a position and the moves that led to it (for
/// repetitions), with python-chess's names: `rookery._rookery.Board`.
/// `rookery.Board` (python-chess's attributes and semantics, in Python)
/// asks one of these, built from its FEN, for legal moves, SAN, check and
/// keys; `rookery.epd` records give one as `Record.board()`.
///
/// >>> board = rookery._rookery.Board()
/// >>> board.push_san("e4")
/// Move.from_uci('e2e4')
/// >>> board.san(rookery.Move.from_uci("e7e5"))
/// 'e5'
/// >>> board.fen()
/// 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
/// >>> board.perft(3)
/// 13160
#[pyclass(module = "rookery._rookery")]
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
        let mv = match m.extract::<Move>() {
            Ok(mv) => mv,
            Err(_) => Move::parse(m.py(), &m.extract::<String>()?)?,
        };
        let uci = mv
            .uci_move()
            .ok_or_else(|| illegal(m.py(), &format!("no drops in chess: {}", mv.text())))?;
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
            ref s => s.to_move(self.pos()).map_err(|e| match e {
                rookery_core::SanError::Ambiguous { .. } => {
                    match crate::errors_class(py, "AmbiguousMoveError")
                        .and_then(|c| c.call1((e.to_string(),)))
                    {
                        Ok(err) => PyErr::from_value(err),
                        Err(err) => err,
                    }
                }
                _ => illegal(py, &e.to_string()),
            }),
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

    /// A board from python-chess's state: `masks` are the pieces of each
    /// kind (White's pawn .. king, then Black's, bit `i` = square `i`),
    /// `castling` the rooks that may castle (a mask), `ep_square` the en
    /// passant square (None if none). The position is checked as
    /// `Board(fen)` checks it: rookery-core's rules, no FEN text between.
    ///
    /// >>> b = rookery._rookery.Board.from_masks(rookery.Board().bitboards(), True, 0, None, 0, 1, False)
    /// >>> b.fen()
    /// 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1'
    ///
    /// Raises ValueError if rookery-core refuses the position.
    #[staticmethod]
    #[allow(clippy::too_many_arguments)] // python-chess's state, field by field
    fn from_masks(
        masks: [u64; 12],
        turn: bool,
        castling: u64,
        ep_square: Option<u32>,
        halfmove_clock: u32,
        fullmove_number: u32,
        chess960: bool,
    ) -> PyResult<Board> {
        let pos = position_of(
            &masks,
            turn,
            castling,
            ep_square,
            halfmove_clock,
            fullmove_number,
        )
        .map_err(PyValueError::new_err)?;
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

    /// The legal moves in python-chess's order (pieces from the highest
    /// square down, castling, pawn captures, single and double steps by
    /// target square, en passant; queen promotions first; in check, king
    /// moves first), written as a board with `chess960` writes them
    /// (king-takes-rook castling, or standard notation where the king and
    /// rook stand on their standard squares).
    fn legal_moves_in_order(&self, chess960: bool) -> Vec<Move> {
        let pos = self.pos();
        let in_check = pos.is_check();
        let kings = pos.by_role(Role::King).0;
        let rooks = pos.by_role(Role::Rook).0;
        let mut keyed: Vec<([i32; 5], Move)> = pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let out = Move::of(pos, m, CastlingMode::Chess960);
                let (from, to, promotion, _) = out.parts();
                let (f, t) = (-i32::from(from), -i32::from(to));
                let promo = -i32::from(promotion.unwrap_or(0));
                let role = pos.role_at(m.from());
                let mut key = if m.is_castle() {
                    [1, t, 0, 0, 0]
                } else if role != Some(Role::Pawn) {
                    [0, f, t, 0, 0]
                } else if m.is_en_passant() {
                    [5, f, 0, 0, 0]
                } else if from % 8 != to % 8 {
                    [2, f, t, promo, 0]
                } else if from.abs_diff(to) == 8 {
                    [3, t, promo, 0, 0]
                } else {
                    [4, t, promo, 0, 0]
                };
                if in_check {
                    key.rotate_right(1);
                    key[0] = i32::from(role != Some(Role::King));
                }
                let out = if chess960 {
                    out
                } else {
                    standard_castling(out, kings, rooks)
                };
                (key, out)
            })
            .collect();
        keyed.sort_by_key(|(key, _)| *key);
        keyed.into_iter().map(|(_, m)| m).collect()
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

    /// Whether `move` (a legal `Move` or UCI text) checks the opponent.
    ///
    /// Raises IllegalMoveError if it is not legal here.
    fn gives_check(&self, r#move: &Bound<'_, PyAny>) -> PyResult<bool> {
        let m = self.resolve(r#move)?;
        Ok(self.pos().gives_check(m))
    }

    /// The squares of the pieces that give check, as a 64-bit mask.
    fn checkers(&self) -> u64 {
        self.pos().checkers().0
    }

    /// Whether `color` (True for White) lacks the material to mate.
    fn has_insufficient_material(&self, color: bool) -> bool {
        let color = if color { Color::White } else { Color::Black };
        self.pos().has_insufficient_material(color)
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

/// The color python-chess writes as a bool (True for White).
fn color_of(white: bool) -> Color {
    if white {
        Color::White
    } else {
        Color::Black
    }
}

/// The squares a piece of `piece_type` (1 = pawn .. 6 = king) and `color`
/// on `square` attacks when `occupied` (a 64-bit mask) holds pieces.
///
/// Raises ValueError for a square outside 0..64 or a piece type outside 1..6.
#[pyfunction]
pub fn attacks_mask(piece_type: usize, color: bool, square: u32, occupied: u64) -> PyResult<u64> {
    let role = piece_type
        .checked_sub(1)
        .and_then(|i| Role::ALL.get(i).copied())
        .ok_or_else(|| PyValueError::new_err(format!("no such piece type: {piece_type}")))?;
    let sq = Square::try_new(square)
        .ok_or_else(|| PyValueError::new_err(format!("no such square: {square}")))?;
    Ok(
        rookery_core::attacks::attacks(color_of(color), role, sq, rookery_core::Bitboard(occupied))
            .0,
    )
}

/// The squares strictly between `a` and `b` on a rank, file or diagonal
/// (0 when they are not aligned), as a 64-bit mask.
///
/// Raises ValueError for a square outside 0..64.
#[pyfunction]
pub fn between(a: u32, b: u32) -> PyResult<u64> {
    let (a, b) = squares(a, b)?;
    Ok(rookery_core::attacks::between(a, b).0)
}

/// The whole rank, file or diagonal through `a` and `b` (0 when they are
/// not aligned), as a 64-bit mask.
///
/// Raises ValueError for a square outside 0..64.
#[pyfunction]
pub fn ray(a: u32, b: u32) -> PyResult<u64> {
    let (a, b) = squares(a, b)?;
    Ok(rookery_core::attacks::line(a, b).0)
}

fn squares(a: u32, b: u32) -> PyResult<(Square, Square)> {
    match (Square::try_new(a), Square::try_new(b)) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(PyValueError::new_err(format!("no such square: {a} or {b}"))),
    }
}
