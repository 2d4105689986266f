//! What the tests of `--shard K/N` and `rookery merge` share: the numbers
//! of shards tried, and a command line run whole and as shards.

use super::{rookery, s};
use rookery_testkit::cmd::Run;
use std::path::Path;

/// The numbers of shards every sharded run is tried with.
pub const NS: [u32; 4] = [1, 2, 3, 7];

/// `args` with `{out}` in them replaced by `out`.
pub fn with_out(args: &[&str], out: &Path) -> Vec<String> {
    args.iter().map(|a| a.replace("{out}", s(out))).collect()
}

/// Runs `rookery ARGS` (see [`with_out`]) whole, writing `out`: it must
/// exit 0, or 1 for errors in its input. The run, its exit code and what
/// it wrote.
pub fn run_whole(args: &[&str], out: &Path) -> (Run, i32, Vec<u8>) {
    let run = rookery(&with_out(args, out), b"");
    let code = run.code().unwrap();
    assert!(code <= 1, "{}", run.describe());
    let wrote = std::fs::read(out).unwrap();
    (run, code, wrote)
}

/// Runs `rookery ARGS --shard K/N` (see [`with_out`]) for every K of `n`,
/// in order, writing their parts of `out`: a shard's status is its part's,
/// so none may exit above `code`, the whole run's. Their runs.
pub fn run_shards(args: &[&str], out: &Path, n: u32, code: i32) -> Vec<Run> {
    (1..=n)
        .map(|k| {
            let run = rookery(
                &[
                    with_out(args, out),
                    vec!["--shard".into(), format!("{k}/{n}")],
                ]
                .concat(),
                b"",
            );
            assert!(
                run.code().unwrap() <= code,
                "shard {k}/{n}: {}",
                run.describe()
            );
            run
        })
        .collect()
}
