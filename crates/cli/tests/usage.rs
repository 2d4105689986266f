//! The README's promises about the command line: every usage error exits 2,
//! `-` is stdin/stdout everywhere, a missing file among several is reported
//! and the rest processed, errors say things once and in words.

use crate::common::{rookery_in, s, text};
use rookery_testkit::cmd::{argv, assert_contains_all, Run};
use rookery_testkit::TempDir;
use std::path::Path;

/// `rookery suite ARGS` in `dir` at the [`QUICK`] effort.
fn suite(dir: &Path, args: &[&str]) -> Run {
    rookery_in(dir, &[&["suite"], args, &QUICK[..]].concat(), b"")
}

/// The effort of every suite run here: enough to solve MATE1, one engine.
const QUICK: [&str; 4] = ["--depth", "2", "--jobs", "1"];

const MATE1: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"m1\";\n";

#[test]
fn usage_errors_exit_2() {
    let t = TempDir::new("exit2");
    let epd = t.write("in.epd", MATE1);
    let e = s(&epd);
    let cases: Vec<Vec<&str>> = vec![
        vec!["epd", "analyse", e, "--resume"],
        vec!["epd", "target", e, "--resume", "-o", "-"],
        vec!["epd", "mate", "--moves", "0", e],
        vec!["epd", "mate", "--moves", "3", "--up-to", "2", e],
        vec!["epd", "analyse", e, "--depth", "0"],
        vec!["epd", "analyse", e, "--jobs", "0"],
        vec!["epd", "purge", "--op", "1x", e],
        vec!["epd", "analyse", e, "--engine-arg", "x"],
        vec!["bench", "--depth", "0"],
        vec!["perft", "--suite", e, "--json"],
        vec!["perft", "--suite", e, "--divide"],
        vec![
            "perft",
            "--suite",
            e,
            "--fen",
            "8/8/8/8/8/8/8/K6k w - - 0 1",
        ],
        vec!["suite", e, "--resume"],
        vec!["suite", e, "--html", "-", "--results", "-"],
        vec!["report", "-", "--html", "-", "--json"],
    ];
    for args in &cases {
        let o = rookery_in(t.path(), args, b"");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(text(&o.stderr).contains("error"), "{args:?}");
    }
}

fn perft_suite() -> &'static str {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\n"
}

#[test]
fn dash_is_stdin_and_stdout_everywhere() {
    let t = TempDir::new("dash");
    // perft --suite - reads stdin.
    let o = rookery_in(
        t.path(),
        &["perft", "--suite", "-", "--depth", "2"],
        perft_suite().as_bytes(),
    );
    o.assert_code(0)
        .assert_stdout_contains("1 passed, 0 failed");
    // suite --results - and --html - write stdout, and no file named `-`.
    let epd = t.write("in.epd", MATE1);
    let o = suite(t.path(), &[s(&epd), "--results", "-", "--no-html"]);
    o.assert_code(0);
    let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    assert_eq!(results[0]["positions"][0]["solved"], true);
    let o = suite(t.path(), &[s(&epd), "--html", "-"]);
    o.assert_code(0);
    assert!(text(&o.stdout).contains("<html"), "HTML on stdout");
    // report - reads stdin; report --html - writes stdout.
    let o = rookery_in(
        t.path(),
        &["report", "-"],
        &results.to_string().into_bytes(),
    );
    o.assert_code(0).assert_stdout_contains("1/1");
    let o = rookery_in(
        t.path(),
        &["report", "-", "--html", "-"],
        &results.to_string().into_bytes(),
    );
    o.assert_code(0).assert_stdout_contains("<html");
    assert_eq!(t.names(), vec!["in.epd".to_string()], "no file named `-`");
}

#[test]
fn suite_resume_scores_what_the_output_holds() {
    let t = TempDir::new("suite-resume");
    let epd = t.write("in.epd", MATE1);
    let out = t.join("out.epd");
    let args = [s(&epd), "--no-html", "--epd-out", s(&out)];
    let first = suite(t.path(), &args);
    first.assert_code(0);
    let resume = [&args[..], &["--resume", "--json"][..]].concat();
    let again = suite(t.path(), &resume);
    again
        .assert_code(0)
        .assert_stderr_contains("1 records scored from earlier output");
    let v: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(v["summaries"][0]["solved"], 1, "{v}");
}

