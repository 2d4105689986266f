//! Games copied byte for byte: the library half of `rookery pgn filter` and
//! `rookery pgn dedupe`.
//!
//! [`copy_games`] reads a [`Source`] on one or more threads
//! ([`crate::split`]), hands every game to a *judge* on the reading threads
//! and the judged games to a *sink* on the calling thread, in input order,
//! each with its bytes exactly as they stand in the input if the judge asks
//! for them.
//!
//! A game's bytes run from its first byte (its first tag, or a comment
//! before it) to the first byte of the next game, or to the end of the
//! input: the blank lines after a game are its own. Copying every game gives
//! the input back, less what stands before the first game (a byte-order
//! mark, blank lines, `%` escape lines); copying some gives exactly those
//! games as they were written: nothing is decoded, re-encoded or re-wrapped
//! (Latin-1 stays Latin-1, CRLF stays CRLF). The bytes, the games and their
//! order are the same on any number of threads.
//!
//! The input is read as it is, not decoded: a tag value that is not UTF-8
//! holds U+FFFD where the reader met bytes it could not read as UTF-8, and
//! [`tag_value`] reads it again from the game's bytes as ISO 8859-1
//! (Latin-1), as the other verbs read such a line.
//!
//! ```
//! use rookery_pgn::copy::{copy_games, CopyPlan};
//! use rookery_pgn::source::Source;
//!
//! let pgn = b"[White \"a\"]\n1. e4 *\n\n[White \"b\"]\n1. d4 {x} *\n\n";
//! let mut kept = Vec::new();
//! copy_games(
//!     &CopyPlan::default(),
//!     Source::reader(&pgn[..]),
//!     // On the reading threads: a value for the game, and whether to copy it.
//!     &|g, _raw| {
//!         let b = g.game.tags.get("White") == Some("b");
//!         (b, b)
//!     },
//!     &mut |_bytes_done| {},
//!     // On the calling thread, in input order.
//!     &mut |c| -> Result<bool, std::io::Error> {
//!         if c.value {
//!             kept.extend_from_slice(c.bytes.unwrap_or_default());
//!         }
//!         Ok(true) // go on
//!     },
//! )?;
//! assert_eq!(kept, b"[White \"b\"]\n1. d4 {x} *\n\n");
//! # Ok::<(), rookery_pgn::stream::StreamError<std::io::Error>>(())
//! ```

use std::borrow::Cow;
use std::ops::Range;

use crate::game::{Detail, ReadGame};
use crate::reader::parse_tag;
use crate::source::{Reading, Source};
use crate::split::PieceGames;
use crate::stream::{Diag, StreamError};
use crate::types::{Location, RawTag};

/// How to read an input for [`copy_games`].
#[derive(Clone)]
pub struct CopyPlan {
    /// Reading threads (at least one; the calling thread only takes the
    /// results).
    pub jobs: usize,
    /// Bytes a piece of input, about (see [`crate::split`]).
    pub chunk_bytes: usize,
    /// How much of each game the judge needs (see [`Detail`]); every move
    /// is checked at any detail.
    pub detail: Detail,
    /// Leave the warnings out of [`Copied::warnings`] (they are still
    /// counted).
    pub quiet: bool,
    /// Read past the tags only the games this lets through (see
    /// [`crate::game::GameBuilder::set_gate`]): the others are handed to
    /// the judge with [`ReadGame::skipped`], unchecked. For a judge whose
    /// verdict the tags alone decide for such games.
    pub gate: Option<crate::game::TagGate>,
}

impl std::fmt::Debug for CopyPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CopyPlan")
            .field("jobs", &self.jobs)
            .field("chunk_bytes", &self.chunk_bytes)
            .field("detail", &self.detail)
            .field("quiet", &self.quiet)
            .field("gate", &self.gate.as_ref().map(|_| "a gate on tags"))
            .finish()
    }
}

