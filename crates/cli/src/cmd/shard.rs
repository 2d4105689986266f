//! `--shard K/N`: the flags every long verb takes, and one shard's run —
//! its part of the input, its output `OUT.shard-K-of-N`, its manifest
//! `OUT.shard-K-of-N.json` (kept up to date as it goes) and its progress
//! lines. `rookery merge OUT` (`cmd/merge.rs`) puts the parts together.

use crate::cmd::progress::Log;
use crate::output::{self, usage};
use anyhow::Context;
use rookery_io::manifest::{Fingerprint, Manifest};
use rookery_io::shard::{Shard, ShardChoice, ShardError};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The flags of a verb that can do one shard of a job.
#[derive(clap::Args, Debug, Clone)]
pub struct ShardArgs {
    /// Do shard K of N of the job: the K-th of N contiguous, equal runs of
    /// the input's lines (EPD) or games (PGN), written to OUT.shard-K-of-N
    /// (plain text; a database for `db import`) with a manifest
    /// OUT.shard-K-of-N.json; `rookery merge
    /// OUT` then writes OUT exactly as one run would. `auto`: K and N from
    /// a Slurm job array or a Kubernetes Indexed Job, which is also what
    /// happens without the flag inside one (with a note on stderr);
    /// `none`: the whole job, even there.
    #[arg(long, value_name = "K/N|auto|none")]
    shard: Option<ShardChoice>,
    /// The number of shards in a Kubernetes Indexed Job (which does not
    /// tell its pods; else ROOKERY_SHARDS).
    #[arg(long, value_name = "N")]
    shards: Option<u32>,
    /// With --shard and stderr not a terminal: a progress line (count,
    /// rate, ETA) every N items, and the manifest brought up to date.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    log_every: u64,
}

impl ShardArgs {
    /// The shard to do: `None` for the whole job. `1/1` is a shard like
    /// any other (a part and its manifest), so that the merge after a job
    /// array of one task finds what it merges.
    ///
    /// Without `--shard`, a task of a Slurm job array, or a pod of a
    /// Kubernetes Indexed Job that is told the number of shards, does its
    /// shard (and says so on stderr); `--shard none` does the whole job.
    ///
    /// # Errors
    /// A usage error for `auto` where no scheduler says, or for a
    /// scheduler's environment that does not make a shard.
    pub fn resolve(&self) -> anyhow::Result<Option<Shard>> {
        self.resolve_in(|name| std::env::var(name).ok(), &mut std::io::stderr())
    }

    /// [`ShardArgs::resolve`] with the environment read through `var`
    /// and the note written to `note`.
    fn resolve_in(
        &self,
        var: impl Fn(&str) -> Option<String>,
        note: &mut dyn std::io::Write,
    ) -> anyhow::Result<Option<Shard>> {
        match self.shard {
            Some(ShardChoice::Given(s)) => {
                return match self.shards {
                    Some(n) if n != s.count() => Err(usage(format!(
                        "--shard {s} and --shards {n} disagree on the number of shards"
                    ))),
                    _ => Ok(Some(s)),
                };
            }
            Some(ShardChoice::Whole) => return Ok(None),
            Some(ShardChoice::Auto) => {
                return Shard::from_env(var, self.shards)
                    .and_then(|s| s.ok_or(ShardError::NoScheduler))
                    .map(Some)
                    .map_err(|e| usage(e.to_string()));
            }
            None => {}
        }
        let kubernetes_count =
            self.shards.is_some() || var(rookery_io::shard::SHARDS_VAR).is_some();
        let source = if let Some(id) = var("SLURM_ARRAY_TASK_ID") {
            format!("the Slurm job array (SLURM_ARRAY_TASK_ID={id})")
        } else if let Some(i) = var("JOB_COMPLETION_INDEX").filter(|_| kubernetes_count) {
            format!("the Kubernetes Indexed Job (JOB_COMPLETION_INDEX={i})")
        } else if let Some(n) = self.shards {
            // A count, and nothing to say which shard this is.
            return Err(usage(format!(
                "--shards {n} counts the pods of a Kubernetes Indexed Job, but neither \
                 JOB_COMPLETION_INDEX nor a Slurm job array says which shard this is: give \
                 --shard K/{n} (or --shard none for the whole job)"
            )));
        } else {
            // Not under a scheduler, or a pod that is not told how many
            // shards there are: the whole job.
            return Ok(None);
        };
        let shard = Shard::from_env(var, self.shards)
            .map_err(|e| usage(format!("{e} (--shard none does the whole job)")))?;
        if let Some(s) = shard {
            // Best effort: a note that cannot be written changes nothing.
            let _ = writeln!(
                note,
                "rookery: note: doing shard {s} of the job, as {source} says (--shard none does \
                 the whole job)"
            );
        }
        Ok(shard)
    }
}

