//! An entry of the explorer's index: what the games of one bucket say of
//! one position (the games through it, each move played from it with its
//! [`Tally`], and a few of those games, [`GameRef`]), how entries of the
//! same position merge, and their bytes.

use std::collections::HashSet;

use rookery_core::Move;
use rookery_pgn::explorer::Tally;

/// Games an index entry keeps in each of its lists (the highest rated, the
/// most recent): lichess's explorer shows up to 15 (its masters' top games).
pub const GAMES_KEPT: usize = 15;

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn get_varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// A tally's bytes. Most tallies of an index count one game, and take a
/// byte and the Elo ratings: `0x80`, the result in bits 0-1 (White,
/// draw, Black, unfinished), the mover's score in half points in bits
/// 2-3, whether the mover's and the opponent's Elo are known in bits 4
/// and 5, then those Elos as varints. Any other tally is `0` and its nine
/// numbers ([`Tally::to_raw`]) as varints.
fn put_tally(out: &mut Vec<u8>, t: &Tally) {
    let [white, draws, black, unfinished, mover_rated, mover_elo, opp_rated, opp_elo, halves] =
        t.to_raw();
    let one = white + draws + black + unfinished == 1
        && mover_rated <= 1
        && opp_rated <= 1
        && (mover_rated == 1 || mover_elo == 0)
        && (opp_rated == 1 || opp_elo == 0)
        && halves <= 2
        && (opp_rated == 1 || halves == 0)
        && (unfinished == 0 || mover_rated + opp_rated == 0);
    if !one {
        out.push(0);
        for v in t.to_raw() {
            put_varint(out, v);
        }
        return;
    }
    let result = if white == 1 {
        0
    } else if draws == 1 {
        1
    } else if black == 1 {
        2
    } else {
        3
    };
    out.push(
        0x80 | result | (halves as u8) << 2 | (mover_rated as u8) << 4 | (opp_rated as u8) << 5,
    );
    if mover_rated == 1 {
        put_varint(out, mover_elo);
    }
    if opp_rated == 1 {
        put_varint(out, opp_elo);
    }
}

fn get_tally(bytes: &mut &[u8]) -> Option<Tally> {
    let (&shape, rest) = bytes.split_first()?;
    *bytes = rest;
    let mut raw = [0u64; 9];
    if shape == 0 {
        for r in &mut raw {
            *r = get_varint(bytes)?;
        }
        return Some(Tally::from_raw(raw));
    }
    if shape & 0xc0 != 0x80 || (shape >> 2) & 3 == 3 {
        return None;
    }
    raw[usize::from(shape & 3)] = 1;
    raw[8] = u64::from((shape >> 2) & 3);
    if shape & 0x10 != 0 {
        raw[4] = 1;
        raw[5] = get_varint(bytes)?;
    }
    if shape & 0x20 != 0 {
        raw[6] = 1;
        raw[7] = get_varint(bytes)?;
    }
    Some(Tally::from_raw(raw))
}

/// An index entry's bytes. An entry of one game ([`one_game`]) is `2`,
/// the move's 16 bits, the tally, the game's number and date. Any other
/// is a byte of flags (1: the tally through the
/// position is the sum of its moves' tallies, no game ended there, and is
/// left out), the tally through the position unless left out, the number
/// of moves, then each move (its 16 bits, [`Move::to_u16`]) and its tally;
/// the number of games kept, then each game's number, its move (a byte:
/// its place in the list of moves), its ratings' sum and its date; all
/// numbers as varints.
pub(crate) fn encode_entry(e: &Explored, out: &mut Vec<u8>) {
    if let Some(g) = one_game(e) {
        out.push(2);
        out.extend_from_slice(&g.mv.to_u16().to_le_bytes());
        put_tally(out, &e.passing);
        put_varint(out, g.id);
        put_varint(out, u64::from(g.date));
        return;
    }
    let mut sum = Tally::default();
    for (_, t) in &e.moves {
        sum.merge(t);
    }
    let derived = sum == e.passing;
    out.push(u8::from(derived));
    if !derived {
        put_tally(out, &e.passing);
    }
    put_varint(out, e.moves.len() as u64);
    for (m, t) in &e.moves {
        out.extend_from_slice(&m.to_u16().to_le_bytes());
        put_tally(out, t);
    }
    let games: Vec<(u8, &GameRef)> = e
        .games
        .iter()
        .filter_map(|g| {
            let i = e.moves.iter().position(|(m, _)| *m == g.mv)?;
            Some((u8::try_from(i).ok()?, g))
        })
        .collect();
    put_varint(out, games.len() as u64);
    for (i, g) in games {
        put_varint(out, g.id);
        out.push(i);
        put_varint(out, u64::from(g.rating));
        put_varint(out, u64::from(g.date));
    }
}

