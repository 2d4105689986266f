//! `rookery.pgn`: games read by [`rookery_pgn::Games`] (every move played
//! and checked), on one thread or several ([`rookery_pgn::split`]), and
//! headers read with the movetext skipped.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rookery_core::{CastlingMode, Color, Fen, Game as CoreGame, UciMove};
use rookery_io::latin1::Latin1Read;
use rookery_pgn::commands::{self, CommentEval};
use rookery_pgn::{
    game_to_string, game_to_string_whole_comments, Detail, Games, Line, RawTag, ReadGame, Reader,
    Skip, Tags, Visitor, Warning, WarningKind,
};

use crate::board::{san_text, Board};
use crate::input::{text_start, Source};

/// The score `evals` gives a mate in `n` (python-chess's `mate_score`
/// convention: mate in `n` is `MATE_SCORE - n` for the side that mates).
pub const MATE_SCORE: i64 = 100_000;

/// Bytes of input a reading thread takes at a time with `jobs` > 1.
pub const PIECE_BYTES: usize = 1 << 20;

/// Files shorter than this are read on the calling thread whatever `jobs`
/// says: handing their few pieces to threads costs more than it saves.
pub const SMALL_FILE: u64 = 4 * PIECE_BYTES as u64;

/// The longest comment (or other token) kept: python-chess keeps a
/// comment of any length; this bound only keeps a `{` that is never
/// closed from holding the rest of a large file in memory.
pub const MAX_TOKEN: usize = 1 << 30;

/// How long the calling thread waits for the reading threads before it
/// looks for a signal (Ctrl-C) to handle.
pub const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Batches of games waiting for Python, per reading thread.
const BATCHES_PER_JOB: usize = 2;

/// One game: headers, mainline moves with their comments, NAGs, clocks and
/// evaluations, result, and the errors found reading it.
///
/// Every move was played and checked (in variations too); a game with an
/// error holds the moves before it, and `errors` says where and why.
#[pyclass(module = "rookery.pgn", frozen)]
pub struct Game {
    read: ReadGame,
    path: Arc<str>,
    mode: CastlingMode,
}

impl Game {
    fn new(read: ReadGame, path: Arc<str>) -> Game {
        let chess960 = read.game.tags.get("Variant").is_some_and(|v| {
            let v = v.trim().to_ascii_lowercase();
            v.contains("960") || v.contains("fischer")
        }) || read.game.start.is_chess960_castling();
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        Game { read, path, mode }
    }

    /// Calls `f` on each mainline move with the position before it.
    fn walk<T>(
        &self,
        mut f: impl FnMut(&rookery_core::Position, rookery_core::Move) -> T,
    ) -> Vec<T> {
        let mut pos = self.read.game.start.clone();
        self.read
            .game
            .mainline
            .nodes
            .iter()
            .map(|node| {
                let out = f(&pos, node.mv);
                pos.play_unchecked(node.mv);
                out
            })
            .collect()
    }

    /// The side to move after each mainline move.
    fn turns_after(&self) -> impl Iterator<Item = Color> + '_ {
        let first = self.read.game.start.turn();
        (0..self.read.game.mainline.nodes.len()).map(
            move |i| {
                if i % 2 == 0 {
                    first.other()
                } else {
                    first
                }
            },
        )
    }

    /// The evaluation after each mainline move, as `evals` gives it.
    pub fn eval_scores(&self) -> Vec<Option<i64>> {
        self.read
            .game
            .mainline
            .nodes
            .iter()
            .zip(self.turns_after())
            .enumerate()
            .map(|(i, (_node, turn))| {
                let e =
                    move_comments(&self.read.game.mainline, i).find_map(|c| commands::eval(c))?;
                Some(white_score(e, turn))
            })
            .collect()
    }

    /// The clock after each mainline move, as `clocks` gives it.
    pub fn clock_seconds(&self) -> Vec<Option<f64>> {
        (0..self.read.game.mainline.nodes.len())
            .map(|i| move_comments(&self.read.game.mainline, i).find_map(|c| commands::clock(c)))
            .collect()
    }

    /// The game read.
    pub fn read(&self) -> &ReadGame {
        &self.read
    }

    fn problem<'py>(
        &self,
        py: Python<'py>,
        message: String,
        line: u64,
        col: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::parse_error(py, &message, &self.path, line, col)
    }
}

