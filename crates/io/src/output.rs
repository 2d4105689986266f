//! The one way every command writes a file: [`Output`] writes into a
//! partial file beside the target (`.NAME.rookery-partial`), renamed over
//! the target only when the command finished, so that an interrupted or
//! failed run leaves the previous file as it was; a killed run leaves the
//! partial file behind, and `--resume` takes the records finished in it
//! ([`resume_sources`]). A run none of whose inputs could be read (each
//! missing, a directory, compressed in a format rookery does not read...)
//! made nothing of them: its commit removes the partial file and leaves
//! the previous file as it was ([`OutputError::LeftAsItWas`]), where it
//! would otherwise have replaced it with an empty one. A run that fails
//! in a way its verb knows of ends with [`Output::abandon`]: the same. A file rewritten in place (`--in-place`) is
//! also synced to disk before the rename, so that not even a power cut
//! can lose both its old and its new text; other outputs are not (they
//! are made again from their inputs, and a sync makes a command wait for
//! the disk: 0.10-0.13 s for 314 MB on this project's machine, a third of
//! what `pgn eco` spends on them). Outputs that
//! are one of the inputs (unless
//! `--in-place`) or each other are refused before any work is done
//! ([`check_not_input`], [`check_outputs`]).
//!
//! A file (or a special file given by name, as a FIFO) is written on a
//! thread of its own: the command hands it blocks of
//! [`BEHIND_BLOCK`] bytes and goes on while the kernel copies them (and,
//! for a compressed output, while they are compressed), so that writing a
//! large output costs the command little of its wall time (the thread
//! starts with the first full block: a small output costs none). At most
//! [`BEHIND_QUEUE`] blocks wait; a flush waits until every byte before it
//! is written; a write error is returned by a later write, the flush or
//! the commit.
//!
//! An output whose name ends in `.zst`, `.gz` or `.bz2` is compressed
//! ([`Format::from_extension`]): zstd at level 3, gzip at level 6, bzip2 at
//! level 9, the defaults of the `zstd`, `gzip` and `bzip2` tools. The
//! partial file is compressed too, and `--resume` reads it back (a killed
//! run's partial file ends inside a frame: the whole lines before the cut
//! are taken, as from a plain one).
//!
//! ```
//! use rookery_io::output::Output;
//! use std::io::Write;
//!
//! let dir = std::env::temp_dir().join(format!("rookery-io-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let target = dir.join("games.pgn.gz");
//! let mut out = Output::create(&target, &[], false)?;
//! out.write_all(b"1. e4 e5 *\n")?;
//! assert!(!target.exists()); // nothing there until the commit
//! out.commit()?;
//! assert_eq!(rookery_io::input::read_all(&target)?, b"1. e4 e5 *\n");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use crate::input::{is_std, Format, Input};

/// Bytes an output buffers before writing.
const WRITE_BUFFER: usize = 1 << 16;

/// zstd's level for outputs named `.zst` (the `zstd` tool's default).
pub const ZSTD_LEVEL: i32 = 3;
/// gzip's level for outputs named `.gz` (the `gzip` tool's default).
pub const GZIP_LEVEL: u32 = 6;
/// bzip2's level for outputs named `.bz2` (the `bzip2` tool's default).
pub const BZIP2_LEVEL: u32 = 9;

