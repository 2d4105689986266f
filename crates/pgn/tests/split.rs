//! Reading a stream cut into chunks (any chunk size) gives exactly what
//! reading it at once gives: same games, indices, locations, errors, warnings.

use rookery_pgn::split::Splitter;
use rookery_pgn::Games;

fn summary(g: &rookery_pgn::ReadGame) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?} {:?}",
        g.index, g.at, g.game.tags, g.game.mainline, g.error, g.warnings
    )
}

#[test]
fn chunked_reading_is_sequential_reading() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    // All files at once too, as one stream.
    let mut all = Vec::new();
    for f in &files {
        all.extend(std::fs::read(f).unwrap());
    }
    let mut inputs: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    inputs.push(all);
    for bytes in &inputs {
        let whole: Vec<String> = Games::new(&bytes[..])
            .map(|g| summary(&g.unwrap()))
            .collect();
        for target in [1, 100, 3000, 1 << 20] {
            let mut parts = Vec::new();
            let mut total = 0;
            for chunk in Splitter::new(&bytes[..], target) {
                let chunk = chunk.unwrap();
                let games: Vec<String> = chunk.games().map(|g| summary(&g.unwrap())).collect();
                assert_eq!(
                    games.len(),
                    chunk.games,
                    "{:?}",
                    String::from_utf8_lossy(&chunk.bytes)
                );
                total += chunk.bytes.len();
                parts.extend(games);
            }
            assert_eq!(parts, whole, "target {target}");
            assert!(total <= bytes.len());
        }
    }
}
