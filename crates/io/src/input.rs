//! Opening an input and reading its bytes, compressed or not.
//!
//! [`Input::open`] opens a file (`-`: stdin) and tells what it holds by its
//! first bytes ([`Format::sniff`]), never by its name: a file named `.zst`
//! that holds plain text is read as text, a `.pgn` that holds gzip data is
//! decompressed. zstd (every frame of a multi-frame file; skippable frames,
//! such as the one lichess's dumps start with, are passed over), gzip
//! (every member) and bzip2 (every stream) are decompressed on a thread of
//! their own, a chunk of whole lines at a time, so that reading the text
//! and decompressing it run at once. Each frame, member or stream is told
//! by its own first bytes, so compressed files of different formats put
//! one after the other (`cat a.pgn.zst b.pgn.gz`) read as their texts one
//! after the other; bytes that follow compressed data and are no
//! compressed format are read as text. Text in UTF-16 or UTF-32 is refused
//! at the open ([`InputError::Wide`]), compressed or not.
//!
//! Damage in compressed data (a file cut short, a bad checksum, bytes that
//! are not what the format allows) ends the text at the last whole line
//! before it: every line before the damage is read, no part of a line is
//! (but for a line longer than [`CHUNK`] bytes, which is handed on in
//! pieces as it comes, the last of them cut), and [`Damage::take`] then tells what was wrong and where
//! ([`InputError::Truncated`], [`InputError::Damaged`]). A reader of games
//! or records thus reads everything before the damage and reports the
//! damage after it, never a silent truncation: the caller asks
//! [`Input::damage`] for the handle before handing the input on, and asks
//! it once the reading is done.
//!
//! ```
//! use rookery_io::input::{Format, Input, InputError};
//! use std::io::Read;
//!
//! // The first frame of a zstd file, then a copy cut short.
//! let whole = zstd::encode_all(&b"line one\nline two\nline three\n"[..], 0)?;
//! let cut = &whole[..whole.len() - 6];
//! let mut input = Input::from_reader("cut.zst", std::io::Cursor::new(cut.to_vec()))?;
//! assert_eq!(input.format(), Format::Zstd);
//! let damage = input.damage();
//! let mut text = String::new();
//! input.read_to_string(&mut text)?; // no error: the text ends at the damage
//! assert!(!text.is_empty() || damage.is_damaged());
//! let e = damage.take().expect("the cut is told");
//! assert!(matches!(e, InputError::Truncated { .. }), "{e}");
//! assert!(e.to_string().starts_with("cannot read cut.zst: "), "{e}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};

use crate::latin1::{newlines_in, wide_encoding};

/// Bytes of text the decompressing thread of a compressed input hands on
/// at a time: whole lines, unless a line is longer, which is handed on in
/// pieces of this size (so that memory stays bounded), even when damage
/// cuts it.
pub const CHUNK: usize = 1 << 18;

/// Chunks decompressed ahead of the reader: enough to keep both threads
/// busy, few enough that memory stays flat however large the output of the
/// decompressor (a "bomb" is only slower, never larger).
const CHUNKS_AHEAD: usize = 4;

/// Bytes read from a compressed file or a pipe at a time.
const READ_BUFFER: usize = 1 << 16;

/// Bytes that tell a format ([`Format::sniff`]).
const MAGIC_LEN: usize = 6;

/// What an input holds, told by its first bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Anything else: read as it is (text, for the verbs).
    Plain,
    /// Zstandard (RFC 8878): frames one after the other, skippable frames
    /// among them.
    Zstd,
    /// gzip (RFC 1952): members one after the other.
    Gzip,
    /// bzip2: streams one after the other.
    Bzip2,
}

