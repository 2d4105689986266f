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
//!         nodes: 120_000,
//!         time_ms: 100,
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
//! The HTML page (and with it the plotters dependency) is the `html`
//! feature, on by default; a library that only needs the result model, text
//! and JSON turns default features off.

#![deny(missing_docs)]

pub mod board;
pub mod compare;
pub mod game_model;
#[cfg(feature = "html")]
pub mod game_page;
#[cfg(feature = "html")]
pub mod html;
mod model;
pub mod stats;
pub mod text;

pub use compare::Comparison;
pub use model::{Expected, PositionResult, Score, SuiteRun};
pub use stats::Summary;

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
}

impl Report {
    /// Builds the report: totals of each run, comparisons where runs share a suite.
    pub fn new(runs: Vec<SuiteRun>) -> Report {
        let summaries = runs.iter().map(Summary::of).collect();
        let comparisons = compare::compare_all(&runs);
        Report {
            runs,
            summaries,
            comparisons,
        }
    }

    /// The report as terminal text.
    pub fn text(&self) -> String {
        text::render(&self.runs, &self.comparisons)
    }

    /// The report as one JSON document (runs, summaries, comparisons).
    pub fn json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report as one self-contained HTML page (feature `html`).
    ///
    /// # Errors
    /// [`ReportError::Chart`] if a chart cannot be drawn.
    #[cfg(feature = "html")]
    pub fn html(&self, title: &str) -> Result<String, ReportError> {
        html::render(title, &self.runs, &self.comparisons)
    }
}

/// Reads one results file: a JSON [`SuiteRun`], or a JSON array of them.
///
/// # Errors
/// [`ReportError::Io`] or [`ReportError::Json`] with the line and column.
pub fn load(path: &Path) -> Result<Vec<SuiteRun>, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportError::Io {
        path: path.display().to_string(),
        source,
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
