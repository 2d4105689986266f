//! `rookery book`: build | show | merge Polyglot opening books (`.bin`).
//!
//! The work is `rookery_pgn::book`'s: this file reads the flags, opens the
//! files, and prints.

use crate::output::{self, Output, Status};
use rookery_core::{Color, Position, San, SanPlus, UciMove};
use rookery_pgn::book::build::{tally_games, BuildOptions, Tally, Weights};
use rookery_pgn::book::{Book, BookMove, Summary};
use rookery_pgn::source::Source;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Flags of `rookery book`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  rookery book build games.pgn -o book.bin --max-ply 20\n  rookery book show book.bin\n  rookery book show book.bin startpos --moves \"e4 c5\"\n  rookery book merge a.bin b.bin -o both.bin"
)]
pub struct Args {
    #[command(subcommand)]
    verb: Verb,
}

#[derive(clap::Subcommand, Debug)]
enum Verb {
    /// Build a book from games, as `polyglot make-book` does: for each of
    /// the first --max-ply positions of every game, the move played; a move
    /// played in --min-games games or more enters the book with weight
    /// 2 x wins + draws (or, with --weights played, the number of games).
    Build {
        /// PGN files (`-` for stdin).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The book to write (`-` for stdout), replaced when the build finishes.
        #[arg(short, long)]
        output: PathBuf,
        /// Moves counted per game, from its start.
        #[arg(long, default_value_t = 1024)]
        max_ply: usize,
        /// Games that must have played a move for it to enter the book.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
        min_games: u64,
        /// Only White's moves.
        #[arg(long, conflicts_with = "only_black")]
        only_white: bool,
        /// Only Black's moves.
        #[arg(long)]
        only_black: bool,
        /// What a weight measures: wins (2 x wins + draws, Polyglot's) or
        /// played (games).
        #[arg(long, value_enum, default_value_t = WeightsArg::Wins)]
        weights: WeightsArg,
        /// Read with N threads (the book is the same on any number).
        #[arg(short, long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
        jobs: u32,
        /// The summary as JSON on stdout (else as text on stderr).
        #[arg(long)]
        json: bool,
    },
    /// Without a position: a summary of the book. With one (a FEN, or
    /// `startpos`, then the --moves played from it): the book's moves there
    /// with their weights, shares and learn values.
    Show {
        /// The book.
        book: PathBuf,
        /// A FEN, or `startpos`.
        position: Option<String>,
        /// Moves (SAN or UCI) played from the position first.
        #[arg(long)]
        moves: Option<String>,
        /// JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// One book from two, as `polyglot merge-book`: a position's moves from
    /// both; a move in both gets the sum of the two weights (scaled down
    /// with its position's other moves past 65,535) and the first book's
    /// learn value.
    Merge {
        /// The first book.
        first: PathBuf,
        /// The second book.
        second: PathBuf,
        /// The merged book (`-` for stdout).
        #[arg(short, long)]
        output: PathBuf,
    },
}

#[derive(clap::ValueEnum, Copy, Clone, Debug)]
enum WeightsArg {
    /// 2 x wins + draws.
    Wins,
    /// The number of games.
    Played,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    match args.verb {
        Verb::Build {
            inputs,
            output,
            max_ply,
            min_games,
            only_white,
            only_black,
            weights,
            jobs,
            json,
        } => {
            let opts = BuildOptions {
                max_ply,
                min_games,
                side: match (only_white, only_black) {
                    (true, _) => Some(Color::White),
                    (_, true) => Some(Color::Black),
                    _ => None,
                },
                weights: match weights {
                    WeightsArg::Wins => Weights::Wins,
                    WeightsArg::Played => Weights::Played,
                },
            };
            if json && output::is_std(&output) {
                return Err(output::usage(
                    "--json prints on stdout: write the book to a file (-o FILE)",
                ));
            }
            build(&inputs, &output, opts, jobs as usize, json)
        }
        Verb::Show {
            book,
            position,
            moves,
            json,
        } => show(&book, position.as_deref(), moves.as_deref(), json),
        Verb::Merge {
            first,
            second,
            output,
        } => {
            let a = open_book(&first)?;
            let b = open_book(&second)?;
            let mut out = Output::create(&output, &[&first, &second], false)?;
            rookery_pgn::book::write(&a.merge(&b), &mut out)?;
            out.commit()?;
            Ok(Status::Ok)
        }
    }
}

fn open_book(path: &Path) -> anyhow::Result<Book> {
    if output::is_std(path) {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        return Ok(Book::from_bytes(&bytes)?);
    }
    Ok(rookery_pgn::book::open(path)?)
}

fn build(
    inputs: &[PathBuf],
    out_path: &Path,
    opts: BuildOptions,
    jobs: usize,
    json: bool,
) -> anyhow::Result<Status> {
    let ins: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let mut out = Output::create(out_path, &ins, false)?;
    let mut total = Tally::new(opts);
    let mut missing = 0;
    for path in inputs {
        let file = output::display_name(path);
        if !output::is_std(path) {
            if let Some(refused) = crate::input::unreadable(path) {
                eprintln!("rookery: error: {refused}");
                missing += 1;
                continue;
            }
        }
        let input = crate::input::open_input_raw(path)?;
        let len = crate::input::file_len(path);
        let name = file.clone();
        // A last game the damage of compressed data cut is left out.
        let source =
            Source::input(input).on_latin1(move |line| crate::input::warn_latin1(&name, line));
        let pb = (std::io::stderr().is_terminal() && !json).then(|| {
            let pb = crate::cmd::progress::bar(&file, len);
            pb.set_message(file.clone());
            pb
        });
        let tally = tally_games(
            source,
            opts,
            total.report.games,
            jobs,
            &mut |d| {
                let _ =
                    crate::cmd::pgn::reading::print_diag(&mut std::io::stderr(), &file, d, false);
            },
            &mut |bytes| {
                if let Some(pb) = &pb {
                    pb.set_position(bytes);
                }
            },
        )
        .map_err(|e| {
            if output::names_its_input(&e) {
                anyhow::Error::new(e)
            } else {
                anyhow::Error::new(e).context(format!("cannot read {file}"))
            }
        })?;
        if let Some(pb) = pb {
            pb.finish_and_clear();
        }
        total.merge(tally);
    }
    let r = total.report.clone();
    let pairs = total.pairs();
    let book = total.into_book();
    rookery_pgn::book::write(&book, &mut out)?;
    out.commit()?;
    let s = book.summary();
    if json {
        let v = serde_json::json!({
            "games": r.games,
            "used": r.used,
            "errors": r.errors,
            "left_out": r.left_out,
            "missing_files": missing,
            "positions_counted": r.plies,
            "pairs": pairs,
            "entries": s.entries,
            "positions": s.positions,
            "output": output::display_name(out_path),
        });
        let mut o = output::stdout();
        writeln!(o, "{v}")?;
        o.flush()?;
    } else {
        eprintln!(
            "{} games ({} used, {} with errors of which {} left out); {} moves counted, {} distinct; {} entries in {} positions written to {}",
            r.games,
            r.used,
            r.errors,
            r.left_out,
            r.plies,
            pairs,
            s.entries,
            s.positions,
            output::display_name(out_path)
        );
    }
    Ok(if r.errors > 0 || missing > 0 {
        Status::InputErrors
    } else {
        Status::Ok
    })
}

/// The position of `book show`: a FEN or `startpos`, then `moves`.
fn position(text: &str, moves: Option<&str>) -> anyhow::Result<Position> {
    let mut pos = if text.trim() == "startpos" {
        Position::startpos()
    } else {
        Position::from_fen(text.trim())
            .map_err(|e| output::usage(format!("bad position {text:?}: {e}")))?
    };
    for word in moves.unwrap_or("").split_whitespace() {
        // Move numbers ("1.", "1...") are skipped.
        let w = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if w.is_empty() {
            continue;
        }
        let m = w
            .parse::<San>()
            .ok()
            .and_then(|s| s.to_move(&pos).ok())
            .or_else(|| {
                UciMove::from_ascii(w.as_bytes())
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
            })
            .ok_or_else(|| output::usage(format!("move {word:?} is not legal in {}", pos.fen())))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

fn show(
    path: &Path,
    pos_text: Option<&str>,
    moves: Option<&str>,
    json: bool,
) -> anyhow::Result<Status> {
    let book = open_book(path)?;
    let mut out = output::stdout();
    let name = output::display_name(path);
    let Some(pos_text) = pos_text else {
        if moves.is_some() {
            return Err(output::usage(
                "--moves needs a position (a FEN or startpos)",
            ));
        }
        print_summary(&mut out, &name, &book, &book.summary(), json)?;
        out.flush()?;
        return Ok(Status::Ok);
    };
    let pos = position(pos_text, moves)?;
    let found = book.moves(&pos);
    print_moves(&mut out, &pos, &book, &found, json)?;
    out.flush()?;
    Ok(Status::Ok)
}

fn share(weight: u16, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * f64::from(weight) / total as f64
    }
}

fn print_moves(
    out: &mut dyn Write,
    pos: &Position,
    book: &Book,
    found: &[BookMove],
    json: bool,
) -> std::io::Result<()> {
    let key = pos.polyglot_key();
    let total: u64 = found.iter().map(|m| u64::from(m.weight)).sum();
    let not_legal = book.lookup(key).len() - found.len();
    if json {
        let moves: Vec<serde_json::Value> = found
            .iter()
            .map(|m| {
                serde_json::json!({
                    "san": SanPlus::from_move(pos, m.mv).to_string(),
                    "uci": UciMove::from_move(pos, m.mv, rookery_core::CastlingMode::Standard).to_string(),
                    "raw": m.raw.to_string(),
                    "weight": m.weight,
                    "share": share(m.weight, total),
                    "learn": m.learn,
                })
            })
            .collect();
        let v = serde_json::json!({
            "fen": pos.fen(),
            "key": format!("{key:016x}"),
            "moves": moves,
            "not_legal": not_legal,
        });
        return writeln!(out, "{v}");
    }
    writeln!(out, "position  {}", pos.fen())?;
    writeln!(out, "key       {key:016x}")?;
    if found.is_empty() {
        writeln!(out, "no book move")?;
    } else {
        writeln!(
            out,
            "{:<8} {:<6} {:>6} {:>7} {:>10}",
            "move", "uci", "weight", "share", "learn"
        )?;
        for m in found {
            writeln!(
                out,
                "{:<8} {:<6} {:>6} {:>6.1}% {:>10}",
                SanPlus::from_move(pos, m.mv).to_string(),
                UciMove::from_move(pos, m.mv, rookery_core::CastlingMode::Standard).to_string(),
                m.weight,
                share(m.weight, total),
                m.learn
            )?;
        }
    }
    if not_legal > 0 {
        writeln!(
            out,
            "({not_legal} entries of this key are not legal moves here: a key collision or a damaged entry)"
        )?;
    }
    Ok(())
}

fn print_summary(
    out: &mut dyn Write,
    name: &str,
    book: &Book,
    s: &Summary,
    json: bool,
) -> std::io::Result<()> {
    let start = Position::startpos();
    let first = book.moves(&start);
    let total: u64 = first.iter().map(|m| u64::from(m.weight)).sum();
    if json {
        let start_moves: Vec<serde_json::Value> = first
            .iter()
            .map(|m| {
                serde_json::json!({
                    "san": SanPlus::from_move(&start, m.mv).to_string(),
                    "weight": m.weight,
                    "share": share(m.weight, total),
                })
            })
            .collect();
        let v = serde_json::json!({
            "book": name,
            "entries": s.entries,
            "positions": s.positions,
            "sorted": s.sorted,
            "most_moves": s.most_moves,
            "duplicates": s.duplicates,
            "zero_weight": s.zero_weight,
            "learned": s.learned,
            "total_weight": s.total_weight,
            "max_weight": s.max_weight,
            "start": start_moves,
        });
        return writeln!(out, "{v}");
    }
    writeln!(out, "book       {name}")?;
    writeln!(out, "entries    {}", s.entries)?;
    writeln!(out, "positions  {}", s.positions)?;
    writeln!(
        out,
        "sorted     {}",
        if s.sorted {
            "yes"
        } else {
            "no (readers that search the file, as Polyglot and python-chess do, will miss entries)"
        }
    )?;
    writeln!(
        out,
        "moves      at most {} in a position; {} repeated, {} of weight 0, {} with a learn value",
        s.most_moves, s.duplicates, s.zero_weight, s.learned
    )?;
    writeln!(
        out,
        "weights    total {}, largest {}",
        s.total_weight, s.max_weight
    )?;
    if first.is_empty() {
        writeln!(out, "start      no book move")?;
    } else {
        let shown: Vec<String> = first
            .iter()
            .map(|m| {
                format!(
                    "{} {:.1}%",
                    SanPlus::from_move(&start, m.mv),
                    share(m.weight, total)
                )
            })
            .collect();
        writeln!(out, "start      {}", shown.join(", "))?;
    }
    Ok(())
}
