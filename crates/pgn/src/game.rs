//! The game tree and the visitor that builds it, checking every move.

use std::fmt;
use std::io::Read;

use rookery_core::{
    Color, Fen, Leniency, Mode, Move, Position, San, SanError, SanPlus, Setup, UciMove,
};

use crate::ending::{Ending, ResultSource};
use crate::reader::{Problem, Reader, Skip, Visitor};
use crate::types::{GameResult, Location, Nag, RawComment, RawTag};

/// The Seven Tag Roster, in export order, with the values written when a tag is missing.
pub const SEVEN_TAG_ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// A game's tag pairs in file order (names unique; a repeated name keeps its last value).
///
/// Names and values share one text buffer: a game's tags take two
/// allocations however many pairs it has, and none when a reader reuses
/// them from game to game.
#[derive(Clone, Default)]
pub struct Tags {
    /// Names and values one after another (and, after a value was replaced
    /// or a pair removed, text no pair points at any more).
    text: String,
    /// The pairs, in order.
    pairs: Vec<TagSpan>,
    /// A one-word filter of the names added since the last clear: bit
    /// [`name_bit`] of every such name is set, so a clear bit answers "no
    /// pair has that name" (most lookups: a new name, an absent `FEN`)
    /// without a search. A removed name's bit stays set, which only costs
    /// the search.
    seen: u64,
}

/// Where one pair's name and value stand in [`Tags::text`] (a replaced
/// value is written after the rest, away from its name).
#[derive(Copy, Clone)]
struct TagSpan {
    /// The name's first eight bytes ([`name_key`]): with its length, the
    /// whole of nearly every name, so that a search seldom reads the text.
    key: u64,
    name_start: usize,
    name_end: usize,
    value_start: usize,
    value_end: usize,
}

impl Tags {
    /// The value of a tag.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.index_of(name.as_bytes()).map(|i| self.pair(i).1)
    }

    /// Sets a tag, replacing an earlier value in place or appending.
    pub fn insert(&mut self, name: &str, value: String) {
        self.set_with(name, |text| text.push_str(&value));
    }

    /// Removes a tag, returning its value.
    pub fn remove(&mut self, name: &str) -> Option<String> {
        let i = self.index_of(name.as_bytes())?;
        let value = self.pair(i).1.to_owned();
        self.pairs.remove(i);
        self.compact_if_sparse();
        Some(value)
    }

    /// The pairs as `(name, value)`, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &str)> + ExactSizeIterator {
        (0..self.pairs.len()).map(|i| self.pair(i))
    }

    /// How many pairs there are.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Removes every pair, keeping the allocations.
    pub fn clear(&mut self) {
        self.text.clear();
        self.pairs.clear();
        self.seen = 0;
    }

    /// The tags the writer writes (see [`Tags::export_order`]), as a `Tags`.
    pub fn exported(&self) -> Tags {
        self.export_order().into_iter().collect()
    }

    /// The tags as written in export format: the Seven Tag Roster first (a
    /// missing one gets its default), then the others in their order.
    pub fn export_order(&self) -> Vec<(&str, &str)> {
        let mut out: Vec<(&str, &str)> = SEVEN_TAG_ROSTER
            .iter()
            .map(|&(n, d)| (n, self.get(n).unwrap_or(d)))
            .collect();
        out.extend(
            self.iter()
                .filter(|(n, _)| !SEVEN_TAG_ROSTER.iter().any(|(r, _)| r == n)),
        );
        out
    }

    /// The name and value of pair `i` (which must exist).
    fn pair(&self, i: usize) -> (&str, &str) {
        let s = self.pairs[i];
        (
            &self.text[s.name_start..s.name_end],
            &self.text[s.value_start..s.value_end],
        )
    }

    /// The index of the pair named `name`.
    fn index_of(&self, name: &[u8]) -> Option<usize> {
        self.index_of_key(name_key(name), name)
    }

    /// [`Tags::index_of`], with the name's [`name_key`] already made.
    #[inline]
    fn index_of_key(&self, key: u64, name: &[u8]) -> Option<usize> {
        let len = name.len();
        if self.seen & name_bit(key) == 0 {
            return None;
        }
        self.pairs.iter().position(|s| {
            s.key == key
                && s.name_end - s.name_start == len
                && (len <= 8 || &self.text.as_bytes()[s.name_start..s.name_end] == name)
        })
    }

    /// The name of pair `i`, if there is one.
    pub(crate) fn name_at(&self, i: usize) -> Option<&str> {
        (i < self.pairs.len()).then(|| self.pair(i).0)
    }

    /// Sets the pair `name` (the one of that name, else a new one) to the
    /// text `write` appends; returns its index.
    pub(crate) fn set_with(&mut self, name: &str, write: impl FnOnce(&mut String)) -> usize {
        let key = name_key(name.as_bytes());
        let existing = self.index_of_key(key, name.as_bytes());
        let name_start = self.text.len();
        if existing.is_none() {
            self.text.push_str(name);
        }
        let name_end = self.text.len();
        let value_start = name_end;
        write(&mut self.text);
        let value_end = self.text.len();
        match existing {
            Some(i) => {
                let s = &mut self.pairs[i];
                s.value_start = value_start;
                s.value_end = value_end;
                self.compact_if_sparse();
                i
            }
            None => {
                self.seen |= name_bit(key);
                self.pairs.push(TagSpan {
                    key,
                    name_start,
                    name_end,
                    value_start,
                    value_end,
                });
                self.pairs.len() - 1
            }
        }
    }

    /// Rewrites the text without the parts no pair points at, once they are
    /// over half of it (so replacing a value again and again stays bounded).
    fn compact_if_sparse(&mut self) {
        let live: usize = self
            .pairs
            .iter()
            .map(|s| s.name_end - s.name_start + s.value_end - s.value_start)
            .sum();
        if live * 2 >= self.text.len() {
            return;
        }
        let mut text = String::with_capacity(live);
        for s in &mut self.pairs {
            let name_start = text.len();
            text.push_str(&self.text[s.name_start..s.name_end]);
            let value_start = text.len();
            text.push_str(&self.text[s.value_start..s.value_end]);
            *s = TagSpan {
                key: s.key,
                name_start,
                name_end: value_start,
                value_start,
                value_end: text.len(),
            };
        }
        self.text = text;
    }
}

