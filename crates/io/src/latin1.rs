//! Text that should be UTF-8 but may hold lines in ISO 8859-1 (Latin-1, the
//! PGN standard's character set): the one place rookery decodes it, for
//! the EPD and PGN verbs alike.
//!
//! [`Latin1Read`] is a [`Read`] over a [`Read`] that hands out every line
//! (up to and including its `\n`) that is valid UTF-8 as it is, every other
//! line decoded from Latin-1 ([`decode_into`]), and tells the number of the
//! first such line once. The inner reader (a file) fills the caller's
//! buffer directly, which is checked in place, a whole buffer of lines at a
//! time; only the unfinished line at its end is kept back for the next
//! call. Reading a file through it costs one UTF-8 check of the bytes and
//! no copy. For lines, put a [`std::io::BufReader`] over it: the file is
//! then read straight into that reader's buffer.
//!
//! ```
//! use rookery_io::latin1::Latin1Read;
//! use std::io::Read;
//! let mut first_bad = None;
//! let mut text = String::new();
//! Latin1Read::new(&b"ok\ncaf\xe9\n"[..], |line| first_bad = Some(line)).read_to_string(&mut text)?;
//! assert_eq!(text, "ok\ncafé\n");
//! assert_eq!(first_bad, Some(2));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Read};

/// Bytes read at a time when a line does not fit the caller's buffer.
const LONG_LINE_STEP: usize = 1 << 16;

/// A [`Read`] adapter that passes UTF-8 lines and decodes the others as
/// Latin-1 (see the module documentation).
pub struct Latin1Read<R, F> {
    inner: R,
    /// Bytes read from `inner` but not yet handed out or checked (from
    /// `raw_pos` on): the start of a line whose end has not been read yet
    /// (or more, after a line that was not UTF-8, or at the end).
    raw: Vec<u8>,
    raw_pos: usize,
    /// Checked (and, where needed, decoded) bytes waiting to be handed out.
    ready: Vec<u8>,
    /// How much of `ready` was handed out.
    pos: usize,
    /// Newlines checked so far (counted only while `warn` waits).
    lines: u64,
    warn: Option<F>,
    eof: bool,
}

impl<R: Read, F: FnOnce(u64)> Latin1Read<R, F> {
    /// Wraps `inner`; `warn` hears the number (from 1) of the first line
    /// that is not UTF-8.
    pub fn new(inner: R, warn: F) -> Latin1Read<R, F> {
        Latin1Read {
            inner,
            raw: Vec::new(),
            raw_pos: 0,
            ready: Vec::new(),
            pos: 0,
            lines: 0,
            warn: Some(warn),
            eof: false,
        }
    }

