//! The record of a game, and the PGN written from it.
//!
//! A [`GameRecord`] is plain data: the start position, every move with the
//! time it took, the clock after it and what the engine said, and how the
//! game ended. It is what the game core produces, what the journal stores
//! and what PGN is written from; live engine objects never reach the PGN.

use crate::clock::TimeControl;
use rookery_core::Score;
use rookery_core::{Color, Fen, Move, Position, SanPlus, UciMove};
use rookery_pgn::{Game as PgnGame, GameResult, Line, Node, Tags};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// Why a game ended, as the PGN `Termination` tag says it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Termination {
    /// By the rules: mate, stalemate, a draw rule.
    Normal,
    /// Decided by the referee on the engines' scores or a move limit.
    Adjudication,
    /// A player ran out of time.
    TimeForfeit,
    /// A player's program crashed or its connection closed.
    Abandoned,
    /// A player stopped answering.
    StalledConnection,
    /// A player sent an illegal move.
    IllegalMove,
    /// A player broke the protocol.
    RulesInfraction,
    /// Not finished.
    Unterminated,
}

impl Termination {
    /// The tag value (`normal`, `time forfeit`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Adjudication => "adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::Abandoned => "abandoned",
            Termination::StalledConnection => "stalled connection",
            Termination::IllegalMove => "illegal move",
            Termination::RulesInfraction => "rules infraction",
            Termination::Unterminated => "unterminated",
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One move of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// The move in UCI notation (king-takes-rook castling in Chess960).
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// An opening move, not played by an engine.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub book: bool,
    /// Milliseconds the move took, measured by the referee.
    #[serde(default)]
    pub time_ms: u64,
    /// The mover's clock after the move, in milliseconds (clock controls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
    /// The engine's score for the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<Score>,
    /// Depth reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Nodes searched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Selective depth reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seldepth: Option<u32>,
    /// The engine's last `info string` lines of the search, as received
    /// (at most [`MoveRecord::INFO_STRINGS`]), for the PGN's `match_line=`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub info_strings: Vec<String>,
    /// What was wrong with the PVs the engine reported for the move (not
    /// journaled: told when the move is played).
    #[serde(skip)]
    pub pv_warnings: Vec<crate::pvcheck::PvReport>,
}

/// Both sides' clocks as a game's move records tell them: the one reading
/// of [`MoveRecord::time_ms`] and [`MoveRecord::clock_ms`] (a book move
/// costs nothing; a clock reading replaces the mover's last).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    /// The time White and Black have used (ms), as EPD's `cc` reports it.
    pub used_ms: [u64; 2],
    /// White's and Black's clocks after their last moves (ms), where the
    /// time control has a clock; what they were set to before.
    pub clock_ms: [Option<u64>; 2],
}

impl Clocks {
    /// Clocks set to `clock_ms` (White's, Black's), nothing used yet.
    pub fn new(clock_ms: [Option<u64>; 2]) -> Clocks {
        Clocks {
            used_ms: [0, 0],
            clock_ms,
        }
    }

    /// Charges `mv`, a move of `side` (0 White, 1 Black).
    pub fn charge(&mut self, side: usize, mv: &MoveRecord) {
        if mv.book {
            return;
        }
        self.used_ms[side] = self.used_ms[side].saturating_add(mv.time_ms);
        if mv.clock_ms.is_some() {
            self.clock_ms[side] = mv.clock_ms;
        }
    }

    /// The time White and Black have used.
    pub fn used(&self) -> [Duration; 2] {
        self.used_ms.map(Duration::from_millis)
    }
}

impl MoveRecord {
    /// The record of `m`, an opening move played from `pos` by the book,
    /// not by an engine.
    pub fn book(pos: &Position, m: Move, mode: rookery_core::CastlingMode) -> MoveRecord {
        MoveRecord {
            book: true,
            ..MoveRecord::new(UciMove::from_move(pos, m, mode).to_string(), san_of(pos, m))
        }
    }

