//! `rookery pgn`: validate | normalize | to-epd | stats | from-epd | annotate
//! | eco | tree | split | sort | cat | filter | dedupe (annotate: see
//! `cmd/annotate.rs`; the others each in its own `cmd/pgn_*.rs` file).
//!
//! Every verb streams with constant memory and keeps the input order; with
//! `--jobs N` the input is cut into pieces where games start, N threads read
//! and handle them, and the output is written in input order, exactly as one
//! thread writes it (see `rookery_pgn::split`). Problems are reported as
//! `file:line:col: error|warning: message` (on stdout for `validate`, on
//! stderr otherwise). A game with an error (an illegal or ambiguous move, a bad
//! FEN tag, an unsupported variant) is reported; in lenient mode it is skipped
//! and the next game is read, in strict mode reading stops there.

use crate::cmd::shard::{self, Job, ShardArgs};
use crate::output::{self, Output, Status};
use rookery_pgn::convert::EpdOptions;
use rookery_pgn::source::Source;
use rookery_pgn::split::Start;
use rookery_pgn::stream::{self, CutGuard, Diag, Part, Plan, Stats, StreamError, Task};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

#[path = "pgn_eco.rs"]
mod eco;
pub(crate) use eco::merged_summary as merged_eco_summary;
#[path = "pgn_tree.rs"]
pub(crate) mod tree;

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
    Split(crate::cmd::pgn_split::SplitArgs),
    /// Sort games by tags (Date,Round, any tag), stably; past --memory in runs on disk.
    Sort(crate::cmd::pgn_sort::SortArgs),
    /// Join several inputs into one, every game copied byte for byte.
    Cat(crate::cmd::pgn_cat::CatArgs),
    /// Keep the games that pass tests on tags (relational, regex), players,
    /// ratings, dates, ECO, length, result, positions, material, opening
    /// moves, endings; copied byte for byte.
    Filter(crate::cmd::pgn_filter::FilterArgs),
    /// Drop the games that repeat an earlier one's moves (same final
    /// position by the same positions), keeping the first; copied byte for byte.
    Dedupe(crate::cmd::pgn_dedupe::DedupeArgs),
}

/// The inputs and the output of a verb that writes games or records.
#[derive(clap::Args, Debug)]
struct Files {
    /// Input files (`-` for stdin).
    #[arg(default_value = "-")]
    inputs: Vec<PathBuf>,
    /// Output file (`-` for stdout), replaced when the run finishes.
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    /// Allow the output to be one of the inputs.
    #[arg(long)]
    in_place: bool,
}

#[derive(clap::Args, Debug)]
struct Common {
    /// Parse with N threads. The input is cut where games start; the
    /// output is exactly that of one thread, in input order. (A file with
    /// neither tags nor result tokens has no such place and is held whole in
    /// memory.)
    #[arg(short, long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: u32,
    /// Do not report warnings.
    #[arg(short, long)]
    quiet: bool,
    /// Bytes per chunk with --jobs (for tests).
    #[arg(long, hide = true, default_value_t = 1 << 20)]
    chunk_bytes: usize,
}

impl Common {
    /// The plan for `task` with these flags.
    fn plan(&self, task: Task, strict: bool) -> Plan {
        Plan {
            task,
            strict,
            quiet: self.quiet,
            jobs: self.jobs as usize,
            chunk_bytes: self.chunk_bytes,
            classify: false,
        }
    }
}

fn display_name(path: &Path) -> String {
    output::display_name(path)
}

/// What a verb that reads games says when reading `file` failed: the
/// reader's own error when it names the input already, else the error
/// with `cannot read FILE`; a failure of the verb's own sink as it is.
pub(crate) fn read_failure(e: StreamError<anyhow::Error>, file: &str) -> anyhow::Error {
    match e {
        StreamError::Read(e) if output::names_its_input(&e) => anyhow::Error::new(e),
        StreamError::Read(e) => anyhow::Error::new(e).context(format!("cannot read {file}")),
        StreamError::Sink(e) => e,
    }
}

