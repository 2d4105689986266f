//! The database file: one redb store with the games, the name table, the
//! keys that find duplicates and the list of the explorer's index's
//! segment files.
//!
//! | table | key | value |
//! |---|---|---|
//! | `meta` | a word | a number (`version`, `games`) |
//! | `names`, `name_of` | a name / its number | its number / the name |
//! | `games` | the game's number, from 1 | its moves at a byte a ply ([`crate::codec`]) |
//! | `headers` | a block's number | the [`Header`] records of its [`BLOCK_GAMES`](crate::headers::BLOCK_GAMES) games ([`crate::headers`]) |
//! | `player_names` | the number of a name that is a game's White or Black | the name |
//! | `keys` | `pgn dedupe`'s 128-bit key | the first game with it |
//! | `segments` | a segment file's number | its entries |
//! | `players` | a name's number, the colour it played (1: Black) and the game's number | nothing |
//! | `imports` | an import's number | what it read: `time files games duplicates errors` |
//!
//! The explorer's index is not in the store: it is in segment files
//! beside it (`DB.index/NUMBER.seg`, [`crate::segment`]), whose list is the
//! `segments` table. An index entry's key is a position's Zobrist key
//! (high 64 bits) and a [`Bucket`] (low); it holds the games of that bucket
//! through the position and each move played from it, with their
//! [`Tally`], then a few of those games ([`GameRef`]: the highest rated,
//! the most recent, and the one game of a move played once).
//!
//! An index entry keeps [`GAMES_KEPT`] games of each list: the lists of
//! several buckets merged are the lists of their games (the best of a
//! union are among the bests of its parts), so a question limited to some
//! buckets gets the same games as a pass over exactly those games would.
//!
//! An import is one write transaction: it is in the database whole once it
//! returns, or not at all (a killed import, a full disk: the database is as
//! it was before the import began). The segment files it writes are named
//! in the `segments` table by that transaction; a file no list names (an
//! import killed before its commit, a merged segment whose removal was
//! cut short) is removed when the database is next opened.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use redb::{ReadableDatabase, ReadableTable, TableDefinition};
use rookery_core::{Color, Move, Position};
use rookery_pgn::dedupe::KeyPlan;
use rookery_pgn::explorer::{elo, Explorer, PositionTally, Tally};
use rookery_pgn::filter::{Criteria, Verdict};
use rookery_pgn::source::{Reading, Source};
use rookery_pgn::split::PieceGames;
use rookery_pgn::{Detail, GameResult, Games, Location, ReadGame};

use crate::bucket::{Bucket, BucketFilter};
use crate::codec;
pub use crate::entry::{Explored, GameRef, GAMES_KEPT};
use crate::header::{Date, Header, NameId, NO_NAME};
use crate::headers::{self, HeaderBlocks, HeaderQuery, HeaderReader, HEADERS, PLAYER_NAMES};
use crate::segment::{self, MergeInput, Segment, SegmentError, SegmentWriter, Spill, SpillWriter};

mod shards;

pub(crate) const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const NAMES: TableDefinition<&str, u32> = TableDefinition::new("names");
pub(crate) const NAME_OF: TableDefinition<u32, &str> = TableDefinition::new("name_of");
pub(crate) const GAMES: TableDefinition<u64, &[u8]> = TableDefinition::new("games");
const KEYS: TableDefinition<u128, u64> = TableDefinition::new("keys");
const SEGMENTS: TableDefinition<u64, u64> = TableDefinition::new("segments");
const IMPORTS: TableDefinition<u64, &str> = TableDefinition::new("imports");
const PLAYERS: TableDefinition<u128, ()> = TableDefinition::new("players");

/// The layout of the tables this version writes (6: moves written by the
/// piece that makes them, [`codec`]; 5 wrote each as its index among the
/// legal moves, and put the header records in blocks apart from them).
pub(crate) const VERSION: u64 = 6;

/// Positions counted in memory (32 bytes each) before they are written
/// as a run, unless [`ImportOptions::run_positions`] says otherwise.
pub const RUN_POSITIONS: usize = 1 << 21;

/// The store's page cache when a database is opened to read: small, so
/// that a scan of the header records reuses its buffers instead of
/// faulting in fresh memory for every page (a header search over 1 M games
/// took 0.12 s with redb's default of 1 GiB, 0.05 s with this; the kernel
/// keeps the file's pages cached either way).
const READ_CACHE: usize = 4 << 20;

/// Segments the index may have after an import before all of them are
/// merged into one (a question reads a block of each).
const MAX_SEGMENTS: usize = 6;

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
    #[error(
        "{path}: a database of layout {found}, this rookery reads layout {VERSION}: \
         import its games again with this rookery"
    )]
    Version {
        /// The database file.
        path: PathBuf,
        /// Its layout.
        found: u64,
    },
    /// A segment file of the index cannot be written or read.
    #[error(transparent)]
    Segment(#[from] SegmentError),
    /// A search tests a tag the database does not keep (see
    /// [`HEADER_TAGS`]): its answer would be wrong, so none is given.
    #[error(
        "{path}: the database does not keep the {tag} tag (it keeps {kept}): \
         search the PGN with `rookery pgn filter`",
        kept = HEADER_TAGS.join(", ")
    )]
    NotKept {
        /// The database file.
        path: PathBuf,
        /// The tag.
        tag: String,
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
    /// Threads that read and replay the games (0 or 1: one), and that
    /// merge the index's runs at the end; the store is written by the
    /// calling thread, in input order.
    pub jobs: usize,
    /// Positions counted in memory before they are written as a run (0:
    /// [`RUN_POSITIONS`]; a test makes it small to see runs merged).
    pub run_positions: usize,
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
    /// Entries of the explorer's index (a position's games of one bucket
    /// each; an entry in two segments not yet merged counts twice).
    pub positions: u64,
    /// The index's segment files, and their bytes.
    pub segments: (usize, u64),
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

/// The store of a database: open to write, or read only (a part of a
/// sharded import, read by its merge and left unchanged).
pub(crate) enum Store {
    Write(redb::Database),
    Read(redb::ReadOnlyDatabase),
}

impl Store {
    pub(crate) fn begin_read(&self) -> Result<redb::ReadTransaction, redb::TransactionError> {
        match self {
            Store::Write(db) => db.begin_read(),
            Store::Read(db) => db.begin_read(),
        }
    }

    fn begin_write(&self) -> Result<redb::WriteTransaction, redb::Error> {
        match self {
            Store::Write(db) => Ok(db.begin_write()?),
            Store::Read(_) => Err(redb::Error::Io(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "the database is open to read only",
            ))),
        }
    }
}

/// The index's segments, with their numbers, in order of number.
type OpenSegments = Vec<(u64, Arc<Segment>)>;

/// An indexed game database in one file.
pub struct Database {
    pub(crate) store: Store,
    path: PathBuf,
    /// The index's segment files (`DB.index`).
    dir: PathBuf,
    /// The segments of the index, with their numbers: what the
    /// `segments` table lists, opened when first needed (a header
    /// search or a game read does not decompress their block indexes).
    segments: Mutex<Option<OpenSegments>>,
    /// The header records of a full block of this database
    /// ([`crate::headers`]).
    pub(crate) header_block: u64,
}

