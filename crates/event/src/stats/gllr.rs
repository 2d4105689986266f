//! The SPRT's log-likelihood ratios: the exact generalised LLR of a
//! multinomial sample (fishtest's and fastchess's statistic) and
//! cutechess-cli's BayesElo LLR.
//!
//! # The generalised LLR
//! A sample is `N` results spread over `K` buckets of value `a_i = i / (K -
//! 1)` (games: loss, draw, win = 0, ½, 1; pairs: 0, ¼, ½, ¾, 1 per game),
//! with empirical frequencies `p̂_i`. A hypothesis fixes one number of the
//! unknown distribution: its mean `s` (logistic Elo), or its t-value `(mu -
//! ½) / sigma` (normalized Elo). The generalised LLR compares the most
//! likely distribution under each hypothesis:
//! `LLR = N · Σ p̂_i · ln(q1_i / q0_i)`, with `q_j` the maximum-likelihood
//! distribution whose mean is `s_j` (or whose t-value is `t_j`).
//!
//! The most likely distribution with `Σ q_i b_i = 0` for constraint weights
//! `b_i` (for a mean `s`, `b_i = a_i - s`) is `q_i = p̂_i / (1 + θ b_i)`,
//! with `θ` the root of `Σ p̂_i b_i / (1 + θ b_i) = 0` on the interval where
//! every `1 + θ b_i` is positive (M. Van den Bergh, "Comments on Normalized
//! Elo", Proposition 1.1). The sum falls strictly from `+inf` to `-inf`
//! across that interval, so the root is unique: it is found here by Newton's
//! method, falling back to bisection whenever a step would leave the
//! bracket. For a t-value the weights depend on the solution's own mean and
//! standard deviation, `b_i = a_i - ½ - t · sigma · (1 + ((a_i - mu) /
//! sigma)²) / 2` (section 4.1 of the same note); the solution is their fixed
//! point, iterated from the uniform distribution as fishtest and fastchess
//! do.
//!
//! Empty buckets count as [`EMPTY_BUCKET`] (fishtest's `regularize`), so
//! that results all alike still give a distribution every hypothesis can be
//! fitted to; the evidence of one game is then small (one win moves the
//! logistic `[0, 10]` LLR by 0.03), as it should be.
//!
//! # cutechess-cli's LLR
//! cutechess-cli's SPRT counts single games only and computes no LLR until
//! it has a win, a loss and a draw. It reads the draw Elo of the sample
//! (BayesElo: `drawelo = 200 log10((1 - L) / L · (1 - W) / W)` for the
//! frequencies `W`, `L`), turns the hypotheses' Elo into BayesElo by the
//! draw Elo's scale `4x / (1 + x)²` with `x = 10^(-drawelo / 400)`, and sums
//! `n_r · ln(P1(r) / P0(r))` over the results `r` with the BayesElo
//! probabilities `P(win) = 1 / (1 + 10^((drawelo - elo) / 400))`, `P(loss) =
//! 1 / (1 + 10^((drawelo + elo) / 400))`.

/// What the generalised LLR counts in place of an empty bucket (fishtest's
/// `regularize` in `server/fishtest/stats/LLRcalc.py`, fastchess's
/// `regularize`).
pub(super) const EMPTY_BUCKET: f64 = 1e-3;

/// The most Newton or bisection steps one root takes; each bisection halves
/// the bracket, so 200 reach the limits of `f64` from any start.
const ROOT_STEPS: usize = 200;

/// The most rounds of the t-value's fixed point.
const T_VALUE_ROUNDS: usize = 100;

/// The t-value's fixed point has converged when no probability moves by
/// more than this in a round.
const T_VALUE_TOLERANCE: f64 = 1e-12;

/// The regularised frequencies of `counts` and their total `N`; `None` when
/// every count is zero.
pub(super) fn frequencies<const K: usize>(counts: [f64; K]) -> Option<(f64, [f64; K])> {
    if counts.iter().all(|&c| c == 0.0) {
        return None;
    }
    let filled = counts.map(|c| if c == 0.0 { EMPTY_BUCKET } else { c });
    let n: f64 = filled.iter().sum();
    Some((n, filled.map(|c| c / n)))
}

