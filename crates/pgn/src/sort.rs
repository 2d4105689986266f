//! Ordering games by their tags: the library half of `rookery pgn sort`,
//! and the tag fields `pgn split --by` names its files after.
//!
//! A [`TagField`] is a tag, or the year or month of a date tag
//! (`Date:year`). A [`SortKey`] is a list of fields, each ascending or
//! descending (`Date,Round,WhiteElo:desc`); [`SortKey::encode`] turns a
//! game's tags into bytes whose plain byte order is the key's order, so that
//! games are sorted, spilled to disk and merged by comparing bytes only.
//! The order of one field's values ([`compare_values`]):
//!
//! - a date tag (`Date`, `EventDate`, `UTCDate`, any name ending in `Date`)
//!   whose value is a date ([`read_date`]: `2024.05.01`, `2024.05.??`,
//!   `2024`, `2024-05`) compares as a date, an unknown month or day before
//!   the known ones of its year or month; other values of it compare as text,
//!   after the dates;
//! - any other value compares as text with its numbers as numbers (`2.10`
//!   after `2.9`, `900` before `2500`), letters without regard to ASCII case;
//! - a missing tag, an empty value, `?` and `????.??.??` come after every
//!   known value, ascending or descending.
//!
//! Ties keep the input order: the sort is stable. [`Sorter`] sorts in
//! memory up to a cap and beyond it in sorted runs written to unnamed
//! temporary files, merged as they pile up and at the end (at most
//! [`MAX_FAN_IN`] at a time while they pile up).
//!
//! ```
//! use rookery_pgn::sort::{tags_of, SortKey, Sorter};
//! use rookery_pgn::Tags;
//!
//! let key: SortKey = "Date,Round".parse()?;
//! let games = [("2024.01.02", "2"), ("2024.01.02", "10"), ("2023.12.31", "3"), ("????.??.??", "1")];
//! let dir = std::env::temp_dir();
//! let mut sorter = Sorter::new(1 << 20, &dir);
//! for (i, (date, round)) in games.iter().enumerate() {
//!     let tags: Tags = [("Date", *date), ("Round", *round)].into_iter().collect();
//!     sorter.push(&key.encode(tags_of(&tags)), format!("game {i}").as_bytes(), None)?;
//! }
//! let mut order = Vec::new();
//! sorter.finish(&mut |text, _| {
//!     order.push(String::from_utf8_lossy(text).into_owned());
//!     Ok(())
//! })?;
//! assert_eq!(order, ["game 2", "game 0", "game 1", "game 3"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::game::Tags;
use crate::tags::PgnDate;
use crate::types::GameResult;

/// Tags whose names `--by` takes in any case, spelt as the PGN standard
/// and common practice spell them.
const KNOWN_TAGS: &[&str] = &[
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "ECO",
    "Opening",
    "Variation",
    "SubVariation",
    "WhiteElo",
    "BlackElo",
    "WhiteTitle",
    "BlackTitle",
    "WhiteTeam",
    "BlackTeam",
    "WhiteFideId",
    "BlackFideId",
    "EventDate",
    "EventType",
    "EventRounds",
    "EventCountry",
    "Board",
    "UTCDate",
    "UTCTime",
    "Time",
    "TimeControl",
    "Termination",
    "Annotator",
    "PlyCount",
    "Mode",
    "Variant",
    "SetUp",
    "FEN",
];

/// A field that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseFieldError {
    /// No tag name.
    #[error("empty field: expected a tag name such as Date, Event or WhiteElo")]
    Empty,
    /// A tag name with characters a tag name cannot have.
    #[error("bad tag name {0:?}: letters, digits and _ only")]
    BadName(String),
    /// An unknown `:` suffix.
    #[error("bad field {field:?}: after ':' expected {expected}")]
    BadSuffix {
        /// The field as given.
        field: String,
        /// What may follow the `:`.
        expected: &'static str,
    },
}

/// What part of a tag's value a field takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DatePart {
    /// The whole value.
    Whole,
    /// The year of a date (`2024`).
    Year,
    /// The year and month of a date (`2024-05`).
    Month,
}

