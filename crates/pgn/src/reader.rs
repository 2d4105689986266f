//! The streaming PGN tokenizer and its visitor interface.
//!
//! [`Reader`] pulls bytes from any [`Read`] through one reusable buffer and
//! hands borrowed tokens to a [`Visitor`]: memory stays constant however large
//! the file (a single token, such as a comment, may grow the buffer up to
//! [`Reader::with_max_token`] bytes; longer ones are reported and skipped).
//!
//! Game boundaries: a game ends at its game-termination marker (outside any
//! variation), at a `[` that starts the next game's tags after movetext, or at
//! the end of the input. Blank lines do not end a game.

use std::io::{self, Read};

use rookery_core::SanPlus;

use crate::types::{word, GameResult, Location, Nag, RawComment, RawTag};

/// Whether the visitor wants the reader to skip something (a game's movetext
/// or a variation) without parsing it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Skip(pub bool);

/// Something malformed the reader met and stepped over.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Problem<'a> {
    /// A movetext token that is neither a move, a move number, a NAG nor a result.
    UnknownToken(&'a [u8]),
    /// A tag pair that could not be read (the line as far as it was read).
    BadTag(&'a [u8]),
    /// A `{` comment that runs to the end of the input.
    UnterminatedComment,
    /// A `{` comment not closed before a line that starts the next game
    /// (`[Event `, or a tag pair after a blank line): the comment ends
    /// before that line, which is read as the next game.
    UnclosedComment {
        /// The line where reading resumed.
        resumed_at: u64,
    },
    /// A `)` with no variation open.
    UnmatchedClose,
    /// Variations still open when the game ended (how many).
    UnclosedVariations(usize),
    /// A game-termination marker inside a variation (ignored).
    ResultInVariation(GameResult),
    /// A token (usually a comment) longer than the reader's limit; skipped.
    TokenTooLong,
    /// A NUL byte where a tag or a move was expected (outside comments):
    /// the input is binary data, not text. No text encoding a PGN reader
    /// reads (ASCII, UTF-8, Latin-1) puts one in text, and every common
    /// binary format has them within its first bytes (the test git and
    /// grep use to call a file binary); other control characters (a DOS
    /// end-of-file mark, an escape sequence) are unknown tokens like any
    /// other. The reader skips to the next line that starts a game (as
    /// after [`Problem::UnclosedComment`]), or to the end of the input.
    NotText {
        /// The line where reading resumed, if a game start was found.
        resumed_at: Option<u64>,
    },
}

/// Receives a game's tokens from [`Reader::read_game`].
///
/// Every method but [`Visitor::end_game`] has a default that ignores the token.
/// Tokens are borrowed from the reader's buffer: copy what you keep.
pub trait Visitor {
    /// What a game turns into.
    type Output;

    /// A game starts at `at`.
    fn begin_game(&mut self, at: Location) {
        let _ = at;
    }
    /// A tag pair (value escapes unresolved; see [`RawTag::decode`]).
    fn tag(&mut self, name: &[u8], value: RawTag<'_>) {
        let _ = (name, value);
    }
    /// A tag pair with where its `[` stands; the reader calls this, and by
    /// default it hands the pair to [`Visitor::tag`].
    fn tag_at(&mut self, name: &[u8], value: RawTag<'_>, at: Location) {
        let _ = at;
        self.tag(name, value);
    }
    /// The tag section is over; return `Skip(true)` to skip the movetext.
    fn end_tags(&mut self) -> Skip {
        Skip(false)
    }
    /// A move in SAN (`token` is the text as written, suffixes included).
    fn san(&mut self, san: SanPlus, token: &[u8], at: Location) {
        let _ = (san, token, at);
    }
    /// A move in a spelling that neither standard SAN nor python-chess
    /// reads (`Pe4`, `o-o`, `e4:d5`, `e8(Q)`: see
    /// [`SanPlus::from_ascii_strict`]), read leniently
    /// ([`rookery_core::Leniency::Spelling`]); by default handed to
    /// [`Visitor::san`].
    fn san_nonstandard(&mut self, san: SanPlus, token: &[u8], at: Location) {
        self.san(san, token, at);
    }
    /// A NAG, `$n` or a `!`/`?` suffix.
    fn nag(&mut self, nag: Nag) {
        let _ = nag;
    }
    /// A NAG with where its token stands; the reader calls this, and by
    /// default it hands the NAG to [`Visitor::nag`].
    fn nag_at(&mut self, nag: Nag, at: Location) {
        let _ = at;
        self.nag(nag);
    }
    /// A `{...}` or `;` comment (also one standing before the tags).
    fn comment(&mut self, comment: RawComment<'_>) {
        let _ = comment;
    }
    /// `(`: return `Skip(true)` to skip the variation.
    fn begin_variation(&mut self) -> Skip {
        Skip(false)
    }
    /// `(` with where it stands; the reader calls this, and by default it
    /// asks [`Visitor::begin_variation`].
    fn begin_variation_at(&mut self, at: Location) -> Skip {
        let _ = at;
        self.begin_variation()
    }
    /// `)` closing a variation that was not skipped.
    fn end_variation(&mut self) {}
    /// The game-termination marker (reported even when the movetext is skipped).
    fn result(&mut self, result: GameResult, at: Location) {
        let _ = (result, at);
    }
    /// Something malformed that was stepped over.
    fn problem(&mut self, problem: Problem<'_>, at: Location) {
        let _ = (problem, at);
    }
    /// The game is over.
    fn end_game(&mut self) -> Self::Output;
}

const DEFAULT_CAPACITY: usize = 1 << 16;
const DEFAULT_MAX_TOKEN: usize = 1 << 24;

/// A table of the bytes in `set`.
const fn byte_set(set: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < set.len() {
        t[set[i] as usize] = true;
        i += 1;
    }
    t
}

/// Bytes that end a symbol token (NUL too: it is never part of one, see
/// [`Problem::NotText`]).
static DELIMITER: [bool; 256] = byte_set(b" \t\r\n\x0b\x0c{}()[];\"$<>\0");

/// Whitespace, and `%` (which starts an escape line after a newline).
static SPACE_OR_ESCAPE: [bool; 256] = byte_set(b" \t\r\n\x0b\x0c%");

#[inline(always)]
fn is_delimiter(b: u8) -> bool {
    DELIMITER[b as usize]
}

/// A streaming PGN reader over any [`Read`].
#[derive(Debug)]
pub struct Reader<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Stream offset of `buf[0]`.
    base: u64,
    line: u64,
    line_start: u64,
    bom_checked: bool,
    max_token: usize,
    /// Where the last game stopped (see [`EndState`]).
    end_state: EndState,
    /// A comment or reserved token ran into the end of the input.
    unterminated: bool,
    /// `Some(len)`: the whole input is `buf[..len]` ([`Reader::from_bytes`]),
    /// of which `buf[pos..end]` is in view (at most the token limit).
    held: Option<usize>,
    comment_end: CommentEnd,
}

