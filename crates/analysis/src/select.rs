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
use rookery_uci::host::{EngineSpec, Timeouts};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The word that selects the built-in engine.
pub const BUILTIN: &str = "builtin";

/// How an engine is started: the built-in one, or a program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EngineCommand {
    /// The rookery engine, in process.
    Builtin,
    /// A UCI program.
    External {
        /// The program.
        path: PathBuf,
        /// Its arguments.
        args: Vec<String>,
        /// Its working directory.
        dir: Option<PathBuf>,
    },
}

/// An engine word that selects nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    /// An empty program name.
    #[error("no engine given: expected `builtin` or the path of a UCI engine")]
    Empty,
    /// Arguments or a directory for the built-in engine.
    #[error(
        "engine arguments and a working directory are for external engines, not the built-in one"
    )]
    ExternalOnly,
    /// An option word without a name.
    #[error("bad option {0:?}: expected NAME=VALUE")]
    BadOption(String),
}

impl FromStr for EngineCommand {
    type Err = SelectError;

    /// `builtin`, or the path of a program (no arguments yet).
    fn from_str(s: &str) -> Result<EngineCommand, SelectError> {
        match s {
            "" => Err(SelectError::Empty),
            BUILTIN => Ok(EngineCommand::Builtin),
            path => Ok(EngineCommand::External {
                path: PathBuf::from(path),
                args: Vec::new(),
                dir: None,
            }),
        }
    }
}

impl fmt::Display for EngineCommand {
    /// `builtin`, or the program's path (its arguments are not shown).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineCommand::Builtin => f.write_str(BUILTIN),
            EngineCommand::External { path, .. } => write!(f, "{}", path.display()),
        }
    }
}

impl EngineCommand {
    /// Sets the program, keeping the arguments and directory given so far
    /// (for flags and words that come in any order).
    pub fn set_program(&mut self, program: EngineCommand) {
        *self = match (program, std::mem::replace(self, EngineCommand::Builtin)) {
            (EngineCommand::External { path, .. }, EngineCommand::External { args, dir, .. }) => {
                EngineCommand::External { path, args, dir }
            }
            (program, _) => program,
        };
    }

    /// Adds a command-line argument and/or sets the working directory.
    ///
    /// # Errors
    /// [`SelectError::ExternalOnly`] for the built-in engine (when either is given).
    pub fn with_process(
        mut self,
        extra_args: &[String],
        working_dir: Option<PathBuf>,
    ) -> Result<EngineCommand, SelectError> {
        match &mut self {
            EngineCommand::Builtin if extra_args.is_empty() && working_dir.is_none() => {}
            EngineCommand::Builtin => return Err(SelectError::ExternalOnly),
            EngineCommand::External { args, dir, .. } => {
                args.extend(extra_args.iter().cloned());
                if working_dir.is_some() {
                    *dir = working_dir;
                }
            }
        }
        Ok(self)
    }

    /// Whether this is the built-in engine.
    pub fn is_builtin(&self) -> bool {
        matches!(self, EngineCommand::Builtin)
    }

    /// A short name for messages before the engine has told its own:
    /// `rookery`, or the program's file name.
    pub fn label(&self) -> String {
        match self {
            EngineCommand::Builtin => "rookery".to_string(),
            EngineCommand::External { path, .. } => path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
        }
    }

    /// The program as it is run: a relative path with a directory part
    /// (`./engine`, `bin/engine`) is inside the working directory when one
    /// is given, as fastchess runs `dir=Engines/ cmd=./dev` (made absolute
    /// from the current directory); a bare name is looked up on PATH.
    /// `None` for the built-in engine.
    pub fn program(&self) -> Option<PathBuf> {
        match self {
            EngineCommand::Builtin => None,
            EngineCommand::External { path, dir, .. } => Some(match dir {
                // Absolute: the child starts in `dir`, where a relative
                // path would be read again from there.
                Some(dir) if path.is_relative() && path.components().count() > 1 => {
                    let inside = dir.join(path);
                    std::path::absolute(&inside).unwrap_or(inside)
                }
                _ => path.clone(),
            }),
        }
    }

    /// The host's description of the engine, with `options` to set after
    /// the handshake (the built-in engine's path is the word `builtin`).
    pub fn spec(&self, options: &[(String, Option<String>)]) -> EngineSpec {
        let mut spec = match self {
            EngineCommand::Builtin => EngineSpec::new(BUILTIN),
            EngineCommand::External { args, dir, .. } => {
                let path = self.program().unwrap_or_default();
                let mut s = EngineSpec::new(path);
                s.args.clone_from(args);
                s.working_dir.clone_from(dir);
                s
            }
        };
        spec.options = options.to_vec();
        spec
    }
}