impl Default for CopyPlan {
    /// One thread, 1 MiB pieces, [`Detail::Count`], warnings reported.
    fn default() -> CopyPlan {
        CopyPlan {
            jobs: 1,
            chunk_bytes: 1 << 20,
            detail: Detail::Count,
            quiet: false,
            gate: None,
        }
    }
}

/// A judged game, handed to the sink in input order.
#[derive(Debug)]
pub struct Copied<'a, T> {
    /// Its index in the input, from 1.
    pub index: usize,
    /// Where it starts.
    pub at: Location,
    /// What the judge said of it.
    pub value: T,
    /// Its bytes, as they stand in the input (see the module
    /// documentation); `None` if the judge did not ask for them.
    pub bytes: Option<&'a [u8]>,
    /// Why it could not be read to its end, if it could not.
    pub error: Option<Diag>,
    /// Its warnings (none if the plan is quiet).
    pub warnings: Vec<Diag>,
    /// How many warnings it had, reported or not.
    pub warning_count: usize,
    /// The line of its first tag value that is not UTF-8 (read as Latin-1
    /// by [`tag_value`]), if it has one.
    pub latin1_line: Option<u64>,
}

/// One game judged on a reading thread: [`Copied`] with its bytes as a
/// range of its piece's (or, held for the next piece, of its own).
struct Entry<T> {
    index: usize,
    at: Location,
    value: T,
    span: Option<Range<usize>>,
    error: Option<Diag>,
    warnings: Vec<Diag>,
    warning_count: usize,
    latin1_line: Option<u64>,
}

/// What a reading thread made of one piece: its games, each with the range
/// of the piece's bytes it runs over if the sink wants them (the last one
/// to the piece's end), and the range of the bytes before its first game
/// (the end of the game before it, in the piece before; the whole piece if
/// no game starts in it). The bytes stay in the piece, which the sink
/// borrows ([`crate::split`]'s lent pieces): nothing is copied on the
/// reading thread.
struct Batch<T> {
    lead: Range<usize>,
    games: Vec<Entry<T>>,
}

/// Where stream offset `offset` is in a piece of `len` bytes starting at
/// offset `base` (within it: every game of a piece is).
fn within(offset: u64, base: u64, len: usize) -> usize {
    usize::try_from(offset.saturating_sub(base)).map_or(len, |i| i.min(len))
}

/// The judge: on a reading thread, a game and its own bytes (from its
/// first byte to the end of its termination marker) give a value and
/// whether the sink wants the game's bytes.
pub type Judge<'a, T> = dyn Fn(&ReadGame, &[u8]) -> (T, bool) + Sync + 'a;

/// Where [`copy_games`] hands the games, in input order; it returns
/// `false` to stop.
pub type CopySink<'a, T, E> = dyn FnMut(Copied<'_, T>) -> Result<bool, E> + 'a;

/// Judges the games of one piece (on a reading thread).
fn judge_piece<T>(
    games: &mut PieceGames,
    judge: &Judge<'_, T>,
    quiet: bool,
    gate: &Option<crate::game::TagGate>,
) -> Batch<T> {
    games.set_gate(gate.clone());
    let mut batch = Batch {
        lead: 0..0,
        games: Vec::new(),
    };
    // The game read last, with where it starts: its bytes end where the
    // next one starts.
    let mut pending: Option<(Entry<T>, usize)> = None;
    let mut first = true;
    while let Some(g) = games.next() {
        let (input, base) = games.input();
        let start = within(g.at.offset, base, input.len());
        let end = within(games.offset(), base, input.len()).max(start);
        if first {
            batch.lead = 0..start;
            first = false;
        }
        if let Some((mut entry, from)) = pending.take() {
            if entry.span.is_some() {
                entry.span = Some(from..start);
            }
            batch.games.push(entry);
        }
        let raw = &input[start..end];
        let (value, copy) = judge(&g, raw);
        let entry = Entry {
            index: g.index,
            at: g.at,
            value,
            // (Its end is set once the next game's start is known.)
            span: copy.then_some(start..start),
            error: g.error.as_ref().map(|e| Diag::of_error(e, g.index)),
            warnings: if quiet {
                Vec::new()
            } else {
                g.warnings
                    .iter()
                    .map(|w| Diag::of_warning(w, g.index))
                    .collect()
            },
            warning_count: g.warnings.len(),
            latin1_line: latin1_line(&g, raw),
        };
        pending = Some((entry, start));
        games.recycle(g);
    }
    let len = games.input().0.len();
    match pending {
        Some((mut entry, from)) => {
            if entry.span.is_some() {
                entry.span = Some(from.min(len)..len);
            }
            batch.games.push(entry);
        }
        None => batch.lead = 0..len,
    }
    batch
}

