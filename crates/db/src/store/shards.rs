//! A database from the databases of a sharded import: each shard imports
//! a contiguous run of the input's games into a database of its own
//! (`rookery db import --shard K/N`), and [`Database::merge_parts`] adds
//! their games, in shard order, to one database, which then answers
//! exactly as one built by importing the whole input in one run: the same
//! games under the same numbers, the same names, keys, players and index.
//!
//! The games' records are copied with their names renumbered (no move is
//! read). The index: when no game of a part is left out, a part's games
//! keep their order and are numbered on from the games before them, so
//! its segments are merged as they are, each entry's game numbers raised
//! by the part's offset ([`segment::merge_shifted`]); when a game is left
//! out (`dedupe`: a duplicate of a game of an earlier part or of the
//! database), the index's counts and game lists cannot lose it exactly,
//! so the games kept are replayed from their moves and counted again, as
//! an import counts them.

use super::*;

/// A part's name numbers' numbers in the merged database (by its
/// number).
type Renamed = HashMap<NameId, NameId>;

impl Database {
    /// Adds the games of the databases `parts` (the shards of one import,
    /// in shard order), one transaction as an import is: a killed or
    /// failed merge leaves this database as it was. With
    /// `options.dedupe` a game that repeats one stored before it (in this
    /// database, or in an earlier part) is left out, as an import of the
    /// whole input leaves it out. `progress` hears the games read so far.
    ///
    /// # Errors
    /// [`DbError::Read`] for a part that is not there;
    /// [`DbError::Version`], [`DbError::Store`], [`DbError::Damaged`] of a
    /// part or of this database.
    pub fn merge_parts(
        &self,
        parts: &[&Path],
        options: ImportOptions,
        progress: &mut dyn FnMut(u64),
    ) -> Result<ImportReport, DbError> {
        let mut opened = Vec::with_capacity(parts.len());
        for path in parts {
            if !path.exists() {
                return Err(DbError::Read {
                    file: path.display().to_string(),
                    source: std::io::Error::from(std::io::ErrorKind::NotFound),
                });
            }
            opened.push(Database::open_read_only(path)?);
        }
        let mut renamed: Vec<Renamed> = vec![HashMap::new(); opened.len()];
        let mut report = ImportReport::default();
        let txn = self.store.begin_write().map_err(|e| self.fail(e))?;
        let settled;
        {
            let mut meta = txn.open_table(META).map_err(|e| self.fail(e))?;
            let mut names = txn.open_table(NAMES).map_err(|e| self.fail(e))?;
            let mut name_of = txn.open_table(NAME_OF).map_err(|e| self.fail(e))?;
            let mut t = self.tables(&txn, &meta, &mut names, &mut name_of)?;
            // Each part's first number here, and the games kept: (part,
            // its number there, the number here).
            let mut offsets = Vec::with_capacity(opened.len());
            let mut kept: Vec<(usize, u64, u64)> = Vec::new();
            let mut read = 0u64;
            let old = self.segments()?;
            let mut next = self.fresh_segment(&old)?;
            // Without dedupe every game of every part is kept, numbered on
            // from those before it: the parts' index, their entries
            // shifted, is written on a second thread while the games are
            // copied on this one.
            let planned = match options.dedupe {
                true => None,
                false => {
                    let mut at = t.next_id - 1;
                    let mut planned = Vec::with_capacity(opened.len());
                    for db in &opened {
                        planned.push(at);
                        at += db.games_stored()?;
                    }
                    Some(planned)
                }
            };
            let (early, copied) = std::thread::scope(|scope| {
                let early = planned.as_ref().map(|planned| {
                    let mut n = next;
                    let opened = &opened;
                    scope.spawn(move || (self.shifted_index(opened, planned, &mut n), n))
                });
                let mut copied = Ok(());
                for (i, (db, names)) in opened.iter().zip(&mut renamed).enumerate() {
                    offsets.push(t.next_id - 1);
                    copied = self.copy_games(
                        i,
                        db,
                        names,
                        options,
                        &mut t,
                        &mut report,
                        &mut kept,
                        &mut |n| {
                            read += n;
                            progress(read);
                        },
                    );
                    if copied.is_err() {
                        break;
                    }
                }
                let early =
                    early.map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
                (early, copied)
            });
            // Every game kept, numbered on from those before it: a part's
            // entries are its own with their numbers shifted.
            let shifted =
                report.duplicates == 0 && kept.iter().all(|&(i, id, here)| here == offsets[i] + id);
            let early = match early {
                Some((runs, n)) => {
                    next = n;
                    Some(runs?)
                }
                None => None,
            };
            copied?;
            let runs = match early {
                Some(runs) if shifted && planned.as_ref() == Some(&offsets) => runs,
                early => {
                    // Not the index these games need (not expected without
                    // dedupe): its file goes (as an unlisted file would at
                    // the next open), and the index is made again.
                    for (_, s) in early.into_iter().flatten() {
                        let _ = std::fs::remove_file(s.path());
                    }
                    if shifted {
                        self.shifted_index(&opened, &offsets, &mut next)?
                    } else {
                        self.counted_index(&opened, &kept, options, &mut t, &mut next)?
                    }
                }
            };
            let threads = options.jobs.max(1);
            let (new, replaced) = self.settle(old, runs, Vec::new(), &mut next, threads)?;
            let mut listed = txn.open_table(SEGMENTS).map_err(|e| self.fail(e))?;
            for (n, _) in &replaced {
                listed.remove(*n).map_err(|e| self.fail(e))?;
            }
            for (n, s) in &new {
                listed.insert(*n, s.entries()).map_err(|e| self.fail(e))?;
            }
            settled = (new, replaced);
            t.finish().map_err(|e| self.fail(e))?;
            meta.insert("games", t.next_id - 1)
                .map_err(|e| self.fail(e))?;
            let what: Vec<String> = parts.iter().map(|p| p.display().to_string()).collect();
            self.record_import(&txn, &format!("merge:{}", what.join(",")), &report)?;
        }
        txn.commit().map_err(|e| self.fail(e))?;
        self.install(settled);
        Ok(report)
    }

