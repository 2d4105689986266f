//! Reading a stream cut into pieces (any piece size, any cuts) gives exactly
//! what reading it at once gives: same games, indices, locations, errors,
//! warnings.

use proptest::prelude::*;
use rookery_io::ReadAt;
use rookery_pgn::source::{Reading, Source};
use rookery_pgn::split::{Cutter, PieceGames, PieceSink, MIN_TAIL_PIECE};
use rookery_pgn::Detail;
use rookery_pgn::Games;

mod common;

/// Work on the games of a piece, on a reading thread.
type Work<'a, T> = dyn Fn(&mut PieceGames) -> T + Sync + 'a;

/// How these tests read: `jobs` threads, pieces of about `target` bytes,
/// the bytes as they are.
fn reading(jobs: usize, target: usize, detail: Detail) -> Reading {
    Reading {
        jobs,
        chunk_bytes: target,
        detail,
        decode: false,
    }
}

/// `source`, told `length` if given.
fn told(source: Source<'_>, length: Option<u64>) -> Source<'_> {
    match length {
        Some(n) => source.with_len(n),
        None => source,
    }
}

/// The stream `input` read in pieces of about `target` bytes on `jobs`
/// threads ([`Source::reader`]).
fn for_each_piece<T: Send>(
    input: impl std::io::Read + Send,
    jobs: usize,
    target: usize,
    work: &Work<'_, T>,
    sink: &mut PieceSink<'_, T, std::io::Error>,
) -> std::io::Result<()> {
    Source::reader(input).for_each_piece(reading(jobs, target, Detail::Full), work, sink)
}

/// [`for_each_piece`] over `input` read at offsets ([`Source::file`]), told
/// its length if given, keeping `detail`; with `latin1`, lines that are not
/// UTF-8 decoded and the first told.
fn for_each_piece_at<'a, T: Send>(
    input: impl ReadAt + Sync + Send + 'a,
    jobs: usize,
    (target, length): (usize, Option<u64>),
    detail: Detail,
    work: &Work<'_, T>,
    sink: &mut PieceSink<'_, T, std::io::Error>,
    latin1: Option<&'a mut (dyn FnMut(u64) + Send)>,
) -> std::io::Result<()> {
    let mut source = told(Source::file(input), length);
    let decode = latin1.is_some();
    if let Some(tell) = latin1 {
        source = source.on_latin1(tell);
    }
    let how = Reading {
        decode,
        ..reading(jobs, target, detail)
    };
    source.for_each_piece(how, work, sink)
}

fn summary(g: &rookery_pgn::ReadGame) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?} {:?} {:?}",
        g.index, g.at, g.game.tags, g.game.mainline, g.game.result, g.error, g.warnings
    )
}

fn whole(bytes: &[u8]) -> Vec<String> {
    Games::new(bytes).map(|g| summary(&g.unwrap())).collect()
}

/// Reads `bytes` in pieces of about `target` bytes on `jobs` threads; also
/// returns how many pieces the cutter made.
fn pieces_on(bytes: &[u8], target: usize, jobs: usize) -> (Vec<String>, usize) {
    pieces_told(bytes, target, jobs, None)
}

/// [`pieces_on`], the cutter told `length` as the input's length; the
/// same bytes read at offsets ([`Source::file`]) must give the same.
fn pieces_told(
    bytes: &[u8],
    target: usize,
    jobs: usize,
    length: Option<u64>,
) -> (Vec<String>, usize) {
    let mut read = [Vec::new(), Vec::new()];
    for (at, found) in read.iter_mut().enumerate() {
        let source = if at == 1 {
            Source::file(bytes)
        } else {
            Source::reader(bytes)
        };
        told(source, length)
            .for_each_piece(
                reading(jobs, target, Detail::Full),
                &|games| games.map(|g| summary(&g)).collect::<Vec<_>>(),
                &mut |batch, _| -> std::io::Result<bool> {
                    found.extend(batch);
                    Ok(true)
                },
            )
            .unwrap();
    }
    let [out, at] = read;
    assert_eq!(at, out, "read at offsets, {jobs} threads, target {target}");
    // The pieces' buffers handed back, to be read into again: what stood
    // in them before must never show.
    let mut n = 0;
    let mut joined = Vec::with_capacity(bytes.len());
    let mut cutter = Cutter::new(bytes, target);
    if let Some(length) = length {
        cutter = cutter.with_length(length, jobs);
    }
    while let Some(piece) = cutter.next() {
        let piece = piece.unwrap();
        joined.extend_from_slice(&piece.bytes);
        cutter.recycle(piece.bytes);
        n += 1;
    }
    assert!(
        joined == bytes,
        "every byte is in exactly one piece, in order"
    );
    (out, n)
}

