//! Reading one PGN stream on several threads, with exactly the result of
//! reading it on one.
//!
//! The door is [`crate::source::Source::for_each_piece`]; this module is
//! its engine. A [`Cutter`] cuts the raw bytes into pieces of about a
//! target size at *likely* game boundaries (a line that starts with `[`
//! after a line that is not a tag, or a line after one that ends with a
//! result token), looking only at bytes (vector searches), so cutting costs
//! little beside reading. The reading threads take turns at the cutter:
//! each cuts its own next piece and works on it while its bytes are still
//! in that thread's cache. (Cutting on the calling thread for all of them
//! made it a third of the work, with every byte fetched from another
//! core's cache.) An input every thread can read at any offset (a file,
//! [`ReadAt`]) is read differently: the turn at the cutter only finds where
//! the next piece ends, reading a few KiB around the cut, and each thread
//! reads its piece's bytes itself, at once with the others.
//! A lone reading thread of such an input gets its pieces from a thread
//! that reads them ahead of it (two at most, rookery-io's
//! [`parallel::with_ahead`]): the reading of one piece and the parsing of
//! the one before run at once.
//!
//! Each thread then checks its piece (decoding lines that are not UTF-8 from
//! Latin-1, if asked), counts its newlines and the lines that look like a
//! game's first tag, and only then waits for the piece before it to be
//! placed: where a piece starts in the text (line, offset) and a guess at
//! the index of its first game follow from the pieces before it, so this
//! one short step goes in order; everything else runs on all threads. Then
//! it runs your `work` on the piece's games. On the calling thread, in
//! stream order, every guess is checked: a cut was exact if the reader of
//! the piece before it stood between games, or in movetext with a `[` next
//! (which ends a game anyway), and a guessed index must match the real one.
//! A wrong guess (a cut inside a comment, a variation or a tag section; a
//! game without tags) makes the piece be read again, on the calling thread,
//! from the right place with the right index. Guessing wrong costs time,
//! never a different result.
//!
//! Locations (line, column, offset) and indices are those of the whole
//! stream. A stream with no boundary a piece could end at is held as one piece.
//! Told the input's length ([`Cutter::with_length`],
//! [`crate::source::Source::with_len`]), the cutter cuts the last pieces
//! smaller, so that the threads run out of work together instead of one of
//! them reading a whole last piece alone.

use std::io::{self, Read};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use rookery_io::parallel::{self, Pulled, WorkerPanicked};
use rookery_io::read_full_at;
/// Input read at any offset by several threads; its home is now
/// rookery-io ([`rookery_io::ReadAt`]), this path kept for code written
/// before the move.
pub use rookery_io::ReadAt;

use crate::game::{Detail, Games, ReadGame};
use crate::reader::{EndState, Reader};
use crate::types::Location;

/// Raw bytes of a stream, cut where a game probably starts.
#[derive(Clone, Debug)]
pub struct Piece {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Where the piece starts in the stream.
    pub start: Location,
    /// How many lines in it look like the first tag of a game: a guess at
    /// how many games start in it.
    pub starts: usize,
    /// Whether the byte after the piece is `[`.
    pub tag_follows: bool,
    /// Whether this is the last piece of the stream.
    pub last: bool,
}

/// Where a stream begins in a larger text: the location of its first byte
/// and the index of its first game (a shard's part of a collection, cut
/// where a game starts). Locations and indices are then those of the
/// whole text. The default is the start of a text: offset 0, line 1,
/// column 1, game 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// Where the stream's first byte stands in the text.
    pub at: Location,
    /// The index of its first game, from 1.
    pub index: usize,
}

impl Default for Start {
    fn default() -> Start {
        Start {
            at: Location {
                offset: 0,
                line: 1,
                col: 1,
            },
            index: 1,
        }
    }
}

/// What reading a piece found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Games read.
    pub games: usize,
    /// Where the reader stood when the piece ran out.
    pub end: EndState,
}

impl Piece {
    /// Reads the piece as if it were the start of a stream, its first game
    /// numbered `first_index` (locations are those of the whole stream),
    /// handing the games to `work`. Games `work` leaves unread are read
    /// anyway, to count them.
    pub fn read<T>(
        &mut self,
        first_index: usize,
        work: impl FnOnce(&mut dyn Iterator<Item = ReadGame>) -> T,
    ) -> (T, Outcome) {
        self.read_with(first_index, Detail::Full, |games| work(games))
    }

    /// [`Piece::read`], keeping `detail` of each game. The bytes are read
    /// where they lie, not copied.
    pub fn read_with<T>(
        &mut self,
        first_index: usize,
        detail: Detail,
        work: impl FnOnce(&mut PieceGames) -> T,
    ) -> (T, Outcome) {
        let bytes = std::mem::take(&mut self.bytes);
        let mut it = PieceGames {
            games: Games::from_reader(Reader::from_bytes(bytes, self.start), first_index)
                .with_detail(detail),
            count: 0,
        };
        let out = work(&mut it);
        for _ in it.by_ref() {}
        let outcome = Outcome {
            games: it.count,
            end: it.games.end_state(),
        };
        self.bytes = it.games.into_reader().into_bytes();
        (out, outcome)
    }

    /// Whether a piece ending with `outcome` ends where the next one can
    /// start afresh.
    pub fn ends_cleanly(&self, outcome: &Outcome) -> bool {
        self.last
            || match outcome.end {
                EndState::BetweenGames => true,
                EndState::Movetext => self.tag_follows,
                EndState::Open => false,
            }
    }
}

/// The games of a piece, counted: an iterator that also takes games back
/// for their allocations to be reused ([`PieceGames::recycle`]).
pub struct PieceGames {
    games: Games<io::Empty>,
    count: usize,
}

impl PieceGames {
    /// Reads past the tags only the games `gate` lets through (see
    /// [`crate::game::GameBuilder::set_gate`]).
    pub fn set_gate(&mut self, gate: Option<crate::game::TagGate>) {
        self.games.set_gate(gate);
    }

