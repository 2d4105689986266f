//! Judging moves from evaluations. Every number of the model is here.
//!
//! A centipawn score becomes winning chances with a logistic curve,
//! `win% = 100 / (1 + exp(-WIN_SLOPE * cp))`, the shape and slope lichess
//! publishes (fitted to its games). A move is judged by how far it lowers
//! the mover's winning chances, so that losing 300 cp in a position that
//! stays won is not a blunder. A mate counts as 100% (or 0%).

use crate::analyst::Score;
use rookery_core::Color;
use std::fmt;

/// Slope of the logistic curve from centipawns to winning chances.
pub const WIN_SLOPE: f64 = 0.003_682_08;
/// Centipawn scores are capped at plus or minus this before any use (winning
/// chances and centipawn loss); a mate counts as this much.
pub const CP_CEILING: i32 = 1000;
/// A drop in the mover's winning chances (percentage points) from which a
/// move is an inaccuracy (`?!`). Lichess's 0.1 on its -1..1 scale.
pub const INACCURACY_DROP: f64 = 5.0;
/// ... a mistake (`?`). Lichess's 0.2 on its -1..1 scale.
pub const MISTAKE_DROP: f64 = 10.0;
/// ... a blunder (`??`). Lichess's 0.3 on its -1..1 scale.
pub const BLUNDER_DROP: f64 = 15.0;
/// Accuracy of one move: `ACCURACY_SCALE * exp(-ACCURACY_DECAY * drop) -
/// ACCURACY_OFFSET`, clamped to 0..=100 (lichess's published fit); a
/// player's accuracy is the mean over the moves judged.
pub const ACCURACY_SCALE: f64 = 103.1668;
/// See [`ACCURACY_SCALE`].
pub const ACCURACY_DECAY: f64 = 0.04354;
/// See [`ACCURACY_SCALE`].
pub const ACCURACY_OFFSET: f64 = 3.1669;

/// An evaluation from White's point of view (the `[%eval]` convention).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns, positive when White is better.
    Cp(i32),
    /// A forced mate.
    Mate {
        /// Who mates.
        winner: Color,
        /// In how many moves (0: the position is checkmate).
        moves: u32,
    },
}

impl Eval {
    /// The evaluation of an engine `score` given for the side to move `turn`.
    /// A mate score of 0 means the side to move is mated.
    pub fn from_score(score: Score, turn: Color) -> Eval {
        match score {
            Score::Cp(c) => Eval::Cp(if turn == Color::White {
                c
            } else {
                c.saturating_neg()
            }),
            Score::Mate(n) if n > 0 => Eval::Mate {
                winner: turn,
                moves: n.unsigned_abs(),
            },
            Score::Mate(n) => Eval::Mate {
                winner: !turn,
                moves: n.unsigned_abs(),
            },
        }
    }

    /// The evaluation for the side to move `turn`, as an engine score.
    pub fn to_score(self, turn: Color) -> Score {
        match self {
            Eval::Cp(c) if turn == Color::White => Score::Cp(c),
            Eval::Cp(c) => Score::Cp(c.saturating_neg()),
            Eval::Mate { winner, moves } => {
                let m = i32::try_from(moves).unwrap_or(i32::MAX);
                Score::Mate(if winner == turn && m > 0 { m } else { -m })
            }
        }
    }

    /// The mover's centipawns: capped at [`CP_CEILING`], a mate counting as the ceiling.
    pub fn cp_for(self, side: Color) -> i32 {
        match self {
            Eval::Cp(c) => {
                let c = c.clamp(-CP_CEILING, CP_CEILING);
                if side == Color::White {
                    c
                } else {
                    -c
                }
            }
            Eval::Mate { winner, .. } if winner == side => CP_CEILING,
            Eval::Mate { .. } => -CP_CEILING,
        }
    }

    /// `side`'s winning chances in percent (0..=100).
    pub fn win_percent(self, side: Color) -> f64 {
        match self {
            Eval::Mate { winner, .. } => {
                if winner == side {
                    100.0
                } else {
                    0.0
                }
            }
            Eval::Cp(_) => {
                let cp = f64::from(self.cp_for(side));
                100.0 / (1.0 + (-WIN_SLOPE * cp).exp())
            }
        }
    }

    /// The moves to a mate `side` gives, if it has one.
    pub fn mates_for(self, side: Color) -> Option<u32> {
        match self {
            Eval::Mate { winner, moves } if winner == side => Some(moves),
            _ => None,
        }
    }
}

/// As written in `[%eval ...]`: pawns with two decimals (`0.34`, `-1.05`),
/// or `#3` / `#-3` (Black mates), `#0` for a checkmate on the board.
impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Eval::Cp(c) => {
                let sign = if c < 0 { "-" } else { "" };
                let a = c.unsigned_abs();
                write!(f, "{sign}{}.{:02}", a / 100, a % 100)
            }
            Eval::Mate { moves: 0, .. } => f.write_str("#0"),
            Eval::Mate {
                winner: Color::White,
                moves,
            } => write!(f, "#{moves}"),
            Eval::Mate {
                winner: Color::Black,
                moves,
            } => write!(f, "#-{moves}"),
        }
    }
}

