//! What the CLI's test modules share: the one runner of the built
//! `rookery` ([`rookery`], with [`cmd`] for a run that needs more), text and
//! path helpers, the engines the tests play against, and the referee's
//! processes.

pub mod shard;
pub mod web;

use rookery_testkit::cmd::{Cmd, KillOnDrop, Run};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

/// The built `rookery`.
pub const ROOKERY: &str = env!("CARGO_BIN_EXE_rookery");

/// The built `rookery-engine` (the UCI engine alone).
pub const ROOKERY_ENGINE: &str = env!("CARGO_BIN_EXE_rookery-engine");

/// `rookery ARGS`, not yet run: for a test that sets its directory,
/// environment or stdin, or starts it and talks to it.
pub fn cmd<I, S>(args: I) -> Cmd
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Cmd::new(ROOKERY).args(args)
}

/// Runs `rookery ARGS` with `stdin` on its standard input, to its end (the
/// [`Run`] asserts with the whole run in its messages).
pub fn rookery<S: AsRef<OsStr>>(args: &[S], stdin: &[u8]) -> Run {
    cmd(args).stdin(stdin).run()
}

/// [`rookery`] run in `dir` (for relative paths in `ARGS`).
pub fn rookery_in<S: AsRef<OsStr>>(dir: &Path, args: &[S], stdin: &[u8]) -> Run {
    cmd(args).dir(dir).stdin(stdin).run()
}

/// Output as text (invalid UTF-8 replaced).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A path as an argument (the tests' paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().expect("the tests' paths are UTF-8")
}

/// Stockfish on PATH (or /usr/games, or `STOCKFISH`); missing: the test
/// fails under CI, else is skipped with a note.
pub fn stockfish() -> Option<String> {
    rookery_testkit::peer::stockfish().map(|p| p.to_string_lossy().into_owned())
}

/// The newest modification time of `path` and the files under it.
fn newest_source(path: &Path) -> SystemTime {
    let mut newest = SystemTime::UNIX_EPOCH;
    let mut stack = vec![path.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(
                std::fs::read_dir(&p)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        } else if let Ok(t) = std::fs::metadata(&p).and_then(|m| m.modified()) {
            newest = newest.max(t);
        }
    }
    newest
}

/// `rookery-mock-engine`: `ROOKERY_MOCK_ENGINE`; else the one next to
/// `rookery` (built by `cargo test --workspace`) when it is newer than the
/// testkit's sources; else one built by cargo in a target directory of its
/// own (so that the workspace's build is left alone).
pub fn mock_engine() -> String {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        if let Some(p) = std::env::var_os("ROOKERY_MOCK_ENGINE") {
            return p.to_string_lossy().into_owned();
        }
        let exe = format!("rookery-mock-engine{}", std::env::consts::EXE_SUFFIX);
        let bin_dir = Path::new(ROOKERY).parent().unwrap();
        let testkit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit");
        let sources = newest_source(&testkit);
        let sibling = bin_dir.join(&exe);
        let fresh = |p: &Path| {
            std::fs::metadata(p)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t >= sources)
        };
        if fresh(&sibling) {
            return sibling.to_string_lossy().into_owned();
        }
        let own_target = bin_dir.join("match-cli-mock");
        let built = own_target.join("debug").join(&exe);
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "-q",
                "-p",
                "rookery-testkit",
                "--bin",
                "rookery-mock-engine",
            ])
            .arg("--target-dir")
            .arg(&own_target)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo to build rookery-mock-engine");
        assert!(status.success(), "cannot build rookery-mock-engine");
        assert!(built.exists(), "{} is missing", built.display());
        built.to_string_lossy().into_owned()
    })
    .clone()
}

/// Starts `rookery referee ARGS` (a server: `serve` or `observe`) with its
/// stdin closed; its first stdout line must start with `first`. Returns the
/// process (killed when dropped), the rest of that line (the address it
/// listens on) and the rest of its stdout.
#[track_caller]
pub fn referee(args: &[&str], first: &str) -> (KillOnDrop, String, BufReader<ChildStdout>) {
    cmd(["referee"]).args(args).start(first)
}

/// The next line of a server's stdout, which must start with `prefix`:
/// what follows it, trimmed (for a server started with its stdin open, such
/// as one that takes commands on stdin).
#[track_caller]
pub fn line_after(out: &mut impl BufRead, prefix: &str) -> String {
    let mut l = String::new();
    out.read_line(&mut l).unwrap();
    l.strip_prefix(prefix)
        .unwrap_or_else(|| panic!("expected {prefix:?}, got {l:?}"))
        .trim()
        .to_string()
}

/// Starts `rookery referee connect ARGS`, a client whose output is
/// discarded, killed when dropped.
pub fn referee_client(args: &[&str]) -> KillOnDrop {
    KillOnDrop(
        Command::new(ROOKERY)
            .args(["referee", "connect"])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// Waits for a referee started by [`referee`] to end, at most `limit` (a
/// liveness bound); returns the rest of its stdout and its stderr.
#[track_caller]
pub fn finish_referee(
    mut referee: KillOnDrop,
    out: BufReader<ChildStdout>,
    limit: Duration,
) -> (String, String) {
    rookery_testkit::cmd::finish(&mut referee.0, out, limit, "referee")
}

/// The whole stdout and stderr of `child` (both piped), each read to its
/// end (for a child that has ended, or is about to).
pub fn read_out_err(child: &mut Child) -> (String, String) {
    let mut out = String::new();
    let mut err = String::new();
    child
        .stdout
        .take()
        .expect("stdout piped")
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .expect("stderr piped")
        .read_to_string(&mut err)
        .unwrap();
    (out, err)
}

/// Lines of `path` that end in a newline (0 when it does not exist).
pub fn complete_lines(path: &Path) -> usize {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count())
}

/// Kills `child` with SIGKILL (`kill -9`) once `ready` holds, asked every
/// 5 ms: `child` must not end first (`who` names it) and `ready` must
/// come within `limit` (`never` says what did not happen).
pub fn kill_when_ready(
    child: &mut Child,
    who: &str,
    never: &str,
    limit: Duration,
    mut ready: impl FnMut() -> bool,
) {
    let t0 = std::time::Instant::now();
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{who} ended ({status}) before it could be killed");
        }
        assert!(t0.elapsed() < limit, "{never}");
        std::thread::sleep(Duration::from_millis(5));
    }
    let st = Command::new("kill")
        .args(["-9", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let _ = child.wait();
}

/// Exit status and both outputs, for an assertion message.
pub fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// Asserts that the stdout of `out` contains `needle` (the whole run in the
/// failure).
#[track_caller]
pub fn assert_stdout_has(out: &Output, needle: &str) {
    assert!(text(&out.stdout).contains(needle), "{}", describe(out));
}

/// Runs `rookery ARGS` and kills it (SIGKILL) once `partial`, the partial
/// file of its output, holds `lines` complete lines: a run killed
/// mid-write. `bound` only bounds the wait (a run that writes nothing, or
/// ends before it is killed, fails the test).
pub fn kill_once_written<S: AsRef<OsStr>>(
    args: &[S],
    partial: &Path,
    lines: usize,
    bound: Duration,
) {
    let mut child = Command::new(ROOKERY)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + bound;
    while complete_lines(partial) < lines {
        assert!(
            std::time::Instant::now() < deadline,
            "no progress in {}",
            partial.display()
        );
        assert!(child.try_wait().unwrap().is_none(), "finished too early");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}