/// A tag name's first eight bytes (zeros after a shorter one), as a number.
#[inline]
fn name_key(name: &[u8]) -> u64 {
    if let Some(head) = name.first_chunk::<8>() {
        return u64::from_le_bytes(*head);
    }
    // A short name byte by byte: a copy of a length not known here would
    // be a call to `memcpy`.
    name.iter()
        .enumerate()
        .fold(0, |key, (i, &b)| key | u64::from(b) << (8 * i))
}

/// The bit of [`Tags::seen`] for a name's key: six bits of a
/// multiplicative hash of it.
#[inline]
fn name_bit(key: u64) -> u64 {
    1 << (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

impl PartialEq for Tags {
    fn eq(&self, other: &Tags) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Tags {}

impl fmt::Debug for Tags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Tags")
            .field(&self.iter().collect::<Vec<_>>())
            .finish()
    }
}

/// Pairs in order; a repeated name sets the earlier pair's value, as
/// [`Tags::insert`] does.
impl<N: AsRef<str>, V: AsRef<str>> FromIterator<(N, V)> for Tags {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(pairs: I) -> Tags {
        let mut tags = Tags::default();
        for (name, value) in pairs {
            tags.set_with(name.as_ref(), |text| text.push_str(value.as_ref()));
        }
        tags
    }
}

/// One move in the tree, with what the file says about it.
///
/// `Clone`, `PartialEq`, `Debug` (and `Drop` of [`Line`]) run on a heap
/// stack, not recursively: see [`crate::tree`].
pub struct Node {
    /// The move (legal in the position it is played from).
    pub mv: Move,
    /// Comments standing before the move (at the start of a line or after a variation).
    pub comments_before: Vec<String>,
    /// NAGs after the move (`!`-style suffixes are stored as their NAGs).
    pub nags: Vec<Nag>,
    /// Comments after the move.
    pub comments_after: Vec<String>,
    /// For each NAG, how many of `comments_after` stand before it (`b3 {c1}
    /// $1 {c2}` is nags `[$1]`, comments `[c1, c2]`, slots `[1]`). Missing
    /// entries mean 0: the NAG comes straight after the move.
    pub nag_slots: Vec<usize>,
    /// Alternatives to this move, each a line starting from the same position.
    pub variations: Vec<Line>,
}

impl Node {
    /// A node for a move with no annotations.
    pub fn new(mv: Move) -> Node {
        Node {
            mv,
            comments_before: Vec::new(),
            nags: Vec::new(),
            comments_after: Vec::new(),
            nag_slots: Vec::new(),
            variations: Vec::new(),
        }
    }
}

/// A sequence of moves: the mainline or a variation.
///
/// However deep its variations nest, a line is walked, cloned, compared,
/// printed and dropped without recursion (see [`crate::tree`]).
#[derive(Default)]
pub struct Line {
    /// The moves.
    pub nodes: Vec<Node>,
    /// Comments after the last move's variations (or in an empty line).
    pub trailing_comments: Vec<String>,
}

/// A game: tags, starting position and the move tree.
///
/// Comments are stored with their whitespace normalised (trimmed, runs of
/// spaces and line breaks made one space), since line breaks in PGN are not
/// significant and the writer re-wraps text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The tag pairs.
    pub tags: Tags,
    /// The starting position (from SetUp/FEN, else the standard one).
    pub start: Position,
    /// The mainline, with variations hanging from its nodes.
    pub mainline: Line,
    /// The game-termination marker (the Result tag's value, or `*`, when the file had none).
    pub result: GameResult,
}

impl Game {
    /// An empty game from the standard starting position.
    pub fn new() -> Game {
        Game {
            tags: Tags::default(),
            start: Position::startpos(),
            mainline: Line::default(),
            result: GameResult::Unknown,
        }
    }

    /// The mainline moves.
    pub fn mainline_moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.mainline.nodes.iter().map(|n| n.mv)
    }

    /// The position after the last mainline move.
    pub fn end_position(&self) -> Position {
        let mut pos = self.start.clone();
        for m in self.mainline_moves() {
            pos.play_unchecked(m);
        }
        pos
    }

    /// The tags as exported: [`Tags::exported`], with the `Result` tag taken
    /// from the game-termination marker when the tag is missing or `*`.
    pub fn exported_tags(&self) -> Tags {
        let mut tags = self.tags.exported();
        if self.tags.get("Result").is_none_or(|r| r.trim() == "*") {
            tags.insert("Result", self.result.as_str().to_owned());
        }
        tags
    }

    /// The game's identity for messages: index and the White/Black/Date/Round tags.
    pub fn id(&self, index: usize) -> GameId {
        GameId::from_tags(index, &self.tags)
    }
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

