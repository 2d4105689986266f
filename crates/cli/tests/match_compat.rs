//! cutechess-cli's and fastchess's command lines run by `rookery match`
//! (issue 34, items 6 and 8), end to end:
//!
//! - command lines from real engine authors' scripts, run verbatim by the
//!   shell through links named `cutechess-cli` and `fastchess` (only the
//!   engines, their limits and the game counts are made small), whose output
//!   is read with the regular expressions such scripts use, and fastchess's
//!   own end-to-end script's checks of its rating reports;
//! - words refused naming the word; `conf=` from an `engines.json`;
//!   `-noswap`, `-reverse`, negative `-srand`, `-pgnout ... min fi`,
//!   `-debug`, `-config`;
//! - pondering (`ponder`) with the mock engine recording what it is sent,
//!   and between two Stockfish.
//!
//! The regular expressions are Python's (`re`), as the scripts' are;
//! python3 is looked up like the other peers.

use crate::common::{mock_engine, s, stockfish, text, ROOKERY, ROOKERY_ENGINE};
use rookery_testkit::cmd::{Cmd, KillOnDrop};
use rookery_testkit::{peer, pgn_text, TempDir};
use std::io::Read;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

/// A liveness bound for one run (not a speed assertion).
const RUN_LIMIT: Duration = Duration::from_secs(600);

/// The small book the matches take their openings from.
const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-small.epd");

/// Runs `cmd` to its end with both pipes drained, killing it past
/// [`RUN_LIMIT`].
fn bounded(cmd: Cmd) -> Output {
    let line = cmd.line();
    let mut child = KillOnDrop(cmd.spawn());
    drop(child.0.stdin.take());
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.0.stdout.take().expect("piped stdout")));
    let err = drain(Box::new(child.0.stderr.take().expect("piped stderr")));
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.0.try_wait().expect("wait") {
            break st;
        }
        assert!(
            t0.elapsed() < RUN_LIMIT,
            "{line} did not finish within {RUN_LIMIT:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().expect("stdout"),
        stderr: err.join().expect("stderr"),
    }
}

fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// A directory with `cutechess-cli` and `fastchess` as links to the built
/// `rookery`, and the small book as `book.epd`.
fn workdir(tag: &str) -> TempDir {
    let t = TempDir::new(&format!("match-compat-{tag}"));
    std::fs::create_dir(t.join("bin")).unwrap();
    for name in ["cutechess-cli", "fastchess"] {
        std::os::unix::fs::symlink(ROOKERY, t.join("bin").join(name)).unwrap();
    }
    std::fs::copy(BOOK, t.join("book.epd")).unwrap();
    t
}

