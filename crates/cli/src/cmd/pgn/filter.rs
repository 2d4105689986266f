//! `rookery pgn filter`: the games that pass the criteria
//! (`rookery_pgn::filter`), copied byte for byte (or, with `--normalize`,
//! written in export format); `--count` prints their number.

use super::copy::{self, CopyFlags};
use super::reading::{start_shard, ShardStart};
use crate::cmd::shard::ShardArgs;
use crate::flags::{Files, IN_PLACE_KEEPS_BAD};
use crate::output::{self, Output, Status};
use rookery_io::shard::Shard;
use rookery_pgn::collection::{GameWriter, Kept, Label, Plan};
use rookery_pgn::filter::{Criteria, CriteriaText, Verdict};
use rookery_pgn::game::Detail;
use rookery_pgn::game_to_string;
use std::io::Write;

/// Flags of `rookery pgn filter`.
#[derive(clap::Args, Debug)]
#[command(
    mut_arg("in_place", |a| a.help(IN_PLACE_KEEPS_BAD)),
    after_help = "A game is kept when it passes every criterion given (of repeated --player, \
--result, --termination, --position and --material, one is enough); --invert keeps the others. \
A test on a tag the game lacks fails. Positions are those of the mainline, by Zobrist key \
(transpositions count; the move clocks do not). Every kept game is copied as it was written; a \
game that cannot be read is reported (file:line:col) and left out, or copied with \
--keep-bad. A game whose tags fail a test on tags is left out without reading its moves (as \
pgn-extract does; an error in them is not looked for: `pgn validate` checks every game), unless \
--invert or --keep-bad is given. With --shard K/N (one input, -o OUT; not with --count) a \
shard filters the K-th of N equal runs of the games into OUT.shard-K-of-N; `rookery merge OUT` \
then writes OUT and prints the summary as one run does.\n\nExamples:\n  rookery pgn filter big.pgn --tag 'WhiteElo>=2500' --tag \
'BlackElo>=2500' -o strong.pgn\n  rookery pgn filter games.pgn --tag 'Event~olympiad' --result \
1-0 --count\n  rookery pgn filter games.pgn --moves '1. e4 c5 2. Nf3' --transpose -o sicilian.pgn\n  rookery pgn filter big.pgn.zst --checkmate -o mates.pgn --shard auto   \
# in each task of an array\n  rookery merge mates.pgn"
)]
pub struct FilterArgs {
    #[command(flatten)]
    files: Files,
    #[command(flatten)]
    tests: CriteriaArgs,
    /// Print only the number of games kept (nothing is written).
    #[arg(long, conflicts_with_all = ["normalize", "json"])]
    count: bool,
    /// Write the kept games in export format instead of as they were.
    #[arg(long)]
    normalize: bool,
    #[command(flatten)]
    flags: CopyFlags,
    #[command(flatten)]
    shard: ShardArgs,
}

/// The tests of `pgn filter`, also `db search`'s: one flag group.
#[derive(clap::Args, Debug)]
pub(crate) struct CriteriaArgs {
    /// A tag test NAME OP VALUE, OP one of = != < <= > >= ~ !~ (numbers
    /// compare as numbers, dates as dates, ~ is a case-insensitive regular
    /// expression): 'WhiteElo>=2500', 'Event~olympiad'. Each must pass.
    #[arg(long, value_name = "TEST")]
    tag: Vec<String>,
    /// White or Black contains NAME (ignoring case).
    #[arg(long, value_name = "NAME")]
    player: Vec<String>,
    /// Both players rated MIN or more (and MAX or less): 2400, 2400..2600.
    #[arg(long, value_name = "MIN[..MAX]")]
    elo: Option<String>,
    /// The Date within FROM..TO (YYYY[.MM[.DD]]; either may be left out).
    #[arg(long, value_name = "FROM..TO")]
    date: Option<String>,
    /// The ECO code within FROM..TO (B20..B99), or equal to CODE.
    #[arg(long, value_name = "FROM..TO")]
    eco: Option<String>,
    /// Mainline plies within MIN..MAX (either may be left out), or exactly N.
    #[arg(long, value_name = "MIN..MAX")]
    plies: Option<String>,
    /// The result (1-0, 0-1, 1/2-1/2, *): the Result tag, else the marker.
    #[arg(long, value_name = "RESULT")]
    result: Vec<String>,
    /// The Termination tag (normal, time forfeit, abandoned, ...; ignoring case).
    #[arg(long, value_name = "VALUE")]
    termination: Vec<String>,
    /// The mainline passes through the position of FEN (any move order).
    #[arg(long, value_name = "FEN")]
    position: Vec<String>,
    /// A mainline position has this material: KRPkr (Black in small
    /// letters) or KRPvKR.
    #[arg(long, value_name = "SIGNATURE")]
    material: Vec<String>,
    /// The game starts with these moves ("1. e4 c5 2. Nf3").
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
    /// With --moves: in any order (the same position after as many plies).
    #[arg(long, requires = "moves")]
    transpose: bool,
    /// The game ends in checkmate.
    #[arg(long)]
    checkmate: bool,
    /// The game ends in stalemate.
    #[arg(long)]
    stalemate: bool,
    /// A mainline position after 50 moves by each side without a capture or
    /// a pawn move.
    #[arg(long)]
    fifty: bool,
    /// A mainline position occurs three times.
    #[arg(long)]
    repetition: bool,
    /// The game has variations.
    #[arg(long)]
    variations: bool,
    /// Keep the games that fail instead.
    #[arg(long)]
    invert: bool,
}

