//! Game annotation with a scripted engine: which positions are searched,
//! what is written where, what is kept.

use rookery_analysis::annotate::{analyse_game, annotated_game, AnnotateOptions};
use rookery_analysis::{Analysis, AnalysisLimits, Analyst, AnalystError, Score};
use rookery_core::{Fen, Move, Position, San};
use rookery_pgn::{game_to_string, Games};
use std::collections::HashMap;

/// Answers from a table keyed by FEN (score for the side to move, best line
/// in SAN; the lines differ from the moves played unless a test wants
/// otherwise); any other position: 0 cp and its first legal move. Records
/// every position it is asked about.
struct Scripted {
    table: HashMap<String, (Score, Vec<&'static str>)>,
    asked: Vec<String>,
    fail_at: Option<usize>,
}

fn fen(pos: &Position) -> String {
    Fen::from_position(pos).to_string()
}

fn line(pos: &Position, sans: &[&str]) -> Vec<Move> {
    let mut p = pos.clone();
    sans.iter()
        .map(|s| {
            let m = San::from_ascii(s.as_bytes()).unwrap().to_move(&p).unwrap();
            p.play_unchecked(m);
            m
        })
        .collect()
}

impl Analyst for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }
    fn analyse(&mut self, pos: &Position, _: &AnalysisLimits) -> Result<Analysis, AnalystError> {
        if self.fail_at == Some(self.asked.len()) {
            return Err(AnalystError::NoScore);
        }
        self.asked.push(fen(pos));
        let (score, pv) = match self.table.get(&fen(pos)) {
            Some((s, sans)) => (*s, line(pos, sans)),
            None => (
                Score::Cp(0),
                vec![pos.legal_moves().iter().next().copied().unwrap()],
            ),
        };
        Ok(Analysis {
            depth: 1,
            nodes: 1,
            ..Analysis::line(pv, Some(score))
        })
    }
    fn new_game(&mut self) -> Result<(), AnalystError> {
        Ok(())
    }
}

const GAME: &str = "[White \"W\"]\n[Black \"B\"]\n\n{start} 1. e4 {[%eval 9.99] old eval, kept words} e5 2. Nf3 $1 Nc6 (2... d6 3. d4) 3. Bc4 d6 *\n";

/// The positions of GAME's mainline.
fn positions() -> Vec<Position> {
    let g = Games::new(GAME.as_bytes()).next().unwrap().unwrap().game;
    let mut p = g.start.clone();
    let mut out = vec![p.clone()];
    for m in g.mainline_moves() {
        p.play_unchecked(m);
        out.push(p.clone());
    }
    out
}

fn scripted() -> Scripted {
    let ps = positions();
    let mut table = HashMap::new();
    // Before 3. Bc4 (White to move): +0.30 with 3. Bb5 a6.
    table.insert(fen(&ps[4]), (Score::Cp(30), vec!["Bb5", "a6"]));
    // After 3. Bc4 (Black to move): Black is 3 pawns up.
    table.insert(fen(&ps[5]), (Score::Cp(300), vec!["Nf6"]));
    // After 2. Nf3 (Black to move): Black 2 pawns up: a blunder, but $1 from the input stands.
    table.insert(fen(&ps[3]), (Score::Cp(200), vec!["d6"]));
    Scripted {
        table,
        asked: Vec::new(),
        fail_at: None,
    }
}

