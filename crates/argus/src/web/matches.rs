//! A local match's live page (`rookery match --web`), the fishtest /
//! OpenBench view without their server: the standings, W/D/L and the
//! pentanomial counts, Elo with its interval, the LLR's path between its
//! bounds, the pace and an ETA, the games in progress on their boards and
//! the finished games.
//!
//! The match tells a [`MatchPage`] what happens: its game loop as a
//! [`GameWatcher`] (every game's start and moves, on the worker threads),
//! its events ([`MatchPage::event`]: results, the SPRT's decision) and its
//! end ([`MatchPage::over`]). A match played in shards with a pool shows
//! the pool's counts, read again every [`POOL_REFRESH`]
//! ([`MatchPage::follow_pool`]). As for the Argus page, the view sits
//! behind a `tokio::sync::watch` channel (a slow reader skips views) and is
//! served by [`super::WebServer`] with its limits.
//!
//! Routes (every one a `GET`):
//!
//! | route | what |
//! |---|---|
//! | `/` | the page |
//! | `/assets/live.js`, `/assets/match.js`, `/assets/spectator.css` | its scripts and style (it loads nothing from elsewhere) |
//! | `/api/match` | the [`MatchView`] as JSON |
//! | `/api/stream` | Server-Sent Events: the [`MatchView`] as JSON at once and after every change |
//!
//! What the page costs does not grow with the match: the view carries the
//! last [`super::FINISHED_WINDOW`] finished games and at most
//! [`LLR_POINTS`] points of the LLR's path (every other one is dropped
//! when it is full, so the path keeps its shape from the first game).

use super::sse::{self, Framed, Next};
use super::view::{standing_rows, to_json, LiveGame, Standing};
use super::{script, streams_full, style, typed, FINISHED_WINDOW};
use axum::body::Bytes;
use axum::extract::State as Extract;
use axum::response::{Html, Response};
use axum::routing::get;
use axum::Router;
use rookery_event::pool::Pool;
use rookery_event::standings::Standings;
use rookery_event::stats::{Sprt, SprtConfig, SprtState, Summary};
use rookery_event::tournament::{GameWatcher, MatchEvent, MatchPlan, MatchStop, MatchSummary};
use rookery_game::game::GameSetup;
use rookery_game::record::{GameRecord, MoveRecord};
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::{watch, Semaphore};

/// The most points of the LLR's path the view carries.
pub const LLR_POINTS: usize = 512;
/// How often the page reads a match's pool again.
pub const POOL_REFRESH: Duration = Duration::from_secs(2);
/// How often a pool follower looks whether it should stop.
const STOP_POLL: Duration = Duration::from_millis(50);

const PAGE: &str = include_str!("match.html");
const SCRIPT: &str = include_str!("match.js");

/// A finished game as the page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct MatchGame {
    /// Its number, from 1.
    pub number: usize,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// `1-0`, `0-1`, `1/2-1/2` (or `*` for a game cut off).
    pub result: String,
    /// The ending in words.
    pub reason: String,
    /// Half-moves played.
    pub plies: usize,
}

/// One point of the LLR's path: the games behind it (two a pair) and its
/// value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LlrPoint {
    /// Games counted (the SPRT's basis, in games).
    pub games: u64,
    /// The log-likelihood ratio then.
    pub llr: f64,
}

/// How fast the match goes, and when it should end: as of the last count,
/// but for the time elapsed.
#[derive(Clone, Debug, Serialize)]
pub struct Pace {
    /// When the page began; in JSON `elapsed_s`, the seconds since then
    /// when the view is sent.
    #[serde(rename = "elapsed_s", serialize_with = "seconds_since")]
    pub began: Instant,
    /// Games counted since the page began (with a pool: every shard's).
    pub games: u64,
    /// Games per minute since the page began; `null` before the first.
    pub games_per_minute: Option<f64>,
    /// Games of the schedule not counted yet.
    pub remaining: u64,
    /// Seconds until the schedule's end at this pace; `null` without a
    /// pace.
    pub eta_s: Option<f64>,
    /// The ETA is a bound: an SPRT may end the match sooner.
    pub eta_is_bound: bool,
}

/// Seconds since `t`, for the JSON.
fn seconds_since<S: serde::Serializer>(t: &Instant, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(t.elapsed().as_secs_f64())
}

