//! `rookery pgn split | sort | cat` end to end: every input game is in the
//! outputs exactly once, byte for byte (games cut here from the files'
//! text, with no help from rookery's reader); sorted order checked against
//! an order computed here and against python-chess
//! (tests/python/sort_check.py); an external sort with a tiny `--memory`
//! writes what the sort in memory writes; hostile tag values name files
//! inside the output directory only; a killed run leaves no partial output;
//! games that cannot be read are reported, rejected or kept; split writes
//! the files `pgn-extract -#N` and `-E3` write.

use crate::common::{cmd, rookery, s, text};
use rookery_testkit::snapshot::{assert_snapshot, json_shape};
use rookery_testkit::{peer, TempDir};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Well-formed collections (every game opens with `[Event `): TWIC, lichess,
/// a Latin-1 file, Chess960, engines' games.
const CORPUS: &[&str] = &[
    "twic1599_10k.pgn",
    "lichess_db_10k.pgn",
    "pe-odds-latin1.pgn",
    "kasparov-deep-blue-1997.pgn",
    "pe-fischer.pgn",
    "pe-bots.pgn",
    "pe-repetition.pgn",
    "cutechess-fischerrandom.pgn",
];

const SORT_CHECK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/sort_check.py");

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../pgn/tests/data")
        .join(name)
}

/// The games of a PGN text, cut at each line that starts with `[Event `
/// (what comes before the first is left out), each without the white
/// space at its end.
fn cut(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut games: Vec<Vec<u8>> = Vec::new();
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        // What stands before the first game (`%` lines) is no game's.
        if line.starts_with(b"[Event ") {
            games.push(Vec::new());
        }
        if let Some(g) = games.last_mut() {
            g.extend_from_slice(line);
        }
    }
    games
        .into_iter()
        .map(|g| g.trim_ascii_end().to_vec())
        .filter(|g| !g.is_empty())
        .collect()
}

/// How many times each game stands in `games`.
fn multiset(games: &[Vec<u8>]) -> BTreeMap<Vec<u8>, usize> {
    let mut m = BTreeMap::new();
    for g in games {
        *m.entry(g.clone()).or_default() += 1;
    }
    m
}

/// The corpus in `t`: the files above and a CRLF copy of the first (the
/// same games in other bytes); their paths and their games in order.
fn corpus(t: &TempDir) -> (Vec<PathBuf>, Vec<Vec<u8>>) {
    let mut paths: Vec<PathBuf> = CORPUS.iter().map(|n| data(n)).collect();
    let twic = std::fs::read(&paths[0]).unwrap();
    let mut crlf = Vec::new();
    for line in twic.split_inclusive(|&b| b == b'\n') {
        match line.strip_suffix(b"\n") {
            Some(l) => {
                crlf.extend_from_slice(l);
                crlf.extend_from_slice(b"\r\n");
            }
            None => crlf.extend_from_slice(line),
        }
    }
    paths.push(t.write("twic-crlf.pgn", &crlf));
    let games = paths
        .iter()
        .flat_map(|p| cut(&std::fs::read(p).unwrap()))
        .collect();
    (paths, games)
}

fn args<'a>(head: &[&'a str], paths: &'a [PathBuf], tail: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = head.to_vec();
    v.extend(paths.iter().map(|p| s(p)));
    v.extend_from_slice(tail);
    v
}

/// The value of tag `name` in a game's text, read as Latin-1 where it is
/// not UTF-8.
fn tag(game: &[u8], name: &str) -> Option<String> {
    let key = format!("[{name} \"");
    let line = game
        .split(|&b| b == b'\n')
        .find(|l| l.starts_with(key.as_bytes()))?;
    let rest = &line[key.len()..];
    let end = rest.iter().rposition(|&b| b == b'"')?;
    let v = &rest[..end];
    Some(match std::str::from_utf8(v) {
        Ok(t) => t.to_owned(),
        Err(_) => v.iter().map(|&b| b as char).collect(),
    })
}

