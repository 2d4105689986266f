//! `rookery epd analyse|mate|target` and `rookery suite`/`report` end to end:
//! with the built-in engine, with Stockfish (when installed), and with
//! engines that crash or hang mid-search.

use rookery_core::{Position, SanPlus};
use rookery_epd::Record;
use std::path::{Path, PathBuf};

use crate::common::{rookery, s, stockfish};
use rookery_testkit::cmd::{argv, assert_contains_all, Run};
use rookery_testkit::TempDir;

/// Each test's own temporary directory, removed when the test ends.
fn tmp(tag: &str) -> TempDir {
    TempDir::new(&format!("analysis-{tag}"))
}

/// Small suite: two mates in one, a mate in two, a stalemate, a quiet
/// position, an unreadable line, a comment.
const SUITE: &str = "\
6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"m1a\";
# a comment line
r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - bm Qxf7#; id \"m1b\";
this line is not a record
k7/8/2K5/8/8/8/8/7R w - - bm Kb6; id \"m2\";
7k/5Q2/6K1/8/8/8/8/8 b - - id \"stale\";
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"start\";
";

/// The suite, written into the test's own directory.
fn write_suite(dir: &TempDir) -> PathBuf {
    dir.write("suite.epd", SUITE)
}

/// Whether the side to move can force mate within `moves` moves.
fn mate_within(pos: &Position, moves: u32) -> bool {
    if moves == 0 {
        return false;
    }
    pos.legal_moves().iter().any(|&m| {
        let after = pos.after(m);
        if after.is_checkmate() {
            return true;
        }
        let replies = after.legal_moves();
        !replies.is_empty()
            && replies
                .iter()
                .all(|&r| mate_within(&after.after(r), moves - 1))
    })
}

/// Lines of the output, checked to match the input line for line: same
/// count, comments and unreadable lines verbatim, records in the same order
/// with the same position and id.
fn check_shape(input: &str, output: &str) -> Vec<Option<Record>> {
    let (inl, outl): (Vec<&str>, Vec<&str>) = (input.lines().collect(), output.lines().collect());
    assert_eq!(inl.len(), outl.len(), "line count differs:\n{output}");
    let mut records = Vec::new();
    for (a, b) in inl.iter().zip(&outl) {
        match a.parse::<Record>() {
            Ok(ra) if !a.starts_with('#') => {
                let rb: Record = b
                    .parse()
                    .unwrap_or_else(|e| panic!("output record unreadable: {b}: {e}"));
                assert_eq!(ra.position(), rb.position());
                assert_eq!(ra.id(), rb.id());
                records.push(Some(rb));
            }
            _ => {
                assert_eq!(a, b, "non-record lines are copied verbatim");
                records.push(None);
            }
        }
    }
    records
}

fn check_analyse(output: &str) {
    for rec in check_shape(SUITE, output).into_iter().flatten() {
        let pos = rec.position();
        let pv = rec.pv().expect("pfga always writes pv");
        assert!(rec.ce().is_some(), "pfga always writes ce: {rec}");
        if pos.has_legal_move() {
            assert!(!pv.is_empty(), "{rec}");
            assert_eq!(
                rec.pm(),
                pv.first().copied(),
                "pm is pv's first move: {rec}"
            );
            // pv is legal: the record parser plays it; check it again here.
            let mut p = pos.clone();
            for &m in pv {
                assert!(p.is_legal(m), "{rec}");
                p.play_unchecked(m);
            }
        } else {
            assert!(pv.is_empty() && rec.pm().is_none(), "{rec}");
            let expected = if pos.is_check() { -32767 } else { 0 };
            assert_eq!(rec.ce(), Some(expected), "{rec}");
        }
        if rec.id() == Some("m1a") || rec.id() == Some("m1b") {
            assert_eq!(rec.ce(), Some(32766), "mate in one: {rec}");
        }
    }
}

#[test]
fn analyse_builtin() {
    let dir = tmp("analyse_builtin");
    let suite = write_suite(&dir);
    let o = rookery(
        &argv(
            "epd analyse {suite} --depth 5 --pm --acn --acs --jobs 2",
            &[("suite", s(&suite))],
        ),
        b"",
    );
    assert_eq!(o.status.code(), Some(1), "the unreadable line makes exit 1");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("suite.epd:4:"), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    check_analyse(&out);
    assert!(out.lines().filter(|l| l.contains("acn ")).count() >= 4);
}

