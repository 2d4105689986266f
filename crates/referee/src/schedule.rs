//! Who plays whom, with which colours, from which opening.
//!
//! A schedule is a pure function of the match plan: the same plan (with the
//! same seed) gives the same games in the same order, which is what lets a
//! journal resume a match. Games come in blocks of `games` per encounter
//! and round (usually 2: one opening, colours reversed); each block takes
//! the next opening of the book, in file order or shuffled by the seed.
//!
//! ```
//! use rookery_referee::schedule::{schedule, Pairing};
//! let games = schedule(3, Pairing::RoundRobin, 1, 2);
//! // Three encounters (0-1, 0-2, 1-2), two games each with colours reversed.
//! assert_eq!(games.len(), 6);
//! assert_eq!((games[0].white, games[0].black), (0, 1));
//! assert_eq!((games[1].white, games[1].black), (1, 0));
//! assert_eq!(games[0].block, games[1].block);
//! ```

use rookery_core::{Mode, Move, Position, San};
use rookery_epd::Record;
use rookery_pgn::Games;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// How the engines are paired.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pairing {
    /// Every engine against every other.
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
}

impl FromStr for Pairing {
    type Err = String;
    fn from_str(s: &str) -> Result<Pairing, String> {
        match s {
            "round-robin" | "roundrobin" => Ok(Pairing::RoundRobin),
            "gauntlet" => Ok(Pairing::Gauntlet),
            _ => Err(format!(
                "unknown pairing {s:?}: expected round-robin or gauntlet"
            )),
        }
    }
}

impl fmt::Display for Pairing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pairing::RoundRobin => "round-robin",
            Pairing::Gauntlet => "gauntlet",
        })
    }
}

/// One game of the schedule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    /// Its number (0-based, the order of the schedule).
    pub number: usize,
    /// The round (1-based).
    pub round: usize,
    /// The block of games sharing one encounter and opening (0-based): the
    /// games of a block with two games are a pair.
    pub block: usize,
    /// Its place in the block (0-based).
    pub in_block: usize,
    /// White's engine (index into the match's engines).
    pub white: usize,
    /// Black's engine.
    pub black: usize,
}

/// The schedule of `rounds` rounds with `games` games per encounter among
/// `engines` engines.
pub fn schedule(engines: usize, pairing: Pairing, rounds: usize, games: usize) -> Vec<Scheduled> {
    let plan = Schedule::new(engines, pairing, rounds, games);
    (0..plan.len()).map_while(|n| plan.get(n)).collect()
}

/// The same schedule as [`schedule`], each game worked out when asked for:
/// for a holder that must not keep every game of a long event (a million
/// rounds is a few numbers here, not a million entries).
///
/// ```
/// use rookery_referee::schedule::{schedule, Pairing, Schedule};
/// let plan = Schedule::new(3, Pairing::RoundRobin, 1_000_000, 2);
/// assert_eq!(plan.len(), 6_000_000);
/// assert_eq!(plan.get(4), schedule(3, Pairing::RoundRobin, 1, 2).get(4).copied());
/// assert_eq!(plan.get(5_999_999).map(|g| g.round), Some(1_000_000));
/// assert_eq!(plan.get(6_000_000), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Who meets whom in a round, in order (lower index first).
    encounters: Vec<(usize, usize)>,
    rounds: usize,
    games: usize,
}

impl Schedule {
    /// The plan of `rounds` rounds with `games` games per encounter among
    /// `engines` engines.
    pub fn new(engines: usize, pairing: Pairing, rounds: usize, games: usize) -> Schedule {
        let encounters = match pairing {
            Pairing::Gauntlet => (1..engines).map(|j| (0, j)).collect(),
            Pairing::RoundRobin => (0..engines)
                .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
                .collect(),
        };
        Schedule {
            encounters,
            rounds,
            games,
        }
    }

    /// Games in a round.
    fn per_round(&self) -> usize {
        self.encounters.len().saturating_mul(self.games)
    }

    /// How many games (saturating at `usize::MAX`).
    pub fn len(&self) -> usize {
        self.per_round().saturating_mul(self.rounds)
    }

    /// No game at all (fewer than two engines, or no rounds or games).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Game `number` (0-based), if the schedule has it.
    pub fn get(&self, number: usize) -> Option<Scheduled> {
        let per_round = self.per_round();
        if per_round == 0 || number >= self.len() {
            return None;
        }
        let (round0, in_round) = (number / per_round, number % per_round);
        let (encounter, in_block) = (in_round / self.games, in_round % self.games);
        let (a, b) = self.encounters[encounter];
        // Sides swap every game of an encounter, across rounds too (as
        // cutechess-cli does): with one game per round the colours still
        // alternate from round to round.
        let k = round0 * self.games + in_block;
        let (white, black) = if k % 2 == 0 { (a, b) } else { (b, a) };
        Some(Scheduled {
            number,
            round: round0 + 1,
            block: round0 * self.encounters.len() + encounter,
            in_block,
            white,
            black,
        })
    }
}

