//! What the verbs that copy games (`rookery pgn split | sort | cat`, and
//! `filter`, `dedupe`) share: their common flags ([`CopyFlags`], flattened
//! into each verb's), reading each input's games with their text as written
//! ([`copy_inputs`], over `rookery_pgn::collection`), problems reported as
//! `file:line:col: error|warning: ...` on stderr, progress on a terminal,
//! the summary ([`Totals`], [`summary`]: words on stderr, or `--json` on
//! stdout). A shard of such a verb (`--shard K/N`) reads its part of one
//! input ([`copy_part`]) and keeps its totals and the seam of its games in
//! its manifest ([`shard_summary`]); `rookery merge` joins the parts
//! ([`join_parts`]) and prints the one run's summary ([`merged_summary`]).
//!
//! A verb's `run` is: `check_json`, open its outputs, `copy_inputs` with a
//! label (on the reading threads) and a consumer (on this thread, in input
//! order), commit its outputs, `summary`, `Ok(totals.status())`:
//!
//! ```ignore
//! copy::check_json(&a.flags, &a.files.output)?;
//! let mut out = GameWriter::new(Output::create(&a.files.output, &a.files.input_paths(), a.files.in_place)?);
//! let totals = copy::copy_inputs(
//!     &a.flags.plan(a.files.in_place),
//!     &a.files.inputs,
//!     &|g, raw| keep(g, raw).then_some(()),   // None: left out
//!     &mut |_origin, kept| Ok(out.write(kept.text, kept.open_result)?),
//! )?;
//! out.finish()?.commit()?;
//! copy::summary(&a.flags, &totals, serde_json::Map::new(), "")?;
//! Ok(totals.status())
//! ```

use super::reading::{print_diag, progress, read_failure};
use crate::output::{self, Status};
use rookery_io::manifest;
use rookery_pgn::collection::{self, Counts, GameWriter, Judged, Kept, Label, Plan, Seam};
use rookery_pgn::copy::CopyPlan;
use rookery_pgn::source::Source;
use rookery_pgn::split::Start;
use rookery_pgn::GameResult;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Flags every verb that copies games takes.
#[derive(clap::Args, Debug)]
pub struct CopyFlags {
    /// Copy a game that cannot be read (an illegal move, a bad FEN tag) as
    /// it is; without it, such a game is reported and counted as rejected.
    #[arg(long)]
    pub keep_bad: bool,
    /// Read with N threads (the result is that of one).
    #[arg(short, long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
    /// Do not report warnings.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print a summary as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Bytes per chunk with --jobs (for tests).
    #[arg(long, hide = true, default_value_t = 1 << 20)]
    pub chunk_bytes: usize,
}

impl CopyFlags {
    /// The library's plan for these flags, reading each game at
    /// [`rookery_pgn::game::Detail::Count`] (set `plan.copy.detail` for a
    /// label that needs the moves). A file rewritten in place (`in_place`)
    /// keeps its games with errors, as `--keep-bad` does: each is reported
    /// and copied as it is, never lost from the only copy.
    pub fn plan(&self, in_place: bool) -> Plan {
        Plan {
            keep_bad: self.keep_bad || in_place,
            copy: CopyPlan {
                jobs: self.jobs as usize,
                chunk_bytes: self.chunk_bytes,
                quiet: self.quiet,
                ..CopyPlan::default()
            },
        }
    }
}

/// What a run over every input counted.
#[derive(Debug, Default)]
pub struct Totals {
    /// The games' counts.
    pub counts: Counts,
    /// Inputs that could not be opened or read.
    pub missing_files: u64,
}

impl Totals {
    /// Exit status 1 when a game had an error or an input was missing.
    pub fn status(&self) -> Status {
        if self.counts.error_games > 0 || self.missing_files > 0 {
            Status::InputErrors
        } else {
            Status::Ok
        }
    }

    /// The summary's common fields, as JSON.
    pub fn json(&self) -> serde_json::Map<String, serde_json::Value> {
        let c = &self.counts;
        let mut m = serde_json::Map::new();
        m.insert("games".into(), c.games.into());
        m.insert("written".into(), c.copied.into());
        m.insert("rejected".into(), c.rejected.into());
        m.insert("left_out".into(), c.left_out.into());
        m.insert("errors".into(), c.error_games.into());
        m.insert("warnings".into(), c.warnings.into());
        m.insert("missing_files".into(), self.missing_files.into());
        m
    }

    /// The totals [`Totals::json`] gave.
    fn from_json(v: &serde_json::Value) -> Totals {
        let n = |k: &str| v[k].as_u64().unwrap_or(0);
        Totals {
            counts: Counts {
                games: n("games"),
                copied: n("written"),
                rejected: n("rejected"),
                left_out: n("left_out"),
                error_games: n("errors"),
                warnings: n("warnings"),
            },
            missing_files: n("missing_files"),
        }
    }

