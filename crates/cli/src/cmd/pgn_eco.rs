//! `rookery pgn eco`: every game written with the ECO, Opening and Variation
//! tags of its opening (`rookery_pgn::eco`), every other byte as it was; a
//! summary on stderr.

use super::{run_plan, status, Common, Files};
use crate::output::{Output, Status};
use rookery_pgn::stream::{Stats, Task};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Flags of `rookery pgn eco`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "A game's opening is the deepest position among its first 40 plies that \
the lichess chess-openings table names (found by position: transpositions count), as lichess \
classifies its games. Its name is split at the colon: \"Sicilian Defense: Najdorf Variation, \
English Attack\" is [Opening \"Sicilian Defense\"] and [Variation \"Najdorf Variation, English \
Attack\"]; a name without a colon gets no Variation tag (an old one is removed, as is \
pgn-extract's SubVariation). The tags are set where they stand, or added after the game's last \
tag; every other byte (tags, comments, movetext, line endings) is copied as it was. A game in no \
named position, a game kept with --keep and a game with an error (reported) are copied \
unchanged.\n\nExamples:\n  rookery pgn eco games.pgn -o named.pgn\n  rookery pgn eco --keep \
--jobs 2 lichess.pgn -o lichess-named.pgn\n  rookery pgn stats --eco games.pgn"
)]
pub struct EcoArgs {
    #[command(flatten)]
    files: Files,
    /// Leave a game that has any of the ECO, Opening and Variation tags as
    /// it is.
    #[arg(long)]
    keep: bool,
    /// Stop at the first game with an error.
    #[arg(long)]
    strict: bool,
    /// The summary (on stderr) as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    common: Common,
}

/// Runs `rookery pgn eco`.
pub fn run(a: EcoArgs) -> anyhow::Result<Status> {
    let plan = a.common.plan(Task::Eco { keep: a.keep }, a.strict);
    let ins: Vec<&Path> = a.files.inputs.iter().map(PathBuf::as_path).collect();
    let mut out = Output::create(&a.files.output, &ins, a.files.in_place)?;
    let stats = run_plan(
        plan,
        &a.files.inputs,
        &mut out,
        &mut std::io::stderr(),
        false,
    )?;
    out.commit()?;
    let mut err = std::io::stderr().lock();
    print_summary(&mut err, &stats, a.json)?;
    Ok(status(&stats, false))
}

fn print_summary(out: &mut dyn Write, s: &Stats, json: bool) -> std::io::Result<()> {
    let t = &s.tagged;
    if json {
        let v = serde_json::json!({
            "games": s.games,
            "named": t.named,
            "kept": t.kept,
            "unnamed": t.unnamed,
            "errors": s.error_games,
            "warnings": s.warnings,
            "eco": s.eco,
        });
        return writeln!(out, "{v}");
    }
    writeln!(
        out,
        "{} games: {} named, {} kept (--keep), {} in no named position, {} with errors (copied as they are)",
        s.games, t.named, t.kept, t.unnamed, s.error_games
    )
}
