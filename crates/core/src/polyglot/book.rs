//! Polyglot opening books (`.bin`) in memory: read from their bytes,
//! looked up, a move picked, merged, written back to bytes. Reading the
//! file and building books from games live above the rules (rookery-pgn's
//! `book`); this is the format, for every crate that plays from a book.
//!
//! A book is a file of 16-byte entries, every integer big-endian: the
//! position's Polyglot key (8 bytes, [`crate::polyglot::key`]), the move
//! (2, [`PolyglotMove`]), a weight (2: how often the move is to be played,
//! relative to the position's other moves) and a learn value (4, kept as
//! it is). Entries are sorted by key, so a reader finds a position by
//! binary search; this is the format Polyglot, python-chess
//! (`chess.polyglot.open_reader`), Stockfish's old book code, Scid, XBoard
//! and cutechess read.
//!
//! ```
//! use rookery_core::polyglot::book::{Book, Entry};
//! use rookery_core::polyglot::PolyglotMove;
//! use rookery_core::{Position, UciMove};
//!
//! let start = Position::startpos();
//! let e4 = UciMove::from_ascii(b"e2e4")?.to_move(&start)?;
//! let entry = Entry { key: start.polyglot_key(), mv: PolyglotMove::from_move(e4), weight: 2, learn: 0 };
//! let bytes = Book::from_entries(vec![entry]).to_bytes();
//! assert_eq!(bytes.len(), 16);
//! let book = Book::from_bytes(&bytes)?;
//! assert_eq!(book.moves(&start)[0].mv, e4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::PolyglotMove;
use crate::moves::Move;
use crate::position::Position;
use core::fmt;

/// Bytes of one entry.
pub const ENTRY_BYTES: usize = 16;

/// The largest weight an entry holds.
pub const MAX_WEIGHT: u16 = u16::MAX;

/// One entry of a book: a position's key, a move, its weight and learn value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The Polyglot key of the position ([`Position::polyglot_key`]).
    pub key: u64,
    /// The move, as the format encodes it.
    pub mv: PolyglotMove,
    /// How often to play the move, relative to the position's other moves
    /// (0: never, though it is listed).
    pub weight: u16,
    /// Free for programs that learn from their games (Polyglot's `BookLearn`);
    /// books built here write 0.
    pub learn: u32,
}

impl Entry {
    /// An entry from its 16 bytes.
    pub fn from_bytes(b: [u8; ENTRY_BYTES]) -> Entry {
        let [k0, k1, k2, k3, k4, k5, k6, k7, m0, m1, w0, w1, l0, l1, l2, l3] = b;
        Entry {
            key: u64::from_be_bytes([k0, k1, k2, k3, k4, k5, k6, k7]),
            mv: PolyglotMove(u16::from_be_bytes([m0, m1])),
            weight: u16::from_be_bytes([w0, w1]),
            learn: u32::from_be_bytes([l0, l1, l2, l3]),
        }
    }

    /// The entry's 16 bytes.
    pub fn to_bytes(&self) -> [u8; ENTRY_BYTES] {
        let mut b = [0u8; ENTRY_BYTES];
        b[..8].copy_from_slice(&self.key.to_be_bytes());
        b[8..10].copy_from_slice(&self.mv.0.to_be_bytes());
        b[10..12].copy_from_slice(&self.weight.to_be_bytes());
        b[12..].copy_from_slice(&self.learn.to_be_bytes());
        b
    }
}

/// Bytes that are not a book: their length is not a whole number of
/// 16-byte entries (not a Polyglot book, or a truncated one).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LengthError {
    /// The length in bytes.
    pub len: usize,
}

impl fmt::Display for LengthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} bytes is not a whole number of 16-byte entries: not a Polyglot book, or a truncated one",
            self.len
        )
    }
}

impl std::error::Error for LengthError {}

/// A move a book gives for a position, with its entry's values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move, legal in the position.
    pub mv: Move,
    /// As the book encodes it.
    pub raw: PolyglotMove,
    /// Its weight.
    pub weight: u16,
    /// Its learn value.
    pub learn: u32,
}

/// A Polyglot book in memory: its entries sorted by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    entries: Vec<Entry>,
    /// Whether the entries were sorted by key as read.
    sorted_as_read: bool,
}

