//! `rookery pgn eco` over a stream: every game written with the tags of its
//! opening ([`super::retag`]) and every other byte as it was, in input order,
//! on any number of threads with the same output (see [`crate::split`]).
//!
//! A game that already has any of the opening tags is copied as it is when
//! the task keeps them (`keep`); so is a game the table names no position of
//! (none among its first [`super::MAX_PLIES`] plies) and, reported, a game
//! with an error (an illegal move: nothing is dropped). What lies between
//! games (blank lines, a byte-order mark) is copied too, so that a file
//! whose games all keep their tags comes out byte for byte as it went in.
//! The input is read as it is, not decoded: a line that is not UTF-8
//! (Latin-1, as the PGN standard's character set) is copied as it was,
//! and only the tag lines written are UTF-8 (an opening's name, such as
//! "Grünfeld Defense"); every reader of rookery reads such a file line by
//! line. The first line that is not UTF-8 is told ([`Part::latin1_line`]).
//!
//! ```
//! use rookery_pgn::source::Source;
//! use rookery_pgn::stream::{run, Plan, Task};
//!
//! let pgn = b"[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n[ECO \"C00\"]\n\n1. e4 e6 2. d4 d5 *\n\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 *\n";
//! let plan = Plan::new(Task::Eco { keep: true });
//! let mut out = Vec::new();
//! let mut tagged = Default::default();
//! run(&plan, Source::reader(&pgn[..]), "in.pgn", &mut |_| {}, &mut |part| -> Result<(), std::io::Error> {
//!     out.extend(part.text);
//!     tagged = part.stats.tagged;
//!     Ok(())
//! })?;
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.starts_with("[Event \"a\"]\n[ECO \"C60\"]\n[Opening \"Ruy Lopez\"]\n\n1. e4 e5"));
//! // The second game keeps its tag; the third, an ending, has no opening.
//! assert!(out.ends_with("[ECO \"C00\"]\n\n1. e4 e6 2. d4 d5 *\n\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 Kd7 *\n"));
//! assert_eq!((tagged.named, tagged.kept, tagged.unnamed), (1, 1, 1));
//! # Ok::<(), rookery_pgn::stream::StreamError<std::io::Error>>(())
//! ```

use super::retag;
use crate::game::{Detail, ReadGame};
use crate::source::Source;
use crate::split::PieceGames;
use crate::stream::{count_eco, count_eco_tag, report, Part, Plan, StreamError};

/// What `pgn eco` did to the games without errors (mergeable).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tagged {
    /// Games given the tags of the opening found.
    pub named: u64,
    /// Games that had opening tags and kept them (`keep`).
    pub kept: u64,
    /// Games in no named position among their first plies, copied as they are.
    pub unnamed: u64,
}

impl Tagged {
    /// Adds the counts of `o`.
    pub fn merge(&mut self, o: Tagged) {
        self.named += o.named;
        self.kept += o.kept;
        self.unnamed += o.unnamed;
    }
}

/// [`crate::stream::run`] for [`crate::stream::Task::Eco`]: reads `source`
/// (as it is, not decoded: every byte but the opening tags is copied) on
/// `plan.jobs` threads and hands the text and the problems to `sink` in
/// input order, the first line that is not UTF-8 in [`Part::latin1_line`]
/// (and told to the source's listener, [`Source::on_latin1`], once).
///
/// # Errors
/// As [`crate::stream::run`].
pub fn run<E>(
    plan: &Plan,
    keep: bool,
    mut source: Source<'_>,
    progress: &mut dyn FnMut(u64),
    sink: &mut dyn FnMut(Part) -> Result<(), E>,
) -> Result<(), StreamError<E>> {
    let work = |games: &mut PieceGames| piece(plan, keep, games);
    let mut latin1 = source.take_latin1();
    source.for_each_piece(
        plan.reading(Detail::Count, false),
        &work,
        &mut |part: Part, bytes| {
            progress(bytes);
            if let Some(line) = part.latin1_line {
                if let Some(mut tell) = latin1.take() {
                    tell(line);
                }
            }
            let go_on = !part.stopped;
            sink(part).map_err(StreamError::Sink)?;
            Ok(go_on)
        },
    )
}

