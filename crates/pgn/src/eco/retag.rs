//! Writing a game with its opening tags set and every other byte as it was:
//! the text of `rookery pgn eco`.
//!
//! The game's text is edited, not rewritten: the tag pairs named `ECO`,
//! `Opening` and `Variation` get their new values where they stand (a
//! repeated one is removed), a `Variation` (or pgn-extract's `SubVariation`)
//! the new name does not have is removed, and the tags the game did not have
//! are added as lines after its last tag pair, with that line's line ending.
//! Every other byte (the other tags, comments among them, the movetext, line
//! endings) is copied as it was.
//!
//! ```
//! use rookery_pgn::{eco, Games};
//!
//! let pgn = "[White \"A\"]\r\n[Variation \"old\"]\r\n[Black \"B\"]\r\n\r\n1. e4 c5 {Sicilian}  2. Nf3 *";
//! let game = Games::new(pgn.as_bytes()).next().unwrap()?;
//! let opening = eco::classify(&game).unwrap().opening;
//! let mut out = Vec::new();
//! eco::retag::write(pgn.as_bytes(), 0, &game, opening, &mut out);
//! assert_eq!(
//!     String::from_utf8(out).unwrap(),
//!     // No Variation in "Sicilian Defense": the old one is removed.
//!     "[White \"A\"]\r\n[Black \"B\"]\r\n[ECO \"B27\"]\r\n[Opening \"Sicilian Defense\"]\r\n\
//!      \r\n1. e4 c5 {Sicilian}  2. Nf3 *"
//! );
//! # Ok::<(), std::io::Error>(())
//! ```

use super::{Opening, SUB_VARIATION, TAGS};
use crate::game::ReadGame;
use crate::reader::parse_tag;

/// Appends to `out` the game `game`, whose text is `text` (from where the
/// game starts, at stream offset `base`, to where it ends), with the tags of
/// `opening` set as the module documentation says. It runs once a game in
/// `rookery pgn eco`: it edits as it copies, in one pass over the tag pairs
/// (in text order, as the reader met them), and allocates nothing.
pub fn write(text: &[u8], base: u64, game: &ReadGame, opening: &Opening, out: &mut Vec<u8>) {
    let at = |offset: u64| usize::try_from(offset.saturating_sub(base)).unwrap_or(usize::MAX);
    let values = opening.tag_values();
    // Which of TAGS (and SUB_VARIATION, last) the game has shown so far.
    let mut seen = [false; 4];
    // Bytes of `text` copied (or edited) into `out` so far.
    let mut copied = 0;
    // Where the last tag pair ends.
    let mut last_end = None;
    let pairs = game.tag_locations.len();
    for (k, &(i, loc)) in game.tag_locations.iter().enumerate() {
        let start = at(loc.offset);
        let Some(name) = game.game.tags.name_at(i) else {
            continue;
        };
        let wanted = TAGS.iter().chain([&SUB_VARIATION]).position(|t| *t == name);
        if wanted.is_none() && k + 1 < pairs {
            // Only the tags set and the last one (whose end places the
            // tags added) are looked at again.
            continue;
        }
        let Some(rest) = text.get(start..) else {
            continue;
        };
        let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
        let Some((_, _, used)) = parse_tag(line) else {
            continue;
        };
        let end = start + used;
        if start < copied {
            // Before an edit already made (cannot happen: pairs are apart).
            continue;
        }
        last_end = Some(end);
        let Some(w) = wanted else {
            continue;
        };
        match values.get(w).copied().flatten() {
            Some(v) if !seen[w] => {
                out.extend_from_slice(&text[copied..start]);
                tag_pair(name, v, out);
                copied = end;
            }
            // A tag the opening has no value for, or one seen before.
            _ => {
                let (from, to) = removal(text, start, end);
                out.extend_from_slice(&text[copied..from.max(copied)]);
                copied = to.max(copied);
            }
        }
        seen[w] = true;
    }
    let added = || {
        TAGS.iter()
            .zip(values)
            .zip(seen)
            .filter_map(|((name, v), seen)| v.filter(|_| !seen).map(|v| (*name, v)))
    };
    if added().next().is_some() {
        let eol: &[u8] = match last_end {
            Some(end) if line_end(text, end).1 == b"\r\n" => b"\r\n",
            Some(_) => b"\n",
            None if memchr::memmem::find(text, b"\r\n").is_some() => b"\r\n",
            None => b"\n",
        };
        match last_end {
            None => {
                // No tags: a tag section of their own, then a blank line.
                for (name, v) in added() {
                    tag_pair(name, v, out);
                    out.extend_from_slice(eol);
                }
                out.extend_from_slice(eol);
            }
            Some(end) => {
                let (stop, ending) = line_end(text, end);
                if text[end..stop].iter().all(u8::is_ascii_whitespace) && !ending.is_empty() {
                    // After the last tag's line.
                    let after = (stop + ending.len()).max(copied);
                    out.extend_from_slice(&text[copied..after]);
                    copied = after;
                    for (name, v) in added() {
                        tag_pair(name, v, out);
                        out.extend_from_slice(eol);
                    }
                } else if end >= copied {
                    // The last tag's line goes on (or the text ends there):
                    // on lines of their own right after it.
                    out.extend_from_slice(&text[copied..end]);
                    copied = end;
                    for (name, v) in added() {
                        out.extend_from_slice(eol);
                        tag_pair(name, v, out);
                    }
                    if !ending.is_empty() || stop > end {
                        out.extend_from_slice(eol);
                    }
                }
            }
        }
    }
    out.extend_from_slice(&text[copied..]);
}

