//! End-to-end tests of the Argus referee: `rookery referee serve` on a
//! loopback port with `rookery referee connect` clients (the built-in engine
//! and Stockfish), a hostile client written in Python with raw sockets, and
//! a thousand idle connections.
//!
//! Peers: Stockfish (PATH or /usr/games) and python3 with python-chess. When
//! `CI` is set and a peer is missing the test fails; otherwise it skips with
//! a note on stderr.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{cmd, finish_referee, referee, referee_client, s, stockfish, text};
use rookery_testkit::cmd::KillOnDrop as Proc;
use rookery_testkit::{peer, pgn_text, TempDir};

fn event_file(dir: &Path, extra: &str, players: &[(&str, &str)]) -> PathBuf {
    let mut text = format!(
        "[event]\nname = \"Argus test\"\nsite = \"loopback\"\npgn = \"games.pgn\"\nlog_dir = \"logs\"\n{extra}\n"
    );
    for (name, token) in players {
        text.push_str(&format!(
            "[[player]]\nname = \"{name}\"\ntoken = \"{token}\"\n"
        ));
    }
    let p = dir.join("event.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// Starts the server; returns it, its address and its stdout.
fn serve(config: &Path) -> (Proc, String, BufReader<ChildStdout>) {
    let args = [
        "serve",
        "--config",
        s(config),
        "--listen",
        "127.0.0.1:0",
        "--background",
    ];
    referee(&args, "listening on ")
}

/// An event being served: its directory (event file, PGN, logs), the
/// server, the address clients connect to and the server's stdout.
struct Served {
    dir: TempDir,
    server: Proc,
    addr: String,
    out: BufReader<ChildStdout>,
}

/// Writes the event file of an event with `settings` (TOML lines of its
/// `[event]` table besides name, site, PGN and logs) and `players` (name,
/// token) in a directory of its own, and serves it.
fn serve_event(tag: &str, settings: &str, players: &[(&str, &str)]) -> Served {
    let dir = TempDir::new(tag);
    let cfg = event_file(dir.path(), settings, players);
    let (server, addr, out) = serve(&cfg);
    Served {
        dir,
        server,
        addr,
        out,
    }
}

fn connect(addr: &str, engine: &str, name: &str, token: &str, extra: &[&str]) -> Proc {
    let args = [addr, "--engine", engine, "--name", name, "--token", token];
    referee_client(&[&args[..], extra].concat())
}

/// The value of the tag `name` in `game`, which must have it.
fn tag<'a>(game: &'a str, name: &str) -> &'a str {
    pgn_text::tag(game, name).unwrap_or_else(|| panic!("no {name} tag in {game}"))
}

/// The checks shared by every event: the logs are EPD, every referee record
/// of a game carries `cc`.
fn check_logs(logs: &Path) {
    let files = rookery_testkit::files_with_extension(logs, "log");
    assert!(files.len() >= 3, "{files:?}");
    let out = cmd(["epd", "validate"]).args(&files).run();
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(out.status.success(), "epd validate: {said}");
    assert!(
        !said.contains("unreadable") || said.contains(" 0 unreadable"),
        "{said}"
    );
    let event = std::fs::read_to_string(logs.join("event.log")).unwrap();
    let mut in_game = 0;
    for line in event.lines() {
        if !line.contains("Logdir sent;") {
            continue;
        }
        for cmd in ["respond", "inform", "conclude", "execute"] {
            if line.contains(&format!("refcom {cmd};")) {
                in_game += 1;
                assert!(line.contains(" cc "), "no cc: {line}");
            }
        }
    }
    assert!(in_game > 0);
}

