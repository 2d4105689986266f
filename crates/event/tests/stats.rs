//! Match statistics and SPRT checked against figures computed outside this
//! crate.
//!
//! Where the figures come from:
//! - (H) by hand, the derivation written beside the test;
//! - (P) Python 3 with only the `math` module (`math.erf`, `math.log10`), a
//!   separate implementation of the textbook formulas, run while writing these
//!   tests; the script, kept here so the numbers can be re-derived:
//!
//! ```text
//! import math
//! Z = 1.959963984540054; K = 800 / math.log(10)
//! def elo(s): return -400*math.log10(1/s - 1) if 0 < s < 1 else (math.inf if s >= 1 else -math.inf)
//! def lscore(e): return 1 / (1 + 10**(-e/400))
//! def phi(x): return 0.5 * (1 + math.erf(x / math.sqrt(2)))
//! def sample(vals, counts):
//!     n = sum(counts); m = sum(v*c for v, c in zip(vals, counts)) / n
//!     return n, m, sum(c*(v - m)**2 for v, c in zip(vals, counts)) / n
//! def est(vals, counts, gps, los):           # gps: games per sample (1 game, 2 pair)
//!     n, m, var = sample(vals, counts); se = math.sqrt(var/n)
//!     lo, hi = max(m - Z*se, 0), min(m + Z*se, 1)
//!     return dict(score=m, elo=elo(m), lo=elo(lo), hi=elo(hi), los=los(n, m, se),
//!                 nelo=(m - .5)/math.sqrt(gps*var)*K if var > 0 else None, nerr=Z*K/math.sqrt(n*gps))
//! def wdl(W, D, L): return est([1, .5, 0], [W, D, L], 1,
//!     lambda n, m, se: .5*(1 + math.erf((W - L)/math.sqrt(2*(W + L)))) if W + L else .5)
//! def ptnml(p): return est([0, .25, .5, .75, 1], p, 2,
//!     lambda n, m, se: phi((m - .5)/se) if se > 0 else (1. if m > .5 else 0. if m < .5 else .5))
//! def llr(vals, counts, gps, e0, e1, model):
//!     n, m, var = sample(vals, counts)
//!     if model == 'logistic': s0, s1 = lscore(e0), lscore(e1)
//!     else: sg = math.sqrt(gps*var); s0, s1 = .5 + e0/K*sg, .5 + e1/K*sg
//!     return n*(s1 - s0)*(2*m - s0 - s1)/(2*var)
//! def wilson(s, n):                          # the interval without spread
//!     z2n = Z*Z/n; c = (s + z2n/2)/(1 + z2n); h = Z/(1 + z2n)*math.sqrt(s*(1 - s)/n + z2n/(4*n))
//!     return (0 if s <= 0 else c - h), (1 if s >= 1 else c + h)
//! def score_los(s, n): return phi(2*(s - .5)*math.sqrt(n))   # LOS without spread
//! ```
//!
//! - (R) `tests/fishtest_llr.py`, a pure-Python implementation written from
//!   fishtest's, fastchess's and cutechess-cli's published LLR formulas (the
//!   exact generalised LLR on regularised counts, solved by bisection;
//!   cutechess-cli's BayesElo LLR); its output is
//!   `tests/data/fishtest_llr.txt`, which the tests read ([`reference`]).
//!
//! - (F) figures published by a fishtest instance for a real test
//!   (montytest.muzhen.org, test 69d3c8dc7c5b3724e29d2712, pentanomial
//!   `[13, 37, 50, 25, 3]`, SPRT normalized [0, 4]): an implementation that is
//!   not ours.

use proptest::prelude::*;
use rookery_event::stats::{
    elo_from_score, Basis, EloEstimate, EloModel, InvalidSprtError, Outcome, ParseSprtError,
    Pentanomial, ResultModel, Sprt, SprtConfig, SprtState, Tally, Wdl,
};

fn wdl(wins: u64, draws: u64, losses: u64) -> Wdl {
    Wdl {
        wins,
        draws,
        losses,
    }
}

fn ptnml(counts: [u64; 5]) -> Pentanomial {
    Pentanomial { counts }
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want}");
}

fn sprt(elo0: f64, elo1: f64, model: EloModel) -> Sprt {
    Sprt::new(SprtConfig::with_default_rates(elo0, elo1, model)).unwrap()
}

fn games_only(w: Wdl) -> Tally {
    Tally {
        wdl: w,
        ptnml: Pentanomial::default(),
    }
}

fn pairs_only(p: Pentanomial) -> Tally {
    Tally {
        wdl: Wdl::default(),
        ptnml: p,
    }
}

/// (H) W/D/L 30/40/20, N = 90.
/// s = (30 + 40/2)/90 = 5/9 = 0.555556.
/// var = (30·(4/9)² + 40·(1/18)² + 20·(5/9)²)/90 = (5.92593 + 0.12346 + 6.17284)/90 = 0.135802.
/// se = sqrt(0.135802/90) = 0.0388448; s ± 1.959964·se = [0.479421, 0.631690].
/// Elo = -400·log10(9/5 - 1) = -400·log10(0.8) = 38.7640;
/// lower = -400·log10(1/0.479421 - 1) = -14.3077; upper = -400·log10(1/0.631690 - 1) = 93.7161;
/// LOS = ½(1 + erf((30-20)/sqrt(2·50))) = ½(1 + erf(1)) = ½(1 + 0.8427008) = 0.921350;
/// nElo = (5/9 - ½)/sqrt(0.135802)·800/ln 10 = 0.150756·347.4356 = 52.3779;
/// nElo error = 1.959964·347.4356/sqrt(90) = 71.7796. (P) agrees to every digit given.
#[test]
fn wdl_30_40_20_by_hand() {
    let w = wdl(30, 40, 20);
    assert_eq!(w.games(), 90);
    close(w.score().unwrap(), 5.0 / 9.0, 1e-15, "score");
    close(w.draw_ratio().unwrap(), 4.0 / 9.0, 1e-15, "draw ratio");
    let e = w.estimate().unwrap();
    assert_eq!(e.games, 90);
    close(e.elo, 38.764_005_203_222_61, 1e-9, "elo");
    close(e.elo_lower, -14.307_696_542_161_489, 1e-9, "lower");
    close(e.elo_upper, 93.716_129_280_962_45, 1e-9, "upper");
    close(e.elo_error(), 54.011_912_911_561_97, 1e-9, "error");
    close(e.los, 0.921_350_396_474_857_5, 1e-12, "los");
    close(w.los().unwrap(), e.los, 0.0, "los");
    close(e.nelo.unwrap(), 52.377_885_272_541_09, 1e-9, "nelo");
    close(e.nelo_error, 71.779_616_650_911_68, 1e-9, "nelo error");
}

