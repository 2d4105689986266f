//! A set of 128-bit keys at 16 bytes a key, spilling to disk past a memory
//! cap: what `rookery pgn dedupe` remembers of the games it has kept.
//!
//! The keys live in one sorted array (no allocation per key, no empty
//! slots), searched by interpolation: the keys are hashes, spread evenly,
//! so the first guess lands close. New keys go to a small hash table
//! first; when it holds a sixty-fourth of the array, they are sorted and
//! merged into the array in place (the array grows into memory the system
//! maps anew, not copied). The table adds at most about 1/2 byte a key.
//!
//! With a memory cap ([`KeySet::with_cap`]) the array, once it would pass
//! the cap, is merged with the keys already on disk into one sorted run
//! (a temporary file, gone with the set): memory then holds the array, the
//! table and every 256th key of the run, and a key is looked for in the
//! run with one read of 4 KiB.
//!
//! Each key may carry a `u64` payload ([`KeySet::with_payloads`]: where a
//! kept game stands, for reports), 8 more bytes a key.
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
/// The table of new keys takes up to this share of the array's keys.
const FRESH_SHARE: usize = 64;
/// Keys of a run on disk per entry of its index in memory (one read).
const RUN_BLOCK: usize = 256;
/// Interpolation steps before a search falls back to bisection.
const MAX_GUESSES: usize = 12;
/// Keys of the sorted array per entry of its directory, about.
const KEYS_PER_BUCKET: usize = 16;

/// The high 64 bits of a key: what the interpolation reads.
#[inline]
fn high(k: u128) -> u64 {
    (k >> 64) as u64
}

/// Where `key` is in `sorted`, or where it would go (as
/// [`slice::binary_search`]), by interpolation on the keys' high halves.
fn search(sorted: &[u128], key: u128) -> Result<usize, usize> {
    let (mut lo, mut hi) = (0, sorted.len());
    let k = high(key);
    for _ in 0..MAX_GUESSES {
        if hi - lo <= 16 {
            break;
        }
        let (a, b) = (high(sorted[lo]), high(sorted[hi - 1]));
        if k < a || key < sorted[lo] {
            return Err(lo);
        }
        if k > b || key > sorted[hi - 1] {
            return Err(hi);
        }
        if a == b {
            break;
        }
        // a <= k <= b, a < b: the guess lies in [lo, hi - 1].
        let span = (hi - 1 - lo) as u128;
        let at = lo + (u128::from(k - a) * span / u128::from(b - a)) as usize;
        match sorted[at].cmp(&key) {
            std::cmp::Ordering::Equal => return Ok(at),
            std::cmp::Ordering::Less => lo = at + 1,
            std::cmp::Ordering::Greater => hi = at,
        }
    }
    sorted[lo..hi]
        .binary_search(&key)
        .map(|i| lo + i)
        .map_err(|i| lo + i)
}

/// Where the keys of each value of their top bits start in the sorted
/// array: a search reads one entry, then bisects a few keys (a guess by
/// interpolation over the whole array misses the cache several times).
/// Four bytes a bucket of about [`KEYS_PER_BUCKET`] keys.
#[derive(Default)]
struct Directory {
    /// How many top bits pick the bucket (0: no directory).
    bits: u32,
    /// `starts[b]..starts[b + 1]`: the keys whose top bits are `b`.
    starts: Vec<u32>,
}

impl Directory {
    /// The directory of `sorted`; none if it is small, or too large for
    /// four-byte entries (then the search interpolates).
    fn of(sorted: &[u128]) -> Directory {
        let n = sorted.len();
        if n < 4 * KEYS_PER_BUCKET || u32::try_from(n).is_err() {
            return Directory::default();
        }
        let bits = (n / KEYS_PER_BUCKET).ilog2();
        let buckets = 1usize << bits;
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut at = 0;
        for b in 0..buckets {
            while at < n && ((high(sorted[at]) >> (64 - bits)) as usize) < b {
                at += 1;
            }
            starts.push(at as u32);
        }
        starts.push(n as u32);
        Directory { bits, starts }
    }

