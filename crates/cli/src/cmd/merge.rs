//! `rookery merge OUT`: the parts of a sharded run (`OUT.shard-K-of-N`,
//! each with its manifest) put together into OUT, byte for byte what one
//! run of the same command writes, with the summary it prints; or, with
//! `--status`, how far each shard is. The checks (all N there, done, of
//! one job) are `rookery_io::manifest`'s. Parts are concatenated, except
//! those of a verb that writes games one after another (`pgn filter`),
//! joined at their seams (`rookery_pgn::collection::Seam`).

use crate::output::{self, usage, Output, Status};
use rookery_io::manifest::{self, MergeError, Part, State};
use rookery_io::shard::Shard;
use std::io::Write;
use std::path::PathBuf;

/// Flags of `rookery merge`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Every task of a job array runs the same command with --shard K/N (or --shard auto) \
and writes OUT.shard-K-of-N and OUT.shard-K-of-N.json; the merge checks that all N parts are there, \
finished, and of the same command and input, then writes OUT (compressed if its name ends in .zst, \
.gz or .bz2) and prints the summary one run prints. Otherwise it names the parts that are missing, \
unfinished or foreign and writes nothing.\n\nExamples:\n  rookery epd analyse suite.epd -o out.epd \
--shard auto   # in each task of the array\n  rookery merge out.epd\n  rookery merge --status out.epd"
)]
pub struct Args {
    /// The output the shards were given with -o.
    output: PathBuf,
    /// List each shard, done or how far, and write nothing.
    #[arg(long)]
    status: bool,
    /// Remove the parts and their manifests once OUT is written (they are
    /// kept otherwise).
    #[arg(long)]
    clean: bool,
}

/// Runs `rookery merge`.
pub fn run(a: Args) -> anyhow::Result<Status> {
    if output::is_std(&a.output) {
        return Err(usage(
            "merge needs the output file the shards were given (-o OUT)",
        ));
    }
    if a.status {
        return status(&a);
    }
    let parts = manifest::gather(&a.output).map_err(refused)?;
    let status = match parts[0].manifest.verb.as_str() {
        // Results JSON: the parts' runs joined, not concatenated.
        crate::cmd::suite::VERB => crate::cmd::suite::merge(&a.output, &parts)?,
        // Databases: their games added to OUT, with their index.
        crate::cmd::db::IMPORT_VERB => return crate::cmd::db::merge(&a.output, &parts, a.clean),
        _ => {
            write_parts(&a.output, &parts)?;
            summary(&parts)?
        }
    };
    if a.clean {
        for p in &parts {
            let _ = std::fs::remove_file(&p.path);
            let _ = std::fs::remove_file(manifest::Manifest::path(&p.path));
        }
    }
    Ok(status)
}

/// Writes the parts to `out` as one run would have written them: one
/// after the other, or, for `pgn filter`, joined at their seams.
fn write_parts(out: &std::path::Path, parts: &[Part]) -> anyhow::Result<()> {
    let inputs: Vec<&std::path::Path> = parts.iter().map(|p| p.path.as_path()).collect();
    let mut out = Output::create(out, &inputs, false)?;
    match parts[0].manifest.verb.as_str() {
        // Games joined at their seams (a blank line between two).
        "pgn filter" => crate::cmd::pgn::copy::join_parts(parts, &mut out)?,
        _ => concatenate(parts, &mut out)?,
    }
    out.commit()?;
    Ok(())
}

/// The parts one after another, byte for byte.
fn concatenate(parts: &[Part], out: &mut dyn Write) -> anyhow::Result<()> {
    for p in parts {
        let mut f = std::fs::File::open(&p.path)?;
        std::io::copy(&mut f, out)?;
    }
    Ok(())
}

/// A refusal is a usage error (exit status 2); an unreadable directory
/// is not.
pub(crate) fn refused(e: MergeError) -> anyhow::Error {
    if e.is_refusal() {
        usage(e.to_string())
    } else {
        e.into()
    }
}

/// Prints what the unsharded verb prints at its end, from the parts'
/// summaries; its exit status.
fn summary(parts: &[Part]) -> anyhow::Result<Status> {
    let first = &parts[0].manifest;
    let summaries: Vec<serde_json::Value> =
        parts.iter().map(|p| p.manifest.summary.clone()).collect();
    Ok(match first.verb.as_str() {
        "epd analyse" | "epd target" | "epd mate" => {
            if crate::cmd::verbs::merged_report(&first.input, &summaries) {
                Status::InputErrors
            } else {
                Status::Ok
            }
        }
        "pgn annotate" => crate::cmd::annotate::merged_report(&first.input, &summaries),
        "pgn filter" => crate::cmd::pgn::copy::merged_summary(&summaries)?,
        "pgn eco" => crate::cmd::pgn::merged_eco_summary(&summaries)?,
        // epd normalize, pgn to-epd, pgn normalize: errors in any part.
        _ => errors_status(&summaries),
    })
}

/// Exit status of parts whose summaries count `errors`: 1 if any has one.
fn errors_status(summaries: &[serde_json::Value]) -> Status {
    let errors: u64 = summaries
        .iter()
        .map(|s| s["errors"].as_u64().unwrap_or(0))
        .sum();
    if errors > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    }
}

/// `--status`: each shard, done, how far, or missing.
fn status(a: &Args) -> anyhow::Result<Status> {
    let parts = manifest::find(&a.output).map_err(refused)?;
    let n = parts[0].shard.count();
    let m = &parts[0].manifest;
    let mut out = output::stdout();
    writeln!(
        out,
        "{}: {} of {} ({} {} in all), {} shards",
        a.output.display(),
        m.verb,
        m.input,
        m.total,
        m.items,
        n
    )?;
    let (mut done, mut items_done) = (0u32, 0u64);
    for i in 0..n {
        let shard = Shard::new(i, n)?;
        match parts.iter().find(|p| p.shard == shard) {
            Some(p) => {
                let pm = &p.manifest;
                let state = match pm.state {
                    State::Done => {
                        done += 1;
                        "done".to_owned()
                    }
                    State::Running => format!(
                        "running or stopped, {} remaining",
                        pm.count.saturating_sub(pm.done)
                    ),
                };
                items_done += pm.done;
                writeln!(
                    out,
                    "  {shard}: {} {}/{} {} ({state})",
                    p.path.display(),
                    pm.done,
                    pm.count,
                    pm.items
                )?;
            }
            None => writeln!(
                out,
                "  {shard}: {} missing",
                shard.part_path(&a.output).display()
            )?,
        }
    }
    writeln!(
        out,
        "{done} of {n} shards done, {items_done} of {} {} done",
        m.total, m.items
    )?;
    out.flush()?;
    Ok(Status::Ok)
}
