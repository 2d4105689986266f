//! The header records apart from the moves, and header search compiled
//! once before it reads them.
//!
//! Every game's [`Header`] record is kept in the `headers` table, in
//! blocks of `B` records concatenated: block `k` holds games `k * B + 1`
//! to `(k + 1) * B`, in order, the last block of the database as many as
//! there are. `B` is the database's `header_block` (in its `meta` table):
//! [`BLOCK_GAMES`] for a database made now, [`FIRST_BLOCK_GAMES`] for one
//! made before that was written down. An import appends to the
//! last block (read back, then written again with the new records) in
//! its own transaction, so a killed import leaves the blocks as they were.
//! A search reads a block whole (about 32 KiB) and the records one after the
//! other, never a game's moves unless the game passes.
//!
//! A search's tests on tags, results and lengths are compiled
//! (`HeaderQuery`) into tests on the record's fields: each test of
//! [`Criteria`] reads a few fields (a name's number, the date, a rating,
//! the ECO code, the result, the length), and its verdict on a value of
//! those fields is worked out once, by [`Criteria::judge_summary`] itself
//! on that record's tags (as [`crate::Database::search`] judges a record
//! without the compiled query), then kept; the tests on players are the
//! names of the name table that pass them, found in one pass over the
//! table. The compiled query's verdict is the verdict of `pgn filter`'s
//! code, only not worked out again for every game.

use redb::{ReadableTable, TableDefinition};
use rookery_pgn::filter::Criteria;
use rookery_pgn::GameResult;

use crate::header::{Header, NameId, HEADER_BYTES, NO_NAME};
use crate::store::HEADER_TAGS;
use crate::{Database, DbError};

/// The table of header blocks: a block's number, its records.
pub(crate) const HEADERS: TableDefinition<u64, &[u8]> = TableDefinition::new("headers");

/// The names that are a game's White or Black, by number: what a search
/// on players reads (most names of a collection are sites and events:
/// lichess's sites are one a game).
pub(crate) const PLAYER_NAMES: TableDefinition<u32, &str> = TableDefinition::new("player_names");

/// The header records a block of a database made now holds (the last
/// block of a database, fewer): 900 records are 32,400 bytes, which with
/// the store's own bytes fit a 32 KiB page (1,024 records, 36 KiB, took a
/// 64 KiB page each).
pub const BLOCK_GAMES: u64 = 900;

/// The header records a block holds in a database made before its
/// block's size was written in its `meta` table.
pub const FIRST_BLOCK_GAMES: u64 = 1024;

/// The block of game `id` (from 1) and its place there, in blocks of
/// `block` records.
fn place(id: u64, block: u64) -> (u64, usize) {
    let n = id.saturating_sub(1);
    (n / block, (n % block) as usize)
}

/// The header blocks within an import's transaction: the last block's
/// records, added to and written as it fills.
pub(crate) struct HeaderBlocks<'t> {
    table: redb::Table<'t, u64, &'static [u8]>,
    players: redb::Table<'t, u32, &'static str>,
    /// The players' names met, by number: written to `players` at the
    /// end ([`HeaderBlocks::finish`]), in order of number.
    known: std::collections::HashMap<NameId, Box<str>>,
    /// The number of the block being filled.
    block: u64,
    /// Its records so far.
    records: Vec<u8>,
    /// The bytes of a full block.
    full: usize,
}

