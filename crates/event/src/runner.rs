//! The one event runner: everything around the games of a match or an
//! event, written once for `rookery match` (driven by threads) and the
//! Argus referee (driven by tokio).
//!
//! A [`Runner`] owns the journal, the output files, the queue of games, the
//! [`Standings`], the SPRT and the referee's latency figures. A driver asks
//! it for the next game to play ([`Runner::next`]: which game, from which
//! opening, and the moves already played when it resumes), plays it with
//! the game loop ([`rookery_game::game::play_game`]) writing every move through
//! the [`JournalHandle`], and hands it back ([`Runner::finish`]); the runner
//! journals its end, writes the PGN and EPD, counts it and decides the
//! SPRT. The drivers own only what differs: threads and engine processes
//! for a match; connections, the supervisor's console and the spectator
//! page for Argus.
//!
//! Starting ([`Start`]) is where nothing may be lost:
//! - [`Start::New`] refuses to start over an unfinished event's journal
//!   (its games would be lost and the PGN would get them twice): the user
//!   says [`Start::Resume`] or [`Start::Fresh`]. A finished event's journal
//!   is replaced.
//! - [`Start::Fresh`] keeps the old journal as `JOURNAL.1` (the first free
//!   number) and moves the games the old run wrote to its PGN and EPD
//!   files into `PGN.1` and `EPD.1` (what was there before that run stays),
//!   so the new run never appends to a file holding the old run's games.
//! - [`Start::Resume`] cuts the outputs back to where the event began and
//!   writes every finished game again from the journal, in the order they
//!   ended: each game is in the PGN exactly once. Games cut off mid-way
//!   are played first, from their last journaled move; then the rest.
//!
//! The journal's first line is the runner's [`RunPlan`] (players, schedule,
//! where the outputs began) with the driver's own plan inside it.
//!
//! A match played in shards ([`RunnerSetup::shard`]) plays only its share
//! of the schedule ([`Schedule::in_shard`]: whole blocks, dealt in turn);
//! the other games are [`GameState::Elsewhere`] and its journal is over
//! when its share is. With a [`Pool`] the SPRT is the pool's: every block
//! this shard finishes is published there, the others' blocks are read
//! before a block begins and after one ends, and the test is over every
//! pooled block. When it decides, no new block begins; the games of blocks
//! already begun are played to their end, so that every block in the pool
//! is a whole pair (a shard stops within one pair of the decision).

use crate::book::{Opening, Openings};
use crate::journal::{self, Entry, Journal, JournalError, JournalState, StartedProcess};
use crate::knockout::{Bracket, KnockoutReport};
use crate::pool::{Pool, PoolError, PoolGame};
use crate::schedule::{Schedule, Scheduled};
use crate::standings::Standings;
use crate::stats::{Sprt, SprtState, SprtStatus, Tally};
use rookery_game::game::{FinishedGame, Stop};
use rookery_game::record::{GameRecord, MoveRecord, PgnStyle, RecordError};
use rookery_io::shard::Shard;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Which kind of event a journal records.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// `rookery match`.
    Match,
    /// An Argus event (`rookery referee serve`).
    Argus,
}

/// The runner's part of the journal's first line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunPlan {
    /// The kind of event.
    pub kind: EventKind,
    /// The players, in the event's order.
    pub players: Vec<String>,
    /// Who plays whom.
    pub schedule: Schedule,
    /// The PGN output and its length when the event began.
    pub pgn: Option<(PathBuf, u64)>,
    /// The EPD output (final positions) and its length when the event began.
    pub epd: Option<(PathBuf, u64)>,
    /// The driver's own plan (a match's engines and limits, an event's
    /// name and date).
    pub driver: serde_json::Value,
}

/// How durable the journal's entries are when [`JournalHandle::record`]
/// returns.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Written to the file (they survive the process being killed); a
    /// background thread makes them durable within
    /// [`journal::SYNC_INTERVAL`].
    Background,
    /// Written and made durable (`fdatasync`) before the call returns (the
    /// Argus referee: before the next `respond` goes out).
    EachEntry,
    /// Written only (a power loss may cost more than the last moves).
    Written,
}

/// What a runner is set up with.
#[derive(Clone, Debug)]
pub struct RunnerSetup {
    /// The kind of event.
    pub kind: EventKind,
    /// The players' names, in the event's order.
    pub players: Vec<String>,
    /// Who plays whom.
    pub schedule: Schedule,
    /// Where each game starts.
    pub openings: Openings,
    /// The journal, if the event keeps one.
    pub journal: Option<PathBuf>,
    /// How durable its entries are.
    pub durability: Durability,
    /// Finished games in PGN.
    pub pgn: Option<PathBuf>,
    /// Final positions as EPD.
    pub epd: Option<PathBuf>,
    /// The SPRT of the first player against the second (two players only).
    pub sprt: Option<Sprt>,
    /// The driver's own plan, kept in the journal.
    pub driver: serde_json::Value,
    /// When resuming into a PGN file other than the one the journal's plan
    /// names (a standby referee's own), where this event's games begin in
    /// it (by default its length now: the games are appended).
    pub resume_base: Option<u64>,
    /// The shard of a match spread over several tasks: only its share of
    /// the schedule is played (`None`: every game).
    pub shard: Option<Shard>,
    /// The pool the shards share: the SPRT is taken over every shard's
    /// published blocks (see the module docs).
    pub pool: Option<Pool>,
}

