//! The explorer's index on disk: immutable segment files, each a sorted
//! run of entries, as an LSM tree keeps them.
//!
//! An import counts positions in memory and writes what it counted as a
//! run, sorted by key, to a new segment file; at its end its runs (and,
//! when there are many, the database's older segments) are merged into
//! one. A file is never changed once written: the list of the database's
//! segments is kept in the store and changes in the import's transaction,
//! so a killed import or merge leaves files that no list names, which the
//! next opening removes. The index's first home, one store row per entry
//! read, merged and written back at every flush, imported 9,929
//! lichess-shaped games in 5.26 s; written as runs, 0.96 s: a run is
//! written once, in order, and a merge reads and writes each byte once.
//!
//! A file is a row of blocks, each a zstd frame (with its checksum) of up
//! to [`BLOCK_BYTES`] of entries; then the index of its blocks (a zstd
//! frame too: each block's first and last key, offset, length, size and
//! entries), then a footer of [`FOOTER_BYTES`]: the magic, the index's
//! offset and length, the number of entries. A block's entry is its key
//! (the position's hash as a varint of its distance from the previous
//! entry's, then the bucket's bits, folded, as a varint) and the entry's
//! bytes with their length ([`crate::entry`]). A file whose footer, index or a block
//! does not read is damaged and named, never read as data.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::entry::{decode_entry, encode_entry, get_varint, put_varint, Explored};

/// Bytes of entries a block holds before it is compressed: a question
/// decompresses a block of each segment. Measured on 100,000
/// lichess-shaped games (`db serve`, `scripts/db_load.py`, 4 connections):
/// 64 KiB blocks answered 1,062 questions a second, 16 KiB 1,814, 8 KiB
/// 1,681 to 1,903, 4 KiB 2,171; the index took 137.6, 139.9, 140.4 and
/// 146.1 MB.
pub const BLOCK_BYTES: usize = 8 * 1024;

/// The footer's bytes: magic, index offset, index length, entries.
pub const FOOTER_BYTES: usize = 32;

const MAGIC: &[u8; 8] = b"RKIDX001";

/// A block's bytes in its index: first and last key, offset, length,
/// size, entries.
const BLOCK_REF_BYTES: usize = 16 + 16 + 8 + 4 + 4 + 4;

/// The zstd level of blocks: the fastest, an import writes every byte.
const LEVEL: i32 = 1;

/// A segment file that cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SegmentError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The segment file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not a whole segment.
    #[error("{path}: damaged: {what}")]
    Damaged {
        /// The segment file.
        path: PathBuf,
        /// What does not read.
        what: String,
    },
}

/// A key's low 64 bits (a bucket: speed at bit 40, rating group at 32,
/// month at 0) with bits 16-31 moved to the top, so that a bucket is a
/// varint of 4 bytes, not 6; [`unfold`] is its inverse, for any bits.
fn fold(b: u64) -> u64 {
    (b & 0xffff) | (b >> 32) << 16 | ((b >> 16) & 0xffff) << 48
}

/// The bits [`fold`] folded.
fn unfold(v: u64) -> u64 {
    (v & 0xffff) | ((v >> 16) & 0xffff_ffff) << 32 | (v >> 48) << 16
}

/// Where a block is and what it holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct BlockRef {
    first: u128,
    last: u128,
    offset: u64,
    len: u32,
    size: u32,
    entries: u32,
}

/// Writes a segment: entries given in increasing order of key.
pub struct SegmentWriter {
    path: PathBuf,
    out: BufWriter<File>,
    compressor: zstd::bulk::Compressor<'static>,
    block: Vec<u8>,
    block_entries: u32,
    first: u128,
    last: Option<u128>,
    blocks: Vec<BlockRef>,
    offset: u64,
    entries: u64,
    scratch: Vec<u8>,
}

