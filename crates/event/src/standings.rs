//! The standings of a match or event: the one place where results are
//! counted, read by every summary, table, page and JSON output.
//!
//! Each finished game is counted once ([`Standings::add`]): in each
//! player's own [`Wdl`], and in the [`Tally`] of the two players who met,
//! from each one's view. Games of a block (one encounter in one round on one
//! opening) that are played with colours reversed make pairs: game `2k` and
//! game `2k + 1` of the block, whatever order they finish in, so the
//! pentanomial counts of engine testing are right with games in parallel.
//!
//! ```
//! use rookery_event::standings::Standings;
//! let s = Standings::new(vec!["A".into(), "B".into(), "C".into()]);
//! assert_eq!(s.ranking(), [0, 1, 2]);
//! assert_eq!(s.games(), 0);
//! ```

use crate::schedule::Scheduled;
use crate::stats::{Outcome, Tally, Wdl};
use rookery_game::record::{GameOutcome, GameRecord, Termination};
use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// How a game ended for one of its players, in the categories of
/// cutechess-cli's result table (its `-resultformat` columns `RegulW`,
/// `Time`, `DRepet`, ...).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ending {
    /// A win by the rules, resignation or adjudication.
    RegularWin,
    /// A win by the opponent's failure (time, crash, illegal move, ...).
    OtherWin,
    /// A loss by the rules, resignation or adjudication.
    RegularLoss,
    /// A loss on time.
    TimeForfeit,
    /// A loss by an illegal move.
    IllegalMove,
    /// A loss by a crash or a closed connection.
    Disconnection,
    /// A loss by not answering.
    StalledConnection,
    /// A loss by a wrong result claim.
    InvalidClaim,
    /// A loss by another protocol violation.
    OtherLoss,
    /// A draw by stalemate.
    Stalemate,
    /// A draw by insufficient material.
    InsufficientMaterial,
    /// A draw by repetition.
    Repetition,
    /// A draw by the fifty- (or seventy-five-) move rule.
    MovesRule,
    /// A draw adjudicated by the referee.
    Adjudicated,
    /// A draw by agreement.
    Agreement,
    /// Any other draw.
    OtherDraw,
}

impl Ending {
    /// The category of a game that ended `termination` with `reason` (the
    /// ending in words, as [`GameRecord::reason`]), for the player whose
    /// result it was `outcome`. Draws are told apart by their words, as
    /// cutechess-cli tells them apart.
    pub fn classify(outcome: Outcome, termination: Termination, reason: &str) -> Ending {
        let reason = reason.to_ascii_lowercase();
        let regular = matches!(termination, Termination::Normal | Termination::Adjudication);
        match outcome {
            Outcome::Win if regular => Ending::RegularWin,
            Outcome::Win => Ending::OtherWin,
            Outcome::Loss => match termination {
                Termination::Normal | Termination::Adjudication => Ending::RegularLoss,
                Termination::TimeForfeit => Ending::TimeForfeit,
                Termination::IllegalMove => Ending::IllegalMove,
                Termination::Abandoned => Ending::Disconnection,
                Termination::StalledConnection => Ending::StalledConnection,
                Termination::RulesInfraction if reason.contains("claim") => Ending::InvalidClaim,
                Termination::RulesInfraction | Termination::Unterminated => Ending::OtherLoss,
            },
            Outcome::Draw if termination == Termination::Adjudication => Ending::Adjudicated,
            Outcome::Draw => {
                if reason.contains("stalemate") {
                    Ending::Stalemate
                } else if reason.contains("material") {
                    Ending::InsufficientMaterial
                } else if reason.contains("repetition") {
                    Ending::Repetition
                } else if reason.contains("moves rule") || reason.contains("move rule") {
                    Ending::MovesRule
                } else if reason.contains("agreement") {
                    Ending::Agreement
                } else {
                    Ending::OtherDraw
                }
            }
        }
    }
}

