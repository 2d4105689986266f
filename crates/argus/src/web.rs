//! The spectator page (duty 11 of §3.2; feature `server`): every game of
//! an event live in a browser, and the same data for other tools; and on
//! the same server, with the same limits, a local match's page
//! (`rookery match --web`: [`MatchPage`], [`match_router`]).
//!
//! The server keeps one [`Spectators`] and tells it what happens: a game
//! starts, a move is made, a game leaves play, a game is recorded, the
//! event ends. Each call updates the page's state behind a
//! `tokio::sync::watch` channel; readers hold a [`Feed`] and see the latest
//! [`EventView`] (a slow reader skips views, it never holds the server up).
//! The web server ([`WebServer`], hyper and axum) reads only the feed: it
//! knows nothing of sockets to players or of the rules.
//!
//! Routes (every one a `GET`):
//!
//! | route | what |
//! |---|---|
//! | `/` | the page: every game in progress (board, clocks, moves in SAN, the engines' last score and depth), the cross-table and standings, the schedule and the finished games with their PGN, a page at a time |
//! | `/assets/spectator.js`, `/assets/spectator.css` | the page's script and style (served from here: the page loads nothing from elsewhere) |
//! | `/api/event` | the [`EventView`] as JSON: the games in progress, standings, cross-table, and windows of the schedule and of the finished games |
//! | `/api/stream` | Server-Sent Events: the [`EventView`] as JSON at once and after every change |
//! | `/api/schedule?from=N&count=M` | games N.. (from 1) of the schedule, at most M (default 50, at most 200), with their state and result: `{"total", "from", "games"}` |
//! | `/api/finished?from=N&count=M` | the finished games N.. (from 1, in the order they ended), at most M, as `/api/schedule` |
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
//!
//! What the page costs does not grow with the event or with its audience:
//! the view carries windows of [`SCHEDULE_WINDOW`] scheduled and
//! [`FINISHED_WINDOW`] finished games; a recorded game is read back from
//! the event's PGN file rather than kept; connections, streams,
//! time and bytes per connection are bounded ([`WebLimits`]).

mod matches;
mod pgn;
mod serve;
mod sse;
mod view;

pub use matches::{
    match_router, LlrPoint, MatchFeed, MatchGame, MatchPage, MatchView, Pace, PoolFollower,
    LLR_POINTS, POOL_REFRESH,
};
pub use serve::{
    WebError, WebLimits, WebServer, BUFFER, HEADER_TIMEOUT, MAX_CONNECTIONS, WRITE_STALL,
};
pub use view::{
    Eval, EventView, Feed, FinishedGame, GameState, LiveGame, Page, ScheduledGame, Spectators,
    Standing,
};

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use pgn::Stored;
use sse::Next;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// How many games of the schedule the view carries.
pub const SCHEDULE_WINDOW: usize = 50;
/// How many finished games the view carries (the last ones).
pub const FINISHED_WINDOW: usize = 50;
/// The most games one page of `/api/schedule` or `/api/finished` lists.
pub const PAGE_MAX: usize = 200;

const PAGE: &str = include_str!("web/spectator.html");
const SCRIPT: &str = include_str!("web/spectator.js");
/// The scripts both pages share (games in progress, clocks, the stream).
const LIVE_SCRIPT: &str = include_str!("web/live.js");
const STYLE: &str = include_str!("web/spectator.css");
const PGN_TYPE: &str = "application/x-chess-pgn";

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

/// What every route reads: the feed, and the streams' places.
#[derive(Clone)]
struct Site {
    feed: Feed,
    streams: Arc<Semaphore>,
}

