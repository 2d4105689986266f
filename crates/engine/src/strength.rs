//! Strength limiting for `UCI_LimitStrength` and `UCI_Elo`.
//!
//! The engine is weakened along one internal *level* `L`: it searches at most
//! `400 × 2^((L − 1100) / 100)` nodes per move, looks at four root moves
//! (MultiPV 4), and plays the one with the best score after adding to each a
//! random bonus of up to `(2600 − L) / 5` centipawns. Lower levels search less
//! and blunder more.
//!
//! A requested `UCI_Elo` is turned into a level through [`CALIBRATION`]:
//! levels whose strength was measured in games against Stockfish 15.1 limited
//! to known `UCI_Elo` settings (its scale is anchored to the CCRL 40/4 list).
//! Between measured points the level is interpolated linearly; the option's
//! range is the range that was measured. The full-strength engine (no limit)
//! is far stronger than the top setting, which still searches four root moves
//! (MultiPV 4) instead of one.

use crate::search::RootMove;

/// Measured strength of weakening levels: `(Elo, level)`, both increasing.
///
/// Each level played 100 to 120 games at 6s+0.06s against Stockfish 15.1
/// limited to two `UCI_Elo` settings (its scale is anchored to CCRL 40/4; its
/// steps are uneven, hence two opponents per level), both colours of the
/// openings in `crates/tuner/data/openings.epd`, 1 thread, 16 MB hash. The
/// Elo is the maximum-likelihood rating of the pooled results
/// (`crates/tuner/fit_elo.py`), rounded to 10:
///
/// | level | nodes per move | bonus up to | vs `UCI_Elo` (W/D/L) | vs `UCI_Elo` (W/D/L) | Elo (95%) |
/// |---|---|---|---|---|---|
/// | 1100 | 400 | 300 cp | 1350 (28/6/26) | 1500 (15/10/35) | 1370 ± 64 |
/// | 1400 | 3,200 | 240 cp | 1500 (43/6/11) | 1800 (10/16/34) | 1680 ± 68 |
/// | 1700 | 25,600 | 180 cp | 1800 (42/4/14) | 2000 (13/10/37) | 1910 ± 65 |
/// | 2000 | 204,800 | 120 cp | 1950 (27/7/16) | 2200 (3/11/36) | 1990 ± 74 |
/// | 2300 | 1,638,400 | 60 cp | 2200 (3/20/27) | 2500 (1/6/43) | 2030 ± 95 |
/// | 2600 | 13,107,200 | 0 | 2400 (2/11/37) | 2700 (0/9/41) | 2160 ± 108 |
///
/// From about level 2000 on the clock rather than the node cap limits the search
/// at 6s+0.06s, so the top settings play stronger at slower time controls.
pub const CALIBRATION: [(u32, u32); 6] = [
    (1370, 1100),
    (1680, 1400),
    (1910, 1700),
    (1990, 2000),
    (2030, 2300),
    (2160, 2600),
];

/// Weakest `UCI_Elo` setting: the weakest measured level.
pub const ELO_MIN: u32 = CALIBRATION[0].0;
/// Strongest `UCI_Elo` setting: the strongest measured level.
pub const ELO_MAX: u32 = CALIBRATION[CALIBRATION.len() - 1].0;

/// The weakening level for a requested Elo (clamped to the measured range).
pub fn level_for_elo(elo: u32) -> u32 {
    let elo = elo.clamp(ELO_MIN, ELO_MAX);
    for pair in CALIBRATION.windows(2) {
        let ((e0, l0), (e1, l1)) = (pair[0], pair[1]);
        if elo <= e1 {
            return l0 + (elo - e0) * (l1 - l0) / (e1 - e0);
        }
    }
    CALIBRATION[CALIBRATION.len() - 1].1
}

/// Most nodes searched per move at `level`.
pub fn node_cap(level: u32) -> u64 {
    let steps = (f64::from(level) - 1100.0) / 100.0;
    (400.0 * 2f64.powf(steps)).max(1.0) as u64
}

/// Largest random bonus, in centipawns, added to a root move's score at `level`.
pub fn spread(level: u32) -> i64 {
    (2600 - i64::from(level)).max(0) / 5
}

/// Chooses among the (up to four) searched root moves at `level`: each
/// score gets a random bonus of up to [`spread`] centipawns drawn from
/// `seed`, and the best total wins. Returns an index into `moves`.
pub fn pick(moves: &[RootMove], level: u32, seed: u64) -> usize {
    let spread = spread(level);
    let mut x = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut best = 0;
    let mut best_val = i64::MIN;
    for (i, rm) in moves.iter().enumerate().take(4) {
        if rm.score == -crate::params::INFINITE && i > 0 {
            continue;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let noise = if spread > 0 {
            (x % (spread as u64 + 1)) as i64
        } else {
            0
        };
        let v = i64::from(rm.score) + noise;
        if v > best_val {
            best_val = v;
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_is_increasing_and_interpolated() {
        for pair in CALIBRATION.windows(2) {
            assert!(pair[0].0 < pair[1].0 && pair[0].1 < pair[1].1, "{pair:?}");
        }
        for &(elo, level) in &CALIBRATION {
            assert_eq!(level_for_elo(elo), level);
        }
        assert_eq!(level_for_elo(0), CALIBRATION[0].1);
        assert_eq!(
            level_for_elo(u32::MAX),
            CALIBRATION[CALIBRATION.len() - 1].1
        );
        let mut last = 0;
        for elo in ELO_MIN..=ELO_MAX {
            let l = level_for_elo(elo);
            assert!(l >= last);
            last = l;
        }
    }

    #[test]
    fn weaker_levels_search_less_and_err_more() {
        assert!(node_cap(1100) == 400 && node_cap(1200) == 800);
        assert!(spread(1100) > spread(2000) && spread(2600) == 0 && spread(3000) == 0);
    }
}
