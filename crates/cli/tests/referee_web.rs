//! The live spectator page of `rookery referee serve` (issue 16, duty 11):
//! a real event on loopback between two `rookery referee connect` clients
//! (the built-in engine on a real clock), its JSON and PGN feeds read with a
//! plain HTTP client, and the page watched in headless Chromium (driven by
//! `tests/python/spectator_cdp.py` over the DevTools protocol): the board,
//! both clocks and the move list are there, and the board changes with the
//! next move without a reload.
//!
//! Peers: Chromium and python3 (standard library only). When `CI` is set
//! and one is missing the test fails; otherwise it skips with a note.

use crate::common::web::{self, get, Browser, Events};
use crate::common::{line_after, referee_client, s, ROOKERY};
use rookery_testkit::cmd::KillOnDrop as Proc;
use rookery_testkit::{pgn_text, TempDir};
use serde_json::Value;
use std::io::{BufReader, Read, Write};
use std::process::{ChildStdin, ChildStdout, Command};
use std::time::{Duration, Instant};

/// The longest any wait for the event may take.
const WAIT: Duration = Duration::from_secs(20);

/// Polls the JSON feed until `ok` holds (at most [`WAIT`]).
fn wait_for(web: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    web::poll(web, "/api/event", what, WAIT, ok)
}

fn sans(moves: &Value) -> Vec<String> {
    moves
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_string())
        .collect()
}

struct Event {
    server: Proc,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    web: String,
    _clients: [Proc; 2],
}

impl Event {
    fn start(dir: &TempDir) -> Event {
        let cfg = dir.write("event.toml", "[event]\nname = \"Web test\"\nsite = \"loopback\"\npgn = \"games.pgn\"\nlog_dir = \"logs\"\n\
             rounds = 1\ngames = 2\npairing = \"round-robin\"\ntime_control = \"20+0.2\"\n\
             quiet_period_ms = 100\ntime_margin_ms = 500\n\
             [[player]]\nname = \"Alpha\"\ntoken = \"a\"\n[[player]]\nname = \"Beta\"\ntoken = \"b\"\n");
        let mut child = web::spawn_referee(Command::new(ROOKERY), &cfg, dir.path());
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let server = Proc(child);
        let addr = line_after(&mut stdout, "listening on ");
        let url = line_after(&mut stdout, "spectator page: ");
        let web = web::page_host(&url);
        let client = |name: &str, token: &str| {
            referee_client(&[
                &addr, "--engine", "builtin", "--name", name, "--token", token,
            ])
        };
        let clients = [client("Alpha", "a"), client("Beta", "b")];
        Event {
            server,
            stdin,
            stdout,
            web,
            _clients: clients,
        }
    }