fn pieces(bytes: &[u8], target: usize) -> (Vec<String>, usize) {
    pieces_on(bytes, target, 2)
}

#[test]
fn pieces_read_as_the_whole_stream() {
    let mut inputs = common::data_files();
    // All files at once too, as one stream.
    let all = inputs.concat();
    inputs.push(all);
    for bytes in &inputs {
        let expected = whole(bytes);
        // 70,000: past the cutter's read step, so a piece takes several reads.
        for target in [1, 100, 3000, 70_000, 1 << 20] {
            for jobs in [1, 3] {
                let (got, _) = pieces_on(bytes, target, jobs);
                assert_eq!(got, expected, "target {target}, {jobs} threads");
            }
        }
    }
}

/// Told the input's length, the cutter makes the last pieces smaller, down
/// to [`MIN_TAIL_PIECE`]; told a wrong length, it still cuts the same games.
#[test]
fn pieces_shrink_towards_a_known_end() {
    let game = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n";
    let pgn = game.repeat(40 * MIN_TAIL_PIECE / game.len());
    let bytes = pgn.as_bytes();
    let target = 4 * MIN_TAIL_PIECE;
    let sizes = |length: Option<u64>| {
        let mut cutter = Cutter::new(bytes, target);
        if let Some(length) = length {
            cutter = cutter.with_length(length, 2);
        }
        cutter.map(|p| p.unwrap().bytes.len()).collect::<Vec<_>>()
    };
    let plain = sizes(None);
    let told = sizes(Some(bytes.len() as u64));
    // Untold, every piece but the last is about the target.
    assert!(
        plain[..plain.len() - 1].iter().all(|&n| n >= target),
        "{plain:?}"
    );
    // Told, the pieces never grow, and the tail's are the smallest allowed.
    assert!(told.len() > plain.len(), "{told:?}");
    assert!(
        told.windows(2).all(|w| w[1] <= w[0] + game.len()),
        "{told:?}"
    );
    assert!(told[0] >= target, "{told:?}");
    let tail = &told[told.len() - 4..told.len() - 1];
    assert!(
        tail.iter()
            .all(|&n| (MIN_TAIL_PIECE..MIN_TAIL_PIECE + game.len()).contains(&n)),
        "{told:?}"
    );
    let expected = whole(bytes);
    for length in [
        None,
        Some(bytes.len() as u64),
        Some(0),
        Some(u64::MAX),
        Some(1000),
    ] {
        for jobs in [2, 3] {
            let (got, _) = pieces_told(bytes, target, jobs, length);
            assert_eq!(got, expected, "length {length:?}, {jobs} threads");
        }
    }
}

#[test]
fn small_targets_give_many_pieces() {
    let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n".repeat(50);
    let (got, n) = pieces(pgn.as_bytes(), 10);
    assert_eq!(got, whole(pgn.as_bytes()));
    assert_eq!(got.len(), 50);
    assert_eq!(n, 50, "one game a piece");
}

#[test]
fn stopping_early_hands_out_a_prefix() {
    let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n".repeat(40);
    let mut batches = 0;
    let mut seen = Vec::new();
    for_each_piece(
        pgn.as_bytes(),
        2,
        10,
        &|games| games.map(|g| g.index).collect::<Vec<_>>(),
        &mut |batch, _| -> std::io::Result<bool> {
            seen.extend(batch);
            batches += 1;
            Ok(batches < 3)
        },
    )
    .unwrap();
    assert_eq!(seen, [1, 2, 3]);
}

