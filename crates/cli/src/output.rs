//! Shared output plumbing: buffered stdout, broken pipes, error reporting,
//! usage errors (exit status 2), and [`Output`], the one way every command
//! writes a file: into a partial file beside the target, renamed over the
//! target only when the command finished, so that an interrupted or failed
//! run leaves the previous file as it was.

use rookery_io::latin1::{Latin1Read, NarrowRead};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What a subcommand reports when it finishes normally.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Everything went well.
    Ok,
    /// The input had errors; they were reported and the rest was processed.
    InputErrors,
    /// Stopped by an interrupt (Ctrl-C, SIGTERM) after saving its work;
    /// exit status 130, as a shell reports a command ended by SIGINT.
    Interrupted,
}

/// A usage error: the flags make no sense together (exit status 2).
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A usage error as an `anyhow::Error` (exit status 2).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// Turns a subcommand's result into the process exit code, printing errors.
/// A closed stdout (`rookery ... | head`) counts as success; a usage error
/// exits 2, any other error 1.
pub fn finish(result: anyhow::Result<Status>) -> ExitCode {
    match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::InputErrors) => ExitCode::from(1),
        Ok(Status::Interrupted) => ExitCode::from(130),
        Err(e) => {
            if e.chain().any(|c| {
                c.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("rookery: error: {}", error_text(&e));
            if e.chain().any(|c| c.downcast_ref::<UsageError>().is_some()) {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// An error and its causes, `a: b: c`, each cause said once: a cause whose
/// text its parent's message already contains is left out.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.contains(&c) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&c);
    }
    text
}

/// A buffered, locked stdout.
pub fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// Whether `path` is `-` (stdin or stdout).
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How an input is named in messages: `<stdin>` for `-`, else the path.
pub fn display_name(path: &Path) -> String {
    if is_std(path) {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

/// Opens `path` for reading, unbuffered, `-` meaning stdin. Text in
/// UTF-16 or UTF-32 is refused at the first read ([`NarrowRead`]).
///
/// # Errors
/// The file cannot be opened, or is a directory.
pub fn open_raw(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    let name = display_name(path);
    if is_std(path) {
        return Ok(Box::new(NamedRead {
            inner: NarrowRead::new(io::stdin()),
            name,
        }));
    }
    let file = File::open(path)?;
    // A directory opens; its first read fails, far from the file's name.
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, not a file",
        ));
    }
    Ok(Box::new(NamedRead {
        inner: NarrowRead::new(file),
        name,
    }))
}

/// Why the file at `path` cannot be read, in words naming it, if it
/// cannot: it does not open, or it is text in UTF-16 or UTF-32 (told by
/// its first bytes, read where they stand: a FIFO loses nothing).
pub fn unreadable(path: &Path) -> Option<String> {
    let name = display_name(path);
    match File::open(path) {
        Err(e) => Some(format!("cannot open {name}: {e}")),
        Ok(file) => {
            let mut head = [0; 4];
            let n = rookery_io::ReadAt::read_at(&file, &mut head, 0).unwrap_or(0);
            let encoding = rookery_io::latin1::wide_encoding(&head[..n])?;
            let e = rookery_io::latin1::wide_error(encoding);
            Some(format!("cannot read {name}: {e}"))
        }
    }
}

/// A read error that names its input: `cannot read NAME: what`.
#[derive(Debug)]
pub struct ReadError {
    name: String,
    what: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read {}: {}", self.name, self.what)
    }
}

impl std::error::Error for ReadError {}

/// Whether `e` already names its input (a [`ReadError`]): a caller adds no
/// `cannot read` of its own.
pub fn names_its_input(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<ReadError>())
}

/// A reader whose errors name the input ([`ReadError`]), keeping their kind;
/// an interrupted read is passed on as it is, to be retried.
struct NamedRead<R> {
    inner: R,
    name: String,
}

