//! A game's header as a fixed record of 36 bytes, as Scid's index keeps
//! one: names (players, event, site, round, a start position's FEN) as
//! numbers into the database's name table, the date packed with the
//! speed (lichess's, from the `TimeControl`), the result, the ratings, the
//! ECO code and the length. Header search reads these
//! records and never the moves.

use crate::bucket::Speed;
use rookery_pgn::GameResult;

/// The size of an encoded [`Header`].
pub const HEADER_BYTES: usize = 36;

/// A name's number in the name table; [`NO_NAME`] for a missing tag.
pub type NameId = u32;

/// The number of a missing name (`?`, or no tag).
pub const NO_NAME: NameId = 0;

/// A date known in part: 0 stands for an unknown year, month or day.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// The year (0: unknown).
    pub year: u16,
    /// The month, 1 to 12 (0: unknown).
    pub month: u8,
    /// The day, 1 to 31 (0: unknown).
    pub day: u8,
}

impl Date {
    /// Reads a PGN date (`2024.01.31`, `1990.??.??`); unknown parts are 0.
    pub fn from_pgn(text: &str) -> Date {
        let mut parts = text.trim().split('.');
        let mut field = |max: u32| {
            parts
                .next()
                .and_then(|p| p.parse::<u32>().ok())
                .filter(|&v| v <= max)
                .unwrap_or(0)
        };
        Date {
            year: field(4095) as u16,
            month: field(12) as u8,
            day: field(31) as u8,
        }
    }

    /// The date as one number, in the order of time (an unknown part
    /// before every known one): 21 bits.
    pub fn packed(self) -> u32 {
        u32::from(self.year) << 9 | u32::from(self.month) << 5 | u32::from(self.day)
    }

    /// The date of [`Date::packed`]'s number.
    pub fn unpack(v: u32) -> Date {
        Date {
            year: (v >> 9) as u16,
            month: ((v >> 5) & 0xf) as u8,
            day: (v & 0x1f) as u8,
        }
    }
}

/// A game's header record.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// White's name.
    pub white: NameId,
    /// Black's name.
    pub black: NameId,
    /// The event.
    pub event: NameId,
    /// The site.
    pub site: NameId,
    /// The round.
    pub round: NameId,
    /// The start position's FEN ([`NO_NAME`]: the standard start).
    pub start: NameId,
    /// The date.
    pub date: Date,
    /// The speed (from the `TimeControl` tag).
    pub speed: Speed,
    /// White's Elo (0: unknown).
    pub white_elo: u16,
    /// Black's Elo (0: unknown).
    pub black_elo: u16,
    /// The ECO code as a number: `A00` is 100, `E99` 599 (0: none).
    pub eco: u16,
    /// The mainline's length in plies (at most [`Header::MAX_PLIES`]
    /// counted).
    pub plies: u16,
    /// The result.
    pub result: u8,
}

impl Header {
    /// The longest mainline a record counts (14 bits of it): a game as
    /// long or longer is judged by its moves.
    pub const MAX_PLIES: u16 = 0x3fff;

    /// The result as [`GameResult`].
    pub fn result(&self) -> GameResult {
        match self.result {
            1 => GameResult::WhiteWins,
            2 => GameResult::Draw,
            3 => GameResult::BlackWins,
            _ => GameResult::Unknown,
        }
    }

    /// The byte of a result.
    pub fn result_byte(r: GameResult) -> u8 {
        match r {
            GameResult::WhiteWins => 1,
            GameResult::Draw => 2,
            GameResult::BlackWins => 3,
            GameResult::Unknown => 0,
        }
    }

    /// The ECO code's number (`B20` is 220) from its text; 0 if it is not one.
    pub fn eco_number(text: &str) -> u16 {
        let b = text.trim().as_bytes();
        match b {
            [l @ b'A'..=b'E', d1 @ b'0'..=b'9', d2 @ b'0'..=b'9'] => {
                u16::from(l - b'A' + 1) * 100 + u16::from(d1 - b'0') * 10 + u16::from(d2 - b'0')
            }
            _ => 0,
        }
    }

    /// The ECO code's text (`B20`), if it has one.
    pub fn eco_text(&self) -> Option<String> {
        let (l, n) = (self.eco / 100, self.eco % 100);
        (1..=5)
            .contains(&l)
            .then(|| format!("{}{n:02}", char::from(b'A' + l as u8 - 1)))
    }

    /// The record's bytes.
    pub fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut out = [0u8; HEADER_BYTES];
        let words = [
            self.white,
            self.black,
            self.event,
            self.site,
            self.round,
            self.start,
            self.date.packed() | (self.speed as u32) << 24,
        ];
        for (i, w) in words.iter().enumerate() {
            out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        out[28..30].copy_from_slice(&self.white_elo.to_le_bytes());
        out[30..32].copy_from_slice(&self.black_elo.to_le_bytes());
        out[32..34].copy_from_slice(&self.eco.to_le_bytes());
        // The length's high bits beside the result: 14 bits of plies.
        let tail = (self.plies.min(Header::MAX_PLIES)) << 2 | u16::from(self.result & 3);
        out[34..36].copy_from_slice(&tail.to_le_bytes());
        out
    }

    /// The record of `bytes` (at least [`HEADER_BYTES`] long); `None` if
    /// shorter.
    pub fn decode(bytes: &[u8]) -> Option<Header> {
        let b = bytes.get(..HEADER_BYTES)?;
        let word =
            |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
        let half = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let tail = half(34);
        Some(Header {
            white: word(0),
            black: word(1),
            event: word(2),
            site: word(3),
            round: word(4),
            start: word(5),
            date: Date::unpack(word(6) & 0x1f_ffff),
            speed: Speed::from_number((word(6) >> 24) as u8),
            white_elo: half(28),
            black_elo: half(30),
            eco: half(32),
            plies: tail >> 2,
            result: (tail & 3) as u8,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let h = Header {
            white: 7,
            black: 4_000_000_000,
            event: 3,
            site: 0,
            round: 9,
            start: 0,
            date: Date::from_pgn("1990.??.15"),
            speed: Speed::Correspondence,
            white_elo: 2851,
            black_elo: 0,
            eco: Header::eco_number("B99"),
            plies: 123,
            result: Header::result_byte(GameResult::BlackWins),
        };
        assert_eq!(Header::decode(&h.encode()), Some(h));
        assert_eq!(
            h.date,
            Date {
                year: 1990,
                month: 0,
                day: 15
            }
        );
        assert_eq!(h.eco_text().as_deref(), Some("B99"));
        assert_eq!(h.result(), GameResult::BlackWins);
        assert_eq!(Header::eco_number("F00"), 0);
        assert_eq!(Header::decode(&[0; 10]), None);
    }
}
