//! The README's and the guide's commands, read by the command line's own
//! parser: every `rookery ...` line of their code blocks parses (a flag
//! renamed or removed, a subcommand moved, a value clap checks is a
//! failure naming the file and line). A line that is a synopsis, not a
//! command (`[--depth N]`, `validate|normalize`, `...`, `FILE`), is not
//! a command to run as written and is passed over; every file with
//! commands has commands that are checked.

use crate::{arguments, Arguments, Cli};
use clap::CommandFactory;
use std::ffi::OsString;
use std::path::PathBuf;

/// The files read: the README and the guide's chapters.
fn files() -> Vec<PathBuf> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut files = vec![root.join("README.md")];
    files.extend(
        crate::cmd::guide::CHAPTERS
            .iter()
            .map(|c| root.join("docs").join(format!("{}.md", c.name))),
    );
    files
}

/// The code lines of a Markdown text with their line numbers: indented
/// blocks and fenced `sh`/`bash`/`console` blocks, continuation lines
/// (`\` at the end) joined.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut fence: Option<bool> = None; // Some(is a shell block)
    let mut joining = false;
    for (i, line) in text.lines().enumerate() {
        let code = match fence {
            Some(shell) => {
                if line.starts_with("```") {
                    fence = None;
                    continue;
                }
                shell.then_some(line)
            }
            None if line.starts_with("```") => {
                let lang = line.trim_start_matches('`').trim();
                fence = Some(matches!(lang, "sh" | "bash" | "console" | "shell"));
                continue;
            }
            None => line.strip_prefix("    "),
        };
        let Some(code) = code else {
            joining = false;
            continue;
        };
        let (body, more) = match code.trim_end().strip_suffix('\\') {
            Some(b) => (b.to_string(), true),
            None => (code.to_string(), false),
        };
        match (joining, out.last_mut()) {
            (true, Some((_, last))) => {
                last.truncate(last.trim_end().len());
                last.push(' ');
                last.push_str(body.trim());
            }
            _ => out.push((i + 1, body)),
        }
        joining = more;
    }
    out
}

/// Shell words of `text`, quotes and escapes removed, up to the first
/// operator that ends the command (`|`, `;`, `&&`, `>`, `<`, `)`, a `#`
/// comment).
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    word.push(d);
                }
            }
            '"' => {
                in_word = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                word.push(e);
                            }
                        }
                        _ => word.push(d),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(e) = chars.next() {
                    word.push(e);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '|' | ';' | '&' | '>' | '<' | ')' => break,
            '#' if !in_word => break,
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The `rookery` commands of a code line: from each `rookery` word at a
/// command's start (after a pipe, `$(`, `&&`, `;` or environment
/// assignments) to the end of that command.
fn commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("rookery ") {
        let before = rest[..at].trim_end();
        let starts = before.is_empty()
            || before.ends_with('|')
            || before.ends_with("$(")
            || before.ends_with("&&")
            || before.ends_with(';')
            || before.ends_with('$')
            || before
                .split_whitespace()
                .all(|w| w.contains('=') && !w.starts_with('-'));
        if starts {
            out.push(rest[at..].to_string());
        }
        rest = &rest[at + "rookery ".len()..];
    }
    out
}

/// Whether the words are a synopsis (placeholders, alternatives) rather
/// than a command to run as written.
fn synopsis(words: &[String], command: &str) -> bool {
    // Alternatives written `a|b` (a pipe has spaces around it), before any
    // comment.
    let text = command.split(" #").next().unwrap_or(command);
    let bytes = text.as_bytes();
    let alternatives = (1..bytes.len().saturating_sub(1))
        .any(|i| bytes[i] == b'|' && bytes[i - 1] != b' ' && bytes[i + 1] != b' ');
    if alternatives || text.contains("...") {
        return true;
    }
    let placeholder = |w: &str| {
        let w = w.split_once('=').map_or(w, |(_, v)| v);
        w.len() >= 2
            && w.chars().any(|c| c.is_ascii_uppercase())
            && w.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "_.:/-".contains(c))
            && !w.starts_with('-')
            && !w
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ':')
    };
    words.iter().any(|w| {
        w.starts_with('[')
            || w.ends_with(']')
            || w.contains("...")
            || w.contains('$')
            || w.contains('{')
            || (w.contains('|') && !w.contains('='))
            || placeholder(w)
    })
}

#[test]
fn every_command_of_the_readme_and_the_guide_parses() {
    let mut failures = Vec::new();
    let mut checked_in = Vec::new();
    for path in files() {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (mut found, mut checked) = (0, 0);
        for (line, code) in code_lines(&text) {
            for command in commands(&code) {
                found += 1;
                let words = shell_words(&command);
                if synopsis(&words, &command) {
                    if std::env::var_os("SHOW_SKIPPED").is_some() {
                        eprintln!("skipped {name}:{line}: {command}");
                    }
                    continue;
                }
                checked += 1;
                let argv: Vec<OsString> = words.iter().map(OsString::from).collect();
                let parsed = match arguments(argv) {
                    Err(e) => Err(e.to_string()),
                    // A peer's line, read into the match's arguments.
                    Ok(Arguments::Peer(_)) => Ok(()),
                    Ok(Arguments::Words(argv)) => Cli::command()
                        .try_get_matches_from(argv)
                        .map(|_| ())
                        .or_else(|e| {
                            if e.use_stderr() {
                                Err(e.to_string())
                            } else {
                                Ok(()) // --help, --version
                            }
                        }),
                };
                if let Err(e) = parsed {
                    failures.push(format!(
                        "{name}:{line}: {command}\n    {}",
                        e.lines().next().unwrap_or("")
                    ));
                }
            }
        }
        checked_in.push((name, found, checked));
    }
    assert!(
        failures.is_empty(),
        "commands that do not parse:\n{}",
        failures.join("\n")
    );
    // A file with commands has some that are checked, not only synopses.
    for (name, found, checked) in &checked_in {
        assert!(
            *found == 0 || *checked > 0,
            "no command of {name} was checked: {checked_in:?}"
        );
    }
    let total: usize = checked_in.iter().map(|(_, _, c)| c).sum();
    assert!(total >= 40, "only {total} commands checked: {checked_in:?}");
}

#[test]
fn lines_are_read_as_a_shell_reads_them() {
    assert_eq!(
        shell_words(r#"rookery show "a b" 'c d' e\ f | less"#),
        ["rookery", "show", "a b", "c d", "e f"]
    );
    assert_eq!(
        commands("zstdcat x | rookery pgn stats - && rookery pgn cat a"),
        [
            "rookery pgn stats - && rookery pgn cat a",
            "rookery pgn cat a"
        ]
    );
    assert!(commands("cargo run -- rookery x").is_empty());
    assert_eq!(
        code_lines("text\n\n    rookery a \\\n        --b\n\n```sh\nrookery c\n```\n"),
        [
            (3, "rookery a --b".to_string()),
            (7, "rookery c".to_string())
        ]
    );
}
