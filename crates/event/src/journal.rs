//! The journal: an append-only log of a match or event, from which it can
//! be resumed after any stop, `kill -9` and power loss included.
//!
//! One JSON object per line: first the plan (whatever the caller needs to
//! run the match again, with the sizes its output files had), then for each
//! game a `start`, every move as it is played (written to the file before
//! the next move is asked for, and synced to disk within
//! [`SYNC_INTERVAL`]) and an `end` holding the finished record. A line cut off by a crash is recognised (it is the last and has
//! no line end) and dropped; a damaged line elsewhere is an error naming it.
//!
//! The Argus referee writes the same journal with two more entries: after
//! each `move` a `clocks` line (both clocks and the offer), and `discard`
//! when an adjourned game starts again; it makes each move durable itself
//! ([`Journal::sync`]) before the next request goes out.
//!
//! ```
//! use rookery_event::journal::{Entry, Journal, JournalState};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::env::temp_dir().join(format!("rookery-journal-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("m.journal");
//! let mut j = Journal::create(&path, &serde_json::json!({"rounds": 1}), false)?;
//! j.append(&Entry::Start { game: 0, started: None })?;
//! drop(j);
//! let state = JournalState::read(&path)?;
//! assert!(state.games[&0].end.is_none());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(()) }
//! ```

use rookery_game::record::{GameRecord, MoveRecord};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The journal format's version, in the first line.
pub const VERSION: u32 = 1;

/// One line of the journal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Entry {
    /// The first line: the format version and the plan.
    Plan {
        /// [`VERSION`].
        version: u32,
        /// The caller's plan.
        plan: serde_json::Value,
    },
    /// A game begins (or, after a resume, continues).
    Start {
        /// Its number.
        game: usize,
        /// When it first started (UTC date and time), so that a resumed
        /// game keeps its `GameStartTime`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        started: Option<(String, String)>,
    },
    /// A move of a game.
    Move {
        /// The game's number.
        game: usize,
        /// The move.
        #[serde(flatten)]
        mv: MoveRecord,
    },
    /// The moves of a game so far are void: it starts again from its
    /// first move (an adjourned game of an Argus event).
    Discard {
        /// The game's number.
        game: usize,
    },
    /// Both clocks after a move, and the offer that came with it (the
    /// Argus referee writes one after each `move`; readers that need only
    /// the moves skip it).
    Clocks {
        /// The game's number.
        game: usize,
        /// Moves of the game so far, this one included.
        ply: usize,
        /// Time used by White and Black (milliseconds), as `cc` reports it.
        used_ms: [u64; 2],
        /// Time left on White's and Black's clocks (milliseconds), where
        /// the time control has a clock.
        remaining_ms: [Option<u64>; 2],
        /// The offer sent with the move (`draw`, `claim`, `reject`), if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        offer: Option<String>,
    },
    /// A game is over.
    End {
        /// The game's number.
        game: usize,
        /// Its record.
        record: Box<GameRecord>,
    },
    /// A program the referee started for a player (its own process group):
    /// a later run of the event ends it if it is still running.
    Process {
        /// The player.
        player: String,
        /// Its process id (and process group id).
        pid: u32,
        /// When it started, in the kernel's clock ticks since boot (field
        /// 22 of `/proc/PID/stat`), so that a process id used again by
        /// another program is not mistaken for it.
        since: u64,
        /// The run id the referee put in its environment
        /// ([`RUN_ENV`]): a later run ends it only if `/proc/PID/environ`
        /// still holds it, which an edited journal cannot make an
        /// unrelated process do. Empty in journals older than it (such a
        /// program is never ended).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        run: String,
    },
    /// The address the referee listens on (Argus), so that a resumed
    /// referee started on port 0 can take the same one again.
    Listening {
        /// `HOST:PORT`.
        address: String,
    },
    /// The event is over for good (every game played, or a test decided):
    /// nothing is left to resume.
    Over {
        /// Why it ended.
        reason: String,
    },
}

