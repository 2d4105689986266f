//! `rookery uci`: the built-in engine speaking UCI on stdin/stdout.

/// Flags of `rookery uci`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the UCI loop until `quit` or the end of input.
pub fn run(_args: Args) -> anyhow::Result<crate::output::Status> {
    let stdin = std::io::stdin();
    rookery_engine::protocol::run(stdin.lock(), std::io::stdout())?;
    Ok(crate::output::Status::Ok)
}
