//! `rookery.epd`: EPD records read by [`rookery_epd::Reader`], their
//! operations as typed Python values, and written in canonical form
//! through [`rookery_io::output::Output`] (a partial file renamed when done).

use std::io::{BufReader, Read, Write};
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use rookery_core::{CastlingMode, Fen, Game, Position};
use rookery_epd::{Diagnostic, LineKind, Mode, Operation, Reader};
use rookery_io::latin1::Latin1Read;
use rookery_io::output::Output;

use crate::board::{Board, Move};
use crate::input::Source;

/// One EPD record: a position and its operations.
///
/// >>> import io
/// >>> rec = next(rookery.epd.read(io.StringIO('4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; ce 120; id "x";\n')))
/// >>> rec.ops["bm"], rec.ops["ce"], rec.ops["id"]
/// ([Move.from_uci('e2e4')], 120, 'x')
#[pyclass(module = "rookery.epd", frozen)]
pub struct Record {
    record: rookery_epd::Record,
    line: u64,
    warnings: Vec<Diagnostic>,
    path: String,
}

impl Record {
    fn mode(&self) -> CastlingMode {
        if self.record.position().is_chess960_castling() {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    /// `moves` played one after the other from the record's position.
    fn line_of(&self, moves: &[rookery_core::Move]) -> Vec<Move> {
        let mut pos: Position = self.record.position().clone();
        moves
            .iter()
            .map(|&m| {
                let out = Move::of(&pos, m, self.mode());
                pos.play_unchecked(m);
                out
            })
            .collect()
    }

    /// Each move of `moves` in the record's position.
    fn each_of(&self, moves: &[rookery_core::Move]) -> Vec<Move> {
        let pos = self.record.position();
        moves
            .iter()
            .map(|&m| Move::of(pos, m, self.mode()))
            .collect()
    }

    /// The Python value of one operation's operands.
    fn value<'py>(&self, py: Python<'py>, op: &Operation) -> PyResult<Bound<'py, PyAny>> {
        let none = || Ok(py.None().into_bound(py));
        let texts = |ops: &[rookery_epd::RawOperand]| -> Vec<String> {
            ops.iter().map(|o| o.text().to_owned()).collect()
        };
        match op {
            Operation::Acn(v) | Operation::Acs(v) => v.into_bound_py_any(py),
            Operation::Am(ms) | Operation::Bm(ms) => self.each_of(ms).into_bound_py_any(py),
            Operation::Pv(ms) | Operation::Sv(ms) => self.line_of(ms).into_bound_py_any(py),
            Operation::Pm(m) | Operation::Sm(m) => {
                Move::of(self.record.position(), *m, self.mode()).into_bound_py_any(py)
            }
            Operation::Ce(v)
            | Operation::Dm(v)
            | Operation::Fmvn(v)
            | Operation::Hmvc(v)
            | Operation::Rc(v)
            | Operation::Tcgs(v) => v.into_bound_py_any(py),
            Operation::Comment(_, s)
            | Operation::Variation(_, s)
            | Operation::Eco(s)
            | Operation::Nic(s) => match s {
                Some(s) => Ok(PyString::new(py, s).into_any()),
                None => none(),
            },
            Operation::Id(s) => Ok(PyString::new(py, s).into_any()),
            Operation::DrawAccept
            | Operation::DrawClaim
            | Operation::DrawOffer
            | Operation::DrawReject
            | Operation::Resign => none(),
            Operation::Cc(a, b) => (a.to_string(), b.to_string()).into_bound_py_any(py),
            Operation::Ts(d, t) => (d.to_string(), t.to_string()).into_bound_py_any(py),
            Operation::Tcri(a, b) | Operation::Tcsi(a, b) => (a, b).into_bound_py_any(py),
            Operation::Ptp(pairs) => pairs
                .iter()
                .map(|(id, v)| (id.to_string(), v.clone()))
                .collect::<Vec<_>>()
                .into_bound_py_any(py),
            Operation::Refcom(r) => Ok(PyString::new(py, r.as_str()).into_any()),
            Operation::Refreq(r) => Ok(PyString::new(py, r.as_str()).into_any()),
            Operation::Noop(ops) => texts(ops).into_bound_py_any(py),
            Operation::Raw { operands, .. } => match operands.as_slice() {
                [] => none(),
                [one] => Ok(PyString::new(py, one.text()).into_any()),
                more => texts(more).into_bound_py_any(py),
            },
        }
    }
}