/// How often the background syncer makes new entries durable.
pub const SYNC_INTERVAL: Duration = Duration::from_millis(50);

/// A journal open for appending.
#[derive(Debug)]
pub struct Journal {
    file: File,
    path: PathBuf,
    syncer: Option<Syncer>,
}

/// The thread that makes written entries durable (`fdatasync`) at most every
/// [`SYNC_INTERVAL`], off the path between one move and the next request.
#[derive(Debug)]
struct Syncer {
    dirty: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Syncer {
    fn start(file: &File) -> io::Result<Syncer> {
        let file = file.try_clone()?;
        let dirty = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (d, s) = (dirty.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("journal-sync".into())
            .spawn(move || loop {
                let last = s.load(Ordering::SeqCst);
                if d.swap(false, Ordering::SeqCst) {
                    // A failed sync leaves the entries written (they survive
                    // the process being killed); it is retried next time.
                    if file.sync_data().is_err() {
                        d.store(true, Ordering::SeqCst);
                    }
                }
                if last {
                    break;
                }
                std::thread::park_timeout(SYNC_INTERVAL);
            })?;
        Ok(Syncer {
            dirty,
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// A journal that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Reading or writing failed.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The journal.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// A line is not a journal entry.
    #[error("{}:{line}: not a journal entry: {reason}", .path.display())]
    Bad {
        /// The journal.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// Why.
        reason: String,
    },
}

impl Journal {
    /// Creates a journal and writes the plan. An existing file is never
    /// replaced (see [`rotate`] to keep an old one aside).
    ///
    /// Every entry is written to the file before `append` returns, so it
    /// survives the process being killed. `sync` also makes entries durable
    /// (`fdatasync` on a background thread, within [`SYNC_INTERVAL`]), so a
    /// power loss costs at most the last moves of that interval: the games
    /// resume from a slightly earlier move, never from an inconsistent one.
    ///
    /// # Errors
    /// [`JournalError::Io`].
    pub fn create(
        path: &Path,
        plan: &serde_json::Value,
        sync: bool,
    ) -> Result<Journal, JournalError> {
        let io_err = |error| JournalError::Io {
            path: path.to_path_buf(),
            error,
        };
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(io_err)?;
        let syncer = if sync {
            Some(Syncer::start(&file).map_err(io_err)?)
        } else {
            None
        };
        let mut j = Journal {
            file,
            path: path.to_path_buf(),
            syncer,
        };
        j.append(&Entry::Plan {
            version: VERSION,
            plan: plan.clone(),
        })?;
        Ok(j)
    }

    /// Reopens a journal read by [`JournalState::read`] for appending, cutting
    /// off a torn last line first.
    ///
    /// # Errors
    /// [`JournalError::Io`].
    pub fn reopen(state: &JournalState, sync: bool) -> Result<Journal, JournalError> {
        let io_err = |error| JournalError::Io {
            path: state.path.clone(),
            error,
        };
        let file = OpenOptions::new()
            .write(true)
            .open(&state.path)
            .map_err(io_err)?;
        file.set_len(state.valid_len).map_err(io_err)?;
        let mut file = OpenOptions::new()
            .append(true)
            .open(&state.path)
            .map_err(io_err)?;
        file.flush().map_err(io_err)?;
        let syncer = if sync {
            Some(Syncer::start(&file).map_err(io_err)?)
        } else {
            None
        };
        Ok(Journal {
            file,
            path: state.path.clone(),
            syncer,
        })
    }

    /// Appends an entry: one write of one line, synced when asked.
    ///
    /// # Errors
    /// [`JournalError::Io`].
    pub fn append(&mut self, e: &Entry) -> Result<(), JournalError> {
        let line = Journal::encode(e).map_err(|error| JournalError::Io {
            path: self.path.clone(),
            error,
        })?;
        self.append_encoded(&line)
    }

    /// An entry as the line [`Journal::append`] writes (with its line end).
    ///
    /// # Errors
    /// An entry that cannot be written as JSON.
    pub fn encode(e: &Entry) -> io::Result<Vec<u8>> {
        let mut line = serde_json::to_vec(e).map_err(io::Error::other)?;
        line.push(b'\n');
        Ok(line)
    }

    /// Appends lines made by [`Journal::encode`] (or copied from another
    /// journal) in one write.
    ///
    /// # Errors
    /// [`JournalError::Io`].
    pub fn append_encoded(&mut self, lines: &[u8]) -> Result<(), JournalError> {
        self.file
            .write_all(lines)
            .map_err(|error| JournalError::Io {
                path: self.path.clone(),
                error,
            })?;
        if let Some(s) = &self.syncer {
            s.dirty.store(true, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Makes every entry written so far durable now (`fdatasync`), for a
    /// caller that must not go on before they are (the Argus referee before
    /// its next `respond`).
    ///
    /// # Errors
    /// [`JournalError::Io`].
    pub fn sync(&mut self) -> Result<(), JournalError> {
        self.file.sync_data().map_err(|error| JournalError::Io {
            path: self.path.clone(),
            error,
        })
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Moves the file at `path` aside to the first free `PATH.1`, `PATH.2`, ...
/// and returns where it went (`None` when there was no file).
///
/// # Errors
/// The rename fails.
pub fn rotate(path: &Path) -> io::Result<Option<PathBuf>> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    for n in 1u32.. {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        let to = PathBuf::from(name);
        if std::fs::symlink_metadata(&to).is_err() {
            std::fs::rename(path, &to)?;
            return Ok(Some(to));
        }
    }
    Err(io::Error::other("no free name to move it to"))
}

/// What a journal says of one game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameState {
    /// Moves played so far, in order.
    pub moves: Vec<MoveRecord>,
    /// The finished record, if the game ended.
    pub end: Option<GameRecord>,
    /// Position of its `end` among all ends (the order games finished).
    pub finished_order: Option<usize>,
    /// When it first started (UTC date and time), as its first `start`
    /// entry says.
    pub started: Option<(String, String)>,
}

/// Everything a journal holds, read back.
#[derive(Clone, Debug)]
pub struct JournalState {
    /// The journal.
    pub path: PathBuf,
    /// The plan of its first line.
    pub plan: serde_json::Value,
    /// Every game that started, by number.
    pub games: BTreeMap<usize, GameState>,
    /// Bytes up to the end of the last whole entry.
    pub valid_len: u64,
    /// Whether a torn last line was dropped.
    pub torn: bool,
    /// Why the event ended for good, if it did (its `over` entry).
    pub over: Option<String>,
    /// Programs started for players, in the order they were started.
    pub processes: Vec<StartedProcess>,
    /// The last address the referee listened on.
    pub listening: Option<String>,
}

/// A program the referee started for a player, as its journal recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartedProcess {
    /// The player.
    pub player: String,
    /// Its process id (and process group id).
    pub pid: u32,
    /// When it started, in clock ticks since boot.
    pub since: u64,
    /// The run id in its environment ([`RUN_ENV`]); empty if the journal
    /// has none.
    pub run: String,
}

/// The environment variable a program the referee starts for a player
/// gets its run id in: a random id the journal's `process` entry keeps, so
/// that a later run ends only a process that holds it.
pub const RUN_ENV: &str = "ROOKERY_RUN";

impl JournalState {
    /// Reads a journal.
    ///
    /// # Errors
    /// [`JournalError`]: unreadable file, no plan, or a damaged line before
    /// the last.
    pub fn read(path: &Path) -> Result<JournalState, JournalError> {
        let bytes = std::fs::read(path).map_err(|error| JournalError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let bad = |line: usize, reason: String| JournalError::Bad {
            path: path.to_path_buf(),
            line,
            reason,
        };
        let mut state = JournalState {
            path: path.to_path_buf(),
            plan: serde_json::Value::Null,
            games: BTreeMap::new(),
            valid_len: 0,
            torn: false,
            over: None,
            processes: Vec::new(),
            listening: None,
        };
        let mut offset = 0usize;
        let mut ends = 0usize;
        for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
            let complete = line.ends_with(b"\n");
            let entry: Entry = match serde_json::from_slice(line) {
                Ok(e) if complete => e,
                // The last line, cut off by a crash: dropped.
                _ if !complete => {
                    state.torn = true;
                    break;
                }
                Ok(_) => unreachable!("complete is true here"),
                Err(e) => return Err(bad(i + 1, e.to_string())),
            };
            match entry {
                Entry::Plan { version, plan } => {
                    if i != 0 {
                        return Err(bad(i + 1, "a second plan".into()));
                    }
                    if version != VERSION {
                        return Err(bad(
                            i + 1,
                            format!("version {version}; this build reads {VERSION}"),
                        ));
                    }
                    state.plan = plan;
                }
                _ if i == 0 => return Err(bad(1, "the first line is not the plan".into())),
                Entry::Start { game, started } => {
                    // A game started again after a resume keeps its moves
                    // and its first start time.
                    let g = state.games.entry(game).or_default();
                    if g.started.is_none() {
                        g.started = started;
                    }
                }
                Entry::Process {
                    player,
                    pid,
                    since,
                    run,
                } => {
                    state.processes.push(StartedProcess {
                        player,
                        pid,
                        since,
                        run,
                    });
                }
                Entry::Over { reason } => state.over = Some(reason),
                Entry::Listening { address } => state.listening = Some(address),
                Entry::Move { game, mv } => {
                    let g = state.games.get_mut(&game).ok_or_else(|| {
                        bad(i + 1, format!("a move of game {game}, which never started"))
                    })?;
                    g.moves.push(mv);
                }
                Entry::Discard { game } => {
                    let g = state.games.get_mut(&game).ok_or_else(|| {
                        bad(i + 1, format!("game {game} discarded, which never started"))
                    })?;
                    g.moves.clear();
                }
                Entry::Clocks { game, ply, .. } => {
                    let g = state.games.get_mut(&game).ok_or_else(|| {
                        bad(i + 1, format!("clocks of game {game}, which never started"))
                    })?;
                    if ply != g.moves.len() {
                        return Err(bad(
                            i + 1,
                            format!(
                                "clocks after move {ply} of game {game}, which has {} moves",
                                g.moves.len()
                            ),
                        ));
                    }
                }
                Entry::End { game, record } => {
                    let g = state.games.get_mut(&game).ok_or_else(|| {
                        bad(
                            i + 1,
                            format!("the end of game {game}, which never started"),
                        )
                    })?;
                    if g.end.is_none() {
                        g.end = Some(*record);
                        g.finished_order = Some(ends);
                        ends += 1;
                    }
                }
            }
            offset += line.len();
        }
        if state.plan.is_null() {
            return Err(bad(1, "no plan: the journal is empty".into()));
        }
        state.valid_len = offset as u64;
        Ok(state)
    }

    /// Whether the event this journal records is over: an `over` entry, or
    /// every one of `scheduled` games finished.
    pub fn is_over(&self, scheduled: usize) -> bool {
        self.over.is_some()
            || (self.games.len() >= scheduled && self.games.values().all(|g| g.end.is_some()))
    }

    /// Finished records in the order the games ended.
    pub fn finished(&self) -> Vec<&GameRecord> {
        let mut v: Vec<(usize, &GameRecord)> = self
            .games
            .values()
            .filter_map(|g| Some((g.finished_order?, g.end.as_ref()?)))
            .collect();
        v.sort_by_key(|(o, _)| *o);
        v.into_iter().map(|(_, r)| r).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rookery-journal-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d.join("j")
    }

    fn mv(uci: &str) -> MoveRecord {
        MoveRecord {
            time_ms: 5,
            clock_ms: Some(100),
            ..MoveRecord::new(uci, uci)
        }
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_cut_off() {
        let p = tmp("torn");
        let mut j = Journal::create(&p, &serde_json::json!({"x": 1}), true).unwrap();
        j.append(&Entry::Start {
            game: 3,
            started: None,
        })
        .unwrap();
        j.append(&Entry::Move {
            game: 3,
            mv: mv("e2e4"),
        })
        .unwrap();
        drop(j);
        let whole = std::fs::read(&p).unwrap();
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(br#"{"type":"move","game":3,"uci":"e7"#)
            .unwrap();
        drop(f);
        let s = JournalState::read(&p).unwrap();
        assert!(s.torn);
        assert_eq!(s.valid_len, whole.len() as u64);
        assert_eq!(s.games[&3].moves, vec![mv("e2e4")]);
        let mut j = Journal::reopen(&s, false).unwrap();
        j.append(&Entry::Move {
            game: 3,
            mv: mv("e7e5"),
        })
        .unwrap();
        drop(j);
        let s = JournalState::read(&p).unwrap();
        assert!(!s.torn);
        assert_eq!(s.games[&3].moves, vec![mv("e2e4"), mv("e7e5")]);
        std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
    }

    #[test]
    fn clocks_are_checked_and_a_discard_voids_the_moves() {
        let p = tmp("discard");
        let mut j = Journal::create(&p, &serde_json::json!({}), false).unwrap();
        j.append(&Entry::Start {
            game: 1,
            started: None,
        })
        .unwrap();
        j.append(&Entry::Move {
            game: 1,
            mv: mv("e2e4"),
        })
        .unwrap();
        let clocks = Entry::Clocks {
            game: 1,
            ply: 1,
            used_ms: [5, 0],
            remaining_ms: [Some(100), None],
            offer: Some("draw".into()),
        };
        let line = Journal::encode(&clocks).unwrap();
        j.append_encoded(&line).unwrap();
        j.sync().unwrap();
        drop(j);
        let s = JournalState::read(&p).unwrap();
        assert_eq!(s.games[&1].moves.len(), 1);
        let mut j = Journal::reopen(&s, false).unwrap();
        j.append(&Entry::Discard { game: 1 }).unwrap();
        drop(j);
        let s = JournalState::read(&p).unwrap();
        assert!(s.games[&1].moves.is_empty());
        // Clocks that do not follow their move are damage.
        let mut j = Journal::reopen(&s, false).unwrap();
        j.append_encoded(&line).unwrap();
        j.append(&Entry::Start {
            game: 2,
            started: None,
        })
        .unwrap();
        drop(j);
        let e = JournalState::read(&p).unwrap_err().to_string();
        assert!(e.contains("clocks after move 1"), "{e}");
        std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
    }

    #[test]
    fn damage_before_the_end_is_an_error_naming_the_line() {
        let p = tmp("bad");
        std::fs::write(
            &p,
            "{\"type\":\"plan\",\"version\":1,\"plan\":{}}\nnot json\n{\"type\":\"start\",\"game\":0}\n",
        )
        .unwrap();
        let e = JournalState::read(&p).unwrap_err().to_string();
        assert!(e.contains(":2: not a journal entry"), "{e}");
        std::fs::write(&p, "{\"type\":\"start\",\"game\":0}\n").unwrap();
        assert!(JournalState::read(&p).is_err());
        std::fs::write(&p, "{\"type\":\"plan\",\"version\":1,\"plan\":{}}\n{\"type\":\"move\",\"game\":9,\"uci\":\"e2e4\",\"san\":\"e4\"}\n").unwrap();
        let e = JournalState::read(&p).unwrap_err().to_string();
        assert!(e.contains("never started"), "{e}");
        std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
    }
}
