//! The EPD Kit: one implementation of Extended Position Description (Edwards,
//! 1995) for all of rookery. A [`Record`] is a position plus its operations in
//! their original order; every opcode of the spec has typed operands
//! ([`Operation`]); unknown (and private, upper-case) opcodes are kept
//! verbatim. Reading is strict or lenient ([`Mode`]) and reports every
//! problem with its column ([`Diagnostic`]); [`Record::validate`] checks the
//! record-level rules; [`Registers`] runs the comment/variation/ECO/NIC
//! registers over a sequence of records; the [`verbs`] normalize (pfdn),
//! purge (pfop), validate and convert files with constant memory, one line
//! at a time.
//!
//! ```
//! use rookery_epd::{ce_from_mate, Mode, Operation, Record};
//!
//! // Real-world input: FEN clocks, a UCI move, tabs, no final ';'.
//! let line = b"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\tbm f1b5; id \"Ruy\"";
//! let (mut rec, warnings) = Record::parse(line, Mode::Lenient)?;
//! assert_eq!(warnings.len(), 4);
//! assert_eq!(rec.hmvc(), Some(2));
//! rec.set(Operation::Ce(ce_from_mate(3).unwrap()));
//! assert_eq!(
//!     rec.to_string(),
//!     "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; ce 32762; fmvn 3; hmvc 2; id \"Ruy\";"
//! );
//! assert!(rec.validate(Mode::Strict).iter().all(|d| !d.is_error()));
//! # Ok::<(), rookery_epd::ParseRecordError>(())
//! ```

mod diag;
mod moves;
mod opcode;
mod operand;
mod operation;
mod parse;
mod record;
mod registers;
mod validate;
pub mod verbs;

/// Latin-1 and UTF-16 detection; its home is now rookery-io
/// ([`rookery_io::latin1`]), this path kept for code written before the
/// move.
pub use rookery_io::latin1;

pub use diag::{Diagnostic, Problem, Severity};
pub use opcode::{Opcode, ParseOpcodeError};
pub use operand::{
    parse_count, parse_integer, write_string, Clock, Date, Float, Identifier, ParseOperandError,
    RawOperand, TimeOfDay,
};
pub use operation::{
    ce_from_mate, is_known_opcode, is_valid_opcode, mate_from_ce, Operation, ParseKeywordError,
    Refcom, Refreq, KNOWN_OPCODES,
};
pub use parse::{Mode, Parser, MAX_LINE};
pub use record::{decimal, ParseRecordError, Record};
pub use registers::Registers;
pub use verbs::{LineKind, Reader, Summary};