/// The files of `dir` that are not hidden, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn cat_joins_every_game_once_in_order_byte_for_byte() {
    let t = TempDir::new("cat");
    let (paths, games) = corpus(&t);
    let out = t.join("all.pgn");
    let run = rookery(&args(&["pgn", "cat"], &paths, &["-o", s(&out)]), b"");
    run.assert_code(0);
    let written = std::fs::read(&out).unwrap();
    assert!(
        cut(&written) == games,
        "cat wrote other games or another order"
    );
    assert!(
        run.stderr_text().contains("games read"),
        "{}",
        run.describe()
    );
    // A well-formed file comes out as it went in.
    let twic = std::fs::read(&paths[0]).unwrap();
    let one = rookery(&["pgn", "cat", s(&paths[0])], b"");
    one.assert_code(0);
    assert!(one.stdout == twic, "cat of one file changed it");
    // Stdin, several threads: the same.
    let all: Vec<u8> = paths
        .iter()
        .flat_map(|p| std::fs::read(p).unwrap())
        .collect();
    let piped = rookery(
        &["pgn", "cat", "-", "--jobs", "2", "--chunk-bytes", "5000"],
        &all,
    );
    piped.assert_code(0);
    assert!(cut(&piped.stdout) == games);
    let threads = rookery(
        &args(
            &["pgn", "cat", "--jobs", "3", "--chunk-bytes", "4000"],
            &paths,
            &[],
        ),
        b"",
    );
    assert!(threads.stdout == written);
}

#[test]
fn split_by_count_keeps_every_game_once_in_order() {
    let t = TempDir::new("split-count");
    let (paths, games) = corpus(&t);
    let dir = t.join("parts");
    let run = rookery(
        &args(
            &["pgn", "split"],
            &paths,
            &[
                "--games",
                "7",
                "-d",
                s(&dir),
                "--pattern",
                "part-{num:3}.pgn",
                "--json",
            ],
        ),
        b"",
    );
    run.assert_code(0);
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(summary["games"], games.len());
    assert_eq!(summary["written"], games.len());
    let written = files(&dir);
    assert_eq!(
        written.len(),
        games.len().div_ceil(7),
        "{:?}",
        written.keys()
    );
    let mut joined = Vec::new();
    for (i, (name, bytes)) in written.iter().enumerate() {
        assert_eq!(name, &format!("part-{:03}.pgn", i + 1));
        let in_file = cut(bytes);
        if i + 1 < written.len() {
            assert_eq!(in_file.len(), 7, "{name}");
        }
        joined.extend(in_file);
    }
    assert!(joined == games, "the parts are not the input in order");
}

#[test]
fn split_by_tag_puts_each_game_in_its_values_file() {
    let t = TempDir::new("split-tag");
    let (paths, games) = corpus(&t);
    for (field, tag_name, year) in [
        ("ECO", "ECO", false),
        ("date:year", "Date", true),
        ("Black", "Black", false),
    ] {
        let dir = t.join(field.replace(':', "-"));
        let run = rookery(
            &args(&["pgn", "split", "--by", field, "-d", s(&dir)], &paths, &[]),
            b"",
        );
        run.assert_code(0);
        let written = files(&dir);
        let mut all = Vec::new();
        let mut values = BTreeMap::new();
        for (name, bytes) in &written {
            let in_file = cut(bytes);
            // One value a file, one file a value.
            let value = |g: &Vec<u8>| {
                let v = tag(g, tag_name).filter(|v| !v.chars().all(|c| c == '?' || c == '.'));
                if year {
                    v.map(|v| v[..4].to_string()).filter(|y| y != "????")
                } else {
                    v
                }
            };
            let v = value(&in_file[0]);
            assert!(in_file.iter().all(|g| value(g) == v), "{field}: {name}");
            assert!(
                values.insert(v.clone(), name.clone()).is_none(),
                "{v:?} in two files"
            );
            if let Some(v) = &v {
                if v.chars().all(|c| c.is_ascii_alphanumeric()) {
                    assert_eq!(name, &format!("{v}.pgn"));
                }
            } else {
                assert_eq!(name, "unknown.pgn");
            }
            // In input order within a file.
            let positions: Vec<usize> = in_file
                .iter()
                .map(|g| games.iter().position(|x| x == g).unwrap())
                .collect();
            assert!(positions.is_sorted(), "{field}: {name} is out of order");
            all.extend(in_file);
        }
        assert!(
            multiset(&all) == multiset(&games),
            "{field}: games lost or doubled"
        );
    }
    // The Latin-1 file's players name files in UTF-8.
    assert!(files(&t.join("Black")).contains_key("François André Philidor.pgn"));
}