#[test]
fn analyse_stockfish() {
    let Some(sf) = stockfish() else { return };
    let dir = tmp("analyse_stockfish");
    let suite = write_suite(&dir);
    let o = rookery(
        &argv(
            "epd analyse {suite} --engine {sf} --depth 8 --pm --option Hash=16",
            &[("suite", s(&suite)), ("sf", &sf)],
        ),
        b"",
    );
    assert_eq!(o.status.code(), Some(1));
    check_analyse(&String::from_utf8_lossy(&o.stdout));
}

/// Exit status 1 with errors reported only for the suite's unreadable line
/// 4 (once per pass); the unreadable record is the only one that failed, the
/// engine failed on none.
fn check_exit_1_for_line_4_only(o: &Run) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.contains(": error: ")).collect();
    assert!(!errors.is_empty(), "{err}");
    assert!(
        errors
            .iter()
            .all(|e| e.contains("suite.epd:4:1: error: bad position")),
        "{err}"
    );
    let summaries: Vec<&str> = err.lines().filter(|l| l.contains(" records, ")).collect();
    assert_eq!(summaries.len(), errors.len(), "one summary a pass: {err}");
    assert!(summaries.iter().all(|l| l.ends_with(", 1 failed")), "{err}");
}

fn check_mate(output: &str, n: u32) {
    let mut found = Vec::new();
    for rec in check_shape(SUITE, output).into_iter().flatten() {
        if let Some(dm) = rec.dm() {
            assert!(dm as u32 <= n);
            assert!(
                mate_within(rec.position(), dm as u32),
                "dm {dm} without such a mate: {rec}"
            );
            let pm = rec.pm().expect("pm with dm");
            let after = rec.position().after(pm);
            assert!(
                after.is_checkmate() || mate_within_reply(&after, dm as u32 - 1),
                "pm does not mate: {rec}"
            );
            found.push(rec.id().unwrap().to_string());
        }
    }
    let expect: Vec<&str> = if n >= 2 {
        vec!["m1a", "m1b", "m2"]
    } else {
        vec!["m1a", "m1b"]
    };
    assert_eq!(found, expect, "{output}");
}

/// After our move: every reply still allows mate within `moves`.
fn mate_within_reply(after: &Position, moves: u32) -> bool {
    let replies = after.legal_moves();
    !replies.is_empty() && replies.iter().all(|&r| mate_within(&after.after(r), moves))
}

#[test]
fn mate_builtin_in_passes() {
    let dir = tmp("mate_builtin_in_passes");
    let suite = write_suite(&dir);
    let suite = s(&suite);
    // Mates of 1, then of up to 2 moves, with the mating lines.
    let passes = ["--moves", "1", "--up-to", "2"];
    let o = rookery(
        &[&["epd", "mate", suite, "--depth", "6", "--pv"], &passes[..]].concat(),
        b"",
    );
    // The unreadable line (4) is reported and makes exit 1; nothing else may fail.
    check_exit_1_for_line_4_only(&o);
    check_mate(&String::from_utf8_lossy(&o.stdout), 2);
    let o = rookery(&["epd", "mate", suite, "--depth", "6", "--moves", "1"], b"");
    check_exit_1_for_line_4_only(&o);
    check_mate(&String::from_utf8_lossy(&o.stdout), 1);
}

#[test]
fn mate_stockfish() {
    let Some(sf) = stockfish() else { return };
    let dir = tmp("mate_stockfish");
    let suite = write_suite(&dir);
    let o = rookery(
        &argv(
            "epd mate --moves 2 {suite} --engine {sf} --movetime 500",
            &[("suite", s(&suite)), ("sf", &sf)],
        ),
        b"",
    );
    check_exit_1_for_line_4_only(&o);
    check_mate(&String::from_utf8_lossy(&o.stdout), 2);
}

fn check_target(output: &str) {
    for rec in check_shape(SUITE, output).into_iter().flatten() {
        let pos = rec.position();
        if pos.has_legal_move() {
            let pm = rec.pm().unwrap_or_else(|| panic!("pfts writes pm: {rec}"));
            assert!(pos.is_legal(pm));
            if let Some(bm) = rec.bm() {
                if rec.id() != Some("m2") {
                    assert!(
                        bm.contains(&pm),
                        "mate in one missed: {rec} ({})",
                        SanPlus::from_move(pos, pm)
                    );
                }
            }
        } else {
            assert!(rec.pm().is_none(), "no pm for a side without moves: {rec}");
        }
    }
}

