//! GUI-to-engine commands.

use crate::{join, parse_move, tokenize};
use rookery_core::{Move, Position, UciMove};
use std::fmt;

/// A command sent by a GUI (or any host) to an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: switch to UCI mode, identify, list options, answer `uciok`.
    Uci,
    /// `debug [on|off]`; `None` when neither word follows.
    Debug(Option<bool>),
    /// `isready`: answer `readyok` as soon as possible.
    IsReady,
    /// `setoption name <id> [value <x>]`; both may hold several words
    /// (joined by single spaces).
    SetOption {
        /// The option's name as written (matching is case-insensitive).
        name: String,
        /// The value, if any.
        value: Option<String>,
    },
    /// `register later | name <x> code <y>`.
    Register(Register),
    /// `ucinewgame`.
    UciNewGame,
    /// `position [startpos | fen <fen>] [moves <m1> ...]`.
    Position {
        /// Where the moves start from.
        start: PositionStart,
        /// The moves, in order, up to the first token that is not a UCI move.
        moves: Vec<UciMove>,
        /// The first token after `moves` that is not a UCI move, if any; the
        /// moves after it are dropped, and the engine should say so.
        invalid_move: Option<String>,
    },
    /// `go ...`.
    Go(GoParams),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// A line holding no known command (kept as written, trimmed).
    Unknown(String),
}

/// The starting point of a `position` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionStart {
    /// `startpos` (also assumed when neither keyword is given).
    StartPos,
    /// `fen <fen>`: the FEN's words joined by single spaces, not yet validated.
    Fen(String),
}

/// The argument of `register`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Register {
    /// `register later`.
    Later,
    /// `register [name <x>] [code <y>]`.
    With {
        /// The name, if given.
        name: Option<String>,
        /// The code, if given.
        code: Option<String>,
    },
}

/// The parameters of `go`. Absent parameters are `None`/`false`; times are
/// signed because some GUIs send negative remaining times.
///
/// `M` is how `searchmoves` are held: [`UciMove`] as read from the text (the
/// default), or [`Move`] once resolved against the position with
/// [`GoParams::resolve`], which is the form an engine searches with
/// (rookery-engine's `Limits`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoParams<M = UciMove> {
    /// `searchmoves`: restrict the root to these moves (empty: no restriction).
    pub searchmoves: Vec<M>,
    /// `ponder`: time limits apply only after `ponderhit`.
    pub ponder: bool,
    /// `wtime`: White's clock in milliseconds.
    pub wtime: Option<i64>,
    /// `btime`: Black's clock in milliseconds.
    pub btime: Option<i64>,
    /// `winc`: White's increment in milliseconds.
    pub winc: Option<i64>,
    /// `binc`: Black's increment in milliseconds.
    pub binc: Option<i64>,
    /// `movestogo`: moves to the next time control.
    pub movestogo: Option<u32>,
    /// `depth` in plies.
    pub depth: Option<u32>,
    /// `nodes`: a node limit.
    pub nodes: Option<u64>,
    /// `mate`: look for a mate in this many moves.
    pub mate: Option<u32>,
    /// `movetime`: exact time to think in milliseconds (a negative one is
    /// the least time there is).
    pub movetime: Option<i64>,
    /// `infinite`: search until stopped.
    pub infinite: bool,
    /// `perft N`: count the leaf nodes of the legal move tree to this depth
    /// instead of searching (an extension Stockfish and others understand;
    /// the protocol loop answers it, a search never sees it).
    pub perft: Option<u32>,
}

impl<M> Default for GoParams<M> {
    fn default() -> Self {
        GoParams {
            searchmoves: Vec::new(),
            ponder: false,
            wtime: None,
            btime: None,
            winc: None,
            binc: None,
            movestogo: None,
            depth: None,
            nodes: None,
            mate: None,
            movetime: None,
            infinite: false,
            perft: None,
        }
    }
}

