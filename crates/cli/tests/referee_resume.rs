//! End-to-end tests of the Argus referee's duties 9 and 10 and its serial
//! mode, driving the real binary on loopback: a referee killed with SIGKILL
//! mid-game and started again with `--resume`, a primary killed while a
//! standby (`referee observe`) follows it, and a game over two
//! pseudo-terminals made by socat.
//!
//! Each test prints what it measured (the time from the kill to the first
//! `respond` after the restart, from the primary's death to the standby's
//! takeover) on stderr: `cargo test -p rookery --test main referee_resume --
//! --nocapture`.
//!
//! Peers: socat (serial mode). When `CI` is set and it is missing the test
//! fails; otherwise it skips with a note on stderr.

use crate::common::{cmd, finish_referee, referee, referee_client, s, ROOKERY};
use rookery_testkit::cmd::{assert_contains_all, KillOnDrop as Proc};
use rookery_testkit::{peer, pgn_text, TempDir};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{ChildStdout, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// Plies journaled before the referee is killed.
const KILL_AFTER: usize = 16;

/// Writes an event file: two players, one game, a clock of 60 s with 0.15 s
/// a move, a draw after 20 moves each.
fn event_file(path: &Path, pgn: &str, logs: &str, time_control: &str) -> PathBuf {
    let text = format!(
        "[event]\nname = \"Resume test\"\nsite = \"loopback\"\ndate = \"2026.01.02\"\n\
         pgn = \"{pgn}\"\nlog_dir = \"{logs}\"\ntime_control = \"{time_control}\"\n\
         time_margin_ms = 500\nquiet_period_ms = 100\nmax_moves = 20\n\
         observer_token = \"watch-secret\"\n\
         [[player]]\nname = \"Alpha\"\ntoken = \"a-secret\"\n\
         [[player]]\nname = \"Beta\"\ntoken = \"b-secret\"\n"
    );
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

fn serve(config: &Path, listen: &str, extra: &[&str]) -> (Proc, String, BufReader<ChildStdout>) {
    let mut args = vec!["serve", "--config", s(config)];
    args.extend(["--listen", listen, "--background"]);
    args.extend(extra);
    referee(&args, "listening on ")
}

fn connect(target: &[&str], name: &str, token: &str) -> Proc {
    let player = ["--engine", "builtin", "--name", name, "--token", token];
    // Neither resigns nor offers draws: the game runs to its end.
    let play_on = ["--resign-cp", "0", "--draw-cp", "0", "--no-accept"];
    referee_client(&[target, &player[..], &play_on[..]].concat())
}

/// The journal's entries (whole lines only).
fn journal(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn of_type<'a>(entries: &'a [Value], kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    entries.iter().filter(move |e| e["type"] == kind)
}

/// The UCI moves journaled.
fn journaled_moves(entries: &[Value]) -> Vec<String> {
    of_type(entries, "move")
        .map(|e| e["uci"].as_str().unwrap().to_string())
        .collect()
}

/// Waits until `ready` holds of the journal at `path` (at most 20 s).
fn wait_for(path: &Path, what: &str, ready: impl Fn(&[Value]) -> bool) {
    let t = Instant::now();
    loop {
        let j = journal(path);
        assert!(
            of_type(&j, "end").next().is_none(),
            "the game ended before {what}"
        );
        if ready(&j) {
            return;
        }
        assert!(t.elapsed() < Duration::from_secs(20), "no {what} in 20 s");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The games of the PGN file at `path` (none if it is missing).
fn pgn_games(path: &Path) -> Vec<String> {
    pgn_text::games(&std::fs::read_to_string(path).unwrap_or_default())
}

/// Milliseconds since midnight UTC.
fn ms_of_day(t: SystemTime) -> u64 {
    (t.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        % 86_400_000) as u64
}

/// The `Logts` of a log line as milliseconds since midnight UTC.
fn logts_ms(line: &str) -> u64 {
    let at = line.find("Logts \"").expect("no Logts") + 7;
    let time = line[at..]
        .split_whitespace()
        .nth(1)
        .unwrap()
        .trim_end_matches(['"', ';']);
    let (hms, ms) = time.split_once('.').unwrap();
    let f: Vec<u64> = hms.split(':').map(|x| x.parse().unwrap()).collect();
    ((f[0] * 60 + f[1]) * 60 + f[2]) * 1000 + ms.parse::<u64>().unwrap()
}

/// The two clocks of a record's `cc` (time used) in seconds.
fn cc_seconds(line: &str) -> [u64; 2] {
    let at = line.find(" cc ").expect("no cc") + 4;
    let mut it = line[at..]
        .split([' ', ';'])
        .filter(|w| !w.is_empty())
        .map(|c| {
            c.split(':')
                .map(|x| x.parse::<u64>().unwrap())
                .zip([86_400, 3600, 60, 1])
                .map(|(v, m)| v * m)
                .sum::<u64>()
        });
    [it.next().unwrap(), it.next().unwrap()]
}

/// Checks the finished game against the journal as it was before the kill:
/// the PGN holds one game, which begins with every move journaled before the
/// kill, once, and the final journal holds each move once.
fn check_game(pgn: &Path, journal_path: &Path, before: &[Value]) -> Vec<String> {
    let games = pgn_games(pgn);
    assert_eq!(games.len(), 1, "{games:?}");
    let sans = pgn_text::sans(&games[0]);
    let after = journal(journal_path);
    let end = of_type(&after, "end")
        .next()
        .expect("no end in the journal");
    let record_moves: Vec<&Value> = end["record"]["moves"].as_array().unwrap().iter().collect();
    let record_sans: Vec<String> = record_moves
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sans, record_sans, "the PGN is the journal's record");
    let k = journaled_moves(before).len();
    let before_sans: Vec<String> = of_type(before, "move")
        .map(|m| m["san"].as_str().unwrap().to_string())
        .collect();
    assert!(sans.len() > k, "no move after the restart: {sans:?}");
    assert_eq!(
        sans[..k],
        before_sans[..],
        "the moves before the kill, once"
    );
    let uci: Vec<&str> = record_moves
        .iter()
        .map(|m| m["uci"].as_str().unwrap())
        .collect();
    assert_eq!(uci[..k], journaled_moves(before)[..]);
    assert_eq!(journaled_moves(&after), uci, "each move journaled once");
    assert!(
        !games[0].contains("[Result \"*\"]"),
        "the game ended normally: {}",
        games[0]
    );
    sans
}

#[test]
fn a_referee_killed_mid_game_resumes_from_its_journal() {
    let dir = TempDir::new("argus-resume");
    let cfg = event_file(&dir.join("event.toml"), "games.pgn", "logs", "60 st=0.15");
    let journal_path = dir.join("logs/event.journal");
    let (first, addr, _out) = serve(&cfg, "127.0.0.1:0", &[]);
    let _a = connect(&[&addr], "Alpha", "a-secret");
    let _b = connect(&[&addr], "Beta", "b-secret");
    // Killed once both sides have used over a second, so that a clock
    // restarted from zero after the resume would show.
    wait_for(&journal_path, "the kill", |j| {
        journaled_moves(j).len() >= KILL_AFTER
            && of_type(j, "clocks").last().is_some_and(|c| {
                c["used_ms"]
                    .as_array()
                    .is_some_and(|u| u.iter().all(|v| v.as_u64().unwrap_or(0) >= 1000))
            })
    });
    let mut first = first;
    let killed_at = SystemTime::now();
    first.0.kill().unwrap(); // SIGKILL
    first.0.wait().unwrap();
    let before = journal(&journal_path);
    let k = journaled_moves(&before).len();
    let clocks = of_type(&before, "clocks").last().unwrap().clone();
    assert_eq!(clocks["ply"].as_u64(), Some(k as u64));
    let used: Vec<u64> = clocks["used_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(
        used.iter().all(|&u| u >= 1000),
        "over a second used each: {used:?}"
    );
    let log = dir.join("logs/event.log");
    let log_len = std::fs::metadata(&log).map_or(0, |m| m.len()) as usize;

    let (second, addr2, mut out) = serve(&cfg, &addr, &["--resume"]);
    assert_eq!(addr2, addr);
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(
        line.starts_with("resumed from the journal: 0 games finished, 1 in progress"),
        "{line}"
    );
    let (rest, _) = finish_referee(second, out, Duration::from_secs(25));
    assert!(rest.contains("event over: 1 games"), "{rest}");
    check_game(&dir.join("games.pgn"), &journal_path, &before);

    // What each client was sent after the restart: reset, inform, the moves
    // as execute records (all but the last for the side to move, which
    // `respond` carries), then respond with the journaled clocks.
    let text = std::fs::read(&log).unwrap();
    let mut since = String::from_utf8_lossy(&text[log_len..]).into_owned();
    if log_len > 0 && text[log_len - 1] != b'\n' {
        // The killed referee's last log line was cut off.
        since = since
            .split_once('\n')
            .map_or(String::new(), |x| x.1.to_string());
    }
    let to_move = if k % 2 == 0 { "Alpha" } else { "Beta" };
    let mut first_respond = None;
    for who in ["Alpha", "Beta"] {
        let sent: Vec<&str> = since
            .lines()
            .filter(|l| l.contains("Logdir sent;") && l.contains(&format!("Logpeer \"{who}\"")))
            .collect();
        let game_start = sent
            .iter()
            .rposition(|l| l.contains("refcom inform;") && l.contains("Result \"*\""))
            .expect("no inform after the restart");
        assert!(sent[..game_start]
            .iter()
            .any(|l| l.contains("refcom reset;")));
        let executes = sent[game_start + 1..]
            .iter()
            .take_while(|l| l.contains("refcom execute;"))
            .count();
        let expected = if who == to_move { k - 1 } else { k };
        assert_eq!(
            executes, expected,
            "{who}: execute records after the restart"
        );
        if who == to_move {
            let respond = sent[game_start + 1 + executes];
            assert!(respond.contains("refcom respond;"), "{respond}");
            let cc = cc_seconds(respond);
            // `cc` counts whole seconds of the journaled time used.
            assert_eq!(cc, [used[0] / 1000, used[1] / 1000], "{respond}");
            first_respond = Some(logts_ms(respond));
        }
    }
    let respond_ms = first_respond.unwrap();
    let gap = (respond_ms + 86_400_000 - ms_of_day(killed_at)) % 86_400_000;
    eprintln!(
        "resume: {k} plies before the kill; kill to the first respond after the restart: {gap} ms \
         (restart at once, client back-off {} ms, quiet period 100 ms)",
        250
    );
}

#[test]
fn a_standby_takes_over_when_the_primary_is_killed() {
    let dir = TempDir::new("argus-standby");
    let primary_cfg = event_file(
        &dir.join("primary.toml"),
        "primary.pgn",
        "plogs",
        "60 st=0.15",
    );
    let standby_cfg = event_file(
        &dir.join("standby.toml"),
        "standby.pgn",
        "slogs",
        "60 st=0.15",
    );
    let (primary, paddr, _pout) = serve(&primary_cfg, "127.0.0.1:0", &[]);
    // A free port for the standby.
    let saddr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    let (standby, _, mut sout) = referee(
        &[
            "observe",
            "--primary",
            &paddr,
            "--config",
            s(&standby_cfg),
            "--listen",
            &saddr,
            "--takeover-after",
            "1",
            "--background",
        ],
        "following ",
    );
    let targets = format!("{paddr},{saddr}");
    let _a = connect(&[&targets], "Alpha", "a-secret");
    let _b = connect(&[&targets], "Beta", "b-secret");
    let pj = dir.join("plogs/event.journal");
    let sj = dir.join("slogs/event.journal");
    wait_for(&pj, "the kill", |j| journaled_moves(j).len() >= KILL_AFTER);
    // The standby's copy has caught up.
    let caught_up = || {
        let p = std::fs::read(&pj).unwrap();
        let s = std::fs::read(&sj).unwrap_or_default();
        p == s
    };
    let t = Instant::now();
    while !caught_up() {
        assert!(t.elapsed() < Duration::from_secs(10), "the standby lags");
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut primary = primary;
    let killed = Instant::now();
    primary.0.kill().unwrap(); // SIGKILL
    primary.0.wait().unwrap();
    let before = journal(&pj);
    let mut line = String::new();
    let mut took_over = None;
    while took_over.is_none() {
        line.clear();
        assert!(sout.read_line(&mut line).unwrap() > 0, "the standby ended");
        if line.starts_with("listening on ") {
            took_over = Some(killed.elapsed());
            assert_eq!(line.trim_end(), format!("listening on {saddr}"));
        }
        assert!(killed.elapsed() < Duration::from_secs(15), "no takeover");
    }
    let (rest, _) = finish_referee(standby, sout, Duration::from_secs(25));
    assert!(rest.contains("event over: 1 games"), "{rest}");
    let sans = check_game(&dir.join("standby.pgn"), &sj, &before);
    eprintln!(
        "standby: {} plies before the kill, {} in all; primary's death to the standby listening: {} ms (--takeover-after 1)",
        journaled_moves(&before).len(),
        sans.len(),
        took_over.unwrap().as_millis()
    );
}

#[test]
fn serial_mode_plays_a_game_over_two_pseudo_terminals() {
    let Some(socat) = peer::require("socat", &["socat"], None) else {
        return;
    };
    let dir = TempDir::new("argus-serial");
    let cfg = event_file(&dir.join("event.toml"), "games.pgn", "logs", "st=0.02");
    let mut links = Vec::new();
    let mut socats = Vec::new();
    for i in 1..=2 {
        let (referee, client) = (dir.join(format!("ref{i}")), dir.join(format!("cli{i}")));
        socats.push(Proc(
            Command::new(&socat)
                .arg(format!("pty,raw,echo=0,link={}", referee.display()))
                .arg(format!("pty,raw,echo=0,link={}", client.display()))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        ));
        links.push((referee, client));
    }
    let t = Instant::now();
    while !links.iter().all(|(r, c)| r.exists() && c.exists()) {
        assert!(t.elapsed() < Duration::from_secs(10), "socat made no ptys");
        std::thread::sleep(Duration::from_millis(10));
    }
    let devices = format!("{},{}", links[0].0.display(), links[1].0.display());
    let (server, what, out) = referee(
        &[
            "serve",
            "--config",
            s(&cfg),
            "--serial",
            &devices,
            "--background",
        ],
        "listening on serial ",
    );
    assert!(what.contains("ref1") && what.contains("ref2"), "{what}");
    let _a = connect(&["--serial", s(&links[0].1)], "Alpha", "a-secret");
    let _b = connect(&["--serial", s(&links[1].1)], "Beta", "b-secret");
    let (rest, _) = finish_referee(server, out, Duration::from_secs(25));
    assert!(rest.contains("event over: 1 games"), "{rest}");
    let games = pgn_games(&dir.join("games.pgn"));
    assert_eq!(games.len(), 1);
    assert!(!games[0].contains("[Result \"*\"]"), "{}", games[0]);
    assert!(pgn_text::sans(&games[0]).len() >= 2, "{}", games[0]);
    let log = std::fs::read_to_string(dir.join("logs/event.log")).unwrap();
    assert!(
        log.contains("refreq sign_on;"),
        "the clients signed on over the devices"
    );
    drop(socats);
}

#[test]
fn a_player_restarted_by_the_supervisor_resumes_its_game() {
    let dir = TempDir::new("argus-restart");
    let cfg = event_file(&dir.join("event.toml"), "games.pgn", "logs", "60 st=0.1");
    // Both players are programs the referee starts itself.
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    for (name, token) in [("Alpha", "a-secret"), ("Beta", "b-secret")] {
        let table = format!("name = \"{name}\"\ntoken = \"{token}\"\n");
        let command = format!(
            "{table}command = [\"{ROOKERY}\", \"referee\", \"connect\", \"{{address}}\", \"--engine\", \"builtin\", \
             \"--name\", \"{{name}}\", \"--token\", \"{{token}}\", \"--resign-cp\", \"0\", \"--draw-cp\", \"0\", \"--no-accept\"]\n"
        );
        text = text.replace(&table, &command);
    }
    std::fs::write(&cfg, text).unwrap();
    let mut child = cmd([
        "referee",
        "serve",
        "--config",
        s(&cfg),
        "--listen",
        "127.0.0.1:0",
    ])
    .spawn();
    let mut stdin = child.stdin.take().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let server = Proc(child);
    let journal_path = dir.join("logs/event.journal");
    wait_for(&journal_path, "the restart", |j| {
        journaled_moves(j).len() >= 10
    });
    let log = dir.join("logs/event.log");
    let before = journal(&journal_path);
    use std::io::Write;
    stdin.write_all(b"restart Alpha\n").unwrap();
    stdin.flush().unwrap();
    let (rest, _) = finish_referee(server, out, Duration::from_secs(25));
    assert_contains_all(&rest, &["held at move", "event over: 1 games"]);
    // The game went on from where it was held: it begins with the moves
    // played before the restart and was not forfeited.
    let games = pgn_games(&dir.join("games.pgn"));
    assert_eq!(games.len(), 1);
    assert!(!games[0].contains("abandoned"), "{}", games[0]);
    check_game(&dir.join("games.pgn"), &journal_path, &before);
    // Alpha's new program was sent the game as execute records.
    let text = std::fs::read_to_string(&log).unwrap();
    let executes = text
        .lines()
        .filter(|l| l.contains("Logpeer \"Alpha\"") && l.contains("refcom execute;"))
        .count();
    assert!(executes >= journaled_moves(&before).len() - 1, "{executes}");
}
