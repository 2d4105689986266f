//! A knockout's bracket: who plays whom next, given the results so far.
//!
//! The players are placed in a bracket whose size is the next power of two:
//! the first [`Seeding::seeded`] players by their order (the first is the
//! top seed), the others in an order drawn by [`Seeding::draw`], so that the
//! same seed gives the same bracket. Top seeds meet low ones; the empty
//! places (byes) go to the top seeds, who go on to the second round without
//! playing. Each encounter plays the schedule's games per encounter, colours
//! alternating; a tied encounter goes on, one game at a time when that
//! number is odd, a pair of games at a time when it is even, until one
//! player leads. The winners meet in the next round, in bracket order, until
//! one player is left.
//!
//! Games are numbered in waves: the games of every encounter of a round
//! first, then, once all of them are finished, the tie-breaks the tied
//! encounters need, and so on; the next round is paired once the current
//! one is decided. A game's number, players and colours are therefore a
//! pure function of the seeding and of the results of the games numbered
//! before it: replaying the finished games of a journal in number order
//! rebuilds the bracket of the run that wrote it.
//!
//! ```
//! use rookery_event::knockout::Bracket;
//! use rookery_game::record::GameOutcome;
//! use rookery_event::schedule::{Pairing, Schedule};
//! let s = Schedule::new(3, Pairing::Knockout, 1, 1)?;
//! let mut b = Bracket::new(&s).expect("a knockout");
//! // Three players in a bracket of four: the top seed has a bye.
//! assert_eq!(b.len(), 1);
//! let g = b.get(0).unwrap();
//! b.record(0, GameOutcome::WhiteWins);
//! // The final is paired once the first round is decided.
//! assert_eq!(b.len(), 2);
//! let f = b.get(1).unwrap();
//! b.record(1, GameOutcome::Draw);
//! // A tie (one game an encounter): one more game, colours reversed.
//! let t = b.get(2).unwrap();
//! assert_eq!((t.white, t.black), (f.black, f.white));
//! b.record(2, GameOutcome::BlackWins);
//! assert!(b.is_over());
//! assert_eq!(b.winner(), Some(f.white));
//! # let _ = g;
//! # Ok::<(), rookery_event::schedule::ScheduleError>(())
//! ```

use crate::book::SplitMix;
use crate::schedule::{Schedule, Scheduled, Seeding, Sides};
use rookery_game::record::GameOutcome;
use serde::Serialize;

/// One encounter of a bracket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encounter {
    /// The two players (indices into the event's players), the first with
    /// White in the encounter's first game; `None` is a bye.
    pub players: [Option<usize>; 2],
    /// Each player's score, in half points.
    pub half_points: [u32; 2],
    /// The numbers of the encounter's games, in order.
    pub games: Vec<usize>,
    /// Games finished.
    pub finished: usize,
    /// The winner, once decided (at once for a bye).
    pub winner: Option<usize>,
}

/// A knockout's bracket (see the module docs).
#[derive(Clone, Debug)]
pub struct Bracket {
    games: usize,
    sides: Sides,
    rounds: Vec<Vec<Encounter>>,
    /// Every game handed out, by number: its encounter (in the last round
    /// or an earlier one) and its place in the schedule.
    slots: Vec<(usize, usize, Scheduled)>,
    done: Vec<bool>,
    /// Games handed out and not finished.
    open: usize,
    blocks: usize,
}

/// Where the player of `rank` (1 = top seed) goes in a bracket of `size`
/// places (a power of two): the two best ranks in opposite halves, and so
/// on down, so that seeds meet as late as they can.
fn place(rank: usize, size: usize) -> usize {
    let (mut rank, mut half, mut at) = (rank, size / 2, 0);
    while rank > 1 {
        if rank % 2 == 0 {
            at += half;
            rank /= 2;
        } else {
            rank = rank / 2 + 1;
        }
        half /= 2;
    }
    at
}

