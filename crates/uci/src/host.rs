//! The host side: starting and driving an external UCI engine.
//!
//! An [`EngineHost`] talks to an engine through a [`Transport`] (the process
//! seam): [`ProcessTransport`] runs a real program, and tests may plug in
//! their own. Every wait has a timeout; an engine that crashes, hangs, never
//! says `uciok` or prints garbage gives a typed [`HostError`] instead of
//! blocking or panicking, and [`EngineHost::restart`] starts it afresh.
//!
//! ```no_run
//! use rookery_uci::host::{EngineHost, EngineSpec, Timeouts};
//! use rookery_uci::{GoParams, PositionStart};
//! # fn main() -> Result<(), rookery_uci::host::HostError> {
//! let mut engine = EngineHost::start(EngineSpec::new("/usr/games/stockfish"), Timeouts::default())?;
//! engine.set_option("Hash", Some("64"))?;
//! engine.is_ready()?;
//! let go = GoParams { movetime: Some(100), ..GoParams::default() };
//! let result = engine.search(&PositionStart::StartPos, &[], &go, |_info| {})?;
//! println!("{} plays {}", engine.name(), result.best);
//! engine.quit();
//! # Ok(()) }
//! ```

use crate::{
    BestMove, Command, GoParams, Id, Info, Message, OptionDecl, OptionKind, PositionStart,
};
use rookery_core::UciMove;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command as ProcessCommand, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many lines of the engine's stderr are kept for error reports.
const STDERR_TAIL: usize = 20;
/// Longest line accepted from an engine; longer lines are cut (a garbage guard).
const MAX_LINE: usize = 1 << 20;

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The program.
    pub path: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory (default: ours).
    pub working_dir: Option<PathBuf>,
    /// Options set after the handshake, in order.
    pub options: Vec<(String, Option<String>)>,
    /// Options the engine does not declare are skipped (and listed by
    /// [`EngineHost::skipped_options`]), and values an option does not take
    /// too ([`EngineHost::refused_values`]), instead of failing the start,
    /// as cutechess-cli and fastchess do.
    pub skip_unknown_options: bool,
    /// A file the engine's standard error is appended to, line by line
    /// (cutechess-cli's `stderr=FILE`); the last lines are kept for a
    /// crash report either way.
    pub stderr_file: Option<PathBuf>,
}

impl EngineSpec {
    /// An engine run as `path` with no arguments or options.
    pub fn new(path: impl Into<PathBuf>) -> EngineSpec {
        EngineSpec {
            path: path.into(),
            args: Vec::new(),
            working_dir: None,
            options: Vec::new(),
            skip_unknown_options: false,
            stderr_file: None,
        }
    }
}

/// How long to wait for the engine at each step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// From start to `uciok`.
    pub handshake: Duration,
    /// From `isready` to `readyok`.
    pub ready: Duration,
    /// Extra time after a search's own limit before `stop` is sent, and again
    /// after `stop` before the engine is declared hung.
    pub search_margin: Duration,
    /// From `quit` to killing the process.
    pub quit_grace: Duration,
    /// In a search the host sets no time limit on (`depth`, `nodes`, `mate`,
    /// clock times; not `infinite` or `ponder`), the longest the engine may
    /// say nothing: then `stop` is sent, and an engine still silent after
    /// the search margin is hung.
    pub silence: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            handshake: Duration::from_secs(10),
            ready: Duration::from_secs(10),
            search_margin: Duration::from_secs(5),
            quit_grace: Duration::from_millis(500),
            silence: Duration::from_secs(300),
        }
    }
}

