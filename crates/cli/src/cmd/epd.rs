//! `rookery epd`: the EPD verbs — normalize (pfdn), purge (pfop), validate,
//! convert (EPD <-> FEN). All stream with constant memory, keep the input
//! order and copy a line they cannot read unchanged while reporting it.

use crate::cmd::shard::{self, Job, ShardArgs};
use crate::flags::OneFile;
use crate::output::{self, usage, Output, Status};
use rookery_epd::verbs::{self, Target};
use rookery_epd::{Diagnostic, Mode, Severity, Summary};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Flags of `rookery epd`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  rookery epd normalize suite.epd -o suite.norm.epd\n  rookery epd purge --op acn --op acs results.epd\n  rookery epd validate --strict suite.epd\n  rookery epd convert --to fen suite.epd"
)]
pub struct Args {
    #[command(subcommand)]
    verb: Verb,
}

#[derive(clap::Subcommand, Debug)]
enum Verb {
    /// pfdn: write every record in canonical form (single spaces, opcodes in
    /// ASCII order, set operands sorted, moves in SAN); lines that cannot be
    /// read are copied unchanged and reported on stderr.
    Normalize {
        #[command(flatten)]
        file: OneFile,
        /// Normalize on N threads (the output is exactly that of one, in
        /// input order).
        #[arg(short, long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
        jobs: u32,
        #[command(flatten)]
        read: ReadFlags,
        #[command(flatten)]
        shard: ShardArgs,
    },
    /// pfop: remove every operation with the given opcode(s), leaving the rest
    /// of each line as it was.
    Purge {
        /// Opcode to remove (repeat for several).
        #[arg(long = "op", value_name = "OPCODE", required = true)]
        ops: Vec<String>,
        #[command(flatten)]
        file: OneFile,
        #[command(flatten)]
        read: ReadFlags,
    },
    /// Report every problem as `file:line:col: error|warning: message` on
    /// stdout; exit status 1 if there is any error.
    Validate {
        /// Input files (`-` for stdin).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        read: ReadFlags,
        /// One JSON object per problem, then one summary object per file.
        #[arg(long)]
        json: bool,
    },
    /// pfga: analyse every record with an engine; adds pv and ce (pm, sm, acn, acs on request).
    Analyse(crate::cmd::verbs::AnalyseArgs),
    /// pfms: search for mates in N moves; adds dm and pm where found.
    Mate(crate::cmd::verbs::MateArgs),
    /// pfts: analyse every record and add the predicted move pm.
    Target(crate::cmd::verbs::AnalyseArgs),
    /// EPD <-> FEN: `--to fen` writes six-field FEN (clocks from hmvc/fmvn)
    /// followed by the other operations; `--to epd` turns FEN clocks into
    /// hmvc/fmvn operations.
    Convert {
        /// Target notation.
        #[arg(long, value_enum)]
        to: To,
        /// With `--to fen`: write only the FEN, no operations.
        #[arg(long)]
        fen_only: bool,
        #[command(flatten)]
        file: OneFile,
        /// Do not report warnings.
        #[arg(short, long)]
        quiet: bool,
    },
}

#[derive(clap::Args, Debug)]
struct ReadFlags {
    /// Read exactly as the spec says: FEN clocks, UCI moves, irregular
    /// whitespace, unquoted strings and a missing final `;` are errors.
    #[arg(long)]
    strict: bool,
    /// Do not report warnings.
    #[arg(short, long)]
    quiet: bool,
}

