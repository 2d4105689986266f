//! Game annotation: every mainline position of a game analysed once (the
//! evaluation after a move is the one before the next), each move judged by
//! the drop in its player's winning chances ([`mod@judge`]), and the game written
//! back with `[%eval ...]` on every mainline move, `?!`/`?`/`??` on the
//! inaccuracies, mistakes and blunders, the engine's better line as a
//! variation at mistakes and blunders (and missed mates), the players'
//! figures as tags and a summary comment. Everything the input had (tags,
//! comments, NAGs, variations) is kept; only an earlier `[%eval]` on a
//! mainline move is replaced.
//!
//! ```
//! use rookery_analysis::annotate::{analyse_game, annotated_game, AnnotateOptions};
//! use rookery_analysis::{AnalysisLimits, BuiltinAnalyst};
//! use rookery_pgn::Games;
//!
//! let pgn = "[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
//! let game = Games::new(pgn.as_bytes()).next().unwrap()?.game;
//! let opts = AnnotateOptions {
//!     limits: AnalysisLimits { depth: Some(3), ..AnalysisLimits::default() },
//!     ..AnnotateOptions::default()
//! };
//! let analysis = analyse_game(&game, &mut BuiltinAnalyst::new(4)?, &opts)?;
//! let text = rookery_pgn::game_to_string(&annotated_game(&game, &analysis, &opts));
//! assert!(text.contains("Qxf7# {[%eval #0]}"));
//! assert!(text.contains("[WhiteACPL "));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod judge;
mod page;
mod run;

pub use page::page_game;
pub use run::{annotate_stream, resume_point, AnnotateRun, AnnotateSummary, GameProblem, GameTick};

use crate::analyst::{AnalysisLimits, Analyst, AnalystError};
use judge::{judge, Class, Eval, PlayerFigures, Verdict};
use rookery_core::{Color, Move, Position, SanPlus};
use rookery_pgn::{Game, Line, Node};

/// How to annotate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnnotateOptions {
    /// Effort per position (`multipv` above 1 adds the engine's further
    /// choices as variations at mistakes and blunders).
    pub limits: AnalysisLimits,
    /// The first this many plies are the opening book: evaluated, not judged.
    pub book_plies: u32,
    /// The longest better line written, in plies.
    pub line_plies: usize,
}

/// Plies of a better line written by default.
pub const LINE_PLIES: usize = 10;

impl Default for AnnotateOptions {
    fn default() -> AnnotateOptions {
        AnnotateOptions {
            limits: AnalysisLimits::default(),
            book_plies: 0,
            line_plies: LINE_PLIES,
        }
    }
}

/// The analysis of one mainline position.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionEval {
    /// Its evaluation (White's point of view).
    pub eval: Eval,
    /// The engine's lines from it, best first, each with its evaluation
    /// (empty when the game is over in this position).
    pub lines: Vec<(Vec<Move>, Eval)>,
}

/// Everything the engine said about one game, and the judgements.
#[derive(Clone, Debug, PartialEq)]
pub struct GameAnalysis {
    /// The engine's name.
    pub engine: String,
    /// The limits, in words.
    pub limits: String,
    /// Per mainline position (index 0 before the first move, i after move
    /// i); `None` where nothing was needed (the start, when move 1 is book).
    pub positions: Vec<Option<PositionEval>>,
    /// Per move (index i for move i+1); `None` for book moves.
    pub verdicts: Vec<Option<Verdict>>,
    /// White's figures.
    pub white: PlayerFigures,
    /// Black's figures.
    pub black: PlayerFigures,
    /// Positions the engine searched.
    pub searched: u32,
}

/// The evaluation of a position with no legal move: mate or stalemate.
fn terminal_eval(pos: &Position) -> Option<Eval> {
    if pos.has_legal_move() {
        None
    } else if pos.is_check() {
        Some(Eval::Mate {
            winner: !pos.turn(),
            moves: 0,
        })
    } else {
        Some(Eval::Cp(0))
    }
}

