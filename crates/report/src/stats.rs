//! Summaries and distributions of one suite run.

use crate::model::SuiteRun;
use serde::Serialize;

/// Totals of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Suite name.
    pub suite: String,
    /// Engine name.
    pub engine: String,
    /// Limits in words.
    pub limits: String,
    /// Positions in the run that could be scored (errors included).
    pub total: usize,
    /// Positions that ask for nothing that can be scored (neither solved nor missed).
    pub unscorable: usize,
    /// Positions solved.
    pub solved: usize,
    /// Positions not solved (errors excluded).
    pub missed: usize,
    /// Positions that could not be run.
    pub errors: usize,
    /// Points scored.
    pub points: u64,
    /// Most points possible.
    pub max_points: u64,
    /// Total time used, in milliseconds, by the positions that recorded
    /// it; `None` when none did.
    pub time_ms: Option<u64>,
    /// Total nodes searched, by the positions that recorded them; `None`
    /// when none did.
    pub nodes: Option<u64>,
    /// Median time to solution over the solved positions (ms).
    pub median_time_to_solution_ms: Option<u64>,
    /// Mean time to solution over the solved positions (ms).
    pub mean_time_to_solution_ms: Option<f64>,
    /// Indices of the missed positions.
    pub missed_indices: Vec<usize>,
}

impl Summary {
    /// Computes the totals of a run.
    pub fn of(run: &SuiteRun) -> Summary {
        let errors = run.positions.iter().filter(|p| p.error.is_some()).count();
        let solved = run.positions.iter().filter(|p| p.solved).count();
        let missed_indices: Vec<usize> = run
            .positions
            .iter()
            .filter(|p| p.is_missed())
            .map(|p| p.index)
            .collect();
        let mut tts: Vec<u64> = run
            .positions
            .iter()
            .filter(|p| p.solved)
            .filter_map(|p| p.time_to_solution_ms)
            .collect();
        tts.sort_unstable();
        Summary {
            suite: run.suite.clone(),
            engine: run.engine.clone(),
            limits: run.limits.clone(),
            total: run.positions.iter().filter(|p| p.is_scorable()).count(),
            unscorable: run.positions.iter().filter(|p| !p.is_scorable()).count(),
            solved,
            missed: missed_indices.len(),
            errors,
            points: run.positions.iter().map(|p| u64::from(p.points)).sum(),
            max_points: run.positions.iter().map(|p| u64::from(p.max_points)).sum(),
            time_ms: total(run.positions.iter().map(|p| p.time_ms)),
            nodes: total(run.positions.iter().map(|p| p.nodes)),
            median_time_to_solution_ms: median(&tts),
            mean_time_to_solution_ms: (!tts.is_empty())
                .then(|| tts.iter().sum::<u64>() as f64 / tts.len() as f64),
            missed_indices,
        }
    }

    /// Solved positions as a percentage of all positions.
    pub fn solved_percent(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * self.solved as f64 / self.total as f64
        }
    }
}

/// The sum of the figures recorded; `None` when none was.
fn total(figures: impl Iterator<Item = Option<u64>>) -> Option<u64> {
    figures.flatten().reduce(u64::saturating_add)
}

/// How a figure that was never recorded is shown (text, HTML): an en
/// dash, never a 0 nobody measured. (CSV leaves the field empty, JSON has
/// `null`.)
pub const NOT_RECORDED: &str = "\u{2013}";

/// `figure` as `show` writes it, or [`NOT_RECORDED`].
pub fn recorded<T>(figure: Option<T>, show: impl FnOnce(T) -> String) -> String {
    figure.map_or_else(|| NOT_RECORDED.to_owned(), show)
}

fn median(sorted: &[u64]) -> Option<u64> {
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[n / 2]),
        n => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2),
    }
}

/// A histogram with logarithmic buckets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Histogram {
    /// What is counted (`time to solution (ms)`, `nodes`).
    pub what: String,
    /// Bucket labels, e.g. `<10`, `10-30`.
    pub labels: Vec<String>,
    /// Lower bounds of the buckets (the first is 0).
    pub bounds: Vec<u64>,
    /// How many values fall in each bucket.
    pub counts: Vec<usize>,
}

impl Histogram {
    /// Buckets `values` with bounds 0, base, 3*base, 10*base, 30*base, ... up to `max_buckets`.
    pub fn log(what: &str, values: &[u64], base: u64, max_buckets: usize) -> Histogram {
        let mut bounds = vec![0u64];
        let mut b = base.max(1);
        while bounds.len() < max_buckets {
            bounds.push(b);
            let next = if bounds.len() % 2 == 0 {
                b * 3
            } else {
                b / 3 * 10
            };
            b = next.max(b + 1);
        }
        let mut counts = vec![0usize; bounds.len()];
        for &v in values {
            let i = bounds.iter().rposition(|&lo| v >= lo).unwrap_or(0);
            counts[i] += 1;
        }
        let labels = bounds
            .iter()
            .enumerate()
            .map(|(i, &lo)| match bounds.get(i + 1) {
                Some(&hi) if i == 0 => format!("<{}", short(hi)),
                Some(&hi) => format!("{}-{}", short(lo), short(hi)),
                None => format!(">={}", short(lo)),
            })
            .collect();
        Histogram {
            what: what.to_string(),
            labels,
            bounds,
            counts,
        }
    }
}

/// 1500 -> `1.5k`, 2000000 -> `2M`.
pub fn short(n: u64) -> String {
    let f = |v: f64, s: &str| {
        if (v - v.round()).abs() < 0.05 {
            format!("{}{s}", v.round() as u64)
        } else {
            format!("{v:.1}{s}")
        }
    };
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => f(n as f64 / 1e3, "k"),
        1_000_000..=999_999_999 => f(n as f64 / 1e6, "M"),
        _ => f(n as f64 / 1e9, "G"),
    }
}

/// Time-to-solution histogram of the solved positions (those that recorded
/// a time).
pub fn time_histogram(run: &SuiteRun) -> Histogram {
    let v: Vec<u64> = run
        .positions
        .iter()
        .filter(|p| p.solved)
        .filter_map(|p| p.time_to_solution_ms.or(p.time_ms))
        .collect();
    Histogram::log("time to solution (ms)", &v, 10, 8)
}

/// Nodes-searched histogram over all positions that ran (and recorded
/// their nodes).
pub fn nodes_histogram(run: &SuiteRun) -> Histogram {
    let v: Vec<u64> = run
        .positions
        .iter()
        .filter(|p| p.error.is_none())
        .filter_map(|p| p.nodes)
        .collect();
    Histogram::log("nodes searched", &v, 1_000, 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_buckets() {
        let h = Histogram::log("t", &[0, 5, 10, 29, 30, 99, 100, 5000, 1_000_000], 10, 6);
        assert_eq!(h.bounds, vec![0, 10, 30, 100, 300, 1000]);
        assert_eq!(h.counts, vec![2, 2, 2, 1, 0, 2]);
        assert_eq!(h.labels[0], "<10");
        assert_eq!(h.labels[1], "10-30");
        assert_eq!(h.labels[5], ">=1k");
    }

    #[test]
    fn short_numbers() {
        assert_eq!(short(999), "999");
        assert_eq!(short(1500), "1.5k");
        assert_eq!(short(2_000_000), "2M");
    }

    #[test]
    fn median_even_and_odd() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[1, 3, 8]), Some(3));
        assert_eq!(median(&[1, 3, 8, 10]), Some(5));
    }
}