/// Whether a value says nothing: empty, or only `?` and `.`.
fn says_nothing(v: &str) -> bool {
    v.trim().chars().all(|c| c == '?' || c == '.')
}

/// More values than files kept open at once (128): each file is closed
/// while others are written and opened again for its next game, which is
/// added after the ones already in it.
#[test]
fn split_by_a_tag_with_many_values_keeps_adding_to_each_file() {
    let t = TempDir::new("split-many");
    let values = 300;
    let mut pgn = String::new();
    for i in 0..3 * values {
        pgn.push_str(&format!(
            "[Event \"e\"]\n[Round \"{}\"]\n\n1. e4 {{game {i}}} *\n\n",
            i % values
        ));
    }
    let input = t.write("many.pgn", &pgn);
    let dir = t.join("rounds");
    let run = rookery(
        &["pgn", "split", s(&input), "--by", "Round", "-d", s(&dir)],
        b"",
    );
    run.assert_code(0);
    let written = files(&dir);
    assert_eq!(written.len(), values);
    let games = cut(pgn.as_bytes());
    for r in 0..values {
        let in_file = cut(&written[&format!("{r}.pgn")]);
        let expected: Vec<Vec<u8>> = (0..3).map(|k| games[r + k * values].clone()).collect();
        assert!(in_file == expected, "{r}.pgn");
    }
}

/// The order `--by Date,Round` means, computed here from `pgn sort
/// --help`: a Date that is a date (`YYYY`, `YYYY.MM`, `YYYY.MM.DD`, `?`s
/// for unknown parts, which come first) before one that is other text,
/// before a missing one (absent, `?`s, an unknown year); a Round that is
/// numbers and dots as a list of numbers, before other text, before a
/// missing one; ties in input order.
fn date_round_order(games: &[Vec<u8>]) -> Vec<Vec<u8>> {
    type Date = (u8, (u32, u32, u32), String);
    let date = |g: &Vec<u8>| -> Date {
        let Some(v) = tag(g, "Date").filter(|v| !says_nothing(v)) else {
            return (2, (0, 0, 0), String::new());
        };
        let p: Vec<&str> = v.trim().split(['.', '-', '/']).collect();
        let n = |s: &str, len: std::ops::RangeInclusive<usize>, max: u32| -> Option<u32> {
            if !len.contains(&s.len()) {
                return None;
            }
            if s.chars().all(|c| c == '?') {
                return Some(0);
            }
            s.parse().ok().filter(|n| (1..=max).contains(n))
        };
        let parts = match p.as_slice() {
            [y] => n(y, 4..=4, 9999).map(|y| (y, 0, 0)),
            [y, m] => n(y, 4..=4, 9999)
                .zip(n(m, 1..=2, 12))
                .map(|(y, m)| (y, m, 0)),
            [y, m, d] => match (n(y, 4..=4, 9999), n(m, 1..=2, 12), n(d, 1..=2, 31)) {
                (Some(y), Some(m), Some(d)) if m > 0 || d == 0 => Some((y, m, d)),
                _ => None,
            },
            _ => None,
        };
        match parts {
            Some((0, ..)) => (2, (0, 0, 0), String::new()),
            Some(ymd) => (0, ymd, String::new()),
            None => (1, (0, 0, 0), v.to_lowercase()),
        }
    };
    let round = |g: &Vec<u8>| -> (u8, Vec<u64>, String) {
        match tag(g, "Round").filter(|v| !says_nothing(v)) {
            None => (2, Vec::new(), String::new()),
            Some(v) => match v.trim().split('.').map(|p| p.parse().ok()).collect() {
                Some(numbers) => (0, numbers, String::new()),
                None => (1, Vec::new(), v.to_lowercase()),
            },
        }
    };
    let mut sorted: Vec<Vec<u8>> = games.to_vec();
    sorted.sort_by_key(|g| (date(g), round(g)));
    sorted
}

