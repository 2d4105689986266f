//! The database file: one redb store with the games, the name table, the
//! keys that find duplicates and the explorer's index.
//!
//! | table | key | value |
//! |---|---|---|
//! | `meta` | a word | a number (`version`, `games`) |
//! | `names`, `name_of` | a name / its number | its number / the name |
//! | `games` | the game's number, from 1 | its [`Header`] record, then its moves at a byte a ply ([`crate::codec`]) |
//! | `keys` | `pgn dedupe`'s 128-bit key | the first game with it |
//! | `explore` | a position's Zobrist key (high 64 bits) and a [`Bucket`] (low) | the games of that bucket through it and each move played from it, with their [`Tally`]; then a few of those games ([`GameRef`]: the highest rated, the most recent, and the one game of a move played once) |
//! | `players` | a name's number, the colour it played (1: Black) and the game's number | nothing |
//! | `imports` | an import's number | what it read: `time files games duplicates errors` |
//!
//! An index entry keeps [`GAMES_KEPT`] games of each list: the lists of
//! several buckets merged are the lists of their games (the best of a
//! union are among the bests of its parts), so a question limited to some
//! buckets gets the same games as a pass over exactly those games would.
//!
//! An import is one write transaction: it is in the database whole once it
//! returns, or not at all (a killed import, a full disk: the database is as
//! it was before the import began).

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use redb::{ReadableDatabase, ReadableTable, TableDefinition};
use rookery_core::{Color, Move, Position};
use rookery_pgn::dedupe::KeyPlan;
use rookery_pgn::explorer::{elo, Explorer, PositionTally, Tally};
use rookery_pgn::filter::{Criteria, Verdict};
use rookery_pgn::{Detail, Games, Location, ReadGame};

use crate::bucket::{Bucket, BucketFilter};
use crate::codec;
use crate::header::{Date, Header, NameId, HEADER_BYTES, NO_NAME};

const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const NAMES: TableDefinition<&str, u32> = TableDefinition::new("names");
const NAME_OF: TableDefinition<u32, &str> = TableDefinition::new("name_of");
const GAMES: TableDefinition<u64, &[u8]> = TableDefinition::new("games");
const KEYS: TableDefinition<u128, u64> = TableDefinition::new("keys");
const EXPLORE: TableDefinition<u128, &[u8]> = TableDefinition::new("explore");
const IMPORTS: TableDefinition<u64, &str> = TableDefinition::new("imports");
const PLAYERS: TableDefinition<u128, ()> = TableDefinition::new("players");

/// The layout of the tables this version writes.
const VERSION: u64 = 3;

/// Games an index entry keeps in each of its lists (the highest rated, the
/// most recent): lichess's explorer shows up to 15 (its masters' top games).
pub const GAMES_KEPT: usize = 15;

/// Positions counted in memory before they are merged into the index.
const FLUSH_POSITIONS: usize = 1 << 18;

/// What can go wrong with a database.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The store failed (the file cannot be opened, is damaged, the disk is full, ...).
    #[error("{path}: {source}")]
    Store {
        /// The database file.
        path: PathBuf,
        /// What the store said.
        source: redb::Error,
    },
    /// An input could not be read.
    #[error("{file}: {source}")]
    Read {
        /// The input's name.
        file: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file is a database of another layout.
    #[error("{path}: a database of layout {found}, this rookery reads layout {VERSION}")]
    Version {
        /// The database file.
        path: PathBuf,
        /// Its layout.
        found: u64,
    },
    /// A stored game or index entry does not read back.
    #[error("{path}: damaged: {what}")]
    Damaged {
        /// The database file.
        path: PathBuf,
        /// What does not read.
        what: String,
    },
}

/// How an import treats what it reads.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Leave out a game whose moves repeat one already in the database or
    /// earlier in the import (`pgn dedupe`'s criterion: the same final
    /// position by the same sequence of positions).
    pub dedupe: bool,
}

/// A game that could not be imported: its input, its number there, where
/// it starts and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadGame {
    /// The input's name.
    pub file: String,
    /// The game's number in its input, from 1.
    pub index: usize,
    /// Where the problem is.
    pub at: Location,
    /// What is wrong.
    pub message: String,
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Games stored.
    pub games: u64,
    /// Games left out as duplicates.
    pub duplicates: u64,
    /// Games left out for an error, each named.
    pub bad: Vec<BadGame>,
}

