//! The Argus referee's event runner end to end, driving the real binary on
//! loopback with players the referee starts itself: what the players are
//! told at a supervisor's stop is what the PGN records; an unfinished
//! event's journal is never started over (`--resume` or `--fresh`); the
//! players' programs left by a referee killed with SIGKILL are ended by the
//! next run; a resumed referee takes its old port again; an event's
//! openings and date reach the games.

use crate::common::{cmd, finish_referee, line_after, referee, s, ROOKERY};
use rookery_testkit::cmd::KillOnDrop as Proc;
use rookery_testkit::{pgn_text, TempDir};
use serde_json::Value;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// An event file in `dir`: two players the referee starts (built-in
/// engines that never resign nor agree draws), `settings` added to the
/// `[event]` table.
fn event(dir: &Path, settings: &str) -> PathBuf {
    let mut text = format!(
        "[event]\nname = \"Runner test\"\nsite = \"loopback\"\npgn = \"games.pgn\"\n\
         log_dir = \"logs\"\nquiet_period_ms = 100\ntime_margin_ms = 500\n{settings}\n"
    );
    for (name, token) in [("Alpha", "a-secret"), ("Beta", "b-secret")] {
        text.push_str(&format!(
            "[[player]]\nname = \"{name}\"\ntoken = \"{token}\"\n\
             command = [\"{ROOKERY}\", \"referee\", \"connect\", \"{{address}}\", \"--engine\", \"builtin\", \
             \"--name\", \"{{name}}\", \"--token\", \"{{token}}\", \"--resign-cp\", \"0\", \"--draw-cp\", \"0\", \
             \"--no-accept\", \"--max-attempts\", \"100\"]\n"
        ));
    }
    let p = dir.join("event.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// The journal's whole entries.
fn journal(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Moves journaled for game `n` (0-based) since its last discard.
fn moves_of(entries: &[Value], n: u64) -> usize {
    let mut count = 0;
    for e in entries.iter().filter(|e| e["game"] == n) {
        match e["type"].as_str() {
            Some("move") => count += 1,
            Some("discard") => count = 0,
            _ => {}
        }
    }
    count
}

/// Waits (at most 60 s) until `ready` holds of the journal.
#[track_caller]
fn wait_for(path: &Path, what: &str, ready: impl Fn(&[Value]) -> bool) {
    let t = Instant::now();
    while !ready(&journal(path)) {
        assert!(t.elapsed() < Duration::from_secs(60), "no {what} in 60 s");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn games(path: &Path) -> Vec<String> {
    pgn_text::games(&std::fs::read_to_string(path).unwrap_or_default())
}

fn tag<'a>(game: &'a str, name: &str) -> &'a str {
    let at = game
        .find(&format!("[{name} \""))
        .unwrap_or_else(|| panic!("no {name} in {game}"))
        + name.len()
        + 3;
    &game[at..at + game[at..].find('"').unwrap()]
}

/// The closing `inform` records sent to `who` (those with a `Termination`),
/// in order, as the log has them.
fn closing_informs(log: &Path, who: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|l| {
            l.contains("Logdir sent;")
                && l.contains(&format!("Logpeer \"{who}\""))
                && l.contains("refcom inform;")
                && l.contains("Termination \"")
        })
        .map(str::to_string)
        .collect()
}

/// The arguments of `rookery referee serve` of `cfg` on a free port, no
/// page, with `extra` flags.
fn serve_args<'a>(cfg: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let serve = [
        "referee",
        "serve",
        "--config",
        s(cfg),
        "--listen",
        "127.0.0.1:0",
        "--no-web",
    ];
    [&serve[..], extra].concat()
}

/// [`serve_args`] in the background.
fn background(cfg: &Path, extra: &[&str]) -> Vec<String> {
    serve_args(cfg, &[&["--background"][..], extra].concat())
        .iter()
        .map(|a| a.to_string())
        .collect()
}

/// Starts [`background`]: the server, its address and its stdout.
fn serve(cfg: &Path, extra: &[&str]) -> (Proc, String, BufReader<std::process::ChildStdout>) {
    let args = background(cfg, extra);
    let args: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    referee(&args, "listening on ")
}

