//! `rookery-mock-engine`: a UCI engine that misbehaves on cue (see the crate docs).

use rookery_core::{CastlingMode, Mode, Position, Setup, UciMove};
use rookery_testkit::MockBehaviour;
use rookery_uci::{Command, PositionStart};
use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::Duration;

fn main() {
    let b = MockBehaviour::from_args(std::env::args().skip(1));
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut out = std::io::stdout();
    let mut record = b.record.as_ref().and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let mut pos = Position::startpos();
    let mut gos = 0u32;
    let mut pondering = false;
    // The move for `pos`: an info line, then `bestmove` (with the reply it
    // expects under `--ponder`).
    let answer = |pos: &Position| -> String {
        let sorted = |pos: &Position| {
            let mut moves: Vec<(String, rookery_core::Move)> = pos
                .legal_moves()
                .iter()
                .map(|&m| {
                    (
                        UciMove::from_move(pos, m, CastlingMode::Standard).to_string(),
                        m,
                    )
                })
                .collect();
            moves.sort_by(|a, b| a.0.cmp(&b.0));
            moves
        };
        let moves = sorted(pos);
        let pick = b.random.map_or(0, |seed| {
            let fen = rookery_core::Fen::from_position(pos).to_string();
            rookery_testkit::random_pick(&fen, seed, moves.len())
        });
        let Some((m, mv)) = moves.get(pick) else {
            return "bestmove 0000".to_string();
        };
        let pv = if b.bad_pv {
            format!("{m} {m}")
        } else {
            m.clone()
        };
        let said = b
            .say
            .as_ref()
            .map(|t| format!("info string {t}\n"))
            .unwrap_or_default();
        let mut line = format!(
            "{said}info depth 1 seldepth 3 score cp 12 nodes 1 time 0 pv {pv}\nbestmove {m}"
        );
        if b.ponder {
            let mut next = pos.clone();
            next.play_unchecked(*mv);
            if let Some((r, _)) = sorted(&next).first() {
                line.push_str(&format!(" ponder {r}"));
            }
        }
        line
    };
    let answers_uci = b.answers_uci();
    let say = |out: &mut std::io::Stdout, s: &str| {
        if b.garbage {
            let _ = writeln!(out, "@@ mock garbage \u{1} line");
        }
        let _ = writeln!(out, "{s}");
        let _ = out.flush();
    };
    while let Ok(line) = rx.recv() {
        if let Some(f) = record.as_mut() {
            let _ = writeln!(f, "{line}");
        }
        match Command::parse(&line) {
            Command::Uci if answers_uci => {
                say(&mut out, "id name rookery-mock");
                say(&mut out, "id author rookery tests");
                say(
                    &mut out,
                    "option name Hash type spin default 16 min 1 max 1024",
                );
                say(
                    &mut out,
                    "option name Style type combo default Normal var Solid var Normal var Risky",
                );
                say(&mut out, "option name Ponder type check default false");
                say(&mut out, "option name Clear Hash type button");
                say(&mut out, "uciok");
            }
            Command::IsReady => say(&mut out, "readyok"),
            Command::Position { start, moves, .. } => {
                pos = match start {
                    PositionStart::StartPos => Position::startpos(),
                    PositionStart::Fen(f) => Setup::from_fen(&f, Mode::Lenient)
                        .ok()
                        .and_then(|s| s.into_position(Mode::Lenient).ok())
                        .map_or_else(Position::startpos, |(p, _)| p),
                };
                for m in moves {
                    if let Ok(mv) = m.to_move(&pos) {
                        pos.play_unchecked(mv);
                    }
                }
                std::thread::sleep(Duration::from_millis(b.slow_position_ms));
            }
            Command::Go(g) if g.ponder && b.ponder => {
                // Searches until `ponderhit` or `stop`.
                pondering = true;
            }
            Command::PonderHit | Command::Stop if pondering => {
                pondering = false;
                say(&mut out, &answer(&pos));
            }
            Command::Go(_) => {
                gos += 1;
                if b.crash_on_go == Some(gos) {
                    eprintln!("mock: crashing on go {gos} as asked");
                    std::process::exit(3);
                }
                if b.hang_on_go == Some(gos) {
                    // Ignore everything from now on, stop included.
                    loop {
                        std::thread::sleep(Duration::from_secs(3600));
                    }
                }
                if let Some((_, text)) = b.bestmove_on_go.as_ref().filter(|(n, _)| *n == gos) {
                    say(&mut out, &format!("bestmove {text}"));
                    continue;
                }
                if b.illegal_on_go == Some(gos) {
                    let m = rookery_testkit::illegal_move(&pos);
                    say(&mut out, &format!("bestmove {m}"));
                    continue;
                }
                if b.slow_ms > 0 {
                    if let Ok(l) = rx.recv_timeout(Duration::from_millis(b.slow_ms)) {
                        if let Some(f) = record.as_mut() {
                            let _ = writeln!(f, "{l}");
                        }
                    }
                }
                say(&mut out, &answer(&pos));
            }
            Command::Quit => break,
            _ => {}
        }
    }
}
