//! `rookery match` with xboard engines (`proto=xboard`, issue 34): Debian's
//! Fairy-Max, Phalanx and GNU Chess play the built-in engine, two games
//! each (colours reversed), and every game is judged by python-chess and
//! pgn-extract (python/match_check.py): legal moves only, an ending by a
//! rule (mate, a draw rule, a resignation, the `--maxmoves` adjudication),
//! no time forfeit. An engine that cannot start is reported; `proto=` is
//! checked like every engine word.
//!
//! The peers are looked up on PATH and in /usr/games; a missing one fails
//! the test when `CI` is set and skips it with a note otherwise. The games
//! are short (`--maxmoves`), and run one match at a time so that the
//! engines' clocks do not compete for the machine.

use crate::common;
use rookery_testkit::{peer, TempDir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// One real-engine match at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn path_str(p: &Path) -> String {
    p.to_str().expect("temporary paths are UTF-8").to_string()
}

/// python-chess and pgn-extract judge every game of `pgn`; panics on any
/// problem and returns the facts of each game (see python/match_check.py).
fn judge(pgn: &Path) -> Vec<Value> {
    let python = peer::python_chess().expect("python-chess was checked by the caller");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/match_check.py");
    let mut cmd = Command::new(python);
    cmd.arg(script).arg(pgn);
    if let Some(pe) = peer::find(&["pgn-extract"], None) {
        cmd.arg(pe);
    }
    let out = cmd.output().expect("run python3");
    assert!(
        out.status.success(),
        "match_check.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("match_check.py prints JSON");
    let problems = v["problems"].as_array().cloned().unwrap_or_default();
    assert!(
        problems.is_empty(),
        "python-chess / pgn-extract disagree with the PGN:\n{problems:#?}\n\n{}",
        std::fs::read_to_string(pgn).unwrap_or_default()
    );
    v["games"].as_array().cloned().unwrap_or_default()
}

/// The program `name` (on PATH or in /usr/games) and python-chess, or
/// `None` (a skip) when either is missing outside CI.
fn peers(name: &str) -> Option<PathBuf> {
    let engine = peer::require(name, &[name], None)?;
    peer::python_chess()?;
    Some(engine)
}

/// Plays two games (colours reversed) between `engine` (with its words)
/// and the built-in engine, with `each` for both and the match flags
/// `flags`; checks the run and the games, and returns the games and the
/// engines' log (what rookery sent and what they said).
fn two_games(t: &TempDir, engine: &[&str], each: &[&str], flags: &[&str]) -> (Vec<Value>, String) {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let pgn = t.join("games.pgn");
    let log = t.join("engines.log");
    let (pgn_s, log_s) = (path_str(&pgn), path_str(&log));
    let mut args = vec!["match", "--engine"];
    args.extend(engine);
    args.extend(["--engine", "cmd=builtin", "--each"]);
    args.extend(each);
    args.extend(["--games", "2", "--pgnout", &pgn_s, "--log", &log_s]);
    args.extend(flags);
    let run = common::rookery(&args, b"");
    run.assert_code(0);
    assert!(
        run.stdout_text().contains("time forfeits: 0"),
        "{}",
        run.describe()
    );
    let games = judge(&pgn);
    assert_eq!(games.len(), 2, "{}", run.describe());
    for g in &games {
        let term = g["termination"].as_str().unwrap_or_default();
        assert!(
            term == "normal" || term == "adjudication",
            "a game that did not end by a rule: {g:#}\n{}",
            run.describe()
        );
    }
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    (games, log_text)
}

/// The lines of the log from the engine (its label starts with `label`)
/// that rookery sent (`<`) or received (`>`).
fn said(log: &str, label: &str, dir: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| {
            let rest = l.trim_start().split_once(' ')?.1;
            let rest = rest.strip_prefix(label)?;
            let (_, text) = rest.split_once(&format!(" {dir} "))?;
            Some(text.to_string())
        })
        .collect()
}

