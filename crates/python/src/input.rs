//! What the readers read: a path (compressed or not, through
//! [`rookery_io::input::Input`]) or a Python file object, text or binary.
//!
//! A file object is Python's: what its `read()` raises is raised again as
//! it is (a `KeyboardInterrupt` stays one), not turned into an `OSError`
//! on the way through the Rust readers; and a handle part-way through its
//! file is read from there with the lines counted from the file's start,
//! so that an error's line is the one an editor shows.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use rookery_io::input::{Damage, Input};
use rookery_pgn::Location;

/// An opened source (its bytes, decompressed, are read apart): its name for
/// messages, the damage its decompressor may find, and the file itself when it is plain
/// text every thread can read at any offset.
pub struct Source {
    /// The path as given, or the file object's `name` (else `<file>`).
    pub name: String,
    /// Damage found in compressed data (told at the end).
    pub damage: Option<Damage>,
    /// A plain regular file (for reading on several threads).
    pub file: Option<File>,
    /// Where the text read starts in its file: the start, but for a file
    /// object handed over part-way through.
    pub start: Location,
    /// What the file object's `read()` raised, if it did.
    raised: Raised,
}

/// The exception a file object's `read()` raised, kept for the reader to
/// raise once the Rust side has stopped on the error that stands for it.
type Raised = Arc<Mutex<Option<PyErr>>>;

/// Where every text starts: offset 0, line 1, column 1.
pub fn text_start() -> Location {
    Location {
        offset: 0,
        line: 1,
        col: 1,
    }
}

impl Source {
    /// Opens `obj`: a `str` or `os.PathLike` path, or an object with a
    /// `read` method (bytes or str).
    ///
    /// # Errors
    /// `OSError` if the path cannot be opened (`FileNotFoundError`, ...),
    /// `TypeError` for anything else.
    pub fn open(
        py: Python<'_>,
        obj: &Bound<'_, PyAny>,
    ) -> PyResult<(Source, Box<dyn Read + Send>)> {
        if obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__")? {
            let path: PathBuf = obj.extract()?;
            let input = crate::work(py, move || Input::open(&path))?
                .map_err(|e| PyErr::from(e.into_io()))?;
            let name = input.name().to_owned();
            let damage = Some(input.damage());
            let file = input.file().and_then(|f| f.try_clone().ok());
            let source = Source {
                name,
                damage,
                file,
                start: text_start(),
                raised: Raised::default(),
            };
            return Ok((source, Box::new(input)));
        }
        if obj.hasattr("read")? {
            let name = obj
                .getattr("name")
                .ok()
                .and_then(|n| n.str().ok().map(|s| s.to_string()))
                .unwrap_or_else(|| "<file>".to_owned());
            let start = start_of(py, obj);
            let raised = Raised::default();
            // Compressed bytes from a file object are told and read too;
            // with the GIL released, since a decompressing thread may read
            // the file (taking the GIL) before `from_reader` returns.
            let file = PyFile {
                file: obj.clone().unbind(),
                pending: Vec::new(),
                at: 0,
                raised: Arc::clone(&raised),
            };
            let named = name.clone();
            let input = crate::work(py, move || Input::from_reader(named, file))?;
            let input = match input {
                Ok(input) => input,
                Err(e) => return Err(take(&raised).unwrap_or_else(|| e.into_io().into())),
            };
            let damage = Some(input.damage());
            let source = Source {
                name,
                damage,
                file: None,
                start,
                raised,
            };
            return Ok((source, Box::new(input)));
        }
        Err(PyTypeError::new_err(format!(
            "expected a path (str or os.PathLike) or a file object, not {}",
            obj.get_type().name()?
        )))
    }

    /// What stopped the input, if anything did, as Python should see it:
    /// the exception the file object's `read()` raised (as it is), else the
    /// damage found in compressed input (an `OSError`).
    pub fn input_error(&self) -> Option<PyErr> {
        if let Some(e) = take(&self.raised) {
            return Some(e);
        }
        let e = self.damage.as_ref()?.take()?;
        Some(PyErr::from(e.into_io()))
    }

    /// The exception for `e`, a read that failed: [`Source::input_error`]
    /// when there is one (the Rust error only stands for it), else `e`.
    pub fn read_error(&self, e: impl Into<PyErr>) -> PyErr {
        self.input_error().unwrap_or_else(|| e.into())
    }
}

