//! A mate score comes with the line that mates: every exact `mate N`
//! report's PV is legal, has the length the score says (2N − 1 plies for
//! the side that mates, 2|N| for the side mated) and ends in checkmate.
//! fastchess's `-check-mate-pvs` (which fishtest runs with) flags a report
//! that does not ("Incomplete mating PV", "Mating PV does not end with
//! checkmate"). Positions: the mate suites in rookery-epd's test data
//! (mates of 1 to 5 moves), searched to a node limit.

use rookery_core::{Position, Score};
use rookery_engine::{Engine, Event, Limits};
use std::sync::mpsc;

/// The suites, each position's FEN (the first four fields).
fn positions() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../epd/tests/data/suites/");
    let mut out = Vec::new();
    for (file, take) in [("mate-in-n-bm.epd", 108), ("mates2000.epd", 150)] {
        let text = std::fs::read_to_string(format!("{dir}{file}"))
            .unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
        for line in text.lines().filter(|l| !l.trim().is_empty()).take(take) {
            let fields: Vec<&str> = line.split_whitespace().take(4).collect();
            out.push(format!("{} 0 1", fields.join(" ")));
        }
    }
    out
}

/// What is wrong with a report's PV for its mate score, if anything.
fn check(start: &Position, mate: i32, pv: &[rookery_core::Move]) -> Option<String> {
    let mut pos = start.clone();
    for (i, &m) in pv.iter().enumerate() {
        if !pos.legal_moves().contains(m) {
            return Some(format!("move {} ({m:?}) is not legal", i + 1));
        }
        pos.play_unchecked(m);
    }
    let want = if mate > 0 {
        2 * mate as usize - 1
    } else {
        2 * mate.unsigned_abs() as usize
    };
    if pv.len() != want {
        return Some(format!("{} plies for mate {mate}", pv.len()));
    }
    if !pos.is_checkmate() {
        return Some("it does not end in checkmate".into());
    }
    None
}

#[test]
fn every_mate_score_comes_with_its_mating_line() {
    let mut engine = Engine::new();
    let mut failures = Vec::new();
    let mut mates = 0;
    for fen in positions() {
        let start = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        if !start.has_legal_move() {
            continue;
        }
        engine.clear_hash();
        engine.set_position(start.clone(), &[]);
        let (tx, rx) = mpsc::channel();
        engine.go(
            Limits {
                nodes: Some(30_000),
                ..Limits::default()
            },
            move |e| {
                let _ = tx.send(e);
            },
        );
        for e in rx {
            if let Event::Report(r) = e {
                if let (Score::Mate(n), rookery_engine::tt::Bound::Exact) = (r.score, r.bound) {
                    if n != 0 {
                        mates += 1;
                        if let Some(why) = check(&start, n, &r.pv) {
                            failures.push(format!("{fen} depth {}: mate {n}: {why}", r.depth));
                        }
                    }
                }
            }
        }
        engine.wait();
    }
    assert!(
        mates > 200,
        "only {mates} mate reports: the test checks little"
    );
    assert!(
        failures.is_empty(),
        "{} of {mates} mate reports without their line:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