/// What went wrong with an engine.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// The program could not be started.
    #[error("cannot start engine {path}: {source}")]
    Spawn {
        /// The program.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The engine exited (or closed its output) unexpectedly.
    #[error("engine exited unexpectedly ({}){}", status_text(.status), tail_text(.stderr_tail))]
    Crashed {
        /// Its exit status, if it has exited.
        status: Option<ExitStatus>,
        /// The last lines it wrote to stderr.
        stderr_tail: Vec<String>,
    },
    /// The engine did not answer in time.
    #[error("engine did not answer {waiting_for} within {} ms", .after.as_millis())]
    Timeout {
        /// What we were waiting for (`uciok`, `readyok`, `bestmove`).
        waiting_for: &'static str,
        /// How long we waited.
        after: Duration,
    },
    /// The engine broke the protocol.
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// An option the engine did not declare.
    #[error("the engine has no option {0:?}")]
    UnknownOption(String),
    /// A value the option does not accept.
    #[error("bad value {value:?} for option {name:?}: {reason}")]
    BadOptionValue {
        /// The option.
        name: String,
        /// The value.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// Writing to the engine failed.
    #[error("cannot write to engine: {0}")]
    Io(#[from] std::io::Error),
}

fn status_text(s: &Option<ExitStatus>) -> String {
    match s {
        Some(s) => s.to_string(),
        None => "still running, output closed".to_string(),
    }
}

fn tail_text(t: &[String]) -> String {
    if t.is_empty() {
        String::new()
    } else {
        format!("; last stderr lines: {}", t.join(" | "))
    }
}

/// One line from the engine, or the end of its output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incoming {
    /// A line (without its line ending).
    Line(String),
    /// The engine closed its output.
    Closed,
}

/// The process seam: how the host exchanges lines with an engine.
pub trait Transport: Send {
    /// Sends one line (a newline is added).
    ///
    /// # Errors
    /// The write failed (the engine is gone).
    fn send_line(&mut self, line: &str) -> std::io::Result<()>;
    /// Waits up to `timeout` for the next line; `None` on timeout.
    fn recv_line(&mut self, timeout: Duration) -> Option<Incoming>;
    /// Waits up to `timeout` for the engine to exit; its status if it did.
    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus>;
    /// Ends the engine at once.
    fn kill(&mut self);
    /// The last lines the engine wrote to stderr.
    fn stderr_tail(&self) -> Vec<String>;
}

/// A real engine process, read by two background threads (stdout, stderr).
pub struct ProcessTransport {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Incoming>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Set by the stderr reader at end of file.
    stderr_done: Arc<AtomicBool>,
}

/// Starts `cmd`, trying again for a moment while its file is busy
/// (`ETXTBSY`): a program just written (an engine just built, a script) is
/// busy while any process forked meanwhile still holds it open for writing,
/// which lasts only until that process execs.
fn spawn_retrying(cmd: &mut ProcessCommand) -> std::io::Result<std::process::Child> {
    const ETXTBSY: i32 = 26;
    let mut tries = 0;
    loop {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(ETXTBSY) && tries < 50 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            r => return r,
        }
    }
}

