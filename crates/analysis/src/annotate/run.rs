//! Whole files: games spread over several engines, written in input order;
//! a game the engine fails on is reported and written unannotated; a game
//! that cannot be read is reported and copied through as it was; resuming
//! a half-written output.

use super::{analyse_game, annotated_game, page_game, AnnotateOptions};
use crate::analyst::Analyst;
use rookery_pgn::{GameBuilder, Location, ReadGame, Reader};
use rookery_report::game_model::PageGame;
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};

/// How to run over a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnnotateRun {
    /// What to do to each game.
    pub options: AnnotateOptions,
    /// Games at the start of the input already in the output (`--resume`):
    /// read, not analysed, not written.
    pub skip_games: usize,
    /// Collect the page model of every game written.
    pub page: bool,
}

/// One problem, located in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameProblem {
    /// The game's index in the input, from 1.
    pub game: usize,
    /// 1-based line.
    pub line: u64,
    /// 1-based column.
    pub col: u64,
    /// An error (the game was copied or written unannotated) or a warning.
    pub error: bool,
    /// What happened.
    pub message: String,
}

impl GameProblem {
    /// A problem of game `game` (an error or a warning) at `at` in the input.
    fn at(game: usize, at: Location, error: bool, message: String) -> GameProblem {
        GameProblem {
            game,
            line: at.line,
            col: at.col,
            error,
            message,
        }
    }
}

/// Counts after a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnnotateSummary {
    /// Games read.
    pub games: u64,
    /// Games annotated.
    pub annotated: u64,
    /// Games skipped (already in the output).
    pub skipped: u64,
    /// Games that could not be read, copied through unchanged.
    pub unreadable: u64,
    /// Games the engine failed on, written unannotated.
    pub engine_failures: u64,
    /// Positions searched by the engines.
    pub searched: u64,
    /// Problems, in input order.
    pub problems: Vec<GameProblem>,
    /// The page model of every game written (when asked for).
    pub page: Vec<PageGame>,
}

/// Progress after each game written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameTick {
    /// Games done so far (skipped ones included).
    pub games: u64,
    /// Positions searched so far.
    pub searched: u64,
}