    fn read_inner(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.eof {
            return Ok(0);
        }
        loop {
            match self.inner.read(buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(0);
                }
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Makes `ready` hold the next checked bytes from `raw` (reading more
    /// while `raw` holds no whole line and the input goes on): all its whole
    /// lines up to the first that is not UTF-8, else that line decoded (at
    /// the end of the input, the last line without its newline counts as
    /// whole). Returns `false` when nothing is left.
    fn ready_from_raw(&mut self) -> io::Result<bool> {
        empty_and_free_if_long(&mut self.ready);
        self.pos = 0;
        // Bytes from `raw_pos` on known to hold no newline: each read is
        // searched once, so a line of any length costs time in proportion.
        let mut searched = 0;
        loop {
            let live = &self.raw[self.raw_pos..];
            if self.eof || memchr::memchr(b'\n', &live[searched..]).is_some() {
                break;
            }
            searched = live.len();
            if self.raw_pos > 0 {
                self.raw.drain(..self.raw_pos);
                self.raw_pos = 0;
            }
            let old = self.raw.len();
            self.raw.resize(old + LONG_LINE_STEP, 0);
            let mut more = std::mem::take(&mut self.raw);
            let got = self.read_inner(&mut more[old..]);
            more.truncate(old + *got.as_ref().unwrap_or(&0));
            self.raw = more;
            got?;
        }
        let live = &self.raw[self.raw_pos..];
        if live.is_empty() {
            return Ok(false);
        }
        let end = match memchr::memrchr(b'\n', live) {
            Some(i) => i + 1,
            None => live.len(),
        };
        let (good, _) = utf8_lines(&live[..end]);
        let used = if good > 0 {
            self.ready.extend_from_slice(&live[..good]);
            good
        } else {
            // The first line is not UTF-8.
            let len = memchr::memchr(b'\n', &live[..end]).map_or(end, |i| i + 1);
            if let Some(w) = self.warn.take() {
                w(self.lines + 1);
            }
            // Decoded into a buffer that becomes `ready` (empty here: no line
            // before this one was taken): a long line is not copied twice.
            let mut text = String::with_capacity(len * 2);
            decode_into(&live[..len], &mut text);
            self.ready = text.into_bytes();
            len
        };
        if self.warn.is_some() {
            self.lines += newlines_in(&self.raw[self.raw_pos..self.raw_pos + used]);
        }
        self.raw_pos += used;
        if self.raw_pos == self.raw.len() {
            empty_and_free_if_long(&mut self.raw);
            self.raw_pos = 0;
        }
        Ok(true)
    }
}

/// Empties `buf`, giving its memory back if a long line made it large: once
/// the line is handed out, not at the end of the input.
fn empty_and_free_if_long(buf: &mut Vec<u8>) {
    buf.clear();
    if buf.capacity() > 4 * LONG_LINE_STEP {
        *buf = Vec::new();
    }
}

/// Appends `bytes` read as ISO 8859-1 to `out`: every byte is the code
/// point of its value, so no byte is ever replaced.
///
/// ```
/// let mut text = String::from("caf");
/// rookery_io::latin1::decode_into(b"\xe9 \xff", &mut text);
/// assert_eq!(text, "café ÿ");
/// ```
pub fn decode_into(bytes: &[u8], out: &mut String) {
    out.extend(bytes.iter().map(|&b| char::from(b)));
}

/// Text with its lines that were not UTF-8 decoded from Latin-1
/// ([`decode_lines`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text: the UTF-8 lines as they were, the others decoded.
    pub text: String,
    /// The number (from 1) of the first line that was decoded.
    pub first_line: u64,
}

/// Reads `bytes` as [`Latin1Read`] reads a stream, in one go: the number of
/// newlines if it is all UTF-8 (one pass checks and counts, as the reader
/// does), else the text with every line that is not UTF-8 decoded from
/// Latin-1 ([`Decoded`]). Decoding changes no newline, so the count is that
/// of either.
///
/// ```
/// use rookery_io::latin1::decode_lines;
/// assert_eq!(decode_lines(b"ok\nfine"), Ok(1));
/// let odd = decode_lines(b"ok\ncaf\xe9\nfine\n").unwrap_err();
/// assert_eq!((odd.text.as_str(), odd.first_line), ("ok\ncafé\nfine\n", 2));
/// ```
///
/// # Errors
/// [`Decoded`] when a line is not UTF-8 (not a failure: the text is read).
pub fn decode_lines(bytes: &[u8]) -> Result<u64, Decoded> {
    let whole = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    let (good, newlines) = utf8_lines(&bytes[..whole]);
    if good == whole && std::str::from_utf8(&bytes[whole..]).is_ok() {
        return Ok(newlines);
    }
    // `bytes[..good]` is whole lines of UTF-8, `newlines` of them.
    let mut text = String::with_capacity(bytes.len() + (bytes.len() - good) / 2);
    text.push_str(std::str::from_utf8(&bytes[..good]).unwrap_or_default());
    let mut first_line = None;
    for (i, line) in bytes[good..].split_inclusive(|&b| b == b'\n').enumerate() {
        match std::str::from_utf8(line) {
            Ok(line) => text.push_str(line),
            Err(_) => {
                first_line.get_or_insert(newlines + i as u64 + 1);
                decode_into(line, &mut text);
            }
        }
    }
    Err(Decoded {
        text,
        first_line: first_line.unwrap_or(newlines + 1),
    })
}

/// Width of the lanes [`ascii_newlines`] checks at a time.
const LANE: usize = 64;

/// Lanes per block: few enough that a per-byte count of newlines fits a byte.
const LANES_PER_BLOCK: usize = 255;

/// Bytes checked at a time by [`utf8_lines`].
const BLOCK: usize = LANE * LANES_PER_BLOCK;

/// How much of `bytes` (which ends with a newline) is whole lines of UTF-8,
/// and how many newlines that part holds.
///
/// One pass does both for ASCII text (see [`ascii_newlines`]); a block that
/// is not all ASCII is checked by [`std::str::from_utf8`] from the start of
/// its first line to the end of its last.
fn utf8_lines(bytes: &[u8]) -> (usize, u64) {
    let mut lines = 0u64;
    let mut at = 0;
    while at < bytes.len() {
        let end = (at + BLOCK).min(bytes.len());
        if let Some(n) = ascii_newlines(&bytes[at..end]) {
            lines += n;
            at = end;
            continue;
        }
        // A line start is a character boundary; `bytes[from..at]` holds no
        // newline, so the lines counted so far stay right.
        let from = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let to = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i + 1);
        match std::str::from_utf8(&bytes[from..to]) {
            Ok(_) => {
                lines += newlines_in(&bytes[at..to]);
                at = to;
            }
            Err(e) => {
                // Up to the start of the first line that is not UTF-8.
                let good = memchr::memrchr(b'\n', &bytes[from..from + e.valid_up_to()])
                    .map_or(from, |i| from + i + 1);
                return (good, lines + newlines_in(&bytes[at.min(good)..good]));
            }
        }
    }
    (bytes.len(), lines)
}

/// Runs `f` compiled for AVX2 where the processor has it (asked once,
/// then cached by `std`): the portable x86-64 target has only 16-byte
/// vectors, which take twice the instructions of AVX2's 32-byte ones.
/// `f` must be `#[inline(always)]` and call only such functions, to be
/// compiled into the AVX2 copy.
#[inline(always)]
fn in_avx2_if_present<T>(f: impl FnOnce() -> T) -> T {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        /// `f`, compiled for AVX2.
        ///
        /// # Safety
        /// The processor must have AVX2.
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<T>(f: impl FnOnce() -> T) -> T {
            f()
        }
        // SAFETY: the processor has AVX2, just checked.
        return unsafe { avx2(f) };
    }
    f()
}

