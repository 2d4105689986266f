//! `--shard K/N` on the verbs that copy games, `pgn filter` and `pgn eco`,
//! and `rookery merge`: for N in {1, 2, 3, 7}, the parts merge to the bytes
//! one run writes (a blank line between two games kept in different
//! parts, a game without a marker closed before a game without tags in
//! the next part), the merge prints the summary one run prints (words, or
//! the `--json` object) and exits as it does, and the shards' reports
//! together are the run's, with its line numbers and game numbers; a
//! compressed input; a merge of shards run with other arguments refused.

use crate::common::shard::{run_shards, run_whole, NS};
use crate::common::{rookery, s, text};
use rookery_testkit::TempDir;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Games written for the seams: one without a marker, one the filters
/// below drop, one without tags (which closes the open game it follows
/// in the output), one with an illegal move, a mate.
const CRAFTED: &str =
    "[Event \"open\"]\n[White \"A\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6\n\n\
[Event \"dropped\"]\n[White \"B\"]\n\n1. d4 d5 *\n\n\
1. c4 c5 2. Nc3 *\n\n\
[Event \"bad\"]\n[White \"C\"]\n\n1. e4 e5 2. Ke3 Nc6 *\n\n\
[Event \"mate\"]\n[White \"D\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n";

/// A PGN input of many games: rated games, games in Latin-1, the crafted
/// ones in the middle, mates, an illegal move, CR LF line ends.
fn pgn_input(t: &TempDir, name: &str) -> PathBuf {
    let mut bytes = std::fs::read(data("tests/data/annotate/twic0920-first3.pgn")).unwrap();
    bytes.extend(std::fs::read(data("../pgn/tests/data/lichess_db_10k.pgn")).unwrap());
    bytes.extend(b"\n\n");
    bytes.extend(CRAFTED.as_bytes());
    bytes.extend(std::fs::read(data("../pgn/tests/data/pe-checkmate.pgn")).unwrap());
    bytes.extend(std::fs::read(data("../pgn/tests/data/pe-odds-latin1.pgn")).unwrap());
    bytes.extend(b"\r\n[Event \"crlf\"]\r\n[White \"E\"]\r\n\r\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\r\n");
    bytes.extend(CRAFTED.as_bytes());
    let path = t.join(name);
    if name.ends_with(".zst") {
        std::fs::write(&path, zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
    } else {
        std::fs::write(&path, bytes).unwrap();
    }
    path
}

/// All lines of `s` but its last (the report before the summary), and its
/// last.
fn split_last(s: &str) -> (String, String) {
    let mut lines: Vec<&str> = s.lines().collect();
    let last = lines.pop().unwrap_or("").to_owned();
    (lines.iter().map(|l| format!("{l}\n")).collect(), last)
}

/// The lines of `report` that tell of a line not in UTF-8, and the others.
fn latin1_apart(report: &str) -> (Vec<String>, String) {
    let (told, others): (Vec<&str>, Vec<&str>) =
        report.lines().partition(|l| l.contains("not UTF-8"));
    (
        told.iter().map(|l| l.to_string()).collect(),
        others.iter().map(|l| format!("{l}\n")).collect(),
    )
}

/// Runs `args` (with `{out}` for the output) whole, then as N shards
/// merged, for every N of [`NS`]: the same bytes and exit status; the
/// merge prints the run's summary (its last line of stderr, or its JSON
/// on stdout with `json_stdout`), and the shards' reports, in shard
/// order, are the run's.
fn sharded_equals_whole(t: &TempDir, args: &[&str], name: &str, json_stdout: bool) {
    let (w, code, want) = run_whole(args, &t.join(format!("whole-{name}")));
    let werr = text(&w.stderr);
    let (wreport, wsummary) = if json_stdout {
        (werr.clone(), String::new())
    } else {
        split_last(&werr)
    };
    assert!(
        json_stdout || !wsummary.is_empty(),
        "no summary: {}",
        w.describe()
    );
    for n in NS {
        let out = t.join(format!("n{n}-{name}"));
        let mut reports = String::new();
        for run in run_shards(args, &out, n, code) {
            let err = text(&run.stderr);
            reports.push_str(&if json_stdout { err } else { split_last(&err).0 });
        }
        // The first line not in UTF-8 is told by each shard that meets
        // one in its part (by the shard that holds it, at least): the
        // other reports are the run's, one for one.
        let (latin1, others) = latin1_apart(&reports);
        let (wlatin1, wothers) = latin1_apart(&wreport);
        assert_eq!(others, wothers, "the reports of {n} shards: {name}");
        assert!(
            wlatin1.iter().all(|l| latin1.iter().any(|m| m == l)),
            "{wlatin1:?} not among {latin1:?}"
        );
        let m = rookery(&["merge", s(&out)], b"");
        assert_eq!(m.code(), Some(code), "merge of {n}: {}", m.describe());
        if json_stdout {
            assert_eq!(text(&m.stdout), text(&w.stdout), "JSON of {n} shards");
            assert_eq!(text(&m.stderr), "", "merge of {n}");
        } else {
            assert_eq!(
                text(&m.stderr),
                format!("{wsummary}\n"),
                "summary of {n} shards"
            );
        }
        let got = std::fs::read(&out).unwrap();
        assert!(
            got == want,
            "{name}: {n} shards merged differ from one run:\n{}\n----- one run:\n{}",
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want)
        );
    }
}