    /// The summary's common words: `N games read, N written, N rejected`.
    pub fn text(&self) -> String {
        let c = &self.counts;
        let mut s = format!("{} games read, {} written", c.games, c.copied);
        if c.left_out > 0 {
            s.push_str(&format!(", {} left out", c.left_out));
        }
        if c.rejected > 0 {
            s.push_str(&format!(
                ", {} rejected (errors; --keep-bad copies them)",
                c.rejected
            ));
        } else if c.error_games > 0 {
            s.push_str(&format!(", {} with errors kept", c.error_games));
        }
        if self.missing_files > 0 {
            s.push_str(&format!(", {} inputs not read", self.missing_files));
        }
        s
    }
}

/// Refuses `--json` when the games go to stdout (the summary would be
/// mixed with them).
///
/// # Errors
/// A usage error.
pub fn check_json(flags: &CopyFlags, output: &Path) -> anyhow::Result<()> {
    if flags.json && output::is_std(output) {
        return Err(output::usage(
            "--json prints the summary on stdout, where the games go: give -o FILE",
        ));
    }
    Ok(())
}

/// Prints the summary: `fields` added to the common ones as JSON on stdout
/// with `--json`, else `text` after the common words on stderr.
///
/// # Errors
/// Writing stdout.
pub fn summary(
    flags: &CopyFlags,
    totals: &Totals,
    fields: serde_json::Map<String, serde_json::Value>,
    text: &str,
) -> anyhow::Result<()> {
    print_summary(flags.json, totals, fields, text)
}

/// [`summary`], as JSON if `json`.
fn print_summary(
    json: bool,
    totals: &Totals,
    fields: serde_json::Map<String, serde_json::Value>,
    text: &str,
) -> anyhow::Result<()> {
    if json {
        let mut m = totals.json();
        m.extend(fields);
        let mut out = output::stdout();
        writeln!(out, "{}", serde_json::Value::Object(m))?;
        out.flush()?;
    } else {
        eprintln!("{}{text}", totals.text());
    }
    Ok(())
}

/// Where a kept game comes from, for a consumer that names it (a report
/// of duplicates: `file:line`).
#[derive(Copy, Clone, Debug)]
#[allow(
    dead_code,
    reason = "for consumers that name games (pgn dedupe --report); split, sort and cat do not"
)]
pub struct Origin<'a> {
    /// The input's name as diagnostics print it (`<stdin>` for `-`).
    pub name: &'a str,
    /// The input's place in the list, from 0.
    pub input: usize,
}

/// Reads every input in turn (`-`: stdin) as `plan` says and hands its
/// kept games, labelled by `label` (on the reading threads: see
/// [`Label`]; `None` leaves a game out), to `consume` in input order with
/// their [`Origin`]; games rejected or left out are only counted. Problems
/// go to stderr as `file:line:col: error|warning: ...`, and the first tag
/// value of an input that is not UTF-8 is named once (it is read as
/// Latin-1; the bytes are copied as they are). An input that cannot be
/// opened is reported and counted ([`Totals::missing_files`]); the others
/// are still read.
///
/// # Errors
/// An input that fails while read, or `consume`'s first error.
pub fn copy_inputs<L: Send>(
    plan: &Plan,
    inputs: &[PathBuf],
    label: &Label<'_, L>,
    consume: &mut dyn FnMut(Origin<'_>, Kept<'_, L>) -> anyhow::Result<()>,
) -> anyhow::Result<Totals> {
    let mut totals = Totals::default();
    for (input, path) in inputs.iter().enumerate() {
        if !output::is_std(path) {
            if let Some(refused) = crate::input::unreadable(path) {
                eprintln!("rookery: error: {refused}");
                totals.missing_files += 1;
                continue;
            }
        }
        let counts = copy_one(plan, path, input, None, label, &mut |_| {}, consume)?;
        totals.counts.merge(&counts);
    }
    Ok(totals)
}

/// [`copy_inputs`] over a shard's part of the input file `path`: the
/// games from `span.0` (as [`rookery_pgn::source::game_span`] finds it) to
/// byte `span.1` of its text, numbered and located as in the whole file;
/// `done` hears the games of the part read so far.
///
/// # Errors
/// As [`copy_inputs`]; the input cannot be opened.
pub fn copy_part<L: Send>(
    plan: &Plan,
    path: &Path,
    span: (Start, Option<u64>),
    label: &Label<'_, L>,
    done: &mut dyn FnMut(u64),
    consume: &mut dyn FnMut(Origin<'_>, Kept<'_, L>) -> anyhow::Result<()>,
) -> anyhow::Result<Totals> {
    let counts = copy_one(plan, path, 0, Some(span), label, done, consume)?;
    Ok(Totals {
        counts,
        missing_files: 0,
    })
}