    /// The piece's bytes and the stream offset of the first: a game's
    /// bytes are those between the offsets of its location and of the next
    /// game's (see [`crate::copy`]).
    pub fn input(&self) -> (&[u8], u64) {
        // A piece is always read from memory (`Reader::from_bytes`).
        self.games.reader().held_bytes().unwrap_or((&[], 0))
    }

    /// The stream offset the reader stands at: after the last game read
    /// (its termination marker and a comment on the same line), or at the
    /// `[` that ended it.
    pub fn offset(&self) -> u64 {
        self.games.offset()
    }

    /// Hands a game back (see [`Games::recycle`]).
    pub fn recycle(&mut self, game: ReadGame) {
        self.games.recycle(game);
    }
}

impl Iterator for PieceGames {
    type Item = ReadGame;
    fn next(&mut self) -> Option<ReadGame> {
        // Reading from memory cannot fail.
        let g = self.games.next()?.ok()?;
        self.count += 1;
        Some(g)
    }
}

/// Most bytes a [`Cutter`] reads at once.
const READ_STEP: usize = 1 << 16;

/// Most buffers a [`Cutter`] keeps for reuse.
const MAX_SPARE: usize = 8;

/// Smallest piece a [`Cutter`] told the input's length aims at near the end
/// (a smaller one costs more to hand out than its reading saves).
pub const MIN_TAIL_PIECE: usize = 1 << 16;

/// A [`Cutter`] told the input's length aims at most at this share of what
/// is left for each thread: the last pieces are small, so that the threads
/// run out of work at nearly the same time (guided scheduling).
const TAIL_SHARES: u64 = 4;

/// Cuts a stream into [`Cut`]s of about `target` bytes.
pub struct Cutter<R> {
    input: R,
    /// Bytes read and not yet handed out.
    pending: Vec<u8>,
    /// `pending[..filled]` holds the bytes; the rest is room (set already,
    /// so that reading into it needs no zeroing first).
    filled: usize,
    /// Where `pending[0]` is in the stream.
    start: u64,
    /// `pending[..scanned]` holds no acceptable cut past the aim.
    scanned: usize,
    target: usize,
    eof: bool,
    done: bool,
    /// Buffers of pieces done with, for the next pieces: their memory is
    /// already the process's, so filling them costs no page faults.
    spare: Vec<Vec<u8>>,
    /// The input's length (a hint) and the threads reading the pieces.
    length: Option<(u64, usize)>,
}

impl<R: Read> Cutter<R> {
    /// A cutter aiming at pieces of `target` bytes (at least 1).
    pub fn new(input: R, target: usize) -> Cutter<R> {
        Cutter {
            input,
            pending: Vec::new(),
            filled: 0,
            start: 0,
            scanned: 0,
            target: target.max(1),
            eof: false,
            done: false,
            spare: Vec::new(),
            length: None,
        }
    }

    /// Tells the cutter the input's length in bytes and how many threads
    /// read its pieces: towards the end, pieces shrink to a share of what is
    /// left (down to [`MIN_TAIL_PIECE`]), so that no thread is left reading
    /// a whole piece alone at the end. The length is a hint: a wrong one
    /// changes only where the cuts fall.
    pub fn with_length(mut self, length: u64, jobs: usize) -> Cutter<R> {
        self.length = Some((length, jobs.max(1)));
        self
    }

    /// The size the next piece aims at.
    fn aim(&self) -> usize {
        aim(self.target, self.length, self.start)
    }