#[test]
fn sort_orders_dates_as_dates_and_rounds_as_numbers_stably() {
    let t = TempDir::new("sort");
    let (paths, games) = corpus(&t);
    let out = t.join("sorted.pgn");
    rookery(
        &args(
            &["pgn", "sort", "--by", "Date,Round"],
            &paths,
            &["-o", s(&out)],
        ),
        b"",
    )
    .assert_code(0);
    let written = cut(&std::fs::read(&out).unwrap());
    assert!(
        multiset(&written) == multiset(&games),
        "games lost or doubled"
    );
    assert!(
        written == date_round_order(&games),
        "not in Date,Round order"
    );
    // Stable: each TWIC game before its CRLF twin (the same key, later in the input).
    let first = cut(&std::fs::read(&paths[0]).unwrap());
    for g in &first {
        let twin: Vec<u8> = g
            .split(|&b| b == b'\n')
            .collect::<Vec<_>>()
            .join(&b"\r\n"[..]);
        let at = |x: &Vec<u8>| written.iter().position(|w| w == x).unwrap();
        assert!(at(g) < at(&twin), "a game after its twin");
    }
    let Some(python) = peer::python_chess() else {
        return;
    };
    for fields in ["Date,Round", "WhiteElo:desc,Event", "Black,Date:desc"] {
        let out = t.join(format!("sorted-{}.pgn", fields.replace([',', ':'], "-")));
        rookery(
            &args(&["pgn", "sort", "--by", fields], &paths, &["-o", s(&out)]),
            b"",
        )
        .assert_code(0);
        let mut c = Command::new(&python);
        c.arg(SORT_CHECK).arg(fields).arg(&out).args(&paths);
        let o = c.output().expect("run python3");
        assert!(
            o.status.success(),
            "python-chess disagrees on --by {fields}:\n{}",
            text(&o.stderr)
        );
        let counts: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(counts["games"], games.len());
    }
}