impl ProcessTransport {
    /// Starts the program of `spec`.
    ///
    /// # Errors
    /// [`HostError::Spawn`] if it cannot be started.
    pub fn spawn(spec: &EngineSpec) -> Result<ProcessTransport, HostError> {
        let mut cmd = ProcessCommand::new(&spec.path);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.working_dir {
            cmd.current_dir(dir);
        }
        let spawn_err = |source| HostError::Spawn {
            path: spec.path.display().to_string(),
            source,
        };
        let mut stderr_file = match &spec.stderr_file {
            Some(path) => Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| HostError::Spawn {
                        path: spec.path.display().to_string(),
                        source: std::io::Error::new(
                            e.kind(),
                            format!("its standard error file {}: {e}", path.display()),
                        ),
                    })?,
            ),
            None => None,
        };
        let mut child = spawn_retrying(&mut cmd).map_err(spawn_err)?;
        let missing = || spawn_err(std::io::Error::other("missing pipe"));
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match (&mut reader)
                    .take(MAX_LINE as u64)
                    .read_until(b'\n', &mut buf)
                {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Incoming::Closed);
                        break;
                    }
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf);
                        let line = line.trim_end_matches(['\n', '\r']).to_string();
                        if tx.send(Incoming::Line(line)).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail2 = Arc::clone(&tail);
        let stderr_done = Arc::new(AtomicBool::new(false));
        let done2 = Arc::clone(&stderr_done);
        std::thread::spawn(move || {
            let reader = BufReader::new(stderr);
            for line in reader.split(b'\n') {
                let Ok(line) = line else { break };
                if let Some(f) = stderr_file.as_mut() {
                    // A full disk loses the file's lines, not the engine.
                    if f.write_all(&line)
                        .and_then(|()| f.write_all(b"\n"))
                        .is_err()
                    {
                        stderr_file = None;
                    }
                }
                let line = String::from_utf8_lossy(&line).trim_end().to_string();
                if let Ok(mut t) = tail2.lock() {
                    if t.len() == STDERR_TAIL {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
            done2.store(true, Ordering::Release);
        });
        Ok(ProcessTransport {
            child,
            stdin,
            lines,
            stderr: tail,
            stderr_done,
        })
    }
}

impl Transport for ProcessTransport {
    fn send_line(&mut self, line: &str) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    fn recv_line(&mut self, timeout: Duration) -> Option<Incoming> {
        match self.lines.recv_timeout(timeout) {
            Ok(i) => Some(i),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Incoming::Closed),
        }
    }

    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => return Some(s),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => return None,
            }
        }
    }

    fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn stderr_tail(&self) -> Vec<String> {
        // An engine that has died may still have its last words in the pipe:
        // give the reader a moment to reach end of file.
        let deadline = Instant::now() + Duration::from_millis(500);
        while !self.stderr_done.load(Ordering::Acquire) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        self.stderr
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default()
    }
}

impl Drop for ProcessTransport {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

/// The error for an engine that has gone: its exit status (if it exits
/// within a moment) and the last lines it wrote to stderr.
pub(crate) fn crashed(transport: &mut dyn Transport) -> HostError {
    let status = transport.wait_exit(Duration::from_millis(200));
    HostError::Crashed {
        status,
        stderr_tail: transport.stderr_tail(),
    }
}

/// What a finished search returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The engine's move ([`UciMove::Null`] when it has none).
    pub best: UciMove,
    /// Its expected reply.
    pub ponder: Option<UciMove>,
    /// The last `info` line with a `pv` for each `multipv` index (1 first).
    pub lines: Vec<Info>,
    /// Time from `go` to `bestmove`.
    pub elapsed: Duration,
    /// Whether the host had to send `stop` because the engine overran its limit.
    pub stopped_by_host: bool,
}

/// What the engine reports during a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchEvent {
    /// An `info` line.
    Info(Box<Info>),
    /// `bestmove`: the search is over.
    BestMove(SearchResult),
}

/// The search in progress.
struct Running {
    t0: Instant,
    lines: Vec<Info>,
    stopped_by_host: bool,
    /// Whether the engine's silence is watched ([`Timeouts::silence`]):
    /// not in `infinite` and `ponder` searches, which wait for `stop`.
    watch_silence: bool,
}

/// A running external UCI engine.
pub struct EngineHost {
    spec: EngineSpec,
    timeouts: Timeouts,
    transport: Box<dyn Transport>,
    name: String,
    author: String,
    options: Vec<OptionDecl>,
    /// Lines the engine sent that were not UCI (kept for diagnostics).
    garbage: VecDeque<String>,
    /// The search started by `go`, until its `bestmove`.
    search: Option<Running>,
    /// Options of the spec the engine does not declare, skipped.
    skipped: Vec<String>,
    /// Options of the spec whose values the engine's declaration does not
    /// take, skipped: (option, value).
    refused: Vec<(String, String)>,
}

impl EngineHost {
    /// Starts the engine, performs the `uci` handshake, sets the spec's
    /// options and waits for `readyok`.
    ///
    /// # Errors
    /// Any [`HostError`]: the program cannot start, crashes, times out, or
    /// refuses an option.
    pub fn start(spec: EngineSpec, timeouts: Timeouts) -> Result<EngineHost, HostError> {
        let transport = Box::new(ProcessTransport::spawn(&spec)?);
        EngineHost::with_transport(spec, timeouts, transport)
    }

