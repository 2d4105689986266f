//! `rookery db`: the indexed game database (`rookery_db`): import games
//! once, then ask the explorer in milliseconds instead of reading the
//! collection again.

use crate::cmd::pgn::filter::CriteriaArgs;
use crate::cmd::pgn::tree::{print_tree, tree_json};
use crate::cmd::shard::ShardArgs;
use crate::output::{self, Status, UsageError};
use anyhow::Context;
use rookery_argus::web::WebServer;
use rookery_core::Color;
use rookery_db::bucket::BucketFilter;
use rookery_db::scan::{self, Pattern, Query};
use rookery_db::scout::ScoutQuery;
use rookery_db::{lichess, Database, ImportOptions, ImportReport};
use rookery_io::manifest::Part;
use rookery_io::shard::Shard;
use rookery_pgn::explorer::Tree;
use rookery_pgn::filter::Criteria;
use rookery_pgn::source::Source;
use std::io::Write;
use std::path::{Path, PathBuf};

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
        /// Read and replay the games on N threads (the store is written in
        /// input order by one more: the database is the same for any N).
        #[arg(short, long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
        jobs: u32,
        /// Positions counted in memory before a run is written (for tests).
        #[arg(long, hide = true, default_value_t = 0)]
        run_positions: usize,
        #[command(flatten)]
        shard: ShardArgs,
    },
    /// Put the databases of a sharded import (`db import DB FILE --shard
    /// K/N` in each task: DB.shard-K-of-N and its manifest) together into
    /// DB, which then holds the same games under the same numbers and
    /// answers every question exactly as one import of FILE would. One
    /// transaction: a killed merge leaves DB as it was. The checks of
    /// `rookery merge` (every part there, done, of one job) come first.
    #[command(after_help = "Examples:\n  \
        rookery db import games.rdb lichess-2024-01.pgn.zst --dedupe --shard auto   # each task of a Slurm array\n  \
        rookery db merge games.rdb\n  \
        rookery db merge games.rdb --clean")]
    Merge {
        /// The database the shards were given.
        db: PathBuf,
        /// Remove the parts and their manifests once DB holds their games.
        #[arg(long)]
        clean: bool,
    },
    /// The games that pass `pgn filter`'s tests, on what the database
    /// keeps of each (its moves; the Seven Tag Roster, the ratings, the
    /// ECO code, the start position): their numbers, or the games in PGN,
    /// or how many. With a position test (--sub-fen, --imbalance, --stm,
    /// --move), a scan: each game found and the plies (0: the start) at
    /// which every position test holds at once (--material and --position
    /// then join them). With --query, a Scoutfish query (sequences and
    /// streaks among its tests). Exit status 0 when a game passes, 1 when
    /// none does, 2 on an error.
    #[command(
        after_help = "Examples:\n  rookery db search games.rdb --player carlsen --result 1-0\n  \
        rookery db search games.rdb --moves '1. e4 c5 2. Nf3' --transpose --count\n  \
        rookery db search games.rdb --material KRPkr --elo 2400.. --pgn > endings.pgn\n  \
        rookery db search games.rdb --sub-fen 8/8/p7/8/8/1B3N2/8/8 --stm white --jobs 2\n  \
        rookery db search games.rdb --imbalance vP --material KRPPkrp --result 1/2-1/2\n  \
        rookery db search games.rdb --query '{\"streak\": [{\"white-move\": \"e5\"}, {\"pass\": \"\"}, {\"white-move\": \"f5\"}]}'"
    )]
    Search {
        /// The database file.
        db: PathBuf,
        #[command(flatten)]
        tests: Box<CriteriaArgs>,
        #[command(flatten)]
        scan: ScanArgs,
        /// Print only how many games pass.
        #[arg(long, conflicts_with = "pgn")]
        count: bool,
        /// Print the games that pass in PGN (export format).
        #[arg(long)]
        pgn: bool,
    },
    /// Serve the database over HTTP: lichess's opening explorer API
    /// (`/masters`, `/lichess`, `/player`), `/search`, `/game/N` (PGN) and
    /// a page (a board, the explorer's table, the games, a search, a game
    /// viewer). Prints the address; runs until killed.
    #[command(after_help = "Examples:\n  rookery db serve games.rdb\n  \
        rookery db serve games.rdb --listen 127.0.0.1:9090")]
    Serve {
        /// The database file.
        db: PathBuf,
        /// Where to listen (default: this machine only, a free port).
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
        listen: String,
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
        /// (no `--depth`). With `--player`, lichess's `/player` answer.
        #[arg(long, conflicts_with = "depth")]
        lichess: bool,
        /// With --lichess: the most played moves shown (default: all).
        #[arg(long, value_name = "N", requires = "lichess")]
        moves: Option<usize>,
        /// With --lichess: the highest rated games through the position
        /// listed (both ratings known; at most 15).
        #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u8).range(0..=15))]
        top_games: u8,
        /// With --lichess: the most recent games through the position
        /// listed (at most 15).
        #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u8).range(0..=15))]
        recent_games: u8,
        /// A player's repertoire: only the games NAME (the whole name,
        /// ignoring case) played with --color, counted from their games
        /// (as `pgn tree` over those games).
        #[arg(long, value_name = "NAME", requires = "color")]
        player: Option<String>,
        /// With --player: the colour the player had.
        #[arg(long, value_parser = ["white", "black"], requires = "player")]
        color: Option<String>,
    },
}

