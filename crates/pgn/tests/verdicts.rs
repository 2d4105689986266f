//! What the reader says of a game's result and of input that is not text:
//! a Result tag or game-termination marker that the last position
//! contradicts (mate, stalemate) is a warning at that tag or marker; a NUL
//! byte where a tag or a move was expected makes the game an error (binary
//! data), and reading resumes at the next game's tags, if any.

mod common;

use rookery_core::Color;
use rookery_pgn::stream::{run, Plan, Task};
use rookery_pgn::{
    Detail, Ending, GameErrorKind, GameResult, Games, ReadGame, ResultSource, WarningKind,
};

fn read(pgn: &[u8], detail: Detail) -> Vec<ReadGame> {
    Games::new(pgn)
        .with_detail(detail)
        .map(|g| g.expect("read from memory"))
        .collect()
}

/// Each game's result warnings as `line:col` and the warning.
fn contradictions(g: &ReadGame) -> Vec<(String, WarningKind)> {
    g.warnings
        .iter()
        .filter(|w| matches!(w.kind, WarningKind::ResultContradicted { .. }))
        .map(|w| (format!("{}:{}", w.at.line, w.at.col), w.kind.clone()))
        .collect()
}

fn contradicted(ending: Ending, stated: GameResult, by: ResultSource) -> WarningKind {
    WarningKind::ResultContradicted { ending, stated, by }
}

const WHITE_MATES: Ending = Ending::Checkmate {
    winner: Color::White,
};
const BLACK_MATES: Ending = Ending::Checkmate {
    winner: Color::Black,
};

/// pgn-extract's test file for `--fixresulttags`: two mates scored for the
/// loser, two scored as draws, a stalemate scored as a win. pgn-extract
/// (without the flag) warns of the same five games.
#[test]
fn pgn_extracts_wrong_results_are_warnings_at_their_result_tags() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let bytes = std::fs::read(dir.join("pe-fixresulttags-in.pgn")).unwrap();
    use GameResult::*;
    let want = [
        (
            "7:1",
            contradicted(BLACK_MATES, WhiteWins, ResultSource::Tag),
        ),
        (
            "21:1",
            contradicted(Ending::Stalemate, BlackWins, ResultSource::Tag),
        ),
        ("42:1", contradicted(WHITE_MATES, Draw, ResultSource::Tag)),
        (
            "58:1",
            contradicted(WHITE_MATES, BlackWins, ResultSource::Tag),
        ),
        ("73:1", contradicted(WHITE_MATES, Draw, ResultSource::Tag)),
    ];
    for detail in [Detail::Full, Detail::Mainline, Detail::Count] {
        let games = read(&bytes, detail);
        assert_eq!(games.len(), want.len());
        for (g, (at, kind)) in games.iter().zip(&want) {
            assert_eq!(
                contradictions(g),
                [(at.to_string(), kind.clone())],
                "game {} at {detail:?}",
                g.index
            );
            // The tag and the marker agree: nothing else to say.
            assert_eq!(g.warnings.len(), 1, "{:?}", g.warnings);
        }
    }
    assert_eq!(
        want[0].1.to_string(),
        "the final position is checkmate: Black won, but Result says 1-0"
    );
}

const FOOLS_MATE: &str = "1. f3 e5 2. g4 Qh4#";
/// White to move stalemates Black with 1. Qc7.
const STALEMATE_FEN: &str = "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1";

fn game(tags: &[(&str, &str)], moves: &str, marker: &str) -> String {
    let mut s = String::new();
    for (n, v) in tags {
        s.push_str(&format!("[{n} \"{v}\"]\n"));
    }
    format!("{s}\n{moves} {marker}\n\n")
}

#[test]
fn the_marker_is_named_where_it_alone_is_wrong() {
    use GameResult::*;
    // No tag: the marker.
    let pgn = game(&[("Event", "a")], FOOLS_MATE, "1-0");
    let g = &read(pgn.as_bytes(), Detail::Count)[0];
    let at = format!("3:{}", FOOLS_MATE.len() + 2);
    let want = contradicted(BLACK_MATES, WhiteWins, ResultSource::Marker);
    assert_eq!(contradictions(g), [(at.clone(), want.clone())]);
    // A right tag and a wrong marker: the marker (and the mismatch).
    let pgn = game(&[("Event", "a"), ("Result", "0-1")], FOOLS_MATE, "1-0");
    let g = &read(pgn.as_bytes(), Detail::Full)[0];
    assert_eq!(
        contradictions(g),
        [(format!("4:{}", FOOLS_MATE.len() + 2), want)]
    );
    // Both wrong, differently: each where it stands.
    let pgn = game(&[("Event", "a"), ("Result", "*")], FOOLS_MATE, "1/2-1/2");
    let g = &read(pgn.as_bytes(), Detail::Mainline)[0];
    assert_eq!(
        contradictions(g),
        [
            (
                "2:1".into(),
                contradicted(BLACK_MATES, Unknown, ResultSource::Tag)
            ),
            (
                format!("4:{}", FOOLS_MATE.len() + 2),
                contradicted(BLACK_MATES, Draw, ResultSource::Marker)
            ),
        ]
    );
}

