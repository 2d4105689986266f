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

use rookery_io::input::{Damage, Input};
use rookery_io::latin1::Latin1Read;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

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
    let damaged = report_damage();
    let result = match result {
        Ok(Status::Ok) if damaged => Ok(Status::InputErrors),
        other => other,
    };
    match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::InputErrors) => ExitCode::from(1),
        Ok(Status::Interrupted) => ExitCode::from(130),
        Err(e) => {
            if e.chain().any(|c| {
                c.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("rookery: error: {}", error_text(&e));
            if e.chain().any(|c| {
                c.downcast_ref::<UsageError>().is_some()
                    || c.downcast_ref::<rookery_io::output::OutputError>()
                        .is_some_and(rookery_io::output::OutputError::is_refusal)
            }) {
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

/// The damage handles of the compressed inputs opened so far, asked at the
/// end of the command ([`finish`]).
static DAMAGE: Mutex<Vec<Damage>> = Mutex::new(Vec::new());

/// Keeps `damage` to be told at the end of the command (see [`finish`]).
fn watch(damage: Damage) {
    DAMAGE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(damage);
}

/// Prints every damage found in the inputs and not told yet; whether there
/// was any.
fn report_damage() -> bool {
    let watched = std::mem::take(&mut *DAMAGE.lock().unwrap_or_else(PoisonError::into_inner));
    let mut any = false;
    for d in watched {
        if let Some(e) = d.take() {
            eprintln!("rookery: error: {e}");
            any = true;
        }
    }
    any
}

/// Opens `path` for reading (`-`: stdin), decompressing it if it is
/// compressed; its damage, if any, is told at the end of the command.
///
/// # Errors
/// [`rookery_io::input::InputError`], naming the input: it cannot be
/// opened, is a directory, is UTF-16 or UTF-32 text, or is compressed in a
/// format rookery does not read.
pub fn open_input_raw(path: &Path) -> anyhow::Result<Input> {
    let input = Input::open(path)?;
    watch(input.damage());
    Ok(input)
}

/// The length of `path` when it is a regular file of plain text, which
/// the threads of `--jobs` read at any offset; `None` for stdin, a pipe, a
/// compressed file (read through [`open_text`], decompressed) or a path
/// that cannot be read. ([`rookery_io::input::file_len`] is the length of
/// any regular file, compressed or not: a progress bar's.)
pub fn file_len(path: &Path) -> Option<u64> {
    rookery_io::input::plain_file_len(path)
}

/// Why the input at `path` cannot be read, in words naming it, if it
/// cannot: it does not open, is a directory, is text in UTF-16 or UTF-32,
/// or is compressed in a format rookery does not read. Stdin, a pipe
/// (`<(zcat f.pgn.gz)`) and a device are not looked at: their first bytes
/// would be taken from the verb that reads them next
/// ([`rookery_io::input::refusal`]).
pub fn unreadable(path: &Path) -> Option<String> {
    rookery_io::input::refusal(path).map(|e| e.to_string())
}

/// Opens `path` for reading, unbuffered, `-` meaning stdin (see
/// [`open_input_raw`]).
///
/// # Errors
/// As [`open_input_raw`].
pub fn open_raw(path: &Path) -> anyhow::Result<Box<dyn Read + Send>> {
    Ok(Box::new(open_input_raw(path)?))
}

/// Opens `path` for reading, buffered, `-` meaning stdin.
///
/// # Errors
/// As [`open_input_raw`].
pub fn open(path: &Path) -> anyhow::Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(io::BufReader::with_capacity(
        1 << 16,
        open_raw(path)?,
    )))
}

/// Opens a text input (`-`: stdin), unbuffered. What it reads is UTF-8: a
/// line that is not valid UTF-8 is read as ISO 8859-1 (Latin-1, the PGN
/// standard's character set), and the first such line is reported as a
/// warning naming the file — never are characters replaced
/// ([`Latin1Read`]). The text is read straight into the caller's buffer and
/// checked there.
///
/// # Errors
/// As [`open_input_raw`].
pub fn open_text(path: &Path) -> anyhow::Result<Box<dyn Read + Send>> {
    Ok(text_of(open_input_raw(path)?))
}

/// The text of `input`, as [`open_text`] reads it (for a caller that keeps
/// the input's [`Input::damage`]).
pub fn text_of(input: Input) -> Box<dyn Read + Send> {
    let name = input.name().to_owned();
    Box::new(Latin1Read::new(input, move |line| warn_latin1(&name, line)))
}

/// [`open_text`], buffered for reading lines.
///
/// # Errors
/// As [`open_input_raw`].
pub fn open_input(path: &Path) -> anyhow::Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(io::BufReader::with_capacity(
        1 << 16,
        open_text(path)?,
    )))
}

/// Whether warnings are silenced (`-q`): set by [`set_quiet`].
static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences (or not) the warnings printed outside a verb's own reports:
/// the Latin-1 warning of [`warn_latin1`]. A verb's `-q` sets it when its
/// flags are read.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Warns that input `name` is not UTF-8 from `line` on, and how it is
/// read; nothing under `-q` ([`set_quiet`]).
pub fn warn_latin1(name: &str, line: u64) {
    if QUIET.load(Ordering::Relaxed) {
        return;
    }
    eprintln!(
        "{name}:{line}: warning: not UTF-8; read as ISO 8859-1 (Latin-1) from here on where a line is not UTF-8"
    );
}