impl<'t> HeaderBlocks<'t> {
    /// The blocks of `txn`'s database, of `block_games` records each,
    /// whose games so far number `stored`: the last block read back if it
    /// is not full.
    ///
    /// # Errors
    /// The store's error; `Err(Ok(what))` when the last block is not as
    /// long as `stored` says (a damaged database).
    pub(crate) fn open(
        txn: &'t redb::WriteTransaction,
        stored: u64,
        block_games: u64,
    ) -> Result<HeaderBlocks<'t>, Result<String, redb::Error>> {
        let table = txn.open_table(HEADERS).map_err(|e| Err(e.into()))?;
        let players = txn.open_table(PLAYER_NAMES).map_err(|e| Err(e.into()))?;
        let (block, kept) = place(stored + 1, block_games);
        let full = block_games as usize * HEADER_BYTES;
        let mut records = Vec::with_capacity(full);
        if kept > 0 {
            let v = table.get(block).map_err(|e| Err(e.into()))?;
            records.extend_from_slice(v.as_ref().map_or(&[][..], |v| v.value()));
        }
        if records.len() != kept * HEADER_BYTES {
            return Err(Ok(format!(
                "header block {block}: {} bytes, where its {kept} games take {}",
                records.len(),
                kept * HEADER_BYTES
            )));
        }
        Ok(HeaderBlocks {
            table,
            players,
            known: Default::default(),
            block,
            records,
            full,
        })
    }

    /// Adds the record of the next game (the games are numbered in
    /// order, so its place is the next one), whose White and Black are
    /// named `players` (as the name table has them).
    ///
    /// # Errors
    /// The store's error.
    pub(crate) fn push(&mut self, h: &Header, players: [&str; 2]) -> Result<(), redb::Error> {
        for (id, name) in [h.white, h.black].into_iter().zip(players) {
            if id != NO_NAME {
                self.known.entry(id).or_insert_with(|| name.into());
            }
        }
        self.records.extend_from_slice(&h.encode());
        if self.records.len() >= self.full {
            self.table.insert(self.block, self.records.as_slice())?;
            self.records.clear();
            self.block += 1;
        }
        Ok(())
    }

    /// Writes the last block, not full, and the players' names met.
    ///
    /// # Errors
    /// The store's error.
    pub(crate) fn finish(&mut self) -> Result<(), redb::Error> {
        let mut known: Vec<(NameId, Box<str>)> =
            std::mem::take(&mut self.known).into_iter().collect();
        known.sort_unstable();
        for (id, name) in known {
            if self.players.get(id)?.is_none() {
                self.players.insert(id, &*name)?;
            }
        }
        if !self.records.is_empty() {
            self.table.insert(self.block, self.records.as_slice())?;
        }
        Ok(())
    }
}

/// Header records read by game number from a read transaction's blocks,
/// the last block read kept at hand (games are mostly read in order).
pub(crate) struct HeaderReader<'a> {
    table: &'a redb::ReadOnlyTable<u64, &'static [u8]>,
    /// The records of a full block.
    block_games: u64,
    block: Option<(u64, redb::AccessGuard<'static, &'static [u8]>)>,
}

impl<'a> HeaderReader<'a> {
    /// A reader of `table`'s records, in blocks of `block_games`.
    pub(crate) fn new(
        table: &'a redb::ReadOnlyTable<u64, &'static [u8]>,
        block_games: u64,
    ) -> HeaderReader<'a> {
        HeaderReader {
            table,
            block_games,
            block: None,
        }
    }

    /// The record of game `id`; `None` if there is none.
    ///
    /// # Errors
    /// The store's error.
    pub(crate) fn get(&mut self, id: u64) -> Result<Option<Header>, redb::Error> {
        if id == 0 {
            return Ok(None);
        }
        let (block, at) = place(id, self.block_games);
        if self.block.as_ref().is_none_or(|(b, _)| *b != block) {
            self.block = self.table.get(block)?.map(|v| (block, v));
        }
        Ok(self
            .block
            .as_ref()
            .and_then(|(_, v)| v.value().get(at * HEADER_BYTES..).and_then(Header::decode)))
    }
}

