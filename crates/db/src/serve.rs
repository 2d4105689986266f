//! The database over HTTP: lichess's opening explorer API (`/masters`,
//! `/lichess`, `/player`, answered as [`crate::lichess`] answers them, so
//! that a client written for lichess's explorer works against a local
//! database), a search (`/search`: `pgn filter`'s tests as parameters), a
//! game's PGN (`/game/N`, and lichess's `/masters/pgn/N`), and a page: a
//! board to move pieces on, the explorer's table beside it, the games
//! through the position, a search and a game viewer.
//!
//! The router is served by the caller with its own connection limits; what
//! one request may cost is bounded here: its query string
//! ([`MAX_QUERY`] bytes), the moves it plays ([`crate::lichess::MAX_PLAY`]),
//! the games it lists ([`MAX_SEARCH`]), and the questions answered at once
//! ([`AT_ONCE`]: each runs on a blocking thread; the others wait their
//! turn). A question that does not read is answered 400 with a JSON
//! `{"error": ...}`, never a panic.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rookery_core::{CastlingMode, Color, Position, SanPlus};
use rookery_pgn::filter::{Criteria, CriteriaText};
use serde_json::{json, Value};
use tokio::sync::Semaphore;

use crate::bucket::{month_number, BucketFilter};
use crate::lichess::{self, Lists, PlayerFilter};
use crate::scan::{scannable, ScanError};
use crate::scout::ScoutQuery;
use crate::store::{Database, DbError, GAMES_KEPT};

/// The longest query string taken, in bytes.
pub const MAX_QUERY: usize = 8 * 1024;
/// The most games a search lists.
pub const MAX_SEARCH: usize = 500;
/// Questions answered at once; more wait.
pub const AT_ONCE: usize = 4;
/// The most moves an answer lists.
const MAX_MOVES: usize = 256;

const PAGE: &str = include_str!("../assets/db.html");
const SCRIPT: &str = include_str!("../assets/db.js");
const STYLE: &str = include_str!("../assets/db.css");

/// The server's state: the database and the turns of its questions.
#[derive(Clone)]
struct App {
    db: Arc<Database>,
    turns: Arc<Semaphore>,
}

/// Why a question gets no answer.
enum Failure {
    /// The question does not read (400).
    Bad(String),
    /// No such thing (404).
    Missing(String),
    /// The database failed (500).
    Db(DbError),
}

impl From<DbError> for Failure {
    fn from(e: DbError) -> Failure {
        match e {
            // The question's fault, not the database's.
            DbError::NotKept { .. } => Failure::Bad(e.to_string()),
            e => Failure::Db(e),
        }
    }
}

impl From<lichess::QueryError> for Failure {
    fn from(e: lichess::QueryError) -> Failure {
        Failure::Bad(e.to_string())
    }
}

/// An answer: its content type and body.
struct Answer(&'static str, String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            Failure::Bad(m) => (StatusCode::BAD_REQUEST, m),
            Failure::Missing(m) => (StatusCode::NOT_FOUND, m),
            Failure::Db(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        };
        let body = json!({ "error": message }).to_string();
        (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
    }
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        (
            [
                (header::CONTENT_TYPE, self.0),
                (header::CACHE_CONTROL, "no-store"),
            ],
            self.1,
        )
            .into_response()
    }
}

fn json_answer(v: &Value) -> Answer {
    Answer("application/json", v.to_string())
}

/// A question's answer from the database and the query's parameters.
type Route = fn(&Database, &HashMap<String, String>) -> Result<Answer, Failure>;

/// The questions the server answers, by path: lichess's explorer
/// (`/lichess`, `/masters`, `/player`), the search and the page's
/// position.
const QUESTIONS: [(&str, Route); 5] = [
    ("/lichess", lichess_route),
    ("/masters", masters_route),
    ("/player", player_route),
    ("/search", search_route),
    ("/api/position", position_route),
];

/// The router of the database's server (see the module documentation).
pub fn router(db: Arc<Database>) -> Router {
    let app = App {
        db,
        turns: Arc::new(Semaphore::new(AT_ONCE)),
    };
    let files: [(&str, &str, &'static str); 3] = [
        ("/", "text/html; charset=utf-8", PAGE),
        ("/assets/db.js", "text/javascript; charset=utf-8", SCRIPT),
        ("/assets/db.css", "text/css; charset=utf-8", STYLE),
    ];
    let mut router = Router::new();
    for (path, kind, text) in files {
        router = router.route(path, get(move || async move { Answer(kind, text.into()) }));
    }
    for (path, route) in QUESTIONS {
        router = router.route(path, get(move |s: State<App>, u: Uri| ask(s, u, route)));
    }
    router
        .route("/game/{id}", get(game_pgn))
        .route("/masters/pgn/{id}", get(game_pgn))
        .route("/api/game/{id}", get(game_json))
        .with_state(app)
}

/// The parameters of a query string, percent-decoded (`+` is a space); a
/// name given twice keeps its last value.
fn parameters(query: &str) -> Result<HashMap<String, String>, Failure> {
    if query.len() > MAX_QUERY {
        return Err(Failure::Bad(format!("query longer than {MAX_QUERY} bytes")));
    }
    let mut out = HashMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.insert(decode(k)?, decode(v)?);
    }
    Ok(out)
}

