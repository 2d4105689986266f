//! Host-to-engine commands of CECP.

use super::message::{trimmed, Words};
use super::notation::CecpMove;
use super::result::ResultClaim;
use rookery_core::{Role, Square};
use std::fmt;
use std::time::Duration;

/// A command a host sends to a CECP engine. Edit-mode subcommands, which
/// only mean something after `edit`, are [`EditCommand`]s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `xboard`: the first command.
    Xboard,
    /// `protover N`.
    Protover(u32),
    /// `accepted FEATURE`.
    Accepted(String),
    /// `rejected FEATURE`.
    Rejected(String),
    /// `new`: the starting position, White to move, the engine plays Black,
    /// clocks and depth limit reset, random mode off.
    New,
    /// `variant NAME` (`fischerandom`, ...).
    Variant(String),
    /// `quit`.
    Quit,
    /// `random` (GNU Chess's toggle of random play).
    Random,
    /// `force`: the engine plays neither side.
    Force,
    /// `go`: the engine plays the side to move, and starts thinking.
    Go,
    /// `playother`: the engine plays the side not to move.
    PlayOther,
    /// `level MPS BASE INC`: `moves` per period (0: the whole game), `base`
    /// time (written in minutes or `MIN:SEC`), `inc` seconds per move.
    Level {
        /// Moves per period; 0 for the whole game.
        moves: u32,
        /// Time for the period (whole seconds).
        base: Duration,
        /// Added after every move (milliseconds are written as a decimal).
        inc: Duration,
    },
    /// `st SECONDS`: exactly this long per move (whole seconds).
    St(u64),
    /// `sd DEPTH`: at most this many plies.
    Sd(u32),
    /// `nps NODE_RATE`: the engine measures time in nodes at this rate.
    Nps(u64),
    /// `time N`: the engine's clock, in centiseconds.
    Time(i64),
    /// `otim N`: the opponent's clock, in centiseconds.
    Otim(i64),
    /// `usermove MOVE` (with the `usermove` feature).
    UserMove(CecpMove),
    /// A move on its own line (without the `usermove` feature).
    Move(CecpMove),
    /// `?`: move now.
    MoveNow,
    /// `ping N`.
    Ping(u64),
    /// `draw`: the opponent offers a draw.
    Draw,
    /// `result RESULT {COMMENT}`: the game is over.
    Result(ResultClaim),
    /// `setboard FEN` (the FEN as written, not validated here).
    SetBoard(String),
    /// `edit`: [`EditCommand`]s follow, up to `.`.
    Edit,
    /// `hint`.
    Hint,
    /// `bk`.
    Book,
    /// `undo`.
    Undo,
    /// `remove`.
    Remove,
    /// `hard`: pondering on.
    Hard,
    /// `easy`: pondering off.
    Easy,
    /// `post`: thinking output on.
    Post,
    /// `nopost`: thinking output off.
    NoPost,
    /// `analyze`.
    Analyze,
    /// `exit` (leaves analyze mode).
    Exit,
    /// `name NAME`: the opponent's name.
    Name(String),
    /// `computer`: the opponent is a program.
    Computer,
    /// `memory MEGABYTES`.
    Memory(u64),
    /// `cores N`.
    Cores(u32),
    /// `option NAME[=VALUE]`.
    SetOption {
        /// The option's name as the engine declared it.
        name: String,
        /// The value; none for buttons.
        value: Option<String>,
    },
    /// A line holding no known command (kept as written, trimmed).
    Unknown(String),
}

/// A subcommand of edit mode (after `edit`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditCommand {
    /// `#`: clear the board.
    Clear,
    /// `c`: change the colour of the pieces placed next (White first).
    Color,
    /// `Pa4`: place a piece of the current colour.
    Place(Role, Square),
    /// `xa4`: empty a square.
    Empty(Square),
    /// `.`: leave edit mode.
    Done,
    /// Anything else (kept as written, trimmed).
    Unknown(String),
}

