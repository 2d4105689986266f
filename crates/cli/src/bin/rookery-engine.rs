//! `rookery-engine`: the built-in engine, straight into the UCI loop (for GUIs).

use std::process::ExitCode;

fn main() -> ExitCode {
    let stdin = std::io::stdin();
    match rookery_engine::protocol::run(stdin.lock(), std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rookery-engine: error reading input: {e}");
            ExitCode::from(1)
        }
    }
}
