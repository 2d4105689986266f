//! `rookery db` (issue 47, first part): games imported once, the explorer
//! answered from the index.
//!
//! - the explorer from the index is `rookery pgn tree` over the same games,
//!   to the byte of its JSON, at several positions and depths;
//! - imports add to the database, `--dedupe` leaves out the games already
//!   there, a game with an error is named (file:line:col) and left out;
//! - an import killed with SIGKILL in the middle leaves the database as it
//!   was before it began (the index's runs it wrote are removed), and the
//!   next import works;
//! - an index written as many runs and segments, merged, answers exactly
//!   as one written at once; a damaged segment is named, never read.

use crate::common::{rookery_in, s, text, ROOKERY};
use rookery_testkit::TempDir;
use std::io::Write;
use std::process::{Command, Stdio};

/// One generated game: its text, its speed's lichess name, its rating
/// group (lichess's: the average of two ratings) and its month, worked
/// out here from what was written.
pub(crate) struct Generated {
    /// The game's PGN.
    pub(crate) text: String,
    speed: &'static str,
    group: Option<u32>,
    month: Option<(u32, u32)>,
    white: &'static str,
    black: &'static str,
    elo: [Option<u32>; 2],
    /// Year, month, day.
    date: Option<(u32, u32, u32)>,
    /// The mainline in UCI.
    pub(crate) ucis: Vec<String>,
}

/// The players of the generated games.
const NAMES: [&str; 5] = ["Alice", "Bob", "Carol", "Dave", "Eve"];

/// `n` games of pseudo-random legal moves (a fixed generator: the same
/// games every run), most of them through a few openings and their move
/// orders, so that positions repeat and transpose; random results (a few
/// unfinished), ratings (some missing), time controls and dates.
pub(crate) fn generated(n: usize) -> Vec<Generated> {
    use rookery_core::{Position, SanPlus};
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |k: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % k.max(1)
    };
    // Time controls with their speed by lichess's estimate (base + 40 x increment).
    const TCS: [(&str, &str); 6] = [
        ("60+0", "bullet"),
        ("180+2", "blitz"),
        ("300+0", "blitz"),
        ("600+5", "rapid"),
        ("1800+30", "classical"),
        ("-", "correspondence"),
    ];
    let mut out = Vec::new();
    for _ in 0..n {
        let mut pos = Position::startpos();
        let mut sans = Vec::new();
        let mut ucis = Vec::new();
        let plies = 4 + next(40);
        for ply in 0..plies {
            let legal: Vec<_> = pos.legal_moves().iter().copied().collect();
            if legal.is_empty() {
                break;
            }
            // The first plies from a few moves only: shared openings.
            let choices = if ply < 4 {
                legal.len().min(3)
            } else {
                legal.len()
            };
            let m = legal[next(choices)];
            sans.push(SanPlus::from_move(&pos, m).to_string());
            ucis.push(m.to_uci(&pos, rookery_core::CastlingMode::Standard));
            pos.play_unchecked(m);
        }
        let result = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "1/2-1/2", "*"][next(7)];
        let result = if pos.is_checkmate() {
            if pos.turn() == rookery_core::Color::White {
                "0-1"
            } else {
                "1-0"
            }
        } else if pos.legal_moves().is_empty() {
            "1/2-1/2"
        } else {
            result
        };
        let mut text = format!("[Result \"{result}\"]\n");
        let white_elo = (next(5) > 0).then(|| 800 + next(2000) as u32);
        let black_elo = (next(5) > 0).then(|| 800 + next(2000) as u32);
        for (tag, elo) in [("WhiteElo", white_elo), ("BlackElo", black_elo)] {
            if let Some(e) = elo {
                text.push_str(&format!("[{tag} \"{e}\"]\n"));
            }
        }
        let (speed, tc) = if next(8) == 0 {
            ("unknown", None)
        } else {
            let (tc, speed) = TCS[next(TCS.len())];
            (speed, Some(tc))
        };
        if let Some(tc) = tc {
            text.push_str(&format!("[TimeControl \"{tc}\"]\n"));
        }
        let date = (next(6) > 0).then(|| {
            (
                2023 + next(2) as u32,
                1 + next(12) as u32,
                1 + next(28) as u32,
            )
        });
        let month = date.map(|(y, m, _)| (y, m));
        match date {
            Some((y, m, d)) => text.push_str(&format!("[Date \"{y}.{m:02}.{d:02}\"]\n")),
            None => text.push_str("[Date \"????.??.??\"]\n"),
        }
        let white = NAMES[next(NAMES.len())];
        let black = NAMES[next(NAMES.len())];
        text.push_str(&format!("[White \"{white}\"]\n[Black \"{black}\"]\n"));
        let group = white_elo.zip(black_elo).map(|(w, b)| {
            let avg = (w + b) / 2;
            *[0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500]
                .iter()
                .rev()
                .find(|&&g| avg >= g)
                .unwrap()
        });
        text.push('\n');
        for (i, san) in sans.iter().enumerate() {
            if i % 2 == 0 {
                text.push_str(&format!("{}. ", i / 2 + 1));
            }
            text.push_str(san);
            text.push(' ');
        }
        text.push_str(result);
        text.push_str("\n\n");
        out.push(Generated {
            text,
            speed,
            group,
            month,
            white,
            black,
            elo: [white_elo, black_elo],
            date,
            ucis,
        });
    }
    out
}