/// Analyses every mainline position of `game` once and judges every move
/// after the book.
///
/// # Errors
/// [`AnalystError`] if the engine fails; the caller decides what to do with
/// the game (the file runner writes it unannotated).
pub fn analyse_game(
    game: &Game,
    analyst: &mut dyn Analyst,
    opts: &AnnotateOptions,
) -> Result<GameAnalysis, AnalystError> {
    analyst.new_game()?;
    let n = game.mainline.nodes.len();
    let mut positions = Vec::with_capacity(n + 1);
    let mut pos = game.start.clone();
    let mut searched = 0;
    for i in 0..=n {
        // Position i is needed for the eval of move i (i >= 1) and to judge move i+1.
        let needed = i >= 1 || opts.book_plies == 0;
        if needed {
            positions.push(Some(evaluate(&pos, analyst, opts, &mut searched)?));
        } else {
            positions.push(None);
        }
        if let Some(node) = game.mainline.nodes.get(i) {
            pos.play_unchecked(node.mv);
        }
    }
    back_up_best_moves(game, &mut positions);
    let mut verdicts = Vec::with_capacity(n);
    let (mut white, mut black) = (PlayerFigures::default(), PlayerFigures::default());
    let mut turn = game.start.turn();
    for i in 0..n {
        let judged = i as u64 >= u64::from(opts.book_plies);
        let v = match (&positions[i], &positions[i + 1]) {
            (Some(b), Some(a)) if judged => Some(judge(b.eval, a.eval, turn)),
            _ => None,
        };
        if let Some(v) = &v {
            match turn {
                Color::White => white.add(v),
                Color::Black => black.add(v),
            }
        }
        verdicts.push(v);
        turn = !turn;
    }
    Ok(GameAnalysis {
        engine: analyst.name(),
        limits: opts.limits.describe(),
        positions,
        verdicts,
        white,
        black,
        searched,
    })
}

/// A position is worth what its best move is worth. Where the game went on
/// with the engine's own first choice, the search of the next position
/// looked one move deeper along that very move, so its evaluation is taken
/// for both (from the end of the game back, so that runs of best moves
/// agree). Without this, what a deeper search finds beyond the horizon
/// would be blamed on the player who played the engine's move.
fn back_up_best_moves(game: &Game, positions: &mut [Option<PositionEval>]) {
    let mut turns = Vec::with_capacity(game.mainline.nodes.len());
    let mut turn = game.start.turn();
    for _ in &game.mainline.nodes {
        turns.push(turn);
        turn = !turn;
    }
    for (i, node) in game.mainline.nodes.iter().enumerate().rev() {
        let Some(after) = positions
            .get(i + 1)
            .and_then(|p| p.as_ref())
            .map(|p| p.eval)
        else {
            continue;
        };
        let Some(Some(before)) = positions.get_mut(i) else {
            continue;
        };
        if before.lines.first().and_then(|(pv, _)| pv.first()) == Some(&node.mv) {
            before.eval = match after {
                // The mover's mate is one move longer before the move.
                Eval::Mate { winner, moves } if winner == turns[i] => Eval::Mate {
                    winner,
                    moves: moves.saturating_add(1),
                },
                e => e,
            };
        }
    }
}

fn evaluate(
    pos: &Position,
    analyst: &mut dyn Analyst,
    opts: &AnnotateOptions,
    searched: &mut u32,
) -> Result<PositionEval, AnalystError> {
    if let Some(eval) = terminal_eval(pos) {
        return Ok(PositionEval {
            eval,
            lines: Vec::new(),
        });
    }
    let a = analyst.analyse(pos, &opts.limits)?;
    *searched += 1;
    let turn = pos.turn();
    // An engine that gives no score is treated as a failure: every move must get an evaluation.
    let score = a.score.ok_or(AnalystError::NoScore)?;
    let eval = Eval::from_score(score, turn);
    let mut lines = Vec::new();
    if !a.pv.is_empty() {
        lines.push((a.pv.clone(), eval));
    }
    for (pv, s) in &a.other_lines {
        if let (false, Some(s)) = (pv.is_empty(), s) {
            lines.push((pv.clone(), Eval::from_score(*s, turn)));
        }
    }
    Ok(PositionEval { eval, lines })
}

/// The `[%eval ...]` command.
fn eval_command(e: Eval) -> String {
    format!("[%eval {e}]")
}

