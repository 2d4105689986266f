//! `rookery epd analyse|mate|target`: the EPD analysis verbs pfga, pfms and
//! pfts (§7 of the EPD specification) with any engine.

use crate::cmd::engines::EngineArgs;
use crate::cmd::progress;
use crate::cmd::shard::{self, Job, ShardArgs};
use crate::output::{self, usage, Output, Status};
use rookery_analysis::{
    run_mate_passes, run_verb, Extras, MatePasses, PassError, PassEvent, Verb, VerbOptions,
    VerbSummary,
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

    /// The earlier outputs in `target` (the output, or a shard's part) to
    /// resume from (none without --resume).
    fn previous(&self, target: &Path) -> anyhow::Result<Vec<Box<dyn BufRead + Send>>> {
        if self.resume {
            Ok(output::resume_sources(target)?)
        } else {
            Ok(Vec::new())
        }
    }

    fn commit(&self, out: Output, target: &Path) -> anyhow::Result<()> {
        out.commit()?;
        if self.resume {
            output::resume_done(target);
        }
        Ok(())
    }

    /// The shard to do, started (its manifest written), or `None` for the
    /// whole input.
    fn job(&self, flags: &ShardArgs, verb: &str) -> anyhow::Result<Option<Job>> {
        let Some(s) = flags.resolve()? else {
            return Ok(None);
        };
        shard::check_paths(&self.input, &self.output)?;
        let total = shard::count_lines(&self.input)?;
        let job = Job::start(s, flags, verb, &self.input, &self.output, "lines", total)?;
        Ok(Some(job))
    }

    /// The input to read: all of it, or the job's part.
    fn open(&self, job: Option<&Job>) -> anyhow::Result<Box<dyn BufRead + Send>> {
        let input = crate::input::open_input(&self.input)?;
        Ok(match job {
            Some(j) => Box::new(rookery_io::part::Lines::new(input, j.range())),
            None => input,
        })
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
    #[command(flatten)]
    shard: ShardArgs,
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
    let name = match verb {
        Verb::Target => "epd target",
        _ => "epd analyse",
    };
    run_file(&a, name, opts)
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
        return run_file(a, "epd mate", plan.pass(m.moves));
    }
    let job = a.io.job(&a.shard, "epd mate")?;
    let offset = job.as_ref().map_or(0, |j| j.range().start);
    let target = job.as_ref().map_or(&*a.io.output, |j| j.part_path());
    // Several passes: each pass reads the previous pass's output from memory.
    let mut data = Vec::new();
    a.io.open(job.as_ref())?.read_to_end(&mut data)?;
    // Engines first: an engine that cannot start changes nothing.
    let analysts = a.engine.start()?;
    let earlier: Vec<Vec<u8>> =
        a.io.previous(target)?
            .into_iter()
            .map(|mut r| {
                let mut v = Vec::new();
                r.read_to_end(&mut v).map(|_| v)
            })
            .collect::<Result<_, _>>()?;
    let mut out = Output::create(target, &[&a.io.input], a.io.in_place)?;
    let mut status = Status::Ok;
    let mut bar = None;
    let mut passes_done = Vec::new();
    let name = output::display_name(&a.io.input);
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
                let mut summary = summary.clone();
                shift(&mut summary, offset);
                if report(&name, &summary) {
                    status = Status::InputErrors;
                }
                passes_done.push(summary_json(&summary));
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
    a.io.commit(out, target)?;
    if let Some(j) = job {
        j.finish(serde_json::json!({ "passes": passes_done }))?;
    }
    Ok(status)
}

fn run_file(a: &Common, verb: &str, opts: VerbOptions) -> anyhow::Result<Status> {
    let io = &a.io;
    let mut job = io.job(&a.shard, verb)?;
    let input = io.open(job.as_ref())?;
    let total = match &job {
        Some(j) => Some(j.range().end - j.range().start),
        None => progress::count_lines(&io.input),
    };
    // Engines first: an engine that cannot start changes nothing.
    let analysts = a.engine.start()?;
    let target = job
        .as_ref()
        .map_or(io.output.clone(), |j| j.part_path().to_path_buf());
    let mut previous = io.previous(&target)?;
    let mut out = Output::create(&target, &[&io.input], io.in_place)?;
    let what = output::display_name(&io.input);
    let bar = progress::bar(&format!("{what} ({})", opts.limits.describe()), total);
    let mut summary = run_verb(
        input,
        &mut out,
        analysts,
        &opts,
        false,
        &mut previous,
        |t| {
            bar.set_position(t.lines_done);
            if let Some(j) = &mut job {
                j.progress(t.lines_done);
            }
        },
    )?;
    bar.finish_and_clear();
    io.commit(out, &target)?;
    if let Some(j) = job {
        shift(&mut summary, j.range().start);
        j.finish(serde_json::json!({ "passes": [summary_json(&summary)] }))?;
    }
    Ok(if report(&what, &summary) {
        Status::InputErrors
    } else {
        Status::Ok
    })
}

/// The problems of a shard's part, whose lines are counted from its
/// start, numbered by the lines of the whole input (`offset` before it).
fn shift(s: &mut VerbSummary, offset: u64) {
    for p in &mut s.problems {
        p.line += offset;
    }
}

/// The numbers [`report`] prints, as a shard's manifest keeps them.
fn summary_json(s: &VerbSummary) -> serde_json::Value {
    let problems: Vec<_> = s
        .problems
        .iter()
        .map(|p| serde_json::json!({"line": p.line, "column": p.column, "message": p.message}))
        .collect();
    serde_json::json!({
        "records": s.records,
        "analysed": s.analysed,
        "kept": s.kept,
        "skipped": s.skipped,
        "failed": s.failed,
        "problems": problems,
    })
}

/// Prints what one run of an analysis verb prints, from the summaries of
/// its shards (in shard order, as their manifests keep them: one a pass);
/// whether there were problems.
pub fn merged_report(input: &str, summaries: &[serde_json::Value]) -> bool {
    let passes = summaries
        .iter()
        .map(|s| s["passes"].as_array().map_or(0, Vec::len))
        .max()
        .unwrap_or(0);
    let mut any = false;
    for pass in 0..passes {
        let mut all = VerbSummary::default();
        for s in summaries {
            let p = &s["passes"][pass];
            let n = |k: &str| p[k].as_u64().unwrap_or(0);
            all.records += n("records");
            all.analysed += n("analysed");
            all.kept += n("kept");
            all.skipped += n("skipped");
            all.failed += n("failed");
            for q in p["problems"].as_array().into_iter().flatten() {
                all.problems.push(rookery_analysis::LineProblem {
                    line: q["line"].as_u64().unwrap_or(0),
                    column: q["column"].as_u64().and_then(|c| u32::try_from(c).ok()),
                    message: q["message"].as_str().unwrap_or("").to_owned(),
                });
            }
        }
        any |= report(input, &all);
    }
    any
}

/// Prints the problems as `file:line[:col]: error: ...`; whether there were any.
fn report(name: &str, s: &VerbSummary) -> bool {
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
