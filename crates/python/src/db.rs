//! `rookery.db`: the indexed game database of `rookery db` ([`rookery_db`])
//! from Python: import, the explorer in lichess's shape, search with `pgn
//! filter`'s tests, and the games as PGN (the Python layer, `db.py`, reads
//! them into python-chess-shaped games).
//!
//! Every call runs with the GIL released ([`crate::work`]); the answers
//! are the CLI's, computed by the same functions (`lichess::answer`,
//! [`rookery_db::Database::search`], [`CriteriaText`]).

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rookery_db::bucket::BucketFilter;
use rookery_db::lichess::{self, Lists};
use rookery_db::scout::ScoutQuery;
use rookery_db::{Database as Store, DbError, ImportOptions};
use rookery_io::input::Input;
use rookery_pgn::filter::{Criteria, CriteriaText};
use rookery_pgn::source::Source;

/// The most games a list of `topGames` or `recentGames` may ask for (the
/// index keeps this many).
const MOST_LISTED: usize = 15;

/// An error of the store as Python's: `OSError` with the store's words
/// (the file, what failed or is damaged); `ValueError` for a search on a
/// tag the database does not keep.
fn store_error(e: DbError) -> PyErr {
    match e {
        DbError::NotKept { .. } => PyValueError::new_err(e.to_string()),
        e => PyOSError::new_err(e.to_string()),
    }
}

/// A value given as one text or as a list of texts: the texts.
fn texts(v: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    match v {
        None => Ok(Vec::new()),
        Some(v) if v.is_none() => Ok(Vec::new()),
        Some(v) => match v.extract::<String>() {
            Ok(s) => Ok(vec![s]),
            Err(_) => v.extract::<Vec<String>>(),
        },
    }
}

/// A list given as a comma-separated text or as a list: the text.
fn commas(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => match v.extract::<String>() {
            Ok(s) => Ok(Some(s)),
            Err(_) => {
                let items: Vec<Bound<'_, PyAny>> = v.extract()?;
                let words = items
                    .iter()
                    .map(|i| i.str().map(|s| s.to_string()))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(Some(words.join(",")))
            }
        },
    }
}

/// A `serde_json` value as the Python value `json.loads` makes of it.
fn to_python<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// An indexed game database (`rookery db`): open one with
/// `rookery.db.open(path)`.
#[pyclass(module = "rookery.db", frozen, subclass)]
pub struct Database {
    store: Store,
    path: String,
}

#[pymethods]
impl Database {
    /// Opens the database at `path` (a `str` or `os.PathLike`);
    /// `create=True` makes an empty one if there is none, else
    /// `FileNotFoundError`.
    #[new]
    #[pyo3(signature = (path, *, create = false))]
    fn new(py: Python<'_>, path: PathBuf, create: bool) -> PyResult<Database> {
        if !create && !path.exists() {
            return Err(PyFileNotFoundError::new_err(format!(
                "{}: no such database",
                path.display()
            )));
        }
        let shown = path.display().to_string();
        let store = crate::work(py, move || Store::open(&path))?.map_err(store_error)?;
        Ok(Database { store, path: shown })
    }

    fn __repr__(&self) -> String {
        format!("<rookery.db.Database {:?}>", self.path)
    }