/// Why an output cannot be written, or is refused.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output is one of the inputs and `--in-place` was not given.
    #[error("the output {} is the input {}; give --in-place to replace it", .output.display(), .input.display())]
    IsInput {
        /// The output.
        output: PathBuf,
        /// The input it is.
        input: PathBuf,
    },
    /// An output given with `flag` is one of the inputs.
    #[error("{flag} {} is also the input {}: refused, the input would be changed", .output.display(), .input.display())]
    FlagIsInput {
        /// The flag that named the output (`-o`, `--html`...).
        flag: String,
        /// The output.
        output: PathBuf,
        /// The input it is.
        input: PathBuf,
    },
    /// Two outputs are the same file.
    #[error("{first_flag} {} and {flag} {} are the same file: refused, one would spoil the other", .first.display(), .output.display())]
    SameFile {
        /// The flag of the first.
        first_flag: String,
        /// The first.
        first: PathBuf,
        /// The flag of the second.
        flag: String,
        /// The second.
        output: PathBuf,
    },
    /// The output (something other than a regular file) cannot be opened.
    #[error("cannot write {}: {source}", .path.display())]
    Open {
        /// The output.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The partial file beside the target cannot be made.
    #[error("cannot write {} (through {}): {source}", .path.display(), .partial.display())]
    Create {
        /// The output asked for.
        path: PathBuf,
        /// The partial file.
        partial: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The finished partial file cannot be moved over the target.
    #[error("cannot move {} to {}: {source}", .partial.display(), .target.display())]
    Rename {
        /// The partial file.
        partial: PathBuf,
        /// The target.
        target: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Writing failed (the message names the output; a closed stdout keeps
    /// its kind, a broken pipe).
    #[error(transparent)]
    Write(#[from] io::Error),
    /// The run failed (`why`: none of its inputs could be read, it stopped
    /// at an error, it would lose games rewriting a file in place): the
    /// partial file is removed and the file at `path` left as it was
    /// ([`Output::abandon`]).
    #[error("{} is left as it was: {why}", .path.display())]
    LeftAsItWas {
        /// The output.
        path: PathBuf,
        /// Why the run's output is not wanted.
        why: String,
    },
    /// The earlier outputs a `--resume` reads cannot be read or moved aside.
    #[error("cannot resume from {}: {source}", .path.display())]
    Resume {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl OutputError {
    /// Whether the error refuses the outputs asked for (a usage error),
    /// rather than a failure to write them.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            OutputError::IsInput { .. }
                | OutputError::FlagIsInput { .. }
                | OutputError::SameFile { .. }
        )
    }
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
/// [`OutputError::IsInput`] naming the file.
pub fn check_not_input(output: &Path, inputs: &[&Path], in_place: bool) -> Result<(), OutputError> {
    if is_std(output) || in_place {
        return Ok(());
    }
    for input in inputs {
        if !is_std(input) && same_file(output, input) {
            return Err(OutputError::IsInput {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
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
/// [`OutputError::FlagIsInput`] or [`OutputError::SameFile`] naming the files.
pub fn check_outputs(outputs: &[(&str, &Path)], inputs: &[&Path]) -> Result<(), OutputError> {
    let outputs: Vec<_> = outputs.iter().filter(|(_, p)| !is_std(p)).collect();
    for (i, (flag, out)) in outputs.iter().enumerate() {
        if let Some(input) = inputs.iter().find(|i| !is_std(i) && same_file(out, i)) {
            return Err(OutputError::FlagIsInput {
                flag: (*flag).to_owned(),
                output: out.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
        for (other_flag, other) in &outputs[..i] {
            if same_target(out, other) {
                return Err(OutputError::SameFile {
                    first_flag: (*other_flag).to_owned(),
                    first: other.to_path_buf(),
                    flag: (*flag).to_owned(),
                    output: out.to_path_buf(),
                });
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

/// Bytes a compressor is fed at a time ([`Blocks`]).
const COMPRESS_BLOCK: usize = 1 << 16;

/// Feeds a compressor in blocks of [`COMPRESS_BLOCK`] bytes, whatever the
/// sizes of the writes, and never flushes it before the end: the
/// compressed bytes then depend on the text alone, not on how a verb
/// wrote it (a deflate or zstd stream differs with the pieces it is given
/// and the flushes asked of it). So `rookery merge` of a sharded run's
/// parts compresses to the bytes one run writes.
struct Blocks<E: Write> {
    encoder: E,
    buf: Vec<u8>,
}

impl<E: Write> Blocks<E> {
    fn new(encoder: E) -> Blocks<E> {
        Blocks {
            encoder,
            buf: Vec::with_capacity(COMPRESS_BLOCK),
        }
    }

    /// The compressor, given what is still held.
    fn into_inner(mut self) -> io::Result<E> {
        self.encoder.write_all(&self.buf)?;
        Ok(self.encoder)
    }
}

impl<E: Write> Write for Blocks<E> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    fn write_all(&mut self, mut data: &[u8]) -> io::Result<()> {
        if !self.buf.is_empty() {
            let take = (COMPRESS_BLOCK - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buf.len() < COMPRESS_BLOCK {
                return Ok(());
            }
            self.encoder.write_all(&self.buf)?;
            self.buf.clear();
        }
        while data.len() >= COMPRESS_BLOCK {
            self.encoder.write_all(&data[..COMPRESS_BLOCK])?;
            data = &data[COMPRESS_BLOCK..];
        }
        self.buf.extend_from_slice(data);
        Ok(())
    }

    /// Nothing: a compressed file is complete only when finished (a
    /// flush would end a compressed block where the verb happened to
    /// flush).
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A writer, compressed or not as its target's name says.
enum Encoder<W: Write> {
    Plain(W),
    Zstd(Blocks<zstd::stream::write::Encoder<'static, W>>),
    Gzip(Blocks<flate2::write::GzEncoder<W>>),
    Bzip2(Blocks<bzip2::write::BzEncoder<W>>),
}

impl<W: Write> Encoder<W> {
    /// A writer to `w` in `format`.
    fn new(w: W, format: Format) -> io::Result<Encoder<W>> {
        Ok(match format {
            Format::Plain => Encoder::Plain(w),
            Format::Zstd => Encoder::Zstd(Blocks::new(zstd::stream::write::Encoder::new(
                w, ZSTD_LEVEL,
            )?)),
            Format::Gzip => Encoder::Gzip(Blocks::new(flate2::write::GzEncoder::new(
                w,
                flate2::Compression::new(GZIP_LEVEL),
            ))),
            Format::Bzip2 => Encoder::Bzip2(Blocks::new(bzip2::write::BzEncoder::new(
                w,
                bzip2::Compression::new(BZIP2_LEVEL),
            ))),
        })
    }

    /// Ends the compressed stream (its last frame, member or stream) and
    /// hands back the writer, flushed.
    fn finish(self) -> io::Result<W> {
        let mut w = match self {
            Encoder::Plain(w) => w,
            Encoder::Zstd(e) => e.into_inner()?.finish()?,
            Encoder::Gzip(e) => e.into_inner()?.finish()?,
            Encoder::Bzip2(e) => e.into_inner()?.finish()?,
        };
        w.flush()?;
        Ok(w)
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Encoder::Plain(w) => w,
            Encoder::Zstd(e) => e,
            Encoder::Gzip(e) => e,
            Encoder::Bzip2(e) => e,
        }
    }
}

/// Bytes an [`Output`] hands its writing thread at a time.
pub const BEHIND_BLOCK: usize = 1 << 18;
/// Blocks that may wait for an [`Output`]'s writing thread (beyond the one it
/// writes): the memory an output holds is at most
/// `(BEHIND_QUEUE + 2) * BEHIND_BLOCK`.
pub const BEHIND_QUEUE: usize = 4;

/// What [`Behind`] sends its thread.
enum Job {
    /// Bytes to write.
    Data(Vec<u8>),
    /// Flush, and say how it went.
    Flush(std::sync::mpsc::SyncSender<io::Result<()>>),
}

/// The file end of an output.
type FileEncoder = Encoder<io::BufWriter<File>>;

/// An [`Encoder`] written on a thread of its own (see the module
/// documentation): the command's writes fill a block, each full block is
/// queued for the thread, and the thread's emptied blocks come back to be
/// filled again. The thread starts with the first full block: an output
/// smaller than a block is written by the command at its end, and costs
/// no thread.
struct Behind {
    buf: Vec<u8>,
    state: Writing,
}

/// Where a [`Behind`]'s encoder is.
enum Writing {
    /// Here: no block was full yet.
    Here(Box<FileEncoder>),
    /// With its thread.
    Thread {
        jobs: std::sync::mpsc::SyncSender<Job>,
        spare: std::sync::mpsc::Receiver<Vec<u8>>,
        thread: std::thread::JoinHandle<io::Result<FileEncoder>>,
    },
    /// Finished, or its thread stopped on an error that was returned.
    Gone,
}

/// The thread of a [`Behind`]: writes the blocks it is given, in order,
/// until the queue closes (then hands the encoder back) or a write fails.
fn write_behind(
    mut encoder: FileEncoder,
    queue: std::sync::mpsc::Receiver<Job>,
    give_back: std::sync::mpsc::SyncSender<Vec<u8>>,
) -> io::Result<FileEncoder> {
    for job in queue {
        match job {
            Job::Data(mut block) => {
                encoder.writer().write_all(&block)?;
                block.clear();
                // A block not taken back is freed.
                let _ = give_back.try_send(block);
            }
            Job::Flush(done) => {
                let r = encoder.writer().flush();
                let failed = r
                    .as_ref()
                    .err()
                    .map(|e| io::Error::new(e.kind(), e.to_string()));
                let _ = done.send(r);
                if let Some(e) = failed {
                    return Err(e);
                }
            }
        }
    }
    Ok(encoder)
}

impl Behind {
    /// `encoder`, to be written behind.
    fn new(encoder: FileEncoder) -> io::Result<Behind> {
        Ok(Behind {
            buf: Vec::new(),
            state: Writing::Here(Box::new(encoder)),
        })
    }

    /// The thread's error, once it has stopped on one (it stops taking
    /// jobs then, so a send fails).
    fn failed(&mut self) -> io::Error {
        match std::mem::replace(&mut self.state, Writing::Gone) {
            Writing::Thread { thread, .. } => match thread.join() {
                Ok(Err(e)) => e,
                Ok(Ok(_)) => io::Error::other("the output's thread stopped"),
                Err(_) => io::Error::other("the output's thread panicked"),
            },
            Writing::Here(_) | Writing::Gone => io::Error::other("the output is already finished"),
        }
    }

    /// Queues `job` for the thread, starting it first if need be.
    fn send(&mut self, job: Job) -> io::Result<()> {
        if matches!(self.state, Writing::Here(_)) {
            let Writing::Here(encoder) = std::mem::replace(&mut self.state, Writing::Gone) else {
                unreachable!("matched above");
            };
            let (jobs, queue) = std::sync::mpsc::sync_channel::<Job>(BEHIND_QUEUE);
            let (give_back, spare) = std::sync::mpsc::sync_channel::<Vec<u8>>(BEHIND_QUEUE + 1);
            let thread = std::thread::Builder::new()
                .name("rookery-output".into())
                .spawn(move || write_behind(*encoder, queue, give_back))?;
            self.state = Writing::Thread {
                jobs,
                spare,
                thread,
            };
        }
        let sent = match &self.state {
            Writing::Thread { jobs, .. } => jobs.send(job).is_ok(),
            Writing::Here(_) | Writing::Gone => false,
        };
        if sent {
            Ok(())
        } else {
            Err(self.failed())
        }
    }

    /// Queues the block filled so far.
    fn send_block(&mut self) -> io::Result<()> {
        let next = match &self.state {
            Writing::Thread { spare, .. } => spare.try_recv().ok(),
            Writing::Here(_) | Writing::Gone => None,
        }
        .unwrap_or_else(|| Vec::with_capacity(BEHIND_BLOCK));
        let full = std::mem::replace(&mut self.buf, next);
        self.send(Job::Data(full))
    }

    /// Writes what is left and ends the encoder on this thread (its last
    /// frame, member or stream), handing back the file.
    fn finish(mut self) -> io::Result<io::BufWriter<File>> {
        if matches!(self.state, Writing::Thread { .. }) && !self.buf.is_empty() {
            self.send_block()?;
        }
        match std::mem::replace(&mut self.state, Writing::Gone) {
            Writing::Here(mut encoder) => {
                encoder.writer().write_all(&self.buf)?;
                encoder.finish()
            }
            Writing::Thread { jobs, thread, .. } => {
                // The queue closes: the thread writes what it holds and
                // hands the encoder back.
                drop(jobs);
                match thread.join() {
                    Ok(Ok(encoder)) => encoder.finish(),
                    Ok(Err(e)) => Err(e),
                    Err(_) => Err(io::Error::other("the output's thread panicked")),
                }
            }
            Writing::Gone => Err(io::Error::other("the output is already finished")),
        }
    }
}

impl Write for Behind {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    fn write_all(&mut self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            if self.buf.capacity() == 0 {
                self.buf.reserve_exact(BEHIND_BLOCK);
            }
            let take = (BEHIND_BLOCK - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buf.len() >= BEHIND_BLOCK {
                self.send_block()?;
            }
        }
        Ok(())
    }

    /// Waits until every byte written so far is written (by the thread,
    /// if it started) and flushed.
    fn flush(&mut self) -> io::Result<()> {
        if let Writing::Here(encoder) = &mut self.state {
            encoder.writer().write_all(&self.buf)?;
            self.buf.clear();
            return encoder.writer().flush();
        }
        if !self.buf.is_empty() {
            self.send_block()?;
        }
        let (done, wait) = std::sync::mpsc::sync_channel(1);
        self.send(Job::Flush(done))?;
        match wait.recv() {
            Ok(r) => r,
            Err(_) => Err(self.failed()),
        }
    }
}

/// Where output goes: stdout, or a file replaced only when [`Output::commit`]
/// is called. Until then the bytes go to a partial file beside the target;
/// an output dropped without a commit (an error) removes its partial file,
/// a killed process leaves it behind for `--resume`. An existing target that
/// is not a regular file (`/dev/null`, a FIFO) is written to directly and
/// never replaced. A name ending in `.zst`, `.gz` or `.bz2` compresses (see
/// the module documentation).
pub struct Output {
    inner: Inner,
    /// How the output is named in a write error ([`STDOUT_NAME`], the path).
    name: String,
    /// Synced to disk before the rename (a file rewritten in place).
    durable: bool,
    /// Every input of the run was refused when the output was made
    /// ([`crate::input::refusal`]): the commit leaves the target alone.
    nothing_read: bool,
}

enum Inner {
    Stdout(io::BufWriter<io::StdoutLock<'static>>),
    /// Something other than a regular file (`/dev/null`, a FIFO, a
    /// terminal): written to directly, since renaming a file over it would
    /// replace it.
    Special(Option<Behind>),
    File {
        /// `None` once finished by the commit.
        writer: Option<Behind>,
        partial: PathBuf,
        target: PathBuf,
        done: bool,
    },
    /// A file closed by [`Output::suspend`] until the next write, which
    /// appends (compressed output: a new frame, member or stream, which
    /// every reader of the format reads on).
    Suspended {
        partial: PathBuf,
        target: PathBuf,
        format: Format,
    },
}

impl Output {
    /// Output to `path` (`-`: stdout), which must not be one of `inputs`
    /// unless `in_place`. Nothing is changed at `path` before the commit.
    /// When there are `inputs` and not one of them can be read (each is
    /// missing, a directory, text in UTF-16, compressed in a format rookery
    /// does not read: [`crate::input::refusal`]), the run can make nothing
    /// of them, and the commit of a file leaves it as it was
    /// ([`OutputError::LeftAsItWas`]).
    ///
    /// # Errors
    /// [`OutputError::IsInput`] when the output is an input; I/O errors
    /// creating the partial file.
    pub fn create(path: &Path, inputs: &[&Path], in_place: bool) -> Result<Output, OutputError> {
        check_not_input(path, inputs, in_place)?;
        if is_std(path) {
            return Ok(Output {
                inner: Inner::Stdout(io::BufWriter::with_capacity(
                    WRITE_BUFFER,
                    io::stdout().lock(),
                )),
                name: STDOUT_NAME.into(),
                durable: false,
                nothing_read: false,
            });
        }
        let format = Format::from_extension(path);
        if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            let open = OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|file| {
                    Encoder::new(io::BufWriter::with_capacity(WRITE_BUFFER, file), format)
                })
                .and_then(Behind::new)
                .map_err(|source| OutputError::Open {
                    path: path.to_path_buf(),
                    source,
                })?;
            return Ok(Output {
                inner: Inner::Special(Some(open)),
                name: path.display().to_string(),
                durable: false,
                nothing_read: false,
            });
        }
        // Replace what a symbolic link points to, not the link.
        let target = resolve_target(path);
        let partial = partial_path(&target);
        let writer = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&partial)
            .and_then(|file| Encoder::new(io::BufWriter::with_capacity(WRITE_BUFFER, file), format))
            .and_then(Behind::new)
            .map_err(|source| {
                // Name the file asked for; the partial file beside it is ours.
                OutputError::Create {
                    path: path.to_path_buf(),
                    partial: partial.clone(),
                    source,
                }
            })?;
        // Keep the permissions of the file being replaced.
        if let Ok(m) = fs::metadata(&target) {
            let _ = fs::set_permissions(&partial, m.permissions());
        }
        Ok(Output {
            inner: Inner::File {
                writer: Some(writer),
                partial,
                target,
                done: false,
            },
            name: path.display().to_string(),
            durable: in_place,
            nothing_read: !inputs.is_empty()
                && inputs.iter().all(|p| crate::input::refusal(p).is_some()),
        })
    }

    /// Flushes and closes a file until the next write, which opens it
    /// again to append: for a command that writes more files than it may
    /// keep open at once (`pgn split`). Its buffer is freed meanwhile; a
    /// compressed file's stream is ended and the next write starts another.
    /// Nothing to do for stdout or a special file.
    ///
    /// # Errors
    /// I/O errors flushing it.
    pub fn suspend(&mut self) -> io::Result<()> {
        if let Inner::File {
            writer,
            partial,
            target,
            done: false,
        } = &mut self.inner
        {
            if let Some(w) = writer.take() {
                w.finish().map_err(|e| writing(&self.name, e))?;
            }
            let format = Format::from_extension(target);
            let (partial, target) = (std::mem::take(partial), std::mem::take(target));
            self.inner = Inner::Suspended {
                partial,
                target,
                format,
            };
        }
        Ok(())
    }

    /// A suspended file opened again (to append); nothing otherwise.
    fn resume_suspended(&mut self) -> io::Result<()> {
        if let Inner::Suspended {
            partial,
            target,
            format,
        } = &mut self.inner
        {
            let file = OpenOptions::new().append(true).open(&*partial)?;
            let writer = Behind::new(Encoder::new(
                io::BufWriter::with_capacity(WRITE_BUFFER, file),
                *format,
            )?)?;
            self.inner = Inner::File {
                writer: Some(writer),
                partial: std::mem::take(partial),
                target: std::mem::take(target),
                done: false,
            };
        }
        Ok(())
    }

    /// Flushes (ending the compressed stream, if any) and, for a file,
    /// moves the partial file over the target.
    ///
    /// # Errors
    /// I/O errors (the target is then unchanged);
    /// [`OutputError::LeftAsItWas`] for a file when none of the inputs
    /// could be read (the partial file is removed, the target unchanged).
    pub fn commit(mut self) -> Result<(), OutputError> {
        if self.nothing_read {
            return self.abandon("none of the inputs could be read");
        }
        let name = self.name.clone();
        let named = |e| OutputError::Write(writing(&name, e));
        // A suspended file is opened again, to be ended.
        self.resume_suspended().map_err(named)?;
        match &mut self.inner {
            Inner::Stdout(w) => w.flush().map_err(named)?,
            Inner::Special(w) => {
                if let Some(w) = w.take() {
                    w.finish().map_err(named)?;
                }
            }
            Inner::File {
                writer,
                partial,
                target,
                done,
            } => {
                if let Some(w) = writer.take() {
                    let file = w.finish().map_err(named)?;
                    if self.durable {
                        file.get_ref().sync_all().map_err(named)?;
                    }
                }
                fs::rename(&*partial, &*target).map_err(|source| OutputError::Rename {
                    partial: partial.clone(),
                    target: target.clone(),
                    source,
                })?;
                *done = true;
            }
            // Opened again above: not reached.
            Inner::Suspended { .. } => {
                return Err(named(io::Error::other("the output is still suspended")))
            }
        }
        Ok(())
    }

    /// Ends a run that failed (`why`) without its output: a file's partial
    /// file is removed and the file left as it was. What went to stdout or
    /// a special file (a FIFO) is already out: it is flushed, as by
    /// [`Output::commit`].
    ///
    /// # Errors
    /// [`OutputError::LeftAsItWas`] for a file, saying `why`; as
    /// [`Output::commit`] for stdout or a special file.
    pub fn abandon(mut self, why: impl Into<String>) -> Result<(), OutputError> {
        if matches!(self.inner, Inner::File { .. } | Inner::Suspended { .. }) {
            // Dropped: the partial file goes.
            return Err(OutputError::LeftAsItWas {
                path: PathBuf::from(&self.name),
                why: why.into(),
            });
        }
        self.nothing_read = false;
        self.commit()
    }

    fn writer(&mut self) -> io::Result<&mut dyn Write> {
        self.resume_suspended()?;
        match &mut self.inner {
            Inner::Stdout(w) => Ok(w),
            Inner::Special(Some(w))
            | Inner::File {
                writer: Some(w), ..
            } => Ok(w),
            Inner::Special(None) | Inner::File { writer: None, .. } => {
                Err(io::Error::other("the output is already finished"))
            }
            // Opened again above: not reached.
            Inner::Suspended { .. } => Err(io::Error::other("the output is still suspended")),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let r = self.writer().and_then(|w| w.write(buf));
        r.map_err(|e| writing(&self.name, e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let r = self.writer().and_then(|w| w.write_all(buf));
        r.map_err(|e| writing(&self.name, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        // A suspended file has nothing buffered: it stays closed.
        if matches!(self.inner, Inner::Suspended { .. }) {
            return Ok(());
        }
        let r = self.writer().and_then(Write::flush);
        r.map_err(|e| writing(&self.name, e))
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        match &self.inner {
            Inner::File {
                partial,
                done: false,
                ..
            }
            | Inner::Suspended { partial, .. } => {
                let _ = fs::remove_file(partial);
            }
            _ => {}
        }
    }
}

/// A write error `e` naming the output it happened on (its kind kept: a
/// closed stdout still reads as a broken pipe).
fn writing(name: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("writing {name}: {e}"))
}

/// How a write error names stdout (`rookery pgn stats f.pgn >/dev/full`:
/// `writing standard output: No space left on device`).
pub const STDOUT_NAME: &str = "standard output";

/// A writer whose errors name it, as an [`Output`]'s do (`writing NAME:
/// ...`, the kind kept: a closed stdout still reads as a broken pipe): for
/// what a command prints on stdout without an [`Output`].
#[derive(Debug)]
pub struct Named<W: Write> {
    inner: W,
    name: &'static str,
}

impl<W: Write> Named<W> {
    /// `inner`, named `name` in its errors.
    pub fn new(inner: W, name: &'static str) -> Named<W> {
        Named { inner, name }
    }
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| writing(self.name, e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(|e| writing(self.name, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| writing(self.name, e))
    }
}

/// Writes `data` to `path` (`-`: stdout) through an [`Output`].
///
/// # Errors
/// As [`Output::create`] and [`Output::commit`].
pub fn write_whole(path: &Path, data: &[u8]) -> Result<(), OutputError> {
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

/// Opens an earlier output for `--resume`: decompressed if it is
/// compressed; a partial file that ends inside a frame (a killed run) gives
/// the whole lines before the cut, which is all a killed run leaves.
fn open_earlier(path: &Path) -> io::Result<Option<Box<dyn BufRead + Send>>> {
    match Input::open(path) {
        Ok(input) => Ok(Some(Box::new(io::BufReader::new(input)))),
        Err(crate::input::InputError::Open { source, .. })
            if source.kind() == io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into_io()),
    }
}

/// For `--resume` into `path`: the earlier outputs to take finished records
/// from, most recent first — the partial file of an interrupted run (kept
/// aside as the previous partial, merged with an older one if a resumed run
/// was interrupted too), then the output file itself. Call
/// [`resume_done`] after the new output is committed. Compressed outputs
/// are read decompressed.
///
/// # Errors
/// I/O errors reading or moving the partial files.
pub fn resume_sources(path: &Path) -> Result<Vec<Box<dyn BufRead + Send>>, OutputError> {
    let target = resolve_target(path);
    let partial = partial_path(&target);
    let prev = previous_partial_path(&target);
    let failed = |path: &Path| {
        let path = path.to_path_buf();
        move |source| OutputError::Resume { path, source }
    };
    if partial.exists() {
        if prev.exists() {
            // Line N from the newer partial where it has one, else from the
            // older; the merge is written plain (it is read back by its bytes).
            let merged = sibling(&target, "rookery-partial-merge");
            merge_lines(&partial, &prev, &merged).map_err(failed(&merged))?;
            fs::rename(&merged, &prev).map_err(failed(&prev))?;
            fs::remove_file(&partial).map_err(failed(&partial))?;
        } else {
            fs::rename(&partial, &prev).map_err(failed(&partial))?;
        }
    }
    let mut sources: Vec<Box<dyn BufRead + Send>> = Vec::new();
    for p in [&prev, &target] {
        if let Some(source) = open_earlier(p).map_err(failed(p))? {
            sources.push(source);
        }
    }
    Ok(sources)
}

/// Writes to `merged` line N of `newer` where it has a whole one, else of
/// `older`, as long as either has one.
fn merge_lines(newer: &Path, older: &Path, merged: &Path) -> io::Result<()> {
    let empty = || -> Box<dyn BufRead + Send> { Box::new(io::empty()) };
    let mut newer = open_earlier(newer)?.unwrap_or_else(empty);
    let mut older = open_earlier(older)?.unwrap_or_else(empty);
    let mut out = io::BufWriter::new(File::create(merged)?);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    loop {
        a.clear();
        b.clear();
        let na = newer.read_until(b'\n', &mut a)?;
        let nb = older.read_until(b'\n', &mut b)?;
        let a_ok = na > 0 && a.ends_with(b"\n");
        let b_ok = nb > 0 && b.ends_with(b"\n");
        match (a_ok, b_ok) {
            (true, _) => out.write_all(&a)?,
            (false, true) => out.write_all(&b)?,
            (false, false) => break,
        }
    }
    out.flush()
}

/// Removes what [`resume_sources`] kept aside, once the resumed output is
/// in place.
pub fn resume_done(path: &Path) {
    let _ = fs::remove_file(previous_partial_path(&resolve_target(path)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text of `n` numbered lines of different lengths.
    fn text(n: usize) -> Vec<u8> {
        let mut t = Vec::new();
        for i in 0..n {
            t.extend_from_slice(format!("line {i} {}\n", "x".repeat(i * 7 % 90)).as_bytes());
        }
        t
    }

    /// The bytes of `text` written to `name` in pieces of `piece` bytes,
    /// flushed every `flush_every` pieces.
    fn written(dir: &Path, name: &str, text: &[u8], piece: usize, flush_every: usize) -> Vec<u8> {
        let path = dir.join(name);
        let mut out = Output::create(&path, &[], false).unwrap();
        for (i, chunk) in text.chunks(piece).enumerate() {
            out.write_all(chunk).unwrap();
            if i % flush_every == flush_every - 1 {
                out.flush().unwrap();
            }
        }
        out.commit().unwrap();
        fs::read(&path).unwrap()
    }

    #[test]
    fn compressed_bytes_depend_on_the_text_not_on_the_writes() {
        let dir = std::env::temp_dir().join(format!("rookery-io-blocks-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let t = text(20_000);
        for ext in ["gz", "zst", "bz2"] {
            let name = format!("o.{ext}");
            let whole = written(&dir, &name, &t, t.len(), usize::MAX);
            for (piece, flush_every) in [(1 << 16, 1), (7, 1000), (100_003, 2), (1, 50_000)] {
                let got = written(&dir, &name, &t, piece, flush_every);
                assert!(
                    got == whole,
                    ".{ext} in pieces of {piece}, flushed every {flush_every}"
                );
            }
            assert_eq!(crate::input::read_all(&dir.join(&name)).unwrap(), t);
        }
        fs::remove_dir_all(&dir).unwrap();
    }
    #[test]
    fn written_behind_every_byte_in_order_and_a_flush_waits_for_the_disk() {
        let dir = std::env::temp_dir().join(format!("rookery-io-behind-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("o.txt");
        let partial = partial_path(&path);
        // Many blocks' worth, in pieces that straddle the blocks.
        let t = text(200_000);
        assert!(t.len() > 8 * BEHIND_BLOCK);
        let mut out = Output::create(&path, &[], false).unwrap();
        let mut at = 0;
        for (i, chunk) in t.chunks(BEHIND_BLOCK / 3 + 11).enumerate() {
            out.write_all(chunk).unwrap();
            at += chunk.len();
            if i % 5 == 0 {
                // After a flush the partial file holds every byte so far
                // (what --resume reads after a kill).
                out.flush().unwrap();
                assert_eq!(fs::read(&partial).unwrap(), &t[..at]);
            }
        }
        out.commit().unwrap();
        assert!(fs::read(&path).unwrap() == t);
        assert!(!partial.exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_error_of_the_writing_thread_reaches_the_command() {
        if !Path::new("/dev/full").exists() {
            return;
        }
        let mut out = Output::create(Path::new("/dev/full"), &[], false).unwrap();
        // Written behind: the error comes with a later write, the flush or
        // the commit, never lost.
        let block = vec![b'x'; BEHIND_BLOCK];
        let mut failed = None;
        for _ in 0..(BEHIND_QUEUE + 4) {
            if let Err(e) = out.write_all(&block) {
                failed = Some(e);
                break;
            }
        }
        let e = match failed {
            Some(e) => e,
            None => match out.flush() {
                Err(e) => e,
                Ok(()) => panic!("a full disk was not reported"),
            },
        };
        assert!(e.to_string().starts_with("writing /dev/full: "), "{e}");
        let mut out = Output::create(Path::new("/dev/full"), &[], false).unwrap();
        out.write_all(b"a little").unwrap();
        let e = out.commit().unwrap_err();
        assert!(e.to_string().contains("/dev/full"), "{e}");
    }
}
