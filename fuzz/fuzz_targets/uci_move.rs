//! UCI move reader: the first byte picks a position, the rest is the move. A
//! move found must be legal and print back to text that reads to it again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_core::{CastlingMode, Position, UciMove};

const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "1r2k2r/8/8/8/8/8/8/R2K3R w HAhb - 0 1",
];

fuzz_target!(|data: &[u8]| {
    let Some((&which, text)) = data.split_first() else {
        return;
    };
    let pos = Position::from_fen(POSITIONS[usize::from(which) % POSITIONS.len()])
        .expect("fuzz position is valid");
    let Ok(uci) = UciMove::from_ascii(text) else {
        return;
    };
    let printed = uci.to_string();
    assert_eq!(UciMove::from_ascii(printed.as_bytes()), Ok(uci));
    if let Ok(m) = uci.to_move(&pos) {
        assert!(pos.is_legal(m));
        for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
            let ours = UciMove::from_move(&pos, m, mode);
            if mode == CastlingMode::Chess960 || !pos.is_chess960_castling() {
                assert_eq!(ours.to_move(&pos), Ok(m), "{printed} -> {ours}");
            }
        }
    }
});
