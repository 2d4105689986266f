//! What every `rookery pgn` verb that reads games shares: the progress
//! bar of an input, the line of a problem found in a game, and the words of
//! a failed read.

use crate::output;
use rookery_pgn::stream::{Diag, StreamError};
use std::io::{IsTerminal, Write};
use std::path::Path;

/// What a verb that reads games says when reading `file` failed: the
/// reader's own error when it names the input already, else the error
/// with `cannot read FILE`; a failure of the verb's own sink as it is.
pub(crate) fn read_failure(e: StreamError<anyhow::Error>, file: &str) -> anyhow::Error {
    match e {
        StreamError::Read(e) if output::names_its_input(&e) => anyhow::Error::new(e),
        StreamError::Read(e) => anyhow::Error::new(e).context(format!("cannot read {file}")),
        StreamError::Sink(e) => e,
    }
}

/// A byte-count progress bar on stderr, only when stderr is a terminal:
/// against the file's size (compressed, for a compressed file).
pub(crate) fn progress(path: &Path) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = match rookery_io::input::file_len(path) {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(output::display_name(path));
    Some(pb)
}

pub(crate) fn print_diag(
    out: &mut dyn Write,
    file: &str,
    d: &Diag,
    json: bool,
) -> std::io::Result<()> {
    if json {
        let v = serde_json::json!({
            "file": file,
            "line": d.line,
            "column": d.col,
            "severity": if d.error { "error" } else { "warning" },
            "game": d.game,
            "message": d.message,
        });
        writeln!(out, "{v}")
    } else {
        let sev = if d.error { "error" } else { "warning" };
        writeln!(out, "{file}:{}:{}: {sev}: {}", d.line, d.col, d.message)
    }
}

/// A shard of a PGN verb (`--shard K/N`) begun: its one input, its job
/// (the part file, the manifest, progress) over the input's games, and
/// where its part lies in the input ([`rookery_pgn::source::game_span`]).
pub(crate) struct ShardStart<'a> {
    /// The one input every shard reads.
    pub input: &'a std::path::PathBuf,
    /// The shard's job, started.
    pub job: crate::cmd::shard::Job,
    /// Where the part's first game starts and the byte the part ends at.
    pub span: (rookery_pgn::split::Start, Option<u64>),
}

/// Begins shard `s` of the PGN verb `verb` over `files`: one input file
/// (not stdin), an output apart from it, its games counted (by their
/// bytes: a game starts where its tags do, in any encoding) and the part
/// found.
///
/// # Errors
/// A usage error for several inputs or stdin; the input's read errors,
/// naming it; the job's own ([`crate::cmd::shard::Job::start`]).
pub(crate) fn start_shard<'a>(
    files: &'a crate::flags::Files,
    s: rookery_io::shard::Shard,
    flags: &crate::cmd::shard::ShardArgs,
    verb: &str,
) -> anyhow::Result<ShardStart<'a>> {
    let [input] = files.inputs.as_slice() else {
        return Err(output::usage(
            "--shard takes one input file (its games are split among the shards)",
        ));
    };
    crate::cmd::shard::check_paths(input, &files.output)?;
    let file = output::display_name(input);
    let cannot = |e: std::io::Error| anyhow::Error::new(e).context(format!("cannot read {file}"));
    let text = || crate::input::open_input_raw(input);
    let (total, _) = rookery_pgn::source::count_games(text()?, None).map_err(cannot)?;
    let job = crate::cmd::shard::Job::start(s, flags, verb, input, &files.output, "games", total)?;
    let span = rookery_pgn::source::game_span(text()?, job.range()).map_err(cannot)?;
    Ok(ShardStart { input, job, span })
}
