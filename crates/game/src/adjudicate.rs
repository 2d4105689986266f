//! Adjudication: ending a game early on the engines' own scores or a move
//! limit, as a pure function of the game record.
//!
//! The rules follow fastchess's and cutechess-cli's conventions:
//!
//! - **draw** `movenumber=N movecount=C score=S`: from full move N on (the
//!   move numbers of the game, which an opening FEN may start above 1), once
//!   both engines have scored within ±S centipawns for C consecutive moves
//!   each (2·C plies); a capture or pawn move starts the count again.
//! - **resign** `movecount=C score=S [twosided=true]`: an engine that has
//!   scored S centipawns or more below zero in each of its last C moves loses;
//!   two-sided, its opponent must also have scored at least +S in each of
//!   its last C moves.
//! - **maxmoves** `N`: a draw once both sides have made N moves.
//!
//! Book moves carry no score and break every count.
//!
//! ```
//! use rookery_game::adjudicate::{DrawRule, ResignRule};
//! let d: DrawRule = "movenumber=40 movecount=8 score=10".parse().unwrap();
//! assert_eq!(d.to_string(), "movenumber=40 movecount=8 score=10");
//! let r: ResignRule = "movecount=3 score=600 twosided=true".parse().unwrap();
//! assert!(r.two_sided);
//! ```

use crate::record::{GameOutcome, MoveRecord};
use rookery_core::{Color, Position, UciMove};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The draw rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawRule {
    /// The first full move at which a draw may be adjudicated.
    pub move_number: u32,
    /// Consecutive moves of each side within the score.
    pub move_count: u32,
    /// The score bound in centipawns.
    pub score: i32,
}

/// The resign rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignRule {
    /// Consecutive moves at or below −score.
    pub move_count: u32,
    /// The score bound in centipawns.
    pub score: i32,
    /// Both engines must agree.
    pub two_sided: bool,
}

/// Every adjudication rule of a match; all off by default.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    /// The draw rule.
    pub draw: Option<DrawRule>,
    /// The resign rule.
    pub resign: Option<ResignRule>,
    /// A draw after this many moves of each side.
    pub max_moves: Option<u32>,
    /// What an invalid draw claim costs: the game (`true`) or nothing, the
    /// game goes on (`false`, the default).
    #[serde(default)]
    pub invalid_claim_loses: bool,
    /// The mate checks of the engines' PVs (fastchess's `-check-mate-pvs`;
    /// see [`crate::pvcheck`]); the other PV checks are always made.
    #[serde(default)]
    pub check_mate_pvs: bool,
}

/// The referee's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The result.
    pub outcome: GameOutcome,
    /// The reason in words.
    pub reason: String,
}

/// A rule's words that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad adjudication word {word:?}: {reason}")]
pub struct RuleError {
    /// The word.
    pub word: String,
    /// What was expected.
    pub reason: &'static str,
}

fn words(s: &str) -> impl Iterator<Item = Result<(&str, &str), RuleError>> {
    s.split_whitespace().map(|w| {
        w.split_once('=').ok_or(RuleError {
            word: w.to_string(),
            reason: "expected key=value",
        })
    })
}

/// The error for the word `k=v`.
fn bad_word(k: &str, v: &str, reason: &'static str) -> RuleError {
    RuleError {
        word: format!("{k}={v}"),
        reason,
    }
}

fn num<T: FromStr>(k: &str, v: &str) -> Result<T, RuleError> {
    v.parse()
        .map_err(|_| bad_word(k, v, "expected a whole number"))
}

impl FromStr for DrawRule {
    type Err = RuleError;
    /// Reads `movenumber=N movecount=C score=S` (any order; movenumber
    /// defaults to 0, the other two are required).
    fn from_str(s: &str) -> Result<DrawRule, RuleError> {
        let (mut n, mut c, mut sc) = (0, None, None);
        for w in words(s) {
            let (k, v) = w?;
            match k {
                "movenumber" => n = num(k, v)?,
                "movecount" => c = Some(num(k, v)?),
                "score" => sc = Some(num::<i32>(k, v)?.abs()),
                _ => return Err(bad_word(k, v, "expected movenumber=, movecount= or score=")),
            }
        }
        match (c, sc) {
            (Some(move_count), Some(score)) if move_count > 0 => Ok(DrawRule {
                move_number: n,
                move_count,
                score,
            }),
            _ => Err(RuleError {
                word: s.to_string(),
                reason: "the draw rule needs movecount=C (at least 1) and score=S",
            }),
        }
    }
}

