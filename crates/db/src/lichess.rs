//! The explorer's answers in the shape of lichess's opening explorer API
//! (`/masters`, `/lichess`, `/player`), so that a client written for
//! lichess reads a local database: one home for the shape, used by `rookery
//! db explore --lichess` and by the server (`serve`, with the feature of
//! that name).
//!
//! What the database cannot know the way lichess does is said here once: a
//! game's `id` is its number in the database; its `mode` is `casual` when
//! its event says so (lichess's exports name the event "Casual Blitz
//! game"), else `rated`; its `speed` is lichess's estimate from the
//! `TimeControl` tag (`unknown` without one).

use std::collections::HashMap;

use rookery_core::{CastlingMode, Color, Move, Position, UciMove};
use rookery_pgn::eco::Opening;
use rookery_pgn::explorer::{Explorer, Tally, Tree};
use serde_json::{json, Value};

use crate::bucket::{Bucket, BucketFilter};
use crate::header::{Date, Header, NameId};
use crate::store::{Database, DbError, Explored, GameRef, StoredGame, GAMES_KEPT};

/// The most moves `play` may hold (a game's worth and more).
pub const MAX_PLAY: usize = 600;

/// The most games of a player `/player` counts.
pub const MAX_PLAYER_GAMES: usize = 200_000;

/// Why a question cannot be asked.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum QueryError {
    /// The FEN does not read.
    #[error("fen {fen:?}: {message}")]
    Fen {
        /// The FEN given.
        fen: String,
        /// What is wrong.
        message: String,
    },
    /// A move of `play` is not a legal move where it is played.
    #[error("play: {mv:?} is not a legal move in {fen}")]
    Move {
        /// The move given.
        mv: String,
        /// The position it was played in.
        fen: String,
    },
    /// `play` holds more than [`MAX_PLAY`] moves.
    #[error("play: more than {MAX_PLAY} moves")]
    TooLong,
}

/// The position of `fen` (default: the standard start) after the UCI moves
/// of `play` (comma-separated), and the opening of the deepest named
/// position on the way.
///
/// # Errors
/// [`QueryError`].
pub fn position(
    fen: Option<&str>,
    play: &str,
) -> Result<(Position, Option<&'static Opening>), QueryError> {
    let mut pos = match fen.map(str::trim).filter(|f| !f.is_empty()) {
        None => Position::startpos(),
        Some(f) => Position::from_fen(f).map_err(|e| QueryError::Fen {
            fen: f.to_string(),
            message: e.to_string(),
        })?,
    };
    let mut opening = rookery_pgn::eco::of_position(&pos);
    let words: Vec<&str> = play
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .take(MAX_PLAY + 1)
        .collect();
    if words.len() > MAX_PLAY {
        return Err(QueryError::TooLong);
    }
    for word in words {
        let m = word
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
            .ok_or_else(|| QueryError::Move {
                mv: word.to_string(),
                fen: pos.fen(),
            })?;
        pos.play_unchecked(m);
        opening = rookery_pgn::eco::of_position(&pos).or(opening);
    }
    Ok((pos, opening))
}

/// How many of each list an answer holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Lists {
    /// Moves (the most played first); `None`: all.
    pub moves: Option<usize>,
    /// Top games (at most [`GAMES_KEPT`]); `None`: the field is left out
    /// (lichess's `/player` has none).
    pub top_games: Option<usize>,
    /// Recent games (at most [`GAMES_KEPT`]); `None`: the field is left
    /// out (lichess's `/masters` has none).
    pub recent_games: Option<usize>,
}

/// The UCI text of `mv` in `pos` (chess960's king-takes-rook where the
/// position castles so, as `pgn tree` writes it).
fn uci(pos: &Position, mv: Move) -> String {
    let mode = if pos.is_chess960_castling() {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    mv.to_uci(pos, mode)
}

/// Names read once per answer.
struct Names<'a> {
    db: &'a Database,
    known: HashMap<NameId, String>,
}

impl Names<'_> {
    fn get(&mut self, id: NameId) -> Result<String, DbError> {
        if let Some(n) = self.known.get(&id) {
            return Ok(n.clone());
        }
        let n = self.db.name(id)?;
        self.known.insert(id, n.clone());
        Ok(n)
    }

    /// Whether the game's event says it was casual.
    fn casual(&mut self, h: &Header) -> Result<bool, DbError> {
        Ok(self.get(h.event)?.to_ascii_lowercase().contains("casual"))
    }
}

