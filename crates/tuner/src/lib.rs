//! The Texel tuner: fits the engine's evaluation weights to game results.
//!
//! Input is one `FEN;result` per line (result from White's side: `1.0`,
//! `0.5`, `0.0`, or `1-0`, `1/2-1/2`, `0-1`). Every position is traced once
//! through the engine's own evaluation ([`rookery_engine::eval::trace`]), so
//! the evaluation is linear in the weights here exactly as in the engine; the
//! tuner then minimises the mean squared error between `sigmoid(K * eval)`
//! and the result with Adam, after fitting the scale `K` to the starting
//! weights.
//!
//! ```
//! use rookery_tuner::{parse_line, Sample, Tuner};
//!
//! let lines = [
//!     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;0.5",
//!     "4k3/8/8/8/8/8/8/3QK3 w - - 0 1;1.0",
//!     "3qk3/8/8/8/8/8/8/4K3 w - - 0 1;0-1",
//! ];
//! let samples: Vec<Sample> = lines.iter().map(|l| parse_line(l)).collect::<Result<_, _>>()?;
//! let mut tuner = Tuner::new(samples, rookery_engine::eval::Classical::default().weights());
//! let k = tuner.fit_k();
//! let before = tuner.error(k);
//! tuner.train(k, 20, 1.0, 0.0);
//! assert!(tuner.error(k) <= before);
//! # Ok::<(), rookery_tuner::ParseError>(())
//! ```

#![deny(missing_docs)]

pub mod selfplay;

use rookery_core::Position;
use rookery_engine::eval::{idx, trace, Trace, MAX_PHASE};
use std::collections::BTreeMap;

/// A line that is not `FEN;result`.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    /// No `;` separating FEN and result.
    #[error("expected `FEN;result`, found {0:?}")]
    Shape(String),
    /// The FEN does not give a legal position.
    #[error("bad FEN {fen:?}: {reason}")]
    Fen {
        /// The FEN.
        fen: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The result is not one of the known forms.
    #[error("bad result {0:?} (expected 1.0, 0.5, 0.0, 1-0, 1/2-1/2 or 0-1)")]
    Result(String),
}

/// One position's features and result.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// (feature index, count for White minus count for Black).
    pub features: Vec<(u16, i16)>,
    /// Game phase, 0..=[`MAX_PHASE`].
    pub phase: i32,
    /// Result from White's side.
    pub result: f64,
}

struct Recorder(BTreeMap<usize, i32>);

impl Trace for Recorder {
    fn add(&mut self, index: usize, n: i32) {
        *self.0.entry(index).or_insert(0) += n;
    }
}

/// The sample of a position and result.
pub fn sample(pos: &Position, result: f64) -> Sample {
    let mut r = Recorder(BTreeMap::new());
    let phase = trace(pos, &mut r);
    Sample {
        features: r
            .0
            .into_iter()
            .filter(|&(_, n)| n != 0)
            .map(|(i, n)| (i as u16, n.clamp(-32_000, 32_000) as i16))
            .collect(),
        phase,
        result,
    }
}

/// Parses one `FEN;result` line.
///
/// # Errors
/// [`ParseError`] naming what is wrong.
pub fn parse_line(line: &str) -> Result<Sample, ParseError> {
    let r = parse_record(line)?;
    Ok(sample(&r.position, r.result))
}

/// One labelled position: `FEN;result` or `FEN;result;game`.
#[derive(Clone, Debug)]
pub struct Record {
    /// The position.
    pub position: Position,
    /// Result from White's side.
    pub result: f64,
    /// The game it came from, when the line names one.
    pub game: Option<u64>,
}

