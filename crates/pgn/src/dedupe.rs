//! Which games are duplicates: the library half of `rookery pgn dedupe`.
//!
//! Two games are duplicates when they reach the same final position by the
//! same sequence of positions, whatever their tags, comments, NAGs and
//! variations: pgn-extract's `-D` criterion (its final position's hash and a
//! hash accumulated over the positions). A game is reduced to a 128-bit
//! [`GameKey`]: the Zobrist key of its final position ([`rookery_core::Position::hash`])
//! in the high half, a hash of the keys of every mainline position, in
//! order and the starting position included, in the low half. The first game
//! with a key is kept; a later one is a duplicate of it.
//!
//! [`KeyPlan`] loosens or tightens the criterion: with
//! [`KeyPlan::fuzzy_ply`] `N`, games of at least `N` plies are duplicates
//! when they stand in the same position after ply `N` (pgn-extract's
//! `--fuzzydepth`; shorter games are compared as above, and `0` compares the
//! final positions alone); with [`KeyPlan::same_tags`] they must also have
//! the same values of those tags (Scid's "same players, same date": a tag
//! a game lacks has a value of its own, different from every text).
//!
//! [`Seen`] remembers the keys of the games kept, at most 16 bytes a game
//! once there are a million (about 14.5; 8 more with where each was, for
//! reports), and with a memory cap spills them to disk (see
//! [`crate::keyset`]).
//!
//! ```
//! use rookery_pgn::dedupe::{KeyPlan, Seen};
//! use rookery_pgn::{game::Detail, Games};
//!
//! let pgn = "[White \"a\"]\n\n1. e4 e5 2. Nf3 *\n\n\
//!            [White \"b\"]\n\n1. e4 {a comment} e5 (1... c5) 2. Nf3 1-0\n\n\
//!            [White \"c\"]\n\n1. Nf3 e5 2. e4 *\n";
//! let plan = KeyPlan::default();
//! let mut seen = Seen::new(false, None);
//! let mut kept = Vec::new();
//! for g in Games::new(pgn.as_bytes()).with_detail(plan.detail()) {
//!     let g = g?;
//!     if seen.first(plan.key(&g, &[]), 0)?.is_none() {
//!         kept.push(g.game.tags.get("White").unwrap_or("").to_owned());
//!     }
//! }
//! // b plays a's moves; c reaches a's final position by other positions.
//! assert_eq!(kept, ["a", "c"]);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io;

use crate::copy::tag_value;
use crate::game::{Detail, ReadGame};
use crate::keyset::KeySet;

/// What a game is reduced to (see the module documentation).
pub type GameKey = u128;

/// An odd constant with well spread bits (2^64 / golden ratio): a step of
/// the sequence hash multiplies by it.
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// The last step of a 64-bit hash (SplitMix64's finaliser): every bit of
/// the input moves about half the bits of the output.
fn finish(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A hash of a sequence of 64-bit values, in order: `a, b` and `b, a`
/// differ (pgn-extract adds the keys up, which does not see the order).
#[derive(Copy, Clone, Debug)]
struct Sequence(u64);

impl Sequence {
    fn new(seed: u64) -> Sequence {
        Sequence(finish(seed))
    }

    #[inline]
    fn push(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(23) ^ v).wrapping_mul(MIX);
    }

    /// Bytes, eight at a time (the last few padded), then their number.
    fn push_bytes(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            // `chunks_exact(8)` gives eight bytes.
            self.push(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.push(u64::from_le_bytes(last));
        self.push(bytes.len() as u64);
    }

    fn value(self) -> u64 {
        finish(self.0)
    }
}

/// Seeds of the low half, one for each kind of key: a key made one way
/// never equals a key made another way by construction.
const SEED_EXACT: u64 = 1;
/// See [`SEED_EXACT`].
const SEED_FUZZY: u64 = 2;
/// A tag the game lacks (no text hashes to it: texts end with their length).
const MISSING_TAG: u64 = u64::MAX;

/// How games are compared (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyPlan {
    /// Games of at least this many plies are compared by the position after
    /// that ply (`Some(0)`: by their final position).
    pub fuzzy_ply: Option<usize>,
    /// Tags whose values must be the same too.
    pub same_tags: Vec<String>,
}

