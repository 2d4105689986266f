//! The README's and the guide's runnable blocks, run as written: each
//! chapter's commands still run, and still print what their comments say.
//!
//! **The rule a doc writer follows.** A code block (indented, or fenced
//! `sh`/`bash`/`console`/`shell`) that runs as written, from the
//! repository's root, on a machine with the peers CI installs, is marked by
//! the line `<!-- runs -->` just before it (blank lines between are fine;
//! the comment is invisible when the Markdown is rendered). A marked block
//! is self-contained: its inputs come from the repository
//! (`crates/cli/tests/data/...`), from files an earlier marked block of the
//! same file made, or from the peers (engines in `/usr/games`, `zstd`,
//! `pgn-extract`, ...), and it ends within seconds. A block with
//! placeholders (a `games.pgn` nothing makes, `./new`, `EVENT.toml`), or
//! one that runs for minutes or talks to a scheduler, is an illustration
//! and is not marked. Every file with shell blocks marks at least one, or
//! is in [`NONE_RUN`] with the reason.
//!
//! **How a file's marked blocks run.** In order, each as one
//! `bash -euo pipefail` script, in a directory of the test's own that
//! stands for the repository's root: it holds a link to each of the root's
//! entries, so `crates/...` reads the repository, while what a block writes
//! stays in the test's directory (and is there for the file's next block).
//! The built `rookery` and `rookery-engine` come first on `PATH` (then the
//! test's `PATH` and `/usr/games`). `/tmp` in a block is rewritten to a
//! directory of the test's own, which is also its `TMPDIR`, so that two runs
//! never share a file. A command that fails is reported as `FILE:LINE:
//! command` with its exit status and the end of its output; the file's
//! later blocks are not run.
//!
//! **What a comment states is checked.** After a block has run, each
//! command's trailing comment (`# ...`), cut at `;` into claims, is held to
//! what happened: a claim `FILE: TEXT`, FILE a file in the directory the
//! command ran in, is a line FILE holds (up to a trailing `, ...`);
//! otherwise every number the claim states that the command line does not
//! (`# 225 kept`, `# e4 43.0%`) must be a number the command printed
//! (standard output or error), and every path it names (`by-eco/A07.pgn`)
//! must exist. So write numbers in a comment only as the command prints
//! them.
//!
//! **Peers.** A block that names a program of [`PEERS`] (as a word) or an
//! absolute path under `/usr/` needs it: when it is missing, the test fails
//! if `CI` is set, and otherwise that file's blocks are skipped with a note.

use crate::common::{ROOKERY, ROOKERY_ENGINE};
use rookery_testkit::{peer, TempDir};
use std::collections::BTreeSet;
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The line that marks the next code block as one that runs as written.
const MARK: &str = "<!-- runs -->";

/// The files with shell blocks of which none runs as written, and why.
const NONE_RUN: &[(&str, &str)] = &[
    (
        "README.md",
        "the tour's commands name the reader's files (games.pgn, ./new, event.toml); \
         `cargo run --release -- suite` builds and runs for minutes, `bash .ci/run` installs packages",
    ),
    (
        "referee.md",
        "every command needs an event file (EVENT.toml) and players on other machines or \
         serial lines; crates/cli/tests/referee_*.rs play events",
    ),
    (
        "clusters.md",
        "the commands are submitted to Slurm or Kubernetes; crates/cli/tests/cluster_slurm.rs \
         runs the examples on a private Slurm cluster",
    ),
    (
        "python.md",
        "the commands need the Python package (`pip install ./crates/python`, a maturin build \
         of minutes) or the shared data folder outside the repository; crates/python/tests \
         runs the package's examples",
    ),
    (
        "speed.md",
        "the comparisons need release builds and the shared data folder outside the \
         repository, and run for minutes",
    ),
];

/// The programs a block may need besides `rookery` (what CI installs).
const PEERS: &[&str] = &[
    "zstd",
    "zstdcat",
    "pgn-extract",
    "polyglot",
    "socat",
    "python3",
    "python",
    "chromium",
    "stockfish",
    "glaurung",
    "toga2",
    "fairymax",
    "phalanx",
    "gnuchess",
];