/// The line of the first tag value of `g` that is not UTF-8 in `raw`, the
/// game's bytes.
fn latin1_line(g: &ReadGame, raw: &[u8]) -> Option<u64> {
    // The reader put U+FFFD where it met bytes that are not UTF-8; a
    // U+FFFD written in UTF-8 is looked at too, and found to be UTF-8.
    g.game
        .tags
        .iter()
        .filter(|(_, v)| v.contains('\u{FFFD}'))
        .find_map(|(name, _)| {
            let (_, latin1) = raw_value(g, raw, name)?;
            latin1.then(|| g.tag_location(name).line)
        })
}

/// The value of the tag `name` of game `g` read again from `raw`, the
/// game's bytes: the text, and whether it was read as Latin-1 (it is not
/// UTF-8).
fn raw_value(g: &ReadGame, raw: &[u8], name: &str) -> Option<(String, bool)> {
    let at = g.tag_location(name);
    let from = usize::try_from(at.offset.checked_sub(g.at.offset)?).ok()?;
    let line = raw.get(from..)?;
    let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
    let (_, value, _) = parse_tag(line)?;
    let bytes = RawTag(value).unescape();
    match std::str::from_utf8(&bytes) {
        Ok(text) => Some((text.to_owned(), false)),
        Err(_) => {
            let mut text = String::with_capacity(bytes.len() * 2);
            rookery_epd::latin1::decode_into(&bytes, &mut text);
            Some((text, true))
        }
    }
}

/// The value of the tag `name` of game `g`, whose bytes are `raw` (as the
/// judge gets them): the game's own ([`crate::Tags::get`]), unless it holds
/// U+FFFD; then the value as written, read as ISO 8859-1 (Latin-1) if it is
/// not UTF-8, as the verbs that decode their input read such a line.
pub fn tag_value<'a>(g: &'a ReadGame, raw: &[u8], name: &str) -> Option<Cow<'a, str>> {
    let value = g.game.tags.get(name)?;
    if !value.contains('\u{FFFD}') {
        return Some(Cow::Borrowed(value));
    }
    Some(match raw_value(g, raw, name) {
        Some((text, _)) => Cow::Owned(text),
        None => Cow::Borrowed(value),
    })
}

/// Hands the games of each batch to `sink` in input order, with their
/// bytes: the last game of a batch waits for the next batch, whose bytes
/// before its first game end it (its own bytes are copied to be held: one
/// game a piece).
struct InOrder<'s, 'f, T, E> {
    sink: &'s mut CopySink<'f, T, E>,
    /// The last game of the batches taken so far, its span in `own`.
    held: Option<Entry<T>>,
    /// The held game's bytes so far (if the sink wants them).
    own: Vec<u8>,
    stopped: bool,
}

impl<T, E> InOrder<'_, '_, T, E> {
    fn new<'s, 'f>(sink: &'s mut CopySink<'f, T, E>) -> InOrder<'s, 'f, T, E> {
        InOrder {
            sink,
            held: None,
            own: Vec::new(),
            stopped: false,
        }
    }

