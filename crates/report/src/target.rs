//! What a test-suite position asks for, and whether an answer gives it: the
//! one home of suite scoring, shared by Gastric's EPD input
//! ([`crate::epd_run`]) and the `suite` verb of rookery-analysis.
//!
//! A record asks for `bm` (any of the moves), `am` (none of them), `dm` (a
//! mate in at most that many moves), STS points in `c0`
//! (`"f5=10, Be5+=2, Bf2=3"`), or, in matetrack's notation, `bm #N` (a mate
//! in at most N) and `bm #-N` (the side to move gets mated: any move is
//! right).
//!
//! ```
//! use rookery_epd::Record;
//! use rookery_report::target::Target;
//! let rec: Record = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#;".parse().unwrap();
//! let target = Target::from_record(&rec);
//! let best = rec.bm().unwrap()[0];
//! assert!(target.solved_by(best, None));
//! assert_eq!(target.max_points(), 1);
//! ```

use crate::model::{Expected, Score};
use rookery_core::{Move, Position, San, SanPlus};
use rookery_epd::{Operation, RawOperand, Record};

/// What a suite position asks for, resolved to moves of its position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// Best moves (`bm`): any of them solves the position.
    pub bm: Vec<Move>,
    /// Moves to avoid (`am`).
    pub am: Vec<Move>,
    /// Mate in at most this many moves (`dm`, or matetrack's `bm #N`).
    pub dm: Option<u32>,
    /// Points per move (STS, from `c0`), best first.
    pub points: Vec<(Move, u32)>,
    /// The side to move gets mated in this many moves (`bm #-N`): any move is right.
    pub mated: Option<u32>,
}

/// A problem with one operation of a record: the 1-based column of its
/// opcode and what is wrong.
pub type OperandProblem = (u32, String);

impl Target {
    /// Reads bm, am, dm, `bm #N` and the STS points of `c0` from a record. A
    /// `c0` that is not of the `move=points, ...` form (a game's source, a
    /// remark) gives no points; one of that form naming a move that is not
    /// legal gives none either (see [`Target::with_problems`] to hear of it).
    pub fn from_record(record: &Record) -> Target {
        Target::with_problems(record).0
    }

    /// As [`Target::from_record`], with the problems found: a `c0` of points
    /// that cannot be read, with its column.
    pub fn with_problems(record: &Record) -> (Target, Vec<OperandProblem>) {
        let mut t = Target {
            bm: record.bm().map(<[Move]>::to_vec).unwrap_or_default(),
            am: record.am().map(<[Move]>::to_vec).unwrap_or_default(),
            dm: record
                .dm()
                .and_then(|d| u32::try_from(d).ok())
                .filter(|&d| d > 0),
            points: Vec::new(),
            mated: None,
        };
        match chest_mate(record) {
            Some(n) if n > 0 => {
                let n = n.unsigned_abs();
                t.dm = Some(t.dm.map_or(n, |d| d.min(n)));
            }
            Some(n) if n < 0 => t.mated = Some(n.unsigned_abs()),
            _ => {}
        }
        let mut problems = Vec::new();
        for (op, column) in record.operations_with_columns() {
            if let Operation::Comment(0, Some(text)) = op {
                if looks_like_points(text) {
                    match parse_points(record.position(), text) {
                        Ok(p) => t.points = p,
                        Err(e) => problems.push((column, format!("c0 points: {e}"))),
                    }
                }
            }
        }
        (t, problems)
    }

    /// Whether the position asks for anything that can be scored.
    pub fn is_empty(&self) -> bool {
        let moves = self.bm.is_empty() && self.am.is_empty() && self.points.is_empty();
        moves && self.dm.is_none() && self.mated.is_none()
    }

    /// The most points the position offers (1 for a bm/am/dm position, 0
    /// for one that asks for nothing).
    pub fn max_points(&self) -> u32 {
        if self.is_empty() {
            return 0;
        }
        self.points.iter().map(|p| p.1).max().unwrap_or(1)
    }

