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
//! | `--random SEED` | plays a legal move drawn from the position and SEED instead of the first |
//! | `--illegal-on-go N` | on the N-th `go` answers an illegal move ([`illegal_move`]) |
//! | `--bestmove-on-go N TEXT` | on the N-th `go` answers `bestmove TEXT` (`(none)`, a word that is no move, ...) |
//! | `--garbage` | prints a non-UCI line before every answer |
//! | `--slow MS` | waits MS milliseconds before `bestmove` (unless stopped) |
//! | `--slow-position MS` | waits MS milliseconds after reading `position` (an engine slow to take the game in) |
//! | `--record FILE` | appends every line received to FILE |
//! | `--ponder` | names the reply it expects (`bestmove M ponder R`); `go ponder` waits for `ponderhit` or `stop` |
//! | `--bad-pv` | reports its move twice as its PV (`pv e2e4 e2e4`): a PV that is not legal |
//! | `--say TEXT` | prints `info string TEXT` before every answer |
//!
//! Otherwise it plays the first legal move (in UCI order, after sorting) and
//! reports it with an `info` line.
//!
//! For tests: [`cmd`] runs a built binary with readable failures,
//! [`snapshot`] checks output against files kept in the repository,
//! [`pgn_text`] reads the PGN a binary wrote without rookery's reader,
//! [`TempDir`] and [`peer`] give each test its directory and its peers,
//! [`slurm`] a private one-node Slurm cluster.

use rookery_core::{Position, UciMove};

pub mod cmd;
pub mod compress;
pub mod pgn_text;
pub mod slurm;
pub mod snapshot;

/// The mock's flags, parsed from its arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MockBehaviour {
    /// Never answer `uci`.
    pub no_uciok: bool,
    /// Crash on this `go` (1-based).
    pub crash_on_go: Option<u32>,
    /// Hang on this `go` (1-based).
    pub hang_on_go: Option<u32>,
    /// Answer an illegal move on this `go` (1-based).
    pub illegal_on_go: Option<u32>,
    /// Answer `bestmove` and this text on this `go` (1-based).
    pub bestmove_on_go: Option<(u32, String)>,
    /// Draw the move from the position and this seed (longer, varied games).
    pub random: Option<u64>,
    /// Print garbage before answers.
    pub garbage: bool,
    /// Delay before `bestmove`, in ms.
    pub slow_ms: u64,
    /// Delay after reading `position`, in ms, before reading on: an engine
    /// slow to take a long move list in, or woken late on a busy machine.
    pub slow_position_ms: u64,
    /// Where to record received lines.
    pub record: Option<String>,
    /// Never answer `uci` from this start on (1-based), the starts counted
    /// in a file (one byte appended per start): an engine that starts,
    /// then cannot any more.
    pub no_uciok_from: Option<(u32, String)>,
    /// Name the reply it expects with its move (`bestmove M ponder R`, R
    /// the first legal reply in sorted order), and search `go ponder`
    /// until `ponderhit` or `stop`, as a pondering engine does.
    pub ponder: bool,
    /// Report a PV that is not legal: its move twice (`pv e2e4 e2e4`).
    pub bad_pv: bool,
    /// Say `info string TEXT` before each answer.
    pub say: Option<String>,
}

impl MockBehaviour {
    /// Whether this start answers `uci`: counts the start in the
    /// `no_uciok_from` file, if one is given.
    pub fn answers_uci(&self) -> bool {
        if self.no_uciok {
            return false;
        }
        let Some((from, file)) = &self.no_uciok_from else {
            return true;
        };
        use std::io::Write;
        let starts = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .and_then(|mut f| {
                f.write_all(b"s")?;
                f.metadata()
            })
            .map_or(u64::MAX, |m| m.len());
        starts < u64::from(*from)
    }
}

