//! Match statistics: score, Elo with a 95% interval, LOS, draw ratio,
//! normalized Elo, pentanomial counts of game pairs, and the SPRT.
//!
//! Every count is taken from the view of the *first* player (the engine under
//! test). Games come in as [`Outcome`]s; a [`Tally`] keeps the game counts
//! ([`Wdl`]) and, when the match plays game pairs with colours reversed, the
//! pair counts ([`Pentanomial`]). Every estimate says which counts it comes
//! from ([`Basis`]): [`Tally`] documents the rule that picks the pairs or the
//! single games.
//!
//! The formulas are the usual ones of engine testing (fishtest, fastchess):
//! the score `s` is the mean of the samples (a game scores 1, ½ or 0; a pair
//! scores the mean of its two games), its standard error is
//! `sqrt(var / n)` with the sample variance `var` over `n` samples, Elo is
//! `-400 log10(1/s - 1)`, and the 95% interval maps `s ± 1.96 · sqrt(var/n)`
//! through the same curve (when every sample is alike, so that `var = 0`,
//! the Wilson score interval instead: see [`EloEstimate`]). The SPRT's LLR
//! is the exact generalised LLR that fishtest and fastchess decide with, or
//! cutechess-cli's BayesElo LLR for `model=bayesian`: see [`Sprt::llr`].
//!
//! # Example
//! ```
//! use rookery_event::stats::{Outcome, Sprt, SprtConfig, SprtState, Tally};
//!
//! let mut tally = Tally::default();
//! for _ in 0..40 {
//!     tally.add_pair(Outcome::Win, Outcome::Draw); // pair score 1.5
//!     tally.add_pair(Outcome::Draw, Outcome::Draw); // pair score 1
//!     tally.add_pair(Outcome::Loss, Outcome::Draw); // pair score 0.5
//! }
//! tally.add_pair(Outcome::Win, Outcome::Win);
//! assert_eq!(tally.ptnml.counts, [0, 40, 40, 40, 1]);
//! assert_eq!((tally.wdl.wins, tally.wdl.draws, tally.wdl.losses), (42, 160, 40));
//!
//! let est = tally.estimate().expect("games were played");
//! assert!(est.elo > 0.0 && est.elo_lower < 0.0 && est.elo_upper > est.elo);
//!
//! let config: SprtConfig = "elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized".parse()?;
//! let sprt = Sprt::new(config)?;
//! let status = sprt.status(&tally);
//! assert_eq!(status.state, SprtState::Continue);
//! println!("{}", tally.summary(Some(&sprt)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod gllr;

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// The 97.5% quantile of the standard normal distribution: a two-sided 95%
/// interval is the estimate plus or minus this many standard errors.
const Z_975: f64 = 1.959_963_984_540_054;

/// Normalized Elo per unit of normalized t-value: `800 / ln 10`.
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Beyond this `|x|`, `erf(x)` is ±1 to double precision (`erfc(6) ≈ 2e-17`).
const ERF_SATURATION: f64 = 6.0;

/// The largest variance of one result in `[0, 1]` with mean `s` is
/// `s (1 - s)` (all of it at 0 and 1); at `s = ½` it is this.
const MAX_VARIANCE_AT_HALF: f64 = 0.25;

/// The result of one game from the first player's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The first player won.
    Win,
    /// The game was drawn.
    Draw,
    /// The first player lost.
    Loss,
}

impl Outcome {
    /// Half points the first player scored: 2, 1 or 0.
    pub fn half_points(self) -> usize {
        match self {
            Outcome::Win => 2,
            Outcome::Draw => 1,
            Outcome::Loss => 0,
        }
    }

    /// The same game from the other player's view.
    pub fn reversed(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }
}

/// Win, draw and loss counts of single games, from the first player's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    /// Games the first player won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the first player lost.
    pub losses: u64,
}

impl Wdl {
    /// Number of games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Counts one more game.
    pub fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Win => self.wins += 1,
            Outcome::Draw => self.draws += 1,
            Outcome::Loss => self.losses += 1,
        }
    }

    /// The same counts from the other player's view (wins and losses swapped).
    pub fn reversed(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Points per game in `[0, 1]`; `None` when no game was played.
    pub fn score(&self) -> Option<f64> {
        self.sample().map(|s| s.mean)
    }

    /// Fraction of games drawn in `[0, 1]`; `None` when no game was played.
    pub fn draw_ratio(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.draws as f64 / self.games() as f64)
    }

    /// Likelihood of superiority in `[0, 1]`: the probability that the first
    /// player is the stronger, from the decisive games only,
    /// `½ (1 + erf((W - L) / sqrt(2 (W + L))))`. It is `0.5` when no game
    /// was decisive and `None` when no game was played.
    pub fn los(&self) -> Option<f64> {
        if self.games() == 0 {
            return None;
        }
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return Some(0.5);
        }
        let diff = self.wins as f64 - self.losses as f64;
        Some(0.5 * (1.0 + erf(diff / (2.0 * decisive).sqrt())))
    }

    /// Elo estimate from the trinomial variance of single games, with
    /// [`Wdl::los`]; `None` when no game was played. See [`EloEstimate`] for
    /// the edge cases.
    pub fn estimate(&self) -> Option<EloEstimate> {
        let sample = self.sample()?;
        Some(sample.estimate(self.los()?))
    }

    /// The counts in fishtest's order `[L, D, W]` (result values 0, ½, 1).
    fn counts(&self) -> [f64; 3] {
        [self.losses, self.draws, self.wins].map(|c| c as f64)
    }

    fn sample(&self) -> Option<Sample> {
        Sample::new(&self.counts(), ResultModel::Trinomial)
    }
}

