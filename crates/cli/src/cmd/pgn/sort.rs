//! `rookery pgn sort`: games ordered by tags, copied byte for byte; beyond
//! `--memory`, sorted in runs on disk and merged (`rookery_pgn::sort`).

use super::copy::{self, CopyFlags};
use crate::flags::{Files, IN_PLACE_KEEPS_BAD};
use crate::output::{self, Output, Status};
use rookery_pgn::collection::{GameWriter, Kept};
use rookery_pgn::copy::tag_value;
use rookery_pgn::sort::{SortKey, Sorter};
use std::path::{Path, PathBuf};

/// Flags of `rookery pgn sort`.
#[derive(clap::Args, Debug)]
#[command(
    mut_arg("in_place", |a| a.help(IN_PLACE_KEEPS_BAD)),
    mut_arg("inputs", |a| a.help("Input files (`-` for stdin), sorted together")),
    after_help = "Fields: any tag, Date:year, Date:month; :desc for largest first. Dates \
compare as dates (an unknown month or day first), numbers in values as numbers (Round 2.10 after \
2.9, WhiteElo 900 before 2500), text without regard to case; a missing tag, `?` or ????.??.?? \
comes last. Equal keys keep the input order. Every game is copied as it was written; a game that \
cannot be read is reported and left out, or sorted with --keep-bad.\n\nExamples:\n  rookery pgn \
sort games.pgn --by Date,Round -o sorted.pgn\n  rookery pgn sort big.pgn --by WhiteElo:desc \
--memory 512M -o by-elo.pgn"
)]
pub struct SortArgs {
    #[command(flatten)]
    files: Files,
    /// The fields to sort by, most significant first (Date,Round).
    #[arg(long, value_name = "FIELDS")]
    by: SortKey,
    /// Games held in memory, about (K, M, G: KiB, MiB, GiB); past it,
    /// sorted runs are written to disk and merged at the end.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = copy::parse_size)]
    memory: usize,
    /// Where the sorted runs go (default: the output's directory, or the
    /// system's temporary directory for stdout).
    #[arg(long, value_name = "DIR")]
    temp_dir: Option<PathBuf>,
    #[command(flatten)]
    flags: CopyFlags,
}

/// Where runs go without `--temp-dir`: beside the output file (on its file
/// system, which must hold the result anyway), else the system's.
fn default_temp_dir(output: &Path) -> PathBuf {
    if output::is_std(output) {
        return std::env::temp_dir();
    }
    match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Runs `rookery pgn sort`.
pub fn run(a: SortArgs) -> anyhow::Result<Status> {
    copy::check_json(&a.flags, &a.files.output)?;
    let ins = a.files.input_paths();
    let out = Output::create(&a.files.output, &ins, a.files.in_place)?;
    let temp = a
        .temp_dir
        .clone()
        .unwrap_or_else(|| default_temp_dir(&a.files.output));
    let mut sorter = Sorter::new(a.memory, &temp);
    let key = &a.by;
    let totals = copy::copy_inputs(
        &a.flags.plan(a.files.in_place),
        &a.files.inputs,
        &|g, raw| Some(key.encode(|name| tag_value(g, raw, name))),
        &mut |_, g: Kept<'_, Vec<u8>>| Ok(sorter.push(&g.label, g.text, g.open_result)?),
    )?;
    let mut out = GameWriter::new(out);
    let sorted = sorter.finish(&mut |text, open| out.write(text, open))?;
    out.finish()?.commit()?;
    let mut fields = serde_json::Map::new();
    fields.insert("runs".into(), sorted.runs.into());
    fields.insert("merges".into(), sorted.merges.into());
    let text = if sorted.runs > 0 {
        format!("; sorted in {} runs on disk", sorted.runs)
    } else {
        String::new()
    };
    copy::summary(&a.flags, &totals, fields, &text)?;
    Ok(totals.status())
}
