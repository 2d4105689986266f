//! `rookery report`: reports from suite results (Gastric).

use crate::output::{self, usage, Status};
use rookery_report::Report;
use std::io::Read;
use std::io::Write;
use std::path::PathBuf;

/// Flags of `rookery report`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "RESULTS are JSON files written by `rookery suite --results`. Runs of the same suite \
are compared (positions only one engine solves, score differences).\n\nExample:\n  rookery report old.json new.json --html compare.html"
)]
pub struct Args {
    /// Results files (JSON, one run or an array of runs; `-` reads stdin).
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// Also write one self-contained HTML page with SVG charts to FILE (`-`: stdout, instead of the text).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Title of the HTML page.
    #[arg(long, default_value = "rookery report")]
    title: String,
    /// Print JSON (runs, totals, comparisons) instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    let html_to_stdout = args.html.as_deref().is_some_and(output::is_std);
    if html_to_stdout && args.json {
        return Err(usage("--html - and --json both want stdout"));
    }
    let mut runs = Vec::new();
    let mut bad = false;
    for p in &args.results {
        let name = output::display_name(p);
        let loaded = if output::is_std(p) {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            rookery_report::load_text(&name, &text)
        } else {
            rookery_report::load(p)
        };
        match loaded {
            Ok(r) => runs.extend(r),
            Err(e) => {
                // Reported; the other files still make the report.
                eprintln!("rookery: error: {e}");
                bad = true;
            }
        }
    }
    let report = Report::new(runs);
    let mut out = output::stdout();
    if args.json {
        writeln!(out, "{}", report.json())?;
    } else if !html_to_stdout {
        write!(out, "{}", report.text())?;
    }
    out.flush()?;
    if let Some(path) = &args.html {
        let html = report.html(&args.title)?;
        output::write_whole(path, html.as_bytes())?;
    }
    Ok(if bad { Status::InputErrors } else { Status::Ok })
}