/// The issue's command: Fairy-Max (an engine without setboard, with
/// options) against the built-in engine at 10+0.1, its options set from
/// `option.` words, `proto` kept in the journal for `--resume`.
#[test]
fn fairy_max_plays_the_builtin_engine() {
    let Some(fairymax) = peers("fairymax") else {
        return;
    };
    let t = TempDir::new("xboard-fairymax");
    let cmd = format!("cmd={}", fairymax.display());
    let (games, log) = two_games(
        &t,
        &[
            &cmd,
            "proto=xboard",
            "option.Resign Threshold=900",
            "option.Hash=16",
        ],
        &["tc=10+0.1", "timemargin=200"],
        &["--maxmoves", "5"],
    );
    let names: Vec<&str> = games
        .iter()
        .flat_map(|g| [&g["white"], &g["black"]])
        .filter_map(Value::as_str)
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("Fairy-Max")),
        "its myname: {names:?}"
    );
    let sent = said(&log, "fairymax", "<");
    for line in [
        "protover 2",
        "accepted done",
        "option Resign Threshold=900",
        "memory 16",
        "new",
        "post",
        "easy",
        "level 0 0:10 0.1",
    ] {
        assert!(
            sent.iter().any(|l| l == line),
            "{line:?} not sent: {sent:#?}"
        );
    }
    let journal = std::fs::read_to_string(t.join("games.pgn.journal")).unwrap_or_default();
    assert!(journal.contains(r#""proto":"xboard""#), "{journal}");
}

/// Phalanx (`-l-`: no learning file written) against the built-in engine.
#[test]
fn phalanx_plays_the_builtin_engine() {
    let Some(phalanx) = peers("phalanx") else {
        return;
    };
    let t = TempDir::new("xboard-phalanx");
    let cmd = format!("cmd={}", phalanx.display());
    let (games, log) = two_games(
        &t,
        &[&cmd, "arg=-l-", "proto=xboard"],
        &["tc=2+0.05", "timemargin=200"],
        &["--maxmoves", "20"],
    );
    assert!(
        games.iter().any(|g| g["white"]
            .as_str()
            .is_some_and(|n| n.starts_with("Phalanx"))),
        "{games:#?}"
    );
    assert!(said(&log, "phalanx", ">")
        .iter()
        .any(|l| l.starts_with("move ")));
}

/// GNU Chess (`--xboard`), whose features come only as input arrives,
/// against the built-in engine from an EPD opening book (set up with
/// `setboard`, which it asks for).
#[test]
fn gnu_chess_plays_the_builtin_engine() {
    let Some(gnuchess) = peers("gnuchess") else {
        return;
    };
    let t = TempDir::new("xboard-gnuchess");
    let cmd = format!("cmd={}", gnuchess.display());
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-small.epd");
    let openings = format!("file={book}");
    let (games, log) = two_games(
        &t,
        &[&cmd, "arg=--xboard", "proto=xboard"],
        &["tc=2+0.05", "timemargin=200"],
        &["--maxmoves", "20", "--openings", &openings],
    );
    for g in &games {
        assert!(
            g["fen_tag"].is_string(),
            "games from the book's positions: {g:#}"
        );
    }
    assert!(
        games.iter().any(|g| g["black"] == "GNU Chess"),
        "its myname: {games:#?}"
    );
    let sent = said(&log, "gnuchess", "<");
    assert!(sent.iter().any(|l| l.starts_with("setboard ")), "{sent:#?}");
    assert!(sent.iter().any(|l| l == "accepted usermove"), "{sent:#?}");
}

/// An xboard engine that cannot be started is reported before any game;
/// `proto=` takes only `uci` and `xboard`.
#[test]
fn an_engine_that_cannot_start_and_a_bad_proto() {
    let t = TempDir::new("xboard-absent");
    let pgn = path_str(&t.join("absent.pgn"));
    let missing = format!("cmd={}", path_str(&t.join("no-such-engine")));
    let run = common::rookery(
        &[
            "match",
            "--engine",
            &missing,
            "proto=xboard",
            "name=ghost",
            "--engine",
            "cmd=builtin",
            "--each",
            "tc=1+0.01",
            "--rounds",
            "2",
            "--pgnout",
            &pgn,
        ],
        b"",
    );
    // Every engine is started once before the first game: one that cannot
    // start is no match (status 2), named with its reason.
    run.assert_code(2);
    assert!(
        run.stderr_text().contains("engine ghost:"),
        "{}",
        run.describe()
    );
    assert!(
        !t.join("absent.pgn").exists()
            || std::fs::read_to_string(&pgn).unwrap_or_default().is_empty()
    );

    let run = common::rookery(
        &[
            "match",
            "--engine",
            "cmd=builtin",
            "proto=cecp",
            "--engine",
            "cmd=builtin",
            "--each",
            "tc=1",
        ],
        b"",
    );
    run.assert_code(2);
    assert!(
        run.stderr_text().contains("expected uci or xboard"),
        "{}",
        run.describe()
    );
}

/// An engine that cannot take its configuration is refused before the first
/// game, naming the engine and the word (before: Fairy-Max, which has no
/// `nps`, lost every game "at new game" with 0 moves, and with `--recover`
/// forfeited them all and stood at -inf): cutechess-cli's words, as an
/// engine author's script writes them.
#[test]
fn an_engine_that_cannot_take_its_limits_is_refused_before_any_game() {
    let Some(fairymax) = peer::require("fairymax", &["fairymax"], None) else {
        return;
    };
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let t = TempDir::new("xboard-nps");
    let pgn = path_str(&t.join("games.pgn"));
    let cmd = format!("cmd={}", fairymax.display());
    for recover in [false, true] {
        let mut args = vec![
            "match",
            "cutechess-cli",
            "-engine",
            &cmd,
            "name=fm",
            "proto=xboard",
            "tc=inf",
            "nodes=1000",
            "-engine",
            "cmd=builtin",
            "name=rookery",
            "tc=inf",
            "nodes=1000",
            "-games",
            "2",
            "-pgnout",
            &pgn,
        ];
        if recover {
            args.push("-recover");
        }
        let run = common::rookery(&args, b"");
        run.assert_code(2);
        let err = run.stderr_text();
        assert!(
            err.contains("fm") && err.contains("nodes=1000") && err.contains("nps"),
            "recover {recover}: {}",
            run.describe()
        );
        assert!(
            !run.stdout_text().contains("Finished game"),
            "recover {recover}: {}",
            run.describe()
        );
        assert!(
            std::fs::read_to_string(&pgn).unwrap_or_default().is_empty(),
            "recover {recover}: no game is written"
        );
    }
}
