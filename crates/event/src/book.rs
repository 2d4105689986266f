//! Opening books: where each game of a match or event starts.
//!
//! A book is a file of starts ([`BookConfig`], the `--openings` words of
//! `rookery match` and the `openings` of an Argus event file): EPD or FEN
//! records, PGN games of which the first `plies` moves are played, or a
//! Polyglot `.bin` book walked from the standard start ([`BookFormat::Polyglot`]).
//! [`Openings`] gives the opening of any game of a schedule: the book's
//! openings in file order or shuffled by the seed, a weighted random walk
//! through a Polyglot book drawn by the seed, random Chess960 starts, or
//! the standard start. Like the schedule it is a pure function of the
//! plan, so a resumed match gives every game the opening it had.
//!
//! ```
//! use rookery_event::book::Openings;
//! use rookery_event::schedule::{Pairing, Schedule};
//! let s = Schedule::new(2, Pairing::RoundRobin, 3, 2)?;
//! let o = Openings::chess960(42);
//! let games: Vec<_> = s.iter().collect();
//! // The two games of a block share their start.
//! assert_eq!(o.for_game(&games[0]), o.for_game(&games[1]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::schedule::Scheduled;
use rookery_core::{Mode, Move, Position, San};
use rookery_epd::Record;
use rookery_pgn::book::Book as PolyglotBook;
use rookery_pgn::Games;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

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
    /// A Polyglot opening book (`.bin`): from the standard start, up to
    /// `plies` moves (all the book has, [`MAX_WALK_PLIES`] at most, when
    /// not given), each drawn with probability weight / sum of the
    /// position's weights, by the seed (`order=` does not apply).
    Polyglot,
}

/// The longest walk through a Polyglot book when `plies=` is not given.
pub const MAX_WALK_PLIES: usize = 1024;

/// In what order the book is used.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BookOrder {
    /// File order.
    Sequential,
    /// Shuffled by the match's seed.
    Random,
}

/// The `--openings` words: `file=F format=epd|pgn|polyglot
/// order=random|sequential plies=N start=N`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookConfig {
    /// The file.
    pub file: PathBuf,
    /// Its format (from the extension when not given: `.pgn` PGN, `.bin`
    /// Polyglot, anything else EPD).
    pub format: BookFormat,
    /// The order.
    pub order: BookOrder,
    /// PGN: moves of each game to play (all when not given); Polyglot: the
    /// longest walk.
    pub plies: Option<usize>,
    /// The first opening to use (1-based).
    pub start: usize,
    /// When the next opening is taken.
    #[serde(default)]
    pub policy: BookPolicy,
}

/// When a match moves on to the next opening of its book (cutechess-cli's
/// `policy=`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BookPolicy {
    /// Every block of games (one encounter in one round, its games played
    /// with colours reversed) gets the next opening (`policy=default`, and
    /// `policy=encounter`, which is the same here).
    #[default]
    Encounter,
    /// Every game of a round plays the round's opening (`policy=round`).
    Round,
}

impl BookPolicy {
    /// How many openings on from the first `game` takes: its block's
    /// number, or its round's.
    pub fn step(self, game: &Scheduled) -> usize {
        match self {
            BookPolicy::Encounter => game.block,
            BookPolicy::Round => game.round - 1,
        }
    }
}

/// `--openings` words that cannot be read: the word and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseBookError {
    /// A word that is not `key=value`, or a value of the wrong form.
    #[error("bad openings word {word:?}: {expected}")]
    Word {
        /// The word.
        word: String,
        /// What was expected.
        expected: &'static str,
    },
    /// No `file=`.
    #[error("the openings need file=PATH")]
    NoFile,
}

