//! Snapshots of the command line's surface: every `--help` (found by
//! walking the subcommands `rookery --help` lists), representative error
//! output, and the shape of every `--json` output (keys and value types,
//! since times and node counts vary). The snapshots live in
//! `tests/snapshots/`; `UPDATE_SNAPSHOTS=1 cargo test -p rookery --test
//! main snapshots` rewrites them after an intended change (review with
//! `git diff`).

use crate::common::{rookery, rookery_in, s};
use rookery_testkit::cmd::{argv, Run};
use rookery_testkit::snapshot::{assert_snapshot, json_lines_shape, json_shape};
use rookery_testkit::TempDir;
use std::path::{Path, PathBuf};

fn snapshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// The subcommands listed in the `Commands:` section of a help text.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// `rookery [path] --help` and, depth first, every subcommand's.
fn walk_help(path: &mut Vec<String>, out: &mut Vec<(String, String)>) {
    let run = rookery(&[&path[..], &["--help".to_string()]].concat(), b"");
    run.assert_code(0);
    let help = run.stdout_text();
    let name = if path.is_empty() {
        "help".to_string()
    } else {
        format!("help-{}", path.join("-"))
    };
    out.push((name, help.clone()));
    for sub in subcommands(&help) {
        path.push(sub);
        walk_help(path, out);
        path.pop();
    }
}

#[test]
fn every_help_text() {
    let mut helps = Vec::new();
    walk_help(&mut Vec::new(), &mut helps);
    // The walk must reach the nested verbs, or it snapshots nothing much.
    let names: Vec<&str> = helps.iter().map(|(n, _)| n.as_str()).collect();
    for must in [
        "help",
        "help-epd-analyse",
        "help-pgn-annotate",
        "help-referee-serve",
        "help-match",
    ] {
        assert!(names.contains(&must), "{must} not reached: {names:?}");
    }
    for (name, help) in &helps {
        assert_snapshot(&snapshots(), name, help);
    }
}

/// Stdout and stderr of a run that fails, with the exit status.
fn failure_text(run: &Run, dir: &Path) -> String {
    let clean = |s: String| s.replace(&dir.display().to_string(), "$DIR");
    format!(
        "status: {:?}\n--- stdout ---\n{}--- stderr ---\n{}",
        run.code(),
        clean(run.stdout_text()),
        clean(run.stderr_text())
    )
}

#[test]
fn representative_errors() {
    let t = TempDir::new("snap-errors");
    let bad_epd = t.write(
        "bad.epd",
        "4k3/8/8/8/8/8/8/4K3 w - - bm Kd1;\n4k3/8/8/8/8/8/8/4K3 w - - bm Ka8;\nnot a position\n",
    );
    let bad_pgn = t.write(
        "bad.pgn",
        "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n",
    );
    let missing = t.join("missing.epd");
    let cmd = |line: &str| {
        let path = |p: &Path| p.display().to_string();
        argv(
            line,
            &[
                ("bad_epd", &path(&bad_epd)),
                ("bad_pgn", &path(&bad_pgn)),
                ("missing", &path(&missing)),
            ],
        )
    };
    let cases: Vec<(&str, Vec<String>, i32)> = vec![
        ("error-unknown-flag", cmd("perft --bogus"), 2),
        ("error-no-subcommand", vec![], 2),
        (
            "error-show-bad-fen",
            vec!["show".into(), "8/8/8/8/8/8/8/8 w - - 0 1".into()],
            1,
        ),
        ("error-epd-validate", cmd("epd validate {bad_epd}"), 1),
        ("error-pgn-validate", cmd("pgn validate {bad_pgn}"), 1),
        ("error-missing-file", cmd("epd normalize {missing}"), 1),
        (
            "error-builtin-engine-arg",
            cmd("epd analyse {bad_epd} --engine-arg x"),
            2,
        ),
    ];
    for (name, args, code) in cases {
        let run = rookery_in(t.path(), &args, b"");
        run.assert_code(code);
        assert_snapshot(&snapshots(), name, &failure_text(&run, t.path()));
    }
}

const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"back rank\";\n";