/// Flags that do not change what a verb writes: left out of the
/// arguments a manifest records (with the value of those that take one).
const NOT_DECISIVE: [(&str, bool); 6] = [
    ("--shard", true),
    ("--shards", true),
    ("--log-every", true),
    ("--jobs", true),
    ("-j", true),
    ("--resume", false),
];

/// This process's arguments that decide the output (see [`NOT_DECISIVE`]).
fn decisive_args() -> Vec<String> {
    let mut out = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let flag = NOT_DECISIVE.iter().find(|(f, _)| {
            a == *f
                || a.starts_with(&format!("{f}="))
                || (f.len() == 2 && a.starts_with(f) && a.len() > 2 && !a.starts_with("--"))
        });
        match flag {
            Some((f, true)) if a == *f => {
                args.next();
            }
            Some(_) => {}
            None => out.push(a),
        }
    }
    out
}

/// Refuses a shard of stdin or to stdout.
///
/// # Errors
/// Usage errors.
pub fn check_paths(input: &Path, out: &Path) -> anyhow::Result<()> {
    if output::is_std(input) {
        return Err(usage(
            "--shard needs an input file: every shard reads it (stdin cannot be read twice)",
        ));
    }
    if output::is_std(out) {
        return Err(usage(
            "--shard needs an output file (-o OUT): each shard writes OUT.shard-K-of-N",
        ));
    }
    Ok(())
}

/// The lines of `input`'s text (decompressed), as the EPD verbs read them.
///
/// # Errors
/// The input cannot be read.
pub fn count_lines(input: &Path) -> anyhow::Result<u64> {
    let text = crate::input::open_raw(input)?;
    rookery_io::part::count_lines(text)
        .with_context(|| format!("cannot read {}", output::display_name(input)))
}

/// One shard at work: where it writes, its manifest, its progress.
pub struct Job {
    part: PathBuf,
    manifest: Manifest,
    log: Log,
    every: u64,
    next_update: u64,
}

impl Job {
    /// Starts shard `shard` of `verb` on `input` (`total` `items` in
    /// all), writing beside `out`: its manifest says it is running.
    ///
    /// # Errors
    /// The input cannot be read, the manifest cannot be written.
    pub fn start(
        shard: Shard,
        flags: &ShardArgs,
        verb: &str,
        input: &Path,
        out: &Path,
        items: &'static str,
        total: u64,
    ) -> anyhow::Result<Job> {
        let part = shard.part_path(out);
        let fingerprint = Fingerprint::of_file(input)
            .with_context(|| format!("cannot read {}", input.display()))?;
        let name = output::display_name(input);
        let manifest = Manifest::new(
            verb,
            decisive_args(),
            &name,
            fingerprint,
            shard,
            items,
            total,
        );
        manifest.write(&part)?;
        let what = format!("{name} shard {shard}");
        let log = Log::new(&what, items, manifest.count, flags.log_every);
        Ok(Job {
            part,
            manifest,
            log,
            every: flags.log_every,
            next_update: flags.log_every,
        })
    }

    /// Where the part is written (`OUT.shard-K-of-N`).
    pub fn part_path(&self) -> &Path {
        &self.part
    }

    /// The items of the part (from 0, of the whole input).
    pub fn range(&self) -> Range<u64> {
        self.manifest.first..self.manifest.first + self.manifest.count
    }

    /// `done` items of the part are done: now and then a progress line
    /// and the manifest brought up to date.
    pub fn progress(&mut self, done: u64) {
        self.log.set(done);
        if done >= self.next_update {
            while self.next_update <= done {
                self.next_update += self.every;
            }
            self.manifest.done = done;
            // A manifest not brought up to date is no harm: it still says
            // running, and the part is not merged until it says done.
            let _ = self.manifest.write(&self.part);
        }
    }

    /// Items done before this run, by a run it resumes (left out of the
    /// rate).
    pub fn resumed_at(&mut self, done: u64) {
        self.log.resumed_at(done);
    }

