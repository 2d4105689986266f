//! The part of an input a shard reads: the splitter of `--shard K/N`.
//!
//! A job's items are the input's lines (EPD: one record a line) or games
//! (PGN: found by rookery-pgn's reader, which knows where a game starts);
//! shard K of N takes the contiguous run [`Shard::part`] of them, counted
//! over the whole input. Counting first and then cutting by count (rather
//! than cutting the file's bytes at the first record boundary after
//! `size * K / N`) works on compressed input too, splits by items exactly
//! (the shards differ by at most one record or game), and leaves every
//! line number and game number that a verb prints or writes (an EPD `id`
//! of `pgn to-epd` holds the game's number) the same as in one run: the
//! cost is that every shard reads the input up to the end of its part
//! (lines are counted at memchr speed, several GB/s from the page cache),
//! which is small beside the engine work of the verbs worth sharding.
//!
//! [`Lines`] hands a verb exactly the lines of its part;
//! [`count_lines`] counts them first.
//!
//! ```
//! use rookery_io::part::{count_lines, Lines};
//! use rookery_io::shard::Shard;
//! use std::io::Read;
//!
//! let text = b"a\nb\nc\nd\ne";
//! let total = count_lines(&text[..])?;
//! assert_eq!(total, 5);
//! let shard: Shard = "2/2".parse()?;
//! let mut part = String::new();
//! Lines::new(&text[..], shard.part(total)).read_to_string(&mut part)?;
//! assert_eq!(part, "c\nd\ne");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Shard::part`]: crate::shard::Shard::part

use std::io::{self, BufRead, Read};
use std::ops::Range;

/// Bytes read at a time while counting.
const COUNT_BUFFER: usize = 1 << 16;

/// The lines of `input`: those ended by `\n`, and a last one without it.
///
/// # Errors
/// As the input's reads.
pub fn count_lines(mut input: impl Read) -> io::Result<u64> {
    let mut buf = vec![0u8; COUNT_BUFFER];
    let (mut lines, mut open) = (0u64, false);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let newlines = memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        lines += newlines;
        open = buf[n - 1] != b'\n';
    }
    Ok(lines + u64::from(open))
}

/// The lines `range` (numbered from 0) of an input, read as a stream: the
/// lines before are read and dropped, the input is not read past the
/// last.
pub struct Lines<R> {
    inner: R,
    /// Lines still to drop before the part.
    skip: u64,
    /// Lines of the part not yet handed on (whole or in part).
    left: u64,
}

impl<R: BufRead> Lines<R> {
    /// Lines `range` of `inner`.
    pub fn new(inner: R, range: Range<u64>) -> Lines<R> {
        Lines {
            inner,
            skip: range.start,
            left: range.end.saturating_sub(range.start),
        }
    }

    /// Drops the lines before the part.
    fn skip(&mut self) -> io::Result<()> {
        while self.skip > 0 {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                self.skip = 0;
                self.left = 0;
                break;
            }
            let mut used = buf.len();
            for at in memchr::memchr_iter(b'\n', buf) {
                self.skip -= 1;
                if self.skip == 0 {
                    used = at + 1;
                    break;
                }
            }
            self.inner.consume(used);
        }
        Ok(())
    }
}

impl<R: BufRead> BufRead for Lines<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.skip()?;
        if self.left == 0 {
            return Ok(&[]);
        }
        let buf = self.inner.fill_buf()?;
        // Hand on up to the end of the part's last line.
        let mut end = buf.len();
        let mut lines = 0;
        for at in memchr::memchr_iter(b'\n', buf) {
            lines += 1;
            if lines == self.left {
                end = at + 1;
                break;
            }
        }
        Ok(&buf[..end])
    }

    fn consume(&mut self, amount: usize) {
        if amount == 0 {
            return;
        }
        // Only what `fill_buf` handed on is consumed: the inner buffer
        // still holds those bytes.
        if let Ok(buf) = self.inner.fill_buf() {
            let ended = memchr::memchr_iter(b'\n', &buf[..amount.min(buf.len())]).count() as u64;
            self.left = self.left.saturating_sub(ended);
        }
        self.inner.consume(amount);
    }
}

impl<R: BufRead> Read for Lines<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::Shard;
    use proptest::prelude::*;

    fn part(text: &[u8], range: Range<u64>, cap: usize) -> Vec<u8> {
        let mut out = Vec::new();
        Lines::new(io::BufReader::with_capacity(cap, text), range)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn counts_a_last_line_without_newline() {
        assert_eq!(count_lines(&b""[..]).unwrap(), 0);
        assert_eq!(count_lines(&b"\n"[..]).unwrap(), 1);
        assert_eq!(count_lines(&b"a"[..]).unwrap(), 1);
        assert_eq!(count_lines(&b"a\n\nb"[..]).unwrap(), 3);
    }

    #[test]
    fn a_part_past_the_end_is_empty() {
        assert_eq!(part(b"a\nb\n", 2..5, 1), b"");
        assert_eq!(part(b"a\nb\n", 1..5, 1), b"b\n");
        assert_eq!(part(b"a\nb\nc", 0..0, 3), b"");
    }

    proptest! {
        /// Every line in exactly one shard's part, and the parts in shard
        /// order give back the input, for any N and any buffer size.
        #[test]
        fn parts_restore_the_input(
            lines in proptest::collection::vec("[a-z ;\r]{0,12}", 0..60),
            open_end in any::<bool>(),
            n in 1u32..12,
            cap in 1usize..40,
        ) {
            let mut text = lines.join("\n").into_bytes();
            if !open_end && !lines.is_empty() {
                text.push(b'\n');
            }
            let total = count_lines(&text[..]).unwrap();
            let mut joined = Vec::new();
            let mut seen = 0;
            for k in 0..n {
                let shard = Shard::new(k, n).unwrap();
                let p = part(&text, shard.part(total), cap);
                seen += count_lines(&p[..]).unwrap();
                joined.extend(p);
            }
            prop_assert_eq!(seen, total);
            prop_assert_eq!(joined, text);
        }
    }
}