/// `text` percent-decoded, `+` read as a space.
fn decode(text: &str) -> Result<String, Failure> {
    let bad = || Failure::Bad(format!("{text:?} is not percent-encoded UTF-8"));
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = b.get(i + 1..i + 3).ok_or_else(bad)?;
                let hex = std::str::from_utf8(hex).map_err(|_| bad())?;
                out.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| bad())
}

/// Answers a question on a blocking thread, in its turn.
async fn ask(State(app): State<App>, uri: Uri, route: Route) -> Response {
    let params = match parameters(uri.query().unwrap_or("")) {
        Ok(p) => p,
        Err(f) => return f.into_response(),
    };
    let Ok(_turn) = app.turns.clone().acquire_owned().await else {
        return Failure::Bad("the server is stopping".into()).into_response();
    };
    let db = app.db.clone();
    match tokio::task::spawn_blocking(move || route(&db, &params)).await {
        Ok(Ok(a)) => a.into_response(),
        Ok(Err(f)) => f.into_response(),
        Err(e) => Failure::Bad(format!("the question failed: {e}")).into_response(),
    }
}

/// A number parameter, at most `max` (`default` when absent).
fn number(
    p: &HashMap<String, String>,
    name: &str,
    default: usize,
    max: usize,
) -> Result<usize, Failure> {
    match p.get(name) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= max)
            .ok_or_else(|| Failure::Bad(format!("{name}: {v:?} is not a number up to {max}"))),
    }
}

/// The position of `fen` and `play`, and its opening; only standard chess.
fn position_of(
    p: &HashMap<String, String>,
) -> Result<(Position, Option<&'static rookery_pgn::eco::Opening>), Failure> {
    if let Some(v) = p.get("variant") {
        if !["standard", "chess"].contains(&v.as_str()) {
            return Err(Failure::Bad(format!("variant {v:?}: standard chess only")));
        }
    }
    let get = |k: &str| p.get(k).map(String::as_str);
    Ok(lichess::position(get("fen"), get("play").unwrap_or(""))?)
}

fn buckets(p: &HashMap<String, String>) -> Result<BucketFilter, Failure> {
    let get = |k: &str| p.get(k).map(String::as_str);
    BucketFilter::parse(get("speeds"), get("ratings"), get("since"), get("until"))
        .map_err(Failure::Bad)
}

/// `/lichess`: fen, play, speeds, ratings, since, until, moves (12),
/// topGames (4), recentGames (4).
fn lichess_route(db: &Database, p: &HashMap<String, String>) -> Result<Answer, Failure> {
    let (pos, opening) = position_of(p)?;
    let lists = Lists {
        moves: Some(number(p, "moves", 12, MAX_MOVES)?),
        top_games: Some(number(p, "topGames", 4, GAMES_KEPT)?),
        recent_games: Some(number(p, "recentGames", 4, GAMES_KEPT)?),
    };
    Ok(json_answer(&lichess::answer(
        db,
        &pos,
        opening,
        &buckets(p)?,
        lists,
    )?))
}

/// `/masters`: fen, play, since and until (years), moves (12), topGames (15).
fn masters_route(db: &Database, p: &HashMap<String, String>) -> Result<Answer, Failure> {
    let (pos, opening) = position_of(p)?;
    let year = |k: &str, month: u8| -> Result<Option<u16>, Failure> {
        p.get(k)
            .map(|v| {
                v.trim()
                    .parse::<u16>()
                    .ok()
                    .map(|y| month_number(y, month))
                    .filter(|m| *m > 0)
                    .ok_or_else(|| Failure::Bad(format!("{k}: {v:?} is not a year")))
            })
            .transpose()
    };
    let filter = BucketFilter {
        since: year("since", 1)?,
        until: year("until", 12)?,
        ..BucketFilter::default()
    };
    let lists = Lists {
        moves: Some(number(p, "moves", 12, MAX_MOVES)?),
        top_games: Some(number(p, "topGames", GAMES_KEPT, GAMES_KEPT)?),
        recent_games: None,
    };
    Ok(json_answer(&lichess::answer(
        db, &pos, opening, &filter, lists,
    )?))
}