/// A byte-count progress bar on stderr, only when stderr is a terminal:
/// against the file's size (compressed, for a compressed file).
pub(crate) fn progress(path: &Path) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = match rookery_io::input::file_len(path) {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(display_name(path));
    Some(pb)
}

/// Reads one input, opened, and hands each part, in order, to `sink`;
/// with `part`, only a shard's part of it: from its start to the byte it
/// ends at (see [`rookery_pgn::source::game_span`]).
fn process_file(
    plan: &Plan,
    path: &Path,
    input: rookery_io::input::Input,
    part: Option<(Start, Option<u64>)>,
    sink: &mut dyn FnMut(Part) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let file = display_name(path);
    let pb = progress(path);
    // Progress in bytes of the file: those of the text, or for a
    // compressed file those its decompressor has read.
    // A compressed file also says how much text it gave (a file that
    // expands a thousandfold moves its bar slowly, never stops).
    let compressed = input.compressed_progress();
    let mut progress = |bytes: u64| {
        if let Some(pb) = &pb {
            match &compressed {
                Some(c) => {
                    pb.set_position(c.load(std::sync::atomic::Ordering::Relaxed));
                    pb.set_message(format!("{file} ({} of text)", indicatif::HumanBytes(bytes)));
                }
                None => pb.set_position(bytes),
            }
        }
    };
    let name = file.clone();
    let mut source = Source::input(input).on_latin1(move |line| output::warn_latin1(&name, line));
    if let Some((start, end)) = part {
        source = source.part(start, end);
    }
    let done = stream::run(plan, source, &file, &mut progress, sink);
    done.map_err(|e| read_failure(e, &file))?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok(())
}

pub(crate) fn print_diag(
    out: &mut dyn Write,
    file: &str,
    d: &Diag,
    json: bool,
) -> std::io::Result<()> {
    if json {
        let v = serde_json::json!({
            "file": file,
            "line": d.line,
            "column": d.col,
            "severity": if d.error { "error" } else { "warning" },
            "game": d.game,
            "message": d.message,
        });
        writeln!(out, "{v}")
    } else {
        let sev = if d.error { "error" } else { "warning" };
        writeln!(out, "{file}:{}:{}: {sev}: {}", d.line, d.col, d.message)
    }
}

/// Runs `plan` over `inputs`, writing text output to `out` and diagnostics to
/// `diag_out`; returns the merged stats.
fn run_plan(
    plan: Plan,
    inputs: &[PathBuf],
    out: &mut dyn Write,
    diag_out: &mut dyn Write,
    json_diags: bool,
) -> anyhow::Result<Stats> {
    let (stats, _) = run_inputs(plan, inputs, None, out, diag_out, json_diags, &mut |_| {})?;
    Ok(stats)
}

/// [`run_plan`], of a shard's part of each input with `part` (see
/// [`process_file`]); `done` hears the games read so far. Also says
/// whether the run stopped at an error (strict).
fn run_inputs(
    plan: Plan,
    inputs: &[PathBuf],
    part: Option<(Start, Option<u64>)>,
    out: &mut dyn Write,
    diag_out: &mut dyn Write,
    json_diags: bool,
    done: &mut dyn FnMut(u64),
) -> anyhow::Result<(Stats, bool)> {
    let mut total = Stats::default();
    let mut stopped = false;
    for path in inputs {
        let file = display_name(path);
        // An input that cannot be read (missing, UTF-16, compressed in a
        // format rookery does not read) is reported; the others still are.
        let input = match rookery_io::input::Input::open(path) {
            Ok(input) => input,
            Err(refused) => {
                out.flush()?;
                diag_out.flush()?;
                eprintln!("rookery: error: {refused}");
                total.missing_files += 1;
                continue;
            }
        };
        let damage = input.damage();
        let mut hand_on = |part: Part| -> anyhow::Result<()> {
            out.write_all(&part.text)?;
            for d in &part.diags {
                print_diag(diag_out, &file, d, json_diags)?;
            }
            stopped |= part.stopped;
            total.merge(part.stats);
            done(total.games);
            Ok(())
        };
        // A last game cut short by damage is an error, not written whole.
        let mut guard = CutGuard::default();
        process_file(&plan, path, input, part, &mut |part: Part| {
            guard.push(part).into_iter().try_for_each(&mut hand_on)
        })?;
        let damaged = damage.take();
        guard
            .finish(damaged.is_some())
            .into_iter()
            .try_for_each(&mut hand_on)?;
        if let Some(e) = damaged {
            // Compressed data damaged: the games before the damage were
            // read and handled; the damage is told after them, and the
            // next input is read.
            out.flush()?;
            diag_out.flush()?;
            eprintln!("rookery: error: {e}");
            total.missing_files += 1;
        }
        if stopped {
            break;
        }
    }
    out.flush()?;
    diag_out.flush()?;
    Ok((total, stopped))
}