/// The comments python-chess gives move `i` of `line`: those after it,
/// then those before the next move (after a variation that hangs from it),
/// then, after the last move, those that end the line.
pub fn move_comments(line: &Line, i: usize) -> impl Iterator<Item = &String> + '_ {
    let next = line.nodes.get(i + 1).map(|n| n.comments_before.as_slice());
    let trailing = if i + 1 == line.nodes.len() {
        line.trailing_comments.as_slice()
    } else {
        &[]
    };
    line.nodes[i]
        .comments_after
        .iter()
        .chain(next.unwrap_or(&[]))
        .chain(trailing)
}

/// An evaluation from White's view in centipawns, mates as [`MATE_SCORE`]
/// minus the moves (`#0`: the side to move, `turn`, is mated).
pub fn white_score(e: CommentEval, turn: Color) -> i64 {
    match e {
        CommentEval::Centipawns(cp) => cp,
        CommentEval::Mate(0) => match turn {
            Color::White => -MATE_SCORE,
            Color::Black => MATE_SCORE,
        },
        CommentEval::Mate(n) if n > 0 => MATE_SCORE - n,
        CommentEval::Mate(n) => -MATE_SCORE - n,
    }
}

#[pymethods]
impl Game {
    /// The tag pairs, as python-chess gives them: the Seven Tag Roster
    /// first (`"?"` or `"????.??.??"` where the file has none; `Result`
    /// the game-termination marker's where the tag is missing or `"*"`),
    /// then the others in file order.
    #[getter]
    fn headers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        // As python-chess: the Result header is the game-termination
        // marker's when the tag is missing or `*`.
        let tags = self.read.game.exported_tags();
        crate::ordered_dict(py, tags.iter())
    }

    /// The mainline moves in UCI notation (king-takes-rook castling in a
    /// Chess960 game, as python-chess writes it).
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.walk(|pos, m| UciMove::from_move(pos, m, self.mode).to_string())
    }

    /// The mainline moves in SAN (`+` and `#` added).
    #[getter]
    fn sans(&self) -> Vec<String> {
        self.walk(san_text)
    }

    /// The comment of each mainline move, as python-chess's `node.comment`:
    /// the comments after it (and after a variation hanging from it), joined
    /// by a space, whitespace runs made one space; `""` if none.
    #[getter]
    fn comments(&self) -> Vec<String> {
        (0..self.read.game.mainline.nodes.len())
            .map(|i| {
                move_comments(&self.read.game.mainline, i)
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    /// The comment before the first move (python-chess's `game.comment`).
    #[getter]
    fn comment(&self) -> String {
        let main = &self.read.game.mainline;
        match main.nodes.first() {
            Some(first) => first.comments_before.join(" "),
            None => main.trailing_comments.join(" "),
        }
    }

    /// The NAGs of each mainline move (`!` is 1, `?` is 2, ...).
    #[getter]
    fn nags(&self) -> Vec<Vec<u16>> {
        self.read
            .game
            .mainline
            .nodes
            .iter()
            .map(|n| n.nags.iter().map(|nag| u16::from(nag.0)).collect())
            .collect()
    }

    /// The `[%clk H:MM:SS]` after each mainline move, in seconds (None
    /// where there is none): the mover's time left.
    #[getter]
    fn clocks(&self) -> Vec<Option<f64>> {
        self.clock_seconds()
    }

    /// The `[%eval ...]` after each mainline move, in centipawns from
    /// White's view (None where there is none); a mate in `n` is
    /// `MATE_SCORE - n` (`-(MATE_SCORE - n)` when Black mates), as
    /// python-chess's `node.eval().white().score(mate_score=MATE_SCORE)`.
    #[getter]
    fn evals(&self) -> Vec<Option<i64>> {
        self.eval_scores()
    }

    /// The result: `"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"`.
    #[getter]
    fn result(&self) -> &'static str {
        self.read.game.result.as_str()
    }

    /// The error that stopped the game, as a list of `rookery.ParseError`
    /// (empty, or one: the moves after an error are skipped).
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.read
            .error
            .iter()
            .map(|e| self.problem(py, e.kind.to_string(), e.at.line, e.at.col))
            .collect()
    }

    /// Questionable things that did not stop the game (a result that
    /// disagrees with the Result tag, a skipped token...), as
    /// `rookery.ParseError` values (not raised).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.read
            .warnings
            .iter()
            .map(|w| self.problem(py, w.kind.to_string(), w.at.line, w.at.col))
            .collect()
    }

    /// The game's number in the input, from 1.
    #[getter]
    fn index(&self) -> usize {
        self.read.index
    }

    /// The line where the game starts (from 1).
    #[getter]
    fn line(&self) -> u64 {
        self.read.at.line
    }

    /// The board after `ply` mainline moves (0: the starting position;
    /// negative counts from the end, -1 being the final position).
    ///
    /// Raises IndexError if the game has fewer moves.
    fn board_at(&self, ply: isize) -> PyResult<Board> {
        let n = self.read.game.mainline.nodes.len();
        let at = if ply < 0 { ply + n as isize + 1 } else { ply };
        if at < 0 || at as usize > n {
            return Err(PyIndexError::new_err(format!(
                "ply {ply} out of range: the game has {n} moves"
            )));
        }
        let mut game = CoreGame::new(self.read.game.start.clone());
        for node in &self.read.game.mainline.nodes[..at as usize] {
            game.play_or_null(node.mv)
                .map_err(|e| crate::runtime_error(e.to_string()))?;
        }
        Ok(Board::of(game, self.mode))
    }

    /// The starting position (python-chess's `game.board()`).
    fn board(&self) -> PyResult<Board> {
        self.board_at(0)
    }

    /// The FEN before the first move and after every mainline move.
    fn fens(&self) -> Vec<String> {
        let mut pos = self.read.game.start.clone();
        let mut out = vec![Fen::from_position(&pos).to_string()];
        for node in &self.read.game.mainline.nodes {
            pos.play_unchecked(node.mv);
            out.push(Fen::from_position(&pos).to_string());
        }
        out
    }

    /// The game in PGN export format (variations, comments and NAGs kept).
    fn pgn(&self) -> String {
        game_to_string(&self.read.game)
    }

    /// The game as a `chess.pgn.Game` of python-chess (which must be
    /// installed), read from this game's export text.
    fn to_python_chess<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // Comments whole: python-chess keeps a line break inside one.
        let text = game_to_string_whole_comments(&self.read.game);
        let io = py.import("io")?.getattr("StringIO")?.call1((text,))?;
        py.import("chess.pgn")?.getattr("read_game")?.call1((io,))
    }

    fn __len__(&self) -> usize {
        self.read.game.mainline.nodes.len()
    }

    fn __repr__(&self) -> String {
        let tags = &self.read.game.tags;
        format!(
            "<rookery.pgn.Game #{} {} vs {}, {} moves, {}>",
            self.read.index,
            tags.get("White").unwrap_or("?"),
            tags.get("Black").unwrap_or("?"),
            self.read.game.mainline.nodes.len(),
            self.read.game.result.as_str()
        )
    }
}

