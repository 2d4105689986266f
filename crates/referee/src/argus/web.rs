//! The spectator page (duty 11 of §3.2; feature `server`): every game of
//! an event live in a browser, and the same data for other tools.
//!
//! The server keeps one [`Spectators`] and tells it what happens: a game
//! starts, a move is made, a game leaves play, a game is recorded, the
//! event ends. Each call updates one [`EventView`] (plain data) behind a
//! `tokio::sync::watch` channel; readers hold a [`Feed`] and see the latest
//! view (a slow reader skips views, it never holds the server up). The web
//! server ([`WebServer`], axum) reads only the feed: it knows nothing of
//! sockets to players or of the rules.
//!
//! Routes (every one a `GET`):
//!
//! | route | what |
//! |---|---|
//! | `/` | the page: every game in progress (board, clocks, moves in SAN, the engines' last score and depth), the cross-table and standings, the finished games with their PGN |
//! | `/assets/spectator.js`, `/assets/spectator.css` | the page's script and style (served from here: the page loads nothing from elsewhere) |
//! | `/api/event` | the [`EventView`] as JSON |
//! | `/api/stream` | Server-Sent Events: the [`EventView`] as JSON at once and after every change |
//! | `/games.pgn` | every finished game, in the order they ended (a download) |
//! | `/live.pgn` | every game started: finished ones and those in progress so far (the broadcast feed) |
//! | `/games/N.pgn` | game N (from 1) so far, or as recorded once finished |
//! | `/games/N/stream` | Server-Sent Events: game N's PGN after every move; the stream ends with the recorded game |
//!
//! In the JSON, clocks are milliseconds: `clock_ms` is each side's time
//! left when the side to move began thinking (`null` without a clock),
//! `thinking_ms` how long the side to move has been thinking when the view
//! was sent; the page ticks the clock from there. Scores are the engines'
//! own, from the mover's point of view, as a client reports them (`ce`
//! and `acd` with its reply).

use super::config::EventConfig;
use super::server::ServeError;
use crate::clock::Clock;
use crate::game::{utc_now, GameSetup};
use crate::record::{GameOutcome, GameRecord, MoveRecord, Termination};
use crate::schedule::Schedule;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rookery_core::{Fen, Position, Square, UciMove};
use serde::Serialize;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The side of each board diagram, in pixels.
const BOARD_PX: u32 = 320;
/// A comment line goes out on a quiet event stream this often, so that
/// proxies and browsers keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

const PAGE: &str = include_str!("web/spectator.html");
const SCRIPT: &str = include_str!("web/spectator.js");
const STYLE: &str = include_str!("web/spectator.css");

/// Where a game of the schedule stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameState {
    /// Not started (or adjourned, to be played again).
    Pending,
    /// In progress.
    Playing,
    /// Recorded.
    Finished,
}

/// One game of the schedule.
#[derive(Clone, Debug, Serialize)]
pub struct ScheduledGame {
    /// Its number, from 1.
    pub number: usize,
    /// The round, from 1.
    pub round: usize,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Where it stands.
    pub state: GameState,
    /// `1-0`, `0-1`, `1/2-1/2` once finished.
    pub result: Option<String>,
}

/// What an engine last said about its move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Eval {
    /// The score from the mover's side: `+0.56`, `-M3`.
    pub score: Option<String>,
    /// The depth reached.
    pub depth: Option<u32>,
}

/// A game in progress.
#[derive(Clone, Debug, Serialize)]
pub struct LiveGame {
    /// Its number, from 1.
    pub number: usize,
    /// The round as in the PGN.
    pub round: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The current position.
    pub fen: String,
    /// The side to move: `white` or `black`.
    pub turn: &'static str,
    /// Every move so far (SAN, UCI, time, clock, score, depth).
    pub moves: Vec<MoveRecord>,
    /// The last move in UCI notation.
    pub last_move: Option<String>,
    /// White's and Black's time left (ms) when the side to move began
    /// thinking; `null` without a clock.
    pub clock_ms: [Option<u64>; 2],
    /// The time each side has used (ms).
    pub used_ms: [u64; 2],
    /// When the side to move began thinking; in JSON `thinking_ms`, how
    /// long it has been thinking when the view is sent.
    #[serde(rename = "thinking_ms", serialize_with = "elapsed_ms")]
    pub turn_started: Instant,
    /// White's and Black's last reported score and depth.
    pub evals: [Option<Eval>; 2],
    /// The board as SVG, the last move's squares marked.
    pub board_svg: String,
    #[serde(skip)]
    record: GameRecord,
}

