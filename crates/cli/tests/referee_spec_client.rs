//! The Argus referee against a client written from the EPD spec's text
//! alone (`tests/python/argus_spec_client.py`: raw sockets, python-chess for
//! the rules of chess, nothing of rookery's). It sends only what the spec
//! requires — replies carry the four data fields and `sm`, no `hmvc`, no
//! `fmvn` — and handles every referee command as §8.1 says, taking the
//! referee's position with no history whenever it is not its own.
//!
//! Events pit it against `rookery referee connect --engine builtin` and
//! against itself through every ending: mate, draw by agreement (offered by
//! either side), resignation, illegal move, time forfeit. Every game is
//! checked: the PGN's `Result` and `Termination`; that no correct reply
//! lost by "rules infraction"; that every record after the game's last
//! move (the closing `inform` and `conclude`) carries the game's final
//! position, en passant square as §4.4 writes it, with its halfmove clock
//! and fullmove number, for both players; that the spec client never had
//! to drop its game history in mid-game; and that every record it got is
//! valid EPD (§4, §5).
//!
//! Peer: python3 with python-chess. When `CI` is set and it is missing the
//! tests fail; otherwise they skip with a note on stderr.

use crate::common;

use std::io::BufReader;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use rookery_testkit::cmd::{Cmd, KillOnDrop};
use rookery_testkit::{peer, pgn_text, TempDir};
use serde_json::Value;

const ROOKERY: &str = env!("CARGO_BIN_EXE_rookery");
const SPEC_CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/argus_spec_client.py"
);

/// The longest a whole event may take (they take a few seconds).
const EVENT_LIMIT: Duration = Duration::from_secs(90);

/// Clocks for games that end by a scripted move: short, with room for a
/// loaded machine.
const SHORT: &str = "time_control = \"5+0.05\"\ntime_margin_ms = 300";
/// Clocks for games lost on time: a client sleeps 2.5 s with 1 s on its
/// clock (the engine, moving in well under a second, never comes near).
const FORFEIT: &str = "time_control = \"1+0.05\"\ntime_margin_ms = 300";

/// A player of an event and how it behaves.
#[derive(Clone, Copy)]
enum Client {
    /// The spec client with these flags.
    Spec(&'static [&'static str]),
    /// `rookery referee connect --engine builtin` with these flags.
    Engine(&'static [&'static str]),
}

/// A finished event: its directory, the PGN's games, the final position of
/// each (FEN by python-chess, en passant as §4.4), and each spec client's
/// summary by name.
struct Played {
    dir: TempDir,
    games: Vec<String>,
    finals: Vec<String>,
    spec: Vec<(String, Value)>,
    engines: Vec<String>,
}

fn python_ready() -> bool {
    peer::python_chess().is_some()
}