impl GoParams<UciMove> {
    /// The same parameters with `searchmoves` resolved to moves of `pos`;
    /// a move that is not legal there is left out (a GUI's stale list must
    /// not stop the search).
    pub fn resolve(&self, pos: &Position) -> GoParams<Move> {
        GoParams {
            searchmoves: self
                .searchmoves
                .iter()
                .filter_map(|m| m.to_move(pos).ok())
                .collect(),
            ponder: self.ponder,
            wtime: self.wtime,
            btime: self.btime,
            winc: self.winc,
            binc: self.binc,
            movestogo: self.movestogo,
            depth: self.depth,
            nodes: self.nodes,
            mate: self.mate,
            movetime: self.movetime,
            infinite: self.infinite,
            perft: self.perft,
        }
    }
}

const COMMANDS: [&str; 11] = [
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
];

impl Command {
    /// Parses one line. Words before the first known command word are
    /// skipped (the protocol's rule for unknown commands); a line with no
    /// known command becomes [`Command::Unknown`].
    pub fn parse(line: &str) -> Command {
        let tokens: Vec<&str> = tokenize(line).collect();
        let Some(start) = tokens.iter().position(|t| COMMANDS.contains(t)) else {
            return Command::Unknown(tokens.join(" "));
        };
        let args = &tokens[start + 1..];
        match tokens[start] {
            "uci" => Command::Uci,
            "debug" => Command::Debug(args.iter().find_map(|t| match *t {
                "on" => Some(true),
                "off" => Some(false),
                _ => None,
            })),
            "isready" => Command::IsReady,
            "setoption" => parse_setoption(args),
            "register" => parse_register(args),
            "ucinewgame" => Command::UciNewGame,
            "position" => parse_position(args),
            "go" => Command::Go(parse_go(args)),
            "stop" => Command::Stop,
            "ponderhit" => Command::PonderHit,
            // The list above is exhaustive; "quit" is the last.
            _ => Command::Quit,
        }
    }
}

/// `setoption name <id> [value <x>]`: the name runs from `name` to the first
/// `value` after it, the value to the end of the line (it may hold the words
/// `name` and `value`). Words before `name`, a `value` among them, are junk.
fn parse_setoption(args: &[&str]) -> Command {
    let name_start = args.iter().position(|t| *t == "name").map_or(0, |i| i + 1);
    let value_at = args[name_start..]
        .iter()
        .position(|t| *t == "value")
        .map(|i| name_start + i);
    let name_end = value_at.unwrap_or(args.len());
    let name = args[name_start..name_end].join(" ");
    let value = value_at.map(|v| args[v + 1..].join(" "));
    Command::SetOption { name, value }
}

fn parse_register(args: &[&str]) -> Command {
    if args.first() == Some(&"later") {
        return Command::Register(Register::Later);
    }
    let mut name: Option<Vec<&str>> = None;
    let mut code: Option<Vec<&str>> = None;
    let mut current: Option<&mut Vec<&str>> = None;
    for t in args {
        match *t {
            "name" => current = Some(name.insert(Vec::new())),
            "code" => current = Some(code.insert(Vec::new())),
            w => {
                if let Some(c) = current.as_mut() {
                    c.push(w);
                }
            }
        }
    }
    Command::Register(Register::With {
        name: name.map(|v| v.join(" ")),
        code: code.map(|v| v.join(" ")),
    })
}

fn parse_position(args: &[&str]) -> Command {
    let moves_at = args.iter().position(|t| *t == "moves");
    let head = &args[..moves_at.unwrap_or(args.len())];
    let start = match head.iter().position(|t| *t == "fen") {
        Some(i) => PositionStart::Fen(head[i + 1..].join(" ")),
        None => PositionStart::StartPos,
    };
    let mut moves = Vec::new();
    let mut invalid_move = None;
    if let Some(m) = moves_at {
        for t in &args[m + 1..] {
            match parse_move(t) {
                Some(mv) => moves.push(mv),
                None => {
                    invalid_move = Some((*t).to_string());
                    break;
                }
            }
        }
    }
    Command::Position {
        start,
        moves,
        invalid_move,
    }
}