    /// Points scored by playing `m` (STS points; 0 for a move without).
    pub fn points_for(&self, m: Move) -> u32 {
        self.points.iter().find(|p| p.0 == m).map_or(0, |p| p.1)
    }

    /// Points scored by the answer `best`, which `solved` says solves the
    /// position or not: its STS points where the position has points, else
    /// 1 or 0.
    pub fn points_scored(&self, best: Move, solved: bool) -> u32 {
        if self.points.is_empty() {
            u32::from(solved)
        } else {
            self.points_for(best)
        }
    }

    /// Whether `best`, with the engine's `score`, solves the position. A
    /// `dm` needs a score saying mate in at most `dm` moves.
    pub fn solved_by(&self, best: Move, score: Option<Score>) -> bool {
        self.solved(best, |dm| score.is_some_and(|s| s.mates_within(dm)))
    }

    /// As [`Target::solved_by`], but a `dm` is also met by `line` (the
    /// principal variation from `pos`, starting with `best`) when it is legal
    /// and ends in checkmate within `2*dm - 1` plies: so an analysis written
    /// without a mate score is scored by the line it gives.
    pub fn solved_by_line(
        &self,
        pos: &Position,
        best: Move,
        score: Option<Score>,
        line: &[Move],
    ) -> bool {
        self.solved(best, |dm| {
            score.is_some_and(|s| s.mates_within(dm))
                || (line.first() == Some(&best) && mates_within(pos, line, 2 * u64::from(dm) - 1))
        })
    }

    /// The rules of [`Target::solved_by`], with the test a `dm` needs.
    fn solved(&self, best: Move, dm_met: impl FnOnce(u32) -> bool) -> bool {
        if self.is_empty() {
            return false;
        }
        // Mated whatever it does: any (legal) move is right.
        if self.mated.is_some() {
            return true;
        }
        if self.dm.is_some_and(|dm| !dm_met(dm)) {
            return false;
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

    /// What the position asks for, in SAN of `pos` (the report's form).
    pub fn expected(&self, pos: &Position) -> Expected {
        let san = |m: Move| SanPlus::from_move(pos, m).to_string();
        Expected {
            bm: self.bm.iter().map(|&m| san(m)).collect(),
            am: self.am.iter().map(|&m| san(m)).collect(),
            dm: self.dm,
            points: self.points.iter().map(|&(m, n)| (san(m), n)).collect(),
            mated: self.mated,
        }
    }
}

/// The moves of `line`, played from `pos`, in SAN with check marks; stops
/// at the first move that is not legal (a line is written as far as it can
/// be read, never with a panic).
pub fn line_san(pos: &Position, line: &[Move]) -> Vec<String> {
    let mut out = Vec::with_capacity(line.len());
    let mut p = pos.clone();
    for &m in line {
        if !p.is_legal(m) {
            break;
        }
        out.push(SanPlus::from_move(&p, m).to_string());
        p.play_unchecked(m);
    }
    out
}

/// The `N` of a `bm #N` / `bm #-N` operation (matetrack's mate notation,
/// which the EPD reader keeps as a raw operation), if the record has one.
pub fn chest_mate(record: &Record) -> Option<i32> {
    record.operations().find_map(|op| match op {
        Operation::Raw { opcode, operands } if opcode == "bm" => match operands.as_slice() {
            [RawOperand::Token(t)] => t.strip_prefix('#')?.parse::<i32>().ok(),
            _ => None,
        },
        _ => None,
    })
}

/// Whether `text` is of the STS points form `move=N, move=N, ...`.
fn looks_like_points(text: &str) -> bool {
    let mut any = false;
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((mv, n)) = part.split_once('=') else {
            return false;
        };
        let n = n.trim();
        if mv.trim().is_empty() || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        any = true;
    }
    any
}

/// Parses STS points, `"Nf5=10, Nd2=3, Nc2=2"` (SAN moves of `pos`), best
/// first.
///
/// # Errors
/// A message naming the first part that is not `move=points`, the first
/// move that is not a legal SAN move of `pos`, or the first count that is
/// not a number.
pub fn parse_points(pos: &Position, text: &str) -> Result<Vec<(Move, u32)>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((mv, n)) = part.split_once('=') else {
            return Err(format!("{part:?} is not move=points"));
        };
        let mv = mv.trim();
        let m = San::from_ascii(mv.as_bytes())
            .ok()
            .and_then(|san| san.to_move(pos).ok())
            .ok_or_else(|| format!("{mv:?} is not a legal move here"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("{:?} is not a number of points", n.trim()))?;
        out.push((m, n));
    }
    out.sort_by_key(|p| std::cmp::Reverse(p.1));
    Ok(out)
}

