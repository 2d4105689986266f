//! End-to-end tests of `rookery epd` (normalize, purge, validate, convert).

use crate::common::{rookery, s, text};
use rookery_testkit::cmd::assert_contains_all;

const MIXED: &str = "# a comment\r\n\
\r\n\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\tid start;  bm e2e4 d2d4\r\n\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Nf4; id \"bad\";\r\n\
4k3/8/8/8/8/8/8/4K3 b - - c0 \"kings\"; Zprivate 1 \"two\"; ce 0;\r\n";

#[test]
fn normalize_writes_canonical_records_and_copies_what_it_cannot_read() {
    let out = rookery(&["epd", "normalize", "-"], MIXED.as_bytes());
    out.assert_code(1);
    assert_eq!(
        text(&out.stdout),
        "# a comment\n\
\n\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm d4 e4; fmvn 1; hmvc 0; id \"start\";\n\
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm Nf4; id \"bad\";\n\
4k3/8/8/8/8/8/8/4K3 b - - Zprivate 1 \"two\"; c0 \"kings\"; ce 0;\n"
    );
    let err = text(&out.stderr);
    assert_contains_all(
        &err,
        &[
            "<stdin>:4:57: error: bm: illegal move Nf4: no piece of that kind can move there",
            "<stdin>:3:54: warning: FEN clocks",
            "<stdin>:3:57: warning: irregular whitespace",
            "<stdin>:3:81: warning: operation bm is not ended by ';'",
            "<stdin>:3:61: warning: id: operand \"start\" is not a quoted string",
            "<stdin>:3:72: warning: bm: move e2e4 is not SAN (read as e4)",
        ],
    );
    // Normalized output normalizes to itself, and quietly.
    let again = rookery(&["epd", "normalize", "-"], &out.stdout);
    assert_eq!(text(&again.stdout), text(&out.stdout));
}

#[test]
fn normalize_strict_and_quiet() {
    let line = b"4k3/8/8/8/8/8/8/4K3 w - - id x;\n";
    let lenient = rookery(&["epd", "normalize", "--quiet", "-"], line);
    lenient.assert_code(0);
    assert_eq!(
        text(&lenient.stdout),
        "4k3/8/8/8/8/8/8/4K3 w - - id \"x\";\n"
    );
    assert!(lenient.stderr.is_empty());
    let strict = rookery(&["epd", "normalize", "--strict", "-"], line);
    strict.assert_code(1);
    assert_eq!(text(&strict.stdout), text(line), "copied unchanged");
    assert_eq!(
        text(&strict.stderr),
        "<stdin>:1:30: error: id: operand \"x\" is not a quoted string\n"
    );
}

#[test]
fn purge_removes_only_the_named_operations() {
    let input = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 acn 12; id  \"x\";acs 3; c0 \"keep\"\n\
not a record at all\n\
4k3/8/8/8/8/8/8/4K3 w - -\n";
    let out = rookery(
        &["epd", "purge", "--op", "acn", "--op", "acs", "-"],
        input.as_bytes(),
    );
    out.assert_code(1);
    assert_eq!(
        text(&out.stdout),
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 id  \"x\"; c0 \"keep\"\n\
not a record at all\n\
4k3/8/8/8/8/8/8/4K3 w - -\n"
    );
    assert!(
        text(&out.stderr).starts_with("<stdin>:2:2: error: bad position"),
        "{}",
        text(&out.stderr)
    );
    let usage = rookery(&["epd", "purge", "-"], b"");
    usage.assert_code(2);
    let bad = rookery(&["epd", "purge", "--op", "1x", "-"], b"");
    assert_eq!(bad.status.code(), Some(2), "a bad --op is a usage error");
}

