//! Whole files: a verb over an EPD stream, and a scored suite run. Records
//! are processed by several engines at once; output keeps input order; a
//! record that cannot be read or analysed is reported and copied through
//! unchanged; nothing is dropped.

use crate::analyst::{Analysis, AnalysisLimits, Analyst, Score};
use crate::suite::score_record;
use crate::verbs::{apply, has_verb_opcodes, Applied, Extras, Verb};
use rookery_core::Fen;
use rookery_epd::{LineKind, Mode, Operation, RawOperand, Reader, Record};
use rookery_io::parallel;
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
    /// Add the private opcodes `Tsol` (ms) and `Nsol` (nodes) with the time
    /// and nodes to solution (and `ce`), for suite runs.
    pub solution_opcodes: bool,
    /// With earlier outputs (resume): keep the records that are finished
    /// for this verb (default: `verb`); pfms in passes keeps what the last
    /// pass would keep.
    pub keep_as: Option<Verb>,
}

/// One problem met while processing, located by input line (kept as
/// JSON in a shard's manifest, for the merge to report).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// Records skipped by the verb's own rule (pfms: dm already short enough).
    pub skipped: u64,
    /// Records whose analysis was kept from an earlier output (resume).
    pub kept: u64,
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
    /// The analysis of this record kept from an earlier output.
    kept: Option<Record>,
}

struct Done {
    line: u64,
    text: String,
    problem: Option<(Option<u32>, String)>,
    analysed: bool,
    is_record: bool,
    skipped: bool,
    kept: bool,
    scored: Option<PositionResult>,
}

/// Whether `earlier` (a line of an earlier run's output) is `verb`'s
/// analysis of the input record `input` (whose text is `input_text`): the
/// same position and id, the verb's opcodes present, and not the input
/// copied through unchanged. Returns the record to keep.
pub fn resumable(verb: Verb, input: &Record, input_text: &str, earlier: &str) -> Option<Record> {
    if earlier.trim_end() == input_text.trim_end() {
        return None;
    }
    let rec: Record = earlier.parse().ok().or_else(|| {
        let mut r = Reader::new(earlier.as_bytes(), Mode::Lenient);
        match r.next_line() {
            Ok(Some(l)) => match l.kind {
                LineKind::Record(rec) => Some(rec),
                _ => None,
            },
            _ => None,
        }
    })?;
    let same_position = Fen::from_position(rec.position()).epd().to_string()
        == Fen::from_position(input.position()).epd().to_string();
    (same_position && rec.id() == input.id() && has_verb_opcodes(verb, &rec)).then_some(rec)
}

/// What a kept record (an earlier run's pfts output) says, as an analysis
/// for scoring: its `pm`, `pv`, `ce`, `acn` and `acs`.
fn analysis_of(record: &Record) -> Analysis {
    let best = record.pm();
    let pv = match (record.pv(), best) {
        (Some(pv), Some(b)) if pv.first() == Some(&b) => pv.to_vec(),
        (_, Some(b)) => vec![b],
        _ => Vec::new(),
    };
    let int = |name: &str| match record.get(name) {
        Some(Operation::Acn(n)) => Some(*n),
        Some(Operation::Acs(n)) => Some(*n),
        _ => None,
    };
    Analysis {
        best,
        nodes: int("acn").unwrap_or(0),
        elapsed: std::time::Duration::from_secs(int("acs").unwrap_or(0)),
        ..Analysis::line(pv, record.ce().map(Score::from_ce))
    }
}

/// The value of a private numeric opcode (`Tsol`, `Nsol`).
fn raw_number(record: &Record, opcode: &str) -> Option<u64> {
    match record.get(opcode) {
        Some(Operation::Raw { operands, .. }) => match operands.as_slice() {
            [RawOperand::Token(t)] => t.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Runs `opts.verb` over the EPD lines of `input`, writing every line to
/// `output` in order. `analysts` are the engines (one thread each).
///
/// `previous` are earlier outputs of the same run (`--resume`), most recent
/// first, read line by line beside the input (a caller with several inputs
/// writing one output passes the same readers on): where line N of one of them
/// is the verb's analysis of input line N (see [`resumable`]) it is written
/// instead of analysing again; any other record is analysed.
///
/// # Errors
/// I/O errors of `input` or `output`, and a panic in an analyst (a bug,
/// reported as an error rather than hanging the run); record and engine
/// problems are reported in the summary. Earlier outputs that cannot be read
/// are ignored (their records are analysed again).
pub fn run_verb(
    input: impl BufRead + Send,
    output: &mut dyn Write,
    analysts: Vec<Box<dyn Analyst>>,
    opts: &VerbOptions,
    score: bool,
    previous: &mut [Box<dyn BufRead + Send>],
    mut progress: impl FnMut(Tick),
) -> io::Result<VerbSummary> {
    let mut reader = Reader::new(input, Mode::Lenient);
    let mut read_error: Option<io::Error> = None;
    let mut previous: Vec<Option<&mut Box<dyn BufRead + Send>>> =
        previous.iter_mut().map(Some).collect();
    let mut earlier_line = String::new();
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
        // Line N of every earlier output (each is read in step with the input).
        let mut kept = None;
        for source in &mut previous {
            let Some(src) = source.as_mut() else { continue };
            earlier_line.clear();
            match src.read_line(&mut earlier_line) {
                Ok(n) if n > 0 && earlier_line.ends_with('\n') => {}
                // Ended, unreadable, or a last line cut short by a killed
                // run: nothing more to take from it.
                _ => {
                    *source = None;
                    continue;
                }
            }
            if kept.is_none() {
                if let Some(r) = &record {
                    let verb = opts.keep_as.unwrap_or(opts.verb);
                    let earlier = earlier_line.trim_end_matches(['\n', '\r']);
                    kept = resumable(verb, r, &text, earlier);
                }
            }
        }
        Some(Work {
            line: line.number,
            text,
            record,
            unreadable,
            kept,
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
            skipped: false,
            kept: false,
            scored: None,
        };
        if let Some(kept) = w.kept {
            done.kept = true;
            if score {
                let mut row = score_record(0, &kept, Some(&analysis_of(&kept)), None);
                row.time_to_solution_ms = raw_number(&kept, "Tsol");
                row.nodes_to_solution = raw_number(&kept, "Nsol");
                done.scored = Some(row);
            }
            done.text = kept.to_string();
            return done;
        }
        let Some(mut record) = w.record else {
            if score {
                if let Some((_, message)) = &done.problem {
                    done.scored = Some(unreadable_row(&done.text, message));
                }
            }
            return done;
        };
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
                        // The score too, so that a resumed run can score the record again.
                        if let Some(s) = analysis.and_then(|a| a.score) {
                            record.set(Operation::Ce(s.ce()));
                        }
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
            if done.kept {
                summary.kept += 1;
            } else if done.skipped {
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
        if let Err(e) = writeln!(output, "{}", done.text).and_then(|_| output.flush()) {
            io_error.get_or_insert(e);
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
        error: Some(format!("unreadable record: {message}")),
        ..PositionResult::unanswered(0, text.to_string(), rookery_report::Expected::default(), 1)
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
    previous: &mut [Box<dyn BufRead + Send>],
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
        solution_opcodes: true,
        keep_as: None,
    };
    let mut summary = run_verb(input, output, analysts, &opts, true, previous, progress)?;
    let run = SuiteRun {
        suite: suite.to_string(),
        engine,
        limits: limits.describe(),
        started: None,
        positions: std::mem::take(&mut summary.scored),
    };
    Ok((run, summary))
}
