//! The UCI loop: reads commands (typed by `rookery-uci`), drives the
//! [`Engine`] facade, and writes messages. Input is read on the caller's
//! thread while the search runs on its own, so `isready` and `stop` are
//! answered at once. Nothing on the input can end the loop but `quit` or the
//! end of input.

use crate::{
    Config, Engine, Event, Report, ELO_MAX, ELO_MIN, MAX_HASH_MB, MAX_MULTIPV, MAX_THREADS,
};
use rookery_core::polyglot::book::Book;
use rookery_core::{CastlingMode, Move, Position, UciMove};
use rookery_uci::{
    BestMove, Command, CurrLine, GoParams, Id, Info, Message, OptionDecl, OptionKind,
    PositionStart, Register, ScoreBound, Status,
};
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};

/// The engine's name as sent in `id name`.
pub const NAME: &str = concat!("rookery ", env!("CARGO_PKG_VERSION"));
/// The author line.
pub const AUTHOR: &str = "the rookery authors";
/// The longest input line kept; the rest of a longer line is discarded.
pub const MAX_LINE: usize = 1 << 20;

type Out = Arc<Mutex<dyn Write + Send>>;

fn send(out: &Out, msg: &Message) {
    // A poisoned lock only means another writer panicked mid-line; keep going.
    let mut w = match out.lock() {
        Ok(w) => w,
        Err(p) => p.into_inner(),
    };
    // Output errors (a closed pipe) cannot be reported anywhere useful.
    let _ = writeln!(w, "{msg}");
    let _ = w.flush();
}

fn info_string(out: &Out, s: impl Into<String>) {
    send(out, &Message::Info(Box::new(Info::string(s))));
}

/// The options this engine declares.
pub fn options() -> Vec<OptionDecl> {
    let d = Config::default();
    let spin = |name: &str, default: i64, min: i64, max: i64| OptionDecl {
        name: name.into(),
        kind: OptionKind::Spin { default, min, max },
    };
    let check = |name: &str, default: bool| OptionDecl {
        name: name.into(),
        kind: OptionKind::Check { default },
    };
    vec![
        spin("Hash", d.hash_mb as i64, 1, MAX_HASH_MB as i64),
        spin("Threads", d.threads as i64, 1, MAX_THREADS as i64),
        spin("MultiPV", 1, 1, MAX_MULTIPV as i64),
        check("Ponder", false),
        OptionDecl {
            name: "Clear Hash".into(),
            kind: OptionKind::Button,
        },
        spin("Move Overhead", d.move_overhead as i64, 0, 5_000),
        check("UCI_Chess960", false),
        check("UCI_ShowCurrLine", false),
        check("UCI_ShowRefutations", false),
        check("UCI_LimitStrength", false),
        spin(
            "UCI_Elo",
            i64::from(ELO_MAX),
            i64::from(ELO_MIN),
            i64::from(ELO_MAX),
        ),
        check("UCI_AnalyseMode", false),
        check("OwnBook", false),
        OptionDecl {
            name: "Book File".into(),
            kind: OptionKind::String {
                default: String::new(),
            },
        },
        OptionDecl {
            name: "UCI_Opponent".into(),
            kind: OptionKind::String {
                default: String::new(),
            },
        },
        OptionDecl {
            name: "UCI_EngineAbout".into(),
            kind: OptionKind::String {
                default: format!("{NAME} by {AUTHOR}, MIT OR Apache-2.0"),
            },
        },
    ]
}

/// Why [`set_config_option`] refused an option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// Not an option of [`Config`] (see [`options`] for all the engine declares).
    #[error("unknown option {0:?}")]
    Unknown(String),
    /// A value the option does not take.
    #[error("invalid value for option {name}: {value:?}")]
    BadValue {
        /// The option.
        name: String,
        /// The value given.
        value: String,
    },
}

