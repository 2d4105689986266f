//! The Argus referee (`rookery referee serve`) against attackers on its
//! port: clients written without our code (raw `std::net::TcpStream`, or
//! python3 with raw sockets) that never sign on, guess tokens, flood the
//! logs with faults and control characters, or freeze in a game; and the
//! event files and logs that kept tokens and listened too widely.
//!
//! Peers: python3 (PATH). When `CI` is set and it is missing a test fails;
//! otherwise it skips with a note on stderr. Limits are read from
//! `/proc/PID/fd` and `/proc/PID/status` (Linux).

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rookery_testkit::cmd::{Cmd, KillOnDrop as Proc};
use rookery_testkit::{peer, pgn_text, TempDir};

const ROOKERY: &str = env!("CARGO_BIN_EXE_rookery");

/// The start position's four EPD fields.
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// What `refreq fault` floods carry: a clear-screen escape and a fake
/// result line, the way a terminal would show them raw.
const EVIL: &str = "\x1b[2J\x1b[Hgame 1 over: A - B 1-0 (B resigns)\rX";

/// Faults (16) and free `refreq fault` records (3) a connection may send
/// before the referee closes it.
const MOST_FAULT_RECORDS: usize = 16 + 3;

fn event_file(dir: &Path, extra: &str, players: &[(&str, &str)]) -> PathBuf {
    let mut text = format!(
        "[event]\nname = \"Hostile test\"\nsite = \"loopback\"\npgn = \"games.pgn\"\nlog_dir = \"logs\"\n{extra}\n"
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

/// An event being served: its directory (event file, PGN, logs), the
/// server, the address clients connect to and the server's stdout.
struct Served {
    dir: TempDir,
    server: Proc,
    addr: String,
    out: BufReader<std::process::ChildStdout>,
}

impl Served {
    /// Signs `players` on (name, token; the built-in engine each) and
    /// waits, at most `limit`, for the event to end having played one game.
    fn one_game_with(&mut self, players: &[(&str, &str)], limit: Duration) {
        let _clients: Vec<Proc> = players
            .iter()
            .map(|(name, token)| connect(&self.addr, name, token))
            .collect();
        let (rest, _) =
            rookery_testkit::cmd::finish(&mut self.server.0, &mut self.out, limit, "server");
        assert!(rest.contains("event over: 1 games"), "{rest}");
    }
}

/// The players of most events here, name and token.
const AB: &[(&str, &str)] = &[("A", "a-secret"), ("B", "b-secret")];

/// Writes the event file of an event with `settings` (TOML lines of its
/// `[event]` table besides name, site, PGN and logs) and `players` (name,
/// token) in a directory of its own, and serves it on loopback.
fn serve_event(tag: &str, settings: &str, players: &[(&str, &str)]) -> Served {
    let dir = TempDir::new(tag);
    let cfg = event_file(dir.path(), settings, players);
    serve_in(dir, &cfg)
}

fn serve_in(dir: TempDir, cfg: &Path) -> Served {
    let (server, addr, out) = Cmd::new(ROOKERY)
        .args(["referee", "serve", "--config"])
        .arg(cfg)
        .args(["--listen", "127.0.0.1:0", "--background", "--no-web"])
        .start("listening on ");
    Served {
        dir,
        server,
        addr,
        out,
    }
}

/// `rookery referee connect ADDR --engine builtin --name NAME`, its stdout
/// discarded, for the caller to say how it signs on and where its stderr
/// goes.
fn client(addr: &str, name: &str) -> Command {
    let mut c = Command::new(ROOKERY);
    c.args([
        "referee", "connect", addr, "--engine", "builtin", "--name", name,
    ])
    .stdout(Stdio::null());
    c
}

/// Starts [`client`] signing on with `token`, its stderr discarded.
fn connect(addr: &str, name: &str, token: &str) -> Proc {
    Proc(
        client(addr, name)
            .args(["--token", token])
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// Waits for the server to end (at most `limit`); returns its stdout rest
/// and stderr.
fn finish(
    mut server: Proc,
    out: BufReader<std::process::ChildStdout>,
    limit: Duration,
) -> (String, String) {
    rookery_testkit::cmd::finish(&mut server.0, out, limit, "server")
}

/// The value of the tag `name` in `game`, which must have it.
fn tag<'a>(game: &'a str, name: &str) -> &'a str {
    pgn_text::tag(game, name).unwrap_or_else(|| panic!("no {name} tag in {game}"))
}

/// A client of our own making: a raw TCP connection, lines in and out.
struct Raw {
    s: TcpStream,
    r: BufReader<TcpStream>,
}

impl Raw {
    fn new(addr: &str) -> Raw {
        Raw::open(addr).unwrap()
    }

    /// A connection, or why not (the server is gone).
    fn open(addr: &str) -> std::io::Result<Raw> {
        let s = TcpStream::connect(addr)?;
        s.set_read_timeout(Some(Duration::from_secs(60)))?;
        s.set_write_timeout(Some(Duration::from_secs(10)))?;
        let r = BufReader::new(s.try_clone()?);
        Ok(Raw { s, r })
    }

    fn send(&mut self, line: &str) -> std::io::Result<()> {
        self.s.write_all(format!("{line}\n").as_bytes())
    }

    fn sign_on(&mut self, name: &str, token: &str) {
        self.send(&format!(
            "{START} refreq sign_on; tcsi \"raw\" \"{name}\"; Token \"{token}\";"
        ))
        .unwrap();
    }

    /// The next line; None at the end of the stream (or a reset).
    fn recv(&mut self) -> Option<String> {
        let mut line = String::new();
        match self.r.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end().to_string()),
        }
    }
}