/// How the runner starts.
#[derive(Debug)]
pub enum Start {
    /// A new event. An unfinished event's journal at the same path is an
    /// error ([`RunnerError::Unfinished`]); a finished one is replaced.
    New,
    /// A new event; an old journal (finished or not) is kept as
    /// `JOURNAL.N`, and the games the old run wrote to the outputs are
    /// moved to `PGN.N` and `EPD.N`.
    Fresh,
    /// Continue the event this journal records.
    Resume(Box<JournalState>),
}

/// Why a runner cannot start or go on.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// The journal cannot be read or written.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The journal belongs to an unfinished event, and a new one was asked
    /// for.
    #[error(
        "{}: the journal of an unfinished event ({done} of {total} games finished): \
         continue it with --resume, or start again with --fresh (the old journal is then \
         kept as {}.1)", .path.display(), .path.display()
    )]
    Unfinished {
        /// The journal.
        path: PathBuf,
        /// Games it has finished.
        done: usize,
        /// Games in its schedule.
        total: usize,
    },
    /// A file exists where the journal goes and is not a journal.
    #[error("{}: exists and is not a journal this build reads ({why}); move it away or start with --fresh", .path.display())]
    NotAJournal {
        /// The file.
        path: PathBuf,
        /// Why it cannot be read.
        why: String,
    },
    /// The journal is of another event than the one asked for.
    #[error("cannot resume from {}: {why}", .path.display())]
    Mismatch {
        /// The journal.
        path: PathBuf,
        /// What differs.
        why: String,
    },
    /// An output file cannot be written.
    #[error("{}: {error}", .path.display())]
    Output {
        /// The file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// A journaled record does not replay.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The pool of a sharded match cannot be written.
    #[error(transparent)]
    Pool(#[from] PoolError),
}

fn output_err(path: &Path) -> impl Fn(io::Error) -> RunnerError + '_ {
    move |error| RunnerError::Output {
        path: path.to_path_buf(),
        error,
    }
}

/// Somebody following the journal (a standby referee): given every
/// entry's bytes as they are written; `false` ends the subscription.
pub type Follower = Box<dyn FnMut(&Arc<[u8]>) -> bool + Send>;

struct Sink {
    journal: Journal,
    durability: Durability,
    followers: Vec<Follower>,
}

/// The journal as the games write it: cheap to clone, shared by every game
/// in progress and the runner.
#[derive(Clone)]
pub struct JournalHandle {
    sink: Arc<Mutex<Sink>>,
}

impl JournalHandle {
    /// Writes `entries` in one write, made as durable as the runner's
    /// [`Durability`] says, and hands them to the followers.
    ///
    /// # Errors
    /// The journal cannot be written: the event must stop.
    pub fn record(&self, entries: &[Entry]) -> io::Result<()> {
        let mut bytes = Vec::new();
        for e in entries {
            bytes.extend(Journal::encode(e)?);
        }
        let mut s = self
            .sink
            .lock()
            .map_err(|_| io::Error::other("the journal's lock is poisoned"))?;
        s.journal.append_encoded(&bytes).map_err(io::Error::other)?;
        if s.durability == Durability::EachEntry {
            s.journal.sync().map_err(io::Error::other)?;
        }
        if !s.followers.is_empty() {
            let line: Arc<[u8]> = bytes.into();
            s.followers.retain_mut(|f| f(&line));
        }
        Ok(())
    }

    /// The journal's bytes from `from` (a line boundary: 0, or the length
    /// of a copy the follower holds), and `follower` subscribed to every
    /// entry written after them: nothing is missed or given twice.
    ///
    /// # Errors
    /// The journal cannot be read, or `from` is not a line boundary of it.
    pub fn follow(&self, from: u64, follower: Follower) -> Result<Vec<u8>, String> {
        let mut s = self
            .sink
            .lock()
            .map_err(|_| "the journal is unavailable".to_string())?;
        let bytes =
            std::fs::read(s.journal.path()).map_err(|e| format!("cannot read the journal: {e}"))?;
        let from = usize::try_from(from).unwrap_or(usize::MAX);
        if from > bytes.len() || (from > 0 && bytes[from - 1] != b'\n') {
            return Err(format!(
                "Journal {from}: not a line boundary of the journal ({} bytes)",
                bytes.len()
            ));
        }
        s.followers.push(follower);
        Ok(bytes[from..].to_vec())
    }

    /// The journal's path.
    pub fn path(&self) -> PathBuf {
        self.sink
            .lock()
            .map(|s| s.journal.path().to_path_buf())
            .unwrap_or_default()
    }
}

/// Where a game of the schedule stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameState {
    /// Not started.
    Unplayed,
    /// Waiting in the queue to be played again or continued.
    Queued,
    /// Being played.
    Running,
    /// Finished and recorded.
    Done,
    /// Another shard's (a match played in shards).
    Elsewhere,
}

/// A game to play, as [`Runner::next`] hands it out.
#[derive(Clone, Debug)]
pub struct Assignment {
    /// The game.
    pub game: Scheduled,
    /// Where it starts.
    pub opening: Opening,
    /// The moves already played (a game cut off and continued), opening
    /// moves included.
    pub resume: Vec<MoveRecord>,
    /// When the game first started and the wall time it was played before
    /// (a continued game), for its `GameStartTime` and `GameDuration`.
    pub history: Option<((String, String), u64)>,
}