/// Everything the page shows at once.
#[derive(Clone, Debug, Serialize)]
pub struct MatchView {
    /// The Event tag.
    pub name: String,
    /// The engines, in command-line order.
    pub players: Vec<String>,
    /// Each engine's limits (`10+0.1`, `nodes=5000`), in the same order.
    pub limits: Vec<String>,
    /// Games in the schedule this page counts (a shard's share without a
    /// pool; every shard's with one).
    pub total_games: u64,
    /// Games counted in the standings and statistics.
    pub games_done: u64,
    /// The standings, best first.
    pub standings: Vec<Standing>,
    /// With two engines: the first engine's W/D/L, pairs, score, Elo with
    /// its interval, LOS and, with an SPRT, the test (`sprt`: LLR and
    /// bounds), all from the first engine's view.
    pub stats: Option<Summary>,
    /// The SPRT's parameters, if one runs.
    pub sprt: Option<SprtConfig>,
    /// The LLR after each finished game (or pair), at most [`LLR_POINTS`].
    pub llr_path: Vec<LlrPoint>,
    /// The SPRT's decision, once taken.
    pub decided: Option<SprtState>,
    /// Pace and ETA.
    pub pace: Pace,
    /// The games in progress, by number.
    pub live: Vec<LiveGame>,
    /// The last finished games of this run, the latest last.
    pub finished: Vec<MatchGame>,
    /// Games this run finished.
    pub finished_total: usize,
    /// The shard this run plays (`K/N`), if it is one.
    pub shard: Option<String>,
    /// The pool the counts come from, if any.
    pub pool: Option<String>,
    /// The match is over.
    pub over: bool,
    /// Why it stopped early, in words.
    pub stopped: Option<String>,
    /// Counts the changes.
    pub version: u64,
}

impl MatchView {
    /// The view as JSON, with the games' `thinking_ms` as of now.
    pub fn to_json(&self) -> String {
        to_json(self)
    }
}

/// The page's state: the view and what it is computed from.
pub(super) struct MatchState {
    view: MatchView,
    sprt: Option<Sprt>,
    began: Instant,
    /// Games this page saw counted (without a pool: finished by this run).
    counted_here: u64,
    /// With a pool: the pool's games when the page first read it.
    pool_base: Option<u64>,
    pooled: bool,
    finished: VecDeque<MatchGame>,
}

impl MatchState {
    /// The counts are `standings` now: standings, statistics, the LLR's
    /// next point, the pace.
    fn count(&mut self, standings: &Standings) {
        self.view.standings = standing_rows(standings);
        self.view.players.clone_from(&standings.names().to_vec());
        self.view.games_done = standings.games();
        if standings.names().len() == 2 {
            let summary = standings.versus(0, 1).summary(self.sprt.as_ref());
            if let Some(status) = summary.sprt {
                if let Some(basis) = status.basis {
                    self.llr_point(LlrPoint {
                        games: basis.games(),
                        llr: status.llr,
                    });
                }
            }
            self.view.stats = Some(summary);
        }
        self.pace();
    }

    fn llr_point(&mut self, p: LlrPoint) {
        let path = &mut self.view.llr_path;
        if path.last().map(|l| l.games) == Some(p.games) {
            return;
        }
        path.push(p);
        if path.len() > LLR_POINTS {
            // Every other point, the last kept: the shape from the first game.
            let last = p;
            let mut kept: Vec<LlrPoint> = path.iter().step_by(2).copied().collect();
            if kept.last() != Some(&last) {
                kept.push(last);
            }
            *path = kept;
        }
    }

    fn pace(&mut self) {
        let elapsed = self.began.elapsed().as_secs_f64();
        let games = self.counted_here;
        let per_minute = (games > 0 && elapsed > 0.0).then(|| games as f64 * 60.0 / elapsed);
        let remaining = if self.view.over {
            0
        } else {
            self.view.total_games.saturating_sub(self.view.games_done)
        };
        self.view.pace = Pace {
            began: self.began,
            games,
            games_per_minute: per_minute,
            remaining,
            eta_s: per_minute.map(|p| remaining as f64 / p * 60.0),
            eta_is_bound: self.sprt.is_some() && !self.view.over,
        };
    }

    fn finish(&mut self, record: &GameRecord) {
        self.view.live.retain(|g| g.number != record.number + 1);
        self.finished.push_back(MatchGame {
            number: record.number + 1,
            white: record.white.clone(),
            black: record.black.clone(),
            result: record.outcome.as_str().to_string(),
            reason: record.reason.clone(),
            plies: record.moves.len(),
        });
        while self.finished.len() > FINISHED_WINDOW {
            self.finished.pop_front();
        }
        self.view.finished = self.finished.iter().cloned().collect();
        self.view.finished_total += 1;
    }
}