    /// Copies the games of part number `i` into the tables `t`, its names
    /// renumbered, each game's key claimed as an import claims it;
    /// `kept` gets each game stored, `progress` the count of games read
    /// now and then.
    #[allow(clippy::too_many_arguments)]
    fn copy_games(
        &self,
        i: usize,
        db: &Database,
        renamed: &mut Renamed,
        options: ImportOptions,
        t: &mut Tables<'_, '_>,
        report: &mut ImportReport,
        kept: &mut Vec<(usize, u64, u64)>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), DbError> {
        let txn = db.store.begin_read().map_err(|e| db.fail(e))?;
        for row in txn
            .open_table(NAME_OF)
            .map_err(|e| db.fail(e))?
            .iter()
            .map_err(|e| db.fail(e))?
        {
            let (k, v) = row.map_err(|e| db.fail(e))?;
            let here = t.names.intern(v.value()).map_err(|e| self.fail(e))?;
            renamed.insert(k.value(), here);
        }
        // The key of each game that was the first of its key there (a game
        // without one repeats an earlier game of its part, and was kept
        // for not deduplicating).
        let mut key_of: HashMap<u64, u128> = HashMap::new();
        for row in txn
            .open_table(KEYS)
            .map_err(|e| db.fail(e))?
            .iter()
            .map_err(|e| db.fail(e))?
        {
            let (k, v) = row.map_err(|e| db.fail(e))?;
            key_of.insert(v.value(), k.value());
        }
        // The names of White and Black, by their numbers here.
        let mut player_names: HashMap<NameId, String> = HashMap::new();
        for row in txn
            .open_table(PLAYER_NAMES)
            .map_err(|e| db.fail(e))?
            .iter()
            .map_err(|e| db.fail(e))?
        {
            let (k, v) = row.map_err(|e| db.fail(e))?;
            if let Some(&here) = renamed.get(&k.value()) {
                player_names.insert(here, v.value().to_string());
            }
        }
        let blocks = txn.open_table(HEADERS).map_err(|e| db.fail(e))?;
        let mut headers = HeaderReader::new(&blocks, db.header_block);
        let rename = |n: NameId| -> Result<NameId, DbError> {
            if n == NO_NAME {
                return Ok(NO_NAME);
            }
            renamed
                .get(&n)
                .copied()
                .ok_or_else(|| db.damaged(format!("name {n} is not in the name table")))
        };
        let mut since = 0;
        for row in txn
            .open_table(GAMES)
            .map_err(|e| db.fail(e))?
            .iter()
            .map_err(|e| db.fail(e))?
        {
            let (k, v) = row.map_err(|e| db.fail(e))?;
            let (id, bytes) = (k.value(), v.value());
            since += 1;
            if since == 1024 {
                progress(since);
                since = 0;
            }
            let mut header = db.header_in(&mut headers, id)?;
            if let Some(&key) = key_of.get(&id) {
                if !self.claim_key(t, key, options.dedupe)? {
                    report.duplicates += 1;
                    continue;
                }
            }
            for name in [
                &mut header.white,
                &mut header.black,
                &mut header.event,
                &mut header.site,
                &mut header.round,
                &mut header.start,
            ] {
                *name = rename(*name)?;
            }
            kept.push((i, id, t.next_id));
            let player = |n: NameId| player_names.get(&n).map_or("", String::as_str);
            let players = [player(header.white), player(header.black)];
            self.put_game(t, &header, bytes, players)?;
            report.games += 1;
        }
        progress(since);
        Ok(())
    }