/// The bucket values `i / (K - 1)`.
fn values<const K: usize>() -> [f64; K] {
    std::array::from_fn(|i| i as f64 / (K - 1) as f64)
}

/// The maximum-likelihood distribution with `Σ q_i b_i = 0` for the
/// empirical frequencies `p` (all positive): `q_i = p_i / (1 + θ b_i)`.
/// `None` when the weights do not straddle 0 (no distribution on these
/// buckets meets the constraint).
fn constrained_mle<const K: usize>(p: &[f64; K], b: &[f64; K]) -> Option<[f64; K]> {
    let b_max = b.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let b_min = b.iter().copied().fold(f64::INFINITY, f64::min);
    if !(b_max > 0.0 && b_min < 0.0) {
        return None;
    }
    // The open interval where every 1 + θ b_i > 0; g(θ) falls from +inf at
    // `lo` to -inf at `hi`, and 0 lies inside.
    let (mut lo, mut hi) = (-1.0 / b_max, -1.0 / b_min);
    let tolerance = 1e-15 * (hi - lo);
    let mut theta = 0.0;
    for _ in 0..ROOT_STEPS {
        let (mut g, mut slope) = (0.0, 0.0);
        for (&pi, &bi) in p.iter().zip(b) {
            let term = bi / (1.0 + theta * bi);
            g += pi * term;
            slope -= pi * term * term;
        }
        if g > 0.0 {
            lo = theta;
        } else if g < 0.0 {
            hi = theta;
        } else {
            break;
        }
        let newton = theta - g / slope;
        let next = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        let step = (next - theta).abs();
        theta = next;
        if step <= tolerance || hi - lo <= tolerance {
            break;
        }
    }
    Some(std::array::from_fn(|i| p[i] / (1.0 + theta * b[i])))
}

/// `N · Σ p_i ln(q1_i / q0_i)`.
fn llr_of<const K: usize>(n: f64, p: &[f64; K], q0: &[f64; K], q1: &[f64; K]) -> f64 {
    n * (0..K).map(|i| p[i] * (q1[i] / q0[i]).ln()).sum::<f64>()
}

/// The generalised LLR of mean score `s1` against `s0` (both in `(0, 1)`)
/// for the regularised frequencies `p` of `n` samples.
pub(super) fn llr_mean<const K: usize>(n: f64, p: &[f64; K], s0: f64, s1: f64) -> f64 {
    let a = values::<K>();
    let mle = |s: f64| constrained_mle(p, &a.map(|ai| ai - s));
    match (mle(s0), mle(s1)) {
        (Some(q0), Some(q1)) => llr_of(n, p, &q0, &q1),
        // A score outside (0, 1): no distribution has it, no evidence.
        _ => 0.0,
    }
}

/// The maximum-likelihood distribution whose t-value `(mu - ½) / sigma` is
/// `t`, for the regularised frequencies `p`.
fn t_value_mle<const K: usize>(p: &[f64; K], t: f64) -> Option<[f64; K]> {
    let a = values::<K>();
    let mut q = [1.0 / K as f64; K];
    for _ in 0..T_VALUE_ROUNDS {
        let mu: f64 = (0..K).map(|i| q[i] * a[i]).sum();
        let sigma = (0..K)
            .map(|i| q[i] * (a[i] - mu) * (a[i] - mu))
            .sum::<f64>()
            .sqrt();
        let b = a.map(|ai| {
            let z = (ai - mu) / sigma;
            ai - 0.5 - t * sigma * (1.0 + z * z) / 2.0
        });
        let next = constrained_mle(p, &b)?;
        let moved = (0..K).map(|i| (next[i] - q[i]).abs()).fold(0.0, f64::max);
        q = next;
        if moved < T_VALUE_TOLERANCE {
            break;
        }
    }
    Some(q)
}

