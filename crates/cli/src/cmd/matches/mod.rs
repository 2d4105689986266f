//! `rookery match`: games between engines (cutechess-cli / fastchess vocabulary).
//!
//! [`compat`] reads a cutechess-cli or fastchess command line into the
//! typed [`Args`] below; [`engines_json`] reads cutechess's engine configurations for
//! `conf=`; [`report`] prints the match in rookery's, cutechess-cli's or
//! fastchess's lines; [`merge`] is `rookery match merge`, the shards of a
//! match played with `--shard` put back together.

pub mod compat;
mod engines_json;
mod merge;
mod report;
mod result_format;
mod web;
mod words;

use crate::cmd::progress;
use crate::output::{self, Status, UsageError};
use report::{Format, Printer, Say};
use rookery_event::book::BookConfig;
use rookery_event::journal::JournalState;
use rookery_event::runner::{RunnerError, Start};
use rookery_event::schedule::{Pairing, Sides};
use rookery_event::stats::Sprt;
use rookery_event::tournament::{
    self, GameWatcher, MatchError, MatchEvent, MatchPlan, MatchSummary,
};
use rookery_game::adjudicate::{DrawRule, ResignRule, Rules};
use rookery_game::player::{EngineConfig, LogStyle};
use rookery_game::record::PgnStyle;
use rookery_io::shard::ShardChoice;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

