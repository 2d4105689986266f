//! Engine selection, one home for every command that runs an engine
//! (`epd analyse|mate|target`, `suite`, `pgn annotate`, `match` and the
//! referee): which program (`builtin` or a path, with its arguments and
//! directory), its UCI options (`NAME=VALUE`) and how long to wait for it.
//!
//! ```
//! use rookery_analysis::select::{EngineCommand, EngineSelection, OptionWord};
//!
//! let mut sel = EngineSelection::new("builtin".parse()?);
//! sel.options.push("Threads=1".parse::<OptionWord>()?.into_pair());
//! let analysts = sel.start_analysts(1)?;
//! assert_eq!(analysts.len(), 1);
//! assert_eq!("/usr/games/stockfish".parse::<EngineCommand>()?.label(), "stockfish");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::analyst::{Analyst, AnalystError, BuiltinAnalyst, UciAnalyst};
use rookery_uci::host::Timeouts;
/// The program words ([`rookery_uci::program`]), for the commands that
/// select an engine through this module.
pub use rookery_uci::program::{EngineCommand, OptionWord, SelectError, BUILTIN};
use std::time::Duration;

/// Extra time an external engine gets past a search's own limit when it
/// analyses positions (before `stop`, and again before it counts as hung).
pub const ANALYSIS_SEARCH_MARGIN: Duration = Duration::from_secs(2);

/// The timeouts for analysing positions: the host's defaults with a
/// search margin of [`ANALYSIS_SEARCH_MARGIN`].
pub fn analysis_timeouts() -> Timeouts {
    Timeouts {
        search_margin: ANALYSIS_SEARCH_MARGIN,
        ..Timeouts::default()
    }
}

/// Which engine to run over positions, set up how, waited for how long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSelection {
    /// The program.
    pub command: EngineCommand,
    /// UCI options, in order: checked against the options an external engine
    /// declares; for the built-in engine, set as its UCI loop sets them.
    pub options: Vec<(String, Option<String>)>,
    /// Hash table size in MB of the built-in engine.
    pub hash_mb: usize,
    /// How long to wait for an external engine.
    pub timeouts: Timeouts,
}

/// The built-in engine's hash table size when none is asked for, in MB.
pub const DEFAULT_HASH_MB: usize = 16;

impl EngineSelection {
    /// `command` with no options, the default hash size and
    /// [`analysis_timeouts`].
    pub fn new(command: EngineCommand) -> EngineSelection {
        EngineSelection {
            command,
            options: Vec::new(),
            hash_mb: DEFAULT_HASH_MB,
            timeouts: analysis_timeouts(),
        }
    }

    /// Starts `n` analysts. An external engine that runs but fails its
    /// handshake is started leniently: it is started again before each
    /// position until it has failed [`crate::MAX_START_FAILURES`] times in
    /// a row.
    ///
    /// # Errors
    /// [`StartError::Builtin`] for an option the built-in engine does not
    /// have (or a bad value, or a table it cannot have); [`StartError::Start`]
    /// when an external engine's program cannot be run at all.
    pub fn start_analysts(&self, n: usize) -> Result<Vec<Box<dyn Analyst>>, StartError> {
        let mut out: Vec<Box<dyn Analyst>> = Vec::with_capacity(n);
        for _ in 0..n.max(1) {
            if self.command.is_builtin() {
                let a = BuiltinAnalyst::with_options(self.hash_mb, &self.options)
                    .map_err(StartError::Builtin)?;
                out.push(Box::new(a));
            } else {
                let spec = self.command.spec(&self.options);
                let a =
                    UciAnalyst::start_lenient(spec, self.timeouts).map_err(StartError::Start)?;
                out.push(Box::new(a));
            }
        }
        Ok(out)
    }
}

/// Why the engines of a selection could not be started.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The built-in engine refused an option or its table size (a usage error).
    #[error("{0}")]
    Builtin(AnalystError),
    /// An external engine's program could not be run (the error names it).
    #[error("{0}")]
    Start(AnalystError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_engine_refuses_an_option_it_does_not_have() {
        let mut sel = EngineSelection::new(EngineCommand::Builtin);
        sel.options.push(("NoSuchOption".into(), Some("1".into())));
        assert!(matches!(sel.start_analysts(1), Err(StartError::Builtin(_))));
        sel.options = vec![("Threads".into(), Some("1".into()))];
        assert_eq!(sel.start_analysts(2).map(|v| v.len()).ok(), Some(2));
    }
}
