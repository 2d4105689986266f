//! The spectator page of `rookery referee serve` facing strangers (issue
//! 33): thousands of silent connections and of event-stream subscribers
//! that never read, sent by `tests/python/web_flood.py` (raw sockets,
//! nothing of rookery), must cost the referee bounded memory and
//! descriptors, leave the page answering, and leave the player port to the
//! players; a million rounds must not make the view a million games long;
//! and the page's move list is text a browser copies as `1. e4 e5 2. ...`
//! (read in headless Chromium by `tests/python/spectator_cdp.py`).
//!
//! Figures are read from /proc (VmHWM, open descriptors), never timed.
//! Peers: python3 (standard library) and Chromium; with `CI` set a missing
//! peer, or a machine that does not allow the flood's descriptors, fails
//! the test, otherwise it is skipped with a note.

use crate::common::s;
use crate::common::web::{self, get, lines, Browser};
use rookery_testkit::{peer, TempDir};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

const ROOKERY: &str = env!("CARGO_BIN_EXE_rookery");
/// The longest any wait in these tests may take.
const WAIT: Duration = Duration::from_secs(60);
/// Silent connections and non-reading subscribers of the flood.
const IDLE: usize = 5_000;
const STREAMS: usize = 2_000;
/// The flood comes from 40 loopback addresses (127.0.0.2 on): strangers
/// on a network have addresses of their own; this test's own requests
/// come from 127.0.0.1.
const FLOOD_FROM: &str = "127.0.0.2/40";
/// The referee's descriptor limit in the flood test (`ulimit -n`).
const NOFILE: usize = 1024;
/// The referee's peak memory allowed under the flood.
const PEAK_KB: u64 = 100 * 1024;

/// A child killed on drop.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Polls the JSON feed until `ok` holds (at most [`WAIT`]).
fn wait_for(web: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    web::poll(web, "/api/event", what, WAIT, ok)
}

fn next_line(rx: &Receiver<String>, what: &str) -> String {
    web::next_line(rx, what, WAIT)
}

/// A referee running an event from `dir/event.toml`.
struct Referee {
    server: Proc,
    stdin: ChildStdin,
    out: Receiver<String>,
    addr: String,
    web: String,
    dir: PathBuf,
}

impl Referee {
    /// Starts `rookery referee serve`, under `ulimit -n nofile` if given.
    fn start(dir: &TempDir, event: &str, nofile: Option<usize>) -> Referee {
        let cfg = dir.write("event.toml", event);
        let cmd = match nofile {
            Some(n) => {
                let mut c = Command::new("sh");
                c.args([
                    "-c",
                    &format!("ulimit -n {n} && exec \"$0\" \"$@\""),
                    ROOKERY,
                ]);
                c
            }
            None => Command::new(ROOKERY),
        };
        let mut child = web::spawn_referee(cmd, &cfg, dir.path());
        let stdin = child.stdin.take().unwrap();
        let out = lines(child.stdout.take().unwrap());
        let server = Proc(child);
        let line = |prefix: &str| {
            let l = next_line(&out, prefix);
            l.strip_prefix(prefix)
                .unwrap_or_else(|| panic!("expected {prefix:?}, got {l:?}"))
                .trim()
                .to_string()
        };
        let addr = line("listening on ");
        let url = line("spectator page: ");
        let web = web::page_host(&url);
        Referee {
            server,
            stdin,
            out,
            addr,
            web,
            dir: dir.path().to_path_buf(),
        }
    }

    fn pid(&self) -> u32 {
        self.server.0.id()
    }

    /// The two registered players, signing on with the built-in engine.
    fn players(&self) -> [Proc; 2] {
        let client = |name: &str, token: &str| {
            let log = std::fs::File::create(self.dir.join(format!("{name}.stderr"))).unwrap();
            Proc(
                Command::new(ROOKERY)
                    .args(["referee", "connect", &self.addr, "--engine", "builtin"])
                    .args(["--name", name, "--token", token, "--no-reconnect"])
                    .stdout(Stdio::null())
                    .stderr(log)
                    .spawn()
                    .unwrap(),
            )
        };
        [client("Alpha", "a"), client("Beta", "b")]
    }

    /// A supervisor's command (lost if the referee has ended).
    fn command(&mut self, c: &str) {
        let _ = writeln!(self.stdin, "{c}").and_then(|()| self.stdin.flush());
    }

    /// Shuts the event down; returns what it printed from then on.
    fn shutdown(mut self) -> String {
        self.command("shutdown");
        let t = Instant::now();
        while self.server.0.try_wait().unwrap().is_none() {
            assert!(t.elapsed() < WAIT, "the referee did not stop");
            std::thread::sleep(Duration::from_millis(50));
        }
        self.out.try_iter().collect::<Vec<_>>().join("\n")
    }
}

