//! Comparing several runs (engines or versions) on the same suite.

use crate::model::{Score, SuiteRun};
use serde::Serialize;
use std::collections::BTreeMap;

/// How several runs on one suite differ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The suite.
    pub suite: String,
    /// The runs' engines (with limits when two runs share an engine name).
    pub engines: Vec<String>,
    /// Positions (by index) that exactly one run solves, per run.
    pub only_solved_by: Vec<Vec<usize>>,
    /// Positions every run solves.
    pub solved_by_all: usize,
    /// Positions no run solves.
    pub solved_by_none: Vec<usize>,
    /// Positions where the runs disagree on solving, or on the score by more
    /// than 50 cp, with each run's result.
    pub differences: Vec<PositionDiff>,
}

/// One position where the runs differ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PositionDiff {
    /// Index in the suite.
    pub index: usize,
    /// The position's label.
    pub label: String,
    /// Per run: solved?, answer, score.
    pub results: Vec<(bool, Option<String>, Option<Score>)>,
    /// Largest minus smallest centipawn score (mates count as ±100000).
    pub score_spread: Option<i64>,
}

/// Groups runs by suite name and compares each group with two or more runs.
pub fn compare_all(runs: &[SuiteRun]) -> Vec<Comparison> {
    let mut by_suite: BTreeMap<&str, Vec<&SuiteRun>> = BTreeMap::new();
    for r in runs {
        by_suite.entry(r.suite.as_str()).or_default().push(r);
    }
    by_suite
        .into_values()
        .filter(|v| v.len() >= 2)
        .map(|v| compare(&v))
        .collect()
}

/// Compares runs of one suite, matching positions by index.
pub fn compare(runs: &[&SuiteRun]) -> Comparison {
    let names: Vec<String> = runs
        .iter()
        .map(|r| {
            let dup = runs.iter().filter(|o| o.engine == r.engine).count() > 1;
            if dup {
                format!("{} ({})", r.engine, r.limits)
            } else {
                r.engine.clone()
            }
        })
        .collect();
    let n = runs.iter().map(|r| r.positions.len()).max().unwrap_or(0);
    let mut only = vec![Vec::new(); runs.len()];
    let mut all = 0;
    let mut none = Vec::new();
    let mut diffs = Vec::new();
    for i in 0..n {
        let results: Vec<_> = runs.iter().map(|r| r.positions.get(i)).collect();
        let solved: Vec<bool> = results
            .iter()
            .map(|p| p.is_some_and(|p| p.solved))
            .collect();
        let count = solved.iter().filter(|&&s| s).count();
        let index = results.iter().flatten().next().map_or(i + 1, |p| p.index);
        if count == runs.len() {
            all += 1;
        } else if count == 0 {
            none.push(index);
        } else if count == 1 {
            if let Some(j) = solved.iter().position(|&s| s) {
                only[j].push(index);
            }
        }
        let scores: Vec<i64> = results
            .iter()
            .flatten()
            .filter_map(|p| p.score.map(Score::as_cp))
            .collect();
        let spread = match (scores.iter().max(), scores.iter().min()) {
            (Some(hi), Some(lo)) if scores.len() == runs.len() => Some(hi - lo),
            _ => None,
        };
        if (count != 0 && count != runs.len()) || spread.is_some_and(|s| s > 50) {
            diffs.push(PositionDiff {
                index,
                label: results
                    .iter()
                    .flatten()
                    .next()
                    .map_or_else(|| format!("#{index}"), |p| p.label()),
                results: results
                    .iter()
                    .map(|p| {
                        p.map_or((false, None, None), |p| {
                            (p.solved, p.answer.clone(), p.score)
                        })
                    })
                    .collect(),
                score_spread: spread,
            });
        }
    }
    Comparison {
        suite: runs.first().map(|r| r.suite.clone()).unwrap_or_default(),
        engines: names,
        only_solved_by: only,
        solved_by_all: all,
        solved_by_none: none,
        differences: diffs,
    }
}
