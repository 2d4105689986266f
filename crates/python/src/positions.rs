//! `rookery.pgn.positions`: the positions of a PGN file's games as NumPy
//! arrays, a chunk at a time, built with the GIL released.

use std::io::Read;
use std::sync::{Arc, Mutex, PoisonError};

use numpy::ndarray::{Array2, Array3};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rookery_core::Color;
use rookery_io::latin1::Latin1Read;
use rookery_pgn::{GameResult, Games, ReadGame};

use crate::board::bitboards;
use crate::input::Source;
use crate::pgn::{move_comments, white_score};

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

struct State {
    /// Boxed: the reader holds SIMD searchers aligned to 32 bytes, more
    /// than Python's allocator gives the object a pyclass lives in.
    games: Box<Games<Box<dyn Read + Send>>>,
    done: bool,
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
        let (every, size, filter) = (self.every, self.chunk, self.filter.clone());
        let filled = crate::work(py, move || -> PyResult<Chunk> {
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            let mut chunk = Chunk::default();
            while !state.done && chunk.len() < size {
                let Some(g) = state.games.next() else {
                    state.done = true;
                    break;
                };
                let g = g?;
                if g.error.is_some() {
                    *skipped.lock().unwrap_or_else(PoisonError::into_inner) += 1;
                } else if keep(&g, filter.as_deref())? {
                    chunk.add(&g, every);
                }
                state.games.recycle(g);
            }
            Ok(chunk)
        })?;
        let chunk = match filled {
            Ok(chunk) => chunk,
            Err(e) => return Err(self.source.damage_error().unwrap_or(e)),
        };
        if chunk.len() == 0 {
            return match self.source.damage_error() {
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
/// (counted in the iterator's `skipped`). Needs NumPy.
///
/// Example::
///
///     import numpy as np, rookery.pgn
///     chunks = rookery.pgn.positions("lichess.pgn.zst", every=2,
///                                    filter=lambda h: h.get("Event", "").startswith("Rated"))
///     X = np.concatenate([c["bitboards"] for c in chunks])
#[pyfunction]
#[pyo3(signature = (path_or_file, every = 1, *, filter = None, chunk = 65536, planes = false))]
pub fn positions(
    py: Python<'_>,
    path_or_file: &Bound<'_, PyAny>,
    every: usize,
    filter: Option<Py<PyAny>>,
    chunk: usize,
    planes: bool,
) -> PyResult<PositionReader> {
    if every == 0 {
        return Err(crate::pgn::bad_argument("every must be at least 1"));
    }
    if chunk == 0 {
        return Err(crate::pgn::bad_argument("chunk must be at least 1"));
    }
    // NumPy is needed for the arrays: say so now, not at the first chunk.
    py.import("numpy")?;
    let (source, reader) = Source::open(py, path_or_file)?;
    let text: Box<dyn Read + Send> = Box::new(Latin1Read::new(reader, |_line| {}));
    Ok(PositionReader {
        state: Mutex::new(State {
            games: Box::new(Games::new(text)),
            done: false,
        }),
        source,
        every,
        chunk,
        planes,
        filter: filter.map(Arc::new),
        skipped: Mutex::new(0),
    })
}
