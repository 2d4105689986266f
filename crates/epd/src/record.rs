//! [`Record`]: a position and its operations, with typed access.

use core::fmt;
use core::str::FromStr;

use rookery_core::{Fen, Move, Position};

use crate::diag::Diagnostic;
use crate::moves::san_text;
use crate::operand::write_string;
use crate::operation::Operation;
use crate::parse::{Mode, Parser};

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub(crate) op: Operation,
    /// 0-based byte offset of the opcode in the line read (0 if set by a program).
    pub(crate) offset: u32,
}

/// One EPD record: a legal position and its operations in their original
/// order (written in ASCII order of opcode by [`Record::write_to`]).
///
/// ```
/// use rookery_epd::{Mode, Operation, Record};
/// let mut rec: Record = "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id \"BK.01\";".parse()?;
/// assert_eq!(rec.id(), Some("BK.01"));
/// let best = rec.bm().unwrap()[0];
/// rec.set(Operation::Pv(vec![best]));
/// rec.set(Operation::Ce(123));
/// assert_eq!(rec.to_string(),
///     "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; ce 123; id \"BK.01\"; pv Qd1+;");
/// // ce and pv were appended after id: strict mode warns about the order.
/// assert_eq!(rec.validate(Mode::Strict).len(), 1);
/// rec.sort_operations();
/// assert!(rec.validate(Mode::Strict).is_empty());
/// # Ok::<(), rookery_epd::ParseRecordError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub(crate) position: Position,
    pub(crate) entries: Vec<Entry>,
}

/// A line that is not a usable record: every problem found (at least one error).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .diagnostics.iter().find(|d| d.is_error()).map(|d| d.to_string()).unwrap_or_default())]
pub struct ParseRecordError {
    /// Every problem found, errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Record {
    /// A record of `position` with no operations. EPD positions carry no
    /// clocks: the halfmove clock and fullmove number are reset to 0 and 1
    /// (see [`Record::with_clocks`] to keep them as `hmvc`/`fmvn`).
    pub fn new(mut position: Position) -> Record {
        position.set_clocks(0, 1);
        Record {
            position,
            entries: Vec::new(),
        }
    }

    /// A record of `position` with its clocks as `hmvc` and `fmvn` operations.
    pub fn with_clocks(position: Position) -> Record {
        let h = i32::try_from(position.halfmoves()).unwrap_or(i32::MAX);
        let f = i32::try_from(position.fullmoves()).unwrap_or(i32::MAX);
        let mut rec = Record::new(position);
        rec.push(Operation::Fmvn(f));
        rec.push(Operation::Hmvc(h));
        rec
    }

