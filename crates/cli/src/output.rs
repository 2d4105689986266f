//! Shared output plumbing: buffered stdout, broken pipes, error reporting.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

/// What a subcommand reports when it finishes normally.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Everything went well.
    Ok,
    /// The input had errors; they were reported and the rest was processed.
    InputErrors,
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
    match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::InputErrors) => ExitCode::from(1),
        Err(e) => {
            if e.chain().any(|c| {
                c.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("rookery: error: {e:#}");
            if e.chain().any(|c| c.downcast_ref::<UsageError>().is_some()) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// A buffered, locked stdout.
pub fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// Opens `path` for writing, `-` meaning stdout.
pub fn create(path: &std::path::Path) -> io::Result<Box<dyn Write>> {
    if path.as_os_str() == "-" {
        Ok(Box::new(stdout()))
    } else {
        Ok(Box::new(io::BufWriter::with_capacity(
            1 << 16,
            std::fs::File::create(path)?,
        )))
    }
}

/// Opens `path` for reading, `-` meaning stdin.
pub fn open(path: &std::path::Path) -> io::Result<Box<dyn io::BufRead + Send>> {
    if path.as_os_str() == "-" {
        Ok(Box::new(io::BufReader::with_capacity(1 << 16, io::stdin())))
    } else {
        Ok(Box::new(io::BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(path)?,
        )))
    }
}