/// The position tests of `db search` (Scoutfish's vocabulary), held at
/// one ply at once.
#[derive(clap::Args, Debug)]
struct ScanArgs {
    /// A position has the pieces of this partial board on their squares,
    /// the other squares free (a FEN's board: 8/8/p7/8/8/1B3N2/8/8). Of
    /// several, one is enough.
    #[arg(long, value_name = "FEN")]
    sub_fen: Vec<String>,
    /// A position has this material imbalance, White's pieces less
    /// Black's as a signature: PPv (two pawns up), vP (a pawn down), BvN.
    /// Of several, one is enough.
    #[arg(long, value_name = "SIGNATURE")]
    imbalance: Vec<String>,
    /// The side to move in the position.
    #[arg(long, value_parser = ["white", "black"])]
    stm: Option<String>,
    /// This move (SAN: e8=Q, Nxf3, Rac1, O-O) is played from the position.
    /// Of several, one is enough.
    #[arg(long = "move", value_name = "SAN")]
    played: Vec<String>,
    /// The move played from the position moves one of these pieces
    /// (letters: KP, Q; the king, for castling), as Scoutfish's `moved`.
    #[arg(long, value_name = "PIECES")]
    moved: Option<String>,
    /// The move played from the position takes one of these pieces
    /// (letters: Q, RB); "" for a move that takes nothing. Scoutfish's
    /// `captured`.
    #[arg(long, value_name = "PIECES")]
    captured: Option<String>,
    /// A Scoutfish query (JSON; `@FILE` reads it from FILE): conditions
    /// of sub-fen, material, imbalance, white-move, black-move, moved,
    /// captured, stm, pass, in a "sequence" (met in order) or a "streak"
    /// (at consecutive plies), with result, result-type, skip and limit.
    /// Each game found is printed with the first ply each condition is met
    /// at. In place of the flags of single positions (--sub-fen, ...);
    /// --material and --position then test the whole game, as pgn
    /// filter's do. See docs/db.md.
    #[arg(
        long,
        value_name = "JSON",
        conflicts_with_all = ["sub_fen", "imbalance", "stm", "played", "moved", "captured"]
    )]
    query: Option<String>,
    /// Read the games on N threads (a scan: a position test, --material,
    /// --position).
    #[arg(short, long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    jobs: u32,
    /// After a scan, write to standard error how many games and plies it
    /// read, in how long, and the plies read a second.
    #[arg(long)]
    stats: bool,
}

impl ScanArgs {
    /// The Scoutfish query of --query, if one is given.
    fn scout(&self) -> anyhow::Result<Option<ScoutQuery>> {
        let Some(text) = &self.query else {
            return Ok(None);
        };
        let text = match text.strip_prefix('@') {
            Some(path) => std::fs::read_to_string(path)
                .map_err(|e| output::usage(format!("--query {text}: {e}")))?,
            None => text.clone(),
        };
        Ok(Some(text.parse().map_err(
            |e: rookery_db::scan::ScanError| output::usage(format!("--query: {e}")),
        )?))
    }

