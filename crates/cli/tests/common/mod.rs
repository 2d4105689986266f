//! What several of the CLI's test files share.

use rookery_testkit::cmd::Cmd;
use std::process::Output;

/// Runs the built `rookery` with `args`, `stdin` on its standard input, to
/// its end.
pub fn rookery(args: &[&str], stdin: &[u8]) -> Output {
    Cmd::new(env!("CARGO_BIN_EXE_rookery"))
        .args(args)
        .stdin(stdin)
        .output()
}