/// (P) W/D/L 120/260/100: score 0.5208333, Elo 14.484869 [-6.526660, 35.602956],
/// LOS 0.9112351, nElo 21.423796 +/- 31.081486.
/// (P) The mirror 20/40/30 of the hand case gives -38.764005 [-93.716129, 14.307697], LOS 0.0786496.
#[test]
fn wdl_more_cases_python() {
    let e = wdl(120, 260, 100).estimate().unwrap();
    close(e.score, 0.520_833_333_333_333_4, 1e-15, "score");
    close(e.elo, 14.484_869_061_777_905, 1e-9, "elo");
    close(e.elo_lower, -6.526_659_618_963_195, 1e-9, "lower");
    close(e.elo_upper, 35.602_956_405_730_055, 1e-9, "upper");
    close(e.los, 0.911_235_073_793_923_2, 1e-12, "los");
    close(e.nelo.unwrap(), 21.423_795_988_409_21, 1e-9, "nelo");
    close(e.nelo_error, 31.081_485_746_799, 1e-9, "nelo error");

    let m = wdl(20, 40, 30).estimate().unwrap();
    close(m.elo, -38.764_005_203_222_57, 1e-9, "mirror elo");
    close(m.elo_lower, -93.716_129_280_962_45, 1e-9, "mirror lower");
    close(m.elo_upper, 14.307_696_542_161_441, 1e-9, "mirror upper");
    close(m.los, 0.078_649_603_525_142_55, 1e-12, "mirror los");
}

/// Edge cases: no NaN, no panic, explicit None / infinities, and an interval
/// with a width even when every game scored alike (the sample variance is 0
/// then, and the normal interval had none: 10 wins gave Elo [inf, inf] and
/// 10 draws 0 +/- 0). Without spread the interval is Wilson's (P `wilson`):
/// (H) 10 wins: s = 1, z²/n = 3.841459/10 = 0.3841459; the lower end is
/// (1 + z²/2n - z²/2n)/(1 + z²/n) = 1/1.3841459 = 0.7224672, Elo
/// -400·log10(1/0.7224672 - 1) = -400·log10(0.3841459) = 166.20153; the upper end is 1, +inf;
/// LOS = ½(1 + erf(10/sqrt(20))) = ½(1 + erf(2.236068)) = 0.9992173 (P).
/// 10 losses: the mirror, Elo [-inf, -166.20153], LOS 0.0007827 (P).
/// 10 draws: s = ½, centre ½, half width 1.959964/1.3841459·sqrt(0.025 + 0.3841459/40)
/// = 1.4160008·0.1860202 = 0.2634069, so scores [0.2365931, 0.7634069] and
/// Elo ±400·log10(0.7634069/0.2365931) = ±203.50161; LOS ½ (no decisive game); nElo undefined.
/// One game: a win is Elo +inf with the lower end at 1/(1 + z²) = 0.2065493, Elo -233.79847
/// (P), LOS ½(1 + erf(1/sqrt 2)) = Φ(1) = 0.8413447; a draw 0 +/- 495.29934 (P).
/// (P) 3/1/0: s = 0.875, var = 0.046875, se = 0.108253, s + 1.96·se > 1, so upper = +inf;
/// Elo 338.039216, lower 117.419485, LOS ½(1 + erf(3/sqrt(6))) = 0.9583677.
#[test]
fn wdl_edge_cases() {
    let none = Wdl::default();
    assert_eq!(none.score(), None);
    assert_eq!(none.draw_ratio(), None);
    assert_eq!(none.los(), None);
    assert_eq!(none.estimate(), None);

    let wins = wdl(10, 0, 0).estimate().unwrap();
    assert_eq!((wins.elo, wins.elo_upper), (f64::INFINITY, f64::INFINITY));
    close(
        wins.elo_lower,
        166.201_527_183_890_93,
        1e-9,
        "all wins lower",
    );
    assert_eq!(wins.elo_error(), f64::INFINITY);
    assert_eq!(wins.nelo, None);
    close(wins.los, 0.999_217_298_870_998_7, 1e-12, "all wins los");

    let losses = wdl(0, 0, 10).estimate().unwrap();
    assert_eq!(
        (losses.elo, losses.elo_lower),
        (f64::NEG_INFINITY, f64::NEG_INFINITY)
    );
    close(
        losses.elo_upper,
        -166.201_527_183_890_93,
        1e-9,
        "all losses upper",
    );
    assert_eq!(losses.elo_error(), f64::INFINITY);
    close(
        losses.los,
        0.000_782_701_129_001_250_9,
        1e-12,
        "all losses los",
    );

    let draws = wdl(0, 10, 0).estimate().unwrap();
    assert_eq!(draws.elo, 0.0);
    close(
        draws.elo_lower,
        -203.501_611_627_731_85,
        1e-9,
        "all draws lower",
    );
    close(
        draws.elo_upper,
        203.501_611_627_731_96,
        1e-9,
        "all draws upper",
    );
    close(
        draws.elo_error(),
        203.501_611_627_731_9,
        1e-9,
        "all draws error",
    );
    assert_eq!((draws.los, draws.nelo), (0.5, None));

    let win = wdl(1, 0, 0).estimate().unwrap();
    assert_eq!((win.elo, win.elo_upper), (f64::INFINITY, f64::INFINITY));
    close(win.elo_lower, -233.798_472_816_109, 1e-9, "one win lower");
    close(win.los, 0.841_344_746_068_542_9, 1e-12, "one win los");
    let draw = wdl(0, 1, 0).estimate().unwrap();
    close(
        draw.elo_error(),
        495.299_344_055_623_8,
        1e-9,
        "one draw error",
    );
    assert_eq!((draw.elo, draw.los), (0.0, 0.5));
    for e in [wins, losses, draws, win, draw] {
        assert!(e.elo_lower < e.elo_upper, "{e:?}");
        assert_eq!(e.basis.model, ResultModel::Trinomial);
    }

    let e = wdl(3, 1, 0).estimate().unwrap();
    close(e.elo, 338.039_216_005_702_8, 1e-9, "elo");
    close(e.elo_lower, 117.419_484_905_970_22, 1e-9, "lower");
    assert_eq!(e.elo_upper, f64::INFINITY);
    close(e.los, 0.958_367_741_668_224_8, 1e-12, "los");
    assert_eq!(
        e.basis,
        Basis {
            model: ResultModel::Trinomial,
            samples: 4
        }
    );
}