/// The longest a block may run: a liveness bound, far above what a marked
/// block takes.
const BLOCK_LIMIT: Duration = Duration::from_secs(300);

/// The first line of every block's script: strict mode, and before every
/// command a line `\x1e LINE DIR` in the output (the script's line the
/// command is on and the directory it runs in), by which the output is cut
/// into each command's.
const HEADER: &str = r#"set -euo pipefail; trap 'printf "\n\036%s %s\n" "$LINENO" "$PWD"' DEBUG"#;

/// The repository's root.
fn repository() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .canonicalize()
        .expect("the repository's root")
}

/// The files read, by name, with their text: the README and every chapter
/// of `docs/`.
fn files() -> Vec<(String, String)> {
    let root = repository();
    let mut paths = vec![root.join("README.md")];
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    chapters.sort();
    paths.extend(chapters);
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect()
}

/// A code block of a Markdown file.
struct Block {
    /// Indented, or fenced as `sh`, `bash`, `console` or `shell`.
    shell: bool,
    /// `<!-- runs -->` stands before it.
    marked: bool,
    /// Its lines (a fence's indentation removed, an indented block's four
    /// spaces too), each with its line number in the file (from 1).
    lines: Vec<(usize, String)>,
}

/// The code blocks of a Markdown text; an error names a marker that is not
/// followed by a code block.
fn blocks(text: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let mut out = Vec::new();
    let mut mark: Option<usize> = None;
    let mut after_blank = true;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            // A fence, at any indentation (fences in list items too).
            let lang = trimmed.trim_start_matches('`').trim();
            let depth = indent(line);
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                let l = lines[i];
                body.push((i + 1, l[indent(l).min(depth)..].to_string()));
                i += 1;
            }
            i += 1;
            out.push(Block {
                shell: matches!(lang, "sh" | "bash" | "console" | "shell"),
                marked: mark.take().is_some(),
                lines: body,
            });
            after_blank = false;
            continue;
        }
        if after_blank && indent(line) >= 4 && !trimmed.is_empty() {
            // An indented block: indented lines, and blank lines between them.
            let mut body = Vec::new();
            while i < lines.len() {
                let l = lines[i];
                if indent(l) >= 4 && !l.trim().is_empty() {
                    body.push((i + 1, l[4..].to_string()));
                } else if l.trim().is_empty()
                    && lines[i + 1..]
                        .iter()
                        .find(|l| !l.trim().is_empty())
                        .is_some_and(|l| indent(l) >= 4)
                {
                    body.push((i + 1, String::new()));
                } else {
                    break;
                }
                i += 1;
            }
            out.push(Block {
                shell: true,
                marked: mark.take().is_some(),
                lines: body,
            });
            after_blank = false;
            continue;
        }
        if trimmed == MARK {
            if let Some(m) = mark.replace(i + 1) {
                return Err(format!("line {m}: {MARK} is not followed by a code block"));
            }
        } else if !trimmed.is_empty() {
            if let Some(m) = mark.take() {
                return Err(format!("line {m}: {MARK} is not followed by a code block"));
            }
        }
        after_blank = trimmed.is_empty() || trimmed == MARK;
        i += 1;
    }
    match mark {
        Some(m) => Err(format!("line {m}: {MARK} is not followed by a code block")),
        None => Ok(out),
    }
}

/// A command of a block: a line and its continuation lines (`\` at the
/// end), joined.
struct Step {
    /// The line it starts on, in the file.
    first: usize,
    /// The line it ends on, in the file.
    last: usize,
    /// Its text, as written.
    text: String,
}

/// The commands of a block (comment lines and blank lines are none).
fn steps(block: &Block) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut joining = false;
    for (n, line) in &block.lines {
        let (body, more) = match line.trim_end().strip_suffix('\\') {
            Some(b) => (b, true),
            None => (line.as_str(), false),
        };
        match out.last_mut() {
            Some(step) if joining => {
                step.text = format!("{} {}", step.text.trim_end(), body.trim());
                step.last = *n;
            }
            _ if body.trim().is_empty() || body.trim_start().starts_with('#') => {}
            _ => out.push(Step {
                first: *n,
                last: *n,
                text: body.trim_end().to_string(),
            }),
        }
        joining = more;
    }
    out
}

