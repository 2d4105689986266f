//! Every word of cutechess-cli's and fastchess's command lines that `rookery
//! match` takes, which tool's meaning it follows and what it becomes: one
//! table, printed by `rookery match --help` and written in the guide's
//! `docs/engines.md` (a test keeps that copy equal to it), and checked by the
//! translator: a word it takes that is not here fails the debug builds'
//! tests.

use std::fmt::Write as _;

/// Whose meaning a word follows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tool {
    /// Both tools', which agree.
    Both,
    /// cutechess-cli's (a line with it is cutechess-cli's).
    Cutechess,
    /// fastchess's (a line with it is fastchess's).
    Fastchess,
    /// Both tools', which differ: the line's tool decides.
    Either,
}

impl Tool {
    fn label(self) -> &'static str {
        match self {
            Tool::Both => "both",
            Tool::Cutechess => "cutechess-cli",
            Tool::Fastchess => "fastchess",
            Tool::Either => "the line's tool",
        }
    }
}

/// A word rookery takes.
#[derive(Copy, Clone, Debug)]
pub struct Word {
    /// The option without its dash (`ratinginterval`), or the engine word
    /// before its `=` (`tc`).
    pub word: &'static str,
    /// How it is written, with its values.
    pub form: &'static str,
    /// Whose meaning it follows.
    pub tool: Tool,
    /// What rookery does with it.
    pub meaning: &'static str,
}

const fn w(word: &'static str, form: &'static str, tool: Tool, meaning: &'static str) -> Word {
    Word {
        word,
        form,
        tool,
        meaning,
    }
}

/// The options (`-NAME ...`).
pub const OPTIONS: &[Word] = &[
    w("engine", "-engine WORDS", Tool::Both, "an engine (the engine words below)"),
    w("each", "-each WORDS", Tool::Both, "words for every engine, applied after each engine's own"),
    w("tournament", "-tournament round-robin|roundrobin|gauntlet|knockout", Tool::Both, "--tournament"),
    w("games", "-games N", Tool::Either, "games per encounter: cutechess-cli plays -rounds x -games, fastchess -rounds rounds of -games"),
    w("rounds", "-rounds N", Tool::Either, "as -games"),
    w("repeat", "-repeat [N]", Tool::Either, "cutechess-cli: each opening N (2) times; fastchess: -games 2"),
    w("seeds", "-seeds N", Tool::Both, "--seeds (a knockout's seeded players, a gauntlet's first)"),
    w("concurrency", "-concurrency N", Tool::Both, "--concurrency"),
    w("variant", "-variant standard|fischerandom", Tool::Both, "--variant (cutechess-cli's Variant tag in its lines)"),
    w("openings", "-openings file=F format=epd|pgn order=sequential|random plies=N start=N policy=default|encounter|round", Tool::Both, "--openings"),
    w("srand", "-srand N", Tool::Both, "--srand (a negative N is its 64-bit two's complement)"),
    w("draw", "-draw movenumber=N movecount=N score=CP", Tool::Both, "--draw"),
    w("resign", "-resign movecount=N score=CP [twosided=true]", Tool::Both, "--resign"),
    w("maxmoves", "-maxmoves N", Tool::Both, "--maxmoves (0: no limit)"),
    w("sprt", "-sprt elo0=E elo1=E alpha=A beta=B [model=normalized|logistic]", Tool::Either, "--sprt: cutechess-cli's BayesElo SPRT in its lines, fastchess's models in its"),
    w("recover", "-recover", Tool::Both, "--recover"),
    w("noswap", "-noswap", Tool::Both, "--noswap"),
    w("reverse", "-reverse", Tool::Both, "--reverse"),
    w("wait", "-wait MS", Tool::Both, "--wait"),
    w("event", "-event NAME", Tool::Both, "--event"),
    w("site", "-site NAME", Tool::Both, "--site"),
    w("pgnout", "-pgnout F [min] [fi] | file=F [min=true] [append=false] [nodes=true] [seldepth=true] [match_line=RE]", Tool::Either, "--pgnout (append=false: old games moved to F.N)"),
    w("epdout", "-epdout F | file=F", Tool::Either, "--epdout"),
    w("ratinginterval", "-ratinginterval N", Tool::Either, "--ratinginterval: games (cutechess-cli), game pairs (fastchess)"),
    w("scoreinterval", "-scoreinterval N", Tool::Fastchess, "--scoreinterval"),
    w("outcomeinterval", "-outcomeinterval N", Tool::Cutechess, "--outcome-interval: each engine's games by how they ended"),
    w("resultformat", "-resultformat FORMAT|help", Tool::Cutechess, "--result-format: the table's columns"),
    w("debug", "-debug", Tool::Cutechess, "--log - --log-format cutechess (the engines' traffic on standard output)"),
    w("output", "-output format=cutechess|fastchess", Tool::Fastchess, "--output"),
    w("report", "-report penta=true|false", Tool::Fastchess, "--report"),
    w("config", "-config outname=F | file=F [discard=true] [stats=true]", Tool::Fastchess, "outname: --journal F; file: --resume F"),
    w("log", "-log file=F [level=L] [engine=B] [realtime=B]", Tool::Fastchess, "--log F"),
    w("crc32", "-crc32 pgn=true", Tool::Fastchess, "--crc32"),
    w("check-mate-pvs", "-check-mate-pvs", Tool::Fastchess, "--check-mate-pvs"),
    w("testEnv", "-testEnv", Tool::Fastchess, "taken (rookery's messages are one line each)"),
    w("autosaveinterval", "-autosaveinterval N", Tool::Fastchess, "taken (the journal saves every move)"),
    w("force-concurrency", "-force-concurrency", Tool::Fastchess, "taken (rookery never caps the concurrency)"),
    w("help", "-help, -h", Tool::Both, "--help"),
    w("h", "-h", Tool::Both, "--help"),
    w("version", "-version, -v", Tool::Both, "--version"),
    w("v", "-v", Tool::Both, "--version"),
    w("V", "-V", Tool::Both, "--version"),
];

