//! Time controls and the clocks the referee keeps.
//!
//! A [`TimeControl`] is what a player is given: a clock (`40/60+0.6`,
//! `10+0.1`, `60`), a fixed time per move (`st=0.5`), a node or depth limit,
//! or nothing at all (`inf`). The forms combine (`10+0.1 nodes=20000`), as in
//! cutechess-cli and fastchess. A [`Clock`] is one side's clock in a game:
//! the referee measures the time each move takes and punches it; what the
//! engine says about its own time is never trusted.
//!
//! ```
//! use rookery_game::clock::{Clock, TimeControl};
//! use std::time::Duration;
//!
//! let tc: TimeControl = "40/60+0.6".parse().unwrap();
//! assert_eq!(tc.to_string(), "40/60+0.6");
//! assert_eq!(tc.pgn_tag(), "40/60+0.6");
//! let mut clock = Clock::new(&tc, Duration::from_millis(100));
//! assert_eq!(clock.remaining(), Some(Duration::from_secs(60)));
//! clock.punch(Duration::from_secs(2)).unwrap();
//! assert_eq!(clock.remaining(), Some(Duration::from_millis(58_600)));
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A clock period: `moves` moves (or the rest of the game) in `base`, with
/// `increment` added after each move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClockSpec {
    /// Moves per period; `None`: the whole game (sudden death).
    pub moves: Option<u32>,
    /// Time for the period.
    pub base: Duration,
    /// Added after every move.
    pub increment: Duration,
}

/// What a player is given to think: any combination of a clock, a fixed time
/// per move, a node limit and a depth limit; none of them is `inf`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TimeControl {
    /// A chess clock.
    pub clock: Option<ClockSpec>,
    /// Fixed time per move (`st=`).
    pub movetime: Option<Duration>,
    /// Nodes per move (`nodes=`).
    pub nodes: Option<u64>,
    /// Depth per move in plies (`depth=`).
    pub depth: Option<u32>,
}

/// Text that is not a time control.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad time control {text:?}: {reason}")]
pub struct ParseTimeControlError {
    /// The text.
    pub text: String,
    /// What was expected.
    pub reason: &'static str,
}

/// The longest time any clock or move may be given: 1,000 hours. Longer
/// values are refused rather than allowed to overflow clock arithmetic.
pub const MAX_TIME: Duration = Duration::from_secs(3_600_000);

/// Reads seconds as `S`, `S.fff` or `M:SS[.fff]` (as cutechess-cli does).
fn parse_seconds(s: &str) -> Option<Duration> {
    let (minutes, secs) = match s.split_once(':') {
        Some((m, s)) => (m.parse::<u64>().ok()?, s),
        None => (0, s),
    };
    if secs.is_empty() || secs.starts_with('+') || secs.starts_with('-') {
        return None;
    }
    let value: f64 = secs.parse().ok()?;
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    let total = minutes as f64 * 60.0 + value;
    if total > MAX_TIME.as_secs_f64() {
        return None;
    }
    // Milliseconds are the resolution of UCI clocks.
    Some(Duration::from_millis((total * 1000.0).round() as u64))
}

/// Writes a duration as seconds without trailing zeros (`0.6`, `60`, `1.25`).
fn fmt_seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        format!("{}", ms / 1000)
    } else {
        let s = format!("{}.{:03}", ms / 1000, ms % 1000);
        s.trim_end_matches('0').to_string()
    }
}

impl ClockSpec {
    fn parse(text: &str) -> Result<ClockSpec, &'static str> {
        let (moves, rest) = match text.split_once('/') {
            // Every move in one period: fastchess writes `inf/8+0.08`,
            // cutechess-cli `0/1+2`.
            Some(("inf" | "infinite" | "0", r)) => (None, r),
            Some((m, r)) => {
                let m: u32 = m
                    .parse()
                    .map_err(|_| "moves before '/' must be a number (or inf, or 0: all moves)")?;
                (Some(m), r)
            }
            None => (None, text),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (b, Some(i)),
            None => (rest, None),
        };
        let base =
            parse_seconds(base).ok_or("expected seconds (S, S.f or M:SS) for the base time")?;
        let increment = match inc {
            Some(i) => parse_seconds(i).ok_or("expected seconds after '+'")?,
            None => Duration::ZERO,
        };
        if base.is_zero() && increment.is_zero() {
            return Err("a clock with no time");
        }
        Ok(ClockSpec {
            moves,
            base,
            increment,
        })
    }
}

