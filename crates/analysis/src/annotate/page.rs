//! From an analysed game to the page model of `rookery-report`.

use super::judge::{Class, PlayerFigures};
use super::{better_lines, line_text, wants_lines, AnnotateOptions, GameAnalysis};
use rookery_core::{Color, Fen, File, Move, Position, SanPlus, Square};
use rookery_report::game_model::{Diagram, MoveMark, PageGame, PageLine, PageMove, PlayerSummary};

fn mark(c: Class) -> MoveMark {
    match c {
        Class::Inaccuracy => MoveMark::Inaccuracy,
        Class::Mistake => MoveMark::Mistake,
        Class::Blunder => MoveMark::Blunder,
    }
}

fn summary(f: &PlayerFigures) -> PlayerSummary {
    PlayerSummary {
        moves: f.moves,
        acpl: f.acpl(),
        accuracy: f.accuracy(),
        inaccuracies: f.inaccuracies,
        mistakes: f.mistakes,
        blunders: f.blunders,
    }
}

/// From and to squares of a move as drawn (a castling king goes to the g or c file).
fn squares(m: Move) -> (String, String) {
    let to = if m.is_castle() {
        let file = if m.to().file() > m.from().file() {
            File::G
        } else {
            File::C
        };
        Square::from_coords(file, m.from().rank())
    } else {
        m.to()
    };
    (m.from().to_string(), to.to_string())
}

/// The page's view of game `index`: unannotated (with `error` saying why)
/// when `analysis` is `None`.
pub fn page_game(
    index: usize,
    game: &rookery_pgn::Game,
    analysis: Option<&GameAnalysis>,
    opts: &AnnotateOptions,
    error: Option<String>,
) -> PageGame {
    let tag = |n: &str| game.tags.get(n).unwrap_or("?").to_string();
    let about = ["Event", "Site", "Date", "Round"]
        .iter()
        .filter_map(|n| game.tags.get(n))
        .filter(|v| !v.trim().is_empty() && !v.starts_with('?'))
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = PageGame {
        index,
        white: tag("White"),
        black: tag("Black"),
        about,
        result: game.result.as_str().to_string(),
        error,
        ..PageGame::default()
    };
    let Some(a) = analysis else {
        return out;
    };
    out.white_summary = summary(&a.white);
    out.black_summary = summary(&a.black);
    let mut pos: Position = game.start.clone();
    for (i, node) in game.mainline.nodes.iter().enumerate() {
        let by_white = pos.turn() == Color::White;
        let number = if by_white {
            format!("{}.", pos.fullmoves())
        } else {
            format!("{}...", pos.fullmoves())
        };
        let after = a.positions.get(i + 1).and_then(Option::as_ref);
        let before = a.positions.get(i).and_then(Option::as_ref);
        let verdict = a.verdicts.get(i).copied().flatten();
        let mut m = PageMove {
            ply: i + 1,
            number,
            by_white,
            san: SanPlus::from_move(&pos, node.mv).to_string(),
            eval: after.map(|p| p.eval.to_string()),
            white_win: after.map(|p| p.eval.win_percent(Color::White)),
            mark: verdict.and_then(|v| v.class).map(mark),
            note: verdict.and_then(|v| v.mate).map(|n| n.to_string()),
            ..PageMove::default()
        };
        if let (Some(v), Some(b)) = (verdict, before) {
            if wants_lines(&v) {
                m.better = better_lines(&pos, b, node.mv, opts.line_plies)
                    .iter()
                    .map(|(pv, e)| PageLine {
                        moves: line_text(&pos, pv),
                        eval: e.to_string(),
                    })
                    .collect();
            }
            if v.class == Some(Class::Blunder) {
                m.diagram = Some(Diagram {
                    fen: Fen::from_position(&pos).to_string(),
                    played: Some(squares(node.mv)),
                    best: b
                        .lines
                        .first()
                        .and_then(|(pv, _)| pv.first())
                        .filter(|&&bm| bm != node.mv)
                        .map(|&bm| squares(bm)),
                });
            }
        }
        out.moves.push(m);
        pos.play_unchecked(node.mv);
    }
    out
}