impl<R: Read> Read for NamedRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.kind() == io::ErrorKind::Interrupted || names_its_input(&e) {
                return e;
            }
            let what = e.to_string();
            io::Error::new(
                e.kind(),
                ReadError {
                    name: self.name.clone(),
                    what,
                },
            )
        })
    }
}

/// The length of the regular file at `path`: `None` for stdin (`-`), a
/// pipe or device, or a path that cannot be read.
pub fn file_len(path: &Path) -> Option<u64> {
    if is_std(path) {
        return None;
    }
    fs::metadata(path)
        .ok()
        .filter(fs::Metadata::is_file)
        .map(|m| m.len())
}

/// Opens `path` for reading, `-` meaning stdin.
///
/// # Errors
/// As [`open_raw`].
pub fn open(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(io::BufReader::with_capacity(
        1 << 16,
        open_raw(path)?,
    )))
}

/// Opens a text input (`-`: stdin), unbuffered, with a message naming it on
/// failure. What it reads is UTF-8: a line that is not valid UTF-8 is read
/// as ISO 8859-1 (Latin-1, the PGN standard's character set), and the first
/// such line is reported as a warning naming the file — never are
/// characters replaced ([`Latin1Read`]). The file is read straight into the
/// caller's buffer and checked there.
///
/// # Errors
/// The file cannot be opened.
pub fn open_text(path: &Path) -> anyhow::Result<Box<dyn Read + Send>> {
    let name = display_name(path);
    let inner = open_raw(path).map_err(|e| anyhow::anyhow!("cannot open {name}: {e}"))?;
    Ok(Box::new(Latin1Read::new(inner, move |line| {
        warn_latin1(&name, line)
    })))
}

/// [`open_text`], buffered for reading lines.
///
/// # Errors
/// The file cannot be opened.
pub fn open_input(path: &Path) -> anyhow::Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(io::BufReader::with_capacity(
        1 << 16,
        open_text(path)?,
    )))
}

/// Warns that input `name` is not UTF-8 from `line` on, and how it is read.
pub fn warn_latin1(name: &str, line: u64) {
    eprintln!(
        "{name}:{line}: warning: not UTF-8; read as ISO 8859-1 (Latin-1) from here on where a line is not UTF-8"
    );
}

/// Whether `a` and `b` name the same existing file (the same inode: the
/// same path written differently, a symbolic link, or a hard link).
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (fs::metadata(a), fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    }
}