#[test]
fn a_missing_file_among_several_is_reported_and_the_rest_processed() {
    let t = TempDir::new("missing");
    let game = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let a = t.write("a.pgn", game);
    let b = t.write("b.pgn", game);
    let missing = t.join("missing.pgn");
    let o = rookery_in(
        t.path(),
        &["pgn", "validate", s(&a), s(&missing), s(&b)],
        b"",
    );
    o.assert_code(1)
        .assert_stdout_contains("2 games")
        .assert_stderr_contains("missing.pgn");
    let o = rookery_in(
        t.path(),
        &["pgn", "stats", s(&a), s(&missing), s(&b), "--json"],
        b"",
    );
    o.assert_code(1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["games"], 2);
    let e1 = t.write("a.epd", MATE1);
    let o = rookery_in(
        t.path(),
        &["epd", "validate", s(&e1), "missing.epd", s(&e1)],
        b"",
    );
    o.assert_code(1);
    assert_eq!(
        text(&o.stdout).matches("1 records").count(),
        2,
        "{}",
        text(&o.stdout)
    );
    let o = suite(t.path(), &[s(&e1), "missing.epd", "--no-html", "--json"]);
    o.assert_code(1).assert_stderr_contains("missing.epd");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summaries"][0]["solved"], 1);
}

#[test]
fn messages_say_things_once_and_name_the_input_alike() {
    let t = TempDir::new("messages");
    // A wrong JSON for report: file, line, column and words, no parser internals.
    let bad = t.write("bad.json", "{\"suite\": \"x\", \"engine\": 3}\n");
    let o = rookery_in(t.path(), &["report", s(&bad)], b"");
    o.assert_code(1);
    let err = text(&o.stderr);
    assert_contains_all(&err, &["bad.json:1:", "not rookery suite results"]);
    assert_eq!(err.matches("line").count(), 0, "{err}");
    // stdin is `<stdin>` in every verb.
    let o = rookery_in(
        t.path(),
        &["epd", "target", "-", "--depth", "1", "--jobs", "1"],
        b"not a record\n",
    );
    o.assert_stderr_contains("<stdin>:1");
    let o = rookery_in(t.path(), &["pgn", "validate", "-"], b"1. e4 e5 2. Kxe8 *\n");
    o.assert_stdout_contains("<stdin>:1");
    // JSON diagnostics say `column` in PGN as in EPD.
    let o = rookery_in(
        t.path(),
        &["pgn", "validate", "--json", "-"],
        b"1. e4 e5 2. Kxe8 *\n",
    );
    let first: serde_json::Value =
        serde_json::from_str(text(&o.stdout).lines().next().unwrap()).unwrap();
    assert!(
        first.get("column").is_some() && first.get("col").is_none(),
        "{first}"
    );
}

#[test]
fn tag_warnings_point_at_the_tag() {
    let t = TempDir::new("tags");
    let pgn = t.write(
        "t.pgn",
        "[Event \"x\"]\n[Site \"?\"]\n[Date \"2024.13.45\"]\n[Result \"*\"]\n\n1. e4 *\n",
    );
    let o = rookery_in(t.path(), &["pgn", "validate", s(&pgn)], b"");
    let out = text(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.contains("warning") && l.contains("2024.13.45"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("t.pgn:3:1:"), "{line}");
}

#[test]
fn normalize_keeps_which_comment_belongs_to_which_nag() {
    let t = TempDir::new("nags");
    let pgn = t.write(
        "n.pgn",
        "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. b3 {c1} $1 {c2} *\n",
    );
    let o = rookery_in(t.path(), &["pgn", "normalize", s(&pgn)], b"");
    o.assert_code(0).assert_stdout_contains("b3 {c1} $1 {c2}");
}

#[test]
fn a_directory_given_as_input_is_named() {
    let t = TempDir::new("dir-input");
    let d = t.join("games");
    std::fs::create_dir(&d).unwrap();
    for verb in [
        &["epd", "normalize"][..],
        &["epd", "validate"],
        &["pgn", "validate"],
        &["pgn", "stats"],
        &["pgn", "to-epd"],
    ] {
        rookery_in(t.path(), &[verb, &[s(&d)]].concat(), b"")
            .assert_code(1)
            .assert_stderr_contains("games: is a directory");
    }
}

#[test]
fn an_output_that_cannot_be_written_is_named_as_given() {
    let t = TempDir::new("out-missing-dir");
    let epd = t.write("in.epd", MATE1);
    let out = t.join("no-such-dir").join("out.epd");
    let o = rookery_in(t.path(), &["epd", "normalize", s(&epd), "-o", s(&out)], b"");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("cannot write {} ", out.display())),
        "{err}"
    );
    assert!(!out.exists());
}

