//! End-to-end tests of `rookery pgn`: validate, normalize, to-epd, stats,
//! from-epd; parallel output equals sequential output; strict and lenient
//! error handling; stdin.

use crate::common::{rookery, s, text};
use rookery_testkit::cmd::assert_contains_all;
use rookery_testkit::TempDir;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../pgn/tests/data")
        .join(name)
}

fn all_data_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    v.sort();
    v
}

#[test]
fn validate_names_file_line_col_and_game() {
    let f = data("pgn_test.pgn");
    let out = rookery(&["pgn", "validate", s(&f)], b"");
    out.assert_code(1);
    let said = text(&out.stdout);
    let errors: Vec<&str> = said.lines().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(errors.len(), 3, "{said}");
    assert!(
        errors[0].ends_with(
            "pgn_test.pgn:9:47: error: game 1 (White - Black, 1996.08.15, round -): move 5. Bc4: \
             illegal move Bc4: no piece of that kind can move there"
        ),
        "{said}"
    );
    assert!(errors[1].contains(":29:50: error: game 2 (Opocensky, Karel - Flohr, Salo, 1929.??.??, round ?): move 7. Bb3?"), "{said}");
    assert!(
        said.ends_with("19 games, 3 with errors, 1 warnings\n"),
        "{said}"
    );
    // A clean file: exit 0.
    let out = rookery(
        &["pgn", "validate", s(&data("kasparov-deep-blue-1997.pgn"))],
        b"",
    );
    out.assert_code(0);
    assert_eq!(text(&out.stdout), "6 games, 0 with errors, 0 warnings\n");
    // JSON: one object per problem and a summary.
    let out = rookery(&["pgn", "validate", "--json", s(&f)], b"");
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(last["games"], 19);
    assert_eq!(last["errors"], 3);
    assert_eq!(lines.iter().filter(|v| v["severity"] == "error").count(), 3);
    assert_eq!(lines[1]["line"], 9);
    assert_eq!(lines[1]["game"], 1);
}

#[test]
fn validate_reports_tag_semantics() {
    let pgn = b"[Date \"2001.13.01\"]\n[TimeControl \"40/\"]\n[PlyCount \"3\"]\n[ECO \"Z99\"]\n1. e4 e5 *\n";
    let out = rookery(&["pgn", "validate", "-"], pgn);
    let said = text(&out.stdout);
    assert_contains_all(
        &said,
        &[
            "bad Date value",
            "bad TimeControl value",
            "bad ECO value",
            "PlyCount tag says 3, the game has 2 plies",
            "<stdin>:1:1: warning: game 1: ",
        ],
    );
    out.assert_code(0);
    let out = rookery(&["pgn", "validate", "--strict", "-"], pgn);
    out.assert_code(1);
}

/// Issue 43, item 5: a pawn capture written without its file is an error
/// where it stands (it was read as the capture: no error, and to-epd wrote
/// the position after exd5); a move read only leniently is a warning naming
/// game, line and column, counted, and `--strict` fails on it.
#[test]
fn validate_refuses_a_pawn_capture_without_its_file_and_warns_on_leniency() {
    let out = rookery(&["pgn", "validate", "-"], b"1. e4 d5 2. d5 *\n");
    out.assert_code(1);
    let said = text(&out.stdout);
    assert_contains_all(
        &said,
        &[
            "<stdin>:1:13: error: game 1 (? - ?, ?, round ?): move 2. d5: illegal move d5: \
             a pawn capture is written with the pawn's file (exd5)",
            "1 games, 1 with errors, 0 warnings",
        ],
    );
    let out = rookery(&["pgn", "to-epd", "-q", "-"], b"1. e4 d5 2. d5 *\n");
    let epd = text(&out.stdout);
    assert!(
        !epd.contains("3P4/8/8/PPPP1PPP"),
        "the position after exd5: {epd}"
    );

    let pgn = b"1. e4 d5 2. ed5 Qxd5 3. Nxc3 Qe6+ *\n";
    let out = rookery(&["pgn", "validate", "-"], pgn);
    out.assert_code(0);
    let said = text(&out.stdout);
    assert_contains_all(
        &said,
        &[
            "<stdin>:1:13: warning: game 1: move 2. ed5 read as exd5: a capture written without its x",
            "<stdin>:1:25: warning: game 1: move 3. Nxc3 read as Nc3: an x written for a move that \
             captures nothing",
            "1 games, 0 with errors, 2 warnings",
        ],
    );
    rookery(&["pgn", "validate", "--strict", "-"], pgn).assert_code(1);
    // The standard spelling: no warning.
    let out = rookery(
        &["pgn", "validate", "--strict", "-"],
        b"1. e4 d5 2. exd5 Qxd5 *\n",
    );
    out.assert_code(0);
    assert_eq!(text(&out.stdout), "1 games, 0 with errors, 0 warnings\n");
}