fn parse_flag(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "1" => Some(true),
        "false" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// Sets one of the options that live in [`Config`] — Hash, Threads,
/// MultiPV, Move Overhead, UCI_ShowCurrLine, UCI_ShowRefutations,
/// UCI_LimitStrength, UCI_Elo — from its UCI name (any case) and value, the
/// one place both the UCI loop and in-process hosts set them. Numbers out of
/// the declared range are clamped to it, as the UCI loop always did.
///
/// # Errors
/// [`OptionError::Unknown`] for any other name, [`OptionError::BadValue`]
/// for a value the option does not take.
pub fn set_config_option(
    cfg: &mut Config,
    name: &str,
    value: Option<&str>,
) -> Result<(), OptionError> {
    let text = value.unwrap_or("").trim();
    let bad = || OptionError::BadValue {
        name: name.to_string(),
        value: text.to_string(),
    };
    let spin = |min: i64, max: i64| {
        text.parse::<i64>()
            .map(|v| v.clamp(min, max))
            .map_err(|_| bad())
    };
    let flag = || parse_flag(text).ok_or_else(bad);
    match name.trim().to_ascii_lowercase().as_str() {
        "hash" => cfg.hash_mb = spin(1, MAX_HASH_MB as i64)? as usize,
        "threads" => cfg.threads = spin(1, MAX_THREADS as i64)? as usize,
        "multipv" => cfg.multipv = spin(1, MAX_MULTIPV as i64)? as usize,
        "move overhead" => cfg.move_overhead = spin(0, 5_000)? as u64,
        "uci_elo" => cfg.elo = spin(i64::from(ELO_MIN), i64::from(ELO_MAX))? as u32,
        "uci_showcurrline" => cfg.show_currline = flag()?,
        "uci_showrefutations" => cfg.show_refutations = flag()?,
        "uci_limitstrength" => cfg.limit_strength = flag()?,
        _ => return Err(OptionError::Unknown(name.to_string())),
    }
    Ok(())
}

/// The opponent as described by `UCI_Opponent`: `[title] [elo] [computer|human] name`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Opponent {
    /// GM, IM, FM, WGM, WIM, or none.
    pub title: Option<String>,
    /// Rating, if known.
    pub elo: Option<u32>,
    /// Whether the opponent is a computer.
    pub computer: Option<bool>,
    /// The name.
    pub name: String,
}

impl Opponent {
    /// Parses the option's value leniently (missing parts stay `None`).
    pub fn parse(s: &str) -> Opponent {
        let words: Vec<&str> = rookery_uci::tokenize(s).collect();
        let mut o = Opponent::default();
        let mut i = 0;
        if let Some(w) = words.get(i) {
            if ["GM", "IM", "FM", "WGM", "WIM", "none"].contains(w) {
                o.title = (*w != "none").then(|| w.to_string());
                i += 1;
            }
        }
        if let Some(w) = words.get(i) {
            if let Ok(e) = w.parse() {
                o.elo = Some(e);
                i += 1;
            } else if *w == "none" {
                i += 1;
            }
        }
        if let Some(w) = words.get(i) {
            match *w {
                "computer" => {
                    o.computer = Some(true);
                    i += 1;
                }
                "human" => {
                    o.computer = Some(false);
                    i += 1;
                }
                _ => {}
            }
        }
        o.name = words[i.min(words.len())..].join(" ");
        o
    }
}

/// The state of the UCI loop.
pub struct Session {
    engine: Engine,
    out: Out,
    debug: bool,
    chess960: bool,
    ponder: bool,
    analyse_mode: bool,
    opponent: Opponent,
    start: Position,
    moves: Vec<Move>,
    /// `OwnBook`: answer `go` from the book when it has a move.
    own_book: bool,
    /// The Polyglot book of `Book File`, read when the option is set.
    book: Option<Book>,
    /// The state of the generator that draws book moves (SplitMix64,
    /// seeded by the constant below: a session plays the same book moves
    /// for the same commands).
    book_draws: u64,
}