/// Finds the first `}` or newline: where a comment on one line ends.
/// `memchr::memchr2` picks its vector code on every call, a cost that a
/// search the length of a comment feels; this picks it once.
#[derive(Clone, Copy, Debug)]
struct CommentEnd {
    #[cfg(target_arch = "x86_64")]
    avx2: Option<memchr::arch::x86_64::avx2::memchr::Two>,
}

impl CommentEnd {
    fn new() -> CommentEnd {
        CommentEnd {
            #[cfg(target_arch = "x86_64")]
            avx2: memchr::arch::x86_64::avx2::memchr::Two::new(b'}', b'\n'),
        }
    }

    #[inline]
    fn find(&self, haystack: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(two) = &self.avx2 {
            return two.find(haystack);
        }
        memchr::memchr2(b'}', b'\n', haystack)
    }
}

enum End {
    Result,
    NextGame,
    Eof,
}

/// Where a reader stood when its input ran out: what [`crate::split`] needs
/// to know to trust a chunk boundary.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EndState {
    /// Between games: the last game ended with its termination marker (or
    /// there was no game). Any continuation starts a new game.
    BetweenGames,
    /// In a game's movetext, outside any comment: a continuation starting
    /// with `[` starts a new game, anything else would continue this one.
    Movetext,
    /// Inside a comment or reserved token, or in a game's tag section: a
    /// continuation belongs to the current game.
    Open,
}

impl Reader<io::Empty> {
    /// A reader of input held whole in memory that continues a stream at
    /// `at`, as [`Reader::starting_at`]: it reads `bytes` in place, with no
    /// buffer of its own, and finds exactly what a reader of the same bytes
    /// from a stream finds (a token longer than the limit included).
    /// [`Reader::into_bytes`] gives the bytes back.
    pub fn from_bytes(bytes: Vec<u8>, at: Location) -> Reader<io::Empty> {
        let len = bytes.len();
        let mut r = Reader::with_buffer(io::empty(), bytes).continuing(at);
        r.held = Some(len);
        r
    }

    /// The bytes given to [`Reader::from_bytes`], for their allocation to
    /// be reused.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

impl<R: Read> Reader<R> {
    /// A reader with a 64 KiB buffer and a 16 MiB limit on one token.
    pub fn new(inner: R) -> Reader<R> {
        Reader::with_buffer(inner, vec![0; DEFAULT_CAPACITY])
    }

    fn with_buffer(inner: R, buf: Vec<u8>) -> Reader<R> {
        Reader {
            inner,
            buf,
            pos: 0,
            end: 0,
            eof: false,
            base: 0,
            line: 1,
            line_start: 0,
            bom_checked: false,
            max_token: DEFAULT_MAX_TOKEN,
            end_state: EndState::BetweenGames,
            unterminated: false,
            held: None,
            comment_end: CommentEnd::new(),
        }
    }

    /// A reader for input that continues a stream at `at` (a chunk cut at a
    /// game boundary): locations count from there, and a byte-order mark is
    /// only looked for at offset 0.
    pub fn starting_at(inner: R, at: Location) -> Reader<R> {
        Reader::new(inner).continuing(at)
    }

    /// Counts locations from `at`, where the input continues a stream.
    fn continuing(mut self, at: Location) -> Reader<R> {
        self.base = at.offset;
        self.line = at.line;
        self.line_start = at.offset.saturating_sub(at.col.saturating_sub(1));
        self.bom_checked = at.offset > 0;
        self
    }

    /// Sets the longest token (comment, tag, symbol) kept whole, at least 1 KiB.
    #[must_use]
    pub fn with_max_token(mut self, max: usize) -> Reader<R> {
        self.max_token = max.max(1024);
        if self.held.is_none() && self.buf.len() > self.max_token && self.end == 0 {
            self.buf = vec![0; self.max_token];
        }
        self
    }

    /// The input of a reader made by [`Reader::from_bytes`], whole, and the
    /// stream offset of its first byte (a game's bytes are found by the
    /// offsets of its locations); `None` for a reader of a stream.
    pub fn held_bytes(&self) -> Option<(&[u8], u64)> {
        self.held.map(|len| (&self.buf[..len], self.base))
    }