    /// A move known by its notation only (UCI, SAN): played by an engine,
    /// in no time, without a clock, a score or search figures; the caller
    /// sets what it knows of the rest.
    pub fn new(uci: impl Into<String>, san: impl Into<String>) -> MoveRecord {
        MoveRecord {
            uci: uci.into(),
            san: san.into(),
            book: false,
            time_ms: 0,
            clock_ms: None,
            score: None,
            depth: None,
            nodes: None,
            seldepth: None,
            info_strings: Vec::new(),
            pv_warnings: Vec::new(),
        }
    }

    /// The most `info string` lines a move keeps.
    pub const INFO_STRINGS: usize = 8;

    /// [`MoveRecord::comment`] with what `style` adds, each after `, `:
    /// `n=NODES`, `sd=SELDEPTH` and, for each of `lines` (the compiled
    /// [`PgnStyle::match_line`]), `line="..."` with the last `info string`
    /// line it matches (fastchess's order and words).
    pub fn comment_with(&self, style: &PgnStyle, lines: &[regex::Regex]) -> String {
        let mut out = self.comment();
        if self.book {
            return out;
        }
        if style.nodes {
            out.push_str(&format!(", n={}", self.nodes.unwrap_or(0)));
        }
        if style.seldepth {
            out.push_str(&format!(", sd={}", self.seldepth.unwrap_or(0)));
        }
        for re in lines {
            if let Some(l) = self.info_strings.iter().rev().find(|l| re.is_match(l)) {
                // A comment ends at `}`: the line keeps everything else.
                out.push_str(&format!(", line=\"{}\"", l.replace('}', ")")));
            }
        }
        out
    }

    /// The PGN comment engine authors share: `+0.56/18 1.23s` (score from
    /// the mover's side, depth, time); book moves get `book`.
    pub fn comment(&self) -> String {
        if self.book {
            return "book".to_string();
        }
        let secs = format!("{:.3}", self.time_ms as f64 / 1000.0);
        let secs = secs.trim_end_matches('0').trim_end_matches('.');
        let mut out = String::new();
        if let Some(s) = self.score {
            out.push_str(&s.pawns().to_string());
            if let Some(d) = self.depth {
                out.push_str(&format!("/{d}"));
            }
            out.push(' ');
        }
        out.push_str(secs);
        out.push('s');
        out
    }
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameOutcome {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// A draw.
    Draw,
    /// Not finished.
    Unfinished,
}

impl GameOutcome {
    /// A win for `c`.
    pub fn win_for(c: Color) -> GameOutcome {
        match c {
            Color::White => GameOutcome::WhiteWins,
            Color::Black => GameOutcome::BlackWins,
        }
    }

    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameOutcome::WhiteWins => "1-0",
            GameOutcome::BlackWins => "0-1",
            GameOutcome::Draw => "1/2-1/2",
            GameOutcome::Unfinished => "*",
        }
    }

    /// White's points ×2 (2 win, 1 draw, 0 loss); `None` if unfinished.
    pub fn white_half_points(self) -> Option<u32> {
        match self {
            GameOutcome::WhiteWins => Some(2),
            GameOutcome::Draw => Some(1),
            GameOutcome::BlackWins => Some(0),
            GameOutcome::Unfinished => None,
        }
    }
}

/// A whole game, as the referee saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's number in its match or event (0-based).
    pub number: usize,
    /// Event name.
    pub event: String,
    /// Site.
    pub site: String,
    /// Round, as written in the `Round` tag (`3`, `3.1`).
    pub round: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// White's time control.
    pub white_tc: TimeControl,
    /// Black's time control.
    pub black_tc: TimeControl,
    /// The starting position (FEN) before the opening moves.
    pub start_fen: String,
    /// Every move, opening moves first.
    pub moves: Vec<MoveRecord>,
    /// The result.
    pub outcome: GameOutcome,
    /// Why the game ended.
    pub termination: Termination,
    /// The ending in words (`White mates`, `Black loses on time`).
    pub reason: String,
    /// UTC start time, `YYYY.MM.DD` and `HH:MM:SS`.
    pub started: (String, String),
    /// The event's date (`YYYY.MM.DD`) for the `Date` tag, when it has one
    /// of its own (an Argus event file's `date`); else the day the game
    /// started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Wall time of the game in milliseconds.
    pub duration_ms: u64,
}

