//! Test-suite scoring: bm (any listed move), am (none of them), STS points
//! from `c0` ("Nf5=10, Nd2=3"), dm (a mate no longer than dm), the mate
//! notation of matetrack's suites (`bm #N`: a mate in at most N; `bm #-N`:
//! the side to move gets mated, any move is right), and the time and nodes
//! to solution (when the best move last became, and stayed, right).
//!
//! What a position asks for, and whether a move gives it, is
//! [`rookery_report::target`] (shared with Gastric's EPD input); this module
//! adds what a live analysis knows: the time and nodes to solution.

use crate::analyst::Analysis;
use rookery_core::Fen;
use rookery_epd::Record;
use rookery_report::target::line_san;
pub use rookery_report::target::{chest_mate, parse_points, Target};
use rookery_report::PositionResult;

/// When the main line's best move last became right and stayed right:
/// `(time_ms, nodes)` of that report, if the final answer is right.
pub fn time_to_solution(target: &Target, analysis: &Analysis) -> Option<(u64, u64)> {
    let mut since = None;
    for p in &analysis.history {
        if target.solved_by(p.best, p.score) {
            since.get_or_insert((p.time_ms, p.nodes));
        } else {
            since = None;
        }
    }
    let best = analysis.best?;
    if !target.solved_by(best, analysis.score) {
        return None;
    }
    // A right answer never reported in a main line (e.g. a very short search):
    // it became right at the end.
    since.or(Some((analysis.elapsed.as_millis() as u64, analysis.nodes)))
}

/// Scores one analysed record into a report row.
pub fn score_record(
    index: usize,
    record: &Record,
    analysis: Option<&Analysis>,
    error: Option<String>,
) -> PositionResult {
    let pos = record.position();
    let target = Target::from_record(record);
    let fen = Fen::from_position(pos).epd().to_string();
    let mut row = PositionResult {
        id: record.id().map(str::to_string),
        error,
        ..PositionResult::unanswered(index, fen, target.expected(pos), target.max_points())
    };
    let Some(a) = analysis else { return row };
    row.nodes = Some(a.nodes);
    row.time_ms = Some(a.elapsed.as_millis() as u64);
    row.depth = Some(a.depth);
    row.score = a.score;
    row.pv = line_san(pos, &a.pv);
    if let Some(best) = a.best {
        row.answer = Some(record.san(best));
        row.solved = target.solved_by(best, a.score);
        row.points = target.points_scored(best, row.solved);
        if let Some((t, n)) = time_to_solution(&target, a) {
            row.time_to_solution_ms = Some(t);
            row.nodes_to_solution = Some(n);
        }
    }
    row
}
