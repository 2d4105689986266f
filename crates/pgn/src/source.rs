//! One PGN source for every verb: a stream, a file read at offsets, a
//! shard's part of either, compressed or not, all behind one type.
//!
//! Every verb that reads games (`validate`, `normalize`, `stats`, `eco`,
//! `tree`, `filter`, `dedupe`, `split`, `sort`, `cat`, the indexed
//! database's import) takes a [`Source`] once, and reads it through one core
//! ([`Source::for_each_piece`]: the games on `jobs` threads, the results in
//! order; or [`Source::into_text`]: the text in order, on the calling
//! thread). The doors are thin, as ripgrep's `search_file`,
//! `search_reader` and `search_slice` lead into one `Searcher`:
//! [`Source::reader`] (a stream: stdin, a decompressing reader, bytes),
//! [`Source::file`] (an input every thread reads at any offset: each thread
//! reads its own pieces), [`Source::input`] (an opened
//! [`rookery_io::input::Input`]: a plain regular file at offsets, anything
//! else as the stream it is, with the damage of its compressed data kept),
//! and [`Source::part`] (a shard's part of any of them, which
//! [`game_span`] finds). Which way the bytes are read is the source's
//! business, never the verb's: the games, their indices, locations, errors
//! and the order of the results are the same every way.
//!
//! How the text is read is the verb's: [`Reading::decode`] reads a line that
//! is not UTF-8 as Latin-1 (as [`rookery_io::latin1::Latin1Read`] does, the
//! first such line told to [`Source::on_latin1`]'s listener); without it
//! the bytes are read as they are (the copying verbs, which write them
//! back untouched).
//!
//! ```
//! use rookery_pgn::game::Detail;
//! use rookery_pgn::source::{Reading, Source};
//!
//! let pgn = b"[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 d5 *\n\n[Event \"c\"]\n\n1. c4 *\n";
//! let reading = Reading { jobs: 2, chunk_bytes: 16, detail: Detail::Full, decode: true };
//! // A stream and the same bytes read at offsets give the same games.
//! for source in [Source::reader(&pgn[..]), Source::file(&pgn[..])] {
//!     let mut found = Vec::new();
//!     source.for_each_piece(
//!         reading,
//!         &|games| games.map(|g| (g.index, g.at.line)).collect::<Vec<_>>(), // on the threads
//!         &mut |batch, _bytes_done| -> std::io::Result<bool> {
//!             found.extend(batch); // in input order
//!             Ok(true) // go on
//!         },
//!     )?;
//!     assert_eq!(found, [(1, 1), (2, 5), (3, 9)]);
//! }
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Read};
use std::ops::Range;

use rookery_io::input::{Damage, Input};
use rookery_io::latin1::Latin1Read;
use rookery_io::ReadAt;

use crate::game::Detail;
use crate::split::{from_file, from_stream, LentSink, PieceGames, PieceSink, Start};
use crate::types::Location;

/// Who hears the number of the first line that is not UTF-8 (read as
/// Latin-1, or copied as it is).
type Tell<'a> = Box<dyn FnMut(u64) + Send + 'a>;

/// Where the games come from, and how the input says it is best read (see
/// the module documentation).
pub struct Source<'a> {
    text: Text<'a>,
    /// The input's length in bytes (a hint for the cutter's sizing).
    len: Option<u64>,
    /// A shard's part: where it starts and the byte it ends at (`None`: the
    /// end of the text).
    part: Option<(Start, Option<u64>)>,
    damage: Damage,
    latin1: Option<Tell<'a>>,
}

/// The bytes of a [`Source`].
enum Text<'a> {
    /// Read once, in order.
    Stream(Box<dyn Read + Send + 'a>),
    /// Read at any offset, by every thread.
    At(Box<dyn ReadAt + Sync + Send + 'a>),
    /// An opened input: at offsets if it is a regular file of plain text.
    Input(Input),
}

impl std::fmt::Debug for Source<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match &self.text {
            Text::Stream(_) => "stream",
            Text::At(_) => "at offsets",
            Text::Input(_) if self.at_offsets().is_some() => "file at offsets",
            Text::Input(_) => "input stream",
        };
        f.debug_struct("Source")
            .field("text", &text)
            .field("len", &self.len)
            .field("part", &self.part)
            .finish_non_exhaustive()
    }
}

