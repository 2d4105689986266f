//! Games between chess programs.
//!
//! One game core serves every way rookery plays a game: [`game::play_game`]
//! is the rules and clock authority over two [`player::Player`]s (a UCI
//! engine through `rookery-uci`'s host, or the built-in engine over the same
//! protocol in process, or an xboard engine, [`xboard`]). It produces a [`record::GameRecord`], plain data
//! from which PGN is written; [`adjudicate`] is a pure function of that
//! record; [`journal`] keeps every move on disk before the next is asked
//! for, so that a match killed at any point resumes mid-game. On top of it,
//! [`tournament`] runs local matches (`rookery match`): schedules of pairs,
//! gauntlets and round-robins over an opening book, with games in parallel,
//! statistics and SPRT ([`stats`]), spread over several machines in shards
//! that pool their SPRT ([`pool`]) and are merged back into one match
//! ([`merge`]); and [`argus`], the network referee of
//! the EPD spec, runs refereed events between programs on any machine, each
//! client a [`player::Player`] of the same game loop (its TCP server and the
//! live spectator page behind the `server` feature, so the core builds
//! without tokio and axum).
//!
//! ```no_run
//! use rookery_referee::game::{play_game, GameSetup};
//! use rookery_referee::player::EngineConfig;
//! use rookery_uci::host::Timeouts;
//! use std::time::Duration;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut engine = EngineConfig::builtin();
//! engine.apply("tc=1+0.01")?;
//! let mut white = engine.start(Timeouts::default(), None)?;
//! let mut black = engine.start(Timeouts::default(), None)?;
//! let setup = GameSetup {
//!     number: 0,
//!     event: "demo".into(),
//!     site: "here".into(),
//!     round: "1".into(),
//!     start: rookery_core::Position::startpos(),
//!     opening: Vec::new(),
//!     tc: [engine.tc, engine.tc],
//!     margin: [Duration::from_millis(50); 2],
//!     rules: Default::default(),
//!     stall_timeout: Duration::from_secs(60),
//!     date: None,
//!     history: None,
//!     stop: Default::default(),
//! };
//! let game = play_game(&setup, &mut white, &mut black, None, &mut |_| Ok(()))?;
//! print!("{}", game.record.pgn_text()?);
//! # Ok(()) }
//! ```

pub mod adjudicate;
pub mod argus;
pub mod book;
pub mod clock;
pub mod game;
pub mod journal;
pub mod knockout;
pub mod merge;
pub mod player;
pub mod pool;
pub mod pvcheck;
pub mod record;
pub mod runner;
pub mod schedule;
pub mod standings;
pub mod stats;
pub mod tournament;
pub mod xboard;