    /// Like [`EngineHost::start`] over a given transport (for tests and other processes).
    ///
    /// # Errors
    /// As [`EngineHost::start`].
    pub fn with_transport(
        spec: EngineSpec,
        timeouts: Timeouts,
        transport: Box<dyn Transport>,
    ) -> Result<EngineHost, HostError> {
        let mut host = EngineHost {
            spec,
            timeouts,
            transport,
            name: String::new(),
            author: String::new(),
            options: Vec::new(),
            garbage: VecDeque::new(),
            search: None,
            skipped: Vec::new(),
            refused: Vec::new(),
        };
        host.handshake()?;
        Ok(host)
    }

    fn handshake(&mut self) -> Result<(), HostError> {
        self.send(&Command::Uci)?;
        let deadline = Instant::now() + self.timeouts.handshake;
        loop {
            match self.recv_until(deadline, "uciok")? {
                Message::Id(Id::Name(n)) => self.name = n,
                Message::Id(Id::Author(a)) => self.author = a,
                Message::Option(o) => self.options.push(o),
                Message::UciOk => break,
                _ => {}
            }
        }
        if self.name.is_empty() {
            self.name = self.spec.path.file_name().map_or_else(
                || "engine".to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
        }
        for (name, value) in self.spec.options.clone() {
            match self.set_option(&name, value.as_deref()) {
                Err(HostError::UnknownOption(n)) if self.spec.skip_unknown_options => {
                    self.skipped.push(n);
                }
                Err(HostError::BadOptionValue { name, value, .. })
                    if self.spec.skip_unknown_options =>
                {
                    self.refused.push((name, value));
                }
                r => r?,
            }
        }
        self.is_ready()
    }

    /// Options of the spec the engine does not declare, skipped at the
    /// handshake ([`EngineSpec::skip_unknown_options`]).
    pub fn skipped_options(&self) -> &[String] {
        &self.skipped
    }

    /// Options of the spec set to a value the engine's declaration does not
    /// take (a spin out of its range, a combo value it does not list),
    /// skipped at the handshake ([`EngineSpec::skip_unknown_options`]):
    /// (option, value).
    pub fn refused_values(&self) -> &[(String, String)] {
        &self.refused
    }

    /// The engine's `id name` (or its file name if it gave none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The engine's `id author`.
    pub fn author(&self) -> &str {
        &self.author
    }

    /// The options the engine declared.
    pub fn options(&self) -> &[OptionDecl] {
        &self.options
    }

    /// Lines the engine sent that were not UCI messages (the last 100).
    pub fn garbage(&self) -> impl Iterator<Item = &str> {
        self.garbage.iter().map(String::as_str)
    }

    /// Sends a command.
    ///
    /// # Errors
    /// [`HostError::Crashed`] if the engine is gone.
    pub fn send(&mut self, cmd: &Command) -> Result<(), HostError> {
        let line = cmd.to_string();
        self.transport.send_line(&line).map_err(|_| self.crashed())
    }

    fn crashed(&mut self) -> HostError {
        crashed(self.transport.as_mut())
    }

    /// The next message before `deadline`; unknown lines are collected as garbage.
    fn recv_until(
        &mut self,
        deadline: Instant,
        waiting_for: &'static str,
    ) -> Result<Message, HostError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.transport.recv_line(left) {
                None => {
                    return Err(HostError::Timeout {
                        waiting_for,
                        after: self.timeout_for(waiting_for),
                    })
                }
                Some(Incoming::Closed) => return Err(self.crashed()),
                Some(Incoming::Line(line)) => match Message::parse(&line) {
                    Message::Unknown(text) => {
                        if !text.is_empty() {
                            if self.garbage.len() == 100 {
                                self.garbage.pop_front();
                            }
                            self.garbage.push_back(text);
                        }
                    }
                    m => return Ok(m),
                },
            }
        }
    }

    fn timeout_for(&self, waiting_for: &str) -> Duration {
        match waiting_for {
            "uciok" => self.timeouts.handshake,
            "readyok" => self.timeouts.ready,
            _ => self.timeouts.search_margin,
        }
    }

    /// Sends `isready` and waits for `readyok`.
    ///
    /// # Errors
    /// [`HostError::Timeout`] or [`HostError::Crashed`].
    pub fn is_ready(&mut self) -> Result<(), HostError> {
        self.send(&Command::IsReady)?;
        let deadline = Instant::now() + self.timeouts.ready;
        loop {
            if let Message::ReadyOk = self.recv_until(deadline, "readyok")? {
                return Ok(());
            }
        }
    }

    /// Sets an option, checked against the engine's declaration: the name
    /// (case-insensitive), the type, spin limits and combo choices.
    ///
    /// # Errors
    /// [`HostError::UnknownOption`] or [`HostError::BadOptionValue`].
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), HostError> {
        let decl = self
            .options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| HostError::UnknownOption(name.to_string()))?;
        let bad = |reason: String| HostError::BadOptionValue {
            name: name.to_string(),
            value: value.unwrap_or("").to_string(),
            reason,
        };
        match (&decl.kind, value) {
            (OptionKind::Button, None) => {}
            (OptionKind::Button, Some(_)) => return Err(bad("a button takes no value".into())),
            (_, None) => return Err(bad("a value is required".into())),
            (OptionKind::Check { .. }, Some(v)) => {
                if !v.eq_ignore_ascii_case("true") && !v.eq_ignore_ascii_case("false") {
                    return Err(bad("expected true or false".into()));
                }
            }
            (OptionKind::Spin { min, max, .. }, Some(v)) => {
                let n: i64 = v
                    .trim()
                    .parse()
                    .map_err(|_| bad("expected an integer".into()))?;
                if n < *min || n > *max {
                    return Err(bad(format!("outside {min}..={max}")));
                }
            }
            (OptionKind::Combo { vars, .. }, Some(v)) => {
                if !vars.iter().any(|x| x.eq_ignore_ascii_case(v)) {
                    return Err(bad(format!("expected one of {}", vars.join(", "))));
                }
            }
            (OptionKind::String { .. }, Some(_)) => {}
        }
        let name = decl.name.clone();
        self.send(&Command::SetOption {
            name,
            value: value.map(str::to_string),
        })
    }

    /// Sends `ucinewgame` and waits for `readyok`.
    ///
    /// # Errors
    /// As [`EngineHost::is_ready`].
    pub fn new_game(&mut self) -> Result<(), HostError> {
        self.send(&Command::UciNewGame)?;
        self.is_ready()
    }

    /// Searches: sends `position` and `go`, passes every `info` to `on_info`,
    /// and returns at `bestmove`. If a limited search overruns its limit by
    /// the search margin, `stop` is sent; if the engine still does not answer
    /// within the margin, the result is [`HostError::Timeout`] (the engine is
    /// hung: [`EngineHost::restart`] it). Infinite and ponder searches are
    /// not limited by the host: use [`EngineHost::go`] and the calls after it.
    ///
    /// # Errors
    /// [`HostError::Crashed`], [`HostError::Timeout`], [`HostError::Protocol`].
    pub fn search(
        &mut self,
        start: &PositionStart,
        moves: &[UciMove],
        go: &GoParams,
        on_info: impl FnMut(&Info),
    ) -> Result<SearchResult, HostError> {
        let limit = search_limit(go);
        self.search_until(start, moves, go, limit, on_info)
    }

    /// Like [`EngineHost::search`], sending `stop` after `stop_after` (if given).
    ///
    /// # Errors
    /// As [`EngineHost::search`].
    pub fn search_until(
        &mut self,
        start: &PositionStart,
        moves: &[UciMove],
        go: &GoParams,
        stop_after: Option<Duration>,
        on_info: impl FnMut(&Info),
    ) -> Result<SearchResult, HostError> {
        self.go(start, moves, go)?;
        self.wait_bestmove(stop_after, on_info)
    }

    /// Starts a search and returns at once: sends `position` and `go`. Follow
    /// with [`EngineHost::next_event`] (to watch it, e.g. while pondering),
    /// [`EngineHost::ponder_hit`] or [`EngineHost::stop`], and
    /// [`EngineHost::wait_bestmove`].
    ///
    /// # Errors
    /// [`HostError::Crashed`] if the engine is gone.
    pub fn go(
        &mut self,
        start: &PositionStart,
        moves: &[UciMove],
        go: &GoParams,
    ) -> Result<(), HostError> {
        self.send_position(start, moves)?;
        self.go_on_position(go)
    }

    /// Sends `position` and waits until the engine has read it: `isready`,
    /// then `readyok` within the ready timeout. A referee does this before
    /// it starts the engine's clock, so that the time the engine needs to
    /// wake up and read a long move list is not charged to it; follow with
    /// [`EngineHost::go_on_position`].
    ///
    /// # Errors
    /// [`HostError::Timeout`] or [`HostError::Crashed`].
    pub fn set_position(
        &mut self,
        start: &PositionStart,
        moves: &[UciMove],
    ) -> Result<(), HostError> {
        self.send_position(start, moves)?;
        self.is_ready()
    }

    fn send_position(&mut self, start: &PositionStart, moves: &[UciMove]) -> Result<(), HostError> {
        self.send(&Command::Position {
            start: start.clone(),
            moves: moves.to_vec(),
            invalid_move: None,
        })
    }

    /// Starts a search on the position last sent (by
    /// [`EngineHost::set_position`]) and returns at once: sends `go` only.
    /// Follow as after [`EngineHost::go`].
    ///
    /// # Errors
    /// [`HostError::Crashed`] if the engine is gone.
    pub fn go_on_position(&mut self, go: &GoParams) -> Result<(), HostError> {
        self.send(&Command::Go(go.clone()))?;
        self.search = Some(Running {
            t0: Instant::now(),
            lines: Vec::new(),
            stopped_by_host: false,
            watch_silence: !(go.infinite || go.ponder),
        });
        Ok(())
    }

    /// The next thing the engine reports in the running search, waiting at
    /// most `timeout`; `None` if it said nothing in that time.
    ///
    /// # Errors
    /// [`HostError::Crashed`], [`HostError::Protocol`] (also when no search runs).
    pub fn next_event(&mut self, timeout: Duration) -> Result<Option<SearchEvent>, HostError> {
        if self.search.is_none() {
            return Err(HostError::Protocol("no search is running".into()));
        }
        match self.recv_until(Instant::now() + timeout, "bestmove") {
            Ok(Message::Info(info)) => {
                if let (Some(run), true) = (self.search.as_mut(), info.pv.is_some()) {
                    let k = info.multipv.unwrap_or(1).max(1) as usize;
                    if run.lines.len() < k {
                        run.lines.resize(k, Info::default());
                    }
                    run.lines[k - 1] = (*info).clone();
                }
                Ok(Some(SearchEvent::Info(info)))
            }
            Ok(Message::BestMove(BestMove { best, ponder })) => {
                let run = self.search.take().unwrap_or(Running {
                    t0: Instant::now(),
                    lines: Vec::new(),
                    stopped_by_host: false,
                    watch_silence: false,
                });
                Ok(Some(SearchEvent::BestMove(SearchResult {
                    best,
                    ponder,
                    lines: run.lines,
                    elapsed: run.t0.elapsed(),
                    stopped_by_host: run.stopped_by_host,
                })))
            }
            Ok(Message::BadBestMove(words)) => {
                // The search is over: the engine waits for the next command.
                self.search = None;
                Err(HostError::Protocol(format!(
                    "bestmove with no move that can be read: {:?}",
                    words
                )))
            }
            Ok(Message::UciOk | Message::ReadyOk) => Err(HostError::Protocol(
                "unexpected uciok/readyok during a search".into(),
            )),
            Ok(_) | Err(HostError::Timeout { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Waits for the running search's `bestmove`, passing every `info` to
    /// `on_info`. With `stop_after`, `stop` is sent that long (plus the search
    /// margin) from now; without it, `stop` is sent when the engine has said
    /// nothing for [`Timeouts::silence`] (unless the search is `infinite` or
    /// `ponder`). An engine that still does not answer within the margin
    /// after `stop` is hung: [`HostError::Timeout`].
    ///
    /// # Errors
    /// [`HostError::Crashed`], [`HostError::Timeout`], [`HostError::Protocol`].
    pub fn wait_bestmove(
        &mut self,
        stop_after: Option<Duration>,
        mut on_info: impl FnMut(&Info),
    ) -> Result<SearchResult, HostError> {
        let margin = self.timeouts.search_margin;
        let start = Instant::now();
        let mut stop_at = stop_after.map(|d| start + d + margin);
        let mut give_up_at: Option<Instant> = None;
        let watch_silence = self.search.as_ref().is_some_and(|r| r.watch_silence);
        let mut heard = start;
        loop {
            let deadline = give_up_at.or(stop_at).unwrap_or_else(|| {
                if watch_silence {
                    heard + self.timeouts.silence
                } else {
                    // Waits for `stop` from the caller: only a bound on the loop.
                    Instant::now() + Duration::from_secs(3600)
                }
            });
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_event(left)? {
                Some(SearchEvent::Info(info)) => {
                    heard = Instant::now();
                    on_info(&info);
                }
                Some(SearchEvent::BestMove(result)) => return Ok(result),
                None if Instant::now() < deadline => {}
                None if give_up_at.is_none() && (stop_at.is_some() || watch_silence) => {
                    self.send(&Command::Stop)?;
                    if let Some(run) = self.search.as_mut() {
                        run.stopped_by_host = true;
                    }
                    stop_at = None;
                    give_up_at = Some(Instant::now() + margin);
                }
                None => {
                    let after = self
                        .search
                        .take()
                        .map_or(start.elapsed(), |r| r.t0.elapsed());
                    return Err(HostError::Timeout {
                        waiting_for: "bestmove",
                        after,
                    });
                }
            }
        }
    }

    /// Sends `stop`.
    ///
    /// # Errors
    /// [`HostError::Crashed`] if the engine is gone.
    pub fn stop(&mut self) -> Result<(), HostError> {
        self.send(&Command::Stop)
    }

    /// Sends `ponderhit`.
    ///
    /// # Errors
    /// [`HostError::Crashed`] if the engine is gone.
    pub fn ponder_hit(&mut self) -> Result<(), HostError> {
        self.send(&Command::PonderHit)
    }

    /// Kills the engine and starts it again with the same spec and options.
    ///
    /// # Errors
    /// As [`EngineHost::start`].
    pub fn restart(&mut self) -> Result<(), HostError> {
        self.transport.kill();
        self.transport = Box::new(ProcessTransport::spawn(&self.spec)?);
        self.options.clear();
        self.garbage.clear();
        self.search = None;
        self.handshake()
    }

    /// Sends `quit`, waits the grace period, then kills the engine if it is still running.
    pub fn quit(mut self) {
        let _ = self.transport.send_line("quit");
        if self.transport.wait_exit(self.timeouts.quit_grace).is_none() {
            self.transport.kill();
        }
    }
}

/// The time a `go` should take, if it says: movetime, or none (depth, nodes,
/// mate, clocks and infinite searches end when the engine decides).
fn search_limit(go: &GoParams) -> Option<Duration> {
    if go.infinite || go.ponder {
        return None;
    }
    go.movetime
        .map(|ms| Duration::from_millis(ms.max(0) as u64))
}
