//! `rookery pgn`: validate | normalize | to-epd | stats | from-epd | annotate
//! | eco | tree | split | sort | cat | filter | dedupe. This file holds the
//! verbs' flags and sends each to its home: the streaming verbs to
//! [`stream`], the collection verbs to a file each (`cat.rs`, `filter.rs`,
//! ...) over [`copy`], annotate to `cmd/annotate.rs`.
//!
//! Every verb streams with constant memory and keeps the input order; with
//! `--jobs N` the input is cut into pieces where games start, N threads read
//! and handle them, and the output is written in input order, exactly as one
//! thread writes it (see `rookery_pgn::split`). Problems are reported as
//! `file:line:col: error|warning: message` (on stdout for `validate`, on
//! stderr otherwise). A game with an error (an illegal or ambiguous move, a bad
//! FEN tag, an unsupported variant) is reported; in lenient mode it is skipped
//! and the next game is read, in strict mode reading stops there.

use crate::cmd::shard::ShardArgs;
use crate::flags::Files;
use crate::output::{self, Status};
use rookery_pgn::convert::EpdOptions;
use rookery_pgn::stream::{Plan, Task};
use std::io::Write;
use std::path::PathBuf;
use stream::{from_epd, print_stats, run_plan, status, write_plan, write_shard, Common};

pub mod cat;
pub mod copy;
pub mod dedupe;
mod eco;
pub mod filter;
pub(crate) mod reading;
pub mod sort;
pub mod split;
mod stream;
pub(crate) mod tree;
pub(crate) use eco::merged_summary as merged_eco_summary;

/// Flags of `rookery pgn`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  rookery pgn validate games.pgn\n  rookery pgn normalize --jobs 2 big.pgn -o clean.pgn\n  rookery pgn to-epd --ptp --comments games.pgn -o positions.epd\n  rookery pgn stats --json *.pgn\n  rookery pgn from-epd suite.epd"
)]
pub struct Args {
    #[command(subcommand)]
    verb: Verb,
}

