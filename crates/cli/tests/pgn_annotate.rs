//! `rookery pgn annotate` end to end: with the built-in engine and with
//! Stockfish, the output is read back by python-chess, which checks the
//! mainlines, tags, comments, NAGs and variations against the input and
//! recomputes every judgement and figure from the written `[%eval]`s alone
//! (tests/python/annotate_check.py); unreadable games and engine failures
//! lose nothing; `--resume` keeps what was written; the page renders in
//! headless Chromium.

use crate::common::{rookery, s, stockfish};
use rookery_testkit::cmd::{assert_contains_all, Run};
use rookery_testkit::{peer, TempDir};
use std::path::{Path, PathBuf};
use std::process::Command;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/annotate");
const CHECK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/annotate_check.py"
);

fn python_chess() -> bool {
    peer::python_chess().is_some()
}

/// Runs the python-chess checker; its counts.
fn check(input: &Path, output: &Path, book: u32) -> serde_json::Value {
    let o = Command::new("python3")
        .arg(CHECK)
        .arg(input)
        .arg(output)
        .arg(book.to_string())
        .output()
        .expect("run python3");
    assert!(
        o.status.success(),
        "python-chess check failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stderr),
        std::fs::read_to_string(output).unwrap_or_default()
    );
    serde_json::from_slice(&o.stdout).expect("checker prints JSON")
}

/// The text with every run of whitespace made one space (the writer wraps lines).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The sum of a figure tag over both players and all games.
fn tag_sum(pgn: &str, figure: &str) -> u64 {
    let mut sum = 0;
    for side in ["White", "Black"] {
        let tag = format!("[{side}{figure} \"");
        for s in pgn.split(tag.as_str()).skip(1) {
            sum += s.split('"').next().unwrap().parse::<u64>().unwrap();
        }
    }
    sum
}

fn data(f: &str) -> PathBuf {
    Path::new(DATA).join(f)
}

/// `rookery pgn annotate INPUT -o OUT EXTRA...`, whatever its exit status.
fn run_annotate(input: &Path, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["pgn", "annotate", s(input), "-o", s(out)];
    args.extend_from_slice(extra);
    rookery(&args, b"")
}

/// As [`run_annotate`], which must succeed.
fn annotate(input: &Path, out: &Path, extra: &[&str]) -> Run {
    let o = run_annotate(input, out, extra);
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Checks a run whose engine failed on every game: exit 1, `games` engine
/// failures reported, with `why`; returns the PGN written to `out`, which
/// must hold `written` games.
fn engine_failed(o: &Run, out: &Path, games: usize, why: &str, written: usize) -> String {
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("engine failed").count(), games, "{err}");
    assert!(err.contains(why), "{why:?} not in {err}");
    let text = std::fs::read_to_string(out).unwrap();
    assert_eq!(text.matches("[Event ").count(), written, "{text}");
    text
}

#[test]
fn builtin_engine_python_chess_agrees() {
    if !python_chess() {
        return;
    }
    let t = TempDir::new("builtin");
    let input = data("pe-checkmate.pgn");
    let out = t.join("out.pgn");
    annotate(&input, &out, &["--depth", "6", "--jobs", "2"]);
    let c = check(&input, &out, 0);
    assert_eq!(c["games"], 2, "{c}");
    assert_eq!(c["mate_games"], 1, "{c}");
    assert_eq!(c["moves"], 76, "{c}");
    assert_eq!(c["judged"], 76, "{c}");
    // 2. g4 walks into mate in one: a blunder by any engine, named as such.
    assert!(c["blunders"].as_u64().unwrap() >= 1, "{c}");
    let text = one_line(&std::fs::read_to_string(&out).unwrap());
    assert_contains_all(
        &text,
        &[
            "2. g4 $4 {[%eval #-1] Blunder: walks into mate in 1.",
            "Qh4# {[%eval #0]}",
        ],
    );
    // Book plies: evaluated, not judged.
    let out = t.join("book.pgn");
    annotate(
        &input,
        &out,
        &["--depth", "5", "--jobs", "1", "--book-plies", "10"],
    );
    let c = check(&input, &out, 10);
    assert_eq!(c["judged"], 62, "{c}");
}

