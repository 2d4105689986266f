//! Opening names: the ECO code, opening and variation of a game, from the
//! lichess chess-openings table (CC0, `crates/pgn/data/eco/`), found by
//! position.
//!
//! The table names 3,807 positions, each by an ECO code, a name and the
//! shortest well-known line that reaches it. The build script plays every
//! line and embeds the table keyed by the Zobrist key of the position
//! reached ([`Position::hash`]: pieces, side to move, castling rights, and
//! an en passant square only where a capture is legal), so that looking a
//! position up costs a probe or two and nothing is parsed at start-up.
//!
//! A game's classification ([`classify`]) is the deepest position among its
//! first [`MAX_PLIES`] mainline positions (its starting position included)
//! that the table names. Since positions, not move orders, are looked up, a
//! game that reaches a named position by another order of moves (a
//! transposition) gets that position's name. This is how lichess classifies
//! its games with the same table (the deepest named position within the
//! first 40 plies), so the ECO and Opening tags lichess writes are what
//! [`Opening::eco`] and [`Opening::name`] give.
//!
//! Tags: lichess writes the whole name in one `Opening` tag ("Sicilian
//! Defense: Najdorf Variation, English Attack"); the PGN standard and
//! pgn-extract have `Opening` and `Variation`. rookery splits the name at its
//! colon: `Opening` is the part before it ([`Opening::opening`], "Sicilian
//! Defense"), `Variation` the whole part after it ([`Opening::variation`],
//! "Najdorf Variation, English Attack"); a name without a colon ("Queen's
//! Gambit") has no `Variation`. [`set_tags`] writes them.
//!
//! ```
//! use rookery_pgn::{eco, Games};
//!
//! // The Nimzo-Indian reached from the English Opening's move order.
//! let pgn = "1. c4 e6 2. Nc3 Nf6 3. d4 Bb4 4. e3 O-O *";
//! let game = Games::new(pgn.as_bytes()).next().unwrap()?;
//! let found = eco::classify(&game).expect("a named position");
//! assert_eq!(found.ply, 8);
//! assert_eq!(found.opening.eco(), "E46");
//! assert_eq!(found.opening.opening(), "Nimzo-Indian Defense");
//! assert_eq!(found.opening.variation(), Some("Normal Variation"));
//! // The table's own line for it is another move order.
//! assert!(found.opening.line().starts_with("1. d4 Nf6 2. c4 e6 3. Nc3 Bb4"));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;

use rookery_core::Position;

use crate::game::{ReadGame, Tags};
use crate::tags::Eco;

pub mod retag;
pub mod run;

/// How many plies of a game are searched for a named position, as lichess
/// searches: a named position met later is a coincidence of the middlegame
/// rather than the game's opening (the table's longest line has 36 plies).
pub const MAX_PLIES: usize = 40;

/// The tags a classification sets, in the order [`set_tags`] adds them.
pub const TAGS: [&str; 3] = ["ECO", "Opening", "Variation"];

/// pgn-extract's tag for a third level of name, which the lichess names do
/// not have: a classification removes it (it would describe another table's
/// opening).
pub const SUB_VARIATION: &str = "SubVariation";

/// One named position of the table.
#[derive(Debug, PartialEq, Eq)]
pub struct Opening {
    /// The ECO code (`A00` to `E99`; the build script checks the form).
    eco: &'static str,
    /// The full name, as lichess writes it.
    name: &'static str,
    /// The name before its colon (all of it if it has none), trimmed.
    opening: &'static str,
    /// The name after its colon, trimmed, if not empty.
    variation: Option<&'static str>,
    /// The table's line to the position, in SAN with move numbers.
    line: &'static str,
    /// The line's plies.
    plies: u8,
}

include!(concat!(env!("OUT_DIR"), "/eco.rs"));

impl Opening {
    /// The ECO code, e.g. `B90`.
    pub fn eco(&self) -> &'static str {
        self.eco
    }

    /// The ECO code as a [`Eco`].
    pub fn code(&self) -> Eco {
        // Three ASCII characters, a letter and two digits (see build.rs).
        let e = self.eco.as_bytes();
        let digit = |i: usize| e.get(i).map_or(0, |d| d.wrapping_sub(b'0'));
        Eco {
            letter: e.first().map_or('?', |&l| char::from(l)),
            number: digit(1) * 10 + digit(2),
        }
    }

    /// The full name as lichess writes it in its `Opening` tag, e.g.
    /// "Sicilian Defense: Najdorf Variation, English Attack".
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The name before its colon (the whole name if it has none): the
    /// `Opening` tag, e.g. "Sicilian Defense".
    pub fn opening(&self) -> &'static str {
        self.opening
    }

    /// The name after its colon: the `Variation` tag, e.g. "Najdorf
    /// Variation, English Attack"; `None` for a name without one.
    pub fn variation(&self) -> Option<&'static str> {
        self.variation
    }

    /// The table's line to the position, e.g. "1. e4 c5 2. Nf3 d6 3. d4".
    pub fn line(&self) -> &'static str {
        self.line
    }

    /// The plies of [`Opening::line`].
    pub fn plies(&self) -> usize {
        usize::from(self.plies)
    }

    /// The value of each of [`TAGS`] for this opening (`None`: no such tag).
    pub fn tag_values(&self) -> [Option<&'static str>; 3] {
        [Some(self.eco()), Some(self.opening()), self.variation()]
    }
}