/// How one player's games ended: counts by category and by the ending in
/// words from the player's view (`Win: White mates`, `Loss: Black loses on
/// time`, `Draw by 3-fold repetition`), as cutechess-cli's outcome list
/// gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Endings {
    /// Games by category.
    pub kinds: BTreeMap<Ending, u64>,
    /// Games by the ending in words, sorted.
    pub words: BTreeMap<String, u64>,
}

impl Endings {
    /// Games of category `kind`.
    pub fn count(&self, kind: Ending) -> u64 {
        self.kinds.get(&kind).copied().unwrap_or(0)
    }

    fn add(&mut self, outcome: Outcome, termination: Termination, reason: &str) {
        *self
            .kinds
            .entry(Ending::classify(outcome, termination, reason))
            .or_insert(0) += 1;
        let reason = if reason.is_empty() {
            termination.as_str()
        } else {
            reason
        };
        let words = match outcome {
            Outcome::Win => format!("Win: {reason}"),
            Outcome::Loss => format!("Loss: {reason}"),
            Outcome::Draw => reason.to_string(),
        };
        *self.words.entry(words).or_insert(0) += 1;
    }
}

/// Results so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    names: Vec<String>,
    players: Vec<Wdl>,
    /// Each player's results as White and as Black, from its own view.
    sides: Vec<[Wdl; 2]>,
    /// `versus[i * n + j]`: i's games against j, from i's view.
    versus: Vec<Tally>,
    /// `paired[i * n + j]`: i's games against j in complete pairs, from i's
    /// view (what fastchess's pentanomial report counts).
    paired: Vec<Wdl>,
    /// Each player's games by how they ended.
    endings: Vec<Endings>,
    games: u64,
    time_forfeits: u64,
    failures: u64,
    /// The first game of each pair (block, pair in the block) whose second
    /// game has not finished: its White and its result.
    waiting: HashMap<(usize, usize), (usize, GameOutcome)>,
}

/// White's result as an [`Outcome`] from `player`'s view, when `player`
/// played the game with `white` as White; `None` for an unfinished game.
fn view(player: usize, white: usize, outcome: GameOutcome) -> Option<Outcome> {
    let o = match outcome {
        GameOutcome::WhiteWins => Outcome::Win,
        GameOutcome::BlackWins => Outcome::Loss,
        GameOutcome::Draw => Outcome::Draw,
        GameOutcome::Unfinished => return None,
    };
    Some(if player == white { o } else { o.reversed() })
}

/// Points of a [`Wdl`]: a win 1, a draw ½.
pub fn points(w: &Wdl) -> f64 {
    w.wins as f64 + 0.5 * w.draws as f64
}

/// Points as a chess table writes them: `3½`, `½`, `0`.
pub fn points_text(half_points: u64) -> String {
    match (half_points / 2, half_points % 2) {
        (0, 1) => "½".to_string(),
        (n, 1) => format!("{n}½"),
        (n, _) => n.to_string(),
    }
}

impl Standings {
    /// No games yet among these players.
    pub fn new(names: Vec<String>) -> Standings {
        let n = names.len();
        Standings {
            players: vec![Wdl::default(); n],
            sides: vec![[Wdl::default(); 2]; n],
            versus: vec![Tally::default(); n * n],
            paired: vec![Wdl::default(); n * n],
            endings: vec![Endings::default(); n],
            names,
            games: 0,
            time_forfeits: 0,
            failures: 0,
            waiting: HashMap::new(),
        }
    }

    /// The players' names, in the event's order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Renames player `i` (an engine's own name, once it is known).
    pub fn set_name(&mut self, i: usize, name: &str) {
        if let Some(n) = self.names.get_mut(i) {
            if n != name {
                *n = name.to_string();
            }
        }
    }

    /// Counts a finished game, scheduled as `game`; an unfinished one
    /// (`*`) is not counted and `false` is returned.
    pub fn add(&mut self, game: &Scheduled, record: &GameRecord) -> bool {
        self.add_result(game, record.outcome, record.termination, &record.reason)
    }

