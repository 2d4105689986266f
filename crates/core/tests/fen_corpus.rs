//! FEN corpora: our own invalid-FEN list (every strict-mode rule, with the
//! expected error kind and byte offset), and the valid/invalid verdicts
//! extracted from chess.js, python-chess and shakmaty tests.

mod common;

use rookery_core::fen::{ParseFenErrorKind, PositionProblem};
use rookery_core::{FenError, Mode, Position, Setup};

fn read_tsv(path: &str) -> Vec<(usize, Vec<String>)> {
    let text = std::fs::read_to_string(common::data(path)).expect("corpus file");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.is_empty())
        .skip(1) // header
        .map(|(i, l)| (i + 1, l.split('\t').map(str::to_string).collect()))
        .collect()
}

/// `\t`, `\n`, `\r` and `\\` in the FEN column.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            other => panic!("bad escape \\{other:?} in {s:?}"),
        }
    }
    out
}

fn variant(kind: &ParseFenErrorKind) -> String {
    let d = format!("{kind:?}");
    d.split('(').next().unwrap_or_default().to_string()
}

fn problems(problems: &[(PositionProblem, usize)]) -> String {
    problems
        .iter()
        .map(|(p, _)| format!("{p:?}"))
        .collect::<Vec<_>>()
        .join("+")
}

/// Strict verdict of a FEN: a parse error variant or the problems, with the offset.
fn strict(fen: &str) -> Result<(), (String, usize)> {
    judge(fen, Mode::Strict)
}

/// Reads the text in `text_mode` (lenient for EPD-like rows without clocks),
/// then judges the position strictly.
fn judge(fen: &str, text_mode: Mode) -> Result<(), (String, usize)> {
    let setup = Setup::from_fen(fen, text_mode).map_err(|e| (variant(&e.kind), e.offset))?;
    match setup.into_position(Mode::Strict) {
        Ok((_, warnings)) => {
            assert!(warnings.is_empty(), "{fen}: strict mode warned");
            Ok(())
        }
        Err(e) => {
            assert!(!e.problems.is_empty(), "{fen}: error without a problem");
            Err((problems(&e.problems), e.problems[0].1))
        }
    }
}

#[test]
fn invalid_corpus() {
    let rows = read_tsv("fen/invalid.tsv");
    assert!(rows.len() >= 50, "only {} rows", rows.len());
    let mut kinds = std::collections::BTreeSet::new();
    for (line, cols) in &rows {
        let [kind, offset, lenient, fen, note] = cols.as_slice() else {
            panic!("invalid.tsv:{line}: expected 5 columns, got {cols:?}");
        };
        let fen = unescape(fen);
        let offset: usize = offset.parse().expect("offset");
        let at = format!("invalid.tsv:{line} ({note}): {fen:?}");

        // Strict: exactly the expected error, at the expected byte.
        let got = strict(&fen);
        assert_eq!(got, Err((kind.clone(), offset)), "{at}");
        kinds.insert(kind.split('(').next().unwrap_or_default().to_string());

        // The one-call API agrees.
        match Position::from_fen(&fen) {
            Err(FenError::Parse(e)) => {
                assert_eq!((variant(&e.kind), e.offset), (kind.clone(), offset), "{at}")
            }
            Err(FenError::Position(e)) => assert_eq!(problems(&e.problems), *kind, "{at}"),
            Ok(_) => panic!("{at}: Position::from_fen accepted it"),
        }

        // Lenient: as the corpus says.
        let lenient_result = Position::from_fen_lenient(&fen);
        match (lenient.as_str(), &lenient_result) {
            ("error", Err(_)) => {}
            ("ok", Ok((_, w))) if w.is_empty() => {}
            ("warn", Ok((_, w))) => assert_eq!(problems(w), *kind, "{at}: lenient warnings"),
            _ => panic!("{at}: lenient expected {lenient}, got {lenient_result:?}"),
        }
        // Whatever lenient accepts is playable and writes a FEN that strict mode accepts.
        if let Ok((pos, _)) = lenient_result {
            let fen2 = pos.fen();
            if !kind.starts_with("ImpossibleCheck") && !kind.starts_with("TooManyCheckers") {
                assert_eq!(
                    Position::from_fen(&fen2).as_ref(),
                    Ok(&pos),
                    "{at}: re-read {fen2}"
                );
            }
            let _ = pos.legal_moves();
        }
    }
    // Every rule is represented.
    for k in [
        "Empty",
        "MissingField",
        "BadBoardChar",
        "RankTooLong",
        "RankTooShort",
        "WrongRankCount",
        "AdjacentDigits",
        "BadTurn",
        "BadCastling",
        "BadEnPassant",
        "BadHalfmoves",
        "BadFullmoves",
        "BadWhitespace",
        "TrailingText",
        "MissingKing",
        "TooManyKings",
        "PawnOnBackRank",
        "OppositeCheck",
        "TooManyCheckers",
        "ImpossibleCheck",
        "BadCastlingRight",
        "ZeroFullmoves",
    ] {
        assert!(kinds.contains(k), "no row for {k}");
    }
}

