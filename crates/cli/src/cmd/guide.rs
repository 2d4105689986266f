//! `rookery guide [CHAPTER]`: the guide's chapters (`docs/*.md`), built
//! into the binary so that they travel with it.

use crate::output::{Status, UsageError};
use std::io::Write;

/// A chapter: its name, what it holds, its text.
pub struct Chapter {
    /// The name `rookery guide NAME` takes (the file's stem).
    pub name: &'static str,
    /// What is in it, in a line.
    pub about: &'static str,
    /// The Markdown text.
    pub text: &'static str,
}

macro_rules! chapter {
    ($name:literal, $about:literal) => {
        Chapter {
            name: $name,
            about: $about,
            text: include_str!(concat!("../../../../docs/", $name, ".md")),
        }
    };
}

/// Every chapter, in the order of the README's table.
pub const CHAPTERS: &[Chapter] = &[
    chapter!(
        "commands",
        "every command and its flags; inputs, outputs, compression, exit status"
    ),
    chapter!(
        "collections",
        "splitting, sorting, joining and cleaning PGN collections"
    ),
    chapter!(
        "books",
        "opening names (ECO), the opening explorer, Polyglot books"
    ),
    chapter!(
        "db",
        "the indexed game database: import once, explore in milliseconds"
    ),
    chapter!("suites", "test suites and their reports (Gastric)"),
    chapter!(
        "engines",
        "games between engines, SPRT, cutechess-cli and fastchess lines, annotation"
    ),
    chapter!(
        "referee",
        "the Argus network referee, its spectator page and protocol"
    ),
    chapter!("clusters", "Slurm job arrays and Kubernetes Indexed Jobs"),
    chapter!("python", "the rookery Python package"),
    chapter!("speed", "speed beside the peers; building for this CPU"),
];

/// Flags of `rookery guide`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  rookery guide\n  rookery guide engines | less")]
pub struct Args {
    /// The chapter to print (without one: the list of chapters).
    chapter: Option<String>,
}

/// Runs `rookery guide`.
pub fn run(args: Args) -> anyhow::Result<Status> {
    let mut out = std::io::stdout().lock();
    match args.chapter {
        None => {
            writeln!(
                out,
                "The guide's chapters (rookery guide CHAPTER prints one):"
            )?;
            for c in CHAPTERS {
                writeln!(out, "  {:<12} {}", c.name, c.about)?;
            }
        }
        Some(name) => {
            let chapter = CHAPTERS.iter().find(|c| c.name == name).ok_or_else(|| {
                let names: Vec<&str> = CHAPTERS.iter().map(|c| c.name).collect();
                UsageError(format!(
                    "no chapter {name:?} in the guide (chapters: {})",
                    names.join(", ")
                ))
            })?;
            out.write_all(chapter.text.as_bytes())?;
        }
    }
    out.flush()?;
    Ok(Status::Ok)
}