/// Parses `FEN;result` or `FEN;result;game` (the game a number).
///
/// # Errors
/// [`ParseError`] naming what is wrong.
pub fn parse_record(line: &str) -> Result<Record, ParseError> {
    let mut parts = line.split(';');
    let (Some(fen), Some(res)) = (parts.next(), parts.next()) else {
        return Err(ParseError::Shape(line.to_string()));
    };
    let game = match parts.next() {
        None => None,
        Some(g) => Some(
            g.trim()
                .parse::<u64>()
                .map_err(|_| ParseError::Shape(line.to_string()))?,
        ),
    };
    if parts.next().is_some() {
        return Err(ParseError::Shape(line.to_string()));
    }
    let result = match res.trim() {
        "1.0" | "1" | "1-0" => 1.0,
        "0.5" | "1/2-1/2" => 0.5,
        "0.0" | "0" | "0-1" => 0.0,
        other => return Err(ParseError::Result(other.to_string())),
    };
    let (position, _) = Position::from_fen_lenient(fen.trim()).map_err(|e| ParseError::Fen {
        fen: fen.to_string(),
        reason: e.to_string(),
    })?;
    Ok(Record {
        position,
        result,
        game,
    })
}

/// Weights being tuned and the samples they are fitted to.
pub struct Tuner {
    samples: Vec<Sample>,
    mg: Vec<f64>,
    eg: Vec<f64>,
    start: Vec<[f64; 2]>,
    frozen: Vec<bool>,
}

/// How often [`Tuner::train_early_stopping`] measures the validation error, in
/// epochs.
pub const VALIDATE_EVERY: usize = 50;

/// Adam's moment estimates for the middlegame and endgame weights.
struct Adam {
    m: Vec<f64>,
    v: Vec<f64>,
    t: i32,
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; 2 * n],
            v: vec![0.0; 2 * n],
            t: 0,
        }
    }
}

fn sigmoid(k: f64, e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * e / 400.0))
}

impl Tuner {
    /// A tuner starting from `weights` (indexed by `eval::idx`).
    pub fn new(samples: Vec<Sample>, weights: &[[i32; 2]]) -> Tuner {
        let mut mg = vec![0.0; idx::COUNT];
        let mut eg = vec![0.0; idx::COUNT];
        for (i, w) in weights.iter().enumerate().take(idx::COUNT) {
            mg[i] = f64::from(w[0]);
            eg[i] = f64::from(w[1]);
        }
        let start = mg.iter().zip(&eg).map(|(&a, &b)| [a, b]).collect();
        Tuner {
            samples,
            mg,
            eg,
            start,
            frozen: vec![false; idx::COUNT],
        }
    }

