//! `rookery db`: the indexed game database (`rookery_db`): import games
//! once, then ask the explorer in milliseconds instead of reading the
//! collection again.

use crate::cmd::pgn::filter::CriteriaArgs;
use crate::cmd::pgn::tree::{print_tree, tree_json};
use crate::output::{self, Status, UsageError};
use rookery_core::{Position, UciMove};
use rookery_db::bucket::{parse_month, BucketFilter, Speed, RATING_GROUPS};
use rookery_db::{Database, ImportOptions};
use rookery_pgn::explorer::Tree;
use rookery_pgn::filter::Verdict;
use rookery_pgn::Games;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

/// Flags of `rookery db`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Add the games of PGN files (compressed too; `-` for stdin) to the
    /// database, creating it if needed. One transaction: a killed or failed
    /// import leaves the database as it was before.
    #[command(
        after_help = "Examples:\n  rookery db import games.rdb twic1500.pgn twic1501.pgn\n  \
        rookery db import games.rdb lichess_db_standard_rated_2024-01.pgn.zst --dedupe"
    )]
    Import {
        /// The database file.
        db: PathBuf,
        /// PGN inputs.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Leave out a game whose moves repeat one already stored (`pgn
        /// dedupe`'s criterion: the same final position by the same positions).
        #[arg(long)]
        dedupe: bool,
        /// Say nothing of the games left out for an error.
        #[arg(short, long)]
        quiet: bool,
    },
    /// The games that pass `pgn filter`'s tests, on what the database
    /// keeps of each (its moves; the Seven Tag Roster, the ratings, the
    /// ECO code, the start position): their numbers, or the games in PGN,
    /// or how many. Exit status 0 when a game passes, 1 when none does.
    #[command(
        after_help = "Examples:\n  rookery db search games.rdb --player carlsen --result 1-0\n  \
        rookery db search games.rdb --moves '1. e4 c5 2. Nf3' --transpose --count\n  \
        rookery db search games.rdb --material KRPkr --elo 2400.. --pgn > endings.pgn"
    )]
    Search {
        /// The database file.
        db: PathBuf,
        #[command(flatten)]
        tests: Box<CriteriaArgs>,
        /// Print only how many games pass.
        #[arg(long, conflicts_with = "pgn")]
        count: bool,
        /// Print the games that pass in PGN (export format).
        #[arg(long)]
        pgn: bool,
    },
    /// What the database holds: games, names, positions indexed, imports.
    Info {
        /// The database file.
        db: PathBuf,
        /// One JSON object.
        #[arg(long)]
        json: bool,
    },
    /// The opening explorer from the index: the moves played from a
    /// position, with the games, W/D/L, average Elo and performance, as
    /// `rookery pgn tree` counts them over the same games.
    #[command(after_help = "Examples:\n  rookery db explore games.rdb\n  \
        rookery db explore games.rdb --play e2e4,c7c5 --depth 2\n  \
        rookery db explore games.rdb --fen 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' --json")]
    Explore {
        /// The database file.
        db: PathBuf,
        /// The position (default: the standard start).
        #[arg(long, value_name = "FEN")]
        fen: Option<String>,
        /// Moves in UCI from the position, comma-separated (`e2e4,c7c5`).
        #[arg(long, value_name = "MOVES")]
        play: Option<String>,
        /// Plies of moves shown.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
        depth: u32,
        /// Only games of these speeds (lichess's, from the TimeControl tag:
        /// ultraBullet, bullet, blitz, rapid, classical, correspondence;
        /// unknown: no time control), comma-separated.
        #[arg(long, value_name = "SPEEDS")]
        speeds: Option<String>,
        /// Only games of these rating groups (lichess's: the players'
        /// average rating, in groups from 0, 1000, 1200, 1400, 1600, 1800,
        /// 2000, 2200, 2500), comma-separated: 2000,2200.
        #[arg(long, value_name = "GROUPS")]
        ratings: Option<String>,
        /// Only games of this month or later (YYYY-MM; games without a month
        /// are then not counted).
        #[arg(long, value_name = "YYYY-MM")]
        since: Option<String>,
        /// Only games of this month or earlier (YYYY-MM).
        #[arg(long, value_name = "YYYY-MM")]
        until: Option<String>,
        /// One JSON object, moves nested (as `pgn tree --json`).
        #[arg(long, conflicts_with = "lichess")]
        json: bool,
        /// One JSON object in the shape of lichess's opening explorer
        /// (`white`, `draws`, `black`, `moves` with `uci`, `san`,
        /// `averageRating`, `white`, `draws`, `black`, `game`; `topGames`,
        /// `recentGames`; `opening` with `eco` and `name`, the deepest
        /// named position of the line played), so that a client written
        /// for lichess's explorer reads it. The moves of the position only
        /// (no `--depth`); the game lists are empty (not indexed yet).
        #[arg(long, conflicts_with = "depth")]
        lichess: bool,
    },
}

