//! The event file: `[event]` and one `[[player]]` table per player (TOML).
//!
//! ```
//! use rookery_argus::config::EventConfig;
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
//! ## The referee passes the token in ROOKERY_TOKEN.
//! command = ["rookery", "referee", "connect", "{address}", "--engine", "builtin",
//!            "--name", "{name}"]
//! "#, std::path::Path::new("."))?;
//! assert_eq!(cfg.players.len(), 2);
//! assert_eq!(cfg.quiet_period.as_millis(), 5000);
//! // No address given: loopback only.
//! assert_eq!(cfg.listen, "127.0.0.1:0");
//! # Ok::<(), rookery_argus::config::ConfigError>(())
//! ```

use rookery_event::book::BookConfig;
use rookery_event::schedule::Pairing;
use rookery_game::adjudicate::Rules;
use rookery_game::clock::TimeControl;
use rookery_pgn::tags::PgnDate;
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
    #[serde(default = "max_pending")]
    max_pending: usize,
    #[serde(default = "max_pending_per_address")]
    max_pending_per_address: usize,
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
fn max_pending() -> usize {
    256
}
fn max_pending_per_address() -> usize {
    16
}

/// The environment variable in which the referee passes a player's token
/// to the program it starts for it (`command`), and from which `rookery
/// referee connect` takes it: unlike the command line, a process's
/// environment is readable only by its owner.
pub const TOKEN_ENV: &str = "ROOKERY_TOKEN";

/// One registered player.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerEntry {
    /// The name it signs on with (`tcsi`) and plays under.
    pub name: String,
    /// Its secret (`Token`).
    pub token: String,
    /// A program the referee starts itself (§3.2 duty 1), argv; `{address}`
    /// and `{name}` are replaced by the referee's address and the player's
    /// name. The program finds the player's secret in the environment
    /// variable [`TOKEN_ENV`]; `{token}` is replaced by it too, but puts it
    /// on a command line every user of the machine can read (see
    /// [`EventConfig::warnings`]).
    pub command: Option<Vec<String>>,
}

/// A validated event.
#[derive(Clone, Debug)]
pub struct EventConfig {
    /// Event name (PGN `Event`).
    pub name: String,
    /// Site (PGN `Site`).
    pub site: String,
    /// Date (PGN `Date`, `YYYY.MM.DD` with `??` for parts unknown, as
    /// written by [`rookery_pgn::tags::PgnDate`]); today when absent.
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
    /// The most connections open at once, signed on or not (at least the
    /// number of players): when it is reached the oldest connection not
    /// signed on is closed for a new one, and a new one is refused only
    /// when every connection is signed on.
    pub max_connections: usize,
    /// The most connections not signed on yet, over all addresses: when it
    /// is reached the oldest of them is closed for a new one, so that idle
    /// or failing connections never keep a player out.
    pub max_pending: usize,
    /// The most connections not signed on yet from one address (an IPv4
    /// address, or an IPv6 /64): when it is reached the oldest of them is
    /// closed for a new one from the same address.
    pub max_pending_per_address: usize,
    /// The address to listen on (`--listen` overrides it): `listen`, or
    /// `127.0.0.1:PORT` for `port = PORT` (loopback unless an address is
    /// named).
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
            .map_err(|x: rookery_event::schedule::ParsePairingError| bad(x.to_string()))?;
        if pairing == Pairing::Knockout {
            return Err(bad(
                "pairing = \"knockout\" is for `rookery match`: an Argus event plays a schedule \
                 fixed in advance (round-robin or gauntlet)"
                    .into(),
            ));
        }
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
            // A token proves who signs on: two alike prove nothing.
            if let Some(q) = f.player[..i].iter().find(|q| q.token == p.token) {
                return Err(bad(format!(
                    "players {:?} and {:?} have the same token: each needs its own",
                    q.name, p.name
                )));
            }
            if e.observer_token.as_deref() == Some(p.token.as_str()) {
                return Err(bad(format!(
                    "player {:?} has the observer_token as its token: each needs its own",
                    p.name
                )));
            }
            if p.command.as_ref().is_some_and(Vec::is_empty) {
                return Err(bad(format!("player {:?}: command is empty", p.name)));
            }
        }
        if e.rounds == 0 || e.games == 0 {
            return Err(bad("rounds and games must be at least 1".into()));
        }
        if e.max_connections < f.player.len() {
            return Err(bad(format!(
                "max_connections = {}: at least one connection per player ({}) is needed",
                e.max_connections,
                f.player.len()
            )));
        }
        if e.max_pending == 0 || e.max_pending_per_address == 0 {
            return Err(bad(
                "max_pending and max_pending_per_address must be at least 1: a player signs on over a connection that is not signed on yet".into(),
            ));
        }
        let date = match &e.date {
            None => None,
            Some(d) => Some(
                d.parse::<PgnDate>()
                    .map_err(|x| bad(format!("date: {x}")))?
                    .to_string(),
            ),
        };
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
                let mut book: BookConfig =
                    words
                        .parse()
                        .map_err(|x: rookery_event::book::ParseBookError| {
                            bad(format!("openings: {x}"))
                        })?;
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
            // Loopback unless an address is named: `listen = "0.0.0.0:N"`
            // opens the event to the network.
            (None, Some(p)) => format!("127.0.0.1:{p}"),
            (None, None) => "127.0.0.1:0".to_string(),
        };
        Ok(EventConfig {
            name: e.name,
            site: e.site,
            date,
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
            max_connections: e.max_connections,
            max_pending: e.max_pending,
            max_pending_per_address: e.max_pending_per_address,
            listen,
            rules,
            players: f.player,
            openings,
            seed: e.seed.unwrap_or(0),
        })
    }
}

