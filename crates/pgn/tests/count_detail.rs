//! The counting reading `pgn stats` and `pgn validate` use (`Detail::Count`:
//! no move tree at all, the mainline plies only counted) gives exactly the
//! statistics and problems the full tree gives, on every test file.

use rookery_pgn::source::Source;
use rookery_pgn::stream::{handle, run, Part, Plan, Task};
use rookery_pgn::{Detail, Games, ReadGame};

/// Every `.pgn` under `tests/data` (subdirectories too), then hand-made
/// games with variations, NAGs and comments in odd places, errors in
/// variations, a PlyCount tag that agrees and one that does not.
fn inputs() -> Vec<Vec<u8>> {
    let mut dirs = vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")];
    let mut files = Vec::new();
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "pgn") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut out: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    out.push(
        b"[Event \"v\"]\n[PlyCount \"3\"]\n\n1. e4 $1 {c} (1. d4 d5 (1... Nf6 2. Nf6) 2. c4) (1. Ke3) 1... e5 $2 2. Nf3 {x} *\n\n\
          [Event \"w\"]\n[PlyCount \"3\"]\n\n$4 1. e4 ( ) e5 {a} ( {b} 1... c5 $3 ) 2. Qh5 ( 2. Qxf7 ) 1-0\n\n\
          [Event \"x\"]\n[PlyCount \"5\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Ke2 Ke7 3. Kd3 ) 1-0\n\n\
          [Event \"z\"]\n[PlyCount \"4\"]\n\n( 1. d4 ) 1. g1f3 d7d5 2. -- Nf6 3. Nxd5 *\n\n\
          [Event \"y\"]\n\n1. e4 (1. d4 d5 2. c4 (2. Bf4 ) 1-0\n"
            .to_vec(),
    );
    out
}

fn read(bytes: &[u8], detail: Detail) -> Vec<ReadGame> {
    Games::new(bytes)
        .with_detail(detail)
        .map(Result::unwrap)
        .collect()
}

/// What a game reads as, less the move tree.
fn essentials(g: &ReadGame) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {}",
        g.index,
        g.at,
        g.game.tags,
        g.game.start,
        g.game.result,
        g.error,
        g.warnings,
        g.tag_locations,
        g.plies
    )
}

/// The part `handle` makes of `games` with `plan`.
fn handled(plan: &Plan, games: &[ReadGame]) -> Part {
    let mut part = Part::default();
    for g in games {
        handle(plan, "f.pgn", g, &mut part);
    }
    part
}

fn plans() -> Vec<Plan> {
    let mut plans = Vec::new();
    for task in [Task::Stats, Task::Validate] {
        for (strict, quiet) in [(false, false), (true, false), (false, true)] {
            let mut plan = Plan::new(task);
            plan.strict = strict;
            plan.quiet = quiet;
            plans.push(plan);
        }
    }
    plans
}

#[test]
fn stats_and_validate_read_by_counting() {
    assert_eq!(Task::Stats.detail(), Detail::Count);
    assert_eq!(Task::Validate.detail(), Detail::Count);
}

#[test]
fn counting_reads_every_game_as_the_full_tree_does() {
    let (mut plies, mut games) = (0, 0);
    for bytes in inputs() {
        let full = read(&bytes, Detail::Full);
        let count = read(&bytes, Detail::Count);
        assert_eq!(full.len(), count.len());
        for (f, c) in full.iter().zip(&count) {
            // The plies counted are the full tree's mainline moves.
            assert_eq!(f.plies, f.game.mainline.nodes.len());
            assert_eq!(c.plies, f.game.mainline.nodes.len(), "game {}", f.index);
            assert_eq!(essentials(f), essentials(c));
            assert!(c.game.mainline.nodes.is_empty());
            plies += c.plies;
            games += 1;
        }
    }
    assert!(
        games > 150 && plies > 10_000,
        "{games} games, {plies} plies"
    );
}

#[test]
fn stats_and_diagnostics_are_those_of_the_full_tree() {
    let mut diags = 0;
    for bytes in inputs() {
        let full = read(&bytes, Detail::Full);
        let count = read(&bytes, Detail::Count);
        for plan in plans() {
            let want = handled(&plan, &full);
            let got = handled(&plan, &count);
            assert_eq!(format!("{want:?}"), format!("{got:?}"), "{plan:?}");
            diags += want.diags.len();
            // What `run` hands on, on one thread and on two, adds up to the same.
            for jobs in [1, 2] {
                let plan = Plan {
                    jobs,
                    chunk_bytes: 4096,
                    ..plan
                };
                let mut run_part = Part::default();
                run(
                    &plan,
                    Source::reader(&bytes[..]),
                    "f.pgn",
                    &mut |_| {},
                    &mut |p: Part| {
                        run_part.stats.merge(p.stats);
                        run_part.diags.extend(p.diags);
                        run_part.stopped |= p.stopped;
                        Ok::<(), ()>(())
                    },
                )
                .unwrap();
                assert_eq!(want.stats, run_part.stats, "{plan:?}");
                assert_eq!(want.diags, run_part.diags, "{plan:?}");
            }
        }
    }
    assert!(diags > 100, "the data has problems to report ({diags})");
}
