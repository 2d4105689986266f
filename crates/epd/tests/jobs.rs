//! `normalize_with_jobs` writes and reports exactly what `normalize` does on
//! one thread: same bytes, same diagnostics with the same line numbers (the
//! input spans many batches), same summary.

use rookery_epd::verbs::{normalize, normalize_with_jobs, Summary, BATCH_BYTES};
use rookery_epd::{Diagnostic, Mode};

/// Every suite and malformed file, then the lot again until the input
/// spans several batches; the last line has no line ending.
fn input() -> Vec<u8> {
    let mut one = Vec::new();
    for data in
        rookery_testkit::read_files_with_extension(&["tests/data/suites", "tests/data"], "epd")
    {
        one.extend(data);
        if one.last() != Some(&b'\n') {
            one.push(b'\n');
        }
    }
    let mut all = Vec::new();
    while all.len() < 3 * BATCH_BYTES {
        all.extend_from_slice(&one);
    }
    all.extend_from_slice(b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"last\";");
    all
}

fn normalized(data: &[u8], mode: Mode, jobs: Option<usize>) -> (Vec<u8>, Vec<Diagnostic>, Summary) {
    let mut out = Vec::new();
    let mut diags = Vec::new();
    let report = |d: &Diagnostic| diags.push(d.clone());
    let sum = match jobs {
        None => normalize(data, &mut out, mode, report),
        Some(jobs) => normalize_with_jobs(data, &mut out, mode, jobs, report),
    }
    .unwrap();
    (out, diags, sum)
}

#[test]
fn threads_normalize_as_one() {
    let data = input();
    for mode in [Mode::Lenient, Mode::Strict] {
        let want = normalized(&data, mode, None);
        assert!(want.2.records > 5_000 && want.2.errors > 0, "{:?}", want.2);
        assert!(want.1.last().is_some_and(|d| d.line > want.2.lines / 2));
        for jobs in [1, 2, 3] {
            let got = normalized(&data, mode, Some(jobs));
            assert_eq!(got.2, want.2, "{mode:?}, {jobs} jobs");
            assert!(got.1 == want.1, "{mode:?}, {jobs} jobs: diagnostics differ");
            assert!(got.0 == want.0, "{mode:?}, {jobs} jobs: output differs");
        }
    }
}

#[test]
fn empty_and_tiny_inputs() {
    for data in [&b""[..], b"\n", b"# c", b"8/8/8/8/8/8/8/K1k5 w - -\r\n\r\n"] {
        let want = normalized(data, Mode::Lenient, None);
        assert_eq!(normalized(data, Mode::Lenient, Some(2)), want);
    }
}
