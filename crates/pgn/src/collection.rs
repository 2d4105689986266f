//! Rearranging a collection: what `rookery pgn split | sort | cat` share on
//! top of [`crate::copy`] (games and their bytes, as written, in input
//! order, on any number of threads).
//!
//! [`run`] checks every game (every move, in variations too),
//! label each on the reading threads (a sort key, the value a file is named
//! after, a filter's verdict; see [`crate::copy::tag_value`] for tag values
//! that are not UTF-8) and hand each to a sink in input order as a
//! [`Judged`] game: its problems, and what to write ([`Kept`]) unless it is
//! rejected or left out. A game with an error is rejected (counted in
//! [`Counts::rejected`]), or labelled and kept as it is with
//! [`Plan::keep_bad`]; it is reported either way. A label of `None` leaves a
//! game out (counted in [`Counts::left_out`]; a filter's drop): its bytes
//! are then never copied off the reading thread.
//!
//! The label is the verb's whole say on the reading threads, where the
//! work is spread; what needs every game in order (a set of keys seen, a
//! file to switch to) belongs in the sink, on the calling thread.
//!
//! [`GameWriter`] writes the kept games one after another, each as it was
//! written from its first byte to its last that is not white space, then its
//! line end, a blank line between two (in the games' own line ends): a file
//! of such games is copied whole, and games from different places never run
//! into each other.
//!
//! ```
//! use rookery_pgn::collection::{run, GameWriter, Plan};
//! use rookery_pgn::source::Source;
//!
//! let pgn = b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. e4 e4 *\n\n[Event \"c\"]\n\n1. d4   d5 *\n";
//! let mut out = GameWriter::new(Vec::new());
//! let counts = run(&Plan::default(), Source::reader(&pgn[..]), &|g, _raw| Some(g.index), &mut |_| {},
//!     &mut |g| -> std::io::Result<()> {
//!         if let Some(kept) = g.kept {
//!             out.write(kept.text, kept.open_result)?;
//!         } else {
//!             assert!(g.diags.iter().any(|d| d.error && d.line == 7));
//!         }
//!         Ok(())
//!     })?;
//! assert_eq!((counts.games, counts.copied, counts.rejected), (3, 2, 1));
//! assert_eq!(out.finish()?, b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"c\"]\n\n1. d4   d5 *\n");
//! # Ok::<(), rookery_pgn::stream::StreamError<std::io::Error>>(())
//! ```

use std::io::{self, Write};

use crate::copy::{copy_games, CopyPlan, CopySink, Judge};
use crate::game::{ReadGame, WarningKind};
use crate::source::Source;
use crate::stream::{Diag, StreamError};
use crate::types::{GameResult, Location};

/// How to read and check the games.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Keep games with an error too (reported all the same).
    pub keep_bad: bool,
    /// Threads, pieces, warnings (see [`CopyPlan`]).
    pub copy: CopyPlan,
}

/// Counts of a run (mergeable across files).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Games read.
    pub games: u64,
    /// Games kept (those with an error included under [`Plan::keep_bad`]).
    pub copied: u64,
    /// Games the label left out (no error; the verb did not want them).
    pub left_out: u64,
    /// Games with an error, not kept.
    pub rejected: u64,
    /// Games with an error (rejected or kept).
    pub error_games: u64,
    /// Warnings, reported or not.
    pub warnings: u64,
}

impl Counts {
    /// Adds the counts of `o`.
    pub fn merge(&mut self, o: &Counts) {
        self.games += o.games;
        self.copied += o.copied;
        self.left_out += o.left_out;
        self.rejected += o.rejected;
        self.error_games += o.error_games;
        self.warnings += o.warnings;
    }
}

/// A game as the sink gets it, in input order.
#[derive(Debug)]
pub struct Judged<'a, L> {
    /// Its index in the input, from 1.
    pub index: usize,
    /// Where it starts.
    pub at: Location,
    /// Its problems, to report: its warnings (unless quiet), then its
    /// error (if it has one).
    pub diags: Vec<Diag>,
    /// The line of its first tag value that is not UTF-8 (read as Latin-1).
    pub latin1_line: Option<u64>,
    /// What to write; `None` if it is rejected or left out.
    pub kept: Option<Kept<'a, L>>,
}

