//! Small value types of PGN: NAGs, results, raw tag values and comments, locations.

use std::borrow::Cow;
use std::fmt;

use rookery_core::Color;

/// A Numeric Annotation Glyph (`$0` .. `$255`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Nag(pub u8);

impl Nag {
    /// `$1`, written `!`.
    pub const GOOD_MOVE: Nag = Nag(1);
    /// `$2`, written `?`.
    pub const MISTAKE: Nag = Nag(2);
    /// `$3`, written `!!`.
    pub const BRILLIANT_MOVE: Nag = Nag(3);
    /// `$4`, written `??`.
    pub const BLUNDER: Nag = Nag(4);
    /// `$5`, written `!?`.
    pub const SPECULATIVE_MOVE: Nag = Nag(5);
    /// `$6`, written `?!`.
    pub const DUBIOUS_MOVE: Nag = Nag(6);

    /// Reads `$n` (0..=255) or one of the move suffixes `!`, `?`, `!!`, `??`, `!?`, `?!`.
    pub fn from_ascii(s: &[u8]) -> Option<Nag> {
        match s {
            b"!" => Some(Nag::GOOD_MOVE),
            b"?" => Some(Nag::MISTAKE),
            b"!!" => Some(Nag::BRILLIANT_MOVE),
            b"??" => Some(Nag::BLUNDER),
            b"!?" => Some(Nag::SPECULATIVE_MOVE),
            b"?!" => Some(Nag::DUBIOUS_MOVE),
            [b'$', digits @ ..] if !digits.is_empty() && digits.len() <= 3 => {
                let mut n: u32 = 0;
                for &d in digits {
                    if !d.is_ascii_digit() {
                        return None;
                    }
                    n = n * 10 + u32::from(d - b'0');
                }
                u8::try_from(n).ok().map(Nag)
            }
            _ => None,
        }
    }
}

impl fmt::Display for Nag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${}", self.0)
    }
}

/// A game-termination marker (and the value of the `Result` tag).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`
    WhiteWins,
    /// `0-1`
    BlackWins,
    /// `1/2-1/2`
    Draw,
    /// `*`: unknown, unfinished or abandoned.
    Unknown,
}

impl GameResult {
    /// Reads `1-0`, `0-1`, `1/2-1/2` (also `½-½`) or `*`.
    pub fn from_ascii(s: &[u8]) -> Option<GameResult> {
        match s {
            b"1-0" => Some(GameResult::WhiteWins),
            b"0-1" => Some(GameResult::BlackWins),
            b"1/2-1/2" | b"\xc2\xbd-\xc2\xbd" => Some(GameResult::Draw),
            b"*" => Some(GameResult::Unknown),
            _ => None,
        }
    }

    /// The marker as written in PGN.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// The winner, if the game was decisive.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            _ => None,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tag value as it stands in the file, between the quotes, escapes not yet resolved.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RawTag<'a>(pub &'a [u8]);

impl<'a> RawTag<'a> {
    /// The bytes as written.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The value with `\"` and `\\` resolved, as bytes.
    pub fn unescape(&self) -> Cow<'a, [u8]> {
        if !self.0.contains(&b'\\') {
            return Cow::Borrowed(self.0);
        }
        let mut out = Vec::with_capacity(self.0.len());
        let mut it = self.0.iter().copied();
        while let Some(c) = it.next() {
            if c == b'\\' {
                match it.next() {
                    Some(n @ (b'\\' | b'"')) => out.push(n),
                    Some(n) => {
                        out.push(b'\\');
                        out.push(n);
                    }
                    None => out.push(b'\\'),
                }
            } else {
                out.push(c);
            }
        }
        Cow::Owned(out)
    }

    /// The unescaped value as text; invalid UTF-8 is replaced (U+FFFD), never a panic.
    pub fn decode(&self) -> String {
        String::from_utf8_lossy(&self.unescape()).into_owned()
    }

    /// Appends [`RawTag::decode`]'s text to `out` (reusing its allocation).
    pub fn decode_into(&self, out: &mut String) {
        // Nearly every value is ASCII without escapes: one short pass tells,
        // where a search for `\\` and then a check of the text take two.
        if plain_ascii(self.0) {
            // SAFETY: all ASCII, just checked.
            unsafe { push_ascii(out, self.0) };
        } else {
            push_lossy(out, &self.unescape());
        }
    }
}

/// Eight bytes at a time in a word: short tag values are too short for a
/// vector search's set-up to pay.
pub(crate) mod word {
    /// A one in every byte.
    pub const ONES: u64 = u64::from_le_bytes([1; 8]);
    /// The high bit of every byte.
    pub const HIGH: u64 = ONES << 7;

    /// `byte` in every byte.
    pub const fn splat(byte: u8) -> u64 {
        ONES * byte as u64
    }

    /// The high bit set in the bytes of `w` equal to the byte `splat`
    /// holds (they are the zero bytes of the XOR), and perhaps in bytes
    /// above the lowest such one, never below it: the lowest flag is
    /// always a true match, and the result is 0 exactly when none is.
    #[inline]
    pub fn matches(w: u64, splat: u64) -> u64 {
        let x = w ^ splat;
        x.wrapping_sub(ONES) & !x & HIGH
    }
}

