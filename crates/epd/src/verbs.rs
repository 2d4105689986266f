//! The EPD processing verbs — normalize (pfdn), purge (pfop), validate and
//! convert — and the line reader they stream through: one record (or the
//! raw line of one it cannot read) at a time, with constant memory. Every
//! verb keeps the input order and copies what it cannot read unchanged.
//!
//! [`normalize`] reads blocks of whole lines instead ([`BATCH_BYTES`], one
//! UTF-8 check each, written at once), copies position fields that read
//! plainly (they are already canonical) and hands every record back to its
//! parser ([`Parser::recycle`]) so that the next one allocates nothing;
//! with [`normalize_with_jobs`] the blocks go to worker threads and their
//! buffers come back to be reused.

use std::io::{self, BufRead, Write};

use rookery_core::Fen;

use crate::diag::{Diagnostic, Severity};
use crate::parse::{Mode, Parser};
use crate::record::Record;

/// What a line turned out to be.
#[derive(Debug)]
pub enum LineKind {
    /// Empty or whitespace only.
    Blank,
    /// A `#` comment line.
    Comment,
    /// A record (its diagnostics hold no error).
    Record(Record),
    /// A record line that could not be read (its diagnostics hold the errors).
    Unparsed,
}

/// One line of input.
#[derive(Debug)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// The text without the line ending (`\n` or `\r\n`).
    pub text: &'a [u8],
    /// What it is.
    pub kind: LineKind,
    /// Problems found, with `line` set.
    pub diagnostics: &'a [Diagnostic],
}

/// Reads EPD lines from a [`BufRead`], reusing its buffers.
///
/// ```
/// use rookery_epd::{LineKind, Mode, Reader};
/// let input = "# a suite\n4k3/8/8/8/8/8/8/4K3 w - - 0 1 id \"one\"\n";
/// let mut reader = Reader::new(input.as_bytes(), Mode::Lenient);
/// let mut ids = Vec::new();
/// while let Some(line) = reader.next_line()? {
///     if let LineKind::Record(rec) = &line.kind {
///         ids.push(rec.id().unwrap().to_owned());
///         assert_eq!(rec.hmvc(), Some(0));
///         assert_eq!(line.diagnostics.len(), 2); // FEN clocks, missing ';'
///     }
/// }
/// assert_eq!(ids, ["one"]);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Reader<R> {
    inner: R,
    buf: Vec<u8>,
    number: u64,
    parser: Parser,
    diags: Vec<Diagnostic>,
    validate: bool,
}

impl<R: BufRead> Reader<R> {
    /// A reader in `mode`.
    pub fn new(inner: R, mode: Mode) -> Reader<R> {
        Reader {
            inner,
            buf: Vec::with_capacity(256),
            number: 0,
            parser: Parser::new(mode),
            diags: Vec::new(),
            validate: false,
        }
    }

    /// Also runs [`Record::validate`] on every record read and adds its
    /// diagnostics.
    #[must_use]
    pub fn validating(mut self, yes: bool) -> Reader<R> {
        self.validate = yes;
        self
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.parser.mode()
    }

    fn read_raw(&mut self) -> io::Result<bool> {
        self.buf.clear();
        if self.inner.read_until(b'\n', &mut self.buf)? == 0 {
            return Ok(false);
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        self.number += 1;
        self.diags.clear();
        Ok(true)
    }

    fn classify(text: &[u8]) -> Option<LineKind> {
        match text.iter().find(|c| !c.is_ascii_whitespace()) {
            None => Some(LineKind::Blank),
            Some(b'#') => Some(LineKind::Comment),
            _ => None,
        }
    }

    fn finish_diags(&mut self) {
        for d in &mut self.diags {
            d.line = self.number;
        }
    }

    /// The next line, or `None` at the end of input.
    ///
    /// # Errors
    /// I/O errors of the underlying reader.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        if !self.read_raw()? {
            return Ok(None);
        }
        let kind = match Reader::<R>::classify(&self.buf) {
            Some(k) => k,
            None => match self.parser.parse_record(&self.buf, &mut self.diags) {
                Some(rec) if !self.diags.iter().any(Diagnostic::is_error) => {
                    if self.validate {
                        let mode = self.parser.mode();
                        crate::validate::validate(&rec, mode, &mut self.diags);
                    }
                    LineKind::Record(rec)
                }
                _ => LineKind::Unparsed,
            },
        };
        self.finish_diags();
        Ok(Some(Line {
            number: self.number,
            text: &self.buf,
            kind,
            diagnostics: &self.diags,
        }))
    }
}