const AFTER_HELP: &str = "\
Engine words (for --engine and --each; an engine's own words win over --each):
  cmd=PATH|builtin   the program (builtin: rookery's engine, in process)
  conf=NAME          the engine NAME of cutechess's engines.json (--engines-json,
                     ./engines.json or ~/.config/cutechess/engines.json)
  name=NAME          its name in the PGN (default: the engine's id name)
  arg=ARG, dir=DIR   a command-line argument (repeatable), the working directory
  args=\"A B\"         several arguments at once (fastchess)
  option.NAME=VALUE  a UCI option, e.g. option.Hash=64 option.Threads=1
  tc=[MOVES/]SECS[+INC]  a clock: 40/60+0.6, 10+0.1, 0:30 (tc=inf: none)
  st=SECS, nodes=N, depth=N  fixed time, nodes or depth per move (plies=N: depth)
  timemargin=MS      how far a move may overrun the clock (default 0)
  restart=on|off     a new process for every game (default off; auto: off)
  proto=uci|xboard   its protocol: UCI (default), or xboard/WinBoard (CECP 1 and 2)
  ponder             think on the expected reply while the opponent thinks
                     (UCI go ponder / ponderhit; engines that declare Ponder)
  whitepov           the engine's scores are from White's side; trust: nothing
                     to do (the referee judges every ending itself)

Every move is written to a journal (PGN path + .journal, or --journal) before
the next is asked for. After a crash or kill -9, `rookery match --resume
JOURNAL` finishes the match: a game cut off in the middle goes on from its
last move with its clocks restored, and the PGN holds every game once.

Examples:
  rookery match --engine cmd=builtin name=new --engine cmd=/usr/games/stockfish \\
      option.Skill\\ Level=5 --each tc=10+0.1 option.Hash=64 --rounds 50 --games 2 \\
      --concurrency 2 --openings file=openings.epd order=random --pgnout games.pgn
  rookery match --engine cmd=./new --engine cmd=./base --each tc=8+0.08 \\
      --games 2 --rounds 5000 --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 --pgnout sprt.pgn
  rookery match --resume sprt.pgn.journal

A match spread over several machines (a Slurm job array, a Kubernetes
Indexed Job): every task runs the same command with --shard K/N (or --shard
auto under the scheduler) and the same --srand. Shard K plays every N-th
block of the schedule (a block: the games of one opening, colours reversed,
never split), each game with the opening an unsharded run gives it, and
writes PGN.shard-K-of-N with its journal beside it (a killed shard goes on
with --resume PGN.shard-K-of-N.journal). With --sprt, --pool DIR (a
directory every task sees) pools the test: each shard publishes every pair
it finishes there (atomically) and reads the others' before it begins a
pair; the SPRT over all the pairs in the pool decides, and then no shard
begins another pair (a pair begun is played to its end). `rookery match
merge --pgnout PGN` then writes the games in schedule order with the
statistics of the whole match:
  sbatch --array=1-3 --wrap 'rookery match --engine cmd=./new --engine \\
      cmd=./base --each tc=8+0.08 --games 2 --rounds 5000 --srand 7 --sprt \\
      elo0=0 elo1=5 --shard auto --pool /shared/pool --pgnout /shared/sprt.pgn'
  rookery match merge --pgnout /shared/sprt.pgn

cutechess-cli and fastchess command lines run as written: `rookery match
cutechess-cli -engine cmd=./new ... -games 2 -rounds 500 -repeat -pgnout g.pgn`
(or `fastchess ...`, `cutechess-ob ...`, `fastchess-ob ...`; the program word
may be left out when the line's words say which tool it is for, and a link to
rookery named after the tool works too). They print what that tool prints
(-output format= to choose).

";

/// The help's end: [`AFTER_HELP`], then every word of the peers' lines.
fn after_help() -> String {
    format!("{AFTER_HELP}{}", words::help_text())
}

/// The most rounds a match plays (`--rounds`, and a peer line's schedule).
pub(crate) const MAX_ROUNDS: u32 = 10_000_000;
/// The most games of an encounter a round (`--games`).
pub(crate) const MAX_GAMES: u32 = 1000;
/// The most games played at once (`--concurrency`).
pub(crate) const MAX_CONCURRENCY: u32 = 1024;
/// The variants `--variant` (and a peer's `-variant`) names.
pub(crate) const VARIANTS: [&str; 3] = ["standard", "fischerandom", "chess960"];
/// The longest wait between two games of a worker (`--wait`), in ms.
pub(crate) const MAX_WAIT_MS: u32 = 3_600_000;

/// Flags of `rookery match`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = after_help(),
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    disable_help_subcommand = true
)]
pub struct Args {
    /// `rookery match merge`.
    #[command(subcommand)]
    command: Option<Command>,
    /// An engine and its words (repeat the flag for each engine).
    #[arg(long, num_args = 1.., value_name = "WORD", action = clap::ArgAction::Append, required_unless_present = "resume")]
    engine: Vec<String>,
    /// The words of each `--engine`, grouped by occurrence (clap's derive
    /// flattens them; `main` fills this from the matches with
    /// [`engine_groups`], [`compat`] from a peer's line).
    #[arg(skip)]
    pub engine_groups: Vec<Vec<String>>,
    /// Words applied to every engine before its own.
    #[arg(long, num_args = 1.., value_name = "WORD")]
    each: Vec<String>,
    /// How the engines are paired. knockout: a single-elimination bracket
    /// (byes to the top seeds); each encounter plays --games games, a tie
    /// goes on by one game (odd --games) or a pair (even) until one leads,
    /// and the winners meet in the next round until one is left.
    #[arg(
        long,
        default_value = "round-robin",
        value_name = "round-robin|gauntlet|knockout"
    )]
    tournament: Pairing,
    /// A knockout's seeded engines: the first N are placed in the bracket
    /// by their order (the first is the top seed), the others in an order
    /// drawn by --srand (default 0: all drawn). A gauntlet's seed is its
    /// first engine (1).
    #[arg(long, value_name = "N")]
    seeds: Option<u32>,
    /// The sides never swap: the first engine of each encounter always has
    /// White.
    #[arg(long)]
    noswap: bool,
    /// The second engine of each encounter has White first (with --noswap:
    /// always).
    #[arg(long)]
    reverse: bool,
    /// Rounds: every encounter is played this many times.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_ROUNDS)))]
    rounds: u32,
    /// Games per encounter and round; 2 plays each opening with colours reversed.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_GAMES)))]
    games: u32,
    /// Play each opening twice with colours reversed (= --games 2).
    #[arg(long)]
    repeat: bool,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_CONCURRENCY)))]
    concurrency: u32,
    /// The opening book: file=F [format=epd|pgn] [order=random|sequential] [plies=N] [start=N].
    #[arg(long, num_args = 1.., value_name = "WORD")]
    openings: Vec<String>,
    /// Seed for the random opening order and Chess960 starts (default: from
    /// the clock); a negative seed, as the peers' scripts pass, is its 64-bit
    /// two's complement.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_seed)]
    srand: Option<u64>,
    /// standard or fischerandom (Chess960: random starts unless --openings).
    #[arg(long, default_value = "standard", value_parser = VARIANTS)]
    variant: String,
    /// Draw adjudication: movenumber=N movecount=N score=CP.
    #[arg(long, num_args = 1.., value_name = "WORD")]
    draw: Vec<String>,
    /// Resign adjudication: movecount=N score=CP [twosided=true].
    #[arg(long, num_args = 1.., value_name = "WORD")]
    resign: Vec<String>,
    /// A draw once both sides have made N moves.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    maxmoves: Option<u32>,
    /// Stop when the SPRT decides: elo0=0 elo1=5 alpha=0.05 beta=0.05 [model=normalized|logistic|bayesian] (bayesian: cutechess-cli's SPRT).
    #[arg(long, num_args = 1.., value_name = "WORD")]
    sprt: Vec<String>,
    /// After a crash or stall, restart the engine and go on (otherwise the match stops).
    #[arg(long)]
    recover: bool,
    /// Append the games to this PGN file: `F` or `file=F`, then `min` (or
    /// `min=true`: the Seven Tag Roster and the moves, no comments), `fi`
    /// (games cut off by an interrupt are not written), fastchess's
    /// `notation=san`, `append=true|false` (false: a fresh file, the games
    /// in it moved to F.N), `nodes=true` and `seldepth=true` (`n=`, `sd=` in
    /// each move's comment), `match_line=REGEX` (the last `info string` line
    /// of the move matching it, as `line="..."`), and `nps=`, `hashfull=`,
    /// `tbhits=`, `pv=`, `timeleft=`, `latency=` `=false`.
    #[arg(long, num_args = 1.., value_name = "FILE [WORD...]")]
    pgnout: Vec<String>,
    /// Append the final position of every game to this EPD file.
    #[arg(long, value_name = "FILE")]
    epdout: Option<PathBuf>,
    /// The journal (default: the PGN path + .journal; none without either).
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// Do not sync the journal to disk (by default a background thread does,
    /// every 50 ms; a kill -9 is survived either way, a power loss may then
    /// lose more than the last moves).
    #[arg(long)]
    no_sync: bool,
    /// Log every line sent to and received from every engine to FILE (`-`:
    /// standard error; standard output with --log-format cutechess).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// The log's lines: rookery's (`  1234 NAME#1.1 < uci`) or cutechess-cli's
    /// -debug lines (`1234 >NAME(0): uci`, `>` into the engine), which tools
    /// such as chess-tuning-tools read from standard output.
    #[arg(long, value_enum, default_value_t = LogFormat::Rookery, value_name = "rookery|cutechess")]
    log_format: LogFormat,
    /// cutechess's engine configurations, for `conf=NAME` (default:
    /// ./engines.json, else ~/.config/cutechess/engines.json).
    #[arg(long, value_name = "FILE")]
    engines_json: Option<PathBuf>,
    /// The Event tag.
    #[arg(long, default_value = "rookery match")]
    event: String,
    /// The Site tag.
    #[arg(long, default_value = "?")]
    site: String,
    /// Print the statistics every N games (and at the end; 0: only at the
    /// end). With --output fastchess, every N game pairs.
    #[arg(long, default_value_t = 10, value_name = "N")]
    ratinginterval: u64,
    /// With --output cutechess, the score line every N games (0: only at
    /// the end).
    #[arg(long, default_value_t = 1, value_name = "N")]
    scoreinterval: u64,
    /// With --output cutechess, the columns of the result table of three or
    /// more engines, as cutechess-cli's -resultformat takes them: a named
    /// format (default, wide, wide2, wide3, per-color, term, draws, ...) or
    /// fields (`Rank,Name,Elo,Error,Games,W,L,D,...`); `help` lists them.
    #[arg(long, value_name = "FORMAT")]
    result_format: Option<String>,
    /// With --output cutechess, cutechess-cli's outcome list (each engine's
    /// games by how they ended) every N games and at the end.
    #[arg(long, value_name = "N", default_value_t = 0)]
    outcome_interval: u64,
    /// When the match ends, print the PGN file's CRC-32, as fastchess's
    /// `-crc32 pgn=true` does: `File F has CRC32: 0x...`.
    #[arg(long)]
    crc32: bool,
    /// Check the engines' mating PVs too: an exact mate score must come
    /// with a PV of its length ending in checkmate (fastchess's
    /// -check-mate-pvs). Every PV is checked for legal moves, for moves
    /// after the game is over, and for beginning with the move played;
    /// each problem is a warning naming the engine.
    #[arg(long)]
    check_mate_pvs: bool,
    #[command(flatten)]
    lines: Lines,
    /// Seconds a move without a clock (nodes=, depth=) may take before the engine counts as stalled.
    #[arg(long, default_value_t = 60, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    stall_timeout: u64,
    /// Print the final results as JSON on stdout (the running commentary goes to stderr).
    #[arg(long)]
    json: bool,
    /// Finish the match of this journal (its plan has everything; only
    /// --json and what says how to print, --output, --scoreinterval and
    /// --report, go with it).
    #[arg(long, value_name = "JOURNAL", conflicts_with_all = [
        "engine", "each", "tournament", "seeds", "rounds", "games", "repeat", "concurrency", "openings",
        "srand", "variant", "draw", "resign", "maxmoves", "sprt", "recover", "pgnout", "epdout",
        "journal", "no_sync", "log", "log_format", "event", "site", "ratinginterval", "stall_timeout",
        "fresh", "strict_options", "wait", "noswap", "reverse", "engines_json", "shard",
        "shards", "pool",
    ])]
    resume: Option<PathBuf>,
    /// Start the match over an unfinished one's journal: the old journal is
    /// kept as JOURNAL.1 and the games it wrote to the PGN as PGN.1.
    #[arg(long)]
    fresh: bool,
    /// An option an engine does not declare is an error (by default it is
    /// skipped with a warning).
    #[arg(long)]
    strict_options: bool,
    /// Milliseconds to wait between one game and the next of each worker
    /// (cutechess-cli's -wait).
    #[arg(long, value_name = "MS", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=u64::from(MAX_WAIT_MS)))]
    wait: u64,
    /// Play shard K of N of the match (every N-th block of its schedule
    /// from block K), writing PGN.shard-K-of-N (needs --srand and
    /// --pgnout); auto: the numbers of a Slurm job array's task or a
    /// Kubernetes Indexed Job's pod; none: the whole match. Unlike the
    /// EPD and PGN verbs, a match is sharded only when asked (the tasks
    /// of an array often play matches of their own).
    #[arg(long, value_name = "K/N|auto|none")]
    shard: Option<ShardChoice>,
    /// The number of shards, for --shard auto where the scheduler does not
    /// say it (Kubernetes; or set ROOKERY_SHARDS).
    #[arg(long, value_name = "N", requires = "shard", value_parser = clap::value_parser!(u32).range(1..))]
    shards: Option<u32>,
    /// With --shard and --sprt: a directory every shard sees, where they
    /// pool their pairs, so that the SPRT is over all of them and stops
    /// them all.
    #[arg(long, value_name = "DIR", requires = "shard")]
    pool: Option<PathBuf>,
    /// Serve a live page of the match at this address while it runs
    /// (default 127.0.0.1:0: this machine only, a free port; the address
    /// is printed on stderr as `match page: http://ADDR/`): the standings,
    /// W/D/L and pentanomial counts, Elo with its interval, the LLR's path
    /// between its bounds, games per minute and an ETA, the games in
    /// progress on their boards and the finished games; /api/match has the
    /// same as JSON, /api/stream as Server-Sent Events. With --pool the
    /// counts are every shard's, read from the pool every 2 s. The page
    /// has the spectator page's limits (connections, streams, time).
    #[arg(long, value_name = "ADDR:PORT", num_args = 0..=1, default_missing_value = web::DEFAULT_ADDRESS)]
    web: Option<String>,
}

