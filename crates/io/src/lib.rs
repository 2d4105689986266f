//! Reading and writing files for rookery: the one home of what every verb
//! does with its inputs and outputs, below the formats (PGN, EPD) and
//! above the operating system.
//!
//! - [`input`]: opening an input (a file, or stdin for `-`) and reading its
//!   text, compressed or not: zstd (multi-frame, skippable frames), gzip
//!   (multi-member) and bzip2 (multi-stream) are told by their first bytes,
//!   never by the file's name, and decompressed on a thread of their own.
//!   Damage (a truncated file, a bad checksum) ends the text where it is
//!   and is told afterwards ([`input::Damage`]), so that what came before
//!   it is still read.
//! - [`latin1`]: text that should be UTF-8 but may hold ISO 8859-1 lines
//!   (decoded, never replaced), and UTF-16/UTF-32 text (refused, with how
//!   to convert it).
//! - [`output`]: the crash-safe output: a partial file beside the target,
//!   renamed over it only when the run finished; `--in-place`; the sources
//!   a `--resume` takes finished records from; outputs refused when they
//!   are an input or each other; compression by the target's extension.
//! - [`parallel`]: ordered parallel work (`--jobs`): results in input
//!   order, a panic an error and never a hang.
//! - [`shard`]: which part of a job a task does (`--shard K/N`, or the
//!   scheduler's: Slurm job arrays, Kubernetes Indexed Jobs).
//! - [`part`]: the part of an input a shard reads (its lines, counted
//!   over the whole input).
//! - [`manifest`]: what a shard writes beside its part, and the checks of
//!   `rookery merge`.
//! - [`ReadAt`]: input that several threads read at any offset at once (a
//!   file): the positional reads of `--jobs` on a regular file.
//!
//! ```
//! use rookery_io::input::Input;
//! use std::io::{Read, Write};
//!
//! // A gzip stream, read back as text: told by its bytes, not by a name.
//! let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
//! gz.write_all(b"[Event \"a\"]\n\n1. e4 e5 *\n")?;
//! let mut input = Input::from_reader("games", std::io::Cursor::new(gz.finish()?))?;
//! assert_eq!(input.format(), rookery_io::input::Format::Gzip);
//! let mut text = String::new();
//! input.read_to_string(&mut text)?;
//! assert_eq!(text, "[Event \"a\"]\n\n1. e4 e5 *\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod input;
pub mod latin1;
pub mod manifest;
pub mod output;
pub mod parallel;
pub mod part;
pub mod shard;

use std::io;

/// Input that can be read at any offset, by several threads at once: a
/// file, or bytes in memory. The PGN splitter reads such an input on every
/// thread, each its own pieces.
pub trait ReadAt {
    /// Reads bytes from `offset` into `buf`: how many, 0 at the end of the
    /// input (or with `buf` empty).
    ///
    /// # Errors
    /// As the input's reads.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
}

impl ReadAt for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

/// A borrowed input reads as the input does (a source that holds `&File`).
impl<A: ReadAt + ?Sized> ReadAt for &A {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        (**self).read_at(buf, offset)
    }
}

#[cfg(unix)]
impl ReadAt for std::fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }
}

#[cfg(windows)]
impl ReadAt for std::fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::windows::fs::FileExt::seek_read(self, buf, offset)
    }
}

/// Fills `buf` from `offset` as far as the input goes: how many bytes.
///
/// # Errors
/// As the input's reads (an interrupted read is tried again).
pub fn read_full_at<A: ReadAt + ?Sized>(
    input: &A,
    buf: &mut [u8],
    offset: u64,
) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read_at(&mut buf[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