/// Names a game in messages: its index in the input (from 1) and its players, date and round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameId {
    /// Index in the input, from 1.
    pub index: usize,
    /// White tag.
    pub white: Option<String>,
    /// Black tag.
    pub black: Option<String>,
    /// Date tag.
    pub date: Option<String>,
    /// Round tag.
    pub round: Option<String>,
}

impl GameId {
    /// Takes the identifying tags from `tags`.
    pub fn from_tags(index: usize, tags: &Tags) -> GameId {
        let t = |n: &str| tags.get(n).map(str::to_owned);
        GameId {
            index,
            white: t("White"),
            black: t("Black"),
            date: t("Date"),
            round: t("Round"),
        }
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let q = |v: &Option<String>| v.as_deref().unwrap_or("?").to_owned();
        write!(
            f,
            "game {} ({} - {}, {}, round {})",
            self.index,
            q(&self.white),
            q(&self.black),
            q(&self.date),
            q(&self.round)
        )
    }
}

/// Why a game could not be read to its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameErrorKind {
    /// A move that is illegal or ambiguous in its position.
    #[error("move {number}{} {text}: {source}", if *.color == Color::White { "." } else { "..." })]
    IllegalMove {
        /// The move number.
        number: u32,
        /// The side that was to move.
        color: Color,
        /// The move as written.
        text: String,
        /// Why it cannot be played.
        source: SanError,
    },
    /// The FEN tag is not a legal position.
    #[error("bad FEN tag {fen:?}: {reason}")]
    BadFen {
        /// The tag value.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A Variant tag naming rules other than chess and Chess960.
    #[error("unsupported variant {0:?} (only standard chess and Chess960 are played)")]
    UnsupportedVariant(String),
    /// A `{` comment (opened where the error points) that is not closed
    /// before the next game's tags.
    #[error("comment opened here is not closed; the next game starts at line {resumed_at}")]
    UnclosedComment {
        /// The line where the next game starts.
        resumed_at: u64,
    },
    /// A NUL byte where a tag or a move was expected: the input is binary
    /// data (a program, an image, an archive), not PGN text. See
    /// [`Problem::NotText`].
    #[error("not PGN text: a NUL byte where a tag or a move was expected (binary data?); {}",
        match .resumed_at {
            Some(line) => format!("skipped to line {line}, where a game starts"),
            None => "the rest of the input is skipped".to_owned(),
        })]
    NotText {
        /// The line where reading resumed at the next game, if one follows.
        resumed_at: Option<u64>,
    },
}

/// An error in one game: which game, where, and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {game}: {kind}")]
pub struct GameError {
    /// The game.
    pub game: GameId,
    /// Where in the input.
    pub at: Location,
    /// What went wrong.
    pub kind: GameErrorKind,
}

/// Something questionable that did not stop the game from being read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WarningKind {
    /// The termination marker disagrees with the Result tag.
    #[error("game-termination marker {marker} disagrees with the Result tag {tag:?}")]
    ResultMismatch {
        /// The Result tag.
        tag: String,
        /// The marker.
        marker: GameResult,
    },
    /// No game-termination marker.
    #[error("no game-termination marker")]
    MissingResult,
    /// A token that is not PGN, skipped.
    #[error("skipped unknown token {0:?}")]
    UnknownToken(String),
    /// A tag pair that could not be read, skipped.
    #[error("skipped malformed tag {0:?}")]
    BadTag(String),
    /// Other malformed input the reader stepped over.
    #[error("{0}")]
    Malformed(String),
    /// A NAG or variation with no move before it, skipped.
    #[error("{0} with no move before it, skipped")]
    NoMoveBefore(&'static str),
    /// A move read only leniently: written in a spelling neither standard
    /// SAN nor python-chess reads (`Pe4`, `o-o`), with a capture mark that
    /// does not tell the truth (`ed5`, `Nxf3` to an empty square), or
    /// castling written as a king move (`Kg1`). See [`Leniency`].
    #[error("move {number}{} {text} read as {read_as}: {leniency}", if *.color == Color::White { "." } else { "..." })]
    LenientMove {
        /// The move number.
        number: u32,
        /// The side that was to move.
        color: Color,
        /// The move as written.
        text: String,
        /// The move read, in standard SAN.
        read_as: String,
        /// How the text departs from standard SAN.
        leniency: Leniency,
    },
    /// The Result tag or the game-termination marker says other than the
    /// last position: a checkmate scored as a draw, a loss or `*`; a
    /// stalemate scored as a win or `*` (see [`crate::ending`]). At the tag
    /// or at the marker; one warning for both when they say the same.
    #[error("the final position is {ending}, but {by} says {stated}")]
    ResultContradicted {
        /// What the last position says.
        ending: Ending,
        /// The result stated.
        stated: GameResult,
        /// Where it is stated.
        by: ResultSource,
    },
}

/// A warning with its place in the input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {kind}")]
pub struct Warning {
    /// Where.
    pub at: Location,
    /// What.
    pub kind: WarningKind,
}