/// An event in a directory of its own, served until game `game` (0-based)
/// has `moves` moves journaled, then killed with SIGKILL: its directory,
/// event file, journal and the address it listened on.
fn killed_event(
    tag: &str,
    settings: &str,
    game: u64,
    moves: usize,
) -> (TempDir, PathBuf, PathBuf, String) {
    let dir = TempDir::new(tag);
    let cfg = event(dir.path(), settings);
    let journal_path = dir.join("logs/event.journal");
    let (mut first, addr, _out) = serve(&cfg, &[]);
    wait_for(&journal_path, "moves", |j| moves_of(j, game) >= moves);
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    (dir, cfg, journal_path, addr)
}

/// A referee run in the foreground (commands on its stdin).
struct Console {
    server: Proc,
    stdin: std::process::ChildStdin,
    out: BufReader<std::process::ChildStdout>,
}

fn console(cfg: &Path, extra: &[&str]) -> Console {
    let mut child = cmd(serve_args(cfg, extra)).spawn();
    let stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    line_after(&mut out, "listening on ");
    Console {
        server: Proc(child),
        stdin,
        out,
    }
}

impl Console {
    fn say(&mut self, command: &str) {
        self.stdin
            .write_all(format!("{command}\n").as_bytes())
            .unwrap();
        self.stdin.flush().unwrap();
    }
}

/// The supervisor adjudicates game 1, adjourns game 2 and, while game 2 is
/// played again, shuts the event down. Each time both players are told the
/// result the PGN records: `1/2-1/2` by adjudication; `*` for the adjourned
/// game (which the PGN does not record: it is played again, and recorded
/// once); `*` for the game cut by the shutdown, which the PGN records as
/// `*`. Before, the players were told `0-1` or `1-0` "abandoned" each time.
#[test]
fn what_the_players_are_told_is_what_the_pgn_records() {
    let dir = TempDir::new("argus-told");
    let cfg = event(
        dir.path(),
        "rounds = 3\ntime_control = \"st=0.05\"\nmax_moves = 12\n",
    );
    let journal_path = dir.join("logs/event.journal");
    let mut c = console(&cfg, &[]);
    wait_for(&journal_path, "moves in game 1", |j| moves_of(j, 0) >= 4);
    c.say("adjudicate 1 1/2-1/2");
    wait_for(&journal_path, "moves in game 2", |j| moves_of(j, 1) >= 4);
    c.say("adjourn 2");
    // Game 3, then game 2 again.
    wait_for(&journal_path, "game 3's end", |j| {
        j.iter().any(|e| e["type"] == "end" && e["game"] == 2)
    });
    wait_for(&journal_path, "game 2 again", |j| moves_of(j, 1) >= 4);
    c.say("shutdown");
    let Console { server, out, .. } = c;
    let (rest, _) = finish_referee(server, out, Duration::from_secs(60));
    assert!(rest.contains("event over: 2 games"), "{rest}");

    let pgn = games(&dir.join("games.pgn"));
    let rounds: Vec<(&str, &str, &str)> = pgn
        .iter()
        .map(|g| (tag(g, "Round"), tag(g, "Result"), tag(g, "Termination")))
        .collect();
    assert_eq!(rounds.len(), 3, "{rounds:?}");
    assert_eq!(rounds[0], ("1", "1/2-1/2", "adjudication"));
    assert_eq!(rounds[1].0, "3");
    assert_ne!(rounds[1].1, "*");
    assert_eq!(
        rounds[2],
        ("2", "*", "unterminated"),
        "the cut game, as it stood"
    );
    for who in ["Alpha", "Beta"] {
        let told = closing_informs(&dir.join("logs/event.log"), who);
        let results: Vec<(String, String, String)> = told
            .iter()
            .map(|l| {
                let v = |t: &str| {
                    let at = l.find(&format!("{t} \"")).unwrap() + t.len() + 2;
                    l[at..at + l[at..].find('"').unwrap()].to_string()
                };
                (v("Round"), v("Result"), v("Termination"))
            })
            .collect();
        let want: Vec<(String, String, String)> = [
            ("1", "1/2-1/2", "adjudication"),
            ("2", "*", "unterminated"),
            ("3", rounds[1].1, rounds[1].2),
            ("2", "*", "unterminated"),
        ]
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
        assert_eq!(results, want, "{who} was told");
        // Nobody was told of a disconnection or an abandoned game.
        let concludes = std::fs::read_to_string(dir.join("logs/event.log")).unwrap();
        assert!(
            !concludes
                .lines()
                .any(|l| l.contains("refcom conclude;") && l.contains("disconnects")),
            "a conclude speaks of a disconnection"
        );
    }
}