/// Entries in the order books are written: by key, then the heaviest move
/// first (as Polyglot writes them), then by move for a fixed order.
fn write_order(a: &Entry, b: &Entry) -> std::cmp::Ordering {
    a.key
        .cmp(&b.key)
        .then(b.weight.cmp(&a.weight))
        .then(a.mv.cmp(&b.mv))
}

impl Book {
    /// A book of `entries`, put in the order books are written: by key,
    /// the heaviest move of a position first, then by move.
    pub fn from_entries(mut entries: Vec<Entry>) -> Book {
        entries.sort_unstable_by(write_order);
        Book {
            entries,
            sorted_as_read: true,
        }
    }

    /// A book of entries already in order (by key at least, as a builder
    /// or a merge makes them), kept in that order; entries that are not
    /// sorted by key are sorted (stably).
    pub fn from_sorted_entries(mut entries: Vec<Entry>) -> Book {
        if !entries.windows(2).all(|w| w[0].key <= w[1].key) {
            entries.sort_by_key(|e| e.key);
        }
        Book {
            entries,
            sorted_as_read: true,
        }
    }

    /// Reads a book from its bytes. Entries keep their order within a key;
    /// a book not sorted by key is sorted (stably), and
    /// [`Book::was_sorted`] says so.
    ///
    /// # Errors
    /// [`LengthError`] if the length is not a multiple of 16.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, LengthError> {
        if bytes.len() % ENTRY_BYTES != 0 {
            return Err(LengthError { len: bytes.len() });
        }
        let mut entries: Vec<Entry> = bytes
            .chunks_exact(ENTRY_BYTES)
            .map(|c| {
                let mut b = [0u8; ENTRY_BYTES];
                b.copy_from_slice(c);
                Entry::from_bytes(b)
            })
            .collect();
        let sorted = entries.windows(2).all(|w| w[0].key <= w[1].key);
        if !sorted {
            entries.sort_by_key(|e| e.key);
        }
        Ok(Book {
            entries,
            sorted_as_read: sorted,
        })
    }

    /// The entries, sorted by key.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the entries were sorted by key as read (a reader that
    /// searches the file, as Polyglot and python-chess do, needs them to be).
    pub fn was_sorted(&self) -> bool {
        self.sorted_as_read
    }

    /// The entries of the position with Polyglot key `key`, in book order.
    pub fn lookup(&self, key: u64) -> &[Entry] {
        let lo = self.entries.partition_point(|e| e.key < key);
        let hi = lo + self.entries[lo..].partition_point(|e| e.key == key);
        &self.entries[lo..hi]
    }

    /// The book's moves for `pos` that are legal there, in book order
    /// (weight-0 entries included). Entries whose move is not legal (a key
    /// collision, a damaged entry) are left out.
    pub fn moves(&self, pos: &Position) -> Vec<BookMove> {
        self.lookup(pos.polyglot_key())
            .iter()
            .filter_map(|e| {
                e.mv.to_move(pos).map(|mv| BookMove {
                    mv,
                    raw: e.mv,
                    weight: e.weight,
                    learn: e.learn,
                })
            })
            .collect()
    }

    /// A move for `pos` drawn with probability weight / (sum of the
    /// weights of its legal book moves), as Polyglot and python-chess's
    /// `weighted_choice` draw; `draw` is a uniformly random number (the
    /// caller's generator, so that a seed reproduces the choice). `None`
    /// when no legal move of the position has a weight above 0.
    pub fn pick(&self, pos: &Position, draw: u64) -> Option<BookMove> {
        let moves: Vec<BookMove> = self
            .moves(pos)
            .into_iter()
            .filter(|m| m.weight > 0)
            .collect();
        let total: u64 = moves.iter().map(|m| u64::from(m.weight)).sum();
        if total == 0 {
            return None;
        }
        // Multiply-high: a number below `total`, bias below total / 2^64.
        let mut r = ((u128::from(draw) * u128::from(total)) >> 64) as u64;
        for m in &moves {
            let w = u64::from(m.weight);
            if r < w {
                return Some(*m);
            }
            r -= w;
        }
        // r < total, so the loop returns; keep the last move for safety.
        moves.last().copied()
    }

    /// The book as bytes (16 per entry, in order).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.entries.len() * ENTRY_BYTES);
        for e in &self.entries {
            out.extend_from_slice(&e.to_bytes());
        }
        out
    }

    /// The two books as one, as `polyglot merge-book` merges them: a
    /// position's moves from both; a move in both gets the sum of its two
    /// weights and `self`'s learn value. A position's entries are `self`'s
    /// in their order, then `other`'s moves that `self` lacks in theirs
    /// (Polyglot's order, so the file is the same byte for byte). Where a
    /// position's summed weights pass 65,535, they are scaled down together
    /// ([`scale_position`]; Polyglot keeps only the low 16 bits).
    pub fn merge(&self, other: &Book) -> Book {
        let (a, b) = (&self.entries, &other.entries);
        let mut entries = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        let mut sums: Vec<u64> = Vec::new();
        while i < a.len() || j < b.len() {
            let key = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => x.key.min(y.key),
                (Some(x), None) => x.key,
                (None, Some(y)) => y.key,
                (None, None) => break,
            };
            let n = a[i..].partition_point(|e| e.key == key);
            let m = b[j..].partition_point(|e| e.key == key);
            let (ours, theirs) = (&a[i..i + n], &b[j..j + m]);
            let group_start = entries.len();
            sums.clear();
            for e in ours {
                entries.push(*e);
                sums.push(u64::from(e.weight));
            }
            for e in theirs {
                match ours.iter().position(|o| o.mv == e.mv) {
                    Some(k) => sums[k] += u64::from(e.weight),
                    None => {
                        entries.push(*e);
                        sums.push(u64::from(e.weight));
                    }
                }
            }
            for (e, w) in entries[group_start..].iter_mut().zip(scale_position(&sums)) {
                e.weight = w;
            }
            i += n;
            j += m;
        }
        Book::from_sorted_entries(entries)
    }

    /// Counts of the book as a whole.
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            entries: self.entries.len(),
            sorted: self.sorted_as_read,
            ..Summary::default()
        };
        let mut i = 0;
        while i < self.entries.len() {
            let key = self.entries[i].key;
            let n = self.entries[i..].partition_point(|e| e.key == key);
            let group = &self.entries[i..i + n];
            s.positions += 1;
            s.most_moves = s.most_moves.max(n);
            let mut moves: Vec<PolyglotMove> = group.iter().map(|e| e.mv).collect();
            moves.sort_unstable();
            moves.dedup();
            s.duplicates += n - moves.len();
            for e in group {
                s.total_weight += u64::from(e.weight);
                s.max_weight = s.max_weight.max(e.weight);
                s.zero_weight += usize::from(e.weight == 0);
                s.learned += usize::from(e.learn != 0);
            }
            i += n;
        }
        s
    }
}

