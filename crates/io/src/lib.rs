//! Reading and writing files for rookery: the one home of what every verb
//! does with its inputs and outputs, below the formats (PGN, EPD) and
//! above the operating system.
//!
//! - [`latin1`]: text that should be UTF-8 but may hold ISO 8859-1 lines
//!   (decoded, never replaced), and UTF-16/UTF-32 text (refused, with how
//!   to convert it).
//! - [`parallel`]: ordered parallel work (`--jobs`): results in input
//!   order, a panic an error and never a hang.
//! - [`ReadAt`]: input that several threads read at any offset at once (a
//!   file): the positional reads of `--jobs` on a regular file.

#![deny(missing_docs)]

pub mod latin1;
pub mod parallel;

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
