//! `rookery pgn annotate`: every move of every game judged by an engine,
//! written as PGN (and, with `--html`, as one page). The work is done by
//! `rookery_analysis::annotate`; this parses flags, builds the plan, prints.

use crate::cmd::engines::EngineArgs;
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
    let input = output::open(&a.input)?;
    // Resume from the most recent output: an interrupted run's partial file,
    // else the finished output; its complete games are kept, and the new
    // output replaces the target only when this run finishes.
    let existing = if a.resume {
        if output::is_std(&a.output) {
            return Err(output::usage("--resume needs an output file (-o FILE)"));
        }
        let mut sources = output::resume_sources(&a.output)?;
        let mut data = Vec::new();
        if let Some(src) = sources.first_mut() {
            std::io::Read::read_to_end(src, &mut data)
                .with_context(|| format!("cannot read {}", a.output.display()))?;
        }
        Some(data)
    } else {
        None
    };
    let mut out = output::Output::create(&a.output, &[&a.input], false)?;
    if let Some(existing) = &existing {
        let (games, keep) = resume_point(existing);
        plan.skip_games = games;
        out.write_all(&existing[..keep as usize])?;
        eprintln!(
            "{}: resuming after {games} game(s) already written",
            a.output.display()
        );
    }
    let analysts = a.engine.start()?;
    let engine_name = analysts.first().map_or_else(String::new, |e| e.name());
    let total = count_games(&a.input);
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
    let summary = annotate_stream(input, &mut out, analysts, &plan, |t| {
        bar.set_position(t.games);
    })
    .with_context(|| format!("annotating {}", a.input.display()))?;
    bar.finish_and_clear();
    out.commit()?;
    if a.resume {
        output::resume_done(&a.output);
    }
    let file = if a.input.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        a.input.display().to_string()
    };
    let mut errors = false;
    for p in &summary.problems {
        errors |= p.error;
        let sev = if p.error { "error" } else { "warning" };
        eprintln!("{file}:{}:{}: {sev}: {}", p.line, p.col, p.message);
    }
    eprintln!(
        "{file}: {} games, {} annotated, {} skipped (already written), {} unreadable (copied), {} engine failures (written unannotated), {} positions searched",
        summary.games,
        summary.annotated,
        summary.skipped,
        summary.unreadable,
        summary.engine_failures,
        summary.searched
    );
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
