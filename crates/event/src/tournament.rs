//! Local matches and tournaments (`rookery match`): a [`MatchPlan`] played
//! by worker threads over the one event runner ([`crate::runner`]), which
//! keeps the journal, the PGN and EPD outputs, the standings and the SPRT.
//!
//! Before the first game every engine is started once and its handshake
//! checked ([`MatchError::EngineStart`]: a program that cannot start is not
//! a match); options an engine does not declare are skipped with a warning
//! unless [`EngineConfig::strict_options`]. Worker threads then take games
//! from the runner in order; each keeps its own engine processes (started
//! on first use, restarted per game with `restart=on` and after a crash or
//! stall with `recover`). A game whose engine cannot be started later is
//! not a result: it goes back to the queue, and after
//! [`MAX_START_FAILURES`] failures in a row (or at once without `recover`)
//! the match stops. Every move is in the journal before the next is asked
//! for, so a match killed at any point resumes mid-game; an interrupt
//! (Ctrl-C) cuts the games in progress after their current move, journaled,
//! for `--resume` to finish.
//!
//! A match can be spread over several tasks ([`MatchPlan::shard`]): each
//! plays its share of the schedule (whole blocks, dealt in turn: see
//! [`Schedule::in_shard`]) with the openings an unsharded run would give
//! the same games, and with a pool ([`MatchPlan::pool`], [`crate::pool`])
//! the SPRT is taken over every shard's games and stops them all.
//! [`crate::merge`] puts the shards' games back together.

use crate::book::{BookConfig, BookError, Openings};
use crate::journal::{Entry, JournalState};
use crate::knockout::KnockoutReport;
use crate::pool::Pool;
use crate::runner::{
    Durability, EventKind, Finished, JournalHandle, RunPlan, Runner, RunnerError, RunnerSetup,
    SprtReport, Start,
};
use crate::schedule::{Pairing, Schedule, ScheduleError, Scheduled, Seeding, Sides};
use crate::standings::Standings;
use crate::stats::{Sprt, SprtState};
use rookery_core::Color;
use rookery_game::adjudicate::Rules;
use rookery_game::game::{play_game, Fault, FinishedGame, GameError, GameSetup, Stop, StopSignal};
use rookery_game::player::{EngineConfig, EngineLog, LogStyle, Player, PlayerError};
use rookery_game::pvcheck::PvReport;
use rookery_game::record::{GameRecord, MoveRecord, PgnStyle};
use rookery_io::shard::Shard;
use rookery_uci::host::Timeouts;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Everything a match needs: written whole into the journal's first line,
/// so `--resume` needs nothing else.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchPlan {
    /// The engines, in command-line order.
    pub engines: Vec<EngineConfig>,
    /// How they are paired.
    pub pairing: Pairing,
    /// Rounds.
    pub rounds: usize,
    /// Games per encounter and round (2: colours reversed on one opening).
    pub games: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// The opening book (none: the standard start or random Chess960 starts).
    pub book: Option<BookConfig>,
    /// Chess960 (random starts when there is no book).
    pub chess960: bool,
    /// The seed of random opening order and Chess960 starts.
    pub seed: u64,
    /// Adjudication.
    pub rules: Rules,
    /// The SPRT of the first engine against the second (two engines only),
    /// kept in the journal as its words (`elo0=0 elo1=5 alpha=0.05
    /// beta=0.05 model=normalized`).
    #[serde(with = "sprt_words")]
    pub sprt: Option<Sprt>,
    /// Restart a crashed or stalled engine and go on.
    pub recover: bool,
    /// The `Event` tag.
    pub event: String,
    /// The `Site` tag.
    pub site: String,
    /// The PGN output.
    pub pgn_out: Option<PathBuf>,
    /// Final positions as EPD.
    pub epd_out: Option<PathBuf>,
    /// Every line to and from every engine (`-`: standard error, or
    /// standard output in cutechess-cli's style, as its `-debug` prints).
    pub log: Option<PathBuf>,
    /// How the log's lines are written.
    #[serde(default)]
    pub log_style: LogStyle,
    /// How often the statistics are printed (`--ratinginterval`), kept so
    /// that a resumed match prints them as the one begun did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_interval: Option<u64>,
    /// The journal.
    pub journal: Option<PathBuf>,
    /// Sync every journal entry to disk (survives power loss).
    pub sync: bool,
    /// How long a move without a clock may take before the engine is stalled.
    pub stall_timeout: Duration,
    /// Time for the UCI handshake and for `readyok`.
    pub handshake_timeout: Duration,
    /// A pause between one game of a worker and its next (cutechess-cli's
    /// `-wait`).
    #[serde(default)]
    pub wait: Duration,
    /// Who has White in each encounter (`-noswap`, `-reverse`).
    #[serde(default)]
    pub sides: Sides,
    /// How the games are written to the PGN (`min`, `fi`).
    #[serde(default)]
    pub pgn_style: PgnStyle,
    /// A knockout's seeded players: the first `seeds` engines are placed
    /// by their order, the others in an order drawn by `seed`.
    #[serde(default)]
    pub seeds: usize,
    /// The shard of a match spread over several tasks: only its share of
    /// the schedule is played (`None`: all of it). Its outputs are the
    /// shard's own (`OUT.shard-K-of-N`).
    #[serde(default, with = "shard_text", skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The directory the shards share to pool their SPRT ([`crate::pool`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<PathBuf>,
}

