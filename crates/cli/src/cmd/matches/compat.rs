//! cutechess-cli's and fastchess's command lines, as engine authors' scripts
//! write them (`-engine cmd=./new -each tc=10+0.1 -rounds 500 -repeat`),
//! translated into `rookery match`'s own flags: [`translate`] is the one
//! place where a single-dash word gets its meaning.
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
//! `model=`: its bounds are read as logistic Elo (cutechess-cli's own are
//! BayesElo, which rookery does not have). `-srand` takes negative seeds
//! too, as both tools' scripts pass them: `-N` is the 64-bit two's
//! complement `2^64 - N`.
//!
//! Words that cannot be honoured are refused naming the word, never
//! dropped. Engine words (after `-engine` and `-each`) are passed on and
//! read by the one engine-word reader, `EngineConfig::apply`; `-each` words
//! follow each engine's own, so that they win as in both tools. Double-dash
//! flags on the same line are rookery's own and pass through.

use std::fmt;

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

/// A word of a peer's command line that cannot be translated: the word and
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

    fn one(&self) -> Result<&str, CompatError> {
        match self.values {
            [v] => Ok(v),
            _ => Err(refuse(self.text(), "expected one value")),
        }
    }

    fn none(&self) -> Result<(), CompatError> {
        if self.values.is_empty() {
            Ok(())
        } else {
            Err(refuse(self.text(), "takes no value"))
        }
    }

    fn number(&self) -> Result<u64, CompatError> {
        let v = self.one()?;
        v.parse()
            .map_err(|_| refuse(self.text(), "expected a whole number"))
    }

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
    output: Option<String>,
    ratinginterval: bool,
    resume: bool,
    /// Flags translated already, in order.
    flags: Vec<String>,
}

impl Line {
    fn mark(&mut self, d: Dialect, word: impl Into<String>) {
        self.marks.push((d, word.into()));
    }

