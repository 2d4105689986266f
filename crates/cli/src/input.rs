//! The inputs of the binary's commands as rookery-io opens them: a path
//! (`-`: stdin) opened with a message naming it, decompressed when it is
//! compressed, read as text (a line that is not UTF-8 read as Latin-1, with
//! one warning); and the damage of every compressed input opened, kept to
//! be told at the end of the command ([`report_damage`], called by
//! [`crate::output::finish`]), after everything the command made of the
//! text before the damage.
//!
//! Why one list for the whole process and not a value each verb returns:
//! inputs are opened in two dozen places (suites, books, EPD verbs, engine
//! lists, the PGN verbs' sources), and a damage handle dropped on one path
//! is a truncated file read as whole without a word; the list makes telling
//! it the opener's doing, not every caller's.

use rookery_io::input::{Damage, Input};
use rookery_io::latin1::Latin1Read;
use std::io::{self, BufRead, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// The damage handles of the compressed inputs opened so far, asked at the
/// end of the command ([`crate::output::finish`]).
static DAMAGE: Mutex<Vec<Damage>> = Mutex::new(Vec::new());

/// Keeps `damage` to be told at the end of the command (see [`crate::output::finish`]).
fn watch(damage: Damage) {
    DAMAGE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(damage);
}

/// Prints every damage found in the inputs and not told yet; whether there
/// was any.
pub fn report_damage() -> bool {
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