#[test]
fn a_stalemate_is_a_draw_and_a_star_is_no_result_for_a_finished_game() {
    let setup = [("SetUp", "1"), ("FEN", STALEMATE_FEN), ("Result", "*")];
    let pgn = game(&setup, "1. Qc7", "*");
    let g = &read(pgn.as_bytes(), Detail::Count)[0];
    assert_eq!(g.ending, Some(Ending::Stalemate));
    assert_eq!(
        contradictions(g),
        [(
            "3:1".into(),
            contradicted(Ending::Stalemate, GameResult::Unknown, ResultSource::Tag)
        )]
    );
    let drawn = [
        ("SetUp", "1"),
        ("FEN", STALEMATE_FEN),
        ("Result", "1/2-1/2"),
    ];
    let pgn = game(&drawn, "1. Qc7", "1/2-1/2");
    assert!(read(pgn.as_bytes(), Detail::Count)[0].warnings.is_empty());
}

/// Resignation, time, agreement, adjudication: a game that does not end in
/// mate or stalemate may have any result.
#[test]
fn a_game_that_ends_otherwise_may_have_any_result() {
    for result in ["1-0", "0-1", "1/2-1/2", "*"] {
        // One move from mate, in check, with moves left.
        let pgn = game(
            &[("Result", result)],
            "1. e4 e5 2. Qh5 Nc6 3. Qxf7+",
            result,
        );
        let g = &read(pgn.as_bytes(), Detail::Full)[0];
        assert_eq!(g.ending, None);
        assert!(g.warnings.is_empty(), "{result}: {:?}", g.warnings);
    }
    // A position already mated, with no move played: not judged (as
    // pgn-extract), a diagram rather than a game.
    let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let pgn = game(
        &[("SetUp", "1"), ("FEN", mated), ("Result", "1-0")],
        "",
        "1-0",
    );
    let g = &read(pgn.as_bytes(), Detail::Full)[0];
    assert_eq!((g.ending, g.warnings.len()), (None, 0), "{:?}", g.warnings);
    // A game with an illegal move: its last position is unknown.
    let pgn = game(&[("Result", "1-0")], "1. f3 e5 2. g4 Qh4# 3. Ke2", "1-0");
    let g = &read(pgn.as_bytes(), Detail::Full)[0];
    assert!(g.error.is_some());
    assert_eq!((g.ending, contradictions(g).len()), (None, 0));
}

/// `stream::run` with `plan`, on `jobs` threads (pieces of `chunk` bytes):
/// the text written and each diagnostic as `line:col error message`.
fn run_plan(plan: Plan, bytes: &[u8]) -> (String, Vec<String>, u64) {
    let mut text = Vec::new();
    let mut diags = Vec::new();
    let mut errors = 0;
    run(
        &plan,
        rookery_pgn::source::Source::reader(bytes),
        "f.pgn",
        &mut |_| {},
        &mut |part| {
            text.extend(part.text);
            errors += part.stats.error_games;
            diags.extend(
                part.diags
                    .iter()
                    .map(|d| format!("{}:{} {} {}", d.line, d.col, d.error, d.message)),
            );
            Ok::<(), std::io::Error>(())
        },
    )
    .unwrap();
    (String::from_utf8(text).unwrap(), diags, errors)
}

#[test]
fn normalize_fixes_results_only_when_asked() {
    let pgn = game(&[("Event", "a"), ("Result", "1-0")], FOOLS_MATE, "1-0")
        + &game(&[("Event", "b"), ("Result", "1-0")], "1. e4 e5", "*")
        + &game(&[("Event", "c"), ("Result", "1-0")], "1. e4 e5", "0-1");
    let plan = |fix_results| Plan::new(Task::Normalize { fix_results });
    let results = |text: &str| -> Vec<(String, String)> {
        rookery_testkit::pgn_text::games(text)
            .iter()
            .map(|g| {
                let tag = rookery_testkit::pgn_text::tag(g, "Result")
                    .unwrap()
                    .to_owned();
                let marker = g.split_whitespace().last().unwrap().to_owned();
                (tag, marker)
            })
            .collect()
    };
    let (kept, diags, _) = run_plan(plan(false), pgn.as_bytes());
    let pair = |t: &str, m: &str| (t.to_owned(), m.to_owned());
    assert_eq!(
        results(&kept),
        [pair("1-0", "1-0"), pair("1-0", "*"), pair("1-0", "0-1")]
    );
    let (fixed, fixed_diags, _) = run_plan(plan(true), pgn.as_bytes());
    // The mate decides; a `*` marker wins over the tag (as pgn-extract);
    // two different results stay as they are.
    assert_eq!(
        results(&fixed),
        [pair("0-1", "0-1"), pair("*", "*"), pair("1-0", "0-1")]
    );
    // The warnings name the games either way.
    assert_eq!(diags, fixed_diags);
    assert!(
        diags[0].contains("checkmate: Black won, but Result says 1-0"),
        "{diags:?}"
    );
}

