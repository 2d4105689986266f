//! `rookery match`: games between engines (cutechess-cli / fastchess vocabulary).

use crate::cmd::progress;
use crate::output::{self, Status};
use rookery_referee::adjudicate::{DrawRule, ResignRule, Rules};
use rookery_referee::book::BookConfig;
use rookery_referee::journal::JournalState;
use rookery_referee::player::EngineConfig;
use rookery_referee::runner::{RunnerError, SprtReport, Start};
use rookery_referee::schedule::Pairing;
use rookery_referee::standings::Standings;
use rookery_referee::stats::{Sprt, SprtConfig, SprtState};
use rookery_referee::tournament::{self, MatchError, MatchEvent, MatchPlan, MatchSummary};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

const AFTER_HELP: &str = "\
Engine words (for --engine and --each; an engine's own words win over --each):
  cmd=PATH|builtin   the program (builtin: rookery's engine, in process)
  name=NAME          its name in the PGN (default: the engine's id name)
  arg=ARG, dir=DIR   a command-line argument (repeatable), the working directory
  option.NAME=VALUE  a UCI option, e.g. option.Hash=64 option.Threads=1
  tc=[MOVES/]SECS[+INC]  a clock: 40/60+0.6, 10+0.1, 0:30 (tc=inf: none)
  st=SECS, nodes=N, depth=N  fixed time, nodes or depth per move
  timemargin=MS      how far a move may overrun the clock (default 0)
  restart=on|off     a new process for every game (default off)
  proto=uci|xboard   its protocol: UCI (default), or xboard/WinBoard (CECP 1 and 2)

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

From cutechess-cli / fastchess: -engine cmd=X -> --engine cmd=X, -each -> --each,
-rounds/-games/-repeat/-concurrency/-recover/-srand/-maxmoves -> the same with
two dashes, -openings file=F format=epd order=random plies=N start=N -> the same,
-pgnout F (fastchess: file=F) -> --pgnout F, -epdout F -> --epdout F,
-draw movenumber=N movecount=N score=N -> the same, -resign movecount=N score=N
[twosided=true] -> the same, -sprt elo0= elo1= alpha= beta= [model=normalized|logistic]
-> the same, -tournament round-robin|gauntlet -> --tournament, -variant
fischerandom -> --variant fischerandom, -debug -> --log FILE, -ratinginterval N
-> --ratinginterval N, -event/-site -> the same.";

/// Flags of `rookery match`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// An engine and its words (repeat the flag for each engine).
    #[arg(long, num_args = 1.., value_name = "WORD", action = clap::ArgAction::Append, required_unless_present = "resume")]
    engine: Vec<String>,
    /// The words of each `--engine`, grouped by occurrence (clap's derive
    /// flattens them; `main` fills this from the matches).
    #[arg(skip)]
    pub engine_groups: Vec<Vec<String>>,
    /// Words applied to every engine before its own.
    #[arg(long, num_args = 1.., value_name = "WORD")]
    each: Vec<String>,
    /// How the engines are paired.
    #[arg(
        long,
        default_value = "round-robin",
        value_name = "round-robin|gauntlet"
    )]
    tournament: Pairing,
    /// Rounds: every encounter is played this many times.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    rounds: u32,
    /// Games per encounter and round; 2 plays each opening with colours reversed.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    games: u32,
    /// Play each opening twice with colours reversed (= --games 2).
    #[arg(long)]
    repeat: bool,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: u32,
    /// The opening book: file=F [format=epd|pgn] [order=random|sequential] [plies=N] [start=N].
    #[arg(long, num_args = 1.., value_name = "WORD")]
    openings: Vec<String>,
    /// Seed for the random opening order and Chess960 starts (default: from the clock).
    #[arg(long)]
    srand: Option<u64>,
    /// standard or fischerandom (Chess960: random starts unless --openings).
    #[arg(long, default_value = "standard", value_parser = ["standard", "fischerandom", "chess960"])]
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
    /// Stop when the SPRT decides: elo0=0 elo1=5 alpha=0.05 beta=0.05 [model=normalized|logistic].
    #[arg(long, num_args = 1.., value_name = "WORD")]
    sprt: Vec<String>,
    /// After a crash or stall, restart the engine and go on (otherwise the match stops).
    #[arg(long)]
    recover: bool,
    /// Append the games to this PGN file (`F` or `file=F`).
    #[arg(long, num_args = 1.., value_name = "FILE")]
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
    /// Log every line sent to and received from every engine to FILE.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// The Event tag.
    #[arg(long, default_value = "rookery match")]
    event: String,
    /// The Site tag.
    #[arg(long, default_value = "?")]
    site: String,
    /// Print the statistics every N games (and at the end).
    #[arg(long, default_value_t = 10, value_name = "N")]
    ratinginterval: usize,
    /// Seconds a move without a clock (nodes=, depth=) may take before the engine counts as stalled.
    #[arg(long, default_value_t = 60, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    stall_timeout: u64,
    /// Print the final results as JSON on stdout (the running commentary goes to stderr).
    #[arg(long)]
    json: bool,
    /// Finish the match of this journal (its plan has everything; only
    /// --json goes with it).
    #[arg(long, value_name = "JOURNAL", conflicts_with_all = [
        "engine", "each", "tournament", "rounds", "games", "repeat", "concurrency", "openings",
        "srand", "variant", "draw", "resign", "maxmoves", "sprt", "recover", "pgnout", "epdout",
        "journal", "no_sync", "log", "event", "site", "ratinginterval", "stall_timeout",
        "fresh", "strict_options", "wait",
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
    #[arg(long, value_name = "MS", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    wait: u64,
}