/// (F) montytest's page for ptnml [13, 37, 50, 25, 3] (128 pairs) lists: score 0.43750,
/// variance (of a pair's mean score) 0.05762, Elo -43.6578, normalized Elo -63.97, the H1
/// score for nElo 4 as 0.50391 (logistic 2.716), and among its LLR approximations
/// "Logistic (alt2)" -0.55961 for those same two scores (our formula; its exact LLR is -0.549).
/// (H) score = (37·0.25 + 50·0.5 + 25·0.75 + 3)/128 = 56/128 = 0.4375.
/// (P) interval [-73.397216, -14.542887] (fishtest prints a different interval method),
/// LOS Φ((0.4375-0.5)/sqrt(0.0576172/128)) = 0.0016104, nElo error 1.96·347.4356/sqrt(256) = 42.56008.
#[test]
fn pentanomial_matches_fishtest_figures() {
    let p = ptnml([13, 37, 50, 25, 3]);
    assert_eq!(p.pairs(), 128);
    let e = p.estimate().unwrap();
    assert_eq!(e.games, 256);
    close(e.score, 0.4375, 1e-15, "score");
    close(e.elo, -43.6578, 5e-5, "elo (F)");
    close(e.nelo.unwrap(), -63.97, 5e-3, "nelo (F)");
    close(e.elo_lower, -73.397_216_196_862_47, 1e-9, "lower (P)");
    close(e.elo_upper, -14.542_887_158_519_918, 1e-9, "upper (P)");
    close(e.los, 0.001_610_401_145_416_662_2, 1e-12, "los (P)");
    close(e.nelo_error, 42.560_077_160_742_79, 1e-9, "nelo error (P)");

    let normalized = sprt(0.0, 4.0, EloModel::Normalized).llr(&pairs_only(p));
    // The page rounds elo1 to 2.716 (2.71575 unrounded).
    let logistic = sprt(0.0, 2.716, EloModel::Logistic).llr(&pairs_only(p));
    let counts = [13, 37, 50, 25, 3];
    #[rustfmt::skip]
    let llrs = [
        (normalized, reference(&counts, 0.0, 4.0, "normalized"), 1e-9, "normalized llr (R)"),
        (logistic, reference(&counts, 0.0, 2.716, "logistic"), 1e-9, "logistic llr (R)"),
        // The page prints fishtest's quadratic approximation of the LLR
        // (LLR_alt2, -0.55961), 0.0105 from the exact one at 128 pairs.
        (normalized, -0.55961, 0.02, "normalized llr (F), approximated"),
    ];
    for (got, want, tolerance, what) in llrs {
        close(got, want, tolerance, what);
    }
    close(elo_from_score(0.50391), 2.716, 5e-3, "H1 logistic Elo (F)");
}

/// (P) ptnml [10, 50, 100, 60, 20]: score 0.53125, Elo 21.743065 [0.375656, 43.276221],
/// LOS 0.9769495, nElo 31.628649 (pair variance 0.0589193, per-game sigma sqrt(2·0.0589193)).
/// Edges, every pair alike (no spread: Wilson's interval over n pairs, and LOS
/// Φ(2 (s - ½) sqrt(n)); the old figures were a zero-width interval and LOS 1):
/// [0,0,5,0,0] Elo 0 +/- 274.930685 (P `wilson(.5, 5)`), LOS ½;
/// [0,0,0,0,4] Elo +inf, lower end (H) 4/(4 + 3.841459) = 0.5101092, Elo 7.025524, and
/// LOS Φ(2·½·2) = Φ(2) = 0.9772499;
/// [0,0,0,3,0] s = 0.75, Elo = -400·log10(1/3) = 190.848502, interval (P `wilson(.75, 3)`)
/// [-185.248667, 566.945670], LOS Φ(2·¼·sqrt 3) = Φ(0.8660254) = 0.8067619.
#[test]
fn pentanomial_cases_python() {
    let e = ptnml([10, 50, 100, 60, 20]).estimate().unwrap();
    close(e.score, 0.53125, 1e-15, "score");
    close(e.elo, 21.743_064_929_037_08, 1e-9, "elo");
    close(e.elo_lower, 0.375_656_314_549_763_7, 1e-9, "lower");
    close(e.elo_upper, 43.276_221_040_641_55, 1e-9, "upper");
    close(e.los, 0.976_949_505_101_031_8, 1e-12, "los");
    close(e.nelo.unwrap(), 31.628_648_906_708_122, 1e-9, "nelo");
    assert_eq!(
        (e.basis, e.games),
        (
            Basis {
                model: ResultModel::Pentanomial,
                samples: 240
            },
            480
        )
    );

    assert_eq!(Pentanomial::default().estimate(), None);
    assert_eq!(Pentanomial::default().los(), None);
    let even = ptnml([0, 0, 5, 0, 0]).estimate().unwrap();
    assert_eq!((even.elo, even.los, even.nelo), (0.0, 0.5, None));
    close(even.elo_error(), 274.930_685_225_880_67, 1e-9, "even error");
    close(even.elo_upper, -even.elo_lower, 1e-9, "even symmetric");

    let sweep = ptnml([0, 0, 0, 0, 4]).estimate().unwrap();
    assert_eq!((sweep.elo, sweep.elo_upper), (f64::INFINITY, f64::INFINITY));
    close(sweep.elo_lower, 7.025_523_715_075_911, 1e-9, "sweep lower");
    close(sweep.los, 0.977_249_868_051_820_8, 1e-12, "sweep los");
    close(
        ptnml([4, 0, 0, 0, 0]).los().unwrap(),
        1.0 - sweep.los,
        1e-15,
        "the mirror",
    );

    let e = ptnml([0, 0, 0, 3, 0]).estimate().unwrap();
    close(e.elo, 190.848_501_887_865, 1e-9, "elo");
    close(e.elo_lower, -185.248_666_561_302, 1e-9, "lower");
    close(e.elo_upper, 566.945_670_337_032_1, 1e-9, "upper");
    close(e.los, 0.806_761_884_614_383_6, 1e-12, "los");
}

