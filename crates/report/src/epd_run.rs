//! Gastric's input (EPD §3.3): a run read from an EPD file that an analysis
//! program wrote, `rookery epd analyse|target|mate` or any other (Crafty's
//! `acd`/`acn`/`acs`/`pm`/`pv`/`ce`), scored against what each record asks
//! for.
//!
//! What a record asks for ([`Target`]): `bm` (any of the moves), `am` (none
//! of them), `dm` (a mate in at most that many moves), STS points in `c0`
//! (`"f5=10, Be5+=2, Bf2=3"`), and matetrack's `bm #N` / `bm #-N`.
//! What the program answered: `pm`, else the first move of `pv`; `ce`
//! (mates decoded as in spec §6.7); `acd` depth; `acn` nodes; `acs` seconds;
//! the private `Tsol`/`Nsol` (ms and nodes to solution) of `rookery suite
//! --epd-out`.
//!
//! A `dm` is solved when the score says mate in at most `dm` moves, or when
//! the line given (`pv`, else `pm`) is legal and ends in checkmate within
//! `2*dm - 1` plies: so `epd mate` output is scored by its `bm`, or by
//! its `dm` when it was written with `--pv`.
//!
//! Nothing is dropped: a line the EPD reader cannot read, a record with an
//! operand this module cannot use (a `c0` of points naming an illegal
//! move, a non-numeric `acd`) and a record nobody analysed (no `pm`, `pv`
//! or `ce`) are reported as [`ReportError::Epd`]s with their line and
//! column and kept in the run as positions with an error. (When no record
//! at all was analysed, as in a suite given instead of a program's output,
//! that is said once, at the first record.)
//!
//! A figure a record does not carry (`acn`, `acs`) is not recorded
//! (`None`), never 0.

use crate::model::{Expected, PositionResult, Score, SuiteRun};
use crate::target::{line_san, OperandProblem, Target};
use crate::themes::{self, ThemeSource};
use crate::ReportError;
use rookery_core::{Fen, Move};
use rookery_epd::{mate_from_ce, LineKind, Mode, Operation, RawOperand, Reader, Record};
use std::io::BufRead;

/// One run read from EPD, with the theme of each position.
#[derive(Debug)]
pub struct EpdRun {
    /// The run: suite and engine are the name given.
    pub run: SuiteRun,
    /// The theme of each position of `run` (same order), per the
    /// [`ThemeSource`] asked for.
    pub themes: Vec<String>,
    /// Every problem found, with its line and column; each such position is
    /// also in `run` with its `error` set.
    pub problems: Vec<ReportError>,
}

/// Reads a run from EPD `input` (lenient reading: real-world files carry FEN
/// clocks, UCI moves and missing semicolons). `name` names the file in
/// errors and becomes the run's suite and engine name.
///
/// # Errors
/// [`ReportError::Io`] if `input` cannot be read. Problems with single lines
/// are not errors of the whole: they are in [`EpdRun::problems`].
pub fn read(name: &str, input: impl BufRead, theme: &ThemeSource) -> Result<EpdRun, ReportError> {
    let stem = std::path::Path::new(name)
        .file_stem()
        .map_or_else(|| name.to_string(), |s| s.to_string_lossy().into_owned());
    let mut run = SuiteRun {
        suite: stem.clone(),
        engine: stem,
        limits: "as recorded (acd, acn, acs)".into(),
        started: None,
        positions: Vec::new(),
    };
    let mut themes_of = Vec::new();
    let mut problems = Vec::new();
    // The lines of the records nobody analysed, and how many records there are.
    let mut unanalysed = Vec::new();
    let mut records = 0;
    let mut reader = Reader::new(input, Mode::Lenient);
    let io_err = |source| ReportError::Io {
        path: name.to_string(),
        source,
    };
    while let Some(line) = reader.next_line().map_err(io_err)? {
        let index = run.positions.len() + 1;
        match &line.kind {
            LineKind::Blank | LineKind::Comment => {}
            LineKind::Unparsed => {
                let (column, message) = line
                    .diagnostics
                    .iter()
                    .find(|d| d.is_error())
                    .map_or((1, "unreadable record".to_string()), |d| {
                        (d.column as usize, d.problem.to_string())
                    });
                let message = format!("not a readable EPD record: {message}");
                problems.push(ReportError::Epd {
                    path: name.to_string(),
                    line: line.number as usize,
                    column,
                    message: message.clone(),
                });
                run.positions.push(PositionResult {
                    error: Some(format!("line {}: {message}", line.number)),
                    ..PositionResult::unanswered(
                        index,
                        String::from_utf8_lossy(line.text).into_owned(),
                        Expected::default(),
                        0,
                    )
                });
                themes_of.push(themes::UNREADABLE.to_string());
            }
            LineKind::Record(rec) => {
                let (row, bad) = score(index, rec);
                records += 1;
                if bad.is_empty() && row.error.is_some() {
                    unanalysed.push(line.number as usize);
                }
                for (column, message) in bad {
                    problems.push(ReportError::Epd {
                        path: name.to_string(),
                        line: line.number as usize,
                        column: column as usize,
                        message,
                    });
                }
                themes_of.push(themes::of_record(theme, rec));
                run.positions.push(row);
            }
        }
    }
    let at = |line: usize, message: String| ReportError::Epd {
        path: name.to_string(),
        line,
        column: 1,
        message,
    };
    match unanalysed.as_slice() {
        [] => {}
        [first, ..] if unanalysed.len() == records && records > 1 => problems.push(at(
            *first,
            format!(
                "no record is analysed (none of the {records} has pm, pv or ce): a suite, not \
                 an analysis program's output (`rookery epd analyse` or `rookery suite \
                 --epd-out` writes one)"
            ),
        )),
        lines => problems.extend(lines.iter().map(|&l| at(l, NOT_ANALYSED.to_string()))),
    }
    // In line order (a record's problems, then the next line's).
    problems.sort_by_key(|p| match p {
        ReportError::Epd { line, .. } => *line,
        _ => 0,
    });
    Ok(EpdRun {
        run,
        themes: themes_of,
        problems,
    })
}