/// The text and problems of one piece of the input: its games, and the
/// bytes around them as they are.
fn piece(plan: &Plan, keep: bool, games: &mut PieceGames) -> Part {
    let mut part = plan.task.new_part();
    // The piece's text and the tags added (a few lines a game): room made
    // once, not grown and copied along the way.
    let len = games.input().0.len();
    part.text = Vec::with_capacity(len + len / 16);
    // Stream offset up to which the piece's text is written.
    let mut written = games.input().1;
    while let Some(g) = games.next() {
        let end = games.offset();
        let (bytes, base) = games.input();
        let at = |offset: u64| {
            usize::try_from(offset.saturating_sub(base)).map_or(bytes.len(), |i| i.min(bytes.len()))
        };
        let (from, start) = (at(written), at(g.at.offset));
        let end = at(end).max(start);
        // Blank lines (or a byte-order mark) before the game.
        part.text.extend_from_slice(&bytes[from..start.max(from)]);
        game(
            plan,
            keep,
            &g,
            &bytes[start.max(from)..end],
            g.at.offset,
            &mut part,
        );
        written = base + end as u64;
        games.recycle(g);
        if part.stopped {
            return part;
        }
    }
    // Blank lines after the piece's last game.
    let (bytes, base) = games.input();
    let from =
        usize::try_from(written.saturating_sub(base)).map_or(bytes.len(), |i| i.min(bytes.len()));
    part.text.extend_from_slice(&bytes[from..]);
    part
}

/// Writes one game, whose text is `text` (at stream offset `base`).
fn game(plan: &Plan, keep: bool, g: &ReadGame, text: &[u8], base: u64, part: &mut Part) {
    part.open_last = None;
    if part.latin1_line.is_none() {
        if let Err(e) = std::str::from_utf8(text) {
            let before = &text[..e.valid_up_to()];
            part.latin1_line = Some(g.at.line + memchr::memchr_iter(b'\n', before).count() as u64);
        }
    }
    let text_from = part.text.len();
    if report(plan, g, part) {
        let tagged = part.stats.tagged;
        let code = tag_game(keep, g, text, base, part);
        part.open_last = crate::stream::is_open(g).then(|| {
            let now = part.stats.tagged;
            crate::stream::OpenGame {
                index: g.index,
                at: g.at,
                text_from,
                counted: crate::stream::Counted {
                    eco: Some(code.unwrap_or_else(|| crate::stream::eco_tag_code(&g.game.tags))),
                    tagged: Tagged {
                        named: now.named - tagged.named,
                        kept: now.kept - tagged.kept,
                        unnamed: now.unnamed - tagged.unnamed,
                    },
                    ..Default::default()
                },
            }
        });
    } else if !part.stopped {
        // An error, reported: the game as it is.
        part.text.extend_from_slice(text);
    }
}

/// Writes one game without an error, its tags set as `keep` says;
/// returns the ECO code counted when it is the opening's (else the tag's
/// was counted).
fn tag_game(keep: bool, g: &ReadGame, text: &[u8], base: u64, part: &mut Part) -> Option<String> {
    let stats = &mut part.stats;
    if keep && super::has_tags(&g.game.tags) {
        stats.tagged.kept += 1;
    } else if let Some(c) = super::classify(g) {
        retag::write(text, base, g, c.opening, &mut part.text);
        stats.tagged.named += 1;
        count_eco(&mut stats.eco, c.opening.eco());
        return crate::stream::is_open(g).then(|| c.opening.eco().to_owned());
    } else {
        stats.tagged.unnamed += 1;
    }
    count_eco_tag(&mut stats.eco, &g.game.tags);
    part.text.extend_from_slice(text);
    None
}
