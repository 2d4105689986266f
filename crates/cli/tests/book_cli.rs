//! `rookery book` and Polyglot books in matches, against the peers:
//! python-chess 1.11.2 (`chess.polyglot.zobrist_hash` on every position of
//! random games with castling, en passant, pinned en passant capturers and
//! promotions; its book reader on the books we write; tests/python/
//! polyglot_check.py) and Polyglot itself (`polyglot make-book` and
//! `merge-book` on the same games: the same file, byte for byte).
//!
//! Peers missing: each test fails when `CI` is set, skips with a note
//! otherwise.

use crate::common::{rookery, s, ROOKERY};
use rookery_testkit::{peer, TempDir};
use std::path::Path;
use std::process::Command;

const CHECK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/python/polyglot_check.py"
);

/// Runs the python-chess checker with `args`; its standard output.
fn python(args: &[&str]) -> String {
    let o = Command::new("python3")
        .arg(CHECK)
        .args(args)
        .output()
        .expect("run python3");
    assert!(
        o.status.success(),
        "polyglot_check.py {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `rookery book ARGS`, which must succeed.
fn book(args: &[&str]) {
    let mut all = vec!["book"];
    all.extend_from_slice(args);
    rookery(&all, b"").assert_code(0);
}

/// `rookery book build GAMES -o BIN FLAGS`, which must succeed.
fn build(games: &Path, bin: &Path, flags: &[&str]) {
    book(&[&["build", s(games), "-o", s(bin)][..], flags].concat());
}

/// Keys of ≥ 10,000 positions equal python-chess's, the (key, move) pairs
/// of the book are the moves played with `--weights played` counts, sorted,
/// and found again by python-chess's reader; `book show` gives the key,
/// moves, weights and learn values python-chess reads.
#[test]
fn keys_and_books_agree_with_python_chess() {
    if peer::python_chess().is_none() {
        return;
    }
    let t = TempDir::new("book-python");
    let games = t.join("games.pgn");
    python(&["games", "35", "60", s(&games)]);
    let bin = t.join("book.bin");
    build(&games, &bin, &["--min-games", "1", "--weights", "played"]);
    let out = python(&["check", s(&games), s(&bin), ROOKERY, s(t.path())]);
    assert!(out.contains("all ok"), "{out}");
}

/// Runs Polyglot with `args`; it always exits 0, so its file must exist.
fn polyglot(program: &Path, args: &[&str], made: &Path) {
    let _ = std::fs::remove_file(made);
    let o = Command::new(program)
        .args(args)
        .output()
        .expect("run polyglot");
    assert!(
        made.exists(),
        "polyglot {args:?} wrote no book:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn same_file(ours: &Path, theirs: &Path, what: &str) {
    let a = std::fs::read(ours).unwrap();
    let b = std::fs::read(theirs).unwrap();
    assert!(!b.is_empty(), "{what}: Polyglot's book is empty");
    assert_eq!(a.len(), b.len(), "{what}: sizes differ");
    let first = a.chunks(16).zip(b.chunks(16)).position(|(x, y)| x != y);
    assert_eq!(first, None, "{what}: entry {first:?} differs");
}

/// `book build` writes the same file as `polyglot make-book` on the same
/// games under each of its options, and `book merge` the same file as
/// `polyglot merge-book`.
#[test]
fn build_and_merge_write_what_polyglot_writes() {
    let Some(pg) = peer::require("Polyglot", &["polyglot"], None) else {
        return;
    };
    if peer::python_chess().is_none() {
        return;
    }
    let t = TempDir::new("book-polyglot");
    // Polyglot reads no FEN tag: games from the standard start.
    let games = t.join("games.pgn");
    python(&["games", "36", "60", s(&games), "standard"]);
    let (ours, theirs) = (t.join("ours.bin"), t.join("theirs.bin"));
    let cases: [(&[&str], &[&str]); 5] = [
        (&[], &[]),
        (
            &["--max-ply", "20", "--min-games", "1"],
            &["-max-ply", "20", "-min-game", "1"],
        ),
        (&["--min-games", "1"], &["-min-game", "1"]),
        (
            &["--max-ply", "40", "--min-games", "2", "--only-white"],
            &["-max-ply", "40", "-min-game", "2", "-only-white"],
        ),
        (
            &["--max-ply", "30", "--min-games", "1", "--only-black"],
            &["-max-ply", "30", "-min-game", "1", "-only-black"],
        ),
    ];
    for (our_flags, their_flags) in cases {
        build(&games, &ours, our_flags);
        let mut args = vec!["make-book", "-pgn", s(&games), "-bin", s(&theirs)];
        args.extend_from_slice(their_flags);
        polyglot(&pg, &args, &theirs);
        same_file(&ours, &theirs, &format!("build {our_flags:?}"));
    }
    // Merge a book of the first 20 plies with one of both colours' whole
    // games (shared positions, shared and new moves).
    let (a, b) = (t.join("a.bin"), t.join("b.bin"));
    build(&games, &a, &["--max-ply", "20", "--min-games", "1"]);
    build(&games, &b, &["--min-games", "1", "--only-black"]);
    let other = t.join("other.pgn");
    python(&["games", "37", "40", s(&other), "standard"]);
    let c = t.join("c.bin");
    build(&other, &c, &["--max-ply", "12", "--min-games", "1"]);
    for (x, y) in [(&a, &c), (&c, &a), (&b, &c)] {
        book(&["merge", s(x), s(y), "-o", s(&ours)]);
        polyglot(
            &pg,
            &["merge-book", "-in1", s(x), "-in2", s(y), "-out", s(&theirs)],
            &theirs,
        );
        same_file(
            &ours,
            &theirs,
            &format!("merge {} {}", x.display(), y.display()),
        );
    }
}

/// The first `plies` moves of each game of `rookery match` with a Polyglot
/// book, checked by python-chess to be moves of weight > 0 of the book.
fn book_match(t: &TempDir, bin: &Path, seed: &str, plies: usize) -> Vec<String> {
    let pgn = t.join(format!("match-{seed}.pgn"));
    let _ = std::fs::remove_file(&pgn);
    let openings = format!("plies={plies}");
    rookery(
        &[
            "match",
            "--engine",
            "cmd=builtin",
            "name=A",
            "--engine",
            "cmd=builtin",
            "name=B",
            "--each",
            "depth=1",
            "--rounds",
            "6",
            "--games",
            "2",
            "--maxmoves",
            "20",
            "--openings",
            &format!("file={}", s(bin)),
            "format=polyglot",
            &openings,
            "--srand",
            seed,
            "--pgnout",
            s(&pgn),
        ],
        b"",
    )
    .assert_code(0);
    python(&["walks", s(bin), s(&pgn), &plies.to_string()])
        .lines()
        .map(str::to_string)
        .collect()
}

/// `match --openings file=book.bin format=polyglot plies=N`: every game
/// opens with N moves of the book, both games of an encounter with the
/// same line, the same lines again with the same `--srand`, other lines
/// with another.
#[test]
fn a_match_walks_a_polyglot_book_by_its_seed() {
    if peer::python_chess().is_none() {
        return;
    }
    let t = TempDir::new("book-match");
    let games = t.join("games.pgn");
    python(&["games", "38", "40", s(&games), "standard"]);
    let bin = t.join("book.bin");
    build(
        &games,
        &bin,
        &["--max-ply", "6", "--min-games", "1", "--weights", "played"],
    );
    // Every move of the games' first 6 plies is in the book (weighed by
    // games, none left out for losing), so every walk has its 4 moves.
    let a = book_match(&t, &bin, "7", 4);
    assert_eq!(a.len(), 12, "{a:?}");
    for l in &a {
        assert_eq!(l.split(' ').count(), 4, "4 book moves: {l}");
    }
    for pair in a.chunks(2) {
        assert_eq!(pair[0], pair[1], "an encounter shares its opening");
    }
    assert_eq!(
        a,
        book_match(&t, &bin, "7", 4),
        "the same seed, the same lines"
    );
    assert_ne!(a, book_match(&t, &bin, "8", 4), "another seed, other lines");
}

/// A file that is not a whole number of entries is refused by name.
#[test]
fn a_truncated_book_is_an_error_naming_the_file() {
    let t = TempDir::new("book-bad");
    let bad = t.write("bad.bin", [0u8; 20]);
    let run = rookery(&["book", "show", s(&bad)], b"");
    run.assert_code(1);
    run.assert_stderr_contains("bad.bin: 20 bytes is not a whole number of 16-byte entries");
}
