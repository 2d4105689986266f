//! Issue 43, item 5 ("no wrong answer, ever"): SAN read by rookery beside
//! python-chess 1.11.2's `Board.parse_san`, for every legal move of a few
//! thousand positions reached by seeded random playouts, and for the
//! near-misses people and programs write: the `x` dropped, the file dropped,
//! both, an `x` added, a wrong piece letter, a `P`, a needed disambiguation
//! dropped, castling as a king move or with zeros or in lower case, lower-case
//! piece letters, a promotion without `=` or without its piece.
//!
//! Two readings of ours are checked:
//! - strict ([`SanPlus::from_ascii_strict`] and [`San::to_move`], what the
//!   Python package's `parse_san` calls): it refuses whatever python-chess
//!   refuses, and where both read a move it is the same move;
//! - the PGN reader's (lenient): where python-chess refuses, it refuses too
//!   (an error in the game) or reads the move with a warning
//!   ([`WarningKind::LenientMove`]); where both read a move it is the same.
//!
//! Fails when `CI` is set and python3 with python-chess 1.11.2 is missing.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use rookery_core::{CastlingMode, Position, San, SanPlus, UciMove};
use rookery_pgn::{Games, WarningKind};
use rookery_testkit::cmd::Cmd;

/// Answers one `FEN<TAB>SAN` a line with the UCI move python-chess's
/// `parse_san` reads, or `-` where it raises.
const PEER: &str = r#"
import sys, chess
board, last = None, None
out = []
for line in sys.stdin:
    fen, san = line.rstrip("\n").split("\t")
    if fen != last:
        board, last = chess.Board(fen), fen
    try:
        out.append(board.parse_san(san).uci())
    except ValueError:
        out.append("-")
sys.stdout.write("\n".join(out) + "\n")
"#;

/// Positions to walk from: the start, and positions rich in castling,
/// promotions, en passant and pieces that need disambiguating.
const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "8/PPP4k/8/8/8/8/4Kppp/8 w - - 0 1",
    "1k6/8/8/8/1N3N2/8/1N3N2/4K3 w - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2",
];

/// A small seeded generator (xorshift), so that every run tries the same texts.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Positions of seeded random playouts from [`STARTS`].
fn positions() -> Vec<Position> {
    let mut rng = Rng(0x005a_1743_0005);
    let mut out = Vec::new();
    for round in 0..45 {
        let start = STARTS[round % STARTS.len()];
        let mut pos = Position::from_fen(start).expect("a legal start");
        for _ in 0..50 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            out.push(pos.clone());
            let m = legal[rng.below(legal.len())];
            pos.play_unchecked(m);
        }
    }
    out
}

/// The SAN of every legal move of `pos` and its near-misses.
fn texts(pos: &Position) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for &m in pos.legal_moves().iter() {
        let sp = SanPlus::from_move(pos, m);
        let s = sp.to_string();
        let plain = sp.san.to_string();
        out.insert(s.clone());
        out.insert(plain.clone());
        if let San::Castle(_) = sp.san {
            // Castling as the king's move, with zeros, in lower case.
            let to = if m.to().file() > m.from().file() {
                'g'
            } else {
                'c'
            };
            let rank = m.from().rank().char();
            let from = m.from().to_string();
            for t in [
                format!("K{to}{rank}"),
                format!("K{from}{to}{rank}"),
                format!("Kx{}", m.to()),
                plain.replace('O', "0"),
                plain.replace('O', "o"),
            ] {
                out.insert(t);
            }
            continue;
        }
        let San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } = sp.san
        else {
            continue;
        };
        let edit = |role, file, rank, capture| {
            San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            }
            .to_string()
        };
        // The `x` dropped, the file dropped, both, an `x` added, the rank
        // (a needed disambiguation) dropped.
        out.insert(edit(role, file, rank, false));
        out.insert(edit(role, None, rank, capture));
        out.insert(edit(role, None, rank, false));
        out.insert(edit(role, file, rank, true));
        out.insert(edit(role, file, None, capture));
        out.insert(edit(role, None, None, capture));
        // A wrong piece letter (and a pawn move written as a piece's).
        for other in [
            rookery_core::Role::Knight,
            rookery_core::Role::Bishop,
            rookery_core::Role::Rook,
            rookery_core::Role::Queen,
            rookery_core::Role::King,
        ] {
            if other != role && promotion.is_none() {
                out.insert(edit(other, file, rank, capture));
            }
        }
        if role == rookery_core::Role::Pawn {
            out.insert(format!("P{plain}"));
            // The coordinate spelling, with `x` and with `-`.
            let from = m.from().to_string();
            out.insert(format!("{from}{}", &plain[plain.len() - 2..]));
        } else {
            // Lower-case piece letters.
            out.insert(plain.to_ascii_lowercase());
            let mut lower = plain.clone();
            lower.replace_range(..1, &plain[..1].to_ascii_lowercase());
            out.insert(lower);
        }
        if promotion.is_some() {
            // Without `=`, in lower case, without the piece.
            let (body, piece) = plain.split_at(plain.len() - 2);
            let letter = &piece[1..];
            out.insert(format!("{body}{letter}"));
            out.insert(format!("{body}{}", letter.to_ascii_lowercase()));
            out.insert(format!("{body}={}", letter.to_ascii_lowercase()));
            out.insert(body.to_owned());
        }
    }
    out
}