/// Waits for a client to end (bounded: it is killed after `limit`, or
/// when the test fails before); returns its stdout and stderr.
fn wait_client(child: KillOnDrop, limit: Duration, what: &str) -> (String, String) {
    let mut child = child;
    let child: &mut Child = &mut child.0;
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            panic!("{what} did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    common::read_out_err(child)
}

/// Serves a one-round event of `games` games between `a` and `b` (named
/// "A" and "B", listed in that order) with the `[event]` settings `clocks`,
/// and plays it to its end.
fn play(tag: &str, games: u32, clocks: &str, a: Client, b: Client) -> Played {
    let dir = TempDir::new(tag);
    let config = dir.write(
        "event.toml",
        format!(
            "[event]\nname = \"Spec client\"\nsite = \"loopback\"\npgn = \"games.pgn\"\n\
             log_dir = \"logs\"\nrounds = 1\ngames = {games}\npairing = \"round-robin\"\n\
             quiet_period_ms = 50\nhandshake_timeout_ms = 20000\n{clocks}\n\
             [[player]]\nname = \"A\"\ntoken = \"a-secret\"\n\
             [[player]]\nname = \"B\"\ntoken = \"b-secret\"\n"
        ),
    );
    let (server, addr, out): (KillOnDrop, String, BufReader<ChildStdout>) = Cmd::new(ROOKERY)
        .args(["referee", "serve", "--config"])
        .arg(&config)
        .args(["--listen", "127.0.0.1:0", "--background", "--no-web"])
        .start("listening on ");
    let mut specs = Vec::new();
    let mut engines = Vec::new();
    let mut engine_procs = Vec::new();
    for (name, token, client) in [("A", "a-secret", a), ("B", "b-secret", b)] {
        match client {
            Client::Spec(flags) => {
                let child = KillOnDrop(
                    Command::new("python3")
                        .arg(SPEC_CLIENT)
                        .args([&addr, name, token])
                        .args(flags)
                        .arg("--timeout")
                        .arg("30")
                        .arg("--log")
                        .arg(dir.join(format!("spec-{name}.log")))
                        .stdin(Stdio::null())
                        .stdout(Stdio::piped())
                        .stderr(Stdio::piped())
                        .spawn()
                        .unwrap(),
                );
                specs.push((name.to_string(), child));
            }
            Client::Engine(flags) => {
                engine_procs.push(KillOnDrop(
                    Command::new(ROOKERY)
                        .args(["referee", "connect", &addr, "--engine", "builtin"])
                        .args(["--name", name, "--token", token, "--no-reconnect"])
                        .args(flags)
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn()
                        .unwrap(),
                ));
                engines.push(name.to_string());
            }
        }
    }
    let mut server = server;
    let (rest, _) = rookery_testkit::cmd::finish(&mut server.0, out, EVENT_LIMIT, "server");
    assert!(
        rest.contains(&format!("event over: {games} games")),
        "{rest}"
    );
    let spec = specs
        .into_iter()
        .map(|(name, child)| {
            let (out, err) = wait_client(child, Duration::from_secs(30), "the spec client");
            let summary: Value = serde_json::from_str(out.trim())
                .unwrap_or_else(|e| panic!("spec client {name}: {e}\n{out}\n{err}"));
            (name, summary)
        })
        .collect();
    let pgn_path = dir.join("games.pgn");
    let pgn = std::fs::read_to_string(&pgn_path).unwrap();
    let games = pgn_text::games(&pgn);
    let finals = Command::new("python3")
        .arg(SPEC_CLIENT)
        .arg("--finals")
        .arg(&pgn_path)
        .output()
        .unwrap();
    assert!(finals.status.success(), "{finals:?}");
    let finals: Vec<String> = serde_json::from_slice(&finals.stdout).unwrap();
    assert_eq!(finals.len(), games.len());
    Played {
        dir,
        games,
        finals,
        spec,
        engines,
    }
}

fn tag<'a>(game: &'a str, name: &str) -> &'a str {
    pgn_text::tag(game, name).unwrap_or_else(|| panic!("no {name} tag in {game}"))
}

/// The position of a referee record as a FEN: its four data fields, then
/// its `hmvc` and `fmvn` operands ("-" for one it does not carry).
fn record_fen(line: &str) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    let op = |name: &str| {
        words[4..]
            .windows(2)
            .find(|w| w[0] == name)
            .map_or("-", |w| w[1].trim_end_matches(';'))
    };
    format!("{} {} {}", words[..4].join(" "), op("hmvc"), op("fmvn"))
}

/// The records the referee sent to `name` after each game's last move (the
/// closing `inform` with its result, then `conclude`), from its log: each
/// as its command and position.
fn end_records(logs: &Path, name: &str) -> Vec<Vec<(&'static str, String)>> {
    let log = std::fs::read_to_string(logs.join(format!("player-{name}.log"))).unwrap();
    let mut games = Vec::new();
    let mut current = Vec::new();
    for line in log.lines().filter(|l| l.contains("Logdir sent;")) {
        if line.contains("refcom inform;") && !line.contains("Result \"*\"") {
            current.push(("inform", record_fen(line)));
        } else if line.contains("refcom conclude;") {
            current.push(("conclude", record_fen(line)));
            games.push(std::mem::take(&mut current));
        }
    }
    games
}

