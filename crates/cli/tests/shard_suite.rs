//! `rookery suite --shard K/N --results R.json` and `rookery merge R.json`:
//! the shards' results join into the results file one run writes (the
//! built-in engine at fixed nodes, so the analysis is deterministic; the
//! wall-clock times in it are normalised), with the report and the error
//! lines one run prints, for N in {1, 2, 3, 7}; a merge refuses a missing
//! shard and a shard of another file, naming it and writing nothing; the
//! `--epd-out` parts merge to one run's EPD, and a shard killed mid-run
//! continues with `--resume`.

use crate::common::{kill_once_written, rookery, s, text};
use rookery_testkit::TempDir;
use std::path::{Path, PathBuf};
use std::time::Duration;

const NS: [u32; 4] = [1, 2, 3, 7];

/// 14 WAC positions, with a comment, a blank line and a line that is no
/// record (reported with its line number in the whole file, and scored
/// as an error: a missed position numbered after those before it).
fn suite_input(t: &TempDir, name: &str, records: usize) -> PathBuf {
    let wac =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../epd/tests/data/suites/wac-classic.epd");
    let wac = std::fs::read_to_string(wac).unwrap();
    let mut text = String::from("# a suite in shards\n\n");
    for (i, line) in wac.lines().take(records).enumerate() {
        text.push_str(line);
        text.push('\n');
        if i == records * 2 / 3 {
            text.push_str("not an EPD record\n");
        }
    }
    t.write(name, text)
}

/// The suite's arguments, results to `results`.
fn suite_args(input: &Path, results: &Path) -> Vec<String> {
    suite_args_at(input, results, "300")
}

/// The suite's arguments at `nodes` a position, results to `results`.
fn suite_args_at(input: &Path, results: &Path, nodes: &str) -> Vec<String> {
    [
        "suite",
        s(input),
        "--nodes",
        nodes,
        "--jobs",
        "1",
        "--no-html",
        "--results",
        s(results),
    ]
    .map(String::from)
    .to_vec()
}

/// Results JSON with the wall-clock times (`time_ms`,
/// `time_to_solution_ms`) set to 0: all else byte for byte.
fn without_times(json: &str) -> String {
    without(json, &["time_ms", "time_to_solution_ms"])
}

