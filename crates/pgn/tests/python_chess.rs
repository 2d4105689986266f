//! Differential test against python-chess (`chess.pgn.read_game`): for every
//! PGN file in tests/data (and the big corpora in ../shared/data/pgn when
//! present), the same number of games and, per game, the same tags, the same
//! mainline length, the same final FEN and the same games flagged as errors.
//!
//! python-chess is line-oriented where the PGN standard is token-oriented, so a
//! few malformed files are read differently on purpose; they are listed in
//! [`DIVERGENT`] with the reason and checked against our own expectation, and,
//! where a third reader agrees with us, against pgn-extract (whose test
//! files most of them are).
//!
//! Fails when `CI` is set and python3 with python-chess 1.11.2 (the
//! version the expected counts were measured with), or pgn-extract, is
//! missing; both are looked up on PATH.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rookery_pgn::{GameErrorKind, Games};
use rookery_testkit::cmd::Cmd;

/// A file python-chess reads differently from the PGN standard.
struct Divergent {
    file: &'static str,
    /// How many games we read.
    games: usize,
    /// Our games (from 1) that python-chess does not see at all; the others
    /// are then compared one to one. Empty with `aligned == false`: only our
    /// game count is checked.
    missing_in_python: &'static [usize],
    /// Games whose tags python-chess reads wrongly (tag comparison skipped).
    tags_differ: &'static [usize],
    aligned: bool,
    /// pgn-extract, a third reader, reads the same games as we do
    /// ([`divergent_files_read_as_pgn_extract_reads_them`]).
    pgn_extract_agrees: bool,
    why: &'static str,
}

const DIVERGENT: &[Divergent] = &[
    Divergent {
        file: "pe-nobadresults.pgn",
        games: 9,
        missing_in_python: &[],
        tags_differ: &[],
        aligned: false,
        pgn_extract_agrees: true,
        why: "nine one-line games '[Result ..] e4 <marker>': python-chess wants movetext on \
              its own line and reads one game with no moves",
    },
    Divergent {
        file: "pe-fuzzydepth.pgn",
        games: 4,
        missing_in_python: &[],
        tags_differ: &[],
        aligned: false,
        pgn_extract_agrees: true,
        why: "four tag-less games, one per line, each ending with '*': python-chess ignores \
              the markers and merges them into one game (then fails on an illegal move)",
    },
    Divergent {
        file: "pe-stalemate.pgn",
        games: 3,
        missing_in_python: &[],
        tags_differ: &[],
        aligned: false,
        pgn_extract_agrees: true,
        why: "no blank line between a game's marker and the next tags: python-chess reads \
              the next tags as movetext and splits that game in two (4 games)",
    },
    Divergent {
        file: "pe-checkmate.pgn",
        games: 2,
        missing_in_python: &[],
        tags_differ: &[],
        aligned: false,
        pgn_extract_agrees: true,
        why: "a blank line between a pre-game comment and the moves: python-chess ends the \
              game there (tags and comment, no moves) and reads the moves as a third, \
              tag-less game",
    },
    Divergent {
        file: "chessjs-0-br-newlines.pgn",
        games: 1,
        missing_in_python: &[],
        tags_differ: &[],
        aligned: false,
        pgn_extract_agrees: false,
        why: "'<br />' instead of line breaks: python-chess reads one tag and no moves; we \
              skip '<...>' (reserved tokens) and read the tags (but one with an invalid name, skipped with a warning) and the 77 plies",
    },
    Divergent {
        file: "pe-nested-comment.pgn",
        games: 1,
        missing_in_python: &[],
        tags_differ: &[],
        aligned: false,
        pgn_extract_agrees: false,
        why: "nested braces: python-chess reads '--nestedcomment' after the first '}' as a \
              null move; we report the words after it as unknown tokens (1 ply)",
    },
    Divergent {
        file: "pgn_test.pgn",
        games: 19,
        missing_in_python: &[13],
        tags_differ: &[1],
        aligned: true,
        pgn_extract_agrees: false,
        why: "game 13 is one line (tags and moves): python-chess cannot match it as a tag \
              line and drops the game; game 1 has several tags on one line, which \
              python-chess reads as one Site tag",
    },
];

#[derive(Debug, Clone, PartialEq)]
struct Summary {
    tags: Vec<(String, String)>,
    plies: usize,
    fen: String,
    /// "ok", "error" or "unsupported" (a variant neither side is asked to play).
    status: String,
}

fn ours(path: &Path) -> Vec<Summary> {
    summaries(&decoded(&std::fs::read(path).unwrap()))
}

/// The file as the command line reads it: UTF-8, or ISO 8859-1 (the PGN
/// standard's character set) where it is not; never a replacement character.
fn decoded(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut text = Vec::new();
    rookery_io::latin1::Latin1Read::new(bytes, |_| {})
        .read_to_end(&mut text)
        .unwrap();
    text
}