/// The first state of the generator of book moves.
const BOOK_SEED: u64 = 0x0B00_C5EE_D000_0001;

impl Session {
    fn new(out: Out) -> Session {
        Session {
            engine: Engine::new(),
            out,
            debug: false,
            chess960: false,
            ponder: false,
            analyse_mode: false,
            opponent: Opponent::default(),
            start: Position::startpos(),
            moves: Vec::new(),
            own_book: false,
            book: None,
            book_draws: BOOK_SEED,
        }
    }

    /// The next number of the book's generator (SplitMix64).
    fn book_draw(&mut self) -> u64 {
        self.book_draws = self.book_draws.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.book_draws;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Reads the Polyglot book of `Book File` (empty: none).
    fn set_book_file(&mut self, path: &str) {
        self.book = None;
        if path.is_empty() || path == "<empty>" {
            return;
        }
        let read = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| Book::from_bytes(&bytes).map_err(|e| e.to_string()));
        match read {
            Ok(b) => {
                if self.debug {
                    info_string(&self.out, format!("book {path}: {} entries", b.len()));
                }
                self.book = Some(b);
            }
            Err(e) => info_string(&self.out, format!("book not read: {path}: {e}")),
        }
    }

    fn mode(&self) -> CastlingMode {
        if self.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    fn current(&self) -> Position {
        let mut p = self.start.clone();
        for &m in &self.moves {
            p.play_unchecked(m);
        }
        p
    }

    /// Handles one command; returns `false` on `quit`.
    fn handle(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::Uci => {
                send(&self.out, &Message::Id(Id::Name(NAME.into())));
                send(&self.out, &Message::Id(Id::Author(AUTHOR.into())));
                for o in options() {
                    send(&self.out, &Message::Option(o));
                }
                send(&self.out, &Message::UciOk);
            }
            Command::Debug(on) => self.debug = on.unwrap_or(!self.debug),
            Command::IsReady => send(&self.out, &Message::ReadyOk),
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Register(r) => {
                if self.debug {
                    let what = match r {
                        Register::Later => "later".to_string(),
                        Register::With { .. } => "name/code".to_string(),
                    };
                    info_string(
                        &self.out,
                        format!("register {what}: no registration needed"),
                    );
                }
                send(&self.out, &Message::Registration(Status::Checking));
                send(&self.out, &Message::Registration(Status::Ok));
            }
            Command::UciNewGame => {
                self.engine.clear_hash();
            }
            Command::Position {
                start,
                moves,
                invalid_move,
            } => self.set_position(start, &moves, invalid_move),
            Command::Go(go) => self.go(go),
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => {
                self.engine.stop();
                self.engine.wait();
                return false;
            }
            Command::Unknown(text) => {
                if self.debug && !text.is_empty() {
                    let shown: String = text.chars().take(80).collect();
                    info_string(&self.out, format!("unknown command ignored: {shown}"));
                }
            }
        }
        true
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let key = name.to_ascii_lowercase();
        let text = value.unwrap_or("").trim();
        let session_flag = match key.as_str() {
            "ponder" | "uci_chess960" | "uci_analysemode" | "ownbook" => Some(parse_flag(text)),
            _ => None,
        };
        match (key.as_str(), session_flag) {
            (_, Some(None)) => {
                info_string(
                    &self.out,
                    format!("invalid value for option {name}: {text:?} (ignored)"),
                );
                return;
            }
            ("ponder", Some(Some(b))) => self.ponder = b,
            ("uci_chess960", Some(Some(b))) => self.chess960 = b,
            ("uci_analysemode", Some(Some(b))) => self.analyse_mode = b,
            ("ownbook", Some(Some(b))) => self.own_book = b,
            ("book file", _) => self.set_book_file(text),
            ("clear hash", _) => {
                if self.engine.is_searching() {
                    info_string(&self.out, "Clear Hash ignored while searching");
                } else {
                    self.engine.clear_hash();
                }
            }
            ("uci_opponent", _) => self.opponent = Opponent::parse(text),
            ("uci_engineabout", _) => {}
            _ => {
                let mut cfg = self.engine.config().clone();
                match set_config_option(&mut cfg, name, value) {
                    Ok(()) => {
                        if let Err(e) = self.engine.set_config(cfg) {
                            info_string(&self.out, format!("option {name} not changed: {e}"));
                            return;
                        }
                    }
                    Err(OptionError::Unknown(_)) => {
                        info_string(&self.out, format!("unknown option ignored: {name}"));
                        return;
                    }
                    Err(e) => {
                        info_string(&self.out, format!("{e} (ignored)"));
                        return;
                    }
                }
            }
        }
        if self.debug {
            info_string(&self.out, format!("option {name} set"));
        }
    }

