//! Suite scoring checked against results worked out by hand, on synthetic
//! search histories (no engine involved).

use rookery_analysis::suite::{score_record, time_to_solution, Target};
use rookery_analysis::{Analysis, Progress, Score};
use rookery_core::{Move, Position, San};
use rookery_epd::Record;
use rookery_report::PositionResult;
use std::time::Duration;

fn mv(pos: &Position, san: &str) -> Move {
    san.parse::<San>().unwrap().to_move(pos).unwrap()
}

/// A search whose main line changed as `steps` says: (time ms, nodes, move, score).
fn analysis(pos: &Position, steps: &[(u64, u64, &str, Score)], elapsed_ms: u64) -> Analysis {
    let history: Vec<Progress> = steps
        .iter()
        .enumerate()
        .map(|(i, &(t, n, m, s))| Progress {
            time_ms: t,
            nodes: n,
            depth: i as u32 + 1,
            best: mv(pos, m),
            score: Some(s),
        })
        .collect();
    let last = history.last().unwrap().clone();
    Analysis {
        best: Some(last.best),
        pv: vec![last.best],
        other_lines: Vec::new(),
        score: last.score,
        depth: last.depth,
        nodes: last.nodes + 100,
        elapsed: Duration::from_millis(elapsed_ms),
        history,
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// A record of the start position with `ops` (`bm e4; id "x";`).
fn start_record(ops: &str) -> Record {
    format!("{START} {ops}")
        .parse()
        .unwrap_or_else(|e| panic!("{ops}: {e}"))
}

/// `rec` scored as position `index` after a search of its position that
/// went as `steps` say and took `elapsed_ms`.
fn scored(
    index: usize,
    rec: &Record,
    steps: &[(u64, u64, &str, Score)],
    elapsed_ms: u64,
) -> PositionResult {
    let a = analysis(rec.position(), steps, elapsed_ms);
    score_record(index, rec, Some(&a), None)
}

#[test]
fn bm_with_time_to_solution() {
    let rec = start_record("bm e4 d4; id \"bm\";");
    // Right at 10 ms, wrong at 20 ms, right again from 35 ms on: the solution
    // time is 35 ms, when it became right for good.
    let row = scored(
        1,
        &rec,
        &[
            (10, 1_000, "e4", Score::Cp(30)),
            (20, 5_000, "Nf3", Score::Cp(25)),
            (35, 9_000, "d4", Score::Cp(28)),
            (80, 40_000, "e4", Score::Cp(31)),
        ],
        100,
    );
    assert!(row.solved);
    assert_eq!((row.points, row.max_points), (1, 1));
    assert_eq!(row.time_to_solution_ms, Some(35));
    assert_eq!(row.nodes_to_solution, Some(9_000));
    assert_eq!(row.answer.as_deref(), Some("e4"));
    assert_eq!(row.expected.bm, vec!["e4", "d4"]);
    assert_eq!(row.id.as_deref(), Some("bm"));
}

#[test]
fn bm_missed_has_no_solution_time() {
    let row = scored(
        2,
        &start_record("bm e4;"),
        &[
            (10, 1_000, "e4", Score::Cp(30)),
            (50, 8_000, "c4", Score::Cp(20)),
        ],
        100,
    );
    assert!(!row.solved);
    assert_eq!(row.points, 0);
    assert_eq!(row.time_to_solution_ms, None);
}

#[test]
fn am_any_other_move_solves() {
    let rec = start_record("am f3 g4;");
    let row = scored(
        3,
        &rec,
        &[
            (5, 100, "g4", Score::Cp(-50)),
            (9, 900, "Nc3", Score::Cp(10)),
        ],
        20,
    );
    assert!(row.solved);
    assert_eq!(row.time_to_solution_ms, Some(9));
    let bad = [(5, 100, "e4", Score::Cp(20)), (9, 900, "f3", Score::Cp(10))];
    assert!(!scored(3, &rec, &bad, 20).solved);
}

#[test]
fn sts_points_from_c0() {
    let rec = start_record("bm e4; c0 \"e4=10, d4=8, Nf3=5, c4=3\";");
    let pos = rec.position().clone();
    let target = Target::from_record(&rec);
    assert_eq!(target.max_points(), 10);
    assert_eq!(target.points_for(mv(&pos, "d4")), 8);
    assert_eq!(target.points_for(mv(&pos, "a3")), 0);
    // Second-best move: not solved (bm is e4) but 8 points.
    let row = scored(4, &rec, &[(5, 100, "d4", Score::Cp(20))], 10);
    assert!(!row.solved);
    assert_eq!((row.points, row.max_points), (8, 10));
    assert_eq!(row.expected.points[0], ("e4".to_string(), 10));
    // Points only (no bm): solved means the top-scoring move.
    let rec = start_record("c0 \"Nf3=10, d4=8\";");
    let row = scored(5, &rec, &[(5, 100, "Nf3", Score::Cp(20))], 10);
    assert!(row.solved);
    assert_eq!(row.points, 10);
}

#[test]
fn dm_needs_a_short_enough_mate() {
    // A back-rank mate (Ra8#); dm 2 accepts any mate in at most two.
    let rec: Record = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - dm 2;".parse().unwrap();
    let long = [(5, 100, "Ra8+", Score::Mate(3))];
    assert!(!scored(6, &rec, &long, 10).solved);
    let row = scored(
        6,
        &rec,
        &[
            (5, 100, "Ra7", Score::Cp(300)),
            (12, 700, "Ra8+", Score::Mate(2)),
            (20, 900, "Ra8+", Score::Mate(1)),
        ],
        30,
    );
    assert!(row.solved);
    assert_eq!(row.time_to_solution_ms, Some(12));
    assert_eq!(row.expected.dm, Some(2));
}

#[test]
fn error_rows_are_kept() {
    let rec = start_record("bm e4; id \"x\";");
    let row = score_record(7, &rec, None, Some("engine crashed".into()));
    assert!(!row.solved);
    assert_eq!(row.error.as_deref(), Some("engine crashed"));
    assert_eq!(row.answer, None);
}

#[test]
fn no_history_right_answer_counts_at_the_end() {
    let rec = start_record("bm e4;");
    let mut a = analysis(rec.position(), &[(5, 100, "e4", Score::Cp(20))], 40);
    a.history.clear();
    let t = time_to_solution(&Target::from_record(&rec), &a);
    assert_eq!(t, Some((40, 200)));
}
