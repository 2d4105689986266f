//! `rookery pgn` (being built; see the issue tracker).

/// Flags of `rookery pgn`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<crate::output::Status> {
    anyhow::bail!("rookery pgn is not built yet")
}