/// Text in UTF-16 (as Windows editors save "Unicode") is refused by every
/// verb that reads PGN or EPD, with an error that names the file and how to
/// convert it; read as Latin-1 it would be games and records of nothing,
/// and `pgn stats` said "2 games, 0 errors". Among several files it is
/// reported as a missing file is, and the others are still read.
#[test]
fn utf16_text_is_refused_naming_the_file() {
    let t = TempDir::new("utf16");
    let wide = |name: &str, text: &str| {
        let bytes: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        t.write(name, bytes)
    };
    let game = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let pgn = wide("w.pgn", game);
    let epd = wide("w.epd", MATE1);
    let good = t.write("good.pgn", game);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["pgn", "stats", s(&pgn)], "w.pgn"),
        (vec!["pgn", "stats", "--jobs", "2", s(&pgn)], "w.pgn"),
        (vec!["pgn", "validate", s(&pgn)], "w.pgn"),
        (vec!["pgn", "normalize", s(&pgn)], "w.pgn"),
        (vec!["pgn", "to-epd", s(&pgn)], "w.pgn"),
        (vec!["pgn", "stats", "-"], "<stdin>"),
        (vec!["epd", "normalize", s(&epd)], "w.epd"),
        (vec!["epd", "validate", s(&epd)], "w.epd"),
        (vec!["epd", "convert", "--to", "fen", s(&epd)], "w.epd"),
        (vec!["pgn", "from-epd", s(&epd)], "w.epd"),
        (vec!["report", s(&epd)], "w.epd"),
        (
            vec!["suite", s(&epd), "--depth", "1", "--jobs", "1"],
            "w.epd",
        ),
    ];
    let stdin = std::fs::read(&pgn).unwrap();
    for (args, name) in &cases {
        let o = rookery_in(t.path(), args, &stdin);
        o.assert_code(1);
        let err = text(&o.stderr);
        assert!(err.contains(name), "{args:?}: {err}");
        assert!(err.contains("the text is UTF-16LE"), "{args:?}: {err}");
        assert!(
            err.contains("iconv -f UTF-16LE -t UTF-8"),
            "{args:?}: {err}"
        );
    }
    let o = rookery_in(
        t.path(),
        &["pgn", "stats", s(&pgn), s(&good), "--json"],
        b"",
    );
    o.assert_code(1).assert_stderr_contains("w.pgn");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["games"], 1);
    // An opening book in UTF-16 stops a match before it starts.
    let line = argv(
        "match --engine cmd=builtin --engine cmd=builtin --each nodes=100 \
         --openings file={pgn} format=pgn --pgnout out.pgn",
        &[("pgn", s(&pgn))],
    );
    rookery_in(t.path(), &line, b"")
        .assert_code(1)
        .assert_stderr_contains("the text is UTF-16LE");
    assert!(!t.join("out.pgn").exists());
}

/// `rookery guide` lists the chapters the README links, and prints each
/// as the file in `docs/` holds it; a chapter not there is a usage error
/// naming the chapters.
#[test]
fn the_guide_prints_the_chapters_the_readme_links() {
    let t = TempDir::new("guide");
    let list = rookery_in(t.path(), &["guide"], b"");
    assert_eq!(list.status.code(), Some(0), "{}", text(&list.stderr));
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let linked: Vec<&str> = readme
        .split("](docs/")
        .skip(1)
        .filter_map(|rest| rest.split_once(".md)").map(|(name, _)| name))
        .collect();
    assert!(linked.len() >= 9, "{linked:?}");
    for name in &linked {
        assert!(
            text(&list.stdout).contains(&format!("  {name} ")),
            "{name} not listed: {}",
            text(&list.stdout)
        );
        let chapter = rookery_in(t.path(), &["guide", name], b"");
        assert_eq!(chapter.status.code(), Some(0), "{name}");
        let file = std::fs::read_to_string(format!(
            "{}/../../docs/{name}.md",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        assert_eq!(text(&chapter.stdout), file, "{name}");
    }
    let missing = rookery_in(t.path(), &["guide", "openings"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert_contains_all(&text(&missing.stderr), &["openings", "engines", "python"]);
}
