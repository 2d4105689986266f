//! The rules of the spec that concern a whole record (§5, §6), checked by
//! [`crate::Record::validate`]:
//!
//! - every opcode has opcode syntax and appears at most once (§5.1);
//! - strict mode: operations in ASCII order of opcode (a warning: §5.1 says
//!   "should", and readers must accept any order);
//! - `pm` is the first move of `pv` (§6.19), `sm` the first move of `sv` (§6.26);
//! - `draw_accept` excludes `draw_reject`, `draw_claim` excludes
//!   `draw_offer`, both of those require `sm`, and `resign` excludes every
//!   `draw_*` (§6.9-6.12, §6.25);
//! - `ptp` names each tag once (§6.20);
//! - `ce` in -32768..=32766, `dm`, `fmvn`, `rc` and `tcgs` positive, `hmvc`
//!   non-negative and consistent with the position and `fmvn`;
//! - strings shorter than 256 bytes (§5.1; a warning in lenient mode);
//! - moves set by a program are legal (moves read from text always are).

use rookery_core::{Color, Move, Position};

use crate::diag::{Diagnostic, Problem, Severity};
use crate::operand::RawOperand;
use crate::operation::{code, code_of, is_valid_opcode, Operation};
use crate::record::Record;
use rookery_core::Mode;

impl Record {
    /// Checks every rule the spec states for a record (§5, §6), returning a
    /// [`Diagnostic`] for each breach. Strict mode also warns about operations out of
    /// ASCII order; lenient mode makes over-long strings warnings.
    pub fn validate(&self, mode: Mode) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        crate::validate::validate(self, mode, &mut out);
        out
    }
}

fn at(offset: u32, severity: Severity, problem: Problem) -> Diagnostic {
    Diagnostic::at(offset as usize, severity, problem)
}

pub(crate) fn validate(rec: &Record, mode: Mode, out: &mut Vec<Diagnostic>) {
    let err = Severity::Error;
    // Opcode syntax, duplicates, order.
    // Known opcodes by index in KNOWN_OPCODES: a bit each.
    let mut seen = 0u64;
    for (i, e) in rec.entries.iter().enumerate() {
        let name = e.op.opcode();
        let dup = match e.op.code() {
            Some(k) => {
                let bit = 1u64 << k;
                let dup = seen & bit != 0;
                seen |= bit;
                dup
            }
            None => {
                if !is_valid_opcode(name) {
                    out.push(at(e.offset, err, Problem::BadOpcode(name.to_owned())));
                }
                rec.entries[..i].iter().any(|p| p.op.opcode() == name)
            }
        };
        if dup {
            out.push(at(e.offset, err, Problem::DuplicateOpcode(name.to_owned())));
        }
    }
    if mode == Mode::Strict {
        if let Some(w) = rec
            .entries
            .windows(2)
            .find(|w| w[0].op.opcode() > w[1].op.opcode())
        {
            out.push(at(
                w[1].offset,
                Severity::Warning,
                Problem::OpcodeOrder(w[1].op.opcode().to_owned(), w[0].op.opcode().to_owned()),
            ));
        }
    }
    let has = |name: &str| code_of(name.as_bytes()).is_some_and(|k| seen & (1u64 << k) != 0);
    let find = |name: &str| {
        if has(name) {
            rec.entries.iter().find(|e| e.op.opcode() == name)
        } else {
            None
        }
    };
    // Typed operations of the draw family, pm/sm/pv/sv: only look when present.
    if seen & INTERESTING == 0 {
        per_operation(rec, mode, out);
        return;
    }
    // pm / pv, sm / sv: the move must be the first of the line.
    let pm_not_pv = |pm, pv| Problem::PmNotPv { pm, pv };
    let sm_not_sv = |sm, sv| Problem::SmNotSv { sm, sv };
    type Mismatch = fn(String, String) -> Problem;
    for (name, single, line, problem) in [
        ("pm", rec.pm(), rec.pv(), pm_not_pv as Mismatch),
        ("sm", rec.sm(), rec.sv(), sm_not_sv as Mismatch),
    ] {
        if let (Some(m), Some(&first)) = (single, line.and_then(<[_]>::first)) {
            if m != first {
                let off = find(name).map_or(0, |e| e.offset);
                out.push(at(off, err, problem(rec.san(m), rec.san(first))));
            }
        }
    }
    // Draws and resignation.
    let pairs: [(&'static str, &'static str); 2] =
        [("draw_accept", "draw_reject"), ("draw_claim", "draw_offer")];
    for (a, b) in pairs {
        if let (Some(_), Some(eb)) = (find(a), find(b)) {
            out.push(at(eb.offset, err, Problem::Exclusive(a, b)));
        }
    }
    for name in ["draw_claim", "draw_offer"] {
        if let Some(e) = find(name) {
            if find("sm").is_none() {
                out.push(at(e.offset, err, Problem::NeedsSm(name)));
            }
        }
    }
    if let Some(r) = find("resign") {
        for name in ["draw_accept", "draw_claim", "draw_offer", "draw_reject"] {
            if find(name).is_some() {
                out.push(at(r.offset, err, Problem::Exclusive("resign", name)));
            }
        }
    }
    per_operation(rec, mode, out);
}

