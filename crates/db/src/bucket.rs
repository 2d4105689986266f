//! The explorer's buckets, as lichess's opening explorer keeps them: a
//! game's speed (from its `TimeControl`), its rating group (from the two
//! players' average rating) and its month (from its `Date`). The index
//! counts each position's games per bucket, so that a question limited to
//! some speeds, some rating groups or a span of months is answered from
//! the index.

use rookery_pgn::Tags;

/// A game's speed, by lichess's estimate of its duration: the base time
/// plus 40 increments, in seconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Speed {
    /// No time control known.
    #[default]
    Unknown = 0,
    /// Under 30 s.
    UltraBullet = 1,
    /// Under 3 minutes.
    Bullet = 2,
    /// Under 8 minutes.
    Blitz = 3,
    /// Under 25 minutes.
    Rapid = 4,
    /// 25 minutes or more.
    Classical = 5,
    /// Days a move (`TimeControl "-"`, as lichess writes a correspondence game's).
    Correspondence = 6,
}

impl Speed {
    /// The speeds by their lichess names, `Unknown` last.
    pub const ALL: [Speed; 7] = [
        Speed::UltraBullet,
        Speed::Bullet,
        Speed::Blitz,
        Speed::Rapid,
        Speed::Classical,
        Speed::Correspondence,
        Speed::Unknown,
    ];

