//! The `Analyst` seam: one interface over the built-in engine (in process)
//! and any external UCI engine.

use rookery_core::{Fen, Move, Position, UciMove};
use rookery_engine::{Engine, Event, Limits};
use rookery_uci::host::{EngineHost, EngineSpec, HostError, Timeouts};
use rookery_uci::{GoParams, PositionStart, ScoreValue};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// An evaluation, from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move gets mated).
    Mate(i32),
}

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

/// What can go wrong analysing.
#[derive(Debug, thiserror::Error)]
pub enum AnalystError {
    /// The external engine failed (crashed, hung, broke the protocol).
    #[error(transparent)]
    Host(#[from] HostError),
    /// The engine answered a move that is not legal.
    #[error("engine played an illegal move {0}")]
    IllegalMove(String),
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
    ///
    /// # Errors
    /// [`AnalystError::Config`] if the table size is out of range or its
    /// memory cannot be had.
    pub fn new(hash_mb: usize) -> Result<BuiltinAnalyst, AnalystError> {
        let mut engine = Engine::new();
        let mut cfg = engine.config().clone();
        cfg.hash_mb = hash_mb;
        engine.set_config(cfg)?;
        Ok(BuiltinAnalyst { engine })
    }
}

fn engine_score(s: rookery_engine::Score) -> Score {
    match s {
        rookery_engine::Score::Cp(c) => Score::Cp(c),
        rookery_engine::Score::Mate(m) => Score::Mate(m),
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
        let multipv = limits.multipv.unwrap_or(1).max(1) as usize;
        let mut cfg = self.engine.config().clone();
        if cfg.multipv != multipv {
            cfg.multipv = multipv;
            self.engine.set_config(cfg)?;
        }
        self.engine.set_position(pos.clone(), &[]);
        let (tx, rx) = mpsc::channel();
        let t0 = Instant::now();
        self.engine.go(
            Limits {
                depth: limits.depth,
                nodes: limits.nodes,
                mate: limits.mate,
                movetime: limits.movetime_ms,
                wtime: limits.soft_clock_ms(),
                btime: limits.soft_clock_ms(),
                movestogo: limits.soft_ms.map(|_| SOFT_MOVES),
                ..Limits::default()
            },
            move |e| {
                let _ = tx.send(e);
            },
        );
        let mut out = Analysis {
            best: None,
            pv: Vec::new(),
            other_lines: Vec::new(),
            score: None,
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            history: Vec::new(),
        };
        for event in rx {
            match event {
                Event::Report(r) => {
                    let score = engine_score(r.score);
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

/// An external engine driven over UCI.
pub struct UciAnalyst {
    host: EngineHost,
    chess960: bool,
    multipv: u32,
}

impl UciAnalyst {
    /// Starts the engine of `spec`.
    ///
    /// # Errors
    /// [`AnalystError::Host`] if it cannot be started.
    pub fn start(spec: EngineSpec, timeouts: Timeouts) -> Result<UciAnalyst, AnalystError> {
        let host = EngineHost::start(spec, timeouts)?;
        Ok(UciAnalyst {
            host,
            chess960: false,
            multipv: 1,
        })
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

fn uci_score(v: ScoreValue) -> Score {
    match v {
        ScoreValue::Cp(c) => Score::Cp(c),
        ScoreValue::Mate(m) => Score::Mate(m),
    }
}

impl Analyst for UciAnalyst {
    fn name(&self) -> String {
        self.host.name().to_string()
    }

    fn analyse(
        &mut self,
        pos: &Position,
        limits: &AnalysisLimits,
    ) -> Result<Analysis, AnalystError> {
        let chess960 = pos.is_chess960_castling();
        if chess960 != self.chess960
            && self
                .host
                .options()
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case("UCI_Chess960"))
        {
            self.host.set_option(
                "UCI_Chess960",
                Some(if chess960 { "true" } else { "false" }),
            )?;
            self.chess960 = chess960;
        }
        let multipv = limits.multipv.unwrap_or(1).max(1);
        if multipv != self.multipv
            && self
                .host
                .options()
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case("MultiPV"))
        {
            self.host
                .set_option("MultiPV", Some(&multipv.to_string()))?;
            self.multipv = multipv;
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
        let result = self.host.search_until(&start, &[], &go, guard, |info| {
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
                    score: info.score.map(|s| uci_score(s.value)),
                });
            }
        })?;
        let best = match result.best {
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
                    i.score.map(|s| uci_score(s.value)),
                )
            })
            .collect();
        Ok(Analysis {
            best,
            pv,
            other_lines,
            score: main.and_then(|i| i.score).map(|s| uci_score(s.value)),
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
        Ok(self.host.new_game()?)
    }

    fn recover(&mut self) -> Result<(), AnalystError> {
        self.host.restart()?;
        self.chess960 = false;
        self.multipv = 1;
        Ok(())
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
