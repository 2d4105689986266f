//! Acceptance tests of `rookery match` (issue 14), end to end against the
//! built binaries:
//!
//! - real games between the built-in engine and Stockfish, Glaurung and
//!   Toga II, every game replayed and judged by python-chess and read again
//!   by pgn-extract (python/match_check.py);
//! - endings forced from EPD openings (mate, stalemate, fifty moves,
//!   insufficient material after a capture, threefold repetition);
//! - engine failures played out with `rookery-mock-engine` (crash with and
//!   without `--recover`, hang on a clock and without one, illegal move, no
//!   handshake);
//! - `kill -9` in the middle of a game and `--resume` (a torn journal line
//!   included);
//! - usage errors, `--json`, `--epdout`, `--log`, and 64 concurrent games.
//!
//! Peers (Stockfish, Glaurung, Toga II, python-chess, pgn-extract) are
//! looked up on PATH and in /usr/games. A test that needs a missing peer
//! fails when the environment variable `CI` is set and is skipped with a
//! note otherwise. The mock engine is the sibling of the `rookery` binary
//! (built by `cargo test --workspace`; built on demand otherwise, or taken
//! from `ROOKERY_MOCK_ENGINE`).

use crate::common::{assert_stdout_has, cmd, describe, mock_engine, rookery, s, text};
use rookery_testkit::cmd::{argv, assert_contains_all};
use rookery_testkit::{peer, pgn_text, TempDir};
use serde_json::Value;
use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A liveness bound for one `rookery match` run (not a speed assertion).
const RUN_LIMIT: Duration = Duration::from_secs(600);

/// Whether python-chess (1.11.2 is the version these checks were written
/// against) and pgn-extract are there (or the test may skip).
fn judges_available() -> bool {
    peer::python_chess().is_some() && peer::pgn_extract().is_some()
}

/// The directory of a test whose games python-chess and pgn-extract judge,
/// or `None` when they are missing (and the test may skip).
fn judged(tag: &str) -> Option<TempDir> {
    judges_available().then(|| TempDir::new(&format!("match-cli-{tag}")))
}

/// Waits for a child, killing it past `limit`.
fn wait_bounded(mut child: Child, limit: Duration) -> Output {
    let t0 = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "rookery match did not finish within {limit:?}\nstdout:\n{}\nstderr:\n{}",
                text(&out.stdout),
                text(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts `rookery match ARGS` with its stdin closed and its output piped.
pub(crate) fn spawn_match<S: AsRef<OsStr>>(args: &[S]) -> Child {
    let mut child = cmd(["match"]).args(args).spawn();
    drop(child.stdin.take());
    child
}

/// Runs `rookery match ARGS` to the end.
pub(crate) fn run_match<S: AsRef<OsStr>>(args: &[S]) -> Output {
    // Drain both pipes on threads so a chatty match cannot block on them.
    let mut child = spawn_match(args);
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut so, &mut v).unwrap();
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut se, &mut v).unwrap();
        v
    });
    let out = wait_bounded(child, RUN_LIMIT);
    Output {
        status: out.status,
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
    }
}

