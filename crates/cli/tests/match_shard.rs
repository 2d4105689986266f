//! `rookery match --shard K/N [--pool DIR]` and `rookery match merge`
//! (issue 36, item 3), end to end against the built binary:
//!
//! - a pooled SPRT across 3 shards run at once as 3 processes, a strong
//!   engine against a weak one: every shard begins its pairs only while
//!   the pool has not decided and stops within one pair of the decision,
//!   and `match merge` reports the LLR the statistics code computes over
//!   the merged games as one run;
//! - sharded and merged PGN byte for byte the PGN of one run (the games
//!   are deterministic: fixed nodes, minimal PGN), for N = 1, 2, 3, with a
//!   shard killed by SIGKILL mid-game and resumed;
//! - a torn, a foreign and a misplaced file in the pool are ignored with a
//!   warning naming them; a pool of another match (another N) is refused;
//! - hostile merges: a missing shard, a shard not over, a part of another
//!   N, the same shard twice, a part of another match, a renamed part, an
//!   existing output: each an error naming the file, nothing written.

use crate::common::{assert_stdout_has, cmd, describe, kill_when_ready, rookery, s, text};
use crate::match_cli::{run_match, spawn_match};
use rookery_event::schedule::{Pairing, Schedule};
use rookery_event::standings::Standings;
use rookery_event::stats::{Sprt, SprtConfig, SprtState, Tally};
use rookery_game::record::{GameOutcome, Termination};
use rookery_testkit::cmd::argv;
use rookery_testkit::TempDir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

const BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openings-small.epd");

/// A liveness bound (not a speed assertion).
const LIMIT: Duration = Duration::from_secs(600);

/// Wide hypotheses: a one-sided match decides in a few pairs (at [0, 5] it
/// takes about 150).
const SPRT: &str = "elo0=0 elo1=100 alpha=0.05 beta=0.05";

/// The results of a PGN's games: (game number from 0, White's name,
/// outcome), from the Round, White and Result tags.
fn results(pgn: &str) -> Vec<(usize, String, GameOutcome)> {
    let tag = |line: &str, name: &str| -> Option<String> {
        let rest = line.strip_prefix(&format!("[{name} \""))?;
        Some(rest.strip_suffix("\"]")?.to_string())
    };
    let mut out = Vec::new();
    let (mut round, mut white) = (None, None);
    for line in pgn.lines() {
        if let Some(r) = tag(line, "Round") {
            round = r.parse::<usize>().ok();
        } else if let Some(w) = tag(line, "White") {
            white = Some(w);
        } else if let Some(r) = tag(line, "Result") {
            let outcome = match r.as_str() {
                "1-0" => GameOutcome::WhiteWins,
                "0-1" => GameOutcome::BlackWins,
                "1/2-1/2" => GameOutcome::Draw,
                _ => GameOutcome::Unfinished,
            };
            out.push((
                round.take().expect("a Round tag before Result") - 1,
                white.take().expect("a White tag before Result"),
                outcome,
            ));
        }
    }
    out
}

/// The pooled pairs' counts of the first engine against the second, from
/// pool files' game results, with the statistics code.
fn tally_of(schedule: &Schedule, games: &[(usize, GameOutcome)]) -> Tally {
    let mut st = Standings::new(vec!["a".into(), "b".into()]);
    for &(n, outcome) in games {
        let g = schedule.get(n).unwrap();
        st.add_result(&g, outcome, Termination::Normal, "");
    }
    st.versus(0, 1)
}

fn outcome_of(v: &Value) -> GameOutcome {
    serde_json::from_value(v.clone()).unwrap()
}

/// The pool's pair files: block -> (its games' results, the blocks known
/// when it began).
type PoolFiles = std::collections::BTreeMap<usize, (Vec<(usize, GameOutcome)>, Vec<usize>)>;

fn pool_files(dir: &Path) -> PoolFiles {
    let mut out = PoolFiles::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with("pair-") {
            continue;
        }
        let v: Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap();
        let games = v["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                (
                    g["number"].as_u64().unwrap() as usize,
                    outcome_of(&g["outcome"]),
                )
            })
            .collect();
        let known = v["known"]
            .as_array()
            .expect("a block begun in this run says what it was begun on")
            .iter()
            .flat_map(|r| r[0].as_u64().unwrap() as usize..=r[1].as_u64().unwrap() as usize)
            .collect();
        out.insert(v["block"].as_u64().unwrap() as usize, (games, known));
    }
    out
}

