//! A set of 128-bit keys in under 16 bytes a key, spilling to disk past a
//! memory cap: what `rookery pgn dedupe` remembers of the games it has kept.
//!
//! The keys live in one sorted array of 14-byte records. A record holds the
//! low 112 bits of its key; the top 16 bits are implied by where it stands:
//! a directory gives, for each value of the keys' top bits, where the keys
//! with that value start in the array. It has 65,536 buckets (the top 16
//! bits: a fixed 256 KiB of `u32`) up to 2 M keys, then twice as many each
//! time the keys double, so that a bucket holds 16 to 32 keys (1/8 to 1/4
//! byte a key; `u64` past 4 G keys). No bit is dropped: two keys are taken
//! for one only when all their 128 bits are equal. A search reads its key's
//! bucket from the directory, then looks first where the key would stand if
//! the bucket's keys were spread exactly evenly (they are hashes: the guess
//! lands close) and gallops from there; keys spread unevenly cost a few more
//! steps, never more than twice a bisection's.
//!
//! New keys go to a small hash table first; when it holds a sixty-fourth of
//! the array, they are sorted and merged into the array in place, from the
//! back (every record moves once; the array grows by exactly the new
//! records).
//!
//! Memory, all of it counted by [`KeySet::memory`]: 14 bytes a key in the
//! array; the table, 16 bytes a slot with 4/3 to 8/3 slots for each key it
//! may take (1/3 to 2/3 byte per key of the array); the directory, 256 KiB
//! once the set holds more keys than its first table takes (4,096), 1/8 to
//! 1/4 byte a key past 2 M keys. About 14.7 bytes a key at 1 M keys, 14.4
//! at 10 M and 50 M, at most 14.9 at 100 M; a set of a few thousand keys
//! holds the table alone (128 KiB).
//!
//! A merge holds more for a moment: the table's keys, sorted where they lie
//! (with payloads, copied out as 32-byte pairs and the table freed), while
//! the array grows by their records; when the directory doubles, the old
//! one and the new one. The array grows by `realloc`, which glibc does for
//! a large block by remapping its pages, not copying them (at 50 M keys the
//! process's peak resident memory is within 2% of [`KeySet::memory`]); an
//! allocator that copies holds the old array and the new one while it
//! copies.
//!
//! With a memory cap ([`KeySet::with_cap`]) the array, once the set's memory
//! would pass the cap, is merged with the keys already on disk into one
//! sorted run (a temporary file of 16-byte keys, gone with the set), and it
//! and its directory are freed: memory then holds the table and every 256th
//! key of the run, and a key is looked for in the run with one read of
//! 4 KiB. A cap under the directory's 256 KiB spills at every merge.
//!
//! Each key may carry a `u64` payload ([`KeySet::with_payloads`]: where a
//! kept game stands, for reports), 8 more bytes a key, in an array beside
//! the records.
//!
//! ```
//! use rookery_pgn::keyset::KeySet;
//! let mut set = KeySet::new().with_payloads();
//! assert_eq!(set.insert(7 << 64 | 1, 10)?, None);
//! assert_eq!(set.insert(3, 11)?, None);
//! // Seen before: the payload it was first inserted with.
//! assert_eq!(set.insert(7 << 64 | 1, 12)?, Some(10));
//! assert_eq!(set.len(), 2);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};

/// Fewest keys the table of new keys takes before they are merged.
const MIN_FRESH: usize = 1 << 12;
/// Fewest keys the table takes under a small memory cap.
const MIN_FRESH_CAPPED: usize = 16;
/// The table of new keys takes up to this share of the array's keys.
const FRESH_SHARE: usize = 64;
/// Keys of a run on disk per entry of its index in memory (one read).
const RUN_BLOCK: usize = 256;
/// A search bisects a stretch of at most this many records.
const BISECT_BELOW: usize = 16;
/// The bits of a key its record holds.
const LOW_BITS: u32 = 112;
/// The low [`LOW_BITS`] of a key.
const LOW_MASK: u128 = (1 << LOW_BITS) - 1;
/// Bytes of a record.
const RECORD: usize = LOW_BITS as usize / 8;
/// The bits a record leaves out, which its place in the array implies.
const IMPLIED_BITS: u32 = 128 - LOW_BITS;
/// Keys of the sorted array per bucket of its directory, at least, once the
/// array is large (at most twice as many; below 2 M keys, fewer buckets).
const KEYS_PER_BUCKET: usize = 16;
/// Most top bits a directory's bucket is chosen by (4 G buckets).
const MAX_BITS: u32 = 32;

/// The bits of `key` its record holds.
#[inline]
fn low_of(key: u128) -> u128 {
    key & LOW_MASK
}

/// The little-endian word of the 8 bytes of `bytes` from `at`.
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The low bits held by record `i` of `records` (little-endian).
#[inline(always)]
fn record(records: &[u8], i: usize) -> u128 {
    let at = i * RECORD;
    // Bytes 0..8 are bits 0..64; bytes 6..14 are bits 48..112, of which
    // the top 48 are the rest.
    u128::from(word(records, at + 6) >> 16) << 64 | u128::from(word(records, at))
}

