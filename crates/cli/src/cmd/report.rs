//! `rookery report`: Gastric (EPD spec §3.3): reports from suite results,
//! JSON of `rookery suite` or EPD written by an analysis program.

use crate::output::{self, usage, Status};
use rookery_report::{Gate, Input, Report, ThemeSource, WorseRule};
use std::io::Read;
use std::io::Write;
use std::path::PathBuf;

/// What `--fail-if-worse` counts as worse.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Worse {
    /// The last run newly loses more positions than it newly solves.
    MoreLost,
    /// As more-lost, and the exact McNemar p-value is under --alpha.
    Significant,
}

/// Flags of `rookery report`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "FILES are JSON results written by `rookery suite --results`, or EPD files an \
analysis program wrote (`rookery epd analyse|target|mate`, Crafty-style acd/acn/acs/pm/pv/ce), told \
apart by content. EPD records are scored against bm, am, dm, STS points in c0 and `bm #N`; the answer \
is pm, else the first pv move.\n\n\
Each run is compared with the run before it when both are on the same suite (same suite name, or at \
least half of the positions in common; positions matched by id, or by position without an id): newly \
solved and newly lost positions, and an exact McNemar test on them.\n\n\
Exit status: 0 ok; 1 an input had errors (each reported as file:line:col, the rest still reported), \
or a gate failed (--fail-under, --fail-if-worse); 2 usage error.\n\n\
Examples:\n  rookery report old.json new.json --html compare.html\n  \
rookery report base.epd patch.epd --fail-if-worse --csv positions.csv\n  \
rookery report sts.epd --theme id --fail-under 60"
)]
pub struct Args {
    /// Results: JSON (one run or an array of runs) or EPD; `-` reads stdin.
    #[arg(required = true, value_name = "FILE")]
    results: Vec<PathBuf>,
    /// Also write one self-contained HTML page with SVG charts to FILE (`-`: stdout, instead of the text).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Title of the HTML page.
    #[arg(long, default_value = "rookery report")]
    title: String,
    /// Print JSON (runs, totals, comparisons, themes, curves) instead of text.
    #[arg(long)]
    json: bool,
    /// Also write CSV, one row per position of every run, to FILE (`-`: stdout, instead of the text).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Themes from `id` (the id without its trailing number: "STS(v1.0) Undermine.001" is
    /// "STS(v1.0) Undermine") or from an opcode's operand, e.g. `c1` (EPD input only).
    #[arg(long, value_name = "id|OPCODE", default_value = "id")]
    theme: ThemeSource,
    /// Exit 1 when the last run solves less than PCT percent of its positions.
    #[arg(long, value_name = "PCT")]
    fail_under: Option<f64>,
    /// Exit 1 when the last run is worse than the run before it: it newly loses more positions
    /// than it newly solves (`more-lost`, the default), or so and significantly
    /// (`--fail-if-worse=significant`: exact McNemar p under --alpha).
    #[arg(
        long,
        value_enum,
        value_name = "RULE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "more-lost"
    )]
    fail_if_worse: Option<Worse>,
    /// Significance level of the McNemar verdicts.
    #[arg(long, value_name = "P", default_value_t = rookery_report::DEFAULT_ALPHA)]
    alpha: f64,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    let to_stdout = [
        args.html.as_deref().is_some_and(output::is_std),
        args.json,
        args.csv.as_deref().is_some_and(output::is_std),
    ];
    if to_stdout.iter().filter(|&&b| b).count() > 1 {
        return Err(usage(
            "only one of --html -, --csv - and --json can have stdout",
        ));
    }
    if let Some(pct) = args.fail_under {
        if !(0.0..=100.0).contains(&pct) {
            return Err(usage(format!(
                "--fail-under {pct}: expected a percentage from 0 to 100"
            )));
        }
    }
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(usage(format!(
            "--alpha {}: expected a probability between 0 and 1",
            args.alpha
        )));
    }
    if args.results.iter().filter(|p| output::is_std(p)).count() > 1 {
        return Err(usage("stdin (`-`) can be read only once"));
    }
    let outputs: Vec<(&str, &std::path::Path)> = [("--html", &args.html), ("--csv", &args.csv)]
        .into_iter()
        .filter_map(|(flag, p)| Some((flag, p.as_deref()?)))
        .collect();
    let results: Vec<&std::path::Path> = args.results.iter().map(PathBuf::as_path).collect();
    output::check_outputs(&outputs, &results)?;
    let mut inputs: Vec<Input> = Vec::new();
    let mut bad = false;
    for p in &args.results {
        let name = output::display_name(p);
        let loaded = if output::is_std(p) {
            // Decompressed if compressed; damage is told at the end.
            let mut bytes = Vec::new();
            match crate::input::open_raw(p) {
                Ok(mut stdin) => stdin.read_to_end(&mut bytes)?,
                Err(e) => {
                    eprintln!("rookery: error: {}", output::error_text(&e));
                    bad = true;
                    continue;
                }
            };
            rookery_report::load_input(&name, &bytes, &args.theme)
        } else {
            rookery_report::load_input_file(p, &args.theme)
        };
        match loaded {
            Ok(input) => {
                if let Some(line) = input.latin1_from_line {
                    crate::input::warn_latin1(&name, line);
                }
                for e in &input.problems {
                    eprintln!("rookery: error: {e}");
                    bad = true;
                }
                inputs.push(input);
            }
            Err(e) => {
                // Reported; the other files still make the report.
                eprintln!("rookery: error: {e}");
                bad = true;
            }
        }
    }
    if inputs.iter().all(|i| i.runs.is_empty()) {
        // Every input was said to be bad or empty: no page, table or CSV of
        // nothing (which would replace a file the user had).
        if !bad {
            eprintln!("rookery: error: no run to report");
        }
        return Ok(Status::InputErrors);
    }
    let report = Report::from_inputs(inputs, &args.theme, args.alpha);
    let mut out = output::stdout();
    if args.json {
        writeln!(out, "{}", report.json())?;
    } else if to_stdout[0] || to_stdout[2] {
        // The page or the CSV has stdout.
    } else {
        write!(out, "{}", report.text())?;
    }
    out.flush()?;
    if let Some(path) = &args.csv {
        output::write_whole(path, report.csv().as_bytes())?;
    }
    if let Some(path) = &args.html {
        let html = report.html(&args.title)?;
        output::write_whole(path, html.as_bytes())?;
    }
    let gate = Gate {
        fail_under: args.fail_under,
        fail_if_worse: args.fail_if_worse.map(|w| match w {
            Worse::MoreLost => WorseRule::MoreLost,
            Worse::Significant => WorseRule::Significant,
        }),
        alpha: args.alpha,
    };
    if gate.fail_under.is_some() || gate.fail_if_worse.is_some() {
        let reasons = report.gate(&gate).map_err(|e| usage(e.to_string()))?;
        for r in &reasons {
            eprintln!("rookery: gate failed: {r}");
        }
        bad |= !reasons.is_empty();
    }
    Ok(if bad { Status::InputErrors } else { Status::Ok })
}
