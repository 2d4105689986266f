//! Test fixtures for rookery's own tests, and `rookery-mock-engine`: a UCI
//! engine whose misbehaviour is chosen on the command line, for testing hosts.
//!
//! Flags of `rookery-mock-engine` (any combination):
//!
//! | flag | behaviour |
//! |---|---|
//! | `--no-uciok` | never answers `uci` |
//! | `--crash-on-go N` | exits with status 3 (after a line on stderr) on the N-th `go` |
//! | `--hang-on-go N` | on the N-th `go` never answers, and ignores `stop` |
//! | `--garbage` | prints a non-UCI line before every answer |
//! | `--slow MS` | waits MS milliseconds before `bestmove` (unless stopped) |
//! | `--record FILE` | appends every line received to FILE |
//!
//! Otherwise it plays the first legal move (in UCI order, after sorting) and
//! reports it with an `info` line.

/// The mock's flags, parsed from its arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MockBehaviour {
    /// Never answer `uci`.
    pub no_uciok: bool,
    /// Crash on this `go` (1-based).
    pub crash_on_go: Option<u32>,
    /// Hang on this `go` (1-based).
    pub hang_on_go: Option<u32>,
    /// Print garbage before answers.
    pub garbage: bool,
    /// Delay before `bestmove`, in ms.
    pub slow_ms: u64,
    /// Where to record received lines.
    pub record: Option<String>,
}

impl MockBehaviour {
    /// Parses the flags; unknown flags are ignored.
    pub fn from_args(args: impl IntoIterator<Item = String>) -> MockBehaviour {
        let mut b = MockBehaviour::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--no-uciok" => b.no_uciok = true,
                "--garbage" => b.garbage = true,
                "--crash-on-go" => b.crash_on_go = it.next().and_then(|n| n.parse().ok()),
                "--hang-on-go" => b.hang_on_go = it.next().and_then(|n| n.parse().ok()),
                "--slow" => b.slow_ms = it.next().and_then(|n| n.parse().ok()).unwrap_or(0),
                "--record" => b.record = it.next(),
                _ => {}
            }
        }
        b
    }
}