/// chess.js `validateFen`: every row it calls valid we read (lenient: its list
/// has castling letters in any order); every row it calls invalid we reject
/// in strict mode, except the documented differences below.
#[test]
fn chessjs_verdicts() {
    let rows = read_tsv("fen/chessjs-validate-fen.tsv");
    assert!(rows.len() >= 130);
    let (mut valid, mut invalid) = (0, 0);
    for (line, cols) in &rows {
        let (expected, fen) = (&cols[0], &cols[1]);
        let at = format!("chessjs-validate-fen.tsv:{line}: {fen:?}");
        match expected.as_str() {
            "valid" => {
                let (pos, _) = Position::from_fen_lenient(fen)
                    .unwrap_or_else(|e| panic!("{at}: rejected: {e}"));
                // Written back, it is strictly valid.
                Position::from_fen(&pos.fen()).unwrap_or_else(|e| panic!("{at}: {e}"));
                valid += 1;
            }
            "invalid" => {
                assert!(strict(fen).is_err(), "{at}: strict mode accepted it");
                invalid += 1;
            }
            other => panic!("{at}: unknown verdict {other}"),
        }
    }
    assert!(
        valid >= 100 && invalid >= 20,
        "{valid} valid, {invalid} invalid"
    );
}

/// python-chess `Board.status()` flags mapped to our problems. Rows for
/// python-chess's standard (non-960) castling mode that are wrong only
/// because the castling needs Chess960 are valid for us: our FEN reader has
/// one castling model (X-FEN), which covers both.
#[test]
fn python_chess_status() {
    let rows = read_tsv("fen/python-chess-status.tsv");
    assert_eq!(rows.len(), 20);
    for (line, cols) in &rows {
        let (expected, mode, fen) = (&cols[0], &cols[1], &cols[2]);
        let at = format!("python-chess-status.tsv:{line}: {fen:?} ({expected}, {mode})");
        let got = judge(fen, Mode::Lenient);
        let chess960_only = fen.starts_with("bbqnnrkr/") && mode == "standard";
        if expected == "STATUS_VALID" || chess960_only {
            assert_eq!(got, Ok(()), "{at}");
            continue;
        }
        let (problems, _) = got.expect_err(&at);
        let flags = expected.trim_start_matches("includes ");
        let matched = flags.split('|').any(|flag| {
            let ours = match flag {
                "STATUS_BAD_CASTLING_RIGHTS" => "BadCastlingRight",
                "STATUS_INVALID_EP_SQUARE" => "BadEnPassant",
                "STATUS_OPPOSITE_CHECK" => "OppositeCheck",
                "STATUS_TOO_MANY_KINGS" => "TooManyKings",
                "STATUS_TOO_MANY_CHECKERS" => "TooManyCheckers",
                "STATUS_IMPOSSIBLE_CHECK" => "ImpossibleCheck",
                other => panic!("{at}: unmapped flag {other}"),
            };
            problems.contains(ours)
        });
        assert!(matched, "{at}: got {problems}");
    }
}

/// shakmaty `test_from_setup` (Chess960 castling): impossible checks are
/// errors in strict mode and warnings in lenient mode; the rest are fine.
#[test]
fn shakmaty_from_setup() {
    let rows = read_tsv("fen/shakmaty-from-setup.tsv");
    assert_eq!(rows.len(), 10);
    for (line, cols) in &rows {
        let (expected, epd) = (&cols[0], &cols[1]);
        let at = format!("shakmaty-from-setup.tsv:{line}: {epd:?}");
        let setup = Setup::from_fen(epd, Mode::Lenient).unwrap_or_else(|e| panic!("{at}: {e}"));
        let strict = setup.clone().into_position(Mode::Strict);
        let lenient = setup.into_position(Mode::Lenient);
        match expected.as_str() {
            "IMPOSSIBLE_CHECK" => {
                let e = strict.expect_err(&at);
                assert_eq!(problems(&e.problems), "ImpossibleCheck", "{at}");
                let (_, w) = lenient.unwrap_or_else(|e| panic!("{at}: lenient: {e}"));
                assert_eq!(problems(&w), "ImpossibleCheck", "{at}");
            }
            "ok (no error)" => {
                strict.unwrap_or_else(|e| panic!("{at}: {e}"));
            }
            other => panic!("{at}: unknown verdict {other}"),
        }
    }
}

/// FrankyCPP's EPD lines: the first and third read (the clocks sit where a
/// FEN has them), the second lacks fields.
#[test]
fn franky_epd() {
    let text = std::fs::read_to_string(common::data("fen/franky-test_invalid_fen.epd")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    for (i, line) in lines.iter().enumerate() {
        let fen: String = line.split(' ').take(6).collect::<Vec<_>>().join(" ");
        let got = strict(&fen);
        if i == 1 {
            assert!(got.is_err(), "line 2 accepted: {fen}");
        } else {
            assert_eq!(got, Ok(()), "line {}: {fen}", i + 1);
        }
    }
}