impl SegmentWriter {
    /// Creates the file `path` (there must be none).
    ///
    /// # Errors
    /// [`SegmentError::Io`].
    pub fn create(path: &Path) -> Result<SegmentWriter, SegmentError> {
        let io = |source| SegmentError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(io)?;
        let mut compressor = zstd::bulk::Compressor::new(LEVEL).map_err(io)?;
        compressor
            .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
            .map_err(io)?;
        Ok(SegmentWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, file),
            compressor,
            block: Vec::with_capacity(BLOCK_BYTES + 4096),
            block_entries: 0,
            first: 0,
            last: None,
            blocks: Vec::new(),
            offset: 0,
            entries: 0,
            scratch: Vec::new(),
        })
    }

    fn io(&self, source: std::io::Error) -> SegmentError {
        SegmentError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Adds the entry of `key`, which is greater than every key before.
    ///
    /// # Errors
    /// [`SegmentError::Io`].
    ///
    /// # Panics
    /// If `key` is not greater than the last key given (a bug of the
    /// caller: the keys of a run are sorted and unique).
    pub fn push(&mut self, key: u128, entry: &Explored) -> Result<(), SegmentError> {
        let mut body = std::mem::take(&mut self.scratch);
        body.clear();
        encode_entry(entry, &mut body);
        let pushed = self.push_raw(key, &body);
        self.scratch = body;
        pushed
    }

    /// Adds the entry of `key` as its bytes (see [`SegmentWriter::push`]).
    ///
    /// # Errors
    /// [`SegmentError::Io`].
    ///
    /// # Panics
    /// As [`SegmentWriter::push`].
    fn push_raw(&mut self, key: u128, body: &[u8]) -> Result<(), SegmentError> {
        assert!(
            self.last.is_none_or(|l| l < key),
            "segment keys out of order"
        );
        let previous = if self.block_entries == 0 {
            self.first = key;
            key >> 64
        } else {
            self.last.map_or(0, |l| l >> 64)
        };
        put_varint(&mut self.block, ((key >> 64) - previous) as u64);
        put_varint(&mut self.block, fold(key as u64));
        put_varint(&mut self.block, body.len() as u64);
        self.block.extend_from_slice(body);
        self.block_entries += 1;
        self.entries += 1;
        self.last = Some(key);
        if self.block.len() >= BLOCK_BYTES {
            self.end_block()?;
        }
        Ok(())
    }

    fn end_block(&mut self) -> Result<(), SegmentError> {
        if self.block_entries == 0 {
            return Ok(());
        }
        let packed = self
            .compressor
            .compress(&self.block)
            .map_err(|e| self.io(e))?;
        self.out.write_all(&packed).map_err(|e| self.io(e))?;
        self.blocks.push(BlockRef {
            first: self.first,
            last: self.last.unwrap_or(self.first),
            offset: self.offset,
            len: packed.len() as u32,
            size: self.block.len() as u32,
            entries: self.block_entries,
        });
        self.offset += packed.len() as u64;
        self.block.clear();
        self.block_entries = 0;
        Ok(())
    }

    /// Writes the last block, the index and the footer, and makes the
    /// file durable; returns its entries.
    ///
    /// # Errors
    /// [`SegmentError::Io`].
    pub fn finish(mut self) -> Result<u64, SegmentError> {
        self.end_block()?;
        let mut index = Vec::with_capacity(self.blocks.len() * BLOCK_REF_BYTES);
        for b in &self.blocks {
            index.extend_from_slice(&b.first.to_le_bytes());
            index.extend_from_slice(&b.last.to_le_bytes());
            index.extend_from_slice(&b.offset.to_le_bytes());
            index.extend_from_slice(&b.len.to_le_bytes());
            index.extend_from_slice(&b.size.to_le_bytes());
            index.extend_from_slice(&b.entries.to_le_bytes());
        }
        let packed = self.compressor.compress(&index).map_err(|e| self.io(e))?;
        let mut footer = Vec::with_capacity(FOOTER_BYTES);
        footer.extend_from_slice(MAGIC);
        footer.extend_from_slice(&self.offset.to_le_bytes());
        footer.extend_from_slice(&(packed.len() as u64).to_le_bytes());
        footer.extend_from_slice(&self.entries.to_le_bytes());
        self.out.write_all(&packed).map_err(|e| self.io(e))?;
        self.out.write_all(&footer).map_err(|e| self.io(e))?;
        self.out.flush().map_err(|e| self.io(e))?;
        self.out.get_ref().sync_all().map_err(|e| self.io(e))?;
        Ok(self.entries)
    }
}

