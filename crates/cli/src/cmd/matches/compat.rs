//! cutechess-cli's and fastchess's command lines, as engine authors' scripts
//! write them (`-engine cmd=./new -each tc=10+0.1 -rounds 500 -repeat`),
//! read into `rookery match`'s typed arguments ([`Args`]): [`translate`] is
//! the one place where a single-dash word gets its meaning, and what it
//! gives is what clap gives for a rookery line, for `plan_of` to make the
//! match of.
//!
//! Which tool a line was written for (its [`Dialect`]) is said by a first
//! word `cutechess-cli` or `fastchess` (the program name a script has, or
//! the name of a link to `rookery` it was called by), else by the words only
//! one of the tools has (`-pgnout games.pgn` or `conf=` are cutechess-cli's,
//! `-pgnout file=games.pgn` or `-output` fastchess's). A line with words of
//! both is refused. A line with neither is read as cutechess-cli's, unless
//! the two tools would play different games from it: fastchess counts
//! `-rounds` in game pairs when `-repeat` or `-games 2` says so and
//! defaults to 2 rounds of 2 games, cutechess-cli plays `-rounds` times
//! `-games` games and `-repeat` only repeats openings. Then the line is
//! refused with both readings, and a first word settles it.
//!
//! The dialect also picks the output (`--output cutechess|fastchess`, unless
//! `-output format=` is given) and fastchess's or cutechess-cli's defaults
//! (rounds, games, rating interval). cutechess-cli's `-sprt` has no
//! `model=`: it is cutechess-cli's own test, BayesElo bounds over single
//! games (`model=bayesian`); fastchess's BayesElo model is refused.
//! `-srand` takes negative seeds
//! too, as both tools' scripts pass them: `-N` is the 64-bit two's
//! complement `2^64 - N`.
//!
//! Words that cannot be honoured are refused naming the word, never
//! dropped. Engine words (after `-engine` and `-each`) go into the engines'
//! words as they are, read by the one engine-word reader,
//! `EngineConfig::apply`; `-each` words follow each engine's own, so that
//! they win as in both tools. Double-dash flags on the same line are
//! rookery's own: clap reads them as on a rookery line (its checks and
//! messages), and the tool's words are set on what it gives. A setting
//! given twice (by a word and by rookery's flag for it, or by two words) is
//! refused naming both; rookery's flag wins over a dialect's default (the
//! output, the rating interval).

use super::report::Format;
use super::{Args, LogFormat};
use clap::parser::ValueSource;
use clap::{ArgMatches, FromArgMatches};
use rookery_event::schedule::Pairing;
use std::fmt;
use std::path::PathBuf;

/// Which tool's command line it is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// cutechess-cli.
    Cutechess,
    /// fastchess.
    Fastchess,
}

impl Dialect {
    /// The tool's program name.
    fn program(self) -> &'static str {
        match self {
            Dialect::Cutechess => "cutechess-cli",
            Dialect::Fastchess => "fastchess",
        }
    }

    /// The dialect a program name (a path's last part) is, if any.
    pub fn of_program(word: &str) -> Option<Dialect> {
        let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
        let base = base.strip_suffix(".exe").unwrap_or(base);
        match base {
            // OpenBench's builds are named `cutechess-ob` and `fastchess-ob`.
            "cutechess-cli" | "cutechess" | "cutechess-ob" => Some(Dialect::Cutechess),
            "fastchess" | "fastchess-ob" => Some(Dialect::Fastchess),
            _ => None,
        }
    }
}

/// A word of a peer's command line that cannot be honoured: the word and
/// why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompatError {
    /// The word (an option with its value where that is what is wrong).
    pub word: String,
    /// Why it cannot be played.
    pub reason: String,
}

impl fmt::Display for CompatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.word, self.reason)
    }
}

impl std::error::Error for CompatError {}

/// What a peer's command line asks for.
#[derive(Debug)]
pub enum PeerLine {
    /// `-help` (or `--help`): what `rookery match --help` prints.
    Help,
    /// `-version` (or `--version`): what `rookery match --version` prints.
    Version,
    /// A match: its typed arguments, as clap gives them for a rookery line
    /// (the engines' words grouped).
    Match(Box<Args>),
}

