//! The event file: `[event]` and one `[[player]]` table per player (TOML).
//!
//! ```
//! use rookery_referee::argus::config::EventConfig;
//! let cfg = EventConfig::from_toml(r#"
//! [event]
//! name = "Loopback Open"
//! site = "localhost"
//! rounds = 1
//! pairing = "round-robin"
//! time_control = "10+0.1"
//! pgn = "games.pgn"
//! log_dir = "logs"
//!
//! [[player]]
//! name = "Alpha"
//! token = "a-secret"
//!
//! [[player]]
//! name = "Beta"
//! token = "b-secret"
//! command = ["rookery", "referee", "connect", "{address}", "--engine", "builtin",
//!            "--name", "{name}", "--token", "{token}"]
//! "#, std::path::Path::new("."))?;
//! assert_eq!(cfg.players.len(), 2);
//! assert_eq!(cfg.quiet_period.as_millis(), 5000);
//! # Ok::<(), rookery_referee::argus::config::ConfigError>(())
//! ```

use crate::adjudicate::Rules;
use crate::book::BookConfig;
use crate::clock::TimeControl;
use crate::schedule::Pairing;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The event file as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    event: EventSection,
    #[serde(default)]
    player: Vec<PlayerEntry>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventSection {
    name: String,
    #[serde(default = "unknown")]
    site: String,
    date: Option<String>,
    #[serde(default = "one")]
    rounds: usize,
    #[serde(default = "one")]
    games: usize,
    #[serde(default = "round_robin")]
    pairing: String,
    time_control: String,
    #[serde(default)]
    time_margin_ms: u64,
    pgn: PathBuf,
    log_dir: PathBuf,
    journal: Option<PathBuf>,
    observer_token: Option<String>,
    #[serde(default = "five_seconds")]
    quiet_period_ms: u64,
    #[serde(default = "ten_seconds")]
    handshake_timeout_ms: u64,
    #[serde(default = "half_hour")]
    idle_timeout_ms: u64,
    #[serde(default = "max_connections")]
    max_connections: usize,
    port: Option<u16>,
    listen: Option<String>,
    #[serde(default)]
    invalid_claim: Option<String>,
    draw_adjudication: Option<String>,
    resign_adjudication: Option<String>,
    max_moves: Option<u32>,
    openings: Option<String>,
    seed: Option<u64>,
}

fn unknown() -> String {
    "?".into()
}
fn one() -> usize {
    1
}
fn round_robin() -> String {
    "round-robin".into()
}
fn five_seconds() -> u64 {
    5000
}
fn ten_seconds() -> u64 {
    10_000
}
fn half_hour() -> u64 {
    1_800_000
}
fn max_connections() -> usize {
    4096
}

/// One registered player.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerEntry {
    /// The name it signs on with (`tcsi`) and plays under.
    pub name: String,
    /// Its secret (`Token`).
    pub token: String,
    /// A program the referee starts itself (§3.2 duty 1), argv; `{address}`,
    /// `{name}` and `{token}` are replaced by the referee's address and the
    /// player's name and secret.
    pub command: Option<Vec<String>>,
}

/// A validated event.
#[derive(Clone, Debug)]
pub struct EventConfig {
    /// Event name (PGN `Event`).
    pub name: String,
    /// Site (PGN `Site`).
    pub site: String,
    /// Date (PGN `Date`, `YYYY.MM.DD`); today when absent.
    pub date: Option<String>,
    /// Rounds.
    pub rounds: usize,
    /// Games per encounter in a round (colours alternate).
    pub games: usize,
    /// Pairing.
    pub pairing: Pairing,
    /// Time control of every game.
    pub time_control: TimeControl,
    /// How far a move may overrun the clock (network latency).
    pub time_margin: Duration,
    /// The PGN file games are appended to.
    pub pgn: PathBuf,
    /// Where the logs go (one file per player, `event.log`).
    pub log_dir: PathBuf,
    /// The event's journal (`journal`; by default `event.journal` in the
    /// log directory): pairings, every move with both clocks, offers and
    /// results, from which `--resume` and a standby referee continue.
    pub journal: PathBuf,
    /// The secret a standby referee (`rookery referee observe`) gives to
    /// follow the journal (`observer_token`); none: no one may follow it.
    pub observer_token: Option<String>,
    /// The quiet period after `reset` and `conclude` (§8.1.1, §8.1.6).
    pub quiet_period: Duration,
    /// How long a new connection has to sign on.
    pub handshake_timeout: Duration,
    /// How long a signed-on client out of play may stay silent.
    pub idle_timeout: Duration,
    /// Open connections beyond this are refused.
    pub max_connections: usize,
    /// The address to listen on (`--listen` overrides it).
    pub listen: String,
    /// Adjudication, and what an invalid draw claim costs.
    pub rules: Rules,
    /// The players, in order (the first is the gauntlet's).
    pub players: Vec<PlayerEntry>,
    /// Where the games start (`openings`, the words of `rookery match
    /// --openings`: `file=F [format=epd|pgn] [order=random] [plies=N]
    /// [start=N] [policy=round]`; the file relative to the event file).
    /// None: the standard start.
    pub openings: Option<BookConfig>,
    /// The seed of a random opening order (`seed`, default 0).
    pub seed: u64,
}