/// How a verb reads a [`Source`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// Reading threads (at least one; the calling thread takes the results).
    pub jobs: usize,
    /// Bytes a piece of input, about (see [`crate::split`]).
    pub chunk_bytes: usize,
    /// How much of each game to keep (see [`Detail`]).
    pub detail: Detail,
    /// Read a line that is not UTF-8 as Latin-1 (locations are then those
    /// of the decoded text), else the bytes as they are.
    pub decode: bool,
}

impl<'a> Source<'a> {
    fn of(text: Text<'a>) -> Source<'a> {
        Source {
            text,
            len: None,
            part: None,
            damage: Damage::default(),
            latin1: None,
        }
    }

    /// A stream, read once in order: stdin, a pipe, a decompressing
    /// reader, bytes in memory. With several threads, they take turns at
    /// cutting it.
    pub fn reader(input: impl Read + Send + 'a) -> Source<'a> {
        Source::of(Text::Stream(Box::new(input)))
    }

    /// An input every thread can read at any offset (a file, bytes in
    /// memory): each thread reads its own pieces, at once with the others;
    /// one thread gets its pieces from a thread that reads them ahead.
    pub fn file(input: impl ReadAt + Sync + Send + 'a) -> Source<'a> {
        Source::of(Text::At(Box::new(input)))
    }

    /// An open file read at offsets ([`Source::file`]), its length (for
    /// [`Source::with_len`]) asked of the system.
    pub fn file_sized(file: std::fs::File) -> Source<'a> {
        let len = file.metadata().ok().map(|m| m.len());
        let source = Source::file(file);
        match len {
            Some(n) => source.with_len(n),
            None => source,
        }
    }

    /// An opened input ([`Input::open`]): a regular file of plain text is
    /// read at offsets, its length known; anything else (stdin, a pipe, a
    /// compressed file's text) as a stream, whose text may end early where
    /// its compressed data is damaged ([`Source::damage`]).
    pub fn input(input: Input) -> Source<'a> {
        let len = input
            .file()
            .and_then(|f| f.metadata().ok())
            .map(|m| m.len());
        let damage = input.damage();
        Source {
            len,
            damage,
            ..Source::of(Text::Input(input))
        }
    }

    /// Tells the input's length in bytes: towards the end, pieces shrink
    /// so that the threads finish together. A hint: a wrong one changes
    /// only where the pieces are cut.
    pub fn with_len(mut self, len: u64) -> Source<'a> {
        self.len = Some(len);
        self
    }