/// The page's routes over `feed`, with at most `limits.max_streams` event
/// streams open at once (see the module documentation).
pub fn router(feed: Feed, limits: &WebLimits) -> Router {
    let site = Site {
        feed,
        streams: Arc::new(Semaphore::new(limits.max_streams.max(1))),
    };
    Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/assets/spectator.js", get(|| async { script(SCRIPT) }))
        .route("/assets/live.js", get(|| async { script(LIVE_SCRIPT) }))
        .route("/assets/spectator.css", get(|| async { style() }))
        .route("/api/event", get(api_event))
        .route("/api/stream", get(api_stream))
        .route("/api/schedule", get(api_schedule))
        .route("/api/finished", get(api_finished))
        .route("/games.pgn", get(finished_pgn))
        .route("/live.pgn", get(live_pgn))
        .route("/games/{game}", get(game_pgn))
        .route("/games/{game}/stream", get(game_stream))
        .with_state(site)
}

fn typed(content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut r = Response::new(body.into());
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

fn script(text: &'static str) -> Response {
    typed("text/javascript; charset=utf-8", text)
}

/// The pages' one style sheet.
fn style() -> Response {
    typed("text/css; charset=utf-8", STYLE)
}

fn not_found(what: String) -> Response {
    (StatusCode::NOT_FOUND, what).into_response()
}

async fn api_event(State(site): State<Site>) -> Response {
    let json = site.feed.state().view().to_json();
    typed("application/json", json)
}

/// `from` and `count` of a page's query (`from=N&count=M`).
fn page_query(uri: &Uri) -> Result<(usize, usize), String> {
    let (mut from, mut count) = (1, SCHEDULE_WINDOW);
    for pair in uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let slot = match key {
            "from" => &mut from,
            "count" => &mut count,
            _ => continue,
        };
        *slot = match value.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => return Err(format!("{key}={value:?}: expected a number from 1\n")),
        };
    }
    Ok((from, count.min(PAGE_MAX)))
}

async fn api_schedule(State(site): State<Site>, uri: Uri) -> Response {
    match page_query(&uri) {
        Ok((from, count)) => {
            let json = view::to_json(&site.feed.state().schedule_page(from, count));
            typed("application/json", json)
        }
        Err(why) => (StatusCode::BAD_REQUEST, why).into_response(),
    }
}

async fn api_finished(State(site): State<Site>, uri: Uri) -> Response {
    match page_query(&uri) {
        Ok((from, count)) => {
            let json = view::to_json(&site.feed.state().finished_page(from, count));
            typed("application/json", json)
        }
        Err(why) => (StatusCode::BAD_REQUEST, why).into_response(),
    }
}

/// The answer when every place for an event stream is taken.
fn streams_full() -> Response {
    let mut r = (
        StatusCode::SERVICE_UNAVAILABLE,
        "too many event streams open; /api/event has the same view\n",
    )
        .into_response();
    let h = r.headers_mut();
    h.insert(header::RETRY_AFTER, HeaderValue::from_static("30"));
    // The connection is of no further use to a client turned away.
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

async fn api_stream(State(site): State<Site>) -> Response {
    let Ok(slot) = site.streams.clone().try_acquire_owned() else {
        return streams_full();
    };
    let feed = site.feed.clone();
    sse::respond(feed.receiver(), slot, move |state, first| {
        if first {
            // The first view goes out as of now (its `thinking_ms` fresh);
            // later ones are one rendering shared by every subscriber.
            Next::Event(Bytes::from(sse::event(&state.view().to_json())))
        } else {
            Next::Event(feed.framed_view(state))
        }
    })
}

/// The recorded games as one streamed body, read a chunk at a time, then
/// `tail` (rendered when the recorded games are out).
fn recorded_body(feed: Feed, tail: Option<fn(&Feed) -> String>) -> Body {
    // The games recorded when the request came: later ones are not in it.
    let count = feed.state().recorded_count();
    let stream =
        futures_util::stream::unfold((feed, 0usize, tail), move |(feed, next, tail)| async move {
            if next < count {
                let (file, pieces) = {
                    let state = feed.state();
                    let window = state.recorded(next, (next + 256).min(count));
                    let n = pgn::chunk_len(&window);
                    (state.pgn_file().to_path_buf(), window[..n].to_vec())
                };
                let n = pieces.len();
                let chunk = pgn::load(file, pieces).await;
                return Some((chunk, (feed, next + n, tail)));
            }
            let tail = tail?;
            let text = tail(&feed);
            Some((Ok(Bytes::from(text)), (feed, next, None)))
        });
    Body::from_stream(stream)
}

async fn finished_pgn(State(site): State<Site>) -> Response {
    let mut r = typed(PGN_TYPE, recorded_body(site.feed, None));
    r.headers_mut().insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"games.pgn\""),
    );
    r
}

