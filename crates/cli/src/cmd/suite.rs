//! `rookery suite`: run test suites with an engine, score them, report.

use crate::cmd::engines::EngineArgs;
use crate::cmd::progress;
use crate::output::{self, Status};
use anyhow::Context;
use rookery_report::Report;
use std::io::Write;
use std::path::PathBuf;

/// Flags of `rookery suite`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "With no FILE, runs the bundled Win At Chess suite (300 positions) with the built-in engine \
at 100 ms per position.\n\nExamples:\n  rookery suite\n  rookery suite wac.epd --engine /usr/games/stockfish --movetime 200 --jobs 2\n  rookery suite sts1.epd sts2.epd --depth 8 --results sts.json --html sts.html"
)]
pub struct Args {
    /// EPD suites (bm, am, dm or STS c0 points); `-` reads stdin.
    files: Vec<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Where to write the HTML report.
    #[arg(long, default_value = "report.html", value_name = "FILE")]
    html: PathBuf,
    /// Do not write the HTML report.
    #[arg(long)]
    no_html: bool,
    /// Write the results (for `rookery report`) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
    /// Write the analysed records (pm, pv, acn, acs, Tsol, Nsol) as EPD to FILE.
    #[arg(long, value_name = "FILE")]
    epd_out: Option<PathBuf>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    let limits = args.engine.limits(100);
    let mut runs = Vec::new();
    let mut problems = 0usize;
    let sources: Vec<(String, Option<PathBuf>)> = if args.files.is_empty() {
        vec![("wac".to_string(), None)]
    } else {
        args.files
            .iter()
            .map(|p| {
                let name = p
                    .file_stem()
                    .map_or_else(|| "stdin".to_string(), |s| s.to_string_lossy().into_owned());
                (name, Some(p.clone()))
            })
            .collect()
    };
    let mut epd_out = match &args.epd_out {
        Some(p) => {
            Some(output::create(p).with_context(|| format!("cannot write {}", p.display()))?)
        }
        None => None,
    };
    for (name, path) in &sources {
        let (input, total): (Box<dyn std::io::BufRead + Send>, Option<u64>) = match path {
            None => (
                Box::new(rookery_analysis::bundled::WAC.as_bytes()),
                Some(rookery_analysis::bundled::WAC.lines().count() as u64),
            ),
            Some(p) if p.as_os_str() == "-" => {
                (Box::new(std::io::BufReader::new(std::io::stdin())), None)
            }
            Some(p) => (
                output::open(p).with_context(|| format!("cannot read {}", p.display()))?,
                progress::count_lines(p),
            ),
        };
        let analysts = args.engine.start()?;
        let bar = progress::bar(&format!("{name} ({})", limits.describe()), total);
        let mut sink = std::io::sink();
        let out: &mut dyn Write = match epd_out.as_mut() {
            Some(w) => w.as_mut(),
            None => &mut sink,
        };
        let (run, summary) =
            rookery_analysis::run_suite(name, input, out, analysts, &limits, |t| {
                bar.set_position(t.lines_done)
            })?;
        bar.finish_and_clear();
        let shown = path
            .as_ref()
            .map_or_else(|| "(bundled wac)".to_string(), |p| p.display().to_string());
        for p in &summary.problems {
            problems += 1;
            match p.column {
                Some(c) => eprintln!("{shown}:{}:{c}: error: {}", p.line, p.message),
                None => eprintln!("{shown}:{}: error: {}", p.line, p.message),
            }
        }
        runs.push(run);
    }
    if let Some(w) = epd_out.as_mut() {
        w.flush()?;
    }
    if let Some(p) = &args.results {
        let json = serde_json::to_string_pretty(&runs)?;
        std::fs::write(p, json + "\n").with_context(|| format!("cannot write {}", p.display()))?;
    }
    let report = Report::new(runs);
    let mut out = output::stdout();
    if args.json {
        writeln!(out, "{}", report.json())?;
    } else {
        write!(out, "{}", report.text())?;
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
        std::fs::write(&args.html, html)
            .with_context(|| format!("cannot write {}", args.html.display()))?;
        if !args.json {
            writeln!(out, "\nHTML report: {}", args.html.display())?;
        }
    }
    out.flush()?;
    Ok(if problems > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    })
}
