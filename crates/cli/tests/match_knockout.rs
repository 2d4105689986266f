//! `rookery match --tournament knockout` (and cutechess-cli's `-tournament
//! knockout`), end to end:
//!
//! - tie-breaks: one game at a time for an odd `--games`, by pairs for an
//!   even one, with `rookery-mock-engine` told when to lose (an illegal
//!   move on its Nth `go`) and `--maxmoves` drawing the other games;
//! - five built-in engines of different strengths run to one winner, the
//!   PGN holding every game of the bracket once, Round tags its rounds;
//! - `kill -9` in the middle of the final and `--resume` give the games of
//!   an uninterrupted run;
//! - what a knockout refuses (`--sprt`, `--rounds`).

use crate::common::{describe, kill_when_ready, mock_engine, s, text};
use crate::match_cli::{run_match, spawn_match};
use rookery_testkit::cmd::argv;
use rookery_testkit::TempDir;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// A liveness bound for one run (not a speed assertion).
const RUN_LIMIT: Duration = Duration::from_secs(120);

const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-small.epd");

/// Runs a match that must succeed with `--json`; returns its JSON.
fn json_match(args: &[String]) -> Value {
    let out = run_match(args);
    assert!(out.status.success(), "{}", describe(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", describe(&out)))
}

/// One game of a PGN file: its tags and its moves without comments.
#[derive(Debug, PartialEq, Eq, Clone)]
struct Game {
    round: String,
    white: String,
    black: String,
    result: String,
    moves: String,
}

fn games_of(pgn: &Path) -> Vec<Game> {
    let text = std::fs::read_to_string(pgn).unwrap_or_default();
    let mut games = Vec::new();
    for chunk in text.split("[Event ").skip(1) {
        let tag = |name: &str| -> String {
            let key = format!("[{name} \"");
            chunk
                .lines()
                .find_map(|l| l.strip_prefix(&key))
                .and_then(|v| v.strip_suffix("\"]"))
                .unwrap_or_default()
                .to_string()
        };
        // The first line is the rest of the Event tag.
        let body: String = chunk
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with('['))
            .collect::<Vec<_>>()
            .join(" ");
        // Comments (times, scores) differ from run to run; the moves do not.
        let mut moves = String::new();
        let mut depth = 0;
        for c in body.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ if depth == 0 => moves.push(c),
                _ => {}
            }
        }
        games.push(Game {
            round: tag("Round"),
            white: tag("White"),
            black: tag("Black"),
            result: tag("Result"),
            moves: moves.split_whitespace().collect::<Vec<_>>().join(" "),
        });
    }
    games
}

/// Two engines, X and Y (the mock engine); X answers an illegal move on its
/// `lose_on`-th `go` (counted over the whole match: one process), every
/// other game is drawn after three moves each.
fn two_mocks(t: &TempDir, games: u32, lose_on: u32) -> (Value, Vec<Game>) {
    let pgn = t.join("ko.pgn");
    let mock = mock_engine();
    let lose = lose_on.to_string();
    let v = json_match(&argv(
        "--tournament knockout --seeds 2 --games {games} --maxmoves 3 \
         --engine cmd={mock} name=X arg=--illegal-on-go arg={lose} \
         --engine cmd={mock} name=Y --each tc=30+0.1 --pgnout {pgn} --json",
        &[
            ("games", &games.to_string()),
            ("mock", &mock),
            ("lose", &lose),
            ("pgn", s(&pgn)),
        ],
    ));
    (v, games_of(&pgn))
}

/// With one game an encounter, a draw is a tie: one more game, colours
/// reversed, which X loses (its fifth `go` is its second move of game 2).
#[test]
fn a_tie_with_an_odd_number_of_games_goes_on_one_game_at_a_time() {
    let t = TempDir::new("knockout-odd");
    let (v, games) = two_mocks(&t, 1, 5);
    let ko = &v["knockout"];
    assert_eq!(ko["winner"], "Y", "{ko}");
    let e = &ko["rounds"][0][0];
    assert_eq!(e["players"], serde_json::json!(["X", "Y"]), "{e}");
    assert_eq!(e["score"], serde_json::json!([0.5, 1.5]), "{e}");
    assert_eq!(e["games"], 2, "{e}");
    let seen: Vec<(&str, &str, &str)> = games
        .iter()
        .map(|g| (g.white.as_str(), g.black.as_str(), g.result.as_str()))
        .collect();
    assert_eq!(seen, [("X", "Y", "1/2-1/2"), ("Y", "X", "1-0")]);
    assert!(games.iter().all(|g| g.round == "1"), "{games:?}");
}