/// The subcommands of `rookery match`.
#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Put the shards of a match played with --shard back together: its
    /// games in schedule order and its statistics, as one run.
    Merge(merge::Args),
}

/// The words of each `--engine` of `match`'s clap matches, grouped by
/// occurrence.
pub fn engine_groups(matches: &clap::ArgMatches) -> Vec<Vec<String>> {
    matches
        .get_occurrences::<String>("engine")
        .map(|o| o.map(|g| g.cloned().collect()).collect())
        .unwrap_or_default()
}

/// A seed: a 64-bit number, a negative one as its two's complement.
fn parse_seed(text: &str) -> Result<u64, String> {
    compat::seed(text).ok_or_else(|| format!("{text:?} is not a whole number"))
}

/// The words with every `conf=NAME` replaced by the words of that engine of
/// cutechess's `engines.json`.
fn expand_conf(words: &[String], file: Option<&Path>) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        let Some(name) = w.strip_prefix("conf=") else {
            out.push(w.clone());
            continue;
        };
        let path = engines_json::locate(file);
        let json = std::fs::read_to_string(&path).map_err(|e| {
            output::usage(format!(
                "{w}: cannot read the engine configurations {}: {e} (name the file with --engines-json)",
                path.display()
            ))
        })?;
        out.extend(engines_json::words_of(&path, &json, name).map_err(output::usage)?);
    }
    Ok(out)
}