/// The players in rank order: the seeded ones by their order, the others
/// drawn by `seeding.draw`.
fn ranking(players: usize, seeding: Seeding) -> Vec<usize> {
    let seeded = seeding.seeded.min(players);
    let mut order: Vec<usize> = (0..seeded).collect();
    let mut rest: Vec<usize> = (seeded..players).collect();
    let mut rng = SplitMix::new(seeding.draw);
    while !rest.is_empty() {
        let i = rng.below(rest.len() as u64) as usize;
        order.push(rest.remove(i));
    }
    order
}

/// The first round's places: ranks placed by [`place`], then each bye,
/// in turn, moved opposite the best rank without one (the player there
/// takes the bye's place).
fn first_round(players: usize, seeding: Seeding) -> Vec<Option<usize>> {
    let size = players.next_power_of_two();
    let order = ranking(players, seeding);
    let mut at = vec![None; size];
    for (i, &p) in order.iter().enumerate() {
        at[place(i + 1, size)] = Some(p);
    }
    for b in 0..size - players {
        let bye = place(players + b + 1, size);
        let facing_seed = place(b + 1, size) + 1;
        at[bye] = at[facing_seed].take();
    }
    at
}

impl Bracket {
    /// The bracket of `schedule`, its first round paired; `None` when the
    /// schedule is not a knockout.
    pub fn new(schedule: &Schedule) -> Option<Bracket> {
        let seeding = schedule.seeding()?;
        let at = first_round(schedule.players(), seeding);
        let round: Vec<Encounter> = at
            .chunks(2)
            .map(|pair| Encounter::new([pair[0], pair[1]]))
            .collect();
        let mut b = Bracket {
            games: schedule.games_per_encounter(),
            sides: schedule.sides(),
            rounds: vec![round],
            slots: Vec::new(),
            done: Vec::new(),
            open: 0,
            blocks: 0,
        };
        b.advance();
        Some(b)
    }

    /// Games handed out so far (numbered `0..len`).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Never true: a bracket pairs its first round at once.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Game `number`, if it has been paired.
    pub fn get(&self, number: usize) -> Option<Scheduled> {
        self.slots.get(number).map(|s| s.2)
    }

    /// The rounds so far, first round first.
    pub fn rounds(&self) -> &[Vec<Encounter>] {
        &self.rounds
    }

    /// The winner of the knockout, once it has one.
    pub fn winner(&self) -> Option<usize> {
        match self.rounds.last()?.as_slice() {
            [only] => only.winner,
            _ => None,
        }
    }

    /// Whether the knockout has its winner.
    pub fn is_over(&self) -> bool {
        self.winner().is_some()
    }

    /// Counts the result of game `number`; once every game paired so far is
    /// finished, the next games are paired (tie-breaks, or the next round).
    /// Returns whether games were added. A game not paired, or counted
    /// already, changes nothing.
    pub fn record(&mut self, number: usize, outcome: GameOutcome) -> bool {
        let Some(&(r, e, g)) = self.slots.get(number) else {
            return false;
        };
        if self.done[number] {
            return false;
        }
        self.done[number] = true;
        self.open -= 1;
        let enc = &mut self.rounds[r][e];
        let first_white = enc.players[0] == Some(g.white);
        let [w, b] = match outcome {
            GameOutcome::WhiteWins => [2, 0],
            GameOutcome::BlackWins => [0, 2],
            GameOutcome::Draw => [1, 1],
            GameOutcome::Unfinished => [0, 0],
        };
        let (first, second) = if first_white { (w, b) } else { (b, w) };
        enc.half_points[0] += first;
        enc.half_points[1] += second;
        enc.finished += 1;
        if self.open > 0 {
            return false;
        }
        let before = self.len();
        self.advance();
        self.len() > before
    }