/// How our PGN reader reads `text` in `pos`: the move in UCI and whether it
/// warned that it read it leniently, or `None` for an error in the game.
struct Reading {
    uci: Option<String>,
    lenient: bool,
}

fn pgn_readings(cases: &[(String, String)]) -> Vec<Reading> {
    let mut pgn = String::new();
    for (fen, text) in cases {
        let _ = write!(pgn, "[FEN \"{fen}\"]\n[SetUp \"1\"]\n\n{text} *\n\n");
    }
    Games::new(pgn.as_bytes())
        .map(|g| {
            let g = g.expect("read from memory");
            let lenient = g
                .warnings
                .iter()
                .any(|w| matches!(w.kind, WarningKind::LenientMove { .. }));
            let uci = match (&g.error, g.game.mainline.nodes.first()) {
                (None, Some(node)) => Some(
                    UciMove::from_move(&g.game.start, node.mv, CastlingMode::Standard).to_string(),
                ),
                _ => None,
            };
            Reading { uci, lenient }
        })
        .collect()
}

#[test]
fn san_and_its_near_misses_read_as_python_chess_reads_them() {
    let Some(python) = rookery_testkit::peer::python_chess() else {
        return;
    };
    let positions = positions();
    let mut cases: Vec<(String, String)> = Vec::new();
    for pos in &positions {
        let fen = pos.fen();
        for t in texts(pos) {
            cases.push((fen.clone(), t));
        }
    }
    let input: String = cases.iter().map(|(f, t)| format!("{f}\t{t}\n")).collect();
    let run = Cmd::new(&python).args(["-c", PEER]).stdin(input).run();
    run.assert_code(0);
    let stdout = run.stdout_text();
    let theirs: Vec<&str> = stdout.lines().collect();
    assert_eq!(theirs.len(), cases.len(), "one answer a line");
    let readings = pgn_readings(&cases);
    assert_eq!(readings.len(), cases.len(), "one game a case");

    let mut problems = Vec::new();
    let (mut refused, mut warned, mut read_alike, mut strict_refused) = (0, 0, 0, 0);
    for (((fen, text), &peer), reading) in cases.iter().zip(&theirs).zip(&readings) {
        let pos = Position::from_fen(fen).expect("our FEN");
        let strict = SanPlus::from_ascii_strict(text.as_bytes())
            .ok()
            .and_then(|sp| sp.san.to_move(&pos).ok())
            .map(|m| UciMove::from_move(&pos, m, CastlingMode::Standard).to_string());
        if peer == "-" {
            refused += 1;
            if let Some(m) = &strict {
                problems.push(format!(
                    "{fen}: {text}: strict reads {m}, python-chess refuses"
                ));
            }
            match &reading.uci {
                Some(m) if !reading.lenient => problems.push(format!(
                    "{fen}: {text}: the PGN reader reads {m} silently, python-chess refuses"
                )),
                Some(_) => warned += 1,
                None => {}
            }
        } else {
            match &strict {
                Some(m) if m != peer => {
                    problems.push(format!(
                        "{fen}: {text}: strict reads {m}, python-chess {peer}"
                    ));
                }
                Some(_) => read_alike += 1,
                // A piece's move in coordinates with `x` (`b6xc5`) is one.
                None => strict_refused += 1,
            }
            if let Some(m) = reading.uci.as_deref().filter(|&m| m != peer) {
                problems.push(format!(
                    "{fen}: {text}: the PGN reader reads {m}, python-chess {peer}"
                ));
            }
        }
    }
    eprintln!(
        "{} positions, {} texts: python-chess refuses {refused} (the PGN reader reads {warned} \
         of them with a warning); {read_alike} read alike strictly; {strict_refused} read by \
         python-chess only",
        positions.len(),
        cases.len()
    );
    assert!(
        problems.is_empty(),
        "{} disagreements, the first:\n{}",
        problems.len(),
        problems[..problems.len().min(20)].join("\n")
    );
    assert!(positions.len() >= 2000, "{}", positions.len());
    assert!(refused > 10_000 && warned > 0 && read_alike > 50_000);
}