/// Counts of what a verb saw.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines read.
    pub lines: u64,
    /// Records read and processed.
    pub records: u64,
    /// Record lines that could not be read (copied unchanged).
    pub unparsed: u64,
    /// Blank and comment lines (passed through).
    pub passed: u64,
    /// Error diagnostics.
    pub errors: u64,
    /// Warning diagnostics.
    pub warnings: u64,
}

impl Summary {
    /// Adds the counts of `o`.
    pub fn merge(&mut self, o: Summary) {
        self.lines += o.lines;
        self.records += o.records;
        self.unparsed += o.unparsed;
        self.passed += o.passed;
        self.errors += o.errors;
        self.warnings += o.warnings;
    }

    fn count<'d>(
        &mut self,
        diags: impl IntoIterator<Item = &'d Diagnostic>,
        report: &mut impl FnMut(&Diagnostic),
    ) {
        for d in diags {
            self.tally(d);
            report(d);
        }
    }

    /// Counts `d` as an error or a warning.
    fn tally(&mut self, d: &Diagnostic) {
        match d.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
    }
}

fn copy(out: &mut impl Write, text: &[u8]) -> io::Result<()> {
    out.write_all(text)?;
    out.write_all(b"\n")
}

/// pfdn (§7.1): writes every record in canonical form (see
/// [`Record::write_to`]), checks it with [`Record::validate`], passes blank
/// and comment lines through and copies unreadable lines unchanged (every
/// line ends in `\n`); every problem goes to `report`. A line that is not
/// UTF-8 is an error (see [`normalize_latin1`] to read it as ISO 8859-1).
///
/// The input is read in blocks of whole lines ([`BATCH_BYTES`]), each
/// written at once: memory stays flat however long the input.
///
/// # Errors
/// I/O errors.
pub fn normalize<R: BufRead, W: Write>(
    input: R,
    output: W,
    mode: Mode,
    report: impl FnMut(&Diagnostic),
) -> io::Result<Summary> {
    normalize_latin1(input, output, mode, 1, None, report)
}

/// [`normalize`] on `jobs` threads (one: [`normalize`] itself): the input
/// is cut into batches of whole lines, the threads normalize them, and the
/// output, the reports (line numbers those of the whole input) and the
/// summary are exactly those of one thread, in input order. At most `2 *
/// jobs` batches are in flight, and their buffers are reused, so memory
/// stays flat however long the input.
///
/// # Errors
/// I/O errors, or a thread that panicked (as [`io::ErrorKind::Other`]).
pub fn normalize_with_jobs<R: BufRead, W: Write>(
    input: R,
    output: W,
    mode: Mode,
    jobs: usize,
    report: impl FnMut(&Diagnostic),
) -> io::Result<Summary> {
    normalize_latin1(input, output, mode, jobs, None, report)
}

