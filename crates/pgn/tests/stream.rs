//! `stream::run` (the library half of `rookery pgn`): the mainline-only
//! reading the counting verbs use reports exactly what the full tree
//! reports, and the results are the same on any number of threads.

use rookery_pgn::convert::EpdOptions;
use rookery_pgn::source::Source;
use rookery_pgn::stream::{run, Diag, Part, Plan, Stats, Task};
use rookery_pgn::{Detail, Games};
use std::io::Read;

mod common;

mod util {
    /// The files of tests/data, then [`TRICKY`].
    pub fn data_files() -> Vec<Vec<u8>> {
        let mut out = super::common::data_files();
        out.push(TRICKY.as_bytes().to_vec());
        out
    }

    /// Errors and warnings in variations, after NAGs, in comments.
    pub const TRICKY: &str = "[Event \"v\"]\n[PlyCount \"3\"]\n\n1. e4 $1 {c} (1. d4 d5 (1... Nf6 2. Nf6) 2. c4) (1. Ke3) 1... e5 $2 2. Nf3 {x} *\n\n\
        [Event \"w\"]\n\n$4 1. e4 ( ) e5 {a} ( {b} 1... c5 $3 ) 2. Qh5 ( 2. Qxf7 ) 1-0\n\n\
        [Event \"x\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Ke2 Ke7 3. Kd3 ) 1-0\n\n\
        [Event \"y\"]\n\n1. e4 (1. d4 d5 2. c4 (2. Bf4 ) 1-0\n";
}

/// What a game reads as, less what the mainline-only reading leaves out.
fn essentials(g: &rookery_pgn::ReadGame) -> String {
    let moves: Vec<_> = g.game.mainline_moves().collect();
    format!(
        "{} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        g.index,
        g.at,
        g.game.tags,
        g.game.start,
        moves,
        g.game.result,
        g.error,
        g.warnings,
        g.tag_locations
    )
}

#[test]
fn mainline_detail_reports_what_the_full_tree_reports() {
    let mut variations_dropped = 0;
    for bytes in util::data_files() {
        let full: Vec<_> = Games::new(&bytes[..]).map(Result::unwrap).collect();
        let lean: Vec<_> = Games::new(&bytes[..])
            .with_detail(Detail::Mainline)
            .map(Result::unwrap)
            .collect();
        assert_eq!(full.len(), lean.len());
        for (f, l) in full.iter().zip(&lean) {
            assert_eq!(essentials(f), essentials(l));
            for node in &l.game.mainline.nodes {
                assert!(node.comments_before.is_empty() && node.comments_after.is_empty());
                assert!(node.nags.is_empty() && node.variations.is_empty());
            }
            variations_dropped += f
                .game
                .mainline
                .nodes
                .iter()
                .filter(|n| !n.variations.is_empty())
                .count();
        }
    }
    assert!(variations_dropped > 10, "the data has variations to drop");
}

#[test]
fn recycled_games_read_as_fresh_ones() {
    // Every file, then all of them in one stream (so that a game reuses
    // the strings and vectors of games with other tags, more moves,
    // variations, errors), at both details; each game is handed back as
    // soon as it is seen.
    let mut all = Vec::new();
    let mut inputs = util::data_files();
    for f in &inputs {
        all.extend_from_slice(f);
        all.extend_from_slice(b"\n\n");
    }
    // A repeated tag name, escapes and more tags than the game before.
    all.extend_from_slice(
        b"[White \"a\"]\n[White \"b \\\"c\\\"\"]\n[Black \"d\"]\n[Date \"2001.01.01\"]\n1. e4 *\n\n\
          [Event \"e\"]\n1. d4 d5 *\n",
    );
    inputs.push(all);
    let mut recycled_games = 0;
    for bytes in &inputs {
        for detail in [Detail::Full, Detail::Mainline] {
            let fresh: Vec<String> = Games::new(&bytes[..])
                .with_detail(detail)
                .map(|g| format!("{:?}", g.unwrap()))
                .collect();
            let mut games = Games::new(&bytes[..]).with_detail(detail);
            let mut reused = Vec::new();
            while let Some(g) = games.next() {
                let g = g.unwrap();
                reused.push(format!("{g:?}"));
                games.recycle(g);
                recycled_games += 1;
            }
            assert_eq!(fresh, reused);
        }
    }
    assert!(recycled_games > 100);
}