/// With two games an encounter, ties go on by pairs: four draws, then X
/// loses game 5 (its 13th `go`), and game 6 is still played (a drawn one).
#[test]
fn a_tie_with_an_even_number_of_games_goes_on_by_pairs() {
    let t = TempDir::new("knockout-even");
    let (v, games) = two_mocks(&t, 2, 13);
    let e = &v["knockout"]["rounds"][0][0];
    assert_eq!(e["score"], serde_json::json!([2.5, 3.5]), "{e}");
    assert_eq!(e["games"], 6, "{e}");
    assert_eq!(v["knockout"]["winner"], "Y");
    let results: Vec<&str> = games.iter().map(|g| g.result.as_str()).collect();
    assert_eq!(
        results,
        ["1/2-1/2", "1/2-1/2", "1/2-1/2", "1/2-1/2", "0-1", "1/2-1/2"]
    );
    let whites: Vec<&str> = games.iter().map(|g| g.white.as_str()).collect();
    assert_eq!(whites, ["X", "Y", "X", "Y", "X", "Y"]);
}

/// Five engines seeded by their order: three built-in engines of
/// different strengths and two mock engines playing random moves. Byes for
/// the three top seeds, one winner at the end, every game of the bracket
/// once in the PGN, Round tags the bracket's rounds, and the bracket
/// printed. (Two engines that draw every game would tie for ever, as in
/// cutechess-cli: the strengths differ.)
#[test]
fn five_engines_play_to_one_winner_with_every_game_once() {
    let t = TempDir::new("knockout-five");
    let pgn = t.join("five.pgn");
    let mock = mock_engine();
    let line = "--tournament knockout --seeds 5 --srand 3 --games 1 --concurrency 2 \
                --maxmoves 80 --resign movecount=3 score=600 \
                --openings file={book} order=random --pgnout {pgn} --json \
                --engine cmd=builtin name=B1 nodes=1500 --engine cmd=builtin name=B2 nodes=15 \
                --engine cmd={mock} name=M3 arg=--random arg=3 nodes=10 \
                --engine cmd=builtin name=B4 nodes=200 \
                --engine cmd={mock} name=M5 arg=--random arg=5 nodes=10";
    let out = run_match(&argv(
        line,
        &[("book", BOOK), ("pgn", s(&pgn)), ("mock", &mock)],
    ));
    assert!(out.status.success(), "{}", describe(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ko = &v["knockout"];
    let rounds = ko["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 3, "{ko}");
    let first = rounds[0].as_array().unwrap();
    assert_eq!(first.len(), 4);
    let byes = first.iter().filter(|e| e["players"][1].is_null()).count();
    assert_eq!(byes, 3, "{ko}");
    // Each round's players are the winners of the one before.
    for r in 1..rounds.len() {
        let winners: Vec<&Value> = rounds[r - 1]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| &e["winner"])
            .collect();
        let players: Vec<&Value> = rounds[r]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|e| e["players"].as_array().unwrap())
            .collect();
        assert_eq!(players, winners, "round {}: {ko}", r + 1);
    }
    let winner = ko["winner"].as_str().expect("one winner");
    assert_eq!(rounds[2][0]["winner"], winner);
    // Every game once: the PGN's games per round are the bracket's.
    let games = games_of(&pgn);
    for (r, round) in rounds.iter().enumerate() {
        let paired: u64 = round
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["games"].as_u64().unwrap())
            .sum();
        let tag = (r + 1).to_string();
        let in_pgn = games.iter().filter(|g| g.round == tag).count() as u64;
        assert_eq!(in_pgn, paired, "round {tag}: {ko}");
        for e in round.as_array().unwrap() {
            let [a, b] = [e["players"][0].as_str(), e["players"][1].as_str()];
            let (Some(a), Some(b)) = (a, b) else { continue };
            let between = games
                .iter()
                .filter(|g| {
                    g.round == tag
                        && ((g.white == a && g.black == b) || (g.white == b && g.black == a))
                })
                .count() as u64;
            assert_eq!(between, e["games"].as_u64().unwrap(), "{a} - {b}: {ko}");
        }
    }
    assert_eq!(v["standings"]["games"].as_u64(), Some(games.len() as u64));
    assert!(games.len() >= 4, "{} games", games.len());
    let printed = text(&out.stderr);
    assert!(
        printed.contains("Knockout bracket:")
            && printed.contains(&format!("Knockout winner: {winner}")),
        "{printed}"
    );
}