/// The first bytes of an ELF program (a NUL in the 8th byte), then more
/// binary.
const ELF_HEAD: &[u8] =
    b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00";

#[test]
fn a_nul_byte_where_a_move_was_expected_is_binary_data() {
    let mut input = ELF_HEAD.to_vec();
    input.extend_from_slice(b"\n(1. e4 ]\x00 Nf3\n\x00\x00\x00");
    for detail in [Detail::Full, Detail::Count] {
        let games = read(&input, detail);
        assert_eq!(games.len(), 1, "the rest is skipped");
        let e = games[0].error.as_ref().expect("an error");
        assert_eq!((e.at.line, e.at.col), (1, 8), "at the first NUL");
        assert_eq!(e.kind, GameErrorKind::NotText { resumed_at: None });
        assert!(
            e.kind.to_string().starts_with("not PGN text: a NUL byte"),
            "{e}"
        );
    }
}

#[test]
fn reading_resumes_at_the_next_game_after_binary_data() {
    let good = game(&[("Event", "good")], "1. e4 e5", "1-0");
    let mut input = good.clone().into_bytes();
    input.extend_from_slice(b"1. d4 \x00\x01\x02 [Event \"not a start\"]\n\xff\x00\n");
    input.extend_from_slice(good.as_bytes());
    let games = read(&input, Detail::Full);
    let events: Vec<_> = games.iter().map(|g| g.game.tags.get("Event")).collect();
    assert_eq!(events, [Some("good"), None, Some("good")]);
    let e = games[1].error.as_ref().expect("the binary stretch");
    assert_eq!((e.at.line, e.at.col), (5, 7));
    assert_eq!(
        e.kind,
        GameErrorKind::NotText {
            resumed_at: Some(7)
        }
    );
    assert!(games[1].warnings.is_empty(), "{:?}", games[1].warnings);
    assert!(games[2].error.is_none() && games[2].game.mainline.nodes.len() == 2);
}

/// Control characters short of a NUL, and a NUL in a comment, are text
/// that reads: a DOS end-of-file mark, a stray byte in a comment.
#[test]
fn odd_bytes_in_text_still_read() {
    let mut input = game(
        &[("Event", "a")],
        "1. e4 {a \x00 stray \x07 byte} e5 2. Nf3",
        "*",
    )
    .into_bytes();
    input.extend_from_slice(b"\x1a");
    let games = read(&input, Detail::Full);
    assert_eq!(games.len(), 2);
    assert!(games.iter().all(|g| g.error.is_none()), "{games:?}");
    assert_eq!(games[0].game.mainline.nodes.len(), 3);
}

/// However the input is cut into pieces, binary data reads as on one
/// thread: one error, then the next game.
#[test]
fn binary_data_reads_the_same_on_several_threads() {
    let good = game(&[("Event", "good")], "1. e4 e5 2. Nf3 Nc6", "1-0");
    let mut input = Vec::new();
    for _ in 0..5 {
        input.extend_from_slice(good.as_bytes());
    }
    input.extend_from_slice(ELF_HEAD);
    for i in 0..400u32 {
        // Binary with newlines, `[` lines and results in it (cut points).
        input.extend_from_slice(&i.to_le_bytes());
        input.extend_from_slice(if i % 7 == 0 { b"\n[x 1-0\n" } else { b"\n" });
    }
    input.extend_from_slice(b"\n");
    for _ in 0..5 {
        input.extend_from_slice(good.as_bytes());
    }
    let one = run_plan(Plan::new(Task::Validate), &input);
    assert_eq!(one.2, 1, "{:?}", one.1);
    for chunk in [64, 100, 333, 1000] {
        let plan = Plan {
            jobs: 3,
            chunk_bytes: chunk,
            ..Plan::new(Task::Validate)
        };
        assert_eq!(run_plan(plan, &input), one, "pieces of {chunk} bytes");
    }
}

/// No test file of the reader (real PGN from many programs, Latin-1 and
/// UTF-8, a byte-order mark, odd spacing) is taken for binary data.
#[test]
fn no_pgn_test_file_is_binary() {
    for bytes in common::data_files() {
        for g in read(&bytes, Detail::Count) {
            assert!(
                !matches!(
                    g.error.as_ref().map(|e| &e.kind),
                    Some(GameErrorKind::NotText { .. })
                ),
                "{:?}",
                g.error
            );
        }
    }
}