/// (H) bounds: ln(0.05/0.95) = -ln 19 = -2.944439, ln(0.95/0.05) = ln 19;
/// alpha 0.05, beta 0.1: ln(0.1/0.95) = -2.251292, ln(0.9/0.05) = ln 18 = 2.890372.
#[test]
fn sprt_bounds() {
    let (lo, hi) = sprt(0.0, 5.0, EloModel::Normalized).bounds();
    close(lo, -(19f64.ln()), 1e-15, "lower");
    close(hi, 19f64.ln(), 1e-15, "upper");
    let s = Sprt::new("elo0=0 elo1=5 alpha=0.05 beta=0.1".parse().unwrap()).unwrap();
    let (lo, hi) = s.bounds();
    close(lo, -2.251_291_798_606_495, 1e-12, "lower");
    close(hi, 18f64.ln(), 1e-12, "upper");
}

/// (R) trinomial LLRs and the decisions they make, elo0 = 0, elo1 = 5,
/// alpha = beta = 0.05 (bounds ±2.944): 600/800/400 accepts H1 and 400/800/600
/// H0 in every model; 30/40/20 continues. (R) [L, D, W] order in the table.
#[test]
fn sprt_trinomial_decisions() {
    use SprtState::{AcceptH0, AcceptH1, Continue};
    // One row a case, as a table.
    #[rustfmt::skip]
    let cases = [
        (wdl(600, 800, 400), AcceptH1),
        (wdl(400, 800, 600), AcceptH0),
        (wdl(30, 40, 20), Continue),
    ];
    for (w, state) in cases {
        for model in ["normalized", "logistic", "bayesian"] {
            let status = sprt(0.0, 5.0, elo_model(model)).status(&games_only(w));
            let want = reference(&[w.losses, w.draws, w.wins], 0.0, 5.0, model);
            close(status.llr, want, 1e-9, &format!("{w:?} {model}"));
            assert_eq!(status.state, state, "{w:?} {model}");
        }
    }
    let t = games_only(wdl(120, 260, 100));
    for model in ["normalized", "logistic", "bayesian"] {
        close(
            sprt(-3.0, 1.0, elo_model(model)).llr(&t),
            reference(&[100, 260, 120], -3.0, 1.0, model),
            1e-9,
            &format!("{model} [-3, 1]"),
        );
    }
}

/// (R) pentanomial LLRs (pairs as samples) and their decisions:
/// normalized [0,5]: [40,300,700,400,60] H1, [60,400,700,300,40] H0,
/// [10,50,100,60,20] continues (so does logistic [0,5] on it); logistic
/// [-1.75, 0.25] on the first continues.
#[test]
fn sprt_pentanomial_decisions() {
    use SprtState::{AcceptH0, AcceptH1, Continue};
    // One row a case, as a table.
    #[rustfmt::skip]
    let cases = [
        ([40, 300, 700, 400, 60], 0.0, 5.0, "normalized", AcceptH1),
        ([60, 400, 700, 300, 40], 0.0, 5.0, "normalized", AcceptH0),
        ([10, 50, 100, 60, 20], 0.0, 5.0, "normalized", Continue),
        ([10, 50, 100, 60, 20], 0.0, 5.0, "logistic", Continue),
        ([40, 300, 700, 400, 60], -1.75, 0.25, "logistic", Continue),
    ];
    for (counts, elo0, elo1, model, state) in cases {
        let status = sprt(elo0, elo1, elo_model(model)).status(&pairs_only(ptnml(counts)));
        let want = reference(&counts, elo0, elo1, model);
        close(status.llr, want, 1e-9, &format!("{counts:?} {model}"));
        assert_eq!(status.state, state, "{counts:?} {model}");
    }
}

/// The pairs decide when there are any: a tally fed pair by pair for
/// [10,50,100,60,20] (the 100 one-point pairs half W+L, half D+D) has the
/// games 150/210/120, whose trinomial LLR is (R) 0.525999; the tally's LLR
/// must be the pentanomial (R) 0.576758.
#[test]
fn tally_prefers_pairs() {
    use Outcome::{Draw as D, Loss as L, Win as W};
    let mut t = Tally::default();
    let pairs = [
        ((L, L), 10),
        ((L, D), 50),
        ((W, L), 50),
        ((D, D), 50),
        ((D, W), 60),
        ((W, W), 20),
    ];
    for ((a, b), n) in pairs {
        (0..n).for_each(|_| t.add_pair(a, b));
    }
    assert_eq!(t.ptnml.counts, [10, 50, 100, 60, 20]);
    assert_eq!(t.wdl, wdl(150, 210, 120));
    let s = sprt(0.0, 5.0, EloModel::Normalized);
    let pairs_llr = reference(&[10, 50, 100, 60, 20], 0.0, 5.0, "normalized");
    close(s.llr(&t), pairs_llr, 1e-9, "tally llr");
    close(
        s.llr(&games_only(t.wdl)),
        reference(&[120, 210, 150], 0.0, 5.0, "normalized"),
        1e-9,
        "games-only llr",
    );
    assert_eq!(t.estimate(), t.ptnml.estimate());
    assert_eq!(t.estimate_model(), Some(ResultModel::Pentanomial));
    t.add_game(W);
    assert_eq!(t.wdl.games(), 481);
    assert_eq!(t.ptnml.pairs(), 240);
    // A game outside a complete pair: the estimate is over all 481 games, the
    // SPRT stays with the 240 pairs and says so.
    assert_eq!(t.estimate(), t.wdl.estimate());
    assert_eq!(
        t.estimate().unwrap().basis,
        Basis {
            model: ResultModel::Trinomial,
            samples: 481
        }
    );
    let st = s.status(&t);
    close(st.llr, pairs_llr, 1e-9, "llr of the pairs");
    assert_eq!(
        st.basis,
        Some(Basis {
            model: ResultModel::Pentanomial,
            samples: 240
        })
    );
}