impl ReadFlags {
    fn mode(&self) -> Mode {
        if self.strict {
            Mode::Strict
        } else {
            Mode::Lenient
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum To {
    Fen,
    Epd,
}

fn name(path: &Path) -> String {
    output::display_name(path)
}

/// Prints diagnostics to stderr (the verbs that write EPD to stdout).
fn stderr_reporter(file: String, quiet: bool) -> impl FnMut(&Diagnostic) {
    move |d: &Diagnostic| {
        if !(quiet && d.severity == Severity::Warning) {
            eprintln!("{file}:{d}");
        }
    }
}

/// Runs a verb that reads `input` and writes `output` (replaced only when
/// the verb finishes); exit status 1 if it reported an error.
fn rewrite(
    input: &Path,
    output: &Path,
    in_place: bool,
    verb: impl FnOnce(Box<dyn std::io::BufRead + Send>, &mut Output) -> std::io::Result<Summary>,
) -> anyhow::Result<Status> {
    let inp = crate::input::open_input(input)?;
    let mut out = Output::create(output, &[input], in_place)?;
    let sum = verb(inp, &mut out)?;
    out.commit()?;
    Ok(status(&sum))
}

/// Exit status 1 if a verb reported an error.
fn status(sum: &Summary) -> Status {
    if sum.errors > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    }
}

/// `epd normalize`, of the whole input or of one shard's part of it.
fn normalize(
    input: &Path,
    output: &Path,
    in_place: bool,
    jobs: u32,
    read: &ReadFlags,
    shard: &ShardArgs,
) -> anyhow::Result<Status> {
    let file = name(input);
    let job = match shard.resolve()? {
        Some(s) => {
            shard::check_paths(input, output)?;
            let total = shard::count_lines(input)?;
            Some(Job::start(
                s,
                shard,
                "epd normalize",
                input,
                output,
                "lines",
                total,
            )?)
        }
        None => None,
    };
    // Line numbers are those of the whole input: a shard's part starts
    // after `offset` lines.
    let offset = job.as_ref().map_or(0, |j| j.range().start);
    let mut report = stderr_reporter(file.clone(), read.quiet);
    let shifted = |d: &Diagnostic| {
        let mut d = d.clone();
        d.line += offset;
        report(&d);
    };
    // The raw bytes: the verb reads a line that is not UTF-8 as
    // ISO 8859-1 itself, and warns about it among its reports.
    let mut inp = crate::input::open(input)?;
    if let Some(j) = &job {
        inp = Box::new(rookery_io::part::Lines::new(inp, j.range()));
    }
    let mut warn = |line| crate::input::warn_latin1(&file, line + offset);
    let target = job.as_ref().map_or(output, |j| j.part_path());
    let mut out = Output::create(target, &[input], in_place)?;
    let sum = verbs::normalize_latin1(
        inp,
        &mut out,
        read.mode(),
        jobs as usize,
        Some(&mut warn),
        shifted,
    )?;
    out.commit()?;
    if let Some(j) = job {
        j.finish(serde_json::json!({"errors": sum.errors, "warnings": sum.warnings}))?;
    }
    Ok(status(&sum))
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    match args.verb {
        Verb::Analyse(a) => crate::cmd::verbs::run_analyse(a),
        Verb::Mate(a) => crate::cmd::verbs::run_mate(a),
        Verb::Target(a) => crate::cmd::verbs::run_target(a),
        Verb::Normalize {
            file,
            jobs,
            read,
            shard,
        } => normalize(
            &file.input,
            &file.output,
            file.in_place,
            jobs,
            &read,
            &shard,
        ),
        Verb::Purge {
            ops,
            file:
                OneFile {
                    input,
                    output,
                    in_place,
                },
            read,
        } => {
            if let Some(bad) = ops.iter().find(|o| !rookery_epd::is_valid_opcode(o)) {
                return Err(usage(format!(
                    "--op {bad:?} is not an opcode (a letter, then up to 14 letters, digits or '_')"
                )));
            }
            let ops: Vec<&str> = ops.iter().map(String::as_str).collect();
            let report = stderr_reporter(name(&input), read.quiet);
            rewrite(&input, &output, in_place, |inp, out| {
                verbs::purge(inp, out, &ops, read.mode(), report)
            })
        }
        Verb::Convert {
            to,
            fen_only,
            file:
                OneFile {
                    input,
                    output,
                    in_place,
                },
            quiet,
        } => {
            let target = match to {
                To::Fen => Target::Fen { fen_only },
                To::Epd => Target::Epd,
            };
            let report = stderr_reporter(name(&input), quiet);
            rewrite(&input, &output, in_place, |inp, out| {
                verbs::convert(inp, out, target, report)
            })
        }
        Verb::Validate { inputs, read, json } => {
            let mut out = output::stdout();
            let mut any_error = false;
            for input in &inputs {
                let file = name(input);
                // Raw bytes: a line that is not UTF-8 is reported as such.
                let inp = match crate::input::open(input) {
                    Ok(i) => i,
                    Err(e) => {
                        // A missing file is reported; the others are still checked.
                        out.flush()?;
                        eprintln!("rookery: error: {}", output::error_text(&e));
                        any_error = true;
                        continue;
                    }
                };
                let mut write_err: Option<std::io::Error> = None;
                let sum = verbs::validate(inp, read.mode(), |d| {
                    if write_err.is_some() || (read.quiet && d.severity == Severity::Warning) {
                        return;
                    }
                    let r = if json {
                        let v = serde_json::json!({
                            "file": file,
                            "line": d.line,
                            "column": d.column,
                            "severity": d.severity.to_string(),
                            "message": d.problem.to_string(),
                        });
                        writeln!(out, "{v}")
                    } else {
                        writeln!(out, "{file}:{d}")
                    };
                    if let Err(e) = r {
                        write_err = Some(e);
                    }
                })?;
                if let Some(e) = write_err {
                    return Err(e.into());
                }
                any_error |= sum.errors > 0;
                if json {
                    let v = serde_json::json!({
                        "file": file,
                        "records": sum.records,
                        "unparsed": sum.unparsed,
                        "errors": sum.errors,
                        "warnings": sum.warnings,
                    });
                    writeln!(out, "{v}")?;
                } else {
                    writeln!(
                        out,
                        "{file}: {} records, {} unreadable, {} errors, {} warnings",
                        sum.records, sum.unparsed, sum.errors, sum.warnings
                    )?;
                }
            }
            out.flush()?;
            Ok(if any_error {
                Status::InputErrors
            } else {
                Status::Ok
            })
        }
    }
}
