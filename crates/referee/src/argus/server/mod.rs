//! The Argus TCP server (feature `server`): runs an event.
//!
//! One tokio task per connection reads records (lines of at most 4,096
//! bytes, handshake and idle timeouts) and writes the referee's; one task
//! schedules the games; each game runs the synchronous game loop
//! ([`crate::game::play_game`]) on a blocking thread with a
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
//! The journal (§3.2 duty 9, [`crate::journal`]): the plan (event, date,
//! players, pairings and the PGN file's length when the event began), then
//! for each game `start`, every move with both clocks and its offer (a
//! `move` line and a `clocks` line), and `end` with the record (or
//! `discard` for an adjourned game). Each move is written and made durable
//! (`fdatasync`) before the next `respond` goes out. [`BindOptions::resume`]
//! reads it back: finished games are kept (the PGN file is cut back to its
//! length at the start of the event and they are written again, so none is
//! lost or doubled), games in progress continue from their last journaled
//! move with the journaled clocks (the clients get `reset`, `inform`, the
//! moves as `execute` records and then `respond`), and games not begun are
//! played. A player's program restarted by the supervisor (`restart NAME`)
//! puts its game on hold; the game resumes the same way once the program
//! has signed on again.
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
use play::{interrupt, release, spawn_game, start_local, take_links, GameStart, Running, Stop};

use super::config::EventConfig;
use super::log::EventLog;
use super::net::Latencies;
use super::protocol::{Command, RefereeRecord};
use super::resume::{new_journal, resume_journal, Resumed};
use super::web::{Feed, Spectators};
use crate::game::{utc_now, FinishedGame, GameError};
use crate::journal::{Entry, Journal, JournalError};
use crate::record::{GameOutcome, GameRecord, MoveRecord, Termination};
use crate::schedule::{schedule, Scheduled};
use rookery_core::Position;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io::Write;
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
    /// Continue the event from its journal instead of starting it.
    pub resume: bool,
    /// Where this event's games begin in the PGN file, for `resume`: by
    /// default the length the journal's plan recorded (a standby referee
    /// gives the length its own PGN file had when it began to follow).
    pub pgn_base: Option<u64>,
    /// Serve clients over these character devices instead of TCP.
    pub serial: Vec<PathBuf>,
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