    fn deliver(&mut self, e: Entry<T>, bytes: &[u8]) -> Result<(), E> {
        if self.stopped {
            return Ok(());
        }
        let go_on = (self.sink)(Copied {
            index: e.index,
            at: e.at,
            value: e.value,
            bytes: e.span.map(|r| &bytes[r]),
            error: e.error,
            warnings: e.warnings,
            warning_count: e.warning_count,
            latin1_line: e.latin1_line,
        })?;
        self.stopped = !go_on;
        Ok(())
    }

    /// Hands over the held game.
    fn release(&mut self, e: Entry<T>) -> Result<(), E> {
        let own = std::mem::take(&mut self.own);
        let done = self.deliver(e, &own);
        self.own = own;
        self.own.clear();
        done
    }

    /// Takes the next batch, read from `bytes`; `false` once the sink
    /// asked to stop.
    fn take(&mut self, mut batch: Batch<T>, bytes: &[u8]) -> Result<bool, E> {
        if let Some(mut e) = self.held.take() {
            // The bytes before this batch's first game end the held game.
            if e.span.is_some() {
                self.own.extend_from_slice(&bytes[batch.lead.clone()]);
                e.span = Some(0..self.own.len());
            }
            if batch.games.is_empty() {
                self.held = Some(e);
                return Ok(!self.stopped);
            }
            self.release(e)?;
        }
        // Nothing before the first game is a game's: it is left out.
        let Some(mut last) = batch.games.pop() else {
            return Ok(!self.stopped);
        };
        for e in batch.games {
            self.deliver(e, bytes)?;
        }
        if let Some(span) = last.span.take() {
            self.own.extend_from_slice(&bytes[span]);
            last.span = Some(0..self.own.len());
        }
        self.held = Some(last);
        Ok(!self.stopped)
    }

    /// Hands over the last game.
    fn finish(mut self) -> Result<(), E> {
        match self.held.take() {
            Some(e) => self.release(e),
            None => Ok(()),
        }
    }
}

