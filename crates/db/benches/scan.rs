//! Criterion benchmark of reading stored games: every ply of TWIC 920's
//! games (real games, from `../shared/data`, else the test data) read by
//! the piece codec's [`Reader`] (layout 6) and by the legal-move index
//! (layout 5's way: a move generation a ply), and a sub-position scan of
//! a database of them ([`Database::scan`]). Throughput in plies.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rookery_core::Position;
use rookery_db::codec::{self, index, Reader, Start};
use rookery_db::scan::{Pattern, Query};
use rookery_db::{Database, ImportOptions};
use rookery_pgn::filter::Criteria;

/// Real games: TWIC 920 from the shared corpora, else the test data's
/// tenth of it.
fn corpus() -> Vec<u8> {
    let here = env!("CARGO_MANIFEST_DIR");
    for p in [
        format!("{here}/../../../shared/data/pgn/twic0920.pgn"),
        format!("{here}/../cli/tests/data/eco/twic0920-every10th.pgn"),
    ] {
        if let Ok(b) = std::fs::read(&p) {
            return b;
        }
    }
    panic!("no TWIC 920 corpus found");
}

fn scan(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("rookery-db-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = Database::open(&dir.join("twic.rdb")).unwrap();
    let text = corpus();
    let source = rookery_pgn::source::Source::reader(std::io::Cursor::new(text));
    db.import(
        vec![("twic.pgn".into(), source)],
        ImportOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    // Every game's start and moves, written both ways.
    let mut games = Vec::new();
    let mut id = 1;
    while let Some(g) = db.game(id).unwrap() {
        games.push((g.start.clone(), g.moves.clone()));
        id += 1;
    }
    let plies: usize = games.iter().map(|(_, m)| m.len()).sum();
    let by_piece: Vec<(Start, Vec<u8>)> = games
        .iter()
        .map(|(s, m)| (Start::new(s.clone()), codec::encode_line(s, m).unwrap()))
        .collect();
    let by_index: Vec<(Position, Vec<u8>)> = games
        .iter()
        .map(|(s, m)| {
            let mut pos = s.clone();
            let bytes = m
                .iter()
                .map(|&mv| {
                    let b = index::encode(&pos, mv).unwrap();
                    pos.play_unchecked(mv);
                    b
                })
                .collect();
            (s.clone(), bytes)
        })
        .collect();

    let mut g = c.benchmark_group(format!("read ({} games, {plies} plies)", games.len()));
    g.sample_size(20);
    g.throughput(Throughput::Elements(plies as u64));
    g.bench_function("piece codec (layout 6): Reader", |b| {
        b.iter(|| {
            let mut n = 0;
            for (start, bytes) in &by_piece {
                let mut r = Reader::at(start, bytes);
                while r.next_move().unwrap().is_some() {
                    n += 1;
                }
            }
            assert_eq!(n, plies);
        })
    });
    g.bench_function("legal-move index (layout 5): decode and play", |b| {
        b.iter(|| {
            let mut n = 0;
            for (start, bytes) in &by_index {
                let mut pos = start.clone();
                for &byte in bytes {
                    let m = index::decode(&pos, byte).unwrap();
                    pos.play_unchecked(m);
                    n += 1;
                }
            }
            assert_eq!(n, plies);
        })
    });
    let mut knight: Query = Query::default();
    knight.sub_fens.push("8/8/8/8/4N3/8/8/8".parse().unwrap());
    let knight = Pattern::from(knight);
    g.bench_function("Database::scan, a white knight on e4, one thread", |b| {
        b.iter(|| {
            let mut found = 0;
            db.scan(&Criteria::default(), &knight, 1, &mut |_| {
                found += 1;
                true
            })
            .unwrap();
            assert!(found > 0);
        })
    });
    g.finish();
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, scan);
criterion_main!(benches);
