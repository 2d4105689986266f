//! `rookery perft --divide --depth 3` against Stockfish's `go perft 3` on
//! positions reached by seeded random playouts (standard chess): the same
//! moves with the same counts, and the same total.
//!
//! Needs Stockfish on PATH or in /usr/games (or `STOCKFISH=path`). Without it the test
//! fails when `CI` is set and is skipped with a note otherwise.
//! `ROOKERY_SF_POSITIONS=N` changes the number of positions (default 240).

use crate::common::{rookery, stockfish};
use rookery_core::{Mode, Position, Setup};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Stockfish {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Stockfish {
    fn start(path: &Path) -> Stockfish {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start stockfish");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut sf = Stockfish {
            child,
            stdin,
            stdout,
        };
        sf.send("uci");
        sf.read_until("uciok");
        sf
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to stockfish");
        self.stdin.flush().expect("flush stockfish");
    }

    /// Lines up to (not including) the first one starting with `prefix`, and that line.
    fn read_until(&mut self, prefix: &str) -> (Vec<String>, String) {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read stockfish");
            assert!(n > 0, "stockfish exited while we waited for {prefix:?}");
            let line = line.trim_end().to_string();
            if line.starts_with(prefix) {
                return (lines, line);
            }
            lines.push(line);
        }
    }

    /// `go perft 3` output normalised: sorted move lines, then the total line.
    fn perft(&mut self, fen: &str, depth: u32) -> Vec<String> {
        self.send(&format!("position fen {fen}"));
        self.send(&format!("go perft {depth}"));
        let (lines, total) = self.read_until("Nodes searched:");
        // Sync, so the blank line after the total is not read as the next answer.
        self.send("isready");
        self.read_until("readyok");
        normalise(lines, total)
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

fn normalise(lines: Vec<String>, total: String) -> Vec<String> {
    let mut moves: Vec<String> = lines
        .into_iter()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("info"))
        .collect();
    moves.sort();
    moves.push(total);
    moves
}

fn rookery_perft(fen: &str, depth: u32) -> Vec<String> {
    let run = rookery(
        &[
            "perft",
            "--divide",
            "--depth",
            &depth.to_string(),
            "--fen",
            fen,
        ],
        b"",
    );
    run.assert_code(0);
    let text = String::from_utf8(run.stdout).expect("utf-8");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let total = lines
        .iter()
        .position(|l| l.starts_with("Nodes searched:"))
        .map(|i| lines.remove(i))
        .unwrap_or_else(|| panic!("no total in rookery output for {fen}:\n{text}"));
    normalise(lines, total)
}

/// FENs of the standard-chess perft suites.
fn suite_fens() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/perft");
    let mut fens = Vec::new();
    for name in ["standard.epd", "tricky.perft", "random.perft"] {
        let text = std::fs::read_to_string(dir.join(name)).expect("suite file");
        let cases = rookery_core::parse_perft_suite(&text).expect("suite parses");
        fens.extend(cases.into_iter().map(|c| c.fen));
    }
    fens
}

/// splitmix64
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Seeded random playouts: a third from the start position, the rest from
/// suite positions; strictly legal standard-chess positions only.
fn positions(count: usize) -> Vec<String> {
    let suite = suite_fens();
    let mut rng = 0x5eed_u64;
    let mut out = Vec::new();
    while out.len() < count {
        let start = if out.len() % 3 == 0 {
            Position::startpos()
        } else {
            let fen = &suite[(next(&mut rng) % suite.len() as u64) as usize];
            let Ok((pos, _)) = Setup::from_fen(fen, Mode::Lenient)
                .map_err(|_| ())
                .and_then(|s| s.into_position(Mode::Strict).map_err(|_| ()))
            else {
                continue;
            };
            pos
        };
        if start.is_chess960_castling() {
            continue;
        }
        let mut pos = start;
        let plies = next(&mut rng) % 60;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[(next(&mut rng) % moves.len() as u64) as usize]);
        }
        out.push(pos.fen());
    }
    out
}

#[test]
fn divide_matches_stockfish() {
    let Some(path) = stockfish() else {
        return;
    };
    let count = std::env::var("ROOKERY_SF_POSITIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(240);
    let fens = positions(count);
    let mut sf = Stockfish::start(Path::new(&path));
    let (mut moves, mut nodes) = (0usize, 0u64);
    for fen in &fens {
        let ours = rookery_perft(fen, 3);
        let theirs = sf.perft(fen, 3);
        assert_eq!(ours, theirs, "perft 3 differs on {fen}");
        moves += ours.len() - 1;
        nodes += ours
            .last()
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
            .expect("total");
    }
    eprintln!(
        "{} positions, {moves} root moves, {nodes} nodes: identical",
        fens.len()
    );
    assert!(fens.len() >= 200);
    assert!(moves > 1000, "suspiciously few moves: {moves}");
}