/// Reads `source` as `plan` says, its bytes as they are (not decoded: see
/// [`tag_value`]): `judge` sees every game on the reading threads, `sink`
/// gets them in input order with their bytes (see [`Copied`]); `progress`
/// hears the input bytes done now and then.
///
/// # Errors
/// [`StreamError::Read`] if the input cannot be read (or a reading thread
/// panicked; an input read at offsets that got shorter while read),
/// [`StreamError::Sink`] with the first error of `sink`.
pub fn copy_games<T: Send, E>(
    plan: &CopyPlan,
    source: Source<'_>,
    judge: &Judge<'_, T>,
    progress: &mut dyn FnMut(u64),
    sink: &mut CopySink<'_, T, E>,
) -> Result<(), StreamError<E>> {
    let quiet = plan.quiet;
    let work = |games: &mut PieceGames| judge_piece(games, judge, quiet, &plan.gate);
    let mut order = InOrder::new(sink);
    let reading = Reading {
        jobs: plan.jobs,
        chunk_bytes: plan.chunk_bytes,
        detail: plan.detail,
        decode: false,
    };
    source.pieces(reading, true, &work, &mut |batch, bytes, done| {
        progress(done);
        order.take(batch, bytes).map_err(StreamError::Sink)
    })?;
    order.finish().map_err(StreamError::Sink)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every game of `input` as `copy_games` hands it over on `jobs`
    /// threads with pieces of about `chunk` bytes: index, line, bytes.
    fn all(input: &[u8], jobs: usize, chunk: usize, at: bool) -> Vec<(usize, u64, Vec<u8>)> {
        let plan = CopyPlan {
            jobs,
            chunk_bytes: chunk,
            ..CopyPlan::default()
        };
        let mut out = Vec::new();
        let mut sink = |c: Copied<'_, ()>| -> Result<bool, std::io::Error> {
            out.push((c.index, c.at.line, c.bytes.unwrap_or_default().to_vec()));
            Ok(true)
        };
        let judge = |_: &ReadGame, _: &[u8]| ((), true);
        let source = if at {
            Source::file(input)
        } else {
            Source::reader(input)
        };
        copy_games(&plan, source, &judge, &mut |_| {}, &mut sink).unwrap();
        out
    }

    const GAMES: &[u8] = b"\xef\xbb\xbf\n% escape\n[Event \"a\"]\r\n[White \"x\"]\r\n\r\n1. e4 {c} e5 *\r\n\r\n\
        {before} [Event \"b\"]\n1. d4 (1. c4 c5) d5 1-0 {after}\n\n\n[Event \"c\"]\n1. Nf3 {never closed\n\n\
        [Event \"d\"]\n1. e4 e5 2. Qh5 0-1\n\n% between\n\n[Event \"e\"]\n[Site \"no moves\"]\n\n*\n\n\
        [Event \"f\"]\n1. e4 Ke7 2. Ke2 1/2-1/2   \n";

    #[test]
    fn every_game_copied_gives_the_input_back_after_the_first_game() {
        let whole = all(GAMES, 1, 1 << 20, false);
        assert_eq!(whole.len(), 6);
        let joined: Vec<u8> = whole.iter().flat_map(|g| g.2.clone()).collect();
        let first = GAMES.windows(6).position(|w| w == b"[Event").unwrap();
        assert_eq!(joined, &GAMES[first..]);
        assert_eq!(
            whole[0].2,
            b"[Event \"a\"]\r\n[White \"x\"]\r\n\r\n1. e4 {c} e5 *\r\n\r\n"
        );
        assert_eq!(
            whole[1].2,
            b"{before} [Event \"b\"]\n1. d4 (1. c4 c5) d5 1-0 {after}\n\n\n"
        );
        assert_eq!(
            whole[3].2,
            b"[Event \"d\"]\n1. e4 e5 2. Qh5 0-1\n\n% between\n\n"
        );
    }

    #[test]
    fn the_bytes_are_the_same_on_any_number_of_threads_and_pieces() {
        let mut big = Vec::new();
        for i in 0..40 {
            // (The byte-order mark only at the start: elsewhere it is a token.)
            big.extend_from_slice(if i == 0 { GAMES } else { &GAMES[3..] });
            // Latin-1 bytes, and a game without tags (a guess the cutter gets wrong).
            big.extend_from_slice(format!("[Event \"caf\u{e9} {i}\"]\n").as_bytes());
            big.extend_from_slice(b"[White \"M\xfcller\"]\n\n1. e4 *\n1. d4 *\n\n\n");
        }
        let one = all(&big, 1, 1 << 20, false);
        assert_eq!(one.len(), 40 * 8);
        for (jobs, chunk) in [(1, 64), (2, 100), (3, 1000), (2, 1)] {
            for at in [false, true] {
                assert_eq!(all(&big, jobs, chunk, at), one, "jobs {jobs} chunk {chunk}");
            }
        }
    }

    #[test]
    fn a_value_that_is_not_utf8_is_read_as_latin1() {
        let pgn =
            b"[Event \"a\"]\n[White \"M\xfcller, \\\"K\\\"\"]\n[Black \"S\xc3\xa9\"]\n\n1. e4 *\n";
        let plan = CopyPlan::default();
        let mut seen = Vec::new();
        copy_games(
            &plan,
            Source::reader(&pgn[..]),
            &|g, raw| {
                let t = |n| tag_value(g, raw, n).map(Cow::into_owned);
                ((t("White"), t("Black"), t("Event")), false)
            },
            &mut |_| {},
            &mut |c| -> Result<bool, std::io::Error> {
                seen.push((c.value, c.latin1_line));
                Ok(true)
            },
        )
        .unwrap();
        let names = (
            Some("Müller, \"K\"".to_owned()),
            Some("Sé".to_owned()),
            Some("a".to_owned()),
        );
        assert_eq!(seen, [(names, Some(2))]);
    }
}
