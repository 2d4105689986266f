//! The rookery chess engine: evaluation, search, transposition table, time
//! management, and [`protocol`], the UCI loop over the [`Engine`] facade.
//!
//! ```
//! use rookery_engine::{Engine, Event, Limits};
//! use rookery_core::Position;
//!
//! let mut engine = Engine::new();
//! engine.set_position(Position::startpos(), &[]);
//! let outcome = engine.search_sync(Limits { depth: Some(4), ..Limits::default() });
//! assert!(outcome.best.is_some());
//! assert!(outcome.nodes > 0);
//! ```

#![deny(missing_docs)]

pub mod bench;
pub mod eval;
pub mod ordering;
pub mod params;
pub mod protocol;
pub mod search;
pub mod strength;
pub mod time;
pub mod tt;
mod weights;

use eval::{Classical, Evaluator};
use params::{MATE_BOUND, MAX_DEPTH};
use rookery_core::{Move, Position};
use rookery_uci::GoParams;
use search::{Control, Plan, Thread};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

/// What lives as long as the engine and is shared by all search threads.
pub struct Shared {
    /// The transposition table.
    pub tt: tt::Table,
    /// The evaluation.
    pub evaluator: Box<dyn Evaluator>,
    /// Each search thread's move-ordering statistics between searches of a
    /// game (cleared with the table).
    pub histories: std::sync::Mutex<Vec<search::Histories>>,
}

impl Shared {
    /// The statistics thread `id` starts a search with (aged), fresh ones if
    /// it has none, or `None` if there is no memory for them.
    fn take_histories(&self, id: usize) -> Option<search::Histories> {
        let kept = self
            .histories
            .lock()
            .ok()
            .and_then(|mut v| {
                v.get_mut(id)
                    .map(|h| std::mem::replace(h, search::Histories::unallocated()))
            })
            .filter(search::Histories::is_allocated);
        let mut h = match kept {
            Some(h) => h,
            None => search::Histories::try_new()?,
        };
        h.age();
        Some(h)
    }

    /// Keeps thread `id`'s statistics for the next search.
    fn put_histories(&self, id: usize, h: search::Histories) {
        if let Ok(mut v) = self.histories.lock() {
            if v.len() <= id {
                v.resize_with(id + 1, search::Histories::unallocated);
            }
            v[id] = h;
        }
    }

    /// Makes sure statistics for `threads` threads exist, allocating
    /// fallibly; `false` if the memory cannot be had (what was allocated
    /// before stays).
    fn reserve_histories(&self, threads: usize) -> bool {
        let Ok(mut v) = self.histories.lock() else {
            return false;
        };
        let have = v.len();
        if have < threads && v.try_reserve_exact(threads - have).is_err() {
            return false;
        }
        while v.len() < threads {
            v.push(search::Histories::unallocated());
        }
        for h in v.iter_mut().take(threads) {
            if !h.is_allocated() {
                match search::Histories::try_new() {
                    Some(fresh) => *h = fresh,
                    None => return false,
                }
            }
        }
        true
    }
}

/// The largest `Hash` in MB (the UCI option's maximum).
pub const MAX_HASH_MB: usize = 65_536;
/// The most search threads (the `Threads` option's maximum).
pub const MAX_THREADS: usize = 256;
/// The most principal variations reported (the `MultiPV` option's maximum).
pub const MAX_MULTIPV: usize = 256;
/// The deepest mate `go mate N` looks for, in moves (deeper asks are
/// searched as this): a mate in N takes 2N-1 plies, and the search goes no
/// deeper than [`params::MAX_DEPTH`] plies.
pub const MAX_MATE_MOVES: u32 = (MAX_DEPTH as u32 - 1) / 2;

