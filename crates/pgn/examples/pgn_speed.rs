//! Side-by-side PGN throughput in one run: rookery (visitor: parse + SAN +
//! play; and the full checked game tree) against pgn-reader 0.29 with
//! shakmaty 0.30 (the same work), on the shared throughput corpora when
//! present (else the test data). Prints MB/s, games/s and moves/s; runs are
//! interleaved and the best of ROUNDS is kept, to be fair on a busy machine.
//!
//! Then python-chess (`chess.pgn.read_game`, which parses, plays and builds
//! the tree) on the first PY_GAMES games of each corpus (default 300; it is
//! slow), timed by its process CPU time, beside rookery on the same sample.
//!
//! `cargo run --release -p rookery-pgn --example pgn_speed [-- ROUNDS [RUNNER [CORPUS [PY_GAMES]]]]`

#[path = "../benches/common.rs"]
mod common;

use common::Runner;
use std::time::Instant;

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
        ("rookery stats pipeline (stream)", common::run_rookery_stats),
        ("rookery validate pipeline", common::run_rookery_validate),
        ("rookery to-epd pipeline", common::run_rookery_to_epd),
    ]
    .into_iter()
    .filter(|(l, _)| l.contains(&only))
    .collect();
    let py_games: usize = arg(4).parse().unwrap_or(300);
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
        if py_games > 0 {
            python_sample(&bytes, py_games, rounds);
        }
    }
}

const PY: &str = r#"
import sys, time, chess.pgn
games = plies = 0
c = time.process_time()
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        games += 1
        plies += sum(1 for _ in g.mainline_moves())
print(games, plies, time.process_time() - c)
"#;

/// python-chess on the first `n` games, beside rookery on the same bytes.
fn python_sample(bytes: &[u8], n: usize, rounds: u32) {
    // Cut after the n-th game: skip n games in a reader over the bytes.
    let mut r = rookery_pgn::Reader::new(bytes);
    for _ in 0..n {
        if !r.skip_game().unwrap_or(false) {
            break;
        }
    }
    let sample = &bytes[..r.offset() as usize];
    let path = std::env::temp_dir().join(format!("pgn_speed_{}.pgn", std::process::id()));
    if std::fs::write(&path, sample).is_err() {
        return;
    }
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(PY)
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let Ok(out) = out else {
        println!("  python-chess: python3 not found");
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let f: Vec<f64> = text
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    let [games, plies, cpu] = f[..] else {
        println!(
            "  python-chess: failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    };
    let mb = sample.len() as f64 / 1e6;
    println!(
        "  sample: first {games} games, {mb:.2} MB; python-chess (process CPU time) {:.3} MB/s {:.0} games/s {:.0} moves/s",
        mb / cpu,
        games / cpu,
        plies / cpu
    );
    for (label, f) in [
        ("rookery visitor", common::run_rookery as Runner),
        ("rookery game tree", common::run_rookery_tree),
    ] {
        let mut best = f64::MAX;
        for _ in 0..rounds {
            let t = Instant::now();
            f(sample);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "  {label} on the sample: {:.1} MB/s = {:.0}x python-chess",
            mb / best,
            cpu / best
        );
    }
}