/// The text of `source`, lines that are not UTF-8 read as Latin-1 (the PGN
/// standard's character set), as the command line reads it.
fn text_of(reader: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    Box::new(Latin1Read::new(reader, |_line| {}))
}

type Batch = io::Result<Vec<ReadGame>>;

enum State {
    /// Read on the calling thread. Boxed: the reader holds SIMD searchers
    /// aligned to 32 bytes, more than Python's allocator gives the object a
    /// pyclass lives in.
    One(Box<Games<Box<dyn Read + Send>>>),
    /// Read on threads; batches come in input order.
    Many {
        batches: Receiver<Batch>,
        ready: VecDeque<ReadGame>,
        thread: Option<JoinHandle<()>>,
        /// The file read, for reading a game again (see [`with_long_tokens`]).
        file: Option<File>,
    },
    Done,
}

enum Next {
    Game(Box<ReadGame>),
    End,
    Failed(io::Error),
    Panicked(Box<dyn std::any::Any + Send>),
    /// Nothing came from the reading threads for [`SIGNAL_CHECK`].
    Waiting,
}

impl State {
    fn next(&mut self) -> Next {
        match self {
            State::One(games) => match games.next() {
                Some(Ok(g)) => Next::Game(Box::new(g)),
                Some(Err(e)) => Next::Failed(e),
                None => Next::End,
            },
            State::Many {
                batches,
                ready,
                thread,
                file,
            } => loop {
                if let Some(g) = ready.pop_front() {
                    let g = match file {
                        Some(file) => with_long_tokens(file, g),
                        None => g,
                    };
                    return Next::Game(Box::new(g));
                }
                match batches.recv_timeout(SIGNAL_CHECK) {
                    Ok(Ok(batch)) => ready.extend(batch),
                    Ok(Err(e)) => return Next::Failed(e),
                    Err(RecvTimeoutError::Timeout) => return Next::Waiting,
                    Err(RecvTimeoutError::Disconnected) => {
                        return match thread.take().map(JoinHandle::join) {
                            Some(Err(payload)) => Next::Panicked(payload),
                            _ => Next::End,
                        }
                    }
                }
            },
            State::Done => Next::End,
        }
    }
}

