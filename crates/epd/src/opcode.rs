//! Opcodes as a type: every opcode of spec §6 as a variant, any other
//! (private ones start with an upper-case letter) kept by name.

use crate::operation::{code_of, KNOWN_OPCODES};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// An EPD opcode. The known ones of spec §6 are variants; any other name is
/// kept as [`Opcode::Unknown`], never dropped.
///
/// ```
/// use rookery_epd::{Mode, Opcode, Record};
///
/// let (mut rec, _) = Record::parse(b"4k3/8/8/8/8/8/8/4K3 w - - bm Kd1; Tsol 5;", Mode::Lenient)?;
/// assert!(rec.contains(Opcode::Bm));
/// assert!(rec.contains(Opcode::private("Tsol")));
/// assert_eq!(rec.get(Opcode::Bm).map(|op| op.kind()), Some(Opcode::Bm));
/// assert_eq!(rec.remove(Opcode::private("Tsol")), 1);
/// assert_eq!("bm".parse::<Opcode>(), Ok(Opcode::Bm));
/// assert_eq!(Opcode::Comment(3).to_string(), "c3");
/// # Ok::<(), rookery_epd::ParseRecordError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opcode {
    /// `acn`: nodes searched.
    Acn,
    /// `acs`: seconds searched.
    Acs,
    /// `am`: moves to avoid.
    Am,
    /// `bm`: best moves.
    Bm,
    /// `c0`..`c9`: ranked comment, index 0-9 (a larger one counts as 9, as
    /// in [`crate::Operation::Comment`]).
    Comment(u8),
    /// `cc`: chess clocks.
    Cc,
    /// `ce`: centipawn evaluation.
    Ce,
    /// `dm`: direct mate.
    Dm,
    /// `draw_accept`.
    DrawAccept,
    /// `draw_claim`.
    DrawClaim,
    /// `draw_offer`.
    DrawOffer,
    /// `draw_reject`.
    DrawReject,
    /// `eco`: opening code.
    Eco,
    /// `fmvn`: fullmove number.
    Fmvn,
    /// `hmvc`: halfmove clock.
    Hmvc,
    /// `id`: position identification.
    Id,
    /// `nic`: New In Chess code.
    Nic,
    /// `noop`: no operation.
    Noop,
    /// `pm`: predicted move.
    Pm,
    /// `ptp`: PGN tag pairs.
    Ptp,
    /// `pv`: predicted variation.
    Pv,
    /// `rc`: repetition count.
    Rc,
    /// `refcom`: referee command.
    Refcom,
    /// `refreq`: referee request.
    Refreq,
    /// `resign`.
    Resign,
    /// `sm`: supplied move.
    Sm,
    /// `sv`: supplied variation.
    Sv,
    /// `tcgs`: game selector.
    Tcgs,
    /// `tcri`: receiver identification.
    Tcri,
    /// `tcsi`: sender identification.
    Tcsi,
    /// `ts`: timestamp.
    Ts,
    /// `v0`..`v9`: ranked variation name, index 0-9 (a larger one counts as 9).
    Variation(u8),
    /// Any other opcode, by name as written (`acd`, `Tsol`, ...). Holds a
    /// name that is not a known opcode; [`Opcode::from`] makes sure of it.
    Unknown(Cow<'static, str>),
}

/// A name that is not an opcode (§5.1: a letter, then up to 14 letters,
/// digits or underscores).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an opcode: expected a letter, then up to 14 letters, digits or underscores")]
pub struct ParseOpcodeError(pub String);

impl Opcode {
    /// The opcode of a private analysis result, e.g. `Opcode::private("Tsol")`,
    /// usable in constants.
    pub const fn private(name: &'static str) -> Opcode {
        Opcode::Unknown(Cow::Borrowed(name))
    }

    /// The opcode mnemonic as written.
    pub fn as_str(&self) -> &str {
        match self {
            Opcode::Comment(n) => KNOWN_OPCODES[usize::from(CODE_C0 + (*n).min(9))],
            Opcode::Variation(n) => KNOWN_OPCODES[usize::from(CODE_V0 + (*n).min(9))],
            Opcode::Unknown(name) => name,
            known => KNOWN_OPCODES[usize::from(known.code().unwrap_or(0))],
        }
    }

    /// Whether this is an opcode of spec §6.
    pub fn is_known(&self) -> bool {
        !matches!(self, Opcode::Unknown(_))
    }