/// A reader that keeps what it hands on, so that a game can be copied as it was.
struct Tee<R> {
    inner: R,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

struct Item {
    read: ReadGame,
    raw: Vec<u8>,
    skip: bool,
}

struct Done {
    text: Vec<u8>,
    problems: Vec<GameProblem>,
    annotated: bool,
    unreadable: bool,
    engine_failed: bool,
    skipped: bool,
    searched: u64,
    page: Option<PageGame>,
}

/// Annotates every game of `input` with the `analysts` (one thread each)
/// and writes them to `output` in input order.
///
/// # Errors
/// Only I/O errors of `input` or `output`; game and engine problems are in
/// the summary.
pub fn annotate_stream(
    input: impl Read + Send,
    output: &mut dyn Write,
    analysts: Vec<Box<dyn Analyst>>,
    run: &AnnotateRun,
    mut progress: impl FnMut(GameTick),
) -> io::Result<AnnotateSummary> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut reader = Reader::new(Tee {
        inner: input,
        seen: Arc::clone(&seen),
    });
    // Stream offset of seen[0].
    let mut seen_base = 0u64;
    let mut builder = GameBuilder::new();
    let mut read_error: Option<io::Error> = None;
    let items = std::iter::from_fn(|| {
        let read = match reader.read_game(&mut builder) {
            Ok(Some(g)) => g,
            Ok(None) => return None,
            Err(e) => {
                read_error = Some(e);
                return None;
            }
        };
        let end = reader.offset();
        let mut buf = seen.lock().unwrap_or_else(PoisonError::into_inner);
        let from = (read.at.offset.saturating_sub(seen_base) as usize).min(buf.len());
        let to = (end.saturating_sub(seen_base) as usize).clamp(from, buf.len());
        let raw = if read.error.is_some() {
            buf[from..to].to_vec()
        } else {
            Vec::new()
        };
        buf.drain(..to);
        seen_base += to as u64;
        let skip = read.index <= run.skip_games;
        Some(Item { read, raw, skip })
    });
    let opts = &run.options;
    let work = |analyst: &mut Box<dyn Analyst>, item: Item| -> Done {
        let g = item.read;
        let mut done = Done {
            text: Vec::new(),
            problems: Vec::new(),
            annotated: false,
            unreadable: false,
            engine_failed: false,
            skipped: item.skip,
            searched: 0,
            page: None,
        };
        if item.skip {
            return done;
        }
        for w in &g.warnings {
            let message = format!("game {}: {}", g.index, w.kind);
            done.problems
                .push(GameProblem::at(g.index, w.at, false, message));
        }
        // The page of a game written without annotations, saying why.
        let unannotated_page = |why: String| {
            run.page
                .then(|| page_game(g.index, &g.game, None, opts, Some(why)))
        };
        if let Some(e) = &g.error {
            let message = format!("{}: {} (game copied unchanged)", e.game, e.kind);
            done.problems
                .push(GameProblem::at(g.index, e.at, true, message));
            done.unreadable = true;
            let raw = item.raw.trim_ascii_end();
            done.text = raw.to_vec();
            done.text.extend_from_slice(b"\n\n");
            done.page = unannotated_page(format!("cannot be read: {}", e.kind));
            return done;
        }
        match analyse_game(&g.game, analyst.as_mut(), opts) {
            Ok(a) => {
                done.searched = u64::from(a.searched);
                done.annotated = true;
                done.text =
                    rookery_pgn::game_to_string(&annotated_game(&g.game, &a, opts)).into_bytes();
                if run.page {
                    done.page = Some(page_game(g.index, &g.game, Some(&a), opts, None));
                }
            }
            Err(e) => {
                let mut message = format!(
                    "{}: engine failed: {e} (game written unannotated)",
                    g.game.id(g.index)
                );
                // Bring a crashed or hung engine back for the next game.
                if let Err(e2) = analyst.recover() {
                    message.push_str(&format!("; engine restart failed: {e2}"));
                }
                done.problems
                    .push(GameProblem::at(g.index, g.at, true, message));
                done.engine_failed = true;
                done.text = rookery_pgn::game_to_string(&g.game).into_bytes();
                done.page = unannotated_page(format!("engine failed: {e}"));
            }
        }
        done
    };
    let mut summary = AnnotateSummary::default();
    let mut io_error: Option<io::Error> = None;
    rookery_io::parallel::run(items, analysts, work, |done| {
        summary.games += 1;
        summary.searched += done.searched;
        if done.skipped {
            summary.skipped += 1;
        } else if done.unreadable {
            summary.unreadable += 1;
        } else if done.engine_failed {
            summary.engine_failures += 1;
        } else if done.annotated {
            summary.annotated += 1;
        }
        summary.problems.extend(done.problems);
        if let Some(p) = done.page {
            summary.page.push(p);
        }
        if !done.skipped && io_error.is_none() {
            if let Err(e) = output.write_all(&done.text).and_then(|()| output.flush()) {
                io_error = Some(e);
            }
        }
        progress(GameTick {
            games: summary.games,
            searched: summary.searched,
        });
    })
    .map_err(|e| io::Error::other(e.to_string()))?;
    if let Some(e) = read_error.or(io_error) {
        return Err(e);
    }
    Ok(summary)
}

/// Where to resume a half-written output: `(games, bytes)`, the games of
/// `existing` to keep and the length to cut it to. The last game in the
/// output may be incomplete (the run was stopped while writing it), so it is
/// always cut off and done again; every game before it was written whole.
pub fn resume_point(existing: &[u8]) -> (usize, u64) {
    let mut reader = Reader::new(existing);
    let mut starts = Vec::new();
    loop {
        // The next game starts after the whitespace where the reader stands.
        let off = reader.offset() as usize;
        let ws = existing.get(off..).map_or(0, |r| {
            r.iter().take_while(|b| b.is_ascii_whitespace()).count()
        });
        // Reading from memory cannot fail.
        match reader.skip_game() {
            Ok(true) => starts.push((off + ws) as u64),
            _ => break,
        }
    }
    match starts.pop() {
        Some(last) => (starts.len(), last),
        None => (0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_drops_the_last_game() {
        let two = "[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n\n";
        let b = two.find("[Event \"b\"]").unwrap() as u64;
        assert_eq!(resume_point(two.as_bytes()), (1, b));
        // Cut in the middle of the second game's tags.
        let cut = &two[..two.len() - 12];
        assert_eq!(resume_point(cut.as_bytes()), (1, b));
        assert_eq!(resume_point(b""), (0, 0));
        assert_eq!(resume_point(b"[Event \"a\"]\n\n1. e"), (0, 0));
    }
}
