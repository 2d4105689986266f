//! Diagnostics: every problem found while reading or validating a record,
//! with its line, column and severity.

use core::fmt;

use thiserror::Error;

/// How bad a problem is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Accepted (lenient reading) or a recommendation; the record is usable.
    Warning,
    /// The record breaks a rule of the spec.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// What is wrong. The messages name the offending value.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Problem {
    /// Longer than §4 allows.
    #[error("line is {0} bytes long (at most 4096 allowed)")]
    LineTooLong(usize),
    /// Not UTF-8 text.
    #[error("line is not valid UTF-8")]
    NotUtf8,
    /// The four position fields cannot be read.
    #[error("bad position: {0}")]
    BadPosition(String),
    /// The position is not legal.
    #[error("illegal position: {0}")]
    IllegalPosition(String),
    /// Lenient reading dropped an impossible right.
    #[error("position fixed: {0}")]
    PositionFixed(String),
    /// Six FEN fields instead of four.
    #[error("FEN clocks after the position fields (read as {0})")]
    FenClocks(String),
    /// A FEN clock field that is not a number.
    #[error("FEN clock {0:?} is not a non-negative integer")]
    BadFenClock(String),
    /// The FEN clocks disagree with an hmvc or fmvn operation.
    #[error("FEN clock {clock} disagrees with {opcode} {value}")]
    ClockConflict {
        /// `hmvc` or `fmvn`.
        opcode: &'static str,
        /// The FEN field.
        clock: i32,
        /// The operation's operand.
        value: i32,
    },
    /// Leading or trailing whitespace, tabs or runs of spaces.
    #[error(
        "irregular whitespace (expected single spaces between fields, operations and operands)"
    )]
    Whitespace,
    /// Something that is not an opcode where one is expected.
    #[error("expected an opcode (a letter first), found {0:?}")]
    ExpectedOpcode(char),
    /// An opcode with a bad character.
    #[error("unexpected {1:?} in opcode {0:?} (expected letters, digits or '_')")]
    BadOpcodeChar(String, char),
    /// An opcode longer than 15 characters.
    #[error("opcode {0:?} is longer than 15 characters")]
    OpcodeTooLong(String),
    /// No `;` at the end of the line.
    #[error("operation {0} is not ended by ';'")]
    MissingSemicolon(String),
    /// A `"` without its closing partner.
    #[error("unterminated string (expected a closing '\"')")]
    UnterminatedString,
    /// Text glued to the closing quote of a string.
    #[error("expected a space or ';' after the closing '\"'")]
    TextAfterString,
    /// Wrong number of operands.
    #[error("{opcode} takes {expected}, found {found} operand(s)")]
    OperandCount {
        /// The opcode.
        opcode: String,
        /// What it takes, in words.
        expected: &'static str,
        /// How many were written.
        found: usize,
    },
    /// A bare word where a quoted string belongs.
    #[error("{opcode}: operand {text:?} is not a quoted string")]
    UnquotedString {
        /// The opcode.
        opcode: String,
        /// The word.
        text: String,
    },
    /// A quoted string where another basetype belongs.
    #[error("{opcode}: operand \"{text}\" is quoted (expected {expected})")]
    QuotedOperand {
        /// The opcode.
        opcode: String,
        /// The string.
        text: String,
        /// The basetype expected.
        expected: &'static str,
    },
    /// An operand of the wrong basetype.
    #[error("{opcode}: {error}")]
    BadOperand {
        /// The opcode.
        opcode: String,
        /// The basetype error.
        error: crate::ParseOperandError,
    },
    /// A move that cannot be read or played.
    #[error("{opcode}: {reason}")]
    BadMove {
        /// The opcode.
        opcode: String,
        /// Why (from the SAN or UCI reader, or "after pv move N").
        reason: String,
    },
    /// A move in UCI or long algebraic notation, or otherwise not canonical SAN.
    #[error("{opcode}: move {text} is not SAN (read as {san})")]
    NotSan {
        /// The opcode.
        opcode: String,
        /// As written.
        text: String,
        /// The SAN it stands for.
        san: String,
    },
    /// Chest-style `bm #N` (mate length instead of a move), kept verbatim.
    #[error("{opcode} #{n} gives a mate length, not a move (kept verbatim; dm is the EPD way)")]
    ChestMate {
        /// The opcode.
        opcode: String,
        /// The mate length as written.
        n: String,
    },
    /// A `refcom` or `refreq` operand outside its set.
    #[error("{opcode}: {text:?} is not one of {allowed}")]
    BadKeyword {
        /// The opcode.
        opcode: String,
        /// As written.
        text: String,
        /// The allowed values.
        allowed: &'static str,
    },
    // ---- rules checked by Record::validate ----
    /// An opcode appears twice.
    #[error("opcode {0} appears more than once")]
    DuplicateOpcode(String),
    /// Operations are not in ASCII order of opcode.
    #[error("operation {0} is out of ASCII order (after {1})")]
    OpcodeOrder(String, String),
    /// Opcode syntax (for operations set by a program).
    #[error("{0:?} is not a valid opcode (letter first, then up to 14 letters, digits or '_')")]
    BadOpcode(String),
    /// `pm` differs from the first `pv` move.
    #[error("pm {pm} is not the first move of pv ({pv})")]
    PmNotPv {
        /// pm as SAN.
        pm: String,
        /// pv's first move as SAN.
        pv: String,
    },
    /// `sm` differs from the first `sv` move.
    #[error("sm {sm} is not the first move of sv ({sv})")]
    SmNotSv {
        /// sm as SAN.
        sm: String,
        /// sv's first move as SAN.
        sv: String,
    },
    /// Two opcodes that exclude each other.
    #[error("{0} and {1} on the same record")]
    Exclusive(&'static str, &'static str),
    /// `draw_claim` or `draw_offer` without `sm`.
    #[error("{0} requires an sm operation on the same record")]
    NeedsSm(&'static str),
    /// `ptp` operand structure.
    #[error("ptp: {0}")]
    Ptp(String),
    /// A value outside the opcode's range.
    #[error("{opcode} {value} is out of range (expected {expected})")]
    OutOfRange {
        /// The opcode.
        opcode: &'static str,
        /// The value.
        value: i64,
        /// The range in words.
        expected: &'static str,
    },
    /// hmvc and the position or fmvn cannot both be right.
    #[error("hmvc {hmvc} is inconsistent: {why}")]
    HmvcInconsistent {
        /// The halfmove clock.
        hmvc: i32,
        /// Why.
        why: String,
    },
    /// A string of 256 bytes or more.
    #[error("{opcode}: string is {len} bytes long (less than 256 allowed)")]
    StringTooLong {
        /// The opcode.
        opcode: String,
        /// Its length in bytes.
        len: usize,
    },
    /// A move set by a program that is not legal in the position.
    #[error("{opcode}: move {uci} is not legal in the position")]
    IllegalMove {
        /// The opcode.
        opcode: String,
        /// The move in UCI.
        uci: String,
    },
}

/// One problem with its place. `line` is 1-based and 0 when unknown; `column`
/// is the 1-based byte column in the line (1 when the problem concerns the
/// whole record).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line number (0 if not read from a file).
    pub line: u64,
    /// 1-based byte column.
    pub column: u32,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong.
    pub problem: Problem,
}

impl Diagnostic {
    /// A diagnostic at a 0-based byte offset of the line.
    pub fn at(offset: usize, severity: Severity, problem: Problem) -> Diagnostic {
        Diagnostic {
            line: 0,
            column: u32::try_from(offset + 1).unwrap_or(u32::MAX),
            severity,
            problem,
        }
    }

    /// Whether it is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.line, self.column, self.severity, self.problem
        )
    }
}