/// A game as lichess's explorer lists one.
fn game_json(names: &mut Names, pos: &Position, g: &GameRef) -> Result<Value, DbError> {
    let h = names.db.header(g.id)?.ok_or_else(|| DbError::Damaged {
        path: names.db.path().to_path_buf(),
        what: format!("index: game {} is not stored", g.id),
    })?;
    let winner = match h.result {
        1 => json!("white"),
        3 => json!("black"),
        _ => Value::Null,
    };
    let player = |name: String, elo: u16| json!({"name": name, "rating": (elo > 0).then_some(elo)});
    Ok(json!({
        "uci": uci(pos, g.mv),
        "id": g.id.to_string(),
        "winner": winner,
        "speed": h.speed.name(),
        "mode": if names.casual(&h)? { "casual" } else { "rated" },
        "white": player(names.get(h.white)?, h.white_elo),
        "black": player(names.get(h.black)?, h.black_elo),
        "year": (h.date.year > 0).then_some(h.date.year),
        "month": month_text(h.date),
    }))
}

/// The explorer's answer at `pos` over the games of the buckets `filter`
/// admits, in lichess's shape: `white`, `draws`, `black`, `moves` (`uci`,
/// `san`, `averageRating`, `white`, `draws`, `black`, `game`: the game when
/// one only played the move), `topGames` and `recentGames` (the games that
/// played a move from `pos`, each with its `uci`), `opening`.
///
/// # Errors
/// [`DbError`].
pub fn answer(
    db: &Database,
    pos: &Position,
    opening: Option<&Opening>,
    filter: &BucketFilter,
    lists: Lists,
) -> Result<Value, DbError> {
    let explored = db.explore_games(pos, filter)?.unwrap_or_default();
    let tree = tree_of(pos, &explored);
    let mut names = Names {
        db,
        known: HashMap::new(),
    };
    let mut moves = Vec::new();
    for b in tree.moves.iter().take(lists.moves.unwrap_or(usize::MAX)) {
        let game = match explored.only_game(b.mv) {
            Some(g) => game_json(&mut names, pos, &g)?,
            None => Value::Null,
        };
        moves.push(json!({
            "uci": b.uci,
            "san": b.san,
            "averageRating": b.tally.average_elo(),
            "white": b.tally.white,
            "draws": b.tally.draws,
            "black": b.tally.black,
            "game": game,
        }));
    }
    let mut out = json!({
        "white": tree.tally.white,
        "draws": tree.tally.draws,
        "black": tree.tally.black,
        "moves": moves,
    });
    if let Some(n) = lists.top_games {
        let games = explored
            .top(n)
            .iter()
            .map(|g| game_json(&mut names, pos, g))
            .collect::<Result<Vec<_>, _>>()?;
        out["topGames"] = Value::Array(games);
    }
    if let Some(n) = lists.recent_games {
        let games = explored
            .recent(n)
            .iter()
            .map(|g| game_json(&mut names, pos, g))
            .collect::<Result<Vec<_>, _>>()?;
        out["recentGames"] = Value::Array(games);
    }
    out["opening"] = opening_json(opening);
    Ok(out)
}

fn opening_json(opening: Option<&Opening>) -> Value {
    opening.map_or(Value::Null, |o| json!({"eco": o.eco(), "name": o.name()}))
}

/// The one-ply tree of an index entry (its moves most played first).
fn tree_of(pos: &Position, e: &Explored) -> Tree {
    let tally = (e.passing, e.moves.clone());
    Tree::build(pos, 1, &mut |_| Some(tally.clone()))
}

/// Which of a player's games count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerFilter {
    /// The buckets (speeds, months; rating groups too).
    pub buckets: BucketFilter,
    /// `Some(true)`: rated games only; `Some(false)`: casual only (see
    /// the module documentation); `None`: both.
    pub rated: Option<bool>,
}

