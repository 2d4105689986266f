//! The exact McNemar p-value against an independent computation: Python's
//! `math.comb` with exact fractions, for small, boundary (n = 120, 121) and
//! large discordant counts.

use rookery_report::paired::mcnemar_exact_p;
use std::process::Command;

const SCRIPT: &str = r#"
import sys
from fractions import Fraction
from math import comb
for line in sys.stdin:
    b, c = map(int, line.split())
    n, k = b + c, min(b, c)
    p = Fraction(1) if n == 0 else min(Fraction(1), Fraction(2 * sum(comb(n, i) for i in range(k + 1)), 2 ** n))
    print(repr(float(p)))
"#;

#[test]
fn agrees_with_python_math_comb() {
    let Some(python) = rookery_testkit::peer::require("python3", &["python3"], None) else {
        return;
    };
    let mut cases: Vec<(u64, u64)> = vec![(0, 0), (0, 1), (1, 6), (2, 8), (10, 10), (7, 30)];
    for n in [119u64, 120, 121, 122, 300, 1000, 5000] {
        for b in [0, 1, n / 10, n / 3, n / 2 - 1, n / 2] {
            cases.push((b, n - b));
        }
    }
    let input: String = cases.iter().map(|(b, c)| format!("{b} {c}\n")).collect();
    let mut child = Command::new(python)
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run python3");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let want: Vec<f64> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(want.len(), cases.len());
    for (&(b, c), &w) in cases.iter().zip(&want) {
        let got = mcnemar_exact_p(b, c);
        if w == 0.0 {
            // Below f64's range (b + c = 5000, b = 0): ours must be 0 or subnormal-small.
            assert!(got < 1e-300, "b={b} c={c}: {got}");
        } else {
            assert!(
                (got - w).abs() <= 1e-9 * w,
                "b={b} c={c}: ours {got}, python {w}"
            );
        }
    }
}