/// Why [`Engine::set_config`] refused a setting (the previous one stays).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A value outside the option's range.
    #[error("{option} must be from {min} to {max}, not {value}")]
    OutOfRange {
        /// The option.
        option: &'static str,
        /// The value asked for.
        value: usize,
        /// The smallest value allowed.
        min: usize,
        /// The largest value allowed.
        max: usize,
    },
    /// The hash table cannot be allocated.
    #[error(transparent)]
    Table(#[from] tt::TableError),
    /// The per-thread search statistics cannot be allocated.
    #[error("cannot allocate search statistics for {threads} threads: out of memory")]
    Threads {
        /// The number of threads asked for.
        threads: usize,
    },
}

impl Config {
    /// Checks the ranges of the sizes.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] naming the first size out of range.
    pub fn check(&self) -> Result<(), ConfigError> {
        for (option, value, max) in [
            ("Hash", self.hash_mb, MAX_HASH_MB),
            ("Threads", self.threads, MAX_THREADS),
            ("MultiPV", self.multipv, MAX_MULTIPV),
        ] {
            if !(1..=max).contains(&value) {
                return Err(ConfigError::OutOfRange {
                    option,
                    value,
                    min: 1,
                    max,
                });
            }
        }
        Ok(())
    }
}

/// Limits of one search: the parameters of `go`, with `searchmoves`
/// resolved to moves of the position searched ([`GoParams::resolve`]). One
/// type for the protocol and the facade; `ponder` means time limits apply
/// only after [`Engine::ponderhit`]; `perft` is answered by
/// [`protocol`] and ignored by a search.
pub type Limits = GoParams<Move>;

/// A score as shown to the user: centipawns or moves to mate (the one
/// [`rookery_core::Score`], re-exported here for the engine's callers).
pub use rookery_core::Score;

/// One principal variation after an iteration (or an aspiration re-search).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Iteration depth.
    pub depth: u32,
    /// Selective depth.
    pub seldepth: u32,
    /// 1-based PV number.
    pub multipv: u32,
    /// The score.
    pub score: Score,
    /// Exact, or a bound from an aspiration window.
    pub bound: tt::Bound,
    /// Nodes so far.
    pub nodes: u64,
    /// Milliseconds so far.
    pub time_ms: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Table use in per mille.
    pub hashfull: u32,
    /// The line, starting at the root.
    pub pv: Vec<Move>,
}

/// What a running search tells its caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A principal variation.
    Report(Report),
    /// The root move being searched now.
    CurrMove {
        /// The move.
        mv: Move,
        /// Its 1-based number.
        number: u32,
        /// The iteration depth.
        depth: u32,
    },
    /// A root move and the reply that refutes it (or nothing).
    Refutation {
        /// The root move, then the refuting line.
        line: Vec<Move>,
    },
    /// The line currently searched.
    CurrLine {
        /// The thread (1-based), when several run.
        cpu: Option<u32>,
        /// The moves from the root.
        line: Vec<Move>,
    },
    /// A message for the user.
    Message(String),
    /// The search has ended: the move to play (none if there is no legal
    /// move) and the expected reply. Always the last event of a search.
    BestMove {
        /// The move.
        best: Option<Move>,
        /// The reply to ponder on.
        ponder: Option<Move>,
    },
}

/// Engine settings (the UCI options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Transposition table size in MB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Principal variations to report.
    pub multipv: usize,
    /// Milliseconds lost per move in communication.
    pub move_overhead: u64,
    /// Report `currline`.
    pub show_currline: bool,
    /// Report `refutation`.
    pub show_refutations: bool,
    /// Play weaker, at about `elo`.
    pub limit_strength: bool,
    /// Target strength when limited.
    pub elo: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            move_overhead: 30,
            show_currline: false,
            show_refutations: false,
            limit_strength: false,
            elo: ELO_MAX,
        }
    }
}

pub use strength::{ELO_MAX, ELO_MIN};

/// The result of a finished search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The move chosen.
    pub best: Option<Move>,
    /// The reply expected.
    pub ponder: Option<Move>,
    /// The score of the last complete report.
    pub score: Option<Score>,
    /// The deepest depth reported.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// The last principal variation.
    pub pv: Vec<Move>,
}

