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
    match depth {
        0 => 1,
        1 => pos.count_legal(),
        _ => {
            let moves = pos.legal_moves();
            let mut total = 0;
            for &m in moves.iter() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                total += perft(&child, depth - 1);
            }
            total
        }
    }
}

/// Like [`perft`] but plays every move down to the leaves (no bulk counting);
/// slower, and a stricter test of making moves.
pub fn perft_full(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    let mut total = 0;
    for &m in moves.iter() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        total += perft_full(&child, depth - 1);
    }
    total
}

/// The perft count below each legal move, in move-generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let depth = depth.max(1);
    pos.legal_moves()
        .iter()
        .map(|&m| (m, perft(&pos.after(m), depth - 1)))
        .collect()
}

/// [`divide`] spread over `threads` threads (root moves handed out one at a
/// time); the result is in the same order as [`divide`].
pub fn divide_parallel(pos: &Position, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    let depth = depth.max(1);
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
