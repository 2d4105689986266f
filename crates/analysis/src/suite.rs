//! Test-suite scoring: bm (any listed move), am (none of them), STS points
//! from `c0` ("Nf5=10, Nd2=3"), dm (a mate no longer than dm), the mate
//! notation of matetrack's suites (`bm #N`: a mate in at most N; `bm #-N`:
//! the side to move gets mated, any move is right), and the time and nodes
//! to solution (when the best move last became, and stayed, right).

use crate::analyst::{Analysis, Score};
use rookery_core::{Move, Position, San, SanPlus};
use rookery_epd::{Operation, RawOperand, Record};
use rookery_report::{Expected, PositionResult};

/// What a suite position asks for, resolved to moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// Best moves.
    pub bm: Vec<Move>,
    /// Moves to avoid.
    pub am: Vec<Move>,
    /// Mate in at most this many moves.
    pub dm: Option<u32>,
    /// Points per move (STS), best first.
    pub points: Vec<(Move, u32)>,
    /// The side to move gets mated in this many moves (`bm #-N`): any move is right.
    pub mated: Option<u32>,
}

/// The `N` of a `bm #N` / `bm #-N` operation (mate-in-N notation, kept by
/// the EPD reader as a raw operation), if the record has one.
pub fn chest_mate(record: &Record) -> Option<i32> {
    record.operations().find_map(|op| match op {
        Operation::Raw { opcode, operands } if opcode == "bm" => match operands.as_slice() {
            [RawOperand::Token(t)] => t.strip_prefix('#')?.parse::<i32>().ok(),
            _ => None,
        },
        _ => None,
    })
}

impl Target {
    /// Reads bm, am, dm and the STS points of `c0` from a record. A `c0`
    /// that is not of the `move=points, ...` form gives no points.
    pub fn from_record(record: &Record) -> Target {
        let pos = record.position();
        let mut t = Target {
            bm: record.bm().map(<[Move]>::to_vec).unwrap_or_default(),
            am: record.am().map(<[Move]>::to_vec).unwrap_or_default(),
            dm: record.dm().filter(|&d| d > 0).map(|d| d as u32),
            points: Vec::new(),
            mated: None,
        };
        match chest_mate(record) {
            Some(n) if n > 0 => {
                let n = n as u32;
                t.dm = Some(t.dm.map_or(n, |d| d.min(n)));
            }
            Some(n) if n < 0 => t.mated = Some(n.unsigned_abs()),
            _ => {}
        }
        if let Some(c0) = record.comment(0) {
            t.points = parse_points(pos, c0).unwrap_or_default();
        }
        t
    }

    /// Whether the position has anything to score.
    pub fn is_empty(&self) -> bool {
        self.bm.is_empty()
            && self.am.is_empty()
            && self.dm.is_none()
            && self.points.is_empty()
            && self.mated.is_none()
    }

    /// The most points the position offers (1 for a bm/am/dm position, 0
    /// for one that asks for nothing).
    pub fn max_points(&self) -> u32 {
        if self.is_empty() {
            return 0;
        }
        self.points.iter().map(|p| p.1).max().unwrap_or(1)
    }

    /// Whether `best` (with `score`) solves the position.
    pub fn solved_by(&self, best: Move, score: Option<Score>) -> bool {
        if self.is_empty() {
            return false;
        }
        // Mated whatever it does: any (legal) move is right.
        if self.mated.is_some() {
            return true;
        }
        if let Some(dm) = self.dm {
            if !score.is_some_and(|s| s.mates_within(dm)) {
                return false;
            }
        }
        if !self.bm.is_empty() && !self.bm.contains(&best) {
            return false;
        }
        if self.am.contains(&best) {
            return false;
        }
        if self.bm.is_empty() && !self.points.is_empty() {
            return self.points_for(best) == self.max_points();
        }
        true
    }

    /// Points scored by playing `m`.
    pub fn points_for(&self, m: Move) -> u32 {
        self.points.iter().find(|p| p.0 == m).map_or(0, |p| p.1)
    }
}

/// Parses STS-style points: `"Nf5=10, Nd2=3, Nc2=2"` (SAN moves of `pos`).
pub fn parse_points(pos: &Position, text: &str) -> Option<Vec<(Move, u32)>> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (mv, pts) = part.split_once('=')?;
        let m = San::from_ascii(mv.trim().as_bytes())
            .ok()?
            .to_move(pos)
            .ok()?;
        let p: u32 = pts.trim().parse().ok()?;
        out.push((m, p));
    }
    out.sort_by_key(|p| std::cmp::Reverse(p.1));
    (!out.is_empty()).then_some(out)
}

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

fn san(pos: &Position, m: Move) -> String {
    SanPlus::from_move(pos, m).to_string()
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
    let expected = Expected {
        bm: target.bm.iter().map(|&m| san(pos, m)).collect(),
        am: target.am.iter().map(|&m| san(pos, m)).collect(),
        dm: target.dm,
        points: target
            .points
            .iter()
            .map(|&(m, p)| (san(pos, m), p))
            .collect(),
        mated: target.mated,
    };
    let fen = rookery_core::Fen::from_position(pos).epd().to_string();
    let mut row = PositionResult {
        index,
        id: record.id().map(str::to_string),
        fen,
        expected,
        answer: None,
        pv: Vec::new(),
        score: None,
        depth: None,
        nodes: 0,
        time_ms: 0,
        solved: false,
        points: 0,
        max_points: target.max_points(),
        time_to_solution_ms: None,
        nodes_to_solution: None,
        error,
    };
    let Some(a) = analysis else { return row };
    row.nodes = a.nodes;
    row.time_ms = a.elapsed.as_millis() as u64;
    row.depth = Some(a.depth);
    row.score = a.score;
    let mut p = pos.clone();
    for &m in &a.pv {
        row.pv.push(san(&p, m));
        p.play_unchecked(m);
    }
    if let Some(best) = a.best {
        row.answer = Some(san(pos, best));
        row.solved = target.solved_by(best, a.score);
        row.points = if target.points.is_empty() {
            u32::from(row.solved)
        } else {
            target.points_for(best)
        };
        if let Some((t, n)) = time_to_solution(&target, a) {
            row.time_to_solution_ms = Some(t);
            row.nodes_to_solution = Some(n);
        }
    }
    row
}