/// Issue 34: W/D/L 2/0/1 printed `Score 66.7 %, Elo 0.0 +/- 0.0, LOS 50 %`
/// from the one complete pair (a win and a loss). Fed as a match feeds it (a
/// game at a time, the pair when its second game ends), the figures are now
/// those of all three games:
/// (H) s = 2/3, Elo = -400·log10(1/2) = 120.41200; var = (2·(1/3)² + (2/3)²)/3 = 2/9,
/// se = sqrt(2/27) = 0.2721655, s - 1.96·se = 0.6666667 - 0.5334347 = 0.1332320,
/// lower -400·log10(1/0.1332320 - 1) = -400·log10(6.5057) = -325.31767, upper s + 1.96·se > 1: +inf;
/// LOS ½(1 + erf(1/sqrt(6))) = ½(1 + erf(0.4082483)) = 0.7181486 (P);
/// nElo (1/6)/sqrt(2/9)·347.43559 = 0.3535534·347.43559 = 122.83703,
/// its error 1.959964·347.43559/sqrt(3) = 393.15315.
/// The SPRT uses the one complete pair, [0,0,1,0,0] normalized [0, 5]:
/// (R) -0.000215, printed -0.00 with its basis named.
/// Once the fourth game completes the second pair, every game is paired: pentanomial.
#[test]
fn tally_uses_all_games_while_a_game_is_unpaired() {
    use Outcome::{Draw, Loss, Win};
    let mut t = Tally::default();
    t.add_game(Win);
    assert_eq!(t.estimate_model(), Some(ResultModel::Trinomial));
    t.add_game(Loss);
    t.ptnml.add_pair(Win, Loss);
    assert_eq!(t.estimate_model(), Some(ResultModel::Pentanomial));
    t.add_game(Win);
    assert_eq!(t.estimate_model(), Some(ResultModel::Trinomial));

    let e = t.estimate().unwrap();
    assert_eq!(
        (e.basis, e.games),
        (
            Basis {
                model: ResultModel::Trinomial,
                samples: 3
            },
            3
        )
    );
    close(e.score, 2.0 / 3.0, 1e-15, "score");
    close(e.elo, 120.411_998_265_592_47, 1e-9, "elo");
    close(e.elo_lower, -325.317_674_711_052_86, 1e-9, "lower");
    assert_eq!(e.elo_upper, f64::INFINITY);
    close(e.los, 0.718_148_569_174_613_4, 1e-12, "los");
    close(e.nelo.unwrap(), 122.837_029_274_275_05, 1e-9, "nelo");
    close(e.nelo_error, 393.153_152_087_777_5, 1e-9, "nelo error");

    let s = sprt(0.0, 5.0, EloModel::Normalized);
    let want = reference(&[0, 0, 1, 0, 0], 0.0, 5.0, "normalized");
    close(s.llr(&t), want, 1e-12, "llr (R)");
    assert_eq!(
        t.summary(Some(&s)).to_string(),
        "Games: 3, W/D/L: 2/0/1, Score: 66.7 %, Elo: 120.4 [-325.3, inf] (trinomial, 3 games), \
         LOS: 71.8 %, DrawRatio: 0.0 %, nElo: 122.8 +/- 393.2, Ptnml(0-2): [0, 0, 1, 0, 0], \
         LLR: -0.00 (-2.94, 2.94) [0.00, 5.00] (pentanomial, 1 pair)"
    );

    t.add_game(Draw);
    t.ptnml.add_pair(Win, Draw);
    assert_eq!(t.estimate_model(), Some(ResultModel::Pentanomial));
    assert_eq!(t.estimate(), t.ptnml.estimate());
    assert_eq!(
        t.estimate().unwrap().basis,
        Basis {
            model: ResultModel::Pentanomial,
            samples: 2
        }
    );
    assert!(
        t.summary(Some(&s))
            .to_string()
            .contains("(pentanomial, 2 pairs), LOS"),
        "{}",
        t.summary(Some(&s))
    );
    assert!(!t.summary(Some(&s)).to_string().ends_with("pairs)"));
}

/// The model is typed data (serialized too), not only words in a line.
#[test]
fn estimate_basis_serializes() {
    let e = wdl(2, 0, 1).estimate().unwrap();
    let json = serde_json::to_value(e).unwrap();
    assert_eq!(json["basis"]["model"], "trinomial");
    assert_eq!(json["basis"]["samples"], 3);
    assert_eq!(json["elo_upper"], serde_json::Value::Null);
    let b = Basis {
        model: ResultModel::Pentanomial,
        samples: 1,
    };
    assert_eq!(
        (b.to_string(), b.games()),
        ("pentanomial, 1 pair".into(), 2)
    );
}

/// No evidence, no decision: LLR 0 before any game.
#[test]
fn sprt_before_any_game_continues() {
    for model in [EloModel::Normalized, EloModel::Logistic, EloModel::Bayesian] {
        let st = sprt(0.0, 5.0, model).status(&Tally::default());
        assert_eq!(
            (st.llr, st.state, st.basis),
            (0.0, SprtState::Continue, None)
        );
    }
}

