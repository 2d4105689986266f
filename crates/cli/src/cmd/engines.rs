//! Flags shared by the commands that run an engine over positions.

use crate::output::usage;
use clap::builder::RangedU64ValueParser;
use rookery_analysis::select::{
    EngineCommand, EngineSelection, OptionWord, StartError, DEFAULT_HASH_MB,
};
use rookery_analysis::{AnalysisLimits, Analyst, MAX_COUNT, MAX_NODES, MAX_TIME_MS, SOFT_MOVES};
use rookery_engine::MAX_HASH_MB;

/// Which engine, how hard, how many at once.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// `builtin` (the rookery engine, in process) or the path of a UCI engine.
    #[arg(long, default_value = rookery_analysis::select::BUILTIN, value_name = "builtin|PATH")]
    pub engine: String,
    /// An argument for the external engine's command line (repeatable).
    #[arg(long = "engine-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub engine_args: Vec<String>,
    /// Working directory of the external engine.
    #[arg(long, value_name = "DIR")]
    pub engine_dir: Option<std::path::PathBuf>,
    /// A UCI option, `NAME=VALUE` (repeatable): checked against the options
    /// an external engine declares; for the built-in engine one of Hash,
    /// Threads, MultiPV, Move Overhead, UCI_LimitStrength, UCI_Elo,
    /// UCI_ShowCurrLine, UCI_ShowRefutations.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Time per position in milliseconds (a hard limit; at most 2^31 - 1,
    /// the most an engine takes).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=MAX_TIME_MS))]
    pub movetime: Option<u64>,
    /// A soft time limit: about MS per position on average, the engine's own
    /// time management deciding (given as a clock; the clock is the hard guard).
    #[arg(long, value_name = "MS", conflicts_with = "movetime",
          value_parser = clap::value_parser!(u64).range(1..=MAX_TIME_MS / u64::from(SOFT_MOVES)))]
    pub soft_movetime: Option<u64>,
    /// Depth per position in plies.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_COUNT)))]
    pub depth: Option<u32>,
    /// Nodes per position.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_NODES))]
    pub nodes: Option<u64>,
    /// Engine instances run in parallel (default: the number of CPUs; at most 256).
    #[arg(long, short = 'j', value_parser = RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub jobs: Option<usize>,
    /// Hash table size in MB for the built-in engine.
    #[arg(long, default_value_t = DEFAULT_HASH_MB,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_HASH_MB as u64))]
    pub hash: usize,
}

impl EngineArgs {
    /// The limits; `default_movetime` applies when no limit was given.
    ///
    /// # Errors
    /// A usage error for a limit that cannot give an analysis (0).
    pub fn limits(&self, default_movetime: u64) -> anyhow::Result<AnalysisLimits> {
        for (flag, v) in [
            ("--movetime", self.movetime),
            ("--soft-movetime", self.soft_movetime),
            ("--depth", self.depth.map(u64::from)),
            ("--nodes", self.nodes),
        ] {
            if v == Some(0) {
                return Err(usage(format!(
                    "{flag} 0 cannot give an analysis: give at least 1"
                )));
            }
        }
        if self.jobs == Some(0) {
            return Err(usage("--jobs must be at least 1"));
        }
        let mut l = AnalysisLimits {
            movetime_ms: self.movetime,
            depth: self.depth,
            nodes: self.nodes,
            soft_ms: self.soft_movetime,
            ..AnalysisLimits::default()
        };
        if l.movetime_ms.is_none() && l.depth.is_none() && l.nodes.is_none() && l.soft_ms.is_none()
        {
            l.movetime_ms = Some(default_movetime);
        }
        Ok(l)
    }

    /// How many engines to start.
    pub fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }

    /// The engine selection the flags describe (the plan's engine part).
    ///
    /// # Errors
    /// A usage error for an engine word, option or process flag that selects nothing.
    pub fn selection(&self) -> anyhow::Result<EngineSelection> {
        let command = self
            .engine
            .parse::<EngineCommand>()
            .and_then(|c| c.with_process(&self.engine_args, self.engine_dir.clone()))
            .map_err(|e| usage(format!("--engine {}: {e}", self.engine)))?;
        let mut sel = EngineSelection::new(command);
        sel.hash_mb = self.hash;
        for o in &self.options {
            let word: OptionWord = o.parse().map_err(|e| usage(format!("--option: {e}")))?;
            sel.options.push(word.into_pair());
        }
        Ok(sel)
    }

    /// Starts the engines (see [`EngineSelection::start_analysts`]).
    ///
    /// # Errors
    /// A usage error for flags the built-in engine does not take or an
    /// option it does not have; an error when an external engine's program
    /// cannot be run at all.
    pub fn start(&self) -> anyhow::Result<Vec<Box<dyn Analyst>>> {
        match self.selection()?.start_analysts(self.jobs()) {
            Ok(v) => Ok(v),
            Err(StartError::Builtin(e)) => Err(usage(e.to_string())),
            // The host's error already names the engine.
            Err(StartError::Start(e)) => Err(e.into()),
        }
    }
}