/// Plays the move `uci` (in UCI), which must be legal, in `pos`.
pub(crate) fn play_uci(pos: &mut rookery_core::Position, uci: &str) {
    let m = uci
        .parse::<rookery_core::UciMove>()
        .unwrap()
        .to_move(pos)
        .unwrap();
    pos.play_unchecked(m);
}

/// The text of `n` generated games.
pub(crate) fn games(n: usize) -> String {
    generated(n).into_iter().map(|g| g.text).collect()
}

/// The explorer's JSON from the database and from `pgn tree` at `fen`.
fn both(t: &TempDir, db: &str, pgn: &str, fen: &str, depth: &str) -> (String, String) {
    let from_db = rookery_in(
        t.path(),
        &[
            "db", "explore", db, "--fen", fen, "--depth", depth, "--json",
        ],
        b"",
    );
    assert_eq!(from_db.status.code(), Some(0), "{}", text(&from_db.stderr));
    let from_pgn = rookery_in(
        t.path(),
        &[
            "pgn", "tree", pgn, "--fen", fen, "--depth", depth, "--json", "-q",
        ],
        b"",
    );
    (text(&from_db.stdout), text(&from_pgn.stdout))
}

#[test]
fn the_explorer_from_the_index_is_pgn_trees() {
    let t = TempDir::new("db-explore");
    let db = t.join("games.rdb");
    let pgn = t.write("games.pgn", games(3000));
    let import = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn)], b"");
    assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
    assert!(
        text(&import.stdout).contains("3000 games stored"),
        "{}",
        text(&import.stdout)
    );
    // The start, and the positions of the first moves most played, a few
    // plies deep: the tree's every position is looked up in the index.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (from_db, from_pgn) = both(&t, s(&db), s(&pgn), start, "4");
    assert_eq!(from_db, from_pgn, "at the start");
    let tree: serde_json::Value = serde_json::from_str(&from_db).unwrap();
    assert_eq!(tree["games"], 3000, "{tree}");
    // Deeper down, by moves played: the database's `--play` beside `pgn
    // tree --fen` at the position those moves reach.
    let mut checked = 0;
    for b in tree["moves"].as_array().unwrap().iter().take(3) {
        for c in b["moves"].as_array().unwrap().iter().take(2) {
            let line = [b["uci"].as_str().unwrap(), c["uci"].as_str().unwrap()];
            let mut pos = rookery_core::Position::startpos();
            for u in line {
                play_uci(&mut pos, u);
            }
            let played = rookery_in(
                t.path(),
                &[
                    "db",
                    "explore",
                    s(&db),
                    "--play",
                    &line.join(","),
                    "--depth",
                    "3",
                    "--json",
                ],
                b"",
            );
            let (_, from_pgn) = both(&t, s(&db), s(&pgn), &pos.fen(), "3");
            assert_eq!(text(&played.stdout), from_pgn, "after {line:?}");
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked} positions checked");
    // --play reaches the same position as its FEN.
}

