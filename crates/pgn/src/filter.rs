//! Which games to keep: the criteria of `rookery pgn filter`.
//!
//! A [`Criteria`] holds tests on the tags ([`TagTest`]: `WhiteElo>=2500`,
//! `Event~olympiad`; numbers compare as numbers, dates as dates, `~` is a
//! case-insensitive regular expression), on the players, ratings, date, ECO
//! code, length, result and termination, and on the moves: positions reached
//! (by Zobrist key, so transpositions count), material signatures reached,
//! an opening prefix (in order, or in any order with
//! [`Opening::transpose`]), mate, stalemate, the fifty-move rule, threefold
//! repetition, variations. A game is kept when it passes every test given
//! (each `--tag` on its own; of repeated players, results, terminations,
//! positions and material signatures, one is enough); [`Criteria::invert`]
//! keeps the others. A game that cannot be read is neither: it is
//! [`Verdict::Bad`].
//!
//! The positions of a game are those of its mainline, the starting position
//! included (variations are played and checked, never searched). A test on
//! a tag the game lacks fails, whatever its operator.
//!
//! ```
//! use rookery_pgn::filter::{Criteria, Verdict};
//! use rookery_pgn::Games;
//!
//! let mut c = Criteria::default();
//! c.tags.push("WhiteElo>=2500".parse()?);
//! c.tags.push("Event~OLYMPIAD".parse()?);
//! c.positions.push("rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2".parse()?);
//! let pgn = "[Event \"Chess Olympiad\"]\n[WhiteElo \"2610\"]\n\n1. Nf3 c5 2. e4 *\n\n\
//!            [Event \"Olympiad\"]\n[WhiteElo \"2390\"]\n\n1. e4 c5 2. Nf3 *\n";
//! let verdicts: Vec<Verdict> = Games::new(pgn.as_bytes())
//!     .with_detail(c.detail())
//!     .map(|g| c.judge(&g.unwrap(), &[]))
//!     .collect();
//! // The first reaches the Sicilian by transposition; the second is rated too low.
//! assert_eq!(verdicts, [Verdict::Keep, Verdict::Drop]);
//! # Ok::<(), rookery_pgn::filter::FilterError>(())
//! ```

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use regex::{Regex, RegexBuilder};
use rookery_core::{Color, Mode, Move, Position, Role, Setup};

use crate::copy::tag_value;
use crate::ending::Ending;
use crate::game::{Detail, Game, Games, ReadGame, TagGate, Tags};
use crate::tags::{Eco, PgnDate, Termination};
use crate::types::GameResult;

