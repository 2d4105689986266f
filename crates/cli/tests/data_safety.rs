//! Nothing lost, nothing invented: outputs are replaced only when a run
//! finishes (a killed run leaves the previous file), an output that is the
//! input is refused, `--resume` keeps only what really is the analysis of
//! the input, Latin-1 text survives, and the analysis verbs never write
//! what the engine did not say.

use std::path::Path;
use std::time::Duration;

use crate::common::{complete_lines, kill_once_written, rookery, rookery_in, s, text};
use rookery_epd::Record;
use rookery_testkit::cmd::{argv, assert_contains_all};
use rookery_testkit::TempDir;

fn records(text: &str) -> Vec<Record> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.parse().unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

const MATE1: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"m1\";";
const MATE2: &str = "k7/8/2K5/8/8/8/8/7R w - - bm Kb6; id \"m2\";";
const QUIET: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"start\";";

fn suite_text() -> String {
    format!("{MATE1}\n# a comment\n{MATE2}\n{QUIET}\n")
}

// ---------------------------------------------------------------- item 1

#[test]
fn an_output_that_is_the_input_is_refused_and_the_input_kept() {
    let t = TempDir::new("same-file");
    let epd = t.write("b.epd", suite_text());
    let pgn = t.write("g.pgn", "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 *\n");
    let cases: Vec<Vec<&str>> = vec![
        vec!["epd", "normalize", s(&epd), "-o", s(&epd)],
        vec!["epd", "purge", "--op", "id", s(&epd), "-o", s(&epd)],
        vec!["epd", "convert", "--to", "fen", s(&epd), "-o", s(&epd)],
        vec!["epd", "analyse", s(&epd), "--depth", "1", "-o", s(&epd)],
        vec!["pgn", "normalize", s(&pgn), "-o", s(&pgn)],
    ];
    for args in &cases {
        let before_epd = std::fs::read(&epd).unwrap();
        let before_pgn = std::fs::read(&pgn).unwrap();
        let o = rookery(args, b"");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        o.assert_stderr_contains("--in-place");
        assert_eq!(std::fs::read(&epd).unwrap(), before_epd, "{args:?}");
        assert_eq!(std::fs::read(&pgn).unwrap(), before_pgn, "{args:?}");
    }
    // The same file by another name: a path with `.`, and a hard link.
    let dotted = t.join("./b.epd");
    let o = rookery(&["epd", "normalize", s(&epd), "-o", s(&dotted)], b"");
    o.assert_code(2);
    let link = t.join("link.epd");
    std::fs::hard_link(&epd, &link).unwrap();
    let o = rookery(&["epd", "normalize", s(&epd), "-o", s(&link)], b"");
    o.assert_code(2);
    assert_eq!(std::fs::read_to_string(&epd).unwrap(), suite_text());
    // With --in-place the file is replaced by its normalized form.
    let o = rookery(
        &["epd", "normalize", s(&epd), "-o", s(&epd), "--in-place"],
        b"",
    );
    o.assert_code(0);
    let after = std::fs::read_to_string(&epd).unwrap();
    assert_eq!(records(&after).len(), 3, "{after}");
}

