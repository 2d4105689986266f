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
    let f = std::io::BufReader::new(std::fs::File::open(path).ok()?);
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
    let mut limits = a.engine.limits(300);
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
    let input =
        output::open(&a.input).with_context(|| format!("cannot open {}", a.input.display()))?;
    let mut out: Box<dyn Write> = if a.resume {
        if a.output.as_os_str() == "-" {
            anyhow::bail!("--resume needs an output file (-o FILE)");
        }
        let existing = match std::fs::read(&a.output) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", a.output.display())),
        };
        let (games, keep) = resume_point(&existing);
        plan.skip_games = games;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&a.output)
            .with_context(|| format!("cannot append to {}", a.output.display()))?;
        f.set_len(keep)?;
        eprintln!(
            "{}: resuming after {games} game(s) already written",
            a.output.display()
        );
        Box::new(std::io::BufWriter::new(f))
    } else {
        output::create(&a.output).with_context(|| format!("cannot write {}", a.output.display()))?
    };
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
    out.flush()?;
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
        let mut w =
            output::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        w.write_all(html.as_bytes())?;
        w.flush()?;
    }
    Ok(if errors {
        Status::InputErrors
    } else {
        Status::Ok
    })
}