/// Counts of game pairs (the same opening played with colours reversed) by
/// the first player's score in the pair: `counts[k]` pairs scored `k / 2`
/// points, so the indices stand for 0, ½, 1, 1½ and 2 points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial {
    /// Pairs per pair score `0, 0.5, 1, 1.5, 2` (index = half points).
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// Number of pairs counted.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Counts one finished pair; both outcomes are from the first player's view.
    pub fn add_pair(&mut self, first: Outcome, second: Outcome) {
        self.counts[first.half_points() + second.half_points()] += 1;
    }

    /// The same counts from the other player's view (the array reversed).
    pub fn reversed(&self) -> Pentanomial {
        let mut counts = self.counts;
        counts.reverse();
        Pentanomial { counts }
    }

    /// Points per game in `[0, 1]`; `None` when no pair was counted.
    pub fn score(&self) -> Option<f64> {
        self.sample().map(|s| s.mean)
    }

    /// Fraction of pairs in `[0, 1]` that scored one point (a win and a
    /// loss, or two draws): fastchess's pentanomial `DrawRatio`; `None`
    /// when no pair was counted.
    pub fn draw_ratio(&self) -> Option<f64> {
        let pairs = self.pairs();
        (pairs > 0).then(|| self.counts[2] as f64 / pairs as f64)
    }

    /// Pairs won (1½ or 2 points) per pair lost (0 or ½): fastchess's
    /// `PairsRatio`; `+inf` when none was lost but one was won, `None` when
    /// none was won or lost.
    pub fn pairs_ratio(&self) -> Option<f64> {
        let won = (self.counts[3] + self.counts[4]) as f64;
        let lost = (self.counts[0] + self.counts[1]) as f64;
        match (won > 0.0, lost > 0.0) {
            (_, true) => Some(won / lost),
            (true, false) => Some(f64::INFINITY),
            (false, false) => None,
        }
    }

    /// Likelihood of superiority in `[0, 1]` by the normal approximation
    /// `Φ((s - ½) / se)` with the pair standard error `se`; `None` when no
    /// pair was counted. With no spread (every pair scored alike, `se = 0`)
    /// the standard error is taken under `s = ½` with the largest variance a
    /// pair's score in `[0, 1]` can have, `sqrt(¼ / n)` (the score test that
    /// the Wilson interval of [`EloEstimate`] inverts, so that the two agree):
    /// `Φ(2 (s - ½) sqrt(n))`.
    pub fn los(&self) -> Option<f64> {
        self.sample().map(|s| s.normal_los())
    }

    /// Elo estimate from the pentanomial variance of pairs, with
    /// [`Pentanomial::los`]; `None` when no pair was counted. See
    /// [`EloEstimate`] for the edge cases.
    pub fn estimate(&self) -> Option<EloEstimate> {
        self.sample().map(|s| s.estimate(s.normal_los()))
    }

    fn sample(&self) -> Option<Sample> {
        Sample::new(&self.counts.map(|c| c as f64), ResultModel::Pentanomial)
    }
}

/// How results are counted for an estimate or a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultModel {
    /// Single games: win, draw or loss ([`Wdl`]); a sample is one game.
    Trinomial,
    /// Game pairs with colours reversed: a pair scores 0, ½, 1, 1½ or 2
    /// ([`Pentanomial`]); a sample is one pair.
    Pentanomial,
}

impl ResultModel {
    /// Games in one sample: 1 for single games, 2 for pairs.
    pub fn games_per_sample(self) -> u64 {
        match self {
            ResultModel::Trinomial => 1,
            ResultModel::Pentanomial => 2,
        }
    }
}

impl fmt::Display for ResultModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ResultModel::Trinomial => "trinomial",
            ResultModel::Pentanomial => "pentanomial",
        })
    }
}

/// The counts a figure was computed from: the model and how many samples.
///
/// `Display` writes e.g. `trinomial, 3 games` or `pentanomial, 12 pairs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Basis {
    /// Single games or game pairs.
    pub model: ResultModel,
    /// Samples counted: games for [`ResultModel::Trinomial`], pairs for
    /// [`ResultModel::Pentanomial`].
    pub samples: u64,
}

impl Basis {
    /// Games behind the figure (two per pair).
    pub fn games(&self) -> u64 {
        self.samples * self.model.games_per_sample()
    }
}

impl fmt::Display for Basis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match (self.model, self.samples) {
            (ResultModel::Trinomial, 1) => "game",
            (ResultModel::Trinomial, _) => "games",
            (ResultModel::Pentanomial, 1) => "pair",
            (ResultModel::Pentanomial, _) => "pairs",
        };
        write!(f, "{}, {} {unit}", self.model, self.samples)
    }
}