/// `/player`: player, color, fen, play, speeds, modes, since, until, moves
/// (12), recentGames (8); one row of ndjson (lichess streams rows as it
/// indexes; here the first is the last).
fn player_route(db: &Database, p: &HashMap<String, String>) -> Result<Answer, Failure> {
    let player = p
        .get("player")
        .filter(|n| !n.trim().is_empty())
        .ok_or_else(|| Failure::Bad("player: required".into()))?;
    let color = match p.get("color").map(String::as_str) {
        Some("white") => Color::White,
        Some("black") => Color::Black,
        _ => return Err(Failure::Bad("color: white or black".into())),
    };
    let (pos, opening) = position_of(p)?;
    let rated = match p.get("modes").map(|m| {
        let has = |w: &str| m.split(',').any(|x| x.trim() == w);
        (has("rated"), has("casual"))
    }) {
        None | Some((true, true)) => None,
        Some((true, false)) => Some(true),
        Some((false, true)) => Some(false),
        Some((false, false)) => return Err(Failure::Bad("modes: rated, casual".into())),
    };
    let filter = PlayerFilter {
        buckets: buckets(p)?,
        rated,
    };
    let moves = number(p, "moves", 12, MAX_MOVES)?;
    let recent = number(p, "recentGames", 8, GAMES_KEPT)?;
    let v = lichess::player_answer(
        db,
        player,
        color,
        &pos,
        opening,
        &filter,
        Some(moves),
        recent,
    )?;
    Ok(Answer("application/x-ndjson", format!("{v}\n")))
}