/// A tag, or the year or month of a date tag: `Event`, `Date:year`,
/// `Date:month`. Tag names are case-sensitive, as in PGN, except that the
/// common tags are recognised in any case (`eco` is `ECO`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TagField {
    /// The tag's name.
    pub name: String,
    /// The part of its value taken.
    pub part: DatePart,
}

/// Whether `name` is a tag whose values are dates.
fn is_date_tag(name: &str) -> bool {
    name.ends_with("Date")
}

/// Whether a value says nothing: empty, `?`, or all `?` and `.`.
fn is_unknown(value: &str) -> bool {
    value.is_empty() || value.bytes().all(|b| b == b'?' || b == b'.')
}

impl TagField {
    /// The value this field takes from `tags`: `None` when the tag is
    /// missing or says nothing (`?`, `????.??.??`, empty), or when its
    /// year (or month) is wanted and unknown. A month of a year whose month
    /// is unknown is `2024-unknown`.
    /// `tag` gives a tag's value by name: [`tags_of`] a game's [`Tags`], or
    /// [`crate::copy::tag_value`] (which reads Latin-1 values right).
    pub fn value<'g>(&self, tag: impl Fn(&str) -> Option<Cow<'g, str>>) -> Option<String> {
        let v = tag(&self.name)?;
        let v = v.trim();
        if is_unknown(v) {
            return None;
        }
        match self.part {
            DatePart::Whole => Some(v.to_owned()),
            DatePart::Year | DatePart::Month => {
                let date = read_date(v)?;
                let year = date.year?;
                Some(match (self.part, date.month) {
                    (DatePart::Year, _) => format!("{year:04}"),
                    (_, Some(m)) => format!("{year:04}-{m:02}"),
                    (_, None) => format!("{year:04}-unknown"),
                })
            }
        }
    }
}

impl FromStr for TagField {
    type Err = ParseFieldError;
    fn from_str(s: &str) -> Result<TagField, ParseFieldError> {
        let (name, part) = match s.split_once(':') {
            None => (s, DatePart::Whole),
            Some((name, "year")) => (name, DatePart::Year),
            Some((name, "month")) => (name, DatePart::Month),
            Some(_) => {
                return Err(ParseFieldError::BadSuffix {
                    field: s.to_owned(),
                    expected: "year or month",
                })
            }
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(ParseFieldError::Empty);
        }
        if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(ParseFieldError::BadName(name.to_owned()));
        }
        let name = KNOWN_TAGS
            .iter()
            .find(|k| k.eq_ignore_ascii_case(name))
            .map_or_else(|| name.to_owned(), |k| (*k).to_owned());
        Ok(TagField { name, part })
    }
}

impl fmt::Display for TagField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        match self.part {
            DatePart::Whole => Ok(()),
            DatePart::Year => f.write_str(":year"),
            DatePart::Month => f.write_str(":month"),
        }
    }
}

/// One field of a [`SortKey`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortField {
    /// The field.
    pub field: TagField,
    /// Largest first (a missing value still comes last).
    pub descending: bool,
}

/// The fields games are sorted by, most significant first: `Date,Round`,
/// `WhiteElo:desc`, `Date:year,Event`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortKey {
    /// The fields.
    pub fields: Vec<SortField>,
}

impl FromStr for SortKey {
    type Err = ParseFieldError;
    fn from_str(s: &str) -> Result<SortKey, ParseFieldError> {
        let mut fields = Vec::new();
        for f in s.split(',') {
            let f = f.trim();
            let (f, descending) = match f.strip_suffix(":desc") {
                Some(f) => (f, true),
                None => (f.strip_suffix(":asc").unwrap_or(f), false),
            };
            let field = f.parse().map_err(|e| match e {
                ParseFieldError::BadSuffix { field, .. } => ParseFieldError::BadSuffix {
                    field,
                    expected: "year, month, asc or desc",
                },
                e => e,
            })?;
            fields.push(SortField { field, descending });
        }
        Ok(SortKey { fields })
    }
}