#[test]
fn every_position_searched_once_and_judged() {
    let game = Games::new(GAME.as_bytes()).next().unwrap().unwrap().game;
    let mut engine = scripted();
    let opts = AnnotateOptions::default();
    let a = analyse_game(&game, &mut engine, &opts).unwrap();
    // 6 plies: 7 positions, each asked once, in order.
    let want: Vec<String> = positions().iter().map(fen).collect();
    assert_eq!(engine.asked, want);
    assert_eq!(a.searched, 7);
    let text = game_to_string(&annotated_game(&game, &a, &opts));
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // The old eval is replaced, the words kept.
    assert!(
        flat.contains("1. e4 {[%eval 0.00]} {old eval, kept words}"),
        "{flat}"
    );
    assert!(!flat.contains("9.99"));
    // 2. Nf3 loses 2 pawns: judged a blunder in the figures, but the input's $1 stands alone.
    assert!(
        flat.contains("2. Nf3 $1 {[%eval -2.00] Blunder. "),
        "{flat}"
    );
    // 3. Bc4: blunder, sign, words, the better line with its eval after the input's variation.
    assert!(
        flat.contains(
            "3. Bc4 $4 {[%eval -3.00] Blunder. Bb5 was best.} (3. Bb5 {[%eval 0.30]} 3... a6)"
        ),
        "{flat}"
    );
    assert!(flat.contains("(2... d6 3. d4)"), "{flat}");
    // Figures: White lost 200 + 330 cp over 3 moves; two blunders.
    assert!(flat.contains("[WhiteBlunders \"2\"]"), "{flat}");
    assert!(flat.contains("[WhiteACPL \"177\"]"), "{flat}");
    // Black: 2... Nc6 (-2.00 -> 0.30) and 3... d6 (-3.00 -> 0.00) throw advantages away.
    assert!(flat.contains("[BlackBlunders \"2\"]"), "{flat}");
    // The summary before the first move, then the input's comment.
    assert!(
        flat.contains("{[%eval 0.00] Annotated by rookery with scripted"),
        "{flat}"
    );
    assert!(
        flat.contains("1 blunder") || flat.contains("2 blunders"),
        "{flat}"
    );
    assert!(flat.contains("blunders.} {start} 1. e4"), "{flat}");
}

#[test]
fn book_plies_are_not_judged_and_the_start_is_not_searched() {
    let game = Games::new(GAME.as_bytes()).next().unwrap().unwrap().game;
    let mut engine = scripted();
    let opts = AnnotateOptions {
        book_plies: 3,
        ..AnnotateOptions::default()
    };
    let a = analyse_game(&game, &mut engine, &opts).unwrap();
    assert_eq!(engine.asked.len(), 6, "the start position is not needed");
    assert!(a.verdicts[..3].iter().all(Option::is_none));
    assert!(a.verdicts[3..].iter().all(Option::is_some));
    assert_eq!(a.white.moves, 1);
    assert_eq!(a.white.blunders, 1);
}

#[test]
fn engine_failure_is_an_error() {
    let game = Games::new(GAME.as_bytes()).next().unwrap().unwrap().game;
    let mut engine = scripted();
    engine.fail_at = Some(3);
    assert!(matches!(
        analyse_game(&game, &mut engine, &AnnotateOptions::default()),
        Err(AnalystError::NoScore)
    ));
}

#[test]
fn the_engines_own_move_is_not_blamed_for_what_a_deeper_search_finds() {
    let pgn = "1. e4 e5 *\n";
    let game = Games::new(pgn.as_bytes()).next().unwrap().unwrap().game;
    let start = Position::startpos();
    let e4 = line(&start, &["e4"])[0];
    let after_e4 = start.after(e4);
    let after_e5 = after_e4.after(line(&after_e4, &["e5"])[0]);
    let mut table = HashMap::new();
    // After 1. e4 the engine likes 1... e5 and calls it equal; searched
    // after 1... e5, Black turns out 3 pawns up.
    table.insert(fen(&after_e4), (Score::Cp(0), vec!["e5"]));
    table.insert(fen(&after_e5), (Score::Cp(-300), vec!["Nf3"]));
    let mut engine = Scripted {
        table,
        asked: Vec::new(),
        fail_at: None,
    };
    let opts = AnnotateOptions::default();
    let a = analyse_game(&game, &mut engine, &opts).unwrap();
    let flat = game_to_string(&annotated_game(&game, &a, &opts))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // 1... e5 was the engine's move: the value found after it is the value
    // before it; the loss belongs to 1. e4.
    assert!(flat.contains("1. e4 $4 {[%eval -3.00] Blunder."), "{flat}");
    assert!(flat.contains("1... e5 {[%eval -3.00]} *"), "{flat}");
    assert!(flat.contains("[BlackBlunders \"0\"]"), "{flat}");
}
