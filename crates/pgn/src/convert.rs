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

use std::fmt;

use rookery_core::{Fen, Move, Position, SanPlus, Suffix};
use rookery_epd::{write_string, Identifier, Operation, Record};

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
    let ptp = opts.ptp.then(|| ptp_pairs(game));
    let mut out = Vec::with_capacity(game.mainline.nodes.len() + 1);
    let mut pos = game.start.clone();
    let nodes = &game.mainline.nodes;
    let prefix = id_prefix(&game.tags);
    for ply in 0..=nodes.len() {
        let node = nodes.get(ply);
        out.push(record_at(
            &pos,
            node,
            &prefix,
            index,
            ply,
            opts,
            ptp.as_deref(),
        ));
        if let Some(n) = node {
            pos.play_unchecked(n.mv);
        }
    }
    out
}

/// The `ptp` pairs of a game: its exported Seven Tag Roster.
fn ptp_pairs(game: &Game) -> Vec<(Identifier, String)> {
    let tags = game.exported_tags();
    SEVEN_TAG_ROSTER
        .iter()
        .filter_map(|(name, _)| {
            let id = Identifier::from_ascii(name.as_bytes()).ok()?;
            Some((id, tags.get(name).unwrap_or("?").to_owned()))
        })
        .collect()
}

/// The record of the position `pos` at `ply`, from which `node`'s move is
/// played (none at the end); `prefix` is the game's [`id_prefix`].
fn record_at(
    pos: &Position,
    node: Option<&Node>,
    prefix: &str,
    index: usize,
    ply: usize,
    opts: &EpdOptions,
    ptp: Option<&[(Identifier, String)]>,
) -> Record {
    let mut rec = Record::with_clocks(pos.clone());
    if opts.comments {
        if let Some(n) = node.filter(|n| !n.comments_after.is_empty()) {
            rec.push(Operation::Comment(0, Some(n.comments_after.join(" "))));
        }
    }
    let mut id = String::with_capacity(prefix.len() + 24);
    id.push_str(prefix);
    push_game_ply(&mut id, index, ply);
    rec.push(Operation::Id(id));
    if let Some(ptp) = ptp {
        rec.push(Operation::Ptp(ptp.to_vec()));
    }
    if let Some(n) = node {
        // A null move has no EPD spelling; the record just has no sm.
        if !n.mv.is_null() {
            rec.push(Operation::Sm(n.mv));
        }
    }
    rec.sort_operations();
    rec
}

/// Appends to `out` the UTF-8 of what [`game_to_epd`] gives, each record
/// written as [`Record::write_to`] writes it and ended by a newline,
/// without building the records: the position fields, numbers and SAN go
/// straight into `out`, the `id` (all but the ply) and `ptp` are quoted
/// once per game.
pub fn write_game_epd(game: &Game, index: usize, opts: &EpdOptions, out: &mut Vec<u8>) {
    let nodes = &game.mainline.nodes;
    let prefix = id_prefix(&game.tags);
    // `; id "PREFIXgame N, ply ` with the prefix quoted as an EPD string,
    // without its closing quote: all of the id but the ply, once a game.
    let mut id_open = String::with_capacity(prefix.len() + 32);
    id_open.push_str("; id ");
    write_string(&mut id_open, &prefix);
    id_open.pop();
    id_open.push_str("game ");
    id_open.push_str(&index.to_string());
    id_open.push_str(", ply ");
    let ptp = opts.ptp.then(|| ptp_pairs(game));
    let ptp_text = ptp.as_ref().map(|pairs| {
        let mut t = String::from(" ptp");
        for (tag, value) in pairs {
            t.push(' ');
            t.push_str(tag.as_str());
            t.push(' ');
            write_string(&mut t, value);
        }
        t.push(';');
        t
    });
    let buf = out;
    buf.reserve((nodes.len() + 1) * (id_open.len() + 80));
    let mut pos = game.start.clone();
    for ply in 0..=nodes.len() {
        let node = nodes.get(ply);
        Fen::from_position(&pos).epd().append_bytes(buf);
        if opts.comments {
            if let Some(n) = node.filter(|n| !n.comments_after.is_empty()) {
                let mut c = String::from(" c0 ");
                write_string(&mut c, &n.comments_after.join(" "));
                buf.extend_from_slice(c.as_bytes());
                buf.push(b';');
            }
        }
        buf.extend_from_slice(b" fmvn ");
        push_clock(buf, pos.fullmoves());
        buf.extend_from_slice(b"; hmvc ");
        push_clock(buf, pos.halfmoves());
        buf.extend_from_slice(id_open.as_bytes());
        push_u64(buf, ply as u64);
        buf.extend_from_slice(b"\";");
        if let Some(t) = &ptp_text {
            buf.extend_from_slice(t.as_bytes());
        }
        if let Some(n) = node.filter(|n| !n.mv.is_null()) {
            buf.extend_from_slice(b" sm ");
            let san = SanPlus::from_move(&pos, n.mv);
            // Writing to a byte buffer cannot fail.
            let _ = san.san.write_to(&mut Bytes(buf));
            match san.suffix {
                Some(Suffix::Check) => buf.push(b'+'),
                Some(Suffix::Checkmate) => buf.push(b'#'),
                None => {}
            }
            buf.push(b';');
        }
        buf.push(b'\n');
        if let Some(n) = node {
            pos.play_unchecked(n.mv);
        }
    }
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

/// Appends to `out` the UTF-8 of what [`game_to_fens`] gives, one FEN a
/// line, written straight as bytes.
pub fn write_game_fens(game: &Game, out: &mut Vec<u8>) {
    out.reserve((game.mainline.nodes.len() + 1) * 64);
    let mut pos = game.start.clone();
    let mut moves = game.mainline_moves();
    loop {
        Fen::from_position(&pos).append_bytes(out);
        out.push(b'\n');
        match moves.next() {
            Some(m) => pos.play_unchecked(m),
            None => break,
        }
    }
}

/// A byte buffer as a [`fmt::Write`].
struct Bytes<'a>(&'a mut Vec<u8>);