impl Format {
    /// The format of data that starts with `head` (its first
    /// six bytes, or all of it if shorter).
    ///
    /// ```
    /// use rookery_io::input::Format;
    /// assert_eq!(Format::sniff(b"\x28\xb5\x2f\xfd..").unwrap(), Format::Zstd);
    /// assert_eq!(Format::sniff(b"\x50\x2a\x4d\x18..").unwrap(), Format::Zstd); // a skippable frame
    /// assert_eq!(Format::sniff(b"\x1f\x8b\x08..").unwrap(), Format::Gzip);
    /// assert_eq!(Format::sniff(b"BZh9..").unwrap(), Format::Bzip2);
    /// assert_eq!(Format::sniff(b"[Event").unwrap(), Format::Plain);
    /// assert_eq!(Format::sniff(b"\xfd7zXZ\0").unwrap_err(), "xz");
    /// ```
    ///
    /// # Errors
    /// The name of a compressed format rookery does not read (xz, lz4,
    /// zip, 7z), to refuse it rather than read its bytes as text.
    pub fn sniff(head: &[u8]) -> Result<Format, &'static str> {
        match head {
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Ok(Format::Zstd),
            // Skippable frames: magic 0x184D2A50..=0x184D2A5F, little-endian.
            [b, 0x2a, 0x4d, 0x18, ..] if b & 0xf0 == 0x50 => Ok(Format::Zstd),
            [0x1f, 0x8b, 0x08, ..] => Ok(Format::Gzip),
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Ok(Format::Bzip2),
            [0xfd, b'7', b'z', b'X', b'Z', 0] => Err("xz"),
            [0x04, 0x22, 0x4d, 0x18, ..] => Err("lz4"),
            [b'P', b'K', 3, 4, ..] => Err("zip"),
            [b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c] => Err("7z"),
            _ => Ok(Format::Plain),
        }
    }

    /// The format an output named `path` is written in, by its extension:
    /// `.zst`, `.gz`, `.bz2` (any case); anything else is plain.
    ///
    /// ```
    /// use rookery_io::input::Format;
    /// use std::path::Path;
    /// assert_eq!(Format::from_extension(Path::new("out.pgn.zst")), Format::Zstd);
    /// assert_eq!(Format::from_extension(Path::new("out.epd.GZ")), Format::Gzip);
    /// assert_eq!(Format::from_extension(Path::new("zst")), Format::Plain);
    /// ```
    pub fn from_extension(path: &Path) -> Format {
        let ext = match path.extension().and_then(|e| e.to_str()) {
            Some(e) if path.file_stem().is_some_and(|s| !s.is_empty()) => e,
            _ => return Format::Plain,
        };
        match ext.to_ascii_lowercase().as_str() {
            "zst" => Format::Zstd,
            "gz" => Format::Gzip,
            "bz2" => Format::Bzip2,
            _ => Format::Plain,
        }
    }

    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Plain => "plain",
            Format::Zstd => "zstd",
            Format::Gzip => "gzip",
            Format::Bzip2 => "bzip2",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why an input cannot be read, or why its text ended early; every message
/// names the input (`<stdin>` for `-`).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// It cannot be opened.
    #[error("cannot open {name}: {source}")]
    Open {
        /// The input.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// It is a directory.
    #[error("cannot read {name}: is a directory, not a file")]
    Directory {
        /// The input.
        name: String,
    },
    /// Its bytes could not be read (not damage in them: the system failed).
    #[error("cannot read {name}: {source}")]
    Read {
        /// The input.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// Its text is UTF-16 or UTF-32 (see [`crate::latin1::wide_encoding`]).
    #[error("cannot read {name}: {}", crate::latin1::wide_error(.encoding))]
    Wide {
        /// The input.
        name: String,
        /// The encoding, as `UTF-16LE`.
        encoding: &'static str,
    },
    /// It is compressed in a format rookery does not read.
    #[error(
        "cannot read {name}: it is {format}-compressed, which rookery does not read; \
         decompress it first (rookery reads zstd, gzip and bzip2)"
    )]
    Unsupported {
        /// The input.
        name: String,
        /// The format's name.
        format: &'static str,
    },
    /// The compressed data ends before its end: the file was cut short.
    #[error(
        "cannot read {name}: the {format} data is truncated (it ends inside a frame, member \
         or stream): {}", read_up_to(*.lines)
    )]
    Truncated {
        /// The input.
        name: String,
        /// Its format.
        format: Format,
        /// Whole lines of text read before the damage.
        lines: u64,
    },
    /// The compressed data is damaged (a checksum that does not match,
    /// bytes the format does not allow).
    #[error("cannot read {name}: the {format} data is damaged ({detail}): {}", read_up_to(*.lines))]
    Damaged {
        /// The input.
        name: String,
        /// Its format.
        format: Format,
        /// Whole lines of text read before the damage.
        lines: u64,
        /// What the decompressor said.
        detail: String,
    },
}

/// What was read of a damaged input: `lines` whole lines.
fn read_up_to(lines: u64) -> String {
    match lines {
        0 => "no text could be read before the damage".into(),
        1 => "only its first line was read, the rest is lost".into(),
        n => format!("its first {n} lines were read, the rest is lost"),
    }
}

