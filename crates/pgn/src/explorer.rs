//! The opening explorer: for each move from a position, how the games that
//! played it went, as lichess's opening explorer shows them; with a depth,
//! the same for the positions those moves lead to (a tree).
//!
//! A position is found in a game by its Zobrist key ([`Position::hash`]),
//! wherever the game's mainline passes through it, whatever the move order
//! (transpositions included); every position of the tree is looked up so,
//! as the explorer does when a move is clicked. The counting follows
//! lichess's explorer:
//!
//! - a game counts once for a position: a game that passes through it more
//!   than once counts for the last move it played from it;
//! - per move: the games, and how many White won, drew and Black won; a
//!   game without a result (`*`) is counted apart ([`Tally::unfinished`])
//!   and in nothing else below;
//! - the average Elo is that of the player who made the move (lichess's
//!   "average rating"), over the games whose `WhiteElo`/`BlackElo` tag for
//!   that player is a number;
//! - the performance is that player's rating performance over the games in
//!   which the opponent's Elo is known: the opponents' average Elo plus the
//!   FIDE table's rating difference `dp` for the score percentage `p`
//!   (FIDE Handbook B.02, table 8.1.2), interpolated linearly between whole
//!   percents — the formula lichess's explorer uses for a player's games:
//!   `performance = round(average_opponent_elo + dp(p))`, with `dp(0%) =
//!   -800` and `dp(100%) = 800`.
//!
//! Memory stays bounded on any input: only positions within reach of the
//! root (no more squares changed than `depth - 1` plies can change, four a
//! ply; no castling right the root lacks) are counted, whatever the size of
//! the collection.
//!
//! ```
//! use rookery_core::Position;
//! use rookery_pgn::{explorer::Explorer, Games};
//!
//! let pgn = "[WhiteElo \"2000\"] [BlackElo \"1800\"] [Result \"1-0\"] 1. e4 e5 2. Nf3 Nc6 1-0\n\
//!            [WhiteElo \"1900\"] [BlackElo \"2100\"] [Result \"0-1\"] 1. Nf3 e5 2. e4 Nc6 0-1\n\
//!            [Result \"1/2-1/2\"] 1. d4 d5 1/2-1/2\n";
//! let mut explorer = Explorer::new(Position::startpos(), 4);
//! for game in Games::new(pgn.as_bytes()).with_detail(rookery_pgn::Detail::Mainline) {
//!     explorer.add(&game?.game);
//! }
//! let tree = explorer.tree();
//! assert_eq!(tree.tally.games(), 3);
//! let e4 = tree.moves.iter().find(|b| b.san == "e4").unwrap();
//! assert_eq!((e4.tally.games(), e4.tally.white), (1, 1));
//! assert_eq!(e4.tally.average_elo(), Some(2000));
//! // After 1. e4 e5 2. Nf3 both games are there: the second by transposition.
//! let nc6 = &e4.moves[0].moves[0].moves[0];
//! assert_eq!((nc6.san.as_str(), nc6.tally.games()), ("Nc6", 2));
//! assert_eq!(nc6.tally.average_elo(), Some(1950)); // Black's: 1800 and 2100
//! assert_eq!(nc6.tally.performance(), Some(1950)); // 50 % against 2000 and 1900
//! # Ok::<(), std::io::Error>(())
//! ```

use std::collections::HashMap;

use rookery_core::{CastlingMode, Color, Move, Position, SanPlus};

use crate::game::{fen_of, Detail, Game, ReadGame, Tags};
use crate::source::Source;
use crate::split::PieceGames;
use crate::stream::{report, Part, Plan, StreamError};
use crate::types::GameResult;