/// Milliseconds since `t`, for the JSON.
fn elapsed_ms<S: serde::Serializer>(t: &Instant, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(ms(t.elapsed()))
}

/// A recorded game.
#[derive(Clone, Debug, Serialize)]
pub struct FinishedGame {
    /// Its number, from 1.
    pub number: usize,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// `1-0`, `0-1`, `1/2-1/2` (or `*` when the referee shut down).
    pub result: String,
    /// The ending in words.
    pub reason: String,
    /// The `Termination` tag.
    pub termination: String,
    /// Half-moves played.
    pub plies: usize,
    /// Where its PGN is.
    pub pgn: String,
    #[serde(skip)]
    record: GameRecord,
}

/// A player's line in the standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// The player's name.
    pub name: String,
    /// Points (1 a win, ½ a draw).
    pub points: f64,
    /// Games finished.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
}

/// Everything the page shows.
#[derive(Clone, Debug, Serialize)]
pub struct EventView {
    /// The event's name.
    pub name: String,
    /// Its site.
    pub site: String,
    /// The time control, as in the event file.
    pub time_control: String,
    /// The players, in the event file's order.
    pub players: Vec<String>,
    /// The whole schedule.
    pub schedule: Vec<ScheduledGame>,
    /// The games in progress, by number.
    pub live: Vec<LiveGame>,
    /// The games recorded, in the order they ended.
    pub finished: Vec<FinishedGame>,
    /// The standings, best first (points, then fewer games, then name).
    pub standings: Vec<Standing>,
    /// The cross-table in the players' order: row i, column j holds i's
    /// results against j (`1`, `½`, `0`, space-separated in the order
    /// played); `null` on the diagonal.
    pub cross_table: Vec<Vec<Option<String>>>,
    /// The event is over.
    pub over: bool,
    /// Counts the changes.
    pub version: u64,
}

impl EventView {
    /// The view as JSON, with `thinking_ms` as of now.
    pub fn to_json(&self) -> String {
        // Plain data with string keys: serialization cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string())
    }

    /// Game `number`'s PGN (from 1): as recorded once finished, the moves
    /// so far while it runs; `None` for a game not started.
    pub fn game_pgn(&self, number: usize) -> Option<String> {
        if let Some(f) = self.finished.iter().rev().find(|f| f.number == number) {
            return f.record.pgn_text().ok();
        }
        self.live
            .iter()
            .find(|g| g.number == number)
            .and_then(|g| live_record(g).pgn_text().ok())
    }

    /// Every finished game's PGN, in the order they ended.
    pub fn finished_pgn(&self) -> String {
        let mut out = String::new();
        for f in &self.finished {
            if let Ok(t) = f.record.pgn_text() {
                out.push_str(&t);
                out.push('\n');
            }
        }
        out
    }

    /// Every game started: the finished games, then those in progress.
    pub fn live_pgn(&self) -> String {
        let mut out = self.finished_pgn();
        for g in &self.live {
            if let Ok(t) = live_record(g).pgn_text() {
                out.push_str(&t);
                out.push('\n');
            }
        }
        out
    }