    /// Takes back the bytes of a piece that is done with, for a later piece
    /// to be read into.
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        // A few, of the usual size (a piece read again with the next one
        // can be far larger).
        keep_spare(&mut self.spare, bytes, self.target);
    }

    /// Bytes of the stream handed out so far.
    pub fn offset(&self) -> u64 {
        self.start
    }

    /// Reads once, up to [`READ_STEP`] more bytes; `false` at the end of the
    /// input. (Small steps keep what lies past a cut small: `cut` copies it.
    /// One read a call, however short: asking again for the rest of a step
    /// would make a reader that hands out whole lines go through a slow
    /// path for a tail shorter than a line.)
    fn fill(&mut self) -> io::Result<bool> {
        let want = self.target.clamp(1 << 12, READ_STEP);
        let old = self.filled;
        if self.pending.len() < old + want {
            self.pending.resize(old + want, 0);
        }
        let got = loop {
            match self.input.read(&mut self.pending[old..old + want]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        self.filled = old + got;
        self.eof = got == 0;
        Ok(got > 0)
    }

    /// The first acceptable cut at or after `from`: the start of a line that
    /// is not the first of the data.
    fn find_cut(&self, from: usize) -> Option<usize> {
        find_cut(&self.pending[..self.filled], from)
    }

    fn cut(&mut self, at: usize, last: bool) -> Cut {
        // The piece keeps the buffer; the few bytes past the cut move to a
        // new one, with room for the next piece.
        let mut rest = match self.spare.pop() {
            Some(spare) => spare,
            // Zeroed whole, not step by step as `fill` reads into it: a
            // large zeroed allocation comes from the system already zero,
            // where `fill` would write every byte of it once more.
            None => vec![0; piece_room(self.target)],
        };
        let tail = self.filled - at;
        if rest.len() < tail {
            rest.resize(tail, 0);
        }
        rest[..tail].copy_from_slice(&self.pending[at..self.filled]);
        let mut bytes = std::mem::replace(&mut self.pending, rest);
        bytes.truncate(at);
        self.filled = tail;
        let offset = self.start;
        self.start += at as u64;
        self.scanned = 0;
        Cut {
            tag_follows: self.pending[..self.filled].first() == Some(&b'['),
            bytes,
            offset,
            last,
        }
    }
}

/// The room a new piece's buffer is made with, for pieces of about
/// `target` bytes: the target's worth and some (a piece ends past its aim,
/// at the next cut), up to 32 MiB; a larger piece gets just its size.
fn piece_room(target: usize) -> usize {
    target.saturating_add(target / 8 + READ_STEP).min(1 << 25)
}

/// Keeps the buffer of a piece done with in `spare`, for a later piece: a
/// few, of the usual size (a piece read again with the next one can be far
/// larger).
fn keep_spare(spare: &mut Vec<Vec<u8>>, bytes: Vec<u8>, target: usize) {
    if spare.len() < MAX_SPARE && bytes.capacity() <= piece_room(target).saturating_mul(2) {
        spare.push(bytes);
    }
}

/// The size the piece starting at `offset` aims at: `target`, or, told the
/// input's length and the threads, a share of what is left (see
/// [`Cutter::with_length`]).
fn aim(target: usize, length: Option<(u64, usize)>, offset: u64) -> usize {
    let Some((length, jobs)) = length else {
        return target;
    };
    let left = length.saturating_sub(offset);
    let share = left / (TAIL_SHARES * jobs as u64);
    usize::try_from(share)
        .unwrap_or(usize::MAX)
        .clamp(MIN_TAIL_PIECE.min(target), target)
}

/// The first acceptable cut in `bytes` at or after `from`: the start of a
/// line that is not the first of `bytes` and whose first byte is there
/// (see [`good_cut`]).
fn find_cut(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from.max(1);
    while i < bytes.len() {
        let nl = i - 1 + memchr::memchr(b'\n', &bytes[i - 1..])?;
        let line = nl + 1;
        if line >= bytes.len() {
            return None;
        }
        if good_cut(bytes, line) {
            return Some(line);
        }
        i = line + 1;
    }
    None
}

/// Counts the lines of `bytes` that open a tag section: a tag line (its
/// first byte that is not white space is `[`) whose last non-blank line
/// before it was not a tag (`after_tag` carries that from piece to piece).
///
/// It looks only at the `[`s and at the bytes between a tag line and the
/// next: a line a call (as one `memchr` a line would be) costs more than
/// the rest of the counting.
fn count_starts(bytes: &[u8], after_tag: &mut bool) -> usize {
    let blank = |b: &[u8]| b.iter().all(u8::is_ascii_whitespace);
    let mut n = 0;
    // `after_tag` tells of the lines before `seen` (a line start).
    let mut seen = 0;
    let mut at = 0;
    while let Some(i) = memchr::memchr(b'[', &bytes[at..]).map(|i| at + i) {
        // Only white space may stand between the line's start and the `[`.
        let before = bytes[..i]
            .iter()
            .rposition(|&b| b == b'\n' || !b.is_ascii_whitespace());
        let line = match before {
            None => 0,
            Some(j) if bytes[j] == b'\n' => j + 1,
            Some(_) => {
                at = i + 1;
                continue;
            }
        };
        if !blank(&bytes[seen.min(line)..line]) {
            *after_tag = false;
        }
        n += usize::from(!*after_tag);
        *after_tag = true;
        seen = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |e| i + e + 1);
        at = seen;
    }
    if !blank(&bytes[seen..]) {
        *after_tag = false;
    }
    n
}

/// Whether a piece may end just before `line` (the start of a line of
/// `bytes`): the line opens a tag and the one before is not a tag, or the
/// line is not blank and the one before ends with a game-termination marker.
fn good_cut(bytes: &[u8], line: usize) -> bool {
    let prev_end = line - 1; // the '\n'
    let prev_start = memchr::memrchr(b'\n', &bytes[..prev_end]).map_or(0, |i| i + 1);
    let prev = bytes[prev_start..prev_end].trim_ascii();
    if matches!(bytes[line], b'\n' | b'\r') {
        // Blank lines go with the piece before.
        return false;
    }
    if bytes[line] == b'[' {
        return !prev.starts_with(b"[");
    }
    let last_token = prev
        .rsplit(|b| b.is_ascii_whitespace())
        .next()
        .unwrap_or_default();
    matches!(last_token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*")
}

impl<R: Read> Iterator for Cutter<R> {
    type Item = io::Result<Cut>;

    fn next(&mut self) -> Option<io::Result<Cut>> {
        if self.done {
            return None;
        }
        loop {
            let aim = self.aim();
            if self.filled > aim {
                let from = self.scanned.max(aim);
                if let Some(at) = self.find_cut(from) {
                    return Some(Ok(self.cut(at, false)));
                }
                // Look again from the last line start, which may now be complete.
                self.scanned = memchr::memrchr(b'\n', &self.pending[..self.filled])
                    .map_or(self.filled, |i| i + 1)
                    .max(from);
            }
            if self.eof {
                self.done = true;
                if self.filled == 0 {
                    return None;
                }
                let all = self.filled;
                return Some(Ok(self.cut(all, true)));
            }
            if let Err(e) = self.fill() {
                self.done = true;
                return Some(Err(e));
            }
        }
    }
}

/// A piece of input as it was cut: its bytes as the input holds them, not
/// yet checked or counted (a worker makes it a [`Piece`]).
#[derive(Clone, Debug)]
pub struct Cut {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Where they start in the input, in bytes.
    pub offset: u64,
    /// Whether the byte after the piece is `[`.
    pub tag_follows: bool,
    /// Whether this is the last piece of the input.
    pub last: bool,
}

/// Bytes a [`Spans`] reads at a time looking for a cut.
const CUT_WINDOW: usize = 1 << 14;

/// Bytes before the aim a [`Spans`] reads too, to see the line before a
/// possible cut (a longer line is seen in part: the cut is then only a
/// likelier guess).
const LOOK_BACK: u64 = 1 << 10;

/// Where a piece of a [`ReadAt`] input lies: found by [`Spans`] (which
/// reads only around its end), read whole by a worker.
struct Span {
    offset: u64,
    len: usize,
    tag_follows: bool,
    last: bool,
    /// A buffer to read it into, and the room to make in it if it has
    /// less than the piece needs (some to spare: a buffer that grows
    /// piece by piece is moved, its memory new each time).
    buf: Vec<u8>,
    room: usize,
}

/// Cuts a [`ReadAt`] input into [`Span`]s of about a target size, at the
/// same kind of places as a [`Cutter`]; reading only a few KiB around each
/// cut, so that the threads read the pieces themselves, at once.
struct Spans<'a, A: ?Sized> {
    input: &'a A,
    /// Where the next piece starts.
    offset: u64,
    target: usize,
    length: Option<(u64, usize)>,
    window: Vec<u8>,
    spare: Vec<Vec<u8>>,
    done: bool,
}

