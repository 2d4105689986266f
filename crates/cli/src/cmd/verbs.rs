//! `rookery epd analyse|mate|target`: the EPD analysis verbs pfga, pfms and
//! pfts (§7 of the EPD specification) with any engine.

use crate::cmd::engines::EngineArgs;
use crate::cmd::progress;
use crate::output::{self, usage, Output, Status};
use rookery_analysis::{
    run_mate_passes, run_verb, Analyst, Extras, MatePasses, PassError, PassEvent, Verb,
    VerbOptions, VerbSummary,
};
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

/// Input, output and resumption, shared by the three verbs.
#[derive(clap::Args, Debug)]
pub struct Io {
    /// Input EPD file (`-` for stdin).
    input: PathBuf,
    /// Output file (`-` for stdout). It is replaced only when the run
    /// finishes: until then the output goes to `.NAME.rookery-partial`
    /// beside it.
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    /// Continue an interrupted run (needs -o FILE): records the output file
    /// (or the partial file of a killed run) already holds, analysed by this
    /// verb from the same position and id, are kept; the others are analysed.
    #[arg(long)]
    resume: bool,
    /// Allow the output to be the input (it is replaced when the run finishes).
    #[arg(long)]
    in_place: bool,
}

impl Io {
    /// Checks the flags before anything is started.
    fn check(&self) -> anyhow::Result<()> {
        if self.resume && output::is_std(&self.output) {
            return Err(usage("--resume needs an output file (-o FILE)"));
        }
        Ok(output::check_not_input(
            &self.output,
            &[&self.input],
            self.in_place,
        )?)
    }

    /// The earlier outputs to resume from (none without --resume).
    fn previous(&self) -> anyhow::Result<Vec<Box<dyn BufRead + Send>>> {
        if self.resume {
            Ok(output::resume_sources(&self.output)?)
        } else {
            Ok(Vec::new())
        }
    }

    fn commit(&self, out: Output) -> anyhow::Result<()> {
        out.commit()?;
        if self.resume {
            output::resume_done(&self.output);
        }
        Ok(())
    }
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
that is mated or stalemated), and pv, acn, acs on request. Analysis a record already carries (pm, pv, ce, \
acn, acs, acd) is replaced. Default effort: 1000 ms per position.\n\n\
Examples:\n  rookery epd analyse suite.epd -o analysed.epd --engine /usr/games/stockfish --movetime 500 --acn --acs\n  \
rookery epd target wac.epd --movetime 200 --pv"
)]
pub struct AnalyseArgs {
    #[command(flatten)]
    common: Common,
}

/// The flags every analysis verb takes: input and output, the engine, the
/// operations to add.
#[derive(clap::Args, Debug)]
pub struct Common {
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
found, adds dm (the length of the mate found, at most N) and pm. With --up-to M, passes N, N+1, ..., M are \
made in turn (each skips what an earlier pass solved) and the final output is written.\n\nExample:\n  rookery epd mate --moves 1 --up-to 3 problems.epd -o solved.epd --pv"
)]
pub struct MateArgs {
    /// Mate length in moves.
    #[arg(long, default_value_t = 1)]
    moves: u32,
    /// Repeat with increasing length up to this many moves (at least --moves).
    #[arg(long, value_name = "M")]
    up_to: Option<u32>,
    #[command(flatten)]
    common: Common,
}

/// Runs pfga.
pub fn run_analyse(a: AnalyseArgs) -> anyhow::Result<Status> {
    run_one(Verb::Analyse, a)
}

/// Runs pfts.
pub fn run_target(a: AnalyseArgs) -> anyhow::Result<Status> {
    run_one(Verb::Target, a)
}

fn run_one(verb: Verb, AnalyseArgs { common: a }: AnalyseArgs) -> anyhow::Result<Status> {
    a.io.check()?;
    let opts = VerbOptions {
        verb,
        limits: a.engine.limits(1000)?,
        extras: a.extra.extras(),
        solution_opcodes: false,
        keep_as: None,
    };
    run_file(&a.io, &a.engine, opts)
}

