//! Whole files: a verb over an EPD stream, and a scored suite run. Records
//! are processed by several engines at once; output keeps input order; a
//! record that cannot be read or analysed is reported and copied through
//! unchanged; nothing is dropped.

use crate::analyst::{AnalysisLimits, Analyst};
use crate::suite::score_record;
use crate::verbs::{apply, Applied, Extras, Verb};
use rookery_core::parallel;
use rookery_epd::{LineKind, Mode, Operation, RawOperand, Reader, Record};
use rookery_report::{PositionResult, SuiteRun};
use std::io::{self, BufRead, Write};

/// How to run a verb over a file.
#[derive(Clone, Debug)]
pub struct VerbOptions {
    /// The verb.
    pub verb: Verb,
    /// Effort per position.
    pub limits: AnalysisLimits,
    /// Optional operations to add.
    pub extras: Extras,
    /// Input lines to skip (already in the output, for `--resume`).
    pub skip_lines: u64,
    /// Add the private opcodes `Tsol` (ms) and `Nsol` (nodes) with the time
    /// and nodes to solution, for suite runs.
    pub solution_opcodes: bool,
}

/// One problem met while processing, located by input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineProblem {
    /// 1-based input line.
    pub line: u64,
    /// 1-based column, where known.
    pub column: Option<u32>,
    /// What happened.
    pub message: String,
}

/// Counts after a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerbSummary {
    /// Records read.
    pub records: u64,
    /// Records analysed.
    pub analysed: u64,
    /// Records skipped by the verb's own rule (pfms: dm already short enough) or by resume.
    pub skipped: u64,
    /// Records copied unchanged because they could not be read or analysed.
    pub failed: u64,
    /// The problems, in input order.
    pub problems: Vec<LineProblem>,
    /// One scored row per record, when scoring was asked for.
    pub scored: Vec<PositionResult>,
}

/// Progress after each record written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tick {
    /// Input lines written so far (skipped ones included).
    pub lines_done: u64,
}

struct Work {
    line: u64,
    text: String,
    record: Option<Record>,
    unreadable: Option<(Option<u32>, String)>,
    skipped: bool,
}

struct Done {
    line: u64,
    text: String,
    problem: Option<(Option<u32>, String)>,
    analysed: bool,
    is_record: bool,
    skipped: bool,
    scored: Option<PositionResult>,
}