/// A criterion that cannot be used, naming what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum FilterError {
    /// A tag test that is not `NAME OP VALUE`.
    #[error("bad tag test {text:?}: {reason}")]
    TagTest {
        /// The test as given.
        text: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A regular expression that does not compile.
    #[error("bad regular expression in {text:?}: {source}")]
    Regex {
        /// The test as given.
        text: String,
        /// Why it does not compile.
        source: regex::Error,
    },
    /// A range that is not `MIN..MAX` of the right kind.
    #[error("bad range {text:?}: expected {expected}")]
    Range {
        /// The range as given.
        text: String,
        /// What each bound must be.
        expected: &'static str,
    },
    /// A FEN that is not a legal position.
    #[error("bad position {fen:?}: {reason}")]
    Fen {
        /// The FEN as given.
        fen: String,
        /// What is wrong.
        reason: String,
    },
    /// A material signature that is not one.
    #[error("bad material signature {text:?}: {reason}")]
    Material {
        /// The signature as given.
        text: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// Opening moves that cannot be played from the starting position.
    #[error("bad opening moves {text:?}: {reason}")]
    Moves {
        /// The moves as given.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// A result that is not one of PGN's four.
    #[error("bad result {0:?}: expected 1-0, 0-1, 1/2-1/2 or *")]
    Result(String),
}

/// How a tag test compares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `=` (or `==`).
    Eq,
    /// `!=` (or `<>`).
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `~` (or `=~`): the value matches a regular expression, ignoring case.
    Matches,
    /// `!~`: the value does not match the regular expression.
    NotMatches,
}

impl Op {
    /// The operators in the order they are looked for (longest first).
    const SPELLINGS: [(&'static str, Op); 11] = [
        ("!=", Op::Ne),
        ("<>", Op::Ne),
        ("!~", Op::NotMatches),
        ("=~", Op::Matches),
        ("==", Op::Eq),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("=", Op::Eq),
        ("<", Op::Lt),
        (">", Op::Gt),
        ("~", Op::Matches),
    ];

    /// Whether an ordering of the value against the wanted one passes.
    fn accepts(self, o: Ordering) -> bool {
        match self {
            Op::Eq => o == Ordering::Equal,
            Op::Ne => o != Ordering::Equal,
            Op::Lt => o == Ordering::Less,
            Op::Le => o != Ordering::Greater,
            Op::Gt => o == Ordering::Greater,
            Op::Ge => o != Ordering::Less,
            Op::Matches | Op::NotMatches => false,
        }
    }
}

/// A date, or a stretch of days where parts are unknown: `2020` is the
/// whole year, `2020.05` (or `2020.05.??`) the month. Days are numbered
/// `yyyymmdd` (every month has 31: only the order matters).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DateSpan {
    /// The first day.
    pub first: u32,
    /// The last day.
    pub last: u32,
}

impl DateSpan {
    /// The days a PGN date may be; `None` if its year is unknown.
    pub fn of(d: PgnDate) -> Option<DateSpan> {
        let y = u32::from(d.year?) * 10_000;
        Some(match (d.month, d.day) {
            (Some(m), Some(day)) => {
                let at = y + u32::from(m) * 100 + u32::from(day);
                DateSpan {
                    first: at,
                    last: at,
                }
            }
            (Some(m), None) => DateSpan {
                first: y + u32::from(m) * 100 + 1,
                last: y + u32::from(m) * 100 + 31,
            },
            _ => DateSpan {
                first: y + 101,
                last: y + 1231,
            },
        })
    }

    /// How many of the date's parts are known: 1 the year, 2 the month
    /// too, 3 the day.
    fn parts(self) -> u32 {
        if self.first == self.last {
            3
        } else if self.first / 100 == self.last / 100 {
            2
        } else {
            1
        }
    }

    /// The date's first `parts` parts as one number (`yyyy`, `yyyymm`,
    /// `yyyymmdd`).
    fn truncated(self, parts: u32) -> u32 {
        self.first / 100u32.pow(3 - parts)
    }

    /// Whether `self` passes `op` against `want`, compared on the parts
    /// both know, as pgn-extract compares dates: `1990.??.??` is equal to
    /// `1990.06.15` (the same year), so it passes `>=` and `<=`, not `>`
    /// or `<`; `1990.06.20` against `1990.06` compares the months.
    fn passes(self, op: Op, want: DateSpan) -> bool {
        let parts = self.parts().min(want.parts());
        op.accepts(self.truncated(parts).cmp(&want.truncated(parts)))
    }
}

impl FromStr for DateSpan {
    type Err = ();

    /// `YYYY`, `YYYY.MM` or `YYYY.MM.DD` (`.` or `-` between the parts;
    /// `??` for an unknown part, as in a Date tag).
    fn from_str(s: &str) -> Result<DateSpan, ()> {
        let s = s.trim();
        // A Date tag's whole `YYYY.MM.DD` (most dates a search reads):
        // as it is, without cutting and joining its parts.
        if s.len() == 10 && s.as_bytes()[4] == b'.' && s.as_bytes()[7] == b'.' {
            let date: PgnDate = s.parse().map_err(|_| ())?;
            return DateSpan::of(date).ok_or(());
        }
        let parts: Vec<&str> = s.split(['.', '-']).collect();
        let mut full = ["????", "??", "??"];
        if parts.is_empty() || parts.len() > 3 {
            return Err(());
        }
        full[..parts.len()].copy_from_slice(&parts);
        let date: PgnDate = full.join(".").parse().map_err(|_| ())?;
        DateSpan::of(date).ok_or(())
    }
}

/// What a tag test compares the value with, as the wanted value reads.
#[derive(Clone, Debug)]
enum Want {
    /// A number (`2500`, `-1.5`): the tag's value must be one.
    Number(f64),
    /// A date, for a tag whose name ends in `Date`.
    Date(DateSpan),
    /// Text, compared byte by byte.
    Text(String),
    /// A regular expression (for `~` and `!~`).
    Pattern(Regex),
}

/// The number a tag's value starts with, as pgn-extract reads one (its
/// `sscanf("%u")`): `2690:2222` (a consultation game's two ratings) reads
/// as 2690, `300+2` as 300; a value that does not start with one has none.
fn leading_number(s: &str) -> Option<f64> {
    let t = s.trim_start();
    let sign = usize::from(t.starts_with(['+', '-']));
    let mut end = sign;
    let mut point = false;
    for (i, b) in t.bytes().enumerate().skip(sign) {
        match b {
            b'0'..=b'9' => end = i + 1,
            b'.' if !point => point = true,
            _ => break,
        }
    }
    // (A point after the last digit is left out: `12.` reads as 12.)
    number(&t[..end])
}

/// A number as written in a tag: digits, a sign, a decimal point.
fn number(s: &str) -> Option<f64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    let ok = !digits.is_empty()
        && digits.bytes().any(|b| b.is_ascii_digit())
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().filter(|&b| b == b'.').count() <= 1;
    if ok {
        t.parse().ok()
    } else {
        None
    }
}

/// A test of one tag: `NAME OP VALUE`.
#[derive(Clone, Debug)]
pub struct TagTest {
    text: String,
    name: String,
    op: Op,
    want: Want,
}

impl TagTest {
    /// The tag it tests.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether a game whose tag has `value` (`None`: no such tag) passes.
    pub fn passes(&self, value: Option<&str>) -> bool {
        let Some(value) = value else {
            return false;
        };
        match &self.want {
            Want::Pattern(re) => re.is_match(value) == (self.op == Op::Matches),
            Want::Number(want) => leading_number(value)
                .and_then(|v| v.partial_cmp(want))
                .is_some_and(|o| self.op.accepts(o)),
            Want::Date(want) => value
                .parse::<DateSpan>()
                .is_ok_and(|d| d.passes(self.op, *want)),
            Want::Text(want) => self.op.accepts(value.as_bytes().cmp(want.as_bytes())),
        }
    }
}

impl fmt::Display for TagTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for TagTest {
    type Err = FilterError;

    /// `NAME OP VALUE`, OP one of `=` `!=` `<` `<=` `>` `>=` `~` `!~` (also
    /// `==`, `<>`, `=~`); spaces around OP and quotes around VALUE are
    /// optional. VALUE is a number if it reads as one, a date
    /// (`YYYY[.MM[.DD]]`) if NAME ends in `Date` and it reads as one, else
    /// text; after `~` or `!~` it is a regular expression, matched anywhere
    /// in the value, ignoring case.
    fn from_str(text: &str) -> Result<TagTest, FilterError> {
        let bad = |reason| FilterError::TagTest {
            text: text.to_owned(),
            reason,
        };
        let at = text
            .find(['=', '!', '<', '>', '~'])
            .ok_or_else(|| bad("no operator (= != < <= > >= ~ !~)"))?;
        let name = text[..at].trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(bad(
                "expected a tag name (letters, digits, _) before the operator",
            ));
        }
        let rest = &text[at..];
        let (spelling, op) = Op::SPELLINGS
            .iter()
            .find(|(s, _)| rest.starts_with(s))
            .ok_or_else(|| bad("no operator (= != < <= > >= ~ !~)"))?;
        let mut value = rest[spelling.len()..].trim();
        if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
            value = &value[1..value.len() - 1];
        }
        let want = if matches!(op, Op::Matches | Op::NotMatches) {
            let re = RegexBuilder::new(value)
                .case_insensitive(true)
                .build()
                .map_err(|source| FilterError::Regex {
                    text: text.to_owned(),
                    source,
                })?;
            Want::Pattern(re)
        } else if let Some(d) = name
            .ends_with("Date")
            .then(|| value.parse::<DateSpan>().ok())
            .flatten()
        {
            Want::Date(d)
        } else if let Some(n) = number(value) {
            Want::Number(n)
        } else {
            Want::Text(value.to_owned())
        };
        Ok(TagTest {
            text: text.to_owned(),
            name: name.to_owned(),
            op: *op,
            want,
        })
    }
}

