//! Building a Polyglot book from games, as `polyglot make-book` does.
//!
//! Every game counts, for each of its first `max_ply` positions, the move
//! played and the result from the point of view of the side that played it
//! (a win 2, a draw 1, a loss 0; an unknown result `*` counts 1, as a draw,
//! which is what Polyglot does). The result is the game's `Result` tag when
//! it holds a result (Polyglot reads that tag), else its termination
//! marker. A game that starts from a `FEN` tag is counted from there.
//!
//! A move enters the book when it was played in at least `min_games` games
//! and, with [`Weights::Wins`], did not lose every time. Its weight is:
//! - [`Weights::Wins`] (Polyglot's): 2 x wins + draws;
//! - [`Weights::Played`]: the number of games that played it.
//!
//! Counts are exact (64 bits); where a position's largest weight passes
//! 65,535, all its weights are scaled down together
//! ([`super::scale_position`]). Polyglot instead halves a position's counts
//! whenever one of its moves reaches 16,384 games, so books built from that
//! many games of one position differ in their weights (never in their keys
//! and moves, except for moves the halving pushed under `min_games`).
//!
//! A game with an error (an illegal move, a bad FEN) is reported; the moves
//! before the error still count when they reach `max_ply` (the book's part
//! of the game is whole), otherwise the game is left out. (Polyglot stops
//! at the first illegal move of its input.)

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io;

use rookery_core::polyglot::PolyglotMove;
use rookery_core::{Color, Move, Position};

use super::{scale_position, Book, Entry};
use crate::game::{Detail, GameError, ReadGame};
use crate::source::{Reading, Source};
use crate::stream::Diag;
use crate::types::GameResult;

/// What a move's weight measures.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Weights {
    /// 2 x wins + draws for the side that played the move (Polyglot's
    /// weights); moves that lost every game are left out.
    #[default]
    Wins,
    /// The number of games that played it (popularity).
    Played,
}

/// How a book is built ([`Tally`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Moves counted per game: the first `max_ply` (Polyglot's `-max-ply`).
    pub max_ply: usize,
    /// Games that must have played a move for it to enter the book
    /// (Polyglot's `-min-game`).
    pub min_games: u64,
    /// Only the moves of this side (`-only-white` / `-only-black`).
    pub side: Option<Color>,
    /// What the weights measure.
    pub weights: Weights,
}

/// Polyglot's `make-book` defaults: 1024 plies, 3 games, both sides, wins.
impl Default for BuildOptions {
    fn default() -> BuildOptions {
        BuildOptions {
            max_ply: 1024,
            min_games: 3,
            side: None,
            weights: Weights::Wins,
        }
    }
}

/// Counts of one move in one position.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Count {
    /// Games that played it.
    games: u64,
    /// 2 per win, 1 per draw (or unknown result) of the side that played it.
    points: u64,
    /// When it was first played: [`ordinal`] of the game and ply (a
    /// position's moves of equal weight are written in this order, as
    /// Polyglot's stable sort leaves them).
    first: u64,
}

/// Bits of an ordinal for the ply.
const PLY_BITS: u32 = 20;

/// The order of a move played at `ply` of the `game`-th game of the input
/// (plies past 2^20, never seen in a real game, share the last number).
fn ordinal(game: u64, ply: usize) -> u64 {
    let ply = (ply as u64).min((1 << PLY_BITS) - 1);
    game << PLY_BITS | ply
}

/// A hasher for (key, move) pairs: the key is already a uniformly random
/// 64-bit number, so one multiply mixes the move in.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }
    fn write_u16(&mut self, n: u16) {
        self.0 ^= u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Counts = HashMap<(u64, u16), Count, BuildHasherDefault<KeyHasher>>;

/// Games counted so far, and what became of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Games read.
    pub games: u64,
    /// Games whose moves were counted.
    pub used: u64,
    /// Games with an error (each reported).
    pub errors: u64,
    /// Games with an error left out (fewer than `max_ply` moves before it).
    pub left_out: u64,
    /// Positions counted (one per move counted).
    pub plies: u64,
}

/// The counts a book is built from: add games ([`Tally::add_game`],
/// [`tally_games`]), merge tallies of separate inputs or threads
/// ([`Tally::merge`]), then [`Tally::into_book`].
#[derive(Clone, Debug)]
pub struct Tally {
    opts: BuildOptions,
    counts: Counts,
    /// Added to the index of every game read ([`Tally::add_read_game`]):
    /// the games of the inputs before this one.
    game_base: u64,
    /// What became of the games.
    pub report: Report,
}