/// [`normalize_with_jobs`], where `latin1` says what to do with a line that
/// is not UTF-8: `None`, an error; `Some(warn)`, the line is read as ISO
/// 8859-1 (every byte the code point of its value, as
/// [`Latin1Read`](rookery_io::latin1::Latin1Read)
/// reads it) and `warn` is called once, with the number of the first such
/// line, in its place among the reports (after those of the lines before).
///
/// ```
/// use rookery_epd::{verbs::normalize_latin1, Mode};
/// let input = b"4k3/8/8/8/8/8/8/4K3 w - - id \"caf\xe9\";\n";
/// let (mut out, mut first) = (Vec::new(), None);
/// let mut warn = |line| first = Some(line);
/// normalize_latin1(&input[..], &mut out, Mode::Lenient, 1, Some(&mut warn), |_| {})?;
/// assert_eq!(out, "4k3/8/8/8/8/8/8/4K3 w - - id \"café\";\n".as_bytes());
/// assert_eq!(first, Some(1));
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
/// I/O errors, or a thread that panicked (as [`io::ErrorKind::Other`]).
pub fn normalize_latin1<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    mode: Mode,
    jobs: usize,
    mut latin1: Option<&mut dyn FnMut(u64)>,
    mut report: impl FnMut(&Diagnostic),
) -> io::Result<Summary> {
    let decode = latin1.is_some();
    // The first line read as Latin-1 is told once, in order.
    let mut event = |e: Event| match e {
        Event::Diagnostic(d) => report(&d),
        Event::Latin1(line) => {
            if let Some(warn) = latin1.take() {
                warn(line);
            }
        }
    };
    if jobs <= 1 {
        let mut block = Block::new(mode, decode);
        let mut batches = Batches::default();
        let mut bytes = Vec::new();
        let mut text = Vec::new();
        let mut sum = Summary::default();
        loop {
            let len = batches.next(&mut input, BATCH_BYTES, &mut bytes)?;
            if len == 0 {
                break;
            }
            text.clear();
            sum.merge(block.run(&bytes[..len], sum.lines + 1, &mut text, &mut event));
            output.write_all(&text)?;
        }
        output.flush()?;
        return Ok(sum);
    }
    /// A batch given to a worker: its input (the first `len` bytes of
    /// `bytes`), the first line's number and an empty buffer for its output.
    struct Job {
        bytes: Vec<u8>,
        len: usize,
        first_line: u64,
        text: Vec<u8>,
    }
    /// A worker's result: the buffers come back to be reused.
    struct Done {
        bytes: Vec<u8>,
        text: Vec<u8>,
        events: Vec<Event>,
        sum: Summary,
    }
    let workers: Vec<Block> = (0..jobs).map(|_| Block::new(mode, decode)).collect();
    let work = |block: &mut Block, job: Job| -> Done {
        let Job {
            bytes,
            len,
            first_line,
            mut text,
        } = job;
        let mut events = Vec::new();
        // The diagnostics move to the writing thread: no copies.
        let sum = block.run(&bytes[..len], first_line, &mut text, &mut |e| {
            events.push(e)
        });
        Done {
            bytes,
            text,
            events,
            sum,
        }
    };
    rookery_io::parallel::with_workers(workers, work, |q| {
        let mut total = Summary::default();
        let mut next_line = 1u64;
        let mut more = true;
        let mut batches = Batches::default();
        // Buffers of finished batches, reused for the next ones.
        let mut spare: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        loop {
            while more && q.in_flight() < 2 * jobs {
                let (mut bytes, mut text) = spare.pop().unwrap_or_default();
                let len = batches.next(&mut input, BATCH_BYTES, &mut bytes)?;
                if len == 0 {
                    more = false;
                    break;
                }
                let mut lines = rookery_io::latin1::newlines_in(&bytes[..len]);
                if bytes[len - 1] != b'\n' {
                    lines += 1;
                }
                text.clear();
                let first_line = next_line;
                next_line += lines;
                q.submit(Job {
                    bytes,
                    len,
                    first_line,
                    text,
                })
                .map_err(io::Error::other)?;
            }
            let Some(done) = q.take_next() else { break };
            let done = done.map_err(io::Error::other)?;
            output.write_all(&done.text)?;
            for e in done.events {
                event(e);
            }
            total.merge(done.sum);
            spare.push((done.bytes, done.text));
        }
        output.flush()?;
        Ok(total)
    })
}

/// What normalizing a line tells its caller, in order.
enum Event {
    /// A problem (its line number set).
    Diagnostic(Diagnostic),
    /// This line is not UTF-8 and was read as ISO 8859-1.
    Latin1(u64),
}

/// [`normalize`] of blocks of whole lines: the state one thread keeps
/// from block to block (its parser and buffers), so that a record costs
/// no allocation once they have filled.
struct Block {
    parser: Parser,
    mode: Mode,
    /// Read lines that are not UTF-8 as ISO 8859-1 (else they are errors).
    latin1: bool,
    diags: Vec<Diagnostic>,
    /// A record's operations being written.
    ops: String,
    /// A line decoded from ISO 8859-1.
    decoded: String,
}

