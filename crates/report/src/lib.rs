//! Gastric-style reports from test-suite results: per-suite totals,
//! solved/missed lists, distributions of nodes and time to solution, and
//! comparisons of several engines or versions on the same suite, as terminal
//! text, JSON, or one self-contained HTML page with SVG charts and a board
//! diagram of each missed position.
//!
//! The EPD specification names the report generator ("Gastric", §3.3) but
//! leaves its semantics to be defined (§9); this crate is rookery's answer.
//!
//! ```
//! use rookery_report::{Expected, PositionResult, Report, SuiteRun};
//! let run = SuiteRun {
//!     suite: "wac".into(),
//!     engine: "rookery".into(),
//!     limits: "movetime 100 ms".into(),
//!     started: None,
//!     positions: vec![PositionResult {
//!         index: 1,
//!         id: Some("WAC.001".into()),
//!         fen: "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - -".into(),
//!         expected: Expected { bm: vec!["Qg6".into()], ..Expected::default() },
//!         answer: Some("Qg6".into()),
//!         pv: vec![],
//!         score: None,
//!         depth: Some(9),
//!         nodes: Some(120_000),
//!         time_ms: Some(100),
//!         solved: true,
//!         points: 1,
//!         max_points: 1,
//!         time_to_solution_ms: Some(12),
//!         nodes_to_solution: Some(9_000),
//!         error: None,
//!     }],
//! };
//! let report = Report::new(vec![run]);
//! assert!(report.text().contains("1/1"));
//! # #[cfg(feature = "html")]
//! assert!(report.html("WAC").unwrap().contains("<svg"));
//! ```
//!
//! Gastric proper (spec §3.3) reads EPD too: [`load_input`] takes either the
//! JSON of `rookery suite` or an EPD file an analysis program wrote
//! ([`epd_run`]), detected by content. A report adds, to the totals and
//! lists, a paired comparison of each run with the run before it on the
//! same suite (newly solved, newly lost, exact McNemar test: [`paired`]),
//! a breakdown by theme ([`themes`]), the cumulative "solved within t"
//! curve of every run ([`curve`]), CSV ([`Report::csv`]) and a gate for CI
//! ([`Report::gate`]).
//!
//! ```
//! use rookery_report::{load_input, themes::ThemeSource, Report};
//! let before = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"m.1\"; pm Rd7; acs 1;\n\
//!               k7/8/2K5/8/8/8/8/7R w - - bm Kb6; id \"m.2\"; pm Kb6; acs 2;\n";
//! let after = before.replace("pm Rd7", "pm Rd8#");
//! let mut runs = Vec::new();
//! for (name, text) in [("old.epd", before.to_string()), ("new.epd", after)] {
//!     let input = load_input(name, text.as_bytes(), &ThemeSource::IdPrefix)?;
//!     assert!(input.problems.is_empty());
//!     runs.push(input);
//! }
//! let report = Report::from_inputs(runs, &ThemeSource::IdPrefix, 0.05);
//! assert_eq!(report.paired[0].gained, ["m.1"]);
//! assert_eq!(report.paired[0].p_value, 1.0);
//! assert_eq!(report.summaries[1].solved, 2);
//! # Ok::<(), rookery_report::ReportError>(())
//! ```
//!
//! The HTML page (and with it the plotters dependency) is the `html`
//! feature, on by default; a library that only needs the result model, text
//! and JSON turns default features off.

#![deny(missing_docs)]

pub mod board;
pub mod compare;
pub mod csv;
pub mod curve;
pub mod epd_run;
pub mod game_model;
#[cfg(feature = "html")]
pub mod game_page;
pub mod gate;
#[cfg(feature = "html")]
pub mod html;
mod model;
pub mod paired;
pub mod sections;
pub mod stats;
pub mod target;
pub mod text;
pub mod themes;

pub use compare::Comparison;
pub use curve::Curves;
pub use gate::{Gate, GateError, WorseRule};
pub use model::{Expected, JoinError, PositionResult, Score, SuiteRun};
pub use paired::Paired;
pub use stats::Summary;
pub use themes::{ThemeBreakdown, ThemeSource};

