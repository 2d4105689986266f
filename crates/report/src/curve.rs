//! The cumulative "solved within t" curve of each run: how many positions a
//! run has solved once it is allowed t milliseconds (or nodes, or plies of
//! depth) per position, the plot engine authors otherwise draw by hand.
//!
//! A solved position counts from its time to solution (when the best move
//! became, and stayed, right) or, where that is not known, from the time it
//! used. The measure is the same for every run of a report: time when any
//! solved position of any run reports time, else nodes, else depth.

use crate::model::{PositionResult, SuiteRun};
use serde::Serialize;

/// What t is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// Milliseconds.
    Time,
    /// Nodes searched.
    Nodes,
    /// Depth in plies.
    Depth,
}

impl Measure {
    /// The axis label.
    pub fn label(self) -> &'static str {
        match self {
            Measure::Time => "time per position (ms)",
            Measure::Nodes => "nodes per position",
            Measure::Depth => "depth (plies)",
        }
    }

    /// Whether the axis is logarithmic (time and nodes span decades).
    pub fn is_log(self) -> bool {
        !matches!(self, Measure::Depth)
    }

    /// The t at which a solved position counts, if this measure knows it.
    pub fn of(self, p: &PositionResult) -> Option<u64> {
        match self {
            Measure::Time => p.time_to_solution_ms.or(p.time_ms),
            Measure::Nodes => p.nodes_to_solution.or(p.nodes),
            Measure::Depth => p.depth.map(u64::from),
        }
    }
}

/// One run's curve.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curve {
    /// Index of the run in the report.
    pub run: usize,
    /// The run in words (`engine on suite`).
    pub name: String,
    /// Positions that could be scored: the top of the curve's scale.
    pub positions: usize,
    /// `(t, solved within t)`, t ascending and distinct, counts rising.
    pub points: Vec<(u64, usize)>,
    /// Solved positions whose t is unknown (no depth reported): not on the curve.
    pub unplaced: usize,
}

/// The curves of every run of a report, on one measure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curves {
    /// What t is; `None` when no run solved anything.
    pub measure: Option<Measure>,
    /// One curve per run, in report order.
    pub curves: Vec<Curve>,
}

fn solved(runs: &[SuiteRun]) -> impl Iterator<Item = &PositionResult> + '_ {
    runs.iter()
        .flat_map(|r| r.positions.iter())
        .filter(|p| p.solved)
}

/// The measure the runs can be drawn on (see the module documentation).
pub fn measure(runs: &[SuiteRun]) -> Option<Measure> {
    let some = |figure: Option<u64>| figure.is_some_and(|n| n > 0);
    if solved(runs).any(|p| p.time_to_solution_ms.is_some() || some(p.time_ms)) {
        Some(Measure::Time)
    } else if solved(runs).any(|p| p.nodes_to_solution.is_some() || some(p.nodes)) {
        Some(Measure::Nodes)
    } else if solved(runs).any(|p| p.depth.is_some()) {
        Some(Measure::Depth)
    } else {
        solved(runs).next().map(|_| Measure::Time)
    }
}

/// The curves of `runs`.
pub fn curves(runs: &[SuiteRun]) -> Curves {
    let measure = measure(runs);
    let curves = runs
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let mut ts = Vec::new();
            let mut unplaced = 0;
            for p in run.positions.iter().filter(|p| p.solved) {
                match measure.and_then(|m| m.of(p)) {
                    Some(t) => ts.push(t),
                    None => unplaced += 1,
                }
            }
            ts.sort_unstable();
            let mut points: Vec<(u64, usize)> = Vec::new();
            for (n, t) in ts.into_iter().enumerate() {
                match points.last_mut() {
                    Some(last) if last.0 == t => last.1 = n + 1,
                    _ => points.push((t, n + 1)),
                }
            }
            Curve {
                run: i,
                name: format!("{} on {}", run.engine, run.suite),
                positions: run.positions.iter().filter(|p| p.is_scorable()).count(),
                points,
                unplaced,
            }
        })
        .collect();
    Curves { measure, curves }
}

impl Curves {
    /// The largest t on any curve (where the last of them reaches its top);
    /// `None` when no curve has a point.
    pub fn t_max(&self) -> Option<u64> {
        self.curves
            .iter()
            .filter_map(|k| k.points.last().map(|p| p.0))
            .max()
    }
}