/// The name table within an import's transaction, with the names seen
/// so far at hand. The names an import adds are numbered as they come
/// and written to the tables at its end ([`Names::finish`]), each table
/// in its own order: a name table written a name at a time, in the order
/// the games bring them (a lichess game's site is a name of its own),
/// was most of the time the calling thread spent in the store.
struct Names<'a, 't> {
    names: &'a mut redb::Table<'t, &'static str, u32>,
    name_of: &'a mut redb::Table<'t, u32, &'static str>,
    cache: HashMap<String, NameId>,
    next: NameId,
    /// The number of the first name this import adds.
    first: NameId,
    /// Whether the name table had no name when the import began: a name
    /// not at hand is then a new one, not looked up.
    empty: bool,
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
        let known = match self.empty {
            true => None,
            false => self.names.get(text)?.map(|v| v.value()),
        };
        let id = known.unwrap_or_else(|| {
            self.next += 1;
            self.next - 1
        });
        self.cache.insert(text.to_string(), id);
        Ok(id)
    }

    /// Writes the names this import added to both tables, each in the
    /// order of its keys.
    fn finish(&mut self) -> Result<(), redb::Error> {
        let mut added: Vec<(NameId, &str)> = (self.cache.iter())
            .filter(|&(_, &id)| id >= self.first)
            .map(|(name, &id)| (id, name.as_str()))
            .collect();
        added.sort_unstable();
        for &(id, name) in &added {
            self.name_of.insert(id, name)?;
        }
        added.sort_unstable_by_key(|&(_, name)| name);
        for &(id, name) in &added {
            self.names.insert(name, id)?;
        }
        Ok(())
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
        let store = Store::Write(redb::Database::create(path).map_err(|e| fail(e.into()))?);
        let mut dir = path.as_os_str().to_owned();
        dir.push(".index");
        let db = Database {
            store,
            path: path.to_path_buf(),
            dir: PathBuf::from(dir),
            segments: Mutex::new(None),
            header_block: headers::FIRST_BLOCK_GAMES,
        };
        // A database of this layout is opened without a write: a part of
        // a sharded import is read by its merge, and left, unchanged.
        if db.is_current()? {
            db.clean_index()?;
            return db.with_header_block();
        }
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
                    meta.insert("header_block", headers::BLOCK_GAMES)
                        .map_err(|e| db.fail(e))?;
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
            txn.open_table(HEADERS).map_err(|e| db.fail(e))?;
            txn.open_table(PLAYER_NAMES).map_err(|e| db.fail(e))?;
            txn.open_table(SEGMENTS).map_err(|e| db.fail(e))?;
            txn.open_table(NAMES).map_err(|e| db.fail(e))?;
            txn.open_table(NAME_OF).map_err(|e| db.fail(e))?;
            txn.open_table(KEYS).map_err(|e| db.fail(e))?;
            txn.open_table(IMPORTS).map_err(|e| db.fail(e))?;
            txn.open_table(PLAYERS).map_err(|e| db.fail(e))?;
        }
        txn.commit().map_err(|e| db.fail(e))?;
        db.clean_index()?;
        db.with_header_block()
    }

    /// Opens the database at `path` to read only, without a byte of it
    /// written (a part of a sharded import, read by its merge).
    ///
    /// # Errors
    /// [`DbError::Store`] if it cannot be opened; [`DbError::Version`] for
    /// another layout.
    pub fn open_read_only(path: &Path) -> Result<Database, DbError> {
        let fail = |e: redb::Error| DbError::Store {
            path: path.to_path_buf(),
            source: e,
        };
        let store = redb::Builder::new()
            .set_cache_size(READ_CACHE)
            .open_read_only(path)
            .map_err(|e| fail(e.into()))?;
        let mut dir = path.as_os_str().to_owned();
        dir.push(".index");
        let db = Database {
            store: Store::Read(store),
            path: path.to_path_buf(),
            dir: PathBuf::from(dir),
            segments: Mutex::new(None),
            header_block: headers::FIRST_BLOCK_GAMES,
        };
        if !db.is_current()? {
            let txn = db.store.begin_read().map_err(|e| db.fail(e))?;
            let found = match txn.open_table(META) {
                Ok(meta) => meta
                    .get("version")
                    .map_err(|e| db.fail(e))?
                    .map_or(0, |v| v.value()),
                Err(_) => 0,
            };
            return Err(DbError::Version {
                path: path.to_path_buf(),
                found,
            });
        }
        db.with_header_block()
    }

    /// The database with its header blocks' size read from its `meta`
    /// table ([`headers::FIRST_BLOCK_GAMES`] where none is written).
    fn with_header_block(mut self) -> Result<Database, DbError> {
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let meta = txn.open_table(META).map_err(|e| self.fail(e))?;
        let block = meta.get("header_block").map_err(|e| self.fail(e))?;
        self.header_block = block.map_or(headers::FIRST_BLOCK_GAMES, |v| v.value());
        if self.header_block == 0 {
            return Err(self.damaged("meta: header blocks of 0 games".to_string()));
        }
        drop(meta);
        drop(txn);
        Ok(self)
    }

    /// Opens an existing database to answer questions: read only
    /// ([`Database::open_read_only`]: not a byte written, nothing synced),
    /// or, when an import was killed and the store must be repaired
    /// first, as [`Database::open`] opens it.
    ///
    /// # Errors
    /// As [`Database::open_read_only`] and [`Database::open`].
    pub fn open_to_read(path: &Path) -> Result<Database, DbError> {
        match Database::open_read_only(path) {
            Err(DbError::Store {
                source: redb::Error::RepairAborted,
                ..
            }) => Database::open(path),
            opened => opened,
        }
    }

    /// Gives the file's free pages back to the file system: an import
    /// writes its tables copy-on-write, and the pages it left behind are
    /// free pages of the file until this (an import of 1 M games left a
    /// 538 MB file, 337 MB once compacted, in 1.3 s). Not to be called
    /// while a transaction of this database is open.
    ///
    /// # Errors
    /// [`DbError::Store`]; a database opened to read only is not compacted
    /// (`Ok(false)`).
    pub fn compact(&mut self) -> Result<bool, DbError> {
        let Store::Write(db) = &mut self.store else {
            return Ok(false);
        };
        // redb's compaction moves pages until nothing more moves.
        db.compact().map_err(|e| DbError::Store {
            path: self.path.clone(),
            source: e.into(),
        })
    }

    /// Whether the store is of this layout (its version is [`VERSION`],
    /// and so it has every table, made with the version).
    fn is_current(&self) -> Result<bool, DbError> {
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let meta = match txn.open_table(META) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(false),
            Err(e) => return Err(self.fail(e)),
        };
        let found = meta.get("version").map_err(|e| self.fail(e))?;
        Ok(found.is_some_and(|v| v.value() == VERSION))
    }

    /// The numbers of the segments the `segments` table lists.
    fn listed_segments(&self) -> Result<Vec<u64>, DbError> {
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(SEGMENTS).map_err(|e| self.fail(e))?;
        let mut listed = Vec::new();
        for row in t.iter().map_err(|e| self.fail(e))? {
            listed.push(row.map_err(|e| self.fail(e))?.0.value());
        }
        Ok(listed)
    }

    /// Removes the files of the index directory the `segments` table does
    /// not list (left by a killed import or merge: the store opens a
    /// database to write in one process at a time, so no one else is
    /// writing them).
    fn clean_index(&self) -> Result<(), DbError> {
        let read = |e: std::io::Error| DbError::Read {
            file: self.dir.display().to_string(),
            source: e,
        };
        std::fs::create_dir_all(&self.dir).map_err(read)?;
        let listed = self.listed_segments()?;
        for f in std::fs::read_dir(&self.dir).map_err(read)? {
            let f = f.map_err(read)?;
            if segment_number(&f.file_name()).is_none_or(|n| !listed.contains(&n)) {
                std::fs::remove_file(f.path()).map_err(read)?;
            }
        }
        Ok(())
    }

    /// A number above those of every segment, listed or left in the
    /// directory by a failed import of this process.
    fn fresh_segment(&self, listed: &[(u64, Arc<Segment>)]) -> Result<u64, DbError> {
        let read = |e: std::io::Error| DbError::Read {
            file: self.dir.display().to_string(),
            source: e,
        };
        let mut top = listed.last().map_or(0, |(n, _)| *n);
        for f in std::fs::read_dir(&self.dir).map_err(read)? {
            if let Some(n) = segment_number(&f.map_err(read)?.file_name()) {
                top = top.max(n);
            }
        }
        Ok(top + 1)
    }

    /// Segment number `n`'s file (see [`segment_number`]).
    fn segment_path(&self, n: u64) -> PathBuf {
        self.dir.join(format!("{n:08}.seg"))
    }

    /// The segments of the index now, opened the first time they are
    /// asked for.
    ///
    /// # Errors
    /// [`DbError::Store`]; [`DbError::Segment`] naming a segment file that
    /// cannot be read.
    fn segments(&self) -> Result<Vec<(u64, Arc<Segment>)>, DbError> {
        let mut now = self.segments.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(open) = now.as_ref() {
            return Ok(open.clone());
        }
        let mut open = Vec::new();
        for n in self.listed_segments()? {
            open.push((n, Arc::new(Segment::open(&self.segment_path(n))?)));
        }
        *now = Some(open.clone());
        Ok(open)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn fail(&self, e: impl Into<redb::Error>) -> DbError {
        DbError::Store {
            path: self.path.clone(),
            source: e.into(),
        }
    }

    /// [`DbError::NotKept`] if `criteria` test a tag the database does
    /// not keep.
    pub(crate) fn keeps_tags_of(&self, criteria: &Criteria) -> Result<(), DbError> {
        match unkept_tag(criteria) {
            Some(tag) => Err(DbError::NotKept {
                path: self.path.clone(),
                tag,
            }),
            None => Ok(()),
        }
    }

    pub(crate) fn damaged(&self, what: String) -> DbError {
        DbError::Damaged {
            path: self.path.clone(),
            what,
        }
    }

    /// Imports the games of `inputs` (each a name and its PGN source), in
    /// one transaction (see the module documentation): the games are read
    /// and replayed on [`ImportOptions::jobs`] threads, and stored in the
    /// order of the inputs whatever their number. `progress` hears the
    /// games read so far now and then.
    ///
    /// # Errors
    /// [`DbError::Read`] if an input cannot be read; [`DbError::Store`].
    /// Either way nothing of the import is in the database.
    pub fn import(
        &self,
        inputs: Vec<(String, Source<'_>)>,
        options: ImportOptions,
        progress: &mut dyn FnMut(u64),
    ) -> Result<ImportReport, DbError> {
        let mut report = ImportReport::default();
        let settled;
        let txn = self.store.begin_write().map_err(|e| self.fail(e))?;
        let files: Vec<String> = inputs.iter().map(|(n, _)| n.clone()).collect();
        {
            let mut meta = txn.open_table(META).map_err(|e| self.fail(e))?;
            let mut names = txn.open_table(NAMES).map_err(|e| self.fail(e))?;
            let mut name_of = txn.open_table(NAME_OF).map_err(|e| self.fail(e))?;
            let mut store = self.tables(&txn, &meta, &mut names, &mut name_of)?;
            let mut listed = txn.open_table(SEGMENTS).map_err(|e| self.fail(e))?;
            let old = self.segments()?;
            let next_segment = self.fresh_segment(&old)?;
            let reading = Reading {
                jobs: options.jobs.max(1),
                chunk_bytes: 1 << 20,
                detail: Detail::Mainline,
                decode: true,
            };
            let work = |games: &mut PieceGames| {
                let plan = KeyPlan::default();
                let mut explorer = Explorer::everywhere();
                let mut out = Vec::new();
                while let Some(g) = games.next() {
                    out.push(Prepared::of(&g, &plan, &mut explorer));
                    games.recycle(g);
                }
                out
            };
            let run_positions = match options.run_positions {
                0 => RUN_POSITIONS,
                n => n,
            };
            store.run = Run::with_capacity(run_positions);
            let mut read = 0u64;
            let threads = options.jobs.max(1);
            // Runs are sorted and written by a thread of their own while
            // the next is counted (one waits its turn), each with whether
            // it is the import's last: a run that is not the only one is
            // spilled. Once the last is written, that thread merges them
            // (on `threads` threads) while this one writes the rows it
            // gathered ([`Tables::finish`]).
            let (kept, replaced) = std::thread::scope(|scope| {
                let (full, runs_in) = std::sync::mpsc::sync_channel::<(Run, bool)>(1);
                let writer = scope.spawn(move || {
                    let mut next = next_segment;
                    let mut runs = Vec::new();
                    let mut spills = Vec::new();
                    let mut ended = false;
                    for (mut run, last) in runs_in {
                        if last && spills.is_empty() {
                            runs.extend(self.flush(&mut run, &mut next)?);
                        } else {
                            spills.extend(self.spill(&mut run, &mut next)?);
                        }
                        ended = last;
                    }
                    // An import that stopped short merges nothing.
                    if !ended {
                        return Ok((Vec::new(), Vec::new()));
                    }
                    self.settle(old, runs, spills, &mut next, threads)
                });
                let read_all = || -> Result<(), DbError> {
                    for (file, source) in inputs {
                        let mut sink = |batch: Vec<Prepared>, _bytes: u64| -> Result<bool, Stop> {
                            for p in batch {
                                read += 1;
                                if read % 1024 == 0 {
                                    progress(read);
                                }
                                self.store_game(&file, p, options, &mut store, &mut report)?;
                                if store.run.seen.len() >= run_positions {
                                    let next = Run::with_capacity(run_positions);
                                    let run = std::mem::replace(&mut store.run, next);
                                    // Refused only when the writer has
                                    // stopped at an error, told below.
                                    if full.send((run, false)).is_err() {
                                        return Ok(false);
                                    }
                                }
                            }
                            Ok(true)
                        };
                        source
                            .for_each_piece(reading, &work, &mut sink)
                            .map_err(|e| match e {
                                Stop::Io(source) => DbError::Read {
                                    file: file.clone(),
                                    source,
                                },
                                Stop::Db(e) => e,
                            })?;
                    }
                    let _ = full.send((std::mem::take(&mut store.run), true));
                    Ok(())
                };
                let read_all = read_all();
                drop(full);
                let finished = read_all.and_then(|()| store.finish().map_err(|e| self.fail(e)));
                let written = writer
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p));
                finished.and(written)
            })?;
            for (n, _) in &replaced {
                listed.remove(*n).map_err(|e| self.fail(e))?;
            }
            for (n, s) in &kept {
                listed.insert(*n, s.entries()).map_err(|e| self.fail(e))?;
            }
            settled = Some((kept, replaced));
            meta.insert("games", store.next_id - 1)
                .map_err(|e| self.fail(e))?;
            self.record_import(&txn, &files.join(","), &report)?;
            progress(read);
        }
        txn.commit().map_err(|e| self.fail(e))?;
        if let Some(settled) = settled {
            self.install(settled);
        }
        Ok(report)
    }

    /// After the transaction that listed them is committed: the segments
    /// `kept` join those at hand and those `replaced` leave (their files
    /// removed).
    #[allow(clippy::type_complexity)]
    fn install(&self, (kept, replaced): (Vec<(u64, Arc<Segment>)>, Vec<(u64, Arc<Segment>)>)) {
        {
            let mut guard = self.segments.lock().unwrap_or_else(|e| e.into_inner());
            // Segments not yet opened are opened from the committed list.
            if let Some(now) = guard.as_mut() {
                now.retain(|(n, _)| !replaced.iter().any(|(m, _)| m == n));
                for s in kept {
                    if !now.iter().any(|(n, _)| *n == s.0) {
                        now.push(s);
                    }
                }
                now.sort_by_key(|(n, _)| *n);
            }
            drop(guard);
            // Open handles still read a removed file; a removal cut short
            // leaves a file no list names, removed at the next opening.
            for (_, s) in replaced {
                let _ = std::fs::remove_file(s.path());
            }
        }
    }

    /// The tables an import (or a merge) writes, open in its transaction
    /// `txn` (`meta`, `names` and `name_of` opened by the caller, who
    /// keeps them), numbering on from the games stored.
    fn tables<'a, 't>(
        &self,
        txn: &'t redb::WriteTransaction,
        meta: &redb::Table<'t, &'static str, u64>,
        names: &'a mut redb::Table<'t, &'static str, u32>,
        name_of: &'a mut redb::Table<'t, u32, &'static str>,
    ) -> Result<Tables<'a, 't>, DbError> {
        let next_name = name_of
            .last()
            .map_err(|e| self.fail(e))?
            .map_or(0, |(k, _)| k.value())
            + 1;
        let stored = meta
            .get("games")
            .map_err(|e| self.fail(e))?
            .map_or(0, |v| v.value());
        let headers = HeaderBlocks::open(txn, stored, self.header_block).map_err(|e| match e {
            Ok(what) => self.damaged(what),
            Err(e) => self.fail(e),
        })?;
        let keys = txn.open_table(KEYS).map_err(|e| self.fail(e))?;
        let no_keys = keys.first().map_err(|e| self.fail(e))?.is_none();
        let no_names = names.first().map_err(|e| self.fail(e))?.is_none();
        Ok(Tables {
            names: Names {
                empty: no_names,
                names,
                name_of,
                cache: HashMap::new(),
                next: next_name,
                first: next_name,
            },
            games: txn.open_table(GAMES).map_err(|e| self.fail(e))?,
            no_keys,
            keys,
            claimed: Vec::new(),
            claimed_keys: HashSet::new(),
            players: txn.open_table(PLAYERS).map_err(|e| self.fail(e))?,
            played: Vec::new(),
            headers,
            next_id: stored + 1,
            run: Run::default(),
        })
    }

    /// Adds the line of an import (or a merge) of `what` to the `imports`
    /// table: when (Unix seconds), `what`, games stored, duplicates and bad
    /// games left out.
    fn record_import(
        &self,
        txn: &redb::WriteTransaction,
        what: &str,
        report: &ImportReport,
    ) -> Result<(), DbError> {
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
            "{when} {what} games={} duplicates={} bad={}",
            report.games,
            report.duplicates,
            report.bad.len()
        );
        imports.insert(n, line.as_str()).map_err(|e| self.fail(e))?;
        Ok(())
    }

    /// Stores one game read from `file` (or names it bad, or leaves it out
    /// as a duplicate), in input order.
    fn store_game(
        &self,
        file: &str,
        p: Prepared,
        options: ImportOptions,
        t: &mut Tables<'_, '_>,
        report: &mut ImportReport,
    ) -> Result<(), DbError> {
        let g = match p {
            Prepared::Bad { index, at, message } => {
                report.bad.push(BadGame {
                    file: file.to_string(),
                    index,
                    at,
                    message,
                });
                return Ok(());
            }
            Prepared::Game(g) => g,
        };
        let id = t.next_id;
        if !self.claim_key(t, g.key, options.dedupe)? {
            report.duplicates += 1;
            return Ok(());
        }
        let bytes = &g.moves;
        let names = &mut t.names;
        let mut name = |n: &str| names.intern(n).map_err(|e| self.fail(e));
        let start = match &g.start {
            None => NO_NAME,
            Some(fen) => name(fen)?,
        };
        let [white, black, event, site, round] = &g.names;
        let header = Header {
            white: name(white)?,
            black: name(black)?,
            event: name(event)?,
            site: name(site)?,
            round: name(round)?,
            start,
            date: g.date,
            speed: g.bucket.speed,
            white_elo: g.elo[0].map_or(0, |e| e.min(u32::from(u16::MAX)) as u16),
            black_elo: g.elo[1].map_or(0, |e| e.min(u32::from(u16::MAX)) as u16),
            eco: g.eco,
            plies: g.plies,
            result: Header::result_byte(g.result),
        };
        self.put_game(t, &header, bytes, [white.trim(), black.trim()])?;
        t.run
            .add(&g.seen, g.bucket.bits(), Counted::of(id, &header));
        report.games += 1;
        Ok(())
    }

    /// Whether the game to be stored next, whose `pgn dedupe` key is
    /// `key`, is stored: not when `dedupe` asks and a game of that key is
    /// stored already; the key of the first game that has it is kept.
    fn claim_key(&self, t: &mut Tables<'_, '_>, key: u128, dedupe: bool) -> Result<bool, DbError> {
        if dedupe {
            let stored = !t.no_keys && t.keys.get(key).map_err(|e| self.fail(e))?.is_some();
            if stored || !t.claimed_keys.insert(key) {
                return Ok(false);
            }
        }
        // Written at the end, where a key claimed twice keeps its first
        // game (`Tables::finish`).
        t.claimed.push((key, t.next_id));
        Ok(true)
    }

    /// Stores the next game: its moves at a byte a ply, its header record
    /// (`players`: its White's and Black's names) and its players; the
    /// one place a game is written, by an import and by a merge.
    fn put_game(
        &self,
        t: &mut Tables<'_, '_>,
        header: &Header,
        moves: &[u8],
        players: [&str; 2],
    ) -> Result<(), DbError> {
        let id = t.next_id;
        t.games.insert(id, moves).map_err(|e| self.fail(e))?;
        t.headers.push(header, players).map_err(|e| self.fail(e))?;
        for (name, color) in [(header.white, 0u128), (header.black, 1)] {
            if name != NO_NAME {
                t.played
                    .push(u128::from(name) << 72 | color << 64 | u128::from(id));
            }
        }
        t.next_id += 1;
        Ok(())
    }

    /// What the index's segments are after an import (or a merge) wrote
    /// `runs` as segments and `spills` as spilled runs: those merged into
    /// one segment (on `threads` threads) when there is more than one or a
    /// spilled run, and all the segments merged into one when there
    /// would be more than [`MAX_SEGMENTS`] (in the same pass). Returns
    /// the segments to list and those no longer listed (runs merged away
    /// included).
    #[allow(clippy::type_complexity)]
    fn settle(
        &self,
        old: Vec<(u64, Arc<Segment>)>,
        runs: Vec<(u64, Arc<Segment>)>,
        spills: Vec<Spill>,
        next: &mut u64,
        threads: usize,
    ) -> Result<(Vec<(u64, Arc<Segment>)>, Vec<(u64, Arc<Segment>)>), DbError> {
        let fresh = runs.len() > 1 || !spills.is_empty();
        let all = old.len() + if fresh { 1 } else { runs.len() } > MAX_SEGMENTS;
        if !fresh && !all {
            return Ok((runs, Vec::new()));
        }
        let segments = if all { &old[..] } else { &[] };
        let inputs: Vec<MergeInput<'_>> = (segments.iter().chain(&runs))
            .map(|(_, s)| MergeInput::Segment(s, 0))
            .chain(spills.iter().map(MergeInput::Spill))
            .collect();
        let merged = self.merge_into(&inputs, next, threads)?;
        drop(inputs);
        let mut replaced = runs;
        if all {
            replaced.extend(old);
        }
        Ok((vec![merged], replaced))
    }

    /// A new segment of the entries of `inputs`, merged on `threads`
    /// threads.
    fn merge_into(
        &self,
        inputs: &[MergeInput<'_>],
        next: &mut u64,
        threads: usize,
    ) -> Result<(u64, Arc<Segment>), DbError> {
        let n = *next;
        *next += 1;
        let path = self.segment_path(n);
        segment::merge_inputs(inputs, &path, threads)?;
        Ok((n, Arc::new(Segment::open(&path)?)))
    }

    /// Writes the positions counted in memory, and their games, as a run:
    /// a new segment; none if nothing is counted.
    fn flush(&self, run: &mut Run, next: &mut u64) -> Result<Option<(u64, Arc<Segment>)>, DbError> {
        if run.seen.is_empty() {
            return Ok(None);
        }
        let n = *next;
        *next += 1;
        let path = self.segment_path(n);
        let mut w = SegmentWriter::create(&path)?;
        run.entries(&mut |key, entry| w.push(key, entry))?;
        w.finish()?;
        Ok(Some((n, Arc::new(Segment::open(&path)?))))
    }

    /// Writes the positions counted in memory, and their games, as a
    /// spilled run, to be merged at the end of the import; none if
    /// nothing is counted.
    fn spill(&self, run: &mut Run, next: &mut u64) -> Result<Option<Spill>, DbError> {
        if run.seen.is_empty() {
            return Ok(None);
        }
        let n = *next;
        *next += 1;
        let path = self.dir.join(format!("{n:08}.run"));
        let mut w = SpillWriter::create(&path)?;
        run.entries(&mut |key, entry| w.push(key, entry))?;
        Ok(Some(w.finish()?))
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
        let key = u128::from(pos.hash()) << 64;
        let damaged = || self.damaged(format!("index entry {:016x}", pos.hash()));
        let mut found: Option<Explored> = None;
        for (_, s) in self.segments()? {
            for (k, entry) in s.range(key, key | u128::from(u64::MAX))? {
                if filter.admits(Bucket::from_bits(k as u64)) {
                    found.get_or_insert_with(Default::default).merge(entry);
                }
            }
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
        let t = txn.open_table(HEADERS).map_err(|e| self.fail(e))?;
        HeaderReader::new(&t, self.header_block)
            .get(id)
            .map_err(|e| self.fail(e))
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
        let h = txn.open_table(HEADERS).map_err(|e| self.fail(e))?;
        let mut headers = HeaderReader::new(&h, self.header_block);
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
            let header = self.header_in(&mut headers, n)?;
            out.push(self.read_game(n, header, v.value(), &mut starts)?);
        }
        Ok(out)
    }

    /// How many games the database holds (numbered 1 to that).
    ///
    /// # Errors
    /// [`DbError::Store`].
    pub(crate) fn games_stored(&self) -> Result<u64, DbError> {
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let meta = txn.open_table(META).map_err(|e| self.fail(e))?;
        let games = meta.get("games").map_err(|e| self.fail(e))?;
        Ok(games.map_or(0, |v| v.value()))
    }

    /// What the database holds.
    ///
    /// # Errors
    /// [`DbError::Store`].
    pub fn info(&self) -> Result<Info, DbError> {
        use redb::ReadableTableMetadata;
        let games = self.games_stored()?;
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let names = txn
            .open_table(NAME_OF)
            .map_err(|e| self.fail(e))?
            .len()
            .map_err(|e| self.fail(e))?;
        let segments = self.segments()?;
        let positions = segments.iter().map(|(_, s)| s.entries()).sum();
        let segments = (
            segments.len(),
            segments.iter().map(|(_, s)| s.bytes()).sum(),
        );
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
            segments,
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
        name_in(&t, id).map_err(|e| self.fail(e))
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
        let h = txn.open_table(HEADERS).map_err(|e| self.fail(e))?;
        let mut headers = HeaderReader::new(&h, self.header_block);
        let mut starts: HashMap<NameId, Position> = HashMap::new();
        for row in t.iter().map_err(|e| self.fail(e))? {
            let (k, v) = row.map_err(|e| self.fail(e))?;
            let id = k.value();
            let header = self.header_in(&mut headers, id)?;
            let g = self.read_game(id, header, v.value(), &mut starts)?;
            if !f(g)? {
                break;
            }
        }
        Ok(())
    }

    /// The header record of stored game `id`, read by `headers`.
    fn header_in(&self, headers: &mut HeaderReader<'_>, id: u64) -> Result<Header, DbError> {
        headers
            .get(id)
            .map_err(|e| self.fail(e))?
            .ok_or_else(|| self.damaged(format!("game {id}: no header record")))
    }

    /// The game of header record `header` and moves `bytes`, start
    /// positions other than the standard one kept in `starts` by their
    /// name.
    fn read_game(
        &self,
        id: u64,
        header: Header,
        bytes: &[u8],
        starts: &mut HashMap<NameId, Position>,
    ) -> Result<StoredGame, DbError> {
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
        let moves = codec::decode_line(&start, bytes)
            .map_err(|e| self.damaged(format!("game {id}: {e}")))?;
        Ok(StoredGame {
            id,
            header,
            start,
            moves,
        })
    }

    /// The tags of header `h` as a PGN game without moves (what a test on
    /// tags reads): [`HEADER_TAGS`], each as [`header_tag`] gives it;
    /// `names` keeps the names read so far.
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
        header_game(h, &mut name)
    }

    /// The record's game judged by [`Criteria::judge_summary`] (its tags,
    /// result and length): `None` when the tests need its moves, or it is
    /// longer than a header counts.
    pub(crate) fn judge_by_header(
        criteria: &Criteria,
        h: &Header,
        name: &mut dyn FnMut(NameId) -> Result<String, DbError>,
    ) -> Result<Option<bool>, DbError> {
        if h.plies >= Header::MAX_PLIES {
            return Ok(None);
        }
        let name = RefCell::new(name);
        let failed = RefCell::new(None);
        let tag = |t: &str| -> Option<Cow<'static, str>> {
            let mut name = name.borrow_mut();
            match header_tag(h, t, &mut **name) {
                Ok(v) => v.map(Cow::Owned),
                Err(e) => {
                    *failed.borrow_mut() = Some(e);
                    None
                }
            }
        };
        let verdict = criteria.judge_summary(tag, h.result(), usize::from(h.plies));
        match failed.into_inner() {
            Some(e) => Err(e),
            None => Ok(verdict),
        }
    }
}