/// An Elo estimate with its 95% interval, and the counts it comes from.
///
/// Edge cases are explicit, never NaN: a score of 1 (only wins) gives
/// `elo = +inf`, a score of 0 gives `-inf` (the maximum-likelihood
/// estimate); an interval end whose score reaches 0 or 1 is `-inf` or
/// `+inf`.
///
/// With no spread in the sample (every game, or every pair, scored alike:
/// one game, all wins, all draws, ...) the sample variance is 0 and says
/// nothing about the uncertainty, so the normal interval `s ± 1.96 se` would
/// have no width. The interval is then the Wilson score interval (E. B.
/// Wilson, "Probable inference, the law of succession, and statistical
/// inference", JASA 22, 1927): the means `p` with `|s - p| <= z sqrt(p (1 -
/// p) / n)`, where `p (1 - p)` is the largest variance a result in `[0, 1]`
/// with mean `p` can have, `z = 1.96` and `n` the samples;
/// `(s + z²/2n ± z sqrt(s (1 - s)/n + z²/4n²)) / (1 + z²/n)`.
/// After 10 wins it is the scores `[10/(10 + z²), 1]`, Elo `[166.2, +inf]`;
/// after 10 draws Elo `0 ± 203.5`. `nelo` is `None` then.
/// Serialized to JSON, infinities become `null`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// The counts behind the estimate: which model, how many games or pairs.
    pub basis: Basis,
    /// Games behind the estimate (two per pair).
    pub games: u64,
    /// Points per game of the first player, in `[0, 1]`.
    pub score: f64,
    /// Logistic Elo difference, first player minus second.
    pub elo: f64,
    /// Lower end of the 95% interval of `elo`.
    pub elo_lower: f64,
    /// Upper end of the 95% interval of `elo`.
    pub elo_upper: f64,
    /// Likelihood of superiority of the first player, in `[0, 1]`, from
    /// the same counts as `elo`.
    pub los: f64,
    /// Normalized Elo: `(s - ½) / σ · 800 / ln 10` with `σ` the standard
    /// deviation of one game (for pairs, `sqrt(2)` times that of a pair's
    /// mean); `None` when the sample has no spread.
    pub nelo: Option<f64>,
    /// Half width of the 95% interval of `nelo`, `1.96 · 800 / ln 10 / sqrt(games)`
    /// (the first-order approximation: a normalized t-value has unit variance per game).
    pub nelo_error: f64,
}

impl EloEstimate {
    /// Half the width of the Elo interval, `(upper - lower) / 2`; `+inf` when
    /// either end is infinite.
    pub fn elo_error(&self) -> f64 {
        if self.elo_lower.is_infinite() || self.elo_upper.is_infinite() {
            f64::INFINITY
        } else {
            (self.elo_upper - self.elo_lower) / 2.0
        }
    }
}

/// Logistic Elo difference for a score in `[0, 1]`: `-400 log10(1/s - 1)`;
/// `±inf` at the ends, never NaN for a score in range (out of range is clamped).
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // `+ 0.0` turns the -0.0 of an even score into 0.0 for display.
        -400.0 * (1.0 / score - 1.0).log10() + 0.0
    }
}

/// Expected score in `[0, 1]` of a logistic Elo difference: `1 / (1 + 10^(-elo/400))`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean and variance of a sample of scored results.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// Number of samples (games or pairs), above 0.
    n: f64,
    /// Single games or pairs.
    model: ResultModel,
    /// Mean score per game, in `[0, 1]`.
    mean: f64,
    /// Variance of one sample's per-game score.
    var: f64,
}

impl Sample {
    /// The sample of `counts[i]` results of value `i / (k - 1)` for `k`
    /// counts (fishtest's convention: `[L, D, W]` are 0, ½, 1, the
    /// pentanomial buckets 0, ¼, ..., 1); `None` when every count is zero.
    fn new(counts: &[f64], model: ResultModel) -> Option<Sample> {
        let n = counts.iter().sum::<f64>();
        if n <= 0.0 {
            return None;
        }
        let top = (counts.len() - 1) as f64;
        let weighted = || counts.iter().enumerate().map(|(i, &c)| (i as f64 / top, c));
        let mean = weighted().map(|(v, c)| v * c).sum::<f64>() / n;
        let var = weighted().map(|(v, c)| c * (v - mean).powi(2)).sum::<f64>() / n;
        Some(Sample {
            n,
            model,
            mean,
            var,
        })
    }

    fn games_per_sample(&self) -> f64 {
        self.model.games_per_sample() as f64
    }

    fn std_error(&self) -> f64 {
        (self.var / self.n).sqrt()
    }

    /// Standard deviation of one game's score (for pairs, `sqrt(2)` times the pair's).
    fn sigma_per_game(&self) -> f64 {
        (self.var * self.games_per_sample()).sqrt()
    }