#[pymethods]
impl Record {
    /// The operations, opcode to value, in the record's order: move
    /// opcodes as `Move` (`bm`, `am`: a list of alternatives; `pv`, `sv`: a
    /// list played in turn; `pm`, `sm`: one move), counts and integers as
    /// `int` (`ce`, `acn`, `dm`...), strings as `str` (`id`, `c0`...),
    /// pairs (`cc`, `ts`, `tcri`) as tuples, opcodes without operand as
    /// None; an unknown opcode's operands as written.
    #[getter]
    fn ops<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for op in self.record.operations() {
            d.set_item(op.opcode(), self.value(py, op)?)?;
        }
        Ok(d)
    }

    /// The position (its clocks from `hmvc` and `fmvn` when present).
    #[getter]
    fn board(&self) -> Board {
        Board::of(Game::new(self.record.position_with_clocks()), self.mode())
    }

    /// The line of the input the record was read from (from 1).
    #[getter]
    fn line(&self) -> u64 {
        self.line
    }

    /// What was questionable but accepted (lenient reading), as
    /// `rookery.ParseError` values (not raised).
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.warnings
            .iter()
            .map(|d| {
                crate::parse_error(
                    py,
                    &d.problem.to_string(),
                    &self.path,
                    d.line,
                    u64::from(d.column),
                )
            })
            .collect()
    }

    /// The record in canonical EPD (operations in ASCII order of opcode).
    fn epd(&self) -> String {
        self.record.to_string()
    }

    /// The position as a six-field FEN (clocks from `hmvc` and `fmvn`).
    fn fen(&self) -> String {
        Fen::from_position(&self.record.position_with_clocks()).to_string()
    }

    fn __str__(&self) -> String {
        self.epd()
    }

    fn __repr__(&self) -> String {
        format!("<rookery.epd.Record line {}: {}>", self.line, self.epd())
    }
}

/// The line reader of [`RecordReader`].
type EpdReader = Reader<BufReader<Box<dyn Read + Send>>>;

/// The iterator `read` returns.
#[pyclass(module = "rookery.epd")]
pub struct RecordReader {
    /// Boxed: readers may hold over-aligned SIMD state, which the object
    /// Python allocates for a pyclass does not guarantee.
    reader: Mutex<Box<EpdReader>>,
    source: Source,
    skip_errors: bool,
    errors: Mutex<Vec<(String, u64, u64)>>,
}

/// A line's first error: message, line, column.
fn first_error(diags: &[Diagnostic], line: u64) -> (String, u64, u64) {
    diags
        .iter()
        .find(|d| d.is_error())
        .map(|d| (d.problem.to_string(), d.line, u64::from(d.column)))
        .unwrap_or_else(|| ("not an EPD record".to_owned(), line, 1))
}

#[pymethods]
impl RecordReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Record>> {
        loop {
            let reader = &self.reader;
            let next = crate::work(py, || {
                let mut reader = reader.lock().unwrap_or_else(PoisonError::into_inner);
                reader.next_line().map(|line| {
                    line.map(|line| {
                        let diags = line.diagnostics.to_vec();
                        (line.number, line.kind, diags)
                    })
                })
            })?;
            let next = match next {
                Ok(next) => next,
                Err(e) => return Err(self.source.read_error(e)),
            };
            let Some((number, kind, diags)) = next else {
                return match self.source.input_error() {
                    Some(e) => Err(e),
                    None => Ok(None),
                };
            };
            match kind {
                LineKind::Record(record) => {
                    return Ok(Some(Record {
                        record,
                        line: number,
                        warnings: diags,
                        path: self.source.name.clone(),
                    }))
                }
                LineKind::Unparsed => {
                    let (message, line, column) = first_error(&diags, number);
                    if !self.skip_errors {
                        return Err(crate::parse_err(
                            py,
                            &message,
                            &self.source.name,
                            line,
                            column,
                        ));
                    }
                    self.errors
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push((message, line, column));
                }
                LineKind::Blank | LineKind::Comment => {}
            }
        }
    }

    /// The lines skipped so far (with `skip_errors=True`), as
    /// `rookery.ParseError` values.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let errors = self.errors.lock().unwrap_or_else(PoisonError::into_inner);
        errors
            .iter()
            .map(|(m, l, c)| crate::parse_error(py, m, &self.source.name, *l, *c))
            .collect()
    }
}

