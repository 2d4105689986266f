//! The explorer's index on disk: immutable segment files, each a sorted
//! run of entries, as an LSM tree keeps them.
//!
//! An import counts positions in memory and writes what it counted as a
//! run, sorted by key: its only run as a new segment file, each of
//! several as a spilled run (`Spill`: uncompressed, read once); at its
//! end its runs (and, when there are many, the database's older
//! segments) are merged into one segment, by several threads each
//! merging a range of keys (`merge_inputs`). A file is never changed
//! once written: the list of the database's
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

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
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
        // Read too: a part's blocks are copied out of it (`append`).
        let file = File::options()
            .read(true)
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

    /// The blocks written, the last one ended, as a part of a segment
    /// that [`SegmentWriter::append`] adds to another (no index, no
    /// footer, not synced).
    ///
    /// # Errors
    /// [`SegmentError::Io`].
    fn into_part(mut self) -> Result<Part, SegmentError> {
        self.end_block()?;
        self.out.flush().map_err(|e| self.io(e))?;
        let path = self.path.clone();
        let file = self.out.into_inner().map_err(|e| SegmentError::Io {
            path: path.clone(),
            source: e.into_error(),
        })?;
        Ok(Part {
            path,
            file,
            blocks: self.blocks,
            len: self.offset,
            entries: self.entries,
        })
    }

    /// Adds the blocks of `part`, whose keys are all greater than those
    /// written, after the blocks written (the bytes copied by the kernel,
    /// the part's file then removed).
    ///
    /// # Errors
    /// [`SegmentError::Io`].
    ///
    /// # Panics
    /// If the part's keys are not greater (a bug of the caller).
    fn append(&mut self, mut part: Part) -> Result<(), SegmentError> {
        self.end_block()?;
        let Some(first) = part.blocks.first().map(|b| b.first) else {
            return Ok(());
        };
        assert!(self.last.is_none_or(|l| l < first), "parts out of order");
        self.out.flush().map_err(|e| self.io(e))?;
        let mut from = &part.file;
        let copied = from
            .seek(SeekFrom::Start(0))
            .and_then(|_| std::io::copy(&mut from.take(part.len), self.out.get_mut()))
            .map_err(|e| self.io(e))?;
        if copied != part.len {
            return Err(self.io(std::io::ErrorKind::UnexpectedEof.into()));
        }
        for b in &mut part.blocks {
            b.offset += self.offset;
        }
        self.last = part.blocks.last().map(|b| b.last);
        self.blocks.append(&mut part.blocks);
        self.offset += part.len;
        self.entries += part.entries;
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

/// Blocks of a segment written apart, in a file of their own (removed
/// when dropped), to be appended to another's ([`SegmentWriter::append`]).
struct Part {
    path: PathBuf,
    file: File,
    blocks: Vec<BlockRef>,
    /// The bytes of its blocks.
    len: u64,
    entries: u64,
}

impl Drop for Part {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
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
        let mut block = RawBlock::default();
        self.read_block(i, &mut Unpacker::new(self)?, &mut block)?;
        Ok(block)
    }

    /// [`Segment::raw_block`] into `block`, its buffers reused, `unpack`'s
    /// zstd context and buffer too (a merge reads every block: a fresh
    /// context each was a tenth of its time).
    fn read_block(
        &self,
        i: usize,
        unpack: &mut Unpacker,
        block: &mut RawBlock,
    ) -> Result<(), SegmentError> {
        let b = self.blocks[i];
        let packed = &mut unpack.packed;
        packed.resize(b.len as usize, 0);
        self.file
            .read_exact_at(packed, b.offset)
            .map_err(|source| SegmentError::Io {
                path: self.path.clone(),
                source,
            })?;
        let raw = &mut block.raw;
        raw.clear();
        raw.reserve(b.size as usize);
        let unpacked = unpack.context.decompress_to_buffer(packed.as_slice(), raw);
        match unpacked {
            Ok(n) if n <= b.size as usize => {}
            Ok(_) => return Err(self.damaged(format!("block {i}: longer than its index says"))),
            Err(e) => return Err(self.damaged(format!("block {i}: {e}"))),
        }
        let bad = || self.damaged(format!("block {i}: an entry does not read"));
        let spans = &mut block.spans;
        spans.clear();
        block.at = 0;
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
        Ok(())
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
#[derive(Default)]
struct RawBlock {
    raw: Vec<u8>,
    spans: Vec<(u128, usize, usize)>,
    at: usize,
}

/// A zstd context and a buffer of compressed bytes, kept from one block
/// read to the next.
struct Unpacker {
    context: zstd::bulk::Decompressor<'static>,
    packed: Vec<u8>,
}

impl Unpacker {
    fn new(segment: &Segment) -> Result<Unpacker, SegmentError> {
        let context = zstd::bulk::Decompressor::new().map_err(|source| SegmentError::Io {
            path: segment.path.clone(),
            source,
        })?;
        Ok(Unpacker {
            context,
            packed: Vec::new(),
        })
    }
}

/// A segment's entries in order as their bytes, a block at a time (what
/// a merge reads: an entry no other input has is copied, not decoded),
/// from a key on.
struct Cursor<'a> {
    segment: &'a Segment,
    /// The block after the one at hand.
    next: usize,
    block: RawBlock,
    unpack: Unpacker,
}

impl<'a> Cursor<'a> {
    /// The entries of `segment` from key `from` on.
    fn new(segment: &'a Segment, from: u128) -> Result<Cursor<'a>, SegmentError> {
        let mut c = Cursor {
            segment,
            next: segment.blocks.partition_point(|b| b.last < from),
            block: RawBlock::default(),
            unpack: Unpacker::new(segment)?,
        };
        c.fill()?;
        while c.peek().is_some_and(|(k, _)| k < from) {
            c.advance()?;
        }
        Ok(c)
    }

    /// Reads blocks until one has an entry left, or none is left.
    fn fill(&mut self) -> Result<(), SegmentError> {
        while self.block.at >= self.block.spans.len() && self.next < self.segment.blocks.len() {
            self.segment
                .read_block(self.next, &mut self.unpack, &mut self.block)?;
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

/// Entries a spilled run marks the place of, one in this many: where a
/// merge of a range of keys starts reading it.
const SPILL_MARK: u64 = 4096;

/// The buffer a spilled run is read through.
const SPILL_READ: usize = 256 * 1024;

/// An import's run of entries written to be merged, never a segment of
/// the index: its entries in order of key, as a segment's block holds
/// them (the hash as a varint of its distance from the previous one,
/// the folded bucket, the length of the entry's bytes and its bytes),
/// in one file, uncompressed and not synced: a run is read once, by the
/// merge at the end of its import, from the page cache (zstd took a
/// third of the time of writing runs, for a quarter of the bytes). An
/// entry in [`SPILL_MARK`] starts afresh (its hash written whole), and
/// its key and place are kept, so that a merge of a range of keys starts
/// there. The file is removed when the run is dropped; one left by a
/// killed import is no segment the database lists, removed at its next
/// opening.
pub(crate) struct Spill {
    path: PathBuf,
    file: File,
    /// Each marked entry's key and offset.
    marks: Vec<(u128, u64)>,
    /// The bytes of its entries.
    len: u64,
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Writes a [`Spill`]: entries given in increasing order of key.
pub(crate) struct SpillWriter {
    path: PathBuf,
    out: BufWriter<File>,
    marks: Vec<(u128, u64)>,
    len: u64,
    entries: u64,
    last: Option<u128>,
    scratch: Vec<u8>,
    head: Vec<u8>,
}

impl SpillWriter {
    /// Creates the file `path` (there must be none).
    ///
    /// # Errors
    /// [`SegmentError::Io`].
    pub(crate) fn create(path: &Path) -> Result<SpillWriter, SegmentError> {
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|source| SegmentError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(SpillWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, file),
            marks: Vec::new(),
            len: 0,
            entries: 0,
            last: None,
            scratch: Vec::new(),
            head: Vec::with_capacity(32),
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
    /// caller, as [`SegmentWriter::push`]'s).
    pub(crate) fn push(&mut self, key: u128, entry: &Explored) -> Result<(), SegmentError> {
        assert!(self.last.is_none_or(|l| l < key), "run keys out of order");
        let previous = match self.last {
            Some(l) if self.entries % SPILL_MARK != 0 => (l >> 64) as u64,
            _ => {
                self.marks.push((key, self.len));
                0
            }
        };
        let mut body = std::mem::take(&mut self.scratch);
        body.clear();
        encode_entry(entry, &mut body);
        self.head.clear();
        put_varint(&mut self.head, (key >> 64) as u64 - previous);
        put_varint(&mut self.head, fold(key as u64));
        put_varint(&mut self.head, body.len() as u64);
        let written = self
            .out
            .write_all(&self.head)
            .and_then(|()| self.out.write_all(&body));
        self.len += (self.head.len() + body.len()) as u64;
        self.scratch = body;
        written.map_err(|e| self.io(e))?;
        self.entries += 1;
        self.last = Some(key);
        Ok(())
    }

    /// The run written (not synced: see [`Spill`]).
    ///
    /// # Errors
    /// [`SegmentError::Io`].
    pub(crate) fn finish(self) -> Result<Spill, SegmentError> {
        let path = self.path.clone();
        let file = self.out.into_inner().map_err(|e| SegmentError::Io {
            path: path.clone(),
            source: e.into_error(),
        })?;
        Ok(Spill {
            path,
            file,
            marks: self.marks,
            len: self.len,
        })
    }
}

/// A spilled run's entries in order as their bytes, from a key on.
struct SpillCursor<'a> {
    spill: &'a Spill,
    /// The bytes read and not yet passed, from `buf[at]`.
    buf: Vec<u8>,
    at: usize,
    /// The file's offset after `buf`'s bytes.
    read_to: u64,
    /// The entry at hand: its key and where its bytes are in `buf`.
    entry: Option<(u128, usize, usize)>,
    /// The last hash read.
    hash: u64,
    /// Entries read since the last marked one began.
    since_mark: u64,
}

impl<'a> SpillCursor<'a> {
    /// The entries of `spill` from key `from` on.
    fn new(spill: &'a Spill, from: u128) -> Result<SpillCursor<'a>, SegmentError> {
        let mark = spill
            .marks
            .partition_point(|&(k, _)| k <= from)
            .saturating_sub(1);
        let mut c = SpillCursor {
            spill,
            buf: Vec::with_capacity(SPILL_READ),
            at: 0,
            read_to: spill.marks.get(mark).map_or(spill.len, |&(_, at)| at),
            entry: None,
            hash: 0,
            since_mark: 0,
        };
        c.advance()?;
        while c.peek().is_some_and(|(k, _)| k < from) {
            c.advance()?;
        }
        Ok(c)
    }

    fn damaged(&self) -> SegmentError {
        SegmentError::Damaged {
            path: self.spill.path.clone(),
            what: "a run's entry does not read".into(),
        }
    }

    /// Whether `n` bytes from `at` are in the buffer, reading more if the
    /// file has them.
    fn have(&mut self, n: usize) -> Result<bool, SegmentError> {
        if self.buf.len() - self.at >= n {
            return Ok(true);
        }
        self.buf.drain(..self.at);
        self.at = 0;
        let want = (n - self.buf.len()).max(SPILL_READ);
        let left = self.spill.len - self.read_to;
        let take = (want as u64).min(left) as usize;
        let old = self.buf.len();
        self.buf.resize(old + take, 0);
        self.spill
            .file
            .read_exact_at(&mut self.buf[old..], self.read_to)
            .map_err(|source| SegmentError::Io {
                path: self.spill.path.clone(),
                source,
            })?;
        self.read_to += take as u64;
        Ok(self.buf.len() >= n)
    }

    fn peek(&self) -> Option<(u128, &[u8])> {
        let (key, from, to) = self.entry?;
        Some((key, &self.buf[from..to]))
    }

    fn advance(&mut self) -> Result<(), SegmentError> {
        if let Some((_, _, to)) = self.entry.take() {
            self.at = to;
        }
        // Three varints of at most ten bytes each.
        if !self.have(30)? && self.at == self.buf.len() {
            return Ok(());
        }
        if self.since_mark % SPILL_MARK == 0 {
            self.hash = 0;
        }
        let mut bytes = &self.buf[self.at..];
        let whole = bytes.len();
        let (Some(delta), Some(bucket), Some(len)) = (
            get_varint(&mut bytes),
            get_varint(&mut bytes),
            get_varint(&mut bytes),
        ) else {
            return Err(self.damaged());
        };
        let from = self.at + whole - bytes.len();
        let len = usize::try_from(len).map_err(|_| self.damaged())?;
        self.at = from;
        if !self.have(len)? {
            return Err(self.damaged());
        }
        self.hash = self.hash.checked_add(delta).ok_or_else(|| self.damaged())?;
        self.since_mark += 1;
        let key = u128::from(self.hash) << 64 | u128::from(unfold(bucket));
        self.entry = Some((key, self.at, self.at + len));
        Ok(())
    }
}

/// What a merge reads: a segment, the game numbers of its entries raised
/// by an offset (see [`merge_shifted`]), or a spilled run.
pub(crate) enum MergeInput<'a> {
    Segment(&'a Segment, u64),
    Spill(&'a Spill),
}

/// An input of a merge, read from a key on to a key (not included).
enum Reading<'a> {
    Segment(Cursor<'a>, u64),
    Spill(SpillCursor<'a>),
}

impl Reading<'_> {
    fn peek(&self) -> Option<(u128, &[u8])> {
        match self {
            Reading::Segment(c, _) => c.peek(),
            Reading::Spill(c) => c.peek(),
        }
    }

    fn advance(&mut self) -> Result<(), SegmentError> {
        match self {
            Reading::Segment(c, _) => c.advance(),
            Reading::Spill(c) => c.advance(),
        }
    }

    /// The game numbers' offset.
    fn shift(&self) -> u64 {
        match self {
            Reading::Segment(_, shift) => *shift,
            Reading::Spill(_) => 0,
        }
    }

    /// The entry at hand, decoded, its game numbers shifted.
    fn read(&self) -> Result<Explored, SegmentError> {
        let body = self.peek().map_or(&[][..], |(_, b)| b);
        let damaged = || match self {
            Reading::Segment(c, _) => c
                .segment
                .damaged(format!("block {}: an entry does not read", c.next - 1)),
            Reading::Spill(c) => c.damaged(),
        };
        let mut e = decode_entry(body).ok_or_else(damaged)?;
        for g in &mut e.games {
            g.id += self.shift();
        }
        Ok(e)
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
    let inputs: Vec<MergeInput<'_>> = inputs
        .iter()
        .map(|&(s, shift)| MergeInput::Segment(s, shift))
        .collect();
    merge_inputs(&inputs, out, 1)
}

/// [`merge_shifted`] of segments and spilled runs, on `threads` threads:
/// each merges the entries of a range of keys (the hashes' space cut in
/// equal parts: a position's hash is as likely anywhere) into a file of
/// blocks of its own, and the files are joined, in order of their keys,
/// into `out`, with one block index. The entries are those one thread
/// writes; a block ends where a range does. (A range merged on one thread
/// while another compressed and wrote its blocks was tried: a million
/// games' merge of 40 runs took longer, its merging thread the slower.)
///
/// # Errors
/// [`SegmentError`] of an input or of `out`.
pub(crate) fn merge_inputs(
    inputs: &[MergeInput<'_>],
    out: &Path,
    threads: usize,
) -> Result<u64, SegmentError> {
    let threads = threads.max(1) as u128;
    // Range i starts at hash 2^64 * i / threads.
    let start = |i: u128| ((1u128 << 64) * i / threads) << 64;
    let ranges: Vec<(u128, Option<u128>)> = (0..threads)
        .map(|i| (start(i), (i + 1 < threads).then(|| start(i + 1))))
        .collect();
    let part_path = |i: usize| {
        let mut p = out.as_os_str().to_owned();
        p.push(format!(".part{i}"));
        PathBuf::from(p)
    };
    let (first, rest) = std::thread::scope(|scope| {
        let others: Vec<_> = ranges[1..]
            .iter()
            .enumerate()
            .map(|(i, &range)| {
                let path = part_path(i + 1);
                scope.spawn(move || {
                    let w = merge_range(inputs, range, &path)?;
                    w.into_part()
                })
            })
            .collect();
        let first = merge_range(inputs, ranges[0], out);
        let rest: Vec<Result<Part, SegmentError>> = others
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect();
        (first, rest)
    });
    let mut writer = first?;
    let rest: Vec<Part> = rest.into_iter().collect::<Result<_, _>>()?;
    for part in rest {
        writer.append(part)?;
    }
    writer.finish()
}

/// The entries of `inputs` with keys in `range` (from its first key, to
/// its second, not included; `None`: to the end) merged into a new
/// segment's writer at `out`, not finished.
fn merge_range(
    inputs: &[MergeInput<'_>],
    (from, to): (u128, Option<u128>),
    out: &Path,
) -> Result<SegmentWriter, SegmentError> {
    let mut writer = SegmentWriter::create(out)?;
    let mut cursors = Vec::with_capacity(inputs.len());
    for input in inputs {
        cursors.push(match *input {
            MergeInput::Segment(s, shift) => Reading::Segment(Cursor::new(s, from)?, shift),
            MergeInput::Spill(s) => Reading::Spill(SpillCursor::new(s, from)?),
        });
    }
    let within = |k: u128| to.is_none_or(|to| k < to);
    let mut heap = BinaryHeap::new();
    for (i, c) in cursors.iter().enumerate() {
        if let Some((k, _)) = c.peek().filter(|&(k, _)| within(k)) {
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
            let c = &cursors[only];
            if c.shift() != 0 {
                writer.push(key, &c.read()?)?;
            } else if let Some((_, body)) = c.peek() {
                writer.push_raw(key, body)?;
            }
        } else {
            let mut entry = Explored::default();
            for &j in &same {
                entry.merge(cursors[j].read()?);
            }
            entry.prune();
            writer.push(key, &entry)?;
        }
        for &j in &same {
            cursors[j].advance()?;
            if let Some((k, _)) = cursors[j].peek().filter(|&(k, _)| within(k)) {
                heap.push(Reverse((k, j)));
            }
        }
    }
    Ok(writer)
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

    /// Spilled runs and a segment merged on several threads (each a
    /// range of keys, starting within a run at its marks and within a
    /// segment's block) give the entries one thread gives, each key once
    /// with the games of every input that has it.
    #[test]
    fn spilled_runs_merge_on_threads_as_on_one() {
        let d = dir("spill");
        let legal: Vec<Move> = Position::startpos().legal_moves().to_vec();
        // Keys spread over the hashes' space, some in several inputs.
        let key =
            |i: u64| u128::from(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)) << 64 | u128::from(i % 5);
        let mut spills = Vec::new();
        let mut expected = std::collections::BTreeMap::new();
        for (r, (from, to)) in [(0u64, 12_000u64), (6_000, 20_000), (19_990, 30_000)]
            .into_iter()
            .enumerate()
        {
            let mut keys: Vec<(u128, u64)> = (from..to).map(|i| (key(i), i)).collect();
            keys.sort_unstable();
            let mut w = SpillWriter::create(&d.join(format!("{r}.run"))).unwrap();
            for &(k, i) in &keys {
                w.push(k, &entry(i, &legal)).unwrap();
                *expected.entry(k).or_insert(0u64) += 1;
            }
            spills.push(w.finish().unwrap());
        }
        let mut keys: Vec<(u128, u64)> = (25_000..26_000u64).map(|i| (key(i), i)).collect();
        keys.sort_unstable();
        let mut w = SegmentWriter::create(&d.join("s")).unwrap();
        for &(k, i) in &keys {
            w.push(k, &entry(i, &legal)).unwrap();
            *expected.entry(k).or_insert(0u64) += 1;
        }
        w.finish().unwrap();
        let seg = Segment::open(&d.join("s")).unwrap();
        let mut inputs: Vec<MergeInput<'_>> = spills.iter().map(MergeInput::Spill).collect();
        inputs.push(MergeInput::Segment(&seg, 0));
        let read = |threads: usize| {
            let out = d.join(format!("m{threads}"));
            let n = merge_inputs(&inputs, &out, threads).unwrap();
            let all: Vec<(u128, Explored)> = Segment::open(&out)
                .unwrap()
                .iter()
                .map(Result::unwrap)
                .collect();
            assert_eq!(n, all.len() as u64);
            all
        };
        let one = read(1);
        assert_eq!(one.len(), expected.len());
        for ((k, e), (x, games)) in one.iter().zip(&expected) {
            assert_eq!((k, e.passing.games()), (x, *games));
        }
        for threads in [2, 3, 7] {
            assert!(read(threads) == one, "{threads} threads");
        }
        let names: Vec<PathBuf> = spills.iter().map(|s| s.path.clone()).collect();
        drop(inputs);
        drop(spills);
        assert!(
            names.iter().all(|p| !p.exists()),
            "a spilled run left behind"
        );
        let left: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|f| f.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.contains(".part"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
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