/// A game kept: where it was, its label and its text.
#[derive(Debug)]
pub struct Kept<'a, L> {
    /// Its index in its input, from 1.
    pub index: usize,
    /// Where it starts in its input (line, column, byte offset).
    pub at: Location,
    /// What the run's label made of it.
    pub label: L,
    /// Its bytes as they stand in the input, from its first byte to its
    /// last that is not white space.
    pub text: &'a [u8],
    /// Whether it has an error (kept under [`Plan::keep_bad`]).
    pub bad: bool,
    /// `Some(result)` when it has no game-termination marker (the result
    /// its tags give, else `*`): [`GameWriter`] closes it with that marker
    /// if a game without tags would follow it, whose moves would otherwise
    /// be read as more of its own.
    pub open_result: Option<GameResult>,
}

/// What the judge passes from the reading threads: the label (`None` for a
/// game rejected or left out), the open result, and whether it has an error.
type Verdict<L> = (Option<L>, Option<GameResult>, bool);

/// The label of a run: on a reading thread, a game and its bytes (as
/// [`crate::copy::Judge`] gets them) give `Some(label)` to keep the game,
/// `None` to leave it out. Called for every game without an error, and for
/// those with one under [`Plan::keep_bad`].
pub type Label<'a, L> = dyn Fn(&ReadGame, &[u8]) -> Option<L> + Sync + 'a;

/// Reads `source` as `plan` says, labels the games with `label` (on the
/// reading threads) and hands every game to `sink` in input order (those
/// rejected or left out too, without [`Judged::kept`]); `progress` hears
/// the input bytes done now and then. Returns the counts.
///
/// A source whose text may end early because its compressed data is
/// damaged ([`Source::damage`]) ended early: a last game without a
/// game-termination marker is then cut short, not merely unterminated,
/// and is an error (counted as rejected, or kept under [`Plan::keep_bad`])
/// with a diagnostic saying so; it is never copied as if it were whole.
///
/// # Errors
/// [`StreamError::Read`] if the input cannot be read (or a reading thread
/// panicked; an input read at offsets that got shorter while read),
/// [`StreamError::Sink`] with the first error of `sink`.
pub fn run<L: Send, E>(
    plan: &Plan,
    source: Source<'_>,
    label: &Label<'_, L>,
    progress: &mut dyn FnMut(u64),
    sink: &mut dyn FnMut(Judged<'_, L>) -> Result<(), E>,
) -> Result<Counts, StreamError<E>> {
    let damage = source.damage();
    run_with(
        plan,
        label,
        sink,
        &|| damage.is_damaged(),
        |judge, copied| copy_games(&plan.copy, source, judge, progress, copied),
    )
}

/// A game without a game-termination marker, held back until the next
/// game shows it was not the last of a text that damage cut short.
struct Held<L> {
    index: usize,
    at: Location,
    diags: Vec<Diag>,
    latin1_line: Option<u64>,
    /// The label and bytes of a kept game.
    kept: Option<(L, Vec<u8>)>,
    bad: bool,
    open_result: Option<GameResult>,
}

impl<L> Held<L> {
    /// Hands the game on; `cut`: the text ended inside it (the damage
    /// cut it), which makes it an error.
    fn release<E>(
        mut self,
        cut: bool,
        keep_bad: bool,
        counts: &mut Counts,
        sink: &mut dyn FnMut(Judged<'_, L>) -> Result<(), E>,
    ) -> Result<(), E> {
        if cut {
            self.diags.push(Diag::new(
                self.at,
                true,
                self.index,
                crate::stream::cut_short_message(self.index),
            ));
            // A game with an error already is counted as such (rejected,
            // or kept under --keep-bad); one without becomes one.
            if !self.bad {
                counts.error_games += 1;
                self.bad = true;
                if !keep_bad {
                    match self.kept.take() {
                        Some(_) => counts.copied -= 1,
                        None => counts.left_out -= 1,
                    }
                    counts.rejected += 1;
                }
            }
        }
        let (label, text) = match self.kept {
            Some((label, text)) => (Some(label), text),
            None => (None, Vec::new()),
        };
        sink(Judged {
            index: self.index,
            at: self.at,
            diags: self.diags,
            latin1_line: self.latin1_line,
            kept: label.map(|label| Kept {
                index: self.index,
                at: self.at,
                label,
                text: &text,
                bad: self.bad,
                open_result: self.open_result,
            }),
        })
    }
}

/// The work of [`run`]: `copy` runs the judge and the sink over the input;
/// `cut` tells, once the input is read, whether its text ended early.
fn run_with<L: Send, E>(
    plan: &Plan,
    label: &Label<'_, L>,
    sink: &mut dyn FnMut(Judged<'_, L>) -> Result<(), E>,
    cut: &dyn Fn() -> bool,
    copy: impl FnOnce(
        &Judge<'_, Verdict<L>>,
        &mut CopySink<'_, Verdict<L>, E>,
    ) -> Result<(), StreamError<E>>,
) -> Result<Counts, StreamError<E>> {
    let keep_bad = plan.keep_bad;
    let judge = |g: &ReadGame, raw: &[u8]| {
        let label = if keep_bad || g.error.is_none() {
            label(g, raw)
        } else {
            None
        };
        let open = g
            .warnings
            .iter()
            .any(|w| w.kind == WarningKind::MissingResult);
        let copy = label.is_some();
        let verdict = (label, open.then_some(g.game.result), g.error.is_some());
        (verdict, copy)
    };
    let mut counts = Counts::default();
    let mut held: Option<Held<L>> = None;
    copy(&judge, &mut |c| {
        if let Some(h) = held.take() {
            h.release(false, keep_bad, &mut counts, sink)?;
        }
        let (label, open_result, bad) = c.value;
        counts.games += 1;
        counts.warnings += c.warning_count as u64;
        counts.error_games += u64::from(bad);
        let mut diags = c.warnings;
        diags.extend(c.error);
        let kept = match label {
            Some(label) => {
                counts.copied += 1;
                Some(Kept {
                    index: c.index,
                    at: c.at,
                    label,
                    text: c.bytes.unwrap_or_default().trim_ascii_end(),
                    bad,
                    open_result,
                })
            }
            None if bad && !keep_bad => {
                counts.rejected += 1;
                None
            }
            None => {
                counts.left_out += 1;
                None
            }
        };
        if open_result.is_some() {
            // Perhaps the last game, cut short: known once the input is read.
            held = Some(Held {
                index: c.index,
                at: c.at,
                diags,
                latin1_line: c.latin1_line,
                kept: kept.map(|k| (k.label, k.text.to_vec())),
                bad,
                open_result,
            });
            return Ok(true);
        }
        sink(Judged {
            index: c.index,
            at: c.at,
            diags,
            latin1_line: c.latin1_line,
            kept,
        })?;
        Ok(true)
    })?;
    if let Some(h) = held {
        h.release(cut(), keep_bad, &mut counts, sink)
            .map_err(StreamError::Sink)?;
    }
    Ok(counts)
}

/// The line end `text` uses: that of its first line (`\n` if it has one line).
fn line_end(text: &[u8]) -> &'static [u8] {
    match memchr::memchr(b'\n', text) {
        Some(i) if i > 0 && text[i - 1] == b'\r' => b"\r\n",
        _ => b"\n",
    }
}

/// The line end of a [`Seam`]: CR LF or LF.
fn eol(crlf: bool) -> &'static [u8] {
    if crlf {
        b"\r\n"
    } else {
        b"\n"
    }
}

/// How a run of games written by a [`GameWriter`] begins and ends: what
/// another writer needs to take the run's bytes as if it had written its
/// games one by one ([`GameWriter::append_run`]). The bytes of a run
/// depend on what was written before it (a blank line before its first
/// game unless it is the first of all; an open game before it closed with
/// a marker if its first game has no tags), so runs written apart (the
/// parts of a sharded job) are joined by their seams, not merely
/// concatenated.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Seam {
    /// Games in the run.
    pub games: u64,
    /// Its first game starts with a tag (`[`).
    pub first_tag: bool,
    /// Its first game's line end is CR LF.
    pub first_crlf: bool,
    /// Its last game has no game-termination marker (and its line is not
    /// ended): the marker it would be closed with.
    pub open: Option<GameResult>,
    /// Its last game's line end is CR LF.
    pub open_crlf: bool,
}

