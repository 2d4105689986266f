//! Chess rules for rookery: squares and bitboards, legal move generation,
//! making moves with incremental Zobrist keys, FEN (with Shredder-FEN and
//! X-FEN castling), SAN and UCI move notation, perft, draw rules, Chess960
//! and the Polyglot opening-book key ([`polyglot`]).
//!
//! No I/O and no dependencies beyond `std`. (The ordered-parallel helper
//! every crate shares lives in `rookery-io`, with the files it serves.)
//!
//! ```
//! use rookery_core::{perft, CastlingMode, Position, San, SanPlus, UciMove};
//!
//! let mut pos = Position::startpos();
//! for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"] {
//!     let m = san.parse::<San>()?.to_move(&pos)?;
//!     pos.play_unchecked(m);
//! }
//! assert_eq!(pos.fen(), "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 1 4");
//! let m = pos.legal_moves()[0];
//! println!("{} = {}", SanPlus::from_move(&pos, m), UciMove::from_move(&pos, m, CastlingMode::Standard));
//! assert_eq!(perft(&Position::startpos(), 4), 197_281);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod attacks;
mod bitboard;
pub mod chess960;
pub mod fen;
mod game;
mod movegen;
mod moves;
mod perft;
pub mod polyglot;
mod position;
pub mod san;
pub mod score;
mod types;
pub mod uci;
mod zobrist;

pub use bitboard::Bitboard;
pub use fen::{CastlingNotation, Fen, FenError, Mode, ParseFenError, PositionError, Setup};
pub use game::{Game, Outcome, Termination, FIVEFOLD_REPETITIONS, THREEFOLD_REPETITIONS};
pub use moves::{Move, MoveKind, MoveList, MAX_MOVES};
pub use perft::{
    divide, divide_parallel, parse_perft_suite, perft, perft_full, perft_parallel, CaseOutcome,
    PerftCase, PerftSuiteError,
};
pub use position::{IllegalMoveError, Position, FIFTY_MOVE_HALFMOVES, SEVENTY_FIVE_MOVE_HALFMOVES};
pub use san::{Leniency, San, SanError, SanPlus, Suffix};
pub use score::{ParseScoreError, Score};
pub use types::{CastlingSide, Color, File, ParseSquareError, Piece, Rank, Role, Square};
pub use uci::{CastlingMode, UciMove};
