//! `rookery pgn filter` and `rookery pgn dedupe` against pgn-extract: the
//! same games kept as `pgn-extract -t` on tag criteria, the same duplicates
//! as `pgn-extract -D` (and `--fuzzydepth`) on a collection with duplicates
//! inserted at known places; kept games copied byte for byte.
//!
//! The collection is made here from the clean games of the repository's
//! test data (`crates/pgn/tests/data`), each given an `[Id "n"]` tag as its
//! first line so that a game can be followed through either program (both
//! keep unknown tags).

use crate::common::{rookery, s, text};
use rookery_pgn::copy::{copy_games, CopyPlan};
use rookery_pgn::game::Detail;
use rookery_pgn::{game_to_string, GameResult, Games};
use rookery_testkit::{peer, TempDir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The files the collection is made of (clean games, LF line ends).
const SOURCES: [&str; 11] = [
    "twic1599_10k.pgn",
    "lichess_db_10k.pgn",
    "kasparov-deep-blue-1997.pgn",
    "pe-fischer.pgn",
    "pe-bots.pgn",
    "pe-repetition.pgn",
    "pe-stalemate.pgn",
    "pe-checkmate.pgn",
    "pe-fifty.pgn",
    "pe-seventyfive.pgn",
    "nepomniachtchi-liren-game1.pgn",
];

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../pgn/tests/data")
        .join(name)
}

/// A game of the collection: its text (`[Id "n"]` first, one line end
/// last) and its mainline plies.
#[derive(Clone, Debug)]
struct Game {
    text: Vec<u8>,
    plies: usize,
}

/// `text` with the tag `[Id "id"]` first and one line end last.
fn with_id(id: usize, text: &[u8]) -> Vec<u8> {
    let mut t = format!("[Id \"{id}\"]\n").into_bytes();
    t.extend_from_slice(text.trim_ascii());
    t.push(b'\n');
    t
}

/// The games of `SOURCES` that read without an error and start with a
/// tag, as they are written, numbered from 1.
fn base() -> Vec<Game> {
    let mut games = Vec::new();
    for name in SOURCES {
        let bytes = std::fs::read(data(name)).unwrap();
        copy_games(
            &CopyPlan::default(),
            rookery_pgn::source::Source::reader(&bytes[..]),
            &|g, raw| {
                let clean = g.error.is_none() && raw.first() == Some(&b'[');
                (clean.then_some(g.plies), clean)
            },
            &mut |_| {},
            &mut |c| -> Result<bool, std::io::Error> {
                if let (Some(plies), Some(bytes)) = (c.value, c.bytes) {
                    games.push(Game {
                        text: bytes.to_vec(),
                        plies,
                    });
                }
                Ok(true)
            },
        )
        .unwrap();
    }
    for (i, g) in games.iter_mut().enumerate() {
        g.text = with_id(i + 1, &g.text);
    }
    assert!(games.len() > 80, "{} games", games.len());
    games
}

/// The games one after another, a blank line between two.
fn join(games: &[Game]) -> Vec<u8> {
    let texts: Vec<&[u8]> = games.iter().map(|g| &g.text[..]).collect();
    texts.join(&b"\n"[..])
}

/// The `Id` tags of the games of `pgn`, in order.
fn ids(pgn: &[u8]) -> Vec<usize> {
    text(pgn)
        .lines()
        .filter_map(|l| l.strip_prefix("[Id \"")?.strip_suffix("\"]")?.parse().ok())
        .collect()
}

/// Runs pgn-extract with `args` (`-s`: quiet) in `dir`.
fn pgn_extract(pe: &Path, dir: &Path, args: &[&str]) {
    let out = Command::new(pe)
        .arg("-s")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pgn-extract {args:?}: {}",
        text(&out.stderr)
    );
}

/// The ids of the games of `dir/in.pgn` (`total` of them) that pgn-extract
/// keeps for its tag criterion `criterion` (`-t`, the line of its criteria
/// file): some of them but not all, for a criterion that tells games
/// apart (`what` names it in the failure).
fn pgn_extract_keeps(
    pe: &Path,
    dir: &Path,
    criterion: &str,
    total: usize,
    what: &str,
) -> Vec<usize> {
    std::fs::write(dir.join("tags.txt"), format!("{criterion}\n")).unwrap();
    pgn_extract(pe, dir, &["-t", "tags.txt", "-o", "pe.pgn", "in.pgn"]);
    let kept = ids(&std::fs::read(dir.join("pe.pgn")).unwrap());
    assert!(
        !kept.is_empty() && kept.len() < total,
        "{what}: a criterion that tells games apart ({} kept)",
        kept.len()
    );
    kept
}

