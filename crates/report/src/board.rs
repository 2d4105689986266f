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
            let fill = if sq.is_light() { "#f0d9b5" } else { "#b58863" };
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{cell:.1}" height="{cell:.1}" fill="{fill}"/>"#
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
    fn bad_position_gives_placeholder() {
        let svg = diagram("not a fen", 100);
        assert!(svg.contains("no diagram"));
        assert!(svg.ends_with("</svg>"));
    }
}