/// Counts of a book ([`Book::summary`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Entries.
    pub entries: usize,
    /// Distinct keys (positions).
    pub positions: usize,
    /// The most entries one key has.
    pub most_moves: usize,
    /// Entries that repeat a move of their position.
    pub duplicates: usize,
    /// Entries of weight 0 (listed, never played).
    pub zero_weight: usize,
    /// Entries with a learn value other than 0.
    pub learned: usize,
    /// The sum of all weights.
    pub total_weight: u64,
    /// The largest weight.
    pub max_weight: u16,
    /// Whether the file was sorted by key.
    pub sorted: bool,
}

/// The weights of one position's moves as 16-bit numbers: unchanged when
/// the largest fits; otherwise all multiplied by 65,535 / the largest
/// (rounded down, so their ratios stay within rounding), a weight above 0
/// never falling to 0.
pub fn scale_position(weights: &[u64]) -> Vec<u16> {
    let max = weights.iter().copied().max().unwrap_or(0);
    let limit = u64::from(MAX_WEIGHT);
    weights
        .iter()
        .map(|&w| {
            if max <= limit {
                w as u16
            } else {
                let scaled = (u128::from(w) * u128::from(limit) / u128::from(max)) as u16;
                if w > 0 {
                    scaled.max(1)
                } else {
                    0
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci::UciMove;
    use std::collections::BTreeMap;

    fn entry(key: u64, mv: u16, weight: u16, learn: u32) -> Entry {
        Entry {
            key,
            mv: PolyglotMove(mv),
            weight,
            learn,
        }
    }

    #[test]
    fn entries_are_big_endian_16_bytes() {
        let e = entry(0x0102_0304_0506_0708, 0x090a, 0x0b0c, 0x0d0e_0f10);
        let b = e.to_bytes();
        assert_eq!(b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        assert_eq!(Entry::from_bytes(b), e);
    }

    #[test]
    fn a_bad_length_is_refused_and_an_unsorted_book_is_sorted() {
        assert_eq!(Book::from_bytes(&[0; 17]), Err(LengthError { len: 17 }));
        let mut bytes = Vec::new();
        for e in [entry(5, 1, 1, 0), entry(3, 2, 1, 0), entry(5, 3, 1, 0)] {
            bytes.extend_from_slice(&e.to_bytes());
        }
        let b = Book::from_bytes(&bytes).unwrap();
        assert!(!b.was_sorted());
        let keys: Vec<u64> = b.entries().iter().map(|e| e.key).collect();
        assert_eq!(keys, [3, 5, 5]);
        // Stable within a key.
        assert_eq!(b.lookup(5)[0].mv, PolyglotMove(1));
        assert!(b.lookup(4).is_empty());
    }

    #[test]
    fn picks_follow_the_weights_and_skip_weight_zero() {
        let pos = Position::startpos();
        let key = pos.polyglot_key();
        let mv = |s: &str| {
            PolyglotMove::from_move(
                UciMove::from_ascii(s.as_bytes())
                    .unwrap()
                    .to_move(&pos)
                    .unwrap(),
            )
            .0
        };
        let b = Book::from_entries(vec![
            entry(key, mv("e2e4"), 3, 0),
            entry(key, mv("d2d4"), 1, 0),
            entry(key, mv("a2a3"), 0, 0),
            // Not a legal move here: left out.
            entry(key, 0x0fff, 9, 0),
        ]);
        assert_eq!(b.moves(&pos).len(), 3);
        let mut counts = BTreeMap::new();
        let n = 4000u64;
        for i in 0..n {
            // Evenly spread draws over the u64 range, each in the middle
            // of its share.
            let draw = ((u128::from(2 * i + 1) << 64) / u128::from(2 * n)) as u64;
            let m = b.pick(&pos, draw).unwrap();
            *counts.entry(m.raw.to_string()).or_insert(0u64) += 1;
        }
        assert_eq!(counts.get("e2e4"), Some(&3000));
        assert_eq!(counts.get("d2d4"), Some(&1000));
        assert_eq!(counts.get("a2a3"), None);
        let only_zero = Book::from_entries(vec![entry(key, mv("a2a3"), 0, 0)]);
        assert_eq!(only_zero.pick(&pos, 7), None);
    }

    #[test]
    fn merging_sums_a_shared_move_and_keeps_the_first_learn_value() {
        let a = Book::from_entries(vec![entry(1, 10, 5, 7), entry(2, 20, 1, 0)]);
        let b = Book::from_entries(vec![entry(1, 10, 6, 9), entry(1, 11, 2, 3)]);
        let m = a.merge(&b);
        assert_eq!(
            m.entries(),
            [entry(1, 10, 11, 7), entry(1, 11, 2, 3), entry(2, 20, 1, 0)]
        );
        // Past 16 bits: the position's weights scaled together.
        let big = Book::from_entries(vec![entry(1, 10, 60000, 0), entry(1, 11, 30000, 0)]);
        let m = big.merge(&big);
        assert_eq!(
            m.entries(),
            [entry(1, 10, 65535, 0), entry(1, 11, 32767, 0)]
        );
        assert_eq!(scale_position(&[1, 1_000_000, 0]), [1, 65535, 0]);
        // Polyglot's order: the first book's entries as they were, then the
        // second's new moves, however heavy.
        let a = Book::from_bytes(
            &[entry(1, 30, 2, 0), entry(1, 20, 2, 0)]
                .iter()
                .flat_map(Entry::to_bytes)
                .collect::<Vec<u8>>(),
        )
        .unwrap();
        let b = Book::from_entries(vec![entry(1, 40, 9, 0), entry(1, 20, 1, 0)]);
        assert_eq!(
            a.merge(&b).entries(),
            [entry(1, 30, 2, 0), entry(1, 20, 3, 0), entry(1, 40, 9, 0)]
        );
    }

    #[test]
    fn summary_counts() {
        let b = Book::from_entries(vec![
            entry(1, 10, 5, 0),
            entry(1, 10, 0, 2),
            entry(2, 20, 1, 0),
        ]);
        let s = b.summary();
        assert_eq!(
            (
                s.entries,
                s.positions,
                s.most_moves,
                s.duplicates,
                s.zero_weight,
                s.learned
            ),
            (3, 2, 2, 1, 1, 1)
        );
        assert_eq!((s.total_weight, s.max_weight, s.sorted), (6, 5, true));
    }
}
