//! The streaming verbs (`validate`, `normalize`, `to-epd`, `stats`,
//! `from-epd`, and `eco` and `tree` on the same pipeline): each input
//! opened and read through one [`Source`], its parts handed on in input
//! order, a shard's part read alone, the output committed or abandoned.

use super::reading::{print_diag, progress, read_failure, start_shard, ShardStart};
use crate::cmd::shard::ShardArgs;
use crate::flags::Files;
use crate::output::{display_name, Output, Status};
use rookery_pgn::source::Source;
use rookery_pgn::split::Start;
use rookery_pgn::stream::{self, CutGuard, Part, Plan, Stats, Task};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub(super) struct Common {
    /// Parse with N threads. The input is cut where games start; the
    /// output is exactly that of one thread, in input order. (A file with
    /// neither tags nor result tokens has no such place and is held whole in
    /// memory.)
    #[arg(short, long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub(super) jobs: u32,
    /// Do not report warnings.
    #[arg(short, long)]
    pub(super) quiet: bool,
    /// Bytes per chunk with --jobs (for tests).
    #[arg(long, hide = true, default_value_t = 1 << 20)]
    pub(super) chunk_bytes: usize,
}

impl Common {
    /// The plan for `task` with these flags.
    pub(super) fn plan(&self, task: Task, strict: bool) -> Plan {
        Plan {
            task,
            strict,
            quiet: self.quiet,
            jobs: self.jobs as usize,
            chunk_bytes: self.chunk_bytes,
            classify: false,
        }
    }
}

/// Reads one input, opened, and hands each part, in order, to `sink`;
/// with `part`, only a shard's part of it: from its start to the byte it
/// ends at (see [`rookery_pgn::source::game_span`]).
pub(super) fn process_file(
    plan: &Plan,
    path: &Path,
    input: rookery_io::input::Input,
    part: Option<(Start, Option<u64>)>,
    sink: &mut dyn FnMut(Part) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let file = display_name(path);
    let pb = progress(path);
    // Progress in bytes of the file: those of the text, or for a
    // compressed file those its decompressor has read.
    // A compressed file also says how much text it gave (a file that
    // expands a thousandfold moves its bar slowly, never stops).
    let compressed = input.compressed_progress();
    let mut progress = |bytes: u64| {
        if let Some(pb) = &pb {
            match &compressed {
                Some(c) => {
                    pb.set_position(c.load(std::sync::atomic::Ordering::Relaxed));
                    pb.set_message(format!("{file} ({} of text)", indicatif::HumanBytes(bytes)));
                }
                None => pb.set_position(bytes),
            }
        }
    };
    let name = file.clone();
    let mut source =
        Source::input(input).on_latin1(move |line| crate::input::warn_latin1(&name, line));
    if let Some((start, end)) = part {
        source = source.part(start, end);
    }
    let done = stream::run(plan, source, &file, &mut progress, sink);
    done.map_err(|e| read_failure(e, &file))?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok(())
}

/// Runs `plan` over `inputs`, writing text output to `out` and diagnostics to
/// `diag_out`; returns the merged stats.
pub(super) fn run_plan(
    plan: Plan,
    inputs: &[PathBuf],
    out: &mut dyn Write,
    diag_out: &mut dyn Write,
    json_diags: bool,
) -> anyhow::Result<Stats> {
    let (stats, _) = run_inputs(plan, inputs, None, out, diag_out, json_diags, &mut |_| {})?;
    Ok(stats)
}