/// [`ascii_newlines_lanes`], in AVX2 where the processor has it.
#[inline]
fn ascii_newlines(block: &[u8]) -> Option<u64> {
    in_avx2_if_present(
        #[inline(always)]
        || ascii_newlines_lanes(block),
    )
}

/// The newlines in `block` (at most [`BLOCK`] bytes) if it is all ASCII.
///
/// Per byte of a 64-byte lane, an OR of the bytes (a high bit means
/// non-ASCII) and a count of `\n`: the compiler turns 64-byte lanes into
/// vector code (narrower ones it leaves scalar).
#[inline(always)]
fn ascii_newlines_lanes(block: &[u8]) -> Option<u64> {
    let lanes = block.chunks_exact(LANE);
    let tail = lanes.remainder();
    let mut high = [0u8; LANE];
    let mut newlines = [0u8; LANE];
    for lane in lanes {
        // Always a whole lane; as an array, without bounds checks.
        if let Ok(lane) = <&[u8; LANE]>::try_from(lane) {
            for i in 0..LANE {
                high[i] |= lane[i];
                newlines[i] += u8::from(lane[i] == b'\n');
            }
        }
    }
    let mut high = high.iter().fold(0, |a, &b| a | b);
    let mut n: u64 = newlines.iter().map(|&c| u64::from(c)).sum();
    for &b in tail {
        high |= b;
        n += u64::from(b == b'\n');
    }
    (high < 0x80).then_some(n)
}

/// The newlines (`\n` bytes) in `bytes`: per byte of a 64-byte lane, a
/// count that the compiler turns into vector code, added up every 255
/// lanes (a count per hit, as `memchr_iter` gives, costs a call a line).
///
/// ```
/// assert_eq!(rookery_io::latin1::newlines_in(b"a\nb\n\nc"), 3);
/// ```
pub fn newlines_in(bytes: &[u8]) -> u64 {
    in_avx2_if_present(
        #[inline(always)]
        || newlines_in_lanes(bytes),
    )
}