/// A record that does not replay (a damaged journal).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game {game}: {reason}")]
pub struct RecordError {
    /// The game's number.
    pub game: usize,
    /// What is wrong.
    pub reason: String,
}

/// The words of [`GameRecord::reason`] before the move, when a player lost
/// by an illegal move (`White makes an illegal move: e2e5`).
pub const ILLEGAL_MOVE_WORDS: &str = "makes an illegal move: ";

impl GameRecord {
    /// The player who lost by an illegal move, and the move as it was
    /// sent; `None` for any other ending.
    pub fn illegal_move(&self) -> Option<(&str, &str)> {
        if self.termination != Termination::IllegalMove {
            return None;
        }
        let (_, mv) = self.reason.split_once(ILLEGAL_MOVE_WORDS)?;
        let loser = match self.outcome {
            GameOutcome::WhiteWins => &self.black,
            GameOutcome::BlackWins => &self.white,
            _ => return None,
        };
        Some((loser, mv))
    }

    /// The starting position.
    ///
    /// # Errors
    /// [`RecordError`] if the FEN is not a legal position.
    pub fn start_position(&self) -> Result<Position, RecordError> {
        Position::from_fen(&self.start_fen).map_err(|e| RecordError {
            game: self.number,
            reason: format!("bad start FEN {:?}: {e}", self.start_fen),
        })
    }

    /// The moves, checked by replaying them from the start.
    ///
    /// # Errors
    /// [`RecordError`] naming the first move that does not replay.
    pub fn replay(&self) -> Result<(Position, Vec<Move>), RecordError> {
        let start = self.start_position()?;
        let mut pos = start.clone();
        let mut out = Vec::with_capacity(self.moves.len());
        for (i, r) in self.moves.iter().enumerate() {
            let m = r
                .uci
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
                .ok_or_else(|| RecordError {
                    game: self.number,
                    reason: format!("move {} ({}) is not legal", i + 1, r.uci),
                })?;
            pos.play_unchecked(m);
            out.push(m);
        }
        Ok((start, out))
    }

    /// The final position.
    ///
    /// # Errors
    /// As [`GameRecord::replay`].
    pub fn final_position(&self) -> Result<Position, RecordError> {
        let (mut pos, moves) = self.replay()?;
        for m in moves {
            pos.play_unchecked(m);
        }
        Ok(pos)
    }

    /// The game as a PGN game tree: the Seven Tag Roster, then `TimeControl`
    /// (or `WhiteTimeControl`/`BlackTimeControl` at time odds), `FEN` and
    /// `SetUp` when the game did not start from the standard position,
    /// `PlyCount`, `Termination`, `GameStartTime`, `GameDuration`; each
    /// engine move with its `{+0.56/18 1.23s}` comment, and the ending in
    /// words after the last move.
    ///
    /// # Errors
    /// As [`GameRecord::replay`].
    pub fn to_pgn(&self) -> Result<PgnGame, RecordError> {
        self.to_pgn_with(&PgnStyle::default())
    }