    fn set_position(&mut self, start: PositionStart, moves: &[UciMove], invalid: Option<String>) {
        let start_pos = match start {
            PositionStart::StartPos => Position::startpos(),
            PositionStart::Fen(fen) => match Position::from_fen_lenient(&fen) {
                Ok((p, _)) => p,
                Err(e) => {
                    info_string(&self.out, format!("invalid FEN ({e}): position unchanged"));
                    return;
                }
            },
        };
        let mut pos = start_pos.clone();
        let mut played = Vec::with_capacity(moves.len());
        let mut bad = invalid;
        for um in moves {
            match um.to_move(&pos) {
                Ok(m) => {
                    pos.play_unchecked(m);
                    played.push(m);
                }
                Err(_) => {
                    bad = Some(um.to_string());
                    break;
                }
            }
        }
        if let Some(b) = bad {
            info_string(
                &self.out,
                format!(
                    "illegal move {b} in position: position set after the {} moves before it",
                    played.len()
                ),
            );
        }
        self.start = start_pos;
        self.moves = played;
    }

    fn go(&mut self, go: GoParams) {
        let pos = self.current();
        if let Some(depth) = go.perft {
            self.perft(&pos, depth);
            return;
        }
        // A book move answers at once, unless the GUI asked for analysis
        // (infinite, pondering, a mate search or a subset of the moves).
        let from_book = self.own_book
            && !go.infinite
            && !go.ponder
            && go.mate.is_none()
            && go.searchmoves.is_empty();
        if from_book {
            let draw = self.book_draw();
            if let Some(m) = self.book.as_ref().and_then(|b| b.pick(&pos, draw)) {
                let best = UciMove::from_move(&pos, m.mv, self.mode());
                info_string(&self.out, format!("book move {best} (weight {})", m.weight));
                send(
                    &self.out,
                    &Message::BestMove(BestMove { best, ponder: None }),
                );
                return;
            }
        }
        let limits = go.resolve(&pos);
        if self.debug {
            info_string(&self.out, format!("searching {}", pos.fen()));
        }
        self.engine.set_position(self.start.clone(), &self.moves);
        let out = Arc::clone(&self.out);
        let mode = self.mode();
        let root = pos;
        self.engine.go(limits, move |event| {
            if let Some(msg) = format_event(&root, mode, event) {
                send(&out, &msg);
            }
        });
    }
}

impl Session {
    /// `go perft N`: counts the leaf nodes below each legal move and prints
    /// them as Stockfish does (`e2e4: 20`, a blank line, `Nodes searched: N`);
    /// no search is started and no `bestmove` follows.
    fn perft(&mut self, pos: &Position, depth: u32) {
        // A search still running would interleave its output with the counts.
        self.engine.stop();
        self.engine.wait();
        let mode = self.mode();
        let mut w = match self.out.lock() {
            Ok(w) => w,
            Err(p) => p.into_inner(),
        };
        let mut total = 0u64;
        if depth == 0 {
            total = 1;
        } else {
            for (m, n) in rookery_core::divide(pos, depth) {
                total += n;
                let _ = writeln!(w, "{}: {n}", UciMove::from_move(pos, m, mode));
            }
        }
        let _ = writeln!(w);
        let _ = writeln!(w, "Nodes searched: {total}");
        let _ = writeln!(w);
        let _ = w.flush();
    }
}

