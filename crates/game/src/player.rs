//! The `Player` seam: whatever can be asked for a move.
//!
//! The game core ([`crate::game`]) asks a [`Player`] for a move with a
//! [`MoveRequest`] (the game so far and the limits) and gets a [`MoveReply`]
//! (the move, unchecked, and what the player said about it). It checks the
//! move, times it and keeps the clocks: a player is never trusted with the
//! rules or the time.
//!
//! [`UciPlayer`] drives any UCI engine through `rookery-uci`'s host: an
//! external program, or the built-in engine, which runs its own UCI loop in
//! process over [`builtin_transport`], so both take exactly the same path.
//! [`crate::xboard::XboardPlayer`] drives an xboard (CECP) engine; an
//! [`EngineConfig`] starts either, by its `proto=` word, as an
//! [`EnginePlayer`].

use crate::clock::TimeControl;
use rookery_core::{CastlingMode, Fen, Move, Position, Score, UciMove};
use rookery_uci::host::{
    EngineHost, HostError, Incoming, ProcessTransport, SearchEvent, Timeouts, Transport,
};
use rookery_uci::{GoParams, Info, PositionStart};
use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, Read, Write};
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The limits of one move, as the referee's clocks stand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThinkLimits {
    /// White's time left.
    pub wtime: Option<Duration>,
    /// Black's time left.
    pub btime: Option<Duration>,
    /// White's increment.
    pub winc: Option<Duration>,
    /// Black's increment.
    pub binc: Option<Duration>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Depth limit.
    pub depth: Option<u32>,
}

/// A request for a move.
#[derive(Clone, Debug)]
pub struct MoveRequest<'a> {
    /// The game's starting position.
    pub start: &'a Position,
    /// The moves played since, the last one the opponent's.
    pub moves: &'a [Move],
    /// The limits from the clocks.
    pub limits: ThinkLimits,
    /// How long the player may take before it is given up on (its limit plus
    /// the margin, or the stall timeout when nothing limits the move).
    pub deadline: Duration,
    /// The time White and Black have used so far (the referee's clocks;
    /// what the EPD `cc` opcode carries).
    pub used: [Duration; 2],
    /// The opponent offered a draw with its last move: the player may answer
    /// [`Offer::Accept`] (instead of a move) or [`Offer::Reject`].
    pub draw_offered: bool,
}

/// What a player says beside its move, or instead of one (EPD §6.9-6.12,
/// §6.25). The game core mediates these between the two players.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Offer {
    /// Offers a draw with the move (`draw_offer`); the opponent is told with
    /// its next request.
    Draw,
    /// Claims a draw by rule (repetition, fifty moves, insufficient
    /// material) with the move (`draw_claim`). A claim the rules do not
    /// support is refused: the game goes on, or is lost when
    /// [`crate::adjudicate::Rules::invalid_claim_loses`] says so.
    Claim,
    /// Declines the opponent's offer with the move (`draw_reject`; a move
    /// alone declines it too).
    Reject,
    /// Accepts the opponent's offer (`draw_accept`): the game is drawn and
    /// the move, if any, is ignored. Without an offer it is a protocol
    /// violation.
    Accept,
    /// Resigns (`resign`): the game is lost and the move, if any, ignored.
    Resign,
}

/// What a player answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveReply {
    /// The move as sent, not yet checked ([`UciMove::Null`] for `0000`).
    pub mv: UciMove,
    /// The player's last score for it, from its own point of view.
    pub score: Option<Score>,
    /// Depth reached.
    pub depth: Option<u32>,
    /// Selective depth.
    pub seldepth: Option<u32>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// The principal variation as sent.
    pub pv: Vec<UciMove>,
    /// Every info line of the search that had a PV, in order (the referee
    /// checks them: [`crate::pvcheck`]).
    pub infos: Vec<Info>,
    /// The last `info string` lines of the search, as received (at most
    /// [`crate::record::MoveRecord::INFO_STRINGS`]).
    pub info_strings: Vec<String>,
    /// A draw offer, claim, acceptance or resignation with (or instead of)
    /// the move.
    pub offer: Option<Offer>,
}

impl MoveReply {
    /// A reply of just a move, nothing said about it.
    pub fn just(mv: UciMove) -> MoveReply {
        MoveReply {
            mv,
            score: None,
            depth: None,
            seldepth: None,
            nodes: None,
            pv: Vec::new(),
            infos: Vec::new(),
            info_strings: Vec::new(),
            offer: None,
        }
    }
}

/// How a player failed.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// It could not be started or did not finish its handshake.
    #[error("cannot start {name}: {reason}")]
    Start {
        /// The player.
        name: String,
        /// Why.
        reason: String,
    },
    /// The program exited or the connection closed.
    #[error("{0}")]
    Crashed(String),
    /// No answer by the deadline. `responsive` tells whether it still
    /// answered `stop` (a slow engine) or not (a stalled one).
    #[error("no move within {} ms{}", .after.as_millis(), if *.responsive { "" } else { "; it did not answer stop either" })]
    Timeout {
        /// How long it was given.
        after: Duration,
        /// Whether it answered `stop` afterwards.
        responsive: bool,
    },
    /// It broke the protocol.
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// It sent a move that is not legal, or cannot be read, in the position
    /// (the move as sent), for players that resolve moves themselves.
    #[error("illegal move {0}")]
    IllegalMove(String),
}

impl PlayerError {
    pub(crate) fn from_host(e: HostError) -> PlayerError {
        match e {
            HostError::Crashed { .. } | HostError::Io(_) => PlayerError::Crashed(e.to_string()),
            HostError::Timeout { after, .. } => PlayerError::Timeout {
                after,
                responsive: false,
            },
            // Said once: both errors' messages begin "protocol violation".
            HostError::Protocol(what) => PlayerError::Protocol(what),
            other => PlayerError::Protocol(other.to_string()),
        }
    }
}

