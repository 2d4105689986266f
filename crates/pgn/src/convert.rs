//! Conversions: PGN -> EPD (one record per mainline position), PGN -> FEN
//! list, and EPD -> PGN (a record's `sv` or `pv` becomes a game).
//!
//! ```
//! use rookery_pgn::convert::{game_to_epd, EpdOptions};
//! use rookery_pgn::Games;
//! let read = Games::new(&b"[White \"A\"]\n[Black \"B\"]\n1. e4 {best by test} e5 *"[..]).next().unwrap()?;
//! let records = game_to_epd(&read.game, read.index, &EpdOptions { ptp: false, comments: true });
//! assert_eq!(records.len(), 3);
//! assert_eq!(records[0].to_string(),
//!     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c0 \"best by test\"; fmvn 1; hmvc 0; \
//!      id \"A - B, game 1, ply 0\"; sm e4;");
//! # Ok::<(), std::io::Error>(())
//! ```

use rookery_core::{Fen, Move, Position};
use rookery_epd::{Identifier, Operation, Record};

use crate::game::{fen_of, Game, Line, Node, Tags, SEVEN_TAG_ROSTER};
use crate::types::GameResult;

/// What to put into the EPD records besides the position, clocks, `sm` and `id`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EpdOptions {
    /// `ptp` with the game's Seven Tag Roster.
    pub ptp: bool,
    /// `c0` with the comments after the move played from the position.
    pub comments: bool,
}

/// The `id` of a position: the players (and event/date when known), the game
/// index and the ply.
pub fn position_id(tags: &Tags, index: usize, ply: usize) -> String {
    let mut id = id_prefix(tags);
    push_game_ply(&mut id, index, ply);
    id
}

/// The part of [`position_id`] that is the same for every position of a game.
fn id_prefix(tags: &Tags) -> String {
    let known = |n: &str| tags.get(n).filter(|v| !v.is_empty() && !v.starts_with('?'));
    let mut id = String::new();
    if let (Some(w), Some(b)) = (known("White"), known("Black")) {
        id.push_str(w);
        id.push_str(" - ");
        id.push_str(b);
        id.push_str(", ");
    }
    for name in ["Event", "Date"] {
        if let Some(v) = known(name) {
            id.push_str(v);
            id.push_str(", ");
        }
    }
    id
}

/// Appends `game INDEX, ply PLY`.
fn push_game_ply(id: &mut String, index: usize, ply: usize) {
    use std::fmt::Write;
    // Writing to a String cannot fail.
    let _ = write!(id, "game {index}, ply {ply}");
}

/// One EPD record per mainline position, from the start to the final
/// position: `hmvc`/`fmvn` from the clocks, `sm` the move played from it
/// (none for the final position), `id` from the tags, game index and ply;
/// `ptp` and `c0` as `opts` asks.
pub fn game_to_epd(game: &Game, index: usize, opts: &EpdOptions) -> Vec<Record> {
    let ptp = opts.ptp.then(|| {
        let tags = game.exported_tags();
        SEVEN_TAG_ROSTER
            .iter()
            .filter_map(|(name, _)| {
                let id = Identifier::from_ascii(name.as_bytes()).ok()?;
                Some((id, tags.get(name).unwrap_or("?").to_owned()))
            })
            .collect::<Vec<_>>()
    });
    let mut out = Vec::with_capacity(game.mainline.nodes.len() + 1);
    let mut pos = game.start.clone();
    let nodes = &game.mainline.nodes;
    let prefix = id_prefix(&game.tags);
    for ply in 0..=nodes.len() {
        let node = nodes.get(ply);
        let mut rec = Record::with_clocks(pos.clone());
        if opts.comments {
            if let Some(n) = node.filter(|n| !n.comments_after.is_empty()) {
                rec.push(Operation::Comment(0, Some(n.comments_after.join(" "))));
            }
        }
        let mut id = String::with_capacity(prefix.len() + 24);
        id.push_str(&prefix);
        push_game_ply(&mut id, index, ply);
        rec.push(Operation::Id(id));
        if let Some(ptp) = &ptp {
            rec.push(Operation::Ptp(ptp.clone()));
        }
        if let Some(n) = node {
            // A null move has no EPD spelling; the record just has no sm.
            if !n.mv.is_null() {
                rec.push(Operation::Sm(n.mv));
            }
        }
        rec.sort_operations();
        out.push(rec);
        if let Some(n) = node {
            pos.play_unchecked(n.mv);
        }
    }
    out
}

