//! `rookery pgn annotate`: every move of every game judged by an engine,
//! written as PGN (and, with `--html`, as one page). The work is done by
//! `rookery_analysis::annotate`; this parses flags, builds the plan, prints.

use crate::cmd::engines::EngineArgs;
use crate::cmd::shard::{self, Job, ShardArgs};
use crate::output::{self, Status};
use anyhow::Context;
use rookery_analysis::annotate::{annotate_stream, resume_point, AnnotateOptions, AnnotateRun};
use rookery_report::game_model::GamePage;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Flags of `rookery pgn annotate`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Each mainline position is searched once; every mainline move gets \
[%eval ...] (White's view: pawns, or #N / #-N for a mate) in its comment; inaccuracies, mistakes \
and blunders get ?!, ?, ?? by the drop in the mover's winning chances (5, 10, 15 points; the \
logistic curve lichess publishes); at mistakes and blunders the engine's better line is added as a \
variation. Per player: ACPL, accuracy and counts as tags ([WhiteACPL \"23\"] ...) and one summary \
comment before the first move. Existing tags, comments, NAGs and variations are kept. A game that \
cannot be read is reported and copied unchanged; a game the engine fails on is reported and written \
unannotated. Default effort: 300 ms per position.\n\nExamples:\n  rookery pgn annotate games.pgn -o \
annotated.pgn --engine /usr/games/stockfish --depth 14 --jobs 2 --html games.html\n  rookery pgn \
annotate mygame.pgn --movetime 500 --book-plies 10"
)]
pub struct AnnotateArgs {
    /// Input PGN file (`-` for stdin).
    input: PathBuf,
    /// Output PGN file (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    /// Continue an interrupted run: the games already in the output file are
    /// kept (the last one, possibly cut short, is done again) (needs -o FILE).
    #[arg(long)]
    resume: bool,
    /// Leave the first N plies of each game unjudged (evaluated, no signs).
    #[arg(long, value_name = "N", default_value_t = 0)]
    book_plies: u32,
    /// Lines the engine reports per position; the further ones are added
    /// as variations too at mistakes and blunders.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    multipv: u32,
    /// Also write one self-contained HTML page: evaluation graphs, the moves
    /// with signs and evaluations, better lines, diagrams at the blunders
    /// (with --resume: the games annotated in this run).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    shard: ShardArgs,
}

/// Counts the games of a file cheaply (lines starting `[Event `), for the
/// progress bar; `None` for stdin.
fn count_games(path: &Path) -> Option<u64> {
    use std::io::BufRead;
    if path.as_os_str() == "-" {
        return None;
    }
    // The text, decompressed if the file is compressed.
    let f = std::io::BufReader::new(rookery_io::input::Input::open(path).ok()?);
    let mut n = 0;
    for line in f.split(b'\n') {
        if line.ok()?.starts_with(b"[Event ") {
            n += 1;
        }
    }
    Some(n)
}

