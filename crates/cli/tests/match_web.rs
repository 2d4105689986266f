//! `rookery match --web` (issue 45 item 7): a real match between two
//! built-in engines with its live page, watched in headless Chromium (by
//! `tests/python/spectator_cdp.py` with `match_observe.js`) and read with a
//! plain HTTP client: what the page shows (standings, W/D/L, pairs, the
//! finished games) is what the PGN holds, the LLR chart has points between
//! its bounds, a board shows the game in progress; the JSON and the event
//! stream answer and a connection over the page's limit is turned away;
//! with `--pool` the page counts the other shard's games.
//!
//! Peers: Chromium and python3 (standard library only) for the browser
//! test; with `CI` set a missing one fails it, otherwise it is skipped
//! with a note. Every wait is bounded; nothing is timed.

use crate::common::web::{self, get, Browser, Events};
use crate::common::{s, ROOKERY};
use rookery_testkit::cmd::KillOnDrop as Proc;
use rookery_testkit::{pgn_text, TempDir};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// The longest any wait of these tests may take.
const WAIT: Duration = Duration::from_secs(120);

/// A match with its page: the process and the page's address.
struct Match {
    proc: Proc,
    web: String,
    /// The rest of its standard error, line by line.
    _stderr: Receiver<String>,
}

/// The words of a match of `rounds` pairs of games between two built-in
/// engines, A and B, at `st` seconds a move, with an SPRT that will not
/// decide soon, in `dir`.
fn words(dir: &Path, rounds: u32, st: &str) -> Vec<String> {
    let line = format!(
        "match --engine cmd=builtin name=A --engine cmd=builtin name=B --each st={st} \
         timemargin=50 --games 2 --rounds {rounds} --sprt elo0=0 elo1=5 --srand 7 --pgnout {}",
        dir.join("games.pgn").display()
    );
    line.split_whitespace().map(String::from).collect()
}

/// Starts `rookery ARGS --web` (under `ulimit -n` when given) and waits
/// for the page's address on its standard error: by default this machine
/// only (loopback), a free port.
fn start(args: &[String], nofile: Option<usize>) -> Match {
    let mut cmd = match nofile {
        Some(n) => {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                .arg(ROOKERY);
            c
        }
        None => Command::new(ROOKERY),
    };
    let mut child = cmd
        .args(args)
        .arg("--web")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let proc = Proc(child);
    let rx = web::lines(stderr);
    let t = Instant::now();
    let mut said = Vec::new();
    loop {
        let left = WAIT.saturating_sub(t.elapsed());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no page address on stderr: {said:?}"));
        if let Some(rest) = line.strip_prefix("match page: http://") {
            let web = rest.trim_end_matches('/').to_string();
            assert!(web.starts_with("127.0.0.1:"), "not loopback: {web}");
            return Match {
                proc,
                web,
                _stderr: rx,
            };
        }
        said.push(line);
    }
}

/// Polls `/api/match` until `ok` holds (at most [`WAIT`]).
fn wait_for(web: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    web::poll(web, "/api/match", what, WAIT, ok)
}