/// Inclusive bounds, either of them open: `MIN..MAX`, `MIN..`, `..MAX`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bounds<T> {
    /// The lowest value that passes, if there is one.
    pub min: Option<T>,
    /// The highest value that passes, if there is one.
    pub max: Option<T>,
}

impl<T: FromStr> Bounds<T> {
    /// Reads `MIN..MAX` (either side may be left out); a lone value is
    /// the least (`exact` false) or the only one (`exact` true).
    /// `expected` says what a bound must be, for the error.
    ///
    /// # Errors
    /// [`FilterError::Range`] if a bound does not read as a `T` or both
    /// are missing.
    pub fn parse(
        text: &str,
        exact: bool,
        expected: &'static str,
    ) -> Result<Bounds<T>, FilterError> {
        let bad = || FilterError::Range {
            text: text.to_owned(),
            expected,
        };
        let side = |s: &str| -> Result<Option<T>, FilterError> {
            let s = s.trim();
            if s.is_empty() {
                Ok(None)
            } else {
                s.parse().map(Some).map_err(|_| bad())
            }
        };
        let bounds = match text.split_once("..") {
            Some((lo, hi)) => Bounds {
                min: side(lo)?,
                max: side(hi)?,
            },
            None => {
                let v = side(text)?.ok_or_else(bad)?;
                if exact {
                    Bounds {
                        min: Some(side(text)?.ok_or_else(bad)?),
                        max: Some(v),
                    }
                } else {
                    Bounds {
                        min: Some(v),
                        max: None,
                    }
                }
            }
        };
        if bounds.min.is_none() && bounds.max.is_none() {
            return Err(bad());
        }
        Ok(bounds)
    }
}

impl<T: PartialOrd> Bounds<T> {
    /// Whether `v` lies within the bounds.
    pub fn contains(&self, v: &T) -> bool {
        self.min.as_ref().is_none_or(|m| v >= m) && self.max.as_ref().is_none_or(|m| v <= m)
    }
}

impl Bounds<DateSpan> {
    /// Whether every day `d` may be lies within the bounds.
    pub fn holds(&self, d: DateSpan) -> bool {
        self.min.is_none_or(|m| d.first >= m.first) && self.max.is_none_or(|m| d.last <= m.last)
    }
}

/// A position a game must pass through, by its Zobrist key (pieces, side
/// to move, castling rights, an en passant square only where a capture
/// is legal; not the move clocks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionTest {
    /// The position's key ([`Position::hash`]).
    pub key: u64,
}

impl FromStr for PositionTest {
    type Err = FilterError;

    /// A FEN (its move clocks may be left out).
    fn from_str(fen: &str) -> Result<PositionTest, FilterError> {
        let bad = |reason: String| FilterError::Fen {
            fen: fen.to_owned(),
            reason,
        };
        let setup = Setup::from_fen(fen.trim(), Mode::Lenient).map_err(|e| bad(e.to_string()))?;
        let (pos, _) = setup
            .into_position(Mode::Lenient)
            .map_err(|e| bad(e.to_string()))?;
        Ok(PositionTest { key: pos.hash() })
    }
}

/// The roles a material signature counts, in the order it is kept.
const COUNTED: [Role; 5] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// A material signature: how many queens, rooks, bishops, knights and
/// pawns each side has (the kings are always there).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Material {
    /// Counts for White then Black, in the order Q R B N P.
    counts: [[u8; 5]; 2],
}

impl Material {
    /// The material of `pos`.
    pub fn of(pos: &Position) -> Material {
        let mut counts = [[0; 5]; 2];
        for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
            for (r, role) in COUNTED.into_iter().enumerate() {
                counts[c][r] = pos.pieces(color, role).count() as u8;
            }
        }
        Material { counts }
    }

    /// How many pieces of `role` `color` has (0 for the king, which is
    /// not counted).
    pub fn count(&self, color: Color, role: Role) -> u8 {
        COUNTED
            .iter()
            .position(|&r| r == role)
            .map_or(0, |i| self.counts[color.index()][i])
    }
}

impl FromStr for Material {
    type Err = FilterError;

    /// `KRPkr` (White's pieces in capitals, Black's in small letters) or
    /// `KRPvKR` (White's, `v`, Black's, in any case); `K` may be left out.
    fn from_str(text: &str) -> Result<Material, FilterError> {
        let bad = |reason| FilterError::Material {
            text: text.to_owned(),
            reason,
        };
        let t = text.trim();
        let mut counts = [[0u8; 5]; 2];
        let mut kings = [0u8; 2];
        let sides: Vec<(usize, char)> = match t.split_once(['v', 'V']) {
            Some((w, b)) => w
                .chars()
                .map(|c| (0, c.to_ascii_uppercase()))
                .chain(b.chars().map(|c| (1, c.to_ascii_uppercase())))
                .collect(),
            None => t
                .chars()
                .map(|c| (usize::from(c.is_ascii_lowercase()), c.to_ascii_uppercase()))
                .collect(),
        };
        if sides.is_empty() {
            return Err(bad("no pieces"));
        }
        for (side, c) in sides {
            let slot =
                match c {
                    'K' => {
                        kings[side] += 1;
                        if kings[side] > 1 {
                            return Err(bad("a side has one king"));
                        }
                        continue;
                    }
                    'Q' => 0,
                    'R' => 1,
                    'B' => 2,
                    'N' => 3,
                    'P' => 4,
                    _ => return Err(bad(
                        "expected the letters K Q R B N P (Black's in small letters, or after v)",
                    )),
                };
            counts[side][slot] += 1;
            if counts[side][slot] > 16 {
                return Err(bad("more pieces of one kind than a side can have"));
            }
        }
        Ok(Material { counts })
    }
}

