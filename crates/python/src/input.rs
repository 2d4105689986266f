//! What the readers read: a path (compressed or not, through
//! [`rookery_io::input::Input`]) or a Python file object, text or binary.

use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use rookery_io::input::{Damage, Input};

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
            return Ok((Source { name, damage, file }, Box::new(input)));
        }
        if obj.hasattr("read")? {
            let name = obj
                .getattr("name")
                .ok()
                .and_then(|n| n.str().ok().map(|s| s.to_string()))
                .unwrap_or_else(|| "<file>".to_owned());
            // Compressed bytes from a file object are told and read too;
            // with the GIL released, since a decompressing thread may read
            // the file (taking the GIL) before `from_reader` returns.
            let file = PyFile {
                file: obj.clone().unbind(),
                pending: Vec::new(),
                at: 0,
            };
            let named = name.clone();
            let input = crate::work(py, move || Input::from_reader(named, file))?
                .map_err(|e| PyErr::from(e.into_io()))?;
            let damage = Some(input.damage());
            let source = Source {
                name,
                damage,
                file: None,
            };
            return Ok((source, Box::new(input)));
        }
        Err(PyTypeError::new_err(format!(
            "expected a path (str or os.PathLike) or a file object, not {}",
            obj.get_type().name()?
        )))
    }

    /// The damage found in compressed input, as an `OSError`, if any.
    pub fn damage_error(&self) -> Option<PyErr> {
        let e = self.damage.as_ref()?.take()?;
        Some(PyErr::from(e.into_io()))
    }
}

/// A Python file object read as bytes (a text file's `str` as UTF-8).
struct PyFile {
    file: Py<PyAny>,
    pending: Vec<u8>,
    at: usize,
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
            .map_err(|e| io::Error::other(e.to_string()))?;
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