/// Reads input number `input`, `path` (the part `span` of it, if given),
/// reporting each game's problems and handing its kept games to `consume`.
fn copy_one<L: Send>(
    plan: &Plan,
    path: &Path,
    input: usize,
    span: Option<(Start, Option<u64>)>,
    label: &Label<'_, L>,
    done: &mut dyn FnMut(u64),
    consume: &mut dyn FnMut(Origin<'_>, Kept<'_, L>) -> anyhow::Result<()>,
) -> anyhow::Result<Counts> {
    let file = output::display_name(path);
    let origin = Origin { name: &file, input };
    let first = span.map_or(1, |(start, _)| start.index);
    let mut latin1_told = false;
    copy_file(plan, path, span, label, &mut |g: Judged<'_, L>| {
        done((g.index + 1).saturating_sub(first) as u64);
        let mut err = std::io::stderr().lock();
        for d in &g.diags {
            print_diag(&mut err, &file, d, false)?;
        }
        if let (Some(line), false) = (g.latin1_line, latin1_told) {
            latin1_told = true;
            drop(err);
            crate::input::warn_latin1(&file, line);
        }
        match g.kept {
            Some(kept) => consume(origin, kept),
            None => Ok(()),
        }
    })
}

/// Reads one input (the part `span` of it, if given) as
/// [`Source::input`] does: a regular file of plain text on `plan.jobs`
/// threads, each reading its own pieces; stdin, a pipe, a compressed file
/// or a part in order. The bytes are read as they are.
fn copy_file<L: Send>(
    plan: &Plan,
    path: &Path,
    span: Option<(Start, Option<u64>)>,
    label: &Label<'_, L>,
    sink: &mut dyn FnMut(Judged<'_, L>) -> anyhow::Result<()>,
) -> anyhow::Result<Counts> {
    let file = output::display_name(path);
    let pb = progress(path);
    let mut progress = |bytes: u64| {
        if let Some(pb) = &pb {
            pb.set_position(bytes);
        }
    };
    let input = crate::input::open_input_raw(path)
        .map_err(|e| anyhow::anyhow!("cannot open {file}: {e}"))?;
    let mut source = Source::input(input);
    if let Some((start, end)) = span {
        source = source.part(start, end);
    }
    // A last game the damage of compressed data cut is an error.
    let done = collection::run(plan, source, label, &mut progress, sink);
    let counts = done.map_err(|e| read_failure(e, &file))?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok(counts)
}

/// What a shard of a verb that writes games keeps in its manifest: its
/// totals, the seam of its games (how its part joins the others: see
/// [`Seam`]) and whether the summary is asked for as JSON.
pub fn shard_summary(flags: &CopyFlags, totals: &Totals, seam: &Seam) -> serde_json::Value {
    serde_json::json!({
        "totals": totals.json(),
        "seam": {
            "games": seam.games,
            "first_tag": seam.first_tag,
            "first_crlf": seam.first_crlf,
            "open": seam.open.map(|r| r.as_str()),
            "open_crlf": seam.open_crlf,
        },
        "json": flags.json,
    })
}

/// The seam [`shard_summary`] kept.
fn seam_of(summary: &serde_json::Value) -> Seam {
    let s = &summary["seam"];
    let yes = |k: &str| s[k].as_bool().unwrap_or(false);
    Seam {
        games: s["games"].as_u64().unwrap_or(0),
        first_tag: yes("first_tag"),
        first_crlf: yes("first_crlf"),
        open: s["open"]
            .as_str()
            .and_then(|r| GameResult::from_ascii(r.as_bytes())),
        open_crlf: yes("open_crlf"),
    }
}

/// `rookery merge` of a verb that writes games: the parts joined at their
/// seams into `out`, exactly the games one run writes.
///
/// # Errors
/// A part cannot be read; writing `out`.
pub fn join_parts(parts: &[manifest::Part], out: &mut dyn Write) -> anyhow::Result<()> {
    let mut games = GameWriter::new(out);
    for p in parts {
        let mut body = std::fs::File::open(&p.path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.path.display()))?;
        games.append_run(&seam_of(&p.manifest.summary), &mut body)?;
    }
    games.finish()?;
    Ok(())
}

/// `rookery merge` of a verb that writes games: the summary one run
/// prints, from the shards' ([`shard_summary`]); its exit status.
///
/// # Errors
/// Writing stdout.
pub fn merged_summary(summaries: &[serde_json::Value]) -> anyhow::Result<Status> {
    let mut totals = Totals::default();
    for s in summaries {
        let t = Totals::from_json(&s["totals"]);
        totals.counts.merge(&t.counts);
        totals.missing_files += t.missing_files;
    }
    let json = summaries.iter().any(|s| s["json"].as_bool() == Some(true));
    print_summary(json, &totals, serde_json::Map::new(), "")?;
    Ok(totals.status())
}

/// Reads a size for a verb's `--memory` (`pgn sort`, `pgn dedupe`): a number
/// of bytes with an optional K, M or G (powers of 1024; `KB`, `KiB`, small
/// letters too).
///
/// # Errors
/// A message naming the text, for clap.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => (&t[..i], &t[i..]),
        None => (t, ""),
    };
    let shift = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => {
            return Err(format!(
                "bad size {s:?}: expected bytes, or a number with K, M or G"
            ))
        }
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("bad size {s:?}: expected bytes, or a number with K, M or G"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("size {s:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("100"), Ok(100));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert!(parse_size("2T").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("-1").is_err());
    }
}