#[derive(clap::Subcommand, Debug)]
enum Verb {
    /// Check every game (every move, in variations too, tags, markers) and
    /// report each problem on stdout; exit status 1 if any game has an error.
    Validate {
        /// Input files (`-` for stdin).
        #[arg(default_value = "-")]
        inputs: Vec<PathBuf>,
        /// Warnings count as errors for the exit status.
        #[arg(long)]
        strict: bool,
        /// One JSON object per problem, then a summary object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Write the games in PGN export format (Seven Tag Roster first, 80-column
    /// movetext, SAN recomputed, NAGs as $n, comments and variations kept).
    /// Strict by default: reading stops at the first game with an error.
    Normalize {
        #[command(flatten)]
        files: Files,
        /// Report a game with an error, skip it and go on.
        #[arg(long)]
        lenient: bool,
        /// Correct the Result tag and the game-termination marker as
        /// `pgn-extract --fixresulttags` does: a game that ends in mate or
        /// stalemate gets that result; a tag and a marker that disagree,
        /// one of them `*`, both get the marker's. (Each game whose last
        /// position contradicts its result is still named in a warning.)
        #[arg(long)]
        fix_results: bool,
        /// Set the ECO, Opening and Variation tags from the game's moves,
        /// as `pgn eco` does.
        #[arg(long)]
        eco: bool,
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        shard: ShardArgs,
    },
    /// One EPD record per mainline position (hmvc, fmvn, sm = the move played
    /// from it, id from the tags and game index), or FEN lines with `--fen`.
    /// Lenient by default: a game with an error is reported and skipped.
    ToEpd {
        #[command(flatten)]
        files: Files,
        /// Write one FEN per line instead of EPD records.
        #[arg(long)]
        fen: bool,
        /// Add `ptp` with the Seven Tag Roster.
        #[arg(long)]
        ptp: bool,
        /// Add `c0` with the comment after the move played from the position.
        #[arg(long)]
        comments: bool,
        /// Stop at the first game with an error.
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        shard: ShardArgs,
    },
    /// Count games, moves, results, errors; name the longest game; the ECO
    /// distribution. Lenient by default.
    Stats {
        /// Input files (`-` for stdin).
        #[arg(default_value = "-")]
        inputs: Vec<PathBuf>,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
        /// Stop at the first game with an error.
        #[arg(long)]
        strict: bool,
        /// Count the ECO codes of the openings the games' moves reach (as
        /// `pgn eco` finds them) instead of their ECO tags.
        #[arg(long)]
        eco: bool,
        #[command(flatten)]
        common: Common,
    },
    /// One game per EPD record: the position as SetUp/FEN, its `sv` (else
    /// `pv`) as the moves, `id` as the Event.
    FromEpd {
        /// Input file (`-` for stdin).
        #[arg(default_value = "-")]
        input: PathBuf,
        /// Output file (`-` for stdout), replaced when the run finishes.
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        /// Allow the output to be the input.
        #[arg(long)]
        in_place: bool,
    },
    /// Judge every move of every game with an engine: [%eval] on each
    /// mainline move, ?!/?/?? by the drop in winning chances, the better
    /// line at mistakes and blunders, per-player ACPL/accuracy tags and
    /// summary; optionally an HTML page (--html).
    Annotate(crate::cmd::annotate::AnnotateArgs),
    /// Set the ECO, Opening and Variation tags of every game from the
    /// lichess opening table (by position: transpositions count); every
    /// other byte is copied as it was.
    Eco(eco::EcoArgs),
    /// The opening explorer: for each move from a position (found in every
    /// game, transpositions included), the games, results, average Elo and
    /// performance; with --depth, a tree.
    Tree(tree::TreeArgs),
    /// Split games into files, N a file or one file per value of a tag (ECO, Event, Date:year...).
    Split(split::SplitArgs),
    /// Sort games by tags (Date,Round, any tag), stably; past --memory in runs on disk.
    Sort(sort::SortArgs),
    /// Join several inputs into one, every game copied byte for byte.
    Cat(cat::CatArgs),
    /// Keep the games that pass tests on tags (relational, regex), players,
    /// ratings, dates, ECO, length, result, positions, material, opening
    /// moves, endings; copied byte for byte.
    Filter(filter::FilterArgs),
    /// Drop the games that repeat an earlier one's moves (same final
    /// position by the same positions), keeping the first; copied byte for byte.
    Dedupe(dedupe::DedupeArgs),
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    match args.verb {
        Verb::Validate {
            inputs,
            strict,
            json,
            common,
        } => {
            let plan = common.plan(Task::Validate, false);
            let stats = {
                let mut diag = output::stdout();
                run_plan(plan, &inputs, &mut std::io::sink(), &mut diag, json)?
            };
            let mut out = output::stdout();
            if json {
                let v = serde_json::json!({
                    "summary": true,
                    "games": stats.games,
                    "errors": stats.error_games,
                    "warnings": stats.warnings,
                });
                writeln!(out, "{v}")?;
            } else {
                writeln!(
                    out,
                    "{} games, {} with errors, {} warnings",
                    stats.games, stats.error_games, stats.warnings
                )?;
            }
            out.flush()?;
            Ok(status(&stats, strict))
        }
        Verb::Normalize {
            files,
            lenient,
            fix_results,
            eco,
            common,
            shard,
        } => {
            let plan = Plan {
                classify: eco,
                ..common.plan(Task::Normalize { fix_results }, !lenient)
            };
            match shard.resolve()? {
                Some(s) => write_shard(plan, &files, s, &shard, "pgn normalize"),
                None => write_plan(plan, &files),
            }
        }
        Verb::ToEpd {
            files,
            fen,
            ptp,
            comments,
            strict,
            common,
            shard,
        } => {
            let task = Task::ToEpd {
                fen,
                opts: EpdOptions { ptp, comments },
            };
            let plan = common.plan(task, strict);
            match shard.resolve()? {
                Some(s) => write_shard(plan, &files, s, &shard, "pgn to-epd"),
                None => write_plan(plan, &files),
            }
        }
        Verb::Stats {
            inputs,
            json,
            strict,
            eco,
            common,
        } => {
            let plan = Plan {
                classify: eco,
                ..common.plan(Task::Stats, strict)
            };
            let stats = run_plan(
                plan,
                &inputs,
                &mut std::io::sink(),
                &mut std::io::stderr(),
                false,
            )?;
            let mut out = output::stdout();
            print_stats(&mut out, &stats, json)?;
            out.flush()?;
            Ok(status(&stats, false))
        }
        Verb::FromEpd {
            input,
            output,
            in_place,
        } => from_epd(&input, &output, in_place),
        Verb::Annotate(a) => crate::cmd::annotate::run(a),
        Verb::Eco(a) => eco::run(a),
        Verb::Tree(a) => tree::run(a),
        Verb::Split(a) => split::run(a),
        Verb::Sort(a) => sort::run(a),
        Verb::Cat(a) => cat::run(a),
        Verb::Filter(a) => filter::run(a),
        Verb::Dedupe(a) => dedupe::run(a),
    }
}