impl Curve {
    /// Positions solved within `t`.
    pub fn solved_within(&self, t: u64) -> usize {
        self.points
            .iter()
            .take_while(|p| p.0 <= t)
            .last()
            .map_or(0, |p| p.1)
    }
}

#[cfg(feature = "html")]
pub use svg::render as svg;

#[cfg(feature = "html")]
mod svg {
    use super::{Curves, Measure};
    use crate::board::html_escape as esc;
    use crate::stats::short;
    use std::fmt::Write;

    const W: f64 = 640.0;
    const H: f64 = 360.0;
    const LEFT: f64 = 56.0;
    const RIGHT: f64 = 16.0;
    const TOP: f64 = 16.0;
    const BOTTOM: f64 = 48.0;
    /// Line colours, one per run (cycled).
    const COLOURS: [&str; 8] = [
        "#1f5fa8", "#c0392b", "#2e8b57", "#8e44ad", "#d68910", "#17a2b8", "#7f8c8d", "#e84393",
    ];

    /// The curves as one SVG step chart: one `<path class="curve">` per run
    /// (with `data-run` naming it and `data-solved` its final count), axes
    /// with ticks, and a legend.
    pub fn render(c: &Curves) -> String {
        let Some(measure) = c.measure else {
            return String::new();
        };
        let t_max = c.t_max().unwrap_or(1).max(1);
        let y_max = c
            .curves
            .iter()
            .map(|k| k.positions)
            .max()
            .unwrap_or(1)
            .max(1);
        let log = measure.is_log();
        // x in [lo, hi]: decades for log axes (t = 0 drawn at the first decade).
        let (lo, hi) = if log {
            let top = (t_max as f64).log10().ceil().max(1.0);
            (0.0, top)
        } else {
            (0.0, t_max as f64)
        };
        let x = |t: u64| {
            let v = if log {
                (t.max(1) as f64).log10()
            } else {
                t as f64
            };
            LEFT + (v - lo) / (hi - lo) * (W - LEFT - RIGHT)
        };
        let y = |n: usize| H - BOTTOM - n as f64 / y_max as f64 * (H - TOP - BOTTOM);
        let mut s = String::new();
        let _ = write!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"solved-within\" data-measure=\"{}\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"11\">",
            match measure {
                Measure::Time => "time",
                Measure::Nodes => "nodes",
                Measure::Depth => "depth",
            }
        );
        let _ = write!(s, "<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>");
        // Axes.
        let (x0, y0) = (LEFT, H - BOTTOM);
        let _ = write!(
            s,
            "<path d=\"M{x0} {TOP}V{y0}H{}\" stroke=\"#444\" fill=\"none\"/>",
            W - RIGHT
        );
        // x ticks.
        let ticks: Vec<u64> = if log {
            (0..=hi as u32).map(|e| 10u64.pow(e)).collect()
        } else {
            let step = (t_max / 8).max(1);
            (0..=t_max).step_by(step as usize).collect()
        };
        for t in ticks {
            let px = x(t);
            let _ = write!(
                s,
                "<path d=\"M{px:.1} {y0}v4\" stroke=\"#444\"/><text x=\"{px:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                y0 + 16.0,
                short(t)
            );
        }
        // y ticks.
        let ystep = (y_max / 5).max(1);
        for n in (0..=y_max).step_by(ystep) {
            let py = y(n);
            let _ = write!(
                s,
                "<path d=\"M{x0} {py:.1}h-4\" stroke=\"#444\"/><path d=\"M{x0} {py:.1}H{}\" stroke=\"#eee\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{n}</text>",
                W - RIGHT,
                x0 - 6.0,
                py + 4.0
            );
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text><text x=\"14\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1})\">positions solved</text>",
            (LEFT + W - RIGHT) / 2.0,
            H - 10.0,
            esc(measure.label()),
            (TOP + y0) / 2.0,
            (TOP + y0) / 2.0
        );
        // One step line per run: flat at 0 from the left edge, up at each t.
        for (i, k) in c.curves.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let mut d = format!("M{x0:.1} {:.1}", y(0));
            for &(t, n) in &k.points {
                let _ = write!(d, "H{:.1}V{:.1}", x(t), y(n));
            }
            let _ = write!(d, "H{:.1}", W - RIGHT);
            let _ = write!(
                s,
                "<path class=\"curve\" data-run=\"{}\" data-solved=\"{}\" d=\"{d}\" stroke=\"{colour}\" stroke-width=\"2\" fill=\"none\"/>",
                esc(&k.name),
                k.points.last().map_or(0, |p| p.1)
            );
            // Legend, top left inside the plot.
            let ly = TOP + 8.0 + 16.0 * i as f64;
            let _ = write!(
                s,
                "<path d=\"M{:.1} {ly:.1}h18\" stroke=\"{colour}\" stroke-width=\"2\"/><text class=\"legend\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                LEFT + 10.0,
                LEFT + 32.0,
                ly + 4.0,
                esc(&k.name)
            );
        }
        s.push_str("</svg>");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Expected;

    fn p(solved: bool, tts: Option<u64>, time_ms: u64) -> PositionResult {
        let bm_e4 = Expected {
            bm: vec!["e4".into()],
            ..Expected::default()
        };
        PositionResult {
            depth: Some(7),
            nodes: Some(10),
            time_ms: Some(time_ms),
            solved,
            time_to_solution_ms: tts,
            ..PositionResult::unanswered(1, String::new(), bm_e4, 1)
        }
    }

    fn run(positions: Vec<PositionResult>) -> SuiteRun {
        SuiteRun {
            suite: "s".into(),
            engine: "e".into(),
            limits: String::new(),
            started: None,
            positions,
        }
    }

    #[test]
    fn steps_at_each_time_to_solution() {
        let r = run(vec![
            p(true, Some(30), 100),
            p(false, None, 100),
            p(true, None, 100), // no time to solution: counts at its time used
            p(true, Some(30), 100),
            p(true, Some(5), 100),
        ]);
        let c = curves(&[r]);
        assert_eq!(c.measure, Some(Measure::Time));
        let k = &c.curves[0];
        assert_eq!(k.points, vec![(5, 1), (30, 3), (100, 4)]);
        assert_eq!(k.positions, 5);
        assert_eq!(k.solved_within(29), 1);
        assert_eq!(k.solved_within(30), 3);
        assert_eq!(k.solved_within(4), 0);
    }

    #[test]
    fn t_max_is_the_last_point_of_the_longest_curve() {
        let a = run(vec![p(true, Some(30), 100), p(true, Some(300), 100)]);
        let b = run(vec![p(true, Some(3000), 100), p(false, None, 100)]);
        assert_eq!(curves(&[a.clone(), b]).t_max(), Some(3000));
        assert_eq!(curves(&[a]).t_max(), Some(300));
        assert_eq!(curves(&[run(vec![p(false, None, 9)])]).t_max(), None);
    }

    #[test]
    fn nodes_then_depth_when_time_is_absent() {
        let mut a = p(true, None, 0);
        a.nodes = Some(500);
        assert_eq!(measure(&[run(vec![a.clone()])]), Some(Measure::Nodes));
        a.nodes = Some(0);
        assert_eq!(measure(&[run(vec![a.clone()])]), Some(Measure::Depth));
        let c = curves(&[run(vec![a.clone()])]);
        assert_eq!(c.curves[0].points, vec![(7, 1)]);
        a.depth = None;
        let c = curves(&[run(vec![a, p(false, None, 0)])]);
        assert_eq!(c.measure, Some(Measure::Time));
        assert_eq!(measure(&[run(vec![p(false, None, 9)])]), None);
    }

    #[cfg(feature = "html")]
    #[test]
    fn svg_has_one_path_per_run() {
        let a = run(vec![p(true, Some(30), 100), p(true, Some(300), 100)]);
        let mut b = run(vec![p(true, Some(3000), 100), p(false, None, 100)]);
        b.engine = "f<g>".into();
        let svg = svg(&curves(&[a, b]));
        assert_eq!(svg.matches("class=\"curve\"").count(), 2);
        assert!(
            svg.contains("data-run=\"f&lt;g&gt; on s\" data-solved=\"1\""),
            "{svg}"
        );
        assert!(svg.contains("data-run=\"e on s\" data-solved=\"2\""));
        assert!(svg.contains(">1k</text>"), "decade ticks to 10^4: {svg}");
    }
}