/// The SPRT's decision and the games it was taken on.
#[derive(Clone, Debug, Serialize)]
pub struct SprtDecision {
    /// The test over the games counted when it decided.
    pub status: SprtStatus,
    /// Those games, from the first player's view.
    pub tally: Tally,
}

/// The SPRT of a match: its decision, if it took one, and the test over
/// every game played (games in progress when it decided finish after it).
#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    /// The decision, with the counts it was taken on.
    pub decision: Option<SprtDecision>,
    /// The test over every game played.
    pub last: SprtStatus,
}

impl SprtReport {
    /// The test over `tally`, and its decision if `tally` takes one: the one
    /// place a match's SPRT status is computed, for the runner as games end
    /// and for a merge of shards over all their games.
    pub fn over(sprt: &Sprt, tally: Tally) -> SprtReport {
        let status = sprt.status(&tally);
        SprtReport {
            decision: (status.state != SprtState::Continue)
                .then_some(SprtDecision { status, tally }),
            last: status,
        }
    }

    /// The test as it is to be shown: the decision's, once taken (the
    /// games after it do not change it), else over every game played.
    pub fn shown(&self) -> SprtStatus {
        self.decision.as_ref().map_or(self.last, |d| d.status)
    }

    /// Whether the test decided (H0 or H1 accepted).
    pub fn decided(&self) -> bool {
        self.decision.is_some()
    }
}

/// The referee's time per move (a reply read to the next request sent),
/// kept as a histogram of 32 buckets per octave of microseconds, so that a
/// month-long event costs a few kilobytes; quantiles are within 2.2%.
#[derive(Clone, Debug)]
pub struct Latency {
    buckets: Vec<u64>,
    count: u64,
}

/// Buckets per doubling of the latency.
const BUCKETS_PER_OCTAVE: f64 = 32.0;

impl Default for Latency {
    fn default() -> Latency {
        Latency {
            // 2^40 us (12 days) is beyond any move.
            buckets: vec![0; 40 * BUCKETS_PER_OCTAVE as usize + 1],
            count: 0,
        }
    }
}

impl Latency {
    fn bucket(us: u64) -> usize {
        if us <= 1 {
            return 0;
        }
        ((us as f64).log2() * BUCKETS_PER_OCTAVE).ceil() as usize
    }

    /// Adds samples.
    pub fn add(&mut self, samples: &[Duration]) {
        for d in samples {
            let us = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
            let b = Latency::bucket(us).min(self.buckets.len() - 1);
            self.buckets[b] += 1;
            self.count += 1;
        }
    }

    /// Samples counted.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The `q` quantile (0..=1) in microseconds (the upper edge of its
    /// bucket), `None` with no samples.
    pub fn quantile_us(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        // The rank of the quantile among the samples, from 1.
        let rank = ((self.count - 1) as f64 * q.clamp(0.0, 1.0)).round() as u64 + 1;
        let mut seen = 0;
        for (b, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some((b as f64 / BUCKETS_PER_OCTAVE).exp2().round() as u64);
            }
        }
        None
    }
}

/// How a match or event ended, as the runner saw it.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The final standings (every game played).
    pub standings: Standings,
    /// The SPRT, when one ran.
    pub sprt: Option<SprtReport>,
    /// Games of the schedule not played.
    pub unplayed: usize,
    /// The referee's time per move.
    pub latency: Latency,
    /// The event is over for good (recorded in the journal): every game
    /// played or the SPRT decided. `false` when it stopped early and can be
    /// resumed.
    pub over: bool,
    /// A knockout's bracket as it stands.
    pub knockout: Option<KnockoutReport>,
}

/// What [`Runner::finish`] did with a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finished {
    /// Recorded and counted.
    Recorded,
    /// Recorded and counted, and the SPRT decided on it: no more games
    /// start.
    Decided(SprtState),
    /// Not recorded: it is queued to be played again from its first move
    /// (adjourned).
    Replayed,
    /// Not recorded: it is queued to go on from its last move (held).
    Held,
    /// Not recorded: cut off by a stop of the event; a resume continues it.
    Cut,
}

/// The one event runner (see the module docs).
pub struct Runner {
    plan: RunPlan,
    schedule: Schedule,
    /// A knockout's games, paired as results come in (`None`: the
    /// schedule's games, fixed in advance).
    bracket: Option<Bracket>,
    openings: Openings,
    journal: Option<JournalHandle>,
    pgn: Option<(File, PathBuf)>,
    epd: Option<(File, PathBuf)>,
    standings: Standings,
    sprt: Option<Sprt>,
    decision: Option<SprtDecision>,
    state: Vec<GameState>,
    /// Games to continue or replay before new ones: (game, moves so far).
    front: VecDeque<(usize, Vec<MoveRecord>)>,
    /// Adjourned games, played again after the new ones.
    back: VecDeque<usize>,
    /// No game before this one is unplayed.
    cursor: usize,
    /// First start times of games begun in an earlier run.
    first_started: std::collections::HashMap<usize, (String, String)>,
    latency: Latency,
    stopping: bool,
    resumed: Option<(usize, usize)>,
    previous_processes: Vec<StartedProcess>,
    finished_before: Vec<GameRecord>,
    style: PgnStyle,
    /// The pool of a sharded match.
    pool: Option<Pool>,
    /// The pooled SPRT decided: no new block begins.
    no_new_blocks: bool,
    /// The blocks in the pool when each block in progress began.
    block_known: std::collections::HashMap<usize, Vec<(usize, usize)>>,
    /// The results of the games finished of each block in progress.
    block_results: std::collections::HashMap<usize, Vec<PoolGame>>,
}