/// Whether `bytes` are all ASCII and hold no `\\`.
#[inline]
fn plain_ascii(bytes: &[u8]) -> bool {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    words
        .map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default()))
        .all(|w| (w | word::matches(w, word::splat(b'\\'))) & word::HIGH == 0)
        && tail.iter().all(|&b| b < 0x80 && b != b'\\')
}

/// Appends `bytes` as text to `out`, invalid UTF-8 replaced (U+FFFD) as
/// [`String::from_utf8_lossy`] does, valid text (nearly all) without its
/// chunk-by-chunk detour.
pub fn push_lossy(out: &mut String, bytes: &[u8]) {
    // Tag names and values are short and nearly always ASCII: a check of
    // that costs a fraction of the general UTF-8 validation's set-up.
    if bytes.is_ascii() {
        // SAFETY: all ASCII, just checked.
        unsafe { push_ascii(out, bytes) };
        return;
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => out.push_str(s),
        Err(_) => out.push_str(&String::from_utf8_lossy(bytes)),
    }
}

/// Appends `bytes` to `out` without checking them.
///
/// # Safety
/// `bytes` must be ASCII (so valid UTF-8).
unsafe fn push_ascii(out: &mut String, bytes: &[u8]) {
    debug_assert!(bytes.is_ascii());
    // SAFETY: ASCII bytes are valid UTF-8 (the caller's promise).
    out.push_str(unsafe { std::str::from_utf8_unchecked(bytes) });
}

/// A comment's text as it stands in the file (without `{` `}` or the leading `;`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RawComment<'a>(pub &'a [u8]);

impl<'a> RawComment<'a> {
    /// The bytes as written.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.0
    }

    /// The text, invalid UTF-8 replaced (U+FFFD).
    pub fn decode(&self) -> String {
        String::from_utf8_lossy(self.0).into_owned()
    }
}

/// Where something is in the input: byte offset, 1-based line and column (in bytes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Location {
    /// Bytes from the start of the input.
    pub offset: u64,
    /// Line, from 1.
    pub line: u64,
    /// Column in bytes, from 1.
    pub col: u64,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nags_and_suffixes() {
        assert_eq!(Nag::from_ascii(b"$0"), Some(Nag(0)));
        assert_eq!(Nag::from_ascii(b"$255"), Some(Nag(255)));
        assert_eq!(Nag::from_ascii(b"$256"), None);
        assert_eq!(Nag::from_ascii(b"$"), None);
        assert_eq!(Nag::from_ascii(b"$1x"), None);
        assert_eq!(Nag::from_ascii(b"?!"), Some(Nag::DUBIOUS_MOVE));
        assert_eq!(Nag::from_ascii(b"!!"), Some(Nag(3)));
        assert_eq!(Nag::from_ascii(b"!!!"), None);
        assert_eq!(Nag(14).to_string(), "$14");
    }

    #[test]
    fn tag_escapes() {
        assert_eq!(RawTag(br#"a \"b\" \\ c"#).decode(), r#"a "b" \ c"#);
        assert_eq!(RawTag(br"x\n").decode(), r"x\n");
        assert_eq!(RawTag(b"\xff").decode(), "\u{fffd}");
        // Appending gives the same text after what is there.
        for raw in [
            &br#"a \"b\" \\ c"#[..],
            b"x\\n",
            b"\xff",
            b"plain",
            b"caf\xc3\xa9",
            b"",
        ] {
            let mut out = String::from("old:");
            RawTag(raw).decode_into(&mut out);
            assert_eq!(out, format!("old:{}", RawTag(raw).decode()));
        }
    }

    proptest::proptest! {
        /// Appending a value is decoding it, on any bytes.
        #[test]
        fn decode_into_appends_the_decoded_text(raw in proptest::collection::vec(
            proptest::sample::select(vec![b'a', b'\\', b'"', 0xc3, 0xa9, 0xff, b' ']), 0..40,
        )) {
            let mut out = String::from("old:");
            RawTag(&raw).decode_into(&mut out);
            proptest::prop_assert_eq!(out, format!("old:{}", RawTag(&raw).decode()));
        }

        /// The word-at-a-time test says what the byte-by-byte one does: mostly
        /// plain bytes, so that both answers come at every length.
        #[test]
        fn plain_ascii_is_ascii_without_backslashes(raw in proptest::collection::vec(
            proptest::prop_oneof![
                20 => proptest::strategy::Just(b'a'),
                1 => proptest::sample::select(vec![b'\\', 0x5b, 0x5d, 0x7f, 0x80, 0xdc, 0xff, 0x00]),
            ],
            0..40,
        )) {
            let want = raw.iter().all(|&b| b < 0x80 && b != b'\\');
            proptest::prop_assert_eq!(super::plain_ascii(&raw), want);
        }
    }

    #[test]
    fn results() {
        for s in ["1-0", "0-1", "1/2-1/2", "*"] {
            assert_eq!(
                GameResult::from_ascii(s.as_bytes()).map(|r| r.as_str()),
                Some(s)
            );
        }
        assert_eq!(GameResult::from_ascii(b"1-1"), None);
    }
}
