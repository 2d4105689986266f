//! The transposition table: shared by all search threads, without locks.
//!
//! Each slot is two `AtomicU64`: the key XOR the data, and the data. A reader
//! loads both and accepts the entry only if `key ^ data` gives back its own
//! key; a slot torn by two writers racing fails that check and reads as a
//! miss. This is the one deliberate race of the table: concurrent stores to a
//! slot may interleave, and the XOR check turns any mix into a miss (or, with
//! odds of 2^-64, a false hit whose move is then checked for legality before
//! use). Entries are copied out ([`Entry`]), never borrowed.

use rookery_core::Move;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// How a stored score relates to the true score.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Exact score (PV node).
    Exact,
    /// The true score is at least this (fail high).
    Lower,
    /// The true score is at most this (fail low).
    Upper,
}

/// A copy of one table entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best or refuting move, `Move::NULL` if none.
    pub mv: Move,
    /// The score (mate scores relative to the stored node).
    pub score: i32,
    /// The static evaluation.
    pub eval: i32,
    /// The depth searched.
    pub depth: i32,
    /// The kind of bound.
    pub bound: Bound,
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// The table. Sized in megabytes; 16 bytes per entry.
pub struct Table {
    slots: Box<[Slot]>,
    age: AtomicU8,
}

fn pack(e: &Entry, age: u8) -> u64 {
    let bound = match e.bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    u64::from(e.mv.to_u16())
        | (u64::from(e.score as i16 as u16) << 16)
        | (u64::from(e.eval as i16 as u16) << 32)
        | (u64::from(e.depth.clamp(0, 255) as u8) << 48)
        | (bound << 56)
        | (u64::from(age & 0x3f) << 58)
}

fn unpack(d: u64) -> Option<(Entry, u8)> {
    let bound = match (d >> 56) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    Some((
        Entry {
            mv: Move::from_u16(d as u16),
            score: i32::from((d >> 16) as u16 as i16),
            eval: i32::from((d >> 32) as u16 as i16),
            depth: i32::from((d >> 48) as u8),
            bound,
        },
        (d >> 58) as u8,
    ))
}

/// The table could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The allocator refused the memory (or the size does not fit in an address).
    #[error("cannot allocate a {mb} MB hash table: out of memory")]
    OutOfMemory {
        /// The size asked for, in megabytes.
        mb: usize,
    },
}

impl Table {
    /// A table of about `mb` megabytes (at least one entry), or an error if
    /// the memory cannot be had. Nothing is aborted: a size no machine can
    /// give is refused here, so that the caller can keep its old table.
    ///
    /// # Errors
    /// [`TableError::OutOfMemory`].
    pub fn try_new(mb: usize) -> Result<Table, TableError> {
        let oom = TableError::OutOfMemory { mb };
        let bytes = mb.max(1).checked_mul(1 << 20).ok_or(oom.clone())?;
        let n = (bytes / std::mem::size_of::<Slot>()).max(1);
        let mut slots: Vec<Slot> = Vec::new();
        slots.try_reserve_exact(n).map_err(|_| oom)?;
        // Within the capacity just reserved: no further allocation.
        slots.resize_with(n, Slot::default);
        Ok(Table {
            slots: slots.into_boxed_slice(),
            age: AtomicU8::new(0),
        })
    }

    /// A table of about `mb` megabytes, for sizes known to fit (tests, the
    /// engine's small default); falls back to one megabyte if even that
    /// allocation is refused.
    pub fn new(mb: usize) -> Table {
        Table::try_new(mb)
            .or_else(|_| Table::try_new(1))
            .unwrap_or_else(|_| Table {
                slots: Box::new([Slot::default()]),
                age: AtomicU8::new(0),
            })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the table has no entries (never: it always has at least one).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    fn slot(&self, key: u64) -> &Slot {
        let i = ((u128::from(key) * self.slots.len() as u128) >> 64) as usize;
        &self.slots[i]
    }

    /// Empties the table (call only while no search runs).
    pub fn clear(&self) {
        for s in self.slots.iter() {
            s.check.store(0, Relaxed);
            s.data.store(0, Relaxed);
        }
        self.age.store(0, Relaxed);
    }

    /// Starts a new search: older entries become preferred for replacement.
    pub fn new_search(&self) {
        let a = self.age.load(Relaxed);
        self.age.store(a.wrapping_add(1) & 0x3f, Relaxed);
    }

    /// Looks `key` up, copying the entry out.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let s = self.slot(key);
        let data = s.data.load(Relaxed);
        let check = s.check.load(Relaxed);
        if check ^ data != key || data == 0 {
            return None;
        }
        unpack(data).map(|(e, _)| e)
    }

    /// Stores an entry for `key`, replacing what is there if the new entry is
    /// for another position, deeper, exact, or the old one is from an older search.
    pub fn store(&self, key: u64, mut e: Entry) {
        let s = self.slot(key);
        let age = self.age.load(Relaxed);
        let old = s.data.load(Relaxed);
        let old_key = s.check.load(Relaxed) ^ old;
        if let Some((o, oage)) = unpack(old) {
            let same = old_key == key;
            if same && e.mv.is_null() {
                e.mv = o.mv;
            }
            if same && oage == age && e.bound != Bound::Exact && e.depth + 3 < o.depth {
                return;
            }
            if !same && oage == age && o.depth > e.depth + 4 && o.bound == Bound::Exact {
                return;
            }
        }
        let data = pack(&e, age);
        s.check.store(key ^ data, Relaxed);
        s.data.store(data, Relaxed);
    }

    /// Per mille of sampled entries written by the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Relaxed);
        let n = self.slots.len().min(1000);
        if n == 0 {
            return 0;
        }
        let used = self.slots[..n]
            .iter()
            .filter(|s| unpack(s.data.load(Relaxed)).is_some_and(|(_, a)| a == age))
            .count();
        (used * 1000 / n) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::Square;

    #[test]
    fn store_and_probe() {
        let t = Table::new(1);
        let e = Entry {
            mv: Move::normal(Square::E1, Square::H1),
            score: -31_000,
            eval: 123,
            depth: 7,
            bound: Bound::Lower,
        };
        t.store(0xdead_beef, e);
        assert_eq!(t.probe(0xdead_beef), Some(e));
        assert_eq!(t.probe(0xdead_beee), None);
        assert!(t.hashfull() <= 1000);
        t.clear();
        assert_eq!(t.probe(0xdead_beef), None);
    }

    #[test]
    fn an_impossible_size_is_an_error_not_an_abort() {
        // More bytes than the address space holds.
        assert_eq!(
            Table::try_new(usize::MAX).err(),
            Some(TableError::OutOfMemory { mb: usize::MAX })
        );
        // Fits in the address space, not in any allocator (2^62 bytes).
        assert!(Table::try_new(1 << 42).is_err());
        assert_eq!(Table::try_new(1).map(|t| t.len()), Ok((1 << 20) / 16));
    }
}
