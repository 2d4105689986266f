//! One self-contained HTML page for annotated games: per game an evaluation
//! graph (SVG drawn by plotters, the mistakes marked on it), the players'
//! figures, the move list with signs and evaluations, the better lines, and
//! a board diagram (with the move played and the best move as arrows) at
//! every blunder. No scripts, no external files.

use crate::board::{diagram, html_escape as esc};
use crate::game_model::{Diagram, GamePage, MoveMark, PageGame, PageMove, PlayerSummary};
use crate::ReportError;
use plotters::prelude::*;
use std::fmt::Write;

const STYLE: &str = "body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}\
section.game{border-top:2px solid #ccc;margin-top:2em}\
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}\
th{background:#f3f3f3}td.l,th.l{text-align:left}\
.moves{line-height:1.8;max-width:1000px}.mv{white-space:nowrap;margin-right:0.3em}\
.ev{color:#777;font-size:0.8em;margin-left:0.15em}\
.inaccuracy{color:#b8860b;font-weight:bold}.mistake{color:#e07000;font-weight:bold}.blunder{color:#c00;font-weight:bold}\
.moment{display:inline-block;vertical-align:top;margin:0.5em;width:300px;font-size:0.9em}\
.error{color:#a00}figure{margin:0.5em 0}figcaption{font-size:0.9em}";

/// Colour of a mark on the graph and in the move list.
fn mark_color(m: MoveMark) -> RGBColor {
    match m {
        MoveMark::Inaccuracy => RGBColor(0xb8, 0x86, 0x0b),
        MoveMark::Mistake => RGBColor(0xe0, 0x70, 0x00),
        MoveMark::Blunder => RGBColor(0xcc, 0x00, 0x00),
    }
}

fn mark_class(m: MoveMark) -> &'static str {
    match m {
        MoveMark::Inaccuracy => "inaccuracy",
        MoveMark::Mistake => "mistake",
        MoveMark::Blunder => "blunder",
    }
}

/// Renders the page.
///
/// # Errors
/// [`ReportError::Chart`] if a graph cannot be drawn.
pub fn render(page: &GamePage) -> Result<String, ReportError> {
    let mut s = String::with_capacity(64 * 1024);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title><style>{STYLE}</style></head><body>\n<h1>{t}</h1>\n<p class=\"run\">Judged by {} ({}). {} game(s).</p>\n",
        esc(&page.engine),
        esc(&page.limits),
        page.games.len(),
        t = esc(&page.title),
    );
    for g in &page.games {
        game(&mut s, g)?;
    }
    s.push_str("</body></html>\n");
    Ok(s)
}

fn game(s: &mut String, g: &PageGame) -> Result<(), ReportError> {
    let _ = writeln!(
        s,
        "<section class=\"game\" id=\"game-{}\" data-game=\"{}\">\n<h2>{} – {} <small>{}</small></h2>\n<p>{}</p>",
        g.index,
        g.index,
        esc(&g.white),
        esc(&g.black),
        esc(&g.result),
        esc(&g.about)
    );
    if let Some(e) = &g.error {
        let _ = writeln!(
            s,
            "<p class=\"error\">Not annotated: {}</p>\n</section>",
            esc(e)
        );
        return Ok(());
    }
    summaries(s, g);
    if g.moves.iter().any(|m| m.white_win.is_some()) {
        let _ = writeln!(
            s,
            "<figure class=\"graph\" data-chart=\"eval\">{}<figcaption>White's winning chances after each move; marks at inaccuracies (yellow), mistakes (orange), blunders (red).</figcaption></figure>",
            graph(&g.moves)?
        );
    }
    move_list(s, &g.moves);
    moments(s, &g.moves);
    s.push_str("</section>\n");
    Ok(())
}

fn summaries(s: &mut String, g: &PageGame) {
    s.push_str("<table class=\"players\"><tr><th class=\"l\">player</th><th>accuracy</th><th>ACPL</th><th>inaccuracies ?!</th><th>mistakes ?</th><th>blunders ??</th><th>moves judged</th></tr>\n");
    let row = |s: &mut String, colour: &str, name: &str, p: &PlayerSummary| {
        let _ = writeln!(
            s,
            "<tr class=\"player\" data-side=\"{colour}\"><td class=\"l\">{} ({colour})</td><td class=\"accuracy\">{}</td><td class=\"acpl\">{}</td><td class=\"inaccuracies\">{}</td><td class=\"mistakes\">{}</td><td class=\"blunders\">{}</td><td>{}</td></tr>",
            esc(name),
            p.accuracy.map_or("-".into(), |a| format!("{a:.1}%")),
            p.acpl.map_or("-".into(), |a| a.to_string()),
            p.inaccuracies,
            p.mistakes,
            p.blunders,
            p.moves
        );
    };
    row(s, "white", &g.white, &g.white_summary);
    row(s, "black", &g.black, &g.black_summary);
    s.push_str("</table>\n");
}