#[test]
fn imports_add_dedupe_and_name_bad_games() {
    let t = TempDir::new("db-import");
    let db = t.join("g.rdb");
    let pgn = t.write(
        "few.pgn",
        "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
         [White \"C\"]\n[Black \"D\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n\
         [White \"E\"]\n[Black \"F\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n",
    );
    let first = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn)], b"");
    // The illegal 2. Ke3 is an error at its line and column; the rest is stored.
    assert_eq!(first.status.code(), Some(1), "{}", text(&first.stderr));
    assert!(
        text(&first.stderr).contains("few.pgn:11:"),
        "{}",
        text(&first.stderr)
    );
    assert!(
        text(&first.stdout).contains("2 games stored"),
        "{}",
        text(&first.stdout)
    );
    let again = rookery_in(
        t.path(),
        &["db", "import", s(&db), s(&pgn), "--dedupe", "-q"],
        b"",
    );
    assert!(
        text(&again.stdout).contains("0 games stored, 2 duplicates left out"),
        "{}",
        text(&again.stdout)
    );
    let twice = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
    assert!(
        text(&twice.stdout).contains("2 games stored"),
        "{}",
        text(&twice.stdout)
    );
    let info = rookery_in(t.path(), &["db", "info", s(&db), "--json"], b"");
    let v: serde_json::Value = serde_json::from_str(&text(&info.stdout)).unwrap();
    assert_eq!(v["games"], 4);
    assert_eq!(v["imports"].as_array().unwrap().len(), 3);
    // A database that is not there is not made by asking it.
    let none = rookery_in(t.path(), &["db", "explore", "missing.rdb"], b"");
    assert_eq!(none.status.code(), Some(2));
    assert!(!t.join("missing.rdb").exists());
}

