//! `rookery pgn`: validate | normalize | to-epd | stats | from-epd | annotate
//! (annotate: see `cmd/annotate.rs`).
//!
//! Every verb streams with constant memory and keeps the input order; with
//! `--jobs N` the input is cut into pieces where games start, N threads read
//! and handle them, and the output is written in input order, exactly as one
//! thread writes it (see `rookery_pgn::split`). Problems are reported as
//! `file:line:col: error|warning: message` (on stdout for `validate`, on
//! stderr otherwise). A game with an error (an illegal or ambiguous move, a bad
//! FEN tag, an unsupported variant) is reported; in lenient mode it is skipped
//! and the next game is read, in strict mode reading stops there.

use crate::output::{self, Output, Status};
use anyhow::Context;
use rookery_pgn::convert::{epd_to_game, game_to_epd, game_to_fens, EpdOptions};
use rookery_pgn::split::for_each_piece;
use rookery_pgn::{GameBuilder, GameResult, ReadGame, Reader};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

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
        /// Input files (`-` for stdin).
        #[arg(default_value = "-")]
        inputs: Vec<PathBuf>,
        /// Output file (`-` for stdout), replaced when the run finishes.
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        /// Allow the output to be one of the inputs.
        #[arg(long)]
        in_place: bool,
        /// Report a game with an error, skip it and go on.
        #[arg(long)]
        lenient: bool,
        #[command(flatten)]
        common: Common,
    },
    /// One EPD record per mainline position (hmvc, fmvn, sm = the move played
    /// from it, id from the tags and game index), or FEN lines with `--fen`.
    /// Lenient by default: a game with an error is reported and skipped.
    ToEpd {
        /// Input files (`-` for stdin).
        #[arg(default_value = "-")]
        inputs: Vec<PathBuf>,
        /// Output file (`-` for stdout), replaced when the run finishes.
        #[arg(short, long, default_value = "-")]
        output: PathBuf,
        /// Allow the output to be one of the inputs.
        #[arg(long)]
        in_place: bool,
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

#[derive(Clone, Copy, Debug)]
enum Task {
    Validate,
    Normalize,
    ToEpd { fen: bool, opts: EpdOptions },
    Stats,
}

#[derive(Clone, Copy, Debug)]
struct Plan {
    task: Task,
    strict: bool,
    quiet: bool,
}

/// One reported problem.
#[derive(Clone, Debug)]
struct Diag {
    line: u64,
    col: u64,
    error: bool,
    game: usize,
    message: String,
}

/// Counts for `stats` (mergeable across chunks and files).
#[derive(Clone, Debug, Default)]
struct Stats {
    games: u64,
    moves: u64,
    results: [u64; 4],
    error_games: u64,
    /// Input files that could not be opened (reported, the others read).
    missing_files: u64,
    warnings: u64,
    /// (plies, game index, file, white, black)
    longest: Option<(usize, usize, String, String, String)>,
    eco: BTreeMap<String, u64>,
}

impl Stats {
    fn merge(&mut self, o: Stats) {
        self.games += o.games;
        self.moves += o.moves;
        for (a, b) in self.results.iter_mut().zip(o.results) {
            *a += b;
        }
        self.error_games += o.error_games;
        self.missing_files += o.missing_files;
        self.warnings += o.warnings;
        if let Some(l) = o.longest {
            if self.longest.as_ref().is_none_or(|m| l.0 > m.0) {
                self.longest = Some(l);
            }
        }
        for (k, v) in o.eco {
            *self.eco.entry(k).or_default() += v;
        }
    }
}

/// What one chunk (or one file, without --jobs) produced.
#[derive(Default)]
struct Part {
    text: String,
    diags: Vec<Diag>,
    stats: Stats,
    /// Strict mode met an error: nothing after it counts.
    stopped: bool,
}

fn result_slot(r: GameResult) -> usize {
    match r {
        GameResult::WhiteWins => 0,
        GameResult::BlackWins => 1,
        GameResult::Draw => 2,
        GameResult::Unknown => 3,
    }
}

/// Tag values that do not have their tag's form, as warnings at the tag.
fn tag_warnings(g: &ReadGame, diags: &mut Vec<Diag>) {
    let tags = &g.game.tags;
    let mut bad: Vec<(&str, String)> = Vec::new();
    if let Err(e) = tags.date() {
        bad.push(("Date", e.to_string()));
    }
    if let Err(e) = tags.time_control() {
        bad.push(("TimeControl", e.to_string()));
    }
    if let Err(e) = tags.result() {
        bad.push(("Result", e.to_string()));
    }
    if let Err(e) = tags.eco() {
        bad.push(("ECO", e.to_string()));
    }
    match tags.ply_count() {
        Err(e) => bad.push(("PlyCount", e.to_string())),
        Ok(Some(n)) if g.error.is_none() && n as usize != g.game.mainline.nodes.len() => {
            bad.push((
                "PlyCount",
                format!(
                    "PlyCount tag says {n}, the game has {} plies",
                    g.game.mainline.nodes.len()
                ),
            ));
        }
        _ => {}
    }
    for (tag, message) in bad {
        let at = g.tag_location(tag);
        diags.push(Diag {
            line: at.line,
            col: at.col,
            error: false,
            game: g.index,
            message: format!("game {}: {message}", g.index),
        });
    }
}

/// Handles one game; `file` names the input in stats.
fn handle(plan: &Plan, file: &str, g: ReadGame, part: &mut Part) {
    if part.stopped {
        return;
    }
    let warnings = g.warnings.len() as u64;
    part.stats.warnings += warnings;
    if !plan.quiet {
        for w in &g.warnings {
            part.diags.push(Diag {
                line: w.at.line,
                col: w.at.col,
                error: false,
                game: g.index,
                message: format!("game {}: {}", g.index, w.kind),
            });
        }
    }
    if matches!(plan.task, Task::Validate) {
        let mut tw = Vec::new();
        tag_warnings(&g, &mut tw);
        part.stats.warnings += tw.len() as u64;
        if !plan.quiet {
            part.diags.extend(tw);
        }
    }
    if let Some(e) = &g.error {
        part.diags.push(Diag {
            line: e.at.line,
            col: e.at.col,
            error: true,
            game: g.index,
            message: format!("{}: {}", e.game, e.kind),
        });
        part.stats.error_games += 1;
        part.stats.games += 1;
        if plan.strict {
            part.stopped = true;
        }
        return;
    }
    part.stats.games += 1;
    let plies = g.game.mainline.nodes.len();
    match plan.task {
        Task::Validate => {}
        Task::Normalize => part.text.push_str(&rookery_pgn::game_to_string(&g.game)),
        Task::ToEpd { fen: true, .. } => {
            for f in game_to_fens(&g.game) {
                part.text.push_str(&f);
                part.text.push('\n');
            }
        }
        Task::ToEpd { fen: false, opts } => {
            for rec in game_to_epd(&g.game, g.index, &opts) {
                rec.write_to(&mut part.text);
                part.text.push('\n');
            }
        }
        Task::Stats => {
            let s = &mut part.stats;
            s.moves += plies as u64;
            s.results[result_slot(g.game.result)] += 1;
            if s.longest.as_ref().is_none_or(|l| plies > l.0) {
                let t = |n: &str| g.game.tags.get(n).unwrap_or("?").to_owned();
                s.longest = Some((plies, g.index, file.to_owned(), t("White"), t("Black")));
            }
            let eco = match g.game.tags.eco() {
                Ok(Some(e)) => e.to_string(),
                _ => "?".to_owned(),
            };
            *s.eco.entry(eco).or_default() += 1;
        }
    }
}

fn display_name(path: &Path) -> String {
    output::display_name(path)
}

/// A byte-count progress bar on stderr, only when stderr is a terminal.
fn progress(path: &Path) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let total = std::fs::metadata(path).ok().map(|m| m.len());
    let pb = match total {
        Some(n) if path.as_os_str() != "-" => indicatif::ProgressBar::new(n),
        _ => indicatif::ProgressBar::new_spinner(),
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(display_name(path));
    Some(pb)
}

/// Reads one input and hands each part, in order, to `sink`.
fn process_file(
    plan: &Plan,
    path: &Path,
    (jobs, chunk_bytes): (u32, usize),
    sink: &mut dyn FnMut(Part) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let input = output::open_input(path)?;
    let file = display_name(path);
    let pb = progress(path);
    if jobs <= 1 {
        let mut reader = Reader::new(input);
        let mut builder = GameBuilder::new();
        let mut part = Part::default();
        while let Some(g) = reader
            .read_game(&mut builder)
            .with_context(|| format!("cannot read {file}"))?
        {
            handle(plan, &file, g, &mut part);
            let stopped = part.stopped;
            if part.text.len() > 1 << 16 || part.diags.len() > 256 || stopped {
                sink(std::mem::take(&mut part))?;
                if stopped {
                    break;
                }
            }
            if let Some(pb) = &pb {
                pb.set_position(reader.offset());
            }
        }
        sink(part)?;
    } else {
        parallel(
            plan,
            input,
            &file,
            jobs as usize,
            chunk_bytes,
            pb.as_ref(),
            sink,
        )?;
    }
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok(())
}

/// Reads the input on `jobs` threads (see `rookery_pgn::split`: the result
/// is exactly that of one reader) and hands the parts to `sink` in input order.
fn parallel(
    plan: &Plan,
    input: Box<dyn std::io::BufRead>,
    file: &str,
    jobs: usize,
    chunk_bytes: usize,
    pb: Option<&indicatif::ProgressBar>,
    sink: &mut dyn FnMut(Part) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let work = |games: &mut dyn Iterator<Item = ReadGame>| {
        let mut part = Part::default();
        for g in games {
            handle(plan, file, g, &mut part);
            if part.stopped {
                break;
            }
        }
        part
    };
    for_each_piece(input, jobs, chunk_bytes, &work, &mut |part: Part,
                                                          bytes|
     -> anyhow::Result<
        bool,
    > {
        if let Some(pb) = pb {
            pb.set_position(bytes);
        }
        let go_on = !part.stopped;
        sink(part)?;
        Ok(go_on)
    })
    .with_context(|| format!("cannot read {file}"))
}

fn print_diag(out: &mut dyn Write, file: &str, d: &Diag, json: bool) -> std::io::Result<()> {
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
    common: &Common,
    out: &mut dyn Write,
    diag_out: &mut dyn Write,
    json_diags: bool,
) -> anyhow::Result<Stats> {
    let mut total = Stats::default();
    for path in inputs {
        let file = display_name(path);
        if !output::is_std(path) {
            if let Err(e) = std::fs::File::open(path) {
                // A file that cannot be read is reported; the others still are.
                out.flush()?;
                diag_out.flush()?;
                eprintln!("rookery: error: cannot open {file}: {e}");
                total.missing_files += 1;
                continue;
            }
        }
        let mut stopped = false;
        process_file(
            &plan,
            path,
            (common.jobs, common.chunk_bytes),
            &mut |part: Part| {
                out.write_all(part.text.as_bytes())?;
                for d in &part.diags {
                    print_diag(diag_out, &file, d, json_diags)?;
                }
                stopped |= part.stopped;
                total.merge(part.stats);
                Ok(())
            },
        )?;
        if stopped {
            break;
        }
    }
    out.flush()?;
    diag_out.flush()?;
    Ok(total)
}

/// Runs `plan` over the inputs, writing to `out_path` (diagnostics to stderr).
fn write_plan(
    plan: Plan,
    inputs: &[PathBuf],
    common: &Common,
    out_path: &Path,
    in_place: bool,
) -> anyhow::Result<Status> {
    let ins: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let mut out = Output::create(out_path, &ins, in_place)?;
    let stats = run_plan(
        plan,
        inputs,
        common,
        &mut out,
        &mut std::io::stderr(),
        false,
    )?;
    out.commit()?;
    Ok(status(&stats, false))
}

fn status(stats: &Stats, strict_warnings: bool) -> Status {
    if stats.error_games > 0 || stats.missing_files > 0 || (strict_warnings && stats.warnings > 0) {
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
        let longest = s.longest.as_ref().map(|(plies, game, file, white, black)| {
            serde_json::json!({"plies": plies, "game": game, "file": file, "white": white, "black": black})
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
        Some((plies, game, file, white, black)) => writeln!(
            out,
            "longest   {plies} plies: game {game} of {file} ({white} - {black})"
        )?,
        None => writeln!(out, "longest   -")?,
    }
    let mut by_letter: BTreeMap<char, u64> = BTreeMap::new();
    for (code, n) in &s.eco {
        *by_letter
            .entry(code.chars().next().unwrap_or('?'))
            .or_default() += n;
    }
    let letters: Vec<String> = by_letter.iter().map(|(l, n)| format!("{l} {n}")).collect();
    writeln!(out, "ECO       {}", letters.join(", "))?;
    let mut top: Vec<(&String, &u64)> = s.eco.iter().filter(|(c, _)| *c != "?").collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let top: Vec<String> = top
        .iter()
        .take(10)
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
    let mut reader = rookery_epd::Reader::new(inp, rookery_epd::Mode::Lenient);
    let mut errors = 0;
    while let Some(line) = reader.next_line()? {
        match &line.kind {
            rookery_epd::LineKind::Record(rec) => {
                out.write_all(rookery_pgn::game_to_string(&epd_to_game(rec)).as_bytes())?;
            }
            rookery_epd::LineKind::Unparsed => {
                errors += 1;
                for d in line.diagnostics.iter().filter(|d| d.is_error()) {
                    eprintln!("{file}:{d}");
                }
            }
            _ => {}
        }
    }
    out.commit()?;
    Ok(if errors > 0 {
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
            let plan = Plan {
                task: Task::Validate,
                strict: false,
                quiet: common.quiet,
            };
            let stats = {
                let mut diag = output::stdout();
                run_plan(
                    plan,
                    &inputs,
                    &common,
                    &mut std::io::sink(),
                    &mut diag,
                    json,
                )?
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
            inputs,
            output: out_path,
            in_place,
            lenient,
            common,
        } => {
            let plan = Plan {
                task: Task::Normalize,
                strict: !lenient,
                quiet: common.quiet,
            };
            write_plan(plan, &inputs, &common, &out_path, in_place)
        }
        Verb::ToEpd {
            inputs,
            output: out_path,
            in_place,
            fen,
            ptp,
            comments,
            strict,
            common,
        } => {
            let plan = Plan {
                task: Task::ToEpd {
                    fen,
                    opts: EpdOptions { ptp, comments },
                },
                strict,
                quiet: common.quiet,
            };
            write_plan(plan, &inputs, &common, &out_path, in_place)
        }
        Verb::Stats {
            inputs,
            json,
            strict,
            common,
        } => {
            let plan = Plan {
                task: Task::Stats,
                strict,
                quiet: common.quiet,
            };
            let stats = run_plan(
                plan,
                &inputs,
                &common,
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
    }
}