    /// Tells the source's damage: a stream read from an input whose
    /// compressed data may be damaged ([`Input::damage`]), where
    /// [`Source::input`] cannot be used (the stream wraps the input).
    pub fn with_damage(mut self, damage: Damage) -> Source<'a> {
        self.damage = damage;
        self
    }

    /// Only a shard's part of the text: from `start` (where its first game
    /// starts and that game's index, as [`game_span`] finds them) to the
    /// byte `end` of the text (`None`: to its end), read as a stream (the
    /// text before it read and skipped: its offsets are those of the text
    /// as the verb reads it, decoded or not). The games' locations and
    /// indices are those of the whole text; a line that is not UTF-8 before
    /// the part is not told.
    pub fn part(mut self, start: Start, end: Option<u64>) -> Source<'a> {
        self.part = Some((start, end));
        self
    }

    /// Who hears the number (from 1) of the first line that is not UTF-8,
    /// once: read as Latin-1 ([`Reading::decode`]), or copied as it is (a
    /// verb that tells it from its results, [`crate::eco::run`]).
    pub fn on_latin1(mut self, tell: impl FnMut(u64) + Send + 'a) -> Source<'a> {
        self.latin1 = Some(Box::new(tell));
        self
    }

    /// The input's length in bytes, if known (a whole input, not a part).
    pub fn input_len(&self) -> Option<u64> {
        self.len.filter(|_| self.part.is_none())
    }

    /// Where the text read begins in the whole text: the start of a part,
    /// else the start of a text.
    pub fn start(&self) -> Start {
        self.part.map(|(start, _)| start).unwrap_or_default()
    }

    /// The handle that tells, once the source is read, whether its text
    /// ended early because its compressed data was damaged (never, for a
    /// source that is not an [`Input`]).
    pub fn damage(&self) -> Damage {
        self.damage.clone()
    }

    /// Takes the listener of [`Source::on_latin1`], for a verb that tells
    /// the first such line from its results.
    pub(crate) fn take_latin1(&mut self) -> Option<Tell<'a>> {
        self.latin1.take()
    }

    /// The input to read at offsets, if it is one and the whole of it is
    /// read.
    fn at_offsets(&self) -> Option<&(dyn ReadAt + Sync)> {
        if self.part.is_some() {
            return None;
        }
        match &self.text {
            Text::At(at) => Some(at.as_ref()),
            Text::Input(input) => input.file().map(|f| f as &(dyn ReadAt + Sync)),
            Text::Stream(_) => None,
        }
    }

    /// The text read in order on the calling thread: decoded from Latin-1
    /// where a line is not UTF-8 if `decode`, from the start of the part
    /// (see [`Source::start`]) to its end.
    ///
    /// # Errors
    /// Reading the text before a part.
    pub fn into_text(mut self, decode: bool) -> io::Result<Box<dyn Read + Send + 'a>> {
        let tell = self.latin1.take();
        let raw: Box<dyn Read + Send + 'a> = match self.text {
            Text::Stream(r) => r,
            Text::At(at) => Box::new(Offsets { input: at, at: 0 }),
            Text::Input(input) => Box::new(input),
        };
        // A line before the part was told by the shard whose part holds it.
        let first = self.part.map_or(0, |(start, _)| start.at.line);
        let text: Box<dyn Read + Send + 'a> = match (decode, tell) {
            (true, Some(mut tell)) => Box::new(Latin1Read::new(raw, move |line| {
                if line >= first {
                    tell(line);
                }
            })),
            (true, None) => Box::new(Latin1Read::new(raw, |_| {})),
            (false, _) => raw,
        };
        match self.part {
            Some((start, end)) => Ok(Box::new(part_of(text, start, end)?)),
            None => Ok(text),
        }
    }

    /// Runs `work` over the games of the source on `how.jobs` threads and
    /// hands its results to `sink` in input order, with the number of input
    /// bytes cut so far; `sink` returns `false` to stop early. The games
    /// `work` sees, their indices, locations, errors and warnings, are
    /// exactly those one [`crate::Games`] reader over the whole text gives
    /// (see [`crate::split`]); `work` may run more than once on the same
    /// games (only one result reaches `sink`), so it should have no other
    /// effect, and may hand the games back for reuse
    /// ([`PieceGames::recycle`]).
    ///
    /// # Errors
    /// An I/O error reading the source (an input read at offsets that is
    /// shorter than when its pieces were cut, changed while read, is one),
    /// or the first error `sink` returns.
    pub fn for_each_piece<T: Send, E: From<io::Error>>(
        self,
        how: Reading,
        work: &(dyn Fn(&mut PieceGames) -> T + Sync),
        sink: &mut PieceSink<'_, T, E>,
    ) -> Result<(), E> {
        let sink = &mut |out, _: &[u8], done| sink(out, done);
        self.pieces(how, false, work, sink)
    }

    /// [`Source::for_each_piece`], `sink` also getting the bytes the
    /// result's games were read from (`lend`: a result that points into
    /// them, [`crate::copy`]; a thread then keeps no piece's buffer for
    /// its next piece).
    pub(crate) fn pieces<T: Send, E: From<io::Error>>(
        mut self,
        how: Reading,
        lend: bool,
        work: &(dyn Fn(&mut PieceGames) -> T + Sync),
        sink: &mut LentSink<'_, T, E>,
    ) -> Result<(), E> {
        let size = (how.chunk_bytes, self.input_len());
        let mut tell = self.latin1.take();
        if let Some(at) = self.at_offsets() {
            let mut quiet = |_: u64| {};
            let latin1: Option<&mut dyn FnMut(u64)> = match (how.decode, tell.as_mut()) {
                (false, _) => None,
                (true, Some(tell)) => Some(tell.as_mut()),
                (true, None) => Some(&mut quiet),
            };
            return from_file(at, (how.jobs, lend), size, how.detail, work, sink, latin1);
        }
        self.latin1 = tell;
        let start = self.start();
        let text = self.into_text(how.decode)?;
        from_stream(text, (start, lend), how.jobs, size, how.detail, work, sink)
    }
}

