//! `rookery-tune-engine`: the engine's UCI loop on stdin/stdout, built from the
//! engine crate alone, for engine-vs-engine matches (`rookery match`) against
//! a saved build while the rest of the workspace changes. `rookery uci` is the shipped equivalent;
//! `rookery-tune-engine bench [DEPTH]` prints the bench node signature and speed
//! like `rookery bench`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("bench") {
        let depth = args
            .get(1)
            .and_then(|d| d.parse().ok())
            .unwrap_or(rookery_engine::bench::DEFAULT_DEPTH);
        let r = rookery_engine::bench::run(depth);
        let ms = r.elapsed.as_millis().max(1);
        println!("Nodes searched  : {}", r.total_nodes);
        println!("Total time (ms) : {ms}");
        println!(
            "Nodes/second    : {}",
            u128::from(r.total_nodes) * 1000 / ms
        );
        return ExitCode::SUCCESS;
    }
    let stdin = std::io::stdin();
    match rookery_engine::protocol::run(stdin.lock(), std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rookery-tune-engine: {e}");
            ExitCode::from(1)
        }
    }
}