    /// The game as [`GameRecord::to_pgn`] writes it, or minimal when
    /// `style` says so: the Seven Tag Roster (with `FEN`, `SetUp` and
    /// `Variant` when the start needs them) and the moves, no comments.
    ///
    /// # Errors
    /// As [`GameRecord::replay`].
    pub fn to_pgn_with(&self, style: &PgnStyle) -> Result<PgnGame, RecordError> {
        let (start, moves) = self.replay()?;
        let mut tags = Tags::default();
        tags.insert("Event", self.event.clone());
        tags.insert("Site", self.site.clone());
        tags.insert(
            "Date",
            self.date.clone().unwrap_or_else(|| self.started.0.clone()),
        );
        tags.insert("Round", self.round.clone());
        tags.insert("White", self.white.clone());
        tags.insert("Black", self.black.clone());
        tags.insert("Result", self.outcome.as_str().to_string());
        let full = !style.minimal;
        if !full {
        } else if self.white_tc == self.black_tc {
            tags.insert("TimeControl", self.white_tc.pgn_tag());
        } else {
            tags.insert("WhiteTimeControl", self.white_tc.pgn_tag());
            tags.insert("BlackTimeControl", self.black_tc.pgn_tag());
        }
        if start != Position::startpos() {
            tags.insert("FEN", Fen::from_position(&start).to_string());
            tags.insert("SetUp", "1".to_string());
            if start.is_chess960_castling() {
                let name = if style.fischerandom {
                    "fischerandom"
                } else {
                    "Chess960"
                };
                tags.insert("Variant", name.to_string());
            }
        }
        if full {
            tags.insert("PlyCount", self.moves.len().to_string());
            tags.insert("Termination", self.termination.as_str().to_string());
            tags.insert(
                "GameStartTime",
                format!(
                    "{}T{} UTC",
                    self.started.0.replace('.', "-"),
                    self.started.1
                ),
            );
            tags.insert(
                "GameDuration",
                fmt_hms(Duration::from_millis(self.duration_ms)),
            );
        }
        let mut line = Line::default();
        // Checked when the style was made (`rookery match` refuses a bad one).
        let lines: Vec<regex::Regex> = style
            .match_line
            .iter()
            .filter_map(|r| regex::Regex::new(r).ok())
            .collect();
        for (m, r) in moves.iter().zip(&self.moves) {
            let mut node = Node::new(*m);
            if full {
                node.comments_after.push(r.comment_with(style, &lines));
            }
            line.nodes.push(node);
        }
        if full && !self.reason.is_empty() {
            match line.nodes.last_mut() {
                Some(n) => n.comments_after.push(self.reason.clone()),
                None => line.trailing_comments.push(self.reason.clone()),
            }
        }
        Ok(PgnGame {
            tags,
            start,
            mainline: line,
            result: match self.outcome {
                GameOutcome::WhiteWins => GameResult::WhiteWins,
                GameOutcome::BlackWins => GameResult::BlackWins,
                GameOutcome::Draw => GameResult::Draw,
                GameOutcome::Unfinished => GameResult::Unknown,
            },
        })
    }

    /// The game in PGN export format, ending with a blank line.
    ///
    /// # Errors
    /// As [`GameRecord::replay`].
    pub fn pgn_text(&self) -> Result<String, RecordError> {
        self.pgn_text_with(&PgnStyle::default())
    }

    /// The game in PGN export format in `style` ([`GameRecord::to_pgn_with`]).
    ///
    /// # Errors
    /// As [`GameRecord::replay`].
    pub fn pgn_text_with(&self, style: &PgnStyle) -> Result<String, RecordError> {
        Ok(rookery_pgn::writer::game_to_string(
            &self.to_pgn_with(style)?,
        ))
    }

    /// The final position as an EPD line with the game's `id` and result.
    ///
    /// # Errors
    /// As [`GameRecord::replay`].
    pub fn epd_line(&self) -> Result<String, RecordError> {
        let pos = self.final_position()?;
        let fen = Fen::from_position(&pos).epd().to_string();
        Ok(format!(
            "{fen} id \"{} vs {}, game {}\"; c0 \"{} {}\";",
            self.white.replace('"', "'"),
            self.black.replace('"', "'"),
            self.number + 1,
            self.outcome.as_str(),
            self.termination.as_str()
        ))
    }
}

/// How an event writes its games to the PGN output (cutechess-cli's
/// `-pgnout FILE min fi`, fastchess's `min=true`, `seldepth=true`,
/// `nodes=true`, `match_line=REGEX`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PgnStyle {
    /// The Seven Tag Roster and the moves, no comments
    /// ([`GameRecord::to_pgn_with`]).
    #[serde(default)]
    pub minimal: bool,
    /// Only finished games: a game cut off when the event stops is not
    /// written (by default it is, unfinished, until a resume replaces it).
    #[serde(default)]
    pub finished_only: bool,
    /// A fresh file for a new event (fastchess's `append=false`): the
    /// games already in it are moved to the first free `PGN.N`, never
    /// lost, and the event's games begin the file.
    #[serde(default)]
    pub fresh: bool,
    /// Each move's comment has the nodes searched, `n=N` (fastchess's
    /// `nodes=true`).
    #[serde(default)]
    pub nodes: bool,
    /// Each move's comment has the selective depth, `sd=N` (fastchess's
    /// `seldepth=true`).
    #[serde(default)]
    pub seldepth: bool,
    /// Regular expressions (the `regex` crate's syntax): for each, the last
    /// of a move's `info string` lines it matches goes into the move's
    /// comment as `line="..."` (fastchess's `match_line=`; OpenBench's
    /// `^info string pgncomment .*`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_line: Vec<String>,
    /// A Chess960 game's `Variant` tag is cutechess-cli's `fischerandom`
    /// (else `Chess960`, as fastchess and the PGN readers write it).
    #[serde(default)]
    pub fischerandom: bool,
}