/// The PGN game (tags, no moves) of header `h`: [`HEADER_TAGS`], each as
/// [`header_tag`] gives it, `name` reading the name table.
fn header_game(
    h: &Header,
    name: &mut dyn FnMut(NameId) -> Result<String, DbError>,
) -> Result<rookery_pgn::Game, DbError> {
    let mut game = rookery_pgn::Game::new();
    for tag in HEADER_TAGS {
        if let Some(value) = header_tag(h, tag, name)? {
            game.tags.insert(tag, value);
        }
    }
    game.result = h.result();
    Ok(game)
}

impl Database {
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

    /// The games that pass `criteria` as `pgn filter` judges them, in
    /// order of number: `found` gets each (its number, and its game when
    /// asked: [`Found::read`]) and returns whether to go on. Tests on tags,
    /// results and lengths alone are judged on the header records
    /// ([`Criteria::judge_summary`], compiled once into tests on the
    /// records' fields: [`crate::headers`]), the moves of a game not read
    /// unless asked for; others on the game written out in PGN and read
    /// back (see [`Database::pgn_game`]), after its header has had its say.
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`].
    pub fn search(
        &self,
        criteria: &Criteria,
        found: &mut dyn FnMut(Found<'_>) -> bool,
    ) -> Result<(), DbError> {
        self.search_with(criteria, true, found)
    }

    /// [`Database::search`], the header tests `compiled` or judged record
    /// by record by [`Criteria::judge_summary`] (a test holds the two to
    /// the same answers).
    pub(crate) fn search_with(
        &self,
        criteria: &Criteria,
        compiled: bool,
        found: &mut dyn FnMut(Found<'_>) -> bool,
    ) -> Result<(), DbError> {
        self.keeps_tags_of(criteria)?;
        let detail = criteria.detail();
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(GAMES).map_err(|e| self.fail(e))?;
        let h = txn.open_table(HEADERS).map_err(|e| self.fail(e))?;
        let name_of = txn.open_table(NAME_OF).map_err(|e| self.fail(e))?;
        // The names the tests on players look for: one pass over the
        // name table.
        let wanted = match criteria.tests_players() {
            true => {
                let players = txn.open_table(PLAYER_NAMES).map_err(|e| self.fail(e))?;
                let wanted = headers::player_names(criteria, &name_of, &players);
                Some(wanted.map_err(|e| self.fail(e))?)
            }
            false => None,
        };
        let candidates = match &wanted {
            Some(w) => {
                let players = txn.open_table(PLAYERS).map_err(|e| self.fail(e))?;
                self.player_candidates(criteria, w, &players)?
            }
            None => None,
        };
        let mut query = compiled
            .then(|| HeaderQuery::compile(criteria, wanted))
            .flatten();
        let mut names: HashMap<NameId, String> = HashMap::new();
        // The names read so far, from the search's one transaction.
        let mut name = |id: NameId| -> Result<String, DbError> {
            if let Some(n) = names.get(&id) {
                return Ok(n.clone());
            }
            let n = name_in(&name_of, id).map_err(|e| self.fail(e))?;
            names.insert(id, n.clone());
            Ok(n)
        };
        let mut starts = HashMap::new();
        let moves = |id: u64| {
            t.get(id)
                .map_err(|e| self.fail(e))?
                .ok_or_else(|| self.damaged(format!("game {id}: no moves stored")))
        };
        // Whether to go on.
        let mut judge = |id: u64, header: &Header| -> Result<bool, DbError> {
            // Most searches test tags, results and lengths only: judged
            // on the header record, the moves not read unless it passes.
            let verdict = match &mut query {
                Some(q) => q.judge(header, &mut name)?,
                None => Self::judge_by_header(criteria, header, &mut name)?,
            };
            if verdict == Some(false) {
                return Ok(true);
            }
            if verdict == Some(true) {
                let mut read = || {
                    let mut game = header_game(header, &mut name)?;
                    let g = self.read_game(id, *header, moves(id)?.value(), &mut starts)?;
                    game.start = g.start.clone();
                    game.mainline.nodes =
                        g.moves.iter().map(|&m| rookery_pgn::Node::new(m)).collect();
                    let text = rookery_pgn::writer::game_to_string(&game);
                    Ok((g, game, text))
                };
                return Ok(found(Found {
                    id,
                    read: &mut read,
                }));
            }
            let mut game = header_game(header, &mut name)?;
            if !criteria.may_pass(&game) {
                return Ok(true);
            }
            let g = self.read_game(id, *header, moves(id)?.value(), &mut starts)?;
            game.start = g.start.clone();
            game.mainline.nodes = g.moves.iter().map(|&m| rookery_pgn::Node::new(m)).collect();
            let text = rookery_pgn::writer::game_to_string(&game);
            // Judged as `pgn filter` judges the game it reads.
            let Some(Ok(read)) = Games::new(text.as_bytes()).with_detail(detail).next() else {
                return Ok(true);
            };
            if criteria.judge(&read, text.as_bytes()) != Verdict::Keep {
                return Ok(true);
            }
            let mut judged = Some((g, game, text));
            let mut read = || Ok(judged.take().expect("a found game is read once"));
            Ok(found(Found {
                id,
                read: &mut read,
            }))
        };
        if let Some(ids) = candidates {
            let mut headers = HeaderReader::new(&h, self.header_block);
            for id in ids {
                let Some(header) = headers.get(id).map_err(|e| self.fail(e))? else {
                    return Err(self.damaged(format!("players: game {id} is not stored")));
                };
                if !judge(id, &header)? {
                    break;
                }
            }
            return Ok(());
        }
        headers::scan(&h, self.header_block, |e| self.fail(e), &mut judge)
    }

    /// [`Database::player_candidates`] in a transaction of its own, the
    /// names the tests look for found first; `None` too when `criteria`
    /// tests no player.
    ///
    /// # Errors
    /// [`DbError::Store`].
    pub(crate) fn games_of_players(
        &self,
        criteria: &Criteria,
    ) -> Result<Option<Vec<u64>>, DbError> {
        if !criteria.tests_players() {
            return Ok(None);
        }
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let name_of = txn.open_table(NAME_OF).map_err(|e| self.fail(e))?;
        let names = txn.open_table(PLAYER_NAMES).map_err(|e| self.fail(e))?;
        let players = txn.open_table(PLAYERS).map_err(|e| self.fail(e))?;
        let wanted = headers::player_names(criteria, &name_of, &names).map_err(|e| self.fail(e))?;
        self.player_candidates(criteria, &wanted, &players)
    }

    /// The games a search with `criteria` may keep when it asks for
    /// players, in order of number: those whose White or Black is a name
    /// the test looks for (`wanted`, by number: [`headers::player_names`]),
    /// found through the `players` table without reading a game; `None`
    /// when every game must be judged (`--invert`, or a test a game
    /// without a name passes, which the `players` table does not list).
    fn player_candidates(
        &self,
        criteria: &Criteria,
        wanted: &[bool],
        players: &redb::ReadOnlyTable<u128, ()>,
    ) -> Result<Option<Vec<u64>>, DbError> {
        if criteria.invert || criteria.is_player("?") || criteria.is_player("") {
            return Ok(None);
        }
        let mut games = Vec::new();
        for (name, _) in wanted.iter().enumerate().filter(|(_, w)| **w) {
            let low = (name as u128) << 72;
            for row in players
                .range(low..=low | u128::from(u64::MAX) | 1 << 64)
                .map_err(|e| self.fail(e))?
            {
                let (key, _) = row.map_err(|e| self.fail(e))?;
                games.push(key.value() as u64);
            }
        }
        games.sort_unstable();
        games.dedup();
        Ok(Some(games))
    }

    /// Game number `id`, which a search or scan found: as stored and as a
    /// PGN game ([`Database::pgn_game`], `names` the names read so far).
    ///
    /// # Errors
    /// [`DbError::Store`]; [`DbError::Damaged`], also when the game is not
    /// stored (a number the database itself gave).
    pub fn found_game(
        &self,
        id: u64,
        names: &mut HashMap<NameId, String>,
    ) -> Result<(StoredGame, rookery_pgn::Game), DbError> {
        let g = self
            .game(id)?
            .ok_or_else(|| self.damaged(format!("game {id} is not stored")))?;
        let game = self.pgn_game(&g, names)?;
        Ok((g, game))
    }

    /// Game number `id` (from 1); `None` if there is none.
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`].
    pub fn game(&self, id: u64) -> Result<Option<StoredGame>, DbError> {
        let txn = self.store.begin_read().map_err(|e| self.fail(e))?;
        let t = txn.open_table(GAMES).map_err(|e| self.fail(e))?;
        let h = txn.open_table(HEADERS).map_err(|e| self.fail(e))?;
        let Some(v) = t.get(id).map_err(|e| self.fail(e))? else {
            return Ok(None);
        };
        let mut headers = HeaderReader::new(&h, self.header_block);
        let mut starts = HashMap::new();
        let header = self.header_in(&mut headers, id)?;
        self.read_game(id, header, v.value(), &mut starts).map(Some)
    }
}