impl InputError {
    /// The error as an [`io::Error`], for readers that return one; the
    /// message is kept, and the error itself is there to be found again
    /// (`get_ref`).
    pub fn into_io(self) -> io::Error {
        let kind = match &self {
            InputError::Open { source, .. } | InputError::Read { source, .. } => source.kind(),
            InputError::Directory { .. } => io::ErrorKind::IsADirectory,
            InputError::Truncated { .. } => io::ErrorKind::UnexpectedEof,
            _ => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, self)
    }
}

/// The damage found in an input's compressed data, if any: shared between
/// the [`Input`] (which sets it when its text ends early) and whoever asks
/// once the reading is done.
#[derive(Clone, Debug, Default)]
pub struct Damage(Arc<Mutex<Option<InputError>>>);

impl Damage {
    /// Takes the damage found, if any (once: a second call gives `None`).
    pub fn take(&self) -> Option<InputError> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// A handle that has found `e` already: for a reader that learns of
    /// damage its own way, and for tests.
    pub fn found(e: InputError) -> Damage {
        let damage = Damage::default();
        damage.set(e);
        damage
    }

    /// Whether damage was found (and not yet taken).
    pub fn is_damaged(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    fn set(&self, e: InputError) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert(e);
    }
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

/// Why the input at `path` cannot be read at all, if it cannot: it does
/// not open, is a directory, is text in UTF-16 or UTF-32, or is compressed
/// in a format rookery does not read (as [`Input::open`] would refuse it).
/// Stdin (`-`), a pipe and a device are not looked at: their first bytes
/// would be taken from the reader that comes after (and opening a pipe
/// waits for its writer); `None` for them.
pub fn refusal(path: &Path) -> Option<InputError> {
    if is_std(path) {
        return None;
    }
    match fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => None,
        _ => Input::open(path).err(),
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

/// The length of `path` when it is a regular file of plain text (told by
/// its first bytes), which several threads can read at any offset
/// ([`crate::ReadAt`], `--jobs`): `None` for stdin, a pipe, a compressed
/// file, or a path that cannot be read. [`Input::file`] says the same of
/// an input already open.
pub fn plain_file_len(path: &Path) -> Option<u64> {
    let len = file_len(path)?;
    let file = File::open(path).ok()?;
    let mut head = [0; MAGIC_LEN];
    let n = crate::read_full_at(&file, &mut head, 0).ok()?;
    (Format::sniff(&head[..n]) == Ok(Format::Plain)).then_some(len)
}

/// An open input: its bytes, decompressed if they were compressed (see the
/// module documentation). Unbuffered: the bytes go straight into the
/// caller's buffer.
pub struct Input {
    name: String,
    format: Format,
    inner: Box<dyn Read + Send>,
    damage: Damage,
    /// A regular file of plain text, for positional reads ([`Input::file`]).
    file: Option<File>,
    /// Bytes of the input (compressed, if it is) read so far, when known.
    consumed: Option<Arc<std::sync::atomic::AtomicU64>>,
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .field("format", &self.format)
            .finish_non_exhaustive()
    }
}

impl Input {
    /// Opens `path` (`-`: stdin) and tells its format.
    ///
    /// # Errors
    /// [`InputError`]: it cannot be opened, is a directory, is compressed
    /// in a format rookery does not read, or its text is UTF-16/UTF-32.
    pub fn open(path: &Path) -> Result<Input, InputError> {
        let name = display_name(path);
        if is_std(path) {
            return Input::from_reader(name, io::stdin());
        }
        let file = File::open(path).map_err(|source| InputError::Open {
            name: name.clone(),
            source,
        })?;
        let meta = file.metadata().map_err(|source| InputError::Open {
            name: name.clone(),
            source,
        })?;
        // A directory opens; its first read fails, far from the file's name.
        if meta.is_dir() {
            return Err(InputError::Directory { name });
        }
        if !meta.is_file() {
            // A pipe or a device: read as a stream (its first bytes cannot
            // be read where they stand).
            return Input::from_reader(name, file);
        }
        // A regular file: its first bytes read where they stand, so that a
        // plain file is handed on untouched (positional reads, --jobs).
        let mut head = [0; MAGIC_LEN];
        let n = crate::read_full_at(&file, &mut head, 0).map_err(|source| InputError::Read {
            name: name.clone(),
            source,
        })?;
        match sniff(&name, &head[..n])? {
            Format::Plain => {
                if let Some(encoding) = wide_encoding(&head[..n]) {
                    return Err(InputError::Wide { name, encoding });
                }
                let positional = file.try_clone().ok();
                Ok(Input {
                    inner: Box::new(Named {
                        inner: file,
                        name: name.clone(),
                    }),
                    name,
                    format: Format::Plain,
                    damage: Damage::default(),
                    file: positional,
                    consumed: None,
                })
            }
            format => {
                Input::decompressed(name, format, BufReader::with_capacity(READ_BUFFER, file))
            }
        }
    }