/// Whether `line` from `pos` is legal and ends in checkmate within `plies`.
fn mates_within(pos: &Position, line: &[Move], plies: u64) -> bool {
    let mut p = pos.clone();
    for (i, &m) in line.iter().enumerate() {
        if i as u64 >= plies || !p.is_legal(m) {
            return false;
        }
        p.play_unchecked(m);
        if p.is_checkmate() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bm_am_and_points() {
        let r = rec(
            "1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - c0 \"f5=10, Be5+=2, Bf2=3\";",
        );
        let t = Target::from_record(&r);
        let f5 = t.points[0].0;
        let bf2 = t.points[1].0;
        assert_eq!((t.max_points(), t.points_for(bf2)), (10, 3));
        assert!(t.solved_by(f5, None));
        assert!(!t.solved_by(bf2, None));
        assert_eq!(t.points_scored(bf2, false), 3);
        assert_eq!(t.expected(r.position()).points[1], ("Bf2".to_string(), 3));
    }

    #[test]
    fn bad_points_are_problems_and_no_points() {
        let text = "1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - c0 \"f5=10, Qh8=3\";";
        let (t, problems) = Target::with_problems(&rec(text));
        assert!(t.points.is_empty());
        let column = text.find("c0").unwrap() as u32 + 1;
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].0, column);
        assert!(problems[0].1.contains("\"Qh8\""), "{problems:?}");
    }

    #[test]
    fn dm_by_score_or_by_line() {
        let r = rec("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - dm 1;");
        let t = Target::from_record(&r);
        let mate = San::from_ascii(b"Rd8")
            .unwrap()
            .to_move(r.position())
            .unwrap();
        let quiet = San::from_ascii(b"Rd7")
            .unwrap()
            .to_move(r.position())
            .unwrap();
        assert!(t.solved_by(mate, Some(Score::Mate(1))));
        assert!(!t.solved_by(mate, Some(Score::Cp(900))));
        assert!(!t.solved_by(mate, None));
        assert!(t.solved_by_line(r.position(), mate, None, &[mate]));
        assert!(!t.solved_by_line(r.position(), quiet, None, &[quiet]));
    }

    #[test]
    fn matetrack_mate_notation() {
        let t = Target::from_record(&rec("k7/8/1K6/8/8/8/8/7R b - - bm #-1;"));
        assert_eq!((t.mated, t.max_points()), (Some(1), 1));
        let t = Target::from_record(&rec("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm #1; dm 3;"));
        assert_eq!(t.dm, Some(1));
    }

    #[test]
    fn line_san_stops_at_an_illegal_move() {
        let r = rec("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - -");
        let mate = San::from_ascii(b"Rd8")
            .unwrap()
            .to_move(r.position())
            .unwrap();
        assert_eq!(line_san(r.position(), &[mate, mate]), ["Rd8#"]);
    }

    /// A record of the test's text (the text is known to be valid).
    fn rec(text: &str) -> Record {
        text.parse().unwrap()
    }
}
