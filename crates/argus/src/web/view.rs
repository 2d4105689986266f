//! What the page shows ([`EventView`]) and what the referee tells it
//! ([`Spectators`]): the view holds bounded windows of the schedule and of
//! the finished games; the rest is kept compact beside it (a few dozen
//! bytes a recorded game, nothing a pending one) and read a page at a time.

use super::pgn::{self, Stored};
use super::sse::Framed;
use super::{FINISHED_WINDOW, SCHEDULE_WINDOW};
use crate::config::EventConfig;
use axum::body::Bytes;
use rookery_core::{Fen, Position, Square, UciMove};
use rookery_event::schedule::Schedule;
use rookery_event::standings::Standings;
use rookery_game::clock::Clock;
use rookery_game::game::GameSetup;
use rookery_game::record::{Clocks, GameOutcome, GameRecord, MoveRecord, Termination};
use serde::Serialize;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The side of each board diagram, in pixels.
const BOARD_PX: u32 = 320;

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
    /// White's and Black's time left (`clock_ms`, `null` without a clock)
    /// when the side to move began thinking, and the time each side has
    /// used (`used_ms`).
    #[serde(flatten)]
    pub clocks: Clocks,
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

impl LiveGame {
    /// Game `setup` between `white` and `black` as it starts, or resumes
    /// with the moves `played` already made. Every page that shows games
    /// in progress (the Argus event's, a match's) makes them here.
    pub(super) fn new(
        setup: &GameSetup,
        white: &str,
        black: &str,
        played: &[MoveRecord],
    ) -> LiveGame {
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
            clocks: Clocks::new([clock(0).map(ms), clock(1).map(ms)]),
            evals: [None, None],
            board_svg: String::new(),
            turn_started: Instant::now(),
            record: GameRecord::begun(setup, white, black),
        };
        set_turn(&mut game, &setup.start);
        for m in played {
            apply(&mut game, m);
        }
        game
    }

    /// Plays `m` on the board and charges the mover's clock.
    pub(super) fn play(&mut self, m: &MoveRecord) {
        apply(self, m);
    }
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

/// Everything the page shows at once. Its size does not grow with the
/// event: the schedule and the finished games are windows of at most
/// [`SCHEDULE_WINDOW`] and [`FINISHED_WINDOW`] games (the routes
/// `/api/schedule` and `/api/finished` page through the rest).
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
    /// Games of the schedule from the first one not recorded yet, at most
    /// [`SCHEDULE_WINDOW`] of them.
    pub schedule: Vec<ScheduledGame>,
    /// How many games the schedule has.
    pub schedule_total: usize,
    /// The games in progress, by number.
    pub live: Vec<LiveGame>,
    /// The last [`FINISHED_WINDOW`] games recorded, in the order they
    /// ended.
    pub finished: Vec<FinishedGame>,
    /// How many games have been recorded.
    pub finished_total: usize,
    /// The standings, best first (points, then fewer games, then name).
    pub standings: Vec<Standing>,
    /// The cross-table in the players' order: row i, column j holds i's
    /// results against j: `1`, `½`, `0`, space-separated in the order
    /// played, or past 12 games the score over the games (`7½/13`); `null`
    /// on the diagonal.
    pub cross_table: Vec<Vec<Option<String>>>,
    /// The event is over.
    pub over: bool,
    /// Counts the changes.
    pub version: u64,
}

impl EventView {
    /// The view as JSON, with `thinking_ms` as of now.
    pub fn to_json(&self) -> String {
        to_json(self)
    }
}