/// A FEN as a position, clocks included.
fn position(fen: &str) -> rookery_core::Position {
    rookery_core::Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Checks every game of an event: `expect(white, black)` gives the result
/// and termination the scripted behaviour must produce. `late` names the
/// spec client that loses on time, if one does: its reply, sent after the
/// game ended, may get a fault for being out of turn or find the referee
/// gone.
fn check(
    played: &Played,
    expect: impl Fn(&str, &str) -> (&'static str, &'static str),
    late: Option<&str>,
) {
    let where_ = played.dir.path().display().to_string();
    for (i, g) in played.games.iter().enumerate() {
        let (white, black) = (tag(g, "White"), tag(g, "Black"));
        let got = (tag(g, "Result"), tag(g, "Termination"));
        assert_ne!(
            got.1,
            "rules infraction",
            "game {} lost by a rules infraction (logs in {where_}):\n{g}",
            i + 1
        );
        assert_eq!(
            got,
            expect(white, black),
            "game {} (logs in {where_}):\n{g}",
            i + 1
        );
    }
    for (name, s) in &played.spec {
        let ctx = format!("spec client {name} (logs in {where_}): {s:#}");
        assert_eq!(s["invalid"], Value::Array(vec![]), "records not EPD: {ctx}");
        assert_eq!(s["errors"], Value::Array(vec![]), "{ctx}");
        let is_late = late == Some(name.as_str());
        for f in s["faults"].as_array().unwrap() {
            let f = f.as_str().unwrap();
            assert!(
                is_late && f.contains("out of turn"),
                "unexpected fault {f:?}: {ctx}"
            );
        }
        let failures = s["send_failures"].as_array().unwrap();
        assert!(is_late || failures.is_empty(), "{ctx}");
        assert!(failures.len() <= 1, "{ctx}");
        let games = s["games"].as_array().unwrap();
        assert_eq!(games.len(), played.games.len(), "{ctx}");
        for (j, (g, pgn)) in games.iter().zip(&played.games).enumerate() {
            let final_fen = &played.finals[j];
            assert_eq!(
                g["tags"]["Result"],
                tag(pgn, "Result"),
                "game {}: {ctx}",
                j + 1
            );
            assert_eq!(
                g["tags"]["Termination"],
                tag(pgn, "Termination"),
                "game {}: {ctx}",
                j + 1
            );
            assert_eq!(
                g["resyncs"],
                Value::Array(vec![]),
                "game {}: the referee's position was not the client's in mid-game: {ctx}",
                j + 1
            );
            let ends: Vec<String> = g["after_last_move"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    format!(
                        "{} {}",
                        e["record"].as_str().unwrap(),
                        e["fen"].as_str().unwrap()
                    )
                })
                .collect();
            assert_eq!(
                ends,
                [
                    format!("inform {final_fen}"),
                    format!("conclude {final_fen}")
                ],
                "game {}: the records after the last move are not on the final position: {ctx}",
                j + 1
            );
        }
    }
    let logs = played.dir.join("logs");
    // The engine's side, from the log (which writes an en passant square
    // only where a capture is possible: positions compared as such).
    for name in &played.engines {
        let ends = end_records(&logs, name);
        assert_eq!(ends.len(), played.games.len(), "{name} in {where_}");
        for (j, e) in ends.iter().enumerate() {
            let f = &played.finals[j];
            let kinds: Vec<&str> = e.iter().map(|(k, _)| *k).collect();
            assert_eq!(kinds, ["inform", "conclude"], "{name}, game {}", j + 1);
            for (kind, fen) in e {
                assert!(
                    position(fen) == position(f),
                    "{name}, game {}: {kind} on {fen}, not on the final position {f} (logs in {where_})",
                    j + 1
                );
            }
        }
    }
    // The spec clients' replies carry only what the spec requires.
    for (name, _) in &played.spec {
        let log = std::fs::read_to_string(logs.join(format!("player-{name}.log"))).unwrap();
        let replies: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("Logdir received;") && l.contains("refreq reply;"))
            .collect();
        assert!(!replies.is_empty(), "{name} replied to nothing ({where_})");
        for r in replies {
            for op in [" hmvc ", " fmvn ", " tcsi "] {
                assert!(!r.contains(op), "{op} in {r}");
            }
        }
    }
    // Every record of the event, both ways, is EPD to rookery too.
    let files = rookery_testkit::files_with_extension(&logs, "log");
    let files: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    let mut args = vec!["epd", "validate"];
    args.extend(files);
    common::rookery(&args, b"").assert_code(0);
}

/// Result for a win by `winner` ("A" or "B") in a game of `white`.
fn win(winner: &str, white: &str) -> &'static str {
    if winner == white {
        "1-0"
    } else {
        "0-1"
    }
}

#[test]
fn spec_client_offers_a_draw_the_engine_accepts() {
    if !python_ready() {
        return;
    }
    let p = play(
        "spec-draw-offer",
        2,
        SHORT,
        Client::Spec(&["--seed", "3", "--offer-draw-at", "2"]),
        Client::Engine(&["--accept-cp", "100000"]),
    );
    check(&p, |_, _| ("1/2-1/2", "normal"), None);
}

