//! Game state over a sequence of moves: repetitions, the 50/75-move rules,
//! and how a game ends.

use crate::moves::Move;
use crate::position::{IllegalMoveError, Position};
use crate::types::Color;

/// Occurrences of one position that let a draw be claimed (threefold repetition).
pub const THREEFOLD_REPETITIONS: usize = 3;

/// Occurrences of one position that draw the game automatically (fivefold repetition).
pub const FIVEFOLD_REPETITIONS: usize = 5;

/// How a game ends, or may be claimed to end.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can mate.
    InsufficientMaterial,
    /// 75 moves by each side without capture or pawn move: drawn automatically.
    SeventyFiveMoves,
    /// The same position for the fifth time: drawn automatically.
    FivefoldRepetition,
    /// 50 moves by each side without capture or pawn move: a draw may be claimed.
    FiftyMoves,
    /// The same position for the third time: a draw may be claimed.
    ThreefoldRepetition,
}

impl Termination {
    /// Whether the game is over without anyone claiming anything.
    pub fn is_automatic(self) -> bool {
        !matches!(
            self,
            Termination::FiftyMoves | Termination::ThreefoldRepetition
        )
    }
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Decisive {
        /// The winner.
        winner: Color,
    },
    /// A draw.
    Draw,
}

impl Outcome {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Decisive {
                winner: Color::White,
            } => "1-0",
            Outcome::Decisive {
                winner: Color::Black,
            } => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
}

/// A position with the history needed for repetition draws.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    moves: Vec<Move>,
    /// Zobrist keys of every position so far, the current one last.
    keys: Vec<u64>,
}

impl Game {
    /// A game starting from `start`.
    pub fn new(start: Position) -> Game {
        let key = start.hash();
        Game {
            pos: start.clone(),
            start,
            moves: Vec::new(),
            keys: vec![key],
        }
    }

    /// The starting position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plays a legal move.
    ///
    /// # Errors
    /// [`IllegalMoveError`] if it is not legal.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMoveError> {
        self.pos.play(m)?;
        self.moves.push(m);
        self.keys.push(self.pos.hash());
        Ok(())
    }

    /// Plays the null move (`--` in PGN, `0000` in UCI): the side to move
    /// passes, the en-passant square is cleared and the half-move clock
    /// counts on. Not a legal move; for the games that record one
    /// (analysis, PGN's `--`), as python-chess plays `Move.null()`.
    pub fn play_null(&mut self) {
        self.pos.play_unchecked(Move::NULL);
        self.moves.push(Move::NULL);
        self.keys.push(self.pos.hash());
    }

    /// Plays `m`, the null move included ([`Game::play`] or
    /// [`Game::play_null`]).
    ///
    /// # Errors
    /// [`IllegalMoveError`] if `m` is neither legal nor the null move.
    pub fn play_or_null(&mut self, m: Move) -> Result<(), IllegalMoveError> {
        if m.is_null() {
            self.play_null();
            Ok(())
        } else {
            self.play(m)
        }
    }

    /// How many times the current position has occurred (1 = first time).
    pub fn repetitions(&self) -> usize {
        let current = self.pos.hash();
        // Only positions since the last capture or pawn move can repeat, and
        // only those with the same side to move (every second one).
        let window = (self.pos.halfmoves() as usize).min(self.keys.len() - 1);
        self.keys[self.keys.len() - 1 - window..]
            .iter()
            .rev()
            .step_by(2)
            .filter(|&&k| k == current)
            .count()
    }

    /// Whether the current position has occurred at least
    /// [`THREEFOLD_REPETITIONS`] times: a draw may be claimed.
    pub fn is_threefold_repetition(&self) -> bool {
        self.repetitions() >= THREEFOLD_REPETITIONS
    }

    /// Whether the current position has occurred at least
    /// [`FIVEFOLD_REPETITIONS`] times: the game is drawn automatically.
    pub fn is_fivefold_repetition(&self) -> bool {
        self.repetitions() >= FIVEFOLD_REPETITIONS
    }

    /// How the game stands: `None` while it goes on with nothing to claim;
    /// otherwise the first rule that applies, mate and stalemate first,
    /// automatic draws before claimable ones.
    pub fn status(&self) -> Option<Termination> {
        let pos = &self.pos;
        if !pos.has_legal_move() {
            return Some(if pos.is_check() {
                Termination::Checkmate
            } else {
                Termination::Stalemate
            });
        }
        if pos.is_insufficient_material() {
            return Some(Termination::InsufficientMaterial);
        }
        let reps = self.repetitions();
        if pos.is_seventy_five_moves() {
            return Some(Termination::SeventyFiveMoves);
        }
        if reps >= FIVEFOLD_REPETITIONS {
            return Some(Termination::FivefoldRepetition);
        }
        if pos.is_fifty_moves() {
            return Some(Termination::FiftyMoves);
        }
        if reps >= THREEFOLD_REPETITIONS {
            return Some(Termination::ThreefoldRepetition);
        }
        None
    }

    /// The outcome if the game is over (automatically), else `None`.
    pub fn outcome(&self) -> Option<Outcome> {
        match self.status()? {
            Termination::Checkmate => Some(Outcome::Decisive {
                winner: self.pos.turn().other(),
            }),
            t if t.is_automatic() => Some(Outcome::Draw),
            _ => None,
        }
    }
}