impl Block {
    fn new(mode: Mode, latin1: bool) -> Block {
        Block {
            parser: Parser::new(mode),
            mode,
            latin1,
            diags: Vec::new(),
            ops: String::with_capacity(256),
            decoded: String::new(),
        }
    }

    /// Normalizes the whole lines of `bytes` (the last may lack its `\n`
    /// only at the end of the input), the first numbered `first_line`,
    /// appending the output to `out` and telling `event` every problem.
    fn run(
        &mut self,
        bytes: &[u8],
        first_line: u64,
        out: &mut Vec<u8>,
        event: &mut dyn FnMut(Event),
    ) -> Summary {
        let mut sum = Summary::default();
        // One check for the whole block: its lines are then all UTF-8 (a
        // line ends at an ASCII `\n`, so no character spans two).
        let text = core::str::from_utf8(bytes).ok();
        let mut number = first_line;
        let mut at = 0;
        while at < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |k| at + k);
            // The line without its ending: `\n`, or `\r\n`.
            let mut stop = end;
            if end < bytes.len() && stop > at && bytes[stop - 1] == b'\r' {
                stop -= 1;
            }
            let line = match text {
                // At ASCII boundaries: always some.
                Some(t) => Line8::Utf8(t.get(at..stop).unwrap_or("")),
                None => Line8::Bytes(&bytes[at..stop]),
            };
            self.line(line, number, out, &mut sum, event);
            number += 1;
            at = end + 1;
        }
        sum
    }

    /// One line (see [`Block::run`]).
    fn line(
        &mut self,
        line: Line8<'_>,
        number: u64,
        out: &mut Vec<u8>,
        sum: &mut Summary,
        event: &mut dyn FnMut(Event),
    ) {
        sum.lines += 1;
        self.diags.clear();
        let mut decoded = core::mem::take(&mut self.decoded);
        let (raw, text) = match line {
            Line8::Utf8(t) => (t.as_bytes(), Some(t)),
            Line8::Bytes(b) => match core::str::from_utf8(b) {
                Ok(t) => (b, Some(t)),
                Err(_) if self.latin1 => {
                    event(Event::Latin1(number));
                    decoded.clear();
                    rookery_io::latin1::decode_into(b, &mut decoded);
                    (decoded.as_bytes(), Some(decoded.as_str()))
                }
                Err(_) => (b, None),
            },
        };
        let record = match Reader::<&[u8]>::classify(raw) {
            Some(_) => {
                sum.passed += 1;
                None
            }
            None => {
                let rec = match text {
                    Some(t) => self.parser.parse_record_str(t, &mut self.diags),
                    None => self.parser.parse_record(raw, &mut self.diags),
                };
                match rec {
                    Some(rec) if !self.diags.iter().any(Diagnostic::is_error) => {
                        crate::validate::validate(&rec, self.mode, &mut self.diags);
                        sum.records += 1;
                        Some(rec)
                    }
                    rec => {
                        if let Some(rec) = rec {
                            self.parser.recycle(rec);
                        }
                        sum.unparsed += 1;
                        None
                    }
                }
            }
        };
        for mut d in self.diags.drain(..) {
            d.line = number;
            sum.tally(&d);
            event(Event::Diagnostic(d));
        }
        match record {
            Some(rec) => {
                // Plainly fine fields are already canonical: copied.
                match self.parser.plain_fields() {
                    Some(r) => out.extend_from_slice(&raw[r]),
                    None => {
                        self.ops.clear();
                        rec.write_fields(&mut self.ops);
                        out.extend_from_slice(self.ops.as_bytes());
                    }
                }
                self.ops.clear();
                rec.write_operations(&mut self.ops);
                out.extend_from_slice(self.ops.as_bytes());
                self.parser.recycle(rec);
            }
            None => out.extend_from_slice(raw),
        }
        out.push(b'\n');
        self.decoded = decoded;
    }
}