#[test]
fn wrong_guesses_are_read_again() {
    // Every likely boundary here is inside a comment, a variation, a tag
    // section or a game without a result.
    let cases: [&str; 6] = [
        "[Event \"a\"]\n\n1. e4 {a comment\n\n[Event \"fake\"]\n} e5 1-0\n\n[Event \"b\"]\n1. d4 *\n",
        "1. e4 (1. d4 d5 1-0\n1. c4) e5 1-0\n2. Nf3 *\n",
        "[Event \"a\"]\n{x}\n[Site \"b\"]\n\n1. e4 *\n",
        "1. e4 e5\n\n[Event \"b\"]\n1. d4\n[Event \"c\"]\n",
        "1. e4 e5 1-0 {trailing\n\n[Event \"x\"]}\n1. d4 *\n",
        "1. e4 <reserved\n\n[Event \"x\"] >\ne5 *\n%escape 1-0\n1. d4 *\n",
    ];
    for case in cases {
        let expected = whole(case.as_bytes());
        for target in 1..case.len() + 2 {
            let (got, _) = pieces(case.as_bytes(), target);
            assert_eq!(got, expected, "target {target} on {case:?}");
        }
    }
}

fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "[Event \"x\"]",
        "[White \"a\\\"b\"]",
        "[",
        "]",
        "\"",
        "{",
        "}",
        "(",
        ")",
        ";c",
        "%e",
        "<",
        ">",
        "1-0",
        "0-1",
        "1/2-1/2",
        "*",
        "1.",
        "e4",
        "e5",
        "Nf3",
        "$1",
        "!",
        "--",
        "\n",
        "\n\n",
        "\r\n",
        " ",
        "\u{feff}",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Token soup, cut at every target size, reads as the whole.
    #[test]
    fn any_soup_reads_the_same(tokens in prop::collection::vec(token(), 0..80), target in 1usize..60) {
        let text: String = tokens.concat();
        let (got, _) = pieces(text.as_bytes(), target);
        prop_assert_eq!(got, whole(text.as_bytes()));
    }
}

#[test]
fn a_panic_in_the_work_is_an_error_not_a_hang() {
    let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n".repeat(40);
    let read = for_each_piece(
        pgn.as_bytes(),
        2,
        10,
        &|games| {
            for g in games {
                assert_ne!(g.index, 7, "a bug in the work");
            }
        },
        &mut |(), _| -> std::io::Result<bool> { Ok(true) },
    );
    assert!(read.is_err());
}

/// Gives `good` bytes of `bytes`, then fails.
struct FailsAfter<'a> {
    bytes: &'a [u8],
    good: usize,
}

impl std::io::Read for FailsAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.good == 0 {
            return Err(std::io::Error::other("the disk is gone"));
        }
        let n = buf.len().min(self.good).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        self.good -= n;
        Ok(n)
    }
}

#[test]
fn a_read_error_is_the_error_after_the_games_before_it() {
    let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n".repeat(400);
    for jobs in [1, 2, 4] {
        let mut seen = Vec::new();
        let read = for_each_piece(
            FailsAfter {
                bytes: pgn.as_bytes(),
                good: 5000,
            },
            jobs,
            100,
            &|games| games.map(|g| g.index).collect::<Vec<_>>(),
            &mut |batch, _| -> std::io::Result<bool> {
                seen.extend(batch);
                Ok(true)
            },
        );
        let err = read.expect_err("the read error comes back");
        assert_eq!(err.to_string(), "the disk is gone");
        // What was handed out is games 1, 2, ... in order, all before byte 5000.
        assert!(seen.iter().copied().eq(1..=seen.len()), "{seen:?}");
        assert!(seen.len() <= 5000 / 26, "{} games", seen.len());
    }
}

#[test]
fn the_sinks_error_ends_the_run() {
    let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n".repeat(400);
    let mut batches = 0;
    let read = for_each_piece(
        pgn.as_bytes(),
        2,
        50,
        &|games| games.count(),
        &mut |_, _| -> std::io::Result<bool> {
            batches += 1;
            if batches == 5 {
                return Err(std::io::Error::other("the output is full"));
            }
            Ok(true)
        },
    );
    assert_eq!(read.unwrap_err().to_string(), "the output is full");
    assert_eq!(batches, 5);
}

