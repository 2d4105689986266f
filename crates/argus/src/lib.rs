//! Argus, the network tournament referee of the EPD spec (§3.2, §8).
//!
//! Chess programs on any machine connect over TCP and speak EPD records:
//! the referee sends `refcom` commands, clients send `refreq` requests
//! ([`protocol`]). Every game runs through the one game loop
//! ([`rookery_game::game::play_game`]) with a [`net::NetPlayer`] for each
//! client, and every event through `rookery-event`'s runner, so the rules,
//! clocks, endings, journal and PGN are the same as for local matches.
//!
//! - [`protocol`]: typed records, parse and format, 4,096-byte lines.
//! - [`net`]: the network client as a [`rookery_game::player::Player`].
//! - [`config`]: the event file (`[event]`, `[[player]]`).
//! - [`log`]: every record sent and received, per player and per event.
//! - [`client`]: the adapter that makes any UCI engine a client.
//! - `server` (feature `server`): the tokio TCP server running an event,
//!   its journal, `--resume` and serial mode.
//! - `web` (feature `server`): the live spectator page and its JSON and PGN
//!   feeds (axum).
//! - [`standby`]: a standby referee following the primary's journal.
//!
//! Conventions where the spec is silent: a client signs on with `refreq
//! sign_on; tcsi "ADDRESS" "NAME"; Token "SECRET";` (the private opcode
//! `Token`, upper case as §5.3 prescribes); every record of the referee
//! names its receiver with `tcri` and carries `cc` (time *used* by White
//! and Black, §6.6) while a game runs; `inform` carries the Seven Tag
//! Roster and `TimeControl` before the first move, and `Result` and
//! `Termination` after the last; a fault's reason is the comment `c0`.

pub mod client;
pub mod config;
pub mod log;
pub mod net;
pub mod protocol;
#[cfg(feature = "server")]
pub mod server;
pub mod standby;
#[cfg(feature = "server")]
pub mod web;