/// `--log-format`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    /// rookery's lines.
    Rookery,
    /// cutechess-cli's -debug lines.
    Cutechess,
}

/// How the games are written to the PGN, from the `--pgnout` words after
/// the file name.
fn pgn_style(words: &[String]) -> anyhow::Result<PgnStyle> {
    let mut style = PgnStyle::default();
    for w in words {
        let bad = |why: &str| output::usage(format!("--pgnout {w}: {why}"));
        let flag = |v: &str| match v {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad("expected true or false")),
        };
        match w.split_once('=') {
            None if w == "min" => style.minimal = true,
            None if w == "fi" => style.finished_only = true,
            None => return Err(bad("expected min, fi or a fastchess KEY=VALUE")),
            Some(("min", v)) => style.minimal = flag(v)?,
            Some(("notation", "san")) => {}
            Some(("notation", _)) => {
                return Err(bad("moves are written in SAN only (notation=san)"))
            }
            // append=false: a fresh file, the games in it moved to PGN.N.
            Some(("append", v)) => style.fresh = !flag(v)?,
            // fastchess's n= and sd= in each move's comment.
            Some(("nodes", v)) => style.nodes = flag(v)?,
            Some(("seldepth", v)) => style.seldepth = flag(v)?,
            Some(("nps" | "hashfull" | "tbhits" | "pv" | "timeleft" | "latency", v)) => {
                if flag(v)? {
                    return Err(bad(
                        "not written: a move's comment has its score, depth, time, nodes and \
                         selective depth only",
                    ));
                }
            }
            Some(("match_line", re)) => {
                regex::Regex::new(re)
                    .map_err(|e| bad(&format!("not a regular expression: {e}")))?;
                style.match_line.push(re.to_string());
            }
            Some(_) => return Err(bad("not a key of -pgnout")),
        }
    }
    Ok(style)
}

