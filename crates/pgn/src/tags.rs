//! Tag semantics: typed values for Date, TimeControl, Result, PlyCount, ECO
//! and Termination (SetUp/FEN: [`crate::game::start_position`]).
//!
//! ```
//! use rookery_pgn::tags::{PgnDate, Period, TimeControl};
//! let tc: TimeControl = "40/7200:3600".parse()?;
//! assert_eq!(tc, TimeControl::Periods(vec![
//!     Period::Moves { moves: 40, seconds: 7200, increment: 0 },
//!     Period::SuddenDeath { seconds: 3600, increment: 0 },
//! ]));
//! assert_eq!("4500 60".parse::<TimeControl>()?.to_string(), "4500+60");
//! let d: PgnDate = "1993.??.??".parse()?;
//! assert_eq!((d.year, d.month, d.day), (Some(1993), None, None));
//! # Ok::<(), rookery_pgn::tags::TagValueError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use crate::game::Tags;
use crate::types::GameResult;

/// A tag value that does not have the form its tag requires.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad {tag} value {value:?}: expected {expected}")]
pub struct TagValueError {
    /// The tag.
    pub tag: &'static str,
    /// The value.
    pub value: String,
    /// What the value should look like.
    pub expected: &'static str,
}

fn bad(tag: &'static str, value: &str, expected: &'static str) -> TagValueError {
    TagValueError {
        tag,
        value: value.to_owned(),
        expected,
    }
}

fn number<T: FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A `Date` (or `EventDate`) value: `YYYY.MM.DD`, any part may be `??`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct PgnDate {
    /// The year, if known.
    pub year: Option<u16>,
    /// The month (1-12), if known.
    pub month: Option<u8>,
    /// The day (1-31), if known.
    pub day: Option<u8>,
}

impl FromStr for PgnDate {
    type Err = TagValueError;
    fn from_str(s: &str) -> Result<PgnDate, TagValueError> {
        let e = || bad("Date", s, "YYYY.MM.DD with ?? for unknown parts");
        let t = s.trim();
        if t == "?" {
            return Ok(PgnDate::default());
        }
        let parts: Vec<&str> = t.split('.').collect();
        let [y, m, d] = parts.as_slice() else {
            return Err(e());
        };
        let part = |p: &str, len: usize| -> Result<Option<u32>, TagValueError> {
            if p.len() != len {
                return Err(e());
            }
            if p.bytes().all(|b| b == b'?') {
                return Ok(None);
            }
            number::<u32>(p).map(Some).ok_or_else(e)
        };
        let year = part(y, 4)?;
        let month = part(m, 2)?;
        let day = part(d, 2)?;
        if month.is_some_and(|m| !(1..=12).contains(&m))
            || day.is_some_and(|d| !(1..=31).contains(&d))
        {
            return Err(e());
        }
        Ok(PgnDate {
            year: year.map(|v| v as u16),
            month: month.map(|v| v as u8),
            day: day.map(|v| v as u8),
        })
    }
}

impl fmt::Display for PgnDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.year {
            Some(y) => write!(f, "{y:04}")?,
            None => f.write_str("????")?,
        }
        for p in [self.month, self.day] {
            match p {
                Some(v) => write!(f, ".{v:02}")?,
                None => f.write_str(".??")?,
            }
        }
        Ok(())
    }
}

/// One period of a time control.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Period {
    /// `moves/seconds` (with `+increment`): so many moves in so many seconds.
    Moves {
        /// Moves to make.
        moves: u32,
        /// Seconds for them.
        seconds: u32,
        /// Seconds added per move.
        increment: u32,
    },
    /// `seconds` or `seconds+increment` (also written `seconds increment`):
    /// the rest of the game.
    SuddenDeath {
        /// Seconds for the rest of the game.
        seconds: u32,
        /// Seconds added per move.
        increment: u32,
    },
    /// `*seconds`: a sandclock (hourglass) of that many seconds.
    Sandclock {
        /// The sandclock's seconds.
        seconds: u32,
    },
}

/// A `TimeControl` value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// `?`
    Unknown,
    /// `-`: no time control.
    Unlimited,
    /// Periods separated by `:`, e.g. `40/7200:3600`.
    Periods(Vec<Period>),
}

