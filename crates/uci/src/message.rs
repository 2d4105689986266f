//! Engine-to-GUI messages.

use crate::{join, parse_move, tokenize, OptionDecl};
use rookery_core::{Score, UciMove};
use std::fmt;

/// A message sent by an engine to its GUI (or host).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// `id name <x>` or `id author <x>`.
    Id(Id),
    /// `uciok`.
    UciOk,
    /// `readyok`.
    ReadyOk,
    /// `bestmove <m> [ponder <m>]` (`bestmove (none)`, as Stockfish says
    /// it has no move, reads as `0000`).
    BestMove(BestMove),
    /// `bestmove` with no move that can be read: the search is over, but
    /// what was chosen is not known (the words after `bestmove`, as written).
    BadBestMove(String),
    /// `copyprotection checking|ok|error`.
    CopyProtection(Status),
    /// `registration checking|ok|error`.
    Registration(Status),
    /// `info ...`.
    Info(Box<Info>),
    /// `option name <id> type <t> ...`.
    Option(OptionDecl),
    /// A line that is none of the above (kept as written, trimmed).
    Unknown(String),
}

/// The payload of `id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Id {
    /// `id name <x>`.
    Name(String),
    /// `id author <x>`.
    Author(String),
}

/// `bestmove`: the move, `0000` for none, and an optional move to ponder on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The chosen move ([`UciMove::Null`] when there is no legal move).
    pub best: UciMove,
    /// The expected reply.
    pub ponder: Option<UciMove>,
}

/// The state word of `copyprotection` and `registration`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// `checking`.
    Checking,
    /// `ok`.
    Ok,
    /// `error`.
    Error,
}

/// Whether the score is exact or a bound.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ScoreBound {
    /// Exact.
    #[default]
    Exact,
    /// `lowerbound`.
    Lower,
    /// `upperbound`.
    Upper,
}

/// `score ...` of an `info` line: the value (the one
/// [`rookery_core::Score`]) and whether it is exact or a bound.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InfoScore {
    /// The value.
    pub value: Score,
    /// Exact or a bound.
    pub bound: ScoreBound,
}

impl InfoScore {
    /// An exact centipawn score.
    pub fn cp(cp: i32) -> InfoScore {
        InfoScore {
            value: Score::Cp(cp),
            bound: ScoreBound::Exact,
        }
    }

    /// An exact mate score.
    pub fn mate(moves: i32) -> InfoScore {
        InfoScore {
            value: Score::Mate(moves),
            bound: ScoreBound::Exact,
        }
    }
}

/// `currline [cpunr] <moves>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CurrLine {
    /// The CPU number (1-based), if given.
    pub cpu: Option<u32>,
    /// The line being searched.
    pub moves: Vec<UciMove>,
}

/// An `info` line: every field is optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// `depth`.
    pub depth: Option<u32>,
    /// `seldepth`.
    pub seldepth: Option<u32>,
    /// `time` in milliseconds.
    pub time: Option<u64>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `multipv` (1-based).
    pub multipv: Option<u32>,
    /// `score`.
    pub score: Option<InfoScore>,
    /// `currmove`.
    pub currmove: Option<UciMove>,
    /// `currmovenumber` (1-based).
    pub currmovenumber: Option<u32>,
    /// `hashfull` in permill.
    pub hashfull: Option<u32>,
    /// `nps`.
    pub nps: Option<u64>,
    /// `tbhits`.
    pub tbhits: Option<u64>,
    /// `sbhits`.
    pub sbhits: Option<u64>,
    /// `cpuload` in permill.
    pub cpuload: Option<u32>,
    /// `refutation <move> <refuting line>`.
    pub refutation: Option<Vec<UciMove>>,
    /// `currline`.
    pub currline: Option<CurrLine>,
    /// `pv` (written after the numeric fields).
    pub pv: Option<Vec<UciMove>>,
    /// `string`: the rest of the line (always written last).
    pub string: Option<String>,
}

impl Info {
    /// An `info string` line.
    pub fn string(s: impl Into<String>) -> Info {
        Info {
            string: Some(s.into()),
            ..Info::default()
        }
    }
}