impl<A: ReadAt + ?Sized> Spans<'_, A> {
    /// The end of the input at or after `from`, read up to.
    fn end_from(&mut self, from: u64) -> io::Result<u64> {
        self.window.resize(CUT_WINDOW, 0);
        let mut at = from;
        loop {
            let got = read_full_at(self.input, &mut self.window, at)?;
            at += got as u64;
            if got < CUT_WINDOW {
                return Ok(at);
            }
        }
    }

    /// The next piece's end, whether `[` follows it, and whether it is the
    /// last.
    fn next_end(&mut self) -> io::Result<(u64, bool, bool)> {
        let aim = aim(self.target, self.length, self.offset);
        let mut from = self.offset.saturating_add(aim as u64);
        loop {
            let back = (from - self.offset).min(LOOK_BACK);
            let start = from - back;
            self.window.resize(back as usize + CUT_WINDOW, 0);
            let got = read_full_at(self.input, &mut self.window, start)?;
            let bytes = &self.window[..got];
            if let Some(i) = find_cut(bytes, back as usize) {
                return Ok((start + i as u64, bytes[i] == b'[', false));
            }
            if got < self.window.len() {
                // The end of the input: where, if it is before `start`,
                // only reading from the piece's start can tell.
                let end = if got == 0 && start > self.offset {
                    self.end_from(self.offset)?
                } else {
                    start + got as u64
                };
                return Ok((end, false, true));
            }
            from = start + got as u64;
        }
    }
}

/// The input of [`run_pieces`]: it cuts pieces, one at a time.
trait Source {
    /// What it hands out for a piece (a worker makes it a [`Cut`]).
    type Raw: Send;
    /// The next piece; an error is the last item.
    fn next_raw(&mut self) -> Option<io::Result<Self::Raw>>;
    /// Takes back the buffer of a piece done with.
    fn recycle(&mut self, bytes: Vec<u8>);
    /// Bytes of the input cut so far.
    fn offset(&self) -> u64;
    /// What fetches `raw`'s piece again, with no buffer of its own, if the
    /// input can be read again there: then a piece read need not be kept
    /// for a second reading, should one be needed.
    fn refetch(raw: &Self::Raw) -> Option<Self::Raw>;
    /// Whether one worker is better served by a thread that cuts and
    /// fetches its pieces ahead of it ([`parallel::with_ahead`]): a source
    /// that never waits long for its bytes (a file), so that the thread
    /// ends as soon as it is no longer wanted.
    const AHEAD: bool = false;
}

impl<R: Read> Source for Cutter<R> {
    type Raw = Cut;
    fn next_raw(&mut self) -> Option<io::Result<Cut>> {
        self.next()
    }
    fn recycle(&mut self, bytes: Vec<u8>) {
        Cutter::recycle(self, bytes);
    }
    fn offset(&self) -> u64 {
        Cutter::offset(self)
    }
    fn refetch(_: &Cut) -> Option<Cut> {
        // A stream is read once.
        None
    }
}

impl<A: ReadAt + ?Sized> Source for Spans<'_, A> {
    type Raw = Span;
    const AHEAD: bool = true;
    fn next_raw(&mut self) -> Option<io::Result<Span>> {
        if self.done {
            return None;
        }
        let (end, tag_follows, last) = match self.next_end() {
            Ok(found) => found,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        self.done = last;
        if last && end <= self.offset {
            return None;
        }
        let Ok(len) = usize::try_from(end - self.offset) else {
            self.done = true;
            return Some(Err(io::Error::other("a piece too large for memory")));
        };
        let span = Span {
            offset: self.offset,
            len,
            tag_follows,
            last,
            buf: self.spare.pop().unwrap_or_default(),
            room: piece_room(self.target),
        };
        self.offset = end;
        Some(Ok(span))
    }
    fn recycle(&mut self, bytes: Vec<u8>) {
        keep_spare(&mut self.spare, bytes, self.target);
    }
    fn offset(&self) -> u64 {
        self.offset
    }
    fn refetch(span: &Span) -> Option<Span> {
        Some(Span {
            buf: Vec::new(),
            ..*span
        })
    }
}

/// Reads a span whole, on a worker: into `buf` (the buffer of the worker's
/// last piece, still in its caches) if it has one, else into the span's.
fn read_span<A: ReadAt + ?Sized>(input: &A, span: Span, buf: Vec<u8>) -> io::Result<Cut> {
    let mut bytes = if buf.capacity() > 0 { buf } else { span.buf };
    if bytes.capacity() < span.len {
        bytes = Vec::with_capacity(span.len.max(span.room));
    }
    // The buffer's old bytes stay as room: only growth is zeroed.
    if bytes.len() < span.len {
        bytes.resize(span.len, 0);
    }
    let got = read_full_at(input, &mut bytes[..span.len], span.offset)?;
    if got < span.len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the input changed while it was read: it is shorter than it was",
        ));
    }
    bytes.truncate(span.len);
    Ok(Cut {
        bytes,
        offset: span.offset,
        tag_follows: span.tag_follows,
        last: span.last,
    })
}

/// The pieces placed in the stream, in order. Where a piece starts in the
/// text (line, column, offset after any decoding) and how many games are
/// guessed to start before it depend on every piece before it: each worker
/// checks and counts its own piece first, then waits here for the piece
/// before it to be placed, places its own, and reads it. Everything but this
/// short step runs on all threads at once.
struct Chain {
    placed: Mutex<Placed>,
    turn: Condvar,
}

/// What [`Chain`] knows: how far the pieces are placed.
struct Placed {
    /// Pieces placed so far: the number of the next.
    next: usize,
    /// Where the next piece starts.
    at: Location,
    /// Games guessed to start before it.
    guessed: usize,
    /// The last non-blank line before it is a tag.
    after_tag: bool,
    /// The first piece that could not be placed (its bytes could not be
    /// read, or its worker failed): no piece after it can be, but every
    /// piece before it still is, in its turn (its own error comes first).
    broken: Option<usize>,
}