impl KeyPlan {
    /// How much of each game [`KeyPlan::key`] needs: no moves, only the
    /// keys of the positions the mainline reaches (read at any detail).
    pub fn detail(&self) -> Detail {
        // The keys of the mainline positions are read at any detail
        // (`ReadGame::keys`): no move list needs to be built.
        Detail::Count
    }

    /// The key of game `g`, whose bytes are `raw` (read only for a tag
    /// value that is not UTF-8, see [`tag_value`]). The game must have been
    /// read with [`KeyPlan::detail`] (or more); its positions are those the
    /// reader reached (a game with an error has the key of its moves up to
    /// the error).
    pub fn key(&self, g: &ReadGame, raw: &[u8]) -> GameKey {
        let start = g.game.start.hash();
        // The key of the position after `n` plies.
        let after = |n: usize| n.checked_sub(1).map_or(start, |i| g.keys[i]);
        let end = after(g.keys.len());
        let fuzzy = self.fuzzy_ply.filter(|&n| n <= g.keys.len());
        let (high, mut low) = match fuzzy {
            Some(0) => (end, Sequence::new(SEED_FUZZY)),
            Some(n) => {
                let mut low = Sequence::new(SEED_FUZZY);
                low.push(n as u64);
                (after(n), low)
            }
            None => {
                let mut low = Sequence::new(SEED_EXACT);
                low.push(start);
                for &k in &g.keys {
                    low.push(k);
                }
                (end, low)
            }
        };
        for name in &self.same_tags {
            match tag_value(g, raw, name) {
                Some(v) => low.push_bytes(v.as_bytes()),
                None => low.push(MISSING_TAG),
            }
        }
        u128::from(high) << 64 | u128::from(low.value())
    }
}

/// The keys of the games kept so far (see the module documentation).
pub struct Seen {
    keys: KeySet,
}

impl Seen {
    /// An empty memory; `payloads`: keep a `u64` with each key (where the
    /// game was, handed back with its duplicates: 8 more bytes a key);
    /// `cap`: keep about that many bytes in memory, the rest on disk.
    pub fn new(payloads: bool, cap: Option<usize>) -> Seen {
        let mut keys = KeySet::new();
        if payloads {
            keys = keys.with_payloads();
        }
        if let Some(cap) = cap {
            keys = keys.with_cap(cap);
        }
        Seen { keys }
    }

    /// `None` if no game with `key` was seen (it is remembered now, with
    /// `payload`), else the payload of the first one (0 without payloads).
    ///
    /// # Errors
    /// I/O errors of the temporary file, with a cap.
    pub fn first(&mut self, key: GameKey, payload: u64) -> io::Result<Option<u64>> {
        self.keys.insert(key, payload)
    }

    /// Games remembered.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no game was remembered.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Bytes of memory held now.
    pub fn memory(&self) -> usize {
        self.keys.memory()
    }