/// The number of the segment file named `name` (`NNNNNNNN.seg`, as
/// `Database::segment_path` names it); `None` for another file.
fn segment_number(name: &std::ffi::OsStr) -> Option<u64> {
    name.to_str()?.strip_suffix(".seg")?.parse().ok()
}

/// Name `id` of the name table `t` (`?` for [`NO_NAME`] or a name it has not).
pub(crate) fn name_in(
    t: &redb::ReadOnlyTable<u32, &'static str>,
    id: NameId,
) -> Result<String, redb::StorageError> {
    if id == NO_NAME {
        return Ok("?".into());
    }
    Ok(t.get(id)?
        .map_or_else(|| "?".into(), |v| v.value().to_string()))
}

/// The tags a stored game has, in the order its PGN writes them: the
/// Seven Tag Roster, the ratings, the ECO code and the start position.
/// They are the only tags a search may test (the database keeps no
/// other).
pub const HEADER_TAGS: [&str; 12] = [
    "Event", "Site", "Date", "Round", "White", "Black", "Result", "WhiteElo", "BlackElo", "ECO",
    "SetUp", "FEN",
];

/// Whether `criteria` test only tags the database keeps
/// ([`HEADER_TAGS`]): else the first tag it does not keep.
pub(crate) fn unkept_tag(criteria: &Criteria) -> Option<String> {
    if !criteria.terminations.is_empty() {
        return Some("Termination".to_owned());
    }
    criteria
        .tags
        .iter()
        .map(|t| t.name())
        .find(|n| !HEADER_TAGS.contains(n))
        .map(str::to_owned)
}

