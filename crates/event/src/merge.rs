//! The merge of a match played in shards (`rookery match merge`): the
//! shards' games put back into one match, as one run that played the same
//! games would have written and counted them.
//!
//! Each shard's part is its PGN output `OUT.shard-K-of-N`
//! ([`rookery_io::shard::Shard::part_path`]) with its journal beside it
//! (`OUT.shard-K-of-N.journal`). The journal has the shard's plan (the
//! match, and which shard it is), every finished game's record and whether
//! the shard is over; the part's PGN is written from those records, so the
//! merge takes the games from the journals: the games of every shard in
//! schedule order ([`Merged::pgn_text`]: byte for byte what an unsharded
//! run that played them one at a time writes), and the statistics counted
//! over them with the same [`Standings`] and SPRT as a run's
//! ([`Merged::summary`]).
//!
//! Nothing partial is merged as if whole: a part that is no part of this
//! match, of another number of shards, a shard given twice, a missing
//! shard and a shard not over are each a [`MergeError`] naming the file.

use crate::journal::{JournalError, JournalState};
use crate::runner::{RunPlan, SprtReport};
use crate::standings::Standings;

use crate::tournament::{MatchError, MatchPlan, MatchStop, MatchSummary};
use rookery_game::record::{GameRecord, RecordError};
use rookery_io::shard::Shard;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why shards cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No part of the output is there.
    #[error("no shard of {} (looked for {}.shard-K-of-N beside it)", .out.display(), .out.display())]
    NoParts {
        /// The merged output.
        out: PathBuf,
    },
    /// A file given is not a part of a sharded match's output.
    #[error("{}: not a shard's part ({why})", .path.display())]
    NotAPart {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A part is of a run in another number of shards than the others.
    #[error(
        "{}: shard {shard} is of a run in {} shards, but {} is of a run in {} shards: \
         every shard of a match must be run with the same N", .path.display(), .shard.count(),
        .other.display(), .other_shard.count()
    )]
    ShardCount {
        /// The part.
        path: PathBuf,
        /// Its shard.
        shard: Shard,
        /// A part of another count.
        other: PathBuf,
        /// That part's shard.
        other_shard: Shard,
    },
    /// Two parts are the same shard.
    #[error("{} and {} are both shard {shard}: merge one of them", .first.display(), .second.display())]
    Duplicate {
        /// The shard.
        shard: Shard,
        /// One part.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// A part's journal says another shard than its name.
    #[error("{}: named shard {named}, but its journal is of shard {says}", .path.display())]
    Misnamed {
        /// The part.
        path: PathBuf,
        /// The shard its name gives.
        named: Shard,
        /// The shard its journal gives.
        says: String,
    },
    /// A part is of another match.
    #[error(
        "{}: a shard of match {id}, not of match {expected} ({} is): other engines, limits, \
         openings, seed or tags", .path.display(), .first.display()
    )]
    Foreign {
        /// The part.
        path: PathBuf,
        /// Its match id.
        id: String,
        /// The first part's.
        expected: String,
        /// The first part.
        first: PathBuf,
    },
    /// Shards are missing.
    #[error("missing shard{} {}: no {}", if .missing.len() > 1 { "s" } else { "" },
        .missing.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        .files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    Missing {
        /// The shards.
        missing: Vec<Shard>,
        /// Their parts' paths.
        files: Vec<PathBuf>,
    },
    /// A shard has not finished its share (still running, or stopped).
    #[error(
        "{}: shard {shard} is not over ({done} of its {share} games finished): let it finish, \
         or finish it with `rookery match --resume {}`", .path.display(), .path.display()
    )]
    Incomplete {
        /// Its journal.
        path: PathBuf,
        /// The shard.
        shard: Shard,
        /// Games it finished.
        done: usize,
        /// Games in its share.
        share: usize,
    },
    /// A journaled record does not replay.
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// The shards' games as one match.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The match as one run: the shards' plan without the shard and pool.
    pub plan: MatchPlan,
    /// Every game the shards finished, in schedule order.
    pub records: Vec<GameRecord>,
    /// The statistics over them, as the match verb reports them.
    pub summary: MatchSummary,
    /// The parts merged, shard 1 first.
    pub parts: Vec<PathBuf>,
}

/// The journal beside a part.
pub fn journal_of(part: &Path) -> PathBuf {
    let mut s = part.as_os_str().to_os_string();
    s.push(".journal");
    PathBuf::from(s)
}

/// The parts of `out` in its directory (`OUT.shard-K-of-N`), in name order.
///
/// # Errors
/// [`MergeError::NotAPart`] when the directory cannot be read.
pub fn find_parts(out: &Path) -> Result<Vec<PathBuf>, MergeError> {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let entries = std::fs::read_dir(&dir).map_err(|e| MergeError::NotAPart {
        path: dir.clone(),
        why: format!("cannot list the directory: {e}"),
    })?;
    let name = out.file_name().unwrap_or_default();
    let mut parts: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| Shard::of_part_path(p).is_some_and(|(base, _)| base.file_name() == Some(name)))
        .collect();
    parts.sort();
    Ok(parts)
}

/// One part read.
struct Part {
    path: PathBuf,
    shard: Shard,
    plan: MatchPlan,
    run: RunPlan,
    state: JournalState,
}