impl Tally {
    /// An empty tally.
    pub fn new(opts: BuildOptions) -> Tally {
        Tally {
            opts,
            counts: Counts::default(),
            game_base: 0,
            report: Report::default(),
        }
    }

    /// An empty tally for an input that follows `games` games already
    /// counted elsewhere (so that the order of first plays runs on).
    pub fn following(opts: BuildOptions, games: u64) -> Tally {
        Tally {
            game_base: games,
            ..Tally::new(opts)
        }
    }

    /// The options.
    pub fn options(&self) -> &BuildOptions {
        &self.opts
    }

    /// Counts a game from `start` with `moves` (legal, in order; only the
    /// first `max_ply` are counted) and `result`.
    pub fn add_game(
        &mut self,
        start: &Position,
        moves: impl IntoIterator<Item = Move>,
        result: GameResult,
    ) {
        self.report.games += 1;
        self.report.used += 1;
        let game = self.game_base + self.report.games;
        self.count_moves(game, start, moves, result);
    }

    fn count_moves(
        &mut self,
        game: u64,
        start: &Position,
        moves: impl IntoIterator<Item = Move>,
        result: GameResult,
    ) {
        let mut pos = start.clone();
        for (ply, m) in moves.into_iter().take(self.opts.max_ply).enumerate() {
            let us = pos.turn();
            let points = match result.winner() {
                Some(w) if w == us => 2,
                Some(_) => 0,
                None => 1,
            };
            if self.opts.side.is_none_or(|s| s == us) {
                let c = self
                    .counts
                    .entry((pos.polyglot_key(), PolyglotMove::from_move(m).0))
                    .or_insert(Count {
                        games: 0,
                        points: 0,
                        first: ordinal(game, ply),
                    });
                c.games += 1;
                c.points += points;
                self.report.plies += 1;
            }
            pos.play_unchecked(m);
        }
    }

    /// Counts a game as read from PGN (see the module documentation for
    /// the result used and for games with an error). Returns the game's
    /// error, if any, for the caller to report.
    pub fn add_read_game<'a>(&mut self, read: &'a ReadGame) -> Option<&'a GameError> {
        let game = &read.game;
        let result = game
            .tags
            .get("Result")
            .and_then(|t| GameResult::from_ascii(t.trim().as_bytes()))
            .unwrap_or(game.result);
        self.report.games += 1;
        if let Some(e) = &read.error {
            self.report.errors += 1;
            if game.mainline.nodes.len() < self.opts.max_ply {
                self.report.left_out += 1;
                return Some(e);
            }
        }
        self.report.used += 1;
        let index = self.game_base + read.index as u64;
        self.count_moves(index, &game.start, game.mainline_moves(), result);
        read.error.as_ref()
    }

    /// Adds `other`'s counts to these (both built with the same options).
    pub fn merge(&mut self, other: Tally) {
        if self.counts.is_empty() {
            self.counts = other.counts;
        } else {
            self.counts.reserve(other.counts.len());
            for (k, c) in other.counts {
                match self.counts.entry(k) {
                    std::collections::hash_map::Entry::Occupied(mut o) => {
                        let s = o.get_mut();
                        s.games += c.games;
                        s.points += c.points;
                        s.first = s.first.min(c.first);
                    }
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(c);
                    }
                }
            }
        }
        let (a, b) = (&mut self.report, other.report);
        a.games += b.games;
        a.used += b.used;
        a.errors += b.errors;
        a.left_out += b.left_out;
        a.plies += b.plies;
    }

    /// Distinct (position, move) pairs counted.
    pub fn pairs(&self) -> usize {
        self.counts.len()
    }

    /// The book: the moves that pass the filters, weighted, sorted by key,
    /// a position's heaviest move first and moves of equal weight in the
    /// order they were first played (as Polyglot writes them).
    pub fn into_book(self) -> Book {
        let opts = self.opts;
        let mut kept: Vec<(u64, u16, u64, u64)> = self
            .counts
            .into_iter()
            .filter(|(_, c)| c.games >= opts.min_games)
            .filter_map(|((key, mv), c)| {
                let weight = match opts.weights {
                    Weights::Wins => c.points,
                    Weights::Played => c.games,
                };
                (weight > 0).then_some((key, mv, weight, c.first))
            })
            .collect();
        kept.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)).then(a.3.cmp(&b.3)));
        let mut entries = Vec::with_capacity(kept.len());
        let mut i = 0;
        while i < kept.len() {
            let key = kept[i].0;
            let n = kept[i..].partition_point(|k| k.0 == key);
            let group = &kept[i..i + n];
            let weights: Vec<u64> = group.iter().map(|g| g.2).collect();
            for (g, weight) in group.iter().zip(scale_position(&weights)) {
                entries.push(Entry {
                    key,
                    mv: PolyglotMove(g.1),
                    weight,
                    learn: 0,
                });
            }
            i += n;
        }
        Book::from_sorted_entries(entries)
    }
}