#[test]
fn target_builtin_and_stockfish() {
    let dir = tmp("target_builtin_and_stockfish");
    let suite = write_suite(&dir);
    let o = rookery(&["epd", "target", s(&suite), "--depth", "5"], b"");
    check_exit_1_for_line_4_only(&o);
    check_target(&String::from_utf8_lossy(&o.stdout));
    // A soft limit: the engine's own time management decides.
    let o = rookery(
        &argv(
            "epd target {suite} --soft-movetime 50",
            &[("suite", s(&suite))],
        ),
        b"",
    );
    check_exit_1_for_line_4_only(&o);
    check_target(&String::from_utf8_lossy(&o.stdout));
    if let Some(sf) = stockfish() {
        let o = rookery(
            &argv(
                "epd target {suite} --engine {sf} --soft-movetime 50",
                &[("suite", s(&suite)), ("sf", &sf)],
            ),
            b"",
        );
        check_exit_1_for_line_4_only(&o);
        check_target(&String::from_utf8_lossy(&o.stdout));
        let o = rookery(
            &argv(
                "epd target {suite} --engine {sf} --movetime 100 --jobs 2",
                &[("suite", s(&suite)), ("sf", &sf)],
            ),
            b"",
        );
        check_exit_1_for_line_4_only(&o);
        check_target(&String::from_utf8_lossy(&o.stdout));
    }
}

fn script(dir: &TempDir, name: &str, on_go: &str) -> PathBuf {
    let p = dir.join(name);
    let body = format!(
        "#!/bin/sh\nwhile read line; do\n  case \"$line\" in\n    uci) echo \"id name {name}\"; echo uciok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"
    );
    std::fs::write(&p, body).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    p
}

/// pfts over `suite` with an external `engine` at 50 ms, writing `out`.
fn target_with_engine(suite: &Path, engine: &Path, out: &Path, jobs: u32) -> Run {
    let jobs = jobs.to_string();
    rookery(
        &argv(
            "epd target {suite} --engine {engine} --movetime 50 -o {out} --jobs \
         {jobs}",
            &[
                ("suite", s(suite)),
                ("engine", s(engine)),
                ("out", s(out)),
                ("jobs", &jobs),
            ],
        ),
        b"",
    )
}

#[test]
fn crashing_engine_reports_and_completes() {
    let dir = tmp("crashing_engine_reports_and_completes");
    let suite = write_suite(&dir);
    let crash = script(&dir, "crashy", "echo 'crashy: giving up' >&2; exit 7");
    let out = dir.join("crash-out.epd");
    let o = target_with_engine(&suite, &crash, &out, 1);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_contains_all(
        &err,
        &[
            "engine exited unexpectedly",
            "exit status: 7",
            "crashy: giving up",
        ],
    );
    // Every line is there, records unchanged (no pm could be added).
    let text = std::fs::read_to_string(&out).unwrap();
    let recs = check_shape(SUITE, &text);
    assert!(recs.iter().flatten().all(|r| r.pm().is_none()));
}

#[test]
fn hanging_engine_reports_and_completes() {
    let mut suite_text = String::new();
    for l in SUITE.lines().take(3) {
        suite_text.push_str(l);
        suite_text.push('\n');
    }
    let dir = tmp("hanging_engine_reports_and_completes");
    let suite = dir.write("hang-suite.epd", &suite_text);
    let hang = script(&dir, "hangs", "exec sleep 100000");
    let out = dir.join("hang-out.epd");
    let t0 = std::time::Instant::now();
    let o = target_with_engine(&suite, &hang, &out, 2);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("did not answer bestmove"), "{err}");
    assert!(t0.elapsed().as_secs() < 30);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), suite_text);
}