/// A line of a block: UTF-8 already checked, or not.
#[derive(Copy, Clone)]
enum Line8<'a> {
    Utf8(&'a str),
    Bytes(&'a [u8]),
}

/// The loop of the verbs that rewrite records ([`normalize`], [`convert`]):
/// every record goes through `write` (onto an empty line), every other line
/// is copied; the diagnostics `keep` accepts are reported and counted.
fn rewrite<R: BufRead, W: Write>(
    mut reader: Reader<R>,
    mut output: W,
    keep: impl Fn(&Diagnostic) -> bool,
    mut report: impl FnMut(&Diagnostic),
    mut write: impl FnMut(&Record, &mut String),
) -> io::Result<Summary> {
    let mut sum = Summary::default();
    let mut text = String::with_capacity(256);
    while let Some(line) = reader.next_line()? {
        sum.lines += 1;
        sum.count(line.diagnostics.iter().filter(|d| keep(d)), &mut report);
        match &line.kind {
            LineKind::Record(rec) => {
                sum.records += 1;
                text.clear();
                write(rec, &mut text);
                text.push('\n');
                output.write_all(text.as_bytes())?;
            }
            LineKind::Unparsed => {
                sum.unparsed += 1;
                copy(&mut output, line.text)?;
            }
            LineKind::Blank | LineKind::Comment => {
                sum.passed += 1;
                copy(&mut output, line.text)?;
            }
        }
    }
    output.flush()?;
    Ok(sum)
}

/// Input bytes a thread of [`normalize_with_jobs`] takes at once (whole
/// lines), and the block [`normalize`] reads and writes at once.
pub const BATCH_BYTES: usize = 1 << 18;

/// Reads blocks of whole lines straight into the caller's buffers (a
/// `BufReader` with an empty buffer hands large reads through without
/// copying): the bytes after the last line ending of a read wait in
/// `carry` for the next block.
#[derive(Default)]
struct Batches {
    carry: Vec<u8>,
    done: bool,
}

impl Batches {
    /// Reads the next block into the start of `bytes`: about `target`
    /// bytes of whole lines (the last one may lack its `\n` at the end of
    /// the input); returns its length, 0 at the end of the input. `bytes`
    /// keeps its length from block to block (what lies past the block is
    /// stale), so only its growth is ever zeroed.
    fn next<R: BufRead>(
        &mut self,
        input: &mut R,
        target: usize,
        bytes: &mut Vec<u8>,
    ) -> io::Result<usize> {
        let mut len = self.carry.len();
        if bytes.len() < target.max(len) {
            bytes.resize(target.max(len), 0);
        }
        bytes[..len].copy_from_slice(&self.carry);
        self.carry.clear();
        // Bytes already searched for a line ending.
        let mut searched = 0;
        loop {
            if self.done {
                return Ok(len);
            }
            if len == bytes.len() {
                // A line longer than the block: it grows until the line ends.
                bytes.resize(len + len / 2, 0);
            }
            let n = loop {
                match input.read(&mut bytes[len..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    r => break r?,
                }
            };
            if n == 0 {
                self.done = true;
                continue;
            }
            len += n;
            if len < target {
                continue;
            }
            // Cut after the last line ending.
            if let Some(k) = memchr::memrchr(b'\n', &bytes[searched..len]) {
                let cut = searched + k + 1;
                self.carry.extend_from_slice(&bytes[cut..len]);
                return Ok(cut);
            }
            searched = len;
        }
    }
}

/// Checks every line (reading and [`Record::validate`]) and reports every
/// problem; writes nothing.
///
/// # Errors
/// I/O errors.
pub fn validate<R: BufRead>(
    input: R,
    mode: Mode,
    mut report: impl FnMut(&Diagnostic),
) -> io::Result<Summary> {
    let mut reader = Reader::new(input, mode).validating(true);
    let mut sum = Summary::default();
    while let Some(line) = reader.next_line()? {
        sum.lines += 1;
        sum.count(line.diagnostics, &mut report);
        match line.kind {
            LineKind::Record(_) => sum.records += 1,
            LineKind::Unparsed => sum.unparsed += 1,
            _ => sum.passed += 1,
        }
    }
    Ok(sum)
}

/// pfop (§7.4): removes every operation whose opcode is in `opcodes`,
/// leaving the rest of each line byte for byte as it was, its line ending
/// (`\n` or `\r\n`) included. The whitespace before a removed operation
/// goes with it; where an operation followed the removed one with no
/// whitespace (`id "x";bm Rd8#;`), one space keeps it apart from what now
/// precedes it. Lines whose operations cannot be delimited are copied
/// unchanged and reported; only errors are reported.
///
/// # Errors
/// I/O errors.
pub fn purge<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    opcodes: &[&str],
    mode: Mode,
    mut report: impl FnMut(&Diagnostic),
) -> io::Result<Summary> {
    let mut parser = Parser::new(mode);
    let mut sum = Summary::default();
    let mut buf = Vec::with_capacity(256);
    let mut diags = Vec::new();
    let mut out = Vec::with_capacity(256);
    let mut number = 0u64;
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        number += 1;
        sum.lines += 1;
        // The line ending, written back as it was.
        let mut ending: &[u8] = b"";
        if buf.last() == Some(&b'\n') {
            buf.pop();
            ending = b"\n";
            if buf.last() == Some(&b'\r') {
                buf.pop();
                ending = b"\r\n";
            }
        }
        if Reader::<R>::classify(&buf).is_some() {
            sum.passed += 1;
            output.write_all(&buf)?;
            output.write_all(ending)?;
            continue;
        }
        diags.clear();
        let shape = parser.lex(&buf, &mut diags);
        diags.retain(Diagnostic::is_error);
        for d in &mut diags {
            d.line = number;
        }
        sum.count(&diags, &mut report);
        let Some((shape, _)) = shape.filter(|_| diags.is_empty()) else {
            sum.unparsed += 1;
            output.write_all(&buf)?;
            output.write_all(ending)?;
            continue;
        };
        sum.records += 1;
        out.clear();
        let mut prev = shape.ops_start;
        out.extend_from_slice(&buf[..prev]);
        let mut removed = false;
        for op in &parser.ops {
            let name = &buf[op.name_start as usize..op.name_end as usize];
            let end = op.end as usize;
            if opcodes.iter().any(|o| o.as_bytes() == name) {
                removed = true;
            } else {
                let span = &buf[prev..end];
                // Glued to a removed operation's ';': keep it apart from
                // whatever now comes before it.
                if removed
                    && span.first().is_some_and(|b| !b.is_ascii_whitespace())
                    && out
                        .last()
                        .is_some_and(|&b| !b.is_ascii_whitespace() && b != b';')
                {
                    out.push(b' ');
                }
                out.extend_from_slice(span);
                removed = false;
            }
            prev = end;
        }
        out.extend_from_slice(&buf[prev..]);
        output.write_all(&out)?;
        output.write_all(ending)?;
    }
    output.flush()?;
    Ok(sum)
}

