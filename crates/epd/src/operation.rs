//! Operations: every opcode of spec §6 with its typed operands.

use crate::opcode::Opcode;
use core::fmt;
use core::str::FromStr;

use rookery_core::Move;

use crate::operand::{Clock, Date, Identifier, RawOperand, TimeOfDay};

/// The operand of `refcom` (§6.23, §8.1): a command from the referee.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Refcom {
    /// Conclude the game in progress.
    Conclude,
    /// The referee is going away; close the channel.
    Disconnect,
    /// Set up the position and play the supplied move; no reply.
    Execute,
    /// The referee detected an unrecoverable fault.
    Fault,
    /// PGN tag pairs follow in `ptp`.
    Inform,
    /// Set up for a new game.
    Reset,
    /// Calculate and reply with a move.
    Respond,
}

/// The operand of `refreq` (§6.24, §8.2): a request from a client.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Refreq {
    /// The client detected an unrecoverable fault.
    Fault,
    /// The client's reply (usually with `sm`).
    Reply,
    /// The client leaves.
    SignOff,
    /// The client registers.
    SignOn,
}

/// A `refcom`/`refreq` operand outside its set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a referee keyword")]
pub struct ParseKeywordError(pub String);

impl Refcom {
    /// Every value, in ASCII order.
    pub const ALL: [Refcom; 7] = [
        Refcom::Conclude,
        Refcom::Disconnect,
        Refcom::Execute,
        Refcom::Fault,
        Refcom::Inform,
        Refcom::Reset,
        Refcom::Respond,
    ];
    /// The identifier as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Refcom::Conclude => "conclude",
            Refcom::Disconnect => "disconnect",
            Refcom::Execute => "execute",
            Refcom::Fault => "fault",
            Refcom::Inform => "inform",
            Refcom::Reset => "reset",
            Refcom::Respond => "respond",
        }
    }
}

impl Refreq {
    /// Every value, in ASCII order.
    pub const ALL: [Refreq; 4] = [
        Refreq::Fault,
        Refreq::Reply,
        Refreq::SignOff,
        Refreq::SignOn,
    ];
    /// The identifier as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Refreq::Fault => "fault",
            Refreq::Reply => "reply",
            Refreq::SignOff => "sign_off",
            Refreq::SignOn => "sign_on",
        }
    }
}

/// The keyword of `all` that `name` writes as `s`.
fn keyword<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    s: &str,
) -> Result<T, ParseKeywordError> {
    all.iter()
        .copied()
        .find(|&k| name(k) == s)
        .ok_or_else(|| ParseKeywordError(s.to_owned()))
}

impl FromStr for Refcom {
    type Err = ParseKeywordError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        keyword(&Refcom::ALL, Refcom::as_str, s)
    }
}

impl FromStr for Refreq {
    type Err = ParseKeywordError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        keyword(&Refreq::ALL, Refreq::as_str, s)
    }
}

