//! The `Player` seam: whatever can be asked for a move.
//!
//! The game core ([`crate::game`]) asks a [`Player`] for a move with a
//! [`MoveRequest`] (the game so far and the limits) and gets a [`MoveReply`]
//! (the move, unchecked, and what the player said about it). It checks the
//! move, times it and keeps the clocks: a player is never trusted with the
//! rules or the time.
//!
//! [`crate::uci::UciPlayer`] drives any UCI engine through `rookery-uci`'s
//! host: an external program, or the built-in engine, which runs its own
//! UCI loop in process, so both take exactly the same path.
//! [`crate::xboard::XboardPlayer`] drives an xboard (CECP) engine; an
//! [`EngineConfig`] starts either, by its `proto=` word, as a
//! [`crate::engine::EnginePlayer`]. This module is what they all share:
//! the seam, the configuration, the log.

use crate::clock::TimeControl;
use rookery_core::{Move, Position, Score, UciMove};
use rookery_uci::host::HostError;
use rookery_uci::Info;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
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
    /// Writes one line, `dir` saying which way it went (` < ` to the
    /// engine, ` > ` from it).
    pub(crate) fn write(&self, dir: &str, line: &str) {
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

/// How long an engine that missed its deadline gets to answer `stop` (or
/// an xboard engine `?`).
pub(crate) const STOP_GRACE: Duration = Duration::from_millis(1000);

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