/// Marks a field whose value is missing (after every known value).
const MISSING: u8 = 0xf0;
/// Marks a field whose value is a date.
const DATE: u8 = 0x10;
/// Marks a field whose value is text.
const TEXT: u8 = 0x20;
/// In text: a run of digits follows (its length, then the digits).
const DIGITS: u8 = 0x01;
/// In text: a run of other characters follows, ended by [`END`].
const CHARS: u8 = 0x02;
/// Ends a run of characters, and a text value.
const END: u8 = 0x00;

/// Reads a date loosely, as collections write them: `YYYY`, `YYYY.MM` or
/// `YYYY.MM.DD`, with `.`, `-` or `/` between the parts and `?`s for an
/// unknown part (the strict PGN form is [`PgnDate`]'s). `None`: not a date.
pub fn read_date(v: &str) -> Option<PgnDate> {
    let mut parts = v.trim().split(['.', '-', '/']);
    let part = |p: Option<&str>, len: std::ops::RangeInclusive<usize>, max: u16| match p {
        None => Some(None),
        Some(p) if !len.contains(&p.len()) => None,
        Some(p) if p.bytes().all(|b| b == b'?') => Some(None),
        Some(p) if p.bytes().all(|b| b.is_ascii_digit()) => match p.parse::<u16>() {
            Ok(n) if (1..=max).contains(&n) => Some(Some(n)),
            _ => None,
        },
        Some(_) => None,
    };
    let year = part(parts.next(), 4..=4, 9999)?;
    let month = part(parts.next(), 1..=2, 12)?;
    let day = part(parts.next(), 1..=2, 31)?;
    if parts.next().is_some() || (month.is_none() && day.is_some()) {
        return None;
    }
    Some(PgnDate {
        year,
        month: month.map(|m| m as u8),
        day: day.map(|d| d as u8),
    })
}

/// Appends the order-preserving bytes of `value` (a value of tag `name`,
/// or of a date part) to `out`, ascending.
fn encode_value(date_tag: bool, value: Option<&str>, out: &mut Vec<u8>) {
    let Some(v) = value.map(str::trim).filter(|v| !is_unknown(v)) else {
        out.push(MISSING);
        return;
    };
    if date_tag {
        match read_date(v) {
            Some(PgnDate {
                year: Some(y),
                month,
                day,
            }) => {
                out.push(DATE);
                out.extend_from_slice(&y.to_be_bytes());
                out.push(month.unwrap_or(0));
                out.push(day.unwrap_or(0));
                return;
            }
            Some(_) => {
                // A date whose year is unknown says nothing.
                out.push(MISSING);
                return;
            }
            None => {}
        }
    }
    out.push(TEXT);
    let b = v.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let run = b[i..]
            .iter()
            .position(|c| c.is_ascii_digit() != b[i].is_ascii_digit())
            .map_or(b.len(), |n| i + n);
        if b[i].is_ascii_digit() {
            let digits = &b[i..run];
            let zeros = digits.iter().take_while(|&&c| c == b'0').count();
            let digits = &digits[zeros..];
            out.push(DIGITS);
            // A run longer than 4 G digits cannot be in memory.
            let len = u32::try_from(digits.len()).unwrap_or(u32::MAX);
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(digits);
        } else {
            out.push(CHARS);
            for &c in &b[i..run] {
                match c.to_ascii_lowercase() {
                    c @ (0 | 1) => out.extend_from_slice(&[1, c + 1]),
                    c => out.push(c),
                }
            }
            out.push(END);
        }
        i = run;
    }
    out.push(END);
}

/// A game's tag values by name, for [`SortKey::encode`] and
/// [`TagField::value`].
pub fn tags_of<'t>(tags: &'t Tags) -> impl Fn(&str) -> Option<Cow<'t, str>> + 't {
    move |name| tags.get(name).map(Cow::Borrowed)
}

/// How two values of tag `name` compare under the module's rules (`None`:
/// the tag is missing), ascending. The order [`SortKey::encode`] gives, for
/// a filter's comparisons to agree with a sort.
pub fn compare_values(name: &str, a: Option<&str>, b: Option<&str>) -> Ordering {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    encode_value(is_date_tag(name), a, &mut x);
    encode_value(is_date_tag(name), b, &mut y);
    x.cmp(&y)
}

