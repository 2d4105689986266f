//! Who plays whom, with which colours.
//!
//! A [`Schedule`] is a pure function of four numbers (players, pairing,
//! rounds, games per encounter): the same numbers give the same games in
//! the same order, which is what lets a journal resume a match or an
//! event. It is computed, never stored: game `n` is found in constant time,
//! so an event of a million rounds costs no more memory than one of a
//! single round. Games come in blocks of `games` per encounter and round
//! (usually 2: one opening, colours reversed); each block takes the next
//! opening of the book ([`crate::book`]).
//!
//! ```
//! use rookery_event::schedule::{Pairing, Schedule};
//! let s = Schedule::new(3, Pairing::RoundRobin, 1, 2)?;
//! // Three encounters (0-1, 0-2, 1-2), two games each with colours reversed.
//! assert_eq!(s.len(), 6);
//! let g: Vec<_> = s.iter().collect();
//! assert_eq!((g[0].white, g[0].black), (0, 1));
//! assert_eq!((g[1].white, g[1].black), (1, 0));
//! assert_eq!(g[0].block, g[1].block);
//! assert_eq!(s.get(5), Some(g[5]));
//! # Ok::<(), rookery_event::schedule::ScheduleError>(())
//! ```

use rookery_io::shard::Shard;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How the players are paired.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pairing {
    /// Every player against every other.
    RoundRobin,
    /// The first player against each of the others.
    Gauntlet,
    /// A single-elimination bracket: the winner of each encounter goes on
    /// to the next round, until one player is left. Who meets whom after
    /// the first round depends on results, so its games come from a
    /// [`crate::knockout::Bracket`], not from [`Schedule::get`].
    Knockout,
}

/// A pairing name that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown pairing {0:?}: expected round-robin, gauntlet or knockout")]
pub struct ParsePairingError(pub String);

impl FromStr for Pairing {
    type Err = ParsePairingError;
    fn from_str(s: &str) -> Result<Pairing, ParsePairingError> {
        match s {
            "round-robin" | "roundrobin" => Ok(Pairing::RoundRobin),
            "gauntlet" => Ok(Pairing::Gauntlet),
            "knockout" => Ok(Pairing::Knockout),
            _ => Err(ParsePairingError(s.to_string())),
        }
    }
}

impl fmt::Display for Pairing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pairing::RoundRobin => "round-robin",
            Pairing::Gauntlet => "gauntlet",
            Pairing::Knockout => "knockout",
        })
    }
}

/// Who has White in each game of an encounter: by default the sides swap
/// every game, the first player of the encounter White first.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sides {
    /// The sides never swap (cutechess-cli's and fastchess's `-noswap`).
    #[serde(default)]
    pub fixed: bool,
    /// The second player of the encounter has White first, or always when
    /// `fixed` (`-reverse`).
    #[serde(default)]
    pub reverse: bool,
}

/// One game of the schedule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    /// Its number (0-based, the order of the schedule).
    pub number: usize,
    /// The round (1-based).
    pub round: usize,
    /// The block of games sharing one encounter and opening (0-based): the
    /// games of a block with two games are a pair.
    pub block: usize,
    /// Its place in the block (0-based).
    pub in_block: usize,
    /// White (an index into the players).
    pub white: usize,
    /// Black.
    pub black: usize,
}

impl Scheduled {
    /// Both players, White first.
    pub fn players(&self) -> [usize; 2] {
        [self.white, self.black]
    }
}

/// A schedule that cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// Fewer than two players.
    #[error("a schedule needs at least two players, not {0}")]
    Players(usize),
    /// No rounds or no games per encounter.
    #[error("rounds and games per encounter must be at least 1")]
    Empty,
    /// A knockout is played once: it has no rounds to repeat.
    #[error("a knockout is played once ({0} rounds asked for): its rounds are its stages")]
    KnockoutRounds(usize),
    /// More games than are counted (rounds × encounters × games overflows).
    #[error("{rounds} rounds of {per_round} games each are more games than can be counted")]
    TooLarge {
        /// Rounds asked for.
        rounds: usize,
        /// Games in each round.
        per_round: usize,
    },
}

