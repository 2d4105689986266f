//! Reading one PGN stream on several threads, with exactly the result of
//! reading it on one.
//!
//! [`for_each_piece`] does it all: a [`Cutter`] cuts the raw bytes into
//! [`Piece`]s of about a target size at *likely* game boundaries (a line that
//! starts with `[` after a line that is not a tag, or a line after one that
//! ends with a result token), looking only at bytes (vector searches), so
//! cutting costs little beside reading. It also counts the lines that look like a game's first
//! tag, which gives every piece a guess at the index of its first game.
//! The reading threads take turns at the cutter: each cuts its own next
//! piece and reads it while its bytes are still in that thread's cache,
//! running your `work` on its games. (Cutting on the calling thread for all
//! of them made it a third of the work, with every byte fetched from
//! another core's cache.) Then, on the calling thread, in stream order,
//! every guess is checked: a cut was exact if the reader of
//! the piece before it stood between games, or in movetext with a `[` next
//! (which ends a game anyway), and a guessed index must match the real one.
//! A wrong guess (a cut inside a comment, a variation or a tag section; a
//! game without tags) makes the piece be read again, on the calling thread,
//! from the right place with the right index. Guessing wrong costs time,
//! never a different result.
//!
//! Locations (line, column, offset) and indices are those of the whole
//! stream. A stream with no boundary a piece could end at is held as one piece.
//! Told the input's length ([`Cutter::with_length`], the `size` of
//! [`for_each_piece_with`]), the cutter cuts the last pieces smaller, so that
//! the threads run out of work together instead of one of them reading a
//! whole last piece alone.
//!
//! ```
//! use rookery_pgn::split::for_each_piece;
//! let pgn = b"[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 d5 *\n\n[Event \"c\"]\n\n1. c4 *\n";
//! let mut found = Vec::new();
//! for_each_piece(
//!     &pgn[..],
//!     2,  // threads
//!     16, // bytes a piece, about
//!     &|games| games.map(|g| (g.index, g.at.line)).collect::<Vec<_>>(), // on the threads
//!     &mut |batch, _bytes_done| -> std::io::Result<bool> {
//!         found.extend(batch); // in stream order
//!         Ok(true) // go on
//!     },
//! )?;
//! assert_eq!(found, [(1, 1), (2, 5), (3, 9)]);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Read};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rookery_core::parallel::{self, Pulled, WorkerPanicked};

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

/// Cuts a stream into [`Piece`]s of about `target` bytes.
pub struct Cutter<R> {
    input: R,
    /// Bytes read and not yet handed out.
    pending: Vec<u8>,
    /// `pending[..filled]` holds the bytes; the rest is room (set already,
    /// so that reading into it needs no zeroing first).
    filled: usize,
    /// Where `pending[0]` is in the stream.
    start: Location,
    /// `pending[..scanned]` holds no acceptable cut past the aim.
    scanned: usize,
    target: usize,
    eof: bool,
    done: bool,
    /// The last non-blank line cut so far was a tag.
    after_tag: bool,
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
            start: Location {
                offset: 0,
                line: 1,
                col: 1,
            },
            scanned: 0,
            target: target.max(1),
            eof: false,
            done: false,
            after_tag: false,
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
        let Some((length, jobs)) = self.length else {
            return self.target;
        };
        let left = length.saturating_sub(self.start.offset);
        let share = left / (TAIL_SHARES * jobs as u64);
        usize::try_from(share)
            .unwrap_or(usize::MAX)
            .clamp(MIN_TAIL_PIECE.min(self.target), self.target)
    }

    /// Takes back the bytes of a piece that is done with, for a later piece
    /// to be read into.
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        // A few, of the usual size (a piece read again with the next one
        // can be far larger).
        if self.spare.len() < MAX_SPARE && bytes.capacity() <= 2 * self.piece_capacity() {
            self.spare.push(bytes);
        }
    }

    /// The room a new piece's buffer is made with.
    fn piece_capacity(&self) -> usize {
        self.target.saturating_add(READ_STEP).min(1 << 25)
    }

    /// Bytes of the stream handed out so far.
    pub fn offset(&self) -> u64 {
        self.start.offset
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
        let bytes = &self.pending[..self.filled];
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

    fn cut(&mut self, at: usize, last: bool) -> Piece {
        // The piece keeps the buffer; the few bytes past the cut move to a
        // new one, with room for the next piece.
        let mut rest = match self.spare.pop() {
            Some(spare) => spare,
            // Zeroed whole, not step by step as `fill` reads into it: a
            // large zeroed allocation comes from the system already zero,
            // where `fill` would write every byte of it once more.
            None => vec![0; self.piece_capacity()],
        };
        let tail = self.filled - at;
        if rest.len() < tail {
            rest.resize(tail, 0);
        }
        rest[..tail].copy_from_slice(&self.pending[at..self.filled]);
        let mut bytes = std::mem::replace(&mut self.pending, rest);
        bytes.truncate(at);
        self.filled = tail;
        let start = self.start;
        let body = if start.offset == 0 {
            bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes)
        } else {
            &bytes
        };
        // (A byte-order mark holds no newline: the body's are the piece's.)
        let (starts, newlines) = count_starts(body, &mut self.after_tag);
        let end = start.offset + bytes.len() as u64;
        self.start = if newlines == 0 {
            Location {
                offset: end,
                line: start.line,
                col: start.col + bytes.len() as u64,
            }
        } else {
            let last_nl = memchr::memrchr(b'\n', &bytes).unwrap_or(0);
            Location {
                offset: end,
                line: start.line + newlines,
                col: (bytes.len() - last_nl) as u64,
            }
        };
        self.scanned = 0;
        Piece {
            tag_follows: self.pending[..self.filled].first() == Some(&b'['),
            bytes,
            start,
            starts,
            last,
        }
    }
}