#[test]
fn an_illegal_move_in_a_variation_is_an_error_at_any_detail() {
    let lean: Vec<_> = Games::new(util::TRICKY.as_bytes())
        .with_detail(Detail::Mainline)
        .map(Result::unwrap)
        .collect();
    let e = lean[0]
        .error
        .as_ref()
        .expect("2. Nf6 in a variation is illegal");
    assert!(e.to_string().contains("2. Nf6"), "{e}");
    // A NAG with no move before it and an unmatched ')' are still warned about.
    let w: Vec<String> = lean
        .iter()
        .flat_map(|g| &g.warnings)
        .map(|w| w.to_string())
        .collect();
    assert!(
        w.iter().any(|w| w.contains("NAG with no move before it")),
        "{w:?}"
    );
    assert!(
        w.iter().any(|w| w.contains("')' with no open variation")),
        "{w:?}"
    );
}

/// Everything a run hands to its sink, joined.
fn run_all(plan: &Plan, bytes: &[u8]) -> (String, Vec<Diag>, Stats, bool) {
    run_all_at(plan, bytes, false, None)
}

/// [`run_all`]; `at`: read as a file is read ([`Source::file`]: each
/// thread reads its own pieces, decoding the lines that are not UTF-8);
/// `len`: the input's length told.
fn run_all_at(
    plan: &Plan,
    bytes: &[u8],
    at: bool,
    len: Option<u64>,
) -> (String, Vec<Diag>, Stats, bool) {
    let mut text = String::new();
    let mut diags = Vec::new();
    let mut stats = Stats::default();
    let mut stopped = false;
    let mut last_progress = 0;
    let mut progress = |b| {
        assert!(b >= last_progress);
        last_progress = b;
    };
    let mut sink = |part: Part| -> Result<(), std::io::Error> {
        assert!(!stopped, "nothing after the part that stopped");
        text.push_str(std::str::from_utf8(&part.text).expect("UTF-8"));
        diags.extend(part.diags);
        stats.merge(part.stats);
        stopped = part.stopped;
        Ok(())
    };
    // Lines that are not UTF-8 are decoded either way: compared with text
    // decoded before the run.
    let source = if at {
        Source::file(bytes)
    } else {
        Source::reader(bytes)
    };
    let source = match len {
        Some(n) => source.with_len(n),
        None => source,
    };
    run(plan, source, "f.pgn", &mut progress, &mut sink).unwrap();
    (text, diags, stats, stopped)
}

#[test]
fn every_task_reads_the_same_on_several_threads() {
    let tasks = [
        Task::Validate,
        Task::Stats,
        Task::Normalize { fix_results: false },
        Task::Normalize { fix_results: true },
        Task::ToEpd {
            fen: false,
            opts: EpdOptions {
                ptp: true,
                comments: true,
            },
        },
        Task::ToEpd {
            fen: false,
            opts: EpdOptions::default(),
        },
        Task::ToEpd {
            fen: true,
            opts: EpdOptions::default(),
        },
    ];
    let raw: Vec<u8> = util::data_files().concat();
    // (The test data holds Latin-1 lines: `run` reads text.)
    let mut all = Vec::new();
    rookery_io::latin1::Latin1Read::new(&raw[..], |_| {})
        .read_to_end(&mut all)
        .unwrap();
    for task in tasks {
        for strict in [false, true] {
            let one = Plan {
                strict,
                ..Plan::new(task)
            };
            let want = run_all(&one, &all);
            assert!(want.2.games > 0);
            // The last told the input's length, with pieces that shrink.
            let told = Some(all.len() as u64);
            for (jobs, chunk_bytes, input_len) in
                [(2, 1000, None), (3, 1 << 16, None), (2, 1 << 18, told)]
            {
                let many = Plan {
                    jobs,
                    chunk_bytes,
                    ..one
                };
                for at in [false, true] {
                    let got = run_all_at(&many, if at { &raw } else { &all }, at, input_len);
                    let what = format!("{task:?} strict {strict} jobs {jobs} at {at}");
                    assert_eq!(got.0, want.0, "{what}");
                    assert_eq!(got.1, want.1, "{what}");
                    assert_eq!(got.2, want.2, "{what}");
                    assert_eq!(got.3, want.3, "{what}");
                }
            }
        }
    }
}