    /// The number of games stored.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let info = crate::work(py, || self.store.info())?.map_err(store_error)?;
        Ok(info.games as usize)
    }

    /// What the database holds: `games`, `names`, `positions` (entries of
    /// the explorer's index), `segments`, `index_bytes`, and `imports`
    /// (a line for each: when, the inputs, games stored and left out).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let info = crate::work(py, || self.store.info())?.map_err(store_error)?;
        let d = PyDict::new(py);
        d.set_item("games", info.games)?;
        d.set_item("names", info.names)?;
        d.set_item("positions", info.positions)?;
        d.set_item("segments", info.segments.0)?;
        d.set_item("index_bytes", info.segments.1)?;
        d.set_item("imports", PyList::new(py, &info.imports)?)?;
        Ok(d)
    }

    /// Imports the games of PGN files (plain or compressed: zstd, gzip,
    /// bzip2), in one transaction: all of them or, on an error, none.
    /// `dedupe=True` leaves out a game whose moves repeat one already
    /// stored (`pgn dedupe`'s test); `jobs` threads read the games.
    /// Returns a dict: `games` stored, `duplicates` left out, and `bad`,
    /// the games left out for an error, each `(file, line, column, index,
    /// message)`.
    #[pyo3(signature = (paths, *, dedupe = false, jobs = 1))]
    fn import_pgn<'py>(
        &self,
        py: Python<'py>,
        paths: Vec<PathBuf>,
        dedupe: bool,
        jobs: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let report = crate::work(py, || -> PyResult<_> {
            let mut inputs = Vec::new();
            for path in &paths {
                // Its error names the file.
                let input = Input::open(path).map_err(|e| PyOSError::new_err(e.to_string()))?;
                inputs.push((path.display().to_string(), Source::input(input)));
            }
            let options = ImportOptions {
                dedupe,
                jobs,
                run_positions: 0,
            };
            self.store
                .import(inputs, options, &mut |_| {})
                .map_err(store_error)
        })??;
        let d = PyDict::new(py);
        d.set_item("games", report.games)?;
        d.set_item("duplicates", report.duplicates)?;
        let bad = report
            .bad
            .iter()
            .map(|b| {
                (
                    b.file.clone(),
                    b.at.line,
                    b.at.col,
                    b.index,
                    b.message.clone(),
                )
            })
            .collect::<Vec<_>>();
        d.set_item("bad", bad)?;
        Ok(d)
    }

    /// The opening explorer at a position, in the shape of lichess's
    /// explorer API (`white`, `draws`, `black`, `moves` with `uci`, `san`,
    /// `averageRating`, `white`, `draws`, `black`, `game`; `topGames`,
    /// `recentGames`, `opening`), as a dict.
    ///
    /// The position: `fen` (default: the start) after the UCI moves of
    /// `play` (a list, or a comma-separated text). Only the games of
    /// `speeds` (lichess's: `blitz`, `rapid`, ...) and `ratings` (rating
    /// groups: 1600, 1800, ...), each a list or comma-separated, and of the
    /// months `since` to `until` (`YYYY-MM`) count; `moves` limits the
    /// moves listed (most played first), `top_games` and `recent_games`
    /// the games (at most 15 each). `player` and `color` (`"white"` or
    /// `"black"`): that player's repertoire, lichess's `/player` answer.
    #[pyo3(signature = (fen = None, play = None, *, speeds = None, ratings = None, since = None,
                        until = None, moves = None, top_games = 4, recent_games = 4,
                        player = None, color = None))]
    #[allow(clippy::too_many_arguments)]
    fn explore<'py>(
        &self,
        py: Python<'py>,
        fen: Option<String>,
        play: Option<&Bound<'py, PyAny>>,
        speeds: Option<&Bound<'py, PyAny>>,
        ratings: Option<&Bound<'py, PyAny>>,
        since: Option<String>,
        until: Option<String>,
        moves: Option<usize>,
        top_games: usize,
        recent_games: usize,
        player: Option<String>,
        color: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if top_games > MOST_LISTED || recent_games > MOST_LISTED {
            return Err(PyValueError::new_err(format!(
                "top_games and recent_games: at most {MOST_LISTED}"
            )));
        }
        let play = commas(play)?.unwrap_or_default();
        let speeds = commas(speeds)?;
        let ratings = commas(ratings)?;
        let filter = BucketFilter::parse(
            speeds.as_deref(),
            ratings.as_deref(),
            since.as_deref(),
            until.as_deref(),
        )
        .map_err(PyValueError::new_err)?;
        let color = match (player.as_ref(), color.as_deref()) {
            (None, None) => None,
            (Some(_), Some("white")) => Some(rookery_core::Color::White),
            (Some(_), Some("black")) => Some(rookery_core::Color::Black),
            _ => {
                return Err(PyValueError::new_err(
                    "player and color go together; color is \"white\" or \"black\"",
                ))
            }
        };
        let value = crate::work(py, || -> PyResult<serde_json::Value> {
            let (pos, opening) = lichess::position(fen.as_deref(), &play)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let answer = match (player.as_deref(), color) {
                (Some(name), Some(color)) => {
                    let filter = lichess::PlayerFilter {
                        buckets: filter,
                        rated: None,
                    };
                    lichess::player_answer(
                        &self.store,
                        name,
                        color,
                        &pos,
                        opening,
                        &filter,
                        moves,
                        recent_games,
                    )
                }
                _ => {
                    let lists = Lists {
                        moves,
                        top_games: Some(top_games),
                        recent_games: Some(recent_games),
                    };
                    lichess::answer(&self.store, &pos, opening, &filter, lists)
                }
            };
            answer.map_err(store_error)
        })??;
        to_python(py, &value)
    }

    /// The numbers of the games that pass `pgn filter`'s tests, in order:
    /// `player` (White or Black contains it, ignoring case; one or a
    /// list), `tag` (tests such as `"WhiteElo>=2500"`), `elo`
    /// (`"2400"`, `"2400..2600"`), `date` (`"2020..2021.06"`), `eco`
    /// (`"B20..B99"`), `plies` (`"20..80"`), `result` (one or a list),
    /// `termination`, `position` (FENs the mainline passes through),
    /// `material` (`"KRPkr"`), `moves` (`"1. e4 c5"`, with `transpose`),
    /// `checkmate`, `stalemate`, `fifty`, `repetition`, `variations`,
    /// `invert`; at most `limit` numbers. A test of a tag the database
    /// does not keep (`termination`, a `tag` other than the Seven Tag
    /// Roster's, `WhiteElo`, `BlackElo`, `ECO`, `SetUp`, `FEN`) raises
    /// `ValueError`: its answer would be wrong.
    #[pyo3(signature = (*, player = None, tag = None, elo = None, date = None, eco = None,
                        plies = None, result = None, termination = None, position = None,
                        material = None, moves = None, transpose = false, checkmate = false,
                        stalemate = false, fifty = false, repetition = false,
                        variations = false, invert = false, limit = None))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        player: Option<&Bound<'_, PyAny>>,
        tag: Option<&Bound<'_, PyAny>>,
        elo: Option<String>,
        date: Option<String>,
        eco: Option<String>,
        plies: Option<String>,
        result: Option<&Bound<'_, PyAny>>,
        termination: Option<&Bound<'_, PyAny>>,
        position: Option<&Bound<'_, PyAny>>,
        material: Option<&Bound<'_, PyAny>>,
        moves: Option<String>,
        transpose: bool,
        checkmate: bool,
        stalemate: bool,
        fifty: bool,
        repetition: bool,
        variations: bool,
        invert: bool,
        limit: Option<usize>,
    ) -> PyResult<Vec<u64>> {
        let text = CriteriaText {
            tags: texts(tag)?,
            players: texts(player)?,
            elo,
            date,
            eco,
            plies,
            results: texts(result)?,
            terminations: texts(termination)?,
            positions: texts(position)?,
            materials: texts(material)?,
            moves,
            transpose,
            checkmate,
            stalemate,
            fifty,
            repetition,
            variations,
            invert,
        };
        let criteria = text
            .criteria()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let limit = limit.unwrap_or(usize::MAX);
        if limit == 0 {
            return Ok(Vec::new());
        }
        crate::work(py, || {
            let mut found = Vec::new();
            self.store
                .search(&criteria, &mut |f| {
                    found.push(f.id);
                    found.len() < limit
                })
                .map(|()| found)
                .map_err(store_error)
        })?
    }

    /// The games a Scoutfish query finds (`query`: a dict, or its JSON
    /// text): conditions of `sub-fen`, `material`, `imbalance`,
    /// `white-move`, `black-move`, `moved`, `captured`, `stm`, `pass`,
    /// alone, in a `sequence` (met in order) or a `streak` (at
    /// consecutive plies), with `result`, `result-type`, `skip` and
    /// `limit`, as `rookery db search --query` reads them. A list of
    /// `(number, plies)`: each game found, in order, and the first ply (0:
    /// the start) each condition is met at. The games are read on `jobs`
    /// threads. A query that does not read raises `ValueError` naming
    /// where it is wrong.
    #[pyo3(signature = (query, *, jobs = 1))]
    fn scout(
        &self,
        py: Python<'_>,
        query: &Bound<'_, PyAny>,
        jobs: usize,
    ) -> PyResult<Vec<(u64, Vec<u32>)>> {
        let text: String = match query.extract::<String>() {
            Ok(s) => s,
            Err(_) => py
                .import("json")?
                .call_method1("dumps", (query,))?
                .extract()?,
        };
        let q: ScoutQuery = text
            .parse()
            .map_err(|e: rookery_db::scan::ScanError| PyValueError::new_err(e.to_string()))?;
        crate::work(py, || {
            let mut found = Vec::new();
            q.run(&self.store, &Criteria::default(), jobs.max(1), &mut |hit| {
                found.push((hit.id, hit.plies));
                true
            })
            .map(|_| found)
            .map_err(store_error)
        })?
    }

    /// Game number `id` (from 1) in PGN: its tags from the header record,
    /// its mainline and result; `None` if there is no such game.
    fn pgn(&self, py: Python<'_>, id: u64) -> PyResult<Option<String>> {
        crate::work(py, || -> Result<Option<String>, DbError> {
            let Some(g) = self.store.game(id)? else {
                return Ok(None);
            };
            let game = self.store.pgn_game(&g, &mut HashMap::new())?;
            Ok(Some(rookery_pgn::writer::game_to_string(&game)))
        })?
        .map_err(store_error)
    }
}