impl Runner {
    /// Opens the journal and the outputs as `start` says (see the module
    /// docs) and makes the queue.
    ///
    /// # Errors
    /// [`RunnerError`]: an unfinished journal where a new event was asked
    /// for, a journal of another event, a file that cannot be written.
    pub fn open(setup: RunnerSetup, start: Start) -> Result<Runner, RunnerError> {
        Runner::open_with(setup, start, PgnStyle::default())
    }

    /// [`Runner::open`], writing the PGN output in `style` (the games
    /// written again on a resume too).
    ///
    /// # Errors
    /// As [`Runner::open`].
    pub fn open_with(
        setup: RunnerSetup,
        start: Start,
        style: PgnStyle,
    ) -> Result<Runner, RunnerError> {
        let sprt = setup.sprt;
        let mut previous_processes = Vec::new();
        let (plan, state) = match start {
            Start::Resume(state) => {
                let plan = resume_plan(&setup, &state)?;
                previous_processes.clone_from(&state.processes);
                (plan, Some(*state))
            }
            Start::New | Start::Fresh => {
                let fresh = matches!(start, Start::Fresh);
                if let Some(path) = &setup.journal {
                    if let Some(old) = make_room(path, &setup, fresh)? {
                        previous_processes = old;
                    }
                }
                if let (true, Some(pgn)) = (style.fresh, &setup.pgn) {
                    move_tail(pgn, 0)?;
                }
                let len = |p: &Option<PathBuf>| -> Option<(PathBuf, u64)> {
                    p.as_ref().map(|p| (p.clone(), file_len(p)))
                };
                let plan = RunPlan {
                    kind: setup.kind,
                    players: setup.players.clone(),
                    schedule: setup.schedule,
                    pgn: len(&setup.pgn),
                    epd: len(&setup.epd),
                    driver: setup.driver.clone(),
                };
                (plan, None)
            }
        };
        let sync = setup.durability == Durability::Background;
        let journal = match (&setup.journal, &state) {
            (_, Some(s)) => Some(Journal::reopen(s, sync)?),
            (Some(path), None) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(output_err(dir))?;
                }
                let value = serde_json::to_value(&plan).map_err(|e| RunnerError::Output {
                    path: path.clone(),
                    error: io::Error::other(e),
                })?;
                Some(Journal::create(path, &value, sync)?)
            }
            (None, None) => None,
        };
        let journal = journal.map(|journal| JournalHandle {
            sink: Arc::new(Mutex::new(Sink {
                journal,
                durability: setup.durability,
                followers: Vec::new(),
            })),
        });
        let finished: Vec<GameRecord> = state
            .as_ref()
            .map_or_else(Vec::new, |s| s.finished().into_iter().cloned().collect());
        let resuming = state.is_some();
        let pgn = reopen_output(plan.pgn.as_ref(), resuming, &finished, |r| {
            r.pgn_text_with(&style)
        })?;
        let epd = reopen_output(plan.epd.as_ref(), resuming, &finished, |r| {
            Ok(format!("{}\n", r.epd_line()?))
        })?;
        let schedule = plan.schedule;
        let mut bracket = Bracket::new(&schedule);
        if let Some(b) = bracket.as_mut() {
            // The games an earlier run finished, in number order, pair the
            // games that followed them as they were paired then.
            let mut by_number: Vec<&GameRecord> = finished.iter().collect();
            by_number.sort_by_key(|r| r.number);
            for r in by_number {
                b.record(r.number, r.outcome);
            }
        }
        let games = bracket.as_ref().map_or(schedule.len(), Bracket::len);
        let mut state_of = vec![GameState::Unplayed; games];
        if let Some(shard) = setup.shard {
            for (n, s) in state_of.iter_mut().enumerate() {
                if schedule
                    .get(n)
                    .is_none_or(|g| !schedule.in_shard(&g, shard))
                {
                    *s = GameState::Elsewhere;
                }
            }
        }
        let mut runner = Runner {
            standings: Standings::new(plan.players.clone()),
            state: state_of,
            plan,
            schedule,
            bracket,
            openings: setup.openings,
            journal,
            pgn,
            epd,
            sprt,
            decision: None,
            front: VecDeque::new(),
            back: VecDeque::new(),
            cursor: 0,
            first_started: std::collections::HashMap::new(),
            latency: Latency::default(),
            stopping: false,
            resumed: None,
            previous_processes,
            finished_before: Vec::new(),
            style,
            pool: setup.pool,
            no_new_blocks: false,
            block_known: std::collections::HashMap::new(),
            block_results: std::collections::HashMap::new(),
        };
        if let Some(state) = &state {
            for r in &finished {
                if let Some(g) = runner.game(r.number) {
                    if runner.state[r.number] == GameState::Elsewhere {
                        continue;
                    }
                    runner.standings.set_name(g.white, &r.white);
                    runner.standings.set_name(g.black, &r.black);
                    runner.standings.add(&g, r);
                    runner.state[r.number] = GameState::Done;
                    runner.publish_if_whole(&g, r)?;
                }
            }
            let mut open = 0;
            for (&n, g) in &state.games {
                if let Some(t) = &g.started {
                    runner.first_started.insert(n, t.clone());
                }
                if g.end.is_none() && runner.state.get(n) == Some(&GameState::Unplayed) {
                    runner.state[n] = GameState::Queued;
                    runner.front.push_back((n, g.moves.clone()));
                    open += 1;
                }
            }
            runner.resumed = Some((finished.len(), open));
            runner.finished_before = finished;
            if state.over.is_some() {
                runner.stopping = true;
            }
        }
        if let Some(pool) = runner.pool.as_mut() {
            pool.refresh()?;
        }
        runner.check_sprt();
        Ok(runner)
    }

    /// The games of `block` in the schedule's numbers.
    fn block_games(&self, block: usize) -> std::ops::Range<usize> {
        let per = self.schedule.games_per_encounter();
        block * per..(block * per + per).min(self.state.len())
    }

    /// Whether a game of game `n`'s block has been handed out (a block in
    /// progress, whose other games are played even after the pooled SPRT
    /// decided).
    fn block_begun(&self, n: usize) -> bool {
        let Some(g) = self.game(n) else {
            return false;
        };
        self.block_games(g.block).any(|m| {
            matches!(
                self.state[m],
                GameState::Running | GameState::Done | GameState::Queued
            )
        })
    }

    /// With a pool: counts a finished game of this shard in its block, and
    /// publishes the block once all its games are finished.
    fn publish_if_whole(
        &mut self,
        game: &Scheduled,
        record: &GameRecord,
    ) -> Result<(), RunnerError> {
        if self.pool.is_none() {
            return Ok(());
        }
        let games = self.block_results.entry(game.block).or_default();
        if !games.iter().any(|g| g.number == game.number) {
            games.push(PoolGame {
                number: game.number,
                outcome: record.outcome,
                termination: record.termination,
                reason: record.reason.clone(),
            });
        }
        if games.len() < self.schedule.games_per_encounter() {
            return Ok(());
        }
        let mut games = self.block_results.remove(&game.block).unwrap_or_default();
        games.sort_by_key(|g| g.number);
        let known = self.block_known.remove(&game.block);
        if let Some(pool) = self.pool.as_mut() {
            pool.publish(game.block, games, known)?;
        }
        Ok(())
    }

    /// Notes for the user (pool files ignored), taken once.
    pub fn take_notes(&mut self) -> Vec<String> {
        self.pool.as_mut().map(Pool::take_notes).unwrap_or_default()
    }

    /// The pool of a sharded match.
    pub fn pool(&self) -> Option<&Pool> {
        self.pool.as_ref()
    }

    /// Games finished and in progress taken from the journal, when resuming.
    pub fn resumed(&self) -> Option<(usize, usize)> {
        self.resumed
    }

    /// The records of the games an earlier run finished, in the order they
    /// ended (empty unless resuming).
    pub fn finished_records(&self) -> &[GameRecord] {
        &self.finished_before
    }

    /// Programs that an earlier run of this event started for players: to
    /// be ended if they are still running.
    pub fn previous_processes(&self) -> &[StartedProcess] {
        &self.previous_processes
    }

    /// The journal, for the games to write their moves (`None` when the
    /// event keeps none).
    pub fn journal(&self) -> Option<JournalHandle> {
        self.journal.clone()
    }

    /// The plan written in the journal.
    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }

    /// The schedule.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Game `n` as paired: from the schedule, or a knockout's bracket.
    pub fn game(&self, n: usize) -> Option<Scheduled> {
        match &self.bracket {
            Some(b) => b.get(n),
            None => self.schedule.get(n),
        }
    }

    /// A knockout's bracket as it stands, with the players' names.
    pub fn knockout(&self) -> Option<KnockoutReport> {
        let names = self.standings.names();
        self.bracket.as_ref().map(|b| b.report(names))
    }

    /// The standings so far.
    pub fn standings(&self) -> &Standings {
        &self.standings
    }

    /// Where game `n` stands.
    pub fn game_state(&self, n: usize) -> Option<GameState> {
        self.state.get(n).copied()
    }

    /// Renames player `i` (an engine's own name, once it is known).
    pub fn set_name(&mut self, i: usize, name: &str) {
        self.standings.set_name(i, name);
    }

    /// Starts no more games (a stop of the event, or an SPRT decision).
    pub fn stop(&mut self) {
        self.stopping = true;
    }

    /// Whether new games may still start.
    pub fn is_stopping(&self) -> bool {
        self.stopping
    }

    /// Games neither finished nor being played.
    pub fn unplayed(&self) -> usize {
        self.state
            .iter()
            .filter(|s| matches!(s, GameState::Unplayed | GameState::Queued))
            .count()
    }

    /// Whether a game remains to be started (regardless of who is ready);
    /// for a knockout without a winner, also when its next games wait for
    /// the results of those in progress ([`Runner::next`] gives `None`
    /// meanwhile).
    pub fn has_work(&self) -> bool {
        if self.no_new_blocks {
            // Only the games of blocks in progress.
            return !self.stopping
                && (!self.front.is_empty()
                    || !self.back.is_empty()
                    || (self.cursor.min(self.state.len())..self.state.len())
                        .any(|n| self.state[n] == GameState::Unplayed && self.block_begun(n)));
        }
        !self.stopping
            && (!self.front.is_empty()
                || !self.back.is_empty()
                || self.state[self.cursor.min(self.state.len())..].contains(&GameState::Unplayed)
                || self.bracket.as_ref().is_some_and(|b| !b.is_over()))
    }

    /// Games being played (handed out and not yet taken back).
    pub fn in_progress(&self) -> usize {
        self.state
            .iter()
            .filter(|&&s| s == GameState::Running)
            .count()
    }

    /// Adds the referee's time per move of a game.
    pub fn add_latencies(&mut self, samples: &[Duration]) {
        self.latency.add(samples);
    }

    /// The next game whose players are `ready`, in order: games to be
    /// continued first, then the unplayed ones in schedule order, then
    /// adjourned ones. Its `start` is journaled before it is handed out.
    ///
    /// # Errors
    /// The journal cannot be written.
    pub fn next(
        &mut self,
        mut ready: impl FnMut(&Scheduled) -> bool,
    ) -> Result<Option<Assignment>, RunnerError> {
        if self.stopping {
            return Ok(None);
        }
        let mut found: Option<(usize, Vec<MoveRecord>)> = None;
        if let Some(i) = self
            .front
            .iter()
            .position(|(n, _)| self.game(*n).is_some_and(|g| ready(&g)))
        {
            found = self.front.remove(i);
        }
        if found.is_none() {
            while self.cursor < self.state.len() && self.state[self.cursor] != GameState::Unplayed {
                self.cursor += 1;
            }
            // Any two players meet within a round: looking one round ahead
            // finds a game for whoever is ready (a knockout's paired games
            // are at most a round).
            let window = match &self.bracket {
                Some(b) => b.len(),
                None => self.schedule.per_round().max(1),
            };
            let end = self.cursor.saturating_add(window).min(self.state.len());
            for n in self.cursor..end {
                if self.state[n] == GameState::Unplayed
                    && (!self.no_new_blocks || self.block_begun(n))
                    && self.game(n).is_some_and(|g| ready(&g))
                {
                    found = Some((n, Vec::new()));
                    break;
                }
            }
        }
        if found.is_none() {
            if let Some(i) = self
                .back
                .iter()
                .position(|n| self.game(*n).is_some_and(|g| ready(&g)))
            {
                found = self.back.remove(i).map(|n| (n, Vec::new()));
            }
        }
        let Some((n, resume)) = found else {
            return Ok(None);
        };
        let Some(game) = self.game(n) else {
            return Ok(None);
        };
        if self.pool.is_some() && !self.block_begun(n) {
            // A new block: the others' blocks first; the pooled SPRT may
            // have decided on them.
            if let Some(pool) = self.pool.as_mut() {
                pool.refresh()?;
            }
            self.check_sprt();
            if self.no_new_blocks {
                return self.next(ready);
            }
            let known = self.pool.as_ref().map(Pool::known).unwrap_or_default();
            self.block_known.insert(game.block, known);
        }
        self.state[n] = GameState::Running;
        let first = self.first_started.get(&n).cloned();
        let started = first.clone().unwrap_or_else(rookery_game::game::utc_now);
        self.first_started
            .entry(n)
            .or_insert_with(|| started.clone());
        self.write(&[Entry::Start {
            game: n,
            started: Some(started),
        }])?;
        // The wall time of the earlier part of a continued game: its moves'
        // times (the moves are most of it).
        let history = first.filter(|_| !resume.is_empty()).map(|t| {
            (
                t,
                resume
                    .iter()
                    .map(|m| m.time_ms)
                    .fold(0u64, u64::saturating_add),
            )
        });
        Ok(Some(Assignment {
            opening: self.openings.for_game(&game),
            game,
            resume,
            history,
        }))
    }

    /// A game handed out by [`Runner::next`] could not begin (a player
    /// could not be started): it goes back to the front of the queue,
    /// unrecorded. It is not a result.
    pub fn not_started(&mut self, game: &Scheduled, moves: Vec<MoveRecord>) {
        if let Some(s) = self.state.get_mut(game.number) {
            *s = GameState::Queued;
            self.front.push_front((game.number, moves));
        }
    }

    /// A game whose journaled moves did not replay: it is played again
    /// from its first move, after the others.
    ///
    /// # Errors
    /// The journal cannot be written.
    pub fn replay(&mut self, game: &Scheduled) -> Result<(), RunnerError> {
        self.write(&[Entry::Discard { game: game.number }])?;
        if let Some(s) = self.state.get_mut(game.number) {
            *s = GameState::Queued;
            self.back.push_back(game.number);
        }
        Ok(())
    }

    /// Takes a game back from its driver: a game that ended is journaled,
    /// written to the outputs and counted (the SPRT decides on it); a game
    /// stopped from outside is queued again or left to a resume, as its
    /// [`Stop`] says.
    ///
    /// # Errors
    /// The journal or an output cannot be written, or the record does not
    /// replay.
    pub fn finish(
        &mut self,
        game: &Scheduled,
        fin: &FinishedGame,
    ) -> Result<Finished, RunnerError> {
        self.latency.add(&fin.overheads);
        let n = game.number;
        match fin.stop {
            Some(Stop::Adjourn) => {
                self.replay(game)?;
                return Ok(Finished::Replayed);
            }
            Some(Stop::Hold) => {
                if let Some(s) = self.state.get_mut(n) {
                    *s = GameState::Queued;
                    self.front.push_front((n, fin.record.moves.clone()));
                }
                return Ok(Finished::Held);
            }
            Some(Stop::Shutdown) => {
                // Not over: a resume continues it from its journaled moves
                // (and writes the outputs again without it). Meanwhile the
                // PGN shows it as it stands, `*`.
                if let Some(s) = self.state.get_mut(n) {
                    *s = GameState::Queued;
                    self.front.push_back((n, fin.record.moves.clone()));
                }
                if let Some((f, p)) = self.pgn.as_mut().filter(|_| !self.style.finished_only) {
                    f.write_all(fin.record.pgn_text_with(&self.style)?.as_bytes())
                        .and_then(|()| f.flush())
                        .map_err(output_err(p))?;
                }
                return Ok(Finished::Cut);
            }
            Some(Stop::Adjudicate(_)) | None => {}
        }
        let r = &fin.record;
        self.write(&[Entry::End {
            game: n,
            record: Box::new(r.clone()),
        }])?;
        if let Some(s) = self.state.get_mut(n) {
            *s = GameState::Done;
        }
        if let Some((f, p)) = self.pgn.as_mut() {
            f.write_all(r.pgn_text_with(&self.style)?.as_bytes())
                .and_then(|()| f.flush())
                .map_err(output_err(p))?;
        }
        if let Some((f, p)) = self.epd.as_mut() {
            writeln!(f, "{}", r.epd_line()?)
                .and_then(|()| f.flush())
                .map_err(output_err(p))?;
        }
        self.standings.set_name(game.white, &r.white);
        self.standings.set_name(game.black, &r.black);
        self.standings.add(game, r);
        if let Some(b) = self.bracket.as_mut() {
            if b.record(n, r.outcome) {
                self.state.resize(b.len(), GameState::Unplayed);
            }
        }
        if self.pool.is_some() {
            self.publish_if_whole(game, r)?;
            if let Some(pool) = self.pool.as_mut() {
                pool.refresh()?;
            }
        }
        Ok(match self.check_sprt() {
            Some(state) => Finished::Decided(state),
            None => Finished::Recorded,
        })
    }

    /// The SPRT's counts: the pool's (every shard's published blocks), or
    /// this run's games.
    fn sprt_tally(&self) -> Tally {
        match &self.pool {
            Some(pool) => pool.tally(),
            None => self.standings.versus(0, 1),
        }
    }

    /// Decides the SPRT on the games counted, once: the decision stops the
    /// event (with a pool: no new block begins).
    fn check_sprt(&mut self) -> Option<SprtState> {
        let sprt = self.sprt.as_ref()?;
        if self.decision.is_some() {
            return None;
        }
        let decision = SprtReport::over(sprt, self.sprt_tally()).decision?;
        let state = decision.status.state;
        self.decision = Some(decision);
        if self.pool.is_some() {
            self.no_new_blocks = true;
        } else {
            self.stopping = true;
        }
        Some(state)
    }

    /// The SPRT so far (a sharded match's over the pool).
    pub fn sprt(&self) -> Option<SprtReport> {
        let sprt = self.sprt.as_ref()?;
        // The decision is the first one taken: games in progress then
        // finish after it and count only in `last`.
        Some(SprtReport {
            decision: self.decision.clone(),
            ..SprtReport::over(sprt, self.sprt_tally())
        })
    }

    fn write(&self, entries: &[Entry]) -> Result<(), RunnerError> {
        match &self.journal {
            Some(j) => j.record(entries).map_err(|error| RunnerError::Output {
                path: j.path(),
                error,
            }),
            None => Ok(()),
        }
    }

    /// Records the address the event listens on (see
    /// [`JournalState::listening`]).
    ///
    /// # Errors
    /// The journal cannot be written.
    pub fn record_address(&self, address: &str) -> Result<(), RunnerError> {
        self.write(&[Entry::Listening {
            address: address.to_string(),
        }])
    }

    /// Records a program started for a player (its process group), so that
    /// a later run of the event can end it.
    ///
    /// # Errors
    /// The journal cannot be written.
    pub fn record_process(&self, p: &StartedProcess) -> Result<(), RunnerError> {
        self.write(&[Entry::Process {
            player: p.player.clone(),
            pid: p.pid,
            since: p.since,
            run: p.run.clone(),
        }])
    }

    /// Ends the run: when every game was played or the SPRT decided, the
    /// journal says the event is over (a new run may then replace it).
    ///
    /// # Errors
    /// The journal or an output cannot be written.
    pub fn close(mut self) -> Result<RunSummary, RunnerError> {
        let all_done = self
            .state
            .iter()
            .all(|&s| matches!(s, GameState::Done | GameState::Elsewhere))
            && self.bracket.as_ref().is_none_or(Bracket::is_over);
        let reason = if all_done {
            Some(match &self.bracket {
                Some(_) => "the knockout has its winner".to_string(),
                None => "every game played".to_string(),
            })
        } else {
            self.decision
                .as_ref()
                .map(|d| format!("SPRT: {:?}", d.status.state))
        };
        if let Some(reason) = &reason {
            self.write(&[Entry::Over {
                reason: reason.clone(),
            }])?;
        }
        for (f, p) in [self.pgn.as_mut(), self.epd.as_mut()].into_iter().flatten() {
            f.sync_data().map_err(output_err(p))?;
        }
        Ok(RunSummary {
            knockout: self.knockout(),
            sprt: self.sprt(),
            unplayed: self.unplayed(),
            standings: self.standings,
            latency: self.latency,
            over: reason.is_some(),
        })
    }
}