/// The match `args` ask for, checked: its engines, its schedule and
/// rules, its shard, its outputs.
fn plan_of(args: &Args) -> anyhow::Result<MatchPlan> {
    let mut plan = MatchPlan::new(engines_of(args)?);
    schedule_and_rules(args, &mut plan)?;
    shard_of(args, &mut plan)?;
    outputs_of(args, &mut plan)?;
    Ok(plan)
}

/// The engines of `--engine` (each after `--each`'s words), every one
/// with a program that exists and a limit.
fn engines_of(args: &Args) -> anyhow::Result<Vec<EngineConfig>> {
    let mut engines = Vec::new();
    let conf = args.engines_json.as_deref();
    let each = expand_conf(&args.each, conf)?;
    for words in &args.engine_groups {
        let words = expand_conf(words, conf)?;
        let mut e = EngineConfig::builtin();
        e.apply_all(each.iter().chain(&words).map(String::as_str))
            .map_err(|e| output::usage(e.to_string()))?;
        e.strict_options = args.strict_options;
        if let Some(path) = e.command.program() {
            if !program_exists(&path) {
                return Err(output::usage(format!(
                    "engine {}: no program {} (give its path, or a name found on PATH)",
                    e.label(),
                    path.display()
                )));
            }
        }
        if e.tc.is_infinite() {
            return Err(output::usage(format!(
                "engine {} has no limit, and would search for ever (tc=inf alone is none): \
                 give tc=, st=, nodes= or depth= (or --each tc=...)",
                e.label()
            )));
        }
        engines.push(e);
    }
    if engines.len() < 2 {
        return Err(output::usage("a match needs at least two --engine"));
    }
    Ok(engines)
}

/// The tournament, its schedule, openings, adjudication and SPRT.
fn schedule_and_rules(args: &Args, plan: &mut MatchPlan) -> anyhow::Result<()> {
    plan.pairing = args.tournament;
    match (args.tournament, args.seeds) {
        (Pairing::Knockout, seeds) => plan.seeds = seeds.unwrap_or(0) as usize,
        (_, None | Some(1)) => {}
        (_, Some(n)) => {
            return Err(output::usage(format!(
                "--seeds {n}: only a knockout seeds more than one engine (a gauntlet's seed is its first engine)"
            )))
        }
    }
    if args.tournament == Pairing::Knockout && args.rounds != 1 {
        return Err(output::usage(format!(
            "--rounds {}: a knockout is played once (its rounds are its stages)",
            args.rounds
        )));
    }
    plan.sides = Sides {
        fixed: args.noswap,
        reverse: args.reverse,
    };
    plan.rounds = args.rounds as usize;
    plan.games = if args.repeat { 2 } else { args.games as usize };
    plan.concurrency = args.concurrency as usize;
    plan.chess960 = args.variant != "standard";
    plan.seed = args.srand.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    if !args.openings.is_empty() {
        let book: BookConfig = args
            .openings
            .join(" ")
            .parse()
            .map_err(|e: rookery_event::book::ParseBookError| output::usage(e.to_string()))?;
        plan.book = Some(book);
    }
    let rules = Rules {
        draw: rule_words::<DrawRule>(&args.draw)?,
        resign: rule_words::<ResignRule>(&args.resign)?,
        max_moves: args.maxmoves,
        check_mate_pvs: args.check_mate_pvs,
        ..Rules::default()
    };
    plan.rules = rules;
    if !args.sprt.is_empty() {
        let words = args.sprt.join(" ");
        let sprt: Sprt = words.parse().map_err(|e| output::usage(format!("{e}")))?;
        if plan.engines.len() != 2 {
            return Err(output::usage("--sprt needs exactly two engines"));
        }
        if plan.pairing == Pairing::Knockout {
            return Err(output::usage(
                "--sprt cannot decide a knockout (its games depend on results)",
            ));
        }
        plan.sprt = Some(sprt);
    }
    plan.recover = args.recover;
    Ok(())
}

