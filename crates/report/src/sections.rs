//! The Gastric sections of a report, as text and HTML: paired comparisons
//! (McNemar), the breakdown by theme and the "solved within t" curves.

use crate::curve::Curves;
use crate::stats::short;
use crate::Report;
use std::fmt::Write;

/// The thresholds at which the text report reads the curves: decades for
/// time and nodes, about eight steps for depth.
pub fn thresholds(c: &Curves) -> Vec<u64> {
    let Some(m) = c.measure else {
        return Vec::new();
    };
    let t_max = c.t_max().unwrap_or(0);
    if m.is_log() {
        let mut v = vec![1u64];
        while *v.last().unwrap_or(&u64::MAX) < t_max {
            match v.last().and_then(|t| t.checked_mul(10)) {
                Some(t) => v.push(t),
                None => break,
            }
        }
        v
    } else {
        let step = (t_max / 8).max(1);
        (step..=t_max.max(step)).step_by(step as usize).collect()
    }
}

fn list(labels: &[String]) -> String {
    if labels.is_empty() {
        "-".to_string()
    } else {
        labels.join(", ")
    }
}

/// The sections of `report` as text.
pub fn text(report: &Report) -> String {
    let (paired, themes, source) = (&report.paired, &report.themes, &report.theme_source);
    let (curves, alpha) = (&report.curves, report.alpha);
    let mut s = String::new();
    for p in paired {
        let _ = writeln!(
            s,
            "\npaired comparison: {} against {} ({} positions matched, {} unmatched)",
            p.after_name, p.before_name, p.matched, p.unmatched
        );
        let _ = writeln!(
            s,
            "  newly solved ({}): {}",
            p.gained.len(),
            list(&p.gained)
        );
        let _ = writeln!(s, "  newly lost ({}): {}", p.lost.len(), list(&p.lost));
        let _ = writeln!(
            s,
            "  solved by both: {}, by neither: {}",
            p.both_solved, p.neither_solved
        );
        let _ = writeln!(s, "  verdict: {}", p.verdict(alpha));
    }
    for b in themes.iter().filter(|b| b.rows.len() > 1) {
        let _ = writeln!(s, "\nthemes of {} (by {source}):", b.name);
        let width = b
            .rows
            .iter()
            .map(|r| r.theme.chars().count())
            .max()
            .unwrap_or(5)
            .clamp(5, 60);
        let _ = writeln!(
            s,
            "  {:<width$} {:>9} {:>7} {:>11}",
            "theme", "solved", "%", "points"
        );
        for r in &b.rows {
            let _ = writeln!(
                s,
                "  {:<width$} {:>9} {:>6.1}% {:>11}",
                r.theme,
                format!("{}/{}", r.solved, r.positions),
                r.solved_percent(),
                format!("{}/{}", r.points, r.max_points)
            );
        }
    }
    if let Some(m) = curves.measure {
        if !curves.curves.is_empty() {
            let _ = writeln!(s, "\nsolved within t ({}):", m.label());
            let _ = write!(s, "  {:>8}", "t");
            for k in &curves.curves {
                let _ = write!(s, " {:>12}", format!("run {}", k.run + 1));
            }
            s.push('\n');
            for t in thresholds(curves) {
                let _ = write!(s, "  {:>8}", short(t));
                for k in &curves.curves {
                    let _ = write!(
                        s,
                        " {:>12}",
                        format!("{}/{}", k.solved_within(t), k.positions)
                    );
                }
                s.push('\n');
            }
            for k in &curves.curves {
                let _ = writeln!(s, "  run {}: {}", k.run + 1, k.name);
            }
        }
    }
    s
}

/// The sections of `report` as HTML (inside `<body>`).
#[cfg(feature = "html")]
pub fn html(report: &Report) -> String {
    let (paired, themes, source) = (&report.paired, &report.themes, &report.theme_source);
    let (curves, alpha) = (&report.curves, report.alpha);
    use crate::board::html_escape as esc;
    use crate::curve::Measure;
    let mut s = String::new();
    if curves.measure.is_some() && !curves.curves.is_empty() {
        let caption = match curves.measure {
            Some(Measure::Time) => "Positions solved within a time per position",
            Some(Measure::Nodes) => "Positions solved within a number of nodes",
            _ => "Positions solved within a depth",
        };
        let _ = writeln!(
            s,
            "<h2>Solved within t</h2>\n<figure class=\"chart\" data-chart=\"solved-within\">{}<figcaption>{caption}</figcaption></figure>",
            crate::curve::svg(curves)
        );
    }
    for p in paired {
        let worse = p.is_worse();
        let _ = writeln!(
            s,
            "<h2>Paired comparison: {} against {}</h2>\n<table class=\"mcnemar\" data-before=\"{}\" data-after=\"{}\">\
<tr><th class=\"l\">positions matched</th><td class=\"matched\">{}</td></tr>\
<tr><th class=\"l\">unmatched</th><td>{}</td></tr>\
<tr><th class=\"l\">solved by both</th><td>{}</td></tr>\
<tr><th class=\"l\">solved by neither</th><td>{}</td></tr>\
<tr><th class=\"l\">newly solved</th><td class=\"gained\">{}</td></tr>\
<tr><th class=\"l\">newly lost</th><td class=\"lost\">{}</td></tr>\
<tr><th class=\"l\">exact McNemar p</th><td class=\"p-value\">{}</td></tr>\
<tr><th class=\"l\">verdict</th><td class=\"verdict l {}\">{}</td></tr></table>",
            esc(&p.after_name),
            esc(&p.before_name),
            esc(&p.before_name),
            esc(&p.after_name),
            p.matched,
            p.unmatched,
            p.both_solved,
            p.neither_solved,
            p.gained.len(),
            p.lost.len(),
            crate::paired::format_p(p.p_value),
            if worse { "bad" } else { "ok" },
            esc(&p.verdict(alpha))
        );
        for (class, what, labels) in [
            ("newly-solved", "Newly solved", &p.gained),
            ("newly-lost", "Newly lost", &p.lost),
        ] {
            let _ = write!(s, "<p>{what} ({}):</p><ul class=\"{class}\">", labels.len());
            for l in labels {
                let _ = write!(s, "<li>{}</li>", esc(l));
            }
            s.push_str("</ul>\n");
        }
    }
    for b in themes.iter().filter(|b| b.rows.len() > 1) {
        let _ = writeln!(
            s,
            "<h2>Themes of {} (by {})</h2>\n<table class=\"themes\"><tr><th class=\"l\">theme</th><th>solved</th><th>%</th><th>points</th></tr>",
            esc(&b.name),
            esc(source)
        );
        for r in &b.rows {
            let _ = writeln!(
                s,
                "<tr class=\"theme\"><td class=\"l\">{}</td><td>{}/{}</td><td>{:.1}</td><td>{}/{}</td></tr>",
                esc(&r.theme),
                r.solved,
                r.positions,
                r.solved_percent(),
                r.points,
                r.max_points
            );
        }
        s.push_str("</table>\n");
    }
    s
}