/// Runs a shell command line in `t` with its links first on PATH.
fn shell(t: &TempDir, line: &str) -> Output {
    let path = format!(
        "{}:{}",
        t.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    bounded(
        Cmd::new("/bin/sh")
            .args(["-c", line])
            .dir(t.path())
            .env("PATH", path),
    )
}

/// Runs `rookery ARGS` (words split at spaces) in `t`.
fn rookery_in(t: &TempDir, line: &str) -> Output {
    bounded(
        Cmd::new(ROOKERY)
            .args(line.split_whitespace())
            .dir(t.path()),
    )
}

/// `re.findall(pattern, text)` for each pattern, by python3: a list of
/// matches (each a list of groups) per pattern; `None` when python3 is
/// missing (and the test may skip).
fn findall(text: &str, patterns: &[&str]) -> Option<Vec<Vec<Vec<String>>>> {
    let python = peer::require("python3", &["python3"], None)?;
    let script = "import json, re, sys\n\
                  d = json.load(sys.stdin)\n\
                  out = []\n\
                  for p in d['patterns']:\n\
                  \x20   ms = re.findall(p, d['text'], re.M)\n\
                  \x20   out.append([list(m) if isinstance(m, tuple) else [m] for m in ms])\n\
                  print(json.dumps(out))\n";
    let input = serde_json::json!({ "text": text, "patterns": patterns }).to_string();
    let run = Cmd::new(python).args(["-c", script]).stdin(input).run();
    run.assert_code(0);
    Some(serde_json::from_str(&run.stdout_text()).expect("python prints JSON"))
}

/// The results of a PGN file's games as (White, Black, Result), read with
/// no help from rookery.
fn results(pgn: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(pgn).unwrap_or_default();
    pgn_text::games(&text)
        .iter()
        .map(|g| {
            let tag = |t: &str| pgn_text::tag(g, t).unwrap_or_default().to_string();
            (tag("White"), tag("Black"), tag("Result"))
        })
        .collect()
}

/// Wins, losses and draws of `name` in `games`.
fn wld(games: &[(String, String, String)], name: &str) -> (u64, u64, u64) {
    let (mut w, mut l, mut d) = (0, 0, 0);
    for (white, _, result) in games {
        match (result.as_str(), white == name) {
            ("1/2-1/2", _) => d += 1,
            ("1-0", true) | ("0-1", false) => w += 1,
            ("1-0", false) | ("0-1", true) => l += 1,
            _ => {}
        }
    }
    (w, l, d)
}

fn num(s: &str) -> u64 {
    s.parse().unwrap_or_else(|_| panic!("{s:?} is not a count"))
}

// ---------------------------------------------------------------------
// 1. Real scripts' command lines, run as written.
// ---------------------------------------------------------------------

/// The SPRT command of Maelstrom's README (saisree27/Maelstrom, "Engine
/// Testing"), its placeholders filled with the built-in engine, a node
/// limit and 12 moves a game for `tc=8+0.08`, 3 rounds for 1000 and 2 games
/// at once for 8: it runs, and its output reads with the expressions
/// scripts parse cutechess-cli's with. The final score is the PGN's games.
/// (Short games keep the SPRT from deciding on the first decisive game, as
/// rookery's SPRT may before a pair is complete, which would leave an Elo
/// interval with an infinite end.)
#[test]
fn a_cutechess_sprt_line_from_an_engines_readme_runs_and_parses() {
    let t = workdir("readme");
    let line = "cutechess-cli -engine proto=uci cmd={BINARY_TO_TEST} name={TEST_NAME} \
        -engine proto=uci cmd={EXISTING_VERISON_BINARY} name={EXISTING_NAME} \
        -each tc=8+0.08 option.Hash=32 -games 2 -rounds 1000 -repeat -concurrency 8 \
        -openings file={PATH_TO_EPD} format=epd order=random -pgnout {PATH_TO_PGN} \
        -sprt elo0=0 elo1=5 alpha=0.05 beta=0.1 -ratinginterval 10";
    let line = line
        .replace("{BINARY_TO_TEST}", "builtin")
        .replace("{TEST_NAME}", "new")
        .replace("{EXISTING_VERISON_BINARY}", "builtin")
        .replace("{EXISTING_NAME}", "base")
        .replace("tc=8+0.08", "tc=inf nodes=400")
        .replace("-rounds 1000", "-rounds 3")
        .replace("-concurrency 8", "-concurrency 2")
        .replace("{PATH_TO_EPD}", "book.epd")
        .replace("{PATH_TO_PGN}", "games.pgn")
        + " -maxmoves 12";
    let out = shell(&t, &line);
    assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
    let stdout = text(&out.stdout);
    let Some(found) = findall(
        &stdout,
        &[
            r"^Started game (\d+) of (\d+) \((.+) vs (.+)\)$",
            r"^Finished game (\d+) \((.+) vs (.+)\): (1-0|0-1|1/2-1/2) \{(.+)\}$",
            r"Score of (.+) vs (.+): (\d+) - (\d+) - (\d+)",
            r"Elo difference: ([-\d.]+) \+/- ([-\d.]+)",
            r"^SPRT: llr ([-\d.e+]+) \(([-\d.]+)%\), lbound ([-\d.e+]+), ubound ([-\d.e+]+)",
            r"^\.\.\.      (.+) playing (White|Black): (\d+) - (\d+) - (\d+)",
        ],
    ) else {
        return;
    };
    let games = results(&t.join("games.pgn"));
    let n = games.len();
    // All 6 games, unless the SPRT decided first.
    assert!(
        n == 6 || (n >= 2 && stdout.contains(" was accepted")),
        "{}",
        describe(&out)
    );
    assert_eq!(found[0].len(), n, "{stdout}");
    assert!(found[0].iter().all(|m| m[1] == "6"), "{stdout}");
    assert_eq!(found[1].len(), n, "{stdout}");
    let last = found[2].last().expect("a score line");
    assert_eq!((last[0].as_str(), last[1].as_str()), ("new", "base"));
    let (w, l, d) = wld(&games, "new");
    assert_eq!(
        (num(&last[2]), num(&last[3]), num(&last[4])),
        (w, l, d),
        "{stdout}"
    );
    assert_eq!(found[3].len(), 1, "{stdout}");
    assert_eq!(found[4].len(), 1, "{stdout}");
    // The lower bound is ln(beta / (1 - alpha)) with beta = 0.1.
    assert_eq!(found[4][0][2], "-2.25", "{stdout}");
    let sides: u64 = found[5]
        .iter()
        .map(|m| num(&m[2]) + num(&m[3]) + num(&m[4]))
        .sum();
    assert_eq!(sides, n as u64, "{stdout}");
    assert_eq!(stdout.lines().last(), Some("Finished match"), "{stdout}");
    // Each opening twice, colours reversed: three openings.
    let fens: std::collections::HashSet<String> = {
        let text = std::fs::read_to_string(t.join("games.pgn")).unwrap();
        pgn_text::games(&text)
            .iter()
            .map(|g| pgn_text::tag(g, "FEN").unwrap_or_default().to_string())
            .collect()
    };
    assert!(fens.len() <= 3, "{fens:?}");
}

/// viridithas's long-time-control regression test (cosmobobak/viridithas,
/// scripts/ltctest.sh) as written but for the engines, the clock and the
/// game counts: `-repeat -games 2` plays pairs, `-event` names the event,
/// `timemargin=` is taken, and `-openings ... format=pgn` reads a PGN book.
#[test]
fn viridithas_ltc_regression_line() {
    let t = workdir("ltc");
    // The book as PGN (the script's is).
    let pgn_book: String = std::fs::read_to_string(BOOK)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(2)
        .map(|l| {
            let fen: Vec<&str> = l.split_whitespace().take(4).collect();
            format!("[FEN \"{} 0 1\"]\n[SetUp \"1\"]\n\n*\n\n", fen.join(" "))
        })
        .collect();
    std::fs::create_dir(t.join("up")).unwrap();
    t.write("up/uhobook.pgn", pgn_book);
    std::fs::create_dir(t.join("run")).unwrap();
    let line = "nice -n 10 cutechess-cli -engine cmd=target/release/viridithas name=$1 \
        -engine cmd=dev name=dev -each timemargin=400 proto=uci tc=60+0.6 -rounds 2500 \
        -concurrency 60 -openings file=../uhobook.pgn order=random format=pgn -repeat -games 2 \
        -pgnout ltctests.pgn -event LTC_REGRESSION_TEST"
        .replace(
            "cmd=target/release/viridithas name=$1",
            "cmd=builtin name=tested",
        )
        .replace("cmd=dev", "cmd=builtin")
        .replace("tc=60+0.6", "tc=inf depth=2")
        .replace("-rounds 2500", "-rounds 2 -maxmoves 40")
        .replace("-concurrency 60", "-concurrency 2")
        .replace("../uhobook.pgn", "../up/uhobook.pgn");
    let out = shell(&t, &format!("cd run && {line}"));
    assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
    let pgn = std::fs::read_to_string(t.join("run/ltctests.pgn")).unwrap();
    let games = pgn_text::games(&pgn);
    assert_eq!(games.len(), 4, "{pgn}");
    for g in &games {
        assert_eq!(
            pgn_text::tag(g, "Event"),
            Some("LTC_REGRESSION_TEST"),
            "{g}"
        );
    }
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Score of tested vs dev: "), "{stdout}");
    assert!(stdout.ends_with("Finished match\n"), "{stdout}");
}

/// fastchess's own end-to-end test of its rating reports
/// (Disservin/fastchess, app/tests/e2e/rating_interval.sh): both command
/// lines run verbatim (`./fastchess` a link to rookery, `./random_mover`
/// the mock engine playing random moves, the book where the script has
/// it), and the script's checks hold: 10 games, 5 reports of single games
/// with `-report penta=false`, 3 of game pairs with `penta=true` (at pairs
/// 2 and 4, and at the end), each with `Elo:` and `Games:`, `Ptnml` with
/// pairs.
#[test]
fn fastchess_rating_interval_script_checks_hold() {
    let t = workdir("fastchess-e2e");
    std::os::unix::fs::symlink(ROOKERY, t.join("fastchess")).unwrap();
    t.script(
        "random_mover",
        &format!("exec '{}' --random 11 \"$@\"\n", mock_engine()),
    );
    std::fs::create_dir_all(t.join("app/tests/data")).unwrap();
    std::fs::copy(BOOK, t.join("app/tests/data/openings.epd")).unwrap();
    for (penta, reports) in [("false", 5), ("true", 3)] {
        let concurrency = if penta == "false" { 2 } else { 1 };
        let line = format!(
            "./fastchess -engine cmd=./random_mover name=random_move_1 -engine cmd=./random_mover name=random_move_2 \\\n    \
             -each tc=2+0.02s -rounds 5 -repeat -concurrency {concurrency} -ratinginterval 2 -report penta={penta} \\\n    \
             -openings file=./app/tests/data/openings.epd format=epd order=random -log file=log.txt level=info 2>&1"
        );
        let out = shell(&t, &line);
        assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
        let stdout = text(&out.stdout);
        assert!(stdout.contains("Finished game 10"), "{stdout}");
        assert_eq!(
            stdout.matches("Results of").count(),
            reports,
            "penta={penta}\n{stdout}"
        );
        assert!(
            stdout.contains("Elo:") && stdout.contains("Games:"),
            "{stdout}"
        );
        assert_eq!(stdout.contains("Ptnml"), penta == "true", "{stdout}");
        let Some(found) = findall(
            &stdout,
            &[
                r"^Elo: ([-\d.]+) \+/- ([-\d.]+), nElo: ",
                r"^Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+), Points: ([\d.]+) \(([\d.]+) %\)$",
            ],
        ) else {
            return;
        };
        assert_eq!(found[0].len(), reports, "{stdout}");
        let last = found[1].last().expect("a Games line");
        assert_eq!(num(&last[0]), 10, "{stdout}");
        assert_eq!(
            num(&last[1]) + num(&last[2]) + num(&last[3]),
            10,
            "{stdout}"
        );
        let tail: Vec<&str> = stdout.lines().rev().take(2).collect();
        assert_eq!(tail, ["Finished match", "Tournament finished"], "{stdout}");
        // The log has both engines' conversations.
        let log = std::fs::read_to_string(t.join("log.txt")).unwrap();
        assert!(log.contains("random_move_1#1.1 < uci"), "{log}");
    }
}

/// A fastchess SPRT line (the shape of fastchess's README example, names
/// with spaces and all): `LLR:` and the Elo read, the PGN is written as
/// `-pgnout file=` says, and the run ends with the SPRT's words or
/// `Tournament finished`.
#[test]
fn a_fastchess_sprt_line_runs_and_parses() {
    let t = workdir("fastchess-sprt");
    let line = "fastchess -engine cmd=builtin name=\"Crumb new version\" \\\n  \
        -engine cmd=builtin name=\"Crumb base version\" \\\n  \
        -each nodes=300 \\\n  \
        -openings file=book.epd format=epd order=random \\\n  \
        -rounds 3 -repeat -concurrency 2 \\\n  \
        -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 \\\n  \
        -pgnout file=sprt.pgn -maxmoves 60";
    let out = shell(&t, line);
    assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
    let stdout = text(&out.stdout);
    let Some(found) = findall(
        &stdout,
        &[
            r"^Results of (.+) vs (.+) \((.+)\):$",
            r"^Elo: ([-\d.]+) \+/- ([-\d.]+)",
            r"^LLR: ([-\d.]+) \(([-\d.]+)%\) \(([-\d.]+), ([-\d.]+)\) \[([-\d.]+), ([-\d.]+)\]$",
            r"^Ptnml\(0-2\): \[(\d+), (\d+), (\d+), (\d+), (\d+)\]$",
            r"^Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+)",
        ],
    ) else {
        return;
    };
    let head = found[0].last().expect("a results block");
    assert_eq!(
        (head[0].as_str(), head[1].as_str()),
        ("Crumb new version", "Crumb base version")
    );
    assert!(
        head[2].starts_with("300 nodes, NULL, NULL, book.epd"),
        "{head:?}"
    );
    assert!(!found[1].is_empty());
    let llr = found[2].last().expect("an LLR line");
    assert_eq!((llr[2].as_str(), llr[3].as_str()), ("-2.94", "2.94"));
    assert_eq!((llr[4].as_str(), llr[5].as_str()), ("0.00", "10.00"));
    let games = results(&t.join("sprt.pgn")).len() as u64;
    let counts = found[4].last().expect("a Games line");
    let pairs: u64 = found[3].last().expect("Ptnml").iter().map(|c| num(c)).sum();
    // The pentanomial block counts the games of complete pairs.
    assert_eq!(num(&counts[0]), 2 * pairs, "{stdout}");
    assert!(2 * pairs <= games && games <= 2 * pairs + 1, "{stdout}");
    let mut tail = stdout.lines().rev();
    assert_eq!(tail.next(), Some("Finished match"), "{stdout}");
    let end = tail.next().unwrap_or_default();
    assert!(
        end == "Tournament finished" || end.starts_with("SPRT ([0.00, 10.00]) completed - H"),
        "{stdout}"
    );
}

/// fishtest's worker reads fastchess's pentanomial blocks and checks
/// `games == 2 * sum(ptnml)` on every one (fishtest `worker/games.py`); it
/// always plays with concurrency above 1, so some blocks come while a pair
/// is half played. Every block counts only the games of complete pairs
/// (before: `Games: 3` beside one pair), the W/L/D add up to those games,
/// and the run ends with fastchess's `Finished match`.
#[test]
fn every_pentanomial_block_counts_the_games_of_complete_pairs() {
    let t = workdir("fastchess-penta");
    let line = "fastchess -engine cmd=builtin name=new -engine cmd=builtin name=base \
        -each nodes=200 -openings file=book.epd format=epd order=random \
        -rounds 6 -games 2 -repeat -concurrency 3 -ratinginterval 1 -report penta=true \
        -maxmoves 30 -srand 5";
    let out = shell(&t, line);
    assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
    let stdout = text(&out.stdout);
    let Some(found) = findall(
        &stdout,
        &[
            r"^Games: (\d+), Wins: (\d+), Losses: (\d+), Draws: (\d+)",
            r"^Ptnml\(0-2\): \[(\d+), (\d+), (\d+), (\d+), (\d+)\]$",
        ],
    ) else {
        return;
    };
    let (games, ptnml) = (&found[0], &found[1]);
    assert_eq!(games.len(), ptnml.len(), "{stdout}");
    assert!(
        games.len() >= 6,
        "a block a pair and one at the end: {stdout}"
    );
    for (g, p) in games.iter().zip(ptnml) {
        let n = num(&g[0]);
        let pairs: u64 = p.iter().map(|c| num(c)).sum();
        assert_eq!(n, 2 * pairs, "fishtest's check: {g:?} {p:?}\n{stdout}");
        assert_eq!(num(&g[1]) + num(&g[2]) + num(&g[3]), n, "{g:?}\n{stdout}");
    }
    assert_eq!(stdout.lines().last(), Some("Finished match"), "{stdout}");
}

/// Runs `parser` (Python source reading the tool's standard output on
/// its standard input, printing JSON) with python3; `None` (a skip) when
/// python3 is missing.
fn parse_with(parser: &str, stdout: &[u8]) -> Option<serde_json::Value> {
    let python = peer::require("python3", &["python3"], None)?;
    let run = Cmd::new(python).args(["-c", parser]).stdin(stdout).run();
    run.assert_code(0);
    Some(serde_json::from_str(&run.stdout_text()).expect("the parser prints JSON"))
}

/// weather-factory's SPSA tuner (jnlt3/weather-factory, cutechess.py,
/// `CutechessMan.get_cutechess_cmd` with `use_fastchess` true, its default):
/// the line it builds, run through a program named `fastchess` with
/// weather-factory's `tuner/` layout (the engine a script starting the
/// built-in engine, the clock and game count made small), read with its
/// own parsing rules written out in Python: each line stripped and decoded
/// as ASCII, reading stopped at the first empty line, `Score of` split at
/// `:` and `[` into W - L - D, `Elo difference` read up to `+`. Before,
/// `-config discard=true` was refused and the tuner read
/// `MatchResult(0, 0, 0, 0.0)` from every match.
#[test]
fn weather_factory_line_runs_and_its_parser_reads_the_games() {
    let t = workdir("weather-factory");
    std::fs::create_dir(t.join("tuner")).unwrap();
    t.script(
        "tuner/engine",
        &format!("exec '{}' \"$@\"\n", ROOKERY_ENGINE),
    );
    std::fs::copy(BOOK, t.join("tuner/book.epd")).unwrap();
    // cutechess.py: command, then the words it appends (params empty).
    let line = "fastchess -config discard=true outname=tuner/fastchess_config.json -output format=cutechess \
        -engine cmd=./tuner/engine name=engine-1 proto=uci option.Hash=8  \
        -engine cmd=./tuner/engine name=engine-2 proto=uci option.Hash=8  \
        -resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10 -recover \
        -concurrency 1 -each tc=5+0.05 \
        -openings file=tuner/book.epd format=epd order=random plies=16 \
        -repeat 2 -games 2 -rounds 8 -pgnout tuner/games.pgn"
        .replace("tc=5+0.05", "tc=1+0.01")
        .replace("-rounds 8", "-rounds 2");
    let out = shell(&t, &line);
    assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
    let parser = r#"
import json, sys
score, elo_diff = [0, 0, 0], 0.0
for raw in sys.stdin.buffer:
    line = raw.strip().decode('ascii')
    if not line:
        break
    if line.startswith("Score of"):
        start_index = line.find(":") + 1
        end_index = line.find("[")
        split = line[start_index:end_index].split(" - ")
        score = [int(i) for i in split]
    if line.startswith("Elo difference"):
        start_index = line.find(":") + 1
        end_index = line.find("+")
        elo_diff = float(line[start_index:end_index])
print(json.dumps({"wld": score, "elo": elo_diff}))
"#;
    let Some(read) = parse_with(parser, &out.stdout) else {
        return;
    };
    let games = results(&t.join("tuner/games.pgn"));
    assert_eq!(games.len(), 4, "{}", describe(&out));
    let (w, l, d) = wld(&games, "engine-1");
    assert_eq!(
        read["wld"],
        serde_json::json!([w, l, d]),
        "{}",
        describe(&out)
    );
    assert!(
        t.join("tuner/fastchess_config.json").exists(),
        "the journal"
    );
}

/// An SPRT that stops prints its last block once (it was printed twice:
/// the block of the deciding pair, then the same again at the end), then
/// fastchess's verdict and `Finished match`.
#[test]
fn a_decided_sprt_prints_its_last_block_once() {
    let t = workdir("sprt-once");
    let line =
        "fastchess -engine cmd=builtin name=weak nodes=1 -engine cmd=builtin name=strong depth=4 \
        -openings file=book.epd format=epd order=random -rounds 40 -repeat -concurrency 1 \
        -ratinginterval 1 -sprt elo0=0 elo1=150 alpha=0.05 beta=0.05";
    let out = shell(&t, line);
    assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
    let stdout = text(&out.stdout);
    let games: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Games: "))
        .collect();
    assert!(games.len() >= 2, "{stdout}");
    for w in games.windows(2) {
        assert_ne!(w[0], w[1], "a block printed twice:\n{stdout}");
    }
    let mut tail = stdout.lines().rev();
    assert_eq!(tail.next(), Some("Finished match"), "{stdout}");
    assert!(
        tail.next()
            .is_some_and(|l| l.starts_with("SPRT ([0.00, 150.00]) completed - H0")),
        "{stdout}"
    );
}

/// A Chess960 game's Variant tag is the imitated tool's: cutechess-cli
/// writes `fischerandom`, fastchess `Chess960`.
#[test]
fn the_chess960_variant_tag_is_the_tools() {
    let t = workdir("variant");
    for (tool, pgn, want) in [
        ("cutechess-cli", "-pgnout c.pgn", "fischerandom"),
        ("fastchess", "-pgnout file=f.pgn", "Chess960"),
    ] {
        let line = format!(
            "{tool} -engine cmd=builtin name=A -engine cmd=builtin name=B -each nodes=50 \
             -variant fischerandom -games 2 -rounds 1 -maxmoves 3 -srand 3 {pgn}"
        );
        let out = shell(&t, &line);
        assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
        let file = pgn.rsplit([' ', '=']).next().unwrap();
        let text = std::fs::read_to_string(t.join(file)).unwrap();
        let games = pgn_text::games(&text);
        assert!(!games.is_empty(), "{text}");
        for g in &games {
            assert_eq!(pgn_text::tag(g, "Variant"), Some(want), "{tool}: {g}");
        }
    }
}

/// fishtest's worker reading fastchess's output (official-stockfish/fishtest,
/// worker/games.py, `parse_fastchess_output`), its rules written out: a
/// line with `has CRC32:` gives the PGN's CRC (its last word); the error
/// patterns (`Warning; ... doesn't have option`, `Warning; Illegal PV
/// move`, ...) end the task; each `Games: ... Points:` line with its
/// `Ptnml(0-2):` line is a block, where `games == 2 * sum(ptnml)`, `W + L +
/// D == 2 * sum(ptnml)` and `games <= games_to_play` must hold; `Finished
/// match` with fewer games than asked is an unclean finish.
const FISHTEST_PARSER: &str = r#"
import json, re, sys
games_to_play = int(sys.argv[1])
pattern_WLD = re.compile(r"Games: ([0-9]+), Wins: ([0-9]+), Losses: ([0-9]+), Draws: ([0-9]+), Points: ([0-9.]+) \(")
pattern_ptnml = re.compile(r"Ptnml\(0-2\): \[([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+)\]")
errors = [re.compile(p) for p in (
    r"Warning;.*doesn't have option", r"Warning; Invalid value for option",
    r"Warning; Failed to set.*option", r"Warning; No info line available to extract score from engine",
    r"Warning; Illegal move", r"Warning; Could not extract score from engine",
    r"Warning; Illegal PV move", r"Warning; Move does not match uci move format",
    r"Warning; PV continues after checkmate", r"Warning; PV continues after stalemate",
    r"Warning; PV continues after threefold", r"Warning; PV continues after fifty-move rule",
    r"Warning; Incomplete mating PV", r"Warning; Too long mating PV",
    r"Warning; Mating PV does not end with checkmate",
    r"Warning; Bestmove does not match beginning of last PV", r"Warning; Sign mismatch in mate scores")]
out = {"crc": None, "blocks": 0, "errors": [], "finished": None, "wld": None, "ptnml": None}
wld = ptnml = None
finished_games = 0
for line in sys.stdin:
    line = line.strip()
    if "has CRC32:" in line:
        out["crc"] = line.split()[-1]
    if "Finished match" in line:
        out["finished"] = finished_games == games_to_play
    if any(p.search(line) for p in errors):
        out["errors"].append(line)
    m = pattern_WLD.search(line)
    if m:
        wld = [int(m.group(i)) for i in range(1, 5)]
    m = pattern_ptnml.search(line)
    if m:
        ptnml = [int(m.group(i)) for i in range(1, 6)]
    if ptnml is not None and wld is not None:
        assert 2 * sum(ptnml) == wld[1] + wld[2] + wld[3], (wld, ptnml)
        assert wld[0] == 2 * sum(ptnml), (wld, ptnml)
        assert wld[0] <= games_to_play
        finished_games = wld[0]
        out["blocks"] += 1
        out["wld"], out["ptnml"] = wld, ptnml
        wld = ptnml = None
print(json.dumps(out))
"#;

/// The command line fishtest's worker builds (official-stockfish/fishtest,
/// worker/games.py, `run_games`: the list `cmd`, the `_spsa_` markers
/// taken out as `launch_fastchess` does), as data: `{...}` are its values.
const FISHTEST_LINE: &[&str] = &[
    "-testEnv",
    "-recover",
    "-repeat",
    "-games",
    "2",
    "-rounds",
    "{rounds}",
    "-ratinginterval",
    "1",
    "-scoreinterval",
    "1",
    "-autosaveinterval",
    "0",
    "-report",
    "penta=true",
    "-pgnout",
    "file={pgn}",
    "append=false",
    "-crc32",
    "pgn=true",
    "-site",
    "https://tests.stockfishchess.org/tests/view/0123",
    "-event",
    "Batch 7: master vs master",
    "-srand",
    "{seed}",
    "-resign",
    "movecount=3",
    "score=600",
    "-draw",
    "movenumber=34",
    "movecount=8",
    "score=20",
    "-variant",
    "standard",
    "-concurrency",
    "{concurrency}",
    "-openings",
    "file={book}",
    "format=epd",
    "order=random",
    "plies=16",
    "start=1",
    "-check-mate-pvs",
    "-engine",
    "name=New-0123456789",
    "tc={tc}",
    "cmd={new}",
    "dir=.",
    "option.Hash=16",
    "-engine",
    "name=Base-0123456789",
    "tc={tc}",
    "cmd={base}",
    "dir=.",
    "option.Hash=16",
    "-each",
    "proto=uci",
    "option.Threads=1",
];

/// Runs fishtest's line with these values through a program named
/// `fastchess` and reads its output with fishtest's rules.
fn run_fishtest_line(
    t: &TempDir,
    values: &[(&str, String)],
    games: u64,
) -> (Output, Option<serde_json::Value>) {
    let args: Vec<String> = FISHTEST_LINE
        .iter()
        .map(|w| {
            values
                .iter()
                .fold(w.to_string(), |w, (k, v)| w.replace(&format!("{{{k}}}"), v))
        })
        .collect();
    let out = bounded(Cmd::new(t.join("bin/fastchess")).args(&args).dir(t.path()));
    let Some(python) = peer::require("python3", &["python3"], None) else {
        return (out, None);
    };
    let run = Cmd::new(python)
        .args(["-c", FISHTEST_PARSER, &games.to_string()])
        .stdin(out.stdout.clone())
        .run();
    assert_eq!(
        run.code(),
        Some(0),
        "fishtest's parser: {}\n{}",
        run.describe(),
        describe(&out)
    );
    let read = serde_json::from_str(&run.stdout_text()).expect("the parser prints JSON");
    (out, Some(read))
}

/// fishtest's line, run unchanged with two Stockfish at a short clock and
/// three games at once: every block passes fishtest's checks, the last
/// has every game, `Finished match` is clean, the CRC is the PGN's, no
/// warning fishtest treats as an engine error but a mating PV that is
/// indeed not the mate's length (Debian's Stockfish gives some; every
/// other PV of it passes every check), and the W/L/D and pentanomial
/// counts are the PGN's. Before, `-testEnv` was refused, then `-crc32`,
/// `append=false` and `-check-mate-pvs`.
#[test]
fn fishtest_line_runs_and_its_parser_reads_the_games() {
    let Some(sf) = stockfish() else {
        return;
    };
    let t = workdir("fishtest");
    let games = 6;
    let values = [
        ("rounds", (games / 2).to_string()),
        ("pgn", "task.pgn".to_string()),
        ("seed", "4242".to_string()),
        ("concurrency", "3".to_string()),
        ("book", "book.epd".to_string()),
        ("tc", "1+0.01".to_string()),
        ("new", sf.clone()),
        ("base", sf),
    ];
    let (out, read) = run_fishtest_line(&t, &values, games);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let Some(read) = read else {
        return;
    };
    // Debian's Stockfish (older than fishtest's) sometimes reports a mate
    // with a PV shorter than the mate: fastchess warns of it too. Every
    // warning must be one, and right: the PV's length is not the mate's.
    for e in read["errors"].as_array().unwrap() {
        let e = e.as_str().unwrap();
        let incomplete = e.starts_with("Warning; Incomplete mating PV - from ");
        let too_long = e.starts_with("Warning; Too long mating PV - from ");
        assert!(incomplete || too_long, "{e}\n{}", describe(&out));
        let info = e.split(" :: ").nth(1).unwrap().trim_start_matches("Info; ");
        let words: Vec<&str> = info.split_whitespace().collect();
        let at = |key: &str| words.iter().position(|w| *w == key).unwrap();
        assert_eq!(words[at("score") + 1], "mate", "{e}");
        let n: i64 = words[at("score") + 2].parse().unwrap();
        let plies = if n > 0 { 2 * n - 1 } else { -2 * n } as usize;
        let pv = words.len() - at("pv") - 1;
        assert!(
            (incomplete && pv < plies) || (too_long && pv > plies),
            "mate {n}, {pv} plies: {e}"
        );
    }
    assert_eq!(read["finished"], true, "{read}\n{}", describe(&out));
    assert!(read["blocks"].as_u64().unwrap() >= 3, "{read}");
    let pgn_bytes = std::fs::read(t.join("task.pgn")).unwrap();
    let mut crc = flate2::Crc::new();
    crc.update(&pgn_bytes);
    assert_eq!(read["crc"], format!("{:#x}", crc.sum()), "{read}");
    let pgn = results(&t.join("task.pgn"));
    assert_eq!(pgn.len() as u64, games);
    let (w, l, d) = wld(&pgn, "New-0123456789");
    assert_eq!(
        read["wld"],
        serde_json::json!([games, w, l, d]),
        "{read}\n{}",
        describe(&out)
    );
}

/// An engine whose PVs are not legal (the mock's `--bad-pv`) against one
/// whose are (the mock), neither with a `Threads` option, in fishtest's
/// line: fastchess's warning line for
/// the option and for each of its moves, which fishtest's parser takes for
/// engine errors and ends the task on, as it does with fastchess.
#[test]
fn a_bad_pv_is_the_warning_fishtest_stops_on() {
    let t = workdir("fishtest-bad-pv");
    let bad = t.script(
        "bad-engine",
        &format!("exec '{}' --bad-pv \"$@\"\n", mock_engine()),
    );
    let games = 2;
    let values = [
        ("rounds", "1".to_string()),
        ("pgn", "task.pgn".to_string()),
        ("seed", "1".to_string()),
        ("concurrency", "2".to_string()),
        ("book", "book.epd".to_string()),
        ("tc", "2+0.02".to_string()),
        ("new", s(&bad).to_string()),
        ("base", mock_engine()),
    ];
    let (out, read) = run_fishtest_line(&t, &values, games);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let Some(read) = read else {
        return;
    };
    let errors: Vec<String> = read["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    // The mock has no Threads option: fastchess's words, which fishtest
    // stops a task on too.
    assert_eq!(
        errors[..2],
        [
            "Warning; New-0123456789 doesn't have option Threads",
            "Warning; Base-0123456789 doesn't have option Threads"
        ],
        "{}",
        describe(&out)
    );
    assert!(errors.len() > 2, "{}", describe(&out));
    // Its PVs: its move twice, illegal (or, once the mocks repeat the
    // position, a move after the threefold repetition); none of the other.
    assert!(errors[2..]
        .iter()
        .any(|e| e.starts_with("Warning; Illegal PV move - move ")));
    for e in &errors[2..] {
        assert!(
            (e.starts_with("Warning; Illegal PV move - move ")
                || e.starts_with("Warning; PV continues after threefold repetition - move "))
                && e.contains(" from New-0123456789 :: Info; info "),
            "{e}"
        );
    }
}

/// OpenBench's client (AndyGrant/OpenBench, Client/worker.py,
/// `build_runner_command` from the `MatchRunner` settings), the line it
/// builds as data, run through a program named `fastchess-ob` with
/// OpenBench's layout (`Engines/`, `Books/`, `PGNs/`), then read as
/// `run_and_parse_runner` reads it: each line stripped and decoded as
/// ASCII, reading stopped at the first empty line, every `Finished game`
/// line's game number (word 3) and result (word 7) paired into trinomial
/// and pentanomial counts; and its PGN sliced as `PGNHelper.slice_pgn_file`
/// slices it (tag lines up to a blank line, move lines up to a blank
/// line). Before, `dir=` before `cmd=` and `-pgnout ... seldepth=true
/// nodes=true match_line=...` were refused.
#[test]
fn openbench_line_runs_and_its_parser_reads_the_games() {
    let t = workdir("openbench");
    std::os::unix::fs::symlink(ROOKERY, t.join("fastchess-ob")).unwrap();
    for d in ["Engines", "Books", "PGNs"] {
        std::fs::create_dir(t.join(d)).unwrap();
    }
    std::fs::copy(BOOK, t.join("Books/UHO_Lichess_4852_v1.epd")).unwrap();
    t.script(
        "Engines/Ethereal-dev",
        &format!("exec '{ROOKERY_ENGINE}' \"$@\"\n"),
    );
    t.script(
        "Engines/Ethereal-base",
        &format!(
            "exec '{}' --random 5 --say 'pgncomment eval=12' \"$@\"\n",
            mock_engine()
        ),
    );
    // basic_settings, concurrency_settings, adjudication_settings (no
    // Syzygy), engine_settings twice, book_settings, pgnout_settings.
    let line = "./fastchess-ob -recover -variant standard -testEnv -concurrency 2 -rounds 2 -games 2 \
        -resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10  \
        -engine dir=Engines/ cmd=./Ethereal-dev proto=uci tc=1.0+0.01 option.Threads=1 option.Hash=8 name=Ethereal-dev \
        -engine dir=Engines/ cmd=./Ethereal-base proto=uci tc=1.0+0.01 option.Threads=1 option.Hash=8 name=Ethereal-base \
        -openings file=Books/UHO_Lichess_4852_v1.epd format=epd order=random start=1 -srand 1234 \
        -pgnout file=PGNs/1.2.1700000000.0.pgn seldepth=true nodes=true match_line='^info string pgncomment .*' \
        -maxmoves 40";
    let out = shell(&t, line);
    assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
    let parser = r#"
import json, sys
games, tri, penta = {}, [0, 0, 0], [0, 0, 0, 0, 0]
lookup = {'0-1': 0, '1/2-1/2': 1, '1-0': 2}
for raw in sys.stdin.buffer:
    line = raw.strip().decode('ascii')
    if not line:
        break
    if 'Finished game' in line:
        tokens = line.split()
        game, result = int(tokens[2]), tokens[6]
        games[game] = result
        first, second = (game, game + 1) if game % 2 else (game - 1, game)
        if first in games and second in games:
            r1, r2 = games.pop(first), games.pop(second)
            penta[lookup[r1] + 2 - lookup[r2]] += 1
            tri[lookup[r1]] += 1
            tri[2 - lookup[r2]] += 1
pgn = []
with open(sys.argv[1]) as f:
    while True:
        headers = list(iter(lambda: f.readline().rstrip(), ''))
        moves = list(iter(lambda: f.readline().rstrip(), ''))
        if not headers or not moves:
            break
        pgn.append({'headers': headers, 'moves': ' '.join(moves)})
print(json.dumps({'trinomial': tri, 'pentanomial': penta, 'pgn': pgn}))
"#;
    let Some(python) = peer::require("python3", &["python3"], None) else {
        return;
    };
    let pgn_path = t.join("PGNs/1.2.1700000000.0.pgn");
    let run = Cmd::new(python)
        .args(["-c", parser, s(&pgn_path)])
        .stdin(out.stdout.clone())
        .run();
    run.assert_code(0);
    let read: serde_json::Value = serde_json::from_str(&run.stdout_text()).unwrap();
    let games = results(&pgn_path);
    assert_eq!(games.len(), 4, "{}", describe(&out));
    // The trinomial counts are the first engine's (dev's) [L, D, W].
    let (w, l, d) = wld(&games, "Ethereal-dev");
    assert_eq!(read["trinomial"], serde_json::json!([l, d, w]), "{read}");
    let pairs: u64 = read["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(pairs, 2, "{read}");
    let sliced = read["pgn"].as_array().unwrap();
    assert_eq!(sliced.len(), 4, "OpenBench slices every game: {read}");
    // The base engine's moves carry n=, sd= and its pgncomment line; dev's
    // (the built-in engine, no info strings) n= and sd= only.
    let text = std::fs::read_to_string(&pgn_path).unwrap();
    assert!(
        text.contains(", n=1, sd=3, line=\"info string pgncomment eval=12\"}"),
        "{text}"
    );
    assert!(text.contains(", sd="), "{text}");
}

/// fastchess's `-pgnout file=F append=false` (fishtest's): a fresh file,
/// the games already in it kept in `F.1`; `-crc32 pgn=true` prints the CRC
/// of the file as written; `dir=` before a relative `cmd=` (OpenBench's
/// order) runs the program inside the directory.
#[test]
fn a_fresh_pgn_its_crc_and_an_engine_inside_its_directory() {
    let t = workdir("fresh-crc");
    std::fs::create_dir(t.join("Engines")).unwrap();
    t.script(
        "Engines/dev",
        &format!("exec '{}' \"$@\"\n", ROOKERY_ENGINE),
    );
    std::fs::write(t.join("g.pgn"), "[Event \"old\"]\n\n*\n\n").unwrap();
    let line = "fastchess -engine dir=Engines/ cmd=./dev name=dev -engine cmd=builtin name=base \
        -each nodes=300 -rounds 1 -games 2 -repeat -maxmoves 20 \
        -pgnout file=g.pgn append=false -crc32 pgn=true -testEnv";
    let out = shell(&t, line);
    assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
    let pgn = std::fs::read(t.join("g.pgn")).unwrap();
    let games = results(&t.join("g.pgn"));
    assert_eq!(games.len(), 2, "{}", String::from_utf8_lossy(&pgn));
    assert!(games.iter().any(|(w, _, _)| w == "dev"), "{games:?}");
    assert_eq!(
        std::fs::read_to_string(t.join("g.pgn.1")).unwrap(),
        "[Event \"old\"]\n\n*\n\n"
    );
    let stdout = text(&out.stdout);
    // fishtest reads the last word of the line.
    let crc = stdout
        .lines()
        .filter(|l| l.starts_with("File ") && l.contains("g.pgn has CRC32: "))
        .find_map(|l| l.split_whitespace().last()?.strip_prefix("0x"))
        .unwrap_or_else(|| panic!("no CRC line: {stdout}"));
    let crc = u32::from_str_radix(crc, 16).unwrap();
    let mut c = flate2::Crc::new();
    c.update(&pgn);
    assert_eq!(crc, c.sum(), "{stdout}");
}

// ---------------------------------------------------------------------
// 2. Words refused, named.
// ---------------------------------------------------------------------

/// Words rookery cannot honour are refused with status 2, the word named
/// and why; a line is read as one tool's, and a line the two tools would
/// play differently asks which.
#[test]
fn words_that_cannot_be_honoured_are_refused_by_name() {
    let t = workdir("refused");
    let two = "-engine cmd=builtin -engine cmd=builtin -each nodes=10";
    for (line, needles) in [
        (
            format!("cutechess-cli {two} -pgnout o.pgn min fi bogus"),
            &["bogus"][..],
        ),
        (
            format!("fastchess {two} -pgnout file=o.pgn nps=true"),
            &["nps=true", "not written"],
        ),
        (
            format!("fastchess {two} -pgnout file=o.pgn notation=uci"),
            &["notation=uci", "SAN"],
        ),
        (
            format!("fastchess {two} -pgnout file=o.pgn match_line=(unclosed"),
            &["match_line=(unclosed", "not a regular expression"],
        ),
        (
            format!("{two} -tb /syzygy -rounds 1 -games 2 -repeat"),
            &["-tb /syzygy", "tablebase adjudication is not supported"],
        ),
        (
            format!("cutechess-cli {two} -frobnicate 3"),
            &["-frobnicate"],
        ),
        (
            "cutechess-cli -engine cmd=builtin initstr=hi -engine cmd=builtin -each nodes=1"
                .to_string(),
            &["initstr=hi"],
        ),
        (
            format!("fastchess {two} -sprt elo0=0 elo1=5 model=bayesian"),
            &["model=bayesian"],
        ),
        (
            format!("{two} -pgnout o.pgn -output format=fastchess"),
            &["-pgnout o.pgn", "-output format=fastchess"],
        ),
        (
            format!("{two} -rounds 100 -repeat"),
            &["cutechess-cli plays 100", "fastchess 200"],
        ),
        (format!("cutechess-cli {two} -variant atomic"), &["atomic"]),
        (
            format!("cutechess-cli {two} -resultformat Rank,Nmae"),
            &["Nmae", "-resultformat help"],
        ),
        (
            "cutechess-cli -engine cmd=builtin -engine cmd=builtin -each tc=hg60".to_string(),
            &["tc=hg60", "hourglass"],
        ),
    ] {
        let out = rookery_in(&t, &format!("match {line}"));
        assert_eq!(out.status.code(), Some(2), "{line}\n{}", describe(&out));
        let err = text(&out.stderr);
        for n in needles {
            assert!(err.contains(n), "{line}: {n:?} not in {err}");
        }
    }
    // Double dashes too: `fi` and `min` are honoured, a word not known is named.
    let out = rookery_in(&t, "match --engine cmd=builtin --engine cmd=builtin --each nodes=1 --pgnout file=o.pgn min fi sideways");
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(text(&out.stderr).contains("sideways"), "{}", describe(&out));
}

// ---------------------------------------------------------------------
// 3. conf=, -noswap/-reverse, -srand, -pgnout min fi, -debug, -config.
// ---------------------------------------------------------------------

/// `conf=NAME` is the engine of that name in `./engines.json` (or the file
/// `--engines-json` names): its command with arguments, its name and its
/// options; a name that is not there is refused with the names there.
#[test]
fn conf_reads_cutechess_engines_json() {
    let t = workdir("conf");
    let rec = t.join("alpha.rec");
    let json = serde_json::json!([
        {"name": "Alpha", "command": format!("\"{}\" --random 3 --record {}", mock_engine(), s(&rec)),
         "protocol": "uci", "workingDirectory": s(t.path()),
         "options": [{"name": "Hash", "type": "spin", "value": 32, "default": 16, "min": 1, "max": 1024},
                     {"name": "Clear Hash", "type": "button"}]},
        {"name": "Beta", "command": "builtin", "protocol": "uci", "timeoutScaleFactor": 1}
    ]);
    t.write("engines.json", json.to_string());
    let out = rookery_in(
        &t,
        "match cutechess-cli -engine conf=Alpha -engine conf=Beta -each tc=inf nodes=20 \
         -rounds 2 -maxmoves 8 -pgnout g.pgn",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let games = results(&t.join("g.pgn"));
    assert_eq!(games.len(), 2);
    assert_eq!(
        (games[0].0.as_str(), games[0].1.as_str()),
        ("Alpha", "Beta")
    );
    let sent = std::fs::read_to_string(&rec).unwrap();
    assert!(sent.contains("setoption name Hash value 32"), "{sent}");
    // A name not there: the names there.
    let out = rookery_in(
        &t,
        "match cutechess-cli -engine conf=Gamma -engine conf=Beta -each nodes=1",
    );
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = text(&out.stderr);
    assert!(
        err.contains("conf=Gamma") && err.contains("Alpha, Beta"),
        "{err}"
    );
    // From another directory, the file named.
    let elsewhere = TempDir::new("match-compat-conf-elsewhere");
    let out = bounded(
        Cmd::new(ROOKERY)
            .args([
                "match",
                "--engines-json",
                s(&t.join("engines.json")),
                "--engine",
                "conf=Beta",
                "name=B1",
                "--engine",
                "conf=Beta",
                "--each",
                "nodes=5",
                "--maxmoves",
                "4",
            ])
            .dir(elsewhere.path()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        text(&out.stdout).contains("(B1 vs Beta)"),
        "{}",
        describe(&out)
    );
}

/// The colours of a two-game encounter: `-noswap` keeps the first engine
/// White, `-reverse` gives the second White first.
#[test]
fn noswap_and_reverse_decide_the_colours() {
    let t = workdir("sides");
    let whites = |extra: &str| -> Vec<String> {
        let out = rookery_in(
            &t,
            &format!(
                "match cutechess-cli -engine cmd=builtin name=A -engine cmd=builtin name=B \
                      -each nodes=5 -maxmoves 4 -games 2 -rounds 2 -repeat {extra}"
            ),
        );
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        text(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("Started game "))
            .map(|l| {
                l.split('(')
                    .nth(1)
                    .unwrap_or("")
                    .split(' ')
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    };
    assert_eq!(whites(""), ["A", "B", "A", "B"]);
    assert_eq!(whites("-noswap"), ["A", "A", "A", "A"]);
    assert_eq!(whites("-reverse"), ["B", "A", "B", "A"]);
    assert_eq!(whites("-noswap -reverse"), ["B", "B", "B", "B"]);
}

/// cutechess-cli's `-tournament knockout -seeds 3` runs as written: the
/// top seed has the bye, the second and third seeds play the first round,
/// its winner meets the top seed in the final (Round 2), and the bracket is
/// printed after cutechess-cli's lines.
#[test]
fn a_cutechess_knockout_line_runs() {
    let t = workdir("knockout");
    let mock = mock_engine();
    let out = shell(
        &t,
        &format!(
            "cutechess-cli -tournament knockout -seeds 3 -engine cmd={mock} name=M1 \
             -engine cmd=builtin name=B nodes=300 -engine cmd={mock} name=M2 \
             -each tc=60+0.1 -games 1 -maxmoves 60 -pgnout ko.pgn"
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let games: Vec<(String, String, String)> = results(&t.join("ko.pgn"));
    let rounds: Vec<String> = pgn_text::games(&std::fs::read_to_string(t.join("ko.pgn")).unwrap())
        .iter()
        .map(|g| pgn_text::tag(g, "Round").unwrap_or_default().to_string())
        .collect();
    let pairs: Vec<(&str, &str)> = games
        .iter()
        .map(|(w, b, _)| (w.as_str(), b.as_str()))
        .collect();
    assert_eq!(pairs, [("B", "M2"), ("M1", "B")], "{}", describe(&out));
    assert_eq!(rounds, ["1", "2"]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Started game 1 of 2 (B vs M2)"), "{stdout}");
    assert!(stdout.contains("Knockout winner: B"), "{stdout}");
}

/// A gauntlet line of lynx-chess's scripts (lynx-chess/lynx-utils,
/// `cutechess/progress.ps1`: `-tournament gauntlet -seeds 1
/// -outcomeinterval 10 -ratinginterval 10 -resultformat wide2`), with the
/// built-in engine against two mocks, few rounds and a move limit: the
/// last wide2 table's Games, W, L, D and Points of every engine, and its
/// White and Black scores, are the PGN's; the outcome list of each engine
/// counts its games, its wins under `Win:` and its losses under `Loss:`.
/// `-resultformat help` lists the formats and plays nothing.
#[test]
fn a_gauntlet_with_cutechess_result_format_and_outcomes() {
    let t = workdir("gauntlet-wide2");
    let mock = mock_engine();
    let out = shell(
        &t,
        &format!(
            "cutechess-cli -engine cmd=builtin name=Lynx nodes=300 \\
             -engine cmd={mock} name=MockA -engine cmd={mock} name=MockB \\
             -each tc=inf/40+0.4 -games 2 -rounds 2 -repeat 1 -maxmoves 30 -srand 1692649580 \\
             -openings file=book.epd format=epd order=random \\
             -tournament gauntlet -seeds 1 -concurrency 2 \\
             -outcomeinterval 3 -ratinginterval 3 -resultformat wide2 -recover \\
             -pgnout gauntlet.pgn"
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let stdout = text(&out.stdout);
    let games = results(&t.join("gauntlet.pgn"));
    assert_eq!(games.len(), 8, "{}", describe(&out));
    // An engine's wins, losses and draws in the games it played.
    let wld = |name: &str| {
        let mine: Vec<_> = games
            .iter()
            .filter(|(w, b, _)| w == name || b == name)
            .cloned()
            .collect();
        wld(&mine, name)
    };
    // The last table: its heading, then a line per engine.
    let heading = "Rank Name                          Elo     +/-   Games    Wins  Losses   Draws   Points   Score    Draw   White   Black ";
    let at = stdout
        .rfind(heading)
        .unwrap_or_else(|| panic!("no wide2 table in {stdout}"));
    let rows: Vec<Vec<&str>> = stdout[at..]
        .lines()
        .skip(1)
        .take(3)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let side_score = |name: &str, white: bool| {
        let mine: Vec<_> = games
            .iter()
            .filter(|(w, b, _)| if white { w == name } else { b == name })
            .collect();
        let half: u64 = mine
            .iter()
            .map(|(_, _, r)| match (r.as_str(), white) {
                ("1/2-1/2", _) => 1,
                ("1-0", true) | ("0-1", false) => 2,
                _ => 0,
            })
            .sum();
        format!("{:.1}%", 50.0 * half as f64 / mine.len().max(1) as f64)
    };
    let mut names: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    names.sort_unstable();
    assert_eq!(names, ["Lynx", "MockA", "MockB"], "{stdout}");
    for row in &rows {
        let name = row[1];
        let (w, l, d) = wld(name);
        assert_eq!(
            (num(row[4]), num(row[5]), num(row[6]), num(row[7])),
            (w + l + d, w, l, d),
            "{name}: {row:?}"
        );
        assert_eq!(
            row[8],
            format!("{:.1}", w as f64 + d as f64 / 2.0),
            "{name}"
        );
        assert_eq!(
            row[11],
            side_score(name, true),
            "{name} with White: {row:?}"
        );
        assert_eq!(
            row[12],
            side_score(name, false),
            "{name} with Black: {row:?}"
        );
    }
    // The outcome list at the end (8 games: not a multiple of 3).
    let list = &stdout[stdout.rfind("Player: Lynx").expect("an outcome list")..];
    for name in ["Lynx", "MockA", "MockB"] {
        let (w, l, d) = wld(name);
        let block: Vec<&str> = list
            .split(&format!("Player: {name}\n"))
            .nth(1)
            .unwrap()
            .lines()
            .take_while(|l| l.starts_with("   \""))
            .collect();
        let count = |prefix: &str| -> u64 {
            block
                .iter()
                .filter(|l| l.trim_start().starts_with(&format!("\"{prefix}")))
                .map(|l| num(l.rsplit(": ").next().unwrap()))
                .sum()
        };
        assert_eq!(count("Win: "), w, "{name}: {block:?}");
        assert_eq!(count("Loss: "), l, "{name}: {block:?}");
        assert_eq!(count(""), w + l + d, "{name}: {block:?}");
    }
    // Printed at game 3 and 6 too, after the ranking.
    assert_eq!(stdout.matches("Player: MockB").count(), 3, "{stdout}");
    let help = rookery_in(
        &t,
        "match --output cutechess --engine cmd=builtin --engine cmd=builtin --each nodes=1 --result-format help",
    );
    assert_eq!(help.status.code(), Some(0), "{}", describe(&help));
    let help = text(&help.stdout);
    assert!(
        help.contains("wide2") && help.contains("WLDStats") && help.contains("DRepet"),
        "{help}"
    );
    assert!(!t.join("rookery-match.pgn").exists());
}

/// An engine's illegal move in a fastchess line: fastchess's warning
/// (`Warning; Illegal move X played by NAME`, which fishtest stops a task
/// on) before the game's line, naming the engine the PGN shows losing.
#[test]
fn an_illegal_move_is_fastchess_warning() {
    let t = workdir("fastchess-illegal");
    let bad = t.script(
        "bad-engine",
        &format!("exec '{}' --illegal-on-go 2 \"$@\"\n", mock_engine()),
    );
    let out = shell(
        &t,
        &format!(
            "fastchess -engine cmd={} name=Bad -engine cmd=builtin name=Good nodes=200 \\
             -each tc=10+0.1 -rounds 1 -games 2 -repeat -pgnout file=ill.pgn",
            s(&bad)
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let stdout = text(&out.stdout);
    let warnings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Warning; Illegal move "))
        .collect();
    let pgn = std::fs::read_to_string(t.join("ill.pgn")).unwrap_or_default();
    let illegal = pgn_text::games(&pgn)
        .iter()
        .filter(|g| pgn_text::tag(g, "Termination") == Some("illegal move"))
        .count();
    assert!(illegal >= 1, "{}", describe(&out));
    assert_eq!(warnings.len(), illegal, "{stdout}");
    for w in warnings {
        assert!(w.ends_with(" played by Bad"), "{w}");
    }
}

/// An option set to a value the engine's declaration does not take (the
/// mock's Hash is a spin of 1 to 1024): in a fastchess line fastchess's
/// warning, which fishtest stops a task on, and the match played without
/// it, as fastchess plays it; with rookery's --strict-options, refused.
#[test]
fn an_option_value_out_of_range_is_fastchess_warning() {
    let t = workdir("fastchess-bad-value");
    let mock = mock_engine();
    let out = shell(
        &t,
        &format!(
            "fastchess -engine cmd={mock} name=A option.Hash=99999 -engine cmd={mock} name=B \\
             -each tc=10+0.1 option.Style=Wild -rounds 1 -games 2 -repeat -pgnout file=v.pgn"
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let stdout = text(&out.stdout);
    let warnings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Warning; Invalid value for option"))
        .collect();
    assert_eq!(
        warnings,
        [
            "Warning; Invalid value for option Hash; 99999",
            "Warning; Invalid value for option Style; Wild",
            "Warning; Invalid value for option Style; Wild",
        ],
        "{stdout}"
    );
    assert_eq!(results(&t.join("v.pgn")).len(), 2);
    let strict = rookery_in(
        &t,
        &format!(
            "match --strict-options --engine cmd={mock} option.Hash=99999 --engine cmd={mock} \
             --each nodes=10 --pgnout strict.pgn"
        ),
    );
    assert_ne!(strict.status.code(), Some(0), "{}", describe(&strict));
    assert!(
        text(&strict.stderr).contains("99999"),
        "{}",
        describe(&strict)
    );
}

/// A negative `-srand` is a seed: the same one twice draws the same
/// openings, and it is the 64-bit two's complement (`-5` is 2^64 - 5).
#[test]
fn a_negative_srand_is_a_seed() {
    let t = workdir("srand");
    let fens = |seed: &str, dash: &str| -> Vec<String> {
        let pgn = t.join("s.pgn");
        let _ = std::fs::remove_file(&pgn);
        let _ = std::fs::remove_file(t.join("s.pgn.journal"));
        let out = rookery_in(
            &t,
            &format!("match {dash}engine cmd=builtin {dash}engine cmd=builtin {dash}each nodes=5 \
                      {dash}maxmoves 2 {dash}rounds 4 {dash}games 1 {dash}openings file=book.epd order=random \
                      {dash}srand {seed} {dash}pgnout s.pgn"),
        );
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let text = std::fs::read_to_string(&pgn).unwrap();
        let mut fens: Vec<String> = pgn_text::games(&text)
            .iter()
            .map(|g| {
                format!(
                    "{} {}",
                    pgn_text::tag(g, "Round").unwrap_or(""),
                    pgn_text::tag(g, "FEN").unwrap_or("")
                )
            })
            .collect();
        fens.sort();
        fens
    };
    let a = fens("-5", "-");
    assert_eq!(a.len(), 4);
    assert_eq!(a, fens("-5", "-"));
    assert_eq!(a, fens(&(u64::MAX - 4).to_string(), "--"));
    assert_eq!(a, fens("-5", "--"));
}

/// `-pgnout FILE min fi`: the games without comments or tags beyond the
/// Seven Tag Roster (and FEN/SetUp for a set-up start); `min=true` is
/// fastchess's spelling.
#[test]
fn pgnout_min_writes_minimal_games() {
    let t = workdir("min");
    for (line, file) in [
        ("cutechess-cli -engine cmd=builtin -engine cmd=builtin -each nodes=5 -maxmoves 5 -rounds 2 \
          -openings file=book.epd -pgnout m.pgn min fi", "m.pgn"),
        ("fastchess -engine cmd=builtin -engine cmd=builtin -each nodes=5 -maxmoves 5 -rounds 1 \
          -openings file=book.epd -pgnout file=f.pgn min=true", "f.pgn"),
    ] {
        let out = rookery_in(&t, &format!("match {line}"));
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let pgn = std::fs::read_to_string(t.join(file)).unwrap();
        let games = pgn_text::games(&pgn);
        assert_eq!(games.len(), 2, "{pgn}");
        assert!(!pgn.contains('{'), "{pgn}");
        for g in games {
            let tags: Vec<&str> = g
                .lines()
                .filter_map(|l| l.strip_prefix('['))
                .map(|l| l.split(' ').next().unwrap_or(""))
                .collect();
            assert_eq!(
                tags,
                ["Event", "Site", "Date", "Round", "White", "Black", "Result", "FEN", "SetUp"],
                "{g}"
            );
        }
    }
}

/// `-debug` is cutechess-cli's: the engines' traffic on standard output as
/// `N >NAME(i): line` (into the engine) and `N <NAME(i): line` (from it).
#[test]
fn debug_shows_the_engines_conversation_as_cutechess_does() {
    let t = workdir("debug");
    let out = rookery_in(
        &t,
        "match cutechess-cli -engine cmd=builtin name=A -engine cmd=builtin name=B -each nodes=5 -maxmoves 2 -debug",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let stdout = text(&out.stdout);
    let debug: Vec<&str> = stdout
        .lines()
        .filter(|l| {
            let (ms, rest) = l.split_once(' ').unwrap_or_default();
            !ms.is_empty() && ms.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with(['<', '>'])
        })
        .collect();
    assert!(debug.iter().any(|l| l.ends_with(" >A(0): uci")), "{stdout}");
    assert!(
        debug.iter().any(|l| l.ends_with(" <B(1): uciok")),
        "{stdout}"
    );
    assert!(stdout.contains("Finished match"), "{stdout}");
    assert!(!text(&out.stderr).contains("uciok"), "{}", describe(&out));
}

/// chess-tuning-tools (kiudee/chess-tuning-tools, tune/local.py
/// `run_match`, and tune/io.py `prepare_engines_json`/`write_engines_json`
/// for its engines.json with `initStrings`): the line and the file it
/// writes, run through `cutechess-cli`, standard error merged into
/// standard output as it reads them, and read with its rules written out:
/// `is_debug_log` (`[0-9]+ [<>]`) finds the traffic, `check_log_for_errors`
/// finds no engine error and no unknown option, and
/// `parse_experiment_result` (the `Score of` line after each game, paired
/// in `Finished game` order) gives the pentanomial counts the PGN holds.
/// Before, `initStrings` were refused.
#[test]
fn chess_tuning_tools_line_runs_and_its_parser_reads_the_games() {
    let t = workdir("tuning-tools");
    let engines = serde_json::json!([
        {"command": ROOKERY_ENGINE, "initStrings": ["uci", "setoption name Hash value 8"],
         "name": "engine1", "protocol": "uci"},
        {"command": ROOKERY_ENGINE, "initStrings": ["uci", "setoption name Hash value 16"],
         "name": "engine2", "protocol": "uci"},
    ]);
    std::fs::write(
        t.join("engines.json"),
        serde_json::to_string_pretty(&engines).unwrap(),
    )
    .unwrap();
    let line = "cutechess-cli -concurrency 2 \
        -engine conf=engine1 restart=auto tc=inf nodes=400 \
        -engine conf=engine2 restart=auto tc=inf nodes=400 \
        -openings file=book.epd format=epd order=random \
        -draw movenumber=1 movecount=10 score=8 \
        -resign movecount=3 score=700 twosided=false \
        -rounds 3 -games 2 -repeat -recover -debug -pgnout out.pgn 2>&1";
    let out = shell(&t, line);
    assert_eq!(out.status.code(), Some(0), "{line}\n{}", describe(&out));
    let parser = r#"
import json, re, sys
out = sys.stdin.read()
lines = out.splitlines()
debug = [l for l in lines if re.match(r"[0-9]+ [<>]", l) is not None]
errors = []
for line in lines:
    m = re.search(r"[0-9]+ [<>].+: error (.+)", line)
    if m:
        errors.append(line)
    m = re.search(r"Unknown (?:option|command): (.+)", line)
    if m:
        errors.append(line)
wdl = [[int(y) for y in re.findall(r"[0-9]+", x)]
       for x in re.findall(r"Score of.*:\s*([0-9]+\s-\s[0-9]+\s-\s[0-9]+)", out)]
diffs = [[a - b for a, b in zip(cur, prev)] for cur, prev in zip(wdl, [[0, 0, 0]] + wdl)]
finished = [int(x) - 1 for x in re.findall(r"Finished game ([0-9]+)", out)]
diffs = [d for _, d in sorted(zip(finished, diffs))]
counts = {"WW": 0, "WD": 0, "WL/DD": 0, "LD": 0, "LL": 0}
for i in range(0, len(diffs) - 1, 2):
    m = [a + b for a, b in zip(diffs[i], diffs[i + 1])]
    if m[0] == 2: counts["WW"] += 1
    elif m[0] == 1: counts["WL/DD" if m[1] == 1 else "WD"] += 1
    elif m[1] == 1: counts["LD"] += 1
    elif m[2] == 2: counts["WL/DD"] += 1
    else: counts["LL"] += 1
print(json.dumps({"debug": len(debug), "errors": errors, "counts": counts}))
"#;
    let Some(read) = parse_with(parser, &out.stdout) else {
        return;
    };
    assert!(read["debug"].as_u64().unwrap() > 10, "{read}");
    assert_eq!(read["errors"], serde_json::json!([]), "{read}");
    // The pairs from the PGN, engine1's view, in game order.
    let games = results(&t.join("out.pgn"));
    assert_eq!(games.len(), 6, "{}", describe(&out));
    let mut counts = std::collections::BTreeMap::from([
        ("WW", 0),
        ("WD", 0),
        ("WL/DD", 0),
        ("LD", 0),
        ("LL", 0),
    ]);
    for pair in games.chunks(2) {
        let (w, l, d) = wld(pair, "engine1");
        let key = match (w, l, d) {
            (2, _, _) => "WW",
            (1, 0, 1) => "WD",
            (1, 1, 0) | (0, 0, 2) => "WL/DD",
            (0, 1, 1) => "LD",
            _ => "LL",
        };
        *counts.get_mut(key).unwrap() += 1;
    }
    for (k, v) in counts {
        assert_eq!(read["counts"][k], v, "{k}: {read}\n{}", describe(&out));
    }
    // The initStrings' options were set: the traffic shows them sent.
    let stdout = text(&out.stdout);
    for want in [
        ">engine1(0): setoption name Hash value 8",
        ">engine2(1): setoption name Hash value 16",
    ] {
        assert!(stdout.contains(want), "{want:?} not sent:\n{stdout}");
    }
}

/// A resumed match prints its statistics as often as the one begun did
/// (`-ratinginterval 2`), not at rookery's default.
#[test]
fn a_resumed_match_keeps_its_rating_interval() {
    let t = workdir("resume-interval");
    let journal = t.join("r.pgn.journal");
    let args = format!(
        "match cutechess-cli -engine cmd=builtin name=A -engine cmd=builtin name=B -each nodes=30 \
         -games 2 -rounds 4 -maxmoves 8 -ratinginterval 2 -wait 300 -pgnout {}",
        s(&t.join("r.pgn"))
    );
    let words: Vec<&str> = args.split_whitespace().collect();
    // Killed in its second game (a game is about twenty journal lines).
    crate::common::kill_once_written(&words, &journal, 30, RUN_LIMIT);
    let out = rookery_in(
        &t,
        &format!("match --resume {} --output cutechess", s(&journal)),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let stdout = text(&out.stdout);
    let blocks = stdout.matches("Elo difference:").count();
    assert!(blocks >= 3, "every 2 games of 8 from game 2 on: {stdout}");
}

/// fastchess's `-config outname=` names the journal; `-config file=` is
/// `--resume` (a finished match: nothing left to play).
#[test]
fn fastchess_config_is_the_journal() {
    let t = workdir("config");
    let out = rookery_in(
        &t,
        "match fastchess -engine cmd=builtin -engine cmd=builtin -each nodes=5 -maxmoves 3 -rounds 1 \
         -pgnout file=c.pgn -config outname=state.json",
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(t.join("state.json").is_file());
    assert!(!t.join("c.pgn.journal").exists());
    let out = rookery_in(&t, "match fastchess -config file=state.json");
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert!(
        text(&out.stderr).contains("2 of 2 games finished"),
        "{}",
        describe(&out)
    );
    assert_eq!(results(&t.join("c.pgn")).len(), 2);
}

// ---------------------------------------------------------------------
// 4. Pondering.
// ---------------------------------------------------------------------

/// The lines an engine was sent, from its own record.
fn recorded(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Checks the ponder protocol in what `P` was sent: every `go ponder`
/// follows a `position` and is ended by `ponderhit` or `stop` before
/// anything else; after `ponderhit` no `go` comes before the next
/// `position`; after `stop` a normal `go` on a new `position`. Returns
/// (ponder searches, hits, misses).
fn ponder_protocol(lines: &[String]) -> (usize, usize, usize) {
    let (mut searches, mut hits, mut misses) = (0, 0, 0);
    for (i, l) in lines.iter().enumerate() {
        if !l.starts_with("go ponder") {
            continue;
        }
        searches += 1;
        assert!(
            lines[i - 1].starts_with("position "),
            "{:?}",
            &lines[i - 1..]
        );
        match lines.get(i + 1).map(String::as_str) {
            Some("ponderhit") => {
                hits += 1;
                if let Some(next) = lines.get(i + 2) {
                    assert!(!next.starts_with("go"), "{:?}", &lines[i..i + 3]);
                }
            }
            Some("stop") => {
                misses += 1;
                // The next request (if the game went on): a position and a
                // normal go.
                // (`isready` between: the clock starts at `go`).
                if let Some(next) = lines.get(i + 2).filter(|n| n.starts_with("position")) {
                    let ready = lines.get(i + 3).is_some_and(|l| l == "isready");
                    let go = &lines[i + 3 + usize::from(ready)];
                    assert!(
                        go.starts_with("go ") && !go.starts_with("go ponder"),
                        "{next} {go}"
                    );
                }
            }
            None => {}
            other => panic!("go ponder followed by {other:?}: {:?}", &lines[i..]),
        }
    }
    (searches, hits, misses)
}

/// The mock, pondering, against a mock that plays the reply it expects
/// (the first legal move) and one that plays random moves: `ponderhit`
/// when the reply comes, `stop` and a normal `go` when another does; the
/// ponder search's clock is the engine's after its move plus its
/// increment. Without `ponder` nothing of it is sent.
#[test]
fn ponder_with_the_mock_engine() {
    let t = workdir("ponder-mock");
    let mock = mock_engine();
    for (opponent, want_hits) in [("", true), ("arg=--random arg=5", false)] {
        let rec = t.join("p.rec");
        let log = t.join("p.log");
        let _ = std::fs::remove_file(&rec);
        let _ = std::fs::remove_file(&log);
        let out = bounded(Cmd::new(ROOKERY).args(
            format!(
                "match --engine cmd={mock} name=P arg=--ponder arg=--record arg={} ponder \
                 --engine cmd={mock} name=Q {opponent} --each tc=30+0.25 --games 2 --maxmoves 12 --log {}",
                s(&rec),
                s(&log)
            )
            .split_whitespace(),
        ));
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let lines = recorded(&rec);
        assert!(
            lines.contains(&"setoption name Ponder value true".to_string()),
            "{lines:?}"
        );
        let (searches, hits, misses) = ponder_protocol(&lines);
        assert!(searches > 0, "{lines:?}");
        if want_hits {
            assert!(hits > 0, "{lines:?}");
        } else {
            assert!(misses > 0, "{lines:?}");
        }
        // Each ponder search is on the move P played and the reply it named,
        // with P's clock after the move plus its increment.
        let log = std::fs::read_to_string(&log).unwrap();
        let mine: Vec<&str> = log
            .lines()
            .filter_map(|l| l.split_once(" P#").map(|(_, r)| r))
            .collect();
        for (i, l) in mine.iter().enumerate() {
            let Some(go) = l.split_once(" < go ponder ").map(|(_, g)| g) else {
                continue;
            };
            let best = mine[i - 2]
                .split_once(" > bestmove ")
                .expect("bestmove, position, go ponder")
                .1;
            let best: Vec<&str> = best.split(' ').collect();
            let position = mine[i - 1]
                .split_once(" < position startpos moves ")
                .expect("position")
                .1;
            assert!(
                position.ends_with(&format!("{} {}", best[0], best[2])),
                "{position} after {best:?}"
            );
            // The request the move answered, if it was a normal `go` (not a
            // `ponderhit`): the clocks then and now.
            let request = mine[..i - 2]
                .iter()
                .rev()
                .find_map(|l| l.split_once(" < ").map(|(_, r)| r))
                .and_then(|r| r.strip_prefix("go "));
            let Some(request) = request else {
                continue;
            };
            let field = |s: &str, k: &str| -> u64 {
                let w: Vec<&str> = s.split(' ').collect();
                w.iter()
                    .position(|x| *x == k)
                    .map_or(0, |p| w[p + 1].parse().unwrap())
            };
            // P moves in the pondered position: White after an even number of moves.
            let white = position.split(' ').count() % 2 == 0;
            let (mine_t, theirs_t, inc) = if white {
                ("wtime", "btime", "winc")
            } else {
                ("btime", "wtime", "binc")
            };
            assert!(
                field(go, mine_t) <= field(request, mine_t) + field(request, inc),
                "{request} -> {go}"
            );
            assert_eq!(
                field(go, theirs_t),
                field(request, theirs_t),
                "{request} -> {go}"
            );
        }
    }
    // Without `ponder`: nothing of it.
    let rec = t.join("n.rec");
    let out = bounded(
        Cmd::new(ROOKERY).args(
            format!(
                "match --engine cmd={mock} name=P arg=--ponder arg=--record arg={} \
             --engine cmd={mock} name=Q --each tc=30+0.25 --maxmoves 6",
                s(&rec)
            )
            .split_whitespace(),
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let lines = recorded(&rec);
    assert!(!lines.iter().any(|l| l.contains("ponder")), "{lines:?}");
}

/// Two Stockfish pondering (`option.Ponder` set by `ponder`): their
/// expected replies come often in self-play, so `ponderhit` is sent, and
/// `stop` when another move came; every ponder search ends before anything
/// else is sent, and the games end normally.
#[test]
fn ponder_with_stockfish() {
    let Some(sf) = stockfish() else {
        return;
    };
    let t = workdir("ponder-sf");
    let log = t.join("sf.log");
    let out = bounded(
        Cmd::new(ROOKERY)
            .args(
                format!(
                    "match cutechess-cli -engine cmd={sf} name=SF1 -engine cmd={sf} name=SF2 \
             -each tc=3+0.05 option.Threads=1 option.Hash=16 ponder -games 2 -rounds 1 -repeat \
             -maxmoves 25 -openings file={BOOK} -pgnout sf.pgn --log {}",
                    s(&log)
                )
                .split_whitespace(),
            )
            .dir(t.path()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let games = results(&t.join("sf.pgn"));
    assert_eq!(games.len(), 2);
    let log = std::fs::read_to_string(&log).unwrap();
    let mut total = (0, 0, 0);
    for name in ["SF1#1.1", "SF2#2.1"] {
        let sent: Vec<String> = log
            .lines()
            .filter_map(|l| {
                l.split_once(&format!(" {name} < "))
                    .map(|(_, r)| r.to_string())
            })
            .collect();
        assert!(
            sent.contains(&"setoption name Ponder value true".to_string()),
            "{sent:?}"
        );
        let (s, h, m) = ponder_protocol(&sent);
        total = (total.0 + s, total.1 + h, total.2 + m);
    }
    assert!(total.0 > 0 && total.1 > 0, "{total:?}\n{log}");
    // Stockfish names the reply it expects.
    assert!(log.contains(" ponder "), "{log}");
}
