//! Writes a lichess-shaped PGN collection for the database's benchmarks:
//! the headers lichess's monthly dumps carry (`Event "Rated Blitz game"`,
//! `Site`, `UTCDate`, ratings and their differences, `TimeControl`,
//! `Termination`), a `[%clk]` comment after every move, and games
//! that share their openings and then part (a real game's first 4 to 24
//! plies, then legal moves drawn at random, captures and checks more
//! often, until a length drawn around lichess's average of about 70
//! plies, or mate).
//!
//! ```text
//! cargo run --release -p rookery-db --example lichess_like -- \
//!     --games 1000000 --seed 1 ../shared/data/pgn/twic0920.pgn | zstd -q -o games.pgn.zst
//! ```
//!
//! The output is the same for the same sources, games and seed.

use std::io::{BufWriter, Write};

use rookery_core::{Move, Position, SanPlus};
use rookery_pgn::{Detail, Games};

/// xorshift64*: small, fast, and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const SPEEDS: [(&str, u32, u32); 9] = [
    ("Bullet", 60, 0),
    ("Bullet", 120, 1),
    ("Blitz", 180, 0),
    ("Blitz", 180, 2),
    ("Blitz", 300, 0),
    ("Blitz", 300, 3),
    ("Rapid", 600, 0),
    ("Rapid", 600, 5),
    ("Classical", 1800, 0),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut games = 100_000u64;
    let mut seed = 1u64;
    let mut sources = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--games" => games = args.next().ok_or("--games N")?.parse()?,
            "--seed" => seed = args.next().ok_or("--seed N")?.parse()?,
            _ => sources.push(a),
        }
    }
    if sources.is_empty() {
        return Err("give at least one PGN file of real games (its openings are used)".into());
    }
    let mut openings: Vec<Vec<Move>> = Vec::new();
    for s in &sources {
        let file = std::fs::File::open(s).map_err(|e| format!("{s}: {e}"))?;
        for g in Games::new(file).with_detail(Detail::Mainline) {
            let g = g?;
            if g.error.is_none() && g.game.start == Position::startpos() {
                let moves: Vec<Move> = g.game.mainline_moves().take(24).collect();
                if moves.len() >= 4 {
                    openings.push(moves);
                }
            }
        }
    }
    if openings.is_empty() {
        return Err("no game from the start position in the sources".into());
    }
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut text = String::with_capacity(8192);
    let players = 50_000u64;
    for n in 0..games {
        text.clear();
        let (kind, base, inc) = SPEEDS[rng.below(SPEEDS.len() as u64) as usize];
        let opening = &openings[rng.below(openings.len() as u64) as usize];
        let shared = 4 + rng.below(opening.len() as u64 - 3) as usize;
        let length = 20 + rng.below(60) + rng.below(60);
        let mut pos = Position::startpos();
        let mut sans = Vec::with_capacity(length as usize);
        let mut result = None;
        for ply in 0..length as usize {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                result = Some(if pos.is_check() {
                    if pos.turn() == rookery_core::Color::White {
                        "0-1"
                    } else {
                        "1-0"
                    }
                } else {
                    "1/2-1/2"
                });
                break;
            }
            let m = if ply < shared && ply < opening.len() && legal.contains(opening[ply]) {
                opening[ply]
            } else {
                // Three draws, the liveliest kept: a capture or a check
                // over a quiet move, as players prefer them.
                let mut best = legal[rng.below(legal.len() as u64) as usize];
                for _ in 0..2 {
                    let m = legal[rng.below(legal.len() as u64) as usize];
                    if pos.is_capture(m) || pos.gives_check(m) {
                        best = m;
                    }
                }
                best
            };
            sans.push(SanPlus::from_move(&pos, m).to_string());
            pos.play_unchecked(m);
        }
        let result = result.unwrap_or(match rng.below(100) {
            0..=46 => "1-0",
            47..=52 => "1/2-1/2",
            _ => "0-1",
        });
        let white_elo = 800 + rng.below(2000);
        let black_elo = (white_elo + rng.below(400)).saturating_sub(200).max(600);
        let day = 1 + n * 30 / games.max(1);
        let secs = rng.below(86_400);
        let id: String = (0..8)
            .map(|_| {
                let c = rng.below(62) as u8;
                char::from(match c {
                    0..=9 => b'0' + c,
                    10..=35 => b'a' + c - 10,
                    _ => b'A' + c - 36,
                })
            })
            .collect();
        let tc = format!("{base}+{inc}");
        let tags: [(&str, String); 15] = [
            ("Event", format!("Rated {kind} game")),
            ("Site", format!("https://lichess.org/{id}")),
            ("Date", format!("2024.06.{day:02}")),
            ("Round", "-".into()),
            ("White", format!("player{}", rng.below(players))),
            ("Black", format!("player{}", rng.below(players))),
            ("Result", result.into()),
            ("UTCDate", format!("2024.06.{day:02}")),
            (
                "UTCTime",
                format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60),
            ),
            ("WhiteElo", white_elo.to_string()),
            ("BlackElo", black_elo.to_string()),
            ("WhiteRatingDiff", format!("{:+}", rng.below(13) as i64 - 6)),
            ("BlackRatingDiff", format!("{:+}", rng.below(13) as i64 - 6)),
            ("TimeControl", tc),
            (
                "Termination",
                if rng.below(10) == 0 {
                    "Time forfeit"
                } else {
                    "Normal"
                }
                .into(),
            ),
        ];
        for (k, v) in &tags {
            text.push_str(&format!("[{k} \"{v}\"]\n"));
        }
        text.push('\n');
        let mut clock = [u64::from(base); 2];
        for (i, san) in sans.iter().enumerate() {
            let side = i % 2;
            if side == 0 {
                text.push_str(&format!("{}. ", i / 2 + 1));
            } else if i > 0 {
                text.push_str(&format!("{}... ", i / 2 + 1));
            }
            let spent = rng.below(u64::from(base) / 20 + 2);
            clock[side] = (clock[side] + u64::from(inc)).saturating_sub(spent);
            let c = clock[side];
            text.push_str(&format!(
                "{san} {{ [%clk {}:{:02}:{:02}] }} ",
                c / 3600,
                c / 60 % 60,
                c % 60
            ));
        }
        text.push_str(result);
        text.push_str("\n\n");
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}