/// One game as read: the tree (up to the error, if any), the error, the warnings.
#[derive(Clone, Debug)]
pub struct ReadGame {
    /// Index of the game in the input, from 1.
    pub index: usize,
    /// Where the game starts.
    pub at: Location,
    /// The game (moves up to the first error).
    pub game: Game,
    /// The error that stopped the game, if any; the rest of the game was skipped.
    pub error: Option<GameError>,
    /// Warnings.
    pub warnings: Vec<Warning>,
    /// Where each tag pair stands, in input order: the index of its pair
    /// in `game.tags` (a repeated name sets the first pair again) and its
    /// location. [`ReadGame::tag_location`] looks one up by name.
    pub tag_locations: Vec<(usize, Location)>,
    /// Mainline plies read (up to the error, if any), at any [`Detail`]:
    /// `game.mainline.nodes.len()` unless the detail is [`Detail::Count`].
    pub plies: usize,
    /// What the last position says of the result (checkmate, stalemate),
    /// at any [`Detail`]: `None` while the side to move has a move, for a
    /// game without mainline moves (as pgn-extract, a starting position is
    /// not judged), and for a game with an error.
    pub ending: Option<Ending>,
    /// The Zobrist key ([`Position::hash`]) of the position after each
    /// mainline move, `plies` of them, at any [`Detail`] (the start's is
    /// `game.start.hash()`): what finds a game by the positions it passes
    /// through, transpositions included.
    pub keys: Vec<u64>,
    /// Variations (RAVs) read, at every depth, at any [`Detail`] (those
    /// after an error, which are skipped, are not counted).
    pub variations: usize,
    /// The movetext was skipped, unread and unchecked: a gate turned the
    /// game away on its tags ([`GameBuilder::set_gate`]); `plies` is 0.
    pub skipped: bool,
}

impl ReadGame {
    /// Where the tag pair `name` stands (the last one of that name), else
    /// where the game starts.
    pub fn tag_location(&self, name: &str) -> Location {
        locate_tag(&self.game.tags, &self.tag_locations, name).unwrap_or(self.at)
    }

    /// Gives the game another index (in its error's [`GameId`] too).
    pub fn renumber(&mut self, index: usize) {
        self.index = index;
        if let Some(e) = &mut self.error {
            e.game.index = index;
        }
    }
}

/// Where the tag pair `name` of `tags` stands (the last one of that name),
/// by `locations` (see [`ReadGame::tag_locations`]).
fn locate_tag(tags: &Tags, locations: &[(usize, Location)], name: &str) -> Option<Location> {
    locations
        .iter()
        .rev()
        .find(|&&(i, _)| tags.name_at(i) == Some(name))
        .map(|(_, at)| *at)
}

/// Normalises comment whitespace: trimmed, every run of (ASCII) whitespace
/// one space; invalid UTF-8 replaced (U+FFFD).
pub fn normalize_comment(raw: &[u8]) -> String {
    let raw = raw.trim_ascii();
    // Most comments are already normal: no control whitespace, no double
    // space. Checked with branch-free passes, then copied whole.
    let controls = raw
        .iter()
        .filter(|&&b| matches!(b, b'\t' | b'\n' | 0x0c | b'\r'))
        .count();
    let out = if controls == 0 && memchr::memmem::find(raw, b"  ").is_none() {
        raw.to_vec()
    } else {
        let mut out = Vec::with_capacity(raw.len());
        for word in raw
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty())
        {
            if !out.is_empty() {
                out.push(b' ');
            }
            out.extend_from_slice(word);
        }
        out
    };
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Whether a Variant tag value names standard chess or Chess960.
pub fn is_supported_variant(v: &str) -> bool {
    let v = v.trim().to_ascii_lowercase();
    matches!(
        v.as_str(),
        "" | "standard"
            | "chess"
            | "normal"
            | "from position"
            | "fromposition"
            | "chess960"
            | "chess 960"
            | "fischerandom"
            | "fischerrandom"
            | "fischer random"
            | "960"
    )
}

/// The starting position a game's tags ask for (SetUp/FEN, Variant).
///
/// # Errors
/// [`GameErrorKind::BadFen`] or [`GameErrorKind::UnsupportedVariant`].
pub fn start_position(tags: &Tags) -> Result<Position, GameErrorKind> {
    if let Some(v) = tags.get("Variant") {
        if !is_supported_variant(v) {
            return Err(GameErrorKind::UnsupportedVariant(v.to_owned()));
        }
    }
    match tags.get("FEN") {
        None => Ok(Position::startpos()),
        Some(fen) => {
            let bad = |reason: String| GameErrorKind::BadFen {
                fen: fen.to_owned(),
                reason,
            };
            let setup =
                Setup::from_fen(fen.trim(), Mode::Lenient).map_err(|e| bad(e.to_string()))?;
            let (pos, _warnings) = setup
                .into_position(Mode::Lenient)
                .map_err(|e| bad(e.to_string()))?;
            Ok(pos)
        }
    }
}

/// A move written in UCI coordinates, if `token` is one and it is legal.
/// The warning for `mv`, written `token` in `pos`, read with `leniency`.
#[cold]
fn lenient_move(pos: &Position, mv: Move, token: &[u8], leniency: Leniency) -> WarningKind {
    WarningKind::LenientMove {
        number: pos.fullmoves(),
        color: pos.turn(),
        text: String::from_utf8_lossy(token).into_owned(),
        read_as: SanPlus::from_move(pos, mv).to_string(),
        leniency,
    }
}

