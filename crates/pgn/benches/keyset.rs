//! Criterion benchmark: inserts per second into `rookery_pgn::keyset::KeySet`
//! (what `rookery pgn dedupe` remembers of the games it keeps), each
//! iteration filling an empty set with a fixed stream of keys. To compare
//! two versions of the set on the same keys, save a baseline with one
//! (`cargo bench -p rookery-pgn --bench keyset -- --save-baseline old`) and
//! run the other against it (`-- --baseline old`).

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rookery_pgn::keyset::KeySet;

/// One out of this many keys repeats an earlier one, in the "repeats" stream.
const REPEAT_ONE_IN: u64 = 4;

/// A fixed stream of `n` keys spread evenly over 128 bits (splitmix64, two
/// words a key); with `repeats`, about one key in [`REPEAT_ONE_IN`] is one
/// seen before (a duplicate game).
fn keys(n: usize, repeats: bool) -> Vec<u128> {
    let mut s: u64 = 0x5eed;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut out: Vec<u128> = Vec::with_capacity(n);
    for _ in 0..n {
        let r = next();
        if repeats && !out.is_empty() && r % REPEAT_ONE_IN == 0 {
            let back = (next() % out.len() as u64) as usize;
            out.push(out[back]);
        } else {
            out.push(u128::from(r) << 64 | u128::from(next()));
        }
    }
    out
}

/// Inserts every key of `keys` into a new set; the keys kept.
fn fill(keys: &[u128], payloads: bool) -> usize {
    let mut set = KeySet::new();
    if payloads {
        set = set.with_payloads();
    }
    for (i, &k) in keys.iter().enumerate() {
        // In memory (no cap): no I/O, so no error.
        let _ = set.insert(k, i as u64);
    }
    set.len()
}

fn insert(c: &mut Criterion) {
    let mut g = c.benchmark_group("keyset insert");
    g.sample_size(10);
    let runs: [(&str, usize, bool, bool); 4] = [
        ("distinct", 1 << 20, false, false),
        ("a quarter repeats", 1 << 20, true, false),
        ("distinct, payloads", 1 << 20, false, true),
        ("distinct", 10 << 20, false, false),
    ];
    for (what, n, repeats, payloads) in runs {
        let ks = keys(n, repeats);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new(what, n), &ks, |b, ks| {
            b.iter(|| fill(ks, payloads))
        });
    }
    g.finish();
}

criterion_group!(benches, insert);
criterion_main!(benches);