thread_local! {
    /// Each thread's zstd decompression context, made once: making one
    /// for every block read (`zstd::bulk::decompress`) was 6.5% of a
    /// merge's time, more than some blocks' decompression.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

/// `packed`, a zstd frame of at most `size` bytes, decompressed with this
/// thread's context.
fn decompress(packed: &[u8], size: usize) -> std::io::Result<Vec<u8>> {
    DECOMPRESSOR.with(|cell| {
        let mut cell = cell.borrow_mut();
        let d = match &mut *cell {
            Some(d) => d,
            empty => empty.insert(zstd::bulk::Decompressor::new()?),
        };
        d.decompress(packed, size)
    })
}

/// A segment file open for reading.
#[derive(Debug)]
pub struct Segment {
    path: PathBuf,
    file: File,
    blocks: Vec<BlockRef>,
    entries: u64,
    bytes: u64,
}

impl Segment {
    /// Opens the segment `path`, reading its footer and index.
    ///
    /// # Errors
    /// [`SegmentError::Io`]; [`SegmentError::Damaged`] if it is not a
    /// whole segment.
    pub fn open(path: &Path) -> Result<Segment, SegmentError> {
        let io = |source| SegmentError::Io {
            path: path.to_path_buf(),
            source,
        };
        let damaged = |what: &str| SegmentError::Damaged {
            path: path.to_path_buf(),
            what: what.to_string(),
        };
        let file = File::open(path).map_err(io)?;
        let bytes = file.metadata().map_err(io)?.len();
        if bytes < FOOTER_BYTES as u64 {
            return Err(damaged("shorter than a footer"));
        }
        let mut footer = [0u8; FOOTER_BYTES];
        file.read_exact_at(&mut footer, bytes - FOOTER_BYTES as u64)
            .map_err(io)?;
        if &footer[..8] != MAGIC {
            return Err(damaged("no footer (cut short, or not a segment)"));
        }
        let word = |i: usize| u64::from_le_bytes(footer[i..i + 8].try_into().unwrap_or([0; 8]));
        let (index_at, index_len, entries) = (word(8), word(16), word(24));
        if index_at
            .checked_add(index_len)
            .is_none_or(|end| end != bytes - FOOTER_BYTES as u64)
            || index_len > 1 << 30
        {
            return Err(damaged("the footer's index is not where it says"));
        }
        let mut packed = vec![0u8; index_len as usize];
        file.read_exact_at(&mut packed, index_at).map_err(io)?;
        let index = zstd::stream::decode_all(packed.as_slice())
            .map_err(|e| damaged(&format!("its block index: {e}")))?;
        if index.len() % BLOCK_REF_BYTES != 0 {
            return Err(damaged("its block index"));
        }
        let mut blocks = Vec::with_capacity(index.len() / BLOCK_REF_BYTES);
        let mut expect = 0u64;
        let mut counted = 0u64;
        for r in index.chunks_exact(BLOCK_REF_BYTES) {
            let u128_at =
                |i: usize| u128::from_le_bytes(r[i..i + 16].try_into().unwrap_or([0; 16]));
            let u32_at = |i: usize| u32::from_le_bytes(r[i..i + 4].try_into().unwrap_or([0; 4]));
            let b = BlockRef {
                first: u128_at(0),
                last: u128_at(16),
                offset: u64::from_le_bytes(r[32..40].try_into().unwrap_or([0; 8])),
                len: u32_at(40),
                size: u32_at(44),
                entries: u32_at(48),
            };
            let ordered = blocks.last().is_none_or(|p: &BlockRef| p.last < b.first);
            if b.offset != expect
                || b.first > b.last
                || !ordered
                || b.size as usize > 4 * BLOCK_BYTES
            {
                return Err(damaged("its block index"));
            }
            expect += u64::from(b.len);
            counted += u64::from(b.entries);
            blocks.push(b);
        }
        if expect != index_at || counted != entries {
            return Err(damaged("its block index does not cover its blocks"));
        }
        Ok(Segment {
            path: path.to_path_buf(),
            file,
            blocks,
            entries,
            bytes,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its entries.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// Its size in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn damaged(&self, what: String) -> SegmentError {
        SegmentError::Damaged {
            path: self.path.clone(),
            what,
        }
    }

    /// The bytes of block `i` and where each entry's bytes are in them,
    /// with its key, in order.
    fn raw_block(&self, i: usize) -> Result<RawBlock, SegmentError> {
        let b = self.blocks[i];
        let mut packed = vec![0u8; b.len as usize];
        self.file
            .read_exact_at(&mut packed, b.offset)
            .map_err(|source| SegmentError::Io {
                path: self.path.clone(),
                source,
            })?;
        let raw = decompress(&packed, b.size as usize)
            .map_err(|e| self.damaged(format!("block {i}: {e}")))?;
        let bad = || self.damaged(format!("block {i}: an entry does not read"));
        let mut spans = Vec::with_capacity(b.entries as usize);
        let mut bytes = raw.as_slice();
        let mut hash = (b.first >> 64) as u64;
        while !bytes.is_empty() {
            hash = hash
                .checked_add(get_varint(&mut bytes).ok_or_else(bad)?)
                .ok_or_else(bad)?;
            let bucket = unfold(get_varint(&mut bytes).ok_or_else(bad)?);
            let len = get_varint(&mut bytes).ok_or_else(bad)? as usize;
            if len > bytes.len() {
                return Err(bad());
            }
            let at = raw.len() - bytes.len();
            bytes = &bytes[len..];
            let key = u128::from(hash) << 64 | u128::from(bucket);
            if spans.last().is_some_and(|&(k, _, _)| k >= key) {
                return Err(bad());
            }
            spans.push((key, at, at + len));
        }
        let ends = (spans.first().map(|e| e.0), spans.last().map(|e| e.0));
        if spans.len() != b.entries as usize || ends != (Some(b.first), Some(b.last)) {
            return Err(self.damaged(format!("block {i}: not what its index says")));
        }
        Ok(RawBlock { raw, spans, at: 0 })
    }

    /// The entries of block `i`, in order.
    fn block(&self, i: usize) -> Result<Vec<(u128, Explored)>, SegmentError> {
        let block = self.raw_block(i)?;
        let mut out = Vec::with_capacity(block.spans.len());
        for &(key, from, to) in &block.spans {
            let entry = decode_entry(&block.raw[from..to])
                .ok_or_else(|| self.damaged(format!("block {i}: an entry does not read")))?;
            out.push((key, entry));
        }
        Ok(out)
    }

    /// The entries with keys in `lo..=hi`, in order.
    ///
    /// # Errors
    /// [`SegmentError`] if a block cannot be read or is damaged.
    pub fn range(&self, lo: u128, hi: u128) -> Result<Vec<(u128, Explored)>, SegmentError> {
        let mut out = Vec::new();
        let start = self.blocks.partition_point(|b| b.last < lo);
        for i in start..self.blocks.len() {
            if self.blocks[i].first > hi {
                break;
            }
            out.extend(
                self.block(i)?
                    .into_iter()
                    .filter(|(k, _)| (lo..=hi).contains(k)),
            );
        }
        Ok(out)
    }

    /// Its entries in order, a block read at a time.
    pub fn iter(&self) -> SegmentIter<'_> {
        SegmentIter {
            segment: self,
            block: 0,
            pending: Vec::new().into_iter(),
        }
    }
}

/// The entries of a segment in order ([`Segment::iter`]).
pub struct SegmentIter<'a> {
    segment: &'a Segment,
    block: usize,
    pending: std::vec::IntoIter<(u128, Explored)>,
}

impl Iterator for SegmentIter<'_> {
    type Item = Result<(u128, Explored), SegmentError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(e) = self.pending.next() {
                return Some(Ok(e));
            }
            if self.block >= self.segment.blocks.len() {
                return None;
            }
            match self.segment.block(self.block) {
                Ok(entries) => self.pending = entries.into_iter(),
                Err(e) => {
                    self.block = self.segment.blocks.len();
                    return Some(Err(e));
                }
            }
            self.block += 1;
        }
    }
}

