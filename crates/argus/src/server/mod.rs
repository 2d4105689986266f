//! The Argus TCP server (feature `server`): runs an event.
//!
//! One tokio task per connection reads records (lines of at most 4,096
//! bytes, handshake and idle timeouts) and writes the referee's; one task
//! schedules the games; each game runs the synchronous game loop
//! ([`rookery_game::game::play_game`]) on a blocking thread with a
//! [`NetPlayer`](super::net::NetPlayer) per client, bridged to the connections by channels, so
//! nothing blocks the runtime. The logs are written by a thread of their
//! own ([`super::log`]).
//!
//! Faults: a record that is too long, not EPD, out of turn or from a
//! client that is not signed on gets `refcom fault` (with the reason as
//! `c0`) and is logged; it never touches another connection or game.
//! Wrong or missing credentials, a second sign-on under a name in use, a
//! handshake or idle timeout, or too many faults close the connection.
//!
//! The journal (§3.2 duty 9) and the PGN are the event runner's
//! ([`rookery_event::runner`], shared with `rookery match`): the plan (players,
//! schedule, the PGN file's length when the event began, the event's name
//! and date), then for each game `start`, every move with both clocks and
//! its offer (a `move` line and a `clocks` line), and `end` with the record
//! (or `discard` for an adjourned game); the programs the referee starts
//! (`process`, so a later run ends those a kill left behind) and the address
//! it listens on. Each move is written and made durable (`fdatasync`)
//! before the next `respond` goes out. [`EventStart::Resume`] reads it
//! back: finished games are kept (the PGN file is cut back to its length at
//! the start of the event and they are written again, so none is lost or
//! doubled), games in progress continue from their last journaled move
//! with the journaled clocks (the clients get `reset`, `inform`, the moves
//! as `execute` records and then `respond`), and games not begun are
//! played; an unfinished event's journal is never started over without
//! `--resume` or `--fresh`. A player's program restarted by the supervisor
//! (`restart NAME`) puts its game on hold; the game resumes the same way
//! once the program has signed on again. A supervisor's stop (adjudicate,
//! adjourn, shutdown) reaches the game loop as a [`rookery_game::game::Stop`], so
//! the players are told what the PGN records.
//!
//! Following the journal (§3.2 duty 10, [`super::standby`]): a
//! `refreq sign_on` carrying `Token "OBSERVER_TOKEN"` (the event file's
//! `observer_token`) and the private opcode `Journal N` turns the connection
//! into a one-way stream of the journal's bytes from offset `N` (a line
//! boundary: 0, or the length of the copy the follower holds): first what is
//! written, then every entry as soon as it is durable, and an empty line
//! every [`HEARTBEAT`] while nothing else is sent. Anything the follower
//! sends after that is ignored; a wrong token gets `refcom fault`.
//!
//! Serial mode ([`BindOptions::serial`]): instead of listening on TCP, the
//! referee opens each named character device (a serial line or a
//! pseudo-terminal) and serves one client over it with the same records,
//! opening the device again whenever a client's session there ends.

mod conn;
mod play;

#[cfg(unix)]
use conn::open_serial;
use conn::{connection, listen, log_health_notices, Gate, Out, Session, CLOSE_GRACE};
use play::{
    end_child, end_leftover, interrupt, links_free, release, spawn_game, start_local, take_links,
    GameStart, Running,
};

use super::config::EventConfig;
use super::log::EventLog;
use super::net::Latencies;
use super::protocol::{Command, RefereeRecord};
use super::web::{Feed, Spectators};
use rookery_core::Position;
use rookery_event::book::Openings;
use rookery_event::journal::{Entry, JournalState};
use rookery_event::runner::{
    Durability, EventKind, Finished, GameState as RunState, JournalHandle, Latency, RunPlan,
    Runner, RunnerError, RunnerSetup, Start,
};
use rookery_event::schedule::{Schedule, Scheduled};
use rookery_event::standings::Standings;
use rookery_game::game::{utc_now, FinishedGame, GameError, Stop, StopSignal};
use rookery_game::record::GameOutcome;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// How often a journal follower gets an empty line when nothing else is
/// sent, so that it can tell a quiet referee from a dead one.
pub const HEARTBEAT: Duration = Duration::from_millis(200);

/// How an event is started, besides its file.
#[derive(Clone, Debug, Default)]
pub struct BindOptions {
    /// The address to listen on (overrides the event file; port 0 picks a
    /// free port).
    pub listen: Option<String>,
    /// A new event, a new one over an old journal, or the journal's event
    /// continued.
    pub start: EventStart,
    /// Where this event's games begin in the PGN file, for `resume`: by
    /// default the length the journal's plan recorded (a standby referee
    /// gives the length its own PGN file had when it began to follow).
    pub pgn_base: Option<u64>,
    /// Serve clients over these character devices instead of TCP.
    pub serial: Vec<PathBuf>,
}

