//! The EPD analysis verbs of §7: pfga (general analysis), pfms (mate
//! search) and pfts (target search), one record at a time.

use crate::analyst::{Analysis, AnalysisLimits, Analyst, AnalystError, Score};
use rookery_epd::{ce_from_mate, Operation, Record};

/// Which optional operations a verb adds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Extras {
    /// `pm` (predicted move).
    pub pm: bool,
    /// `sm` (supplied move).
    pub sm: bool,
    /// `acn` (nodes).
    pub acn: bool,
    /// `acs` (seconds).
    pub acs: bool,
    /// `pv` (for pfms and pfts, where it is optional).
    pub pv: bool,
}

/// The verb to apply.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verb {
    /// pfga §7.2: add `pv` and `ce` (and the extras).
    Analyse,
    /// pfms §7.3: look for a mate in this many moves where `dm` is absent or larger.
    Mate(u32),
    /// pfts §7.5: add `pm` (and the extras).
    Target,
}

/// The `ce` of a score (§6.7 for mates).
pub fn ce_of(score: Score) -> i32 {
    match score {
        Score::Cp(c) => c.clamp(-32000, 32000),
        Score::Mate(n) => ce_from_mate(n).unwrap_or(if n > 0 { 32001 } else { -32001 }),
    }
}

/// What applying a verb to one record did.
#[derive(Clone, Debug, PartialEq)]
pub enum Applied {
    /// The record was analysed.
    Analysed(Box<Analysis>),
    /// The side to move has no legal move (mate or stalemate): written per the spec, no search.
    NoMoves,
    /// The record was skipped (pfms: a mate as short is already recorded).
    Skipped,
    /// The search found nothing to add (pfms: no mate of that length).
    NothingFound(Box<Analysis>),
}

/// Applies `verb` to `record` in place, using `analyst`.
///
/// # Errors
/// [`AnalystError`] if the engine fails; the record is then left unchanged.
pub fn apply(
    verb: Verb,
    record: &mut Record,
    analyst: &mut dyn Analyst,
    limits: &AnalysisLimits,
    extras: Extras,
) -> Result<Applied, AnalystError> {
    let pos = record.position_with_clocks();
    if let Verb::Mate(n) = verb {
        if record.dm().is_some_and(|dm| dm > 0 && dm as u32 <= n) {
            return Ok(Applied::Skipped);
        }
    }
    if !pos.has_legal_move() {
        match verb {
            Verb::Analyse => {
                record.set(Operation::Pv(Vec::new()));
                let ce = if pos.is_check() {
                    ce_from_mate(0).unwrap_or(-32767)
                } else {
                    0
                };
                record.set(Operation::Ce(ce));
            }
            Verb::Mate(_) | Verb::Target => {}
        }
        return Ok(Applied::NoMoves);
    }
    let mut limits = limits.clone();
    if let Verb::Mate(n) = verb {
        limits.mate = Some(n);
    }
    let analysis = analyst.analyse(&pos, &limits)?;
    let Some(best) = analysis.best else {
        return Ok(Applied::NothingFound(Box::new(analysis)));
    };
    match verb {
        Verb::Analyse => {
            record.set(Operation::Pv(analysis.pv.clone()));
            record.set(Operation::Ce(analysis.score.map_or(0, ce_of)));
            if extras.pm {
                record.set(Operation::Pm(best));
            }
            if extras.sm {
                record.set(Operation::Sm(best));
            }
        }
        Verb::Mate(n) => {
            let mated = matches!(analysis.score, Some(Score::Mate(m)) if m > 0 && m as u32 <= n);
            if !mated {
                return Ok(Applied::NothingFound(Box::new(analysis)));
            }
            record.set(Operation::Dm(n as i32));
            record.set(Operation::Pm(best));
            if extras.pv {
                record.set(Operation::Pv(analysis.pv.clone()));
            }
        }
        Verb::Target => {
            record.set(Operation::Pm(best));
            if extras.pv {
                record.set(Operation::Pv(analysis.pv.clone()));
            }
        }
    }
    if extras.acn {
        record.set(Operation::Acn(analysis.nodes));
    }
    if extras.acs {
        record.set(Operation::Acs(analysis.elapsed.as_secs()));
    }
    Ok(Applied::Analysed(Box::new(analysis)))
}
