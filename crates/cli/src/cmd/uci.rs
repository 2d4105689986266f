//! `rookery uci` (being built; see the issue tracker).

/// Flags of `rookery uci`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<crate::output::Status> {
    anyhow::bail!("rookery uci is not built yet")
}