/// The schedule of `rounds` rounds with `games` games per encounter among
/// `players` players, computed game by game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    players: usize,
    pairing: Pairing,
    rounds: usize,
    games: usize,
    #[serde(default)]
    sides: Sides,
    /// A knockout's seeding: players seeded by their order, and the seed
    /// that draws the order of the others (absent for other pairings, so
    /// that their schedules read as they were written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seeding: Option<Seeding>,
}

/// How a knockout's players are placed in its bracket.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seeding {
    /// The first `seeded` players are placed by their order (the first is
    /// the top seed); cutechess-cli's `-seeds`.
    pub seeded: usize,
    /// The seed that draws the order of the other players (`--srand`).
    pub draw: u64,
}

impl Schedule {
    /// A schedule; the counts are checked.
    ///
    /// # Errors
    /// [`ScheduleError`]: fewer than two players, no rounds or games, or
    /// more games than a `usize` counts.
    pub fn new(
        players: usize,
        pairing: Pairing,
        rounds: usize,
        games: usize,
    ) -> Result<Schedule, ScheduleError> {
        if players < 2 {
            return Err(ScheduleError::Players(players));
        }
        if rounds == 0 || games == 0 {
            return Err(ScheduleError::Empty);
        }
        if pairing == Pairing::Knockout && rounds != 1 {
            return Err(ScheduleError::KnockoutRounds(rounds));
        }
        let s = Schedule {
            players,
            pairing,
            rounds,
            games,
            sides: Sides::default(),
            seeding: (pairing == Pairing::Knockout).then_some(Seeding::default()),
        };
        let per_round = s
            .encounters()
            .checked_mul(games)
            .ok_or(ScheduleError::TooLarge {
                rounds,
                per_round: usize::MAX,
            })?;
        per_round
            .checked_mul(rounds)
            .ok_or(ScheduleError::TooLarge { rounds, per_round })?;
        Ok(s)
    }

    /// The same schedule with `sides` deciding who has White.
    pub fn with_sides(self, sides: Sides) -> Schedule {
        Schedule { sides, ..self }
    }

    /// The same schedule with a knockout's players placed by `seeding`
    /// (other pairings have no seeding: it is ignored).
    pub fn with_seeding(self, seeding: Seeding) -> Schedule {
        Schedule {
            seeding: self.seeding.map(|_| seeding),
            ..self
        }
    }

    /// A knockout's seeding (`None` for other pairings).
    pub fn seeding(&self) -> Option<Seeding> {
        self.seeding
    }

    /// Whether the games are fixed in advance: false for a knockout, whose
    /// later rounds and tie-breaks depend on results.
    pub fn is_fixed(&self) -> bool {
        self.pairing != Pairing::Knockout
    }

    /// Who has White.
    pub fn sides(&self) -> Sides {
        self.sides
    }

    /// The number of players.
    pub fn players(&self) -> usize {
        self.players
    }

    /// How they are paired.
    pub fn pairing(&self) -> Pairing {
        self.pairing
    }

    /// Rounds.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// Games per encounter and round.
    pub fn games_per_encounter(&self) -> usize {
        self.games
    }

    /// Encounters (pairs of players who meet) per round; a knockout's
    /// encounters in all (each puts one player out).
    pub fn encounters(&self) -> usize {
        match self.pairing {
            Pairing::Gauntlet | Pairing::Knockout => self.players - 1,
            Pairing::RoundRobin => self.players * (self.players - 1) / 2,
        }
    }

    /// Games in each round.
    pub fn per_round(&self) -> usize {
        self.encounters() * self.games
    }

    /// Games in the whole schedule; for a knockout, the games it has at
    /// least (its encounters' games without tie-breaks).
    pub fn len(&self) -> usize {
        self.per_round() * self.rounds
    }

    /// Never true: a schedule has at least one game.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Blocks (encounters times rounds): one opening each.
    pub fn blocks(&self) -> usize {
        self.encounters() * self.rounds
    }