    /// Keeps the weights `range` (indices of `eval::idx`) at their starting
    /// values, e.g. the material values, which anchors the centipawn scale.
    pub fn freeze(&mut self, range: std::ops::Range<usize>) {
        for i in range {
            if let Some(f) = self.frozen.get_mut(i) {
                *f = true;
            }
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    fn eval(&self, s: &Sample) -> f64 {
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(i, n) in &s.features {
            mg += self.mg[i as usize] * f64::from(n);
            eg += self.eg[i as usize] * f64::from(n);
        }
        let p = f64::from(s.phase);
        (mg * p + eg * (f64::from(MAX_PHASE) - p)) / f64::from(MAX_PHASE)
    }

    /// Mean squared error at scale `k`.
    pub fn error(&self, k: f64) -> f64 {
        self.error_on(&self.samples, k)
    }

    /// Mean squared error of other samples at scale `k` (for validation).
    pub fn error_on(&self, samples: &[Sample], k: f64) -> f64 {
        if samples.is_empty() {
            return 0.0;
        }
        let sum: f64 = samples
            .iter()
            .map(|s| (s.result - sigmoid(k, self.eval(s))).powi(2))
            .sum();
        sum / samples.len() as f64
    }

    /// The scale `K` that minimises the error with the current weights.
    pub fn fit_k(&self) -> f64 {
        let (mut lo, mut hi) = (0.05f64, 4.0f64);
        for _ in 0..60 {
            let a = lo + (hi - lo) / 3.0;
            let b = hi - (hi - lo) / 3.0;
            if self.error(a) < self.error(b) {
                hi = b;
            } else {
                lo = a;
            }
        }
        (lo + hi) / 2.0
    }

    /// Runs `epochs` full-batch Adam steps with learning rate `lr` (in
    /// centipawns) and an L2 pull of strength `l2` toward the starting weights.
    pub fn train(&mut self, k: f64, epochs: usize, lr: f64, l2: f64) {
        let mut adam = Adam::new(idx::COUNT);
        for _ in 0..epochs {
            self.step(&mut adam, k, lr, l2);
        }
    }

    /// Like [`Tuner::train`], but measures the error on `valid` every
    /// [`VALIDATE_EVERY`] epochs and ends with the weights that had the lowest
    /// one (early stopping); with no validation samples it trains all epochs.
    /// Returns the epoch of those weights and their validation error;
    /// `report` sees (epoch, training error, validation error) at each check.
    pub fn train_early_stopping(
        &mut self,
        k: f64,
        epochs: usize,
        lr: f64,
        l2: f64,
        valid: &[Sample],
        mut report: impl FnMut(usize, f64, f64),
    ) -> (usize, f64) {
        if valid.is_empty() {
            self.train(k, epochs, lr, l2);
            return (epochs, 0.0);
        }
        let mut adam = Adam::new(idx::COUNT);
        let mut best = (0, self.error_on(valid, k));
        let mut best_weights = (self.mg.clone(), self.eg.clone());
        for epoch in 1..=epochs {
            self.step(&mut adam, k, lr, l2);
            if epoch % VALIDATE_EVERY == 0 || epoch == epochs {
                let v = self.error_on(valid, k);
                report(epoch, self.error(k), v);
                if v < best.1 {
                    best = (epoch, v);
                    best_weights = (self.mg.clone(), self.eg.clone());
                }
            }
        }
        (self.mg, self.eg) = best_weights;
        best
    }

    /// One full-batch Adam step.
    fn step(&mut self, adam: &mut Adam, k: f64, lr: f64, l2: f64) {
        let n = idx::COUNT;
        let (b1, b2, eps) = (0.9, 0.999, 1e-8);
        let count = self.samples.len().max(1) as f64;
        adam.t += 1;
        let t = adam.t;
        let mut grad = vec![0.0; 2 * n];
        for s in &self.samples {
            let e = self.eval(s);
            let sg = sigmoid(k, e);
            let g = (sg - s.result) * sg * (1.0 - sg) * k * std::f64::consts::LN_10 / 400.0;
            let p = f64::from(s.phase) / f64::from(MAX_PHASE);
            for &(i, c) in &s.features {
                let c = f64::from(c) * g;
                grad[i as usize] += c * p;
                grad[n + i as usize] += c * (1.0 - p);
            }
        }
        for (i, &g) in grad.iter().enumerate() {
            if self.frozen[i % n] {
                continue;
            }
            let w = if i < n { self.mg[i] } else { self.eg[i - n] };
            let start = self.start[i % n][i / n];
            let gi = 2.0 * g / count + 2.0 * l2 * (w - start);
            adam.m[i] = b1 * adam.m[i] + (1.0 - b1) * gi;
            adam.v[i] = b2 * adam.v[i] + (1.0 - b2) * gi * gi;
            let mh = adam.m[i] / (1.0 - f64::powi(b1, t));
            let vh = adam.v[i] / (1.0 - f64::powi(b2, t));
            let step = lr * mh / (vh.sqrt() + eps);
            if i < n {
                self.mg[i] -= step;
            } else {
                self.eg[i - n] -= step;
            }
        }
    }

    /// The weights, rounded.
    pub fn weights(&self) -> Vec<[i32; 2]> {
        self.mg
            .iter()
            .zip(&self.eg)
            .map(|(&a, &b)| {
                [
                    a.round().clamp(-30_000.0, 30_000.0) as i32,
                    b.round().clamp(-30_000.0, 30_000.0) as i32,
                ]
            })
            .collect()
    }
}

/// The weights as the engine's `weights.rs` source file.
pub fn weights_source(w: &[[i32; 2]], note: &str) -> String {
    let mut s = String::new();
    s.push_str("//! Evaluation weights, (middlegame, endgame) per feature; see `eval::idx`.\n");
    s.push_str("//!\n//! Written by the Texel tuner (crates/tuner); edit by re-running it.\n");
    for line in note.lines() {
        s.push_str("//! ");
        s.push_str(line);
        s.push('\n');
    }
    s.push_str("\n/// The weights, indexed by `eval::idx`.\n#[rustfmt::skip]\n");
    s.push_str(&format!("pub const WEIGHTS: [[i16; 2]; {}] = [\n", w.len()));
    for chunk in w.chunks(8) {
        s.push_str("   ");
        for [a, b] in chunk {
            s.push_str(&format!(" [{a}, {b}],"));
        }
        s.push('\n');
    }
    s.push_str("];\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors() {
        assert!(matches!(
            parse_line("no separator"),
            Err(ParseError::Shape(_))
        ));
        assert!(matches!(
            parse_line("8/8/8/8/8/8/8/8 w - - 0 1;1.0"),
            Err(ParseError::Fen { .. })
        ));
        assert!(matches!(
            parse_line("4k3/8/8/8/8/8/8/4K3 w - - 0 1;2"),
            Err(ParseError::Result(_))
        ));
    }

    #[test]
    fn records_name_their_game() {
        let r = parse_record("4k3/8/8/8/8/8/8/3QK3 w - - 0 1;1-0;17").unwrap();
        assert_eq!(r.game, Some(17));
        assert_eq!(r.result, 1.0);
        assert_eq!(
            parse_record("4k3/8/8/8/8/8/8/3QK3 w - - 0 1;0.5")
                .unwrap()
                .game,
            None
        );
        assert!(matches!(
            parse_record("4k3/8/8/8/8/8/8/3QK3 w - - 0 1;0.5;x"),
            Err(ParseError::Shape(_))
        ));
    }

    #[test]
    fn linear_eval_matches_engine() {
        use rookery_engine::eval::{Classical, Evaluator};
        let e = Classical::default();
        let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8";
        let pos = Position::from_fen(fen).unwrap();
        let t = Tuner::new(vec![sample(&pos, 0.5)], e.weights());
        let lin = t.eval(&t.samples[0]);
        // The engine rounds per phase blend; allow one centipawn.
        assert!((lin - f64::from(e.evaluate(&pos))).abs() <= 1.0, "{lin}");
    }

    #[test]
    fn training_fits_results() {
        // White wins every position with an extra queen: the tuner must not
        // make the queen worth less.
        let samples: Vec<Sample> = [
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1;1.0",
            "4k3/8/8/8/8/8/8/Q3K3 b - - 0 1;1.0",
            "3qk3/8/8/8/8/8/8/4K3 w - - 0 1;0.0",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1;0.5",
        ]
        .iter()
        .map(|l| parse_line(l).unwrap())
        .collect();
        let mut t = Tuner::new(samples, &vec![[0, 0]; idx::COUNT]);
        let before = t.error(1.0);
        t.train(1.0, 200, 2.0, 0.0);
        assert!(t.error(1.0) < before);
        assert!(t.weights()[idx::MATERIAL + 4][1] > 0);
    }

    #[test]
    fn early_stopping_keeps_the_best_validated_weights() {
        let parse = |lines: &[&str]| -> Vec<Sample> {
            lines.iter().map(|l| parse_line(l).unwrap()).collect()
        };
        let train = parse(&[
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1;1.0",
            "3qk3/8/8/8/8/8/8/4K3 w - - 0 1;0.0",
        ]);
        // A validation set that agrees with the training set: learning helps.
        let agree = parse(&["4k3/8/8/8/8/8/8/Q3K3 b - - 0 1;1.0"]);
        let mut t = Tuner::new(train.clone(), &vec![[0, 0]; idx::COUNT]);
        let mut checks = 0;
        let (epoch, err) =
            t.train_early_stopping(1.0, 200, 2.0, 0.0, &agree, |_, _, _| checks += 1);
        assert_eq!(checks, 200 / VALIDATE_EVERY);
        assert!(epoch > 0 && err < 0.25, "{epoch} {err}");
        // One that contradicts it: every step makes validation worse, so the
        // starting weights are kept.
        let disagree = parse(&["4k3/8/8/8/8/8/8/Q3K3 b - - 0 1;0.0"]);
        let mut t = Tuner::new(train, &vec![[0, 0]; idx::COUNT]);
        let (epoch, err) = t.train_early_stopping(1.0, 200, 2.0, 0.0, &disagree, |_, _, _| {});
        assert_eq!((epoch, err), (0, 0.25));
        assert!(t.weights().iter().all(|w| *w == [0, 0]));
    }
}