struct Running {
    ctl: Arc<Control>,
    handle: JoinHandle<()>,
    infinite: bool,
}

/// The engine facade: set a position, start a search that reports through a
/// callback, stop it, wait for it.
pub struct Engine {
    shared: Arc<Shared>,
    config: Config,
    root: Position,
    history: Vec<u64>,
    running: Option<Running>,
    table_mb: usize,
    /// Nodes searched by the last search that was waited for.
    last_nodes: u64,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine with default settings at the starting position.
    pub fn new() -> Engine {
        Engine::with_evaluator(Box::new(Classical::default()))
    }

    /// An engine with its own evaluation.
    pub fn with_evaluator(evaluator: Box<dyn Evaluator>) -> Engine {
        let config = Config::default();
        let mb = config.hash_mb;
        Engine {
            shared: Arc::new(Shared {
                tt: tt::Table::new(config.hash_mb),
                evaluator,
                histories: std::sync::Mutex::new(Vec::new()),
            }),
            config,
            root: Position::startpos(),
            history: Vec::new(),
            running: None,
            table_mb: mb,
            last_nodes: 0,
        }
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Changes the settings. The memory a new `hash_mb` or `threads` needs
    /// is allocated here, fallibly: if it cannot be had, or a size is out of
    /// range, nothing changes (the old table stays) and the error says why.
    /// During a search a new table size takes effect at the next search.
    ///
    /// # Errors
    /// [`ConfigError`].
    pub fn set_config(&mut self, config: Config) -> Result<(), ConfigError> {
        config.check()?;
        if config.threads > self.config.threads && !self.shared.reserve_histories(config.threads) {
            return Err(ConfigError::Threads {
                threads: config.threads,
            });
        }
        if config.hash_mb != self.table_mb {
            if let Some(s) = Arc::get_mut(&mut self.shared) {
                s.tt = tt::Table::try_new(config.hash_mb)?;
                self.table_mb = config.hash_mb;
            }
        }
        self.config = config;
        Ok(())
    }

    /// Sets the position to search: `start` followed by `moves`, which must be
    /// legal in turn (the caller checks them).
    pub fn set_position(&mut self, start: Position, moves: &[Move]) {
        let mut pos = start;
        let mut history = Vec::with_capacity(moves.len());
        for &m in moves {
            history.push(pos.hash());
            pos.play_unchecked(m);
        }
        self.root = pos;
        self.history = history;
    }

    /// The position the next search starts from.
    pub fn position(&self) -> &Position {
        &self.root
    }

    /// Empties the transposition table (stopping any search first).
    pub fn clear_hash(&mut self) {
        self.stop();
        self.wait();
        self.shared.tt.clear();
        if let Ok(mut v) = self.shared.histories.lock() {
            v.clear();
        }
    }

    /// Whether a search is running (it may be waiting for `stop`).
    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }

