//! Flag groups that several commands share, each defined once and
//! flattened where it is used (`#[command(flatten)]`), so that a flag reads
//! and behaves the same in every command that has it. A command whose flag
//! means a little more says so with `mut_arg` on its own arguments.

use std::path::PathBuf;

/// The inputs and the output of a verb that reads several files and writes
/// one: games or records.
#[derive(clap::Args, Debug)]
pub struct Files {
    /// Input files (`-` for stdin), read in this order.
    #[arg(default_value = "-")]
    pub inputs: Vec<PathBuf>,
    /// Output file (`-` for stdout), replaced when the run finishes.
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// Allow the output to be one of the inputs.
    #[arg(long)]
    pub in_place: bool,
}

impl Files {
    /// The inputs as paths, as the output's checks take them.
    pub fn input_paths(&self) -> Vec<&std::path::Path> {
        self.inputs.iter().map(PathBuf::as_path).collect()
    }
}

/// The input and the output of a verb that rewrites one file.
#[derive(clap::Args, Debug)]
pub struct OneFile {
    /// Input file (`-` for stdin).
    pub input: PathBuf,
    /// Output file (`-` for stdout), replaced when the run finishes.
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// Allow the output to be the input.
    #[arg(long)]
    pub in_place: bool,
}

/// What `--in-place` says in a verb that copies games: a file rewritten in
/// place keeps its games with errors, as `--keep-bad` does.
pub const IN_PLACE_KEEPS_BAD: &str = "Allow the output to be one of the inputs (a game with an \
error is then kept, as with --keep-bad: the file is the only copy)";