/// Reads `bytes` at offsets on `jobs` threads in pieces of about `target`
/// bytes, lines that are not UTF-8 read as Latin-1: the games and the
/// line the first such line was told at.
fn latin1_pieces(bytes: &[u8], target: usize, jobs: usize) -> (Vec<String>, Option<u64>) {
    let mut out = Vec::new();
    let mut told = None;
    for_each_piece_at(
        bytes,
        jobs,
        (target, Some(bytes.len() as u64)),
        Detail::Full,
        &|games| games.map(|g| summary(&g)).collect::<Vec<_>>(),
        &mut |batch, _| -> std::io::Result<bool> {
            out.extend(batch);
            Ok(true)
        },
        Some(&mut |line| {
            assert!(told.is_none(), "told once");
            told = Some(line);
        }),
    )
    .unwrap();
    (out, told)
}

/// Lines that are not UTF-8, read on several threads, read as the one
/// thread reads them through [`Latin1Read`]: the same games, locations
/// (of the decoded text) and first line.
#[test]
fn latin1_lines_read_as_one_reader_decodes_them() {
    use rookery_io::latin1::Latin1Read;
    let mut inputs = common::data_files();
    let game =
        b"[Event \"Caf\xe9\"]\n[White \"M\xfcller\"]\n\n1. e4 {d\xe9j\xe0} e5 1-0\n\n".to_vec();
    let plain = b"[Event \"x\"]\n\n1. d4 d5 *\n\n".to_vec();
    inputs.push(
        [
            plain.repeat(300),
            game.clone(),
            plain.repeat(300),
            game.repeat(50),
        ]
        .concat(),
    );
    inputs.push(game.repeat(400));
    for bytes in &inputs {
        let mut first = None;
        let decoded: Vec<String> =
            Games::new(Latin1Read::new(&bytes[..], |line| first = Some(line)))
                .map(|g| summary(&g.unwrap()))
                .collect();
        for target in [100, 3000, 70_000] {
            for jobs in [1, 2, 3] {
                let (got, told) = latin1_pieces(bytes, target, jobs);
                assert_eq!(got, decoded, "target {target}, {jobs} threads");
                assert_eq!(told, first, "target {target}, {jobs} threads");
            }
        }
    }
}

/// A piece whose first game's index was guessed wrong, or that ended inside
/// a game, is fetched again after its thread reused its buffer: decoded
/// again, it reads as one reader decodes the whole.
#[test]
fn pieces_read_again_are_fetched_and_decoded_again() {
    use rookery_io::latin1::Latin1Read;
    // As in `wrong_guesses_are_read_again`, with lines that are Latin-1.
    let cases: [&[u8]; 4] = [
        b"[Event \"\xe0\"]\n\n1. e4 {a comment \xe9\n\n[Event \"fake\"]\n} e5 1-0\n\n[Event \"b\"]\n1. d4 *\n",
        b"1. e4 (1. d4 d5 1-0\n1. c4) e5 1-0 {\xfc}\n2. Nf3 *\n",
        b"[Event \"a\"]\n{x\xe9}\n[Site \"b\"]\n\n1. e4 *\n",
        b"1. e4 e5\n\n[Event \"\xe9\"]\n1. d4\n[Event \"c\"]\n",
    ];
    for case in cases {
        let mut first = None;
        let decoded: Vec<String> = Games::new(Latin1Read::new(case, |line| first = Some(line)))
            .map(|g| summary(&g.unwrap()))
            .collect();
        for target in 1..case.len() + 2 {
            for jobs in [1, 2] {
                let (got, told) = latin1_pieces(case, target, jobs);
                assert_eq!(got, decoded, "target {target}, {jobs} threads on {case:?}");
                assert_eq!(told, first, "target {target}, {jobs} threads on {case:?}");
            }
        }
    }
}

/// A file that gives fewer bytes than were cut from it (truncated between
/// the cut and the read) is an error, never games lost in silence.
#[test]
fn an_input_that_shrinks_while_read_is_an_error() {
    /// The bytes to reads of a few KiB (as the cutter makes around a cut),
    /// only their first half to larger ones (a thread reading its piece):
    /// as if the file was cut short in between.
    struct Shrinks(Vec<u8>);
    impl ReadAt for Shrinks {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
            let len = if buf.len() <= 20_000 {
                self.0.len()
            } else {
                self.0.len() / 2
            };
            self.0[..len].read_at(buf, offset)
        }
    }
    let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n".repeat(40_000);
    let input = Shrinks(pgn.into_bytes());
    for jobs in [1, 2] {
        let seen = games_before_a_short_read(&input, jobs);
        assert!(seen < 20_000, "{seen} games");
    }
}