/// Runs `plan` over the inputs, writing to `out_path` (diagnostics to
/// stderr). A run that stopped at an error (strict), or that would leave
/// out a game with an error from a file it rewrites in place, leaves the
/// file as it was.
fn write_plan(plan: Plan, files: &Files) -> anyhow::Result<Status> {
    let ins: Vec<&Path> = files.inputs.iter().map(PathBuf::as_path).collect();
    let mut out = Output::create(&files.output, &ins, files.in_place)?;
    let (stats, stopped) = run_inputs(
        plan,
        &files.inputs,
        None,
        &mut out,
        &mut std::io::stderr(),
        false,
        &mut |_| {},
    )?;
    if stopped {
        out.abandon("the run stopped at the first game with an error")?;
    } else if stats.error_games > 0 && files.in_place {
        out.abandon(format!(
            "rewritten in place it would lose its games with errors ({})",
            stats.error_games
        ))?;
    } else {
        out.commit()?;
    }
    Ok(status(&stats, false))
}

/// [`write_plan`] for shard `s` of the job: the games of its part,
/// numbered and located as in the whole input, written to its part file.
/// (One thread: `--jobs` splits a stream, a shard reads its part of one.)
fn write_shard(
    plan: Plan,
    files: &Files,
    s: rookery_io::shard::Shard,
    flags: &ShardArgs,
    verb: &str,
) -> anyhow::Result<Status> {
    use rookery_pgn::game::GameBuilder;
    let [input] = files.inputs.as_slice() else {
        return Err(output::usage(
            "--shard takes one input file (its games are split among the shards)",
        ));
    };
    shard::check_paths(input, &files.output)?;
    let file = display_name(input);
    // The text as every PGN verb reads it (Latin-1 lines decoded; told
    // once, by the second read).
    let text = |warn: bool| -> anyhow::Result<_> {
        let raw = output::open_input_raw(input)?;
        let name = file.clone();
        Ok(rookery_io::latin1::Latin1Read::new(raw, move |line| {
            if warn {
                output::warn_latin1(&name, line);
            }
        }))
    };
    let (total, _) = rookery_pgn::source::count_games(text(false)?, None)
        .map_err(|e| anyhow::Error::new(e).context(format!("cannot read {file}")))?;
    let mut job = Job::start(s, flags, verb, input, &files.output, "games", total)?;
    let range = job.range();
    let mut out = Output::create(job.part_path(), &[input.as_path()], files.in_place)?;
    let mut err = std::io::stderr();
    let mut stats = Stats::default();
    let mut reader = rookery_pgn::reader::Reader::new(text(true)?);
    let mut builder = GameBuilder::new().with_detail(plan.task.detail());
    let mut part = Part::default();
    let mut flush = |part: Part, stats: &mut Stats| -> anyhow::Result<()> {
        out.write_all(&part.text)?;
        for d in &part.diags {
            print_diag(&mut err, &file, d, false)?;
        }
        stats.merge(part.stats);
        Ok(())
    };
    while let Some(g) = reader
        .read_game(&mut builder)
        .map_err(|e| anyhow::Error::new(e).context(format!("cannot read {file}")))?
    {
        // Games are numbered from 1; the part is of items from 0.
        let i = g.index as u64 - 1;
        if i >= range.end {
            // (An empty part.)
            break;
        }
        if i < range.start {
            // A strict run stops at the first error: one before the part
            // leaves the part empty.
            if plan.strict && g.error.is_some() {
                break;
            }
            builder.recycle(g);
            continue;
        }
        stream::handle(&plan, &file, &g, &mut part);
        builder.recycle(g);
        job.progress(i + 1 - range.start);
        let last = i + 1 >= range.end;
        if part.is_full() || last {
            let stopped = part.stopped;
            let next = Part::default();
            flush(std::mem::replace(&mut part, next), &mut stats)?;
            if stopped || last {
                break;
            }
        }
    }
    flush(part, &mut stats)?;
    out.commit()?;
    job.finish(serde_json::json!({
        "games": stats.games,
        "errors": stats.error_games,
        "warnings": stats.warnings,
    }))?;
    Ok(status(&stats, false))
}

