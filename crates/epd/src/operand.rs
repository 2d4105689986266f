//! The operand basetypes of EPD (spec §5.2): identifier, integer, float,
//! date, time of day, clock and string. Moves are [`rookery_core::Move`]s
//! resolved against the record's position (see [`crate::Record`]).

use core::fmt;
use core::str::FromStr;

use thiserror::Error;

/// A basetype value that could not be read; the message names the value and
/// the expected form.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseOperandError {
    /// Not 1-15 characters of `[A-Za-z0-9_]`.
    #[error("{0:?} is not an identifier (expected 1-15 letters, digits or '_')")]
    Identifier(String),
    /// Not an integer in the 32-bit range.
    #[error("{0:?} is not an integer in -2147483648..2147483647")]
    Integer(String),
    /// Not a non-negative integer that fits 64 bits.
    #[error("{0:?} is not a non-negative integer")]
    Count(String),
    /// Not `[+-]digits.digits`.
    #[error("{0:?} is not a floating point number (expected e.g. 1.5 or -0.25)")]
    Float(String),
    /// Not `YYYY.MM.DD`.
    #[error("{0:?} is not a date (expected YYYY.MM.DD, year 0001-9999)")]
    Date(String),
    /// Not `HH:MM:SS`.
    #[error("{0:?} is not a time of day (expected HH:MM:SS)")]
    TimeOfDay(String),
    /// Not `DDD:HH:MM:SS`.
    #[error("{0:?} is not a clock value (expected DDD:HH:MM:SS)")]
    Clock(String),
}

fn lossy(s: &[u8]) -> String {
    String::from_utf8_lossy(s).into_owned()
}

/// An identifier: 1 to 15 characters from `[A-Za-z0-9_]` (§5.2.1).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Identifier(String);

impl Identifier {
    /// Checks the syntax.
    ///
    /// # Errors
    /// [`ParseOperandError::Identifier`] if `s` is empty, longer than 15
    /// bytes or has a character outside `[A-Za-z0-9_]`.
    pub fn from_ascii(s: &[u8]) -> Result<Identifier, ParseOperandError> {
        if s.is_empty()
            || s.len() > 15
            || !s.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            return Err(ParseOperandError::Identifier(lossy(s)));
        }
        // Checked above: ASCII only.
        Ok(Identifier(lossy(s)))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for Identifier {
    type Err = ParseOperandError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Identifier::from_ascii(s.as_bytes())
    }
}

impl fmt::Display for Identifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads an integer of the §5.2.3 basetype: optional sign, digits, 32-bit range.
///
/// # Errors
/// [`ParseOperandError::Integer`] if the text is not such an integer.
pub fn parse_integer(s: &[u8]) -> Result<i32, ParseOperandError> {
    let bad = || ParseOperandError::Integer(lossy(s));
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || digits.len() > 10 || !digits.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    let v = digits
        .iter()
        .fold(0i64, |acc, &d| acc * 10 + i64::from(d - b'0'));
    let v = if neg { -v } else { v };
    i32::try_from(v).map_err(|_| bad())
}

/// Reads a non-negative count (`acn`, `acs`): digits, optional `+`, up to `u64::MAX`.
///
/// # Errors
/// [`ParseOperandError::Count`] if the text is not such a number.
pub fn parse_count(s: &[u8]) -> Result<u64, ParseOperandError> {
    let bad = || ParseOperandError::Count(lossy(s));
    let digits = s.strip_prefix(b"+").unwrap_or(s);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(bad());
    }
    digits.iter().try_fold(0u64, |acc, &d| {
        acc.checked_mul(10)
            .and_then(|a| a.checked_add(u64::from(d - b'0')))
            .ok_or_else(bad)
    })
}

/// A floating point operand (§5.2.4): `[+-]digits.digits`, no exponent.
/// The basetype is in no current use; it is here for completeness.
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Float(pub f64);

impl Float {
    /// Reads the §5.2.4 form.
    ///
    /// # Errors
    /// [`ParseOperandError::Float`] if the text is not of that form.
    pub fn from_ascii(s: &[u8]) -> Result<Float, ParseOperandError> {
        let bad = || ParseOperandError::Float(lossy(s));
        let body = match s.first() {
            Some(b'-' | b'+') => &s[1..],
            _ => s,
        };
        let dot = body.iter().position(|&c| c == b'.').ok_or_else(bad)?;
        let (int, frac) = (&body[..dot], &body[dot + 1..]);
        if int.is_empty() || frac.is_empty() || !int.iter().chain(frac).all(u8::is_ascii_digit) {
            return Err(bad());
        }
        // Checked above: ASCII digits, a dot and a sign only.
        let text = core::str::from_utf8(s).map_err(|_| bad())?;
        text.parse::<f64>().map(Float).map_err(|_| bad())
    }
}