/// The criteria of `/search`'s parameters: `player` (White or Black
/// contains it, ignoring case), `elo`, `date`, `eco`, `plies` (as
/// `pgn filter`'s flags), `result`, `fen` (the mainline passes through the
/// position), `material`, `moves` and `transpose`.
fn criteria(p: &HashMap<String, String>) -> Result<Criteria, Failure> {
    let get = |k: &str| {
        p.get(k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let text = CriteriaText {
        players: get("player").into_iter().collect(),
        elo: get("elo"),
        date: get("date"),
        eco: get("eco"),
        plies: get("plies"),
        results: get("result").into_iter().collect(),
        positions: get("fen").into_iter().collect(),
        materials: get("material").into_iter().collect(),
        transpose: get("transpose").is_some_and(|t| t != "false" && t != "0"),
        moves: get("moves"),
        ..CriteriaText::default()
    };
    text.criteria().map_err(|e| Failure::Bad(e.to_string()))
}

/// A game found, as `/search` lists it (`plies`: where a Scoutfish query
/// is met).
fn found_json(g: &crate::StoredGame, game: &rookery_pgn::Game, plies: Option<&[u32]>) -> Value {
    let tag = |n: &str| game.tags.get(n).unwrap_or("?").to_string();
    let mut v = json!({
        "id": g.id.to_string(),
        "white": tag("White"),
        "black": tag("Black"),
        "whiteElo": (g.header.white_elo > 0).then_some(g.header.white_elo),
        "blackElo": (g.header.black_elo > 0).then_some(g.header.black_elo),
        "result": tag("Result"),
        "date": tag("Date"),
        "event": tag("Event"),
        "plies": g.moves.len(),
    });
    if let Some(p) = plies {
        v["matched"] = json!(p);
    }
    v
}

/// `/search`: the games that pass (see [`criteria`]), in order of number,
/// at most `max` (50; at most [`MAX_SEARCH`]): `{"games": [...], "more":
/// bool}`. With `query`, a Scoutfish query (JSON, as `db search --query`
/// reads it) searched for by a scan beside those tests, each game with
/// `matched`, the first ply each condition is met at.
fn search_route(db: &Database, p: &HashMap<String, String>) -> Result<Answer, Failure> {
    let c = criteria(p)?;
    let max = number(p, "max", 50, MAX_SEARCH)?;
    let mut games = Vec::new();
    let mut more = false;
    let mut failed = None;
    if let Some(text) = p.get("query").filter(|q| !q.trim().is_empty()) {
        let q: ScoutQuery = text
            .parse()
            .map_err(|e: ScanError| Failure::Bad(e.to_string()))?;
        if !scannable(&c) {
            return Err(Failure::Bad(
                "query does not go with moves (an opening prefix)".into(),
            ));
        }
        let mut names = HashMap::new();
        q.run(db, &c, 1, &mut |hit| {
            if games.len() == max {
                more = true;
                return false;
            }
            match db.found_game(hit.id, &mut names) {
                Ok((g, game)) => {
                    games.push(found_json(&g, &game, Some(&hit.plies)));
                    true
                }
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        })?;
    } else {
        db.search(&c, &mut |f| {
            if games.len() == max {
                more = true;
                return false;
            }
            match f.read() {
                Ok((g, game, _)) => {
                    games.push(found_json(&g, &game, None));
                    true
                }
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        })?;
    }
    if let Some(e) = failed {
        return Err(e.into());
    }
    Ok(json_answer(&json!({ "games": games, "more": more })))
}

/// `/api/position`: the position of `fen` and `play` for the page: its
/// FEN, its legal moves (UCI and SAN), the line played in SAN, the opening.
fn position_route(_: &Database, p: &HashMap<String, String>) -> Result<Answer, Failure> {
    let (pos, opening) = position_of(p)?;
    let mut at = lichess::position(p.get("fen").map(String::as_str), "")?.0;
    let mut line = Vec::new();
    let words = p.get("play").map_or("", String::as_str).split(',');
    for word in words.map(str::trim).filter(|w| !w.is_empty()) {
        let Some(m) = word
            .parse::<rookery_core::UciMove>()
            .ok()
            .and_then(|u| u.to_move(&at).ok())
        else {
            break;
        };
        line.push(SanPlus::from_move(&at, m).to_string());
        at.play_unchecked(m);
    }
    let legal: Vec<Value> = pos
        .legal_moves()
        .iter()
        .map(|&m| json!({"uci": m.to_uci(&pos, CastlingMode::Standard), "san": SanPlus::from_move(&pos, m).to_string()}))
        .collect();
    Ok(json_answer(&json!({
        "fen": pos.fen(),
        "turn": if pos.turn() == Color::White { "white" } else { "black" },
        "legal": legal,
        "line": line,
        "opening": opening.map(|o| json!({"eco": o.eco(), "name": o.name()})),
    })))
}

fn game_id(text: &str) -> Result<u64, Failure> {
    text.parse()
        .map_err(|_| Failure::Bad(format!("game {text:?}: not a number")))
}

/// A stored game by its number, as a PGN game with its text.
fn stored(db: &Database, id: u64) -> Result<(crate::StoredGame, rookery_pgn::Game), Failure> {
    let g = db
        .game(id)?
        .ok_or_else(|| Failure::Missing(format!("game {id}: none")))?;
    let game = db.pgn_game(&g, &mut HashMap::new())?;
    Ok((g, game))
}

/// `/game/N`: game N in PGN.
async fn game_pgn(State(app): State<App>, Path(id): Path<String>) -> Response {
    let answer = async {
        let id = game_id(&id)?;
        let db = app.db.clone();
        let _turn = app.turns.clone().acquire_owned().await.ok();
        tokio::task::spawn_blocking(move || {
            let (_, game) = stored(&db, id)?;
            Ok::<_, Failure>(Answer(
                "application/x-chess-pgn",
                rookery_pgn::writer::game_to_string(&game),
            ))
        })
        .await
        .map_err(|e| Failure::Bad(e.to_string()))?
    };
    match answer.await {
        Ok(a) => a.into_response(),
        Err(f) => f.into_response(),
    }
}

/// `/api/game/N`: game N for the page's viewer: its tags, start, and each
/// move with its SAN and the FEN after it.
async fn game_json(State(app): State<App>, Path(id): Path<String>) -> Response {
    let answer = async {
        let id = game_id(&id)?;
        let db = app.db.clone();
        let _turn = app.turns.clone().acquire_owned().await.ok();
        tokio::task::spawn_blocking(move || {
            let (g, game) = stored(&db, id)?;
            let tags: serde_json::Map<String, Value> = game
                .tags
                .iter()
                .map(|(k, v)| (k.to_string(), Value::from(v.to_string())))
                .collect();
            let mut pos = g.start.clone();
            let mut moves = Vec::new();
            for &m in &g.moves {
                let san = SanPlus::from_move(&pos, m).to_string();
                let uci = m.to_uci(&pos, CastlingMode::Standard);
                pos.play_unchecked(m);
                moves.push(json!({"uci": uci, "san": san, "fen": pos.fen()}));
            }
            Ok::<_, Failure>(json_answer(&json!({
                "id": id.to_string(),
                "tags": tags,
                "start": g.start.fen(),
                "moves": moves,
            })))
        })
        .await
        .map_err(|e| Failure::Bad(e.to_string()))?
    };
    match answer.await {
        Ok(a) => a.into_response(),
        Err(f) => f.into_response(),
    }
}