#[test]
fn builtin_and_stockfish_play_a_refereed_event() {
    let Some(sf) = stockfish() else {
        return;
    };
    if peer::python_chess().is_none() {
        return;
    }
    let ev = serve_event(
        "event",
        "rounds = 1\ngames = 2\npairing = \"round-robin\"\ntime_control = \"4+0.05\"\nquiet_period_ms = 200\ntime_margin_ms = 300",
        &[("Rookery", "r-secret"), ("Stockfish", "s-secret")],
    );
    let _a = connect(&ev.addr, "builtin", "Rookery", "r-secret", &[]);
    let _b = connect(&ev.addr, &sf, "Stockfish", "s-secret", &[]);
    let (rest, _) = finish_referee(ev.server, ev.out, Duration::from_secs(240));
    assert!(rest.contains("event over: 2 games"), "{rest}");
    eprintln!("{rest}");
    // The PGN, read back by python-chess: the moves the clients sent (from
    // the event log), in order, and a result that fits the final position.
    let check = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/python/argus_pgn_check.py"
        ))
        .arg(ev.dir.join("games.pgn"))
        .arg(ev.dir.join("logs/event.log"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(
        check.status.success() && said.contains("2 games ok"),
        "{said}"
    );
    let pgn = std::fs::read_to_string(ev.dir.join("games.pgn")).unwrap();
    let games = pgn_text::games(&pgn);
    assert_eq!(games.len(), 2);
    assert_eq!(
        (tag(&games[0], "White"), tag(&games[1], "White")),
        ("Rookery", "Stockfish")
    );
    check_logs(&ev.dir.join("logs"));
}

#[test]
fn a_hostile_python_client_is_refereed_by_the_rules() {
    if peer::python_chess().is_none() {
        return;
    }
    let ev = serve_event(
        "hostile",
        "rounds = 3\ngames = 1\npairing = \"round-robin\"\ntime_control = \"30+0.1\"\nquiet_period_ms = 100\nhandshake_timeout_ms = 2000",
        &[("Hostile", "h-secret"), ("Builtin", "b-secret")],
    );
    let mut py = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/python/argus_hostile.py"
        ))
        .args([&ev.addr, "Hostile", "h-secret", "Builtin"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The opponent signs on once the script has done the checks that must
    // come before any game (it says "ready" on stderr): no game starts
    // without both players.
    let mut err = BufReader::new(py.stderr.take().unwrap());
    let mut ready = String::new();
    err.read_line(&mut ready).unwrap();
    assert!(ready.starts_with("ready"), "{ready}");
    let _b = connect(
        &ev.addr,
        "builtin",
        "Builtin",
        "b-secret",
        &["--accept-cp", "100000"],
    );
    let (rest, _) = finish_referee(ev.server, ev.out, Duration::from_secs(120));
    let py_out = py.wait_with_output().unwrap();
    let mut py_err = String::new();
    err.read_to_string(&mut py_err).unwrap();
    let said = String::from_utf8_lossy(&py_out.stdout);
    assert!(
        py_out.status.success() && said.contains("all ok"),
        "{said}\n{py_err}"
    );
    assert!(rest.contains("event over: 3 games"), "{rest}");
    let pgn = std::fs::read_to_string(ev.dir.join("games.pgn")).unwrap();
    let games = pgn_text::games(&pgn);
    let got: Vec<(&str, &str)> = games
        .iter()
        .map(|g| (tag(g, "Result"), tag(g, "Termination")))
        .collect();
    assert_eq!(
        got,
        [
            ("1/2-1/2", "normal"),
            ("1-0", "normal"),
            ("0-1", "illegal move")
        ]
    );
    // The PGN writer wraps lines: compare with runs of white space as one.
    let flat: Vec<String> = games
        .iter()
        .map(|g| g.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(flat[0].contains("Draw by agreement"), "{}", games[0]);
    // Colours alternate from round to round: the hostile client is Black in
    // the second game.
    assert!(flat[1].contains("Black resigns"), "{}", games[1]);
    assert!(games[2].contains("Ke5"), "{}", games[2]);
    check_logs(&ev.dir.join("logs"));
    // The refusals and faults are in the event log.
    let event = std::fs::read_to_string(ev.dir.join("logs/event.log")).unwrap();
    for why in [
        "wrong or missing token",
        "not a registered player",
        "already signed on",
        "out of turn",
        "at most 4096",
    ] {
        assert!(event.contains(why), "{why} not logged");
    }
}

fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_thousand_idle_connections_and_a_game_still_completes() {
    if peer::require("python3", &["python3"], None).is_none() {
        return;
    }
    let ev = serve_event(
        "load",
        "rounds = 1\ngames = 1\npairing = \"round-robin\"\ntime_control = \"st=0.05\"\nquiet_period_ms = 100\nhandshake_timeout_ms = 600000\n\
         max_pending = 2000\nmax_pending_per_address = 2000",
        &[("One", "1"), ("Two", "2")],
    );
    let pid = ev.server.0.id();
    // 1,000 idle connections, held until stdin closes.
    let mut idle = Command::new("python3")
        .arg("-c")
        .arg(
            "import socket,sys\nh,p=sys.argv[1].rsplit(':',1)\n\
             s=[socket.create_connection((h,int(p))) for _ in range(1000)]\n\
             print('open',len(s),flush=True)\nsys.stdin.read()\n",
        )
        .arg(&ev.addr)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(idle.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "open 1000");
    let _a = connect(&ev.addr, "builtin", "One", "1", &[]);
    let _b = connect(&ev.addr, "builtin", "Two", "2", &[]);
    let mut peak = 0;
    let t = Instant::now();
    let mut server = ev.server;
    while server.0.try_wait().unwrap().is_none() && t.elapsed() < Duration::from_secs(120) {
        peak = peak.max(vm_hwm_kb(pid).unwrap_or(0));
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(idle.stdin.take());
    let _ = idle.wait();
    let (rest, _) = finish_referee(server, ev.out, Duration::from_secs(10));
    assert!(rest.contains("event over: 1 games"), "{rest}");
    let conns: usize = rest
        .split("peak ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(conns >= 1002, "{rest}");
    eprintln!("server peak memory (VmHWM): {peak} kB with {conns} connections open at once");
}