/// An event file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// It cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a valid event file (TOML error with line and column).
    #[error("{0}")]
    Toml(String),
    /// A value is wrong.
    #[error("{0}")]
    Invalid(String),
}

impl EventConfig {
    /// Reads an event file; relative paths are relative to its directory.
    ///
    /// # Errors
    /// [`ConfigError`].
    pub fn read(path: &Path) -> Result<EventConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let config = EventConfig::from_toml(&text, dir)
            .map_err(|e| ConfigError::Toml(format!("{}: {e}", path.display())))?;
        for (key, written) in [("pgn", &config.pgn), ("journal", &config.journal)] {
            if same_path(written, path) {
                return Err(ConfigError::Invalid(format!(
                    "{}: {key} is the event file itself, which the referee would write over",
                    path.display()
                )));
            }
        }
        Ok(config)
    }

    /// Reads an event from TOML text; relative paths are taken from `dir`.
    ///
    /// # Errors
    /// [`ConfigError`].
    pub fn from_toml(text: &str, dir: &Path) -> Result<EventConfig, ConfigError> {
        let f: File = toml::from_str(text).map_err(|e| ConfigError::Toml(e.to_string()))?;
        let e = f.event;
        let bad = |s: String| ConfigError::Invalid(s);
        let pairing: Pairing = e
            .pairing
            .parse()
            .map_err(|x: crate::schedule::ParsePairingError| bad(x.to_string()))?;
        let time_control: TimeControl = e
            .time_control
            .parse()
            .map_err(|x| bad(format!("time_control: {x}")))?;
        if f.player.len() < 2 {
            return Err(bad("an event needs at least two [[player]] tables".into()));
        }
        for (i, p) in f.player.iter().enumerate() {
            if p.name.trim().is_empty() || p.token.is_empty() {
                return Err(bad(format!(
                    "player {}: name and token must not be empty",
                    i + 1
                )));
            }
            if f.player[..i].iter().any(|q| q.name == p.name) {
                return Err(bad(format!("player name {:?} appears twice", p.name)));
            }
            if p.command.as_ref().is_some_and(Vec::is_empty) {
                return Err(bad(format!("player {:?}: command is empty", p.name)));
            }
        }
        if e.rounds == 0 || e.games == 0 {
            return Err(bad("rounds and games must be at least 1".into()));
        }
        let mut rules = Rules::default();
        if let Some(d) = &e.draw_adjudication {
            rules.draw = Some(
                d.parse()
                    .map_err(|x| bad(format!("draw_adjudication: {x}")))?,
            );
        }
        if let Some(r) = &e.resign_adjudication {
            rules.resign = Some(
                r.parse()
                    .map_err(|x| bad(format!("resign_adjudication: {x}")))?,
            );
        }
        rules.max_moves = e.max_moves;
        rules.invalid_claim_loses = match e.invalid_claim.as_deref() {
            None | Some("continue") => false,
            Some("lose") => true,
            Some(o) => {
                return Err(bad(format!(
                    "invalid_claim {o:?}: expected continue or lose"
                )))
            }
        };
        let openings = match &e.openings {
            Some(words) => {
                let mut book: BookConfig = words
                    .parse()
                    .map_err(|x: crate::book::ParseBookError| bad(format!("openings: {x}")))?;
                book.file = dir.join(&book.file);
                Some(book)
            }
            None => None,
        };
        let pgn = dir.join(e.pgn);
        let journal = match e.journal {
            Some(j) => dir.join(j),
            None => dir.join(&e.log_dir).join("event.journal"),
        };
        if same_path(&pgn, &journal) {
            return Err(bad(format!(
                "pgn and journal are the same file ({}): the games and the journal would be mixed",
                pgn.display()
            )));
        }
        let listen = match (e.listen, e.port) {
            (Some(l), _) => l,
            (None, Some(p)) => format!("0.0.0.0:{p}"),
            (None, None) => "127.0.0.1:0".to_string(),
        };
        Ok(EventConfig {
            name: e.name,
            site: e.site,
            date: e.date,
            rounds: e.rounds,
            games: e.games,
            pairing,
            time_control,
            time_margin: Duration::from_millis(e.time_margin_ms),
            pgn,
            journal,
            observer_token: e.observer_token.filter(|t| !t.is_empty()),
            log_dir: dir.join(e.log_dir),
            quiet_period: Duration::from_millis(e.quiet_period_ms),
            handshake_timeout: Duration::from_millis(e.handshake_timeout_ms),
            idle_timeout: Duration::from_millis(e.idle_timeout_ms),
            max_connections: e.max_connections.max(1),
            listen,
            rules,
            players: f.player,
            openings,
            seed: e.seed.unwrap_or(0),
        })
    }
}