    /// The index in [`KNOWN_OPCODES`] (`None` for [`Opcode::Unknown`]).
    fn code(&self) -> Option<u8> {
        let simple = |o: &Opcode| SIMPLE.iter().position(|(s, _)| s == o);
        match self {
            Opcode::Comment(n) => Some(CODE_C0 + (*n).min(9)),
            Opcode::Variation(n) => Some(CODE_V0 + (*n).min(9)),
            Opcode::Unknown(_) => None,
            o => simple(o).map(|i| SIMPLE[i].1),
        }
    }

    /// The opcode at `code` in [`KNOWN_OPCODES`].
    fn from_code(code: u8) -> Opcode {
        if (CODE_C0..CODE_C0 + 10).contains(&code) {
            return Opcode::Comment(code - CODE_C0);
        }
        if (CODE_V0..CODE_V0 + 10).contains(&code) {
            return Opcode::Variation(code - CODE_V0);
        }
        SIMPLE
            .iter()
            .find(|(_, c)| *c == code)
            .map_or(Opcode::Unknown(Cow::Borrowed("")), |(o, _)| o.clone())
    }
}

const CODE_C0: u8 = 4;
const CODE_V0: u8 = 40;

/// The opcodes without an index, with their place in [`KNOWN_OPCODES`].
const SIMPLE: [(Opcode, u8); 30] = [
    (Opcode::Acn, 0),
    (Opcode::Acs, 1),
    (Opcode::Am, 2),
    (Opcode::Bm, 3),
    (Opcode::Cc, 14),
    (Opcode::Ce, 15),
    (Opcode::Dm, 16),
    (Opcode::DrawAccept, 17),
    (Opcode::DrawClaim, 18),
    (Opcode::DrawOffer, 19),
    (Opcode::DrawReject, 20),
    (Opcode::Eco, 21),
    (Opcode::Fmvn, 22),
    (Opcode::Hmvc, 23),
    (Opcode::Id, 24),
    (Opcode::Nic, 25),
    (Opcode::Noop, 26),
    (Opcode::Pm, 27),
    (Opcode::Ptp, 28),
    (Opcode::Pv, 29),
    (Opcode::Rc, 30),
    (Opcode::Refcom, 31),
    (Opcode::Refreq, 32),
    (Opcode::Resign, 33),
    (Opcode::Sm, 34),
    (Opcode::Sv, 35),
    (Opcode::Tcgs, 36),
    (Opcode::Tcri, 37),
    (Opcode::Tcsi, 38),
    (Opcode::Ts, 39),
];

impl From<&str> for Opcode {
    /// The opcode named `name`: a known one's variant, else
    /// [`Opcode::Unknown`] (whatever the syntax; see [`Opcode::from_str`]
    /// for a checked reading).
    fn from(name: &str) -> Opcode {
        match code_of(name.as_bytes()) {
            Some(code) => Opcode::from_code(code),
            None => Opcode::Unknown(Cow::Owned(name.to_string())),
        }
    }
}

impl FromStr for Opcode {
    type Err = ParseOpcodeError;

    /// Reads an opcode, refusing a name without opcode syntax (§5.1).
    fn from_str(s: &str) -> Result<Opcode, ParseOpcodeError> {
        if crate::operation::is_valid_opcode(s) {
            Ok(Opcode::from(s))
        } else {
            Err(ParseOpcodeError(s.to_string()))
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl AsRef<str> for Opcode {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_opcode_reads_back_to_its_name() {
        for (i, name) in KNOWN_OPCODES.iter().enumerate() {
            let op = Opcode::from(*name);
            assert!(op.is_known(), "{name}");
            assert_eq!(op.as_str(), *name);
            assert_eq!(op.code(), Some(i as u8), "{name}");
            assert_eq!(name.parse::<Opcode>(), Ok(op));
        }
    }

    #[test]
    fn unknown_opcodes_are_kept_by_name() {
        for name in ["acd", "Tsol", "c10", "BM"] {
            let op = Opcode::from(name);
            assert_eq!(op, Opcode::Unknown(Cow::Owned(name.to_string())));
            assert!(!op.is_known());
            assert_eq!(op.to_string(), name);
        }
        assert_eq!(Opcode::private("Tsol"), Opcode::from("Tsol"));
        for bad in ["", "1x", "a-b", "abcdefghijklmnop"] {
            assert!(bad.parse::<Opcode>().is_err(), "{bad:?}");
        }
        assert_eq!(Opcode::Variation(9).as_str(), "v9");
        assert_eq!(Opcode::Comment(12).as_str(), "c9");
    }
}
