//! Shared output plumbing of the binary: buffered stdout, broken pipes,
//! error reporting, usage errors (exit status 2), and the inputs and
//! outputs of rookery-io as the commands use them (opened with messages
//! naming them, Latin-1 warnings printed, damaged compressed inputs told
//! at the end).
//!
//! What is file I/O lives in rookery-io: [`Output`] (the partial file
//! renamed over the target at the commit, compression by extension),
//! `--resume`'s sources, the checks that refuse outputs, the input that
//! decompresses what is compressed.

use std::fmt;
use std::io;
use std::process::ExitCode;

pub use rookery_io::input::{display_name, is_std, names_its_input};
pub use rookery_io::output::{
    check_not_input, check_outputs, resume_done, resume_sources, write_whole, Named, Output,
};

/// What a subcommand reports when it finishes normally.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Everything went well.
    Ok,
    /// The input had errors; they were reported and the rest was processed.
    InputErrors,
    /// Stopped by an interrupt (Ctrl-C, SIGTERM) after saving its work;
    /// exit status 130, as a shell reports a command ended by SIGINT.
    Interrupted,
}

/// The error of a verb whose exit status 1 says that nothing was found
/// (`db search`, as grep's): exit status 2, so that a script never reads
/// a failure (a damaged database, a full disk) as an empty answer.
#[derive(Debug)]
pub struct Failed(pub anyhow::Error);

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&error_text(&self.0))
    }
}

impl std::error::Error for Failed {}

/// `e` as the error of a verb whose exit status 1 says that nothing was
/// found ([`Failed`]).
pub fn failed(e: anyhow::Error) -> anyhow::Error {
    anyhow::Error::new(Failed(e))
}

/// A usage error: the flags make no sense together (exit status 2).
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A usage error as an `anyhow::Error` (exit status 2).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// Turns a subcommand's result into the process exit code, printing errors.
/// A closed stdout (`rookery ... | head`) counts as success; a usage error
/// exits 2, any other error 1.
pub fn finish(result: anyhow::Result<Status>) -> ExitCode {
    // Inputs whose compressed data ended early: told after everything the
    // command made of the text before the damage, and an input error.
    let damaged = crate::input::report_damage();
    let result = match result {
        Ok(Status::Ok) if damaged => Ok(Status::InputErrors),
        other => other,
    };
    match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::InputErrors) => ExitCode::from(1),
        Ok(Status::Interrupted) => ExitCode::from(130),
        Err(e) => {
            let (e, grep) = match e.downcast::<Failed>() {
                Ok(Failed(inner)) => (inner, true),
                Err(e) => (e, false),
            };
            if e.chain().any(|c| {
                c.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("rookery: error: {}", error_text(&e));
            if grep
                || e.chain().any(|c| {
                    c.downcast_ref::<UsageError>().is_some()
                        || c.downcast_ref::<rookery_io::output::OutputError>()
                            .is_some_and(rookery_io::output::OutputError::is_refusal)
                })
            {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// An error and its causes, `a: b: c`, each cause said once: a cause whose
/// text its parent's message already contains is left out.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.contains(&c) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&c);
    }
    text
}

/// A buffered, locked stdout, whose write errors name it (`writing
/// standard output: No space left on device`).
pub fn stdout() -> Named<io::BufWriter<io::StdoutLock<'static>>> {
    Named::new(
        io::BufWriter::with_capacity(1 << 16, io::stdout().lock()),
        rookery_io::output::STDOUT_NAME,
    )
}