/// Anything that can play a game: asked for moves, told when a game begins.
pub trait Player: Send {
    /// The player's name for the PGN.
    fn name(&self) -> &str;
    /// Prepares for a new game (`ucinewgame`); `chess960` says how castling
    /// is written.
    ///
    /// # Errors
    /// [`PlayerError`] if the player is gone or does not answer.
    fn new_game(&mut self, chess960: bool) -> Result<(), PlayerError>;
    /// Readies the player for `request` before its clock starts: nothing
    /// done here is charged to its clock. A UCI engine is sent the position
    /// and answers `isready` (bounded by the host's ready timeout), so that
    /// the time a busy machine takes to wake it is not lost on its clock;
    /// the default does nothing. [`Player::request_move`] with the same
    /// request follows.
    ///
    /// # Errors
    /// [`PlayerError`]: crash, timeout, protocol violation.
    fn prepare(&mut self, request: &MoveRequest<'_>) -> Result<(), PlayerError> {
        let _ = request;
        Ok(())
    }
    /// Asks for a move and waits at most `request.deadline` for it.
    ///
    /// # Errors
    /// [`PlayerError`]: crash, timeout, protocol violation.
    fn request_move(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError>;
    /// Starts the player afresh after a failure.
    ///
    /// # Errors
    /// [`PlayerError::Start`] if it cannot be brought back.
    fn restart(&mut self) -> Result<(), PlayerError>;
    /// Ends the player (`quit`, then kill).
    fn quit(&mut self);
    /// Told that the game is over: `record` is the finished game, `last` its
    /// final position. A network client is sent `conclude`; the default
    /// does nothing.
    fn game_over(&mut self, record: &crate::record::GameRecord, last: &Position) {
        let _ = (record, last);
    }
}

/// How an engine is started: the built-in one, or a program (the program
/// words of [`rookery_uci::program`]).
pub use rookery_uci::program::EngineCommand;

/// The protocol an engine speaks (`proto=`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// UCI (the default).
    #[default]
    Uci,
    /// xboard / WinBoard (CECP 2, and version 1 engines).
    Xboard,
}

impl std::str::FromStr for Protocol {
    type Err = EngineWordError;
    fn from_str(s: &str) -> Result<Protocol, EngineWordError> {
        match s {
            "uci" => Ok(Protocol::Uci),
            "xboard" => Ok(Protocol::Xboard),
            _ => Err(EngineWordError {
                word: format!("proto={s}"),
                reason: "expected uci or xboard".into(),
            }),
        }
    }
}

/// One engine of a match: how to start it, its options and its limits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineConfig {
    /// The name in the PGN (default: the engine's `id name`).
    pub name: Option<String>,
    /// How to start it.
    pub command: EngineCommand,
    /// The protocol it speaks (absent in journals written before xboard
    /// engines could play: UCI).
    #[serde(default)]
    pub proto: Protocol,
    /// Engine options set after the handshake, in order.
    pub options: Vec<(String, String)>,
    /// Its time control (time odds when the engines' differ).
    pub tc: TimeControl,
    /// How far a move may overrun the clock before the flag falls.
    pub timemargin: Duration,
    /// Start the engine afresh for every game.
    pub restart: bool,
    /// An option the engine does not declare fails its start; by default
    /// it is skipped with a warning, as cutechess-cli does.
    #[serde(default)]
    pub strict_options: bool,
    /// Ponder (cutechess-cli's `ponder`): after its move the engine searches
    /// the reply it expects (`go ponder`) while the opponent thinks; if the
    /// opponent plays it, `ponderhit` turns that search into its move (its
    /// clock runs from the `ponderhit`, when the referee asks it for the
    /// move), else `stop` ends it and a normal `go` follows. Only an engine
    /// that declares the UCI option `Ponder` ponders; it is set to `true`.
    #[serde(default)]
    pub ponder: bool,
    /// The engine writes its scores from White's point of view
    /// (cutechess-cli's `whitepov`): they are turned to its own view when it
    /// plays Black, for adjudication and the PGN.
    #[serde(default)]
    pub white_pov: bool,
    /// The engine's standard error is appended to this file
    /// (cutechess-cli's `stderr=FILE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<PathBuf>,
}

/// An `EngineConfig` word that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad engine word {word:?}: {reason}")]
pub struct EngineWordError {
    /// The word.
    pub word: String,
    /// What was expected.
    pub reason: String,
}

impl EngineConfig {
    /// The default: the built-in engine, no options, no time limit.
    pub fn builtin() -> EngineConfig {
        EngineConfig {
            name: None,
            command: EngineCommand::Builtin,
            proto: Protocol::Uci,
            options: Vec::new(),
            tc: TimeControl::default(),
            timemargin: Duration::ZERO,
            restart: false,
            strict_options: false,
            ponder: false,
            white_pov: false,
            stderr: None,
        }
    }

    /// Sets an engine option, replacing an earlier value of the same name (in
    /// any case).
    pub fn set_option(&mut self, name: &str, value: &str) {
        self.options.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.options.push((name.to_string(), value.to_string()));
    }