/// Writes `low` (the low bits of a key) as record `i` of `records`.
#[inline]
fn put_record(records: &mut [u8], i: usize, low: u128) {
    records[i * RECORD..(i + 1) * RECORD].copy_from_slice(&low.to_le_bytes()[..RECORD]);
}

/// Where `low` is among records `lo..hi` of `records` (sorted, of one
/// bucket), or where it would go: as [`slice::binary_search`], in indices of
/// the whole array. The keys of a bucket are hashes, spread evenly over its
/// range, so the first guess is where the value would stand in an even
/// spread (`share` of 2^64 of the way, [`Directory::share_of`]); from there
/// the search gallops (steps of 1, 2, 4, ... records, all near the guess)
/// until it passes the value, then bisects the last step.
fn search(records: &[u8], lo: usize, hi: usize, low: u128, share: u64) -> Result<usize, usize> {
    let n = hi - lo;
    if n <= BISECT_BELOW {
        return bisect(records, lo, hi, low);
    }
    // A share of 2^64 of the records: below n.
    let guess = lo + ((u128::from(share) * n as u128) >> 64) as usize;
    match record(records, guess).cmp(&low) {
        std::cmp::Ordering::Equal => Ok(guess),
        std::cmp::Ordering::Less => {
            // The value is above `guess`: records guess + 1.. .
            let (mut from, mut step) = (guess + 1, 1);
            loop {
                let to = from.saturating_add(step).min(hi);
                if to == hi || record(records, to - 1) >= low {
                    return bisect(records, from, to, low);
                }
                from = to;
                step *= 2;
            }
        }
        std::cmp::Ordering::Greater => {
            // The value is below `guess`: records ..guess.
            let (mut to, mut step) = (guess, 1);
            loop {
                let from = to.saturating_sub(step).max(lo);
                if from == lo || record(records, from) <= low {
                    return bisect(records, from, to, low);
                }
                to = from;
                step *= 2;
            }
        }
    }
}

