//! Time management: from the clock to a soft limit (do not start another
//! iteration after it) and a hard limit (abort the search at once).

use crate::params::*;
use crate::Limits;
use rookery_core::Color;

/// The time budget of one search, in milliseconds from the moment the clock
/// started (the `go`, or the `ponderhit` when pondering).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Stop deepening after this.
    pub soft: u64,
    /// Abort after this.
    pub hard: u64,
}

/// `x` * `permille` / 1000, without overflow (`x` >= 0, `permille` <= 1000).
fn permille(x: i64, permille: i64) -> i64 {
    (i128::from(x) * i128::from(permille) / 1000) as i64
}

/// The budget for `limits` with `us` to move, `None` when time does not limit
/// the search. `overhead` is the Move Overhead option (ms lost per move in
/// communication), always kept on the clock.
///
/// Any numbers a GUI sends are taken: negative clocks and increments, clocks
/// near `i64::MAX`, movetimes near `i64::MAX`. The arithmetic saturates, so a
/// huge clock gives a huge budget and a negative one the least (1 ms), never
/// a wrapped value.
pub fn budget(limits: &Limits, us: Color, overhead: u64) -> Option<Budget> {
    let overhead = i64::try_from(overhead).unwrap_or(i64::MAX);
    if let Some(mt) = limits.movetime {
        // At least 1, so the cast is exact.
        let t = mt.saturating_sub(overhead).max(1) as u64;
        return Some(Budget { soft: t, hard: t });
    }
    let (time, inc) = match us {
        Color::White => (limits.wtime?, limits.winc.unwrap_or(0)),
        Color::Black => (limits.btime?, limits.binc.unwrap_or(0)),
    };
    let inc = inc.max(0);
    let avail = time
        .saturating_sub(overhead)
        .saturating_sub(CLOCK_SAFETY_MS)
        .max(1);
    let mtg = match limits.movestogo {
        Some(n) if n > 0 => i64::from(n).min(MOVES_TO_GO_DEFAULT),
        _ => MOVES_TO_GO_DEFAULT,
    };
    // The increment arrives after the move, and the host's own overhead per
    // move is unknown: spend (part of) it only while the clock holds a
    // reserve of many increments, so that a low clock refills itself.
    let inc_part = if avail > INC_RESERVE.saturating_mul(inc) {
        permille(inc, INC_SPEND_PERMILLE)
    } else {
        0
    };
    let base = (avail / mtg).saturating_add(inc_part);
    let (soft_cap, hard_cap) = if mtg == 1 {
        (
            permille(avail, LAST_MOVE_SOFT_PERMILLE),
            permille(avail, LAST_MOVE_HARD_PERMILLE),
        )
    } else {
        (
            permille(avail, SOFT_MAX_PERMILLE),
            permille(avail, HARD_MAX_PERMILLE),
        )
    };
    // Both at least 1, so the casts are exact.
    let soft = base.min(soft_cap).max(1);
    let hard = base.saturating_mul(HARD_FACTOR).min(hard_cap).max(soft);
    Some(Budget {
        soft: soft as u64,
        hard: hard as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(w: i64, winc: i64, mtg: Option<u32>) -> Limits {
        Limits {
            wtime: Some(w),
            btime: Some(w),
            winc: Some(winc),
            binc: Some(winc),
            movestogo: mtg,
            ..Limits::default()
        }
    }

    #[test]
    fn never_spends_the_whole_clock() {
        for (w, inc, mtg) in [
            (1000, 10, None),
            (30, 10, None),
            (1, 0, None),
            (-50, 0, None),
            (60_000, 0, Some(1)),
            (5_000, 0, Some(40)),
            (100, 1000, None),
        ] {
            let b = budget(&clock(w, inc, mtg), Color::White, 30).unwrap();
            assert!(b.soft <= b.hard, "{w} {inc} {mtg:?}");
            assert!(b.hard as i64 <= (w - 30).max(1), "{w} {inc} {mtg:?}: {b:?}");
        }
        assert_eq!(budget(&Limits::default(), Color::White, 30), None);
        // Extreme clocks from a GUI: no wrap (a wrapped subtraction turned
        // the most negative clock into a huge one, and overflow checks
        // panicked on it).
        for (w, inc) in [
            (i64::MIN, i64::MIN),
            (i64::MIN, i64::MAX),
            (i64::MAX, i64::MAX),
            (i64::MAX, 0),
        ] {
            let b = budget(&clock(w, inc, None), Color::White, u64::MAX).unwrap();
            assert!(1 <= b.soft && b.soft <= b.hard, "{w} {inc}: {b:?}");
            let b = budget(&clock(w, inc, Some(u32::MAX)), Color::White, 30).unwrap();
            assert!(1 <= b.soft && b.soft <= b.hard, "{w} {inc}: {b:?}");
            if w == i64::MIN {
                assert_eq!(b, Budget { soft: 1, hard: 1 });
            } else {
                assert!(b.hard > 1 << 40, "a huge clock is a long think: {b:?}");
            }
        }
        let huge = Limits {
            movetime: Some(i64::MAX),
            ..Limits::default()
        };
        let b = budget(&huge, Color::White, 30).unwrap();
        assert_eq!(
            b.soft,
            i64::MAX as u64 - 30,
            "movetime i64::MAX does not wrap"
        );
        let mt = Limits {
            movetime: Some(200),
            ..Limits::default()
        };
        assert_eq!(
            budget(&mt, Color::Black, 10),
            Some(Budget {
                soft: 190,
                hard: 190
            })
        );
    }
}