/// How an event starts (see [`rookery_event::runner::Start`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum EventStart {
    /// A new event; an unfinished event's journal is refused.
    #[default]
    New,
    /// A new event; an old journal is kept as `JOURNAL.N`, with the games
    /// its run wrote to the PGN.
    Fresh,
    /// Continue the event from its journal: games finished stay, games in
    /// progress resume from their last move.
    Resume,
}

/// A command of the human supervisor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// Print the players and games.
    Status,
    /// Start no new games.
    Pause,
    /// Start games again.
    Resume,
    /// Stop a running game; it is played again from the start later.
    Adjourn(usize),
    /// Stop a running game with the supervisor's result.
    Adjudicate(usize, GameOutcome),
    /// Restart a player the referee started itself (its `command`); a game
    /// it is playing is held and resumes from its last move once the
    /// program has signed on again.
    Restart(String),
    /// End the event: running games end unterminated, every client gets
    /// `disconnect`.
    Shutdown,
}

/// A supervisor's command that cannot be read: what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseControlError(String);

impl std::str::FromStr for Control {
    type Err = ParseControlError;
    /// `status`, `pause`, `resume`, `adjourn N`, `adjudicate N 1-0|0-1|1/2-1/2`,
    /// `restart NAME`, `shutdown` (N as in `status`, from 1).
    fn from_str(s: &str) -> Result<Control, ParseControlError> {
        control(s).map_err(ParseControlError)
    }
}

fn control(s: &str) -> Result<Control, String> {
    {
        let words: Vec<&str> = s.split_whitespace().collect();
        let game = |w: Option<&&str>| {
            w.and_then(|w| w.parse::<usize>().ok())
                .filter(|&n| n >= 1)
                .map(|n| n - 1)
                .ok_or_else(|| "expected a game number (from 1)".to_string())
        };
        match words.as_slice() {
            ["status"] => Ok(Control::Status),
            ["pause"] => Ok(Control::Pause),
            ["resume"] => Ok(Control::Resume),
            ["shutdown"] | ["quit"] => Ok(Control::Shutdown),
            ["adjourn", rest @ ..] => Ok(Control::Adjourn(game(rest.first())?)),
            ["adjudicate", n, r] => {
                let outcome = match *r {
                    "1-0" => GameOutcome::WhiteWins,
                    "0-1" => GameOutcome::BlackWins,
                    "1/2-1/2" | "draw" => GameOutcome::Draw,
                    _ => return Err(format!("unknown result {r:?}: 1-0, 0-1 or 1/2-1/2")),
                };
                Ok(Control::Adjudicate(game(Some(n))?, outcome))
            }
            ["restart", name] => Ok(Control::Restart((*name).to_string())),
            _ => Err(format!(
                "unknown command {s:?}: status, pause, resume, adjourn N, adjudicate N RESULT, restart NAME, shutdown"
            )),
        }
    }
}

/// What the server reports to the supervisor.
#[derive(Clone, Debug)]
pub enum Notice {
    /// A player signed on.
    SignedOn(String, String),
    /// A player left.
    SignedOff(String, String),
    /// A connection was refused or closed for cause.
    Refused(String, String),
    /// A fault (who, why).
    Fault(String, String),
    /// A game began (number from 1, White, Black).
    GameStarted(usize, String, String),
    /// A game ended.
    GameOver(usize, String, String, String, String),
    /// The answer to a supervisor's command.
    Status(String),
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::SignedOn(n, a) => write!(f, "{n} signed on from {a}"),
            Notice::SignedOff(n, why) => write!(f, "{n} left: {why}"),
            Notice::Refused(a, why) => write!(f, "connection {a} refused: {why}"),
            Notice::Fault(who, why) => write!(f, "fault from {who}: {why}"),
            Notice::GameStarted(n, w, b) => write!(f, "game {n} started: {w} - {b}"),
            Notice::GameOver(n, w, b, r, why) => write!(f, "game {n} over: {w} - {b} {r} ({why})"),
            Notice::Status(s) => f.write_str(s),
        }
    }
}