/// A usage error for a criterion the library refused.
fn bad(e: impl std::fmt::Display) -> anyhow::Error {
    output::usage(e.to_string())
}

impl CriteriaArgs {
    /// The criteria of the flags.
    pub(crate) fn criteria(&self) -> anyhow::Result<Criteria> {
        let text = CriteriaText {
            tags: self.tag.clone(),
            players: self.player.clone(),
            elo: self.elo.clone(),
            date: self.date.clone(),
            eco: self.eco.clone(),
            plies: self.plies.clone(),
            results: self.result.clone(),
            terminations: self.termination.clone(),
            positions: self.position.clone(),
            materials: self.material.clone(),
            moves: self.moves.clone(),
            transpose: self.transpose,
            checkmate: self.checkmate,
            stalemate: self.stalemate,
            fifty: self.fifty,
            repetition: self.repetition,
            variations: self.variations,
            invert: self.invert,
        };
        text.criteria().map_err(bad)
    }
}

/// Runs `rookery pgn filter`.
pub fn run(a: FilterArgs) -> anyhow::Result<Status> {
    let criteria = a.tests.criteria()?;
    if !a.count {
        copy::check_json(&a.flags, &a.files.output)?;
    }
    let mut plan = a.flags.plan(a.files.in_place);
    // Games their tags drop are not read further; with --keep-bad a game
    // with an error is kept whatever its tags, so each is read whole.
    if !plan.keep_bad {
        plan.copy.gate = criteria.tag_gate();
    }
    plan.copy.detail = if a.normalize {
        Detail::Full
    } else {
        criteria.detail()
    };
    // On the reading threads: the verdict, and the game in export format
    // with --normalize. A game with an error is labelled only under
    // --keep-bad: it is copied as it is.
    let normalize = a.normalize;
    let label = |g: &rookery_pgn::ReadGame, raw: &[u8]| match criteria.judge(g, raw) {
        Verdict::Keep => Some((normalize && g.error.is_none()).then(|| game_to_string(&g.game))),
        Verdict::Drop => None,
        Verdict::Bad => Some(None),
    };
    if let Some(s) = a.shard.resolve()? {
        return run_shard(&a, s, &plan, &label);
    }
    if a.count {
        let totals = copy::copy_inputs(&plan, &a.files.inputs, &label, &mut |_, _| Ok(()))?;
        let mut out = output::stdout();
        writeln!(out, "{}", totals.counts.copied)?;
        out.flush()?;
        return Ok(totals.status());
    }
    let ins = a.files.input_paths();
    let mut out = GameWriter::new(Output::create(&a.files.output, &ins, a.files.in_place)?);
    let totals = copy::copy_inputs(&plan, &a.files.inputs, &label, &mut |_, g| {
        write_kept(&mut out, &g)
    })?;
    out.finish()?.commit()?;
    copy::summary(&a.flags, &totals, serde_json::Map::new(), "")?;
    Ok(totals.status())
}

/// What a filter's label makes of a game: `Some(text)` in export format
/// (`--normalize`), else `None`: copied as it is.
type Normalized = Option<String>;

/// Shard `s` of `pgn filter`: the games of its part of the one input,
/// numbered and located as in the whole, kept as one run keeps them,
/// written to its part with its manifest (`rookery merge` joins them).
fn run_shard(
    a: &FilterArgs,
    s: Shard,
    plan: &Plan,
    label: &Label<'_, Normalized>,
) -> anyhow::Result<Status> {
    if a.count {
        return Err(output::usage(
            "--count with --shard: filter to -o OUT with --json, then `rookery merge OUT` prints the games written",
        ));
    }
    let ShardStart {
        input,
        mut job,
        span,
    } = start_shard(&a.files, s, &a.shard, "pgn filter")?;
    let out = Output::create(job.part_path(), &[input.as_path()], a.files.in_place)?;
    let mut out = GameWriter::new(out);
    let totals = copy::copy_part(
        plan,
        input,
        span,
        label,
        &mut |done| job.progress(done),
        &mut |_, g| write_kept(&mut out, &g),
    )?;
    let (out, seam) = out.finish_run();
    out.commit()?;
    job.finish(copy::shard_summary(&a.flags, &totals, &seam))?;
    copy::summary(&a.flags, &totals, serde_json::Map::new(), "")?;
    Ok(totals.status())
}

/// Writes a kept game: in export format with `--normalize`, else as it was.
fn write_kept<W: Write>(out: &mut GameWriter<W>, g: &Kept<'_, Normalized>) -> anyhow::Result<()> {
    match &g.label {
        Some(text) => Ok(out.write(text.as_bytes(), None)?),
        None => Ok(out.write(g.text, g.open_result)?),
    }
}
