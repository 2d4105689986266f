//! The results of running an engine over a test suite: the data every report is made from.
//!
//! This is also the JSON format `rookery suite` writes and `rookery report` reads.

use serde::{Deserialize, Serialize};

/// One engine's run over one suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteRun {
    /// The suite's name (usually the file name without extension).
    pub suite: String,
    /// The engine's name (its `id name`, or `rookery` for the built-in engine).
    pub engine: String,
    /// The search limits, in words (e.g. `movetime 100 ms`).
    pub limits: String,
    /// When the run started (RFC 3339), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    /// Per-position results, in suite order.
    pub positions: Vec<PositionResult>,
}

/// Why runs of the parts of one suite cannot be joined into one run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    /// No part was given.
    #[error("no runs to join")]
    Empty,
    /// A part is a run of another suite, engine or limits than the first.
    #[error("part {part} is a run of {found:?}, the first part of {expected:?} ({what})")]
    Different {
        /// The part, from 1.
        part: usize,
        /// What differs: `suite`, `engine` or `limits`.
        what: &'static str,
        /// The first part's value.
        expected: String,
        /// This part's value.
        found: String,
    },
}

impl SuiteRun {
    /// The run of a whole suite from the runs of its parts in order (the
    /// contiguous runs of its records `suite --shard K/N` analyses): their
    /// positions one after the other, each numbered on from the positions
    /// of the parts before it, so that the run is the one an unsharded run
    /// of the same suite gives when the analysis is deterministic.
    ///
    /// ```
    /// use rookery_report::{Expected, PositionResult, SuiteRun};
    /// let part = |fens: &[&str]| SuiteRun {
    ///     suite: "wac".into(),
    ///     engine: "rookery".into(),
    ///     limits: "nodes 1000".into(),
    ///     started: None,
    ///     positions: fens
    ///         .iter()
    ///         .enumerate()
    ///         .map(|(i, f)| PositionResult::unanswered(i + 1, f.to_string(), Expected::default(), 1))
    ///         .collect(),
    /// };
    /// let whole = SuiteRun::join([part(&["a", "b"]), part(&[]), part(&["c"])])?;
    /// let numbered: Vec<_> = whole.positions.iter().map(|p| (p.index, p.fen.as_str())).collect();
    /// assert_eq!(numbered, [(1, "a"), (2, "b"), (3, "c")]);
    /// # Ok::<(), rookery_report::JoinError>(())
    /// ```
    ///
    /// # Errors
    /// [`JoinError::Empty`] for no part; [`JoinError::Different`] for a
    /// part of another suite, engine or limits than the first.
    pub fn join(parts: impl IntoIterator<Item = SuiteRun>) -> Result<SuiteRun, JoinError> {
        let mut parts = parts.into_iter();
        let mut whole = parts.next().ok_or(JoinError::Empty)?;
        for (i, part) in parts.enumerate() {
            let fields = [
                ("suite", &whole.suite, &part.suite),
                ("engine", &whole.engine, &part.engine),
                ("limits", &whole.limits, &part.limits),
            ];
            if let Some((what, expected, found)) = fields.into_iter().find(|(_, a, b)| a != b) {
                return Err(JoinError::Different {
                    part: i + 2,
                    what,
                    expected: expected.clone(),
                    found: found.clone(),
                });
            }
            let before = whole.positions.len();
            whole
                .positions
                .extend(part.positions.into_iter().map(|mut p| {
                    p.index += before;
                    p
                }));
        }
        Ok(whole)
    }
}

/// What a position asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expected {
    /// Best moves (`bm`, SAN): any of them solves the position.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bm: Vec<String>,
    /// Avoid moves (`am`, SAN): none of them may be played.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub am: Vec<String>,
    /// Direct mate in this many moves (`dm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dm: Option<u32>,
    /// Points per move (STS style, from `c0`), best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<(String, u32)>,
    /// The side to move gets mated in this many moves (`bm #-N`): any move is right.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mated: Option<u32>,
}

impl Expected {
    /// Whether the position asks for nothing that can be scored (no bm, am,
    /// dm, points or `#-N`).
    pub fn is_empty(&self) -> bool {
        self.bm.is_empty()
            && self.am.is_empty()
            && self.dm.is_none()
            && self.points.is_empty()
            && self.mated.is_none()
    }
}

/// An engine's evaluation: the one [`rookery_core::Score`], stored in JSON
/// as `{"cp": N}` or `{"mate": N}`.
pub use rookery_core::Score;

