//! Splitting a collection into files: the names `rookery pgn split` gives
//! them.
//!
//! A [`Pattern`] (`{num}.pgn`, `part-{num:4}.pgn`, `{value}.pgn`) names the
//! files; [`Namer`] fills it in, with a number or with a tag's value made
//! safe as a file name ([`safe_name`]): no path separator, no control or
//! invisible formatting character, nothing a shell or Windows treats
//! specially (a leading `.` or `-`, a trailing `.` or space, the device
//! names `CON`, `NUL`, `COM1`...), at most [`MAX_VALUE_BYTES`] bytes (a
//! longer value is cut and keeps a hash of the whole, so values that share
//! a long prefix stay apart). Two values whose names would be the same,
//! also when told apart only by case (a case-insensitive file system would
//! make them one file), get `~2`, `~3`... in the order they first come.
//! A missing value is named [`UNKNOWN`].
//!
//! ```
//! use rookery_pgn::partition::{Namer, Pattern};
//!
//! let mut names = Namer::new("{value}.pgn".parse()?);
//! assert_eq!(names.for_value(Some("Tata Steel 2024")), "Tata Steel 2024.pgn");
//! assert_eq!(names.for_value(Some("../../etc/passwd")), "_._.._etc_passwd.pgn");
//! assert_eq!(names.for_value(Some("tata steel 2024")), "tata steel 2024~2.pgn");
//! assert_eq!(names.for_value(Some("Tata Steel 2024")), "Tata Steel 2024.pgn");
//! assert_eq!(names.for_value(None), "unknown.pgn");
//! let mut parts = Namer::new("part-{num:3}.pgn".parse()?);
//! assert_eq!(parts.for_number(7), "part-007.pgn");
//! # Ok::<(), rookery_pgn::partition::ParsePatternError>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::str::FromStr;

/// Most bytes a value takes in a file name.
pub const MAX_VALUE_BYTES: usize = 100;

/// Most bytes of a pattern besides its placeholders.
pub const MAX_PATTERN_BYTES: usize = 100;

/// Widest zero-padded number (`{num:W}`).
const MAX_WIDTH: usize = 20;

/// The name of a missing value (a tag that is absent, `?` or empty).
pub const UNKNOWN: &str = "unknown";

/// A pattern that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParsePatternError {
    /// A path separator or a character no file name should have.
    #[error("bad pattern {0:?}: a file name only (no '/', '\\\\', control characters)")]
    BadCharacter(String),
    /// A `{` that does not start `{num}`, `{num:W}` or `{value}`.
    #[error("bad pattern {0:?}: expected {{num}}, {{num:WIDTH}} or {{value}} in braces")]
    BadPlaceholder(String),
    /// No placeholder: every file would have the same name.
    #[error("bad pattern {0:?}: it needs {{num}} or {{value}}")]
    NoPlaceholder(String),
    /// Too long for file names.
    #[error("bad pattern {0:?}: longer than {MAX_PATTERN_BYTES} bytes besides its placeholders")]
    TooLong(String),
}

/// One piece of a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    /// The file's number, zero-padded to a width.
    Number(usize),
    /// The value, made safe.
    Value,
}

/// How the files of a split are named: text with `{num}` (the file's
/// number, from 1), `{num:W}` (zero-padded to W digits) or `{value}` (the
/// value of the field split by). A file name only: no directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pieces: Vec<Piece>,
}

impl Pattern {
    /// Whether the pattern has `{value}`.
    pub fn has_value(&self) -> bool {
        self.pieces.contains(&Piece::Value)
    }

    /// Whether the pattern has `{num}`.
    pub fn has_number(&self) -> bool {
        self.pieces.iter().any(|p| matches!(p, Piece::Number(_)))
    }

    fn fill(&self, n: u64, value: &str) -> String {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Number(w) => {
                    let _ = write!(out, "{n:0w$}", w = *w);
                }
                Piece::Value => out.push_str(value),
            }
        }
        out
    }
}

