//! What several of the CLI's test files share.

use rookery_testkit::cmd::{Cmd, Run};

/// Runs the built `rookery` with `args`, `stdin` on its standard input, to
/// its end (the [`Run`] asserts with the whole run in its messages).
pub fn rookery(args: &[&str], stdin: &[u8]) -> Run {
    Cmd::new(env!("CARGO_BIN_EXE_rookery"))
        .args(args)
        .stdin(stdin)
        .run()
}