    /// Applies one cutechess/fastchess engine word: `cmd=PATH|builtin`,
    /// `name=N`, `arg=A` (repeatable), `args="A B"` (fastchess: several,
    /// split at spaces), `dir=D`, `option.NAME=VALUE`, `tc=`, `st=`,
    /// `nodes=`, `depth=` (or `plies=`), `timemargin=MS`,
    /// `restart=on|off|auto` (`auto` is `off`: an engine is kept),
    /// `proto=uci|xboard`, and the bare words `ponder`
    /// ([`EngineConfig::ponder`]), `whitepov` ([`EngineConfig::white_pov`])
    /// and `trust` (cutechess-cli's trust in an engine's result claims: the
    /// referee judges every ending itself, so nothing to do).
    /// Words that cannot be honoured are refused with the reason:
    /// `initstr=`, `stderr=`, `book=`, `bookdepth=`, `tscale=`, `debug`;
    /// `conf=` is expanded by the caller from an `engines.json` before the
    /// words get here.
    ///
    /// # Errors
    /// [`EngineWordError`] naming the word.
    pub fn apply(&mut self, word: &str) -> Result<(), EngineWordError> {
        let bad = |reason: &str| EngineWordError {
            word: word.to_string(),
            reason: reason.to_string(),
        };
        match word {
            "ponder" => {
                self.ponder = true;
                return Ok(());
            }
            "whitepov" => {
                self.white_pov = true;
                return Ok(());
            }
            "trust" => return Ok(()),
            "debug" => {
                return Err(bad(
                    "the engine's debug mode is not supported (--log records the conversation)",
                ))
            }
            _ => {}
        }
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| bad("expected key=value"))?;
        if let Some(opt) = key.strip_prefix("option.") {
            if opt.is_empty() {
                return Err(bad("option. needs a name"));
            }
            self.set_option(opt, value);
            return Ok(());
        }
        match key {
            "cmd" => {
                let program = value
                    .parse::<EngineCommand>()
                    .map_err(|_| bad("cmd= needs a program"))?;
                self.command.set_program(program);
            }
            "name" => self.name = Some(value.to_string()),
            "arg" | "dir" => match &mut self.command {
                EngineCommand::External { args, dir, .. } => {
                    if key == "arg" {
                        args.push(value.to_string());
                    } else {
                        *dir = Some(PathBuf::from(value));
                    }
                }
                EngineCommand::Builtin => return Err(bad("arg= and dir= need cmd=PATH first")),
            },
            "tc" | "st" | "hg" => self
                .tc
                .set(key, &without_seconds_suffix(value))
                .map_err(|e| bad(e.reason))?,
            "nodes" | "depth" | "plies" => self.tc.set(key, value).map_err(|e| bad(e.reason))?,
            "timemargin" => {
                let ms: u64 = value.parse().map_err(|_| bad("expected milliseconds"))?;
                if ms > 3_600_000 {
                    return Err(bad("at most 3600000 ms"));
                }
                self.timemargin = Duration::from_millis(ms);
            }
            "args" => match &mut self.command {
                EngineCommand::External { args, .. } => {
                    args.extend(value.split_whitespace().map(str::to_string));
                }
                EngineCommand::Builtin => return Err(bad("args= needs cmd=PATH first")),
            },
            "restart" => {
                self.restart = match value {
                    "on" => true,
                    "off" | "auto" => false,
                    _ => return Err(bad("expected on, off or auto")),
                }
            }
            "proto" => self.proto = value.parse().map_err(|_| bad("expected uci or xboard"))?,
            "conf" => {
                return Err(bad(
                    "conf= names an engine of an engines.json, which only rookery match reads",
                ))
            }
            // cutechess-cli's lines sent at start-up (chess-tuning-tools'
            // `initStrings`): the protocol's own opening lines, which the
            // host sends anyway, and options; `\n` separates lines.
            "initstr" => {
                for line in value.split("\\n").flat_map(str::lines) {
                    let line = line.trim();
                    let words: Vec<&str> = line.split_whitespace().collect();
                    match words.as_slice() {
                        [] | ["uci" | "isready" | "ucinewgame"] => {}
                        ["setoption", "name", rest @ ..] => {
                            let at = rest.iter().position(|w| *w == "value");
                            match at {
                                Some(v) if v > 0 && v + 1 < rest.len() => {
                                    self.set_option(&rest[..v].join(" "), &rest[v + 1..].join(" "))
                                }
                                _ => {
                                    return Err(bad(&format!(
                                        "{line:?}: expected setoption name NAME value VALUE"
                                    )))
                                }
                            }
                        }
                        _ => {
                            return Err(bad(&format!(
                                "{line:?}: only the protocol's opening lines (uci, isready, \
                                 ucinewgame) and setoption name NAME value VALUE are sent"
                            )))
                        }
                    }
                }
            }
            "stderr" => {
                if value.is_empty() {
                    return Err(bad("stderr= needs a file"));
                }
                self.stderr = Some(PathBuf::from(value));
            }
            "book" | "bookdepth" => {
                return Err(bad(
                    "engine opening books are not supported (use --openings for the match)",
                ))
            }
            "tscale" => return Err(bad("timeout scaling is not supported")),
            _ => return Err(bad("unknown key")),
        }
        Ok(())
    }

    /// Applies engine words in any order, as both tools take them: the
    /// `cmd=` words first (so that `dir=Engines/ cmd=./dev`, OpenBench's
    /// order, has a program to give its directory), then the others in
    /// their order, a later word winning over an earlier one.
    ///
    /// # Errors
    /// The first [`EngineWordError`].
    pub fn apply_all<'a>(
        &mut self,
        words: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Result<(), EngineWordError> {
        let is_cmd = |w: &&str| w.starts_with("cmd=");
        for w in words.clone().into_iter().filter(is_cmd) {
            self.apply(w)?;
        }
        for w in words.into_iter().filter(|w| !is_cmd(w)) {
            self.apply(w)?;
        }
        Ok(())
    }

    /// A short label for messages before the engine has told its name.
    pub fn label(&self) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        self.command.label()
    }

    /// Starts the engine in the protocol of its `proto=` word. Every line
    /// sent and received goes to `log` when given.
    ///
    /// # Errors
    /// [`PlayerError::Start`].
    pub fn start(
        &self,
        timeouts: Timeouts,
        log: Option<EngineLog>,
    ) -> Result<EnginePlayer, PlayerError> {
        match self.proto {
            Protocol::Uci => UciPlayer::start(self.clone(), timeouts, log)
                .map(|p| EnginePlayer::Uci(Box::new(p))),
            Protocol::Xboard => crate::xboard::XboardPlayer::start(self.clone(), timeouts, log)
                .map(|p| EnginePlayer::Xboard(Box::new(p))),
        }
    }
}

