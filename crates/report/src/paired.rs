//! Two runs on the same suite, position by position: which positions the
//! later run newly solves and which it newly loses, and whether the
//! difference is more than chance (the exact McNemar test).
//!
//! Positions are matched by `id`, or by position (the four EPD fields) where
//! a position has no id; a key that occurs several times in a suite is
//! matched occurrence by occurrence. Only positions that can be scored in
//! both runs enter the test (an error counts as not solved).

use crate::model::{PositionResult, SuiteRun};
use serde::Serialize;
use std::collections::HashMap;

/// The paired comparison of a run (`after`) with the run before it (`before`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// Index of the earlier run in the report.
    pub before: usize,
    /// Index of the later run.
    pub after: usize,
    /// The earlier run in words (`engine on suite`).
    pub before_name: String,
    /// The later run in words.
    pub after_name: String,
    /// Positions matched and scorable in both runs (the size of the test).
    pub matched: usize,
    /// Positions of either run with no partner in the other.
    pub unmatched: usize,
    /// Positions both runs solve.
    pub both_solved: usize,
    /// Positions neither run solves.
    pub neither_solved: usize,
    /// Labels of the positions only the later run solves (newly solved).
    pub gained: Vec<String>,
    /// Labels of the positions only the earlier run solves (newly lost).
    pub lost: Vec<String>,
    /// Exact two-sided McNemar p-value on the discordant pairs
    /// ([`mcnemar_exact_p`] of `lost.len()` and `gained.len()`).
    pub p_value: f64,
}

impl Paired {
    /// Whether the later run loses more positions than it gains.
    pub fn is_worse(&self) -> bool {
        self.lost.len() > self.gained.len()
    }

    /// Whether the later run is worse and the difference is significant at
    /// level `alpha` (`p_value < alpha`).
    pub fn is_significantly_worse(&self, alpha: f64) -> bool {
        self.is_worse() && self.p_value < alpha
    }

    /// The verdict in words, at level `alpha`.
    pub fn verdict(&self, alpha: f64) -> String {
        let (g, l) = (self.gained.len(), self.lost.len());
        let direction = match g.cmp(&l) {
            std::cmp::Ordering::Greater => "better",
            std::cmp::Ordering::Less => "worse",
            std::cmp::Ordering::Equal => "no different",
        };
        let significance = if g == l {
            ""
        } else if self.p_value < alpha {
            ", significant"
        } else {
            ", not significant"
        };
        format!(
            "{direction} (+{g} -{l}, exact McNemar p = {}{significance} at {alpha})",
            format_p(self.p_value)
        )
    }
}

/// A p-value in words: 4 significant digits, `<1e-12` below that.
pub fn format_p(p: f64) -> String {
    if p < 1e-12 {
        "<1e-12".to_string()
    } else if p >= 0.001 {
        format!("{p:.4}")
    } else {
        format!("{p:.3e}")
    }
}

/// The exact two-sided McNemar test: with `b` and `c` the discordant pairs
/// (solved by only one run each), the probability under "both runs are as
/// good" (each discordant pair equally likely either way: Binomial(b+c, 1/2))
/// of a split at least as uneven as the one seen:
/// `min(1, 2 * sum_{i <= min(b,c)} C(b+c, i) / 2^(b+c))`; 1 when `b+c = 0`.
///
/// Exact in integers up to `b+c = 120`; beyond, summed in logarithms
/// (relative error below 1e-10).
///
/// ```
/// use rookery_report::paired::mcnemar_exact_p;
/// assert_eq!(mcnemar_exact_p(0, 5), 2.0 / 32.0);
/// assert_eq!(mcnemar_exact_p(1, 6), 2.0 * 8.0 / 128.0);
/// assert_eq!(mcnemar_exact_p(3, 3), 1.0);
/// ```
pub fn mcnemar_exact_p(b: u64, c: u64) -> f64 {
    let n = b + c;
    let k = b.min(c);
    if n == 0 || 2 * k >= n {
        return 1.0;
    }
    if n <= 120 {
        // C(n, i) <= 2^120 and C(n, i-1) * (n-i+1) < 2^127: no overflow.
        let mut term: u128 = 1;
        let mut sum: u128 = 1;
        for i in 1..=u128::from(k) {
            term = term * (u128::from(n) - i + 1) / i;
            sum += term;
        }
        let p = 2.0 * (sum as f64) / 2f64.powi(n as i32);
        return p.min(1.0);
    }
    // ln C(n, i) - n ln 2 for i = 0..=k; the last term is the largest
    // (k < n/2), so it is factored out before exponentiating.
    let ln_half_n = n as f64 * std::f64::consts::LN_2;
    let mut ln_c = 0.0f64;
    let mut logs = Vec::with_capacity(k as usize + 1);
    logs.push(-ln_half_n);
    for i in 1..=k {
        ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        logs.push(ln_c - ln_half_n);
    }
    let top = logs[logs.len() - 1];
    let sum: f64 = logs.iter().map(|l| (l - top).exp()).sum();
    (2.0 * top.exp() * sum).min(1.0)
}