fn parse_info(line: &str, tokens: &[&str]) -> Info {
    let mut info = Info::default();
    let mut i = 0;
    let num = |i: usize| tokens.get(i).and_then(|t| t.parse::<u64>().ok());
    let moves_from = |i: &mut usize| {
        let mut v = Vec::new();
        while let Some(m) = tokens.get(*i).and_then(|t| parse_move(t)) {
            v.push(m);
            *i += 1;
        }
        v
    };
    while i < tokens.len() {
        let key = tokens[i];
        i += 1;
        let small = |v: u64| u32::try_from(v).ok();
        match key {
            "depth" | "seldepth" | "time" | "nodes" | "multipv" | "currmovenumber" | "hashfull"
            | "nps" | "tbhits" | "sbhits" | "cpuload" => {
                let Some(v) = num(i) else { continue };
                i += 1;
                match key {
                    "depth" => info.depth = small(v),
                    "seldepth" => info.seldepth = small(v),
                    "time" => info.time = Some(v),
                    "nodes" => info.nodes = Some(v),
                    "multipv" => info.multipv = small(v),
                    "currmovenumber" => info.currmovenumber = small(v),
                    "hashfull" => info.hashfull = small(v),
                    "nps" => info.nps = Some(v),
                    "tbhits" => info.tbhits = Some(v),
                    "sbhits" => info.sbhits = Some(v),
                    _ => info.cpuload = small(v),
                }
            }
            "pv" => info.pv = Some(moves_from(&mut i)),
            "refutation" => info.refutation = Some(moves_from(&mut i)),
            "currline" => {
                let cpu = tokens
                    .get(i)
                    .and_then(|t| t.parse::<u32>().ok())
                    .inspect(|_| i += 1);
                info.currline = Some(CurrLine {
                    cpu,
                    moves: moves_from(&mut i),
                });
            }
            "currmove" => {
                if let Some(m) = tokens.get(i).and_then(|t| parse_move(t)) {
                    info.currmove = Some(m);
                    i += 1;
                }
            }
            "score" => {
                let mut value = None;
                let mut bound = ScoreBound::Exact;
                while let Some(&t) = tokens.get(i) {
                    match t {
                        "cp" | "mate" => {
                            let Some(v) = tokens
                                .get(i + 1)
                                .and_then(|v| Score::from_uci_words(t, v).ok())
                            else {
                                break;
                            };
                            value = Some(v);
                            i += 2;
                        }
                        "lowerbound" => {
                            bound = ScoreBound::Lower;
                            i += 1;
                        }
                        "upperbound" => {
                            bound = ScoreBound::Upper;
                            i += 1;
                        }
                        _ => break,
                    }
                }
                if let Some(value) = value {
                    info.score = Some(InfoScore { value, bound });
                }
            }
            "string" => {
                info.string = Some(rest_after_word(line, "string"));
                break;
            }
            _ => {}
        }
    }
    info
}

/// The text after the first whole word `word`, with its leading whitespace
/// removed (used for `info string`, whose text is kept verbatim).
fn rest_after_word(line: &str, word: &str) -> String {
    let mut from = 0;
    while let Some(p) = line[from..].find(word) {
        let at = from + p;
        let end = at + word.len();
        let before_ok = at == 0 || line.as_bytes()[at - 1].is_ascii_whitespace();
        let after_ok = end == line.len() || line.as_bytes()[end].is_ascii_whitespace();
        if before_ok && after_ok {
            return line[end..]
                .trim_start_matches(|c: char| c.is_ascii_whitespace())
                .trim_end_matches(['\r', '\n'])
                .to_string();
        }
        from = end;
    }
    String::new()
}

impl Message {
    /// Parses one line from an engine; anything unrecognised becomes
    /// [`Message::Unknown`].
    pub fn parse(line: &str) -> Message {
        let tokens: Vec<&str> = tokenize(line).collect();
        let unknown = || Message::Unknown(tokens.join(" "));
        let Some(&first) = tokens.first() else {
            return unknown();
        };
        let status = |t: Option<&&str>| match t.copied() {
            Some("checking") => Some(Status::Checking),
            Some("ok") => Some(Status::Ok),
            Some("error") => Some(Status::Error),
            _ => None,
        };
        match first {
            "id" => match tokens.get(1).copied() {
                Some("name") => Message::Id(Id::Name(tokens[2..].join(" "))),
                Some("author") => Message::Id(Id::Author(tokens[2..].join(" "))),
                _ => unknown(),
            },
            "uciok" => Message::UciOk,
            "readyok" => Message::ReadyOk,
            "bestmove" => match tokens.get(1).and_then(|&t| {
                if t == "(none)" {
                    Some(UciMove::Null)
                } else {
                    parse_move(t)
                }
            }) {
                Some(best) => Message::BestMove(BestMove {
                    best,
                    ponder: match tokens.get(2) {
                        Some(&"ponder") => tokens.get(3).and_then(|t| parse_move(t)),
                        _ => None,
                    },
                }),
                None => Message::BadBestMove(tokens[1..].join(" ")),
            },
            "copyprotection" => status(tokens.get(1)).map_or_else(unknown, Message::CopyProtection),
            "registration" => status(tokens.get(1)).map_or_else(unknown, Message::Registration),
            "info" => Message::Info(Box::new(parse_info(line, &tokens[1..]))),
            "option" => {
                OptionDecl::parse_tokens(&tokens[1..]).map_or_else(unknown, Message::Option)
            }
            _ => unknown(),
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Checking => "checking",
            Status::Ok => "ok",
            Status::Error => "error",
        })
    }
}