/// Runs the verb.
pub fn run(a: AnnotateArgs) -> anyhow::Result<Status> {
    if let Some(html) = &a.html {
        // (-o itself is checked against the input as it is created.)
        output::check_outputs(&[("-o", &a.output), ("--html", html)], &[&a.input])?;
    }
    let mut limits = a.engine.limits(300)?;
    limits.multipv = Some(a.multipv);
    let mut plan = AnnotateRun {
        options: AnnotateOptions {
            limits,
            book_plies: a.book_plies,
            ..AnnotateOptions::default()
        },
        skip_games: 0,
        page: a.html.is_some(),
    };
    let mut job = match a.shard.resolve()? {
        Some(s) => {
            shard::check_paths(&a.input, &a.output)?;
            if a.html.is_some() {
                return Err(output::usage(
                    "--html with --shard: not yet; merge the shards' PGN, then annotate has the games",
                ));
            }
            let (total, _) = rookery_pgn::source::count_games(crate::input::open(&a.input)?, None)?;
            Some(Job::start(
                s,
                &a.shard,
                "pgn annotate",
                &a.input,
                &a.output,
                "games",
                total,
            )?)
        }
        None => None,
    };
    let target = job
        .as_ref()
        .map_or(a.output.clone(), |j| j.part_path().to_path_buf());
    let mut input = crate::input::open(&a.input)?;
    if let Some(j) = &job {
        // The games before the part are read and skipped (their numbers
        // and lines count); the input ends where the part's last game does.
        plan.skip_games = j.range().start as usize;
        let (_, end) =
            rookery_pgn::source::count_games(crate::input::open(&a.input)?, Some(j.range().end))?;
        if let Some(end) = end {
            input = Box::new(std::io::BufReader::new(std::io::Read::take(input, end)));
        }
    }
    // Resume from the most recent output: an interrupted run's partial file,
    // else the finished output; its complete games are kept, and the new
    // output replaces the target only when this run finishes.
    let existing = if a.resume {
        if output::is_std(&a.output) {
            return Err(output::usage("--resume needs an output file (-o FILE)"));
        }
        let mut sources = output::resume_sources(&target)?;
        let mut data = Vec::new();
        if let Some(src) = sources.first_mut() {
            std::io::Read::read_to_end(src, &mut data)
                .with_context(|| format!("cannot read {}", a.output.display()))?;
        }
        Some(data)
    } else {
        None
    };
    let mut out = output::Output::create(&target, &[&a.input], false)?;
    if let Some(existing) = &existing {
        let (games, keep) = resume_point(existing);
        plan.skip_games += games;
        if let Some(j) = &mut job {
            j.resumed_at(games as u64);
        }
        out.write_all(&existing[..keep as usize])?;
        eprintln!(
            "{}: resuming after {games} game(s) already written",
            a.output.display()
        );
    }
    let analysts = a.engine.start()?;
    let engine_name = analysts.first().map_or_else(String::new, |e| e.name());
    let total = match &job {
        Some(j) => Some(j.range().end - j.range().start),
        None => count_games(&a.input),
    };
    let before = job.as_ref().map_or(0, |j| j.range().start);
    let bar = crate::cmd::progress::bar(
        &format!("{} ({})", a.input.display(), plan.options.limits.describe()),
        total,
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(if total.is_some() {
        "{msg} [{bar:30}] {pos}/{len} games {per_sec} {elapsed} ETA {eta}"
    } else {
        "{msg} {spinner} {pos} games {per_sec} {elapsed}"
    }) {
        bar.set_style(style.progress_chars("=> "));
    }
    let mut summary = annotate_stream(input, &mut out, analysts, &plan, |t| {
        let done = t.games.saturating_sub(before);
        bar.set_position(done);
        if let Some(j) = &mut job {
            j.progress(done);
        }
    })
    .with_context(|| format!("annotating {}", a.input.display()))?;
    bar.finish_and_clear();
    out.commit()?;
    if a.resume {
        output::resume_done(&target);
    }
    // A shard's games before its part were read and skipped, not its.
    summary.games -= before.min(summary.games);
    summary.skipped -= before.min(summary.skipped);
    let file = if a.input.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        a.input.display().to_string()
    };
    let counts = counts_json(&summary);
    if let Some(j) = job {
        j.finish(counts.clone())?;
    }
    let errors = print_report(&file, &counts);
    if let Some(path) = &a.html {
        let title = format!(
            "{}: annotated games",
            a.input
                .file_name()
                .map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned())
        );
        let page = GamePage {
            title,
            engine: engine_name,
            limits: plan.options.limits.describe(),
            games: summary.page,
        };
        let html = rookery_report::game_page::render(&page)?;
        output::write_whole(path, html.as_bytes())?;
    }
    Ok(if errors {
        Status::InputErrors
    } else {
        Status::Ok
    })
}

/// The numbers the end of a run prints, as a shard's manifest keeps them.
fn counts_json(s: &rookery_analysis::annotate::AnnotateSummary) -> serde_json::Value {
    let problems: Vec<_> = s
        .problems
        .iter()
        .map(|p| {
            serde_json::json!({"line": p.line, "col": p.col, "error": p.error, "message": p.message})
        })
        .collect();
    serde_json::json!({
        "games": s.games,
        "annotated": s.annotated,
        "skipped": s.skipped,
        "unreadable": s.unreadable,
        "engine_failures": s.engine_failures,
        "searched": s.searched,
        "problems": problems,
    })
}

/// Prints the problems and the counts of a run (of `counts_json`'s
/// form); whether there was an error.
fn print_report(file: &str, counts: &serde_json::Value) -> bool {
    let mut errors = false;
    for p in counts["problems"].as_array().into_iter().flatten() {
        let error = p["error"].as_bool().unwrap_or(false);
        errors |= error;
        let sev = if error { "error" } else { "warning" };
        eprintln!(
            "{file}:{}:{}: {sev}: {}",
            p["line"],
            p["col"],
            p["message"].as_str().unwrap_or("")
        );
    }
    let n = |k: &str| counts[k].as_u64().unwrap_or(0);
    eprintln!(
        "{file}: {} games, {} annotated, {} skipped (already written), {} unreadable (copied), {} engine failures (written unannotated), {} positions searched",
        n("games"),
        n("annotated"),
        n("skipped"),
        n("unreadable"),
        n("engine_failures"),
        n("searched")
    );
    errors
}

/// Prints what one run prints at its end, from its shards' summaries (in
/// shard order); its exit status.
pub fn merged_report(file: &str, summaries: &[serde_json::Value]) -> Status {
    let mut all = serde_json::json!({});
    let mut problems = Vec::new();
    for s in summaries {
        for k in [
            "games",
            "annotated",
            "skipped",
            "unreadable",
            "engine_failures",
            "searched",
        ] {
            let sum = all[k].as_u64().unwrap_or(0) + s[k].as_u64().unwrap_or(0);
            all[k] = sum.into();
        }
        problems.extend(s["problems"].as_array().into_iter().flatten().cloned());
    }
    all["problems"] = problems.into();
    if print_report(file, &all) {
        Status::InputErrors
    } else {
        Status::Ok
    }
}