/// [`search`] by bisection alone.
fn bisect(records: &[u8], mut lo: usize, mut hi: usize, low: u128) -> Result<usize, usize> {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match record(records, mid).cmp(&low) {
            std::cmp::Ordering::Equal => return Ok(mid),
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    Err(lo)
}

/// Where the records of each bucket start in the sorted array. A bucket
/// holds the keys of one value of their top `bits` bits (at least the
/// [`IMPLIED_BITS`] its records leave out, more as the array grows, so that
/// a bucket holds about [`KEYS_PER_BUCKET`] keys): bucket `b` is records
/// `start(b)..start(b + 1)`, and `start(1 << bits)` is their count.
struct Directory {
    bits: u32,
    starts: Starts,
}

/// The starts of a [`Directory`]'s buckets, and one past the last.
enum Starts {
    /// No records (nothing allocated).
    Empty,
    /// Up to `u32::MAX` records.
    Narrow(Vec<u32>),
    /// More.
    Wide(Vec<u64>),
}

impl Directory {
    /// The directory of no records.
    fn new() -> Directory {
        Directory {
            bits: IMPLIED_BITS,
            starts: Starts::Empty,
        }
    }

    /// Buckets.
    fn buckets(&self) -> usize {
        1 << self.bits
    }

    fn bytes(&self) -> usize {
        match &self.starts {
            Starts::Empty => 0,
            Starts::Narrow(s) => s.capacity() * 4,
            Starts::Wide(s) => s.capacity() * 8,
        }
    }

    /// The bucket of `key`: its top bits.
    #[inline]
    fn bucket_of(&self, key: u128) -> usize {
        (key >> (128 - self.bits)) as usize
    }

    /// Where `key` stands among the keys of its bucket if they are spread
    /// evenly, as a share of 2^64: the bits below the bucket's.
    #[inline]
    fn share_of(&self, key: u128) -> u64 {
        ((key << self.bits) >> 64) as u64
    }

    #[inline]
    fn start(&self, b: usize) -> usize {
        match &self.starts {
            Starts::Empty => 0,
            Starts::Narrow(s) => s[b] as usize,
            // A record index: it fits a usize, as the array does.
            Starts::Wide(s) => s[b] as usize,
        }
    }

    /// The records of bucket `b`.
    #[inline]
    fn bucket(&self, b: usize) -> (usize, usize) {
        (self.start(b), self.start(b + 1))
    }

    /// The whole key of record `i` of `records`, which this directory
    /// indexes; `b` is a bucket at or before the record's, moved to it
    /// (walking the records in order walks the buckets once).
    #[inline]
    fn key_at(&self, records: &[u8], i: usize, b: &mut usize) -> u128 {
        while self.start(*b + 1) <= i {
            *b += 1;
        }
        ((*b >> (self.bits - IMPLIED_BITS)) as u128) << LOW_BITS | record(records, i)
    }

    /// The directory once the keys of `new` (sorted) are merged into the
    /// records it indexes.
    fn add(&mut self, new: &Drained) {
        let total = self.start(self.buckets()) + new.len();
        if let Starts::Empty = self.starts {
            self.starts = Starts::Narrow(vec![0; self.buckets() + 1]);
        }
        if let Starts::Narrow(s) = &self.starts {
            if u32::try_from(total).is_err() {
                self.starts = Starts::Wide(s.iter().map(|&x| u64::from(x)).collect());
            }
        }
        // Each start moves up by the new keys of the buckets before it.
        let mut j = 0;
        let shift = 128 - self.bits;
        let mut before = |b: usize| {
            while j < new.len() && ((new.key(j) >> shift) as usize) < b {
                j += 1;
            }
            j
        };
        match &mut self.starts {
            Starts::Empty => {}
            // At most `total`, which fits a u32 here.
            Starts::Narrow(s) => {
                for (b, x) in s.iter_mut().enumerate() {
                    *x += before(b) as u32;
                }
            }
            Starts::Wide(s) => {
                for (b, x) in s.iter_mut().enumerate() {
                    *x += before(b) as u64;
                }
            }
        }
    }

    /// The directory of the records it indexes, by their top `bits` bits
    /// (more than its own), read from the records.
    fn refined(&self, records: &[u8], bits: u32) -> Directory {
        let n = self.start(self.buckets());
        let mut b = 0;
        let buckets = 1usize << bits;
        // Bucket f starts at the first record of a bucket f or later.
        let mut fill = |push: &mut dyn FnMut(usize)| {
            let mut next = 0;
            for i in 0..n {
                let f = (self.key_at(records, i, &mut b) >> (128 - bits)) as usize;
                while next <= f {
                    push(i);
                    next += 1;
                }
            }
            while next <= buckets {
                push(n);
                next += 1;
            }
        };
        let starts = if u32::try_from(n).is_ok() {
            let mut s = Vec::with_capacity(buckets + 1);
            // Each at most n, which fits a u32 here.
            fill(&mut |i| s.push(i as u32));
            Starts::Narrow(s)
        } else {
            let mut s = Vec::with_capacity(buckets + 1);
            fill(&mut |i| s.push(i as u64));
            Starts::Wide(s)
        };
        Directory { bits, starts }
    }
}

/// The top bits a directory of `n` records picks its buckets by, for
/// buckets of about `keys_per_bucket` keys.
fn bits_for(n: usize, keys_per_bucket: usize) -> u32 {
    (n / keys_per_bucket.max(1))
        .checked_ilog2()
        .unwrap_or(0)
        .clamp(IMPLIED_BITS, MAX_BITS)
}

/// The keys of the table of new keys, sorted: alone, or with payloads.
enum Drained {
    Keys(Vec<u128>),
    Pairs(Vec<(u128, u64)>),
}

impl Drained {
    fn len(&self) -> usize {
        match self {
            Drained::Keys(k) => k.len(),
            Drained::Pairs(p) => p.len(),
        }
    }

    #[inline]
    fn key(&self, j: usize) -> u128 {
        match self {
            Drained::Keys(k) => k[j],
            Drained::Pairs(p) => p[j].0,
        }
    }

    #[inline]
    fn payload(&self, j: usize) -> u64 {
        match self {
            Drained::Keys(_) => 0,
            Drained::Pairs(p) => p[j].1,
        }
    }
}

/// A hash table of the keys inserted since the last merge (open
/// addressing, linear probing; 0 marks an empty slot, so the key 0 is kept
/// apart).
struct Fresh {
    slots: Vec<u128>,
    /// The payloads of `slots`, slot by slot; empty if the set keeps none.
    payloads: Vec<u64>,
    /// The payload of the key 0 if the table holds it.
    zero: Option<u64>,
    len: usize,
    /// Keys it takes before a merge (at most 3/4 of the slots).
    limit: usize,
}

impl Fresh {
    fn new(limit: usize, payloads: bool) -> Fresh {
        let limit = limit.max(1);
        let slots = (limit * 4 / 3 + 1).next_power_of_two();
        Fresh {
            slots: vec![0; slots],
            payloads: if payloads { vec![0; slots] } else { Vec::new() },
            zero: None,
            len: 0,
            limit,
        }
    }

    fn bytes(&self) -> usize {
        self.slots.capacity() * 16 + self.payloads.capacity() * 8
    }

    /// The slot of `key` (not 0), or the empty slot where it would go.
    #[inline]
    fn slot(&self, key: u128) -> usize {
        let mask = self.slots.len() - 1;
        // The low half is a hash too (and the high half says where the
        // key sits in the sorted array: keep the two apart).
        let mut i = (key as u64 as usize) & mask;
        while self.slots[i] != 0 && self.slots[i] != key {
            i = (i + 1) & mask;
        }
        i
    }

    /// The payload of `key` if it is here (0 if the set keeps none).
    fn get(&self, key: u128) -> Option<u64> {
        if key == 0 {
            return self.zero;
        }
        let i = self.slot(key);
        (self.slots[i] == key).then(|| self.payloads.get(i).copied().unwrap_or(0))
    }

    /// Adds `key`, not here yet, with `payload`.
    fn insert(&mut self, key: u128, payload: u64) {
        let payload = if self.payloads.is_empty() { 0 } else { payload };
        if key == 0 {
            if self.zero.is_none() {
                self.zero = Some(payload);
                self.len += 1;
            }
            return;
        }
        let i = self.slot(key);
        if self.slots[i] == 0 {
            self.slots[i] = key;
            if let Some(p) = self.payloads.get_mut(i) {
                *p = payload;
            }
            self.len += 1;
        }
    }

    /// The keys and payloads, sorted by key: without payloads in the
    /// table's own memory; with them, copied out, the table freed.
    fn drain_sorted(self) -> Drained {
        let Fresh {
            mut slots,
            payloads,
            zero,
            len,
            ..
        } = self;
        if payloads.is_empty() {
            slots.retain(|&k| k != 0);
            // There is room: the table takes fewer keys than it has slots.
            if zero.is_some() {
                slots.push(0);
            }
            slots.sort_unstable();
            return Drained::Keys(slots);
        }
        let mut pairs = Vec::with_capacity(len);
        pairs.extend(
            slots
                .iter()
                .zip(&payloads)
                .filter(|(&k, _)| k != 0)
                .map(|(&k, &p)| (k, p)),
        );
        if let Some(p) = zero {
            pairs.push((0, p));
        }
        drop(slots);
        drop(payloads);
        pairs.sort_unstable_by_key(|e| e.0);
        Drained::Pairs(pairs)
    }
}

/// The keys spilled to disk: one sorted run in a temporary file (records
/// of the key, little-endian, then its payload if the set keeps them),
/// with every [`RUN_BLOCK`]-th key in memory.
struct Run {
    file: File,
    len: usize,
    /// The first key of each block.
    index: Vec<u128>,
}

impl Run {
    fn record_len(payloads: bool) -> usize {
        if payloads {
            24
        } else {
            16
        }
    }

    /// The payload of `key` if the run holds it.
    fn get(&self, key: u128, payloads: bool, buf: &mut Vec<u8>) -> io::Result<Option<u64>> {
        let block = match self.index.binary_search(&key) {
            Ok(b) => b,
            Err(0) => return Ok(None),
            Err(b) => b - 1,
        };
        let rec = Run::record_len(payloads);
        let first = block * RUN_BLOCK;
        let n = RUN_BLOCK.min(self.len - first);
        buf.resize(n * rec, 0);
        read_exact_at(&self.file, buf, (first * rec) as u64)?;
        let key_at = |i: usize| {
            u128::from_le_bytes(buf[i * rec..i * rec + 16].try_into().unwrap_or_default())
        };
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match key_at(mid).cmp(&key) {
                std::cmp::Ordering::Equal => {
                    let p = if payloads {
                        u64::from_le_bytes(
                            buf[mid * rec + 16..mid * rec + 24]
                                .try_into()
                                .unwrap_or_default(),
                        )
                    } else {
                        0
                    };
                    return Ok(Some(p));
                }
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        Ok(None)
    }
}

/// Reads `buf.len()` bytes of `file` from `offset`.
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(not(unix))]
    {
        let mut f = file.try_clone()?;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}

/// A set of 128-bit keys (see the module documentation).
pub struct KeySet {
    /// The sorted array: the low bits of each key, [`RECORD`] bytes each.
    records: Vec<u8>,
    /// Where each bucket of `records` starts.
    directory: Directory,
    /// The payloads of `records`, in its order, if the set keeps them.
    payloads: Option<Vec<u64>>,
    fresh: Fresh,
    run: Option<Run>,
    cap: Option<usize>,
    /// A buffer for reading a block of the run.
    block: Vec<u8>,
    /// Times the array was spilled to disk.
    spills: usize,
    /// Fewest keys the table takes (tests merge sooner).
    min_fresh: usize,
    /// Keys per bucket of the directory, about, once the array is large
    /// (tests refine the directory sooner).
    keys_per_bucket: usize,
}

impl Default for KeySet {
    fn default() -> KeySet {
        KeySet::new()
    }
}

impl KeySet {
    /// An empty set, in memory however large it grows.
    pub fn new() -> KeySet {
        KeySet {
            records: Vec::new(),
            directory: Directory::new(),
            payloads: None,
            fresh: Fresh::new(MIN_FRESH, false),
            run: None,
            cap: None,
            block: Vec::new(),
            spills: 0,
            min_fresh: MIN_FRESH,
            keys_per_bucket: KEYS_PER_BUCKET,
        }
    }

    /// Keeps a payload with each key (see [`KeySet::insert`]). Call on an
    /// empty set.
    #[must_use]
    pub fn with_payloads(mut self) -> KeySet {
        self.payloads = Some(Vec::new());
        self.fresh = Fresh::new(self.fresh_limit(), true);
        self
    }

    /// Keeps at most about `bytes` of keys in memory; the rest goes to a
    /// temporary file.
    #[must_use]
    pub fn with_cap(mut self, bytes: usize) -> KeySet {
        self.cap = Some(bytes);
        self.fresh = Fresh::new(self.fresh_limit(), self.payloads.is_some());
        self
    }

    /// Keys in the set.
    pub fn len(&self) -> usize {
        self.sorted_len() + self.fresh.len + self.run.as_ref().map_or(0, |r| r.len)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of memory the set holds now: every byte of its array,
    /// directory, payloads, table and index of the run (allocated, not only
    /// used).
    pub fn memory(&self) -> usize {
        self.records.capacity()
            + self.directory.bytes()
            + self.payloads.as_ref().map_or(0, |p| p.capacity() * 8)
            + self.fresh.bytes()
            + self.run.as_ref().map_or(0, |r| r.index.capacity() * 16)
    }

    /// How many times the keys were spilled to disk.
    pub fn spills(&self) -> usize {
        self.spills
    }

    /// Keys in the sorted array.
    fn sorted_len(&self) -> usize {
        self.records.len() / RECORD
    }

    /// Bytes a key takes in the table (a slot, and its payload).
    fn slot_bytes(&self) -> usize {
        if self.payloads.is_some() {
            24
        } else {
            16
        }
    }

    /// How many new keys the table takes before a merge.
    fn fresh_limit(&self) -> usize {
        let limit = (self.sorted_len() / FRESH_SHARE).max(self.min_fresh);
        match self.cap {
            // The table's slots (4/3 of the keys, rounded up to a power
            // of two: under 3x) stay within a sixteenth of the cap.
            Some(cap) => limit.min((cap / 16 / (3 * self.slot_bytes())).max(MIN_FRESH_CAPPED)),
            None => limit,
        }
    }

    /// Where `key` is in the sorted array, or where it would go.
    #[inline]
    fn find(&self, key: u128) -> Result<usize, usize> {
        let d = &self.directory;
        let (lo, hi) = d.bucket(d.bucket_of(key));
        search(&self.records, lo, hi, low_of(key), d.share_of(key))
    }

    /// Inserts `key` with `payload` (kept if the set keeps payloads):
    /// `None` if it is new, else the payload it was first inserted with (0
    /// if the set keeps none).
    ///
    /// # Errors
    /// I/O errors of the temporary file, with a memory cap.
    pub fn insert(&mut self, key: u128, payload: u64) -> io::Result<Option<u64>> {
        if let Some(p) = self.fresh.get(key) {
            return Ok(Some(p));
        }
        if let Ok(i) = self.find(key) {
            let p = self.payloads.as_ref().map_or(0, |p| p[i]);
            return Ok(Some(p));
        }
        if let Some(run) = &self.run {
            let payloads = self.payloads.is_some();
            if let Some(p) = run.get(key, payloads, &mut self.block)? {
                return Ok(Some(p));
            }
        }
        self.fresh.insert(key, payload);
        if self.fresh.len >= self.fresh.limit {
            self.merge()?;
        }
        Ok(None)
    }

    /// Merges the table's keys into the sorted array, in place; spills the
    /// array if the set passes the cap.
    fn merge(&mut self) -> io::Result<()> {
        let payloads = self.payloads.is_some();
        let fresh = std::mem::replace(&mut self.fresh, Fresh::new(1, false));
        let new = fresh.drain_sorted();
        let old = self.sorted_len();
        let total = old + new.len();
        // Exactly the room needed: a large array grows where it lies.
        self.records.reserve_exact(new.len() * RECORD);
        self.records.resize(total * RECORD, 0);
        if let Some(p) = &mut self.payloads {
            p.reserve_exact(new.len());
            p.resize(total, 0);
        }
        // From the back, the new keys (few) largest first: the old records
        // above each move up in one block, every record once. Records
        // `..i` are still where the directory says.
        let mut i = old;
        for j in (0..new.len()).rev() {
            let key = new.key(j);
            let d = &self.directory;
            let (lo, hi) = d.bucket(d.bucket_of(key));
            // The key is in no record (it was looked for): where it goes.
            let (Ok(at) | Err(at)) = search(
                &self.records,
                lo.min(i),
                hi.min(i),
                low_of(key),
                d.share_of(key),
            );
            self.records
                .copy_within(at * RECORD..i * RECORD, (at + j + 1) * RECORD);
            put_record(&mut self.records, at + j, low_of(key));
            if let Some(p) = &mut self.payloads {
                p.copy_within(at..i, at + j + 1);
                p[at + j] = new.payload(j);
            }
            i = at;
        }
        self.directory.add(&new);
        drop(new);
        let bits = bits_for(total, self.keys_per_bucket);
        if bits > self.directory.bits {
            self.directory = self.directory.refined(&self.records, bits);
        }
        if self.cap.is_some_and(|cap| self.memory() > cap) {
            self.spill()?;
        }
        self.fresh = Fresh::new(self.fresh_limit(), payloads);
        Ok(())
    }

    /// Merges the sorted array with the run on disk into a new run, and
    /// frees the array and its directory.
    fn spill(&mut self) -> io::Result<()> {
        let payloads = self.payloads.is_some();
        let rec = Run::record_len(payloads);
        let file = tempfile::tempfile()?;
        let mut out = BufWriter::with_capacity(1 << 16, &file);
        let mut index = Vec::new();
        let mut written = 0usize;
        let mut put = |key: u128, payload: u64, out: &mut BufWriter<&File>| -> io::Result<()> {
            if written % RUN_BLOCK == 0 {
                index.push(key);
            }
            out.write_all(&key.to_le_bytes())?;
            if payloads {
                out.write_all(&payload.to_le_bytes())?;
            }
            written += 1;
            Ok(())
        };
        let records = std::mem::take(&mut self.records);
        let directory = std::mem::replace(&mut self.directory, Directory::new());
        let sorted_payloads = self.payloads.as_mut().map(std::mem::take);
        let n = records.len() / RECORD;
        let key_at = |i: usize, b: &mut usize| directory.key_at(&records, i, b);
        let payload_at = |i: usize| sorted_payloads.as_ref().map_or(0, |p| p[i]);
        let (mut i, mut b) = (0, 0);
        if let Some(old) = self.run.take() {
            let mut reader = io::BufReader::with_capacity(1 << 16, &old.file);
            reader.seek(SeekFrom::Start(0))?;
            let mut buf = vec![0u8; rec];
            for _ in 0..old.len {
                reader.read_exact(&mut buf)?;
                let key = u128::from_le_bytes(buf[..16].try_into().unwrap_or_default());
                let payload = if payloads {
                    u64::from_le_bytes(buf[16..24].try_into().unwrap_or_default())
                } else {
                    0
                };
                while i < n {
                    let k = key_at(i, &mut b);
                    if k >= key {
                        break;
                    }
                    put(k, payload_at(i), &mut out)?;
                    i += 1;
                }
                put(key, payload, &mut out)?;
            }
        }
        while i < n {
            put(key_at(i, &mut b), payload_at(i), &mut out)?;
            i += 1;
        }
        out.flush()?;
        drop(out);
        self.run = Some(Run {
            file,
            len: written,
            index,
        });
        self.spills += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// splitmix64: a fixed stream of words from `seed`.
    fn words(seed: u64) -> impl FnMut() -> u64 {
        let mut s = seed;
        move || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }

    /// A stream of keys, some seen before, by a fixed generator.
    fn keys(n: usize, seed: u64) -> Vec<u128> {
        let mut next = words(seed);
        let mut out: Vec<u128> = Vec::with_capacity(n);
        for i in 0..n {
            let r = next();
            if i > 10 && r % 4 == 0 {
                // A key seen before.
                let back = (next() as usize) % out.len();
                out.push(out[back]);
            } else if r % 7 == 0 {
                // Keys alike in their high half (games ending in one position).
                out.push(u128::from(r % 5) << 64 | u128::from(next()));
            } else {
                out.push(u128::from(r) << 64 | u128::from(next()));
            }
        }
        out
    }

    /// Inserts `keys` into `set` and checks every answer against a map.
    fn check(mut set: KeySet, keys: &[u128]) -> KeySet {
        let mut model: HashMap<u128, u64> = HashMap::new();
        for (i, &k) in keys.iter().enumerate() {
            let got = set.insert(k, i as u64).unwrap();
            let want = model.get(&k).copied();
            assert_eq!(got.is_some(), want.is_some(), "key {i}: {k:#x}");
            if set.payloads.is_some() {
                assert_eq!(got, want, "key {i}: {k:#x}");
            }
            model.entry(k).or_insert(i as u64);
        }
        assert_eq!(set.len(), model.len());
        set
    }

    /// A set whose table takes `min_fresh` keys at least, so that small
    /// tests merge into the sorted array (and search it) often.
    fn merging(min_fresh: usize, payloads: bool) -> KeySet {
        let mut set = KeySet::new();
        set.min_fresh = min_fresh;
        set.fresh = Fresh::new(set.fresh_limit(), false);
        if payloads {
            set = set.with_payloads();
        }
        set
    }

    /// The sets every list of keys below goes through: in memory, merging
    /// every few keys, with and without payloads, and spilling.
    fn sets() -> Vec<KeySet> {
        vec![
            KeySet::new(),
            merging(3, false),
            merging(3, true),
            merging(50, true),
            merging(3, false).with_cap(1),
            merging(3, true).with_cap(1),
        ]
    }

    /// Checks `keys`, then all of them again, with every set of [`sets`].
    fn check_all(keys: &[u128]) {
        let twice: Vec<u128> = keys.iter().chain(keys).copied().collect();
        for set in sets() {
            check(set, &twice);
        }
    }

    #[test]
    fn answers_as_a_map_does() {
        let ks = keys(200_000, 1);
        check(KeySet::new(), &ks);
        check(KeySet::new().with_payloads(), &ks);
        let ks = keys(20_000, 5);
        check(merging(7, false), &ks);
        check(merging(7, true), &ks);
    }

    #[test]
    fn a_directory_refined_as_the_array_grows_answers_the_same() {
        let ks = keys(400_000, 11);
        for payloads in [false, true] {
            let mut set = merging(7, payloads);
            // Buckets of about 1 key: past 2^17 keys, by 17 bits, then 18.
            set.keys_per_bucket = 1;
            let mut set = check(set, &ks);
            assert_eq!(set.directory.bits, 18);
            // Every key again: seen, mostly in the array.
            let len = set.len();
            for &k in &ks {
                assert!(set.insert(k, 0).unwrap().is_some(), "{k:#x}");
            }
            assert_eq!(set.len(), len);
            assert!(set.sorted_len() > len / 2);
        }
    }

    #[test]
    fn a_cap_spills_to_disk_and_answers_the_same() {
        let ks = keys(200_000, 2);
        let set = check(KeySet::new().with_cap(256 << 10), &ks);
        assert!(set.spills() >= 3, "{} spills", set.spills());
        assert!(set.memory() <= 400 << 10, "{} bytes", set.memory());
        let set = check(KeySet::new().with_payloads().with_cap(256 << 10), &ks);
        assert!(set.spills() >= 3, "{} spills", set.spills());
        // A cap that leaves room for an array: it is searched beside the run.
        let set = check(KeySet::new().with_cap(2 << 20), &ks);
        assert!(
            set.spills() >= 1 && set.sorted_len() > 0,
            "{}",
            set.spills()
        );
    }

    #[test]
    fn at_most_sixteen_bytes_a_key() {
        let mut set = KeySet::new();
        let mut next = words(3);
        while set.len() < 1 << 20 {
            set.insert(u128::from(next()) << 64 | u128::from(next()), 0)
                .unwrap();
        }
        let per_key = set.memory() as f64 / set.len() as f64;
        println!(
            "{} keys: {} bytes, {per_key:.3} bytes a key",
            set.len(),
            set.memory()
        );
        assert!(per_key <= 16.0, "{per_key} bytes a key");
    }

    /// Keys, each a top 16 bits and low bits, of many low bits in one bucket.
    fn in_one_bucket(top: u128, n: usize, seed: u64) -> Vec<u128> {
        let mut next = words(seed);
        (0..n)
            .map(|_| top << LOW_BITS | low_of(u128::from(next()) << 64 | u128::from(next())))
            .collect()
    }

    #[test]
    fn keys_sharing_their_top_bits() {
        // One bucket of thousands (a guess, galloping, bisection), and a
        // few keys beside it.
        let mut ks = in_one_bucket(0xabcd, 5_000, 6);
        ks.extend(in_one_bucket(0xabcc, 3, 7));
        ks.extend(in_one_bucket(0xabce, 3, 8));
        check_all(&ks);
    }

    #[test]
    fn keys_apart_only_in_their_low_bits() {
        // Every bit of the record counts, the bytes two words share too.
        let base = in_one_bucket(0x1234, 40, 9);
        let mut ks = Vec::new();
        for &k in &base {
            ks.push(k);
            for bit in [0, 1, 7, 8, 47, 48, 55, 56, 63, 64, 65, 100, 110, 111] {
                ks.push(k ^ 1 << bit);
            }
        }
        check_all(&ks);
    }

    #[test]
    fn keys_apart_only_in_their_top_bits() {
        // The bits a record leaves out, implied by the directory, count.
        let base = in_one_bucket(0, 40, 10);
        let mut ks = Vec::new();
        for &k in &base {
            ks.push(k);
            for bit in [112, 113, 119, 120, 126, 127] {
                ks.push(k ^ 1 << bit);
            }
            ks.push(k | 0xffff << LOW_BITS);
        }
        check_all(&ks);
        // Seen with one top, new with another.
        let mut set = merging(3, false);
        for &k in &base {
            set.insert(k, 0).unwrap();
        }
        assert!(set.sorted_len() > 0);
        for &k in &base {
            assert_eq!(set.insert(k, 0).unwrap(), Some(0));
            assert_eq!(set.insert(k | 5 << LOW_BITS, 0).unwrap(), None);
        }
    }

    #[test]
    fn the_least_and_greatest_keys() {
        let ks = [
            0,
            1,
            2,
            u128::MAX,
            u128::MAX - 1,
            LOW_MASK,
            LOW_MASK + 1,
            1 << 127,
            (1 << 127) - 1,
            u128::from(u64::MAX),
            u128::from(u64::MAX) + 1,
        ];
        check_all(&ks);
        // The key 0 is not the key 1, in the table as in the array.
        let mut set = KeySet::new().with_payloads();
        assert_eq!(set.insert(0, 5).unwrap(), None);
        assert_eq!(set.insert(1, 6).unwrap(), None);
        assert_eq!(set.insert(0, 7).unwrap(), Some(5));
        assert_eq!(set.len(), 2);
    }

    proptest! {
        /// Small sets of keys from a few top-bit values (and, often, a few
        /// low-bit values), merged every few keys: the answers of a set.
        #[test]
        fn answers_as_a_hash_set_does(
            picks in prop::collection::vec(
                (0usize..4, prop_oneof![0u128..8, any::<u128>()]),
                0..300,
            ),
            min_fresh in 1usize..12,
            payloads in any::<bool>(),
            capped in any::<bool>(),
        ) {
            const TOPS: [u128; 4] = [0, 1, 0x8000, 0xffff];
            let ks: Vec<u128> = picks
                .iter()
                .map(|&(t, low)| TOPS[t] << LOW_BITS | low_of(low))
                .collect();
            let mut set = merging(min_fresh, payloads);
            if capped {
                set = set.with_cap(1);
            }
            let mut model = std::collections::HashSet::new();
            for &k in &ks {
                let got = set.insert(k, 0).unwrap();
                prop_assert_eq!(got.is_some(), !model.insert(k), "{:#x}", k);
            }
            prop_assert_eq!(set.len(), model.len());
        }
    }

    #[test]
    fn search_finds_what_bisection_finds() {
        let mut lows: Vec<u128> = in_one_bucket(0, 50_000, 4)
            .into_iter()
            .map(low_of)
            .collect();
        // Runs alike in their top 64 bits (the guess cannot tell them apart).
        lows.extend((0..100).map(|i| 7 << 80 | i));
        lows.sort_unstable();
        lows.dedup();
        let mut records = vec![0; lows.len() * RECORD];
        for (i, &l) in lows.iter().enumerate() {
            put_record(&mut records, i, l);
        }
        let n = lows.len();
        // The records as one bucket of a directory of 16 bits.
        let search =
            |records: &[u8], lo, hi, l: u128| search(records, lo, hi, l, ((l << 16) >> 64) as u64);
        for (i, &l) in lows.iter().enumerate() {
            assert_eq!(record(&records, i), l);
            assert_eq!(search(&records, 0, n, l), Ok(i));
            let above = (l + 1) & LOW_MASK;
            assert_eq!(search(&records, 0, n, above), lows.binary_search(&above));
            let below = l.wrapping_sub(1) & LOW_MASK;
            assert_eq!(search(&records, 0, n, below), lows.binary_search(&below));
        }
        assert_eq!(search(&records, 0, n, 0), lows.binary_search(&0));
        assert_eq!(
            search(&records, 0, n, LOW_MASK),
            lows.binary_search(&LOW_MASK)
        );
        assert_eq!(search(&[], 0, 0, 5), Err(0));
    }

    #[test]
    fn the_directory_widens_past_four_giga_keys() {
        // A directory of u32::MAX - 5 records, all in bucket 0 (no
        // records are read: only the starts move).
        let buckets = 1 << IMPLIED_BITS;
        let mut starts = vec![u32::MAX - 5; buckets + 1];
        starts[0] = 0;
        let mut dir = Directory {
            bits: IMPLIED_BITS,
            starts: Starts::Narrow(starts),
        };
        dir.add(&Drained::Keys(vec![1, 2, 3, 1 << LOW_BITS, 2 << LOW_BITS]));
        assert!(matches!(dir.starts, Starts::Narrow(_)));
        assert_eq!(dir.bucket(0), (0, u32::MAX as usize - 2));
        assert_eq!(
            dir.bucket(1),
            (u32::MAX as usize - 2, u32::MAX as usize - 1)
        );
        assert_eq!(dir.start(3), u32::MAX as usize);
        dir.add(&Drained::Keys(vec![3 << LOW_BITS, 3 << LOW_BITS | 1]));
        assert!(matches!(dir.starts, Starts::Wide(_)));
        assert_eq!(dir.bucket(2), (u32::MAX as usize - 1, u32::MAX as usize));
        assert_eq!(dir.bucket(3), (u32::MAX as usize, u32::MAX as usize + 2));
        assert_eq!(dir.start(buckets), u32::MAX as usize + 2);
        assert_eq!(dir.bytes(), (buckets + 1) * 8);
    }

    /// Bytes a key at 1 M, 10 M and 50 M distinct keys, inserts a second
    /// and the process's peak resident memory, printed for the record (no
    /// assert on time): `cargo test -p rookery-pgn --lib
    /// keyset::tests::figures -- --ignored --nocapture`.
    #[test]
    #[ignore = "takes a minute and a few GB; prints figures"]
    fn figures() {
        for n in [1_000_000u64, 10_000_000, 50_000_000] {
            let mut set = KeySet::new();
            let mut next = words(n);
            let start = std::time::Instant::now();
            for _ in 0..n {
                set.insert(u128::from(next()) << 64 | u128::from(next()), 0)
                    .unwrap();
            }
            let secs = start.elapsed().as_secs_f64();
            let peak = std::fs::read_to_string("/proc/self/status")
                .ok()
                .and_then(|st| {
                    st.lines()
                        .find(|l| l.starts_with("VmHWM"))
                        .map(str::to_owned)
                })
                .unwrap_or_default();
            println!(
                "{n} keys: {} keys kept, {:.3} bytes a key ({} bytes), {:.0} inserts/s; {peak}",
                set.len(),
                set.memory() as f64 / set.len() as f64,
                set.memory(),
                n as f64 / secs,
            );
        }
    }
}