fn status(stats: &Stats, strict_warnings: bool) -> Status {
    if stats.input_errors(strict_warnings) {
        Status::InputErrors
    } else {
        Status::Ok
    }
}

fn print_stats(out: &mut dyn Write, s: &Stats, json: bool) -> std::io::Result<()> {
    let results = [("1-0", 0), ("0-1", 1), ("1/2-1/2", 2), ("*", 3)];
    if json {
        let mut res = serde_json::Map::new();
        for (name, i) in results {
            res.insert(name.to_owned(), s.results[i].into());
        }
        let longest = s.longest.as_ref().map(|l| {
            serde_json::json!({"plies": l.plies, "game": l.game, "file": l.file, "white": l.white, "black": l.black})
        });
        let v = serde_json::json!({
            "games": s.games,
            "moves": s.moves,
            "results": res,
            "errors": s.error_games,
            "warnings": s.warnings,
            "longest": longest,
            "eco": s.eco,
        });
        return writeln!(out, "{v}");
    }
    writeln!(out, "games     {}", s.games)?;
    writeln!(out, "moves     {} (mainline plies)", s.moves)?;
    let r: Vec<String> = results
        .iter()
        .map(|(n, i)| format!("{n} {}", s.results[*i]))
        .collect();
    writeln!(out, "results   {}", r.join(", "))?;
    writeln!(out, "errors    {} games (reported, skipped)", s.error_games)?;
    writeln!(out, "warnings  {}", s.warnings)?;
    match &s.longest {
        Some(l) => writeln!(
            out,
            "longest   {} plies: game {} of {} ({} - {})",
            l.plies, l.game, l.file, l.white, l.black
        )?,
        None => writeln!(out, "longest   -")?,
    }
    let letters: Vec<String> = s
        .eco_by_letter()
        .iter()
        .map(|(l, n)| format!("{l} {n}"))
        .collect();
    if letters.is_empty() {
        writeln!(out, "ECO       -")?;
    } else {
        writeln!(out, "ECO       {}", letters.join(", "))?;
    }
    let top: Vec<String> = s
        .top_eco(10)
        .iter()
        .map(|(c, n)| format!("{c} {n}"))
        .collect();
    if !top.is_empty() {
        writeln!(out, "top ECO   {}", top.join(", "))?;
    }
    Ok(())
}

fn from_epd(input: &Path, output_path: &Path, in_place: bool) -> anyhow::Result<Status> {
    let inp = output::open_input(input)?;
    let mut out = Output::create(output_path, &[input], in_place)?;
    let file = display_name(input);
    let unread = stream::epd_to_pgn(inp, &mut out, |d| eprintln!("{file}:{d}"))?;
    out.commit()?;
    Ok(if unread > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    })
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
        Verb::Split(a) => crate::cmd::pgn_split::run(a),
        Verb::Sort(a) => crate::cmd::pgn_sort::run(a),
        Verb::Cat(a) => crate::cmd::pgn_cat::run(a),
        Verb::Filter(a) => crate::cmd::pgn_filter::run(a),
        Verb::Dedupe(a) => crate::cmd::pgn_dedupe::run(a),
    }
}