/// What a database holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Games.
    pub games: u64,
    /// Names in the name table.
    pub names: u64,
    /// Entries of the explorer's index (a position's games of one bucket each).
    pub positions: u64,
    /// Each import: when (Unix seconds), the inputs, games stored,
    /// duplicates and bad games left out.
    pub imports: Vec<String>,
}

/// A stored game, its names read.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// Its number, from 1.
    pub id: u64,
    /// Its header record.
    pub header: Header,
    /// The start position.
    pub start: Position,
    /// The mainline.
    pub moves: Vec<Move>,
}

/// An indexed game database in one file.
pub struct Database {
    store: redb::Database,
    path: PathBuf,
}

/// The name table within an import's transaction, with the names seen
/// so far at hand.
struct Names<'a, 't> {
    names: &'a mut redb::Table<'t, &'static str, u32>,
    name_of: &'a mut redb::Table<'t, u32, &'static str>,
    cache: HashMap<String, NameId>,
    next: NameId,
}

impl Names<'_, '_> {
    /// The number of `text` (trimmed), given one if it has none;
    /// [`NO_NAME`] for an empty name or `?`.
    fn intern(&mut self, text: &str) -> Result<NameId, redb::Error> {
        let text = text.trim();
        if text.is_empty() || text == "?" {
            return Ok(NO_NAME);
        }
        if let Some(&id) = self.cache.get(text) {
            return Ok(id);
        }
        let known = self.names.get(text)?.map(|v| v.value());
        let id = match known {
            Some(id) => id,
            None => {
                let id = self.next;
                self.next += 1;
                self.names.insert(text, id)?;
                self.name_of.insert(id, text)?;
                id
            }
        };
        self.cache.insert(text.to_string(), id);
        Ok(id)
    }
}