#[test]
fn normalize_is_idempotent_and_parallel_equals_sequential() {
    let tmp = TempDir::new("pgn-cli-norm");
    let files = all_data_files();
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = vec![
            "pgn".into(),
            "normalize".into(),
            "--lenient".into(),
            "-q".into(),
        ];
        a.extend(extra.iter().map(|x| x.to_string()));
        a.extend(files.iter().map(|p| p.display().to_string()));
        a
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        rookery(&a, b"")
    };
    let seq = run(&[]);
    assert_eq!(seq.status.code(), Some(1), "the test data has errors");
    for jobs in ["2", "3"] {
        for chunk in ["1", "5000"] {
            let par = run(&["--jobs", jobs, "--chunk-bytes", chunk]);
            par.assert_code(1);
            assert!(
                par.stdout == seq.stdout,
                "--jobs {jobs} --chunk-bytes {chunk} differs"
            );
            assert_eq!(text(&par.stderr), text(&seq.stderr));
        }
    }
    let once = tmp.write("once.pgn", &seq.stdout);
    let twice = rookery(&["pgn", "normalize", s(&once)], b"");
    twice.assert_code(0);
    assert!(twice.stdout == seq.stdout, "normalize is not idempotent");
    // Every movetext line within 80 columns (save single over-long tokens).
    for line in text(&seq.stdout).lines() {
        if !line.starts_with('[') && line.contains(' ') && !line.contains(';') {
            assert!(line.chars().count() <= 80, "{line:?}");
        }
    }
    // Stats of the normalized output match the input's (errors dropped).
    let a = rookery(&["pgn", "stats", "--json", s(&once)], b"");
    let a: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let mut sargs = vec![
        "pgn".to_string(),
        "stats".into(),
        "--json".into(),
        "-q".into(),
    ];
    sargs.extend(files.iter().map(|p| p.display().to_string()));
    let sargs: Vec<&str> = sargs.iter().map(String::as_str).collect();
    let b = rookery(&sargs, b"");
    let b: serde_json::Value = serde_json::from_slice(&b.stdout).unwrap();
    assert_eq!(a["moves"], b["moves"]);
    assert_eq!(
        a["games"].as_u64().unwrap(),
        b["games"].as_u64().unwrap() - b["errors"].as_u64().unwrap()
    );
}

#[test]
fn strict_normalize_stops_at_the_first_error() {
    let pgn = b"1. e4 e5 *\n\n1. e4 e4 *\n\n1. d4 d5 *\n";
    let out = rookery(&["pgn", "normalize", "-"], pgn);
    out.assert_code(1);
    let said = text(&out.stdout);
    assert!(
        said.contains("1. e4 e5 *") && !said.contains("d4"),
        "{said}"
    );
    out.assert_stderr_contains(
        "<stdin>:3:7: error: game 2 (? - ?, ?, round ?): move 1... e4: illegal move e4",
    );
    // Lenient: the bad game is reported and skipped, the next one kept.
    let out = rookery(&["pgn", "normalize", "--lenient", "-"], pgn);
    out.assert_code(1);
    let said = text(&out.stdout);
    assert!(
        said.contains("1. e4 e5 *") && said.contains("1. d4 d5 *"),
        "{said}"
    );
    assert_eq!(said.matches("[Event").count(), 2);
    // The same with threads and one game per chunk.
    let out2 = rookery(
        &[
            "pgn",
            "normalize",
            "--lenient",
            "--jobs",
            "2",
            "--chunk-bytes",
            "1",
            "-",
        ],
        pgn,
    );
    assert_eq!(out2.stdout, out.stdout);
    let out3 = rookery(
        &["pgn", "normalize", "--jobs", "2", "--chunk-bytes", "1", "-"],
        pgn,
    );
    assert!(!text(&out3.stdout).contains("d4"));
}