/// One `NAME=VALUE` option word (`NAME` alone: a button, no value); name
/// and value trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionWord {
    /// The option's name.
    pub name: String,
    /// Its value.
    pub value: Option<String>,
}

impl OptionWord {
    /// The (name, value) pair the host and the built-in engine take.
    pub fn into_pair(self) -> (String, Option<String>) {
        (self.name, self.value)
    }
}

impl FromStr for OptionWord {
    type Err = SelectError;

    fn from_str(s: &str) -> Result<OptionWord, SelectError> {
        let (name, value) = match s.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.trim().to_string())),
            None => (s.trim(), None),
        };
        if name.is_empty() {
            return Err(SelectError::BadOption(s.to_string()));
        }
        Ok(OptionWord {
            name: name.to_string(),
            value,
        })
    }
}

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

    /// `dir=Engines/ cmd=./dev`: the program inside the directory, as an
    /// absolute path (the child starts there); a bare name stays a name
    /// for PATH; no directory, no change.
    #[test]
    fn a_relative_program_is_inside_its_directory() {
        let cmd = |path: &str, dir: Option<&str>| EngineCommand::External {
            path: PathBuf::from(path),
            args: Vec::new(),
            dir: dir.map(PathBuf::from),
        };
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            cmd("./dev", Some("Engines/")).program(),
            Some(cwd.join("Engines/dev"))
        );
        assert_eq!(
            cmd("./dev", Some("Engines/")).spec(&[]).path,
            cwd.join("Engines/dev")
        );
        assert_eq!(
            cmd("stockfish", Some("Engines")).program(),
            Some(PathBuf::from("stockfish"))
        );
        assert_eq!(cmd("./dev", None).program(), Some(PathBuf::from("./dev")));
        assert_eq!(
            cmd("/opt/e", Some("x")).program(),
            Some(PathBuf::from("/opt/e"))
        );
        assert_eq!(EngineCommand::Builtin.program(), None);
    }

    #[test]
    fn engine_words_select_the_program() {
        assert_eq!("builtin".parse(), Ok(EngineCommand::Builtin));
        assert_eq!("".parse::<EngineCommand>(), Err(SelectError::Empty));
        let sf: EngineCommand = "/usr/games/stockfish".parse().unwrap();
        assert_eq!(sf.label(), "stockfish");
        assert_eq!(sf.to_string(), "/usr/games/stockfish");
        let sf = sf
            .with_process(&["-q".to_string()], Some(PathBuf::from("/tmp")))
            .unwrap();
        let spec = sf.spec(&[("Hash".into(), Some("8".into()))]);
        assert_eq!(spec.args, ["-q"]);
        assert_eq!(spec.working_dir, Some(PathBuf::from("/tmp")));
        assert_eq!(spec.options, [("Hash".to_string(), Some("8".to_string()))]);
        assert_eq!(
            EngineCommand::Builtin.with_process(&["-q".to_string()], None),
            Err(SelectError::ExternalOnly)
        );
        // A later program keeps the arguments given before it.
        let mut c = sf.clone();
        c.set_program("/bin/other".parse().unwrap());
        assert!(matches!(&c, EngineCommand::External { path, args, .. }
            if path == &PathBuf::from("/bin/other") && args == &["-q"]));
        c.set_program(EngineCommand::Builtin);
        assert!(c.is_builtin());
    }

    #[test]
    fn option_words_split_once_and_trim() {
        let o: OptionWord = " Skill Level = 5 ".parse().unwrap();
        assert_eq!(o.into_pair(), ("Skill Level".into(), Some("5".into())));
        let o: OptionWord = "Clear Hash".parse().unwrap();
        assert_eq!(o.into_pair(), ("Clear Hash".into(), None));
        let o: OptionWord = "a=b=c".parse().unwrap();
        assert_eq!(o.value.as_deref(), Some("b=c"));
        assert!("=5".parse::<OptionWord>().is_err());
    }

    #[test]
    fn the_builtin_engine_refuses_an_option_it_does_not_have() {
        let mut sel = EngineSelection::new(EngineCommand::Builtin);
        sel.options.push(("NoSuchOption".into(), Some("1".into())));
        assert!(matches!(sel.start_analysts(1), Err(StartError::Builtin(_))));
        sel.options = vec![("Threads".into(), Some("1".into()))];
        assert_eq!(sel.start_analysts(2).map(|v| v.len()).ok(), Some(2));
    }
}