/// The engine words (`-engine`, `-each`).
#[rustfmt::skip]
pub const ENGINE_WORDS: &[Word] = &[
    w("cmd", "cmd=PATH", Tool::Both, "the program (relative to dir= when it has a directory part)"),
    w("dir", "dir=DIR", Tool::Both, "its working directory"),
    w("name", "name=NAME", Tool::Both, "its name"),
    w("proto", "proto=uci|xboard", Tool::Both, "its protocol"),
    w("arg", "arg=ARG", Tool::Cutechess, "an argument (repeatable)"),
    w("args", "args=\"A B\"", Tool::Fastchess, "its arguments"),
    w("option", "option.NAME=VALUE", Tool::Both, "a UCI option (one it lacks, or a value it does not take: a warning, and it is not set)"),
    w("initstr", "initstr=LINE", Tool::Cutechess, "setoption lines and the protocol's opening lines"),
    w("conf", "conf=NAME", Tool::Cutechess, "the engine NAME of engines.json"),
    w("tc", "tc=[MOVES/]SECS[+INC] | inf | inf/SECS+INC | 0/SECS+INC", Tool::Both, "its clock (0/ and inf/: every move in one period)"),
    w("st", "st=SECS", Tool::Both, "time per move"),
    w("nodes", "nodes=N", Tool::Both, "nodes per move"),
    w("depth", "depth=N", Tool::Both, "depth per move"),
    w("plies", "plies=N", Tool::Fastchess, "depth per move"),
    w("timemargin", "timemargin=MS", Tool::Both, "how far a move may overrun the clock"),
    w("restart", "restart=on|off|auto", Tool::Both, "a process per game (auto: off)"),
    w("ponder", "ponder", Tool::Cutechess, "think on the opponent's time"),
    w("whitepov", "whitepov", Tool::Cutechess, "scores from White's side"),
    w("trust", "trust", Tool::Cutechess, "taken (the referee judges every ending)"),
    w("stderr", "stderr=FILE", Tool::Cutechess, "its standard error appended to FILE"),
];

