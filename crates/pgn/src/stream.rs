//! Running a PGN verb over a stream: the library half of `rookery pgn
//! validate | normalize | to-epd | stats`.
//!
//! A [`Plan`] says what to do with every game ([`Task`]), whether to stop at
//! the first game with an error, whether to report warnings and on how many
//! threads to read. [`run`] reads one input with it and hands the results to
//! a sink in input order, in [`Part`]s: the text to write, the problems found
//! ([`Diag`]) and the counts ([`Stats`], mergeable across parts and files).
//! The output is the same on any number of threads (see [`crate::split`]).
//!
//! Each task keeps only what it needs of a game (see [`Task::detail`]):
//! `to-epd` without comments builds no comment strings and no variation
//! trees, `stats` and `validate` not even the mainline (its plies are
//! counted), though every move (in variations too) is still played and
//! checked, so the problems reported are the same.
//!
//! ```
//! use rookery_pgn::source::Source;
//! use rookery_pgn::stream::{run, Plan, Task};
//!
//! let pgn = b"[White \"A\"]\n[Black \"B\"]\n[ECO \"C20\"]\n1. e4 e5 (1... c5 2. Nf3) 2. Nf3 1-0\n\n1. e4 Nf6 2. Nf6 *\n";
//! let plan = Plan::new(Task::Stats);
//! let mut stats = rookery_pgn::stream::Stats::default();
//! let mut diags = Vec::new();
//! run(&plan, Source::reader(&pgn[..]), "games.pgn", &mut |_| {}, &mut |part| -> Result<(), std::io::Error> {
//!     stats.merge(part.stats);
//!     diags.extend(part.diags);
//!     Ok(())
//! })?;
//! assert_eq!((stats.games, stats.error_games, stats.moves), (2, 1, 3));
//! assert_eq!(stats.results, [1, 0, 0, 0]);
//! assert_eq!(stats.eco.get("C20"), Some(&1));
//! assert_eq!(stats.longest.as_ref().map(|l| (l.plies, l.game)), Some((3, 1)));
//! assert!(diags[0].error && diags[0].message.contains("2. Nf6"));
//! # Ok::<(), rookery_pgn::stream::StreamError<std::io::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, BufRead, Read, Write};

use crate::convert::{epd_to_game, write_game_epd, write_game_fens, EpdOptions};
use crate::eco;
use crate::game::{Detail, GameBuilder, GameError, ReadGame, Warning};
use crate::reader::Reader;
use crate::source::{Reading, Source};
use crate::split::{PieceGames, Start};
use crate::types::{GameResult, Location};
use crate::writer::game_to_string;

/// A part is handed to the sink once its text reaches this many bytes.
pub const FLUSH_TEXT_BYTES: usize = 1 << 16;
/// A part is handed to the sink once it holds this many problems.
pub const FLUSH_DIAGS: usize = 256;

/// What to do with every game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Task {
    /// Check every game; report the problems (tag values too), write nothing.
    Validate,
    /// Write every game in export format (comments and variations kept).
    Normalize {
        /// Correct the Result tag and the game-termination marker where
        /// the last position or the marker decides them
        /// ([`crate::Game::fix_result`], as `pgn-extract --fixresulttags`).
        fix_results: bool,
    },
    /// One EPD record per mainline position, or one FEN per line if `fen`.
    ToEpd {
        /// FEN lines instead of EPD records.
        fen: bool,
        /// What the EPD records carry besides the position.
        opts: EpdOptions,
    },
    /// Count games, moves, results, errors, the ECO codes; find the longest game.
    Stats,
    /// Write every game with the `ECO`, `Opening` and `Variation` tags of its
    /// opening ([`crate::eco`]) and every other byte as it was ([`crate::eco::run`]).
    Eco {
        /// Leave a game that already has any of these tags as it is.
        keep: bool,
    },
}

impl Task {
    /// How much of a game the task needs: the whole tree only to write
    /// comments or variations, the mainline moves to convert them, else
    /// (counting, checking) only the number of mainline plies.
    pub fn detail(&self) -> Detail {
        match self {
            Task::Normalize { .. } => Detail::Full,
            Task::ToEpd { fen: false, opts } if opts.comments => Detail::Full,
            Task::ToEpd { .. } => Detail::Mainline,
            Task::Validate | Task::Stats | Task::Eco { .. } => Detail::Count,
        }
    }
}

