//! Deeply nested variations (issue 13, item 1): a file with 100,000
//! variations each nested in the one before is read, written, read back,
//! compared, cloned and dropped, on the calling thread and on the worker
//! threads of `Source::for_each_piece` (whose stacks are smaller), without
//! exhausting any stack.

use std::path::{Path, PathBuf};

use rookery_pgn::source::{Reading, Source};
use rookery_pgn::{game_to_string, Games};

/// Levels of nesting in the committed file.
const LEVELS: usize = 100_000;

fn deep_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/deep/nested-100000.pgn")
}

/// The text of `tests/data/deep/nested-100000.pgn` for `levels` levels:
/// `1. e4 (` ten to a line, then the innermost `1. e4`, the closing
/// parentheses and `*`.
pub fn deep_pgn(levels: usize) -> String {
    let mut s = format!("[Event \"{levels} nested variations\"]\n[Result \"*\"]\n\n");
    let opens: Vec<&str> = vec!["1. e4 ("; levels];
    let lines: Vec<String> = opens.chunks(10).map(|c| c.join(" ")).collect();
    s.push_str(&lines.join("\n"));
    s.push_str("\n1. e4 ");
    s.push_str(&")".repeat(levels));
    s.push_str(" *\n");
    s
}

#[test]
fn the_committed_file_is_the_generators_output() {
    let text = std::fs::read_to_string(deep_file()).unwrap();
    assert!(
        text == deep_pgn(LEVELS),
        "regenerate with deep_pgn({LEVELS})"
    );
}

#[test]
fn nested_variations_are_read_written_and_dropped_without_recursion() {
    let bytes = std::fs::read(deep_file()).unwrap();
    let read: Vec<_> = Games::new(&bytes[..]).collect::<Result<_, _>>().unwrap();
    assert_eq!(read.len(), 1);
    let g = &read[0];
    assert!(g.error.is_none(), "{:?}", g.error);
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    assert_eq!(g.game.mainline.depth(), LEVELS);
    let text = game_to_string(&g.game);
    assert_eq!(text.matches('(').count(), LEVELS);
    let again = Games::new(text.as_bytes()).next().unwrap().unwrap();
    assert!(again.error.is_none());
    assert!(again.game.mainline == g.game.mainline);
    let copy = g.game.clone();
    assert!(copy.mainline == again.game.mainline);
    drop(read);
    drop(copy);
}

#[test]
fn nested_variations_on_worker_threads() {
    // Two copies of the game, so that two pieces go to two workers, each of
    // which reads, writes and drops a deep tree on its own (2 MiB) stack.
    let one = std::fs::read(deep_file()).unwrap();
    let mut bytes = one.clone();
    bytes.push(b'\n');
    bytes.extend_from_slice(&one);
    let mut depths = Vec::new();
    let reading = Reading {
        jobs: 2,
        chunk_bytes: one.len() / 2,
        detail: rookery_pgn::Detail::Full,
        decode: false,
    };
    Source::reader(&bytes[..])
        .for_each_piece(
            reading,
            &|games| {
                games
                    .map(|g| {
                        let text = game_to_string(&g.game);
                        (g.index, g.game.mainline.depth(), text.matches('(').count())
                    })
                    .collect::<Vec<_>>()
            },
            &mut |batch, _| -> std::io::Result<bool> {
                depths.extend(batch);
                Ok(true)
            },
        )
        .unwrap();
    assert_eq!(depths, [(1, LEVELS, LEVELS), (2, LEVELS, LEVELS)]);
}