/// Writes games one after another (see the module documentation).
#[derive(Debug)]
pub struct GameWriter<W> {
    out: W,
    games: u64,
    /// The first game written: whether it starts with a tag, its line end.
    first: Option<(bool, &'static [u8])>,
    /// The last game written has no game-termination marker: the one it
    /// would be closed with, and its line end.
    open: Option<(GameResult, &'static [u8])>,
}

impl<W: Write> GameWriter<W> {
    /// A writer of games to `out`.
    pub fn new(out: W) -> GameWriter<W> {
        GameWriter {
            out,
            games: 0,
            first: None,
            open: None,
        }
    }

    /// What comes before a game (one starting with a tag if `tag`, its
    /// line end `eol`): the open game before it closed, a blank line.
    fn before(&mut self, tag: bool, eol: &'static [u8]) -> io::Result<()> {
        if let Some((result, open_eol)) = self.open.take() {
            if !tag {
                self.out.write_all(b" ")?;
                self.out.write_all(result.as_str().as_bytes())?;
            }
            self.out.write_all(open_eol)?;
        }
        if self.games > 0 {
            self.out.write_all(eol)?;
        }
        self.first.get_or_insert((tag, eol));
        Ok(())
    }

    /// Writes one game's text (white space at its end left out) and its
    /// line end, after a blank line if it is not the first. `open_result`:
    /// see [`Kept::open_result`] — a game without a marker is closed with
    /// one (` *`, or its tags' result) only if this next game does not
    /// start with a tag.
    ///
    /// # Errors
    /// The output's write errors.
    pub fn write(&mut self, text: &[u8], open_result: Option<GameResult>) -> io::Result<()> {
        let text = text.trim_ascii_end();
        let eol = line_end(text);
        self.before(text.first() == Some(&b'['), eol)?;
        self.out.write_all(text)?;
        self.open = open_result.map(|r| (r, eol));
        if self.open.is_none() {
            self.out.write_all(eol)?;
        }
        self.games += 1;
        Ok(())
    }

    /// Games written so far.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The output.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Ends the last game's line (if it is still open) and gives the output back.
    ///
    /// # Errors
    /// The output's write errors.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some((_, eol)) = self.open.take() {
            self.out.write_all(eol)?;
        }
        Ok(self.out)
    }

