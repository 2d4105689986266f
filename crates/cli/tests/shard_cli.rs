//! `--shard K/N` and `rookery merge`: the parts of a sharded run merge to
//! the bytes one run writes (and the summary it prints), for N in
//! {1, 2, 3, 7}; a shard killed mid-run and resumed merges the same; a
//! merge refuses parts that are missing, unfinished, of another N, copied
//! under another shard's name, or of another input, naming the file and
//! writing nothing.

use crate::common::shard::{run_shards, run_whole, NS};
use crate::common::{cmd, complete_lines, kill_once_written, rookery, s, text};
use rookery_testkit::TempDir;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// An EPD input with records, a comment, a blank line and a line that is
/// no record (reported with its line number).
fn epd_input(t: &TempDir, records: usize) -> PathBuf {
    let suite = std::fs::read_to_string(data("../epd/tests/data/suites/wac-classic.epd")).unwrap();
    let mut text = String::from("# sharded\n\n");
    for (i, line) in suite.lines().take(records).enumerate() {
        text.push_str(line);
        text.push('\n');
        if i == records / 2 {
            text.push_str("not an EPD record\n");
        }
    }
    t.write("in.epd", text)
}

/// A PGN input of several games (one with an illegal move, one in
/// Latin-1), fewer than 7 of some: shards with no game.
fn pgn_input(t: &TempDir) -> PathBuf {
    let mut bytes = std::fs::read(data("tests/data/annotate/twic0920-first3.pgn")).unwrap();
    bytes.extend(std::fs::read(data("../pgn/tests/data/pgn_test2.pgn")).unwrap());
    bytes.extend(std::fs::read(data("tests/data/annotate/pe-checkmate.pgn")).unwrap());
    t.write("in.pgn", bytes)
}

/// Runs `args` (with `{out}` for the output) whole, then as N shards
/// merged, for every N of [`NS`]: the same bytes, the same exit status,
/// and (`summary`: for a verb whose stderr is all its closing report) the
/// merge prints what the whole run printed.
fn sharded_equals_whole(t: &TempDir, args: &[&str], name: &str, summary: bool) {
    let (w, code, want) = run_whole(args, &t.join(format!("whole-{name}")));
    let werr = text(&w.stderr);
    for n in NS {
        let out = t.join(format!("n{n}-{name}"));
        run_shards(args, &out, n, code);
        // 1/1 too: a job array of one task is merged as any other.
        assert!(
            !out.exists(),
            "a shard writes its part, not {}",
            out.display()
        );
        let m = rookery(&["merge", s(&out)], b"");
        assert_eq!(m.code(), Some(code), "merge of {n}: {}", m.describe());
        if summary {
            assert_eq!(text(&m.stderr), werr, "summary of {n} shards");
        }
        let got = std::fs::read(&out).unwrap();
        assert!(got == want, "{name}: {n} shards merged differ from one run");
    }
}

#[test]
fn epd_analyse_sharded_merges_to_one_run() {
    let t = TempDir::new("shard-analyse");
    let input = epd_input(&t, 24);
    sharded_equals_whole(
        &t,
        &[
            "epd",
            "analyse",
            s(&input),
            "-o",
            "{out}",
            "--nodes",
            "400",
            "--acn",
        ],
        "analysed.epd",
        true,
    );
}

#[test]
fn epd_normalize_sharded_merges_to_one_run_compressed_too() {
    let t = TempDir::new("shard-normalize");
    let input = epd_input(&t, 300);
    for name in ["n.epd", "n.epd.gz", "n.epd.zst"] {
        let normalize = ["epd", "normalize", s(&input), "-o", "{out}"];
        sharded_equals_whole(&t, &normalize, name, false);
    }
}

#[test]
fn pgn_to_epd_sharded_merges_to_one_run() {
    let t = TempDir::new("shard-to-epd");
    let input = t.write(
        "latin1.pgn",
        std::fs::read(data("../pgn/tests/data/pe-odds-latin1.pgn")).unwrap(),
    );
    sharded_equals_whole(
        &t,
        &[
            "pgn",
            "to-epd",
            "--ptp",
            "--comments",
            s(&input),
            "-o",
            "{out}",
        ],
        "p.epd",
        false,
    );
    // Game numbers (in the ids) and errors of a file with a bad game.
    let mixed = pgn_input(&t);
    sharded_equals_whole(
        &t,
        &["pgn", "to-epd", s(&mixed), "-o", "{out}"],
        "m.epd",
        false,
    );
}

#[test]
fn pgn_annotate_sharded_merges_to_one_run() {
    let t = TempDir::new("shard-annotate");
    let input = pgn_input(&t);
    sharded_equals_whole(
        &t,
        &[
            "pgn",
            "annotate",
            s(&input),
            "-o",
            "{out}",
            "--nodes",
            "150",
        ],
        "a.pgn",
        true,
    );
}