impl fmt::Display for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.eco(), self.name)
    }
}

/// Every named position of the table, in the table's order (by ECO code).
pub fn openings() -> &'static [Opening] {
    &OPENINGS
}

/// The plies of the table's longest line.
pub fn deepest_line() -> usize {
    DEEPEST
}

/// The opening the table names by the position whose Zobrist key is `key`.
#[inline]
pub fn lookup(key: u64) -> Option<&'static Opening> {
    // The filter first (see build.rs): most keys stop here.
    let bit = ((key >> 16) & 0xffff) as usize;
    if PRESENT[bit / 64] & (1 << (bit % 64)) == 0 {
        return None;
    }
    let mask = SLOT_KEYS.len() - 1;
    let mut i = (key >> (64 - SLOT_BITS)) as usize;
    loop {
        let row = usize::from(SLOT_ROWS[i]);
        if row == 0 {
            return None;
        }
        if SLOT_KEYS[i] == key {
            return OPENINGS.get(row - 1);
        }
        i = (i + 1) & mask;
    }
}

/// The opening of `pos`, if the table names it.
pub fn of_position(pos: &Position) -> Option<&'static Opening> {
    lookup(pos.hash())
}

/// A game's opening: the named position found and where.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Classification {
    /// The opening.
    pub opening: &'static Opening,
    /// The ply after which the game stands in the position (0: its start).
    pub ply: usize,
}

/// The deepest named position among the first [`MAX_PLIES`] plies of a
/// game that starts in the position with key `start` and whose mainline
/// positions after each ply have the keys `keys` (see [`crate::ReadGame::keys`]).
pub fn classify_keys(start: u64, keys: &[u64]) -> Option<Classification> {
    let searched = &keys[..keys.len().min(MAX_PLIES)];
    for (i, &key) in searched.iter().enumerate().rev() {
        if let Some(opening) = lookup(key) {
            return Some(Classification {
                opening,
                ply: i + 1,
            });
        }
    }
    lookup(start).map(|opening| Classification { opening, ply: 0 })
}

/// The classification of a game as read (its mainline up to any error).
pub fn classify(game: &ReadGame) -> Option<Classification> {
    classify_keys(game.game.start.hash(), &game.keys)
}

/// Whether `tags` has any of [`TAGS`] (what `--keep` leaves alone).
pub fn has_tags(tags: &Tags) -> bool {
    TAGS.iter().any(|t| tags.get(t).is_some())
}

/// Sets the [`TAGS`] of `tags` to `opening`'s (in place where a tag is
/// already there, else added at the end): `ECO`, `Opening`, and `Variation`,
/// which is removed when the name has none; [`SUB_VARIATION`] is removed.
pub fn set_tags(tags: &mut Tags, opening: &Opening) {
    for (name, value) in TAGS.iter().zip(opening.tag_values()) {
        match value {
            Some(v) => tags.insert(name, v.to_owned()),
            None => {
                tags.remove(name);
            }
        }
    }
    tags.remove(SUB_VARIATION);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::SanPlus;

    /// Plays a line of the table ("1. e4 c5 2. Nf3").
    fn play(line: &str) -> Vec<u64> {
        let mut pos = Position::startpos();
        let mut keys = Vec::new();
        for token in line.split_whitespace().filter(|t| !t.ends_with('.')) {
            let san = SanPlus::from_ascii(token.as_bytes()).unwrap();
            pos.play_unchecked(san.san.to_move(&pos).unwrap());
            keys.push(pos.hash());
        }
        keys
    }

    #[test]
    fn every_line_of_the_table_is_classified_as_itself() {
        assert_eq!(openings().len(), 3807);
        for o in openings() {
            let keys = play(o.line());
            assert_eq!(keys.len(), o.plies(), "{o}");
            let c = classify_keys(Position::startpos().hash(), &keys).expect("named");
            assert_eq!((c.opening, c.ply), (o, o.plies()), "{}", o.line());
        }
        assert_eq!(
            deepest_line(),
            openings().iter().map(Opening::plies).max().unwrap()
        );
    }

    #[test]
    fn names_split_at_the_colon() {
        let najdorf = openings()
            .iter()
            .find(|o| o.name() == "Sicilian Defense: Najdorf Variation, English Attack")
            .unwrap();
        assert_eq!(najdorf.opening(), "Sicilian Defense");
        assert_eq!(
            najdorf.variation(),
            Some("Najdorf Variation, English Attack")
        );
        let plain = openings().iter().find(|o| !o.name().contains(':')).unwrap();
        assert_eq!((plain.opening(), plain.variation()), (plain.name(), None));
        for o in openings() {
            let joined = match o.variation() {
                Some(v) => format!("{}: {v}", o.opening()),
                None => o.opening().to_owned(),
            };
            assert_eq!(joined, o.name());
            assert_eq!(o.code().to_string(), o.eco());
        }
    }

    #[test]
    fn unnamed_positions_and_late_plies_are_not_classified() {
        assert_eq!(of_position(&Position::startpos()), None);
        // A named position first reached after the searched plies counts not.
        let named = play("1. e4 c5");
        let mut keys = vec![0x1234_5678_9abc_def0; MAX_PLIES];
        keys.push(named[1]);
        assert_eq!(classify_keys(0, &keys), None);
        keys[MAX_PLIES - 1] = named[1];
        assert_eq!(classify_keys(0, &keys).map(|c| c.ply), Some(MAX_PLIES));
    }
}