/// A killed event started again without `--resume` is refused (exit 2,
/// the journal and PGN untouched); `--fresh` keeps the old journal as
/// `event.journal.1` and plays the event anew. Before, the journal was
/// emptied and the PGN appended to, game 1 twice.
#[test]
fn an_unfinished_event_is_never_started_over() {
    let (dir, cfg, journal_path, _) = killed_event(
        "argus-again",
        "rounds = 2\ntime_control = \"st=0.05\"\nmax_moves = 8\n",
        1,
        2,
    );
    let journal_before = std::fs::read(&journal_path).unwrap();
    let pgn_before = std::fs::read(dir.join("games.pgn")).unwrap();
    assert_eq!(games(&dir.join("games.pgn")).len(), 1);

    let again = crate::common::rookery(&background(&cfg, &[]), b"");
    again.assert_code(2);
    let err = again.stderr_text();
    assert!(
        err.contains("unfinished event") && err.contains("--resume") && err.contains("--fresh"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&journal_path).unwrap(),
        journal_before,
        "journal untouched"
    );
    assert_eq!(
        std::fs::read(dir.join("games.pgn")).unwrap(),
        pgn_before,
        "PGN untouched"
    );

    let (fresh, _, out) = serve(&cfg, &["--fresh"]);
    let (rest, _) = finish_referee(fresh, out, Duration::from_secs(60));
    assert!(rest.contains("event over: 2 games"), "{rest}");
    assert_eq!(
        std::fs::read(dir.join("logs/event.journal.1")).unwrap(),
        journal_before
    );
    // The old run's game went with its journal; the new PGN holds the new
    // run's two games.
    assert_eq!(std::fs::read(dir.join("games.pgn.1")).unwrap(), pgn_before);
    let now = games(&dir.join("games.pgn"));
    let rounds: Vec<&str> = now.iter().map(|g| tag(g, "Round")).collect();
    assert_eq!(rounds, ["1", "2"]);
}

/// The pids of the players' programs in the journal at `path` (its
/// `process` entries).
fn journaled_pids(path: &Path) -> Vec<u64> {
    journal(path)
        .iter()
        .filter(|e| e["type"] == "process")
        .map(|e| e["pid"].as_u64().unwrap())
        .collect()
}

/// A one-round event killed in the middle of its game (see
/// [`killed_event`]), and the pids of the two programs it had started for
/// the players, both journaled.
fn killed_mid_game(tag: &str) -> (TempDir, PathBuf, PathBuf, String, Vec<u64>) {
    let (dir, cfg, journal_path, addr) = killed_event(
        tag,
        "rounds = 1\ntime_control = \"st=0.05\"\nmax_moves = 30\n",
        0,
        4,
    );
    let pids = journaled_pids(&journal_path);
    assert_eq!(pids.len(), 2, "both programs are journaled");
    (dir, cfg, journal_path, addr, pids)
}

fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

/// A referee killed with SIGKILL leaves the players' programs it started
/// running (their own process group); the next run ends them before it
/// starts new ones, and the event's end leaves none of either run. Before,
/// each kill left them, and the orphans fought the new ones for the names.
/// The resumed referee, asked for any port, takes its old one again.
#[test]
fn programs_left_by_a_killed_referee_are_ended_and_the_port_is_kept() {
    let (_dir, cfg, journal_path, addr, pids) = killed_mid_game("argus-orphans");
    assert!(pids.iter().all(|&p| alive(p)), "the kill left them running");

    let (second, addr2, mut out) = serve(&cfg, &["--resume"]);
    assert_eq!(addr2, addr, "the old port, free again, is taken");
    line_after(&mut out, "resumed from the journal");
    assert!(
        pids.iter().all(|&p| !alive(p)),
        "the old programs are ended at start"
    );
    let (rest, _) = finish_referee(second, out, Duration::from_secs(60));
    assert!(rest.contains("event over: 1 games"), "{rest}");
    let all = journaled_pids(&journal_path);
    assert_eq!(all.len(), 4);
    assert!(
        all.iter().all(|&p| !alive(p)),
        "none is left after the event"
    );
}