#[test]
fn a_shard_killed_mid_run_resumes_to_the_same_merge() {
    let t = TempDir::new("shard-kill");
    let input = epd_input(&t, 40);
    let args = |out: &Path, k: u32| -> Vec<String> {
        [
            "epd",
            "analyse",
            s(&input),
            "-o",
            s(out),
            "--nodes",
            "6000",
            "--shard",
        ]
        .iter()
        .map(|a| a.to_string())
        .chain([format!("{k}/2")])
        .collect()
    };
    let whole = t.join("whole.epd");
    rookery(
        &[
            "epd",
            "analyse",
            s(&input),
            "-o",
            s(&whole),
            "--nodes",
            "6000",
        ],
        b"",
    );
    let out = t.join("out.epd");
    rookery(&args(&out, 1), b"").assert_code(0);
    let partial = t.join(".out.epd.shard-2-of-2.rookery-partial");
    kill_once_written(&args(&out, 2), &partial, 3, Duration::from_secs(120));
    let kept = complete_lines(&partial);
    // The killed shard is not merged: named, nothing written.
    let m = rookery(&["merge", s(&out)], b"");
    m.assert_code(2);
    m.assert_stderr_contains("out.epd.shard-2-of-2 (");
    assert!(!out.exists());
    let st = rookery(&["merge", "--status", s(&out)], b"");
    st.assert_code(0);
    st.assert_stdout_contains("1 of 2 shards done");
    // Resumed: what the killed run wrote is kept, the rest analysed.
    let r = rookery(&[args(&out, 2), vec!["--resume".into()]].concat(), b"");
    r.assert_code(1); // the bad line is in shard 2's part
                      // The records written before the kill (all but the bad line, copied).
    let err = text(&r.stderr);
    let reused: usize = err
        .split(" kept from earlier output")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        reused + 1 >= kept && reused >= 2,
        "{reused} of {kept}: {err}"
    );
    rookery(&["merge", s(&out)], b"").assert_code(1);
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&whole).unwrap());
}

/// Three finished shards of `epd normalize` of `input` into `out`.
fn three_parts(input: &Path, out: &Path) {
    for k in 1..=3 {
        let r = rookery(
            &[
                "epd",
                "normalize",
                s(input),
                "-o",
                s(out),
                "--shard",
                &format!("{k}/3"),
            ],
            b"",
        )
        .code();
        assert!(r.unwrap() <= 1);
    }
}

/// A merge of `out` refused (status 2), naming `file`, writing nothing.
fn refused(out: &Path, file: &str, why: &str) {
    let m = rookery(&["merge", s(out)], b"");
    m.assert_code(2);
    m.assert_stderr_contains(file);
    m.assert_stderr_contains(why);
    assert!(!out.exists(), "a refused merge wrote {}", out.display());
}

#[test]
fn hostile_parts_are_named_and_nothing_is_written() {
    let t = TempDir::new("shard-hostile");
    let input = epd_input(&t, 30);
    let other = t.write("other.epd", "8/8/8/8/8/8/8/K6k w - - id \"x\";\n");
    let out = t.join("out.epd");
    three_parts(&input, &out);
    let part = |k: u32, n: u32| t.join(format!("out.epd.shard-{k}-of-{n}"));
    let json = |p: PathBuf| PathBuf::from(format!("{}.json", p.display()));

    // A shard run with another N.
    rookery(
        &[
            "epd",
            "normalize",
            s(&input),
            "-o",
            s(&out),
            "--shard",
            "2/4",
        ],
        b"",
    );
    refused(&out, "out.epd.shard-2-of-4", "different shard counts");
    std::fs::remove_file(part(2, 4)).unwrap();
    std::fs::remove_file(json(part(2, 4))).unwrap();

    // A missing shard.
    std::fs::remove_file(part(3, 3)).unwrap();
    std::fs::remove_file(json(part(3, 3))).unwrap();
    refused(&out, "out.epd.shard-3-of-3", "missing");

    // Two parts claiming shard 2: shard 2 copied under shard 3's name.
    std::fs::copy(part(2, 3), part(3, 3)).unwrap();
    std::fs::copy(json(part(2, 3)), json(part(3, 3))).unwrap();
    refused(&out, "out.epd.shard-3-of-3", "manifest says shard 2/3");

    // A part of another input.
    three_parts(&input, &out);
    rookery(
        &[
            "epd",
            "normalize",
            s(&other),
            "-o",
            s(&out),
            "--shard",
            "2/3",
        ],
        b"",
    )
    .assert_code(0);
    refused(&out, "out.epd.shard-2-of-3", "another input");

    // A part without its manifest, and one changed after its shard ended.
    three_parts(&input, &out);
    std::fs::write(part(1, 3), "changed\n").unwrap();
    refused(
        &out,
        "out.epd.shard-1-of-3",
        "changed after its shard finished",
    );
    std::fs::remove_file(json(part(1, 3))).unwrap();
    refused(&out, "out.epd.shard-1-of-3", "has no manifest");

    // Nothing at all, and a shard of stdin or to stdout.
    refused(
        &t.join("none.epd"),
        "none.epd.shard-K-of-N",
        "no shard parts",
    );
    rookery(
        &["epd", "normalize", "-", "-o", s(&out), "--shard", "1/2"],
        b"",
    )
    .assert_code(2)
    .assert_stderr_contains("--shard needs an input file");
    rookery(&["epd", "normalize", s(&input), "--shard", "1/2"], b"")
        .assert_code(2)
        .assert_stderr_contains("--shard needs an output file");
}