/// An engine of an [`EngineConfig`], in the protocol it speaks.
pub enum EnginePlayer {
    /// A UCI engine (or the built-in one).
    Uci(Box<UciPlayer>),
    /// An xboard engine.
    Xboard(Box<crate::xboard::XboardPlayer>),
}

impl EnginePlayer {
    /// Options of its configuration the engine does not have, skipped when
    /// it started (unless [`EngineConfig::strict_options`]).
    pub fn skipped_options(&self) -> &[String] {
        match self {
            EnginePlayer::Uci(p) => p.skipped_options(),
            EnginePlayer::Xboard(p) => p.skipped_options(),
        }
    }

    /// Options of its configuration set to a value the engine does not
    /// take, skipped when it started (xboard engines: none; their options
    /// are not checked): (option, value).
    pub fn refused_values(&self) -> &[(String, String)] {
        match self {
            EnginePlayer::Uci(p) => p.refused_values(),
            EnginePlayer::Xboard(_) => &[],
        }
    }

    fn inner(&mut self) -> &mut dyn Player {
        match self {
            EnginePlayer::Uci(p) => p.as_mut(),
            EnginePlayer::Xboard(p) => p.as_mut(),
        }
    }
}

impl Player for EnginePlayer {
    fn name(&self) -> &str {
        match self {
            EnginePlayer::Uci(p) => p.name(),
            EnginePlayer::Xboard(p) => p.name(),
        }
    }
    fn new_game(&mut self, chess960: bool) -> Result<(), PlayerError> {
        self.inner().new_game(chess960)
    }
    fn prepare(&mut self, request: &MoveRequest<'_>) -> Result<(), PlayerError> {
        self.inner().prepare(request)
    }
    fn request_move(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        self.inner().request_move(request)
    }
    fn restart(&mut self) -> Result<(), PlayerError> {
        self.inner().restart()
    }
    fn quit(&mut self) {
        self.inner().quit();
    }
    fn game_over(&mut self, record: &crate::record::GameRecord, last: &Position) {
        self.inner().game_over(record, last);
    }
}

/// A time with fastchess's `s` after its seconds (`2+0.02s`, `10s+0.1s`,
/// `0.5s`) without it.
fn without_seconds_suffix(value: &str) -> String {
    value
        .split('+')
        .map(|part| {
            part.strip_suffix('s')
                .filter(|p| p.ends_with(|c: char| c.is_ascii_digit()))
                .unwrap_or(part)
        })
        .collect::<Vec<_>>()
        .join("+")
}

/// Where an engine's conversation is written: a shared log file and the
/// name to write in front of each line.
#[derive(Clone)]
pub struct EngineLog {
    /// The log (shared by every engine of a match).
    pub sink: Arc<Mutex<dyn Write + Send>>,
    /// The label of this engine's lines.
    pub label: String,
    /// When the log began: lines carry milliseconds since then.
    pub epoch: Instant,
    /// How the lines are written.
    pub style: LogStyle,
    /// Engine processes started with this log (cutechess-cli's labels
    /// number them).
    pub started: Arc<std::sync::atomic::AtomicUsize>,
}

/// How an [`EngineLog`] writes its lines.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogStyle {
    /// rookery's: `     1234 LABEL < line` for a line sent to the engine,
    /// `>` for one received.
    #[default]
    Rookery,
    /// cutechess-cli's `-debug` lines: `1234 >LABEL: line` for a line sent
    /// to the engine, `<` for one received (the label `NAME(i)`, `i`
    /// counting the engine processes started), which tools such as
    /// chess-tuning-tools read.
    Cutechess,
}

impl EngineLog {
    fn write(&self, dir: &str, line: &str) {
        let ms = self.epoch.elapsed().as_millis();
        // The lock only fails if another writer panicked mid-line; logging
        // goes on with what is there.
        let mut w = match self.sink.lock() {
            Ok(w) => w,
            Err(p) => p.into_inner(),
        };
        // A failing log must not stop a game; the match reports log errors
        // when it flushes at the end.
        let _ = match self.style {
            LogStyle::Rookery => writeln!(w, "{ms:>9} {}{dir}{line}", self.label),
            // cutechess-cli's arrows point the other way: `>` into the engine.
            LogStyle::Cutechess => {
                let arrow = if dir.trim() == "<" { ">" } else { "<" };
                writeln!(w, "{ms} {arrow}{}: {line}", self.label)
            }
        };
    }
}

/// A transport that writes every line to an [`EngineLog`].
struct LoggedTransport {
    inner: Box<dyn Transport>,
    log: EngineLog,
}

/// `transport`, writing every line to `log` when given.
pub(crate) fn logged(transport: Box<dyn Transport>, log: Option<&EngineLog>) -> Box<dyn Transport> {
    match log {
        Some(log) => Box::new(LoggedTransport {
            inner: transport,
            log: log.clone(),
        }),
        None => transport,
    }
}

