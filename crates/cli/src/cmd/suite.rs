//! `rookery suite`: run test suites with an engine, score them, report;
//! with `--shard K/N`, one part of a suite's records, whose results
//! `rookery merge` joins into the results of one run ([`merge`]).

use crate::cmd::engines::EngineArgs;
use crate::cmd::progress;
use crate::cmd::shard::{self, Job, ShardArgs};
use crate::output::{self, usage, Output, Status};
use anyhow::Context;
use rookery_analysis::LineProblem;
use rookery_io::manifest::Part;
use rookery_io::shard::Shard;
use rookery_report::{JoinError, Report, SuiteRun};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// The verb a shard's manifest names: `rookery merge` joins the parts of
/// a suite's results with [`merge`].
pub const VERB: &str = "suite";

/// The verb of the manifest of a shard's `--epd-out` part: EPD lines in
/// input order, merged as the EPD verbs' outputs are (one after the other).
pub const EPD_VERB: &str = "suite --epd-out";

/// Flags of `rookery suite`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "With no FILE, runs the bundled Win At Chess suite (300 positions) with the built-in engine \
at 100 ms per position. Records with bm, am, dm, `bm #N` (mate in N) or `bm #-N` (mated in N: any move \
is right) or STS points in c0 are scored; records with none of them are listed as not scored.\n\n\
With --shard K/N (or --shard auto in a Slurm job array or a Kubernetes Indexed Job) the suite is one \
FILE and --results R.json is needed: the shard analyses the K-th of N contiguous parts of the file's \
lines (error messages give the lines of the whole file) and writes its results to R.json.shard-K-of-N \
with a manifest R.json.shard-K-of-N.json, and no HTML or report. `rookery merge R.json` then checks that \
all N parts are there, finished and of the same command and file, writes R.json as one run writes it and \
prints the report one run prints; `rookery report R.json --html FILE` gives the HTML page. With --epd-out E \
a shard also writes E.shard-K-of-N (merged by `rookery merge E`), from which --resume continues a killed \
shard.\n\n\
Examples:\n  rookery suite\n  rookery suite wac.epd --engine /usr/games/stockfish --movetime 200 --jobs 2\n  \
rookery suite sts1.epd sts2.epd --depth 8 --results sts.json --html sts.html\n  \
rookery suite big.epd --epd-out big.out.epd --resume\n  \
rookery suite wac.epd --nodes 100000 --results wac.json --shard 2/4   # 1/4 .. 4/4, one a task\n  \
rookery merge wac.json"
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
    #[command(flatten)]
    shard: ShardArgs,
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
    if let Some(s) = args.shard.resolve()? {
        return run_shard(&args, s);
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
            .map(|p| (suite_name(p), Some(p.clone())))
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
            Some(p) => match crate::input::open_input(p) {
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
        problems += report_problems(&shown, &summary.problems);
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
        output::write_whole(p, &results_json(&runs)?)?;
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

/// The name of the suite in `path`: its file name without extension.
fn suite_name(path: &Path) -> String {
    if output::is_std(path) {
        return "stdin".to_string();
    }
    path.file_stem()
        .map_or_else(|| "stdin".to_string(), |s| s.to_string_lossy().into_owned())
}

/// The results file of `runs`, as `--results` writes it (and the merge of
/// a sharded run).
///
/// # Errors
/// None in practice (the runs are plain data).
fn results_json(runs: &[SuiteRun]) -> anyhow::Result<Vec<u8>> {
    let mut json = serde_json::to_vec_pretty(runs)?;
    json.push(b'\n');
    Ok(json)
}

/// Prints the problems of the suite `shown` as `file:line[:col]: error:
/// ...`; how many.
fn report_problems(shown: &str, problems: &[LineProblem]) -> usize {
    for p in problems {
        match p.column {
            Some(c) => eprintln!("{shown}:{}:{c}: error: {}", p.line, p.message),
            None => eprintln!("{shown}:{}: error: {}", p.line, p.message),
        }
    }
    problems.len()
}

/// `--shard`: the part of one suite file, its results written as the part
/// of `--results` with a manifest (whose summary keeps the problems, by
/// the lines of the whole file, and whether the report is JSON), and with
/// `--epd-out E` its records as the part of E (`--resume` continues a
/// killed shard from it).
fn run_shard(args: &Args, s: Shard) -> anyhow::Result<Status> {
    let [file] = args.files.as_slice() else {
        return Err(usage(
            "--shard needs exactly one suite FILE: each shard analyses its part of it",
        ));
    };
    let Some(results) = args.results.as_deref() else {
        return Err(usage(
            "--shard needs --results R.json: each shard writes R.json.shard-K-of-N, \
             which `rookery merge R.json` joins",
        ));
    };
    shard::check_paths(file, results)?;
    let mut outputs = vec![("--results", results)];
    if let Some(e) = args.epd_out.as_deref() {
        shard::check_paths(file, e)?;
        outputs.push(("--epd-out", e));
    }
    output::check_outputs(&outputs, &[file.as_path()])?;
    let limits = args.engine.limits(100)?;
    let total = shard::count_lines(file)?;
    let mut job = Job::start(s, &args.shard, VERB, file, results, "lines", total)?;
    // --epd-out: its own part and manifest, merged by `rookery merge E`.
    let epd_job = match args.epd_out.as_deref() {
        Some(e) => Some(Job::start(
            s,
            &args.shard,
            EPD_VERB,
            file,
            e,
            "lines",
            total,
        )?),
        None => None,
    };
    let range = job.range();
    let input = rookery_io::part::Lines::new(crate::input::open_input(file)?, range.clone());
    // Engines before the parts are written: one that cannot start changes nothing.
    let engines = args.engine.start()?;
    let mut previous = match &epd_job {
        Some(j) if args.resume => output::resume_sources(j.part_path())?,
        _ => Vec::new(),
    };
    let mut epd = match &epd_job {
        Some(j) => Some(Output::create(j.part_path(), &[file.as_path()], false)?),
        None => None,
    };
    let mut sink = std::io::sink();
    let epd_writer: &mut dyn Write = match epd.as_mut() {
        Some(w) => w,
        None => &mut sink,
    };
    let name = suite_name(file);
    let bar = progress::bar(
        &format!("{name} shard {s} ({})", limits.describe()),
        Some(range.end - range.start),
    );
    let (run, mut summary) = rookery_analysis::run_suite(
        &name,
        input,
        epd_writer,
        engines,
        &limits,
        &mut previous,
        |t| {
            bar.set_position(t.lines_done);
            job.progress(t.lines_done);
        },
    )?;
    bar.finish_and_clear();
    // The part's lines are counted from its start: those of the whole file.
    for p in &mut summary.problems {
        p.line += range.start;
    }
    let shown = output::display_name(file);
    let problems = report_problems(&shown, &summary.problems);
    if summary.kept > 0 {
        eprintln!(
            "{shown}: {} records scored from earlier output",
            summary.kept
        );
    }
    if let (Some(w), Some(j)) = (epd, epd_job) {
        w.commit()?;
        if args.resume {
            output::resume_done(j.part_path());
        }
        j.finish(serde_json::json!({ "errors": problems }))?;
    }
    output::write_whole(job.part_path(), &results_json(&[run])?)?;
    job.finish(serde_json::json!({
        "problems": summary.problems,
        "json": args.json,
    }))?;
    Ok(if problems > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    })
}

/// `rookery merge R.json` of a sharded suite: the parts' runs (checked
/// by the merge to be all there, finished and of one command and file)
/// joined into the run one `suite --results R.json` writes, written to
/// `out`; the problems and the report printed as that run prints them
/// (no HTML: `rookery report R.json --html FILE` gives it). Its exit
/// status.
///
/// # Errors
/// A part that is not one suite run, or of another suite, engine or
/// limits than the first (naming the file); `out` cannot be written.
pub fn merge(out: &Path, parts: &[Part]) -> anyhow::Result<Status> {
    let mut runs = Vec::with_capacity(parts.len());
    for p in parts {
        let text =
            std::fs::read(&p.path).with_context(|| format!("cannot read {}", p.path.display()))?;
        let part: Vec<SuiteRun> = serde_json::from_slice(&text).map_err(|e| {
            usage(format!(
                "{}: not the results of a suite shard ({e})",
                p.path.display()
            ))
        })?;
        let [run] = <[SuiteRun; 1]>::try_from(part).map_err(|v| {
            usage(format!(
                "{}: {} runs, where a suite shard writes one",
                p.path.display(),
                v.len()
            ))
        })?;
        runs.push(run);
    }
    let run = SuiteRun::join(runs).map_err(|e| match &e {
        JoinError::Different { part, .. } => {
            usage(format!("{}: {e}", parts[part - 1].path.display()))
        }
        JoinError::Empty => usage(e.to_string()),
    })?;
    let runs = vec![run];
    output::write_whole(out, &results_json(&runs)?)?;
    let first = &parts[0].manifest;
    let mut problems = 0;
    for p in parts {
        // Written by run_shard; a manifest without them has none to report.
        let list: Vec<LineProblem> =
            serde_json::from_value(p.manifest.summary["problems"].clone()).unwrap_or_default();
        problems += report_problems(&first.input, &list);
    }
    let report = Report::new(runs);
    let mut stdout = output::stdout();
    if first.summary["json"].as_bool().unwrap_or(false) {
        writeln!(stdout, "{}", report.json())?;
    } else {
        write!(stdout, "{}", report.text())?;
    }
    stdout.flush()?;
    Ok(if problems > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    })
}