impl SortKey {
    /// The bytes whose order is the order of games under this key (ties:
    /// equal bytes); `tag` gives a game's tag values by name (see
    /// [`TagField::value`]).
    pub fn encode<'g>(&self, tag: impl Fn(&str) -> Option<Cow<'g, str>>) -> Vec<u8> {
        let mut out = Vec::new();
        for f in &self.fields {
            let start = out.len();
            match f.field.part {
                DatePart::Whole => encode_value(
                    is_date_tag(&f.field.name),
                    tag(&f.field.name).as_deref(),
                    &mut out,
                ),
                // "2024" and "2024-05" compare as text, numbers as numbers.
                _ => encode_value(false, f.field.value(&tag).as_deref(), &mut out),
            }
            if f.descending && out[start] != MISSING {
                for b in &mut out[start..] {
                    *b = !*b;
                }
            }
        }
        out
    }
}

/// Most runs merged at once: once this many runs of one level are on disk,
/// they are merged into one of the next level (so that the files open at
/// once stay few, however many runs a small memory makes).
pub const MAX_FAN_IN: usize = 64;

/// Smallest and largest read buffer of one run while merging.
const RUN_BUFFER: (usize, usize) = (1 << 12, 1 << 20);

/// Bytes a game held in memory costs beside its key and text (its entry).
const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// Why sorting failed.
#[derive(Debug, thiserror::Error)]
pub enum SortError {
    /// A temporary file could not be made, written or read.
    #[error("a temporary file in {}: {source}", dir.display())]
    Temp {
        /// The directory it is in.
        dir: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// The output failed.
    #[error(transparent)]
    Output(io::Error),
}

/// A game held in memory: where its key and text are in the arenas.
#[derive(Copy, Clone, Debug)]
struct Entry {
    key: (usize, usize),
    text: (usize, usize),
    open: u8,
}

/// The byte a game's open result is stored as: 0 for a closed game.
fn open_byte(open: Option<GameResult>) -> u8 {
    match open {
        None => 0,
        Some(GameResult::WhiteWins) => 1,
        Some(GameResult::BlackWins) => 2,
        Some(GameResult::Draw) => 3,
        Some(GameResult::Unknown) => 4,
    }
}

fn open_result(b: u8) -> Option<GameResult> {
    match b {
        1 => Some(GameResult::WhiteWins),
        2 => Some(GameResult::BlackWins),
        3 => Some(GameResult::Draw),
        4 => Some(GameResult::Unknown),
        _ => None,
    }
}

/// A sorted run on disk: an unnamed file (gone with the process, however
/// it ends) and its level (how many merges made it).
#[derive(Debug)]
struct Run {
    file: File,
    level: usize,
}

/// Sorts games by key, stably: in memory up to about `memory` bytes (keys,
/// texts and a few bytes a game), and beyond in sorted runs written to
/// unnamed temporary files in a directory it is given, merged as they pile
/// up and at the end by [`Sorter::finish`]. Nothing it writes outlives it,
/// not even when the process is killed.
#[derive(Debug)]
pub struct Sorter {
    memory: usize,
    dir: PathBuf,
    keys: Vec<u8>,
    texts: Vec<u8>,
    entries: Vec<Entry>,
    /// Runs written, in input order (their levels never rise along it).
    runs: Vec<Run>,
    summary: SortSummary,
}

/// What [`Sorter::finish`] did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SortSummary {
    /// Games written.
    pub games: u64,
    /// Sorted runs written to disk from memory (0: sorted in memory).
    pub runs: usize,
    /// Merges of runs on disk into a longer run (the last merge, into the
    /// output, not counted).
    pub merges: usize,
}

impl Sorter {
    /// A sorter that keeps about `memory` bytes of games in memory and
    /// writes runs into unnamed files in `temp_dir`.
    pub fn new(memory: usize, temp_dir: &Path) -> Sorter {
        Sorter {
            memory,
            dir: temp_dir.to_path_buf(),
            keys: Vec::new(),
            texts: Vec::new(),
            entries: Vec::new(),
            runs: Vec::new(),
            summary: SortSummary::default(),
        }
    }