/// A field of /proc/PID/status in kB (`VmRSS`, `VmHWM`).
fn status_kb(pid: u32, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// The descriptors `pid` has open.
fn descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

const PLAYERS: &str = "[[player]]\nname = \"Alpha\"\ntoken = \"a\"\n\
                       [[player]]\nname = \"Beta\"\ntoken = \"b\"\n";

/// The flood: `web_flood.py`, commanded on its stdin.
struct Flood {
    proc: Proc,
    stdin: ChildStdin,
    out: Receiver<String>,
}

impl Flood {
    /// Opens the flood's connections to `web`; `None` (a note, or a failure
    /// under CI) when the machine does not allow their descriptors.
    fn start(python: &Path, web: &str) -> Option<Flood> {
        let mut child = Command::new(python)
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/python/web_flood.py"
            ))
            .args([web, &IDLE.to_string(), &STREAMS.to_string()])
            .args(["/api/stream", FLOOD_FROM])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = lines(child.stdout.take().unwrap());
        let flood = Flood {
            proc: Proc(child),
            stdin,
            out,
        };
        let opened: Value = serde_json::from_str(&next_line(&flood.out, "flood")).unwrap();
        if let Some(why) = opened["skip"].as_str() {
            return peer::missing(&format!("room for {} descriptors ({why})", IDLE + STREAMS));
        }
        assert_eq!(
            (opened["idle"].as_u64(), opened["streams"].as_u64()),
            (Some(IDLE as u64), Some(STREAMS as u64)),
            "the flood's connections: {opened}"
        );
        Some(flood)
    }

    fn ask(&mut self, c: &str) -> Value {
        writeln!(self.stdin, "{c}").unwrap();
        self.stdin.flush().unwrap();
        serde_json::from_str(&next_line(&self.out, c)).unwrap()
    }
}

impl Drop for Flood {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "close");
        let _ = self.stdin.flush();
        let _ = self.proc.0.wait();
    }
}

/// Issue 33: 2,000 non-reading `/api/stream` subscribers grew the referee
/// to 860 MB; 1,100 silent connections under `ulimit -n 1024` took every
/// descriptor, and a registered player's sign-on got no answer.
#[test]
fn strangers_cost_bounded_memory_and_leave_the_players_their_port() {
    let Some(python) = peer::find(&["python3"], None).or_else(|| peer::missing("python3")) else {
        return;
    };
    let dir = TempDir::new("referee-web-limits");
    let event = format!(
        "[event]\nname = \"Flood\"\npgn = \"games.pgn\"\nlog_dir = \"logs\"\n\
         rounds = 1\ngames = 2\ntime_control = \"st=0.05\"\ntime_margin_ms = 1000\n\
         max_moves = 20\nquiet_period_ms = 100\n{PLAYERS}"
    );
    let mut referee = Referee::start(&dir, &event, Some(NOFILE));
    let (pid, web) = (referee.pid(), referee.web.clone());
    let Some(mut flood) = Flood::start(&python, &web) else {
        return;
    };

    // Every stranger is in (or was turned away): the referee holds a share
    // of its descriptors, not all of them, and the page answers.
    let fds = descriptors(pid);
    eprintln!(
        "under the flood: {fds} descriptors open (limit {NOFILE}), VmRSS {} kB",
        status_kb(pid, "VmRSS")
    );
    assert!(
        fds <= NOFILE / 2,
        "{fds} descriptors open of {NOFILE}: the page took the player port's share"
    );
    let page = get(&web, "/");
    assert_eq!(page.status, 200);
    assert!(
        page.head.contains("content-type: text/html"),
        "{}",
        page.head
    );
    assert!(page.body.contains("/assets/spectator.js"), "{}", page.body);
    assert_eq!(web::json(&web, "/api/event")["name"], "Flood");

    // The registered players sign on and play the event's first game (the
    // second waits: the event stays up for the checks below).
    let _players = referee.players();
    wait_for(&web, "game 1 in progress", |v| v["live"][0]["number"] == 1);
    referee.command("pause");
    let v = wait_for(&web, "finished game", |v| v["finished_total"] == 1);
    let game = &v["finished"][0];
    assert!(game["plies"].as_u64().is_some_and(|p| p > 0), "{game}");

    let peak = status_kb(pid, "VmHWM");
    let seen = flood.ask("count");
    eprintln!(
        "after the game: VmHWM {peak} kB, {} descriptors open; the page closed \
         {} of {IDLE} silent connections and {} of {STREAMS} subscribers",
        descriptors(pid),
        seen["idle_closed"],
        seen["streams_closed"]
    );
    assert!(peak < PEAK_KB, "the referee peaked at {peak} kB");

    // The recorded game, read back from the PGN file the referee wrote, is
    // whole and valid.
    let all = get(&web, "/games.pgn");
    assert_eq!(all.status, 200);
    assert!(
        all.head.contains("content-disposition: attachment"),
        "{}",
        all.head
    );
    let disk = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(all.body, disk);
    crate::common::rookery(&["pgn", "validate", "-"], all.body.as_bytes()).assert_code(0);
    drop(flood);
    let rest = referee.shutdown();
    assert!(rest.contains("event over: 1 games"), "{rest}");
    assert!(rest.contains("1 unplayed"), "{rest}");
}