/// What a piece counts of itself, for [`Chain::place`].
struct Counts {
    len: usize,
    newlines: u64,
    /// Where its last newline is (if it has one).
    last_newline: Option<usize>,
    /// Tag sections opened in it, read as if no tag came before it.
    starts: usize,
    /// Whether its first line that is not blank is a tag (`None`: all blank).
    first_is_tag: Option<bool>,
    /// Whether its last line that is not blank is a tag.
    ends_in_tag: bool,
}

impl Chain {
    /// A chain whose first piece starts at `at`.
    fn new(at: Location) -> Chain {
        Chain {
            placed: Mutex::new(Placed {
                next: 0,
                at,
                guessed: 0,
                after_tag: false,
                broken: None,
            }),
            turn: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Placed> {
        self.placed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Places piece `seq`, waiting for the one before: its start, the games
    /// started in it (as guessed) and the games guessed before it.
    fn place(&self, seq: usize, c: &Counts) -> io::Result<(Location, usize, usize)> {
        let mut p = self.lock();
        let cut_off = |p: &Placed| p.broken.is_some_and(|b| b < seq);
        while p.next < seq && !cut_off(&p) {
            p = self.turn.wait(p).unwrap_or_else(PoisonError::into_inner);
        }
        if cut_off(&p) || p.next != seq {
            return Err(io::Error::other("a piece before this one failed"));
        }
        let start = p.at;
        let starts = c.starts - usize::from(p.after_tag && c.first_is_tag == Some(true));
        let before = p.guessed;
        let end = start.offset + c.len as u64;
        p.at = match c.last_newline {
            None => Location {
                offset: end,
                line: start.line,
                col: start.col + c.len as u64,
            },
            Some(nl) => Location {
                offset: end,
                line: start.line + c.newlines,
                col: (c.len - nl) as u64,
            },
        };
        p.guessed += starts;
        if c.first_is_tag.is_some() {
            p.after_tag = c.ends_in_tag;
        }
        p.next += 1;
        drop(p);
        self.turn.notify_all();
        Ok((start, starts, before))
    }

    /// Marks the chain broken at piece `seq`: it never will be placed, nor
    /// any after it.
    fn break_off(&self, seq: usize) {
        let mut p = self.lock();
        p.broken = Some(p.broken.map_or(seq, |b| b.min(seq)));
        drop(p);
        self.turn.notify_all();
    }
}

/// Breaks the chain if dropped before [`Unplaced::placed`]: a worker that
/// fails (an error or a panic) before placing its piece must not leave
/// the next ones waiting for ever.
struct Unplaced<'a> {
    chain: &'a Chain,
    /// The piece's number.
    seq: usize,
    armed: bool,
}

impl Unplaced<'_> {
    fn placed(mut self) {
        self.armed = false;
    }
}

impl Drop for Unplaced<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.chain.break_off(self.seq);
        }
    }
}

/// A piece ready to read, placed in the stream: what a worker makes of a
/// [`Cut`], with the guessed index of its first game and the line of its
/// first line that was not UTF-8 (when read as Latin-1).
struct Placement {
    piece: Piece,
    first: usize,
    odd_line: Option<u64>,
}

/// A piece's bytes as its games are read from them: with `latin1`, its
/// lines that are not UTF-8 decoded from Latin-1; and the number of its
/// newlines and of its first line that was not UTF-8 (if one was not).
fn decoded(bytes: Vec<u8>, latin1: bool) -> (Vec<u8>, u64, Option<u64>) {
    if latin1 {
        match rookery_io::latin1::decode_lines(&bytes) {
            Ok(newlines) => (bytes, newlines, None),
            Err(decoded) => {
                let text = decoded.text.into_bytes();
                let newlines = rookery_io::latin1::newlines_in(&text);
                (text, newlines, Some(decoded.first_line))
            }
        }
    } else {
        let newlines = rookery_io::latin1::newlines_in(&bytes);
        (bytes, newlines, None)
    }
}

/// On a worker: checks the bytes of piece number `seq` (decoding lines
/// that are not UTF-8 from Latin-1 if `latin1`), counts its lines and tag
/// sections, places it in the stream (`unplaced`'s chain) and guesses its
/// first game's index.
fn prepare(
    seq: usize,
    cut: Cut,
    latin1: bool,
    unplaced: Unplaced<'_>,
    books: &Mutex<Books>,
) -> io::Result<Placement> {
    let Cut {
        bytes,
        offset,
        tag_follows,
        last,
    } = cut;
    let (bytes, newlines, odd) = decoded(bytes, latin1);
    let body = if offset == 0 {
        bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes)
    } else {
        &bytes
    };
    let mut ends_in_tag = false;
    let starts = count_starts(body, &mut ends_in_tag);
    let counts = Counts {
        len: bytes.len(),
        newlines,
        last_newline: if newlines == 0 {
            None
        } else {
            memchr::memrchr(b'\n', &bytes)
        },
        starts,
        first_is_tag: body
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .map(|&b| b == b'['),
        ends_in_tag,
    };
    let (start, starts, before) = unplaced.chain.place(seq, &counts)?;
    unplaced.placed();
    let (delta, first_index) = {
        let b = lock(books);
        (b.delta, b.first_index)
    };
    let first = usize::try_from((before as i64 + first_index as i64).saturating_add(delta))
        .unwrap_or(first_index);
    Ok(Placement {
        odd_line: odd.map(|line| start.line + line - 1),
        piece: Piece {
            bytes,
            start,
            starts,
            tag_follows,
            last,
        },
        first: first.max(first_index),
    })
}

/// Where [`crate::source::Source::for_each_piece`] hands the results, in
/// stream order, with the input bytes cut so far; it returns `false` to
/// stop early.
pub type PieceSink<'a, T, E> = dyn FnMut(T, u64) -> Result<bool, E> + 'a;

