//! Feeds the engine a transcript of hostile input — garbage, binary bytes,
//! huge lines, bad FENs, illegal moves, commands in the middle of a search —
//! and checks that it stays responsive (every `isready` answered, one
//! `bestmove` per `go`) and correct (legal moves from the right position).

use crate::common::{ROOKERY, ROOKERY_ENGINE};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// Liveness bound for each expected answer (not a speed assertion).
const PATIENCE: Duration = Duration::from_secs(30);

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    log: Vec<String>,
}

impl Engine {
    fn start(bin: &str, args: &[&str]) -> Engine {
        let mut child = Command::new(bin)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start engine");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
            log: Vec::new(),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads until a line starting with `prefix`; returns it.
    fn expect(&mut self, prefix: &str) -> String {
        loop {
            match self.lines.recv_timeout(PATIENCE) {
                Ok(l) => {
                    self.log.push(l.clone());
                    if l.starts_with(prefix) {
                        return l;
                    }
                }
                Err(_) => panic!(
                    "no line starting with {prefix:?}; output so far:\n{}",
                    self.log.join("\n")
                ),
            }
        }
    }

    fn ready(&mut self) {
        self.send(b"isready\n");
        let l = self.expect("readyok");
        assert_eq!(l, "readyok");
    }

    /// Reads until `bestmove` and checks that its move starts on one of
    /// `ranks` (where the side to move of the expected position stands).
    fn expect_move_from(&mut self, ranks: &[char], side: &str) {
        let bm = self.expect("bestmove");
        let from = best_move(&bm).chars().nth(1);
        assert!(
            from.is_some_and(|r| ranks.contains(&r)),
            "{side} to move: {bm}"
        );
    }
}

fn best_move(line: &str) -> &str {
    line.split_whitespace().nth(1).unwrap()
}

fn hostile_session(bin: &str, args: &[&str]) {
    let mut e = Engine::start(bin, args);
    e.send(b"uci\r\n");
    e.expect("uciok");
    e.ready();

    // Garbage of every kind.
    e.send(b"\n\n   \t \r\nhello world\nxyzzy uci_not\n\x00\x01\x02\xff\xfe\n");
    e.send(b"setoption name Hash value lots\nsetoption name NoSuchOption value 3\n");
    e.send(b"setoption name threads value 0\nsetoption\nregister\ndebug\ndebug on\ndebug off\n");
    e.send(b"go wtime -1000 btime abc depth\n");
    e.expect("bestmove");
    e.ready();
    let mut huge = b"position startpos moves ".to_vec();
    huge.extend(std::iter::repeat_n(b'x', 3 << 20));
    huge.push(b'\n');
    e.send(&huge);
    e.send(&b"e2e4 ".repeat(200_000));
    e.send(b"\n");
    e.ready();

    // Bad FENs keep the previous position.
    e.send(b"position startpos moves e2e4\n");
    for bad in [
        "position fen",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "position fen 9/8/8/8/8/8/8/8 w - - 0 1 moves e2e4",
        "position fen kK6/8/8/8/8/8/8/8 w - - 0 1",
    ] {
        e.send(format!("{bad}\n").as_bytes());
        e.expect("info string invalid FEN");
    }
    e.send(b"go depth 3\n");
    // Still the position after 1.e4: Black moves from rank 7 or 8.
    e.expect_move_from(&['7', '8'], "Black");

    // Illegal moves: the position is the one before the first bad move.
    e.send(b"position startpos moves e2e4 e7e5 e1e3 d2d4\n");
    e.expect("info string illegal move e1e3");
    e.send(b"go depth 3\n");
    e.expect_move_from(&['1', '2'], "White");

    // Commands mid-search: isready is answered at once, the rest is handled
    // or ignored, and one bestmove ends the search.
    e.send(b"position startpos\ngo infinite\n");
    for _ in 0..3 {
        e.ready();
    }
    e.send(b"setoption name MultiPV value 2\nposition fen garbage\nucinewgame_not\ndebug on\n");
    e.ready();
    e.send(b"stop\n");
    let bm = e.expect("bestmove");
    assert_ne!(best_move(&bm), "0000");
    e.ready();
    // A second stop, a ponderhit without ponder: nothing happens.
    e.send(b"stop\nponderhit\n");
    e.ready();

    // go while searching: the first search ends with its own bestmove.
    e.send(b"go infinite\n");
    e.ready();
    e.send(b"go depth 2\n");
    e.expect("bestmove");
    e.expect("bestmove");
    e.ready();

    // No legal move: bestmove 0000.
    e.send(b"position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1\ngo depth 5\n");
    assert_eq!(e.expect("bestmove"), "bestmove 0000");

    // Tabs, CRLF, and extra words everywhere; then a normal search.
    e.send(b"\tposition\tstartpos \t moves\te2e4\r\n  go   depth\t4 \r\n");
    e.expect_move_from(&['7', '8'], "Black");

    e.send(b"quit\n");
    let status = e.child.wait().unwrap();
    assert!(status.success(), "exit status {status}");
}

#[test]
fn hostile_transcript_engine_binary() {
    hostile_session(ROOKERY_ENGINE, &[]);
}

#[test]
fn hostile_transcript_rookery_uci() {
    hostile_session(ROOKERY, &["uci"]);
}

#[test]
fn end_of_input_finishes_the_search() {
    let out = Command::new(ROOKERY_ENGINE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .unwrap()
                .write_all(b"position startpos\ngo depth 5\n")?;
            c.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().last().unwrap().starts_with("bestmove "),
        "{text}"
    );
}