impl fmt::Display for ClockSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.moves {
            write!(f, "{m}/")?;
        }
        write!(f, "{}", fmt_seconds(self.base))?;
        if !self.increment.is_zero() {
            write!(f, "+{}", fmt_seconds(self.increment))?;
        }
        Ok(())
    }
}

impl TimeControl {
    /// No limit at all (`inf`).
    pub fn is_infinite(&self) -> bool {
        self.clock.is_none()
            && self.movetime.is_none()
            && self.nodes.is_none()
            && self.depth.is_none()
    }

    /// Sets one part from a `key=value` word (`tc`, `st`, `nodes`, `depth`);
    /// `tc=inf` clears the clock.
    ///
    /// # Errors
    /// [`ParseTimeControlError`] for an unknown key or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ParseTimeControlError> {
        let bad = |reason| ParseTimeControlError {
            text: format!("{key}={value}"),
            reason,
        };
        match key {
            "tc" => {
                if value.starts_with("hg") {
                    // cutechess-cli's hourglass (the time one side uses is
                    // given to the other); fastchess refuses it too.
                    return Err(bad("hourglass time controls are not supported"));
                }
                if value == "inf" || value == "infinite" {
                    self.clock = None;
                } else {
                    self.clock = Some(ClockSpec::parse(value).map_err(bad)?);
                }
            }
            "st" => {
                let t = parse_seconds(value).ok_or_else(|| bad("expected seconds"))?;
                if t.is_zero() {
                    return Err(bad("st must be more than 0"));
                }
                self.movetime = Some(t);
            }
            "nodes" => {
                let n: u64 = value.parse().map_err(|_| bad("expected a whole number"))?;
                if n == 0 {
                    return Err(bad("nodes must be at least 1"));
                }
                self.nodes = Some(n);
            }
            "depth" | "plies" => {
                let d: u32 = value.parse().map_err(|_| bad("expected a whole number"))?;
                if d == 0 || d > 1000 {
                    return Err(bad("depth must be 1 to 1000"));
                }
                self.depth = Some(d);
            }
            "hg" => return Err(bad("hourglass time controls are not supported")),
            _ => return Err(bad("expected tc=, st=, nodes= or depth=")),
        }
        Ok(())
    }

    /// The value of the PGN `TimeControl` tag: `40/60+0.6`, `10+0.1`; a
    /// fixed time per move is written `1/S` with no carry-over implied; `-`
    /// for node, depth and unlimited games (PGN's "not applicable").
    pub fn pgn_tag(&self) -> String {
        match (self.clock, self.movetime) {
            (Some(c), _) => c.to_string(),
            (None, Some(st)) => format!("1/{}", fmt_seconds(st)),
            (None, None) => "-".to_string(),
        }
    }
}

impl FromStr for TimeControl {
    type Err = ParseTimeControlError;

    /// Reads `inf`, a clock (`40/60+0.6`, `10+0.1`, `0:30+0.2`), or
    /// space-separated `key=value` words (`tc=10+0.1 nodes=5000`, `st=0.5`).
    fn from_str(s: &str) -> Result<TimeControl, ParseTimeControlError> {
        let mut tc = TimeControl::default();
        let s = s.trim();
        if s.is_empty() {
            return Err(ParseTimeControlError {
                text: s.to_string(),
                reason: "empty",
            });
        }
        for word in s.split_whitespace() {
            match word.split_once('=') {
                Some((k, v)) => tc.set(k, v)?,
                None => tc.set("tc", word)?,
            }
        }
        Ok(tc)
    }
}

impl fmt::Display for TimeControl {
    /// The form [`TimeControl::from_str`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(c) = self.clock {
            parts.push(c.to_string());
        }
        if let Some(st) = self.movetime {
            parts.push(format!("st={}", fmt_seconds(st)));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if parts.is_empty() {
            f.write_str("inf")
        } else {
            f.write_str(&parts.join(" "))
        }
    }
}

/// A move took longer than the clock allowed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("flag fell: used {} ms with {} ms on the clock", .used.as_millis(), .had.as_millis())]
pub struct Flagged {
    /// Time the move took.
    pub used: Duration,
    /// Time that was left (for a fixed time per move, that time).
    pub had: Duration,
}