impl MockBehaviour {
    /// Parses the flags; unknown flags are ignored.
    pub fn from_args(args: impl IntoIterator<Item = String>) -> MockBehaviour {
        let mut b = MockBehaviour::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--no-uciok" => b.no_uciok = true,
                "--ponder" => b.ponder = true,
                "--bad-pv" => b.bad_pv = true,
                "--say" => b.say = it.next(),
                "--garbage" => b.garbage = true,
                "--crash-on-go" => b.crash_on_go = it.next().and_then(|n| n.parse().ok()),
                "--hang-on-go" => b.hang_on_go = it.next().and_then(|n| n.parse().ok()),
                "--random" => b.random = it.next().and_then(|n| n.parse().ok()),
                "--illegal-on-go" => b.illegal_on_go = it.next().and_then(|n| n.parse().ok()),
                "--bestmove-on-go" => {
                    let n = it.next().and_then(|n| n.parse().ok());
                    b.bestmove_on_go = n.zip(it.next());
                }
                "--slow" => b.slow_ms = it.next().and_then(|n| n.parse().ok()).unwrap_or(0),
                "--slow-position" => {
                    b.slow_position_ms = it.next().and_then(|n| n.parse().ok()).unwrap_or(0);
                }
                "--record" => b.record = it.next(),
                "--no-uciok-from" => {
                    let n = it.next().and_then(|n| n.parse().ok());
                    b.no_uciok_from = n.zip(it.next());
                }
                _ => {}
            }
        }
        b
    }
}

/// The first move in UCI notation, in square order (`a1b1`, `a1c1`, ...,
/// `a1h8`, `b1a1`, ..., `h8g8`), that is well formed but not legal in `pos`: what the mock
/// answers with `--illegal-on-go`.
pub fn illegal_move(pos: &Position) -> String {
    let squares: Vec<String> = (b'1'..=b'8')
        .flat_map(|r| (b'a'..=b'h').map(move |f| format!("{}{}", f as char, r as char)))
        .collect();
    for from in &squares {
        for to in &squares {
            if from == to {
                continue;
            }
            let text = format!("{from}{to}");
            let legal = text
                .parse::<UciMove>()
                .ok()
                .is_some_and(|m| m.to_move(pos).is_ok());
            if !legal {
                return text;
            }
        }
    }
    // A position has at most 218 legal moves, far fewer than 64 * 63.
    "a1a2".to_string()
}

/// The index of the move `--random SEED` plays among `count` sorted legal
/// moves of the position with this FEN: FNV-1a of the FEN and the seed.
pub fn random_pick(fen: &str, seed: u64, count: usize) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in fen.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    if count == 0 {
        0
    } else {
        (h % count as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse() {
        let b = MockBehaviour::from_args(
            ["--illegal-on-go", "3", "--hang-on-go", "x", "--slow", "5"]
                .iter()
                .map(|s| s.to_string()),
        );
        assert_eq!(b.illegal_on_go, Some(3));
        assert_eq!(b.hang_on_go, None);
        assert_eq!(b.slow_ms, 5);
        assert_eq!(
            MockBehaviour::from_args(Vec::new()),
            MockBehaviour::default()
        );
        let b = MockBehaviour::from_args(["--random".to_string(), "7".to_string()]);
        assert_eq!(b.random, Some(7));
        let b = MockBehaviour::from_args(["--bestmove-on-go", "2", "(none)"].map(String::from));
        assert_eq!(b.bestmove_on_go, Some((2, "(none)".to_string())));
    }

    #[test]
    fn random_picks_vary_with_the_position_and_stay_in_range() {
        let picks: std::collections::BTreeSet<usize> = (0..50)
            .map(|i| random_pick(&format!("fen {i}"), 1, 20))
            .collect();
        assert!(picks.len() > 5, "{picks:?}");
        assert!(picks.iter().all(|&p| p < 20));
        assert_eq!(random_pick("x", 1, 0), 0);
        assert_eq!(random_pick("x", 1, 7), random_pick("x", 1, 7));
    }

    #[test]
    fn the_illegal_move_is_well_formed_and_illegal() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // White's rook on a1 may go to b1..d1: the first illegal one is later.
            "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
            "4k3/8/8/8/8/8/8/R3K3 b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let m = illegal_move(&pos);
            let parsed: UciMove = m.parse().unwrap();
            assert!(parsed.to_move(&pos).is_err(), "{fen}: {m} is legal");
        }
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap();
        assert_eq!(illegal_move(&pos), "a1e1");
    }
}

