//! `rookery pgn split`: one collection into many files, by count or by a
//! tag's value, every game copied byte for byte; the files' names are made
//! safe by `rookery_pgn::partition`.

use super::copy::{self, CopyFlags};
use crate::output::{Output, Status};
use rookery_pgn::collection::{GameWriter, Kept};
use rookery_pgn::copy::tag_value;
use rookery_pgn::partition::{Namer, Pattern};
use rookery_pgn::sort::TagField;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Most files `--by` keeps open at once; the others are closed until their
/// next game (a collection split by Event can have thousands).
const MAX_OPEN_FILES: usize = 128;

/// Flags of `rookery pgn split`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "With --by, one file per value of the field: any tag (ECO, Event, White, \
Black, Result, Site...), or Date:year, Date:month. A value becomes a safe file name: path \
separators, control and invisible characters and the characters Windows refuses become _, a \
leading . or - too; at most 100 bytes (a longer value is cut and keeps a hash of the whole); \
values whose names would clash, also by case alone, get ~2, ~3... A game without the tag goes to \
unknown.pgn. Every game is copied as it was written; a game that cannot be read is reported and \
left out, or copied with --keep-bad. Each file is written beside its name and renamed into place \
when complete.\n\nExamples:\n  rookery pgn split big.pgn --games 1000 -d parts\n  rookery pgn \
split games.pgn --by ECO -d by-eco\n  rookery pgn split games.pgn --by Date:year -d years \
--pattern 'twic-{value}.pgn'"
)]
#[command(group(clap::ArgGroup::new("how").required(true).args(["games", "by"])))]
pub struct SplitArgs {
    /// Input files (`-` for stdin), split together.
    #[arg(default_value = "-")]
    inputs: Vec<PathBuf>,
    /// N games a file (the last may have fewer).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    games: Option<u64>,
    /// One file per value of FIELD.
    #[arg(long, value_name = "FIELD")]
    by: Option<TagField>,
    /// The directory the files go to (made if missing).
    #[arg(short = 'd', long, value_name = "DIR", default_value = ".")]
    dir: PathBuf,
    /// The files' names: {num} (the file's number; {num:4} zero-padded) or
    /// {value} (with --by). Default: {num}.pgn, or {value}.pgn with --by.
    #[arg(long, value_name = "PATTERN")]
    pattern: Option<Pattern>,
    #[command(flatten)]
    flags: CopyFlags,
}

/// The files being written: each a game writer over a crash-safe output,
/// at most [`MAX_OPEN_FILES`] of them open.
struct Files<'a> {
    dir: &'a Path,
    inputs: Vec<&'a Path>,
    writers: HashMap<String, GameWriter<Output>>,
    /// The names of the open files, least recently used first.
    open: Vec<String>,
    /// Every file, in the order it was made.
    order: Vec<String>,
}

impl<'a> Files<'a> {
    fn new(dir: &'a Path, inputs: &'a [PathBuf]) -> Files<'a> {
        Files {
            dir,
            inputs: inputs.iter().map(PathBuf::as_path).collect(),
            writers: HashMap::new(),
            open: Vec::new(),
            order: Vec::new(),
        }
    }

    /// The writer of file `name`, made or opened again.
    fn writer(&mut self, name: &str) -> anyhow::Result<&mut GameWriter<Output>> {
        if let Some(i) = self.open.iter().position(|n| n == name) {
            let n = self.open.remove(i);
            self.open.push(n);
        } else {
            if self.open.len() >= MAX_OPEN_FILES {
                let oldest = self.open.remove(0);
                if let Some(w) = self.writers.get_mut(&oldest) {
                    w.get_mut().suspend()?;
                }
            }
            if !self.writers.contains_key(name) {
                let path = self.dir.join(name);
                let out = Output::create(&path, &self.inputs, false)?;
                self.writers.insert(name.to_owned(), GameWriter::new(out));
                self.order.push(name.to_owned());
            }
            self.open.push(name.to_owned());
        }
        // Made above if it was missing.
        self.writers
            .get_mut(name)
            .ok_or_else(|| anyhow::anyhow!("no writer for {name}"))
    }

    /// Finishes file `name` and renames it into place.
    fn commit(&mut self, name: &str) -> anyhow::Result<u64> {
        self.open.retain(|n| n != name);
        match self.writers.remove(name) {
            Some(w) => {
                let games = w.games();
                w.finish()?.commit()?;
                Ok(games)
            }
            None => Ok(0),
        }
    }
}

/// Runs `rookery pgn split`.
pub fn run(a: SplitArgs) -> anyhow::Result<Status> {
    let pattern = match (&a.pattern, &a.by) {
        (Some(p), _) => p.clone(),
        (None, Some(_)) => "{value}.pgn".parse()?,
        (None, None) => "{num}.pgn".parse()?,
    };
    if a.by.is_some() && !pattern.has_value() {
        return Err(crate::output::usage(
            "with --by the pattern needs {value}: every file would have one name",
        ));
    }
    if a.games.is_some() && !pattern.has_number() {
        return Err(crate::output::usage(
            "with --games the pattern needs {num}: every file would have one name",
        ));
    }
    std::fs::create_dir_all(&a.dir)
        .map_err(|e| anyhow::anyhow!("cannot make the directory {}: {e}", a.dir.display()))?;
    let mut namer = Namer::new(pattern);
    let mut files = Files::new(&a.dir, &a.inputs);
    let mut written: Vec<(String, u64)> = Vec::new();
    let field = a.by.clone();
    let label = |g: &rookery_pgn::ReadGame, raw: &[u8]| {
        Some(
            field
                .as_ref()
                .and_then(|f| f.value(|name| tag_value(g, raw, name))),
        )
    };
    let totals = match a.games {
        Some(per_file) => {
            // One file at a time, each renamed into place once full.
            let mut current: Option<(String, u64)> = None;
            let mut put = |_: copy::Origin<'_>, g: Kept<'_, ()>| -> anyhow::Result<()> {
                let (name, n) = match current.take() {
                    Some(c) => c,
                    None => (namer.for_number(written.len() as u64 + 1), 0),
                };
                files.writer(&name)?.write(g.text, g.open_result)?;
                if n + 1 == per_file {
                    let games = files.commit(&name)?;
                    written.push((name, games));
                } else {
                    current = Some((name, n + 1));
                }
                Ok(())
            };
            let totals =
                copy::copy_inputs(&a.flags.plan(false), &a.inputs, &|_, _| Some(()), &mut put)?;
            if let Some((name, _)) = current {
                let games = files.commit(&name)?;
                written.push((name, games));
            }
            totals
        }
        None => {
            let mut put =
                |_: copy::Origin<'_>, g: Kept<'_, Option<String>>| -> anyhow::Result<()> {
                    let name = namer.for_value(g.label.as_deref()).to_owned();
                    Ok(files.writer(&name)?.write(g.text, g.open_result)?)
                };
            let totals = copy::copy_inputs(&a.flags.plan(false), &a.inputs, &label, &mut put)?;
            for name in std::mem::take(&mut files.order) {
                let games = files.commit(&name)?;
                written.push((name, games));
            }
            totals
        }
    };
    let list: Vec<serde_json::Value> = written
        .iter()
        .map(|(name, games)| serde_json::json!({"file": a.dir.join(name), "games": games}))
        .collect();
    let mut fields = serde_json::Map::new();
    fields.insert("files".into(), list.into());
    let text = format!(" to {} files in {}", written.len(), a.dir.display());
    copy::summary(&a.flags, &totals, fields, &text)?;
    Ok(totals.status())
}