/// Issue 33: with a million rounds the view held the whole schedule and
/// `/api/event` answered 89 MB. The view holds windows; the rest is read
/// a page at a time.
#[test]
fn a_million_rounds_are_seen_a_page_at_a_time() {
    let dir = TempDir::new("referee-web-rounds");
    let event = format!(
        "[event]\nname = \"Long\"\npgn = \"games.pgn\"\nlog_dir = \"logs\"\n\
         rounds = 1000000\ntime_control = \"st=0.05\"\n{PLAYERS}"
    );
    let referee = Referee::start(&dir, &event, None);
    let web = referee.web.clone();
    let r = get(&web, "/api/event");
    assert_eq!(r.status, 200);
    assert!(r.body.len() < 50_000, "/api/event: {} bytes", r.body.len());
    let v: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["schedule_total"], 1_000_000);
    assert_eq!(v["schedule"].as_array().map(Vec::len), Some(50));
    assert_eq!(v["schedule"][0]["number"], 1);

    let page: Value =
        serde_json::from_str(&get(&web, "/api/schedule?from=999999&count=10").body).unwrap();
    assert_eq!(page["total"], 1_000_000);
    let games = page["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{page}");
    assert_eq!(games[1]["number"], 1_000_000);
    assert_eq!(games[1]["round"], 1_000_000);
    assert_eq!(games[1]["state"], "pending");
    let big: Value = serde_json::from_str(&get(&web, "/api/schedule?count=100000").body).unwrap();
    assert_eq!(
        big["games"].as_array().map(Vec::len),
        Some(200),
        "a page is bounded"
    );
    assert_eq!(get(&web, "/api/schedule?from=0").status, 400);
    let finished: Value = serde_json::from_str(&get(&web, "/api/finished").body).unwrap();
    assert_eq!(
        (finished["total"].as_u64(), finished["from"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(get(&web, "/games/1000000.pgn").status, 404);
    assert_eq!(get(&web, "/games/1000001.pgn").status, 404);
    eprintln!(
        "a million rounds: /api/event {} bytes, referee VmHWM {} kB",
        r.body.len(),
        status_kb(referee.pid(), "VmHWM")
    );
    referee.shutdown();
}

/// Issue 33: a copy of the move list, or a screen reader, got `a3Na6 c3d5`
/// (numbers drawn by CSS, moves without a separator). The text is the
/// moves as PGN numbers them.
#[test]
fn the_move_list_reads_as_numbered_moves() {
    let Some(browser) = Browser::find() else {
        return;
    };
    let dir = TempDir::new("referee-web-text");
    let event = format!(
        "[event]\nname = \"Text\"\npgn = \"games.pgn\"\nlog_dir = \"logs\"\n\
         rounds = 1\ngames = 2\ntime_control = \"20+0.2\"\ntime_margin_ms = 500\n\
         quiet_period_ms = 100\n{PLAYERS}"
    );
    let mut referee = Referee::start(&dir, &event, None);
    let web = referee.web.clone();
    let _players = referee.players();
    wait_for(&web, "three moves in game 1", |v| {
        v["live"][0]["moves"]
            .as_array()
            .is_some_and(|m| m.len() >= 3)
    });
    let seen = browser.look(
        "spectator_cdp.py",
        &format!("http://{web}/"),
        &dir.join("profile"),
        &[s(&dir.join("page.png"))],
    );
    let text = seen["later"]["moves_text"].as_str().unwrap();
    // Numbers and moves in turn: "1. e4 e5 2. Nf3 ...".
    let mut sans = Vec::new();
    for (i, word) in text.split_whitespace().enumerate() {
        if i % 3 == 0 {
            assert_eq!(word, format!("{}.", i / 3 + 1), "in {text:?}");
        } else {
            sans.push(word.to_string());
        }
    }
    assert!(sans.len() >= 4, "{text:?}");
    let played: Vec<String> = web::json(&web, "/api/event")["live"][0]["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_string())
        .collect();
    assert!(
        played.starts_with(&sans),
        "the page's moves {sans:?} are not the game's {played:?}"
    );
    let pager = seen["later"]["schedule_pager"].as_str().unwrap();
    assert!(pager.contains("of 2"), "{pager}");
    referee.command("adjudicate 1 1-0");
    referee.shutdown();
}
