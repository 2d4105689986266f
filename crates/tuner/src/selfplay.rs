//! Self-play: the engine plays itself at a fixed node count from a set of
//! openings, and positions of each game are labelled with its result.

use rookery_core::{Color, Game, Position, Termination};
use rookery_engine::{Engine, Limits, Score};

/// Settings of a self-play run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Nodes per move.
    pub nodes: u64,
    /// Skip positions before this ply of the game.
    pub min_ply: usize,
    /// Adjudicate a win after both sides agree on this score for 4 plies.
    pub resign_cp: i32,
    /// Adjudicate a draw after this many plies.
    pub max_plies: usize,
    /// Random legal moves played after the opening position, for variety.
    pub random_plies: usize,
    /// Openings whose search score after the random moves exceeds this many
    /// centipawns (either side) are drawn again.
    pub max_start_cp: i32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            nodes: 5_000,
            min_ply: 4,
            resign_cp: 1_000,
            max_plies: 300,
            random_plies: 4,
            max_start_cp: 300,
        }
    }
}

/// A small xorshift generator: self-play needs repeatable variety, not
/// statistical quality.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value, zero included).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next value below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Plays `s.random_plies` random legal moves from `opening` (drawing again,
/// up to 20 times, while the position ends the game or the engine scores it
/// beyond `s.max_start_cp`); returns the start of a self-play game.
pub fn randomised_start(
    engine: &mut Engine,
    opening: &Position,
    s: &Settings,
    rng: &mut Rng,
) -> Position {
    let mut pos = opening.clone();
    for _ in 0..20 {
        pos = opening.clone();
        for _ in 0..s.random_plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len())]);
        }
        if pos.legal_moves().is_empty() {
            continue;
        }
        engine.set_position(pos.clone(), &[]);
        let out = engine.search_sync(Limits {
            nodes: Some(s.nodes),
            ..Limits::default()
        });
        if let Some(Score::Cp(c)) = out.score {
            if c.abs() <= s.max_start_cp {
                return pos;
            }
        }
    }
    pos
}

/// Plays one game from `start`; returns `FEN;result;game` lines of its quiet
/// positions (not in check, and the engine's choice there was not a capture
/// or promotion), `id` naming the game so that tuning can split by game.
pub fn play_game(engine: &mut Engine, start: &Position, s: &Settings, id: usize) -> Vec<String> {
    let mut game = Game::new(start.clone());
    let mut kept: Vec<String> = Vec::new();
    let mut big = 0usize;
    let mut sign_of_big = 0i32;
    // The result from White's side: 1.0, 0.5, 0.0.
    let result: f64 = loop {
        if let Some(t) = game.status() {
            // Claimable draws are taken at once.
            break match t {
                Termination::Checkmate => {
                    if game.position().turn() == Color::White {
                        0.0
                    } else {
                        1.0
                    }
                }
                _ => 0.5,
            };
        }
        if game.moves().len() >= s.max_plies {
            break 0.5;
        }
        let pos = game.position().clone();
        engine.set_position(game.start().clone(), game.moves());
        let out = engine.search_sync(Limits {
            nodes: Some(s.nodes),
            ..Limits::default()
        });
        let Some(m) = out.best else { break 0.5 };
        // Score from White's side, in centipawns (mates count as huge).
        let white_cp = match out.score {
            Some(Score::Cp(c)) => c,
            Some(Score::Mate(n)) => {
                if n > 0 {
                    30_000
                } else {
                    -30_000
                }
            }
            None => 0,
        } * if pos.turn() == Color::White { 1 } else { -1 };
        if white_cp.abs() >= s.resign_cp {
            let sg = white_cp.signum();
            if sg == sign_of_big {
                big += 1;
            } else {
                big = 1;
                sign_of_big = sg;
            }
            if big >= 4 {
                break if sg > 0 { 1.0 } else { 0.0 };
            }
        } else {
            big = 0;
        }
        if game.moves().len() >= s.min_ply && !pos.is_check() && m.is_quiet_in(&pos) {
            kept.push(pos.fen());
        }
        if game.play(m).is_err() {
            break 0.5;
        }
    };
    kept.into_iter()
        .map(|f| format!("{f};{result:.1};{id}"))
        .collect()
}
