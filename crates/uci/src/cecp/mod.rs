//! CECP, the Chess Engine Communication Protocol of xboard and WinBoard
//! (version 2), in both directions, as typed messages; and the host side
//! that drives an xboard engine ([`host::CecpHost`]).
//!
//! [`Command`] is what a host sends (edit-mode lines are [`EditCommand`]s);
//! [`Message`] is what an engine sends back, features ([`Feature`]) and
//! option declarations ([`EngineOption`]) included. Both parse from one line
//! and write back with [`std::fmt::Display`]; parsing never fails: what is
//! not understood is kept as an `Unknown` variant. Moves are a
//! [`CecpMove`]: coordinate notation or SAN, read without a position.
//!
//! ```
//! use rookery_uci::cecp::{Command, Feature, Flag, Message};
//! use std::time::Duration;
//!
//! let msg = Message::parse("feature usermove=1 myname=\"Fairy-Max 5.0b\" done=1");
//! let Message::Feature(list) = &msg else { panic!() };
//! assert_eq!(list[0], Feature::Flag(Flag::UserMove, true));
//! assert_eq!(list[1], Feature::MyName("Fairy-Max 5.0b".into()));
//! assert_eq!(list[2], Feature::Done(true));
//!
//! let Message::Move(m) = Message::parse("move e7e5") else { panic!() };
//! let pos = rookery_core::Position::startpos().after(
//!     "e2e4".parse::<rookery_uci::cecp::CecpMove>()?.to_move(&rookery_core::Position::startpos())?,
//! );
//! assert!(m.to_move(&pos).is_ok());
//!
//! let level = Command::Level { moves: 0, base: Duration::from_secs(10), inc: Duration::from_millis(100) };
//! assert_eq!(level.to_string(), "level 0 0:10 0.1");
//! assert_eq!(Command::parse("level 0 0:10 0.1"), level);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod command;
mod feature;
pub mod host;
mod message;
mod notation;
mod result;

pub use command::{Command, EditCommand};
pub use feature::{
    EngineOption, Feature, FeatureValue, Features, Flag, OptionKind, ParseOptionError,
};
pub use message::{Message, Tell, Thinking, MATE_SCORE};
pub use notation::{CecpMove, IllegalCecpMoveError, Notation, ParseCecpMoveError};
pub use result::{result_text, ResultClaim};