/// A temporary directory of one test: its own (named by the tag, the
/// process and a counter, so tests running in parallel never share one),
/// and removed when dropped, also when the test fails.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    /// Creates a fresh directory under the system's temporary directory.
    ///
    /// # Panics
    /// If the directory cannot be created (a broken test machine).
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("rookery-test-{tag}-{}-{n}", std::process::id()));
        // A leftover of an earlier process with the same id goes first.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        TempDir(dir)
    }

    /// The directory.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }

    /// A path inside the directory.
    pub fn join(&self, name: impl AsRef<std::path::Path>) -> std::path::PathBuf {
        self.0.join(name)
    }

    /// Writes a file in the directory and returns its path.
    ///
    /// # Panics
    /// If it cannot be written (a broken test machine).
    pub fn write(&self, name: &str, data: impl AsRef<[u8]>) -> std::path::PathBuf {
        let p = self.join(name);
        std::fs::write(&p, data).unwrap_or_else(|e| panic!("cannot write {}: {e}", p.display()));
        p
    }

    /// Writes an executable shell script (`#!/bin/sh` then `body`), e.g. a
    /// UCI engine that misbehaves on cue, and returns its path.
    ///
    /// # Panics
    /// If it cannot be written or made executable.
    pub fn script(&self, name: &str, body: &str) -> std::path::PathBuf {
        let p = self.write(name, format!("#!/bin/sh\n{body}"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))
                .unwrap_or_else(|e| panic!("cannot make {} executable: {e}", p.display()));
        }
        p
    }

    /// The names of the files in the directory, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The files directly in `dir` whose names end in `.ext` (test data, logs),
/// sorted by path so that a test reads them in the same order everywhere.
///
/// # Panics
/// If `dir` cannot be read (a broken test set-up).
pub fn files_with_extension(
    dir: impl AsRef<std::path::Path>,
    ext: &str,
) -> Vec<std::path::PathBuf> {
    let dir = dir.as_ref();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

/// The contents of the `.ext` files directly in each of `dirs`, in path
/// order (see [`files_with_extension`]).
///
/// # Panics
/// If a directory or file cannot be read (a broken test set-up).
pub fn read_files_with_extension(dirs: &[&str], ext: &str) -> Vec<Vec<u8>> {
    let mut files: Vec<_> = dirs
        .iter()
        .flat_map(|d| files_with_extension(d, ext))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read(f).unwrap_or_else(|e| panic!("cannot read {}: {e}", f.display())))
        .collect()
}

/// Finding the peer programs that differential tests compare against
/// (Stockfish, pgn-extract, Chromium, python-chess).
///
/// A peer is looked up on `PATH` (plus `/usr/games`, where Debian puts
/// engines), never at one fixed path. When it is missing, a test fails if
/// the environment variable `CI` is set (CI installs every peer, so a
/// missing one is a broken set-up, not a reason to pass), and otherwise is
/// skipped with a note on stderr.
pub mod peer {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// The python-chess version the tests' expected counts were measured with.
    pub const PYTHON_CHESS_VERSION: &str = "1.11.2";