    /// Where the reader stands now (the start of the next game, between games).
    pub fn location(&self) -> Location {
        let offset = self.base + self.pos as u64;
        Location {
            offset,
            line: self.line,
            col: offset - self.line_start + 1,
        }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Where the reader stands in the PGN grammar; meaningful once
    /// [`Reader::read_game`] has returned `None` (the input ran out).
    pub fn end_state(&self) -> EndState {
        if self.unterminated {
            EndState::Open
        } else {
            self.end_state
        }
    }

    /// Moves the unread bytes to the front and reads more. Returns whether any
    /// byte was added. Grows the buffer (up to the token limit) when it is full.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if let Some(len) = self.held {
            // The view grows as a buffer compacted to `pos` would: up to
            // the token limit. Like a stream, it only finds the end when
            // there is room to read into, so that a token too long is too
            // long here too, at the end of the input as well.
            let end = len.min(self.pos.saturating_add(self.max_token));
            if end > self.end {
                self.end = end;
                return Ok(true);
            }
            self.eof = end - self.pos < self.max_token;
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            if self.buf.len() >= self.max_token {
                return Ok(false);
            }
            let n = (self.buf.len() * 2).min(self.max_token);
            self.buf.resize(n, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    #[inline]
    fn peek(&mut self) -> io::Result<Option<u8>> {
        if self.pos < self.end {
            return Ok(Some(self.buf[self.pos]));
        }
        self.fill()?;
        Ok(self.buf[..self.end].get(self.pos).copied())
    }

    #[inline]
    fn newline_at(&mut self, i: usize) {
        self.line += 1;
        self.line_start = self.base + i as u64 + 1;
    }

    /// Counts the newlines in `buf[from..to]`.
    fn count_newlines(&mut self, from: usize, to: usize) {
        let hay = &self.buf[from..to];
        if let Some(last) = memchr::memrchr(b'\n', hay) {
            // A plain counting loop: the compiler vectorises it.
            self.line += hay.iter().filter(|&&b| b == b'\n').count() as u64;
            self.line_start = self.base + (from + last) as u64 + 1;
        }
    }

    /// Length from `pos` to the end of the line (or input); `None` if longer
    /// than the token limit.
    fn scan_line(&mut self) -> io::Result<Option<usize>> {
        let mut i = 0;
        loop {
            if let Some(j) = memchr::memchr(b'\n', &self.buf[self.pos + i..self.end]) {
                return Ok(Some(i + j));
            }
            i = self.end - self.pos;
            if !self.fill()? {
                return Ok(self.eof.then_some(i));
            }
        }
    }

    /// Skips whitespace and `%` escape lines.
    #[inline(always)]
    fn skip_ws(&mut self) -> io::Result<()> {
        // The common cases: one space or one newline, then the next token.
        if self.pos + 1 < self.end && !SPACE_OR_ESCAPE[usize::from(self.buf[self.pos + 1])] {
            match self.buf[self.pos] {
                b' ' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\n' => {
                    self.newline_at(self.pos);
                    self.pos += 1;
                    return Ok(());
                }
                _ => {}
            }
        }
        self.skip_ws_slow()
    }

    #[inline(never)]
    fn skip_ws_slow(&mut self) -> io::Result<()> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                match b {
                    b'\n' => {
                        self.newline_at(self.pos);
                        self.pos += 1;
                    }
                    b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                    b'%' if self.base + self.pos as u64 == self.line_start => {
                        self.skip_line()?;
                    }
                    _ => return Ok(()),
                }
            }
            if !self.fill()? {
                return Ok(());
            }
        }
    }

    /// Skips to the end of the line (the newline is left).
    fn skip_line(&mut self) -> io::Result<()> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.pos..self.end]) {
                self.pos += i;
                return Ok(());
            }
            self.pos = self.end;
            if !self.fill()? {
                return Ok(());
            }
        }
    }

    /// Length of the run of bytes from `pos` (plus `skip`) that satisfy `pred`,
    /// refilling as needed. `None` if it exceeds the token limit.
    #[inline]
    fn scan(&mut self, skip: usize, pred: impl Fn(u8) -> bool) -> io::Result<Option<usize>> {
        let mut i = skip;
        loop {
            if let Some(rest) = self.buf[..self.end].get(self.pos + i..) {
                if let Some(j) = rest.iter().position(|&b| !pred(b)) {
                    return Ok(Some(i + j));
                }
                i += rest.len();
            }
            if !self.fill()? {
                if self.pos + i < self.end || self.eof {
                    return Ok(Some(i));
                }
                return Ok(None);
            }
        }
    }

    /// Finds `close` from `pos + skip`, counting newlines. Returns the length up
    /// to (not including) `close`, whether it was found, or `None` if too long.
    fn find_close(&mut self, skip: usize, close: u8) -> io::Result<Option<(usize, bool)>> {
        self.find_close_or_game(skip, close, false)
            .map(|r| r.map(|(len, found, _)| (len, found)))
    }

    /// [`Reader::find_close`]; with `recover`, also stops before a line that
    /// starts the next game (`[Event `, or a tag pair after a blank line),
    /// returning `(length up to that line, false, true)`.
    fn find_close_or_game(
        &mut self,
        skip: usize,
        close: u8,
        recover: bool,
    ) -> io::Result<Option<(usize, bool, bool)>> {
        let mut i = skip;
        // Where the current line starts (relative to `pos`).
        let mut line_start = skip;
        loop {
            // One pass finds both the closing byte and the newlines before it.
            while let Some(j) = memchr::memchr2(close, b'\n', &self.buf[self.pos + i..self.end]) {
                if self.buf[self.pos + i + j] == close {
                    return Ok(Some((i + j, true, false)));
                }
                let at = self.pos + i + j;
                let blank = self.buf[self.pos + line_start..at]
                    .iter()
                    .all(u8::is_ascii_whitespace);
                self.newline_at(at);
                i += j + 1;
                line_start = i;
                if recover && self.starts_game(i, blank)? {
                    return Ok(Some((i, false, true)));
                }
            }
            i = self.end - self.pos;
            if !self.fill()? {
                if self.eof {
                    self.unterminated = true;
                    return Ok(Some((i, false, false)));
                }
                // Too long: drop what was scanned (its newlines are counted).
                self.pos += i;
                return Ok(None);
            }
        }
    }

    /// Whether the line at `pos + i` starts a game: `[Event `, or (after a
    /// blank line) a tag pair `[Name "`. Reads ahead as needed.
    fn starts_game(&mut self, i: usize, after_blank: bool) -> io::Result<bool> {
        const LOOK: usize = 40;
        while self.end - (self.pos + i) < LOOK && !self.eof {
            if !self.fill()? {
                break;
            }
        }
        let rest = &self.buf[self.pos + i..self.end];
        if rest.starts_with(b"[Event ") {
            return Ok(true);
        }
        if !after_blank || rest.first() != Some(&b'[') {
            return Ok(false);
        }
        let name_len = rest[1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let after = &rest[1 + name_len..];
        let spaces = after.iter().take_while(|b| **b == b' ').count();
        Ok(name_len > 0 && spaces > 0 && after.get(spaces) == Some(&b'"'))
    }

    /// Skips the rest of an over-long token of bytes other than `close`
    /// (consuming `close` too, if found).
    fn drain_until(&mut self, close: u8) -> io::Result<()> {
        loop {
            let hay = &self.buf[self.pos..self.end];
            let found = memchr::memchr(close, hay);
            let upto = found.unwrap_or(hay.len());
            self.count_newlines(self.pos, self.pos + upto);
            self.pos += upto;
            if found.is_some() {
                self.pos += 1;
                return Ok(());
            }
            if !self.fill()? && self.pos >= self.end {
                self.unterminated = true;
                return Ok(());
            }
        }
    }

    fn check_bom(&mut self) -> io::Result<()> {
        if self.bom_checked {
            return Ok(());
        }
        self.bom_checked = true;
        while self.end - self.pos < 3 && self.fill()? {}
        if self.buf[self.pos..self.end].starts_with(b"\xef\xbb\xbf") {
            self.pos += 3;
            // The line still starts at the BOM's end for escape purposes.
            self.line_start = self.base + self.pos as u64;
        }
        Ok(())
    }

    /// Reads a `{` comment (the `{` at `pos`) and hands it to the visitor.
    #[inline]
    fn brace_comment<V: Visitor>(&mut self, v: &mut V, deliver: bool) -> io::Result<()> {
        // The common case: the comment closes on its own line, in the buffer.
        let body = &self.buf[self.pos + 1..self.end];
        if let Some(len) = self.comment_end.find(body) {
            if body[len] == b'}' {
                if deliver {
                    v.comment(RawComment(&body[..len]));
                }
                self.pos += len + 2;
                return Ok(());
            }
        }
        self.brace_comment_lines(v, deliver)
    }

    /// [`Reader::brace_comment`] over several lines, or past the buffer.
    #[inline(never)]
    fn brace_comment_lines<V: Visitor>(&mut self, v: &mut V, deliver: bool) -> io::Result<()> {
        let at = self.location();
        match self.find_close_or_game(1, b'}', true)? {
            Some((len, found, next_game)) => {
                if deliver {
                    v.comment(RawComment(&self.buf[self.pos + 1..self.pos + len]));
                }
                if next_game {
                    let resumed_at = self.line;
                    v.problem(Problem::UnclosedComment { resumed_at }, at);
                } else if !found {
                    v.problem(Problem::UnterminatedComment, at);
                }
                self.pos += len + usize::from(found);
            }
            None => {
                v.problem(Problem::TokenTooLong, at);
                self.drain_until(b'}')?;
            }
        }
        Ok(())
    }

    /// Reads a `;` comment to the end of the line.
    fn line_comment<V: Visitor>(&mut self, v: &mut V, deliver: bool) -> io::Result<()> {
        let at = self.location();
        match self.scan_line()? {
            Some(len) => {
                if deliver {
                    let mut text = &self.buf[self.pos + 1..self.pos + len];
                    if let [rest @ .., b'\r'] = text {
                        text = rest;
                    }
                    v.comment(RawComment(text));
                }
                self.pos += len;
            }
            None => {
                v.problem(Problem::TokenTooLong, at);
                self.skip_line()?;
            }
        }
        Ok(())
    }

    /// Skips a reserved `<...>` token.
    fn reserved(&mut self) -> io::Result<()> {
        match self.find_close(1, b'>')? {
            Some((len, found)) => self.pos += len + usize::from(found),
            None => self.drain_until(b'>')?,
        }
        Ok(())
    }

    /// Reads a tag pair; `pos` is at `[`.
    fn tag<V: Visitor>(&mut self, v: &mut V) -> io::Result<()> {
        let at = self.location();
        // The whole tag normally sits on one line: find its end first so the
        // tag is contiguous in the buffer.
        let Some(line_len) = self.scan_line()? else {
            v.problem(Problem::TokenTooLong, at);
            return self.skip_line();
        };
        let line = &self.buf[self.pos..self.pos + line_len];
        match parse_tag(line) {
            Some((name, value, used)) => {
                v.tag_at(name, RawTag(value), at);
                self.pos += used;
            }
            None => {
                // Skip to the closing bracket on this line, or the whole line.
                let used = memchr::memchr(b']', line).map_or(line.len(), |i| i + 1);
                v.problem(Problem::BadTag(&line[..used]), at);
                self.pos += used;
            }
        }
        Ok(())
    }

    /// Reads the next game, calling `visitor` for its tokens.
    /// Returns `None` at the end of the input.
    ///
    /// # Errors
    /// Only I/O errors of the underlying reader; malformed input is reported
    /// to the visitor ([`Visitor::problem`]) and stepped over.
    pub fn read_game<V: Visitor>(&mut self, visitor: &mut V) -> io::Result<Option<V::Output>> {
        self.check_bom()?;
        self.skip_ws()?;
        if self.peek()?.is_none() {
            return Ok(None);
        }
        visitor.begin_game(self.location());
        // Tag section (comments and reserved tokens may stand among the tags).
        loop {
            self.skip_ws()?;
            match self.peek()? {
                Some(b'[') => self.tag(visitor)?,
                Some(b'{') => self.brace_comment(visitor, true)?,
                Some(b';') => self.line_comment(visitor, true)?,
                Some(b'<') => self.reserved()?,
                _ => break,
            }
        }
        let skip = visitor.end_tags().0;
        let end = self.movetext(visitor, skip)?;
        if let End::Result = end {
            self.end_state = EndState::BetweenGames;
            // A comment on the same line after the result still belongs to this game.
            if let Some(n) = self.scan(0, |b| b == b' ' || b == b'\t')? {
                self.pos += n;
            }
            if self.peek()? == Some(b'{') {
                self.brace_comment(visitor, !skip)?;
            }
        }
        Ok(Some(visitor.end_game()))
    }

    /// Skips the next game. Returns `false` at the end of the input.
    ///
    /// # Errors
    /// Only I/O errors of the underlying reader.
    pub fn skip_game(&mut self) -> io::Result<bool> {
        struct Skipper;
        impl Visitor for Skipper {
            type Output = ();
            fn end_tags(&mut self) -> Skip {
                Skip(true)
            }
            fn end_game(&mut self) {}
        }
        Ok(self.read_game(&mut Skipper)?.is_some())
    }

    fn movetext<V: Visitor>(&mut self, v: &mut V, skip_all: bool) -> io::Result<End> {
        let mut depth = 0usize;
        let start = self.offset();
        // Depth at which a skipped variation started.
        let mut skip_from: Option<usize> = None;
        loop {
            self.skip_ws()?;
            let Some(b) = self.peek()? else {
                // Nothing after the tags yet: more tags could follow.
                self.end_state = if self.offset() == start {
                    EndState::Open
                } else {
                    EndState::Movetext
                };
                if depth > 0 {
                    v.problem(Problem::UnclosedVariations(depth), self.location());
                    self.close_variations(v, depth, skip_all, &mut skip_from);
                }
                return Ok(End::Eof);
            };
            let quiet = skip_all || skip_from.is_some();
            match b {
                b'{' => self.brace_comment(v, !quiet)?,
                b';' => self.line_comment(v, !quiet)?,
                b'(' => {
                    let at = self.location();
                    self.pos += 1;
                    depth += 1;
                    if !quiet && v.begin_variation_at(at).0 {
                        skip_from = Some(depth);
                    }
                }
                b')' => {
                    if depth == 0 {
                        v.problem(Problem::UnmatchedClose, self.location());
                    } else {
                        if skip_from == Some(depth) {
                            skip_from = None;
                        } else if !quiet {
                            v.end_variation();
                        }
                        depth -= 1;
                    }
                    self.pos += 1;
                }
                b'[' => {
                    if depth > 0 {
                        v.problem(Problem::UnclosedVariations(depth), self.location());
                        self.close_variations(v, depth, skip_all, &mut skip_from);
                    }
                    return Ok(End::NextGame);
                }
                b'<' => self.reserved()?,
                0 => {
                    let at = self.location();
                    let resumed_at = self.skip_binary()?;
                    v.problem(Problem::NotText { resumed_at }, at);
                    if depth > 0 {
                        self.close_variations(v, depth, skip_all, &mut skip_from);
                    }
                    if resumed_at.is_some() {
                        return Ok(End::NextGame);
                    }
                    // What follows a piece of a stream that ends here
                    // belongs to this game (see `crate::split`).
                    self.end_state = EndState::Open;
                    return Ok(End::Eof);
                }
                b'}' | b']' | b'"' | b'>' => {
                    let at = self.location();
                    if !quiet {
                        v.problem(Problem::UnknownToken(&self.buf[self.pos..self.pos + 1]), at);
                    }
                    self.pos += 1;
                }
                b'$' => {
                    let at = self.location();
                    let Some(len) = self.scan(1, |b| !is_delimiter(b))? else {
                        v.problem(Problem::TokenTooLong, at);
                        self.skip_symbol()?;
                        continue;
                    };
                    if !quiet {
                        let tok = &self.buf[self.pos..self.pos + len];
                        match Nag::from_ascii(tok) {
                            Some(nag) => v.nag_at(nag, at),
                            None => v.problem(Problem::UnknownToken(tok), at),
                        }
                    }
                    self.pos += len;
                }
                _ => {
                    let at = self.location();
                    let Some(len) = self.scan(0, |b| !is_delimiter(b))? else {
                        v.problem(Problem::TokenTooLong, at);
                        self.skip_symbol()?;
                        continue;
                    };
                    let tok = &self.buf[self.pos..self.pos + len];
                    self.pos += len;
                    let maybe_result = matches!(tok.first(), Some(b'1' | b'0' | b'*' | 0xc2));
                    if let Some(result) =
                        maybe_result.then(|| GameResult::from_ascii(tok)).flatten()
                    {
                        if depth == 0 {
                            v.result(result, at);
                            return Ok(End::Result);
                        }
                        if !quiet {
                            v.problem(Problem::ResultInVariation(result), at);
                        }
                        continue;
                    }
                    if !quiet {
                        symbol(v, tok, at);
                    }
                }
            }
        }
    }

    fn close_variations<V: Visitor>(
        &mut self,
        v: &mut V,
        mut depth: usize,
        skip_all: bool,
        skip_from: &mut Option<usize>,
    ) {
        while depth > 0 {
            if *skip_from == Some(depth) {
                *skip_from = None;
            } else if !skip_all && skip_from.is_none() {
                v.end_variation();
            }
            depth -= 1;
        }
    }

    /// Skips binary data (from a NUL byte at `pos`) to the start of the
    /// next line that starts a game ([`Reader::starts_game`]), returning
    /// its number, or to the end of the input (`None`). The buffer does not
    /// grow: what is skipped is dropped as it is read.
    #[cold]
    fn skip_binary(&mut self) -> io::Result<Option<u64>> {
        // Whether the line read so far is blank (the NUL's line is not).
        let mut blank = false;
        loop {
            let rest = &self.buf[self.pos..self.end];
            let Some(j) = memchr::memchr(b'\n', rest) else {
                blank &= rest.iter().all(u8::is_ascii_whitespace);
                self.pos = self.end;
                if !self.fill()? {
                    return Ok(None);
                }
                continue;
            };
            let line_blank = blank && rest[..j].iter().all(u8::is_ascii_whitespace);
            self.newline_at(self.pos + j);
            self.pos += j + 1;
            if self.starts_game(0, line_blank)? {
                return Ok(Some(self.line));
            }
            blank = true;
        }
    }

    fn skip_symbol(&mut self) -> io::Result<()> {
        loop {
            while self.pos < self.end {
                if is_delimiter(self.buf[self.pos]) {
                    return Ok(());
                }
                self.pos += 1;
            }
            if !self.fill()? {
                return Ok(());
            }
        }
    }
}