/// Calls `f` with every game's number and header record (in blocks of
/// `block_games`), in order of number, until it returns `false`.
///
/// # Errors
/// The store's error, or `f`'s.
pub(crate) fn scan<E>(
    table: &redb::ReadOnlyTable<u64, &'static [u8]>,
    block_games: u64,
    fail: impl Fn(redb::Error) -> E,
    f: &mut dyn FnMut(u64, &Header) -> Result<bool, E>,
) -> Result<(), E> {
    for row in table.iter().map_err(|e| fail(e.into()))? {
        let (k, v) = row.map_err(|e| fail(e.into()))?;
        let first = k.value() * block_games + 1;
        for (i, record) in v.value().chunks_exact(HEADER_BYTES).enumerate() {
            // A chunk of HEADER_BYTES always decodes.
            let Some(h) = Header::decode(record) else {
                continue;
            };
            if !f(first + i as u64, &h)? {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Which names of players the tests on players of `criteria` look for
/// ([`Criteria::is_player`]), by number (`name_of` the name table,
/// `players` the names of players): index [`NO_NAME`] says whether a
/// missing name (`?`, as a stored game's tag reads) is one. The other
/// names of the table are no game's White or Black.
///
/// # Errors
/// The store's error.
pub(crate) fn player_names(
    criteria: &Criteria,
    name_of: &redb::ReadOnlyTable<u32, &'static str>,
    players: &redb::ReadOnlyTable<u32, &'static str>,
) -> Result<Vec<bool>, redb::Error> {
    let top = name_of.last()?.map_or(0, |(k, _)| k.value());
    let mut wanted = vec![false; top as usize + 1];
    wanted[NO_NAME as usize] = criteria.is_player("?");
    for row in players.iter()? {
        let (k, v) = row?;
        if criteria.is_player(v.value()) {
            if let Some(w) = wanted.get_mut(k.value() as usize) {
                *w = true;
            }
        }
    }
    Ok(wanted)
}

/// A field of a header record a test reads: what determines its verdict.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Field {
    White,
    Black,
    Event,
    Site,
    Round,
    /// The start position (the tags `SetUp` and `FEN`).
    Start,
    Date,
    Result,
    WhiteElo,
    BlackElo,
    Eco,
    Plies,
    /// None: a tag a stored game does not have.
    Nothing,
}

impl Field {
    /// The field of a stored game's tag `tag` (see `HEADER_TAGS`); `None`
    /// for a tag it has that no field here stands for.
    fn of_tag(tag: &str) -> Option<Field> {
        Some(match tag {
            "White" => Field::White,
            "Black" => Field::Black,
            "Event" => Field::Event,
            "Site" => Field::Site,
            "Round" => Field::Round,
            "SetUp" | "FEN" => Field::Start,
            "Date" => Field::Date,
            "Result" => Field::Result,
            "WhiteElo" => Field::WhiteElo,
            "BlackElo" => Field::BlackElo,
            "ECO" => Field::Eco,
            t if !HEADER_TAGS.contains(&t) => Field::Nothing,
            _ => return None,
        })
    }

    /// The field's value in `h`, as a number.
    fn key(self, h: &Header) -> u32 {
        match self {
            Field::White => h.white,
            Field::Black => h.black,
            Field::Event => h.event,
            Field::Site => h.site,
            Field::Round => h.round,
            Field::Start => h.start,
            Field::Date => h.date.packed(),
            Field::Result => u32::from(h.result),
            Field::WhiteElo => u32::from(h.white_elo),
            Field::BlackElo => u32::from(h.black_elo),
            Field::Eco => u32::from(h.eco),
            Field::Plies => u32::from(h.plies),
            Field::Nothing => 0,
        }
    }
}

/// A verdict not yet worked out, a fail and a pass, as [`Test`] keeps them.
const UNKNOWN: u8 = 0;
const FAILS: u8 = 1;
const PASSES: u8 = 2;

/// One test of a criteria, alone in a [`Criteria`] of its own, with its
/// verdicts by the value of the field it reads.
struct Test {
    field: Field,
    /// With [`Field::WhiteElo`] or [`Field::BlackElo`]: the test reads both
    /// ratings (`--elo`) and passes when both pass it, so it is judged on
    /// a record with both ratings the same (the field's).
    both_ratings: bool,
    alone: Criteria,
    verdicts: Vec<u8>,
}

impl Test {
    fn new(field: Field, alone: Criteria) -> Test {
        Test {
            field,
            both_ratings: false,
            alone,
            verdicts: Vec::new(),
        }
    }

    /// The test's verdict on record `h`; `None` if it needs the game.
    fn passes(
        &mut self,
        h: &Header,
        name: &mut dyn FnMut(NameId) -> Result<String, DbError>,
    ) -> Result<Option<bool>, DbError> {
        let k = self.field.key(h) as usize;
        if let Some(&v) = self.verdicts.get(k) {
            if v != UNKNOWN {
                return Ok(Some(v == PASSES));
            }
        } else {
            self.verdicts.resize(k + 1, UNKNOWN);
        }
        let mut probe = *h;
        if self.both_ratings {
            match self.field {
                Field::WhiteElo => probe.black_elo = probe.white_elo,
                _ => probe.white_elo = probe.black_elo,
            }
        }
        let Some(v) = Database::judge_by_header(&self.alone, &probe, name)? else {
            return Ok(None);
        };
        self.verdicts[k] = if v { PASSES } else { FAILS };
        Ok(Some(v))
    }
}

/// A header search compiled (see the module documentation): the verdict
/// of [`Criteria::judge_summary`] on a stored game's tags, result and
/// length, from the record's fields.
pub(crate) struct HeaderQuery {
    /// The names the tests on players look for ([`player_names`]), if
    /// there are such tests.
    players: Option<Vec<bool>>,
    tests: Vec<Test>,
    invert: bool,
}

impl HeaderQuery {
    /// `criteria` compiled, `players` the names its tests on players look
    /// for ([`player_names`], when [`Criteria::tests_players`]); `None`
    /// when the tests need more than a header record (moves, endings,
    /// variations) or read a tag a stored game has that no field of the
    /// record stands for here.
    pub(crate) fn compile(criteria: &Criteria, players: Option<Vec<bool>>) -> Option<HeaderQuery> {
        criteria.judge_summary(|_| None, GameResult::Unknown, 0)?;
        if criteria.tests_players() != players.is_some() {
            return None;
        }
        let only = |f: &dyn Fn(&mut Criteria)| {
            let mut c = Criteria::default();
            f(&mut c);
            c
        };
        let mut tests = Vec::new();
        for t in &criteria.tags {
            let field = Field::of_tag(t.name())?;
            tests.push(Test::new(field, only(&|c| c.tags.push(t.clone()))));
        }
        if let Some(elo) = criteria.elo {
            for field in [Field::WhiteElo, Field::BlackElo] {
                let mut test = Test::new(field, only(&|c| c.elo = Some(elo)));
                test.both_ratings = true;
                tests.push(test);
            }
        }
        if let Some(date) = criteria.date {
            tests.push(Test::new(Field::Date, only(&|c| c.date = Some(date))));
        }
        if let Some(eco) = criteria.eco {
            tests.push(Test::new(Field::Eco, only(&|c| c.eco = Some(eco))));
        }
        if !criteria.terminations.is_empty() {
            let field = Field::of_tag("Termination")?;
            let t = criteria.terminations.clone();
            tests.push(Test::new(field, only(&|c| c.terminations = t.clone())));
        }
        if let Some(plies) = criteria.plies {
            tests.push(Test::new(Field::Plies, only(&|c| c.plies = Some(plies))));
        }
        if !criteria.results.is_empty() {
            let r = criteria.results.clone();
            tests.push(Test::new(Field::Result, only(&|c| c.results = r.clone())));
        }
        Some(HeaderQuery {
            players,
            tests,
            invert: criteria.invert,
        })
    }

    /// The verdict on record `h` (`true`: keep the game), as
    /// `Database::judge_by_header` gives it; `None` when its game must be read
    /// (longer than a record counts).
    pub(crate) fn judge(
        &mut self,
        h: &Header,
        name: &mut dyn FnMut(NameId) -> Result<String, DbError>,
    ) -> Result<Option<bool>, DbError> {
        if h.plies >= Header::MAX_PLIES {
            return Ok(None);
        }
        if let Some(wanted) = &self.players {
            // A number past the table reads as `?` (see `name_in`).
            let plays = |id: NameId| *wanted.get(id as usize).unwrap_or(&wanted[0]);
            if !plays(h.white) && !plays(h.black) {
                return Ok(Some(self.invert));
            }
        }
        for t in &mut self.tests {
            match t.passes(h, name)? {
                Some(true) => {}
                Some(false) => return Ok(Some(self.invert)),
                None => return Ok(None),
            }
        }
        Ok(Some(!self.invert))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ImportOptions;
    use rookery_pgn::filter::CriteriaText;
    use rookery_pgn::source::Source;
    use rookery_testkit::TempDir;

    /// `n` games with varied headers and a few moves each (a fixed
    /// generator), tags left out, `?` and unknown ratings among them.
    fn games(n: usize) -> String {
        let mut state: u64 = 0x853c_49e6_748f_ea9b;
        let mut next = move |k: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as usize) % k.max(1)
        };
        let pick = |v: &[&'static str], i: usize| v[i];
        let names = ["Anna", "anna b", "Boris", "?", "", "Cleo Anna"];
        let elos = ["2400", "2500", "2600", "?", "", "1800"];
        let dates = [
            "2024.01.15",
            "2024.??.??",
            "2024.03.??",
            "????.??.??",
            "",
            "2023.12.01",
        ];
        let ecos = ["B20", "B29", "C00", "?", "", "E99"];
        let events = ["Open", "open blitz", "?", ""];
        let lines = ["", "1. e4", "1. e4 e5 2. Nf3", "1. d4 d5 2. c4 e6 3. Nc3"];
        let results = ["1-0", "0-1", "1/2-1/2", "*"];
        let mut out = String::new();
        for _ in 0..n {
            let mut tag = |name: &str, value: &str| {
                if !value.is_empty() {
                    out.push_str(&format!("[{name} \"{value}\"]\n"));
                }
            };
            let result = pick(&results, next(4));
            tag("Event", pick(&events, next(4)));
            tag("Date", pick(&dates, next(6)));
            tag("White", pick(&names, next(6)));
            tag("Black", pick(&names, next(6)));
            tag("Result", result);
            tag("WhiteElo", pick(&elos, next(6)));
            tag("BlackElo", pick(&elos, next(6)));
            tag("ECO", pick(&ecos, next(6)));
            out.push_str(&format!("\n{} {result}\n\n", pick(&lines, next(4))));
        }
        out
    }

    fn import(db: &Database, pgn: &str) {
        let source = Source::reader(pgn.as_bytes());
        let report = db
            .import(
                vec![("t.pgn".into(), source)],
                ImportOptions::default(),
                &mut |_| {},
            )
            .unwrap();
        assert!(report.bad.is_empty(), "{:?}", report.bad);
    }

    fn found(db: &Database, c: &Criteria, compiled: bool) -> Vec<u64> {
        let mut ids = Vec::new();
        db.search_with(c, compiled, &mut |f| {
            ids.push(f.id);
            true
        })
        .unwrap();
        ids
    }

    /// The compiled search keeps the games the search that judges each
    /// record by `Criteria::judge_summary` keeps, for criteria drawn at
    /// random from every header test, alone and together, inverted or not.
    #[test]
    fn the_compiled_query_answers_as_each_record_judged() {
        let t = TempDir::new("db-headers-query");
        let db = Database::open(&t.join("g.rdb")).unwrap();
        import(&db, &games(1500));
        let mut state: u64 = 7;
        let mut next = move |k: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as usize) % k.max(1)
        };
        let some = |v: &[&str], i: usize| (i < v.len()).then(|| v[i].to_string());
        let (mut compiled, mut differ) = (0, 0);
        for _ in 0..400 {
            let text = CriteriaText {
                players: some(&["anna", "BORIS", "?", "leo a", "x"], next(10))
                    .into_iter()
                    .collect(),
                elo: some(&["2500", "2400..2500", "..2600", "1800..1800"], next(8)),
                date: some(
                    &["2024", "2024.01", "2024.03.??..2024", "..2023.12.01"],
                    next(8),
                ),
                eco: some(&["B20..B29", "C00", "..B29"], next(6)),
                plies: some(&["0", "1..3", "4.."], next(6)),
                results: some(&["1-0", "*", "1/2-1/2"], next(6))
                    .into_iter()
                    .collect(),
                tags: some(
                    &[
                        "Event=Open",
                        "Event~blitz",
                        "WhiteElo>=2500",
                        "Date<2024",
                        "ECO!=?",
                        "Site=?",
                        "FEN~8",
                    ],
                    next(11),
                )
                .into_iter()
                .collect(),
                // (A Termination or Annotator test is refused: a database
                // does not keep those tags.)
                invert: next(3) == 0,
                ..CriteriaText::default()
            };
            let c = text.criteria().unwrap();
            let mut players = None;
            if c.tests_players() {
                let txn = db.store.begin_read().unwrap();
                let t = txn.open_table(crate::store::NAME_OF).unwrap();
                let p = txn.open_table(PLAYER_NAMES).unwrap();
                players = Some(player_names(&c, &t, &p).unwrap());
            }
            compiled += usize::from(HeaderQuery::compile(&c, players).is_some());
            let (a, b) = (found(&db, &c, true), found(&db, &c, false));
            assert_eq!(a, b, "{text:?}");
            differ += usize::from(!a.is_empty() && a.len() < 1500);
        }
        assert_eq!(compiled, 400);
        assert!(
            differ > 100,
            "only {differ} criteria kept some games, not all"
        );
    }

    /// Games imported in several parts have the header records of the
    /// same games imported at once, block by block.
    #[test]
    fn blocks_continued_by_later_imports_are_those_of_one_import() {
        let t = TempDir::new("db-headers-blocks");
        let text = games(2 * BLOCK_GAMES as usize + 100);
        let cut: Vec<usize> = text.match_indices("[Event").map(|(i, _)| i).collect();
        let once = Database::open(&t.join("once.rdb")).unwrap();
        import(&once, &text);
        let parts = Database::open(&t.join("parts.rdb")).unwrap();
        let mut from = 0;
        let full = BLOCK_GAMES as usize;
        for k in [1, full - 24, full - 23, full, 2 * full, 2 * full + 1] {
            let to = cut.get(k).copied().unwrap_or(text.len());
            import(&parts, &text[from..to]);
            from = to;
        }
        import(&parts, &text[from..]);
        let blocks = |db: &Database| {
            let txn = db.store.begin_read().unwrap();
            let t = txn.open_table(HEADERS).unwrap();
            let mut all = Vec::new();
            for row in t.iter().unwrap() {
                let (k, v) = row.unwrap();
                all.push((k.value(), v.value().to_vec()));
            }
            all
        };
        let (a, b) = (blocks(&once), blocks(&parts));
        assert_eq!(a.len(), 3);
        assert_eq!(a[2].1.len(), 100 * HEADER_BYTES);
        assert!(a == b, "the blocks differ");
        let n = 2 * BLOCK_GAMES + 100;
        let full = BLOCK_GAMES;
        for id in [1, 2, full, full + 1, 2 * full, 2 * full + 1, n] {
            assert_eq!(once.header(id).unwrap(), parts.header(id).unwrap());
            assert!(once.header(id).unwrap().is_some());
        }
        assert_eq!(once.header(n + 1).unwrap(), None);
        assert_eq!(once.header(0).unwrap(), None);
    }

    /// A database made before its blocks' size was written down (blocks
    /// of [`FIRST_BLOCK_GAMES`]) is read, and imported into, in blocks of
    /// that size: every game's record is the one a database made now has.
    #[test]
    fn a_database_of_the_first_block_size_is_read_and_continued_in_it() {
        let t = TempDir::new("db-headers-first-blocks");
        let first = FIRST_BLOCK_GAMES as usize;
        let text = games(2 * first + 100);
        let cut: Vec<usize> = text.match_indices("[Event").map(|(i, _)| i).collect();
        let now = Database::open(&t.join("now.rdb")).unwrap();
        import(&now, &text);
        let path = t.join("first.rdb");
        drop(Database::open(&path).unwrap());
        {
            let store = redb::Database::create(&path).unwrap();
            let txn = store.begin_write().unwrap();
            {
                let mut meta = txn.open_table(crate::store::META).unwrap();
                assert!(meta.remove("header_block").unwrap().is_some());
            }
            txn.commit().unwrap();
        }
        let old = Database::open(&path).unwrap();
        import(&old, &text[..cut[first + 7]]);
        drop(old);
        let old = Database::open(&path).unwrap();
        import(&old, &text[cut[first + 7]..]);
        let txn = old.store.begin_read().unwrap();
        let sizes: Vec<usize> = txn
            .open_table(HEADERS)
            .unwrap()
            .iter()
            .unwrap()
            .map(|row| row.unwrap().1.value().len() / HEADER_BYTES)
            .collect();
        assert_eq!(sizes, [first, first, 100]);
        let n = 2 * FIRST_BLOCK_GAMES + 100;
        for id in 1..=n {
            assert_eq!(
                old.header(id).unwrap(),
                now.header(id).unwrap(),
                "game {id}"
            );
        }
        assert_eq!(old.header(n + 1).unwrap(), None);
        let c = CriteriaText {
            elo: Some("2500".into()),
            ..CriteriaText::default()
        }
        .criteria()
        .unwrap();
        let kept = found(&old, &c, true);
        assert!(
            !kept.is_empty() && kept.len() < n as usize,
            "{}",
            kept.len()
        );
        assert_eq!(kept, found(&now, &c, true));
    }

    /// A database of the layout before the header blocks (4: each
    /// game's header beside its moves) is refused by name, not read.
    #[test]
    fn a_database_of_the_old_layout_is_refused() {
        let t = TempDir::new("db-headers-old");
        let path = t.join("old.rdb");
        {
            let store = redb::Database::create(&path).unwrap();
            let txn = store.begin_write().unwrap();
            {
                let mut meta = txn.open_table(crate::store::META).unwrap();
                meta.insert("version", 4).unwrap();
                meta.insert("games", 1).unwrap();
                let mut games = txn.open_table(crate::store::GAMES).unwrap();
                games.insert(1, &[0u8; HEADER_BYTES + 2][..]).unwrap();
            }
            txn.commit().unwrap();
        }
        match Database::open(&path) {
            Err(e @ DbError::Version { found: 4, .. }) => {
                let message = e.to_string();
                assert!(message.contains("old.rdb"), "{message}");
                assert!(message.contains("layout 4"), "{message}");
            }
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("a database of layout 4 opened"),
        }
    }
}
