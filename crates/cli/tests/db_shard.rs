//! `rookery db import --shard K/N` and `rookery db merge` (issue 47,
//! item 1: a Slurm array imports a collection, one merge after):
//!
//! - a database built by three shards and merged answers every question
//!   exactly as one built by one import of the whole input: the explorer
//!   (counts, moves, top and recent games, by bucket), a player's
//!   repertoire, every game in PGN under its number, the bad game named and
//!   left out; with `--dedupe` (duplicates of games of an earlier shard,
//!   left out by the merge) and without (every game kept);
//! - `rookery merge DB` does the same as `db merge DB`, `--clean` removes
//!   the parts; a missing part is refused by name and nothing is written;
//! - a merge killed with SIGKILL at any moment leaves the database as it
//!   was before it began.

use crate::common::{rookery_in, s, text, ROOKERY};
use crate::db_cli::{answers, generated, play_uci};
use rookery_testkit::TempDir;
use std::process::{Command, Stdio};

/// What a database answers: the explorer at `fens` ([`answers`]), a
/// player's repertoire, every game with its number (tags and in PGN),
/// and its counts.
fn everything(t: &TempDir, db: &str, fens: &[String]) -> Vec<String> {
    let mut out = answers(t, db, fens);
    for args in [
        &["db", "search", db, "--plies", "0.."][..],
        &["db", "search", db, "--plies", "0..", "--pgn"],
        &["db", "search", db, "--player", "alice", "--result", "1-0"],
        &[
            "db", "explore", db, "--player", "Alice", "--color", "white", "--depth", "2", "--json",
        ],
        &[
            "db",
            "explore",
            db,
            "--player",
            "Bob",
            "--color",
            "black",
            "--lichess",
        ],
    ] {
        let o = rookery_in(t.path(), args, b"");
        assert!(o.status.code().unwrap_or(9) <= 1, "{}", text(&o.stderr));
        out.push(text(&o.stdout));
    }
    let info = rookery_in(t.path(), &["db", "info", db, "--json"], b"");
    let v: serde_json::Value = serde_json::from_str(&text(&info.stdout)).unwrap();
    out.push(format!("{} {} {}", v["games"], v["names"], v["positions"]));
    out
}