    /// With no game open: decides the encounters of the last round, pairs
    /// the tie-breaks the tied ones need, or else the next round.
    fn advance(&mut self) {
        loop {
            let r = self.rounds.len() - 1;
            let base = self.games;
            let more = if base % 2 == 0 { 2 } else { 1 };
            let mut added = false;
            for e in 0..self.rounds[r].len() {
                let enc = &mut self.rounds[r][e];
                if enc.winner.is_some() {
                    continue;
                }
                let [Some(_), Some(_)] = enc.players else {
                    continue;
                };
                let played = enc.games.len();
                let [a, b] = enc.half_points;
                if played >= base && a != b {
                    enc.winner = if a > b {
                        enc.players[0]
                    } else {
                        enc.players[1]
                    };
                    continue;
                }
                let n = if played < base { base - played } else { more };
                self.pair(r, e, n);
                added = true;
            }
            if added || self.rounds[r].len() <= 1 {
                return;
            }
            let winners: Vec<Option<usize>> = self.rounds[r].iter().map(|e| e.winner).collect();
            let next = winners
                .chunks(2)
                .map(|pair| Encounter::new([pair[0], pair[1]]))
                .collect();
            self.rounds.push(next);
        }
    }

    /// Hands out `n` more games of encounter `e` of round `r`, on one new
    /// opening (block).
    fn pair(&mut self, r: usize, e: usize, n: usize) {
        let block = self.blocks;
        self.blocks += 1;
        let enc = &mut self.rounds[r][e];
        let [Some(mut a), Some(mut b)] = enc.players else {
            return;
        };
        if self.sides.reverse {
            std::mem::swap(&mut a, &mut b);
        }
        for in_block in 0..n {
            let nth = if self.sides.fixed { 0 } else { enc.games.len() };
            let (white, black) = if nth % 2 == 0 { (a, b) } else { (b, a) };
            let number = self.slots.len();
            enc.games.push(number);
            self.slots.push((
                r,
                e,
                Scheduled {
                    number,
                    round: r + 1,
                    block,
                    in_block,
                    white,
                    black,
                },
            ));
            self.done.push(false);
            self.open += 1;
        }
    }

    /// The bracket for a report, with the players' names.
    pub fn report(&self, names: &[String]) -> KnockoutReport {
        let name = |p: Option<usize>| p.and_then(|i| names.get(i).cloned());
        KnockoutReport {
            rounds: self
                .rounds
                .iter()
                .map(|round| {
                    round
                        .iter()
                        .map(|e| EncounterReport {
                            players: [name(e.players[0]), name(e.players[1])],
                            score: e.half_points.map(|h| f64::from(h) / 2.0),
                            games: e.games.len(),
                            winner: name(e.winner),
                        })
                        .collect()
                })
                .collect(),
            winner: name(self.winner()),
        }
    }
}

impl Encounter {
    fn new(players: [Option<usize>; 2]) -> Encounter {
        // A bye: the player goes on.
        let winner = match players {
            [Some(p), None] | [None, Some(p)] => Some(p),
            _ => None,
        };
        Encounter {
            players,
            half_points: [0, 0],
            games: Vec::new(),
            finished: 0,
            winner,
        }
    }
}

/// A knockout as reported: every round's encounters with names and scores.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KnockoutReport {
    /// The rounds, first round first (the last one may be unfinished).
    pub rounds: Vec<Vec<EncounterReport>>,
    /// The winner of the knockout, once it has one.
    pub winner: Option<String>,
}