/// The value of tag `tag` of the game of header `h` (`name` reads a name
/// of the name table); `None` for a tag it has not: the one statement of a
/// stored game's tags, for its PGN and for a search that judges it by
/// its header alone.
pub(crate) fn header_tag(
    h: &Header,
    tag: &str,
    name: &mut dyn FnMut(NameId) -> Result<String, DbError>,
) -> Result<Option<String>, DbError> {
    let date = |v: u32, width: usize| {
        if v == 0 {
            "?".repeat(width)
        } else {
            format!("{v:0width$}")
        }
    };
    let elo = |e: u16| (e > 0).then(|| e.to_string());
    Ok(match tag {
        "Event" => Some(name(h.event)?),
        "Site" => Some(name(h.site)?),
        "Date" => {
            let d = h.date;
            Some(format!(
                "{}.{}.{}",
                date(u32::from(d.year), 4),
                date(u32::from(d.month), 2),
                date(u32::from(d.day), 2)
            ))
        }
        "Round" => Some(name(h.round)?),
        "White" => Some(name(h.white)?),
        "Black" => Some(name(h.black)?),
        "Result" => Some(h.result().to_string()),
        "WhiteElo" => elo(h.white_elo),
        "BlackElo" => elo(h.black_elo),
        "ECO" => h.eco_text(),
        "SetUp" => (h.start != NO_NAME).then(|| "1".to_string()),
        "FEN" if h.start != NO_NAME => Some(name(h.start)?),
        _ => None,
    })
}