/// Takes the exception kept in `raised`.
fn take(raised: &Raised) -> Option<PyErr> {
    raised.lock().unwrap_or_else(PoisonError::into_inner).take()
}

/// Where the file object `obj` stands in its file, lines counted from the
/// file's start (its text read again up to there, then the handle put
/// back): a handle that is seekable and not at its start. A binary handle
/// counts bytes; a text handle over a UTF-8 binary buffer (`open(...)`),
/// whose position is a byte offset, counts the buffer's bytes; a text
/// handle without one (`io.StringIO`), whose position counts characters,
/// counts those characters' UTF-8 bytes. Anything else, or any failure
/// (the handle is then put back where it was), starts at line 1.
fn start_of(py: Python<'_>, obj: &Bound<'_, PyAny>) -> Location {
    let Ok(at) = obj.call_method0("tell").and_then(|t| t.extract::<u64>()) else {
        return text_start();
    };
    let seekable = obj
        .call_method0("seekable")
        .and_then(|s| s.is_truthy())
        .unwrap_or(false);
    if at == 0 || !seekable {
        return text_start();
    }
    let counted = count_before(py, obj, at);
    // Back to where the handle was, whatever the counting did.
    if obj.call_method1("seek", (at,)).is_err() {
        return text_start();
    }
    counted.unwrap_or_else(|_| text_start())
}

/// [`start_of`]'s count of the text before position `at` of `obj`.
fn count_before(py: Python<'_>, obj: &Bound<'_, PyAny>, at: u64) -> PyResult<Location> {
    let io = py.import("io")?;
    let is_text = obj.is_instance(&io.getattr("TextIOBase")?)?;
    // What to read the text before `at` from, and whether it is bytes.
    let (handle, bytes) = if !is_text {
        (obj.clone(), true)
    } else if let Ok(buffer) = obj.getattr("buffer") {
        let encoding: String = obj.getattr("encoding")?.extract()?;
        let name: String = py
            .import("codecs")?
            .call_method1("lookup", (encoding,))?
            .getattr("name")?
            .extract()?;
        if name != "utf-8" {
            return Err(PyTypeError::new_err("not UTF-8"));
        }
        // The text handle reads ahead: its buffer is moved by the counting
        // and put back by the seek that follows it.
        (buffer, true)
    } else {
        (obj.clone(), false)
    };
    handle.call_method1("seek", (0,))?;
    let mut counted = text_start();
    let mut left = at;
    while left > 0 {
        let want = left.min(1 << 20);
        let chunk = handle.call_method1("read", (want,))?;
        let text: Vec<u8> = if bytes {
            chunk.cast::<PyBytes>()?.as_bytes().to_vec()
        } else {
            chunk.cast::<PyString>()?.to_cow()?.as_bytes().to_vec()
        };
        if text.is_empty() {
            break;
        }
        // Characters for a text handle, bytes for the others.
        left = left.saturating_sub(if bytes {
            text.len() as u64
        } else {
            chunk.len()? as u64
        });
        for &b in &text {
            counted.offset += 1;
            if b == b'\n' {
                counted.line += 1;
                counted.col = 1;
            } else {
                counted.col += 1;
            }
        }
    }
    Ok(counted)
}

/// A Python file object read as bytes (a text file's `str` as UTF-8).
struct PyFile {
    file: Py<PyAny>,
    pending: Vec<u8>,
    at: usize,
    /// Where an exception of `read()` is kept (see [`Source::input_error`]).
    raised: Raised,
}

/// How much one call to the file object's `read` asks for.
const PY_READ_SIZE: usize = 1 << 16;

impl Read for PyFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.pending.len() {
            self.pending.clear();
            self.at = 0;
            Python::attach(|py| -> PyResult<()> {
                let chunk = self.file.bind(py).call_method1("read", (PY_READ_SIZE,))?;
                if let Ok(b) = chunk.cast::<PyBytes>() {
                    self.pending.extend_from_slice(b.as_bytes());
                } else if let Ok(s) = chunk.cast::<PyString>() {
                    self.pending.extend_from_slice(s.to_cow()?.as_bytes());
                } else {
                    return Err(PyTypeError::new_err(
                        "the file object's read() returned neither bytes nor str",
                    ));
                }
                Ok(())
            })
            .map_err(|e| {
                let message = e.to_string();
                *self.raised.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                io::Error::other(message)
            })?;
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