impl Transport for LoggedTransport {
    fn send_line(&mut self, line: &str) -> io::Result<()> {
        self.log.write(" < ", line);
        self.inner.send_line(line)
    }
    fn recv_line(&mut self, timeout: Duration) -> Option<Incoming> {
        let r = self.inner.recv_line(timeout);
        match &r {
            Some(Incoming::Line(l)) => self.log.write(" > ", l),
            Some(Incoming::Closed) => self.log.write(" > ", "(end of output)"),
            None => {}
        }
        r
    }
    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        self.inner.wait_exit(timeout)
    }
    fn kill(&mut self) {
        self.inner.kill();
    }
    fn stderr_tail(&self) -> Vec<String> {
        self.inner.stderr_tail()
    }
}

/// Reads lines sent over a channel, as the engine's UCI loop reads stdin.
struct ChannelReader {
    rx: Receiver<String>,
    buf: Vec<u8>,
    at: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChannelReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at >= self.buf.len() {
            self.buf.clear();
            self.at = 0;
            // A closed channel is the end of input, which ends the loop.
            if let Ok(line) = self.rx.recv() {
                self.buf.extend_from_slice(line.as_bytes());
                self.buf.push(b'\n');
            }
        }
        Ok(&self.buf[self.at..])
    }
    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.buf.len());
    }
}

/// Splits what the engine writes into lines for the host.
struct ChannelWriter {
    tx: Sender<Incoming>,
    partial: Vec<u8>,
}

impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.partial.extend_from_slice(data);
        while let Some(i) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=i).collect();
            let text = String::from_utf8_lossy(&line[..i])
                .trim_end_matches('\r')
                .to_string();
            // The host may be gone (game over); the engine keeps running
            // until its input closes.
            let _ = self.tx.send(Incoming::Line(text));
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The built-in engine's UCI loop on a thread of this process.
struct BuiltinTransport {
    to_engine: Option<Sender<String>>,
    from_engine: Receiver<Incoming>,
    thread: Option<JoinHandle<()>>,
    closed: bool,
}

/// A transport to the built-in engine running its UCI loop on a thread of
/// this process: the same protocol, options and time management a GUI gets.
pub fn builtin_transport() -> Box<dyn Transport> {
    let (to_engine, rx) = mpsc::channel::<String>();
    let (tx, from_engine) = mpsc::channel::<Incoming>();
    let closer = tx.clone();
    let thread = std::thread::Builder::new()
        .name("rookery-builtin".into())
        .spawn(move || {
            let input = ChannelReader {
                rx,
                buf: Vec::new(),
                at: 0,
            };
            let output = ChannelWriter {
                tx,
                partial: Vec::new(),
            };
            // Errors come only from reading the channel, which cannot fail.
            let _ = rookery_engine::protocol::run(input, output);
            let _ = closer.send(Incoming::Closed);
        });
    match thread {
        Ok(handle) => Box::new(BuiltinTransport {
            to_engine: Some(to_engine),
            from_engine,
            thread: Some(handle),
            closed: false,
        }),
        // Without a thread there is no engine: a transport that is closed.
        Err(_) => {
            let (tx, from_engine) = mpsc::channel();
            let _ = tx.send(Incoming::Closed);
            Box::new(BuiltinTransport {
                to_engine: None,
                from_engine,
                thread: None,
                closed: true,
            })
        }
    }
}

fn success() -> ExitStatus {
    use std::os::unix::process::ExitStatusExt;
    ExitStatus::from_raw(0)
}

impl Transport for BuiltinTransport {
    fn send_line(&mut self, line: &str) -> io::Result<()> {
        match &self.to_engine {
            Some(tx) if !self.closed => tx
                .send(line.to_string())
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "engine thread ended")),
            _ => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "engine thread ended",
            )),
        }
    }
    fn recv_line(&mut self, timeout: Duration) -> Option<Incoming> {
        if self.closed {
            return Some(Incoming::Closed);
        }
        match self.from_engine.recv_timeout(timeout) {
            Ok(Incoming::Closed) | Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                Some(Incoming::Closed)
            }
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) => None,
        }
    }
    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        while self.thread.as_ref().is_some_and(|t| !t.is_finished()) {
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        Some(success())
    }
    fn kill(&mut self) {
        // A thread cannot be killed: closing its input ends the loop (a
        // search in progress is stopped by the loop at end of input).
        self.to_engine = None;
        self.closed = true;
    }
    fn stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A UCI engine (external or built-in) as a [`Player`].
pub struct UciPlayer {
    config: EngineConfig,
    timeouts: Timeouts,
    log: Option<EngineLog>,
    host: Option<EngineHost>,
    name: String,
    chess960: Option<bool>,
    skipped: Vec<String>,
    /// Options whose values the engine does not take, skipped: (option,
    /// value).
    refused: Vec<(String, String)>,
    /// The engine ponders: [`EngineConfig::ponder`] and it declares `Ponder`.
    can_ponder: bool,
    /// The game the ponder search in progress expects at the next request.
    pondering: Option<Expected>,
    /// The game whose position the engine was given by [`Player::prepare`].
    prepared: Option<Expected>,
}

/// A game as the engine was given it: the start and every move (for a
/// ponder search, the reply it expects last).
struct Expected {
    start: Position,
    moves: Vec<Move>,
}

/// How long an engine that missed its deadline gets to answer `stop` (or
/// an xboard engine `?`).
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(1000);

/// The most info lines with a PV kept from one search for the checks: an
/// engine that floods its output does not grow the referee's memory.
const MAX_PV_LINES: usize = 1024;