/// The end of an event.
#[derive(Clone, Debug)]
pub struct Summary {
    /// The final standings.
    pub standings: Standings,
    /// Referee latency per move (reply read to next respond sent).
    pub latency: Latency,
    /// The most connections open at once.
    pub peak_connections: usize,
    /// Games not played (a shutdown).
    pub unplayed: usize,
    /// Every game was played: the journal says the event is over.
    pub over: bool,
}

/// Why an event could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address cannot be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// A file (PGN, logs) cannot be written.
    #[error("{what}: {source}")]
    Io {
        /// Which file.
        what: String,
        /// Why.
        source: std::io::Error,
    },
    /// The journal, the PGN or the schedule: the event runner failed.
    #[error(transparent)]
    Runner(#[from] RunnerError),
    /// The event file's openings cannot be read.
    #[error(transparent)]
    Book(#[from] rookery_event::book::BookError),
    /// The event file's schedule cannot be played.
    #[error("{0}")]
    Schedule(#[from] rookery_event::schedule::ScheduleError),
}

/// The Argus part of the journal's plan (the runner keeps the players,
/// the schedule and the outputs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ArgusPlan {
    /// The event's name.
    event: String,
    /// Its date, as the PGN and the clients are told.
    date: String,
}

struct Shared {
    cfg: EventConfig,
    address: String,
    log: EventLog,
    sessions: Mutex<HashMap<String, Session>>,
    notices: UnboundedSender<Notice>,
    open: AtomicUsize,
    peak: AtomicUsize,
    next_id: AtomicUsize,
    closing: AtomicBool,
    wake: tokio::sync::Notify,
    /// What the spectator page shows ([`super::web`]).
    spectators: Spectators,
    /// The event's journal, written by the games and followed by standby
    /// referees.
    journal: Option<JournalHandle>,
    /// Who may connect and sign on ([`conn`]).
    gate: Arc<Gate>,
    /// Referee latencies of the moves since the last game ended: banked
    /// in the runner's histogram (of a fixed size) as each game ends, so
    /// that finished games leave nothing here.
    latencies: Latencies,
}

impl Shared {
    fn notice(&self, n: Notice) {
        // The supervisor may have stopped listening; the event goes on.
        let _ = self.notices.send(n);
    }

    /// Writes entries to the journal in one write, makes them durable and
    /// passes them on to the followers.
    fn record(&self, entries: &[Entry]) -> std::io::Result<()> {
        match &self.journal {
            Some(j) => j.record(entries),
            None => Ok(()),
        }
    }
}

/// An event, bound to its address and ready to run.
pub struct Event {
    shared: Arc<Shared>,
    listener: Option<TcpListener>,
    serial: Vec<PathBuf>,
    runner: Runner,
    date: String,
}

impl Event {
    /// Opens the logs and binds the listener (`listen` overrides the
    /// event file's address; port 0 picks a free port).
    ///
    /// # Errors
    /// [`ServeError`].
    pub async fn bind(
        cfg: EventConfig,
        listen: Option<String>,
        notices: UnboundedSender<Notice>,
    ) -> Result<Event, ServeError> {
        let opts = BindOptions {
            listen,
            ..BindOptions::default()
        };
        Event::bind_with(cfg, opts, notices).await
    }

    /// Opens the logs and the journal (a new one, or the event's own to
    /// resume from: see [`rookery_event::runner`]) and binds the listener, or takes
    /// the serial devices.
    ///
    /// # Errors
    /// [`ServeError`].
    pub async fn bind_with(
        cfg: EventConfig,
        opts: BindOptions,
        notices: UnboundedSender<Notice>,
    ) -> Result<Event, ServeError> {
        let schedule = Schedule::new(cfg.players.len(), cfg.pairing, cfg.rounds, cfg.games)?;
        let openings = match &cfg.openings {
            Some(book) => Openings::from_book(book, cfg.seed)?,
            None => Openings::standard(),
        };
        let start = match opts.start {
            EventStart::New => Start::New,
            EventStart::Fresh => Start::Fresh,
            EventStart::Resume => Start::Resume(Box::new(
                JournalState::read(&cfg.journal).map_err(RunnerError::from)?,
            )),
        };
        let resuming = matches!(start, Start::Resume(_));
        // A resumed event keeps the date its journal has.
        let date = match &start {
            Start::Resume(state) => serde_json::from_value::<RunPlan>(state.plan.clone())
                .ok()
                .and_then(|p| serde_json::from_value::<ArgusPlan>(p.driver).ok())
                .map(|p| p.date),
            _ => None,
        }
        .or_else(|| cfg.date.clone())
        .unwrap_or_else(|| utc_now().0);
        let driver = serde_json::to_value(ArgusPlan {
            event: cfg.name.clone(),
            date: date.clone(),
        })
        .map_err(|e| ServeError::Io {
            what: "journal plan".into(),
            source: std::io::Error::other(e),
        })?;
        if let Start::Resume(state) = &start {
            let plan = serde_json::from_value::<RunPlan>(state.plan.clone())
                .ok()
                .and_then(|p| serde_json::from_value::<ArgusPlan>(p.driver).ok());
            if plan.as_ref().map(|p| &p.event) != Some(&cfg.name) {
                return Err(ServeError::Runner(RunnerError::Mismatch {
                    path: cfg.journal.clone(),
                    why: format!(
                        "it is the journal of {:?}, not of {:?}",
                        plan.map(|p| p.event).unwrap_or_default(),
                        cfg.name
                    ),
                }));
            }
        }
        // A resumed referee asked for any port takes the one its clients
        // know, when it is free.
        let earlier = match &start {
            Start::Resume(state) => state.listening.clone(),
            _ => None,
        };
        let mut moved_from = None;
        let (listener, local) = if opts.serial.is_empty() {
            let address = opts.listen.clone().unwrap_or_else(|| cfg.listen.clone());
            let bind = |address: String| async move {
                let listener =
                    TcpListener::bind(&address)
                        .await
                        .map_err(|source| ServeError::Bind {
                            address: address.clone(),
                            source,
                        })?;
                let local = listener
                    .local_addr()
                    .map_err(|source| ServeError::Bind { address, source })?
                    .to_string();
                Ok::<_, ServeError>((listener, local))
            };
            let any_port = address.rsplit_once(':').is_some_and(|(_, p)| p == "0");
            let (listener, local) = match earlier.filter(|_| any_port) {
                Some(old) => match bind(old.clone()).await {
                    Ok(bound) => bound,
                    Err(_) => {
                        moved_from = Some(old);
                        bind(address).await?
                    }
                },
                None => bind(address).await?,
            };
            (Some(listener), local)
        } else {
            let names: Vec<String> = opts
                .serial
                .iter()
                .map(|d| d.display().to_string())
                .collect();
            (None, format!("serial {}", names.join(",")))
        };
        let log = EventLog::open_reporting(&cfg.log_dir, log_health_notices(notices.clone()))
            .map_err(|source| ServeError::Io {
                what: format!("log directory {}", cfg.log_dir.display()),
                source,
            })?;
        let runner = Runner::open(
            RunnerSetup {
                kind: EventKind::Argus,
                players: cfg.players.iter().map(|p| p.name.clone()).collect(),
                schedule,
                openings,
                journal: Some(cfg.journal.clone()),
                durability: Durability::EachEntry,
                pgn: Some(cfg.pgn.clone()),
                epd: None,
                sprt: None,
                driver,
                resume_base: opts.pgn_base,
                shard: None,
                pool: None,
            },
            start,
        )?;
        if listener.is_some() {
            runner.record_address(&local)?;
        }
        // Players an earlier run of this event started, still running (a
        // kill of the referee leaves them): they would sign on against the
        // ones started now.
        for p in runner.previous_processes().to_vec() {
            if tokio::task::block_in_place(|| end_leftover(&p)) {
                let _ = notices.send(Notice::Status(format!(
                    "ended {}'s program left by an earlier run (process {})",
                    p.player, p.pid
                )));
            }
        }
        if let Some(old) = moved_from {
            let _ = notices.send(Notice::Status(format!(
                "the event listened on {old} before, which is taken now: clients must be pointed at {local}"
            )));
        }
        let spectators = Spectators::new(&cfg, schedule);
        if resuming {
            for r in runner.finished_records() {
                spectators.finished(r, runner.standings());
            }
        }
        Ok(Event {
            serial: opts.serial,
            date,
            shared: Arc::new(Shared {
                spectators,
                journal: runner.journal(),
                cfg,
                address: local,
                log,
                sessions: Mutex::new(HashMap::new()),
                notices,
                open: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
                next_id: AtomicUsize::new(1),
                closing: AtomicBool::new(false),
                wake: tokio::sync::Notify::new(),
                gate: Arc::new(Gate::new()),
                latencies: Arc::new(Mutex::new(Vec::new())),
            }),
            runner,
            listener,
        })
    }

    /// Games finished and in progress taken from the journal, when resuming.
    pub fn resumed_games(&self) -> Option<(usize, usize)> {
        self.runner.resumed()
    }

    /// The address bound.
    pub fn local_addr(&self) -> &str {
        &self.shared.address
    }

    /// The event as the spectator page sees it, live ([`super::web`]).
    pub fn feed(&self) -> Feed {
        self.shared.spectators.feed()
    }

    /// Runs the event to its end (or a `shutdown`), then sends `disconnect`
    /// to every client.
    ///
    /// # Errors
    /// [`ServeError`] if the journal or the PGN file cannot be written.
    pub async fn run(
        self,
        mut controls: UnboundedReceiver<Control>,
    ) -> Result<Summary, ServeError> {
        let Event {
            shared,
            listener,
            serial,
            mut runner,
            date,
        } = self;
        let mut tasks = Vec::new();
        if let Some(listener) = listener {
            tasks.push(tokio::spawn(listen(shared.clone(), listener)));
        }
        #[cfg(not(unix))]
        if !serial.is_empty() {
            shared.notice(Notice::Fault(
                "serial".into(),
                "serial mode needs a Unix system".into(),
            ));
        }
        #[cfg(unix)]
        for dev in serial {
            let shared = shared.clone();
            tasks.push(tokio::spawn(async move {
                let label = format!("serial:{}", dev.display());
                while !shared.closing.load(Ordering::SeqCst) {
                    match open_serial(&dev) {
                        Ok((r, w)) => connection(shared.clone(), r, w, label.clone()).await,
                        Err(e) => shared.notice(Notice::Fault(
                            label.clone(),
                            format!("cannot open the device: {e}"),
                        )),
                    }
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }));
        }
        let mut children: HashMap<String, Child> = HashMap::new();
        for p in &shared.cfg.players {
            if p.command.is_some() {
                if let Some((c, started)) = start_local(&shared, &p.name) {
                    runner.record_process(&started)?;
                    children.insert(p.name.clone(), c);
                }
            }
        }
        let cfg = &shared.cfg;
        let mut running: HashMap<usize, Running> = HashMap::new();
        let (done_tx, mut done_rx) =
            unbounded_channel::<(Scheduled, Result<FinishedGame, GameError>)>();
        let latencies = shared.latencies.clone();
        let mut paused = false;
        let mut shutdown = false;
        // A log that keeps failing stops the event as a failing journal
        // does: the logs are the record of what was said.
        let mut log_failure: Option<super::log::LogFailure> = None;
        // A record that cannot be written (journal, PGN: a full disk) ends
        // the event at once; the clients are told why before `disconnect`.
        let mut fatal: Option<ServeError> = None;
        macro_rules! or_stop {
            ($l:lifetime, $e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(e) => {
                        fatal = Some(ServeError::from(e));
                        break $l;
                    }
                }
            };
        }
        'event: loop {
            if !shutdown {
                if let Some(f) = shared.log.failed() {
                    if f.since.elapsed() >= LOG_FAILURE_LIMIT {
                        shared.notice(Notice::Fault(
                            "event log".into(),
                            format!(
                                "failing for {} s ({} lines lost): {}; the event stops",
                                f.since.elapsed().as_secs(),
                                f.lines_lost,
                                f.error
                            ),
                        ));
                        shutdown = true;
                        runner.stop();
                        for r in running.values() {
                            r.stop.stop(Stop::Shutdown);
                            interrupt(&shared, &r.sched, "the referee's logs cannot be written");
                        }
                        log_failure = Some(f);
                    }
                }
            }
            if !paused && !shutdown {
                // Start every game whose players are both free.
                loop {
                    let busy = |p: usize| {
                        running
                            .values()
                            .any(|r| r.sched.white == p || r.sched.black == p)
                    };
                    let ready = |g: &Scheduled| {
                        !busy(g.white)
                            && !busy(g.black)
                            && links_free(
                                &shared,
                                [&cfg.players[g.white].name, &cfg.players[g.black].name],
                            )
                    };
                    let Some(a) = or_stop!('event, runner.next(ready)) else {
                        break;
                    };
                    let g = a.game;
                    let names = [&cfg.players[g.white].name, &cfg.players[g.black].name];
                    let Some(links) = take_links(&shared, names) else {
                        // A player left between the check and now.
                        runner.not_started(&g, a.resume);
                        break;
                    };
                    let stop = StopSignal::new();
                    running.insert(
                        g.number,
                        Running {
                            sched: g,
                            stop: stop.clone(),
                        },
                    );
                    shared.notice(Notice::GameStarted(
                        g.number + 1,
                        names[0].clone(),
                        names[1].clone(),
                    ));
                    spawn_game(
                        &shared,
                        a,
                        links,
                        GameStart {
                            date: date.clone(),
                            stop,
                        },
                        latencies.clone(),
                        done_tx.clone(),
                    );
                }
            }
            if running.is_empty() && (shutdown || !runner.has_work()) {
                break;
            }
            tokio::select! {
                Some((g, finished)) = done_rx.recv() => {
                    running.remove(&g.number);
                    if let Ok(mut l) = latencies.lock() {
                        runner.add_latencies(&std::mem::take(&mut *l));
                    }
                    release(&shared, [&cfg.players[g.white].name, &cfg.players[g.black].name]);
                    let f = match finished {
                        Ok(f) => f,
                        Err(GameError::Observer(e)) => {
                            fatal = Some(ServeError::Io {
                                what: format!("journal {}", cfg.journal.display()),
                                source: e,
                            });
                            break 'event;
                        }
                        Err(e) => {
                            // The journaled moves do not replay: the game
                            // starts again.
                            shared.spectators.left_play(g.number);
                            shared.notice(Notice::Fault(format!("game {}", g.number + 1), e.to_string()));
                            or_stop!('event, runner.replay(&g));
                            continue;
                        }
                    };
                    // A game is written whole or not at all: what a failed
                    // write left of it is cut off again.
                    let pgn_before = std::fs::metadata(&cfg.pgn).map(|m| m.len()).ok();
                    let finished = runner.finish(&g, &f);
                    if finished.is_err() {
                        if let Some(len) = pgn_before {
                            cut_back(&cfg.pgn, len);
                        }
                    }
                    match or_stop!('event, finished) {
                        Finished::Recorded | Finished::Decided(_) => {
                            shared.spectators.finished(&f.record, runner.standings());
                            shared.notice(Notice::GameOver(
                                g.number + 1,
                                f.record.white.clone(),
                                f.record.black.clone(),
                                f.record.outcome.as_str().to_string(),
                                f.record.reason.clone(),
                            ));
                        }
                        Finished::Held => {
                            shared.spectators.left_play(g.number);
                            shared.notice(Notice::Status(format!("game {} held at move {}: it resumes when both players are back", g.number + 1, f.record.moves.len())));
                        }
                        Finished::Replayed => {
                            shared.spectators.left_play(g.number);
                            shared.notice(Notice::Status(format!("game {} adjourned: it is played again later", g.number + 1)));
                        }
                        Finished::Cut => {
                            shared.spectators.left_play(g.number);
                            shared.notice(Notice::Status(format!("game {} cut off at move {}: --resume continues it", g.number + 1, f.record.moves.len())));
                        }
                    }
                }
                Some(c) = controls.recv() => {
                    match c {
                        Control::Status => shared.notice(Notice::Status(status(&shared, &runner, &running, paused))),
                        Control::Pause => { paused = true; shared.notice(Notice::Status("paused: no new games start".into())); }
                        Control::Resume => { paused = false; shared.notice(Notice::Status("resumed".into())); }
                        Control::Adjourn(n) | Control::Adjudicate(n, _) => {
                            let stop = if let Control::Adjudicate(_, o) = c { Stop::Adjudicate(o) } else { Stop::Adjourn };
                            match running.get(&n) {
                                Some(r) => {
                                    r.stop.stop(stop);
                                    interrupt(&shared, &r.sched, "stopped by the supervisor");
                                }
                                None => shared.notice(Notice::Status(format!("game {} is not running", n + 1))),
                            }
                        }
                        Control::Restart(name) => {
                            match cfg.players.iter().position(|p| p.name == name) {
                                Some(p) if cfg.players[p].command.is_some() => {
                                    if let Some(r) = running.values().find(|r| r.sched.white == p || r.sched.black == p) {
                                        r.stop.stop(Stop::Hold);
                                        interrupt(&shared, &r.sched, "the supervisor restarts a player");
                                    }
                                    if let Some(mut c) = children.remove(&name) {
                                        tokio::task::block_in_place(|| end_child(&mut c));
                                    }
                                    if let Some((c, started)) = start_local(&shared, &name) {
                                        or_stop!('event, runner.record_process(&started));
                                        children.insert(name, c);
                                    }
                                }
                                _ => shared.notice(Notice::Status(format!("{name} is not a player the referee starts"))),
                            }
                        }
                        Control::Shutdown => {
                            shutdown = true;
                            runner.stop();
                            for r in running.values() {
                                r.stop.stop(Stop::Shutdown);
                                interrupt(&shared, &r.sched, "the referee shuts down");
                            }
                        }
                    }
                }
                () = shared.wake.notified() => {}
                () = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        }
        shared.spectators.over();
        // §8 step 15: disconnect every client signed on.
        shared.closing.store(true, Ordering::SeqCst);
        let sessions: Vec<(String, UnboundedSender<Out>)> = shared
            .sessions
            .lock()
            .map(|s| s.iter().map(|(n, s)| (n.clone(), s.tx.clone())).collect())
            .unwrap_or_default();
        let why_fatal = fatal.as_ref().map(|e| {
            let why = format!("the referee stops: {e}");
            shared.notice(Notice::Fault("event".into(), why.clone()));
            // The games in progress stop where they are (the journal has
            // their moves: `--resume` continues them).
            for r in running.values() {
                r.stop.stop(Stop::Shutdown);
            }
            why
        });
        for (name, tx) in sessions {
            // §8.1.4: a fault the referee cannot recover from, then
            // `disconnect`.
            if let Some(why) = &why_fatal {
                let mut f = RefereeRecord::new(Command::Fault, Position::startpos());
                f.receiver = Some((String::new(), name.clone()));
                f.note = Some(why.clone());
                let _ = tx.send(Out::Record(Box::new(f)));
            }
            let mut r = RefereeRecord::new(Command::Disconnect, Position::startpos());
            r.receiver = Some((String::new(), name));
            let _ = tx.send(Out::Record(Box::new(r)));
            let _ = tx.send(Out::Close);
        }
        // The writers send `disconnect` once their quiet period is over.
        shared
            .gate
            .drained(shared.cfg.quiet_period + CLOSE_GRACE)
            .await;
        for (_, mut c) in children {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = c.try_wait() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            tokio::task::block_in_place(|| end_child(&mut c));
        }
        for t in tasks {
            t.abort();
        }
        shared.log.flush();
        if let Some(e) = fatal {
            return Err(e);
        }
        let mut summary = runner.close()?;
        if let Some(f) = log_failure {
            return Err(ServeError::Io {
                what: format!("event log in {}", shared.cfg.log_dir.display()),
                source: f.error,
            });
        }
        if let Ok(mut l) = latencies.lock() {
            summary.latency.add(&std::mem::take(&mut *l));
        }
        Ok(Summary {
            standings: summary.standings,
            latency: summary.latency,
            peak_connections: shared.peak.load(Ordering::SeqCst),
            unplayed: summary.unplayed,
            over: summary.over,
        })
    }
}

/// The supervisor's view: players, the games in progress and waiting, and
/// how many are finished (a bounded text, whatever the event's size).
fn status(
    shared: &Shared,
    runner: &Runner,
    running: &HashMap<usize, Running>,
    paused: bool,
) -> String {
    let mut out = String::new();
    let cfg = &shared.cfg;
    out.push_str(&format!(
        "{} at {}{}: {} connections open\n",
        cfg.name,
        shared.address,
        if paused { " (paused)" } else { "" },
        shared.open.load(Ordering::SeqCst)
    ));
    let sessions = shared.sessions.lock().ok();
    for p in &cfg.players {
        let state = match sessions.as_ref().and_then(|s| s.get(&p.name)) {
            Some(s) if s.busy.load(Ordering::SeqCst) => format!("playing, from {}", s.address),
            Some(s) => format!("waiting, from {}", s.address),
            None => "not signed on".to_string(),
        };
        out.push_str(&format!("  {:<20} {state}\n", p.name));
    }
    drop(sessions);
    let schedule = runner.schedule();
    let name = |i: usize| cfg.players.get(i).map_or("?", |p| p.name.as_str());
    let mut numbers: Vec<usize> = running.keys().copied().collect();
    numbers.sort_unstable();
    for n in numbers {
        if let Some(g) = schedule.get(n) {
            out.push_str(&format!(
                "  game {:>3}: {} - {}: playing\n",
                n + 1,
                name(g.white),
                name(g.black)
            ));
        }
    }
    let (mut done, mut waiting) = (0usize, Vec::new());
    for g in schedule.iter() {
        match runner.game_state(g.number) {
            Some(RunState::Done) => done += 1,
            Some(RunState::Unplayed | RunState::Queued) if waiting.len() < STATUS_PENDING => {
                waiting.push(g)
            }
            _ => {}
        }
    }
    for g in &waiting {
        out.push_str(&format!(
            "  game {:>3}: {} - {}: to play\n",
            g.number + 1,
            name(g.white),
            name(g.black)
        ));
    }
    out.push_str(&format!(
        "  {done} of {} games finished, {} still to play\n",
        schedule.len(),
        runner.unplayed()
    ));
    out
}

/// Cuts `file` back to `len` bytes if a failed write left more (a game
/// written in part). Shrinking a file needs no room on the disk.
fn cut_back(file: &std::path::Path, len: u64) {
    if let Ok(f) = std::fs::OpenOptions::new().write(true).open(file) {
        if f.metadata().is_ok_and(|m| m.len() > len) {
            let _ = f.set_len(len);
        }
    }
}

/// How long the logs may fail to be written before the event stops.
const LOG_FAILURE_LIMIT: Duration = Duration::from_secs(30);

/// Games to play that `status` lists one by one.
const STATUS_PENDING: usize = 10;

#[cfg(test)]
mod tests {
    use super::*;

    /// Many short games in one process, two clients of our own on loopback:
    /// the latencies of their moves are banked in the runner's histogram
    /// as each game ends, so what the referee holds of them never exceeds
    /// the games in progress, however many games end; the summary still
    /// counts every move. Before, every move's latency was kept until the
    /// event's end (16 bytes a move, 2.2 KB a 140-ply game). The margin
    /// on the clock keeps a move slowed by a loaded machine from losing a
    /// game on time before it is counted (CI once saw every game of a
    /// busy run lost so, and no latency at all).
    #[test]
    fn finished_games_leave_no_latencies_behind() {
        use crate::client::{Client, ClientConfig, Judgement, Target};
        use rookery_game::player::EngineConfig;
        const GAMES: usize = 24;
        const MAX_MOVES: usize = 3;
        let dir =
            std::env::temp_dir().join(format!("rookery-argus-latency-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!(
            "[event]\nname = \"Latency\"\nsite = \"loopback\"\npgn = \"games.pgn\"\n\
             log_dir = \"logs\"\nrounds = {GAMES}\ntime_control = \"st=0.01\"\n\
             max_moves = {MAX_MOVES}\nquiet_period_ms = 0\n\
             time_margin_ms = 10000\n\
             [[player]]\nname = \"A\"\ntoken = \"a-secret\"\n\
             [[player]]\nname = \"B\"\ntoken = \"b-secret\"\n"
        );
        let cfg = EventConfig::from_toml(&text, &dir).unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (notices, _seen) = tokio::sync::mpsc::unbounded_channel();
        let event = rt
            .block_on(Event::bind(cfg, Some("127.0.0.1:0".into()), notices))
            .unwrap();
        let shared = event.shared.clone();
        let address = event.local_addr().to_string();
        let done = Arc::new(AtomicBool::new(false));
        // The most latencies held at once, sampled while the games run.
        let watcher = {
            let (shared, done) = (shared.clone(), done.clone());
            std::thread::spawn(move || {
                let mut most = 0;
                while !done.load(Ordering::SeqCst) {
                    most = most.max(shared.latencies.lock().map_or(0, |l| l.len()));
                    std::thread::sleep(Duration::from_millis(2));
                }
                most
            })
        };
        let clients: Vec<_> = [("A", "a-secret"), ("B", "b-secret")]
            .into_iter()
            .map(|(name, token)| {
                let address = address.clone();
                std::thread::spawn(move || {
                    let mut c = Client::new(ClientConfig {
                        targets: vec![Target::Tcp(address)],
                        engine: EngineConfig::builtin(),
                        name: name.into(),
                        token: token.into(),
                        judgement: Judgement::default(),
                        max_games: None,
                        reconnect: false,
                        max_attempts: 1,
                    })
                    .unwrap();
                    c.run(&AtomicBool::new(false), &mut |_| {})
                })
            })
            .collect();
        let (_controls, control_rx) = tokio::sync::mpsc::unbounded_channel();
        let summary = rt.block_on(event.run(control_rx)).unwrap();
        done.store(true, Ordering::SeqCst);
        let most = watcher.join().unwrap();
        for c in clients {
            c.join().unwrap().unwrap();
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(summary.over);
        // Every game asks at least one move of each player.
        assert!(
            summary.latency.count() >= 2 * GAMES as u64,
            "{}",
            summary.latency.count()
        );
        // One game at a time (two players): at most its moves are held.
        assert!(
            most <= 2 * MAX_MOVES + 2,
            "{most} latencies held at once over {GAMES} games of at most {MAX_MOVES} moves"
        );
    }

    #[test]
    fn supervisor_commands_read() {
        assert_eq!("status".parse(), Ok(Control::Status));
        assert_eq!(
            "adjudicate 2 1/2-1/2".parse(),
            Ok(Control::Adjudicate(1, GameOutcome::Draw))
        );
        assert_eq!("adjourn 1".parse(), Ok(Control::Adjourn(0)));
        assert!("adjourn 0".parse::<Control>().is_err());
        assert!("dance".parse::<Control>().is_err());
    }
}