impl fmt::Display for Refcom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Refreq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One EPD operation with typed operands. Moves are legal moves of the
/// record's position (for `pv`/`sv`, of the positions along the line).
#[derive(Clone, Debug, PartialEq)]
pub enum Operation {
    /// `acn`: nodes searched (a count; real counts exceed 2^31).
    Acn(u64),
    /// `acs`: seconds searched.
    Acs(u64),
    /// `am`: moves to avoid (a set).
    Am(Vec<Move>),
    /// `bm`: best moves (a set).
    Bm(Vec<Move>),
    /// `c0`..`c9`: ranked comment, index 0-9, with or without a string.
    Comment(u8, Option<String>),
    /// `cc`: chess clocks, time used by White then Black.
    Cc(Clock, Clock),
    /// `ce`: centipawn evaluation for the side to move (-32768..=32766).
    Ce(i32),
    /// `dm`: direct mate in this many fullmoves (positive).
    Dm(i32),
    /// `draw_accept`.
    DrawAccept,
    /// `draw_claim` (requires `sm`).
    DrawClaim,
    /// `draw_offer` (requires `sm`).
    DrawOffer,
    /// `draw_reject`.
    DrawReject,
    /// `eco`: opening code, or none to clear the register.
    Eco(Option<String>),
    /// `fmvn`: fullmove number (positive).
    Fmvn(i32),
    /// `hmvc`: halfmove clock (non-negative).
    Hmvc(i32),
    /// `id`: position identification.
    Id(String),
    /// `nic`: New In Chess code, or none to clear the register.
    Nic(Option<String>),
    /// `noop`: any operands, kept in order.
    Noop(Vec<RawOperand>),
    /// `pm`: predicted move.
    Pm(Move),
    /// `ptp`: PGN tag pairs, in order.
    Ptp(Vec<(Identifier, String)>),
    /// `pv`: predicted variation, played in sequence.
    Pv(Vec<Move>),
    /// `rc`: repetition count (positive).
    Rc(i32),
    /// `refcom`: referee command.
    Refcom(Refcom),
    /// `refreq`: referee request.
    Refreq(Refreq),
    /// `resign`.
    Resign,
    /// `sm`: supplied move.
    Sm(Move),
    /// `sv`: supplied variation, played in sequence.
    Sv(Vec<Move>),
    /// `tcgs`: game selector (positive).
    Tcgs(i32),
    /// `tcri`: receiver e-mail address and name.
    Tcri(String, String),
    /// `tcsi`: sender e-mail address and name.
    Tcsi(String, String),
    /// `ts`: timestamp (UTC).
    Ts(Date, TimeOfDay),
    /// `v0`..`v9`: ranked variation name, index 0-9, with or without a string.
    Variation(u8, Option<String>),
    /// An opcode this kit does not know (private ones start with an upper-case
    /// letter), or an operation kept verbatim by lenient reading: the opcode
    /// and the operands exactly as written.
    Raw {
        /// The opcode.
        opcode: String,
        /// The operands, in order.
        operands: Vec<RawOperand>,
    },
}

const C_NAMES: [&str; 10] = ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"];
const V_NAMES: [&str; 10] = ["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"];

/// Every opcode of spec §6, in ASCII order.
pub const KNOWN_OPCODES: [&str; 50] = [
    "acn",
    "acs",
    "am",
    "bm",
    "c0",
    "c1",
    "c2",
    "c3",
    "c4",
    "c5",
    "c6",
    "c7",
    "c8",
    "c9",
    "cc",
    "ce",
    "dm",
    "draw_accept",
    "draw_claim",
    "draw_offer",
    "draw_reject",
    "eco",
    "fmvn",
    "hmvc",
    "id",
    "nic",
    "noop",
    "pm",
    "ptp",
    "pv",
    "rc",
    "refcom",
    "refreq",
    "resign",
    "sm",
    "sv",
    "tcgs",
    "tcri",
    "tcsi",
    "ts",
    "v0",
    "v1",
    "v2",
    "v3",
    "v4",
    "v5",
    "v6",
    "v7",
    "v8",
    "v9",
];

impl Operation {
    /// The opcode mnemonic.
    pub fn opcode(&self) -> &str {
        match self {
            Operation::Acn(_) => "acn",
            Operation::Acs(_) => "acs",
            Operation::Am(_) => "am",
            Operation::Bm(_) => "bm",
            Operation::Comment(n, _) => C_NAMES[usize::from(*n).min(9)],
            Operation::Cc(..) => "cc",
            Operation::Ce(_) => "ce",
            Operation::Dm(_) => "dm",
            Operation::DrawAccept => "draw_accept",
            Operation::DrawClaim => "draw_claim",
            Operation::DrawOffer => "draw_offer",
            Operation::DrawReject => "draw_reject",
            Operation::Eco(_) => "eco",
            Operation::Fmvn(_) => "fmvn",
            Operation::Hmvc(_) => "hmvc",
            Operation::Id(_) => "id",
            Operation::Nic(_) => "nic",
            Operation::Noop(_) => "noop",
            Operation::Pm(_) => "pm",
            Operation::Ptp(_) => "ptp",
            Operation::Pv(_) => "pv",
            Operation::Rc(_) => "rc",
            Operation::Refcom(_) => "refcom",
            Operation::Refreq(_) => "refreq",
            Operation::Resign => "resign",
            Operation::Sm(_) => "sm",
            Operation::Sv(_) => "sv",
            Operation::Tcgs(_) => "tcgs",
            Operation::Tcri(..) => "tcri",
            Operation::Tcsi(..) => "tcsi",
            Operation::Ts(..) => "ts",
            Operation::Variation(n, _) => V_NAMES[usize::from(*n).min(9)],
            Operation::Raw { opcode, .. } => opcode,
        }
    }