/// A start: a position and the moves played from it before the engines
/// take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The position.
    pub start: Position,
    /// Moves from it.
    pub moves: Vec<Move>,
}

/// The book's file format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BookFormat {
    /// One EPD (or FEN) record per line.
    Epd,
    /// PGN games; the start is each game's start plus its first `plies` moves.
    Pgn,
}

/// In what order the book is used.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BookOrder {
    /// File order.
    Sequential,
    /// Shuffled by the match's seed.
    Random,
}

/// The `--openings` words: `file=F format=epd|pgn order=random|sequential
/// plies=N start=N`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookConfig {
    /// The file.
    pub file: PathBuf,
    /// Its format (from the extension when not given).
    pub format: BookFormat,
    /// The order.
    pub order: BookOrder,
    /// PGN: moves of each game to play (all when not given).
    pub plies: Option<usize>,
    /// The first opening to use (1-based).
    pub start: usize,
}

impl FromStr for BookConfig {
    type Err = String;
    fn from_str(s: &str) -> Result<BookConfig, String> {
        let mut file = None;
        let mut format = None;
        let mut order = BookOrder::Sequential;
        let mut plies = None;
        let mut start = 1;
        for w in s.split_whitespace() {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| format!("bad openings word {w:?}: expected key=value"))?;
            match k {
                "file" => file = Some(PathBuf::from(v)),
                "format" => {
                    format = Some(match v {
                        "epd" | "fen" => BookFormat::Epd,
                        "pgn" => BookFormat::Pgn,
                        _ => {
                            return Err(format!(
                                "bad openings word {w:?}: expected format=epd or pgn"
                            ))
                        }
                    })
                }
                "order" => {
                    order = match v {
                        "random" => BookOrder::Random,
                        "sequential" => BookOrder::Sequential,
                        _ => {
                            return Err(format!(
                                "bad openings word {w:?}: expected order=random or sequential"
                            ))
                        }
                    }
                }
                "plies" => {
                    plies = Some(
                        v.parse()
                            .map_err(|_| format!("bad openings word {w:?}: expected a number"))?,
                    )
                }
                "start" => {
                    start = v.parse().ok().filter(|&n: &usize| n >= 1).ok_or_else(|| {
                        format!("bad openings word {w:?}: expected a number from 1")
                    })?
                }
                _ => {
                    return Err(format!(
                    "bad openings word {w:?}: expected file=, format=, order=, plies= or start="
                ))
                }
            }
        }
        let file = file.ok_or("the openings need file=PATH")?;
        let format = format.unwrap_or_else(|| {
            match file
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("pgn") => BookFormat::Pgn,
                _ => BookFormat::Epd,
            }
        });
        Ok(BookConfig {
            file,
            format,
            order,
            plies,
            start,
        })
    }
}

/// A book that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file cannot be read.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A record or game in it is bad.
    #[error("{}:{line}:{column}: {reason}", .path.display())]
    Bad {
        /// The file.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// The column (1-based, in bytes).
        column: usize,
        /// What is wrong.
        reason: String,
    },
    /// It holds no opening.
    #[error("{}: no opening in the file", .path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
}

/// Reads every opening of the book, in file order.
///
/// # Errors
/// [`BookError`] naming the file and line of the first bad entry.
pub fn read_book(cfg: &BookConfig) -> Result<Vec<Opening>, BookError> {
    let path = &cfg.file;
    let bytes = std::fs::read(path).map_err(|error| BookError::Io {
        path: path.clone(),
        error,
    })?;
    if let Some(encoding) = rookery_epd::latin1::wide_encoding(&bytes) {
        return Err(BookError::Io {
            path: path.clone(),
            error: rookery_epd::latin1::wide_error(encoding),
        });
    }
    let out = match cfg.format {
        BookFormat::Epd => read_epd(path, &bytes)?,
        BookFormat::Pgn => read_pgn(path, &bytes, cfg.plies)?,
    };
    if out.is_empty() {
        return Err(BookError::Empty { path: path.clone() });
    }
    Ok(out)
}