    /// Times the keys were spilled to disk.
    pub fn spills(&self) -> usize {
        self.keys.spills()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Games;

    fn keys(plan: &KeyPlan, pgn: &str) -> Vec<GameKey> {
        Games::new(pgn.as_bytes())
            .with_detail(plan.detail())
            .map(|g| plan.key(&g.unwrap(), &[]))
            .collect()
    }

    /// Games that are pairs of each other by index: `same[i] == same[j]`
    /// iff `keys[i] == keys[j]`.
    fn classes(keys: &[GameKey]) -> Vec<usize> {
        keys.iter()
            .map(|k| keys.iter().position(|o| o == k).unwrap_or(0))
            .collect()
    }

    const GAMES: &str = "\
[White \"A\"]\n[Black \"B\"]\n[Date \"2020.01.01\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n\
[White \"C\"]\n[Black \"D\"]\n\n1. e4 {x} e5 $1 (1... c5 2. Nf3) 2. Nf3 Nc6 1-0\n\n\
[White \"A\"]\n[Black \"B\"]\n[Date \"2020.01.01\"]\n\n1. Nf3 Nc6 2. e4 e5 *\n\n\
[White \"A\"]\n[Black \"B\"]\n[Date \"2020.01.02\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n\
[White \"A\"]\n[Black \"B\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. e4 e5 4. Nf3 Nc6 *\n\n\
[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]\n[SetUp \"1\"]\n\n1... e5 2. Nf3 Nc6 *\n\n\
[White \"E\"]\n\n*\n\n[White \"F\"]\n\n*\n";

    #[test]
    fn same_positions_in_the_same_order() {
        let k = keys(&KeyPlan::default(), GAMES);
        // 2 plays 1's moves; 3 and 5 reach 1's final position by other
        // positions; 4 goes on; 6 starts after 1. e4; 7 and 8 have no moves.
        assert_eq!(classes(&k), [0, 0, 2, 3, 4, 5, 6, 6]);
        // The final position is the high half.
        assert_eq!(k[0] >> 64, k[2] >> 64);
        assert_eq!(k[0] >> 64, k[5] >> 64);
    }

    #[test]
    fn the_order_of_the_positions_counts() {
        // The same positions (twice each) in another order.
        let pgn = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nc3 Nc6 4. Nb1 Nb8 *\n\n\
                   1. Nc3 Nc6 2. Nb1 Nb8 3. Nf3 Nf6 4. Ng1 Ng8 *\n";
        let k = keys(&KeyPlan::default(), pgn);
        assert_eq!(k[0] >> 64, k[1] >> 64);
        assert_ne!(k[0], k[1]);
    }

    #[test]
    fn fuzzy_compares_the_position_at_a_ply() {
        let plan = KeyPlan {
            fuzzy_ply: Some(4),
            ..KeyPlan::default()
        };
        // 1, 2, 3 and 4 stand after ply 4 where 1 ends (3 by
        // transposition); 5 does not; 6 has 3 plies (compared exactly).
        assert_eq!(classes(&keys(&plan, GAMES)), [0, 0, 0, 0, 4, 5, 6, 6]);
        let plan = KeyPlan {
            fuzzy_ply: Some(0),
            ..KeyPlan::default()
        };
        // The final position alone: 1, 2, 3, 5 and 6 end in one.
        assert_eq!(classes(&keys(&plan, GAMES)), [0, 0, 0, 3, 0, 0, 6, 6]);
    }

    #[test]
    fn same_tags_tightens() {
        let plan = KeyPlan {
            fuzzy_ply: Some(4),
            same_tags: vec!["White".into(), "Date".into()],
        };
        // 2 has other players; 4 another date; 3 keeps 1's.
        assert_eq!(classes(&keys(&plan, GAMES)), [0, 1, 0, 3, 4, 5, 6, 7]);
        // A missing tag is a value of its own, not the empty text.
        let plan = KeyPlan {
            same_tags: vec!["Date".into()],
            ..KeyPlan::default()
        };
        let k = keys(&plan, "[Date \"\"]\n\n*\n\n*\n\n[Date \"\"]\n\n*\n");
        assert_eq!(classes(&k), [0, 1, 0]);
    }

    #[test]
    fn seen_keeps_the_first() {
        let mut seen = Seen::new(true, None);
        assert_eq!(seen.first(5, 10).unwrap(), None);
        assert_eq!(seen.first(6, 11).unwrap(), None);
        assert_eq!(seen.first(5, 12).unwrap(), Some(10));
        assert_eq!(seen.len(), 2);
    }
}