    /// The opcode as a type ([`Opcode::Unknown`] for a name not of §6; a
    /// known opcode kept verbatim by lenient reading is still that opcode).
    pub fn kind(&self) -> Opcode {
        match self.code() {
            Some(code) => Opcode::from(KNOWN_OPCODES[usize::from(code)]),
            None => Opcode::from(self.opcode()),
        }
    }

    /// Whether the operands' order carries meaning (kept by normalization);
    /// the others are written in ASCII order (§5.1, §7.1).
    pub fn keeps_operand_order(&self) -> bool {
        !matches!(self, Operation::Am(_) | Operation::Bm(_))
    }
}

/// Index of each known opcode in [`KNOWN_OPCODES`].
pub(crate) mod code {
    pub const ACN: u8 = 0;
    pub const ACS: u8 = 1;
    pub const AM: u8 = 2;
    pub const BM: u8 = 3;
    pub const C0: u8 = 4;
    pub const C1: u8 = 5;
    pub const C2: u8 = 6;
    pub const C3: u8 = 7;
    pub const C4: u8 = 8;
    pub const C5: u8 = 9;
    pub const C6: u8 = 10;
    pub const C7: u8 = 11;
    pub const C8: u8 = 12;
    pub const C9: u8 = 13;
    pub const CC: u8 = 14;
    pub const CE: u8 = 15;
    pub const DM: u8 = 16;
    pub const DRAW_ACCEPT: u8 = 17;
    pub const DRAW_CLAIM: u8 = 18;
    pub const DRAW_OFFER: u8 = 19;
    pub const DRAW_REJECT: u8 = 20;
    pub const ECO: u8 = 21;
    pub const FMVN: u8 = 22;
    pub const HMVC: u8 = 23;
    pub const ID: u8 = 24;
    pub const NIC: u8 = 25;
    pub const NOOP: u8 = 26;
    pub const PM: u8 = 27;
    pub const PTP: u8 = 28;
    pub const PV: u8 = 29;
    pub const RC: u8 = 30;
    pub const REFCOM: u8 = 31;
    pub const REFREQ: u8 = 32;
    pub const RESIGN: u8 = 33;
    pub const SM: u8 = 34;
    pub const SV: u8 = 35;
    pub const TCGS: u8 = 36;
    pub const TCRI: u8 = 37;
    pub const TCSI: u8 = 38;
    pub const TS: u8 = 39;
    pub const V0: u8 = 40;
    pub const V1: u8 = 41;
    pub const V2: u8 = 42;
    pub const V3: u8 = 43;
    pub const V4: u8 = 44;
    pub const V5: u8 = 45;
    pub const V6: u8 = 46;
    pub const V7: u8 = 47;
    pub const V8: u8 = 48;
    pub const V9: u8 = 49;
}

/// The index in [`KNOWN_OPCODES`] of an opcode as written, if known.
pub(crate) fn code_of(name: &[u8]) -> Option<u8> {
    Some(match name {
        b"acn" => code::ACN,
        b"acs" => code::ACS,
        b"am" => code::AM,
        b"bm" => code::BM,
        b"c0" => code::C0,
        b"c1" => code::C1,
        b"c2" => code::C2,
        b"c3" => code::C3,
        b"c4" => code::C4,
        b"c5" => code::C5,
        b"c6" => code::C6,
        b"c7" => code::C7,
        b"c8" => code::C8,
        b"c9" => code::C9,
        b"cc" => code::CC,
        b"ce" => code::CE,
        b"dm" => code::DM,
        b"draw_accept" => code::DRAW_ACCEPT,
        b"draw_claim" => code::DRAW_CLAIM,
        b"draw_offer" => code::DRAW_OFFER,
        b"draw_reject" => code::DRAW_REJECT,
        b"eco" => code::ECO,
        b"fmvn" => code::FMVN,
        b"hmvc" => code::HMVC,
        b"id" => code::ID,
        b"nic" => code::NIC,
        b"noop" => code::NOOP,
        b"pm" => code::PM,
        b"ptp" => code::PTP,
        b"pv" => code::PV,
        b"rc" => code::RC,
        b"refcom" => code::REFCOM,
        b"refreq" => code::REFREQ,
        b"resign" => code::RESIGN,
        b"sm" => code::SM,
        b"sv" => code::SV,
        b"tcgs" => code::TCGS,
        b"tcri" => code::TCRI,
        b"tcsi" => code::TCSI,
        b"ts" => code::TS,
        b"v0" => code::V0,
        b"v1" => code::V1,
        b"v2" => code::V2,
        b"v3" => code::V3,
        b"v4" => code::V4,
        b"v5" => code::V5,
        b"v6" => code::V6,
        b"v7" => code::V7,
        b"v8" => code::V8,
        b"v9" => code::V9,
        _ => return None,
    })
}

