//! Gating a change on a suite (for CI): fail when the last run solves too
//! little, or when it is worse than the run before it.

use crate::Report;

/// When a report makes its caller fail.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gate {
    /// Fail when the last run's solved percentage is under this (0-100).
    pub fail_under: Option<f64>,
    /// Fail when the last run is worse than the run before it, by this rule.
    pub fail_if_worse: Option<WorseRule>,
    /// Significance level of [`WorseRule::Significant`] (e.g. 0.05).
    pub alpha: f64,
}

/// What "worse" means for [`Gate::fail_if_worse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorseRule {
    /// The last run newly loses more positions than it newly solves.
    MoreLost,
    /// As [`WorseRule::MoreLost`], and the exact McNemar p-value is under
    /// [`Gate::alpha`]: worse beyond chance.
    Significant,
}

/// Why a gate cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GateError {
    /// The report has no run.
    #[error("no run to gate on")]
    NoRun,
    /// `fail_if_worse` with a last run that has no earlier run on the same
    /// suite to be compared with.
    #[error("the last run ({0}) has no earlier run on the same suite to be compared with")]
    NothingToCompare(String),
}

impl Report {
    /// Applies `gate`: the reasons to fail, in words (empty: pass).
    ///
    /// # Errors
    /// [`GateError`] when the gate cannot be decided (no run; no earlier run
    /// on the same suite for `fail_if_worse`).
    pub fn gate(&self, gate: &Gate) -> Result<Vec<String>, GateError> {
        let mut reasons = Vec::new();
        let Some(last) = self.summaries.last() else {
            return Err(GateError::NoRun);
        };
        let last_index = self.summaries.len() - 1;
        let name = format!("{} on {}", last.engine, last.suite);
        if let Some(pct) = gate.fail_under {
            let got = last.solved_percent();
            if got < pct {
                reasons.push(format!(
                    "{name} solved {:.1}% ({}/{}), under --fail-under {pct}",
                    got, last.solved, last.total
                ));
            }
        }
        if let Some(rule) = gate.fail_if_worse {
            let paired = self
                .paired
                .iter()
                .find(|p| p.after == last_index)
                .ok_or(GateError::NothingToCompare(name))?;
            let worse = match rule {
                WorseRule::MoreLost => paired.is_worse(),
                WorseRule::Significant => paired.is_significantly_worse(gate.alpha),
            };
            if worse {
                reasons.push(format!(
                    "{} is worse than {}: {}",
                    paired.after_name,
                    paired.before_name,
                    paired.verdict(gate.alpha)
                ));
            }
        }
        Ok(reasons)
    }
}