/// How bad a move was.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// `?!`: the mover's winning chances fell by [`INACCURACY_DROP`] or more.
    Inaccuracy,
    /// `?`: by [`MISTAKE_DROP`] or more.
    Mistake,
    /// `??`: by [`BLUNDER_DROP`] or more.
    Blunder,
}

impl Class {
    /// The class of a drop in winning chances (percentage points), if any.
    pub fn of_drop(drop: f64) -> Option<Class> {
        if drop >= BLUNDER_DROP {
            Some(Class::Blunder)
        } else if drop >= MISTAKE_DROP {
            Some(Class::Mistake)
        } else if drop >= INACCURACY_DROP {
            Some(Class::Inaccuracy)
        } else {
            None
        }
    }

    /// Its NAG: 6 (`?!`), 2 (`?`), 4 (`??`).
    pub fn nag(self) -> rookery_pgn::Nag {
        match self {
            Class::Inaccuracy => rookery_pgn::Nag::DUBIOUS_MOVE,
            Class::Mistake => rookery_pgn::Nag::MISTAKE,
            Class::Blunder => rookery_pgn::Nag::BLUNDER,
        }
    }

    /// The word, capitalised.
    pub fn word(self) -> &'static str {
        match self {
            Class::Inaccuracy => "Inaccuracy",
            Class::Mistake => "Mistake",
            Class::Blunder => "Blunder",
        }
    }
}

/// Something about mates a move did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MateNote {
    /// The mover had a forced mate in this many moves and the move lets it go.
    MissedMate(u32),
    /// The mover was not being mated and now is, in this many moves.
    WalksIntoMate(u32),
}

impl fmt::Display for MateNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MateNote::MissedMate(n) => write!(f, "misses mate in {n}"),
            MateNote::WalksIntoMate(n) => write!(f, "walks into mate in {n}"),
        }
    }
}

/// The judgement of one move.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Who played it.
    pub mover: Color,
    /// How far the mover's winning chances fell, in percentage points (0 if they rose).
    pub drop: f64,
    /// Centipawns lost (0 if none), from the capped scores.
    pub cp_loss: i32,
    /// The move's accuracy in percent.
    pub accuracy: f64,
    /// Its class, if it is at least an inaccuracy.
    pub class: Option<Class>,
    /// A missed mate or a walk into mate.
    pub mate: Option<MateNote>,
}

/// Judges a move by `mover` from the evaluations before and after it.
pub fn judge(before: Eval, after: Eval, mover: Color) -> Verdict {
    let drop = (before.win_percent(mover) - after.win_percent(mover)).max(0.0);
    let cp_loss = (before.cp_for(mover) - after.cp_for(mover)).max(0);
    let accuracy =
        (ACCURACY_SCALE * (-ACCURACY_DECAY * drop).exp() - ACCURACY_OFFSET).clamp(0.0, 100.0);
    let mate = match (before.mates_for(mover), after.mates_for(mover)) {
        (Some(n), None) => Some(MateNote::MissedMate(n)),
        _ => match (before.mates_for(!mover), after.mates_for(!mover)) {
            (None, Some(n)) => Some(MateNote::WalksIntoMate(n)),
            _ => None,
        },
    };
    Verdict {
        mover,
        drop,
        cp_loss,
        accuracy,
        class: Class::of_drop(drop),
        mate,
    }
}

/// One player's figures over a game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerFigures {
    /// Moves judged.
    pub moves: u32,
    /// Sum of the centipawn losses.
    pub cp_loss_sum: i64,
    /// Sum of the move accuracies.
    pub accuracy_sum: f64,
    /// `?!` count.
    pub inaccuracies: u32,
    /// `?` count.
    pub mistakes: u32,
    /// `??` count.
    pub blunders: u32,
}

impl PlayerFigures {
    /// Adds a judged move.
    pub fn add(&mut self, v: &Verdict) {
        self.moves += 1;
        self.cp_loss_sum += i64::from(v.cp_loss);
        self.accuracy_sum += v.accuracy;
        match v.class {
            Some(Class::Inaccuracy) => self.inaccuracies += 1,
            Some(Class::Mistake) => self.mistakes += 1,
            Some(Class::Blunder) => self.blunders += 1,
            None => {}
        }
    }

    /// Average centipawn loss, rounded half up; `None` with no move judged.
    pub fn acpl(&self) -> Option<u32> {
        if self.moves == 0 {
            return None;
        }
        let m = i64::from(self.moves);
        u32::try_from((2 * self.cp_loss_sum + m) / (2 * m)).ok()
    }