    fn recount(&mut self) {
        for s in &mut self.schedule {
            let done = self.finished.iter().rev().find(|f| f.number == s.number);
            s.result = done.map(|f| f.result.clone());
            s.state = if self.live.iter().any(|g| g.number == s.number) {
                GameState::Playing
            } else if done.is_some() {
                GameState::Finished
            } else {
                GameState::Pending
            };
        }
        let n = self.players.len();
        let mut table: Vec<Vec<Option<String>>> = (0..n)
            .map(|i| (0..n).map(|j| (i != j).then(String::new)).collect())
            .collect();
        let mut rows: Vec<Standing> = self
            .players
            .iter()
            .map(|name| Standing {
                name: name.clone(),
                points: 0.0,
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
            })
            .collect();
        let index = |name: &str| self.players.iter().position(|p| p == name);
        for f in &self.finished {
            let (Some(w), Some(b)) = (index(&f.white), index(&f.black)) else {
                continue;
            };
            let Some(half) = f.record.outcome.white_half_points() else {
                continue;
            };
            for (me, other, mine) in [(w, b, half), (b, w, 2 - half)] {
                let row = &mut rows[me];
                row.games += 1;
                row.points += f64::from(mine) / 2.0;
                match mine {
                    2 => row.wins += 1,
                    1 => row.draws += 1,
                    _ => row.losses += 1,
                }
                if let Some(cell) = table[me][other].as_mut() {
                    if !cell.is_empty() {
                        cell.push(' ');
                    }
                    cell.push_str(["0", "½", "1"][mine.min(2) as usize]);
                }
            }
        }
        rows.sort_by(|a, b| {
            b.points
                .total_cmp(&a.points)
                .then(a.games.cmp(&b.games))
                .then(a.name.cmp(&b.name))
        });
        self.standings = rows;
        self.cross_table = table;
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A game in progress as a record: the moves so far, no result.
fn live_record(g: &LiveGame) -> GameRecord {
    let mut r = g.record.clone();
    r.moves = g.moves.clone();
    r
}

/// The squares of a UCI move, to mark on the board.
fn move_squares(uci: &str) -> Vec<Square> {
    match uci.parse::<UciMove>() {
        Ok(UciMove::Normal { from, to, .. }) => vec![from, to],
        _ => Vec::new(),
    }
}

fn eval_of(m: &MoveRecord) -> Option<Eval> {
    (m.score.is_some() || m.depth.is_some()).then(|| Eval {
        score: m.score.map(|s| s.pawns().to_string()),
        depth: m.depth,
    })
}

/// The server's side of the page: what happens in the event goes in here.
/// Cheap to clone (every clone updates the same view).
#[derive(Clone)]
pub struct Spectators {
    tx: Arc<watch::Sender<EventView>>,
}

impl Spectators {
    /// An empty view of the event `cfg` describes (its schedule pending).
    pub fn new(cfg: &EventConfig) -> Spectators {
        let players: Vec<String> = cfg.players.iter().map(|p| p.name.clone()).collect();
        let name_of = |i: usize| players.get(i).cloned().unwrap_or_default();
        let games = Schedule::new(cfg.players.len(), cfg.pairing, cfg.rounds, cfg.games)
            .map(|s| s.iter().collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .map(|s| ScheduledGame {
                number: s.number + 1,
                round: s.round,
                white: name_of(s.white),
                black: name_of(s.black),
                state: GameState::Pending,
                result: None,
            })
            .collect();
        let mut view = EventView {
            name: cfg.name.clone(),
            site: cfg.site.clone(),
            time_control: cfg.time_control.to_string(),
            players: players.clone(),
            schedule: games,
            live: Vec::new(),
            finished: Vec::new(),
            standings: Vec::new(),
            cross_table: Vec::new(),
            over: false,
            version: 0,
        };
        view.recount();
        Spectators {
            tx: Arc::new(watch::channel(view).0),
        }
    }

    /// A reader of the view.
    pub fn feed(&self) -> Feed {
        Feed {
            rx: self.tx.subscribe(),
        }
    }

    fn change(&self, f: impl FnOnce(&mut EventView)) {
        self.tx.send_modify(|v| {
            f(v);
            v.recount();
            v.version += 1;
        });
    }

    /// A game starts (or resumes: `played` holds the moves already made,
    /// which the game loop does not report again).
    pub fn started(&self, setup: &GameSetup, white: &str, black: &str, played: &[MoveRecord]) {
        let clock = |i: usize| Clock::new(&setup.tc[i], setup.margin[i]).remaining();
        let mut game = LiveGame {
            number: setup.number + 1,
            round: setup.round.clone(),
            white: white.to_string(),
            black: black.to_string(),
            fen: Fen::from_position(&setup.start).to_string(),
            turn: "white",
            moves: Vec::new(),
            last_move: None,
            clock_ms: [clock(0).map(ms), clock(1).map(ms)],
            used_ms: [0, 0],
            evals: [None, None],
            board_svg: String::new(),
            turn_started: Instant::now(),
            record: GameRecord {
                number: setup.number,
                event: setup.event.clone(),
                site: setup.site.clone(),
                round: setup.round.clone(),
                white: white.to_string(),
                black: black.to_string(),
                white_tc: setup.tc[0],
                black_tc: setup.tc[1],
                start_fen: Fen::from_position(&setup.start).to_string(),
                moves: Vec::new(),
                outcome: GameOutcome::Unfinished,
                termination: Termination::Unterminated,
                reason: String::new(),
                started: utc_now(),
                date: setup.date.clone(),
                duration_ms: 0,
            },
        };
        set_turn(&mut game, &setup.start);
        for m in played {
            apply(&mut game, m);
        }
        self.change(move |v| {
            v.live.retain(|g| g.number != game.number);
            v.live.push(game);
            v.live.sort_by_key(|g| g.number);
        });
    }

    /// A move of game `number` (0-based, as the schedule counts) was made.
    pub fn moved(&self, number: usize, m: &MoveRecord) {
        self.change(|v| {
            if let Some(g) = v.live.iter_mut().find(|g| g.number == number + 1) {
                apply(g, m);
            }
        });
    }

    /// Game `number` (0-based) left play unrecorded (adjourned, or its
    /// players are gone): it is pending again.
    pub fn left_play(&self, number: usize) {
        self.change(|v| v.live.retain(|g| g.number != number + 1));
    }

    /// A game was recorded: it leaves play and counts in the standings.
    pub fn finished(&self, record: &GameRecord) {
        let number = record.number + 1;
        let f = FinishedGame {
            number,
            white: record.white.clone(),
            black: record.black.clone(),
            result: record.outcome.as_str().to_string(),
            reason: record.reason.clone(),
            termination: record.termination.as_str().to_string(),
            plies: record.moves.len(),
            pgn: format!("/games/{number}.pgn"),
            record: record.clone(),
        };
        self.change(move |v| {
            v.live.retain(|g| g.number != number);
            v.finished.push(f);
        });
    }

    /// The event is over: no game runs any more.
    pub fn over(&self) {
        self.change(|v| {
            v.live.clear();
            v.over = true;
        });
    }
}

/// Side to move, board and clock start of `game` in position `pos`.
fn set_turn(game: &mut LiveGame, pos: &Position) {
    game.fen = Fen::from_position(pos).to_string();
    game.turn = match pos.turn() {
        rookery_core::Color::White => "white",
        rookery_core::Color::Black => "black",
    };
    let marks = game
        .last_move
        .as_deref()
        .map(move_squares)
        .unwrap_or_default();
    game.board_svg = rookery_report::board::diagram_marked(&game.fen, BOARD_PX, &marks);
    game.turn_started = Instant::now();
}

/// Plays `m` on `game`'s board and charges the mover's clock.
fn apply(game: &mut LiveGame, m: &MoveRecord) {
    let Ok(mut pos) = Position::from_fen(&game.fen) else {
        return;
    };
    let side = usize::from(pos.turn() == rookery_core::Color::Black);
    let Some(mv) = m
        .uci
        .parse::<UciMove>()
        .ok()
        .and_then(|u| u.to_move(&pos).ok())
    else {
        return;
    };
    pos.play_unchecked(mv);
    if !m.book {
        game.used_ms[side] = game.used_ms[side].saturating_add(m.time_ms);
        if m.clock_ms.is_some() {
            game.clock_ms[side] = m.clock_ms;
        }
        if let Some(e) = eval_of(m) {
            game.evals[side] = Some(e);
        }
    }
    game.moves.push(m.clone());
    game.last_move = Some(m.uci.clone());
    set_turn(game, &pos);
}

/// A reader of the event's view (cheap to clone).
#[derive(Clone)]
pub struct Feed {
    rx: watch::Receiver<EventView>,
}

impl Feed {
    /// The latest view.
    pub fn snapshot(&self) -> EventView {
        self.rx.borrow().clone()
    }
}

/// The spectator page's HTTP server, bound and ready to run.
pub struct WebServer {
    listener: tokio::net::TcpListener,
    address: SocketAddr,
}

impl WebServer {
    /// Binds `address` (`HOST:PORT`; port 0 picks a free port).
    ///
    /// # Errors
    /// [`ServeError::Bind`] if the address cannot be bound.
    pub async fn bind(address: &str) -> Result<WebServer, ServeError> {
        let bind_error = |source| ServeError::Bind {
            address: address.to_string(),
            source,
        };
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(bind_error)?;
        let address = listener.local_addr().map_err(bind_error)?;
        Ok(WebServer { listener, address })
    }

    /// The address bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// Serves the page from `feed` until the task is dropped.
    ///
    /// # Errors
    /// [`ServeError::Io`] if the server fails.
    pub async fn run(self, feed: Feed) -> Result<(), ServeError> {
        axum::serve(self.listener, router(feed))
            .await
            .map_err(|source| ServeError::Io {
                what: format!("spectator page at {}", self.address),
                source,
            })
    }
}

/// The default address of the page: the referee's host, any free port.
pub fn default_address(referee: &str) -> String {
    match referee.parse::<SocketAddr>() {
        Ok(mut a) => {
            a.set_port(0);
            a.to_string()
        }
        Err(_) => match referee.rsplit_once(':') {
            Some((host, _)) => format!("{host}:0"),
            None => format!("{referee}:0"),
        },
    }
}

/// The page's routes over `feed` (see the module documentation).
pub fn router(feed: Feed) -> Router {
    Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route(
            "/assets/spectator.js",
            get(|| async { typed("text/javascript; charset=utf-8", SCRIPT.to_string()) }),
        )
        .route(
            "/assets/spectator.css",
            get(|| async { typed("text/css; charset=utf-8", STYLE.to_string()) }),
        )
        .route("/api/event", get(api_event))
        .route("/api/stream", get(api_stream))
        .route("/games.pgn", get(finished_pgn))
        .route("/live.pgn", get(live_pgn))
        .route("/games/{game}", get(game_pgn))
        .route("/games/{game}/stream", get(game_stream))
        .with_state(feed)
}

fn typed(content_type: &'static str, body: String) -> Response {
    let mut r = Response::new(Body::from(body));
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

const PGN_TYPE: &str = "application/x-chess-pgn";

async fn api_event(State(feed): State<Feed>) -> Response {
    let json = feed.rx.borrow().to_json();
    typed("application/json", json)
}

async fn api_stream(State(feed): State<Feed>) -> Response {
    event_stream(feed.rx, |v| Some((v.to_json(), false)))
}

async fn finished_pgn(State(feed): State<Feed>) -> Response {
    let text = feed.rx.borrow().finished_pgn();
    let mut r = typed(PGN_TYPE, text);
    r.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"games.pgn\""),
    );
    r
}

async fn live_pgn(State(feed): State<Feed>) -> Response {
    let text = feed.rx.borrow().live_pgn();
    typed(PGN_TYPE, text)
}

/// The number of `/games/N.pgn` and `/games/N/stream`, if it is a game of
/// the schedule.
fn scheduled(view: &EventView, text: &str) -> Option<usize> {
    let n = text.parse::<usize>().ok()?;
    view.schedule.iter().any(|g| g.number == n).then_some(n)
}

fn not_found(what: String) -> Response {
    (StatusCode::NOT_FOUND, what).into_response()
}

async fn game_pgn(State(feed): State<Feed>, Path(file): Path<String>) -> Response {
    let found = {
        let view = feed.rx.borrow();
        file.strip_suffix(".pgn")
            .and_then(|n| scheduled(&view, n))
            .map(|n| (n, view.game_pgn(n)))
    };
    match found {
        None => not_found(format!("no game {file:?}: /games/N.pgn, N from 1\n")),
        Some((_, Some(text))) => typed(PGN_TYPE, text),
        Some((n, None)) => not_found(format!("game {n} has not started\n")),
    }
}

async fn game_stream(State(feed): State<Feed>, Path(number): Path<String>) -> Response {
    let known = scheduled(&feed.rx.borrow(), &number);
    let Some(n) = known else {
        return not_found(format!("no game {number:?}: /games/N/stream, N from 1\n"));
    };
    event_stream(feed.rx, move |v| {
        let finished = v.finished.iter().any(|f| f.number == n);
        v.game_pgn(n).map(|pgn| (pgn, finished))
    })
}

/// One Server-Sent Event carrying `text` (one `data:` line per line).
fn sse_event(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split('\n') {
        out.push_str("data: ");
        out.push_str(line.trim_end_matches('\r'));
        out.push('\n');
    }
    out.push('\n');
    out
}

struct Watch<F> {
    rx: watch::Receiver<EventView>,
    render: F,
    last: Option<String>,
    first: bool,
    done: bool,
}

/// A Server-Sent Events response: `render` of the view at once and after
/// every change (an unchanged rendering is not sent again; `None` sends
/// nothing); the stream ends after a rendering marked final, or when the
/// event is gone.
fn event_stream<F>(rx: watch::Receiver<EventView>, render: F) -> Response
where
    F: FnMut(&EventView) -> Option<(String, bool)> + Send + 'static,
{
    let state = Watch {
        rx,
        render,
        last: None,
        first: true,
        done: false,
    };
    let stream = futures_util::stream::unfold(state, |mut s| async move {
        loop {
            if s.done {
                return None;
            }
            if !s.first {
                match tokio::time::timeout(KEEP_ALIVE, s.rx.changed()).await {
                    Err(_) => {
                        return Some((Ok::<String, Infallible>(": keep-alive\n\n".into()), s))
                    }
                    // The event is gone: what it left is the last word.
                    Ok(Err(_)) => s.done = true,
                    Ok(Ok(())) => {}
                }
            }
            s.first = false;
            let rendered = {
                let view = s.rx.borrow_and_update();
                (s.render)(&view)
            };
            if let Some((text, last)) = rendered {
                s.done |= last;
                if s.last.as_deref() != Some(text.as_str()) {
                    let event = sse_event(&text);
                    s.last = Some(text);
                    return Some((Ok(event), s));
                }
            }
        }
    });
    let mut r = Response::new(Body::from_stream(stream));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::TimeControl;
    use crate::game::StopSignal;
    use rookery_core::Score;

    fn cfg() -> EventConfig {
        let text = "[event]\nname = \"Web\"\nrounds = 1\ngames = 2\ntime_control = \"60+1\"\n\
                    pgn = \"g.pgn\"\nlog_dir = \"logs\"\n\
                    [[player]]\nname = \"A\"\ntoken = \"a\"\n[[player]]\nname = \"B\"\ntoken = \"b\"\n";
        EventConfig::from_toml(text, std::path::Path::new("/tmp")).unwrap()
    }

    fn setup(number: usize) -> GameSetup {
        let tc: TimeControl = "60+1".parse().unwrap();
        GameSetup {
            number,
            event: "Web".into(),
            site: "here".into(),
            round: "1".into(),
            start: Position::startpos(),
            opening: Vec::new(),
            tc: [tc; 2],
            margin: [Duration::ZERO; 2],
            rules: Default::default(),
            stall_timeout: Duration::from_secs(5),
            date: None,
            history: None,
            stop: StopSignal::new(),
        }
    }

    fn mv(uci: &str, san: &str, clock_ms: u64, cp: i32) -> MoveRecord {
        MoveRecord {
            uci: uci.into(),
            san: san.into(),
            book: false,
            time_ms: 500,
            clock_ms: Some(clock_ms),
            score: Some(Score::Cp(cp)),
            depth: Some(7),
            nodes: None,
        }
    }

    #[test]
    fn moves_update_board_clocks_scores_and_pgn() {
        let s = Spectators::new(&cfg());
        let feed = s.feed();
        s.started(&setup(0), "A", "B", &[]);
        let v = feed.snapshot();
        assert_eq!(v.live.len(), 1);
        assert_eq!(v.live[0].clock_ms, [Some(60_000), Some(60_000)]);
        assert_eq!(v.schedule[0].state, GameState::Playing);
        let before = v.live[0].board_svg.clone();
        s.moved(0, &mv("e2e4", "e4", 60_500, 25));
        let v = feed.snapshot();
        let g = &v.live[0];
        assert_eq!(g.turn, "black");
        assert_eq!(g.clock_ms, [Some(60_500), Some(60_000)]);
        assert_eq!(g.used_ms, [500, 0]);
        assert_eq!(
            g.evals[0],
            Some(Eval {
                score: Some("+0.25".into()),
                depth: Some(7)
            })
        );
        assert_ne!(g.board_svg, before);
        assert_eq!(g.board_svg.matches(r#"class="marked""#).count(), 2);
        assert!(g.fen.starts_with("rnbqkbnr/pppppppp/8/8/4P3/"), "{}", g.fen);
        let pgn = v.game_pgn(1).unwrap();
        assert!(pgn.contains("1. e4"), "{pgn}");
        assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
        assert!(v.game_pgn(2).is_none());
        let json: serde_json::Value = serde_json::from_str(&v.to_json()).unwrap();
        assert_eq!(json["live"][0]["moves"][0]["san"], "e4");
        assert_eq!(json["live"][0]["turn"], "black");
    }

    #[test]
    fn results_make_standings_and_the_cross_table() {
        let s = Spectators::new(&cfg());
        let feed = s.feed();
        for (n, outcome) in [(0, GameOutcome::WhiteWins), (1, GameOutcome::Draw)] {
            let (w, b) = if n == 0 { ("A", "B") } else { ("B", "A") };
            s.started(&setup(n), w, b, &[]);
            s.moved(n, &mv("e2e4", "e4", 60_000, 0));
            let mut r = live_record(&feed.snapshot().live[0]);
            r.outcome = outcome;
            r.termination = Termination::Normal;
            r.reason = "test".into();
            s.finished(&r);
        }
        let v = feed.snapshot();
        assert!(v.live.is_empty());
        assert_eq!(v.standings[0].name, "A");
        assert_eq!(v.standings[0].points, 1.5);
        assert_eq!(
            (
                v.standings[1].wins,
                v.standings[1].draws,
                v.standings[1].losses
            ),
            (0, 1, 1)
        );
        assert_eq!(v.cross_table[0][1].as_deref(), Some("1 ½"));
        assert_eq!(v.cross_table[1][0].as_deref(), Some("0 ½"));
        assert_eq!(v.cross_table[0][0], None);
        assert_eq!(v.schedule[1].result.as_deref(), Some("1/2-1/2"));
        let all = v.finished_pgn();
        assert_eq!(all.matches("[Event ").count(), 2);
        assert!(all.contains("[Result \"1-0\"]"));
    }

    #[test]
    fn a_game_that_leaves_play_is_pending_again() {
        let s = Spectators::new(&cfg());
        s.started(&setup(1), "B", "A", &[mv("e2e4", "e4", 59_000, 0)]);
        let v = s.feed().snapshot();
        assert_eq!(v.live[0].moves.len(), 1, "moves made before a resume show");
        s.left_play(1);
        let v = s.feed().snapshot();
        assert!(v.live.is_empty());
        assert_eq!(v.schedule[1].state, GameState::Pending);
    }

    #[test]
    fn events_are_framed_line_by_line() {
        assert_eq!(sse_event("a\nb"), "data: a\ndata: b\n\n");
        assert_eq!(default_address("127.0.0.1:7000"), "127.0.0.1:0");
        assert_eq!(default_address("[::1]:7000"), "[::1]:0");
        assert_eq!(default_address("localhost:7000"), "localhost:0");
    }
}