impl UciPlayer {
    /// Starts the engine of `config` as a UCI engine (whatever its `proto=`;
    /// [`EngineConfig::start`] starts it in its own protocol).
    ///
    /// # Errors
    /// [`PlayerError::Start`].
    pub fn start(
        config: EngineConfig,
        timeouts: Timeouts,
        log: Option<EngineLog>,
    ) -> Result<UciPlayer, PlayerError> {
        let mut p = UciPlayer {
            name: config.label(),
            config,
            timeouts,
            log,
            host: None,
            chess960: None,
            skipped: Vec::new(),
            refused: Vec::new(),
            can_ponder: false,
            pondering: None,
            prepared: None,
        };
        p.restart()?;
        Ok(p)
    }

    /// Ends the ponder search in progress, if one is: `stop`, and its
    /// `bestmove` read and dropped.
    ///
    /// # Errors
    /// [`PlayerError::Timeout`] (not responsive) when no `bestmove` comes
    /// within [`STOP_GRACE`]; a crash.
    /// Whether the ponder search in progress assumed `req`'s game.
    fn ponder_hit(&self, req: &MoveRequest<'_>) -> bool {
        self.pondering
            .as_ref()
            .is_some_and(|p| p.start == *req.start && p.moves == req.moves)
    }

    /// `req`'s game as UCI says it: the start, the moves in the castling
    /// notation the engine is in, the position reached, and that notation.
    fn position_of(
        &self,
        req: &MoveRequest<'_>,
    ) -> (PositionStart, Vec<UciMove>, Position, CastlingMode) {
        let mode = if self.chess960 == Some(true) || req.start.is_chess960_castling() {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let mut pos = req.start.clone();
        let mut moves = Vec::with_capacity(req.moves.len());
        for &m in req.moves {
            moves.push(UciMove::from_move(&pos, m, mode));
            pos.play_unchecked(m);
        }
        let start = if *req.start == Position::startpos() {
            PositionStart::StartPos
        } else {
            PositionStart::Fen(Fen::from_position(req.start).to_string())
        };
        (start, moves, pos, mode)
    }

    fn stop_pondering(&mut self) -> Result<(), PlayerError> {
        if self.pondering.take().is_none() {
            return Ok(());
        }
        let host = self.host()?;
        host.stop().map_err(PlayerError::from_host)?;
        let grace = Instant::now() + STOP_GRACE;
        loop {
            let left = grace.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(PlayerError::Timeout {
                    after: STOP_GRACE,
                    responsive: false,
                });
            }
            // A bestmove with no move that can be read ends the search too.
            match host.next_event(left) {
                Ok(Some(SearchEvent::BestMove(_))) | Err(HostError::Protocol(_)) => return Ok(()),
                Ok(_) => {}
                Err(e) => return Err(PlayerError::from_host(e)),
            }
        }
    }

    /// After a move `best` chosen in `request`'s position (the game so far
    /// as `moves`, in `mode`'s notation) with `ponder` as the expected reply:
    /// starts the ponder search on the position after both, with the clocks
    /// as they will stand (the engine's time less `elapsed`, plus its
    /// increment; a new period's time when this move ended one). Nothing
    /// when either move is not legal, or the reply ends the game.
    fn start_pondering(
        &mut self,
        req: &MoveRequest<'_>,
        moves: &[UciMove],
        start: &PositionStart,
        (best, ponder): (UciMove, UciMove),
        elapsed: Duration,
        mode: CastlingMode,
    ) -> Result<(), PlayerError> {
        let mut pos = req.start.clone();
        for &m in req.moves {
            pos.play_unchecked(m);
        }
        let me = pos.turn();
        let Ok(best) = best.to_move(&pos) else {
            return Ok(());
        };
        let mut after = pos.clone();
        after.play_unchecked(best);
        let Ok(reply) = ponder.to_move(&after) else {
            return Ok(());
        };
        let best_uci = UciMove::from_move(&pos, best, mode);
        let reply_uci = UciMove::from_move(&after, reply, mode);
        after.play_unchecked(reply);
        if after.legal_moves().is_empty() {
            return Ok(());
        }
        let limits = &req.limits;
        if limits == &ThinkLimits::default() {
            // No limit at all: the search would never end by itself.
            return Ok(());
        }
        let mut next = limits.clone();
        let (time, inc) = match me {
            rookery_core::Color::White => (&mut next.wtime, limits.winc),
            rookery_core::Color::Black => (&mut next.btime, limits.binc),
        };
        if let Some(t) = time.as_mut() {
            *t = t.saturating_sub(elapsed) + inc.unwrap_or_default();
        }
        next.movestogo = match limits.movestogo {
            Some(n) if n > 1 => Some(n - 1),
            Some(_) => {
                // The move ended a period: the next one's time is added.
                let period = self.config.tc.clock;
                if let (Some(t), Some(p)) = (time.as_mut(), period) {
                    *t += p.base;
                }
                period.and_then(|p| p.moves)
            }
            None => None,
        };
        let mut go = UciPlayer::go_params(&next);
        go.ponder = true;
        let mut line = moves.to_vec();
        line.push(best_uci);
        line.push(reply_uci);
        self.host()?
            .go(start, &line, &go)
            .map_err(PlayerError::from_host)?;
        let mut expected = req.moves.to_vec();
        expected.push(best);
        expected.push(reply);
        self.pondering = Some(Expected {
            start: req.start.clone(),
            moves: expected,
        });
        Ok(())
    }

    fn host(&mut self) -> Result<&mut EngineHost, PlayerError> {
        self.host
            .as_mut()
            .ok_or_else(|| PlayerError::Crashed(format!("{} is not running", self.name)))
    }

