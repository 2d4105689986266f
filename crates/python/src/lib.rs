//! rookery for Python: the `rookery._rookery` extension module, thin PyO3
//! bindings over rookery-core ([`board`]), rookery-pgn ([`pgn`],
//! [`positions`]), rookery-epd ([`epd`]), rookery-db ([`db`]) and rookery-io
//! (compressed input, the parallel reader). The Python package around it (`python/rookery`)
//! re-exports it with python-chess's names; the tests are pytest files in
//! `tests/`, run against the module maturin builds.
//!
//! Every call that does real work runs with the GIL released ([`work`]), and
//! a Rust panic there becomes `rookery.InternalError`, never an abort.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The allocator of everything Rust allocates here: with `jobs` > 1 the
/// reading threads allocate games that Python's thread frees, which glibc's
/// allocator makes dear (its arenas' locks, memory another core wrote).
/// Measured reading the 32 MB TCEC file ten times with `read_games`, CPU
/// seconds, median of four interleaved runs on the shared two-core machine:
/// `jobs=1` 1.73 against 1.78 with the system's allocator, `jobs=2` 2.29
/// against 2.53.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod board;
pub mod db;
pub mod epd;
pub mod gameread;
pub mod input;
pub mod pgn;
pub mod positions;
pub mod push;

/// Runs `f` with the GIL released; a panic in it becomes
/// `rookery.InternalError` (with the panic's message).
///
/// # Errors
/// `rookery.InternalError` if `f` panicked.
pub fn work<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)))
        .map_err(|payload| internal_error(py, payload.as_ref()))
}

/// `rookery.InternalError` for a panic's payload.
pub fn internal_error(py: Python<'_>, payload: &(dyn Any + Send)) -> PyErr {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".to_owned());
    match errors_class(py, "InternalError") {
        Ok(class) => PyErr::from_value(
            class
                .call1((format!(
                    "rookery panicked (a bug; please report it): {message}"
                ),))
                .unwrap_or_else(|e| e.into_value(py).into_bound(py).into_any()),
        ),
        Err(e) => e,
    }
}

/// A class of `rookery._errors` (the exceptions are defined in Python, so
/// that they subclass the built-in ones as python-chess's do).
pub fn errors_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("rookery._errors")?.getattr(name)
}

/// A `rookery.ParseError(message, path, line, column)`, as a value.
pub fn parse_error<'py>(
    py: Python<'py>,
    message: &str,
    path: &str,
    line: u64,
    column: u64,
) -> PyResult<Bound<'py, PyAny>> {
    errors_class(py, "ParseError")?.call1((message, path, line, column))
}

/// A `rookery.ParseError`, to raise.
pub fn parse_err(py: Python<'_>, message: &str, path: &str, line: u64, column: u64) -> PyErr {
    match parse_error(py, message, path, line, column) {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// Panics with `message`, through the same path as every other call
/// ([`work`]): the tests' way to see a panic become `rookery.InternalError`.
#[pyfunction]
fn _panic_for_test(py: Python<'_>, message: String) -> PyResult<()> {
    work(py, move || -> () { panic!("{message}") })
}

/// A `dict` of `pairs`, in order.
pub fn ordered_dict<'py, 'a>(
    py: Python<'py>,
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in pairs {
        d.set_item(k, v)?;
    }
    Ok(d)
}

/// A [`PyRuntimeError`] naming what failed (for errors that are not the
/// input's: a reading thread that stopped).
pub fn runtime_error(message: impl Into<String>) -> PyErr {
    PyRuntimeError::new_err(message.into())
}

/// The module `rookery._rookery`.
#[pymodule]
fn _rookery(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("STARTING_FEN", board::STARTING_FEN)?;
    m.add("MATE_SCORE", pgn::MATE_SCORE)?;
    m.add_class::<board::Board>()?;
    m.add_class::<board::Move>()?;
    m.add_class::<pgn::Game>()?;
    m.add_class::<pgn::GameReader>()?;
    m.add_class::<pgn::HeaderReader>()?;
    m.add_class::<db::Database>()?;
    m.add_class::<epd::Record>()?;
    m.add_class::<epd::RecordReader>()?;
    m.add_class::<positions::PositionReader>()?;
    m.add_function(wrap_pyfunction!(pgn::read_games, m)?)?;
    m.add_function(wrap_pyfunction!(pgn::read_headers, m)?)?;
    m.add_function(wrap_pyfunction!(gameread::read_game_text, m)?)?;
    m.add_function(wrap_pyfunction!(gameread::parse_movetext, m)?)?;
    m.add_function(wrap_pyfunction!(gameread::read_game_parsed, m)?)?;
    m.add_class::<gameread::ParsedMovetext>()?;
    m.add_class::<push::BoardState>()?;
    m.add_class::<push::OccupiedCo>()?;
    m.add_function(wrap_pyfunction!(epd::read, m)?)?;
    m.add_function(wrap_pyfunction!(epd::write, m)?)?;
    m.add_function(wrap_pyfunction!(positions::positions, m)?)?;
    m.add_function(wrap_pyfunction!(board::attacks_mask, m)?)?;
    m.add_function(wrap_pyfunction!(board::between, m)?)?;
    m.add_function(wrap_pyfunction!(board::ray, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
