//! `rookery report` on EPD input (Gastric, spec §3.3), end to end: scoring
//! of analysed EPD, paired comparison with McNemar, themes, CSV, the gates.
//! The fixtures (`tests/data/gastric`) are six STS positions with answers
//! chosen by hand: "after" newly solves 2 positions and newly loses 3.

use crate::common::{rookery, s, text};
use rookery_testkit::cmd::assert_contains_all;
use rookery_testkit::TempDir;
use std::path::Path;

fn data(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gastric")
        .join(name);
    s(&p).to_string()
}

#[test]
fn two_epd_runs_are_scored_and_paired() {
    let (before, after) = (data("before.epd"), data("after.epd"));
    let o = rookery(&["report", &before, &after, "--json"], b"");
    o.assert_code(0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = &v["summaries"];
    assert_eq!(s[0]["solved"], 4);
    assert_eq!(s[0]["total"], 6);
    assert_eq!(s[0]["points"], 46);
    assert_eq!(s[0]["max_points"], 60);
    assert_eq!(s[1]["solved"], 3);
    assert_eq!(s[1]["points"], 49);
    assert_eq!(s[0]["errors"], 0);
    // Answers: pm in "before", the first pv move in "after".
    assert_eq!(v["runs"][0]["positions"][1]["answer"], "Qd4+");
    assert_eq!(v["runs"][1]["positions"][2]["answer"], "Rd5");
    assert_eq!(v["runs"][0]["positions"][0]["depth"], 12);
    assert_eq!(v["runs"][0]["positions"][0]["nodes"], 120000);
    let p = &v["paired"][0];
    assert_eq!(p["matched"], 6);
    assert_eq!(
        p["gained"],
        serde_json::json!([
            "STS(v1.0) Undermine.002",
            "STS(v2.2) Open Files and Diagonals.003"
        ])
    );
    assert_eq!(
        p["lost"],
        serde_json::json!([
            "STS(v1.0) Undermine.003",
            "STS(v2.2) Open Files and Diagonals.001",
            "STS(v2.2) Open Files and Diagonals.002"
        ])
    );
    // n = 5 discordant, min 2: 2 * (1 + 5 + 10) / 32 = 1.
    assert_eq!(p["p_value"], 1.0);
    // Themes by id prefix.
    let rows = &v["themes"][0]["rows"];
    assert_eq!(rows[0]["theme"], "STS(v1.0) Undermine");
    assert_eq!(
        (rows[0]["solved"].clone(), rows[1]["solved"].clone()),
        (2.into(), 2.into())
    );
    assert_eq!(rows[1]["theme"], "STS(v2.2) Open Files and Diagonals");
    // Curves on time (Tsol where solved).
    assert_eq!(v["curves"]["measure"], "time");
    assert_eq!(
        v["curves"]["curves"][0]["points"],
        serde_json::json!([[20, 1], [40, 2], [300, 3], [900, 4]])
    );
    assert_eq!(
        v["curves"]["curves"][1]["points"],
        serde_json::json!([[10, 1], [700, 2], [5000, 3]])
    );
}

#[test]
fn text_report_names_the_verdict_and_the_positions() {
    let o = rookery(&["report", &data("before.epd"), &data("after.epd")], b"");
    o.assert_code(0);
    let t = text(&o.stdout);
    assert_contains_all(
        &t,
        &[
            "newly solved (2): STS(v1.0) Undermine.002, STS(v2.2) Open Files and Diagonals.003",
            "newly lost (3): STS(v1.0) Undermine.003",
            "verdict: worse (+2 -3, exact McNemar p = 1.0000, not significant at 0.05)",
            "themes of before on before (by id prefix):",
            "solved within t (time per position (ms)):",
        ],
    );
}

#[test]
fn gates() {
    let (before, after) = (data("before.epd"), data("after.epd"));
    let worse = rookery(&["report", &before, &after, "--fail-if-worse"], b"");
    worse
        .assert_code(1)
        .assert_stderr_contains("gate failed: after on after is worse than before on before");
    // Worse, but not beyond chance.
    let sig = rookery(
        &["report", &before, &after, "--fail-if-worse=significant"],
        b"",
    );
    sig.assert_code(0);
    // The other way round it is better.
    let better = rookery(&["report", &after, &before, "--fail-if-worse"], b"");
    better.assert_code(0);
    // The last run solves 3/6 = 50%.
    let under = rookery(&["report", &before, &after, "--fail-under", "50.1"], b"");
    under
        .assert_code(1)
        .assert_stderr_contains("solved 50.0% (3/6), under --fail-under 50.1");
    let at = rookery(&["report", &before, &after, "--fail-under", "50"], b"");
    at.assert_code(0);
    // One run has nothing to be compared with: the gate cannot decide.
    let alone = rookery(&["report", &before, "--fail-if-worse"], b"");
    alone.assert_code(2);
    assert_eq!(
        rookery(&["report", &before, "--fail-under", "101"], b"")
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn significantly_worse_fails_the_significant_gate() {
    let dir = TempDir::new("report-significant");
    let mut old = String::new();
    let mut new = String::new();
    for i in 1..=6 {
        let rec = format!("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"m.{i}\";");
        old.push_str(&format!("{rec} pm Rd8#;\n"));
        new.push_str(&format!("{rec} pm Rd7;\n"));
    }
    let (a, b) = (dir.join("old.epd"), dir.join("new.epd"));
    std::fs::write(&a, old).unwrap();
    std::fs::write(&b, new).unwrap();
    let o = rookery(
        &["report", s(&a), s(&b), "--fail-if-worse=significant"],
        b"",
    );
    o.assert_code(1);
    // 6 lost, 0 gained: p = 2 / 2^6.
    o.assert_stderr_contains("worse (+0 -6, exact McNemar p = 0.0312, significant at 0.05)");
    let strict = rookery(
        &[
            "report",
            s(&a),
            s(&b),
            "--fail-if-worse=significant",
            "--alpha",
            "0.01",
        ],
        b"",
    );
    strict.assert_code(0);
}

#[test]
fn csv_has_a_row_per_position() {
    let o = rookery(
        &[
            "report",
            &data("before.epd"),
            &data("after.epd"),
            "--csv",
            "-",
        ],
        b"",
    );
    o.assert_code(0);
    let t = text(&o.stdout);
    let lines: Vec<&str> = t.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 13, "{t}");
    assert!(lines[0].starts_with("run,suite,engine,index,id,theme,expected,answer,solved,points"));
    assert_eq!(
        lines[2],
        "1,before,before,2,STS(v1.0) Undermine.002,STS(v1.0) Undermine,bm c5,Qd4+,0,4,10,+0.20,11,150000,1000,,,",
        "{}",
        lines[2]
    );
}

#[test]
fn bad_epd_lines_are_reported_with_their_place_and_the_rest_is_reported() {
    let input = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"a\"; pm Rd8#;\n\
                 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd9; id \"b\"; pm Rd8#;\n\
                 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - c0 \"Rd8#=10, Qd8=3\"; id \"c\"; pm Rd8#;\n\
                 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"d\"; acd x; pm Rd8#;\n";
    let o = rookery(&["report", "-", "--json"], input.as_bytes());
    o.assert_code(1);
    let err = text(&o.stderr);
    assert_contains_all(
        &err,
        &[
            "<stdin>:2:",
            "<stdin>:3:35: c0 points: \"Qd8\" is not a legal move here",
            "<stdin>:4:52: acd: expected one non-negative integer, found \"x\"",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summaries"][0]["total"], 4);
    assert_eq!(v["summaries"][0]["solved"], 1);
    assert_eq!(v["summaries"][0]["errors"], 3);
}

#[test]
fn json_and_epd_inputs_mix_and_bad_json_is_placed() {
    let dir = TempDir::new("report-mixed");
    let bad = dir.write("bad.json", "{\n  \"suite\": \"x\",\n  \"engine\": 3\n}\n");
    let err = report_with_bad_input(&bad);
    assert!(err.contains("bad.json:3:"), "{err}");
}

/// `rookery report BAD before.epd`: exit status 1, and the good input still
/// makes the report (4 of 6 solved); returns stderr.
fn report_with_bad_input(bad: &Path) -> String {
    let o = rookery(&["report", s(bad), &data("before.epd")], b"");
    o.assert_code(1).assert_stdout_contains("4/6");
    text(&o.stderr)
}

#[test]
fn opcode_themes() {
    let input = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; c1 \"mate\"; id \"a.1\"; pm Rd8#;\n\
                 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; c1 \"mate\"; id \"b.1\"; pm Rd7;\n\
                 k7/8/2K5/8/8/8/8/7R w - - bm Kb6; c1 \"endgame\"; id \"c.1\"; pm Kb6;\n";
    let o = rookery(
        &["report", "-", "--json", "--theme", "c1"],
        input.as_bytes(),
    );
    o.assert_code(0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = &v["themes"][0]["rows"];
    assert_eq!(rows[0]["theme"], "mate");
    assert_eq!(
        (rows[0]["positions"].clone(), rows[0]["solved"].clone()),
        (2.into(), 1.into())
    );
    assert_eq!(rows[1]["theme"], "endgame");
    assert_eq!(
        rookery(&["report", "-", "--theme", "no such"], b"")
            .status
            .code(),
        Some(2)
    );
}

/// The JSON of `rookery suite` and the EPD it writes with `--epd-out`,
/// scored by two different readers, agree position by position.
#[test]
fn suite_results_and_its_epd_output_agree() {
    let dir = TempDir::new("report-suite-epd");
    let suite = dir.write("mini.epd", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"one\";\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm h4; id \"two\";\n\
         k7/8/2K5/8/8/8/8/7R w - - bm Kb6; id \"three\";\n\
         1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id \"four\"; c0 \"f5=10, Be5+=2, Bf2=3, Bg4=2\";\n");
    let (json, epd) = (dir.join("r.json"), dir.join("out.epd"));
    let o = rookery(
        &[
            "suite",
            s(&suite),
            "--depth",
            "4",
            "--results",
            s(&json),
            "--epd-out",
            s(&epd),
            "--html",
            s(&dir.join("s.html")),
        ],
        b"",
    );
    assert!(epd.exists(), "{}", text(&o.stderr));
    let o = rookery(
        &["report", s(&json), s(&epd), "--json", "--fail-if-worse"],
        b"",
    );
    o.assert_code(0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let (a, b) = (&v["runs"][0]["positions"], &v["runs"][1]["positions"]);
    for i in 0..4 {
        for field in [
            "answer",
            "solved",
            "points",
            "max_points",
            "time_to_solution_ms",
        ] {
            assert_eq!(a[i][field], b[i][field], "position {i}, {field}");
        }
    }
    let p = &v["paired"][0];
    assert_eq!(p["matched"], 4);
    assert_eq!(p["gained"], serde_json::json!([]));
    assert_eq!(p["lost"], serde_json::json!([]));
}

#[test]
fn a_pgn_file_is_named_as_pgn_not_as_bad_json() {
    let dir = TempDir::new("report-pgn");
    let pgn = dir.write("games.pgn", "\n[Event \"x\"]\n[Site \"y\"]\n\n1. e4 e5 *\n");
    // The other input still makes the report.
    let err = report_with_bad_input(&pgn);
    assert!(err.contains("games.pgn:2:1: a PGN tag pair"), "{err}");
    assert!(!err.contains("JSON:"), "{err}");
    // A JSON array of runs is still JSON, not a tag pair.
    let o = rookery(&["report", "-"], b"[ 3 ]");
    o.assert_stderr_contains("not rookery suite results");
}

#[test]
fn a_latin1_epd_line_is_read_as_latin1_with_a_warning() {
    let input = b"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"caf\xe9.1\"; pm Rd8#;\n";
    let o = rookery(&["report", "-", "--json"], input);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("<stdin>:1: warning: not UTF-8"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["runs"][0]["positions"][0]["id"], "caf\u{e9}.1");
    assert_eq!(v["summaries"][0]["solved"], 1);
}

/// An input with no run (an empty EPD file, a JSON array of no run) is an
/// error, and a report of nothing is not written: no table header on
/// stdout, no page or CSV over a file the user had.
#[test]
fn inputs_with_no_run_are_errors_and_nothing_is_written() {
    let dir = TempDir::new("report-empty");
    let empty = dir.write("empty.epd", "");
    let array = dir.write("none.json", "[]\n");
    let page = dir.write("page.html", "the user's page");
    let csv = dir.path().join("rows.csv");
    for input in [&empty, &array] {
        let o = rookery(
            &["report", s(input), "--html", s(&page), "--csv", s(&csv)],
            b"",
        );
        o.assert_code(1);
        assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
        let err = text(&o.stderr);
        let name = input.file_name().unwrap().to_str().unwrap();
        assert!(err.contains(&format!("{name}:1:1:")), "{err}");
        assert!(err.contains("nothing to report"), "{err}");
        assert_eq!(std::fs::read_to_string(&page).unwrap(), "the user's page");
        assert!(!csv.exists());
    }
    // With a run beside it, the empty input is an error and the run is reported.
    let o = rookery(&["report", s(&array), &data("before.epd")], b"");
    o.assert_code(1).assert_stdout_contains("4/6");
}