/// python-chess and pgn-extract judge every game of `pgn`; panics on any
/// problem and returns the facts of each game (see python/match_check.py).
fn judge(pgn: &str) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/match_check.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script).arg(pgn);
    if let Some(pe) = peer::find(&["pgn-extract"], None) {
        cmd.arg(pe);
    }
    let out = cmd.output().expect("run python3");
    assert!(out.status.success(), "match_check.py: {}", describe(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("match_check.py prints JSON");
    let problems = v["problems"].as_array().unwrap();
    assert!(
        problems.is_empty(),
        "{pgn}: python-chess / pgn-extract disagree:\n{}\n\nPGN:\n{}",
        problems
            .iter()
            .map(|p| p.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n"),
        std::fs::read_to_string(pgn).unwrap_or_default()
    );
    v["games"].as_array().unwrap().clone()
}

/// The opening book most tests play from.
const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-small.epd");

/// A finished match: what `rookery match` wrote, its PGN file and the games
/// of that file as the judges read them.
struct Played {
    out: Output,
    pgn: String,
    games: Vec<Value>,
}

/// Runs `rookery match` with the arguments `line` (see [`argv`]), in which
/// `{pgn}` is a PGN file in `t`, `{mock}` the mock engine and `{book}`
/// [`BOOK`] unless `vars` say otherwise; checks that it ends with status 0
/// and has the judges read its PGN.
fn played(t: &TempDir, line: &str, vars: &[(&str, &str)]) -> Played {
    let pgn = s(&t.join("games.pgn")).to_string();
    let mock = mock_engine();
    let mut all = vars.to_vec();
    all.extend([
        ("pgn", pgn.as_str()),
        ("mock", mock.as_str()),
        ("book", BOOK),
    ]);
    let out = run_match(&argv(line, &all));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let games = judge(&pgn);
    Played { out, pgn, games }
}

/// The value of a tag in every game of a PGN file, in order (read with no
/// help from rookery or python, to count games).
fn tag_values(pgn: &str, tag: &str) -> Vec<String> {
    let text = std::fs::read_to_string(pgn).unwrap_or_default();
    pgn_text::games(&text)
        .iter()
        .filter_map(|g| pgn_text::tag(g, tag).map(str::to_string))
        .collect()
}

/// A JSON string's text (empty if it is not one).
fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// A game's closing comment with its line breaks (the PGN writer wraps
/// long comments) folded to single spaces.
fn closing(g: &Value) -> String {
    str_of(&g["reason"])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------
// 1. Real games against real engines.
// ---------------------------------------------------------------------

/// A gauntlet of the built-in engine against Stockfish, Glaurung and Toga
/// II (each 2 games, colours reversed, openings drawn from a small book):
/// every move legal for python-chess, every rule ending the one python-chess
/// sees in the final position, and pgn-extract reading the same moves,
/// final FEN and results.
#[test]
fn real_games_against_stockfish_glaurung_and_toga_are_judged_alike() {
    if !judges_available() {
        return;
    }
    let mut opponents = Vec::new();
    for name in ["stockfish", "glaurung", "toga2"] {
        match peer::find(&[name], None) {
            Some(p) => opponents.push(p),
            None => peer::missing::<()>(name).unwrap_or_default(),
        }
    }
    if opponents.is_empty() {
        return;
    }
    let t = TempDir::new("match-cli-real");
    let pgn = s(&t.join("real.pgn")).to_string();
    let mut args: Vec<String> = vec![
        "--engine".into(),
        "cmd=builtin".into(),
        "name=rookery".into(),
    ];
    for p in &opponents {
        args.extend([
            "--engine".into(),
            format!("cmd={}", p.display()),
            "option.Hash=16".into(),
        ]);
    }
    // A clock, with a margin so that a loaded machine rarely flags; a move
    // limit so that a shuffling endgame does not run long. On a loaded
    // machine an engine short of time may still miss its move and then not
    // answer `stop` in the grace period (seen with Glaurung while the whole
    // test suite ran): `--recover` restarts it and the match goes on, the
    // game is a time forfeit, which the checks below accept.
    args.extend(argv(
        "--recover --tournament gauntlet --each tc=1+0.05 timemargin=300 --games 2 \
         --maxmoves 150 --openings file={book} order=random --srand 11 --pgnout {pgn}",
        &[("book", BOOK), ("pgn", &pgn)],
    ));
    let out = run_match(&args);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let games = judge(&pgn);
    assert_eq!(games.len(), 2 * opponents.len(), "{}", describe(&out));
    let book_fens: Vec<String> = std::fs::read_to_string(BOOK)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
        .collect();
    let mut starts = std::collections::BTreeSet::new();
    for g in &games {
        // Each game starts from a book position and the built-in engine plays in it.
        let start: String = str_of(&g["start_fen"])
            .split(' ')
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(book_fens.contains(&start), "{start} is not in the book");
        starts.insert(start);
        assert!(
            str_of(&g["white"]) == "rookery" || str_of(&g["black"]) == "rookery",
            "{g}"
        );
        assert!(!g["moves"].as_array().unwrap().is_empty(), "{g}");
        let term = str_of(&g["termination"]);
        if term == "illegal move" {
            // Short of time on a loaded machine, Glaurung has answered
            // `bestmove 0000` in a position with legal moves: a peer's
            // illegal move loses, as under cutechess-cli. Rookery's never
            // may, and the loss must go to the side that moved.
            let reason = closing(g);
            let (loser, result) = if reason.contains("White makes an illegal move") {
                (str_of(&g["white"]), "0-1")
            } else if reason.contains("Black makes an illegal move") {
                (str_of(&g["black"]), "1-0")
            } else {
                panic!("an illegal move, but not whose: {g}");
            };
            assert_ne!(loser, "rookery", "the built-in engine moved illegally: {g}");
            assert_eq!(str_of(&g["result"]), result, "{g}");
            continue;
        }
        assert!(
            ["normal", "time forfeit", "adjudication"].contains(&term),
            "unexpected Termination {term}: {g}"
        );
    }
    // Pairs of games share an opening; different pairs use different ones.
    assert!(starts.len() > 1, "every game from the same opening");
    // The opponents told their names (from `id name`), not the program file.
    let names: Vec<String> = games
        .iter()
        .flat_map(|g| {
            [
                str_of(&g["white"]).to_string(),
                str_of(&g["black"]).to_string(),
            ]
        })
        .collect();
    for (prog, id) in [
        ("stockfish", "Stockfish"),
        ("glaurung", "Glaurung"),
        ("toga2", "Toga"),
    ] {
        if opponents.iter().any(|p| p.ends_with(prog)) {
            assert!(names.iter().any(|n| n.contains(id)), "{id}: {names:?}");
        }
    }
    let normal = games
        .iter()
        .filter(|g| str_of(&g["termination"]) == "normal")
        .count();
    eprintln!(
        "real games: {} games, {normal} ended by the rules (each judged by python-chess)",
        games.len()
    );
}

// ---------------------------------------------------------------------
// 2. Endings forced from the opening position.
// ---------------------------------------------------------------------

/// Openings where the first move ends the game, with what must follow:
/// (EPD, Result, reason in rookery's words, python-chess's termination).
const FORCED: [(&str, &str, &str, &str); 4] = [
    // White's only legal move, Qxf7, stalemates Black.
    (
        "7k/5r2/8/8/8/8/Q3P1P1/4RKR1 w - -",
        "1/2-1/2",
        "Draw by stalemate",
        "STALEMATE",
    ),
    // Back-rank mate in one.
    (
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - -",
        "1-0",
        "White mates",
        "CHECKMATE",
    ),
    // Halfmove clock 99, no capture or pawn move, no mate in one.
    (
        "8/8/8/4k3/8/8/8/R3K3 w - - hmvc 99;",
        "1/2-1/2",
        "Draw by fifty moves rule",
        "FIFTY_MOVES",
    ),
    // The king takes the hanging rook: king against king.
    (
        "7k/8/8/8/8/2r5/1K6/8 w - -",
        "1/2-1/2",
        "Draw by insufficient mating material",
        "INSUFFICIENT_MATERIAL",
    ),
];

/// Depth-limited built-in engines from openings that end at the first move:
/// stalemate, mate, the fifty-move rule (halfmove clock 99) and
/// insufficient material after a capture, each with the right Result and
/// Termination "normal", as python-chess judges the final position.
#[test]
fn forced_endings_end_the_game_as_python_chess_judges_them() {
    let Some(t) = judged("forced") else {
        return;
    };
    let epd: String = FORCED.iter().map(|f| format!("{}\n", f.0)).collect();
    let book = s(&t.write("forced.epd", &epd)).to_string();
    let rounds = FORCED.len().to_string();
    let Played { games, .. } = played(
        &t,
        "--engine cmd=builtin name=A --engine cmd=builtin name=B --each depth=3 \
         --rounds {rounds} --openings file={book} order=sequential --pgnout {pgn}",
        &[("rounds", &rounds), ("book", &book)],
    );
    assert_eq!(games.len(), FORCED.len());
    for (g, (epd, result, reason, python)) in games.iter().zip(FORCED) {
        let want_start = epd.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
        assert!(
            str_of(&g["start_fen"]).starts_with(&want_start),
            "{epd}: {g}"
        );
        assert_eq!(str_of(&g["termination"]), "normal", "{epd}: {g}");
        assert_eq!(str_of(&g["result"]), result, "{epd}: {g}");
        assert!(closing(g).ends_with(reason), "{epd}: {g}");
        assert_eq!(
            str_of(&g["python_outcome"]["termination"]),
            python,
            "{epd}: {g}"
        );
        assert_eq!(g["moves"].as_array().unwrap().len(), 1, "{epd}: {g}");
    }
    // The fifty-move game kept its halfmove clock from the EPD.
    assert!(
        str_of(&games[2]["fen_tag"]).contains(" 99 "),
        "{}",
        games[2]
    );
}

/// Threefold repetition: two mock engines (each plays its first legal move
/// in sorted UCI order) shuffle Na1-b3 and Ra8-b8, so the start position
/// comes back for the third time after 8 plies and the game ends there.
#[test]
fn threefold_repetition_ends_the_game_at_the_third_occurrence() {
    let Some(t) = judged("threefold") else {
        return;
    };
    let book = s(&t.write("rep.epd", "r6k/p7/P7/8/8/8/8/N6K w - -\n")).to_string();
    let Played { games, .. } = played(
        &t,
        "--engine cmd={mock} name=A --engine cmd={mock} name=B --each nodes=1 \
         --openings file={book} --pgnout {pgn}",
        &[("book", &book)],
    );
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(str_of(&g["termination"]), "normal", "{g}");
    assert_eq!(str_of(&g["result"]), "1/2-1/2", "{g}");
    assert!(closing(g).ends_with("Draw by 3-fold repetition"), "{g}");
    assert_eq!(
        str_of(&g["python_outcome"]["termination"]),
        "THREEFOLD_REPETITION"
    );
    let moves: Vec<&str> = g["moves"].as_array().unwrap().iter().map(str_of).collect();
    assert_eq!(
        moves,
        ["a1b3", "a8b8", "b3a1", "b8a8", "a1b3", "a8b8", "b3a1", "b8a8"]
    );
}

// ---------------------------------------------------------------------
// 3. Engine failures, with the mock engine.
// ---------------------------------------------------------------------

/// Arguments for a match of a misbehaving mock (`bad`, with its flags)
/// against a well-behaved one, both at `control`.
fn mock_match(bad: &[&str], control: &[&str], extra: &[&str], pgn: &str) -> Output {
    let mock = mock_engine();
    let mut args = argv("--engine cmd={mock} name=bad", &[("mock", &mock)]);
    args.extend(bad.iter().map(|f| format!("arg={f}")));
    args.extend(argv(
        "--engine cmd={mock} name=good --each",
        &[("mock", &mock)],
    ));
    args.extend(control.iter().map(|s| s.to_string()));
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--pgnout".into(), pgn.to_string()]);
    run_match(&args)
}

/// A [`mock_match`] in a directory of its own that must end with status 0,
/// and the games of its PGN as the judges read them; `None` when the judges
/// are missing (and the test may skip).
fn judged_mock_match(
    tag: &str,
    bad: &[&str],
    control: &[&str],
    extra: &[&str],
) -> Option<(Output, Vec<Value>)> {
    let t = judged(tag)?;
    let pgn = s(&t.join("m.pgn")).to_string();
    let out = mock_match(bad, control, extra, &pgn);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let games = judge(&pgn);
    Some((out, games))
}

/// `bad` lost game `g`: the winner's result from the PGN facts.
fn assert_bad_lost(g: &Value) {
    let want = if str_of(&g["white"]) == "bad" {
        "0-1"
    } else {
        "1-0"
    };
    assert_eq!(str_of(&g["result"]), want, "{g}");
}

/// An engine that crashes on its third `go`: the game is "abandoned" and
/// lost by it after its two moves; with `--recover` the engine is started
/// again and the match plays all its games (each ends the same way).
#[test]
fn crash_mid_game_is_abandoned_and_recover_goes_on() {
    let Some(t) = judged("crash-recover") else {
        return;
    };
    let pgn = s(&t.join("c.pgn")).to_string();
    let log = s(&t.join("c.log")).to_string();
    let out = mock_match(
        &["--crash-on-go", "3"],
        &["nodes=1"],
        &["--rounds", "3", "--recover", "--log", &log],
        &pgn,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let games = judge(&pgn);
    assert_eq!(games.len(), 3, "{}", describe(&out));
    for g in &games {
        assert_eq!(str_of(&g["termination"]), "abandoned", "{g}");
        assert_bad_lost(g);
        // Mid-game: the crashing engine had made two moves.
        assert!(g["moves"].as_array().unwrap().len() >= 4, "{g}");
    }
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("bad crashed in game").count(), 3, "{stdout}");
    assert!(
        stdout.contains("restarting it for the next game"),
        "{stdout}"
    );
    // Three processes of `bad` finished the handshake: it was restarted.
    let log = std::fs::read_to_string(&log).unwrap();
    let handshakes = log
        .lines()
        .filter(|l| l.contains(" bad#1.1 > uciok"))
        .count();
    assert_eq!(handshakes, 3, "{log}");
}

/// The same crash without `--recover`: the match stops after the game,
/// says why, and exits with status 1; no further game is started.
#[test]
fn crash_without_recover_stops_the_match() {
    let t = TempDir::new("match-cli-crash-stop");
    let pgn = s(&t.join("c.pgn")).to_string();
    let out = mock_match(
        &["--crash-on-go", "3"],
        &["nodes=1"],
        &["--rounds", "3"],
        &pgn,
    );
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let stdout = text(&out.stdout);
    assert_contains_all(
        &stdout,
        &["bad crashed in game 1: stopping the match", "Stopped: "],
    );
    assert!(!stdout.contains("Started game 2"), "{stdout}");
    assert_eq!(tag_values(&pgn, "Termination"), ["abandoned"]);
}

/// An engine that hangs (ignoring `stop`) on its second move with a clock
/// running loses on time; the match goes on with `--recover`.
#[test]
fn hang_on_a_clock_is_a_time_forfeit() {
    let Some((out, games)) = judged_mock_match(
        "hang-clock",
        &["--hang-on-go", "2"],
        &["tc=1+0.01"],
        &["--rounds", "2", "--recover"],
    ) else {
        return;
    };
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(str_of(&g["termination"]), "time forfeit", "{g}");
        assert_bad_lost(g);
        assert!(closing(g).contains("loses on time"), "{g}");
    }
    assert_stdout_has(&out, "bad stalled in game 1");
}

/// An engine slow to take the game in (as one woken late on a busy machine)
/// is not charged for it: the referee sends `position`, waits for
/// `readyok`, and starts the clock with `go`. At 200 ms a position and a
/// 1-second clock, `bad` lost on time at its fifth move when the wait was
/// on its clock; now the game is played out (the mocks repeat the position
/// three times at ply 14).
#[test]
fn the_time_to_take_the_position_in_is_not_on_the_clock() {
    let t = TempDir::new("match-cli-slow-position");
    let pgn = s(&t.join("p.pgn")).to_string();
    let out = mock_match(
        &["--slow-position", "200"],
        &["tc=1+0"],
        &["--rounds", "1"],
        &pgn,
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let games = std::fs::read_to_string(&pgn).unwrap();
    assert!(!games.contains("loses on time"), "{games}");
    assert_eq!(tag_values(&pgn, "Termination"), ["normal"], "{games}");
    assert_eq!(tag_values(&pgn, "PlyCount"), ["14"], "{games}");
}

/// The same hang with a node limit (no clock): after `--stall-timeout 2`
/// the game ends as a "stalled connection", lost by the silent engine.
#[test]
fn hang_without_a_clock_is_a_stalled_connection() {
    let Some((_, games)) = judged_mock_match(
        "hang-nodes",
        &["--hang-on-go", "2"],
        &["nodes=1"],
        &["--stall-timeout", "2", "--recover"],
    ) else {
        return;
    };
    assert_eq!(games.len(), 1);
    assert_eq!(
        str_of(&games[0]["termination"]),
        "stalled connection",
        "{}",
        games[0]
    );
    assert_bad_lost(&games[0]);
}

/// An illegal move loses at once ("illegal move"); the move is not in the
/// PGN, which python-chess and pgn-extract read as legal throughout.
#[test]
fn an_illegal_move_loses() {
    let Some((_, games)) =
        judged_mock_match("illegal", &["--illegal-on-go", "2"], &["nodes=1"], &[])
    else {
        return;
    };
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(str_of(&g["termination"]), "illegal move", "{g}");
    assert_bad_lost(g);
    assert!(closing(g).contains("makes an illegal move"), "{g}");
    // bad made one legal move before its illegal second one.
    let plies = g["moves"].as_array().unwrap().len();
    assert!((2..=3).contains(&plies), "{g}");
}

/// A `bestmove` whose move is `(none)` (Stockfish's word for no move) or
/// cannot be read ends the game at once, lost by the engine that sent it:
/// an illegal move, a rules infraction; never a wait for the clock to run
/// out, nor a stalled engine that stops the match.
#[test]
fn a_bestmove_with_no_move_loses_at_once() {
    for (tag, text, termination, said) in [
        (
            "none",
            "(none)",
            "illegal move",
            "makes an illegal move: 0000",
        ),
        ("unreadable", "e9e4", "rules infraction", "\"e9e4\""),
    ] {
        let Some((_, games)) = judged_mock_match(
            &format!("bestmove-{tag}"),
            &["--bestmove-on-go", "2", text],
            &["tc=5+0"],
            &["--games", "2"],
        ) else {
            return;
        };
        // The engine's second `go` is in the first game; the match goes on.
        assert_eq!(games.len(), 2, "{tag}: both games are played");
        let g = &games[0];
        assert_eq!(str_of(&g["termination"]), termination, "{tag}: {g}");
        assert_bad_lost(g);
        assert!(closing(g).contains(said), "{tag}: {g}");
        assert_eq!(
            closing(g).matches("protocol violation").count(),
            usize::from(tag == "unreadable"),
            "{tag}: {g}"
        );
    }
}

/// An engine that never answers `uci` is found before the first game: the
/// match does not start (status 2, the engine named) and writes no game.
#[test]
fn an_engine_without_handshake_is_refused_before_any_game() {
    let t = TempDir::new("match-cli-no-uciok");
    let pgn = s(&t.join("n.pgn")).to_string();
    let out = mock_match(&["--no-uciok"], &["nodes=1"], &["--rounds", "2"], &pgn);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = text(&out.stderr);
    assert!(err.contains("engine bad:"), "{err}");
    assert!(
        !text(&out.stdout).contains("Started game"),
        "{}",
        describe(&out)
    );
    assert!(tag_values(&pgn, "Result").is_empty(), "no game is written");
}

/// A program that is not there is a usage error before anything starts.
#[test]
fn a_missing_engine_program_is_a_usage_error() {
    let t = TempDir::new("match-cli-missing");
    let pgn = s(&t.join("m.pgn")).to_string();
    let out = run_match(&argv(
        "--engine cmd=/nonexistent/engine name=ghost --engine cmd=builtin --each nodes=1 \
         --recover --pgnout {pgn}",
        &[("pgn", &pgn)],
    ));
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(
        text(&out.stderr).contains("/nonexistent/engine"),
        "{}",
        describe(&out)
    );
    assert!(!Path::new(&pgn).exists(), "nothing is written");
}

/// An engine that starts for the first game and cannot be started again
/// (a new process every game): the games it cannot begin are not results.
/// With `--recover` it is tried three times, then the match stops; the PGN
/// and the standings hold only the game played, and the rest is unplayed.
#[test]
fn games_an_engine_never_began_are_not_results() {
    let t = TempDir::new("match-cli-late-start");
    for recover in [false, true] {
        let pgn = s(&t.join(format!("l{recover}.pgn"))).to_string();
        let count = s(&t.join(format!("starts{recover}"))).to_string();
        // Start 1 is the check before the match, start 2 plays game 1;
        // from start 3 on, no `uciok`.
        let mut extra = vec!["--rounds", "3", "--json"];
        if recover {
            extra.push("--recover");
        }
        let out = mock_match(
            &["--no-uciok-from", "3", &count],
            &["nodes=1", "restart=on"],
            &extra,
            &pgn,
        );
        assert_eq!(
            out.status.code(),
            Some(1),
            "recover {recover}: {}",
            describe(&out)
        );
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
        assert_eq!(v["standings"]["games"], 1, "{v}");
        assert_eq!(v["unplayed"], 2, "{v}");
        assert_eq!(v["stopped"]["reason"], "engine_failure", "{v}");
        assert_eq!(tag_values(&pgn, "Result").len(), 1);
        assert!(
            !tag_values(&pgn, "Termination").contains(&"abandoned".to_string()),
            "a game that never began is not in the PGN"
        );
        let starts = std::fs::metadata(&count).unwrap().len();
        // Without --recover the match stops at the first failure; with it
        // the engine is tried three times in a row.
        assert_eq!(starts, if recover { 5 } else { 3 }, "recover {recover}");
        let err = text(&out.stdout) + &text(&out.stderr);
        assert!(
            err.contains(if recover {
                "failed to start 3 times"
            } else {
                "could not be started"
            }),
            "{err}"
        );
    }
}

/// Toga II declares no `Threads`: by default the option is skipped with a
/// warning naming the engine and the option and the games are played
/// (cutechess-cli's behaviour); with `--strict-options` the match is a
/// usage error before any game.
#[test]
fn an_option_an_engine_lacks_is_a_warning_or_with_strict_options_an_error() {
    let Some(toga) = peer::require("Toga II", &["toga2"], None) else {
        return;
    };
    let t = TempDir::new("match-cli-options");
    let pgn = s(&t.join("o.pgn")).to_string();
    let line = "--engine cmd={toga} option.Threads=1 option.Hash=16 --engine cmd=builtin \
                --each depth=1 --pgnout {pgn}";
    let vars = [("toga", toga.to_str().unwrap()), ("pgn", pgn.as_str())];
    let out = run_match(&argv(line, &vars));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let said = text(&out.stdout);
    assert!(said.contains("Warning: engine Toga II"), "{said}");
    assert!(said.contains("has no option \"Threads\""), "{said}");
    assert_eq!(tag_values(&pgn, "Result").len(), 1);
    let mut strict = argv(line, &vars);
    strict.push("--strict-options".into());
    let out = run_match(&strict);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(text(&out.stderr).contains("Threads"), "{}", describe(&out));
    assert_eq!(tag_values(&pgn, "Result").len(), 1, "no game was added");
}

// ---------------------------------------------------------------------
// 4. kill -9 and --resume.
// ---------------------------------------------------------------------

fn journal_entries(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap_or_default();
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect()
}

/// Kills the match with SIGKILL in the middle of its second game, tears the
/// journal's last line, and resumes: the PGN then has every game exactly
/// once, the cut game starts with the moves journaled before the kill and
/// goes on with the clocks restored, and python-chess reads it all.
#[test]
fn resume_after_kill_9_keeps_every_game_once_and_the_cut_games_moves() {
    let Some(t) = judged("resume") else {
        return;
    };
    let pgn = s(&t.join("r.pgn")).to_string();
    let journal = t.join("r.pgn.journal");
    let mut child = spawn_match(&argv(
        "--engine cmd=builtin name=A --engine cmd=builtin name=B --each tc=1+0.02 \
         timemargin=200 --rounds 3 --maxmoves 80 --openings file={book} order=sequential \
         --pgnout {pgn}",
        &[("book", BOOK), ("pgn", &pgn)],
    ));
    // Wait (bounded) until the second game has some moves in the journal.
    let t0 = Instant::now();
    let cut_moves = loop {
        let entries = journal_entries(&journal);
        let moves: Vec<String> = entries
            .iter()
            .filter(|e| e["type"] == "move" && e["game"] == 1)
            .map(|e| str_of(&e["uci"]).to_string())
            .collect();
        if moves.len() >= 6 {
            break moves;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the match ended ({status}) before it could be killed");
        }
        assert!(t0.elapsed() < RUN_LIMIT, "the second game never started");
        std::thread::sleep(Duration::from_millis(10));
    };
    let pid = child.id().to_string();
    let st = Command::new("kill").args(["-9", &pid]).status().unwrap();
    assert!(st.success());
    let _ = child.wait();
    // Everything journaled by the moment of the kill.
    let entries = journal_entries(&journal);
    let before: Vec<Value> = entries
        .iter()
        .filter(|e| e["type"] == "move" && e["game"] == 1)
        .cloned()
        .collect();
    assert!(before.len() >= cut_moves.len());
    assert!(
        !entries.iter().any(|e| e["type"] == "end" && e["game"] == 1),
        "game 2 was over before the kill"
    );
    assert!(entries.iter().any(|e| e["type"] == "end" && e["game"] == 0));
    // The PGN has game 1 and nothing of the cut game.
    assert_eq!(tag_values(&pgn, "Round"), ["1"]);
    // The same command again, without --resume: refused, nothing touched
    // (before, the journal was emptied and game 1 written twice).
    let journal_bytes = std::fs::read(&journal).unwrap();
    let again = run_match(&argv(
        "--engine cmd=builtin name=A --engine cmd=builtin name=B --each tc=1+0.02 \
         timemargin=200 --rounds 3 --maxmoves 80 --openings file={book} order=sequential \
         --pgnout {pgn}",
        &[("book", BOOK), ("pgn", &pgn)],
    ));
    assert_eq!(again.status.code(), Some(2), "{}", describe(&again));
    assert_contains_all(&text(&again.stderr), &["unfinished", "--resume", "--fresh"]);
    assert_eq!(std::fs::read(&journal).unwrap(), journal_bytes);
    assert_eq!(tag_values(&pgn, "Round"), ["1"]);
    let first_start = entries
        .iter()
        .find(|e| e["type"] == "start" && e["game"] == 1)
        .map(|e| e["started"].clone())
        .unwrap();
    let played_ms: u64 = before
        .iter()
        .map(|e| e["time_ms"].as_u64().unwrap_or(0))
        .sum();
    // A torn last line, as a crash in the middle of a write leaves it.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap();
    f.write_all(br#"{"type":"move","game":1,"uci":"e2"#)
        .unwrap();
    drop(f);

    let out = run_match(&["--resume", s(&journal)]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let stdout = text(&out.stdout);
    assert_contains_all(
        &stdout,
        &[
            "1 of 3 games finished, 1 cut off mid-game",
            "Resumed game 2 of 3",
        ],
    );
    // Every game exactly once.
    let mut rounds = tag_values(&pgn, "Round");
    rounds.sort();
    assert_eq!(rounds, ["1", "2", "3"], "{}", describe(&out));
    let games = judge(&pgn);
    let cut = games.iter().find(|g| str_of(&g["round"]) == "2").unwrap();
    let moves: Vec<String> = cut["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| str_of(m).to_string())
        .collect();
    let kept: Vec<String> = before
        .iter()
        .map(|e| str_of(&e["uci"]).to_string())
        .collect();
    assert!(
        moves.len() >= kept.len() && moves[..kept.len()] == kept[..],
        "the cut game does not start with its journaled moves\njournal: {kept:?}\nPGN: {moves:?}"
    );
    // Clocks restored: the first move after the resume by each side starts
    // from that side's journaled clock (plus at most the increment), not
    // from a fresh clock.
    let after: Vec<Value> = journal_entries(&journal)
        .into_iter()
        .filter(|e| e["type"] == "move" && e["game"] == 1)
        .skip(before.len())
        .collect();
    assert!(
        after.len() >= 2 || moves.len() <= kept.len() + 1,
        "{after:?}"
    );
    for (k, next) in after.iter().take(2).enumerate() {
        // The same side's last clock before the kill.
        let ply = before.len() + k;
        let last_same_side = before
            .iter()
            .enumerate()
            .rev()
            .find(|(i, _)| i % 2 == ply % 2)
            .map(|(_, e)| e["clock_ms"].as_u64().unwrap());
        if let (Some(last), Some(now)) = (last_same_side, next["clock_ms"].as_u64()) {
            assert!(
                now <= last + 20,
                "clock after the resume {now} ms, before the kill {last} ms (+20 ms increment)"
            );
        }
    }
    // The finished games' records in the journal match the PGN's count.
    let ends = journal_entries(&journal)
        .iter()
        .filter(|e| e["type"] == "end")
        .count();
    assert_eq!(ends, 3);
    // The cut game keeps its real start and counts the time played before
    // the kill (it showed 0:00:00 from the resume on).
    let text = std::fs::read_to_string(&pgn).unwrap();
    let game2 = pgn_text::games(&text)
        .into_iter()
        .find(|g| g.contains("[Round \"2\"]"))
        .unwrap();
    let value = |tag: &str| {
        let at = game2.find(&format!("[{tag} \"")).unwrap() + tag.len() + 3;
        game2[at..at + game2[at..].find('"').unwrap()].to_string()
    };
    let (date, time) = (
        str_of(&first_start[0]).replace('.', "-"),
        str_of(&first_start[1]).to_string(),
    );
    assert_eq!(value("GameStartTime"), format!("{date}T{time} UTC"));
    let hms: Vec<u64> = value("GameDuration")
        .split(':')
        .map(|x| x.parse().unwrap())
        .collect();
    let duration_s = hms[0] * 3600 + hms[1] * 60 + hms[2];
    assert!(
        duration_s * 1000 + 999 >= played_ms,
        "GameDuration {duration_s} s is less than the {played_ms} ms played before the kill"
    );
}

/// `--fresh` over an unfinished match's journal: the old journal is kept as
/// `JOURNAL.1` and the games of the old run move to `PGN.1` with it (what
/// the PGN held before that run stays); the new match writes only its own.
#[test]
fn fresh_keeps_the_old_run_aside() {
    let t = TempDir::new("match-cli-fresh");
    let pgn = t.join("f.pgn");
    std::fs::write(&pgn, "[Event \"earlier\"]\n\n*\n\n").unwrap();
    let pgn_s = s(&pgn).to_string();
    let line = "--engine cmd=builtin name=A --engine cmd=builtin name=B --each nodes=50 \
                --rounds 2 --maxmoves 10 --pgnout {pgn}";
    let out = run_match(&argv(line, &[("pgn", &pgn_s)]));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    // Make the finished journal look cut off: drop its last game's end.
    let journal = t.join("f.pgn.journal");
    let kept: Vec<String> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .filter(|l| !(l.contains("\"type\":\"end\",\"game\":1") || l.contains("\"type\":\"over\"")))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&journal, kept.concat()).unwrap();
    let old_journal = std::fs::read(&journal).unwrap();
    let old_pgn = std::fs::read_to_string(&pgn).unwrap();
    let mut fresh = argv(line, &[("pgn", &pgn_s)]);
    fresh.push("--fresh".into());
    let out = run_match(&fresh);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(
        std::fs::read(t.join("f.pgn.journal.1")).unwrap(),
        old_journal
    );
    let moved = std::fs::read_to_string(t.join("f.pgn.1")).unwrap();
    assert_eq!(format!("[Event \"earlier\"]\n\n*\n\n{moved}"), old_pgn);
    assert_eq!(
        tag_values(&pgn_s, "Event"),
        ["earlier", "rookery match", "rookery match"]
    );
}

/// The SPRT of a one-sided match decides (before, with every pair in one
/// bucket, it never did: `LLR 0.00, no decision`), and the report says
/// the decision with the games it was taken on, then the totals of every
/// game played, the games in progress at the decision included.
#[test]
fn a_one_sided_sprt_decides_and_reports_the_games_it_decided_on() {
    // One game at a time, then two: after the decision only the games
    // already in progress finish (none with one at a time; before, the
    // worker that played the deciding game took the next one before the
    // decision was known).
    for concurrency in [1u64, 2] {
        let t = TempDir::new("match-cli-sprt");
        let out = run_match(&argv(
            "--engine cmd=builtin name=shallow nodes=1 --engine cmd=builtin name=deep depth=5 \
             --games 2 --rounds 12 --concurrency {c} --sprt elo0=0 elo1=100 --json \
             --pgnout {pgn}",
            &[
                ("pgn", s(&t.join("s.pgn"))),
                ("c", &concurrency.to_string()),
            ],
        ));
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", describe(&out)));
        assert_eq!(v["stopped"]["reason"], "sprt", "{v}");
        assert_eq!(v["stopped"]["detail"], "AcceptH0", "{v}");
        let decision = &v["sprt"]["decision"];
        let decided_on = decision["tally"]["wdl"]["wins"].as_u64().unwrap()
            + decision["tally"]["wdl"]["draws"].as_u64().unwrap()
            + decision["tally"]["wdl"]["losses"].as_u64().unwrap();
        let played = v["standings"]["games"].as_u64().unwrap();
        assert!(decided_on < 24, "decided before the schedule's end: {v}");
        assert!(
            played >= decided_on && played < decided_on + concurrency,
            "concurrency {concurrency}: {played} games played, decided on {decided_on}: {v}"
        );
        let llr = decision["status"]["llr"].as_f64().unwrap();
        assert!(llr <= decision["status"]["lower"].as_f64().unwrap(), "{v}");
        let said = text(&out.stderr);
        assert!(
            said.contains(&format!("decided on {decided_on} games")),
            "{said}"
        );
        if played > decided_on {
            assert!(
                said.contains(&format!("SPRT over all {played} games played")),
                "{said}"
            );
        }
    }
}

/// Ctrl-C (SIGINT) stops a match cleanly: the game in progress is cut after
/// its move and journaled, the summary of the finished games is printed,
/// the status is 130; `--resume` then finishes the match with every game
/// once.
#[test]
fn an_interrupted_match_stops_cleanly_and_resumes() {
    let t = TempDir::new("match-cli-sigint");
    let pgn = s(&t.join("i.pgn")).to_string();
    let journal = t.join("i.pgn.journal");
    let child = spawn_match(&argv(
        "--engine cmd=builtin name=A --engine cmd=builtin name=B --each st=0.05 \
         --rounds 3 --maxmoves 30 --pgnout {pgn}",
        &[("pgn", &pgn)],
    ));
    let t0 = Instant::now();
    while !journal_entries(&journal)
        .iter()
        .any(|e| e["type"] == "move" && e["game"] == 1)
    {
        assert!(t0.elapsed() < RUN_LIMIT, "game 2 never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let out = wait_bounded(child, RUN_LIMIT);
    assert_eq!(out.status.code(), Some(130), "{}", describe(&out));
    let said = text(&out.stdout);
    assert_contains_all(&said, &["Interrupted", "--resume"]);
    let entries = journal_entries(&journal);
    assert!(!entries.iter().any(|e| e["type"] == "over"));
    assert!(!entries.iter().any(|e| e["type"] == "end" && e["game"] == 1));
    let out = run_match(&["--resume", s(&journal)]);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let mut rounds = tag_values(&pgn, "Round");
    rounds.sort();
    assert_eq!(rounds, ["1", "2", "3"]);
    assert!(!tag_values(&pgn, "Result").contains(&"*".to_string()));
}

// ---------------------------------------------------------------------
// 5. Usage errors.
// ---------------------------------------------------------------------

/// Usage errors exit with status 2 and say what is wrong; `--help` maps the
/// cutechess-cli flags.
#[test]
fn usage_errors_exit_2() {
    let cases = [
        ("--engine cmd=builtin --engine cmd=builtin", "has no limit"),
        (
            "--engine cmd=builtin --engine cmd=builtin --each tc=inf",
            "tc=inf alone is none",
        ),
        (
            "--engine cmd=builtin --engine cmd=builtin --each tc=abc",
            "tc=abc",
        ),
        (
            "--engine cmd=builtin --engine cmd=builtin --engine cmd=builtin --each nodes=10 \
             --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05",
            "exactly two engines",
        ),
        (
            "--engine cmd=builtin frobnicate=1 --engine cmd=builtin --each nodes=1",
            "frobnicate",
        ),
        ("--engine cmd=builtin nodes=1", "two --engine"),
    ];
    for (line, needle) in cases {
        let args = argv(line, &[]);
        let out = run_match(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", describe(&out));
        let err = text(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {needle:?} not in {err}");
    }
    let out = rookery(&["match", "--help"], b"");
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    assert_contains_all(
        &help,
        &[
            "cutechess-cli",
            "--resume",
            // The table of the peers' words, each with whose meaning.
            "-pgnout F [min] [fi]",
            "-resultformat FORMAT|help\n        [cutechess-cli]",
            "-check-mate-pvs\n        [fastchess]",
            "tc=hg...: hourglass",
        ],
    );
}

// ---------------------------------------------------------------------
// 6. --json, --epdout, --log.
// ---------------------------------------------------------------------

/// `--json` prints the summary (standings with names and results, the
/// stop reason, games not played); `--epdout` has one EPD line per game,
/// which python-chess reads as the final position of the PGN's game; the
/// `--log` has lines to and from both engines.
#[test]
fn json_epdout_and_log() {
    let Some(t) = judged("outputs") else {
        return;
    };
    let epd = s(&t.join("o.epd")).to_string();
    let log = s(&t.join("o.log")).to_string();
    let Played { out, games, .. } = played(
        &t,
        "--engine cmd=builtin name=Inside depth=2 \
         --engine cmd={mock} name=Outside arg=--random arg=3 nodes=1 \
         --games 2 --rounds 2 --maxmoves 60 --openings file={book} --json \
         --pgnout {pgn} --epdout {epd} --log {log}",
        &[("epd", &epd), ("log", &log)],
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("--json output does not parse: {e}\n{}", describe(&out)));
    let st = &v["standings"];
    let names: Vec<&str> = st["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Inside", "Outside"], "{v}");
    assert_eq!(st["games"], 4, "{v}");
    let wdl = |x: &Value| {
        x["wins"].as_u64().unwrap() + x["draws"].as_u64().unwrap() + x["losses"].as_u64().unwrap()
    };
    assert_eq!(wdl(&st["players"][0]), 4, "{v}");
    assert_eq!(st["players"][0]["wins"], st["players"][1]["losses"], "{v}");
    let pair = &st["pairs"][0];
    assert_eq!(
        (pair["a"].as_str(), pair["b"].as_str()),
        (Some("Inside"), Some("Outside")),
        "{v}"
    );
    assert_eq!(wdl(pair), 4, "{v}");
    // Two complete pairs of games on one opening each.
    let ptnml: u64 = pair["ptnml"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(ptnml, 2, "{v}");
    assert_eq!(v["stopped"], Value::Null);
    assert_eq!(v["unplayed"], 0);
    // The commentary went to stderr, not into the JSON.
    assert!(
        text(&out.stderr).contains("Finished game 4"),
        "{}",
        describe(&out)
    );

    assert_eq!(games.len(), 4);
    let lines: Vec<String> = std::fs::read_to_string(&epd)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    // python-chess reads each EPD line; its position is the final position
    // of a PGN game (the finishing order may differ from the PGN order only
    // with concurrency, here it is the same).
    let script = "import chess, sys, json\n\
                  print(json.dumps([chess.Board.from_epd(l)[0].fen() for l in sys.stdin.read().splitlines()]))";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(lines.join("\n").as_bytes())
        .unwrap();
    let py = child.wait_with_output().unwrap();
    assert!(py.status.success(), "{}", describe(&py));
    let fens: Vec<String> = serde_json::from_slice(&py.stdout).unwrap();
    for (i, (fen, g)) in fens.iter().zip(&games).enumerate() {
        let four = |f: &str| f.split(' ').take(4).collect::<Vec<_>>().join(" ");
        assert_eq!(
            four(fen),
            four(str_of(&g["final_fen"])),
            "EPD line {}",
            i + 1
        );
        assert!(
            lines[i].contains(&format!(
                "c0 \"{} {}\"",
                str_of(&g["result"]),
                str_of(&g["termination"])
            )),
            "{}",
            lines[i]
        );
    }
    // The log: both engines, both directions.
    let log = std::fs::read_to_string(&log).unwrap();
    assert_contains_all(
        &log,
        &[
            " Inside#1.1 < uci",
            " Inside#1.1 > uciok",
            " Inside#1.1 > bestmove ",
            " Outside#2.1 < go nodes 1",
            " Outside#2.1 > bestmove ",
            " Outside#2.1 < position ",
        ],
    );
}

// ---------------------------------------------------------------------
// 7. Scale.
// ---------------------------------------------------------------------

/// 64 games at once between mock engines (128 processes) that answer at
/// once: all finish, the PGN has 64 games, every one judged.
#[test]
fn sixty_four_concurrent_games() {
    let Some(t) = judged("scale") else {
        return;
    };
    let Played { pgn, games, .. } = played(
        &t,
        "--engine cmd={mock} name=m1 arg=--random arg=1 \
         --engine cmd={mock} name=m2 arg=--random arg=2 --each nodes=1 \
         --rounds 32 --games 2 --concurrency 64 --openings file={book} order=random \
         --srand 5 --ratinginterval 64 --pgnout {pgn}",
        &[],
    );
    assert_eq!(games.len(), 64);
    let mut rounds: Vec<u32> = tag_values(&pgn, "Round")
        .iter()
        .map(|r| r.parse().unwrap())
        .collect();
    rounds.sort_unstable();
    assert_eq!(rounds, (1..=64).collect::<Vec<_>>());
    for g in &games {
        assert_eq!(str_of(&g["termination"]), "normal", "{g}");
    }
}