/// The shard this run plays, if it is one, and its pool.
fn shard_of(args: &Args, plan: &mut MatchPlan) -> anyhow::Result<()> {
    let shard = match args.shard {
        Some(choice) => choice
            .resolve(args.shards)
            .map_err(|e| output::usage(format!("--shard: {e}")))?,
        None => None,
    };
    if shard.is_none() && args.pool.is_some() {
        return Err(output::usage(
            "--pool is for the shards of a match: give --shard K/N or auto",
        ));
    }
    if let Some(shard) = shard {
        let refuse = |why: &str| Err(output::usage(format!("--shard {shard}: {why}")));
        if args.srand.is_none() {
            return refuse(
                "give --srand (the same for every shard: it draws the openings of the games)",
            );
        }
        if args.pgnout.is_empty() {
            return refuse(
                "give --pgnout (each shard writes its part of it, and the merge reads them)",
            );
        }
        if args.journal.is_some() {
            return refuse("a shard's journal is beside its part of the PGN (no --journal)");
        }
        if plan.pairing == Pairing::Knockout {
            return refuse("a knockout cannot be played in shards (its games depend on results)");
        }
        match (&args.pool, plan.sprt.is_some()) {
            (None, true) => {
                return refuse(
                    "an SPRT over the shards needs --pool DIR, a directory every shard sees",
                )
            }
            (Some(_), false) => return refuse("--pool pools an SPRT: give --sprt"),
            _ => {}
        }
        plan.shard = Some(shard);
        plan.pool = args
            .pool
            .as_ref()
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()));
    }
    Ok(())
}

/// The event's names and the files the match writes (a shard's parts of
/// them), each its own and none the book, as absolute paths.
fn outputs_of(args: &Args, plan: &mut MatchPlan) -> anyhow::Result<()> {
    plan.event.clone_from(&args.event);
    plan.site.clone_from(&args.site);
    // The file: the first word (cutechess-cli's `F`), or `file=F` anywhere
    // (fastchess's).
    let pgn = match args.pgnout.as_slice() {
        [] => None,
        [first, rest @ ..] if !first.contains('=') => {
            plan.pgn_style = pgn_style(rest)?;
            Some(PathBuf::from(first))
        }
        words => {
            let file = words
                .iter()
                .find_map(|w| w.strip_prefix("file="))
                .ok_or_else(|| output::usage("--pgnout: name the file (F or file=F)"))?;
            let rest: Vec<String> = words
                .iter()
                .filter(|w| !w.starts_with("file="))
                .cloned()
                .collect();
            plan.pgn_style = pgn_style(&rest)?;
            Some(PathBuf::from(file))
        }
    };
    // cutechess-cli names Chess960 `fischerandom` in its Variant tag.
    plan.pgn_style.fischerandom = args.lines.output == Format::Cutechess;
    // A shard writes its own part of each output.
    let pgn = match plan.shard {
        Some(shard) => pgn.map(|p| shard.part_path(&p)),
        None => pgn,
    };
    plan.wait = Duration::from_millis(args.wait);
    plan.journal = args.journal.clone().or_else(|| {
        pgn.as_ref().map(|p| {
            let mut s = p.clone().into_os_string();
            s.push(".journal");
            PathBuf::from(s)
        })
    });
    plan.pgn_out = pgn;
    plan.epd_out = match plan.shard {
        Some(shard) => args.epdout.as_deref().map(|p| shard.part_path(p)),
        None => args.epdout.clone(),
    };
    plan.log.clone_from(&args.log);
    plan.rating_interval = Some(args.ratinginterval);
    plan.log_style = match args.log_format {
        LogFormat::Rookery => LogStyle::Rookery,
        LogFormat::Cutechess => LogStyle::Cutechess,
    };
    plan.sync = !args.no_sync;
    plan.stall_timeout = Duration::from_secs(args.stall_timeout);
    // Every file the match writes is its own, and none is the book (`--log
    // -` is standard error).
    let log_file = plan.log.as_deref().filter(|p| !output::is_std(p));
    let outputs: Vec<(&str, &Path)> = [
        ("--pgnout", plan.pgn_out.as_deref()),
        ("--epdout", plan.epd_out.as_deref()),
        ("--journal", plan.journal.as_deref()),
        ("--log", log_file),
    ]
    .into_iter()
    .filter_map(|(flag, p)| Some((flag, p?)))
    .collect();
    let book: Vec<&Path> = plan.book.iter().map(|b| b.file.as_path()).collect();
    output::check_outputs(&outputs, &book)?;
    // Absolute paths, so that a resume from another directory finds them.
    for p in [
        &mut plan.pgn_out,
        &mut plan.epd_out,
        &mut plan.log,
        &mut plan.journal,
    ]
    .into_iter()
    .flatten()
    .filter(|p| !output::is_std(p))
    {
        if let Ok(abs) = std::path::absolute(&*p) {
            *p = abs;
        }
    }
    if let Some(b) = plan.book.as_mut() {
        if let Ok(abs) = std::path::absolute(&b.file) {
            b.file = abs;
        }
    }
    Ok(())
}