fn parse_go(args: &[&str]) -> GoParams {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        let next = args.get(i).copied();
        let took;
        match key {
            "searchmoves" => {
                while let Some(m) = args.get(i).and_then(|t| parse_move(t)) {
                    go.searchmoves.push(m);
                    i += 1;
                }
                took = false;
            }
            "ponder" => {
                go.ponder = true;
                took = false;
            }
            "infinite" => {
                go.infinite = true;
                took = false;
            }
            "wtime" => took = set(&mut go.wtime, next),
            "btime" => took = set(&mut go.btime, next),
            "winc" => took = set(&mut go.winc, next),
            "binc" => took = set(&mut go.binc, next),
            "movestogo" => took = set(&mut go.movestogo, next),
            "depth" => took = set(&mut go.depth, next),
            "nodes" => took = set(&mut go.nodes, next),
            "mate" => took = set(&mut go.mate, next),
            "movetime" => took = set(&mut go.movetime, next),
            "perft" => took = set(&mut go.perft, next),
            _ => took = false,
        }
        if took {
            i += 1;
        }
    }
    go
}

/// Parses `token` into `slot`; returns whether the token was consumed.
fn set<T: std::str::FromStr>(slot: &mut Option<T>, token: Option<&str>) -> bool {
    match token.and_then(|t| t.parse().ok()) {
        Some(v) => {
            *slot = Some(v);
            true
        }
        None => false,
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Uci => f.write_str("uci"),
            Command::Debug(None) => f.write_str("debug"),
            Command::Debug(Some(on)) => write!(f, "debug {}", if *on { "on" } else { "off" }),
            Command::IsReady => f.write_str("isready"),
            Command::SetOption { name, value } => {
                write!(f, "setoption name {name}")?;
                if let Some(v) = value {
                    write!(f, " value {v}")?;
                }
                Ok(())
            }
            Command::Register(Register::Later) => f.write_str("register later"),
            Command::Register(Register::With { name, code }) => {
                f.write_str("register")?;
                if let Some(n) = name {
                    write!(f, " name {n}")?;
                }
                if let Some(c) = code {
                    write!(f, " code {c}")?;
                }
                Ok(())
            }
            Command::UciNewGame => f.write_str("ucinewgame"),
            Command::Position {
                start,
                moves,
                invalid_move,
            } => {
                match start {
                    PositionStart::StartPos => f.write_str("position startpos")?,
                    PositionStart::Fen(fen) => write!(f, "position fen {fen}")?,
                }
                if !moves.is_empty() || invalid_move.is_some() {
                    f.write_str(" moves")?;
                    for m in moves {
                        write!(f, " {m}")?;
                    }
                    if let Some(bad) = invalid_move {
                        write!(f, " {bad}")?;
                    }
                }
                Ok(())
            }
            Command::Go(go) => write!(f, "{go}"),
            Command::Stop => f.write_str("stop"),
            Command::PonderHit => f.write_str("ponderhit"),
            Command::Quit => f.write_str("quit"),
            Command::Unknown(s) => f.write_str(s),
        }
    }
}

/// Writes ` k v` when there is a value: the optional fields of a `go`
/// command and of an `info` line.
pub(crate) fn num<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    k: &str,
    v: Option<T>,
) -> fmt::Result {
    match v {
        Some(v) => write!(f, " {k} {v}"),
        None => Ok(()),
    }
}