/// Criteria both programs read alike: rookery's `--tag`s, pgn-extract's
/// tag file (criteria on different tags must all hold in both).
const TAG_CRITERIA: [(&[&str], &str); 7] = [
    (&["WhiteElo>=2500"], "WhiteElo >= \"2500\""),
    (&["BlackElo<2000"], "BlackElo < \"2000\""),
    (&["Result=1-0"], "Result \"1-0\""),
    (
        &["WhiteElo>=2600", "BlackElo>=2600"],
        "WhiteElo >= \"2600\"\nBlackElo >= \"2600\"",
    ),
    (&["Date<1970"], "Date < \"1970\""),
    (
        &["Event=Rated Blitz game", "Result=0-1"],
        "Event \"Rated Blitz game\"\nResult \"0-1\"",
    ),
    (&["Round=6.1"], "Round \"6.1\""),
];

#[test]
fn filter_keeps_what_pgn_extract_t_keeps_byte_for_byte() {
    let Some(pe) = peer::pgn_extract() else {
        return;
    };
    let games = base();
    let dir = TempDir::new("pgn-filter-tags");
    let input = dir.write("in.pgn", join(&games));
    for (tags, file) in TAG_CRITERIA {
        let want = pgn_extract_keeps(&pe, dir.path(), file, games.len(), &format!("{tags:?}"));
        let mut args = vec!["pgn", "filter", s(&input), "-o", "kept.pgn"];
        for t in tags {
            args.extend(["--tag", t]);
        }
        crate::common::rookery_in(dir.path(), &args, b"").assert_code(0);
        let kept = std::fs::read(dir.join("kept.pgn")).unwrap();
        assert_eq!(ids(&kept), want, "{tags:?}");
        // The kept games exactly as they were written.
        let expected: Vec<Game> = want.iter().map(|&i| games[i - 1].clone()).collect();
        assert_eq!(text(&kept), text(&join(&expected)), "{tags:?}");
        // --count: the number alone; --invert: the others.
        args.extend(["--count"]);
        let counted = crate::common::rookery_in(dir.path(), &args, b"");
        counted.assert_stdout(&format!("{}\n", want.len()));
        args.pop();
        args[4] = "others.pgn";
        args.push("--invert");
        crate::common::rookery_in(dir.path(), &args, b"").assert_code(0);
        let others = ids(&std::fs::read(dir.join("others.pgn")).unwrap());
        assert_eq!(others.len() + want.len(), games.len(), "{tags:?}");
        assert!(others.iter().all(|i| !want.contains(i)), "{tags:?}");
    }
}

/// Dates known in part and ratings that are not a number alone (a
/// consultation game's `2690:2222`) are read as pgn-extract reads them:
/// rookery dropped the `1990.??.??` games pgn-extract keeps for
/// `Date >= "1990.06.15"`, and every `2690:2222`. (No full date here shares
/// a year with a criterion's day: pgn-extract 19 compares the years alone.)
#[test]
fn filter_reads_partial_dates_and_consultation_ratings_as_pgn_extract() {
    let Some(pe) = peer::pgn_extract() else {
        return;
    };
    let dates = [
        "1990.??.??",
        "1989.??.??",
        "1991.??.??",
        "????.??.??",
        "1991.03.02",
        "1985.07.01",
        "1990.??.??",
        "1990.06.??",
    ];
    let ratings = [
        "2690:2222",
        "2500:2700",
        "x2690",
        "2600",
        "-",
        "2601 ",
        "2450",
    ];
    let mut games = Vec::new();
    for (i, date) in dates.iter().enumerate() {
        for (j, elo) in ratings.iter().enumerate() {
            let black = ratings[(i + j) % ratings.len()];
            let text = format!(
                "[Event \"x\"]\n[Date \"{date}\"]\n[WhiteElo \"{elo}\"]\n[BlackElo \"{black}\"]\n\
                 [Result \"*\"]\n\n1. e4 e5 *\n"
            );
            games.push(with_id(games.len() + 1, text.as_bytes()));
        }
    }
    let dir = TempDir::new("pgn-filter-partial");
    let input = dir.write("in.pgn", games.join(&b"\n"[..]));
    let criteria: [(&str, &str); 7] = [
        ("Date>=1990.06.15", "Date >= \"1990.06.15\""),
        ("Date<=1990.06.15", "Date <= \"1990.06.15\""),
        ("Date>1990.06.15", "Date > \"1990.06.15\""),
        ("Date<1990", "Date < \"1990\""),
        ("WhiteElo>=2600", "WhiteElo >= \"2600\""),
        ("BlackElo<2600", "BlackElo < \"2600\""),
        ("WhiteElo=2690", "WhiteElo = \"2690\""),
    ];
    for (tag, file) in criteria {
        let want = pgn_extract_keeps(&pe, dir.path(), file, games.len(), tag);
        let run = crate::common::rookery_in(
            dir.path(),
            &["pgn", "filter", "--tag", tag, s(&input), "-o", "kept.pgn"],
            b"",
        );
        run.assert_code(0);
        assert_eq!(
            ids(&std::fs::read(dir.join("kept.pgn")).unwrap()),
            want,
            "{tag}"
        );
    }
}

