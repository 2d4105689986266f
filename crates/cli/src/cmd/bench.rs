//! `rookery bench`: fixed positions searched to a fixed depth on one thread;
//! prints the total node count (the search signature) and nodes per second.

use std::io::Write;

/// Flags of `rookery bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Search depth in plies.
    #[arg(long, default_value_t = rookery_engine::bench::DEFAULT_DEPTH)]
    depth: u32,
    /// Print machine-readable JSON.
    #[arg(long)]
    json: bool,
}

/// Runs the bench and prints its figures.
pub fn run(args: Args) -> anyhow::Result<crate::output::Status> {
    if args.depth == 0 || args.depth > 64 {
        return Err(crate::output::usage(format!(
            "--depth must be between 1 and 64 (got {})",
            args.depth
        )));
    }
    let r = rookery_engine::bench::run(args.depth);
    let ms = r.elapsed.as_millis().max(1) as u64;
    let nps = r.total_nodes * 1000 / ms;
    let mut out = crate::output::stdout();
    if args.json {
        let v = serde_json::json!({
            "depth": args.depth,
            "positions": r.nodes,
            "nodes": r.total_nodes,
            "time_ms": ms,
            "nps": nps,
        });
        writeln!(out, "{v}")?;
    } else {
        for (fen, n) in rookery_engine::bench::POSITIONS.iter().zip(&r.nodes) {
            writeln!(out, "{n:>12}  {fen}")?;
        }
        writeln!(out, "===========================")?;
        writeln!(out, "Total time (ms) : {ms}")?;
        writeln!(out, "Nodes searched  : {}", r.total_nodes)?;
        writeln!(out, "Nodes/second    : {nps}")?;
    }
    out.flush()?;
    Ok(crate::output::Status::Ok)
}
