//! One module per subcommand.

pub mod bench;
pub mod epd;
pub mod perft;
pub mod pgn;
pub mod show;
pub mod uci;
