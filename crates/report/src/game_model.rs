//! The data an annotated-games page is drawn from: plain values, filled in by
//! `rookery-analysis` (which judges the moves) and drawn by
//! [`crate::game_page`]. Nothing here knows chess rules or engines.

use serde::{Deserialize, Serialize};

/// Everything one page shows: the run and its games, in input order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GamePage {
    /// The page title.
    pub title: String,
    /// The engine that judged the moves (its `id name`).
    pub engine: String,
    /// The search limits, in words (e.g. `depth 12`).
    pub limits: String,
    /// The games.
    pub games: Vec<PageGame>,
}

/// How bad a move was.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveMark {
    /// `?!`
    Inaccuracy,
    /// `?`
    Mistake,
    /// `??`
    Blunder,
}

impl MoveMark {
    /// The sign written after the move (`?!`, `?`, `??`).
    pub fn sign(self) -> &'static str {
        match self {
            MoveMark::Inaccuracy => "?!",
            MoveMark::Mistake => "?",
            MoveMark::Blunder => "??",
        }
    }

    /// The word for it, capitalised (`Inaccuracy`, ...).
    pub fn word(self) -> &'static str {
        match self {
            MoveMark::Inaccuracy => "Inaccuracy",
            MoveMark::Mistake => "Mistake",
            MoveMark::Blunder => "Blunder",
        }
    }
}

/// One game of the page.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageGame {
    /// Index in the input, from 1.
    pub index: usize,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Event, site, date and round in one line.
    pub about: String,
    /// The result (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub result: String,
    /// Why the game is not annotated (engine failure, unreadable game), if so.
    pub error: Option<String>,
    /// The mainline moves in order.
    pub moves: Vec<PageMove>,
    /// White's figures.
    pub white_summary: PlayerSummary,
    /// Black's figures.
    pub black_summary: PlayerSummary,
}

/// One mainline move.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageMove {
    /// Ply number in the game, from 1.
    pub ply: usize,
    /// Its move number with dots, `12.` or `12...`.
    pub number: String,
    /// Whether White played it.
    pub by_white: bool,
    /// The move in SAN.
    pub san: String,
    /// The evaluation after the move as written in the PGN (`0.34`, `#-3`).
    pub eval: Option<String>,
    /// White's winning chances after the move, in percent (0..=100), for the graph.
    pub white_win: Option<f64>,
    /// The judgement, if the move was judged worse than an inaccuracy threshold.
    pub mark: Option<MoveMark>,
    /// Words on the move (e.g. `walks into mate in 3`).
    pub note: Option<String>,
    /// The engine's better lines from the position before the move, best first.
    pub better: Vec<PageLine>,
    /// A diagram of the position before the move (given at blunders).
    pub diagram: Option<Diagram>,
}

/// A line of moves with its evaluation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageLine {
    /// The moves in SAN with numbers (`14. Nf3 Nd7 15. Qe2`).
    pub moves: String,
    /// The evaluation after its first move, as written in the PGN.
    pub eval: String,
}

/// A board with arrows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Diagram {
    /// The position (FEN).
    pub fen: String,
    /// The move played, as from and to squares (`e2`, `e4`).
    pub played: Option<(String, String)>,
    /// The engine's best move, as from and to squares.
    pub best: Option<(String, String)>,
}

/// One player's figures in one game.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerSummary {
    /// Moves judged (after the book plies).
    pub moves: u32,
    /// Average centipawn loss, when a move was judged.
    pub acpl: Option<u32>,
    /// Accuracy in percent, when a move was judged.
    pub accuracy: Option<f64>,
    /// `?!` count.
    pub inaccuracies: u32,
    /// `?` count.
    pub mistakes: u32,
    /// `??` count.
    pub blunders: u32,
}