impl FromStr for TimeControl {
    type Err = TagValueError;
    fn from_str(s: &str) -> Result<TimeControl, TagValueError> {
        let e = || {
            bad(
                "TimeControl",
                s,
                "?, -, moves/seconds, seconds, seconds+increment, *seconds, or periods joined by ':'",
            )
        };
        let t = s.trim();
        match t {
            "?" => return Ok(TimeControl::Unknown),
            "-" => return Ok(TimeControl::Unlimited),
            _ => {}
        }
        let mut periods = Vec::new();
        for p in t.split(':') {
            let p = p.trim();
            if let Some(sec) = p.strip_prefix('*') {
                periods.push(Period::Sandclock {
                    seconds: number(sec).ok_or_else(e)?,
                });
                continue;
            }
            let (main, increment) = match p.split_once(['+', ' ']) {
                Some((m, i)) => (m.trim(), number(i.trim()).ok_or_else(e)?),
                None => (p, 0),
            };
            match main.split_once('/') {
                Some((m, sec)) => periods.push(Period::Moves {
                    moves: number(m).ok_or_else(e)?,
                    seconds: number(sec).ok_or_else(e)?,
                    increment,
                }),
                None => periods.push(Period::SuddenDeath {
                    seconds: number(main).ok_or_else(e)?,
                    increment,
                }),
            }
        }
        Ok(TimeControl::Periods(periods))
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Unknown => f.write_str("?"),
            TimeControl::Unlimited => f.write_str("-"),
            TimeControl::Periods(ps) => {
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        f.write_str(":")?;
                    }
                    let inc = match *p {
                        Period::Moves {
                            moves,
                            seconds,
                            increment,
                        } => {
                            write!(f, "{moves}/{seconds}")?;
                            increment
                        }
                        Period::SuddenDeath { seconds, increment } => {
                            write!(f, "{seconds}")?;
                            increment
                        }
                        Period::Sandclock { seconds } => {
                            write!(f, "*{seconds}")?;
                            0
                        }
                    };
                    if inc > 0 {
                        write!(f, "+{inc}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// An ECO code: a letter `A`-`E` and a number 00-99.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Eco {
    /// `A` to `E`.
    pub letter: char,
    /// 0 to 99.
    pub number: u8,
}

impl Eco {
    /// Reads the code at the start of a tag value; anything after the three
    /// characters (`C03/10`, `B19 Caro-Kann`) is ignored.
    ///
    /// # Errors
    /// [`TagValueError`] if the value does not start with a code.
    pub fn from_tag(s: &str) -> Result<Eco, TagValueError> {
        let e = || bad("ECO", s, "a letter A-E and two digits, e.g. B19");
        let b = s.trim().as_bytes();
        match b {
            [l @ b'A'..=b'E', d1, d2, rest @ ..]
                if d1.is_ascii_digit()
                    && d2.is_ascii_digit()
                    && rest.first().is_none_or(|c| !c.is_ascii_alphanumeric()) =>
            {
                Ok(Eco {
                    letter: *l as char,
                    number: (d1 - b'0') * 10 + (d2 - b'0'),
                })
            }
            _ => Err(e()),
        }
    }
}

impl FromStr for Eco {
    type Err = TagValueError;
    fn from_str(s: &str) -> Result<Eco, TagValueError> {
        let eco = Eco::from_tag(s)?;
        if s.trim().len() != 3 {
            return Err(bad("ECO", s, "a letter A-E and two digits, e.g. B19"));
        }
        Ok(eco)
    }
}

impl fmt::Display for Eco {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:02}", self.letter, self.number)
    }
}

/// A `Termination` value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// `abandoned`
    Abandoned,
    /// `adjudication`
    Adjudication,
    /// `death`
    Death,
    /// `emergency`
    Emergency,
    /// `normal`
    Normal,
    /// `rules infraction`
    RulesInfraction,
    /// `time forfeit`
    TimeForfeit,
    /// `unterminated`
    Unterminated,
    /// Anything else, kept as written.
    Other(String),
}

impl Termination {
    /// Reads a value (case-insensitive); unknown values become [`Termination::Other`].
    pub fn from_tag(s: &str) -> Termination {
        match s.trim().to_ascii_lowercase().as_str() {
            "abandoned" => Termination::Abandoned,
            "adjudication" => Termination::Adjudication,
            "death" => Termination::Death,
            "emergency" => Termination::Emergency,
            "normal" => Termination::Normal,
            "rules infraction" => Termination::RulesInfraction,
            "time forfeit" => Termination::TimeForfeit,
            "unterminated" => Termination::Unterminated,
            _ => Termination::Other(s.to_owned()),
        }
    }

    /// The standard spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Termination::Abandoned => "abandoned",
            Termination::Adjudication => "adjudication",
            Termination::Death => "death",
            Termination::Emergency => "emergency",
            Termination::Normal => "normal",
            Termination::RulesInfraction => "rules infraction",
            Termination::TimeForfeit => "time forfeit",
            Termination::Unterminated => "unterminated",
            Termination::Other(s) => s,
        }
    }
}

/// Typed access to a game's tags.
impl Tags {
    /// The `Date` tag.
    ///
    /// # Errors
    /// [`TagValueError`] if it is present and malformed.
    pub fn date(&self) -> Result<Option<PgnDate>, TagValueError> {
        self.get("Date").map(str::parse).transpose()
    }

    /// The `TimeControl` tag.
    ///
    /// # Errors
    /// [`TagValueError`] if it is present and malformed.
    pub fn time_control(&self) -> Result<Option<TimeControl>, TagValueError> {
        self.get("TimeControl").map(str::parse).transpose()
    }