/// The start, positions of a few games and of one game, and one of none.
fn fens(games: &[crate::db_cli::Generated]) -> Vec<String> {
    let mut fens = vec!["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string()];
    for g in [3, 250, 590] {
        let mut pos = rookery_core::Position::startpos();
        for (i, uci) in games[g].ucis.iter().enumerate() {
            play_uci(&mut pos, uci);
            if [1, 4, 12, 40].contains(&i) {
                fens.push(rookery_core::Fen::from_position(&pos).to_string());
            }
        }
    }
    fens.push("8/8/8/4k3/8/8/8/4K2R w K - 0 1".to_string());
    fens
}

/// The line an import or a merge prints at its end, without the
/// database's name.
fn summary(stdout: &[u8]) -> String {
    let out = text(stdout);
    let last = out.lines().last().unwrap_or("").to_string();
    last.split_once(": ")
        .map_or(last.clone(), |(_, rest)| rest.to_string())
}

/// Imports `pgn` into `one` in one run and into `sharded` by three
/// shards and `merge` (the words after `rookery`); returns both
/// summaries.
fn build(
    t: &TempDir,
    pgn: &str,
    one: &str,
    sharded: &str,
    flags: &[&str],
    merge: &[&str],
) -> (String, String) {
    let mut args = vec!["db", "import", one, pgn];
    args.extend_from_slice(flags);
    let whole = rookery_in(t.path(), &args, b"");
    assert_eq!(whole.status.code(), Some(1), "{}", text(&whole.stderr));
    assert!(text(&whole.stderr).contains("bad.pgn") || text(&whole.stderr).contains("all.pgn"));
    for k in ["1/3", "2/3", "3/3"] {
        let mut args = vec!["db", "import", sharded, pgn, "--shard", k];
        args.extend_from_slice(flags);
        let o = rookery_in(t.path(), &args, b"");
        assert!(o.status.code().unwrap_or(9) <= 1, "{}", text(&o.stderr));
    }
    let part = |k: u32| std::fs::read(t.join(format!("{sharded}.shard-{k}-of-3"))).unwrap();
    let parts: Vec<Vec<u8>> = (1..=3).map(part).collect();
    let mut args = merge.to_vec();
    args.push(sharded);
    let merged = rookery_in(t.path(), &args, b"");
    assert_eq!(merged.status.code(), Some(1), "{}", text(&merged.stderr));
    // The parts are read, not written (the manifests' sizes still hold).
    if !merge.contains(&"--clean") {
        assert!((1..=3).map(part).eq(parts), "the merge changed a part");
    }
    (summary(&whole.stdout), summary(&merged.stdout))
}

#[test]
fn a_sharded_import_merged_answers_as_one_import() {
    let t = TempDir::new("db-shard");
    let all = generated(600);
    // A game with an illegal move in the middle; then the first forty
    // games again, in the last shard: duplicates of the first shard's.
    let mut pgn: String = all[..300].iter().map(|g| g.text.as_str()).collect();
    pgn.push_str("[White \"Mallory\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n");
    pgn.extend(all[300..].iter().map(|g| g.text.as_str()));
    pgn.extend(all[..40].iter().map(|g| g.text.as_str()));
    let pgn = t.write("all.pgn", pgn);
    let fens = fens(&all);
    // Without --dedupe every game is kept: the parts' indexes merged as
    // they are, their game numbers shifted.
    let (whole, merged) = build(&t, s(&pgn), "one.rdb", "m.rdb", &[], &["db", "merge"]);
    assert_eq!(
        whole,
        "640 games stored, 0 duplicates left out, 1 games with errors left out"
    );
    assert_eq!(merged, whole);
    assert_eq!(
        everything(&t, "m.rdb", &fens),
        everything(&t, "one.rdb", &fens)
    );
    // With it the merge leaves out the last shard's forty: the index is
    // counted again from the games kept. Through `rookery merge`, which
    // removes the parts with --clean.
    let (whole, merged) = build(
        &t,
        s(&pgn),
        "one-d.rdb",
        "m-d.rdb",
        &["--dedupe", "-j", "2"],
        &["merge", "--clean"],
    );
    // The forty, and the generator's own repeats (games of the same
    // moves).
    let duplicates: u64 = whole
        .split(", ")
        .nth(1)
        .and_then(|d| d.split(' ').next()?.parse().ok())
        .unwrap();
    assert!(duplicates >= 40, "{whole}");
    assert!(whole.ends_with("1 games with errors left out"), "{whole}");
    assert_eq!(merged, whole);
    assert_eq!(
        everything(&t, "m-d.rdb", &fens),
        everything(&t, "one-d.rdb", &fens)
    );
    let left: Vec<String> = t
        .names()
        .into_iter()
        .filter(|n| n.starts_with("m-d.rdb."))
        .collect();
    assert_eq!(left, ["m-d.rdb.index"], "--clean left parts");
}

#[test]
fn a_missing_part_is_refused_and_nothing_written() {
    let t = TempDir::new("db-shard-missing");
    let pgn = t.write(
        "g.pgn",
        generated(60)
            .iter()
            .map(|g| g.text.as_str())
            .collect::<String>(),
    );
    for k in ["1/3", "3/3"] {
        let o = rookery_in(
            t.path(),
            &["db", "import", "m.rdb", s(&pgn), "--shard", k],
            b"",
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    }
    let o = rookery_in(t.path(), &["db", "merge", "m.rdb"], b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("m.rdb.shard-2-of-3"),
        "{}",
        text(&o.stderr)
    );
    assert!(
        !t.join("m.rdb").exists(),
        "a refused merge made the database"
    );
}

#[test]
fn a_killed_merge_leaves_the_database_as_it_was() {
    let t = TempDir::new("db-shard-kill");
    let db = t.join("g.rdb");
    let small = t.write("one.pgn", "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n");
    let first = rookery_in(t.path(), &["db", "import", s(&db), s(&small)], b"");
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let before = rookery_in(t.path(), &["db", "explore", s(&db), "--json"], b"");
    let pgn = t.write(
        "g.pgn",
        generated(3000)
            .iter()
            .map(|g| g.text.as_str())
            .collect::<String>(),
    );
    for k in ["1/2", "2/2"] {
        let o = rookery_in(
            t.path(),
            &["db", "import", s(&db), s(&pgn), "--shard", k, "--dedupe"],
            b"",
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    }
    // Killed after longer and longer waits until one merge ends on its
    // own: each kill, wherever it fell, leaves the database as before.
    let mut killed = 0;
    for wait_ms in [10, 40, 100, 200, 400, 800, 1600, 3200, 6400, 60_000] {
        let mut child = Command::new(ROOKERY)
            .args(["db", "merge", s(&db)])
            .current_dir(t.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_millis(wait_ms);
        let mut ended = false;
        while std::time::Instant::now() < until {
            if child.try_wait().unwrap().is_some() {
                ended = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        if ended {
            break;
        }
        child.kill().unwrap(); // SIGKILL
        if child.wait().unwrap().success() {
            // It ended between the last look and the kill.
            break;
        }
        let info = rookery_in(t.path(), &["db", "info", s(&db), "--json"], b"");
        assert_eq!(info.status.code(), Some(0), "{}", text(&info.stderr));
        let v: serde_json::Value = serde_json::from_str(&text(&info.stdout)).unwrap();
        if let Some(merged) = merged_games(&v) {
            // Killed after its commit: the merge is there whole.
            assert_eq!(v["games"], 1 + merged, "after a kill at {wait_ms} ms: {v}");
            break;
        }
        killed += 1;
        assert_eq!(v["games"], 1, "after a kill at {wait_ms} ms: {v}");
        let after = rookery_in(t.path(), &["db", "explore", s(&db), "--json"], b"");
        assert_eq!(text(&after.stdout), text(&before.stdout));
    }
    assert!(killed > 0, "no merge was killed in the middle");
    let info = rookery_in(t.path(), &["db", "info", s(&db), "--json"], b"");
    let v: serde_json::Value = serde_json::from_str(&text(&info.stdout)).unwrap();
    assert!(
        v["games"].as_u64().unwrap() > 1,
        "the last merge did not finish: {v}"
    );
}

/// The games a merge stored, as the `imports` line its transaction wrote
/// says (`merge:PARTS games=N ...`); `None` if no merge is recorded.
fn merged_games(info: &serde_json::Value) -> Option<u64> {
    let lines = info["imports"].as_array()?;
    let line = lines
        .iter()
        .filter_map(|l| l.as_str())
        .find(|l| l.contains(" merge:"))?;
    line.split(' ')
        .find_map(|w| w.strip_prefix("games="))?
        .parse()
        .ok()
}
