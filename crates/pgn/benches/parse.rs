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

fn parse(c: &mut Criterion) {
    for (name, bytes) in common::corpora() {
        let (games, plies, _) = common::run_rookery(&bytes);
        let mut g = c.benchmark_group(format!("{name} ({games} games, {plies} plies)"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function("rookery visitor", |b| {
            b.iter(|| common::run_rookery(&bytes))
        });
        g.bench_function("pgn-reader + shakmaty", |b| {
            b.iter(|| common::run_pgn_reader(&bytes))
        });
        g.bench_function("rookery stats pipeline", |b| {
            b.iter(|| common::run_rookery_stats(&bytes))
        });
        g.bench_function("rookery stats pipeline, 2 threads", |b| {
            b.iter(|| common::run_rookery_stats_2(&bytes))
        });
        g.bench_function("rookery validate pipeline", |b| {
            b.iter(|| common::run_rookery_validate(&bytes))
        });
        g.bench_function("rookery to-epd pipeline", |b| {
            b.iter(|| common::run_rookery_to_epd(&bytes))
        });
        g.bench_function("rookery game tree", |b| {
            b.iter(|| common::run_rookery_tree(&bytes))
        });
        g.finish();
    }
}

criterion_group!(benches, parse);
criterion_main!(benches);
