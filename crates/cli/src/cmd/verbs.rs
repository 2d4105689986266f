//! `rookery epd analyse|mate|target`: the EPD analysis verbs pfga, pfms and
//! pfts (§7 of the EPD specification) with any engine.

use crate::cmd::engines::EngineArgs;
use crate::cmd::progress;
use crate::output::{self, Status};
use anyhow::Context;
use rookery_analysis::{run_verb, Extras, Verb, VerbOptions, VerbSummary};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Input, output and resumption, shared by the three verbs.
#[derive(clap::Args, Debug)]
pub struct Io {
    /// Input EPD file (`-` for stdin).
    input: PathBuf,
    /// Output file (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    /// Continue an interrupted run: records already in the output file are
    /// kept and not analysed again (needs -o FILE).
    #[arg(long)]
    resume: bool,
}

/// Optional operations to add.
#[derive(clap::Args, Debug)]
pub struct ExtraFlags {
    /// Add `pm` (predicted move).
    #[arg(long)]
    pm: bool,
    /// Add `sm` (supplied move) (pfga only).
    #[arg(long)]
    sm: bool,
    /// Add `acn` (nodes searched).
    #[arg(long)]
    acn: bool,
    /// Add `acs` (seconds used).
    #[arg(long)]
    acs: bool,
    /// Add `pv` (pfms and pfts; pfga always adds it).
    #[arg(long)]
    pv: bool,
}

impl ExtraFlags {
    fn extras(&self) -> Extras {
        Extras {
            pm: self.pm,
            sm: self.sm,
            acn: self.acn,
            acs: self.acs,
            pv: self.pv,
        }
    }
}

/// Flags of `rookery epd analyse` (pfga) and `rookery epd target` (pfts).
#[derive(clap::Args, Debug)]
#[command(
    after_help = "analyse (pfga) adds pv and ce to every record (pv empty and ce for the side to move \
when it is mated or stalemated), and pm, sm, acn, acs on request. target (pfts) adds pm (not for a side \
that is mated or stalemated), and pv, acn, acs on request. Default effort: 1000 ms per position.\n\n\
Examples:\n  rookery epd analyse suite.epd -o analysed.epd --engine /usr/games/stockfish --movetime 500 --acn --acs\n  \
rookery epd target wac.epd --movetime 200 --pv"
)]
pub struct AnalyseArgs {
    #[command(flatten)]
    io: Io,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    extra: ExtraFlags,
}

/// Flags of `rookery epd mate` (pfms).
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Searches every record without a dm of at most N for a mate in N moves; where one is \
found, adds dm N and pm. With --up-to M, passes N, N+1, ..., M are made in turn (each skips what an earlier \
pass solved) and the final output is written.\n\nExample:\n  rookery epd mate --moves 1 --up-to 3 problems.epd -o solved.epd --pv"
)]
pub struct MateArgs {
    /// Mate length in moves.
    #[arg(long, default_value_t = 1)]
    moves: u32,
    /// Repeat with increasing length up to this many moves.
    #[arg(long, value_name = "M")]
    up_to: Option<u32>,
    #[command(flatten)]
    io: Io,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    extra: ExtraFlags,
}

/// Runs pfga.
pub fn run_analyse(a: AnalyseArgs) -> anyhow::Result<Status> {
    run_one(Verb::Analyse, a)
}

/// Runs pfts.
pub fn run_target(a: AnalyseArgs) -> anyhow::Result<Status> {
    run_one(Verb::Target, a)
}

fn run_one(verb: Verb, a: AnalyseArgs) -> anyhow::Result<Status> {
    let opts = VerbOptions {
        verb,
        limits: a.engine.limits(1000),
        extras: a.extra.extras(),
        skip_lines: 0,
        solution_opcodes: false,
    };
    run_file(&a.io, &a.engine, opts)
}