/// Ends the match with SIGTERM (it stops cleanly) and waits for it.
fn stop(mut m: Match) {
    let pid = m.proc.0.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let t = Instant::now();
    while m.proc.0.try_wait().unwrap().is_none() {
        assert!(t.elapsed() < WAIT, "the match did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A's result in a game of the PGN: 2 a win, 1 a draw, 0 a loss (half
/// points).
fn a_half_points(game: &str) -> u32 {
    let a_white = pgn_text::tag(game, "White") == Some("A");
    match (pgn_text::tag(game, "Result"), a_white) {
        (Some("1-0"), true) | (Some("0-1"), false) => 2,
        (Some("1/2-1/2"), _) => 1,
        (Some("1-0" | "0-1"), _) => 0,
        (r, _) => panic!("game not finished: {r:?}\n{game}"),
    }
}

#[test]
fn the_match_page_in_a_browser_is_what_the_pgn_holds() {
    let Some(browser) = Browser::find() else {
        return;
    };
    let dir = TempDir::new("match-web");
    // Games of a few seconds: the match outlasts the browser's look.
    let m = start(&words(dir.path(), 20, "0.05"), None);
    let web = m.web.clone();

    // The page and its scripts come from rookery itself.
    let page = get(&web, "/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<script src=\"/assets/match.js\">"));
    for path in [
        "/assets/match.js",
        "/assets/live.js",
        "/assets/spectator.css",
    ] {
        let r = get(&web, path);
        assert_eq!(r.status, 200, "{path}");
        assert!(
            !r.body.contains("http"),
            "{path} loads nothing from elsewhere"
        );
    }
    // A pair finished and a game in progress before the browser looks.
    wait_for(&web, "a finished pair and a game in progress", |v| {
        v["finished_total"].as_u64() >= Some(2)
            && v["live"].as_array().is_some_and(|l| !l.is_empty())
    });
    let seen = browser.look(
        "spectator_cdp.py",
        &format!("http://{web}/"),
        &dir.join("profile"),
        &[
            s(&dir.join("page.png")),
            "60",
            s(&web::python_script("match_observe.js")),
        ],
    );
    stop(m);

    let (a, b) = (&seen["first"], &seen["later"]);
    // The game in progress on a board, then another position of it (or of
    // the next game) without a reload.
    assert_eq!(a["boards"], 1, "{a}");
    assert!(
        a["fen"].as_str().is_some_and(|f| f.split(' ').count() == 6),
        "{a}"
    );
    assert_ne!(a["fen"], b["fen"]);
    assert_eq!(b["mark"], "first-load", "the page was reloaded: {b}");
    assert_eq!(b["connection"], "live");

    // What the page shows against the PGN, for the games it lists.
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    let games = pgn_text::games(&pgn);
    let by_round = |n: u64| {
        games
            .iter()
            .find(|g| pgn_text::tag(g, "Round") == Some(n.to_string().as_str()))
            .unwrap_or_else(|| panic!("game {n} is not in the PGN"))
    };
    let finished = b["finished"].as_array().unwrap();
    assert!(finished.len() >= 2, "{b}");
    let (mut wdl, mut points, mut ptnml) = ([0u32; 3], [0u32; 2], [0u32; 5]);
    let mut pairs = std::collections::BTreeMap::<u64, Vec<u32>>::new();
    for f in finished {
        let n = f[0].as_u64().unwrap();
        let game = by_round(n);
        assert_eq!(
            Some(f[1].as_str().unwrap()),
            pgn_text::tag(game, "Result"),
            "game {n}"
        );
        let h = a_half_points(game);
        wdl[[2, 1, 0][h as usize]] += 1;
        points[0] += h;
        points[1] += 2 - h;
        pairs.entry((n - 1) / 2).or_default().push(h);
    }
    for p in pairs.values().filter(|p| p.len() == 2) {
        ptnml[(p[0] + p[1]) as usize] += 1;
    }
    assert_eq!(
        b["finished_info"].as_str().unwrap(),
        format!("{} finished by this run", finished.len())
    );
    assert_eq!(
        b["wdl"].as_str().unwrap(),
        format!("{} / {} / {}", wdl[0], wdl[1], wdl[2]),
        "{b}"
    );
    let ptnml_text = format!("[{}]", ptnml.map(|c| c.to_string()).join(", "));
    assert_eq!(b["ptnml"].as_str().unwrap(), ptnml_text, "{b}");
    // Standings: engine, points, games, wins, draws, losses.
    let games_played = finished.len().to_string();
    for row in b["standings"].as_array().unwrap() {
        let r: Vec<&str> = row
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let (i, (w, d, l)) = match r[1] {
            "A" => (0, (wdl[0], wdl[1], wdl[2])),
            "B" => (1, (wdl[2], wdl[1], wdl[0])),
            other => panic!("no engine {other}"),
        };
        let pts: f64 = r[2].parse().unwrap();
        assert_eq!(pts, f64::from(points[i]) / 2.0, "{row}");
        assert_eq!(r[3], games_played, "{row}");
        assert_eq!(r[4..7], [w, d, l].map(|x| x.to_string()), "{row}");
    }
    // The LLR's path: a point per pair (the first game's too), drawn from
    // the origin, between the two bounds.
    assert!(b["sprt_shown"].as_bool().unwrap(), "{b}");
    let points_drawn = b["llr_points"].as_u64().unwrap();
    assert!(points_drawn >= 1, "{b}");
    assert_eq!(b["llr_polyline"].as_u64(), Some(points_drawn + 1), "{b}");
    assert_eq!(b["bounds"], 2, "{b}");
    assert!(b["llr"].as_str().unwrap().contains("(-2.94, 2.94)"), "{b}");
    assert!(b["elo"].as_str().is_some_and(|e| e.contains('[')), "{b}");
    let pace = b["pace"].as_str().unwrap();
    assert!(
        pace.contains("of 40 games counted") && pace.contains("games per minute"),
        "{pace}"
    );
    assert!(pace.contains("ETA at most"), "{pace}");
}

/// Sends `GET path` and reads the answer's first bytes: empty when the
/// server closed the connection without one. A connection neither answered
/// nor closed within [`WAIT`] fails the test.
fn raw(web: &str, path: &str) -> (TcpStream, String) {
    let mut s = TcpStream::connect(web).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    // The server may close a refused connection before the request is out.
    let _ = write!(s, "GET {path} HTTP/1.1\r\nHost: {web}\r\n\r\n");
    let mut buf = [0u8; 4096];
    let n = match s.read(&mut buf) {
        Ok(n) => n,
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => 0,
        Err(e) => panic!("{path}: neither answered nor closed: {e}"),
    };
    let text = String::from_utf8_lossy(&buf[..n]).into_owned();
    (s, text)
}

#[test]
fn the_match_feeds_answer_within_the_pages_limits() {
    let dir = TempDir::new("match-web-limits");
    // 64 descriptors: a quarter, 16 connections, for the page; 4 from one
    // address.
    let m = start(&words(dir.path(), 500, "0.02"), Some(64));
    let web = m.web.clone();
    let v = wait_for(&web, "a finished game", |v| {
        v["finished_total"].as_u64() >= Some(1)
    });
    assert_eq!(v["players"], serde_json::json!(["A", "B"]));
    assert_eq!(v["total_games"], 1000);
    assert!(v["stats"]["wdl"]["wins"].is_u64());
    assert!(v["pace"]["eta_is_bound"].as_bool().unwrap());
    // The stream: the view at once, and a newer one after it.
    let mut streams = vec![Events::open(&web, "/api/stream")];
    let first: Value = serde_json::from_str(&streams[0].next()).unwrap();
    let later: Value = serde_json::from_str(&streams[0].next()).unwrap();
    assert!(later["version"].as_u64() > first["version"].as_u64());
    // Four streams from this address are its share: they keep their
    // connections busy, and a fifth connection finds no room.
    while streams.len() < 4 {
        let mut s = Events::open(&web, "/api/stream");
        s.next();
        streams.push(s);
    }
    let (_s, answer) = raw(&web, "/api/match");
    assert!(
        answer.is_empty(),
        "a connection over the limit was answered: {answer}"
    );
    // A stream closed makes room again.
    drop(streams.pop());
    let t = Instant::now();
    loop {
        let (_s, answer) = raw(&web, "/api/match");
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(t.elapsed() < WAIT, "no room after a stream closed");
        std::thread::sleep(Duration::from_millis(100));
    }
    stop(m);
}

#[test]
fn a_shards_page_counts_the_pool() {
    let dir = TempDir::new("match-web-pool");
    let shard = |k: u32| {
        let mut w = words(dir.path(), 200, "0.02");
        w.extend(
            [
                "--shard",
                &format!("{k}/2"),
                "--pool",
                &dir.join("pool").display().to_string(),
            ]
            .map(String::from),
        );
        w
    };
    let other = Proc(
        Command::new(ROOKERY)
            .args(shard(2))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let m = start(&shard(1), None);
    // The other shard's pairs are counted here: more games than this
    // shard finished, in the standings and the statistics alike.
    let v = wait_for(&m.web, "the other shard's pairs", |v| {
        v["games_done"].as_u64().unwrap_or(0) >= v["finished_total"].as_u64().unwrap_or(0) + 4
    });
    assert_eq!(v["shard"], "1/2");
    assert!(
        v["pool"].as_str().is_some_and(|p| p.ends_with("pool")),
        "{v}"
    );
    assert_eq!(v["total_games"], 400);
    let counted: u64 = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["games"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 2 * v["games_done"].as_u64().unwrap(), "{v}");
    let wdl = &v["stats"]["wdl"];
    let games = ["wins", "draws", "losses"]
        .map(|k| wdl[k].as_u64().unwrap())
        .iter()
        .sum::<u64>();
    assert_eq!(games, v["games_done"].as_u64().unwrap(), "{v}");
    stop(m);
    drop(other);
}
