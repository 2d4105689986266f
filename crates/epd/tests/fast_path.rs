//! `normalize` reads blocks of lines (one UTF-8 check per block), copies
//! plainly fine position fields instead of writing them again, and reuses
//! the buffers of each record for the next. These tests hold it to the
//! plain way of doing the same, line by line through the public pieces
//! ([`Reader`] with validation, then [`Record::write_to`]): same bytes out,
//! same diagnostics with the same line numbers, same summary — on every
//! suite and malformed file, on hostile lines, and on random edits of
//! records (which turn plain fields into irregular ones and back).

use proptest::prelude::*;
use rookery_epd::verbs::{normalize, normalize_latin1, normalize_with_jobs};
use rookery_epd::{Diagnostic, LineKind, Mode, Reader, Severity, Summary};
use rookery_io::latin1::Latin1Read;

type Run = (Vec<u8>, Vec<Diagnostic>, Summary);

/// Normalizes line by line: the reference.
fn by_lines(data: impl std::io::BufRead, mode: Mode) -> Run {
    let mut reader = Reader::new(data, mode).validating(true);
    let (mut out, mut diags, mut sum) = (Vec::new(), Vec::new(), Summary::default());
    while let Some(line) = reader.next_line().unwrap() {
        sum.lines += 1;
        for d in line.diagnostics {
            match d.severity {
                Severity::Error => sum.errors += 1,
                Severity::Warning => sum.warnings += 1,
            }
            diags.push(d.clone());
        }
        match &line.kind {
            LineKind::Record(rec) => {
                sum.records += 1;
                let mut text = String::new();
                rec.write_to(&mut text);
                out.extend_from_slice(text.as_bytes());
            }
            LineKind::Unparsed => {
                sum.unparsed += 1;
                out.extend_from_slice(line.text);
            }
            LineKind::Blank | LineKind::Comment => {
                sum.passed += 1;
                out.extend_from_slice(line.text);
            }
        }
        out.push(b'\n');
    }
    (out, diags, sum)
}

fn by_blocks(data: &[u8], mode: Mode, jobs: usize) -> Run {
    let (mut out, mut diags) = (Vec::new(), Vec::new());
    let sum = if jobs == 1 {
        normalize(data, &mut out, mode, |d| diags.push(d.clone()))
    } else {
        normalize_with_jobs(data, &mut out, mode, jobs, |d| diags.push(d.clone()))
    }
    .unwrap();
    (out, diags, sum)
}

fn assert_same(data: &[u8], what: &str) {
    for mode in [Mode::Lenient, Mode::Strict] {
        let want = by_lines(data, mode);
        for jobs in [1, 2] {
            let got = by_blocks(data, mode, jobs);
            assert_eq!(got.2, want.2, "{what}: {mode:?}, {jobs} jobs: summary");
            assert!(
                got.1 == want.1,
                "{what}: {mode:?}, {jobs} jobs: diagnostics differ"
            );
            if got.0 != want.0 {
                let g = String::from_utf8_lossy(&got.0);
                let w = String::from_utf8_lossy(&want.0);
                let (g, w) = g
                    .lines()
                    .zip(w.lines())
                    .find(|(g, w)| g != w)
                    .unwrap_or(("(length)", "(length)"));
                panic!("{what}: {mode:?}, {jobs} jobs: output differs:\n got {g}\nwant {w}");
            }
        }
    }
}

fn suite_lines() -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    for data in
        rookery_testkit::read_files_with_extension(&["tests/data/suites", "tests/data"], "epd")
    {
        lines.extend(data.split(|&b| b == b'\n').map(<[u8]>::to_vec));
    }
    lines
}