/// The FEN of every mainline position, from the start to the end.
pub fn game_to_fens(game: &Game) -> Vec<String> {
    let mut pos = game.start.clone();
    let mut out = Vec::with_capacity(game.mainline.nodes.len() + 1);
    out.push(fen_of(&pos));
    for m in game.mainline_moves() {
        pos.play_unchecked(m);
        out.push(fen_of(&pos));
    }
    out
}

/// A game from an EPD record: the record's position (with its `hmvc`/`fmvn`
/// clocks) as SetUp/FEN, and its `sv` (else its `pv`) as the mainline. The
/// record's `id` becomes the Event tag, its `c0` the game's first comment.
pub fn epd_to_game(rec: &Record) -> Game {
    let start: Position = rec.position_with_clocks();
    let moves: &[Move] = rec.sv().or_else(|| rec.pv()).unwrap_or(&[]);
    let mut tags = Tags::default();
    for (name, default) in SEVEN_TAG_ROSTER {
        tags.insert(name, default.to_owned());
    }
    if let Some(id) = rec.id() {
        tags.insert("Event", id.to_owned());
    }
    tags.insert("SetUp", "1".to_owned());
    tags.insert("FEN", Fen::from_position(&start).to_string());
    if start.is_chess960_castling() {
        tags.insert("Variant", "Chess960".to_owned());
    }
    let mut mainline = Line::default();
    for &m in moves {
        mainline.nodes.push(Node::new(m));
    }
    if let Some(Operation::Comment(0, Some(c))) = rec.get("c0") {
        let c = crate::game::normalize_comment(c.as_bytes());
        match mainline.nodes.first_mut() {
            Some(n) => n.comments_before.push(c),
            None => mainline.trailing_comments.push(c),
        }
    }
    Game {
        tags,
        start,
        mainline,
        result: GameResult::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Games;

    fn read(pgn: &str) -> crate::ReadGame {
        Games::new(pgn.as_bytes()).next().unwrap().unwrap()
    }

    #[test]
    fn epd_records_follow_the_mainline() {
        let g = read(
            "[Event \"E\"]\n[White \"W\"]\n[Black \"B\"]\n[Date \"2001.01.01\"]\n[Result \"1-0\"]\n\
             1. e4 e5 (1... c5) 2. Nf3 {develops} Nc6 1-0",
        );
        let recs = game_to_epd(
            &g.game,
            7,
            &EpdOptions {
                ptp: true,
                comments: true,
            },
        );
        assert_eq!(recs.len(), 5);
        let last = recs[4].to_string();
        assert!(
            last.starts_with("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - "),
            "{last}"
        );
        assert!(last.contains("fmvn 3; hmvc 2;"), "{last}");
        assert!(!last.contains(" sm "), "{last}");
        assert!(
            last.contains("id \"W - B, E, 2001.01.01, game 7, ply 4\""),
            "{last}"
        );
        assert!(last.contains(
            "ptp Event \"E\" Site \"?\" Date \"2001.01.01\" Round \"?\" White \"W\" Black \"B\" Result \"1-0\""
        ), "{last}");
        let third = recs[2].to_string();
        assert!(
            third.contains("c0 \"develops\";") && third.contains("sm Nf3;"),
            "{third}"
        );
        // Each record's sm leads to the next record's position.
        for w in recs.windows(2) {
            let m = w[0].sm().unwrap();
            let mut p = w[0].position().clone();
            p.play_unchecked(m);
            assert_eq!(
                Fen::from_position(&p).epd().to_string(),
                Fen::from_position(w[1].position()).epd().to_string()
            );
        }
    }

    #[test]
    fn fens_and_back_to_pgn() {
        let g = read("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 5 40\"]\n40. e4 Kd7 *");
        assert_eq!(
            game_to_fens(&g.game),
            vec![
                "4k3/8/8/8/8/8/4P3/4K3 w - - 5 40",
                "4k3/8/8/8/4P3/8/8/4K3 b - - 0 40",
                "8/3k4/8/8/4P3/8/8/4K3 w - - 1 41"
            ]
        );
        let rec: Record =
            "4k3/8/8/8/8/8/4P3/4K3 w - - hmvc 5; fmvn 40; id \"x\"; pv e4 Kd7; c0 \"hi\";"
                .parse()
                .unwrap();
        let game = epd_to_game(&rec);
        let text = crate::game_to_string(&game);
        assert!(text.contains("[Event \"x\"]"), "{text}");
        assert!(
            text.contains("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 5 40\"]"),
            "{text}"
        );
        assert!(text.contains("{hi} 40. e4 Kd7 *"), "{text}");
        let again = read(&text);
        assert!(again.error.is_none());
        assert_eq!(again.game.mainline, game.mainline);
    }
}