/// Why a peer's command line is refused.
#[derive(Debug)]
pub enum PeerError {
    /// A word of the tool's, or a setting given twice.
    Word(CompatError),
    /// rookery's own flags on the line, refused by clap (which prints it).
    Clap(clap::Error),
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::Word(e) => e.fmt(f),
            PeerError::Clap(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PeerError {}

impl From<CompatError> for PeerError {
    fn from(e: CompatError) -> PeerError {
        PeerError::Word(e)
    }
}

impl From<clap::Error> for PeerError {
    fn from(e: clap::Error) -> PeerError {
        PeerError::Clap(e)
    }
}

/// A [`CompatError`] naming `word`.
fn refuse(word: impl Into<String>, reason: impl Into<String>) -> CompatError {
    CompatError {
        word: word.into(),
        reason: reason.into(),
    }
}

/// Whether `word` is an option of the peers' single-dash style: a dash and
/// a letter (not a negative number, not one of rookery's `--` flags).
fn is_single_dash_option(word: &str) -> bool {
    let mut c = word.chars();
    c.next() == Some('-') && c.next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// Whether the words after `match` are a peer's command line: a program
/// word first, or any single-dash option.
pub fn is_peer_line(argv: &[String]) -> bool {
    argv.first()
        .is_some_and(|w| Dialect::of_program(w).is_some())
        || argv.iter().any(|w| is_single_dash_option(w))
}

/// An option and its values, as written.
struct Opt<'a> {
    name: &'a str,
    values: &'a [String],
}

impl Opt<'_> {
    /// `-name value...` as written, for messages.
    fn text(&self) -> String {
        std::iter::once(format!("-{}", self.name))
            .chain(self.values.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Its one value.
    fn one(&self) -> Result<&str, CompatError> {
        match self.values {
            [v] => Ok(v),
            _ => Err(refuse(self.text(), "expected one value")),
        }
    }

    /// Nothing, as an option without a value has.
    fn none(&self) -> Result<(), CompatError> {
        if self.values.is_empty() {
            Ok(())
        } else {
            Err(refuse(self.text(), "takes no value"))
        }
    }

    /// Its one value, a whole number.
    fn number(&self) -> Result<u64, CompatError> {
        let v = self.one()?;
        v.parse()
            .map_err(|_| refuse(self.text(), "expected a whole number"))
    }

    /// Its one value, a whole number of at most `max` (as `match`'s flag
    /// for it takes).
    fn at_most(&self, max: u32) -> Result<u32, CompatError> {
        match u32::try_from(self.number()?) {
            Ok(n) if n <= max => Ok(n),
            _ => Err(refuse(self.text(), format!("expected at most {max}"))),
        }
    }

    /// Its values, at least one.
    fn some(&self) -> Result<&[String], CompatError> {
        if self.values.is_empty() {
            Err(refuse(self.text(), "expected words after it"))
        } else {
            Ok(self.values)
        }
    }
}

/// Splits `key=value`.
fn kv(word: &str) -> Option<(&str, &str)> {
    word.split_once('=')
}

/// A `key=true|false` value.
fn boolean(word: &str, value: &str) -> Result<bool, CompatError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(refuse(word, "expected true or false")),
    }
}

/// A setting of `match`'s arguments that the line's words make.
struct Set {
    /// The argument it sets: its clap id (the field's name).
    id: &'static str,
    /// The words that say it, for messages.
    word: String,
    /// A dialect's default, not a word: rookery's flag for it wins.
    default: bool,
    /// What it does to the arguments.
    apply: Box<dyn FnOnce(&mut Args)>,
}

/// Arguments that take their words from every option giving them (as
/// rookery's flags do), so that giving the option twice is not refused.
const APPENDED: &[&str] = &["openings", "pgnout"];

/// What the line says, before the dialect is known.
#[derive(Default)]
struct Line {
    program: Option<Dialect>,
    /// Words only one tool has: the dialect and the word.
    marks: Vec<(Dialect, String)>,
    /// Words that say a dialect only when no program name does: the
    /// dialect and the word (a bare `-pgnout FILE`, which cutechess-cli
    /// writes and scripts also give fastchess).
    hints: Vec<(Dialect, String)>,
    engines: Vec<Vec<String>>,
    each: Vec<String>,
    rounds: Option<u64>,
    games: Option<u64>,
    /// `-repeat` and its count (2 without one).
    repeat: Option<u64>,
    sprt: Option<Vec<String>>,
    draw: Option<Vec<String>>,
    resign: Option<Vec<String>>,
    /// `-output format=`.
    output: Option<(Format, String)>,
    /// `-config file=`: the match its journal records is resumed.
    resume: bool,
    /// `-tournament knockout`.
    knockout: bool,
    /// `-openings`.
    openings: bool,
    /// `-help` or `-version` (or rookery's `--help`, `--version`): the
    /// first of them.
    asked: Option<PeerLine>,
    /// rookery's own flags, each with its values, as written.
    rookery: Vec<Vec<String>>,
    /// The settings of the options read, in order.
    sets: Vec<Set>,
}

impl Line {
    /// Notes a word only dialect `d` has.
    fn mark(&mut self, d: Dialect, word: impl Into<String>) {
        self.marks.push((d, word.into()));
    }

    /// Notes that `word` sets argument `id` by `apply`.
    fn set(
        &mut self,
        id: &'static str,
        word: impl Into<String>,
        apply: impl FnOnce(&mut Args) + 'static,
    ) {
        self.sets.push(Set {
            id,
            word: word.into(),
            default: false,
            apply: Box::new(apply),
        });
    }

    /// Notes a dialect's default for argument `id`, which a rookery flag
    /// for it overrides.
    fn by_default(
        &mut self,
        id: &'static str,
        word: String,
        apply: impl FnOnce(&mut Args) + 'static,
    ) {
        self.sets.push(Set {
            id,
            word,
            default: true,
            apply: Box::new(apply),
        });
    }

    /// Whether an option of the line's already set argument `id`.
    fn has_set(&self, id: &str) -> bool {
        self.sets.iter().any(|s| s.id == id)
    }

    /// Whether rookery's own flags on the line have these words in a row
    /// (`--tournament knockout`).
    fn rookery_has(&self, words: &[&str]) -> bool {
        self.rookery
            .iter()
            .flatten()
            .collect::<Vec<_>>()
            .windows(words.len())
            .any(|w| w.iter().zip(words).all(|(a, b)| a == b))
    }