    /// Counts a finished game known by its result, how it ended and the
    /// ending in words (empty when not known: a sharded match's pool of an
    /// older rookery holds no words), as [`Standings::add`] counts a record.
    pub fn add_result(
        &mut self,
        game: &Scheduled,
        outcome: GameOutcome,
        termination: Termination,
        reason: &str,
    ) -> bool {
        let n = self.names.len();
        let [w, b] = game.players();
        let (Some(white_view), Some(black_view)) = (view(w, w, outcome), view(b, w, outcome))
        else {
            return false;
        };
        if w >= n || b >= n {
            return false;
        }
        self.games += 1;
        match termination {
            Termination::TimeForfeit => self.time_forfeits += 1,
            Termination::Abandoned
            | Termination::StalledConnection
            | Termination::IllegalMove
            | Termination::RulesInfraction => self.failures += 1,
            _ => {}
        }
        self.players[w].add(white_view);
        self.players[b].add(black_view);
        self.sides[w][0].add(white_view);
        self.sides[b][1].add(black_view);
        self.endings[w].add(white_view, termination, reason);
        self.endings[b].add(black_view, termination, reason);
        self.versus[w * n + b].add_game(white_view);
        self.versus[b * n + w].add_game(black_view);
        // Games 2k and 2k+1 of a block are a pair, played on one opening
        // with colours reversed.
        let key = (game.block, game.in_block / 2);
        if let Some((first_white, first)) = self.waiting.remove(&key) {
            for (me, other) in [(w, b), (b, w)] {
                if let (Some(x), Some(y)) = (view(me, first_white, first), view(me, w, outcome)) {
                    self.versus[me * n + other].ptnml.add_pair(x, y);
                    self.paired[me * n + other].add(x);
                    self.paired[me * n + other].add(y);
                }
            }
        } else {
            self.waiting.insert(key, (w, outcome));
        }
        true
    }

    /// Player `i`'s results, from its own view.
    pub fn player(&self, i: usize) -> Wdl {
        self.players.get(i).copied().unwrap_or_default()
    }

    /// Player `i`'s results with White (`white`) or with Black, from its
    /// own view.
    pub fn player_as(&self, i: usize, white: bool) -> Wdl {
        self.sides
            .get(i)
            .map_or_else(Wdl::default, |s| s[usize::from(!white)])
    }

    /// How player `i`'s games ended.
    pub fn endings(&self, i: usize) -> &Endings {
        static NONE: Endings = Endings {
            kinds: BTreeMap::new(),
            words: BTreeMap::new(),
        };
        self.endings.get(i).unwrap_or(&NONE)
    }

    /// Player `i`'s games against `j`, from `i`'s view (with the pairs).
    pub fn versus(&self, i: usize, j: usize) -> Tally {
        let n = self.names.len();
        if i >= n || j >= n {
            return Tally::default();
        }
        self.versus[i * n + j]
    }

    /// Player `i`'s games against player `j` that are in complete pairs,
    /// from `i`'s view: the games behind `versus(i, j).ptnml`.
    pub fn versus_paired(&self, i: usize, j: usize) -> Wdl {
        let n = self.names.len();
        if i >= n || j >= n {
            return Wdl::default();
        }
        self.paired[i * n + j]
    }

    /// Player `i`'s points.
    pub fn points(&self, i: usize) -> f64 {
        points(&self.player(i))
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Games lost on time.
    pub fn time_forfeits(&self) -> u64 {
        self.time_forfeits
    }

    /// Games lost by a crash, stall, illegal move or protocol violation.
    pub fn failures(&self) -> u64 {
        self.failures
    }

    /// The players best first: the higher score ratio (points per game, as
    /// cutechess-cli ranks; players who have not played come last), then
    /// more points, then fewer games, then the event's order. With every
    /// player at the same number of games it is the order of points; in a
    /// knockout or a gauntlet, where they are not, a player knocked out
    /// early is not ranked by its few points.
    pub fn ranking(&self) -> Vec<usize> {
        let ratio = |i: usize| {
            let games = self.player(i).games();
            if games == 0 {
                -1.0
            } else {
                self.points(i) / games as f64
            }
        };
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| {
            ratio(b)
                .total_cmp(&ratio(a))
                .then(self.points(b).total_cmp(&self.points(a)))
                .then(self.player(a).games().cmp(&self.player(b).games()))
                .then(a.cmp(&b))
        });
        order
    }