/// The iterator `read_games` returns.
#[pyclass(module = "rookery.pgn")]
pub struct GameReader {
    state: Mutex<State>,
    path: Arc<str>,
    source: Source,
    strict: bool,
}

impl GameReader {
    /// The next game read (with the GIL released), or `None` at the end.
    ///
    /// Signals are handled before each game and while waiting for the
    /// reading threads: Ctrl-C raises `KeyboardInterrupt` here, even in a
    /// loop Python runs no bytecode in (`list(read_games(...))`).
    pub fn next_game(&self, py: Python<'_>) -> PyResult<Option<ReadGame>> {
        let state = &self.state;
        let done = || *state.lock().unwrap_or_else(PoisonError::into_inner) = State::Done;
        let next = loop {
            if let Err(e) = py.check_signals() {
                done();
                return Err(e);
            }
            let next = crate::work(py, || {
                state.lock().unwrap_or_else(PoisonError::into_inner).next()
            })?;
            if !matches!(next, Next::Waiting) {
                break next;
            }
        };
        match next {
            Next::Game(g) => Ok(Some(*g)),
            Next::End | Next::Waiting => {
                done();
                match self.source.input_error() {
                    Some(e) => Err(e),
                    None => Ok(None),
                }
            }
            Next::Failed(e) => {
                done();
                Err(self.source.read_error(e))
            }
            Next::Panicked(payload) => {
                done();
                Err(crate::internal_error(py, payload.as_ref()))
            }
        }
    }

