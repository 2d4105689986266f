//! Reading records: a lexer that splits a line into the position and the
//! operations (with byte spans, for lossless editing), and the typing of
//! every operation's operands.

use rookery_core::{Position, Setup};

use crate::diag::{Diagnostic, Problem, Severity};
use crate::moves::{read_move, MoveRead};
use crate::operand::{
    parse_count, parse_integer, Clock, Date, Identifier, ParseOperandError, RawOperand, TimeOfDay,
};
use crate::operation::{code, code_of, Operation, Refcom, Refreq};
use crate::record::{Entry, Record};

pub use rookery_core::Mode;

/// Longest line §4 allows (without the line ending).
pub const MAX_LINE: usize = 4096;

/// One operand's span: for a string, the bytes between the quotes.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Tok {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) quoted: bool,
    pub(crate) escaped: bool,
}

/// One operation's span.
#[derive(Copy, Clone, Debug)]
pub(crate) struct LexOp {
    pub(crate) name_start: u32,
    pub(crate) name_end: u32,
    pub(crate) first_tok: u32,
    pub(crate) n_toks: u32,
    /// One past the `;` (or the end of the line when it is missing).
    pub(crate) end: u32,
}

/// The lexical shape of a record line.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Shape {
    /// Byte offset where the position fields start.
    pub(crate) start: usize,
    /// FEN clocks: values and offset of the first.
    pub(crate) clocks: Option<(i32, Option<i32>, usize)>,
    /// Where the operations start (after any clocks).
    pub(crate) ops_start: usize,
}

/// The position fields of a record as the lexer read them.
pub(crate) enum Fields {
    /// Plainly fine: already a position (see
    /// [`Position::from_plain_epd_fields`]).
    Plain(Position),
    /// Anything else: checked when typing the record.
    Setup(Box<Setup>),
}

fn severity(mode: Mode) -> Severity {
    match mode {
        Mode::Strict => Severity::Error,
        Mode::Lenient => Severity::Warning,
    }
}

fn lossy(s: &[u8]) -> String {
    // Lines are checked to be UTF-8 before typing, so this is the fast path.
    match core::str::from_utf8(s) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(s).into_owned(),
    }
}

fn is_ws(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\r' || c == b'\x0b' || c == b'\x0c'
}

/// A reusable record reader: keeps its buffers between records.
pub struct Parser {
    mode: Mode,
    pub(crate) toks: Vec<Tok>,
    pub(crate) ops: Vec<LexOp>,
    ws_reported: bool,
    /// Where the position fields of the last line lexed are, when they were
    /// plainly fine ([`Fields::Plain`]): then they are written back as they
    /// were read (see [`Parser::plain_fields`]).
    plain: Option<(usize, usize)>,
    /// The buffers of records handed back by [`Parser::recycle`], reused by
    /// the next records read.
    pub(crate) pool: core::cell::RefCell<Pool>,
}

/// Buffers of records read before, for the next ones: a reader of many
/// records allocates nothing per record once these have filled.
#[derive(Default)]
pub(crate) struct Pool {
    strings: Vec<String>,
    moves: Vec<Vec<rookery_core::Move>>,
    raw: Vec<Vec<RawOperand>>,
    entries: Vec<Vec<Entry>>,
}

/// Buffers of each kind a [`Pool`] keeps at most (a record holds a handful).
const POOL_MAX: usize = 64;

impl Pool {
    /// `text` in a string of the pool (a new one if it is empty).
    pub(crate) fn string(&mut self, text: &str) -> String {
        match self.strings.pop() {
            Some(mut s) => {
                s.clear();
                s.push_str(text);
                s
            }
            None => text.to_owned(),
        }
    }

    /// An empty list of moves.
    pub(crate) fn moves(&mut self, capacity: usize) -> Vec<rookery_core::Move> {
        match self.moves.pop() {
            Some(mut v) => {
                v.clear();
                v.reserve(capacity);
                v
            }
            None => Vec::with_capacity(capacity),
        }
    }