impl fmt::Display for DrawRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "movenumber={} movecount={} score={}",
            self.move_number, self.move_count, self.score
        )
    }
}

impl FromStr for ResignRule {
    type Err = RuleError;
    /// Reads `movecount=C score=S [twosided=true|false]`.
    fn from_str(s: &str) -> Result<ResignRule, RuleError> {
        let (mut c, mut sc, mut two) = (None, None, false);
        for w in words(s) {
            let (k, v) = w?;
            match k {
                "movecount" => c = Some(num(k, v)?),
                "score" => sc = Some(num::<i32>(k, v)?.abs()),
                "twosided" => {
                    two = match v {
                        "true" | "on" | "1" => true,
                        "false" | "off" | "0" => false,
                        _ => return Err(bad_word(k, v, "expected true or false")),
                    }
                }
                _ => return Err(bad_word(k, v, "expected movecount=, score= or twosided=")),
            }
        }
        match (c, sc) {
            (Some(move_count), Some(score)) if move_count > 0 => Ok(ResignRule {
                move_count,
                score,
                two_sided: two,
            }),
            _ => Err(RuleError {
                word: s.to_string(),
                reason: "the resign rule needs movecount=C (at least 1) and score=S",
            }),
        }
    }
}

impl fmt::Display for ResignRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "movecount={} score={}", self.move_count, self.score)?;
        if self.two_sided {
            f.write_str(" twosided=true")?;
        }
        Ok(())
    }
}

/// Whether a move was a capture or a pawn move (from its SAN: a capture has
/// `x`, a pawn move starts with a file letter).
fn irreversible(r: &MoveRecord) -> bool {
    r.san.contains('x') || r.san.starts_with(|c: char| ('a'..='h').contains(&c))
}

/// Decides whether the game of `moves`, played from `start`, is to be
/// adjudicated now. A pure function: the same record gives the same verdict.
pub fn adjudicate(rules: &Rules, start: &Position, moves: &[MoveRecord]) -> Option<Verdict> {
    let first_mover = start.turn();
    let mover = |i: usize| {
        if i % 2 == 0 {
            first_mover
        } else {
            first_mover.other()
        }
    };
    // Full move number of the position before ply i.
    let full_move = |i: usize| {
        let offset = usize::from(first_mover == Color::Black);
        start.fullmoves() as usize + (i + offset) / 2
    };

    if let Some(max) = rules.max_moves {
        if moves.len() >= 2 * max as usize {
            return Some(Verdict {
                outcome: GameOutcome::Draw,
                reason: format!("Draw by adjudication: {max} moves each"),
            });
        }
    }

    if let Some(rule) = rules.resign {
        if let Some(v) = resign(&rule, moves, mover) {
            return Some(v);
        }
    }

    if let Some(rule) = rules.draw {
        let need = 2 * rule.move_count as usize;
        let mut run = 0usize;
        for (i, r) in moves.iter().enumerate() {
            let within = !r.book
                && !irreversible(r)
                && full_move(i) >= rule.move_number as usize
                && r.score
                    .is_some_and(|s| s.as_cp().abs() <= i64::from(rule.score));
            run = if within { run + 1 } else { 0 };
        }
        if run >= need {
            return Some(Verdict {
                outcome: GameOutcome::Draw,
                reason: format!(
                    "Draw by adjudication: scores within {} cp for {} moves",
                    rule.score, rule.move_count
                ),
            });
        }
    }
    None
}

fn resign(
    rule: &ResignRule,
    moves: &[MoveRecord],
    mover: impl Fn(usize) -> Color,
) -> Option<Verdict> {
    let need = rule.move_count as usize;
    let bound = i64::from(rule.score);
    // The last `need` scores of each side, newest first.
    let last_of = |c: Color| -> Option<Vec<i64>> {
        let v: Vec<i64> = moves
            .iter()
            .enumerate()
            .rev()
            .filter(|(i, _)| mover(*i) == c)
            .take(need)
            .map(|(_, r)| {
                if r.book {
                    None
                } else {
                    r.score.map(|s| s.as_cp())
                }
            })
            .collect::<Option<Vec<_>>>()?;
        (v.len() == need).then_some(v)
    };
    for loser in [Color::White, Color::Black] {
        let Some(own) = last_of(loser) else { continue };
        if !own.iter().all(|&s| s <= -bound) {
            continue;
        }
        if rule.two_sided {
            let Some(theirs) = last_of(loser.other()) else {
                continue;
            };
            if !theirs.iter().all(|&s| s >= bound) {
                continue;
            }
        }
        let name = if loser == Color::White {
            "White"
        } else {
            "Black"
        };
        return Some(Verdict {
            outcome: GameOutcome::win_for(loser.other()),
            reason: format!("{name} resigns (adjudication)"),
        });
    }
    None
}