/// One side's clock during a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    tc: TimeControl,
    margin: Duration,
    /// Time left in the current period (clock controls only).
    remaining: Duration,
    /// Moves left in the current period (`None`: sudden death).
    moves_left: Option<u32>,
}

impl Clock {
    /// A fresh clock for `tc`; a move may overrun by up to `margin` before
    /// the flag falls (the `timemargin` of cutechess-cli).
    pub fn new(tc: &TimeControl, margin: Duration) -> Clock {
        let (remaining, moves_left) = match tc.clock {
            Some(c) => (c.base, c.moves),
            None => (Duration::ZERO, None),
        };
        Clock {
            tc: *tc,
            margin,
            remaining,
            moves_left,
        }
    }

    /// The time control.
    pub fn time_control(&self) -> &TimeControl {
        &self.tc
    }

    /// Time left on a clock control (`None` without a clock).
    pub fn remaining(&self) -> Option<Duration> {
        self.tc.clock.map(|_| self.remaining)
    }

    /// Moves to the next time control, for `go movestogo`.
    pub fn moves_to_go(&self) -> Option<u32> {
        self.moves_left
    }

    /// The increment, for `go winc/binc`.
    pub fn increment(&self) -> Option<Duration> {
        self.tc.clock.map(|c| c.increment)
    }

    /// How long the next move may take before the flag falls: the time left
    /// (or the fixed time per move) plus the margin; `None` when nothing but
    /// nodes or depth limits the move.
    pub fn limit(&self) -> Option<Duration> {
        let t = match (self.tc.clock, self.tc.movetime) {
            (Some(_), Some(st)) => self.remaining.min(st),
            (Some(_), None) => self.remaining,
            (None, Some(st)) => st,
            (None, None) => return None,
        };
        Some(t.saturating_add(self.margin))
    }

    /// Charges a move that took `used`: the flag falls if it took longer than
    /// [`Clock::limit`]; otherwise the time is taken off (an overrun within
    /// the margin leaves zero), the increment added, and a new period begins
    /// when its moves are made.
    ///
    /// # Errors
    /// [`Flagged`] if the move was too slow.
    pub fn punch(&mut self, used: Duration) -> Result<(), Flagged> {
        if let Some(limit) = self.limit() {
            if used > limit {
                return Err(Flagged {
                    used,
                    had: limit.saturating_sub(self.margin),
                });
            }
        }
        if let Some(c) = self.tc.clock {
            self.remaining = self
                .remaining
                .saturating_sub(used)
                .saturating_add(c.increment);
            if let Some(left) = self.moves_left {
                if left <= 1 {
                    self.remaining = self.remaining.saturating_add(c.base);
                    self.moves_left = c.moves;
                } else {
                    self.moves_left = Some(left - 1);
                }
            }
        }
        Ok(())
    }

    /// The clock of a side that has made `moves_made` moves using `used` in
    /// all: what a client rebuilds from the EPD `cc` opcode (time used) and
    /// the `TimeControl` tag. Time left is every period begun plus every
    /// increment earned, less the time used.
    pub fn replay(tc: &TimeControl, used: Duration, moves_made: u32) -> Clock {
        let mut clock = Clock::new(tc, Duration::ZERO);
        if let Some(c) = tc.clock {
            let periods = c.moves.map_or(0, |p| moves_made / p);
            let earned = c
                .base
                .saturating_mul(periods.saturating_add(1))
                .saturating_add(c.increment.saturating_mul(moves_made));
            clock.restore(earned.saturating_sub(used), moves_made);
        }
        clock
    }