    /// The query of the flags (without --material and --position).
    fn query(&self) -> anyhow::Result<Query> {
        let bad = |e: rookery_db::scan::ScanError| output::usage(e.to_string());
        let mut q = Query::default();
        for f in &self.sub_fen {
            q.sub_fens.push(f.parse().map_err(bad)?);
        }
        for i in &self.imbalance {
            q.imbalances.push(i.parse().map_err(bad)?);
        }
        for m in &self.played {
            q.moves.push(m.parse().map_err(bad)?);
        }
        if let Some(t) = &self.stm {
            q.turn = Some(Query::parse_turn(t).map_err(bad)?);
        }
        if let Some(p) = &self.moved {
            q.moved = Some(p.parse().map_err(bad)?);
        }
        if let Some(p) = &self.captured {
            q.captured = Some(p.parse().map_err(bad)?);
        }
        Ok(q)
    }
}

/// What a scan searches for: the flags' query, or a Scoutfish query.
enum Scan<'a> {
    Flags(&'a Pattern),
    Scout(&'a ScoutQuery),
}

/// `db search` by a scan ([`Database::scan`]): with a pattern that tests
/// plies, each game's number and plies (`12 ply 34,35`); without (a
/// search on positions and material alone), the lines or PGN a search
/// prints.
fn scan_search(
    database: &Database,
    criteria: &Criteria,
    what: Scan,
    flags: &ScanArgs,
    count: bool,
    pgn: bool,
) -> anyhow::Result<Status> {
    let mut finds = Finds::new(count);
    let mut names = std::collections::HashMap::new();
    let began = std::time::Instant::now();
    let pattern = match what {
        Scan::Flags(p) => p,
        Scan::Scout(q) => &q.pattern,
    };
    let mut each = |hit: rookery_db::scan::Hit| {
        finds.each(|out| {
            if !pgn && pattern.tests_plies() {
                let plies: Vec<String> = hit.plies.iter().map(u32::to_string).collect();
                writeln!(out, "{} ply {}", hit.id, plies.join(","))?;
                return Ok(());
            }
            let (g, game) = database.found_game(hit.id, &mut names)?;
            if pgn {
                out.write_all(rookery_pgn::writer::game_to_string(&game).as_bytes())?;
                return Ok(());
            }
            write_found(out, g.id, &game, g.moves.len())
        })
    };
    let jobs = flags.jobs as usize;
    let report = match what {
        Scan::Flags(p) => database.scan(criteria, p, jobs, &mut each)?,
        Scan::Scout(q) => q.run(database, criteria, jobs, &mut each)?,
    };
    if flags.stats {
        let took = began.elapsed().as_secs_f64();
        eprintln!(
            "scanned {} games ({} past their headers), {} plies in {took:.3} s: {:.1} M plies a second",
            report.games,
            report.decoded,
            report.plies,
            report.plies as f64 / took.max(1e-9) / 1e6
        );
    }
    finds.finish()
}

/// What a search prints as it finds games: each game (unless only how
/// many are counted), the first failure to write, then the count.
struct Finds {
    out: output::Named<std::io::BufWriter<std::io::StdoutLock<'static>>>,
    found: u64,
    count: bool,
    failed: Option<anyhow::Error>,
}

impl Finds {
    fn new(count: bool) -> Finds {
        Finds {
            out: output::stdout(),
            found: 0,
            count,
            failed: None,
        }
    }

    /// One more game found, written by `write` unless only counted;
    /// whether to go on (not after a failure to write).
    fn each(&mut self, write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>) -> bool {
        self.found += 1;
        if self.count {
            return true;
        }
        match write(&mut self.out) {
            Ok(()) => true,
            Err(e) => {
                self.failed = Some(e);
                false
            }
        }
    }

    /// The failure to write, or the count printed (when asked) and the
    /// exit status: 0 when a game was found, 1 when none was, as grep's
    /// (a failure is 2: [`output::failed`]).
    fn finish(mut self) -> anyhow::Result<Status> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        if self.count {
            writeln!(self.out, "{}", self.found)?;
        }
        self.out.flush()?;
        Ok(if self.found > 0 {
            Status::Ok
        } else {
            Status::InputErrors
        })
    }
}

