//! The draw-rule limits have one home: `Position::is_fifty_moves`,
//! `Position::is_seventy_five_moves`, `Game::is_threefold_repetition`,
//! `Game::is_fivefold_repetition` and the constants beside them. This test
//! holds the line: no source file of the workspace compares the halfmove
//! clock or a repetition count with a number written out.

use rookery_core::{
    Game, Position, FIFTY_MOVE_HALFMOVES, FIVEFOLD_REPETITIONS, SEVENTY_FIVE_MOVE_HALFMOVES,
    THREEFOLD_REPETITIONS,
};
use std::path::{Path, PathBuf};

/// The places in `text` where `name` is compared with a numeric literal
/// (`halfmoves() >= 100`, `reps == 3`), as 1-based line numbers.
fn literal_comparisons(text: &str, name: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find(name) {
            let after = rest[at + name.len()..].trim_start();
            let op = ["<=", ">=", "==", "!=", "<", ">"]
                .into_iter()
                .find(|op| after.starts_with(op));
            if let Some(op) = op {
                if after[op.len()..]
                    .trim_start()
                    .starts_with(|c: char| c.is_ascii_digit())
                {
                    out.push(i + 1);
                }
            }
            rest = &rest[at + name.len()..];
        }
    }
    out
}

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if p.is_dir() {
            if name != "target" && name != ".git" {
                rust_sources(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_checker_finds_a_literal_limit() {
    // The check must be able to fail: each form it looks for is caught.
    assert_eq!(
        literal_comparisons("if pos.halfmoves() >= 100 {", "halfmoves()"),
        [1]
    );
    assert_eq!(
        literal_comparisons("x\nif self.repetitions()>=3 {}", "repetitions()"),
        [2]
    );
    assert_eq!(literal_comparisons("if reps == 5 {", "reps"), [1]);
    assert!(
        literal_comparisons("pos.halfmoves() >= FIFTY_MOVE_HALFMOVES", "halfmoves()").is_empty()
    );
    assert!(literal_comparisons("// halfmoves() >= 100", "halfmoves()").is_empty());
}

#[test]
fn no_draw_limit_literal_in_the_workspace() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    rust_sources(&root.join("crates"), &mut files);
    rust_sources(&root.join("fuzz"), &mut files);
    assert!(files.len() > 50, "the workspace's sources were not found");
    let mut found = Vec::new();
    for f in &files {
        // This file spells the forms out to test the checker.
        if f.ends_with("draw_limits.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for name in ["halfmoves()", "halfmoves", "repetitions()", "reps"] {
            for line in literal_comparisons(&text, name) {
                found.push(format!("{}:{line}", f.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "draw-rule limits written as numbers (use Position::is_fifty_moves, \
         is_seventy_five_moves, Game::is_threefold_repetition, is_fivefold_repetition):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_helpers_follow_the_rules() {
    assert_eq!(FIFTY_MOVE_HALFMOVES, 100);
    assert_eq!(SEVENTY_FIVE_MOVE_HALFMOVES, 150);
    assert_eq!((THREEFOLD_REPETITIONS, FIVEFOLD_REPETITIONS), (3, 5));
    let at = |halfmoves: u32| -> Position {
        Position::from_fen(&format!("4k3/8/8/8/8/8/8/R3K3 w - - {halfmoves} 80")).unwrap()
    };
    assert!(!at(99).is_fifty_moves());
    assert!(at(100).is_fifty_moves() && !at(100).is_seventy_five_moves());
    assert!(!at(149).is_seventy_five_moves());
    assert!(at(150).is_seventy_five_moves());

    // Knights out and back: the start position again after every 4 plies.
    let mut g = Game::new(Position::startpos());
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
    let mut seen = 1;
    while seen < FIVEFOLD_REPETITIONS {
        for uci in shuffle {
            let m = rookery_core::UciMove::from_ascii(uci.as_bytes())
                .unwrap()
                .to_move(g.position())
                .unwrap();
            g.play(m).unwrap();
        }
        seen += 1;
        assert_eq!(g.repetitions(), seen);
        assert_eq!(g.is_threefold_repetition(), seen >= 3, "{seen}");
        assert_eq!(g.is_fivefold_repetition(), seen >= 5, "{seen}");
    }
}
