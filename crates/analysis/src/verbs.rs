//! The EPD analysis verbs of §7: pfga (general analysis), pfms (mate
//! search) and pfts (target search), one record at a time.

use crate::analyst::{Analysis, AnalysisLimits, Analyst, AnalystError, Score};
use rookery_epd::{Opcode, Operation, Record};

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

/// Opcodes that hold the result of an analysis: a verb that writes a new
/// analysis removes these from the record first, so that nothing left over
/// from an earlier run contradicts it (§6.19: `pm` is `pv`'s first move).
pub const ANALYSIS_OPCODES: [Opcode; 8] = [
    Opcode::private("acd"),
    Opcode::Acn,
    Opcode::Acs,
    Opcode::Ce,
    Opcode::Pm,
    Opcode::Pv,
    Opcode::private("Tsol"),
    Opcode::private("Nsol"),
];

/// Whether `record` holds what `verb` writes: `pv` and `ce` for pfga, `pm`
/// for pfts, a `dm` of at most N with its `pm` for pfms (a record where no
/// mate was found does not).
pub fn has_verb_opcodes(verb: Verb, record: &Record) -> bool {
    match verb {
        Verb::Analyse => record.pv().is_some() && record.ce().is_some(),
        Verb::Target => record.pm().is_some(),
        Verb::Mate(n) => {
            record.pm().is_some() && record.dm().is_some_and(|d| d > 0 && d as u32 <= n)
        }
    }
}

/// Whether `pv` from `pos` is a legal line that ends in checkmate after
/// `2 * moves - 1` plies.
pub fn is_mate_line(pos: &rookery_core::Position, pv: &[rookery_core::Move], moves: u32) -> bool {
    if pv.len() as u64 != 2 * u64::from(moves) - 1 {
        return false;
    }
    let mut p = pos.clone();
    for &m in pv {
        if !p.is_legal(m) {
            return false;
        }
        p.play_unchecked(m);
    }
    p.is_check() && !p.has_legal_move()
}

fn drop_stale(record: &mut Record) {
    for op in ANALYSIS_OPCODES {
        record.remove(op);
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
                drop_stale(record);
                record.set(Operation::Pv(Vec::new()));
                let score = if pos.is_check() {
                    Score::Mate(0)
                } else {
                    Score::Cp(0)
                };
                record.set(Operation::Ce(score.ce()));
            }
            // No move to predict: an old pm cannot be right.
            Verb::Target => drop_stale(record),
            Verb::Mate(_) => {}
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
            // A ce needs a score: never write one the engine did not give.
            let Some(score) = analysis.score else {
                return Err(AnalystError::NoScore);
            };
            drop_stale(record);
            record.set(Operation::Pv(analysis.pv.clone()));
            record.set(Operation::Ce(score.ce()));
            if extras.pm {
                record.set(Operation::Pm(best));
            }
            if extras.sm {
                record.set(Operation::Sm(best));
                // A supplied variation starting otherwise would contradict it.
                if record.sv().is_some_and(|sv| sv.first() != Some(&best)) {
                    record.remove(Opcode::Sv);
                }
            }
        }
        Verb::Mate(n) => {
            // The length of the mate found (at most n), as the score says.
            let Some(found) = analysis.score.and_then(Score::dm).filter(|&m| m <= n) else {
                return Ok(Applied::NothingFound(Box::new(analysis)));
            };
            drop_stale(record);
            record.set(Operation::Dm(found as i32));
            record.set(Operation::Pm(best));
            // Only a line that really ends in mate is written as the pv.
            if extras.pv && is_mate_line(&pos, &analysis.pv, found) {
                record.set(Operation::Pv(analysis.pv.clone()));
            }
        }
        Verb::Target => {
            drop_stale(record);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BuiltinAnalyst;

    #[test]
    fn mate_search_writes_the_mate_found_not_the_one_asked_for() {
        let mut rec: Record = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - id \"m1\";"
            .parse()
            .unwrap();
        let mut a = BuiltinAnalyst::new(16).unwrap();
        let limits = AnalysisLimits {
            depth: Some(6),
            ..AnalysisLimits::default()
        };
        let extras = Extras {
            pv: true,
            ..Extras::default()
        };
        apply(Verb::Mate(3), &mut rec, &mut a, &limits, extras).unwrap();
        assert_eq!(rec.dm(), Some(1), "{rec}");
        assert!(is_mate_line(rec.position(), rec.pv().unwrap(), 1), "{rec}");
    }

    #[test]
    fn mate_lines_are_checked() {
        let rec: Record = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - pv Rd8#; sv Rd7;"
            .parse()
            .unwrap();
        let pos = rec.position();
        assert!(is_mate_line(pos, rec.pv().unwrap(), 1));
        assert!(!is_mate_line(pos, rec.sv().unwrap(), 1));
        assert!(!is_mate_line(pos, rec.pv().unwrap(), 2));
    }
}