    /// Mean accuracy in percent; `None` with no move judged.
    pub fn accuracy(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.accuracy_sum / f64::from(self.moves))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_forms() {
        assert_eq!(Eval::Cp(34).to_string(), "0.34");
        assert_eq!(Eval::Cp(-5).to_string(), "-0.05");
        assert_eq!(Eval::Cp(-105).to_string(), "-1.05");
        assert_eq!(Eval::Cp(0).to_string(), "0.00");
        let m = |winner, moves| Eval::Mate { winner, moves };
        assert_eq!(m(Color::White, 3).to_string(), "#3");
        assert_eq!(m(Color::Black, 3).to_string(), "#-3");
        assert_eq!(m(Color::Black, 0).to_string(), "#0");
    }

    #[test]
    fn scores_turn_to_whites_view_and_back() {
        for turn in [Color::White, Color::Black] {
            for s in [
                Score::Cp(50),
                Score::Cp(-7),
                Score::Mate(2),
                Score::Mate(-4),
            ] {
                assert_eq!(Eval::from_score(s, turn).to_score(turn), s);
            }
        }
        assert_eq!(Eval::from_score(Score::Cp(50), Color::Black), Eval::Cp(-50));
        assert_eq!(
            Eval::from_score(Score::Mate(-2), Color::Black),
            Eval::Mate {
                winner: Color::White,
                moves: 2
            }
        );
        // Mate 0: the side to move is mated.
        assert_eq!(
            Eval::from_score(Score::Mate(0), Color::White),
            Eval::Mate {
                winner: Color::Black,
                moves: 0
            }
        );
    }

    #[test]
    fn winning_chances_follow_the_curve() {
        assert!((Eval::Cp(0).win_percent(Color::White) - 50.0).abs() < 1e-9);
        let w = Eval::Cp(300).win_percent(Color::White);
        assert!((w - 75.1).abs() < 0.1, "{w}");
        assert!((Eval::Cp(300).win_percent(Color::Black) - (100.0 - w)).abs() < 1e-9);
        // Capped: 5000 cp is worth as much as 1000.
        assert_eq!(
            Eval::Cp(5000).win_percent(Color::White),
            Eval::Cp(1000).win_percent(Color::White)
        );
    }

    #[test]
    fn a_drop_in_a_won_position_is_no_blunder() {
        // 900 -> 600 cp: 300 cp lost, still winning.
        let v = judge(Eval::Cp(900), Eval::Cp(600), Color::White);
        assert_eq!(v.cp_loss, 300);
        assert!(v.class.is_none_or(|c| c < Class::Mistake), "{v:?}");
        // 100 -> -200 cp: the same loss from an equal position is a blunder.
        let v = judge(Eval::Cp(100), Eval::Cp(-200), Color::White);
        assert_eq!(v.class, Some(Class::Blunder), "{v:?}");
        // Black's view: the same numbers mirrored.
        let v = judge(Eval::Cp(-100), Eval::Cp(200), Color::Black);
        assert_eq!(v.class, Some(Class::Blunder));
        assert_eq!(v.cp_loss, 300);
        // A gain is no loss.
        let v = judge(Eval::Cp(0), Eval::Cp(80), Color::White);
        assert_eq!((v.cp_loss, v.class), (0, None));
        assert!(v.accuracy > 99.0);
    }

    #[test]
    fn mates_are_named() {
        let mate = |winner, moves| Eval::Mate { winner, moves };
        let v = judge(mate(Color::White, 2), Eval::Cp(150), Color::White);
        assert_eq!(v.mate, Some(MateNote::MissedMate(2)));
        assert_eq!(v.class, Some(Class::Blunder));
        // A longer mate is not a missed one.
        let v = judge(mate(Color::White, 2), mate(Color::White, 4), Color::White);
        assert_eq!((v.mate, v.class), (None, None));
        let v = judge(Eval::Cp(20), mate(Color::Black, 3), Color::White);
        assert_eq!(v.mate, Some(MateNote::WalksIntoMate(3)));
        assert_eq!(v.class, Some(Class::Blunder));
        // Already lost: walking into mate costs little.
        let v = judge(Eval::Cp(-900), mate(Color::Black, 3), Color::White);
        assert_eq!(v.mate, Some(MateNote::WalksIntoMate(3)));
        assert!(v.class.is_none_or(|c| c < Class::Mistake), "{v:?}");
        // Delivering mate keeps the mate.
        let v = judge(mate(Color::White, 1), mate(Color::White, 0), Color::White);
        assert_eq!((v.mate, v.class), (None, None));
    }

    #[test]
    fn figures_average() {
        let mut f = PlayerFigures::default();
        assert_eq!(f.acpl(), None);
        for (b, a) in [(0, -10), (0, -25), (30, 30)] {
            f.add(&judge(Eval::Cp(b), Eval::Cp(a), Color::White));
        }
        // (10 + 25 + 0) / 3 = 11.67 -> 12
        assert_eq!(f.acpl(), Some(12));
        assert_eq!(f.moves, 3);
    }
}