    fn connect(&self) -> Result<EngineHost, HostError> {
        let options: Vec<(String, Option<String>)> = self
            .config
            .options
            .iter()
            .map(|(n, v)| (n.clone(), Some(v.clone())))
            .collect();
        let mut spec = self.config.command.spec(&options);
        spec.skip_unknown_options = !self.config.strict_options;
        spec.stderr_file.clone_from(&self.config.stderr);
        let transport: Box<dyn Transport> = match &self.config.command {
            EngineCommand::Builtin => builtin_transport(),
            EngineCommand::External { .. } => Box::new(ProcessTransport::spawn(&spec)?),
        };
        EngineHost::with_transport(spec, self.timeouts, logged(transport, self.log.as_ref()))
    }

    /// Options of its configuration the engine does not declare, skipped
    /// when it started (unless [`EngineConfig::strict_options`]).
    pub fn skipped_options(&self) -> &[String] {
        &self.skipped
    }

    /// Options of its configuration set to a value the engine does not
    /// take, skipped when it started (unless
    /// [`EngineConfig::strict_options`]): (option, value).
    pub fn refused_values(&self) -> &[(String, String)] {
        &self.refused
    }

    fn go_params(limits: &ThinkLimits) -> GoParams {
        let ms = |d: Option<Duration>| d.map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        GoParams {
            wtime: ms(limits.wtime),
            btime: ms(limits.btime),
            winc: ms(limits.winc),
            binc: ms(limits.binc),
            movestogo: limits.movestogo,
            movetime: ms(limits.movetime),
            nodes: limits.nodes,
            depth: limits.depth,
            infinite: limits == &ThinkLimits::default(),
            ..GoParams::default()
        }
    }
}

impl Player for UciPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, chess960: bool) -> Result<(), PlayerError> {
        self.stop_pondering()?;
        // A new game's first request sends its position afresh.
        self.prepared = None;
        let host = self.host()?;
        if host
            .options()
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case("UCI_Chess960"))
            && self.chess960 != Some(chess960)
        {
            let host = self.host()?;
            host.set_option(
                "UCI_Chess960",
                Some(if chess960 { "true" } else { "false" }),
            )
            .map_err(PlayerError::from_host)?;
            self.chess960 = Some(chess960);
        }
        self.host()?.new_game().map_err(PlayerError::from_host)
    }

    fn prepare(&mut self, req: &MoveRequest<'_>) -> Result<(), PlayerError> {
        self.prepared = None;
        if self.ponder_hit(req) {
            // The clock starts with `ponderhit`: nothing to send before it.
            return Ok(());
        }
        self.stop_pondering()?;
        let (start, moves, _, _) = self.position_of(req);
        self.host()?
            .set_position(&start, &moves)
            .map_err(PlayerError::from_host)?;
        self.prepared = Some(Expected {
            start: req.start.clone(),
            moves: req.moves.to_vec(),
        });
        Ok(())
    }

    fn request_move(&mut self, req: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        let (start, moves, pos, mode) = self.position_of(req);
        let t0 = Instant::now();
        let prepared = self
            .prepared
            .take()
            .is_some_and(|p| p.start == *req.start && p.moves == req.moves);
        if self.ponder_hit(req) {
            // The expected reply came: the ponder search is now the move.
            self.pondering = None;
            self.host()?.ponder_hit().map_err(PlayerError::from_host)?;
        } else if prepared {
            // The engine has the position (Player::prepare): only `go`.
            let go = UciPlayer::go_params(&req.limits);
            self.host()?
                .go_on_position(&go)
                .map_err(PlayerError::from_host)?;
        } else {
            self.stop_pondering()?;
            let go = UciPlayer::go_params(&req.limits);
            self.host()?
                .go(&start, &moves, &go)
                .map_err(PlayerError::from_host)?;
        }
        let white_pov = self.config.white_pov && pos.turn() == rookery_core::Color::Black;
        let host = self.host()?;
        let deadline = t0 + req.deadline;
        let mut last: Option<Info> = None;
        // The lines with a PV, checked after the move (off its clock).
        let mut infos: Vec<Info> = Vec::new();
        let mut info_strings: Vec<String> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                // Missed the deadline: ask it to stop, and see whether it can.
                let mut responsive = false;
                if host.stop().is_ok() {
                    let grace = Instant::now() + STOP_GRACE;
                    while let Ok(Some(ev)) =
                        host.next_event(grace.saturating_duration_since(Instant::now()))
                    {
                        if let SearchEvent::BestMove(_) = ev {
                            responsive = true;
                            break;
                        }
                        if Instant::now() >= grace {
                            break;
                        }
                    }
                }
                return Err(PlayerError::Timeout {
                    after: req.deadline,
                    responsive,
                });
            }
            match host.next_event(left).map_err(PlayerError::from_host)? {
                Some(SearchEvent::Info(info)) => {
                    if info.string.is_some() {
                        if info_strings.len() == crate::record::MoveRecord::INFO_STRINGS {
                            info_strings.remove(0);
                        }
                        info_strings.push(info.to_string());
                    }
                    if info.pv.as_ref().is_some_and(|pv| !pv.is_empty())
                        && infos.len() < MAX_PV_LINES
                    {
                        infos.push((*info).clone());
                    }
                    if info.multipv.unwrap_or(1) <= 1 && (info.score.is_some() || info.pv.is_some())
                    {
                        last = Some(*info);
                    }
                }
                None => {}
                Some(SearchEvent::BestMove(result)) => {
                    let info = last.unwrap_or_default();
                    let reply = MoveReply {
                        mv: result.best,
                        score: info
                            .score
                            .map(|s| if white_pov { s.value.flip() } else { s.value }),
                        depth: info.depth,
                        seldepth: info.seldepth,
                        nodes: info.nodes,
                        pv: info.pv.unwrap_or_default(),
                        infos,
                        info_strings,
                        offer: None,
                    };
                    if let (true, Some(ponder)) = (self.can_ponder, result.ponder) {
                        // The move stands whatever happens to the ponder
                        // search: an engine gone now is found at the next
                        // request.
                        let elapsed = t0.elapsed();
                        let line = (reply.mv, ponder);
                        if self
                            .start_pondering(req, &moves, &start, line, elapsed, mode)
                            .is_err()
                        {
                            self.pondering = None;
                        }
                    }
                    return Ok(reply);
                }
            }
        }
    }

    fn restart(&mut self) -> Result<(), PlayerError> {
        if let Some(h) = self.host.take() {
            h.quit();
        }
        self.chess960 = None;
        self.pondering = None;
        self.prepared = None;
        let host = self.connect().map_err(|e| PlayerError::Start {
            name: self.config.label(),
            reason: match e {
                HostError::Spawn { source, .. } => source.to_string(),
                other => other.to_string(),
            },
        })?;
        if self.config.name.is_none() {
            self.name = host.name().to_string();
        }
        self.skipped = host.skipped_options().to_vec();
        self.refused = host.refused_values().to_vec();
        self.host = Some(host);
        self.can_ponder = false;
        if self.config.ponder {
            let host = self.host()?;
            let declared = host
                .options()
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case("Ponder"));
            if declared {
                host.set_option("Ponder", Some("true"))
                    .map_err(PlayerError::from_host)?;
                self.can_ponder = true;
            } else {
                // Reported as an option it lacks: it does not ponder.
                self.skipped.push("Ponder".into());
            }
        }
        Ok(())
    }

    fn game_over(&mut self, _record: &crate::record::GameRecord, _last: &Position) {
        // The game is over: a ponder search has nothing left to find. An
        // engine that does not stop is found out by the next request.
        let _ = self.stop_pondering();
    }

    fn quit(&mut self) {
        if let Some(h) = self.host.take() {
            h.quit();
        }
    }
}