fn summaries(bytes: &[u8]) -> Vec<Summary> {
    let mut out = Vec::new();
    for g in Games::new(bytes) {
        let g = g.unwrap();
        let status = match &g.error {
            None => "ok",
            Some(e) if matches!(e.kind, GameErrorKind::UnsupportedVariant(_)) => "unsupported",
            Some(_) => "error",
        };
        out.push(Summary {
            tags: g
                .game
                .exported_tags()
                .iter()
                .map(|(n, v)| (n.to_owned(), v.to_owned()))
                .collect(),
            plies: g.game.mainline.nodes.len(),
            fen: rookery_pgn::game::fen_of(&g.game.end_position()),
            status: status.to_owned(),
        });
    }
    out
}

const SCRIPT: &str = r#"
import sys, json, re, chess, chess.pgn
SUPPORTED = {"", "standard", "chess", "normal", "from position", "fromposition", "chess960",
             "chess 960", "fischerandom", "fischerrandom", "fischer random", "960"}
unesc = lambda v: re.sub(r'\\(["\\])', r'\1', v)
for path in sys.argv[1:]:
    # The PGN standard's character set is ISO 8859-1: a line that is not
    # UTF-8 is read as Latin-1, so that both readers see the real characters
    # (replacing bad bytes on both sides would hide a reader that mangles them).
    # Line by line, as the command line does (some files mix the two).
    def dec(line):
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            return line.decode("latin-1")
    text = "".join(dec(l) for l in open(path, "rb").read().splitlines(keepends=True))
    import io
    with io.StringIO(text) as f:
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                break
            variant = g.headers.get("Variant", "").strip().lower()
            board = g.end().board()
            status = "ok"
            if variant not in SUPPORTED:
                status = "unsupported"
            elif g.errors:
                status = "error"
            print(json.dumps({"file": path, "tags": [[k, unesc(v)] for k, v in g.headers.items()],
                              "plies": len(list(g.mainline_moves())), "fen": board.fen(),
                              "status": status}))
"#;

fn theirs(python: &Path, paths: &[PathBuf]) -> BTreeMap<PathBuf, Vec<Summary>> {
    let out = Cmd::new(python).arg("-c").arg(SCRIPT).args(paths).run();
    out.assert_code(0);
    let mut map: BTreeMap<PathBuf, Vec<Summary>> = BTreeMap::new();
    for p in paths {
        map.insert(p.clone(), Vec::new());
    }
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let tags = v["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|kv| {
                (
                    kv[0].as_str().unwrap().to_owned(),
                    kv[1].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let s = Summary {
            tags,
            plies: v["plies"].as_u64().unwrap() as usize,
            fen: v["fen"].as_str().unwrap().to_owned(),
            status: v["status"].as_str().unwrap().to_owned(),
        };
        map.get_mut(Path::new(v["file"].as_str().unwrap()))
            .unwrap()
            .push(s);
    }
    map
}

fn data_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    // Big corpora from the shared data folder when present. The 32 MB TCEC file
    // takes python-chess about a minute: only with ROOKERY_PGN_BIG=1.
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn");
    let mut big = vec!["twic0920.pgn"];
    if std::env::var_os("ROOKERY_PGN_BIG").is_some() {
        big.push("tcec-superfinals-s6-s18.pgn");
    }
    for name in big {
        let p = shared.join(name);
        if p.exists() {
            files.push(p);
        } else {
            eprintln!("note: {} not present, skipped", p.display());
        }
    }
    files
}

