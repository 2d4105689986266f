//! Checks of the principal variations an engine reports while it searches:
//! a PV is a claim about the game, and a wrong one is an engine bug worth
//! knowing about (fishtest fails a task on one).
//!
//! Every `info ... pv ...` line of a search is played out from the position
//! searched, with the game's history (so that a repetition counts): a move
//! that is not legal, or one played after the game is over by checkmate,
//! stalemate, threefold repetition or the fifty-move rule, is a warning
//! (insufficient material is not: engines search on in such positions).
//! With the mate checks on (fastchess's `-check-mate-pvs`), an exact mate
//! score must come with a PV of exactly its length (`mate N` is `2N - 1`
//! plies, `mate -N` is `2N`) ending in checkmate. Last, the move played must
//! be the first move of the last PV of the first (or only) line. The checks
//! and their order are fastchess's, so that its warnings and rookery's
//! agree.
//!
//! ```
//! use rookery_core::{Game, Position, UciMove};
//! use rookery_game::pvcheck::{check_line, PvWarning};
//! use rookery_uci::Info;
//!
//! let game = Game::new(Position::startpos());
//! let info = Info {
//!     pv: Some(vec!["e2e4".parse().unwrap(), "e2e4".parse().unwrap()]),
//!     ..Info::default()
//! };
//! let warning = check_line(&game, &info, false);
//! assert_eq!(warning, Some(PvWarning::IllegalMove("e2e4".parse().unwrap())));
//! ```

use rookery_core::{CastlingMode, Color, Fen, Game, Position, Score, Termination, UciMove};
use rookery_uci::{Info, ScoreBound};
use std::fmt;

/// What is wrong with a PV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PvWarning {
    /// This move of the PV is not legal where it stands.
    IllegalMove(UciMove),
    /// The PV goes on with this move after a threefold repetition.
    AfterThreefoldRepetition(UciMove),
    /// The PV goes on with this move after the fifty-move rule.
    AfterFiftyMoveRule(UciMove),
    /// The PV goes on with this move after checkmate.
    AfterCheckmate(UciMove),
    /// The PV goes on with this move after stalemate.
    AfterStalemate(UciMove),
    /// A mate score with a PV shorter than the mate.
    IncompleteMatingPv,
    /// A mate score with a PV longer than the mate.
    TooLongMatingPv,
    /// A mate score whose PV does not end in checkmate.
    MatingPvNotCheckmate,
    /// The move played is not the first move of the last PV.
    BestmoveMismatch(UciMove),
}

impl PvWarning {
    /// fastchess's words for the warning of `engine`:
    /// `Warning; Illegal PV move - move e2e5 from NAME`.
    pub fn fastchess_text(&self, engine: &str) -> String {
        match self {
            PvWarning::IllegalMove(m) => {
                format!("Warning; Illegal PV move - move {m} from {engine}")
            }
            PvWarning::AfterThreefoldRepetition(m) => {
                format!("Warning; PV continues after threefold repetition - move {m} from {engine}")
            }
            PvWarning::AfterFiftyMoveRule(m) => {
                format!("Warning; PV continues after fifty-move rule - move {m} from {engine}")
            }
            PvWarning::AfterCheckmate(m) => {
                format!("Warning; PV continues after checkmate - move {m} from {engine}")
            }
            PvWarning::AfterStalemate(m) => {
                format!("Warning; PV continues after stalemate - move {m} from {engine}")
            }
            PvWarning::IncompleteMatingPv => {
                format!("Warning; Incomplete mating PV - from {engine}")
            }
            PvWarning::TooLongMatingPv => format!("Warning; Too long mating PV - from {engine}"),
            PvWarning::MatingPvNotCheckmate => {
                format!("Warning; Mating PV does not end with checkmate - from {engine}")
            }
            PvWarning::BestmoveMismatch(m) => format!(
                "Warning; Bestmove does not match beginning of last PV - move {m} from {engine}"
            ),
        }
    }
}

impl fmt::Display for PvWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PvWarning::IllegalMove(m) => write!(f, "illegal move {m} in its PV"),
            PvWarning::AfterThreefoldRepetition(m) => {
                write!(f, "its PV goes on with {m} after a threefold repetition")
            }
            PvWarning::AfterFiftyMoveRule(m) => {
                write!(f, "its PV goes on with {m} after the fifty-move rule")
            }
            PvWarning::AfterCheckmate(m) => write!(f, "its PV goes on with {m} after checkmate"),
            PvWarning::AfterStalemate(m) => write!(f, "its PV goes on with {m} after stalemate"),
            PvWarning::IncompleteMatingPv => f.write_str("its mating PV is shorter than the mate"),
            PvWarning::TooLongMatingPv => f.write_str("its mating PV is longer than the mate"),
            PvWarning::MatingPvNotCheckmate => {
                f.write_str("its mating PV does not end with checkmate")
            }
            PvWarning::BestmoveMismatch(m) => {
                write!(f, "it played {m}, which does not begin its last PV")
            }
        }
    }
}