#[test]
fn shard_auto_takes_a_slurm_array_task_and_logs_progress() {
    let t = TempDir::new("shard-auto");
    let input = epd_input(&t, 30);
    let out = t.join("out.epd");
    let in_array = |id: u32, shard: Option<&str>| {
        let mut args = vec!["epd", "normalize", s(&input), "-o", s(&out)];
        if let Some(choice) = shard {
            args.extend(["--shard", choice]);
        }
        cmd(args)
            .env("SLURM_ARRAY_TASK_ID", id.to_string())
            .env("SLURM_ARRAY_TASK_MIN", "4")
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .env_remove("JOB_COMPLETION_INDEX")
            .run()
    };
    // `--shard auto`, or no flag at all (with a note saying so).
    for (id, shard) in [(4, Some("auto")), (5, None), (6, None)] {
        let r = in_array(id, shard);
        assert!(r.code().unwrap() <= 1, "{}", r.describe());
        assert!(t.join(format!("out.epd.shard-{}-of-3", id - 3)).exists());
        if shard.is_none() {
            r.assert_stderr_contains(&format!(
                "doing shard {}/3 of the job, as the Slurm job array (SLURM_ARRAY_TASK_ID={id}) says"
                , id - 3
            ));
        }
    }
    assert!(!out.exists());
    rookery(&["merge", s(&out)], b"").assert_code(1);
    let whole = rookery(&["epd", "normalize", s(&input)], b"");
    assert!(std::fs::read(&out).unwrap() == whole.stdout);
    // `--shard none` in an array task: the whole job.
    std::fs::remove_file(&out).unwrap();
    let r = in_array(5, Some("none"));
    assert!(r.code().unwrap() <= 1, "{}", r.describe());
    assert!(std::fs::read(&out).unwrap() == whole.stdout);
    // Not under a scheduler: auto is a usage error.
    cmd([
        "epd",
        "normalize",
        s(&input),
        "-o",
        s(&out),
        "--shard",
        "auto",
    ])
    .env_remove("SLURM_ARRAY_TASK_ID")
    .env_remove("JOB_COMPLETION_INDEX")
    .run()
    .assert_code(2)
    .assert_stderr_contains("no scheduler's shard");
    // Off a terminal, a shard logs its progress every N lines.
    let a = rookery(
        &[
            "epd",
            "analyse",
            s(&input),
            "-o",
            s(&t.join("a.epd")),
            "--nodes",
            "100",
            "--shard",
            "2/2",
            "--log-every",
            "5",
        ],
        b"",
    );
    a.assert_stderr_contains("shard 2/2: 5/17 lines (29.4%)");
    a.assert_stderr_contains("lines/s, ETA ");
}

#[test]
fn epd_mate_in_passes_and_target_sharded_merge_to_one_run() {
    let t = TempDir::new("shard-mate");
    let suite = std::fs::read_to_string(data("../epd/tests/data/suites/mate-in-n-bm.epd")).unwrap();
    let lines: Vec<&str> = suite.lines().take(12).collect();
    let input = t.write(
        "mates.epd",
        format!("{}\nno record here\n", lines.join("\n")),
    );
    sharded_equals_whole(
        &t,
        &[
            "epd",
            "mate",
            "--moves",
            "1",
            "--up-to",
            "2",
            s(&input),
            "-o",
            "{out}",
            "--nodes",
            "3000",
        ],
        "mates.epd",
        true,
    );
    sharded_equals_whole(
        &t,
        &[
            "epd",
            "target",
            s(&input),
            "-o",
            "{out}",
            "--nodes",
            "300",
            "--pv",
        ],
        "targets.epd",
        true,
    );
}
