//! Plain-text reports for the terminal.

use crate::compare::Comparison;
use crate::model::SuiteRun;
use crate::stats::{short, Summary};
use std::fmt::Write;

/// The summary table, solved/missed lists and comparisons as text.
pub fn render(runs: &[SuiteRun], comparisons: &[Comparison]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<20} {:<16} {:<18} {:>9} {:>7} {:>9} {:>9} {:>9} {:>7}",
        "suite", "engine", "limits", "solved", "%", "points", "time s", "nodes", "errors"
    );
    for run in runs {
        let sm = Summary::of(run);
        let _ = writeln!(
            s,
            "{:<20} {:<16} {:<18} {:>9} {:>6.1}% {:>9} {:>9.1} {:>9} {:>7}",
            clip(&sm.suite, 20),
            clip(&sm.engine, 16),
            clip(&sm.limits, 18),
            format!("{}/{}", sm.solved, sm.total),
            sm.solved_percent(),
            format!("{}/{}", sm.points, sm.max_points),
            sm.time_ms as f64 / 1000.0,
            short(sm.nodes),
            sm.errors
        );
    }
    for run in runs {
        let missed: Vec<String> = run
            .positions
            .iter()
            .filter(|p| !p.solved && p.is_scorable())
            .map(|p| match (&p.error, &p.answer) {
                (Some(e), _) => format!("{} (error: {e})", p.label()),
                (None, Some(a)) => format!("{} ({} played {a})", p.label(), p.expected_text()),
                (None, None) => format!("{} ({})", p.label(), p.expected_text()),
            })
            .collect();
        if !missed.is_empty() {
            let _ = writeln!(
                s,
                "\nmissed by {} on {} ({}):",
                run.engine,
                run.suite,
                missed.len()
            );
            for m in missed {
                let _ = writeln!(s, "  {m}");
            }
        }
    }
    for run in runs {
        let unscorable: Vec<String> = run
            .positions
            .iter()
            .filter(|p| !p.is_scorable())
            .map(|p| p.label())
            .collect();
        if !unscorable.is_empty() {
            let _ = writeln!(
                s,
                "\nnot scored on {} ({}: no bm, am, dm or points): {}",
                run.suite,
                unscorable.len(),
                unscorable.join(", ")
            );
        }
    }
    for c in comparisons {
        let _ = writeln!(
            s,
            "\ncomparison on {}: {} solved by all, {} by none",
            c.suite,
            c.solved_by_all,
            c.solved_by_none.len()
        );
        for (engine, only) in c.engines.iter().zip(&c.only_solved_by) {
            let _ = writeln!(
                s,
                "  only {engine}: {}{}",
                only.len(),
                if only.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({})",
                        only.iter()
                            .map(|i| format!("#{i}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                }
            );
        }
    }
    s
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('~');
        t
    }
}
