//! Cutting a PGN stream into chunks of whole games, for parsing them in
//! parallel: each [`Chunk`] carries its bytes, the index of its first game
//! and the location it starts at, so that reading the chunks one by one (in
//! any thread) gives exactly what reading the stream at once gives.
//!
//! The cutting pass uses the reader in skipping mode (no SAN is parsed), so it
//! is much cheaper than parsing; memory stays bounded by the chunk size.
//!
//! ```
//! use rookery_pgn::split::Splitter;
//! let pgn = b"1. e4 e5 *\n1. d4 d5 *\n1. c4 c5 *\n";
//! let chunks: Vec<_> = Splitter::new(&pgn[..], 1).collect::<Result<_, _>>()?;
//! assert_eq!(chunks.len(), 3);
//! assert_eq!(chunks[2].first_index, 3);
//! let read = chunks[2].games().next().unwrap()?;
//! assert_eq!((read.index, read.at.line), (3, 3));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::cell::RefCell;
use std::io::{self, Read};
use std::rc::Rc;

use crate::game::Games;
use crate::reader::Reader;
use crate::types::Location;

/// Whole games cut from a stream.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// The bytes, from the end of the previous chunk to the end of its last game.
    pub bytes: Vec<u8>,
    /// Index (from 1) of the first game in the chunk.
    pub first_index: usize,
    /// How many games the chunk holds.
    pub games: usize,
    /// Where the chunk starts in the stream.
    pub start: Location,
}

impl Chunk {
    /// Reads the chunk's games, with stream-wide indices and locations.
    pub fn games(&self) -> Games<&[u8]> {
        Games::from_reader(
            Reader::starting_at(&self.bytes[..], self.start),
            self.first_index,
        )
    }

    /// A reader over the chunk, with stream-wide locations (for your own visitor).
    pub fn reader(&self) -> Reader<&[u8]> {
        Reader::starting_at(&self.bytes[..], self.start)
    }
}

/// Keeps a copy of every byte read, so chunks can be cut from it.
struct Tee<R> {
    inner: R,
    log: Rc<RefCell<Vec<u8>>>,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.log.borrow_mut().extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// Cuts a stream into [`Chunk`]s of about `target` bytes (at least one game each).
pub struct Splitter<R> {
    reader: Reader<Tee<R>>,
    log: Rc<RefCell<Vec<u8>>>,
    /// Stream offset of `log[0]`.
    log_base: u64,
    next_index: usize,
    target: u64,
}

impl<R: Read> Splitter<R> {
    /// A splitter aiming at chunks of `target` bytes.
    pub fn new(input: R, target: usize) -> Splitter<R> {
        let log = Rc::new(RefCell::new(Vec::new()));
        Splitter {
            reader: Reader::new(Tee {
                inner: input,
                log: Rc::clone(&log),
            }),
            log,
            log_base: 0,
            next_index: 1,
            target: target.max(1) as u64,
        }
    }

    /// Bytes of the stream consumed so far.
    pub fn offset(&self) -> u64 {
        self.reader.offset()
    }
}

impl<R: Read> Iterator for Splitter<R> {
    type Item = io::Result<Chunk>;

    fn next(&mut self) -> Option<io::Result<Chunk>> {
        let start = self.reader.location();
        let mut games = 0;
        let mut end = start.offset;
        loop {
            match self.reader.skip_game() {
                Ok(true) => {
                    games += 1;
                    end = self.reader.offset();
                    if end - start.offset >= self.target {
                        break;
                    }
                }
                Ok(false) => break,
                Err(e) => return Some(Err(e)),
            }
        }
        if games == 0 {
            return None;
        }
        let mut log = self.log.borrow_mut();
        // The log holds every byte from log_base on; `end` is within it.
        let cut = usize::try_from(end - self.log_base)
            .unwrap_or(log.len())
            .min(log.len());
        let bytes: Vec<u8> = log.drain(..cut).collect();
        self.log_base = end;
        let chunk = Chunk {
            bytes,
            first_index: self.next_index,
            games,
            start,
        };
        self.next_index += games;
        Some(Ok(chunk))
    }
}