/// Handles a symbol token in movetext: move numbers, SAN with glyph suffixes,
/// bare glyphs, and several of these glued together (`d5!!2.c4`).
#[inline]
fn symbol<V: Visitor>(v: &mut V, tok: &[u8], at: Location) {
    let mut t = tok;
    // The common case: a move alone, in its standard spelling (a move
    // number goes below).
    if !t.first().is_some_and(u8::is_ascii_digit) {
        if let Some(san) = SanPlus::from_ascii_standard(t) {
            v.san(san, t, at);
            return;
        }
    }
    while !t.is_empty() {
        // Move number indications: "12." "12..." "12.e4" "...", and a bare number.
        let digits = t.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 && (digits == t.len() || t[digits] == b'.') {
            t = &t[digits..];
        }
        let dots = t.iter().take_while(|&&b| b == b'.').count();
        t = &t[dots..];
        if t.is_empty() {
            return;
        }
        // The move, then its annotation glyphs; whatever follows is another token.
        let san_len = t.iter().take_while(|&&b| b != b'!' && b != b'?').count();
        let glyph_len = t[san_len..]
            .iter()
            .take_while(|&&b| b == b'!' || b == b'?')
            .count();
        let (san_text, rest) = t.split_at(san_len);
        let (glyph, rest) = rest.split_at(glyph_len);
        if !san_text.is_empty() {
            match SanPlus::from_ascii(san_text) {
                Ok(san) if SanPlus::from_ascii_strict(san_text).is_err() => {
                    v.san_nonstandard(san, &t[..san_len + glyph_len], at);
                }
                Ok(san) => v.san(san, &t[..san_len + glyph_len], at),
                Err(_) => {
                    v.problem(Problem::UnknownToken(tok), at);
                    return;
                }
            }
        }
        if !glyph.is_empty() {
            match Nag::from_ascii(glyph) {
                Some(nag) => v.nag_at(nag, at),
                None => v.problem(Problem::UnknownToken(glyph), at),
            }
        }
        t = rest;
    }
}

