//! The journal of an Argus event (feature `server`): its plan, and reading
//! it back for `--resume` or a standby's takeover (see [`super::server`]).

use super::config::EventConfig;
use super::server::ServeError;
use crate::journal::{Journal, JournalState};
use crate::record::{GameRecord, MoveRecord};
use crate::schedule::schedule;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The journal's plan for an Argus event.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Plan {
    /// Always `argus`.
    kind: String,
    event: String,
    date: String,
    pgn_len: u64,
    players: Vec<String>,
    pairings: Vec<Pairing>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Pairing {
    game: usize,
    round: usize,
    white: String,
    black: String,
}

/// What a journal gives an event that resumes.
pub(super) struct Resumed {
    /// Finished games, in the order they ended.
    pub(super) finished: Vec<GameRecord>,
    /// Games begun and not finished: their moves so far.
    pub(super) in_progress: HashMap<usize, Vec<MoveRecord>>,
    /// The event's date, as the plan has it.
    pub(super) date: String,
    /// Where the event's games begin in the PGN file.
    pub(super) pgn_base: u64,
}

/// The journal of a new event: its plan written, the PGN file's length
/// recorded.
pub(super) fn new_journal(cfg: &EventConfig, date: &str) -> Result<Journal, ServeError> {
    let pgn_len = std::fs::metadata(&cfg.pgn).map_or(0, |m| m.len());
    let plan = Plan {
        kind: "argus".into(),
        event: cfg.name.clone(),
        date: date.to_string(),
        pgn_len,
        players: cfg.players.iter().map(|p| p.name.clone()).collect(),
        pairings: schedule(cfg.players.len(), cfg.pairing, cfg.rounds, cfg.games)
            .iter()
            .map(|g| Pairing {
                game: g.number,
                round: g.round,
                white: cfg.players[g.white].name.clone(),
                black: cfg.players[g.black].name.clone(),
            })
            .collect(),
    };
    if let Some(dir) = cfg.journal.parent() {
        std::fs::create_dir_all(dir).map_err(|source| ServeError::Io {
            what: format!("journal directory {}", dir.display()),
            source,
        })?;
    }
    let value = serde_json::to_value(&plan).map_err(|e| ServeError::Io {
        what: "journal plan".into(),
        source: std::io::Error::other(e),
    })?;
    Ok(Journal::create(&cfg.journal, &value, false)?)
}

/// Reads an event's journal back for `--resume`.
pub(super) fn resume_journal(
    cfg: &EventConfig,
    pgn_base: Option<u64>,
) -> Result<(Journal, Resumed), ServeError> {
    let state = JournalState::read(&cfg.journal)?;
    let bad = |why: String| ServeError::Resume {
        path: cfg.journal.clone(),
        why,
    };
    let plan: Plan = serde_json::from_value(state.plan.clone())
        .map_err(|e| bad(format!("not the journal of an Argus event ({e})")))?;
    if plan.kind != "argus" {
        return Err(bad(format!("a journal of kind {:?}", plan.kind)));
    }
    let players: Vec<String> = cfg.players.iter().map(|p| p.name.clone()).collect();
    if plan.event != cfg.name || plan.players != players {
        return Err(bad(format!(
            "it is the journal of {:?} with players {:?}, not of {:?} with {:?}",
            plan.event, plan.players, cfg.name, players
        )));
    }
    let schedule = schedule(cfg.players.len(), cfg.pairing, cfg.rounds, cfg.games);
    let same = plan.pairings.len() == schedule.len()
        && plan.pairings.iter().zip(&schedule).all(|(p, g)| {
            p.game == g.number
                && p.white == cfg.players[g.white].name
                && p.black == cfg.players[g.black].name
        });
    if !same {
        return Err(bad("its pairings are not the event file's".into()));
    }
    let finished: Vec<GameRecord> = state.finished().into_iter().cloned().collect();
    let in_progress = state
        .games
        .iter()
        .filter(|(_, g)| g.end.is_none())
        .map(|(&n, g)| (n, g.moves.clone()))
        .collect();
    let journal = Journal::reopen(&state, false)?;
    Ok((
        journal,
        Resumed {
            finished,
            in_progress,
            date: plan.date,
            pgn_base: pgn_base.unwrap_or(plan.pgn_len),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Entry;

    #[test]
    fn a_journal_resumes_only_its_own_event() {
        let dir = std::env::temp_dir().join(format!("rookery-argus-plan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let toml = |name: &str| {
            format!(
                "[event]\nname = \"{name}\"\ntime_control = \"st=1\"\npgn = \"g.pgn\"\nlog_dir = \"l\"\n\
                 [[player]]\nname = \"A\"\ntoken = \"a\"\n[[player]]\nname = \"B\"\ntoken = \"b\"\n"
            )
        };
        let cfg = EventConfig::from_toml(&toml("Open"), &dir).unwrap();
        std::fs::write(&cfg.pgn, "[Event \"earlier\"]\n\n*\n\n").unwrap();
        let mut j = new_journal(&cfg, "2026.01.02").unwrap();
        j.append(&Entry::Start { game: 0 }).unwrap();
        drop(j);
        let (_, r) = resume_journal(&cfg, None).unwrap();
        assert_eq!(r.pgn_base, 22, "the PGN's length when the event began");
        assert_eq!(r.date, "2026.01.02");
        assert_eq!(r.in_progress.keys().copied().collect::<Vec<_>>(), [0]);
        let other = EventConfig::from_toml(&toml("Closed"), &dir).unwrap();
        let e = resume_journal(&other, None).err().unwrap().to_string();
        assert!(e.contains("not of \"Closed\""), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