/// What a record nobody analysed is told: the error of its position, and
/// its problem.
const NOT_ANALYSED: &str = "not analysed: no pm, pv or ce";

/// The operand of a raw (unknown or private) opcode as a number, with the
/// column of the opcode: `Ok(None)` when absent.
fn raw_number(rec: &Record, opcode: &str) -> Result<Option<u64>, OperandProblem> {
    for (op, column) in rec.operations_with_columns() {
        if let Operation::Raw {
            opcode: o,
            operands,
        } = op
        {
            if o == opcode {
                return match operands.as_slice() {
                    [RawOperand::Token(t)] => t.parse::<u64>().map(Some).map_err(|_| {
                        (
                            column,
                            format!("{opcode}: expected one non-negative integer, found {t:?}"),
                        )
                    }),
                    _ => Err((
                        column,
                        format!("{opcode}: expected one non-negative integer operand"),
                    )),
                };
            }
        }
    }
    Ok(None)
}

/// Scores one record: the row, and the problems found (column, message).
fn score(index: usize, rec: &Record) -> (PositionResult, Vec<OperandProblem>) {
    let pos = rec.position();
    let (target, mut bad) = Target::with_problems(rec);
    let pv: Vec<Move> = rec.pv().map(<[Move]>::to_vec).unwrap_or_default();
    let answer = rec.pm().or_else(|| pv.first().copied());
    let score = rec.ce().map(|ce| match mate_from_ce(ce) {
        Some(n) => Score::Mate(n),
        None => Score::Cp(ce),
    });
    let mut number = |opcode: &str| match raw_number(rec, opcode) {
        Ok(v) => v,
        Err(e) => {
            bad.push(e);
            None
        }
    };
    let depth = number("acd").map(|d| u32::try_from(d).unwrap_or(u32::MAX));
    let tsol = number("Tsol");
    let nsol = number("Nsol");
    // A dm is met by the line given (pv, else the answer alone) as well.
    let solved = answer.is_some_and(|best| {
        let line = if pv.is_empty() {
            std::slice::from_ref(&best)
        } else {
            &pv
        };
        target.solved_by_line(pos, best, score, line)
    });
    let points = answer.map_or(0, |best| target.points_scored(best, solved));
    let analysed = answer.is_some() || rec.pv().is_some() || rec.ce().is_some();
    let error = match bad.first() {
        Some((_, message)) => Some(message.clone()),
        None if !analysed => Some(NOT_ANALYSED.to_string()),
        None => None,
    };
    let fen = Fen::from_position(pos).epd().to_string();
    let row = PositionResult {
        id: rec.id().map(str::to_string),
        answer: answer.map(|m| rec.san(m)),
        pv: line_san(pos, &pv),
        score,
        depth,
        nodes: rec.acn(),
        time_ms: rec.acs().map(|s| s.saturating_mul(1000)),
        solved: solved && bad.is_empty(),
        points: if bad.is_empty() { points } else { 0 },
        time_to_solution_ms: tsol.filter(|_| solved),
        nodes_to_solution: nsol.filter(|_| solved),
        error,
        ..PositionResult::unanswered(index, fen, target.expected(pos), target.max_points())
    };
    (row, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> EpdRun {
        read("t.epd", line.as_bytes(), &ThemeSource::IdPrefix).unwrap()
    }

    #[test]
    fn bm_with_pm_pv_ce_acd_acn_acs() {
        let r = one("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - acd 12; acn 345678; acs 3; bm Qg6; ce 32765; id \"WAC.001\"; pm Qg6; pv Qg6 fxg6;\n");
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        let p = &r.run.positions[0];
        assert!(p.solved);
        assert_eq!(p.answer.as_deref(), Some("Qg6"));
        assert_eq!(p.pv, ["Qg6", "fxg6"]);
        assert_eq!(p.score, Some(Score::Mate(1)));
        assert_eq!(
            (p.depth, p.nodes, p.time_ms),
            (Some(12), Some(345_678), Some(3_000))
        );
        assert_eq!(r.themes, ["WAC"]);
        assert_eq!(r.run.suite, "t");
    }

    #[test]
    fn first_pv_move_is_the_answer_without_pm_and_am_fails() {
        let r =
            one("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - am Qg6; ce 20; pv Qg6;\n");
        let p = &r.run.positions[0];
        assert_eq!(p.answer.as_deref(), Some("Qg6"));
        assert!(!p.solved && p.is_missed());
    }

    #[test]
    fn sts_points_from_c0() {
        let line = "1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id \"STS(v1.0) Undermine.001\"; c0 \"f5=10, Be5+=2, Bf2=3, Bg4=2\"; pm Bf2;\n";
        let r = one(line);
        let p = &r.run.positions[0];
        assert_eq!((p.solved, p.points, p.max_points), (false, 3, 10), "{p:?}");
        assert_eq!(p.expected.points[0], ("f5".to_string(), 10));
        assert_eq!(r.themes, ["STS(v1.0) Undermine"]);
        let r = one(&line.replace("pm Bf2", "pm f5"));
        let p = &r.run.positions[0];
        assert_eq!((p.solved, p.points), (true, 10));
    }

    #[test]
    fn a_c0_that_is_not_points_is_a_remark() {
        let r = one("r1bq1r1k/p1pnbpp1/1p2p3/6p1/3PB3/5N2/PPPQ1PPP/2KR3R w - - bm g4; id \"arasan2024.1\"; c0 \"J. Polgar-Berkes, Budapest 2003\"; pm g4;\n");
        assert!(r.problems.is_empty());
        assert!(r.run.positions[0].solved);
        assert_eq!(r.run.positions[0].max_points, 1);
    }

    #[test]
    fn bad_points_and_bad_acd_are_reported_with_their_columns() {
        let line = "1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - c0 \"f5=10, Qh8=3\"; acd deep; pm f5;\n";
        let r = one(line);
        assert_eq!(r.problems.len(), 2);
        let texts: Vec<String> = r.problems.iter().map(ToString::to_string).collect();
        let c0 = line.find("c0").unwrap() + 1;
        let acd = line.find("acd").unwrap() + 1;
        assert!(
            texts[0].starts_with(&format!("t.epd:1:{c0}: c0 points: \"Qh8\"")),
            "{texts:?}"
        );
        assert!(
            texts[1].starts_with(&format!("t.epd:1:{acd}: acd:")),
            "{texts:?}"
        );
        let p = &r.run.positions[0];
        assert!(!p.solved && p.error.is_some());
    }

    #[test]
    fn unreadable_lines_are_kept_as_errors() {
        let text = "# comment\n\n4k3/8/8/8/8/8/8/4K3 w - - bm Qh8; pm Kd2;\n6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; pm Rd8#;\n";
        let r = one(text);
        assert_eq!(r.run.positions.len(), 2);
        assert_eq!(r.problems.len(), 1);
        let msg = r.problems[0].to_string();
        assert!(msg.starts_with("t.epd:3:"), "{msg}");
        assert!(r.run.positions[0].error.is_some());
        assert!(r.run.positions[1].solved);
        assert_eq!(r.run.positions[1].index, 2);
    }

    #[test]
    fn dm_by_score_or_by_a_mating_line() {
        // Mate in 1 with the rook; ce says mate in 1.
        let base = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - dm 1;";
        let by_ce = one(&format!("{base} ce 32766; pm Rd8#;\n"));
        assert!(by_ce.run.positions[0].solved);
        // No score, but the pm mates at once.
        let by_line = one(&format!("{base} pm Rd8#;\n"));
        assert!(by_line.run.positions[0].solved);
        // A move that does not mate, and no mate score.
        let wrong = one(&format!("{base} pm Rd7; ce 300;\n"));
        assert!(!wrong.run.positions[0].solved);
    }

    #[test]
    fn unanalysed_records_are_errors_not_misses() {
        let r = one("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"x\";\n");
        let p = &r.run.positions[0];
        assert!(!p.solved && !p.is_missed());
        assert_eq!(p.error.as_deref(), Some("not analysed: no pm, pv or ce"));
    }

    #[test]
    fn tsol_and_nsol() {
        let r = one("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; pm Rd8#; Tsol 15; Nsol 900;\n");
        let p = &r.run.positions[0];
        assert_eq!(
            (p.time_to_solution_ms, p.nodes_to_solution),
            (Some(15), Some(900))
        );
    }

    #[test]
    fn matetrack_bm_mated() {
        // Black to move is mated in 1 whatever it plays: any move solves.
        let r = one("k7/8/1K6/8/8/8/8/7R b - - bm #-1; pm Kb8;\n");
        let p = &r.run.positions[0];
        assert_eq!(p.expected.mated, Some(1));
        assert!(p.solved, "{p:?}");
    }
}