    /// An empty list of raw operands.
    fn raw_operands(&mut self) -> Vec<RawOperand> {
        let mut v = self.raw.pop().unwrap_or_default();
        v.clear();
        v
    }

    fn entries(&mut self, capacity: usize) -> Vec<Entry> {
        match self.entries.pop() {
            Some(mut v) => {
                v.clear();
                v.reserve(capacity);
                v
            }
            None => Vec::with_capacity(capacity),
        }
    }

    fn keep_string(&mut self, s: String) {
        if self.strings.len() < POOL_MAX {
            self.strings.push(s);
        }
    }

    fn keep_moves(&mut self, v: Vec<rookery_core::Move>) {
        if self.moves.len() < POOL_MAX {
            self.moves.push(v);
        }
    }

    fn keep_raw(&mut self, mut v: Vec<RawOperand>) {
        for o in v.drain(..) {
            match o {
                RawOperand::Token(s) | RawOperand::Quoted(s) => self.keep_string(s),
            }
        }
        if self.raw.len() < POOL_MAX {
            self.raw.push(v);
        }
    }

    /// Takes the buffers of `rec`.
    fn keep(&mut self, rec: Record) {
        let mut entries = rec.entries;
        for e in entries.drain(..) {
            match e.op {
                Operation::Comment(_, Some(s))
                | Operation::Variation(_, Some(s))
                | Operation::Eco(Some(s))
                | Operation::Nic(Some(s))
                | Operation::Id(s) => self.keep_string(s),
                Operation::Am(v) | Operation::Bm(v) | Operation::Pv(v) | Operation::Sv(v) => {
                    self.keep_moves(v)
                }
                Operation::Raw { opcode, operands } => {
                    self.keep_string(opcode);
                    self.keep_raw(operands);
                }
                Operation::Noop(operands) => self.keep_raw(operands),
                _ => {}
            }
        }
        if self.entries.len() < POOL_MAX {
            self.entries.push(entries);
        }
    }
}

impl Parser {
    /// A parser for `mode`.
    pub fn new(mode: Mode) -> Parser {
        Parser {
            mode,
            toks: Vec::new(),
            ops: Vec::new(),
            ws_reported: false,
            plain: None,
            pool: core::cell::RefCell::default(),
        }
    }

    /// Hands a record read by this parser back when it is no longer
    /// needed: its strings and lists are reused by the records read next,
    /// which then cost no allocation (readers of many records, such as
    /// the verbs, recycle every record).
    pub fn recycle(&mut self, record: Record) {
        self.pool.get_mut().keep(record);
    }

