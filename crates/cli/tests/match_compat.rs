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
//!   `-debug`, `-config`, `-resultformat`, `-outcomeinterval`, fastchess's
//!   warning lines.
//!
//! The frameworks' lines (fishtest, OpenBench, weather-factory,
//! chess-tuning-tools) are in `match_frameworks`, pondering in
//! `match_ponder`; both use the helpers here.
//!
//! The regular expressions are Python's (`re`), as the scripts' are;
//! python3 is looked up like the other peers.

use crate::common::{assert_stdout_has, describe, mock_engine, s, text, ROOKERY, ROOKERY_ENGINE};
use rookery_testkit::cmd::{Cmd, KillOnDrop};
use rookery_testkit::{peer, pgn_text, TempDir};
use std::io::Read;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

/// A liveness bound for one run (not a speed assertion).
pub(crate) const RUN_LIMIT: Duration = Duration::from_secs(600);

/// The small book the matches take their openings from.
pub(crate) const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-small.epd");

/// Runs `cmd` to its end with both pipes drained, killing it past
/// [`RUN_LIMIT`].
pub(crate) fn bounded(cmd: Cmd) -> Output {
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

/// A directory with `cutechess-cli` and `fastchess` as links to the built
/// `rookery`, and the small book as `book.epd`.
pub(crate) fn workdir(tag: &str) -> TempDir {
    let t = TempDir::new(&format!("match-compat-{tag}"));
    std::fs::create_dir(t.join("bin")).unwrap();
    for name in ["cutechess-cli", "fastchess"] {
        std::os::unix::fs::symlink(ROOKERY, t.join("bin").join(name)).unwrap();
    }
    std::fs::copy(BOOK, t.join("book.epd")).unwrap();
    t
}

/// Runs a shell command line in `t` with its links first on PATH.
pub(crate) fn shell(t: &TempDir, line: &str) -> Output {
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
pub(crate) fn rookery_in(t: &TempDir, line: &str) -> Output {
    bounded(
        Cmd::new(ROOKERY)
            .args(line.split_whitespace())
            .dir(t.path()),
    )
}

/// `re.findall(pattern, text)` for each pattern, by python3: a list of
/// matches (each a list of groups) per pattern; `None` when python3 is
/// missing (and the test may skip).
pub(crate) fn findall(text: &str, patterns: &[&str]) -> Option<Vec<Vec<Vec<String>>>> {
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
pub(crate) fn results(pgn: &Path) -> Vec<(String, String, String)> {
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
pub(crate) fn wld(games: &[(String, String, String)], name: &str) -> (u64, u64, u64) {
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

pub(crate) fn num(s: &str) -> u64 {
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
    assert_stdout_has(&out, "(B1 vs Beta)");
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