/// [`PieceSink`] that also gets the bytes the result's games were read
/// from (the piece, or the pieces read again as one), for a result that
/// points into them instead of holding a copy ([`crate::copy`]).
pub(crate) type LentSink<'a, T, E> = dyn FnMut(T, &[u8], u64) -> Result<bool, E> + 'a;

/// Runs `work` over the games of the stream `input` on `jobs` threads (at
/// least one) and hands its results to `sink` in stream order (the door is
/// [`crate::source::Source::for_each_piece`]): `at` is where the stream
/// begins in a larger text (see [`Start`]) and whether the sink borrows the
/// bytes ([`LentSink`]); `size` the target size of a piece and, if known,
/// the input's length in bytes (see [`Cutter::with_length`]).
pub(crate) fn from_stream<T: Send, E: From<io::Error>>(
    input: impl Read + Send,
    (start, lend): (Start, bool),
    jobs: usize,
    size: (usize, Option<u64>),
    detail: Detail,
    work: &(dyn Fn(&mut PieceGames) -> T + Sync),
    sink: &mut LentSink<'_, T, E>,
) -> Result<(), E> {
    let jobs = jobs.max(1);
    let (target, length) = size;
    let mut cutter = Cutter::new(input, target);
    if let Some(length) = length {
        cutter = cutter.with_length(length, jobs);
    }
    let pieces = Pieces {
        jobs,
        detail,
        start,
        lend,
        work,
        sink,
        latin1: None,
    };
    run_pieces(cutter, &|cut, _| Ok(cut), pieces)
}

/// [`from_stream`] over an input every thread can read at any offset (a
/// file): the calling thread reads only a few KiB around each cut, and each
/// thread reads its own pieces, checks and counts them, at once. With
/// `latin1`, a line that is not UTF-8 is read as ISO 8859-1, as
/// [`rookery_io::latin1::Latin1Read`] does (locations are then those of the
/// decoded text), and `latin1` hears the number of the first such line,
/// once; without it, the bytes are read as they are.
pub(crate) fn from_file<A: ReadAt + Sync + ?Sized, T: Send, E: From<io::Error>>(
    input: &A,
    (jobs, lend): (usize, bool),
    size: (usize, Option<u64>),
    detail: Detail,
    work: &(dyn Fn(&mut PieceGames) -> T + Sync),
    sink: &mut LentSink<'_, T, E>,
    latin1: Option<&mut dyn FnMut(u64)>,
) -> Result<(), E> {
    let jobs = jobs.max(1);
    let (target, length) = size;
    let spans = Spans {
        input,
        offset: 0,
        target: target.max(1),
        length: length.map(|n| (n, jobs)),
        window: Vec::new(),
        spare: Vec::new(),
        done: false,
    };
    let pieces = Pieces {
        jobs,
        detail,
        start: Start::default(),
        lend,
        work,
        sink,
        latin1,
    };
    run_pieces(spans, &|span, buf| read_span(input, span, buf), pieces)
}

/// How [`run_pieces`] reads: threads, detail, where the stream begins,
/// and whether the sink borrows the bytes ([`LentSink`]: a worker then
/// keeps no piece's buffer for its next piece); the work on the threads,
/// the sink of the results, and who hears the first line read as Latin-1
/// (if lines that are not UTF-8 are decoded).
struct Pieces<'r, 's, 'l, T, E> {
    jobs: usize,
    detail: Detail,
    start: Start,
    lend: bool,
    work: &'r (dyn Fn(&mut PieceGames) -> T + Sync),
    sink: &'r mut LentSink<'s, T, E>,
    latin1: Option<&'r mut (dyn FnMut(u64) + 'l)>,
}

/// A piece read on a reading thread. Its bytes are gone (to the thread's
/// next piece) if `again` can fetch them again.
struct ReadPiece<T, R> {
    placement: Placement,
    out: T,
    outcome: Outcome,
    again: Option<R>,
}

/// Pieces read ahead of the one worker and not yet taken ([`run_pieces`]).
const PIECES_AHEAD: usize = 2;

/// A piece as [`Ahead`] hands it out: read already, with what fetches it
/// again (if the source can); or only to be fetched again.
enum Fetched<R> {
    Read(Cut, Option<R>),
    Again(R),
}

/// A piece read ahead, with what fetches it again (if its source can); an
/// error is the last one.
type ReadAhead<R> = io::Result<(Cut, Option<R>)>;

/// The source of a lone worker whose pieces a thread cuts and fetches from
/// a source `S` ([`parallel::with_ahead`]): the worker parses while the
/// next piece is read.
struct Ahead<S: Source> {
    pieces: parallel::Ahead<ReadAhead<S::Raw>, Vec<u8>>,
    offset: u64,
}

impl<S: Source> Source for Ahead<S> {
    type Raw = Fetched<S::Raw>;
    fn next_raw(&mut self) -> Option<io::Result<Fetched<S::Raw>>> {
        // The end: the input is read (an error was handed out before).
        let got = match self.pieces.take_next()? {
            Ok(got) => got,
            Err(_) => Err(io::Error::other("the thread reading ahead panicked")),
        };
        Some(got.map(|(cut, again)| {
            self.offset = cut.offset + cut.bytes.len() as u64;
            Fetched::Read(cut, again)
        }))
    }
    fn recycle(&mut self, bytes: Vec<u8>) {
        self.pieces.give_back(bytes);
    }
    fn offset(&self) -> u64 {
        self.offset
    }
    fn refetch(raw: &Fetched<S::Raw>) -> Option<Fetched<S::Raw>> {
        match raw {
            Fetched::Read(_, again) => again.as_ref().and_then(S::refetch),
            Fetched::Again(r) => S::refetch(r),
        }
        .map(Fetched::Again)
    }
}