/// A [`ReadAt`] input read in order, as a stream.
struct Offsets<'a> {
    input: Box<dyn ReadAt + Sync + Send + 'a>,
    at: u64,
}

impl Read for Offsets<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// `text` from byte `start.at.offset` to byte `end` (`None`: to its end):
/// a part [`game_span`] found.
fn part_of<R: Read>(mut text: R, start: Start, end: Option<u64>) -> io::Result<io::Take<R>> {
    io::copy(&mut (&mut text).take(start.at.offset), &mut io::sink())?;
    let len = end.map_or(u64::MAX, |e| e.saturating_sub(start.at.offset));
    Ok(text.take(len))
}

/// A reader's visitor that keeps only where a game starts: its movetext
/// is skipped (tokenized to find its end, as every reader finds it, but
/// no move is played), so that counting the games of a large input costs
/// little beside the work of a shard.
struct GameStart(Location);

impl crate::Visitor for GameStart {
    type Output = Location;
    fn begin_game(&mut self, at: Location) {
        self.0 = at;
    }
    fn end_tags(&mut self) -> crate::Skip {
        crate::Skip(true)
    }
    fn end_game(&mut self) -> Location {
        self.0
    }
}

/// Where each game of the PGN text `text` starts, in order, as the reader
/// finds the games (as every verb does), until `each` says stop (`false`).
fn game_starts(text: impl Read, each: &mut dyn FnMut(Location) -> bool) -> io::Result<()> {
    let mut reader = crate::Reader::new(text);
    let mut start = GameStart(reader.location());
    while let Some(at) = reader.read_game(&mut start)? {
        if !each(at) {
            break;
        }
    }
    Ok(())
}

/// The games of the PGN text `text`, counted as every verb finds them, and
/// the byte offset in `text` where game `stop_after + 1` (from 1) starts:
/// the end of the games up to `stop_after` (`None` past the last game).
///
/// # Errors
/// The text cannot be read.
pub fn count_games(text: impl Read, stop_after: Option<u64>) -> io::Result<(u64, Option<u64>)> {
    let mut games = 0;
    let mut end = None;
    game_starts(text, &mut |at| {
        games += 1;
        if stop_after.is_some_and(|s| games > s) {
            end = Some(at.offset);
            return false;
        }
        true
    })?;
    Ok((games, end))
}

/// Where the games `range` (from 0) of the PGN text `text` lie, as every
/// verb finds them: where the first starts (its location and index: the
/// [`Start`] of [`Source::part`]) and the offset where the game after the
/// last starts (`None`: the part runs to the end of the text). Give it the
/// text as the verb reads it (decoded or not: see [`Reading::decode`]).
///
/// # Errors
/// The text cannot be read.
pub fn game_span(text: impl Read, range: Range<u64>) -> io::Result<(Start, Option<u64>)> {
    let mut games: u64 = 0;
    let mut start = None;
    let mut end = None;
    game_starts(text, &mut |at| {
        if games == range.start {
            start = Some(at);
        }
        if games == range.end {
            end = Some(at.offset);
            return false;
        }
        games += 1;
        true
    })?;
    let index = usize::try_from(range.start + 1).unwrap_or(usize::MAX);
    Ok(match start {
        Some(at) => (Start { at, index }, end),
        // A part past the last game: nothing of the text.
        None => (
            Start {
                index,
                ..Start::default()
            },
            Some(0),
        ),
    })
}