#[test]
fn stockfish_python_chess_agrees() {
    let Some(sf) = stockfish() else { return };
    if !python_chess() {
        return;
    }
    let t = TempDir::new("stockfish");
    for (file, mates) in [("pe-checkmate.pgn", 1), ("twic0920-first3.pgn", 0)] {
        let input = data(file);
        let out = t.join(file);
        annotate(
            &input,
            &out,
            &[
                "--engine",
                &sf,
                "--option",
                "Threads=1",
                "--depth",
                "9",
                "--jobs",
                "2",
                "--multipv",
                "2",
            ],
        );
        let c = check(&input, &out, 0);
        assert_eq!(c["mate_games"], mates, "{file}: {c}");
        assert!(c["judged"].as_u64().unwrap() > 0, "{file}: {c}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            text.contains("[Annotator \"rookery (Stockfish"),
            "{text:.600}"
        );
    }
}

/// An engine that answers the handshake and dies at its first search.
fn crashing_engine(dir: &TempDir) -> PathBuf {
    engine_script(dir, "crashy", "echo 'crashy: giving up' >&2; exit 7")
}

/// An engine script named `name` that does `on_go` when told to search.
fn engine_script(dir: &TempDir, name: &str, on_go: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!("#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo \"id name {name}\"; echo uciok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    p
}

const WITH_BAD_GAME: &str = "[Event \"one\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
[Event \"bad\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 {illegal} Nc6 *\n\n\
[Event \"three\"]\n[Result \"*\"]\n\n1. d4 {a comment} d5 (1... Nf6 2. c4) 2. c4 $1 *\n";

#[test]
fn unreadable_games_are_copied_and_engine_failures_written_unannotated() {
    let t = TempDir::new("failures");
    let input = t.write("in.pgn", WITH_BAD_GAME);
    // The built-in engine: the bad game is copied as it was, reported with its place.
    let out = t.join("out.pgn");
    let o = run_annotate(&input, &out, &["--depth", "3"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_contains_all(&err, &["in.pgn:11:13: error:", "Ke3"]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("[Event \"bad\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 {illegal} Nc6 *\n\n"),
        "{text}"
    );
    assert_eq!(text.matches("[Event ").count(), 3);
    // The other two games are annotated (4 + 3 mainline moves, each with an eval).
    let flat = one_line(&text);
    for mv in [
        "1. f3",
        "1... e5",
        "2. g4",
        "2... Qh4#",
        "1. d4",
        "1... d5",
        "2. c4",
    ] {
        assert!(
            flat.contains(&format!("{mv} {{[%eval")) || flat.contains(&format!("{mv} $")),
            "{mv}: {flat}"
        );
    }
    assert!(
        flat.contains("{a comment}") && flat.contains("(1... Nf6 2. c4)"),
        "{flat}"
    );
    // An engine that crashes: every game is still written, unannotated, and reported.
    let crash = crashing_engine(&t);
    let out = t.join("crash.pgn");
    let engine = ["--engine", s(&crash), "--movetime", "50"];
    let o = run_annotate(&input, &out, &[&engine[..], &["--jobs", "1"]].concat());
    let text = engine_failed(&o, &out, 2, "crashy: giving up", 3);
    assert!(!text.contains("[%eval"), "{text}");
    assert_contains_all(
        &text,
        &[
            "1. f3 e5 2. g4 Qh4# 0-1",
            "1. d4 {a comment} 1... d5 (1... Nf6 2. c4) 2. c4 $1 *",
        ],
    );
}

#[test]
fn hanging_engine_is_reported_and_the_game_written() {
    let t = TempDir::new("hang");
    let input = data("pe-checkmate.pgn");
    let hang = engine_script(&t, "hangs", "exec sleep 100000");
    let out = t.join("out.pgn");
    let engine = ["--engine", s(&hang), "--movetime", "50"];
    let o = run_annotate(&input, &out, &[&engine[..], &["--jobs", "2"]].concat());
    let text = engine_failed(&o, &out, 2, "did not answer bestmove", 2);
    assert!(
        one_line(&text).contains("1. f3 e5 2. g4 Qh4# 0-1"),
        "{text}"
    );
}

#[test]
fn resume_keeps_what_was_written() {
    let t = TempDir::new("resume");
    let input = data("pe-checkmate.pgn");
    let full = t.join("full.pgn");
    let args = ["--depth", "4", "--jobs", "1"];
    annotate(&input, &full, &args);
    let full_text = std::fs::read_to_string(&full).unwrap();
    let second = full_text[1..].find("[Event ").unwrap() + 1;
    // The first game with a sentinel planted in it, and half of the second,
    // as if the run had been killed while writing.
    let first =
        full_text[..second].replace("Annotated by rookery", "SENTINEL Annotated by rookery");
    assert_ne!(first, full_text[..second]);
    let cut = second + (full_text.len() - second) / 2;
    let part = t.write("part.pgn", format!("{first}{}", &full_text[second..cut]));
    let mut resume_args = args.to_vec();
    resume_args.push("--resume");
    let o = annotate(&input, &part, &resume_args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_contains_all(&err, &["resuming after 1 game(s)", "1 skipped"]);
    // The kept game is untouched (the sentinel survives); the rest is redone as in the full run.
    assert_eq!(
        std::fs::read_to_string(&part).unwrap(),
        format!("{first}{}", &full_text[second..])
    );
}

#[test]
fn page_renders_in_chromium() {
    let Some(browser) = peer::chromium() else {
        return;
    };
    let t = TempDir::new("page");
    let input = data("pe-checkmate.pgn");
    let out = t.join("out.pgn");
    let html = t.join("page.html");
    annotate(
        &input,
        &out,
        &["--depth", "6", "--jobs", "2", "--html", s(&html)],
    );
    let pgn = std::fs::read_to_string(&out).unwrap();
    // The page shows the judgements the tags count (a human's NAG in the
    // input stands in the PGN, the engine's judgement is still counted).
    let blunders = tag_sum(&pgn, "Blunders") as usize;
    let marked =
        blunders + tag_sum(&pgn, "Mistakes") as usize + tag_sum(&pgn, "Inaccuracies") as usize;
    let dom = peer::chromium_dom(&browser, &html, &t.join("profile"));
    assert!(
        dom.contains("<title>pe-checkmate.pgn: annotated games</title>"),
        "{dom:.400}"
    );
    assert_eq!(dom.matches("<section class=\"game\"").count(), 2);
    // One evaluation graph per game, each an SVG.
    assert_eq!(
        dom.matches("data-chart=\"eval\"><svg").count(),
        2,
        "{dom:.2000}"
    );
    // Every move of the PGN in the move list; the signs as in the PGN.
    assert_eq!(dom.matches("<span class=\"mv").count(), 76);
    assert_eq!(dom.matches("<span class=\"mv blunder\"").count(), blunders);
    assert_eq!(
        dom.matches("<span class=\"mv inaccuracy\"").count()
            + dom.matches("<span class=\"mv mistake\"").count()
            + dom.matches("<span class=\"mv blunder\"").count(),
        marked
    );
    // A diagram at every blunder; the players' figures as in the tags.
    assert_eq!(dom.matches("<svg class=\"board\"").count(), blunders);
    assert!(blunders >= 1);
    assert_eq!(dom.matches("<tr class=\"player\"").count(), 4);
    let acpl = pgn
        .split("[WhiteACPL \"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap();
    assert!(
        dom.contains(&format!("<td class=\"acpl\">{acpl}</td>")),
        "{acpl}"
    );
}
