//! One game between two chess programs.
//!
//! [`game::play_game`] is the rules and clock authority over two
//! [`player::Player`]s: a UCI engine through `rookery-uci`'s host, the
//! built-in engine over the same protocol in process, an xboard engine
//! ([`xboard`]), or a network client of the Argus referee (`rookery-argus`).
//! It produces a [`record::GameRecord`], plain data from which PGN is
//! written; [`adjudicate`] is a pure function of that record and
//! [`pvcheck`] checks the engines' principal variations. This crate plays
//! one game and nothing more, with threads and no async runtime: events of
//! many games (journals, schedules, standings, SPRT) are `rookery-event`'s,
//! the network and the spectator page `rookery-argus`'s.
//!
//! ```no_run
//! use rookery_game::game::{play_game, GameSetup};
//! use rookery_game::player::EngineConfig;
//! use rookery_uci::host::Timeouts;
//! use std::time::Duration;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut engine = EngineConfig::builtin();
//! engine.apply("tc=1+0.01")?;
//! let mut white = engine.start(Timeouts::default(), None)?;
//! let mut black = engine.start(Timeouts::default(), None)?;
//! let setup = GameSetup {
//!     event: "demo".into(),
//!     margin: [Duration::from_millis(50); 2],
//!     ..GameSetup::new(0, [engine.tc, engine.tc])
//! };
//! let game = play_game(&setup, &mut white, &mut black, None, &mut |_| Ok(()))?;
//! print!("{}", game.record.pgn_text()?);
//! # Ok(()) }
//! ```

pub mod adjudicate;
pub mod clock;
pub mod engine;
pub mod game;
pub mod player;
mod process;
pub mod pvcheck;
pub mod record;
pub mod uci;
pub mod xboard;