    /// `Φ((s - ½) / se)`; without spread the standard error under `s = ½`
    /// with the largest variance, `sqrt(¼ / n)` (see [`Pentanomial::los`]).
    fn normal_los(&self) -> f64 {
        let se = if self.var > 0.0 {
            self.std_error()
        } else {
            (MAX_VARIANCE_AT_HALF / self.n).sqrt()
        };
        normal_cdf((self.mean - 0.5) / se)
    }

    /// The 95% interval of the mean score: normal while the sample has a
    /// spread, else Wilson's (see [`EloEstimate`]).
    fn score_interval(&self) -> (f64, f64) {
        let (s, n) = (self.mean, self.n);
        if self.var > 0.0 {
            let half_width = Z_975 * self.std_error();
            return (s - half_width, s + half_width);
        }
        let z2n = Z_975 * Z_975 / n;
        let centre = (s + z2n / 2.0) / (1.0 + z2n);
        let half_width = Z_975 / (1.0 + z2n) * (s * (1.0 - s) / n + z2n / (4.0 * n)).sqrt();
        // At s = 0 or 1 the end on that side is exactly s (algebraically;
        // the sum would be off by an ulp and turn an infinite Elo finite).
        let lower = if s <= 0.0 { 0.0 } else { centre - half_width };
        let upper = if s >= 1.0 { 1.0 } else { centre + half_width };
        (lower, upper)
    }

    fn basis(&self) -> Basis {
        Basis {
            model: self.model,
            samples: self.n.round() as u64,
        }
    }

    fn estimate(&self, los: f64) -> EloEstimate {
        let (lower, upper) = self.score_interval();
        let games = self.n * self.games_per_sample();
        let sigma = self.sigma_per_game();
        EloEstimate {
            basis: self.basis(),
            games: games as u64,
            score: self.mean,
            elo: elo_from_score(self.mean),
            elo_lower: elo_from_score(lower),
            elo_upper: elo_from_score(upper),
            los,
            nelo: (sigma > 0.0).then(|| (self.mean - 0.5) / sigma * NELO_PER_T),
            nelo_error: Z_975 * NELO_PER_T / games.sqrt(),
        }
    }
}

/// The error function, by the everywhere-convergent series
/// `erf x = 2/√π · e^(-x²) · Σ (2x²)^k · x / (1·3·…·(2k+1))` (all terms
/// positive, so no cancellation); ±1 beyond [`ERF_SATURATION`].
fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() >= ERF_SATURATION {
        return x.signum();
    }
    let two_x2 = 2.0 * x * x;
    let (mut term, mut sum) = (x, x);
    for k in 1..400 {
        term *= two_x2 / (2 * k + 1) as f64;
        sum += term;
        if term.abs() <= sum.abs() * 1e-17 {
            break;
        }
    }
    (2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp() * sum).clamp(-1.0, 1.0)
}

/// The standard normal cumulative distribution function `Φ`.
fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// Game counts and, when the match plays pairs, pair counts.
///
/// Feed it either with [`Tally::add_pair`] once both games of a pair are over,
/// or game by game with [`Tally::add_game`] (or `wdl.add`) and then
/// `ptnml.add_pair` when a pair completes.
///
/// Which counts a figure comes from ([`Basis`]):
/// - the Elo estimate, its interval, LOS and nElo ([`Tally::estimate`]) come
///   from the pairs (pentanomial) only when *every* finished game is in a
///   complete pair (`wdl.games() == 2 · ptnml.pairs() > 0`), and otherwise
///   from all the games (trinomial), so that they always describe the same
///   games as the score and the W/D/L counts;
/// - the SPRT ([`Sprt::llr`]) uses the complete pairs as soon as there is
///   one, else the games: its statistic does not switch model at every
///   game of a pair, and a game waits for its pair's other game to count
///   (as on fishtest). [`SprtStatus::basis`] says which.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Single games.
    pub wdl: Wdl,
    /// Completed game pairs (all zero when the match does not play pairs).
    pub ptnml: Pentanomial,
}

impl Tally {
    /// Counts an unpaired game.
    pub fn add_game(&mut self, outcome: Outcome) {
        self.wdl.add(outcome);
    }

    /// Counts both games of a finished pair and the pair itself; both
    /// outcomes are from the first player's view.
    pub fn add_pair(&mut self, first: Outcome, second: Outcome) {
        self.wdl.add(first);
        self.wdl.add(second);
        self.ptnml.add_pair(first, second);
    }

    /// Whether every finished game is in a complete pair (and one is).
    fn all_paired(&self) -> bool {
        let pairs = self.ptnml.pairs();
        pairs > 0 && self.wdl.games() == 2 * pairs
    }

    /// The model the estimates use (see [`Tally`]); `None` before the first game.
    pub fn estimate_model(&self) -> Option<ResultModel> {
        if self.all_paired() {
            Some(ResultModel::Pentanomial)
        } else {
            (self.wdl.games() > 0).then_some(ResultModel::Trinomial)
        }
    }

