//! `rookery db serve` (issue 47 item 5): a real server on loopback over a
//! database of generated games.
//!
//! - `/lichess`, `/masters` and `/player` answer what `db explore
//!   --lichess` answers for the same position and lists;
//! - their field names and JSON types are those of a lichess explorer
//!   response recorded below as data (written from lichess's documented
//!   shape);
//! - `/search` finds what `db search` finds, `/game/N` is the game's PGN;
//! - hostile questions (a bad FEN, an illegal or endless `play`, numbers
//!   out of range, a huge query) are answered 400 and the server goes on;
//! - the page in headless Chromium (`tests/python/db_page_cdp.py`): a
//!   click on a move of the table plays it, a move on the board too, and
//!   the table changes to the new position's.
//!
//! Peers: Chromium and python3 for the page (skipped with a note when
//! missing, failed under `CI`). Every wait is bounded; nothing is timed.

use crate::common::web::{get, Browser};
use crate::common::{rookery_in, s, text, ROOKERY};
use crate::db_cli::{games, play_uci};
use rookery_testkit::cmd::KillOnDrop;
use rookery_testkit::TempDir;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

/// A server and its address (`127.0.0.1:PORT`).
struct Server {
    _proc: KillOnDrop,
    addr: String,
}

/// Starts `rookery db serve DB` and reads the address it prints.
fn serve(db: &std::path::Path) -> Server {
    let mut child = Command::new(ROOKERY)
        .args(["db", "serve", s(db)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("no address: {line:?}"))
        .trim_end_matches('/')
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "not loopback: {addr}");
    Server {
        _proc: KillOnDrop(child),
        addr,
    }
}

/// A database of `n` generated games in `t`, and its PGN.
fn database(t: &TempDir, n: usize) -> (std::path::PathBuf, std::path::PathBuf) {
    let db = t.join("g.rdb");
    let pgn = t.write("games.pgn", games(n));
    let run = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    (db, pgn)
}

fn json_of(addr: &str, path: &str) -> Value {
    let r = get(addr, path);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{path}: {e}: {}", r.body))
}

fn cli_json(t: &TempDir, args: &[&str]) -> Value {
    let run = rookery_in(t.path(), args, b"");
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    serde_json::from_str(&text(&run.stdout)).unwrap()
}

/// A response of lichess's opening explorer (`/lichess?play=e2e4`), written
/// here from its documented shape: the names and types a client reads.
const LICHESS_RESPONSE: &str = r#"{
  "white": 1212, "draws": 160, "black": 1096,
  "moves": [
    {"uci": "c7c5", "san": "c5", "averageRating": 2108, "white": 310, "draws": 40, "black": 292,
     "game": null},
    {"uci": "a7a6", "san": "a6", "averageRating": 1850, "white": 1, "draws": 0, "black": 0,
     "game": {"id": "aBcD1234", "winner": "white", "speed": "blitz", "mode": "rated",
              "white": {"name": "someone", "rating": 1900}, "black": {"name": "other", "rating": 1800},
              "year": 2023, "month": "2023-04", "uci": "a7a6"}}
  ],
  "topGames": [
    {"uci": "c7c5", "id": "Xy12Ab34", "winner": "black", "speed": "classical", "mode": "rated",
     "white": {"name": "a", "rating": 2700}, "black": {"name": "b", "rating": 2710},
     "year": 2024, "month": "2024-01"}
  ],
  "recentGames": [
    {"uci": "e7e5", "id": "Qw12Er34", "winner": null, "speed": "rapid", "mode": "casual",
     "white": {"name": "c", "rating": 1500}, "black": {"name": "d", "rating": 1520},
     "year": 2024, "month": "2024-02"}
  ],
  "opening": {"eco": "B00", "name": "King's Pawn Game"}
}"#;