#[test]
fn an_external_sort_with_a_tiny_memory_writes_what_the_sort_in_memory_writes() {
    let t = TempDir::new("sort-external");
    let (paths, games) = corpus(&t);
    let sorted = |extra: &[&str]| {
        let out = t.join("out.pgn");
        let run = rookery(
            &args(
                &["pgn", "sort", "--by", "Round,White"],
                &paths,
                &[&["-o", s(&out), "--json"][..], extra].concat(),
            ),
            b"",
        );
        run.assert_code(0);
        let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        (std::fs::read(&out).unwrap(), summary)
    };
    let (in_memory, summary) = sorted(&[]);
    assert_eq!(summary["runs"], 0);
    assert!(multiset(&cut(&in_memory)) == multiset(&games));
    // One game a run: more runs than are merged at once.
    let (external, summary) = sorted(&["--memory", "1", "--temp-dir", s(t.path())]);
    assert_eq!(summary["runs"], games.len());
    assert!(summary["merges"].as_u64().unwrap() >= 1, "{summary}");
    assert!(external == in_memory, "the external sort differs");
    let (some_runs, summary) = sorted(&["--memory", "40K", "--jobs", "2", "--chunk-bytes", "3000"]);
    assert!(summary["runs"].as_u64().unwrap() > 1, "{summary}");
    assert!(some_runs == in_memory, "the sort on two threads differs");
    // Nothing left in the temporary directory.
    let left: Vec<String> = t
        .names()
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn hostile_values_name_files_inside_the_directory_only() {
    let t = TempDir::new("split-hostile");
    let long = "x".repeat(300);
    let long2 = format!("{}y", "x".repeat(299));
    let values: Vec<String> = vec![
        "../../etc".into(),
        "..".into(),
        ".".into(),
        "/abs/path".into(),
        "a\\b".into(),
        "tab\there".into(),
        "esc\u{1b}[31mred".into(),
        "nul\u{1}char".into(),
        "Carlsen".into(),
        "carlsen".into(),
        "CARLSEN".into(),
        long.clone(),
        long2,
        "con".into(),
        "-rf".into(),
        "right\u{202e}txt.exe".into(),
        "trailing. ".into(),
        "".into(),
    ];
    let mut pgn = String::new();
    for (i, v) in values.iter().enumerate() {
        let escaped = v.replace('\\', "\\\\");
        pgn.push_str(&format!(
            "[Event \"{escaped}\"]\n[Round \"{i}\"]\n\n1. e4 e5 {{game {i}}} 1-0\n\n"
        ));
    }
    let input = t.write("hostile.pgn", &pgn);
    let root = t.join("root");
    let dir = root.join("out");
    std::fs::create_dir_all(&dir).unwrap();
    let run = rookery(
        &[
            "pgn",
            "split",
            s(&input),
            "--by",
            "Event",
            "-d",
            s(&dir),
            "--json",
        ],
        b"",
    );
    run.assert_code(0);
    // Nothing beside the directory, nothing in a directory under it.
    let beside: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, ["out"]);
    assert!(!t.join("etc").exists() && !Path::new("/abs/path.pgn").exists());
    let written = files(&dir);
    let all: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    assert_eq!(all.len(), written.len(), "hidden files left");
    assert!(all.iter().all(|e| e.file_type().unwrap().is_file()));
    let mut folded = std::collections::BTreeSet::new();
    for name in written.keys() {
        assert!(name.len() <= 120, "{name:?} is long");
        assert!(
            !name.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{name:?}"
        );
        assert!(!name.starts_with(['.', '-']), "{name:?}");
        assert!(
            folded.insert(name.to_lowercase()),
            "{name:?} clashes by case"
        );
    }
    // Every value its own file, every game once.
    let games = cut(pgn.as_bytes());
    let mut seen = Vec::new();
    for bytes in written.values() {
        let in_file = cut(bytes);
        // One value a file; the values that say nothing ("", ".", "..") together.
        let events: std::collections::BTreeSet<_> = in_file
            .iter()
            .map(|g| tag(g, "Event").filter(|v| !says_nothing(v)))
            .collect();
        assert_eq!(events.len(), 1, "{events:?}");
        seen.extend(in_file);
    }
    assert!(multiset(&seen) == multiset(&games));
    // "", "." and ".." say nothing: one file, unknown.pgn, for the three.
    assert_eq!(written.len(), values.len() - 2);
    assert!(written.contains_key("unknown.pgn"));
    assert!(written.contains_key("Carlsen.pgn") && written.contains_key("carlsen~2.pgn"));
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(summary["files"].as_array().unwrap().len(), written.len());
}