fn read_part(path: &Path) -> Result<Part, MergeError> {
    let not = |why: String| MergeError::NotAPart {
        path: path.to_path_buf(),
        why,
    };
    let (_, shard) = Shard::of_part_path(path)
        .ok_or_else(|| not("its name does not end in .shard-K-of-N".into()))?;
    let journal = journal_of(path);
    let state = JournalState::read(&journal).map_err(|e| match e {
        JournalError::Io { error, .. } => not(format!(
            "its journal {} cannot be read: {error}",
            journal.display()
        )),
        other => not(other.to_string()),
    })?;
    let plan = MatchPlan::from_journal(&state).map_err(|e| match e {
        MatchError::NotAMatch { why, .. } => not(format!("{}: {why}", journal.display())),
        other => not(other.to_string()),
    })?;
    let run: RunPlan = serde_json::from_value(state.plan.clone())
        .map_err(|e| not(format!("{}: {e}", journal.display())))?;
    if plan.shard != Some(shard) {
        return Err(MergeError::Misnamed {
            path: path.to_path_buf(),
            named: shard,
            says: plan
                .shard
                .map_or_else(|| "none (an unsharded run)".to_string(), |s| s.to_string()),
        });
    }
    Ok(Part {
        path: path.to_path_buf(),
        shard,
        plan,
        run,
        state,
    })
}

/// Merges the shards whose parts are `parts` (every shard of the match,
/// each once, every one over).
///
/// # Errors
/// [`MergeError`], naming the file at fault.
pub fn merge(parts: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut read: Vec<Part> = Vec::new();
    for p in parts {
        read.push(read_part(p)?);
    }
    let Some(first) = read.first() else {
        return Err(MergeError::NoParts {
            out: PathBuf::new(),
        });
    };
    let count = first.shard.count();
    let id = first.plan.match_id();
    let mut by_shard: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, p) in read.iter().enumerate() {
        if p.shard.count() != count {
            return Err(MergeError::ShardCount {
                path: p.path.clone(),
                shard: p.shard,
                other: first.path.clone(),
                other_shard: first.shard,
            });
        }
        if let Some(&j) = by_shard.get(&p.shard.index()) {
            return Err(MergeError::Duplicate {
                shard: p.shard,
                first: read[j].path.clone(),
                second: p.path.clone(),
            });
        }
        by_shard.insert(p.shard.index(), i);
        let other = p.plan.match_id();
        if other != id {
            return Err(MergeError::Foreign {
                path: p.path.clone(),
                id: other,
                expected: id.clone(),
                first: first.path.clone(),
            });
        }
    }
    let base = Shard::of_part_path(&first.path).map_or_else(PathBuf::new, |(b, _)| b);
    let missing: Vec<Shard> = (0..count)
        .filter(|i| !by_shard.contains_key(i))
        .filter_map(|i| Shard::new(i, count).ok())
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing {
            files: missing.iter().map(|s| s.part_path(&base)).collect(),
            missing,
        });
    }
    let schedule = first.run.schedule;
    let mut records: Vec<GameRecord> = Vec::new();
    for &i in by_shard.values() {
        let p = &read[i];
        let share = schedule
            .iter()
            .filter(|g| schedule.in_shard(g, p.shard))
            .count();
        let mine: Vec<&GameRecord> = p
            .state
            .finished()
            .into_iter()
            .filter(|r| {
                schedule
                    .get(r.number)
                    .is_some_and(|g| schedule.in_shard(&g, p.shard))
            })
            .collect();
        if p.state.over.is_none() && mine.len() < share {
            return Err(MergeError::Incomplete {
                path: journal_of(&p.path),
                shard: p.shard,
                done: mine.len(),
                share,
            });
        }
        records.extend(mine.into_iter().cloned());
    }
    records.sort_by_key(|r| r.number);
    let mut plan = first.plan.clone();
    plan.shard = None;
    plan.pool = None;
    plan.pgn_out = Some(base);
    plan.journal = None;
    plan.epd_out = plan
        .epd_out
        .as_deref()
        .and_then(Shard::of_part_path)
        .map(|(b, _)| b);
    let mut standings = Standings::new(first.run.players.clone());
    for r in &records {
        if let Some(g) = schedule.get(r.number) {
            standings.set_name(g.white, &r.white);
            standings.set_name(g.black, &r.black);
            standings.add(&g, r);
        }
    }
    let sprt = plan
        .sprt
        .map(|sprt| SprtReport::over(&sprt, standings.versus(0, 1)));
    let unplayed = schedule.len().saturating_sub(records.len());
    let stopped = sprt
        .as_ref()
        .and_then(|r| r.decision.as_ref())
        .filter(|_| unplayed > 0)
        .map(|d| MatchStop::Sprt(d.status.state));
    let summary = MatchSummary {
        standings,
        sprt,
        stopped,
        unplayed,
        overhead_us: None,
        warnings: Vec::new(),
        knockout: None,
    };
    let parts = by_shard.values().map(|&i| read[i].path.clone()).collect();
    Ok(Merged {
        plan,
        records,
        summary,
        parts,
    })
}

impl Merged {
    /// The games as PGN, in schedule order, in the match's PGN style.
    ///
    /// # Errors
    /// A record that does not replay.
    pub fn pgn_text(&self) -> Result<String, RecordError> {
        let mut out = String::new();
        for r in &self.records {
            out.push_str(&r.pgn_text_with(&self.plan.pgn_style)?);
        }
        Ok(out)
    }

    /// The games' final positions as EPD, in schedule order.
    ///
    /// # Errors
    /// A record that does not replay.
    pub fn epd_text(&self) -> Result<String, RecordError> {
        let mut out = String::new();
        for r in &self.records {
            out.push_str(&r.epd_line()?);
            out.push('\n');
        }
        Ok(out)
    }
}