    /// Reads one record: one line (a final `\n` or `\r\n` is ignored).
    ///
    /// # Errors
    /// [`ParseRecordError`] with every problem if any is an error in `mode`.
    pub fn parse(line: &[u8], mode: Mode) -> Result<(Record, Vec<Diagnostic>), ParseRecordError> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut parser = Parser::new(mode);
        let mut diags = Vec::new();
        match parser.parse_record(line, &mut diags) {
            Some(rec) if !diags.iter().any(Diagnostic::is_error) => Ok((rec, diags)),
            _ => Err(ParseRecordError { diagnostics: diags }),
        }
    }

    /// The position (halfmove clock 0, fullmove number 1: EPD keeps the
    /// clocks in `hmvc`/`fmvn`; see [`Record::position_with_clocks`]).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The position with its clocks from `hmvc` and `fmvn` (0 and 1 when
    /// absent or out of range), e.g. for an engine that applies the
    /// fifty-move rule.
    pub fn position_with_clocks(&self) -> Position {
        let mut pos = self.position.clone();
        let h = self.hmvc().and_then(|v| u32::try_from(v).ok()).unwrap_or(0);
        let f = self
            .fmvn()
            .and_then(|v| u32::try_from(v).ok())
            .filter(|&v| v > 0)
            .unwrap_or(1);
        pos.set_clocks(h, f);
        pos
    }

    /// The operations in their order.
    pub fn operations(&self) -> impl Iterator<Item = &Operation> + '_ {
        self.entries.iter().map(|e| &e.op)
    }

    /// The operations with the 1-based column of each opcode in the line
    /// read (1 for operations set by a program).
    pub fn operations_with_columns(&self) -> impl Iterator<Item = (&Operation, u32)> + '_ {
        self.entries.iter().map(|e| (&e.op, e.offset + 1))
    }

    /// How many operations there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no operations.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The first operation with this opcode: an [`Opcode`](crate::Opcode),
    /// or its name as a convenience (`rec.get(Opcode::Bm)`, `rec.get("bm")`).
    pub fn get(&self, opcode: impl AsRef<str>) -> Option<&Operation> {
        let opcode = opcode.as_ref();
        self.operations().find(|op| op.opcode() == opcode)
    }

    /// Whether an operation with this opcode (an [`Opcode`](crate::Opcode)
    /// or its name) is present.
    pub fn contains(&self, opcode: impl AsRef<str>) -> bool {
        self.get(opcode).is_some()
    }

    /// Sets an operation: replaces the first one with the same opcode (and
    /// drops any later duplicates), or appends it.
    pub fn set(&mut self, op: Operation) {
        let name = op.opcode().to_owned();
        let mut op = Some(op);
        self.entries.retain_mut(|e| {
            if e.op.opcode() != name {
                return true;
            }
            match op.take() {
                Some(new) => {
                    e.op = new;
                    true
                }
                None => false,
            }
        });
        if let Some(op) = op {
            self.entries.push(Entry { op, offset: 0 });
        }
    }

    /// Appends an operation, even if its opcode is already present.
    pub fn push(&mut self, op: Operation) {
        self.entries.push(Entry { op, offset: 0 });
    }

    /// Removes every operation with this opcode (an [`Opcode`](crate::Opcode)
    /// or its name); returns how many.
    pub fn remove(&mut self, opcode: impl AsRef<str>) -> usize {
        let opcode = opcode.as_ref();
        let before = self.entries.len();
        self.entries.retain(|e| e.op.opcode() != opcode);
        before - self.entries.len()
    }

    /// Puts the operations in ASCII order of opcode (stable: duplicates keep
    /// their order), as written by [`Record::write_to`].
    pub fn sort_operations(&mut self) {
        self.entries
            .sort_by(|a, b| a.op.opcode().cmp(b.op.opcode()));
    }

    /// Keeps the operations for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Operation) -> bool) {
        self.entries.retain(|e| keep(&e.op));
    }

    /// The string of comment `c<n>` (`None` if absent or without operand).
    pub fn comment(&self, n: u8) -> Option<&str> {
        self.operations().find_map(|op| match op {
            Operation::Comment(k, s) if *k == n => s.as_deref(),
            _ => None,
        })
    }

    /// The string of variation name `v<n>`.
    pub fn variation(&self, n: u8) -> Option<&str> {
        self.operations().find_map(|op| match op {
            Operation::Variation(k, s) if *k == n => s.as_deref(),
            _ => None,
        })
    }

    /// The position as a six-field FEN, its clocks from `hmvc` and `fmvn`
    /// (0 and 1 when absent or out of range).
    pub fn to_fen(&self) -> String {
        Fen::from_position(&self.position_with_clocks()).to_string()
    }

    /// The SAN of a move of this record's position (with `+`/`#`).
    pub fn san(&self, m: Move) -> String {
        san_text(&self.position, m, true).as_str().to_owned()
    }

    /// Writes the canonical form (pfdn, §7.1): the four fields, then the
    /// operations in ASCII order of opcode (a stable sort: duplicates keep
    /// their order), single spaces, `bm`/`am` operands in ASCII order of
    /// their SAN, every other operand list in its order.
    pub fn write_to(&self, out: &mut String) {
        self.write_fields(out);
        self.write_operations(out);
    }

    /// The four position fields as [`Record::write_to`] writes them.
    pub(crate) fn write_fields(&self, out: &mut String) {
        write_epd_fields(&self.position, out);
    }

    /// The operations as [`Record::write_to`] writes them after the four
    /// fields (each after a space).
    pub(crate) fn write_operations(&self, out: &mut String) {
        let entries = &self.entries;
        let sorted = entries
            .windows(2)
            .all(|w| opcode_order(&w[0].op, &w[1].op).is_le());
        if sorted {
            for e in entries {
                out.push(' ');
                self.write_op(&e.op, out);
            }
        } else if entries.len() <= SMALL {
            // A stable insertion sort of indices on the stack: records hold
            // a handful of operations.
            let mut order = [0u8; SMALL];
            for i in 0..entries.len() {
                let mut j = i;
                while j > 0
                    && opcode_order(&entries[usize::from(order[j - 1])].op, &entries[i].op).is_gt()
                {
                    order[j] = order[j - 1];
                    j -= 1;
                }
                // i < SMALL <= u8::MAX.
                order[j] = i as u8;
            }
            for &i in &order[..entries.len()] {
                out.push(' ');
                self.write_op(&entries[usize::from(i)].op, out);
            }
        } else {
            let mut order: Vec<&Entry> = entries.iter().collect();
            order.sort_by(|a, b| opcode_order(&a.op, &b.op));
            for e in order {
                out.push(' ');
                self.write_op(&e.op, out);
            }
        }
    }

    fn write_op(&self, op: &Operation, out: &mut String) {
        use fmt::Write;
        out.push_str(op.opcode());
        let pos = &self.position;
        let sep = |out: &mut String| out.push(' ');
        match op {
            Operation::Acn(v) | Operation::Acs(v) => {
                sep(out);
                push_u64(out, *v);
            }
            Operation::Am(ms) | Operation::Bm(ms) if ms.len() == 1 => {
                sep(out);
                out.push_str(san_text(pos, ms[0], true).as_str());
            }
            Operation::Am(ms) | Operation::Bm(ms) => {
                let mut sans: Vec<_> = ms.iter().map(|&m| san_text(pos, m, true)).collect();
                sans.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                for s in &sans {
                    sep(out);
                    out.push_str(s.as_str());
                }
            }
            Operation::Pm(m) | Operation::Sm(m) => {
                sep(out);
                out.push_str(san_text(pos, *m, true).as_str());
            }
            Operation::Pv(ms) | Operation::Sv(ms) => {
                let mut p = pos.clone();
                for &m in ms {
                    sep(out);
                    out.push_str(san_text(&p, m, true).as_str());
                    p.play_unchecked(m);
                }
            }
            Operation::Comment(_, s)
            | Operation::Variation(_, s)
            | Operation::Eco(s)
            | Operation::Nic(s) => {
                if let Some(s) = s {
                    sep(out);
                    write_string(out, s);
                }
            }
            Operation::Cc(a, b) => {
                sep(out);
                let _ = write!(out, "{a} {b}");
            }
            Operation::Ce(v)
            | Operation::Dm(v)
            | Operation::Fmvn(v)
            | Operation::Hmvc(v)
            | Operation::Rc(v)
            | Operation::Tcgs(v) => {
                sep(out);
                if *v < 0 {
                    out.push('-');
                }
                push_u64(out, u64::from(v.unsigned_abs()));
            }
            Operation::DrawAccept
            | Operation::DrawClaim
            | Operation::DrawOffer
            | Operation::DrawReject
            | Operation::Resign => {}
            Operation::Id(s) => {
                sep(out);
                write_string(out, s);
            }
            Operation::Noop(ops) | Operation::Raw { operands: ops, .. } => {
                for o in ops {
                    sep(out);
                    o.append_to(out);
                }
            }
            Operation::Ptp(pairs) => {
                for (tag, value) in pairs {
                    sep(out);
                    out.push_str(tag.as_str());
                    sep(out);
                    write_string(out, value);
                }
            }
            Operation::Refcom(r) => {
                sep(out);
                out.push_str(r.as_str());
            }
            Operation::Refreq(r) => {
                sep(out);
                out.push_str(r.as_str());
            }
            Operation::Tcri(a, b) | Operation::Tcsi(a, b) => {
                sep(out);
                write_string(out, a);
                sep(out);
                write_string(out, b);
            }
            Operation::Ts(d, t) => {
                sep(out);
                let _ = write!(out, "{d} {t}");
            }
        }
        out.push(';');
    }
}

