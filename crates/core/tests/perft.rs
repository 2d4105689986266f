//! Every position of every perft suite, up to a node budget per position so
//! the default run stays quick. `ROOKERY_PERFT_NODES` raises the budget.

mod common;

use rookery_core::{perft, perft_full, Mode, Position, Setup};

fn budget() -> u64 {
    std::env::var("ROOKERY_PERFT_NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

fn run(path: &str, min_cases: usize) {
    let cases = common::read_suite(path);
    assert!(
        cases.len() >= min_cases,
        "{path}: only {} cases",
        cases.len()
    );
    let budget = budget();
    let mut checked = 0;
    for case in &cases {
        let setup = Setup::from_fen(&case.fen, Mode::Lenient)
            .unwrap_or_else(|e| panic!("{}: {}: {e}", case.name, case.fen));
        let (pos, _) = setup
            .into_position(Mode::Lenient)
            .unwrap_or_else(|e| panic!("{}: {}: {e}", case.name, case.fen));
        for &(depth, nodes) in &case.depths {
            // Always check depth 1-2; deeper counts only while within budget.
            if depth > 2 && nodes > budget {
                continue;
            }
            assert_eq!(
                perft(&pos, depth),
                nodes,
                "{} ({}) depth {depth}",
                case.name,
                case.fen
            );
            checked += 1;
        }
    }
    assert!(
        checked >= cases.len(),
        "{path}: checked only {checked} counts"
    );
}

#[test]
fn standard() {
    run("perft/standard.epd", 120);
}

#[test]
fn perftsuite() {
    run("perft/perftsuite.epd", 120);
}

#[test]
fn tricky() {
    run("perft/tricky.perft", 20);
}

#[test]
fn fischer() {
    run("perft/fischer.epd", 900);
}

#[test]
fn chess960() {
    run("perft/chess960.perft", 900);
}

#[test]
fn random() {
    run("perft/random.perft", 6000);
}

#[test]
fn full_make_matches_bulk_counting() {
    for case in common::read_suite("perft/tricky.perft") {
        let (pos, _) = Setup::from_fen(&case.fen, Mode::Lenient)
            .unwrap()
            .into_position(Mode::Lenient)
            .unwrap();
        for &(depth, nodes) in case.depths.iter().filter(|(d, n)| *d <= 3 && *n < 200_000) {
            assert_eq!(perft_full(&pos, depth), nodes, "{}", case.name);
        }
    }
}

#[test]
fn startpos_depth_5() {
    assert_eq!(perft(&Position::startpos(), 5), 4_865_609);
}