/// `value` as JSON. Plain data with string keys: serialization cannot fail.
pub(super) fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_string())
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The standings' lines, best first: what every page shows of
/// [`Standings`].
pub(super) fn standing_rows(standings: &Standings) -> Vec<Standing> {
    standings
        .ranking()
        .into_iter()
        .map(|i| {
            let w = standings.player(i);
            Standing {
                name: standings.names()[i].clone(),
                points: standings.points(i),
                games: u32::try_from(w.games()).unwrap_or(u32::MAX),
                wins: u32::try_from(w.wins).unwrap_or(u32::MAX),
                draws: u32::try_from(w.draws).unwrap_or(u32::MAX),
                losses: u32::try_from(w.losses).unwrap_or(u32::MAX),
            }
        })
        .collect()
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

/// A recorded game as the page keeps it: what its line in the table
/// needs, and where its PGN is.
#[derive(Clone, Debug)]
struct Done {
    number: usize,
    white: Arc<str>,
    black: Arc<str>,
    outcome: GameOutcome,
    termination: Termination,
    reason: Arc<str>,
    plies: usize,
    pgn: Stored,
}

impl Done {
    fn to_view(&self) -> FinishedGame {
        FinishedGame {
            number: self.number,
            white: self.white.to_string(),
            black: self.black.to_string(),
            result: self.outcome.as_str().to_string(),
            reason: self.reason.to_string(),
            termination: self.termination.as_str().to_string(),
            plies: self.plies,
            pgn: format!("/games/{}.pgn", self.number),
        }
    }
}

/// A page of a list: where it starts (from 1), how long the whole list
/// is, and its entries.
#[derive(Clone, Debug, Serialize)]
pub struct Page<T> {
    /// The whole list's length.
    pub total: usize,
    /// The first entry's place in the list (from 1).
    pub from: usize,
    /// The entries.
    pub games: Vec<T>,
}

/// The event as the page knows it: the view, and the compact record of
/// the whole event the view's windows are cut from.
pub(super) struct State {
    view: EventView,
    plan: Schedule,
    /// The PGN file the referee appends every recorded game to.
    pgn_file: PathBuf,
    /// Every recorded game, in the order they ended.
    done: Vec<Done>,
    /// By game number (0-based): 1 + the index in `done` of its record,
    /// 0 for a game not recorded (only as long as the highest recorded).
    by_number: Vec<usize>,
    /// The first game (0-based) not recorded: where the schedule's window
    /// starts.
    first_open: usize,
    /// Names and endings, each kept once however many games share it.
    words: HashSet<Arc<str>>,
}

impl State {
    fn new(cfg: &EventConfig, plan: Schedule) -> State {
        let players: Vec<String> = cfg.players.iter().map(|p| p.name.clone()).collect();
        let mut s = State {
            view: EventView {
                name: cfg.name.clone(),
                site: cfg.site.clone(),
                time_control: cfg.time_control.to_string(),
                players,
                schedule: Vec::new(),
                schedule_total: plan.len(),
                live: Vec::new(),
                finished: Vec::new(),
                finished_total: 0,
                standings: Vec::new(),
                cross_table: Vec::new(),
                over: false,
                version: 0,
            },
            plan,
            pgn_file: cfg.pgn.clone(),
            done: Vec::new(),
            by_number: Vec::new(),
            first_open: 0,
            words: HashSet::new(),
        };
        let standings = Standings::new(s.view.players.clone());
        s.rank(&standings);
        s.cut_schedule();
        s
    }

    /// The view (the windows as of the last change).
    pub(super) fn view(&self) -> &EventView {
        &self.view
    }

    /// The PGN file the recorded games are read from.
    pub(super) fn pgn_file(&self) -> &std::path::Path {
        &self.pgn_file
    }

    fn word(&mut self, text: &str) -> Arc<str> {
        if let Some(w) = self.words.get(text) {
            return w.clone();
        }
        let w: Arc<str> = Arc::from(text);
        self.words.insert(w.clone());
        w
    }

    /// The record of game `number` (0-based), if recorded.
    fn done_of(&self, number: usize) -> Option<&Done> {
        match self.by_number.get(number) {
            Some(&i) if i > 0 => self.done.get(i - 1),
            _ => None,
        }
    }

    /// Game `number` (0-based) of the schedule as the page lists it.
    fn scheduled(&self, number: usize) -> Option<ScheduledGame> {
        let g = self.plan.get(number)?;
        let name = |i: usize| self.view.players.get(i).cloned().unwrap_or_default();
        let done = self.done_of(number);
        let state = if self.view.live.iter().any(|l| l.number == number + 1) {
            GameState::Playing
        } else if done.is_some() {
            GameState::Finished
        } else {
            GameState::Pending
        };
        Some(ScheduledGame {
            number: number + 1,
            round: g.round,
            white: name(g.white),
            black: name(g.black),
            state,
            result: done.map(|d| d.outcome.as_str().to_string()),
        })
    }

    /// The schedule's window: from the first game not recorded.
    fn cut_schedule(&mut self) {
        while self.done_of(self.first_open).is_some() {
            self.first_open += 1;
        }
        let end = self
            .first_open
            .saturating_add(SCHEDULE_WINDOW)
            .min(self.plan.len());
        self.view.schedule = (self.first_open..end)
            .filter_map(|n| self.scheduled(n))
            .collect();
    }

    /// Games `from`.. (from 1) of the schedule, at most `count`.
    pub(super) fn schedule_page(&self, from: usize, count: usize) -> Page<ScheduledGame> {
        let start = from.max(1) - 1;
        let end = start.saturating_add(count).min(self.plan.len());
        Page {
            total: self.plan.len(),
            from: from.max(1),
            games: (start..end).filter_map(|n| self.scheduled(n)).collect(),
        }
    }

    /// Recorded games `from`.. (from 1, in the order they ended), at most
    /// `count`.
    pub(super) fn finished_page(&self, from: usize, count: usize) -> Page<FinishedGame> {
        let start = (from.max(1) - 1).min(self.done.len());
        let end = start.saturating_add(count).min(self.done.len());
        Page {
            total: self.done.len(),
            from: from.max(1),
            games: self.done[start..end].iter().map(Done::to_view).collect(),
        }
    }

    /// Whether `number` (from 1) is a game of the schedule.
    pub(super) fn is_scheduled(&self, number: usize) -> bool {
        number >= 1 && number <= self.plan.len()
    }

    /// Game `number` (from 1): how far it is (plies, and whether it is
    /// recorded), to tell whether its PGN changed; `None` before it starts.
    pub(super) fn progress(&self, number: usize) -> Option<(usize, bool)> {
        if let Some(d) = number.checked_sub(1).and_then(|n| self.done_of(n)) {
            return Some((d.plies, true));
        }
        self.view
            .live
            .iter()
            .find(|g| g.number == number)
            .map(|g| (g.moves.len(), false))
    }

    /// Game `number`'s PGN (from 1): where it is stored once recorded,
    /// the moves so far while it runs; `None` for a game not started.
    pub(super) fn game_pgn(&self, number: usize) -> Option<Stored> {
        if let Some(d) = number.checked_sub(1).and_then(|n| self.done_of(n)) {
            return Some(d.pgn.clone());
        }
        self.view
            .live
            .iter()
            .find(|g| g.number == number)
            .and_then(|g| live_record(g).pgn_text().ok())
            .map(|t| Stored::Text(Arc::from(t)))
    }

    /// Where recorded games `from..to` (0-based, in the order they ended)
    /// are stored.
    pub(super) fn recorded(&self, from: usize, to: usize) -> Vec<Stored> {
        let to = to.min(self.done.len());
        self.done[from.min(to)..to]
            .iter()
            .map(|d| d.pgn.clone())
            .collect()
    }

    /// How many games are recorded.
    pub(super) fn recorded_count(&self) -> usize {
        self.done.len()
    }

    /// The PGN of every game in progress so far.
    pub(super) fn live_pgn(&self) -> String {
        let mut out = String::new();
        for g in &self.view.live {
            if let Ok(t) = live_record(g).pgn_text() {
                out.push_str(&t);
            }
        }
        out
    }

    /// The standings, best first, and the cross-table, as the event's
    /// [`Standings`] has them (the runner's: counted in one place).
    fn rank(&mut self, standings: &Standings) {
        self.view.standings = standing_rows(standings);
        let n = standings.names().len();
        self.view.cross_table = (0..n)
            .map(|i| (0..n).map(|j| standings.cross_cell(i, j)).collect())
            .collect();
    }

    fn record(&mut self, record: &GameRecord, standings: &Standings, pgn: Stored) {
        let done = Done {
            number: record.number + 1,
            white: self.word(&record.white),
            black: self.word(&record.black),
            outcome: record.outcome,
            termination: record.termination,
            reason: self.word(&record.reason),
            plies: record.moves.len(),
            pgn,
        };
        self.view.live.retain(|g| g.number != done.number);
        self.done.push(done);
        let index = self.done.len();
        if self.by_number.len() <= record.number {
            self.by_number.resize(record.number + 1, 0);
        }
        self.by_number[record.number] = index;
        self.rank(standings);
        self.view.finished_total = self.done.len();
        let from = self.done.len().saturating_sub(FINISHED_WINDOW);
        self.view.finished = self.done[from..].iter().map(Done::to_view).collect();
        self.cut_schedule();
    }
}

/// The server's side of the page: what happens in the event goes in here.
/// Cheap to clone (every clone updates the same view).
#[derive(Clone)]
pub struct Spectators {
    tx: Arc<watch::Sender<State>>,
}

impl Spectators {
    /// An empty view of the event `cfg` describes (its schedule pending).
    /// Nothing is kept per game of the schedule: a million rounds cost
    /// what one does.
    pub fn new(cfg: &EventConfig, schedule: Schedule) -> Spectators {
        Spectators {
            tx: Arc::new(watch::channel(State::new(cfg, schedule)).0),
        }
    }

    /// A reader of the view.
    pub fn feed(&self) -> Feed {
        Feed {
            rx: self.tx.subscribe(),
            framed: Framed::default(),
        }
    }

    /// Applies `f`; `states` when the games' states change (the schedule's
    /// window is cut again).
    fn change(&self, states: bool, f: impl FnOnce(&mut State)) {
        self.tx.send_modify(|s| {
            f(s);
            if states {
                s.cut_schedule();
            }
            s.view.version += 1;
        });
    }

    /// A game starts (or resumes: `played` holds the moves already made,
    /// which the game loop does not report again).
    pub fn started(&self, setup: &GameSetup, white: &str, black: &str, played: &[MoveRecord]) {
        let game = LiveGame::new(setup, white, black, played);
        self.change(true, move |s| {
            let live = &mut s.view.live;
            live.retain(|g| g.number != game.number);
            live.push(game);
            live.sort_by_key(|g| g.number);
        });
    }

    /// A move of game `number` (0-based, as the schedule counts) was made.
    pub fn moved(&self, number: usize, m: &MoveRecord) {
        self.change(false, |s| {
            if let Some(g) = s.view.live.iter_mut().find(|g| g.number == number + 1) {
                g.play(m);
            }
        });
    }

    /// Game `number` (0-based) left play unrecorded (adjourned, or its
    /// players are gone): it is pending again.
    pub fn left_play(&self, number: usize) {
        self.change(true, |s| s.view.live.retain(|g| g.number != number + 1));
    }

    /// A game was recorded: it leaves play; `standings` are the event's
    /// after it. The referee has just appended it to the event's PGN file:
    /// the page finds it there and keeps only where it is (its offset and
    /// length), or the text if it is not there.
    pub fn finished(&self, record: &GameRecord, standings: &Standings) {
        let file = self.tx.borrow().pgn_file.clone();
        let stored = match record.pgn_text() {
            Ok(text) => pgn::locate(&file, &text).unwrap_or_else(|| Stored::Text(Arc::from(text))),
            Err(_) => Stored::Text(Arc::from("")),
        };
        self.change(true, move |s| s.record(record, standings, stored));
    }

    /// The event is over: no game runs any more.
    pub fn over(&self) {
        self.change(true, |s| {
            s.view.live.clear();
            s.view.over = true;
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
    game.clocks.charge(side, m);
    if !m.book {
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
    rx: watch::Receiver<State>,
    /// The view of the latest version as one Server-Sent Event, rendered
    /// once for every subscriber of `/api/stream`.
    framed: Framed,
}

impl Feed {
    /// The latest view.
    pub fn snapshot(&self) -> EventView {
        self.rx.borrow().view.clone()
    }

    /// The state, read-locked: hold it briefly.
    pub(super) fn state(&self) -> watch::Ref<'_, State> {
        self.rx.borrow()
    }

    /// A receiver of changes, for a stream.
    pub(super) fn receiver(&self) -> watch::Receiver<State> {
        self.rx.clone()
    }

    /// `state`'s view as one Server-Sent Event, rendered at most once per
    /// version for every subscriber (the bytes are shared, not copied).
    pub(super) fn framed_view(&self, state: &State) -> Bytes {
        self.framed.get(state.view.version, || state.view.to_json())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::Score;
    use rookery_game::clock::TimeControl;

    fn cfg_with(rounds: usize, games: usize) -> EventConfig {
        let text = format!(
            "[event]\nname = \"Web\"\nrounds = {rounds}\ngames = {games}\ntime_control = \"60+1\"\n\
             pgn = \"g.pgn\"\nlog_dir = \"logs\"\n\
             [[player]]\nname = \"A\"\ntoken = \"a\"\n[[player]]\nname = \"B\"\ntoken = \"b\"\n"
        );
        EventConfig::from_toml(&text, std::path::Path::new("/nonexistent-rookery-dir")).unwrap()
    }

    fn cfg() -> EventConfig {
        cfg_with(1, 2)
    }

    fn setup(number: usize) -> GameSetup {
        let tc: TimeControl = "60+1".parse().unwrap();
        GameSetup {
            event: "Web".into(),
            site: "here".into(),
            round: "1".into(),
            stall_timeout: Duration::from_secs(5),
            ..GameSetup::new(number, [tc; 2])
        }
    }

    /// The page of an event and its standings, counted as the runner
    /// counts them.
    struct Event {
        s: Spectators,
        schedule: Schedule,
        standings: Standings,
    }

    fn event(cfg: &EventConfig) -> Event {
        let schedule =
            Schedule::new(cfg.players.len(), cfg.pairing, cfg.rounds, cfg.games).unwrap();
        let names = cfg.players.iter().map(|p| p.name.clone()).collect();
        Event {
            s: Spectators::new(cfg, schedule),
            schedule,
            standings: Standings::new(names),
        }
    }

    fn mv(uci: &str, san: &str, clock_ms: u64, cp: i32) -> MoveRecord {
        MoveRecord {
            time_ms: 500,
            clock_ms: Some(clock_ms),
            score: Some(Score::Cp(cp)),
            depth: Some(7),
            ..MoveRecord::new(uci, san)
        }
    }

    fn text_of(s: Option<Stored>) -> Option<String> {
        match s? {
            Stored::Text(t) => Some(t.to_string()),
            Stored::Disk { .. } => panic!("no PGN file in these tests"),
        }
    }

    /// Plays game `n` (0-based) to `outcome` in one move.
    fn record(e: &mut Event, n: usize, w: &str, b: &str, outcome: GameOutcome) {
        let s = &e.s;
        s.started(&setup(n), w, b, &[]);
        s.moved(n, &mv("e2e4", "e4", 60_000, 0));
        let live = s.feed().snapshot().live;
        let g = live.iter().find(|g| g.number == n + 1).unwrap();
        let mut r = live_record(g);
        r.outcome = outcome;
        r.termination = Termination::Normal;
        r.reason = "test".into();
        e.standings.add(&e.schedule.get(n).unwrap(), &r);
        s.finished(&r, &e.standings);
    }

    #[test]
    fn moves_update_board_clocks_scores_and_pgn() {
        let s = event(&cfg()).s;
        let feed = s.feed();
        s.started(&setup(0), "A", "B", &[]);
        let v = feed.snapshot();
        assert_eq!(v.live.len(), 1);
        assert_eq!(v.live[0].clocks.clock_ms, [Some(60_000), Some(60_000)]);
        assert_eq!(v.schedule[0].state, GameState::Playing);
        let before = v.live[0].board_svg.clone();
        s.moved(0, &mv("e2e4", "e4", 60_500, 25));
        let v = feed.snapshot();
        let g = &v.live[0];
        assert_eq!(g.turn, "black");
        assert_eq!(g.clocks.clock_ms, [Some(60_500), Some(60_000)]);
        assert_eq!(g.clocks.used_ms, [500, 0]);
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
        let pgn = text_of(feed.state().game_pgn(1)).unwrap();
        assert!(pgn.contains("1. e4"), "{pgn}");
        assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
        assert!(feed.state().game_pgn(2).is_none());
        assert_eq!(feed.state().progress(1), Some((1, false)));
        let json: serde_json::Value = serde_json::from_str(&v.to_json()).unwrap();
        assert_eq!(json["live"][0]["moves"][0]["san"], "e4");
        assert_eq!(json["live"][0]["turn"], "black");
    }

    #[test]
    fn results_make_standings_and_the_cross_table() {
        let mut e = event(&cfg());
        let feed = e.s.feed();
        record(&mut e, 0, "A", "B", GameOutcome::WhiteWins);
        record(&mut e, 1, "B", "A", GameOutcome::Draw);
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
        assert_eq!(v.cross_table[0][1].as_deref(), Some("1½/2"));
        assert_eq!(v.cross_table[1][0].as_deref(), Some("½/2"));
        assert_eq!(v.cross_table[0][0], None);
        assert_eq!(v.finished_total, 2);
        assert_eq!(v.finished[1].result, "1/2-1/2");
        assert_eq!(feed.state().progress(2), Some((1, true)));
        let all = feed.state().recorded(0, 2);
        assert_eq!(all.len(), 2);
        let text = text_of(all.into_iter().nth(1)).unwrap();
        assert!(text.contains("[Result \"1/2-1/2\"]"), "{text}");
        // The whole schedule is recorded: its window is empty, its pages
        // still list every game.
        assert!(v.schedule.is_empty());
        let page = feed.state().schedule_page(1, 10);
        assert_eq!(page.total, 2);
        assert_eq!(page.games[1].result.as_deref(), Some("1/2-1/2"));
        assert_eq!(page.games[1].state, GameState::Finished);
    }

    #[test]
    fn a_game_that_leaves_play_is_pending_again() {
        let s = event(&cfg()).s;
        s.started(&setup(1), "B", "A", &[mv("e2e4", "e4", 59_000, 0)]);
        let v = s.feed().snapshot();
        assert_eq!(v.live[0].moves.len(), 1, "moves made before a resume show");
        s.left_play(1);
        let v = s.feed().snapshot();
        assert!(v.live.is_empty());
        assert_eq!(v.schedule[1].state, GameState::Pending);
    }

    /// Issue 33: with a million rounds the view held the whole schedule
    /// (`/api/event` answered 89 MB). The view carries windows; the rest is
    /// there a page at a time.
    #[test]
    fn a_long_event_is_seen_through_windows() {
        let mut e = event(&cfg_with(1_000_000, 1));
        let feed = e.s.feed();
        let v = feed.snapshot();
        assert_eq!(v.schedule_total, 1_000_000);
        assert_eq!(v.schedule.len(), SCHEDULE_WINDOW);
        assert!(v.to_json().len() < 20_000, "{}", v.to_json().len());
        let page = feed.state().schedule_page(999_999, 50);
        assert_eq!(page.games.len(), 2);
        assert_eq!(page.games[1].number, 1_000_000);
        assert_eq!(page.games[1].round, 1_000_000);
        assert_eq!(page.games[1].white, "B", "colours alternate by round");
        for n in 0..FINISHED_WINDOW + 5 {
            let (w, b) = if n % 2 == 0 { ("A", "B") } else { ("B", "A") };
            record(&mut e, n, w, b, GameOutcome::WhiteWins);
        }
        let v = feed.snapshot();
        assert_eq!(v.finished.len(), FINISHED_WINDOW);
        assert_eq!(v.finished_total, FINISHED_WINDOW + 5);
        assert_eq!(v.finished[0].number, 6, "the last ones ended");
        assert_eq!(v.schedule[0].number, FINISHED_WINDOW + 6);
        let first = feed.state().finished_page(1, 3);
        assert_eq!(
            first.games.iter().map(|g| g.number).collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert_eq!(feed.state().finished_page(1000, 3).games.len(), 0);
        // A cross-table cell is the score.
        assert_eq!(v.cross_table[0][1].as_deref(), Some("28/55"));
        assert_eq!(v.cross_table[1][0].as_deref(), Some("27/55"));
    }
}