/// A shard in a plan as its text, `K/N`.
mod shard_text {
    use rookery_io::shard::Shard;
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(shard: &Option<Shard>, s: S) -> Result<S::Ok, S::Error> {
        shard.map(|k| k.to_string()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Shard>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| t.parse().map_err(D::Error::custom))
            .transpose()
    }
}

/// An SPRT in a plan as its words, read back through
/// [`crate::stats::SprtConfig`]'s parser (validated): a journal whose
/// SPRT cannot be read is not a plan this build reads (never a match
/// without its test).
mod sprt_words {
    use crate::stats::Sprt;
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(sprt: &Option<Sprt>, s: S) -> Result<S::Ok, S::Error> {
        sprt.map(|t| t.config().to_string()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Sprt>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| t.parse().map_err(D::Error::custom))
            .transpose()
    }
}

/// What a plan's identity leaves out: how and where one task plays its
/// games, not which games they are.
const NOT_IDENTITY: [&str; 11] = [
    "concurrency",
    "pgn_out",
    "epd_out",
    "log",
    "journal",
    "sync",
    "stall_timeout",
    "handshake_timeout",
    "wait",
    "pool",
    "shard",
];

impl MatchPlan {
    /// A plan for `engines` with defaults: one round of one game, round-robin,
    /// no output files.
    pub fn new(engines: Vec<EngineConfig>) -> MatchPlan {
        MatchPlan {
            engines,
            pairing: Pairing::RoundRobin,
            rounds: 1,
            games: 1,
            concurrency: 1,
            book: None,
            chess960: false,
            seed: 0,
            rules: Rules::default(),
            sprt: None,
            recover: false,
            event: "rookery match".to_string(),
            site: "?".to_string(),
            pgn_out: None,
            epd_out: None,
            log: None,
            log_style: LogStyle::Rookery,
            rating_interval: None,
            journal: None,
            sync: true,
            stall_timeout: Duration::from_secs(60),
            handshake_timeout: Duration::from_secs(10),
            wait: Duration::ZERO,
            sides: Sides::default(),
            pgn_style: PgnStyle::default(),
            seeds: 0,
            shard: None,
            pool: None,
        }
    }

    /// What makes the match this match, whichever task plays which of its
    /// games: the engines and their options and limits, the schedule, the
    /// openings and their seed, the rules, the SPRT, the tags, the PGN's
    /// style and the number of shards; not the outputs, the concurrency,
    /// timeouts or which shard this is. Shards of one match have the same
    /// identity; its [`crate::pool::match_id`] names the match in a pool.
    pub fn identity(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(map) = v.as_object_mut() {
            for key in NOT_IDENTITY {
                map.remove(key);
            }
            if let Some(engines) = map.get_mut("engines").and_then(|e| e.as_array_mut()) {
                for e in engines.iter_mut().filter_map(|e| e.as_object_mut()) {
                    e.remove("strict_options");
                }
            }
            map.insert("shards".into(), self.shard.map_or(1, Shard::count).into());
        }
        v
    }

    /// The match's id ([`crate::pool::match_id`] of its identity).
    pub fn match_id(&self) -> String {
        crate::pool::match_id(&self.identity())
    }

    /// The schedule.
    ///
    /// # Errors
    /// [`ScheduleError`] for fewer than two engines or no games.
    pub fn schedule(&self) -> Result<Schedule, ScheduleError> {
        Schedule::new(self.engines.len(), self.pairing, self.rounds, self.games).map(|s| {
            s.with_sides(self.sides).with_seeding(Seeding {
                seeded: self.seeds,
                draw: self.seed,
            })
        })
    }

    /// The number of games in the schedule (0 when it has none).
    pub fn total_games(&self) -> usize {
        self.schedule().map_or(0, |s| s.len())
    }

    /// The plan a match journal was written with.
    ///
    /// # Errors
    /// [`MatchError::NotAMatch`] when the journal is not a match's of this
    /// build.
    pub fn from_journal(state: &JournalState) -> Result<MatchPlan, MatchError> {
        let bad = |why: String| MatchError::NotAMatch {
            path: state.path.clone(),
            why,
        };
        let run: RunPlan = serde_json::from_value(state.plan.clone())
            .map_err(|e| bad(format!("its plan is not one this build reads ({e})")))?;
        if run.kind != EventKind::Match {
            return Err(bad(format!("it is the journal of {:?}", run.kind)));
        }
        serde_json::from_value(run.driver).map_err(|e| bad(format!("not a match plan ({e})")))
    }

    /// The engines' names as the match starts: each `name=`, else its command.
    pub fn labels(&self) -> Vec<String> {
        self.engines.iter().map(EngineConfig::label).collect()
    }
}