use serde::Serialize;
use std::path::Path;

/// What can go wrong making a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A results file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A compressed results file is damaged, or its text cannot be read
    /// (UTF-16, a compression rookery does not read); the message names it.
    #[error(transparent)]
    Input(rookery_io::input::InputError),
    /// A results file is not valid results JSON.
    #[error("{path}:{line}:{column}: {message}")]
    Json {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was wrong.
        message: String,
    },
    /// A line of an EPD file that cannot be used.
    #[error("{path}:{line}:{column}: {message}")]
    Epd {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based byte column.
        column: usize,
        /// What was wrong.
        message: String,
    },
    /// An input that is neither results JSON nor EPD (a PGN file, say).
    #[error("{path}:{line}:{column}: {message}")]
    NotInput {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the file looks like instead, and what is read.
        message: String,
    },
    /// A chart could not be drawn.
    #[cfg(feature = "html")]
    #[error("chart: {0}")]
    Chart(String),
}

/// Runs to report on, with their comparisons.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The runs, in the order given.
    pub runs: Vec<SuiteRun>,
    /// Totals of each run.
    pub summaries: Vec<Summary>,
    /// Comparisons of runs that share a suite.
    pub comparisons: Vec<Comparison>,
    /// Each run compared with the run before it on the same suite (newly
    /// solved, newly lost, exact McNemar test).
    pub paired: Vec<Paired>,
    /// Where themes come from, in words (`id prefix`, `opcode c1`).
    pub theme_source: String,
    /// Each run's breakdown by theme.
    pub themes: Vec<ThemeBreakdown>,
    /// The "solved within t" curve of every run.
    pub curves: Curves,
    /// The significance level of the verdicts.
    pub alpha: f64,
    /// The theme of each position of each run.
    #[serde(skip)]
    position_themes: Vec<Vec<String>>,
}

/// The significance level used unless another is asked for.
pub const DEFAULT_ALPHA: f64 = 0.05;

impl Report {
    /// Builds the report: totals of each run, comparisons where runs share
    /// a suite, themes by id prefix, curves.
    pub fn new(runs: Vec<SuiteRun>) -> Report {
        let source = ThemeSource::IdPrefix;
        let themes: Vec<Vec<String>> = runs
            .iter()
            .map(|r| {
                r.positions
                    .iter()
                    .map(|p| themes::of_result(&source, p))
                    .collect()
            })
            .collect();
        Report::with_themes(runs, themes, &source, DEFAULT_ALPHA)
    }

    /// Builds the report from loaded inputs (their runs in order, with the
    /// themes they were read with).
    pub fn from_inputs(inputs: Vec<Input>, source: &ThemeSource, alpha: f64) -> Report {
        let mut runs = Vec::new();
        let mut themes = Vec::new();
        for i in inputs {
            runs.extend(i.runs);
            themes.extend(i.themes);
        }
        Report::with_themes(runs, themes, source, alpha)
    }

    /// Builds the report with the theme of each position given
    /// (`themes[i][j]` for position `j` of run `i`), read from `source`;
    /// verdicts at significance level `alpha`.
    pub fn with_themes(
        runs: Vec<SuiteRun>,
        themes: Vec<Vec<String>>,
        source: &ThemeSource,
        alpha: f64,
    ) -> Report {
        let summaries = runs.iter().map(Summary::of).collect();
        let comparisons = compare::compare_all(&runs);
        let paired = paired::pair_all(&runs);
        let breakdowns = runs
            .iter()
            .enumerate()
            .map(|(i, r)| themes::breakdown(i, r, themes.get(i).map(Vec::as_slice).unwrap_or(&[])))
            .collect();
        let curves = curve::curves(&runs);
        Report {
            runs,
            summaries,
            comparisons,
            paired,
            theme_source: source.to_string(),
            themes: breakdowns,
            curves,
            alpha,
            position_themes: themes,
        }
    }