    /// Opens `obj` for reading games, on `jobs` threads.
    pub fn open(
        py: Python<'_>,
        obj: &Bound<'_, PyAny>,
        jobs: usize,
        strict: bool,
    ) -> PyResult<GameReader> {
        let (mut source, reader) = Source::open(py, obj)?;
        let path: Arc<str> = source.name.as_str().into();
        let state = if !worth_threads(jobs, &source) {
            State::One(Box::new(games_of(reader, &source)))
        } else {
            let (tx, rx) = sync_channel::<Batch>(jobs * BATCHES_PER_JOB);
            let file = source.file.take();
            let again = file.as_ref().and_then(|f| f.try_clone().ok());
            let thread = std::thread::Builder::new()
                .name("rookery-pgn-read".into())
                .spawn(move || {
                    let work =
                        |games: &mut rookery_pgn::split::PieceGames| games.collect::<Vec<_>>();
                    let sender = tx.clone();
                    let mut sink = move |batch: Vec<ReadGame>, _done: u64| -> io::Result<bool> {
                        Ok(sender.send(Ok(batch)).is_ok())
                    };
                    let source = match file {
                        Some(file) => rookery_pgn::source::Source::file_sized(file),
                        // Decoded there (`decode`), as a file's text is.
                        None => rookery_pgn::source::Source::reader(reader),
                    };
                    let reading = rookery_pgn::source::Reading {
                        jobs,
                        chunk_bytes: PIECE_BYTES,
                        detail: Detail::Full,
                        decode: true,
                    };
                    let read = source.for_each_piece(reading, &work, &mut sink);
                    if let Err(e) = read {
                        let _ = tx.send(Err(e));
                    }
                })?;
            State::Many {
                batches: rx,
                ready: VecDeque::new(),
                thread: Some(thread),
                file: again,
            }
        };
        Ok(GameReader {
            state: Mutex::new(state),
            path,
            source,
            strict,
        })
    }
}

#[pymethods]
impl GameReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Game>> {
        let Some(read) = self.next_game(py)? else {
            return Ok(None);
        };
        if self.strict {
            if let Some(e) = &read.error {
                *self.state.lock().unwrap_or_else(PoisonError::into_inner) = State::Done;
                return Err(crate::parse_err(
                    py,
                    &e.kind.to_string(),
                    &self.path,
                    e.at.line,
                    e.at.col,
                ));
            }
        }
        Ok(Some(Game::new(read, self.path.clone())))
    }
}

/// The warning of a token longer than the reader's bound (skipped).
const OVERLONG: &str = "over-long token skipped";

/// `g`, or, if a token of it was too long for the reading threads (whose
/// bound is rookery-pgn's, 16 MiB), `g` read again from `file` at its
/// offset with [`MAX_TOKEN`]'s bound, so that its long comment is kept as
/// on one thread. (`g` as it is if the game read there is not the same:
/// offsets are those of the text, which differ from the file's after a
/// line read as Latin-1.)
fn with_long_tokens(file: &File, g: ReadGame) -> ReadGame {
    let overlong = |w: &Warning| matches!(&w.kind, WarningKind::Malformed(m) if m == OVERLONG);
    if !g.warnings.iter().any(overlong) {
        return g;
    }
    let text = Latin1Read::new(
        FileFrom {
            file,
            at: g.at.offset,
        },
        |_line| {},
    );
    let reader = Reader::starting_at(text, g.at).with_max_token(MAX_TOKEN);
    match Games::from_reader(reader, g.index).next() {
        Some(Ok(again))
            if again.at == g.at
                && again.game.mainline.nodes.len() >= g.game.mainline.nodes.len() =>
        {
            again
        }
        _ => g,
    }
}

/// A file read in order from an offset.
struct FileFrom<'a> {
    file: &'a File,
    at: u64,
}