    /// Marks the engine words only one tool knows.
    fn mark_engine_words(&mut self, words: &[String]) {
        for w in words {
            let key = kv(w).map_or(w.as_str(), |(k, _)| k);
            let d = match (key, kv(w).map(|(_, v)| v)) {
                ("conf" | "initstr" | "stderr" | "book" | "bookdepth" | "tscale", _)
                | ("ponder" | "whitepov" | "trust" | "debug", None)
                | ("restart", Some("auto"))
                | ("proto", Some("xboard")) => Dialect::Cutechess,
                ("args" | "plies", Some(_)) => Dialect::Fastchess,
                _ => continue,
            };
            self.mark(d, w.clone());
        }
    }
}

/// Reads the words after `match` (a peer's command line, possibly
/// beginning with its program name) into `rookery match`'s typed
/// arguments; `cli` is rookery's command (clap's), which reads rookery's
/// own flags on the line.
///
/// # Errors
/// [`PeerError::Word`] naming the first word that cannot be honoured, the
/// words that make the line ambiguous, or a setting given twice;
/// [`PeerError::Clap`] for rookery's own flags clap refuses.
pub fn translate(cli: clap::Command, argv: &[String]) -> Result<PeerLine, PeerError> {
    let mut line = Line::default();
    let mut words = argv;
    if let Some(d) = words.first().and_then(|w| Dialect::of_program(w)) {
        line.program = Some(d);
        words = &words[1..];
    }
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let end = (i + 1..words.len())
            .find(|&j| is_single_dash_option(&words[j]) || words[j].starts_with("--"))
            .unwrap_or(words.len());
        if w.starts_with("--") {
            // rookery's own flag: it and its values, for clap.
            if w == "--help" || w == "--version" {
                let asked = if w == "--help" {
                    PeerLine::Help
                } else {
                    PeerLine::Version
                };
                line.asked.get_or_insert(asked);
            }
            line.rookery.push(words[i..end].to_vec());
        } else if is_single_dash_option(w) {
            let opt = Opt {
                name: &w[1..],
                values: &words[i + 1..end],
            };
            option(&mut line, &opt)?;
        } else {
            return Err(refuse(w.clone(), "expected an option (-engine, -each, ...) here").into());
        }
        i = end;
    }
    finish(line, cli)
}

