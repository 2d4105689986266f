//! Verdicts on input, end to end: a Result the last position contradicts
//! (`pgn validate` warns, `pgn normalize --fix-results` corrects it as
//! pgn-extract does), a binary file given as PGN (an error, exit 1), and
//! `report` on a suite nobody analysed (an input error, exit 1; figures
//! never recorded shown as not recorded).

use crate::common::rookery;
use rookery_testkit::cmd::Cmd;
use rookery_testkit::pgn_text;
use rookery_testkit::{peer, TempDir};

/// A file of rookery-pgn's test data.
fn pgn_data(name: &str) -> String {
    format!("{}/../pgn/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

const FIXRESULTTAGS: &str = "pe-fixresulttags-in.pgn";

#[test]
fn validate_warns_where_the_result_contradicts_the_last_position() {
    let file = pgn_data(FIXRESULTTAGS);
    let run = rookery(&["pgn", "validate", &file], b"");
    run.assert_code(0);
    for line in [
        format!("{file}:7:1: warning: game 1: the final position is checkmate: Black won, but Result says 1-0"),
        format!("{file}:21:1: warning: game 2: the final position is stalemate: a draw, but Result says 0-1"),
        format!("{file}:42:1: warning: game 3: the final position is checkmate: White won, but Result says 1/2-1/2"),
        format!("{file}:58:1: warning: game 4: the final position is checkmate: White won, but Result says 0-1"),
        format!("{file}:73:1: warning: game 5: the final position is checkmate: White won, but Result says 1/2-1/2"),
        "5 games, 0 with errors, 5 warnings".to_owned(),
    ] {
        run.assert_stdout_contains(&line);
    }
    // Strict: a warning counts as an error for the exit status.
    rookery(&["pgn", "validate", "--strict", &file], b"").assert_code(1);
    // In JSON, each is a warning of its game.
    let json = rookery(&["pgn", "validate", "--json", &file], b"");
    let first: serde_json::Value =
        serde_json::from_str(json.stdout_text().lines().next().unwrap()).unwrap();
    assert_eq!(
        (&first["line"], &first["severity"], &first["game"]),
        (&7.into(), &"warning".into(), &1.into()),
        "{first}"
    );
}

/// What a game written in PGN says of its result: its Event (to pair the
/// games), its Result tag and its game-termination marker.
fn results(pgn: &str) -> Vec<(String, String, String)> {
    pgn_text::games(pgn)
        .iter()
        .map(|g| {
            let tag = |n| pgn_text::tag(g, n).unwrap_or("(none)").to_owned();
            let marker = g.split_whitespace().last().unwrap_or("").to_owned();
            (tag("Event"), tag("Result"), marker)
        })
        .collect()
}

/// `rookery pgn normalize --fix-results` corrects results as
/// `pgn-extract --fixresulttags` does, game by game: on pgn-extract's own
/// test file and on one case of each kind it corrects or leaves alone.
#[test]
fn fixed_results_are_pgn_extracts() {
    let Some(pgn_extract) = peer::pgn_extract() else {
        return;
    };
    for name in [FIXRESULTTAGS, "results/edge.pgn"] {
        let file = pgn_data(name);
        let theirs = Cmd::new(&pgn_extract)
            .args(["-s", "--fixresulttags", &file])
            .run();
        theirs.assert_code(0);
        let ours = rookery(&["pgn", "normalize", "--fix-results", &file], b"");
        ours.assert_code(0);
        let (theirs, ours) = (results(&theirs.stdout_text()), results(&ours.stdout_text()));
        assert!(theirs.len() >= 5, "{name}: {theirs:?}");
        assert_eq!(ours, theirs, "{name}");
        // And without the flag the results are kept as they were (a
        // missing or `*` Result tag is written as the marker says, as ever).
        let kept = rookery(&["pgn", "normalize", &file], b"");
        let input = std::fs::read_to_string(&file).unwrap();
        let written = results(&kept.stdout_text());
        assert_ne!(written, theirs, "{name}: something to correct");
        for ((_, tag, marker), (_, in_tag, in_marker)) in written.iter().zip(results(&input)) {
            assert_eq!(marker, &in_marker, "{name}");
            if in_tag != "(none)" && in_tag != "*" {
                assert_eq!(tag, &in_tag, "{name}");
            }
        }
    }
}

/// A program is not PGN: `pgn validate` and `pgn stats` say so, at the
/// first NUL byte, and exit 1, on one thread or several.
#[test]
fn a_binary_file_is_an_error_not_a_game() {
    // The head of the test's own `rookery` (an executable every machine
    // that runs the test has; all of it would only take longer).
    let dir = TempDir::new("verdicts-binary");
    let program = std::fs::read(env!("CARGO_BIN_EXE_rookery")).unwrap();
    let head = &program[..program.len().min(1 << 18)];
    let path = dir.write("program.pgn", head);
    let binary = path.to_str().unwrap();
    for jobs in ["1", "2"] {
        let run = rookery(&["pgn", "validate", "--jobs", jobs, binary], b"");
        run.assert_code(1);
        let out = run.stdout_text();
        let error = out
            .lines()
            .find(|l| l.contains(": error: "))
            .unwrap_or_else(|| panic!("no error:\n{}", run.describe()));
        assert!(error.starts_with(&format!("{binary}:1:")), "{error}");
        assert!(error.contains("not PGN text: a NUL byte"), "{error}");
        run.assert_stdout_contains("1 games, 1 with errors");
        let stats = rookery(&["pgn", "stats", "--jobs", jobs, binary], b"");
        stats.assert_code(1).assert_stderr_contains("not PGN text");
    }
    // On stdin too.
    rookery(&["pgn", "validate", "-"], head)
        .assert_code(1)
        .assert_stdout_contains("<stdin>:1:");
    // Text with a stray control character still reads.
    let text = dir.write(
        "odd.pgn",
        "[Event \"a\"]\n\n1. e4 {a \u{7} bell} e5 1-0\n\u{1a}",
    );
    let run = rookery(&["pgn", "validate", text.to_str().unwrap()], b"");
    run.assert_code(0)
        .assert_stdout_contains("2 games, 0 with errors");
}

/// `rookery report` on a suite nobody analysed (Win At Chess as published):
/// an input error, said once with its place, exit 1; the report is still
/// written, with the time and nodes nobody recorded as `–`, and the
/// limits column whole.
#[test]
fn a_suite_nobody_analysed_is_an_input_error() {
    let wac = format!(
        "{}/../epd/tests/data/suites/wac.epd",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = rookery(&["report", &wac], b"");
    run.assert_code(1).assert_stderr_contains(&format!(
        "rookery: error: {wac}:1:1: no record is analysed (none of the 300 has pm, pv or ce)"
    ));
    assert_eq!(run.stderr_text().lines().count(), 1, "{}", run.describe());
    let out = run.stdout_text();
    let mut lines = out.lines();
    let header = lines.next().unwrap_or_default();
    let row = lines.next().unwrap_or_default();
    assert!(row.contains("as recorded (acd, acn, acs)"), "{out}");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells[cells.len() - 3..],
        ["\u{2013}", "\u{2013}", "300"],
        "{out}"
    );
    // The columns line up (in characters: the dash is three bytes).
    assert_eq!(header.chars().count(), row.chars().count(), "{out}");
    // JSON: null where nothing was recorded.
    let json = rookery(&["report", "--json", &wac], b"");
    json.assert_code(1);
    let v: serde_json::Value = serde_json::from_str(&json.stdout_text()).unwrap();
    assert_eq!(v["summaries"][0]["nodes"], serde_json::Value::Null);
    assert_eq!(
        v["runs"][0]["positions"][0]["time_ms"],
        serde_json::Value::Null
    );
}