/// Refuses an output that is one of the inputs, unless `in_place`.
///
/// # Errors
/// A usage error naming the file.
pub fn check_not_input(output: &Path, inputs: &[&Path], in_place: bool) -> anyhow::Result<()> {
    if is_std(output) || in_place {
        return Ok(());
    }
    for input in inputs {
        if !is_std(input) && same_file(output, input) {
            return Err(usage(format!(
                "the output {} is the input {}; give --in-place to replace it",
                output.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Refuses outputs (`--html`, `--csv`, `--results`, `-o`, `--pgnout`, a
/// journal...), each named with its flag, that are one of `inputs` or the
/// same file as another of them: the input would be changed, or one output
/// replaced by or mixed with the other. Checked before any work is done.
///
/// # Errors
/// A usage error naming the files.
pub fn check_outputs(outputs: &[(&str, &Path)], inputs: &[&Path]) -> anyhow::Result<()> {
    let outputs: Vec<_> = outputs.iter().filter(|(_, p)| !is_std(p)).collect();
    for (i, (flag, out)) in outputs.iter().enumerate() {
        if let Some(input) = inputs.iter().find(|i| !is_std(i) && same_file(out, i)) {
            return Err(usage(format!(
                "{flag} {} is also the input {}: refused, the input would be changed",
                out.display(),
                input.display()
            )));
        }
        for (other_flag, other) in &outputs[..i] {
            if same_target(out, other) {
                return Err(usage(format!(
                    "{other_flag} {} and {flag} {} are the same file: refused, one would spoil the other",
                    other.display(),
                    out.display()
                )));
            }
        }
    }
    Ok(())
}

/// Whether `a` and `b` name the same file, existing or not: the same inode,
/// or the same name in the same directory.
fn same_target(a: &Path, b: &Path) -> bool {
    if same_file(a, b) {
        return true;
    }
    let place = |p: &Path| {
        let target = resolve_target(p);
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Some((fs::canonicalize(dir).ok()?, target.file_name()?.to_owned()))
    };
    matches!((place(a), place(b)), (Some(x), Some(y)) if x == y)
}

/// The partial file beside `target` that a run writes before it is renamed
/// over `target`; it is left behind when a run is killed, and
/// `--resume` reads it.
pub fn partial_path(target: &Path) -> PathBuf {
    sibling(target, "rookery-partial")
}

/// The partial file of an earlier interrupted run, kept while a resumed run
/// reads it.
pub fn previous_partial_path(target: &Path) -> PathBuf {
    sibling(target, "rookery-partial-prev")
}

fn sibling(target: &Path, suffix: &str) -> PathBuf {
    let name = target
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    target.with_file_name(format!(".{name}.{suffix}"))
}

/// Where output goes: stdout, or a file replaced only when [`Output::commit`]
/// is called. Until then the bytes go to a partial file beside the target;
/// an output dropped without a commit (an error) removes its partial file,
/// a killed process leaves it behind for `--resume`. An existing target that
/// is not a regular file (`/dev/null`, a FIFO) is written to directly and
/// never replaced.
pub struct Output {
    inner: Inner,
    /// How the output is named in a write error (`<stdout>`, the path).
    name: String,
}

enum Inner {
    Stdout(io::BufWriter<io::StdoutLock<'static>>),
    /// Something other than a regular file (`/dev/null`, a FIFO, a
    /// terminal): written to directly, since renaming a file over it would
    /// replace it.
    Special(io::BufWriter<File>),
    File {
        writer: io::BufWriter<File>,
        partial: PathBuf,
        target: PathBuf,
        done: bool,
    },
}

impl Output {
    /// Output to `path` (`-`: stdout), which must not be one of `inputs`
    /// unless `in_place`. Nothing is changed at `path` before the commit.
    ///
    /// # Errors
    /// A usage error when the output is an input; I/O errors creating the
    /// partial file.
    pub fn create(path: &Path, inputs: &[&Path], in_place: bool) -> anyhow::Result<Output> {
        check_not_input(path, inputs, in_place)?;
        if is_std(path) {
            return Ok(Output {
                inner: Inner::Stdout(stdout()),
                name: "<stdout>".into(),
            });
        }
        if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            let file = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
            return Ok(Output {
                inner: Inner::Special(io::BufWriter::with_capacity(1 << 16, file)),
                name: path.display().to_string(),
            });
        }
        // Replace what a symbolic link points to, not the link.
        let target = resolve_target(path);
        let partial = partial_path(&target);
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&partial)
            .map_err(|e| {
                // Name the file asked for; the partial file beside it is ours.
                anyhow::anyhow!(
                    "cannot write {} (through {}): {e}",
                    path.display(),
                    partial.display()
                )
            })?;
        // Keep the permissions of the file being replaced.
        if let Ok(m) = fs::metadata(&target) {
            let _ = fs::set_permissions(&partial, m.permissions());
        }
        Ok(Output {
            inner: Inner::File {
                writer: io::BufWriter::with_capacity(1 << 16, file),
                partial,
                target,
                done: false,
            },
            name: path.display().to_string(),
        })
    }

    /// Flushes and, for a file, moves the partial file over the target.
    ///
    /// # Errors
    /// I/O errors (the target is then unchanged).
    pub fn commit(mut self) -> anyhow::Result<()> {
        let named = |e| writing(&self.name, e);
        match &mut self.inner {
            Inner::Stdout(w) => w.flush().map_err(named)?,
            Inner::Special(w) => w.flush().map_err(named)?,
            Inner::File {
                writer,
                partial,
                target,
                done,
            } => {
                writer.flush().map_err(named)?;
                writer.get_ref().sync_all().map_err(named)?;
                fs::rename(&*partial, &*target).map_err(|e| {
                    anyhow::anyhow!(
                        "cannot move {} to {}: {e}",
                        partial.display(),
                        target.display()
                    )
                })?;
                *done = true;
            }
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Stdout(w) => w.write(buf),
            Inner::Special(w) => w.write(buf),
            Inner::File { writer, .. } => writer.write(buf),
        }
        .map_err(|e| writing(&self.name, e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            Inner::Stdout(w) => w.write_all(buf),
            Inner::Special(w) => w.write_all(buf),
            Inner::File { writer, .. } => writer.write_all(buf),
        }
        .map_err(|e| writing(&self.name, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Stdout(w) => w.flush(),
            Inner::Special(w) => w.flush(),
            Inner::File { writer, .. } => writer.flush(),
        }
        .map_err(|e| writing(&self.name, e))
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Inner::File {
            partial,
            done: false,
            ..
        } = &self.inner
        {
            let _ = fs::remove_file(partial);
        }
    }
}

/// A write error `e` naming the output it happened on (its kind kept: a
/// closed stdout still reads as a broken pipe).
fn writing(name: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("writing {name}: {e}"))
}

/// Writes `data` to `path` (`-`: stdout) through an [`Output`].
///
/// # Errors
/// As [`Output::create`] and [`Output::commit`].
pub fn write_whole(path: &Path, data: &[u8]) -> anyhow::Result<()> {
    let mut out = Output::create(path, &[], false)?;
    out.write_all(data)?;
    out.commit()
}

/// The file an [`Output`] for `path` replaces: what a symbolic link points to.
fn resolve_target(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// For `--resume` into `path`: the earlier outputs to take finished records
/// from, most recent first — the partial file of an interrupted run (kept
/// aside as the previous partial, merged with an older one if a resumed run
/// was interrupted too), then the output file itself. Call
/// [`resume_done`] after the new output is committed.
///
/// # Errors
/// I/O errors reading or moving the partial files.
pub fn resume_sources(path: &Path) -> anyhow::Result<Vec<Box<dyn BufRead + Send>>> {
    let target = resolve_target(path);
    let partial = partial_path(&target);
    let prev = previous_partial_path(&target);
    if partial.exists() {
        if prev.exists() {
            // Line N from the newer partial where it has one, else from the older.
            let merged = sibling(&target, "rookery-partial-merge");
            {
                let mut newer = io::BufReader::new(File::open(&partial)?);
                let mut older = io::BufReader::new(File::open(&prev)?);
                let mut out = io::BufWriter::new(File::create(&merged)?);
                let (mut a, mut b) = (String::new(), String::new());
                loop {
                    a.clear();
                    b.clear();
                    let na = newer.read_line(&mut a)?;
                    let nb = older.read_line(&mut b)?;
                    let a_ok = na > 0 && a.ends_with('\n');
                    let b_ok = nb > 0 && b.ends_with('\n');
                    match (a_ok, b_ok) {
                        (true, _) => out.write_all(a.as_bytes())?,
                        (false, true) => out.write_all(b.as_bytes())?,
                        (false, false) => break,
                    }
                }
                out.flush()?;
            }
            fs::rename(&merged, &prev)?;
            fs::remove_file(&partial)?;
        } else {
            fs::rename(&partial, &prev)?;
        }
    }
    let mut sources: Vec<Box<dyn BufRead + Send>> = Vec::new();
    for p in [&prev, &target] {
        match File::open(p) {
            Ok(f) => sources.push(Box::new(io::BufReader::new(f))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", p.display())),
        }
    }
    Ok(sources)
}

/// Removes what [`resume_sources`] kept aside, once the resumed output is
/// in place.
pub fn resume_done(path: &Path) {
    let _ = fs::remove_file(previous_partial_path(&resolve_target(path)));
}