/// A family of options: takes the option if it is one of the family's
/// (`Ok(true)`).
type Family = fn(&mut Line, &Opt<'_>) -> Result<bool, CompatError>;

/// Every family of options.
const FAMILIES: &[Family] = &[
    engine_option,
    schedule_option,
    play_option,
    rule_option,
    file_option,
    config_option,
    report_option,
    tool_option,
];

/// One option, read by its family.
fn option(line: &mut Line, opt: &Opt<'_>) -> Result<(), CompatError> {
    for family in FAMILIES {
        if family(line, opt)? {
            debug_assert!(
                super::words::is_option(opt.name),
                "-{} is taken but not in words.rs's table",
                opt.name
            );
            return Ok(());
        }
    }
    Err(refuse(
        format!("-{}", opt.name),
        "not an option of cutechess-cli or fastchess that rookery knows",
    ))
}

/// `-engine` and `-each`: engine words, as written.
fn engine_option(line: &mut Line, opt: &Opt<'_>) -> Result<bool, CompatError> {
    if !matches!(opt.name, "engine" | "each") {
        return Ok(false);
    }
    let words = opt.some()?.to_vec();
    line.mark_engine_words(&words);
    if opt.name == "engine" {
        line.engines.push(words);
    } else {
        line.each.extend(words);
    }
    Ok(true)
}

/// Who plays whom and how often: `-games`, `-rounds`, `-repeat`,
/// `-tournament`, `-seeds`, `-noswap`, `-reverse`.
fn schedule_option(line: &mut Line, opt: &Opt<'_>) -> Result<bool, CompatError> {
    use Dialect::{Cutechess, Fastchess};
    match opt.name {
        "games" => line.games = Some(positive(opt)?),
        "rounds" => line.rounds = Some(positive(opt)?),
        "repeat" => {
            let n = match opt.values {
                [] => 2,
                [_] => positive(opt)?,
                _ => return Err(refuse(opt.text(), "expected at most one number")),
            };
            line.repeat = Some(n);
        }
        "tournament" => {
            let v = opt.one()?;
            match v {
                "round-robin" | "knockout" => line.mark(Cutechess, opt.text()),
                "roundrobin" => line.mark(Fastchess, opt.text()),
                "gauntlet" => {}
                _ => {
                    return Err(refuse(
                        opt.text(),
                        "expected round-robin, gauntlet or knockout",
                    ))
                }
            }
            let pairing: Pairing = v.parse().map_err(|e| refuse(opt.text(), format!("{e}")))?;
            line.knockout = pairing == Pairing::Knockout;
            line.set("tournament", opt.text(), move |a| a.tournament = pairing);
        }
        "seeds" => {
            // A knockout's seeded players; other tournaments accept only
            // 1 (the gauntlet's first engine), which `rookery match` checks.
            let n = opt.at_most(u32::MAX)?;
            line.set("seeds", opt.text(), move |a| a.seeds = Some(n));
        }
        "noswap" => {
            opt.none()?;
            line.set("noswap", opt.text(), |a| a.noswap = true);
        }
        "reverse" => {
            opt.none()?;
            line.set("reverse", opt.text(), |a| a.reverse = true);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// How the games are played: `-variant`, `-concurrency`, `-srand`,
/// `-wait`, `-openings` (and the books refused, `-bookmode`, `-engines`).
fn play_option(line: &mut Line, opt: &Opt<'_>) -> Result<bool, CompatError> {
    match opt.name {
        "variant" => {
            let v = opt.one()?;
            if !super::VARIANTS.contains(&v) {
                return Err(refuse(opt.text(), "expected standard or fischerandom"));
            }
            let v = v.to_string();
            line.set("variant", opt.text(), move |a| a.variant = v);
        }
        "concurrency" => {
            let n = match opt.one()?.parse::<i64>() {
                Ok(n) if n >= 1 => opt.at_most(super::MAX_CONCURRENCY)?,
                Ok(_) => {
                    return Err(refuse(
                        opt.text(),
                        "a concurrency relative to the processors is not supported: give the number of games at once",
                    ))
                }
                Err(_) => return Err(refuse(opt.text(), "expected a whole number")),
            };
            line.set("concurrency", opt.text(), move |a| a.concurrency = n);
        }
        "srand" => {
            let seed = seed(opt.one()?)
                .ok_or_else(|| refuse(opt.text(), "expected a whole number (negative ones too)"))?;
            line.set("srand", opt.text(), move |a| a.srand = Some(seed));
        }
        "wait" => {
            let n = u64::from(opt.at_most(super::MAX_WAIT_MS)?);
            line.set("wait", opt.text(), move |a| a.wait = n);
        }
        "openings" => {
            let words = opt.some()?.to_vec();
            for w in &words {
                if let Some(("policy", v)) = kv(w) {
                    if v != "round" {
                        line.mark(Dialect::Cutechess, w.clone());
                    }
                }
            }
            line.openings = true;
            line.set("openings", opt.text(), move |a| a.openings.extend(words));
        }
        "bookmode" => return Err(refuse(opt.text(), "engine opening books are not supported")),
        "engines" => {
            return Err(refuse(
                opt.text(),
                "listing engines.json is not a match (conf=NAME reads it)",
            ))
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// How games end: `-draw`, `-resign`, `-maxmoves`, `-sprt`, `-recover`,
/// `-check-mate-pvs` (and tablebases, refused).
fn rule_option(line: &mut Line, opt: &Opt<'_>) -> Result<bool, CompatError> {
    match opt.name {
        "draw" => line.draw = Some(opt.some()?.to_vec()),
        "resign" => line.resign = Some(opt.some()?.to_vec()),
        "maxmoves" => {
            // 0: no limit, as both tools read it.
            let n = opt.at_most(u32::MAX)?;
            if n > 0 {
                line.set("maxmoves", opt.text(), move |a| a.maxmoves = Some(n));
            }
        }
        "tb" | "tbpieces" | "tbignore50" | "tbadjudicate" => {
            return Err(refuse(
                opt.text(),
                "tablebase adjudication is not supported",
            ))
        }
        "sprt" => {
            let words = opt.some()?.to_vec();
            for w in &words {
                match kv(w) {
                    Some(("model", "bayesian")) => {
                        return Err(refuse(
                            w.clone(),
                            "fastchess's BayesElo SPRT is not supported (model=normalized or \
                             logistic; a cutechess-cli line's -sprt is cutechess-cli's BayesElo SPRT)",
                        ))
                    }
                    Some(("model", _)) => line.mark(Dialect::Fastchess, w.clone()),
                    _ => {}
                }
            }
            line.sprt = Some(words);
        }
        "recover" => {
            opt.none()?;
            line.set("recover", opt.text(), |a| a.recover = true);
        }
        "check-mate-pvs" => {
            opt.none()?;
            line.mark(Dialect::Fastchess, opt.text());
            line.set("check_mate_pvs", opt.text(), |a| a.check_mate_pvs = true);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// What the match writes: `-pgnout`, `-epdout`, `-event`, `-site`, `-log`,
/// `-debug`.
fn file_option(line: &mut Line, opt: &Opt<'_>) -> Result<bool, CompatError> {
    use Dialect::{Cutechess, Fastchess};
    match opt.name {
        "pgnout" => {
            let words = opt.some()?.to_vec();
            let fast = words.iter().any(|w| kv(w).is_some());
            match (fast, words.len()) {
                (true, _) => line.mark(Fastchess, opt.text()),
                (false, 1) => line.hints.push((Cutechess, opt.text())),
                (false, _) => line.mark(Cutechess, opt.text()),
            }
            line.set("pgnout", opt.text(), move |a| a.pgnout.extend(words));
        }
        "epdout" => {
            let file = PathBuf::from(epd_file(line, opt)?);
            line.set("epdout", opt.text(), move |a| a.epdout = Some(file));
        }
        "event" | "site" => {
            let v = opt.one()?.to_string();
            if opt.name == "event" {
                line.set("event", opt.text(), move |a| a.event = v);
            } else {
                line.set("site", opt.text(), move |a| a.site = v);
            }
        }
        "log" => {
            line.mark(Fastchess, opt.text());
            let file = PathBuf::from(log_file(opt)?);
            line.set("log", opt.text(), move |a| a.log = Some(file));
        }
        "debug" => {
            line.mark(Cutechess, opt.text());
            if !opt.values.is_empty() {
                return Err(refuse(
                    opt.text(),
                    "-debug takes no value here (the engines' own debug mode is not supported)",
                ));
            }
            // cutechess-cli's traffic lines on standard output, as
            // chess-tuning-tools reads them.
            line.set("log", opt.text(), |a| a.log = Some(PathBuf::from("-")));
            line.set("log_format", opt.text(), |a| {
                a.log_format = LogFormat::Cutechess
            });
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The file of `-epdout`: cutechess-cli's `F` or fastchess's `file=F`
/// (`append=true`, which rookery always does).
fn epd_file(line: &mut Line, opt: &Opt<'_>) -> Result<String, CompatError> {
    use Dialect::{Cutechess, Fastchess};
    if let [f] = opt.some()? {
        if kv(f).is_none() {
            line.mark(Cutechess, opt.text());
            return Ok(f.clone());
        }
    }
    line.mark(Fastchess, opt.text());
    let mut file = None;
    for w in opt.values {
        match kv(w) {
            Some(("file", f)) => file = Some(f.to_string()),
            Some(("append", v)) => {
                if !boolean(w, v)? {
                    return Err(refuse(
                        w.clone(),
                        "rookery appends to the EPD file and never empties it",
                    ));
                }
            }
            _ => return Err(refuse(w.clone(), "expected file= or append=")),
        }
    }
    file.ok_or_else(|| refuse(opt.text(), "name the file: file=NAME"))
}

/// The file of fastchess's `-log file=F ...` (its other words taken where
/// rookery's log is what they ask for).
fn log_file(opt: &Opt<'_>) -> Result<String, CompatError> {
    let mut file = None;
    for w in opt.some()? {
        match kv(w) {
            Some(("file", f)) => file = Some(f.to_string()),
            Some(("level", _)) => {}
            Some(("engine" | "realtime", v)) => {
                boolean(w, v)?;
            }
            Some(("append", v)) if boolean(w, v)? => {}
            Some(("compress", v)) if !boolean(w, v)? => {}
            _ => {
                return Err(refuse(
                    w.clone(),
                    "expected file=, level=, engine=, realtime=, append=true or compress=false",
                ))
            }
        }
    }
    file.ok_or_else(|| refuse(opt.text(), "name the file: file=NAME"))
}

/// fastchess's `-config`: `outname=` the journal, `file=` a journal to
/// resume.
fn config_option(line: &mut Line, opt: &Opt<'_>) -> Result<bool, CompatError> {
    if opt.name != "config" {
        return Ok(false);
    }
    line.mark(Dialect::Fastchess, opt.text());
    for w in opt.some()? {
        match kv(w) {
            Some(("outname", f)) => {
                let f = PathBuf::from(f);
                line.set("journal", format!("-config {w}"), move |a| {
                    a.journal = Some(f)
                });
            }
            Some(("file", f)) => {
                line.resume = true;
                let f = PathBuf::from(f);
                line.set("resume", format!("-config {w}"), move |a| {
                    a.resume = Some(f)
                });
            }
            // Discards the results of a loaded configuration:
            // without file= there is none (weather-factory's line).
            Some(("discard", v)) => {
                if boolean(w, v)? && opt.values.iter().any(|w| w.starts_with("file=")) {
                    return Err(refuse(
                        w.clone(),
                        "file= resumes the match its journal records; to start it over, \
                         give the match's words without -config file=",
                    ));
                }
            }
            Some(("stats", v)) if boolean(w, v)? => {}
            _ => return Err(refuse(
                w.clone(),
                "expected outname=JOURNAL (where the match is saved) or file=JOURNAL (resume it)",
            )),
        }
    }
    Ok(true)
}

/// What is printed: `-ratinginterval`, `-scoreinterval`,
/// `-outcomeinterval`, `-resultformat`, `-output`, `-report`, `-crc32`.
fn report_option(line: &mut Line, opt: &Opt<'_>) -> Result<bool, CompatError> {
    use Dialect::{Cutechess, Fastchess};
    match opt.name {
        "ratinginterval" => {
            let n = opt.number()?;
            line.set("ratinginterval", opt.text(), move |a| a.ratinginterval = n);
        }
        "scoreinterval" => {
            let n = opt.number()?;
            line.mark(Fastchess, opt.text());
            line.set("scoreinterval", opt.text(), move |a| a.scoreinterval = n);
        }
        "outcomeinterval" => {
            let n = opt.number()?;
            line.mark(Cutechess, opt.text());
            line.set("outcome_interval", opt.text(), move |a| {
                a.outcome_interval = n
            });
        }
        "resultformat" => {
            let v = opt.one()?.to_string();
            line.mark(Cutechess, opt.text());
            line.set("result_format", opt.text(), move |a| {
                a.result_format = Some(v)
            });
        }
        "output" => {
            line.mark(Fastchess, opt.text());
            let format = match opt.values {
                [w] => match kv(w) {
                    Some(("format", "cutechess")) => Format::Cutechess,
                    Some(("format", "fastchess")) => Format::Fastchess,
                    _ => return Err(refuse(w.clone(), "expected format=cutechess or fastchess")),
                },
                _ => return Err(refuse(opt.text(), "expected format=cutechess or fastchess")),
            };
            line.output = Some((format, opt.text()));
        }
        "report" => {
            line.mark(Fastchess, opt.text());
            for w in opt.some()? {
                match kv(w) {
                    Some(("penta", v)) => {
                        boolean(w, v)?;
                    }
                    _ => return Err(refuse(w.clone(), "expected penta=true or penta=false")),
                }
            }
            let v = opt.one()?.to_string();
            line.set("report", opt.text(), move |a| a.lines.report = Some(v));
        }
        "crc32" => {
            line.mark(Fastchess, opt.text());
            for w in opt.some()? {
                match kv(w) {
                    Some(("pgn", v)) => {
                        if boolean(w, v)? {
                            line.set("crc32", opt.text(), |a| a.crc32 = true);
                        }
                    }
                    _ => return Err(refuse(w.clone(), "expected pgn=true or pgn=false")),
                }
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The rest: `-help`, `-version`, fastchess's options rookery has nothing
/// to do for, and fastchess's options refused.
fn tool_option(line: &mut Line, opt: &Opt<'_>) -> Result<bool, CompatError> {
    match opt.name {
        "help" | "h" => {
            line.asked.get_or_insert(PeerLine::Help);
        }
        "version" | "v" | "V" => {
            line.asked.get_or_insert(PeerLine::Version);
        }
        // The journal already saves every move.
        "autosaveinterval" => {
            opt.number()?;
            line.mark(Dialect::Fastchess, opt.text());
        }
        // rookery never caps the concurrency at the processors;
        // fishtest's and OpenBench's -testEnv asks for fastchess's messages
        // on one line each, which rookery's are.
        "force-concurrency" | "testEnv" => {
            opt.none()?;
            line.mark(Dialect::Fastchess, opt.text());
        }
        "quick" | "use-affinity" | "show-latency" | "strict" | "startup-ms" | "ucinewgame-ms"
        | "ping-ms" | "compliance" => {
            return Err(refuse(
                opt.text(),
                format!("fastchess's -{} is not supported", opt.name),
            ))
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Its one value, a whole number of at least 1.
fn positive(opt: &Opt<'_>) -> Result<u64, CompatError> {
    match opt.number()? {
        0 => Err(refuse(opt.text(), "expected at least 1")),
        n => Ok(n),
    }
}

/// A seed as the peers' scripts write it: any 64-bit number, a negative one
/// as its two's complement.
pub fn seed(text: &str) -> Option<u64> {
    text.parse::<u64>()
        .ok()
        .or_else(|| text.parse::<i64>().ok().map(|n| n as u64))
}

/// The schedule a dialect reads from `-rounds`, `-games` and `-repeat`, as
/// rookery's rounds and games per block (a block shares its opening).
fn schedule(line: &Line, d: Dialect) -> Result<(u64, u64), CompatError> {
    match d {
        Dialect::Cutechess => {
            // cutechess-cli: rounds × games games per encounter, sides
            // swapped every game, each opening played `repeat` times in a
            // row (within one encounter).
            let (r, g, n) = (
                line.rounds.unwrap_or(1),
                line.games.unwrap_or(1),
                line.repeat.unwrap_or(1),
            );
            let total = r.saturating_mul(g);
            let fits = if line.engines.len() > 2 {
                g % n == 0
            } else {
                total % n == 0
            };
            if !fits {
                return Err(refuse(
                    format!("-repeat {n}"),
                    format!(
                        "{total} games per encounter do not divide into openings played {n} times"
                    ),
                ));
            }
            Ok((total / n, n))
        }
        Dialect::Fastchess => {
            // fastchess: rounds of `games` games on one opening; -repeat N
            // is -games N; more than 2 games a round is taken as rounds.
            let mut g = line.repeat.or(line.games).unwrap_or(2);
            let mut r = line.rounds.unwrap_or(2);
            if g > 2 {
                std::mem::swap(&mut g, &mut r);
            }
            if g > 2 {
                return Err(refuse(
                    format!("-games {g}"),
                    "fastchess plays at most 2 games a round",
                ));
            }
            Ok((r, g))
        }
    }
}

/// The words read, what the line asks for: help or version if asked for,
/// else the match, its dialect's reading of the words set on clap's
/// reading of rookery's flags.
fn finish(mut line: Line, cli: clap::Command) -> Result<PeerLine, PeerError> {
    // Help and version are all a line asks for when it asks for them.
    if let Some(asked) = line.asked.take() {
        return Ok(asked);
    }
    let dialect = dialect(&mut line)?;
    let mut engines = plan(&mut line, dialect)?;
    let (mut args, matches, conflicts) = rookery_flags(cli, &line.rookery)?;
    let done = apply(
        std::mem::take(&mut line.sets),
        &mut args,
        &matches,
        &line.rookery,
    )?;
    check_resume(&done, &matches, &line.rookery, &conflicts)?;
    // The tool's engines first, then rookery's (as a translation to
    // rookery's flags had them).
    engines.extend(super::engine_groups(&matches));
    args.engine = engines.concat();
    args.engine_groups = engines;
    Ok(PeerLine::Match(Box::new(args)))
}

/// The tool the line is for: its program word's, else the one whose words
/// it has (refused when it has both tools' words, or when neither's and the
/// two would play different schedules).
fn dialect(line: &mut Line) -> Result<Dialect, CompatError> {
    use Dialect::{Cutechess, Fastchess};
    if line.program.is_none() {
        // Without a program name, a hint says the dialect as a mark does.
        let hints = std::mem::take(&mut line.hints);
        line.marks.extend(hints);
    }
    let first = |d| line.marks.iter().find(|(m, _)| *m == d).map(|(_, w)| w);
    if let Some(d) = line.program {
        let other = if d == Cutechess { Fastchess } else { Cutechess };
        return match first(other) {
            Some(w) => Err(refuse(
                w.clone(),
                format!(
                    "{} does not have it ({} does)",
                    d.program(),
                    other.program()
                ),
            )),
            None => Ok(d),
        };
    }
    match (first(Cutechess), first(Fastchess)) {
        (Some(c), Some(f)) => Err(refuse(
            format!("{c} ... {f}"),
            "the first is cutechess-cli's, the second fastchess's: one line is one tool's",
        )),
        (None, Some(_)) => Ok(Fastchess),
        (Some(_), None) => Ok(Cutechess),
        (None, None) => {
            let (c, f) = (schedule(line, Cutechess), schedule(line, Fastchess));
            match (&c, &f) {
                (Ok(a), Ok(b)) if a != b && !line.resume => {
                    let games = |(r, g): (u64, u64)| r * g;
                    Err(refuse(
                        "-rounds/-games/-repeat",
                        format!(
                            "cutechess-cli plays {} games per encounter from this line, fastchess {}: \
                             begin the line with cutechess-cli or fastchess to say which",
                            games(*a),
                            games(*b)
                        ),
                    ))
                }
                _ => Ok(Cutechess),
            }
        }
    }
}

/// What `dialect` makes of the line's engines, schedule, rules and output
/// (set in the line's settings); the engines' words. A resumed match (the
/// journal has its plan) takes none of these but the output.
fn plan(line: &mut Line, dialect: Dialect) -> Result<Vec<Vec<String>>, CompatError> {
    let resumed = line.resume || rookery_flag(&line.rookery, "resume").is_some();
    let mut engines = Vec::new();
    if resumed {
        if !line.engines.is_empty() || line.games.is_some() || line.rounds.is_some() {
            return Err(refuse(
                if line.resume {
                    "-config file="
                } else {
                    "--resume"
                },
                "resumes the match its journal records: give no engines or schedule with it",
            ));
        }
    } else {
        engines = peer_engines(line, dialect);
        schedule_of(line, dialect)?;
        rules_of(line, dialect);
    }
    match line.output.take() {
        Some((format, word)) => line.set("output", word, move |a| a.lines.output = format),
        None => {
            let format = match dialect {
                Dialect::Cutechess => Format::Cutechess,
                Dialect::Fastchess => Format::Fastchess,
            };
            let word = format!("{}'s output", dialect.program());
            line.by_default("output", word, move |a| a.lines.output = format);
        }
    }
    Ok(engines)
}

/// Each engine's words, `-each`'s after its own; fastchess names an engine
/// after its program (cutechess-cli, as rookery, after its `id name`).
fn peer_engines(line: &Line, dialect: Dialect) -> Vec<Vec<String>> {
    let mut engines = Vec::new();
    for e in &line.engines {
        let mut words: Vec<String> = e.iter().chain(&line.each).cloned().collect();
        let named = words
            .iter()
            .any(|w| w.starts_with("name=") || w.starts_with("conf="));
        let program = words
            .iter()
            .filter_map(|w| w.strip_prefix("cmd="))
            .next_back();
        if let (Dialect::Fastchess, false, Some(cmd)) = (dialect, named, program) {
            let stem = std::path::Path::new(cmd)
                .file_stem()
                .map_or(cmd.into(), |s| s.to_string_lossy());
            words.push(format!("name={stem}"));
        }
        engines.push(words);
    }
    engines
}

/// The rounds and games (and the rating interval's default) `dialect`
/// reads from the line, as settings.
fn schedule_of(line: &mut Line, dialect: Dialect) -> Result<(), CompatError> {
    let knockout = line.knockout || line.rookery_has(&["--tournament", "knockout"]);
    let (rounds, games) = match (dialect, knockout) {
        (Dialect::Cutechess, true) => knockout_schedule(line)?,
        _ => schedule(line, dialect)?,
    };
    let (max_rounds, max_games) = (super::MAX_ROUNDS, super::MAX_GAMES);
    let fits = |n: u64, max: u32| u32::try_from(n).ok().filter(|n| (1..=max).contains(n));
    let (Some(r), Some(g)) = (fits(rounds, max_rounds), fits(games, max_games)) else {
        return Err(refuse(
            "-rounds/-games/-repeat",
            format!(
                "{rounds} rounds of {games} games: rookery plays at most {max_rounds} rounds of at most {max_games} games"
            ),
        ));
    };
    let word = "-rounds/-games/-repeat";
    line.set("rounds", word, move |a| a.rounds = r);
    line.set("games", word, move |a| a.games = g);
    if !line.has_set("ratinginterval") {
        let n = if dialect == Dialect::Cutechess { 0 } else { 10 };
        let word = format!("{}'s rating interval", dialect.program());
        line.by_default("ratinginterval", word, move |a| a.ratinginterval = n);
    }
    Ok(())
}

/// cutechess-cli's knockout: an encounter is `-rounds` × `-games` games;
/// rookery's knockout plays an encounter as one block of --games games
/// (colours alternating) on one opening, which is the same games when they
/// all start from one position.
fn knockout_schedule(line: &Line) -> Result<(u64, u64), CompatError> {
    let total = line
        .rounds
        .unwrap_or(1)
        .saturating_mul(line.games.unwrap_or(1));
    let openings = line.openings || line.rookery.iter().flatten().any(|f| f == "--openings");
    if openings && total > 1 && line.repeat.unwrap_or(1) < total {
        return Err(refuse(
            "-openings",
            format!(
                "cutechess-cli gives each of an encounter's {total} games its own opening; \
                 rookery's knockout plays an encounter on one opening: add -repeat {total}"
            ),
        ));
    }
    Ok((1, total))
}

/// `-draw`, `-resign` (fastchess's defaults for the keys not given) and
/// `-sprt` (cutechess-cli's own SPRT in its lines), as settings.
fn rules_of(line: &mut Line, dialect: Dialect) {
    let defaults = |mut words: Vec<String>| -> Vec<String> {
        if dialect == Dialect::Fastchess {
            for (k, v) in [("movecount", "1"), ("score", "0")] {
                if !words.iter().any(|w| kv(w).is_some_and(|(key, _)| key == k)) {
                    words.push(format!("{k}={v}"));
                }
            }
        }
        words
    };
    let text = |name: &str, words: &[String]| format!("-{name} {}", words.join(" "));
    if let Some(d) = line.draw.take() {
        let word = text("draw", &d);
        let d = defaults(d);
        line.set("draw", word, move |a| a.draw = d);
    }
    if let Some(r) = line.resign.take() {
        let word = text("resign", &r);
        let r = defaults(r);
        line.set("resign", word, move |a| a.resign = r);
    }
    if let Some(mut s) = line.sprt.take() {
        let word = text("sprt", &s);
        if dialect == Dialect::Cutechess {
            // cutechess-cli's own SPRT: BayesElo over single games, no
            // LLR before a win, a loss and a draw.
            s.push("model=bayesian".into());
        }
        line.set("sprt", word, move |a| a.sprt = s);
    }
}

/// rookery's flag for argument `id` (its clap id) on the line, with its
/// values, if given.
fn rookery_flag<'a>(rookery: &'a [Vec<String>], id: &str) -> Option<&'a [String]> {
    let long = format!("--{}", id.replace('_', "-"));
    rookery
        .iter()
        .find(|f| f[0] == long || f[0].strip_prefix(&long).is_some_and(|r| r.starts_with('=')))
        .map(Vec::as_slice)
}

/// rookery's flag for argument `id` as written, for messages.
fn flag_text(rookery: &[Vec<String>], id: &str) -> String {
    rookery_flag(rookery, id).map_or_else(|| format!("--{}", id.replace('_', "-")), |f| f.join(" "))
}

/// clap's reading of rookery's own flags on a peer's line (`flags`), as of
/// a rookery line but that the engines may all be the tool's: the
/// arguments, clap's matches, and the ids of the arguments a `--resume`
/// takes none of.
///
/// # Errors
/// clap's, as for a rookery line.
fn rookery_flags(
    cli: clap::Command,
    flags: &[Vec<String>],
) -> Result<(Args, ArgMatches, Vec<String>), clap::Error> {
    let mut cli = cli.mut_subcommand("match", |m| {
        m.mut_arg("engine", |a| {
            a.required_unless_present(clap::builder::Resettable::<clap::Id>::Reset)
        })
    });
    let argv = ["rookery", "match"]
        .into_iter()
        .map(String::from)
        .chain(flags.iter().flatten().cloned());
    let matches = cli.try_get_matches_from_mut(argv)?;
    let sub = matches
        .subcommand_matches("match")
        .expect("the words are match's")
        .clone();
    let args = Args::from_arg_matches(&sub)?;
    let command = cli.find_subcommand("match").expect("rookery has match");
    let conflicts = command
        .get_arguments()
        .find(|a| a.get_id() == "resume")
        .map(|resume| command.get_arg_conflicts_with(resume))
        .unwrap_or_default()
        .iter()
        .map(|a| a.get_id().to_string())
        .collect();
    Ok((args, sub, conflicts))
}

/// Sets the line's settings on `args`, clap's reading of its rookery flags
/// (`matches`; `rookery` as written): a setting given by a word and by
/// rookery's flag, or by two words (but those whose words add up), is
/// refused naming both; a dialect's default gives way to rookery's flag.
/// The settings made: their arguments' ids and words.
fn apply(
    sets: Vec<Set>,
    args: &mut Args,
    matches: &ArgMatches,
    rookery: &[Vec<String>],
) -> Result<Vec<(&'static str, String)>, CompatError> {
    let twice = "the same setting twice: give it once";
    let mut done: Vec<(&'static str, String)> = Vec::new();
    for s in sets {
        if matches.value_source(s.id) == Some(ValueSource::CommandLine) {
            if s.default {
                continue;
            }
            let both = format!("{} ... {}", s.word, flag_text(rookery, s.id));
            return Err(refuse(both, twice));
        }
        let earlier = done
            .iter()
            .find(|(id, _)| *id == s.id && !APPENDED.contains(id));
        if let Some((_, w)) = earlier {
            return Err(refuse(format!("{w} ... {}", s.word), twice));
        }
        (s.apply)(args);
        done.push((s.id, s.word));
    }
    Ok(done)
}

/// Refuses what a resumed match takes none of (clap's list for
/// `--resume`, `conflicts`), given by the tool's words (`done`, the
/// settings made) or, with `-config file=`, by rookery's flags.
fn check_resume(
    done: &[(&'static str, String)],
    matches: &ArgMatches,
    rookery: &[Vec<String>],
    conflicts: &[String],
) -> Result<(), CompatError> {
    let by_word = done.iter().find(|(id, _)| *id == "resume").map(|(_, w)| w);
    let resume = match by_word {
        Some(w) => w.clone(),
        None if rookery_flag(rookery, "resume").is_some() => flag_text(rookery, "resume"),
        None => return Ok(()),
    };
    let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
    let word = done
        .iter()
        .find(|(id, _)| conflicts.iter().any(|c| c == id))
        .map(|(_, w)| w.clone());
    // rookery's flags with rookery's --resume are clap's to refuse.
    let flag = by_word
        .and(conflicts.iter().find(|id| given(id)))
        .map(|id| flag_text(rookery, id));
    match word.or(flag) {
        Some(w) => Err(refuse(
            format!("{w} ... {resume}"),
            "a resumed match is the one its journal records: only what says how to print goes with it",
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