impl Operation {
    /// The index of a typed operation's opcode in [`KNOWN_OPCODES`]; `None`
    /// for [`Operation::Raw`], whatever its name.
    pub(crate) fn code(&self) -> Option<u8> {
        Some(match self {
            Operation::Acn(_) => code::ACN,
            Operation::Acs(_) => code::ACS,
            Operation::Am(_) => code::AM,
            Operation::Bm(_) => code::BM,
            Operation::Cc(..) => code::CC,
            Operation::Ce(_) => code::CE,
            Operation::Dm(_) => code::DM,
            Operation::DrawAccept => code::DRAW_ACCEPT,
            Operation::DrawClaim => code::DRAW_CLAIM,
            Operation::DrawOffer => code::DRAW_OFFER,
            Operation::DrawReject => code::DRAW_REJECT,
            Operation::Eco(_) => code::ECO,
            Operation::Fmvn(_) => code::FMVN,
            Operation::Hmvc(_) => code::HMVC,
            Operation::Id(_) => code::ID,
            Operation::Nic(_) => code::NIC,
            Operation::Noop(_) => code::NOOP,
            Operation::Pm(_) => code::PM,
            Operation::Ptp(_) => code::PTP,
            Operation::Pv(_) => code::PV,
            Operation::Rc(_) => code::RC,
            Operation::Refcom(_) => code::REFCOM,
            Operation::Refreq(_) => code::REFREQ,
            Operation::Resign => code::RESIGN,
            Operation::Sm(_) => code::SM,
            Operation::Sv(_) => code::SV,
            Operation::Tcgs(_) => code::TCGS,
            Operation::Tcri(..) => code::TCRI,
            Operation::Tcsi(..) => code::TCSI,
            Operation::Ts(..) => code::TS,
            Operation::Comment(n, _) => code::C0 + (*n).min(9),
            Operation::Variation(n, _) => code::V0 + (*n).min(9),
            Operation::Raw { .. } => return None,
        })
    }
}

/// Whether `name` is a known opcode of §6.
pub fn is_known_opcode(name: &str) -> bool {
    KNOWN_OPCODES.contains(&name)
}

/// Whether `name` has opcode syntax (§5.1): a letter, then up to 14 letters,
/// digits or underscores.
pub fn is_valid_opcode(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 15
        && b[0].is_ascii_alphabetic()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// The `ce` value of a mate (§6.7) and its inverse: they live beside the
/// one [`rookery_core::Score`] (see [`rookery_core::Score::ce`]).
pub use rookery_core::score::{ce_from_mate, mate_from_ce};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_opcode_list() {
        for (i, name) in KNOWN_OPCODES.iter().enumerate() {
            assert_eq!(code_of(name.as_bytes()), Some(i as u8), "{name}");
        }
        assert!(KNOWN_OPCODES.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(code_of(b"Bm"), None);
    }

    #[test]
    fn keywords_round_trip() {
        for r in Refcom::ALL {
            assert_eq!(r.as_str().parse::<Refcom>(), Ok(r));
        }
        for r in Refreq::ALL {
            assert_eq!(r.as_str().parse::<Refreq>(), Ok(r));
        }
        assert!("sign-on".parse::<Refreq>().is_err());
    }
}