#[test]
fn stats_count_what_the_full_tree_has() {
    let raw: Vec<u8> = util::data_files().concat();
    // (The test data holds Latin-1 lines: `run` reads text.)
    let mut all = Vec::new();
    rookery_io::latin1::Latin1Read::new(&raw[..], |_| {})
        .read_to_end(&mut all)
        .unwrap();
    let (_, diags, stats, stopped) = run_all(&Plan::new(Task::Stats), &all);
    assert!(!stopped);
    let full: Vec<_> = Games::new(&all[..]).map(Result::unwrap).collect();
    let good: Vec<_> = full.iter().filter(|g| g.error.is_none()).collect();
    assert_eq!(stats.games, full.len() as u64);
    assert_eq!(stats.error_games, (full.len() - good.len()) as u64);
    let plies: u64 = good
        .iter()
        .map(|g| g.game.mainline.nodes.len() as u64)
        .sum();
    assert_eq!(stats.moves, plies);
    assert_eq!(stats.results.iter().sum::<u64>(), good.len() as u64);
    assert_eq!(stats.eco.values().sum::<u64>(), good.len() as u64);
    let longest = good.iter().map(|g| g.game.mainline.nodes.len()).max();
    assert_eq!(stats.longest.as_ref().map(|l| l.plies), longest);
    let warnings: usize = full.iter().map(|g| g.warnings.len()).sum();
    assert_eq!(stats.warnings, warnings as u64);
    assert_eq!(
        diags.iter().filter(|d| d.error).count() as u64,
        stats.error_games
    );
    assert_eq!(diags.len() as u64, stats.warnings + stats.error_games);
}

#[test]
fn strict_runs_stop_at_the_first_error_and_quiet_ones_report_no_warnings() {
    let bytes = util::TRICKY.as_bytes();
    let (_, diags, stats, stopped) = run_all(
        &Plan {
            strict: true,
            ..Plan::new(Task::Stats)
        },
        bytes,
    );
    assert!(stopped);
    assert_eq!((stats.games, stats.error_games), (1, 1));
    assert!(diags.last().is_some_and(|d| d.error && d.game == 1));
    let (_, diags, stats, _) = run_all(
        &Plan {
            quiet: true,
            ..Plan::new(Task::Validate)
        },
        bytes,
    );
    assert!(stats.warnings > 0);
    assert!(diags.iter().all(|d| d.error), "{diags:?}");
}

#[test]
fn validate_checks_tag_values() {
    let pgn = b"[Date \"2024.13.01\"]\n[ECO \"Z99\"]\n[PlyCount \"5\"]\n\n1. e4 e5 *\n";
    let (_, diags, stats, _) = run_all(&Plan::new(Task::Validate), pgn);
    let msgs: Vec<_> = diags.iter().map(|d| (d.line, d.message.as_str())).collect();
    assert_eq!(stats.warnings, 3, "{msgs:?}");
    assert_eq!(diags[0].line, 1);
    assert_eq!(diags[1].line, 2);
    assert!(diags[2]
        .message
        .contains("PlyCount tag says 5, the game has 2 plies"));
    // Stats does not check tag values.
    let (_, _, stats, _) = run_all(&Plan::new(Task::Stats), pgn);
    assert_eq!(stats.warnings, 0);
}

#[test]
fn eco_summaries() {
    let mut s = Stats::default();
    for (code, n) in [("B20", 3), ("B21", 3), ("A00", 1), ("?", 9), ("C42", 4)] {
        s.eco.insert(code.to_owned(), n);
    }
    assert_eq!(
        s.top_eco(3),
        [("C42", 4), ("B20", 3), ("B21", 3)],
        "by count, ties by code, no '?'"
    );
    let letters: Vec<_> = s.eco_by_letter().into_iter().collect();
    assert_eq!(letters, [('?', 9), ('A', 1), ('B', 6), ('C', 4)]);
}
