//! `rookery db search` by a scan of the stored moves (issue 47, position
//! search):
//!
//! - `--material` and `--position` (now answered by the scan) find the
//!   games `pgn filter` finds over the same PGN, on one thread and on two;
//! - `--sub-fen`, `--imbalance`, `--stm`, `--move` and `--material` held at
//!   once find the games and the plies a python-chess computation finds
//!   (tests/python/scan_check.py), with header tests beside them;
//! - a bad sub-FEN or imbalance is a usage error naming the value.

use crate::common::{rookery_in, s, text};
use crate::db_cli::games;
use rookery_testkit::TempDir;
use std::path::Path;
use std::process::Command;

const CHECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/scan_check.py");

/// Real games: every tenth game of TWIC 920.
const TWIC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/eco/twic0920-every10th.pgn"
);

/// A database of the generated games then TWIC's, and the generated
/// games' file.
fn database(t: &TempDir) -> (String, String) {
    let db = t.join("g.rdb");
    let pgn = t.write("games.pgn", games(1200));
    let import = rookery_in(
        t.path(),
        &["db", "import", s(&db), s(&pgn), TWIC, "-q"],
        b"",
    );
    assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
    (s(&db).to_owned(), s(&pgn).to_owned())
}

/// What scan_check.py finds for `query` over `files`.
fn python(query: &serde_json::Value, files: &[&str]) -> String {
    let o = Command::new("python3")
        .arg(CHECK)
        .arg(query.to_string())
        .args(files)
        .current_dir(Path::new(CHECK).parent().unwrap())
        .output()
        .expect("run python3");
    assert!(
        o.status.success(),
        "scan_check.py {query} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The flags of a query in scan_check.py's JSON.
fn flags(query: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for (key, flag) in [
        ("sub-fen", "--sub-fen"),
        ("material", "--material"),
        ("imbalance", "--imbalance"),
        ("move", "--move"),
        ("result", "--result"),
    ] {
        for v in query[key].as_array().into_iter().flatten() {
            out.push(flag.to_owned());
            out.push(v.as_str().unwrap().to_owned());
        }
    }
    for key in ["stm", "moved", "captured"] {
        if let Some(v) = query[key].as_str() {
            out.push(format!("--{key}"));
            out.push(v.into());
        }
    }
    match query["result-type"].as_str() {
        Some("mate") => out.push("--checkmate".into()),
        Some("stalemate") => out.push("--stalemate".into()),
        _ => {}
    }
    out
}

/// `db search` with `args` prints `want` (and exits 0, or 1 when it is
/// empty) on one thread and on two, and counts its lines with `--count`.
fn answers_as(dir: &Path, args: &[String], want: &str, q: &serde_json::Value) {
    for jobs in ["1", "2"] {
        let run = rookery_in(dir, &[args, &["--jobs".into(), jobs.into()]].concat(), b"");
        assert_eq!(
            text(&run.stdout),
            want,
            "{q} --jobs {jobs}: {}",
            text(&run.stderr)
        );
        let status = if want.is_empty() { 1 } else { 0 };
        assert_eq!(run.status.code(), Some(status), "{q}");
    }
    let count = rookery_in(dir, &[args, &["--count".into()]].concat(), b"");
    assert_eq!(
        text(&count.stdout).trim(),
        want.lines().count().to_string(),
        "{q}"
    );
}

#[test]
fn material_and_position_by_the_scan_are_pgn_filters() {
    let t = TempDir::new("db-scan-filter");
    let (db, pgn) = database(&t);
    let both = [pgn.as_str(), TWIC];
    let mut kept_some = 0;
    for test in [
        &["--material", "KQk"][..],
        &["--material", "KRPkr", "--material", "KQRkqr"],
        &["--material", "KRRBBNNPPPPPPkrrbbnnpppppp"],
        &["--material", "KQRRBBNNPPPPPPPvKQRRBBNNPPPPPPP"],
        &["--material", "KPk"],
        &[
            "--position",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ],
        &[
            "--position",
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            "--material",
            "KQRRBBNNPPPPPPPkqrrbbnnppppppp",
        ],
        &[
            "--material",
            "KQRRBBNNPPPPPPkqrrbbnnpppppp",
            "--result",
            "1-0",
        ],
        &["--material", "KRPPkrp", "--elo", "1500.."],
    ] {
        let from_filter = rookery_in(
            t.path(),
            &[&["pgn", "filter"][..], &both, test, &["-q", "--count"]].concat(),
            b"",
        );
        let want: u64 = text(&from_filter.stdout).trim().parse().unwrap();
        for jobs in ["1", "2"] {
            let run = rookery_in(
                t.path(),
                &[
                    &["db", "search", db.as_str()][..],
                    test,
                    &["--count", "--jobs", jobs],
                ]
                .concat(),
                b"",
            );
            let got: u64 = text(&run.stdout).trim().parse().unwrap_or_else(|_| {
                panic!("{test:?}: {} {}", text(&run.stdout), text(&run.stderr))
            });
            assert_eq!(got, want, "{test:?} --jobs {jobs}");
            assert_eq!(run.status.code(), Some(if want > 0 { 0 } else { 1 }));
        }
        // The games themselves: the same PGN, game for game.
        let listed = rookery_in(
            t.path(),
            &[
                &["db", "search", db.as_str()][..],
                test,
                &["--pgn", "--jobs", "2"],
            ]
            .concat(),
            b"",
        );
        let normalized = rookery_in(
            t.path(),
            &[&["pgn", "filter"][..], &both, test, &["-q", "--normalize"]].concat(),
            b"",
        );
        let strip = |t: &str| -> Vec<String> {
            // The movetext of each game (the database keeps fewer tags).
            t.split("\n\n")
                .filter(|b| !b.trim().is_empty() && !b.trim_start().starts_with('['))
                .map(|b| b.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect()
        };
        assert_eq!(
            strip(&text(&listed.stdout)),
            strip(&text(&normalized.stdout)),
            "{test:?}"
        );
        if want > 0 {
            kept_some += 1;
        }
    }
    assert!(kept_some >= 6, "only {kept_some} tests kept a game");
}

#[test]
fn position_tests_find_python_chess_plies() {
    let t = TempDir::new("db-scan-python");
    let (db, pgn) = database(&t);
    let both = [pgn.as_str(), TWIC];
    let queries = [
        serde_json::json!({"sub-fen": ["8/8/8/8/4P3/8/8/8"]}),
        serde_json::json!({"sub-fen": ["8/8/8/8/8/5N2/8/8", "8/8/2n5/8/8/8/8/8"], "stm": "black"}),
        serde_json::json!({"sub-fen": ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"]}),
        serde_json::json!({"sub-fen": ["8/pp6/8/8/8/8/PP6/8"], "stm": "white", "result": ["1-0"]}),
        serde_json::json!({"imbalance": ["vP"]}),
        serde_json::json!({"imbalance": ["PPvN", "BvN"], "stm": "white"}),
        serde_json::json!({"imbalance": ["Qv"], "sub-fen": ["8/8/8/8/8/8/8/4K3"]}),
        // (Alone, --material is pgn filter's test; the empty sub-FEN, which
        // every position matches, makes it a scan's.)
        serde_json::json!({"material": ["KRPPkrp", "KRPkr", "KQk", "KPk"], "sub-fen": ["8/8/8/8/8/8/8/8"]}),
        serde_json::json!({"material": ["KQRRBBNNPPPPPPPkqrrbbnnppppppp"], "stm": "black"}),
        serde_json::json!({"move": ["O-O"], "stm": "white"}),
        serde_json::json!({"move": ["O-O-O", "Nf3"]}),
        serde_json::json!({"move": ["exd5", "Nxe5", "Rac1"]}),
        serde_json::json!({"move": ["e8=Q", "a1=Q", "h8=N"]}),
        serde_json::json!({"move": ["Bb5+"], "sub-fen": ["8/8/8/8/8/8/8/4K3"]}),
        serde_json::json!({"stm": "black", "imbalance": ["PvN"], "material": ["KRNPPPkrbpp"]}),
        // Scoutfish's moved and captured: a queen taken by a king or a
        // pawn, Black taking a queen or a rook, a quiet king move, a pawn
        // taking a pawn (en passant among them), castling as the king's.
        serde_json::json!({"moved": "KP", "captured": "Q"}),
        serde_json::json!({"stm": "black", "captured": "QR"}),
        serde_json::json!({"moved": "K", "captured": ""}),
        serde_json::json!({"moved": "p", "captured": "P", "sub-fen": ["8/8/8/8/8/8/8/8"]}),
        serde_json::json!({"moved": "K", "move": ["O-O"]}),
        // How the game ends, beside a test of positions.
        serde_json::json!({"stm": "white", "result-type": "mate"}),
        serde_json::json!({"sub-fen": ["8/8/8/8/8/8/8/4K3"], "result-type": "stalemate"}),
    ];
    let mut found_some = 0;
    for q in &queries {
        let want = python(q, &both);
        let args: Vec<String> = ["db", "search", db.as_str()]
            .iter()
            .map(|a| a.to_string())
            .chain(flags(q))
            .collect();
        answers_as(t.path(), &args, &want, q);
        if !want.is_empty() {
            found_some += 1;
        }
    }
    assert!(found_some >= 15, "only {found_some} queries found a game");
}

/// Scoutfish's JSON queries (`--query`): sequences, streaks, the rules on
/// whole games, skip and limit, answered as a brute-force python-chess
/// matcher answers them (tests/python/scan_check.py), game for game and
/// ply for ply, on one thread and on two.
#[test]
fn scoutfish_queries_find_python_chess_plies() {
    let t = TempDir::new("db-scout");
    let (db, pgn) = database(&t);
    let both = [pgn.as_str(), TWIC];
    let queries = [
        // Single conditions: the first ply each holds at.
        serde_json::json!({"sub-fen": "8/8/8/8/4P3/8/8/8"}),
        serde_json::json!({"white-move": ["O-O-O", "O-O"]}),
        serde_json::json!({"black-move": "Nf6", "sub-fen": "8/8/8/8/3P4/8/8/8"}),
        serde_json::json!({"material": ["KRPKR", "KQKQ", "KRkr"]}),
        serde_json::json!({"pass": "", "result": "1/2-1/2"}),
        serde_json::json!({"pass": "", "result-type": "mate"}),
        serde_json::json!({"pass": "", "result-type": "stalemate"}),
        // Sequences: a piece's path, moves in order, material lost in order.
        serde_json::json!({"sequence": [{"sub-fen": "8/8/8/8/8/8/8/5B2"}, {"sub-fen": "8/8/8/8/2B5/8/8/8"}, {"sub-fen": "8/8/8/1B6/8/8/8/8"}]}),
        serde_json::json!({"sequence": [{"white-move": "e4"}, {"black-move": "c5"}, {"white-move": "d4"}, {"black-move": "cxd4"}]}),
        serde_json::json!({"sequence": [{"imbalance": "Pv"}, {"imbalance": "v"}, {"imbalance": "vP"}], "result": ["0-1", "1-0"]}),
        serde_json::json!({"sequence": [{"material": "KQRRBBNNPPPPPPPPKQRRBBNNPPPPPPPP", "stm": "black"}, {"moved": "Q", "captured": "Q"}, {"material": "KRKR"}]}),
        // A later step that material rules out early, and one only a
        // promotion makes possible.
        serde_json::json!({"sequence": [{"captured": "Q"}, {"material": "KQQKR"}]}),
        serde_json::json!({"sequence": [{"captured": "N"}, {"sub-fen": "8/8/8/8/8/8/8/1N4N1"}]}),
        // Streaks: consecutive plies, a pass in the middle, a net queen
        // won, a streak under way when its first condition's material is
        // gone (a queen trade at full material).
        serde_json::json!({"streak": [{"white-move": "e4"}, {"pass": ""}, {"white-move": "d4"}]}),
        serde_json::json!({"streak": [{"captured": ""}, {"stm": "white", "captured": "Q"}, {"captured": ""}]}),
        serde_json::json!({"streak": [{"imbalance": "vP"}, {"imbalance": "vP"}, {"imbalance": "vP"}, {"imbalance": "vP"}]}),
        serde_json::json!({"streak": [{"stm": "white", "captured": "Q", "material": "KQRRBBNNPPPPPPPPKQRRBBNNPPPPPPPP"}, {"captured": "Q"}]}),
        serde_json::json!({"sequence": [{"sub-fen": "8/8/8/8/4P3/8/8/8"}, {"streak": [{"moved": "N"}, {"moved": "N"}]}, {"captured": "R"}], "result-type": "mate"}),
        serde_json::json!({"sequence": [{"pass": ""}, {"streak": [{"captured": "P"}, {"captured": "P"}]}, {"captured": "B"}]}),
        // Which of the games found are reported.
        serde_json::json!({"streak": [{"captured": "N"}, {"captured": "N"}], "skip": 3, "limit": 5}),
        serde_json::json!({"white-move": "e4", "limit": 0}),
    ];
    let mut found_some = 0;
    for q in &queries {
        let want = python(&serde_json::json!({ "scout": q }), &both);
        let args: Vec<String> = ["db", "search", db.as_str(), "--query"]
            .iter()
            .map(|a| a.to_string())
            .chain([q.to_string()])
            .collect();
        answers_as(t.path(), &args, &want, q);
        if want.lines().count() > 1 {
            found_some += 1;
        }
    }
    assert!(found_some >= 16, "only {found_some} queries found games");
    // Crafted games: a queen trade at full material (the streak is under
    // way when its first condition's material is gone), a game won by
    // promotions (a step that only a promotion makes possible).
    let crafted = t.write(
        "crafted.pgn",
        "[Result \"*\"]\n\n1. e4 e5 2. Qh5 h6 3. d3 Qg5 4. Qxg5 hxg5 *\n\n\
         [Result \"*\"]\n\n1. h4 g5 2. hxg5 h5 3. g6 h4 4. g7 h3 5. gxf8=Q+ Kxf8 6. Nf3 hxg2 7. Rh2 gxf1=Q+ 8. Kxf1 *\n",
    );
    let small = t.join("crafted.rdb");
    let o = rookery_in(
        t.path(),
        &["db", "import", s(&small), s(&crafted), "-q"],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    for (q, expected) in [
        (
            serde_json::json!({"streak": [{"stm": "white", "captured": "Q", "material": "KQRRBBNNPPPPPPPPKQRRBBNNPPPPPPPP"}, {"captured": "Q"}]}),
            "1 ply 6,7\n",
        ),
        (
            serde_json::json!({"sequence": [{"captured": "P"}, {"moved": "P", "captured": "B"}, {"captured": "Q"}]}),
            "2 ply 2,8,9\n",
        ),
        (
            serde_json::json!({"sequence": [{"captured": "P"}, {"material": "KQQRRBBNNPPPPPPPKQRRBNNPPPPPPP"}]}),
            "2 ply 2,9\n",
        ),
    ] {
        assert_eq!(
            python(&serde_json::json!({ "scout": q }), &[s(&crafted)]),
            expected,
            "{q}"
        );
        let o = rookery_in(
            t.path(),
            &["db", "search", s(&small), "--query", &q.to_string()],
            b"",
        );
        assert_eq!(text(&o.stdout), expected, "{q}: {}", text(&o.stderr));
    }
    // From a file, beside the header tests.
    let file = t.write(
        "q.json",
        r#"{"streak": [{"captured": "N"}, {"captured": "N"}]}"#,
    );
    let from_file = rookery_in(
        t.path(),
        &[
            "db",
            "search",
            &db,
            "--query",
            &format!("@{}", s(&file)),
            "--result",
            "1-0",
        ],
        b"",
    );
    let want = python(
        &serde_json::json!({"scout": {"streak": [{"captured": "N"}, {"captured": "N"}], "result": "1-0"}}),
        &both,
    );
    assert_eq!(text(&from_file.stdout), want, "{}", text(&from_file.stderr));
    assert!(!want.is_empty());
}

/// A query that does not read is a usage error naming where it is wrong;
/// the flags of single positions do not go with it.
#[test]
fn bad_scoutfish_queries_are_usage_errors() {
    let t = TempDir::new("db-scout-errors");
    let db = t.join("g.rdb");
    let pgn = t.write("games.pgn", games(5));
    rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
    for (query, names) in [
        ("{\"sub-fen\": ", "not JSON"),
        (
            r#"{"sequence": [{"pass": ""}, {"streak": [{"fen": "x"}]}]}"#,
            "sequence[1].streak[0]: fen",
        ),
        (r#"{"white-move": "Zz9"}"#, "Zz9"),
        (r#"{"white-move": "e4", "black-move": "e5"}"#, "never hold"),
    ] {
        let o = rookery_in(t.path(), &["db", "search", s(&db), "--query", query], b"");
        assert_eq!(o.status.code(), Some(2), "{query}");
        assert!(
            text(&o.stderr).contains(names),
            "{query}: {}",
            text(&o.stderr)
        );
        assert!(text(&o.stdout).is_empty());
    }
    let o = rookery_in(
        t.path(),
        &[
            "db",
            "search",
            s(&db),
            "--query",
            r#"{"pass": ""}"#,
            "--sub-fen",
            "8/8/8/8/8/8/8/8",
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let o = rookery_in(
        t.path(),
        &["db", "search", s(&db), "--query", "@/nonexistent/q.json"],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("/nonexistent/q.json"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn bad_sub_fens_and_imbalances_are_usage_errors() {
    let t = TempDir::new("db-scan-errors");
    let db = t.join("g.rdb");
    let pgn = t.write("games.pgn", games(5));
    rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
    for (flag, value) in [
        ("--sub-fen", "8/8/8/8/8/8/8"),
        ("--sub-fen", "8/8/8/8/8/8/8/7Z"),
        ("--sub-fen", "8/8/8/8/8/8/8/9"),
        ("--imbalance", "vX"),
        ("--imbalance", "KKvK"),
        ("--move", "Zz9"),
        ("--moved", "KX"),
        ("--captured", "Q7"),
    ] {
        let o = rookery_in(t.path(), &["db", "search", s(&db), flag, value], b"");
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        assert!(
            text(&o.stderr).contains(value),
            "{flag} {value}: {}",
            text(&o.stderr)
        );
        assert!(text(&o.stdout).is_empty());
    }
    let o = rookery_in(
        t.path(),
        &["db", "search", s(&db), "--stm", "white", "--fifty"],
        b"",
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    // A tag the database does not keep: refused, not "no game found".
    for test in [
        &["--termination", "time forfeit"][..],
        &["--tag", "TimeControl=180+0"],
        &["--tag", "Annotator!=x", "--stm", "white"],
    ] {
        let o = rookery_in(
            t.path(),
            &[&["db", "search", s(&db)][..], test].concat(),
            b"",
        );
        assert_eq!(o.status.code(), Some(2), "{test:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains("does not keep the") && text(&o.stderr).contains("pgn filter"),
            "{test:?}: {}",
            text(&o.stderr)
        );
        assert!(text(&o.stdout).is_empty());
    }
}

/// `--stats` counts what the scan read: every game, and with a test that
/// can hold to the end (`--stm white`), every ply the listing of all games
/// gives.
#[test]
fn stats_count_the_games_and_plies_the_scan_read() {
    let t = TempDir::new("db-scan-stats");
    let (db, _) = database(&t);
    let all = rookery_in(t.path(), &["db", "search", &db, "--plies", "0.."], b"");
    assert_eq!(all.status.code(), Some(0), "{}", text(&all.stderr));
    let listed = text(&all.stdout);
    let games = listed.lines().count();
    let plies: u64 = listed
        .lines()
        .map(|l| {
            let last = l.rsplit('\t').next().unwrap();
            last.trim_end_matches(" plies").parse::<u64>().unwrap()
        })
        .sum();
    assert!(games > 1200 && plies > 10 * games as u64, "{games} {plies}");
    let o = rookery_in(
        t.path(),
        &["db", "search", &db, "--stm", "white", "--count", "--stats"],
        b"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.starts_with(&format!(
            "scanned {games} games ({games} past their headers), {plies} plies in "
        )),
        "{err}"
    );
    assert!(err.contains(" M plies a second"), "{err}");
}

/// A null move (PGN's `--`, ChessBase's `Z0`, as in a game of
/// ../shared/data/pgn/anastasian-lewis.pgn) is stored with its game, not
/// a reason to refuse the import: the game reads back with it, and the
/// scan passes the turn over it.
#[test]
fn games_with_null_moves_are_stored_and_searched() {
    let t = TempDir::new("db-null-moves");
    let db = t.join("n.rdb");
    let pgn = t.write(
        "n.pgn",
        "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 -- 2. d4 Z0 3. Nf3 e5 1-0\n\n\
         [White \"c\"]\n[Black \"d\"]\n[Result \"0-1\"]\n\n1. Nf3 d5 0-1\n",
    );
    let o = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn)], b"");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("2 games stored"),
        "{}",
        text(&o.stdout)
    );
    let all = rookery_in(
        t.path(),
        &["db", "search", s(&db), "--plies", "0..", "--pgn"],
        b"",
    );
    assert!(
        text(&all.stdout).contains("1. e4 -- 2. d4 -- 3. Nf3 e5 1-0"),
        "{}",
        text(&all.stdout)
    );
    let nf3 = rookery_in(t.path(), &["db", "search", s(&db), "--move", "Nf3"], b"");
    assert_eq!(text(&nf3.stdout), "1 ply 4\n2 ply 0\n");
}