#[test]
fn validate_reports_every_malformed_case_exactly() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../epd/tests/data/malformed-lenient.epd"
    );
    let data = std::fs::read(path).unwrap();
    // Expected: every `# expect:` line, attached to the record line after it.
    let mut expected = String::new();
    let mut pending = Vec::new();
    let mut records = 0;
    for (i, line) in data.split(|&c| c == b'\n').enumerate() {
        let line = text(line);
        if let Some(e) = line.strip_prefix("# expect: ") {
            pending.push(e.to_owned());
        } else if !line.starts_with('#') && !line.is_empty() {
            for e in pending.drain(..) {
                expected.push_str(&format!("{path}:{}:{e}\n", i + 1));
            }
            records += 1;
        }
    }
    let out = rookery(&["epd", "validate", path], b"");
    out.assert_code(1);
    let stdout = text(&out.stdout);
    let (diags, summary) = stdout.split_at(stdout.trim_end().rfind('\n').unwrap() + 1);
    assert_eq!(diags, expected);
    assert!(
        summary.contains(&format!("{} records", records - 37)),
        "{summary}"
    );
    // JSON output: one object per problem plus the summary.
    let json = rookery(&["epd", "validate", "--json", path], b"");
    let n = text(&json.stdout).lines().count();
    assert_eq!(n, expected.lines().count() + 1);
    let first: serde_json::Value =
        serde_json::from_str(text(&json.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["severity"], "error");
    assert_eq!(first["column"], 57);
}

#[test]
fn validate_clean_suite_exits_zero() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../epd/tests/data/suites/bk.epd"
    );
    let out = rookery(&["epd", "validate", "--strict", path], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).ends_with("bk.epd: 24 records, 0 unreadable, 0 errors, 0 warnings\n"));
}

#[test]
fn convert_between_fen_and_epd() {
    let input = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 7 33 bm O-O; id \"castle\";\n";
    let fen = rookery(&["epd", "convert", "--to", "fen", "-"], input.as_bytes());
    fen.assert_code(0);
    assert!(
        fen.stderr.is_empty(),
        "clocks are expected input: {}",
        text(&fen.stderr)
    );
    assert_eq!(
        text(&fen.stdout),
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 7 33 bm O-O; id \"castle\";\n"
    );
    let epd = rookery(&["epd", "convert", "--to", "epd", "-"], &fen.stdout);
    assert_eq!(
        text(&epd.stdout),
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - bm O-O; fmvn 33; hmvc 7; id \"castle\";\n"
    );
    let back = rookery(
        &["epd", "convert", "--to", "fen", "--fen-only", "-"],
        &epd.stdout,
    );
    assert_eq!(
        text(&back.stdout),
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 7 33\n"
    );
}

#[test]
fn normalize_on_two_threads_writes_and_reports_as_one() {
    // Enough lines for several batches, with errors and warnings far in.
    let mut input = String::new();
    while input.len() < 1 << 20 {
        input.push_str(MIXED);
    }
    // From a file: a child writing this much would fill its pipes before
    // it had read all of stdin.
    let dir = rookery_testkit::TempDir::new("epd-jobs");
    let path = dir.write("in.epd", &input);
    let p = s(&path);
    let one = rookery(&["epd", "normalize", p], b"");
    let two = rookery(&["epd", "normalize", "--jobs", "2", p], b"");
    assert_eq!(two.status.code(), one.status.code());
    assert!(two.stdout == one.stdout, "output differs");
    assert_eq!(text(&two.stderr), text(&one.stderr));
    let last_line = input.lines().count();
    assert!(
        text(&one.stderr).contains(&format!("in.epd:{}:", last_line - 1)),
        "reports come from the whole input"
    );
}

/// `-o` naming something other than a regular file (here a FIFO; `/dev/null`
/// is the everyday case) is written to directly: a partial file renamed over
/// it would replace the device or pipe with a regular file.
#[cfg(unix)]
#[test]
fn output_to_a_fifo_writes_into_it_and_leaves_it_a_fifo() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let dir = rookery_testkit::TempDir::new("epd-fifo");
    let input = dir.write("in.epd", MIXED);
    let fifo = dir.join("out.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo failed");
    let (tx, rx) = std::sync::mpsc::channel();
    let reader_path = fifo.clone();
    std::thread::spawn(move || {
        let mut got = Vec::new();
        let r = std::fs::File::open(&reader_path).and_then(|mut f| f.read_to_end(&mut got));
        let _ = tx.send(r.map(|_| got));
    });
    let out = rookery(&["epd", "normalize", s(&input), "-o", s(&fifo)], b"");
    out.assert_code(1);
    let kind = std::fs::metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced by a regular file");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A guard against a hang only (the child has exited by now).
    let got = rx
        .recv_timeout(std::time::Duration::from_secs(120))
        .expect("the FIFO was never opened for writing")
        .unwrap();
    let stdout = rookery(&["epd", "normalize", s(&input)], b"");
    assert_eq!(text(&got), text(&stdout.stdout));
}