fn plan_of(args: &Args) -> anyhow::Result<MatchPlan> {
    let mut engines = Vec::new();
    for words in &args.engine_groups {
        let mut e = EngineConfig::builtin();
        for w in args.each.iter().chain(words) {
            e.apply(w).map_err(|e| output::usage(e.to_string()))?;
        }
        e.strict_options = args.strict_options;
        if let rookery_referee::player::EngineCommand::External { path, .. } = &e.command {
            if !program_exists(path) {
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
    let mut plan = MatchPlan::new(engines);
    plan.pairing = args.tournament;
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
            .map_err(|e: rookery_referee::book::ParseBookError| output::usage(e.to_string()))?;
        plan.book = Some(book);
    }
    let rules = Rules {
        draw: rule_words::<DrawRule>(&args.draw)?,
        resign: rule_words::<ResignRule>(&args.resign)?,
        max_moves: args.maxmoves,
        ..Rules::default()
    };
    plan.rules = rules;
    if !args.sprt.is_empty() {
        let words = args.sprt.join(" ");
        let cfg: SprtConfig = words.parse().map_err(|e| output::usage(format!("{e}")))?;
        Sprt::new(cfg).map_err(|e| output::usage(format!("{e}")))?;
        if plan.engines.len() != 2 {
            return Err(output::usage("--sprt needs exactly two engines"));
        }
        plan.sprt = Some(words);
    }
    plan.recover = args.recover;
    plan.event.clone_from(&args.event);
    plan.site.clone_from(&args.site);
    let pgn = match args.pgnout.as_slice() {
        [] => None,
        [one] => Some(PathBuf::from(one.strip_prefix("file=").unwrap_or(one))),
        more => {
            let file = more
                .iter()
                .find_map(|w| w.strip_prefix("file="))
                .ok_or_else(|| output::usage("--pgnout takes a file name or file=NAME"))?;
            Some(PathBuf::from(file))
        }
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
    plan.epd_out.clone_from(&args.epdout);
    plan.log.clone_from(&args.log);
    plan.sync = !args.no_sync;
    plan.stall_timeout = Duration::from_secs(args.stall_timeout);
    // Every file the match writes is its own, and none is the book.
    let outputs: Vec<(&str, &Path)> = [
        ("--pgnout", plan.pgn_out.as_deref()),
        ("--epdout", plan.epd_out.as_deref()),
        ("--journal", plan.journal.as_deref()),
        ("--log", plan.log.as_deref()),
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
    Ok(plan)
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

/// cutechess-cli's running score line: `Score of A vs B: W - L - D [0.550] N`.
fn score_line(s: &Standings) -> String {
    let w = s.versus(0, 1).wdl;
    let games = w.games();
    let pts = w.wins as f64 + 0.5 * w.draws as f64;
    format!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
        s.names()[0],
        s.names()[1],
        w.wins,
        w.losses,
        w.draws,
        if games == 0 { 0.0 } else { pts / games as f64 },
        games
    )
}

/// The ranking of three or more engines: points, games, W/D/L and each
/// engine's Elo against the field with its 95% interval; then the
/// cross-table.
fn table(s: &Standings) -> String {
    let mut out = format!(
        "{:<4} {:<28} {:>7} {:>6} {:>14} {:>18}\n",
        "Rank", "Name", "Points", "Games", "W/D/L", "Elo (95%)"
    );
    for (rank, &i) in s.ranking().iter().enumerate() {
        let w = s.player(i);
        let elo = w.estimate().map_or_else(
            || "-".to_string(),
            |e| format!("{:+.0} +/- {:.0}", e.elo, e.elo_error()),
        );
        out.push_str(&format!(
            "{:<4} {:<28} {:>7.1} {:>6} {:>14} {:>18}\n",
            rank + 1,
            s.names()[i],
            s.points(i),
            w.games(),
            format!("{}/{}/{}", w.wins, w.draws, w.losses),
            elo
        ));
    }
    let n = s.names().len();
    let order = s.ranking();
    out.push_str(&format!("\n{:<28}", "Cross-table"));
    for &j in &order {
        out.push_str(&format!(" {:>8}", abbreviate(&s.names()[j], 8)));
    }
    out.push('\n');
    for &i in &order {
        out.push_str(&format!("{:<28}", abbreviate(&s.names()[i], 28)));
        for &j in &order {
            let cell = s.cross_cell(i, j).unwrap_or_else(|| "x".into());
            out.push_str(&format!(" {cell:>8}"));
        }
        out.push('\n');
    }
    let _ = n;
    out
}

fn abbreviate(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        name.to_string()
    } else {
        name.chars()
            .take(width.saturating_sub(1))
            .chain(['~'])
            .collect()
    }
}

/// The SPRT's words on a decision.
fn decision_text(report: &SprtReport) -> Option<String> {
    let d = report.decision.as_ref()?;
    let st = &d.status;
    let w = &d.tally.wdl;
    let verdict = match st.state {
        SprtState::AcceptH0 => format!(
            "H0 accepted (LLR {:.2} <= {:.2}): the change is not an improvement of the size tested",
            st.llr, st.lower
        ),
        SprtState::AcceptH1 => format!("H1 accepted (LLR {:.2} >= {:.2})", st.llr, st.upper),
        SprtState::Continue => return None,
    };
    let pairs = d.tally.ptnml.counts;
    Some(format!(
        "SPRT: {verdict}, decided on {} games (W/D/L {}/{}/{}, Ptnml(0-2) [{}, {}, {}, {}, {}])",
        w.games(),
        w.wins,
        w.draws,
        w.losses,
        pairs[0],
        pairs[1],
        pairs[2],
        pairs[3],
        pairs[4]
    ))
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    let (plan, state) = match &args.resume {
        Some(path) => {
            let state = JournalState::read(path)?;
            let plan = MatchPlan::from_journal(&state)?;
            (plan, Some(state))
        }
        None => (plan_of(&args)?, None),
    };
    let sprt = plan
        .sprt
        .as_deref()
        .and_then(|w| w.parse::<SprtConfig>().ok())
        .and_then(|c| Sprt::new(c).ok());
    let total = plan.total_games();
    let json = args.json;
    // A live status line on a terminal (stderr); the commentary prints above it.
    let bar = (std::io::stderr().is_terminal() && !json).then(|| {
        let b = progress::bar("games", Some(total as u64));
        if let Some(s) = &state {
            b.set_position(s.finished().len() as u64);
        }
        b
    });
    let interval = args.ratinginterval.max(1);
    let two = plan.engines.len() == 2;
    // Commentary goes to stdout, or to stderr when stdout carries JSON.
    let say = |line: &str| {
        if json {
            eprintln!("{line}");
        } else if let Some(b) = &bar {
            b.suspend(|| println!("{line}"));
        } else {
            println!("{line}");
        }
    };
    if let Some(s) = &state {
        let done = s.finished().len();
        say(&format!(
            "Resuming {}: {done} of {total} games finished, {} cut off mid-game",
            s.path.display(),
            s.games.values().filter(|g| g.end.is_none()).count()
        ));
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
    let result = tournament::run_match(&plan, start, &interrupt, &mut |ev| match ev {
        MatchEvent::Started {
            number,
            white,
            black,
            resumed,
        } => say(&format!(
            "{} game {} of {total} ({white} vs {black})",
            if resumed { "Resumed" } else { "Started" },
            number + 1
        )),
        MatchEvent::Finished { record, standings } => {
            say(&format!(
                "Finished game {} ({} vs {}): {} {{{}}}",
                record.number + 1,
                record.white,
                record.black,
                record.outcome.as_str(),
                record.reason
            ));
            if two {
                say(&score_line(standings));
            }
            if let Some(b) = &bar {
                b.inc(1);
                if two {
                    let w = standings.versus(0, 1).wdl;
                    b.set_message(format!("{} - {} - {}", w.wins, w.losses, w.draws));
                }
            }
            if standings.games() % interval as u64 == 0 {
                if two {
                    say(&format!(
                        "{}",
                        standings.versus(0, 1).summary(sprt.as_ref())
                    ));
                } else {
                    say(table(standings).trim_end());
                }
            }
        }
        MatchEvent::Decided(report) => {
            if let Some(text) = decision_text(report) {
                say(&text);
            }
        }
        MatchEvent::Note(n) => say(&n),
    });
    let summary: MatchSummary = match result {
        Ok(s) => s,
        // A program that cannot start, or an old journal in the way: the
        // command line is to blame.
        Err(
            e @ (MatchError::EngineStart { .. }
            | MatchError::Runner(
                RunnerError::Unfinished { .. } | RunnerError::NotAJournal { .. },
            )),
        ) => return Err(output::usage(e.to_string())),
        Err(e) => return Err(e.into()),
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let s = &summary.standings;
    // The final table, unless the last game's periodic one already said it.
    let said = s.games() > 0 && s.games() % interval as u64 == 0;
    if two {
        if s.games() == 0 {
            say(&score_line(s));
        }
        if !said {
            say(&format!("{}", s.versus(0, 1).summary(sprt.as_ref())));
        }
    } else if !said {
        say(table(s).trim_end());
    }
    if let Some(report) = &summary.sprt {
        match decision_text(report) {
            Some(text) => {
                say(&text);
                let counted = report.decision.as_ref().map_or(0, |d| d.tally.wdl.games());
                let played = s.versus(0, 1).wdl.games();
                if played > counted {
                    say(&format!(
                        "SPRT over all {played} games played (the games in progress when it decided finished after it): LLR {:.2} ({:.2}, {:.2})",
                        report.last.llr, report.last.lower, report.last.upper
                    ));
                }
            }
            None => say(&format!(
                "SPRT: LLR {:.2} ({:.2}, {:.2}): no decision yet",
                report.last.llr, report.last.lower, report.last.upper
            )),
        }
    }
    if let Some((median, p99)) = summary.overhead_us {
        say(&format!(
            "Referee time per move: median {median} us, 99th percentile {p99} us; time forfeits: {}",
            s.time_forfeits()
        ));
    }
    match &summary.stopped {
        Some(tournament::MatchStop::EngineFailure(why)) => say(&format!(
            "Stopped: {why} ({} games not played)",
            summary.unplayed
        )),
        Some(tournament::MatchStop::Interrupted) => say(&format!(
            "Interrupted: {} games not played; `rookery match --resume JOURNAL` finishes the match",
            summary.unplayed
        )),
        _ => {}
    }
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