/// python3, or a skip (a failure under CI).
fn python() -> bool {
    peer::require("python3", &["python3"], None).is_some()
}

/// Runs the referee with `args` at most `limit`: its exit code (None if it
/// had to be killed), stdout and stderr.
fn run_bounded(args: &[&str], limit: Duration) -> (Option<i32>, String, String) {
    let mut child = Command::new(ROOKERY)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = common::read_out_err(&mut child);
    (code, out, err)
}

/// `Logts "YYYY.MM.DD HH:MM:SS.mmm"` of a log line, in milliseconds since
/// the epoch.
fn log_time(line: &str) -> i64 {
    let ts = line
        .split("Logts \"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| panic!("no Logts in {line}"));
    let n = |s: &str| s.parse::<i64>().unwrap();
    let (date, time) = ts.split_once(' ').unwrap();
    let d: Vec<i64> = date.split('.').map(n).collect();
    let t: Vec<&str> = time.split([':', '.']).collect();
    // Days from the civil date (proleptic Gregorian).
    let (y, m) = if d[1] <= 2 {
        (d[0] - 1, d[1] + 9)
    } else {
        (d[0], d[1] - 3)
    };
    let days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + d[2];
    ((days * 24 + n(t[0])) * 60 + n(t[1])) * 60_000 + n(t[2]) * 1000 + n(t[3])
}

/// §8.1.1, §8.1.6: after `reset` and `conclude` the referee sends nothing
/// to that client for the quiet period, `disconnect` at the end of the
/// event included. Read from the event log's timestamps (taken as each
/// record is written).
#[test]
fn nothing_follows_reset_or_conclude_within_the_quiet_period() {
    const QUIET_MS: i64 = 300;
    let mut ev = serve_event(
        "quiet",
        &format!("time_control = \"st=0.02\"\nquiet_period_ms = {QUIET_MS}\nmax_moves = 3"),
        AB,
    );
    ev.one_game_with(AB, Duration::from_secs(60));
    let log = std::fs::read_to_string(ev.dir.join("logs/event.log")).unwrap();
    let mut checked = Vec::new();
    for player in ["A", "B"] {
        let sent: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("Logdir sent;") && l.contains(&format!("Logpeer \"{player}\"")))
            .collect();
        for w in sent.windows(2) {
            if w[0].contains("refcom reset;") || w[0].contains("refcom conclude;") {
                let gap = log_time(w[1]) - log_time(w[0]);
                let what = |l: &str| {
                    l.split("refcom ")
                        .nth(1)
                        .unwrap_or("")
                        .split(';')
                        .next()
                        .unwrap_or("")
                        .to_string()
                };
                checked.push(format!(
                    "{player}: {} -> {} {gap} ms",
                    what(w[0]),
                    what(w[1])
                ));
                assert!(
                    gap >= QUIET_MS,
                    "{player}: {} ms from {} to {}",
                    gap,
                    w[0],
                    w[1]
                );
            }
        }
    }
    let disconnects = checked
        .iter()
        .filter(|c| c.contains("conclude -> disconnect"))
        .count();
    assert_eq!(disconnects, 2, "{checked:#?}");
    eprintln!("{checked:#?}");
}

