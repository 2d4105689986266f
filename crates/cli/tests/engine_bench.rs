//! `rookery bench`: the node signature is deterministic.

use crate::common::rookery;
use rookery_testkit::cmd::assert_contains_all;

fn bench_json(depth: &str) -> serde_json::Value {
    let out = rookery(&["bench", "--depth", depth, "--json"], b"");
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn bench_signature_is_deterministic() {
    let a = bench_json("7");
    let b = bench_json("7");
    assert_eq!(a["nodes"], b["nodes"]);
    assert_eq!(a["positions"], b["positions"]);
    assert!(a["nodes"].as_u64().unwrap() > 10_000);
}

#[test]
fn bench_text_output() {
    let out = rookery(&["bench", "--depth", "3"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_contains_all(&text, &["Nodes searched  : ", "Nodes/second    : "]);
    let bad = rookery(&["bench", "--depth", "0"], b"");
    assert!(!bad.status.success());
}