/// An output written at the end of a run (a report page, a CSV, results,
/// a match's PGN, journal or log) that is an input, or the same file as
/// another output, is refused before any work: before, `report b.epd
/// --html b.epd` replaced the suite with the page, and `match --pgnout
/// g.pgn --journal g.pgn` wrote both into one file.
#[test]
fn outputs_that_are_inputs_or_each_other_are_refused_before_any_work() {
    let t = TempDir::new("outputs");
    let epd = t.write("b.epd", suite_text());
    let pgn = t.write("g.pgn", "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 *\n");
    let (e, g) = (s(&epd), s(&pgn));
    let book = format!("file={g}");
    let engines = [
        "--engine",
        "cmd=builtin",
        "--engine",
        "cmd=builtin",
        "--each",
        "nodes=100",
    ];
    fn matched<'a>(engines: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
        [&["match"][..], engines, more].concat()
    }
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["report", e, "--html", e], "is also the input"),
        (vec!["report", e, "--csv", "./b.epd"], "is also the input"),
        (
            vec!["report", e, "--html", "o.x", "--csv", "o.x"],
            "are the same file",
        ),
        (
            vec!["suite", e, "--depth", "1", "--html", e],
            "is also the input",
        ),
        (
            vec![
                "suite",
                e,
                "--depth",
                "1",
                "--results",
                "o.x",
                "--html",
                "o.x",
            ],
            "are the same file",
        ),
        (
            vec!["pgn", "annotate", g, "-o", "o.x", "--html", g],
            "is also the input",
        ),
        (
            vec!["pgn", "annotate", g, "-o", "o.x", "--html", "./o.x"],
            "are the same file",
        ),
        (
            matched(&engines, &["--pgnout", "o.x", "--journal", "o.x"]),
            "are the same file",
        ),
        (
            matched(&engines, &["--pgnout", "o.x", "--epdout", "o.x"]),
            "are the same file",
        ),
        (
            matched(
                &engines,
                &["--pgnout", g, "--openings", &book, "format=pgn"],
            ),
            "is also the input",
        ),
    ];
    for (args, says) in &cases {
        let o = rookery_in(t.path(), args, b"");
        o.assert_code(2);
        let err = text(&o.stderr);
        assert!(
            err.contains(says) && err.contains("refused"),
            "{args:?}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(&epd).unwrap(),
            suite_text(),
            "{args:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&pgn).unwrap(),
            "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 *\n",
            "{args:?}"
        );
        assert!(!t.join("o.x").exists(), "{args:?}");
    }
}

/// A write that fails (a full disk: `/dev/full`) is an error naming the
/// output, never a run that says it succeeded.
#[test]
fn a_failed_write_is_an_error_naming_the_output() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let t = TempDir::new("full");
    let epd = t.write("b.epd", suite_text());
    let pgn = t.write("g.pgn", "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 *\n");
    for args in [
        vec!["epd", "normalize", s(&epd), "-o", "/dev/full"],
        vec!["pgn", "normalize", s(&pgn), "-o", "/dev/full"],
        vec!["pgn", "to-epd", s(&pgn), "-o", "/dev/full"],
    ] {
        let o = rookery(&args, b"");
        o.assert_code(1);
        let err = text(&o.stderr);
        assert!(err.contains("writing /dev/full: "), "{args:?}: {err}");
    }
}

#[test]
fn an_engine_that_cannot_start_leaves_the_previous_output() {
    let t = TempDir::new("no-engine");
    let input = t.write("in.epd", suite_text());
    let prev = t.write("prev.epd", "previous results, precious\n");
    let o = rookery(
        &argv(
            "epd analyse {input} --engine /no/such/engine -o {prev}",
            &[("input", s(&input)), ("prev", s(&prev))],
        ),
        b"",
    );
    o.assert_code(1);
    let err = text(&o.stderr);
    assert_eq!(err.matches("cannot start engine").count(), 1, "{err}");
    assert_eq!(
        std::fs::read_to_string(&prev).unwrap(),
        "previous results, precious\n"
    );
}

#[test]
fn a_killed_run_leaves_the_previous_output_and_resume_uses_its_work() {
    let t = TempDir::new("killed");
    // Ten records; an engine that answers slowly, so the run can be killed
    // mid-way (after the first records are written, before the last).
    let mut input = String::new();
    for i in 0..10 {
        input.push_str(&format!("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - id \"r{i}\";\n"));
    }
    let input = t.write("in.epd", &input);
    let engine = t.script(
        "slow-engine",
        "while read line; do\n  case \"$line\" in\n    uci) echo 'id name slow'; echo uciok;;\n    \
isready) echo readyok;;\n    go*) sleep 0.3; echo 'info depth 1 score mate 1 nodes 10 pv d1d8'; echo 'bestmove d1d8';;\n    \
quit) exit 0;;\n  esac\ndone\n",
    );
    let out = t.write("out.epd", "the previous output\n");
    let run = argv(
        "epd target {input} --engine {engine} --jobs 1 --movetime 1000 -o {out}",
        &[
            ("input", s(&input)),
            ("engine", s(&engine)),
            ("out", s(&out)),
        ],
    );
    let partial = t.join(".out.epd.rookery-partial");
    kill_once_written(&run, &partial, 2, Duration::from_secs(60));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "the previous output\n",
        "a killed run must not touch the output"
    );
    let done_before = complete_lines(&partial);
    assert!((2..10).contains(&done_before), "{done_before}");
    // Resume: what the killed run wrote is kept, the rest analysed.
    let o = rookery(&[run, vec!["--resume".to_string()]].concat(), b"");
    o.assert_code(0);
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!("{done_before} kept from earlier output")),
        "{err}"
    );
    let recs = records(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(recs.len(), 10);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.id(), Some(format!("r{i}").as_str()));
        assert!(r.pm().is_some(), "record {i} has no pm");
    }
    assert!(
        !partial.exists(),
        "the partial file is gone after a finished run"
    );
}

