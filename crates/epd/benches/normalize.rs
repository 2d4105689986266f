//! Normalize (pfdn) throughput with SAN checking, on records cycled from the
//! test suites (every suite, in file order). Reports records/s.
//!
//! `cargo bench -p rookery-epd --bench normalize`. The whole-file figure
//! (1,000,000 records) comes from the `epd_normalize` example:
//! `cargo run --release -p rookery-epd --example epd_normalize -- --generate 1000000 > big.epd`
//! then `cargo run --release -p rookery-epd --example epd_normalize -- [--jobs 2] big.epd > /dev/null`
//! (or `rookery epd normalize [--jobs 2] big.epd -o /dev/null`). The whole
//! process beside its peer (python-chess reading and writing the same
//! records), one and two threads, in one run:
//! `python3 scripts/epd_normalize_peer.py` after `cargo build --release -p rookery`.

// criterion_group! defines an undocumented `pub fn benches`.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rookery_epd::{verbs, Mode, Reader};

fn suite_records() -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/suites");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "epd"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for path in names {
        for line in std::fs::read(&path).unwrap().split(|&c| c == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if !line.is_empty() && !line.starts_with(b"#") {
                out.extend_from_slice(line);
                out.push(b'\n');
            }
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let data = suite_records();
    let records = data.iter().filter(|&&b| b == b'\n').count() as u64;
    let mut group = c.benchmark_group("epd");
    group.throughput(Throughput::Elements(records));
    group.bench_function("normalize_suites", |b| {
        let mut out = Vec::with_capacity(data.len() * 2);
        b.iter(|| {
            out.clear();
            verbs::normalize(data.as_slice(), &mut out, Mode::Lenient, |_| {}).unwrap()
        })
    });
    group.bench_function("read_validate_suites", |b| {
        b.iter(|| {
            let mut reader = Reader::new(data.as_slice(), Mode::Lenient).validating(true);
            let mut n = 0u64;
            while let Some(line) = reader.next_line().unwrap() {
                n += line.diagnostics.len() as u64;
            }
            n
        })
    });
    group.bench_function("purge_suites", |b| {
        let mut out = Vec::with_capacity(data.len());
        b.iter(|| {
            out.clear();
            verbs::purge(data.as_slice(), &mut out, &["id"], Mode::Lenient, |_| {}).unwrap()
        })
    });
    group.finish();
    // The same records eight times over, so that two threads have whole
    // batches to share; beside one thread on the same bytes.
    let many = data.repeat(8);
    let mut group = c.benchmark_group("epd x8");
    group.throughput(Throughput::Elements(records * 8));
    for jobs in [1, 2] {
        group.bench_function(format!("normalize_suites_{jobs}_jobs"), |b| {
            let mut out = Vec::with_capacity(many.len() * 2);
            b.iter(|| {
                out.clear();
                verbs::normalize_with_jobs(many.as_slice(), &mut out, Mode::Lenient, jobs, |_| {})
                    .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
