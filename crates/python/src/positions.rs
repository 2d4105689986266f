//! `rookery.pgn.positions`: the positions of a PGN file's games as NumPy
//! arrays, a chunk at a time, built with the GIL released: on the calling
//! thread, or with `jobs` > 1 on reading threads that each build the rows
//! of their own pieces of the file (the calling thread only joins them).
//! Between steps of a chunk the GIL is taken back to handle signals, so
//! that Ctrl-C stops a long read.

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rookery_core::Color;
use rookery_pgn::source::Reading;
use rookery_pgn::split::PieceGames;
use rookery_pgn::{Detail, GameResult, Games, ReadGame};

use crate::board::bitboards;
use crate::input::Source;
use crate::pgn::{games_of, move_comments, white_score, worth_threads, PIECE_BYTES, SIGNAL_CHECK};

/// Games read on the calling thread between two looks for a signal.
const GAMES_PER_STEP: usize = 256;

/// Pieces' rows waiting for the calling thread, per reading thread.
const PIECES_PER_JOB: usize = 2;

/// Columns of one chunk.
#[derive(Default)]
struct Chunk {
    bitboards: Vec<u64>,
    turn: Vec<bool>,
    castling: Vec<u64>,
    ply: Vec<u32>,
    game: Vec<u32>,
    result: Vec<f32>,
    eval: Vec<f32>,
    clock: Vec<f32>,
}

impl Chunk {
    fn len(&self) -> usize {
        self.turn.len()
    }

    /// Room for `rows` more rows.
    fn reserve(&mut self, rows: usize) {
        self.bitboards.reserve(rows * 12);
        self.turn.reserve(rows);
        self.castling.reserve(rows);
        self.ply.reserve(rows);
        self.game.reserve(rows);
        self.result.reserve(rows);
        self.eval.reserve(rows);
        self.clock.reserve(rows);
    }

    /// Adds the rows of `other` after these (or takes them, if there are none).
    fn append(&mut self, mut other: Chunk) {
        if self.len() == 0 {
            *self = other;
            return;
        }
        self.bitboards.append(&mut other.bitboards);
        self.turn.append(&mut other.turn);
        self.castling.append(&mut other.castling);
        self.ply.append(&mut other.ply);
        self.game.append(&mut other.game);
        self.result.append(&mut other.result);
        self.eval.append(&mut other.eval);
        self.clock.append(&mut other.clock);
    }

    /// Adds the positions of `g` at plies `0, every, 2 * every, ...`.
    fn add(&mut self, g: &ReadGame, every: usize) {
        let game = &g.game;
        let result = match game.result {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
            GameResult::Unknown => f32::NAN,
        };
        let first = game.start.turn();
        let mut pos = game.start.clone();
        let n = game.mainline.nodes.len();
        for ply in 0..=n {
            if ply > 0 {
                pos.play_unchecked(game.mainline.nodes[ply - 1].mv);
            }
            if ply % every != 0 {
                continue;
            }
            self.bitboards.extend_from_slice(&bitboards(&pos));
            self.turn.push(pos.turn() == Color::White);
            self.castling.push(pos.castling_rooks().0);
            self.ply.push(u32::try_from(ply).unwrap_or(u32::MAX));
            self.game.push(u32::try_from(g.index).unwrap_or(u32::MAX));
            self.result.push(result);
            let (eval, clock) = match ply.checked_sub(1) {
                None => (f32::NAN, f32::NAN),
                Some(i) => {
                    // After move i + 1, the other side than at the start is
                    // to move when i is even.
                    let turn = if i % 2 == 0 { first.other() } else { first };
                    let eval = move_comments(&game.mainline, i)
                        .find_map(|c| rookery_pgn::commands::eval(c))
                        .map_or(f32::NAN, |e| white_score(e, turn) as f32);
                    let clock = move_comments(&game.mainline, i)
                        .find_map(|c| rookery_pgn::commands::clock(c))
                        .map_or(f32::NAN, |c| c as f32);
                    (eval, clock)
                }
            };
            self.eval.push(eval);
            self.clock.push(clock);
        }
    }