/// The sum of the two ratings of a tally of one game (0 unless both are
/// known): what the index keeps as its game's rating.
fn rating_of(t: &Tally) -> u32 {
    let raw = t.to_raw();
    if raw[4] == 1 && raw[6] == 1 {
        u32::try_from(raw[5] + raw[7]).unwrap_or(0)
    } else {
        0
    }
}

/// The game of an entry of one game, one move and that game kept, whose
/// rating is its tally's ([`rating_of`]): most entries of an index, which
/// are written as the move, the tally, the game's number and date.
fn one_game(e: &Explored) -> Option<&GameRef> {
    let ([(mv, t)], [g]) = (&e.moves[..], &e.games[..]) else {
        return None;
    };
    (g.mv == *mv && *t == e.passing && t.games() == 1 && g.rating == rating_of(t)).then_some(g)
}

/// The entry [`encode_entry`] wrote; `None` if the bytes are not one.
pub(crate) fn decode_entry(mut bytes: &[u8]) -> Option<Explored> {
    let (&flags, rest) = bytes.split_first()?;
    bytes = rest;
    if flags == 2 {
        let (m, rest) = bytes.split_first_chunk::<2>()?;
        bytes = rest;
        let mv = Move::from_u16(u16::from_le_bytes(*m));
        let tally = get_tally(&mut bytes)?;
        let id = get_varint(&mut bytes)?;
        let date = u32::try_from(get_varint(&mut bytes)?).ok()?;
        if !bytes.is_empty() {
            return None;
        }
        return Some(Explored {
            passing: tally,
            moves: vec![(mv, tally)],
            games: vec![GameRef {
                id,
                mv,
                rating: rating_of(&tally),
                date,
            }],
        });
    }
    let passing = match flags {
        0 => Some(get_tally(&mut bytes)?),
        1 => None,
        _ => return None,
    };
    let n = get_varint(&mut bytes)?;
    let mut moves = Vec::with_capacity(n.min(256) as usize);
    for _ in 0..n {
        let (m, rest) = bytes.split_first_chunk::<2>()?;
        bytes = rest;
        moves.push((
            Move::from_u16(u16::from_le_bytes(*m)),
            get_tally(&mut bytes)?,
        ));
    }
    let n = get_varint(&mut bytes)?;
    let mut games = Vec::with_capacity(n.min(4 * GAMES_KEPT as u64) as usize);
    for _ in 0..n {
        let id = get_varint(&mut bytes)?;
        let (&i, rest) = bytes.split_first()?;
        bytes = rest;
        let mv = moves.get(usize::from(i))?.0;
        let rating = u32::try_from(get_varint(&mut bytes)?).ok()?;
        let date = u32::try_from(get_varint(&mut bytes)?).ok()?;
        games.push(GameRef {
            id,
            mv,
            rating,
            date,
        });
    }
    if !bytes.is_empty() {
        return None;
    }
    let passing = passing.unwrap_or_else(|| {
        let mut sum = Tally::default();
        for (_, t) in &moves {
            sum.merge(t);
        }
        sum
    });
    Some(Explored {
        passing,
        moves,
        games,
    })
}

/// A game of a position, as the index keeps it for the explorer's lists.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameRef {
    /// The game's number.
    pub id: u64,
    /// The move it played from the position (the last, if it passed more
    /// than once).
    pub mv: Move,
    /// The sum of the two players' ratings (0: one is unknown).
    pub rating: u32,
    /// Its date ([`crate::header::Date::packed`]).
    pub date: u32,
}

impl GameRef {
    /// The order of the top games: the highest ratings' sum first, then
    /// the lower number.
    pub fn top_order(a: &GameRef, b: &GameRef) -> std::cmp::Ordering {
        b.rating.cmp(&a.rating).then(a.id.cmp(&b.id))
    }

    /// The order of the recent games: the latest date first (a date
    /// known in part before the days of its month or year), then the
    /// higher number.
    pub fn recent_order(a: &GameRef, b: &GameRef) -> std::cmp::Ordering {
        b.date.cmp(&a.date).then(b.id.cmp(&a.id))
    }
}

/// What the index knows of a position: the games through it, the moves
/// played from it, and the games it keeps (a superset of the highest
/// rated and the most recent [`GAMES_KEPT`] that played a move from it,
/// and of each move's game when it was played once).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Explored {
    /// The games through it (a game that ends there too).
    pub passing: Tally,
    /// The moves played from it.
    pub moves: Vec<(Move, Tally)>,
    /// The games kept, in no order.
    pub games: Vec<GameRef>,
}

impl Explored {
    /// Adds what `o` counted and kept.
    pub(crate) fn merge(&mut self, o: Explored) {
        self.passing.merge(&o.passing);
        for (mv, t) in o.moves {
            match self.moves.iter_mut().find(|(m, _)| *m == mv) {
                Some((_, mine)) => mine.merge(&t),
                None => self.moves.push((mv, t)),
            }
        }
        self.games.extend(o.games);
    }