#[test]
fn a_killed_import_leaves_the_database_as_it_was() {
    let t = TempDir::new("db-kill");
    let db = t.join("g.rdb");
    let small = t.write("one.pgn", "[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n");
    let first = rookery_in(t.path(), &["db", "import", s(&db), s(&small)], b"");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let before = rookery_in(t.path(), &["db", "explore", s(&db), "--json"], b"");
    // An import from a pipe that stays open: every game is read, and the
    // import waits for more, in the middle of its transaction.
    // Runs of 500 positions: the import has written index segments when
    // it is killed, which no list names.
    let mut child = Command::new(ROOKERY)
        .args(["db", "import", s(&db), "-", "--run-positions", "500"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Over 2 MiB: a stream is read in pieces of 1 MiB, so that the pieces
    // before the last are counted and written as runs.
    let games = games(3000).repeat(3);
    assert!(games.len() > 2 << 20, "{} bytes", games.len());
    let mut stdin = child.stdin.take().unwrap();
    // A pipe holds 64 KiB: when this returns, the import has read the rest.
    stdin.write_all(games.as_bytes()).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the import ended early"
    );
    let index = t.join("g.rdb.index");
    let files = || std::fs::read_dir(&index).unwrap().count();
    assert!(files() > 1, "the import wrote no run before it was killed");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    drop(stdin);
    let info = rookery_in(t.path(), &["db", "info", s(&db), "--json"], b"");
    assert_eq!(info.status.code(), Some(0), "{}", text(&info.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&info.stdout)).unwrap();
    assert_eq!(v["games"], 1, "{v}");
    assert_eq!(v["segments"], 1, "{v}");
    assert_eq!(files(), 1, "the killed import's runs are still there");
    let after = rookery_in(t.path(), &["db", "explore", s(&db), "--json"], b"");
    assert_eq!(text(&after.stdout), text(&before.stdout));
    // And the database takes the next import.
    let next = rookery_in(t.path(), &["db", "import", s(&db), s(&small), "-q"], b"");
    assert_eq!(next.status.code(), Some(0), "{}", text(&next.stderr));
}

/// The explorer's answers (counts, moves, top and recent games, by
/// bucket) at `fens`, from database `db`.
pub(crate) fn answers(t: &TempDir, db: &str, fens: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for fen in fens {
        for extra in [
            &["--depth", "2", "--json"][..],
            &["--lichess", "--top-games", "15", "--recent-games", "15"],
            &["--json", "--speeds", "blitz,rapid"],
        ] {
            let mut args = vec!["db", "explore", db, "--fen", fen.as_str()];
            args.extend_from_slice(extra);
            let o = rookery_in(t.path(), &args, b"");
            assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
            out.push(text(&o.stdout));
        }
    }
    out
}

/// The index written as one run and as many: many small runs of each
/// import merged at its end, and eight imports whose segments are merged
/// once there are more than the index keeps. Every answer is the same,
/// and the merged index has few segments.
#[test]
fn runs_and_merged_segments_answer_as_one_index() {
    let t = TempDir::new("db-runs");
    let all = generated(800);
    let whole = t.write(
        "all.pgn",
        all.iter().map(|g| g.text.as_str()).collect::<String>(),
    );
    let one = t.join("one.rdb");
    let o = rookery_in(t.path(), &["db", "import", s(&one), s(&whole)], b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let many = t.join("many.rdb");
    for (i, part) in all.chunks(100).enumerate() {
        let f = t.write(
            &format!("part{i}.pgn"),
            part.iter().map(|g| g.text.as_str()).collect::<String>(),
        );
        let o = rookery_in(
            t.path(),
            &[
                "db",
                "import",
                s(&many),
                s(&f),
                "--run-positions",
                "700",
                "-j",
                "2",
            ],
            b"",
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    }
    let info = rookery_in(t.path(), &["db", "info", s(&many), "--json"], b"");
    let v: serde_json::Value = serde_json::from_str(&text(&info.stdout)).unwrap();
    assert_eq!(v["games"], 800, "{v}");
    let segments = v["segments"].as_u64().unwrap();
    assert!((1..=6).contains(&segments), "{v}");
    // The start, a position of a few games, one of one game, one of none.
    let mut fens = vec!["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string()];
    let mut pos = rookery_core::Position::startpos();
    for (i, uci) in all[7].ucis.iter().enumerate() {
        play_uci(&mut pos, uci);
        if [2, 5, 30].contains(&i) {
            fens.push(rookery_core::Fen::from_position(&pos).to_string());
        }
    }
    fens.push("8/8/8/4k3/8/8/8/4K2R w K - 0 1".to_string());
    assert_eq!(answers(&t, s(&many), &fens), answers(&t, s(&one), &fens));
}

/// A byte changed in the index's segment file: the explorer names the
/// file and says it is damaged, and answers nothing from it.
#[test]
fn a_damaged_segment_is_named() {
    let t = TempDir::new("db-damage");
    let db = t.join("g.rdb");
    let pgn = t.write("g.pgn", games(300));
    let o = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn)], b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let seg = std::fs::read_dir(t.join("g.rdb.index"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&seg).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0x10;
    std::fs::write(&seg, &bytes).unwrap();
    let o = rookery_in(t.path(), &["db", "explore", s(&db), "--depth", "3"], b"");
    assert_ne!(o.status.code(), Some(0));
    let err = text(&o.stderr);
    let name = seg.file_name().unwrap().to_str().unwrap();
    assert!(err.contains(name) && err.contains("damaged"), "{err}");
    assert!(text(&o.stdout).is_empty(), "{}", text(&o.stdout));
}

/// `db search` exits 1 when no game passes, as grep; a database it
/// cannot read (not a database, cut short) is an error naming the file
/// with exit status 2, never read as "no game found".
#[test]
fn a_search_that_fails_is_not_an_empty_answer() {
    let t = TempDir::new("db-search-fails");
    let db = t.join("g.rdb");
    let pgn = t.write("g.pgn", games(50));
    let o = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn)], b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let search = |db: &std::path::Path| {
        rookery_in(
            t.path(),
            &["db", "search", s(db), "--player", "nobody", "--count"],
            b"",
        )
    };
    let none = search(&db);
    assert_eq!(none.status.code(), Some(1), "{}", text(&none.stderr));
    assert_eq!(text(&none.stdout).trim(), "0");
    let bytes = std::fs::read(&db).unwrap();
    let junk = t.write("junk.rdb", "not a database\n");
    let cut = t.join("cut.rdb");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    for bad in [junk, cut] {
        let o = search(&bad);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", bad.display());
        let name = bad.file_name().unwrap().to_str().unwrap();
        assert!(err.contains(name), "{err}");
        assert!(text(&o.stdout).is_empty(), "{}", text(&o.stdout));
    }
}

/// `db search` keeps the games `pgn filter` keeps, criterion by criterion,
/// on the same games (numbers printed, `--count`, `--pgn`); none kept is
/// exit status 1, as grep's.
#[test]
fn search_keeps_what_pgn_filter_keeps() {
    let t = TempDir::new("db-search");
    let db = t.join("g.rdb");
    let pgn = t.write("games.pgn", games(1500));
    let import = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
    assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
    let mut kept_some = 0;
    for test in [
        &["--result", "1-0"][..],
        &["--elo", "2000..2500"],
        &["--plies", "10..20"],
        &["--moves", "1. e4", "--transpose"],
        &["--material", "KQk"],
        &["--checkmate"],
        &["--elo", "1500.."],
        &["--result", "*", "--invert"],
        &["--date", "2023.03..2023.09"],
        &["--date", "2024"],
        &["--tag", "WhiteElo>=1800"],
        &["--tag", "Date<2023.06.15", "--result", "1/2-1/2"],
        &["--tag", "White~^[a-c]"],
        &["--elo", "1200..1900", "--plies", "..30", "--invert"],
        &[
            "--position",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ],
        // Players (found through the players table), with other tests.
        &["--player", "AL"],
        &["--player", "e", "--result", "1-0"],
        &["--player", "carol", "--player", "dave", "--elo", "1500.."],
        &["--player", "bob", "--invert"],
    ] {
        let count = |verb: &[&str]| {
            let run = rookery_in(t.path(), &[verb, test, &["--count"]].concat(), b"");
            text(&run.stdout).trim().parse::<u64>().unwrap_or_else(|_| {
                panic!(
                    "{verb:?} {test:?}: {} {}",
                    text(&run.stdout),
                    text(&run.stderr)
                )
            })
        };
        let from_db = count(&["db", "search", s(&db)]);
        let from_filter = count(&["pgn", "filter", s(&pgn), "-q"]);
        assert_eq!(from_db, from_filter, "{test:?}");
        if from_db > 0 {
            kept_some += 1;
            let listed = rookery_in(
                t.path(),
                &[&["db", "search", s(&db)][..], test].concat(),
                b"",
            );
            assert_eq!(listed.status.code(), Some(0));
            assert_eq!(
                text(&listed.stdout).lines().count() as u64,
                from_db,
                "{test:?}"
            );
            let games = rookery_in(
                t.path(),
                &[&["db", "search", s(&db)][..], test, &["--pgn"]].concat(),
                b"",
            );
            let again = rookery_in(t.path(), &["pgn", "stats", "-", "--json"], &games.stdout);
            let v: serde_json::Value = serde_json::from_str(&text(&again.stdout)).unwrap();
            assert_eq!(v["games"], from_db, "{test:?}");
        }
    }
    assert!(kept_some >= 10, "only {kept_some} tests kept a game");
    let none = rookery_in(
        t.path(),
        &["db", "search", s(&db), "--player", "nobody"],
        b"",
    );
    assert_eq!(none.status.code(), Some(1));
    assert!(text(&none.stdout).is_empty());
}

/// `db explore --lichess` answers in the shape of lichess's opening
/// explorer (what a client written for it reads: `white`, `draws`,
/// `black`, `moves[].uci/san/averageRating/white/draws/black`, `topGames`,
/// `opening.eco/name`), with the numbers `pgn tree` counts and the opening
/// `pgn eco` names after the line played.
#[test]
fn the_lichess_shape_has_pgn_trees_numbers() {
    let t = TempDir::new("db-lichess");
    let db = t.join("g.rdb");
    let pgn = t.write("games.pgn", games(800));
    rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
    let tree: serde_json::Value = serde_json::from_str(&text(
        &rookery_in(t.path(), &["pgn", "tree", s(&pgn), "--json", "-q"], b"").stdout,
    ))
    .unwrap();
    let first = tree["moves"][0]["uci"].as_str().unwrap();
    let lichess = rookery_in(
        t.path(),
        &["db", "explore", s(&db), "--play", first, "--lichess"],
        b"",
    );
    let v: serde_json::Value = serde_json::from_str(&text(&lichess.stdout)).unwrap();
    let after: serde_json::Value = serde_json::from_str(&text(
        &rookery_in(
            t.path(),
            &["db", "explore", s(&db), "--play", first, "--json"],
            b"",
        )
        .stdout,
    ))
    .unwrap();
    for k in ["white", "draws", "black"] {
        assert_eq!(v[k], after[k], "{k}");
    }
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), after["moves"].as_array().unwrap().len());
    for (m, b) in moves.iter().zip(after["moves"].as_array().unwrap()) {
        for k in ["uci", "san", "white", "draws", "black"] {
            assert_eq!(m[k], b[k], "{k}");
        }
        assert_eq!(m["averageRating"], b["average_elo"]);
        // A move's game is named when one game only played it.
        assert_eq!(m["game"].is_null(), b["games"] != 1, "{m}");
    }
    assert!(v["topGames"].as_array().is_some());
    // The opening: what `pgn eco` names a game of that one move.
    let san = tree["moves"][0]["san"].as_str().unwrap();
    let named = rookery_in(
        t.path(),
        &["pgn", "eco", "-"],
        format!("[Event \"x\"]\n\n1. {san} *\n").as_bytes(),
    );
    let eco_tag = text(&named.stdout).lines().find_map(|l| {
        l.strip_prefix("[Opening \"")
            .map(|r| r.trim_end_matches("\"]").to_string())
    });
    assert_eq!(
        v["opening"]["name"].as_str().map(str::to_string),
        eco_tag,
        "{v}"
    );
}