impl Database {
    /// Opens the database at `path`, creating it if there is none.
    ///
    /// # Errors
    /// [`DbError::Store`] if it cannot be opened; [`DbError::Version`] for
    /// another layout.
    pub fn open(path: &Path) -> Result<Database, DbError> {
        let fail = |e: redb::Error| DbError::Store {
            path: path.to_path_buf(),
            source: e,
        };
        let store = redb::Database::create(path).map_err(|e| fail(e.into()))?;
        let db = Database {
            store,
            path: path.to_path_buf(),
        };
        let txn = db.store.begin_write().map_err(|e| db.fail(e))?;
        {
            let mut meta = txn.open_table(META).map_err(|e| db.fail(e))?;
            let found = meta
                .get("version")
                .map_err(|e| db.fail(e))?
                .map(|v| v.value());
            match found {
                None => {
                    meta.insert("version", VERSION).map_err(|e| db.fail(e))?;
                }
                Some(v) if v == VERSION => {}
                Some(found) => {
                    return Err(DbError::Version {
                        path: path.to_path_buf(),
                        found,
                    })
                }
            }
            txn.open_table(GAMES).map_err(|e| db.fail(e))?;
            txn.open_table(EXPLORE).map_err(|e| db.fail(e))?;
            txn.open_table(NAMES).map_err(|e| db.fail(e))?;
            txn.open_table(NAME_OF).map_err(|e| db.fail(e))?;
            txn.open_table(KEYS).map_err(|e| db.fail(e))?;
            txn.open_table(IMPORTS).map_err(|e| db.fail(e))?;
            txn.open_table(PLAYERS).map_err(|e| db.fail(e))?;
        }
        txn.commit().map_err(|e| db.fail(e))?;
        Ok(db)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn fail(&self, e: impl Into<redb::Error>) -> DbError {
        DbError::Store {
            path: self.path.clone(),
            source: e.into(),
        }
    }

    fn damaged(&self, what: String) -> DbError {
        DbError::Damaged {
            path: self.path.clone(),
            what,
        }
    }

    /// Imports the games of `inputs` (each a name and its text, PGN,
    /// decompressed), in one transaction (see the module documentation).
    /// `progress` hears the games read so far now and then.
    ///
    /// # Errors
    /// [`DbError::Read`] if an input cannot be read; [`DbError::Store`].
    /// Either way nothing of the import is in the database.
    pub fn import(
        &self,
        inputs: Vec<(String, Box<dyn Read + Send + '_>)>,
        options: ImportOptions,
        progress: &mut dyn FnMut(u64),
    ) -> Result<ImportReport, DbError> {
        let mut report = ImportReport::default();
        let txn = self.store.begin_write().map_err(|e| self.fail(e))?;
        let files: Vec<String> = inputs.iter().map(|(n, _)| n.clone()).collect();
        {
            let mut meta = txn.open_table(META).map_err(|e| self.fail(e))?;
            let mut names = txn.open_table(NAMES).map_err(|e| self.fail(e))?;
            let mut name_of = txn.open_table(NAME_OF).map_err(|e| self.fail(e))?;
            let mut games = txn.open_table(GAMES).map_err(|e| self.fail(e))?;
            let mut keys = txn.open_table(KEYS).map_err(|e| self.fail(e))?;
            let mut explore = txn.open_table(EXPLORE).map_err(|e| self.fail(e))?;
            let mut players = txn.open_table(PLAYERS).map_err(|e| self.fail(e))?;
            let mut next_id = meta
                .get("games")
                .map_err(|e| self.fail(e))?
                .map_or(0, |v| v.value())
                + 1;
            let next_name = name_of
                .last()
                .map_err(|e| self.fail(e))?
                .map_or(0, |(k, _)| k.value())
                + 1;
            let mut names = Names {
                names: &mut names,
                name_of: &mut name_of,
                cache: HashMap::new(),
                next: next_name,
            };
            let mut pending: HashMap<u64, Pending> = HashMap::new();
            let plan = KeyPlan::default();
            let mut read = 0u64;
            for (file, input) in inputs {
                for g in Games::new(input).with_detail(Detail::Mainline) {
                    let g: ReadGame = g.map_err(|source| DbError::Read {
                        file: file.clone(),
                        source,
                    })?;
                    read += 1;
                    if read % 1024 == 0 {
                        progress(read);
                    }
                    if let Some(e) = &g.error {
                        report.bad.push(BadGame {
                            file: file.clone(),
                            index: g.index,
                            at: e.at,
                            message: e.kind.to_string(),
                        });
                        continue;
                    }
                    let key = plan.key(&g, &[]);
                    if keys.get(key).map_err(|e| self.fail(e))?.is_some() {
                        if options.dedupe {
                            report.duplicates += 1;
                            continue;
                        }
                    } else {
                        keys.insert(key, next_id).map_err(|e| self.fail(e))?;
                    }
                    let game = &g.game;
                    let moves: Vec<Move> = game.mainline_moves().collect();
                    let Some(bytes) = codec::encode_line(&game.start, &moves) else {
                        return Err(self.damaged(format!(
                            "{file}: game {}: its moves do not replay",
                            g.index
                        )));
                    };
                    let tag = |n: &str| game.tags.get(n).unwrap_or("");
                    let start = if game.start == Position::startpos() {
                        NO_NAME
                    } else {
                        let fen = rookery_core::Fen::from_position(&game.start).to_string();
                        names.intern(&fen).map_err(|e| self.fail(e))?
                    };
                    let mut name = |n: &str| names.intern(tag(n)).map_err(|e| self.fail(e));
                    let white_elo = elo(&game.tags, "WhiteElo");
                    let black_elo = elo(&game.tags, "BlackElo");
                    let bucket = Bucket::of(&game.tags);
                    let header = Header {
                        white: name("White")?,
                        black: name("Black")?,
                        event: name("Event")?,
                        site: name("Site")?,
                        round: name("Round")?,
                        start,
                        date: Date::from_pgn(tag("Date")),
                        speed: bucket.speed,
                        white_elo: white_elo.map_or(0, |e| e.min(u32::from(u16::MAX)) as u16),
                        black_elo: black_elo.map_or(0, |e| e.min(u32::from(u16::MAX)) as u16),
                        eco: Header::eco_number(tag("ECO")),
                        plies: moves.len().min(usize::from(u16::MAX)) as u16,
                        result: Header::result_byte(game.result),
                    };
                    let mut record = Vec::with_capacity(HEADER_BYTES + bytes.len());
                    record.extend_from_slice(&header.encode());
                    record.extend_from_slice(&bytes);
                    games
                        .insert(next_id, record.as_slice())
                        .map_err(|e| self.fail(e))?;
                    for (name, color) in [(header.white, 0u128), (header.black, 1)] {
                        if name != NO_NAME {
                            let key = u128::from(name) << 72 | color << 64 | u128::from(next_id);
                            players.insert(key, ()).map_err(|e| self.fail(e))?;
                        }
                    }
                    let p = pending.entry(bucket.bits()).or_insert_with(|| Pending {
                        explorer: Explorer::everywhere(),
                        games: HashMap::new(),
                    });
                    let rating = if header.white_elo > 0 && header.black_elo > 0 {
                        u32::from(header.white_elo) + u32::from(header.black_elo)
                    } else {
                        0
                    };
                    for (key, mv) in p.explorer.add_counted(game) {
                        let Some(mv) = mv else { continue };
                        let kept = p.games.entry(key).or_default();
                        kept.push(GameRef {
                            id: next_id,
                            mv,
                            rating,
                            date: header.date.packed(),
                        });
                        if kept.len() >= 4 * GAMES_KEPT {
                            // The move counts are not at hand here: a move
                            // seen once among the games kept may have been
                            // played once, its game stays.
                            let mut seen: HashMap<u16, usize> = HashMap::new();
                            for g in kept.iter() {
                                *seen.entry(g.mv.to_u16()).or_default() += 1;
                            }
                            keep_games(kept, &|m| seen.get(&m.to_u16()) == Some(&1));
                        }
                    }
                    next_id += 1;
                    report.games += 1;
                    if report.games % 256 == 0
                        && pending.values().map(|p| p.explorer.len()).sum::<usize>()
                            >= FLUSH_POSITIONS
                    {
                        self.flush(&mut explore, &mut pending)?;
                    }
                }
            }
            self.flush(&mut explore, &mut pending)?;
            meta.insert("games", next_id - 1)
                .map_err(|e| self.fail(e))?;
            let mut imports = txn.open_table(IMPORTS).map_err(|e| self.fail(e))?;
            let n = imports
                .last()
                .map_err(|e| self.fail(e))?
                .map_or(0, |(k, _)| k.value())
                + 1;
            let when = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let line = format!(
                "{when} {} games={} duplicates={} bad={}",
                files.join(","),
                report.games,
                report.duplicates,
                report.bad.len()
            );
            imports.insert(n, line.as_str()).map_err(|e| self.fail(e))?;
            progress(read);
        }
        txn.commit().map_err(|e| self.fail(e))?;
        Ok(report)
    }

    /// Merges the positions counted in memory, and their games, into the
    /// index.
    fn flush(
        &self,
        explore: &mut redb::Table<u128, &[u8]>,
        pending: &mut HashMap<u64, Pending>,
    ) -> Result<(), DbError> {
        let mut counted: Vec<(u128, Explored)> = Vec::new();
        for (bucket, p) in pending.iter_mut() {
            let mut games = std::mem::take(&mut p.games);
            counted.extend(
                p.explorer
                    .drain()
                    .into_iter()
                    .map(|(pos, (passing, moves))| {
                        let entry = Explored {
                            passing,
                            moves,
                            games: games.remove(&pos).unwrap_or_default(),
                        };
                        (u128::from(pos) << 64 | u128::from(*bucket), entry)
                    }),
            );
        }
        pending.clear();
        counted.sort_unstable_by_key(|(k, _)| *k);
        for (key, new) in counted {
            let mut entry = match explore.get(key).map_err(|e| self.fail(e))? {
                Some(v) => decode_entry(v.value())
                    .ok_or_else(|| self.damaged(format!("index entry {key:032x}")))?,
                None => Explored::default(),
            };
            entry.merge(new);
            entry.prune();
            let bytes = encode_entry(&entry);
            explore
                .insert(key, bytes.as_slice())
                .map_err(|e| self.fail(e))?;
        }
        Ok(())
    }

    /// What the index knows of `pos`, counting the games of the buckets
    /// `filter` admits: the games through it and each move played from it;
    /// `None` if no such game reached it.
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`].
    pub fn explore(
        &self,
        pos: &Position,
        filter: &BucketFilter,
    ) -> Result<Option<PositionTally>, DbError> {
        Ok(self
            .explore_games(pos, filter)?
            .map(|e| (e.passing, e.moves)))
    }

    /// As [`Database::explore`], with the games the index keeps of the
    /// position (see [`Explored::top`], [`Explored::recent`],
    /// [`Explored::only_game`]).
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`].
    pub fn explore_games(
        &self,
        pos: &Position,
        filter: &BucketFilter,
    ) -> Result<Option<Explored>, DbError> {
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(EXPLORE).map_err(|e| self.fail(e))?;
        let key = u128::from(pos.hash()) << 64;
        let damaged = || self.damaged(format!("index entry {:016x}", pos.hash()));
        let mut found: Option<Explored> = None;
        for row in t
            .range(key..=key | u128::from(u64::MAX))
            .map_err(|e| self.fail(e))?
        {
            let (k, v) = row.map_err(|e| self.fail(e))?;
            if !filter.admits(Bucket::from_bits(k.value() as u64)) {
                continue;
            }
            let entry = decode_entry(v.value()).ok_or_else(damaged)?;
            found.get_or_insert_with(Default::default).merge(entry);
        }
        // A move not legal here: another position with the same key (a
        // 64-bit collision), or damage; never shown as this position's.
        if let Some(e) = &found {
            let legal = pos.legal_moves();
            if e.moves.iter().any(|(m, _)| !legal.contains(*m)) {
                return Err(damaged());
            }
        }
        Ok(found)
    }

    /// The header record of game `id`; `None` if there is no such game.
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`].
    pub fn header(&self, id: u64) -> Result<Option<Header>, DbError> {
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(GAMES).map_err(|e| self.fail(e))?;
        let Some(v) = t.get(id).map_err(|e| self.fail(e))? else {
            return Ok(None);
        };
        Header::decode(v.value())
            .map(Some)
            .ok_or_else(|| self.damaged(format!("game {id}: header")))
    }

    /// The numbers of the names equal to `name`, ignoring case (lichess's
    /// user names are; a collection may spell one name two ways).
    ///
    /// # Errors
    /// [`DbError::Store`].
    pub fn names_like(&self, name: &str) -> Result<Vec<NameId>, DbError> {
        let name = name.trim();
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(NAMES).map_err(|e| self.fail(e))?;
        let mut out = Vec::new();
        for row in t.iter().map_err(|e| self.fail(e))? {
            let (k, v) = row.map_err(|e| self.fail(e))?;
            if k.value().eq_ignore_ascii_case(name) {
                out.push(v.value());
            }
        }
        Ok(out)
    }

    /// The games `name` (any case, see [`Database::names_like`]) played
    /// with `color`, in order of number, at most `limit`.
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`].
    pub fn player_games(
        &self,
        name: &str,
        color: Color,
        limit: usize,
    ) -> Result<Vec<StoredGame>, DbError> {
        let ids = self.names_like(name)?;
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let players = txn.open_table(PLAYERS).map_err(|e| self.fail(e))?;
        let games = txn.open_table(GAMES).map_err(|e| self.fail(e))?;
        let side = u128::from(color == Color::Black);
        let mut numbers = Vec::new();
        for id in ids {
            let low = u128::from(id) << 72 | side << 64;
            for row in players
                .range(low..=low | u128::from(u64::MAX))
                .map_err(|e| self.fail(e))?
            {
                let (k, _) = row.map_err(|e| self.fail(e))?;
                numbers.push(k.value() as u64);
            }
        }
        numbers.sort_unstable();
        numbers.truncate(limit);
        let mut starts = HashMap::new();
        let mut out = Vec::with_capacity(numbers.len());
        for n in numbers {
            let Some(v) = games.get(n).map_err(|e| self.fail(e))? else {
                return Err(self.damaged(format!("players: game {n} is not stored")));
            };
            out.push(self.read_game(n, v.value(), &mut starts)?);
        }
        Ok(out)
    }