/// Polls `done` every 20 ms for at most 60 s (a liveness bound, not a
/// speed assertion).
fn wait_for(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "gave up waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Writes `games` (a blank line after each) to the stdin of `child`, left
/// open, so that the last game is never known to be complete; kills the
/// child (SIGKILL) once `what` is there (`done`, see [`wait_for`]).
fn kill_once_fed(child: &mut Child, games: &[Vec<u8>], what: &str, done: impl Fn() -> bool) {
    let mut stdin = child.stdin.take().unwrap();
    for g in games {
        stdin.write_all(g).unwrap();
        stdin.write_all(b"\n\n").unwrap();
    }
    stdin.flush().unwrap();
    wait_for(what, done);
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);
}

#[test]
fn a_killed_split_or_sort_leaves_no_partial_output() {
    let t = TempDir::new("killed");
    let games = cut(&std::fs::read(data("pe-fischer.pgn")).unwrap());
    // Split: files of two games; every game sent but stdin left open, so
    // the last game read is never known to be complete: killed then, the
    // files done are whole and in place, the one being written is not.
    let dir = t.join("parts");
    let mut child = cmd([
        "pgn",
        "split",
        "-",
        "--games",
        "2",
        "-d",
        s(&dir),
        "--pattern",
        "{num:2}.pgn",
        "--chunk-bytes",
        "1000",
    ])
    .spawn();
    kill_once_fed(&mut child, &games, "the first file", || {
        dir.join("01.pgn").exists()
    });
    let written = files(&dir);
    assert!(!written.is_empty() && written.len() < games.len().div_ceil(2));
    for (i, (name, bytes)) in written.iter().enumerate() {
        assert_eq!(name, &format!("{:02}.pgn", i + 1));
        assert!(cut(bytes) == games[2 * i..2 * i + 2], "{name} is not whole");
    }

    // Sort: the file it replaces is left as it was.
    let out = t.write("sorted.pgn", "the previous output\n");
    let mut child = cmd([
        "pgn",
        "sort",
        "-",
        "--by",
        "Date",
        "-o",
        s(&out),
        "--memory",
        "1",
        "--chunk-bytes",
        "1000",
        "--temp-dir",
        s(t.path()),
    ])
    .spawn();
    let partial = t.join(".sorted.pgn.rookery-partial");
    kill_once_fed(&mut child, &games, "the partial output", || {
        partial.exists()
    });
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "the previous output\n"
    );
    // Its runs were unnamed files: only the partial file is left, hidden.
    let visible: Vec<String> = t
        .names()
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(visible, ["parts", "sorted.pgn"]);
}

#[test]
fn games_that_cannot_be_read_are_reported_and_rejected_or_kept() {
    let t = TempDir::new("bad");
    let input = data("pgn_test.pgn");
    let games = cut(&std::fs::read(&input).unwrap());
    let out = t.join("out.pgn");
    for verb in [&["cat"][..], &["sort", "--by", "Event"][..]] {
        let run = rookery(
            &[&["pgn"][..], verb, &[s(&input), "-o", s(&out), "--json"]].concat(),
            b"",
        );
        run.assert_code(1);
        let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(summary["errors"], 3, "{verb:?}");
        assert_eq!(summary["rejected"], 3);
        assert_eq!(summary["written"], games.len() - 3);
        let errors: Vec<String> = run
            .stderr_text()
            .lines()
            .filter(|l| l.contains(": error: "))
            .map(str::to_owned)
            .collect();
        assert_eq!(errors.len(), 3, "{}", run.describe());
        for e in &errors {
            // file:line:col
            let rest = e.strip_prefix(&format!("{}:", s(&input))).unwrap();
            let mut parts = rest.splitn(3, ':');
            assert!(parts.next().unwrap().parse::<u64>().is_ok(), "{e}");
            assert!(parts.next().unwrap().parse::<u64>().is_ok(), "{e}");
        }
        let written = cut(&std::fs::read(&out).unwrap());
        assert_eq!(written.len(), games.len() - 3);
        assert!(written.iter().all(|g| games.contains(g)));
    }
    let run = rookery(&["pgn", "cat", s(&input), "--keep-bad", "-o", s(&out)], b"");
    run.assert_code(1);
    assert!(
        cut(&std::fs::read(&out).unwrap()) == games,
        "--keep-bad lost a game"
    );
    // --json needs the games elsewhere than stdout.
    rookery(&["pgn", "cat", s(&input), "--json"], b"").assert_code(2);
}