/// The explorer limited to some speeds, rating groups and months counts
/// the games of those buckets only: `db explore --speeds --ratings --since
/// --until` is `pgn tree` over the games in them (chosen here from what was
/// generated, not by rookery).
#[test]
fn buckets_limit_the_explorer_to_their_games() {
    let t = TempDir::new("db-buckets");
    let db = t.join("g.rdb");
    let all = generated(3000);
    let pgn = t.write(
        "games.pgn",
        all.iter().map(|g| g.text.as_str()).collect::<String>(),
    );
    rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for (flags, keep) in [
        (
            vec!["--speeds", "blitz,rapid"],
            Box::new(|g: &Generated| ["blitz", "rapid"].contains(&g.speed))
                as Box<dyn Fn(&Generated) -> bool>,
        ),
        (
            vec!["--speeds", "unknown,correspondence"],
            Box::new(|g: &Generated| ["unknown", "correspondence"].contains(&g.speed)),
        ),
        (
            vec!["--ratings", "1400,1600"],
            Box::new(|g: &Generated| matches!(g.group, Some(1400 | 1600))),
        ),
        (
            vec!["--since", "2023-07", "--until", "2024-03"],
            Box::new(|g: &Generated| {
                g.month
                    .is_some_and(|(y, m)| (y, m) >= (2023, 7) && (y, m) <= (2024, 3))
            }),
        ),
        (
            vec![
                "--speeds",
                "blitz",
                "--ratings",
                "1200,1400,1600,1800",
                "--since",
                "2024-01",
            ],
            Box::new(|g: &Generated| {
                g.speed == "blitz"
                    && matches!(g.group, Some(1200 | 1400 | 1600 | 1800))
                    && g.month.is_some_and(|(y, _)| y >= 2024)
            }),
        ),
    ] {
        let subset: String = all
            .iter()
            .filter(|g| keep(g))
            .map(|g| g.text.as_str())
            .collect();
        let n = all.iter().filter(|g| keep(g)).count();
        assert!(n > 20, "{flags:?}: only {n} games");
        let part = t.write("part.pgn", subset);
        let from_db = rookery_in(
            t.path(),
            &[
                &["db", "explore", s(&db), "--depth", "2", "--json"][..],
                &flags,
            ]
            .concat(),
            b"",
        );
        assert_eq!(from_db.status.code(), Some(0), "{}", text(&from_db.stderr));
        let from_pgn = rookery_in(
            t.path(),
            &[
                "pgn",
                "tree",
                s(&part),
                "--fen",
                start,
                "--depth",
                "2",
                "--json",
                "-q",
            ],
            b"",
        );
        assert_eq!(text(&from_db.stdout), text(&from_pgn.stdout), "{flags:?}");
        let v: serde_json::Value = serde_json::from_str(&text(&from_db.stdout)).unwrap();
        assert_eq!(v["games"], n, "{flags:?}");
    }
    let bad = rookery_in(
        t.path(),
        &["db", "explore", s(&db), "--speeds", "fast"],
        b"",
    );
    assert_eq!(bad.status.code(), Some(2));
}