/// Words that stand alone.
const WORDS: [(&str, Command); 21] = [
    ("xboard", Command::Xboard),
    ("new", Command::New),
    ("quit", Command::Quit),
    ("random", Command::Random),
    ("force", Command::Force),
    ("go", Command::Go),
    ("playother", Command::PlayOther),
    ("?", Command::MoveNow),
    ("draw", Command::Draw),
    ("edit", Command::Edit),
    ("hint", Command::Hint),
    ("bk", Command::Book),
    ("undo", Command::Undo),
    ("remove", Command::Remove),
    ("hard", Command::Hard),
    ("easy", Command::Easy),
    ("post", Command::Post),
    ("nopost", Command::NoPost),
    ("analyze", Command::Analyze),
    ("exit", Command::Exit),
    ("computer", Command::Computer),
];

/// Reads `MIN` or `MIN:SEC` (whole numbers).
fn parse_base(s: &str) -> Option<Duration> {
    let (min, sec) = match s.split_once(':') {
        Some((m, s)) => (m, Some(s)),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(min) || sec.is_some_and(|s| !digits(s)) {
        return None;
    }
    let min: u64 = min.parse().ok()?;
    let sec: u64 = sec.map_or(Some(0), |s| s.parse().ok())?;
    Some(Duration::from_secs(min.checked_mul(60)?.checked_add(sec)?))
}

/// Writes whole minutes as `M`, anything else as `M:SS` (whole seconds).
fn fmt_base(d: Duration) -> String {
    let s = d.as_secs();
    if s % 60 == 0 {
        (s / 60).to_string()
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// Reads seconds as `S` or `S.fff` (to the millisecond; more digits are cut).
fn parse_seconds(s: &str) -> Option<Duration> {
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, f),
        None => (s, ""),
    };
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(frac) || (s.contains('.') && frac.is_empty()) {
        return None;
    }
    let secs: u64 = whole.parse().ok()?;
    let ms: u64 = format!("{:0<3}", &frac[..frac.len().min(3)]).parse().ok()?;
    Duration::from_secs(secs).checked_add(Duration::from_millis(ms))
}

/// Writes seconds without trailing zeros (`0.1`, `12`, `1.25`).
fn fmt_seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        (ms / 1000).to_string()
    } else {
        let s = format!("{}.{:03}", ms / 1000, ms % 1000);
        s.trim_end_matches('0').to_string()
    }
}

