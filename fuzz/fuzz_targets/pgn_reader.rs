//! PGN reader: any bytes, read as a stream of games (game trees with every
//! move checked), must never panic. A game read without error must survive
//! writing and reading back unchanged. Read in pieces on a worker thread
//! (`Source::reader`), the stream gives exactly the same games; so
//! does each of two threads reading its own pieces at offsets
//! (`Source::file`, as a file is read; decoding Latin-1 lines
//! too, as one reader through `Latin1Read` does), and a reader of the
//! bytes held in memory, at a tiny token limit too.
//! Seeds (corpus/pgn_reader/seed-*) are cut from crates/pgn/tests/data (see
//! its SOURCES.md), and seed-deep-nesting holds 25,000 variations each
//! nested in the one before (run with a `-max_len` that fits it, as
//! run-briefly.sh does): reading, writing, comparing and dropping such a
//! tree, on the caller's thread and on a worker's, must not exhaust a stack.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_io::latin1::Latin1Read;
use rookery_pgn::source::{Reading, Source};
use rookery_pgn::Detail;
use rookery_pgn::{game_to_string, Games, Location, Reader, Skip, Visitor};

/// Skips every variation: exercises the skipping paths of the tokenizer.
struct SkipAll(usize);
impl Visitor for SkipAll {
    type Output = ();
    fn begin_variation(&mut self) -> Skip {
        Skip(true)
    }
    fn end_game(&mut self) {
        self.0 += 1;
    }
}

fn summary(g: &rookery_pgn::ReadGame) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?} {:?}",
        g.index, g.at, g.game.tags, g.game.mainline, g.error, g.warnings
    )
}

/// The summaries of every game `reader` reads (from memory: no I/O error).
fn summaries<R: std::io::Read>(reader: Reader<R>) -> Vec<String> {
    Games::from_reader(reader, 1)
        .map(|g| summary(&g.expect("reading memory")))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let mut games = 0;
    let mut whole = Vec::new();
    for g in Games::new(data) {
        let Ok(g) = g else { return };
        games += 1;
        whole.push(summary(&g));
        if g.error.is_none() {
            let text = game_to_string(&g.game);
            let again: Vec<_> = Games::new(text.as_bytes()).collect();
            assert_eq!(again.len(), 1, "{text}");
            let again = again.into_iter().next().unwrap().expect("reading memory");
            assert!(again.error.is_none(), "{:?}\n{text}", again.error);
            assert_eq!(again.game.mainline, g.game.mainline, "{text}");
            assert_eq!(again.game.start, g.game.start, "{text}");
        }
    }
    // The same number of games with a tiny token limit, when skipping
    // variations, and when cut into chunks.
    let mut small = Reader::new(data).with_max_token(1024);
    let mut v = SkipAll(0);
    while let Ok(Some(())) = small.read_game(&mut v) {}
    let mut skip = Reader::new(data);
    let mut skipped = 0;
    while let Ok(true) = skip.skip_game() {
        skipped += 1;
    }
    assert_eq!(skipped, games);
    let target = 1 + usize::from(data.first().copied().unwrap_or(0) % 64);
    let mut pieces = Vec::new();
    let reading = Reading {
        jobs: 2,
        chunk_bytes: target,
        detail: Detail::Full,
        decode: false,
    };
    let read = Source::reader(data).for_each_piece(
        reading,
        &|games| games.map(|g| summary(&g)).collect::<Vec<_>>(),
        &mut |batch, _| -> std::io::Result<bool> {
            pieces.extend(batch);
            Ok(true)
        },
    );
    assert!(read.is_ok());
    assert_eq!(pieces, whole);
    // Read at offsets on two threads, as a file is read: bytes as they are,
    // or lines that are not UTF-8 read as Latin-1 (as one reader reads the
    // bytes decoded line by line, with the same first such line).
    let at = |latin1: Option<&mut (dyn FnMut(u64) + Send)>| {
        let mut games = Vec::new();
        let decode = latin1.is_some();
        let mut source = Source::file(data).with_len(data.len() as u64);
        if let Some(tell) = latin1 {
            source = source.on_latin1(tell);
        }
        let read = source.for_each_piece(
            Reading { decode, ..reading },
            &|games| games.map(|g| summary(&g)).collect::<Vec<_>>(),
            &mut |batch, _| -> std::io::Result<bool> {
                games.extend(batch);
                Ok(true)
            },
        );
        assert!(read.is_ok());
        games
    };
    assert_eq!(at(None), whole);
    let mut first = None;
    let decoded: Vec<String> = Games::new(Latin1Read::new(data, |line| first = Some(line)))
        .map(|g| summary(&g.expect("reading memory")))
        .collect();
    let mut told = None;
    assert_eq!(at(Some(&mut |line| told = Some(line))), decoded);
    assert_eq!(told, first);
    // Held in memory, with the tiny token limit too, the bytes read
    // exactly as the stream reads them.
    let start = Location {
        offset: 0,
        line: 1,
        col: 1,
    };
    assert_eq!(
        summaries(Reader::from_bytes(data.to_vec(), start).with_max_token(1024)),
        summaries(Reader::new(data).with_max_token(1024))
    );
});