    /// Whether the running search is infinite, unlimited or pondering (it
    /// only ends on `stop`).
    pub fn is_waiting_for_stop(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| r.infinite || r.ctl.pondering.load(Relaxed))
    }

    /// Asks the running search to end; it then reports its best move.
    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.ctl.pondering.store(false, Relaxed);
            r.ctl.stop.store(true, Relaxed);
        }
    }

    /// The expected move was played: the ponder search becomes a normal one,
    /// with the clock starting now.
    pub fn ponderhit(&self) {
        if let Some(r) = &self.running {
            r.ctl.clock_start_ms.store(r.ctl.elapsed_ms(), Relaxed);
            r.ctl.pondering.store(false, Relaxed);
        }
    }

    /// Waits for the running search (if any) to end.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            // A panic in the search thread has already been reported by the
            // runtime; the engine stays usable.
            let _ = r.handle.join();
            self.last_nodes = r.ctl.total_nodes();
        }
    }

    /// Nodes searched by the last search, by all threads, counted when
    /// [`Engine::wait`] saw it end (reports may lag behind this).
    pub fn last_nodes(&self) -> u64 {
        self.last_nodes
    }

    /// Resizes the table if `set_config` asked for it during a search; if
    /// the memory cannot be had, the old table stays and the message says so.
    fn prepare_table(&mut self) -> Option<String> {
        let mb = self.config.hash_mb.max(1);
        if mb == self.table_mb {
            return None;
        }
        // Threads hold no reference while idle, so this always succeeds;
        // if it did not, the old table would simply stay.
        let s = Arc::get_mut(&mut self.shared)?;
        match tt::Table::try_new(mb) {
            Ok(t) => {
                s.tt = t;
                self.table_mb = mb;
                None
            }
            Err(e) => {
                let msg = format!("{e}; keeping the {} MB table", self.table_mb);
                self.config.hash_mb = self.table_mb;
                Some(msg)
            }
        }
    }

    /// Starts a search of the current position and returns at once. Events
    /// arrive through `on_event` from the search thread; the last is always
    /// [`Event::BestMove`]. A search already running is stopped first.
    pub fn go(&mut self, limits: Limits, on_event: impl FnMut(Event) + Send + 'static) {
        self.stop();
        self.wait();
        let table_note = self.prepare_table();
        self.shared.tt.new_search();
        let cfg = self.config.clone();
        let root = self.root.clone();
        let history = self.history.clone();
        let legal = root.legal_moves();
        let mut root_moves: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
            .collect();
        let mut on_event = on_event;
        if let Some(note) = table_note {
            on_event(Event::Message(note));
        }
        if root_moves.is_empty() && !legal.is_empty() {
            on_event(Event::Message(
                "no legal move among searchmoves: searching all moves".into(),
            ));
            root_moves = legal.to_vec();
        }
        let mut plan = Plan {
            depth: limits
                .depth
                .map_or(MAX_DEPTH, |d| d.clamp(1, MAX_DEPTH as u32) as i32),
            nodes: limits.nodes,
            budget: time::budget(&limits, root.turn(), cfg.move_overhead),
            mate: limits
                .mate
                .filter(|&n| n > 0)
                .map(|n| n.min(MAX_MATE_MOVES)),
            multipv: cfg.multipv.max(1),
            show_currline: cfg.show_currline,
            show_refutations: cfg.show_refutations,
        };
        if let Some(n) = plan.mate {
            plan.depth = plan.depth.min((2 * n as i32 + 1).min(MAX_DEPTH));
        }
        let level = cfg.limit_strength.then(|| strength::level_for_elo(cfg.elo));
        if let Some(level) = level {
            let cap = strength::node_cap(level);
            plan.nodes = Some(plan.nodes.map_or(cap, |n| n.min(cap)));
            plan.multipv = plan.multipv.max(4);
        }
        let threads = cfg.threads.clamp(1, MAX_THREADS);
        let ctl = Arc::new(Control::new(threads, limits.ponder));
        let shared = Arc::clone(&self.shared);
        let ctl2 = Arc::clone(&ctl);
        // A `go` with no limit at all runs, like `go infinite`, until `stop`.
        let unbounded = limits.infinite
            || (limits.depth.is_none()
                && limits.nodes.is_none()
                && limits.mate.is_none()
                && limits.movetime.is_none()
                && plan.budget.is_none()
                && level.is_none());
        let infinite = limits.infinite;
        let body = move || {
            run_search(
                &shared,
                &ctl2,
                &plan,
                &root,
                &history,
                &root_moves,
                threads,
                infinite,
                level,
                &mut on_event,
            );
        };
        let handle = std::thread::Builder::new()
            .name("rookery-search".into())
            .stack_size(64 << 20)
            .spawn(body);
        match handle {
            Ok(handle) => {
                self.running = Some(Running {
                    ctl,
                    handle,
                    infinite: unbounded,
                })
            }
            Err(_) => {
                // Could not start a thread: nothing runs, and the caller hears
                // nothing more. Callers get a best move by other means
                // (`search_sync` falls back to the first legal move).
            }
        }
    }

    /// Searches to the limits and returns the outcome (blocking).
    pub fn search_sync(&mut self, limits: Limits) -> Outcome {
        let (tx, rx) = mpsc::channel();
        self.go(limits, move |e| {
            let _ = tx.send(e);
        });
        let mut out = Outcome {
            best: None,
            ponder: None,
            score: None,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        };
        for e in rx {
            match e {
                Event::Report(r) if r.multipv == 1 => {
                    out.score = Some(r.score);
                    out.depth = r.depth;
                    out.nodes = r.nodes;
                    out.pv = r.pv;
                }
                Event::BestMove { best, ponder } => {
                    out.best = best;
                    out.ponder = ponder;
                }
                _ => {}
            }
        }
        self.wait();
        if out.best.is_none() {
            out.best = self.root.legal_moves().first().copied();
        }
        out
    }
}

