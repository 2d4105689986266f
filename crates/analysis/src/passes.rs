//! The mate search in passes (`rookery epd mate --moves N --up-to M`): pfms
//! for mates of N moves, then N+1, ..., M, each pass over the previous
//! pass's output, so that a record solved by a short mate is skipped by the
//! longer searches; with earlier outputs of the same run (`--resume`), every
//! pass keeps what the last pass would keep.

use crate::analyst::{AnalysisLimits, Analyst};
use crate::run::{run_verb, Tick, VerbOptions, VerbSummary};
use crate::verbs::{Extras, Verb};
use std::io::{self, BufRead, Cursor};

/// What a run in passes does: the mate lengths and the effort per position.
#[derive(Clone, Debug)]
pub struct MatePasses {
    /// The first pass looks for mates of this many moves (at least 1).
    pub from: u32,
    /// The last pass looks for mates of this many moves (at least `from`).
    pub to: u32,
    /// Effort per position, in every pass.
    pub limits: AnalysisLimits,
    /// Optional operations to add.
    pub extras: Extras,
}

impl MatePasses {
    /// The options of the pass for mates of `moves` moves: records the last
    /// pass would keep are kept from earlier outputs.
    pub fn pass(&self, moves: u32) -> VerbOptions {
        VerbOptions {
            verb: Verb::Mate(moves),
            limits: self.limits.clone(),
            extras: self.extras,
            solution_opcodes: false,
            keep_as: Some(Verb::Mate(self.to)),
        }
    }
}

/// What a run in passes reports as it goes.
#[derive(Debug)]
pub enum PassEvent<'a> {
    /// The pass for mates of `moves` moves starts.
    Start {
        /// The mate length of the pass.
        moves: u32,
    },
    /// Progress within the pass.
    Tick(Tick),
    /// The pass has ended.
    Done {
        /// The mate length of the pass.
        moves: u32,
        /// Its counts and problems.
        summary: &'a VerbSummary,
    },
}

/// Why a run in passes stopped.
#[derive(Debug, thiserror::Error)]
pub enum PassError<E> {
    /// Reading, writing or an analyst's panic, as in [`run_verb`].
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The engines for a later pass could not be started.
    #[error("cannot start the engines of a pass: {0}")]
    Start(E),
}

/// Runs pfms over the EPD text `input` in the passes of `plan`, returning
/// the last pass's output. `analysts` are the engines of the first pass
/// (started by the caller, so that an engine that cannot start changes
/// nothing); `restart` starts those of each later pass. `earlier` are
/// earlier outputs of the same run (`--resume`), most recent first: each
/// pass reads them beside its input (see [`crate::resumable`]).
///
/// # Errors
/// [`PassError::Io`] as [`run_verb`] (I/O, an analyst's panic);
/// [`PassError::Start`] when `restart` fails. Record and engine problems are
/// in each pass's summary ([`PassEvent::Done`]).
pub fn run_mate_passes<E>(
    input: Vec<u8>,
    earlier: &[Vec<u8>],
    analysts: Vec<Box<dyn Analyst>>,
    mut restart: impl FnMut() -> Result<Vec<Box<dyn Analyst>>, E>,
    plan: &MatePasses,
    mut event: impl FnMut(PassEvent<'_>),
) -> Result<Vec<u8>, PassError<E>> {
    let mut data = input;
    let mut analysts = Some(analysts);
    for moves in plan.from..=plan.to {
        let engines = match analysts.take() {
            Some(e) => e,
            None => restart().map_err(PassError::Start)?,
        };
        let mut previous: Vec<Box<dyn BufRead + Send>> = earlier
            .iter()
            .map(|v| Box::new(Cursor::new(v.clone())) as Box<dyn BufRead + Send>)
            .collect();
        let mut next = Vec::with_capacity(data.len() + data.len() / 4);
        event(PassEvent::Start { moves });
        let summary = run_verb(
            Cursor::new(std::mem::take(&mut data)),
            &mut next,
            engines,
            &plan.pass(moves),
            false,
            &mut previous,
            |t| event(PassEvent::Tick(t)),
        )?;
        event(PassEvent::Done {
            moves,
            summary: &summary,
        });
        data = next;
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyst::{AnalystError, BuiltinAnalyst};

    fn builtin() -> Result<Vec<Box<dyn Analyst>>, AnalystError> {
        Ok(vec![Box::new(BuiltinAnalyst::new(1)?) as Box<dyn Analyst>])
    }

    #[test]
    fn each_pass_reads_the_last_and_skips_what_it_solved() {
        // A mate in 1 (Rd8#) and a mate in 2 (Kb6, then Rh8#).
        let input = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - id \"m1\";\n\
                     k7/8/2K5/8/8/8/8/7R w - - id \"m2\";\n";
        let plan = MatePasses {
            from: 1,
            to: 2,
            limits: AnalysisLimits {
                depth: Some(6),
                ..AnalysisLimits::default()
            },
            extras: Extras::default(),
        };
        let mut restarts = 0;
        let mut seen = Vec::new();
        let out = run_mate_passes(
            input.as_bytes().to_vec(),
            &[],
            builtin().unwrap(),
            || {
                restarts += 1;
                builtin()
            },
            &plan,
            |e| match e {
                PassEvent::Start { moves } => seen.push(format!("start {moves}")),
                PassEvent::Tick(_) => {}
                PassEvent::Done { moves, summary } => seen.push(format!(
                    "done {moves}: {} analysed, {} skipped",
                    summary.analysed, summary.skipped
                )),
            },
        )
        .unwrap();
        assert_eq!(
            seen,
            [
                "start 1",
                "done 1: 2 analysed, 0 skipped",
                "start 2",
                "done 2: 1 analysed, 1 skipped"
            ]
        );
        assert_eq!(restarts, 1, "one set of engines a pass");
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(lines[0].contains("dm 1;"), "{out}");
        assert!(lines[1].contains("dm 2;"), "{out}");
    }
}
