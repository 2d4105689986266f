//! One module per subcommand.

pub mod annotate;
pub mod bench;
pub mod book;
pub mod db;
pub mod engines;
pub mod epd;
pub mod guide;
pub mod matches;
pub mod merge;
pub mod perft;
pub mod pgn;
pub mod progress;
pub mod referee;
pub mod report;
pub mod shard;
pub mod show;
pub mod suite;
pub mod uci;
pub mod verbs;