#[test]
fn resume_finishes_an_interrupted_run() {
    let dir = tmp("resume_finishes_an_interrupted_run");
    let suite = write_suite(&dir);
    let full = dir.join("full.epd");
    let part = dir.join("part.epd");
    let args = |o: &Path, resume: bool| {
        let mut a = argv(
            "epd target {suite} --depth 4 --jobs 1 -o {out}",
            &[("suite", s(&suite)), ("out", s(o))],
        );
        if resume {
            a.push("--resume".into());
        }
        rookery(&a, b"")
    };
    let o = args(&full, false);
    check_exit_1_for_line_4_only(&o);
    let full_text = std::fs::read_to_string(&full).unwrap();
    // Keep three complete lines and half of the fourth, as if killed
    // mid-write; the first line carries a sentinel that no analysis writes,
    // so it survives only if --resume really keeps what is there.
    let lines: Vec<&str> = full_text.lines().collect();
    let sentinel = format!("{} c9 \"kept by resume\";", lines[0]);
    std::fs::write(
        &part,
        format!("{sentinel}\n{}\n{}\n{}", lines[1], lines[2], &lines[3][..5]),
    )
    .unwrap();
    let o = args(&part, true);
    // Line 4 (unreadable) was cut mid-write: it is redone and reported again.
    check_exit_1_for_line_4_only(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    // The two records of lines 1 to 3 were kept, and the summary says so.
    assert!(err.contains(", 2 kept from earlier output,"), "{err}");
    let resumed = std::fs::read_to_string(&part).unwrap();
    // The kept record keeps the sentinel (resume writes operations in the
    // record's normal order); every other line is the full run's.
    let got: Vec<&str> = resumed.lines().collect();
    let expected: Vec<&str> = full_text.lines().collect();
    assert!(got[0].contains("c9 \"kept by resume\";"), "{resumed}");
    assert_ne!(got[0], expected[0], "{sentinel}");
    assert_eq!(got[1..], expected[1..], "{resumed}");
    assert!(resumed.ends_with('\n'));
    // Without --resume the same output is written afresh: the sentinel goes.
    let o = args(&part, false);
    check_exit_1_for_line_4_only(&o);
    assert_eq!(std::fs::read_to_string(&part).unwrap(), full_text);
}

#[test]
fn suite_and_report() {
    let dir = tmp("suite_and_report");
    let suite = write_suite(&dir);
    let html = dir.join("report.html");
    let results = dir.join("results.json");
    let o = rookery(
        &argv(
            "suite {suite} --depth 5 --html {html} --results {results}",
            &[
                ("suite", s(&suite)),
                ("html", s(&html)),
                ("results", s(&results)),
            ],
        ),
        b"",
    );
    assert_eq!(o.status.code(), Some(1), "unreadable line reported");
    let out = String::from_utf8_lossy(&o.stdout);
    // Three scorable positions (two mates in one, one mate in two); the
    // stalemate and the start position have nothing to score.
    let runs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    let positions = runs[0]["positions"].as_array().unwrap();
    assert_eq!(
        positions.len(),
        6,
        "every record, the unreadable one included"
    );
    let solved: Vec<&str> = positions
        .iter()
        .filter(|p| p["solved"] == true)
        .map(|p| p["id"].as_str().unwrap_or("?"))
        .collect();
    // The three mates are found at depth 5.
    assert_eq!(solved, ["m1a", "m1b", "m2"], "{solved:?}");
    let errors = positions.iter().filter(|p| p["error"].is_string()).count();
    assert_eq!(errors, 1, "the unreadable line");
    // The printed totals are those of the results: the run's row names the
    // suite, engine and limits, then solved/total, and the error count last.
    let row: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with("suite ") && l.contains(" rookery "))
        .unwrap_or_else(|| panic!("no totals row for the run:\n{out}"))
        .split_whitespace()
        .collect();
    assert_eq!(&row[..4], ["suite", "rookery", "depth", "5"], "{out}");
    let scored = positions
        .iter()
        .filter(|p| p["max_points"].as_u64() > Some(0))
        .count();
    assert_eq!(row[4], format!("{}/{scored}", solved.len()), "{out}");
    assert_eq!(row.last(), Some(&"1"), "errors column: {out}");
    // Every unsolved scored position is listed as missed, by id.
    for p in positions
        .iter()
        .filter(|p| p["solved"] == false && p["max_points"].as_u64() > Some(0))
    {
        let id = p["id"].as_str().unwrap_or("#");
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(id)),
            "{id} not listed as missed:\n{out}"
        );
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<title>rookery suite report: suite</title>"));
    let o = rookery(
        &argv(
            "report {results} {results} --json",
            &[("results", s(&results))],
        ),
        b"",
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["comparisons"].as_array().unwrap().len(), 1);
}