    /// The part is written (committed): the manifest says done, with the
    /// verb's summary numbers.
    ///
    /// # Errors
    /// The manifest cannot be written.
    pub fn finish(mut self, summary: serde_json::Value) -> anyhow::Result<()> {
        let bytes = std::fs::metadata(&self.part)
            .with_context(|| format!("cannot read {}", self.part.display()))?
            .len();
        self.manifest.finish(bytes, summary);
        self.manifest.write(&self.part)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(shard: Option<&str>, shards: Option<u32>) -> ShardArgs {
        ShardArgs {
            shard: shard.map(|s| s.parse().unwrap()),
            shards,
            log_every: 1000,
        }
    }

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn resolve(
        a: &ShardArgs,
        pairs: &'static [(&'static str, &'static str)],
    ) -> (Option<String>, String) {
        let mut note = Vec::new();
        let shard = a.resolve_in(env(pairs), &mut note).unwrap();
        (
            shard.map(|s| s.to_string()),
            String::from_utf8(note).unwrap(),
        )
    }

    const ARRAY: &[(&str, &str)] = &[
        ("SLURM_ARRAY_TASK_ID", "12"),
        ("SLURM_ARRAY_TASK_MIN", "10"),
        ("SLURM_ARRAY_TASK_COUNT", "4"),
    ];

    #[test]
    fn a_task_of_a_slurm_array_does_its_shard_without_the_flag() {
        let (shard, note) = resolve(&args(None, None), ARRAY);
        assert_eq!(shard.as_deref(), Some("3/4"));
        assert!(
            note.contains("shard 3/4") && note.contains("SLURM_ARRAY_TASK_ID=12"),
            "{note}"
        );
        assert!(note.contains("--shard none"), "{note}");
        // --shard none: the whole job, silently; an explicit shard wins.
        assert_eq!(
            resolve(&args(Some("none"), None), ARRAY),
            (None, String::new())
        );
        assert_eq!(
            resolve(&args(Some("1/2"), None), ARRAY),
            (Some("1/2".to_string()), String::new())
        );
        assert_eq!(
            resolve(&args(Some("auto"), None), ARRAY),
            (Some("3/4".to_string()), String::new())
        );
    }

    #[test]
    fn outside_a_scheduler_or_uncounted_the_whole_job() {
        assert_eq!(resolve(&args(None, None), &[]), (None, String::new()));
        // A Slurm job that is not an array.
        assert_eq!(
            resolve(&args(None, None), &[("SLURM_JOB_ID", "7")]),
            (None, String::new())
        );
        // A pod of an Indexed Job not told how many shards there are.
        assert_eq!(
            resolve(&args(None, None), &[("JOB_COMPLETION_INDEX", "2")]),
            (None, String::new())
        );
        let (shard, note) = resolve(
            &args(None, None),
            &[("JOB_COMPLETION_INDEX", "2"), ("ROOKERY_SHARDS", "5")],
        );
        assert_eq!(shard.as_deref(), Some("3/5"));
        assert!(note.contains("JOB_COMPLETION_INDEX=2"), "{note}");
        assert_eq!(
            resolve(&args(None, Some(3)), &[("JOB_COMPLETION_INDEX", "0")])
                .0
                .as_deref(),
            Some("1/3")
        );
    }

    #[test]
    fn a_broken_environment_is_an_error_naming_the_way_out() {
        let mut note = Vec::new();
        let e = args(None, None)
            .resolve_in(env(&[("SLURM_ARRAY_TASK_ID", "x")]), &mut note)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("SLURM_ARRAY_TASK_ID") && e.contains("--shard none"),
            "{e}"
        );
        let e = args(Some("auto"), None)
            .resolve_in(env(&[]), &mut note)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no scheduler"), "{e}");
    }

    #[test]
    fn a_count_with_nothing_to_say_which_shard_is_an_error() {
        let mut note = Vec::new();
        let e = args(None, Some(3))
            .resolve_in(env(&[]), &mut note)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--shards 3") && e.contains("--shard K/3") && e.contains("--shard none"),
            "{e}"
        );
        let e = args(Some("1/2"), Some(3))
            .resolve_in(env(&[]), &mut note)
            .unwrap_err()
            .to_string();
        assert!(e.contains("disagree"), "{e}");
        // Agreeing, or the whole job asked for: as without the count.
        assert_eq!(
            resolve(&args(Some("2/3"), Some(3)), &[]),
            (Some("2/3".to_string()), String::new())
        );
        assert_eq!(
            resolve(&args(Some("none"), Some(3)), &[]),
            (None, String::new())
        );
        assert!(note.is_empty());
    }
}