/// The match's side of the page: what happens in the match goes in here.
/// Cheap to clone (every clone updates the same view).
#[derive(Clone)]
pub struct MatchPage {
    tx: Arc<watch::Sender<MatchState>>,
}

impl MatchPage {
    /// An empty page of the match `plan` describes.
    pub fn new(plan: &MatchPlan) -> MatchPage {
        let schedule = plan.schedule().ok();
        let total = match (&schedule, plan.shard, &plan.pool) {
            (Some(s), Some(shard), None) => s.iter().filter(|g| s.in_shard(g, shard)).count(),
            (Some(s), _, _) => s.len(),
            (None, _, _) => 0,
        };
        let sprt = plan.sprt;
        let players: Vec<String> = plan.engines.iter().map(|e| e.label()).collect();
        let mut state = MatchState {
            view: MatchView {
                name: plan.event.clone(),
                players: players.clone(),
                limits: plan.engines.iter().map(|e| e.tc.to_string()).collect(),
                total_games: total as u64,
                games_done: 0,
                standings: Vec::new(),
                stats: None,
                sprt: sprt.map(|s| *s.config()),
                llr_path: Vec::new(),
                decided: None,
                pace: Pace {
                    began: Instant::now(),
                    games: 0,
                    games_per_minute: None,
                    remaining: total as u64,
                    eta_s: None,
                    eta_is_bound: false,
                },
                live: Vec::new(),
                finished: Vec::new(),
                finished_total: 0,
                shard: plan.shard.map(|s| s.to_string()),
                pool: plan.pool.as_ref().map(|p| p.display().to_string()),
                over: false,
                stopped: None,
                version: 0,
            },
            sprt,
            began: Instant::now(),
            counted_here: 0,
            pool_base: None,
            pooled: plan.pool.is_some(),
            finished: VecDeque::new(),
        };
        state.count(&Standings::new(players));
        MatchPage {
            tx: Arc::new(watch::channel(state).0),
        }
    }

    /// A reader of the view.
    pub fn feed(&self) -> MatchFeed {
        MatchFeed {
            rx: self.tx.subscribe(),
            framed: Framed::default(),
        }
    }

    fn change(&self, f: impl FnOnce(&mut MatchState)) {
        self.tx.send_modify(|s| {
            f(s);
            s.view.version += 1;
        });
    }

    /// What the match said ([`MatchEvent`]): a result counts (unless the
    /// counts are a pool's), a decision is shown.
    pub fn event(&self, event: &MatchEvent<'_>) {
        match event {
            MatchEvent::Finished {
                record, standings, ..
            } => self.change(|s| {
                s.finish(record);
                if !s.pooled {
                    s.counted_here += 1;
                    s.count(standings);
                }
            }),
            MatchEvent::Decided(report) => {
                let state = report.decision.as_ref().map(|d| d.status.state);
                self.change(|s| s.view.decided = state);
            }
            _ => {}
        }
    }

    /// The pool's counts now: every shard's published games.
    pub fn pooled(&self, pool: &Pool) {
        let standings = pool.standings();
        self.change(|s| {
            let games = standings.games();
            let base = *s.pool_base.get_or_insert(games);
            s.counted_here = games.saturating_sub(base);
            s.count(standings);
        });
    }

    /// Reads `pool` again every [`POOL_REFRESH`] (and once at once) and
    /// shows its counts, on a thread of its own, until the returned
    /// follower is dropped.
    pub fn follow_pool(&self, mut pool: Pool) -> PoolFollower {
        let stop = Arc::new(AtomicBool::new(false));
        let page = self.clone();
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || loop {
            // A pool that cannot be read is the match's to report; the
            // page shows what it could read.
            let _ = pool.refresh();
            let _ = pool.take_notes();
            page.pooled(&pool);
            let t = Instant::now();
            while t.elapsed() < POOL_REFRESH {
                if stopped.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(STOP_POLL);
            }
        });
        PoolFollower {
            stop,
            thread: Some(thread),
        }
    }

    /// The match is over: its final standings (unless a pool's) and why
    /// it stopped early, if it did.
    pub fn over(&self, summary: &MatchSummary) {
        self.change(|s| {
            s.view.live.clear();
            s.view.over = true;
            s.view.stopped = summary.stopped.as_ref().map(|stop| match stop {
                MatchStop::Sprt(SprtState::AcceptH0) => "SPRT: H0 accepted".to_string(),
                MatchStop::Sprt(SprtState::AcceptH1) => "SPRT: H1 accepted".to_string(),
                MatchStop::Sprt(SprtState::Continue) => "SPRT".to_string(),
                MatchStop::EngineFailure(why) => why.clone(),
                MatchStop::Interrupted => "interrupted".to_string(),
            });
            if !s.pooled {
                s.count(&summary.standings);
            } else {
                s.pace();
            }
        });
    }
}

