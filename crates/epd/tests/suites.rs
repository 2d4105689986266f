//! Every suite in tests/data/suites parses with the diagnostics we expect,
//! in both modes; normalization keeps every line, is idempotent, keeps the
//! meaning of each record and yields strict-clean EPD.

use std::collections::BTreeMap;

use rookery_epd::verbs::{normalize, validate};
use rookery_epd::{Diagnostic, LineKind, Mode, Reader, Record};

const DIR: &str = "tests/data/suites";

/// The variant name of a problem, for counting.
fn kind(d: &Diagnostic) -> String {
    let dbg = format!("{:?}", d.problem);
    let end = dbg.find(['(', ' ', '{']).unwrap_or(dbg.len());
    format!("{}:{}", d.severity, &dbg[..end])
}

/// What validating a suite file must give in one mode: (records, unparsed
/// lines, (severity:Problem, count) of every diagnostic kind).
type Expect = (u64, u64, &'static [(&'static str, u64)]);

const NONE: &[(&str, u64)] = &[];

/// Every suite file, with what it gives in lenient mode, then in strict mode.
#[rustfmt::skip]
const SUITES: &[(&str, Expect, Expect)] = &[
    // `id` before `c0`: out of ASCII order (a warning even in strict mode).
    ("STS1-STS15_LAN_v3.epd", (1500, 0, NONE), (1500, 0, &[("warning:OpcodeOrder", 1500)])),
    ("arasan2024.epd", (200, 0, NONE), (200, 0, &[("warning:OpcodeOrder", 200)])),
    ("bk.epd", (24, 0, NONE), (24, 0, NONE)),
    ("bt2630.epd", (30, 0, NONE), (30, 0, NONE)),
    // Six-field FEN on every line; `id "CCR02";bm` with no space;
    // CCR03's `am Ne5` is ambiguous (two knights reach e5): that line
    // is copied through; CCR13 writes the capture `Nxe4` as `Ne4`.
    (
        "ccr-one-hour.epd",
        (24, 1, &[("error:BadMove", 1), ("warning:FenClocks", 25),
                  ("warning:NotSan", 1), ("warning:Whitespace", 1)]),
        (0, 25, &[("error:BadMove", 1), ("error:FenClocks", 25),
                  ("error:NotSan", 1), ("error:Whitespace", 1)]),
    ),
    ("ecm98.epd", (769, 0, NONE), (769, 0, NONE)),
    // Two records with a double space.
    ("eet.epd", (100, 0, &[("warning:Whitespace", 2)]), (98, 2, &[("error:Whitespace", 2)])),
    ("kaufman.epd", (25, 0, NONE), (25, 0, NONE)),
    ("lct2.epd", (35, 0, NONE), (35, 0, &[("warning:OpcodeOrder", 35)])),
    // 23 lower-case promotions (f8q+), one double space.
    (
        "mate-in-n-bm.epd",
        (108, 0, &[("warning:NotSan", 23), ("warning:Whitespace", 1)]),
        (92, 16, &[("error:NotSan", 23), ("error:Whitespace", 1)]),
    ),
    ("mate_test_suite.epd", (20, 0, NONE), (20, 0, NONE)),
    // Chest-style `bm #N` on every record, kept verbatim (lenient).
    (
        "mates2000.epd",
        (2000, 0, &[("warning:ChestMate", 2000)]),
        (0, 2000, &[("error:ChestMate", 2000)]),
    ),
    // Nolot.6 appears twice; one of them has no c0.
    ("nolot.epd", (12, 0, NONE), (12, 0, &[("warning:OpcodeOrder", 11)])),
    (
        "nullmove-zugzwang.epd",
        (5, 0, &[("warning:FenClocks", 5), ("warning:Whitespace", 1)]),
        (0, 5, &[("error:FenClocks", 5), ("error:Whitespace", 1)]),
    ),
    ("silent-but-deadly.epd", (134, 0, NONE), (134, 0, NONE)),
    ("wac-classic.epd", (300, 0, NONE), (300, 0, NONE)),
    ("wac.epd", (300, 0, NONE), (300, 0, NONE)),
];