/// The generalised LLR of t-value `t1` against `t0` (t-values per sample:
/// a pair's is `sqrt(2)` times a game's) for the regularised frequencies
/// `p` of `n` samples.
pub(super) fn llr_t_value<const K: usize>(n: f64, p: &[f64; K], t0: f64, t1: f64) -> f64 {
    match (t_value_mle(p, t0), t_value_mle(p, t1)) {
        (Some(q0), Some(q1)) => llr_of(n, p, &q0, &q1),
        // Hypotheses no distribution on these buckets can meet: no evidence.
        _ => 0.0,
    }
}

/// Win, loss and draw probabilities of a BayesElo difference at a draw Elo.
fn bayeselo_probabilities(elo: f64, drawelo: f64) -> [f64; 3] {
    let win = 1.0 / (1.0 + 10f64.powf((drawelo - elo) / 400.0));
    let loss = 1.0 / (1.0 + 10f64.powf((drawelo + elo) / 400.0));
    [win, loss, 1.0 - win - loss]
}

/// cutechess-cli's LLR of logistic Elo `elo1` against `elo0` for `wins`,
/// `losses` and `draws`: 0 until each is at least one.
pub(super) fn llr_cutechess(wins: u64, losses: u64, draws: u64, elo0: f64, elo1: f64) -> f64 {
    if wins == 0 || losses == 0 || draws == 0 {
        return 0.0;
    }
    let n = (wins + losses + draws) as f64;
    let (w, l) = (wins as f64 / n, losses as f64 / n);
    let drawelo = 200.0 * ((1.0 - l) / l * (1.0 - w) / w).log10();
    let x = 10f64.powf(-drawelo / 400.0);
    let scale = 4.0 * x / ((1.0 + x) * (1.0 + x));
    let p0 = bayeselo_probabilities(elo0 / scale, drawelo);
    let p1 = bayeselo_probabilities(elo1 / scale, drawelo);
    [wins, losses, draws]
        .iter()
        .zip(p0.iter().zip(&p1))
        .map(|(&count, (&q0, &q1))| count as f64 * (q1 / q0).ln())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The solution meets its constraint and sums to 1.
    #[test]
    fn the_constrained_mle_meets_its_constraint() {
        let p = [0.1, 0.25, 0.3, 0.25, 0.1];
        for s in [0.2, 0.5, 0.51, 0.9] {
            let q = constrained_mle(&p, &values::<5>().map(|a| a - s)).unwrap();
            let mean: f64 = (0..5).map(|i| q[i] * i as f64 / 4.0).sum();
            assert!((mean - s).abs() < 1e-12, "{s}: {mean}");
            assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{s}: {q:?}");
        }
        // A mean the buckets cannot reach.
        assert!(constrained_mle(&p, &values::<5>().map(|a| a - 1.5)).is_none());
    }

    /// At the sample's own mean the two fits are the sample: LLR 0.
    #[test]
    fn equal_hypotheses_give_no_evidence() {
        let (n, p) = frequencies([3.0, 5.0, 2.0]).unwrap();
        assert_eq!(llr_mean(n, &p, 0.45, 0.45), 0.0);
        assert!(llr_t_value(n, &p, 0.01, 0.01).abs() < 1e-12);
    }

    /// The fitted t-value is the one asked.
    #[test]
    fn the_t_value_fit_has_its_t_value() {
        let (_, p) = frequencies([10.0, 50.0, 100.0, 60.0, 20.0]).unwrap();
        for t in [-0.05, 0.0, 0.02, 0.1] {
            let q = t_value_mle(&p, t).unwrap();
            let a = values::<5>();
            let mu: f64 = (0..5).map(|i| q[i] * a[i]).sum();
            let var: f64 = (0..5).map(|i| q[i] * (a[i] - mu).powi(2)).sum();
            assert!(((mu - 0.5) / var.sqrt() - t).abs() < 1e-9, "{t}: {q:?}");
        }
    }
}