    /// An input read from `reader` (a pipe, stdin, bytes in memory), named
    /// `name` in messages; its format told by its first bytes.
    ///
    /// # Errors
    /// As [`Input::open`].
    pub fn from_reader(
        name: impl Into<String>,
        reader: impl Read + Send + 'static,
    ) -> Result<Input, InputError> {
        let name = name.into();
        let mut reader = reader;
        // The first bytes, read however many reads a pipe takes to give
        // them, then handed out again before the rest.
        let mut head = [0; MAGIC_LEN];
        let mut n = 0;
        while n < MAGIC_LEN {
            match reader.read(&mut head[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => return Err(InputError::Read { name, source }),
            }
        }
        let head = &head[..n];
        let buffered =
            BufReader::with_capacity(READ_BUFFER, io::Cursor::new(head.to_vec()).chain(reader));
        match sniff(&name, head)? {
            Format::Plain => {
                if let Some(encoding) = wide_encoding(head) {
                    return Err(InputError::Wide { name, encoding });
                }
                Ok(Input {
                    inner: Box::new(Named {
                        inner: buffered,
                        name: name.clone(),
                    }),
                    name,
                    format: Format::Plain,
                    damage: Damage::default(),
                    file: None,
                    consumed: None,
                })
            }
            format => Input::decompressed(name, format, buffered),
        }
    }

    /// Starts the thread that decompresses `source` (in `format`), and
    /// waits for the first chunk of text to refuse UTF-16 and UTF-32.
    fn decompressed(
        name: String,
        format: Format,
        source: impl BufRead + Send + 'static,
    ) -> Result<Input, InputError> {
        let damage = Damage::default();
        let consumed = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let source = Counted {
            inner: source,
            count: Arc::clone(&consumed),
        };
        let mut pump = Pump::start(name.clone(), format, source, damage.clone())?;
        let head = pump.peek(MAGIC_LEN);
        if let Some(encoding) = wide_encoding(head) {
            return Err(InputError::Wide { name, encoding });
        }
        Ok(Input {
            name,
            format,
            inner: Box::new(pump),
            damage,
            file: None,
            consumed: Some(consumed),
        })
    }

    /// The input's name in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the input holds.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The handle that tells, once the reading is done, whether the text
    /// ended early because the compressed data was damaged (see the module
    /// documentation). Ask for it before handing the input on.
    pub fn damage(&self) -> Damage {
        self.damage.clone()
    }

    /// The file, when the input is a regular file of plain text: every
    /// thread can then read it at any offset ([`crate::ReadAt`]), none of its
    /// bytes read yet.
    pub fn file(&self) -> Option<&File> {
        self.file.as_ref()
    }

    /// A counter of the bytes of the input itself (compressed) read so far,
    /// for progress against the file's size; `None` for plain input, where
    /// the text read so far is that count.
    pub fn compressed_progress(&self) -> Option<Arc<std::sync::atomic::AtomicU64>> {
        self.consumed.clone()
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

/// Reads the whole text of `path` (`-`: stdin), decompressed if it is
/// compressed, for readers that need all of it at once (opening books,
/// results files).
///
/// # Errors
/// As [`Input::open`]; damaged compressed data is an error here (no part
/// of the text is returned).
pub fn read_all(path: &Path) -> Result<Vec<u8>, InputError> {
    let mut input = Input::open(path)?;
    let damage = input.damage();
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Read {
            name: input.name.clone(),
            source,
        })?;
    match damage.take() {
        Some(e) => Err(e),
        None => Ok(bytes),
    }
}

/// The format of an input named `name` that starts with `head`.
fn sniff(name: &str, head: &[u8]) -> Result<Format, InputError> {
    Format::sniff(head).map_err(|format| InputError::Unsupported {
        name: name.to_owned(),
        format,
    })
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

/// Whether `e` already names its input (a [`ReadError`] or an
/// [`InputError`]): a caller adds no `cannot read` of its own.
pub fn names_its_input(e: &io::Error) -> bool {
    e.get_ref()
        .is_some_and(|inner| inner.is::<ReadError>() || inner.is::<InputError>())
}

/// A reader whose errors name the input ([`ReadError`]), keeping their kind;
/// an interrupted read is passed on as it is, to be retried.
struct Named<R> {
    inner: R,
    name: String,
}

impl<R: Read> Read for Named<R> {
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

/// A source whose reads are counted (progress in compressed bytes), and
/// whose own errors are told apart from the decompressor's: they come
/// wrapped in a [`SourceFailed`].
struct Counted<R> {
    inner: R,
    count: Arc<std::sync::atomic::AtomicU64>,
}

/// An error of the compressed input's own reads (not damage in its data).
#[derive(Debug)]
struct SourceFailed(io::Error);

impl fmt::Display for SourceFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SourceFailed {}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).map_err(wrap_source)?;
        self.count
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf().map_err(wrap_source)
    }

    fn consume(&mut self, amt: usize) {
        self.count
            .fetch_add(amt as u64, std::sync::atomic::Ordering::Relaxed);
        self.inner.consume(amt);
    }
}

fn wrap_source(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::Interrupted {
        e
    } else {
        io::Error::new(e.kind(), SourceFailed(e))
    }
}

/// The compressed source as the decompressing thread reads it: a few bytes
/// can be looked at ([`Source::peek`]) before the decoder of the next
/// frame, member or stream takes them.
struct Source<R> {
    inner: R,
    /// Bytes looked at and not yet taken, from `at` on.
    head: Vec<u8>,
    at: usize,
}

impl<R: BufRead> Source<R> {
    fn new(inner: R) -> Source<R> {
        Source {
            inner,
            head: Vec::new(),
            at: 0,
        }
    }