    /// The players of encounter `k` of a round (the first player of the
    /// pair has White in the first game of the encounter's first round).
    fn encounter(&self, k: usize) -> (usize, usize) {
        match self.pairing {
            Pairing::Gauntlet | Pairing::Knockout => (0, k + 1),
            Pairing::RoundRobin => {
                // Pairs (i, j), i < j, in lexicographic order.
                let mut k = k;
                for i in 0..self.players {
                    let row = self.players - 1 - i;
                    if k < row {
                        return (i, i + 1 + k);
                    }
                    k -= row;
                }
                (0, 1)
            }
        }
    }

    /// Game `number`, or `None` past the end (always for a knockout: its
    /// games come from a [`crate::knockout::Bracket`]).
    pub fn get(&self, number: usize) -> Option<Scheduled> {
        if number >= self.len() || !self.is_fixed() {
            return None;
        }
        let per_round = self.per_round();
        let round = number / per_round;
        let in_round = number % per_round;
        let (k, g) = (in_round / self.games, in_round % self.games);
        let (a, b) = self.encounter(k);
        let (a, b) = if self.sides.reverse { (b, a) } else { (a, b) };
        // Sides swap every game of an encounter, across rounds too (as
        // cutechess-cli does): with one game per round the colours still
        // alternate from round to round.
        let nth = if self.sides.fixed {
            0
        } else {
            round * self.games + g
        };
        let (white, black) = if nth % 2 == 0 { (a, b) } else { (b, a) };
        Some(Scheduled {
            number,
            round: round + 1,
            block: round * self.encounters() + k,
            in_block: g,
            white,
            black,
        })
    }

    /// Whether game `game` is in the share of `shard` (shard K of N of a
    /// match spread over several tasks): the blocks are dealt out in turn,
    /// block `b` to shard `b mod N + 1`, so that a block (a pair of games
    /// on one opening with colours reversed) is never split and the games
    /// the shards have played at any moment are, together, close to the
    /// schedule's first games (an SPRT that stops them early has the
    /// games an unsharded run would have played first). A knockout's
    /// games depend on results and are no shard's.
    pub fn in_shard(&self, game: &Scheduled, shard: Shard) -> bool {
        self.is_fixed() && game.block % shard.count() as usize == shard.index() as usize
    }

