//! `rookery.pgn.read_game(handle)` in Rust: a game's text read from a Python
//! text handle line by line by the rules of rookery's (python-chess's)
//! `read_game`, and its movetext parsed by rookery-pgn's [`Reader`] into a
//! compact description the Python layer turns into a game tree (lazily).
//!
//! [`read_game_text`] reads the lines: the tags (by python-chess's tag-line
//! pattern, values as written), then the movetext up to an empty line outside
//! a comment, or up to a line that starts with `[` outside a comment, which
//! is given back to the handle (where it can seek) for the next game.
//!
//! [`parse_movetext`] plays the movetext of a game from the standard start
//! position as python-chess's `GameBuilder` builds it (comments, starting
//! comments, NAGs, variations, errors kept and the rest of their variation
//! skipped). Anything it is not sure to read as the Python tokenizer reads it
//! (a problem rookery-pgn's reader reports, a non-standard spelling, a null
//! move, `;` comments, text after the result) makes it return `None`: the
//! Python layer then reads that game's text with its own tokenizer.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple, PyType};
use rookery_core::{CastlingMode, Position, San, SanError, SanPlus};
use rookery_pgn::game::SEVEN_TAG_ROSTER;
use rookery_pgn::{GameResult, Location, Nag, Problem, RawComment, Reader, Skip, Visitor};

use crate::board::Move;

