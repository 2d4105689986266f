//! `RESULT {COMMENT}`: how both sides of CECP write a game's result.

use super::message::{is_space, trimmed};
use rookery_core::{Color, Outcome};
use std::fmt;

/// A result with its comment: the engine's claim (`1-0 {White mates}`) or
/// the host's `result` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultClaim {
    /// `1-0`, `0-1`, `1/2-1/2`, or `None` for `*` (unfinished).
    pub outcome: Option<Outcome>,
    /// The text in braces (or, leniently, after the result without them).
    pub comment: Option<String>,
}

/// `1-0`, `0-1`, `1/2-1/2` or `*`.
pub fn result_text(outcome: Option<Outcome>) -> &'static str {
    outcome.map_or("*", Outcome::as_str)
}

impl ResultClaim {
    /// Reads `RESULT [{COMMENT}]` from the start of `text`; `None` if the
    /// first word is not a result. A comment without its closing brace (or
    /// without braces) runs to the end of the line.
    pub fn parse(text: &str) -> Option<ResultClaim> {
        let text = trimmed(text);
        let end = text.find(is_space).unwrap_or(text.len());
        let outcome = match &text[..end] {
            "1-0" => Some(Outcome::Decisive {
                winner: Color::White,
            }),
            "0-1" => Some(Outcome::Decisive {
                winner: Color::Black,
            }),
            "1/2-1/2" => Some(Outcome::Draw),
            "*" => None,
            _ => return None,
        };
        let rest = trimmed(&text[end..]);
        let comment = if rest.is_empty() {
            None
        } else if let Some(inner) = rest.strip_prefix('{') {
            Some(inner.strip_suffix('}').unwrap_or(inner).to_string())
        } else {
            Some(rest.to_string())
        };
        Some(ResultClaim { outcome, comment })
    }

    /// Whether the claim gives the game to `side`'s opponent (a claim of
    /// its own loss is a resignation).
    pub fn loses_for(&self, side: Color) -> bool {
        self.outcome
            == Some(Outcome::Decisive {
                winner: side.other(),
            })
    }
}

impl fmt::Display for ResultClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(result_text(self.outcome))?;
        if let Some(c) = &self.comment {
            write!(f, " {{{c}}}")?;
        }
        Ok(())
    }
}