#[test]
fn the_engine_offers_a_draw_the_spec_client_accepts() {
    if !python_ready() {
        return;
    }
    let p = play(
        "spec-draw-accept",
        2,
        SHORT,
        Client::Spec(&["--seed", "4", "--accept-draw"]),
        Client::Engine(&[
            "--draw-cp",
            "100000",
            "--draw-moves",
            "1",
            "--draw-from",
            "1",
        ]),
    );
    check(&p, |_, _| ("1/2-1/2", "normal"), None);
}

#[test]
fn spec_client_resigns_to_the_engine() {
    if !python_ready() {
        return;
    }
    let p = play(
        "spec-resign",
        2,
        SHORT,
        Client::Spec(&["--seed", "5", "--resign-at", "3"]),
        Client::Engine(&[]),
    );
    check(&p, |w, _| (win("B", w), "normal"), None);
}

#[test]
fn spec_client_plays_an_illegal_move_against_the_engine() {
    if !python_ready() {
        return;
    }
    let p = play(
        "spec-illegal",
        2,
        SHORT,
        Client::Spec(&["--seed", "6", "--illegal-at", "3"]),
        Client::Engine(&[]),
    );
    check(&p, |w, _| (win("B", w), "illegal move"), None);
}

#[test]
fn spec_client_loses_on_time_to_the_engine() {
    if !python_ready() {
        return;
    }
    let p = play(
        "spec-forfeit",
        1,
        FORFEIT,
        Client::Spec(&["--seed", "7", "--sleep-at", "2", "--sleep", "2.5"]),
        Client::Engine(&[]),
    );
    check(&p, |w, _| (win("B", w), "time forfeit"), Some("A"));
}

#[test]
fn spec_clients_play_fools_mate() {
    if !python_ready() {
        return;
    }
    let fools = &["--white-moves", "f3,g4", "--black-moves", "e5,Qh4#"];
    let p = play(
        "spec-mate",
        2,
        SHORT,
        Client::Spec(fools),
        Client::Spec(fools),
    );
    check(&p, |_, _| ("0-1", "normal"), None);
    for f in &p.finals {
        let pos = position(f);
        assert!(
            pos.legal_moves().is_empty() && pos.checkers().nonempty(),
            "{f}"
        );
    }
}

/// The opponent of the scripted spec client: knights out first (so the
/// halfmove clock moves), then random moves.
const KNIGHTS: &[&str] = &[
    "--seed",
    "8",
    "--white-moves",
    "Nf3",
    "--black-moves",
    "Nf6",
];

#[test]
fn spec_client_resigns_to_a_spec_client() {
    if !python_ready() {
        return;
    }
    let p = play(
        "spec-spec-resign",
        2,
        SHORT,
        Client::Spec(KNIGHTS),
        Client::Spec(&[
            "--white-moves",
            "Nc3",
            "--black-moves",
            "Nc6",
            "--resign-at",
            "3",
        ]),
    );
    check(&p, |w, _| (win("A", w), "normal"), None);
}

#[test]
fn spec_client_plays_an_illegal_move_against_a_spec_client() {
    if !python_ready() {
        return;
    }
    let p = play(
        "spec-spec-illegal",
        2,
        SHORT,
        Client::Spec(KNIGHTS),
        Client::Spec(&["--seed", "9", "--illegal-at", "3"]),
    );
    check(&p, |w, _| (win("A", w), "illegal move"), None);
}

#[test]
fn spec_clients_agree_a_draw() {
    if !python_ready() {
        return;
    }
    let p = play(
        "spec-spec-draw",
        2,
        SHORT,
        Client::Spec(&[
            "--seed",
            "10",
            "--white-moves",
            "e4,Nf3",
            "--black-moves",
            "e5,Nc6",
            "--offer-draw-at",
            "3",
        ]),
        Client::Spec(&["--seed", "11", "--accept-draw"]),
    );
    check(&p, |_, _| ("1/2-1/2", "normal"), None);
}

#[test]
fn spec_client_loses_on_time_to_a_spec_client() {
    if !python_ready() {
        return;
    }
    let p = play(
        "spec-spec-forfeit",
        1,
        FORFEIT,
        Client::Spec(KNIGHTS),
        Client::Spec(&["--seed", "12", "--sleep-at", "2", "--sleep", "2.5"]),
    );
    check(&p, |w, _| (win("A", w), "time forfeit"), Some("B"));
}