/// Appends `[Name "value"]` to `out`, the value escaped.
fn tag_pair(name: &str, value: &str, out: &mut Vec<u8>) {
    out.push(b'[');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b" \"");
    if memchr::memchr2(b'"', b'\\', value.as_bytes()).is_none() {
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\"]");
        return;
    }
    for chunk in value
        .as_bytes()
        .split_inclusive(|b| matches!(b, b'"' | b'\\'))
    {
        match chunk.split_last() {
            Some((&last, head)) if matches!(last, b'"' | b'\\') => {
                out.extend_from_slice(head);
                out.push(b'\\');
                out.push(last);
            }
            _ => out.extend_from_slice(chunk),
        }
    }
    out.extend_from_slice(b"\"]");
}

/// Where the line holding `text[at]` ends (the index of its line ending,
/// or the text's end) and its line ending (`\r\n`, `\n`, or empty).
fn line_end(text: &[u8], at: usize) -> (usize, &'static [u8]) {
    match memchr::memchr(b'\n', &text[at.min(text.len())..]) {
        Some(i) if at + i > 0 && text[at + i - 1] == b'\r' => (at + i - 1, b"\r\n"),
        Some(i) => (at + i, b"\n"),
        None => (text.len(), b""),
    }
}

/// What removes the tag pair at `text[start..end]`: its whole line when
/// nothing else is on it, else the pair alone.
fn removal(text: &[u8], start: usize, end: usize) -> (usize, usize) {
    let line_start = memchr::memrchr(b'\n', &text[..start]).map_or(0, |i| i + 1);
    let (stop, ending) = line_end(text, end);
    let blank = |s: &[u8]| s.iter().all(u8::is_ascii_whitespace);
    if blank(&text[line_start..start]) && blank(&text[end..stop]) {
        (line_start, stop + ending.len())
    } else {
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eco::classify;
    use crate::Games;

    fn retag(pgn: &str) -> String {
        let game = Games::new(pgn.as_bytes()).next().unwrap().unwrap();
        let opening = classify(&game).unwrap().opening;
        let mut out = Vec::new();
        write(pgn.as_bytes(), 0, &game, opening, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn existing_tags_are_replaced_where_they_stand_and_extra_ones_removed() {
        let pgn = "[ECO \"X\"] [Site \"s\"]\n[Opening \"a\"]\n[Opening \"b\"]\n  [SubVariation \"c\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n";
        assert_eq!(
            retag(pgn),
            "[ECO \"C70\"] [Site \"s\"]\n[Opening \"Ruy Lopez\"]\n[Variation \"Morphy Defense\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n"
        );
    }

    #[test]
    fn a_game_without_tags_gets_a_tag_section() {
        assert_eq!(
            retag("1. d4 d5 2. c4 *"),
            "[ECO \"D06\"]\n[Opening \"Queen's Gambit\"]\n\n1. d4 d5 2. c4 *"
        );
    }

    #[test]
    fn tags_on_the_movetext_line_and_at_the_end_of_the_text() {
        assert_eq!(
            retag("[White \"w\"] 1. d4 d5 2. c4 *"),
            "[White \"w\"]\n[ECO \"D06\"]\n[Opening \"Queen's Gambit\"]\n 1. d4 d5 2. c4 *"
        );
        // Values are escaped as PGN escapes them.
        let mut pair = Vec::new();
        tag_pair("A", "x\"y\\z", &mut pair);
        assert_eq!(pair, b"[A \"x\\\"y\\\\z\"]");
    }

    #[test]
    fn retagging_twice_changes_nothing_more() {
        let once = retag(
            "[Event \"e\"]\r\n\r\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 *\r\n",
        );
        assert!(once.contains("[Variation \"Najdorf Variation, English Attack\"]\r\n"));
        assert_eq!(retag(&once), once);
    }
}