/// Bytes of input per piece when reading on several threads.
pub const PIECE_BYTES: usize = 1 << 20;

/// Counts the games of `source` into a tally with `opts`, on `jobs`
/// threads (the counts are the same on any number; lines that are not
/// UTF-8 read as Latin-1); `games_before` games of other inputs come before
/// this one ([`Tally::following`]). Every game with an error is handed to
/// `on_error` as the [`Diag`] every verb reports, in input order;
/// `progress` hears the bytes read so far.
///
/// A source whose text ended early (the damage of compressed data:
/// [`Source::damage`]) had a last game without a game-termination marker
/// cut short: it is left out as an error (reported as
/// [`crate::stream::cut_short_message`]), its moves not counted, as every
/// verb leaves out such a game.
///
/// # Errors
/// An error reading `source`.
pub fn tally_games(
    source: Source<'_>,
    opts: BuildOptions,
    games_before: u64,
    jobs: usize,
    on_error: &mut dyn FnMut(&Diag),
    progress: &mut dyn FnMut(u64),
) -> io::Result<Tally> {
    let mut total = Tally::following(opts, games_before);
    // A piece's counts, its last game's apart when it has no
    // game-termination marker (held until a later game shows it was not
    // cut short), and its errors.
    let work = |games: &mut crate::split::PieceGames| {
        let mut t = Tally::following(opts, games_before);
        let mut open_last: Option<Open> = None;
        let mut errors = Vec::new();
        while let Some(g) = games.next() {
            if let Some(open) = open_last.take() {
                t.merge(open.tally);
            }
            let open = crate::stream::is_open(&g);
            let mut alone = Tally::following(opts, games_before);
            let into = if open { &mut alone } else { &mut t };
            if let Some(e) = into.add_read_game(&g) {
                errors.push(Diag::of_error(e, g.index));
            }
            if open {
                open_last = Some(Open {
                    tally: alone,
                    index: g.index,
                    at: g.at,
                });
            }
            games.recycle(g);
        }
        (t, open_last, errors)
    };
    let mut held: Option<Open> = None;
    let damage = source.damage();
    let reading = Reading {
        jobs,
        chunk_bytes: PIECE_BYTES,
        detail: Detail::Mainline,
        decode: true,
    };
    let mut sink =
        |(t, open_last, errors): (Tally, Option<Open>, Vec<Diag>), bytes| -> io::Result<bool> {
            for e in &errors {
                on_error(e);
            }
            // A game read after the held one: that one was whole.
            if t.report.games > 0 || open_last.is_some() {
                if let Some(h) = held.take() {
                    total.merge(h.tally);
                }
            }
            total.merge(t);
            if open_last.is_some() {
                held = open_last;
            }
            progress(bytes);
            Ok(true)
        };
    source.for_each_piece(reading, &work, &mut sink)?;
    if let Some(h) = held {
        if damage.is_damaged() {
            // Left out, an error: none of its moves counted.
            total.report.games += 1;
            total.report.errors += 1;
            total.report.left_out += 1;
            on_error(&Diag::new(
                h.at,
                true,
                h.index,
                crate::stream::cut_short_message(h.index),
            ));
        } else {
            total.merge(h.tally);
        }
    }
    Ok(total)
}

/// The counts of a game without a game-termination marker, the last of
/// its piece, held by [`tally_games`] in case damage cut it short.
struct Open {
    tally: Tally,
    index: usize,
    at: crate::types::Location,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tallies of `pgn`'s pieces of about `chunk` bytes, read on two
    /// threads, merged.
    fn in_pieces(pgn: &str, chunk: usize, opts: BuildOptions) -> Tally {
        let reading = Reading {
            jobs: 2,
            chunk_bytes: chunk,
            detail: Detail::Mainline,
            decode: true,
        };
        let mut all = Tally::new(opts);
        Source::reader(pgn.as_bytes())
            .for_each_piece(
                reading,
                &|games: &mut crate::split::PieceGames| {
                    let mut t = Tally::new(opts);
                    for g in games.by_ref() {
                        t.add_read_game(&g);
                    }
                    t
                },
                &mut |t: Tally, _| -> io::Result<bool> {
                    all.merge(t);
                    Ok(true)
                },
            )
            .unwrap();
        all
    }