/// The FIDE table of rating differences `dp` by score percentage (FIDE
/// Handbook B.02, 8.1.2): `DP[p]` for a score of `p` percent.
const DP: [i16; 101] = [
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296,
    -284, -273, -262, -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141,
    -133, -125, -117, -110, -102, -95, -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7,
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// Most squares one ply changes (castling: the king's and the rook's two).
const SQUARES_PER_PLY: u32 = 4;

/// The rating difference for a score of `percent` (0 to 100), interpolated
/// linearly between the whole percents of the FIDE table (FIDE Handbook
/// B.02, 8.1.2): -800 at 0 %, 0 at 50 %, 800 at 100 %.
pub fn rating_difference(percent: f64) -> f64 {
    let p = percent.clamp(0.0, 100.0);
    let below = p.floor();
    let i = below as usize;
    let low = f64::from(DP[i]);
    let high = DP.get(i + 1).map_or(low, |&d| f64::from(d));
    low + (high - low) * (p - below)
}

/// How the games of a move (or through a position) went.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games White won.
    pub white: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games Black won.
    pub black: u64,
    /// Games without a result (`*`): counted in [`Tally::games`] only.
    pub unfinished: u64,
    /// Finished games in which the mover's Elo is known, and its sum.
    mover_rated: u64,
    mover_elo_sum: u64,
    /// Finished games in which the opponent's Elo is known, its sum, and
    /// the mover's score in them in half points.
    opponent_rated: u64,
    opponent_elo_sum: u64,
    score_halves: u64,
}

impl Tally {
    /// All the games.
    pub fn games(&self) -> u64 {
        self.finished() + self.unfinished
    }

    /// The games with a result.
    pub fn finished(&self) -> u64 {
        self.white + self.draws + self.black
    }

    /// Adds one game, in which `mover` played the move; the Elo of each
    /// player if known.
    pub fn add(&mut self, result: GameResult, mover: Color, elo: [Option<u32>; 2]) {
        let half_points = match (result, mover) {
            (GameResult::Unknown, _) => {
                self.unfinished += 1;
                return;
            }
            (GameResult::Draw, _) => {
                self.draws += 1;
                1
            }
            (GameResult::WhiteWins, c) => {
                self.white += 1;
                c.fold(2, 0)
            }
            (GameResult::BlackWins, c) => {
                self.black += 1;
                c.fold(0, 2)
            }
        };
        if let Some(e) = elo[mover.index()] {
            self.mover_rated += 1;
            self.mover_elo_sum += u64::from(e);
        }
        if let Some(e) = elo[mover.other().index()] {
            self.opponent_rated += 1;
            self.opponent_elo_sum += u64::from(e);
            self.score_halves += half_points;
        }
    }

    /// The tally as nine numbers (White's wins, draws, Black's wins,
    /// unfinished, then the Elo sums behind the averages and the
    /// performance), for a store to keep; [`Tally::from_raw`] reads them back.
    pub fn to_raw(&self) -> [u64; 9] {
        [
            self.white,
            self.draws,
            self.black,
            self.unfinished,
            self.mover_rated,
            self.mover_elo_sum,
            self.opponent_rated,
            self.opponent_elo_sum,
            self.score_halves,
        ]
    }

    /// The tally [`Tally::to_raw`] wrote.
    pub fn from_raw(r: [u64; 9]) -> Tally {
        Tally {
            white: r[0],
            draws: r[1],
            black: r[2],
            unfinished: r[3],
            mover_rated: r[4],
            mover_elo_sum: r[5],
            opponent_rated: r[6],
            opponent_elo_sum: r[7],
            score_halves: r[8],
        }
    }

    /// Adds the games of `o`.
    pub fn merge(&mut self, o: &Tally) {
        self.white += o.white;
        self.draws += o.draws;
        self.black += o.black;
        self.unfinished += o.unfinished;
        self.mover_rated += o.mover_rated;
        self.mover_elo_sum += o.mover_elo_sum;
        self.opponent_rated += o.opponent_rated;
        self.opponent_elo_sum += o.opponent_elo_sum;
        self.score_halves += o.score_halves;
    }

    /// The share of finished games `n` stands for, in percent.
    pub fn percent(&self, n: u64) -> Option<f64> {
        let all = self.finished();
        (all > 0).then(|| 100.0 * n as f64 / all as f64)
    }