/// `H:MM:SS`.
fn fmt_hms(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// SAN of `m` in `pos`, with its check suffix.
pub fn san_of(pos: &Position, m: Move) -> String {
    SanPlus::from_move(pos, m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_charge_engine_moves_and_keep_the_last_reading() {
        let mut c = Clocks::new([Some(60_000), None]);
        let book = MoveRecord {
            book: true,
            time_ms: 900,
            clock_ms: Some(1),
            ..MoveRecord::new("e2e4", "e4")
        };
        c.charge(0, &book);
        assert_eq!(c, Clocks::new([Some(60_000), None]));
        let timed = |ms, clock| MoveRecord {
            time_ms: ms,
            clock_ms: clock,
            ..MoveRecord::new("e7e5", "e5")
        };
        c.charge(0, &timed(1_500, Some(58_600)));
        c.charge(1, &timed(700, None));
        c.charge(0, &timed(250, None));
        assert_eq!(c.used_ms, [1_750, 700]);
        assert_eq!(c.clock_ms, [Some(58_600), None]);
        assert_eq!(
            c.used(),
            [Duration::from_millis(1_750), Duration::from_millis(700)]
        );
    }

    #[test]
    fn move_comments_write_scores_in_pawns() {
        let mut m = MoveRecord {
            time_ms: 1500,
            score: Some(Score::Mate(-3)),
            depth: Some(9),
            ..MoveRecord::new("e2e4", "e4")
        };
        assert!(m.comment().starts_with("-M3/9 1.5"), "{}", m.comment());
        m.score = Some(Score::Cp(-120));
        assert!(m.comment().starts_with("-1.20/9 "), "{}", m.comment());
    }

    #[test]
    fn comments() {
        let r = MoveRecord {
            time_ms: 1230,
            score: Some(Score::Cp(56)),
            depth: Some(18),
            ..MoveRecord::new("e2e4", "e4")
        };
        assert_eq!(r.comment(), "+0.56/18 1.23s");
        let r = MoveRecord {
            time_ms: 1000,
            score: None,
            ..r
        };
        assert_eq!(r.comment(), "1s");
    }

    #[test]
    fn a_minimal_pgn_has_the_roster_and_the_moves_only() {
        let mv = |uci: &str, san: &str| MoveRecord {
            time_ms: 1230,
            score: Some(Score::Cp(56)),
            depth: Some(18),
            ..MoveRecord::new(uci, san)
        };
        let r = GameRecord {
            number: 0,
            event: "e".into(),
            site: "s".into(),
            round: "1".into(),
            white: "w".into(),
            black: "b".into(),
            white_tc: "10+0.1".parse().unwrap(),
            black_tc: "10+0.1".parse().unwrap(),
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            moves: vec![mv("e2e4", "e4"), mv("e7e5", "e5")],
            outcome: GameOutcome::Draw,
            termination: Termination::Adjudication,
            reason: "Draw by adjudication".into(),
            started: ("2024.01.02".into(), "03:04:05".into()),
            date: None,
            duration_ms: 1000,
        };
        let full = r.pgn_text().unwrap();
        assert!(
            full.contains("{+0.56/18 1.23s}") && full.contains("[PlyCount"),
            "{full}"
        );
        let minimal = PgnStyle {
            minimal: true,
            ..PgnStyle::default()
        };
        let min = r.pgn_text_with(&minimal).unwrap();
        let tags: Vec<&str> = min
            .lines()
            .filter(|l| l.starts_with('['))
            .map(|l| l[1..].split(' ').next().unwrap_or(""))
            .collect();
        assert_eq!(
            tags,
            ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
        );
        assert!(!min.contains('{'), "{min}");
        assert!(min.contains("1. e4 e5 1/2-1/2"), "{min}");
    }
}
