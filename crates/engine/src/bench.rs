//! The search benchmark: fixed positions searched to a fixed depth on one
//! thread with a fresh 16 MB table each. The total node count is a signature
//! of search behaviour: it changes only when the search or evaluation does.

use crate::{Config, Engine, Limits};
use rookery_core::Position;
use std::time::{Duration, Instant};

/// The bench positions (FEN), a mix of openings, middlegames and endgames.
pub const POSITIONS: [&str; 12] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8",
    "2r3k1/pp3ppp/4p3/3pP3/1P1Pn3/P3B1P1/5P1P/2R3K1 b - - 0 25",
    "8/8/1p2k3/p1p2p2/P1P2P2/1P2K3/8/8 w - - 0 40",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 13",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
];

/// The default bench depth.
pub const DEFAULT_DEPTH: u32 = 10;

/// The result of a bench run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes per position, in [`POSITIONS`] order.
    pub nodes: Vec<u64>,
    /// Total nodes (the signature).
    pub total_nodes: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// Runs the bench at `depth`.
pub fn run(depth: u32) -> BenchResult {
    let start = Instant::now();
    let mut nodes = Vec::with_capacity(POSITIONS.len());
    for fen in POSITIONS {
        let mut engine = Engine::new();
        // The engine starts with these sizes (16 MB, one thread): there is
        // nothing to allocate and both are in range, so this cannot fail.
        let pinned = engine.set_config(Config {
            hash_mb: 16,
            threads: 1,
            ..Config::default()
        });
        debug_assert!(pinned.is_ok(), "{pinned:?}");
        // The bench positions are fixed and valid.
        let pos = Position::from_fen(fen).unwrap_or_default();
        engine.set_position(pos, &[]);
        let out = engine.search_sync(Limits {
            depth: Some(depth),
            ..Limits::default()
        });
        nodes.push(out.nodes);
    }
    BenchResult {
        total_nodes: nodes.iter().sum(),
        nodes,
        elapsed: start.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn positions_are_valid() {
        for fen in super::POSITIONS {
            assert!(rookery_core::Position::from_fen(fen).is_ok(), "{fen}");
        }
    }

    #[test]
    fn deterministic() {
        let a = super::run(6);
        let b = super::run(6);
        assert_eq!(a.nodes, b.nodes);
        assert!(a.total_nodes > 1000);
    }
}
