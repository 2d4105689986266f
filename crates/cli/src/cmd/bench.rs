//! `rookery bench` (being built; see the issue tracker).

/// Flags of `rookery bench`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<crate::output::Status> {
    anyhow::bail!("rookery bench is not built yet")
}