impl Task {
    /// An empty part for this task's results: with room for the text of a
    /// full part if the task writes text (the text is not grown, and so
    /// copied, again and again), below the size the allocator maps afresh.
    pub(crate) fn new_part(&self) -> Part {
        let mut part = Part::default();
        if matches!(
            self,
            Task::Normalize { .. } | Task::ToEpd { .. } | Task::Eco { .. }
        ) {
            part.text.reserve(FLUSH_TEXT_BYTES + FLUSH_TEXT_BYTES / 2);
        }
        part
    }
}

/// A validated plan for one run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// What to do with every game.
    pub task: Task,
    /// Stop at the first game with an error (nothing after it counts).
    pub strict: bool,
    /// Do not report warnings (they are still counted).
    pub quiet: bool,
    /// Reading threads (1: read on the calling thread).
    pub jobs: usize,
    /// Bytes per piece of input with more than one thread.
    pub chunk_bytes: usize,
    /// Classify every game by its moves ([`crate::eco`]): `normalize` sets
    /// the `ECO`, `Opening` and `Variation` tags, `stats` counts the ECO
    /// codes found instead of the tags'.
    pub classify: bool,
}

impl Plan {
    /// How the plan reads a [`Source`]: its threads and pieces, keeping
    /// `detail` of each game, lines that are not UTF-8 decoded from
    /// Latin-1 if `decode`.
    pub fn reading(&self, detail: Detail, decode: bool) -> Reading {
        Reading {
            jobs: self.jobs,
            chunk_bytes: self.chunk_bytes,
            detail,
            decode,
        }
    }

    /// A plan for `task`: lenient, warnings reported, one thread, 1 MiB pieces.
    pub fn new(task: Task) -> Plan {
        Plan {
            task,
            strict: false,
            quiet: false,
            jobs: 1,
            chunk_bytes: 1 << 20,
            classify: false,
        }
    }
}

/// One reported problem of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// Line in the input, from 1.
    pub line: u64,
    /// Column, from 1.
    pub col: u64,
    /// An error (the game was skipped) rather than a warning.
    pub error: bool,
    /// The game's index in the input, from 1.
    pub game: usize,
    /// What is wrong, naming the game.
    pub message: String,
}

impl Diag {
    /// A problem of game `game` at `at`.
    pub fn new(at: Location, error: bool, game: usize, message: String) -> Diag {
        Diag {
            line: at.line,
            col: at.col,
            error,
            game,
            message,
        }
    }

    /// The error of game number `index`, as every verb reports it.
    pub fn of_error(e: &GameError, index: usize) -> Diag {
        Diag::new(e.at, true, index, format!("{}: {}", e.game, e.kind))
    }

    /// A warning of game number `index`, as every verb reports it.
    pub fn of_warning(w: &Warning, index: usize) -> Diag {
        Diag::new(w.at, false, index, format!("game {index}: {}", w.kind))
    }
}

/// The longest game seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Longest {
    /// Its mainline plies.
    pub plies: usize,
    /// Its index in its input, from 1.
    pub game: usize,
    /// Its input's name.
    pub file: String,
    /// White tag (`?` if missing).
    pub white: String,
    /// Black tag (`?` if missing).
    pub black: String,
}

/// Counts of a run (mergeable across parts and files).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Games read (those with errors included).
    pub games: u64,
    /// Mainline plies of the games without errors (counted by [`Task::Stats`]).
    pub moves: u64,
    /// Games by result: 1-0, 0-1, 1/2-1/2, * (counted by [`Task::Stats`]).
    pub results: [u64; 4],
    /// Games with an error.
    pub error_games: u64,
    /// Input files that could not be opened (counted by the caller).
    pub missing_files: u64,
    /// Warnings, reported or not.
    pub warnings: u64,
    /// The longest game without errors (found by [`Task::Stats`]); the first
    /// of equal length.
    pub longest: Option<Longest>,
    /// Games by ECO code (`?` when the tag is missing or malformed; counted
    /// by [`Task::Stats`], by the classification with [`Plan::classify`];
    /// by [`Task::Eco`], the codes written).
    pub eco: BTreeMap<String, u64>,
    /// What [`Task::Eco`] did to the games.
    pub tagged: crate::eco::run::Tagged,
}

impl Stats {
    /// Adds the counts of `o`, which comes after `self` in the input.
    pub fn merge(&mut self, o: Stats) {
        self.games += o.games;
        self.moves += o.moves;
        for (a, b) in self.results.iter_mut().zip(o.results) {
            *a += b;
        }
        self.error_games += o.error_games;
        self.missing_files += o.missing_files;
        self.warnings += o.warnings;
        if let Some(l) = o.longest {
            if self.longest.as_ref().is_none_or(|m| l.plies > m.plies) {
                self.longest = Some(l);
            }
        }
        for (k, v) in o.eco {
            *self.eco.entry(k).or_default() += v;
        }
        self.tagged.merge(o.tagged);
    }

