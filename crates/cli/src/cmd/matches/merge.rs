//! `rookery match merge`: the shards of a match played with `--shard` put
//! back together ([`rookery_event::merge`]), written and reported as the
//! match verb writes and reports one run.

use super::report::{Printer, Say};
use crate::output::{self, Status};
use rookery_event::merge::{self, MergeError};
use std::io::Write;
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
Each shard's part is PGN.shard-K-of-N with its journal beside it
(PGN.shard-K-of-N.journal), as `rookery match ... --shard K/N --pgnout PGN`
writes them. The games are taken from the journals (the parts' PGN is
written from the same records) and written to PGN in schedule order: what
one run that played the same games one at a time writes. The statistics
(W/D/L, Elo, pentanomial, SPRT) are counted over all of them and printed as
the match prints them (--json: the same JSON). Nothing is written unless
every shard 1..N is there once, of the same match and the same N, and over
(its share played, or stopped by the pooled SPRT); the error names the file.

Example:
  rookery match merge --pgnout /shared/sprt.pgn --json > sprt.json";

/// Flags of `rookery match merge`.
#[derive(clap::Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct Args {
    /// The merged PGN, a new file: the match's --pgnout (its shards' parts
    /// are found beside it unless given).
    #[arg(long, value_name = "FILE")]
    pgnout: PathBuf,
    /// The shards' parts (default: every PGN.shard-K-of-N beside --pgnout).
    #[arg(value_name = "PART")]
    parts: Vec<PathBuf>,
    /// Also write the games' final positions to this EPD file (a new file).
    #[arg(long, value_name = "FILE")]
    epdout: Option<PathBuf>,
    /// Print the statistics as JSON on stdout (the match's --json shape).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    lines: super::Lines,
}

/// Writes `text` to `path`, a new file, whole or not at all.
fn write_new(path: &Path, text: &str) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(output::usage(format!(
            "{}: exists; the merge writes a new file (move it away first)",
            path.display()
        )));
    }
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(format!(".merging-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        anyhow::anyhow!("{}: {e}", path.display())
    })
}

/// Runs `rookery match merge`.
pub fn run(args: Args) -> anyhow::Result<Status> {
    let penta = args.lines.penta()?;
    let parts = if args.parts.is_empty() {
        merge::find_parts(&args.pgnout)?
    } else {
        args.parts.clone()
    };
    if parts.is_empty() {
        return Err(MergeError::NoParts { out: args.pgnout }.into());
    }
    let merged = merge::merge(&parts)?;
    write_new(&args.pgnout, &merged.pgn_text()?)?;
    if let Some(epd) = &args.epdout {
        write_new(epd, &merged.epd_text()?)?;
    }
    let mut printer = Printer::new(args.lines.output, &merged.plan, 0, 0, penta);
    let json = args.json;
    let say = |lines: Vec<Say>| {
        for line in lines {
            match line {
                Say::Out(l) if !json => println!("{l}"),
                Say::Out(l) | Say::Err(l) => eprintln!("{l}"),
            }
        }
    };
    say(printer.note(&format!(
        "Merged {} shards into {}: {} games",
        merged.parts.len(),
        args.pgnout.display(),
        merged.records.len()
    )));
    say(printer.end(&merged.summary));
    if json {
        let mut out = output::stdout();
        serde_json::to_writer_pretty(&mut out, &merged.summary)?;
        writeln!(out)?;
        out.flush()?;
    }
    Ok(Status::Ok)
}
