//! Criterion benchmark: parse + SAN + play for rookery's
//! visitor, rookery's full game tree, the stats/validate/to-epd pipelines
//! (`stream::run`; stats on two threads too), and pgn-reader 0.29 with
//! shakmaty 0.30
//! doing the same work, on the shared throughput corpora when present (else
//! the test data). For MB/s, games/s and moves/s side by side in one run, see
//! `examples/pgn_speed.rs`.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// What is timed on each corpus, by its name in the report.
const RUNS: [(&str, common::Runner); 7] = [
    ("rookery visitor", common::run_rookery),
    ("pgn-reader + shakmaty", common::run_pgn_reader),
    ("rookery stats pipeline", common::run_rookery_stats),
    (
        "rookery stats pipeline, 2 threads",
        common::run_rookery_stats_2,
    ),
    ("rookery validate pipeline", common::run_rookery_validate),
    ("rookery to-epd pipeline", common::run_rookery_to_epd),
    ("rookery game tree", common::run_rookery_tree),
];

fn parse(c: &mut Criterion) {
    for (name, bytes) in common::corpora() {
        let (games, plies, _) = common::run_rookery(&bytes);
        let mut g = c.benchmark_group(format!("{name} ({games} games, {plies} plies)"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        for (what, run) in RUNS {
            g.bench_function(what, |b| b.iter(|| run(&bytes)));
        }
        g.finish();
    }
}

criterion_group!(benches, parse);
criterion_main!(benches);