/// One encounter as reported.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EncounterReport {
    /// The players, the first with White in the first game; `null`: a bye.
    pub players: [Option<String>; 2],
    /// Their points.
    pub score: [f64; 2],
    /// Games played or paired.
    pub games: usize,
    /// Who went on (`null` while undecided).
    pub winner: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Pairing;

    fn seeded(players: usize, games: usize) -> Bracket {
        let s = Schedule::new(players, Pairing::Knockout, 1, games)
            .unwrap()
            .with_seeding(Seeding {
                seeded: players,
                draw: 0,
            });
        Bracket::new(&s).unwrap()
    }

    /// The first round as pairs of ranks (1-based; 0 for a bye), every
    /// player seeded by its order.
    fn first(players: usize) -> Vec<(usize, usize)> {
        let b = seeded(players, 1);
        b.rounds()[0]
            .iter()
            .map(|e| {
                let r = |p: Option<usize>| p.map_or(0, |i| i + 1);
                (r(e.players[0]), r(e.players[1]))
            })
            .collect()
    }

    #[test]
    fn byes_go_to_the_top_seeds_and_seeds_meet_late() {
        assert_eq!(first(2), [(1, 2)]);
        assert_eq!(first(3), [(1, 0), (2, 3)]);
        assert_eq!(first(4), [(1, 3), (2, 4)]);
        assert_eq!(first(5), [(1, 0), (3, 0), (2, 0), (4, 5)]);
        assert_eq!(first(6), [(1, 0), (3, 5), (2, 0), (4, 6)]);
        assert_eq!(first(7), [(1, 0), (3, 7), (2, 6), (4, 5)]);
        assert_eq!(first(8), [(1, 5), (3, 7), (2, 6), (4, 8)]);
        let nine = first(9);
        assert_eq!(nine.len(), 8);
        // Seven byes: ranks 1 to 7; 8 and 9 play.
        for (rank, pair) in (1..=7).map(|r| (r, nine.iter().find(|p| p.0 == r).unwrap())) {
            assert_eq!(pair.1, 0, "rank {rank}: {nine:?}");
        }
        assert!(nine.contains(&(8, 9)), "{nine:?}");
        for n in 2..=9 {
            let pairs = first(n);
            let byes = n.next_power_of_two() - n;
            let mut seen: Vec<usize> = pairs
                .iter()
                .flat_map(|p| [p.0, p.1])
                .filter(|&r| r > 0)
                .collect();
            seen.sort_unstable();
            assert_eq!(seen, (1..=n).collect::<Vec<_>>(), "{n}: {pairs:?}");
            let with_bye: Vec<usize> = pairs.iter().filter(|p| p.1 == 0).map(|p| p.0).collect();
            let mut with_bye = with_bye;
            with_bye.sort_unstable();
            assert_eq!(with_bye, (1..=byes).collect::<Vec<_>>(), "{n}: {pairs:?}");
            // The first round's games are those of the real encounters.
            assert_eq!(seeded(n, 1).len(), (n - byes) / 2, "{n}");
        }
    }

    #[test]
    fn the_unseeded_order_is_drawn_by_the_seed() {
        let order = |draw: u64, seeded: usize| {
            let s = Schedule::new(8, Pairing::Knockout, 1, 1)
                .unwrap()
                .with_seeding(Seeding { seeded, draw });
            let b = Bracket::new(&s).unwrap();
            b.rounds()[0].iter().map(|e| e.players).collect::<Vec<_>>()
        };
        assert_eq!(order(7, 0), order(7, 0));
        let draws: Vec<_> = (0..8).map(|d| order(d, 0)).collect();
        assert!(draws.iter().any(|d| *d != draws[0]), "{draws:?}");
        // The seeded players keep their places whatever the draw.
        for d in 0..8 {
            let o = order(d, 2);
            assert_eq!((o[0][0], o[2][0]), (Some(0), Some(1)));
        }
    }

    /// Plays the bracket's games as `result` says until it is over (at
    /// most `limit` games); returns the games.
    fn play(
        b: &mut Bracket,
        limit: usize,
        mut result: impl FnMut(&Scheduled) -> GameOutcome,
    ) -> Vec<Scheduled> {
        let mut played = Vec::new();
        let mut n = 0;
        while n < b.len() && n < limit {
            let g = b.get(n).unwrap();
            b.record(n, result(&g));
            played.push(g);
            n += 1;
        }
        played
    }

    #[test]
    fn a_tie_with_an_odd_number_of_games_goes_on_one_game_at_a_time() {
        let mut b = seeded(2, 3);
        // Three draws, a draw, then the second player wins.
        let mut k = 0;
        let games = play(&mut b, 100, |g| {
            k += 1;
            match k {
                5 if g.white == 1 => GameOutcome::WhiteWins,
                5 => GameOutcome::BlackWins,
                _ => GameOutcome::Draw,
            }
        });
        assert_eq!(games.len(), 5);
        assert_eq!(b.winner(), Some(1));
        let whites: Vec<usize> = games.iter().map(|g| g.white).collect();
        assert_eq!(whites, [0, 1, 0, 1, 0]);
        // The base games share an opening; each tie-break has its own.
        let blocks: Vec<usize> = games.iter().map(|g| g.block).collect();
        assert_eq!(blocks, [0, 0, 0, 1, 2]);
        let e = &b.rounds()[0][0];
        assert_eq!(e.half_points, [4, 6]);
    }

    #[test]
    fn a_tie_with_an_even_number_of_games_goes_on_by_pairs() {
        let mut b = seeded(2, 2);
        // Draws, then the first player wins game 5: game 6 is still played.
        let mut k = 0;
        let games = play(&mut b, 100, |g| {
            k += 1;
            match k {
                5 if g.white == 0 => GameOutcome::WhiteWins,
                5 => GameOutcome::BlackWins,
                _ => GameOutcome::Draw,
            }
        });
        assert_eq!(games.len(), 6);
        assert_eq!(b.winner(), Some(0));
        let blocks: Vec<usize> = games.iter().map(|g| g.block).collect();
        assert_eq!(blocks, [0, 0, 1, 1, 2, 2]);
        let in_block: Vec<usize> = games.iter().map(|g| g.in_block).collect();
        assert_eq!(in_block, [0, 1, 0, 1, 0, 1]);
        // Decided at once: no tie-break.
        let mut b = seeded(2, 2);
        let games = play(&mut b, 2, |_| GameOutcome::WhiteWins);
        assert_eq!(games.len(), 2);
        assert!(!b.is_over(), "1-1 is a tie");
        assert_eq!(b.len(), 4, "a pair of tie-breaks");
        let mut b = seeded(2, 2);
        let games = play(&mut b, 100, |g| {
            if g.white == 0 {
                GameOutcome::WhiteWins
            } else {
                GameOutcome::Draw
            }
        });
        assert_eq!((games.len(), b.winner()), (2, Some(0)));
    }

    #[test]
    fn rounds_follow_in_order_until_one_player_is_left() {
        for n in 2..=9 {
            let mut b = seeded(n, 1);
            // The lower index wins.
            let games = play(&mut b, 1000, |g| {
                if g.white < g.black {
                    GameOutcome::WhiteWins
                } else {
                    GameOutcome::BlackWins
                }
            });
            assert_eq!(b.winner(), Some(0), "{n}");
            // One game per encounter, one encounter per player put out.
            assert_eq!(games.len(), n - 1, "{n}");
            let rounds: Vec<usize> = games.iter().map(|g| g.round).collect();
            assert!(rounds.windows(2).all(|w| w[0] <= w[1]), "{rounds:?}");
            assert_eq!(
                b.rounds().len(),
                n.next_power_of_two().trailing_zeros() as usize
            );
            for (i, g) in games.iter().enumerate() {
                assert_eq!(g.number, i);
            }
        }
        // The next round waits for every game of this one.
        let mut b = seeded(4, 1);
        assert_eq!(b.len(), 2);
        assert!(!b.record(0, GameOutcome::WhiteWins));
        assert_eq!(b.len(), 2);
        assert!(!b.record(0, GameOutcome::WhiteWins), "counted once");
        assert!(b.record(1, GameOutcome::WhiteWins));
        let f = b.get(2).unwrap();
        assert_eq!((f.round, f.white, f.black), (2, 0, 1));
    }

    #[test]
    fn the_sides_words_apply() {
        let s = Schedule::new(2, Pairing::Knockout, 1, 2)
            .unwrap()
            .with_sides(Sides {
                fixed: false,
                reverse: true,
            })
            .with_seeding(Seeding { seeded: 2, draw: 0 });
        let b = Bracket::new(&s).unwrap();
        assert_eq!((b.get(0).unwrap().white, b.get(1).unwrap().white), (1, 0));
    }
}