/// The work of [`from_stream`] and [`from_file`]; one worker of a source
/// that is better read ahead ([`Source::AHEAD`]) gets its pieces, cut and
/// fetched, from a thread that reads them ahead of it, at most
/// [`PIECES_AHEAD`] ([`parallel::with_ahead`]), into the buffers it hands
/// back.
fn run_pieces<S: Source + Send, T: Send, E: From<io::Error>>(
    source: S,
    fetch: &(dyn Fn(S::Raw, Vec<u8>) -> io::Result<Cut> + Sync),
    pieces: Pieces<'_, '_, '_, T, E>,
) -> Result<(), E> {
    if pieces.jobs > 1 || !S::AHEAD {
        return run_pieces_on(source, fetch, pieces);
    }
    // Until the input ends or a read fails (the error is the last piece).
    let next = |(source, failed): &mut (S, bool)| -> Option<ReadAhead<S::Raw>> {
        if *failed {
            return None;
        }
        let item = source.next_raw()?.and_then(|raw| {
            let again = S::refetch(&raw);
            fetch(raw, Vec::new()).map(|cut| (cut, again))
        });
        *failed = item.is_err();
        Some(item)
    };
    let take_back = |(source, _): &mut (S, bool), bytes| source.recycle(bytes);
    let ran = parallel::with_ahead(PIECES_AHEAD, (source, false), next, take_back, |ahead| {
        let back = ahead.giver();
        let fetch_ahead = move |raw: Fetched<S::Raw>, buf: Vec<u8>| match raw {
            Fetched::Read(cut, _) => {
                // The worker's last buffer goes back to the thread.
                if buf.capacity() > 0 {
                    back.give(buf);
                }
                Ok(cut)
            }
            Fetched::Again(raw) => fetch(raw, buf),
        };
        let ahead: Ahead<S> = Ahead {
            pieces: ahead,
            offset: 0,
        };
        run_pieces_on(ahead, &fetch_ahead, pieces)
    });
    ran.unwrap_or_else(|e| Err(E::from(e)))
}

/// The threads take turns at `source` for their next piece, `fetch` its
/// bytes, [`prepare`] it and read it; the calling thread takes the results
/// in order ([`take_in_order`]).
fn run_pieces_on<S: Source + Send, T: Send, E: From<io::Error>>(
    source: S,
    fetch: &(dyn Fn(S::Raw, Vec<u8>) -> io::Result<Cut> + Sync),
    pieces: Pieces<'_, '_, '_, T, E>,
) -> Result<(), E> {
    let Pieces {
        jobs,
        detail,
        start,
        lend,
        work,
        sink,
        latin1,
    } = pieces;
    let decode = latin1.is_some();
    // (The listener's own lifetime shortened to the borrow's.)
    let latin1 = latin1.map(|tell| -> &mut dyn FnMut(u64) { tell });
    let books = Mutex::new(Books {
        first_index: start.index,
        next_index: start.index,
        delta: 0,
        cut_to: 0,
        spare: Vec::new(),
    });
    let books = &books;
    let chain = &Chain::new(start.at);
    // On the reading threads, one at a time: the next piece, numbered (an
    // I/O error ends the source: it is the last item).
    let cut = |(source, cuts): &mut (S, usize)| {
        let spare = std::mem::take(&mut lock(books).spare);
        for bytes in spare {
            source.recycle(bytes);
        }
        let raw = source.next_raw()?;
        lock(books).cut_to = source.offset();
        let seq = *cuts;
        *cuts += 1;
        Some(raw.map(|raw| (seq, raw)))
    };
    // On the reading threads, at once (the shared ordered-parallel helper
    // catches a panic in `work` and reports it as an error, not a hang).
    // `kept`: the buffer of the thread's last piece.
    let read = |kept: &mut Vec<u8>,
                item: io::Result<(usize, S::Raw)>|
     -> io::Result<ReadPiece<T, S::Raw>> {
        let (seq, raw) = item?;
        let unplaced = Unplaced {
            chain,
            seq,
            armed: true,
        };
        let again = S::refetch(&raw);
        let cut = fetch(raw, std::mem::take(kept))?;
        let mut placement = prepare(seq, cut, decode, unplaced, books)?;
        let (out, outcome) = placement.piece.read_with(placement.first, detail, work);
        // A piece that ends cleanly is read again only if its first game's
        // index was guessed wrong (rare), and then fetched again: its
        // buffer serves the thread's next piece, while still in its caches,
        // instead of waiting to be taken (new memory for every piece in
        // flight). Unless the sink borrows the bytes.
        let again = match again {
            Some(again) if !lend && placement.piece.ends_cleanly(&outcome) => {
                *kept = std::mem::take(&mut placement.piece.bytes);
                Some(again)
            }
            _ => None,
        };
        Ok(ReadPiece {
            placement,
            out,
            outcome,
            again,
        })
    };
    // Pieces cut and not yet taken: enough for every thread to have its
    // next one while the calling thread takes the results.
    parallel::with_pulling_workers(jobs, 2 * jobs, (source, 0), cut, read, |q| {
        let refetch = |piece: &mut Piece, again: &mut Option<S::Raw>| -> io::Result<()> {
            if let Some(raw) = again.take() {
                piece.bytes = decoded(fetch(raw, Vec::new())?.bytes, decode).0;
            }
            Ok(())
        };
        take_in_order(q, books, detail, work, sink, latin1, &refetch)
    })
}

/// What the reading threads and the calling thread share beside the source,
/// under a lock of its own that is never held long (the source's is held
/// while a piece is read from the input): the real index of the first game
/// of the next piece to take, and by how much the guesses of the games in
/// the pieces taken were short (what a guess of a later piece is corrected
/// by); the bytes cut so far; buffers of pieces taken, for the source to
/// reuse.
struct Books {
    /// The index of the stream's first game ([`Start::index`]).
    first_index: usize,
    next_index: usize,
    delta: i64,
    cut_to: u64,
    spare: Vec<Vec<u8>>,
}

/// Locks `books`; a thread that panicked holding it left them whole (every
/// change under it is one step), so a poisoned lock is taken as it is.
fn lock(books: &Mutex<Books>) -> MutexGuard<'_, Books> {
    books.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Takes the pieces' results in stream order, checks every cut and guess