/// How one position went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionResult {
    /// 1-based index in the suite.
    pub index: usize,
    /// The record's `id`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The position (FEN or the four EPD fields).
    pub fen: String,
    /// What the position asks for.
    pub expected: Expected,
    /// The engine's move, in SAN (`None` if the engine failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// The engine's principal variation, in SAN.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pv: Vec<String>,
    /// The engine's last score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<Score>,
    /// The depth reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Nodes searched; `None` when not recorded (an EPD record without
    /// `acn`), `null` in JSON.
    #[serde(default)]
    pub nodes: Option<u64>,
    /// Time used, in milliseconds; `None` when not recorded (an EPD record
    /// without `acs`), `null` in JSON.
    #[serde(default)]
    pub time_ms: Option<u64>,
    /// Whether the answer solves the position.
    pub solved: bool,
    /// Points scored (STS; 1 or 0 for bm/am/dm positions).
    pub points: u32,
    /// The most points the position offers.
    pub max_points: u32,
    /// When the engine's best move last became, and stayed, correct (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_solution_ms: Option<u64>,
    /// Nodes searched at that moment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes_to_solution: Option<u64>,
    /// Why the position could not be run, if it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl PositionResult {
    /// A row for the position `fen` at `index` asking for `expected`, not
    /// answered (yet): no answer, no counts, not solved; the caller fills in
    /// what it knows.
    pub fn unanswered(index: usize, fen: String, expected: Expected, max_points: u32) -> Self {
        PositionResult {
            index,
            id: None,
            fen,
            expected,
            answer: None,
            pv: Vec::new(),
            score: None,
            depth: None,
            nodes: None,
            time_ms: None,
            solved: false,
            points: 0,
            max_points,
            time_to_solution_ms: None,
            nodes_to_solution: None,
            error: None,
        }
    }

    /// Whether the position could be scored: it ran, and it asks for
    /// something ([`Expected::is_empty`] is false). An unscorable position
    /// is neither solved nor missed.
    pub fn is_scorable(&self) -> bool {
        self.error.is_some() || !self.expected.is_empty()
    }

    /// Whether the position was run, could be scored and was not solved.
    pub fn is_missed(&self) -> bool {
        !self.solved && self.error.is_none() && !self.expected.is_empty()
    }

    /// The record's id, or `#index`.
    pub fn label(&self) -> String {
        self.id
            .clone()
            .unwrap_or_else(|| format!("#{}", self.index))
    }

    /// The expected answer in words: `bm Nf5`, `am Qxb2`, `dm 3`, `Nf5=10 Nd2=3`.
    pub fn expected_text(&self) -> String {
        let e = &self.expected;
        let mut parts = Vec::new();
        if !e.bm.is_empty() {
            parts.push(format!("bm {}", e.bm.join(" ")));
        }
        if !e.am.is_empty() {
            parts.push(format!("am {}", e.am.join(" ")));
        }
        if let Some(dm) = e.dm {
            parts.push(format!("dm {dm}"));
        }
        if let Some(n) = e.mated {
            parts.push(format!("mated in {n} (any move)"));
        }
        if !e.points.is_empty() && e.bm.is_empty() {
            parts.push(
                e.points
                    .iter()
                    .map(|(m, p)| format!("{m}={p}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(engine: &str, fens: &[&str]) -> SuiteRun {
        SuiteRun {
            suite: "wac".into(),
            engine: engine.into(),
            limits: "nodes 300".into(),
            started: None,
            positions: fens
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    PositionResult::unanswered(i + 1, f.to_string(), Expected::default(), 1)
                })
                .collect(),
        }
    }

    #[test]
    fn a_part_of_another_engine_is_not_joined() {
        let err = SuiteRun::join([run("a", &["x"]), run("a", &["y"]), run("b", &["z"])]);
        assert_eq!(
            err,
            Err(JoinError::Different {
                part: 3,
                what: "engine",
                expected: "a".into(),
                found: "b".into(),
            })
        );
        assert_eq!(SuiteRun::join(Vec::new()), Err(JoinError::Empty));
    }

    #[test]
    fn positions_are_numbered_on_across_parts() {
        let whole = SuiteRun::join([run("a", &["x"]), run("a", &[]), run("a", &["y", "z"])])
            .expect("one suite, engine and limits");
        let numbered: Vec<(usize, &str)> = whole
            .positions
            .iter()
            .map(|p| (p.index, p.fen.as_str()))
            .collect();
        assert_eq!(numbered, [(1, "x"), (2, "y"), (3, "z")]);
    }
}