/// The games a journal of `schedule` must have finished to be over without
/// saying so: a knockout's journal is over only when it says so.
fn scheduled(schedule: &Schedule) -> usize {
    if schedule.is_fixed() {
        schedule.len()
    } else {
        usize::MAX
    }
}

/// The plan of the journal `state`, checked against the event `setup`
/// describes.
fn resume_plan(setup: &RunnerSetup, state: &JournalState) -> Result<RunPlan, RunnerError> {
    let bad = |why: String| RunnerError::Mismatch {
        path: state.path.clone(),
        why,
    };
    let plan: RunPlan = serde_json::from_value(state.plan.clone())
        .map_err(|e| bad(format!("not a journal of this build's events ({e})")))?;
    if plan.kind != setup.kind {
        return Err(bad(format!(
            "it is the journal of {:?}, not of {:?}",
            plan.kind, setup.kind
        )));
    }
    if plan.players != setup.players || plan.schedule != setup.schedule {
        return Err(bad(format!(
            "its players {:?} and schedule {:?} are not the event's ({:?}, {:?})",
            plan.players, plan.schedule, setup.players, setup.schedule
        )));
    }
    // The outputs are the event's own: the journal's when they are the
    // same files, else (a standby's) from `resume_base` or their end.
    let output = |now: &Option<PathBuf>, then: &Option<(PathBuf, u64)>| {
        now.as_ref().map(|p| match then {
            Some((q, base)) if same_file(p, q) => (p.clone(), *base),
            _ => (p.clone(), setup.resume_base.unwrap_or_else(|| file_len(p))),
        })
    };
    let mut plan = plan;
    plan.pgn = output(&setup.pgn, &plan.pgn);
    plan.epd = output(&setup.epd, &plan.epd);
    Ok(plan)
}

