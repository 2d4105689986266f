//! Flags shared by the commands that run an engine over positions.

use anyhow::{bail, Context};
use clap::builder::RangedU64ValueParser;
use rookery_analysis::{
    AnalysisLimits, Analyst, BuiltinAnalyst, UciAnalyst, MAX_COUNT, MAX_NODES, MAX_TIME_MS,
    SOFT_MOVES,
};
use rookery_engine::MAX_HASH_MB;
use rookery_uci::host::{EngineSpec, Timeouts};
use std::time::Duration;

/// Which engine, how hard, how many at once.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// `builtin` (the rookery engine, in process) or the path of a UCI engine.
    #[arg(long, default_value = "builtin", value_name = "builtin|PATH")]
    pub engine: String,
    /// An argument for the external engine's command line (repeatable).
    #[arg(long = "engine-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub engine_args: Vec<String>,
    /// Working directory of the external engine.
    #[arg(long, value_name = "DIR")]
    pub engine_dir: Option<std::path::PathBuf>,
    /// A UCI option for an external engine, `NAME=VALUE` (repeatable; checked
    /// against the options the engine declares).
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
    #[arg(long, default_value_t = 16,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_HASH_MB as u64))]
    pub hash: usize,
}

impl EngineArgs {
    /// The limits; `default_movetime` applies when no limit was given.
    pub fn limits(&self, default_movetime: u64) -> AnalysisLimits {
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
        l
    }

    /// How many engines to start.
    pub fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }

    /// Starts the engines.
    pub fn start(&self) -> anyhow::Result<Vec<Box<dyn Analyst>>> {
        let n = self.jobs();
        let mut out: Vec<Box<dyn Analyst>> = Vec::with_capacity(n);
        if self.engine == "builtin" {
            if !self.options.is_empty() || !self.engine_args.is_empty() || self.engine_dir.is_some()
            {
                bail!("--option, --engine-arg and --engine-dir are for external engines; the built-in engine takes --hash");
            }
            for _ in 0..n {
                let engine = BuiltinAnalyst::new(self.hash).with_context(|| {
                    format!("cannot start the built-in engine with --hash {}", self.hash)
                })?;
                out.push(Box::new(engine));
            }
            return Ok(out);
        }
        let mut spec = EngineSpec::new(&self.engine);
        spec.args.clone_from(&self.engine_args);
        spec.working_dir.clone_from(&self.engine_dir);
        for o in &self.options {
            let (name, value) = match o.split_once('=') {
                Some((n, v)) => (n.trim().to_string(), Some(v.trim().to_string())),
                None => (o.trim().to_string(), None),
            };
            spec.options.push((name, value));
        }
        let timeouts = Timeouts {
            search_margin: Duration::from_secs(2),
            ..Timeouts::default()
        };
        for _ in 0..n {
            let a = UciAnalyst::start(spec.clone(), timeouts)
                .with_context(|| format!("cannot start engine {}", self.engine))?;
            out.push(Box::new(a));
        }
        Ok(out)
    }
}