impl EventConfig {
    /// What is allowed but unwise in the event: a `command` that puts a
    /// player's token on the command line (`{token}`), where every user of
    /// the machine reads it (`ps`, `/proc/PID/cmdline`).
    pub fn warnings(&self) -> Vec<String> {
        self.players
            .iter()
            .filter(|p| {
                p.command
                    .as_ref()
                    .is_some_and(|c| c.iter().any(|a| a.contains("{token}")))
            })
            .map(|p| {
                format!(
                    "player {:?}: {{token}} in its command puts the token on a command line every user of this machine can read; leave it out: the referee passes it in {TOKEN_ENV}",
                    p.name
                )
            })
            .collect()
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
        // A knockout's later games depend on results: not an Argus event.
        let ko = format!("{BASE}pairing = \"knockout\"\n[[player]]\nname = \"A\"\ntoken = \"x\"\n[[player]]\nname = \"B\"\ntoken = \"y\"\n");
        let err = EventConfig::from_toml(&ko, Path::new(".")).unwrap_err();
        assert!(err.to_string().contains("knockout"), "{err}");
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
    fn the_guides_event_file_reads() {
        let readme = include_str!("../../../docs/referee.md");
        let section = &readme[readme.find("# Running an event").unwrap()..];
        let start = section.find("```toml\n").unwrap() + 8;
        let text = &section[start..start + section[start..].find("```").unwrap()];
        let c = EventConfig::from_toml(text, Path::new("/ev")).unwrap();
        assert_eq!(c.players.len(), 2);
        assert_eq!(c.players[0].command.as_ref().map(Vec::len), Some(8));
        assert_eq!(c.listen, "0.0.0.0:7000");
        assert!(c.rules.draw.is_some() && c.rules.resign.is_some());
        assert!(c.warnings().is_empty(), "{:?}", c.warnings());
        assert_eq!(c.date.as_deref(), Some("2025.01.31"));
    }

    const PLAYERS: &str =
        "[[player]]\nname = \"A\"\ntoken = \"x\"\n[[player]]\nname = \"B\"\ntoken = \"y\"\n";

    fn read(event: &str, players: &str) -> Result<EventConfig, ConfigError> {
        EventConfig::from_toml(&format!("{BASE}{event}\n{players}"), Path::new("/ev"))
    }

    /// `port = N` listens on loopback; only an address named in `listen`
    /// opens the event to the network.
    #[test]
    fn a_port_alone_listens_on_loopback() {
        assert_eq!(
            read("port = 7000", PLAYERS).unwrap().listen,
            "127.0.0.1:7000"
        );
        assert_eq!(
            read("listen = \"0.0.0.0:7000\"", PLAYERS).unwrap().listen,
            "0.0.0.0:7000"
        );
        assert_eq!(read("", PLAYERS).unwrap().listen, "127.0.0.1:0");
    }

    #[test]
    fn connection_limits_that_keep_every_player_out_are_refused() {
        for (event, what) in [
            ("max_connections = 0", "max_connections = 0"),
            ("max_connections = 1", "max_connections = 1"),
            ("max_pending = 0", "max_pending"),
            ("max_pending_per_address = 0", "max_pending"),
        ] {
            let err = read(event, PLAYERS).unwrap_err().to_string();
            assert!(err.contains(what), "{event}: {err}");
        }
        let c = read(
            "max_connections = 2\nmax_pending = 3\nmax_pending_per_address = 1",
            PLAYERS,
        )
        .unwrap();
        assert_eq!(
            (c.max_connections, c.max_pending, c.max_pending_per_address),
            (2, 3, 1)
        );
        let c = read("", PLAYERS).unwrap();
        assert_eq!(
            (c.max_connections, c.max_pending, c.max_pending_per_address),
            (4096, 256, 16)
        );
    }

    #[test]
    fn every_token_is_its_own() {
        let same =
            "[[player]]\nname = \"A\"\ntoken = \"x\"\n[[player]]\nname = \"B\"\ntoken = \"x\"\n";
        let err = read("", same).unwrap_err().to_string();
        assert!(err.contains("\"A\" and \"B\" have the same token"), "{err}");
        let err = read("observer_token = \"y\"", PLAYERS)
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"B\" has the observer_token"), "{err}");
    }

    #[test]
    fn the_date_is_a_pgn_date() {
        for good in ["2025.01.31", "2025.??.??", "????.??.??"] {
            let c = read(&format!("date = \"{good}\""), PLAYERS).unwrap();
            assert_eq!(c.date.as_deref(), Some(good));
        }
        for bad in [
            "yesterday",
            "2025-01-31",
            "2025.13.01",
            "2025.01.32",
            "25.01.31",
            "",
        ] {
            let err = read(&format!("date = \"{bad}\""), PLAYERS)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("date") && err.contains("YYYY.MM.DD"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn a_token_on_a_command_line_is_warned_of() {
        let players = "[[player]]\nname = \"A\"\ntoken = \"x\"\ncommand = [\"connect\", \"--token\", \"{token}\"]\n\
                       [[player]]\nname = \"B\"\ntoken = \"y\"\ncommand = [\"connect\", \"--name\", \"{name}\"]\n";
        let w = read("", players).unwrap().warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("\"A\"") && w[0].contains(TOKEN_ENV),
            "{}",
            w[0]
        );
    }
}