/// The target of [`convert`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Six-field FEN (clocks from `hmvc`/`fmvn`, which are then dropped),
    /// followed by the other operations unless `fen_only`.
    Fen {
        /// Write only the FEN.
        fen_only: bool,
    },
    /// EPD: the four fields, FEN clocks turned into `hmvc`/`fmvn`, canonical form.
    Epd,
}

/// EPD <-> FEN. Reads leniently (FEN clocks are expected input); copies
/// unreadable lines unchanged and reports them.
///
/// # Errors
/// I/O errors.
pub fn convert<R: BufRead, W: Write>(
    input: R,
    output: W,
    target: Target,
    report: impl FnMut(&Diagnostic),
) -> io::Result<Summary> {
    let reader = Reader::new(input, Mode::Lenient);
    // FEN clocks are what conversion is about: not worth a warning here.
    let keep = |d: &Diagnostic| !matches!(d.problem, crate::Problem::FenClocks(_));
    rewrite(reader, output, keep, report, |rec, text| match target {
        Target::Epd => rec.write_to(text),
        Target::Fen { fen_only } => {
            text.push_str(&rec.to_fen());
            if !fen_only {
                let mut rest = rec.clone();
                rest.remove("hmvc");
                rest.remove("fmvn");
                let prefix = Fen::from_position(rec.position()).epd().to_string();
                let full = rest.to_string();
                text.push_str(&full[prefix.len()..]);
            }
        }
    })
}