/// `Record` accessors, one per typed operation: the operand of the first
/// operation of that kind, `None` if there is none.
macro_rules! operand_accessors {
    ($($(#[$doc:meta])* $name:ident -> $ty:ty = $variant:ident($v:ident) => $get:expr;)*) => {
        impl Record {
            $(
                $(#[$doc])*
                pub fn $name(&self) -> Option<$ty> {
                    self.operations().find_map(|op| match op {
                        Operation::$variant($v) => Some($get),
                        _ => None,
                    })
                }
            )*
        }
    };
}

operand_accessors! {
    /// `bm` moves.
    bm -> &[Move] = Bm(m) => m.as_slice();
    /// `am` moves.
    am -> &[Move] = Am(m) => m.as_slice();
    /// `pv` moves.
    pv -> &[Move] = Pv(m) => m.as_slice();
    /// `sv` moves.
    sv -> &[Move] = Sv(m) => m.as_slice();
    /// `pm`.
    pm -> Move = Pm(m) => *m;
    /// `sm`.
    sm -> Move = Sm(m) => *m;
    /// `ce`.
    ce -> i32 = Ce(v) => *v;
    /// `dm`.
    dm -> i32 = Dm(v) => *v;
    /// `hmvc`.
    hmvc -> i32 = Hmvc(v) => *v;
    /// `fmvn`.
    fmvn -> i32 = Fmvn(v) => *v;
    /// `acn`.
    acn -> u64 = Acn(v) => *v;
    /// `acs`.
    acs -> u64 = Acs(v) => *v;
    /// `id`.
    id -> &str = Id(s) => s.as_str();
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(128);
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

impl FromStr for Record {
    type Err = ParseRecordError;
    /// Reads in lenient mode.
    fn from_str(s: &str) -> Result<Record, ParseRecordError> {
        Record::parse(s.as_bytes(), Mode::Lenient).map(|(r, _)| r)
    }
}

/// Records with at most this many operations are sorted on the stack.
const SMALL: usize = 32;

/// ASCII order of the opcodes of two operations: the known opcodes are
/// numbered in that order, so two of them compare by number; anything else
/// by name.
fn opcode_order(a: &Operation, b: &Operation) -> core::cmp::Ordering {
    match (a.code(), b.code()) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => a.opcode().cmp(b.opcode()),
    }
}

/// Appends `v` in decimal: the integer operands of every record go through
/// here, and `fmt`'s machinery cost more than the digits (to-epd writes a
/// move number and a clock per position).
fn push_u64(out: &mut String, v: u64) {
    for &d in decimal(v, &mut [0; 20]) {
        out.push(char::from(d));
    }
}

/// `v` in decimal as ASCII digits, written at the end of `buf` (the digits
/// of any `u64` fit): for writers of many numbers, without `fmt`.
///
/// ```
/// assert_eq!(rookery_epd::decimal(4096, &mut [0; 20]), b"4096");
/// assert_eq!(rookery_epd::decimal(u64::MAX, &mut [0; 20]), u64::MAX.to_string().as_bytes());
/// ```
pub fn decimal(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        // v % 10 < 10: the cast keeps the value.
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[i..]
}

/// Writes the four EPD position fields.
fn write_epd_fields(pos: &Position, out: &mut String) {
    Fen::from_position(pos).epd().append_to(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integers are written as `Display` writes them, at both ends of
    /// their ranges and around the powers of ten.
    #[test]
    fn integers_are_written_in_decimal() {
        let mut cases: Vec<u64> = vec![0, u64::MAX, u64::MAX - 1];
        let mut p = 1u64;
        while let Some(next) = p.checked_mul(10) {
            cases.extend([p - 1, p, p + 1]);
            p = next;
        }
        for v in cases {
            let mut out = String::from("x");
            push_u64(&mut out, v);
            assert_eq!(out, format!("x{v}"));
        }
        for v in [i32::MIN, i32::MIN + 1, -1000, -1, 0, 1, 999, i32::MAX] {
            let mut rec = Record::new(Position::startpos());
            rec.push(Operation::Ce(v));
            let mut out = String::new();
            rec.write_to(&mut out);
            assert!(out.ends_with(&format!(" ce {v};")), "{out}");
        }
    }

    /// Operations in every order, typed and raw (some with the name of a
    /// typed one): written as after sorting them by the opcode's text.
    #[test]
    fn operations_are_written_in_ascii_order_of_opcode() {
        use crate::operand::RawOperand;
        let raw = |name: &str| Operation::Raw {
            opcode: name.to_owned(),
            operands: vec![RawOperand::Token(name.to_owned())],
        };
        let ops = || {
            vec![
                Operation::Id("x".into()),
                raw("bm"),
                Operation::Comment(0, Some("c".into())),
                raw("Zprivate"),
                Operation::Ce(5),
                raw("cd"),
                Operation::Comment(9, None),
                Operation::Acn(7),
                raw("a"),
                Operation::Variation(3, None),
                Operation::DrawOffer,
                raw("draw_offer"),
            ]
        };
        let pos = Position::startpos();
        let mut seed = 7u64;
        for _ in 0..300 {
            let mut ops = ops();
            // A random order (Fisher-Yates).
            for i in (1..ops.len()).rev() {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ops.swap(i, (seed >> 33) as usize % (i + 1));
            }
            let mut rec = Record::new(pos.clone());
            for op in ops {
                rec.push(op);
            }
            let written = rec.to_string();
            let mut by_name = rec.clone();
            by_name
                .entries
                .sort_by(|a, b| a.op.opcode().cmp(b.op.opcode()));
            let mut expected = String::new();
            write_epd_fields(&pos, &mut expected);
            for e in &by_name.entries {
                expected.push(' ');
                by_name.write_op(&e.op, &mut expected);
            }
            assert_eq!(written, expected);
        }
    }

    /// The SAN writer of the EPD kit against core's, on every legal move
    /// along random games.
    #[test]
    fn san_writer_agrees_with_core() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1",
            "2r1k2r/2pn1pp1/1p3n1p/p3PP2/4q2B/P1P5/2Q1N1PP/R4RK1 w q - 0 1",
        ];
        let mut seed = 12345u64;
        for fen in starts {
            let mut pos = Position::from_fen_lenient(fen).unwrap().0;
            for _ in 0..200 {
                for &m in pos.legal_moves().iter() {
                    assert_eq!(
                        crate::moves::san_text(&pos, m, true).as_str(),
                        rookery_core::SanPlus::from_move(&pos, m).to_string()
                    );
                }
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                pos.play_unchecked(legal[(seed >> 33) as usize % legal.len()]);
            }
        }
    }
}