impl fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn write_char(&mut self, c: char) -> fmt::Result {
        match u8::try_from(c) {
            Ok(b) if b.is_ascii() => self.0.push(b),
            _ => self.write_str(c.encode_utf8(&mut [0; 4]))?,
        }
        Ok(())
    }
}

/// Appends `v` in decimal.
fn push_u64(out: &mut Vec<u8>, v: u64) {
    // Most numbers written (clocks, plies, game numbers) are small.
    if v < 10 {
        out.push(b'0' + v as u8);
        return;
    }
    if v < 100 {
        out.extend_from_slice(&[b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]);
        return;
    }
    out.extend_from_slice(rookery_epd::decimal(v, &mut [0; 20]));
}

/// Appends a clock as the `hmvc`/`fmvn` operand of [`Record::with_clocks`]
/// (which keeps it as an `i32`).
fn push_clock(out: &mut Vec<u8>, v: u32) {
    push_u64(out, u64::from(v.min(i32::MAX as u32)));
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

    /// Games of the crate's test data: Chess960 and FEN setups, null
    /// moves, promotions, comments, odd tags.
    fn test_games() -> Vec<crate::ReadGame> {
        let files: [&[u8]; 12] = [
            include_bytes!("../tests/data/pe-fischer.pgn"),
            include_bytes!("../tests/data/cutechess-fischerrandom.pgn"),
            include_bytes!("../tests/data/pgn_test.pgn"),
            include_bytes!("../tests/data/pe-seventyfive.pgn"),
            include_bytes!("../tests/data/twic1599_10k.pgn"),
            include_bytes!("../tests/data/lichess_db_10k.pgn"),
            include_bytes!("../tests/data/pe-setup-in.pgn"),
            include_bytes!("../tests/data/pe-allownullmoves.pgn"),
            include_bytes!("../tests/data/pe-promotion-in.pgn"),
            include_bytes!("../tests/data/chessjs-3-setup-black-first.pgn"),
            include_bytes!("../tests/data/pe-nagcomments.pgn"),
            include_bytes!("../tests/data/pe-odds-latin1.pgn"),
        ];
        files
            .iter()
            .flat_map(|f| Games::new(*f).map(Result::unwrap))
            .collect()
    }

    /// The byte writers give exactly what the records and FEN strings give,
    /// with every option, on positions of both kinds of castling rights
    /// (`KQkq` form and Chess960's file letters).
    #[test]
    fn fast_writers_write_what_the_records_write() {
        let games = test_games();
        let (mut standard, mut chess960) = (0, 0);
        for g in &games {
            let mut pos = g.game.start.clone();
            for m in g.game.mainline_moves().chain([Move::NULL]) {
                if pos.is_chess960_castling() {
                    chess960 += 1;
                } else {
                    standard += 1;
                }
                if !m.is_null() {
                    pos.play_unchecked(m);
                }
            }
            for (ptp, comments) in [(false, false), (true, false), (false, true), (true, true)] {
                let opts = EpdOptions { ptp, comments };
                let mut want = String::new();
                for rec in game_to_epd(&g.game, g.index, &opts) {
                    rec.write_to(&mut want);
                    want.push('\n');
                }
                let mut got = b"before\n".to_vec();
                write_game_epd(&g.game, g.index, &opts, &mut got);
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    format!("before\n{want}"),
                    "game {}",
                    g.index
                );
            }
            let want: String = game_to_fens(&g.game)
                .iter()
                .map(|f| f.clone() + "\n")
                .collect();
            let mut got = Vec::new();
            write_game_fens(&g.game, &mut got);
            assert_eq!(String::from_utf8(got).unwrap(), want, "game {}", g.index);
        }
        assert!(games.len() > 50, "{}", games.len());
        assert!(standard > 10_000 && chess960 > 100, "{standard} {chess960}");
    }
}