/// A found game's line: number, players, result, date, event, length.
fn write_found(
    out: &mut dyn Write,
    id: u64,
    game: &rookery_pgn::Game,
    plies: usize,
) -> anyhow::Result<()> {
    let tag = |n: &str| game.tags.get(n).unwrap_or("?").to_string();
    Ok(writeln!(
        out,
        "{}\t{} - {}\t{}\t{}\t{}\t{} plies",
        id,
        tag("White"),
        tag("Black"),
        tag("Result"),
        tag("Date"),
        tag("Event"),
        plies
    )?)
}

/// The buckets the explorer's flags ask for.
fn bucket_filter(
    speeds: Option<&str>,
    ratings: Option<&str>,
    since: Option<&str>,
    until: Option<&str>,
) -> anyhow::Result<BucketFilter> {
    BucketFilter::parse(speeds, ratings, since, until).map_err(|e| output::usage(format!("--{e}")))
}

/// An existing database, opened to read (an explore or info never
/// creates one, nor writes to it).
fn existing(db: &std::path::Path) -> anyhow::Result<Database> {
    if !db.exists() {
        return Err(UsageError(format!("{}: no such database", db.display())).into());
    }
    Ok(Database::open_to_read(db)?)
}

/// The verb a shard's manifest names (`rookery merge` knows its parts by
/// it).
pub const IMPORT_VERB: &str = "db import";

/// Names each game an import left out for an error (file:line:col),
/// unless `quiet`.
fn tell_bad(report: &ImportReport, quiet: bool) {
    if quiet {
        return;
    }
    for b in &report.bad {
        eprintln!(
            "{}:{}:{}: game {}: {}",
            b.file, b.at.line, b.at.col, b.index, b.message
        );
    }
}

/// Prints what an import (or a merge of its shards) stored; its exit
/// status (1 when a game was left out for an error).
fn stored(db: &Path, games: u64, duplicates: u64, bad: u64) -> Status {
    println!(
        "{}: {games} games stored, {duplicates} duplicates left out, {bad} games with errors left out",
        db.display(),
    );
    if bad == 0 {
        Status::Ok
    } else {
        Status::InputErrors
    }
}

/// `db import --shard K/N`: the shard's run of the games of the one input
/// imported into a database of its own, `DB.shard-K-of-N` (made afresh),
/// with its manifest; `db merge DB` puts the parts together.
fn import_shard(
    db: &Path,
    inputs: &[PathBuf],
    options: ImportOptions,
    quiet: bool,
    s: Shard,
    flags: &ShardArgs,
) -> anyhow::Result<Status> {
    let files = crate::flags::Files {
        inputs: inputs.to_vec(),
        output: db.to_path_buf(),
        in_place: false,
    };
    let crate::cmd::pgn::reading::ShardStart {
        input,
        mut job,
        span,
    } = crate::cmd::pgn::reading::start_shard(&files, s, flags, IMPORT_VERB)?;
    let part = job.part_path().to_path_buf();
    // A part left by an earlier run of this shard is made again.
    remove_database(&part)?;
    let name = output::display_name(input);
    let warn = name.clone();
    let source = Source::input(crate::input::open_input_raw(input)?)
        .on_latin1(move |line| crate::input::warn_latin1(&warn, line))
        .part(span.0, span.1);
    let report =
        Database::open(&part)?.import(vec![(name, source)], options, &mut |n| job.progress(n))?;
    tell_bad(&report, quiet);
    job.progress(report.games + report.duplicates + report.bad.len() as u64);
    job.finish(serde_json::json!({
        "games": report.games,
        "duplicates": report.duplicates,
        "bad": report.bad.len(),
        "dedupe": options.dedupe,
    }))?;
    Ok(stored(
        &part,
        report.games,
        report.duplicates,
        report.bad.len() as u64,
    ))
}

