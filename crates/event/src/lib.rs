//! Events of many games, each played by `rookery-game`'s one game loop.
//!
//! [`runner`] is the one runner of an event: it owns the plan, keeps the
//! [`journal`] (every move on disk before the next is asked for, so that
//! an event killed at any point resumes mid-game), writes the outputs and
//! the [`standings`]. Around it: [`schedule`]s of pairs, gauntlets and
//! round-robins over an opening [`book`], [`knockout`] brackets,
//! statistics and SPRT ([`stats`]), matches spread over several machines
//! in shards that pool their SPRT ([`pool`]) and are merged back into one
//! match ([`merge`]). [`tournament`] drives the runner with threads for
//! local matches (`rookery match`); `rookery-argus` drives it with tokio
//! for the network referee.

pub mod book;
pub mod journal;
pub mod knockout;
pub mod merge;
pub mod pool;
pub mod runner;
pub mod schedule;
pub mod standings;
pub mod stats;
pub mod tournament;