/// Results all alike have no spread; the LLR regularises the counts as fishtest
/// and fastchess do (every empty bucket counts 1e-3), so they give evidence,
/// but a sample gives little: one game or one pair moves the LLR by a few
/// hundredths, never near a bound (the approximation used before put one
/// lost pair at -1.94 and one lost game at -2.91 of the -2.94 bound, and
/// an SPRT of two equal engines decided after one game). (R) every value.
#[test]
fn one_result_is_little_evidence() {
    for model in ["normalized", "logistic"] {
        for (elo0, elo1) in [(0.0, 5.0), (-5.0, 0.0), (0.0, 10.0)] {
            let s = sprt(elo0, elo1, elo_model(model));
            for counts in [
                vec![1, 0, 0, 0, 0],
                vec![0, 0, 0, 0, 1],
                vec![1, 0, 0],
                vec![0, 0, 1],
            ] {
                let llr = s.llr(&tally_of(&counts));
                let what = format!("{counts:?} [{elo0}, {elo1}] {model}");
                let want = try_reference(&counts, elo0, elo1, model);
                if let Some(want) = want {
                    close(llr, want, 1e-9, &what);
                }
                assert!(llr != 0.0 && llr.abs() < 0.05, "{what}: {llr}");
                assert_eq!(
                    s.status(&tally_of(&counts)).state,
                    SprtState::Continue,
                    "{what}"
                );
            }
        }
    }
}

/// One reference row of `tests/data/fishtest_llr.txt`.
struct Reference {
    counts: Vec<u64>,
    elo0: f64,
    elo1: f64,
    model: EloModel,
    llr: f64,
}

fn fishtest_reference() -> Vec<Reference> {
    let text = include_str!("data/fishtest_llr.txt");
    let rows: Vec<Reference> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let w: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(w.len(), 5, "{line}");
            Reference {
                counts: w[0].split(',').map(|c| c.parse().unwrap()).collect(),
                elo0: w[1].parse().unwrap(),
                elo1: w[2].parse().unwrap(),
                model: elo_model(w[3]),
                llr: w[4].parse().unwrap(),
            }
        })
        .collect();
    assert!(rows.len() > 200, "{} rows", rows.len());
    rows
}

/// The model a table row names.
fn elo_model(word: &str) -> EloModel {
    match word {
        "normalized" => EloModel::Normalized,
        "logistic" => EloModel::Logistic,
        "bayesian" => EloModel::Bayesian,
        other => panic!("model {other}"),
    }
}

/// (R) The table's LLR for these counts, hypotheses and model, if it has the row.
fn try_reference(counts: &[u64], elo0: f64, elo1: f64, model: &str) -> Option<f64> {
    let model = elo_model(model);
    fishtest_reference()
        .into_iter()
        .find(|r| r.counts == counts && r.elo0 == elo0 && r.elo1 == elo1 && r.model == model)
        .map(|r| r.llr)
}

/// (R) The table's LLR for these counts, hypotheses and model.
fn reference(counts: &[u64], elo0: f64, elo1: f64, model: &str) -> f64 {
    try_reference(counts, elo0, elo1, model)
        .unwrap_or_else(|| panic!("no row {counts:?} [{elo0}, {elo1}] {model} in the table"))
}

/// A tally of the counts: five are a pentanomial `[0..2]`, three are fishtest's `[L, D, W]`.
fn tally_of(counts: &[u64]) -> Tally {
    match *counts {
        [a, b, c, d, e] => pairs_only(ptnml([a, b, c, d, e])),
        [l, d, w] => games_only(wdl(w, d, l)),
        _ => panic!("{counts:?}"),
    }
}

/// (R) Every LLR of the reference table, ordinary and degenerate counts
/// (results all alike, empty buckets, one sample), within 1e-9.
#[test]
fn sprt_llr_matches_fishtest_reference() {
    for r in fishtest_reference() {
        let got = sprt(r.elo0, r.elo1, r.model).llr(&tally_of(&r.counts));
        let what = format!("{:?} [{}, {}] {}", r.counts, r.elo0, r.elo1, r.model);
        close(got, r.llr, 1e-9, &what);
    }
}