    /// Every game, in order.
    pub fn iter(&self) -> impl Iterator<Item = Scheduled> + '_ {
        (0..self.len()).filter_map(|n| self.get(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(players: usize, pairing: Pairing, rounds: usize, games: usize) -> Vec<Scheduled> {
        Schedule::new(players, pairing, rounds, games)
            .unwrap()
            .iter()
            .collect()
    }

    #[test]
    fn gauntlet_and_round_robin() {
        let g = all(4, Pairing::Gauntlet, 2, 2);
        assert_eq!(g.len(), 2 * 3 * 2);
        assert!(g.iter().all(|s| s.white == 0 || s.black == 0));
        let rr = all(4, Pairing::RoundRobin, 1, 1);
        assert_eq!(rr.len(), 6);
        assert!(rr.iter().all(|s| s.white != s.black));
        let mut pairs: Vec<(usize, usize)> = rr
            .iter()
            .map(|s| (s.white.min(s.black), s.white.max(s.black)))
            .collect();
        pairs.dedup();
        assert_eq!(pairs, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
        assert_eq!(rr.iter().map(|s| s.block).max(), Some(5));
        assert_eq!(g.iter().map(|s| s.round).max(), Some(2));
        for (i, s) in g.iter().enumerate() {
            assert_eq!(s.number, i);
        }
    }

    #[test]
    fn sides_alternate_across_rounds_with_one_game_an_encounter() {
        let one = all(2, Pairing::RoundRobin, 4, 1);
        let whites: Vec<usize> = one.iter().map(|s| s.white).collect();
        assert_eq!(whites, [0, 1, 0, 1]);
        // Pairs keep their order: each block is white/black then reversed.
        let two = all(2, Pairing::RoundRobin, 2, 2);
        let whites: Vec<usize> = two.iter().map(|s| s.white).collect();
        assert_eq!(whites, [0, 1, 0, 1]);
        assert!(two.iter().all(|s| s.white != s.black));
        assert_eq!(
            two.iter().map(|s| s.block).collect::<Vec<_>>(),
            [0, 0, 1, 1]
        );
    }

    #[test]
    fn sides_fixed_or_reversed() {
        let whites = |sides: Sides| -> Vec<usize> {
            Schedule::new(2, Pairing::RoundRobin, 2, 2)
                .unwrap()
                .with_sides(sides)
                .iter()
                .map(|s| s.white)
                .collect()
        };
        let (fixed, reverse) = (true, true);
        assert_eq!(whites(Sides::default()), [0, 1, 0, 1]);
        assert_eq!(
            whites(Sides {
                fixed,
                reverse: false
            }),
            [0, 0, 0, 0]
        );
        assert_eq!(
            whites(Sides {
                fixed: false,
                reverse
            }),
            [1, 0, 1, 0]
        );
        assert_eq!(whites(Sides { fixed, reverse }), [1, 1, 1, 1]);
        // A journal written before sides existed reads as alternating.
        let old = r#"{"players":2,"pairing":"RoundRobin","rounds":1,"games":2}"#;
        let s: Schedule = serde_json::from_str(old).unwrap();
        assert_eq!(s.sides(), Sides::default());
    }

    #[test]
    fn a_huge_schedule_costs_nothing_and_an_impossible_one_is_refused() {
        let s = Schedule::new(2, Pairing::RoundRobin, 1_000_000, 2).unwrap();
        assert_eq!(s.len(), 2_000_000);
        let last = s.get(1_999_999).unwrap();
        assert_eq!(
            (last.round, last.block, last.in_block),
            (1_000_000, 999_999, 1)
        );
        assert_eq!(s.get(2_000_000), None);
        assert_eq!(
            Schedule::new(1, Pairing::Gauntlet, 1, 1),
            Err(ScheduleError::Players(1))
        );
        assert_eq!(
            Schedule::new(2, Pairing::Gauntlet, 0, 1),
            Err(ScheduleError::Empty)
        );
        assert!(matches!(
            Schedule::new(3, Pairing::RoundRobin, usize::MAX / 2, 2),
            Err(ScheduleError::TooLarge { .. })
        ));
    }

    #[test]
    fn shards_deal_whole_blocks_in_turn_and_together_hold_every_game_once() {
        for (rounds, games, n) in [(7, 2, 3), (5, 1, 2), (4, 4, 3), (1, 2, 5)] {
            let s = Schedule::new(2, Pairing::RoundRobin, rounds, games).unwrap();
            let shards: Vec<Shard> = (0..n).map(|i| Shard::new(i, n).unwrap()).collect();
            for g in s.iter() {
                let owners: Vec<&Shard> = shards.iter().filter(|k| s.in_shard(&g, **k)).collect();
                assert_eq!(owners.len(), 1, "game {g:?}");
                // The other games of its block are the same shard's.
                for other in s.iter().filter(|o| o.block == g.block) {
                    assert!(s.in_shard(&other, *owners[0]));
                }
                assert_eq!(owners[0].index() as usize, g.block % n as usize);
            }
        }
        let ko = Schedule::new(4, Pairing::Knockout, 1, 2).unwrap();
        let g = Scheduled {
            number: 0,
            round: 1,
            block: 0,
            in_block: 0,
            white: 0,
            black: 1,
        };
        assert!(!ko.in_shard(&g, Shard::WHOLE));
    }

    #[test]
    fn pairing_names() {
        assert_eq!("gauntlet".parse(), Ok(Pairing::Gauntlet));
        assert_eq!("round-robin".parse(), Ok(Pairing::RoundRobin));
        let e = "swiss".parse::<Pairing>().unwrap_err();
        assert!(e.to_string().contains("\"swiss\""), "{e}");
    }
}