    /// The `Result` tag.
    ///
    /// # Errors
    /// [`TagValueError`] if it is present and not `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn result(&self) -> Result<Option<GameResult>, TagValueError> {
        self.get("Result")
            .map(|v| {
                GameResult::from_ascii(v.trim().as_bytes())
                    .ok_or_else(|| bad("Result", v, "1-0, 0-1, 1/2-1/2 or *"))
            })
            .transpose()
    }

    /// The `PlyCount` tag.
    ///
    /// # Errors
    /// [`TagValueError`] if it is present and not a number.
    pub fn ply_count(&self) -> Result<Option<u32>, TagValueError> {
        self.get("PlyCount")
            .map(|v| number(v.trim()).ok_or_else(|| bad("PlyCount", v, "a number of plies")))
            .transpose()
    }

    /// The `ECO` tag (its first three characters).
    ///
    /// # Errors
    /// [`TagValueError`] if it is present and does not start with a code.
    pub fn eco(&self) -> Result<Option<Eco>, TagValueError> {
        self.get("ECO").map(Eco::from_tag).transpose()
    }

    /// The `Termination` tag.
    pub fn termination(&self) -> Option<Termination> {
        self.get("Termination").map(Termination::from_tag)
    }

    /// Whether `SetUp` is `1` (the game starts from the `FEN` tag's position).
    pub fn set_up(&self) -> bool {
        self.get("SetUp").is_some_and(|v| v.trim() == "1")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_all_forms() {
        let p = |s: &str| s.parse::<TimeControl>();
        assert_eq!(p("?"), Ok(TimeControl::Unknown));
        assert_eq!(p("-"), Ok(TimeControl::Unlimited));
        assert_eq!(
            p("40/9000"),
            Ok(TimeControl::Periods(vec![Period::Moves {
                moves: 40,
                seconds: 9000,
                increment: 0
            }]))
        );
        assert_eq!(
            p("300"),
            Ok(TimeControl::Periods(vec![Period::SuddenDeath {
                seconds: 300,
                increment: 0
            }]))
        );
        let inc = Ok(TimeControl::Periods(vec![Period::SuddenDeath {
            seconds: 4500,
            increment: 60,
        }]));
        assert_eq!(p("4500+60"), inc);
        assert_eq!(p("4500 60"), inc);
        assert_eq!(
            p("*180"),
            Ok(TimeControl::Periods(vec![Period::Sandclock {
                seconds: 180
            }]))
        );
        for s in [
            "?",
            "-",
            "40/9000",
            "300",
            "4500+60",
            "*180",
            "40/7200:3600",
            "40/6000+30:900+30",
        ] {
            assert_eq!(p(s).unwrap().to_string(), s);
        }
        for s in ["", "abc", "40/", "/30", "300+", "*", "1.5", "40/7200::3600"] {
            assert!(p(s).is_err(), "{s}");
        }
    }

    #[test]
    fn dates() {
        let d: PgnDate = "2001.01.31".parse().unwrap();
        assert_eq!((d.year, d.month, d.day), (Some(2001), Some(1), Some(31)));
        assert_eq!(d.to_string(), "2001.01.31");
        let d: PgnDate = "????.??.??".parse().unwrap();
        assert_eq!(d, PgnDate::default());
        assert_eq!(d.to_string(), "????.??.??");
        assert_eq!(
            "1993.??.??".parse::<PgnDate>().unwrap().to_string(),
            "1993.??.??"
        );
        for s in [
            "2001.13.01",
            "2001.1.1",
            "2001-01-01",
            "01.01.2001",
            "2001.01.32",
            "",
        ] {
            assert!(s.parse::<PgnDate>().is_err(), "{s}");
        }
    }

    #[test]
    fn eco_result_plycount_termination() {
        let mut t = Tags::default();
        t.insert("ECO", "C03/10".into());
        t.insert("Result", "1/2-1/2".into());
        t.insert("PlyCount", "75".into());
        t.insert("Termination", "Time forfeit".into());
        assert_eq!(t.eco().unwrap().map(|e| e.to_string()), Some("C03".into()));
        assert_eq!(t.result(), Ok(Some(GameResult::Draw)));
        assert_eq!(t.ply_count(), Ok(Some(75)));
        assert_eq!(t.termination(), Some(Termination::TimeForfeit));
        assert!("F00".parse::<Eco>().is_err());
        assert!("B1".parse::<Eco>().is_err());
        assert!("B19x".parse::<Eco>().is_err());
        t.insert("Result", "2-0".into());
        assert!(t.result().is_err());
        t.insert("PlyCount", "x".into());
        assert!(t.ply_count().is_err());
        assert_eq!(
            Termination::from_tag("weird"),
            Termination::Other("weird".into())
        );
    }
}
