//! `rookery pgn eco`: every game written with the ECO, Opening and Variation
//! tags of its opening (`rookery_pgn::eco`), every other byte as it was; a
//! summary on stderr.

use super::reading::{start_shard, ShardStart};
use super::stream::{run_inputs, run_plan, status, Common};
use crate::cmd::shard::ShardArgs;
use crate::flags::Files;
use crate::output::{self, Output, Status};
use rookery_io::shard::Shard;
use rookery_pgn::stream::{Plan, Stats, Task};
use std::io::Write;

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
unchanged. With --shard K/N (one input, -o OUT; not with --strict) a shard names the K-th of N \
equal runs of the games into OUT.shard-K-of-N; `rookery merge OUT` then writes OUT and prints \
the summary as one run does.\n\nExamples:\n  rookery pgn eco games.pgn -o named.pgn\n  rookery pgn eco --keep \
--jobs 2 lichess.pgn -o lichess-named.pgn\n  rookery pgn eco big.pgn -o named.pgn --shard 2/4   # then: rookery merge \
named.pgn\n  rookery pgn stats --eco games.pgn"
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
    #[command(flatten)]
    shard: ShardArgs,
}

/// Runs `rookery pgn eco`.
pub fn run(a: EcoArgs) -> anyhow::Result<Status> {
    let plan = a.common.plan(Task::Eco { keep: a.keep }, a.strict);
    if let Some(s) = a.shard.resolve()? {
        return run_shard(&a, plan, s);
    }
    let ins = a.files.input_paths();
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
    print_summary(&mut err, &summary_json(&stats), a.json)?;
    Ok(status(&stats, false))
}

/// Shard `s` of `pgn eco`: the games of its part of the one input,
/// numbered and located as in the whole, every byte from its first game
/// to the next part's written to its part, with its manifest.
fn run_shard(a: &EcoArgs, plan: Plan, s: Shard) -> anyhow::Result<Status> {
    if a.strict {
        return Err(output::usage(
            "--strict with --shard: a shard cannot stop at an error in another's part",
        ));
    }
    let ShardStart {
        input,
        mut job,
        span,
    } = start_shard(&a.files, s, &a.shard, "pgn eco")?;
    let mut out = Output::create(job.part_path(), &[input.as_path()], a.files.in_place)?;
    let (stats, _) = run_inputs(
        plan,
        std::slice::from_ref(input),
        Some(span),
        &mut out,
        &mut std::io::stderr(),
        false,
        &mut |done| job.progress(done),
    )?;
    out.commit()?;
    let summary = summary_json(&stats);
    job.finish(serde_json::json!({
        "summary": summary,
        "missing_files": stats.missing_files,
        "json": a.json,
    }))?;
    print_summary(&mut std::io::stderr().lock(), &summary, a.json)?;
    Ok(status(&stats, false))
}

/// The numbers of a run's summary (what `--json` prints).
fn summary_json(s: &Stats) -> serde_json::Value {
    let t = &s.tagged;
    serde_json::json!({
        "games": s.games,
        "named": t.named,
        "kept": t.kept,
        "unnamed": t.unnamed,
        "errors": s.error_games,
        "warnings": s.warnings,
        "eco": s.eco,
    })
}

/// Prints a run's summary ([`summary_json`]'s numbers): as one JSON object
/// with `json`, else in words.
fn print_summary(out: &mut dyn Write, v: &serde_json::Value, json: bool) -> std::io::Result<()> {
    if json {
        return writeln!(out, "{v}");
    }
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    writeln!(
        out,
        "{} games: {} named, {} kept (--keep), {} in no named position, {} with errors (copied as they are)",
        n("games"),
        n("named"),
        n("kept"),
        n("unnamed"),
        n("errors")
    )
}

/// `rookery merge` of `pgn eco`: the summary one run prints, from the
/// shards' ([`run_shard`]); its exit status.
///
/// # Errors
/// Writing stderr.
pub fn merged_summary(summaries: &[serde_json::Value]) -> anyhow::Result<Status> {
    let mut all = serde_json::Map::new();
    // (Sorted by code, as a run's are.)
    let mut eco = std::collections::BTreeMap::<String, u64>::new();
    let mut missing = 0;
    for s in summaries {
        let part = &s["summary"];
        for k in ["games", "named", "kept", "unnamed", "errors", "warnings"] {
            let sum = all.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0)
                + part[k].as_u64().unwrap_or(0);
            all.insert(k.to_owned(), sum.into());
        }
        for (code, n) in part["eco"].as_object().into_iter().flatten() {
            *eco.entry(code.clone()).or_default() += n.as_u64().unwrap_or(0);
        }
        missing += s["missing_files"].as_u64().unwrap_or(0);
    }
    all.insert("eco".to_owned(), serde_json::json!(eco));
    let all = serde_json::Value::Object(all);
    let json = summaries.iter().any(|s| s["json"].as_bool() == Some(true));
    print_summary(&mut std::io::stderr().lock(), &all, json)?;
    let errors = all["errors"].as_u64().unwrap_or(0);
    Ok(if errors > 0 || missing > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    })
}