    /// Bytes held in memory.
    fn used(&self) -> usize {
        self.keys.len() + self.texts.len() + self.entries.len() * ENTRY_BYTES
    }

    /// An error with a temporary file.
    fn temp(&self, source: io::Error) -> SortError {
        SortError::Temp {
            dir: self.dir.clone(),
            source,
        }
    }

    /// Adds a game: its key ([`SortKey::encode`]), its text and its open
    /// result (see [`crate::collection::Kept::open_result`]). Writes a
    /// sorted run first if the game would pass the memory cap.
    ///
    /// # Errors
    /// [`SortError::Temp`] if a run cannot be written.
    pub fn push(
        &mut self,
        key: &[u8],
        text: &[u8],
        open: Option<GameResult>,
    ) -> Result<(), SortError> {
        let cost = key.len() + text.len() + ENTRY_BYTES;
        if !self.entries.is_empty() && self.used() + cost > self.memory {
            self.spill()?;
        }
        let k = self.keys.len();
        grow(&mut self.keys, key.len(), self.memory);
        self.keys.extend_from_slice(key);
        let t = self.texts.len();
        grow(&mut self.texts, text.len(), self.memory);
        self.texts.extend_from_slice(text);
        self.entries.push(Entry {
            key: (k, key.len()),
            text: (t, text.len()),
            open: open_byte(open),
        });
        Ok(())
    }

    /// Sorts the games in memory (stably).
    fn sort_entries(&mut self) {
        let keys = &self.keys;
        let key = |e: &Entry| &keys[e.key.0..e.key.0 + e.key.1];
        self.entries.sort_by(|a, b| key(a).cmp(key(b)));
    }

    /// The read buffer of one run while merging `n`.
    fn buffer(&self, n: usize) -> usize {
        (self.memory / (n + 1)).clamp(RUN_BUFFER.0, RUN_BUFFER.1)
    }

    /// Writes the games in memory as a sorted run, then merges the last
    /// runs while [`MAX_FAN_IN`] of them share a level.
    fn spill(&mut self) -> Result<(), SortError> {
        self.sort_entries();
        let file = tempfile::tempfile_in(&self.dir).map_err(|e| self.temp(e))?;
        let mut w = BufWriter::with_capacity(1 << 16, file);
        for e in &self.entries {
            let key = &self.keys[e.key.0..e.key.0 + e.key.1];
            let text = &self.texts[e.text.0..e.text.0 + e.text.1];
            write_record(&mut w, key, text, e.open).map_err(|e| self.temp(e))?;
        }
        let file = w.into_inner().map_err(|e| self.temp(e.into_error()))?;
        self.runs.push(Run { file, level: 0 });
        self.summary.runs += 1;
        self.keys.clear();
        self.texts.clear();
        self.entries.clear();
        while self.runs.len() >= MAX_FAN_IN {
            let tail = &self.runs[self.runs.len() - MAX_FAN_IN..];
            let level = tail[0].level;
            if tail.iter().any(|r| r.level != level) {
                break;
            }
            let group = self.runs.split_off(self.runs.len() - MAX_FAN_IN);
            let file = tempfile::tempfile_in(&self.dir).map_err(|e| self.temp(e))?;
            let mut w = BufWriter::with_capacity(1 << 16, file);
            let buffer = self.buffer(MAX_FAN_IN);
            merge(group, buffer, &mut |key, text, open| {
                write_record(&mut w, key, text, open).map_err(MergeError::Out)
            })
            .map_err(|e| e.into_sort_error(|e| self.temp(e), |e| self.temp(e)))?;
            let file = w.into_inner().map_err(|e| self.temp(e.into_error()))?;
            self.runs.push(Run {
                file,
                level: level + 1,
            });
            self.summary.merges += 1;
        }
        Ok(())
    }