/// Validates every file of [`SUITES`] in `mode` against the expectation
/// `pick` takes from its row.
fn run(mode: Mode, pick: fn(&(&str, Expect, Expect)) -> Expect) {
    let mut seen = 0;
    for row in SUITES {
        let (file, (records, unparsed, expect_kinds)) = (row.0, pick(row));
        let data = std::fs::read(format!("{DIR}/{file}")).unwrap();
        let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
        let sum = validate(data.as_slice(), mode, |d| {
            *kinds.entry(kind(d)).or_default() += 1
        })
        .unwrap();
        assert_eq!(
            (sum.records, sum.unparsed),
            (records, unparsed),
            "{file} {mode:?}"
        );
        let want: BTreeMap<String, u64> = expect_kinds
            .iter()
            .map(|(k, n)| ((*k).to_owned(), *n))
            .collect();
        assert_eq!(kinds, want, "{file} {mode:?}");
        seen += 1;
    }
    let files = rookery_testkit::files_with_extension(DIR, "epd").len();
    assert_eq!(seen, files, "every suite file has an expectation");
}

#[test]
fn lenient() {
    run(Mode::Lenient, |row| row.1);
}

#[test]
fn strict() {
    run(Mode::Strict, |row| row.2);
}

fn normalized(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    normalize(data, &mut out, Mode::Lenient, |_| {}).unwrap();
    out
}

fn records(data: &[u8], mode: Mode) -> Vec<Option<Record>> {
    let mut reader = Reader::new(data, mode);
    let mut out = Vec::new();
    while let Some(line) = reader.next_line().unwrap() {
        out.push(match line.kind {
            LineKind::Record(mut r) => {
                r.sort_operations();
                Some(r)
            }
            _ => None,
        });
    }
    out
}

fn same_meaning(a: &Record, b: &Record) -> bool {
    let sorted = |r: &Record| -> Vec<rookery_epd::Operation> {
        r.operations()
            .map(|op| match op {
                rookery_epd::Operation::Bm(ms) | rookery_epd::Operation::Am(ms) => {
                    let mut ms = ms.clone();
                    ms.sort_by_key(|m| r.san(*m));
                    if matches!(op, rookery_epd::Operation::Bm(_)) {
                        rookery_epd::Operation::Bm(ms)
                    } else {
                        rookery_epd::Operation::Am(ms)
                    }
                }
                other => other.clone(),
            })
            .collect()
    };
    a.position() == b.position() && sorted(a) == sorted(b)
}

#[test]
fn normalize_keeps_lines_and_meaning_and_is_idempotent() {
    for path in rookery_testkit::files_with_extension(DIR, "epd") {
        let name = path.display().to_string();
        let data = std::fs::read(&path).unwrap();
        let once = normalized(&data);
        let twice = normalized(&once);
        assert_eq!(
            String::from_utf8_lossy(&once),
            String::from_utf8_lossy(&twice),
            "{name}"
        );
        let lines_in = data
            .split(|&c| c == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        let lines_out = once
            .split(|&c| c == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        assert_eq!(lines_in, lines_out, "{name}: every line is kept");
        // Same records, same meaning.
        let before = records(&data, Mode::Lenient);
        let after = records(&once, Mode::Lenient);
        assert_eq!(before.len(), after.len(), "{name}");
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            match (b, a) {
                (Some(b), Some(a)) => assert!(same_meaning(b, a), "{name}:{}", i + 1),
                (None, None) => {}
                _ => panic!("{name}:{}: readable in one and not the other", i + 1),
            }
        }
        // Normalized output is strict EPD, except what lenient mode keeps
        // verbatim (Chest-style `bm #N`) and lines copied through.
        let mut bad = 0;
        validate(once.as_slice(), Mode::Strict, |d| {
            let chest = matches!(d.problem, rookery_epd::Problem::ChestMate { .. });
            if !chest {
                bad += 1;
            }
        })
        .unwrap();
        let copied = before
            .iter()
            .zip(data.split(|&c| c == b'\n'))
            .filter(|(r, l)| r.is_none() && !l.is_empty() && !l.starts_with(b"#"));
        let copied_errors: usize = copied.count();
        assert!(
            bad <= copied_errors * 4,
            "{name}: {bad} strict problems in normalized output"
        );
        if copied_errors == 0 {
            assert_eq!(bad, 0, "{name}");
        }
    }
}