/// The buckets the explorer's flags ask for.
fn bucket_filter(
    speeds: Option<&str>,
    ratings: Option<&str>,
    since: Option<&str>,
    until: Option<&str>,
) -> anyhow::Result<BucketFilter> {
    let list = |text: &str| -> Vec<String> {
        text.split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let speeds = speeds
        .map(|t| {
            list(t)
                .iter()
                .map(|w| {
                    Speed::from_name(w).ok_or_else(|| {
                        output::usage(format!(
                            "--speeds: {w:?} is not a speed (ultraBullet, bullet, blitz, rapid, \
                             classical, correspondence, unknown)"
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let ratings = ratings
        .map(|t| {
            list(t)
                .iter()
                .map(|w| {
                    w.parse::<u16>()
                        .ok()
                        .filter(|g| RATING_GROUPS.contains(g))
                        .ok_or_else(|| {
                            output::usage(format!(
                                "--ratings: {w:?} is not a rating group ({RATING_GROUPS:?})"
                            ))
                        })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let month = |flag: &str, v: Option<&str>| {
        v.map(|t| {
            parse_month(t).ok_or_else(|| output::usage(format!("{flag}: {t:?} is not YYYY-MM")))
        })
        .transpose()
    };
    Ok(BucketFilter {
        speeds,
        ratings,
        since: month("--since", since)?,
        until: month("--until", until)?,
    })
}

/// The explorer's answer in lichess's shape (see `--lichess`).
fn lichess_json(tree: &Tree, opening: Option<&rookery_pgn::eco::Opening>) -> serde_json::Value {
    let moves: Vec<serde_json::Value> = tree
        .moves
        .iter()
        .map(|b| {
            serde_json::json!({
                "uci": b.uci,
                "san": b.san,
                "averageRating": b.tally.average_elo(),
                "white": b.tally.white,
                "draws": b.tally.draws,
                "black": b.tally.black,
                "game": null,
            })
        })
        .collect();
    serde_json::json!({
        "white": tree.tally.white,
        "draws": tree.tally.draws,
        "black": tree.tally.black,
        "moves": moves,
        "topGames": [],
        "recentGames": [],
        "opening": opening.map(|o| serde_json::json!({"eco": o.eco(), "name": o.name()})),
    })
}

/// An existing database (an explore or info never creates one).
fn existing(db: &std::path::Path) -> anyhow::Result<Database> {
    if !db.exists() {
        return Err(UsageError(format!("{}: no such database", db.display())).into());
    }
    Ok(Database::open(db)?)
}

/// Runs `rookery db`.
pub fn run(args: Args) -> anyhow::Result<Status> {
    match args.command {
        Command::Import {
            db,
            inputs,
            dedupe,
            quiet,
        } => {
            let mut opened = Vec::new();
            for path in &inputs {
                let name = output::display_name(path);
                let input = crate::input::open_text(path)?;
                opened.push((name, input));
            }
            let database = Database::open(&db)?;
            let bar = crate::cmd::progress::bar("games", None);
            let report = database.import(opened, ImportOptions { dedupe }, &mut |n| {
                bar.set_position(n)
            })?;
            bar.finish_and_clear();
            if !quiet {
                for b in &report.bad {
                    eprintln!(
                        "{}:{}:{}: game {}: {}",
                        b.file, b.at.line, b.at.col, b.index, b.message
                    );
                }
            }
            println!(
                "{}: {} games stored, {} duplicates left out, {} games with errors left out",
                db.display(),
                report.games,
                report.duplicates,
                report.bad.len()
            );
            Ok(if report.bad.is_empty() {
                Status::Ok
            } else {
                Status::InputErrors
            })
        }
        Command::Search {
            db,
            tests,
            count,
            pgn,
        } => {
            let database = existing(&db)?;
            let criteria = tests.criteria()?;
            let detail = criteria.detail();
            let mut names = HashMap::new();
            let mut out = output::stdout();
            let mut found = 0u64;
            let mut failed: Option<anyhow::Error> = None;
            database.for_each(&mut |g| {
                let game = database.pgn_game(&g, &mut names)?;
                if !criteria.may_pass(&game) {
                    return Ok(true);
                }
                let text = rookery_pgn::writer::game_to_string(&game);
                // Judged as `pgn filter` judges the game it reads.
                let Some(Ok(read)) = Games::new(text.as_bytes()).with_detail(detail).next() else {
                    return Ok(true);
                };
                if criteria.judge(&read, text.as_bytes()) != Verdict::Keep {
                    return Ok(true);
                }
                found += 1;
                let written = if count {
                    Ok(())
                } else if pgn {
                    out.write_all(text.as_bytes())
                } else {
                    let tag = |n: &str| game.tags.get(n).unwrap_or("?").to_string();
                    writeln!(
                        out,
                        "{}\t{} - {}\t{}\t{}\t{}\t{} plies",
                        g.id,
                        tag("White"),
                        tag("Black"),
                        tag("Result"),
                        tag("Date"),
                        tag("Event"),
                        g.moves.len()
                    )
                };
                if let Err(e) = written {
                    failed = Some(e.into());
                    return Ok(false);
                }
                Ok(true)
            })?;
            if let Some(e) = failed {
                return Err(e);
            }
            if count {
                writeln!(out, "{found}")?;
            }
            out.flush()?;
            Ok(if found > 0 {
                Status::Ok
            } else {
                Status::InputErrors
            })
        }
        Command::Info { db, json } => {
            let info = existing(&db)?.info()?;
            let mut out = output::stdout();
            if json {
                let v = serde_json::json!({
                    "games": info.games,
                    "names": info.names,
                    "positions": info.positions,
                    "imports": info.imports,
                });
                writeln!(out, "{v}")?;
            } else {
                writeln!(out, "games      {}", info.games)?;
                writeln!(out, "names      {}", info.names)?;
                writeln!(out, "positions  {}", info.positions)?;
                for i in &info.imports {
                    writeln!(out, "import     {i}")?;
                }
            }
            out.flush()?;
            Ok(Status::Ok)
        }
        Command::Explore {
            db,
            fen,
            play,
            depth,
            speeds,
            ratings,
            since,
            until,
            json,
            lichess,
        } => {
            let filter = bucket_filter(
                speeds.as_deref(),
                ratings.as_deref(),
                since.as_deref(),
                until.as_deref(),
            )?;
            let database = existing(&db)?;
            let mut pos = match &fen {
                None => Position::startpos(),
                Some(f) => Position::from_fen(f.trim())
                    .map_err(|e| output::usage(format!("--fen {f:?}: {e}")))?,
            };
            let mut opening = rookery_pgn::eco::of_position(&pos);
            for word in play
                .iter()
                .flat_map(|p| p.split(','))
                .filter(|w| !w.is_empty())
            {
                let m = word
                    .trim()
                    .parse::<UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
                    .ok_or_else(|| {
                        output::usage(format!(
                            "--play: {word} is not a legal move in {}",
                            pos.fen()
                        ))
                    })?;
                pos.play_unchecked(m);
                opening = rookery_pgn::eco::of_position(&pos).or(opening);
            }
            let mut failed = None;
            let tree = Tree::build(&pos, depth as usize, &mut |p| {
                if failed.is_some() {
                    return None;
                }
                database.explore(p, &filter).unwrap_or_else(|e| {
                    failed = Some(e);
                    None
                })
            });
            if let Some(e) = failed {
                return Err(e.into());
            }
            let mut out = output::stdout();
            if lichess {
                writeln!(out, "{}", lichess_json(&tree, opening))?;
            } else if json {
                writeln!(out, "{}", tree_json(&tree))?;
            } else {
                print_tree(&mut out, &tree)?;
            }
            out.flush()?;
            Ok(Status::Ok)
        }
    }
}