    /// What the database holds.
    ///
    /// # Errors
    /// [`DbError::Store`].
    pub fn info(&self) -> Result<Info, DbError> {
        use redb::ReadableTableMetadata;
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let meta = txn.open_table(META).map_err(|e| self.fail(e))?;
        let games = meta
            .get("games")
            .map_err(|e| self.fail(e))?
            .map_or(0, |v| v.value());
        let names = txn
            .open_table(NAME_OF)
            .map_err(|e| self.fail(e))?
            .len()
            .map_err(|e| self.fail(e))?;
        let positions = txn
            .open_table(EXPLORE)
            .map_err(|e| self.fail(e))?
            .len()
            .map_err(|e| self.fail(e))?;
        let mut imports = Vec::new();
        for row in txn
            .open_table(IMPORTS)
            .map_err(|e| self.fail(e))?
            .iter()
            .map_err(|e| self.fail(e))?
        {
            let (_, v) = row.map_err(|e| self.fail(e))?;
            imports.push(v.value().to_string());
        }
        Ok(Info {
            games,
            names,
            positions,
            imports,
        })
    }

    /// The name of number `id` (`?` for [`NO_NAME`]).
    ///
    /// # Errors
    /// [`DbError::Store`].
    pub fn name(&self, id: NameId) -> Result<String, DbError> {
        if id == NO_NAME {
            return Ok("?".into());
        }
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(NAME_OF).map_err(|e| self.fail(e))?;
        Ok(t.get(id)
            .map_err(|e| self.fail(e))?
            .map_or_else(|| "?".into(), |v| v.value().to_string()))
    }