/// Removes database `path` and its index directory, if there.
fn remove_database(path: &Path) -> anyhow::Result<()> {
    let mut index = path.as_os_str().to_owned();
    index.push(".index");
    for (p, dir) in [(path.to_path_buf(), false), (PathBuf::from(index), true)] {
        let removed = if dir {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        };
        match removed {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(anyhow::Error::new(e).context(format!("cannot remove {}", p.display())))
            }
            _ => {}
        }
    }
    Ok(())
}

/// `db merge DB` (and `rookery merge DB` of a sharded `db import`): the
/// parts' games added to DB, in shard order; prints what one import of the
/// whole input prints; with `clean` the parts are removed after.
///
/// # Errors
/// A part or DB cannot be read or written.
pub fn merge(db: &Path, parts: &[Part], clean: bool) -> anyhow::Result<Status> {
    if let Some(p) = parts.iter().find(|p| p.manifest.verb != IMPORT_VERB) {
        return Err(output::usage(format!(
            "{} is a part of `rookery {}`, not of `rookery {IMPORT_VERB}`",
            p.path.display(),
            p.manifest.verb
        )));
    }
    let sum = |field: &str| -> u64 {
        parts
            .iter()
            .map(|p| p.manifest.summary[field].as_u64().unwrap_or(0))
            .sum()
    };
    let options = ImportOptions {
        dedupe: parts[0].manifest.summary["dedupe"]
            .as_bool()
            .unwrap_or(false),
        ..ImportOptions::default()
    };
    let paths: Vec<&Path> = parts.iter().map(|p| p.path.as_path()).collect();
    let mut database = Database::open(db)?;
    let bar = crate::cmd::progress::bar("games", Some(sum("games")));
    let report = database.merge_parts(&paths, options, &mut |n| bar.set_position(n))?;
    bar.finish_and_clear();
    database.compact()?;
    drop(database);
    if clean {
        for p in parts {
            remove_database(&p.path)?;
            let _ = std::fs::remove_file(rookery_io::manifest::Manifest::path(&p.path));
        }
    }
    Ok(stored(
        db,
        report.games,
        sum("duplicates") + report.duplicates,
        sum("bad"),
    ))
}