/// A game [`Database::search`] found: its number, and the game, read
/// when asked.
pub struct Found<'a> {
    /// The game's number.
    pub id: u64,
    read: &'a mut dyn FnMut() -> Result<(StoredGame, rookery_pgn::Game, String), DbError>,
}

impl Found<'_> {
    /// The game: as stored, as a PGN game (tags from its header, its
    /// mainline and result), and that game's PGN text.
    ///
    /// # Errors
    /// [`DbError::Store`], [`DbError::Damaged`].
    pub fn read(self) -> Result<(StoredGame, rookery_pgn::Game, String), DbError> {
        (self.read)()
    }
}

/// What a game brings to each index entry it is counted in.
#[derive(Copy, Clone, Debug)]
struct Counted {
    id: u64,
    rating: u32,
    date: u32,
    result: GameResult,
    elo: [Option<u32>; 2],
}

impl Counted {
    /// Game `id` as its header `h` says (ratings as stored).
    fn of(id: u64, h: &Header) -> Counted {
        let elo = |e: u16| (e > 0).then_some(u32::from(e));
        let rating = if h.white_elo > 0 && h.black_elo > 0 {
            u32::from(h.white_elo) + u32::from(h.black_elo)
        } else {
            0
        };
        Counted {
            id,
            rating,
            date: h.date.packed(),
            result: h.result(),
            elo: [elo(h.white_elo), elo(h.black_elo)],
        }
    }
}

