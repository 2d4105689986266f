//! The engine survives the extreme values of its own options and of the
//! commands that size memory or time (issue 13, items 2 and 3): the script
//! `tests/data/uci-extremes.txt` (Hash at its advertised maximum, 256
//! threads and PVs, `go depth 10000`, a position with 10,000 moves, clocks at
//! the ends of the 64-bit range, the largest FEN move clocks) is fed to the
//! built `rookery-engine` under an address-space limit, so that the 64 GiB
//! table cannot be had on any machine. Every `go` must be answered with a
//! legal `bestmove`, every `isready` with `readyok`, the refused table with
//! an `info string`, and the process must end by `quit` with status 0.

#![cfg(unix)]

use crate::common::{rookery, s, ROOKERY_ENGINE};
use rookery_testkit::cmd::Cmd;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc::channel;
use std::time::Duration;

/// Liveness bound for the whole script (not a speed assertion).
const PATIENCE: Duration = Duration::from_secs(300);

/// The address space the engine gets, in KiB (`ulimit -v`): 4 GiB, far
/// below the 64 GiB table and above what a normal search needs.
const ADDRESS_SPACE_KIB: u64 = 4 << 20;

fn script() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/uci-extremes.txt");
    let text = std::fs::read_to_string(path).unwrap();
    // Comment lines are for readers; the engine gets UCI only.
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn extreme_option_values_and_commands_are_answered() {
    let script = script();
    let long = script
        .lines()
        .find(|l| l.starts_with("position startpos moves "))
        .unwrap();
    assert_eq!(
        long.split_whitespace().count() - 3,
        10_000,
        "the long position"
    );
    assert!(script.contains("setoption name Hash value 65536\n"));

    let mut child = Cmd::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\""))
        .arg(ROOKERY_ENGINE)
        .spawn();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    drop(stdin);
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let (mut out, mut err) = (String::new(), String::new());
        let _ = stdout.read_to_string(&mut out);
        let _ = stderr.read_to_string(&mut err);
        let _ = tx.send((out, err));
    });
    let Ok((out, err)) = rx.recv_timeout(PATIENCE) else {
        let _ = child.kill();
        panic!("the engine did not finish the script");
    };
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "{status:?}\nstderr:\n{err}\nstdout:\n{out}"
    );
    assert!(!err.contains("panicked"), "{err}");

    let lines: Vec<&str> = out.lines().collect();
    let count = |prefix: &str| lines.iter().filter(|l| l.starts_with(prefix)).count();
    let gos = script.lines().filter(|l| l.starts_with("go")).count();
    assert_eq!(count("bestmove "), gos, "{out}");
    assert_eq!(
        count("readyok"),
        script.lines().filter(|l| *l == "isready").count()
    );
    assert!(
        lines
            .iter()
            .all(|l| !l.starts_with("bestmove (none)") && !l.starts_with("bestmove 0000")),
        "{out}"
    );
    // Both Hash lines are refused (the second is clamped to the maximum),
    // with the reason, and the engine keeps its table.
    let refused: Vec<&&str> = lines
        .iter()
        .filter(|l| {
            l.starts_with(
                "info string option Hash not changed: cannot allocate a 65536 MB hash table",
            )
        })
        .collect();
    assert_eq!(refused.len(), 2, "{out}");
    // The clamped mate search and the flagged clock still pick a move: the
    // last bestmove comes from the bare-kings position after a1a2 h8h7.
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("bestmove "))
        .unwrap();
    let mv = last.split_whitespace().nth(1).unwrap();
    assert!(mv.starts_with("a2"), "the king on a2 moves: {last}");
}

/// Limits no engine can honour are usage errors (exit 2) naming the flag,
/// before any engine starts: `--movetime 18446744073709551615` used to be
/// sent as `go movetime -1`.
#[test]
fn out_of_range_limits_are_usage_errors() {
    let dir = rookery_testkit::TempDir::new("extremes-limits");
    let suite = dir.write("m1.epd", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#;\n");
    let suite = s(&suite);
    for (flag, value) in [
        ("--movetime", "18446744073709551615"),
        ("--movetime", "2147483648"),
        ("--movetime", "0"),
        ("--soft-movetime", "9223372036854775807"),
        ("--depth", "4294967295"),
        ("--nodes", "18446744073709551615"),
        ("--jobs", "0"),
        ("--hash", "65537"),
    ] {
        let out = rookery(&["epd", "target", suite, flag, value], b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(flag), "{flag} {value}: {err}");
        assert!(out.stdout.is_empty(), "{flag} {value}: nothing analysed");
    }
    // The largest accepted value still runs.
    rookery(
        &[
            "epd",
            "target",
            suite,
            "--depth",
            "2",
            "--nodes",
            "9223372036854775807",
        ],
        b"",
    )
    .assert_code(0)
    .assert_stdout_contains("pm Rd8#");
}