/// The UCI move `uci` is a null move (`0000`).
pub fn is_null(uci: &UciMove) -> bool {
    matches!(uci, UciMove::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::Score;

    fn mv(san: &str, score: Option<i32>) -> MoveRecord {
        MoveRecord {
            score: score.map(Score::Cp),
            ..MoveRecord::new(String::new(), san)
        }
    }

    fn quiet(n: usize, score: i32) -> Vec<MoveRecord> {
        (0..n).map(|_| mv("Nf3", Some(score))).collect()
    }

    /// Rules with only these draw and resign rules (written as on the
    /// command line).
    fn rules_of(draw: Option<&str>, resign: Option<&str>) -> Rules {
        Rules {
            draw: draw.map(|d| d.parse().unwrap()),
            resign: resign.map(|r| r.parse().unwrap()),
            ..Rules::default()
        }
    }

    #[test]
    fn draw_needs_both_sides_for_movecount_moves() {
        let rules = rules_of(Some("movenumber=1 movecount=3 score=10"), None);
        let start = Position::startpos();
        assert!(adjudicate(&rules, &start, &quiet(5, 5)).is_none());
        let v = adjudicate(&rules, &start, &quiet(6, 5)).unwrap();
        assert_eq!(v.outcome, GameOutcome::Draw);
        // One score outside the bound breaks the run.
        let mut m = quiet(6, 5);
        m[2].score = Some(Score::Cp(11));
        assert!(adjudicate(&rules, &start, &m).is_none());
        // A capture starts the count again.
        let mut m = quiet(6, 0);
        m[1].san = "Nxe5".into();
        assert!(adjudicate(&rules, &start, &m).is_none());
        m.extend(quiet(2, 0));
        assert!(adjudicate(&rules, &start, &m).is_some());
    }

    #[test]
    fn draw_move_number_counts_from_the_fen() {
        let rules = rules_of(Some("movenumber=40 movecount=1 score=10"), None);
        let early = Position::startpos();
        assert!(adjudicate(&rules, &early, &quiet(2, 0)).is_none());
        let late = Position::from_fen("4k3/8/8/8/8/8/8/4K2R w - - 0 40").unwrap();
        assert!(adjudicate(&rules, &late, &quiet(2, 0)).is_some());
    }

    #[test]
    fn resign_one_and_two_sided() {
        let one = rules_of(None, Some("movecount=2 score=500"));
        let start = Position::startpos();
        // White's moves are at even plies: white scores -600 twice.
        let m = vec![
            mv("e4", Some(-600)),
            mv("e5", Some(0)),
            mv("Nf3", Some(-600)),
            mv("Nc6", Some(0)),
        ];
        let v = adjudicate(&one, &start, &m).unwrap();
        assert_eq!(v.outcome, GameOutcome::BlackWins);
        let two = rules_of(None, Some("movecount=2 score=500 twosided=true"));
        assert!(adjudicate(&two, &start, &m).is_none());
        let agreed = vec![
            mv("e4", Some(-600)),
            mv("e5", Some(700)),
            mv("Nf3", Some(-600)),
            mv("Nc6", Some(510)),
        ];
        assert_eq!(
            adjudicate(&two, &start, &agreed).unwrap().outcome,
            GameOutcome::BlackWins
        );
        // A missing score breaks the run.
        let mut gap = m.clone();
        gap[0].score = None;
        assert!(adjudicate(&one, &start, &gap).is_none());
    }

    #[test]
    fn max_moves() {
        let rules = Rules {
            max_moves: Some(2),
            ..Rules::default()
        };
        let start = Position::startpos();
        assert!(adjudicate(&rules, &start, &quiet(3, 0)).is_none());
        assert_eq!(
            adjudicate(&rules, &start, &quiet(4, 0)).unwrap().outcome,
            GameOutcome::Draw
        );
    }

    #[test]
    fn rule_words() {
        assert!("movecount=0 score=1".parse::<DrawRule>().is_err());
        assert!("movecount=3".parse::<ResignRule>().is_err());
        assert!("movecount=3 score=x".parse::<ResignRule>().is_err());
        assert!("movecount=3 score=5 bogus=1".parse::<ResignRule>().is_err());
        let d: DrawRule = "score=8 movecount=4".parse().unwrap();
        assert_eq!(d.to_string(), "movenumber=0 movecount=4 score=8");
    }
}