    fn bytes(&self) -> usize {
        self.starts.capacity() * 4
    }

    /// The stretch of the sorted array that holds `key` if it holds it.
    #[inline]
    fn bucket(&self, key: u128) -> Option<(usize, usize)> {
        if self.bits == 0 {
            return None;
        }
        let b = (high(key) >> (64 - self.bits)) as usize;
        Some((self.starts[b] as usize, self.starts[b + 1] as usize))
    }
}

/// A hash table of the keys inserted since the last merge (open
/// addressing, linear probing; 0 marks an empty slot, so the key 0 is
/// kept as 1).
struct Fresh {
    slots: Vec<u128>,
    payloads: Vec<u64>,
    len: usize,
    /// Keys it takes before a merge (at most 3/4 of the slots).
    limit: usize,
}

impl Fresh {
    fn new(limit: usize, payloads: bool) -> Fresh {
        let limit = limit.max(16);
        let slots = (limit * 4 / 3 + 1).next_power_of_two();
        Fresh {
            slots: vec![0; slots],
            payloads: if payloads { vec![0; slots] } else { Vec::new() },
            len: 0,
            limit,
        }
    }

    fn bytes(&self) -> usize {
        self.slots.capacity() * 16 + self.payloads.capacity() * 8
    }

    /// The slot of `key`, or the empty slot where it would go.
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

    /// The payload of `key` if it is here.
    fn get(&self, key: u128) -> Option<u64> {
        let i = self.slot(key);
        (self.slots[i] == key).then(|| self.payloads.get(i).copied().unwrap_or(0))
    }

    fn insert(&mut self, key: u128, payload: u64) {
        let i = self.slot(key);
        if self.slots[i] == 0 {
            self.slots[i] = key;
            if let Some(p) = self.payloads.get_mut(i) {
                *p = payload;
            }
            self.len += 1;
        }
    }