fn uci_fallback(pos: &Position, token: &[u8]) -> Option<Move> {
    let t = token
        .iter()
        .rposition(|b| !matches!(b, b'+' | b'#' | b'!' | b'?'))
        .map_or(token, |i| &token[..=i]);
    if !(4..=5).contains(&t.len()) {
        return None;
    }
    // Coordinates in lower case only, as python-chess reads them: `B8c7`
    // is a bishop's move written wrong, not the move from b8.
    if !(t[0].is_ascii_lowercase() && t[2].is_ascii_lowercase()) {
        return None;
    }
    UciMove::from_ascii(t).ok()?.to_move(pos).ok()
}

struct Frame {
    line: Line,
    /// Position after the line's last move.
    pos: Position,
    /// Position before the line's last move.
    prev: Position,
    /// Comments waiting for the next move.
    pending: Vec<String>,
    /// Moves played in the line (its nodes, unless the detail is [`Detail::Count`]).
    moves: usize,
}

/// Which games a [`GameBuilder`] reads past their tags: `true` to read the
/// game, `false` to skip its movetext ([`GameBuilder::set_gate`]).
pub type TagGate = std::sync::Arc<dyn Fn(&Tags) -> bool + Send + Sync>;

/// How much of each game a [`GameBuilder`] keeps.
///
/// Whatever it keeps, the builder plays and checks every move (in
/// variations too) and reports the same errors and warnings: a game reads
/// as an error game or not, with the same messages, at either detail.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Detail {
    /// The whole tree: comments, NAGs and variations.
    #[default]
    Full,
    /// The mainline moves only: no comments, no NAGs, no variations (they
    /// are played, checked and dropped). For readers that count or convert
    /// the mainline: nothing is allocated per comment or variation.
    Mainline,
    /// No moves at all: the mainline plies are only counted
    /// ([`ReadGame::plies`]; `game.mainline` stays empty). For readers that
    /// count or check (`pgn stats`, `pgn validate`): nothing is built per move.
    Count,
}

/// The visitor that builds [`ReadGame`]s: plays every move (in variations
/// too), records the first error and skips the rest of that game.
pub struct GameBuilder {
    index: usize,
    detail: Detail,
    at: Location,
    tags: Tags,
    start: Position,
    stack: Vec<Frame>,
    result: Option<(GameResult, Location)>,
    error: Option<GameError>,
    warnings: Vec<Warning>,
    /// Whether the game's moves are skipped (after an error).
    dead: bool,
    /// Which games to read past their tags (see [`GameBuilder::set_gate`]).
    gate: Option<TagGate>,
    /// The gate turned this game away: its movetext is skipped.
    gated: bool,
    /// Where the last move was (for warnings about what follows it).
    last_loc: Location,
    /// The move being read is in a non-standard spelling
    /// ([`Visitor::san_nonstandard`]).
    nonstandard: bool,
    tag_locations: Vec<(usize, Location)>,
    /// Keys of the mainline positions (see [`ReadGame::keys`]).
    keys: Vec<u64>,
    /// Variations opened in the game (see [`ReadGame::variations`]).
    variations: usize,
    /// Allocations of the games handed back by [`GameBuilder::recycle`].
    spare: Spare,
    /// The standard starting position (copied, not built, for every game).
    startpos: Position,
}

/// Most strings and vectors kept for reuse (beyond, they are freed: memory
/// stays flat whatever one game held).
const SPARE_LIMIT: usize = 256;

/// What [`GameBuilder::recycle`] keeps of finished games for the next ones,
/// so that reading a stream allocates nothing per game once warmed up.
#[derive(Default)]
struct Spare {
    /// Emptied tags.
    tags: Tags,
    /// An emptied tag-location vector.
    tag_locations: Vec<(usize, Location)>,
    /// An emptied key vector.
    keys: Vec<u64>,
    /// Emptied move vectors (for the mainline and variations).
    nodes: Vec<Vec<Node>>,
}

impl Spare {
    fn nodes(&mut self) -> Vec<Node> {
        self.nodes.pop().unwrap_or_default()
    }

    /// Keeps `nodes`' allocation if none of its moves has variations (a
    /// tree is dropped as a [`Line`], without recursion).
    fn keep_nodes(&mut self, mut nodes: Vec<Node>) {
        if self.nodes.len() < SPARE_LIMIT
            && nodes.capacity() > 0
            && nodes.iter().all(|n| n.variations.is_empty())
        {
            nodes.clear();
            self.nodes.push(nodes);
        } else {
            drop(Line {
                nodes,
                trailing_comments: Vec::new(),
            });
        }
    }
}

impl Default for GameBuilder {
    fn default() -> GameBuilder {
        GameBuilder::new()
    }
}

impl GameBuilder {
    /// A builder; game indices start at 1.
    pub fn new() -> GameBuilder {
        GameBuilder::starting_at(1)
    }

    /// A builder whose first game has index `index` (for reading a slice of a file).
    pub fn starting_at(index: usize) -> GameBuilder {
        GameBuilder {
            index,
            detail: Detail::Full,
            at: Location::default(),
            tags: Tags::default(),
            start: Position::startpos(),
            stack: Vec::new(),
            result: None,
            error: None,
            warnings: Vec::new(),
            dead: false,
            gate: None,
            gated: false,
            last_loc: Location::default(),
            nonstandard: false,
            tag_locations: Vec::new(),
            keys: Vec::new(),
            variations: 0,
            spare: Spare::default(),
            startpos: Position::startpos(),
        }
    }