#[test]
fn json_summaries_keep_their_shape() {
    let t = TempDir::new("json-shapes");
    let input = data("pgn_test.pgn");
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let out = t.join("out.pgn");
    let dir = t.join("parts");
    for (name, verb) in [
        ("json-pgn-cat", vec!["cat"]),
        ("json-pgn-sort", vec!["sort", "--by", "Date"]),
        (
            "json-pgn-split",
            vec!["split", "--games", "5", "-d", s(&dir)],
        ),
    ] {
        let mut argv = vec!["pgn"];
        argv.extend(verb);
        argv.extend([s(&input), "--json"]);
        if name != "json-pgn-split" {
            argv.extend(["-o", s(&out)]);
        }
        let run = rookery(&argv, b"");
        run.assert_code(1);
        let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_snapshot(&snapshots, name, &json_shape(&doc));
    }
}

/// The values of the tags that tell games apart, game by game, in a PGN
/// text: what a file written by pgn-extract (which rewrites every game) and
/// one written by rookery (which copies them) must agree on.
fn identities(bytes: &[u8]) -> Vec<[Option<String>; 5]> {
    cut(bytes)
        .iter()
        .map(|g| ["Event", "Round", "White", "Black", "Result"].map(|n| tag(g, n)))
        .collect()
}

/// Every file of `dir` and the identities of its games.
fn split_files(dir: &Path) -> BTreeMap<String, Vec<[Option<String>; 5]>> {
    files(dir)
        .into_iter()
        .map(|(name, bytes)| (name, identities(&bytes)))
        .collect()
}

/// `split --games N` and `split --by ECO` write the files `pgn-extract -#N`
/// and `pgn-extract -E3` write, the same games in each in the same order
/// (pgn-extract names the file of games without an ECO tag `noeco.pgn`).
#[test]
fn split_writes_the_files_pgn_extract_writes() {
    let Some(pgn_extract) = peer::pgn_extract() else {
        return;
    };
    let t = TempDir::new("split-pgn-extract");
    let inputs: Vec<PathBuf> = [
        "twic1599_10k.pgn",
        "lichess_db_10k.pgn",
        "pe-fischer.pgn",
        "pe-bots.pgn",
    ]
    .iter()
    .map(|n| data(n))
    .collect();
    for (theirs_flag, ours) in [("-#7", vec!["--games", "7"]), ("-E3", vec!["--by", "ECO"])] {
        let dir = t.join(format!("pe{theirs_flag}"));
        std::fs::create_dir_all(&dir).unwrap();
        let o = Command::new(&pgn_extract)
            .current_dir(&dir)
            .arg("-s")
            .arg(theirs_flag)
            .args(&inputs)
            .output()
            .expect("run pgn-extract");
        assert!(o.status.success(), "{}", text(&o.stderr));
        let mut theirs = split_files(&dir);
        if let Some(games) = theirs.remove("noeco.pgn") {
            theirs.insert("unknown.pgn".into(), games);
        }
        let mine = t.join(format!("rk{theirs_flag}"));
        let mut argv = vec!["pgn", "split", "-d", s(&mine)];
        argv.extend(ours);
        argv.extend(inputs.iter().map(|p| s(p)));
        rookery(&argv, b"").assert_code(0);
        let ours = split_files(&mine);
        assert!(theirs.len() > 3, "{theirs_flag}: {:?}", theirs.keys());
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            theirs.keys().collect::<Vec<_>>(),
            "{theirs_flag}"
        );
        for (name, games) in &theirs {
            assert!(&ours[name] == games, "{theirs_flag}: {name} differs");
        }
    }
}