/// Reads the records of an EPD file, one a line (blank lines and `#`
/// comment lines passed over).
///
/// `path_or_file` is a path or a file object, compressed or not, as for
/// `rookery.pgn.read_games`. Reading is lenient unless `strict=True`
/// (FEN clocks, UCI moves, a missing final `;` are accepted, each noted in
/// the record's `warnings`); `validate=True` also checks the record-level
/// rules of the spec (its findings become warnings, or errors). A line that
/// is not a usable record raises `rookery.ParseError` (with `path`, `line`
/// and `column`), or with `skip_errors=True` is skipped and kept in the
/// iterator's `errors`.
///
/// Example::
///
///     import rookery.epd
///     for rec in rookery.epd.read("wac.epd"):
///         print(rec.ops["id"], [rec.board.san(m) for m in rec.ops["bm"]])
#[pyfunction]
#[pyo3(signature = (path_or_file, *, strict = false, validate = false, skip_errors = false))]
pub fn read(
    py: Python<'_>,
    path_or_file: &Bound<'_, PyAny>,
    strict: bool,
    validate: bool,
    skip_errors: bool,
) -> PyResult<RecordReader> {
    let (source, reader) = Source::open(py, path_or_file)?;
    let mode = if strict { Mode::Strict } else { Mode::Lenient };
    let text: Box<dyn Read + Send> = Box::new(Latin1Read::new(reader, |_line| {}));
    Ok(RecordReader {
        reader: Mutex::new(Box::new(
            Reader::new(BufReader::new(text), mode).validating(validate),
        )),
        source,
        skip_errors,
        errors: Mutex::new(Vec::new()),
    })
}

/// The canonical line of one item given to `write`.
fn line_of(item: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(rec) = item.cast::<Record>() {
        return Ok(rec.get().record.to_string());
    }
    if let Ok(text) = item.extract::<String>() {
        let (rec, _warnings) = rookery_epd::Record::parse(text.trim().as_bytes(), Mode::Lenient)
            .map_err(|e| PyValueError::new_err(format!("{text:?}: {e}")))?;
        return Ok(rec.to_string());
    }
    if let Ok(pair) = item.cast::<PyTuple>() {
        if pair.len() == 2 {
            let board = pair.get_item(0)?;
            let ops = pair.get_item(1)?;
            let text: String = board
                .call_method("epd", (), Some(ops.cast::<PyDict>()?))?
                .extract()?;
            return Ok(text);
        }
    }
    Err(PyTypeError::new_err(format!(
        "expected a rookery.epd.Record, an EPD line or a (Board, ops dict) pair, not {}",
        item.get_type().name()?
    )))
}

/// Writes `records` to `path_or_file`, one canonical EPD line each, and
/// returns how many were written.
///
/// Each item is a `rookery.epd.Record`, an EPD line (read leniently, then
/// written in canonical form) or a `(Board, ops)` pair (`Board.epd(**ops)`).
/// A path is written whole or not at all: into a partial file renamed over
/// the target at the end (`.zst`, `.gz` and `.bz2` names are compressed).
///
/// Raises ValueError for an item that is not valid EPD, OSError if the
/// file cannot be written.
///
/// Example::
///
///     import rookery, rookery.epd
///     board = rookery.Board()
///     rookery.epd.write("out.epd", [(board, {"bm": board.parse_san("e4"), "id": "start"})])
#[pyfunction]
pub fn write(
    py: Python<'_>,
    path_or_file: &Bound<'_, PyAny>,
    records: &Bound<'_, PyAny>,
) -> PyResult<usize> {
    let mut text = String::new();
    let mut n = 0;
    for item in records.try_iter()? {
        text.push_str(&line_of(&item?)?);
        text.push('\n');
        n += 1;
    }
    if path_or_file.is_instance_of::<PyString>() || path_or_file.hasattr("__fspath__")? {
        let path: PathBuf = path_or_file.extract()?;
        crate::work(py, move || -> Result<(), String> {
            let mut out = Output::create(&path, &[], false).map_err(|e| e.to_string())?;
            out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
            out.commit().map_err(|e| e.to_string())
        })?
        .map_err(PyOSError::new_err)?;
    } else {
        let binary = path_or_file
            .getattr("mode")
            .ok()
            .and_then(|m| m.extract::<String>().ok())
            .is_some_and(|m| m.contains('b'));
        if binary {
            path_or_file
                .call_method1("write", (pyo3::types::PyBytes::new(py, text.as_bytes()),))?;
        } else {
            path_or_file.call_method1("write", (text,))?;
        }
    }
    Ok(n)
}