/// Runs `opts.verb` over the EPD lines of `input`, writing every line to
/// `output` in order. `analysts` are the engines (one thread each).
///
/// # Errors
/// I/O errors of `input` or `output`, and a panic in an analyst (a bug,
/// reported as an error rather than hanging the run); record and engine
/// problems are reported in the summary.
pub fn run_verb(
    input: impl BufRead + Send,
    output: &mut dyn Write,
    analysts: Vec<Box<dyn Analyst>>,
    opts: &VerbOptions,
    score: bool,
    mut progress: impl FnMut(Tick),
) -> io::Result<VerbSummary> {
    let mut reader = Reader::new(input, Mode::Lenient);
    let mut read_error: Option<io::Error> = None;
    let skip = opts.skip_lines;
    let mut record_index = 0usize;
    let items = std::iter::from_fn(|| {
        let line = match reader.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => return None,
            Err(e) => {
                read_error = Some(e);
                return None;
            }
        };
        let text = String::from_utf8_lossy(line.text).into_owned();
        let skipped = line.number <= skip;
        let (record, unreadable) = match line.kind {
            LineKind::Record(r) => (Some(r), None),
            LineKind::Unparsed => {
                let d = line.diagnostics.iter().find(|d| d.is_error());
                (
                    None,
                    Some(d.map_or((None, "unreadable record".to_string()), |d| {
                        (Some(d.column), d.problem.to_string())
                    })),
                )
            }
            LineKind::Blank | LineKind::Comment => (None, None),
        };
        Some(Work {
            line: line.number,
            text,
            record,
            unreadable,
            skipped,
        })
    });
    let mut summary = VerbSummary::default();
    let mut io_error: Option<io::Error> = None;
    let work = |analyst: &mut Box<dyn Analyst>, w: Work| -> Done {
        let is_record = w.record.is_some() || w.unreadable.is_some();
        let mut done = Done {
            line: w.line,
            text: w.text,
            problem: w.unreadable,
            analysed: false,
            is_record,
            skipped: w.skipped,
            scored: None,
        };
        let Some(mut record) = w.record else {
            if score && !w.skipped {
                if let Some((_, message)) = &done.problem {
                    done.scored = Some(unreadable_row(&done.text, message));
                }
            }
            return done;
        };
        if w.skipped {
            return done;
        }
        let _ = analyst.new_game();
        match apply(
            opts.verb,
            &mut record,
            analyst.as_mut(),
            &opts.limits,
            opts.extras,
        ) {
            Ok(applied) => {
                let analysis = match &applied {
                    Applied::Analysed(a) | Applied::NothingFound(a) => Some(a.as_ref()),
                    _ => None,
                };
                if score || opts.solution_opcodes {
                    let row = score_record(0, &record, analysis, None);
                    if opts.solution_opcodes {
                        if let (Some(t), Some(n)) = (row.time_to_solution_ms, row.nodes_to_solution)
                        {
                            record.set(Operation::Raw {
                                opcode: "Tsol".into(),
                                operands: vec![RawOperand::Token(t.to_string())],
                            });
                            record.set(Operation::Raw {
                                opcode: "Nsol".into(),
                                operands: vec![RawOperand::Token(n.to_string())],
                            });
                        }
                    }
                    if score {
                        done.scored = Some(row);
                    }
                }
                done.analysed = !matches!(applied, Applied::Skipped);
                done.skipped = matches!(applied, Applied::Skipped);
                done.text = record.to_string();
            }
            Err(e) => {
                done.problem = Some((None, e.to_string()));
                if score {
                    done.scored = Some(score_record(0, &record, None, Some(e.to_string())));
                }
                // Bring a crashed or hung engine back for the next record.
                if let Err(e2) = analyst.recover() {
                    done.problem = Some((None, format!("{e}; restart failed: {e2}")));
                }
            }
        }
        done
    };
    let mut lines_done = 0u64;
    // One engine a thread; results in input order; a panic in the work (a
    // bug) ends the run with an error instead of hanging it.
    let ran = parallel::run(items, analysts, work, |done| {
        lines_done += 1;
        if done.is_record {
            summary.records += 1;
            record_index += 1;
            if done.skipped {
                summary.skipped += 1;
            } else if done.problem.is_some() {
                summary.failed += 1;
            } else if done.analysed {
                summary.analysed += 1;
            }
            if let Some(mut row) = done.scored {
                row.index = record_index;
                summary.scored.push(row);
            }
        }
        if let Some((column, message)) = done.problem {
            summary.problems.push(LineProblem {
                line: done.line,
                column,
                message,
            });
        }
        // Lines up to `skip` are already in the output (resume).
        if done.line > skip {
            if let Err(e) = writeln!(output, "{}", done.text).and_then(|_| output.flush()) {
                io_error.get_or_insert(e);
            }
        }
        progress(Tick { lines_done });
    });
    if let Err(e) = ran {
        return Err(io::Error::other(e));
    }
    if let Some(e) = read_error.or(io_error) {
        return Err(e);
    }
    Ok(summary)
}

/// A report row for a record that could not be read.
fn unreadable_row(text: &str, message: &str) -> PositionResult {
    PositionResult {
        index: 0,
        id: None,
        fen: text.to_string(),
        expected: rookery_report::Expected::default(),
        answer: None,
        pv: Vec::new(),
        score: None,
        depth: None,
        nodes: 0,
        time_ms: 0,
        solved: false,
        points: 0,
        max_points: 1,
        time_to_solution_ms: None,
        nodes_to_solution: None,
        error: Some(format!("unreadable record: {message}")),
    }
}

/// Runs a scored suite: pfts over the records with bm/am/dm/c0, returning
/// the report rows and writing the EPD output (with `Tsol`/`Nsol`) to `output`.
///
/// # Errors
/// I/O errors only, as [`run_verb`].
pub fn run_suite(
    suite: &str,
    input: impl BufRead + Send,
    output: &mut dyn Write,
    analysts: Vec<Box<dyn Analyst>>,
    limits: &AnalysisLimits,
    progress: impl FnMut(Tick),
) -> io::Result<(SuiteRun, VerbSummary)> {
    let engine = analysts
        .first()
        .map_or_else(|| "none".to_string(), |a| a.name());
    let opts = VerbOptions {
        verb: Verb::Target,
        limits: limits.clone(),
        extras: Extras {
            pv: true,
            acn: true,
            acs: true,
            ..Extras::default()
        },
        skip_lines: 0,
        solution_opcodes: true,
    };
    let mut summary = run_verb(input, output, analysts, &opts, true, progress)?;
    let run = SuiteRun {
        suite: suite.to_string(),
        engine,
        limits: limits.describe(),
        started: None,
        positions: std::mem::take(&mut summary.scored),
    };
    Ok((run, summary))
}
