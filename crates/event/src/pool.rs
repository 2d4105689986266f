//! The pool of a match played in shards (`rookery match --shard K/N --pool
//! DIR`): a directory every shard sees (a cluster's shared file system),
//! where each shard publishes the game pairs it finished and reads the
//! others', so that the SPRT is taken over every shard's games and stops
//! them all once it decides, with no server to run.
//!
//! The directory holds:
//! - `match.json`, the match's identity ([`match_id`] of the plan's
//!   identity, and the identity itself for a reader), written once by the
//!   first shard to come; a shard of another match (other engines, limits,
//!   openings, seed or number of shards) is refused ([`PoolError::Foreign`]);
//! - one file per finished block (a pair of games on one opening with
//!   colours reversed), `pair-B-shard-K-of-N.json` ([`pair_file_name`]):
//!   the match id, the shard, the block, its games' results and the blocks
//!   the shard knew of when it began the block. It is written under a
//!   temporary name and renamed, so a reader sees all of it or nothing.
//!
//! A file that is torn, of another match, of a block that is not its
//! shard's, or with games that are not its block's is ignored, once, with
//! a note naming it ([`Pool::take_notes`]): a shard never counts what it
//! cannot trust, and never stops for it.

use crate::schedule::Schedule;
use crate::standings::Standings;
use crate::stats::Tally;
use rookery_game::record::{GameOutcome, Termination};
use rookery_io::shard::Shard;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The file that says which match a pool is of.
pub const IDENTITY_FILE: &str = "match.json";

/// One game of a published block: its number in the schedule and result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolGame {
    /// Its number in the schedule (from 0).
    pub number: usize,
    /// Its result.
    pub outcome: GameOutcome,
    /// Why it ended.
    pub termination: Termination,
    /// The ending in words (`White mates`); empty in a pool written before
    /// rookery kept them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// A finished block as a shard publishes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolPair {
    /// The match ([`match_id`]).
    #[serde(rename = "match")]
    pub match_id: String,
    /// The shard that played it, `K/N`.
    pub shard: String,
    /// The block (from 0): games `block × g` to `block × g + g - 1` of a
    /// schedule with `g` games per encounter.
    pub block: usize,
    /// The blocks in the pool (every shard's) when the shard began this
    /// one, as ranges `[first, last]`: what its decision to begin it was
    /// taken on (absent for a block begun before a restart).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<Vec<(usize, usize)>>,
    /// Its games, in schedule order.
    pub games: Vec<PoolGame>,
}

/// Why a pool cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// The directory or a file in it cannot be read or written.
    #[error("pool {}: {error}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The pool is another match's (or its identity cannot be read).
    #[error(
        "pool {}: {why}: it is not this match's pool (match {expected}); give each match a \
         pool of its own", .path.display()
    )]
    Foreign {
        /// The pool's identity file.
        path: PathBuf,
        /// What it says instead.
        why: String,
        /// This match's id.
        expected: String,
    },
}

fn io_err(path: &Path) -> impl Fn(io::Error) -> PoolError + '_ {
    move |error| PoolError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// The id of a match from its identity (what decides its games): the
/// 64-bit FNV-1a hash of the identity's JSON text, in hex.
pub fn match_id(identity: &serde_json::Value) -> String {
    let text = identity.to_string();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The name of block `block`'s file when `shard` publishes it.
pub fn pair_file_name(block: usize, shard: Shard) -> String {
    format!(
        "pair-{block:09}-shard-{}-of-{}.json",
        shard.number(),
        shard.count()
    )
}

/// The block and shard a pair file's name gives (`None`: no pair file's
/// name).
pub fn parse_pair_file_name(name: &str) -> Option<(usize, Shard)> {
    let rest = name.strip_prefix("pair-")?.strip_suffix(".json")?;
    let (block, rest) = rest.split_once("-shard-")?;
    let (k, n) = rest.split_once("-of-")?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !(digits(block) && digits(k) && digits(n)) {
        return None;
    }
    let shard: Shard = format!("{k}/{n}").parse().ok()?;
    Some((block.parse().ok()?, shard))
}

/// Sorted block numbers as ranges `[first, last]`.
fn ranges(blocks: impl Iterator<Item = usize>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for b in blocks {
        match out.last_mut() {
            Some((_, last)) if *last + 1 == b => *last = b,
            _ => out.push((b, b)),
        }
    }
    out
}

/// Writes `bytes` to `dir/name` whole or not at all: under a temporary name
/// first, then renamed.
fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, PoolError> {
    let tmp = dir.join(format!(".tmp-{name}-{}", std::process::id()));
    let to = dir.join(name);
    let mut f = std::fs::File::create(&tmp).map_err(io_err(&tmp))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_data())
        .map_err(io_err(&tmp))?;
    drop(f);
    std::fs::rename(&tmp, &to).map_err(io_err(&to))?;
    Ok(to)
}

