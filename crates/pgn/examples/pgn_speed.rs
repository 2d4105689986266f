//! Side-by-side PGN throughput in one run: rookery (visitor: parse + SAN +
//! play; and the full checked game tree) against pgn-reader 0.29 with
//! shakmaty 0.30 (the same work), on the shared throughput corpora when
//! present (else the test data). Prints MB/s, games/s and moves/s; runs are
//! interleaved and the best of ROUNDS is kept, to be fair on a busy machine.
//!
//! `cargo run --release -p rookery-pgn --example pgn_speed [-- ROUNDS [RUNNER [CORPUS]]]`

#[path = "../benches/common.rs"]
mod common;

use std::time::Instant;

type Runner = fn(&[u8]) -> (u64, u64, u64);

fn main() {
    let arg = |i: usize| std::env::args().nth(i).unwrap_or_default();
    let rounds: u32 = arg(1).parse().unwrap_or(5);
    // Optional filters on the runner label and the corpus name.
    let (only, corpus) = (arg(2), arg(3));
    let runners: Vec<(&str, Runner)> = vec![
        (
            "rookery visitor (parse+SAN+play)",
            common::run_rookery as Runner,
        ),
        ("pgn-reader 0.29 + shakmaty 0.30", common::run_pgn_reader),
        ("rookery game tree (Games)", common::run_rookery_tree),
    ]
    .into_iter()
    .filter(|(l, _)| l.contains(&only))
    .collect();
    for (name, bytes) in common::corpora() {
        if !name.contains(&corpus) {
            continue;
        }
        let mb = bytes.len() as f64 / 1e6;
        println!("{name}: {mb:.1} MB, best of {rounds} interleaved rounds");
        let mut best = vec![f64::MAX; runners.len()];
        let mut counts = vec![(0, 0, 0); runners.len()];
        for _ in 0..rounds {
            for (i, (_, f)) in runners.iter().enumerate() {
                let t = Instant::now();
                counts[i] = f(&bytes);
                best[i] = best[i].min(t.elapsed().as_secs_f64());
            }
        }
        for (i, (label, _)) in runners.iter().enumerate() {
            let (secs, (games, plies, errors)) = (best[i], counts[i]);
            println!(
                "  {label:34} {:8.1} MB/s {:10.0} games/s {:12.0} moves/s  ({games} games, {plies} plies, {errors} errors, {secs:.4} s)",
                mb / secs,
                games as f64 / secs,
                plies as f64 / secs,
            );
        }
    }
}