    /// Where the position fields of the last record line read are (a byte
    /// range of that line), if they were plainly fine: exactly what
    /// [`Record::write_to`] writes for them (the canonical form), so they
    /// can be copied rather than written again. `None` otherwise.
    pub(crate) fn plain_fields(&self) -> Option<core::ops::Range<usize>> {
        self.plain.map(|(a, b)| a..b)
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    fn whitespace(&mut self, at: usize, diags: &mut Vec<Diagnostic>) {
        if !self.ws_reported {
            self.ws_reported = true;
            diags.push(Diagnostic::at(at, severity(self.mode), Problem::Whitespace));
        }
    }

    /// Reads one record from a line (without its line ending), pushing every
    /// problem to `diags`. Returns the record if it could be typed; the
    /// caller treats it as unusable if `diags` holds an error.
    pub fn parse_record(&mut self, line: &[u8], diags: &mut Vec<Diagnostic>) -> Option<Record> {
        let Ok(line_str) = core::str::from_utf8(line) else {
            self.plain = None;
            diags.push(Diagnostic::at(0, Severity::Error, Problem::NotUtf8));
            return None;
        };
        self.parse_record_str(line_str, diags)
    }

    /// [`Parser::parse_record`] of a line already known to be UTF-8 (a
    /// reader that checked a whole block of lines at once).
    pub(crate) fn parse_record_str(
        &mut self,
        line_str: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Record> {
        let line = line_str.as_bytes();
        let first = diags.len();
        let (shape, fields) = self.lex(line, diags)?;
        let setup = match fields {
            Fields::Plain(pos) => Ok((pos, Vec::new())),
            Fields::Setup(setup) => setup.into_position(self.mode),
        };
        let position = match setup {
            Ok((pos, warnings)) => {
                for (p, off) in warnings {
                    diags.push(Diagnostic::at(
                        shape.start + off,
                        Severity::Warning,
                        Problem::PositionFixed(p.to_string()),
                    ));
                }
                pos
            }
            Err(e) => {
                for (p, off) in e.problems {
                    diags.push(Diagnostic::at(
                        shape.start + off,
                        Severity::Error,
                        Problem::IllegalPosition(p.to_string()),
                    ));
                }
                return None;
            }
        };
        let mut entries = self.pool.get_mut().entries(self.ops.len() + 2);
        let mut failed = false;
        let ops = core::mem::take(&mut self.ops);
        let toks = core::mem::take(&mut self.toks);
        for op in &ops {
            let t = &toks[op.first_tok as usize..(op.first_tok + op.n_toks) as usize];
            match self.type_op(line_str, op, t, &position, diags) {
                Some(o) => entries.push(Entry {
                    op: o,
                    offset: op.name_start,
                }),
                None => failed = true,
            }
        }
        self.ops = ops;
        self.toks = toks;
        let mut record = Record { position, entries };
        if let Some((h, f, off)) = shape.clocks {
            let mut add = Vec::new();
            for (name, value) in [("hmvc", Some(h)), ("fmvn", f)] {
                let Some(value) = value else { continue };
                let existing = match name {
                    "hmvc" => record.hmvc(),
                    _ => record.fmvn(),
                };
                match existing {
                    Some(v) if v != value => {
                        diags.push(Diagnostic::at(
                            off,
                            Severity::Error,
                            Problem::ClockConflict {
                                opcode: name,
                                clock: value,
                                value: v,
                            },
                        ));
                        failed = true;
                    }
                    Some(_) => {}
                    None => add.push(Entry {
                        op: if name == "hmvc" {
                            Operation::Hmvc(value)
                        } else {
                            Operation::Fmvn(value)
                        },
                        offset: off as u32,
                    }),
                }
            }
            record.entries.splice(0..0, add);
        }
        if failed || diags[first..].iter().any(Diagnostic::is_error) {
            return None;
        }
        Some(record)
    }

    /// Splits a line into its position and operations (in `self.ops` and
    /// `self.toks`), reporting lexical problems. `None` if the line cannot
    /// be split (an error was pushed).
    pub(crate) fn lex(
        &mut self,
        line: &[u8],
        diags: &mut Vec<Diagnostic>,
    ) -> Option<(Shape, Fields)> {
        let mode = self.mode;
        self.ws_reported = false;
        self.plain = None;
        self.ops.clear();
        self.toks.clear();
        if line.len() > MAX_LINE {
            diags.push(Diagnostic::at(
                MAX_LINE,
                severity(mode),
                Problem::LineTooLong(line.len()),
            ));
        }
        let start = line.iter().take_while(|&&c| is_ws(c)).count();
        if start > 0 {
            self.whitespace(0, diags);
        }
        let plain = Position::from_plain_epd_fields(&line[start..]);
        let read = match plain {
            Some((pos, used)) => Ok((Fields::Plain(pos), used)),
            None => Setup::from_epd_prefix(&line[start..], mode)
                .map(|(setup, used)| (Fields::Setup(Box::new(setup)), used)),
        };
        let (setup, used) = match read {
            Ok(r) => r,
            Err(e) => {
                let msg = e.to_string();
                let msg = msg
                    .split_once(": ")
                    .map_or(msg.as_str(), |(_, m)| m)
                    .to_owned();
                diags.push(Diagnostic::at(
                    start + e.offset,
                    Severity::Error,
                    Problem::BadPosition(msg),
                ));
                return None;
            }
        };
        let fields_end = start + used;
        if matches!(setup, Fields::Plain(_)) {
            self.plain = Some((start, fields_end));
        }
        // Separators inside the position fields (plain fields have single
        // spaces). The four fields hold no whitespace, so three whitespace
        // bytes, all spaces, are the single spaces between them: the common
        // case, told by two counts.
        let fields = &line[start..fields_end];
        let irregular = |fields: &[u8]| {
            let spaces = fields.iter().filter(|&&c| c == b' ').count();
            let blanks = fields.iter().filter(|&&c| is_ws(c)).count();
            spaces != 3 || blanks != 3
        };
        if matches!(setup, Fields::Setup(_)) && irregular(fields) {
            if let Some(k) = fields
                .windows(2)
                .position(|w| w[0] == b'\t' || (is_ws(w[0]) && is_ws(w[1])))
            {
                self.whitespace(start + k, diags);
            }
        }
        let mut i = fields_end;
        // FEN-style clocks: numbers right after the four fields.
        let mut clocks = None;
        {
            let mut j = i;
            while j < line.len() && is_ws(line[j]) {
                j += 1;
            }
            if j > i
                && j < line.len()
                && (line[j].is_ascii_digit()
                    || line[j] == b'-' && line.get(j + 1).is_some_and(u8::is_ascii_digit))
            {
                let mut vals = [None, None];
                let first_off = j;
                for v in &mut vals {
                    let mut k = j;
                    while k < line.len() && is_ws(line[k]) {
                        k += 1;
                    }
                    if k >= line.len() || !(line[k].is_ascii_digit() || line[k] == b'-') {
                        break;
                    }
                    let t0 = k;
                    while k < line.len() && !is_ws(line[k]) && line[k] != b';' {
                        k += 1;
                    }
                    let text = &line[t0..k];
                    match parse_integer(text) {
                        Ok(n) if n >= 0 && text[0] != b'-' && text[0] != b'+' => *v = Some(n),
                        _ => {
                            diags.push(Diagnostic::at(
                                t0,
                                Severity::Error,
                                Problem::BadFenClock(lossy(text)),
                            ));
                            return None;
                        }
                    }
                    j = k;
                }
                if let Some(h) = vals[0] {
                    let f = vals[1];
                    let read_as = match f {
                        Some(f) => format!("hmvc {h} and fmvn {f}"),
                        None => format!("hmvc {h}"),
                    };
                    diags.push(Diagnostic::at(
                        first_off,
                        severity(mode),
                        Problem::FenClocks(read_as),
                    ));
                    clocks = Some((h, f, first_off));
                    i = j;
                }
            }
        }
        let ops_start = i;
        // Operations.
        loop {
            let ws_start = i;
            while i < line.len() && is_ws(line[i]) {
                i += 1;
            }
            if i == line.len() {
                if i > ws_start {
                    self.whitespace(ws_start, diags);
                }
                break;
            }
            if !(i == ws_start + 1 && line[ws_start] == b' ') {
                self.whitespace(ws_start, diags);
            }
            let c = line[i];
            if !c.is_ascii_alphabetic() {
                diags.push(Diagnostic::at(
                    i,
                    Severity::Error,
                    Problem::ExpectedOpcode(char_at(line, i)),
                ));
                return None;
            }
            let name_start = i;
            while i < line.len() && (line[i].is_ascii_alphanumeric() || line[i] == b'_') {
                i += 1;
            }
            let name = &line[name_start..i];
            if i < line.len() && !is_ws(line[i]) && line[i] != b';' {
                diags.push(Diagnostic::at(
                    i,
                    Severity::Error,
                    Problem::BadOpcodeChar(lossy(name), char_at(line, i)),
                ));
                return None;
            }
            if name.len() > 15 {
                diags.push(Diagnostic::at(
                    name_start,
                    Severity::Error,
                    Problem::OpcodeTooLong(lossy(name)),
                ));
            }
            let first_tok = self.toks.len() as u32;
            let mut terminated = false;
            loop {
                let ws_start = i;
                while i < line.len() && is_ws(line[i]) {
                    i += 1;
                }
                if i == line.len() {
                    break;
                }
                if line[i] == b';' {
                    if i > ws_start {
                        self.whitespace(ws_start, diags);
                    }
                    i += 1;
                    terminated = true;
                    break;
                }
                if !(i == ws_start + 1 && line[ws_start] == b' ') {
                    self.whitespace(ws_start, diags);
                }
                if line[i] == b'"' {
                    let open = i;
                    i += 1;
                    let content = i;
                    let mut escaped = false;
                    let mut closed = false;
                    // From one quote or backslash to the next (vectorised:
                    // strings are most of the bytes of a suite).
                    while let Some(k) = memchr::memchr2(b'"', b'\\', &line[i..]) {
                        i += k;
                        if line[i] == b'"' {
                            closed = true;
                            break;
                        }
                        if matches!(line.get(i + 1), Some(b'"' | b'\\')) {
                            escaped = true;
                            i += 2;
                        } else {
                            i += 1;
                        }
                    }
                    if !closed {
                        diags.push(Diagnostic::at(
                            open,
                            Severity::Error,
                            Problem::UnterminatedString,
                        ));
                        return None;
                    }
                    self.toks.push(Tok {
                        start: content as u32,
                        end: i as u32,
                        quoted: true,
                        escaped,
                    });
                    i += 1;
                    if i < line.len() && !is_ws(line[i]) && line[i] != b';' {
                        diags.push(Diagnostic::at(i, Severity::Error, Problem::TextAfterString));
                        return None;
                    }
                } else {
                    let t0 = i;
                    while i < line.len() && !is_ws(line[i]) && line[i] != b';' {
                        i += 1;
                    }
                    self.toks.push(Tok {
                        start: t0 as u32,
                        end: i as u32,
                        quoted: false,
                        escaped: false,
                    });
                }
            }
            if !terminated {
                diags.push(Diagnostic::at(
                    i,
                    severity(mode),
                    Problem::MissingSemicolon(lossy(name)),
                ));
            }
            self.ops.push(LexOp {
                name_start: name_start as u32,
                name_end: (name_start + name.len()) as u32,
                first_tok,
                n_toks: self.toks.len() as u32 - first_tok,
                end: i as u32,
            });
        }
        Some((
            Shape {
                start,
                clocks,
                ops_start,
            },
            setup,
        ))
    }

    fn type_op(
        &self,
        line_str: &str,
        op: &LexOp,
        toks: &[Tok],
        pos: &Position,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Operation> {
        let mode = self.mode;
        let line = line_str.as_bytes();
        let name_bytes = &line[op.name_start as usize..op.name_end as usize];
        // The line is UTF-8 and the name ASCII.
        let name = line_str
            .get(op.name_start as usize..op.name_end as usize)
            .unwrap_or("");
        let at = op.name_start as usize;
        let text = |t: &Tok| &line[t.start as usize..t.end as usize];
        // An operand's text from the line already checked to be UTF-8
        // (operands end at ASCII delimiters, so no character is split).
        let pool = &self.pool;
        let owned = |t: &Tok| -> String {
            match line_str.get(t.start as usize..t.end as usize) {
                Some(s) => pool.borrow_mut().string(s),
                None => lossy(text(t)),
            }
        };
        let col = |t: &Tok| t.start as usize - usize::from(t.quoted);
        let count = |expected: &'static str, ok: bool, diags: &mut Vec<Diagnostic>| {
            if !ok {
                diags.push(Diagnostic::at(
                    at,
                    Severity::Error,
                    Problem::OperandCount {
                        opcode: name.to_owned(),
                        expected,
                        found: toks.len(),
                    },
                ));
            }
            ok
        };
        let bad_operand = |t: &Tok, e: ParseOperandError, diags: &mut Vec<Diagnostic>| {
            diags.push(Diagnostic::at(
                col(t),
                Severity::Error,
                Problem::BadOperand {
                    opcode: name.to_owned(),
                    error: e,
                },
            ));
        };
        let unquoted = |t: &Tok, expected: &'static str, diags: &mut Vec<Diagnostic>| {
            if t.quoted {
                diags.push(Diagnostic::at(
                    col(t),
                    Severity::Error,
                    Problem::QuotedOperand {
                        opcode: name.to_owned(),
                        text: lossy(text(t)),
                        expected,
                    },
                ));
                false
            } else {
                true
            }
        };
        let string = |t: &Tok, diags: &mut Vec<Diagnostic>| -> Option<String> {
            if !t.quoted {
                diags.push(Diagnostic::at(
                    col(t),
                    severity(mode),
                    Problem::UnquotedString {
                        opcode: name.to_owned(),
                        text: lossy(text(t)),
                    },
                ));
                if mode == Mode::Strict {
                    return None;
                }
            }
            Some(if t.escaped {
                unescape(text(t))
            } else {
                owned(t)
            })
        };
        let integer = |diags: &mut Vec<Diagnostic>| -> Option<i32> {
            if !count("exactly one integer", toks.len() == 1, diags)
                || !unquoted(&toks[0], "an integer", diags)
            {
                return None;
            }
            parse_integer(text(&toks[0]))
                .map_err(|e| bad_operand(&toks[0], e, diags))
                .ok()
        };
        let opt_string = |diags: &mut Vec<Diagnostic>| -> Option<Option<String>> {
            if !count("one string or none", toks.len() <= 1, diags) {
                return None;
            }
            match toks.first() {
                None => Some(None),
                Some(t) => string(t, diags).map(Some),
            }
        };
        let raw = |t: &Tok| {
            if t.quoted {
                RawOperand::Quoted(if t.escaped {
                    unescape(text(t))
                } else {
                    owned(t)
                })
            } else {
                RawOperand::Token(owned(t))
            }
        };
        let result = match code_of(name_bytes) {
            Some(code::ACN | code::ACS) => {
                if !count("exactly one non-negative integer", toks.len() == 1, diags)
                    || !unquoted(&toks[0], "an integer", diags)
                {
                    return None;
                }
                let v = parse_count(text(&toks[0]))
                    .map_err(|e| bad_operand(&toks[0], e, diags))
                    .ok()?;
                if name == "acn" {
                    Operation::Acn(v)
                } else {
                    Operation::Acs(v)
                }
            }
            Some(code::AM | code::BM) => {
                if let [t] = toks {
                    let s = text(t);
                    if !t.quoted && is_chest_mate(s) {
                        diags.push(Diagnostic::at(
                            col(t),
                            severity(mode),
                            Problem::ChestMate {
                                opcode: name.to_owned(),
                                n: lossy(&s[1..]),
                            },
                        ));
                        if mode == Mode::Strict {
                            return None;
                        }
                        let mut operands = self.pool.borrow_mut().raw_operands();
                        operands.push(raw(t));
                        return Some(Operation::Raw {
                            opcode: self.pool.borrow_mut().string(name),
                            operands,
                        });
                    }
                }
                let mut moves = self.pool.borrow_mut().moves(toks.len());
                let mut ok = true;
                for t in toks {
                    match self.move_operand(name, line, t, pos, None, diags) {
                        Some(m) => moves.push(m),
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                if name == "am" {
                    Operation::Am(moves)
                } else {
                    Operation::Bm(moves)
                }
            }
            Some(code::PM | code::SM) => {
                if !count("exactly one move", toks.len() == 1, diags) {
                    return None;
                }
                let m = self.move_operand(name, line, &toks[0], pos, None, diags)?;
                if name == "pm" {
                    Operation::Pm(m)
                } else {
                    Operation::Sm(m)
                }
            }
            Some(code::PV | code::SV) => {
                let mut p = pos.clone();
                let mut moves = self.pool.borrow_mut().moves(toks.len());
                for (ply, t) in toks.iter().enumerate() {
                    let m = self.move_operand(name, line, t, &p, Some(ply), diags)?;
                    p.play_unchecked(m);
                    moves.push(m);
                }
                if name == "pv" {
                    Operation::Pv(moves)
                } else {
                    Operation::Sv(moves)
                }
            }
            Some(c @ (code::C0..=code::C9 | code::V0..=code::V9)) => {
                let n = if c <= code::C9 {
                    c - code::C0
                } else {
                    c - code::V0
                };
                let s = opt_string(diags)?;
                if name_bytes[0] == b'c' {
                    Operation::Comment(n, s)
                } else {
                    Operation::Variation(n, s)
                }
            }
            Some(code::ECO | code::NIC) => {
                let s = opt_string(diags)?;
                if name == "eco" {
                    Operation::Eco(s)
                } else {
                    Operation::Nic(s)
                }
            }
            Some(code::ID) => {
                if !count("exactly one string", toks.len() == 1, diags) {
                    return None;
                }
                Operation::Id(string(&toks[0], diags)?)
            }
            Some(code::CC) => {
                if !count("two clock values", toks.len() == 2, diags)
                    || !unquoted(&toks[0], "a clock value", diags)
                    || !unquoted(&toks[1], "a clock value", diags)
                {
                    return None;
                }
                let a =
                    Clock::from_ascii(text(&toks[0])).map_err(|e| bad_operand(&toks[0], e, diags));
                let b =
                    Clock::from_ascii(text(&toks[1])).map_err(|e| bad_operand(&toks[1], e, diags));
                Operation::Cc(a.ok()?, b.ok()?)
            }
            Some(code::CE) => Operation::Ce(integer(diags)?),
            Some(code::DM) => Operation::Dm(integer(diags)?),
            Some(code::FMVN) => Operation::Fmvn(integer(diags)?),
            Some(code::HMVC) => Operation::Hmvc(integer(diags)?),
            Some(code::RC) => Operation::Rc(integer(diags)?),
            Some(code::TCGS) => Operation::Tcgs(integer(diags)?),
            Some(code::DRAW_ACCEPT..=code::DRAW_REJECT | code::RESIGN) => {
                if !count("no operands", toks.is_empty(), diags) {
                    return None;
                }
                match name {
                    "draw_accept" => Operation::DrawAccept,
                    "draw_claim" => Operation::DrawClaim,
                    "draw_offer" => Operation::DrawOffer,
                    "draw_reject" => Operation::DrawReject,
                    _ => Operation::Resign,
                }
            }
            Some(code::NOOP) => {
                let mut operands = self.pool.borrow_mut().raw_operands();
                operands.extend(toks.iter().map(raw));
                Operation::Noop(operands)
            }
            Some(code::PTP) => {
                if !count(
                    "an even number of operands (tag, value pairs)",
                    toks.len() % 2 == 0,
                    diags,
                ) {
                    return None;
                }
                let mut pairs = Vec::with_capacity(toks.len() / 2);
                let mut ok = true;
                for pair in toks.chunks(2) {
                    let tag = if pair[0].quoted {
                        Err(ParseOperandError::Identifier(lossy(text(&pair[0]))))
                    } else {
                        Identifier::from_ascii(text(&pair[0]))
                    };
                    let value = string(&pair[1], diags);
                    match (tag, value) {
                        (Ok(t), Some(v)) => pairs.push((t, v)),
                        (Err(e), _) => {
                            bad_operand(&pair[0], e, diags);
                            ok = false;
                        }
                        _ => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                Operation::Ptp(pairs)
            }
            Some(code::REFCOM | code::REFREQ) => {
                if !count("exactly one identifier", toks.len() == 1, diags)
                    || !unquoted(&toks[0], "an identifier", diags)
                {
                    return None;
                }
                let word = core::str::from_utf8(text(&toks[0])).unwrap_or("");
                let parsed = if name == "refcom" {
                    word.parse::<Refcom>().map(Operation::Refcom).ok()
                } else {
                    word.parse::<Refreq>().map(Operation::Refreq).ok()
                };
                match parsed {
                    Some(op) => op,
                    None => {
                        diags.push(Diagnostic::at(
                            col(&toks[0]),
                            Severity::Error,
                            Problem::BadKeyword {
                                opcode: name.to_owned(),
                                text: word.to_owned(),
                                allowed: if name == "refcom" {
                                    "conclude, disconnect, execute, fault, inform, reset, respond"
                                } else {
                                    "fault, reply, sign_off, sign_on"
                                },
                            },
                        ));
                        return None;
                    }
                }
            }
            Some(code::TCRI | code::TCSI) => {
                if !count("two strings", toks.len() == 2, diags) {
                    return None;
                }
                let a = string(&toks[0], diags);
                let b = string(&toks[1], diags);
                let (a, b) = (a?, b?);
                if name == "tcri" {
                    Operation::Tcri(a, b)
                } else {
                    Operation::Tcsi(a, b)
                }
            }
            Some(code::TS) => {
                if !count("a date and a time of day", toks.len() == 2, diags)
                    || !unquoted(&toks[0], "a date", diags)
                    || !unquoted(&toks[1], "a time of day", diags)
                {
                    return None;
                }
                let d =
                    Date::from_ascii(text(&toks[0])).map_err(|e| bad_operand(&toks[0], e, diags));
                let t = TimeOfDay::from_ascii(text(&toks[1]))
                    .map_err(|e| bad_operand(&toks[1], e, diags));
                Operation::Ts(d.ok()?, t.ok()?)
            }
            _ => {
                let mut operands = self.pool.borrow_mut().raw_operands();
                operands.extend(toks.iter().map(raw));
                Operation::Raw {
                    opcode: self.pool.borrow_mut().string(name),
                    operands,
                }
            }
        };
        Some(result)
    }

    /// Reads one move operand; `ply` is `Some` inside a `pv`/`sv` line.
    fn move_operand(
        &self,
        name: &str,
        line: &[u8],
        t: &Tok,
        pos: &Position,
        ply: Option<usize>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<rookery_core::Move> {
        let at = t.start as usize - usize::from(t.quoted);
        let text = &line[t.start as usize..t.end as usize];
        if t.quoted {
            diags.push(Diagnostic::at(
                at,
                Severity::Error,
                Problem::QuotedOperand {
                    opcode: name.to_owned(),
                    text: lossy(text),
                    expected: "a move",
                },
            ));
            return None;
        }
        let read = read_move(pos, text);
        match read {
            MoveRead::San(m) => Some(m),
            MoveRead::NotSan(m, san) => {
                diags.push(Diagnostic::at(
                    at,
                    severity(self.mode),
                    Problem::NotSan {
                        opcode: name.to_owned(),
                        text: lossy(text),
                        san: san.as_str().to_owned(),
                    },
                ));
                Some(m)
            }
            MoveRead::Bad(reason) => {
                let reason = match ply {
                    Some(n) if n > 0 => format!("{reason} (move {} of the line)", n + 1),
                    _ => reason,
                };
                diags.push(Diagnostic::at(
                    at,
                    Severity::Error,
                    Problem::BadMove {
                        opcode: name.to_owned(),
                        reason,
                    },
                ));
                None
            }
        }
    }
}

fn char_at(line: &[u8], i: usize) -> char {
    core::str::from_utf8(&line[i..])
        .ok()
        .and_then(|s| s.chars().next())
        .unwrap_or(char::from(line[i]))
}

fn is_chest_mate(s: &[u8]) -> bool {
    let Some(rest) = s.strip_prefix(b"#") else {
        return false;
    };
    let digits = rest.strip_prefix(b"-").unwrap_or(rest);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// Resolves `\"` and `\\` in a string's content.
fn unescape(s: &[u8]) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' && matches!(s.get(i + 1), Some(b'"' | b'\\')) {
            out.push(s[i + 1]);
            i += 2;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