    /// Leaves the games the lists need.
    pub(crate) fn prune(&mut self) {
        let moves = &self.moves;
        keep_games(&mut self.games, &|m| {
            moves.iter().any(|(x, t)| *x == m && t.games() == 1)
        });
    }

    /// The `n` (at most [`GAMES_KEPT`]) highest rated games that played a
    /// move from the position, both ratings known: the highest sum first.
    pub fn top(&self, n: usize) -> Vec<GameRef> {
        let mut v: Vec<GameRef> = self
            .games
            .iter()
            .filter(|g| g.rating > 0)
            .copied()
            .collect();
        v.sort_by(GameRef::top_order);
        v.truncate(n.min(GAMES_KEPT));
        v
    }

    /// The `n` (at most [`GAMES_KEPT`]) most recent games that played a
    /// move from the position.
    pub fn recent(&self, n: usize) -> Vec<GameRef> {
        let mut v = self.games.clone();
        v.sort_by(GameRef::recent_order);
        v.truncate(n.min(GAMES_KEPT));
        v
    }

    /// The game of `mv` when one game only played it.
    pub fn only_game(&self, mv: Move) -> Option<GameRef> {
        let (_, t) = self.moves.iter().find(|(m, _)| *m == mv)?;
        if t.games() != 1 {
            return None;
        }
        self.games.iter().find(|g| g.mv == mv).copied()
    }
}

/// Leaves in `games` the [`GAMES_KEPT`] highest rated, as many most
/// recent, and those whose move `single` says was played once.
fn keep_games(games: &mut Vec<GameRef>, single: &dyn Fn(Move) -> bool) {
    if games.len() <= GAMES_KEPT {
        return;
    }
    let mut keep = HashSet::new();
    let mut by = games.clone();
    by.retain(|g| g.rating > 0);
    by.sort_by(GameRef::top_order);
    keep.extend(by.iter().take(GAMES_KEPT).map(|g| g.id));
    by.clone_from(games);
    by.sort_by(GameRef::recent_order);
    keep.extend(by.iter().take(GAMES_KEPT).map(|g| g.id));
    games.retain(|g| keep.contains(&g.id) || single(g.mv));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rookery_core::{Color, Position};
    use rookery_pgn::GameResult;

    fn result(n: u8) -> GameResult {
        match n % 4 {
            0 => GameResult::WhiteWins,
            1 => GameResult::Draw,
            2 => GameResult::BlackWins,
            _ => GameResult::Unknown,
        }
    }

    proptest! {
        /// Entries of tallies of one game and of several, rated or not,
        /// with their games, read back as they were written.
        #[test]
        fn entries_round_trip(
            games in proptest::collection::vec(
                (0u8..4, any::<bool>(), proptest::option::of(600u32..3000),
                 proptest::option::of(600u32..3000), 0usize..20, any::<u32>()),
                1..6),
            ended in 0u8..5,
        ) {
            let legal = Position::startpos().legal_moves();
            let mut e = Explored::default();
            for (i, &(r, black, a, b, m, date)) in games.iter().enumerate() {
                let mover = if black { Color::Black } else { Color::White };
                let mv = legal[m];
                e.passing.add(result(r), mover, [a, b]);
                let mut t = Tally::default();
                t.add(result(r), mover, [a, b]);
                match e.moves.iter_mut().find(|(x, _)| *x == mv) {
                    Some((_, mine)) => mine.merge(&t),
                    None => e.moves.push((mv, t)),
                }
                e.games.push(GameRef { id: i as u64 + 1, mv, rating: a.unwrap_or(0) + b.unwrap_or(0), date });
            }
            if ended < 4 {
                // A game that ended in the position: the tally through it
                // is not its moves' sum.
                e.passing.add(result(ended), Color::White, [Some(1500), None]);
            }
            let mut bytes = Vec::new();
            encode_entry(&e, &mut bytes);
            prop_assert_eq!(decode_entry(&bytes), Some(e));
        }
    }

    /// A tally of one game takes a byte and its ratings.
    #[test]
    fn one_game_is_a_few_bytes() {
        let mut t = Tally::default();
        t.add(
            GameResult::BlackWins,
            Color::White,
            [Some(2000), Some(2100)],
        );
        let mut bytes = Vec::new();
        put_tally(&mut bytes, &t);
        assert_eq!(bytes.len(), 5);
        assert_eq!(get_tally(&mut bytes.as_slice()), Some(t));
        // An entry of one game: its move, tally, number and date.
        let mv = Position::startpos().legal_moves()[3];
        let e = Explored {
            passing: t,
            moves: vec![(mv, t)],
            games: vec![GameRef {
                id: 70_000,
                mv,
                rating: 4100,
                date: 1 << 20,
            }],
        };
        let mut bytes = Vec::new();
        encode_entry(&e, &mut bytes);
        assert_eq!((bytes[0], bytes.len()), (2, 1 + 2 + 5 + 3 + 3));
        assert_eq!(decode_entry(&bytes), Some(e));
    }
}