    /// The report as terminal text.
    pub fn text(&self) -> String {
        let mut s = text::render(&self.runs, &self.comparisons);
        s.push_str(&sections::text(self));
        s
    }

    /// The report as one JSON document (runs, summaries, comparisons,
    /// paired comparisons, themes, curves).
    pub fn json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report as CSV: one row per position of every run ([`csv`]).
    pub fn csv(&self) -> String {
        csv::render(&self.runs, &self.position_themes)
    }

    /// The report as one self-contained HTML page (feature `html`).
    ///
    /// # Errors
    /// [`ReportError::Chart`] if a chart cannot be drawn.
    #[cfg(feature = "html")]
    pub fn html(&self, title: &str) -> Result<String, ReportError> {
        let sections = sections::html(self);
        html::render(title, &self.runs, &self.comparisons, &sections)
    }
}

/// What one input file held: its runs, the theme of each of their
/// positions, and the problems found in it.
#[derive(Debug)]
pub struct Input {
    /// The runs (JSON may hold several; EPD holds one).
    pub runs: Vec<SuiteRun>,
    /// `themes[i][j]`: the theme of position `j` of run `i`.
    pub themes: Vec<Vec<String>>,
    /// Lines that could not be used, each with its place (the runs still
    /// hold those positions, as errors), or an input that holds no run.
    pub problems: Vec<ReportError>,
    /// The first line of an EPD input that was not UTF-8: such lines are
    /// read as ISO 8859-1 (Latin-1), as every EPD and PGN verb reads them,
    /// and the caller may warn.
    pub latin1_from_line: Option<u64>,
}

/// Whether `bytes` are JSON (`{` or `[` first, after white space and a
/// byte-order mark) rather than EPD (a record starts with a piece placement,
/// a comment with `#`). A PGN tag pair (`[Event "..."]`) is not JSON: see
/// [`pgn_tag_at`].
pub fn is_json(bytes: &[u8]) -> bool {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    matches!(
        b.iter().find(|c| !c.is_ascii_whitespace()),
        Some(b'{' | b'[')
    ) && pgn_tag_at(bytes).is_none()
}

/// The line and column of the PGN tag pair that opens `bytes` (`[` then a
/// tag name: a letter, where a JSON array has `{`, `]` or a value), or
/// `None`.
pub fn pgn_tag_at(bytes: &[u8]) -> Option<(usize, usize)> {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = b.iter().position(|c| !c.is_ascii_whitespace())?;
    if b[start] != b'[' {
        return None;
    }
    let next = b[start + 1..].iter().find(|c| !matches!(c, b' ' | b'\t'))?;
    if !next.is_ascii_alphabetic() {
        return None;
    }
    let before = &b[..start];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let column = start
        - before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1)
        + 1;
    Some((line, column))
}