    /// Whether the input had errors: a game with an error, a file that could
    /// not be opened, or (if `strict_warnings`) a warning.
    pub fn input_errors(&self, strict_warnings: bool) -> bool {
        self.error_games > 0 || self.missing_files > 0 || (strict_warnings && self.warnings > 0)
    }

    /// Games by the letter of their ECO code (`?` for none).
    pub fn eco_by_letter(&self) -> BTreeMap<char, u64> {
        let mut by_letter = BTreeMap::new();
        for (code, n) in &self.eco {
            *by_letter
                .entry(code.chars().next().unwrap_or('?'))
                .or_default() += n;
        }
        by_letter
    }

    /// The `n` most frequent ECO codes (`?` left out), most frequent first,
    /// ties in code order.
    pub fn top_eco(&self, n: usize) -> Vec<(&str, u64)> {
        let mut top: Vec<(&str, u64)> = self
            .eco
            .iter()
            .filter(|(c, _)| *c != "?")
            .map(|(c, n)| (c.as_str(), *n))
            .collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        top.truncate(n);
        top
    }
}

/// What a stretch of the input produced, in input order.
#[derive(Clone, Debug, Default)]
pub struct Part {
    /// Text to write, as UTF-8 bytes (normalized games, EPD records or FEN
    /// lines; the converters write bytes straight, with no check to pass).
    pub text: Vec<u8>,
    /// Problems, in input order.
    pub diags: Vec<Diag>,
    /// Counts.
    pub stats: Stats,
    /// Strict mode met an error: nothing after this part counts.
    pub stopped: bool,
    /// The part's last game, when it has no game-termination marker (see
    /// [`CutGuard`]).
    pub open_last: Option<OpenGame>,
    /// The first line of the part's games that is not UTF-8, for a task
    /// that reads its input as it is ([`Task::Eco`]: see
    /// [`crate::eco::run`]); the others read such a line as Latin-1 and
    /// tell it as they read it.
    pub latin1_line: Option<u64>,
}

/// A game without a game-termination marker, the last of its [`Part`]:
/// if it is also the last of an input whose compressed data was damaged,
/// the damage cut it short ([`CutGuard`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenGame {
    /// Its index in its input, from 1.
    pub index: usize,
    /// Where it starts.
    pub at: Location,
    /// Where its text starts in the part's text.
    pub text_from: usize,
    /// What the task counted for it beyond the game itself, to be undone
    /// if it was cut.
    pub counted: Counted,
}

/// What [`Task::Stats`] or [`Task::Eco`] counted for one game (see
/// [`OpenGame`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counted {
    /// Mainline plies added to [`Stats::moves`].
    pub plies: u64,
    /// The slot of [`Stats::results`] it added to.
    pub result: Option<usize>,
    /// The ECO code it added to [`Stats::eco`].
    pub eco: Option<String>,
    /// The longest game before it, if it became the longest.
    pub longest_before: Option<Option<Longest>>,
    /// What it added to [`Stats::tagged`].
    pub tagged: crate::eco::run::Tagged,
}

impl Counted {
    /// Takes what was counted out of `stats` again.
    fn undo(self, stats: &mut Stats) {
        stats.moves -= self.plies;
        if let Some(slot) = self.result {
            stats.results[slot] -= 1;
        }
        if let Some(code) = self.eco {
            if let Some(n) = stats.eco.get_mut(&code) {
                *n -= 1;
                if *n == 0 {
                    stats.eco.remove(&code);
                }
            }
        }
        if let Some(longest) = self.longest_before {
            stats.longest = longest;
        }
        stats.tagged.named -= self.tagged.named;
        stats.tagged.kept -= self.tagged.kept;
        stats.tagged.unnamed -= self.tagged.unnamed;
    }
}

/// The error of a game cut short by the damage of its input's compressed
/// data (the copying verbs' and the converting verbs' words).
pub fn cut_short_message(index: usize) -> String {
    format!("game {index}: cut short by the damage in the compressed data (the rest of it is lost)")
}

