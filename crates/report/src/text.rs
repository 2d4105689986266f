//! Plain-text reports for the terminal.

use crate::compare::Comparison;
use crate::model::SuiteRun;
use crate::stats::{recorded, short, Summary};
use std::fmt::Write;

/// The widest the suite, engine and limits columns grow (characters);
/// longer names are cut with `~`.
pub const NAME_COLUMNS_MAX: [usize; 3] = [32, 24, 32];

/// The summary table, solved/missed lists and comparisons as text. The
/// suite, engine and limits columns are as wide as their longest entry
/// (up to [`NAME_COLUMNS_MAX`]); a total never recorded (time, nodes) is
/// [`crate::stats::NOT_RECORDED`].
pub fn render(runs: &[SuiteRun], comparisons: &[Comparison]) -> String {
    let mut s = String::new();
    let summaries: Vec<Summary> = runs.iter().map(Summary::of).collect();
    let width = |header: &str, max: usize, of: fn(&Summary) -> &str| {
        summaries
            .iter()
            .map(|sm| of(sm).chars().count())
            .chain([header.len()])
            .max()
            .unwrap_or(0)
            .min(max)
    };
    let [suite_max, engine_max, limits_max] = NAME_COLUMNS_MAX;
    let ws = width("suite", suite_max, |sm| &sm.suite);
    let we = width("engine", engine_max, |sm| &sm.engine);
    let wl = width("limits", limits_max, |sm| &sm.limits);
    let _ = writeln!(
        s,
        "{:<ws$} {:<we$} {:<wl$} {:>9} {:>7} {:>9} {:>9} {:>9} {:>7}",
        "suite", "engine", "limits", "solved", "%", "points", "time s", "nodes", "errors"
    );
    for sm in &summaries {
        let _ = writeln!(
            s,
            "{:<ws$} {:<we$} {:<wl$} {:>9} {:>6.1}% {:>9} {:>9} {:>9} {:>7}",
            clip(&sm.suite, ws),
            clip(&sm.engine, we),
            clip(&sm.limits, wl),
            format!("{}/{}", sm.solved, sm.total),
            sm.solved_percent(),
            format!("{}/{}", sm.points, sm.max_points),
            recorded(sm.time_ms, |ms| format!("{:.1}", ms as f64 / 1000.0)),
            recorded(sm.nodes, short),
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