// ---------------------------------------------------------------- item 2

#[test]
fn resume_keeps_only_the_analysis_of_the_matching_input_records() {
    let t = TempDir::new("resume-wrong");
    let input = t.write("in.epd", suite_text());
    // An output holding other records (another suite), and one record of
    // this input copied through unanalysed (an earlier failure).
    let other = "4k3/8/8/8/8/8/8/4K2R w K - id \"other1\"; pm Rh8+;\n\
4k3/8/8/8/8/8/8/R3K3 w Q - id \"other2\"; pm Ra8+;\n";
    let out = t.write("out.epd", format!("{other}# a comment\n{MATE2}\n{QUIET}\n"));
    let resume = argv(
        "epd target {input} --depth 3 --jobs 1 -o {out} --resume",
        &[("input", s(&input)), ("out", s(&out))],
    );
    let o = rookery(&resume, b"");
    o.assert_code(0)
        .assert_stderr_contains("0 kept from earlier output");
    let got = records(&std::fs::read_to_string(&out).unwrap());
    let want = records(&suite_text());
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.id(), w.id());
        assert_eq!(g.position(), w.position());
        assert!(g.pm().is_some(), "{g}");
    }
    // A second resume keeps everything.
    let o = rookery(&resume, b"");
    o.assert_stderr_contains("3 kept from earlier output");
}

#[test]
fn mate_in_passes_resumes_instead_of_overwriting() {
    let t = TempDir::new("mate-resume");
    let input = t.write("in.epd", format!("{MATE1}\n{QUIET}\n"));
    // The earlier output already solved the first record (a marker acn
    // shows it is kept, not recomputed).
    let out = t.write(
        "out.epd",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - acn 424242; bm Rd8#; dm 1; id \"m1\"; pm Rd8#;\n",
    );
    let o = rookery(
        &argv(
            "epd mate --moves 1 --up-to 2 {input} --depth 4 --jobs 1 -o {out} \
         --resume",
            &[("input", s(&input)), ("out", s(&out))],
        ),
        b"",
    );
    o.assert_code(0);
    let got = std::fs::read_to_string(&out).unwrap();
    assert!(got.contains("acn 424242"), "{got}");
    assert_eq!(records(&got).len(), 2);
}

// ---------------------------------------------------------------- item 4

fn latin1_pgn() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../pgn/tests/data/pe-odds-latin1.pgn"
    );
    std::fs::read(path).unwrap()
}

#[test]
fn latin1_pgn_is_decoded_not_mangled() {
    let t = TempDir::new("latin1-pgn");
    let data = latin1_pgn();
    assert!(std::str::from_utf8(&data).is_err(), "the file is Latin-1");
    let input = t.write("odds.pgn", &data);
    let o = rookery(&["pgn", "normalize", "--lenient", s(&input)], b"");
    let out = text(&o.stdout);
    // The file mixes lines: a few are UTF-8 (holding replacement characters
    // of their own), the rest Latin-1. No replacement character is added.
    let fffd = "\u{FFFD}".as_bytes();
    let in_input = data.windows(3).filter(|w| *w == fffd).count();
    assert_eq!(out.matches('\u{FFFD}').count(), in_input, "{out}");
    // Every non-ASCII byte of the Latin-1 lines is its character in the output.
    let expected: std::collections::BTreeSet<char> = data
        .split(|&b| b == b'\n')
        .filter(|l| std::str::from_utf8(l).is_err())
        .flat_map(|l| l.iter().filter(|&&b| b >= 0x80).map(|&b| char::from(b)))
        .collect();
    assert!(!expected.is_empty());
    for c in &expected {
        assert!(out.contains(*c), "{c:?} lost: {out}");
    }
    let err = text(&o.stderr);
    assert!(err.contains("odds.pgn") && err.contains("Latin-1"), "{err}");
    // validate says so too.
    let v = rookery(&["pgn", "validate", s(&input)], b"");
    v.assert_stderr_contains("Latin-1");
}