/// Whether `a` and `b` name the same file: as written (`./x` is `x`), or
/// the same existing file.
fn same_path(a: &Path, b: &Path) -> bool {
    let plain = |p: &Path| std::path::absolute(p).map(|p| p.components().collect::<PathBuf>());
    matches!((plain(a), plain(b)), (Ok(x), Ok(y)) if x == y)
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str =
        "[event]\nname = \"E\"\ntime_control = \"40/60+0.6\"\npgn = \"g.pgn\"\nlog_dir = \"l\"\n";

    #[test]
    fn defaults_and_paths() {
        let text = format!("{BASE}[[player]]\nname = \"A\"\ntoken = \"x\"\n[[player]]\nname = \"B\"\ntoken = \"y\"\n");
        let c = EventConfig::from_toml(&text, Path::new("/ev")).unwrap();
        assert_eq!(c.pgn, PathBuf::from("/ev/g.pgn"));
        assert_eq!(c.journal, PathBuf::from("/ev/l/event.journal"));
        assert_eq!(c.observer_token, None);
        assert_eq!(c.pairing, Pairing::RoundRobin);
        assert_eq!(c.time_control.to_string(), "40/60+0.6");
        assert_eq!(c.quiet_period, Duration::from_secs(5));
        assert!(!c.rules.invalid_claim_loses);
    }

    #[test]
    fn mistakes_are_named() {
        let one = format!("{BASE}[[player]]\nname = \"A\"\ntoken = \"x\"\n");
        assert!(EventConfig::from_toml(&one, Path::new("."))
            .unwrap_err()
            .to_string()
            .contains("two"));
        let twice = format!("{BASE}[[player]]\nname = \"A\"\ntoken = \"x\"\n[[player]]\nname = \"A\"\ntoken = \"y\"\n");
        assert!(EventConfig::from_toml(&twice, Path::new("."))
            .unwrap_err()
            .to_string()
            .contains("twice"));
        let typo = format!("{BASE}colour = 1\n[[player]]\nname = \"A\"\ntoken = \"x\"\n");
        assert!(EventConfig::from_toml(&typo, Path::new("."))
            .unwrap_err()
            .to_string()
            .contains("colour"));
        let tc = BASE.replace("40/60+0.6", "fast");
        let tc = format!("{tc}[[player]]\nname = \"A\"\ntoken = \"x\"\n[[player]]\nname = \"B\"\ntoken = \"y\"\n");
        assert!(EventConfig::from_toml(&tc, Path::new("."))
            .unwrap_err()
            .to_string()
            .contains("time_control"));
    }

    /// The games, the journal and the event file are three files: the
    /// referee writes the first two, and would mix or overwrite them.
    #[test]
    fn files_the_referee_writes_are_its_own() {
        let players =
            "[[player]]\nname = \"A\"\ntoken = \"x\"\n[[player]]\nname = \"B\"\ntoken = \"y\"\n";
        let same = format!("{BASE}journal = \"./g.pgn\"\n{players}");
        let err = EventConfig::from_toml(&same, Path::new("/ev")).unwrap_err();
        assert!(
            err.to_string()
                .contains("pgn and journal are the same file"),
            "{err}"
        );
        let dir = std::env::temp_dir().join(format!("rookery-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for key in ["pgn", "journal"] {
            // The key given as the event file's own name.
            let text = if key == "pgn" {
                format!("{}{players}", BASE.replace("g.pgn", "event.toml"))
            } else {
                format!("{BASE}journal = \"event.toml\"\n{players}")
            };
            let path = dir.join("event.toml");
            std::fs::write(&path, &text).unwrap();
            let err = EventConfig::read(&path).unwrap_err();
            assert!(
                err.to_string().contains("the event file itself"),
                "{key}: {err}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_readme_event_file_reads() {
        let readme = include_str!("../../../../README.md");
        let section = &readme[readme.find("## Running an event").unwrap()..];
        let start = section.find("```toml\n").unwrap() + 8;
        let text = &section[start..start + section[start..].find("```").unwrap()];
        let c = EventConfig::from_toml(text, Path::new("/ev")).unwrap();
        assert_eq!(c.players.len(), 2);
        assert_eq!(c.players[0].command.as_ref().map(Vec::len), Some(10));
        assert_eq!(c.listen, "0.0.0.0:7000");
        assert!(c.rules.draw.is_some() && c.rules.resign.is_some());
    }
}
