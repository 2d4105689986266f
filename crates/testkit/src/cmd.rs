//! One harness for the tests that run a built binary: [`Cmd`] starts it
//! (arguments, stdin, directory, environment) and [`Run`] holds what came
//! out, with assertions that show the command, its status, stdout and stderr,
//! and a line diff against what was expected.
//!
//! ```no_run
//! use rookery_testkit::cmd::Cmd;
//!
//! // In a test of the `rookery` package: env!("CARGO_BIN_EXE_rookery").
//! let run = Cmd::new("/path/to/rookery").args(["show", "8/8/8/8/8/8/8/K6k w - - 0 1"]).run();
//! run.assert_code(0).assert_stdout_contains("legal moves");
//! ```

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// A command line to run: the program, its arguments, what it reads on
/// stdin (nothing unless given) and where it runs.
#[derive(Clone, Debug)]
pub struct Cmd {
    program: OsString,
    args: Vec<OsString>,
    stdin: Vec<u8>,
    dir: Option<PathBuf>,
    env: Vec<(OsString, Option<OsString>)>,
}

impl Cmd {
    /// The program (`env!("CARGO_BIN_EXE_rookery")` in the CLI's tests).
    pub fn new(program: impl AsRef<OsStr>) -> Cmd {
        Cmd {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            stdin: Vec::new(),
            dir: None,
            env: Vec::new(),
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Cmd {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Cmd
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// The bytes the program reads on stdin (then end of input).
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Cmd {
        self.stdin = bytes.as_ref().to_vec();
        self
    }

    /// Runs the program in `dir`.
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Cmd {
        self.dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Sets an environment variable for the program.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Cmd {
        self.env
            .push((key.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    /// Removes an environment variable for the program.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Cmd {
        self.env.push((key.as_ref().to_owned(), None));
        self
    }

    /// The command line as a person would type it (for failure messages).
    pub fn line(&self) -> String {
        let mut s = self.program.to_string_lossy().into_owned();
        for a in &self.args {
            let a = a.to_string_lossy();
            if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
                let _ = write!(s, " '{}'", a.replace('\'', "'\\''"));
            } else {
                let _ = write!(s, " {a}");
            }
        }
        s
    }

    /// Starts the program with stdin, stdout and stderr piped, for a test
    /// that talks to it while it runs (what [`Cmd::stdin`] was given is not
    /// written: the test writes to the child's stdin itself).
    ///
    /// # Panics
    /// If the program cannot be started (a broken build, not a test result).
    pub fn spawn(&self) -> Child {
        let mut c = Command::new(&self.program);
        c.args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(d) = &self.dir {
            c.current_dir(d);
        }
        for (k, v) in &self.env {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        c.spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.line()))
    }

    /// Starts a program that runs on while the test talks to it, such as a
    /// server that says on its first line where it listens: its stdin is
    /// closed at once, stdout and stderr are piped. Reads the first line of
    /// stdout and returns the process (killed when dropped), what follows
    /// `prefix` on that line (trimmed), and the rest of stdout.
    ///
    /// # Panics
    /// If the program cannot be started, or its first line does not start
    /// with `prefix` (the message shows the line).
    #[track_caller]
    pub fn start(&self, prefix: &str) -> (KillOnDrop, String, BufReader<ChildStdout>) {
        let mut child = self.spawn();
        drop(child.stdin.take());
        // `spawn` pipes stdout.
        let mut out = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let child = KillOnDrop(child);
        let mut first = String::new();
        let _ = out.read_line(&mut first);
        let Some(rest) = first.strip_prefix(prefix) else {
            panic!(
                "{}: the first line is {first:?}, expected one starting with {prefix:?}",
                self.line()
            );
        };
        (child, rest.trim().to_string(), out)
    }

    /// Runs the program to its end and returns what it wrote.
    ///
    /// # Panics
    /// If the program cannot be started (a broken build, not a test result).
    pub fn output(self) -> Output {
        let mut child = self.spawn();
        if let Some(mut input) = child.stdin.take() {
            // The program may exit without reading its input: a broken
            // pipe here is its business, not a failure of the harness.
            let _ = input.write_all(&self.stdin);
        }
        child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("cannot wait for {}: {e}", self.line()))
    }

    /// Runs the program to its end; the result keeps the command line for
    /// its failure messages.
    pub fn run(self) -> Run {
        let line = self.line();
        let out = self.output();
        Run {
            line,
            status: out.status,
            stdout: out.stdout,
            stderr: out.stderr,
        }
    }
}

/// What a finished command wrote, and how it ended.
#[derive(Clone, Debug)]
pub struct Run {
    /// The command line.
    pub line: String,
    /// How it ended.
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
}

impl Run {
    /// The exit code (`None`: killed by a signal).
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// Standard output as text (invalid UTF-8 replaced).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Standard error as text (invalid UTF-8 replaced).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The whole run for a failure message: command, status, both streams.
    pub fn describe(&self) -> String {
        format!(
            "command: {}\nstatus: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.line,
            self.status,
            self.stdout_text(),
            self.stderr_text()
        )
    }

    /// Checks the exit code.
    ///
    /// # Panics
    /// If it differs, with [`Run::describe`].
    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Run {
        assert!(
            self.code() == Some(code),
            "expected exit status {code}\n{}",
            self.describe()
        );
        self
    }

    /// Checks that stdout is exactly `expected`.
    ///
    /// # Panics
    /// If not, with a line diff.
    #[track_caller]
    pub fn assert_stdout(&self, expected: &str) -> &Run {
        assert_text_eq(expected, &self.stdout_text(), &self.line);
        self
    }

    /// Checks that stdout contains `needle`.
    ///
    /// # Panics
    /// If not, with [`Run::describe`].
    #[track_caller]
    pub fn assert_stdout_contains(&self, needle: &str) -> &Run {
        self.assert_contains("stdout", &self.stdout_text(), needle)
    }

    /// Checks that stderr contains `needle`.
    ///
    /// # Panics
    /// If not, with [`Run::describe`].
    #[track_caller]
    pub fn assert_stderr_contains(&self, needle: &str) -> &Run {
        self.assert_contains("stderr", &self.stderr_text(), needle)
    }

    #[track_caller]
    fn assert_contains(&self, stream: &str, text: &str, needle: &str) -> &Run {
        assert!(
            text.contains(needle),
            "{stream} lacks {needle:?}\n{}",
            self.describe()
        );
        self
    }
}

/// A command line written on one line: split at white space into
/// arguments, then every `{name}` in an argument replaced by the value given
/// for `name` (after the split, so a value with spaces stays one argument).
/// A test then reads like the command a person would type, and two tests
/// that run the same command can share the line.
///
/// ```
/// use rookery_testkit::cmd::argv;
///
/// let args = argv("epd normalize {in} -o {out}", &[("in", "a b.epd"), ("out", "c.epd")]);
/// assert_eq!(args, ["epd", "normalize", "a b.epd", "-o", "c.epd"]);
/// assert_eq!(argv("--each tc={tc}", &[("tc", "1+0.1")]), ["--each", "tc=1+0.1"]);
/// ```
///
/// # Panics
/// If `line` names a `{name}` that `vars` does not give (a broken test).
pub fn argv(line: &str, vars: &[(&str, &str)]) -> Vec<String> {
    line.split_whitespace()
        .map(|word| {
            let mut out = String::new();
            let mut rest = word;
            while let Some(open) = rest.find('{') {
                let Some(len) = rest[open..].find('}') else {
                    break;
                };
                let name = &rest[open + 1..open + len];
                let value = vars
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| *v)
                    .unwrap_or_else(|| panic!("argv: no value for {{{name}}} in {line:?}"));
                out.push_str(&rest[..open]);
                out.push_str(value);
                rest = &rest[open + len + 1..];
            }
            out.push_str(rest);
            out
        })
        .collect()
}

/// A child process killed and reaped when dropped, so that a server a test
/// started never outlives the test, also when the test fails.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits for a server the test started (its stderr piped) to end, at most
/// `limit` (a liveness bound, not a speed assertion); returns the rest of
/// its stdout (read from `out`) and its stderr.
///
/// # Panics
/// If it does not end within `limit`, or ends with a failure status (the
/// message names it `what` and shows both streams).
#[track_caller]
pub fn finish(
    server: &mut Child,
    mut out: impl Read,
    limit: Duration,
    what: &str,
) -> (String, String) {
    let t = Instant::now();
    loop {
        if let Some(status) = server.try_wait().unwrap() {
            let mut rest = String::new();
            out.read_to_string(&mut rest).unwrap();
            let mut err = String::new();
            if let Some(mut stderr) = server.stderr.take() {
                stderr.read_to_string(&mut err).unwrap();
            }
            assert!(status.success(), "{what} failed: {status}\n{rest}\n{err}");
            return (rest, err);
        }
        assert!(
            t.elapsed() < limit,
            "the {what} did not end within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A line diff of `expected` and `actual`: lines only in `expected` start
/// with `-`, lines only in `actual` with `+`, shared ones with a space
/// (a longest-common-subsequence diff; `None` when they are equal).
pub fn diff(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            let _ = writeln!(out, "  {}", a[i]);
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            let _ = writeln!(out, "- {}", a[i]);
            i += 1;
        } else {
            let _ = writeln!(out, "+ {}", b[j]);
            j += 1;
        }
    }
    if out.lines().all(|l| l.starts_with("  ")) {
        // Only the line endings differ.
        out.push_str("(the texts differ in line endings or a final newline)\n");
    }
    Some(out)
}

/// Checks that two texts are equal.
///
/// # Panics
/// If not, with a line diff (`-` expected, `+` actual) headed by `what`.
#[track_caller]
pub fn assert_text_eq(expected: &str, actual: &str, what: &str) {
    if let Some(d) = diff(expected, actual) {
        panic!("{what}: output differs (- expected, + actual)\n{d}");
    }
}

/// Checks that `text` contains every one of `needles`.
///
/// # Panics
/// At the first needle missing, naming it, with the whole text.
#[track_caller]
pub fn assert_contains_all(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_marks_the_changed_lines_only() {
        assert_eq!(diff("a\nb\n", "a\nb\n"), None);
        let d = diff("a\nb\nc\n", "a\nx\nc\nd\n").unwrap();
        assert_eq!(d, "  a\n- b\n+ x\n  c\n+ d\n");
        let d = diff("a\n", "a").unwrap();
        assert!(d.contains("line endings"), "{d}");
    }

    #[test]
    fn a_failed_assertion_shows_the_diff() {
        let err =
            std::panic::catch_unwind(|| assert_text_eq("one\ntwo\n", "one\n2\n", "t")).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("- two") && msg.contains("+ 2"), "{msg}");
    }

    #[test]
    fn assert_contains_all_names_the_missing_needle() {
        assert_contains_all("one two three", &["two", "one"]);
        let err = std::panic::catch_unwind(|| assert_contains_all("one two", &["one", "six"]))
            .unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.starts_with("\"six\" not in:\none two"), "{msg}");
    }

    #[test]
    fn argv_splits_then_fills_in() {
        assert_eq!(
            argv("a {x} p={x}/{y} {y}", &[("x", "1 2"), ("y", "z")]),
            ["a", "1 2", "p=1 2/z", "z"]
        );
        assert_eq!(argv("  lone  ", &[]), ["lone"]);
        let missing = std::panic::catch_unwind(|| argv("a {nope}", &[])).unwrap_err();
        let msg = missing.downcast_ref::<String>().unwrap();
        assert!(msg.contains("{nope}"), "{msg}");
    }

    #[test]
    fn start_reads_the_first_line_and_leaves_the_rest() {
        let script = "echo 'listening on 127.0.0.1:9 '; echo more; exec sleep 30";
        let (mut server, addr, mut out) =
            Cmd::new("sh").args(["-c", script]).start("listening on ");
        assert_eq!(addr, "127.0.0.1:9");
        let mut next = String::new();
        out.read_line(&mut next).unwrap();
        assert_eq!(next, "more\n");
        assert!(server.0.try_wait().unwrap().is_none(), "still running");
        let wrong = std::panic::catch_unwind(|| {
            Cmd::new("sh")
                .args(["-c", "echo hello"])
                .start("listening on ");
        })
        .unwrap_err();
        let msg = wrong.downcast_ref::<String>().unwrap();
        assert!(
            msg.contains("\"hello\\n\"") && msg.contains("sh -c"),
            "{msg}"
        );
    }

    #[test]
    fn runs_a_program_with_stdin_and_reports_it() {
        let run = Cmd::new("sh")
            .args(["-c", "cat; echo err >&2; exit 3"])
            .stdin("in put\n")
            .run();
        run.assert_code(3)
            .assert_stdout("in put\n")
            .assert_stderr_contains("err");
        assert_eq!(Cmd::new("sh").args(["-c", "x y"]).line(), "sh -c 'x y'");
        let failed = std::panic::catch_unwind(|| {
            Cmd::new("sh")
                .args(["-c", "echo out"])
                .run()
                .assert_code(0)
                .assert_stdout("other\n");
        })
        .unwrap_err();
        let msg = failed.downcast_ref::<String>().unwrap();
        assert!(msg.contains("- other") && msg.contains("+ out"), "{msg}");
    }
}