#[allow(clippy::too_many_arguments)]
fn run_search(
    shared: &Shared,
    ctl: &Control,
    plan: &Plan,
    root: &Position,
    history: &[u64],
    root_moves: &[Move],
    threads: usize,
    infinite: bool,
    level: Option<u32>,
    on_event: &mut (dyn FnMut(Event) + Send),
) {
    let mut best = None;
    let mut ponder = None;
    if root_moves.is_empty() {
        let score = if root.is_check() {
            Score::Mate(0)
        } else {
            Score::Cp(0)
        };
        on_event(Event::Report(Report {
            depth: 0,
            seldepth: 0,
            multipv: 1,
            score,
            bound: tt::Bound::Exact,
            nodes: 0,
            time_ms: 0,
            nps: 0,
            hashfull: 0,
            pv: Vec::new(),
        }));
    } else {
        std::thread::scope(|scope| {
            for id in 1..threads {
                let b = std::thread::Builder::new().stack_size(64 << 20);
                // A helper that fails to start only weakens the search.
                let _ = b.spawn_scoped(scope, move || {
                    // No memory for its statistics: this helper sits out.
                    let Some(h) = shared.take_histories(id) else {
                        return;
                    };
                    let mut t = Thread::new(id, shared, ctl, plan, history, root_moves, None, h);
                    t.iterate(root);
                    t.flush_nodes();
                    shared.put_histories(id, t.into_histories());
                });
            }
            let reporter: &mut (dyn FnMut(Event) + Send) = &mut *on_event;
            // The main thread must search: without memory for kept
            // statistics it takes fresh ones (2.4 MB) the ordinary way.
            let h = shared.take_histories(0).unwrap_or_default();
            let mut main =
                Thread::new(0, shared, ctl, plan, history, root_moves, Some(reporter), h);
            main.iterate(root);
            main.flush_nodes();
            wait_for_release(ctl, infinite);
            ctl.stop.store(true, Relaxed);
            let chosen = match level {
                Some(level) => strength::pick(&main.root_moves, level, ctl.total_nodes()),
                None => 0,
            };
            let rm = &main.root_moves[chosen];
            best = Some(rm.mv);
            ponder = rm.pv.get(1).copied();
            if ponder.is_none() {
                let child = root.after(rm.mv);
                ponder = shared
                    .tt
                    .probe(child.hash())
                    .map(|e| e.mv)
                    .filter(|&m| child.is_legal(m));
            }
            let missing_mate = plan
                .mate
                .filter(|&n| rm.display_mate().is_none_or(|m| m > n as i32));
            shared.put_histories(0, main.into_histories());
            if let Some(n) = missing_mate {
                on_event(Event::Message(format!("no mate in {n} found")));
            }
        });
    }
    if root_moves.is_empty() {
        wait_for_release(ctl, infinite);
    }
    on_event(Event::BestMove { best, ponder });
}

impl search::RootMove {
    fn display_mate(&self) -> Option<i32> {
        let s = if self.score == -params::INFINITE {
            self.prev_score
        } else {
            self.score
        };
        (s >= MATE_BOUND).then(|| (params::MATE - s + 1) / 2)
    }
}