/// Whether `path` names a program: a file, or a bare name found on PATH.
fn program_exists(path: &Path) -> bool {
    if path.components().count() > 1 || path.is_absolute() {
        return path.is_file();
    }
    std::env::var_os("PATH").is_some_and(|dirs| {
        std::env::split_paths(&dirs)
            .chain([PathBuf::from("/usr/games")])
            .any(|d| d.join(path).is_file())
    })
}

/// What `match` and `match merge` print of the games and results: the
/// lines of rookery, cutechess-cli or fastchess.
#[derive(clap::Args, Debug)]
pub(crate) struct Lines {
    /// The lines printed (as the games go, and the results): rookery's,
    /// or those of cutechess-cli or fastchess.
    #[arg(
        long,
        value_enum,
        default_value_t = Format::Rookery,
        value_name = "rookery|cutechess|fastchess",
        hide_possible_values = true
    )]
    pub(crate) output: Format,
    /// With --output fastchess: penta=true (the default) reports game pairs
    /// (pentanomial), penta=false single games.
    #[arg(long, num_args = 1, value_name = "penta=true|false")]
    report: Option<String>,
}

impl Lines {
    /// Whether fastchess's lines report game pairs (`--report penta=`).
    ///
    /// # Errors
    /// A usage error for another `--report`.
    pub(crate) fn penta(&self) -> anyhow::Result<bool> {
        match self.report.as_deref() {
            None | Some("penta=true") => Ok(true),
            Some("penta=false") => Ok(false),
            Some(other) => Err(output::usage(format!(
                "--report {other}: expected penta=true or penta=false"
            ))),
        }
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    if let Some(Command::Merge(m)) = args.command {
        return merge::run(m);
    }
    let (plan, state) = match &args.resume {
        Some(path) => {
            let state = JournalState::read(path)?;
            let plan = MatchPlan::from_journal(&state)?;
            (plan, Some(state))
        }
        None => (plan_of(&args)?, None),
    };
    let penta = args.lines.penta()?;
    let total = plan.total_games();
    let json = args.json;
    // A live status line on a terminal (stderr), in rookery's own output;
    // the commentary prints above it.
    let bar = (std::io::stderr().is_terminal() && !json && args.lines.output == Format::Rookery)
        .then(|| {
            // A knockout's number of games is known only at its end.
            let known = (plan.pairing != Pairing::Knockout).then_some(total as u64);
            let b = progress::bar("games", known);
            if let Some(s) = &state {
                b.set_position(s.finished().len() as u64);
            }
            b
        });
    let two = plan.engines.len() == 2;
    // A resumed match prints its statistics as often as the one begun did.
    let rating_interval = plan.rating_interval.unwrap_or(args.ratinginterval);
    if (args.result_format.is_some() || args.outcome_interval > 0)
        && args.lines.output != Format::Cutechess
    {
        return Err(UsageError(
            "--result-format and --outcome-interval are cutechess-cli's: they need --output cutechess"
                .into(),
        )
        .into());
    }
    let result_format = match args.result_format.as_deref() {
        Some("help") => {
            print!("{}", result_format::ResultFormat::help());
            return Ok(Status::Ok);
        }
        Some(f) => f
            .parse()
            .map_err(|e: String| UsageError(format!("--result-format {f}: {e}")))?,
        None => result_format::ResultFormat::default(),
    };
    let mut printer = Printer::new(
        args.lines.output,
        &plan,
        rating_interval,
        args.scoreinterval,
        penta,
    )
    .cutechess_tables(result_format, args.outcome_interval);
    // Commentary goes to stdout, or to stderr when stdout carries JSON.
    let say = |lines: Vec<Say>| {
        for line in lines {
            match line {
                Say::Out(l) if !json => match &bar {
                    Some(b) => b.suspend(|| println!("{l}")),
                    None => println!("{l}"),
                },
                Say::Out(l) | Say::Err(l) => eprintln!("{l}"),
            }
        }
    };
    if let Some(s) = &state {
        let done = s.finished().len();
        say(printer.note(&format!(
            "Resuming {}: {done} of {}{total} games finished, {} cut off mid-game",
            s.path.display(),
            if plan.pairing == Pairing::Knockout {
                "at least "
            } else {
                ""
            },
            s.games.values().filter(|g| g.end.is_none()).count()
        )));
    }
    let start = match state {
        Some(s) => Start::Resume(Box::new(s)),
        None if args.fresh => Start::Fresh,
        None => Start::New,
    };
    // Ctrl-C or SIGTERM: stop cleanly (the games in progress are cut after
    // their move, journaled); a second one ends the process at once.
    let interrupt = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, 130, interrupt.clone())?;
        signal_hook::flag::register(signal, interrupt.clone())?;
    }
    let web = match &args.web {
        Some(address) => Some(web::Web::start(address, &plan)?),
        None => None,
    };
    let watcher = web.as_ref().map(|w| w.page() as &dyn GameWatcher);
    let mut print = |ev: MatchEvent<'_>| match ev {
        MatchEvent::Started {
            number,
            white,
            black,
            resumed,
        } => say(printer.started(number, white, black, resumed)),
        MatchEvent::Finished {
            record,
            standings,
            sprt,
        } => {
            say(printer.finished(record, standings, sprt));
            if let Some(b) = &bar {
                b.inc(1);
                if two {
                    let w = standings.versus(0, 1).wdl;
                    b.set_message(format!("{} - {} - {}", w.wins, w.losses, w.draws));
                }
            }
        }
        MatchEvent::Decided(report) => say(printer.decided(report)),
        MatchEvent::Note(n) => say(printer.note(&n)),
        MatchEvent::MissingOption { engine, option } => say(printer.missing_option(engine, option)),
        MatchEvent::RefusedValue {
            engine,
            option,
            value,
        } => say(printer.refused_value(engine, option, value)),
        MatchEvent::PvWarning {
            game,
            engine,
            report,
        } => say(printer.pv_warning(game, engine, report)),
    };
    let result = tournament::run_match_watched(&plan, start, &interrupt, watcher, &mut |ev| {
        if let Some(w) = &web {
            w.page().event(&ev);
        }
        print(ev);
    });
    let summary: MatchSummary = match result {
        Ok(s) => s,
        // A program that cannot start, or an old journal in the way: the
        // command line is to blame.
        Err(
            e @ (MatchError::EngineStart { .. }
            | MatchError::Pool(_)
            | MatchError::Runner(
                RunnerError::Unfinished { .. } | RunnerError::NotAJournal { .. },
            )),
        ) => return Err(output::usage(e.to_string())),
        Err(e) => return Err(e.into()),
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(w) = &web {
        w.page().over(&summary);
    }
    if let (true, Some(pgn)) = (args.crc32, &plan.pgn_out) {
        let crc = std::fs::File::open(pgn)
            .and_then(rookery_io::manifest::crc32_of)
            .map_err(|e| anyhow::anyhow!("{}: {e}", pgn.display()))?;
        say(vec![Say::Out(format!(
            "File {} has CRC32: {crc:#x}",
            pgn.display()
        ))]);
    }
    say(printer.end(&summary));
    if json {
        let mut out = output::stdout();
        serde_json::to_writer_pretty(&mut out, &summary)?;
        writeln!(out)?;
        out.flush()?;
    }
    // An SPRT decision is a normal end; a stop for engine failures is not.
    Ok(match &summary.stopped {
        Some(stop) if stop.is_failure() => Status::InputErrors,
        Some(tournament::MatchStop::Interrupted) => Status::Interrupted,
        _ => Status::Ok,
    })
}

/// Reads a `--draw`/`--resign` rule from its words (none given: no rule).
fn rule_words<T>(words: &[String]) -> anyhow::Result<Option<T>>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    if words.is_empty() {
        return Ok(None);
    }
    let rule = words.join(" ").parse::<T>();
    rule.map(Some).map_err(|e| output::usage(e.to_string()))
}