impl FromStr for Pattern {
    type Err = ParsePatternError;
    fn from_str(s: &str) -> Result<Pattern, ParsePatternError> {
        if s.chars().any(|c| bad_char(c) || c == '/' || c == '\\') {
            return Err(ParsePatternError::BadCharacter(s.to_owned()));
        }
        let mut pieces = Vec::new();
        let mut text_len = 0;
        let mut rest = s;
        while !rest.is_empty() {
            let Some(open) = rest.find('{') else {
                text_len += rest.len();
                pieces.push(Piece::Text(rest.to_owned()));
                break;
            };
            if open > 0 {
                text_len += open;
                pieces.push(Piece::Text(rest[..open].to_owned()));
            }
            let bad = || ParsePatternError::BadPlaceholder(s.to_owned());
            let close = rest[open..].find('}').ok_or_else(bad)? + open;
            let inner = &rest[open + 1..close];
            pieces.push(match inner {
                "value" => Piece::Value,
                "num" => Piece::Number(0),
                _ => match inner.strip_prefix("num:").map(str::parse::<usize>) {
                    Some(Ok(w)) if w <= MAX_WIDTH => Piece::Number(w),
                    _ => return Err(bad()),
                },
            });
            rest = &rest[close + 1..];
        }
        if pieces
            .iter()
            .any(|p| matches!(p, Piece::Text(t) if t.contains('}')))
        {
            return Err(ParsePatternError::BadPlaceholder(s.to_owned()));
        }
        if text_len > MAX_PATTERN_BYTES {
            return Err(ParsePatternError::TooLong(s.to_owned()));
        }
        let pattern = Pattern { pieces };
        if !pattern.has_value() && !pattern.has_number() {
            return Err(ParsePatternError::NoPlaceholder(s.to_owned()));
        }
        Ok(pattern)
    }
}

/// Characters a file name must not have: control characters, and
/// invisible ones that change how a name looks (zero-width, bidirectional
/// overrides, the byte-order mark).
fn bad_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}')
}

/// Characters Windows does not allow in a file name (beside the separators).
fn windows_reserved(c: char) -> bool {
    matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|')
}

/// Whether `name` is a Windows device name (`CON`, `NUL`, `COM1`...),
/// which Windows takes as the device, whatever extension follows.
fn is_device(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).trim_end();
    let upper = stem.to_ascii_uppercase();
    matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || (upper.len() == 4
            && (upper.starts_with("COM") || upper.starts_with("LPT"))
            && upper.as_bytes()[3].is_ascii_digit())
}

/// FNV-1a, 32 bits: a short, stable hash of a value for a cut name.
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// `value` as a safe part of a file name (see the module documentation).
pub fn safe_name(value: &str) -> String {
    let value = value.trim();
    let mut name: String = value
        .chars()
        .map(|c| {
            if bad_char(c) || c == '/' || c == '\\' || windows_reserved(c) {
                '_'
            } else {
                c
            }
        })
        .collect();
    if name.len() > MAX_VALUE_BYTES {
        let mut cut = MAX_VALUE_BYTES - 9;
        while !name.is_char_boundary(cut) {
            cut -= 1;
        }
        name.truncate(cut);
        let _ = write!(name, "~{:08x}", fnv1a(value.as_bytes()));
    }
    // Hidden files, `..`, and names a shell reads as options.
    if name.starts_with(['.', '-']) {
        name.replace_range(..1, "_");
    }
    // Windows drops trailing dots and spaces: each becomes `_`.
    let kept = name.trim_end_matches(['.', ' ']).len();
    let trailing = name.len() - kept;
    name.truncate(kept);
    name.extend(std::iter::repeat_n('_', trailing));
    if name.is_empty() {
        name.push('_');
    }
    if is_device(&name) {
        name.insert(0, '_');
    }
    name
}

/// Fills a [`Pattern`] in: the same value always gets the same name, two
/// values never do (not even told apart by case alone).
#[derive(Clone, Debug)]
pub struct Namer {
    pattern: Pattern,
    /// Names given, lower-cased.
    taken: HashSet<String>,
    /// The name of each value seen.
    names: HashMap<Option<String>, String>,
}

impl Namer {
    /// A namer for `pattern`.
    pub fn new(pattern: Pattern) -> Namer {
        Namer {
            pattern,
            taken: HashSet::new(),
            names: HashMap::new(),
        }
    }