    /// Elo estimate from the pentanomial counts when every finished game is
    /// in a complete pair, else from all the game counts; `None` before the
    /// first game. LOS comes from the same counts ([`Pentanomial::los`] or
    /// [`Wdl::los`]), and [`EloEstimate::basis`] says which.
    pub fn estimate(&self) -> Option<EloEstimate> {
        match self.estimate_model()? {
            ResultModel::Pentanomial => self.ptnml.estimate(),
            ResultModel::Trinomial => self.wdl.estimate(),
        }
    }

    /// The SPRT's counts: the pairs once one is complete, else the games;
    /// `None` before the first game.
    pub fn sprt_basis(&self) -> Option<Basis> {
        let (pairs, games) = (self.ptnml.pairs(), self.wdl.games());
        if pairs > 0 {
            Some(Basis {
                model: ResultModel::Pentanomial,
                samples: pairs,
            })
        } else {
            (games > 0).then_some(Basis {
                model: ResultModel::Trinomial,
                samples: games,
            })
        }
    }

    /// Everything worth printing about the match so far, with the SPRT status
    /// when a test is configured.
    pub fn summary(&self, sprt: Option<&Sprt>) -> Summary {
        Summary {
            wdl: self.wdl,
            ptnml: (self.ptnml.pairs() > 0).then_some(self.ptnml.counts),
            score: self.wdl.score(),
            draw_ratio: self.wdl.draw_ratio(),
            estimate: self.estimate(),
            sprt: sprt.map(|s| s.status(self)),
        }
    }
}

/// A one-line summary of a match; `Display` writes e.g.
/// `Games: 90, W/D/L: 30/40/20, Score: 55.6 %, Elo: 38.8 +/- 54.0 (trinomial, 90 games), LOS: 92.1 %, DrawRatio: 44.4 %, nElo: 52.4 +/- 71.8, Ptnml(0-2): [..], LLR: 0.19 (-2.94, 2.94) [0.00, 5.00]`.
///
/// The score, draw ratio and W/D/L are over all games; the Elo, LOS and
/// nElo come from the counts named after the Elo (see [`Tally`] for the
/// rule), which are all the games too unless every game is in a complete
/// pair. An interval with an infinite end prints as its ends,
/// `Elo: inf [166.2, inf]`. The LLR's counts are named after it when they
/// differ from the Elo's. Values that do not exist yet print as `n/a`;
/// `Ptnml` is left out when no pair is complete and `LLR` when no SPRT runs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Game counts.
    pub wdl: Wdl,
    /// Pair counts, when at least one pair is complete.
    pub ptnml: Option<[u64; 5]>,
    /// Points per game over all games.
    pub score: Option<f64>,
    /// Fraction of games drawn.
    pub draw_ratio: Option<f64>,
    /// Elo estimate ([`Tally::estimate`]); its `basis` names its counts.
    pub estimate: Option<EloEstimate>,
    /// SPRT status, when a test is configured; its `basis` names its counts.
    pub sprt: Option<SprtStatus>,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let percent =
            |x: Option<f64>| x.map_or("n/a".to_string(), |x| format!("{:.1} %", 100.0 * x));
        let Wdl {
            wins,
            draws,
            losses,
        } = self.wdl;
        write!(
            f,
            "Games: {}, W/D/L: {wins}/{draws}/{losses}, ",
            self.wdl.games()
        )?;
        write!(f, "Score: {}, ", percent(self.score))?;
        match &self.estimate {
            Some(e) if e.elo_error().is_finite() => write!(
                f,
                "Elo: {:.1} +/- {:.1} ({}), ",
                e.elo,
                e.elo_error(),
                e.basis
            )?,
            Some(e) => write!(
                f,
                "Elo: {:.1} [{:.1}, {:.1}] ({}), ",
                e.elo, e.elo_lower, e.elo_upper, e.basis
            )?,
            None => write!(f, "Elo: n/a, ")?,
        }
        write!(f, "LOS: {}, ", percent(self.estimate.map(|e| e.los)))?;
        write!(f, "DrawRatio: {}, ", percent(self.draw_ratio))?;
        match self.estimate.and_then(|e| Some((e.nelo?, e.nelo_error))) {
            Some((nelo, err)) => write!(f, "nElo: {nelo:.1} +/- {err:.1}")?,
            None => write!(f, "nElo: n/a")?,
        }
        if let Some([a, b, c, d, e]) = self.ptnml {
            write!(f, ", Ptnml(0-2): [{a}, {b}, {c}, {d}, {e}]")?;
        }
        if let Some(s) = &self.sprt {
            let (llr, lo, hi, e0, e1) = (s.llr, s.lower, s.upper, s.config.elo0, s.config.elo1);
            write!(f, ", LLR: {llr:.2} ({lo:.2}, {hi:.2}) [{e0:.2}, {e1:.2}]")?;
            if let Some(basis) = s
                .basis
                .filter(|&b| Some(b) != self.estimate.map(|e| e.basis))
            {
                write!(f, " ({basis})")?;
            }
        }
        Ok(())
    }
}

