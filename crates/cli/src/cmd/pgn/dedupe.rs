//! `rookery pgn dedupe`: every game but the duplicates of a game before it
//! (`rookery_pgn::dedupe`), copied byte for byte; the duplicates to a file
//! of their own, the pairs to a report.

use super::copy::{self, CopyFlags, Origin};
use crate::flags::{Files, IN_PLACE_KEEPS_BAD};
use crate::output::{self, Output, Status};
use rookery_pgn::collection::{GameWriter, Kept};
use rookery_pgn::dedupe::{GameKey, KeyPlan, Seen};
use std::io::Write;
use std::path::PathBuf;

/// Flags of `rookery pgn dedupe`.
#[derive(clap::Args, Debug)]
#[command(
    mut_arg("in_place", |a| a.help(IN_PLACE_KEEPS_BAD)),
    mut_arg("inputs", |a| a.help("Input files (`-` for stdin), read in this order (a game is a duplicate of one before it in any of them)")),
    after_help = "Two games are duplicates when they reach the same final position by the same \
sequence of positions (pgn-extract -D's criterion: a 128-bit hash of the final position and of \
the positions on the way), whatever their tags, comments and variations; the first is kept. \
Memory: about 15 bytes per game kept (8 more with --report); past --memory the keys go to a temporary file. \
Every game is copied as it was written; a game that cannot be read is reported (file:line:col) \
and left out, or copied with --keep-bad (never taken for a duplicate).\n\nExamples:\n  rookery \
pgn dedupe a.pgn b.pgn -o all.pgn --duplicates dups.pgn\n  rookery pgn dedupe big.pgn --fuzzy-ply \
20 --same-tags White,Black,Date --report dups.txt -o clean.pgn"
)]
pub struct DedupeArgs {
    #[command(flatten)]
    files: Files,
    /// Write the duplicates (as they were written) to FILE.
    #[arg(long, value_name = "FILE")]
    duplicates: Option<PathBuf>,
    /// Write one line per duplicate to FILE (`-`: stdout):
    /// `FILE:LINE: duplicate of FILE:LINE`, the game dropped, then the one kept.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Games of N plies or more are duplicates when they stand in the same
    /// position after ply N (pgn-extract --fuzzydepth; 0: the same final
    /// position); shorter ones are compared whole.
    #[arg(long, value_name = "N")]
    fuzzy_ply: Option<usize>,
    /// Duplicates must also have the same values of these tags
    /// (White,Black,Date).
    #[arg(long, value_name = "TAGS", value_delimiter = ',')]
    same_tags: Vec<String>,
    /// Keys held in memory, about (K, M, G: KiB, MiB, GiB); past it, on disk.
    #[arg(long, value_name = "SIZE", value_parser = copy::parse_size)]
    memory: Option<usize>,
    #[command(flatten)]
    flags: CopyFlags,
}

/// Bits of a report's payload that hold the line; the input's place in
/// the list stands above them.
const LINE_BITS: u32 = 48;

/// Runs `rookery pgn dedupe`.
pub fn run(a: DedupeArgs) -> anyhow::Result<Status> {
    copy::check_json(&a.flags, &a.files.output)?;
    if let Some(r) = &a.report {
        if output::is_std(r) && (output::is_std(&a.files.output) || a.flags.json) {
            return Err(output::usage(
                "--report - prints on stdout, where the games or the summary go: give -o FILE \
                 and no --json, or --report FILE",
            ));
        }
        if a.files.inputs.len() >= 1 << (64 - LINE_BITS) {
            return Err(output::usage("--report names at most 65535 inputs"));
        }
    }
    let keys = KeyPlan {
        fuzzy_ply: a.fuzzy_ply,
        same_tags: a.same_tags.clone(),
    };
    let mut plan = a.flags.plan(a.files.in_place);
    plan.copy.detail = keys.detail();
    let ins = a.files.input_paths();
    let mut out = GameWriter::new(Output::create(&a.files.output, &ins, a.files.in_place)?);
    let mut dups = match &a.duplicates {
        Some(p) => Some(GameWriter::new(Output::create(p, &ins, false)?)),
        None => None,
    };
    let mut report = match &a.report {
        Some(p) => Some(Output::create(p, &ins, false)?),
        None => None,
    };
    let names: Vec<String> = a
        .files
        .inputs
        .iter()
        .map(|p| output::display_name(p))
        .collect();
    let mut seen = Seen::new(report.is_some(), a.memory);
    let mut duplicates = 0u64;
    // On the reading threads: the key (none for a game with an error,
    // copied under --keep-bad).
    let label = |g: &rookery_pgn::ReadGame, raw: &[u8]| -> Option<Option<GameKey>> {
        Some(g.error.is_none().then(|| keys.key(g, raw)))
    };
    let totals = copy::copy_inputs(&plan, &a.files.inputs, &label, &mut |origin: Origin<'_>,
                                                                         g: Kept<
        '_,
        Option<GameKey>,
    >| {
        let Some(key) = g.label else {
            return Ok(out.write(g.text, g.open_result)?);
        };
        let here = (origin.input as u64) << LINE_BITS | g.at.line;
        let Some(first) = seen.first(key, here)? else {
            return Ok(out.write(g.text, g.open_result)?);
        };
        duplicates += 1;
        if let Some(d) = &mut dups {
            d.write(g.text, g.open_result)?;
        }
        if let Some(r) = &mut report {
            let input = (first >> LINE_BITS) as usize;
            let line = first & ((1 << LINE_BITS) - 1);
            let name = names.get(input).map_or("?", String::as_str);
            writeln!(
                r,
                "{}:{}: duplicate of {name}:{line}",
                origin.name, g.at.line
            )?;
        }
        Ok(())
    })?;
    out.finish()?.commit()?;
    if let Some(d) = dups {
        d.finish()?.commit()?;
    }
    if let Some(r) = report {
        r.commit()?;
    }
    // A duplicate is a game left out, not one written.
    let mut totals = totals;
    totals.counts.copied -= duplicates;
    totals.counts.left_out += duplicates;
    let mut fields = serde_json::Map::new();
    fields.insert("duplicates".into(), duplicates.into());
    fields.insert("spills".into(), (seen.spills() as u64).into());
    let mut text = format!(" ({duplicates} duplicates)");
    if seen.spills() > 0 {
        text.push_str(&format!("; keys spilled to disk {} times", seen.spills()));
    }
    copy::summary(&a.flags, &totals, fields, &text)?;
    Ok(totals.status())
}
