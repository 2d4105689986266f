//! Which program plays an engine's part: the built-in engine (the word
//! `builtin`) or a path with its arguments and working directory, and the
//! `NAME=VALUE` option words it is given. Every command that starts an
//! engine (analysis verbs, matches, the referee) reads these words the same
//! way; they live beside the host ([`crate::host::EngineSpec`]) because
//! turning them into a process is the host's job.
//!
//! ```
//! use rookery_uci::program::{EngineCommand, OptionWord};
//!
//! assert_eq!("/usr/games/stockfish".parse::<EngineCommand>()?.label(), "stockfish");
//! assert!("builtin".parse::<EngineCommand>()?.is_builtin());
//! let word: OptionWord = "Threads=1".parse()?;
//! assert_eq!(word.into_pair(), ("Threads".to_string(), Some("1".to_string())));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::host::EngineSpec;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// The word that selects the built-in engine.
pub const BUILTIN: &str = "builtin";

/// How an engine is started: the built-in one, or a program.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
}
