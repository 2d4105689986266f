//! End-to-end tests of `rookery perft` and `rookery show`, running the built binary.

use crate::common::{cmd, rookery, s, text};
use rookery_testkit::cmd::{assert_contains_all, Run};
use std::io::Write;

/// `rookery perft --divide --fen FEN --depth DEPTH EXTRA...`, which must
/// succeed: its stdout.
fn divide(fen: &str, depth: &str, extra: &[&str]) -> String {
    let o = rookery(
        &[
            &["perft", "--divide", "--fen", fen, "--depth", depth],
            extra,
        ]
        .concat(),
        b"",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

#[test]
fn perft_plain_output() {
    let o = rookery(&["perft", "--depth", "4"], b"");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.starts_with("nodes   197281\n"), "{out}");
    assert_contains_all(&out, &["\nseconds ", "\nnps "]);
}

#[test]
fn perft_json() {
    let o = rookery(&["perft", "--fen", KIWIPETE, "--depth", "3", "--json"], b"");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["nodes"], 97862);
    assert!(v["seconds"].as_f64().is_some());
    assert!(v["nps"].as_u64().is_some());
}

#[test]
fn perft_divide_has_stockfish_shape() {
    let out = divide(KIWIPETE, "2", &[]);
    let lines: Vec<&str> = out.lines().collect();
    // 48 moves, a blank line, the total.
    assert_eq!(lines.len(), 50, "{out}");
    assert_eq!(lines[48], "");
    assert_eq!(lines[49], "Nodes searched: 2039");
    let sum: u64 = lines[..48]
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 2039);
    // Standard castling is written king-two-squares.
    assert!(lines.iter().any(|l| l.starts_with("e1g1: ")), "{out}");
}

#[test]
fn perft_divide_chess960_castling() {
    let out = divide(KIWIPETE, "1", &["--chess960"]);
    assert!(out.lines().any(|l| l == "e1h1: 1"), "{out}");
    assert!(out.lines().any(|l| l == "e1a1: 1"), "{out}");
    assert!(
        !out.lines()
            .any(|l| l.starts_with("e1g1") || l.starts_with("e1c1")),
        "{out}"
    );
    // A Shredder-FEN castling field implies Chess960 notation. Rooks on b1
    // and g1, king on e1, both castlings legal: the king takes its rook
    // (e1b1, e1g1); standard notation would say e1c1 (and e1g1 for the
    // other), and e1b1 is no king move otherwise.
    let out = divide("4k3/8/8/8/8/8/8/1R2K1R1 w GB - 0 1", "2", &[]);
    let moves: Vec<&str> = out
        .lines()
        .take_while(|l| !l.is_empty())
        .map(|l| l.split(": ").next().unwrap())
        .collect();
    assert!(
        moves.contains(&"e1b1"),
        "queen-side castling as king takes rook: {out}"
    );
    assert!(
        moves.contains(&"e1g1"),
        "king-side castling as king takes rook: {out}"
    );
    assert!(
        !moves.contains(&"e1c1"),
        "no standard castling notation: {out}"
    );
    // Without the Shredder field, the same position is written the standard way.
    let out = divide("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "1", &[]);
    assert!(out.lines().any(|l| l == "e1g1: 1"), "{out}");
}

#[test]
fn perft_depth_zero_is_the_position_itself() {
    for extra in [&[][..], &["--divide"][..], &["--divide", "--no-bulk"][..]] {
        let mut args = vec!["perft", "--depth", "0"];
        args.extend_from_slice(extra);
        let o = rookery(&args, b"");
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        if extra.is_empty() {
            assert!(out.starts_with("nodes   1\n"), "{out}");
        } else {
            // No moves below the position, and the same count as without --divide.
            assert_eq!(out, "\nNodes searched: 1\n", "{extra:?}");
        }
    }
}

#[test]
fn perft_threads_agree() {
    let threads = |n: &str| {
        rookery(
            &[
                "perft",
                "--fen",
                KIWIPETE,
                "--depth",
                "3",
                "--json",
                "--threads",
                n,
            ],
            b"",
        )
    };
    let (one, two) = (threads("1"), threads("2"));
    let a: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&two.stdout).unwrap();
    assert_eq!(a["nodes"], b["nodes"]);
}