async fn live_pgn(State(site): State<Site>) -> Response {
    let tail: fn(&Feed) -> String = |feed| feed.state().live_pgn();
    typed(PGN_TYPE, recorded_body(site.feed, Some(tail)))
}

/// The number of `/games/N.pgn` and `/games/N/stream`, if it is a game of
/// the schedule.
fn scheduled(feed: &Feed, text: &str) -> Option<usize> {
    let n = text.parse::<usize>().ok()?;
    feed.state().is_scheduled(n).then_some(n)
}

async fn game_pgn(State(site): State<Site>, Path(file): Path<String>) -> Response {
    let feed = site.feed;
    let found = file
        .strip_suffix(".pgn")
        .and_then(|n| scheduled(&feed, n))
        .map(|n| (n, feed.state().game_pgn(n)));
    let (n, stored) = match found {
        None => return not_found(format!("no game {file:?}: /games/N.pgn, N from 1\n")),
        Some((n, None)) => return not_found(format!("game {n} has not started\n")),
        Some((n, Some(s))) => (n, s),
    };
    let path = feed.state().pgn_file().to_path_buf();
    match pgn::load(path, vec![stored]).await {
        Ok(bytes) => {
            let one = bytes
                .strip_suffix(b"\n")
                .map_or(bytes.clone(), |b| bytes.slice(..b.len()));
            typed(PGN_TYPE, one)
        }
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("game {n}: cannot read the event's PGN file: {e}\n"),
        )
            .into_response(),
    }
}

async fn game_stream(State(site): State<Site>, Path(number): Path<String>) -> Response {
    let Some(n) = scheduled(&site.feed, &number) else {
        return not_found(format!("no game {number:?}: /games/N/stream, N from 1\n"));
    };
    let Ok(slot) = site.streams.clone().try_acquire_owned() else {
        return streams_full();
    };
    let mut seen = None;
    sse::respond(site.feed.receiver(), slot, move |state, _| {
        let now = state.progress(n);
        if now.is_none() || now == seen {
            return Next::Nothing;
        }
        seen = now;
        match (state.game_pgn(n), now) {
            (Some(stored), Some((_, true))) => Next::Last(state.pgn_file().to_path_buf(), stored),
            (Some(Stored::Text(t)), _) => Next::Event(Bytes::from(sse::event(&t))),
            _ => Next::Nothing,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_defaults_to_the_referees_host() {
        assert_eq!(default_address("127.0.0.1:7000"), "127.0.0.1:0");
        assert_eq!(default_address("[::1]:7000"), "[::1]:0");
        assert_eq!(default_address("localhost:7000"), "localhost:0");
    }

    #[test]
    fn pages_are_asked_for_by_number() {
        let q =
            |s: &str| page_query(&s.parse::<Uri>().unwrap()).map_err(|_| StatusCode::BAD_REQUEST);
        assert_eq!(q("/api/finished"), Ok((1, SCHEDULE_WINDOW)));
        assert_eq!(q("/api/finished?from=7&count=3"), Ok((7, 3)));
        assert_eq!(q("/api/finished?count=100000&x=1"), Ok((1, PAGE_MAX)));
        assert_eq!(q("/api/finished?from=0"), Err(StatusCode::BAD_REQUEST));
        assert_eq!(q("/api/finished?from=x"), Err(StatusCode::BAD_REQUEST));
    }
}