    fn tally(pgn: &str, opts: BuildOptions) -> (Tally, Vec<Diag>) {
        tally_cut(pgn, opts, false)
    }

    /// [`tally`] of a text that damage cut short if `cut`.
    fn tally_cut(pgn: &str, opts: BuildOptions, cut: bool) -> (Tally, Vec<Diag>) {
        let mut errors = Vec::new();
        let mut source = Source::reader(pgn.as_bytes());
        if cut {
            let e = rookery_io::input::InputError::Truncated {
                name: "cut".into(),
                format: rookery_io::input::Format::Gzip,
                lines: 1,
            };
            source = source.with_damage(rookery_io::input::Damage::found(e));
        }
        let t = tally_games(
            source,
            opts,
            0,
            1,
            &mut |e| errors.push(e.clone()),
            &mut |_| {},
        )
        .unwrap();
        (t, errors)
    }

    fn weights_at(book: &Book, pos: &Position) -> Vec<(String, u16)> {
        let mut v: Vec<(String, u16)> = book
            .moves(pos)
            .iter()
            .map(|m| (m.raw.to_string(), m.weight))
            .collect();
        v.sort();
        v
    }

    const GAMES: &str = "\
[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\
[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\
[Result \"1/2-1/2\"]\n\n1. e4 c5 1/2-1/2\n\n\
[Result \"0-1\"]\n\n1. e4 c5 0-1\n\n\
[Result \"*\"]\n\n1. d4 *\n\n\
[Result \"0-1\"]\n\n1. d4 d5 0-1\n\n\
[Result \"0-1\"]\n\n1. d4 d5 0-1\n\n";

    #[test]
    fn weights_are_two_per_win_and_one_per_draw_or_unknown() {
        let opts = BuildOptions {
            min_games: 1,
            ..BuildOptions::default()
        };
        let (t, errors) = tally(GAMES, opts);
        assert!(errors.is_empty());
        assert_eq!((t.report.games, t.report.used), (7, 7));
        let book = t.into_book();
        let start = Position::startpos();
        // e4: W W D L = 2+2+1+0; d4: * L L = 1.
        assert_eq!(
            weights_at(&book, &start),
            [("d2d4".to_string(), 1), ("e2e4".to_string(), 5)]
        );
        // The heaviest move first, as Polyglot writes a position's moves.
        assert_eq!(book.moves(&start)[0].raw.to_string(), "e2e4");
        let mut after_d4 = start.clone();
        after_d4.play_unchecked(
            rookery_core::UciMove::from_ascii(b"d2d4")
                .unwrap()
                .to_move(&start)
                .unwrap(),
        );
        assert_eq!(weights_at(&book, &after_d4), [("d7d5".to_string(), 4)]);
    }

    #[test]
    fn min_games_side_max_ply_and_played_weights() {
        let start = Position::startpos();
        let book = tally(GAMES, BuildOptions::default()).0.into_book();
        // Three games or more: e4 (4), d4 (3); c5 and Nf3 are too rare.
        assert_eq!(book.len(), 2);
        assert_eq!(weights_at(&book, &start).len(), 2);
        let played = BuildOptions {
            weights: Weights::Played,
            min_games: 1,
            ..BuildOptions::default()
        };
        let book = tally(GAMES, played).0.into_book();
        assert_eq!(
            weights_at(&book, &start),
            [("d2d4".to_string(), 3), ("e2e4".to_string(), 4)]
        );
        let white = BuildOptions {
            side: Some(Color::White),
            min_games: 1,
            ..BuildOptions::default()
        };
        let book = tally(GAMES, white).0.into_book();
        // e4, d4 and Nf3; no Black move.
        assert_eq!(book.len(), 3);
        let one_ply = BuildOptions {
            max_ply: 1,
            min_games: 1,
            ..BuildOptions::default()
        };
        assert_eq!(tally(GAMES, one_ply).0.into_book().len(), 2);
    }