/// [`run_plan`], of a shard's part of each input with `part` (see
/// [`process_file`]); `done` hears the games read so far. Also says
/// whether the run stopped at an error (strict).
pub(super) fn run_inputs(
    plan: Plan,
    inputs: &[PathBuf],
    part: Option<(Start, Option<u64>)>,
    out: &mut dyn Write,
    diag_out: &mut dyn Write,
    json_diags: bool,
    done: &mut dyn FnMut(u64),
) -> anyhow::Result<(Stats, bool)> {
    let mut total = Stats::default();
    let mut stopped = false;
    for path in inputs {
        let file = display_name(path);
        // An input that cannot be read (missing, UTF-16, compressed in a
        // format rookery does not read) is reported; the others still are.
        let input = match rookery_io::input::Input::open(path) {
            Ok(input) => input,
            Err(refused) => {
                out.flush()?;
                diag_out.flush()?;
                eprintln!("rookery: error: {refused}");
                total.missing_files += 1;
                continue;
            }
        };
        let damage = input.damage();
        let mut hand_on = |part: Part| -> anyhow::Result<()> {
            out.write_all(&part.text)?;
            for d in &part.diags {
                print_diag(diag_out, &file, d, json_diags)?;
            }
            stopped |= part.stopped;
            total.merge(part.stats);
            done(total.games);
            Ok(())
        };
        // A last game cut short by damage is an error, not written whole.
        let mut guard = CutGuard::default();
        process_file(&plan, path, input, part, &mut |part: Part| {
            guard.push(part).into_iter().try_for_each(&mut hand_on)
        })?;
        let damaged = damage.take();
        guard
            .finish(damaged.is_some())
            .into_iter()
            .try_for_each(&mut hand_on)?;
        if let Some(e) = damaged {
            // Compressed data damaged: the games before the damage were
            // read and handled; the damage is told after them, and the
            // next input is read.
            out.flush()?;
            diag_out.flush()?;
            eprintln!("rookery: error: {e}");
            total.missing_files += 1;
        }
        if stopped {
            break;
        }
    }
    out.flush()?;
    diag_out.flush()?;
    Ok((total, stopped))
}

/// Runs `plan` over the inputs, writing to `out_path` (diagnostics to
/// stderr). A run that stopped at an error (strict), or that would leave
/// out a game with an error from a file it rewrites in place, leaves the
/// file as it was.
pub(super) fn write_plan(plan: Plan, files: &Files) -> anyhow::Result<Status> {
    let ins = files.input_paths();
    let mut out = Output::create(&files.output, &ins, files.in_place)?;
    let (stats, stopped) = run_inputs(
        plan,
        &files.inputs,
        None,
        &mut out,
        &mut std::io::stderr(),
        false,
        &mut |_| {},
    )?;
    if stopped {
        out.abandon("the run stopped at the first game with an error")?;
    } else if stats.error_games > 0 && files.in_place {
        out.abandon(format!(
            "rewritten in place it would lose its games with errors ({})",
            stats.error_games
        ))?;
    } else {
        out.commit()?;
    }
    Ok(status(&stats, false))
}

/// [`write_plan`] for shard `s` of the job: the games of its part,
/// numbered and located as in the whole input, written to its part file.
/// (One thread: `--jobs` splits a stream, a shard reads its part of one.)
pub(super) fn write_shard(
    plan: Plan,
    files: &Files,
    s: rookery_io::shard::Shard,
    flags: &ShardArgs,
    verb: &str,
) -> anyhow::Result<Status> {
    use rookery_pgn::game::GameBuilder;
    let ShardStart { input, mut job, .. } = start_shard(files, s, flags, verb)?;
    let file = display_name(input);
    // The text as every PGN verb reads it (Latin-1 lines decoded, told).
    let text = || -> anyhow::Result<_> {
        let raw = crate::input::open_input_raw(input)?;
        let name = file.clone();
        Ok(rookery_io::latin1::Latin1Read::new(raw, move |line| {
            crate::input::warn_latin1(&name, line)
        }))
    };
    let range = job.range();
    let mut out = Output::create(job.part_path(), &[input.as_path()], files.in_place)?;
    let mut err = std::io::stderr();
    let mut stats = Stats::default();
    let mut reader = rookery_pgn::reader::Reader::new(text()?);
    let mut builder = GameBuilder::new().with_detail(plan.task.detail());
    let mut part = Part::default();
    let mut flush = |part: Part, stats: &mut Stats| -> anyhow::Result<()> {
        out.write_all(&part.text)?;
        for d in &part.diags {
            print_diag(&mut err, &file, d, false)?;
        }
        stats.merge(part.stats);
        Ok(())
    };
    while let Some(g) = reader
        .read_game(&mut builder)
        .map_err(|e| anyhow::Error::new(e).context(format!("cannot read {file}")))?
    {
        // Games are numbered from 1; the part is of items from 0.
        let i = g.index as u64 - 1;
        if i >= range.end {
            // (An empty part.)
            break;
        }
        if i < range.start {
            // A strict run stops at the first error: one before the part
            // leaves the part empty.
            if plan.strict && g.error.is_some() {
                break;
            }
            builder.recycle(g);
            continue;
        }
        stream::handle(&plan, &file, &g, &mut part);
        builder.recycle(g);
        job.progress(i + 1 - range.start);
        let last = i + 1 >= range.end;
        if part.is_full() || last {
            let stopped = part.stopped;
            let next = Part::default();
            flush(std::mem::replace(&mut part, next), &mut stats)?;
            if stopped || last {
                break;
            }
        }
    }
    flush(part, &mut stats)?;
    out.commit()?;
    job.finish(serde_json::json!({
        "games": stats.games,
        "errors": stats.error_games,
        "warnings": stats.warnings,
    }))?;
    Ok(status(&stats, false))
}