/// The key a position is matched by: its id, or its position.
fn key(p: &PositionResult) -> String {
    match &p.id {
        Some(id) => format!("id {id}"),
        None => format!("fen {}", p.fen.trim()),
    }
}

/// Keys with their occurrence number, in suite order.
fn keyed(run: &SuiteRun) -> Vec<(String, usize)> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    run.positions
        .iter()
        .map(|p| {
            let k = key(p);
            let n = seen.entry(k.clone()).or_insert(0);
            *n += 1;
            (k, *n)
        })
        .collect()
}

fn name(run: &SuiteRun) -> String {
    format!("{} on {}", run.engine, run.suite)
}

/// Compares `after` with `before` position by position, if they are runs on
/// the same suite: the same suite name with at least one position in
/// common, or at least half of each run's positions in common.
pub fn pair(
    before_index: usize,
    before: &SuiteRun,
    after_index: usize,
    after: &SuiteRun,
) -> Option<Paired> {
    let kb = keyed(before);
    let ka = keyed(after);
    let index_after: HashMap<&(String, usize), usize> =
        ka.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let pairs: Vec<(usize, usize)> = kb
        .iter()
        .enumerate()
        .filter_map(|(i, k)| index_after.get(k).map(|&j| (i, j)))
        .collect();
    let common = pairs.len();
    let same_name = before.suite == after.suite && common > 0;
    let mostly_same =
        common > 0 && 2 * common >= before.positions.len() && 2 * common >= after.positions.len();
    if !same_name && !mostly_same {
        return None;
    }
    let mut out = Paired {
        before: before_index,
        after: after_index,
        before_name: name(before),
        after_name: name(after),
        matched: 0,
        unmatched: before.positions.len() + after.positions.len() - 2 * common,
        both_solved: 0,
        neither_solved: 0,
        gained: Vec::new(),
        lost: Vec::new(),
        p_value: 1.0,
    };
    for (i, j) in pairs {
        let (b, a) = (&before.positions[i], &after.positions[j]);
        if !b.is_scorable() || !a.is_scorable() {
            continue;
        }
        out.matched += 1;
        match (b.solved, a.solved) {
            (true, true) => out.both_solved += 1,
            (false, false) => out.neither_solved += 1,
            (false, true) => out.gained.push(a.label()),
            (true, false) => out.lost.push(b.label()),
        }
    }
    out.p_value = mcnemar_exact_p(out.lost.len() as u64, out.gained.len() as u64);
    Some(out)
}