/// Why a match cannot run or had to stop.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The plan is not playable.
    #[error("{0}")]
    Plan(String),
    /// An engine cannot be started (checked before the first game).
    #[error("engine {engine}: {reason}")]
    EngineStart {
        /// The engine's label.
        engine: String,
        /// Why.
        reason: String,
    },
    /// The opening book cannot be read.
    #[error(transparent)]
    Book(#[from] BookError),
    /// The journal, an output or the runner failed.
    #[error(transparent)]
    Runner(#[from] RunnerError),
    /// A journal that is not a match's.
    #[error("{}: not a match journal: {why}", .path.display())]
    NotAMatch {
        /// The journal.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The pool of a sharded match cannot be used.
    #[error(transparent)]
    Pool(#[from] crate::pool::PoolError),
    /// The engine log cannot be written.
    #[error("{}: {error}", .path.display())]
    Log {
        /// The log.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
}

/// What the match tells its caller as it goes.
#[derive(Debug)]
pub enum MatchEvent<'a> {
    /// A game began.
    Started {
        /// Its number (0-based).
        number: usize,
        /// White's name.
        white: &'a str,
        /// Black's name.
        black: &'a str,
        /// Whether it continues a game cut off earlier.
        resumed: bool,
    },
    /// A game ended and was recorded.
    Finished {
        /// Its record.
        record: &'a GameRecord,
        /// The standings after it.
        standings: &'a Standings,
        /// The SPRT after it, if one runs (a sharded match's over the
        /// pool): the numbers the match decides on.
        sprt: Option<&'a SprtReport>,
    },
    /// The SPRT decided on the games counted so far: no new games start;
    /// games in progress finish and are counted too.
    Decided(&'a SprtReport),
    /// Something the user should know (a skipped option, a restart, a stop).
    Note(String),
    /// An engine does not declare an option its configuration sets: the
    /// option is skipped (with `strict_options` the match is refused
    /// instead).
    MissingOption {
        /// The engine's name.
        engine: &'a str,
        /// The option.
        option: &'a str,
    },
    /// An engine's option is set to a value its declaration does not take:
    /// the option is skipped (with `strict_options` the match is refused
    /// instead).
    RefusedValue {
        /// The engine's name.
        engine: &'a str,
        /// The option.
        option: &'a str,
        /// The value.
        value: &'a str,
    },
    /// An engine reported a PV that is wrong for the game (see
    /// [`rookery_game::pvcheck`]).
    PvWarning {
        /// The game's number (0-based).
        game: usize,
        /// The engine's name.
        engine: &'a str,
        /// What is wrong, with the info line and the game so far.
        report: &'a PvReport,
    },
}

/// Who follows the games in progress move by move (a live page: see
/// [`run_match_watched`]). Called on the worker threads as the games go,
/// before the next move is asked for: an implementation must be quick and
/// must not block (update a shared view, do not write to the network).
/// A match with no watcher pays nothing for this.
pub trait GameWatcher: Sync {
    /// Game `setup.number` (0-based) begins between `white` and `black`;
    /// a resumed game has made the moves `played` already (they are not
    /// reported again).
    fn started(&self, setup: &GameSetup, white: &str, black: &str, played: &[MoveRecord]);
    /// Game `game` (0-based) made move `mv` (book moves too).
    fn moved(&self, game: usize, mv: &MoveRecord);
    /// Game `game` (0-based) is no longer played: it ended (its record
    /// follows as [`MatchEvent::Finished`] unless it was cut off), or it
    /// will be played again.
    fn left(&self, game: usize);
}

/// Why a match stopped before its schedule's end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "snake_case")]
pub enum MatchStop {
    /// The SPRT decided.
    Sprt(SprtState),
    /// An engine failed (crash, stall, failure to start) and `recover` was
    /// not given, or it failed to start too often.
    EngineFailure(String),
    /// The user interrupted it (Ctrl-C, SIGTERM); `--resume` finishes it.
    Interrupted,
}

impl MatchStop {
    /// Whether the stop is a failure (an engine), not a normal end.
    pub fn is_failure(&self) -> bool {
        matches!(self, MatchStop::EngineFailure(_))
    }
}

/// How the match ended.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    /// The final standings: every game played.
    pub standings: Standings,
    /// The SPRT: its decision with the games it was taken on, and the test
    /// over every game played.
    pub sprt: Option<SprtReport>,
    /// Why the match stopped before the schedule's end, if it did.
    pub stopped: Option<MatchStop>,
    /// Games of the schedule not played.
    pub unplayed: usize,
    /// The referee's time between a move and the next request: median and
    /// 99th percentile, in microseconds.
    pub overhead_us: Option<(u64, u64)>,
    /// Options engines did not declare, skipped (`engine: option`).
    pub warnings: Vec<String>,
    /// A knockout's bracket: every round's encounters, their scores and
    /// winners, and the winner of the knockout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knockout: Option<KnockoutReport>,
}

enum Msg {
    Started {
        number: usize,
        white: String,
        black: String,
        resumed: bool,
    },
    /// A game over; the worker waits for the acknowledgement before it asks
    /// for another game, so an SPRT decided by this game stops it first.
    Finished(Box<FinishedGame>, Scheduled, mpsc::SyncSender<()>),
    Note(String),
    PvWarning {
        game: usize,
        engine: String,
        report: Box<PvReport>,
    },
    Fatal(String),
}

/// Shared between the workers.
struct Shared<'a> {
    plan: &'a MatchPlan,
    runner: Mutex<Runner>,
    /// Told when a game is counted or the match stops: a worker with no
    /// game to take waits on it while a knockout's next games wait for
    /// results.
    counted: Condvar,
    journal: Option<JournalHandle>,
    log: Option<EngineLog>,
    /// Set when no new game may start.
    stop: AtomicBool,
    /// The stop signals of the games in progress.
    running: Mutex<HashMap<usize, StopSignal>>,
    /// Consecutive start failures per engine.
    start_failures: Mutex<Vec<u32>>,
    /// Who follows the games move by move.
    watcher: Option<&'a dyn GameWatcher>,
}

/// How many times in a row an engine may fail to start (with `recover`)
/// before the match stops.
pub const MAX_START_FAILURES: u32 = 3;

fn timeouts(plan: &MatchPlan) -> Timeouts {
    Timeouts {
        handshake: plan.handshake_timeout,
        ready: plan.handshake_timeout,
        ..Timeouts::default()
    }
}

/// Every engine started once, before any game.
struct Checked {
    /// The players, for the first worker.
    players: Vec<Option<Box<dyn Player>>>,
    /// Options the engines did not declare: (engine, option).
    missing: Vec<(String, String)>,
    /// Values the engines' options do not take: (engine, option, value).
    refused: Vec<(String, String, String)>,
}

/// Starts every engine once and checks its handshake, before any game.
fn start_all(plan: &MatchPlan, log: Option<&EngineLog>) -> Result<Checked, MatchError> {
    let mut players = Vec::new();
    let mut missing = Vec::new();
    let mut refused = Vec::new();
    for (e, cfg) in plan.engines.iter().enumerate() {
        let log = log.map(|l| EngineLog {
            label: log_label(l, cfg, e, 0),
            ..l.clone()
        });
        match cfg.start(timeouts(plan), log) {
            Ok(p) => {
                for o in p.skipped_options() {
                    missing.push((p.name().to_string(), o.clone()));
                }
                for (o, v) in p.refused_values() {
                    refused.push((p.name().to_string(), o.clone(), v.clone()));
                }
                players.push(Some(Box::new(p) as Box<dyn Player>));
            }
            Err(err) => {
                return Err(MatchError::EngineStart {
                    engine: cfg.label(),
                    reason: match err {
                        PlayerError::Start { reason, .. } => reason,
                        other => other.to_string(),
                    },
                })
            }
        }
    }
    Ok(Checked {
        players,
        missing,
        refused,
    })
}

/// Runs a match: a new one (`Start::New`, or `Start::Fresh` to start over
/// an old journal), or the one a journal records (`Start::Resume`).
/// `interrupt` stops it cleanly when set (Ctrl-C): no new game starts, the
/// games in progress are cut after their current move, and the summary is
/// of the games finished. `on_event` is called on the caller's thread.
///
/// # Errors
/// [`MatchError`]: a bad plan, an engine that cannot start, an unreadable
/// book, a journal or output file that cannot be written. Engines that fail
/// during the match are game results (and, without `recover`, a stop
/// reported in the summary), not errors.
pub fn run_match(
    plan: &MatchPlan,
    start: Start,
    interrupt: &AtomicBool,
    on_event: &mut dyn FnMut(MatchEvent<'_>),
) -> Result<MatchSummary, MatchError> {
    run_match_watched(plan, start, interrupt, None, on_event)
}

/// [`run_match`], with `watcher` told of every game's start and moves as
/// they are made, on the worker threads (a live page's game in progress).
///
/// # Errors
/// As [`run_match`].
pub fn run_match_watched(
    plan: &MatchPlan,
    start: Start,
    interrupt: &AtomicBool,
    watcher: Option<&dyn GameWatcher>,
    on_event: &mut dyn FnMut(MatchEvent<'_>),
) -> Result<MatchSummary, MatchError> {
    let schedule = plan
        .schedule()
        .map_err(|e| MatchError::Plan(e.to_string()))?;
    if plan.concurrency == 0 {
        return Err(MatchError::Plan("concurrency must be at least 1".into()));
    }
    if plan.sprt.is_some() {
        if plan.engines.len() != 2 {
            return Err(MatchError::Plan("SPRT needs exactly two engines".into()));
        }
        if plan.pairing == Pairing::Knockout {
            return Err(MatchError::Plan(
                "SPRT cannot decide a knockout (its games depend on results)".into(),
            ));
        }
    }
    let sprt = plan.sprt;
    if plan.shard.is_some() && !schedule.is_fixed() {
        return Err(MatchError::Plan(
            "a knockout cannot be played in shards (its games depend on results)".into(),
        ));
    }
    if plan.pool.is_some() && plan.shard.is_none() {
        return Err(MatchError::Plan(
            "a pool is shared by the shards of a match: give the shard".into(),
        ));
    }
    let openings = match &plan.book {
        Some(book) => Openings::from_book(book, plan.seed)?,
        None if plan.chess960 => Openings::chess960(plan.seed),
        None => Openings::standard(),
    };
    let log = match &plan.log {
        Some(p) if p.as_os_str() == "-" => Some(EngineLog {
            sink: match plan.log_style {
                LogStyle::Rookery => Arc::new(Mutex::new(io::stderr())),
                LogStyle::Cutechess => Arc::new(Mutex::new(io::stdout())),
            },
            label: String::new(),
            epoch: Instant::now(),
            style: plan.log_style,
            started: Arc::default(),
        }),
        Some(p) => {
            let f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|error| MatchError::Log {
                    path: p.clone(),
                    error,
                })?;
            let sink: Arc<Mutex<dyn Write + Send>> = Arc::new(Mutex::new(io::LineWriter::new(f)));
            Some(EngineLog {
                sink,
                label: String::new(),
                epoch: Instant::now(),
                style: plan.log_style,
                started: Arc::default(),
            })
        }
        None => None,
    };
    let Checked {
        players: first_players,
        missing,
        refused,
    } = start_all(plan, log.as_ref())?;
    for (engine, option) in &missing {
        on_event(MatchEvent::MissingOption { engine, option });
    }
    for (engine, option, value) in &refused {
        on_event(MatchEvent::RefusedValue {
            engine,
            option,
            value,
        });
    }
    let warnings = missing
        .iter()
        .map(|(engine, o)| format!("engine {engine} has no option {o:?}: it is not set"))
        .chain(refused.iter().map(|(engine, o, v)| {
            format!("engine {engine}'s option {o:?} does not take {v:?}: it is not set")
        }))
        .collect();
    let pool = match (&plan.pool, plan.shard) {
        (Some(dir), Some(shard)) => Some(Pool::open(
            dir,
            &plan.identity(),
            shard,
            schedule,
            plan.labels(),
        )?),
        _ => None,
    };
    if let Some(shard) = plan.shard {
        let share = schedule
            .iter()
            .filter(|g| schedule.in_shard(g, shard))
            .count();
        let per = schedule.games_per_encounter();
        let mut note = format!(
            "Shard {shard}: {share} of the {} games (every {} block of {per} from block {}), match {}",
            schedule.len(),
            nth(shard.count()),
            shard.number(),
            plan.match_id()
        );
        if let Some(p) = &pool {
            note.push_str(&format!(
                "; pool {} ({} pair{} in it; the SPRT is over the pool's pairs)",
                p.dir().display(),
                p.len(),
                if p.len() == 1 { "" } else { "s" }
            ));
        }
        on_event(MatchEvent::Note(note));
    }
    let runner = Runner::open_with(
        RunnerSetup {
            kind: EventKind::Match,
            players: plan.labels(),
            schedule,
            openings,
            journal: plan.journal.clone(),
            durability: if plan.sync {
                Durability::Background
            } else {
                Durability::Written
            },
            pgn: plan.pgn_out.clone(),
            epd: plan.epd_out.clone(),
            sprt,
            driver: serde_json::to_value(plan).map_err(|e| MatchError::Plan(e.to_string()))?,
            resume_base: None,
            shard: plan.shard,
            pool,
        },
        start,
        plan.pgn_style.clone(),
    )?;
    let mut stopped: Option<MatchStop> = None;
    if let Some(report) = runner.sprt().filter(|r| r.decided()) {
        if let Some(d) = &report.decision {
            stopped = Some(MatchStop::Sprt(d.status.state));
        }
    }
    // A decision is announced once (one an earlier run took is not).
    let mut announced = stopped.is_some();
    let shared = Shared {
        plan,
        journal: runner.journal(),
        stop: AtomicBool::new(runner.is_stopping()),
        runner: Mutex::new(runner),
        counted: Condvar::new(),
        log,
        running: Mutex::new(HashMap::new()),
        start_failures: Mutex::new(vec![0; plan.engines.len()]),
        watcher,
    };
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut interrupted = false;
    std::thread::scope(|scope| -> Result<(), MatchError> {
        let mut first = Some(first_players);
        for w in 0..plan.concurrency {
            let tx = tx.clone();
            let shared = &shared;
            let players = first.take().unwrap_or_default();
            scope.spawn(move || worker(w, shared, tx, players));
        }
        drop(tx);
        loop {
            announce(&shared, &mut announced, &mut stopped, on_event);
            if interrupt.load(Ordering::SeqCst) && !interrupted {
                interrupted = true;
                shared.stop.store(true, Ordering::SeqCst);
                lock(&shared).stop();
                shared.counted.notify_all();
                if let Ok(running) = shared.running.lock() {
                    for s in running.values() {
                        s.stop(Stop::Shutdown);
                    }
                }
                if stopped.is_none() {
                    stopped = Some(MatchStop::Interrupted);
                }
                on_event(MatchEvent::Note(
                    "Interrupted: the games in progress stop after their current move; \
                     --resume finishes the match (interrupt again to stop at once)"
                        .into(),
                ));
            }
            let msg = match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            match msg {
                Msg::Started {
                    number,
                    white,
                    black,
                    resumed,
                } => on_event(MatchEvent::Started {
                    number,
                    white: &white,
                    black: &black,
                    resumed,
                }),
                Msg::Note(n) => on_event(MatchEvent::Note(n)),
                Msg::PvWarning {
                    game,
                    engine,
                    report,
                } => on_event(MatchEvent::PvWarning {
                    game,
                    engine: &engine,
                    report: &report,
                }),
                Msg::Fatal(n) => {
                    shared.stop.store(true, Ordering::SeqCst);
                    lock(&shared).stop();
                    shared.counted.notify_all();
                    if stopped.is_none() {
                        stopped = Some(MatchStop::EngineFailure(n.clone()));
                    }
                    on_event(MatchEvent::Note(n));
                }
                Msg::Finished(fin, game, ack) => {
                    let mut runner = lock(&shared);
                    let done = runner.finish(&game, &fin)?;
                    shared.counted.notify_all();
                    match done {
                        Finished::Recorded | Finished::Decided(_) => {
                            let sprt = runner.sprt();
                            on_event(MatchEvent::Finished {
                                record: &fin.record,
                                standings: runner.standings(),
                                sprt: sprt.as_ref(),
                            });
                        }
                        Finished::Cut | Finished::Replayed | Finished::Held => {}
                    }
                    // A pooled decision lets the blocks in progress end.
                    if matches!(done, Finished::Decided(_)) && runner.is_stopping() {
                        shared.stop.store(true, Ordering::SeqCst);
                    }
                    drop(runner);
                    announce(&shared, &mut announced, &mut stopped, on_event);
                    let _ = ack.send(());
                }
            }
        }
        announce(&shared, &mut announced, &mut stopped, on_event);
        Ok(())
    })?;
    let runner = shared
        .runner
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    let summary = runner.close()?;
    let overhead_us = summary
        .latency
        .quantile_us(0.5)
        .zip(summary.latency.quantile_us(0.99));
    Ok(MatchSummary {
        standings: summary.standings,
        sprt: summary.sprt,
        stopped,
        unplayed: summary.unplayed,
        overhead_us,
        warnings,
        knockout: summary.knockout,
    })
}

/// "2nd", "3rd", "7th": every N-th.
fn nth(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Tells the caller what the runner has to say: its notes (pool files
/// ignored) and, once, the SPRT's decision, which may have been taken on
/// other shards' games when a worker asked for its next game.
fn announce(
    shared: &Shared<'_>,
    announced: &mut bool,
    stopped: &mut Option<MatchStop>,
    on_event: &mut dyn FnMut(MatchEvent<'_>),
) {
    let mut runner = lock(shared);
    for n in runner.take_notes() {
        on_event(MatchEvent::Note(n));
    }
    if *announced {
        return;
    }
    let Some(report) = runner.sprt().filter(SprtReport::decided) else {
        return;
    };
    *announced = true;
    if let Some(d) = &report.decision {
        if stopped.is_none() || *stopped == Some(MatchStop::Interrupted) {
            *stopped = Some(MatchStop::Sprt(d.status.state));
        }
    }
    on_event(MatchEvent::Decided(&report));
}

/// The runner. A worker that panicked holding the lock leaves a usable
/// runner: every change to it is complete before the lock is released.
fn lock<'a>(shared: &'a Shared<'_>) -> std::sync::MutexGuard<'a, Runner> {
    shared.runner.lock().unwrap_or_else(|p| p.into_inner())
}

/// The label of engine `e`'s lines in the log, for a process started for
/// `worker`: `NAME#E.W` in rookery's style; `NAME(i)` in cutechess-cli's,
/// `i` counting the processes started (0 first), as cutechess-cli numbers
/// them.
fn log_label(log: &EngineLog, cfg: &EngineConfig, e: usize, worker: usize) -> String {
    match log.style {
        LogStyle::Rookery => format!("{}#{}.{}", cfg.label(), e + 1, worker + 1),
        LogStyle::Cutechess => format!(
            "{}({})",
            cfg.label(),
            log.started.fetch_add(1, Ordering::SeqCst)
        ),
    }
}

fn start_player(shared: &Shared<'_>, e: usize, worker: usize) -> Result<Box<dyn Player>, String> {
    let cfg = &shared.plan.engines[e];
    let log = shared.log.as_ref().map(|l| EngineLog {
        label: log_label(l, cfg, e, worker),
        ..l.clone()
    });
    match cfg.start(timeouts(shared.plan), log) {
        Ok(p) => Ok(Box::new(p)),
        Err(PlayerError::Start { reason, .. }) => Err(reason),
        Err(other) => Err(other.to_string()),
    }
}

/// How long a worker waiting for a knockout's next games sleeps before it
/// looks again, should a wake-up be missed.
const WAIT_FOR_RESULTS: Duration = Duration::from_millis(250);

/// The next game for a worker: `None` when there is none to play. While a
/// knockout's next games wait for the results of games in progress, the
/// worker waits.
fn next_game(shared: &Shared<'_>) -> Result<Option<crate::runner::Assignment>, String> {
    let mut r = shared
        .runner
        .lock()
        .map_err(|_| "the runner's lock is poisoned".to_string())?;
    loop {
        if let Some(a) = r.next(|_| true).map_err(|e| e.to_string())? {
            return Ok(Some(a));
        }
        if shared.stop.load(Ordering::SeqCst) || !r.has_work() {
            return Ok(None);
        }
        if r.in_progress() == 0 {
            // Nothing to wait for: a result would never come.
            return Err("no game can be started and none is in progress to wait for".into());
        }
        r = shared
            .counted
            .wait_timeout(r, WAIT_FOR_RESULTS)
            .map_err(|_| "the runner's lock is poisoned".to_string())?
            .0;
    }
}

fn worker(
    id: usize,
    shared: &Shared<'_>,
    tx: mpsc::Sender<Msg>,
    mut players: Vec<Option<Box<dyn Player>>>,
) {
    let plan = shared.plan;
    players.resize_with(plan.engines.len(), || None);
    // A fatal failure stops the match before this worker takes another
    // game: the flag is set here, not when the caller reads the message.
    let fatal = |msg: String| {
        shared.stop.store(true, Ordering::SeqCst);
        let _ = tx.send(Msg::Fatal(msg));
    };
    let mut first_game = true;
    'games: loop {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        if !first_game && !plan.wait.is_zero() {
            std::thread::sleep(plan.wait);
        }
        first_game = false;
        let next = next_game(shared);
        let a = match next {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => {
                fatal(e);
                break;
            }
        };
        let g = a.game;
        for e in g.players() {
            if plan.engines[e].restart {
                if let Some(mut p) = players[e].take() {
                    p.quit();
                }
            }
            if players[e].is_none() {
                match start_player(shared, e, id) {
                    Ok(p) => {
                        if let Ok(mut f) = shared.start_failures.lock() {
                            f[e] = 0;
                        }
                        players[e] = Some(p);
                    }
                    Err(reason) => {
                        // Not a result: the game waits for the engine.
                        if let Ok(mut r) = shared.runner.lock() {
                            r.not_started(&g, a.resume.clone());
                        }
                        let n = shared
                            .start_failures
                            .lock()
                            .map_or(MAX_START_FAILURES, |mut f| {
                                f[e] += 1;
                                f[e]
                            });
                        let name = plan.engines[e].label();
                        if !plan.recover {
                            fatal(format!(
                                "{name} could not be started for game {}: {reason} (use --recover to retry)",
                                g.number + 1
                            ));
                        } else if n >= MAX_START_FAILURES {
                            fatal(format!(
                                "{name} failed to start {n} times in a row ({reason}): stopping the match"
                            ));
                        } else {
                            let _ = tx.send(Msg::Note(format!(
                                "{name} could not be started ({reason}): trying again"
                            )));
                            std::thread::sleep(Duration::from_millis(500));
                        }
                        continue 'games;
                    }
                }
            }
        }
        let [mut white, mut black] = [players[g.white].take(), players[g.black].take()];
        let (Some(w), Some(b)) = (white.as_mut(), black.as_mut()) else {
            break;
        };
        let stop = StopSignal::new();
        let setup = GameSetup {
            number: g.number,
            event: plan.event.clone(),
            site: plan.site.clone(),
            // A knockout's Round tag names its round (stage).
            round: match plan.pairing {
                Pairing::Knockout => g.round.to_string(),
                Pairing::RoundRobin | Pairing::Gauntlet => (g.number + 1).to_string(),
            },
            start: a.opening.start.clone(),
            opening: a.opening.moves.clone(),
            tc: [plan.engines[g.white].tc, plan.engines[g.black].tc],
            margin: [
                plan.engines[g.white].timemargin,
                plan.engines[g.black].timemargin,
            ],
            rules: plan.rules,
            stall_timeout: plan.stall_timeout,
            date: None,
            history: a.history.clone(),
            stop: stop.clone(),
        };
        if let Ok(mut r) = shared.running.lock() {
            r.insert(g.number, stop.clone());
        }
        // An interrupt that came while the game was being set up.
        if shared.stop.load(Ordering::SeqCst) {
            stop.stop(Stop::Shutdown);
        }
        let names = [w.name().to_string(), b.name().to_string()];
        let _ = tx.send(Msg::Started {
            number: g.number,
            white: names[0].clone(),
            black: names[1].clone(),
            resumed: !a.resume.is_empty(),
        });
        if let Some(watcher) = shared.watcher {
            watcher.started(&setup, &names[0], &names[1], &a.resume);
        }
        let resume = (!a.resume.is_empty()).then_some(a.resume.as_slice());
        let result = play_game(&setup, w.as_mut(), b.as_mut(), resume, &mut |mv| {
            if let Some(watcher) = shared.watcher {
                watcher.moved(g.number, mv);
            }
            for report in &mv.pv_warnings {
                let engine = match report.mover {
                    Color::White => names[0].clone(),
                    Color::Black => names[1].clone(),
                };
                let _ = tx.send(Msg::PvWarning {
                    game: g.number,
                    engine,
                    report: Box::new(report.clone()),
                });
            }
            match &shared.journal {
                Some(j) => j.record(&[Entry::Move {
                    game: g.number,
                    mv: mv.clone(),
                }]),
                None => Ok(()),
            }
        });
        if let Ok(mut r) = shared.running.lock() {
            r.remove(&g.number);
        }
        if let Some(watcher) = shared.watcher {
            watcher.left(g.number);
        }
        let fin = match result {
            Ok(f) => f,
            Err(GameError::Resume(why)) => {
                // The journaled moves do not replay: played again.
                if let Ok(mut r) = shared.runner.lock() {
                    if let Err(e) = r.replay(&g) {
                        fatal(e.to_string());
                        break;
                    }
                }
                let _ = tx.send(Msg::Note(format!(
                    "game {}: {why}: it is played again from the start",
                    g.number + 1
                )));
                players[g.white] = white;
                players[g.black] = black;
                continue;
            }
            Err(e) => {
                fatal(format!("game {}: {e}", g.number + 1));
                break;
            }
        };
        // Decide what to do with each player after the game.
        for (side, e) in g.players().into_iter().enumerate() {
            let fault = fin.faults[side];
            let name = plan.engines[e].label();
            if matches!(fault, Some(Fault::Crashed | Fault::Stalled)) {
                let what = if fault == Some(Fault::Crashed) {
                    "crashed"
                } else {
                    "stalled"
                };
                if plan.recover {
                    let _ = tx.send(Msg::Note(format!(
                        "{name} {what} in game {}: restarting it for the next game",
                        g.number + 1
                    )));
                } else {
                    fatal(format!(
                        "{name} {what} in game {}: stopping the match (use --recover to restart engines and go on)",
                        g.number + 1
                    ));
                }
            }
        }
        // A faulty player is dropped; the next game starts it afresh.
        players[g.white] = white.filter(|_| fin.faults[0].is_none_or(|f| f == Fault::Misbehaved));
        players[g.black] = black.filter(|_| fin.faults[1].is_none_or(|f| f == Fault::Misbehaved));
        let (ack, acked) = mpsc::sync_channel(1);
        if tx.send(Msg::Finished(Box::new(fin), g, ack)).is_err() || acked.recv().is_err() {
            // The match loop is gone (an error): no more games.
            break;
        }
    }
    for p in players.iter_mut().flatten() {
        p.quit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a watcher was told, in order.
    #[derive(Default)]
    struct Told(Mutex<Vec<(usize, String)>>);

    impl GameWatcher for Told {
        fn started(&self, setup: &GameSetup, _: &str, _: &str, played: &[MoveRecord]) {
            assert!(played.is_empty());
            self.0.lock().unwrap().push((setup.number, "start".into()));
        }
        fn moved(&self, game: usize, mv: &MoveRecord) {
            self.0.lock().unwrap().push((game, mv.uci.clone()));
        }
        fn left(&self, game: usize) {
            self.0.lock().unwrap().push((game, "left".into()));
        }
    }

    #[test]
    fn a_watcher_sees_every_game_start_move_by_move_and_leave() {
        let engine = |name: &str| {
            let mut e = EngineConfig::builtin();
            e.apply_all([format!("name={name}").as_str(), "nodes=1"])
                .unwrap();
            e
        };
        let mut plan = MatchPlan::new(vec![engine("A"), engine("B")]);
        plan.games = 2;
        plan.rules.max_moves = Some(12);
        let told = Told::default();
        let mut records = Vec::new();
        let stop = AtomicBool::new(false);
        run_match_watched(&plan, Start::New, &stop, Some(&told), &mut |ev| {
            if let MatchEvent::Finished { record, .. } = ev {
                records.push(record.clone());
            }
        })
        .unwrap();
        assert_eq!(records.len(), 2);
        let told = told.0.into_inner().unwrap();
        for r in &records {
            let mine: Vec<&str> = told
                .iter()
                .filter(|(g, _)| *g == r.number)
                .map(|(_, what)| what.as_str())
                .collect();
            let moves: Vec<&str> = r.moves.iter().map(|m| m.uci.as_str()).collect();
            assert_eq!(mine.first(), Some(&"start"));
            assert_eq!(mine.last(), Some(&"left"));
            assert_eq!(mine[1..mine.len() - 1], moves[..], "game {}", r.number);
        }
    }

    /// The SPRT travels typed: the journal keeps its words and gives the
    /// same test back; a journal whose SPRT cannot be read is refused with
    /// the journal's name, never read as a match without its test.
    #[test]
    fn a_journal_keeps_the_sprt_and_refuses_a_bad_one() {
        let dir = rookery_testkit::TempDir::new("sprt-journal");
        let mut engine = EngineConfig::builtin();
        engine.apply_all(["nodes=1"]).unwrap();
        let mut plan = MatchPlan::new(vec![engine.clone(), engine]);
        plan.rules.max_moves = Some(4);
        plan.sprt = Some("elo0=0 elo1=5 alpha=0.1".parse().unwrap());
        let journal = dir.path().join("m.journal");
        plan.journal = Some(journal.clone());
        run_match_watched(
            &plan,
            Start::New,
            &AtomicBool::new(false),
            None,
            &mut |_| {},
        )
        .unwrap();
        let mut state = JournalState::read(&journal).unwrap();
        let back = MatchPlan::from_journal(&state).unwrap();
        assert_eq!(back.sprt, plan.sprt);
        state.plan["driver"]["sprt"] = "elo0=5 elo1=0".into();
        match MatchPlan::from_journal(&state) {
            Err(MatchError::NotAMatch { path, why }) => {
                assert_eq!(path, journal);
                assert!(why.contains("elo1"), "{why}");
            }
            other => panic!("a bad SPRT was read: {other:?}"),
        }
    }
}