/// The JSON type of a value ("null" matches any: lichess leaves some out).
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `ours` has the fields of `theirs`, no others, each of the same type
/// (objects and arrays' first elements compared the same way).
fn same_shape(ours: &Value, theirs: &Value, at: &str) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let mut ka: Vec<&String> = a.keys().collect();
            let mut kb: Vec<&String> = b.keys().collect();
            ka.sort();
            kb.sort();
            assert_eq!(ka, kb, "fields at {at}");
            for (k, v) in b {
                same_shape(&a[k], v, &format!("{at}.{k}"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if let (Some(x), Some(y)) = (a.first(), b.first()) {
                same_shape(x, y, &format!("{at}[0]"));
            }
            // Each element of ours as the one of theirs it should look like.
            for (i, x) in a.iter().enumerate() {
                let y = if x["game"].is_object() && b.len() > 1 {
                    &b[1]
                } else {
                    &b[0]
                };
                same_shape(x, y, &format!("{at}[{i}]"));
            }
        }
        (a, b) if a.is_null() || b.is_null() => {}
        (a, b) => assert_eq!(kind(a), kind(b), "type at {at}: {a} vs {b}"),
    }
}

#[test]
fn the_servers_answers_are_db_explores_in_lichesss_shape() {
    let t = TempDir::new("db-serve");
    let (db, _) = database(&t, 1500);
    // The command line's answers first: a served database is the server's
    // (the store opens a file in one process at a time).
    // `db explore DB ARGS`.
    let explore = |args: &[&str]| cli_json(&t, &[&["db", "explore", s(&db)][..], args].concat());
    let tree = explore(&["--json"]);
    let first = tree["moves"][0]["uci"].as_str().unwrap().to_string();
    let after = explore(&["--play", &first, "--json"]);
    let second = after["moves"][0]["uci"].as_str().unwrap().to_string();
    let plays = ["".to_string(), first.clone(), format!("{first},{second}")];
    let mut expected = Vec::new();
    for play in &plays {
        let lichess = explore(&[
            "--lichess",
            "--play",
            play,
            "--speeds",
            "blitz,rapid,classical",
        ]);
        let masters = explore(&["--lichess", "--play", play, "--top-games", "15"]);
        expected.push((play.clone(), lichess, masters));
    }
    let player = explore(&["--player", "alice", "--color", "white", "--lichess"]);
    // Bob's wins, by `db search` told what to print.
    let bobs_wins = |print: &str| {
        rookery_in(
            t.path(),
            &[
                "db",
                "search",
                s(&db),
                "--player",
                "bob",
                "--result",
                "1-0",
                print,
            ],
            b"",
        )
    };
    let count = bobs_wins("--count");
    let n: usize = text(&count.stdout).trim().parse().unwrap();
    assert!(n > 10);
    let listed = bobs_wins("--pgn");

    let server = serve(&db);
    let a = &server.addr;
    let recorded: Value = serde_json::from_str(LICHESS_RESPONSE).unwrap();
    for (play, lichess, masters_cli) in &expected {
        let from_server = json_of(
            a,
            &format!("/lichess?play={play}&moves=256&speeds=blitz,rapid,classical"),
        );
        assert_eq!(&from_server, lichess, "/lichess play={play}");
        same_shape(&from_server, &recorded, "lichess");
        // The masters' explorer: 15 top games, no recent ones.
        let masters = json_of(a, &format!("/masters?play={play}&moves=256"));
        for k in ["white", "draws", "black", "moves", "topGames", "opening"] {
            assert_eq!(masters[k], masters_cli[k], "/masters {k}");
        }
        assert!(masters.get("recentGames").is_none());
    }
    // The FEN of a position and play from it: the same answer as play from
    // the start.
    let fen_after = {
        let mut p = rookery_core::Position::startpos();
        play_uci(&mut p, &first);
        p.fen()
    };
    let by_fen = json_of(a, &format!("/lichess?fen={}", fen_after.replace(' ', "+")));
    let by_play = json_of(a, &format!("/lichess?play={first}"));
    assert_eq!(by_fen["moves"], by_play["moves"]);
    // /player: ndjson, db explore --player --lichess's answer.
    let r = get(
        a,
        "/player?player=alice&color=white&moves=256&recentGames=4",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.head.contains("application/x-ndjson"), "{}", r.head);
    let row: Value = serde_json::from_str(r.body.lines().next().unwrap()).unwrap();
    assert_eq!(row, player);
    assert!(row["white"].as_u64().unwrap() > 0, "{row}");
    // /search: db search's games; /game/N: the game's PGN.
    let found = json_of(a, "/search?player=bob&result=1-0&max=500");
    assert_eq!(found["games"].as_array().unwrap().len(), n);
    assert_eq!(found["more"], false);
    let limited = json_of(a, "/search?player=bob&result=1-0&max=3");
    assert_eq!(limited["games"].as_array().unwrap().len(), 3);
    assert_eq!(limited["more"], true);
    // /search?query=: db search --query's games and plies.
    let scout = r#"{"streak": [{"captured": ""}, {"captured": "N"}], "result": ["1-0", "0-1"]}"#;
    let by_cli = rookery_in(
        t.path(),
        &["db", "search", s(&db), "--player", "bob", "--query", scout],
        b"",
    );
    let by_cli = text(&by_cli.stdout);
    assert!(by_cli.lines().count() > 3, "{by_cli}");
    let escaped: String = scout
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let scouted = json_of(a, &format!("/search?player=bob&max=500&query={escaped}"));
    let lines: String = scouted["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| format!("{} ply {}\n", g["id"].as_str().unwrap(), matched(g)))
        .collect();
    assert_eq!(lines, by_cli);
    let id = found["games"][0]["id"].as_str().unwrap();
    let pgn = get(a, &format!("/game/{id}"));
    assert_eq!(pgn.status, 200);
    assert!(text(&listed.stdout).starts_with(&pgn.body), "{}", pgn.body);
    assert_eq!(get(a, "/game/999999").status, 404);
}

#[test]
fn hostile_questions_get_400_and_the_server_goes_on() {
    let t = TempDir::new("db-serve-hostile");
    let (db, _) = database(&t, 200);
    let server = serve(&db);
    let a = &server.addr;
    let endless = vec!["g1f3,g8f6,f3g1,f6g8"; 200].join(",");
    let huge = "x".repeat(20_000);
    for path in [
        "/lichess?fen=not+a+fen".to_string(),
        "/lichess?fen=8/8/8/8/8/8/8/8+w+-+-+0+1".to_string(),
        "/lichess?play=e2e5".to_string(),
        "/lichess?play=e2e4,e2e4".to_string(),
        format!("/lichess?play={endless}"),
        format!("/lichess?fen={huge}"),
        "/lichess?moves=100000".to_string(),
        "/lichess?topGames=99".to_string(),
        "/lichess?speeds=warp".to_string(),
        "/lichess?since=2024-13".to_string(),
        "/lichess?variant=atomic".to_string(),
        "/lichess?fen=%ZZ".to_string(),
        "/lichess?fen=%C3%28".to_string(),
        "/masters?since=someday".to_string(),
        "/player?color=white".to_string(),
        "/player?player=alice&color=green".to_string(),
        "/search?elo=high".to_string(),
        "/search?fen=nonsense".to_string(),
        "/search?max=100000".to_string(),
        "/search?query=nonsense".to_string(),
        "/search?query=%7B%22fen%22%3A1%7D".to_string(),
        "/search?query=%7B%22pass%22%3A%22%22%7D&moves=1.e4".to_string(),
        "/game/abc".to_string(),
        "/api/position?play=e7e5".to_string(),
    ] {
        let r = get(a, &path);
        let shown = &path[..path.len().min(60)];
        assert!(
            r.status == 400 || r.status == 431 || r.status == 414,
            "{shown}: {} {}",
            r.status,
            r.body
        );
        if r.status == 400 {
            let v: Value = serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{shown}: {e}"));
            assert!(v["error"].is_string(), "{shown}: {v}");
        }
    }
    // A request head larger than the connection's buffer: closed or
    // refused, never a crash.
    let mut s2 = TcpStream::connect(a).unwrap();
    let _ = write!(
        s2,
        "GET /lichess?play={} HTTP/1.0\r\n\r\n",
        "a".repeat(100_000)
    );
    let mut sink = Vec::new();
    s2.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let _ = s2.read_to_end(&mut sink);
    // Still answering.
    let v = json_of(a, "/lichess");
    let games: u64 = ["white", "draws", "black"]
        .iter()
        .map(|k| v[k].as_u64().unwrap())
        .sum();
    assert!(games > 0, "{v}");
}

#[test]
fn the_page_plays_a_clicked_move_and_shows_its_table() {
    let Some(browser) = Browser::find() else {
        return;
    };
    let t = TempDir::new("db-page");
    let (db, _) = database(&t, 1000);
    let server = serve(&db);
    let a = &server.addr;
    let page = get(a, "/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<script src=\"/assets/db.js\">"));
    for path in ["/assets/db.js", "/assets/db.css"] {
        let r = get(a, path);
        assert_eq!(r.status, 200, "{path}");
        assert!(
            !r.body.contains("http"),
            "{path} loads nothing from elsewhere"
        );
    }
    let seen = browser.look(
        "db_page_cdp.py",
        &format!("http://{a}/"),
        &t.join("profile"),
        &["60", SCOUT],
    );
    let rows = |v: &Value| -> Vec<String> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect()
    };
    let table = |play: &str| -> Vec<String> {
        json_of(a, &format!("/lichess?play={play}&moves=40"))["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap().to_string())
            .collect()
    };
    let (first, second, third) = (&seen["first"], &seen["second"], &seen["third"]);
    assert_eq!(first["squares"], 64);
    assert_eq!(rows(first), table(""));
    assert!(first["top_games"].as_u64().unwrap() > 0, "{first}");
    // The first move of the table, clicked: the position after it, and
    // its table.
    let clicked = &rows(first)[0];
    let mut pos = rookery_core::Position::startpos();
    play_uci(&mut pos, clicked);
    assert_eq!(second["fen"].as_str().unwrap(), pos.fen());
    assert_eq!(rows(second), table(clicked));
    assert_ne!(rows(second), rows(first));
    // Then a move played on the board with the mouse.
    let on_board = seen["board_move"].as_str().unwrap();
    play_uci(&mut pos, on_board);
    assert_eq!(third["fen"].as_str().unwrap(), pos.fen());
    assert_eq!(rows(third), table(&format!("{clicked},{on_board}")));
    // A Scoutfish query typed into the search: the games /search?query=
    // finds, each with its plies; the first, clicked, shown at the first
    // ply its query is met at.
    let escaped: String = SCOUT.bytes().map(|b| format!("%{b:02X}")).collect();
    let found = json_of(a, &format!("/search?query={escaped}"));
    let games = found["games"].as_array().unwrap();
    assert!(!games.is_empty(), "{found}");
    let listed: Vec<String> = seen["found"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed.len(), games.len());
    for (row, g) in listed.iter().zip(games) {
        assert!(row.ends_with(&format!("ply {}", matched(g))), "{row} {g}");
    }
    let first_found = &games[0];
    assert_eq!(seen["found_id"], first_found["id"]);
    let game = json_of(
        a,
        &format!("/api/game/{}", first_found["id"].as_str().unwrap()),
    );
    let mut at = rookery_core::Position::from_fen(game["start"].as_str().unwrap()).unwrap();
    let ply = first_found["matched"][0].as_u64().unwrap() as usize;
    for m in &game["moves"].as_array().unwrap()[..ply] {
        play_uci(&mut at, m["uci"].as_str().unwrap());
    }
    assert_eq!(
        seen["at_found"]["fen"].as_str().unwrap(),
        at.fen(),
        "ply {ply}"
    );
}

/// A game of `/search?query=`'s answer: the plies its query is met at,
/// as `db search --query` writes them (`12,13`).
fn matched(g: &Value) -> String {
    let plies: Vec<String> = g["matched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.to_string())
        .collect();
    plies.join(",")
}

/// The query the page's test types: two knights taken in a row.
const SCOUT: &str = r#"{"streak": [{"captured": "N"}, {"captured": "N"}]}"#;
