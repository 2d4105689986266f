//! The PGN export-format writer.
//!
//! Tags: the Seven Tag Roster first, in its order (missing ones get their
//! default, `Result` the game's result when the tag is missing or `*`), then the other tags in their order;
//! strings escaped. Movetext: SAN computed from the moves, move numbers (`N...`
//! for Black after a comment or variation and at the start of a line), NAGs as
//! `$n`, comments in braces, lines of at most 80 characters (a single token
//! longer than that stands alone on its line).

use std::fmt::Write as _;
use std::io;

use rookery_core::{Color, Position, SanPlus};

use crate::game::{Game, Line};

/// The longest movetext line written.
pub const LINE_LENGTH: usize = 80;

struct Wrap {
    out: String,
    len: usize,
    /// `(` waiting to be glued to the next token.
    open: usize,
}

impl Wrap {
    fn token(&mut self, t: &str) {
        let width = self.open + t.len();
        if self.len > 0 {
            if self.len + 1 + width > LINE_LENGTH {
                self.out.push('\n');
                self.len = 0;
            } else {
                self.out.push(' ');
                self.len += 1;
            }
        }
        for _ in 0..self.open {
            self.out.push('(');
        }
        self.open = 0;
        self.out.push_str(t);
        self.len += width;
    }

    fn close(&mut self) {
        if self.open > 0 {
            // An empty variation.
            self.open -= 1;
            self.token("()");
        } else if self.len > 0 && self.len < LINE_LENGTH {
            self.out.push(')');
            self.len += 1;
        } else {
            self.token(")");
        }
    }

    fn end_line(&mut self) {
        if self.len > 0 {
            self.out.push('\n');
            self.len = 0;
        }
    }

    fn comment(&mut self, text: &str) {
        if text.contains('}') {
            // Not representable in braces: a rest-of-line comment.
            self.token(&format!(";{text}"));
            self.end_line();
            return;
        }
        let words: Vec<&str> = text
            .split(|c: char| c.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        match words.as_slice() {
            [] => self.token("{}"),
            [w] => self.token(&format!("{{{w}}}")),
            [first, mid @ .., last] => {
                self.token(&format!("{{{first}"));
                for w in mid {
                    self.token(w);
                }
                self.token(&format!("{last}}}"));
            }
        }
    }
}

/// Escapes a tag value: `\` and `"` get a backslash.
pub fn escape_tag_value(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    for c in v.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn write_line(w: &mut Wrap, line: &Line, start: &Position) {
    let mut pos = start.clone();
    let mut need_number = true;
    let mut san = String::with_capacity(8);
    for node in &line.nodes {
        for c in &node.comments_before {
            w.comment(c);
            need_number = true;
        }
        match pos.turn() {
            Color::White => w.token(&format!("{}.", pos.fullmoves())),
            Color::Black if need_number => w.token(&format!("{}...", pos.fullmoves())),
            Color::Black => {}
        }
        san.clear();
        let _ = write!(san, "{}", SanPlus::from_move(&pos, node.mv));
        w.token(&san);
        need_number = false;
        // NAGs and comments after the move, in the order they were read.
        let mut comments = node.comments_after.iter();
        let mut written = 0usize;
        for (i, nag) in node.nags.iter().enumerate() {
            let slot = node.nag_slots.get(i).copied().unwrap_or(0);
            while written < slot {
                let Some(c) = comments.next() else { break };
                w.comment(c);
                written += 1;
                need_number = true;
            }
            w.token(&nag.to_string());
        }
        for c in comments {
            w.comment(c);
            need_number = true;
        }
        for v in &node.variations {
            w.open += 1;
            write_line(w, v, &pos);
            w.close();
            need_number = true;
        }
        pos.play_unchecked(node.mv);
    }
    for c in &line.trailing_comments {
        w.comment(c);
    }
}

/// The game in export format, ending with a blank line.
pub fn game_to_string(game: &Game) -> String {
    let mut out = String::with_capacity(1024);
    for (name, value) in &game.exported_tags().0 {
        out.push('[');
        out.push_str(name);
        out.push_str(" \"");
        out.push_str(&escape_tag_value(value));
        out.push_str("\"]\n");
    }
    out.push('\n');
    let mut w = Wrap {
        out,
        len: 0,
        open: 0,
    };
    write_line(&mut w, &game.mainline, &game.start);
    w.token(game.result.as_str());
    w.end_line();
    let mut out = w.out;
    out.push('\n');
    out
}

/// Writes the game in export format, ending with a blank line.
///
/// # Errors
/// I/O errors of `out`.
pub fn write_game<W: io::Write>(out: &mut W, game: &Game) -> io::Result<()> {
    out.write_all(game_to_string(game).as_bytes())
}