    /// Hands every game to `out` in order: its text and open result.
    ///
    /// # Errors
    /// [`SortError::Temp`] if a run cannot be written or read back,
    /// [`SortError::Output`] with `out`'s first error.
    pub fn finish(mut self, out: &mut SortedSink<'_>) -> Result<SortSummary, SortError> {
        if self.runs.is_empty() {
            self.sort_entries();
            for e in &self.entries {
                let text = &self.texts[e.text.0..e.text.0 + e.text.1];
                out(text, open_result(e.open)).map_err(SortError::Output)?;
            }
            self.summary.games = self.entries.len() as u64;
            return Ok(self.summary);
        }
        if !self.entries.is_empty() {
            self.spill()?;
        }
        let runs = std::mem::take(&mut self.runs);
        let buffer = self.buffer(runs.len());
        let mut games = 0;
        merge(runs, buffer, &mut |_, text, open| {
            games += 1;
            out(text, open_result(open)).map_err(MergeError::Out)
        })
        .map_err(|e| e.into_sort_error(|e| self.temp(e), SortError::Output))?;
        self.summary.games = games;
        Ok(self.summary)
    }
}

/// Makes room in `v` for `extra` more bytes, doubling its capacity as a
/// `Vec` does but never past `limit` (unless one push needs more): the
/// memory cap holds for what is allocated, not only for what is used.
fn grow(v: &mut Vec<u8>, extra: usize, limit: usize) {
    let need = v.len() + extra;
    if need > v.capacity() {
        let want = (v.capacity() * 2).min(limit).max(need);
        v.reserve_exact(want - v.len());
    }
}

/// Writes one game of a run: key length, text length, open byte, key, text.
fn write_record(w: &mut impl Write, key: &[u8], text: &[u8], open: u8) -> io::Result<()> {
    w.write_all(&(key.len() as u64).to_le_bytes())?;
    w.write_all(&(text.len() as u64).to_le_bytes())?;
    w.write_all(&[open])?;
    w.write_all(key)?;
    w.write_all(text)
}

/// A run being merged: its reader and its next game.
struct RunReader {
    input: BufReader<File>,
    key: Vec<u8>,
    text: Vec<u8>,
    open: u8,
}

impl RunReader {
    /// Reads the next game; `false` at the end of the run.
    fn advance(&mut self) -> io::Result<bool> {
        let mut head = [0u8; 17];
        match self.input.read_exact(&mut head[..1]) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(e),
        }
        self.input.read_exact(&mut head[1..])?;
        let len = |b: &[u8]| {
            let mut n = [0u8; 8];
            n.copy_from_slice(b);
            usize::try_from(u64::from_le_bytes(n)).map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidData, "a run's record is too long")
            })
        };
        let (k, t) = (len(&head[..8])?, len(&head[8..16])?);
        self.open = head[16];
        self.key.resize(k, 0);
        self.input.read_exact(&mut self.key)?;
        self.text.resize(t, 0);
        self.input.read_exact(&mut self.text)?;
        Ok(true)
    }
}

/// Where [`Sorter::finish`] hands the games in order: a game's text and its
/// open result (see [`crate::collection::Kept::open_result`]).
pub type SortedSink<'a> = dyn FnMut(&[u8], Option<GameResult>) -> io::Result<()> + 'a;

/// Where [`merge`] hands each record: its key, text and open byte.
type MergeSink<'a> = dyn FnMut(&[u8], &[u8], u8) -> Result<(), MergeError> + 'a;

/// A failure while merging: reading a run, or the output.
enum MergeError {
    Run(io::Error),
    Out(io::Error),
}

impl MergeError {
    fn into_sort_error(
        self,
        run: impl FnOnce(io::Error) -> SortError,
        out: impl FnOnce(io::Error) -> SortError,
    ) -> SortError {
        match self {
            MergeError::Run(e) => run(e),
            MergeError::Out(e) => out(e),
        }
    }
}

/// The heap's entry: a run's next key and the run's place (earlier runs
/// first among equal keys: the merge is stable). Ordered smallest first.
#[derive(PartialEq, Eq)]
struct Head {
    key: Vec<u8>,
    run: usize,
}

impl Ord for Head {
    fn cmp(&self, o: &Head) -> Ordering {
        o.key.cmp(&self.key).then(o.run.cmp(&self.run))
    }
}