/// Holds back the parts of a run over one input until it is read, so
/// that a last game cut short by damage in the input's compressed data
/// ([`rookery_io::input::Input::damage`]) is an error, not written as if
/// whole: its text is taken out of its part, its counts become an error
/// game's, and the part says why. The parts come out in order, at most
/// one part (and the empty ones after it) late.
///
/// ```
/// use rookery_pgn::stream::{CutGuard, Part};
/// let mut guard = CutGuard::default();
/// let mut part = Part::default();
/// part.stats.games = 1;
/// assert!(guard.push(part).is_empty()); // held until the next game, or the end
/// assert_eq!(guard.finish(false).len(), 1);
/// ```
#[derive(Debug, Default)]
pub struct CutGuard {
    held: Vec<Part>,
}

impl CutGuard {
    /// Takes the next part of the run; returns the parts that can be
    /// handed on now (those before the last part that read a game).
    pub fn push(&mut self, part: Part) -> Vec<Part> {
        if part.stats.games > 0 {
            std::mem::replace(&mut self.held, vec![part])
        } else {
            self.held.push(part);
            Vec::new()
        }
    }

    /// The end of the input: the parts still held, the last game taken
    /// out as an error if `cut` (the text ended early, by damage) and it
    /// had no game-termination marker.
    pub fn finish(mut self, cut: bool) -> Vec<Part> {
        if let Some(part) = self.held.first_mut().filter(|_| cut) {
            if let Some(open) = part.open_last.take() {
                part.text.truncate(open.text_from);
                part.diags.push(Diag::new(
                    open.at,
                    true,
                    open.index,
                    cut_short_message(open.index),
                ));
                part.stats.error_games += 1;
                open.counted.undo(&mut part.stats);
            }
        }
        self.held
    }
}

impl Part {
    /// Whether the part is worth handing on now (see [`FLUSH_TEXT_BYTES`],
    /// [`FLUSH_DIAGS`]), or must be because the run stops.
    pub fn is_full(&self) -> bool {
        self.text.len() > FLUSH_TEXT_BYTES || self.diags.len() > FLUSH_DIAGS || self.stopped
    }
}

/// Why a run stopped.
#[derive(Debug)]
pub enum StreamError<E> {
    /// The input could not be read.
    Read(io::Error),
    /// The sink failed.
    Sink(E),
}

impl<E> From<io::Error> for StreamError<E> {
    fn from(e: io::Error) -> StreamError<E> {
        StreamError::Read(e)
    }
}