/// A `process` entry added to the journal by hand, naming an unrelated
/// process (its pid and start time copied from `/proc`, in a process group
/// of its own like the players' programs), ends nothing on `--resume`: the
/// referee ends only a process holding the run id it put in the
/// environment of the programs it started, and the entry cannot put it
/// there. The genuine programs of the killed run are still ended. Before,
/// the pid and start time were trusted and the unrelated group was killed.
#[test]
fn a_forged_process_entry_ends_no_unrelated_process() {
    use std::os::unix::process::CommandExt;
    let (_dir, cfg, journal_path, _addr, genuine) = killed_mid_game("argus-forged");
    let mut stranger = std::process::Command::new("sleep");
    stranger.arg("600").process_group(0);
    let stranger = Proc(stranger.spawn().unwrap());
    let pid = stranger.0.id();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let since: u64 = stat
        .rsplit(')')
        .next()
        .and_then(|rest| rest.split_whitespace().nth(19))
        .and_then(|t| t.parse().ok())
        .unwrap();
    let mut text = std::fs::read_to_string(&journal_path).unwrap();
    assert!(text.ends_with('\n'), "the killed run left whole lines");
    // Without a run id, and with one the stranger does not hold.
    text.push_str(&format!(
        "{{\"type\":\"process\",\"player\":\"Alpha\",\"pid\":{pid},\"since\":{since}}}\n\
         {{\"type\":\"process\",\"player\":\"Beta\",\"pid\":{pid},\"since\":{since},\"run\":\"{}\"}}\n",
        "0".repeat(32)
    ));
    std::fs::write(&journal_path, text).unwrap();

    let (second, _, mut out) = serve(&cfg, &["--resume"]);
    line_after(&mut out, "resumed from the journal");
    assert!(alive(u64::from(pid)), "the stranger is not ended");
    assert!(
        genuine.iter().all(|&p| !alive(p)),
        "the killed run's programs are"
    );
    let (rest, _) = finish_referee(second, out, Duration::from_secs(60));
    assert!(rest.contains("event over: 1 games"), "{rest}");
    assert!(!rest.contains(&format!("(process {pid})")), "{rest}");
    assert!(alive(u64::from(pid)), "nor at the event's end");
    drop(stranger);
}

/// An event file's `openings` and `date` reach the games: each game starts
/// from its book position (FEN tag, the book's moves first) and the PGN's
/// `Date` is the event's, as the players are told.
#[test]
fn an_events_openings_and_date_reach_the_games() {
    let dir = TempDir::new("argus-book");
    std::fs::write(
        dir.join("book.pgn"),
        "[Event \"b\"]\n\n1. d4 d5 2. c4 *\n\n[Event \"c\"]\n\n1. e4 c5 *\n",
    )
    .unwrap();
    let cfg = event(
        dir.path(),
        "rounds = 2\ntime_control = \"st=0.05\"\nmax_moves = 6\ndate = \"2025.05.05\"\n\
         openings = \"file=book.pgn\"\n",
    );
    let (server, _, out) = serve(&cfg, &[]);
    let (rest, _) = finish_referee(server, out, Duration::from_secs(60));
    assert!(rest.contains("event over: 2 games"), "{rest}");
    let g = games(&dir.join("games.pgn"));
    assert_eq!(g.len(), 2);
    for (game, first) in g.iter().zip([["d4", "d5", "c4"], ["e4", "c5", ""]]) {
        assert_eq!(tag(game, "Date"), "2025.05.05");
        let sans = pgn_text::sans(game);
        let book: Vec<&str> = first.iter().copied().filter(|m| !m.is_empty()).collect();
        assert_eq!(sans[..book.len()], book[..], "{game}");
    }
    let log = std::fs::read_to_string(dir.join("logs/event.log")).unwrap();
    assert!(
        log.contains("Date \"2025.05.05\""),
        "the players are told the date"
    );
    assert!(
        log.lines()
            .any(|l| l.contains("refcom execute;") && l.contains("sm d4;")),
        "the book moves are sent as execute records"
    );
}