pub(super) fn status(stats: &Stats, strict_warnings: bool) -> Status {
    if stats.input_errors(strict_warnings) {
        Status::InputErrors
    } else {
        Status::Ok
    }
}

pub(super) fn print_stats(out: &mut dyn Write, s: &Stats, json: bool) -> std::io::Result<()> {
    let results = [("1-0", 0), ("0-1", 1), ("1/2-1/2", 2), ("*", 3)];
    if json {
        let mut res = serde_json::Map::new();
        for (name, i) in results {
            res.insert(name.to_owned(), s.results[i].into());
        }
        let longest = s.longest.as_ref().map(|l| {
            serde_json::json!({"plies": l.plies, "game": l.game, "file": l.file, "white": l.white, "black": l.black})
        });
        let v = serde_json::json!({
            "games": s.games,
            "moves": s.moves,
            "results": res,
            "errors": s.error_games,
            "warnings": s.warnings,
            "longest": longest,
            "eco": s.eco,
        });
        return writeln!(out, "{v}");
    }
    writeln!(out, "games     {}", s.games)?;
    writeln!(out, "moves     {} (mainline plies)", s.moves)?;
    let r: Vec<String> = results
        .iter()
        .map(|(n, i)| format!("{n} {}", s.results[*i]))
        .collect();
    writeln!(out, "results   {}", r.join(", "))?;
    writeln!(out, "errors    {} games (reported, skipped)", s.error_games)?;
    writeln!(out, "warnings  {}", s.warnings)?;
    match &s.longest {
        Some(l) => writeln!(
            out,
            "longest   {} plies: game {} of {} ({} - {})",
            l.plies, l.game, l.file, l.white, l.black
        )?,
        None => writeln!(out, "longest   -")?,
    }
    let letters: Vec<String> = s
        .eco_by_letter()
        .iter()
        .map(|(l, n)| format!("{l} {n}"))
        .collect();
    if letters.is_empty() {
        writeln!(out, "ECO       -")?;
    } else {
        writeln!(out, "ECO       {}", letters.join(", "))?;
    }
    let top: Vec<String> = s
        .top_eco(10)
        .iter()
        .map(|(c, n)| format!("{c} {n}"))
        .collect();
    if !top.is_empty() {
        writeln!(out, "top ECO   {}", top.join(", "))?;
    }
    Ok(())
}

pub(super) fn from_epd(input: &Path, output_path: &Path, in_place: bool) -> anyhow::Result<Status> {
    let inp = crate::input::open_input(input)?;
    let mut out = Output::create(output_path, &[input], in_place)?;
    let file = display_name(input);
    let unread = stream::epd_to_pgn(inp, &mut out, |d| eprintln!("{file}:{d}"))?;
    out.commit()?;
    Ok(if unread > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    })
}