/// Counts the lines of `bytes` that open a tag section: a tag line (its
/// first byte that is not white space is `[`) whose last non-blank line
/// before it was not a tag (`after_tag` carries that from piece to piece);
/// and the newlines.
///
/// It looks only at the `[`s and at the bytes between a tag line and the
/// next: a line a call (as one `memchr` a line would be) costs more than
/// the rest of cutting.
fn count_starts(bytes: &[u8], after_tag: &mut bool) -> (usize, u64) {
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
    (n, rookery_epd::latin1::newlines_in(bytes))
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
    type Item = io::Result<Piece>;

    fn next(&mut self) -> Option<io::Result<Piece>> {
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

/// Where [`for_each_piece`] hands the results, in stream order, with the
/// input bytes cut so far; it returns `false` to stop early.
pub type PieceSink<'a, T, E> = dyn FnMut(T, u64) -> Result<bool, E> + 'a;

/// Runs `work` over the games of `input` on `jobs` threads (at least one)
/// and hands its results to `sink` in stream order, with the number of input
/// bytes cut so far; `sink` returns `false` to stop early. The games `work`
/// sees, their indices, locations, errors and warnings, are exactly those one
/// [`Games`] reader over the whole stream gives (see the module
/// documentation); `work` may run more than once on the same games (only one
/// result reaches `sink`), so it should have no other effect.
///
/// # Errors
/// An I/O error reading `input`, or the first error `sink` returns.
pub fn for_each_piece<T: Send, E: From<io::Error>>(
    input: impl Read + Send,
    jobs: usize,
    target: usize,
    work: &(dyn Fn(&mut dyn Iterator<Item = ReadGame>) -> T + Sync),
    sink: &mut PieceSink<'_, T, E>,
) -> Result<(), E> {
    for_each_piece_with(
        input,
        jobs,
        (target, None),
        Detail::Full,
        &|games| work(games),
        sink,
    )
}

/// [`for_each_piece`], the games keeping `detail` (see [`Detail`]: the
/// games' errors and warnings are the same at every detail), and `work`
/// may hand the games back for reuse ([`PieceGames::recycle`]). `size` is
/// the target size of a piece and, if known, the input's length in bytes
/// (see [`Cutter::with_length`]).
///
/// # Errors
/// An I/O error reading `input`, or the first error `sink` returns.
pub fn for_each_piece_with<T: Send, E: From<io::Error>>(
    input: impl Read + Send,
    jobs: usize,
    size: (usize, Option<u64>),
    detail: Detail,
    work: &(dyn Fn(&mut PieceGames) -> T + Sync),
    sink: &mut PieceSink<'_, T, E>,
) -> Result<(), E> {
    let jobs = jobs.max(1);
    let (target, length) = size;
    let mut cutter = Cutter::new(input, target);
    if let Some(length) = length {
        cutter = cutter.with_length(length, jobs);
    }
    let books = Mutex::new(Books {
        next_index: 1,
        ahead: 0,
        cut_to: 0,
        spare: Vec::new(),
    });
    let books = &books;
    // On the reading threads, one at a time: cut the next piece and guess
    // its first game's index (an I/O error ends the cutter: it is the last
    // item).
    let cut = |cutter: &mut Cutter<_>| {
        let spare = std::mem::take(&mut lock(books).spare);
        for bytes in spare {
            cutter.recycle(bytes);
        }
        let piece = cutter.next();
        let mut b = lock(books);
        Some(piece?.map(|piece| {
            let first = b.next_index + b.ahead;
            b.ahead += piece.starts;
            b.cut_to = cutter.offset();
            (piece, first)
        }))
    };
    // On the reading threads, at once (the shared ordered-parallel helper
    // catches a panic in `work` and reports it as an error, not a hang).
    let read = |item: io::Result<(Piece, usize)>| {
        item.map(|(mut piece, first)| {
            let (out, outcome) = piece.read_with(first, detail, work);
            (piece, first, out, outcome)
        })
    };
    // Pieces cut and not yet taken: enough for every thread to have its
    // next one while the calling thread takes the results.
    parallel::with_pulling_workers(jobs, 2 * jobs, cutter, cut, read, |q| {
        take_in_order(q, books, detail, work, sink)
    })
}

/// What the reading threads and the calling thread share beside the cutter,
/// under a lock of its own that is never held long (the cutter's is held
/// while a piece is read from the input): what the index guesses are made
/// of, the real index of the first game of the next piece to take and the
/// games guessed to start in the pieces cut and not yet taken (and in a
/// held one); the bytes cut so far; buffers of pieces taken, for the cutter
/// to reuse.
struct Books {
    next_index: usize,
    ahead: usize,
    cut_to: u64,
    spare: Vec<Vec<u8>>,
}

/// Locks `books`; a thread that panicked holding it left them whole (every
/// change under it is one step), so a poisoned lock is taken as it is.
fn lock(books: &Mutex<Books>) -> MutexGuard<'_, Books> {
    books.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A piece read on a reading thread, with the index it was read from.
type ReadPiece<T> = io::Result<(Piece, usize, T, Outcome)>;

/// Takes the pieces' results in stream order, checks every cut and guess
/// (reading a piece again on this thread where one was wrong) and hands
/// them to `sink`.
fn take_in_order<R: Read, T, E: From<io::Error>>(
    q: &mut Pulled<'_, Cutter<R>, ReadPiece<T>>,
    books: &Mutex<Books>,
    detail: Detail,
    work: &(dyn Fn(&mut PieceGames) -> T + Sync),
    sink: &mut PieceSink<'_, T, E>,
) -> Result<(), E> {
    let failed = |e: WorkerPanicked| io::Error::other(e);
    // A piece that ended inside a game, with its index: read it again with the next.
    let mut carry: Option<(Piece, usize)> = None;
    while let Some(done) = q.take_next() {
        let (mut piece, first, out, outcome) = done.map_err(failed)??;
        // The guesses change only below, in one step with the real count:
        // a piece cut meanwhile must never see one without the other.
        let next_index = lock(books).next_index;
        let (piece, out, outcome) = match carry.take() {
            Some((mut held, index)) => {
                // The cut before this piece was wrong: read on from the held piece.
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
                let (out, outcome) = piece.read_with(next_index, detail, work);
                (piece, out, outcome)
            }
            None => (piece, out, outcome),
        };
        if !piece.ends_cleanly(&outcome) {
            // Its games are still guessed: read again with the next piece.
            carry = Some((piece, next_index));
            continue;
        }
        let offset = {
            let mut b = lock(books);
            b.ahead = b.ahead.saturating_sub(piece.starts);
            b.next_index += outcome.games;
            b.spare.push(piece.bytes);
            b.cut_to
        };
        if !sink(out, offset)? {
            return Ok(());
        }
    }
    // Only the last piece may end inside a game, and it is never held;
    // should one be held anyway, it is read to the end here.
    if let Some((mut held, index)) = carry {
        let (out, _) = held.read_with(index, detail, work);
        let offset = lock(books).cut_to;
        sink(out, offset)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`count_starts`] the plain way: line by line.
    fn count_starts_by_lines(bytes: &[u8], after_tag: &mut bool) -> (usize, u64) {
        let mut n = 0;
        for line in bytes.split(|&b| b == b'\n') {
            if let Some(&b) = line.iter().find(|b| !b.is_ascii_whitespace()) {
                let tag = b == b'[';
                n += usize::from(tag && !*after_tag);
                *after_tag = tag;
            }
        }
        (n, bytes.iter().filter(|&&b| b == b'\n').count() as u64)
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
        assert_eq!(count_starts(pgn, &mut after_tag), (3, 10));
        assert!(after_tag);
        // Long text: the newline count goes through whole blocks of lanes.
        // ("d"'s tag runs on into the next copy's "a": one section.)
        let long = pgn.repeat(5000);
        let mut after_tag = false;
        assert_eq!(count_starts(&long, &mut after_tag), (1 + 2 * 5000, 50000));
    }
}
