//! `rookery-tune`: Texel-tunes the engine's evaluation weights.
//!
//! ```text
//! rookery-tune DATA [--epochs N] [--lr X] [--l2 X] [--k K] [--resolve]
//!              [--freeze material|pst|mobility|classic|extra|rest]... [--out crates/engine/src/weights.rs]
//! ```
//! DATA holds `FEN;result` or `FEN;result;game` lines (see
//! extract_positions.py, extract_games.py). Lines that name their game are
//! split by game: games numbered 9 modulo 10 are held out to measure the
//! error on unseen positions; other lines are split one in ten. `--resolve`
//! replaces each position by the leaf of the engine's quiescence search
//! (positions whose leaf is in check are dropped). `K` is fitted to the
//! starting weights unless given, and stays fixed while training.

use rookery_engine::eval::Classical;
use rookery_tuner::{parse_record, sample, weights_source, Tuner};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("selfplay") {
        return selfplay(&args[1..]);
    }
    let mut data = None;
    let mut epochs = 1000usize;
    let mut lr = 1.0f64;
    let mut l2 = 0.0f64;
    let mut out = None;
    let mut fixed_k: Option<f64> = None;
    let mut resolve = false;
    let mut frozen: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let val = args.get(i + 1).cloned();
        match args[i].as_str() {
            "--epochs" => epochs = val.and_then(|v| v.parse().ok()).unwrap_or(epochs),
            "--lr" => lr = val.and_then(|v| v.parse().ok()).unwrap_or(lr),
            "--l2" => l2 = val.and_then(|v| v.parse().ok()).unwrap_or(l2),
            "--out" => out = val,
            "--k" => fixed_k = val.and_then(|v| v.parse().ok()),
            "--resolve" => {
                resolve = true;
                i += 1;
                continue;
            }
            "--freeze" => frozen.extend(val),
            other => {
                data = Some(other.to_string());
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let Some(data) = data else {
        eprintln!("usage: rookery-tune DATA [--epochs N] [--lr X] [--l2 X] [--out FILE]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&data) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("rookery-tune: {data}: {e}");
            return ExitCode::from(1);
        }
    };
    let mut train = Vec::new();
    let mut valid = Vec::new();
    let mut bad = 0;
    let mut unresolved = 0;
    let start = Classical::default();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_record(line) {
            Ok(r) => {
                let pos = if resolve {
                    match rookery_engine::search::quiet_leaf(&r.position, &start) {
                        Some((leaf, _)) => leaf,
                        None => {
                            unresolved += 1;
                            continue;
                        }
                    }
                } else {
                    r.position
                };
                let s = sample(&pos, r.result);
                if r.game.map_or(n % 10 == 9, |g| g % 10 == 9) {
                    valid.push(s);
                } else {
                    train.push(s);
                }
            }
            Err(e) => {
                bad += 1;
                eprintln!("{data}:{}:1: error: {e}", n + 1);
            }
        }
    }
    let mut tuner = Tuner::new(train, start.weights());
    for group in &frozen {
        use rookery_engine::eval::idx;
        let range = match group.as_str() {
            "material" => idx::MATERIAL..idx::PST,
            "pst" => idx::PST..idx::MOB_N,
            "mobility" => idx::MOB_N..idx::PASSED,
            "rest" => idx::PASSED..idx::COUNT,
            "classic" => idx::PASSED..idx::THREAT_PAWN,
            "extra" => idx::THREAT_PAWN..idx::COUNT,
            other => {
                eprintln!(
                    "rookery-tune: unknown group {other} (material, pst, mobility, rest = classic + extra)"
                );
                return ExitCode::from(2);
            }
        };
        tuner.freeze(range);
    }
    let k = fixed_k.unwrap_or_else(|| tuner.fit_k());
    let (t0, v0) = (tuner.error(k), tuner.error_on(&valid, k));
    println!(
        "{} training, {} validation samples ({bad} bad lines, {unresolved} left in check); K = {k:.4}",
        tuner.len(),
        valid.len()
    );
    println!("before: train MSE {t0:.6}, validation MSE {v0:.6}");
    let (best_epoch, _) = tuner.train_early_stopping(k, epochs, lr, l2, &valid, |epoch, t, v| {
        println!("epoch {epoch}: train MSE {t:.6}, validation MSE {v:.6}");
    });
    let (t1, v1) = (tuner.error(k), tuner.error_on(&valid, k));
    println!(
        "kept epoch {best_epoch} (lowest validation error): train MSE {t1:.6}, validation MSE {v1:.6}"
    );
    if let Some(out) = out {
        let note = format!(
            "Last run: {} training positions, K = {k:.4}, epoch {best_epoch} of {epochs}, lr {lr}, l2 {l2}, \
             frozen: {frozen:?};\n\
             train MSE {t0:.6} -> {t1:.6}, validation MSE {v0:.6} -> {v1:.6}.",
            tuner.len()
        );
        if let Err(e) = std::fs::write(&out, weights_source(&tuner.weights(), &note)) {
            eprintln!("rookery-tune: {out}: {e}");
            return ExitCode::from(1);
        }
        println!("wrote {out}");
    }
    if bad > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `rookery-tune selfplay OPENINGS OUT GAMES [NODES] [FIRST]`: plays GAMES
/// games of the engine against itself (NODES per move), numbered from FIRST
/// (default 0; give parallel runs disjoint ranges), cycling through the
/// openings (one FEN/EPD per line), each followed by a few random moves drawn
/// from the game number, and appends labelled positions to OUT as each game
/// ends.
fn selfplay(args: &[String]) -> ExitCode {
    use std::io::Write;
    let (Some(openings), Some(out), Some(games)) = (
        args.first(),
        args.get(1),
        args.get(2).and_then(|g| g.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: rookery-tune selfplay OPENINGS OUT GAMES [NODES] [FIRST]");
        return ExitCode::from(2);
    };
    let mut settings = rookery_tuner::selfplay::Settings::default();
    if let Some(n) = args.get(3).and_then(|n| n.parse().ok()) {
        settings.nodes = n;
    }
    let first: usize = args.get(4).and_then(|n| n.parse().ok()).unwrap_or(0);
    let starts: Vec<rookery_core::Position> = match std::fs::read_to_string(openings) {
        Ok(t) => t
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().take(4).collect();
                (f.len() == 4)
                    .then(|| {
                        rookery_core::Position::from_fen_lenient(&format!("{} 0 1", f.join(" ")))
                            .ok()
                    })
                    .flatten()
                    .map(|(p, _)| p)
            })
            .collect(),
        Err(e) => {
            eprintln!("rookery-tune: {openings}: {e}");
            return ExitCode::from(1);
        }
    };
    if starts.is_empty() {
        eprintln!("rookery-tune: {openings}: no positions");
        return ExitCode::from(1);
    }
    let mut file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!("rookery-tune: {out}: {e}");
            return ExitCode::from(1);
        }
    };
    let mut engine = rookery_engine::Engine::new();
    for g in first..first + games {
        // Each opening is used twice in a row, with different random moves.
        let opening = &starts[(g / 2) % starts.len()];
        let mut rng = rookery_tuner::selfplay::Rng::new(g as u64);
        engine.clear_hash();
        let pos =
            rookery_tuner::selfplay::randomised_start(&mut engine, opening, &settings, &mut rng);
        engine.clear_hash();
        let lines = rookery_tuner::selfplay::play_game(&mut engine, &pos, &settings, g);
        for l in &lines {
            if writeln!(file, "{l}").is_err() {
                return ExitCode::from(1);
            }
        }
        println!("game {}: {} positions", g + 1, lines.len());
    }
    ExitCode::SUCCESS
}
