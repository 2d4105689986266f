//! `to-epd` against an independent writer: pgn-reader + shakmaty writing the
//! same records (the peer of the speed figures, `benches/common.rs`) must
//! give the same bytes, on the well-formed test files and, when the shared
//! corpora are there, on TCEC and twic.
//!
//! Files where the two readers are meant to differ are left out: rookery
//! reads coordinate moves and null moves where SAN belongs, decodes Latin-1,
//! and numbers a tag section with no movetext as a game of its own.

#[path = "../benches/common.rs"]
mod peers;

use rookery_pgn::convert::EpdOptions;
use rookery_pgn::stream::{run, Plan, Task};

/// What `rookery pgn to-epd -q` writes for `bytes` (one thread).
fn ours(bytes: &[u8]) -> Vec<u8> {
    let mut plan = Plan::new(Task::ToEpd {
        fen: false,
        opts: EpdOptions::default(),
    });
    plan.quiet = true;
    let mut out = Vec::new();
    run(
        &plan,
        rookery_pgn::source::Source::reader(bytes),
        "test",
        &mut |_| {},
        &mut |part| {
            out.extend_from_slice(&part.text);
            Ok::<(), std::io::Error>(())
        },
    )
    .unwrap();
    out
}

/// What the pgn-reader + shakmaty writer writes for `bytes`, with its
/// count of records.
fn theirs(bytes: &[u8]) -> (Vec<u8>, u64) {
    let mut reader = pgn_reader::Reader::new(bytes);
    let mut writer = peers::ShakmatyEpdWriter {
        out: Vec::new(),
        games: 0,
        lines: 0,
        errors: 0,
    };
    while reader.read_game(&mut writer).unwrap().is_some() {}
    (writer.out, writer.lines)
}

fn same(name: &str, bytes: &[u8]) -> u64 {
    let (want, records) = theirs(bytes);
    let got = ours(bytes);
    if got != want {
        let first = got
            .split(|&b| b == b'\n')
            .zip(want.split(|&b| b == b'\n'))
            .position(|(a, b)| a != b);
        panic!(
            "{name}: to-epd differs from the shakmaty writer, first at record {first:?}\nours:   {:?}\ntheirs: {:?}",
            first.and_then(|i| got.split(|&b| b == b'\n').nth(i).map(String::from_utf8_lossy)),
            first.and_then(|i| want.split(|&b| b == b'\n').nth(i).map(String::from_utf8_lossy)),
        );
    }
    records
}

#[test]
fn to_epd_writes_what_shakmaty_writes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut records = 0;
    for name in [
        "chessbase-empty-line.pgn",
        "chessjs-1.pgn",
        "chessjs-3-setup-black-first.pgn",
        "cutechess-fischerrandom.pgn",
        "kasparov-deep-blue-1997.pgn",
        "lichess_db_10k.pgn",
        "nepomniachtchi-liren-game1.pgn",
        "pe-bots.pgn",
        "pe-fifty.pgn",
        "pe-fischer.pgn",
        "pe-fixresulttags-in.pgn",
        "pe-repetition.pgn",
        "pe-setup-in.pgn",
        "pe-seventyfive.pgn",
        "stockfish-learning.pgn",
        "twic1599_10k.pgn",
        "utf8-bom.pgn",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        records += same(name, &bytes);
    }
    // Chess960 castling, promotions, checks, mates, en passant and set-up
    // positions are among them.
    assert!(records > 8_000, "{records} records compared");
    for (name, bytes) in peers::corpora() {
        if !name.starts_with("tests/data") {
            same(&name, &bytes);
        }
    }
}