    /// Ends a run of games written apart ([`Seam`]): the output as it
    /// stands (the last game's line left open if it has no marker) and
    /// the run's seam.
    pub fn finish_run(self) -> (W, Seam) {
        let (first_tag, first_eol) = self.first.unwrap_or((false, &b"\n"[..]));
        let (open, open_eol) = match self.open {
            Some((result, eol)) => (Some(result), eol),
            None => (None, &b"\n"[..]),
        };
        let seam = Seam {
            games: self.games,
            first_tag,
            first_crlf: first_eol == b"\r\n",
            open,
            open_crlf: open_eol == b"\r\n",
        };
        (self.out, seam)
    }

    /// Writes a run of games another writer wrote ([`GameWriter::finish_run`]
    /// gave `body`'s bytes and `seam`), exactly as if this writer had
    /// written its games one by one.
    ///
    /// # Errors
    /// Errors reading `body` or writing the output.
    pub fn append_run(&mut self, seam: &Seam, body: &mut dyn io::Read) -> io::Result<()> {
        if seam.games == 0 {
            return Ok(());
        }
        self.before(seam.first_tag, eol(seam.first_crlf))?;
        io::copy(body, &mut self.out)?;
        self.open = seam.open.map(|r| (r, eol(seam.open_crlf)));
        self.games += seam.games;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy_all(pgn: &[u8], plan: &Plan) -> (Vec<u8>, Counts) {
        let mut out = GameWriter::new(Vec::new());
        let counts = run(
            plan,
            Source::reader(pgn),
            &|_, _| Some(()),
            &mut |_| {},
            &mut |g: Judged<'_, ()>| -> io::Result<()> {
                if let Some(k) = g.kept {
                    out.write(k.text, k.open_result)?;
                }
                Ok(())
            },
        )
        .unwrap();
        (out.finish().unwrap(), counts)
    }

    #[test]
    fn a_file_of_well_separated_games_is_copied_whole() {
        let pgn = b"[Event \"a\"]\n[Site \"?\"]\n\n1. e4 {x}  e5 (1... c5 $1) 1-0\n\n\
                    [Event \"b\"]\n\n1. d4 d5 2. c4 *\n";
        for jobs in [1, 2] {
            let plan = Plan {
                copy: CopyPlan {
                    jobs,
                    chunk_bytes: 16,
                    ..CopyPlan::default()
                },
                ..Plan::default()
            };
            assert_eq!(copy_all(pgn, &plan).0, pgn);
        }
        let crlf = b"[Event \"a\"]\r\n\r\n1. e4 e5 1-0\r\n\r\n[Event \"b\"]\r\n\r\n1. d4 *\r\n";
        assert_eq!(copy_all(crlf, &Plan::default()).0, crlf);
    }

    #[test]
    fn bad_games_are_rejected_or_kept() {
        let pgn = b"[Event \"a\"]\n\n1. e4 e4 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
        let (text, counts) = copy_all(pgn, &Plan::default());
        assert_eq!(text, b"[Event \"b\"]\n\n1. d4 *\n");
        assert_eq!(
            (counts.games, counts.rejected, counts.error_games),
            (2, 1, 1)
        );
        let keep = Plan {
            keep_bad: true,
            ..Plan::default()
        };
        let (text, counts) = copy_all(pgn, &keep);
        assert_eq!(text, pgn);
        assert_eq!(
            (counts.copied, counts.rejected, counts.error_games),
            (2, 0, 1)
        );
    }

