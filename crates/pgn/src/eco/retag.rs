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

/// One change to the text: `text[start..end]` becomes `with`.
struct Edit {
    start: usize,
    end: usize,
    with: Vec<u8>,
}

/// Appends to `out` the game `game`, whose text is `text` (from where the
/// game starts, at stream offset `base`, to where it ends), with the tags of
/// `opening` set as the module documentation says.
pub fn write(text: &[u8], base: u64, game: &ReadGame, opening: &Opening, out: &mut Vec<u8>) {
    let at = |offset: u64| usize::try_from(offset.saturating_sub(base)).unwrap_or(usize::MAX);
    // Every tag pair's span, in text order, with its name.
    let mut spans: Vec<(usize, usize, &str)> = Vec::new();
    for &(i, loc) in &game.tag_locations {
        let start = at(loc.offset);
        let (Some(name), Some(rest)) = (game.game.tags.name_at(i), text.get(start..)) else {
            continue;
        };
        let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
        if let Some((_, _, used)) = parse_tag(line) {
            spans.push((start, start + used, name));
        }
    }
    spans.sort_unstable_by_key(|s| s.0);
    let eol: &[u8] = match spans.last() {
        Some(&(_, end, _)) if line_end(text, end).1 == b"\r\n" => b"\r\n",
        Some(_) => b"\n",
        None if memchr::memmem::find(text, b"\r\n").is_some() => b"\r\n",
        None => b"\n",
    };

    let mut edits = Vec::new();
    let mut added = Vec::new();
    let wanted = TAGS
        .iter()
        .zip(opening.tag_values())
        .chain([(&SUB_VARIATION, None)]);
    for (&name, value) in wanted {
        let mut found = spans.iter().filter(|s| s.2 == name);
        match (value, found.next()) {
            (Some(v), Some(&(start, end, _))) => edits.push(Edit {
                start,
                end,
                with: tag_pair(name, v),
            }),
            (Some(v), None) => added.push(tag_pair(name, v)),
            (None, Some(&first)) => edits.push(removal(text, first)),
            (None, None) => {}
        }
        edits.extend(found.map(|&s| removal(text, s)));
    }
    if !added.is_empty() {
        let mut with = Vec::new();
        let start = match spans.last() {
            None => {
                // No tags: a tag section of their own, then a blank line.
                for pair in &added {
                    with.extend_from_slice(pair);
                    with.extend_from_slice(eol);
                }
                with.extend_from_slice(eol);
                0
            }
            Some(&(_, end, _)) => {
                let (stop, ending) = line_end(text, end);
                if text[end..stop].iter().all(u8::is_ascii_whitespace) && !ending.is_empty() {
                    // After the last tag's line.
                    for pair in &added {
                        with.extend_from_slice(pair);
                        with.extend_from_slice(eol);
                    }
                    stop + ending.len()
                } else {
                    // The last tag's line goes on (or the text ends there):
                    // on lines of their own right after it.
                    for pair in &added {
                        with.extend_from_slice(eol);
                        with.extend_from_slice(pair);
                    }
                    if !ending.is_empty() || stop > end {
                        with.extend_from_slice(eol);
                    }
                    end
                }
            }
        };
        edits.push(Edit {
            start,
            end: start,
            with,
        });
    }

    edits.sort_by_key(|e| (e.start, e.end));
    let mut copied = 0;
    for e in edits {
        if e.start < copied {
            // Overlaps an edit already made (cannot happen: tag spans are apart).
            continue;
        }
        out.extend_from_slice(&text[copied..e.start]);
        out.extend_from_slice(&e.with);
        copied = e.end;
    }
    out.extend_from_slice(&text[copied..]);
}

/// `[Name "value"]`, the value escaped.
fn tag_pair(name: &str, value: &str) -> Vec<u8> {
    let mut pair = Vec::with_capacity(name.len() + value.len() + 5);
    pair.push(b'[');
    pair.extend_from_slice(name.as_bytes());
    pair.extend_from_slice(b" \"");
    for &b in value.as_bytes() {
        if matches!(b, b'"' | b'\\') {
            pair.push(b'\\');
        }
        pair.push(b);
    }
    pair.extend_from_slice(b"\"]");
    pair
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

/// The edit that removes a tag pair: its whole line when nothing else is on
/// it, else the pair alone.
fn removal(text: &[u8], (start, end, _): (usize, usize, &str)) -> Edit {
    let line_start = memchr::memrchr(b'\n', &text[..start]).map_or(0, |i| i + 1);
    let (stop, ending) = line_end(text, end);
    let blank = |s: &[u8]| s.iter().all(u8::is_ascii_whitespace);
    let (start, end) = if blank(&text[line_start..start]) && blank(&text[end..stop]) {
        (line_start, stop + ending.len())
    } else {
        (start, end)
    };
    Edit {
        start,
        end,
        with: Vec::new(),
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
        assert_eq!(tag_pair("A", "x\"y\\z"), b"[A \"x\\\"y\\\\z\"]");
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
