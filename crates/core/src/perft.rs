//! Perft: counting the leaf nodes of the legal move tree, the standard test
//! of a move generator.

use crate::moves::Move;
use crate::position::Position;

/// Counts the positions `depth` plies below `pos`, counting the last ply in
/// bulk (moves are counted, not played).
///
/// ```
/// use rookery_core::{perft, Position};
/// assert_eq!(perft(&Position::startpos(), 3), 8_902);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    walk::<true>(pos, depth)
}

/// Like [`perft`] but plays every move down to the leaves (no bulk counting);
/// slower, and a stricter test of making moves.
pub fn perft_full(pos: &Position, depth: u32) -> u64 {
    walk::<false>(pos, depth)
}

/// The tree walk of both: with `BULK`, the last ply is counted, not played.
fn walk<const BULK: bool>(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 if BULK => pos.count_legal(),
        _ => {
            let mut total = 0;
            for &m in pos.legal_moves().iter() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                total += walk::<BULK>(&child, depth - 1);
            }
            total
        }
    }
}

/// The perft count below each legal move, in move-generation order. At
/// depth 0 nothing is below the position (its perft is 1, the position
/// itself): the list is empty.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&m| (m, perft(&pos.after(m), depth - 1)))
        .collect()
}

/// [`divide`] spread over `threads` threads (root moves handed out one at a
/// time); the result is in the same order as [`divide`].
pub fn divide_parallel(pos: &Position, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let moves = pos.legal_moves();
    let threads = threads.clamp(1, moves.len().max(1));
    if threads == 1 || depth <= 2 {
        return divide(pos, depth);
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut counts = vec![0u64; moves.len()];
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&m) = moves.get(i) else { break };
                        mine.push((i, perft(&pos.after(m), depth - 1)));
                    }
                    mine
                })
            })
            .collect();
        for h in handles {
            // A perft worker only counts; it cannot panic on a legal position.
            for (i, n) in h.join().unwrap_or_default() {
                counts[i] = n;
            }
        }
    });
    moves.iter().copied().zip(counts).collect()
}

/// [`perft`] over `threads` threads.
pub fn perft_parallel(pos: &Position, depth: u32, threads: usize) -> u64 {
    if depth <= 1 || threads <= 1 {
        return perft(pos, depth);
    }
    divide_parallel(pos, depth, threads)
        .iter()
        .map(|(_, n)| n)
        .sum()
}

/// One position of a perft suite with its expected counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftCase {
    /// The `id` of a block, or `line N`.
    pub name: String,
    /// 1-based line of the FEN in the suite text.
    pub line: usize,
    /// The position as written.
    pub fen: String,
    /// `(depth, nodes)` pairs in the order given.
    pub counts: Vec<(u32, u64)>,
}

/// What checking one [`PerftCase`] found; see [`PerftCase::check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseOutcome {
    /// The FEN is not a position (read leniently).
    InvalidFen(crate::fen::FenError),
    /// The case gives no counts: an error in the suite, not a pass.
    NoCounts,
    /// Every count is deeper than the depth limit: nothing was checked.
    Skipped,
    /// Counted at the depths checked; `mismatches` holds
    /// `(depth, expected, counted)` for each count that differs.
    Checked {
        /// The depths checked, in the suite's order.
        depths: Vec<u32>,
        /// The counts that differ from the suite's.
        mismatches: Vec<(u32, u64, u64)>,
        /// Nodes counted over all depths checked.
        nodes: u64,
    },
}

impl CaseOutcome {
    /// Whether the case passed (counts checked, all equal) or was skipped.
    pub fn is_ok(&self) -> bool {
        match self {
            CaseOutcome::Skipped => true,
            CaseOutcome::Checked { mismatches, .. } => mismatches.is_empty(),
            CaseOutcome::InvalidFen(_) | CaseOutcome::NoCounts => false,
        }
    }
}

impl PerftCase {
    /// Counts the case's position at each of its depths up to `max_depth`
    /// (all with `None`) over `threads` threads, and compares with the
    /// suite's counts.
    pub fn check(&self, max_depth: Option<u32>, threads: usize) -> CaseOutcome {
        let pos = match Position::from_fen_lenient(&self.fen) {
            Ok((pos, _)) => pos,
            Err(e) => return CaseOutcome::InvalidFen(e),
        };
        if self.counts.is_empty() {
            return CaseOutcome::NoCounts;
        }
        let (mut depths, mut mismatches, mut nodes) = (Vec::new(), Vec::new(), 0);
        for &(depth, expected) in &self.counts {
            if max_depth.is_some_and(|max| depth > max) {
                continue;
            }
            let counted = perft_parallel(&pos, depth, threads.max(1));
            nodes += counted;
            depths.push(depth);
            if counted != expected {
                mismatches.push((depth, expected, counted));
            }
        }
        if depths.is_empty() {
            return CaseOutcome::Skipped;
        }
        CaseOutcome::Checked {
            depths,
            mismatches,
            nodes,
        }
    }
}