/// Writes `line` (moves from `pos`) as UCI moves.
fn line_to_uci(pos: &Position, line: &[Move], mode: CastlingMode) -> Vec<UciMove> {
    let mut p = pos.clone();
    let mut v = Vec::with_capacity(line.len());
    for &m in line {
        if !p.is_legal(m) {
            break;
        }
        v.push(UciMove::from_move(&p, m, mode));
        p.play_unchecked(m);
    }
    v
}

/// Turns a search event into a UCI message.
pub fn format_event(root: &Position, mode: CastlingMode, e: Event) -> Option<Message> {
    let info = |i: Info| Some(Message::Info(Box::new(i)));
    match e {
        Event::Report(r) => info(report_info(root, mode, &r)),
        Event::CurrMove { mv, number, depth } => info(Info {
            depth: Some(depth),
            currmove: Some(UciMove::from_move(root, mv, mode)),
            currmovenumber: Some(number),
            ..Info::default()
        }),
        Event::Refutation { line } => info(Info {
            refutation: Some(line_to_uci(root, &line, mode)),
            ..Info::default()
        }),
        Event::CurrLine { cpu, line } => info(Info {
            currline: Some(CurrLine {
                cpu,
                moves: line_to_uci(root, &line, mode),
            }),
            ..Info::default()
        }),
        Event::Message(s) => info(Info::string(s)),
        Event::BestMove { best, ponder } => {
            let best_uci = best.map_or(UciMove::Null, |m| UciMove::from_move(root, m, mode));
            let ponder = match (best, ponder) {
                (Some(b), Some(p)) => {
                    let after = root.after(b);
                    after
                        .is_legal(p)
                        .then(|| UciMove::from_move(&after, p, mode))
                }
                _ => None,
            };
            Some(Message::BestMove(BestMove {
                best: best_uci,
                ponder,
            }))
        }
    }
}

fn report_info(root: &Position, mode: CastlingMode, r: &Report) -> Info {
    let bound = match r.bound {
        crate::tt::Bound::Exact => ScoreBound::Exact,
        crate::tt::Bound::Lower => ScoreBound::Lower,
        crate::tt::Bound::Upper => ScoreBound::Upper,
    };
    Info {
        depth: Some(r.depth),
        seldepth: Some(r.seldepth),
        multipv: Some(r.multipv),
        score: Some(rookery_uci::InfoScore {
            value: r.score,
            bound,
        }),
        nodes: Some(r.nodes),
        nps: Some(r.nps),
        hashfull: Some(r.hashfull),
        time: Some(r.time_ms),
        // One search thread per core: the load is the share of busy threads.
        cpuload: Some(1000),
        pv: Some(line_to_uci(root, &r.pv, mode)),
        ..Info::default()
    }
}

/// Reads one line of at most [`MAX_LINE`] bytes (the rest is skipped);
/// `None` at the end of input.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<()>> {
    buf.clear();
    let mut any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(any.then_some(()));
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1),
            None => (chunk, chunk.len()),
        };
        let room = MAX_LINE.saturating_sub(buf.len());
        buf.extend_from_slice(&part[..part.len().min(room)]);
        let newline = done <= chunk.len() && chunk.get(done - 1) == Some(&b'\n');
        input.consume(done);
        if newline {
            return Ok(Some(()));
        }
    }
}