    #[test]
    fn a_label_of_none_leaves_a_game_out() {
        let pgn = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n\n[Event \"c\"]\n\n1. d4 d4 *\n";
        let mut out = GameWriter::new(Vec::new());
        let mut seen = Vec::new();
        let plan = Plan {
            keep_bad: true,
            ..Plan::default()
        };
        let counts = run(
            &plan,
            Source::reader(&pgn[..]),
            &|g, _| (g.game.tags.get("Event") != Some("b")).then_some(g.index),
            &mut |_| {},
            &mut |g: Judged<'_, usize>| -> io::Result<()> {
                seen.push((
                    g.index,
                    g.kept.as_ref().map(|k| (k.label, k.at.line, k.bad)),
                ));
                if let Some(k) = g.kept {
                    out.write(k.text, k.open_result)?;
                }
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(
            seen,
            [(1, Some((1, 1, false))), (2, None), (3, Some((3, 9, true)))]
        );
        assert_eq!((counts.copied, counts.left_out, counts.rejected), (2, 1, 0));
        assert_eq!(
            out.finish().unwrap(),
            b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"c\"]\n\n1. d4 d4 *\n"
        );
    }

    #[test]
    fn a_game_without_a_marker_is_closed_only_before_a_game_without_tags() {
        let mut w = GameWriter::new(Vec::new());
        w.write(
            b"[Result \"1-0\"]\n\n1. e4 e5\n\n",
            Some(GameResult::WhiteWins),
        )
        .unwrap();
        w.write(b"[Event \"b\"]\n\n1. d4", Some(GameResult::Unknown))
            .unwrap();
        w.write(b"1. c4 *", None).unwrap();
        assert_eq!(
            w.finish().unwrap(),
            b"[Result \"1-0\"]\n\n1. e4 e5\n\n[Event \"b\"]\n\n1. d4 *\n\n1. c4 *\n"
        );
        let mut w = GameWriter::new(Vec::new());
        w.write(b"1. e4", Some(GameResult::Unknown)).unwrap();
        assert_eq!(w.finish().unwrap(), b"1. e4\n");
    }

    /// A game without a marker followed (in the output) by one without
    /// tags reads back as two games, not one.
    #[test]
    fn games_from_different_places_stay_apart() {
        let a = b"[Event \"a\"]\n\n1. e4 e5";
        let b = b"1. d4 d5 *\n";
        let mut out = GameWriter::new(Vec::new());
        for input in [&a[..], &b[..]] {
            run(
                &Plan::default(),
                Source::reader(input),
                &|_, _| Some(()),
                &mut |_| {},
                &mut |g: Judged<'_, ()>| -> io::Result<()> {
                    let k = g.kept.expect("no error");
                    out.write(k.text, k.open_result)
                },
            )
            .unwrap();
        }
        let text = out.finish().unwrap();
        let games: Vec<_> = crate::Games::new(&text[..])
            .map(|g| g.unwrap().plies)
            .collect();
        assert_eq!(games, [2, 2]);
    }

    #[test]
    fn runs_written_apart_join_into_what_one_writer_writes() {
        // Games with and without tags, markers, CR LF.
        let games: [(&[u8], Option<GameResult>); 5] = [
            (b"[Event \"a\"]\n\n1. e4", Some(GameResult::WhiteWins)),
            (b"1. d4 d5", Some(GameResult::Unknown)),
            (b"[Event \"c\"]\r\n\r\n1. c4 *", None),
            (b"1. Nf3", Some(GameResult::Unknown)),
            (b"[Event \"e\"]\n\n1. b3 1-0", None),
        ];
        let mut one = GameWriter::new(Vec::new());
        for (text, open) in games {
            one.write(text, open).unwrap();
        }
        let one = one.finish().unwrap();
        // Every way of cutting the games into three runs, some empty.
        for a in 0..=games.len() {
            for b in a..=games.len() {
                let mut joined = GameWriter::new(Vec::new());
                for run in [&games[..a], &games[a..b], &games[b..]] {
                    let mut w = GameWriter::new(Vec::new());
                    for (text, open) in run {
                        w.write(text, *open).unwrap();
                    }
                    let (body, seam) = w.finish_run();
                    assert_eq!(seam.games, run.len() as u64);
                    joined.append_run(&seam, &mut &body[..]).unwrap();
                }
                let joined = joined.finish().unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&joined),
                    String::from_utf8_lossy(&one),
                    "cut at {a} and {b}"
                );
            }
        }
    }
}