/// A block's bytes, where each entry is in them, and the next to read.
struct RawBlock {
    raw: Vec<u8>,
    spans: Vec<(u128, usize, usize)>,
    at: usize,
}

/// A segment's entries in order as their bytes, a block at a time (what
/// a merge reads: an entry no other input has is copied, not decoded).
struct Cursor<'a> {
    segment: &'a Segment,
    /// The block after the one at hand.
    next: usize,
    block: RawBlock,
}

impl<'a> Cursor<'a> {
    fn new(segment: &'a Segment) -> Result<Cursor<'a>, SegmentError> {
        let mut c = Cursor {
            segment,
            next: 0,
            block: RawBlock {
                raw: Vec::new(),
                spans: Vec::new(),
                at: 0,
            },
        };
        c.fill()?;
        Ok(c)
    }

    /// Reads blocks until one has an entry left, or none is left.
    fn fill(&mut self) -> Result<(), SegmentError> {
        while self.block.at >= self.block.spans.len() && self.next < self.segment.blocks.len() {
            self.block = self.segment.raw_block(self.next)?;
            self.next += 1;
        }
        Ok(())
    }

    /// The entry at hand: its key and bytes.
    fn peek(&self) -> Option<(u128, &[u8])> {
        let &(key, from, to) = self.block.spans.get(self.block.at)?;
        Some((key, &self.block.raw[from..to]))
    }

    fn advance(&mut self) -> Result<(), SegmentError> {
        self.block.at += 1;
        self.fill()
    }
}

/// Merges the entries of `inputs` into a new segment `out`: entries of
/// one key merged into one (their counts added, their games pruned), an entry
/// whose key is in one input only copied as it is; returns its entries.
///
/// # Errors
/// [`SegmentError`] of an input or of `out`.
pub fn merge(inputs: &[&Segment], out: &Path) -> Result<u64, SegmentError> {
    let unshifted: Vec<(&Segment, u64)> = inputs.iter().map(|&s| (s, 0)).collect();
    merge_shifted(&unshifted, out)
}

/// [`merge`] with the game numbers of each input's entries raised by its
/// offset (the games of a database merged after others': see
/// `Database::merge_parts`). An entry of one input is copied as it is when
/// its offset is 0, and read, shifted and written again otherwise.
///
/// # Errors
/// [`SegmentError`] of an input or of `out`.
pub fn merge_shifted(inputs: &[(&Segment, u64)], out: &Path) -> Result<u64, SegmentError> {
    let mut writer = SegmentWriter::create(out)?;
    let mut cursors = Vec::with_capacity(inputs.len());
    for &(s, _) in inputs {
        cursors.push(Cursor::new(s)?);
    }
    let read = |c: &Cursor<'_>, shift: u64| -> Result<Explored, SegmentError> {
        let body = c.peek().map_or(&[][..], |(_, b)| b);
        let mut e = decode_entry(body).ok_or_else(|| {
            c.segment
                .damaged(format!("block {}: an entry does not read", c.next - 1))
        })?;
        for g in &mut e.games {
            g.id += shift;
        }
        Ok(e)
    };
    let mut heap = BinaryHeap::new();
    for (i, c) in cursors.iter().enumerate() {
        if let Some((k, _)) = c.peek() {
            heap.push(Reverse((k, i)));
        }
    }
    let mut same = Vec::new();
    while let Some(Reverse((key, i))) = heap.pop() {
        same.clear();
        same.push(i);
        while let Some(&Reverse((k, j))) = heap.peek() {
            if k != key {
                break;
            }
            heap.pop();
            same.push(j);
        }
        if let [only] = same[..] {
            if inputs[only].1 != 0 {
                writer.push(key, &read(&cursors[only], inputs[only].1)?)?;
            } else if let Some((_, body)) = cursors[only].peek() {
                writer.push_raw(key, body)?;
            }
        } else {
            let mut entry = Explored::default();
            for &j in &same {
                entry.merge(read(&cursors[j], inputs[j].1)?);
            }
            entry.prune();
            writer.push(key, &entry)?;
        }
        for &j in &same {
            cursors[j].advance()?;
            if let Some((k, _)) = cursors[j].peek() {
                heap.push(Reverse((k, j)));
            }
        }
    }
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::GameRef;
    use rookery_core::{Move, Position};
    use rookery_pgn::explorer::Tally;
    use rookery_pgn::GameResult;