/// `text` without its `[%eval ...]` commands (whitespace tidied).
fn strip_eval(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("[%eval") {
        out.push_str(&rest[..i]);
        match rest[i..].find(']') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// SAN of `line` from `pos` with move numbers (`14. Nf3 Nd7 15. Qe2`).
pub fn line_text(pos: &Position, line: &[Move]) -> String {
    let mut p = pos.clone();
    let mut out = String::new();
    for (k, &m) in line.iter().enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        match p.turn() {
            Color::White => out.push_str(&format!("{}. ", p.fullmoves())),
            Color::Black if k == 0 => out.push_str(&format!("{}... ", p.fullmoves())),
            Color::Black => {}
        }
        out.push_str(&SanPlus::from_move(&p, m).to_string());
        p.play_unchecked(m);
    }
    out
}

/// The words of a judged move's comment (`Mistake: walks into mate in 3. Nf3 was best.`).
fn verdict_words(v: &Verdict, best: Option<&str>) -> Option<String> {
    if v.class.is_none() && v.mate.is_none() {
        return None;
    }
    let mut s = v.class.map_or_else(String::new, |c| c.word().to_string());
    if let Some(m) = v.mate {
        if s.is_empty() {
            s = m.to_string();
            s[..1].make_ascii_uppercase();
        } else {
            s.push_str(&format!(": {m}"));
        }
    }
    s.push('.');
    if let Some(b) = best {
        s.push_str(&format!(" {b} was best."));
    }
    Some(s)
}

/// Whether a move gets the engine's lines as variations.
fn wants_lines(v: &Verdict) -> bool {
    matches!(v.class, Some(Class::Mistake | Class::Blunder))
        || matches!(v.mate, Some(judge::MateNote::MissedMate(_)))
}

/// The engine's lines from `pos` that differ from the move played, as variations.
fn better_lines(
    pos: &Position,
    pe: &PositionEval,
    played: Move,
    plies: usize,
) -> Vec<(Vec<Move>, Eval)> {
    pe.lines
        .iter()
        .filter(|(pv, _)| pv.first() != Some(&played))
        .map(|(pv, e)| (pv[..pv.len().min(plies.max(1))].to_vec(), *e))
        .filter(|(pv, _)| {
            // Lines were checked legal when the engine's answer was read;
            // check again so that a tree we write is always playable.
            let mut p = pos.clone();
            pv.iter().all(|&m| {
                let ok = p.is_legal(m);
                p.play_unchecked(m);
                ok
            })
        })
        .collect()
}

fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The summary comment: the start position's evaluation (when it was
/// searched), engine, limits, each player's figures.
fn summary_comment(game: &Game, a: &GameAnalysis, opts: &AnnotateOptions) -> String {
    let mut s = match a.positions.first() {
        Some(Some(p)) => format!("{} ", eval_command(p.eval)),
        _ => String::new(),
    };
    s.push_str(&format!(
        "Annotated by rookery with {} ({})",
        a.engine, a.limits
    ));
    if opts.book_plies > 0 {
        s.push_str(&format!(", first {} plies not judged", opts.book_plies));
    }
    s.push('.');
    for (side, name, f) in [
        ("White", game.tags.get("White"), &a.white),
        ("Black", game.tags.get("Black"), &a.black),
    ] {
        let who = match name {
            Some(n) if !n.trim().is_empty() && n != "?" => format!("{side} ({n})"),
            _ => side.to_string(),
        };
        match (f.accuracy(), f.acpl()) {
            (Some(acc), Some(acpl)) => s.push_str(&format!(
                " {who}: accuracy {acc:.1}%, ACPL {acpl}, {}, {}, {}.",
                count(f.inaccuracies, "inaccuracy", "inaccuracies"),
                count(f.mistakes, "mistake", "mistakes"),
                count(f.blunders, "blunder", "blunders")
            )),
            _ => s.push_str(&format!(" {who}: no move judged.")),
        }
    }
    s
}

/// The tags of the figures: `WhiteACPL`, `WhiteAccuracy`, `WhiteInaccuracies`,
/// `WhiteMistakes`, `WhiteBlunders` and the same for Black (ACPL and accuracy
/// only when a move was judged).
pub fn figure_tags(a: &GameAnalysis) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (side, f) in [("White", &a.white), ("Black", &a.black)] {
        if let Some(acpl) = f.acpl() {
            out.push((format!("{side}ACPL"), acpl.to_string()));
        }
        if let Some(acc) = f.accuracy() {
            out.push((format!("{side}Accuracy"), format!("{acc:.1}")));
        }
        out.push((format!("{side}Inaccuracies"), f.inaccuracies.to_string()));
        out.push((format!("{side}Mistakes"), f.mistakes.to_string()));
        out.push((format!("{side}Blunders"), f.blunders.to_string()));
    }
    out
}