/// Results JSON with the values of `keys` set to 0: all else byte for
/// byte.
fn without(json: &str, keys: &[&str]) -> String {
    json.lines()
        .map(|l| {
            let key = l.trim_start();
            if keys.iter().any(|k| key.starts_with(&format!("\"{k}\": "))) {
                let (head, _) = l.split_once(": ").unwrap();
                let comma = if l.ends_with(',') { "," } else { "" };
                format!("{head}: 0{comma}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// The text report without what wall-clock time decides: the total time
/// (third column from the end of the one run's row) and the "solved
/// within t" curve; all else as printed.
fn report_without_time(report: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut curve = false;
    for l in report.lines() {
        curve = (curve || l.starts_with("solved within t")) && !l.is_empty();
        if !curve {
            lines.push(l.to_owned());
        }
    }
    assert!(lines.len() > 2 && lines[0].contains("time s"), "{report}");
    let mut row: Vec<&str> = lines[1].split_whitespace().collect();
    let at = row.len() - 3;
    row[at] = "T";
    lines[1] = row.join(" ");
    lines.join("\n")
}

#[test]
fn suite_sharded_merges_to_the_results_and_report_of_one_run() {
    let t = TempDir::new("shard-suite");
    let input = suite_input(&t, "wac14.epd", 14);
    let whole = t.join("whole.json");
    let w = rookery(&suite_args(&input, &whole), b"");
    w.assert_code(1); // the line that is no record
    let want = std::fs::read_to_string(&whole).unwrap();
    assert!(want.contains("\"suite\": \"wac14\""), "{want}");
    assert!(
        want.contains("\"index\": 15"),
        "15 positions (one an error): {want}"
    );
    let werr = text(&w.stderr);
    assert!(werr.contains("wac14.epd:13:"), "{werr}");
    for n in NS {
        let out = t.join(format!("n{n}.json"));
        for k in 1..=n {
            let args = [
                suite_args(&input, &out),
                vec!["--shard".into(), format!("{k}/{n}")],
            ]
            .concat();
            let run = rookery(&args, b"");
            assert!(
                run.code().unwrap() <= 1,
                "shard {k}/{n}: {}",
                run.describe()
            );
            assert!(
                run.stdout.is_empty(),
                "a shard prints no report: {}",
                run.describe()
            );
        }
        assert!(
            !out.exists(),
            "a shard writes its part, not {}",
            out.display()
        );
        assert!(!t.join("report.html").exists(), "a shard writes no HTML");
        let m = rookery(&["merge", s(&out)], b"");
        m.assert_code(1);
        let got = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            without_times(&got),
            without_times(&want),
            "{n} shards merged differ from one run"
        );
        assert_eq!(
            report_without_time(&text(&m.stdout)),
            report_without_time(&text(&w.stdout)),
            "report of {n} shards"
        );
        assert_eq!(text(&m.stderr), werr, "error lines of {n} shards");
    }
}

#[test]
fn suite_merge_refuses_a_missing_shard_and_a_shard_of_another_file() {
    let t = TempDir::new("shard-suite-refused");
    let input = suite_input(&t, "wac.epd", 9);
    let other = suite_input(&t, "other.epd", 10);
    let out = t.join("r.json");
    let shard = |file: &Path, k: u32| {
        let args = [
            suite_args(file, &out),
            vec!["--shard".into(), format!("{k}/3")],
        ]
        .concat();
        let run = rookery(&args, b"");
        assert!(run.code().unwrap() <= 1, "{}", run.describe());
    };
    let refused = |file: &str, why: &str| {
        let m = rookery(&["merge", s(&out)], b"");
        m.assert_code(2);
        m.assert_stderr_contains(file);
        m.assert_stderr_contains(why);
        assert!(!out.exists(), "a refused merge wrote {}", out.display());
    };
    shard(&input, 1);
    shard(&input, 3);
    refused("r.json.shard-2-of-3", "missing");
    shard(&other, 2);
    refused("r.json.shard-2-of-3", "another input: ");
    refused("other.epd (", "not of the same job");
    shard(&input, 2);
    rookery(&["merge", s(&out)], b"").assert_code(1);
    assert!(out.exists());
}

#[test]
fn suite_shard_needs_one_file_and_results() {
    let t = TempDir::new("shard-suite-usage");
    let input = suite_input(&t, "wac.epd", 3);
    let results = t.join("r.json");
    let cases: [(Vec<&str>, &str); 3] = [
        (
            vec!["suite", "--shard", "1/2", "--results", s(&results)],
            "exactly one suite FILE",
        ),
        (
            vec![
                "suite",
                s(&input),
                s(&input),
                "--shard",
                "1/2",
                "--results",
                s(&results),
            ],
            "exactly one suite FILE",
        ),
        (vec!["suite", s(&input), "--shard", "1/2"], "--results"),
    ];
    for (args, why) in cases {
        let r = rookery(&args, b"");
        r.assert_code(2);
        r.assert_stderr_contains(why);
    }
    assert!(
        std::fs::read_dir(t.path()).unwrap().count() == 1,
        "nothing written"
    );
}

/// EPD with the wall-clock opcodes (`acs` seconds, `Tsol` ms to solution)
/// left out: all else byte for byte.
fn epd_without_times(epd: &str) -> String {
    epd.lines()
        .map(|l| {
            let ops: Vec<&str> = l
                .split("; ")
                .filter(|op| !op.starts_with("acs ") && !op.starts_with("Tsol "))
                .collect();
            ops.join("; ") + "\n"
        })
        .collect()
}

#[test]
fn suite_epd_out_parts_merge_and_a_killed_shard_resumes() {
    let t = TempDir::new("shard-suite-epd");
    let input = suite_input(&t, "wac30.epd", 30);
    let nodes = "200000";
    let whole = t.join("whole.json");
    let whole_epd = t.join("whole.epd");
    let with_epd = |results: &Path, epd: &Path| -> Vec<String> {
        [
            suite_args_at(&input, results, nodes),
            vec!["--epd-out".into(), s(epd).into()],
        ]
        .concat()
    };
    rookery(&with_epd(&whole, &whole_epd), b"").assert_code(1);
    let out = t.join("r.json");
    let out_epd = t.join("r.epd");
    let shard = |k: u32| {
        [
            with_epd(&out, &out_epd),
            vec!["--shard".into(), format!("{k}/2")],
        ]
        .concat()
    };
    let first = rookery(&shard(1), b"");
    assert!(first.code().unwrap() <= 1, "{}", first.describe());
    let partial = t.join(".r.epd.shard-2-of-2.rookery-partial");
    kill_once_written(&shard(2), &partial, 3, Duration::from_secs(120));
    // The killed shard is not merged: named, nothing written.
    for o in [&out, &out_epd] {
        let m = rookery(&["merge", s(o)], b"");
        m.assert_code(2);
        m.assert_stderr_contains(".shard-2-of-2 (");
        assert!(!o.exists());
    }
    let r = rookery(&[shard(2), vec!["--resume".into()]].concat(), b"");
    r.assert_code(1); // the line that is no record is in shard 2's part
    r.assert_stderr_contains("records scored from earlier output");
    rookery(&["merge", s(&out_epd)], b"").assert_code(1);
    assert_eq!(
        epd_without_times(&std::fs::read_to_string(&out_epd).unwrap()),
        epd_without_times(&std::fs::read_to_string(&whole_epd).unwrap()),
        "merged --epd-out"
    );
    rookery(&["merge", s(&out)], b"").assert_code(1);
    // A record scored from the EPD has no depth there (as in a resumed
    // run that is not sharded): depths left out too.
    let keys = ["time_ms", "time_to_solution_ms", "depth"];
    assert_eq!(
        without(&std::fs::read_to_string(&out).unwrap(), &keys),
        without(&std::fs::read_to_string(&whole).unwrap(), &keys),
        "merged results of a resumed shard"
    );
}
