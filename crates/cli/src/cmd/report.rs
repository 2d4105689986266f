//! `rookery report`: reports from suite results (Gastric).

use crate::output::{self, Status};
use anyhow::Context;
use rookery_report::Report;
use std::io::Write;
use std::path::PathBuf;

/// Flags of `rookery report`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "RESULTS are JSON files written by `rookery suite --results`. Runs of the same suite \
are compared (positions only one engine solves, score differences).\n\nExample:\n  rookery report old.json new.json --html compare.html"
)]
pub struct Args {
    /// Results files (JSON, one run or an array of runs).
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// Also write one self-contained HTML page with SVG charts to FILE.
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
    let mut runs = Vec::new();
    for p in &args.results {
        runs.extend(rookery_report::load(p)?);
    }
    let report = Report::new(runs);
    let mut out = output::stdout();
    if args.json {
        writeln!(out, "{}", report.json())?;
    } else {
        write!(out, "{}", report.text())?;
    }
    if let Some(path) = &args.html {
        let html = report.html(&args.title)?;
        std::fs::write(path, html).with_context(|| format!("cannot write {}", path.display()))?;
    }
    out.flush()?;
    Ok(Status::Ok)
}