#[test]
fn stats_counts() {
    let f = data("kasparov-deep-blue-1997.pgn");
    let out = rookery(&["pgn", "stats", s(&f)], b"");
    out.assert_code(0);
    let said = text(&out.stdout);
    assert_contains_all(
        &said,
        &[
            "games     6\n",
            "moves     519 (mainline plies)\n",
            "results   1-0 3, 0-1 0, 1/2-1/2 3, * 0\n",
            "longest   111 plies: game 4",
        ],
    );
    let out = rookery(
        &[
            "pgn",
            "stats",
            "--json",
            "--jobs",
            "2",
            "--chunk-bytes",
            "1",
            s(&f),
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["games"], 6);
    assert_eq!(v["moves"], 519);
    assert_eq!(v["longest"]["game"], 4);
    assert_eq!(
        v["eco"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum::<u64>(),
        6
    );
    // Errors are counted, the exit status says so.
    let out = rookery(&["pgn", "stats", "--json", s(&data("pgn_test.pgn"))], b"");
    out.assert_code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["games"], 19);
    assert_eq!(v["errors"], 3);
}

/// No games (an empty input, and one with no ECO tag): every line still
/// has a value, `-` where there is nothing to show.
#[test]
fn stats_of_no_games_and_no_eco() {
    let out = rookery(&["pgn", "stats", "-"], b"");
    out.assert_code(0);
    let said = text(&out.stdout);
    assert_contains_all(&said, &["games     0\n", "longest   -\n", "ECO       -\n"]);
    assert!(!said.contains("top ECO"), "{said}");
    let out = rookery(&["pgn", "stats", "-"], b"[White \"a\"]\n\n1. e4 *\n");
    out.assert_code(0);
    let said = text(&out.stdout);
    assert_contains_all(&said, &["games     1\n", "ECO       ? 1\n"]);
}

#[test]
fn to_epd_and_fen() {
    let f = data("molinari-bordais-1979.pgn");
    let out = rookery(&["pgn", "to-epd", "--ptp", s(&f)], b"");
    out.assert_code(0);
    let said = text(&out.stdout);
    let lines: Vec<&str> = said.lines().collect();
    assert_eq!(lines.len(), 11, "10 plies, 11 positions");
    assert!(lines[0]
        .starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - fmvn 1; hmvc 0; id \""));
    assert!(lines[0].ends_with("; sm e4;"), "{}", lines[0]);
    assert!(lines[10].contains("ptp Event "), "{}", lines[10]);
    assert!(!lines[10].contains(" sm "), "{}", lines[10]);
    let out = rookery(&["pgn", "to-epd", "--fen", s(&f)], b"");
    let said = text(&out.stdout);
    assert_eq!(said.lines().count(), 11);
    assert_eq!(
        said.lines().next(),
        Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    );
    // Lenient by default: a bad game is reported, the others converted.
    let out = rookery(
        &["pgn", "to-epd", "--fen", "-"],
        b"1. e4 e5 *\n1. e4 Ke2 *\n1. d4 *\n",
    );
    out.assert_code(1);
    assert_eq!(text(&out.stdout).lines().count(), 3 + 2);
    out.assert_stderr_contains("<stdin>:2:7: error: game 2");
}

#[test]
fn from_epd_makes_games() {
    let epd = b"4k3/8/8/8/8/8/4P3/4K3 w - - hmvc 5; fmvn 40; id \"x\"; pv e4 Kd7;\nnot a record\n";
    let out = rookery(&["pgn", "from-epd", "-"], epd);
    assert_eq!(out.status.code(), Some(1), "the bad line is an error");
    let said = text(&out.stdout);
    assert_contains_all(
        &said,
        &[
            "[Event \"x\"]",
            "[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 5 40\"]",
            "40. e4 Kd7 *",
        ],
    );
    out.assert_stderr_contains("<stdin>:2");
}

#[test]
fn usage_errors_exit_2() {
    let out = rookery(&["pgn", "stats", "--jobs", "0"], b"");
    out.assert_code(2);
    let out = rookery(&["pgn", "nonsense"], b"");
    out.assert_code(2);
}

/// 100,000 variations each nested in the one before (issue 13, item 1):
/// every verb reads (and writes) the game, on one thread and on two, where
/// recursion in the tree's drop or the writer used to overflow the stack.
#[test]
fn deeply_nested_variations_every_verb() {
    let f = data("deep/nested-100000.pgn");
    let f = s(&f);
    for jobs in ["1", "2"] {
        let run = |verb: &str| {
            let out = rookery(
                &["pgn", verb, "--jobs", jobs, "--chunk-bytes", "4096", f],
                b"",
            );
            assert_eq!(
                out.status.code(),
                Some(0),
                "pgn {verb} --jobs {jobs}: {}",
                text(&out.stderr)
            );
            text(&out.stdout)
        };
        let v = run("validate");
        assert!(v.contains("1 games, 0 with errors"), "{v}");
        let n = run("normalize");
        assert_eq!(n.matches('(').count(), 100_000);
        assert_eq!(n.matches(')').count(), 100_000);
        assert!(n.trim_end().ends_with(") *"), "{}", &n[n.len() - 100..]);
        let said = run("stats");
        assert!(said.contains("games     1\n"), "{said}");
        let e = run("to-epd");
        // The mainline is one move: its two positions.
        assert_eq!(e.lines().count(), 2, "{e}");
    }
}