/// A line of a perft suite that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftSuiteError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in bytes).
    pub column: usize,
    /// What was expected.
    pub message: String,
}

impl core::fmt::Display for PerftSuiteError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for PerftSuiteError {}

/// Reads a perft suite in either common format: one `FEN ;D1 20 ;D2 400`
/// line per position, or blocks of `id NAME` / `epd FEN` / `perft DEPTH NODES`
/// lines. `#` starts a comment line; blank lines are ignored. A separator
/// glued to a number (`;D2 191; D3 2812`) is tolerated.
///
/// # Errors
/// The first line that is not in either format.
pub fn parse_perft_suite(text: &str) -> Result<Vec<PerftCase>, PerftSuiteError> {
    let mut cases: Vec<PerftCase> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_end();
        let indent = line.len() - line.trim_start().len();
        let line = line.trim_start();
        let col = |offset: usize| indent + offset + 1;
        let bad = |offset: usize, message: &str| PerftSuiteError {
            line: line_no,
            column: col(offset),
            message: message.to_string(),
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("id ") {
            cases.push(PerftCase {
                name: rest.trim().to_string(),
                line: line_no,
                fen: String::new(),
                counts: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("epd ") {
            let case = cases
                .last_mut()
                .ok_or_else(|| bad(0, "`epd` line before any `id` line"))?;
            case.fen = rest.trim().to_string();
            case.line = line_no;
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let case = cases
                .last_mut()
                .ok_or_else(|| bad(0, "`perft` line before any `id` line"))?;
            let mut it = rest.split_whitespace();
            let depth = it.next().and_then(|d| d.parse().ok());
            let nodes = it.next().and_then(|n| n.parse().ok());
            match (depth, nodes, it.next()) {
                (Some(d), Some(n), None) => case.counts.push((d, n)),
                _ => return Err(bad(6, "expected `perft DEPTH NODES`")),
            }
        } else {
            let fen_end = line.find(';').unwrap_or(line.len());
            let fen = line[..fen_end].trim().to_string();
            let mut counts = Vec::new();
            let mut offset = fen_end;
            for part in line[fen_end..].split(';').skip(1) {
                let at = offset + 1;
                offset += part.len() + 1;
                let p = part.trim();
                if p.is_empty() {
                    continue;
                }
                let mut it = p.split_whitespace();
                let depth = it
                    .next()
                    .and_then(|d| d.strip_prefix('D').or_else(|| d.strip_prefix('d')))
                    .and_then(|d| d.parse().ok());
                let nodes = it.next().and_then(|n| n.parse().ok());
                match (depth, nodes, it.next()) {
                    (Some(d), Some(n), None) => counts.push((d, n)),
                    _ => return Err(bad(at, "expected `;D<depth> <nodes>`")),
                }
            }
            cases.push(PerftCase {
                name: format!("line {line_no}"),
                line: line_no,
                fen,
                counts,
            });
        }
    }
    Ok(cases)
}

#[cfg(test)]
mod depth_zero_tests {
    use super::*;

    #[test]
    fn divide_at_depth_zero_agrees_with_perft() {
        let pos = Position::startpos();
        assert_eq!(perft(&pos, 0), 1);
        assert!(divide(&pos, 0).is_empty());
        assert!(divide_parallel(&pos, 0, 2).is_empty());
        assert_eq!(divide(&pos, 1).len(), 20);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(fen: &str, counts: &[(u32, u64)]) -> PerftCase {
        PerftCase {
            name: "t".into(),
            line: 1,
            fen: fen.into(),
            counts: counts.to_vec(),
        }
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn a_case_is_checked_up_to_the_depth_limit() {
        let c = case(START, &[(1, 20), (2, 400), (3, 8_902)]);
        assert_eq!(
            c.check(Some(2), 1),
            CaseOutcome::Checked {
                depths: vec![1, 2],
                mismatches: vec![],
                nodes: 420,
            }
        );
        assert!(c.check(None, 2).is_ok());
    }

    #[test]
    fn a_wrong_count_is_a_mismatch() {
        let c = case(START, &[(1, 20), (2, 401)]);
        let outcome = c.check(None, 1);
        assert_eq!(
            outcome,
            CaseOutcome::Checked {
                depths: vec![1, 2],
                mismatches: vec![(2, 401, 400)],
                nodes: 420,
            }
        );
        assert!(!outcome.is_ok());
    }

    #[test]
    fn bad_fens_missing_counts_and_deep_counts() {
        assert!(matches!(
            case("not a fen", &[(1, 20)]).check(None, 1),
            CaseOutcome::InvalidFen(_)
        ));
        assert_eq!(case(START, &[]).check(None, 1), CaseOutcome::NoCounts);
        assert!(!CaseOutcome::NoCounts.is_ok());
        assert_eq!(
            case(START, &[(3, 8_902)]).check(Some(2), 1),
            CaseOutcome::Skipped
        );
    }
}
