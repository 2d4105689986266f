//! Criterion benchmarks of rookery-core: legal move generation, perft, FEN
//! reading and writing, SAN reading (with resolving) and writing; and, beside
//! them, shakmaty on the same positions as a peer.
//!
//! `cargo bench -p rookery-core --bench movegen` (add `-- perft` to filter).

// criterion_group! defines an undocumented `pub fn benches`.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use rookery_core::{perft, Mode, Position, San, SanPlus, Setup};
use shakmaty::fen::Fen as SFen;
use shakmaty::{CastlingMode as SCastlingMode, Chess, Position as _};
use std::time::Duration;

const POSITIONS: &[(&str, &str)] = &[
    (
        "startpos",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ),
    (
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ),
    (
        "middlegame",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 2 8",
    ),
    ("endgame", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    (
        "in-check",
        "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3",
    ),
    (
        "chess960",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    ),
];

fn ours(fen: &str) -> Position {
    Position::from_fen(fen).expect("bench position")
}

fn theirs(fen: &str) -> Chess {
    let mode = if fen.contains("HFhf") {
        SCastlingMode::Chess960
    } else {
        SCastlingMode::Standard
    };
    fen.parse::<SFen>()
        .expect("bench FEN")
        .into_position(mode)
        .expect("bench position")
}

fn legal_moves(c: &mut Criterion) {
    let mut g = c.benchmark_group("legal_moves");
    for &(name, fen) in POSITIONS {
        let pos = ours(fen);
        g.bench_with_input(BenchmarkId::new("rookery", name), &pos, |b, pos| {
            b.iter(|| black_box(pos).legal_moves().len())
        });
        let spos = theirs(fen);
        g.bench_with_input(BenchmarkId::new("shakmaty", name), &spos, |b, pos| {
            b.iter(|| black_box(pos).legal_moves().len())
        });
    }
    g.finish();
}

fn perft_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    for (name, fen, depth) in [
        ("startpos", POSITIONS[0].1, 4),
        ("kiwipete", POSITIONS[1].1, 3),
        ("chess960", POSITIONS[5].1, 3),
    ] {
        let id = format!("{name}/{depth}");
        let pos = ours(fen);
        g.bench_with_input(BenchmarkId::new("rookery", &id), &pos, |b, pos| {
            b.iter(|| perft(black_box(pos), depth))
        });
        let spos = theirs(fen);
        g.bench_with_input(BenchmarkId::new("shakmaty", &id), &spos, |b, pos| {
            b.iter(|| shakmaty::perft(black_box(pos), depth))
        });
    }
    g.finish();
}

fn fen_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("fen");
    for &(name, fen) in &POSITIONS[..2] {
        g.bench_with_input(BenchmarkId::new("read", name), fen, |b, fen| {
            b.iter(|| {
                Setup::from_fen(black_box(fen), Mode::Strict)
                    .map(|s| s.into_position(Mode::Strict).is_ok())
                    .unwrap_or(false)
            })
        });
        let pos = ours(fen);
        g.bench_with_input(BenchmarkId::new("write", name), &pos, |b, pos| {
            b.iter(|| black_box(pos).fen())
        });
    }
    g.finish();
}

fn san_bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("san");
    let pos = ours(POSITIONS[1].1);
    let moves = pos.legal_moves();
    let texts: Vec<String> = moves
        .iter()
        .map(|&m| SanPlus::from_move(&pos, m).to_string())
        .collect();
    g.bench_function("read+resolve/kiwipete-all-48", |b| {
        b.iter(|| {
            texts
                .iter()
                .filter(|t| {
                    San::from_ascii(t.as_bytes())
                        .ok()
                        .and_then(|s| s.to_move(black_box(&pos)).ok())
                        .is_some()
                })
                .count()
        })
    });
    g.bench_function("write/kiwipete-all-48", |b| {
        b.iter(|| {
            moves
                .iter()
                .map(|&m| SanPlus::from_move(black_box(&pos), m).to_string().len())
                .sum::<usize>()
        })
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = legal_moves, perft_bench, fen_bench, san_bench
}
criterion_main!(benches);
