//! The UCI protocol in both directions, as typed messages.
//!
//! [`Command`] is what a GUI (or any host) sends to an engine; [`Message`] is
//! what an engine sends back. Both parse from one line of text and format back
//! to one line with [`std::fmt::Display`]. Parsing never fails: input that is
//! not understood is kept as an `Unknown` variant, and unknown tokens inside a
//! known command are skipped as the protocol asks. Words may be separated by
//! any run of spaces and tabs; a trailing `\r` is ignored.
//!
//! This crate knows the protocol only, nothing of search.
//!
//! Beside UCI, [`cecp`] speaks the xboard / WinBoard protocol (CECP 2) in
//! the same way, over the same process seam ([`host::Transport`]).
//!
//! ```
//! use rookery_uci::{Command, GoParams, Message, Info, InfoScore};
//!
//! let cmd = Command::parse("go  wtime 1000\tbtime 900 movestogo 5\r");
//! let Command::Go(go) = &cmd else { panic!() };
//! assert_eq!(go.wtime, Some(1000));
//! assert_eq!(cmd.to_string(), "go wtime 1000 btime 900 movestogo 5");
//!
//! let msg = Message::parse("info depth 3 score cp -12 pv e2e4 e7e5");
//! let Message::Info(info) = &msg else { panic!() };
//! assert_eq!(info.score, Some(InfoScore::cp(-12)));
//! assert_eq!(msg.to_string(), "info depth 3 score cp -12 pv e2e4 e7e5");
//! ```

#![deny(missing_docs)]

pub mod cecp;
mod command;
pub mod host;
mod message;
mod option;
pub mod program;

pub use command::{Command, GoParams, PositionStart, Register};
pub use message::{BestMove, CurrLine, Id, Info, InfoScore, Message, ScoreBound, Status};
pub use option::{OptionDecl, OptionKind};
/// The score of an `info` line's `score` (the one score type of rookery).
pub use rookery_core::Score;

/// Splits a line into words: any run of ASCII whitespace (spaces, tabs,
/// carriage returns) separates words.
pub fn tokenize(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| c.is_ascii_whitespace() || c == '\0')
        .filter(|t| !t.is_empty())
}

/// Parses a UCI move token, `None` if it is not one.
pub(crate) fn parse_move(token: &str) -> Option<rookery_core::UciMove> {
    rookery_core::UciMove::from_ascii(token.as_bytes()).ok()
}

/// Writes words separated by single spaces.
pub(crate) fn join<T: std::fmt::Display>(items: &[T]) -> String {
    let mut s = String::new();
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&it.to_string());
    }
    s
}
