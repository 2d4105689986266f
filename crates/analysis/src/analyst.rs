//! The `Analyst` seam: one interface over the built-in engine (in process)
//! and any external UCI engine.

use rookery_core::{Fen, Move, Position, UciMove};
use rookery_engine::{Engine, Event, Limits};
use rookery_uci::host::{EngineHost, EngineSpec, HostError, Timeouts};
use rookery_uci::{GoParams, PositionStart};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// An evaluation, from the side to move's point of view (the one
/// [`rookery_core::Score`], re-exported for the analysts' callers).
pub use rookery_core::Score;

/// How much effort one position gets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnalysisLimits {
    /// Time per position in milliseconds (a hard limit).
    pub movetime_ms: Option<u64>,
    /// Depth in plies.
    pub depth: Option<u32>,
    /// Nodes.
    pub nodes: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Principal variations to report (1 if unset).
    pub multipv: Option<u32>,
    /// A soft limit (§7.2): about this many milliseconds per position on
    /// average, the engine deciding how much each position deserves. Given
    /// to the engine as a clock of `SOFT_MOVES` times this with `SOFT_MOVES`
    /// moves to go; the whole clock is the hard guard.
    pub soft_ms: Option<u64>,
}

/// Moves to go on the clock that expresses a soft limit.
pub const SOFT_MOVES: u32 = 20;

/// The longest time any engine is given for one position, in milliseconds:
/// 2^31 - 1 (24.8 days), the largest value a 32-bit `int` holds, which is
/// what many engines read `go movetime` and the clocks into.
pub const MAX_TIME_MS: u64 = i32::MAX as u64;
/// The largest depth, mate distance or MultiPV sent to an engine (engines
/// read them into a 32-bit `int`).
pub const MAX_COUNT: u32 = i32::MAX as u32;
/// The largest node limit sent to an engine (a signed 64-bit value).
pub const MAX_NODES: u64 = i64::MAX as u64;

/// A limit no engine can honour.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} {value} is more than any engine takes (at most {max})")]
pub struct LimitError {
    /// Which limit.
    pub what: &'static str,
    /// The value asked for.
    pub value: u64,
    /// The largest value allowed.
    pub max: u64,
}

impl AnalysisLimits {
    /// Checks that every limit is one an engine can honour: times at most
    /// [`MAX_TIME_MS`] (a soft limit's whole clock too), counts at most
    /// [`MAX_COUNT`], nodes at most [`MAX_NODES`].
    ///
    /// # Errors
    /// [`LimitError`] naming the first limit out of range.
    pub fn check(&self) -> Result<(), LimitError> {
        let count = |v: Option<u32>| v.map(u64::from);
        for (what, value, max) in [
            ("movetime", self.movetime_ms, MAX_TIME_MS),
            (
                "soft movetime",
                self.soft_ms,
                MAX_TIME_MS / u64::from(SOFT_MOVES),
            ),
            ("depth", count(self.depth), u64::from(MAX_COUNT)),
            ("mate", count(self.mate), u64::from(MAX_COUNT)),
            ("multipv", count(self.multipv), u64::from(MAX_COUNT)),
            ("nodes", self.nodes, MAX_NODES),
        ] {
            if let Some(value) = value.filter(|&v| v > max) {
                return Err(LimitError { what, value, max });
            }
        }
        Ok(())
    }

    /// The clock that expresses the soft limit (see [`AnalysisLimits::soft_ms`]).
    fn soft_clock_ms(&self) -> Option<i64> {
        self.soft_ms.map(|ms| {
            let clock = ms.saturating_mul(u64::from(SOFT_MOVES));
            i64::try_from(clock).unwrap_or(i64::MAX)
        })
    }

