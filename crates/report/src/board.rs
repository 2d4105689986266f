//! Board diagrams as inline SVG.

use rookery_core::{Color, File, Mode, Rank, Role, Setup, Square};
use std::fmt::Write;

/// Unicode chess glyphs (solid shapes for both colours, coloured by fill).
fn glyph(role: Role) -> char {
    match role {
        Role::King => '\u{265A}',
        Role::Queen => '\u{265B}',
        Role::Rook => '\u{265C}',
        Role::Bishop => '\u{265D}',
        Role::Knight => '\u{265E}',
        Role::Pawn => '\u{265F}',
    }
}

/// An SVG diagram of the position in `fen` (FEN or the four EPD fields),
/// `size` pixels square, White at the bottom. Text that is not a position
/// gives a small placeholder saying so, never an error: a report shows what it can.
pub fn diagram(fen: &str, size: u32) -> String {
    diagram_marked(fen, size, &[])
}

/// Light and dark squares of a marked square (the last move's).
const MARKED: [&str; 2] = ["#f6f669", "#baca44"];

/// [`diagram`] with the `marked` squares (say, the last move's from and to)
/// highlighted; each marked square's `rect` carries the class `marked`.
pub fn diagram_marked(fen: &str, size: u32, marked: &[Square]) -> String {
    let setup = Setup::from_fen(fen, Mode::Lenient)
        .or_else(|_| Setup::from_epd_prefix(fen.as_bytes(), Mode::Lenient).map(|(s, _)| s));
    let cell = size as f64 / 8.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="board" xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" role="img">"#
    );
    let Ok(setup) = setup else {
        let _ = write!(
            s,
            r##"<rect width="{size}" height="{size}" fill="#eee"/><text x="8" y="20" font-size="12">no diagram: bad position</text></svg>"##
        );
        return s;
    };
    let _ = write!(s, "<title>{}</title>", html_escape(fen));
    for rank in Rank::ALL {
        for file in File::ALL {
            let sq = Square::from_coords(file, rank);
            let x = file.index() as f64 * cell;
            let y = (7 - rank.index()) as f64 * cell;
            let mark = marked.contains(&sq);
            let fill = match (mark, sq.is_light()) {
                (false, true) => "#f0d9b5",
                (false, false) => "#b58863",
                (true, true) => MARKED[0],
                (true, false) => MARKED[1],
            };
            let class = if mark { r#" class="marked""# } else { "" };
            let _ = write!(
                s,
                r#"<rect{class} x="{x:.1}" y="{y:.1}" width="{cell:.1}" height="{cell:.1}" fill="{fill}"/>"#
            );
            if let Some(p) = setup.board[sq.index()] {
                let (fill, stroke) = match p.color {
                    Color::White => ("#ffffff", "#000000"),
                    Color::Black => ("#000000", "#000000"),
                };
                let _ = write!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" font-size="{:.1}" text-anchor="middle" dominant-baseline="central" fill="{fill}" stroke="{stroke}" stroke-width="0.6">{}</text>"#,
                    x + cell / 2.0,
                    y + cell / 2.0,
                    cell * 0.8,
                    glyph(p.role)
                );
            }
        }
    }
    let side = match setup.turn {
        Color::White => "White to move",
        Color::Black => "Black to move",
    };
    let _ = write!(s, r#"<desc>{side}</desc></svg>"#);
    s
}

/// Escapes text for HTML and XML.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_every_piece() {
        let svg = diagram("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", 240);
        assert_eq!(svg.matches("<rect").count(), 64);
        assert_eq!(svg.matches("<text").count(), 32);
        assert!(svg.contains("White to move"));
    }

    #[test]
    fn marks_the_squares_asked_for_only() {
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
        let e2: Square = "e2".parse().unwrap();
        let e3: Square = "e3".parse().unwrap();
        let svg = diagram_marked(fen, 240, &[e2, e3]);
        assert_eq!(svg.matches(r#"<rect class="marked""#).count(), 2);
        // e2 is a light square, e3 a dark one: each keeps its shade.
        assert!(svg.contains(&format!(r#"fill="{}""#, MARKED[0])));
        assert!(svg.contains(&format!(r#"fill="{}""#, MARKED[1])));
        assert_eq!(diagram(fen, 240).matches("marked").count(), 0);
    }

    #[test]
    fn bad_position_gives_placeholder() {
        let svg = diagram("not a fen", 100);
        assert!(svg.contains("no diagram"));
        assert!(svg.ends_with("</svg>"));
    }
}