/// Bytes of a tag name.
static TAG_NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'+' | b'#' | b'=' | b':' | b'-');
        b += 1;
    }
    t
};

/// Where the first `"` or `\\` of `bytes` is, eight bytes at a time
/// ([`word`]).
#[inline]
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let w = u64::from_le_bytes(*word);
        let hits = word::matches(w, word::splat(b'"')) | word::matches(w, word::splat(b'\\'));
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = bytes.get(at..).unwrap_or_default();
    tail.iter()
        .position(|&b| b == b'"' || b == b'\\')
        .map(|j| at + j)
}

/// Parses `[Name "value"]` at the start of `line`; returns name, raw value and
/// the bytes used (through `]`).
pub(crate) fn parse_tag(line: &[u8]) -> Option<(&[u8], &[u8], usize)> {
    let mut i = 1;
    let skip_sp = |i: &mut usize| {
        while *i < line.len() && matches!(line[*i], b' ' | b'\t') {
            *i += 1;
        }
    };
    skip_sp(&mut i);
    let name_start = i;
    while i < line.len() && TAG_NAME[line[i] as usize] {
        i += 1;
    }
    let name = &line[name_start..i];
    if name.is_empty() {
        return None;
    }
    skip_sp(&mut i);
    if line.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    let value_start = i;
    // To the first `"` not escaped by a `\\` (which escapes the byte after it).
    loop {
        let j = quote_or_backslash(line.get(i..).unwrap_or_default())?;
        i += j;
        if line[i] == b'"' {
            break;
        }
        i += 2;
    }
    let mut value_end = i;
    i += 1;
    skip_sp(&mut i);
    if line.get(i) != Some(&b']') {
        // Lenient: an unescaped quote inside the value ("a "b" c"): take the
        // last `"` followed by `]` on the line.
        let close = line
            .windows(2)
            .rposition(|w| w == b"\"]")
            .filter(|&p| p >= value_end)?;
        value_end = close;
        i = close + 1;
    }
    Some((name, &line[value_start..value_end], i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records every callback as text.
    #[derive(Default)]
    struct Trace(Vec<String>);

    impl Visitor for Trace {
        type Output = Vec<String>;
        fn tag(&mut self, name: &[u8], value: RawTag<'_>) {
            self.0.push(format!(
                "[{}={}]",
                String::from_utf8_lossy(name),
                value.decode()
            ));
        }
        fn end_tags(&mut self) -> Skip {
            self.0.push("|".into());
            Skip(false)
        }
        fn san(&mut self, san: SanPlus, _token: &[u8], _at: Location) {
            self.0.push(san.to_string());
        }
        fn nag(&mut self, nag: Nag) {
            self.0.push(nag.to_string());
        }
        fn comment(&mut self, c: RawComment<'_>) {
            self.0.push(format!("{{{}}}", c.decode()));
        }
        fn begin_variation(&mut self) -> Skip {
            self.0.push("(".into());
            Skip(false)
        }
        fn end_variation(&mut self) {
            self.0.push(")".into());
        }
        fn result(&mut self, r: GameResult, _at: Location) {
            self.0.push(r.to_string());
        }
        fn problem(&mut self, p: Problem<'_>, at: Location) {
            self.0.push(format!("!{p:?}@{at}"));
        }
        fn end_game(&mut self) -> Vec<String> {
            std::mem::take(&mut self.0)
        }
    }

    fn games(input: &[u8]) -> Vec<String> {
        let mut r = Reader::new(input).with_max_token(1024);
        let mut out = Vec::new();
        let mut t = Trace::default();
        while let Some(g) = r.read_game(&mut t).unwrap() {
            out.push(g.join(" "));
        }
        out
    }

    /// Reads byte by byte, to exercise every refill path.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() || buf.is_empty() {
                return Ok(0);
            }
            buf[0] = self.0[0];
            self.0 = &self.0[1..];
            Ok(1)
        }
    }

    #[test]
    fn tokens_of_a_game() {
        let pgn = b"\xef\xbb\xbf[Event \"A \\\"B\\\"\"]\r\n[Site \"?\"]\r\n\r\n1. e4 {hi} e5?! 2.Nf3 $14 (2. f4!! exf4 ; line\n) 2... Nc6 1-0\n";
        assert_eq!(
            games(pgn),
            vec!["[Event=A \"B\"] [Site=?] | e4 {hi} e5 $6 Nf3 $14 ( f4 $3 exf4 { line} ) Nc6 1-0"]
        );
    }

    #[test]
    fn game_boundaries() {
        // Result then next tags; a game without result followed by tags; a tagless game.
        let pgn = b"[A \"1\"]\n1. e4 *\n[B \"2\"]\n1. d4\n[C \"3\"]\n\n1. c4 1/2-1/2\n1. g3 0-1 {after}\n";
        assert_eq!(
            games(pgn),
            vec![
                "[A=1] | e4 *",
                "[B=2] | d4",
                "[C=3] | c4 1/2-1/2",
                "| g3 0-1 {after}"
            ]
        );
        assert!(games(b"").is_empty());
        assert!(games(b"  \n\r\n% escape\n").is_empty());
        assert_eq!(games(b"[A \"1\"]"), vec!["[A=1] |"]);
    }

    #[test]
    fn escapes_and_oddities() {
        let pgn = b"%escape line e4\n1. e4 <reserved> e5 ) 2. Nf3 xyz 2... % 1-0";
        assert_eq!(
            games(pgn),
            vec![
                "| e4 e5 !UnmatchedClose@2:21 Nf3 !UnknownToken([120, 121, 122])@2:30 \
                 !UnknownToken([37])@2:39 1-0"
            ]
        );
    }

    #[test]
    fn unterminated_and_long_comments() {
        let g = games(b"1. e4 {never closed");
        assert_eq!(g, vec!["| e4 {never closed} !UnterminatedComment@1:7"]);
        let mut long = b"1. e4 {".to_vec();
        long.extend(std::iter::repeat_n(b'x', 5000));
        long.extend_from_slice(b"} e5 *");
        let g = games(&long);
        assert_eq!(g, vec!["| e4 !TokenTooLong@1:7 e5 *"]);
    }

    #[test]
    fn trickle_reads_the_same() {
        let pgn: &[u8] = b"[Event \"x\"]\n\n1. e4 {a\nb} (1. d4 $1 ; c\n) 1... c5 2. Nf3 d6 *\n\n[Event \"y\"]\n1. e4 1-0";
        let mut r = Reader::new(Trickle(pgn)).with_max_token(1024);
        let mut t = Trace::default();
        let mut out = Vec::new();
        while let Some(g) = r.read_game(&mut t).unwrap() {
            out.push(g.join(" "));
        }
        assert_eq!(out, games(pgn));
        assert_eq!(out.len(), 2);
    }

    /// Every game of `input` read by a reader of it held in memory, with
    /// where the reader ends: the trace, its end state and its location.
    fn held_games(input: &[u8], at: Location) -> (Vec<String>, EndState, Location) {
        let mut r = Reader::from_bytes(input.to_vec(), at).with_max_token(1024);
        let mut t = Trace::default();
        let mut out = Vec::new();
        while let Some(g) = r.read_game(&mut t).unwrap() {
            out.push(g.join(" "));
        }
        let (end, loc) = (r.end_state(), r.location());
        assert_eq!(r.into_bytes(), input, "the bytes come back as they were");
        (out, end, loc)
    }

    /// The same, streaming, one byte a read.
    fn trickled_games(input: &[u8], at: Location) -> (Vec<String>, EndState, Location) {
        let mut r = Reader::starting_at(Trickle(input), at).with_max_token(1024);
        let mut t = Trace::default();
        let mut out = Vec::new();
        while let Some(g) = r.read_game(&mut t).unwrap() {
            out.push(g.join(" "));
        }
        (out, r.end_state(), r.location())
    }

    #[test]
    fn held_bytes_read_as_a_stream_does() {
        let mut texts: Vec<Vec<u8>> = vec![
            b"[Event \"x\"]\n\n1. e4 {a\nb} (1. d4 $1 ; c\n) 1... c5 2. Nf3 d6 *\n\n[Event \"y\"]\n1. e4 1-0".to_vec(),
            b"1. e4 {never closed".to_vec(),
            b"\xef\xbb\xbf[A \"1\"]\n1. e4 *".to_vec(),
            b"%escape line e4\n1. e4 <reserved> e5 ) 2. Nf3 xyz 2... % 1-0".to_vec(),
            b"1. e4 e5 2. Nf3".to_vec(),
            b"[A \"unterminated".to_vec(),
            Vec::new(),
        ];
        // Tokens just under, at and over the limit (1024 bytes), of every
        // kind that has one, alone and followed by more games.
        for len in [1020, 1021, 1022, 1023, 1024, 1025, 1030, 5000] {
            let x = "x".repeat(len);
            for text in [
                format!("1. e4 {{{x}}} e5 *\n[B \"2\"]\n1. d4 *"),
                format!("[A \"{x}\"]\n1. e4 *"),
                format!("1. e4 ; {x}\ne5 *"),
                format!("1. e4 <{x}> e5 *"),
                format!("%{x}\n1. e4 *"),
                format!("1. e4 {x} e5 *"),
                format!("1. e4 {{{x}"),
            ] {
                texts.push(text.into_bytes());
            }
        }
        let first = Location {
            offset: 0,
            line: 1,
            col: 1,
        };
        let later = Location {
            offset: 1000,
            line: 40,
            col: 3,
        };
        for text in &texts {
            for start in [first, later] {
                let held = held_games(text, start);
                assert_eq!(
                    held,
                    trickled_games(text, start),
                    "{}",
                    String::from_utf8_lossy(text)
                );
                if start == first {
                    assert_eq!(held.0, games(text));
                }
            }
        }
    }

    #[test]
    fn locations_count_lines() {
        struct Locs(Vec<String>);
        impl Visitor for Locs {
            type Output = ();
            fn san(&mut self, _s: SanPlus, tok: &[u8], at: Location) {
                self.0
                    .push(format!("{}@{}", String::from_utf8_lossy(tok), at));
            }
            fn end_game(&mut self) {}
        }
        let mut v = Locs(Vec::new());
        let mut r = Reader::new(&b"[A \"b\"]\n\n1. e4 {x\ny\nz} e5\n2. Nf3\r\n  3. Bb5 *"[..]);
        r.read_game(&mut v).unwrap();
        assert_eq!(v.0, vec!["e4@3:4", "e5@5:4", "Nf3@6:4", "Bb5@7:6"]);
    }

    #[test]
    fn skipping_finds_the_same_boundaries() {
        let pgn: &[u8] = b"[A \"1\"]\n1. e4 (1. d4 1-0) {x ) *} e5 *\n[B \"2\"]\n1. d4 0-1\n";
        let mut r = Reader::new(pgn);
        let mut n = 0;
        while r.skip_game().unwrap() {
            n += 1;
        }
        assert_eq!(n, 2);
        assert_eq!(games(pgn).len(), 2);
    }

    /// The plain definition of the value's end: the first `"` not escaped
    /// by a `\\`, byte by byte.
    fn value_end_by_bytes(line: &[u8], mut i: usize) -> Option<usize> {
        while i < line.len() {
            match line[i] {
                b'\\' => i += 2,
                b'"' => return Some(i),
                _ => i += 1,
            }
        }
        None
    }

    proptest::proptest! {
        #[test]
        fn tag_values_end_as_defined(body in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b' ', b'"', b'\\', b']', b'-', 0xc3]),
            0..24,
        )) {
            let mut line = b"[Name \"".to_vec();
            line.extend_from_slice(&body);
            let want = value_end_by_bytes(&line, 7);
            match parse_tag(&line) {
                // The value ends at the first unescaped quote, or (lenient)
                // at a later one followed by `]`.
                Some((name, value, used)) => {
                    proptest::prop_assert_eq!(name, b"Name");
                    let end = 7 + value.len();
                    proptest::prop_assert!(want.is_some_and(|w| w <= end), "{:?}", want);
                    proptest::prop_assert_eq!(line[end], b'"');
                    proptest::prop_assert!(used <= line.len());
                }
                None => {
                    // No unescaped quote, or none followed by `]`.
                    let closes = want.is_some_and(|w| {
                        line[w + 1..].iter().find(|b| !matches!(b, b' ' | b'\t')) == Some(&b']')
                    });
                    proptest::prop_assert!(!closes);
                }
            }
        }
    }

    #[test]
    fn escaped_quotes_and_trailing_backslashes_in_tags() {
        assert_eq!(
            parse_tag(br#"[A "x\"y"]"#),
            Some((&b"A"[..], &br#"x\"y"#[..], 10))
        );
        assert_eq!(
            parse_tag(br#"[A "x\\"] z"#),
            Some((&b"A"[..], &br#"x\\"#[..], 9))
        );
        assert_eq!(parse_tag(br#"[A "x\"#), None);
        assert_eq!(parse_tag(br#"[A "x\""#), None);
        assert_eq!(
            parse_tag(br#"[A+b:c "v"]"#),
            Some((&b"A+b:c"[..], &b"v"[..], 11))
        );
    }

    proptest::proptest! {
        /// The word-at-a-time search finds what a byte-by-byte one does.
        #[test]
        fn quote_or_backslash_as_a_plain_search(bytes in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'"', b'\\', b'!', b']', 0x22 ^ 0x80, 0x5c ^ 0x01, 0xff]),
            0..40,
        )) {
            proptest::prop_assert_eq!(
                quote_or_backslash(&bytes),
                bytes.iter().position(|&b| b == b'"' || b == b'\\')
            );
        }
    }

    #[test]
    fn malformed_tags() {
        let g = games(b"[Event \"a \"quoted\" b\"]\n[ \"x\"]\n[Site \"unterminated]\n*");
        assert_eq!(g.len(), 1);
        assert!(g[0].starts_with("[Event=a \"quoted\" b] !BadTag"), "{g:?}");
    }
}