/// Each run compared with the run before it, where the two are on the same
/// suite (see [`pair`]).
pub fn pair_all(runs: &[SuiteRun]) -> Vec<Paired> {
    runs.windows(2)
        .enumerate()
        .filter_map(|(i, w)| pair(i, &w[0], i + 1, &w[1]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Expected;

    /// C(n, k) by Pascal's triangle: independent of the code under test.
    fn pascal(n: usize) -> Vec<Vec<f64>> {
        let mut rows = vec![vec![1.0f64]];
        for i in 1..=n {
            let prev = &rows[i - 1];
            let mut row = vec![1.0; i + 1];
            for k in 1..i {
                row[k] = prev[k - 1] + prev[k];
            }
            rows.push(row);
        }
        rows
    }

    #[test]
    fn mcnemar_against_pascal() {
        for (n, row) in pascal(120).iter().enumerate().skip(1) {
            for b in 0..=n {
                let c = n - b;
                let k = b.min(c);
                let tail: f64 = row[..=k].iter().sum();
                let want = (2.0 * tail / 2f64.powi(n as i32)).min(1.0);
                let got = mcnemar_exact_p(b as u64, c as u64);
                assert!(
                    (got - want).abs() <= 1e-12 * want.max(1e-300),
                    "b={b} c={c}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn mcnemar_hand_checked() {
        assert_eq!(mcnemar_exact_p(0, 0), 1.0);
        assert_eq!(mcnemar_exact_p(0, 1), 1.0);
        // n = 6, k = 0: 2 / 64.
        assert_eq!(mcnemar_exact_p(6, 0), 0.03125);
        // n = 10, k = 2: 2 * (1 + 10 + 45) / 1024.
        assert_eq!(mcnemar_exact_p(2, 8), 112.0 / 1024.0);
        assert_eq!(mcnemar_exact_p(8, 2), 112.0 / 1024.0);
    }

    #[test]
    fn mcnemar_log_path_against_pascal() {
        // Beyond n = 120 the sum is taken in logarithms.
        let t = pascal(300);
        for n in [121usize, 150, 200, 299, 300] {
            for b in (0..=n).step_by(7) {
                let c = n - b;
                let k = b.min(c);
                let tail: f64 = t[n][..=k].iter().sum();
                let want = (2.0 * tail / 2f64.powi(n as i32)).min(1.0);
                let got = mcnemar_exact_p(b as u64, c as u64);
                assert!(
                    (got - want).abs() <= 1e-10 * want,
                    "b={b} c={c}: {got} vs {want}"
                );
            }
        }
    }

    fn row(index: usize, id: Option<&str>, fen: &str, solved: bool) -> PositionResult {
        let bm_e4 = Expected {
            bm: vec!["e4".into()],
            ..Expected::default()
        };
        PositionResult {
            id: id.map(str::to_string),
            solved,
            points: u32::from(solved),
            ..PositionResult::unanswered(index, fen.into(), bm_e4, 1)
        }
    }

    fn run(suite: &str, rows: Vec<PositionResult>) -> SuiteRun {
        SuiteRun {
            suite: suite.into(),
            engine: "e".into(),
            limits: String::new(),
            started: None,
            positions: rows,
        }
    }

    #[test]
    fn matched_by_id_in_any_order() {
        let a = run(
            "s",
            vec![
                row(1, Some("a"), "x", true),
                row(2, Some("b"), "x", true),
                row(3, Some("c"), "x", false),
            ],
        );
        // Reordered: c first.
        let b = run(
            "other",
            vec![
                row(1, Some("c"), "x", true),
                row(2, Some("a"), "x", true),
                row(3, Some("b"), "x", false),
            ],
        );
        let p = pair(0, &a, 1, &b).unwrap();
        assert_eq!(p.gained, ["c"]);
        assert_eq!(p.lost, ["b"]);
        assert_eq!((p.matched, p.both_solved, p.unmatched), (3, 1, 0));
        assert_eq!(p.p_value, 1.0);
    }

    #[test]
    fn matched_by_position_without_ids_and_duplicates_in_order() {
        let a = run(
            "s",
            vec![
                row(1, None, "p1", false),
                row(2, None, "p1", true),
                row(3, None, "p2", false),
            ],
        );
        let b = run(
            "t",
            vec![
                row(1, None, "p1", false),
                row(2, None, "p1", false),
                row(3, None, "p2", true),
            ],
        );
        let p = pair(0, &a, 1, &b).unwrap();
        assert_eq!(p.gained, ["#3"]);
        assert_eq!(p.lost, ["#2"]);
    }

    #[test]
    fn different_suites_are_not_paired() {
        let a = run(
            "s",
            vec![row(1, Some("a"), "x", true), row(2, Some("b"), "x", true)],
        );
        let b = run(
            "t",
            vec![
                row(1, Some("c"), "x", true),
                row(2, Some("a"), "x", true),
                row(3, Some("d"), "x", true),
            ],
        );
        assert!(pair(0, &a, 1, &b).is_none(), "1 of 3 in common");
        let mut b2 = b.clone();
        b2.suite = "s".into();
        assert_eq!(pair(0, &a, 1, &b2).unwrap().unmatched, 3);
    }

    #[test]
    fn worse_and_verdict() {
        let mut before = Vec::new();
        let mut after = Vec::new();
        for i in 0..8 {
            let id = format!("p{i}");
            before.push(row(i + 1, Some(&id), "x", true));
            after.push(row(i + 1, Some(&id), "x", i == 0));
        }
        let p = pair(0, &run("s", before), 1, &run("s", after)).unwrap();
        assert_eq!(p.lost.len(), 7);
        assert!(p.is_worse());
        assert_eq!(p.p_value, 2.0 / 128.0);
        assert!(p.is_significantly_worse(0.05));
        assert!(!p.is_significantly_worse(0.01));
        assert!(p
            .verdict(0.05)
            .starts_with("worse (+0 -7, exact McNemar p = 0.0156, significant"));
    }
}