/// How the SPRT's Elo bounds are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EloModel {
    /// Normalized Elo (`model=normalized`, the default): the bounds are
    /// converted to scores with the sample's own per-game standard deviation,
    /// so they do not depend on the draw ratio or the openings.
    #[default]
    Normalized,
    /// Logistic Elo (`model=logistic`): the bounds are the usual Elo differences.
    Logistic,
    /// cutechess-cli's SPRT (`model=bayesian`): logistic Elo bounds turned
    /// into BayesElo at the sample's draw Elo, over single games only, with
    /// no LLR until there is a win, a loss and a draw (see [`Sprt::llr`]).
    /// fastchess's `model=bayesian` is another computation.
    Bayesian,
}

impl fmt::Display for EloModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EloModel::Normalized => "normalized",
            EloModel::Logistic => "logistic",
            EloModel::Bayesian => "bayesian",
        })
    }
}

/// Parameters of a sequential probability ratio test: H0 `elo = elo0`
/// against H1 `elo = elo1`, with false-positive rate `alpha` and
/// false-negative rate `beta`.
///
/// Parsed from and displayed as fastchess-style words:
/// `elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized` (`elo0` and `elo1`
/// are required; `alpha` and `beta` default to 0.05 and `model` to normalized).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtConfig {
    /// Elo difference of the null hypothesis.
    pub elo0: f64,
    /// Elo difference of the alternative hypothesis; above `elo0`.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds, in `(0, 1)`.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds, in `(0, 1)`; `alpha + beta < 1`.
    pub beta: f64,
    /// How `elo0` and `elo1` are read.
    pub model: EloModel,
}

/// A word of an SPRT specification that could not be read; each variant
/// names the word.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseSprtError {
    /// The word has no `=`.
    #[error("SPRT parameter `{0}` is not KEY=VALUE")]
    NotKeyValue(String),
    /// The key is not one of elo0, elo1, alpha, beta, model.
    #[error("unknown SPRT parameter `{0}` (expected elo0, elo1, alpha, beta or model)")]
    UnknownKey(String),
    /// The key was given twice.
    #[error("SPRT parameter `{0}` given twice")]
    Repeated(String),
    /// The value is not a finite number.
    #[error("SPRT parameter `{0}`: the value is not a finite number")]
    BadNumber(String),
    /// The model is not normalized, logistic or bayesian.
    #[error("SPRT parameter `{0}`: the model must be normalized, logistic or bayesian")]
    BadModel(String),
    /// A required key is missing.
    #[error("SPRT parameter `{0}=` is missing")]
    Missing(&'static str),
    /// The values parse but do not make a test.
    #[error(transparent)]
    Invalid(#[from] InvalidSprtError),
}

/// SPRT parameters that do not make a test.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InvalidSprtError {
    /// An error rate outside `(0, 1)`.
    #[error("SPRT parameter `{key}={value}`: must be strictly between 0 and 1")]
    Probability {
        /// `alpha` or `beta`.
        key: &'static str,
        /// The value given.
        value: f64,
    },
    /// `alpha + beta` is 1 or more, so the bounds would not enclose 0.
    #[error("SPRT parameters `alpha={alpha}` and `beta={beta}`: their sum must be below 1")]
    RatesTooLarge {
        /// The value of alpha.
        alpha: f64,
        /// The value of beta.
        beta: f64,
    },
    /// The hypotheses are not ordered `elo0 < elo1`, or not finite.
    #[error("SPRT parameters `elo0={elo0}` and `elo1={elo1}`: elo0 must be below elo1")]
    EloOrder {
        /// The value of elo0.
        elo0: f64,
        /// The value of elo1.
        elo1: f64,
    },
}

impl FromStr for SprtConfig {
    type Err = ParseSprtError;

    /// Reads whitespace-separated `KEY=VALUE` words and validates them as
    /// [`Sprt::new`] does.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (mut elo0, mut elo1, mut alpha, mut beta, mut model) = (None, None, None, None, None);
        for word in s.split_whitespace() {
            let (key, value) = word
                .split_once('=')
                .ok_or_else(|| ParseSprtError::NotKeyValue(word.into()))?;
            let number = || match value.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(ParseSprtError::BadNumber(word.into())),
            };
            let slot_set = match key {
                "elo0" => elo0.replace(number()?).is_some(),
                "elo1" => elo1.replace(number()?).is_some(),
                "alpha" => alpha.replace(number()?).is_some(),
                "beta" => beta.replace(number()?).is_some(),
                "model" => {
                    let m = match value {
                        "normalized" => EloModel::Normalized,
                        "logistic" => EloModel::Logistic,
                        "bayesian" => EloModel::Bayesian,
                        _ => return Err(ParseSprtError::BadModel(word.into())),
                    };
                    model.replace(m).is_some()
                }
                _ => return Err(ParseSprtError::UnknownKey(word.into())),
            };
            if slot_set {
                return Err(ParseSprtError::Repeated(word.into()));
            }
        }
        let config = SprtConfig {
            elo0: elo0.ok_or(ParseSprtError::Missing("elo0"))?,
            elo1: elo1.ok_or(ParseSprtError::Missing("elo1"))?,
            alpha: alpha.unwrap_or(DEFAULT_RATE),
            beta: beta.unwrap_or(DEFAULT_RATE),
            model: model.unwrap_or_default(),
        };
        config.validate()?;
        Ok(config)
    }
}