/// Runs pfms, once or in passes of increasing length.
pub fn run_mate(a: MateArgs) -> anyhow::Result<Status> {
    let last = a.up_to.unwrap_or(a.moves).max(a.moves);
    if a.moves == 0 {
        anyhow::bail!("--moves must be at least 1");
    }
    // Without an explicit limit, a mate search gets 5 s per position.
    let limits = a.engine.limits(5000);
    let make = |n: u32| VerbOptions {
        verb: Verb::Mate(n),
        limits: limits.clone(),
        extras: a.extra.extras(),
        skip_lines: 0,
        solution_opcodes: false,
    };
    if last == a.moves {
        return run_file(&a.io, &a.engine, make(a.moves));
    }
    // Several passes: each pass reads the previous pass's output from memory.
    let mut data = read_all(&a.io.input)?;
    let mut status = Status::Ok;
    for n in a.moves..=last {
        let mut next = Vec::with_capacity(data.len() + data.len() / 4);
        let summary = process(
            std::io::Cursor::new(std::mem::take(&mut data)),
            &mut next,
            &a.engine,
            make(n),
            &format!("mate in {n}"),
            None,
        )?;
        if report(&a.io.input, &summary) {
            status = Status::InputErrors;
        }
        data = next;
    }
    let mut out = output::create(&a.io.output)
        .with_context(|| format!("cannot write {}", a.io.output.display()))?;
    out.write_all(&data)?;
    out.flush()?;
    Ok(status)
}

fn read_all(path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut data = Vec::new();
    output::open(path)
        .with_context(|| format!("cannot open {}", path.display()))?
        .read_to_end(&mut data)?;
    Ok(data)
}

fn run_file(io: &Io, engine: &EngineArgs, mut opts: VerbOptions) -> anyhow::Result<Status> {
    let input =
        output::open(&io.input).with_context(|| format!("cannot open {}", io.input.display()))?;
    let total = progress::count_lines(&io.input);
    let mut out: Box<dyn Write> = if io.resume {
        if io.output.as_os_str() == "-" {
            anyhow::bail!("--resume needs an output file (-o FILE)");
        }
        opts.skip_lines = prepare_resume(&io.output)?;
        Box::new(std::io::BufWriter::new(
            std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&io.output)
                .with_context(|| format!("cannot append to {}", io.output.display()))?,
        ))
    } else {
        output::create(&io.output)
            .with_context(|| format!("cannot write {}", io.output.display()))?
    };
    let what = io.input.display().to_string();
    let summary = process(input, &mut out, engine, opts, &what, total)?;
    out.flush()?;
    Ok(if report(&io.input, &summary) {
        Status::InputErrors
    } else {
        Status::Ok
    })
}

/// Lines already complete in `path`; a partial last line (an interrupted
/// write) is cut off so that it is redone.
fn prepare_resume(path: &Path) -> anyhow::Result<u64> {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let complete = data.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if complete < data.len() {
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.set_len(complete as u64)?;
    }
    Ok(data[..complete].iter().filter(|&&b| b == b'\n').count() as u64)
}

fn process(
    input: impl BufRead + Send,
    out: &mut dyn Write,
    engine: &EngineArgs,
    opts: VerbOptions,
    what: &str,
    total: Option<u64>,
) -> anyhow::Result<VerbSummary> {
    let analysts = engine.start()?;
    let bar = progress::bar(&format!("{what} ({})", opts.limits.describe()), total);
    let summary = run_verb(input, out, analysts, &opts, false, |t| {
        bar.set_position(t.lines_done)
    })?;
    bar.finish_and_clear();
    Ok(summary)
}

/// Prints the problems as `file:line[:col]: error: ...`; whether there were any.
fn report(input: &Path, s: &VerbSummary) -> bool {
    for p in &s.problems {
        match p.column {
            Some(c) => eprintln!("{}:{}:{c}: error: {}", input.display(), p.line, p.message),
            None => eprintln!(
                "{}:{}: error: {} (record copied unchanged)",
                input.display(),
                p.line,
                p.message
            ),
        }
    }
    eprintln!(
        "{}: {} records, {} analysed, {} skipped, {} failed",
        input.display(),
        s.records,
        s.analysed,
        s.skipped,
        s.failed
    );
    !s.problems.is_empty()
}