/// Lines every reader meets sooner or later.
const HOSTILE: &[&[u8]] = &[
    b"1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1/8 w - - bm f5;",
    b"1kr5/3n4/q3p2p/p2n2p9/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5;",
    b"8/8/8/8/8/8/8/8 w - - id \"no kings\";",
    b"4k3/8/8/8/8/8/8/4K3 w KQkq - id \"false castling\";",
    b"4k3/8/8/8/8/8/8/4K3 w - e3 id \"false ep\";",
    b"4k3/8/8/8/4Pp2/8/8/4K3 b - e3 id \"ep\";",
    b"4k3/8/8/8/8/8/8/4K3  w  -  - id  \"double\";  bm Kd1;",
    b"4k3/8/8/8/8/8/8/4K3 w - - id \"no semicolon\"",
    b"4k3/8/8/8/8/8/8/4K3 w - - id \"caf\xe9\";",
    b"4k3/8/8/8/8/8/8/4K3 w - - 3 40 id \"clocks\";",
    b"4k3/8/8/8/8/8/8/4K3 w - - bm e1d1; id \"uci\";",
    b"4k3/8/8/8/8/8/8/4K3 w - - id \"esc \\\" \\\\ back\\slash\"; c1 unquoted;",
    b"4k3/8/8/8/8/8/8/4K3 w - - zz 1 2 \"x\"; noop a \"b\"; acn 123; ce -5; dm 3;",
    b"4k3/8/8/8/8/8/8/4K3 w - - pv Kd1 Kd8 Kc1; pm Ke2; bm Kf1 Kd1 Kd2;",
    b"r3k2r/8/8/8/8/8/8/R3K2R w QKkq - bm O-O;",
    b"r3k2r/8/8/8/8/8/8/R3K2R w HAha - bm O-O-O;",
    b"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - bm O-O; id \"castling\";",
    b"r3k2r/8/8/8/8/8/8/R3K2R b Kq - bm O-O;",
    b"4k3/8/8/8/8/8/8/26K3 w - - id \"two digits\";",
    b"4k3/8/8/8/8/8/8/4K3 W - - id \"upper case side\";",
    b"\t4k3/8/8/8/8/8/8/4K3 w - - bm Kd1;\t",
    b"4k3/8/8/8/8/8/8/4K3 w - - id \"\";c0 \"glued\";id \"x\"",
    b"# a comment",
    b"",
    b"   ",
    b"garbage",
    b"4k3/8/8/8/8/8/8/4K3 w - - id \"crlf\";\r",
    b"4k3/8/8/8/8/8/8/4K3 w - - \xff\xfe;",
];

#[test]
fn blocks_read_as_lines_do() {
    let lines = suite_lines();
    let mut data = lines.join(&b'\n');
    assert_same(&data, "suites");
    let hostile = HOSTILE.join(&b'\n');
    assert_same(&hostile, "hostile lines, no final newline");
    // Spanning blocks: the suites, then hostile lines, until several
    // blocks; CRLF line endings throughout for the second half.
    let mut many = Vec::new();
    while many.len() < 3 * rookery_epd::verbs::BATCH_BYTES {
        many.extend_from_slice(&data);
        many.push(b'\n');
        many.extend_from_slice(&hostile);
        many.push(b'\n');
    }
    data = many.clone();
    data.extend(
        many.split(|&b| b == b'\n')
            .flat_map(|l| l.iter().copied().chain(*b"\r\n")),
    );
    assert_same(&data, "many blocks");
}

/// Lines that are not UTF-8, read as ISO 8859-1: as the reader over
/// [`Latin1Read`] reads them, the warning naming the same line and
/// coming in the same place among the reports (after those of the lines
/// before it), on one thread and on two.
#[test]
fn latin1_lines_read_as_the_fallback_reads_them() {
    use std::cell::RefCell;
    let mut data = Vec::new();
    while data.len() < 2 * rookery_epd::verbs::BATCH_BYTES {
        for l in HOSTILE {
            data.extend_from_slice(l);
            data.push(b'\n');
        }
    }
    for mode in [Mode::Lenient, Mode::Strict] {
        // Reports and the warning, in the order they came.
        let want_log = RefCell::new(Vec::new());
        let fallback = std::io::BufReader::new(Latin1Read::new(&data[..], |n| {
            want_log.borrow_mut().push(format!("latin-1 from {n}"))
        }));
        let mut reader = Reader::new(fallback, mode).validating(true);
        let mut want_out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            for d in line.diagnostics {
                want_log.borrow_mut().push(d.to_string());
            }
            match &line.kind {
                LineKind::Record(rec) => want_out.extend_from_slice(rec.to_string().as_bytes()),
                _ => want_out.extend_from_slice(line.text),
            }
            want_out.push(b'\n');
        }
        drop(reader);
        let want_log = want_log.into_inner();
        assert!(want_log.iter().any(|l| l.starts_with("latin-1")));
        for jobs in [1, 2] {
            let log = RefCell::new(Vec::new());
            let mut out = Vec::new();
            let mut warn = |n| log.borrow_mut().push(format!("latin-1 from {n}"));
            normalize_latin1(&data[..], &mut out, mode, jobs, Some(&mut warn), |d| {
                log.borrow_mut().push(d.to_string())
            })
            .unwrap();
            assert!(
                log.into_inner() == want_log,
                "{mode:?}, {jobs} jobs: reports"
            );
            assert!(out == want_out, "{mode:?}, {jobs} jobs: output");
        }
    }
}