/// With several threads, a file's pieces are read and decoded by each
/// thread itself: every verb writes what one thread writes, and the warning
/// names the same file and line.
#[test]
fn latin1_pgn_reads_the_same_on_several_threads() {
    let t = TempDir::new("latin1-pgn-jobs");
    let input = t.write("odds.pgn", latin1_pgn());
    for verb in [
        &["normalize", "--lenient"][..],
        &["validate"],
        &["stats"],
        &["to-epd"],
    ] {
        let run = |more: &[&str]| rookery(&[&["pgn"], verb, more, &[s(&input)]].concat(), b"");
        let one = run(&["--jobs", "1"]);
        assert!(text(&one.stderr).contains("odds.pgn:"), "{verb:?}");
        for (jobs, chunk) in [("2", "1048576"), ("3", "700")] {
            let par = run(&["--jobs", jobs, "--chunk-bytes", chunk]);
            assert_eq!(
                par.status.code(),
                one.status.code(),
                "{verb:?} --jobs {jobs}"
            );
            assert!(par.stdout == one.stdout, "{verb:?} --jobs {jobs} differs");
            assert_eq!(
                text(&par.stderr),
                text(&one.stderr),
                "{verb:?} --jobs {jobs}"
            );
        }
    }
}

#[test]
fn latin1_epd_lines_copied_unchanged_keep_their_characters() {
    let t = TempDir::new("latin1-epd");
    let mut data = Vec::new();
    data.extend_from_slice(b"# caf\xe9 cr\xe8me\n");
    data.extend_from_slice(b"not a record: gar\xe7on\n");
    data.extend_from_slice(MATE1.as_bytes());
    data.push(b'\n');
    let input = t.write("in.epd", &data);
    let o = rookery(
        &["epd", "target", s(&input), "--depth", "2", "--jobs", "1"],
        b"",
    );
    o.assert_code(1).assert_stderr_contains("Latin-1");
    let out = String::from_utf8(o.stdout).expect("UTF-8 output");
    assert!(
        out.starts_with("# café crème\nnot a record: garçon\n"),
        "{out}"
    );
}

// ---------------------------------------------------------------- item 5

#[test]
fn an_unclosed_comment_does_not_swallow_the_games_after_it() {
    let t = TempDir::new("unclosed");
    let mut pgn = String::from("[Event \"broken\"]\n[Result \"*\"]\n\n1. e4 {never closed\n\n");
    for i in 1..=6 {
        pgn.push_str(&format!(
            "[Event \"g{i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
        ));
    }
    let input = t.write("in.pgn", &pgn);
    let v = rookery(&["pgn", "validate", s(&input)], b"");
    assert_eq!(v.status.code(), Some(1), "{}", text(&v.stdout));
    let out = text(&v.stdout);
    assert_contains_all(&out, &["in.pgn:4:7: error", "7 games, 1 with errors"]);
    let n = rookery(&["pgn", "normalize", "--lenient", s(&input)], b"");
    assert_eq!(text(&n.stdout).matches("[Event \"g").count(), 6);
}

// ---------------------------------------------------------------- item 6

#[test]
fn options_reach_the_builtin_engine() {
    let t = TempDir::new("options");
    let input = t.write("in.epd", format!("{MATE1}\n"));
    for opt in [
        "Move Overhead=0",
        "Hash=8",
        "Threads=1",
        "UCI_LimitStrength=true",
        "UCI_Elo=1500",
    ] {
        let o = rookery(
            &argv(
                "epd target {input} --depth 2 --jobs 1 --option {opt}",
                &[("input", s(&input)), ("opt", opt)],
            ),
            b"",
        );
        assert_eq!(o.status.code(), Some(0), "{opt}: {}", text(&o.stderr));
    }
    let o = rookery(&["epd", "target", s(&input), "--option", "Bogus=1"], b"");
    o.assert_code(2).assert_stderr_contains("Bogus");
    let o = rookery(&["epd", "target", s(&input), "--option", "Hash=lots"], b"");
    o.assert_code(2);
}

