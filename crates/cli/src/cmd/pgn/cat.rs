//! `rookery pgn cat`: several inputs into one, every game copied byte for
//! byte, in input order.

use super::copy::{self, CopyFlags};
use crate::flags::{Files, IN_PLACE_KEEPS_BAD};
use crate::output::{Output, Status};
use rookery_pgn::collection::{GameWriter, Kept};

/// Flags of `rookery pgn cat`.
#[derive(clap::Args, Debug)]
#[command(
    mut_arg("in_place", |a| a.help(IN_PLACE_KEEPS_BAD)),
    after_help = "Every game is checked (every move, in variations too) and copied as \
it was written, from its first tag to its result; a blank line stands between two games. A \
game that cannot be read is reported (file:line:col) and left out, or copied with --keep-bad. \
Bytes are copied as they are: a Latin-1 file stays Latin-1, CRLF stays CRLF. Duplicates are not \
removed (rookery pgn dedupe is the verb for that).\n\nExamples:\n  rookery \
pgn cat a.pgn b.pgn c.pgn -o all.pgn\n  cat *.pgn | rookery pgn cat - --keep-bad > all.pgn"
)]
pub struct CatArgs {
    #[command(flatten)]
    files: Files,
    #[command(flatten)]
    flags: CopyFlags,
}

/// Runs `rookery pgn cat`.
pub fn run(a: CatArgs) -> anyhow::Result<Status> {
    copy::check_json(&a.flags, &a.files.output)?;
    let ins = a.files.input_paths();
    let mut out = GameWriter::new(Output::create(&a.files.output, &ins, a.files.in_place)?);
    let totals = copy::copy_inputs(
        &a.flags.plan(a.files.in_place),
        &a.files.inputs,
        &|_, _| Some(()),
        &mut |_, g: Kept<'_, ()>| Ok(out.write(g.text, g.open_result)?),
    )?;
    out.finish()?.commit()?;
    copy::summary(&a.flags, &totals, serde_json::Map::new(), "")?;
    Ok(totals.status())
}