/// Makes room for a new journal at `path`: nothing there is fine; a
/// finished event's journal is replaced; an unfinished one is refused,
/// unless `fresh`, which keeps it aside with the games its run wrote.
/// Returns the old journal's started programs, to be ended.
fn make_room(
    path: &Path,
    setup: &RunnerSetup,
    fresh: bool,
) -> Result<Option<Vec<StartedProcess>>, RunnerError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let old = JournalState::read(path);
    let old_plan = old
        .as_ref()
        .ok()
        .and_then(|s| serde_json::from_value::<RunPlan>(s.plan.clone()).ok());
    let processes = old
        .as_ref()
        .map(|s| s.processes.clone())
        .unwrap_or_default();
    if !fresh {
        match (&old, &old_plan) {
            (Err(e), _) => {
                return Err(RunnerError::NotAJournal {
                    path: path.to_path_buf(),
                    why: e.to_string(),
                })
            }
            (Ok(s), Some(plan)) if !s.is_over(scheduled(&plan.schedule)) => {
                return Err(RunnerError::Unfinished {
                    path: path.to_path_buf(),
                    done: s.finished().len(),
                    total: plan.schedule.len(),
                })
            }
            (Ok(_), None) => {
                return Err(RunnerError::NotAJournal {
                    path: path.to_path_buf(),
                    why: "its plan is not of this build".into(),
                })
            }
            // Over: replaced below.
            (Ok(_), Some(_)) => {}
        }
        std::fs::remove_file(path).map_err(output_err(path))?;
        return Ok(Some(processes));
    }
    journal::rotate(path).map_err(output_err(path))?;
    // The games the old run wrote go with it.
    if let Some(plan) = old_plan {
        for (old, new) in [(&plan.pgn, &setup.pgn), (&plan.epd, &setup.epd)] {
            if let (Some((file, base)), Some(now)) = (old, new) {
                if same_file(file, now) {
                    move_tail(file, *base)?;
                }
            }
        }
    }
    Ok(Some(processes))
}

