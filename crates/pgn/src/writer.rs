//! The PGN export-format writer.
//!
//! Tags: the Seven Tag Roster first, in its order (missing ones get their
//! default, `Result` the game's result when the tag is missing or `*`), then the other tags in their order;
//! strings escaped. Movetext: SAN computed from the moves, move numbers (`N...`
//! for Black after a comment or variation and at the start of a line), NAGs as
//! `$n`, comments in braces, lines of at most 80 characters (a single token
//! longer than that stands alone on its line). No line of movetext starts
//! with `[` or `%` (a comment's word there gets a space before it): a
//! reader would take the one for a tag, the other for an escape line.

use std::fmt::Write as _;
use std::io;

use rookery_core::{Color, Position, SanPlus};

use crate::game::{Game, Line};
use crate::tree::Step;

/// The longest movetext line written.
pub const LINE_LENGTH: usize = 80;

struct Wrap {
    out: String,
    len: usize,
    /// `(` waiting to be glued to the next token.
    open: usize,
    /// Each comment is one token, never broken across lines.
    whole_comments: bool,
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
        if self.len == 0 && self.open == 0 && t.starts_with(['[', '%']) {
            // A word of a comment: at the start of a line, `[` would read as
            // a tag (a reader ends a comment cut off by the next game's tags
            // there) and `%` as an escape line, which is skipped.
            self.out.push(' ');
            self.len = 1;
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
            // Not representable in braces: a rest-of-line comment (on one line).
            self.token(&format!(";{}", text.replace(['\n', '\r'], " ")));
            self.end_line();
            return;
        }
        let words: Vec<&str> = text
            .split(|c: char| c.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        if self.whole_comments {
            self.token(&format!("{{{}}}", words.join(" ")));
            return;
        }
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

/// Where the writer stands in one line.
struct LineState {
    /// The position before the current node's move (after it, once the
    /// node's variations are written).
    pos: Position,
    /// Whether Black's next move needs its number (`N...`).
    need_number: bool,
}

/// Writes `line` from `start` with its variations, from a heap stack (a
/// file may nest variations as deep as it likes; see [`crate::tree`]).
fn write_line(w: &mut Wrap, line: &Line, start: &Position) {
    let mut stack: Vec<LineState> = Vec::new();
    let mut san = String::with_capacity(8);
    for (_, step) in line.walk() {
        match step {
            Step::Enter(_) => {
                let pos = match stack.last() {
                    // A variation: from the position before the parent's move.
                    Some(parent) => {
                        w.open += 1;
                        parent.pos.clone()
                    }
                    None => start.clone(),
                };
                stack.push(LineState {
                    pos,
                    need_number: true,
                });
            }
            Step::Node(node) => {
                let Some(s) = stack.last_mut() else { break };
                for c in &node.comments_before {
                    w.comment(c);
                    s.need_number = true;
                }
                match s.pos.turn() {
                    Color::White => w.token(&format!("{}.", s.pos.fullmoves())),
                    Color::Black if s.need_number => w.token(&format!("{}...", s.pos.fullmoves())),
                    Color::Black => {}
                }
                san.clear();
                let _ = write!(san, "{}", SanPlus::from_move(&s.pos, node.mv));
                w.token(&san);
                s.need_number = false;
                // NAGs and comments after the move, in the order they were read.
                let mut comments = node.comments_after.iter();
                let mut written = 0usize;
                for (i, nag) in node.nags.iter().enumerate() {
                    let slot = node.nag_slots.get(i).copied().unwrap_or(0);
                    while written < slot {
                        let Some(c) = comments.next() else { break };
                        w.comment(c);
                        written += 1;
                        s.need_number = true;
                    }
                    w.token(&nag.to_string());
                }
                for c in comments {
                    w.comment(c);
                    s.need_number = true;
                }
            }
            Step::NodeDone(node) => {
                if let Some(s) = stack.last_mut() {
                    s.pos.play_unchecked(node.mv);
                }
            }
            Step::Leave(line) => {
                for c in &line.trailing_comments {
                    w.comment(c);
                }
                stack.pop();
                if let Some(parent) = stack.last_mut() {
                    w.close();
                    parent.need_number = true;
                }
            }
        }
    }
}

/// The game in export format, ending with a blank line.
pub fn game_to_string(game: &Game) -> String {
    write_string(game, false)
}

/// [`game_to_string`], but with each comment kept on one line (a comment
/// longer than [`LINE_LENGTH`] stands alone on its line, which may then be
/// longer): for readers that keep the line breaks inside a comment, as
/// python-chess does (`[%clk 0:05:01]` broken after `%clk` reads as
/// `[%clk\n0:05:01]` there).
pub fn game_to_string_whole_comments(game: &Game) -> String {
    write_string(game, true)
}

/// The game in export format, comments broken across lines or not.
fn write_string(game: &Game, whole_comments: bool) -> String {
    let mut out = String::with_capacity(1024);
    for (name, value) in game.exported_tags().iter() {
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
        whole_comments,
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