fn read_epd(path: &Path, bytes: &[u8]) -> Result<Vec<Opening>, BookError> {
    let mut out = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) || line.starts_with(b"#") {
            continue;
        }
        let (rec, _) = Record::parse(line, Mode::Lenient).map_err(|e| {
            let first = e.diagnostics.iter().find(|d| d.is_error());
            BookError::Bad {
                path: path.to_path_buf(),
                line: i + 1,
                column: first.map_or(1, |d| d.column as usize),
                reason: first.map_or_else(|| e.to_string(), |d| d.problem.to_string()),
            }
        })?;
        let start = rec.position_with_clocks();
        if !start.has_legal_move() {
            return Err(BookError::Bad {
                path: path.to_path_buf(),
                line: i + 1,
                column: 1,
                reason: "the game is already over in this position".into(),
            });
        }
        out.push(Opening {
            start,
            moves: Vec::new(),
        });
    }
    Ok(out)
}

fn read_pgn(path: &Path, bytes: &[u8], plies: Option<usize>) -> Result<Vec<Opening>, BookError> {
    let mut out = Vec::new();
    for read in Games::new(bytes) {
        let read = read.map_err(|error| BookError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let line = read.at.line as usize;
        if let Some(e) = read.error {
            return Err(BookError::Bad {
                path: path.to_path_buf(),
                line: e.at.line as usize,
                column: e.at.col as usize,
                reason: e.kind.to_string(),
            });
        }
        let game = read.game;
        let mut pos = game.start.clone();
        let mut moves = Vec::new();
        for m in game.mainline_moves().take(plies.unwrap_or(usize::MAX)) {
            pos.play_unchecked(m);
            moves.push(m);
        }
        if !pos.has_legal_move() {
            return Err(BookError::Bad {
                path: path.to_path_buf(),
                line,
                column: 1,
                reason: "the game is over at the end of the opening".into(),
            });
        }
        out.push(Opening {
            start: game.start,
            moves,
        });
    }
    Ok(out)
}

/// SplitMix64: a small generator whose sequence is fixed by this code, so a
/// seed in a journal gives the same openings in every build (a general
/// random crate does not promise that across versions).
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator from a seed.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        // Multiply-high keeps the bias below 2^-64 * n: negligible here.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// The opening of each block: indices into a book of `len` openings, from
/// the 1-based `start`, shuffled by `seed` when `random`.
pub fn opening_order(
    len: usize,
    start: usize,
    random: bool,
    seed: u64,
    blocks: usize,
) -> Vec<usize> {
    if len == 0 {
        return Vec::new();
    }
    let mut order: Vec<usize> = (0..len).collect();
    if random {
        let mut rng = SplitMix::new(seed);
        for i in (1..len).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
    }
    let first = (start.max(1) - 1) % len;
    (0..blocks).map(|b| order[(first + b) % len]).collect()
}

/// Chess960 starting positions for `blocks` blocks, drawn by `seed`.
pub fn chess960_openings(seed: u64, blocks: usize) -> Vec<Opening> {
    let mut rng = SplitMix::new(seed ^ 0x0960_0960_0960_0960);
    (0..blocks)
        .map(|_| Opening {
            // `below(960)` is in range, so the position exists.
            start: Position::chess960(rng.below(960) as u32).unwrap_or_else(Position::startpos),
            moves: Vec::new(),
        })
        .collect()
}

/// SAN of a line of moves from `pos`, for messages (`1. e4 e5 2. Nf3`).
pub fn line_text(pos: &Position, moves: &[Move]) -> String {
    let mut p = pos.clone();
    let mut out = String::new();
    for &m in moves {
        if !out.is_empty() {
            out.push(' ');
        }
        San::from_move(&p, m).append_to(&mut out);
        p.play_unchecked(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauntlet_and_round_robin() {
        let g = schedule(4, Pairing::Gauntlet, 2, 2);
        assert_eq!(g.len(), 2 * 3 * 2);
        assert!(g.iter().all(|s| s.white == 0 || s.black == 0));
        let rr = schedule(4, Pairing::RoundRobin, 1, 1);
        assert_eq!(rr.len(), 6);
        assert!(rr.iter().all(|s| s.white != s.black));
        assert_eq!(rr.iter().map(|s| s.block).max(), Some(5));
        assert_eq!(g.iter().map(|s| s.round).max(), Some(2));
    }

    /// Every game of the plan, as rounds, encounters and games nest: the
    /// order the schedule is defined by.
    fn nested(engines: usize, pairing: Pairing, rounds: usize, games: usize) -> Vec<Scheduled> {
        let encounters: Vec<(usize, usize)> = match pairing {
            Pairing::Gauntlet => (1..engines).map(|j| (0, j)).collect(),
            Pairing::RoundRobin => (0..engines)
                .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
                .collect(),
        };
        let mut out = Vec::new();
        for round in 1..=rounds {
            for (e, &(a, b)) in encounters.iter().enumerate() {
                for g in 0..games {
                    let (white, black) = if ((round - 1) * games + g) % 2 == 0 {
                        (a, b)
                    } else {
                        (b, a)
                    };
                    out.push(Scheduled {
                        number: out.len(),
                        round,
                        block: (round - 1) * encounters.len() + e,
                        in_block: g,
                        white,
                        black,
                    });
                }
            }
        }
        out
    }

    #[test]
    fn any_game_of_the_plan_is_the_one_the_rounds_give() {
        for pairing in [Pairing::RoundRobin, Pairing::Gauntlet] {
            for engines in 0..6 {
                for rounds in 0..4 {
                    for games in 0..4 {
                        let want = nested(engines, pairing, rounds, games);
                        let plan = Schedule::new(engines, pairing, rounds, games);
                        assert_eq!(plan.len(), want.len());
                        assert_eq!(schedule(engines, pairing, rounds, games), want);
                        assert_eq!(plan.get(want.len()), None);
                    }
                }
            }
        }
        // Far too many games to list: still a length and any game.
        let huge = Schedule::new(2, Pairing::RoundRobin, usize::MAX, 2);
        assert_eq!(huge.len(), usize::MAX);
        assert_eq!(huge.get(7).map(|g| (g.round, g.white)), Some((4, 1)));
    }

    #[test]
    fn sides_alternate_across_rounds_with_one_game_an_encounter() {
        let one = schedule(2, Pairing::RoundRobin, 4, 1);
        let whites: Vec<usize> = one.iter().map(|s| s.white).collect();
        assert_eq!(whites, [0, 1, 0, 1]);
        // Pairs keep their order: each block is white/black then reversed.
        let two = schedule(2, Pairing::RoundRobin, 2, 2);
        let whites: Vec<usize> = two.iter().map(|s| s.white).collect();
        assert_eq!(whites, [0, 1, 0, 1]);
        assert!(two.iter().all(|s| s.white != s.black));
    }

    #[test]
    fn opening_order_is_a_function_of_the_seed() {
        let a = opening_order(100, 1, true, 42, 250);
        let b = opening_order(100, 1, true, 42, 250);
        let c = opening_order(100, 1, true, 43, 250);
        assert_eq!(a, b);
        assert_ne!(a, c);
        // A shuffle: the first 100 blocks use every opening once.
        let mut first: Vec<usize> = a[..100].to_vec();
        first.sort_unstable();
        assert_eq!(first, (0..100).collect::<Vec<_>>());
        assert_eq!(opening_order(5, 3, false, 0, 4), vec![2, 3, 4, 0]);
    }

    #[test]
    fn book_words() {
        let b: BookConfig = "file=o.pgn order=random plies=8 start=3".parse().unwrap();
        assert_eq!(b.format, BookFormat::Pgn);
        assert_eq!(b.order, BookOrder::Random);
        assert_eq!((b.plies, b.start), (Some(8), 3));
        assert!("order=random".parse::<BookConfig>().is_err());
        assert!("file=x start=0".parse::<BookConfig>().is_err());
        assert!("file=x format=cbh".parse::<BookConfig>().is_err());
    }

    #[test]
    fn a_bad_book_entry_is_named_by_file_line_and_column() {
        let dir = std::env::temp_dir().join(format!("rookery-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let epd = dir.join("b.epd");
        std::fs::write(
            &epd,
            "# a comment\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n8/8/8/8 wx\n",
        )
        .unwrap();
        let cfg: BookConfig = format!("file={}", epd.display()).parse().unwrap();
        let err = read_book(&cfg).unwrap_err();
        assert!(
            matches!(err, BookError::Bad { line: 3, column, .. } if column > 1),
            "{err:?}"
        );
        assert!(err
            .to_string()
            .starts_with(&format!("{}:3:", epd.display())));
        let pgn = dir.join("b.pgn");
        std::fs::write(&pgn, "[Event \"x\"]\n\n1. e4 e5 2. Ke5 *\n").unwrap();
        let cfg: BookConfig = format!("file={}", pgn.display()).parse().unwrap();
        let err = read_book(&cfg).unwrap_err();
        assert!(
            matches!(
                err,
                BookError::Bad {
                    line: 3,
                    column: 13,
                    ..
                }
            ),
            "{err:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn chess960_openings_differ() {
        let o = chess960_openings(7, 20);
        assert!(o.iter().any(|x| x.start != o[0].start));
        assert_eq!(o, chess960_openings(7, 20));
    }
}