    /// The index of the parts' games numbered on from `offsets`: their
    /// segments merged into one, each entry's game numbers shifted.
    fn shifted_index(
        &self,
        parts: &[Database],
        offsets: &[u64],
        next: &mut u64,
    ) -> Result<Vec<(u64, Arc<Segment>)>, DbError> {
        let mut inputs = Vec::new();
        for (part, &offset) in parts.iter().zip(offsets) {
            for (_, s) in part.segments()? {
                inputs.push((s, offset));
            }
        }
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let n = *next;
        *next += 1;
        let path = self.segment_path(n);
        let refs: Vec<(&Segment, u64)> = inputs.iter().map(|(s, o)| (s.as_ref(), *o)).collect();
        segment::merge_shifted(&refs, &path)?;
        Ok(vec![(n, Arc::new(Segment::open(&path)?))])
    }

    /// The index of the games `kept` counted again from their moves, as
    /// an import counts them: runs written as they fill.
    fn counted_index(
        &self,
        parts: &[Database],
        kept: &[(usize, u64, u64)],
        options: ImportOptions,
        t: &mut Tables<'_, '_>,
        next: &mut u64,
    ) -> Result<Vec<(u64, Arc<Segment>)>, DbError> {
        let run_positions = match options.run_positions {
            0 => RUN_POSITIONS,
            n => n,
        };
        let mut explorer = Explorer::everywhere();
        let mut runs = Vec::new();
        let mut starts = HashMap::new();
        for (i, db) in parts.iter().enumerate() {
            let txn = db.store.begin_read().map_err(|e| db.fail(e))?;
            let games = txn.open_table(GAMES).map_err(|e| db.fail(e))?;
            let blocks = txn.open_table(HEADERS).map_err(|e| db.fail(e))?;
            let mut headers = HeaderReader::new(&blocks, db.header_block);
            starts.clear();
            for &(_, id, here) in kept.iter().filter(|k| k.0 == i) {
                let Some(v) = games.get(id).map_err(|e| db.fail(e))? else {
                    return Err(db.damaged(format!("game {id} is not stored")));
                };
                let header = db.header_in(&mut headers, id)?;
                let g = db.read_game(id, header, v.value(), &mut starts)?;
                let mut game = rookery_pgn::Game::new();
                game.start = g.start;
                game.mainline.nodes = g.moves.iter().map(|&m| rookery_pgn::Node::new(m)).collect();
                let bucket = Bucket::of_header(&g.header);
                t.run.add(
                    explorer.positions_of(&game),
                    bucket.bits(),
                    Counted::of(here, &g.header),
                );
                if t.run.seen.len() >= run_positions {
                    runs.extend(self.flush(&mut t.run, next)?);
                }
            }
        }
        runs.extend(self.flush(&mut t.run, next)?);
        Ok(runs)
    }
}
