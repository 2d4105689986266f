//! Malformed records with the exact diagnostics expected (line, column,
//! severity, message): `tests/data/malformed-{lenient,strict}.epd`. Each case
//! is a `# case:` line, its `# expect:` lines, then the record.

use rookery_epd::{LineKind, Mode, Reader};

fn check(path: &str, mode: Mode) -> usize {
    let data = std::fs::read(path).unwrap();
    let mut reader = Reader::new(data.as_slice(), mode).validating(true);
    let mut expected: Vec<String> = Vec::new();
    let mut cases = 0;
    let mut in_case = false;
    while let Some(line) = reader.next_line().unwrap() {
        let text = String::from_utf8_lossy(line.text).into_owned();
        match line.kind {
            LineKind::Comment => {
                if let Some(e) = text.strip_prefix("# expect: ") {
                    expected.push(e.to_owned());
                } else if text.starts_with("# case: ") {
                    assert!(!in_case, "{path}:{}: case without a record", line.number);
                    in_case = true;
                }
            }
            LineKind::Blank => {}
            LineKind::Record(_) | LineKind::Unparsed => {
                assert!(in_case, "{path}:{}: record outside a case", line.number);
                assert!(
                    !expected.is_empty(),
                    "{path}:{}: a case must expect at least one diagnostic",
                    line.number
                );
                for d in line.diagnostics {
                    assert_eq!(d.line, line.number, "{path}: diagnostic on the wrong line");
                }
                let got: Vec<String> = line
                    .diagnostics
                    .iter()
                    .map(|d| format!("{}: {}: {}", d.column, d.severity, d.problem))
                    .collect();
                assert_eq!(got, expected, "{path}:{}", line.number);
                // A line that is not handed out as a record always says why.
                if matches!(line.kind, LineKind::Unparsed) {
                    assert!(
                        line.diagnostics.iter().any(|d| d.is_error()),
                        "{path}:{}",
                        line.number
                    );
                }
                expected.clear();
                in_case = false;
                cases += 1;
            }
        }
    }
    cases
}

#[test]
fn lenient_cases() {
    let n = check("tests/data/malformed-lenient.epd", Mode::Lenient);
    assert!(n >= 40, "only {n} cases");
}

#[test]
fn strict_cases() {
    let n = check("tests/data/malformed-strict.epd", Mode::Strict);
    assert!(n >= 10, "only {n} cases");
}
