//! What the verbs that copy games (`rookery pgn split | sort | cat`, and
//! `filter`, `dedupe`) share: their common flags ([`CopyFlags`], flattened
//! into each verb's), reading each input's games with their text as written
//! ([`copy_inputs`], over `rookery_pgn::collection`), problems reported as
//! `file:line:col: error|warning: ...` on stderr, progress on a terminal,
//! the summary ([`Totals`], [`summary`]: words on stderr, or `--json` on
//! stdout).
//!
//! A verb's `run` is: `check_json`, open its outputs, `copy_inputs` with a
//! label (on the reading threads) and a consumer (on this thread, in input
//! order), commit its outputs, `summary`, `Ok(totals.status())`:
//!
//! ```ignore
//! pgn_copy::check_json(&a.flags, &a.output)?;
//! let mut out = GameWriter::new(Output::create(&a.output, &inputs, a.in_place)?);
//! let totals = pgn_copy::copy_inputs(
//!     &a.flags.plan(),
//!     &a.inputs,
//!     &|g, raw| keep(g, raw).then_some(()),   // None: left out
//!     &mut |_origin, kept| Ok(out.write(kept.text, kept.open_result)?),
//! )?;
//! out.finish()?.commit()?;
//! pgn_copy::summary(&a.flags, &totals, serde_json::Map::new(), "")?;
//! Ok(totals.status())
//! ```

use crate::cmd::pgn::{print_diag, progress};
use crate::output::{self, Status};
use rookery_pgn::collection::{self, Counts, Judged, Kept, Label, Plan};
use rookery_pgn::copy::CopyPlan;
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
    /// label that needs the moves).
    pub fn plan(&self) -> Plan {
        Plan {
            keep_bad: self.keep_bad,
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
    if flags.json {
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
            if let Some(refused) = output::unreadable(path) {
                eprintln!("rookery: error: {refused}");
                totals.missing_files += 1;
                continue;
            }
        }
        let file = output::display_name(path);
        let origin = Origin { name: &file, input };
        let mut latin1_told = false;
        let counts = copy_file(plan, path, label, &mut |g: Judged<'_, L>| {
            let mut err = std::io::stderr().lock();
            for d in &g.diags {
                print_diag(&mut err, &file, d, false)?;
            }
            if let (Some(line), false) = (g.latin1_line, latin1_told) {
                latin1_told = true;
                drop(err);
                output::warn_latin1(&file, line);
            }
            match g.kept {
                Some(kept) => consume(origin, kept),
                None => Ok(()),
            }
        })?;
        totals.counts.merge(&counts);
    }
    Ok(totals)
}

/// Reads one input: a file on `plan.jobs` threads, each reading its own
/// pieces; stdin, or one thread, in order. The bytes are read as they are.
fn copy_file<L: Send>(
    plan: &Plan,
    path: &Path,
    label: &Label<'_, L>,
    sink: &mut dyn FnMut(Judged<'_, L>) -> anyhow::Result<()>,
) -> anyhow::Result<Counts> {
    let file = output::display_name(path);
    let input_len = output::file_len(path);
    let mut plan = plan.clone();
    plan.copy.input_len = input_len;
    let pb = progress(path);
    let mut progress = |bytes: u64| {
        if let Some(pb) = &pb {
            pb.set_position(bytes);
        }
    };
    let done = if input_len.is_some() && plan.copy.jobs > 1 {
        let input =
            std::fs::File::open(path).map_err(|e| anyhow::anyhow!("cannot open {file}: {e}"))?;
        collection::run_at(&plan, &input, label, &mut progress, sink)
    } else {
        // A last game the damage of compressed data cut is an error.
        let input =
            output::open_input_raw(path).map_err(|e| anyhow::anyhow!("cannot open {file}: {e}"))?;
        collection::run_input(&plan, input, label, &mut progress, sink)
    };
    let counts = done.map_err(|e| crate::cmd::pgn::read_failure(e, &file))?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok(counts)
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
