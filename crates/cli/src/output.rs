//! Shared output plumbing: buffered stdout, broken pipes, error reporting.

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

/// Turns a subcommand's result into the process exit code, printing errors.
/// A closed stdout (`rookery ... | head`) counts as success.
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
            ExitCode::from(1)
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