impl FromStr for Sprt {
    type Err = ParseSprtError;

    /// The test of [`SprtConfig`]'s words (validated as they are read).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let config: SprtConfig = s.parse()?;
        Ok(Sprt { config })
    }
}

impl fmt::Display for SprtConfig {
    /// The words [`FromStr`] reads, every key written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let SprtConfig {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        } = self;
        write!(
            f,
            "elo0={elo0} elo1={elo1} alpha={alpha} beta={beta} model={model}"
        )
    }
}

/// The false-positive and false-negative rates an SPRT has unless told.
pub const DEFAULT_RATE: f64 = 0.05;

impl SprtConfig {
    /// A test of `elo0` against `elo1` in `model` at the rates the
    /// words default to (and fishtest, OpenBench and most scripts use):
    /// `alpha = beta = 0.05`.
    pub fn with_default_rates(elo0: f64, elo1: f64, model: EloModel) -> SprtConfig {
        SprtConfig {
            elo0,
            elo1,
            alpha: DEFAULT_RATE,
            beta: DEFAULT_RATE,
            model,
        }
    }

    /// Checks that the parameters make a test.
    ///
    /// # Errors
    /// [`InvalidSprtError`] naming the offending values.
    pub fn validate(&self) -> Result<(), InvalidSprtError> {
        for (key, value) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(value > 0.0 && value < 1.0) {
                return Err(InvalidSprtError::Probability { key, value });
            }
        }
        if self.alpha + self.beta >= 1.0 {
            return Err(InvalidSprtError::RatesTooLarge {
                alpha: self.alpha,
                beta: self.beta,
            });
        }
        if !(self.elo0.is_finite() && self.elo1.is_finite() && self.elo0 < self.elo1) {
            return Err(InvalidSprtError::EloOrder {
                elo0: self.elo0,
                elo1: self.elo1,
            });
        }
        Ok(())
    }
}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SprtState {
    /// The LLR is between the bounds: play on.
    Continue,
    /// The LLR reached the lower bound: H0 (`elo0`) accepted, stop.
    AcceptH0,
    /// The LLR reached the upper bound: H1 (`elo1`) accepted, stop.
    AcceptH1,
}

/// The SPRT's verdict on some counts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtStatus {
    /// The decision.
    pub state: SprtState,
    /// Log-likelihood ratio of H1 against H0.
    pub llr: f64,
    /// Lower bound `ln(beta / (1 - alpha))`.
    pub lower: f64,
    /// Upper bound `ln((1 - beta) / alpha)`.
    pub upper: f64,
    /// The counts behind the LLR ([`Sprt::basis`]); `None` before the
    /// first game.
    pub basis: Option<Basis>,
    /// The test's parameters.
    pub config: SprtConfig,
}

/// A validated sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    config: SprtConfig,
}

impl Sprt {
    /// A test with these parameters.
    ///
    /// # Errors
    /// [`InvalidSprtError`] when the parameters do not make a test.
    pub fn new(config: SprtConfig) -> Result<Sprt, InvalidSprtError> {
        config.validate()?;
        Ok(Sprt { config })
    }

    /// The test's parameters.
    pub fn config(&self) -> &SprtConfig {
        &self.config
    }

    /// The LLR bounds `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`.
    pub fn bounds(&self) -> (f64, f64) {
        let SprtConfig { alpha, beta, .. } = self.config;
        ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
    }

    /// The counts the LLR is computed from: for `model=bayesian` the games
    /// (cutechess-cli counts no pairs), else [`Tally::sprt_basis`]; `None`
    /// before the first game.
    pub fn basis(&self, tally: &Tally) -> Option<Basis> {
        match self.config.model {
            EloModel::Bayesian => (tally.wdl.games() > 0).then_some(Basis {
                model: ResultModel::Trinomial,
                samples: tally.wdl.games(),
            }),
            EloModel::Normalized | EloModel::Logistic => tally.sprt_basis(),
        }
    }

