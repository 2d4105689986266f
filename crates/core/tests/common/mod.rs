//! Shared helpers for the integration tests: reading the perft suites.

#![allow(dead_code)]

use std::path::PathBuf;

/// One perft test case.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub fen: String,
    pub depths: Vec<(u32, u64)>,
}

pub fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// Reads both suite formats: `FEN ;D1 n ;D2 n` lines and `id/epd/perft` blocks.
pub fn read_suite(path: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(data(path)).expect("suite file");
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("id ") {
            cases.push(Case {
                name: rest.to_string(),
                fen: String::new(),
                depths: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("epd ") {
            cases.last_mut().expect("epd after id").fen = rest.to_string();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut it = rest.split_whitespace();
            let d = it.next().unwrap().parse().unwrap();
            let n = it.next().unwrap().parse().unwrap();
            cases
                .last_mut()
                .expect("perft after id")
                .depths
                .push((d, n));
        } else {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let mut depths = Vec::new();
            for p in parts {
                let p = p.trim();
                if p.is_empty() {
                    continue;
                }
                let mut it = p.split_whitespace();
                let d = it.next().unwrap().trim_start_matches('D').parse().unwrap();
                let n = it.next().unwrap().parse().unwrap();
                depths.push((d, n));
            }
            cases.push(Case {
                name: format!("{path}:{}", i + 1),
                fen,
                depths,
            });
        }
    }
    cases
}
