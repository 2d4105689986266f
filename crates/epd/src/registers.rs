//! The string registers of a move-sequence scanner (§6.5, §6.13, §6.17,
//! §6.32): ten comment registers, ten variation-name registers, ECO and NIC.
//!
//! ```
//! use rookery_epd::{Record, Registers};
//! let mut regs = Registers::new();
//! let a: Record = "4k3/8/8/8/8/8/8/4K3 w - - c0 \"game\"; c1 \"opening\";".parse()?;
//! let b: Record = "4k3/8/8/8/8/8/8/4K3 b - - c1;".parse()?;
//! regs.apply(&a);
//! assert_eq!(regs.comment(1), Some("opening"));
//! regs.apply(&b); // c1 with no operand clears c1..c9
//! assert_eq!(regs.comment(0), Some("game"));
//! assert_eq!(regs.comment(1), None);
//! # Ok::<(), rookery_epd::ParseRecordError>(())
//! ```

use crate::operation::Operation;
use crate::record::Record;

/// The scanner registers; start a game (or fragment) with [`Registers::new`]
/// or [`Registers::reset`], then [`Registers::apply`] each record in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Registers {
    comments: [Option<String>; 10],
    variations: [Option<String>; 10],
    eco: Option<String>,
    nic: Option<String>,
}

impl Registers {
    /// All registers null.
    pub fn new() -> Registers {
        Registers::default()
    }

    /// Sets every register to null (start of a game or fragment).
    pub fn reset(&mut self) {
        *self = Registers::default();
    }

    /// Interprets the record's operations from left to right: `cN`/`vN`
    /// clear registers N..9 and then set N if a string is present; `eco`
    /// and `nic` set or clear their register.
    pub fn apply(&mut self, record: &Record) {
        for op in record.operations() {
            match op {
                Operation::Comment(n, s) => rank(&mut self.comments, *n, s),
                Operation::Variation(n, s) => rank(&mut self.variations, *n, s),
                Operation::Eco(s) => self.eco.clone_from(s),
                Operation::Nic(s) => self.nic.clone_from(s),
                _ => {}
            }
        }
    }

    /// Comment register `n` (0-9).
    pub fn comment(&self, n: u8) -> Option<&str> {
        self.comments.get(usize::from(n))?.as_deref()
    }

    /// Variation-name register `n` (0-9).
    pub fn variation(&self, n: u8) -> Option<&str> {
        self.variations.get(usize::from(n))?.as_deref()
    }

    /// The ECO register.
    pub fn eco(&self) -> Option<&str> {
        self.eco.as_deref()
    }

    /// The NIC register.
    pub fn nic(&self) -> Option<&str> {
        self.nic.as_deref()
    }
}

fn rank(regs: &mut [Option<String>; 10], n: u8, value: &Option<String>) {
    let n = usize::from(n).min(9);
    for r in &mut regs[n..] {
        *r = None;
    }
    regs[n].clone_from(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(ops: &str) -> Record {
        format!("4k3/8/8/8/8/8/8/4K3 w - - {ops}").parse().unwrap()
    }

    #[test]
    fn comment_and_variation_rules() {
        let mut r = Registers::new();
        r.apply(&rec(
            "c0 \"a\"; c3 \"d\"; c9 \"j\"; v0 \"x\"; v5 \"y\"; eco \"B01\"; nic \"SD 1\";",
        ));
        assert_eq!(r.comment(3), Some("d"));
        assert_eq!(r.comment(9), Some("j"));
        assert_eq!(r.variation(5), Some("y"));
        assert_eq!(r.eco(), Some("B01"));
        r.apply(&rec("c2 \"c\"; v5; eco;"));
        assert_eq!(r.comment(0), Some("a"));
        assert_eq!(r.comment(2), Some("c"));
        assert_eq!(r.comment(3), None);
        assert_eq!(r.comment(9), None);
        assert_eq!(r.variation(0), Some("x"));
        assert_eq!(r.variation(5), None);
        assert_eq!(r.eco(), None);
        assert_eq!(r.nic(), Some("SD 1"));
        r.apply(&rec("c0;"));
        assert!((0..10).all(|n| r.comment(n).is_none()));
        r.reset();
        assert_eq!(r, Registers::new());
    }
}