impl Command {
    /// Reads one line. Never fails: anything not understood (a known word
    /// with arguments that do not read, too) is [`Command::Unknown`]. A line
    /// that is one move (`e2e4`, `Nf3`, `O-O`) is [`Command::Move`].
    pub fn parse(line: &str) -> Command {
        let t = trimmed(line);
        let unknown = || Command::Unknown(t.to_string());
        let mut words = Words::new(t);
        let Some(first) = words.next() else {
            return unknown();
        };
        let rest = trimmed(words.rest());
        let args: Vec<&str> = Words::new(rest).collect();
        let num = |i: usize| args.get(i).and_then(|a| a.parse::<u64>().ok());
        let one_number = |make: fn(u64) -> Option<Command>| match (args.len(), num(0)) {
            (1, Some(n)) => make(n).unwrap_or_else(unknown),
            _ => unknown(),
        };
        match first {
            "protover" => one_number(|n| u32::try_from(n).ok().map(Command::Protover)),
            "accepted" if !rest.is_empty() => Command::Accepted(rest.to_string()),
            "rejected" if !rest.is_empty() => Command::Rejected(rest.to_string()),
            "variant" if args.len() == 1 => Command::Variant(rest.to_string()),
            "name" if !rest.is_empty() => Command::Name(rest.to_string()),
            "setboard" if !rest.is_empty() => Command::SetBoard(args.join(" ")),
            "level" => match (args.as_slice(), num(0)) {
                ([_, base, inc], Some(moves)) => {
                    match (u32::try_from(moves), parse_base(base), parse_seconds(inc)) {
                        (Ok(moves), Some(base), Some(inc)) => Command::Level { moves, base, inc },
                        _ => unknown(),
                    }
                }
                _ => unknown(),
            },
            "st" => one_number(|n| Some(Command::St(n))),
            "sd" => one_number(|n| u32::try_from(n).ok().map(Command::Sd)),
            "nps" => one_number(|n| Some(Command::Nps(n))),
            "ping" => one_number(|n| Some(Command::Ping(n))),
            "memory" => one_number(|n| Some(Command::Memory(n))),
            "cores" => one_number(|n| u32::try_from(n).ok().map(Command::Cores)),
            "time" | "otim" => match (args.as_slice(), args.first().map(|a| a.parse::<i64>())) {
                ([_], Some(Ok(n))) if first == "time" => Command::Time(n),
                ([_], Some(Ok(n))) => Command::Otim(n),
                _ => unknown(),
            },
            "usermove" => match (args.as_slice(), args.first().map(|a| a.parse::<CecpMove>())) {
                ([_], Some(Ok(m))) => Command::UserMove(m),
                _ => unknown(),
            },
            "result" => match ResultClaim::parse(rest) {
                Some(claim) => Command::Result(claim),
                None => unknown(),
            },
            "option" if !rest.is_empty() => match rest.split_once('=') {
                Some((name, value)) => Command::SetOption {
                    name: name.to_string(),
                    value: Some(value.to_string()),
                },
                None => Command::SetOption {
                    name: rest.to_string(),
                    value: None,
                },
            },
            w => {
                if let Some((_, c)) = WORDS.iter().find(|(word, _)| *word == w) {
                    if args.is_empty() {
                        return c.clone();
                    }
                    return unknown();
                }
                match (args.is_empty(), w.parse::<CecpMove>()) {
                    (true, Ok(m)) => Command::Move(m),
                    _ => unknown(),
                }
            }
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Protover(n) => write!(f, "protover {n}"),
            Command::Accepted(x) => write!(f, "accepted {x}"),
            Command::Rejected(x) => write!(f, "rejected {x}"),
            Command::Variant(v) => write!(f, "variant {v}"),
            Command::Level { moves, base, inc } => {
                write!(f, "level {moves} {} {}", fmt_base(*base), fmt_seconds(*inc))
            }
            Command::St(s) => write!(f, "st {s}"),
            Command::Sd(d) => write!(f, "sd {d}"),
            Command::Nps(n) => write!(f, "nps {n}"),
            Command::Time(n) => write!(f, "time {n}"),
            Command::Otim(n) => write!(f, "otim {n}"),
            Command::UserMove(m) => write!(f, "usermove {m}"),
            Command::Move(m) => m.fmt(f),
            Command::Ping(n) => write!(f, "ping {n}"),
            Command::Result(c) => write!(f, "result {c}"),
            Command::SetBoard(fen) => write!(f, "setboard {fen}"),
            Command::Name(n) => write!(f, "name {n}"),
            Command::Memory(n) => write!(f, "memory {n}"),
            Command::Cores(n) => write!(f, "cores {n}"),
            Command::SetOption { name, value: None } => write!(f, "option {name}"),
            Command::SetOption {
                name,
                value: Some(v),
            } => write!(f, "option {name}={v}"),
            Command::Unknown(s) => f.write_str(s),
            word => {
                let text = WORDS.iter().find(|(_, c)| c == word).map_or("", |(w, _)| w);
                f.write_str(text)
            }
        }
    }
}