fn same_file(a: &Path, b: &Path) -> bool {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    abs(a) == abs(b)
}

/// Moves the bytes of `path` past `base` (an earlier run's games) into the
/// first free `PATH.N`, and cuts `path` back to `base`.
fn move_tail(path: &Path, base: u64) -> Result<(), RunnerError> {
    let len = file_len(path);
    if len <= base {
        return Ok(());
    }
    let err = output_err(path);
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(&err)?;
    f.seek(SeekFrom::Start(base)).map_err(&err)?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail).map_err(&err)?;
    let mut n = 1u32;
    let to = loop {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        let to = PathBuf::from(name);
        if std::fs::symlink_metadata(&to).is_err() {
            break to;
        }
        n += 1;
    };
    let mut out = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&to)
        .map_err(output_err(&to))?;
    out.write_all(&tail)
        .and_then(|()| out.sync_all())
        .map_err(output_err(&to))?;
    f.set_len(base).map_err(&err)?;
    f.sync_all().map_err(&err)
}

/// The current size of a file (0 when it does not exist).
pub fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Opens an output for appending: when resuming, cut back to where the
/// event began and the finished games written again, each as `text` gives
/// it; otherwise as it is (a new event appends).
fn reopen_output(
    out: Option<&(PathBuf, u64)>,
    resuming: bool,
    finished: &[GameRecord],
    text: impl Fn(&GameRecord) -> Result<String, RecordError>,
) -> Result<Option<(File, PathBuf)>, RunnerError> {
    let Some((path, base)) = out else {
        return Ok(None);
    };
    let err = output_err(path);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(&err)?;
    }
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(&err)?;
    if resuming {
        let len = f.metadata().map_err(&err)?.len();
        f.set_len((*base).min(len)).map_err(&err)?;
    }
    drop(f);
    let mut f = OpenOptions::new().append(true).open(path).map_err(&err)?;
    if resuming {
        for r in finished {
            f.write_all(text(r)?.as_bytes()).map_err(&err)?;
        }
        f.sync_data().map_err(&err)?;
    }
    Ok(Some((f, path.clone())))
}

#[cfg(test)]
mod tests;