fn move_list(s: &mut String, moves: &[PageMove]) {
    s.push_str("<p class=\"moves\">");
    for m in moves {
        let class = m.mark.map_or("", mark_class);
        let sign = m.mark.map_or("", MoveMark::sign);
        let number = if m.by_white || m.ply == 1 || moves.first().is_some_and(|f| f.ply == m.ply) {
            format!("{} ", m.number)
        } else {
            String::new()
        };
        let _ = write!(
            s,
            "<span class=\"mv {class}\" data-ply=\"{}\">{}{}{}</span>",
            m.ply,
            esc(&number),
            esc(&m.san),
            sign
        );
        if let Some(e) = &m.eval {
            let _ = write!(s, "<span class=\"ev\">{}</span> ", esc(e));
        }
    }
    s.push_str("</p>\n");
}

fn moments(s: &mut String, moves: &[PageMove]) {
    let marked: Vec<&PageMove> = moves
        .iter()
        .filter(|m| m.mark.is_some() || m.note.is_some())
        .collect();
    if marked.is_empty() {
        return;
    }
    s.push_str("<h3>Turning points</h3>\n<div class=\"moments\">\n");
    for m in marked {
        let class = m.mark.map_or("note", mark_class);
        let _ = write!(s, "<div class=\"moment {class}\" data-ply=\"{}\">", m.ply);
        if let Some(d) = &m.diagram {
            s.push_str(&board(d));
            s.push_str("<br>");
        }
        let _ = write!(
            s,
            "<b>{} {}{}</b>",
            esc(&m.number),
            esc(&m.san),
            m.mark.map_or("", MoveMark::sign)
        );
        if let Some(mark) = m.mark {
            let _ = write!(s, " {}", mark.word());
        }
        if let Some(n) = &m.note {
            let _ = write!(s, ": {}", esc(n));
        }
        if let Some(e) = &m.eval {
            let _ = write!(s, " (now {})", esc(e));
        }
        if !m.better.is_empty() {
            s.push_str("<ul class=\"better\">");
            for l in &m.better {
                let _ = write!(
                    s,
                    "<li class=\"line\">{} <span class=\"ev\">{}</span></li>",
                    esc(&l.moves),
                    esc(&l.eval)
                );
            }
            s.push_str("</ul>");
        }
        s.push_str("</div>\n");
    }
    s.push_str("</div>\n");
}

/// Pixel centre of a square name (`e4`) on a board of `size` pixels, White below.
fn centre(sq: &str, size: f64) -> Option<(f64, f64)> {
    let b = sq.as_bytes();
    if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
        return None;
    }
    let cell = size / 8.0;
    let x = f64::from(b[0] - b'a') * cell + cell / 2.0;
    let y = f64::from(7 - (b[1] - b'1')) * cell + cell / 2.0;
    Some((x, y))
}