/// A copy of `game` with the annotations of `a` (see the module docs).
pub fn annotated_game(game: &Game, a: &GameAnalysis, opts: &AnnotateOptions) -> Game {
    let mut out = game.clone();
    for (name, value) in figure_tags(a) {
        out.tags.insert(&name, value);
    }
    if out.tags.get("Annotator").is_none() {
        out.tags
            .insert("Annotator", format!("rookery ({}, {})", a.engine, a.limits));
    }
    let mut pos = game.start.clone();
    for (i, node) in out.mainline.nodes.iter_mut().enumerate() {
        let mut ours = Vec::new();
        if let Some(Some(after)) = a.positions.get(i + 1) {
            ours.push(eval_command(after.eval));
        }
        let verdict = a.verdicts.get(i).copied().flatten();
        let before = a.positions.get(i).and_then(Option::as_ref);
        let lines = match (verdict, before) {
            (Some(v), Some(b)) if wants_lines(&v) => {
                better_lines(&pos, b, node.mv, opts.line_plies)
            }
            _ => Vec::new(),
        };
        if let Some(v) = verdict {
            let best = before
                .and_then(|b| b.lines.first())
                .and_then(|(pv, _)| pv.first())
                .filter(|&&m| m != node.mv)
                .map(|&m| SanPlus::from_move(&pos, m).to_string());
            if let Some(words) = verdict_words(&v, best.as_deref()) {
                ours.push(words);
            }
            // A move-assessment NAG from the input (a human's) stands.
            if let Some(c) = v.class {
                if !node.nags.iter().any(|n| (1..=6).contains(&n.0)) {
                    node.nags.push(c.nag());
                }
            }
        }
        let mut comments: Vec<String> = node
            .comments_after
            .iter()
            .map(|c| strip_eval(c))
            .filter(|c| !c.is_empty())
            .collect();
        if !ours.is_empty() {
            comments.insert(0, ours.join(" "));
        }
        node.comments_after = comments;
        for (pv, e) in lines {
            let mut line = Line::default();
            for (k, &m) in pv.iter().enumerate() {
                let mut n = Node::new(m);
                if k == 0 {
                    n.comments_after.push(eval_command(e));
                }
                line.nodes.push(n);
            }
            node.variations.push(line);
        }
        pos.play_unchecked(node.mv);
    }
    let summary = summary_comment(game, a, opts);
    match out.mainline.nodes.first_mut() {
        Some(first) => first.comments_before.insert(0, summary),
        None => out.mainline.trailing_comments.insert(0, summary),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_evals_are_removed_other_commands_kept() {
        assert_eq!(
            strip_eval("[%eval 0.3] [%clk 0:01:00] good"),
            "[%clk 0:01:00] good"
        );
        assert_eq!(strip_eval("[%eval #-2]"), "");
        assert_eq!(strip_eval("plain"), "plain");
        assert_eq!(strip_eval("broken [%eval 1"), "broken");
    }

    #[test]
    fn lines_are_numbered() {
        let pos = Position::startpos();
        let e4 = rookery_core::San::from_ascii(b"e4")
            .unwrap()
            .to_move(&pos)
            .unwrap();
        let after = pos.after(e4);
        let e5 = rookery_core::San::from_ascii(b"e5")
            .unwrap()
            .to_move(&after)
            .unwrap();
        assert_eq!(line_text(&pos, &[e4, e5]), "1. e4 e5");
        assert_eq!(line_text(&after, &[e5]), "1... e5");
    }
}