#[test]
fn same_games_as_python_chess() {
    let Some(python) = rookery_testkit::peer::python_chess() else {
        return;
    };
    let files = data_files();
    let py = theirs(&python, &files);
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let us = ours(path);
        let them = &py[path];
        let plies: usize = us.iter().map(|s| s.plies).sum();
        report.push(format!(
            "{name}: {} games / {} plies (python-chess {} / {})",
            us.len(),
            plies,
            them.len(),
            them.iter().map(|s| s.plies).sum::<usize>()
        ));
        let div = DIVERGENT.iter().find(|d| d.file == name);
        let mut us: Vec<(usize, Summary)> = us
            .into_iter()
            .enumerate()
            .map(|(i, s)| (i + 1, s))
            .collect();
        if let Some(d) = div {
            if us.len() != d.games {
                failures.push(format!(
                    "{name}: expected {} games, read {}",
                    d.games,
                    us.len()
                ));
            }
            report.push(format!("  (documented divergence: {})", d.why));
            if !d.aligned {
                continue;
            }
            us.retain(|(i, _)| !d.missing_in_python.contains(i));
        }
        if us.len() != them.len() {
            failures.push(format!(
                "{name}: {} games, python-chess {}",
                us.len(),
                them.len()
            ));
            continue;
        }
        for ((g, a), b) in us.iter().zip(them) {
            let g = *g;
            let tags_differ = div.is_some_and(|d| d.tags_differ.contains(&g));
            if a.tags != b.tags && !tags_differ {
                failures.push(format!(
                    "{name} game {g}: tags {:?} vs {:?}",
                    a.tags, b.tags
                ));
            }
            if a.status != b.status {
                failures.push(format!("{name} game {g}: {} vs {}", a.status, b.status));
            } else if a.status == "ok" {
                if a.plies != b.plies {
                    failures.push(format!("{name} game {g}: {} plies vs {}", a.plies, b.plies));
                }
                if a.fen != b.fen {
                    failures.push(format!("{name} game {g}: final {} vs {}", a.fen, b.fen));
                }
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What pgn-extract itself says about each game it writes: the `PlyCount`
/// tag it adds (`--plycount`) and the final position it adds as a comment
/// (`-F`), read from its text with string matching only, not with our PGN
/// reader, so that a bug shared by our reader and writer cannot cancel out.
fn pgn_extract_games(exe: &Path, file: &Path) -> Vec<(usize, String)> {
    let out = Cmd::new(exe)
        .args(["--quiet", "-F", "--plycount"])
        .arg(file)
        .run();
    out.assert_code(0);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut plies = Vec::new();
    let mut fens = Vec::new();
    for line in text.lines() {
        if let Some(n) = line
            .strip_prefix("[PlyCount \"")
            .and_then(|r| r.strip_suffix("\"]"))
        {
            plies.push(n.parse::<usize>().expect("PlyCount is a number"));
        }
        // `-F` ends each game with `{ "FEN" }` before the result.
        let mut rest = line;
        while let Some(i) = rest.find("{ \"") {
            let after = &rest[i + 3..];
            let Some(j) = after.find("\" }") else { break };
            fens.push(after[..j].to_owned());
            rest = &after[j..];
        }
    }
    assert_eq!(plies.len(), fens.len(), "{}:\n{text}", file.display());
    plies.into_iter().zip(fens).collect()
}

/// The fields of a FEN that every writer agrees on: board, side to move,
/// castling, and the two clocks (writers differ on when to name an
/// en-passant square).
fn fen_key(fen: &str) -> String {
    let f: Vec<&str> = fen.split_whitespace().collect();
    [f[0], f[1], f[2], f[4], f[5]].join(" ")
}

/// Where python-chess reads a malformed file differently, pgn-extract (a C
/// reader of its own, with its own move checking) is asked too: for the files
/// marked `pgn_extract_agrees`, pgn-extract finds the same games, and says
/// itself (its PlyCount tag and final-position comment) that each has our
/// mainline length and our final position.
#[test]
fn divergent_files_read_as_pgn_extract_reads_them() {
    let Some(exe) = rookery_testkit::peer::pgn_extract() else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut checked = 0;
    for d in DIVERGENT.iter().filter(|d| d.pgn_extract_agrees) {
        let us: Vec<(usize, String)> = ours(&dir.join(d.file))
            .iter()
            .map(|s| {
                assert_eq!(s.status, "ok", "{}", d.file);
                (s.plies, fen_key(&s.fen))
            })
            .collect();
        let them: Vec<(usize, String)> = pgn_extract_games(&exe, &dir.join(d.file))
            .into_iter()
            .map(|(p, f)| (p, fen_key(&f)))
            .collect();
        assert_eq!(us, them, "{}: ours vs pgn-extract's", d.file);
        assert_eq!(us.len(), d.games, "{}", d.file);
        checked += 1;
    }
    assert_eq!(checked, 4);
}

/// Our normalize output (every game read without error, in export format),
/// read back by python-chess, gives the same games as the original.
#[test]
fn python_chess_reads_our_output_as_the_original() {
    let Some(python) = rookery_testkit::peer::python_chess() else {
        return;
    };
    let dir = rookery_testkit::TempDir::new("pgn-python-rt");
    let mut written = Vec::new();
    let mut expected = Vec::new();
    for path in data_files() {
        let bytes = std::fs::read(&path).unwrap();
        let mut text = String::new();
        let mut ok = Vec::new();
        for g in Games::new(&bytes[..]) {
            let g = g.unwrap();
            if g.error.is_none() {
                text.push_str(&rookery_pgn::game_to_string(&g.game));
                ok.push(g);
            }
        }
        let out = dir.path().join(path.file_name().unwrap());
        std::fs::write(&out, &text).unwrap();
        // Our own reading of our output.
        let again = summaries(text.as_bytes());
        let before: Vec<Summary> = summaries(&bytes)
            .into_iter()
            .filter(|s| s.status == "ok")
            .collect();
        assert_eq!(again, before, "{}", path.display());
        written.push(out);
        expected.push(before);
    }
    let py = theirs(&python, &written);
    let mut failures = Vec::new();
    for (path, before) in written.iter().zip(&expected) {
        if &py[path] != before {
            failures.push(format!(
                "{}: python-chess reads {:?}\nexpected {:?}",
                path.display(),
                py[path],
                before
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