impl FromStr for BookConfig {
    type Err = ParseBookError;
    /// Reads `file=F [format=epd|pgn|polyglot] [order=random|sequential] [plies=N]
    /// [start=N] [policy=default|encounter|round]`.
    fn from_str(s: &str) -> Result<BookConfig, ParseBookError> {
        let bad = |w: &str, expected: &'static str| ParseBookError::Word {
            word: w.to_string(),
            expected,
        };
        let mut file = None;
        let mut format = None;
        let mut order = BookOrder::Sequential;
        let mut plies = None;
        let mut start = 1;
        let mut policy = BookPolicy::default();
        for w in s.split_whitespace() {
            let (k, v) = w
                .split_once('=')
                .ok_or_else(|| bad(w, "expected key=value"))?;
            match k {
                "file" if !v.is_empty() => file = Some(PathBuf::from(v)),
                "file" => return Err(bad(w, "expected file=PATH")),
                "format" => {
                    format = Some(match v {
                        "epd" | "fen" => BookFormat::Epd,
                        "pgn" => BookFormat::Pgn,
                        "polyglot" | "bin" => BookFormat::Polyglot,
                        _ => return Err(bad(w, "expected format=epd, pgn or polyglot")),
                    })
                }
                "order" => {
                    order = match v {
                        "random" => BookOrder::Random,
                        "sequential" => BookOrder::Sequential,
                        _ => return Err(bad(w, "expected order=random or sequential")),
                    }
                }
                "plies" => plies = Some(v.parse().map_err(|_| bad(w, "expected a number"))?),
                "start" => {
                    start = v
                        .parse()
                        .ok()
                        .filter(|&n: &usize| n >= 1)
                        .ok_or_else(|| bad(w, "expected a number from 1"))?
                }
                "policy" => {
                    policy = match v {
                        "default" | "encounter" => BookPolicy::Encounter,
                        "round" => BookPolicy::Round,
                        _ => return Err(bad(w, "expected policy=default, encounter or round")),
                    }
                }
                _ => {
                    return Err(bad(
                        w,
                        "expected file=, format=, order=, plies=, start= or policy=",
                    ))
                }
            }
        }
        let file = file.ok_or(ParseBookError::NoFile)?;
        let format = format.unwrap_or_else(|| {
            match file
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("pgn") => BookFormat::Pgn,
                Some("bin") => BookFormat::Polyglot,
                _ => BookFormat::Epd,
            }
        });
        Ok(BookConfig {
            file,
            format,
            order,
            plies,
            start,
            policy,
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
    /// A compressed book is damaged, or its text cannot be read (UTF-16,
    /// a compression rookery does not read); the message names it.
    #[error(transparent)]
    Input(rookery_io::input::InputError),
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
    /// It holds no opening: nothing readable, or only games that set no
    /// position (no moves from the standard start), as a file of another
    /// format read as PGN does.
    #[error("no openings found in {}", .path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A Polyglot book that cannot be read.
    #[error(transparent)]
    Polyglot(#[from] rookery_pgn::book::BookError),
    /// [`read_book`] of a Polyglot book, which is walked, not listed.
    #[error("{}: a Polyglot book has no list of openings (its openings are walks, drawn by the seed)", .path.display())]
    NotAList {
        /// The file.
        path: PathBuf,
    },
}

/// Reads every opening of the book, in file order.
///
/// # Errors
/// [`BookError`] naming the file and line of the first bad entry;
/// [`BookError::NotAList`] for a Polyglot book.
pub fn read_book(cfg: &BookConfig) -> Result<Vec<Opening>, BookError> {
    let path = &cfg.file;
    if cfg.format == BookFormat::Polyglot {
        return Err(BookError::NotAList { path: path.clone() });
    }
    // Decompressed if compressed (told by its bytes); UTF-16 refused.
    let bytes = rookery_io::input::read_all(path).map_err(|e| match e {
        rookery_io::input::InputError::Open { source, .. }
        | rookery_io::input::InputError::Read { source, .. } => BookError::Io {
            path: path.clone(),
            error: source,
        },
        e => BookError::Input(e),
    })?;
    let out = match cfg.format {
        BookFormat::Epd => read_epd(path, &bytes)?,
        BookFormat::Pgn => read_pgn(path, &bytes, cfg.plies)?,
        // Refused above, before the bytes were read.
        BookFormat::Polyglot => return Err(BookError::NotAList { path: path.clone() }),
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
        // Text that is no game (another format, prose) reads as a game of
        // no moves from the start position: no opening, not one that
        // plays from the start position.
        if game.start == Position::startpos() && game.mainline_moves().next().is_none() {
            continue;
        }
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

/// The opening of every block of a schedule, computed when asked for: a
/// book (its openings in file order or shuffled by the seed, from its
/// `start`), random Chess960 starts drawn by the seed, or the standard start.
#[derive(Clone, Debug)]
pub struct Openings {
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Standard,
    Chess960 {
        seed: u64,
    },
    Book {
        openings: Vec<Opening>,
        /// The book's openings in the order they are used.
        order: Vec<usize>,
        /// Where in `order` the first block starts.
        first: usize,
        policy: BookPolicy,
    },
    Polyglot {
        /// Shared: the schedule's copies of the openings need not copy it.
        book: Arc<PolyglotBook>,
        seed: u64,
        /// The longest walk.
        plies: usize,
        /// Added to the walk number (the book's `start`, from 0).
        first: usize,
        policy: BookPolicy,
    },
}

/// The constant SplitMix64 adds to its state at every step.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
/// Mixed into the seed of Chess960 starts, so that they are not drawn from
/// the same sequence as a book's order.
const CHESS960_SALT: u64 = 0x0960_0960_0960_0960;
/// Mixed into the seed of walks through a Polyglot book.
const POLYGLOT_SALT: u64 = 0xB00C_B00C_B00C_B00C;

/// The generator of walk number `n` drawn by `seed` with `salt`: the state
/// SplitMix64 reaches after `n` steps (its state only counts steps, so any
/// block's draw is found directly).
fn nth_generator(seed: u64, salt: u64, n: usize) -> SplitMix {
    SplitMix::new((seed ^ salt).wrapping_add((n as u64).wrapping_mul(GOLDEN_GAMMA)))
}

impl Openings {
    /// Every game from the standard starting position.
    pub fn standard() -> Openings {
        Openings {
            kind: Kind::Standard,
        }
    }

    /// A random Chess960 start for every block, drawn by `seed`.
    pub fn chess960(seed: u64) -> Openings {
        Openings {
            kind: Kind::Chess960 { seed },
        }
    }

    /// The openings of the book `cfg` names, in its order (shuffled by
    /// `seed` when the order is random), or for a Polyglot book its walks
    /// drawn by `seed`.
    ///
    /// # Errors
    /// [`BookError`] when the book cannot be read, or (Polyglot) has no
    /// move for the standard start.
    pub fn from_book(cfg: &BookConfig, seed: u64) -> Result<Openings, BookError> {
        if cfg.format == BookFormat::Polyglot {
            let book = rookery_pgn::book::open(&cfg.file)?;
            if book.pick(&Position::startpos(), 0).is_none() {
                return Err(BookError::Empty {
                    path: cfg.file.clone(),
                });
            }
            return Ok(Openings {
                kind: Kind::Polyglot {
                    book: Arc::new(book),
                    seed,
                    plies: cfg.plies.unwrap_or(MAX_WALK_PLIES),
                    first: cfg.start.max(1) - 1,
                    policy: cfg.policy,
                },
            });
        }
        let openings = read_book(cfg)?;
        let len = openings.len();
        let mut order: Vec<usize> = (0..len).collect();
        if cfg.order == BookOrder::Random {
            let mut rng = SplitMix::new(seed);
            for i in (1..len).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
        }
        Ok(Openings {
            kind: Kind::Book {
                first: (cfg.start.max(1) - 1) % len.max(1),
                openings,
                order,
                policy: cfg.policy,
            },
        })
    }

    /// The opening of `game`.
    pub fn for_game(&self, game: &Scheduled) -> Opening {
        match &self.kind {
            Kind::Standard => Opening {
                start: Position::startpos(),
                moves: Vec::new(),
            },
            Kind::Chess960 { seed } => {
                let n = nth_generator(*seed, CHESS960_SALT, game.block).below(960);
                Opening {
                    // `below(960)` is in range, so the position exists.
                    start: Position::chess960(n as u32).unwrap_or_else(Position::startpos),
                    moves: Vec::new(),
                }
            }
            Kind::Book {
                openings,
                order,
                first,
                policy,
            } => {
                let step = policy.step(game);
                // A book is never empty (`read_book` refuses that).
                let i = order[(first + step) % order.len()];
                openings[i].clone()
            }
            Kind::Polyglot {
                book,
                seed,
                plies,
                first,
                policy,
            } => {
                let step = policy.step(game);
                let mut rng = nth_generator(*seed, POLYGLOT_SALT, first + step);
                walk(book, *plies, &mut || rng.next_u64())
            }
        }
    }
}

/// A weighted random walk through `book` from the standard start: up to
/// `plies` moves, each drawn by [`PolyglotBook::pick`] with the next
/// number of `draw`; it stops where the book has no move, and before a
/// move that would end the game (an opening leaves the engines a move).
pub fn walk(book: &PolyglotBook, plies: usize, draw: &mut dyn FnMut() -> u64) -> Opening {
    let start = Position::startpos();
    let mut pos = start.clone();
    let mut moves = Vec::new();
    while moves.len() < plies {
        let Some(m) = book.pick(&pos, draw()) else {
            break;
        };
        let mut next = pos.clone();
        next.play_unchecked(m.mv);
        if !next.has_legal_move() {
            break;
        }
        pos = next;
        moves.push(m.mv);
    }
    Opening { start, moves }
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
    use crate::schedule::{Pairing, Schedule};

    fn games(rounds: usize) -> Vec<Scheduled> {
        Schedule::new(2, Pairing::RoundRobin, rounds, 2)
            .unwrap()
            .iter()
            .collect()
    }

    fn book(dir: &Path, n: usize) -> PathBuf {
        let p = dir.join("b.epd");
        let mut text = String::new();
        for i in 0..n {
            // Distinct starts: a white king walking along the first rank.
            text.push_str(&format!(
                "4k3/8/8/8/8/8/8/{}K{} w - -\n",
                if i == 0 { String::new() } else { i.to_string() },
                if i == 7 {
                    String::new()
                } else {
                    (7 - i).to_string()
                }
            ));
        }
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn a_books_order_is_a_function_of_the_seed_and_blocks_share_an_opening() {
        let dir = std::env::temp_dir().join(format!("rookery-book-order-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = book(&dir, 8);
        let cfg = |words: &str| -> BookConfig {
            format!("file={} {words}", file.display()).parse().unwrap()
        };
        let g = games(20);
        let starts = |o: &Openings| -> Vec<String> {
            g.iter()
                .map(|x| rookery_core::Fen::from_position(&o.for_game(x).start).to_string())
                .collect()
        };
        let a = starts(&Openings::from_book(&cfg("order=random"), 42).unwrap());
        let b = starts(&Openings::from_book(&cfg("order=random"), 42).unwrap());
        let c = starts(&Openings::from_book(&cfg("order=random"), 43).unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
        // Both games of a block, then a shuffle: the first 8 blocks use
        // every opening once.
        for pair in a.chunks(2) {
            assert_eq!(pair[0], pair[1]);
        }
        let mut first: Vec<&String> = a.iter().step_by(2).take(8).collect();
        first.sort();
        first.dedup();
        assert_eq!(first.len(), 8);
        // Sequential from the third, wrapping round.
        let seq = starts(&Openings::from_book(&cfg("start=3"), 0).unwrap());
        assert_eq!(seq[0], seq[1]);
        assert_ne!(seq[0], seq[2]);
        assert_eq!(seq[0], seq[16], "8 openings: block 8 is block 0 again");
        // policy=round: every game of a round shares the round's opening.
        let r = Schedule::new(3, Pairing::RoundRobin, 2, 2).unwrap();
        let o = Openings::from_book(&cfg("policy=round"), 0).unwrap();
        let round1: Vec<Opening> = r
            .iter()
            .filter(|x| x.round == 1)
            .map(|x| o.for_game(&x))
            .collect();
        assert!(round1.iter().all(|x| *x == round1[0]));
        let round2 = o.for_game(&r.iter().find(|x| x.round == 2).unwrap());
        assert_ne!(round2, round1[0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn book_words() {
        let b: BookConfig = "file=o.pgn order=random plies=8 start=3 policy=round"
            .parse()
            .unwrap();
        assert_eq!(b.format, BookFormat::Pgn);
        assert_eq!(b.order, BookOrder::Random);
        assert_eq!(
            (b.plies, b.start, b.policy),
            (Some(8), 3, BookPolicy::Round)
        );
        assert_eq!(
            "order=random".parse::<BookConfig>(),
            Err(ParseBookError::NoFile)
        );
        for bad in [
            "file=x start=0",
            "file=x format=cbh",
            "file=x policy=never",
            "file=x fi",
            "file=",
        ] {
            let e = bad.parse::<BookConfig>().unwrap_err();
            assert!(matches!(e, ParseBookError::Word { .. }), "{bad}: {e}");
        }
    }

    /// A file with no opening in it, read as PGN (prose, an EPD file given
    /// `format=pgn`), is an error naming it, as fastchess says it; before,
    /// every game was played from the start position. A PGN book's entries
    /// that set no position are skipped, the others kept.
    #[test]
    fn a_book_with_no_readable_opening_is_an_error() {
        let dir = std::env::temp_dir().join(format!("rookery-book-none-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let junk = dir.join("junk.pgn");
        std::fs::write(&junk, "hello world\nthis is not a game\n").unwrap();
        let epd = book(&dir, 3);
        for file in [&junk, &epd] {
            let cfg: BookConfig = format!("file={} format=pgn", file.display())
                .parse()
                .unwrap();
            let err = read_book(&cfg).unwrap_err();
            assert!(matches!(err, BookError::Empty { .. }), "{err:?}");
            assert_eq!(
                err.to_string(),
                format!("no openings found in {}", file.display())
            );
            assert!(matches!(
                Openings::from_book(&cfg, 1),
                Err(BookError::Empty { .. })
            ));
        }
        let mixed = dir.join("mixed.pgn");
        std::fs::write(
            &mixed,
            "[Event \"none\"]\n\n*\n\n[Event \"e4\"]\n\n1. e4 *\n",
        )
        .unwrap();
        let cfg: BookConfig = format!("file={} format=pgn", mixed.display())
            .parse()
            .unwrap();
        let openings = read_book(&cfg).unwrap();
        assert_eq!(openings.len(), 1);
        assert_eq!(openings[0].moves.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
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

    /// A Polyglot book: from the start e4 (weight 3), d4 (1), a3 (0);
    /// after e4, e5 (1) and c5 (1); after d4, d5 (1); nothing further.
    fn polyglot_book(dir: &Path) -> PathBuf {
        use rookery_core::polyglot::PolyglotMove;
        use rookery_core::UciMove;
        use rookery_pgn::book::Entry;
        let mut entries = Vec::new();
        let mut add = |line: &[&str], mv: &str, weight: u16| {
            let mut pos = Position::startpos();
            for m in line {
                let m = UciMove::from_ascii(m.as_bytes())
                    .unwrap()
                    .to_move(&pos)
                    .unwrap();
                pos.play_unchecked(m);
            }
            let m = UciMove::from_ascii(mv.as_bytes())
                .unwrap()
                .to_move(&pos)
                .unwrap();
            entries.push(Entry {
                key: pos.polyglot_key(),
                mv: PolyglotMove::from_move(m),
                weight,
                learn: 0,
            });
        };
        add(&[], "e2e4", 3);
        add(&[], "d2d4", 1);
        add(&[], "a2a3", 0);
        add(&["e2e4"], "e7e5", 1);
        add(&["e2e4"], "c7c5", 1);
        add(&["d2d4"], "d7d5", 1);
        let p = dir.join("b.bin");
        std::fs::write(&p, PolyglotBook::from_entries(entries).to_bytes()).unwrap();
        p
    }

    #[test]
    fn polyglot_walks_follow_the_book_by_weight_and_the_seed() {
        let dir = std::env::temp_dir().join(format!("rookery-book-walk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = polyglot_book(&dir);
        let cfg = |words: &str| -> BookConfig {
            format!("file={} {words}", file.display()).parse().unwrap()
        };
        assert_eq!(cfg("").format, BookFormat::Polyglot, "from the extension");
        let g = games(200);
        let lines = |o: &Openings| -> Vec<String> {
            g.iter()
                .map(|x| {
                    let o = o.for_game(x);
                    assert_eq!(o.start, Position::startpos());
                    line_text(&o.start, &o.moves)
                })
                .collect()
        };
        let a = lines(&Openings::from_book(&cfg(""), 42).unwrap());
        assert_eq!(a, lines(&Openings::from_book(&cfg(""), 42).unwrap()));
        assert_ne!(a, lines(&Openings::from_book(&cfg(""), 43).unwrap()));
        for pair in a.chunks(2) {
            assert_eq!(pair[0], pair[1], "a block shares its opening");
        }
        // Only the book's lines, to their end; never the weight-0 a3.
        let blocks: Vec<&String> = a.iter().step_by(2).collect();
        for l in &blocks {
            assert!(["e4 e5", "e4 c5", "d4 d5"].contains(&l.as_str()), "{l}");
        }
        // e4 three times as often as d4: 3/4 of 200 blocks, within 30.
        let e4 = blocks.iter().filter(|l| l.starts_with("e4")).count();
        assert!((120..=180).contains(&e4), "e4 in {e4} of 200 walks");
        let c5 = blocks.iter().filter(|l| *l == &"e4 c5").count();
        assert!(c5 > 0 && c5 < e4, "{c5} of {e4}");
        // plies=1 stops after the first move.
        let one = lines(&Openings::from_book(&cfg("plies=1"), 42).unwrap());
        assert!(one.iter().all(|l| l == "e4" || l == "d4"), "{one:?}");
        // A book without a move for the start is refused; so is a list of it.
        let empty = dir.join("empty.bin");
        std::fs::write(&empty, []).unwrap();
        let e: BookConfig = format!("file={}", empty.display()).parse().unwrap();
        assert!(matches!(
            Openings::from_book(&e, 0),
            Err(BookError::Empty { .. })
        ));
        assert!(matches!(
            read_book(&cfg("")),
            Err(BookError::NotAList { .. })
        ));
        let bad = dir.join("bad.bin");
        std::fs::write(&bad, [0u8; 17]).unwrap();
        let e: BookConfig = format!("file={} format=polyglot", bad.display())
            .parse()
            .unwrap();
        assert!(matches!(
            Openings::from_book(&e, 0),
            Err(BookError::Polyglot(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn chess960_starts_are_the_sequence_of_the_seed() {
        let g = games(20);
        let o = Openings::chess960(7);
        let starts: Vec<Opening> = g.iter().map(|x| o.for_game(x)).collect();
        assert!(starts.iter().any(|x| x.start != starts[0].start));
        assert_eq!(starts[0], starts[1], "a block shares its start");
        // The same as drawing them one after the other from the seed.
        let mut rng = SplitMix::new(7 ^ CHESS960_SALT);
        for x in g.iter().step_by(2) {
            let n = rng.below(960) as u32;
            assert_eq!(o.for_game(x).start, Position::chess960(n).unwrap());
        }
    }
}