/// Words refused, with the reason.
#[rustfmt::skip]
pub const REFUSED: &[(&str, &str)] = &[
    ("-tb, -tbpieces, -tbignore50, -tbadjudicate", "tablebase adjudication is not supported"),
    ("book=, bookdepth=, -bookmode", "engine opening books are not supported"),
    ("tc=hg...", "hourglass time controls are not supported (fastchess refuses them too)"),
    ("tscale=, debug (engine word)", "not supported"),
    ("-quick, -use-affinity, -show-latency, -strict, -*-ms, -compliance", "fastchess's, not supported"),
    ("-sprt model=bayesian (fastchess)", "fastchess's BayesElo SPRT is another computation"),
    ("-pgnout nps=true, pv=true, notation=lan|uci", "not written"),
    ("any other word", "refused by name"),
];

/// Whether `name` is an option in [`OPTIONS`].
pub fn is_option(name: &str) -> bool {
    OPTIONS.iter().any(|w| w.word == name)
}

/// The table as `rookery match --help` prints it.
pub fn help_text() -> String {
    let mut out =
        String::from("cutechess-cli's and fastchess's words (tool: whose meaning it follows):\n");
    for (title, words) in [("Options", OPTIONS), ("Engine words", ENGINE_WORDS)] {
        let _ = writeln!(out, "  {title}:");
        for w in words.iter().filter(|w| listed(w)) {
            let _ = writeln!(out, "    {}", w.form);
            let _ = writeln!(out, "        [{}] {}", w.tool.label(), w.meaning);
        }
    }
    out.push_str("  Refused, naming the word:\n");
    for (words, why) in REFUSED {
        let _ = writeln!(out, "    {words}: {why}");
    }
    out
}

/// The table as the guide writes it (Markdown).
#[cfg(test)]
fn markdown() -> String {
    let mut out = String::new();
    for (title, words) in [("Option", OPTIONS), ("Engine word", ENGINE_WORDS)] {
        let _ = writeln!(out, "| {title} | Tool | In rookery |\n|---|---|---|");
        for w in words.iter().filter(|w| listed(w)) {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                w.form.replace('|', "\\|"),
                w.tool.label(),
                w.meaning.replace('|', "\\|")
            );
        }
        out.push('\n');
    }
    out.push_str("| Refused | Why |\n|---|---|\n");
    for (words, why) in REFUSED {
        let _ = writeln!(out, "| {} | {why} |", words.replace('|', "\\|"));
    }
    out
}

/// Short aliases are listed with their long word.
fn listed(w: &Word) -> bool {
    !matches!(w.word, "h" | "v" | "V")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guide's copy of the table is this table.
    #[test]
    fn the_readme_lists_every_word() {
        let readme = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/engines.md"
        ));
        let begin = "<!-- match words: begin -->\n";
        let end = "<!-- match words: end -->";
        let at = readme.find(begin).expect("docs/engines.md marks the table") + begin.len();
        let len = readme[at..]
            .find(end)
            .expect("docs/engines.md ends the table");
        assert!(
            readme[at..at + len] == markdown(),
            "docs/engines.md's table of words is not the one in words.rs; it should read:\n{}",
            markdown()
        );
    }

    /// Every option's form begins with it; no word twice.
    #[test]
    fn forms_name_their_words() {
        for w in OPTIONS {
            assert!(w.form.starts_with(&format!("-{}", w.word)), "{}", w.word);
        }
        for w in ENGINE_WORDS {
            assert!(w.form.starts_with(w.word), "{}", w.word);
        }
        for table in [OPTIONS, ENGINE_WORDS] {
            let mut words: Vec<&str> = table.iter().map(|w| w.word).collect();
            words.sort_unstable();
            let n = words.len();
            words.dedup();
            assert_eq!(words.len(), n);
        }
    }
}
