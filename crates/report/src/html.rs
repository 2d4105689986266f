//! One self-contained HTML page: tables, SVG charts (plotters) and a board
//! diagram of every missed position. No scripts, no external files.

use crate::board::{diagram, html_escape as esc};
use crate::compare::Comparison;
use crate::model::SuiteRun;
use crate::stats::{
    nodes_histogram, recorded, short, time_histogram, Histogram as Buckets, Summary,
};
use crate::ReportError;
use plotters::prelude::*;
use std::fmt::Write;

const STYLE: &str = "body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}\
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}\
th{background:#f3f3f3}td.l,th.l{text-align:left}figure{display:inline-block;margin:0.5em}\
figcaption{font-size:0.9em;text-align:center}.missed{display:inline-block;vertical-align:top;margin:0.5em;width:260px;font-size:0.85em}\
.ok{color:#060}.bad{color:#a00}";

/// Renders the whole report as one HTML document; `sections` (HTML) go
/// after the charts, before the comparisons.
///
/// # Errors
/// [`ReportError::Chart`] if a chart cannot be drawn.
pub fn render(
    title: &str,
    runs: &[SuiteRun],
    comparisons: &[Comparison],
    sections: &str,
) -> Result<String, ReportError> {
    let mut s = String::with_capacity(64 * 1024);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        esc(title),
        esc(title)
    );

    // Totals.
    s.push_str("<h2>Totals</h2>\n<table id=\"totals\"><tr><th class=\"l\">suite</th><th class=\"l\">engine</th><th class=\"l\">limits</th><th>solved</th><th>%</th><th>points</th><th>time (s)</th><th>nodes</th><th>median time to solution (ms)</th><th>errors</th></tr>\n");
    for run in runs {
        let sm = Summary::of(run);
        let _ = writeln!(
            s,
            "<tr class=\"run\"><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"solved\">{}/{}</td><td>{:.1}</td><td>{}/{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&sm.suite),
            esc(&sm.engine),
            esc(&sm.limits),
            sm.solved,
            sm.total,
            sm.solved_percent(),
            sm.points,
            sm.max_points,
            recorded(sm.time_ms, |ms| format!("{:.1}", ms as f64 / 1000.0)),
            recorded(sm.nodes, short),
            recorded(sm.median_time_to_solution_ms, |m| m.to_string()),
            sm.errors
        );
    }
    s.push_str("</table>\n");

    // Charts.
    s.push_str("<h2>Charts</h2>\n");
    if runs.len() > 1 {
        let labels: Vec<String> = runs
            .iter()
            .map(|r| format!("{} / {}", r.engine, r.suite))
            .collect();
        let values: Vec<usize> = runs.iter().map(|r| Summary::of(r).solved).collect();
        figure(
            &mut s,
            "solved",
            "Solved positions per run",
            &bar_chart(None, "solved", &labels, &values)?,
        );
    }
    for run in runs {
        let name = format!("{} on {}", run.engine, run.suite);
        figure(
            &mut s,
            "time-to-solution",
            &format!("Time to solution: {name}"),
            &histogram_chart(&time_histogram(run))?,
        );
        figure(
            &mut s,
            "nodes",
            &format!("Nodes searched: {name}"),
            &histogram_chart(&nodes_histogram(run))?,
        );
    }

    s.push_str(sections);

    // Comparisons.
    for c in comparisons {
        let _ = writeln!(
            s,
            "<h2>Comparison on {}</h2>\n<p>Solved by all: {}. Solved by none: {}.</p>\n<table class=\"comparison\"><tr><th class=\"l\">engine</th><th>only this one solves</th><th class=\"l\">positions</th></tr>",
            esc(&c.suite),
            c.solved_by_all,
            c.solved_by_none.len()
        );
        for (e, only) in c.engines.iter().zip(&c.only_solved_by) {
            let _ = writeln!(
                s,
                "<tr><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
                esc(e),
                only.len(),
                only.iter()
                    .map(|i| format!("#{i}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        s.push_str("</table>\n");
        if !c.differences.is_empty() {
            s.push_str("<table class=\"differences\"><tr><th class=\"l\">position</th>");
            for e in &c.engines {
                let _ = write!(s, "<th class=\"l\">{}</th>", esc(e));
            }
            s.push_str("<th>score spread (cp)</th></tr>\n");
            for d in &c.differences {
                let _ = write!(s, "<tr><td class=\"l\">{}</td>", esc(&d.label));
                for (solved, answer, score) in &d.results {
                    let _ = write!(
                        s,
                        "<td class=\"l {}\">{} {}</td>",
                        if *solved { "ok" } else { "bad" },
                        esc(answer.as_deref().unwrap_or("-")),
                        score.map_or(String::new(), |sc| sc.pawns().to_string())
                    );
                }
                let _ = writeln!(
                    s,
                    "<td>{}</td></tr>",
                    d.score_spread.map_or("-".into(), |x| x.to_string())
                );
            }
            s.push_str("</table>\n");
        }
    }

    // Missed positions with diagrams.
    for run in runs {
        let missed: Vec<_> = run
            .positions
            .iter()
            .filter(|p| !p.solved && p.is_scorable())
            .collect();
        let _ = writeln!(
            s,
            "<h2>Missed by {} on {} ({})</h2>\n<div class=\"missed-list\">",
            esc(&run.engine),
            esc(&run.suite),
            missed.len()
        );
        for p in missed {
            let _ = writeln!(
                s,
                "<div class=\"missed\">{}<br><b>{}</b> expected {}<br>played {}{}{}</div>",
                diagram(&p.fen, 240),
                esc(&p.label()),
                esc(&p.expected_text()),
                esc(p.answer.as_deref().unwrap_or("-")),
                p.score
                    .map_or(String::new(), |sc| format!(" ({})", sc.pawns())),
                p.error.as_ref().map_or(String::new(), |e| format!(
                    "<br><span class=\"bad\">error: {}</span>",
                    esc(e)
                ))
            );
        }
        s.push_str("</div>\n");
    }
    s.push_str("</body></html>\n");
    Ok(s)
}

fn figure(s: &mut String, kind: &str, caption: &str, svg: &str) {
    let _ = writeln!(
        s,
        "<figure class=\"chart\" data-chart=\"{kind}\">{svg}<figcaption>{}</figcaption></figure>",
        esc(caption)
    );
}

fn chart_err<E: std::fmt::Debug>(e: E) -> ReportError {
    ReportError::Chart(format!("{e:?}"))
}

/// A vertical bar chart of `values` with one labelled bar each.
fn bar_chart(
    x_desc: Option<&str>,
    y_desc: &str,
    labels: &[String],
    values: &[usize],
) -> Result<String, ReportError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (480, 300)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_err)?;
        let top = values.iter().copied().max().unwrap_or(1).max(1);
        let n = labels.len().max(1) as u32;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(45)
            .build_cartesian_2d((0u32..n).into_segmented(), 0usize..top + top / 10 + 1)
            .map_err(chart_err)?;
        let mut mesh = chart.configure_mesh();
        if let Some(x) = x_desc {
            mesh.x_desc(x);
        }
        mesh.disable_x_mesh()
            .y_desc(y_desc)
            .x_labels(labels.len())
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()
            .map_err(chart_err)?;
        chart
            .draw_series(
                Histogram::vertical(&chart)
                    .style(RGBColor(70, 110, 170).filled())
                    .margin(if labels.len() > 4 { 4 } else { 12 })
                    .data(values.iter().enumerate().map(|(i, &v)| (i as u32, v))),
            )
            .map_err(chart_err)?;
        root.present().map_err(chart_err)?;
    }
    Ok(svg)
}

fn histogram_chart(h: &Buckets) -> Result<String, ReportError> {
    // Axis labels give each bucket's lower bound; full ranges would collide.
    let labels: Vec<String> = h.bounds.iter().map(|&b| short(b)).collect();
    let what = format!("{} (bucket from)", h.what);
    bar_chart(Some(&what), "positions", &labels, &h.counts)
}
