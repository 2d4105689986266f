//! The peer program for whole-process timings of `rookery pgn stats`,
//! `validate` and `to-epd`: reads a PGN file with pgn-reader 0.29 and
//! shakmaty 0.30 (streaming from the file, one thread), resolves and plays
//! every mainline SAN (variations skipped), and prints
//! `games plies errors`. Time it beside rookery as one process each, e.g.
//! `hyperfine 'target/release/examples/pgn_reader_peer F' 'target/release/rookery pgn stats --jobs 1 F'`.
//!
//! `cargo build --release -p rookery-pgn --example pgn_reader_peer`

#[path = "../benches/common.rs"]
mod common;

fn main() -> std::io::Result<()> {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: pgn_reader_peer FILE.pgn");
        std::process::exit(2);
    };
    let mut reader = pgn_reader::Reader::new(std::fs::File::open(path)?);
    let mut player = common::ShakmatyPlayer {
        plies: 0,
        errors: 0,
    };
    let mut games = 0u64;
    while reader.read_game(&mut player)?.is_some() {
        games += 1;
    }
    println!("{games} {} {}", player.plies, player.errors);
    Ok(())
}