/// An infinite or pondering search may not answer before `stop` (or `ponderhit`).
fn wait_for_release(ctl: &Control, infinite: bool) {
    while !ctl.stop.load(Relaxed) && (infinite || ctl.pondering.load(Relaxed)) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histories_carry_over_until_the_table_is_cleared() {
        let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
        let pos = Position::from_fen(fen).unwrap();
        let limits = Limits {
            depth: Some(7),
            ..Limits::default()
        };
        let run = |e: &mut Engine| {
            e.set_position(pos.clone(), &[]);
            e.search_sync(limits.clone()).nodes
        };
        let mut e = Engine::new();
        let fresh = run(&mut e);
        e.clear_hash();
        assert_eq!(run(&mut e), fresh, "clear_hash must forget the histories");
        // Without clearing, the second search starts from the first one's
        // table and statistics and takes another path.
        let warm = run(&mut e);
        assert_ne!(warm, fresh);
        let histories = e.shared.histories.lock().unwrap();
        assert_eq!(histories.len(), 1);
    }

    #[test]
    fn strength_limit_caps_nodes() {
        let mut e = Engine::new();
        e.set_config(Config {
            limit_strength: true,
            elo: ELO_MIN,
            ..Config::default()
        })
        .unwrap();
        let out = e.search_sync(Limits {
            depth: Some(30),
            ..Limits::default()
        });
        assert!(out.best.is_some());
        // The main thread stops at the cap; allow one check interval over.
        assert!(
            out.nodes
                <= strength::node_cap(strength::level_for_elo(ELO_MIN)) + params::TIME_CHECK_NODES,
            "{}",
            out.nodes
        );
    }

    #[test]
    fn searchmoves_restrict_the_root() {
        let mut e = Engine::new();
        let pos = Position::startpos();
        let only = pos
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.to_uci(&pos, rookery_core::CastlingMode::Standard) == "a2a3")
            .unwrap();
        e.set_position(pos, &[]);
        let out = e.search_sync(Limits {
            depth: Some(5),
            searchmoves: vec![only],
            ..Limits::default()
        });
        assert_eq!(out.best, Some(only));
    }

    #[test]
    fn threads_and_multipv() {
        let mut e = Engine::new();
        e.set_config(Config {
            threads: 2,
            multipv: 3,
            ..Config::default()
        })
        .unwrap();
        let (tx, rx) = mpsc::channel();
        e.go(
            Limits {
                depth: Some(6),
                ..Limits::default()
            },
            move |ev| {
                let _ = tx.send(ev);
            },
        );
        let events: Vec<Event> = rx.iter().collect();
        e.wait();
        let last_depth: Vec<&Report> = events
            .iter()
            .filter_map(|ev| match ev {
                Event::Report(r) if r.depth == 6 => Some(r),
                _ => None,
            })
            .collect();
        let pvs: std::collections::BTreeSet<u32> = last_depth.iter().map(|r| r.multipv).collect();
        assert_eq!(pvs.into_iter().collect::<Vec<_>>(), vec![1, 2, 3]);
        assert!(matches!(
            events.last(),
            Some(Event::BestMove { best: Some(_), .. })
        ));
    }

    #[test]
    fn repetition_is_a_draw() {
        // After Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1, Black can repeat with Ng8.
        let mut e = Engine::new();
        let mut pos = Position::startpos();
        let mut moves = Vec::new();
        for u in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"] {
            let m = u
                .parse::<rookery_core::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            moves.push(m);
            pos.play_unchecked(m);
        }
        e.set_position(Position::startpos(), &moves);
        let out = e.search_sync(Limits {
            depth: Some(1),
            searchmoves: vec!["f6g8"
                .parse::<rookery_core::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap()],
            ..Limits::default()
        });
        assert_eq!(out.score, Some(Score::Cp(0)));
    }
}