    #[test]
    fn a_game_with_an_error_counts_only_if_its_book_part_is_whole() {
        let pgn = "[Result \"1-0\"]\n\n1. e4 e5 2. Ke5 1-0\n\n";
        let opts = BuildOptions {
            min_games: 1,
            ..BuildOptions::default()
        };
        let (t, errors) = tally(pgn, opts);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            (t.report.errors, t.report.left_out, t.report.used),
            (1, 1, 0)
        );
        assert!(t.into_book().is_empty());
        let two = BuildOptions { max_ply: 2, ..opts };
        let (t, errors) = tally(pgn, two);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            (t.report.errors, t.report.left_out, t.report.used),
            (1, 0, 1)
        );
        // e4 (won); e5 lost its only game.
        let book = t.into_book();
        assert_eq!(book.len(), 1);
        assert_eq!(book.entries()[0].mv.to_string(), "e2e4");
    }

    #[test]
    fn moves_of_equal_weight_keep_the_order_they_were_first_played_in() {
        let opts = BuildOptions {
            min_games: 1,
            ..BuildOptions::default()
        };
        let pgn = "1. e4 1/2-1/2\n\n1. d4 1/2-1/2\n\n1. c4 1-0\n\n";
        let book = tally(pgn, opts).0.into_book();
        let order: Vec<String> = book.entries().iter().map(|e| e.mv.to_string()).collect();
        // c4 weighs most; e4 was played before d4 (whose code is smaller).
        assert_eq!(order, ["c2c4", "e2e4", "d2d4"]);
        // Read on several threads, in pieces, and merged: the same order.
        let mut many = String::new();
        for _ in 0..50 {
            many.push_str("[Event \"x\"]\n\n1. a4 1/2-1/2\n\n");
        }
        many.push_str(pgn);
        let one = tally(&many, opts).0.into_book();
        let two = in_pieces(&many, 64, opts);
        assert_eq!(one, two.into_book());
    }

    #[test]
    fn the_result_tag_decides_then_the_marker() {
        let opts = BuildOptions {
            min_games: 1,
            ..BuildOptions::default()
        };
        // Tag 1-0, marker 0-1: White won (Polyglot reads the tag).
        let book = tally("[Result \"1-0\"]\n\n1. e4 0-1\n\n", opts)
            .0
            .into_book();
        assert_eq!(book.entries()[0].weight, 2);
        // No tag: the marker.
        let book = tally("1. e4 0-1\n\n", opts).0.into_book();
        assert!(book.is_empty(), "a move that lost every game is left out");
    }

    #[test]
    fn any_number_of_threads_counts_the_same() {
        let mut pgn = String::new();
        for i in 0..300 {
            pgn.push_str(&format!(
                "[Event \"{i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 {} 1-0\n\n",
                ["Nc6", "d6", "Nf6"][i % 3]
            ));
        }
        let one = tally_games(
            Source::reader(pgn.as_bytes()),
            BuildOptions::default(),
            0,
            1,
            &mut |_| {},
            &mut |_| {},
        )
        .unwrap();
        // Small pieces, so that the threads share the work.
        let two = in_pieces(&pgn, 512, BuildOptions::default());
        assert_eq!(one.report, two.report);
        assert_eq!(one.into_book(), two.into_book());
    }

    /// A last game without a game-termination marker in a text that damage
    /// cut short is left out as an error; whole, it counts.
    #[test]
    fn a_game_cut_short_by_damage_is_left_out() {
        let opts = BuildOptions {
            min_games: 1,
            ..BuildOptions::default()
        };
        let pgn = "[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n[Event \"open\"]\n\n1. d4 d5 2. c4";
        let (t, errors) = tally_cut(pgn, opts, true);
        assert_eq!(
            (
                t.report.games,
                t.report.used,
                t.report.errors,
                t.report.left_out,
                t.report.plies
            ),
            (2, 1, 1, 1, 2)
        );
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].game, errors[0].line), (2, 5));
        assert!(errors[0].message.contains("cut short"), "{errors:?}");
        // e4 alone (e5 lost its only game); not d4 or d5, of the cut game.
        let book = t.into_book();
        assert_eq!(book.len(), 1);
        assert_eq!(book.entries()[0].mv.to_string(), "e2e4");
        // Not cut: the same game counts (its result unknown).
        let (t, errors) = tally_cut(pgn, opts, false);
        assert!(errors.is_empty());
        assert_eq!((t.report.games, t.report.used, t.report.plies), (2, 2, 5));
        // An open game that is not the last is whole, cut or not.
        let before = "[Event \"open\"]\n\n1. d4 d5 2. c4\n\n[Event \"next\"]\n\n1. e4 *\n";
        let (t, errors) = tally_cut(before, opts, true);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!((t.report.games, t.report.used, t.report.plies), (2, 2, 4));
    }
}