/// A shard's view of the pool (see the module docs).
#[derive(Clone, Debug)]
pub struct Pool {
    dir: PathBuf,
    id: String,
    shard: Shard,
    schedule: Schedule,
    /// Every block read or published, by number.
    pairs: BTreeMap<usize, PoolPair>,
    /// The pooled games counted.
    standings: Standings,
    /// Files read, or ignored with a note (never read again).
    seen: HashSet<OsString>,
    notes: Vec<String>,
}

impl Pool {
    /// Opens the pool in `dir` (made if missing) for `shard` of the match
    /// with this identity, whose games are `schedule`'s among `players`:
    /// the identity file is written if the pool is new, else checked. The
    /// blocks already there are read.
    ///
    /// # Errors
    /// [`PoolError::Io`] when the directory cannot be made or read,
    /// [`PoolError::Foreign`] when it is another match's pool.
    pub fn open(
        dir: &Path,
        identity: &serde_json::Value,
        shard: Shard,
        schedule: Schedule,
        players: Vec<String>,
    ) -> Result<Pool, PoolError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let id = match_id(identity);
        let path = dir.join(IDENTITY_FILE);
        if std::fs::symlink_metadata(&path).is_err() {
            // Written aside and linked in: of shards coming at once, one
            // identity file wins whole, and the others read it.
            let text = serde_json::json!({"match": id, "identity": identity}).to_string();
            let tmp = write_atomically(
                dir,
                &format!(".tmp-{IDENTITY_FILE}-{}", std::process::id()),
                text.as_bytes(),
            )?;
            match std::fs::hard_link(&tmp, &path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                // A file system without hard links: renamed in (two
                // matches starting on one pool at the same instant could
                // then both think it theirs).
                Err(_) if std::fs::symlink_metadata(&path).is_err() => {
                    std::fs::rename(&tmp, &path).map_err(io_err(&path))?;
                }
                Err(_) => {}
            }
            let _ = std::fs::remove_file(&tmp);
        }
        let foreign = |why: String| PoolError::Foreign {
            path: path.clone(),
            why,
            expected: id.clone(),
        };
        let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| foreign(format!("its identity does not read ({e})")))?;
        match value.get("match").and_then(|m| m.as_str()) {
            Some(m) if m == id => {}
            Some(m) => return Err(foreign(format!("it is the pool of match {m}"))),
            None => return Err(foreign("it names no match".into())),
        }
        let mut pool = Pool {
            dir: dir.to_path_buf(),
            id,
            shard,
            schedule,
            pairs: BTreeMap::new(),
            standings: Standings::new(players),
            seen: HashSet::new(),
            notes: Vec::new(),
        };
        pool.refresh()?;
        Ok(pool)
    }

    /// The match's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The pool's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether block `block` is in the pool (read or published).
    pub fn has(&self, block: usize) -> bool {
        self.pairs.contains_key(&block)
    }

    /// Blocks in the pool.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the pool has no block yet.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The blocks in the pool as ranges `[first, last]`.
    pub fn known(&self) -> Vec<(usize, usize)> {
        ranges(self.pairs.keys().copied())
    }

    /// The pooled games counted: every shard's published blocks.
    pub fn standings(&self) -> &Standings {
        &self.standings
    }

    /// Every pooled game of the first player against the second, from the
    /// first's view (the pairs: the SPRT's counts).
    pub fn tally(&self) -> Tally {
        self.standings.versus(0, 1)
    }

    /// Notes for the user (files ignored), taken once.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// Reads the blocks other shards published since the last look. A file
    /// that cannot be trusted is ignored with a note; a directory that
    /// cannot be listed is a note too (a shared file system's hiccup: the
    /// next look may succeed).
    ///
    /// # Errors
    /// None today; kept for a pool that must stop the match.
    pub fn refresh(&mut self) -> Result<(), PoolError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) => {
                self.notes.push(format!(
                    "Warning: pool {}: cannot be listed ({e}); trying again before the next pair",
                    self.dir.display()
                ));
                return Ok(());
            }
        };
        let mut names: Vec<OsString> = entries.flatten().map(|e| e.file_name()).collect();
        names.sort();
        for name in names {
            if self.seen.contains(&name) {
                continue;
            }
            let text = name.to_string_lossy();
            if text == IDENTITY_FILE || text.starts_with(".tmp-") {
                continue;
            }
            let path = self.dir.join(&name);
            let verdict = self.read_pair(&path, &text);
            self.seen.insert(name.clone());
            match verdict {
                Ok(Some(pair)) => self.add(pair),
                Ok(None) => {}
                Err(why) => self.notes.push(format!(
                    "Warning: pool file {} ignored: {why}",
                    path.display()
                )),
            }
        }
        Ok(())
    }

    /// A pool file checked: `Ok(None)` for one of this pool's blocks
    /// already counted, `Err` with the reason for one not to be trusted.
    fn read_pair(&self, path: &Path, name: &str) -> Result<Option<PoolPair>, String> {
        let (block, shard) = parse_pair_file_name(name)
            .ok_or("not a pool file's name (pair-B-shard-K-of-N.json)")?;
        if self.pairs.contains_key(&block) {
            return Ok(None);
        }
        let bytes = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
        let pair: PoolPair =
            serde_json::from_slice(&bytes).map_err(|e| format!("torn or not a pool file ({e})"))?;
        if pair.match_id != self.id {
            return Err(format!(
                "of match {}, not of this match {}",
                pair.match_id, self.id
            ));
        }
        if pair.shard != shard.to_string() || pair.block != block {
            return Err(format!(
                "it says block {} of shard {}, its name block {block} of shard {shard}",
                pair.block, pair.shard
            ));
        }
        if shard.count() != self.shard.count() {
            return Err(format!(
                "of a run in {} shards, this one is in {}",
                shard.count(),
                self.shard.count()
            ));
        }
        let per = self.schedule.games_per_encounter();
        let numbers: Vec<usize> = pair.games.iter().map(|g| g.number).collect();
        let expected: Vec<usize> = (block * per..block * per + per).collect();
        if numbers != expected {
            return Err(format!(
                "block {block} has games {expected:?}, the file {numbers:?}"
            ));
        }
        for g in &pair.games {
            let owned = self
                .schedule
                .get(g.number)
                .is_some_and(|s| self.schedule.in_shard(&s, shard));
            if !owned {
                return Err(format!("game {} is not shard {shard}'s", g.number + 1));
            }
            if g.outcome == GameOutcome::Unfinished {
                return Err(format!("game {} is unfinished", g.number + 1));
            }
        }
        Ok(Some(pair))
    }

    fn add(&mut self, pair: PoolPair) {
        for g in &pair.games {
            if let Some(s) = self.schedule.get(g.number) {
                self.standings
                    .add_result(&s, g.outcome, g.termination, &g.reason);
            }
        }
        self.pairs.insert(pair.block, pair);
    }

    /// Publishes this shard's finished block `block` with its games'
    /// results and the blocks known when it began, and counts it.
    ///
    /// # Errors
    /// [`PoolError::Io`]: the file cannot be written.
    pub fn publish(
        &mut self,
        block: usize,
        games: Vec<PoolGame>,
        known: Option<Vec<(usize, usize)>>,
    ) -> Result<(), PoolError> {
        if self.pairs.contains_key(&block) {
            return Ok(());
        }
        let pair = PoolPair {
            match_id: self.id.clone(),
            shard: self.shard.to_string(),
            block,
            known,
            games,
        };
        let name = pair_file_name(block, self.shard);
        let bytes = serde_json::to_vec(&pair).map_err(|e| PoolError::Io {
            path: self.dir.join(&name),
            error: io::Error::other(e),
        })?;
        write_atomically(&self.dir, &name, &bytes)?;
        self.seen.insert(OsString::from(name));
        self.add(pair);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::Pairing;

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rookery-pool-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn open(dir: &Path, identity: &serde_json::Value, k: u32) -> Result<Pool, PoolError> {
        let schedule = Schedule::new(2, Pairing::RoundRobin, 10, 2).unwrap();
        Pool::open(
            dir,
            identity,
            Shard::new(k, 2).unwrap(),
            schedule,
            vec!["A".into(), "B".into()],
        )
    }

    fn pair(block: usize, first: GameOutcome, second: GameOutcome) -> Vec<PoolGame> {
        [first, second]
            .into_iter()
            .enumerate()
            .map(|(i, outcome)| PoolGame {
                number: 2 * block + i,
                outcome,
                termination: Termination::Normal,
                reason: String::new(),
            })
            .collect()
    }

    #[test]
    fn shards_see_each_others_pairs_and_ignore_what_they_cannot_trust() {
        let dir = tmp("see");
        let id = serde_json::json!({"engines": ["a", "b"]});
        let mut one = open(&dir, &id, 0).unwrap();
        let mut two = open(&dir, &id, 1).unwrap();
        // A wins both games of block 0 (White in game 0, Black in game 1).
        one.publish(
            0,
            pair(0, GameOutcome::WhiteWins, GameOutcome::BlackWins),
            None,
        )
        .unwrap();
        two.publish(
            1,
            pair(1, GameOutcome::Draw, GameOutcome::Draw),
            Some(one.known()),
        )
        .unwrap();
        // Damage: a torn file, another match's, a block that is not its
        // shard's, a stray file.
        std::fs::write(
            dir.join(pair_file_name(2, Shard::new(0, 2).unwrap())),
            b"{\"mat",
        )
        .unwrap();
        let mut foreign = PoolPair {
            match_id: "0123456789abcdef".into(),
            shard: "2/2".into(),
            block: 3,
            known: None,
            games: pair(3, GameOutcome::Draw, GameOutcome::Draw),
        };
        let write = |p: &PoolPair| {
            let name = pair_file_name(p.block, p.shard.parse().unwrap());
            std::fs::write(dir.join(name), serde_json::to_vec(p).unwrap()).unwrap();
        };
        write(&foreign);
        foreign.match_id = one.id().to_string();
        foreign.block = 4;
        foreign.games = pair(4, GameOutcome::Draw, GameOutcome::Draw);
        write(&foreign);
        std::fs::write(dir.join("notes.txt"), b"hello").unwrap();
        one.refresh().unwrap();
        let t = one.tally();
        assert_eq!((t.wdl.wins, t.wdl.draws, t.wdl.losses), (2, 2, 0));
        assert_eq!(t.ptnml.counts, [0, 0, 1, 0, 1]);
        assert_eq!(one.known(), [(0, 1)]);
        let notes = one.take_notes().join("\n");
        for name in [
            "pair-000000002-shard-1-of-2.json",
            "pair-000000003-shard-2-of-2.json",
            "pair-000000004-shard-2-of-2.json",
            "notes.txt",
        ] {
            assert!(notes.contains(name), "{name} not named: {notes}");
        }
        assert!(notes.contains("torn"), "{notes}");
        assert!(notes.contains("not of this match"), "{notes}");
        assert!(notes.contains("not shard 2/2's"), "{notes}");
        // Said once.
        one.refresh().unwrap();
        assert!(one.take_notes().is_empty());
        // Another match's shard is refused, naming the identity file.
        let e = open(&dir, &serde_json::json!({"engines": ["a", "c"]}), 0).unwrap_err();
        assert!(matches!(e, PoolError::Foreign { .. }), "{e}");
        assert!(e.to_string().contains("match.json"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pair_file_names_read_back() {
        let s = Shard::new(2, 7).unwrap();
        assert_eq!(
            parse_pair_file_name(&pair_file_name(1234, s)),
            Some((1234, s))
        );
        assert_eq!(parse_pair_file_name("pair-1-shard-8-of-7.json"), None);
        assert_eq!(parse_pair_file_name("pair-x-shard-1-of-7.json"), None);
        assert_eq!(
            ranges([0, 1, 2, 5, 7, 8].into_iter()),
            [(0, 2), (5, 5), (7, 8)]
        );
    }
}