    fn into_dict(self, py: Python<'_>, planes: bool) -> PyResult<Bound<'_, PyDict>> {
        let n = self.len();
        let d = PyDict::new(py);
        if planes {
            let mut p = vec![0u8; n * 12 * 64];
            for (i, &bb) in self.bitboards.iter().enumerate() {
                for sq in 0..64 {
                    p[i * 64 + sq] = ((bb >> sq) & 1) as u8;
                }
            }
            let p = Array3::from_shape_vec((n, 12, 64), p)
                .map_err(|e| crate::runtime_error(e.to_string()))?;
            d.set_item("planes", p.into_pyarray(py))?;
        }
        let bb = Array2::from_shape_vec((n, 12), self.bitboards)
            .map_err(|e| crate::runtime_error(e.to_string()))?;
        d.set_item("bitboards", bb.into_pyarray(py))?;
        d.set_item("turn", PyArray1::from_vec(py, self.turn))?;
        d.set_item("castling", PyArray1::from_vec(py, self.castling))?;
        d.set_item("ply", PyArray1::from_vec(py, self.ply))?;
        d.set_item("game", PyArray1::from_vec(py, self.game))?;
        d.set_item("result", PyArray1::from_vec(py, self.result))?;
        d.set_item("eval", PyArray1::from_vec(py, self.eval))?;
        d.set_item("clock", PyArray1::from_vec(py, self.clock))?;
        Ok(d)
    }
}

/// The rows of one piece of the file, read on a reading thread, and the
/// games skipped there.
type Piece = io::Result<(Chunk, usize)>;

enum State {
    /// Read on the calling thread. Boxed: the reader holds SIMD searchers
    /// aligned to 32 bytes, more than Python's allocator gives the object a
    /// pyclass lives in.
    One(Box<Games<Box<dyn Read + Send>>>),
    /// Read on threads; pieces come in file order.
    Many {
        pieces: Receiver<Piece>,
        thread: Option<JoinHandle<()>>,
    },
    Done,
}

/// What one step of filling a chunk came to.
enum Step {
    /// Go on (more rows, or none yet).
    More,
    /// The input is read.
    End,
    /// A reading thread panicked.
    Panicked(Box<dyn std::any::Any + Send>),
}

impl State {
    /// Adds rows to `chunk`: the next [`GAMES_PER_STEP`] games (fewer
    /// once it has `size` rows), or the next piece the threads read (none
    /// after [`SIGNAL_CHECK`] without one); counts skipped games in
    /// `skipped`.
    fn step(
        &mut self,
        (chunk, size): (&mut Chunk, usize),
        skipped: &Mutex<usize>,
        every: usize,
        filter: Option<&Py<PyAny>>,
    ) -> PyResult<Result<Step, io::Error>> {
        let count = |n: usize| *skipped.lock().unwrap_or_else(PoisonError::into_inner) += n;
        match self {
            State::One(games) => {
                for _ in 0..GAMES_PER_STEP {
                    if chunk.len() >= size {
                        break;
                    }
                    let g = match games.next() {
                        None => return Ok(Ok(Step::End)),
                        Some(Err(e)) => return Ok(Err(e)),
                        Some(Ok(g)) => g,
                    };
                    if g.error.is_some() {
                        count(1);
                    } else if keep(&g, filter)? {
                        chunk.add(&g, every);
                    }
                    games.recycle(g);
                }
                Ok(Ok(Step::More))
            }
            State::Many { pieces, thread } => match pieces.recv_timeout(SIGNAL_CHECK) {
                Ok(Ok((rows, n))) => {
                    count(n);
                    chunk.append(rows);
                    Ok(Ok(Step::More))
                }
                Ok(Err(e)) => Ok(Err(e)),
                Err(RecvTimeoutError::Timeout) => Ok(Ok(Step::More)),
                Err(RecvTimeoutError::Disconnected) => {
                    Ok(Ok(match thread.take().map(JoinHandle::join) {
                        Some(Err(payload)) => Step::Panicked(payload),
                        _ => Step::End,
                    }))
                }
            },
            State::Done => Ok(Ok(Step::End)),
        }
    }
}

/// Starts the thread that reads `source` (its bytes: `reader`, a line
/// that is not UTF-8 read as Latin-1 there) on `jobs` threads, each
/// building the rows of its pieces.
fn read_on_threads(
    source: &mut Source,
    reader: Box<dyn Read + Send>,
    jobs: usize,
    every: usize,
) -> io::Result<State> {
    let (tx, rx) = sync_channel::<Piece>(jobs * PIECES_PER_JOB);
    let file = source.file.take();
    let thread = std::thread::Builder::new()
        .name("rookery-positions".into())
        .spawn(move || {
            let work = move |games: &mut PieceGames| {
                let mut rows = Chunk::default();
                let mut skipped = 0;
                while let Some(g) = games.next() {
                    if g.error.is_some() {
                        skipped += 1;
                    } else {
                        rows.add(&g, every);
                    }
                    games.recycle(g);
                }
                (rows, skipped)
            };
            let sender = tx.clone();
            let mut sink = move |piece: (Chunk, usize), _done: u64| -> io::Result<bool> {
                Ok(sender.send(Ok(piece)).is_ok())
            };
            let source = match file {
                Some(file) => rookery_pgn::source::Source::file_sized(file),
                None => rookery_pgn::source::Source::reader(reader),
            };
            let reading = Reading {
                jobs,
                chunk_bytes: PIECE_BYTES,
                detail: Detail::Full,
                decode: true,
            };
            if let Err(e) = source.for_each_piece(reading, &work, &mut sink) {
                let _ = tx.send(Err(e));
            }
        })?;
    Ok(State::Many {
        pieces: rx,
        thread: Some(thread),
    })
}

/// The iterator `positions` returns.
#[pyclass(module = "rookery.pgn")]
pub struct PositionReader {
    state: Mutex<State>,
    source: Source,
    every: usize,
    chunk: usize,
    planes: bool,
    filter: Option<Arc<Py<PyAny>>>,
    skipped: Mutex<usize>,
}

#[pymethods]
impl PositionReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let (state, skipped) = (&self.state, &self.skipped);
        let (every, size, filter) = (self.every, self.chunk, self.filter.as_deref());
        let done = || *state.lock().unwrap_or_else(PoisonError::into_inner) = State::Done;
        let mut chunk = Chunk::default();
        chunk.reserve(size.min(1 << 20));
        while chunk.len() < size {
            // Ctrl-C is handled here, between steps.
            if let Err(e) = py.check_signals() {
                done();
                return Err(e);
            }
            let rows = &mut chunk;
            let step = crate::work(py, move || {
                let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                state.step((rows, size), skipped, every, filter)
            })?;
            match step {
                Ok(Ok(Step::More)) => {}
                Ok(Ok(Step::End)) => {
                    done();
                    break;
                }
                Ok(Ok(Step::Panicked(payload))) => {
                    done();
                    return Err(crate::internal_error(py, payload.as_ref()));
                }
                Ok(Err(e)) => {
                    done();
                    return Err(self.source.read_error(e));
                }
                Err(e) => {
                    done();
                    return Err(e);
                }
            }
        }
        if chunk.len() == 0 {
            return match self.source.input_error() {
                Some(e) => Err(e),
                None => Ok(None),
            };
        }
        chunk.into_dict(py, self.planes).map(Some)
    }

    /// Games skipped so far because they have an error.
    #[getter]
    fn skipped(&self) -> usize {
        *self.skipped.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Whether `filter` (called with the game's headers) keeps `g`.
fn keep(g: &ReadGame, filter: Option<&Py<PyAny>>) -> PyResult<bool> {
    let Some(filter) = filter else {
        return Ok(true);
    };
    Python::attach(|py| {
        let headers = crate::ordered_dict(py, g.game.tags.export_order().into_iter())?;
        filter.bind(py).call1((headers,))?.is_truthy()
    })
}

/// The positions of the games of a PGN file as NumPy arrays, in chunks of
/// about `chunk` positions: an iterator of dicts of equal-length arrays,
/// one row per position (before the first move, then after every `every`
/// plies of each game's mainline):
///
/// - `bitboards`: uint64 (n, 12), White's pawn, knight, bishop, rook,
///   queen, king, then Black's (bit `i` = square `i`, `a1` = 0);
/// - `planes` (with `planes=True`): uint8 (n, 12, 64), the same as 0/1;
/// - `turn`: bool, True when White is to move;
/// - `castling`: uint64, the rooks that may still castle (python-chess's
///   `board.castling_rights`);
/// - `ply`: uint32, moves played in the game; `game`: uint32, the game's
///   number in the file (from 1);
/// - `result`: float32, the game's score for White (1, 0.5, 0; NaN for `*`);
/// - `eval`: float32, the `[%eval]` after the move that led here, in
///   centipawns from White's view (mates as in `Game.evals`), NaN if none;
/// - `clock`: float32, the `[%clk]` after that move in seconds, NaN if none.
///
/// `filter`, if given, is called with each game's headers (a dict) and
/// keeps the game when it returns true. Games with an error are skipped
/// (counted in the iterator's `skipped`). `jobs=N` reads on N threads (0:
/// one per core; the same rows in the same order), each building the rows
/// of its own pieces of the file, a chunk then holding whole pieces (about
/// a megabyte of PGN each, so it may hold more than `chunk` rows); a small
/// file, a `filter` (Python, called in file order) or a file object
/// handed over part-way through its file is read on the calling thread.
/// Ctrl-C stops a long call (`KeyboardInterrupt`). Needs NumPy.
///
/// Example::
///
///     import numpy as np, rookery.pgn
///     chunks = rookery.pgn.positions("lichess.pgn.zst", every=2,
///                                    filter=lambda h: h.get("Event", "").startswith("Rated"))
///     X = np.concatenate([c["bitboards"] for c in chunks])
#[pyfunction]
#[pyo3(signature = (path_or_file, every = 1, *, filter = None, chunk = 65536, planes = false, jobs = None))]
pub fn positions(
    py: Python<'_>,
    path_or_file: &Bound<'_, PyAny>,
    every: usize,
    filter: Option<Py<PyAny>>,
    chunk: usize,
    planes: bool,
    jobs: Option<usize>,
) -> PyResult<PositionReader> {
    if every == 0 {
        return Err(crate::pgn::bad_argument("every must be at least 1"));
    }
    if chunk == 0 {
        return Err(crate::pgn::bad_argument("chunk must be at least 1"));
    }
    // NumPy is needed for the arrays: say so now, not at the first chunk.
    py.import("numpy")?;
    let (mut source, reader) = Source::open(py, path_or_file)?;
    let jobs = crate::pgn::threads(jobs);
    let state = if filter.is_none() && worth_threads(jobs, &source) {
        read_on_threads(&mut source, reader, jobs, every)?
    } else {
        State::One(Box::new(games_of(reader, &source)))
    };
    Ok(PositionReader {
        state: Mutex::new(state),
        source,
        every,
        chunk,
        planes,
        filter: filter.map(Arc::new),
        skipped: Mutex::new(0),
    })
}