    /// Restores a clock from a journal: `remaining` left with `moves_made`
    /// moves already played by this side.
    pub fn restore(&mut self, remaining: Duration, moves_made: u32) {
        self.remaining = remaining;
        if let Some(c) = self.tc.clock {
            if let Some(period) = c.moves {
                self.moves_left = Some(period - moves_made % period);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap()
    }

    #[test]
    fn forms_round_trip() {
        for s in [
            "40/60+0.6",
            "10+0.1",
            "60",
            "inf",
            "st=0.5",
            "nodes=1000",
            "depth=8",
            "10+0.1 nodes=5000",
            "40/7200",
        ] {
            assert_eq!(tc(s).to_string(), s, "{s}");
        }
        assert_eq!(tc("0:30+0.25").to_string(), "30+0.25");
        // All the moves in one period: fastchess's inf/, cutechess-cli's 0/.
        assert_eq!(tc("inf/8+0.08").to_string(), "8+0.08");
        assert_eq!(tc("0/1+2").to_string(), "1+2");
        assert_eq!(tc("tc=0/60").clock.unwrap().moves, None);
        assert_eq!(tc("tc=1:00").clock.unwrap().base, Duration::from_secs(60));
    }

    #[test]
    fn bad_forms_are_refused() {
        for s in [
            "", "abc", "x/60", "-1/60", "-5", "10+-1", "st=0", "nodes=0", "depth=0", "x=1", "0+0",
            "1e300", "NaN", "inf+1",
        ] {
            assert!(s.parse::<TimeControl>().is_err(), "{s:?} accepted");
        }
        for s in ["hg60", "tc=hg0:30", "hg=60"] {
            let e = s.parse::<TimeControl>().unwrap_err();
            assert!(e.reason.contains("hourglass"), "{s:?}: {e}");
        }
    }

    #[test]
    fn pgn_tags() {
        assert_eq!(tc("40/60+0.6").pgn_tag(), "40/60+0.6");
        assert_eq!(tc("st=2").pgn_tag(), "1/2");
        assert_eq!(tc("nodes=10").pgn_tag(), "-");
        assert_eq!(tc("inf").pgn_tag(), "-");
    }

    #[test]
    fn increments_and_periods() {
        let mut c = Clock::new(&tc("2/10+1"), Duration::ZERO);
        c.punch(Duration::from_secs(3)).unwrap(); // 10 - 3 + 1 = 8, one move left
        assert_eq!(c.remaining(), Some(Duration::from_secs(8)));
        assert_eq!(c.moves_to_go(), Some(1));
        c.punch(Duration::from_secs(4)).unwrap(); // 8 - 4 + 1 + 10 = 15, new period
        assert_eq!(c.remaining(), Some(Duration::from_secs(15)));
        assert_eq!(c.moves_to_go(), Some(2));
    }

    #[test]
    fn flag_falls_past_the_margin_only() {
        let mut c = Clock::new(&tc("1"), Duration::from_millis(50));
        assert_eq!(c.limit(), Some(Duration::from_millis(1050)));
        c.punch(Duration::from_millis(1040)).unwrap();
        assert_eq!(c.remaining(), Some(Duration::ZERO));
        let mut c = Clock::new(&tc("1"), Duration::from_millis(50));
        assert!(c.punch(Duration::from_millis(1051)).is_err());
        let mut st = Clock::new(&tc("st=0.1"), Duration::ZERO);
        assert!(st.punch(Duration::from_millis(100)).is_ok());
        assert!(st.punch(Duration::from_millis(101)).is_err());
        let mut n = Clock::new(&tc("nodes=5"), Duration::ZERO);
        assert_eq!(n.limit(), None);
        assert!(n.punch(Duration::from_secs(1000)).is_ok());
    }

    #[test]
    fn restore_sets_the_period() {
        let mut c = Clock::new(&tc("40/60"), Duration::ZERO);
        c.restore(Duration::from_secs(7), 39);
        assert_eq!(c.moves_to_go(), Some(1));
        assert_eq!(c.remaining(), Some(Duration::from_secs(7)));
    }

    #[test]
    fn replay_from_time_used_matches_the_punched_clock() {
        for text in ["40/60+0.6", "10+0.1", "60", "2/1+0.5"] {
            let t = tc(text);
            let mut clock = Clock::new(&t, Duration::ZERO);
            let mut used = Duration::ZERO;
            for n in 1..=85u32 {
                let took = Duration::from_millis(u64::from(n % 7) * 13);
                if clock.punch(took).is_err() {
                    break;
                }
                used += took;
                let replayed = Clock::replay(&t, used, n);
                assert_eq!(replayed.remaining(), clock.remaining(), "{text} after {n}");
                assert_eq!(
                    replayed.moves_to_go(),
                    clock.moves_to_go(),
                    "{text} after {n}"
                );
            }
        }
    }
}