    /// Takes back a game this builder made, once the caller is done with
    /// it: its strings and vectors are reused for the next games, so that
    /// a stream is read without allocating per game or per tag.
    pub fn recycle(&mut self, game: ReadGame) {
        let ReadGame {
            game,
            tag_locations,
            mut keys,
            ..
        } = game;
        let Game {
            tags, mut mainline, ..
        } = game;
        let mut tags = tags;
        tags.clear();
        self.spare.tags = tags;
        let mut locations = tag_locations;
        locations.clear();
        if locations.capacity() > self.spare.tag_locations.capacity() {
            self.spare.tag_locations = locations;
        }
        keys.clear();
        if keys.capacity() > self.spare.keys.capacity() {
            self.spare.keys = keys;
        }
        self.spare.keep_nodes(std::mem::take(&mut mainline.nodes));
    }

    /// A fresh frame for a line starting at `pos`.
    fn frame(&mut self, pos: Position) -> Frame {
        Frame {
            line: Line {
                nodes: self.spare.nodes(),
                trailing_comments: Vec::new(),
            },
            prev: pos.clone(),
            pos,
            pending: Vec::new(),
            moves: 0,
        }
    }

    /// Keeps `detail` of each game (see [`Detail`]).
    #[must_use]
    pub fn with_detail(mut self, detail: Detail) -> GameBuilder {
        self.detail = detail;
        self
    }

    /// Reads past the tags only the games `gate` lets through: a game it
    /// turns away (its tags alone decide, as a filter on tags does) has
    /// its movetext skipped, unread and unchecked ([`ReadGame::skipped`]).
    /// Errors in its tags (a bad FEN) are still found.
    pub fn set_gate(&mut self, gate: Option<TagGate>) {
        self.gate = gate;
    }

    /// Sets the tag pair `name` (the one of that name, else a new one), as
    /// [`Tags::insert`] does; returns its index in the tags.
    fn set_tag(&mut self, name: &[u8], value: RawTag<'_>) -> usize {
        let write = |text: &mut String| value.decode_into(text);
        if name.is_ascii() {
            // SAFETY: ASCII is valid UTF-8 (just checked).
            let name = unsafe { std::str::from_utf8_unchecked(name) };
            self.tags.set_with(name, write)
        } else {
            self.tags.set_with(&String::from_utf8_lossy(name), write)
        }
    }

    fn warn(&mut self, at: Location, kind: WarningKind) {
        self.warnings.push(Warning { at, kind });
    }

    fn fail(&mut self, at: Location, kind: GameErrorKind) {
        if self.error.is_none() {
            self.error = Some(GameError {
                game: GameId::from_tags(self.index, &self.tags),
                at,
                kind,
            });
        }
        self.dead = true;
    }