/// A command's text and its trailing comment (the text after a `#` that
/// starts a word outside quotes), if it has one.
fn split_comment(text: &str) -> (&str, Option<&str>) {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (at, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' && prev.is_whitespace() => {
                return (&text[..at], Some(text[at + 1..].trim()));
            }
            None => {}
        }
        prev = c;
    }
    (text, None)
}

/// The numbers written in `text` (`225`, `43.0` of `43.0%`, `2300` of
/// `2300+`, `4` and `6` of `4/6`), each as written.
fn numbers(text: &str) -> BTreeSet<String> {
    text.split(|c: char| c.is_whitespace() || ",;:/()[]{}=\"'".contains(c))
        .map(|w| w.trim_end_matches(['.', '%', '+']))
        .filter(|w| {
            w.starts_with(|c: char| c.is_ascii_digit())
                && w.ends_with(|c: char| c.is_ascii_digit())
                && w.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
        .map(str::to_string)
        .collect()
}

/// What is wrong with the claims of a command's comment (see the module's
/// documentation), given what the command printed and the directory it ran
/// in.
fn check_claims(command: &str, comment: &str, printed: &str, dir: &Path) -> Vec<String> {
    let mut wrong = Vec::new();
    let stated_by_command = numbers(command);
    let printed_numbers = numbers(printed);
    for claim in comment.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        if let Some((name, line)) = claim.split_once(": ") {
            let file = dir.join(name);
            if !name.contains(' ') && file.is_file() {
                let line = line
                    .trim_end_matches("...")
                    .trim_end()
                    .trim_end_matches(',');
                let held = std::fs::read_to_string(&file).unwrap_or_default();
                if !held.lines().any(|l| l.contains(line)) {
                    wrong.push(format!("{name} holds no line with {line:?}"));
                }
                continue;
            }
        }
        for n in numbers(claim).difference(&stated_by_command) {
            if !printed_numbers.contains(n) {
                wrong.push(format!(
                    "{n} (of {claim:?}) is not in what the command printed"
                ));
            }
        }
        for word in claim.split_whitespace() {
            let word = word.trim_end_matches([',', ';']);
            let named_file = word.contains('/')
                && word
                    .rsplit('/')
                    .next()
                    .is_some_and(|last| last.contains('.'));
            if named_file && !command.contains(word) && !dir.join(word).exists() {
                wrong.push(format!("{word} (of {claim:?}) was not written"));
            }
        }
    }
    wrong
}

/// `/tmp` in a line (as a path of its own, or a directory of one) made
/// `tmp`, the test's own directory.
fn private_tmp(line: &str, tmp: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("/tmp") {
        let before = rest[..at].chars().next_back();
        let after = rest[at + 4..].chars().next();
        let path_start = before.is_none_or(|c| !(c.is_alphanumeric() || "_-./".contains(c)));
        let path_end = after.is_none_or(|c| !(c.is_alphanumeric() || "_-.".contains(c)));
        out.push_str(&rest[..at]);
        out.push_str(if path_start && path_end { tmp } else { "/tmp" });
        rest = &rest[at + 4..];
    }
    out.push_str(rest);
    out
}

/// The programs a block needs that are not there: the [`PEERS`] it names
/// as words, and the paths under `/usr/` it names.
fn missing_peers(block: &Block) -> Vec<String> {
    let mut missing = BTreeSet::new();
    for (_, line) in &block.lines {
        let code = split_comment(line).0;
        for word in code.split(|c: char| c.is_whitespace() || "|;&()<>'\"`=,".contains(c)) {
            let gone = if word.starts_with("/usr/") {
                !Path::new(word).exists()
            } else {
                PEERS.contains(&word) && peer::find(&[word], None).is_none()
            };
            if gone {
                missing.insert(word.to_string());
            }
        }
    }
    missing.into_iter().collect()
}

/// A directory of the test's own that stands for the repository's root,
/// with the built binaries and a private `/tmp`.
struct Workspace {
    /// Holds `root`, `tmp`, `bin` and the blocks' scripts and outputs.
    dir: TempDir,
}

impl Workspace {
    /// A fresh one for the file `name`.
    fn new(name: &str) -> Workspace {
        let stem: String = name
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '-' })
            .collect();
        let dir = TempDir::new(&format!("guide-{stem}"));
        for sub in ["root", "tmp", "bin"] {
            std::fs::create_dir(dir.join(sub)).unwrap();
        }
        let repository = repository();
        for entry in std::fs::read_dir(&repository).unwrap() {
            let name = entry.unwrap().file_name();
            if name != ".git" && name != "target" {
                std::os::unix::fs::symlink(repository.join(&name), dir.join("root").join(&name))
                    .unwrap();
            }
        }
        for (link, program) in [("rookery", ROOKERY), ("rookery-engine", ROOKERY_ENGINE)] {
            std::os::unix::fs::symlink(program, dir.join("bin").join(link)).unwrap();
        }
        Workspace { dir }
    }

    /// Runs `script` with bash in `root`, its output (standard output and
    /// error as one stream) to `out`; returns its exit code (`None`: it
    /// was killed, past [`BLOCK_LIMIT`]). Whatever it left running in the
    /// background is ended with it.
    fn run(&self, script: &Path, out: &Path) -> Option<i32> {
        let log = File::create(out).unwrap();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.dir.join("bin")];
        dirs.extend(std::env::split_paths(&path));
        dirs.push(PathBuf::from("/usr/games"));
        let mut command = Command::new("bash");
        command
            .arg(script)
            .current_dir(self.dir.join("root"))
            .env("PATH", std::env::join_paths(dirs).unwrap())
            .env("TMPDIR", self.dir.join("tmp"))
            .env_remove("BASH_ENV")
            .env_remove("JOB_COMPLETION_INDEX")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0);
        for (key, _) in std::env::vars_os() {
            let k = key.to_string_lossy();
            if k.starts_with("ROOKERY_") || k.starts_with("SLURM_") {
                command.env_remove(&key);
            }
        }
        let mut child = command.spawn().expect("run bash");
        let deadline = Instant::now() + BLOCK_LIMIT;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The block's process group: what it started in the background too.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = child.wait();
        status.and_then(|s| s.code())
    }
}