    fn flag(&mut self, words: &[&str]) {
        self.flags.extend(words.iter().map(|w| w.to_string()));
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

/// Translates the words after `match` (a peer's command line, possibly
/// beginning with its program name) into `rookery match`'s flags.
///
/// # Errors
/// [`CompatError`] naming the first word that cannot be honoured, or the
/// words that make the line ambiguous.
pub fn translate(argv: &[String]) -> Result<Vec<String>, CompatError> {
    let mut line = Line::default();
    let mut words = argv;
    if let Some(d) = words.first().and_then(|w| Dialect::of_program(w)) {
        line.program = Some(d);
        words = &words[1..];
    }
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let next_opt = |from: usize| {
            (from..words.len())
                .find(|&j| is_single_dash_option(&words[j]) || words[j].starts_with("--"))
                .unwrap_or(words.len())
        };
        if w.starts_with("--") {
            // rookery's own flag: it and its values pass through.
            let end = next_opt(i + 1);
            line.flags.extend(words[i..end].iter().cloned());
            i = end;
            continue;
        }
        if !is_single_dash_option(w) {
            return Err(refuse(
                w.clone(),
                "expected an option (-engine, -each, ...) here",
            ));
        }
        let end = next_opt(i + 1);
        let opt = Opt {
            name: &w[1..],
            values: &words[i + 1..end],
        };
        option(&mut line, &opt)?;
        i = end;
    }
    finish(line)
}

/// One option.
fn option(line: &mut Line, opt: &Opt<'_>) -> Result<(), CompatError> {
    use Dialect::{Cutechess, Fastchess};
    let tb = "tablebase adjudication is not supported";
    match opt.name {
        "engine" => {
            let words = opt.some()?.to_vec();
            line.mark_engine_words(&words);
            line.engines.push(words);
        }
        "each" => {
            let words = opt.some()?.to_vec();
            line.mark_engine_words(&words);
            line.each.extend(words);
        }
        "variant" => {
            let v = opt.one()?;
            line.flag(&["--variant", v]);
        }
        "concurrency" => {
            let v = opt.one()?;
            match v.parse::<i64>() {
                Ok(n) if n >= 1 => line.flag(&["--concurrency", v]),
                Ok(_) => {
                    return Err(refuse(
                        opt.text(),
                        "a concurrency relative to the processors is not supported: give the number of games at once",
                    ))
                }
                Err(_) => return Err(refuse(opt.text(), "expected a whole number")),
            }
        }
        "draw" => line.draw = Some(opt.some()?.to_vec()),
        "resign" => line.resign = Some(opt.some()?.to_vec()),
        "maxmoves" => {
            let n = opt.number()?;
            // 0: no limit, as both tools read it.
            if n > 0 {
                line.flag(&["--maxmoves", &n.to_string()]);
            }
        }
        "tb" | "tbpieces" | "tbignore50" | "tbadjudicate" => return Err(refuse(opt.text(), tb)),
        "event" => {
            let v = opt.one()?;
            line.flag(&["--event", v]);
        }
        "site" => {
            let v = opt.one()?;
            line.flag(&["--site", v]);
        }
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
                    Some(("model", _)) => line.mark(Fastchess, w.clone()),
                    _ => {}
                }
            }
            line.sprt = Some(words);
        }
        "ratinginterval" => {
            let n = opt.number()?;
            line.ratinginterval = true;
            line.flag(&["--ratinginterval", &n.to_string()]);
        }
        "scoreinterval" => {
            let n = opt.number()?;
            line.mark(Fastchess, opt.text());
            line.flag(&["--scoreinterval", &n.to_string()]);
        }
        "outcomeinterval" => {
            let n = opt.number()?;
            line.mark(Cutechess, opt.text());
            line.flag(&["--outcome-interval", &n.to_string()]);
        }
        "resultformat" => {
            let v = opt.one()?;
            line.mark(Cutechess, opt.text());
            line.flag(&["--result-format", v]);
        }
        "bookmode" | "engines" => {
            return Err(refuse(
                opt.text(),
                if opt.name == "engines" {
                    "listing engines.json is not a match (conf=NAME reads it)"
                } else {
                    "engine opening books are not supported"
                },
            ))
        }
        "debug" => {
            line.mark(Cutechess, opt.text());
            match opt.values {
                // cutechess-cli's traffic lines on standard output, as
                // chess-tuning-tools reads them.
                [] => line.flag(&["--log", "-", "--log-format", "cutechess"]),
                _ => {
                    return Err(refuse(
                        opt.text(),
                        "-debug takes no value here (the engines' own debug mode is not supported)",
                    ))
                }
            }
        }
        "openings" => {
            let words = opt.some()?;
            for w in words {
                if let Some(("policy", v)) = kv(w) {
                    if v != "round" {
                        line.mark(Cutechess, w.clone());
                    }
                }
            }
            line.flags.push("--openings".into());
            line.flags.extend(words.iter().cloned());
        }
        "pgnout" => {
            let words = opt.some()?;
            let fast = words.iter().any(|w| kv(w).is_some());
            match (fast, words.len()) {
                (true, _) => line.mark(Fastchess, opt.text()),
                (false, 1) => line.hints.push((Cutechess, opt.text())),
                (false, _) => line.mark(Cutechess, opt.text()),
            }
            line.flags.push("--pgnout".into());
            line.flags.extend(words.iter().cloned());
        }
        "epdout" => {
            let file = match opt.some()? {
                [f] if kv(f).is_none() => {
                    line.mark(Cutechess, opt.text());
                    f.clone()
                }
                words => {
                    line.mark(Fastchess, opt.text());
                    let mut file = None;
                    for w in words {
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
                    file.ok_or_else(|| refuse(opt.text(), "name the file: file=NAME"))?
                }
            };
            line.flag(&["--epdout", &file]);
        }
        "recover" => {
            opt.none()?;
            line.flag(&["--recover"]);
        }
        "noswap" => {
            opt.none()?;
            line.flag(&["--noswap"]);
        }
        "reverse" => {
            opt.none()?;
            line.flag(&["--reverse"]);
        }
        "srand" => {
            let seed = seed(opt.one()?)
                .ok_or_else(|| refuse(opt.text(), "expected a whole number (negative ones too)"))?;
            line.flag(&["--srand", &seed.to_string()]);
        }
        "wait" => {
            let n = opt.number()?;
            line.flag(&["--wait", &n.to_string()]);
        }
        "seeds" => {
            // A knockout's seeded players; other tournaments accept only
            // 1 (the gauntlet's first engine), which `rookery match` checks.
            let n = opt.number()?;
            line.flag(&["--seeds", &n.to_string()]);
        }
        "tournament" => {
            let v = opt.one()?;
            match v {
                "round-robin" => line.mark(Cutechess, opt.text()),
                "roundrobin" => line.mark(Fastchess, opt.text()),
                "gauntlet" => {}
                "knockout" => line.mark(Cutechess, opt.text()),
                _ => {
                    return Err(refuse(
                        opt.text(),
                        "expected round-robin, gauntlet or knockout",
                    ))
                }
            }
            line.flag(&["--tournament", v]);
        }
        "output" => {
            line.mark(Fastchess, opt.text());
            match opt.values {
                [w] => match kv(w) {
                    Some(("format", f @ ("cutechess" | "fastchess"))) => {
                        line.output = Some(f.to_string())
                    }
                    _ => return Err(refuse(w.clone(), "expected format=cutechess or fastchess")),
                },
                _ => return Err(refuse(opt.text(), "expected format=cutechess or fastchess")),
            }
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
            line.flags.push("--report".into());
            line.flags.extend(opt.values.iter().cloned());
        }
        "config" => {
            line.mark(Fastchess, opt.text());
            for w in opt.some()? {
                match kv(w) {
                    Some(("outname", f)) => line.flag(&["--journal", f]),
                    Some(("file", f)) => {
                        line.resume = true;
                        line.flag(&["--resume", f]);
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
                    _ => {
                        return Err(refuse(
                            w.clone(),
                            "expected outname=JOURNAL (where the match is saved) or file=JOURNAL (resume it)",
                        ))
                    }
                }
            }
        }
        "log" => {
            line.mark(Fastchess, opt.text());
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
                    _ => return Err(refuse(
                        w.clone(),
                        "expected file=, level=, engine=, realtime=, append=true or compress=false",
                    )),
                }
            }
            let file = file.ok_or_else(|| refuse(opt.text(), "name the file: file=NAME"))?;
            line.flag(&["--log", &file]);
        }
        "autosaveinterval" => {
            // The journal already saves every move.
            opt.number()?;
            line.mark(Fastchess, opt.text());
        }
        "force-concurrency" => {
            // rookery never caps the concurrency at the processors.
            opt.none()?;
            line.mark(Fastchess, opt.text());
        }
        "testEnv" => {
            // fishtest's and OpenBench's: fastchess's messages on one line
            // each, which rookery's are.
            opt.none()?;
            line.mark(Fastchess, opt.text());
        }
        "crc32" => {
            line.mark(Fastchess, opt.text());
            for w in opt.some()? {
                match kv(w) {
                    Some(("pgn", v)) => {
                        if boolean(w, v)? {
                            line.flag(&["--crc32"]);
                        }
                    }
                    _ => return Err(refuse(w.clone(), "expected pgn=true or pgn=false")),
                }
            }
        }
        "help" | "h" => line.flag(&["--help"]),
        "version" | "v" | "V" => line.flag(&["--version"]),
        "check-mate-pvs" => {
            opt.none()?;
            line.mark(Fastchess, opt.text());
            line.flag(&["--check-mate-pvs"]);
        }
        "quick" | "use-affinity" | "show-latency" | "strict" | "startup-ms" | "ucinewgame-ms"
        | "ping-ms" | "compliance" => {
            return Err(refuse(
                opt.text(),
                format!("fastchess's -{} is not supported", opt.name),
            ))
        }
        _ => {
            return Err(refuse(
                format!("-{}", opt.name),
                "not an option of cutechess-cli or fastchess that rookery knows",
            ))
        }
    }
    debug_assert!(
        super::words::is_option(opt.name),
        "-{} is taken but not in words.rs's table",
        opt.name
    );
    Ok(())
}

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

