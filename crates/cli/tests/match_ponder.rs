//! Pondering in `rookery match` (`ponder`): the mock engine records what
//! it is sent, and two Stockfish ponder against each other.

use crate::common::describe;
use crate::common::{mock_engine, s, stockfish, ROOKERY};
use crate::match_compat::{bounded, results, workdir, BOOK};
use rookery_testkit::cmd::Cmd;
use std::path::Path;

// ---------------------------------------------------------------------
// 4. Pondering.
// ---------------------------------------------------------------------

/// The lines an engine was sent, from its own record.
fn recorded(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Checks the ponder protocol in what `P` was sent: every `go ponder`
/// follows a `position` and is ended by `ponderhit` or `stop` before
/// anything else; after `ponderhit` no `go` comes before the next
/// `position`; after `stop` a normal `go` on a new `position`. Returns
/// (ponder searches, hits, misses).
fn ponder_protocol(lines: &[String]) -> (usize, usize, usize) {
    let (mut searches, mut hits, mut misses) = (0, 0, 0);
    for (i, l) in lines.iter().enumerate() {
        if !l.starts_with("go ponder") {
            continue;
        }
        searches += 1;
        assert!(
            lines[i - 1].starts_with("position "),
            "{:?}",
            &lines[i - 1..]
        );
        match lines.get(i + 1).map(String::as_str) {
            Some("ponderhit") => {
                hits += 1;
                if let Some(next) = lines.get(i + 2) {
                    assert!(!next.starts_with("go"), "{:?}", &lines[i..i + 3]);
                }
            }
            Some("stop") => {
                misses += 1;
                // The next request (if the game went on): a position and a
                // normal go.
                // (`isready` between: the clock starts at `go`).
                if let Some(next) = lines.get(i + 2).filter(|n| n.starts_with("position")) {
                    let ready = lines.get(i + 3).is_some_and(|l| l == "isready");
                    let go = &lines[i + 3 + usize::from(ready)];
                    assert!(
                        go.starts_with("go ") && !go.starts_with("go ponder"),
                        "{next} {go}"
                    );
                }
            }
            None => {}
            other => panic!("go ponder followed by {other:?}: {:?}", &lines[i..]),
        }
    }
    (searches, hits, misses)
}

/// The mock, pondering, against a mock that plays the reply it expects
/// (the first legal move) and one that plays random moves: `ponderhit`
/// when the reply comes, `stop` and a normal `go` when another does; the
/// ponder search's clock is the engine's after its move plus its
/// increment. Without `ponder` nothing of it is sent.
#[test]
fn ponder_with_the_mock_engine() {
    let t = workdir("ponder-mock");
    let mock = mock_engine();
    for (opponent, want_hits) in [("", true), ("arg=--random arg=5", false)] {
        let rec = t.join("p.rec");
        let log = t.join("p.log");
        let _ = std::fs::remove_file(&rec);
        let _ = std::fs::remove_file(&log);
        let out = bounded(Cmd::new(ROOKERY).args(
            format!(
                "match --engine cmd={mock} name=P arg=--ponder arg=--record arg={} ponder \
                 --engine cmd={mock} name=Q {opponent} --each tc=30+0.25 --games 2 --maxmoves 12 --log {}",
                s(&rec),
                s(&log)
            )
            .split_whitespace(),
        ));
        assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
        let lines = recorded(&rec);
        assert!(
            lines.contains(&"setoption name Ponder value true".to_string()),
            "{lines:?}"
        );
        let (searches, hits, misses) = ponder_protocol(&lines);
        assert!(searches > 0, "{lines:?}");
        if want_hits {
            assert!(hits > 0, "{lines:?}");
        } else {
            assert!(misses > 0, "{lines:?}");
        }
        // Each ponder search is on the move P played and the reply it named,
        // with P's clock after the move plus its increment.
        let log = std::fs::read_to_string(&log).unwrap();
        let mine: Vec<&str> = log
            .lines()
            .filter_map(|l| l.split_once(" P#").map(|(_, r)| r))
            .collect();
        for (i, l) in mine.iter().enumerate() {
            let Some(go) = l.split_once(" < go ponder ").map(|(_, g)| g) else {
                continue;
            };
            let best = mine[i - 2]
                .split_once(" > bestmove ")
                .expect("bestmove, position, go ponder")
                .1;
            let best: Vec<&str> = best.split(' ').collect();
            let position = mine[i - 1]
                .split_once(" < position startpos moves ")
                .expect("position")
                .1;
            assert!(
                position.ends_with(&format!("{} {}", best[0], best[2])),
                "{position} after {best:?}"
            );
            // The request the move answered, if it was a normal `go` (not a
            // `ponderhit`): the clocks then and now.
            let request = mine[..i - 2]
                .iter()
                .rev()
                .find_map(|l| l.split_once(" < ").map(|(_, r)| r))
                .and_then(|r| r.strip_prefix("go "));
            let Some(request) = request else {
                continue;
            };
            let field = |s: &str, k: &str| -> u64 {
                let w: Vec<&str> = s.split(' ').collect();
                w.iter()
                    .position(|x| *x == k)
                    .map_or(0, |p| w[p + 1].parse().unwrap())
            };
            // P moves in the pondered position: White after an even number of moves.
            let white = position.split(' ').count() % 2 == 0;
            let (mine_t, theirs_t, inc) = if white {
                ("wtime", "btime", "winc")
            } else {
                ("btime", "wtime", "binc")
            };
            assert!(
                field(go, mine_t) <= field(request, mine_t) + field(request, inc),
                "{request} -> {go}"
            );
            assert_eq!(
                field(go, theirs_t),
                field(request, theirs_t),
                "{request} -> {go}"
            );
        }
    }
    // Without `ponder`: nothing of it.
    let rec = t.join("n.rec");
    let out = bounded(
        Cmd::new(ROOKERY).args(
            format!(
                "match --engine cmd={mock} name=P arg=--ponder arg=--record arg={} \
             --engine cmd={mock} name=Q --each tc=30+0.25 --maxmoves 6",
                s(&rec)
            )
            .split_whitespace(),
        ),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let lines = recorded(&rec);
    assert!(!lines.iter().any(|l| l.contains("ponder")), "{lines:?}");
}

/// Two Stockfish pondering (`option.Ponder` set by `ponder`): their
/// expected replies come often in self-play, so `ponderhit` is sent, and
/// `stop` when another move came; every ponder search ends before anything
/// else is sent, and the games end normally.
#[test]
fn ponder_with_stockfish() {
    let Some(sf) = stockfish() else {
        return;
    };
    let t = workdir("ponder-sf");
    let log = t.join("sf.log");
    let out = bounded(
        Cmd::new(ROOKERY)
            .args(
                format!(
                    "match cutechess-cli -engine cmd={sf} name=SF1 -engine cmd={sf} name=SF2 \
             -each tc=3+0.05 option.Threads=1 option.Hash=16 ponder -games 2 -rounds 1 -repeat \
             -maxmoves 25 -openings file={BOOK} -pgnout sf.pgn --log {}",
                    s(&log)
                )
                .split_whitespace(),
            )
            .dir(t.path()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let games = results(&t.join("sf.pgn"));
    assert_eq!(games.len(), 2);
    let log = std::fs::read_to_string(&log).unwrap();
    let mut total = (0, 0, 0);
    for name in ["SF1#1.1", "SF2#2.1"] {
        let sent: Vec<String> = log
            .lines()
            .filter_map(|l| {
                l.split_once(&format!(" {name} < "))
                    .map(|(_, r)| r.to_string())
            })
            .collect();
        assert!(
            sent.contains(&"setoption name Ponder value true".to_string()),
            "{sent:?}"
        );
        let (s, h, m) = ponder_protocol(&sent);
        total = (total.0 + s, total.1 + h, total.2 + m);
    }
    assert!(total.0 > 0 && total.1 > 0, "{total:?}\n{log}");
    // Stockfish names the reply it expects.
    assert!(log.contains(" ponder "), "{log}");
}
