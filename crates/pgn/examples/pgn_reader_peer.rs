//! The peer program for whole-process timings of `rookery pgn stats`,
//! `validate` and `to-epd`: reads a PGN file with pgn-reader 0.29 and
//! shakmaty 0.30 (streaming from the file, one thread), resolves and plays
//! every mainline SAN (variations skipped), and prints
//! `games plies errors`. With `--epd` it also writes to standard output
//! what `rookery pgn to-epd` writes (one EPD record a mainline position),
//! the peer of `to-epd`, and prints `games records errors` to standard
//! error. Time it beside rookery as one process each, e.g.
//! `hyperfine 'target/release/examples/pgn_reader_peer F' 'target/release/rookery pgn stats --jobs 1 F'`.
//!
//! `cargo build --release -p rookery-pgn --example pgn_reader_peer`

#[path = "../benches/common.rs"]
mod common;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (epd, path) = match (args.next(), args.next()) {
        (Some(flag), Some(path)) if flag == "--epd" => (true, path),
        (Some(path), None) if path != "--epd" => (false, path),
        _ => {
            eprintln!("usage: pgn_reader_peer [--epd] FILE.pgn");
            std::process::exit(2);
        }
    };
    let mut reader = pgn_reader::Reader::new(std::fs::File::open(path)?);
    if epd {
        let stdout = std::io::stdout().lock();
        let mut writer = common::ShakmatyEpdWriter {
            out: std::io::BufWriter::with_capacity(1 << 16, stdout),
            games: 0,
            lines: 0,
            errors: 0,
        };
        while reader.read_game(&mut writer)?.is_some() {}
        std::io::Write::flush(&mut writer.out)?;
        eprintln!("{} {} {}", writer.games, writer.lines, writer.errors);
        return Ok(());
    }
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