/// An opening prefix a game must start with: its moves in this order, or
/// with [`Opening::transpose`] in any order (the game stands in the same
/// position after as many plies).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The moves, from the standard starting position (or the position of
    /// the text's `FEN` tag).
    pub moves: Vec<Move>,
    /// The key of the position they start from.
    pub start: u64,
    /// The key of the position they lead to.
    pub end: u64,
    /// Whether any order of reaching that position counts.
    pub transpose: bool,
}

impl Opening {
    /// The moves of `text`, in PGN movetext (`1. e4 c5 2. Nf3`; tags may
    /// come first).
    ///
    /// # Errors
    /// [`FilterError::Moves`] if `text` has no moves or one that is not
    /// legal.
    pub fn from_moves(text: &str, transpose: bool) -> Result<Opening, FilterError> {
        let bad = |reason: String| FilterError::Moves {
            text: text.to_owned(),
            reason,
        };
        let read = Games::new(text.as_bytes())
            .with_detail(Detail::Mainline)
            .next()
            .ok_or_else(|| bad("no moves".to_owned()))?
            .map_err(|e| bad(e.to_string()))?;
        if let Some(e) = read.error {
            return Err(bad(e.kind.to_string()));
        }
        let moves: Vec<Move> = read.game.mainline_moves().collect();
        if moves.is_empty() {
            return Err(bad("no moves".to_owned()));
        }
        Ok(Opening {
            end: read.game.end_position().hash(),
            start: read.game.start.hash(),
            moves,
            transpose,
        })
    }
}

/// What becomes of a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It passes (or, inverted, fails): copy it.
    Keep,
    /// It does not: leave it out.
    Drop,
    /// It could not be read to its end: neither (reported; copied only on
    /// request).
    Bad,
}

/// Tests on a game's tags and moves as text, the way a person writes them
/// (`pgn filter`'s and `db search`'s flags, Python's keyword arguments):
/// one home for reading them into [`Criteria`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CriteriaText {
    /// Tag tests `NAME OP VALUE` (see [`TagTest`]).
    pub tags: Vec<String>,
    /// Names White or Black must contain (ignoring case).
    pub players: Vec<String>,
    /// Both ratings within `MIN[..MAX]` (a lone value is the least).
    pub elo: Option<String>,
    /// The date within `FROM..TO` (`YYYY[.MM[.DD]]`), or equal to one.
    pub date: Option<String>,
    /// The ECO code within `FROM..TO`, or equal to one.
    pub eco: Option<String>,
    /// Mainline plies within `MIN..MAX`, or exactly `N`.
    pub plies: Option<String>,
    /// Results (`1-0`, `0-1`, `1/2-1/2`, `*`), one of which must be the game's.
    pub results: Vec<String>,
    /// Termination tag values, one of which must be the game's.
    pub terminations: Vec<String>,
    /// FENs, one of which the mainline must pass through.
    pub positions: Vec<String>,
    /// Material signatures (`KRPkr`, `KRPvKR`), one of which a mainline
    /// position must have.
    pub materials: Vec<String>,
    /// The moves the game starts with (`1. e4 c5 2. Nf3`).
    pub moves: Option<String>,
    /// With `moves`: in any order.
    pub transpose: bool,
    /// See [`Criteria::checkmate`].
    pub checkmate: bool,
    /// See [`Criteria::stalemate`].
    pub stalemate: bool,
    /// See [`Criteria::fifty`].
    pub fifty: bool,
    /// See [`Criteria::repetition`].
    pub repetition: bool,
    /// See [`Criteria::variations`].
    pub variations: bool,
    /// See [`Criteria::invert`].
    pub invert: bool,
}

impl CriteriaText {
    /// The criteria these texts say.
    ///
    /// # Errors
    /// The first text that does not read, as [`FilterError`] names it.
    pub fn criteria(&self) -> Result<Criteria, FilterError> {
        let mut c = Criteria {
            invert: self.invert,
            checkmate: self.checkmate,
            stalemate: self.stalemate,
            fifty: self.fifty,
            repetition: self.repetition,
            variations: self.variations,
            ..Criteria::default()
        };
        for t in &self.tags {
            c.tags.push(t.parse()?);
        }
        for p in &self.players {
            c.add_player(p);
        }
        if let Some(e) = &self.elo {
            c.elo = Some(Bounds::parse(e, false, "ratings (2400, 2400..2600)")?);
        }
        if let Some(d) = &self.date {
            c.date = Some(Bounds::parse(d, true, "dates YYYY[.MM[.DD]]")?);
        }
        if let Some(e) = &self.eco {
            c.eco = Some(Bounds::parse(e, true, "ECO codes (B20..B99)")?);
        }
        if let Some(p) = &self.plies {
            c.plies = Some(Bounds::parse(p, true, "numbers of plies (20..80)")?);
        }
        for r in &self.results {
            let result = GameResult::from_ascii(r.trim().as_bytes())
                .ok_or_else(|| FilterError::Result(r.clone()))?;
            c.results.push(result);
        }
        for t in &self.terminations {
            c.terminations.push(Termination::from_tag(t));
        }
        for f in &self.positions {
            c.positions.push(f.parse()?);
        }
        for m in &self.materials {
            c.materials.push(m.parse()?);
        }
        if let Some(m) = &self.moves {
            c.opening = Some(Opening::from_moves(m, self.transpose)?);
        }
        Ok(c)
    }
}