    /// The next `n` bytes, or fewer at the end, without taking them.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.at == self.head.len() {
            self.head.clear();
            self.at = 0;
            if fill(&mut self.inner)?.len() >= n {
                return Ok(&fill(&mut self.inner)?[..n]);
            }
        }
        // Too few bytes at hand (the end of the source's buffer): gather
        // them here.
        self.head.drain(..self.at);
        self.at = 0;
        while self.head.len() < n {
            let buf = fill(&mut self.inner)?;
            if buf.is_empty() {
                break;
            }
            let k = buf.len().min(n - self.head.len());
            self.head.extend_from_slice(&buf[..k]);
            self.inner.consume(k);
        }
        Ok(&self.head[..self.head.len().min(n)])
    }
}

/// `r.fill_buf()`, retried when interrupted.
fn fill<R: BufRead>(r: &mut R) -> io::Result<&[u8]> {
    loop {
        match r.fill_buf() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // Asked again: the borrow checker does not let the first
            // answer out of the loop.
            Ok(_) => return r.fill_buf(),
            Err(e) => return Err(e),
        }
    }
}

impl<R: BufRead> Read for Source<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let got = self.fill_buf()?;
        let n = got.len().min(buf.len());
        buf[..n].copy_from_slice(&got[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Source<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at < self.head.len() {
            return Ok(&self.head[self.at..]);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        if self.at < self.head.len() {
            self.at = (self.at + amt).min(self.head.len());
        } else {
            self.inner.consume(amt);
        }
    }
}

/// Why the decompressing thread stopped before the end of its input.
enum Halt {
    /// The decoder (or the source under it) failed: damage, told.
    Failed(io::Error),
    /// A compressed format rookery does not read follows the data read.
    Unsupported(&'static str),
    /// The reader is gone: nobody wants the rest.
    Gone,
}

/// The reading side of the decompressing thread: chunks of whole lines of
/// text, handed on through a channel of [`CHUNKS_AHEAD`]; their buffers go
/// back for the thread to fill again.
struct Pump {
    chunks: Receiver<Vec<u8>>,
    spent: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    /// The thread, joined on drop when it ends soon enough ([`Drop`]).
    thread: Option<std::thread::JoinHandle<()>>,
    /// Disconnected once the thread's work is over (nothing is sent on it).
    over: Receiver<()>,
}

/// How long dropping a compressed input waits for its thread to end
/// before leaving it: the thread ends at once unless it is blocked reading
/// its source (a pipe whose writer is slow), which would make a join hang.
const END_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

impl Drop for Pump {
    /// Stops the decompressing thread (its next send fails) and waits for
    /// it to end, so that nothing of it outlives the input (a thread left
    /// running holds its buffers until it notices); a thread blocked on
    /// its source is left to end on its own.
    fn drop(&mut self) {
        let (_, none) = mpsc::sync_channel(0);
        drop(std::mem::replace(&mut self.chunks, none));
        if let Err(mpsc::RecvTimeoutError::Disconnected) = self.over.recv_timeout(END_WAIT) {
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

impl Pump {
    /// Starts the thread.
    fn start<R: BufRead + Send + 'static>(
        name: String,
        format: Format,
        source: R,
        damage: Damage,
    ) -> Result<Pump, InputError> {
        let (chunk_tx, chunk_rx) = mpsc::sync_channel::<Vec<u8>>(CHUNKS_AHEAD);
        let (spent_tx, spent_rx) = mpsc::sync_channel::<Vec<u8>>(CHUNKS_AHEAD + 2);
        // It ends when the reader is dropped (its next send fails) or the
        // input ends; the reader's drop waits for it, briefly (a thread
        // blocked reading a pipe that never ends would make a join hang).
        let thread_name = name.clone();
        let (over_tx, over_rx) = mpsc::sync_channel::<()>(0);
        let thread = std::thread::Builder::new()
            .name("decompress".into())
            .spawn(move || {
                let _over = over_tx;
                let mut out = Chunker {
                    buf: Vec::new(),
                    filled: 0,
                    lines: 0,
                    chunks: &chunk_tx,
                    spent: &spent_rx,
                };
                let mut member = format;
                let halt = decompress(Source::new(source), &mut member, &mut out);
                // Whole lines read before the damage, if any: those sent,
                // and those still to be sent (the rest of a cut line is not).
                let lines = out.lines + newlines_in(&out.buf[..out.filled]);
                let error = match halt {
                    Ok(()) => None,
                    Err(Halt::Gone) => return,
                    Err(Halt::Failed(e)) => Some(damage_of(name, member, lines, e)),
                    Err(Halt::Unsupported(other)) => Some(InputError::Damaged {
                        name,
                        format: member,
                        lines,
                        detail: format!("followed by {other} data, which rookery does not read"),
                    }),
                };
                // The damage is set before the last chunk is sent: the
                // reader sees the end of the text only after it.
                let whole = error.is_none();
                if let Some(e) = error {
                    damage.set(e);
                }
                out.finish(whole);
            })
            .map_err(|source| InputError::Read {
                name: thread_name,
                source,
            })?;
        Ok(Pump {
            chunks: chunk_rx,
            spent: spent_tx,
            current: Vec::new(),
            pos: 0,
            thread: Some(thread),
            over: over_rx,
        })
    }

    /// The first `n` bytes of text (fewer if the text is shorter), without
    /// taking them.
    fn peek(&mut self, n: usize) -> &[u8] {
        while self.current.len() - self.pos < n {
            match self.chunks.recv() {
                Ok(more) => {
                    self.current.drain(..self.pos);
                    self.pos = 0;
                    self.current.extend_from_slice(&more);
                    let _ = self.spent.try_send(more);
                }
                Err(_) => break,
            }
        }
        let end = self.current.len().min(self.pos + n);
        &self.current[self.pos..end]
    }
}

impl Read for Pump {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            let Ok(next) = self.chunks.recv() else {
                // The thread ended: the text is over (damage, if any, is
                // told by the `Damage`).
                return Ok(0);
            };
            let old = std::mem::replace(&mut self.current, next);
            self.pos = 0;
            if old.capacity() > 0 {
                let _ = self.spent.try_send(old);
            }
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The decompressing thread's work: the frames, members and streams of
/// `src` one after the other, each told by its first bytes (so that
/// `cat a.pgn.zst b.pgn.gz` is read whole), into `out`; `member` is the
/// format of the one being read, for the message if it is damaged. Plain
/// bytes after compressed data are text, read to the end.
fn decompress<R: BufRead>(
    mut src: Source<R>,
    member: &mut Format,
    out: &mut Chunker<'_>,
) -> Result<(), Halt> {
    // One zstd context for every frame (its window is allocated once).
    let mut zstd_context = None;
    loop {
        let head = src.peek(MAGIC_LEN).map_err(Halt::Failed)?;
        if head.is_empty() {
            return Ok(());
        }
        *member = Format::sniff(head).map_err(Halt::Unsupported)?;
        match *member {
            Format::Zstd => {
                let context = match &mut zstd_context {
                    Some(c) => c,
                    None => zstd_context.insert(zstd::zstd_safe::DCtx::try_create().ok_or_else(
                        || Halt::Failed(io::Error::from(io::ErrorKind::OutOfMemory)),
                    )?),
                };
                // A fresh frame (the last one ended cleanly).
                let _ = context.reset(zstd::zstd_safe::ResetDirective::SessionOnly);
                // One frame (a skippable frame is one too, giving no text).
                let mut frame =
                    zstd::stream::read::Decoder::with_context(src, context).single_frame();
                out.pump(&mut frame)?;
                src = frame.finish();
            }
            Format::Gzip => {
                let mut gz = flate2::bufread::GzDecoder::new(src);
                out.pump(&mut gz)?;
                src = gz.into_inner();
            }
            Format::Bzip2 => {
                let mut bz = bzip2::bufread::BzDecoder::new(src);
                out.pump(&mut bz)?;
                src = bz.into_inner();
            }
            Format::Plain => return out.pump(&mut src),
        }
    }
}

/// The writing side of the decompressing thread: fills chunks of text and
/// sends each up to its last newline (the rest starts the next chunk).
struct Chunker<'a> {
    /// The chunk being filled, `filled` bytes of it so far.
    buf: Vec<u8>,
    filled: usize,
    /// Newlines in the chunks sent.
    lines: u64,
    chunks: &'a SyncSender<Vec<u8>>,
    spent: &'a Receiver<Vec<u8>>,
}

impl Chunker<'_> {
    /// Reads `r` to its end into chunks, sending each one that is full.
    fn pump(&mut self, r: &mut dyn Read) -> Result<(), Halt> {
        loop {
            if self.buf.len() < CHUNK {
                self.buf.resize(CHUNK, 0);
            }
            match r.read(&mut self.buf[self.filled..]) {
                Ok(0) => return Ok(()),
                Ok(n) => {
                    self.filled += n;
                    if self.filled == self.buf.len() {
                        self.send_lines()?;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Halt::Failed(e)),
            }
        }
    }

    /// Sends the full chunk up to its last newline (all of it if it holds
    /// none: a line longer than a chunk) and starts the next with the rest.
    fn send_lines(&mut self) -> Result<(), Halt> {
        let filled = &self.buf[..self.filled];
        let cut = memchr::memrchr(b'\n', filled).map_or(self.filled, |i| i + 1);
        let mut next = self.spent.try_recv().unwrap_or_default();
        next.clear();
        next.extend_from_slice(&self.buf[cut..self.filled]);
        let carried = next.len();
        next.resize(carried + CHUNK, 0);
        let mut full = std::mem::replace(&mut self.buf, next);
        full.truncate(cut);
        self.filled = carried;
        self.lines += newlines_in(&full);
        if full.is_empty() {
            return Ok(());
        }
        self.chunks.send(full).map_err(|_| Halt::Gone)
    }

    /// Sends what is left: all of it at the end of the text (`whole`), or
    /// at damage the whole lines only (no part of a line is handed on).
    fn finish(mut self, whole: bool) {
        let mut last = std::mem::take(&mut self.buf);
        let end = if whole {
            self.filled
        } else {
            memchr::memrchr(b'\n', &last[..self.filled]).map_or(0, |i| i + 1)
        };
        last.truncate(end);
        if !last.is_empty() {
            let _ = self.chunks.send(last);
        }
    }
}

/// What a decompressor's error `e` says of the input.
fn damage_of(name: String, format: Format, lines: u64, e: io::Error) -> InputError {
    if let Some(inner) = e.get_ref().and_then(|i| i.downcast_ref::<SourceFailed>()) {
        return InputError::Read {
            name,
            source: io::Error::new(inner.0.kind(), inner.0.to_string()),
        };
    }
    if e.kind() == io::ErrorKind::UnexpectedEof {
        return InputError::Truncated {
            name,
            format,
            lines,
        };
    }
    InputError::Damaged {
        name,
        format,
        lines,
        detail: e.to_string(),
    }
}