    /// The mover's average Elo, rounded.
    pub fn average_elo(&self) -> Option<u32> {
        average(self.mover_elo_sum, self.mover_rated)
    }

    /// The opponent's average Elo over the games the performance counts, rounded.
    pub fn average_opponent_elo(&self) -> Option<u32> {
        average(self.opponent_elo_sum, self.opponent_rated)
    }

    /// The mover's performance rating (see the module documentation).
    pub fn performance(&self) -> Option<i32> {
        if self.opponent_rated == 0 {
            return None;
        }
        let n = self.opponent_rated as f64;
        let opponents = self.opponent_elo_sum as f64 / n;
        let percent = 50.0 * self.score_halves as f64 / n;
        Some((opponents + rating_difference(percent)).round() as i32)
    }
}

fn average(sum: u64, n: u64) -> Option<u32> {
    (n > 0).then(|| ((sum as f64 / n as f64).round()) as u32)
}

/// A position of the tree: the games through it and the moves played from it.
#[derive(Clone, Debug, Default)]
struct Entry {
    /// Games that passed through the position (a game that ends there too).
    passing: Tally,
    /// The moves played from it.
    moves: Vec<(Move, Tally)>,
}

/// Counts, game by game, what the explorer shows (see the module documentation).
#[derive(Clone, Debug)]
pub struct Explorer {
    root: Position,
    depth: usize,
    table: HashMap<u64, Entry>,
    /// Positions one game passes through within reach (reused from game
    /// to game).
    seen: GamePositions,
}

/// The positions one game passes through, each once: its key, the last
/// move played from it, the side to move; each found again through a
/// table of their places by their keys' low bits (a search of the list
/// for each ply was 3% of an import).
#[derive(Clone, Debug, Default)]
struct GamePositions {
    list: Vec<(u64, Option<Move>, Color)>,
    /// A position's place in `list`, plus one (0: none), at the slot of
    /// its key's low bits or the next free one; never more than half full.
    slots: Vec<u32>,
}

impl GamePositions {
    /// Empty, for a game of `plies` plies.
    fn clear(&mut self, plies: usize) {
        self.list.clear();
        self.slots.clear();
        self.slots
            .resize((2 * (plies + 1)).next_power_of_two().max(16), 0);
    }