fn finish(mut line: Line) -> Result<Vec<String>, CompatError> {
    use Dialect::{Cutechess, Fastchess};
    // Help and version are all a line asks for when it asks for them.
    if let Some(f) = line
        .flags
        .iter()
        .find(|f| *f == "--help" || *f == "--version")
    {
        return Ok(vec![f.clone()]);
    }
    if line.program.is_none() {
        // Without a program name, a hint says the dialect as a mark does.
        let hints = std::mem::take(&mut line.hints);
        line.marks.extend(hints);
    }
    let first = |d| line.marks.iter().find(|(m, _)| *m == d).map(|(_, w)| w);
    let dialect = match line.program {
        Some(d) => {
            let other = if d == Cutechess { Fastchess } else { Cutechess };
            if let Some(w) = first(other) {
                return Err(refuse(
                    w.clone(),
                    format!(
                        "{} does not have it ({} does)",
                        d.program(),
                        other.program()
                    ),
                ));
            }
            d
        }
        None => {
            match (first(Cutechess), first(Fastchess)) {
                (Some(c), Some(f)) => return Err(refuse(
                    format!("{c} ... {f}"),
                    "the first is cutechess-cli's, the second fastchess's: one line is one tool's",
                )),
                (None, Some(_)) => Fastchess,
                (Some(_), None) => Cutechess,
                (None, None) => {
                    let (c, f) = (schedule(&line, Cutechess), schedule(&line, Fastchess));
                    match (&c, &f) {
                        (Ok(a), Ok(b)) if a != b && !line.resume => {
                            let games = |(r, g): (u64, u64)| r * g;
                            return Err(refuse(
                            "-rounds/-games/-repeat",
                            format!(
                                "cutechess-cli plays {} games per encounter from this line, fastchess {}: \
                                 begin the line with cutechess-cli or fastchess to say which",
                                games(*a),
                                games(*b)
                            ),
                        ));
                        }
                        _ => Cutechess,
                    }
                }
            }
        }
    };
    let mut out: Vec<String> = Vec::new();
    if line.resume {
        // Resuming: the journal has the plan; only what prints goes with it.
        if !line.engines.is_empty() || line.games.is_some() || line.rounds.is_some() {
            return Err(refuse(
                "-config file=",
                "resumes the match its journal records: give no engines or schedule with it",
            ));
        }
    } else {
        for e in &line.engines {
            out.push("--engine".into());
            out.extend(e.iter().cloned());
            out.extend(line.each.iter().cloned());
            // fastchess names an engine after its program (cutechess-cli,
            // as rookery, after its `id name`).
            let all = || e.iter().chain(&line.each);
            let named = all().any(|w| w.starts_with("name=") || w.starts_with("conf="));
            let program = all().filter_map(|w| w.strip_prefix("cmd=")).next_back();
            if let (Fastchess, false, Some(cmd)) = (dialect, named, program) {
                let stem = std::path::Path::new(cmd)
                    .file_stem()
                    .map_or(cmd.into(), |s| s.to_string_lossy());
                out.push(format!("name={stem}"));
            }
        }
        let knockout = line
            .flags
            .windows(2)
            .any(|w| w[0] == "--tournament" && w[1] == "knockout");
        let (rounds, games) = match (dialect, knockout) {
            // cutechess-cli plays an encounter of a knockout as `-rounds` ×
            // `-games` games; rookery's knockout plays an encounter as one
            // block of --games games (colours alternating) on one opening,
            // which is the same games when they all start from one position.
            (Cutechess, true) => {
                let total = line
                    .rounds
                    .unwrap_or(1)
                    .saturating_mul(line.games.unwrap_or(1));
                let openings = line.flags.iter().any(|f| f == "--openings");
                if openings && total > 1 && line.repeat.unwrap_or(1) < total {
                    return Err(refuse(
                        "-openings",
                        format!(
                            "cutechess-cli gives each of an encounter's {total} games its own opening; \
                             rookery's knockout plays an encounter on one opening: add -repeat {total}"
                        ),
                    ));
                }
                (1, total)
            }
            _ => schedule(&line, dialect)?,
        };
        out.extend([
            "--rounds".into(),
            rounds.to_string(),
            "--games".into(),
            games.to_string(),
        ]);
        if !line.ratinginterval {
            let n = if dialect == Cutechess { "0" } else { "10" };
            out.extend(["--ratinginterval".into(), n.into()]);
        }
        let defaults = |words: Vec<String>, keys: &[(&str, &str)]| -> Vec<String> {
            let mut words = words;
            if dialect == Fastchess {
                for (k, v) in keys {
                    if !words
                        .iter()
                        .any(|w| kv(w).is_some_and(|(key, _)| key == *k))
                    {
                        words.push(format!("{k}={v}"));
                    }
                }
            }
            words
        };
        if let Some(d) = line.draw.take() {
            out.push("--draw".into());
            out.extend(defaults(d, &[("movecount", "1"), ("score", "0")]));
        }
        if let Some(r) = line.resign.take() {
            out.push("--resign".into());
            out.extend(defaults(r, &[("movecount", "1"), ("score", "0")]));
        }
        if let Some(mut s) = line.sprt.take() {
            if dialect == Cutechess {
                // cutechess-cli's own SPRT: BayesElo over single games, no
                // LLR before a win, a loss and a draw.
                s.push("model=bayesian".into());
            }
            out.push("--sprt".into());
            out.extend(s);
        }
    }
    let output = line
        .output
        .take()
        .unwrap_or_else(|| dialect.program().trim_end_matches("-cli").to_string());
    out.extend(["--output".into(), output]);
    out.extend(line.flags);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    fn tr(s: &str) -> Result<String, CompatError> {
        translate(&words(s)).map(|w| w.join(" "))
    }

    #[track_caller]
    fn ok(s: &str) -> String {
        tr(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[track_caller]
    fn refused(s: &str, word: &str) -> String {
        let e = tr(s).expect_err(s);
        assert_eq!(e.word, word, "{s}: {e}");
        e.to_string()
    }

    const TWO: &str = "-engine cmd=a -engine cmd=b";

    #[track_caller]
    fn has(line: &str, want: &str) {
        let got = ok(line);
        assert!(got.contains(want), "{line}\n -> {got}\n lacks {want}");
    }

    #[test]
    fn recognising_a_peer_line() {
        assert!(is_peer_line(&words("-engine cmd=a")));
        assert!(is_peer_line(&words("fastchess --json")));
        assert!(is_peer_line(&words("/opt/bin/cutechess-cli")));
        assert!(!is_peer_line(&words("--engine cmd=a --srand -5")));
        assert_eq!(
            Dialect::of_program("C:\\x\\fastchess.exe"),
            Some(Dialect::Fastchess)
        );
        assert_eq!(Dialect::of_program("stockfish"), None);
        // OpenBench's builds.
        assert_eq!(
            Dialect::of_program("./fastchess-ob"),
            Some(Dialect::Fastchess)
        );
        assert_eq!(
            Dialect::of_program("cutechess-ob.exe"),
            Some(Dialect::Cutechess)
        );
    }

    #[test]
    fn engines_get_each_after_their_own_words() {
        assert_eq!(
            ok("cutechess-cli -engine cmd=a name=A tc=1+0.1 -engine cmd=b -each tc=2+0.2 option.Hash=16"),
            "--engine cmd=a name=A tc=1+0.1 tc=2+0.2 option.Hash=16 \
             --engine cmd=b tc=2+0.2 option.Hash=16 --rounds 1 --games 1 \
             --ratinginterval 0 --output cutechess"
        );
    }

    #[test]
    fn rounds_games_and_repeat_in_each_dialect() {
        // cutechess-cli: -repeat repeats openings, -games multiplies.
        has(
            &format!("cutechess-cli {TWO} -games 2 -rounds 500 -repeat"),
            "--rounds 500 --games 2",
        );
        has(
            &format!("cutechess-cli {TWO} -rounds 100 -repeat"),
            "--rounds 50 --games 2",
        );
        has(
            &format!("cutechess-cli {TWO} -rounds 10 -games 2"),
            "--rounds 20 --games 1",
        );
        has(
            &format!("cutechess-cli {TWO} -rounds 9 -repeat 3"),
            "--rounds 3 --games 3",
        );
        has(&format!("cutechess-cli {TWO}"), "--rounds 1 --games 1");
        refused(
            &format!("cutechess-cli {TWO} -rounds 9 -repeat"),
            "-repeat 2",
        );
        // fastchess: rounds of -games games; -repeat is -games 2.
        // fastchess's -repeat N is -games N.
        has(
            &format!("fastchess {TWO} -rounds 10 -repeat 2"),
            "--rounds 10 --games 2",
        );
        refused(
            &format!("{TWO} -rounds 50 -repeat 2"),
            "-rounds/-games/-repeat",
        );
        has(
            &format!("fastchess {TWO} -rounds 100 -repeat"),
            "--rounds 100 --games 2",
        );
        has(
            &format!("fastchess {TWO} -rounds 100 -games 2"),
            "--rounds 100 --games 2",
        );
        has(&format!("fastchess {TWO}"), "--rounds 2 --games 2");
        has(
            &format!("fastchess {TWO} -games 50 -rounds 2"),
            "--rounds 50 --games 2",
        );
        refused(&format!("fastchess {TWO} -games 50 -rounds 4"), "-games 4");
        // Both read it alike: cutechess-cli's reading, no first word needed.
        has(
            &format!("{TWO} -games 2 -rounds 500 -repeat"),
            "--rounds 500 --games 2",
        );
        // They differ: a first word is asked for.
        let e = refused(
            &format!("{TWO} -rounds 100 -repeat"),
            "-rounds/-games/-repeat",
        );
        assert!(
            e.contains("cutechess-cli plays 100") && e.contains("fastchess 200"),
            "{e}"
        );
        // A word of one tool settles it.
        has(
            &format!("{TWO} -rounds 100 -repeat -output format=cutechess"),
            "--rounds 100 --games 2",
        );
        refused("-rounds 0", "-rounds 0");
        refused("-games x", "-games x");
        // Three engines (cutechess-cli): openings repeat within an encounter.
        has(
            "cutechess-cli -engine cmd=a -engine cmd=b -engine cmd=c -games 4 -rounds 3 -repeat",
            "--rounds 6 --games 2",
        );
    }

    #[test]
    fn dialect_words_and_conflicts() {
        has(&format!("{TWO} -pgnout g.pgn"), "--output cutechess");
        has(&format!("{TWO} -pgnout file=g.pgn"), "--output fastchess");
        has(
            &format!("{TWO} -pgnout file=g.pgn -output format=cutechess"),
            "--output cutechess",
        );
        has("-engine conf=A -engine conf=B", "--output cutechess");
        has("-engine cmd=a args=x -engine cmd=b", "--output fastchess");
        let e = refused(
            &format!("{TWO} -pgnout g.pgn -report penta=false"),
            "-pgnout g.pgn ... -report penta=false",
        );
        assert!(e.contains("one line is one tool's"), "{e}");
        let e = refused(
            &format!("cutechess-cli {TWO} -output format=fastchess"),
            "-output format=fastchess",
        );
        assert!(e.contains("cutechess-cli does not have it"), "{e}");
        refused(
            &format!("fastchess {TWO} -pgnout g.pgn min"),
            "-pgnout g.pgn min",
        );
        // weather-factory gives fastchess a bare file, as to cutechess-cli.
        has(
            &format!("fastchess {TWO} -pgnout tuner/games.pgn"),
            "--pgnout tuner/games.pgn",
        );
        refused("fastchess -engine cmd=a ponder -engine cmd=b", "ponder");
        // Defaults of each: the rating interval.
        has(
            &format!("fastchess {TWO}"),
            "--ratinginterval 10 --output fastchess",
        );
        has(
            &format!("cutechess-cli {TWO}"),
            "--ratinginterval 0 --output cutechess",
        );
        has(
            &format!("fastchess {TWO} -ratinginterval 5"),
            "--output fastchess --ratinginterval 5",
        );
    }

    #[test]
    fn every_option_word_by_word() {
        let c = |rest: &str| format!("cutechess-cli {TWO} {rest}");
        let f = |rest: &str| format!("fastchess {TWO} {rest}");
        has(&c("-variant fischerandom"), "--variant fischerandom");
        has(&c("-concurrency 4"), "--concurrency 4");
        refused(&c("-concurrency 0"), "-concurrency 0");
        refused(&c("-concurrency -2"), "-concurrency -2");
        has(
            &c("-draw movenumber=40 movecount=8 score=10"),
            "--draw movenumber=40 movecount=8 score=10",
        );
        has(
            &f("-draw movenumber=40"),
            "--draw movenumber=40 movecount=1 score=0",
        );
        has(
            &c("-resign movecount=3 score=600 twosided=true"),
            "--resign movecount=3 score=600 twosided=true",
        );
        has(
            &f("-resign score=600"),
            "--resign score=600 movecount=1 --output",
        );
        has(&c("-maxmoves 150"), "--maxmoves 150");
        assert!(!ok(&c("-maxmoves 0")).contains("--maxmoves"));
        for tb in [
            "-tb /syzygy",
            "-tbpieces 6",
            "-tbignore50",
            "-tbadjudicate BOTH",
        ] {
            let e = refused(&c(tb), tb);
            assert!(e.contains("tablebase adjudication is not supported"), "{e}");
        }
        has(&c("-event Test"), "--event Test");
        has(&c("-site Here"), "--site Here");
        refused(&c("-event"), "-event");
        has(
            &c("-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"),
            "--sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 model=bayesian",
        );
        has(
            &f("-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"),
            "--sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 --output",
        );
        has(
            &f("-sprt elo0=0 elo1=5 model=normalized"),
            "model=normalized --output",
        );
        refused(&f("-sprt elo0=0 elo1=5 model=bayesian"), "model=bayesian");
        has(&c("-ratinginterval 10"), "--ratinginterval 10");
        has(&f("-scoreinterval 5"), "--scoreinterval 5");
        has(&c("-outcomeinterval 5"), "--outcome-interval 5");
        has(&c("-resultformat wide2"), "--result-format wide2");
        refused(&c("-bookmode ram"), "-bookmode ram");
        refused(&c("-engines"), "-engines");
        has(&c("-debug"), "--log -");
        refused(&c("-debug all"), "-debug all");
        has(
            &c("-openings file=b.epd format=epd order=random plies=8 start=3 policy=round"),
            "--openings file=b.epd format=epd order=random plies=8 start=3 policy=round",
        );
        has(
            &format!("{TWO} -openings file=b.pgn policy=encounter"),
            "--output cutechess",
        );
        has(&c("-pgnout g.pgn min fi"), "--pgnout g.pgn min fi");
        has(
            &f("-pgnout file=g.pgn min=true notation=san"),
            "--pgnout file=g.pgn min=true notation=san",
        );
        has(&c("-epdout e.epd"), "--epdout e.epd");
        has(&f("-epdout file=e.epd append=true"), "--epdout e.epd");
        refused(&f("-epdout file=e.epd append=false"), "append=false");
        refused(&f("-epdout append=true"), "-epdout append=true");
        has(&c("-recover"), "--recover");
        refused(&c("-recover yes"), "-recover yes");
        has(&c("-noswap"), "--noswap");
        has(&c("-reverse"), "--reverse");
        has(&c("-srand 42"), "--srand 42");
        has(&c("-srand -1"), "--srand 18446744073709551615");
        has(
            &c("-srand -123456"),
            &format!("--srand {}", (-123456i64) as u64),
        );
        refused(&c("-srand x"), "-srand x");
        has(&c("-wait 250"), "--wait 250");
        has(&c("-seeds 1"), "--seeds 1");
        has(&c("-tournament knockout -seeds 2"), "--seeds 2");
        has(&c("-tournament round-robin"), "--tournament round-robin");
        has(&f("-tournament roundrobin"), "--tournament roundrobin");
        has(&c("-tournament gauntlet"), "--tournament gauntlet");
        has(&c("-tournament knockout"), "--tournament knockout");
        // An encounter of two games without -repeat (engines' gauntlet
        // scripts): one block of two games.
        has(&c("-tournament knockout -games 2"), "--rounds 1 --games 2");
        refused(
            &c("-tournament knockout -games 2 -openings file=b.epd"),
            "-openings",
        );
        has(
            &c("-tournament knockout -games 2 -repeat 2 -openings file=b.epd"),
            "--rounds 1 --games 2",
        );
        refused(&c("-tournament pyramid"), "-tournament pyramid");
        has(&f("-output format=fastchess"), "--output fastchess");
        refused(&f("-output format=json"), "format=json");
        has(&f("-report penta=false"), "--report penta=false");
        refused(&f("-report penta=maybe"), "penta=maybe");
        has(&f("-config outname=m.journal"), "--journal m.journal");
        assert_eq!(
            ok("fastchess -config file=m.journal"),
            "--output fastchess --resume m.journal"
        );
        refused(&f("-config file=m.journal"), "-config file=");
        // weather-factory's words: no configuration loaded, none discarded.
        has(
            &f("-config discard=true outname=t/c.json"),
            "--journal t/c.json",
        );
        refused(&f("-config file=m.json discard=true"), "discard=true");
        // fishtest's and OpenBench's.
        assert!(!ok(&f("-testEnv")).contains("test"));
        has(&f("-crc32 pgn=true"), "--crc32");
        assert!(!ok(&f("-crc32 pgn=false")).contains("crc"));
        refused(&f("-crc32 epd=true"), "epd=true");
        has(&f("-check-mate-pvs"), "--check-mate-pvs");
        has(&f("-log file=l.txt level=warn engine=true"), "--log l.txt");
        refused(&f("-log file=l.txt compress=true"), "compress=true");
        refused(&f("-log level=info"), "-log level=info");
        assert!(!ok(&f("-autosaveinterval 20")).contains("autosave"));
        assert!(!ok(&f("-force-concurrency")).contains("force"));
        has(&c("-help"), "--help");
        assert_eq!(ok("-h"), "--help");
        assert_eq!(ok("fastchess -engine cmd=a -version"), "--version");
        has(&c("-version"), "--version");
        for w in [
            "-quick cmd=a",
            "-use-affinity",
            "-strict",
            "-startup-ms 100",
            "-show-latency",
        ] {
            refused(&f(w), w);
        }
        refused(&c("-frobnicate 3"), "-frobnicate");
        refused(&format!("stray {TWO}"), "stray");
        // rookery's own flags pass through, values and all.
        has(&c("--json --srand 7"), "--json --srand 7");
    }

    #[test]
    fn fastchess_names_an_engine_after_its_program() {
        has(
            "fastchess -engine cmd=/opt/sf/stockfish.x86 -engine cmd=b name=B",
            "--engine cmd=/opt/sf/stockfish.x86 name=stockfish --engine cmd=b name=B --rounds",
        );
        has(
            "cutechess-cli -engine cmd=/opt/sf/stockfish -engine cmd=b",
            "--engine cmd=/opt/sf/stockfish --engine cmd=b --rounds",
        );
    }

    #[test]
    fn seeds_negative_and_large() {
        assert_eq!(seed("0"), Some(0));
        assert_eq!(seed("18446744073709551615"), Some(u64::MAX));
        assert_eq!(seed("-1"), Some(u64::MAX));
        assert_eq!(seed("-9223372036854775808"), Some(1 << 63));
        assert_eq!(seed("18446744073709551616"), None);
        assert_eq!(seed("1.5"), None);
    }
}