/// Edits that keep a record readable more often than not.
fn edit(line: &[u8], kind: u8, at: usize) -> Vec<u8> {
    let mut l = line.to_vec();
    if l.is_empty() {
        return l;
    }
    let at = at % l.len();
    match kind % 8 {
        // A doubled or removed space.
        0 => l.insert(at, b' '),
        1 => {
            if let Some(k) = l[at..].iter().position(|&b| b == b' ') {
                l.remove(at + k);
            }
        }
        // A digit of the board split in two, or one changed.
        2 => {
            if let Some(k) = l.iter().position(|&b| (b'2'..=b'8').contains(&b)) {
                let d = l[k] - b'0';
                l.splice(k..=k, [b'1', b'0' + d - 1]);
            }
        }
        3 => {
            if let Some(k) = l[at..].iter().position(u8::is_ascii_digit) {
                l[at + k] = b'1' + (l[at + k] % 8);
            }
        }
        // Castling rights and en passant.
        4 => {
            if let Some(k) = l.windows(3).position(|w| w == b" - ") {
                let rights: &[u8] = [&b"KQkq"[..], b"Kq", b"qK", b"k", b"HAha"][at % 5];
                l.splice(k + 1..k + 2, rights.iter().copied());
            }
        }
        5 => {
            if let Some(k) = l.windows(3).rposition(|w| w == b" - ") {
                let sq: &[u8] = [&b"e3"[..], b"d6", b"a3"][at % 3];
                l.splice(k + 1..k + 2, sq.iter().copied());
            }
        }
        // A byte changed, or the side to move.
        6 => l[at] = b"pPkK /;\"\\x1"[at % 11],
        _ => {
            if let Some(k) = l.windows(3).position(|w| w == b" w " || w == b" b ") {
                l[k + 1] = if l[k + 1] == b'w' { b'b' } else { b'w' };
            }
        }
    }
    l
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random edits of suite records, a block of them at a time: the
    /// records that stay plain, those that turn irregular and those that
    /// no longer read all come out as line by line.
    #[test]
    fn edited_records_read_as_lines_do(
        picks in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<usize>(), any::<bool>()), 1..200)
    ) {
        let lines = suite_lines();
        let mut data = Vec::new();
        for (i, kind, at, keep) in picks {
            let line = &lines[i % lines.len()];
            if keep {
                data.extend_from_slice(line);
            } else {
                data.extend(edit(line, kind, at));
            }
            data.push(b'\n');
        }
        for mode in [Mode::Lenient, Mode::Strict] {
            let want = by_lines(&data[..], mode);
            let got = by_blocks(&data, mode, 1);
            prop_assert_eq!(got.2, want.2);
            prop_assert!(got.1 == want.1, "diagnostics differ");
            prop_assert_eq!(String::from_utf8_lossy(&got.0), String::from_utf8_lossy(&want.0));
        }
    }
}

/// Gives at most `n` bytes per read, as a pipe may.
struct Trickle<'a> {
    data: &'a [u8],
    n: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.n.min(buf.len()).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

/// Blocks are cut at line endings whatever the reads give: short reads
/// through a small buffer, and a line longer than a whole block.
#[test]
fn blocks_are_cut_at_line_endings_whatever_the_reads_give() {
    let mut data = suite_lines()[..400].join(&b'\n');
    data.extend_from_slice(b"\n4k3/8/8/8/8/8/8/4K3 w - - c0 \"");
    data.extend(std::iter::repeat_n(
        b'x',
        rookery_epd::verbs::BATCH_BYTES + 99,
    ));
    data.extend_from_slice(b"\"; id \"long\";\n");
    data.extend_from_slice(&suite_lines()[..50].join(&b'\n'));
    let want = by_lines(&data[..], Mode::Lenient);
    for (n, cap) in [(1, 1), (7, 3), (4096, 64), (100_000, 1 << 16)] {
        for jobs in [1, 2] {
            let input = std::io::BufReader::with_capacity(cap, Trickle { data: &data, n });
            let (mut out, mut diags) = (Vec::new(), Vec::new());
            let sum = normalize_with_jobs(input, &mut out, Mode::Lenient, jobs, |d| {
                diags.push(d.clone())
            })
            .unwrap();
            assert_eq!(sum, want.2, "reads of {n}, {jobs} jobs");
            assert!(diags == want.1, "reads of {n}, {jobs} jobs: diagnostics");
            assert!(out == want.0, "reads of {n}, {jobs} jobs: output");
        }
    }
}