#[test]
fn pgn_filter_on_tags_sharded_merges_to_one_run() {
    let t = TempDir::new("shard-filter-tags");
    let input = pgn_input(&t, "in.pgn");
    // Every game but one, the one without tags too: the open game before
    // it is closed in the output, and every part keeps games.
    let all_but = [
        "pgn",
        "filter",
        s(&input),
        "-o",
        "{out}",
        "--invert",
        "--tag",
        "Event=dropped",
    ];
    sharded_equals_whole(&t, &all_but, "all-but.pgn", false);
    sharded_equals_whole(
        &t,
        &[&all_but[..], &["--keep-bad"]].concat(),
        "all-but-bad.pgn",
        false,
    );
    // Each shard's part read on two threads in small pieces.
    sharded_equals_whole(
        &t,
        &[&all_but[..], &["--jobs", "2", "--chunk-bytes", "1500"]].concat(),
        "all-but-jobs.pgn",
        false,
    );
    // Few games kept, none in the first parts.
    sharded_equals_whole(
        &t,
        &[
            "pgn",
            "filter",
            s(&input),
            "-o",
            "{out}",
            "--tag",
            "White~^[A-E]$",
        ],
        "few.pgn",
        false,
    );
}

#[test]
fn pgn_filter_on_moves_sharded_merges_to_one_run_json_too() {
    let t = TempDir::new("shard-filter-mates");
    let input = pgn_input(&t, "in.pgn");
    let mates = ["pgn", "filter", s(&input), "-o", "{out}", "--checkmate"];
    sharded_equals_whole(&t, &mates, "mates.pgn", false);
    sharded_equals_whole(
        &t,
        &[&mates[..], &["--keep-bad"]].concat(),
        "mates-bad.pgn",
        false,
    );
    sharded_equals_whole(
        &t,
        &[&mates[..], &["--json"]].concat(),
        "mates-json.pgn",
        true,
    );
    sharded_equals_whole(
        &t,
        &[&mates[..], &["--normalize", "--json", "--keep-bad"]].concat(),
        "mates-normal.pgn",
        true,
    );
}

#[test]
fn pgn_eco_sharded_merges_to_one_run() {
    let t = TempDir::new("shard-eco");
    let input = pgn_input(&t, "in.pgn");
    let eco = ["pgn", "eco", s(&input), "-o", "{out}"];
    sharded_equals_whole(&t, &eco, "named.pgn", false);
    sharded_equals_whole(
        &t,
        &[&eco[..], &["--keep", "--json"]].concat(),
        "kept.pgn",
        false,
    );
    sharded_equals_whole(
        &t,
        &[&eco[..], &["--jobs", "2", "--chunk-bytes", "1500"]].concat(),
        "named-jobs.pgn",
        false,
    );
}

#[test]
fn a_compressed_input_sharded_merges_to_one_run() {
    let t = TempDir::new("shard-copy-zst");
    let input = pgn_input(&t, "in.pgn.zst");
    sharded_equals_whole(
        &t,
        &["pgn", "filter", s(&input), "-o", "{out}", "--checkmate"],
        "mates.pgn.gz",
        false,
    );
    sharded_equals_whole(
        &t,
        &["pgn", "eco", s(&input), "-o", "{out}", "--json"],
        "named.pgn.zst",
        false,
    );
}

#[test]
fn a_merge_of_shards_run_with_other_arguments_is_refused() {
    let t = TempDir::new("shard-copy-foreign");
    let input = pgn_input(&t, "in.pgn");
    let out = t.join("out.pgn");
    for (k, test) in [(1, "--checkmate"), (2, "--stalemate")] {
        let r = rookery(
            &[
                "pgn",
                "filter",
                s(&input),
                "-o",
                s(&out),
                test,
                "--shard",
                &format!("{k}/2"),
            ],
            b"",
        );
        assert!(r.code().unwrap() <= 1, "{}", r.describe());
    }
    let m = rookery(&["merge", s(&out)], b"");
    m.assert_code(2);
    m.assert_stderr_contains("out.pgn.shard-2-of-2");
    assert!(!out.exists(), "a refused merge wrote {}", out.display());
}

#[test]
fn a_shard_needs_one_input_an_output_and_no_count_or_strict() {
    let t = TempDir::new("shard-copy-usage");
    let input = pgn_input(&t, "in.pgn");
    let out = t.join("out.pgn");
    let cases: [&[&str]; 4] = [
        &[
            "pgn",
            "filter",
            s(&input),
            "--count",
            "--checkmate",
            "-o",
            s(&out),
        ],
        &["pgn", "filter", s(&input), s(&input), "-o", s(&out)],
        &["pgn", "filter", s(&input)],
        &["pgn", "eco", s(&input), "--strict", "-o", s(&out)],
    ];
    for args in cases {
        let r = rookery(&[args, &["--shard", "1/2"]].concat(), b"");
        r.assert_code(2);
        r.assert_stderr_contains("--shard");
    }
    assert!(!t.join("out.pgn.shard-1-of-2").exists());
}