impl fmt::Display for Float {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = format!("{:?}", self.0);
        if s.contains('e') || !s.contains('.') {
            // Debug uses exponents for very large or small values; write digits.
            write!(f, "{:.1}", self.0)
        } else {
            f.write_str(&s)
        }
    }
}

fn digits(s: &[u8], n: usize) -> Option<u32> {
    if s.len() != n || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0, |acc, &d| acc * 10 + u32::from(d - b'0')))
}

/// A date `YYYY.MM.DD` (§5.2.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// 1-9999.
    pub year: u16,
    /// 1-12.
    pub month: u8,
    /// 1-31.
    pub day: u8,
}

impl Date {
    /// Reads `YYYY.MM.DD`.
    ///
    /// # Errors
    /// [`ParseOperandError::Date`] if the form or a range is wrong.
    pub fn from_ascii(s: &[u8]) -> Result<Date, ParseOperandError> {
        let bad = || ParseOperandError::Date(lossy(s));
        if s.len() != 10 || s[4] != b'.' || s[7] != b'.' {
            return Err(bad());
        }
        let year = digits(&s[0..4], 4).ok_or_else(bad)?;
        let month = digits(&s[5..7], 2).ok_or_else(bad)?;
        let day = digits(&s[8..10], 2).ok_or_else(bad)?;
        if !(1..=9999).contains(&year) || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return Err(bad());
        }
        Ok(Date {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        })
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}.{:02}.{:02}", self.year, self.month, self.day)
    }
}

/// A time of day `HH:MM:SS` (§5.2.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeOfDay {
    /// 0-23.
    pub hour: u8,
    /// 0-59.
    pub minute: u8,
    /// 0-59.
    pub second: u8,
}

impl TimeOfDay {
    /// Reads `HH:MM:SS`, and also `HH:MM` (the Russian description's form;
    /// seconds 0). [`TimeOfDay::is_short_form`] tells which was written.
    ///
    /// # Errors
    /// [`ParseOperandError::TimeOfDay`] if the form or a range is wrong.
    pub fn from_ascii(s: &[u8]) -> Result<TimeOfDay, ParseOperandError> {
        let bad = || ParseOperandError::TimeOfDay(lossy(s));
        if (s.len() != 8 && s.len() != 5) || s[2] != b':' || (s.len() == 8 && s[5] != b':') {
            return Err(bad());
        }
        let hour = digits(&s[0..2], 2).ok_or_else(bad)?;
        let minute = digits(&s[3..5], 2).ok_or_else(bad)?;
        let second = if s.len() == 8 {
            digits(&s[6..8], 2).ok_or_else(bad)?
        } else {
            0
        };
        if hour > 23 || minute > 59 || second > 59 {
            return Err(bad());
        }
        Ok(TimeOfDay {
            hour: hour as u8,
            minute: minute as u8,
            second: second as u8,
        })
    }

    /// Whether `s` is the short `HH:MM` form.
    pub fn is_short_form(s: &[u8]) -> bool {
        s.len() == 5
    }
}

impl fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}:{:02}", self.hour, self.minute, self.second)
    }
}

/// A chess clock value `DDD:HH:MM:SS` (§5.2.7).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Clock {
    /// 0-999.
    pub days: u16,
    /// 0-23.
    pub hours: u8,
    /// 0-59.
    pub minutes: u8,
    /// 0-59.
    pub seconds: u8,
}

impl Clock {
    /// Reads `DDD:HH:MM:SS`.
    ///
    /// # Errors
    /// [`ParseOperandError::Clock`] if the form or a range is wrong.
    pub fn from_ascii(s: &[u8]) -> Result<Clock, ParseOperandError> {
        let bad = || ParseOperandError::Clock(lossy(s));
        if s.len() != 12 || s[3] != b':' || s[6] != b':' || s[9] != b':' {
            return Err(bad());
        }
        let days = digits(&s[0..3], 3).ok_or_else(bad)?;
        let hours = digits(&s[4..6], 2).ok_or_else(bad)?;
        let minutes = digits(&s[7..9], 2).ok_or_else(bad)?;
        let seconds = digits(&s[10..12], 2).ok_or_else(bad)?;
        if hours > 23 || minutes > 59 || seconds > 59 {
            return Err(bad());
        }
        Ok(Clock {
            days: days as u16,
            hours: hours as u8,
            minutes: minutes as u8,
            seconds: seconds as u8,
        })
    }