#[test]
fn filter_content_criteria_and_normalize() {
    let games = base();
    let dir = TempDir::new("pgn-filter-content");
    let input = dir.write("in.pgn", join(&games));
    let kept = |extra: &[&str]| -> Vec<usize> {
        let mut args = vec!["pgn", "filter", s(&input)];
        args.extend(extra);
        ids(&rookery(&args, b"").assert_code(0).stdout)
    };
    let plies = |ids: &[usize]| -> Vec<usize> { ids.iter().map(|&i| games[i - 1].plies).collect() };
    // Every game of at most 20 plies, and no other.
    let short = kept(&["--plies", "..20"]);
    let want: Vec<usize> = (1..=games.len())
        .filter(|&i| games[i - 1].plies <= 20)
        .collect();
    assert_eq!(short, want);
    assert!(!short.is_empty() && plies(&short).iter().all(|&p| p <= 20));
    // Positions after 1. e4 c5 2. Nf3, whatever the order.
    let sicilian = kept(&["--moves", "1. e4 c5 2. Nf3"]);
    let any_order = kept(&["--moves", "1. e4 c5 2. Nf3", "--transpose"]);
    let by_fen = kept(&[
        "--position",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
    ]);
    assert!(!sicilian.is_empty());
    assert!(sicilian.iter().all(|i| any_order.contains(i)));
    assert!(any_order.iter().all(|i| by_fen.contains(i)));
    // The mates of the collection end their games; a mate is a 1-0 or 0-1.
    let mates = kept(&["--checkmate"]);
    assert!(!mates.is_empty());
    let decisive = kept(&["--checkmate", "--result", "1-0", "--result", "0-1"]);
    assert_eq!(mates, decisive);
    assert!(!kept(&["--stalemate"]).is_empty());
    // --normalize writes export format: the same games, read alike.
    let normal = rookery(
        &["pgn", "filter", s(&input), "--checkmate", "--normalize"],
        b"",
    );
    let normal = normal.assert_code(0).stdout.clone();
    assert_eq!(ids(&normal), mates);
    let copied = rookery(&["pgn", "filter", s(&input), "--checkmate"], b"");
    let moves = |pgn: &[u8]| -> Vec<String> {
        Games::new(pgn)
            .map(|g| {
                let g = g.unwrap().game;
                g.mainline_moves()
                    .map(|m| format!("{m:?}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert_eq!(moves(&normal), moves(&copied.stdout));
    assert_ne!(normal, copied.stdout);
    // On two threads with small pieces: the same bytes.
    for extra in [&["--checkmate"][..], &["--moves", "1. e4", "--normalize"]] {
        let mut one = vec!["pgn", "filter", s(&input)];
        one.extend(extra);
        let mut two = one.clone();
        two.extend(["--jobs", "2", "--chunk-bytes", "2000"]);
        let (one, two) = (rookery(&one, b""), rookery(&two, b""));
        assert_eq!(
            text(&one.assert_code(0).stdout),
            text(&two.assert_code(0).stdout)
        );
    }
}

/// The collection with duplicates inserted at known places: copies of
/// games (another Id and Event, a comment, the result left open) after
/// their originals, and, for `fuzzy`, games cut after `fuzzy + 3` plies.
/// Returns the collection and the Ids of the games inserted as
/// duplicates, each with the Id of its original.
fn with_duplicates(games: &[Game], fuzzy: Option<usize>) -> (Vec<Game>, Vec<(usize, usize)>) {
    let mut out: Vec<Game> = games.to_vec();
    let mut dups = Vec::new();
    let mut next = games.len() + 1;
    // Every seventh game, copied 5 to 30 games later.
    for (k, original) in games.iter().enumerate().step_by(7) {
        let id = k + 1;
        let read = Games::new(&original.text[..])
            .with_detail(Detail::Full)
            .next()
            .unwrap()
            .unwrap();
        let mut g = read.game;
        g.tags.insert("Id", next.to_string());
        g.tags.insert("Event", format!("copy of {id}"));
        match fuzzy {
            None => {
                if let Some(n) = g.mainline.nodes.first_mut() {
                    n.comments_after.push("inserted".into());
                }
            }
            Some(n) => {
                if g.mainline.nodes.len() < n + 4 {
                    continue;
                }
                g.mainline.nodes.truncate(n + 3);
                g.result = GameResult::Unknown;
                g.tags.insert("Result", "*".into());
            }
        }
        let copy = Game {
            text: game_to_string(&g).into_bytes(),
            plies: g.mainline.nodes.len(),
        };
        let at = (k + 1 + 5 + (k * 13) % 25).min(out.len());
        // Behind the games inserted before it, so the original stays first.
        let at = out
            .iter()
            .position(|o| ids(&o.text)[0] == id)
            .map_or(at, |p| at.max(p + 1));
        out.insert(at, copy);
        dups.push((next, id));
        next += 1;
    }
    // One final position by two orders of moves: not duplicates.
    for moves in [
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *",
        "1. Nf3 Nc6 2. e4 e5 3. Bb5 a6 *",
    ] {
        let t = format!("[Event \"transposed\"]\n\n{moves}\n");
        out.push(Game {
            text: with_id(next, t.as_bytes()),
            plies: 6,
        });
        next += 1;
    }
    (out, dups)
}

/// What `rookery pgn dedupe` and pgn-extract made of `in.pgn` in `dir`.
struct Dropped {
    /// The Ids of the duplicates rookery wrote.
    ours: Vec<usize>,
    /// The Ids of the duplicates pgn-extract wrote.
    theirs: Vec<usize>,
    /// The Ids of the games each kept.
    kept: (Vec<usize>, Vec<usize>),
    /// rookery's output.
    text: Vec<u8>,
}

/// Runs `rookery pgn dedupe` and pgn-extract (`-d`: the duplicates to a
/// file of their own, as `-D` leaves them out) on `in.pgn` in `dir`.
fn both_drop(pe: &Path, dir: &Path, fuzzy: Option<usize>) -> Dropped {
    let mut pe_args = vec!["-d", "pe-dups.pgn", "-o", "pe-kept.pgn"];
    let mut args = vec![
        "pgn",
        "dedupe",
        "in.pgn",
        "-o",
        "kept.pgn",
        "--duplicates",
        "dups.pgn",
    ];
    let n = fuzzy.map(|n| n.to_string()).unwrap_or_default();
    if fuzzy.is_some() {
        pe_args.extend(["--fuzzydepth", &n]);
        args.extend(["--fuzzy-ply", &n]);
    }
    pe_args.push("in.pgn");
    pgn_extract(pe, dir, &pe_args);
    crate::common::rookery_in(dir, &args, b"").assert_code(0);
    let read = |f: &str| ids(&std::fs::read(dir.join(f)).unwrap());
    Dropped {
        ours: read("dups.pgn"),
        theirs: read("pe-dups.pgn"),
        kept: (read("kept.pgn"), read("pe-kept.pgn")),
        text: std::fs::read(dir.join("kept.pgn")).unwrap(),
    }
}

/// The line each game of `games` starts on in `join(games)`, by Id.
fn start_lines(games: &[Game]) -> std::collections::HashMap<usize, usize> {
    let mut line = 1;
    let mut at = std::collections::HashMap::new();
    for g in games {
        at.insert(ids(&g.text)[0], line);
        line += text(&g.text).lines().count() + 1;
    }
    at
}

#[test]
fn dedupe_drops_what_pgn_extract_d_drops() {
    let Some(pe) = peer::pgn_extract() else {
        return;
    };
    let (games, inserted) = with_duplicates(&base(), None);
    let dir = TempDir::new("pgn-dedupe");
    let input = dir.write("in.pgn", join(&games));
    let Dropped {
        ours,
        theirs,
        kept: (kept_ids, their_kept),
        text: kept,
    } = both_drop(&pe, dir.path(), None);
    assert_eq!(ours, theirs);
    assert_eq!(kept_ids, their_kept);
    // Every inserted copy, in input order, found.
    let mut want: Vec<usize> = inserted.iter().map(|d| d.0).collect();
    let order = ids(&join(&games));
    want.sort_by_key(|id| order.iter().position(|o| o == id));
    assert!(want.iter().all(|i| ours.contains(i)), "{ours:?} {want:?}");
    // The kept games exactly as written.
    let kept_games: Vec<Game> = games
        .iter()
        .filter(|g| !ours.contains(&ids(&g.text)[0]))
        .cloned()
        .collect();
    assert_eq!(text(&kept), text(&join(&kept_games)));
    // --report: file:line of the kept game, then of the dropped one.
    let report = rookery(
        &[
            "pgn",
            "dedupe",
            s(&input),
            "-o",
            s(&dir.join("k2.pgn")),
            "--report",
            "-",
        ],
        b"",
    );
    let report = text(&report.assert_code(0).stdout);
    let lines = start_lines(&games);
    let line_of = |id: usize| lines[&id];
    let name = s(&input);
    for (dup, original) in &inserted {
        let pair = format!(
            "{name}:{}: duplicate of {name}:{}",
            line_of(*dup),
            line_of(*original)
        );
        assert!(report.lines().any(|l| l == pair), "{pair} not in\n{report}");
    }
    assert_eq!(report.lines().count(), ours.len(), "{report}");
    // Under a memory cap of a few keys, on disk: the same.
    let capped = dir.join("capped.pgn");
    let args = [
        "pgn",
        "dedupe",
        s(&input),
        "--memory",
        "1K",
        "--json",
        "-o",
        s(&capped),
    ];
    let run = rookery(&args, b"");
    let summary: serde_json::Value = serde_json::from_slice(&run.assert_code(0).stdout).unwrap();
    assert!(summary["spills"].as_u64() > Some(1), "{summary}");
    assert_eq!(summary["duplicates"].as_u64(), Some(ours.len() as u64));
    assert_eq!(text(&std::fs::read(&capped).unwrap()), text(&kept));
    // On two threads with small pieces: the same games kept.
    let run = rookery(
        &[
            "pgn",
            "dedupe",
            s(&input),
            "--jobs",
            "2",
            "--chunk-bytes",
            "3000",
        ],
        b"",
    );
    assert_eq!(text(&run.assert_code(0).stdout), text(&kept));
}

#[test]
fn dedupe_fuzzy_drops_what_pgn_extract_fuzzydepth_drops() {
    let Some(pe) = peer::pgn_extract() else {
        return;
    };
    const N: usize = 12;
    let base = base();
    let plies: Vec<usize> = base.iter().map(|g| g.plies).collect();
    let (games, inserted) = with_duplicates(&base, Some(N));
    let dir = TempDir::new("pgn-dedupe-fuzzy");
    dir.write("in.pgn", join(&games));
    let fuzzy = both_drop(&pe, dir.path(), Some(N));
    let exact = both_drop(&pe, dir.path(), None);
    assert_eq!(exact.ours, exact.theirs);
    // Every cut game is a duplicate under --fuzzy-ply, none without.
    assert!(
        inserted.iter().all(|d| fuzzy.ours.contains(&d.0)),
        "{:?} {inserted:?}",
        fuzzy.ours
    );
    assert!(inserted.iter().all(|d| !exact.ours.contains(&d.0)));
    // pgn-extract never takes a game shorter than N plies for a duplicate
    // under --fuzzydepth (it files such a game's key where it never looks);
    // rookery compares those whole, as without --fuzzy-ply. Past that, the
    // same duplicates.
    let short = |id: &usize| plies.get(id - 1).is_some_and(|&p| p < N);
    let ours: Vec<usize> = fuzzy.ours.iter().copied().filter(|i| !short(i)).collect();
    let theirs: Vec<usize> = fuzzy.theirs.iter().copied().filter(|i| !short(i)).collect();
    assert_eq!(ours, theirs);
    assert!(fuzzy.theirs.iter().all(|i| !short(i)));
    let ours_short: Vec<usize> = fuzzy.ours.iter().copied().filter(short).collect();
    let exact_short: Vec<usize> = exact.ours.iter().copied().filter(short).collect();
    assert_eq!(ours_short, exact_short);
    assert!(
        !ours_short.is_empty(),
        "the collection has a short game twice"
    );
}

#[test]
fn dedupe_same_tags() {
    let pgn = "[White \"a\"]\n[Date \"2020.01.01\"]\n\n1. e4 e5 *\n\n\
               [White \"a\"]\n[Date \"2020.01.02\"]\n\n1. e4 e5 *\n\n\
               [White \"a\"]\n[Date \"2020.01.01\"]\n[Event \"x\"]\n\n1. e4 {c} e5 1-0\n";
    let games = |args: &[&str]| -> usize {
        let mut a = vec!["pgn", "dedupe", "-"];
        a.extend(args);
        Games::new(&rookery(&a, pgn.as_bytes()).assert_code(0).stdout[..]).count()
    };
    assert_eq!(games(&[]), 1);
    assert_eq!(games(&["--same-tags", "White,Date"]), 2);
    assert_eq!(games(&["--same-tags", "White"]), 1);
}