/// A warning about one info line of a search, with the line and where the
/// game stood (what fastchess prints beside its warnings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvReport {
    /// What is wrong.
    pub warning: PvWarning,
    /// The info line as the engine sent it (rewritten from its fields).
    pub info: String,
    /// The side whose search it was.
    pub mover: Color,
    /// The game's start as UCI's `position` says it: `startpos` or `fen F`.
    pub start: String,
    /// The moves played before the search, in UCI, space-separated.
    pub moves: String,
}

impl PvReport {
    /// fastchess's warning line for `engine`, its parts joined by ` :: `
    /// as fastchess's `-testEnv` joins them:
    /// `Warning; ... from NAME :: Info; info ... :: Position; startpos :: Moves; e2e4 ...`.
    pub fn fastchess_line(&self, engine: &str) -> String {
        format!(
            "{} :: Info; {} :: Position; {} :: Moves; {}",
            self.warning.fastchess_text(engine),
            self.info,
            self.start,
            self.moves
        )
    }
}

/// Checks one info line's PV in `game` (the position searched, with its
/// history); `None` when it has no PV or nothing is wrong. `mates` turns on
/// the mate checks.
pub fn check_line(game: &Game, info: &Info, mates: bool) -> Option<PvWarning> {
    let pv = info.pv.as_deref().filter(|pv| !pv.is_empty())?;
    let mut g = game.clone();
    for &m in pv {
        match g.status() {
            Some(Termination::ThreefoldRepetition | Termination::FivefoldRepetition) => {
                return Some(PvWarning::AfterThreefoldRepetition(m))
            }
            Some(Termination::FiftyMoves | Termination::SeventyFiveMoves) => {
                return Some(PvWarning::AfterFiftyMoveRule(m))
            }
            Some(Termination::Checkmate) => return Some(PvWarning::AfterCheckmate(m)),
            Some(Termination::Stalemate) => return Some(PvWarning::AfterStalemate(m)),
            Some(Termination::InsufficientMaterial) | None => {}
        }
        let Ok(legal) = m.to_move(g.position()) else {
            return Some(PvWarning::IllegalMove(m));
        };
        if g.play(legal).is_err() {
            return Some(PvWarning::IllegalMove(m));
        }
    }
    if !mates {
        return None;
    }
    let score = info.score.as_ref()?;
    let (Score::Mate(n), ScoreBound::Exact) = (score.value, score.bound) else {
        return None;
    };
    let plies = if n > 0 {
        2 * n as usize - 1
    } else {
        2 * n.unsigned_abs() as usize
    };
    if pv.len() < plies {
        return Some(PvWarning::IncompleteMatingPv);
    }
    if pv.len() > plies {
        return Some(PvWarning::TooLongMatingPv);
    }
    let end = g.position();
    if end.has_legal_move() || !end.is_check() {
        return Some(PvWarning::MatingPvNotCheckmate);
    }
    None
}