impl std::str::FromStr for Control {
    type Err = String;
    /// `status`, `pause`, `resume`, `adjourn N`, `adjudicate N 1-0|0-1|1/2-1/2`,
    /// `restart NAME`, `shutdown` (N as in `status`, from 1).
    fn from_str(s: &str) -> Result<Control, String> {
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
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// The games recorded, in the order they ended.
    pub games: Vec<GameRecord>,
    /// Referee latency per move (reply read to next respond sent), sorted.
    pub latencies: Vec<Duration>,
    /// The most connections open at once.
    pub peak_connections: usize,
    /// Games not played (shutdown).
    pub unplayed: usize,
}

impl Summary {
    /// The `q` quantile (0..=1) of the latencies.
    pub fn latency(&self, q: f64) -> Option<Duration> {
        if self.latencies.is_empty() {
            return None;
        }
        let i = ((self.latencies.len() - 1) as f64 * q).round() as usize;
        self.latencies.get(i).copied()
    }
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
    /// The journal cannot be written or read back.
    #[error("journal {0}")]
    Journal(#[from] JournalError),
    /// The journal is not one this event can resume from.
    #[error("cannot resume from {path}: {why}")]
    Resume {
        /// The journal.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

/// The event's journal and the connections following it.
struct EventJournal {
    journal: Journal,
    followers: Vec<UnboundedSender<Out>>,
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
    journal: Mutex<EventJournal>,
    /// Who may connect and sign on ([`conn`]).
    gate: Arc<Gate>,
}

impl Shared {
    fn notice(&self, n: Notice) {
        // The supervisor may have stopped listening; the event goes on.
        let _ = self.notices.send(n);
    }

    /// Writes entries to the journal in one write, makes them durable and
    /// passes them on to the followers.
    fn record(&self, entries: &[Entry]) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        for e in entries {
            bytes.extend(Journal::encode(e)?);
        }
        let mut j = self
            .journal
            .lock()
            .map_err(|_| std::io::Error::other("the journal's lock is poisoned"))?;
        j.journal
            .append_encoded(&bytes)
            .and_then(|()| j.journal.sync())
            .map_err(std::io::Error::other)?;
        let line: Arc<[u8]> = bytes.into();
        j.followers
            .retain(|f| f.send(Out::Raw(line.clone())).is_ok());
        Ok(())
    }

    fn journal_error(&self, source: std::io::Error) -> ServeError {
        ServeError::Io {
            what: format!("journal {}", self.cfg.journal.display()),
            source,
        }
    }
}

/// An event, bound to its address and ready to run.
pub struct Event {
    shared: Arc<Shared>,
    listener: Option<TcpListener>,
    serial: Vec<PathBuf>,
    resumed: Option<Resumed>,
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
    /// resume from) and binds the listener, or takes the serial devices.
    ///
    /// # Errors
    /// [`ServeError`].
    pub async fn bind_with(
        cfg: EventConfig,
        opts: BindOptions,
        notices: UnboundedSender<Notice>,
    ) -> Result<Event, ServeError> {
        let (listener, local) = if opts.serial.is_empty() {
            let address = opts.listen.unwrap_or_else(|| cfg.listen.clone());
            let listener =
                TcpListener::bind(&address)
                    .await
                    .map_err(|source| ServeError::Bind {
                        address: address.clone(),
                        source,
                    })?;
            let local = listener
                .local_addr()
                .map_err(|source| ServeError::Bind {
                    address: address.clone(),
                    source,
                })?
                .to_string();
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
        let (journal, resumed, date) = if opts.resume {
            let (j, r) = resume_journal(&cfg, opts.pgn_base)?;
            let date = r.date.clone();
            (j, Some(r), date)
        } else {
            let date = cfg.date.clone().unwrap_or_else(|| utc_now().0);
            (new_journal(&cfg, &date)?, None, date)
        };
        Ok(Event {
            serial: opts.serial,
            resumed,
            date,
            shared: Arc::new(Shared {
                spectators: Spectators::new(&cfg),
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
                journal: Mutex::new(EventJournal {
                    journal,
                    followers: Vec::new(),
                }),
                gate: Arc::new(Gate::new()),
            }),
            listener,
        })
    }

    /// Games finished and in progress taken from the journal, when resuming.
    pub fn resumed_games(&self) -> Option<(usize, usize)> {
        self.resumed
            .as_ref()
            .map(|r| (r.finished.len(), r.in_progress.len()))
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
    /// [`ServeError::Io`] if the PGN file cannot be written.
    pub async fn run(
        self,
        mut controls: UnboundedReceiver<Control>,
    ) -> Result<Summary, ServeError> {
        let shared = self.shared.clone();
        let mut tasks = Vec::new();
        if let Some(listener) = self.listener {
            tasks.push(tokio::spawn(listen(shared.clone(), listener)));
        }
        #[cfg(not(unix))]
        if !self.serial.is_empty() {
            shared.notice(Notice::Fault(
                "serial".into(),
                "serial mode needs a Unix system".into(),
            ));
        }
        #[cfg(unix)]
        for dev in self.serial {
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
                if let Some(c) = start_local(&shared, &p.name) {
                    children.insert(p.name.clone(), c);
                }
            }
        }
        let cfg = &shared.cfg;
        let all = schedule(cfg.players.len(), cfg.pairing, cfg.rounds, cfg.games);
        let total = all.len();
        let mut running: HashMap<usize, Running> = HashMap::new();
        let mut results: Vec<Option<String>> = vec![None; total];
        let (done_tx, mut done_rx) =
            unbounded_channel::<(Scheduled, Result<FinishedGame, GameError>)>();
        let latencies: Latencies = Arc::new(Mutex::new(Vec::new()));
        let pgn_path = cfg.pgn.clone();
        let pgn_error = |source| ServeError::Io {
            what: format!("PGN file {}", pgn_path.display()),
            source,
        };
        let mut summary = Summary::default();
        let mut resume_moves: HashMap<usize, Vec<MoveRecord>> = HashMap::new();
        if let Some(r) = &self.resumed {
            // The PGN file as it was when the event began, then every game
            // the journal has finished: none lost, none twice.
            let f = std::fs::File::options()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&pgn_path)
                .map_err(pgn_error)?;
            let len = f.metadata().map_err(pgn_error)?.len();
            f.set_len(r.pgn_base.min(len)).map_err(pgn_error)?;
            let mut f = std::fs::File::options()
                .append(true)
                .open(&pgn_path)
                .map_err(pgn_error)?;
            for g in &r.finished {
                let text = g
                    .pgn_text()
                    .map_err(|e| pgn_error(std::io::Error::other(e)))?;
                f.write_all(text.as_bytes())
                    .and_then(|()| f.write_all(b"\n"))
                    .map_err(pgn_error)?;
                if let Some(slot) = results.get_mut(g.number) {
                    *slot = Some(g.outcome.as_str().to_string());
                }
                summary.games.push(g.clone());
            }
            f.sync_data().map_err(pgn_error)?;
            resume_moves = r.in_progress.clone();
        }
        // Games in progress first, then those not begun, in schedule order.
        let mut pending: VecDeque<Scheduled> = all
            .iter()
            .filter(|g| resume_moves.contains_key(&g.number))
            .chain(all.iter().filter(|g| {
                !resume_moves.contains_key(&g.number)
                    && results.get(g.number).is_some_and(Option::is_none)
            }))
            .copied()
            .collect();
        let mut pgn = std::fs::File::options()
            .create(true)
            .append(true)
            .open(&pgn_path)
            .map_err(pgn_error)?;
        let mut paused = false;
        let mut shutdown = false;
        let date = self.date.clone();
        loop {
            if !paused && !shutdown {
                // Start every game whose players are both free.
                let mut i = 0;
                while i < pending.len() {
                    let g = pending[i];
                    let names = [&cfg.players[g.white].name, &cfg.players[g.black].name];
                    let busy_now = running.values().any(|r| {
                        [r.sched.white, r.sched.black]
                            .iter()
                            .any(|&p| p == g.white || p == g.black)
                    });
                    if !busy_now {
                        if let Some(links) = take_links(&shared, names) {
                            pending.remove(i);
                            let stop = Arc::new(Mutex::new(None));
                            let hold = Arc::new(AtomicBool::new(false));
                            shared
                                .record(&[Entry::Start { game: g.number }])
                                .map_err(|e| shared.journal_error(e))?;
                            running.insert(
                                g.number,
                                Running {
                                    sched: g,
                                    stop: stop.clone(),
                                    hold: hold.clone(),
                                },
                            );
                            shared.notice(Notice::GameStarted(
                                g.number + 1,
                                names[0].clone(),
                                names[1].clone(),
                            ));
                            spawn_game(
                                &shared,
                                g,
                                links,
                                GameStart {
                                    date: date.clone(),
                                    resume: resume_moves.remove(&g.number).unwrap_or_default(),
                                    hold,
                                },
                                latencies.clone(),
                                done_tx.clone(),
                            );
                            continue;
                        }
                    }
                    i += 1;
                }
            }
            if running.is_empty() && (pending.is_empty() || shutdown) {
                break;
            }
            tokio::select! {
                Some((g, finished)) = done_rx.recv() => {
                    let stop = running.remove(&g.number).and_then(|r| r.stop.lock().ok().and_then(|s| *s));
                    release(&shared, [&cfg.players[g.white].name, &cfg.players[g.black].name]);
                    let mut f = match finished {
                        Ok(f) => f,
                        Err(GameError::Observer(e)) => return Err(shared.journal_error(e)),
                        Err(e) => {
                            // The journaled moves do not replay: the game
                            // starts again.
                            shared.spectators.left_play(g.number);
                            shared.notice(Notice::Fault(format!("game {}", g.number + 1), e.to_string()));
                            shared.record(&[Entry::Discard { game: g.number }]).map_err(|e| shared.journal_error(e))?;
                            pending.push_back(g);
                            continue;
                        }
                    };
                    match stop {
                        Some(Stop::Adjourn) => {
                            shared.spectators.left_play(g.number);
                            shared.record(&[Entry::Discard { game: g.number }]).map_err(|e| shared.journal_error(e))?;
                            pending.push_back(g);
                            continue;
                        }
                        Some(Stop::Hold) => {
                            shared.spectators.left_play(g.number);
                            resume_moves.insert(g.number, f.record.moves.clone());
                            pending.push_front(g);
                            shared.notice(Notice::Status(format!("game {} held at move {}: it resumes when both players are back", g.number + 1, f.record.moves.len())));
                            continue;
                        }
                        Some(Stop::Adjudicate(o)) => {
                            f.record.outcome = o;
                            f.record.termination = Termination::Adjudication;
                            f.record.reason = "adjudicated by the supervisor".into();
                        }
                        Some(Stop::Shutdown) => {
                            f.record.outcome = GameOutcome::Unfinished;
                            f.record.termination = Termination::Unterminated;
                            f.record.reason = "the referee shut down".into();
                        }
                        None => {}
                    }
                    if stop != Some(Stop::Shutdown) {
                        // A game cut off by a shutdown is not over: a resume
                        // continues it.
                        shared.record(&[Entry::End { game: g.number, record: Box::new(f.record.clone()) }]).map_err(|e| shared.journal_error(e))?;
                    }
                    let text = f.record.pgn_text().map_err(|e| ServeError::Io {
                        what: "PGN".into(),
                        source: std::io::Error::other(e.to_string()),
                    })?;
                    pgn.write_all(text.as_bytes()).and_then(|()| pgn.write_all(b"\n")).and_then(|()| pgn.flush()).map_err(|source| ServeError::Io {
                        what: format!("PGN file {}", pgn_path.display()),
                        source,
                    })?;
                    results[g.number] = Some(f.record.outcome.as_str().to_string());
                    shared.spectators.finished(&f.record);
                    shared.notice(Notice::GameOver(
                        g.number + 1,
                        f.record.white.clone(),
                        f.record.black.clone(),
                        f.record.outcome.as_str().to_string(),
                        f.record.reason.clone(),
                    ));
                    summary.games.push(f.record);
                }
                Some(c) = controls.recv() => {
                    match c {
                        Control::Status => shared.notice(Notice::Status(status(&shared, &pending, &running, &results, paused))),
                        Control::Pause => { paused = true; shared.notice(Notice::Status("paused: no new games start".into())); }
                        Control::Resume => { paused = false; shared.notice(Notice::Status("resumed".into())); }
                        Control::Adjourn(n) | Control::Adjudicate(n, _) => {
                            let stop = if let Control::Adjudicate(_, o) = c { Stop::Adjudicate(o) } else { Stop::Adjourn };
                            match running.get(&n) {
                                Some(r) => {
                                    if let Ok(mut s) = r.stop.lock() { *s = Some(stop); }
                                    interrupt(&shared, &r.sched, "stopped by the supervisor");
                                }
                                None => shared.notice(Notice::Status(format!("game {} is not running", n + 1))),
                            }
                        }
                        Control::Restart(name) => {
                            let player = cfg.players.iter().position(|p| p.name == name);
                            let playing = running.values().find(|r| player.is_some_and(|p| r.sched.white == p || r.sched.black == p));
                            if let (Some(r), Some(p)) = (playing, cfg.players.iter().find(|p| p.name == name)) {
                                if p.command.is_some() {
                                    if let Ok(mut s) = r.stop.lock() { *s = Some(Stop::Hold); }
                                    r.hold.store(true, Ordering::SeqCst);
                                    interrupt(&shared, &r.sched, "the supervisor restarts a player");
                                }
                            }
                            if let Some(mut c) = children.remove(&name) {
                                let _ = c.kill();
                                let _ = c.wait();
                            }
                            match shared.cfg.players.iter().find(|p| p.name == name) {
                                Some(p) if p.command.is_some() => {
                                    if let Some(c) = start_local(&shared, &name) { children.insert(name, c); }
                                }
                                _ => shared.notice(Notice::Status(format!("{name} is not a player the referee starts"))),
                            }
                        }
                        Control::Shutdown => {
                            shutdown = true;
                            for r in running.values() {
                                if let Ok(mut s) = r.stop.lock() { *s = Some(Stop::Shutdown); }
                                interrupt(&shared, &r.sched, "the referee shuts down");
                            }
                        }
                    }
                }
                () = shared.wake.notified() => {}
                () = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
        }
        summary.unplayed = pending.len();
        shared.spectators.over();
        // §8 step 15: disconnect every client signed on.
        shared.closing.store(true, Ordering::SeqCst);
        let sessions: Vec<(String, UnboundedSender<Out>)> = shared
            .sessions
            .lock()
            .map(|s| s.iter().map(|(n, s)| (n.clone(), s.tx.clone())).collect())
            .unwrap_or_default();
        for (name, tx) in sessions {
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
            let _ = c.kill();
            let _ = c.wait();
        }
        for t in tasks {
            t.abort();
        }
        shared.log.flush();
        summary.peak_connections = shared.peak.load(Ordering::SeqCst);
        let mut l = latencies.lock().map(|l| l.clone()).unwrap_or_default();
        l.sort();
        summary.latencies = l;
        Ok(summary)
    }
}

fn status(
    shared: &Shared,
    pending: &VecDeque<Scheduled>,
    running: &HashMap<usize, Running>,
    results: &[Option<String>],
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
    let mut games: Vec<(usize, String)> = Vec::new();
    for (n, r) in results.iter().enumerate() {
        if let Some(r) = r {
            games.push((n, r.clone()));
        }
    }
    for r in running.values() {
        games.push((r.sched.number, "playing".into()));
    }
    for g in pending {
        games.push((g.number, "to play".into()));
    }
    games.sort();
    for (n, state) in games {
        let (w, b) = schedule(cfg.players.len(), cfg.pairing, cfg.rounds, cfg.games)
            .get(n)
            .map(|s| {
                (
                    cfg.players[s.white].name.clone(),
                    cfg.players[s.black].name.clone(),
                )
            })
            .unwrap_or_default();
        out.push_str(&format!("  game {:>3}: {w} - {b}: {state}\n", n + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