impl PartialOrd for Head {
    fn partial_cmp(&self, o: &Head) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Merges sorted `runs` (in input order) into `out`, stably; each is read
/// from its start through a buffer of `buffer` bytes.
fn merge(runs: Vec<Run>, buffer: usize, out: &mut MergeSink<'_>) -> Result<(), MergeError> {
    let mut readers = Vec::with_capacity(runs.len());
    let mut heap = BinaryHeap::with_capacity(runs.len());
    for (i, mut run) in runs.into_iter().enumerate() {
        run.file.seek(SeekFrom::Start(0)).map_err(MergeError::Run)?;
        let mut r = RunReader {
            input: BufReader::with_capacity(buffer, run.file),
            key: Vec::new(),
            text: Vec::new(),
            open: 0,
        };
        if r.advance().map_err(MergeError::Run)? {
            heap.push(Head {
                key: std::mem::take(&mut r.key),
                run: i,
            });
        }
        readers.push(r);
    }
    while let Some(Head { key, run }) = heap.pop() {
        let r = &mut readers[run];
        out(&key, &r.text, r.open)?;
        r.key = key;
        if r.advance().map_err(MergeError::Run)? {
            heap.push(Head {
                key: std::mem::take(&mut r.key),
                run,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tags(pairs: &[(&str, &str)]) -> Tags {
        pairs.iter().copied().collect()
    }

    /// The plain comparison the encoding must agree with: numbers as
    /// numbers, text by lower-cased bytes, digits before other characters.
    fn natural(a: &str, b: &str) -> Ordering {
        fn runs(s: &str) -> Vec<(bool, Vec<u8>)> {
            let mut v: Vec<(bool, Vec<u8>)> = Vec::new();
            for c in s.bytes() {
                let d = c.is_ascii_digit();
                match v.last_mut() {
                    Some((ld, run)) if *ld == d => run.push(c),
                    _ => v.push((d, vec![c])),
                }
            }
            v
        }
        let (x, y) = (runs(a.trim()), runs(b.trim()));
        for (p, q) in x.iter().zip(&y) {
            let o = match (p.0, q.0) {
                (true, true) => {
                    let strip = |r: &[u8]| r.iter().skip_while(|&&c| c == b'0').count();
                    let (np, nq) = (strip(&p.1), strip(&q.1));
                    np.cmp(&nq)
                        .then(p.1[p.1.len() - np..].cmp(&q.1[q.1.len() - nq..]))
                }
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                (false, false) => p.1.to_ascii_lowercase().cmp(&q.1.to_ascii_lowercase()),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        x.len().cmp(&y.len())
    }

    proptest! {
        #[test]
        fn text_keys_order_as_the_plain_comparison(
            a in "[0-9a-cA-C. \\x00\\x01?-]{0,8}",
            b in "[0-9a-cA-C. \\x00\\x01?-]{0,8}",
        ) {
            prop_assume!(!is_unknown(a.trim()) && !is_unknown(b.trim()));
            prop_assert_eq!(compare_values("Round", Some(&a), Some(&b)), natural(&a, &b));
        }
    }

    #[test]
    fn values_order_as_numbers_dates_and_text() {
        let c = |n, a, b| compare_values(n, Some(a), Some(b));
        assert_eq!(c("WhiteElo", "900", "2500"), Ordering::Less);
        assert_eq!(c("Round", "2.10", "2.9"), Ordering::Greater);
        assert_eq!(c("Round", "10", "9"), Ordering::Greater);
        assert_eq!(c("White", "carlsen", "Caruana"), Ordering::Less);
        assert_eq!(c("Date", "2023.??.??", "2023.01.01"), Ordering::Less);
        assert_eq!(c("Date", "2023.12.31", "2024.01.01"), Ordering::Less);
        // Missing, "?" and unknown dates after everything.
        assert_eq!(
            compare_values("Date", None, Some("1000.01.01")),
            Ordering::Greater
        );
        assert_eq!(c("Date", "????.??.??", "2024.01.01"), Ordering::Greater);
        assert_eq!(c("Round", "?", "999"), Ordering::Greater);
        assert_eq!(c("Round", "-", "999"), Ordering::Greater);
        assert_eq!(compare_values("Round", Some("-"), None), Ordering::Less);
        // Loose dates: a year alone, other separators; not dates after dates.
        assert_eq!(c("Date", "1959", "1959.01.01"), Ordering::Less);
        assert_eq!(c("Date", "1959-02", "1959.01.31"), Ordering::Greater);
        assert_eq!(c("Date", "1959.13.01", "2020.01.01"), Ordering::Greater);
        assert_eq!(
            compare_values("Date", Some("????.05.01"), None),
            Ordering::Equal
        );
    }

    #[test]
    fn descending_fields_reverse_known_values_and_keep_missing_last() {
        let key: SortKey = "WhiteElo:desc,Round".parse().unwrap();
        let k = |elo: Option<&str>, round: &str| {
            let mut t = vec![("Round", round)];
            if let Some(e) = elo {
                t.push(("WhiteElo", e));
            }
            key.encode(tags_of(&tags(&t)))
        };
        let mut games = [
            k(Some("2500"), "2"),
            k(None, "1"),
            k(Some("900"), "1"),
            k(Some("2500"), "1"),
            k(Some("10000"), "5"),
        ];
        let expected = [
            games[4].clone(),
            games[3].clone(),
            games[0].clone(),
            games[2].clone(),
            games[1].clone(),
        ];
        games.sort();
        assert_eq!(games, expected);
    }

    #[test]
    fn fields_parse() {
        let f: TagField = "date:year".parse().unwrap();
        assert_eq!((f.name.as_str(), f.part), ("Date", DatePart::Year));
        let f: TagField = "MyTag".parse().unwrap();
        assert_eq!(f.name, "MyTag");
        assert!("Date:week".parse::<TagField>().is_err());
        assert!("../x".parse::<TagField>().is_err());
        assert!("".parse::<SortKey>().is_err());
        let k: SortKey = "Date, round:desc".parse().unwrap();
        assert_eq!(k.fields[1].field.name, "Round");
        assert!(k.fields[1].descending);
        let t = tags(&[("Date", "2024.05.??")]);
        let v = |s: &str| s.parse::<TagField>().unwrap().value(tags_of(&t));
        assert_eq!(v("Date:year").as_deref(), Some("2024"));
        assert_eq!(v("Date:month").as_deref(), Some("2024-05"));
        assert_eq!(v("Event"), None);
        let t = tags(&[("Date", "1959")]);
        assert_eq!(
            "Date:year"
                .parse::<TagField>()
                .unwrap()
                .value(tags_of(&t))
                .as_deref(),
            Some("1959")
        );
    }

    /// Sorting with a tiny memory cap (runs on disk, merged in rounds)
    /// gives what sorting in memory gives.
    #[test]
    fn runs_on_disk_merge_to_the_sort_in_memory() {
        let dir = std::env::temp_dir();
        let key: SortKey = "Round".parse().unwrap();
        let games: Vec<(Vec<u8>, String)> = (0..300)
            .map(|i| {
                let t = tags(&[("Round", &format!("{}", (i * 7919) % 37))]);
                (
                    key.encode(tags_of(&t)),
                    format!("game {i} {}", "x".repeat(i % 13)),
                )
            })
            .collect();
        let sorted = |memory: usize| {
            let mut s = Sorter::new(memory, &dir);
            for (k, t) in &games {
                s.push(
                    k,
                    t.as_bytes(),
                    (t.len() % 2 == 0).then_some(GameResult::Draw),
                )
                .unwrap();
            }
            let mut out = Vec::new();
            let summary = s
                .finish(&mut |t, o| {
                    out.push((String::from_utf8_lossy(t).into_owned(), o));
                    Ok(())
                })
                .unwrap();
            (out, summary)
        };
        let (in_memory, s) = sorted(1 << 30);
        assert_eq!(s.runs, 0);
        let mut expected: Vec<_> = games.iter().collect();
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        let expected: Vec<_> = expected.iter().map(|g| g.1.clone()).collect();
        assert_eq!(
            in_memory.iter().map(|g| g.0.clone()).collect::<Vec<_>>(),
            expected
        );
        let (on_disk, s) = sorted(1);
        assert_eq!(s.runs, 300);
        assert_eq!(s.merges, 4);
        assert_eq!(on_disk, in_memory);
    }
}
