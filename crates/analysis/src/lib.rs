//! Analysis with any engine: the [`Analyst`] seam over the built-in engine
//! and external UCI engines, the EPD verbs pfga, pfms and pfts (§7 of the
//! EPD specification), test-suite scoring, and PGN game annotation
//! ([`annotate`]).
//!
//! ```
//! use rookery_analysis::{apply, AnalysisLimits, BuiltinAnalyst, Extras, Verb};
//! use rookery_epd::Record;
//!
//! let mut record: Record = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"back rank\";".parse()?;
//! let mut engine = BuiltinAnalyst::new(16)?;
//! let limits = AnalysisLimits { depth: Some(4), ..AnalysisLimits::default() };
//! apply(Verb::Target, &mut record, &mut engine, &limits, Extras::default())?;
//! assert_eq!(record.to_string(), "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"back rank\"; pm Rd8#;");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod analyst;
pub mod annotate;
mod passes;
mod run;
pub mod select;
pub mod suite;
mod verbs;

pub use analyst::{
    Analysis, AnalysisLimits, Analyst, AnalystError, BuiltinAnalyst, LimitError, Progress, Score,
    UciAnalyst, MAX_COUNT, MAX_NODES, MAX_START_FAILURES, MAX_TIME_MS, SOFT_MOVES,
};
pub use passes::{run_mate_passes, MatePasses, PassError, PassEvent};
pub use run::{resumable, run_suite, run_verb, LineProblem, Tick, VerbOptions, VerbSummary};
pub use verbs::{apply, has_verb_opcodes, is_mate_line, Applied, Extras, Verb, ANALYSIS_OPCODES};

/// Suites compiled into the library, for runs with no file given.
pub mod bundled {
    /// Win At Chess: 300 tactical positions with `bm` and `id` (see `data/SOURCES.md`).
    pub const WAC: &str = include_str!("../data/wac.epd");
}
