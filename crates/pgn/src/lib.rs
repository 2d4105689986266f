//! Streaming PGN reading and writing, game trees, tag semantics, PGN <-> EPD
//! conversion, Polyglot opening books built from games ([`book`]), and the
//! `[%clk]`/`[%eval]` commands of comments ([`commands`]).
//!
//! Two ways to read: [`Reader`] with your own [`Visitor`] (borrowed tokens, no
//! allocation per move: the fast path), or [`Games`], an iterator of
//! [`ReadGame`]s whose [`Game`] trees have every move checked against the
//! rules (in variations too). [`write_game`] writes export format.
//!
//! ```
//! use rookery_pgn::{game_to_string, Games, GameResult};
//!
//! let pgn = "[White \"Morphy\"]\n1. e4 e5 2. Nf3 d6 {Philidor} (2... Nc6 3. Bb5!) 3. d4 *\n";
//! let read = Games::new(pgn.as_bytes()).next().unwrap()?;
//! assert!(read.error.is_none());
//! let game = &read.game;
//! assert_eq!(game.tags.get("White"), Some("Morphy"));
//! assert_eq!(game.mainline.nodes.len(), 5);
//! assert_eq!(game.result, GameResult::Unknown);
//! let text = game_to_string(game);
//! assert!(text.contains("2. Nf3 d6 {Philidor} (2... Nc6 3. Bb5 $1) 3. d4 *"));
//! // Writing and reading again gives the same tree; the tags gain the Seven
//! // Tag Roster (with "?" where it was missing) in export order.
//! let again = Games::new(text.as_bytes()).next().unwrap()?.game;
//! assert_eq!(again.mainline, game.mainline);
//! assert_eq!(again.tags, game.exported_tags());
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod book;
pub mod collection;
pub mod commands;
pub mod convert;
pub mod copy;
pub mod dedupe;
pub mod eco;
pub mod ending;
pub mod explorer;
pub mod filter;
pub mod game;
pub mod keyset;
pub mod partition;
pub mod reader;
pub mod sort;
pub mod source;
pub mod split;
pub mod stream;
pub mod tags;
pub mod tree;
pub mod types;
pub mod writer;

pub use ending::{Ending, ResultSource};
pub use game::{
    Detail, Game, GameBuilder, GameError, GameErrorKind, GameId, Games, Line, Node, ReadGame, Tags,
    Warning, WarningKind,
};
pub use reader::{EndState, Problem, Reader, Skip, Visitor};
pub use types::{GameResult, Location, Nag, RawComment, RawTag};
pub use writer::{game_to_string, game_to_string_whole_comments, write_game};