/// 5,000 connections that never sign on, all from the players' own
/// address: the referee keeps at most `max_pending` of them (closing the
/// oldest), so both players sign on at once and play.
#[test]
fn thousands_of_idle_connections_never_keep_a_player_out() {
    if !python() {
        return;
    }
    const IDLE: usize = 5000;
    let mut ev = serve_event(
        "idle",
        "time_control = \"st=0.02\"\nquiet_period_ms = 100\nmax_moves = 3\nhandshake_timeout_ms = 600000",
        &[("One", "1-secret"), ("Two", "2-secret")],
    );
    let pid = ev.server.0.id();
    // The idle connections need descriptors of their own: raise the soft
    // limit, or say it cannot be done.
    let mut idle = Proc(
        Command::new("python3")
        .arg("-c")
        .arg(
            "import resource,socket,sys\n\
             n=int(sys.argv[2]); soft,hard=resource.getrlimit(resource.RLIMIT_NOFILE)\n\
             want=n+100\n\
             if hard!=resource.RLIM_INFINITY and hard<want:\n    print('limit',hard,flush=True); sys.stdin.read(); sys.exit(0)\n\
             resource.setrlimit(resource.RLIMIT_NOFILE,(max(soft,want),hard))\n\
             h,p=sys.argv[1].rsplit(':',1)\n\
             s=[socket.create_connection((h,int(p)),timeout=30) for _ in range(n)]\n\
             print('open',len(s),flush=True)\nsys.stdin.read()\n",
        )
        .arg(&ev.addr)
        .arg(IDLE.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(idle.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    if line.starts_with("limit") {
        let _ = peer::missing::<()>(&format!(
            "a descriptor limit of {IDLE} connections (the hard limit is {})",
            line.trim()
        ));
        return;
    }
    assert_eq!(line.trim(), format!("open {IDLE}"));
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .unwrap_or("")
        .to_string();
    // max_pending (256) bounds what they hold, whatever their number.
    assert!(
        fds <= 256 + 64,
        "{fds} descriptors open with {IDLE} idle connections"
    );
    ev.one_game_with(
        &[("One", "1-secret"), ("Two", "2-secret")],
        Duration::from_secs(60),
    );
    drop(idle.0.stdin.take());
    let _ = idle.0.wait();
    eprintln!("{IDLE} idle connections: the referee held {fds} descriptors, {rss}");
}

/// A player's client freezes in a game (it neither reads nor writes); the
/// restarted client signs on with the same token: once the old connection
/// has been silent a while, it is replaced (closed, no `disconnect`), the
/// frozen game ends as on a drop, and the next game is played, not lost on
/// time.
#[test]
fn a_frozen_player_is_replaced_by_its_restarted_client() {
    let ev = serve_event(
        "frozen",
        "rounds = 2\ntime_control = \"30+0\"\nquiet_period_ms = 100\nmax_moves = 4",
        AB,
    );
    let mut frozen = Raw::new(&ev.addr);
    frozen.sign_on("A", "a-secret");
    let _b = connect(&ev.addr, "B", "b-secret");
    // A is White in the first game: it freezes once asked for a move.
    loop {
        let line = frozen.recv().expect("the first game starts");
        if line.contains("refcom respond;") {
            break;
        }
    }
    let _a = connect(&ev.addr, "A", "a-secret");
    let (rest, _) = finish(ev.server, ev.out, Duration::from_secs(120));
    assert!(rest.contains("event over: 2 games"), "{rest}");
    let pgn = std::fs::read_to_string(ev.dir.join("games.pgn")).unwrap();
    let games = pgn_text::games(&pgn);
    assert_eq!(games.len(), 2);
    assert_eq!(tag(&games[0], "White"), "A");
    assert_ne!(
        tag(&games[1], "Termination"),
        "time forfeit",
        "{}",
        games[1]
    );
    // The frozen connection was closed without `disconnect`: it was
    // replaced, not kept to the end of the event.
    let mut after = Vec::new();
    while let Some(l) = frozen.recv() {
        after.push(l);
    }
    assert!(
        !after.iter().any(|l| l.contains("refcom disconnect;")),
        "{after:#?}"
    );
}

/// Token guesses from one address: each failed answer waits longer (0.25 s,
/// doubling; names that are no player's share one count), the answer is
/// the same for an unknown name and a wrong token, and a sign-on for a
/// player's name is not held up by the delays of other names. Players from
/// another address sign on meanwhile and play.
#[test]
fn token_guesses_are_slowed_per_address_and_never_keep_a_player_out() {
    if !python() {
        return;
    }
    let mut ev = serve_event(
        "guess",
        "time_control = \"st=0.02\"\nquiet_period_ms = 100\nmax_moves = 3",
        AB,
    );
    let log = ev.dir.join("logs/event.log");
    let mut py = Command::new("python3")
        .arg("-c")
        .arg(concat!(
            "import socket,sys,time\n",
            "h,p=sys.argv[1].rsplit(':',1); p=int(p); log=sys.argv[2]\n",
            "START='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -'\n",
            "def conn():\n",
            "    return socket.create_connection((h,p),timeout=60,source_address=('127.0.0.2',0))\n",
            "def sign_on(s,name,token):\n",
            "    s.sendall(f'{START} refreq sign_on; tcsi \"g\" \"{name}\"; Token \"{token}\";\\n'.encode())\n",
            "def c0(line):\n",
            "    return line.split('c0 \"',1)[1].split('\"',1)[0] if 'c0 \"' in line else line\n",
            "texts=set()\n",
            "for k in range(5):\n",
            "    s=conn(); f=s.makefile('rb'); t=time.monotonic()\n",
            "    sign_on(s,f'Nobody{k}',f'wrong{k}')\n",
            "    line=f.readline().decode(); took=time.monotonic()-t\n",
            "    assert 'refcom fault' in line, line\n",
            "    texts.add(c0(line))\n",
            "    want=0.25*2**k\n",
            "    assert took>=want-0.002, (k,took,want)\n",
            "    print(f'guess {k+1}: answered after {took:.3f} s',flush=True)\n",
            "    s.close()\n",
            "assert len(texts)==1, texts\n",
            "x=conn(); sign_on(x,'Guess6','wrong6')\n",
            "for _ in range(400):\n",
            "    if 'Guess6' in open(log,errors='replace').read(): break\n",
            "    time.sleep(0.05)\n",
            "else:\n",
            "    raise AssertionError('the sixth guess was not logged')\n",
            "y=conn(); f=y.makefile('rb'); sign_on(y,'A','wrong-a')\n",
            "line=f.readline().decode()\n",
            "assert c0(line) in texts, line\n",
            "xl=x.makefile('rb').readline().decode()\n",
            "assert c0(xl) in texts, xl\n",
            "z=conn(); sign_on(z,'A','wrong7')\n",
            "print('holding',flush=True)\n",
            "sys.stdin.read()\n",
        ))
        .arg(&ev.addr)
        .arg(&log)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    let mut out = BufReader::new(py.stdout.take().unwrap());
    loop {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            let mut err = String::new();
            py.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            panic!("the guesser stopped: {said}\n{err}");
        }
        said.push_str(&line);
        if line.starts_with("holding") {
            break;
        }
    }
    // A seventh guess waits 8 s for its answer: the players, from
    // 127.0.0.1, are not held up by it.
    ev.one_game_with(AB, Duration::from_secs(60));
    drop(py.stdin.take());
    let _ = py.wait();
    eprintln!("{said}");
}

/// A guesser of A's token on the players' own address (one host, one NAT),
/// guessing again as soon as it is answered: B, another name, never waits
/// for it, and A with its right token signs on after the guess ahead of it
/// (its turn comes before the guesser's next one), so the event is played.
/// Before sign-ons were counted per name, the guesser's delays refused
/// every sign-on from the address, both players' included.
#[test]
fn a_token_guesser_on_the_players_address_keeps_neither_player_out() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;
    let mut ev = serve_event(
        "guess-shared",
        "time_control = \"st=0.02\"\nquiet_period_ms = 100\nmax_moves = 3",
        AB,
    );
    let stop = Arc::new(AtomicBool::new(false));
    let guesses = Arc::new(AtomicUsize::new(0));
    let guesser = {
        let (stop, guesses, addr) = (stop.clone(), guesses.clone(), ev.addr.clone());
        std::thread::spawn(move || {
            let mut answers = Vec::new();
            while !stop.load(Ordering::SeqCst) {
                let n = guesses.fetch_add(1, Ordering::SeqCst);
                // The server is gone once the event is over.
                let Ok(mut r) = Raw::open(&addr) else { break };
                if r.send(&format!(
                    "{START} refreq sign_on; tcsi \"raw\" \"A\"; Token \"wrong{n}\";"
                ))
                .is_err()
                {
                    break;
                }
                let answer = r.recv().unwrap_or_default();
                if answer.contains("too many failed") {
                    // Refused unread: poll again soon, not in a spin.
                    std::thread::sleep(Duration::from_millis(5));
                }
                answers.push(answer);
            }
            answers
        })
    };
    // The guesser is into its delays before the players come.
    let t = Instant::now();
    while guesses.load(Ordering::SeqCst) < 4 {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the guesser is stuck"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    ev.one_game_with(AB, Duration::from_secs(90));
    stop.store(true, Ordering::SeqCst);
    let answers = guesser.join().unwrap();
    assert!(
        answers
            .iter()
            .filter(|a| !a.is_empty())
            .all(|a| a.contains("refcom fault") && !a.contains("a-secret")),
        "{answers:#?}"
    );
}

/// 3,000 connections that never sign on, each sending a 3.9 KB line: the
/// log takes a few lines a second of them and counts the rest.
#[test]
fn connections_that_never_sign_on_grow_the_log_by_little() {
    if !python() {
        return;
    }
    const CONNECTIONS: usize = 3000;
    let ev = serve_event("unsigned", "time_control = \"st=0.02\"", AB);
    let log = ev.dir.join("logs/event.log");
    let before = std::fs::metadata(&log).map_or(0, |m| m.len());
    let t = Instant::now();
    let flood = Command::new("python3")
        .arg("-c")
        .arg(concat!(
            "import socket,sys,threading\n",
            "h,p=sys.argv[1].rsplit(':',1); p=int(p); n=int(sys.argv[2])\n",
            "ops=''.join(f'x{i} {i};' for i in range(600))[:3800]\n",
            "line=f'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq reply; {ops}\\n'.encode()\n",
            "def run(k):\n",
            "    for _ in range(k):\n",
            "        s=socket.create_connection((h,p),timeout=30); s.sendall(line); s.makefile('rb').readline(); s.close()\n",
            "ts=[threading.Thread(target=run,args=(n//8,)) for _ in range(8)]\n",
            "[x.start() for x in ts]; [x.join() for x in ts]\n",
            "print('done')\n",
        ))
        .arg(&ev.addr)
        .arg(CONNECTIONS.to_string())
        .output()
        .unwrap();
    assert!(flood.status.success(), "{flood:?}");
    let elapsed = t.elapsed().as_secs_f64();
    // Let the log writer catch up, then take the log's size.
    std::thread::sleep(Duration::from_millis(500));
    let text = std::fs::read_to_string(&log).unwrap();
    let grown = text.len() as u64 - before;
    // The ration: 64 connections at once, then 8 a second; each logs at
    // most its line (cut), the fault sent and a count of those not logged.
    let allowed = (64.0 + 8.0 * (elapsed + 2.0)) * 3.0 * 700.0;
    assert!(
        (grown as f64) < allowed,
        "{grown} bytes logged for {CONNECTIONS} connections in {elapsed:.1} s"
    );
    assert!(
        text.contains("not signed on were not logged"),
        "no count of lines not logged"
    );
    eprintln!(
        "{CONNECTIONS} connections never signed on in {elapsed:.1} s: the log grew {grown} bytes ({:.1} per connection)",
        grown as f64 / CONNECTIONS as f64
    );
}

/// A signed-on client sends thousands of `refreq fault` records carrying a
/// clear-screen escape and a fake result: a few are logged and shown, the
/// connection is then closed, and neither the logs nor the console ever
/// carry the escape raw.
#[test]
fn a_flood_of_faults_is_cut_off_and_never_reaches_a_terminal_raw() {
    let mut ev = serve_event(
        "faults",
        "time_control = \"st=0.02\"\nquiet_period_ms = 100",
        AB,
    );
    let mut stderr = ev.server.0.stderr.take().unwrap();
    let console = std::thread::spawn(move || {
        let mut e = Vec::new();
        let _ = stderr.read_to_end(&mut e);
        e
    });
    let mut c = Raw::new(&ev.addr);
    c.sign_on("A", "a-secret");
    assert!(c.recv().unwrap().contains("refcom reset;"));
    let pad: String =
        (0..600).map(|i| format!("x{i} {i};")).collect::<String>()[..3500].to_string();
    let record = format!("{START} refreq fault; c0 \"{EVIL}\"; {pad}");
    let mut sent = 0;
    for _ in 0..2000 {
        if c.send(&record).is_err() {
            break;
        }
        sent += 1;
    }
    // The referee closes the connection.
    while c.recv().is_some() {}
    std::thread::sleep(Duration::from_millis(500));
    drop(ev.server);
    let console = console.join().unwrap();
    let logs = ev.dir.join("logs");
    let event = std::fs::read(logs.join("event.log")).unwrap();
    let player = std::fs::read(logs.join("player-A.log")).unwrap();
    let logged = String::from_utf8_lossy(&event)
        .lines()
        .filter(|l| l.contains("refreq fault;"))
        .count();
    assert!(
        logged <= MOST_FAULT_RECORDS,
        "{logged} of {sent} fault records logged"
    );
    for (what, bytes) in [
        ("event.log", &event),
        ("player-A.log", &player),
        ("the console", &console),
    ] {
        assert!(
            !bytes.iter().any(|&b| b == 0x1b || b == b'\r'),
            "{what} has the client's control characters raw"
        );
    }
    let console = String::from_utf8_lossy(&console);
    let shown = console.matches("fault from A:").count();
    assert!(shown <= MOST_FAULT_RECORDS, "{shown} faults shown");
    assert!(console.contains("\\x1b[2J"), "{console}");
    eprintln!(
        "{sent} fault records sent, {logged} logged, {shown} shown; logs {} bytes, console {} bytes",
        event.len() + player.len(),
        console.len()
    );
}

/// `port = N` alone listens on loopback, and the page with it.
#[test]
fn a_port_alone_listens_on_loopback() {
    let dir = TempDir::new("loopback");
    let cfg = event_file(dir.path(), "time_control = \"st=0.02\"\nport = 0", AB);
    let (server, addr, mut out) = Cmd::new(ROOKERY)
        .args(["referee", "serve", "--config"])
        .arg(&cfg)
        .arg("--background")
        .start("listening on ");
    let mut page = String::new();
    out.read_line(&mut page).unwrap();
    drop(server);
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    assert!(
        page.starts_with("spectator page: http://127.0.0.1:"),
        "{page}"
    );
}

/// A write to the logs that fails (here: the disk is full) is said on the
/// console, not swallowed.
#[cfg(target_os = "linux")]
#[test]
fn a_log_that_cannot_be_written_is_reported() {
    let dir = TempDir::new("log-full");
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::os::unix::fs::symlink("/dev/full", dir.join("logs/event.log")).unwrap();
    let cfg = event_file(
        dir.path(),
        "time_control = \"st=0.02\"\nquiet_period_ms = 100",
        AB,
    );
    let mut ev = serve_in(dir, &cfg);
    let stderr = ev.server.0.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut c = Raw::new(&ev.addr);
    c.sign_on("A", "a-secret");
    assert!(c.recv().unwrap().contains("refcom reset;"));
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    let reported = loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(l) if l.contains("event log") => break l,
            Ok(l) => seen.push(l),
            Err(_) => panic!("no report of the failing log: {seen:#?}"),
        }
    };
    assert!(reported.contains("cannot write the logs"), "{reported}");
}