/// A position a game was counted for: the entry's key (the position's,
/// the game's bucket), the game (its place in [`Run::games`]), the move it
/// played there and the side to move.
#[derive(Copy, Clone, Debug)]
struct Seen {
    key: u128,
    game: u32,
    mv: Option<Move>,
    turn: Color,
}

/// An import's positions not yet written: every position each game was
/// counted for, flat, sorted and gathered into entries when written (an
/// entry per position and bucket built from a hash table cost four times
/// as much: most positions of a collection are seen in one game).
#[derive(Default)]
struct Run {
    games: Vec<Counted>,
    seen: Vec<Seen>,
}

/// The tables an import writes, open in its transaction. The rows of
/// the tables keyed by a hash or a name (the games' keys, the players'
/// games, the names) are gathered and written at the end
/// ([`Tables::finish`]), in the order of their keys.
struct Tables<'a, 't> {
    names: Names<'a, 't>,
    games: redb::Table<'t, u64, &'static [u8]>,
    keys: redb::Table<'t, u128, u64>,
    /// Whether `keys` had no key when the import began.
    no_keys: bool,
    /// Each game's key and number, in order of number (a key may come
    /// again: its first game keeps it).
    claimed: Vec<(u128, u64)>,
    /// The keys of `claimed`, when games of a key stored are left out
    /// ([`ImportOptions::dedupe`]; empty otherwise).
    claimed_keys: HashSet<u128>,
    players: redb::Table<'t, u128, ()>,
    /// The rows of `players` to write.
    played: Vec<u128>,
    headers: HeaderBlocks<'t>,
    /// The number the next game stored gets.
    next_id: u64,
    /// The positions counted since the last run was written.
    run: Run,
}

/// What ends reading an input: the input, or the store.
enum Stop {
    Io(std::io::Error),
    Db(DbError),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        Stop::Io(e)
    }
}

impl From<DbError> for Stop {
    fn from(e: DbError) -> Stop {
        Stop::Db(e)
    }
}

/// A game as a reading thread prepares it for the store: all but what
/// needs the store (its number, its names' numbers, whether it is a
/// duplicate).
enum Prepared {
    /// A game with an error, left out.
    Bad {
        index: usize,
        at: Location,
        message: String,
    },
    Game(Box<PreparedGame>),
}

/// A readable game, prepared ([`Prepared`]).
struct PreparedGame {
    /// `pgn dedupe`'s key.
    key: u128,
    /// White, Black, Event, Site, Round.
    names: [String; 5],
    /// The start position's FEN, unless it is the standard one.
    start: Option<String>,
    date: Date,
    bucket: Bucket,
    elo: [Option<u32>; 2],
    eco: u16,
    plies: u16,
    result: GameResult,
    /// The moves at about a byte a ply ([`codec`]).
    moves: Vec<u8>,
    /// The positions it is counted for ([`Explorer::positions_of`]).
    seen: Vec<(u64, Option<Move>, Color)>,
}

impl Prepared {
    /// Prepares game `g` (on a reading thread).
    fn of(g: &ReadGame, plan: &KeyPlan, explorer: &mut Explorer) -> Prepared {
        if let Some(e) = &g.error {
            return Prepared::Bad {
                index: g.index,
                at: e.at,
                message: e.kind.to_string(),
            };
        }
        let game = &g.game;
        let moves: Vec<Move> = game.mainline_moves().collect();
        // A read game's moves are legal (the reader resolved each against
        // its position): not checked again.
        let Some(bytes) = codec::encode_line_unchecked(&game.start, &moves) else {
            // Only a move the codec cannot write is left, reported as any
            // bad game is.
            return Prepared::Bad {
                index: g.index,
                at: g.at,
                message: "its moves cannot be stored".into(),
            };
        };
        let tag = |n: &str| game.tags.get(n).unwrap_or("").to_string();
        Prepared::Game(Box::new(PreparedGame {
            key: plan.key(g, &[]),
            names: ["White", "Black", "Event", "Site", "Round"].map(tag),
            start: (game.start != Position::startpos())
                .then(|| rookery_core::Fen::from_position(&game.start).to_string()),
            date: Date::from_pgn(game.tags.get("Date").unwrap_or("")),
            bucket: Bucket::of(&game.tags),
            elo: [elo(&game.tags, "WhiteElo"), elo(&game.tags, "BlackElo")],
            eco: Header::eco_number(game.tags.get("ECO").unwrap_or("")),
            plies: moves.len().min(usize::from(u16::MAX)) as u16,
            result: game.result,
            moves: bytes,
            seen: explorer.positions_of_read(g).to_vec(),
        }))
    }
}

impl Tables<'_, '_> {
    /// Writes what the import gathered: the names it added, the keys of
    /// its games (each key's first game, unless the table has it
    /// already), the players' games and the last header block.
    ///
    /// # Errors
    /// The store's error.
    fn finish(&mut self) -> Result<(), redb::Error> {
        self.names.finish()?;
        // In order of key, a key's first game first.
        self.claimed.sort_unstable();
        self.claimed.dedup_by_key(|&mut (key, _)| key);
        for &(key, id) in &self.claimed {
            if self.no_keys || self.keys.get(key)?.is_none() {
                self.keys.insert(key, id)?;
            }
        }
        self.claimed = Vec::new();
        self.played.sort_unstable();
        for &key in &self.played {
            self.players.insert(key, ())?;
        }
        self.played = Vec::new();
        self.headers.finish()
    }
}

impl Run {
    /// A run with room for `positions` and a game's more (its memory
    /// taken once, not grown by copies).
    fn with_capacity(positions: usize) -> Run {
        Run {
            games: Vec::new(),
            seen: Vec::with_capacity(positions + 1024),
        }
    }