/// Tests on a game's tags and moves (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct Criteria {
    /// Tag tests, every one of which must pass.
    pub tags: Vec<TagTest>,
    /// Names, one of which White or Black must contain (ignoring case).
    pub players: Vec<String>,
    /// Bounds both WhiteElo and BlackElo must lie within.
    pub elo: Option<Bounds<u32>>,
    /// Bounds the Date must lie within.
    pub date: Option<Bounds<DateSpan>>,
    /// Bounds the ECO code must lie within.
    pub eco: Option<Bounds<Eco>>,
    /// Bounds the number of mainline plies must lie within.
    pub plies: Option<Bounds<usize>>,
    /// Results, one of which the game must have (its Result tag, else its
    /// game-termination marker).
    pub results: Vec<GameResult>,
    /// Termination tag values, one of which the game must have (ignoring
    /// case).
    pub terminations: Vec<Termination>,
    /// Positions, one of which the mainline must pass through.
    pub positions: Vec<PositionTest>,
    /// Material signatures, one of which a mainline position must have.
    pub materials: Vec<Material>,
    /// An opening prefix.
    pub opening: Option<Opening>,
    /// Only games that end in checkmate.
    pub checkmate: bool,
    /// Only games that end in stalemate.
    pub stalemate: bool,
    /// Only games with a position after 50 moves by each side without a
    /// capture or a pawn move (as `pgn-extract --fifty`).
    pub fifty: bool,
    /// Only games with a position that occurs three times (as
    /// `pgn-extract --repetition`).
    pub repetition: bool,
    /// Only games with variations.
    pub variations: bool,
    /// Keep the games that fail instead.
    pub invert: bool,
    /// The players' names as case-insensitive searches.
    player_patterns: Vec<Regex>,
}

impl Criteria {
    /// Adds a player: White or Black must contain `name`, ignoring case.
    pub fn add_player(&mut self, name: &str) {
        self.players.push(name.to_owned());
        // An escaped literal always compiles.
        if let Ok(re) = RegexBuilder::new(&regex::escape(name))
            .case_insensitive(true)
            .build()
        {
            self.player_patterns.push(re);
        }
    }

    /// Whether the tests look at the positions of the mainline (then the
    /// games must be read with [`Detail::Mainline`]).
    fn walks(&self) -> bool {
        !self.positions.is_empty()
            || !self.materials.is_empty()
            || self.opening.is_some()
            || self.fifty
            || self.repetition
    }

    /// How much of each game the criteria need (see [`Detail`]).
    pub fn detail(&self) -> Detail {
        if self.walks() {
            Detail::Mainline
        } else {
            Detail::Count
        }
    }

    /// Whether any test looks at tags alone.
    fn tests_tags(&self) -> bool {
        !self.tags.is_empty()
            || !self.player_patterns.is_empty()
            || self.elo.is_some()
            || self.date.is_some()
            || self.eco.is_some()
            || !self.terminations.is_empty()
    }

    /// A gate for the reader ([`crate::copy::CopyPlan::gate`]): it turns
    /// away the games whose tags fail a test on tags, which
    /// [`Criteria::judge`] drops whatever their moves, so that their moves
    /// are not read (`pgn-extract -t` reads them all). `None` when no test
    /// is on tags alone, or under [`Criteria::invert`] (a game failing its
    /// tags is kept, moves and all).
    pub fn tag_gate(&self) -> Option<TagGate> {
        if self.invert || !self.tests_tags() {
            return None;
        }
        let criteria = self.clone();
        Some(Arc::new(move |tags: &Tags| {
            // A value that was not UTF-8 (read with U+FFFD): the judge
            // reads it from the game's bytes, so the game is read.
            tags.iter().any(|(_, v)| v.contains('\u{FFFD}'))
                || criteria.passes_tags(
                    |name| tags.get(name).map(Cow::Borrowed),
                    || tags.eco().ok().flatten(),
                )
        }))
    }

    /// What becomes of game `g`, whose bytes are `raw` (as
    /// [`crate::copy`]'s judge gets them; only read where a tag value is
    /// not UTF-8, see [`tag_value`]). The game must have been read with
    /// [`Criteria::detail`] at least.
    pub fn judge(&self, g: &ReadGame, raw: &[u8]) -> Verdict {
        if g.error.is_some() {
            return Verdict::Bad;
        }
        if self.passes(g, raw) != self.invert {
            Verdict::Keep
        } else {
            Verdict::Drop
        }
    }

    /// Whether `game` may pass, judged on its tags alone: `false` only when
    /// it cannot (a tag test fails, and the tests are not inverted). A
    /// store of games asks this before it builds a game to [`judge`]
    /// ([`Criteria::judge`]), so that most games it turns away cost a
    /// look at their tags.
    ///
    /// [`judge`]: Criteria::judge
    pub fn may_pass(&self, game: &Game) -> bool {
        self.invert
            || self.passes_tags(
                |name| game.tags.get(name).map(Cow::Borrowed),
                || game.tags.eco().ok().flatten(),
            )
    }