    /// The limits in words, e.g. `movetime 100 ms`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(ms) = self.movetime_ms {
            parts.push(format!("movetime {ms} ms"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes {n}"));
        }
        if let Some(m) = self.mate {
            parts.push(format!("mate {m}"));
        }
        if let Some(ms) = self.soft_ms {
            parts.push(format!("soft {ms} ms"));
        }
        if parts.is_empty() {
            "unlimited".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// One report of the search in progress: what the engine thought, when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Milliseconds since the start.
    pub time_ms: u64,
    /// Nodes so far.
    pub nodes: u64,
    /// Depth reached.
    pub depth: u32,
    /// The engine's best move at that moment.
    pub best: Move,
    /// Its score.
    pub score: Option<Score>,
}

/// The result of analysing one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The move the engine chose (`None`: no legal move).
    pub best: Option<Move>,
    /// The principal variation, starting with `best`.
    pub pv: Vec<Move>,
    /// Further principal variations (multipv 2, 3, ...), with their scores.
    pub other_lines: Vec<(Vec<Move>, Option<Score>)>,
    /// The last score.
    pub score: Option<Score>,
    /// Depth reached.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time used.
    pub elapsed: Duration,
    /// Every main-line report in order (for time to solution).
    pub history: Vec<Progress>,
}

impl Analysis {
    /// An analysis of one line with its score, and nothing else known yet:
    /// the best move is the line's first (`None` for an empty line), no
    /// other lines, depth, nodes, time or history.
    pub fn line(pv: Vec<Move>, score: Option<Score>) -> Analysis {
        Analysis {
            best: pv.first().copied(),
            pv,
            other_lines: Vec::new(),
            score,
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            history: Vec::new(),
        }
    }
}

/// What can go wrong analysing.
#[derive(Debug, thiserror::Error)]
pub enum AnalystError {
    /// The external engine failed (crashed, hung, broke the protocol).
    #[error(transparent)]
    Host(#[from] HostError),
    /// The engine answered a move that is not legal.
    #[error("engine played an illegal move {0}")]
    IllegalMove(String),
    /// The engine answered `bestmove 0000` (no move) in a position with legal moves.
    #[error("engine answered bestmove 0000 (no move) though the position has legal moves")]
    NoMove,
    /// The search ended before it reported a score: nothing to write.
    #[error(
        "the search ended before it reported a score (the limits are too small for an analysis)"
    )]
    NoScore,
    /// An option the built-in engine does not take, or a bad value.
    #[error("built-in engine: {0}")]
    Option(String),
    /// The engine could not be started (or restarted) this many times in a
    /// row; it is not tried again.
    #[error("the engine failed to start {failures} times in a row, last: {last}; not tried again, the remaining records are copied unanalysed")]
    GaveUp {
        /// Consecutive failures.
        failures: u32,
        /// The last failure.
        last: String,
    },
    /// The built-in engine refused a setting (a size out of range, or no memory).
    #[error(transparent)]
    Config(#[from] rookery_engine::ConfigError),
    /// A limit no engine can honour (see [`AnalysisLimits::check`]).
    #[error(transparent)]
    Limit(#[from] LimitError),
}

/// Anything that can analyse a position.
pub trait Analyst: Send {
    /// The engine's name.
    fn name(&self) -> String;
    /// Analyses `pos` within `limits`.
    ///
    /// # Errors
    /// [`AnalystError`] if the engine fails.
    fn analyse(
        &mut self,
        pos: &Position,
        limits: &AnalysisLimits,
    ) -> Result<Analysis, AnalystError>;
    /// Forgets what it learned (hash tables) before an unrelated position.
    ///
    /// # Errors
    /// [`AnalystError`] if the engine fails.
    fn new_game(&mut self) -> Result<(), AnalystError>;
    /// Recovers after a failure (restarts an external engine).
    ///
    /// # Errors
    /// [`AnalystError`] if the engine cannot be brought back.
    fn recover(&mut self) -> Result<(), AnalystError> {
        Ok(())
    }
}

/// The built-in engine, in process.
pub struct BuiltinAnalyst {
    engine: Engine,
}

impl BuiltinAnalyst {
    /// The built-in engine with a hash table of `hash_mb` MB and one thread.
    /// It runs in this process: no time is lost passing moves, so Move
    /// Overhead is 0 and a `movetime` is searched in full.
    ///
    /// # Errors
    /// [`AnalystError::Config`] if the table size is out of range or its
    /// memory cannot be had.
    pub fn new(hash_mb: usize) -> Result<BuiltinAnalyst, AnalystError> {
        let mut engine = Engine::new();
        let mut cfg = engine.config().clone();
        cfg.hash_mb = hash_mb;
        cfg.move_overhead = 0;
        engine.set_config(cfg)?;
        Ok(BuiltinAnalyst { engine })
    }

    /// [`BuiltinAnalyst::new`], then UCI options by name (`Hash`, `Threads`,
    /// `MultiPV`, `Move Overhead`, `UCI_LimitStrength`, `UCI_Elo`, ...), set
    /// as the engine's own UCI loop sets them.
    ///
    /// # Errors
    /// [`AnalystError::Option`] for an option the engine does not have (or
    /// one that means nothing for analysis) or a value it does not take.
    pub fn with_options(
        hash_mb: usize,
        options: &[(String, Option<String>)],
    ) -> Result<BuiltinAnalyst, AnalystError> {
        let mut a = BuiltinAnalyst::new(hash_mb)?;
        let mut cfg = a.engine.config().clone();
        for (name, value) in options {
            rookery_engine::protocol::set_config_option(&mut cfg, name, value.as_deref())
                .map_err(|e| AnalystError::Option(e.to_string()))?;
        }
        a.engine.set_config(cfg)?;
        Ok(a)
    }

    /// The engine's settings.
    pub fn config(&self) -> &rookery_engine::Config {
        self.engine.config()
    }
}

impl Analyst for BuiltinAnalyst {
    fn name(&self) -> String {
        "rookery".to_string()
    }

    fn analyse(
        &mut self,
        pos: &Position,
        limits: &AnalysisLimits,
    ) -> Result<Analysis, AnalystError> {
        limits.check()?;
        // MultiPV from the limits when given there, else as configured.
        if let Some(multipv) = limits.multipv {
            let mut cfg = self.engine.config().clone();
            let multipv = multipv.max(1) as usize;
            if cfg.multipv != multipv {
                cfg.multipv = multipv;
                self.engine.set_config(cfg)?;
            }
        }
        self.engine.set_position(pos.clone(), &[]);
        let (tx, rx) = mpsc::channel();
        let t0 = Instant::now();
        self.engine.go(
            Limits {
                depth: limits.depth,
                nodes: limits.nodes,
                mate: limits.mate,
                movetime: limits
                    .movetime_ms
                    .map(|ms| i64::try_from(ms).unwrap_or(i64::MAX)),
                wtime: limits.soft_clock_ms(),
                btime: limits.soft_clock_ms(),
                movestogo: limits.soft_ms.map(|_| SOFT_MOVES),
                ..Limits::default()
            },
            move |e| {
                let _ = tx.send(e);
            },
        );
        let mut out = Analysis::line(Vec::new(), None);
        for event in rx {
            match event {
                Event::Report(r) => {
                    let score = r.score;
                    if r.multipv <= 1 {
                        if let Some(&first) = r.pv.first() {
                            out.history.push(Progress {
                                time_ms: r.time_ms,
                                nodes: r.nodes,
                                depth: r.depth,
                                best: first,
                                score: Some(score),
                            });
                        }
                        out.pv = r.pv;
                        out.score = Some(score);
                        out.depth = out.depth.max(r.depth);
                    } else {
                        let k = r.multipv as usize - 2;
                        if out.other_lines.len() <= k {
                            out.other_lines.resize(k + 1, (Vec::new(), None));
                        }
                        out.other_lines[k] = (r.pv, Some(score));
                    }
                    out.nodes = out.nodes.max(r.nodes);
                }
                Event::BestMove { best, .. } => {
                    out.best = best;
                    break;
                }
                _ => {}
            }
        }
        self.engine.wait();
        out.elapsed = t0.elapsed();
        // Reports can lag behind the search: count every node searched.
        out.nodes = out.nodes.max(self.engine.last_nodes());
        if out.best.is_none() && pos.has_legal_move() {
            return Err(AnalystError::NoMove);
        }
        if let Some(b) = out.best {
            if out.pv.first() != Some(&b) {
                out.pv = vec![b];
            }
        }
        Ok(out)
    }

    fn new_game(&mut self) -> Result<(), AnalystError> {
        self.engine.clear_hash();
        Ok(())
    }
}

/// An external engine driven over UCI. An engine that fails to start (or
/// restart) is started again before the next position; after
/// [`MAX_START_FAILURES`] failures in a row it is given up.
pub struct UciAnalyst {
    spec: EngineSpec,
    timeouts: Timeouts,
    host: Option<EngineHost>,
    chess960: bool,
    multipv: u32,
    start_failures: u32,
    last_failure: String,
}

/// Consecutive failures to start an external engine after which it is
/// given up (see [`AnalystError::GaveUp`]).
pub const MAX_START_FAILURES: u32 = 3;

impl UciAnalyst {
    /// Starts the engine of `spec`.
    ///
    /// # Errors
    /// [`AnalystError::Host`] if it cannot be started.
    pub fn start(spec: EngineSpec, timeouts: Timeouts) -> Result<UciAnalyst, AnalystError> {
        let host = EngineHost::start(spec.clone(), timeouts)?;
        Ok(UciAnalyst::with_host(spec, timeouts, Some(host)))
    }

    /// Starts the engine of `spec`, keeping going when it runs but fails its
    /// handshake (it crashes, hangs or breaks the protocol): the failure
    /// counts as the first of [`MAX_START_FAILURES`], and the engine is
    /// started again before the first position.
    ///
    /// # Errors
    /// [`AnalystError::Host`] with [`HostError::Spawn`] if the program
    /// cannot be run at all, or an option error if an option is refused.
    pub fn start_lenient(spec: EngineSpec, timeouts: Timeouts) -> Result<UciAnalyst, AnalystError> {
        match EngineHost::start(spec.clone(), timeouts) {
            Ok(host) => Ok(UciAnalyst::with_host(spec, timeouts, Some(host))),
            // Not worth retrying: the program cannot run, or the options are wrong.
            Err(
                e @ (HostError::Spawn { .. }
                | HostError::UnknownOption(_)
                | HostError::BadOptionValue { .. }),
            ) => Err(e.into()),
            Err(e) => {
                let mut a = UciAnalyst::with_host(spec, timeouts, None);
                a.start_failures = 1;
                a.last_failure = e.to_string();
                Ok(a)
            }
        }
    }

    fn with_host(spec: EngineSpec, timeouts: Timeouts, host: Option<EngineHost>) -> UciAnalyst {
        UciAnalyst {
            spec,
            timeouts,
            host,
            chess960: false,
            multipv: 1,
            start_failures: 0,
            last_failure: String::new(),
        }
    }

    /// The running engine, started first if it is not running.
    fn host(&mut self) -> Result<&mut EngineHost, AnalystError> {
        if self.host.is_none() {
            if self.start_failures >= MAX_START_FAILURES {
                return Err(AnalystError::GaveUp {
                    failures: self.start_failures,
                    last: self.last_failure.clone(),
                });
            }
            match EngineHost::start(self.spec.clone(), self.timeouts) {
                Ok(h) => {
                    self.host = Some(h);
                    self.start_failures = 0;
                    self.chess960 = false;
                    self.multipv = 1;
                }
                Err(e) => {
                    self.start_failures += 1;
                    self.last_failure = e.to_string();
                    return Err(e.into());
                }
            }
        }
        // Just ensured above.
        self.host
            .as_mut()
            .ok_or_else(|| AnalystError::Option("engine not running".into()))
    }

    /// Resolves a UCI line from `pos`, stopping at the first move that is not legal.
    fn line(pos: &Position, moves: &[UciMove]) -> Vec<Move> {
        let mut p = pos.clone();
        let mut out = Vec::with_capacity(moves.len());
        for um in moves {
            match um.to_move(&p) {
                Ok(m) => {
                    p.play_unchecked(m);
                    out.push(m);
                }
                Err(_) => break,
            }
        }
        out
    }
}

impl Analyst for UciAnalyst {
    fn name(&self) -> String {
        match &self.host {
            Some(h) => h.name().to_string(),
            None => self.spec.path.file_name().map_or_else(
                || self.spec.path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
        }
    }

    fn analyse(
        &mut self,
        pos: &Position,
        limits: &AnalysisLimits,
    ) -> Result<Analysis, AnalystError> {
        let chess960 = pos.is_chess960_castling();
        // Start the engine first if needed (that resets what it was told).
        self.host()?;
        let (mut cur960, mut cur_multipv) = (self.chess960, self.multipv);
        let host = self.host()?;
        if chess960 != cur960
            && host
                .options()
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case("UCI_Chess960"))
        {
            host.set_option(
                "UCI_Chess960",
                Some(if chess960 { "true" } else { "false" }),
            )?;
            cur960 = chess960;
        }
        let multipv = limits.multipv.unwrap_or(1).max(1);
        if multipv != cur_multipv
            && host
                .options()
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case("MultiPV"))
        {
            host.set_option("MultiPV", Some(&multipv.to_string()))?;
            cur_multipv = multipv;
        }
        let clock = limits.soft_clock_ms();
        let go = GoParams {
            depth: limits.depth,
            nodes: limits.nodes,
            mate: limits.mate,
            // Checked above: at most MAX_TIME_MS, so no wrap to negative.
            movetime: limits
                .movetime_ms
                .map(|m| i64::try_from(m).unwrap_or(i64::MAX)),
            wtime: clock,
            btime: clock,
            movestogo: clock.map(|_| SOFT_MOVES),
            ..GoParams::default()
        };
        // Hard guard: the movetime, or the whole clock of a soft limit.
        let guard = limits
            .movetime_ms
            .or(clock.map(|c| c.unsigned_abs()))
            .map(std::time::Duration::from_millis);
        let start = PositionStart::Fen(Fen::from_position(pos).to_string());
        let mut history = Vec::new();
        let result = host.search_until(&start, &[], &go, guard, |info| {
            if info.multipv.unwrap_or(1) > 1 {
                return;
            }
            let Some(first) = info.pv.as_ref().and_then(|pv| pv.first()) else {
                return;
            };
            if let Ok(m) = first.to_move(pos) {
                history.push(Progress {
                    time_ms: info.time.unwrap_or(0),
                    nodes: info.nodes.unwrap_or(0),
                    depth: info.depth.unwrap_or(0),
                    best: m,
                    score: info.score.map(|s| s.value),
                });
            }
        })?;
        self.chess960 = cur960;
        self.multipv = cur_multipv;
        let best = match result.best {
            UciMove::Null if pos.has_legal_move() => return Err(AnalystError::NoMove),
            UciMove::Null => None,
            um => Some(
                um.to_move(pos)
                    .map_err(|_| AnalystError::IllegalMove(um.to_string()))?,
            ),
        };
        let main = result.lines.first();
        let mut pv = main
            .and_then(|i| i.pv.as_deref())
            .map_or_else(Vec::new, |l| UciAnalyst::line(pos, l));
        if let Some(b) = best {
            if pv.first() != Some(&b) {
                pv = vec![b];
            }
        }
        let other_lines = result
            .lines
            .iter()
            .skip(1)
            .map(|i| {
                (
                    i.pv.as_deref()
                        .map_or_else(Vec::new, |l| UciAnalyst::line(pos, l)),
                    i.score.map(|s| s.value),
                )
            })
            .collect();
        Ok(Analysis {
            best,
            pv,
            other_lines,
            score: main.and_then(|i| i.score).map(|s| s.value),
            depth: main.and_then(|i| i.depth).unwrap_or(0),
            nodes: result
                .lines
                .iter()
                .filter_map(|i| i.nodes)
                .max()
                .unwrap_or(0),
            elapsed: result.elapsed,
            history,
        })
    }

    fn new_game(&mut self) -> Result<(), AnalystError> {
        Ok(self.host()?.new_game()?)
    }

    fn recover(&mut self) -> Result<(), AnalystError> {
        // An engine that is not running is started before the next position.
        let Some(host) = self.host.as_mut() else {
            return Ok(());
        };
        self.chess960 = false;
        self.multipv = 1;
        if let Err(e) = host.restart() {
            self.host = None;
            self.start_failures += 1;
            self.last_failure = e.to_string();
            return Err(e.into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_engine_in_process_loses_no_time_per_move() {
        // Move Overhead is for clocks over a pipe: a movetime given in process
        // is searched in full (the engine's own default would keep 30 ms).
        assert!(Engine::new().config().move_overhead > 0);
        assert_eq!(BuiltinAnalyst::new(16).unwrap().config().move_overhead, 0);
        // Unless asked for, through the engine's own option handling.
        let a = BuiltinAnalyst::with_options(
            16,
            &[
                ("Move Overhead".into(), Some("40".into())),
                ("UCI_Elo".into(), Some("1600".into())),
            ],
        )
        .unwrap();
        assert_eq!(a.config().move_overhead, 40);
        assert_eq!(a.config().elo, 1600);
        assert!(matches!(
            BuiltinAnalyst::with_options(16, &[("Bogus".into(), None)]),
            Err(AnalystError::Option(_))
        ));
    }

    #[test]
    fn reported_nodes_are_never_fewer_than_searched() {
        let mut a = BuiltinAnalyst::new(16).unwrap();
        let pos = Position::startpos();
        let limits = AnalysisLimits {
            depth: Some(5),
            ..AnalysisLimits::default()
        };
        let r = a.analyse(&pos, &limits).unwrap();
        assert_eq!(r.nodes, a.engine.last_nodes());
        assert!(r.nodes >= r.history.last().map_or(0, |p| p.nodes));
    }
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn limits_no_engine_can_honour_are_refused_before_searching() {
        let mut engine = BuiltinAnalyst::new(1).unwrap();
        let pos = Position::startpos();
        for limits in [
            AnalysisLimits {
                movetime_ms: Some(u64::MAX),
                ..AnalysisLimits::default()
            },
            AnalysisLimits {
                soft_ms: Some(MAX_TIME_MS / u64::from(SOFT_MOVES) + 1),
                ..AnalysisLimits::default()
            },
            AnalysisLimits {
                depth: Some(u32::MAX),
                ..AnalysisLimits::default()
            },
            AnalysisLimits {
                nodes: Some(u64::MAX),
                ..AnalysisLimits::default()
            },
        ] {
            let r = engine.analyse(&pos, &limits);
            assert!(
                matches!(r, Err(AnalystError::Limit(_))),
                "{limits:?}: {r:?}"
            );
        }
        let fine = AnalysisLimits {
            depth: Some(1),
            soft_ms: Some(MAX_TIME_MS / u64::from(SOFT_MOVES)),
            ..AnalysisLimits::default()
        };
        assert!(fine.check().is_ok());
        assert!(matches!(
            BuiltinAnalyst::new(0),
            Err(AnalystError::Config(_))
        ));
    }
}