    /// Log-likelihood ratio of H1 against H0 over the counts of
    /// [`Sprt::basis`]: the pairs once one is complete (pentanomial), else
    /// the games (trinomial). It is 0 (no evidence) before the first game.
    ///
    /// For `model=normalized` and `model=logistic` it is the exact
    /// generalised LLR that fishtest (`LLR_normalized`, `LLR_logistic` in
    /// `server/fishtest/stats/LLRcalc.py`) and fastchess decide with: the
    /// log of the ratio of the likelihoods of the most likely result
    /// distributions under H1 and under H0, each fitted to the counts with
    /// its hypothesis as a constraint (the mean score `1 / (1 + 10^(-elo /
    /// 400))` for logistic Elo, the t-value `nElo / (800 / ln 10)` per game,
    /// `sqrt(2)` times that per pair, for normalized Elo), with every empty
    /// bucket counted as `1e-3`; the method is in the `gllr` module's docs.
    /// One game moves it by a few hundredths: an SPRT needs many games to
    /// decide, even when every game ends alike.
    ///
    /// For `model=bayesian` it is cutechess-cli's: 0 until there is a win, a
    /// loss and a draw, then the likelihood ratio of the BayesElo models of
    /// `elo1` and `elo0` at the sample's draw Elo, over single games.
    pub fn llr(&self, tally: &Tally) -> f64 {
        let SprtConfig {
            elo0, elo1, model, ..
        } = self.config;
        let Some(basis) = self.basis(tally) else {
            return 0.0;
        };
        let t = |elo: f64| elo / NELO_PER_T;
        match (model, basis.model) {
            (EloModel::Bayesian, _) => {
                let Wdl {
                    wins,
                    draws,
                    losses,
                } = tally.wdl;
                gllr::llr_cutechess(wins, losses, draws, elo0, elo1)
            }
            (_, ResultModel::Pentanomial) => {
                let Some((n, p)) = gllr::frequencies(tally.ptnml.counts.map(|c| c as f64)) else {
                    return 0.0;
                };
                match model {
                    EloModel::Logistic => {
                        gllr::llr_mean(n, &p, score_from_elo(elo0), score_from_elo(elo1))
                    }
                    _ => {
                        let r2 = std::f64::consts::SQRT_2;
                        gllr::llr_t_value(n, &p, r2 * t(elo0), r2 * t(elo1))
                    }
                }
            }
            (_, ResultModel::Trinomial) => {
                let Some((n, p)) = gllr::frequencies(tally.wdl.counts()) else {
                    return 0.0;
                };
                match model {
                    EloModel::Logistic => {
                        gllr::llr_mean(n, &p, score_from_elo(elo0), score_from_elo(elo1))
                    }
                    _ => gllr::llr_t_value(n, &p, t(elo0), t(elo1)),
                }
            }
        }
    }

    /// The LLR, the bounds and the decision for these counts.
    pub fn status(&self, tally: &Tally) -> SprtStatus {
        let llr = self.llr(tally);
        let (lower, upper) = self.bounds();
        let state = if llr >= upper {
            SprtState::AcceptH1
        } else if llr <= lower {
            SprtState::AcceptH0
        } else {
            SprtState::Continue
        };
        SprtStatus {
            state,
            llr,
            lower,
            upper,
            basis: self.basis(tally),
            config: self.config,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_draw_ratio_and_pairs_ratio() {
        let p = Pentanomial {
            counts: [1, 2, 4, 3, 3],
        };
        assert_eq!(p.draw_ratio(), Some(4.0 / 13.0));
        assert_eq!(p.pairs_ratio(), Some(2.0));
        let none = Pentanomial::default();
        assert_eq!((none.draw_ratio(), none.pairs_ratio()), (None, None));
        let won = Pentanomial {
            counts: [0, 0, 1, 0, 2],
        };
        assert_eq!(won.pairs_ratio(), Some(f64::INFINITY));
    }

    /// Values of `math.erf` from Python 3: erf(0.5) = 0.5204998778130465,
    /// erf(1) = 0.8427007929497149, erf(-2.5) = -0.9995930479825550,
    /// erf(4) = 0.9999999845827421.
    #[test]
    fn erf_matches_python() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (-2.5, -0.999_593_047_982_555),
            (4.0, 0.999_999_984_582_742_1),
            (7.0, 1.0),
        ] {
            assert!(
                (erf(x) - want).abs() < 1e-14,
                "erf({x}) = {} want {want}",
                erf(x)
            );
        }
    }

    /// (H) [L, D, W] = [0, 0, 2] is regularised to [.001, .001, 2]: N =
    /// 2.002; no counts, no frequencies.
    #[test]
    fn empty_buckets_are_regularised() {
        assert!(gllr::frequencies([0.0; 5]).is_none());
        let (n, p) = gllr::frequencies([0.0, 0.0, 2.0]).unwrap();
        assert!((n - 2.002).abs() < 1e-15, "{n}");
        assert_eq!(p, [0.001 / 2.002, 0.001 / 2.002, 2.0 / 2.002]);
    }

    /// (H) Wilson at s = 1 over n samples: [n/(n + z²), 1], the upper end
    /// exactly 1 (so that the Elo stays +inf); at s = 0 the mirror.
    #[test]
    fn wilson_ends_at_the_bounds_are_exact() {
        for n in [1.0, 3.0, 10.0, 1e6] {
            let all = |mean| Sample {
                n,
                model: ResultModel::Trinomial,
                mean,
                var: 0.0,
            };
            let (lo, hi) = all(1.0).score_interval();
            assert_eq!(hi, 1.0);
            assert!((lo - n / (n + Z_975 * Z_975)).abs() < 1e-15, "{n}: {lo}");
            let (lo, hi) = all(0.0).score_interval();
            assert_eq!(lo, 0.0);
            assert!(
                (hi - Z_975 * Z_975 / (n + Z_975 * Z_975)).abs() < 1e-15,
                "{n}: {hi}"
            );
        }
    }

    #[test]
    fn elo_and_score_are_inverse() {
        for elo in [-600.0, -35.5, 0.0, 5.0, 400.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9);
        }
        assert_eq!(elo_from_score(0.5).to_string(), "0");
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(-0.1), f64::NEG_INFINITY);
    }
}