    /// The first of `names` found as an executable file on `PATH` or in
    /// `/usr/games`; an environment variable `env` (if given and set) names
    /// the program directly.
    pub fn find(names: &[&str], env: Option<&str>) -> Option<PathBuf> {
        if let Some(p) = env.and_then(std::env::var_os) {
            return Some(PathBuf::from(p));
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs: Vec<PathBuf> = std::env::split_paths(&path)
            .chain(std::iter::once(PathBuf::from("/usr/games")))
            .collect();
        names
            .iter()
            .flat_map(|n| dirs.iter().map(move |d| d.join(n)))
            .find(|p| is_executable(p))
    }

    fn is_executable(p: &Path) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        }
        #[cfg(not(unix))]
        {
            p.is_file()
        }
    }

    /// What a test does about a missing peer: panics when `CI` is set,
    /// otherwise notes the skip on stderr. Returns `None` for the caller to
    /// return early.
    pub fn missing<T>(what: &str) -> Option<T> {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but {what} is missing"
        );
        eprintln!("note: {what} not found; test skipped");
        None
    }

    /// `names` on `PATH` (see [`find`]), or [`missing`].
    pub fn require(what: &str, names: &[&str], env: Option<&str>) -> Option<PathBuf> {
        find(names, env).or_else(|| missing(what))
    }

    /// Stockfish (`STOCKFISH` overrides), or [`missing`].
    pub fn stockfish() -> Option<PathBuf> {
        require("Stockfish", &["stockfish"], Some("STOCKFISH"))
    }

    /// pgn-extract, or [`missing`].
    pub fn pgn_extract() -> Option<PathBuf> {
        require("pgn-extract", &["pgn-extract"], None)
    }

    /// Chromium, or [`missing`].
    pub fn chromium() -> Option<PathBuf> {
        require("Chromium", &["chromium", "chromium-browser"], None)
    }

    /// The flags every test run of Chromium starts with: headless, no
    /// sandbox, GPU, QUIC or first-run page, nothing fetched in the
    /// background (crates/testkit/chromium-flags.txt, one a line, which the
    /// Python spectator check reads too).
    pub fn chromium_flags() -> impl Iterator<Item = &'static str> {
        include_str!("../chromium-flags.txt").split_whitespace()
    }

    /// The page at `html` as headless Chromium renders it (`--dump-dom`),
    /// with a browser profile of its own in `profile` (a directory of the
    /// test's), so that runs never share state.
    ///
    /// # Panics
    /// If the browser cannot be run.
    pub fn chromium_dom(browser: &Path, html: &Path, profile: &Path) -> String {
        let out = Command::new(browser)
            .args(chromium_flags())
            .args([
                &format!("--user-data-dir={}", profile.display()),
                "--dump-dom",
                &format!("file://{}", html.display()),
            ])
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", browser.display()));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A `python3` on `PATH` whose python-chess is exactly
    /// [`PYTHON_CHESS_VERSION`] (the tests' expected counts depend on its
    /// reader), or [`missing`] (a wrong version counts as missing).
    pub fn python_chess() -> Option<PathBuf> {
        let Some(python) = find(&["python3"], None) else {
            return missing("python3");
        };
        let version = Command::new(&python)
            .args(["-c", "import chess; print(chess.__version__)"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
        match version {
            Some(v) if v == PYTHON_CHESS_VERSION => Some(python),
            Some(v) => missing(&format!(
                "python-chess=={PYTHON_CHESS_VERSION} (found {v}; pip install chess=={PYTHON_CHESS_VERSION})"
            )),
            None => missing(&format!("python3 with python-chess=={PYTHON_CHESS_VERSION}")),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn finds_programs_on_path_only_if_executable() {
            let sh = find(&["no-such-program-rookery", "sh"], None).expect("sh is on PATH");
            assert!(sh.ends_with("sh"));
            assert_eq!(find(&["no-such-program-rookery"], None), None);
        }

        /// CI installs the python-chess the expected counts were measured
        /// with, and sets CI so that a missing peer fails the tests.
        #[test]
        fn ci_pins_python_chess_and_sets_ci() {
            let run =
                std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../.ci/run"))
                    .expect(".ci/run");
            assert!(
                run.contains(&format!("PYTHON_CHESS={PYTHON_CHESS_VERSION}\n"))
                    && run.contains("pip install -q \"chess==$PYTHON_CHESS\""),
                "python-chess is not pinned to {PYTHON_CHESS_VERSION} in .ci/run"
            );
            assert!(run.contains("export CI="), ".ci/run does not set CI");
        }

        #[test]
        fn a_missing_peer_fails_under_ci() {
            // Run in a child test process with CI set: `missing` must panic.
            if std::env::var_os("ROOKERY_PEER_CHILD").is_some() {
                let _: Option<()> = missing("a peer no machine has");
                return;
            }
            let exe = std::env::current_exe().unwrap();
            let out = std::process::Command::new(exe)
                .args([
                    "--exact",
                    "peer::tests::a_missing_peer_fails_under_ci",
                    "--nocapture",
                ])
                .env("ROOKERY_PEER_CHILD", "1")
                .env("CI", "1")
                .output()
                .unwrap();
            assert!(!out.status.success(), "a missing peer passed under CI");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("CI is set but a peer no machine has is missing"),
                "{err}"
            );
        }
    }
}
