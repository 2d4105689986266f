//! The command lines the engine-testing frameworks build, run through
//! `rookery match` under the name each calls, with the framework's own
//! output parsing written out (issue 45): weather-factory, fishtest,
//! OpenBench and chess-tuning-tools. Each line is data with its source
//! named; the frameworks' code stays theirs.

use crate::common::describe;
use crate::common::{mock_engine, s, stockfish, text, ROOKERY, ROOKERY_ENGINE};
use crate::match_compat::{bounded, results, shell, wld, workdir, BOOK};
use rookery_testkit::cmd::Cmd;
use rookery_testkit::{peer, TempDir};
use std::process::Output;

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
    // The pairs from the PGN, engine1's view, in game order: the PGN holds
    // the games as they finished (two at a time), each the game of the
    // `Finished game N` line printed in that place.
    let finished: Vec<u64> = text(&out.stdout)
        .lines()
        .filter_map(|l| {
            l.strip_prefix("Finished game ")?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    let mut games: Vec<_> = finished
        .into_iter()
        .zip(results(&t.join("out.pgn")))
        .collect();
    games.sort_by_key(|(n, _)| *n);
    let games: Vec<_> = games.into_iter().map(|(_, g)| g).collect();
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