impl fmt::Display for InfoScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)?;
        match self.bound {
            ScoreBound::Exact => Ok(()),
            ScoreBound::Lower => f.write_str(" lowerbound"),
            ScoreBound::Upper => f.write_str(" upperbound"),
        }
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::command::num;
        f.write_str("info")?;
        num(f, "depth", self.depth)?;
        num(f, "seldepth", self.seldepth)?;
        num(f, "multipv", self.multipv)?;
        num(f, "score", self.score)?;
        num(f, "nodes", self.nodes)?;
        num(f, "nps", self.nps)?;
        num(f, "hashfull", self.hashfull)?;
        num(f, "tbhits", self.tbhits)?;
        num(f, "sbhits", self.sbhits)?;
        num(f, "cpuload", self.cpuload)?;
        num(f, "time", self.time)?;
        num(f, "currmove", self.currmove)?;
        num(f, "currmovenumber", self.currmovenumber)?;
        if let Some(r) = &self.refutation {
            write!(f, " refutation {}", join(r))?;
        }
        if let Some(c) = &self.currline {
            f.write_str(" currline")?;
            if let Some(cpu) = c.cpu {
                write!(f, " {cpu}")?;
            }
            for m in &c.moves {
                write!(f, " {m}")?;
            }
        }
        if let Some(pv) = &self.pv {
            f.write_str(" pv")?;
            for m in pv {
                write!(f, " {m}")?;
            }
        }
        if let Some(s) = &self.string {
            write!(f, " string {s}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Id(Id::Name(n)) => write!(f, "id name {n}"),
            Message::Id(Id::Author(a)) => write!(f, "id author {a}"),
            Message::UciOk => f.write_str("uciok"),
            Message::ReadyOk => f.write_str("readyok"),
            Message::BestMove(b) => {
                write!(f, "bestmove {}", b.best)?;
                if let Some(p) = b.ponder {
                    write!(f, " ponder {p}")?;
                }
                Ok(())
            }
            Message::CopyProtection(s) => write!(f, "copyprotection {s}"),
            Message::Registration(s) => write!(f, "registration {s}"),
            Message::Info(i) => write!(f, "{i}"),
            Message::Option(o) => write!(f, "{o}"),
            Message::BadBestMove(s) if s.is_empty() => f.write_str("bestmove"),
            Message::BadBestMove(s) => write!(f, "bestmove {s}"),
            Message::Unknown(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Checks that every line reads as [`Message::Unknown`].
    pub(crate) fn assert_unknown(lines: &[&str]) {
        for line in lines {
            assert!(
                matches!(Message::parse(line), Message::Unknown(_)),
                "{line}"
            );
        }
    }

    #[test]
    fn round_trips() {
        for line in [
            "id name rookery 0.1",
            "id author The rookery authors",
            "uciok",
            "readyok",
            "bestmove e2e4",
            "bestmove e1g1 ponder d8f6",
            "bestmove 0000",
            "copyprotection checking",
            "registration error",
            "info depth 12 seldepth 20 multipv 2 score cp -35 upperbound nodes 123456 nps 1000000 hashfull 12 cpuload 998 time 123 pv e2e4 e7e5 g1f3",
            "info depth 5 score mate -3 lowerbound pv e2e4",
            "info currmove e2e4 currmovenumber 1",
            "info refutation d1h5 g6h5",
            "info currline 1 e2e4 e7e5",
            "info currline d2d4",
            "info string hello   world  pv e2e4",
            "info tbhits 3 sbhits 4",
            "option name Hash type spin default 16 min 1 max 65536",
        ] {
            let m = Message::parse(line);
            assert!(!matches!(m, Message::Unknown(_)), "{line}");
            assert_eq!(m.to_string(), line);
        }
    }

    #[test]
    fn info_string_is_verbatim() {
        let Message::Info(i) = Message::parse("info depth 2 string  a\tb depth 9\r") else {
            panic!()
        };
        assert_eq!(i.string.as_deref(), Some("a\tb depth 9"));
        assert_eq!(i.depth, Some(2));
    }

    #[test]
    fn a_bestmove_without_a_readable_move_still_ends_the_search() {
        let none = Message::parse("bestmove (none)");
        assert_eq!(
            none,
            Message::BestMove(BestMove {
                best: UciMove::Null,
                ponder: None
            })
        );
        for (line, words) in [
            ("bestmove", ""),
            ("bestmove xx", "xx"),
            ("bestmove e9e4 ponder e7e5", "e9e4 ponder e7e5"),
        ] {
            let m = Message::parse(line);
            assert_eq!(m, Message::BadBestMove(words.to_string()), "{line}");
            assert_eq!(m.to_string(), line);
        }
    }

    #[test]
    fn garbage_is_unknown() {
        assert_unknown(&["", "id", "registration maybe", "hello"]);
        let Message::Info(i) = Message::parse("info depth x score cp nodes 5 pv") else {
            panic!()
        };
        assert_eq!(i.depth, None);
        assert_eq!(i.nodes, Some(5));
        assert_eq!(i.pv, Some(vec![]));
    }
}