impl GameWatcher for MatchPage {
    fn started(&self, setup: &GameSetup, white: &str, black: &str, played: &[MoveRecord]) {
        let game = LiveGame::new(setup, white, black, played);
        self.change(move |s| {
            let live = &mut s.view.live;
            live.retain(|g| g.number != game.number);
            live.push(game);
            live.sort_by_key(|g| g.number);
        });
    }

    fn moved(&self, game: usize, mv: &MoveRecord) {
        self.change(|s| {
            if let Some(g) = s.view.live.iter_mut().find(|g| g.number == game + 1) {
                g.play(mv);
            }
        });
    }

    fn left(&self, game: usize) {
        self.change(|s| s.view.live.retain(|g| g.number != game + 1));
    }
}

/// Reads a pool for the page ([`MatchPage::follow_pool`]); stops when
/// dropped.
pub struct PoolFollower {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for PoolFollower {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A reader of the match's view (cheap to clone).
#[derive(Clone)]
pub struct MatchFeed {
    rx: watch::Receiver<MatchState>,
    framed: Framed,
}

impl MatchFeed {
    /// The latest view.
    pub fn snapshot(&self) -> MatchView {
        self.rx.borrow().view.clone()
    }
}

/// What every route reads: the feed, and the streams' places.
#[derive(Clone)]
struct Site {
    feed: MatchFeed,
    streams: Arc<Semaphore>,
}

/// The match page's routes over `feed`, with at most `limits.max_streams`
/// event streams open at once (see the module documentation).
pub fn match_router(feed: MatchFeed, limits: &super::WebLimits) -> Router {
    let site = Site {
        feed,
        streams: Arc::new(Semaphore::new(limits.max_streams.max(1))),
    };
    Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/assets/match.js", get(|| async { script(SCRIPT) }))
        .route(
            "/assets/live.js",
            get(|| async { script(super::LIVE_SCRIPT) }),
        )
        .route("/assets/spectator.css", get(|| async { style() }))
        .route("/api/match", get(api_match))
        .route("/api/stream", get(api_stream))
        .with_state(site)
}

async fn api_match(Extract(site): Extract<Site>) -> Response {
    let json = site.feed.rx.borrow().view.to_json();
    typed("application/json", json)
}

async fn api_stream(Extract(site): Extract<Site>) -> Response {
    let Ok(slot) = site.streams.clone().try_acquire_owned() else {
        return streams_full();
    };
    let framed = site.feed.framed.clone();
    sse::respond(
        site.feed.rx.clone(),
        slot,
        move |state: &MatchState, first| {
            if first {
                // The first view as of now (its `thinking_ms` fresh); later
                // ones are one rendering shared by every subscriber.
                Next::Event(Bytes::from(sse::event(&state.view.to_json())))
            } else {
                Next::Event(framed.get(state.view.version, || state.view.to_json()))
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_event::schedule::Pairing;
    use rookery_game::player::EngineConfig;
    use rookery_game::record::{GameOutcome, Termination};

    fn plan(sprt: bool) -> MatchPlan {
        let mut e = EngineConfig::builtin();
        e.apply_all(["name=A", "nodes=10"]).unwrap();
        let mut f = EngineConfig::builtin();
        f.apply_all(["name=B", "nodes=10"]).unwrap();
        let mut p = MatchPlan::new(vec![e, f]);
        p.pairing = Pairing::RoundRobin;
        p.rounds = 3000;
        p.games = 2;
        if sprt {
            p.sprt = Some("elo0=0 elo1=5".parse().unwrap());
        }
        p
    }

    fn record(number: usize, outcome: GameOutcome) -> GameRecord {
        let (white, black) = if number % 2 == 0 {
            ("A", "B")
        } else {
            ("B", "A")
        };
        GameRecord {
            number,
            event: "e".into(),
            site: "s".into(),
            round: (number + 1).to_string(),
            white: white.into(),
            black: black.into(),
            white_tc: "nodes=10".parse().unwrap(),
            black_tc: "nodes=10".parse().unwrap(),
            start_fen: rookery_core::Fen::from_position(&rookery_core::Position::startpos())
                .to_string(),
            moves: Vec::new(),
            outcome,
            termination: Termination::Normal,
            reason: "adjudication".into(),
            started: rookery_game::game::utc_now(),
            date: None,
            duration_ms: 0,
        }
    }

    /// Plays `n` games into `page` and `standings`, A winning every third.
    fn play(page: &MatchPage, standings: &mut Standings, plan: &MatchPlan, n: usize) {
        let schedule = plan.schedule().unwrap();
        for number in 0..n {
            let outcome = match number % 3 {
                0 => GameOutcome::WhiteWins,
                1 => GameOutcome::Draw,
                _ => GameOutcome::BlackWins,
            };
            let game = schedule.get(number).unwrap();
            standings.add_result(&game, outcome, Termination::Normal, "");
            let r = record(number, outcome);
            page.event(&MatchEvent::Finished {
                record: &r,
                standings,
                sprt: None,
            });
        }
    }

    #[test]
    fn results_make_standings_statistics_and_the_llr_path() {
        let plan = plan(true);
        let page = MatchPage::new(&plan);
        let feed = page.feed();
        let mut standings = Standings::new(vec!["A".into(), "B".into()]);
        play(&page, &mut standings, &plan, 6);
        let v = feed.snapshot();
        assert_eq!(v.games_done, 6);
        assert_eq!(v.finished_total, 6);
        assert_eq!(v.finished.len(), 6);
        let stats = v.stats.expect("two engines have statistics");
        let tally = standings.versus(0, 1);
        assert_eq!(stats.wdl, tally.wdl);
        assert_eq!(stats.ptnml, Some(tally.ptnml.counts));
        // One point per pair: the SPRT counts pairs.
        assert_eq!(
            v.llr_path.iter().map(|p| p.games).collect::<Vec<_>>(),
            [1, 2, 4, 6]
        );
        let last = v.llr_path.last().unwrap();
        assert_eq!(Some(last.llr), stats.sprt.map(|s| s.llr));
        assert!(v.pace.games_per_minute.is_some() && v.pace.eta_is_bound);
        assert_eq!(v.pace.remaining, 6000 - 6);
        let json = v.to_json();
        assert!(json.contains("\"llr_path\":[{\"games\":1"), "{json}");
    }

    #[test]
    fn the_llr_path_stays_bounded_and_keeps_its_ends() {
        let plan = plan(true);
        let page = MatchPage::new(&plan);
        let mut standings = Standings::new(vec!["A".into(), "B".into()]);
        play(&page, &mut standings, &plan, 3 * LLR_POINTS);
        let v = page.feed().snapshot();
        assert!(v.llr_path.len() <= LLR_POINTS, "{}", v.llr_path.len());
        assert!(v.llr_path.len() > LLR_POINTS / 4);
        assert_eq!(v.llr_path[0].games, 1);
        assert_eq!(v.llr_path.last().unwrap().games, 3 * LLR_POINTS as u64);
        assert!(v.llr_path.windows(2).all(|w| w[0].games < w[1].games));
    }

    #[test]
    fn games_in_progress_follow_their_moves_and_leave() {
        let plan = plan(false);
        let page = MatchPage::new(&plan);
        let setup = GameSetup {
            event: "e".into(),
            site: "s".into(),
            round: "5".into(),
            stall_timeout: Duration::from_secs(5),
            ..GameSetup::new(4, ["10+0.1".parse().unwrap(); 2])
        };
        page.started(&setup, "A", "B", &[]);
        let mv = MoveRecord {
            time_ms: 100,
            clock_ms: Some(9_900),
            depth: Some(3),
            ..MoveRecord::new("e2e4", "e4")
        };
        page.moved(4, &mv);
        let v = page.feed().snapshot();
        assert_eq!(v.live.len(), 1);
        assert_eq!(v.live[0].number, 5);
        assert!(v.live[0].fen.starts_with("rnbqkbnr/pppppppp/8/8/4P3/"));
        assert!(v.live[0].board_svg.starts_with("<svg"));
        assert!(v.stats.is_some_and(|s| s.sprt.is_none()));
        page.left(4);
        assert!(page.feed().snapshot().live.is_empty());
    }
}