/// [`newlines_in`] in whatever vectors the target has.
#[inline(always)]
fn newlines_in_lanes(bytes: &[u8]) -> u64 {
    let mut n = 0u64;
    for block in bytes.chunks(BLOCK) {
        let lanes = block.chunks_exact(LANE);
        let tail = lanes.remainder();
        let mut counts = [0u8; LANE];
        for lane in lanes {
            if let Ok(lane) = <&[u8; LANE]>::try_from(lane) {
                for i in 0..LANE {
                    counts[i] += u8::from(lane[i] == b'\n');
                }
            }
        }
        n += counts.iter().map(|&c| u64::from(c)).sum::<u64>();
        n += tail.iter().filter(|&&b| b == b'\n').count() as u64;
    }
    n
}

impl<R: Read, F: FnOnce(u64)> Read for Latin1Read<R, F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.pos < self.ready.len() {
                let n = (self.ready.len() - self.pos).min(buf.len());
                buf[..n].copy_from_slice(&self.ready[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            let k = self.raw.len() - self.raw_pos;
            if self.eof || k >= buf.len() / 2 {
                // A line longer than half the buffer, a small buffer, or
                // the end: through `ready`.
                if !self.ready_from_raw()? {
                    return Ok(0);
                }
                continue;
            }
            // The common case: the unfinished line kept back, then as much
            // as fits read straight after it, checked up to its last newline.
            buf[..k].copy_from_slice(&self.raw[self.raw_pos..]);
            self.raw.clear();
            self.raw_pos = 0;
            let n = self.read_inner(&mut buf[k..])?;
            let total = k + n;
            let last = memchr::memrchr(b'\n', &buf[k..total]);
            let good = match last {
                Some(last) if n > 0 => {
                    let end = k + last + 1;
                    let (good, lines) = utf8_lines(&buf[..end]);
                    self.lines += lines;
                    good
                }
                _ => 0,
            };
            self.raw.extend_from_slice(&buf[good..total]);
            if good > 0 {
                return Ok(good);
            }
            if n > 0 && last.is_some() {
                // The first line is whole and not UTF-8: decoded through `ready`.
                if !self.ready_from_raw()? {
                    return Ok(0);
                }
            }
        }
    }
}

/// The encoding of text that is neither UTF-8 nor Latin-1 but UTF-16 or
/// UTF-32, told by its first bytes: a byte-order mark, or (UTF-16 without
/// one) a NUL in every other byte of the first two characters, which no
/// PGN or EPD text has. Read as Latin-1, such text would be a NUL in every
/// other character: games and records of nothing, not an error.
///
/// ```
/// use rookery_io::latin1::wide_encoding;
/// assert_eq!(wide_encoding(b"\xff\xfe[\0E\0"), Some("UTF-16LE"));
/// assert_eq!(wide_encoding(b"[\0E\0"), Some("UTF-16LE"));
/// assert_eq!(wide_encoding(b"[Event"), None);
/// assert_eq!(wide_encoding(b"\xef\xbb\xbf[Ev"), None);
/// ```
pub fn wide_encoding(first: &[u8]) -> Option<&'static str> {
    match first {
        [0, 0, 0xfe, 0xff, ..] => Some("UTF-32BE"),
        [0xff, 0xfe, 0, 0, ..] => Some("UTF-32LE"),
        [0xff, 0xfe, ..] => Some("UTF-16LE"),
        [0xfe, 0xff, ..] => Some("UTF-16BE"),
        [a, 0, b, 0, ..] if *a != 0 && *b != 0 => Some("UTF-16LE"),
        [0, a, 0, b, ..] if *a != 0 && *b != 0 => Some("UTF-16BE"),
        _ => None,
    }
}

/// The error for text in `encoding` (from [`wide_encoding`]): what it is and
/// how to convert it.
pub fn wide_error(encoding: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "the text is {encoding}, and rookery reads UTF-8 (or ISO 8859-1): \
             convert it first, e.g. with `iconv -f {encoding} -t UTF-8`"
        ),
    )
}

/// A [`Read`] that refuses text in UTF-16 or UTF-32 ([`wide_encoding`]) at
/// its first read, with [`wide_error`], and otherwise hands out the inner
/// reader's bytes unchanged. The first read reads at least four bytes (all
/// there are, if fewer) to tell: into the caller's buffer, or, if that is
/// smaller, into one of its own.
pub struct NarrowRead<R> {
    inner: R,
    head: [u8; 4],
    head_len: usize,
    head_pos: usize,
    checked: bool,
}