/// The games (their numbers, from 1: the order of import) that played a
/// move from `target`, each with the move (the last it played from there,
/// in UCI), found by replaying every generated game here.
fn through(all: &[Generated], target: &rookery_core::Position) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    for (i, g) in all.iter().enumerate() {
        let mut pos = rookery_core::Position::startpos();
        let mut last = None;
        for u in &g.ucis {
            if pos.hash() == target.hash() {
                last = Some(u.clone());
            }
            play_uci(&mut pos, u);
        }
        if let Some(u) = last {
            out.push((i as u64 + 1, u));
        }
    }
    out
}

/// `db explore --lichess` lists the top games (the highest ratings' sum,
/// both known; then the lower number) and the recent games (the latest
/// date, then the higher number) through a position, each with the move it
/// played there, and a move's game when one game only played it: the lists
/// a pass over the generated games finds, with and without a bucket filter,
/// at the start, on the way and deep down where few games go.
#[test]
fn top_and_recent_games_are_those_of_a_pass_over_the_games() {
    let t = TempDir::new("db-games");
    let db = t.join("g.rdb");
    let all = generated(2500);
    let pgn = t.write(
        "games.pgn",
        all.iter().map(|g| g.text.as_str()).collect::<String>(),
    );
    let import = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
    assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
    let mut lines: Vec<Vec<String>> = vec![vec![]];
    for g in all.iter().filter(|g| g.ucis.len() >= 8).take(3) {
        lines.push(g.ucis[..2].to_vec());
        lines.push(g.ucis[..7].to_vec());
    }
    let mut singles = 0;
    for line in &lines {
        let mut target = rookery_core::Position::startpos();
        for u in line {
            play_uci(&mut target, u);
        }
        for (n, flags, keep) in [
            (
                4,
                vec![],
                Box::new(|_: &Generated| true) as Box<dyn Fn(&Generated) -> bool>,
            ),
            (
                15,
                vec!["--top-games", "15", "--recent-games", "15"],
                Box::new(|_: &Generated| true),
            ),
            (
                9,
                vec![
                    "--top-games",
                    "9",
                    "--recent-games",
                    "9",
                    "--speeds",
                    "blitz",
                ],
                Box::new(|g: &Generated| g.speed == "blitz"),
            ),
        ] {
            let games: Vec<(u64, String)> = through(&all, &target)
                .into_iter()
                .filter(|(id, _)| keep(&all[*id as usize - 1]))
                .collect();
            let g = |id: u64| &all[id as usize - 1];
            let mut top: Vec<&(u64, String)> = games
                .iter()
                .filter(|(id, _)| g(*id).elo.iter().all(Option::is_some))
                .collect();
            top.sort_by_key(|(id, _)| {
                let sum: u32 = g(*id).elo.iter().flatten().sum();
                (std::cmp::Reverse(sum), *id)
            });
            let mut recent: Vec<&(u64, String)> = games.iter().collect();
            recent
                .sort_by_key(|(id, _)| std::cmp::Reverse((g(*id).date.unwrap_or((0, 0, 0)), *id)));
            let run = rookery_in(
                t.path(),
                &[
                    &[
                        "db",
                        "explore",
                        s(&db),
                        "--lichess",
                        "--play",
                        &line.join(","),
                    ][..],
                    &flags,
                ]
                .concat(),
                b"",
            );
            assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
            let v: serde_json::Value = serde_json::from_str(&text(&run.stdout)).unwrap();
            let listed = |k: &str| -> Vec<(u64, String)> {
                v[k].as_array()
                    .unwrap()
                    .iter()
                    .map(|x| {
                        (
                            x["id"].as_str().unwrap().parse().unwrap(),
                            x["uci"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect()
            };
            let want = |l: Vec<&(u64, String)>| l.into_iter().take(n).cloned().collect::<Vec<_>>();
            assert_eq!(listed("topGames"), want(top), "{line:?} {flags:?}");
            assert_eq!(listed("recentGames"), want(recent), "{line:?} {flags:?}");
            // A game as lichess lists one: the players and their ratings, the
            // month, the winner.
            for x in v["recentGames"].as_array().unwrap() {
                let id: u64 = x["id"].as_str().unwrap().parse().unwrap();
                let game = g(id);
                assert_eq!(x["white"]["name"], game.white, "{x}");
                assert_eq!(x["black"]["name"], game.black, "{x}");
                assert_eq!(
                    x["white"]["rating"].as_u64(),
                    game.elo[0].map(u64::from),
                    "{x}"
                );
                assert_eq!(
                    x["month"].as_str().map(str::to_string),
                    game.date.map(|(y, m, _)| format!("{y}-{m:02}")),
                    "{x}"
                );
                let result = game.text.split("[Result \"").nth(1).unwrap();
                let winner = match &result[..3] {
                    "1-0" => Some("white"),
                    "0-1" => Some("black"),
                    _ => None,
                };
                assert_eq!(x["winner"].as_str(), winner, "{x}");
            }
            // A move one game only played names that game.
            for m in v["moves"].as_array().unwrap() {
                let of_move: Vec<u64> = games
                    .iter()
                    .filter(|(_, u)| m["uci"] == u.as_str())
                    .map(|(id, _)| *id)
                    .collect();
                if of_move.len() == 1 {
                    singles += 1;
                    assert_eq!(m["game"]["id"], of_move[0].to_string(), "{m}");
                } else {
                    assert!(m["game"].is_null(), "{m}");
                }
            }
        }
    }
    assert!(singles > 5, "only {singles} moves played once");
}

/// `db explore --player NAME --color white|black` is `pgn tree` over the
/// games `pgn filter` finds of that player with that colour (the name
/// given in another case).
#[test]
fn a_players_repertoire_is_pgn_tree_over_their_games() {
    let t = TempDir::new("db-player");
    let db = t.join("g.rdb");
    let pgn = t.write("games.pgn", games(1500));
    rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
    for (name, asked, color, tag) in [
        ("Alice", "alice", "white", "White"),
        ("Dave", "DAVE", "black", "Black"),
    ] {
        let theirs = rookery_in(
            t.path(),
            &[
                "pgn",
                "filter",
                s(&pgn),
                "--tag",
                &format!("{tag}={name}"),
                "-q",
            ],
            b"",
        );
        assert_eq!(theirs.status.code(), Some(0), "{}", text(&theirs.stderr));
        let part = t.write("part.pgn", text(&theirs.stdout));
        let from_pgn = rookery_in(
            t.path(),
            &["pgn", "tree", s(&part), "--depth", "3", "--json", "-q"],
            b"",
        );
        // `db explore` of the player's games in that colour, in `shape`.
        let explore = |shape: &[&str]| {
            let player = ["db", "explore", s(&db), "--player", asked, "--color", color];
            rookery_in(t.path(), &[&player[..], shape].concat(), b"")
        };
        let from_db = explore(&["--depth", "3", "--json"]);
        assert_eq!(from_db.status.code(), Some(0), "{}", text(&from_db.stderr));
        assert_eq!(
            text(&from_db.stdout),
            text(&from_pgn.stdout),
            "{name} {color}"
        );
        let v: serde_json::Value = serde_json::from_str(&text(&from_db.stdout)).unwrap();
        assert!(v["games"].as_u64().unwrap() > 100, "{v}");
        // lichess's /player shape: the same counts.
        let l = explore(&["--lichess"]);
        let l: serde_json::Value = serde_json::from_str(&text(&l.stdout)).unwrap();
        for k in ["white", "draws", "black"] {
            assert_eq!(l[k], v[k], "{k}");
        }
        assert_eq!(
            l["moves"].as_array().unwrap().len(),
            v["moves"].as_array().unwrap().len()
        );
        assert!(l["recentGames"].as_array().unwrap().len() == 4, "{l}");
    }
}