/// What a file's marked blocks did.
#[derive(Default)]
struct FileRun {
    /// Blocks run to their end.
    blocks: usize,
    /// Commands run in them.
    commands: usize,
    /// Claims of comments checked.
    claims: usize,
    /// Failures, each naming the file and line.
    failures: Vec<String>,
}

/// Runs the marked blocks of the file `name` (its text `text`) as the
/// module's documentation says.
fn run_file(name: &str, text: &str) -> FileRun {
    let mut run = FileRun::default();
    let marked: Vec<Block> = match blocks(text) {
        Ok(b) => b.into_iter().filter(|b| b.marked).collect(),
        Err(e) => {
            run.failures.push(format!("{name}: {e}"));
            return run;
        }
    };
    if marked.is_empty() {
        return run;
    }
    let ws = Workspace::new(name);
    let tmp = ws.dir.join("tmp").to_string_lossy().into_owned();
    for (k, block) in marked.iter().enumerate() {
        let steps = steps(block);
        let mut script = String::from(HEADER);
        for (_, line) in &block.lines {
            script.push('\n');
            script.push_str(&private_tmp(line, &tmp));
        }
        script.push('\n');
        let script_path = ws.dir.join(format!("block-{k}.sh"));
        let out_path = ws.dir.join(format!("block-{k}.out"));
        std::fs::write(&script_path, script).unwrap();
        let code = ws.run(&script_path, &out_path);
        let output = String::from_utf8_lossy(&std::fs::read(&out_path).unwrap()).into_owned();
        // Each step's output and directory, by the script's line markers
        // (the script's line 2 is the block's first line).
        let mut printed: Vec<(String, Option<PathBuf>)> = vec![(String::new(), None); steps.len()];
        let mut last = None;
        for piece in output.split("\n\u{1e}").skip(1) {
            let (head, body) = piece.split_once('\n').unwrap_or((piece, ""));
            let (line, dir) = head.split_once(' ').unwrap_or((head, ""));
            let Some(doc_line) = line
                .parse::<usize>()
                .ok()
                .and_then(|l| l.checked_sub(2))
                .and_then(|l| block.lines.get(l))
                .map(|(n, _)| *n)
            else {
                continue;
            };
            if let Some(s) = steps
                .iter()
                .position(|s| s.first <= doc_line && doc_line <= s.last)
            {
                printed[s].0.push_str(body);
                printed[s].1 = Some(PathBuf::from(dir));
                last = Some(s);
            }
        }
        if code != Some(0) {
            let (at, text, tail) = match last {
                Some(s) => {
                    let lines: Vec<&str> = printed[s].0.lines().collect();
                    let tail = lines[lines.len().saturating_sub(20)..].join("\n    ");
                    (steps[s].first, steps[s].text.as_str(), tail)
                }
                None => (block.lines[0].0, "(the block's start)", output.clone()),
            };
            let how = match code {
                Some(c) => format!("exit status {c}"),
                None => format!("still running after {BLOCK_LIMIT:?}"),
            };
            run.failures.push(format!(
                "{name}:{at}: {text}\n    {how}; it printed:\n    {tail}"
            ));
            return run;
        }
        run.blocks += 1;
        run.commands += printed.iter().filter(|p| p.1.is_some()).count();
        for (step, (out, dir)) in steps.iter().zip(&printed) {
            let (command, Some(comment)) = split_comment(&step.text) else {
                continue;
            };
            let Some(dir) = dir else {
                run.failures.push(format!(
                    "{name}:{}: {}\n    was not run (its block ended before it)",
                    step.first, step.text
                ));
                continue;
            };
            run.claims += 1;
            for wrong in check_claims(command, comment, out, dir) {
                run.failures.push(format!(
                    "{name}:{}: {}\n    the comment is not what happened: {wrong}; it printed:\n    {}",
                    step.first,
                    step.text,
                    out.trim().replace('\n', "\n    ")
                ));
            }
        }
    }
    run
}