/// Whether Python's `str.isspace` holds for `c` (Rust's `char::is_whitespace`
/// and the four information separators Python also counts).
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`.
fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// A tag line (already stripped) as python-chess's pattern
/// `\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+"(.*)"\s*\]` reads it: the name and
/// the value as written (escapes and all).
fn tag_line(s: &str) -> Option<(&str, &str)> {
    let rest = s.strip_prefix('[')?;
    let name_len = rest
        .bytes()
        .take_while(|&b| b.is_ascii_alphanumeric() || b"_+#=:-".contains(&b))
        .count();
    if name_len == 0 || !rest.as_bytes()[0].is_ascii_alphanumeric() {
        return None;
    }
    let (name, rest) = rest.split_at(name_len);
    let after_space = rest.trim_start_matches(is_py_space);
    if after_space.len() == rest.len() {
        return None;
    }
    let quoted = after_space.strip_prefix('"')?;
    let inner = quoted.strip_suffix(']')?.trim_end_matches(is_py_space);
    let value = inner.strip_suffix('"')?;
    if value.contains('\n') {
        return None;
    }
    Some((name, value))
}

/// Where a line leaves the movetext: inside a `{` comment or not, and
/// whether a `;` comment was met (outside `{` comments).
fn scan_line(line: &str, mut in_comment: bool, line_comment: &mut bool) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    loop {
        if in_comment {
            match b[i..].iter().position(|&c| c == b'}') {
                None => return true,
                Some(j) => {
                    i += j + 1;
                    in_comment = false;
                }
            }
        } else {
            match b[i..].iter().position(|&c| c == b'{' || c == b';') {
                None => return false,
                Some(j) if b[i + j] == b';' => {
                    *line_comment = true;
                    return false;
                }
                Some(j) => {
                    i += j + 1;
                    in_comment = true;
                }
            }
        }
    }
}

/// The lines of a Python text handle, counted from where a game's reading
/// started, so that the last one can be given back.
struct Lines<'py> {
    handle: Bound<'py, PyAny>,
    readline: Bound<'py, PyAny>,
    start: Option<Bound<'py, PyAny>>,
    count: usize,
}

impl<'py> Lines<'py> {
    fn open(handle: &Bound<'py, PyAny>) -> PyResult<Lines<'py>> {
        let seekable = handle
            .call_method0("seekable")
            .and_then(|s| s.is_truthy())
            .unwrap_or(false);
        let start = if seekable {
            Some(handle.call_method0("tell")?)
        } else {
            None
        };
        Ok(Lines {
            handle: handle.clone(),
            readline: handle.getattr("readline")?,
            start,
            count: 0,
        })
    }

    /// The next line (BOM dropped, `\r\n` as `\n`); empty at the end.
    fn read_line(&mut self) -> PyResult<String> {
        self.count += 1;
        let line = self.readline.call0()?;
        let mut text: String = line.extract()?;
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        if text.contains('\r') {
            text = text.replace("\r\n", "\n");
        }
        Ok(text)
    }

    /// Gives the last line read back to the handle: seeks to where the
    /// game's reading started and reads the lines before it again (where
    /// the handle can seek; python-chess's `tell` before every line costs
    /// more than this on a text handle). A handle that cannot seek loses it.
    fn unread(&mut self) -> PyResult<()> {
        let Some(start) = &self.start else {
            return Ok(());
        };
        self.handle.call_method1("seek", (start,))?;
        for _ in 1..self.count {
            self.readline.call0()?;
        }
        Ok(())
    }
}

/// A game's text as [`read_text`] reads it: the tags (name, value as
/// written), the movetext (the lines the movetext tokenizer reads, in
/// order), and whether the movetext has a `;` comment.
type GameText = (Vec<(String, String)>, String, bool);

/// What [`read_text_from`] read.
enum Text {
    /// A game.
    Game(GameText),
    /// The end of the input.
    End,
    /// A line the source cannot give as the handle would: nothing read.
    GaveUp,
}

/// Where [`read_text_from`] reads lines.
trait LineSource {
    /// The next line (BOM dropped, `\r\n` as `\n`), empty at the end; None
    /// if the source cannot give it as the handle's `readline` would.
    fn read(&mut self) -> PyResult<Option<String>>;
    /// Gives the last line read back to the handle.
    fn unread(&mut self) -> PyResult<()>;
}

impl LineSource for Lines<'_> {
    fn read(&mut self) -> PyResult<Option<String>> {
        self.read_line().map(Some)
    }

    fn unread(&mut self) -> PyResult<()> {
        Lines::unread(self)
    }
}

/// The lines of a text handle that is a plain file opened as UTF-8
/// (`io.TextIOWrapper` over an `io.BufferedReader`), read as bytes from its
/// buffer, a byte position kept: the handle is then put where the game
/// ends with one `seek`, with no `tell` before each game (a `tell` after a
/// `seek` costs nothing, one after reading text decodes again) and no line
/// read twice to give one back. Only for a handle that reads universal
/// newlines; a line with a `\r` (which the handle reads its own way) or
/// that is not UTF-8 makes it give up.
struct ByteLines<'py> {
    handle: Bound<'py, PyAny>,
    readline: Bound<'py, PyAny>,
    /// Where the game's reading started, in bytes.
    start: u64,
    /// The bytes read since, and the length of the last line.
    used: u64,
    last: u64,
}

/// `io.TextIOWrapper` and `io.BufferedReader`.
static FILE_TYPES: PyOnceLock<(Py<PyType>, Py<PyType>)> = PyOnceLock::new();

impl<'py> ByteLines<'py> {
    /// The byte lines of `handle` if it is a UTF-8 file whose position is
    /// a byte offset (no decoder state), its buffer put there; None
    /// otherwise (nothing read).
    fn open(handle: &Bound<'py, PyAny>) -> PyResult<Option<ByteLines<'py>>> {
        let py = handle.py();
        let (text_type, buffered_type) = FILE_TYPES.get_or_try_init(py, || -> PyResult<_> {
            let io = py.import("io")?;
            Ok((
                io.getattr("TextIOWrapper")?.cast_into::<PyType>()?.unbind(),
                io.getattr("BufferedReader")?
                    .cast_into::<PyType>()?
                    .unbind(),
            ))
        })?;
        if !handle.get_type().is(text_type.bind(py)) {
            return Ok(None);
        }
        let buffer = handle.getattr("buffer")?;
        if !buffer.get_type().is(buffered_type.bind(py)) {
            return Ok(None);
        }
        let encoding: String = handle.getattr("encoding")?.extract()?;
        if !matches!(
            encoding.to_ascii_lowercase().as_str(),
            "utf-8" | "utf8" | "utf_8"
        ) {
            return Ok(None);
        }
        // A handle that cannot tell (iterated by `next()`, closed) is left
        // to the line-by-line reader, which raises what it raises.
        let Ok(start) = handle.call_method0("tell") else {
            return Ok(None);
        };
        // A cookie past 64 bits carries decoder state: not a byte offset.
        let Ok(start) = start.extract::<u64>() else {
            return Ok(None);
        };
        // Lines split at `\n` as the handle splits them: a handle reading
        // universal newlines (`newline=None` or `''`; the others split at
        // `\r` or `\r\n` only) says which newlines it has seen, once it
        // has seen one; one that has not yet reads a line to see (a seek
        // keeps what it saw, but to the start of the file).
        if handle.getattr("newlines")?.is_none() {
            let seen =
                handle.call_method0("readline").is_ok() && !handle.getattr("newlines")?.is_none();
            handle.call_method1("seek", (start,))?;
            if !seen {
                return Ok(None);
            }
        }
        buffer.call_method1("seek", (start,))?;
        Ok(Some(ByteLines {
            handle: handle.clone(),
            readline: buffer.getattr("readline")?,
            start,
            used: 0,
            last: 0,
        }))
    }

    /// Puts the handle right after the lines read and not given back.
    fn finish(&self) -> PyResult<()> {
        self.handle
            .call_method1("seek", (self.start + self.used,))?;
        Ok(())
    }

    /// Puts the handle back where the game's reading started.
    fn restore(&self) -> PyResult<()> {
        self.handle.call_method1("seek", (self.start,))?;
        Ok(())
    }
}

impl LineSource for ByteLines<'_> {
    fn read(&mut self) -> PyResult<Option<String>> {
        let line = self.readline.call0()?;
        let bytes = line.cast::<PyBytes>()?.as_bytes();
        if bytes.contains(&b'\r') {
            return Ok(None);
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Ok(None);
        };
        self.last = bytes.len() as u64;
        self.used += self.last;
        Ok(Some(
            text.strip_prefix('\u{feff}').unwrap_or(text).to_owned(),
        ))
    }

    fn unread(&mut self) -> PyResult<()> {
        self.used -= self.last;
        self.last = 0;
        Ok(())
    }
}

/// Reads the text of the next game of a text handle (see
/// [`read_game_text`]); None at the end of the input.
fn read_text(handle: &Bound<'_, PyAny>) -> PyResult<Option<GameText>> {
    if let Some(mut lines) = ByteLines::open(handle)? {
        match read_text_from(&mut lines)? {
            Text::Game(got) => {
                lines.finish()?;
                return Ok(Some(got));
            }
            Text::End => {
                lines.finish()?;
                return Ok(None);
            }
            Text::GaveUp => lines.restore()?,
        }
    }
    match read_text_from(&mut Lines::open(handle)?)? {
        Text::Game(got) => Ok(Some(got)),
        Text::End | Text::GaveUp => Ok(None),
    }
}

/// The next line of `$lines`, or a return of [`Text::GaveUp`].
macro_rules! next_line {
    ($lines:expr) => {
        match $lines.read()? {
            Some(line) => line,
            None => return Ok(Text::GaveUp),
        }
    };
}

/// Reads the text of the next game from `lines`, by python-chess's rules.
fn read_text_from(lines: &mut impl LineSource) -> PyResult<Text> {
    let mut line = next_line!(lines);
    while !line.is_empty() && {
        let s = py_strip(&line);
        s.is_empty() || s.starts_with('%')
    } {
        line = next_line!(lines);
    }
    if line.is_empty() {
        return Ok(Text::End);
    }
    let mut tags = Vec::new();
    let mut empty_lines = 0;
    while !line.is_empty() {
        let s = py_strip(&line);
        if s.starts_with('%') {
            line = next_line!(lines);
            continue;
        }
        if s.is_empty() {
            empty_lines += 1;
            if empty_lines > 1 {
                break;
            }
            line = next_line!(lines);
            continue;
        }
        if !s.starts_with('[') {
            break;
        }
        empty_lines = 0;
        if let Some((name, value)) = tag_line(s) {
            tags.push((name.to_owned(), value.to_owned()));
        }
        line = next_line!(lines);
    }
    let mut text = String::new();
    let (mut in_comment, mut started, mut line_comment) = (false, false, false);
    while !line.is_empty() {
        if in_comment {
            text.push_str(&line);
            in_comment = scan_line(&line, true, &mut line_comment);
            line = next_line!(lines);
            continue;
        }
        let s = py_strip(&line);
        if s.is_empty() {
            if started {
                break;
            }
        } else if s.starts_with('[') {
            lines.unread()?;
            break;
        } else if !s.starts_with('%') {
            started = true;
            text.push_str(&line);
            in_comment = scan_line(&line, false, &mut line_comment);
        }
        line = next_line!(lines);
    }
    Ok(Text::Game((tags, text, line_comment)))
}

/// The text of the next game of a text handle: its tags (name, value as
/// written) and its movetext (the lines the movetext tokenizer reads, in
/// order); None at the end of the input. The handle is left right after
/// the game. The third item says whether the movetext has a `;` comment.
#[pyfunction]
pub fn read_game_text<'py>(
    py: Python<'py>,
    handle: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let Some((tags, text, line_comment)) = read_text(handle)? else {
        return Ok(None);
    };
    Ok(Some((tags, text, line_comment).into_pyobject(py)?))
}

/// The next game of a text handle for python-chess's `GameBuilder`, read
/// and parsed in one call; None at the end of the input. The handle is
/// left right after the game.
///
/// `(roster, others, parsed)` when the movetext was parsed here (a game
/// from the standard start with no `;` comment, no `FEN` or `Variant` tag,
/// no line break in a tag value, and a movetext [`parse_movetext`]
/// reads): the Seven Tag Roster as a dict in its order (a missing tag with
/// its default), the other tags as a dict in the order they came, and
/// the movetext as read, a [`ParsedMovetext`]. Otherwise `(tags, movetext, None)` as
/// [`read_game_text`] gives them, for the Python tokenizer.
#[pyfunction]
pub fn read_game_parsed<'py>(
    py: Python<'py>,
    handle: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let Some((tags, text, line_comment)) = read_text(handle)? else {
        return Ok(None);
    };
    let plain = !line_comment
        && tags
            .iter()
            .all(|(name, value)| name != "FEN" && name != "Variant" && !value.contains('\r'));
    let parsed = if plain { parse(&text) } else { None };
    let Some(parsed) = parsed else {
        return Ok(Some((tags, text, py.None()).into_pyobject(py)?));
    };
    let roster = PyDict::new(py);
    for (name, value) in SEVEN_TAG_ROSTER {
        roster.set_item(name, value)?;
    }
    let others = PyDict::new(py);
    for (name, value) in &tags {
        if SEVEN_TAG_ROSTER.iter().any(|(seven, _)| seven == name) {
            roster.set_item(name, value)?;
        } else {
            others.set_item(name, value)?;
        }
    }
    let parsed = Bound::new(py, parsed)?;
    Ok(Some((roster, others, parsed).into_pyobject(py)?))
}

/// python-chess's tokenizer reads `core` as one SAN token (its pattern
/// `[NBKRQ]?[a-h]?[1-8]?[-x]?[a-h][1-8](=?[nbrqkNBRQK])?` or castling with
/// `O`), and not as a move of two squares (which its `parse_san` reads
/// with any piece).
fn plain_san(core: &[u8]) -> bool {
    if core == b"O-O" || core == b"O-O-O" {
        return true;
    }
    let mut i = 0;
    let at = |i: usize, f: &dyn Fn(u8) -> bool| core.get(i).is_some_and(|&b| f(b));
    let file = |b: u8| (b'a'..=b'h').contains(&b);
    let rank = |b: u8| (b'1'..=b'8').contains(&b);
    let piece = at(0, &|b| b"NBKRQ".contains(&b));
    if piece {
        i += 1;
    }
    // The destination is the last square before an optional promotion.
    let promo = match core.len().checked_sub(i) {
        Some(n) if n >= 2 => {
            let last = core[core.len() - 1];
            if b"nbrqkNBRQK".contains(&last) {
                if core.len() >= 2 && core[core.len() - 2] == b'=' {
                    2
                } else {
                    1
                }
            } else {
                0
            }
        }
        _ => return false,
    };
    let body = &core[i..core.len() - promo];
    if body.len() < 2 || !file(body[body.len() - 2]) || !rank(body[body.len() - 1]) {
        return false;
    }
    let mut from = &body[..body.len() - 2];
    if let Some((&last, rest)) = from.split_last() {
        if last == b'-' || last == b'x' {
            from = rest;
        }
    }
    let from_ok = match from {
        [] => true,
        [f] => file(*f) || rank(*f),
        [f, r] => file(*f) && rank(*r),
        _ => false,
    };
    // Both squares and no piece letter: python-chess's square-to-square
    // reading, left to the Python layer.
    from_ok && (piece || from.len() != 2)
}

/// One node of the game tree being built (index 0 is the game).
struct Node {
    parent: usize,
    comment: Option<String>,
    starting_comment: Option<String>,
    nags: Vec<u8>,
}

/// A line being read, the main line or a variation: the node it is at,
/// the position there, and the position before that node's move (None
/// until a move is played on this line), which a variation starts from.
/// Two positions a line, not one a node: no position is kept for long.
struct Line {
    node: usize,
    pos: Position,
    before: Option<Position>,
}

/// python-chess's `GameBuilder` over rookery-pgn's tokens.
struct Builder<'t> {
    text: &'t str,
    nodes: Vec<Node>,
    moves: Vec<Move>,
    /// The main line, then the variations open inside one another.
    stack: Vec<Line>,
    starting_comment: Option<String>,
    in_variation: bool,
    error_skip: bool,
    result: Option<&'static str>,
    errors: Vec<(u8, String)>,
    unsure: bool,
}

/// `a + " " + b` for comments met one after another.
fn join(to: &mut Option<String>, text: &str) {
    match to {
        Some(s) if !s.is_empty() => {
            s.push(' ');
            s.push_str(text);
        }
        _ => *to = Some(text.to_owned()),
    }
}

impl Builder<'_> {
    fn top(&self) -> usize {
        self.stack.last().map_or(0, |line| line.node)
    }
}

/// Error kinds handed to Python: `rookery.InvalidMoveError`,
/// `IllegalMoveError`, `AmbiguousMoveError`.
const INVALID: u8 = 0;
const ILLEGAL: u8 = 1;
const AMBIGUOUS: u8 = 2;

impl Visitor for Builder<'_> {
    type Output = ();

    fn san(&mut self, _san: SanPlus, token: &[u8], _at: Location) {
        if self.unsure || self.error_skip {
            return;
        }
        let mut core = token;
        while let Some((&last, rest)) = core.split_last() {
            if last != b'!' && last != b'?' {
                break;
            }
            core = rest;
        }
        if let Some((&last, rest)) = core.split_last() {
            if last == b'+' || last == b'#' {
                core = rest;
            }
        }
        if !plain_san(core) {
            self.unsure = true;
            return;
        }
        let top = self.top();
        let Some(line) = self.stack.last_mut() else {
            self.unsure = true;
            return;
        };
        let pos = &line.pos;
        let parsed = match SanPlus::from_ascii_strict(core) {
            Ok(parsed) => parsed,
            Err(_) => {
                let text = String::from_utf8_lossy(core);
                self.errors
                    .push((INVALID, format!("invalid san: '{text}'")));
                self.error_skip = true;
                return;
            }
        };
        if parsed.san == San::Null {
            self.unsure = true;
            return;
        }
        match parsed.san.to_move(pos) {
            Ok(m) => {
                let mut after = pos.clone();
                let out = Move::of(pos, m, CastlingMode::Standard);
                after.play_unchecked(m);
                self.nodes.push(Node {
                    parent: top,
                    comment: None,
                    starting_comment: self.starting_comment.take(),
                    nags: Vec::new(),
                });
                self.moves.push(out);
                line.before = Some(std::mem::replace(&mut line.pos, after));
                line.node = self.nodes.len() - 1;
                self.in_variation = true;
            }
            Err(e) => {
                let kind = if matches!(e, SanError::Ambiguous { .. }) {
                    AMBIGUOUS
                } else {
                    ILLEGAL
                };
                self.errors.push((kind, e.to_string()));
                self.error_skip = true;
            }
        }
    }

    fn san_nonstandard(&mut self, _san: SanPlus, _token: &[u8], _at: Location) {
        self.unsure = true;
    }

    fn nag(&mut self, nag: Nag) {
        if self.unsure || self.error_skip {
            return;
        }
        let top = self.top();
        let nags = &mut self.nodes[top].nags;
        if !nags.contains(&nag.0) {
            nags.push(nag.0);
        }
    }

    fn comment(&mut self, comment: RawComment<'_>) {
        if self.unsure || self.error_skip {
            return;
        }
        let Ok(text) = std::str::from_utf8(comment.as_bytes()) else {
            self.unsure = true;
            return;
        };
        let text = text.trim_matches([' ', '\t']);
        let top = self.top();
        if self.in_variation || (top == 0 && self.moves.is_empty()) {
            join(&mut self.nodes[top].comment, text);
        } else {
            join(&mut self.starting_comment, text);
        }
    }

    fn begin_variation(&mut self) -> Skip {
        if self.unsure || self.error_skip {
            return Skip(true);
        }
        let top = self.top();
        if top == 0 {
            // A bracket with no move to branch from: left to Python.
            self.unsure = true;
            return Skip(true);
        }
        // The variation starts where the move of the line's node was
        // played; a variation opened before any move of the line it is in
        // (`( (`) is left to Python.
        let Some(before) = self.stack.last().and_then(|line| line.before.clone()) else {
            self.unsure = true;
            return Skip(true);
        };
        self.stack.push(Line {
            node: self.nodes[top].parent,
            pos: before,
            before: None,
        });
        self.starting_comment = None;
        self.in_variation = false;
        Skip(false)
    }

    fn end_variation(&mut self) {
        if self.unsure {
            return;
        }
        self.error_skip = false;
        if self.stack.len() > 1 {
            self.stack.pop();
            self.in_variation = true;
        } else {
            self.unsure = true;
        }
    }

    fn result(&mut self, result: GameResult, at: Location) {
        let written = usize::try_from(at.offset)
            .ok()
            .and_then(|o| self.text.as_bytes().get(o..))
            .is_some_and(|rest| rest.starts_with(result.as_str().as_bytes()));
        if !written || self.stack.len() > 1 {
            self.unsure = true;
        } else if !self.error_skip {
            self.result = Some(result.as_str());
        }
    }

    fn problem(&mut self, _problem: Problem<'_>, _at: Location) {
        self.unsure = true;
    }

    fn end_game(&mut self) {}
}

/// The game tree a movetext (of a game from the standard starting
/// position) makes, as python-chess's `GameBuilder` makes it; None where
/// the Python tokenizer is to read it instead (see the module's comment).
///
/// The description: `(moves, parents, mainline, comments,
/// starting_comments, nags, result, errors)`: the moves of the nodes in
/// the order they are read (node `i + 1` is reached by `moves[i]`; node 0
/// is the game), their parents (None when the game has no variations:
/// each node's parent is the one before), the moves of the main line (None
/// when they are all the moves), `(node, text)` pairs, `(node, nag)`
/// pairs, the result marker, and `(kind, message)` errors (0 invalid, 1
/// illegal, 2 ambiguous SAN).
#[pyfunction]
pub fn parse_movetext<'py>(py: Python<'py>, text: &str) -> PyResult<Option<Bound<'py, PyTuple>>> {
    parse(text).map(|m| m.description(py)).transpose()
}

/// A movetext [`parse_movetext`] read, kept in Rust: `read_game` asks it
/// for the result and the errors at once, and for the moves of the main
/// line or the whole description only when the game is looked into (most
/// games a script skips never are: no Python object is made for their
/// moves).
#[pyclass(frozen, module = "rookery._rookery")]
pub struct ParsedMovetext {
    nodes: Vec<Node>,
    moves: Vec<Move>,
    result: Option<&'static str>,
    errors: Vec<(u8, String)>,
}

/// Reads a movetext as [`parse_movetext`] does.
fn parse(text: &str) -> Option<ParsedMovetext> {
    let mut b = Builder {
        text,
        nodes: vec![Node {
            parent: 0,
            comment: None,
            starting_comment: None,
            nags: Vec::new(),
        }],
        moves: Vec::new(),
        stack: vec![Line {
            node: 0,
            pos: Position::startpos(),
            before: None,
        }],
        starting_comment: None,
        in_variation: false,
        error_skip: false,
        result: None,
        errors: Vec::new(),
        unsure: false,
    };
    if !py_strip(text).is_empty() {
        let mut reader = Reader::from_bytes(text.as_bytes().to_vec(), crate::input::text_start());
        match reader.read_game(&mut b) {
            Ok(Some(())) => {
                let used = usize::try_from(reader.offset()).unwrap_or(usize::MAX);
                if !text
                    .get(used..)
                    .is_some_and(|rest| py_strip(rest).is_empty())
                {
                    b.unsure = true;
                }
            }
            Ok(None) | Err(_) => b.unsure = true,
        }
    }
    if b.unsure {
        return None;
    }
    Some(ParsedMovetext {
        nodes: b.nodes,
        moves: b.moves,
        result: b.result,
        errors: b.errors,
    })
}

impl ParsedMovetext {
    /// Whether every node's parent is the one before (no variations).
    fn linear(&self) -> bool {
        self.nodes
            .iter()
            .enumerate()
            .skip(1)
            .all(|(i, n)| n.parent == i - 1)
    }

    /// The moves of the main line: from the game, each node's first child.
    fn main_moves(&self) -> Vec<Move> {
        let mut first_child = vec![usize::MAX; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate().skip(1).rev() {
            first_child[n.parent] = i;
        }
        let mut main = Vec::new();
        let mut at = 0;
        while let Some(&next) = first_child.get(at).filter(|&&c| c != usize::MAX) {
            main.push(self.moves[next - 1]);
            at = next;
        }
        main
    }
}

#[pymethods]
impl ParsedMovetext {
    /// The result marker the movetext ends in, if any.
    #[getter]
    fn result(&self) -> Option<&'static str> {
        self.result
    }

    /// The errors met, as `(kind, message)` pairs (0 invalid, 1 illegal, 2
    /// ambiguous SAN).
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.errors.iter().cloned())
    }

    /// The moves of the main line, as a list of `Move`.
    fn mainline<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if self.linear() {
            PyList::new(py, self.moves.iter().copied())
        } else {
            PyList::new(py, self.main_moves())
        }
    }

    /// The description [`parse_movetext`] gives.
    fn description<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let moves = PyList::new(py, self.moves.iter().copied())?;
        let (parents, mainline) = if self.linear() {
            (py.None().into_bound(py), py.None().into_bound(py))
        } else {
            let parents = PyList::new(py, self.nodes.iter().skip(1).map(|n| n.parent))?;
            (
                parents.into_any(),
                PyList::new(py, self.main_moves())?.into_any(),
            )
        };
        let comments = PyList::empty(py);
        let starting = PyList::empty(py);
        let nags = PyList::empty(py);
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(c) = &n.comment {
                comments.append((i, c))?;
            }
            if let Some(c) = &n.starting_comment {
                starting.append((i, c))?;
            }
            for &nag in &n.nags {
                nags.append((i, nag))?;
            }
        }
        let result = self.result.into_pyobject(py)?.into_any();
        let errors = self.errors(py)?;
        PyTuple::new(
            py,
            [
                moves.into_any(),
                parents,
                mainline,
                comments.into_any(),
                starting.into_any(),
                nags.into_any(),
                result,
                errors.into_any(),
            ],
        )
    }

    /// Itself: it does not change.
    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Itself: it does not change.
    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    /// Pickled as its description, a tuple (which the game tree takes in
    /// its place).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let tuple = py.get_type::<PyTuple>();
        (tuple, (self.description(py)?,)).into_pyobject(py)
    }
}