/// Reads `input` in pieces of about 100,000 bytes on `jobs` threads, which
/// must end in the error of an input that shrank: the games handed out
/// before it.
fn games_before_a_short_read<A: ReadAt + Sync>(input: &A, jobs: usize) -> usize {
    let mut seen = 0;
    let read = for_each_piece_at(
        input,
        jobs,
        (100_000, None),
        Detail::Full,
        &|games| games.count(),
        &mut |n, _| -> std::io::Result<bool> {
            seen += n;
            Ok(true)
        },
        None,
    );
    let err = read.expect_err("a shorter input is an error");
    assert!(
        err.to_string().contains("changed while it was read"),
        "{err}"
    );
    seen
}

/// A piece that fails while an earlier one is still being read does not
/// take the earlier one down with it: the games before it reach the sink,
/// and the error is its own.
#[test]
fn a_failing_piece_leaves_the_pieces_before_it_whole() {
    /// Reads of whole pieces (more than a few KiB): slow at the start (the
    /// first piece, still being read when the second fails), short
    /// elsewhere (as if the file had been cut short inside its second
    /// piece).
    struct SlowThenShort(Vec<u8>);
    impl ReadAt for SlowThenShort {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
            if buf.len() <= 20_000 {
                return self.0.read_at(buf, offset);
            }
            if offset == 0 {
                std::thread::sleep(std::time::Duration::from_millis(300));
                return self.0.read_at(buf, offset);
            }
            self.0[..self.0.len() / 5].read_at(buf, offset)
        }
    }
    let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n".repeat(20_000);
    let input = SlowThenShort(pgn.into_bytes());
    let seen = games_before_a_short_read(&input, 2);
    // The first piece (about 100,000 bytes of 27-byte games) was read whole.
    assert!((3_000..4_000).contains(&seen), "{seen} games");
}

/// One worker reading a file gets its pieces from a thread that reads them
/// ahead: what that thread meets (an error, a panic of the input's reads)
/// reaches the caller as an error after the games before it, never as an
/// early end; and a sink that stops early ends the run without waiting for
/// the rest of the input.
#[test]
fn the_thread_reading_ahead_reports_what_it_meets() {
    /// Reads past `bad` fail (`panics`: panic) once the input is cut;
    /// reads of a few KiB around a cut always succeed.
    struct BadAfter {
        bytes: Vec<u8>,
        bad: u64,
        panics: bool,
    }
    impl ReadAt for BadAfter {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
            if buf.len() > 20_000 && offset + buf.len() as u64 > self.bad {
                assert!(!self.panics, "a bug in the input's reads");
                return Err(std::io::Error::other("the disk is gone"));
            }
            self.bytes.read_at(buf, offset)
        }
    }
    let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n".repeat(20_000);
    let whole = pgn.len() / 27;
    for panics in [false, true] {
        let input = BadAfter {
            bytes: pgn.clone().into_bytes(),
            bad: 300_000,
            panics,
        };
        let mut seen = Vec::new();
        let read = for_each_piece_at(
            &input,
            1,
            (100_000, None),
            Detail::Full,
            &|games| games.map(|g| g.index).collect::<Vec<_>>(),
            &mut |batch, _| -> std::io::Result<bool> {
                seen.extend(batch);
                Ok(true)
            },
            None,
        );
        let err = read.expect_err("the error comes back");
        let words = if panics {
            "panicked"
        } else {
            "the disk is gone"
        };
        assert!(err.to_string().contains(words), "{err}");
        // Games 1, 2, ... in order, none past the bad bytes.
        assert!(seen.iter().copied().eq(1..=seen.len()), "{seen:?}");
        assert!(
            (5_000..300_000 / 27).contains(&seen.len()),
            "{}",
            seen.len()
        );
    }
    // A sink that stops after its second batch: a prefix, and the run ends.
    let mut batches = Vec::new();
    for_each_piece_at(
        pgn.as_bytes(),
        1,
        (10_000, None),
        Detail::Full,
        &|games| games.count(),
        &mut |n, _| -> std::io::Result<bool> {
            batches.push(n);
            Ok(batches.len() < 2)
        },
        None,
    )
    .unwrap();
    assert_eq!(batches.len(), 2);
    assert!(batches.iter().sum::<usize>() < whole);
}