/// (reading a piece again on this thread where one was wrong) and hands
/// them to `sink`; tells `latin1` of the first line read as Latin-1.
fn take_in_order<S, R, T, E: From<io::Error>>(
    q: &mut Pulled<'_, S, io::Result<ReadPiece<T, R>>>,
    books: &Mutex<Books>,
    detail: Detail,
    work: &(dyn Fn(&mut PieceGames) -> T + Sync),
    sink: &mut LentSink<'_, T, E>,
    mut latin1: Option<&mut dyn FnMut(u64)>,
    refetch: &dyn Fn(&mut Piece, &mut Option<R>) -> io::Result<()>,
) -> Result<(), E> {
    let failed = |e: WorkerPanicked| io::Error::other(e);
    // A piece that ended inside a game, with its index: read it again with the next.
    let mut carry: Option<(Piece, usize)> = None;
    while let Some(done) = q.take_next() {
        let ReadPiece {
            placement,
            out,
            outcome,
            mut again,
        } = done.map_err(failed)??;
        if let Some(line) = placement.odd_line {
            if let Some(tell) = latin1.take() {
                tell(line);
            }
        }
        let (mut piece, first) = (placement.piece, placement.first);
        // The guesses change only below, in one step with the real count:
        // a piece placed meanwhile must never see one without the other.
        let next_index = lock(books).next_index;
        let (mut piece, out, outcome) = match carry.take() {
            Some((mut held, index)) => {
                // The cut before this piece was wrong: read on from the held piece.
                refetch(&mut piece, &mut again)?;
                held.starts += piece.starts;
                held.bytes.extend_from_slice(&piece.bytes);
                held.tag_follows = piece.tag_follows;
                held.last = piece.last;
                lock(books).spare.push(piece.bytes);
                let (out, outcome) = held.read_with(index, detail, work);
                (held, out, outcome)
            }
            None if first != next_index => {
                // The guessed index was wrong.
                refetch(&mut piece, &mut again)?;
                let (out, outcome) = piece.read_with(next_index, detail, work);
                (piece, out, outcome)
            }
            None => (piece, out, outcome),
        };
        if !piece.ends_cleanly(&outcome) {
            // Its games are still guessed: read again with the next piece.
            refetch(&mut piece, &mut again)?;
            carry = Some((piece, next_index));
            continue;
        }
        let offset = {
            let mut b = lock(books);
            b.delta += outcome.games as i64 - piece.starts as i64;
            b.next_index += outcome.games;
            b.cut_to
        };
        let go_on = sink(out, &piece.bytes, offset)?;
        if piece.bytes.capacity() > 0 {
            lock(books).spare.push(piece.bytes);
        }
        if !go_on {
            return Ok(());
        }
    }
    // Only the last piece may end inside a game, and it is never held;
    // should one be held anyway, it is read to the end here.
    if let Some((mut held, index)) = carry {
        let (out, _) = held.read_with(index, detail, work);
        let offset = lock(books).cut_to;
        sink(out, &held.bytes, offset)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`count_starts`] the plain way: line by line.
    fn count_starts_by_lines(bytes: &[u8], after_tag: &mut bool) -> usize {
        let mut n = 0;
        for line in bytes.split(|&b| b == b'\n') {
            if let Some(&b) = line.iter().find(|b| !b.is_ascii_whitespace()) {
                let tag = b == b'[';
                n += usize::from(tag && !*after_tag);
                *after_tag = tag;
            }
        }
        n
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn count_starts_agrees_with_a_count_line_by_line(
            bytes in prop::collection::vec(
                prop::sample::select(vec![b'[', b']', b'\n', b' ', b'\t', b'\r', b'a', b'"']),
                0..300,
            ),
            after_tag in any::<bool>(),
        ) {
            let (mut fast, mut plain) = (after_tag, after_tag);
            prop_assert_eq!(
                count_starts(&bytes, &mut fast),
                count_starts_by_lines(&bytes, &mut plain)
            );
            prop_assert_eq!(fast, plain);
        }
    }

    #[test]
    fn count_starts_on_games() {
        let pgn = b"[Event \"a [x]\"]\n  [Site \"b\"]\n\n1. e4 {[%clk 1:00]} *\n\n\
                    [Event \"c\"]\r\n\r\n1. d4\n[%eval 3] *\n \t[Event \"d\"]\n";
        let mut after_tag = false;
        assert_eq!(count_starts(pgn, &mut after_tag), 3);
        assert!(after_tag);
        // ("d"'s tag runs on into the next copy's "a": one section.)
        let long = pgn.repeat(5000);
        let mut after_tag = false;
        assert_eq!(count_starts(&long, &mut after_tag), 1 + 2 * 5000);
    }

    #[test]
    fn a_stream_that_begins_inside_a_text_gives_the_texts_locations_and_indices() {
        let mut text = Vec::new();
        for i in 0..12 {
            text.extend_from_slice(
                format!(
                    "[Event \"{i}\"]\n\n{{c}} 1. e4 e5 2. {} *\n\n",
                    if i == 5 { "Ke3" } else { "Nf3" }
                )
                .as_bytes(),
            );
        }
        let games = |input: &[u8], start: Start, jobs: usize| {
            let mut found = Vec::new();
            from_stream(
                input,
                (start, false),
                jobs,
                (40, None),
                Detail::Count,
                &|games: &mut PieceGames| {
                    games
                        .map(|g| (g.index, g.at, g.error.map(|e| e.at)))
                        .collect::<Vec<_>>()
                },
                &mut |batch, _, _| -> io::Result<bool> {
                    found.extend(batch);
                    Ok(true)
                },
            )
            .unwrap();
            found
        };
        let whole = games(&text, Start::default(), 1);
        assert_eq!(whole.len(), 12);
        assert!(whole[5].2.is_some());
        for (k, &(index, at, _)) in whole.iter().enumerate() {
            let tail = &text[at.offset as usize..];
            for jobs in [1, 3] {
                assert_eq!(
                    games(tail, Start { at, index }, jobs),
                    whole[k..],
                    "from game {index}"
                );
            }
        }
    }
}