impl<R: Read> NarrowRead<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> NarrowRead<R> {
        NarrowRead {
            inner,
            head: [0; 4],
            head_len: 0,
            head_pos: 0,
            checked: false,
        }
    }
}

impl<R: Read> Read for NarrowRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.checked && buf.len() >= self.head.len() {
            // Straight into the caller's buffer, as the reads after it.
            let mut n = 0;
            while n < self.head.len() {
                match self.inner.read(&mut buf[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            if let Some(encoding) = wide_encoding(&buf[..n]) {
                return Err(wide_error(encoding));
            }
            self.checked = true;
            return Ok(n);
        }
        if !self.checked {
            while self.head_len < self.head.len() {
                match self.inner.read(&mut self.head[self.head_len..]) {
                    Ok(0) => break,
                    Ok(n) => self.head_len += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            if let Some(encoding) = wide_encoding(&self.head[..self.head_len]) {
                return Err(wide_error(encoding));
            }
            self.checked = true;
        }
        if self.head_pos < self.head_len {
            let n = (self.head_len - self.head_pos).min(buf.len());
            buf[..n].copy_from_slice(&self.head[self.head_pos..self.head_pos + n]);
            self.head_pos += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::io::BufRead;

    /// What [`Latin1Read`] must hand out, the plain way: the input split
    /// into lines, each passed as it is if it is UTF-8 and decoded byte by
    /// byte if not, with the number of the first line decoded.
    fn by_lines(input: &[u8]) -> (Vec<u8>, Option<u64>) {
        let mut out = Vec::new();
        let mut first = None;
        for (i, line) in input.split_inclusive(|&b| b == b'\n').enumerate() {
            match std::str::from_utf8(line) {
                Ok(_) => out.extend_from_slice(line),
                Err(_) => {
                    first.get_or_insert(i as u64 + 1);
                    let text: String = line.iter().map(|&b| char::from(b)).collect();
                    out.extend_from_slice(text.as_bytes());
                }
            }
        }
        (out, first)
    }

    /// [`decode_lines`] of `input` gives what [`by_lines`] gives, and the
    /// newlines when it is all UTF-8.
    fn decodes_as_line_by_line(input: &[u8]) -> Result<(), TestCaseError> {
        let (text, first) = by_lines(input);
        let newlines = input.iter().filter(|&&b| b == b'\n').count() as u64;
        match decode_lines(input) {
            Ok(n) => {
                prop_assert_eq!(first, None);
                prop_assert_eq!(n, newlines);
            }
            Err(d) => {
                prop_assert_eq!(Some(d.first_line), first);
                prop_assert_eq!(d.text.as_bytes(), &text[..]);
            }
        }
        Ok(())
    }

    /// Hands out at most `step` bytes a call.
    struct Chunks<'a>(&'a [u8], usize);
    impl Read for Chunks<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(buf.len()).min(self.1);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Reads all of `r` with reads of `buf_len` bytes.
    fn drain(mut r: impl Read, buf_len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = vec![0; buf_len];
        loop {
            let n = r.read(&mut buf).unwrap();
            if n == 0 {
                return out;
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    proptest! {
        /// Lines, mostly UTF-8 and many of them, as files are: blocks of
        /// ASCII and of other UTF-8 go through both checks.
        #[test]
        fn decode_lines_on_long_text(
            lines in prop::collection::vec(
                prop::sample::select(vec![
                    &b"1. e4 e5 2. Nf3 {a comment} Nc6 *\n"[..],
                    "[Event \"caf\u{e9}\"]\n".as_bytes(),
                    b"caf\xe9\n",
                    b"\n",
                    b"no newline",
                ]),
                0..3000,
            ),
            odd in any::<bool>(),
        ) {
            let mut input: Vec<u8> = lines
                .into_iter()
                .filter(|l| odd || !l.contains(&0xe9))
                .flatten()
                .copied()
                .collect();
            input.extend_from_slice(&[b'a'; 40]);
            decodes_as_line_by_line(&input)?;
        }

        /// Read at once, any bytes give the text and the first decoded line
        /// of a plain line-by-line decoding, and the newlines.
        #[test]
        fn decode_lines_is_line_by_line_decoding(
            input in prop::collection::vec(
                prop::sample::select(vec![b'a', b'\n', b' ', 0xc3, 0xa9, 0xe9, 0xff, b'[']),
                0..20_000,
            ),
        ) {
            decodes_as_line_by_line(&input)?;
        }
    }

    proptest! {
        /// Whatever the sizes of the inner reads and of the caller's buffer,
        /// the bytes and the warned line are those of a plain line-by-line
        /// decoding.
        #[test]
        fn reads_as_line_by_line_decoding(
            input in prop::collection::vec(
                prop::sample::select(vec![b'a', b'\n', b' ', 0xc3, 0xa9, 0xe9, 0xff, b'[']),
                0..300,
            ),
            step in 1usize..80,
            buf_len in 1usize..100,
        ) {
            let (want, want_line) = by_lines(&input);
            let mut got_line = None;
            let got = drain(Latin1Read::new(Chunks(&input, step), |l| got_line = Some(l)), buf_len);
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(got_line, want_line);
        }
    }

    /// What [`utf8_lines`] must answer, the slow way.
    fn utf8_lines_by_std(bytes: &[u8]) -> (usize, u64) {
        let good = match std::str::from_utf8(bytes) {
            Ok(_) => bytes.len(),
            Err(e) => memchr::memrchr(b'\n', &bytes[..e.valid_up_to()]).map_or(0, |i| i + 1),
        };
        (
            good,
            bytes[..good].iter().filter(|&&b| b == b'\n').count() as u64,
        )
    }

    proptest! {
        /// The one-pass check agrees with `from_utf8` and a plain count, on
        /// text of several blocks with non-ASCII bytes (valid or not) near
        /// block edges, in lines that straddle them or not.
        #[test]
        fn utf8_lines_agrees_with_std(
            len in 0usize..3 * BLOCK,
            newline_every in 1usize..200,
            odd in prop::collection::vec((0usize..3, -300isize..300, prop::sample::select(
                vec![&b"\xc3\xa9"[..], b"\xe9", b"\xff", b"\xe2\x82\xac", b"\xe2\x82"],
            )), 0..3),
        ) {
            let mut text: Vec<u8> = (0..len)
                .map(|i| if i % newline_every == newline_every - 1 { b'\n' } else { b'a' + (i % 26) as u8 })
                .collect();
            // Near the edges of blocks, where the two checks meet.
            for (block, offset, bytes) in odd {
                let at = (block * BLOCK).saturating_add_signed(offset).min(text.len());
                text.splice(at..at, bytes.iter().copied());
            }
            text.push(b'\n');
            prop_assert_eq!(utf8_lines(&text), utf8_lines_by_std(&text));
            // The plain and the vector (where the processor has it) ways.
            let want = text.iter().filter(|&&b| b == b'\n').count() as u64;
            prop_assert_eq!(newlines_in(&text), want);
            prop_assert_eq!(newlines_in_lanes(&text), want);
            for block in text.chunks(BLOCK) {
                prop_assert_eq!(ascii_newlines(block), ascii_newlines_lanes(block));
            }
        }
    }

    /// Text encoded in UTF-16 and UTF-32, with and without a byte-order
    /// mark, is refused at the first read, whatever the inner reader's step;
    /// UTF-8 and Latin-1 text (even short, even starting with a NUL or a
    /// UTF-8 byte-order mark) comes through unchanged.
    #[test]
    fn wide_text_is_refused_and_narrow_text_passes() {
        let text = "[Event \"caf\u{e9}\"]\n\n1. e4 e5 *\n";
        let le16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be16: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let le32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect();
        let be32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect();
        let wide = [
            ([&[0xff, 0xfe][..], &le16].concat(), "UTF-16LE"),
            ([&[0xfe, 0xff][..], &be16].concat(), "UTF-16BE"),
            (le16.clone(), "UTF-16LE"),
            (be16.clone(), "UTF-16BE"),
            ([&[0xff, 0xfe, 0, 0][..], &le32].concat(), "UTF-32LE"),
            ([&[0, 0, 0xfe, 0xff][..], &be32].concat(), "UTF-32BE"),
        ];
        for (bytes, encoding) in &wide {
            for (step, buf_len) in [(1, 100), (2, 100), (3, 100), (64, 100), (64, 1), (1, 3)] {
                let mut r = NarrowRead::new(Chunks(bytes, step));
                let err = r.read(&mut vec![0; buf_len]).unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::InvalidData);
                assert!(err.to_string().contains(encoding), "{err}");
            }
        }
        let narrow: [&[u8]; 7] = [
            text.as_bytes(),
            b"\xef\xbb\xbf[Event \"x\"]\n",
            b"caf\xe9\n",
            b"\0e4\n",
            b"[",
            b"",
            b"a\0\0\0b",
        ];
        for bytes in narrow {
            for (step, buf_len) in [(1, 1), (2, 3), (3, 2), (64, 7), (64, 1000)] {
                assert_eq!(
                    drain(NarrowRead::new(Chunks(bytes, step)), buf_len),
                    bytes,
                    "{bytes:?}"
                );
            }
        }
    }

    #[test]
    fn long_lines_and_a_last_line_without_newline() {
        let mut input = b"short\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100_000));
        input.extend_from_slice(b"\ncaf\xe9\nend \xe9");
        let mut warned = None;
        let got = drain(Latin1Read::new(&input[..], |l| warned = Some(l)), 4096);
        let mut want = b"short\n".to_vec();
        want.extend(std::iter::repeat_n(b'x', 100_000));
        want.extend_from_slice("\ncaf\u{e9}\nend \u{e9}".as_bytes());
        assert_eq!(got, want);
        assert_eq!(warned, Some(3));
    }

    /// A Latin-1 line many reads long, read in small inner pieces, comes out
    /// whole and decoded; once the lines after it are read, the memory it
    /// took is given back.
    #[test]
    fn a_long_latin1_line_is_decoded_and_its_memory_given_back() {
        let long = 10 * LONG_LINE_STEP;
        let mut input = vec![0xe9; long];
        input.extend_from_slice(b"\nnext\nlast\n");
        let mut warned = None;
        let mut r = Latin1Read::new(Chunks(&input, 5000), |l| warned = Some(l));
        let mut got = Vec::new();
        let mut buf = [0; 4096];
        while got.len() < 2 * long + "\nnext".len() {
            let n = r.read(&mut buf).unwrap();
            assert!(n > 0, "ended after {} bytes", got.len());
            got.extend_from_slice(&buf[..n]);
        }
        assert!(
            r.raw.capacity() <= 4 * LONG_LINE_STEP,
            "raw {}",
            r.raw.capacity()
        );
        assert!(
            r.ready.capacity() <= 4 * LONG_LINE_STEP,
            "ready {}",
            r.ready.capacity()
        );
        got.extend(drain(r, 4096));
        assert_eq!(got, by_lines(&input).0);
        assert_eq!(warned, Some(1));
    }

    /// Lines through a [`std::io::BufReader`] of every capacity over it,
    /// among them lines that are not UTF-8, an empty one and lines longer
    /// than the smaller buffers: the input with exactly those lines
    /// decoded, the warning naming the first of them.
    #[test]
    fn lines_through_a_buffered_reader_of_every_capacity() {
        let lines: [&[u8]; 7] = [
            b"plain ascii",
            "caf\u{e9} in utf-8".as_bytes(),
            b"",
            b"latin-1 caf\xe9",
            b"a longer line than the smallest buffers hold, twice over at least",
            b"\xff\xfe",
            b"last without newline",
        ];
        let input = lines.join(&b'\n');
        let (want, want_line) = by_lines(&input);
        assert_eq!(want_line, Some(4));
        for cap in 1..=input.len() + 1 {
            let mut warned = None;
            let mut r = io::BufReader::with_capacity(
                cap,
                Latin1Read::new(Chunks(&input, 7), |n| warned = Some(n)),
            );
            let mut out = Vec::new();
            let mut line = Vec::new();
            while r.read_until(b'\n', &mut line).unwrap() > 0 {
                out.append(&mut line);
            }
            drop(r);
            assert_eq!(out, want, "capacity {cap}");
            assert_eq!(warned, want_line, "capacity {cap}");
        }
    }
}