impl<E: fmt::Display> fmt::Display for StreamError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::Read(e) => write!(f, "cannot read the input: {e}"),
            StreamError::Sink(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for StreamError<E> {}

fn result_slot(r: GameResult) -> usize {
    match r {
        GameResult::WhiteWins => 0,
        GameResult::BlackWins => 1,
        GameResult::Draw => 2,
        GameResult::Unknown => 3,
    }
}

/// Tag values that do not have their tag's form (Date, TimeControl, Result,
/// ECO, PlyCount, and a PlyCount that disagrees with the moves), as warnings
/// at the tag.
pub fn tag_warnings(g: &ReadGame, diags: &mut Vec<Diag>) {
    let tags = &g.game.tags;
    let mut bad: Vec<(&str, String)> = Vec::new();
    if let Err(e) = tags.date() {
        bad.push(("Date", e.to_string()));
    }
    if let Err(e) = tags.time_control() {
        bad.push(("TimeControl", e.to_string()));
    }
    if let Err(e) = tags.result() {
        bad.push(("Result", e.to_string()));
    }
    if let Err(e) = tags.eco() {
        bad.push(("ECO", e.to_string()));
    }
    match tags.ply_count() {
        Err(e) => bad.push(("PlyCount", e.to_string())),
        Ok(Some(n)) if g.error.is_none() && n as usize != g.plies => {
            bad.push((
                "PlyCount",
                format!("PlyCount tag says {n}, the game has {} plies", g.plies),
            ));
        }
        _ => {}
    }
    for (tag, message) in bad {
        let message = format!("game {}: {message}", g.index);
        diags.push(Diag::new(g.tag_location(tag), false, g.index, message));
    }
}

/// Counts a game and reports its problems as `plan` says, adding to `part`
/// (the first step of every task): its warnings, the tag values of the wrong
/// form (validate), its error (after which a strict plan stops). Returns
/// whether the game has no error (and `part` has not stopped).
pub fn report(plan: &Plan, g: &ReadGame, part: &mut Part) -> bool {
    if part.stopped {
        return false;
    }
    part.stats.warnings += g.warnings.len() as u64;
    if !plan.quiet {
        for w in &g.warnings {
            part.diags.push(Diag::of_warning(w, g.index));
        }
    }
    if matches!(plan.task, Task::Validate) {
        let mut tw = Vec::new();
        tag_warnings(g, &mut tw);
        part.stats.warnings += tw.len() as u64;
        if !plan.quiet {
            part.diags.extend(tw);
        }
    }
    part.stats.games += 1;
    if let Some(e) = &g.error {
        part.diags.push(Diag::of_error(e, g.index));
        part.stats.error_games += 1;
        part.stopped = plan.strict;
        return false;
    }
    true
}

/// Handles one game as `plan` says, adding to `part`; `file` names the
/// input in [`Stats::longest`]. Nothing happens once `part` has stopped.
/// ([`Task::Eco`] needs the game's text: [`crate::eco::run`] handles it.)
pub fn handle(plan: &Plan, file: &str, g: &ReadGame, part: &mut Part) {
    part.open_last = None;
    if !report(plan, g, part) {
        return;
    }
    let text_from = part.text.len();
    // What is counted of a game without a termination marker is kept, to
    // be undone if the damage of its input cut it.
    let open = is_open(g);
    let mut counted = Counted::default();
    match plan.task {
        Task::Validate => {}
        Task::Normalize { fix_results } => {
            let fix = fix_results && g.game.corrected_result(g.ending).is_some();
            let opening = plan.classify.then(|| eco::classify(g)).flatten();
            let text = if fix || opening.is_some() {
                let mut game = g.game.clone();
                if fix {
                    game.fix_result(g.ending);
                }
                if let Some(c) = opening {
                    eco::set_tags(&mut game.tags, c.opening);
                }
                game_to_string(&game)
            } else {
                game_to_string(&g.game)
            };
            part.text.extend_from_slice(text.as_bytes());
        }
        Task::ToEpd { fen: true, .. } => write_game_fens(&g.game, &mut part.text),
        Task::ToEpd { fen: false, opts } => {
            write_game_epd(&g.game, g.index, &opts, &mut part.text);
        }
        Task::Stats => {
            let plies = g.plies;
            let s = &mut part.stats;
            s.moves += plies as u64;
            s.results[result_slot(g.game.result)] += 1;
            if s.longest.as_ref().is_none_or(|l| plies > l.plies) {
                let t = |n: &str| g.game.tags.get(n).unwrap_or("?").to_owned();
                let before = s.longest.replace(Longest {
                    plies,
                    game: g.index,
                    file: file.to_owned(),
                    white: t("White"),
                    black: t("Black"),
                });
                if open {
                    counted.longest_before = Some(before);
                }
            }
            let code = if plan.classify {
                let code = eco::classify(g).map_or("?", |c| c.opening.eco());
                count_eco(&mut s.eco, code);
                open.then(|| code.to_owned())
            } else {
                count_eco_tag(&mut s.eco, &g.game.tags);
                open.then(|| eco_tag_code(&g.game.tags))
            };
            if open {
                counted.plies = plies as u64;
                counted.result = Some(result_slot(g.game.result));
                counted.eco = code;
            }
        }
        // Written by `eco::run`, which has the game's text.
        Task::Eco { .. } => {}
    }
    part.open_last = open.then_some(OpenGame {
        index: g.index,
        at: g.at,
        text_from,
        counted,
    });
}

/// Whether `g` has no game-termination marker.
pub(crate) fn is_open(g: &ReadGame) -> bool {
    g.warnings
        .iter()
        .any(|w| w.kind == crate::game::WarningKind::MissingResult)
}

/// Counts one game of ECO code `code` in `eco`, without allocating for a
/// code seen before.
pub(crate) fn count_eco(eco: &mut BTreeMap<String, u64>, code: &str) {
    match eco.get_mut(code) {
        Some(n) => *n += 1,
        None => {
            eco.insert(code.to_owned(), 1);
        }
    }
}

/// Counts one game in `eco` by its ECO tag (`?` when missing or malformed).
pub(crate) fn count_eco_tag(eco: &mut BTreeMap<String, u64>, tags: &crate::Tags) {
    let mut buf = [0; 3];
    count_eco(eco, tag_code(tags, &mut buf));
}

/// The ECO code of `tags` as [`Stats::eco`] counts it (`?` when missing
/// or malformed), written in `buf` (no allocation).
fn tag_code<'a>(tags: &crate::Tags, buf: &'a mut [u8; 3]) -> &'a str {
    match tags.eco() {
        Ok(Some(e)) if e.letter.is_ascii() && e.number < 100 => {
            *buf = [e.letter as u8, b'0' + e.number / 10, b'0' + e.number % 10];
            std::str::from_utf8(buf).unwrap_or("?")
        }
        _ => "?",
    }
}

