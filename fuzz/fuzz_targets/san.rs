//! SAN reader: the first byte picks a position, the rest is SAN text. A move
//! found must be legal, and the SAN we write for it must read back to it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_core::{Position, San, SanPlus};

const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "1k6/8/8/8/8/2N1N3/8/1N1NK3 w - - 0 1",
];

fuzz_target!(|data: &[u8]| {
    let Some((&which, text)) = data.split_first() else {
        return;
    };
    let pos = Position::from_fen(POSITIONS[usize::from(which) % POSITIONS.len()])
        .expect("fuzz position is valid");
    let _ = San::from_ascii(text);
    let Ok(sp) = SanPlus::from_ascii(text) else {
        return;
    };
    let _ = sp.to_string();
    if let Ok(m) = sp.san.to_move(&pos) {
        assert!(pos.is_legal(m));
        let ours = SanPlus::from_move(&pos, m).to_string();
        let again = San::from_ascii(ours.as_bytes()).expect("our SAN parses");
        assert_eq!(again.to_move(&pos), Ok(m), "{text:?} -> {ours}");
    }
});
