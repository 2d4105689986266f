//! The SPRT's error rates, measured: thousands of simulated matches fed
//! through the crate's [`Sprt`] game by game (or pair by pair) as a match
//! feeds it, each stopping at its first decision.
//!
//! The property is Wald's: with `alpha = beta = 0.05`, two equal engines
//! are found different (H1 accepted) in at most about 5% of the tests, and
//! an engine as strong as H1 says is found (H1 accepted) in at least about
//! 95%. The margin allowed is one percentage point, about two standard
//! errors of a rate near 5% over 2,000 tests (`sqrt(.05 · .95 / 2000) =
//! 0.49%`). Before the exact LLR, an SPRT of two equal engines decided after
//! one game about as often as not, which these rates catch at once.
//!
//! The results are drawn from fixed win/draw/loss probabilities by a
//! seeded generator, so every run of the test sees the same matches.

use rookery_event::book::SplitMix;
use rookery_event::stats::{EloModel, Outcome, Sprt, SprtConfig, SprtState, Tally};

/// Tests of each kind.
const RUNS: usize = 2000;

/// A match that has not decided after this many games is counted as not
/// accepting H1 (none comes near it: the tests decide after a few thousand).
const MAX_GAMES: u64 = 200_000;

/// Uniform in `[0, 1)` from the crate's seeded generator.
fn unit(rng: &mut SplitMix) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Win and draw probabilities of the first player; a loss is the rest.
#[derive(Clone, Copy)]
struct Strength {
    win: f64,
    draw: f64,
}

impl Strength {
    /// Draw probability `draw` and logistic Elo difference `elo`: the
    /// expected score `1 / (1 + 10^(-elo / 400))` split into wins and losses
    /// around the draws.
    fn at(elo: f64, draw: f64) -> Strength {
        let score = 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
        Strength {
            win: score - draw / 2.0,
            draw,
        }
    }

    fn play(self, rng: &mut SplitMix) -> Outcome {
        let u = unit(rng);
        if u < self.win {
            Outcome::Win
        } else if u < self.win + self.draw {
            Outcome::Draw
        } else {
            Outcome::Loss
        }
    }
}

/// Plays one match until the SPRT decides; pairs of games when `pairs`.
fn decide(sprt: &Sprt, strength: Strength, pairs: bool, seed: u64) -> SprtState {
    let mut rng = SplitMix::new(seed);
    let mut tally = Tally::default();
    while tally.wdl.games() < MAX_GAMES {
        if pairs {
            let (a, b) = (strength.play(&mut rng), strength.play(&mut rng));
            tally.add_pair(a, b);
        } else {
            tally.add_game(strength.play(&mut rng));
        }
        let state = sprt.status(&tally).state;
        if state != SprtState::Continue {
            return state;
        }
    }
    SprtState::Continue
}

/// The share of `RUNS` matches at `strength` that accept H1, on two threads.
fn accept_h1_rate(sprt: &Sprt, strength: Strength, pairs: bool, seed: u64) -> f64 {
    let accepted: usize = std::thread::scope(|scope| {
        let halves: Vec<_> = (0..2u64)
            .map(|half| {
                scope.spawn(move || {
                    (0..RUNS as u64)
                        .filter(|run| run % 2 == half)
                        .filter(|&run| {
                            let seed = seed ^ run.wrapping_mul(0xA24B_AED4_963E_E407);
                            decide(sprt, strength, pairs, seed) == SprtState::AcceptH1
                        })
                        .count()
                })
            })
            .collect();
        halves.into_iter().map(|h| h.join().unwrap()).sum()
    });
    accepted as f64 / RUNS as f64
}

fn sprt(elo0: f64, elo1: f64, model: EloModel) -> Sprt {
    Sprt::new(SprtConfig::with_default_rates(elo0, elo1, model)).unwrap()
}

/// Checks both rates for one model and way of counting.
fn check(model: EloModel, h1_elo: f64, pairs: bool, draw: f64, seed: u64) {
    let s = sprt(0.0, 10.0, model);
    let what = format!("{model}, [0, 10], draws {draw}, pairs {pairs}");
    let false_positive = accept_h1_rate(&s, Strength::at(0.0, draw), pairs, seed);
    let power = accept_h1_rate(&s, Strength::at(h1_elo, draw), pairs, seed + 1);
    eprintln!("{what}: H1 accepted for equal engines {false_positive:.4}, at H1 {power:.4}");
    assert!(
        false_positive <= 0.05 + 0.01,
        "{what}: equal engines found different in {:.1}% of {RUNS} tests",
        100.0 * false_positive
    );
    assert!(
        power >= 1.0 - 0.05 - 0.01,
        "{what}: a {h1_elo} Elo difference found in only {:.1}% of {RUNS} tests",
        100.0 * power
    );
}

#[test]
fn logistic_games_keep_their_error_rates() {
    check(EloModel::Logistic, 10.0, false, 0.4, 1);
}

#[test]
fn logistic_pairs_keep_their_error_rates() {
    check(EloModel::Logistic, 10.0, true, 0.5, 2);
}

/// Normalized Elo: at draws 0.4 a game's standard deviation is
/// `sqrt(0.6 · ¼) = 0.387`, so 10 normalized Elo is a score of `½ + 10 /
/// (800 / ln 10) · 0.387`, about 7.75 logistic Elo.
#[test]
fn normalized_pairs_keep_their_error_rates() {
    let sigma = (0.6f64 * 0.25).sqrt();
    let score = 0.5 + 10.0 / (800.0 / std::f64::consts::LN_10) * sigma;
    let elo = -400.0 * (1.0 / score - 1.0).log10();
    check(EloModel::Normalized, elo, true, 0.4, 3);
}

/// cutechess-cli's SPRT (`model=bayesian`), over single games; the bounds
/// are logistic Elo turned into BayesElo at the sample's draw Elo.
#[test]
fn cutechess_games_keep_their_error_rates() {
    check(EloModel::Bayesian, 10.0, false, 0.4, 4);
}