    /// The pattern.
    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }

    /// The name of the file of `value` (`None`: missing).
    pub fn for_value(&mut self, value: Option<&str>) -> &str {
        let key = value.map(str::to_owned);
        if !self.names.contains_key(&key) {
            let safe = value.map_or_else(|| UNKNOWN.to_owned(), safe_name);
            let name = self.unique(0, &safe);
            self.names.insert(key.clone(), name);
        }
        &self.names[&key]
    }

    /// The name of file number `n`.
    pub fn for_number(&mut self, n: u64) -> String {
        self.unique(n, "")
    }

    /// The pattern filled with `n` and `safe` (with `~2`, `~3`... if the
    /// name is taken), marked taken.
    fn unique(&mut self, n: u64, safe: &str) -> String {
        let mut k = 1u64;
        loop {
            let value = if k == 1 {
                safe.to_owned()
            } else {
                format!("{safe}~{k}")
            };
            let mut name = self.pattern.fill(n, &value);
            if is_device(&name) {
                name.insert(0, '_');
            }
            if self.taken.insert(name.to_lowercase()) {
                return name;
            }
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_values_make_plain_names() {
        let cases = [
            ("../../etc", "_._.._etc"),
            ("..", "__"),
            (".", "_"),
            ("", "_"),
            ("-rf", "_rf"),
            ("a\u{0}b\nc\u{1b}[31m", "a_b_c_[31m"),
            ("C:\\x", "C__x"),
            ("what?*<>|\"", "what______"),
            ("end. ", "end_"),
            ("dots...", "dots___"),
            ("con", "_con"),
            ("COM1.x", "_COM1.x"),
            ("evil\u{202e}gnp.exe", "evil_gnp.exe"),
            ("Müller, Ö.", "Müller, Ö_"),
        ];
        for (value, want) in cases {
            assert_eq!(safe_name(value), want, "{value:?}");
        }
    }

    #[test]
    fn long_values_are_cut_and_stay_apart() {
        let a = "é".repeat(150) + "a";
        let b = "é".repeat(150) + "b";
        let (na, nb) = (safe_name(&a), safe_name(&b));
        assert!(na.len() <= MAX_VALUE_BYTES && nb.len() <= MAX_VALUE_BYTES);
        assert_ne!(na, nb);
        assert!(na.starts_with("éé"));
    }

    #[test]
    fn names_that_differ_by_case_or_by_safety_get_numbers() {
        let mut n = Namer::new("{value}.pgn".parse().unwrap());
        assert_eq!(n.for_value(Some("a/b")), "a_b.pgn");
        assert_eq!(n.for_value(Some("a_b")), "a_b~2.pgn");
        assert_eq!(n.for_value(Some("A_B")), "A_B~3.pgn");
        assert_eq!(n.for_value(Some("a_b~2")), "a_b~2~2.pgn");
        assert_eq!(n.for_value(Some("a/b")), "a_b.pgn");
        assert_eq!(n.for_value(Some("unknown")), "unknown.pgn");
        assert_eq!(n.for_value(None), "unknown~2.pgn");
    }

    #[test]
    fn patterns() {
        let p = |s: &str| s.parse::<Pattern>();
        assert!(p("{num}.pgn").is_ok());
        assert!(p("games-{num:4}-{value}.pgn").is_ok());
        assert!(matches!(
            p("dir/{num}.pgn"),
            Err(ParsePatternError::BadCharacter(_))
        ));
        assert!(matches!(
            p("..\\{num}"),
            Err(ParsePatternError::BadCharacter(_))
        ));
        assert!(matches!(
            p("games.pgn"),
            Err(ParsePatternError::NoPlaceholder(_))
        ));
        assert!(matches!(
            p("{x}.pgn"),
            Err(ParsePatternError::BadPlaceholder(_))
        ));
        assert!(matches!(
            p("{num.pgn"),
            Err(ParsePatternError::BadPlaceholder(_))
        ));
        assert!(matches!(
            p("{num:99}"),
            Err(ParsePatternError::BadPlaceholder(_))
        ));
        assert!(matches!(
            p("a}{num}"),
            Err(ParsePatternError::BadPlaceholder(_))
        ));
        let long = "x".repeat(101) + "{num}";
        assert!(matches!(p(&long), Err(ParsePatternError::TooLong(_))));
        let mut n = Namer::new(p("COM{num}").unwrap());
        assert_eq!(n.for_number(1), "_COM1");
        assert_eq!(n.for_number(10), "COM10");
    }
}
