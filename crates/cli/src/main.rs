//! `rookery`: the command-line front end of the rookery chess toolkit.
//!
//! Each subcommand lives in its own module under `cmd/`: it parses its flags
//! (clap), calls one library function and prints. Exit status: 0 success,
//! 1 the input had errors (reported; the rest was still processed), 2 usage.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use cmd::matches::compat::{CompatError, PeerError, PeerLine};
use std::ffi::OsString;
use std::process::ExitCode;

mod cmd;
#[cfg(test)]
mod doc_commands;
mod flags;
mod input;
mod output;

/// A chess toolkit: FEN, SAN, EPD and PGN tools for large collections, a UCI
/// engine and a host for any engine, test suites and their reports, games
/// between engines, the Argus network referee. `rookery guide` has a
/// chapter a job.
#[derive(Parser, Debug)]
#[command(name = "rookery", version, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaf nodes of the legal move tree (move-generator test and benchmark).
    Perft(cmd::perft::Args),
    /// Show a position: board, state, and every legal move in SAN and UCI.
    Show(cmd::show::Args),
    /// EPD tools: normalize (pfdn), purge (pfop), validate, convert; analyse (pfga), mate (pfms), target (pfts).
    Epd(cmd::epd::Args),
    /// PGN tools: validate, normalize, to-epd, stats, from-epd, annotate, eco, tree, split, sort, cat, filter, dedupe.
    Pgn(cmd::pgn::Args),
    /// Run the built-in engine as a UCI engine on stdin/stdout.
    Uci(cmd::uci::Args),
    /// Engine search benchmark: fixed positions and depth; node signature and nodes/s.
    Bench(cmd::bench::Args),
    /// Run test suites with an engine (built-in or UCI), score them, write a report.
    Suite(cmd::suite::Args),
    /// Reports from suite results, JSON or analysed EPD (Gastric): totals, themes, curves, McNemar comparisons, CI gates.
    Report(cmd::report::Args),
    /// Games between engines: matches, gauntlets, round-robins, SPRT; resumable.
    Match(Box<cmd::matches::Args>),
    /// The Argus network referee (EPD refcom/refreq over TCP) and its client adapter.
    Referee(cmd::referee::Args),
    /// Polyglot opening books: build from games, show, merge.
    Book(cmd::book::Args),
    /// Put the parts of a sharded run (--shard K/N) together into the output one run writes.
    Merge(cmd::merge::Args),
    /// The indexed game database: import games once, then explore them in milliseconds.
    Db(cmd::db::Args),
    /// The guide: one chapter a job (matches, collections, books, the referee, clusters, Python, ...).
    Guide(cmd::guide::Args),
}

/// What the command line is: words for clap, or a cutechess-cli or
/// fastchess command line after `match` already read into `match`'s typed
/// arguments (see `cmd::matches::compat`).
enum Arguments {
    /// rookery's own words (a peer's `-help` and `-version` are
    /// `rookery match --help` and `--version`).
    Words(Vec<OsString>),
    /// A peer's match.
    Peer(Box<cmd::matches::Args>),
}

/// The command line, with a cutechess-cli or fastchess command line after
/// `match` (or a program called by either name) read into `match`'s
/// arguments by `cmd::matches::compat`.
fn arguments(mut argv: Vec<OsString>) -> Result<Arguments, PeerError> {
    let called = argv
        .first()
        .and_then(|a| a.to_str())
        .and_then(cmd::matches::compat::Dialect::of_program)
        .is_some();
    if called {
        // `cutechess-cli ARGS` through a link: `rookery match cutechess-cli ARGS`.
        let program = argv[0].clone();
        argv.splice(0..1, [OsString::from("rookery"), "match".into(), program]);
    }
    if argv.get(1).is_none_or(|a| a != "match") {
        return Ok(Arguments::Words(argv));
    }
    let rest: Vec<String> = argv[2..]
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if !cmd::matches::compat::is_peer_line(&rest) {
        return Ok(Arguments::Words(argv));
    }
    if let Some(a) = argv[2..].iter().find(|a| a.to_str().is_none()) {
        return Err(PeerError::Word(CompatError {
            word: a.to_string_lossy().into_owned(),
            reason: "not UTF-8".into(),
        }));
    }
    // clap names the program as the command line does.
    let bin = std::path::Path::new(&argv[0])
        .file_name()
        .map_or("rookery".into(), |n| n.to_string_lossy().into_owned());
    let asked = |flag: &str| Arguments::Words(vec![argv[0].clone(), "match".into(), flag.into()]);
    Ok(
        match cmd::matches::compat::translate(Cli::command().bin_name(bin), &rest)? {
            PeerLine::Help => asked("--help"),
            PeerLine::Version => asked("--version"),
            PeerLine::Match(args) => Arguments::Peer(args),
        },
    )
}

/// clap's reading of rookery's own words, with `match`'s engine words
/// grouped per engine (which the derive cannot express).
fn parse(argv: Vec<OsString>) -> Result<Cli, clap::Error> {
    let matches = Cli::command().try_get_matches_from(argv)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    if let (Command::Match(args), Some(sub)) =
        (&mut cli.command, matches.subcommand_matches("match"))
    {
        args.engine_groups = cmd::matches::engine_groups(sub);
    }
    // The verb's -q silences the warnings printed outside its own
    // reports too (the Latin-1 warning).
    crate::input::set_quiet(quiet_asked(&matches));
    Ok(cli)
}

/// Whether the verb run (the innermost subcommand of `m`) was given `-q`.
fn quiet_asked(m: &clap::ArgMatches) -> bool {
    match m.subcommand() {
        Some((_, sub)) => quiet_asked(sub),
        None => matches!(m.try_get_one::<bool>("quiet"), Ok(Some(true))),
    }
}

fn main() -> ExitCode {
    let parsed = match arguments(std::env::args_os().collect()) {
        Ok(Arguments::Words(argv)) => parse(argv),
        Ok(Arguments::Peer(args)) => Ok(Cli {
            command: Command::Match(args),
        }),
        Err(PeerError::Clap(e)) => Err(e),
        Err(PeerError::Word(e)) => return output::finish(Err(output::usage(e.to_string()))),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; usage errors exit 2.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Perft(args) => cmd::perft::run(args),
        Command::Show(args) => cmd::show::run(args),
        Command::Epd(args) => cmd::epd::run(args),
        Command::Pgn(args) => cmd::pgn::run(args),
        Command::Uci(args) => cmd::uci::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Suite(args) => cmd::suite::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::Match(args) => cmd::matches::run(*args),
        Command::Referee(args) => cmd::referee::run(args),
        Command::Book(args) => cmd::book::run(args),
        Command::Guide(args) => cmd::guide::run(args),
        Command::Db(args) => cmd::db::run(args),
        Command::Merge(args) => cmd::merge::run(args),
    };
    output::finish(result)
}
