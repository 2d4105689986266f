//! `rookery perft`: count leaf nodes of the legal move tree.

use crate::output::{self, usage, Status};
use anyhow::Context;
use rookery_core::{CaseOutcome, CastlingMode, Mode, Move, Position, Setup, UciMove};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Flags of `rookery perft`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  rookery perft --depth 6\n  rookery perft --fen 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' --depth 5 --divide\n  rookery perft --suite perftsuite.epd --depth 4"
)]
pub struct Args {
    /// Start position as FEN (Shredder-FEN and X-FEN castling accepted); default: the standard start.
    #[arg(long)]
    fen: Option<String>,
    /// Depth in plies (with --suite: the deepest count to check; default all).
    #[arg(long, short)]
    depth: Option<u32>,
    /// Print the count below each legal move (`e2e4: 20`), then `Nodes searched: N`,
    /// in the format of Stockfish's `go perft`.
    #[arg(long)]
    divide: bool,
    /// Write castling as king-takes-rook, as under UCI_Chess960 (implied by a castling
    /// field that only makes sense in Chess960).
    #[arg(long)]
    chess960: bool,
    /// Run a perft suite (`-`: stdin): lines `FEN ;D1 20 ;D2 400 ...` or
    /// `id`/`epd`/`perft` blocks. Exit status 1 if any count differs. Not
    /// with --fen, --divide, --json or --no-bulk.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// Worker threads (root moves are shared out).
    #[arg(long, short = 't', default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    threads: usize,
    /// Play every move down to the leaves instead of counting the last ply in bulk.
    #[arg(long)]
    no_bulk: bool,
    /// Machine-readable output: one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report {
    nodes: u64,
    seconds: f64,
    nps: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    moves: Vec<DivideEntry>,
}

#[derive(Serialize)]
struct DivideEntry {
    uci: String,
    nodes: u64,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    if let Some(suite) = &args.suite {
        for (given, flag) in [
            (args.fen.is_some(), "--fen"),
            (args.divide, "--divide"),
            (args.json, "--json"),
            (args.no_bulk, "--no-bulk"),
        ] {
            if given {
                return Err(usage(format!(
                    "{flag} cannot be used with --suite (the suite gives the positions and counts)"
                )));
            }
        }
        return run_suite(&args, suite);
    }
    let pos = match &args.fen {
        Some(fen) => read_fen(fen)?,
        None => Position::startpos(),
    };
    let mode = if args.chess960 || pos.is_chess960_castling() {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let depth = args.depth.unwrap_or(6);
    let threads = args.threads.max(1);
    let start = Instant::now();
    let (nodes, moves) = if args.divide {
        let counts: Vec<(Move, u64)> = if depth == 0 {
            // Nothing below the position: no move lines (see `divide`).
            Vec::new()
        } else if args.no_bulk {
            pos.legal_moves()
                .iter()
                .map(|&m| (m, rookery_core::perft_full(&pos.after(m), depth - 1)))
                .collect()
        } else {
            rookery_core::divide_parallel(&pos, depth, threads)
        };
        // The same total as without --divide: at depth 0 the position itself.
        let total = if depth == 0 {
            rookery_core::perft(&pos, 0)
        } else {
            counts.iter().map(|(_, n)| n).sum()
        };
        let moves = counts
            .into_iter()
            .map(|(m, n)| DivideEntry {
                uci: UciMove::from_move(&pos, m, mode).to_string(),
                nodes: n,
            })
            .collect();
        (total, moves)
    } else if args.no_bulk {
        (rookery_core::perft_full(&pos, depth), Vec::new())
    } else {
        (
            rookery_core::perft_parallel(&pos, depth, threads),
            Vec::new(),
        )
    };
    let seconds = start.elapsed().as_secs_f64();
    let nps = if seconds > 0.0 {
        (nodes as f64 / seconds) as u64
    } else {
        0
    };
    let report = Report {
        nodes,
        seconds,
        nps,
        moves,
    };
    let mut out = output::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else if args.divide {
        for m in &report.moves {
            writeln!(out, "{}: {}", m.uci, m.nodes)?;
        }
        writeln!(out)?;
        writeln!(out, "Nodes searched: {nodes}")?;
        out.flush()?;
        eprintln!("{seconds:.3} s, {nps} nodes/s");
    } else {
        writeln!(out, "nodes   {nodes}")?;
        writeln!(out, "seconds {seconds:.3}")?;
        writeln!(out, "nps     {nps}")?;
    }
    out.flush()?;
    Ok(Status::Ok)
}

fn read_fen(fen: &str) -> anyhow::Result<Position> {
    let setup =
        Setup::from_fen(fen, Mode::Lenient).with_context(|| format!("invalid FEN {fen:?}"))?;
    let (pos, warnings) = setup
        .into_position(Mode::Lenient)
        .with_context(|| format!("invalid position {fen:?}"))?;
    for (w, off) in warnings {
        eprintln!("rookery: warning: FEN byte {off}: {w} (ignored)");
    }
    Ok(pos)
}

fn run_suite(args: &Args, path: &std::path::Path) -> anyhow::Result<Status> {
    let mut text = String::new();
    // A read error names the file.
    std::io::Read::read_to_string(&mut crate::input::open_input(path)?, &mut text)?;
    let shown = output::display_name(path);
    let cases =
        rookery_core::parse_perft_suite(&text).map_err(|e| anyhow::anyhow!("{shown}:{e}"))?;
    let mut out = output::stdout();
    let (mut passed, mut failed, mut skipped, mut nodes_total) = (0usize, 0usize, 0usize, 0u64);
    let start = Instant::now();
    for case in &cases {
        let (name, fen) = (&case.name, &case.fen);
        match case.check(args.depth, args.threads) {
            CaseOutcome::InvalidFen(e) => {
                failed += 1;
                writeln!(out, "FAIL {shown}:{}: invalid FEN: {e}", case.line)?;
            }
            CaseOutcome::NoCounts => {
                failed += 1;
                let at = format!("{}:{}", path.display(), case.line);
                writeln!(out, "FAIL {name} ({fen}) no perft counts ({at})")?;
            }
            CaseOutcome::Skipped => {
                skipped += 1;
                let depth = args.depth.unwrap_or(0);
                writeln!(out, "skip {name} ({fen}) no count at depth {depth} or less")?;
            }
            CaseOutcome::Checked {
                depths,
                mismatches,
                nodes,
            } => {
                nodes_total += nodes;
                if mismatches.is_empty() {
                    passed += 1;
                    writeln!(out, "ok   {name} ({fen}) depths {depths:?}")?;
                } else {
                    failed += 1;
                    let problems: Vec<String> = mismatches
                        .iter()
                        .map(|(d, expected, got)| {
                            format!("depth {d}: expected {expected}, got {got}")
                        })
                        .collect();
                    writeln!(out, "FAIL {name} ({fen}) {}", problems.join("; "))?;
                }
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "\n{passed} passed, {failed} failed, {skipped} skipped ({} positions, {nodes_total} nodes, {seconds:.2} s)",
        cases.len()
    )?;
    out.flush()?;
    Ok(if failed == 0 {
        Status::Ok
    } else {
        Status::InputErrors
    })
}