/// Event files the referee cannot run are refused at once, saying why:
/// no room for the players, a date that is not a PGN date, tokens shared.
#[test]
fn event_files_that_cannot_work_are_refused() {
    let players = [("A", "a-secret"), ("B", "b-secret")];
    for (settings, players, why) in [
        ("max_connections = 0", &players[..], "max_connections = 0"),
        ("date = \"yesterday\"", &players[..], "date"),
        ("", &[("A", "same"), ("B", "same")][..], "the same token"),
        (
            "observer_token = \"b-secret\"",
            &players[..],
            "observer_token",
        ),
    ] {
        let dir = TempDir::new("refused");
        let cfg = event_file(
            dir.path(),
            &format!("time_control = \"st=0.02\"\n{settings}"),
            players,
        );
        let cfg = cfg.to_str().unwrap();
        let (code, out, err) = run_bounded(
            &[
                "referee",
                "serve",
                "--config",
                cfg,
                "--listen",
                "127.0.0.1:0",
                "--background",
                "--no-web",
            ],
            Duration::from_secs(20),
        );
        assert_eq!(code, Some(2), "{settings}: {out}{err}");
        assert!(err.contains(why), "{settings}: {err}");
    }
}

/// A player the referee starts gets its token in the environment (its
/// command has no token); another reads it from a file. Neither token is in
/// the logs, which only their owner reads.
#[test]
fn tokens_travel_by_environment_and_file_and_are_never_logged() {
    let dir = TempDir::new("tokens");
    let text = format!(
        "[event]\nname = \"Tokens\"\npgn = \"games.pgn\"\nlog_dir = \"logs\"\ntime_control = \"st=0.02\"\n\
         quiet_period_ms = 100\nmax_moves = 3\n\
         [[player]]\nname = \"Started\"\ntoken = \"started-secret\"\n\
         command = [\"{ROOKERY}\", \"referee\", \"connect\", \"{{address}}\", \"--engine\", \"builtin\", \"--name\", \"{{name}}\"]\n\
         [[player]]\nname = \"Filed\"\ntoken = \"filed-secret\"\n"
    );
    let cfg = dir.write("event.toml", text);
    let token_file = dir.write("filed.token", "filed-secret\n");
    let ev = serve_in(dir, &cfg);
    let _b = Proc(
        client(&ev.addr, "Filed")
            .arg("--token-file")
            .arg(&token_file)
            .env_remove("ROOKERY_TOKEN")
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let (rest, _) = finish(ev.server, ev.out, Duration::from_secs(60));
    assert!(rest.contains("event over: 1 games"), "{rest}");
    let logs = ev.dir.join("logs");
    for f in ["event.log", "player-Started.log", "player-Filed.log"] {
        let text = std::fs::read_to_string(logs.join(f)).unwrap();
        assert!(text.contains("refreq sign_on;"), "{f}");
        assert!(!text.contains("-secret"), "{f} holds a token");
        assert!(text.contains("Token \"***\""), "{f}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(logs.join(f))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "{f} is readable by others: {mode:o}");
        }
    }
}

/// `--token` and `--token-file` together are refused: which one is meant
/// is not guessed.
#[test]
fn two_token_flags_are_refused() {
    let r = crate::common::rookery(
        &[
            "referee",
            "connect",
            "127.0.0.1:9",
            "--engine",
            "builtin",
            "--name",
            "A",
            "--token",
            "x",
            "--token-file",
            "/nonexistent",
        ],
        b"",
    );
    r.assert_code(2)
        .assert_stderr_contains("cannot be used with");
}

/// How `child` ended, waiting at most `limit`.
fn ended(child: &mut std::process::Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(t.elapsed() < limit, "{what} did not end within {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A small tmpfs mounted for a test (root only), unmounted when dropped.
struct TinyDisk(PathBuf);

impl TinyDisk {
    /// A tmpfs of `size` at `dir`, or None (a skip; a failure under CI)
    /// where it cannot be mounted.
    fn mount(dir: &Path, size: &str) -> Option<TinyDisk> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            Some(TinyDisk(dir.to_path_buf()))
        } else {
            peer::missing("a tmpfs mount (root)")
        }
    }

    /// Fills the disk, then frees `free` bytes of it.
    fn fill_but(&self, free: u64) {
        let filler = self.0.join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let page = [b'x'; 4096];
        while f.write_all(&page).and_then(|()| f.sync_data()).is_ok() {}
        let len = f.metadata().unwrap().len();
        f.set_len(len.saturating_sub(free)).unwrap();
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// A full disk: the PGN on a tmpfs with one page free, the journal and the
/// logs elsewhere. When a game cannot be written the referee tells every
/// client why (`refcom fault`, §8.1.4) and `disconnect`s them before it
/// stops, and the PGN holds whole games only: the game a failed write cut
/// is cut away (the journal keeps it for `--resume`). Before, the referee
/// exited without a word to the clients (they saw the link drop and kept
/// retrying) and left the PGN cut in the middle of a game.
#[test]
fn a_full_disk_is_told_to_the_clients_and_leaves_whole_games_in_the_pgn() {
    let dir = TempDir::new("full-disk");
    let Some(disk) = TinyDisk::mount(&dir.join("tiny"), "64k") else {
        return;
    };
    disk.fill_but(4096);
    let pgn = disk.0.join("games.pgn");
    let cfg = dir.join("event.toml");
    let mut text = format!(
        "[event]\nname = \"Full disk\"\nsite = \"loopback\"\npgn = \"{}\"\nlog_dir = \"logs\"\n\
         rounds = 200\ntime_control = \"st=0.02\"\nquiet_period_ms = 100\nmax_moves = 3\n",
        pgn.display()
    );
    for (name, token) in [("A", "a-secret"), ("B", "b-secret")] {
        text.push_str(&format!(
            "[[player]]\nname = \"{name}\"\ntoken = \"{token}\"\n"
        ));
    }
    std::fs::write(&cfg, text).unwrap();
    let ev = serve_in(dir, &cfg);
    let clients: Vec<(Proc, PathBuf)> = [("A", "a-secret"), ("B", "b-secret")]
        .into_iter()
        .map(|(name, token)| {
            let said = ev.dir.join(format!("{name}.stderr"));
            let child = client(&ev.addr, name)
                .args(["--token", token, "--verbose"])
                .stderr(std::fs::File::create(&said).unwrap())
                .spawn()
                .unwrap();
            (Proc(child), said)
        })
        .collect();
    let mut server = ev.server;
    let status = ended(&mut server.0, Duration::from_secs(120), "the referee");
    let mut err = String::new();
    server
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!status.success(), "the event cannot go on");
    assert!(err.contains("No space left"), "{err}");
    for (mut client, said) in clients {
        // Told and disconnected, the client ends of its own accord.
        let status = ended(&mut client.0, Duration::from_secs(60), "a client");
        let said = std::fs::read_to_string(&said).unwrap();
        let fault = said
            .lines()
            .position(|l| {
                l.starts_with("< ") && l.contains("refcom fault") && l.contains("No space left")
            })
            .unwrap_or_else(|| panic!("no fault told: {said}"));
        assert!(
            said.lines()
                .skip(fault)
                .any(|l| l.starts_with("< ") && l.contains("refcom disconnect")),
            "{said}"
        );
        assert!(status.success(), "{status:?}: {said}");
    }
    let written = std::fs::read_to_string(&pgn).unwrap();
    let games = pgn_text::games(&written);
    assert!(games.len() >= 2, "{written}");
    for g in &games {
        let result = tag(g, "Result");
        assert!(
            g.trim_end().ends_with(result) && g.ends_with("\n\n"),
            "a game cut short: {g:?}"
        );
    }
    drop(disk);
}