fn wait_all(children: Vec<std::process::Child>) -> Vec<Output> {
    let t0 = Instant::now();
    children
        .into_iter()
        .map(|mut c| {
            while c.try_wait().unwrap().is_none() {
                if t0.elapsed() > LIMIT {
                    let _ = c.kill();
                    panic!("a shard did not finish within {LIMIT:?}");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            c.wait_with_output().unwrap()
        })
        .collect()
}

/// Three shards at once with one pool, a weak engine (one node a move)
/// against a strong one (depth 3): the pooled SPRT accepts H0 long before
/// the schedule's 60 pairs. Every pair was begun on a pool that had not
/// decided (the LLR over the pairs it was begun on, recomputed here, is
/// inside the bounds); no shard played its whole share; and the pairs
/// played are at most those the last pair was begun on plus one pair per
/// shard: each shard stopped within one pair of the decision. The merge
/// reports the LLR the statistics code gives the merged games as one run.
#[test]
fn a_pooled_sprt_across_three_shards_stops_every_shard_within_a_pair_of_its_decision() {
    let t = TempDir::new("match-shard-sprt");
    let pgn = t.join("sprt.pgn");
    let pool = t.join("pool");
    let rounds = 60;
    let children: Vec<_> = (1..=3)
        .map(|k| {
            spawn_match(&argv(
                "--engine cmd=builtin name=weak nodes=1 --engine cmd=builtin name=strong depth=3 \
                 --games 2 --rounds {rounds} --srand 11 --sprt {sprt} --json \
                 --shard {k}/3 --pool {pool} --pgnout {pgn}",
                &[
                    ("rounds", &rounds.to_string()),
                    ("sprt", SPRT),
                    ("k", &k.to_string()),
                    ("pool", s(&pool)),
                    ("pgn", s(&pgn)),
                ],
            ))
        })
        .collect();
    let outs = wait_all(children);
    let schedule = Schedule::new(2, Pairing::RoundRobin, rounds, 2).unwrap();
    let sprt = Sprt::new(SPRT.parse::<SprtConfig>().unwrap()).unwrap();
    for (k, out) in outs.iter().enumerate() {
        assert_eq!(
            out.status.code(),
            Some(0),
            "shard {}: {}",
            k + 1,
            describe(out)
        );
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", describe(out)));
        assert_eq!(v["stopped"]["reason"], "sprt", "shard {}: {v}", k + 1);
        assert_eq!(v["stopped"]["detail"], "AcceptH0", "shard {}: {v}", k + 1);
        assert!(
            v["unplayed"].as_u64().unwrap() > 0,
            "shard {} played its whole share: {v}",
            k + 1
        );
    }
    let files = pool_files(&pool);
    let pairs = files.len();
    assert!(pairs > 0 && pairs < rounds);
    // Every pair was begun on a pool that had not decided.
    let mut most_known = 0;
    for (block, (games, known)) in &files {
        assert_eq!(games.len(), 2, "block {block}: a whole pair");
        let on: Vec<(usize, GameOutcome)> = known
            .iter()
            .flat_map(|b| files[b].0.iter().copied())
            .collect();
        assert_eq!(
            on.len(),
            2 * known.len(),
            "block {block} knew of a block not in the pool"
        );
        let status = sprt.status(&tally_of(&schedule, &on));
        assert_eq!(
            status.state,
            SprtState::Continue,
            "block {block} was begun on {known:?}, which had decided (LLR {})",
            status.llr
        );
        most_known = most_known.max(known.len());
    }
    // The pool decided, and within one pair per shard of the last pair
    // begun on an undecided pool.
    let all: Vec<(usize, GameOutcome)> = files
        .values()
        .flat_map(|(g, _)| g.iter().copied())
        .collect();
    assert_eq!(
        sprt.status(&tally_of(&schedule, &all)).state,
        SprtState::AcceptH0
    );
    assert!(
        pairs <= most_known + 3,
        "{pairs} pairs played; the last was begun on {most_known}"
    );

    // The merge: every game once, in schedule order, and the LLR of the
    // same games counted as one run.
    let out = rookery(&["match", "merge", "--pgnout", s(&pgn), "--json"], b"");
    assert_eq!(out.code(), Some(0), "{}", out.describe());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let merged = std::fs::read_to_string(&pgn).unwrap();
    let games = results(&merged);
    let numbers: Vec<usize> = games.iter().map(|g| g.0).collect();
    let mut sorted = numbers.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(numbers, sorted, "in schedule order, each once");
    // Every game of the pool is in the PGN (the shards' PGN may have more:
    // a game of a pair cut off by nothing here, so none).
    let pooled: Vec<usize> = all.iter().map(|g| g.0).collect();
    assert!(
        pooled.iter().all(|n| numbers.contains(n)),
        "{numbers:?} {pooled:?}"
    );
    let mut one_run = Standings::new(vec!["weak".into(), "strong".into()]);
    for (n, white, outcome) in &games {
        let g = schedule.get(*n).unwrap();
        let expected_white = if g.white == 0 { "weak" } else { "strong" };
        assert_eq!(white, expected_white, "game {n}");
        one_run.add_result(&g, *outcome, Termination::Normal, "");
    }
    let llr = sprt.llr(&one_run.versus(0, 1));
    let reported = v["sprt"]["last"]["llr"].as_f64().unwrap();
    assert!(
        (llr - reported).abs() < 1e-9,
        "merge LLR {reported}, one run's {llr}"
    );
    assert_eq!(
        v["standings"]["games"].as_u64().unwrap() as usize,
        games.len(),
        "{v}"
    );
    assert_eq!(v["sprt"]["decision"]["status"]["state"], "AcceptH0", "{v}");
}

/// The words of a small deterministic match: fixed nodes both sides,
/// minimal PGN (no times).
fn det_match(seed: u64, rounds: usize) -> String {
    format!(
        "--engine cmd=builtin name=a nodes=200 --engine cmd=builtin name=b nodes=400 \
         --games 2 --rounds {rounds} --srand {seed} --maxmoves 24 --openings file={BOOK} \
         order=random"
    )
}

/// Runs every shard of `words` one after the other (`--pgnout PGN min
/// --epdout PGN.epd`).
fn run_shards(words: &str, n: u32, pgn: &Path) {
    for k in 1..=n {
        let out = run_match(&argv(
            &format!("{words} --shard {k}/{n} --pgnout {{pgn}} min --epdout {{pgn}}.epd"),
            &[("pgn", s(pgn))],
        ));
        assert_eq!(
            out.status.code(),
            Some(0),
            "shard {k}/{n}: {}",
            describe(&out)
        );
    }
}

/// The PGN (and the EPD of final positions) of one run, and the merge of
/// the same match in 1, 2 and 3 shards: byte for byte the same. Shard 2 of
/// 2 is killed (SIGKILL) once it has finished a game, before it begins the
/// next (`--wait` holds it there a while), and resumed from its journal.
/// (Not in the middle of a game: a cut game goes on from its moves with
/// engines started afresh, whose searches at fixed nodes have lost their
/// hash tables and may choose other moves than one run's engines did.)
#[test]
fn sharded_and_merged_is_byte_identical_to_one_run_with_a_shard_killed_and_resumed() {
    let t = TempDir::new("match-shard-identical");
    let words = det_match(5, 5);
    let one = t.join("one.pgn");
    let out = run_match(&argv(
        &format!("{words} --pgnout {{pgn}} min --epdout {{pgn}}.epd"),
        &[("pgn", s(&one))],
    ));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let expected = std::fs::read(&one).unwrap();
    let expected_epd = std::fs::read(t.join("one.pgn.epd")).unwrap();
    assert_eq!(results(&text(&expected)).len(), 10);
    for n in [1u32, 2, 3] {
        let dir = t.join(format!("n{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let pgn = dir.join("g.pgn");
        if n == 2 {
            // Shard 2 killed between its games, then resumed.
            let words = format!("{words} --wait 300");
            let part = dir.join("g.pgn.shard-2-of-2");
            let journal = dir.join("g.pgn.shard-2-of-2.journal");
            let mut child = spawn_match(&argv(
                &format!("{words} --shard 2/2 --pgnout {{pgn}} min --epdout {{pgn}}.epd"),
                &[("pgn", s(&pgn))],
            ));
            kill_when_ready(
                &mut child,
                "shard 2/2",
                "shard 2/2 never finished a game",
                LIMIT,
                || {
                    let j = std::fs::read_to_string(&journal).unwrap_or_default();
                    let count = |kind: &str| {
                        j.lines()
                            .filter(|l| l.contains(&format!("\"type\":\"{kind}\"")))
                            .count()
                    };
                    // A game over and the next not begun.
                    count("end") >= 1 && count("start") == count("end")
                },
            );
            // Not over: the merge refuses it, naming its journal.
            let out = run_match(&argv(
                &format!("{words} --shard 1/2 --pgnout {{pgn}} min --epdout {{pgn}}.epd"),
                &[("pgn", s(&pgn))],
            ));
            assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
            let out = rookery(&["match", "merge", "--pgnout", s(&pgn)], b"");
            assert_ne!(out.code(), Some(0), "{}", out.describe());
            assert!(
                out.stderr_text().contains(s(&journal)) && out.stderr_text().contains("not over"),
                "{}",
                out.describe()
            );
            assert!(!pgn.exists(), "nothing written");
            let out = run_match(&["--resume", s(&journal)]);
            assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
            assert_stdout_has(&out, "Resuming");
            assert!(part.exists());
        } else {
            run_shards(&words, n, &pgn);
        }
        let epd = dir.join("merged.epd");
        let out = rookery(
            &["match", "merge", "--pgnout", s(&pgn), "--epdout", s(&epd)],
            b"",
        );
        assert_eq!(out.code(), Some(0), "N = {n}: {}", out.describe());
        let merged_epd = std::fs::read(&epd).unwrap();
        assert!(
            merged_epd == expected_epd,
            "N = {n}: the merged EPD differs from one run's\n--- one run:\n{}\n--- merged:\n{}",
            text(&expected_epd),
            text(&merged_epd)
        );
        let merged = std::fs::read(&pgn).unwrap();
        assert!(
            merged == expected,
            "N = {n}: the merge differs from one run\n--- one run:\n{}\n--- merged:\n{}",
            text(&expected),
            text(&merged)
        );
    }
}

/// A torn pair file, one of another match and one of a block that is not
/// its shard's are ignored with a warning naming each; the shard's SPRT
/// counts its own pairs only. A shard run with another N than the pool's
/// match is refused, naming the pool's identity file.
#[test]
fn a_torn_or_foreign_pool_file_is_ignored_with_a_warning_and_another_matchs_pool_refused() {
    let t = TempDir::new("match-shard-pool");
    let pool = t.join("pool");
    let pgn = t.join("p.pgn");
    let words = format!("{} --sprt elo0=-500 elo1=500", det_match(3, 4));
    // Shard 1 of 2 plays blocks 0 and 2; the pool has damage in it first.
    std::fs::create_dir_all(&pool).unwrap();
    let torn = pool.join("pair-000000001-shard-2-of-2.json");
    std::fs::write(&torn, br#"{"match":"12"#).unwrap();
    let foreign = pool.join("pair-000000003-shard-2-of-2.json");
    std::fs::write(
        &foreign,
        br#"{"match":"0000000000000000","shard":"2/2","block":3,"games":[{"number":6,"outcome":"WhiteWins","termination":"Normal"},{"number":7,"outcome":"WhiteWins","termination":"Normal"}]}"#,
    )
    .unwrap();
    let out = run_match(&argv(
        &format!("{words} --shard 1/2 --pool {{pool}} --pgnout {{pgn}} min --json"),
        &[("pool", s(&pool)), ("pgn", s(&pgn))],
    ));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let said = text(&out.stderr);
    for f in [&torn, &foreign] {
        assert!(
            said.contains(&format!("Warning: pool file {} ignored", s(f))),
            "{} not named: {said}",
            f.display()
        );
    }
    assert!(said.contains("torn"), "{said}");
    assert!(said.contains("not of this match"), "{said}");
    // A file naming a block of the other shard, with this match's id.
    let id: Value =
        serde_json::from_slice(&std::fs::read(pool.join("match.json")).unwrap()).unwrap();
    let misplaced = pool.join("pair-000000001-shard-1-of-2.json");
    std::fs::write(
        &misplaced,
        format!(
            r#"{{"match":{},"shard":"1/2","block":1,"games":[{{"number":2,"outcome":"WhiteWins","termination":"Normal"}},{{"number":3,"outcome":"WhiteWins","termination":"Normal"}}]}}"#,
            id["match"]
        ),
    )
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Its own two pairs only.
    assert_eq!(v["sprt"]["last"]["basis"]["samples"], 2, "{v}");
    // Shard 2 sees the misplaced file and says so; the counts are the two
    // shards' four pairs.
    let out = run_match(&argv(
        &format!("{words} --shard 2/2 --pool {{pool}} --pgnout {{pgn}} min --json"),
        &[("pool", s(&pool)), ("pgn", s(&pgn))],
    ));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let said = text(&out.stderr);
    assert!(
        said.contains(&format!("Warning: pool file {} ignored", s(&misplaced)))
            && said.contains("not shard 1/2's"),
        "{said}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sprt"]["last"]["basis"]["samples"], 4, "{v}");
    // The same match in 3 shards is another match: refused.
    let out = run_match(&argv(
        &format!("{words} --shard 1/3 --pool {{pool}} --pgnout {{pgn}} min --epdout {{pgn}}.epd"),
        &[("pool", s(&pool)), ("pgn", s(&t.join("q.pgn")))],
    ));
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let said = text(&out.stderr);
    assert!(
        said.contains(s(&pool.join("match.json"))) && said.contains("not this match's pool"),
        "{said}"
    );
}

/// Hostile merges, each an error naming the file, nothing written.
#[test]
fn hostile_merges_are_errors_naming_the_file() {
    let t = TempDir::new("match-shard-hostile");
    let words = det_match(9, 3);
    let three = t.join("three");
    let two = t.join("two");
    let other = t.join("other");
    for d in [&three, &two, &other] {
        std::fs::create_dir_all(d).unwrap();
    }
    run_shards(&words, 3, &three.join("g.pgn"));
    run_shards(&words, 2, &two.join("g.pgn"));
    run_shards(&det_match(10, 3), 3, &other.join("g.pgn"));
    let part = |d: &Path, k: u32, n: u32| -> PathBuf { d.join(format!("g.pgn.shard-{k}-of-{n}")) };
    let merge = |out: &Path, parts: &[&Path]| {
        let mut args: Vec<String> = vec!["match".into(), "merge".into(), "--pgnout".into()];
        args.push(s(out).into());
        args.extend(parts.iter().map(|p| s(p).to_string()));
        let run = cmd(args).run();
        assert_eq!(run.code(), Some(1), "{}", run.describe());
        assert!(!out.exists(), "{} written", out.display());
        run.stderr_text()
    };
    let out = t.join("m.pgn");
    // Another N.
    let e = merge(
        &out,
        &[&part(&three, 1, 3), &part(&two, 2, 2), &part(&three, 3, 3)],
    );
    assert!(
        e.contains(s(&part(&two, 2, 2))) && e.contains("same N"),
        "{e}"
    );
    // The same shard twice.
    let e = merge(
        &out,
        &[
            &part(&three, 1, 3),
            &part(&other, 1, 3),
            &part(&three, 2, 3),
        ],
    );
    assert!(
        e.contains(s(&part(&three, 1, 3))) && e.contains(s(&part(&other, 1, 3))),
        "{e}"
    );
    // Another match (another seed).
    let e = merge(
        &out,
        &[
            &part(&three, 1, 3),
            &part(&other, 2, 3),
            &part(&three, 3, 3),
        ],
    );
    assert!(
        e.contains(s(&part(&other, 2, 3))) && e.contains("not of match"),
        "{e}"
    );
    // A missing shard.
    let e = merge(&out, &[&part(&three, 1, 3), &part(&three, 3, 3)]);
    assert!(
        e.contains("missing shard 2/3") && e.contains("g.pgn.shard-2-of-3"),
        "{e}"
    );
    // A renamed part (its journal is of another shard).
    let renamed = t.join("renamed");
    std::fs::create_dir_all(&renamed).unwrap();
    for (from, to) in [(1, 2), (2, 1), (3, 3)] {
        for ext in ["", ".journal"] {
            std::fs::copy(
                format!("{}{ext}", s(&part(&three, from, 3))),
                format!("{}{ext}", s(&part(&renamed, to, 3))),
            )
            .unwrap();
        }
    }
    let e = merge(&renamed.join("g.pgn"), &[]);
    assert!(
        e.contains(s(&part(&renamed, 1, 3))) && e.contains("journal is of shard 2/3"),
        "{e}"
    );
    // A shard not over: its journal without its last game's end and the
    // closing entry.
    let cut = t.join("cut");
    std::fs::create_dir_all(&cut).unwrap();
    for k in 1..=3 {
        for ext in ["", ".journal"] {
            std::fs::copy(
                format!("{}{ext}", s(&part(&three, k, 3))),
                format!("{}{ext}", s(&part(&cut, k, 3))),
            )
            .unwrap();
        }
    }
    let journal = cut.join("g.pgn.shard-3-of-3.journal");
    let lines: Vec<String> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let last_end = lines
        .iter()
        .rposition(|l| l.contains("\"type\":\"end\""))
        .unwrap();
    let kept: Vec<&String> = lines
        .iter()
        .enumerate()
        .filter(|(i, l)| *i != last_end && !l.contains("\"type\":\"over\""))
        .map(|(_, l)| l)
        .collect();
    std::fs::write(
        &journal,
        kept.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let e = merge(&cut.join("g.pgn"), &[]);
    assert!(e.contains(s(&journal)) && e.contains("not over"), "{e}");
    // No part at all.
    let e = merge(&t.join("none.pgn"), &[]);
    assert!(e.contains("no shard of") && e.contains("none.pgn"), "{e}");
    // An existing output is not overwritten.
    std::fs::write(three.join("g.pgn"), "old").unwrap();
    let run = rookery(
        &["match", "merge", "--pgnout", s(&three.join("g.pgn"))],
        b"",
    );
    assert_eq!(run.code(), Some(2), "{}", run.describe());
    assert!(run.stderr_text().contains("exists"), "{}", run.describe());
    assert_eq!(std::fs::read_to_string(three.join("g.pgn")).unwrap(), "old");
}

/// The flags a shard needs, refused with the reason.
#[test]
fn a_shard_without_what_it_needs_is_a_usage_error() {
    let t = TempDir::new("match-shard-usage");
    let pgn = t.join("u.pgn");
    let base = "--engine cmd=builtin nodes=10 --engine cmd=builtin nodes=20 --rounds 2 --games 2";
    for (extra, says) in [
        ("--shard 1/2 --pgnout {pgn}", "--srand"),
        ("--shard 1/2 --srand 1", "--pgnout"),
        (
            "--shard 1/2 --srand 1 --pgnout {pgn} --sprt elo0=0 elo1=5",
            "--pool",
        ),
        (
            "--shard 1/2 --srand 1 --pgnout {pgn} --pool {pgn}.pool",
            "--sprt",
        ),
        ("--shard 3/2 --srand 1 --pgnout {pgn}", "3/2"),
        ("--shard auto --srand 1 --pgnout {pgn}", "no scheduler"),
    ] {
        let out = cmd(["match"])
            .args(argv(&format!("{base} {extra}"), &[("pgn", s(&pgn))]))
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("JOB_COMPLETION_INDEX")
            .run();
        assert_eq!(out.code(), Some(2), "{extra}: {}", out.describe());
        assert!(
            out.stderr_text().contains(says),
            "{extra}: {}",
            out.describe()
        );
    }
}

/// `--shard auto` in a Slurm job array's task: task 5 of `--array=4-5` is
/// shard 2 of 2, and writes that part.
#[test]
fn shard_auto_takes_a_slurm_array_tasks_numbers() {
    let t = TempDir::new("match-shard-auto");
    let pgn = t.join("a.pgn");
    let out = cmd(["match"])
        .args(argv(
            &format!("{} --shard auto --pgnout {{pgn}}", det_match(1, 2)),
            &[("pgn", s(&pgn))],
        ))
        .env("SLURM_ARRAY_TASK_ID", "5")
        .env("SLURM_ARRAY_TASK_MIN", "4")
        .env("SLURM_ARRAY_TASK_COUNT", "2")
        .env_remove("JOB_COMPLETION_INDEX")
        .run();
    assert_eq!(out.code(), Some(0), "{}", out.describe());
    assert!(
        out.stdout_text().contains("Shard 2/2"),
        "{}",
        out.describe()
    );
    let part = std::fs::read_to_string(t.join("a.pgn.shard-2-of-2")).unwrap();
    // The second block of 2 rounds of pairs: games 3 and 4.
    let rounds: Vec<usize> = results(&part).iter().map(|g| g.0 + 1).collect();
    assert_eq!(rounds, [3, 4]);
    assert!(!pgn.exists() && !t.join("a.pgn.shard-1-of-2").exists());
}

/// A shard prints the SPRT it decides on, the pool's: shard 2 of 2 plays
/// its share first, then shard 1's cutechess-cli lines end on the LLR over
/// every pair of the pool (the merge's, of both shards' games), not over
/// its own games.
#[test]
fn a_shard_prints_the_pools_sprt_not_its_own_games() {
    let t = TempDir::new("match-shard-printed-sprt");
    let pgn = t.join("p.pgn");
    let pool = t.join("pool");
    // Bounds so near that a few pairs decide nothing.
    let sprt = "elo0=0 elo1=20 alpha=0.05 beta=0.05 model=logistic";
    let rounds = 6;
    let mut stdout = String::new();
    for k in [2, 1] {
        let out = run_match(&argv(
            &format!(
                "--engine cmd=builtin name=a nodes=100 --engine cmd=builtin name=b nodes=130 \
                 --games 2 --rounds {rounds} --srand 9 --openings file={BOOK} order=random \
                 --sprt {sprt} --shard {k}/2 --pool {{pool}} --pgnout {{pgn}} \
                 --output cutechess --ratinginterval 1"
            ),
            &[("pool", s(&pool)), ("pgn", s(&pgn))],
        ));
        assert_eq!(out.status.code(), Some(0), "shard {k}: {}", describe(&out));
        stdout = text(&out.stdout);
    }
    let printed: f64 = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("SPRT: llr "))
        .next_back()
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|llr| llr.parse().ok())
        .unwrap_or_else(|| panic!("no SPRT line: {stdout}"));
    let schedule = Schedule::new(2, Pairing::RoundRobin, rounds, 2).unwrap();
    let test = Sprt::new(sprt.parse::<SprtConfig>().unwrap()).unwrap();
    let llr_of = |path: &Path| {
        let games: Vec<(usize, GameOutcome)> = results(&std::fs::read_to_string(path).unwrap())
            .into_iter()
            .map(|(n, _, outcome)| (n, outcome))
            .collect();
        test.llr(&tally_of(&schedule, &games))
    };
    let own = llr_of(&PathBuf::from(format!("{}.shard-1-of-2", pgn.display())));
    let out = rookery(&["match", "merge", "--pgnout", s(&pgn), "--json"], b"");
    assert_eq!(out.code(), Some(0), "{}", out.describe());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["sprt"]["decision"].is_null(), "{v}");
    let pooled = v["sprt"]["last"]["llr"].as_f64().unwrap();
    assert!((pooled - llr_of(&pgn)).abs() < 1e-9, "{v}");
    // cutechess-cli prints three significant figures.
    let close = |a: f64, b: f64| (a - b).abs() <= 5e-3 * a.abs().max(b.abs()).max(1e-3);
    assert!(
        close(printed, pooled),
        "printed {printed}, the pool's {pooled}, shard 1's own {own}: {stdout}"
    );
    assert!(
        !close(own, pooled),
        "shard 1's own LLR {own} is the pool's {pooled}: the test tells nothing"
    );
}