/// Every marked block of the README and the guide runs as written, and its
/// commands print what their comments say.
#[test]
fn the_guides_marked_blocks_run_as_written() {
    let start = Instant::now();
    // Peers are looked for first, here (a missing one fails under CI).
    let mut runnable = Vec::new();
    for (name, text) in files() {
        let marked: Vec<Block> = blocks(&text)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .into_iter()
            .filter(|b| b.marked)
            .collect();
        let missing: BTreeSet<String> = marked.iter().flat_map(missing_peers).collect();
        if missing.is_empty() {
            runnable.push((name, text));
        } else {
            let what = format!(
                "{} (for the runnable blocks of {name})",
                missing.into_iter().collect::<Vec<_>>().join(", ")
            );
            let _: Option<()> = peer::missing(&what);
        }
    }
    let runs: Vec<(String, FileRun, Duration)> = std::thread::scope(|s| {
        let handles: Vec<_> = runnable
            .iter()
            .map(|(name, text)| {
                s.spawn(move || {
                    let t = Instant::now();
                    (name.clone(), run_file(name, text), t.elapsed())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    for (name, run, took) in &runs {
        if run.blocks > 0 {
            eprintln!(
                "{name}: {} blocks run, {} commands, {} comments checked, {:.1} s",
                run.blocks,
                run.commands,
                run.claims,
                took.as_secs_f64()
            );
        }
        failures.extend(run.failures.iter().cloned());
    }
    eprintln!("all: {:.1} s", start.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "commands of the guide that do not run as written:\n{}",
        failures.join("\n")
    );
}

/// The rule is not vacuous: every file with shell blocks marks a block that
/// runs, or is in [`NONE_RUN`] with its reason (and then marks none);
/// every marker stands before a shell block.
#[test]
fn every_file_with_commands_marks_what_runs() {
    let mut wrong = Vec::new();
    let mut total = 0;
    let names: Vec<String> = files().into_iter().map(|(n, _)| n).collect();
    for (name, text) in files() {
        let blocks = match blocks(&text) {
            Ok(b) => b,
            Err(e) => {
                wrong.push(format!("{name}: {e}"));
                continue;
            }
        };
        let shell = blocks
            .iter()
            .filter(|b| b.shell && !steps(b).is_empty())
            .count();
        let marked = blocks.iter().filter(|b| b.marked).count();
        total += marked;
        for b in blocks.iter().filter(|b| b.marked && !b.shell) {
            wrong.push(format!(
                "{name}:{}: a block marked {MARK} is not a shell block",
                b.lines.first().map_or(0, |l| l.0)
            ));
        }
        let listed = NONE_RUN.iter().any(|(n, _)| *n == name);
        match (shell > 0, marked > 0, listed) {
            (true, false, false) => wrong.push(format!(
                "{name} has {shell} shell blocks and marks none {MARK}: mark those that run as \
                 written, or list it in NONE_RUN with the reason"
            )),
            (_, true, true) => wrong.push(format!(
                "{name} marks {marked} blocks {MARK} but is listed in NONE_RUN: take it off"
            )),
            (false, _, true) => wrong.push(format!(
                "{name} has no shell block but is listed in NONE_RUN: take it off"
            )),
            _ => {}
        }
    }
    for (n, _) in NONE_RUN {
        if !names.iter().any(|name| name == n) {
            wrong.push(format!(
                "NONE_RUN names {n}, which is not a file of the guide"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(total >= 6, "only {total} blocks are marked {MARK}");
}

/// A documented command that breaks, and a comment that no longer says
/// what happens, fail the run, naming the file and the line.
#[test]
fn a_broken_command_or_a_wrong_comment_is_named_by_its_line() {
    let good = format!(
        "# A chapter\n\n{MARK}\n\n    cd /tmp\n    rookery perft --depth 2 \\\n        --divide > perft.txt\n    \
         grep -c '^[a-h]' perft.txt    # 20\n    rookery perft --depth 3   # 8902 nodes\n"
    );
    let run = run_file("good.md", &good);
    assert!(run.failures.is_empty(), "{}", run.failures.join("\n"));
    assert_eq!((run.blocks, run.commands, run.claims), (1, 4, 2));

    let broken = good.replace("--depth 3", "--dpth 3");
    let run = run_file("broken.md", &broken);
    assert_eq!(run.failures.len(), 1, "{:?}", run.failures);
    assert!(
        run.failures[0].starts_with("broken.md:9: rookery perft --dpth 3")
            && run.failures[0].contains("exit status 2")
            && run.failures[0].contains("--dpth"),
        "{}",
        run.failures[0]
    );

    let continued = good.replace("--divide", "--divid");
    let run = run_file("continued.md", &continued);
    assert!(
        run.failures[0].starts_with("continued.md:6: rookery perft --depth 2 --divid"),
        "{:?}",
        run.failures
    );

    let wrong = good.replace("# 8902 nodes", "# 8903 nodes");
    let run = run_file("wrong.md", &wrong);
    assert_eq!(run.failures.len(), 1, "{:?}", run.failures);
    assert!(
        run.failures[0].starts_with("wrong.md:9: ") && run.failures[0].contains("8903"),
        "{}",
        run.failures[0]
    );
}

/// Blocks, markers, commands and comments are read as the module's
/// documentation says.
#[test]
fn blocks_and_comments_are_read_as_written() {
    let text = "text\n\n<!-- runs -->\n\n    a \\\n      b   # c: d\n\n    # note\n    e\n\n  ```sh\n  f '#x' \"# y\" # z\n  ```\n\n```toml\ng\n```\n";
    let b = blocks(text).unwrap();
    assert_eq!(b.len(), 3);
    assert!(b[0].marked && b[0].shell && !b[1].marked && b[1].shell && !b[2].shell);
    let s = steps(&b[0]);
    assert_eq!(
        s.iter()
            .map(|s| (s.first, s.last, s.text.as_str()))
            .collect::<Vec<_>>(),
        [(5, 6, "a b   # c: d"), (9, 9, "e")]
    );
    assert_eq!(
        split_comment(&steps(&b[1])[0].text),
        ("f '#x' \"# y\" ", Some("z"))
    );
    assert!(blocks("<!-- runs -->\n\nprose\n").is_err());
    assert_eq!(
        private_tmp("cd /tmp; x /tmp/a /tmpx /s/tmp/b", "/T"),
        "cd /T; x /T/a /tmpx /s/tmp/b"
    );
    assert_eq!(
        numbers("e4 43.0%, 225 kept: 2300+ A07.pgn 2.Nf3 1-0"),
        ["225", "2300", "43.0"].map(String::from).into()
    );
}
