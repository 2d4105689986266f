//! `rookery pgn cat`: several inputs into one, every game copied byte for
//! byte, in input order.

use crate::cmd::pgn_copy::{self, CopyFlags};
use crate::output::{Output, Status};
use rookery_pgn::collection::{GameWriter, Kept};
use std::path::{Path, PathBuf};

/// Flags of `rookery pgn cat`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Every game is checked (every move, in variations too) and copied as \
it was written, from its first tag to its result; a blank line stands between two games. A \
game that cannot be read is reported (file:line:col) and left out, or copied with --keep-bad. \
Bytes are copied as they are: a Latin-1 file stays Latin-1, CRLF stays CRLF. Duplicates are not \
removed (rookery pgn dedupe is the verb for that).\n\nExamples:\n  rookery \
pgn cat a.pgn b.pgn c.pgn -o all.pgn\n  cat *.pgn | rookery pgn cat - --keep-bad > all.pgn"
)]
pub struct CatArgs {
    /// Input files (`-` for stdin), read in this order.
    #[arg(default_value = "-")]
    inputs: Vec<PathBuf>,
    /// Output file (`-` for stdout), replaced when the run finishes.
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    /// Allow the output to be one of the inputs (a game with an error is
    /// then kept, as with --keep-bad: the file is the only copy).
    #[arg(long)]
    in_place: bool,
    #[command(flatten)]
    flags: CopyFlags,
}

/// Runs `rookery pgn cat`.
pub fn run(a: CatArgs) -> anyhow::Result<Status> {
    pgn_copy::check_json(&a.flags, &a.output)?;
    let ins: Vec<&Path> = a.inputs.iter().map(PathBuf::as_path).collect();
    let mut out = GameWriter::new(Output::create(&a.output, &ins, a.in_place)?);
    let totals = pgn_copy::copy_inputs(
        &a.flags.plan(a.in_place),
        &a.inputs,
        &|_, _| Some(()),
        &mut |_, g: Kept<'_, ()>| Ok(out.write(g.text, g.open_result)?),
    )?;
    out.finish()?.commit()?;
    pgn_copy::summary(&a.flags, &totals, serde_json::Map::new(), "")?;
    Ok(totals.status())
}
