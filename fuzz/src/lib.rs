//! What the fuzz targets share: the positions the move readers are tried
//! on, and the round trip of a line-based protocol reader.

use rookery_core::Position;
use std::fmt::{Debug, Display};

/// The positions of rookery-core's property tests for the move readers
/// (crates/core/tests/data/move_readers.fen), then `extra`: the first byte
/// of `data` picks one, the rest is the text to read. `None` for empty input.
///
/// # Panics
/// If a FEN of the list does not read (a broken list, not a fuzz finding).
pub fn position_and_text<'a>(data: &'a [u8], extra: &str) -> Option<(Position, &'a [u8])> {
    let (&which, text) = data.split_first()?;
    let fens: Vec<&str> = include_str!("../../crates/core/tests/data/move_readers.fen")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .chain([extra])
        .collect();
    let pos =
        Position::from_fen(fens[usize::from(which) % fens.len()]).expect("fuzz position is valid");
    Some((pos, text))
}

/// Every line of `data` (split at `\n`, as a UCI peer reads them) must
/// parse without panicking, and parsing is a fixed point of writing: what
/// `parse` made, written out (`Display`), is one line that reads back as the
/// same value and writes out the same text.
pub fn lines_round_trip<T: PartialEq + Debug + Display>(data: &[u8], parse: impl Fn(&str) -> T) {
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n') {
        let value = parse(line);
        let written = value.to_string();
        assert!(!written.contains('\n'), "{line:?} -> {written:?}");
        let again = parse(&written);
        assert_eq!(again, value, "{line:?} -> {written:?}");
        assert_eq!(again.to_string(), written, "{line:?}");
    }
}