impl Drop for UciPlayer {
    fn drop(&mut self) {
        self.quit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(words: &[&str]) -> Result<EngineConfig, EngineWordError> {
        let mut e = EngineConfig::builtin();
        e.apply_all(words.iter().copied())?;
        Ok(e)
    }

    /// OpenBench's order: the directory before the program.
    #[test]
    fn dir_may_come_before_cmd() {
        let e = applied(&["dir=Engines/", "cmd=./dev", "proto=uci", "name=dev"]).unwrap();
        match &e.command {
            EngineCommand::External { path, dir, .. } => {
                assert_eq!(path, &PathBuf::from("./dev"));
                assert_eq!(dir.as_deref(), Some(std::path::Path::new("Engines/")));
            }
            other => panic!("{other:?}"),
        }
        assert!(applied(&["dir=Engines/"]).is_err());
    }

    #[test]
    fn the_peers_engine_words() {
        let e = applied(&[
            "cmd=/bin/e",
            "args=-a  -b",
            "arg=c",
            "ponder",
            "whitepov",
            "trust",
        ])
        .unwrap();
        assert!(e.ponder && e.white_pov);
        match &e.command {
            EngineCommand::External { args, .. } => assert_eq!(args, &["-a", "-b", "c"]),
            other => panic!("{other:?}"),
        }
        assert!(!applied(&["restart=auto"]).unwrap().restart);
        assert!(applied(&["restart=on"]).unwrap().restart);
        // fastchess's seconds with an `s`.
        let e = applied(&["tc=2+0.02s", "st=0.5s"]).unwrap();
        assert_eq!(
            e.tc.to_string(),
            applied(&["tc=2+0.02", "st=0.5"]).unwrap().tc.to_string()
        );
        assert_eq!(
            applied(&["tc=40/60s+0.6s"]).unwrap().tc,
            applied(&["tc=40/60+0.6"]).unwrap().tc
        );
        assert_eq!(applied(&["plies=7"]).unwrap().tc.depth, Some(7));
        // chess-tuning-tools' initStrings, as cutechess-cli sends them.
        let e = applied(&[
            "initstr=uci",
            "initstr=setoption name Hash value 16",
            "initstr=setoption name Skill Level value 3\\nisready",
        ])
        .unwrap();
        assert_eq!(
            e.options,
            [
                ("Hash".to_string(), "16".to_string()),
                ("Skill Level".to_string(), "3".to_string())
            ]
        );
        // cutechess-cli's stderr=FILE.
        assert_eq!(
            applied(&["cmd=/bin/e", "stderr=e.txt"]).unwrap().stderr,
            Some(PathBuf::from("e.txt"))
        );
        for (word, says) in [
            ("proto=cecp", "uci or xboard"),
            ("initstr=hello", "only the protocol's opening lines"),
            (
                "initstr=setoption name Hash",
                "setoption name NAME value VALUE",
            ),
            ("stderr=", "needs a file"),
            ("book=b.bin", "opening books"),
            ("bookdepth=4", "opening books"),
            ("tscale=2", "timeout scaling"),
            ("debug", "debug mode"),
            ("conf=SF", "engines.json"),
            ("args=x", "cmd=PATH"),
            ("restart=maybe", "on, off or auto"),
            ("pondering", "key=value"),
        ] {
            let e = applied(&[word]).unwrap_err();
            assert_eq!(e.word, word);
            assert!(e.to_string().contains(says), "{word}: {e}");
        }
    }
}