/// [`tag_code`], owned.
pub(crate) fn eco_tag_code(tags: &crate::Tags) -> String {
    tag_code(tags, &mut [0; 3]).to_owned()
}

/// Reads `source` (named `file` in stats) as `plan` says and hands the
/// results to `sink` in input order, in parts of about [`FLUSH_TEXT_BYTES`]
/// (one thread) or one piece of input (several). A line that is not UTF-8
/// is read as ISO 8859-1 (Latin-1) and told to the source's listener
/// ([`Source::on_latin1`]); [`Task::Eco`] copies it as it is and tells it
/// all the same. `progress` is told the bytes of input consumed so far now
/// and then. In strict mode the run ends with the part that holds the first
/// error (its [`Part::stopped`] is set).
///
/// # Errors
/// [`StreamError::Read`] if the input cannot be read (or a reading thread
/// panicked; an input read at offsets that got shorter while read),
/// [`StreamError::Sink`] with the first error `sink` returns.
pub fn run<E>(
    plan: &Plan,
    source: Source<'_>,
    file: &str,
    progress: &mut dyn FnMut(u64),
    sink: &mut dyn FnMut(Part) -> Result<(), E>,
) -> Result<(), StreamError<E>> {
    if let Task::Eco { keep } = plan.task {
        return eco::run::run(plan, keep, source, progress, sink);
    }
    // (A source that begins inside a text is read in pieces, which know
    // where they stand, on one thread as on several.)
    if plan.jobs <= 1 && source.start() == Start::default() {
        return run_one(plan, source.into_text(true)?, file, progress, sink);
    }
    let work = |games: &mut PieceGames| {
        let mut part = plan.task.new_part();
        while let Some(g) = games.next() {
            handle(plan, file, &g, &mut part);
            games.recycle(g);
            if part.stopped {
                break;
            }
        }
        part
    };
    source.for_each_piece(
        plan.reading(plan.task.detail(), true),
        &work,
        &mut |part: Part, bytes| -> Result<bool, StreamError<E>> {
            progress(bytes);
            let go_on = !part.stopped;
            sink(part).map_err(StreamError::Sink)?;
            Ok(go_on)
        },
    )
}

/// [`run`] on the calling thread.
fn run_one<R: Read, E>(
    plan: &Plan,
    input: R,
    file: &str,
    progress: &mut dyn FnMut(u64),
    sink: &mut dyn FnMut(Part) -> Result<(), E>,
) -> Result<(), StreamError<E>> {
    let detail = plan.task.detail();
    let mut reader = Reader::new(input);
    let mut builder = GameBuilder::new().with_detail(detail);
    let mut part = plan.task.new_part();
    while let Some(g) = reader.read_game(&mut builder)? {
        handle(plan, file, &g, &mut part);
        builder.recycle(g);
        if part.is_full() {
            let stopped = part.stopped;
            let next = plan.task.new_part();
            sink(std::mem::replace(&mut part, next)).map_err(StreamError::Sink)?;
            if stopped {
                return Ok(());
            }
        }
        progress(reader.offset());
    }
    sink(part).map_err(StreamError::Sink)
}

/// `rookery pgn from-epd`: one game per EPD record of `input` (see
/// [`epd_to_game`]) written to `output` in export format; lines that are
/// not records (blank, comments) are skipped, and the error diagnostics of
/// each line that cannot be read go to `report`, which is then skipped.
/// Returns how many lines could not be read.
///
/// # Errors
/// I/O errors.
pub fn epd_to_pgn<R: BufRead, W: Write>(
    input: R,
    mut output: W,
    mut report: impl FnMut(&rookery_epd::Diagnostic),
) -> io::Result<u64> {
    let mut reader = rookery_epd::Reader::new(input, rookery_epd::Mode::Lenient);
    let mut unread = 0;
    while let Some(line) = reader.next_line()? {
        match &line.kind {
            rookery_epd::LineKind::Record(rec) => {
                output.write_all(game_to_string(&epd_to_game(rec)).as_bytes())?;
            }
            rookery_epd::LineKind::Unparsed => {
                unread += 1;
                for d in line.diagnostics.iter().filter(|d| d.is_error()) {
                    report(d);
                }
            }
            _ => {}
        }
    }
    Ok(unread)
}