    /// Counts the position of key `key` (`turn` to move) with `next`,
    /// the move the game played from it: a position met again keeps the
    /// last move played from it.
    fn see(&mut self, key: u64, next: Option<Move>, turn: Color) {
        let mask = self.slots.len() - 1;
        // A Zobrist key's low bits are as good as any.
        let mut i = key as usize & mask;
        loop {
            match self.slots[i] {
                0 => {
                    self.list.push((key, next, turn));
                    self.slots[i] = self.list.len() as u32;
                    return;
                }
                at => {
                    let s = &mut self.list[at as usize - 1];
                    if s.0 == key {
                        s.1 = next.or(s.1);
                        return;
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }
}

impl Explorer {
    /// An explorer of the moves from `root`, `depth` plies deep (at least 1).
    pub fn new(root: Position, depth: usize) -> Explorer {
        Explorer {
            root,
            depth: depth.max(1),
            table: HashMap::new(),
            seen: GamePositions::default(),
        }
    }

    /// An empty explorer like this one (for another thread's share).
    pub fn empty_like(&self) -> Explorer {
        Explorer::new(self.root.clone(), self.depth)
    }

    /// An explorer of every position of every game, whatever the root (an
    /// index's: see [`Explorer::drain`]).
    pub fn everywhere() -> Explorer {
        Explorer::new(Position::startpos(), usize::MAX)
    }

    /// The positions counted so far.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether no position is counted.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Takes what is counted, by position key ([`Position::hash`]), leaving
    /// the explorer empty (an index merges it into what it keeps).
    pub fn drain(&mut self) -> Vec<(u64, PositionTally)> {
        self.table
            .drain()
            .map(|(k, e)| (k, (e.passing, e.moves)))
            .collect()
    }

    /// Counts one game (its mainline: read at [`crate::Detail::Mainline`]
    /// or [`crate::Detail::Full`]).
    pub fn add(&mut self, game: &Game) {
        let _counted = self.add_counted(game);
    }

    /// The positions within reach `game` is counted for, each once: its
    /// key, the move the game played from it (the last, when it passed
    /// more than once; `None` where it ended) and the side to move. The
    /// one statement of what a game counts for, kept by [`Explorer::add`]
    /// and by an index that counts elsewhere.
    pub fn positions_of(&mut self, game: &Game) -> &[(u64, Option<Move>, Color)] {
        self.seen.clear(game.mainline.nodes.len());
        let mut pos = game.start.clone();
        let mut moves = game.mainline_moves();
        loop {
            let next = moves.next();
            if within_reach(&self.root, self.depth, &pos) {
                self.seen.see(pos.hash(), next, pos.turn());
            }
            let Some(m) = next else { break };
            pos.play_unchecked(m);
        }
        &self.seen.list
    }

    /// [`Explorer::positions_of`] the game `g` the reader read: an
    /// explorer of every position ([`Explorer::everywhere`]'s, an index's)
    /// takes the keys the reader kept ([`ReadGame::keys`]) instead of
    /// playing the game again.
    pub fn positions_of_read(&mut self, g: &ReadGame) -> &[(u64, Option<Move>, Color)] {
        let game = &g.game;
        if self.depth != usize::MAX || g.keys.len() != game.mainline.nodes.len() {
            return self.positions_of(game);
        }
        self.seen.clear(g.keys.len());
        let mut turn = game.start.turn();
        let mut key = game.start.hash();
        let mut moves = game.mainline_moves();
        let mut keys = g.keys.iter();
        loop {
            let next = moves.next();
            self.seen.see(key, next, turn);
            let Some(&after) = keys.next() else { break };
            // Every ply passes the turn, a null move's too.
            (key, turn) = (after, !turn);
        }
        &self.seen.list
    }

    /// Counts one game as [`Explorer::add`] does and returns the positions
    /// it was counted for: each one's key and the move the game played from
    /// it (see [`Explorer::positions_of`]), so that an index can keep the
    /// game beside the counts.
    pub fn add_counted(&mut self, game: &Game) -> impl Iterator<Item = (u64, Option<Move>)> + '_ {
        let elo = [elo(&game.tags, "WhiteElo"), elo(&game.tags, "BlackElo")];
        self.positions_of(game);
        for &(key, mv, turn) in &self.seen.list {
            let entry = self.table.entry(key).or_default();
            entry.passing.add(game.result, turn, elo);
            if let Some(mv) = mv {
                let i = match entry.moves.iter().position(|(m, _)| *m == mv) {
                    Some(i) => i,
                    None => {
                        entry.moves.push((mv, Tally::default()));
                        entry.moves.len() - 1
                    }
                };
                entry.moves[i].1.add(game.result, turn, elo);
            }
        }
        self.seen.list.iter().map(|&(key, mv, _)| (key, mv))
    }

    /// Adds the games `o` counted (same root and depth).
    pub fn merge(&mut self, o: Explorer) {
        for (key, entry) in o.table {
            let mine = self.table.entry(key).or_default();
            mine.passing.merge(&entry.passing);
            for (mv, t) in entry.moves {
                match mine.moves.iter_mut().find(|(m, _)| *m == mv) {
                    Some((_, mt)) => mt.merge(&t),
                    None => mine.moves.push((mv, t)),
                }
            }
        }
    }

    /// The tree: the root's moves and, `depth` plies deep, theirs; each
    /// list most played first (then by UCI text).
    pub fn tree(&self) -> Tree {
        Tree::build(&self.root, self.depth, &mut |pos| {
            self.table
                .get(&pos.hash())
                .map(|e| (e.passing, e.moves.clone()))
        })
    }
}

/// Whether `pos` could be `depth - 1` plies or fewer from `root`
/// (always for a depth of `usize::MAX`, [`Explorer::everywhere`]'s).
fn within_reach(root: &Position, depth: usize, pos: &Position) -> bool {
    if depth == usize::MAX {
        return true;
    }
    let gained = pos.castling_rooks() - root.castling_rooks();
    if gained.nonempty() {
        return false;
    }
    let mut changed = pos.by_color(Color::White) ^ root.by_color(Color::White);
    for role in rookery_core::Role::ALL {
        changed |= pos.by_role(role) ^ root.by_role(role);
    }
    changed.count() <= SQUARES_PER_PLY * (depth as u32 - 1)
}

/// What an explorer knows of one position: the games through it and the
/// moves played from it, each with its games.
pub type PositionTally = (Tally, Vec<(Move, Tally)>);

impl Tree {
    /// The tree from `root`, `depth` plies deep, with what `lookup` knows
    /// of each position (an index keeps it by [`Position::hash`]): the one
    /// way a tree is built, from an [`Explorer`]'s table or from a
    /// database's index. Each list of moves is most played first (then by
    /// UCI text).
    pub fn build(
        root: &Position,
        depth: usize,
        lookup: &mut dyn FnMut(&Position) -> Option<PositionTally>,
    ) -> Tree {
        let tally = lookup(root).map(|e| e.0).unwrap_or_default();
        Tree {
            fen: fen_of(root),
            tally,
            moves: branches(root, depth, lookup),
        }
    }
}

fn branches(
    pos: &Position,
    depth: usize,
    lookup: &mut dyn FnMut(&Position) -> Option<PositionTally>,
) -> Vec<Branch> {
    if depth == 0 {
        return Vec::new();
    }
    let Some((_, moves)) = lookup(pos) else {
        return Vec::new();
    };
    let castling = if pos.is_chess960_castling() {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let mut out: Vec<Branch> = moves
        .iter()
        .map(|&(mv, tally)| {
            let after = pos.after(mv);
            Branch {
                mv,
                san: SanPlus::from_move(pos, mv).to_string(),
                uci: mv.to_uci(pos, castling),
                number: pos.fullmoves(),
                turn: pos.turn(),
                tally,
                moves: branches(&after, depth - 1, lookup),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.tally
            .games()
            .cmp(&a.tally.games())
            .then_with(|| a.uci.cmp(&b.uci))
    });
    out
}

/// Counts the games of `source` into a copy of `explorer` (empty, see
/// [`Explorer::empty_like`]) and returns it, reading on `plan.jobs`
/// threads (lines that are not UTF-8 read as Latin-1, told to the source's
/// listener); the problems of the games and the counts of games, errors
/// and warnings reach `sink` in input order, in [`Part`]s without text (a
/// game with an error is reported and not counted; in strict mode reading
/// stops there). Of `plan`, the threads, piece size, strictness and
/// quietness are used, not the task.
///
/// # Errors
/// As [`crate::stream::run`].
pub fn run<E>(
    plan: &Plan,
    explorer: &Explorer,
    source: Source<'_>,
    progress: &mut dyn FnMut(u64),
    sink: &mut dyn FnMut(Part) -> Result<(), E>,
) -> Result<Explorer, StreamError<E>> {
    let work = |games: &mut PieceGames| piece(plan, explorer, games);
    let mut total = explorer.empty_like();
    source.for_each_piece(
        plan.reading(Detail::Mainline, true),
        &work,
        &mut |(part, found): (Part, Explorer), bytes| -> Result<bool, StreamError<E>> {
            progress(bytes);
            total.merge(found);
            let go_on = !part.stopped;
            sink(part).map_err(StreamError::Sink)?;
            Ok(go_on)
        },
    )?;
    Ok(total)
}

/// The games of one piece of the input, counted.
fn piece(plan: &Plan, explorer: &Explorer, games: &mut PieceGames) -> (Part, Explorer) {
    let mut part = Part::default();
    let mut found = explorer.empty_like();
    while let Some(g) = games.next() {
        if report(plan, &g, &mut part) {
            found.add(&g.game);
        }
        games.recycle(g);
        if part.stopped {
            break;
        }
    }
    (part, found)
}

/// The Elo in tag `name`, if it is a positive number.
/// A player's Elo from its tag (`WhiteElo`, `BlackElo`): a positive
/// number, else unknown.
pub fn elo(tags: &Tags, name: &str) -> Option<u32> {
    tags.get(name)?.trim().parse().ok().filter(|&e| e > 0)
}

/// What the explorer found from its root position.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    /// The root position's FEN.
    pub fen: String,
    /// The games through the root (a game that ends there too).
    pub tally: Tally,
    /// The moves from the root.
    pub moves: Vec<Branch>,
}

/// A move of the tree and what followed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    /// The move.
    pub mv: Move,
    /// In SAN (`Nf3`, `exd5+`).
    pub san: String,
    /// In UCI (`g1f3`).
    pub uci: String,
    /// The move number of the position it is played from.
    pub number: u32,
    /// The side that played it.
    pub turn: Color,
    /// The games that played it.
    pub tally: Tally,
    /// The moves from the position it leads to (empty at the tree's depth).
    pub moves: Vec<Branch>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn performance_follows_the_fide_table() {
        let mut t = Tally::default();
        // One win against a 1500: 100 %.
        t.add(
            GameResult::WhiteWins,
            Color::White,
            [Some(1800), Some(1500)],
        );
        assert_eq!(t.performance(), Some(2300));
        // And a loss against a 1700: 50 % against 1600 on average.
        t.add(GameResult::BlackWins, Color::White, [None, Some(1700)]);
        assert_eq!(t.performance(), Some(1600));
        assert_eq!(t.average_elo(), Some(1800));
        // Between whole percents: linear (62.5 % is 87 + 0.5 * (95 - 87)).
        assert_eq!(rating_difference(62.5), 91.0);
        assert_eq!(rating_difference(37.5), -91.0);
        assert_eq!(
            (rating_difference(0.0), rating_difference(100.0)),
            (-800.0, 800.0)
        );
        let mut u = Tally::default();
        u.add(GameResult::Unknown, Color::Black, [Some(2000), Some(2000)]);
        assert_eq!((u.games(), u.finished(), u.performance()), (1, 0, None));
    }

    /// The positions of a read game from the reader's keys are those of
    /// a replay: repeated positions (the last move kept), a null move, a
    /// setup with Black to move, a game without moves, and a game cut
    /// short by an error.
    #[test]
    fn positions_from_the_readers_keys_are_a_replays() {
        let pgn = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 e5 *\n\n\
                   1. e4 -- 2. d4 -- 3. Nf3 e5 1-0\n\n\
                   [SetUp \"1\"] [FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 1\"] 1... Kd7 2. e4 Ke6 *\n\n\
                   [Result \"*\"] *\n\n\
                   1. e4 e5 2. Ke3 *\n";
        let mut games = 0;
        for read in crate::Games::new(pgn.as_bytes()).with_detail(Detail::Mainline) {
            let read = read.unwrap();
            let mut replay = Explorer::everywhere();
            let mut from_keys = Explorer::everywhere();
            assert_eq!(
                from_keys.positions_of_read(&read),
                replay.positions_of(&read.game),
                "game {}",
                read.index
            );
            games += 1;
        }
        assert_eq!(games, 5);
    }

    #[test]
    fn reach_bounds_the_positions_counted() {
        let root = Position::startpos();
        assert!(within_reach(&root, 1, &Position::startpos()));
        let after = Position::startpos().after(
            rookery_core::UciMove::from_ascii(b"e2e4")
                .unwrap()
                .to_move(&Position::startpos())
                .unwrap(),
        );
        assert!(!within_reach(&root, 1, &after));
        assert!(within_reach(&root, 2, &after));
    }
}