    /// Lichess's name (`ultraBullet`, `blitz`, ...; `unknown`).
    pub fn name(self) -> &'static str {
        match self {
            Speed::Unknown => "unknown",
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    /// The speed of its number (`speed as u8`); unknown for any other.
    pub fn from_number(n: u8) -> Speed {
        Speed::ALL
            .into_iter()
            .find(|&s| s as u8 == n)
            .unwrap_or(Speed::Unknown)
    }

    /// The speed of a name (lichess's, in any case).
    pub fn from_name(name: &str) -> Option<Speed> {
        Speed::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The speed of a `TimeControl` tag value: `180+2` (base and
    /// increment), `600`, `40/7200` (moves per period: its time for 40
    /// moves), `-` (correspondence); the first period of several
    /// (`40/7200:3600`). Anything else is unknown.
    pub fn of_time_control(tc: &str) -> Speed {
        let tc = tc.trim();
        if tc == "-" {
            return Speed::Correspondence;
        }
        let first = tc.split(':').next().unwrap_or("");
        let seconds = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
        };
        let estimate = match first.split_once('/') {
            Some((moves, time)) => match (moves.trim().parse::<f64>().ok(), seconds(time)) {
                (Some(m), Some(t)) if m > 0.0 => Some(t * 40.0 / m),
                _ => None,
            },
            None => match first.split_once('+') {
                Some((base, inc)) => seconds(base).zip(seconds(inc)).map(|(b, i)| b + 40.0 * i),
                None => seconds(first),
            },
        };
        match estimate {
            None => Speed::Unknown,
            Some(e) if e < 30.0 => Speed::UltraBullet,
            Some(e) if e < 180.0 => Speed::Bullet,
            Some(e) if e < 480.0 => Speed::Blitz,
            Some(e) if e < 1500.0 => Speed::Rapid,
            Some(_) => Speed::Classical,
        }
    }
}

/// Lichess's rating groups: a game is in the highest one at or below its
/// players' average rating.
pub const RATING_GROUPS: [u16; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

/// The rating group of two ratings (`None`: a rating is unknown).
pub fn rating_group(white: Option<u32>, black: Option<u32>) -> Option<u16> {
    let avg = (white? + black?) / 2;
    RATING_GROUPS
        .iter()
        .rev()
        .find(|&&g| avg >= u32::from(g))
        .copied()
}

/// A month as one number: `year * 12 + month - 1` (0: unknown).
pub fn month_number(year: u16, month: u8) -> u16 {
    if year == 0 || month == 0 || month > 12 || year > 5000 {
        0
    } else {
        year * 12 + u16::from(month) - 1
    }
}

/// Reads `YYYY-MM` (or `YYYY.MM`) as [`month_number`]'s number.
pub fn parse_month(text: &str) -> Option<u16> {
    let (y, m) = text.trim().split_once(['-', '.'])?;
    let n = month_number(y.parse().ok()?, m.parse().ok()?);
    (n > 0).then_some(n)
}

/// A game's bucket: speed, rating group (`u8::MAX`: unknown), month.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bucket {
    /// The speed.
    pub speed: Speed,
    /// The index of the rating group in [`RATING_GROUPS`], `u8::MAX` when a
    /// rating is unknown.
    pub rating: u8,
    /// The month ([`month_number`]; 0: unknown).
    pub month: u16,
}

impl Bucket {
    /// The bucket of a game's tags.
    pub fn of(tags: &Tags) -> Bucket {
        let elo = |n: &str| rookery_pgn::explorer::elo(tags, n);
        let rating = rating_group(elo("WhiteElo"), elo("BlackElo"))
            .and_then(|g| RATING_GROUPS.iter().position(|&x| x == g))
            .map_or(u8::MAX, |i| i as u8);
        let date = crate::header::Date::from_pgn(tags.get("Date").unwrap_or(""));
        Bucket {
            speed: Speed::of_time_control(tags.get("TimeControl").unwrap_or("")),
            rating,
            month: month_number(date.year, date.month),
        }
    }

    /// The bucket of a stored game's header (the same as [`Bucket::of`]
    /// its tags).
    pub fn of_header(h: &crate::header::Header) -> Bucket {
        let elo = |e: u16| (e > 0).then_some(u32::from(e));
        let rating = rating_group(elo(h.white_elo), elo(h.black_elo))
            .and_then(|g| RATING_GROUPS.iter().position(|&x| x == g))
            .map_or(u8::MAX, |i| i as u8);
        Bucket {
            speed: h.speed,
            rating,
            month: month_number(h.date.year, h.date.month),
        }
    }

    /// The bucket as the low 64 bits of an index key.
    pub fn bits(self) -> u64 {
        (self.speed as u64) << 40 | u64::from(self.rating) << 32 | u64::from(self.month)
    }

    /// The bucket of [`Bucket::bits`].
    pub fn from_bits(b: u64) -> Bucket {
        Bucket {
            speed: Speed::from_number(((b >> 40) & 0xff) as u8),
            rating: ((b >> 32) & 0xff) as u8,
            month: (b & 0xffff) as u16,
        }
    }
}

/// Which buckets a question counts: `None` everywhere is every game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BucketFilter {
    /// These speeds only.
    pub speeds: Option<Vec<Speed>>,
    /// These rating groups only (values of [`RATING_GROUPS`]).
    pub ratings: Option<Vec<u16>>,
    /// From this month on ([`month_number`]); games of unknown month not
    /// counted.
    pub since: Option<u16>,
    /// Up to this month; games of unknown month not counted.
    pub until: Option<u16>,
}

impl BucketFilter {
    /// The filter of lichess's parameters: `speeds` and `ratings`
    /// comma-separated (`blitz,rapid`; `2000,2200`), `since` and `until`
    /// months (`YYYY-MM`); an error names the value that does not read.
    ///
    /// # Errors
    /// What is wrong, for the caller to report (a usage error, a 400).
    pub fn parse(
        speeds: Option<&str>,
        ratings: Option<&str>,
        since: Option<&str>,
        until: Option<&str>,
    ) -> Result<BucketFilter, String> {
        let list = |text: &str| -> Vec<String> {
            text.split(',')
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect()
        };
        let speeds = speeds
            .map(|t| {
                list(t)
                    .iter()
                    .map(|w| {
                        Speed::from_name(w).ok_or_else(|| {
                            format!(
                                "speeds: {w:?} is not a speed (ultraBullet, bullet, blitz, rapid, \
                                 classical, correspondence, unknown)"
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let ratings = ratings
            .map(|t| {
                list(t)
                    .iter()
                    .map(|w| {
                        w.parse::<u16>()
                            .ok()
                            .filter(|g| RATING_GROUPS.contains(g))
                            .ok_or_else(|| {
                                format!("ratings: {w:?} is not a rating group ({RATING_GROUPS:?})")
                            })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let month = |name: &str, v: Option<&str>| {
            v.map(|t| parse_month(t).ok_or_else(|| format!("{name}: {t:?} is not YYYY-MM")))
                .transpose()
        };
        Ok(BucketFilter {
            speeds,
            ratings,
            since: month("since", since)?,
            until: month("until", until)?,
        })
    }

    /// Whether the games of bucket `b` are counted.
    pub fn admits(&self, b: Bucket) -> bool {
        if let Some(s) = &self.speeds {
            if !s.contains(&b.speed) {
                return false;
            }
        }
        if let Some(r) = &self.ratings {
            let group = RATING_GROUPS.get(usize::from(b.rating));
            if !group.is_some_and(|g| r.contains(g)) {
                return false;
            }
        }
        if self.since.is_some() || self.until.is_some() {
            if b.month == 0 {
                return false;
            }
            if self.since.is_some_and(|s| b.month < s) || self.until.is_some_and(|u| b.month > u) {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_speeds_and_groups() {
        assert_eq!(Speed::of_time_control("15+0"), Speed::UltraBullet);
        assert_eq!(Speed::of_time_control("60+1"), Speed::Bullet); // 100 s
        assert_eq!(Speed::of_time_control("180+2"), Speed::Blitz); // 260 s
        assert_eq!(Speed::of_time_control("600+5"), Speed::Rapid); // 800 s
        assert_eq!(Speed::of_time_control("1800+0"), Speed::Classical);
        assert_eq!(Speed::of_time_control("40/7200:3600"), Speed::Classical);
        assert_eq!(Speed::of_time_control("-"), Speed::Correspondence);
        assert_eq!(Speed::of_time_control("?"), Speed::Unknown);
        assert_eq!(rating_group(Some(2100), Some(1950)), Some(2000));
        assert_eq!(rating_group(Some(900), Some(800)), Some(0));
        assert_eq!(rating_group(Some(2600), None), None);
        assert_eq!(parse_month("2024-02"), Some(2024 * 12 + 1));
        let b = Bucket {
            speed: Speed::Rapid,
            rating: 3,
            month: 24000,
        };
        assert_eq!(Bucket::from_bits(b.bits()), b);
    }
}