/// A stored game as the explorer counts it: its start, mainline, result
/// and ratings.
fn counted_game(g: &StoredGame) -> rookery_pgn::Game {
    let mut game = rookery_pgn::Game::new();
    game.start = g.start.clone();
    game.mainline.nodes = g.moves.iter().map(|&m| rookery_pgn::Node::new(m)).collect();
    game.result = g.header.result();
    if g.header.white_elo > 0 {
        game.tags.insert("WhiteElo", g.header.white_elo.to_string());
    }
    if g.header.black_elo > 0 {
        game.tags.insert("BlackElo", g.header.black_elo.to_string());
    }
    game
}

/// A player's repertoire: the games `player` played with `color` that
/// `filter` admits, counted from `root` `depth` plies deep (as `pgn tree`
/// counts them), and those of them that played a move from `root` (most
/// recent first).
///
/// # Errors
/// [`DbError`].
pub fn repertoire(
    db: &Database,
    player: &str,
    color: Color,
    root: &Position,
    depth: usize,
    filter: &PlayerFilter,
) -> Result<(Tree, Vec<GameRef>), DbError> {
    let games = db.player_games(player, color, MAX_PLAYER_GAMES)?;
    let mut names = Names {
        db,
        known: HashMap::new(),
    };
    let mut explorer = Explorer::new(root.clone(), depth);
    let key = root.hash();
    let mut through = Vec::new();
    for g in &games {
        if !filter.buckets.admits(Bucket::of_header(&g.header)) {
            continue;
        }
        if let Some(rated) = filter.rated {
            if names.casual(&g.header)? == rated {
                continue;
            }
        }
        let h = &g.header;
        let rating = if h.white_elo > 0 && h.black_elo > 0 {
            u32::from(h.white_elo) + u32::from(h.black_elo)
        } else {
            0
        };
        let game = counted_game(g);
        for (k, mv) in explorer.add_counted(&game) {
            if let (true, Some(mv)) = (k == key, mv) {
                through.push(GameRef {
                    id: g.id,
                    mv,
                    rating,
                    date: h.date.packed(),
                });
            }
        }
    }
    through.sort_by(GameRef::recent_order);
    Ok((explorer.tree(), through))
}

/// `/player`'s answer (one row of lichess's stream): the repertoire's
/// moves with `averageOpponentRating` and `performance` besides, its
/// `recentGames`, `opening`, and `queuePosition` 0 (nothing waits here).
///
/// # Errors
/// [`DbError`].
#[allow(clippy::too_many_arguments)] // the question's own parts, as lichess's parameters
pub fn player_answer(
    db: &Database,
    player: &str,
    color: Color,
    pos: &Position,
    opening: Option<&Opening>,
    filter: &PlayerFilter,
    moves: Option<usize>,
    recent: usize,
) -> Result<Value, DbError> {
    let (tree, games) = repertoire(db, player, color, pos, 1, filter)?;
    let mut names = Names {
        db,
        known: HashMap::new(),
    };
    let mut single: HashMap<u16, GameRef> = HashMap::new();
    for g in &games {
        single.entry(g.mv.to_u16()).or_insert(*g);
    }
    let mut rows = Vec::new();
    for b in tree.moves.iter().take(moves.unwrap_or(usize::MAX)) {
        let game = match (b.tally.games(), single.get(&b.mv.to_u16())) {
            (1, Some(g)) => game_json(&mut names, pos, g)?,
            _ => Value::Null,
        };
        rows.push(move_json(&b.uci, &b.san, &b.tally, game));
    }
    let recent = games
        .iter()
        .take(recent.min(GAMES_KEPT))
        .map(|g| game_json(&mut names, pos, g))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({
        "white": tree.tally.white,
        "draws": tree.tally.draws,
        "black": tree.tally.black,
        "moves": rows,
        "recentGames": recent,
        "opening": opening_json(opening),
        "queuePosition": 0,
    }))
}

fn move_json(uci: &str, san: &str, t: &Tally, game: Value) -> Value {
    json!({
        "uci": uci,
        "san": san,
        "averageRating": t.average_elo(),
        "averageOpponentRating": t.average_opponent_elo(),
        "performance": t.performance(),
        "white": t.white,
        "draws": t.draws,
        "black": t.black,
        "game": game,
    })
}

/// A date's month as lichess writes it (`2024-01`), for a [`Date`].
pub fn month_text(d: Date) -> Option<String> {
    (d.year > 0 && d.month > 0).then(|| format!("{:04}-{:02}", d.year, d.month))
}