#[test]
fn every_json_shape() {
    let t = TempDir::new("snap-json");
    let epd = t.write("suite.epd", MATE_IN_ONE);
    let bad_epd = t.write("bad.epd", "4k3/8/8/8/8/8/8/4K3 w - - bm Ka8;\n");
    let pgn = t.write("games.pgn", "[Event \"x\"]\n[Result \"1-0\"]\n[ECO \"C20\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
         [Event \"y\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n");
    let results = t.join("results.json");
    let bin = t.join("book.bin");
    let s = |p: &Path| p.display().to_string();
    let cmd = |line: &str| {
        argv(
            line,
            &[
                ("epd", &s(&epd)),
                ("bad_epd", &s(&bad_epd)),
                ("pgn", &s(&pgn)),
                ("results", &s(&results)),
                ("bin", &s(&bin)),
            ],
        )
    };

    // One document per run.
    let single: Vec<(&str, Vec<String>, i32)> = vec![
        ("json-perft", cmd("perft --depth 2 --json"), 0),
        (
            "json-perft-divide",
            cmd("perft --depth 1 --divide --json"),
            0,
        ),
        (
            "json-show",
            vec![
                "show".into(),
                "--json".into(),
                "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1".into(),
            ],
            0,
        ),
        ("json-bench", cmd("bench --depth 1 --json"), 0),
        (
            "json-suite",
            cmd("suite {epd} --depth 2 --jobs 1 --json --no-html --results {results}"),
            0,
        ),
        ("json-report", cmd("report {results} --json"), 0),
        ("json-pgn-tree", cmd("pgn tree --json --depth 2 {pgn}"), 1),
        (
            "json-pgn-filter",
            cmd("pgn filter {pgn} --result 1-0 --json -o filtered.pgn"),
            1,
        ),
        (
            "json-pgn-dedupe",
            cmd("pgn dedupe {pgn} {pgn} --json -o deduped.pgn"),
            1,
        ),
        (
            "json-match",
            cmd(
                "match --engine cmd=builtin name=a --engine cmd=builtin name=b --each depth=1 \
                 --games 2 --rounds 1 --concurrency 1 --maxmoves 4 --json",
            ),
            0,
        ),
        // The second game has an illegal move: exit status 1.
        (
            "json-book-build",
            cmd("book build {pgn} -o {bin} --min-games 1 --json"),
            1,
        ),
        ("json-book-show", cmd("book show {bin} --json"), 0),
        (
            "json-book-show-position",
            cmd("book show {bin} startpos --json"),
            0,
        ),
    ];
    for (name, args, code) in single {
        let run = rookery_in(t.path(), &args, b"");
        run.assert_code(code);
        let doc: serde_json::Value = serde_json::from_slice(&run.stdout)
            .unwrap_or_else(|e| panic!("{name}: not one JSON document: {e}\n{}", run.describe()));
        assert_snapshot(&snapshots(), name, &json_shape(&doc));
    }

    // JSON Lines: one object per problem, then summaries.
    let lines: Vec<(&str, Vec<String>, i32)> = vec![
        (
            "json-epd-validate",
            cmd("epd validate --json {bad_epd} {epd}"),
            1,
        ),
        ("json-pgn-validate", cmd("pgn validate --json {pgn}"), 1),
        ("json-pgn-stats", cmd("pgn stats --json {pgn}"), 1),
    ];
    for (name, args, code) in lines {
        let run = rookery_in(t.path(), &args, b"");
        assert!(
            run.code() == Some(code) || run.code() == Some(0),
            "{name}\n{}",
            run.describe()
        );
        assert_snapshot(&snapshots(), name, &json_lines_shape(&run.stdout_text()));
    }
}

#[test]
fn epd_and_pgn_problems_name_the_column_alike() {
    // One key for one thing: the JSON problems of both readers say `column`.
    let t = TempDir::new("snap-column");
    let epd = t.write("bad.epd", "4k3/8/8/8/8/8/8/4K3 w - - bm Ka8;\n");
    let pgn = t.write(
        "bad.pgn",
        "[Event \"y\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n",
    );
    let mut keys = Vec::new();
    for args in [
        vec!["epd", "validate", "--json", s(&epd)],
        vec!["pgn", "validate", "--json", s(&pgn)],
    ] {
        let run = rookery(&args, b"");
        let first: serde_json::Value = run
            .stdout_text()
            .lines()
            .find_map(|l| serde_json::from_str(l).ok())
            .unwrap_or_else(|| panic!("no JSON problem\n{}", run.describe()));
        let obj = first.as_object().expect("a problem is an object");
        assert!(obj.contains_key("line"), "{first}");
        keys.push(obj.contains_key("column"));
        assert!(!obj.contains_key("col"), "{first}");
    }
    assert_eq!(keys, [true, true]);
}