/// Bits of the opcodes the record-level rules look at.
const INTERESTING: u64 = (1 << code::DRAW_ACCEPT)
    | (1 << code::DRAW_CLAIM)
    | (1 << code::DRAW_OFFER)
    | (1 << code::DRAW_REJECT)
    | (1 << code::PM)
    | (1 << code::PV)
    | (1 << code::RESIGN)
    | (1 << code::SM)
    | (1 << code::SV);

fn per_operation(rec: &Record, mode: Mode, out: &mut Vec<Diagnostic>) {
    let err = Severity::Error;
    let lenient_warn = if mode == Mode::Strict {
        Severity::Error
    } else {
        Severity::Warning
    };
    let pos = &rec.position;
    for e in &rec.entries {
        let range = |opcode: &'static str, value: i64, expected: &'static str| {
            at(
                e.offset,
                err,
                Problem::OutOfRange {
                    opcode,
                    value,
                    expected,
                },
            )
        };
        match &e.op {
            Operation::Ce(v) if !(-32768..=32766).contains(v) => {
                out.push(range("ce", i64::from(*v), "-32768..=32766"));
            }
            Operation::Dm(v) if *v <= 0 => {
                out.push(range("dm", i64::from(*v), "a positive integer"))
            }
            Operation::Fmvn(v) if *v <= 0 => {
                out.push(range("fmvn", i64::from(*v), "a positive integer"));
            }
            Operation::Rc(v) if *v <= 0 => {
                out.push(range("rc", i64::from(*v), "a positive integer"))
            }
            Operation::Tcgs(v) if *v <= 0 => {
                out.push(range("tcgs", i64::from(*v), "a positive integer"));
            }
            Operation::Hmvc(v) if *v < 0 => {
                out.push(range("hmvc", i64::from(*v), "a non-negative integer"));
            }
            Operation::Hmvc(h) => {
                if pos.ep_square().is_some() && *h != 0 {
                    out.push(at(
                        e.offset,
                        err,
                        Problem::HmvcInconsistent {
                            hmvc: *h,
                            why: "the en-passant square says the last move was a pawn move (expected 0)"
                                .to_owned(),
                        },
                    ));
                } else if let Some(f) = rec.fmvn().filter(|f| *f > 0) {
                    let max = 2 * (i64::from(f) - 1) + i64::from(pos.turn() == Color::Black);
                    if i64::from(*h) > max {
                        out.push(at(
                            e.offset,
                            Severity::Warning,
                            Problem::HmvcInconsistent {
                                hmvc: *h,
                                why: format!(
                                    "only {max} plies can have been played before fullmove {f}"
                                ),
                            },
                        ));
                    }
                }
            }
            Operation::Ptp(pairs) => {
                for (i, (tag, _)) in pairs.iter().enumerate() {
                    if pairs[..i].iter().any(|(t, _)| t == tag) {
                        out.push(at(
                            e.offset,
                            err,
                            Problem::Ptp(format!("tag {tag} appears more than once")),
                        ));
                    }
                }
            }
            _ => {}
        }
        // Strings longer than §5.1 allows, in operand order.
        let mut long = |s: &str| {
            if s.len() >= 256 {
                out.push(at(
                    e.offset,
                    lenient_warn,
                    Problem::StringTooLong {
                        opcode: e.op.opcode().to_owned(),
                        len: s.len(),
                    },
                ));
            }
        };
        match &e.op {
            Operation::Ptp(pairs) => pairs.iter().for_each(|(_, value)| long(value)),
            Operation::Comment(_, Some(s))
            | Operation::Variation(_, Some(s))
            | Operation::Eco(Some(s))
            | Operation::Nic(Some(s))
            | Operation::Id(s) => long(s),
            Operation::Tcri(a, b) | Operation::Tcsi(a, b) => {
                long(a);
                long(b);
            }
            Operation::Noop(ops) | Operation::Raw { operands: ops, .. } => {
                for o in ops {
                    if let RawOperand::Quoted(s) = o {
                        long(s);
                    }
                }
            }
            _ => {}
        }
        // Offset 0 is never an operation read from a line (the position
        // comes first): such operations were set by a program, so their
        // moves have not been checked yet.
        if e.offset == 0 {
            check_moves(pos, &e.op, out);
        }
    }
}

fn check_moves(pos: &Position, op: &Operation, out: &mut Vec<Diagnostic>) {
    let illegal = |p: &Position, m: Move, out: &mut Vec<Diagnostic>| {
        out.push(at(
            0,
            Severity::Error,
            Problem::IllegalMove {
                opcode: op.opcode().to_owned(),
                uci: rookery_core::UciMove::from_move(p, m, rookery_core::CastlingMode::Standard)
                    .to_string(),
            },
        ));
    };
    match op {
        Operation::Am(ms) | Operation::Bm(ms) => {
            for &m in ms {
                if !pos.is_legal(m) {
                    illegal(pos, m, out);
                }
            }
        }
        Operation::Pm(m) | Operation::Sm(m) if !pos.is_legal(*m) => illegal(pos, *m, out),
        Operation::Pv(ms) | Operation::Sv(ms) => {
            let mut p = pos.clone();
            for &m in ms {
                if !p.is_legal(m) {
                    illegal(&p, m, out);
                    break;
                }
                p.play_unchecked(m);
            }
        }
        _ => {}
    }
}