fn journal_moves(path: &Path, game: u64) -> usize {
    let bytes = std::fs::read(path).unwrap_or_default();
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(|e| e["type"] == "move" && e["game"] == game)
        .count()
}

/// Three players (the top seed has a bye): the final's pairing depends on
/// the first game's result. Killed with SIGKILL in the middle of the final
/// and resumed, the knockout has the games of an uninterrupted run, each
/// once, and the same bracket.
#[test]
fn kill_9_in_the_final_and_resume_give_the_games_of_an_uninterrupted_run() {
    let t = TempDir::new("knockout-resume");
    let mock = mock_engine();
    let line = "--tournament knockout --seeds 3 --games 1 --maxmoves 60 \
                --engine cmd={mock} name=M1 arg=--slow arg=60 --engine cmd=builtin name=B nodes=300 \
                --engine cmd={mock} name=M2 arg=--slow arg=60 --each tc=60+0.1 --pgnout {pgn}";
    let whole = t.join("whole.pgn");
    let v = json_match(&argv(
        &format!("{line} --json"),
        &[("mock", &mock), ("pgn", s(&whole))],
    ));
    let expected = games_of(&whole);
    assert_eq!(expected.len(), 2, "{expected:?}");

    let cut = t.join("cut.pgn");
    let journal = t.join("cut.pgn.journal");
    let mut child = spawn_match(&argv(line, &[("mock", &mock), ("pgn", s(&cut))]));
    // The final is game 1 (0-based); wait (bounded) for some of its moves.
    kill_when_ready(
        &mut child,
        "the knockout",
        "the final never started",
        RUN_LIMIT,
        || journal_moves(&journal, 1) >= 4,
    );
    assert_eq!(games_of(&cut).len(), 1, "only the first game was over");
    let resumed = json_match(&argv(
        "--resume {journal} --json",
        &[("journal", s(&journal))],
    ));
    // The same games (players, colours, rounds, results), each once; the
    // built-in engine, started afresh, may pick other moves after the cut
    // than it did with its search state of the uninterrupted run.
    let got = games_of(&cut);
    let who = |g: &[Game]| -> Vec<(String, String, String, String)> {
        g.iter()
            .map(|g| {
                (
                    g.round.clone(),
                    g.white.clone(),
                    g.black.clone(),
                    g.result.clone(),
                )
            })
            .collect()
    };
    assert_eq!(who(&got), who(&expected));
    assert_eq!(got[0], expected[0]);
    // The four plies journaled before the kill (a number and a move each).
    let resumed_moves: Vec<&str> = got[1].moves.split(' ').collect();
    let whole: Vec<&str> = expected[1].moves.split(' ').collect();
    assert!(resumed_moves.len() >= 8 && whole.len() >= 8, "{got:?}");
    assert_eq!(
        resumed_moves[..8],
        whole[..8],
        "the final's first moves were kept"
    );
    assert_eq!(resumed["knockout"], v["knockout"]);
    assert_eq!(resumed["knockout"]["winner"], "B");
}

/// What a knockout cannot do is refused before any game.
#[test]
fn sprt_and_rounds_are_refused_for_a_knockout() {
    for (extra, needle) in [
        ("--sprt elo0=0 elo1=5", "--sprt cannot decide a knockout"),
        ("--rounds 2", "a knockout is played once"),
    ] {
        let out = run_match(&argv(
            &format!(
                "--tournament knockout --engine cmd=builtin --engine cmd=builtin \
                 --each nodes=10 {extra}"
            ),
            &[],
        ));
        assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
        assert!(text(&out.stderr).contains(needle), "{}", describe(&out));
    }
}