/// The reference table is what the Python script prints (so that neither is
/// edited without the other).
#[test]
fn fishtest_reference_is_the_scripts_output() {
    let Some(python) = rookery_testkit::peer::require("python3", &["python3"], None) else {
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fishtest_llr.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    rookery_testkit::cmd::assert_text_eq(
        include_str!("data/fishtest_llr.txt"),
        &String::from_utf8_lossy(&out.stdout),
        "tests/data/fishtest_llr.txt",
    );
}

/// One-sided matches decide (before issue 34 the LLR stayed 0 for ever), the
/// right way, and after as many pairs (or games) as the exact LLR of the
/// reference script says (R `fishtest_llr.py --decide`, alpha = beta = 0.05):
/// normalized [0, 5] 144 pairs lost or 147 won, 204 games lost or 207 won;
/// logistic 204 and 207 either way; [-5, 0] the mirror. cutechess-cli's
/// model never decides a match without draws (its LLR waits for a win, a
/// loss and a draw), as cutechess-cli does not.
#[test]
fn one_sided_matches_decide() {
    use Outcome::{Loss, Win};
    #[rustfmt::skip]
    let expected = [
        // (elo0, elo1, model, outcome, pairs, games)
        (0.0, 5.0, EloModel::Normalized, Loss, 144, 204),
        (0.0, 5.0, EloModel::Normalized, Win, 147, 207),
        (0.0, 5.0, EloModel::Logistic, Loss, 204, 204),
        (0.0, 5.0, EloModel::Logistic, Win, 207, 207),
        (-5.0, 0.0, EloModel::Normalized, Loss, 147, 207),
        (-5.0, 0.0, EloModel::Normalized, Win, 144, 204),
        (-5.0, 0.0, EloModel::Logistic, Loss, 207, 207),
        (-5.0, 0.0, EloModel::Logistic, Win, 204, 204),
    ];
    for (elo0, elo1, model, outcome, at_pairs, at_games) in expected {
        let s = sprt(elo0, elo1, model);
        let state = if outcome == Win {
            SprtState::AcceptH1
        } else {
            SprtState::AcceptH0
        };
        let what = format!("[{elo0}, {elo1}] {model} {outcome:?}");
        let (mut paired, mut single) = (Tally::default(), Tally::default());
        let first_decision = |t: &mut Tally, add: &dyn Fn(&mut Tally)| {
            (1..=1000).find(|_| {
                add(t);
                s.status(t).state != SprtState::Continue
            })
        };
        let pairs = first_decision(&mut paired, &|t| t.add_pair(outcome, outcome));
        let games = first_decision(&mut single, &|t| t.add_game(outcome));
        assert_eq!((pairs, games), (Some(at_pairs), Some(at_games)), "{what}");
        assert_eq!(s.status(&paired).state, state, "{what}");
        assert_eq!(s.status(&single).state, state, "{what}");
        let basis = s.status(&paired).basis.unwrap();
        assert_eq!(
            (basis.model, basis.samples),
            (ResultModel::Pentanomial, at_pairs as u64)
        );
    }
    let cutechess = sprt(0.0, 5.0, EloModel::Bayesian);
    let mut t = Tally::default();
    for _ in 0..1000 {
        t.add_pair(Win, Win);
    }
    assert_eq!(cutechess.status(&t).llr, 0.0);
    assert_eq!(cutechess.status(&t).state, SprtState::Continue);
}

/// cutechess-cli's rule: no LLR until there is a win, a loss and a draw; then
/// its value, over the games even when they come in pairs.
#[test]
fn the_bayesian_model_waits_for_a_win_a_loss_and_a_draw() {
    use Outcome::{Draw, Loss, Win};
    let s = sprt(0.0, 5.0, EloModel::Bayesian);
    let mut t = Tally::default();
    for _ in 0..50 {
        t.add_pair(Win, Draw);
    }
    assert_eq!(s.llr(&t), 0.0, "no loss yet");
    t.add_pair(Loss, Loss);
    let want = reference(&[2, 50, 50], 0.0, 5.0, "bayesian");
    close(s.llr(&t), want, 1e-9, "W/D/L 50/50/2");
    assert_eq!(
        s.status(&t).basis,
        Some(Basis {
            model: ResultModel::Trinomial,
            samples: 102
        })
    );
}

#[test]
fn sprt_config_parses_and_round_trips() {
    let c: SprtConfig = "elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized"
        .parse()
        .unwrap();
    assert_eq!(
        c,
        SprtConfig {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized
        }
    );
    assert_eq!(
        c.to_string(),
        "elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized"
    );
    let c: SprtConfig = "  model=logistic elo1=2.5\telo0=-1.75 ".parse().unwrap();
    assert_eq!(
        c,
        SprtConfig {
            elo0: -1.75,
            elo1: 2.5,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic
        }
    );
    assert_eq!(c.to_string().parse::<SprtConfig>().unwrap(), c);
    let s = Sprt::new(c).unwrap();
    assert_eq!(s.config(), &c);
}

#[test]
fn sprt_config_errors_name_the_word() {
    use ParseSprtError as E;
    let cases: [(&str, ParseSprtError, &str); 8] = [
        ("elo0=0 elo1=x", E::BadNumber("elo1=x".into()), "elo1=x"),
        (
            "elo0=nan elo1=5",
            E::BadNumber("elo0=nan".into()),
            "elo0=nan",
        ),
        (
            "elo0=0 elo1=5 model=bayeselo",
            E::BadModel("model=bayeselo".into()),
            "model=bayeselo",
        ),
        (
            "elo0=0 elo1=5 gamma=1",
            E::UnknownKey("gamma=1".into()),
            "gamma=1",
        ),
        ("elo0 elo1=5", E::NotKeyValue("elo0".into()), "`elo0`"),
        (
            "elo0=0 elo1=5 elo1=6",
            E::Repeated("elo1=6".into()),
            "elo1=6",
        ),
        ("elo1=5", E::Missing("elo0"), "elo0="),
        ("elo0=0", E::Missing("elo1"), "elo1="),
    ];
    for (text, want, named) in cases {
        let err = text.parse::<SprtConfig>().unwrap_err();
        assert_eq!(err, want, "{text}");
        assert!(err.to_string().contains(named), "{text}: {err}");
    }
    let invalid = [
        (
            "elo0=5 elo1=0",
            InvalidSprtError::EloOrder {
                elo0: 5.0,
                elo1: 0.0,
            },
            "elo0=5",
        ),
        (
            "elo0=0 elo1=5 alpha=0",
            InvalidSprtError::Probability {
                key: "alpha",
                value: 0.0,
            },
            "alpha=0",
        ),
        (
            "elo0=0 elo1=5 beta=1.5",
            InvalidSprtError::Probability {
                key: "beta",
                value: 1.5,
            },
            "beta=1.5",
        ),
        (
            "elo0=0 elo1=5 alpha=0.6 beta=0.5",
            InvalidSprtError::RatesTooLarge {
                alpha: 0.6,
                beta: 0.5,
            },
            "alpha=0.6",
        ),
    ];
    for (text, want, named) in invalid {
        let err = text.parse::<SprtConfig>().unwrap_err();
        assert_eq!(err, ParseSprtError::Invalid(want.clone()), "{text}");
        assert!(err.to_string().contains(named), "{text}: {err}");
        let config = SprtConfig {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        };
        let config = match want {
            InvalidSprtError::EloOrder { elo0, elo1 } => SprtConfig {
                elo0,
                elo1,
                ..config
            },
            InvalidSprtError::Probability {
                key: "alpha",
                value,
            } => SprtConfig {
                alpha: value,
                ..config
            },
            InvalidSprtError::Probability { value, .. } => SprtConfig {
                beta: value,
                ..config
            },
            InvalidSprtError::RatesTooLarge { alpha, beta } => SprtConfig {
                alpha,
                beta,
                ..config
            },
        };
        assert_eq!(Sprt::new(config).unwrap_err(), want, "Sprt::new for {text}");
    }
}

/// The one-line summary; its figures are the hand case above (30/40/20,
/// logistic [0, 5]; the LLR (R) 0.2425).
#[test]
fn summary_line() {
    let s = sprt(0.0, 5.0, EloModel::Logistic);
    assert_eq!(
        games_only(wdl(30, 40, 20)).summary(Some(&s)).to_string(),
        "Games: 90, W/D/L: 30/40/20, Score: 55.6 %, Elo: 38.8 +/- 54.0 (trinomial, 90 games), \
         LOS: 92.1 %, DrawRatio: 44.4 %, nElo: 52.4 +/- 71.8, LLR: 0.24 (-2.94, 2.94) [0.00, 5.00]"
    );
    // Pairs (P): [10,50,100,60,20] Elo 21.743 +/- 21.450, LOS 97.69 %, nElo 31.63 +/- 31.08, LLR 0.579.
    let mut t = pairs_only(ptnml([10, 50, 100, 60, 20]));
    t.wdl = wdl(150, 210, 120);
    let line = t
        .summary(Some(&sprt(0.0, 5.0, EloModel::Normalized)))
        .to_string();
    assert_eq!(
        line,
        "Games: 480, W/D/L: 150/210/120, Score: 53.1 %, Elo: 21.7 +/- 21.5 (pentanomial, 240 pairs), LOS: 97.7 %, \
         DrawRatio: 43.8 %, nElo: 31.6 +/- 31.1, Ptnml(0-2): [10, 50, 100, 60, 20], \
         LLR: 0.58 (-2.94, 2.94) [0.00, 5.00]"
    );
    assert_eq!(
        Tally::default().summary(None).to_string(),
        "Games: 0, W/D/L: 0/0/0, Score: n/a, Elo: n/a, LOS: n/a, DrawRatio: n/a, nElo: n/a"
    );
    assert_eq!(
        games_only(wdl(4, 0, 0)).summary(None).to_string(),
        "Games: 4, W/D/L: 4/0/0, Score: 100.0 %, Elo: inf [7.0, inf] (trinomial, 4 games), LOS: 97.7 %, \
         DrawRatio: 0.0 %, nElo: n/a"
    );
}

fn finite_or_inf(e: &EloEstimate) -> bool {
    [
        e.score,
        e.elo,
        e.elo_lower,
        e.elo_upper,
        e.elo_error(),
        e.los,
        e.nelo_error,
    ]
    .iter()
    .chain(e.nelo.iter())
    .all(|x| !x.is_nan())
}

proptest! {
    #[test]
    fn wdl_elo_is_antisymmetric(w in 0u64..500, d in 0u64..500, l in 0u64..500) {
        prop_assume!(w + d + l > 0);
        let a = wdl(w, d, l).estimate().unwrap();
        let b = wdl(l, d, w).estimate().unwrap();
        prop_assert!(finite_or_inf(&a));
        prop_assert!((0.0..=1.0).contains(&a.los));
        prop_assert!(a.elo_lower <= a.elo && a.elo <= a.elo_upper);
        // Never an interval without width, whatever the counts (10 draws had one).
        prop_assert!(a.elo_lower < a.elo_upper, "{:?}", a);
        let same = |x: f64, y: f64| x == y || (x - y).abs() < 1e-9;
        prop_assert!(same(a.elo, -b.elo), "{} vs {}", a.elo, b.elo);
        prop_assert!(same(a.elo_lower, -b.elo_upper));
        prop_assert!(same(a.elo_upper, -b.elo_lower));
        prop_assert!(same(a.los, 1.0 - b.los));
        prop_assert!(!wdl(w, d, l).reversed().estimate().unwrap().elo.is_nan());
    }

    #[test]
    fn pentanomial_elo_is_antisymmetric(
        c in prop_oneof![
            prop::array::uniform5(0u64..200),
            // One bucket only: no spread.
            (0usize..5, 1u64..50).prop_map(|(i, n)| { let mut c = [0; 5]; c[i] = n; c }),
        ]
    ) {
        let p = ptnml(c);
        prop_assume!(p.pairs() > 0);
        let a = p.estimate().unwrap();
        let b = p.reversed().estimate().unwrap();
        prop_assert!(finite_or_inf(&a));
        prop_assert!((0.0..=1.0).contains(&a.los));
        prop_assert!(a.elo_lower <= a.elo && a.elo <= a.elo_upper);
        prop_assert!(a.elo_lower < a.elo_upper, "{:?}", a);
        // LOS and the interval are one model: the interval leaves out Elo 0
        // exactly when LOS is beyond 97.5 % (margins for rounding).
        if a.los > 0.9751 { prop_assert!(a.elo_lower > 0.0, "{:?}", a); }
        if a.los < 0.9749 { prop_assert!(a.elo_lower <= 0.0, "{:?}", a); }
        let same = |x: f64, y: f64| x == y || (x - y).abs() < 1e-9;
        prop_assert!(same(a.elo, -b.elo));
        prop_assert!(same(a.elo_lower, -b.elo_upper));
        prop_assert!(same(a.los, 1.0 - b.los));
    }

    #[test]
    fn sprt_state_follows_llr(c in prop::array::uniform5(0u64..300), m in 0usize..3) {
        let model = [EloModel::Logistic, EloModel::Normalized, EloModel::Bayesian][m];
        let s = sprt(0.0, 5.0, model);
        let st = s.status(&pairs_only(ptnml(c)));
        prop_assert!(st.llr.is_finite());
        let want = if st.llr >= st.upper { SprtState::AcceptH1 }
            else if st.llr <= st.lower { SprtState::AcceptH0 } else { SprtState::Continue };
        prop_assert_eq!(st.state, want);
        prop_assert!(!pairs_only(ptnml(c)).summary(Some(&s)).to_string().contains("NaN"));
    }
}