/// Reads one input, JSON results or EPD, told apart by content
/// ([`is_json`]); `name` names it in errors (and names an EPD run).
///
/// # Errors
/// [`ReportError::Json`] when JSON input is not valid results (the whole
/// file is then unusable); [`ReportError::Io`] when it cannot be read. Bad
/// EPD lines are not errors of the whole: see [`Input::problems`].
pub fn load_input(name: &str, bytes: &[u8], theme: &ThemeSource) -> Result<Input, ReportError> {
    if let Some(encoding) = rookery_io::latin1::wide_encoding(bytes) {
        return Err(ReportError::NotInput {
            path: name.to_string(),
            line: 1,
            column: 1,
            message: rookery_io::latin1::wide_error(encoding).to_string(),
        });
    }
    if let Some((line, column)) = pgn_tag_at(bytes) {
        return Err(ReportError::NotInput {
            path: name.to_string(),
            line,
            column,
            message: "a PGN tag pair: this is a PGN file, and `report` reads the results \
                      JSON of `rookery suite` or EPD runs (`rookery pgn to-epd` turns \
                      games into positions)"
                .into(),
        });
    }
    if is_json(bytes) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let runs = load_text(name, text)?;
        let themes = runs
            .iter()
            .map(|r| {
                r.positions
                    .iter()
                    .map(|p| themes::of_result(theme, p))
                    .collect()
            })
            .collect();
        let mut problems = Vec::new();
        if runs.is_empty() {
            problems.push(ReportError::Json {
                path: name.to_string(),
                line: 1,
                column: 1,
                message: "an array of no run: nothing to report".into(),
            });
        }
        return Ok(Input {
            runs,
            themes,
            problems,
            latin1_from_line: None,
        });
    }
    let latin1 = std::cell::Cell::new(None);
    let lines = std::io::BufReader::new(rookery_io::latin1::Latin1Read::new(bytes, |line| {
        latin1.set(Some(line))
    }));
    let read = epd_run::read(name, lines, theme)?;
    let latin1_from_line = latin1.get();
    let mut problems = read.problems;
    if read.run.positions.is_empty() {
        problems.push(ReportError::Epd {
            path: name.to_string(),
            line: 1,
            column: 1,
            message: "no EPD record and no JSON results: nothing to report".into(),
        });
        return Ok(Input {
            runs: Vec::new(),
            themes: Vec::new(),
            problems,
            latin1_from_line,
        });
    }
    Ok(Input {
        runs: vec![read.run],
        themes: vec![read.themes],
        problems,
        latin1_from_line,
    })
}

/// [`load_input`] of a file.
///
/// # Errors
/// As [`load_input`].
pub fn load_input_file(path: &Path, theme: &ThemeSource) -> Result<Input, ReportError> {
    let bytes = read_file(path)?;
    load_input(&path.display().to_string(), &bytes, theme)
}

/// The text of the file at `path`, decompressed if it is compressed
/// (zstd, gzip, bzip2, told by its bytes).
fn read_file(path: &Path) -> Result<Vec<u8>, ReportError> {
    use rookery_io::input::InputError;
    rookery_io::input::read_all(path).map_err(|e| match e {
        InputError::Open { source, .. } | InputError::Read { source, .. } => ReportError::Io {
            path: path.display().to_string(),
            source,
        },
        e => ReportError::Input(e),
    })
}

/// Reads one results file: a JSON [`SuiteRun`], or a JSON array of them.
///
/// # Errors
/// [`ReportError::Io`] or [`ReportError::Json`] with the line and column.
pub fn load(path: &Path) -> Result<Vec<SuiteRun>, ReportError> {
    let text = String::from_utf8(read_file(path)?).map_err(|e| ReportError::Io {
        path: path.display().to_string(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
    })?;
    load_text(&path.display().to_string(), &text)
}

/// [`parse`] with errors that name `name` (a file name, `<stdin>`), the
/// line and the column, and say in words what was wrong.
///
/// # Errors
/// [`ReportError::Json`].
pub fn load_text(name: &str, text: &str) -> Result<Vec<SuiteRun>, ReportError> {
    parse(text).map_err(|e| {
        // serde's message ends in its own " at line L column C": said once, in front.
        let full = e.to_string();
        let what = full
            .rfind(" at line ")
            .map_or(full.as_str(), |i| &full[..i])
            .to_string();
        let kind = match e.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                "not valid JSON"
            }
            _ => "not rookery suite results (as written by `rookery suite --results`)",
        };
        ReportError::Json {
            path: name.to_string(),
            line: e.line(),
            column: e.column(),
            message: format!("{kind}: {what}"),
        }
    })
}

/// Parses results JSON: one [`SuiteRun`] or an array of them.
///
/// # Errors
/// The JSON error, which knows its line and column.
pub fn parse(text: &str) -> Result<Vec<SuiteRun>, serde_json::Error> {
    // Choose the shape by the first character so that errors keep serde's
    // line and column (an untagged enum would lose them).
    if text.trim_start().starts_with('[') {
        serde_json::from_str(text)
    } else {
        serde_json::from_str::<SuiteRun>(text).map(|r| vec![r])
    }
}