/// `rookery perft --suite FILE EXTRA...` over `suite` written to `name` in
/// `dir`: its exit code must be `code` and its stdout hold every one of
/// `says`; returns the run.
fn perft_suite(
    dir: &rookery_testkit::TempDir,
    name: &str,
    suite: &str,
    extra: &[&str],
    code: i32,
    says: &[&str],
) -> Run {
    let file = dir.join(name);
    std::fs::write(&file, suite).unwrap();
    let o = rookery(&[&["perft", "--suite", s(&file)], extra].concat(), b"");
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(code), "{out}{}", text(&o.stderr));
    for needle in says {
        assert!(out.contains(needle), "{needle:?} not in {out}");
    }
    o
}

#[test]
fn perft_suite_passes_and_fails() {
    let dir = rookery_testkit::TempDir::new("perft-suite");
    let good = format!("# comment\n{KIWIPETE} ;D1 48 ;D2 2039\n\nid x\nepd 4k3/8/8/8/8/8/8/4K2R w K - 0 1\nperft 1 15\nperft 2 66\n");
    let passed = ["2 passed, 0 failed, 0 skipped"];
    let o = perft_suite(&dir, "good.epd", &good, &[], 0, &passed);
    let ok: Vec<String> = text(&o.stdout)
        .lines()
        .filter(|l| l.starts_with("ok "))
        .map(str::to_owned)
        .collect();
    assert!(ok[0].ends_with("depths [1, 2]"), "{ok:?}");
    assert!(ok[1].ends_with("depths [1, 2]"), "{ok:?}");

    // A line with no counts checks nothing: it fails, it does not pass.
    let empty = format!("{KIWIPETE} ;D1 48\n{KIWIPETE}\n");
    let says = ["no perft counts", "1 passed, 1 failed, 0 skipped"];
    perft_suite(&dir, "empty.epd", &empty, &[], 1, &says);
    // Counts all deeper than --depth: skipped, not passed.
    let deeper = ["--depth", "0"];
    let skipped = ["0 passed, 0 failed, 2 skipped"];
    perft_suite(&dir, "good.epd", &good, &deeper, 0, &skipped);

    let bad = format!("{KIWIPETE} ;D1 48 ;D2 2040\n");
    perft_suite(&dir, "bad.epd", &bad, &[], 1, &["expected 2040, got 2039"]);

    let broken = format!("{KIWIPETE} ;D1 forty\n");
    let o = perft_suite(&dir, "broken.epd", &broken, &[], 1, &[]);
    o.assert_stderr_contains("broken.epd:1:");
}

#[test]
fn invalid_fen_exits_1_with_message() {
    let o = rookery(
        &[
            "show",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert_contains_all(&err, &["at byte 42", "'X'"]);
    assert!(text(&o.stdout).is_empty());
    let o = rookery(&["perft", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"], b"");
    assert_eq!(o.status.code(), Some(1));
    o.assert_stderr_contains("white has no king");
}

#[test]
fn usage_error_exits_2() {
    let o = rookery(&["perft", "--depth", "many"], b"");
    assert_eq!(o.status.code(), Some(2));
    let o = rookery(&["no-such-command"], b"");
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn help_explains() {
    let o = rookery(&["perft", "--help"], b"");
    assert!(o.status.success());
    let out = text(&o.stdout);
    assert_contains_all(
        &out,
        &[
            "--fen",
            "--depth",
            "--divide",
            "--chess960",
            "--suite",
            "--threads",
            "--json",
            "Examples:",
        ],
    );
}

#[test]
fn show_json() {
    // Fool's mate: black has just mated.
    let o = rookery(
        &[
            "show",
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "--json",
        ],
        b"",
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["checkmate"], true);
    assert_eq!(v["stalemate"], false);
    assert_eq!(v["checkers"], serde_json::json!(["h4"]));
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);

    let o = rookery(&["show", "--json"], b"");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 20);
    assert!(moves
        .iter()
        .any(|m| m["san"] == "Nf3" && m["uci"] == "g1f3"));
    assert_eq!(v["insufficient_material"], false);
}

#[test]
fn show_text_lists_moves_and_state() {
    let o = rookery(&["show", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"], b"");
    let out = text(&o.stdout);
    assert!(out.contains("state       stalemate"), "{out}");
    let o = rookery(&["show", "8/8/8/8/8/2k5/8/2K2N2 w - - 0 1"], b"");
    assert!(text(&o.stdout).contains("insufficient material"));
}

#[test]
fn broken_pipe_is_success() {
    let mut child = cmd(["perft", "--depth", "5", "--divide"]).spawn();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert!(status.success());
    let _ = std::io::stdout().flush();
}
