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
    out
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
    ];
    let mut found_some = 0;
    for q in &queries {
        let want = python(q, &both);
        let args: Vec<String> = ["db", "search", db.as_str()]
            .iter()
            .map(|a| a.to_string())
            .chain(flags(q))
            .collect();
        for jobs in ["1", "2"] {
            let run = rookery_in(
                t.path(),
                &[&args[..], &["--jobs".into(), jobs.into()]].concat(),
                b"",
            );
            assert_eq!(
                text(&run.stdout),
                want,
                "{q} --jobs {jobs}: {}",
                text(&run.stderr)
            );
            let status = if want.is_empty() { 1 } else { 0 };
            assert_eq!(run.status.code(), Some(status), "{q}");
        }
        let count = rookery_in(t.path(), &[&args[..], &["--count".into()]].concat(), b"");
        assert_eq!(
            text(&count.stdout).trim(),
            want.lines().count().to_string(),
            "{q}"
        );
        if !want.is_empty() {
            found_some += 1;
        }
    }
    assert!(found_some >= 15, "only {found_some} queries found a game");
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
        &["db", "search", s(&db), "--stm", "white", "--checkmate"],
        b"",
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
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