    /// The keys and payloads, sorted by key; the table is freed.
    fn drain_sorted(self) -> Vec<(u128, u64)> {
        let Fresh {
            slots, payloads, ..
        } = self;
        let mut out: Vec<(u128, u64)> = slots
            .iter()
            .enumerate()
            .filter(|(_, &k)| k != 0)
            .map(|(i, &k)| (k, payloads.get(i).copied().unwrap_or(0)))
            .collect();
        drop(slots);
        drop(payloads);
        out.sort_unstable_by_key(|e| e.0);
        out
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
    sorted: Vec<u128>,
    directory: Directory,
    /// The payloads of `sorted`, in its order, if the set keeps them.
    sorted_payloads: Option<Vec<u64>>,
    fresh: Fresh,
    run: Option<Run>,
    cap: Option<usize>,
    /// A buffer for reading a block of the run.
    block: Vec<u8>,
    /// Times the array was spilled to disk.
    spills: usize,
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
            sorted: Vec::new(),
            directory: Directory::default(),
            sorted_payloads: None,
            fresh: Fresh::new(MIN_FRESH, false),
            run: None,
            cap: None,
            block: Vec::new(),
            spills: 0,
        }
    }

    /// Keeps a payload with each key (see [`KeySet::insert`]). Call on an
    /// empty set.
    #[must_use]
    pub fn with_payloads(mut self) -> KeySet {
        self.sorted_payloads = Some(Vec::new());
        self.fresh = Fresh::new(self.fresh_limit(), true);
        self
    }

    /// Keeps at most about `bytes` of keys in memory; the rest goes to a
    /// temporary file.
    #[must_use]
    pub fn with_cap(mut self, bytes: usize) -> KeySet {
        self.cap = Some(bytes);
        self.fresh = Fresh::new(self.fresh_limit(), self.sorted_payloads.is_some());
        self
    }

    /// Keys in the set.
    pub fn len(&self) -> usize {
        self.sorted.len() + self.fresh.len + self.run.as_ref().map_or(0, |r| r.len)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of memory the set holds now (its arrays, table and index).
    pub fn memory(&self) -> usize {
        self.sorted.capacity() * 16
            + self.directory.bytes()
            + self
                .sorted_payloads
                .as_ref()
                .map_or(0, |p| p.capacity() * 8)
            + self.fresh.bytes()
            + self.run.as_ref().map_or(0, |r| r.index.capacity() * 16)
    }

    /// How many times the keys were spilled to disk.
    pub fn spills(&self) -> usize {
        self.spills
    }

    /// Bytes of memory a key takes in the sorted array.
    fn key_bytes(&self) -> usize {
        if self.sorted_payloads.is_some() {
            24
        } else {
            16
        }
    }

    /// How many new keys the table takes before a merge.
    fn fresh_limit(&self) -> usize {
        let limit = (self.sorted.len() / FRESH_SHARE).max(MIN_FRESH);
        match self.cap {
            // The table's slots (4/3 of the keys, rounded up to a power
            // of two: under 3x) stay within a sixteenth of the cap.
            Some(cap) => limit.min((cap / 16 / (3 * self.key_bytes())).max(16)),
            None => limit,
        }
    }

    /// Inserts `key` with `payload` (kept if the set keeps payloads):
    /// `None` if it is new, else the payload it was first inserted with (0
    /// if the set keeps none).
    ///
    /// # Errors
    /// I/O errors of the temporary file, with a memory cap.
    pub fn insert(&mut self, key: u128, payload: u64) -> io::Result<Option<u64>> {
        let key = key.max(1);
        if let Some(p) = self.fresh.get(key) {
            return Ok(Some(p));
        }
        let found = match self.directory.bucket(key) {
            Some((lo, hi)) => self.sorted[lo..hi].binary_search(&key).map(|i| lo + i),
            None => search(&self.sorted, key),
        };
        if let Ok(i) = found {
            let p = self.sorted_payloads.as_ref().map_or(0, |p| p[i]);
            return Ok(Some(p));
        }
        if let Some(run) = &self.run {
            let payloads = self.sorted_payloads.is_some();
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
    /// array if it passes the cap.
    fn merge(&mut self) -> io::Result<()> {
        let payloads = self.sorted_payloads.is_some();
        let fresh = std::mem::replace(&mut self.fresh, Fresh::new(16, false));
        let new = fresh.drain_sorted();
        let old = self.sorted.len();
        // Exactly the room needed: a large array grows where it lies.
        self.sorted.reserve_exact(new.len());
        self.sorted.resize(old + new.len(), 0);
        if let Some(p) = &mut self.sorted_payloads {
            p.reserve_exact(new.len());
            p.resize(old + new.len(), 0);
        }
        // From the back, the new keys (few) largest first: the old keys
        // above each move up in one block, every key once.
        let mut i = old;
        for (j, &(key, payload)) in new.iter().enumerate().rev() {
            let at = match self.directory.bucket(key) {
                Some((lo, hi)) => lo + self.sorted[lo..hi].partition_point(|&k| k < key),
                None => self.sorted[..i].partition_point(|&k| k < key),
            }
            .min(i);
            self.sorted.copy_within(at..i, at + j + 1);
            self.sorted[at + j] = key;
            if let Some(p) = &mut self.sorted_payloads {
                p.copy_within(at..i, at + j + 1);
                p[at + j] = payload;
            }
            i = at;
        }
        drop(new);
        self.directory = Directory::of(&self.sorted);
        if self.cap.is_some_and(|cap| self.memory() > cap) {
            self.spill()?;
        }
        self.fresh = Fresh::new(self.fresh_limit(), payloads);
        Ok(())
    }

    /// Merges the sorted array with the run on disk into a new run, and
    /// empties the array.
    fn spill(&mut self) -> io::Result<()> {
        let payloads = self.sorted_payloads.is_some();
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
        let sorted = std::mem::take(&mut self.sorted);
        self.directory = Directory::default();
        let sorted_payloads = self.sorted_payloads.as_mut().map(std::mem::take);
        let payload_at = |i: usize| sorted_payloads.as_ref().map_or(0, |p| p[i]);
        let mut i = 0;
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
                while i < sorted.len() && sorted[i] < key {
                    put(sorted[i], payload_at(i), &mut out)?;
                    i += 1;
                }
                put(key, payload, &mut out)?;
            }
        }
        while i < sorted.len() {
            put(sorted[i], payload_at(i), &mut out)?;
            i += 1;
        }
        out.flush()?;
        drop(out);
        self.run = Some(Run {
            file,
            len: written,
            index,
        });
        if let Some(p) = &mut self.sorted_payloads {
            p.shrink_to_fit();
        }
        self.spills += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A stream of keys, some seen before, by a fixed generator.
    fn keys(n: usize, seed: u64) -> Vec<u128> {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
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
            let want = model.get(&k.max(1)).copied();
            assert_eq!(got.is_some(), want.is_some(), "key {i}");
            if set.sorted_payloads.is_some() {
                assert_eq!(got, want, "key {i}");
            }
            model.entry(k.max(1)).or_insert(i as u64);
        }
        assert_eq!(set.len(), model.len());
        set
    }

    #[test]
    fn answers_as_a_map_does() {
        let ks = keys(200_000, 1);
        check(KeySet::new(), &ks);
        check(KeySet::new().with_payloads(), &ks);
    }

    #[test]
    fn a_cap_spills_to_disk_and_answers_the_same() {
        let ks = keys(200_000, 2);
        let set = check(KeySet::new().with_cap(256 << 10), &ks);
        assert!(set.spills() >= 3, "{} spills", set.spills());
        assert!(set.memory() <= 400 << 10, "{} bytes", set.memory());
        let set = check(KeySet::new().with_payloads().with_cap(256 << 10), &ks);
        assert!(set.spills() >= 3, "{} spills", set.spills());
    }

    #[test]
    fn sixteen_bytes_a_key_and_a_little() {
        let mut set = KeySet::new();
        let ks = keys(1 << 20, 3);
        for &k in &ks {
            set.insert(k, 0).unwrap();
        }
        let per_key = set.memory() as f64 / set.len() as f64;
        assert!(per_key < 17.0, "{per_key} bytes a key");
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
            let start = std::time::Instant::now();
            let mut s = n;
            for _ in 0..n {
                // splitmix64, two words a key.
                let mut word = || {
                    s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
                    let mut z = s;
                    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                    z ^ (z >> 31)
                };
                let k = u128::from(word()) << 64 | u128::from(word());
                set.insert(k, 0).unwrap();
            }
            let secs = start.elapsed().as_secs_f64();
            let peak = std::fs::read_to_string("/proc/self/status")
                .ok()
                .and_then(|st| st.lines().find(|l| l.starts_with("VmHWM")).map(str::to_owned))
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

    #[test]
    fn search_finds_what_bisection_finds() {
        let mut ks = keys(50_000, 4);
        ks.sort_unstable();
        ks.dedup();
        for (i, &k) in ks.iter().enumerate() {
            assert_eq!(search(&ks, k), Ok(i));
            assert_eq!(search(&ks, k + 1), ks.binary_search(&(k + 1)));
            assert_eq!(search(&ks, k - 1), ks.binary_search(&(k - 1)));
        }
        assert_eq!(search(&ks, 0), Err(0));
        assert_eq!(search(&ks, u128::MAX), ks.binary_search(&u128::MAX));
        assert_eq!(search(&[], 5), Err(0));
    }
}