    fn command(&mut self, c: &str) {
        writeln!(self.stdin, "{c}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Shuts the event down; returns the server's stdout rest.
    fn shutdown(mut self) -> String {
        self.command("shutdown");
        let t = Instant::now();
        while self.server.0.try_wait().unwrap().is_none() {
            assert!(t.elapsed() < WAIT, "the server did not stop");
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).unwrap();
        rest
    }
}

#[test]
fn spectators_follow_a_live_event_in_the_browser_and_through_the_feeds() {
    let Some(browser) = Browser::find() else {
        return;
    };
    let dir = TempDir::new("referee-web");
    let mut event = Event::start(&dir);
    let web = event.web.clone();

    // The page and its assets come from the referee itself.
    let page = get(&web, "/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<script src=\"/assets/spectator.js\">"));
    assert!(!page.body.contains("http://") && !page.body.contains("https://"));
    let script = get(&web, "/assets/spectator.js");
    assert_eq!(script.status, 200);
    assert!(script.body.contains("watch(\"/api/stream\""));
    let shared = get(&web, "/assets/live.js");
    assert_eq!(shared.status, 200);
    assert!(shared.body.contains("new EventSource(stream)"));
    for s in [&script.body, &shared.body] {
        assert!(
            !s.contains("http"),
            "the scripts load nothing from elsewhere"
        );
    }

    // The JSON feed: game 1 in progress, with a board, real clocks and moves.
    let v = wait_for(&web, "move in game 1", |v| {
        v["live"][0]["moves"]
            .as_array()
            .is_some_and(|m| !m.is_empty())
    });
    assert_eq!(v["name"], "Web test");
    let g = &v["live"][0];
    assert_eq!(g["number"], 1);
    assert_eq!(
        (g["white"].as_str(), g["black"].as_str()),
        (Some("Alpha"), Some("Beta"))
    );
    assert!(g["board_svg"]
        .as_str()
        .unwrap()
        .starts_with("<svg class=\"board\""));
    assert!(
        g["clock_ms"][0].as_u64().is_some() && g["clock_ms"][1].as_u64().is_some(),
        "{g}"
    );
    // The built-in engine's score and depth, sent by its client with the move.
    assert!(
        g["evals"][0]["depth"].as_u64().is_some_and(|d| d >= 1),
        "{g}"
    );
    assert!(g["evals"][0]["score"].as_str().is_some(), "{g}");
    assert_eq!(v["schedule"][0]["state"], "playing");

    // The live PGN of game 1 holds the moves so far, and grows on its stream.
    let pgn = get(&web, "/games/1.pgn");
    assert_eq!(pgn.status, 200);
    assert!(pgn.head.contains("content-type: application/x-chess-pgn"));
    assert!(pgn.body.contains("[White \"Alpha\"]") && pgn.body.contains("[Result \"*\"]"));
    let now = sans(&g["moves"]);
    let served = pgn_text::sans(&pgn.body);
    assert!(
        served.starts_with(&now),
        "{served:?} does not extend {now:?}"
    );
    assert_eq!(get(&web, "/games/9.pgn").status, 404);
    assert_eq!(get(&web, "/games/x/stream").status, 404);
    let mut stream = Events::open(&web, "/games/1/stream");
    let first = pgn_text::sans(&stream.next());
    let second = pgn_text::sans(&stream.next());
    assert!(
        second.len() > first.len() && second.starts_with(&first),
        "the stream's second PGN does not extend its first: {first:?} / {second:?}"
    );
    let mut snapshots = Events::open(&web, "/api/stream");
    let snap: Value = serde_json::from_str(&snapshots.next()).unwrap();
    assert_eq!(snap["live"][0]["number"], 1);

    // The page in a browser: board, clocks, moves; then the next position
    // arrives without a reload.
    let shot = dir.join("page.png");
    let seen = browser.look(
        "spectator_cdp.py",
        &format!("http://{web}/"),
        &dir.join("profile"),
        &[s(&shot)],
    );
    let (a, b) = (&seen["first"], &seen["later"]);
    assert_eq!(a["boards"], 1, "{a}");
    assert_eq!(a["marked"], 2, "the last move is marked: {a}");
    for clock in ["white_clock", "black_clock"] {
        let t = a[clock].as_str().unwrap();
        assert!(
            t.chars().any(|c| c.is_ascii_digit()) && t.contains(['.', ':']),
            "{clock}: {t}"
        );
    }
    assert_eq!(
        a["running"].as_array().map(Vec::len),
        Some(1),
        "one clock runs: {a}"
    );
    assert!(a["moves"].as_array().is_some_and(|m| !m.is_empty()), "{a}");
    assert!(
        a["evals"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().is_some_and(|s| s.contains('/'))),
        "{a}"
    );
    assert_eq!(a["connection"], "live");
    assert_eq!(a["standings"], 3, "a header and a line per player");
    // Later: another position on the same page load (the mark set on the
    // window after the first look is still there), with more moves.
    assert_ne!(a["fen"], b["fen"]);
    assert_eq!(b["mark"], "first-load", "the page was reloaded: {b}");
    let (ma, mb) = (
        a["moves"].as_array().unwrap(),
        b["moves"].as_array().unwrap(),
    );
    assert!(mb.len() > ma.len() && mb.starts_with(ma), "{a}\n{b}");
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);

    // The supervisor ends game 1: it is recorded, counts in the standings
    // and the cross-table, and its PGN is the one written to disk.
    event.command("adjudicate 1 1-0");
    let v = wait_for(&web, "finished game 1", |v| {
        v["finished"].as_array().is_some_and(|f| !f.is_empty())
    });
    assert_eq!(v["finished"][0]["result"], "1-0");
    assert_eq!(v["standings"][0]["name"], "Alpha");
    assert_eq!(v["standings"][0]["points"], 1.0);
    assert_eq!(v["cross_table"][0][1], "1/1");
    assert_eq!(v["cross_table"][1][0], "0/1");
    assert!(v["cross_table"][0][0].is_null());
    let all = get(&web, "/games.pgn");
    assert!(
        all.head.contains("content-disposition: attachment"),
        "{}",
        all.head
    );
    assert!(all.body.contains("[Result \"1-0\"]"));
    assert!(all.body.contains("adjudicated by the supervisor"));
    let one = get(&web, "/games/1.pgn").body;
    let disk = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(disk.starts_with(&one), "served:\n{one}\non disk:\n{disk}");
    assert!(get(&web, "/live.pgn").body.starts_with(&one));
    // The game stream ends with the recorded game.
    let mut last = stream.next();
    while !last.contains("[Result \"1-0\"]") {
        last = stream.next();
    }
    assert_eq!(last.trim_end(), one.trim_end());

    let rest = event.shutdown();
    assert!(rest.contains("event over"), "{rest}");
}