    /// Calls `f` with every game in order of number until it returns
    /// `false`.
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`], or `f`'s error.
    pub fn for_each(
        &self,
        f: &mut dyn FnMut(StoredGame) -> Result<bool, DbError>,
    ) -> Result<(), DbError> {
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(GAMES).map_err(|e| self.fail(e))?;
        let mut starts: HashMap<NameId, Position> = HashMap::new();
        for row in t.iter().map_err(|e| self.fail(e))? {
            let (k, v) = row.map_err(|e| self.fail(e))?;
            let id = k.value();
            let g = self.read_game(id, v.value(), &mut starts)?;
            if !f(g)? {
                break;
            }
        }
        Ok(())
    }

    /// The game of record `bytes`, start positions other than the standard
    /// one kept in `starts` by their name.
    fn read_game(
        &self,
        id: u64,
        bytes: &[u8],
        starts: &mut HashMap<NameId, Position>,
    ) -> Result<StoredGame, DbError> {
        let header =
            Header::decode(bytes).ok_or_else(|| self.damaged(format!("game {id}: header")))?;
        let start = if header.start == NO_NAME {
            Position::startpos()
        } else if let Some(p) = starts.get(&header.start) {
            p.clone()
        } else {
            let fen = self.name(header.start)?;
            let p = Position::from_fen(&fen)
                .map_err(|e| self.damaged(format!("game {id}: start {fen:?}: {e}")))?;
            starts.insert(header.start, p.clone());
            p
        };
        let moves = codec::decode_line(&start, &bytes[HEADER_BYTES..])
            .map_err(|e| self.damaged(format!("game {id}: {e}")))?;
        Ok(StoredGame {
            id,
            header,
            start,
            moves,
        })
    }

    /// The tags of header `h` as a PGN game without moves (what a test on
    /// tags reads): the Seven Tag Roster, the ratings, the ECO code and the
    /// start position (`SetUp`, `FEN`); `names` keeps the names read so far.
    fn header_game(
        &self,
        h: &Header,
        names: &mut HashMap<NameId, String>,
    ) -> Result<rookery_pgn::Game, DbError> {
        let mut name = |id: NameId| -> Result<String, DbError> {
            if let Some(n) = names.get(&id) {
                return Ok(n.clone());
            }
            let n = self.name(id)?;
            names.insert(id, n.clone());
            Ok(n)
        };
        let mut game = rookery_pgn::Game::new();
        let date = |v: u32, width: usize| {
            if v == 0 {
                "?".repeat(width)
            } else {
                format!("{v:0width$}")
            }
        };
        let d = h.date;
        game.tags.insert("Event", name(h.event)?);
        game.tags.insert("Site", name(h.site)?);
        game.tags.insert(
            "Date",
            format!(
                "{}.{}.{}",
                date(u32::from(d.year), 4),
                date(u32::from(d.month), 2),
                date(u32::from(d.day), 2)
            ),
        );
        game.tags.insert("Round", name(h.round)?);
        game.tags.insert("White", name(h.white)?);
        game.tags.insert("Black", name(h.black)?);
        game.result = h.result();
        game.tags.insert("Result", game.result.to_string());
        if h.white_elo > 0 {
            game.tags.insert("WhiteElo", h.white_elo.to_string());
        }
        if h.black_elo > 0 {
            game.tags.insert("BlackElo", h.black_elo.to_string());
        }
        if let Some(eco) = h.eco_text() {
            game.tags.insert("ECO", eco);
        }
        if h.start != NO_NAME {
            game.tags.insert("SetUp", "1".into());
            game.tags.insert("FEN", name(h.start)?);
        }
        Ok(game)
    }

    /// `g` as a PGN game: the Seven Tag Roster, the ratings, the ECO code
    /// and the start position (`SetUp`, `FEN`) from its header, its
    /// mainline and result; `names` keeps the names read so far.
    ///
    /// # Errors
    /// [`DbError::Store`].
    pub fn pgn_game(
        &self,
        g: &StoredGame,
        names: &mut HashMap<NameId, String>,
    ) -> Result<rookery_pgn::Game, DbError> {
        let mut game = self.header_game(&g.header, names)?;
        game.start = g.start.clone();
        game.mainline.nodes = g.moves.iter().map(|&m| rookery_pgn::Node::new(m)).collect();
        Ok(game)
    }

    /// The games that pass `criteria` as `pgn filter` judges them (each
    /// written out in PGN and read back, see [`Database::pgn_game`]), in
    /// order of number: `found` gets each with its PGN game and text, and
    /// returns whether to go on. A game whose tags fail is turned away on
    /// its header record, its moves not read.
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`].
    pub fn search(
        &self,
        criteria: &Criteria,
        found: &mut dyn FnMut(StoredGame, rookery_pgn::Game, String) -> bool,
    ) -> Result<(), DbError> {
        let detail = criteria.detail();
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(GAMES).map_err(|e| self.fail(e))?;
        let mut names = HashMap::new();
        let mut starts = HashMap::new();
        for row in t.iter().map_err(|e| self.fail(e))? {
            let (k, v) = row.map_err(|e| self.fail(e))?;
            let (id, bytes) = (k.value(), v.value());
            let header =
                Header::decode(bytes).ok_or_else(|| self.damaged(format!("game {id}: header")))?;
            let mut game = self.header_game(&header, &mut names)?;
            if !criteria.may_pass(&game) {
                continue;
            }
            let g = self.read_game(id, bytes, &mut starts)?;
            game.start = g.start.clone();
            game.mainline.nodes = g.moves.iter().map(|&m| rookery_pgn::Node::new(m)).collect();
            let text = rookery_pgn::writer::game_to_string(&game);
            // Judged as `pgn filter` judges the game it reads.
            let Some(Ok(read)) = Games::new(text.as_bytes()).with_detail(detail).next() else {
                continue;
            };
            if criteria.judge(&read, text.as_bytes()) != Verdict::Keep {
                continue;
            }
            if !found(g, game, text) {
                break;
            }
        }
        Ok(())
    }

    /// Game number `id` (from 1); `None` if there is none.
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`].
    pub fn game(&self, id: u64) -> Result<Option<StoredGame>, DbError> {
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(GAMES).map_err(|e| self.fail(e))?;
        let Some(v) = t.get(id).map_err(|e| self.fail(e))? else {
            return Ok(None);
        };
        let mut starts = HashMap::new();
        self.read_game(id, v.value(), &mut starts).map(Some)
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

fn put_tally(out: &mut Vec<u8>, t: &Tally) {
    for v in t.to_raw() {
        put_varint(out, v);
    }
}

fn get_tally(bytes: &mut &[u8]) -> Option<Tally> {
    let mut raw = [0u64; 9];
    for r in &mut raw {
        *r = get_varint(bytes)?;
    }
    Some(Tally::from_raw(raw))
}

/// An index entry: the tally through the position, the number of moves,
/// then each move (its 16 bits, [`Move::to_u16`]) and its tally; the
/// number of games kept, then each game's number, its move (a byte: its
/// place in the list of moves), its ratings' sum and its date; all numbers
/// as varints.
fn encode_entry(e: &Explored) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + e.moves.len() * 14 + e.games.len() * 8);
    put_tally(&mut out, &e.passing);
    put_varint(&mut out, e.moves.len() as u64);
    for (m, t) in &e.moves {
        out.extend_from_slice(&m.to_u16().to_le_bytes());
        put_tally(&mut out, t);
    }
    let games: Vec<(u8, &GameRef)> = e
        .games
        .iter()
        .filter_map(|g| {
            let i = e.moves.iter().position(|(m, _)| *m == g.mv)?;
            Some((u8::try_from(i).ok()?, g))
        })
        .collect();
    put_varint(&mut out, games.len() as u64);
    for (i, g) in games {
        put_varint(&mut out, g.id);
        out.push(i);
        put_varint(&mut out, u64::from(g.rating));
        put_varint(&mut out, u64::from(g.date));
    }
    out
}

fn decode_entry(mut bytes: &[u8]) -> Option<Explored> {
    let passing = get_tally(&mut bytes)?;
    let n = get_varint(&mut bytes)?;
    let mut moves = Vec::with_capacity(n.min(256) as usize);
    for _ in 0..n {
        let (m, rest) = bytes.split_first_chunk::<2>()?;
        bytes = rest;
        moves.push((
            Move::from_u16(u16::from_le_bytes(*m)),
            get_tally(&mut bytes)?,
        ));
    }
    let n = get_varint(&mut bytes)?;
    let mut games = Vec::with_capacity(n.min(4 * GAMES_KEPT as u64) as usize);
    for _ in 0..n {
        let id = get_varint(&mut bytes)?;
        let (&i, rest) = bytes.split_first()?;
        bytes = rest;
        let mv = moves.get(usize::from(i))?.0;
        let rating = u32::try_from(get_varint(&mut bytes)?).ok()?;
        let date = u32::try_from(get_varint(&mut bytes)?).ok()?;
        games.push(GameRef {
            id,
            mv,
            rating,
            date,
        });
    }
    Some(Explored {
        passing,
        moves,
        games,
    })
}

/// A game of a position, as the index keeps it for the explorer's lists.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameRef {
    /// The game's number.
    pub id: u64,
    /// The move it played from the position (the last, if it passed more
    /// than once).
    pub mv: Move,
    /// The sum of the two players' ratings (0: one is unknown).
    pub rating: u32,
    /// Its date ([`Date::packed`]).
    pub date: u32,
}

impl GameRef {
    /// The order of the top games: the highest ratings' sum first, then
    /// the lower number.
    pub fn top_order(a: &GameRef, b: &GameRef) -> std::cmp::Ordering {
        b.rating.cmp(&a.rating).then(a.id.cmp(&b.id))
    }

    /// The order of the recent games: the latest date first (a date
    /// known in part before the days of its month or year), then the
    /// higher number.
    pub fn recent_order(a: &GameRef, b: &GameRef) -> std::cmp::Ordering {
        b.date.cmp(&a.date).then(b.id.cmp(&a.id))
    }
}

/// What the index knows of a position: the games through it, the moves
/// played from it, and the games it keeps (a superset of the highest
/// rated and the most recent [`GAMES_KEPT`] that played a move from it,
/// and of each move's game when it was played once).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Explored {
    /// The games through it (a game that ends there too).
    pub passing: Tally,
    /// The moves played from it.
    pub moves: Vec<(Move, Tally)>,
    /// The games kept, in no order.
    pub games: Vec<GameRef>,
}

impl Explored {
    /// Adds what `o` counted and kept.
    fn merge(&mut self, o: Explored) {
        self.passing.merge(&o.passing);
        for (mv, t) in o.moves {
            match self.moves.iter_mut().find(|(m, _)| *m == mv) {
                Some((_, mine)) => mine.merge(&t),
                None => self.moves.push((mv, t)),
            }
        }
        self.games.extend(o.games);
    }

    /// Leaves the games the lists need.
    fn prune(&mut self) {
        let moves = &self.moves;
        keep_games(&mut self.games, &|m| {
            moves.iter().any(|(x, t)| *x == m && t.games() == 1)
        });
    }

    /// The `n` (at most [`GAMES_KEPT`]) highest rated games that played a
    /// move from the position, both ratings known: the highest sum first.
    pub fn top(&self, n: usize) -> Vec<GameRef> {
        let mut v: Vec<GameRef> = self
            .games
            .iter()
            .filter(|g| g.rating > 0)
            .copied()
            .collect();
        v.sort_by(GameRef::top_order);
        v.truncate(n.min(GAMES_KEPT));
        v
    }

    /// The `n` (at most [`GAMES_KEPT`]) most recent games that played a
    /// move from the position.
    pub fn recent(&self, n: usize) -> Vec<GameRef> {
        let mut v = self.games.clone();
        v.sort_by(GameRef::recent_order);
        v.truncate(n.min(GAMES_KEPT));
        v
    }

    /// The game of `mv` when one game only played it.
    pub fn only_game(&self, mv: Move) -> Option<GameRef> {
        let (_, t) = self.moves.iter().find(|(m, _)| *m == mv)?;
        if t.games() != 1 {
            return None;
        }
        self.games.iter().find(|g| g.mv == mv).copied()
    }
}

/// Leaves in `games` the [`GAMES_KEPT`] highest rated, as many most
/// recent, and those whose move `single` says was played once.
fn keep_games(games: &mut Vec<GameRef>, single: &dyn Fn(Move) -> bool) {
    if games.len() <= GAMES_KEPT {
        return;
    }
    let mut keep = HashSet::new();
    let mut by = games.clone();
    by.retain(|g| g.rating > 0);
    by.sort_by(GameRef::top_order);
    keep.extend(by.iter().take(GAMES_KEPT).map(|g| g.id));
    by.clone_from(games);
    by.sort_by(GameRef::recent_order);
    keep.extend(by.iter().take(GAMES_KEPT).map(|g| g.id));
    games.retain(|g| keep.contains(&g.id) || single(g.mv));
}

/// An import's counts of one bucket not yet in the index: the positions
/// and moves, and the games kept of each position.
struct Pending {
    explorer: Explorer,
    games: HashMap<u64, Vec<GameRef>>,
}