/// Runs pfms, once or in passes of increasing length.
pub fn run_mate(m: MateArgs) -> anyhow::Result<Status> {
    let a = &m.common;
    if m.moves == 0 {
        return Err(usage("--moves must be at least 1"));
    }
    if let Some(up_to) = m.up_to {
        if up_to < m.moves {
            return Err(usage(format!(
                "--up-to {up_to} is less than --moves {}",
                m.moves
            )));
        }
    }
    a.io.check()?;
    let last = m.up_to.unwrap_or(m.moves);
    // Without an explicit limit, a mate search gets 5 s per position.
    let plan = MatePasses {
        from: m.moves,
        to: last,
        limits: a.engine.limits(5000)?,
        extras: a.extra.extras(),
    };
    if last == m.moves {
        return run_file(&a.io, &a.engine, plan.pass(m.moves));
    }
    // Several passes: each pass reads the previous pass's output from memory.
    let data = read_all(&a.io.input)?;
    // Engines first: an engine that cannot start changes nothing.
    let analysts = a.engine.start()?;
    let earlier: Vec<Vec<u8>> =
        a.io.previous()?
            .into_iter()
            .map(|mut r| {
                let mut v = Vec::new();
                r.read_to_end(&mut v).map(|_| v)
            })
            .collect::<Result<_, _>>()?;
    let mut out = Output::create(&a.io.output, &[&a.io.input], a.io.in_place)?;
    let mut status = Status::Ok;
    let mut bar = None;
    let passes = run_mate_passes(
        data,
        &earlier,
        analysts,
        || a.engine.start(),
        &plan,
        |event| match event {
            PassEvent::Start { moves } => {
                let what = format!("mate in {moves} ({})", plan.limits.describe());
                bar = Some(progress::bar(&what, None));
            }
            PassEvent::Tick(t) => {
                if let Some(b) = &bar {
                    b.set_position(t.lines_done);
                }
            }
            PassEvent::Done { summary, .. } => {
                if let Some(b) = bar.take() {
                    b.finish_and_clear();
                }
                if report(&a.io.input, summary) {
                    status = Status::InputErrors;
                }
            }
        },
    );
    let data = match passes {
        Ok(data) => data,
        Err(PassError::Io(e)) => return Err(e.into()),
        // The starter's own error (a usage error stays one).
        Err(PassError::Start(e)) => return Err(e),
    };
    out.write_all(&data)?;
    a.io.commit(out)?;
    Ok(status)
}

fn read_all(path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut data = Vec::new();
    output::open_input(path)?.read_to_end(&mut data)?;
    Ok(data)
}

fn run_file(io: &Io, engine: &EngineArgs, opts: VerbOptions) -> anyhow::Result<Status> {
    let input = output::open_input(&io.input)?;
    let total = progress::count_lines(&io.input);
    // Engines first: an engine that cannot start changes nothing.
    let analysts = engine.start()?;
    let mut previous = io.previous()?;
    let mut out = Output::create(&io.output, &[&io.input], io.in_place)?;
    let what = output::display_name(&io.input);
    let summary = process(input, &mut out, analysts, opts, &mut previous, &what, total)?;
    io.commit(out)?;
    Ok(if report(&io.input, &summary) {
        Status::InputErrors
    } else {
        Status::Ok
    })
}

fn process(
    input: impl BufRead + Send,
    out: &mut dyn Write,
    analysts: Vec<Box<dyn Analyst>>,
    opts: VerbOptions,
    previous: &mut [Box<dyn BufRead + Send>],
    what: &str,
    total: Option<u64>,
) -> anyhow::Result<VerbSummary> {
    let bar = progress::bar(&format!("{what} ({})", opts.limits.describe()), total);
    let summary = run_verb(input, out, analysts, &opts, false, previous, |t| {
        bar.set_position(t.lines_done)
    })?;
    bar.finish_and_clear();
    Ok(summary)
}

/// Prints the problems as `file:line[:col]: error: ...`; whether there were any.
fn report(input: &Path, s: &VerbSummary) -> bool {
    let name = output::display_name(input);
    for p in &s.problems {
        match p.column {
            Some(c) => eprintln!("{name}:{}:{c}: error: {}", p.line, p.message),
            None => eprintln!(
                "{name}:{}: error: {} (record copied unchanged)",
                p.line, p.message
            ),
        }
    }
    eprintln!(
        "{name}: {} records, {} analysed, {} kept from earlier output, {} skipped, {} failed",
        s.records, s.analysed, s.kept, s.skipped, s.failed
    );
    !s.problems.is_empty()
}
