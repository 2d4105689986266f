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

struct Expect {
    file: &'static str,
    records: u64,
    unparsed: u64,
    /// (severity:Problem, count)
    kinds: &'static [(&'static str, u64)],
}

fn run(mode: Mode, table: &[Expect]) {
    let mut seen = 0;
    for e in table {
        let data = std::fs::read(format!("{DIR}/{}", e.file)).unwrap();
        let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
        let sum = validate(data.as_slice(), mode, |d| {
            *kinds.entry(kind(d)).or_default() += 1
        })
        .unwrap();
        assert_eq!(
            (sum.records, sum.unparsed),
            (e.records, e.unparsed),
            "{} {mode:?}",
            e.file
        );
        let want: BTreeMap<String, u64> =
            e.kinds.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect();
        assert_eq!(kinds, want, "{} {mode:?}", e.file);
        seen += 1;
    }
    let files = std::fs::read_dir(DIR)
        .unwrap()
        .filter(|f| {
            f.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "epd")
        })
        .count();
    assert_eq!(seen, files, "every suite file has an expectation");
}

const NONE: &[(&str, u64)] = &[];

#[test]
fn lenient() {
    run(
        Mode::Lenient,
        &[
            Expect {
                file: "STS1-STS15_LAN_v3.epd",
                records: 1500,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "arasan2024.epd",
                records: 200,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "bk.epd",
                records: 24,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "bt2630.epd",
                records: 30,
                unparsed: 0,
                kinds: NONE,
            },
            // Six-field FEN on every line; `id "CCR02";bm` with no space;
            // CCR03's `am Ne5` is ambiguous (two knights reach e5): that line
            // is copied through; CCR13 writes the capture `Nxe4` as `Ne4`.
            Expect {
                file: "ccr-one-hour.epd",
                records: 24,
                unparsed: 1,
                kinds: &[
                    ("error:BadMove", 1),
                    ("warning:FenClocks", 25),
                    ("warning:NotSan", 1),
                    ("warning:Whitespace", 1),
                ],
            },
            Expect {
                file: "ecm98.epd",
                records: 769,
                unparsed: 0,
                kinds: NONE,
            },
            // Two records with a double space.
            Expect {
                file: "eet.epd",
                records: 100,
                unparsed: 0,
                kinds: &[("warning:Whitespace", 2)],
            },
            Expect {
                file: "kaufman.epd",
                records: 25,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "lct2.epd",
                records: 35,
                unparsed: 0,
                kinds: NONE,
            },
            // 23 lower-case promotions (f8q+), one double space.
            Expect {
                file: "mate-in-n-bm.epd",
                records: 108,
                unparsed: 0,
                kinds: &[("warning:NotSan", 23), ("warning:Whitespace", 1)],
            },
            Expect {
                file: "mate_test_suite.epd",
                records: 20,
                unparsed: 0,
                kinds: NONE,
            },
            // Chest-style `bm #N` on every record, kept verbatim.
            Expect {
                file: "mates2000.epd",
                records: 2000,
                unparsed: 0,
                kinds: &[("warning:ChestMate", 2000)],
            },
            Expect {
                file: "nolot.epd",
                records: 12,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "nullmove-zugzwang.epd",
                records: 5,
                unparsed: 0,
                kinds: &[("warning:FenClocks", 5), ("warning:Whitespace", 1)],
            },
            Expect {
                file: "silent-but-deadly.epd",
                records: 134,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "wac-classic.epd",
                records: 300,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "wac.epd",
                records: 300,
                unparsed: 0,
                kinds: NONE,
            },
        ],
    );
}

#[test]
fn strict() {
    run(
        Mode::Strict,
        &[
            // `id` before `c0`: out of ASCII order (a warning even in strict mode).
            Expect {
                file: "STS1-STS15_LAN_v3.epd",
                records: 1500,
                unparsed: 0,
                kinds: &[("warning:OpcodeOrder", 1500)],
            },
            Expect {
                file: "arasan2024.epd",
                records: 200,
                unparsed: 0,
                kinds: &[("warning:OpcodeOrder", 200)],
            },
            Expect {
                file: "bk.epd",
                records: 24,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "bt2630.epd",
                records: 30,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "ccr-one-hour.epd",
                records: 0,
                unparsed: 25,
                kinds: &[
                    ("error:BadMove", 1),
                    ("error:FenClocks", 25),
                    ("error:NotSan", 1),
                    ("error:Whitespace", 1),
                ],
            },
            Expect {
                file: "ecm98.epd",
                records: 769,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "eet.epd",
                records: 98,
                unparsed: 2,
                kinds: &[("error:Whitespace", 2)],
            },
            Expect {
                file: "kaufman.epd",
                records: 25,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "lct2.epd",
                records: 35,
                unparsed: 0,
                kinds: &[("warning:OpcodeOrder", 35)],
            },
            Expect {
                file: "mate-in-n-bm.epd",
                records: 92,
                unparsed: 16,
                kinds: &[("error:NotSan", 23), ("error:Whitespace", 1)],
            },
            Expect {
                file: "mate_test_suite.epd",
                records: 20,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "mates2000.epd",
                records: 0,
                unparsed: 2000,
                kinds: &[("error:ChestMate", 2000)],
            },
            // Nolot.6 appears twice; one of them has no c0.
            Expect {
                file: "nolot.epd",
                records: 12,
                unparsed: 0,
                kinds: &[("warning:OpcodeOrder", 11)],
            },
            Expect {
                file: "nullmove-zugzwang.epd",
                records: 0,
                unparsed: 5,
                kinds: &[("error:FenClocks", 5), ("error:Whitespace", 1)],
            },
            Expect {
                file: "silent-but-deadly.epd",
                records: 134,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "wac-classic.epd",
                records: 300,
                unparsed: 0,
                kinds: NONE,
            },
            Expect {
                file: "wac.epd",
                records: 300,
                unparsed: 0,
                kinds: NONE,
            },
        ],
    );
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
    for entry in std::fs::read_dir(DIR).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "epd") {
            continue;
        }
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