/// Runs `rookery db`.
pub fn run(args: Args) -> anyhow::Result<Status> {
    match args.command {
        Command::Import {
            db,
            inputs,
            dedupe,
            quiet,
            jobs,
            run_positions,
            shard,
        } => {
            let options = ImportOptions {
                dedupe,
                jobs: jobs as usize,
                run_positions,
            };
            if let Some(s) = shard.resolve()? {
                return import_shard(&db, &inputs, options, quiet, s, &shard);
            }
            let mut opened = Vec::new();
            for path in &inputs {
                let name = output::display_name(path);
                let input = crate::input::open_input_raw(path)?;
                let warn = name.clone();
                let source = Source::input(input)
                    .on_latin1(move |line| crate::input::warn_latin1(&warn, line));
                opened.push((name, source));
            }
            let mut database = Database::open(&db)?;
            let bar = crate::cmd::progress::bar("games", None);
            let report = database.import(opened, options, &mut |n| bar.set_position(n))?;
            bar.finish_and_clear();
            database.compact()?;
            tell_bad(&report, quiet);
            Ok(stored(
                &db,
                report.games,
                report.duplicates,
                report.bad.len() as u64,
            ))
        }
        Command::Merge { db, clean } => {
            let parts = rookery_io::manifest::gather(&db).map_err(crate::cmd::merge::refused)?;
            merge(&db, &parts, clean)
        }
        Command::Search {
            db,
            tests,
            scan,
            count,
            pgn,
        } => {
            // Exit status 1 is "no game found": a failure exits 2.
            let search = || -> anyhow::Result<Status> {
                let mut criteria = tests.criteria()?;
                if let Some(scout) = scan.scout()? {
                    if !scan::scannable(&criteria) {
                        return Err(output::usage(
                            "--query does not go with --moves, --fifty, --repetition, --variations or --invert",
                        ));
                    }
                    let database = existing(&db)?;
                    let what = Scan::Scout(&scout);
                    return scan_search(&database, &criteria, what, &scan, count, pgn);
                }
                let mut query = scan.query()?;
                if !query.is_empty() {
                    // Every position test at the same ply.
                    query.positions = std::mem::take(&mut criteria.positions);
                    query.materials = std::mem::take(&mut criteria.materials);
                    if !scan::scannable(&criteria) {
                        return Err(output::usage(
                            "--sub-fen, --imbalance, --stm, --move, --moved and --captured do not go with --moves, \
                             --fifty, --repetition, --variations or --invert",
                        ));
                    }
                }
                let database = existing(&db)?;
                let walks = !criteria.positions.is_empty() || !criteria.materials.is_empty();
                if !query.is_empty() || (walks && scan::scannable(&criteria)) {
                    let pattern = Pattern::from(query);
                    let what = Scan::Flags(&pattern);
                    return scan_search(&database, &criteria, what, &scan, count, pgn);
                }
                let mut finds = Finds::new(count);
                database.search(&criteria, &mut |f| {
                    finds.each(|out| {
                        let (g, game, text) = f.read()?;
                        if pgn {
                            return Ok(out.write_all(text.as_bytes())?);
                        }
                        write_found(out, g.id, &game, g.moves.len())
                    })
                })?;
                finds.finish()
            };
            search().map_err(output::failed)
        }
        Command::Serve { db, listen } => {
            let database = std::sync::Arc::new(existing(&db)?);
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("db-serve")
                .enable_all()
                .build()
                .context("cannot start the server's runtime")?;
            runtime.block_on(async {
                let server = WebServer::bind(&listen)
                    .await
                    .map_err(|e| output::usage(format!("--listen: {e}")))?;
                let bound = server.local_addr();
                crate::cmd::referee::warn_if_open("database server", &bound.to_string());
                let mut out = output::stdout();
                writeln!(out, "http://{bound}/")?;
                out.flush()?;
                server.serve(rookery_db::serve::router(database)).await?;
                Ok(Status::Ok)
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
                    "segments": info.segments.0,
                    "index_bytes": info.segments.1,
                    "imports": info.imports,
                });
                writeln!(out, "{v}")?;
            } else {
                writeln!(out, "games      {}", info.games)?;
                writeln!(out, "names      {}", info.names)?;
                writeln!(out, "positions  {}", info.positions)?;
                writeln!(
                    out,
                    "index      {} bytes in {} segments",
                    info.segments.1, info.segments.0
                )?;
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
            moves,
            top_games,
            recent_games,
            player,
            color,
        } => {
            let filter = bucket_filter(
                speeds.as_deref(),
                ratings.as_deref(),
                since.as_deref(),
                until.as_deref(),
            )?;
            let database = existing(&db)?;
            let (pos, opening) = lichess::position(fen.as_deref(), play.as_deref().unwrap_or(""))
                .map_err(|e| output::usage(format!("--{e}")))?;
            let mut out = output::stdout();
            if let (Some(player), Some(color)) = (&player, &color) {
                let color = if color == "white" {
                    Color::White
                } else {
                    Color::Black
                };
                let filter = lichess::PlayerFilter {
                    buckets: filter,
                    rated: None,
                };
                if lichess {
                    let v = lichess::player_answer(
                        &database,
                        player,
                        color,
                        &pos,
                        opening,
                        &filter,
                        moves,
                        usize::from(recent_games),
                    )?;
                    writeln!(out, "{v}")?;
                } else {
                    let (tree, _) = lichess::repertoire(
                        &database,
                        player,
                        color,
                        &pos,
                        depth as usize,
                        &filter,
                    )?;
                    if json {
                        writeln!(out, "{}", tree_json(&tree))?;
                    } else {
                        print_tree(&mut out, &tree)?;
                    }
                }
                out.flush()?;
                return Ok(Status::Ok);
            }
            if lichess {
                let lists = lichess::Lists {
                    moves,
                    top_games: Some(usize::from(top_games)),
                    recent_games: Some(usize::from(recent_games)),
                };
                let v = lichess::answer(&database, &pos, opening, &filter, lists)?;
                writeln!(out, "{v}")?;
                out.flush()?;
                return Ok(Status::Ok);
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
            if json {
                writeln!(out, "{}", tree_json(&tree))?;
            } else {
                print_tree(&mut out, &tree)?;
            }
            out.flush()?;
            Ok(Status::Ok)
        }
    }
}
