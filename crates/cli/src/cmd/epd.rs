//! `rookery epd` (being built; see the issue tracker).

/// Flags of `rookery epd`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<crate::output::Status> {
    anyhow::bail!("rookery epd is not built yet")
}