impl Read for FileFrom<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = rookery_io::ReadAt::read_at(self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// The games of `reader`, the text of `source`, read on the calling thread.
pub fn games_of(reader: Box<dyn Read + Send>, source: &Source) -> Games<Box<dyn Read + Send>> {
    let reader = Reader::starting_at(text_of(reader), source.start).with_max_token(MAX_TOKEN);
    Games::from_reader(reader, 1)
}

/// Whether `source` is best read on `jobs` threads: not for one, nor for a
/// small file (see [`SMALL_FILE`]), nor for a file object handed over
/// part-way through its file (its lines are counted from there on the
/// calling thread only).
pub fn worth_threads(jobs: usize, source: &Source) -> bool {
    let small = source
        .file
        .as_ref()
        .and_then(|f| f.metadata().ok())
        .is_some_and(|m| m.len() < SMALL_FILE);
    jobs > 1 && !small && source.start == text_start()
}

/// The number of reading threads `jobs` asks for (None: one; 0: one per
/// core).
pub fn threads(jobs: Option<usize>) -> usize {
    match jobs {
        None => 1,
        Some(0) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        Some(n) => n,
    }
}

/// Reads the games of a PGN file: an iterator of `rookery.pgn.Game`, in file
/// order, every move played and checked (in variations too).
///
/// `path_or_file` is a path (`str` or `os.PathLike`) or a file object
/// opened in binary or text mode; compressed input (zstd, gzip, bzip2) is
/// recognised by its bytes and decompressed. Lines that are not UTF-8 are
/// read as Latin-1. `jobs=N` reads on N threads (0: one per core), with
/// the same games in the same order. A game with an error is yielded with
/// the moves before it and its `errors`; with `strict=True` it raises
/// `rookery.ParseError` instead. The GIL is released while reading.
///
/// Raises OSError if the file cannot be opened or its compressed data is
/// damaged.
///
/// Example::
///
///     import rookery.pgn
///     for game in rookery.pgn.read_games("games.pgn.zst", jobs=4):
///         print(game.headers["White"], game.result, len(game.moves))
///         for err in game.errors:
///             print(err.path, err.line, err.column, err)
#[pyfunction]
#[pyo3(signature = (path_or_file, *, jobs = None, strict = false))]
pub fn read_games(
    py: Python<'_>,
    path_or_file: &Bound<'_, PyAny>,
    jobs: Option<usize>,
    strict: bool,
) -> PyResult<GameReader> {
    GameReader::open(py, path_or_file, threads(jobs), strict)
}

/// Collects a game's tags and skips its movetext.
#[derive(Default)]
struct HeaderVisitor {
    tags: Tags,
}

impl Visitor for HeaderVisitor {
    type Output = Tags;

    fn tag(&mut self, name: &[u8], value: RawTag<'_>) {
        self.tags
            .insert(&String::from_utf8_lossy(name), value.decode());
    }

    fn end_tags(&mut self) -> Skip {
        Skip(true)
    }

    fn end_game(&mut self) -> Tags {
        std::mem::take(&mut self.tags)
    }
}

/// The reader and visitor of [`HeaderReader`].
type HeaderState = (Reader<Box<dyn Read + Send>>, HeaderVisitor);

/// The iterator `read_headers` returns.
#[pyclass(module = "rookery.pgn")]
pub struct HeaderReader {
    /// Boxed, as [`State::One`].
    reader: Mutex<Box<HeaderState>>,
    source: Source,
}

#[pymethods]
impl HeaderReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        py.check_signals()?;
        let reader = &self.reader;
        let tags = crate::work(py, || {
            let mut guard = reader.lock().unwrap_or_else(PoisonError::into_inner);
            let (reader, visitor) = &mut **guard;
            reader.read_game(visitor)
        })?;
        match tags {
            Ok(Some(tags)) => crate::ordered_dict(py, tags.export_order().into_iter()).map(Some),
            Ok(None) => match self.source.input_error() {
                Some(e) => Err(e),
                None => Ok(None),
            },
            Err(e) => Err(self.source.read_error(e)),
        }
    }
}

/// The headers of each game of a PGN file, as dicts (the Seven Tag Roster
/// first, as `Game.headers`), the movetext skipped unread: much faster than
/// `read_games` when only the tags matter.
///
/// Raises OSError as `read_games`.
///
/// Example::
///
///     import collections, rookery.pgn
///     by_eco = collections.Counter(h.get("ECO") for h in rookery.pgn.read_headers("twic.pgn"))
#[pyfunction]
pub fn read_headers(py: Python<'_>, path_or_file: &Bound<'_, PyAny>) -> PyResult<HeaderReader> {
    let (source, reader) = Source::open(py, path_or_file)?;
    Ok(HeaderReader {
        reader: Mutex::new(Box::new((
            Reader::starting_at(text_of(reader), source.start).with_max_token(MAX_TOKEN),
            HeaderVisitor::default(),
        ))),
        source,
    })
}

/// `ValueError` for a negative `every` or a similar bad argument.
pub fn bad_argument(message: &str) -> PyErr {
    PyValueError::new_err(message.to_owned())
}