    #[inline]
    fn top(&mut self) -> &mut Frame {
        // The stack always holds the mainline frame between end_tags and end_game.
        if self.stack.is_empty() {
            self.push_mainline();
        }
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    fn keep_comment(&mut self, comment: RawComment<'_>) {
        let text = normalize_comment(comment.as_bytes());
        let frame = self.top();
        match frame.line.nodes.last_mut() {
            Some(node) if node.variations.is_empty() && frame.pending.is_empty() => {
                node.comments_after.push(text);
            }
            _ => frame.pending.push(text),
        }
    }

    /// Warns where the Result tag or the game-termination marker says
    /// other than `ending` (once, at the tag, when both say the same).
    fn contradicted_result(&mut self, ending: Ending) {
        let want = ending.result();
        let tag = self
            .tags
            .get("Result")
            .and_then(|t| GameResult::from_ascii(t.trim().as_bytes()));
        if let Some(stated) = tag.filter(|&t| t != want) {
            let at = locate_tag(&self.tags, &self.tag_locations, "Result").unwrap_or(self.at);
            let by = ResultSource::Tag;
            self.warn(at, WarningKind::ResultContradicted { ending, stated, by });
        }
        if let Some((marker, at)) = self.result {
            if marker != want && tag != Some(marker) {
                let (stated, by) = (marker, ResultSource::Marker);
                self.warn(at, WarningKind::ResultContradicted { ending, stated, by });
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn push_mainline(&mut self) {
        let frame = self.frame(self.start.clone());
        self.stack.push(frame);
    }
}

impl Visitor for GameBuilder {
    type Output = ReadGame;

    fn begin_game(&mut self, at: Location) {
        self.at = at;
        self.last_loc = at;
        self.tags = std::mem::take(&mut self.spare.tags);
        while let Some(mut frame) = self.stack.pop() {
            self.spare.keep_nodes(std::mem::take(&mut frame.line.nodes));
        }
        self.result = None;
        self.error = None;
        self.warnings = Vec::new();
        self.dead = false;
        self.gated = false;
        self.variations = 0;
        self.start.clone_from(&self.startpos);
        self.tag_locations = std::mem::take(&mut self.spare.tag_locations);
        self.keys = std::mem::take(&mut self.spare.keys);
    }

    fn tag(&mut self, name: &[u8], value: RawTag<'_>) {
        self.set_tag(name, value);
    }

    fn tag_at(&mut self, name: &[u8], value: RawTag<'_>, at: Location) {
        let i = self.set_tag(name, value);
        self.tag_locations.push((i, at));
    }

    fn end_tags(&mut self) -> Skip {
        // Without FEN and Variant tags the game starts from the standard
        // position, which `begin_game` put there.
        if self.tags.get("FEN").is_some() || self.tags.get("Variant").is_some() {
            match start_position(&self.tags) {
                Ok(pos) => self.start = pos,
                Err(kind) => {
                    // At the tag that is wrong.
                    let tag = match kind {
                        GameErrorKind::UnsupportedVariant(_) => "Variant",
                        _ => "FEN",
                    };
                    let at = locate_tag(&self.tags, &self.tag_locations, tag).unwrap_or(self.at);
                    self.fail(at, kind);
                }
            }
        }
        if !self.dead && self.gate.as_ref().is_some_and(|pass| !pass(&self.tags)) {
            self.gated = true;
        }
        // Comments among the tags wait for the first move.
        let pending = self.stack.pop().map(|f| f.pending).unwrap_or_default();
        self.stack.clear();
        self.top().pending = pending;
        Skip(self.dead || self.gated)
    }

    fn san_nonstandard(&mut self, san: SanPlus, token: &[u8], at: Location) {
        self.nonstandard = true;
        self.san(san, token, at);
    }

    fn san(&mut self, san: SanPlus, token: &[u8], at: Location) {
        self.last_loc = at;
        let nonstandard = std::mem::take(&mut self.nonstandard);
        if self.dead {
            return;
        }
        let keep = self.detail != Detail::Count;
        let mainline = self.stack.len() <= 1;
        // The top frame, borrowed apart from the warnings.
        if self.stack.is_empty() {
            self.push_mainline();
        }
        let last = self.stack.len() - 1;
        let frame = &mut self.stack[last];
        let mv = match san.san {
            San::Null => Ok((Move::NULL, None)),
            ref s => s.to_move_lenient(&frame.pos),
        };
        // Coordinate notation written where SAN belongs (g1f3, e7e8q).
        let mv = mv.or_else(|source| {
            uci_fallback(&frame.pos, token)
                .map(|m| (m, None))
                .ok_or(source)
        });
        match mv {
            Ok((mv, leniency)) => {
                if nonstandard || leniency.is_some() {
                    let spelling = nonstandard.then_some(Leniency::Spelling);
                    for l in [spelling, leniency].into_iter().flatten() {
                        let kind = lenient_move(&frame.pos, mv, token, l);
                        self.warnings.push(Warning { at, kind });
                    }
                }
                if keep {
                    let mut node = Node::new(mv);
                    node.comments_before = std::mem::take(&mut frame.pending);
                    frame.line.nodes.push(node);
                }
                frame.moves += 1;
                frame.prev.clone_from(&frame.pos);
                frame.pos.play_unchecked(mv);
                let key = frame.pos.hash();
                if mainline {
                    self.keys.push(key);
                }
            }
            Err(source) => {
                let (number, color) = (frame.pos.fullmoves(), frame.pos.turn());
                self.fail(
                    at,
                    GameErrorKind::IllegalMove {
                        number,
                        color,
                        text: String::from_utf8_lossy(token).into_owned(),
                        source,
                    },
                );
            }
        }
    }

    fn nag(&mut self, nag: Nag) {
        let at = self.last_loc;
        self.nag_at(nag, at);
    }

    fn nag_at(&mut self, nag: Nag, at: Location) {
        if self.dead {
            return;
        }
        let lean = self.detail != Detail::Full;
        let frame = self.top();
        match frame.line.nodes.last_mut() {
            _ if lean && frame.moves > 0 => {}
            Some(node) => {
                // Keep where the NAG stood among the comments after the move.
                if !node.comments_after.is_empty() || !node.nag_slots.is_empty() {
                    node.nag_slots.resize(node.nags.len(), 0);
                    node.nag_slots.push(node.comments_after.len());
                }
                node.nags.push(nag);
            }
            None => self.warn(at, WarningKind::NoMoveBefore("NAG")),
        }
    }

    #[inline]
    fn comment(&mut self, comment: RawComment<'_>) {
        // Cheap to skip (inlined into the reader) where comments are not kept.
        if !self.dead && self.detail == Detail::Full {
            self.keep_comment(comment);
        }
    }

    fn begin_variation(&mut self) -> Skip {
        let at = self.last_loc;
        self.begin_variation_at(at)
    }

    fn begin_variation_at(&mut self, at: Location) -> Skip {
        if self.dead {
            return Skip(true);
        }
        let frame = self.top();
        if frame.moves == 0 {
            self.warn(at, WarningKind::NoMoveBefore("variation"));
            return Skip(true);
        }
        let start = frame.prev.clone();
        let frame = self.frame(start);
        self.stack.push(frame);
        self.variations += 1;
        Skip(false)
    }

    fn end_variation(&mut self) {
        if self.stack.len() < 2 {
            return;
        }
        let Some(mut frame) = self.stack.pop() else {
            return;
        };
        if self.detail != Detail::Full {
            // Played and checked; not kept.
            self.spare.keep_nodes(std::mem::take(&mut frame.line.nodes));
            return;
        }
        frame.line.trailing_comments = std::mem::take(&mut frame.pending);
        if let Some(parent) = self.stack.last_mut() {
            if let Some(node) = parent.line.nodes.last_mut() {
                node.variations.push(frame.line);
            }
        }
    }

    fn result(&mut self, result: GameResult, at: Location) {
        self.result = Some((result, at));
    }

    fn problem(&mut self, problem: Problem<'_>, at: Location) {
        let kind = match problem {
            Problem::UnknownToken(t) => {
                WarningKind::UnknownToken(String::from_utf8_lossy(t).into_owned())
            }
            Problem::BadTag(t) => WarningKind::BadTag(String::from_utf8_lossy(t).into_owned()),
            Problem::UnterminatedComment => {
                WarningKind::Malformed("comment not closed before the end of the input".into())
            }
            Problem::UnclosedComment { resumed_at } => {
                self.fail(at, GameErrorKind::UnclosedComment { resumed_at });
                return;
            }
            Problem::NotText { resumed_at } => {
                self.fail(at, GameErrorKind::NotText { resumed_at });
                return;
            }
            Problem::UnmatchedClose => WarningKind::Malformed("')' with no open variation".into()),
            Problem::UnclosedVariations(n) => WarningKind::Malformed(format!(
                "{n} variation(s) not closed at the end of the game"
            )),
            Problem::ResultInVariation(r) => {
                WarningKind::Malformed(format!("game-termination marker {r} inside a variation"))
            }
            Problem::TokenTooLong => WarningKind::Malformed("over-long token skipped".into()),
        };
        self.warn(at, kind);
    }

    fn end_game(&mut self) -> ReadGame {
        // Fold any variations left open (after an error) back into the tree.
        while self.stack.len() > 1 {
            self.end_variation();
        }
        let mut mainline = Line::default();
        let mut plies = 0;
        let mut ending = None;
        if let Some(mut frame) = self.stack.pop() {
            frame.line.trailing_comments = std::mem::take(&mut frame.pending);
            mainline = frame.line;
            plies = frame.moves;
            if plies > 0 && self.error.is_none() {
                ending = Ending::of(&frame.pos);
            }
        }
        let tag = self.tags.get("Result");
        let result = match self.result {
            Some((marker, at)) => {
                if let Some(tag) = tag {
                    if GameResult::from_ascii(tag.trim().as_bytes()) != Some(marker) {
                        let tag = tag.to_owned();
                        self.warn(at, WarningKind::ResultMismatch { tag, marker });
                    }
                }
                marker
            }
            None => {
                let from_tag = tag.and_then(|t| GameResult::from_ascii(t.trim().as_bytes()));
                // Binary data has no marker: its error says enough.
                let binary = matches!(
                    self.error,
                    Some(GameError {
                        kind: GameErrorKind::NotText { .. },
                        ..
                    })
                );
                if !binary {
                    let at = self.last_loc;
                    self.warn(at, WarningKind::MissingResult);
                }
                from_tag.unwrap_or(GameResult::Unknown)
            }
        };
        if let Some(ending) = ending {
            self.contradicted_result(ending);
        }
        let game = Game {
            tags: std::mem::take(&mut self.tags),
            start: self.start.clone(),
            mainline,
            result,
        };
        let out = ReadGame {
            index: self.index,
            at: self.at,
            game,
            error: self.error.take(),
            warnings: std::mem::take(&mut self.warnings),
            tag_locations: std::mem::take(&mut self.tag_locations),
            plies,
            ending,
            keys: std::mem::take(&mut self.keys),
            variations: self.variations,
            skipped: self.gated,
        };
        self.index += 1;
        out
    }
}

/// Reads games one by one from a [`Reader`], building trees.
pub struct Games<R> {
    reader: Reader<R>,
    builder: GameBuilder,
}

impl<R: Read> Games<R> {
    /// Reads past the tags only the games `gate` lets through (see
    /// [`GameBuilder::set_gate`]).
    pub fn set_gate(&mut self, gate: Option<TagGate>) {
        self.builder.set_gate(gate);
    }

    /// Games from `input`, indexed from 1.
    pub fn new(input: R) -> Games<R> {
        Games {
            reader: Reader::new(input),
            builder: GameBuilder::new(),
        }
    }

    /// Games from `reader`, the first with index `first_index`.
    pub fn from_reader(reader: Reader<R>, first_index: usize) -> Games<R> {
        Games {
            reader,
            builder: GameBuilder::starting_at(first_index),
        }
    }

    /// Keeps `detail` of each game (see [`Detail`]).
    #[must_use]
    pub fn with_detail(mut self, detail: Detail) -> Games<R> {
        self.builder = std::mem::take(&mut self.builder).with_detail(detail);
        self
    }

    /// Bytes of the input consumed so far.
    pub fn offset(&self) -> u64 {
        self.reader.offset()
    }

    /// Hands a game back for its allocations to be reused (see
    /// [`GameBuilder::recycle`]).
    pub fn recycle(&mut self, game: ReadGame) {
        self.builder.recycle(game);
    }

    /// Where the reader stood when the input ran out (see [`Reader::end_state`]).
    pub fn end_state(&self) -> crate::reader::EndState {
        self.reader.end_state()
    }

    /// The reader (for where it stands, what it holds: [`Reader::held_bytes`]).
    pub fn reader(&self) -> &Reader<R> {
        &self.reader
    }

    /// The reader, for what it holds (see [`Reader::into_bytes`]).
    pub fn into_reader(self) -> Reader<R> {
        self.reader
    }
}

impl<R: Read> Iterator for Games<R> {
    type Item = std::io::Result<ReadGame>;
    fn next(&mut self) -> Option<Self::Item> {
        self.reader.read_game(&mut self.builder).transpose()
    }
}

/// The FEN of a position as a `String` (for messages and summaries).
pub fn fen_of(pos: &Position) -> String {
    Fen::from_position(pos).to_string()
}

#[cfg(test)]
mod tests;