    /// Sorts the positions counted and gives each entry they make, in
    /// order of key, to `push`; the run is left empty.
    fn entries(
        &mut self,
        push: &mut dyn FnMut(u128, &Explored) -> Result<(), SegmentError>,
    ) -> Result<(), SegmentError> {
        self.seen.sort_unstable_by_key(|s| s.key);
        // One entry's lists, reused: most entries are of one game.
        let mut entry = Explored::default();
        for group in self.seen.chunk_by(|a, b| a.key == b.key) {
            entry.passing = Tally::default();
            entry.moves.clear();
            entry.games.clear();
            for s in group {
                let g = &self.games[s.game as usize];
                entry.passing.add(g.result, s.turn, g.elo);
                let Some(mv) = s.mv else { continue };
                match entry.moves.iter_mut().find(|(m, _)| *m == mv) {
                    Some((_, t)) => t.add(g.result, s.turn, g.elo),
                    None => {
                        let mut t = Tally::default();
                        t.add(g.result, s.turn, g.elo);
                        entry.moves.push((mv, t));
                    }
                }
                entry.games.push(GameRef {
                    id: g.id,
                    mv,
                    rating: g.rating,
                    date: g.date,
                });
            }
            entry.prune();
            push(group[0].key, &entry)?;
        }
        self.seen.clear();
        self.games.clear();
        Ok(())
    }

    /// Adds the positions a game was counted for ([`Explorer::positions_of`]).
    fn add(&mut self, seen: &[(u64, Option<Move>, Color)], bucket: u64, counted: Counted) {
        let index = self.games.len() as u32;
        self.games.push(counted);
        for &(key, mv, turn) in seen {
            self.seen.push(Seen {
                key: u128::from(key) << 64 | u128::from(bucket),
                game: index,
                mv,
                turn,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_pgn::source::Source;
    use rookery_testkit::TempDir;

    /// `n` short games, each of its own players and moves.
    fn games(from: usize, n: usize) -> String {
        // Each ends with a move of White: a6 or h6 is Black's answer.
        let openings = [
            "1. e4 e5 2. Nf3",
            "1. d4 d5 2. c4",
            "1. c4",
            "1. Nf3 d5 2. g3",
        ];
        (from..from + n)
            .map(|i| {
                format!(
                    "[White \"w{i}\"]\n[Black \"b{i}\"]\n[Result \"1-0\"]\n\n{} {} 1-0\n\n",
                    openings[i % openings.len()],
                    if i % 2 == 0 { "a6" } else { "h6" }
                )
            })
            .collect()
    }

    /// The kept tags are those the header record answers, and a search
    /// on another tag is refused, not answered wrongly.
    #[test]
    fn kept_tags_are_the_header_records_and_others_are_refused() {
        let h = Header {
            white: 1,
            black: 1,
            event: 1,
            site: 1,
            round: 1,
            start: 1,
            date: crate::header::Date::from_pgn("2024.06.01"),
            white_elo: 2000,
            black_elo: 1900,
            eco: Header::eco_number("B20"),
            ..Header::default()
        };
        let mut name = |_| Ok("x".to_owned());
        for tag in HEADER_TAGS {
            assert!(header_tag(&h, tag, &mut name).unwrap().is_some(), "{tag}");
        }
        for tag in [
            "Termination",
            "TimeControl",
            "Annotator",
            "PlyCount",
            "event",
        ] {
            assert!(header_tag(&h, tag, &mut name).unwrap().is_none(), "{tag}");
        }
        let t = TempDir::new("db-kept-tags");
        let db = Database::open(&t.join("k.rdb")).unwrap();
        import(&db, &games(0, 3));
        for (tag, test) in [
            ("TimeControl", "TimeControl=180+0"),
            ("Termination", ""),
            ("Annotator", "Annotator!=x"),
        ] {
            let mut c = Criteria::default();
            if test.is_empty() {
                c.terminations
                    .push(rookery_pgn::tags::Termination::from_tag("time forfeit"));
            } else {
                c.tags.push(test.parse().unwrap());
            }
            let e = db.search(&c, &mut |_| true).unwrap_err();
            assert!(
                matches!(&e, DbError::NotKept { tag: t, .. } if t == tag),
                "{e}"
            );
            assert!(e.to_string().contains("pgn filter"), "{e}");
            let q = crate::scan::Pattern::from(crate::scan::Query::default());
            assert!(matches!(
                db.scan(&c, &q, 1, &mut |_| true),
                Err(DbError::NotKept { .. })
            ));
        }
        let mut c = Criteria::default();
        c.tags.push("WhiteElo>=1".parse().unwrap());
        assert!(db.search(&c, &mut |_| true).is_ok());
    }

    fn import(db: &Database, pgn: &str) {
        let source = Source::reader(pgn.as_bytes());
        let options = ImportOptions {
            run_positions: 500,
            ..ImportOptions::default()
        };
        let report = db
            .import(vec![("t.pgn".into(), source)], options, &mut |_| {})
            .unwrap();
        assert!(report.bad.is_empty(), "{:?}", report.bad);
    }

    /// Imports leave free pages behind them (tables written copy-on-write,
    /// the last header block written again by each): `compact` gives them
    /// back, the file shrinks, every game and answer stays, and a second
    /// call finds nothing more to move.
    #[test]
    fn compact_gives_back_what_imports_left_and_keeps_every_game() {
        let t = TempDir::new("db-compact");
        let path = t.join("c.rdb");
        let mut db = Database::open(&path).unwrap();
        for k in 0..8 {
            import(&db, &games(k * 700, 700));
        }
        let before = db.info().unwrap();
        let headers: Vec<_> = (1..=5600).map(|id| db.header(id).unwrap()).collect();
        let e4 = Position::startpos();
        let explored = db
            .explore(&e4, &BucketFilter::default())
            .unwrap()
            .expect("the start position is indexed");
        let grown = std::fs::metadata(&path).unwrap().len();
        assert!(
            db.compact().unwrap(),
            "nothing to compact after eight imports"
        );
        let compacted = std::fs::metadata(&path).unwrap().len();
        assert!(compacted < grown, "{compacted} bytes, not below {grown}");
        assert!(!db.compact().unwrap(), "a compacted file compacted again");
        drop(db);
        let db = Database::open_to_read(&path).unwrap();
        let after = db.info().unwrap();
        assert_eq!((after.games, after.names), (before.games, before.names));
        for (id, h) in (1..=5600).zip(&headers) {
            assert_eq!(&db.header(id).unwrap(), h, "game {id}");
        }
        assert_eq!(
            db.explore(&e4, &BucketFilter::default()).unwrap(),
            Some(explored)
        );
    }

    /// A database of layout 5 (moves by legal-move index) is not read as
    /// layout 6's: every way of opening it names its layout and says to
    /// import again; the read-only opens write nothing, and it stays of
    /// layout 5.
    #[test]
    fn a_database_of_the_last_layout_is_refused_by_name() {
        let t = TempDir::new("db-layout");
        let path = t.join("old.rdb");
        let db = Database::open(&path).unwrap();
        import(&db, &games(0, 20));
        drop(db);
        let set_version = |v: u64| {
            let store = redb::Database::open(&path).unwrap();
            let txn = store.begin_write().unwrap();
            txn.open_table(META).unwrap().insert("version", v).unwrap();
            txn.commit().unwrap();
        };
        set_version(5);
        let bytes = std::fs::read(&path).unwrap();
        let refused = |how: &str, opened: Result<Database, DbError>| {
            let e = opened.err().unwrap_or_else(|| panic!("{how}: opened"));
            assert!(matches!(e, DbError::Version { found: 5, .. }), "{how}: {e}");
            let text = e.to_string();
            assert!(
                text.contains("layout 5") && text.contains("import its games again"),
                "{how}: {text}"
            );
        };
        refused("open_read_only", Database::open_read_only(&path));
        refused("open_to_read", Database::open_to_read(&path));
        assert!(
            std::fs::read(&path).unwrap() == bytes,
            "a read-only open wrote to the file"
        );
        refused("open", Database::open(&path));
        let store = redb::ReadOnlyDatabase::open(&path).unwrap();
        let txn = store.begin_read().unwrap();
        let meta = txn.open_table(META).unwrap();
        assert_eq!(meta.get("version").unwrap().unwrap().value(), 5);
    }
}