/// Runs the UCI loop until `quit` or the end of `input`. At the end of input
/// a search that only `stop` would end is stopped; any other is waited for.
///
/// # Errors
/// Only errors reading `input`.
pub fn run<R: BufRead, W: Write + Send + 'static>(mut input: R, output: W) -> io::Result<()> {
    let out: Out = Arc::new(Mutex::new(output));
    let mut session = Session::new(out);
    let mut buf = Vec::new();
    while read_line(&mut input, &mut buf)?.is_some() {
        let line = String::from_utf8_lossy(&buf);
        if !session.handle(Command::parse(&line)) {
            return Ok(());
        }
    }
    if session.engine.is_waiting_for_stop() {
        session.engine.stop();
    }
    session.engine.wait();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn transcript(input: &str) -> Vec<String> {
        let buf = Buf::default();
        run(input.as_bytes(), buf.clone()).unwrap();
        let v = buf.0.lock().unwrap().clone();
        String::from_utf8(v)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }

    #[test]
    fn handshake() {
        let out = transcript("uci\nisready\nquit\n");
        assert_eq!(out[0], format!("id name {NAME}"));
        assert!(out
            .iter()
            .any(|l| l.starts_with("option name Hash type spin")));
        let ok = out.iter().position(|l| l == "uciok").unwrap();
        assert_eq!(out[ok + 1], "readyok");
    }

    #[test]
    fn go_depth_answers_bestmove() {
        let out = transcript("position startpos moves e2e4\r\ngo depth 4\n");
        let last = out.last().unwrap();
        assert!(last.starts_with("bestmove "), "{out:?}");
        assert!(out.iter().any(|l| l.starts_with("info depth 4")));
    }

    /// `OwnBook` with a `Book File`: `go` answers the book's move at once
    /// (castling as the GUI writes it), searches where the book has none,
    /// and not at all without `OwnBook`.
    #[test]
    fn own_book_answers_from_the_book_file() {
        use rookery_core::polyglot::book::Entry;
        use rookery_core::polyglot::PolyglotMove;
        let dir = std::env::temp_dir().join(format!("rookery-ownbook-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let castle_fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
        let entry = |fen: &str, uci: &str| {
            let pos = Position::from_fen(fen).unwrap();
            let m = UciMove::from_ascii(uci.as_bytes())
                .unwrap()
                .to_move(&pos)
                .unwrap();
            Entry {
                key: pos.polyglot_key(),
                mv: PolyglotMove::from_move(m),
                weight: 1,
                learn: 0,
            }
        };
        let start = Position::startpos().fen();
        let book = Book::from_entries(vec![entry(&start, "b1a3"), entry(castle_fen, "e1h1")]);
        let path = dir.join("book.bin");
        std::fs::write(&path, book.to_bytes()).unwrap();
        let set = format!(
            "setoption name Book File value {}\nsetoption name OwnBook value true\n",
            path.display()
        );
        let best = |out: &[String]| out.last().cloned().unwrap_or_default();
        // Without OwnBook the engine does not choose Na3 here.
        let searched = transcript("position startpos\ngo depth 2\n");
        assert_ne!(best(&searched), "bestmove b1a3", "{searched:?}");
        let out = transcript(&format!("{set}position startpos\ngo depth 2\n"));
        assert_eq!(best(&out), "bestmove b1a3", "{out:?}");
        assert!(!out.iter().any(|l| l.starts_with("info depth")), "{out:?}");
        let out = transcript(&format!("{set}position fen {castle_fen}\ngo depth 2\n"));
        assert_eq!(best(&out), "bestmove e1g1", "{out:?}");
        // Out of book: a search.
        let out = transcript(&format!("{set}position startpos moves e2e4\ngo depth 2\n"));
        assert!(out.iter().any(|l| l.starts_with("info depth 2")), "{out:?}");
        assert!(best(&out).starts_with("bestmove "), "{out:?}");
        // A file that is not a book is said so, and nothing is played from it.
        std::fs::write(&path, [0u8; 7]).unwrap();
        let out = transcript(&format!("{set}position startpos\ngo depth 2\n"));
        assert!(out.iter().any(|l| l.contains("book not read")), "{out:?}");
        assert_ne!(best(&out), "bestmove b1a3", "{out:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn illegal_move_is_reported() {
        let out = transcript("position startpos moves e2e4 e2e4\ngo depth 1\n");
        assert!(
            out.iter().any(|l| l.contains("illegal move e2e4")),
            "{out:?}"
        );
        // Black to move after 1.e4: the best move is a black move.
        let bm = out.last().unwrap();
        let m = bm.split(' ').nth(1).unwrap();
        assert!(m.as_bytes()[1] == b'7' || m.as_bytes()[1] == b'8', "{bm}");
    }

    #[test]
    fn checkmated_root() {
        let out = transcript(
            "position fen rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\ngo depth 3\n",
        );
        assert!(out.iter().any(|l| l.contains("score mate 0")), "{out:?}");
        assert_eq!(out.last().unwrap(), "bestmove 0000");
    }

    #[test]
    fn mate_in_one() {
        let out = transcript("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\ngo mate 1\n");
        assert!(out.iter().any(|l| l.contains("score mate 1")), "{out:?}");
        assert_eq!(out.last().unwrap(), "bestmove d1d8");
    }

    #[test]
    fn mate_in_two() {
        // No mate in one here; 1. Kb6 (or 1. Kc7) mates next move whatever
        // Black plays (1. Kb6 Kb8 2. Rh8#, 1. Kc7 Ka7 2. Ra1#).
        let out = transcript("position fen k7/8/2K5/8/8/8/8/7R w - - 0 1\ngo mate 2\n");
        assert!(out.iter().any(|l| l.contains("score mate 2")), "{out:?}");
        assert!(!out.iter().any(|l| l.contains("score mate 1 ")), "{out:?}");
        let best = out.last().unwrap();
        assert!(
            best.starts_with("bestmove c6b6") || best.starts_with("bestmove c6c7"),
            "{out:?}"
        );
        // Asked for a mate in one, it finds none and says so.
        let out = transcript("position fen k7/8/2K5/8/8/8/8/7R w - - 0 1\ngo mate 1\n");
        assert!(!out.iter().any(|l| l.contains("score mate 1 ")), "{out:?}");
        assert!(
            out.iter().any(|l| l == "info string no mate in 1 found"),
            "{out:?}"
        );
    }

    #[test]
    fn refutations_and_currline() {
        let out = transcript(
            "setoption name uci_showrefutations value TRUE\n\
             setoption name UCI_ShowCurrLine value true\n\
             position startpos\ngo nodes 20000\n",
        );
        assert!(
            out.iter().any(|l| l.starts_with("info refutation ")),
            "{out:?}"
        );
        assert!(
            out.iter().any(|l| l.starts_with("info currline ")),
            "{out:?}"
        );
        let quiet = transcript("position startpos\ngo nodes 20000\n");
        assert!(!quiet
            .iter()
            .any(|l| l.contains("refutation") || l.contains("currline")));
    }

    #[test]
    fn register_and_options() {
        let out = transcript(
            "register later\nregister name A B code 1\nsetoption name Bogus value 1\n\
             setoption name Hash value x\nsetoption name Hash value 8\nisready\n",
        );
        assert_eq!(
            out.iter()
                .filter(|l| l.starts_with("registration "))
                .count(),
            4,
            "{out:?}"
        );
        assert!(out
            .iter()
            .any(|l| l.contains("unknown option ignored: Bogus")));
        assert!(out
            .iter()
            .any(|l| l.contains("invalid value for option Hash")));
        assert_eq!(out.last().unwrap(), "readyok");
    }

    #[test]
    fn random_input_never_breaks_the_loop() {
        const WORDS: [&str; 40] = [
            "uci",
            "isready",
            "go",
            "stop",
            "ponderhit",
            "position",
            "startpos",
            "fen",
            "moves",
            "setoption",
            "name",
            "value",
            "Hash",
            "Threads",
            "MultiPV",
            "depth",
            "nodes",
            "mate",
            "movetime",
            "wtime",
            "btime",
            "winc",
            "binc",
            "movestogo",
            "ponder",
            "searchmoves",
            "e2e4",
            "e7e5",
            "g1f3",
            "0000",
            "e1g1",
            "-5",
            "1",
            "3",
            "99999999999",
            "8/8/8/8",
            "w",
            "KQkq",
            "\t",
            "debug",
        ];
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut input = String::new();
        for _ in 0..300 {
            let n = next() % 8;
            for _ in 0..n {
                input.push_str(WORDS[(next() % WORDS.len() as u64) as usize]);
                input.push(if next() % 5 == 0 { '\t' } else { ' ' });
            }
            // Keep searches short: every go gets a node limit.
            if input.ends_with("go ") || input.ends_with("go\t") {
                input.push_str("nodes 500");
            }
            input.push('\n');
        }
        input.push_str("isready\n");
        let gos = input
            .lines()
            .filter(|l| matches!(Command::parse(l), Command::Go(_)))
            .count();
        let readies = input
            .lines()
            .filter(|l| matches!(Command::parse(l), Command::IsReady))
            .count();
        let out = transcript(&input);
        // Every go is answered by exactly one bestmove, every isready by readyok.
        assert_eq!(
            out.iter().filter(|l| l.starts_with("bestmove ")).count(),
            gos
        );
        assert_eq!(out.iter().filter(|l| *l == "readyok").count(), readies);
    }

    #[test]
    fn opponent_parse() {
        let o = Opponent::parse("GM 2800 human Gary Kasparov");
        assert_eq!(o.title.as_deref(), Some("GM"));
        assert_eq!(o.elo, Some(2800));
        assert_eq!(o.computer, Some(false));
        assert_eq!(o.name, "Gary Kasparov");
        let o = Opponent::parse("none none computer Shredder");
        assert_eq!((o.title, o.elo, o.computer), (None, None, Some(true)));
        assert_eq!(o.name, "Shredder");
    }

    #[test]
    fn go_perft_counts_in_stockfish_divide_format() {
        // Kiwipete: 48 moves, 2039 positions at depth 2 (the published counts).
        let out = transcript(
            "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1\ngo perft 2\nisready\n",
        );
        assert!(!out.iter().any(|l| l.starts_with("bestmove")), "{out:?}");
        assert!(!out.iter().any(|l| l.starts_with("info")), "{out:?}");
        let moves: Vec<&String> = out
            .iter()
            .filter(|l| l.contains(": ") && !l.starts_with("Nodes"))
            .collect();
        assert_eq!(moves.len(), 48, "{out:?}");
        let sum: u64 = moves
            .iter()
            .map(|l| l.rsplit(": ").next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(sum, 2039);
        assert!(out.iter().any(|l| l == "e1g1: 43"), "{out:?}");
        assert!(out.iter().any(|l| l == "Nodes searched: 2039"), "{out:?}");
        assert_eq!(out.last().map(String::as_str), Some("readyok"));
    }

    #[test]
    fn config_options_are_set_in_one_place() {
        let mut cfg = Config::default();
        set_config_option(&mut cfg, "Move Overhead", Some("0")).unwrap();
        set_config_option(&mut cfg, "hash", Some("64")).unwrap();
        set_config_option(&mut cfg, "UCI_LimitStrength", Some("true")).unwrap();
        set_config_option(&mut cfg, "UCI_Elo", Some("1500")).unwrap();
        set_config_option(&mut cfg, "MultiPV", Some("3")).unwrap();
        assert_eq!(cfg.move_overhead, 0);
        assert_eq!(cfg.hash_mb, 64);
        assert!(cfg.limit_strength);
        assert_eq!(cfg.elo, 1500);
        assert_eq!(cfg.multipv, 3);
        assert!(matches!(
            set_config_option(&mut cfg, "Bogus", Some("1")),
            Err(OptionError::Unknown(_))
        ));
        assert!(matches!(
            set_config_option(&mut cfg, "Threads", Some("many")),
            Err(OptionError::BadValue { .. })
        ));
    }
}