impl<M: fmt::Display> fmt::Display for GoParams<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("go")?;
        if !self.searchmoves.is_empty() {
            write!(f, " searchmoves {}", join(&self.searchmoves))?;
        }
        if self.ponder {
            f.write_str(" ponder")?;
        }
        num(f, "wtime", self.wtime)?;
        num(f, "btime", self.btime)?;
        num(f, "winc", self.winc)?;
        num(f, "binc", self.binc)?;
        num(f, "movestogo", self.movestogo)?;
        num(f, "depth", self.depth)?;
        num(f, "nodes", self.nodes)?;
        num(f, "mate", self.mate)?;
        num(f, "movetime", self.movetime)?;
        if self.infinite {
            f.write_str(" infinite")?;
        }
        num(f, "perft", self.perft)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> UciMove {
        s.parse().unwrap()
    }

    #[test]
    fn round_trips() {
        for line in [
            "uci",
            "debug on",
            "debug off",
            "isready",
            "setoption name Clear Hash",
            "setoption name UCI_Opponent value GM 2800 human Gary Kasparov",
            "register later",
            "register name Dima Best code 123456789",
            "ucinewgame",
            "position startpos",
            "position startpos moves e2e4 e7e5 b1c3",
            "position fen 8/8/8/8/8/8/8/K6k w - - 0 1 moves a1a2",
            "go searchmoves e2e4 d2d4 ponder wtime 1000 btime -5 winc 10 binc 10 movestogo 3",
            "go depth 5 nodes 1000 mate 3 movetime 200 infinite",
            "stop",
            "ponderhit",
            "quit",
        ] {
            let c = Command::parse(line);
            assert!(!matches!(c, Command::Unknown(_)), "{line}");
            assert_eq!(c.to_string(), line);
            assert_eq!(Command::parse(&c.to_string()), c);
        }
    }

    #[test]
    fn whitespace_and_unknown_words() {
        assert_eq!(
            Command::parse("  \tjoho  debug\t on\r"),
            Command::Debug(Some(true))
        );
        assert_eq!(
            Command::parse("xyzzy 42"),
            Command::Unknown("xyzzy 42".into())
        );
        assert_eq!(Command::parse(""), Command::Unknown(String::new()));
        assert_eq!(
            Command::parse("ISREADY"),
            Command::Unknown("ISREADY".into())
        );
    }

    #[test]
    fn setoption_multiword() {
        assert_eq!(
            Command::parse("setoption   name  Move\tOverhead value  30 "),
            Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            }
        );
        assert_eq!(
            Command::parse("setoption value 3"),
            Command::SetOption {
                name: String::new(),
                value: Some("3".into())
            }
        );
    }

    #[test]
    fn position_variants() {
        assert_eq!(
            Command::parse("position moves e2e4"),
            Command::Position {
                start: PositionStart::StartPos,
                moves: vec![mv("e2e4")],
                invalid_move: None
            }
        );
        assert_eq!(
            Command::parse("position startpos moves e2e4 zz9 e7e5"),
            Command::Position {
                start: PositionStart::StartPos,
                moves: vec![mv("e2e4")],
                invalid_move: Some("zz9".into())
            }
        );
        let Command::Position { start, .. } = Command::parse(
            "position fen   rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR  w KQkq - 0 1",
        ) else {
            panic!()
        };
        assert_eq!(
            start,
            PositionStart::Fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into())
        );
    }

    #[test]
    fn go_tolerates_garbage() {
        let Command::Go(go) = Command::parse("go wtime abc depth 7 foo nodes -3 movetime 50 bar")
        else {
            panic!()
        };
        assert_eq!(go.wtime, None);
        assert_eq!(go.depth, Some(7));
        assert_eq!(go.nodes, None);
        assert_eq!(go.movetime, Some(50));
        let Command::Go(go) = Command::parse("go searchmoves e2e4 e7e8q infinite") else {
            panic!()
        };
        assert_eq!(go.searchmoves, vec![mv("e2e4"), mv("e7e8q")]);
        assert!(go.infinite);
    }

    #[test]
    fn hostile_lines_never_panic_and_round_trip() {
        let long = "go ".repeat(10_000);
        for line in [
            "position fen",
            "position fen moves",
            "setoption name",
            "setoption",
            "register",
            "register name",
            "go searchmoves",
            "go depth",
            "go depth 99999999999999999999999",
            "\u{0}\u{1}\u{7f} position ÿÿ moves é",
            // Found by the uci_command fuzz target: a `value` before `name`.
            "setoption junk value 64 name Hash value 1 value 2",
            long.as_str(),
        ] {
            // Parsing is a fixed point of writing: what is written reads
            // back as the same command and writes out the same text.
            let c = Command::parse(line);
            let written = c.to_string();
            let again = Command::parse(&written);
            assert_eq!(again, c, "{line:?} -> {written:?}");
            assert_eq!(again.to_string(), written, "{line:?}");
        }
    }
}