/// A board diagram with the move played (red) and the best move (green) as arrows.
fn board(d: &Diagram) -> String {
    const SIZE: u32 = 280;
    let svg = diagram(&d.fen, SIZE);
    let Some(body) = svg.strip_suffix("</svg>") else {
        return svg;
    };
    let mut out = body.to_string();
    out.push_str(r#"<defs><marker id="ah" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3" markerHeight="3" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>"#);
    for (arrow, colour, class) in [
        (&d.played, "#cc0000", "played"),
        (&d.best, "#15781b", "best"),
    ] {
        let Some((from, to)) = arrow else { continue };
        if let (Some((x1, y1)), Some((x2, y2))) =
            (centre(from, f64::from(SIZE)), centre(to, f64::from(SIZE)))
        {
            let _ = write!(
                out,
                r#"<line class="arrow {class}" x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{colour}" stroke-opacity="0.75" stroke-width="7" stroke-linecap="round" marker-end="url(#ah)"/>"#
            );
        }
    }
    out.push_str("</svg>");
    out
}

fn chart_err<E: std::fmt::Debug>(e: E) -> ReportError {
    ReportError::Chart(format!("{e:?}"))
}

/// The evaluation graph: White's winning chances by ply, marks at the judged moves.
fn graph(moves: &[PageMove]) -> Result<String, ReportError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 260)).into_drawing_area();
        root.fill(&RGBColor(0x40, 0x40, 0x40)).map_err(chart_err)?;
        let last = moves.last().map_or(1, |m| m.ply).max(1) as f64;
        let first = moves.first().map_or(1, |m| m.ply) as f64 - 1.0;
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(40)
            .build_cartesian_2d(first..last, 0f64..100f64)
            .map_err(chart_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_labels(5)
            .y_label_formatter(&|v| format!("{v:.0}%"))
            .x_label_formatter(&|v| format!("{}", (*v as i64 + 1) / 2))
            .x_desc("move")
            .axis_desc_style(("sans-serif", 12).into_font().color(&WHITE))
            .label_style(("sans-serif", 11).into_font().color(&WHITE))
            .light_line_style(RGBColor(0x55, 0x55, 0x55))
            .bold_line_style(RGBColor(0x60, 0x60, 0x60))
            .axis_style(RGBColor(0x90, 0x90, 0x90))
            .draw()
            .map_err(chart_err)?;
        let points: Vec<(f64, f64)> = moves
            .iter()
            .filter_map(|m| m.white_win.map(|w| (m.ply as f64, w)))
            .collect();
        // The area under White's curve (elements, not series: the workspace
        // builds plotters without its series features).
        if let (Some(&(x0, _)), Some(&(x1, _))) = (points.first(), points.last()) {
            let mut outline = vec![(x0, 0.0)];
            outline.extend(points.iter().copied());
            outline.push((x1, 0.0));
            chart
                .draw_series(std::iter::once(Polygon::new(
                    outline,
                    RGBColor(0xf2, 0xf2, 0xf2).filled(),
                )))
                .map_err(chart_err)?;
        }
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(first, 50.0), (last, 50.0)],
                RGBColor(0x99, 0x99, 0x99),
            )))
            .map_err(chart_err)?;
        for mark in [MoveMark::Inaccuracy, MoveMark::Mistake, MoveMark::Blunder] {
            let colour = mark_color(mark);
            chart
                .draw_series(
                    moves
                        .iter()
                        .filter(|m| m.mark == Some(mark))
                        .filter_map(|m| m.white_win.map(|w| (m.ply as f64, w)))
                        .map(|p| Circle::new(p, 5, colour.filled())),
                )
                .map_err(chart_err)?;
        }
        root.present().map_err(chart_err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_model::PageLine;

    fn mv(ply: usize, win: f64, mark: Option<MoveMark>) -> PageMove {
        PageMove {
            ply,
            number: format!("{}.", ply.div_ceil(2)),
            by_white: ply % 2 == 1,
            san: "e4".into(),
            eval: Some("0.10".into()),
            white_win: Some(win),
            mark,
            note: None,
            better: if mark.is_some() {
                vec![PageLine {
                    moves: "1. d4".into(),
                    eval: "0.20".into(),
                }]
            } else {
                vec![]
            },
            diagram: (mark == Some(MoveMark::Blunder)).then(|| Diagram {
                fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
                played: Some(("e2".into(), "e4".into())),
                best: Some(("d2".into(), "d4".into())),
            }),
        }
    }

    #[test]
    fn page_has_graph_marks_and_diagrams() {
        let page = GamePage {
            title: "t <x>".into(),
            engine: "e".into(),
            limits: "depth 1".into(),
            games: vec![PageGame {
                index: 1,
                white: "A".into(),
                black: "B".into(),
                moves: vec![
                    mv(1, 50.0, None),
                    mv(2, 60.0, Some(MoveMark::Mistake)),
                    mv(3, 20.0, Some(MoveMark::Blunder)),
                ],
                ..PageGame::default()
            }],
        };
        let html = render(&page).unwrap();
        assert!(html.contains("<title>t &lt;x&gt;</title>"));
        assert_eq!(html.matches("data-chart=\"eval\"").count(), 1);
        assert_eq!(html.matches("class=\"mv blunder\"").count(), 1);
        assert_eq!(html.matches("<svg class=\"board\"").count(), 1);
        assert_eq!(html.matches("class=\"arrow ").count(), 2);
        // Two marks on the graph: circles of the mistake's and the blunder's colours.
        assert!(
            html.contains("#E07000") || html.contains("#e07000"),
            "{html}"
        );
        assert!(html.contains("#CC0000") || html.contains("#cc0000"));
    }

    #[test]
    fn failed_game_says_why() {
        let page = GamePage {
            games: vec![PageGame {
                index: 4,
                error: Some("engine crashed".into()),
                ..PageGame::default()
            }],
            ..GamePage::default()
        };
        let html = render(&page).unwrap();
        assert!(html.contains("Not annotated: engine crashed"));
        assert!(!html.contains("data-chart"));
    }
}