/// Checks every info line of a search of `game`'s position that ended in
/// `played`: each line's PV ([`check_line`]), then whether `played` begins
/// the last PV of the first line (an exact score, or none).
pub fn check_search(game: &Game, infos: &[Info], played: UciMove, mates: bool) -> Vec<PvReport> {
    let report = |warning: PvWarning, info: &Info| {
        let mode = if game.start().is_chess960_castling() {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let start = if *game.start() == Position::startpos() {
            "startpos".to_string()
        } else {
            format!("fen {}", Fen::from_position(game.start()))
        };
        let mut pos = game.start().clone();
        let mut moves = Vec::with_capacity(game.moves().len());
        for &m in game.moves() {
            moves.push(UciMove::from_move(&pos, m, mode).to_string());
            pos.play_unchecked(m);
        }
        PvReport {
            warning,
            info: info.to_string(),
            mover: game.position().turn(),
            start,
            moves: moves.join(" "),
        }
    };
    let mut out: Vec<PvReport> = infos
        .iter()
        .filter_map(|info| check_line(game, info, mates).map(|w| report(w, info)))
        .collect();
    let last = infos
        .iter()
        .rev()
        .find(|i| i.multipv.unwrap_or(1) <= 1 && i.pv.as_ref().is_some_and(|pv| !pv.is_empty()));
    if let Some(info) = last {
        let bound = info
            .score
            .as_ref()
            .is_some_and(|s| s.bound != ScoreBound::Exact);
        let first = info.pv.as_ref().and_then(|pv| pv.first().copied());
        if !bound && first.is_some_and(|f| f != played) {
            out.push(report(PvWarning::BestmoveMismatch(played), info));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::Position;
    use rookery_uci::InfoScore;

    fn mv(s: &str) -> UciMove {
        s.parse().unwrap()
    }

    fn line(pv: &str, score: Option<InfoScore>) -> Info {
        Info {
            pv: Some(pv.split_whitespace().map(mv).collect()),
            score,
            ..Info::default()
        }
    }

    fn game(fen: &str, moves: &str) -> Game {
        let mut g = Game::new(Position::from_fen(fen).unwrap());
        for m in moves.split_whitespace() {
            let m = mv(m).to_move(g.position()).unwrap();
            g.play(m).unwrap();
        }
        g
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn a_legal_pv_passes_and_an_illegal_move_is_named() {
        let g = game(START, "");
        assert_eq!(check_line(&g, &line("e2e4 e7e5 g1f3", None), true), None);
        assert_eq!(
            check_line(&g, &line("e2e4 e7e5 e4e5", None), false),
            Some(PvWarning::IllegalMove(mv("e4e5")))
        );
        assert_eq!(check_line(&g, &Info::default(), true), None);
    }

    /// Fool's mate: the PV goes on after checkmate; a mate in 1 with its
    /// one move passes, with a longer or shorter PV it does not.
    #[test]
    fn mates_and_moves_after_them() {
        let g = game(START, "f2f3 e7e5 g2g4");
        let mate1 = Some(InfoScore {
            value: Score::Mate(1),
            bound: ScoreBound::Exact,
        });
        assert_eq!(check_line(&g, &line("d8h4", mate1), true), None);
        assert_eq!(
            check_line(&g, &line("d8h4 a2a3", mate1), false),
            Some(PvWarning::AfterCheckmate(mv("a2a3")))
        );
        // After the mate, any move is "after checkmate", as fastchess says.
        assert_eq!(
            check_line(&g, &line("d8h4 e1f2", mate1), true),
            Some(PvWarning::AfterCheckmate(mv("e1f2")))
        );
        assert_eq!(
            check_line(&g, &line("d8h5", mate1), true),
            Some(PvWarning::IllegalMove(mv("d8h5")))
        );
        let mate2 = Some(InfoScore {
            value: Score::Mate(2),
            bound: ScoreBound::Exact,
        });
        assert_eq!(
            check_line(&g, &line("d8h4", mate2), true),
            Some(PvWarning::IncompleteMatingPv)
        );
        assert_eq!(check_line(&g, &line("d8h4", mate2), false), None);
        assert_eq!(
            check_line(&g, &line("a7a6", mate1), true),
            Some(PvWarning::MatingPvNotCheckmate)
        );
        let lower = Some(InfoScore {
            value: Score::Mate(1),
            bound: ScoreBound::Lower,
        });
        assert_eq!(check_line(&g, &line("a7a6 a2a3", lower), true), None);
        // Mated in 1: two plies.
        let g = game(START, "f2f3 e7e5");
        let mated = Some(InfoScore {
            value: Score::Mate(-1),
            bound: ScoreBound::Exact,
        });
        assert_eq!(check_line(&g, &line("g2g4 d8h4", mated), true), None);
        assert_eq!(
            check_line(&g, &line("g2g4 d8h4 a2a3", mated), true),
            Some(PvWarning::AfterCheckmate(mv("a2a3")))
        );
    }

    /// The game's history counts: the third occurrence ends the PV.
    #[test]
    fn a_pv_past_a_repetition_or_the_fifty_moves() {
        let g = game(START, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
        assert_eq!(
            check_line(&g, &line("f6g8 g1f3", None), false),
            Some(PvWarning::AfterThreefoldRepetition(mv("g1f3")))
        );
        let g = game("8/8/4k3/8/8/4K3/8/6R1 w - - 99 80", "");
        assert_eq!(
            check_line(&g, &line("g1g2 e6e5", None), false),
            Some(PvWarning::AfterFiftyMoveRule(mv("e6e5")))
        );
        // Insufficient material is no end for a PV.
        let g = game("8/8/4k3/8/8/4K3/8/8 w - - 0 1", "");
        assert_eq!(check_line(&g, &line("e3d3 e6d6", None), false), None);
    }

    #[test]
    fn the_move_played_begins_the_last_pv() {
        let g = game(START, "");
        let infos = [line("d2d4", None), line("e2e4 e7e5", None)];
        assert!(check_search(&g, &infos, mv("e2e4"), false).is_empty());
        let r = check_search(&g, &infos, mv("d2d4"), false);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].warning, PvWarning::BestmoveMismatch(mv("d2d4")));
        assert!(r[0].info.contains("pv e2e4 e7e5"), "{}", r[0].info);
        assert_eq!((r[0].start.as_str(), r[0].moves.as_str()), ("startpos", ""));
        assert_eq!(r[0].mover, Color::White);
        let g2 = game("8/8/4k3/8/8/4K3/8/6R1 w - - 0 1", "e3d3");
        let r2 = check_search(&g2, &[line("e6e5 a2a3", None)], mv("e6e5"), false);
        assert_eq!(r2[0].warning, PvWarning::IllegalMove(mv("a2a3")));
        assert_eq!(
            r2[0].fastchess_line("X"),
            "Warning; Illegal PV move - move a2a3 from X :: Info; info pv e6e5 a2a3 :: \
             Position; fen 8/8/4k3/8/8/4K3/8/6R1 w - - 0 1 :: Moves; e3d3"
        );
        assert_eq!(
            r[0].warning.fastchess_text("New-abc"),
            "Warning; Bestmove does not match beginning of last PV - move d2d4 from New-abc"
        );
        // A second line of a multi-PV search is not the one to match.
        let mut second = line("c2c4", None);
        second.multipv = Some(2);
        let infos = [line("e2e4", None), second];
        assert!(check_search(&g, &infos, mv("e2e4"), false).is_empty());
    }
}