// ---------------------------------------------------------------- item 7

#[test]
fn mate_writes_the_length_of_the_mate_found_with_a_mating_pv() {
    let t = TempDir::new("mate-len");
    let input = t.write("in.epd", format!("{MATE1}\n"));
    let o = rookery(
        &argv(
            "epd mate --moves 2 {input} --depth 6 --jobs 1 --pv",
            &[("input", s(&input))],
        ),
        b"",
    );
    o.assert_code(0);
    let rec = &records(&text(&o.stdout))[0];
    assert_eq!(rec.dm(), Some(1), "{rec}");
    let pv = rec.pv().expect("pv");
    assert!(
        rookery_analysis::is_mate_line(rec.position(), pv, 1),
        "{rec}"
    );
}

// ---------------------------------------------------------------- item 8

#[test]
fn bestmove_0000_with_legal_moves_is_an_engine_error() {
    let t = TempDir::new("nullmove");
    let input = t.write("in.epd", format!("{MATE1}\n"));
    let engine = t.script(
        "null-engine",
        "while read line; do\n  case \"$line\" in\n    uci) echo 'id name null'; echo uciok;;\n    \
isready) echo readyok;;\n    go*) echo 'bestmove 0000';;\n    quit) exit 0;;\n  esac\ndone\n",
    );
    let o = rookery(
        &argv(
            "epd analyse {input} --engine {engine} --jobs 1 --movetime 50",
            &[("input", s(&input)), ("engine", s(&engine))],
        ),
        b"",
    );
    o.assert_code(1).assert_stderr_contains("bestmove 0000");
    assert_eq!(text(&o.stdout).trim_end(), MATE1, "copied unchanged");
    let o = rookery_in(
        t.path(),
        &argv(
            "suite {input} --engine {engine} --jobs 1 --movetime 50 --no-html \
             --json",
            &[("input", s(&input)), ("engine", s(&engine))],
        ),
        b"",
    );
    o.assert_code(1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summaries"][0]["errors"], 1, "{v}");
    assert_eq!(v["summaries"][0]["missed"], 0, "{v}");
}

// ---------------------------------------------------------------- item 9

#[test]
fn suite_scores_mate_notation_and_lists_unscorable_records() {
    let t = TempDir::new("chest");
    let input = t.write(
        "mates.epd",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm #1; id \"m1\";\n\
6Qk/PP1PP1np/1N1BN2P/7R/4B3/2Q5/P3KP2/6R1 b - - bm #-1; id \"mated\";\n\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"nothing\";\n",
    );
    let o = rookery_in(
        t.path(),
        &argv(
            "suite {input} --depth 4 --jobs 1 --no-html",
            &[("input", s(&input))],
        ),
        b"",
    );
    o.assert_code(0);
    let out = text(&o.stdout);
    assert!(out.contains("2/2"), "both scorable records solved: {out}");
    assert!(!out.contains("missed"), "{out}");
    assert!(
        out.contains("not scored") && out.contains("nothing"),
        "{out}"
    );
}

// ---------------------------------------------------------------- item 10

#[test]
fn meaningless_limits_are_refused_and_nothing_is_made_up() {
    let t = TempDir::new("limits");
    let input = t.write("in.epd", format!("{MATE2}\n"));
    for flag in ["--depth", "--nodes", "--movetime"] {
        let o = rookery(&["epd", "analyse", s(&input), flag, "0"], b"");
        assert_eq!(o.status.code(), Some(2), "{flag} 0: {}", text(&o.stderr));
    }
    let o = rookery(
        &argv(
            "epd analyse {input} --nodes 1 --jobs 1 --acn",
            &[("input", s(&input))],
        ),
        b"",
    );
    let out = text(&o.stdout);
    let rec = &records(&out)[0];
    if let Some(ce) = rec.ce() {
        // If a score was written, it is the engine's and acn counts real nodes.
        let acn = match rec.get("acn") {
            Some(rookery_epd::Operation::Acn(n)) => *n,
            _ => panic!("no acn: {out}"),
        };
        assert!(acn >= 1, "{out}");
        assert_ne!(ce, 0, "a mate in 2 scored 0: {out}");
    } else {
        o.assert_code(1);
        assert_eq!(out.trim_end(), MATE2, "copied unchanged");
        o.assert_stderr_contains("reported a score");
    }
}

// ---------------------------------------------------------------- item 11

#[test]
fn every_verb_replaces_stale_analysis_and_validate_accepts_the_output() {
    let t = TempDir::new("stale");
    let stale = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - acd 3; acn 5; acs 9; bm Rd8#; ce -50; id \"s\"; pm h3; pv h3 h6;\n\
k7/8/2K5/8/8/8/8/7R w - - acn 7; ce 12; id \"s2\"; pm Rh2; pv Rh2;\n";
    let input = t.write("in.epd", stale);
    let runs = [
        "epd analyse {input} --depth 4 --jobs 1",
        "epd analyse {input} --depth 4 --jobs 1 --pm --acn",
        "epd target {input} --depth 4 --jobs 1",
        "epd target {input} --depth 4 --jobs 1 --pv",
        "epd mate --moves 2 {input} --depth 6 --jobs 1",
    ]
    .map(|line| argv(line, &[("input", s(&input))]));
    for args in &runs {
        let o = rookery(args, b"");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        let out = t.write("out.epd", &o.stdout);
        let v = rookery(&["epd", "validate", s(&out)], b"");
        assert_eq!(
            v.status.code(),
            Some(0),
            "{args:?}:\n{}\n{}",
            text(&o.stdout),
            text(&v.stdout)
        );
        let text_out = text(&o.stdout);
        assert!(!text_out.contains("pm h3"), "{args:?}: {text_out}");
        assert!(!text_out.contains("acs 9"), "{args:?}: {text_out}");
    }
}

// ---------------------------------------------------------------- item 12

#[test]
fn an_engine_failing_its_handshake_is_reported_per_record_and_retried() {
    let t = TempDir::new("handshake");
    let input = t.write("in.epd", format!("{MATE1}\n{MATE2}\n{QUIET}\n{MATE1}\n"));
    let dead = t.script("dead-engine", "read line; echo 'dying' >&2; exit 5\n");
    let o = rookery(
        &argv(
            "epd target {input} --engine {dead} --jobs 1 --movetime 50",
            &[("input", s(&input)), ("dead", s(&dead))],
        ),
        b"",
    );
    o.assert_code(1);
    // Every record copied through, each reported.
    assert_eq!(records(&text(&o.stdout)).len(), 4);
    let err = text(&o.stderr);
    for line in 1..=4 {
        assert!(err.contains(&format!("in.epd:{line}: error")), "{err}");
    }
    assert!(err.contains("failed to start 3 times in a row"), "{err}");
    // An engine that fails its first handshake only is started again.
    let marker = t.join("started-once");
    let flaky = t.script(
        "flaky-engine",
        &format!(
            "if [ ! -e '{m}' ]; then touch '{m}'; exit 3; fi\n\
while read line; do\n  case \"$line\" in\n    uci) echo 'id name flaky'; echo uciok;;\n    \
isready) echo readyok;;\n    go*) echo 'info depth 1 score cp 10 pv d1d8'; echo 'bestmove d1d8';;\n    \
quit) exit 0;;\n  esac\ndone\n",
            m = s(&marker)
        ),
    );
    let one = t.write("one.epd", format!("{MATE1}\n"));
    let o = rookery(
        &argv(
            "epd target {one} --engine {flaky} --jobs 1 --movetime 50",
            &[("one", s(&one)), ("flaky", s(&flaky))],
        ),
        b"",
    );
    o.assert_code(0);
    assert!(records(&text(&o.stdout))[0].pm().is_some());
}

// ------------------------------------------------- issue 43, items 7 and 8

/// Two games, the second with an illegal move.
const WITH_A_BAD_GAME: &str =
    "[Event \"good\"]\n[Date \"2001.01.01\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
[Event \"bad\"]\n[Date \"2000.01.01\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n";

/// Every verb that writes `-o`, given only an input it cannot read (missing,
/// a directory, compressed in a format rookery does not read), leaves the
/// previous output as it was and says so: before, it was emptied (a book of
/// 0 entries). An input that cannot be read beside one that can is
/// reported, and the output made of the other.
#[test]
fn an_input_that_cannot_be_read_leaves_the_previous_output() {
    let t = TempDir::new("unread-input");
    let clean = t.write(
        "clean.pgn",
        "[Event \"a\"]\n[WhiteElo \"2600\"]\n[BlackElo \"2600\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n",
    );
    let missing = t.join("missing.pgn");
    let dir = t.join("a-directory");
    std::fs::create_dir(&dir).unwrap();
    // xz's magic bytes and a little more: a format rookery does not read.
    let xz = t.write(
        "games.pgn.xz",
        b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46\x02\x00\x21\x01",
    );
    let verbs: [&[&str]; 8] = [
        &["pgn", "filter", "--elo", "2500"],
        &["pgn", "cat"],
        &["pgn", "dedupe"],
        &["pgn", "eco"],
        &["pgn", "sort", "--by", "date"],
        &["pgn", "normalize"],
        &["pgn", "to-epd"],
        &["book", "build"],
    ];
    let out = t.join("out");
    let precious = b"the previous output, precious\n";
    for verb in verbs {
        for input in [&missing, &dir, &xz] {
            std::fs::write(&out, precious).unwrap();
            let mut args = verb.to_vec();
            args.extend([s(input), "-o", s(&out)]);
            let run = rookery(&args, b"");
            run.assert_code(1);
            run.assert_stderr_contains(&format!(
                "{} is left as it was: none of the inputs could be read",
                s(&out)
            ));
            assert!(
                std::fs::read(&out).unwrap() == precious,
                "{args:?}: {}",
                run.describe()
            );
            assert_eq!(
                t.names().iter().filter(|n| n.contains("partial")).count(),
                0,
                "{args:?}: a partial file left behind"
            );
        }
        // One input read: the output is made of it.
        std::fs::write(&out, precious).unwrap();
        let mut args = verb.to_vec();
        args.extend([s(&missing), s(&clean), "-o", s(&out)]);
        let run = rookery(&args, b"");
        run.assert_code(1);
        assert!(
            std::fs::read(&out).unwrap() != precious,
            "{args:?}: {}",
            run.describe()
        );
    }
}

/// An input that is a pipe (`<(zcat f.pgn.gz)`, `/dev/stdin`) is read
/// whole: checking that it can be read must not take its first bytes.
#[test]
fn a_pipe_given_by_name_is_read_from_its_first_byte() {
    if !Path::new("/dev/stdin").exists() {
        return;
    }
    let t = TempDir::new("pipe-input");
    let book = t.join("book.bin");
    let run = rookery(&["pgn", "cat", "/dev/stdin"], WITH_A_BAD_GAME.as_bytes());
    run.assert_code(1);
    assert!(
        text(&run.stdout).starts_with("[Event \"good\"]\n"),
        "{}",
        run.describe()
    );
    let run = rookery(
        &[
            "book",
            "build",
            "--min-games",
            "1",
            "/dev/stdin",
            "-o",
            s(&book),
        ],
        WITH_A_BAD_GAME.as_bytes(),
    );
    run.assert_stderr_contains("2 games (1 used, 1 with errors");
}

// ---------------------------------------------------------- issue 43, item 12

/// `-q` silences every warning, the Latin-1 one included (it was printed
/// before "0 warnings").
#[test]
fn quiet_silences_the_latin1_warning() {
    let t = TempDir::new("latin1-quiet");
    let input = t.write("odds.pgn", latin1_pgn());
    let out = t.join("out.pgn");
    for args in [
        vec!["pgn", "validate", s(&input)],
        vec!["pgn", "stats", s(&input)],
        vec!["pgn", "cat", s(&input), "-o", s(&out)],
    ] {
        rookery(&args, b"").assert_stderr_contains("Latin-1");
        let mut args = args;
        args.push("-q");
        let quiet = rookery(&args, b"");
        assert!(
            !text(&quiet.stderr).contains("Latin-1"),
            "{args:?}: {}",
            quiet.describe()
        );
    }
}

/// A write error on stdout names it: `writing standard output: No space
/// left on device`, not the bare error.
#[test]
fn a_failed_write_to_stdout_names_standard_output() {
    let Ok(full) = std::fs::File::create("/dev/full") else {
        return;
    };
    let t = TempDir::new("stdout-full");
    let pgn = t.write("g.pgn", "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 *\n");
    for args in [
        vec!["pgn", "stats", s(&pgn)],
        vec!["pgn", "cat", s(&pgn)],
        vec!["pgn", "to-epd", s(&pgn)],
    ] {
        let o = std::process::Command::new(crate::common::ROOKERY)
            .args(&args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = text(&o.stderr);
        assert!(
            err.contains("rookery: error: writing standard output: No space left on device"),
            "{args:?}: {err}"
        );
    }
}

// ---------------------------------------------------------- issue 43, item 8

/// A file rewritten in place is the only copy of its games: the verbs that
/// copy games keep one with an error as it is (reported, exit status 1), as
/// `--keep-bad` does; those that cannot copy it leave the file as it was.
/// Before, `pgn dedupe g.pgn -o g.pgn --in-place` (and sort, cat, filter,
/// normalize --lenient) reported the bad game and left it out of the file.
#[test]
fn in_place_never_loses_a_game_with_an_error() {
    let t = TempDir::new("in-place-bad");
    let g = t.join("g.pgn");
    let copying: [&[&str]; 5] = [
        &["pgn", "dedupe"],
        &["pgn", "sort", "--by", "date"],
        &["pgn", "cat"],
        &["pgn", "filter", "--invert", "--elo", "3000"],
        &["pgn", "eco"],
    ];
    for verb in copying {
        std::fs::write(&g, WITH_A_BAD_GAME).unwrap();
        let mut args = verb.to_vec();
        args.extend([s(&g), "-o", s(&g), "--in-place"]);
        let run = rookery(&args, b"");
        run.assert_code(1).assert_stderr_contains("Ke3");
        let after = std::fs::read_to_string(&g).unwrap();
        assert!(
            after.contains("[Event \"good\"]") && after.contains("1. e4 e5 2. Ke3 *"),
            "{args:?}: {after}\n{}",
            run.describe()
        );
    }
    for verb in [
        &["pgn", "normalize"][..],
        &["pgn", "normalize", "--lenient"],
        &["pgn", "to-epd"],
    ] {
        std::fs::write(&g, WITH_A_BAD_GAME).unwrap();
        let mut args = verb.to_vec();
        args.extend([s(&g), "-o", s(&g), "--in-place"]);
        let run = rookery(&args, b"");
        run.assert_code(1)
            .assert_stderr_contains(&format!("{} is left as it was", s(&g)));
        assert_eq!(
            std::fs::read_to_string(&g).unwrap(),
            WITH_A_BAD_GAME,
            "{args:?}"
        );
    }
    // Without errors, in place rewrites the file.
    std::fs::write(&g, "[Event \"a\"]\n[Result \"*\"]\n\n1.e4 e5 *\n").unwrap();
    rookery(&["pgn", "normalize", s(&g), "-o", s(&g), "--in-place"], b"").assert_code(0);
    assert!(std::fs::read_to_string(&g).unwrap().contains("1. e4 e5 *"));
}

/// A run that stops at an error (`pgn normalize` is strict unless
/// `--lenient`) is a failed run: the previous output stays (it was
/// replaced by the games before the error).
#[test]
fn a_run_stopped_by_an_error_leaves_the_previous_output() {
    let t = TempDir::new("strict-stop");
    let input = t.write("in.pgn", WITH_A_BAD_GAME);
    let out = t.write("out.pgn", "the previous output\n");
    for verb in [&["pgn", "normalize"][..], &["pgn", "to-epd", "--strict"]] {
        let mut args = verb.to_vec();
        args.extend([s(&input), "-o", s(&out)]);
        rookery(&args, b"")
            .assert_code(1)
            .assert_stderr_contains(&format!(
                "{} is left as it was: the run stopped at the first game with an error",
                s(&out)
            ));
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "the previous output\n",
            "{args:?}"
        );
    }
}