    fn entry(seed: u64, legal: &[Move]) -> Explored {
        let mut t = Tally::default();
        t.add(
            GameResult::WhiteWins,
            rookery_core::Color::White,
            [Some(2000), None],
        );
        let mv = legal[(seed % legal.len() as u64) as usize];
        Explored {
            passing: t,
            moves: vec![(mv, t)],
            games: vec![GameRef {
                id: seed,
                mv,
                rating: 0,
                date: 20240601,
            }],
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rookery-seg-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Entries written read back, by range and in order, across many
    /// blocks; a merge of two segments adds the entries of a key.
    #[test]
    fn entries_read_back_and_merge() {
        let d = dir("rw");
        let legal: Vec<Move> = Position::startpos().legal_moves().to_vec();
        let keys: Vec<u128> = (0..20_000u64)
            .map(|i| {
                u128::from(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 8) << 64 | u128::from(i % 3)
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        let mut w = SegmentWriter::create(&d.join("a")).unwrap();
        for (i, k) in sorted.iter().enumerate() {
            w.push(*k, &entry(i as u64, &legal)).unwrap();
        }
        assert_eq!(w.finish().unwrap(), 20_000);
        let a = Segment::open(&d.join("a")).unwrap();
        assert!(a.blocks.len() > 1, "{} blocks", a.blocks.len());
        let all: Vec<(u128, Explored)> = a.iter().map(Result::unwrap).collect();
        assert_eq!(all.len(), 20_000);
        for (i, (k, e)) in all.iter().enumerate() {
            assert_eq!(*k, sorted[i]);
            assert_eq!(*e, entry(i as u64, &legal));
        }
        let probe = sorted[12_345];
        let hash_lo = probe >> 64 << 64;
        let found = a.range(hash_lo, hash_lo | u128::from(u64::MAX)).unwrap();
        assert!(found.iter().any(|(k, _)| *k == probe));
        assert!(found.iter().all(|(k, _)| k >> 64 == probe >> 64));
        // Merged with itself: each key once, its games counted twice.
        let b = Segment::open(&d.join("a")).unwrap();
        assert_eq!(merge(&[&a, &b], &d.join("m")).unwrap(), 20_000);
        let m = Segment::open(&d.join("m")).unwrap();
        for (i, row) in m.iter().enumerate() {
            let (k, e) = row.unwrap();
            assert_eq!(k, sorted[i]);
            assert_eq!(e.passing.games(), 2);
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Folding a key's low bits is undone, whatever the bits.
    #[test]
    fn folds_unfold() {
        for b in [
            0,
            1,
            u64::MAX,
            5 << 40 | 7 << 32 | 24_300,
            0xdead_beef_1234_5678,
        ] {
            assert_eq!(unfold(fold(b)), b);
        }
        assert!(fold(6 << 40 | 11 << 32 | 0xffff) < 1 << 28);
    }

    /// A file cut short, a flipped byte in a block or in the index: named
    /// as damaged, never read as entries.
    #[test]
    fn damage_is_named() {
        let d = dir("damage");
        let legal: Vec<Move> = Position::startpos().legal_moves().to_vec();
        let mut w = SegmentWriter::create(&d.join("a")).unwrap();
        for i in 0..5_000u64 {
            w.push(u128::from(i) << 70, &entry(i, &legal)).unwrap();
        }
        w.finish().unwrap();
        let bytes = std::fs::read(d.join("a")).unwrap();
        let cut = d.join("cut");
        std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
        let e = Segment::open(&cut).unwrap_err().to_string();
        assert!(e.contains("cut") && e.contains("damaged"), "{e}");
        for at in [10, bytes.len() / 2, bytes.len() - FOOTER_BYTES - 3] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x40;
            let p = d.join(format!("flip{at}"));
            std::fs::write(&p, &flipped).unwrap();
            let read = Segment::open(&p).and_then(|s| s.iter().collect::<Result<Vec<_>, _>>());
            let e = read.expect_err("a flipped byte must not read").to_string();
            assert!(
                e.contains("damaged") && e.contains(&format!("flip{at}")),
                "{e}"
            );
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