    /// The verdict on a game known only by its tags (`tag` gives a tag's
    /// value, as the game's PGN has it), its result and its mainline's
    /// length in plies, when the tests need no more: exactly what
    /// [`judge`] says of that game (`true`: keep it). `None` when a test
    /// needs its moves, its ending or its variations. A store that keeps
    /// these beside each game judges its games without reading their moves.
    ///
    /// [`judge`]: Criteria::judge
    pub fn judge_summary<'a>(
        &self,
        tag: impl Fn(&str) -> Option<Cow<'a, str>>,
        result: GameResult,
        plies: usize,
    ) -> Option<bool> {
        if self.checkmate || self.stalemate || self.variations || self.walks() {
            return None;
        }
        let eco = || tag("ECO").and_then(|v| Eco::from_tag(&v).ok());
        let passes = self.passes_tags(&tag, eco)
            && self.plies.as_ref().is_none_or(|p| p.contains(&plies))
            && (self.results.is_empty() || self.results.contains(&result));
        Some(passes != self.invert)
    }

    /// Whether `name` is one the tests on players look for: it contains
    /// one of [`Criteria::players`], ignoring case (an index of names
    /// finds the games those tests may keep with it).
    pub fn is_player(&self, name: &str) -> bool {
        self.player_patterns.iter().any(|re| re.is_match(name))
    }

    /// Whether there are tests on players ([`Criteria::add_player`]).
    pub fn tests_players(&self) -> bool {
        !self.player_patterns.is_empty()
    }

    /// Whether the tests on tags alone pass, `tag` giving a tag's value.
    fn passes_tags<'a>(
        &self,
        tag: impl Fn(&str) -> Option<Cow<'a, str>>,
        eco_of: impl FnOnce() -> Option<Eco>,
    ) -> bool {
        if !self.tags.iter().all(|t| t.passes(tag(t.name()).as_deref())) {
            return false;
        }
        if !self.player_patterns.is_empty() {
            let (w, b) = (tag("White"), tag("Black"));
            let plays = |re: &Regex| {
                [&w, &b]
                    .iter()
                    .any(|n| n.as_deref().is_some_and(|n| re.is_match(n)))
            };
            if !self.player_patterns.iter().any(plays) {
                return false;
            }
        }
        if let Some(elo) = &self.elo {
            let rated = |name: &str| {
                tag(name)
                    .and_then(|v| leading_number(&v))
                    .filter(|e| (0.0..=f64::from(u32::MAX)).contains(e) && e.fract() == 0.0)
                    .is_some_and(|e| elo.contains(&(e as u32)))
            };
            if !(rated("WhiteElo") && rated("BlackElo")) {
                return false;
            }
        }
        if let Some(date) = &self.date {
            let span = tag("Date").and_then(|d| d.parse::<DateSpan>().ok());
            if !span.is_some_and(|d| date.holds(d)) {
                return false;
            }
        }
        if let Some(eco) = &self.eco {
            if !eco_of().is_some_and(|e| eco.contains(&e)) {
                return false;
            }
        }
        if !self.terminations.is_empty() {
            let t = tag("Termination").map(|t| Termination::from_tag(&t));
            if !t.is_some_and(|t| self.terminations.contains(&t)) {
                return false;
            }
        }
        true
    }

    /// Whether `g` passes every test.
    fn passes(&self, g: &ReadGame, raw: &[u8]) -> bool {
        if !self.passes_tags(
            |name| tag_value(g, raw, name),
            || g.game.tags.eco().ok().flatten(),
        ) {
            return false;
        }
        if self.plies.as_ref().is_some_and(|p| !p.contains(&g.plies)) {
            return false;
        }
        if !self.results.is_empty() {
            let result = match g.game.tags.result() {
                Ok(Some(r)) => r,
                _ => g.game.result,
            };
            if !self.results.contains(&result) {
                return false;
            }
        }
        if self.checkmate && !matches!(g.ending, Some(Ending::Checkmate { .. })) {
            return false;
        }
        if self.stalemate && g.ending != Some(Ending::Stalemate) {
            return false;
        }
        if self.variations && g.variations == 0 {
            return false;
        }
        !self.walks() || self.walk(g)
    }

    /// Whether the mainline of `g` passes the tests on its positions.
    fn walk(&self, g: &ReadGame) -> bool {
        let mut position = !self.positions.is_empty();
        let mut material = !self.materials.is_empty();
        let mut fifty = self.fifty;
        let mut repetition = self.repetition;
        let mut opening = self.opening.as_ref();
        if let Some(o) = opening {
            if g.plies < o.moves.len() || (!o.transpose && g.game.start.hash() != o.start) {
                return false;
            }
        }
        // Repetitions need the history; core's `Game` keeps it.
        let mut history = repetition.then(|| rookery_core::Game::new(g.game.start.clone()));
        let mut pos = g.game.start.clone();
        let mut moves = g.game.mainline_moves();
        let mut ply = 0;
        loop {
            if position && self.positions.iter().any(|p| p.key == pos.hash()) {
                position = false;
            }
            if material && self.materials.contains(&Material::of(&pos)) {
                material = false;
            }
            if fifty && pos.is_fifty_moves() {
                fifty = false;
            }
            if repetition
                && history
                    .as_ref()
                    .is_some_and(rookery_core::Game::is_threefold_repetition)
            {
                repetition = false;
            }
            if let Some(o) = opening {
                if ply == o.moves.len() {
                    if pos.hash() != o.end {
                        return false;
                    }
                    opening = None;
                }
            }
            if !(position || material || fifty || repetition || opening.is_some()) {
                return true;
            }
            let Some(m) = moves.next() else {
                return false;
            };
            if let Some(o) = opening.filter(|o| !o.transpose) {
                if o.moves[ply] != m {
                    return false;
                }
            }
            pos.play_unchecked(m);
            if let Some(h) = &mut history {
                // Legal: the reader checked every move.
                if h.play(m).is_err() {
                    return false;
                }
            }
            ply += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pgn: &str) -> Vec<ReadGame> {
        Games::new(pgn.as_bytes())
            .with_detail(Detail::Mainline)
            .map(|g| g.unwrap())
            .collect()
    }

    /// The indices (from 1) of the games of `pgn` that `c` keeps.
    fn kept(c: &Criteria, pgn: &str) -> Vec<usize> {
        read(pgn)
            .iter()
            .filter(|g| c.judge(g, &[]) == Verdict::Keep)
            .map(|g| g.index)
            .collect()
    }

    fn test(t: &str) -> TagTest {
        t.parse().unwrap()
    }

    /// The gate turns away exactly the games whose tags fail (their moves
    /// unread: an illegal move in them is not found), keeps every game the
    /// judge keeps, and is no gate under --invert or without tag tests.
    #[test]
    fn the_tag_gate_skips_the_moves_of_games_their_tags_drop() {
        let pgn = "[White \"Carlsen\"]\n[WhiteElo \"2850\"]\n\n1. e4 e5 1-0\n\n\
                   [White \"Weak\"]\n[WhiteElo \"1200\"]\n\n1. e4 Ke7 2. Qh5 Kxe4 *\n\n\
                   [White \"Bad\"]\n[WhiteElo \"2900\"]\n\n1. e4 Ke4 *\n\n\
                   [White \"Carlsen\"]\n[WhiteElo \"2000\"]\n\n1. d4 *\n";
        let mut c = Criteria::default();
        c.tags.push(test("WhiteElo>=2500"));
        let gate = c.tag_gate().expect("a test on tags");
        let mut builder = Games::new(pgn.as_bytes());
        builder.set_gate(Some(gate));
        let games: Vec<ReadGame> = builder.map(|g| g.unwrap()).collect();
        let skipped: Vec<bool> = games.iter().map(|g| g.skipped).collect();
        assert_eq!(skipped, [false, true, false, true]);
        // The weak game's illegal move was not read; the bad one's was.
        assert!(games[1].error.is_none() && games[1].plies == 0);
        assert!(games[2].error.is_some());
        let verdicts: Vec<Verdict> = games.iter().map(|g| c.judge(g, &[])).collect();
        assert_eq!(
            verdicts,
            [Verdict::Keep, Verdict::Drop, Verdict::Bad, Verdict::Drop]
        );
        // Read whole, the same games are kept.
        assert_eq!(kept(&c, pgn), [1]);
        c.invert = true;
        assert!(c.tag_gate().is_none());
        let moves_only = Criteria {
            checkmate: true,
            ..Criteria::default()
        };
        assert!(moves_only.tag_gate().is_none());
    }

    #[test]
    fn tag_tests_read_numbers_dates_text_and_patterns() {
        assert!(test("WhiteElo>=2500").passes(Some("2500")));
        assert!(!test("WhiteElo>=2500").passes(Some("999")));
        // As numbers, not as text ("999" > "2500" byte by byte).
        assert!(test("WhiteElo < 2500").passes(Some("999")));
        assert!(!test("WhiteElo>=2500").passes(Some("?")));
        assert!(!test("WhiteElo>=2500").passes(None));
        assert!(test("Round = \"3\"").passes(Some("3.0")));
        assert!(test("Date<2013").passes(Some("2012.??.??")));
        assert!(!test("Date<2012.06").passes(Some("2012.??.??")));
        assert!(test("Date>=2012.06").passes(Some("2012.06.??")));
        assert!(test("Date=2012").passes(Some("2012.06.20")));
        assert!(test("Date!=2012.06.21").passes(Some("2012.06.20")));
        assert!(!test("Date>1900").passes(Some("????.??.??")));
        // A date written short, as some collections do.
        assert!(test("Date<1970").passes(Some("1957")));
        assert!(test("Date=1957.05").passes(Some("1957.05")));
        assert!(test("EventDate<=2012.06.20").passes(Some("2012.06.20")));
        // As pgn-extract: a date known in part compares on the parts it
        // has (the same year is equal); a rating is the number it starts
        // with (a consultation game's `2690:2222`).
        assert!(test("Date>=1990.06.15").passes(Some("1990.??.??")));
        assert!(test("Date<=1990.06.15").passes(Some("1990.??.??")));
        assert!(!test("Date>1990.06.15").passes(Some("1990.??.??")));
        assert!(!test("Date<1990.06.15").passes(Some("1990.??.??")));
        assert!(test("Date>=1990.06.15").passes(Some("1990.06.??")));
        assert!(!test("Date>=1990.06.15").passes(Some("1990.05.??")));
        assert!(!test("Date>=1990.06.15").passes(Some("1990.06.14")));
        assert!(test("WhiteElo>=2600").passes(Some("2690:2222")));
        assert!(test("WhiteElo=2690").passes(Some(" 2690 (consultation)")));
        assert!(!test("WhiteElo>=2600").passes(Some("x2690")));
        assert!(!test("WhiteElo<2600").passes(Some("x2690")));
        // A wanted value is a number only when it is one whole.
        assert!(!test("Result=1-0").passes(Some("1/2-1/2")));
        assert!(test("Event~olympiad").passes(Some("40th Chess Olympiad")));
        assert!(!test("Event!~olympiad").passes(Some("40th Chess Olympiad")));
        assert!(test("Event~^Cez").passes(Some("Cez Trophy")));
        assert!(test("White=Navara,D").passes(Some("Navara,D")));
        assert!(!test("White=Navara").passes(Some("Navara,D")));
        assert!(test("White<B").passes(Some("Anand")));
        assert!(test("Result<>*").passes(Some("1-0")));
        for bad in ["WhiteElo", "=2500", "White Elo>=1", "Event~(", "Date"] {
            assert!(bad.parse::<TagTest>().is_err(), "{bad}");
        }
    }

    #[test]
    fn ranges() {
        let b = Bounds::<u32>::parse("2400..2500", false, "Elo").unwrap();
        assert!(b.contains(&2400) && b.contains(&2500) && !b.contains(&2501));
        let b = Bounds::<u32>::parse("2400", false, "Elo").unwrap();
        assert!(b.contains(&3000) && !b.contains(&2399));
        let b = Bounds::<usize>::parse("40", true, "plies").unwrap();
        assert!(b.contains(&40) && !b.contains(&41));
        let b = Bounds::<Eco>::parse("B20..B99", true, "ECO").unwrap();
        assert!(b.contains(&"B33".parse().unwrap()) && !b.contains(&"C00".parse().unwrap()));
        let b = Bounds::<DateSpan>::parse("2012.06..2012", true, "dates").unwrap();
        assert!(b.holds("2012.06.20".parse().unwrap()));
        assert!(!b.holds("2012.05.31".parse().unwrap()));
        assert!(!b.holds("2012.??.??".parse().unwrap()));
        for bad in ["..", "x..", "1..y", ""] {
            assert!(Bounds::<u32>::parse(bad, false, "Elo").is_err(), "{bad}");
        }
    }

    const GAMES: &str = "\
[White \"Carlsen, Magnus\"]\n[Black \"Anand\"]\n[WhiteElo \"2862\"]\n[BlackElo \"2780\"]\n\
[Date \"2014.11.10\"]\n[ECO \"C67\"]\n[Result \"1-0\"]\n[Termination \"Normal\"]\n\n\
1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 (3... a6) 4. O-O Nxe4 1-0\n\n\
[White \"x\"]\n[Black \"MAGNUS\"]\n[WhiteElo \"2400\"]\n[BlackElo \"2900\"]\n[Date \"2014.??.??\"]\n\
[ECO \"B20\"]\n[Termination \"time forfeit\"]\n\n1. Nf3 Nc6 2. e4 e5 3. Ng1 Nb8 4. Nf3 Nc6 5. Ng1 Nb8 6. Nf3 Nc6 0-1\n\n\
[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";

    #[test]
    fn players_ratings_dates_codes_results() {
        let mut c = Criteria::default();
        c.add_player("magnus");
        assert_eq!(kept(&c, GAMES), [1, 2]);
        c.invert = true;
        assert_eq!(kept(&c, GAMES), [3]);
        let c = Criteria {
            elo: Some(Bounds::parse("2500", false, "").unwrap()),
            ..Criteria::default()
        };
        assert_eq!(kept(&c, GAMES), [1]);
        let c = Criteria {
            date: Some(Bounds::parse("2014", true, "").unwrap()),
            ..Criteria::default()
        };
        assert_eq!(kept(&c, GAMES), [1, 2]);
        let c = Criteria {
            date: Some(Bounds::parse("2014.11..", true, "").unwrap()),
            ..Criteria::default()
        };
        assert_eq!(kept(&c, GAMES), [1]);
        let c = Criteria {
            eco: Some(Bounds::parse("B00..B99", true, "").unwrap()),
            ..Criteria::default()
        };
        assert_eq!(kept(&c, GAMES), [2]);
        // The Result tag, else the marker.
        let c = Criteria {
            results: vec![GameResult::WhiteWins],
            ..Criteria::default()
        };
        assert_eq!(kept(&c, GAMES), [1, 3]);
        let c = Criteria {
            terminations: vec![Termination::from_tag("Time forfeit")],
            ..Criteria::default()
        };
        assert_eq!(kept(&c, GAMES), [2]);
        let c = Criteria {
            plies: Some(Bounds::parse("..8", false, "").unwrap()),
            ..Criteria::default()
        };
        assert_eq!(kept(&c, GAMES), [1, 3]);
    }

    #[test]
    fn content_of_the_moves() {
        let only = |f: &dyn Fn(&mut Criteria)| {
            let mut c = Criteria::default();
            f(&mut c);
            kept(&c, GAMES)
        };
        // The position after 1. e4 e5 2. Nf3 Nc6, reached by both first games.
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
        assert_eq!(only(&|c| c.positions.push(fen.parse().unwrap())), [1, 2]);
        let opening = |t| Opening::from_moves("1. e4 e5 2. Nf3 Nc6", t).unwrap();
        assert_eq!(only(&|c| c.opening = Some(opening(false))), [1]);
        assert_eq!(only(&|c| c.opening = Some(opening(true))), [1, 2]);
        assert_eq!(only(&|c| c.checkmate = true), [3]);
        assert_eq!(only(&|c| c.variations = true), [1]);
        assert_eq!(only(&|c| c.repetition = true), [2]);
        // After 4... Nxe4: White has lost a pawn.
        assert_eq!(
            only(&|c| c
                .materials
                .push("KQRRBBNNPPPPPPPvKQRRBBNNPPPPPPPP".parse().unwrap())),
            [1]
        );
        assert!("KRPkrx".parse::<Material>().is_err());
        assert!("KKr".parse::<Material>().is_err());
        // Many kings: an error, never a counter that overflows (found by
        // the fuzz target scout_query).
        assert!("K".repeat(300).parse::<Material>().is_err());
        assert!(format!("{}v", "K".repeat(300)).parse::<Material>().is_err());
        assert!(Opening::from_moves("1. e4 e4", false).is_err());
    }

    #[test]
    fn fifty_moves_and_stalemate() {
        let mut pgn = String::from("[FEN \"8/8/8/4k3/8/8/2R5/4K3 w - - 97 80\"]\n[SetUp \"1\"]\n\n80. Kd1 Kd5 81. Ke1 Ke5 *\n\n");
        pgn.push_str("[FEN \"7k/8/6K1/8/8/8/8/5Q2 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Qf2 Kg8 2. Qf5 Kh8 3. Qf7 *\n");
        let c = Criteria {
            fifty: true,
            ..Criteria::default()
        };
        assert_eq!(kept(&c, &pgn), [1]);
        let c = Criteria {
            stalemate: true,
            ..Criteria::default()
        };
        assert_eq!(kept(&c, &pgn), [2]);
    }

    #[test]
    fn a_game_with_an_error_is_bad_either_way() {
        let g = &read("1. e4 e4 *\n")[0];
        let mut c = Criteria::default();
        assert_eq!(c.judge(g, &[]), Verdict::Bad);
        c.invert = true;
        assert_eq!(c.judge(g, &[]), Verdict::Bad);
    }
}