    /// The cross-table cell of `i` against `j`: `i`'s points out of the
    /// games played (`1½/2`), `None` on the diagonal, empty before the two
    /// have met.
    pub fn cross_cell(&self, i: usize, j: usize) -> Option<String> {
        if i == j {
            return None;
        }
        let w = self.versus(i, j).wdl;
        if w.games() == 0 {
            return Some(String::new());
        }
        Some(format!(
            "{}/{}",
            points_text(2 * w.wins + w.draws),
            w.games()
        ))
    }
}

impl Serialize for Standings {
    /// `{ games, time_forfeits, failures, players: [{name, wins, draws,
    /// losses, points}] in the event's order, ranking: [indices], pairs:
    /// [{a, b, wins, draws, losses, ptnml}] from a's view, a < b, for every
    /// two players who met }`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Player<'a> {
            name: &'a str,
            wins: u64,
            draws: u64,
            losses: u64,
            points: f64,
        }
        #[derive(Serialize)]
        struct Pair<'a> {
            a: &'a str,
            b: &'a str,
            wins: u64,
            draws: u64,
            losses: u64,
            ptnml: [u64; 5],
        }
        let n = self.names.len();
        let players: Vec<Player<'_>> = (0..n)
            .map(|i| {
                let w = self.player(i);
                Player {
                    name: &self.names[i],
                    wins: w.wins,
                    draws: w.draws,
                    losses: w.losses,
                    points: points(&w),
                }
            })
            .collect();
        let mut pairs = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let t = &self.versus[a * n + b];
                if t.wdl.games() > 0 {
                    pairs.push(Pair {
                        a: &self.names[a],
                        b: &self.names[b],
                        wins: t.wdl.wins,
                        draws: t.wdl.draws,
                        losses: t.wdl.losses,
                        ptnml: t.ptnml.counts,
                    });
                }
            }
        }
        let mut st = s.serialize_struct("Standings", 6)?;
        st.serialize_field("games", &self.games)?;
        st.serialize_field("time_forfeits", &self.time_forfeits)?;
        st.serialize_field("failures", &self.failures)?;
        st.serialize_field("players", &players)?;
        st.serialize_field("ranking", &self.ranking())?;
        st.serialize_field("pairs", &pairs)?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::{Pairing, Schedule};

    fn record(outcome: GameOutcome, termination: Termination) -> GameRecord {
        let setup = rookery_game::game::GameSetup::new(0, Default::default());
        GameRecord {
            outcome,
            termination,
            ..GameRecord::begun(&setup, "w", "b")
        }
    }

    #[test]
    fn pairs_are_the_two_games_of_a_block_whatever_order_they_finish_in() {
        let sched = Schedule::new(2, Pairing::RoundRobin, 2, 2).unwrap();
        let g: Vec<Scheduled> = sched.iter().collect();
        let mut s = Standings::new(vec!["A".into(), "B".into()]);
        // Block 1 finishes first, its second game before its first.
        // Game 3: B (White) beats A; game 2: A (White) draws.
        assert!(s.add(&g[3], &record(GameOutcome::WhiteWins, Termination::Normal)));
        assert_eq!(s.versus(0, 1).ptnml.pairs(), 0);
        assert!(s.add(&g[2], &record(GameOutcome::Draw, Termination::Normal)));
        // A's pair: a loss and a draw = ½ point.
        assert_eq!(s.versus(0, 1).ptnml.counts, [0, 1, 0, 0, 0]);
        assert_eq!(s.versus(1, 0).ptnml.counts, [0, 0, 0, 1, 0]);
        // Block 0: A wins with White, loses on time with Black.
        s.add(&g[0], &record(GameOutcome::WhiteWins, Termination::Normal));
        s.add(
            &g[1],
            &record(GameOutcome::WhiteWins, Termination::TimeForfeit),
        );
        assert_eq!(s.versus(0, 1).ptnml.counts, [0, 1, 1, 0, 0]);
        let a = s.player(0);
        assert_eq!((a.wins, a.draws, a.losses), (1, 1, 2));
        assert_eq!(s.player(1).reversed(), a);
        assert_eq!((s.games(), s.time_forfeits(), s.failures()), (4, 1, 0));
        assert_eq!(s.ranking(), [1, 0]);
        assert_eq!(s.cross_cell(0, 1).as_deref(), Some("1½/4"));
        assert_eq!(s.cross_cell(1, 0).as_deref(), Some("2½/4"));
        assert_eq!(s.cross_cell(0, 0), None);
        // By colour: A won and drew with White, lost both with Black.
        let (w, b) = (s.player_as(0, true), s.player_as(0, false));
        assert_eq!((w.wins, w.draws, w.losses), (1, 1, 0));
        assert_eq!((b.wins, b.draws, b.losses), (0, 0, 2));
        assert_eq!(s.player_as(1, true), b.reversed());
        assert_eq!(s.player_as(2, true), Wdl::default());
    }

    #[test]
    fn an_unfinished_game_is_not_counted_and_json_names_every_pairing() {
        let sched = Schedule::new(3, Pairing::RoundRobin, 1, 1).unwrap();
        let g: Vec<Scheduled> = sched.iter().collect();
        let mut s = Standings::new(vec!["A".into(), "B".into(), "C".into()]);
        assert!(!s.add(
            &g[0],
            &record(GameOutcome::Unfinished, Termination::Unterminated)
        ));
        assert_eq!(s.games(), 0);
        s.add(
            &g[1],
            &record(GameOutcome::BlackWins, Termination::IllegalMove),
        );
        s.add(&g[2], &record(GameOutcome::Draw, Termination::Normal));
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["games"], 2);
        assert_eq!(json["failures"], 1);
        let pairs = json["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), 2, "{json}");
        assert_eq!(
            (pairs[0]["a"].as_str(), pairs[0]["b"].as_str()),
            (Some("A"), Some("C"))
        );
        assert_eq!(pairs[0]["losses"], 1);
        assert_eq!(json["ranking"][0], 2, "C leads with 1½: {json}");
        assert_eq!(points_text(3), "1½");
        assert_eq!(points_text(1), "½");
        assert_eq!(points_text(4), "2");
    }

    /// A player with fewer games but a better score ranks first (a
    /// knockout's table: a player who has played less is ranked by how it
    /// scored, not by its fewer points); players who have not played come
    /// last.
    #[test]
    fn ranking_is_by_score_ratio() {
        let sched = Schedule::new(3, Pairing::RoundRobin, 2, 1).unwrap();
        let g: Vec<Scheduled> = sched.iter().collect();
        let mut s = Standings::new(vec!["A".into(), "B".into(), "C".into(), "D".into()]);
        let (mut ab, mut bc) = (Vec::new(), Vec::new());
        for x in &g {
            match x.players() {
                [0, 1] | [1, 0] => ab.push(*x),
                [1, 2] | [2, 1] => bc.push(*x),
                _ => {}
            }
        }
        let win_for = |x: &Scheduled, p: usize| {
            if x.players()[0] == p {
                GameOutcome::WhiteWins
            } else {
                GameOutcome::BlackWins
            }
        };
        // A-B: B wins, then a draw; C-B: C wins.
        s.add(&ab[0], &record(win_for(&ab[0], 1), Termination::Normal));
        s.add(&ab[1], &record(GameOutcome::Draw, Termination::Normal));
        s.add(&bc[0], &record(win_for(&bc[0], 2), Termination::Normal));
        // Points: B 1½ (of 3), C 1 (of 1), A ½ (of 2); ratios 0.5, 1, 0.25.
        assert_eq!((s.points(1), s.points(2), s.points(0)), (1.5, 1.0, 0.5));
        assert_eq!(s.ranking(), [2, 1, 0, 3]);
    }
}