    /// A clock value from a number of seconds, `None` beyond 999 days.
    pub fn from_seconds(total: u64) -> Option<Clock> {
        let days = total / 86_400;
        if days > 999 {
            return None;
        }
        let rem = total % 86_400;
        Some(Clock {
            days: days as u16,
            hours: (rem / 3600) as u8,
            minutes: (rem % 3600 / 60) as u8,
            seconds: (rem % 60) as u8,
        })
    }

    /// The value in seconds.
    pub fn as_seconds(&self) -> u64 {
        u64::from(self.days) * 86_400
            + u64::from(self.hours) * 3600
            + u64::from(self.minutes) * 60
            + u64::from(self.seconds)
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:03}:{:02}:{:02}:{:02}",
            self.days, self.hours, self.minutes, self.seconds
        )
    }
}

/// Appends `s` as a quoted EPD string, escaping `"` and `\` with a backslash.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    // Vectorised: the strings of a suite (comments, ids) are most of its bytes.
    if memchr::memchr2(b'"', b'\\', s.as_bytes()).is_none() {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// An operand kept as written: an unquoted token or a string (unescaped).
/// Used for `noop`, unknown opcodes and operations kept verbatim.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RawOperand {
    /// Contiguous non-blank characters.
    Token(String),
    /// A quoted string, without its quotes and with escapes resolved.
    Quoted(String),
}

impl RawOperand {
    /// Appends the external form.
    pub fn append_to(&self, out: &mut String) {
        match self {
            RawOperand::Token(t) => out.push_str(t),
            RawOperand::Quoted(s) => write_string(out, s),
        }
    }

    /// The text (without quotes).
    pub fn text(&self) -> &str {
        match self {
            RawOperand::Token(t) | RawOperand::Quoted(t) => t,
        }
    }
}

impl fmt::Display for RawOperand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.append_to(&mut s);
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(parse_integer(b"-2147483648"), Ok(i32::MIN));
        assert_eq!(parse_integer(b"2147483647"), Ok(i32::MAX));
        assert_eq!(parse_integer(b"+5"), Ok(5));
        assert!(parse_integer(b"2147483648").is_err());
        assert!(parse_integer(b"-").is_err());
        assert!(parse_integer(b"1.0").is_err());
        assert_eq!(parse_count(b"18446744073709551615"), Ok(u64::MAX));
        assert!(parse_count(b"18446744073709551616").is_err());
        assert!(parse_count(b"-1").is_err());
    }

    #[test]
    fn dates_times_clocks() {
        let d = Date::from_ascii(b"1995.11.26").unwrap();
        assert_eq!(d.to_string(), "1995.11.26");
        assert!(Date::from_ascii(b"1995.13.01").is_err());
        assert!(Date::from_ascii(b"0000.01.01").is_err());
        let t = TimeOfDay::from_ascii(b"23:59:07").unwrap();
        assert_eq!(t.to_string(), "23:59:07");
        let t = TimeOfDay::from_ascii(b"08:15").unwrap();
        assert_eq!(t.to_string(), "08:15:00");
        assert!(TimeOfDay::from_ascii(b"24:00:00").is_err());
        let c = Clock::from_ascii(b"001:02:03:04").unwrap();
        assert_eq!(c.as_seconds(), 86_400 + 7200 + 180 + 4);
        assert_eq!(Clock::from_seconds(c.as_seconds()), Some(c));
        assert_eq!(c.to_string(), "001:02:03:04");
        assert!(Clock::from_ascii(b"1:02:03:04").is_err());
    }

    #[test]
    fn floats_and_identifiers() {
        assert_eq!(Float::from_ascii(b"-1.25").unwrap().0, -1.25);
        assert!(Float::from_ascii(b"1.").is_err());
        assert!(Float::from_ascii(b"1e5").is_err());
        assert_eq!(Float(2.0).to_string(), "2.0");
        assert!(Identifier::from_ascii(b"sign_on").is_ok());
        assert!(Identifier::from_ascii(b"0123456789abcdef").is_err());
        assert!(Identifier::from_ascii(b"a-b").is_err());
    }
}
