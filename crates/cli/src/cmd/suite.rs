//! `rookery suite`: run test suites with an engine, score them, report.

use crate::cmd::engines::EngineArgs;
use crate::cmd::progress;
use crate::output::{self, usage, Output, Status};
use rookery_report::Report;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Flags of `rookery suite`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "With no FILE, runs the bundled Win At Chess suite (300 positions) with the built-in engine \
at 100 ms per position. Records with bm, am, dm, `bm #N` (mate in N) or `bm #-N` (mated in N: any move \
is right) or STS points in c0 are scored; records with none of them are listed as not scored.\n\n\
Examples:\n  rookery suite\n  rookery suite wac.epd --engine /usr/games/stockfish --movetime 200 --jobs 2\n  \
rookery suite sts1.epd sts2.epd --depth 8 --results sts.json --html sts.html\n  \
rookery suite big.epd --epd-out big.out.epd --resume"
)]
pub struct Args {
    /// EPD suites (bm, am, dm or STS c0 points); `-` reads stdin.
    files: Vec<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Where to write the HTML report (`-`: stdout).
    #[arg(long, default_value = "report.html", value_name = "FILE")]
    html: PathBuf,
    /// Do not write the HTML report.
    #[arg(long)]
    no_html: bool,
    /// Write the results (for `rookery report`) as JSON to FILE (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
    /// Write the analysed records (pm, pv, ce, acn, acs, Tsol, Nsol) as EPD to FILE.
    #[arg(long, value_name = "FILE")]
    epd_out: Option<PathBuf>,
    /// Continue an interrupted run (needs --epd-out FILE): records that file
    /// (or the partial file of a killed run) already holds for the same
    /// position and id are scored from it, not analysed again.
    #[arg(long)]
    resume: bool,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    let limits = args.engine.limits(100)?;
    let to_stdout = [
        Some(args.html.as_path()).filter(|_| !args.no_html),
        args.results.as_deref(),
        args.epd_out.as_deref(),
    ]
    .into_iter()
    .flatten()
    .filter(|p| output::is_std(p))
    .count();
    if to_stdout > 1 {
        return Err(usage(
            "only one of --html, --results and --epd-out can be `-` (stdout)",
        ));
    }
    if args.resume && args.epd_out.as_deref().is_none_or(output::is_std) {
        return Err(usage("--resume needs --epd-out FILE"));
    }
    let inputs: Vec<&Path> = args.files.iter().map(PathBuf::as_path).collect();
    let outputs: Vec<(&str, &Path)> = [
        (
            "--html",
            Some(args.html.as_path()).filter(|_| !args.no_html),
        ),
        ("--results", args.results.as_deref()),
        ("--epd-out", args.epd_out.as_deref()),
    ]
    .into_iter()
    .filter_map(|(flag, p)| Some((flag, p?)))
    .collect();
    output::check_outputs(&outputs, &inputs)?;
    let mut runs = Vec::new();
    let mut problems = 0usize;
    let sources: Vec<(String, Option<PathBuf>)> = if args.files.is_empty() {
        vec![("wac".to_string(), None)]
    } else {
        args.files
            .iter()
            .map(|p| {
                let name = if output::is_std(p) {
                    "stdin".to_string()
                } else {
                    p.file_stem()
                        .map_or_else(|| "stdin".to_string(), |s| s.to_string_lossy().into_owned())
                };
                (name, Some(p.clone()))
            })
            .collect()
    };
    // Engines before any output: an engine that cannot start changes nothing.
    let mut analysts = Some(args.engine.start()?);
    let mut previous = match &args.epd_out {
        Some(p) if args.resume => output::resume_sources(p)?,
        _ => Vec::new(),
    };
    let mut epd_out = match &args.epd_out {
        Some(p) => Some(Output::create(p, &inputs, false)?),
        None => None,
    };
    for (name, path) in &sources {
        let shown = path
            .as_ref()
            .map_or_else(|| "(bundled wac)".to_string(), |p| output::display_name(p));
        let (input, total): (Box<dyn BufRead + Send>, Option<u64>) = match path {
            None => (
                Box::new(rookery_analysis::bundled::WAC.as_bytes()),
                Some(rookery_analysis::bundled::WAC.lines().count() as u64),
            ),
            Some(p) => match output::open_input(p) {
                Ok(r) => (r, progress::count_lines(p)),
                Err(e) => {
                    // A missing suite is reported; the others still run.
                    eprintln!("rookery: error: {}", output::error_text(&e));
                    problems += 1;
                    continue;
                }
            },
        };
        let engines = match analysts.take() {
            Some(a) => a,
            None => args.engine.start()?,
        };
        let bar = progress::bar(&format!("{name} ({})", limits.describe()), total);
        let mut sink = std::io::sink();
        let out: &mut dyn Write = match epd_out.as_mut() {
            Some(w) => w,
            None => &mut sink,
        };
        // Earlier output is read in step with the input: it holds the
        // files in order, so the same readers go on to the next file.
        let (run, summary) =
            rookery_analysis::run_suite(name, input, out, engines, &limits, &mut previous, |t| {
                bar.set_position(t.lines_done)
            })?;
        bar.finish_and_clear();
        for p in &summary.problems {
            problems += 1;
            match p.column {
                Some(c) => eprintln!("{shown}:{}:{c}: error: {}", p.line, p.message),
                None => eprintln!("{shown}:{}: error: {}", p.line, p.message),
            }
        }
        if summary.kept > 0 {
            eprintln!(
                "{shown}: {} records scored from earlier output",
                summary.kept
            );
        }
        runs.push(run);
    }
    if let Some(w) = epd_out {
        w.commit()?;
        if let (Some(p), true) = (&args.epd_out, args.resume) {
            output::resume_done(p);
        }
    }
    if let Some(p) = &args.results {
        let json = serde_json::to_string_pretty(&runs)?;
        output::write_whole(p, (json + "\n").as_bytes())?;
    }
    let report = Report::new(runs);
    let html_to_stdout = !args.no_html && output::is_std(&args.html);
    let results_to_stdout = args.results.as_deref().is_some_and(output::is_std);
    let epd_to_stdout = args.epd_out.as_deref().is_some_and(output::is_std);
    let mut out = output::stdout();
    let mut err = std::io::stderr();
    // The summary goes to stdout unless a file was asked for there.
    let summary_out: &mut dyn Write = if html_to_stdout || results_to_stdout || epd_to_stdout {
        &mut err
    } else {
        &mut out
    };
    if args.json {
        writeln!(summary_out, "{}", report.json())?;
    } else {
        write!(summary_out, "{}", report.text())?;
    }
    if !args.no_html {
        let title = format!(
            "rookery suite report: {}",
            sources
                .iter()
                .map(|s| s.0.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let html = report.html(&title)?;
        output::write_whole(&args.html, html.as_bytes())?;
        if !args.json && !html_to_stdout {
            writeln!(summary_out, "\nHTML report: {}", args.html.display())?;
        }
    }
    summary_out.flush()?;
    out.flush()?;
    Ok(if problems > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    })
}