impl EditCommand {
    /// Reads one line of edit mode.
    pub fn parse(line: &str) -> EditCommand {
        let t = trimmed(line);
        match t.as_bytes() {
            b"#" => EditCommand::Clear,
            b"c" => EditCommand::Color,
            b"." => EditCommand::Done,
            [b'x', sq @ ..] => match Square::from_ascii(sq) {
                Some(s) => EditCommand::Empty(s),
                None => EditCommand::Unknown(t.to_string()),
            },
            [p, sq @ ..] => match (Role::from_char(*p as char), Square::from_ascii(sq)) {
                (Some(r), Some(s)) if p.is_ascii_uppercase() => EditCommand::Place(r, s),
                _ => EditCommand::Unknown(t.to_string()),
            },
            _ => EditCommand::Unknown(t.to_string()),
        }
    }
}

impl fmt::Display for EditCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditCommand::Clear => f.write_str("#"),
            EditCommand::Color => f.write_str("c"),
            EditCommand::Place(r, s) => write!(f, "{}{s}", r.char().to_ascii_uppercase()),
            EditCommand::Empty(s) => write!(f, "x{s}"),
            EditCommand::Done => f.write_str("."),
            EditCommand::Unknown(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::{Color, Outcome};

    fn round_trip(line: &str) -> Command {
        let c = Command::parse(line);
        let written = c.to_string();
        assert_eq!(Command::parse(&written), c, "{line:?} -> {written:?}");
        c
    }

    #[test]
    fn every_command_reads_and_writes_back() {
        for line in [
            "xboard",
            "protover 2",
            "accepted ping",
            "rejected option nonsense",
            "new",
            "variant fischerandom",
            "quit",
            "random",
            "force",
            "go",
            "playother",
            "level 40 5 0",
            "level 40 0:30 0",
            "level 0 2 12",
            "level 0 0:10 0.1",
            "st 30",
            "sd 8",
            "nps 10000",
            "time 1000",
            "otim -5",
            "usermove e2e4",
            "usermove O-O",
            "e2e4",
            "Nf3",
            "e7e8q",
            "?",
            "ping 7",
            "draw",
            "result 1-0 {White mates}",
            "result *",
            "setboard rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "edit",
            "hint",
            "bk",
            "undo",
            "remove",
            "hard",
            "easy",
            "post",
            "nopost",
            "analyze",
            "exit",
            "name Stockfish 17",
            "computer",
            "memory 64",
            "cores 2",
            "option Resign Threshold=900",
            "option Clear Hash",
            "option Path=a=b",
        ] {
            let c = round_trip(line);
            assert!(!matches!(c, Command::Unknown(_)), "{line}");
            assert_eq!(c.to_string(), line);
        }
    }

    #[test]
    fn time_controls_and_their_units() {
        assert_eq!(
            Command::parse("level 40 0:30 0"),
            Command::Level {
                moves: 40,
                base: Duration::from_secs(30),
                inc: Duration::ZERO
            }
        );
        assert_eq!(
            Command::parse("level 0 2 12"),
            Command::Level {
                moves: 0,
                base: Duration::from_secs(120),
                inc: Duration::from_secs(12)
            }
        );
        let l = Command::Level {
            moves: 0,
            base: Duration::from_secs(90),
            inc: Duration::from_millis(50),
        };
        assert_eq!(l.to_string(), "level 0 1:30 0.05");
        assert_eq!(
            Command::parse("level 0 1:30 0.0501"),
            l,
            "cut to the millisecond"
        );
        for bad in [
            "level 0 1:x 0",
            "level 0 1 .5",
            "level 0 1 5.",
            "level -1 1 0",
            "level 0 1",
            "st 0.5",
            "sd",
            "time x",
            "usermove",
            "usermove e2e4 e7e5",
            "ping 1 2",
            "new game",
            "protover",
            "result 2-0",
            "edit x",
        ] {
            assert!(matches!(round_trip(bad), Command::Unknown(_)), "{bad}");
        }
    }

    #[test]
    fn results_and_moves() {
        assert_eq!(
            round_trip("result 1/2-1/2 {Draw by repetition}"),
            Command::Result(ResultClaim {
                outcome: Some(Outcome::Draw),
                comment: Some("Draw by repetition".into())
            })
        );
        assert_eq!(
            round_trip("result 0-1"),
            Command::Result(ResultClaim {
                outcome: Some(Outcome::Decisive {
                    winner: Color::Black
                }),
                comment: None
            })
        );
        assert_eq!(
            round_trip("  e2e4\r"),
            Command::Move("e2e4".parse().unwrap())
        );
        assert!(matches!(round_trip("castle"), Command::Unknown(_)));
    }

    #[test]
    fn edit_mode_subcommands() {
        for (line, want) in [
            ("#", EditCommand::Clear),
            ("c", EditCommand::Color),
            (".", EditCommand::Done),
            (
                "Pa4",
                EditCommand::Place(Role::Pawn, Square::from_ascii(b"a4").unwrap()),
            ),
            (
                "Ke1",
                EditCommand::Place(Role::King, Square::from_ascii(b"e1").unwrap()),
            ),
            (
                "xh8",
                EditCommand::Empty(Square::from_ascii(b"h8").unwrap()),
            ),
            ("pa4", EditCommand::Unknown("pa4".into())),
            ("Za4", EditCommand::Unknown("Za4".into())),
            ("Pa9", EditCommand::Unknown("Pa9".into())),
            ("", EditCommand::Unknown(String::new())),
        ] {
            assert_eq!(EditCommand::parse(line), want, "{line}");
            assert_eq!(EditCommand::parse(&want.to_string()), want);
            if !matches!(want, EditCommand::Unknown(_)) {
                assert_eq!(want.to_string(), line);
            }
        }
    }

    /// What `rookery match` sent to Fairy-Max, Phalanx and GNU Chess (the
    /// fuzz target's seeds) reads back as it was written.
    #[test]
    fn what_the_host_sent_round_trips() {
        let seeds = concat!(
            include_str!("../../../../fuzz/corpus/cecp_command/seed-host"),
            include_str!("../../../../fuzz/corpus/cecp_command/seed-hostile")
        );
        for line in seeds.lines() {
            round_trip(line);
            let e = EditCommand::parse(line);
            assert_eq!(EditCommand::parse(&e.to_string()), e, "{line:?}");
        }
        // Empty lines are the nudges of the feature wait.
        for line in include_str!("../../../../fuzz/corpus/cecp_command/seed-host")
            .lines()
            .filter(|l| !l.is_empty())
        {
            let c = Command::parse(line);
            let e = EditCommand::parse(line);
            assert!(
                !matches!(c, Command::Unknown(_)) || !matches!(e, EditCommand::Unknown(_)),
                "rookery sent {line:?}, which reads as no command"
            );
        }
    }

    /// Any line reads without panicking, and what it reads as writes back
    /// as one line that reads the same.
    #[test]
    fn parsing_is_a_fixed_point_of_writing() {
        let alphabet = [
            "level", "st", "sd", "time", "otim", "usermove", "result", "option", "setboard",
            "accepted", "variant", "ping", "new", "?", "0", "40", "0:30", "1.5", "-3", "=", "e2e4",
            "O-O", "1-0", "{", "}", "*", " ", "\t", "x", "é", "\0", "name", "go", "memory",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut s = seed;
            let mut line = String::new();
            for _ in 0..=(seed % 6) {
                line.push_str(alphabet[(s % alphabet.len() as u64) as usize]);
                s /= alphabet.len() as u64;
                if s % 2 == 0 {
                    line.push(' ');
                }
            }
            let c = Command::parse(&line);
            let written = c.to_string();
            assert!(!written.contains('\n'), "{line:?}");
            assert_eq!(Command::parse(&written), c, "{line:?} -> {written:?}");
            let e = EditCommand::parse(&line);
            assert_eq!(EditCommand::parse(&e.to_string()), e, "{line:?}");
        }
    }
}
