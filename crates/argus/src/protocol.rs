//! The referee protocol of EPD §8 as typed messages over `rookery-epd`
//! records.
//!
//! Every record is one line of at most [`MAX_RECORD`] bytes (§4) carrying
//! the four position fields. The referee's records always carry `hmvc` and
//! `fmvn` too (§8.1 has the referee send them); a client's may leave them
//! out, as EPD records usually do (§6.14, §6.15). The referee sends
//! [`RefereeRecord`]s (`refcom`), a client sends [`ClientRecord`]s
//! (`refreq`). Supplied moves (`sm`) are SAN and follow the symmetric rule
//! of §8.1: the position on a record is the one the move is played from.
//! The referee writes the en passant square as §4.4 does, after every
//! double pawn advance ([`RefereeRecord::reached_by`]), so that a client
//! comparing the four data fields with its own finds them equal.
//! Operations the protocol does not use are kept in `other`, never dropped.
//!
//! Where the spec is silent, the spec's own means are used: a client names
//! itself on `sign_on` with `tcsi "ADDRESS" "NAME"`, proves it with the
//! private opcode `Token "SECRET"` (upper case, §5.3), and the referee names
//! the receiver of every record with `tcri`. A fault carries its reason as
//! the comment `c0`.
//!
//! ```
//! use rookery_argus::protocol::{ClientRecord, Request, Side};
//! let line = b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 fmvn 1; hmvc 0; refreq reply; sm e5;";
//! let rec = ClientRecord::parse(line)?;
//! assert_eq!(rec.request, Request::Reply);
//! assert_eq!(rec.sm_san().as_deref(), Some("e5"));
//! assert_eq!(rec.position.turn(), Side::Black);
//! # Ok::<(), rookery_argus::protocol::ProtocolError>(())
//! ```

use rookery_core::Score;
use rookery_core::{Move, MoveKind, Position, Role, Square};
use rookery_epd::{Clock, Diagnostic, Mode, Operation, Problem, RawOperand, Record};
use rookery_game::player::Offer;
use std::time::Duration;

pub use rookery_core::Color as Side;
pub use rookery_epd::Refcom as Command;
pub use rookery_epd::Refreq as Request;

/// The longest record line, without its line ending (§4).
pub const MAX_RECORD: usize = 4096;

/// The private opcode carrying a player's secret on `sign_on`.
pub const TOKEN_OPCODE: &str = "Token";

/// What the referee writes instead of a `Token`'s secret wherever a record
/// is logged or shown.
pub const REDACTED_TOKEN: &str = "***";

/// The `c0` of the fault refusing a sign-on for its credentials: one text
/// whether the name is unknown or the token wrong, so that the names of the
/// players cannot be probed. A client does not sign on again after it.
pub const REFUSED_CREDENTIALS: &str =
    "sign_on: not a registered player, or a wrong or missing token";

/// The private opcode of a `sign_on` that asks to follow the referee's
/// journal from a byte offset (`Journal 0`) instead of playing: a standby
/// referee's ([`super::standby`]).
pub const JOURNAL_OPCODE: &str = "Journal";

/// The longest EPD string operand (§5.1: less than 256 bytes).
const MAX_STRING: usize = 255;

/// Why a line is not a record of this protocol.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// Longer than §4 allows.
    #[error("record is {0} bytes long (at most 4096)")]
    TooLong(usize),
    /// Not an EPD record (the first problem, with its column).
    #[error("not an EPD record: {0}")]
    NotEpd(String),
    /// A client record without `refreq`, or a referee record without `refcom`.
    #[error("no {0} operation")]
    Missing(&'static str),
    /// Operations that exclude each other.
    #[error("{0} and {1} on one record")]
    Conflict(&'static str, &'static str),
}

/// A supplied move as a client sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SuppliedMove {
    /// A legal move in the record's position.
    Legal(Move),
    /// Not a legal move there (the text as sent).
    Illegal(String),
}

/// A record the referee sends.
#[derive(Clone, Debug, PartialEq)]
pub struct RefereeRecord {
    /// The command (`refcom`).
    pub command: Command,
    /// The position, with its halfmove clock and fullmove number.
    pub position: Position,
    /// The en passant square the record writes: the position's own (kept
    /// only where a capture is legal) unless [`RefereeRecord::reached_by`]
    /// gives the one §4.4 writes after every double pawn advance.
    pub ep_square: Option<Square>,
    /// Time used by White and Black (`cc`), while a game runs.
    pub cc: Option<[Duration; 2]>,
    /// The opponent's last move, played from `position` (`sm`).
    pub sm: Option<Move>,
    /// The opponent offered a draw with `sm` (`draw_offer`).
    pub draw_offer: bool,
    /// PGN tag pairs (`ptp`).
    pub tags: Vec<(String, String)>,
    /// The receiver: address and player name (`tcri`).
    pub receiver: Option<(String, String)>,
    /// Why (a fault, a conclusion), as the comment `c0`.
    pub note: Option<String>,
    /// Every other operation, kept.
    pub other: Vec<Operation>,
}

/// A record a client sends.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientRecord {
    /// The request (`refreq`).
    pub request: Request,
    /// The position, with the halfmove clock and fullmove number of `hmvc`
    /// and `fmvn` where the record carries usable ones (0 and 1 otherwise,
    /// which say nothing: see [`ClientRecord::is_on`]).
    pub position: Position,
    /// The halfmove clock as the record wrote it (`hmvc`), `None` when it
    /// wrote none.
    pub hmvc: Option<i32>,
    /// The fullmove number as the record wrote it (`fmvn`), `None` when it
    /// wrote none.
    pub fmvn: Option<i32>,
    /// The client's move from `position` (`sm`).
    pub sm: Option<SuppliedMove>,
    /// A draw offer, claim, rejection, acceptance or resignation.
    pub offer: Option<Offer>,
    /// The sender: address and player name (`tcsi`).
    pub sender: Option<(String, String)>,
    /// The player's secret (`Token`, private).
    pub token: Option<String>,
    /// A comment (`c0`), e.g. the nature of a client fault.
    pub note: Option<String>,
    /// Every other operation, kept.
    pub other: Vec<Operation>,
}

fn is_acd(op: &Operation) -> bool {
    matches!(op, Operation::Raw { opcode, .. } if opcode == "acd")
}

/// A string operand made safe: printing ASCII only, under 256 bytes.
pub fn epd_string(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if (' '..='~').contains(&c) { c } else { '?' })
        .collect();
    out.truncate(MAX_STRING);
    out
}

/// Text that came from a client (or a referee), made safe to print on a
/// terminal or write in a log: control characters, line breaks included
/// (C0, DEL, C1), and the bidirectional controls that reorder what a
/// terminal shows become escapes (`\n`, `\r`, `\t`, `\x1b`, `\u{202e}`).
/// Everything else is kept (a backslash too: a log line is an EPD record,
/// whose strings escape quotes with it). The one escaping function for
/// whatever the referee, `referee connect` and their logs show.
///
/// ```
/// use rookery_argus::protocol::printable;
/// assert_eq!(printable("\x1b[2Jgame 1 over\r\n"), "\\x1b[2Jgame 1 over\\r\\n");
/// assert_eq!(printable("Rook\u{e9}ry"), "Rook\u{e9}ry");
/// ```
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) && u32::from(c) < 0x80 => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

fn cc_op(used: [Duration; 2]) -> Operation {
    let clock = |d: Duration| {
        Clock::from_seconds(d.as_secs()).unwrap_or(Clock {
            days: 999,
            hours: 23,
            minutes: 59,
            seconds: 59,
        })
    };
    Operation::Cc(clock(used[0]), clock(used[1]))
}

/// Ends a record: its comment, the operations it carries through, and the
/// operations in their canonical order.
fn finish(mut rec: Record, note: Option<&str>, other: &[Operation]) -> String {
    if let Some(n) = note {
        rec.push(Operation::Comment(0, Some(epd_string(n))));
    }
    for op in other {
        rec.set(op.clone());
    }
    rec.sort_operations();
    rec.to_string()
}

/// The en passant target square of §4.4 for `after`, reached by `m`: the
/// square a pawn passed over in a double advance, whether or not a capture
/// there is possible.
fn double_advance_square(after: &Position, m: Move) -> Option<Square> {
    let (from, to) = (m.from(), m.to());
    let pawn = after.piece_at(to).is_some_and(|p| p.role == Role::Pawn);
    let two_ranks = from.file() == to.file()
        && from.rank().index().abs_diff(to.rank().index()) == 2
        && m.kind() == MoveKind::Normal;
    // Both squares are on the board: so is the one between them.
    (pawn && two_ranks).then(|| Square::new((from.index() as u32 + to.index() as u32) / 2))
}

/// `line` with its fourth data field (the en passant square) set to `sq`.
fn with_ep_field(line: String, sq: Square) -> String {
    let mut fields: Vec<&str> = line.splitn(5, ' ').collect();
    let text = sq.to_string();
    match fields.get_mut(3) {
        Some(f) => {
            *f = &text;
            fields.join(" ")
        }
        None => line,
    }
}

impl RefereeRecord {
    /// A command on `position`, nothing else.
    pub fn new(command: Command, position: Position) -> RefereeRecord {
        RefereeRecord {
            command,
            ep_square: position.ep_square(),
            position,
            cc: None,
            sm: None,
            draw_offer: false,
            tags: Vec::new(),
            receiver: None,
            note: None,
            other: Vec::new(),
        }
    }

    /// Notes the move that reached `position`, if known: after a double
    /// pawn advance the record writes the en passant square, even where no
    /// capture is possible (§4.4: "given if and only if the last move was a
    /// pawn advance of two squares").
    pub fn reached_by(mut self, m: Option<Move>) -> RefereeRecord {
        self.ep_square = m
            .and_then(|m| double_advance_square(&self.position, m))
            .or(self.position.ep_square());
        self
    }

    /// The record as an EPD line (operations in ASCII order, no line end).
    pub fn to_line(&self) -> String {
        let mut rec = Record::with_clocks(self.position.clone());
        rec.push(Operation::Refcom(self.command));
        if let Some(used) = self.cc {
            rec.push(cc_op(used));
        }
        if let Some(m) = self.sm {
            rec.push(Operation::Sm(m));
        }
        if self.draw_offer {
            rec.push(Operation::DrawOffer);
        }
        if !self.tags.is_empty() {
            rec.push(Operation::Ptp(
                self.tags
                    .iter()
                    .filter_map(|(k, v)| {
                        rookery_epd::Identifier::from_ascii(k.as_bytes())
                            .ok()
                            .map(|k| (k, epd_string(v)))
                    })
                    .collect(),
            ));
        }
        if let Some((a, n)) = &self.receiver {
            rec.push(Operation::Tcri(epd_string(a), epd_string(n)));
        }
        let line = finish(rec, self.note.as_deref(), &self.other);
        // `Record` writes the position's own square: §4.4's goes in its place.
        match self.ep_square {
            Some(sq) if self.position.ep_square() != Some(sq) => with_ep_field(line, sq),
            _ => line,
        }
    }

    /// Reads a referee record (what a client does).
    ///
    /// # Errors
    /// [`ProtocolError`] for a line that is too long, not EPD or has no
    /// `refcom`.
    pub fn parse(line: &[u8]) -> Result<RefereeRecord, ProtocolError> {
        let (rec, _) = read(line)?;
        let mut out = RefereeRecord::new(Command::Fault, rec.position_with_clocks());
        // The square as written (§4.4: possibly one no capture can use).
        out.ep_square = rookery_core::Setup::from_epd_prefix(line, rookery_core::Mode::Lenient)
            .ok()
            .and_then(|(setup, _)| setup.ep_square)
            .map(|(sq, _)| sq);
        let mut command = None;
        for op in rec.operations() {
            match op {
                Operation::Refcom(c) => command = Some(*c),
                Operation::Cc(w, b) => {
                    out.cc = Some([
                        Duration::from_secs(w.as_seconds()),
                        Duration::from_secs(b.as_seconds()),
                    ])
                }
                Operation::Sm(m) => out.sm = Some(*m),
                Operation::DrawOffer => out.draw_offer = true,
                Operation::Ptp(tags) => {
                    out.tags = tags
                        .iter()
                        .map(|(k, v)| (k.as_str().to_string(), v.clone()))
                        .collect()
                }
                Operation::Tcri(a, n) => out.receiver = Some((a.clone(), n.clone())),
                Operation::Comment(0, n) => out.note = n.clone(),
                Operation::Hmvc(_) | Operation::Fmvn(_) => {}
                other => out.other.push(other.clone()),
            }
        }
        out.command = command.ok_or(ProtocolError::Missing("refcom"))?;
        Ok(out)
    }

    /// The tag `name` of `ptp`, if sent.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

impl ClientRecord {
    /// A request on `position` with its halfmove clock and fullmove number
    /// (`hmvc`, `fmvn`), nothing else.
    pub fn new(request: Request, position: Position) -> ClientRecord {
        ClientRecord {
            request,
            hmvc: Some(i32::try_from(position.halfmoves()).unwrap_or(i32::MAX)),
            fmvn: Some(i32::try_from(position.fullmoves()).unwrap_or(i32::MAX)),
            position,
            sm: None,
            offer: None,
            sender: None,
            token: None,
            note: None,
            other: Vec::new(),
        }
    }

    /// Whether the record is on `pos` as §8.1 compares positions: the four
    /// data fields, and the halfmove clock and fullmove number only where
    /// the record carries them (a client keeps its own, and EPD records
    /// usually leave them out). An en passant square is compared as the
    /// legal moves see it: one written where no capture is possible (§4.4
    /// writes it after every double advance) is the same as none.
    pub fn is_on(&self, pos: &Position) -> bool {
        // `Position` keeps an en passant square only where a capture is
        // legal, so equal positions are equal as the legal moves see them.
        let mut mine = self.position.clone();
        mine.set_clocks(pos.halfmoves(), pos.fullmoves());
        let same_clock = |written: Option<i32>, kept: u32| {
            written.is_none_or(|w| i64::from(w) == i64::from(kept))
        };
        mine == *pos
            && same_clock(self.hmvc, pos.halfmoves())
            && same_clock(self.fmvn, pos.fullmoves())
    }

    /// The position as the record gave it: the four data fields, then
    /// `hmvc` and `fmvn` where it carries them.
    pub fn position_text(&self) -> String {
        let mut rec = Record::new(self.position.clone());
        self.push_clocks(&mut rec);
        rec.sort_operations();
        rec.to_string()
    }

    fn push_clocks(&self, rec: &mut Record) {
        if let Some(f) = self.fmvn {
            rec.push(Operation::Fmvn(f));
        }
        if let Some(h) = self.hmvc {
            rec.push(Operation::Hmvc(h));
        }
    }

    /// The supplied move in SAN, legal or not.
    pub fn sm_san(&self) -> Option<String> {
        match &self.sm {
            Some(SuppliedMove::Legal(m)) => Some(rookery_pgn_san(&self.position, *m)),
            Some(SuppliedMove::Illegal(t)) => Some(t.clone()),
            None => None,
        }
    }

    /// Adds what the engine said about its move, as EPD says it: `ce` (the
    /// score for the side to move, which is the mover: §6.7, mates as
    /// 32767 − plies), `acd` (depth) and `acn` (nodes). The referee shows
    /// them to spectators and writes them into the PGN ([`Self::search`]).
    pub fn set_search(&mut self, score: Option<Score>, depth: Option<u32>, nodes: Option<u64>) {
        self.other
            .retain(|op| !matches!(op, Operation::Ce(_) | Operation::Acn(_)) && !is_acd(op));
        if let Some(s) = score {
            self.other.push(Operation::Ce(s.ce()));
        }
        if let Some(d) = depth {
            self.other.push(Operation::Raw {
                opcode: "acd".into(),
                operands: vec![RawOperand::Token(d.to_string())],
            });
        }
        if let Some(n) = nodes {
            self.other.push(Operation::Acn(n));
        }
    }

    /// The score, depth and nodes a client sent with its move (`ce`, `acd`,
    /// `acn`; see [`Self::set_search`]); an unreadable one counts as absent.
    pub fn search(&self) -> (Option<Score>, Option<u32>, Option<u64>) {
        let (mut score, mut depth, mut nodes) = (None, None, None);
        for op in &self.other {
            match op {
                Operation::Ce(c) if (-32767..=32766).contains(c) => {
                    score = Some(Score::from_ce(*c));
                }
                Operation::Acn(n) => nodes = Some(*n),
                Operation::Raw { opcode, operands } if opcode == "acd" => {
                    if let [RawOperand::Token(t)] = operands.as_slice() {
                        depth = t.parse().ok();
                    }
                }
                _ => {}
            }
        }
        (score, depth, nodes)
    }

    /// The record as an EPD line (operations in ASCII order, no line end).
    /// An illegal supplied move cannot be written as a typed `sm`; it is
    /// written verbatim.
    pub fn to_line(&self) -> String {
        let mut rec = Record::new(self.position.clone());
        self.push_clocks(&mut rec);
        rec.push(Operation::Refreq(self.request));
        match &self.sm {
            Some(SuppliedMove::Legal(m)) => rec.push(Operation::Sm(*m)),
            Some(SuppliedMove::Illegal(t)) => rec.push(Operation::Raw {
                opcode: "sm".into(),
                operands: vec![RawOperand::Token(t.clone())],
            }),
            None => {}
        }
        if let Some(o) = self.offer {
            rec.push(match o {
                Offer::Draw => Operation::DrawOffer,
                Offer::Claim => Operation::DrawClaim,
                Offer::Reject => Operation::DrawReject,
                Offer::Accept => Operation::DrawAccept,
                Offer::Resign => Operation::Resign,
            });
        }
        if let Some((a, n)) = &self.sender {
            rec.push(Operation::Tcsi(epd_string(a), epd_string(n)));
        }
        if let Some(t) = &self.token {
            rec.push(Operation::Raw {
                opcode: TOKEN_OPCODE.into(),
                operands: vec![RawOperand::Quoted(epd_string(t))],
            });
        }
        finish(rec, self.note.as_deref(), &self.other)
    }

    /// Reads a client record (what the referee does). A supplied move that
    /// is not legal in the position does not make the record unreadable: it
    /// is kept as [`SuppliedMove::Illegal`] for the referee to judge.
    ///
    /// # Errors
    /// [`ProtocolError`] for a line that is too long, not EPD, has no
    /// `refreq` or carries operations that exclude each other.
    pub fn parse(line: &[u8]) -> Result<ClientRecord, ProtocolError> {
        let (rec, illegal) = read(line)?;
        let mut out = ClientRecord::new(Request::Fault, rec.position_with_clocks());
        out.hmvc = rec.hmvc();
        out.fmvn = rec.fmvn();
        let mut request = None;
        out.sm = illegal.map(SuppliedMove::Illegal);
        let mut offers: Vec<(&'static str, Offer)> = Vec::new();
        for op in rec.operations() {
            match op {
                Operation::Refreq(r) => request = Some(*r),
                Operation::Sm(m) => out.sm = Some(SuppliedMove::Legal(*m)),
                Operation::DrawOffer => offers.push(("draw_offer", Offer::Draw)),
                Operation::DrawClaim => offers.push(("draw_claim", Offer::Claim)),
                Operation::DrawReject => offers.push(("draw_reject", Offer::Reject)),
                Operation::DrawAccept => offers.push(("draw_accept", Offer::Accept)),
                Operation::Resign => offers.push(("resign", Offer::Resign)),
                Operation::Tcsi(a, n) => out.sender = Some((a.clone(), n.clone())),
                Operation::Raw { opcode, operands }
                    if opcode == TOKEN_OPCODE && operands.len() == 1 =>
                {
                    out.token = Some(operands[0].text().to_string())
                }
                Operation::Comment(0, n) => out.note = n.clone(),
                Operation::Hmvc(_) | Operation::Fmvn(_) => {}
                other => out.other.push(other.clone()),
            }
        }
        // §6.9-6.12, §6.25: resign excludes every draw opcode; accept
        // excludes reject, offer excludes claim.
        if let [(a, _), (b, _), ..] = offers[..] {
            return Err(ProtocolError::Conflict(a, b));
        }
        out.offer = offers.first().map(|&(_, o)| o);
        out.request = request.ok_or(ProtocolError::Missing("refreq"))?;
        Ok(out)
    }
}

fn rookery_pgn_san(pos: &Position, m: Move) -> String {
    rookery_game::record::san_of(pos, m)
}

/// Reads one line as an EPD record. A record whose only errors are an
/// unreadable `sm` move is read without it, and the move's text returned.
fn read(line: &[u8]) -> Result<(Record, Option<String>), ProtocolError> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() > MAX_RECORD {
        return Err(ProtocolError::TooLong(line.len()));
    }
    let first_error = |d: &[Diagnostic]| {
        d.iter().find(|d| d.is_error()).map_or_else(
            || "unreadable".to_string(),
            |d| format!("column {}: {}", d.column, d.problem),
        )
    };
    match Record::parse(line, Mode::Lenient) {
        Ok((rec, _)) => Ok((rec, None)),
        Err(e) => {
            let errors: Vec<&Diagnostic> = e.diagnostics.iter().filter(|d| d.is_error()).collect();
            let only_sm = errors.len() == 1
                && matches!(&errors[0].problem, Problem::BadMove { opcode, .. } if opcode == "sm");
            if !only_sm {
                return Err(ProtocolError::NotEpd(first_error(&e.diagnostics)));
            }
            // Cut `sm TEXT;` out: the diagnostic points at TEXT.
            let at = (errors[0].column as usize)
                .saturating_sub(1)
                .min(line.len());
            let end = line[at..]
                .iter()
                .position(|&c| c == b';' || c == b' ')
                .map_or(line.len(), |i| at + i);
            let text = String::from_utf8_lossy(&line[at..end]).into_owned();
            let op_start = line[..at]
                .windows(2)
                .rposition(|w| w == b"sm")
                .ok_or_else(|| ProtocolError::NotEpd(first_error(&e.diagnostics)))?;
            let op_end = if line.get(end) == Some(&b';') {
                end + 1
            } else {
                end
            };
            let mut rest = line[..op_start].to_vec();
            rest.extend_from_slice(&line[op_end..]);
            match Record::parse(&rest, Mode::Lenient) {
                Ok((rec, _)) => Ok((rec, Some(epd_string(&text)))),
                Err(e) => Err(ProtocolError::NotEpd(first_error(&e.diagnostics))),
            }
        }
    }
}

/// A log line for a line received that is not a record: an EPD record (of
/// the standard start position, which stands for nothing) whose `c0`
/// carries the start of the text and private operations its length and why.
pub fn unreadable_as_record(line: &[u8], why: &str) -> Record {
    let mut rec = Record::new(Position::startpos());
    let text = String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned();
    rec.push(Operation::Comment(0, Some(epd_string(&text))));
    rec.push(Operation::Comment(1, Some(epd_string(why))));
    rec.push(Operation::Raw {
        opcode: "Length".into(),
        operands: vec![RawOperand::Token(line.len().to_string())],
    });
    rec
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::San;

    fn after(moves: &[&str]) -> Position {
        let mut p = Position::startpos();
        for m in moves {
            let mv = m.parse::<San>().unwrap().to_move(&p).unwrap();
            p.play_unchecked(mv);
        }
        p
    }

    #[test]
    fn a_respond_record_carries_everything_and_reads_back() {
        let pos = after(&["e4", "e5", "Nf3"]);
        let m = "Nc6".parse::<San>().unwrap().to_move(&pos).unwrap();
        let mut r = RefereeRecord::new(Command::Respond, pos.clone());
        r.cc = Some([Duration::from_millis(61_900), Duration::from_secs(3725)]);
        r.sm = Some(m);
        r.draw_offer = true;
        r.receiver = Some(("127.0.0.1:5000".into(), "Alpha".into()));
        let line = r.to_line();
        assert_eq!(
            line,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - \
             cc 000:00:01:01 000:01:02:05; draw_offer; fmvn 2; hmvc 1; refcom respond; sm Nc6; \
             tcri \"127.0.0.1:5000\" \"Alpha\";"
        );
        let back = RefereeRecord::parse(line.as_bytes()).unwrap();
        assert_eq!(back.command, Command::Respond);
        assert_eq!(back.sm, Some(m));
        assert!(back.draw_offer);
        assert_eq!(
            back.cc,
            Some([Duration::from_secs(61), Duration::from_secs(3725)])
        );
        assert_eq!(back.position.halfmoves(), 1);
        assert_eq!(back.position.fullmoves(), 2);
        assert_eq!(back.receiver, r.receiver);
        // Every line is strictly valid EPD.
        let (rec, warnings) = Record::parse(line.as_bytes(), Mode::Strict).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(rec.validate(Mode::Strict).is_empty());
    }

    #[test]
    fn sign_on_reads_name_and_token_and_keeps_unknown_operations() {
        let line =
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - Hello world; Token \"s3cret\"; \
                    id \"x\"; refreq sign_on; tcsi \"here\" \"Alpha\";";
        let r = ClientRecord::parse(line.as_bytes()).unwrap();
        assert_eq!(r.request, Request::SignOn);
        assert_eq!(r.token.as_deref(), Some("s3cret"));
        assert_eq!(r.sender, Some(("here".into(), "Alpha".into())));
        assert_eq!(r.other.len(), 2, "{:?}", r.other);
        let again = ClientRecord::parse(r.to_line().as_bytes()).unwrap();
        assert_eq!(again, r);
    }

    #[test]
    fn replies_with_offers_and_exclusions() {
        let pos = after(&["e4"]);
        let base = Record::with_clocks(pos.clone()).to_string();
        let r = ClientRecord::parse(format!("{base} draw_offer; refreq reply; sm e5;").as_bytes())
            .unwrap();
        assert_eq!(r.offer, Some(Offer::Draw));
        assert_eq!(r.sm_san().as_deref(), Some("e5"));
        let r = ClientRecord::parse(format!("{base} refreq reply; resign;").as_bytes()).unwrap();
        assert_eq!((r.offer, r.sm), (Some(Offer::Resign), None));
        assert_eq!(
            ClientRecord::parse(
                format!("{base} draw_offer; refreq reply; resign; sm e5;").as_bytes()
            ),
            Err(ProtocolError::Conflict("draw_offer", "resign"))
        );
        assert_eq!(
            ClientRecord::parse(format!("{base} sm e5;").as_bytes()),
            Err(ProtocolError::Missing("refreq"))
        );
    }

    #[test]
    fn an_illegal_move_is_kept_not_a_parse_error() {
        let pos = after(&["e4"]);
        let base = Record::with_clocks(pos).to_string();
        let r = ClientRecord::parse(format!("{base} refreq reply; sm Ke5;").as_bytes()).unwrap();
        assert_eq!(r.request, Request::Reply);
        assert_eq!(r.sm, Some(SuppliedMove::Illegal("Ke5".into())));
        let r = ClientRecord::parse(format!("{base} sm Qxh9; refreq reply;").as_bytes()).unwrap();
        assert_eq!(r.sm, Some(SuppliedMove::Illegal("Qxh9".into())));
        // Still an error when something else is wrong too.
        assert!(
            ClientRecord::parse(format!("{base} refreq reply; sm Ke5; acn x;").as_bytes()).is_err()
        );
    }

    #[test]
    fn long_lines_and_garbage_are_errors() {
        let long = format!(
            "{} refreq reply; c0 \"{}\";",
            Record::new(Position::startpos()),
            "x".repeat(4100)
        );
        assert!(matches!(
            ClientRecord::parse(long.as_bytes()),
            Err(ProtocolError::TooLong(_))
        ));
        for bad in [
            &b"hello"[..],
            b"",
            b"\xff\xfe",
            b"8/8/8/8/8/8/8/8 w - - refreq reply;",
        ] {
            assert!(
                matches!(ClientRecord::parse(bad), Err(ProtocolError::NotEpd(_))),
                "{bad:?}"
            );
        }
        let rec = unreadable_as_record(b"\x01garbage \"quoted\"", "not EPD");
        let line = rec.to_string();
        assert!(
            Record::parse(line.as_bytes(), Mode::Lenient).is_ok(),
            "{line}"
        );
    }

    #[test]
    fn a_reply_is_compared_on_its_four_fields_and_the_clocks_it_carries() {
        // After 1. Nf3 Nf6 2. Ng1: halfmove clock 3, fullmove number 2.
        let game = after(&["Nf3", "Nf6", "Ng1"]);
        let four = Record::new(game.clone()).to_string();
        let read = |ops: &str| ClientRecord::parse(format!("{four} {ops}").as_bytes()).unwrap();
        // No clocks: the four fields alone (what a client following §8.1 sends).
        let bare = read("refreq reply; sm Ng8;");
        assert_eq!((bare.hmvc, bare.fmvn), (None, None));
        assert!(bare.is_on(&game));
        assert_eq!(bare.to_line(), format!("{four} refreq reply; sm Ng8;"));
        // Right clocks, or only one of them and right: on the position.
        assert!(read("fmvn 2; hmvc 3; refreq reply;").is_on(&game));
        assert!(read("hmvc 3; refreq reply;").is_on(&game));
        assert!(read("fmvn 2; refreq reply;").is_on(&game));
        // A clock it carries and gets wrong: not on it, nor one out of range.
        assert!(!read("fmvn 2; hmvc 0; refreq reply;").is_on(&game));
        assert!(!read("fmvn 1; refreq reply;").is_on(&game));
        assert!(!read("hmvc -3; refreq reply;").is_on(&game));
        let hmvc = read("hmvc 3; refreq reply;");
        assert_eq!(hmvc.position_text(), format!("{four} hmvc 3;"));
        // Other fields: another side to move, other castling rights.
        let other = after(&["Nf3", "Nf6"]);
        let wrong = Record::new(other).to_string();
        let rec = ClientRecord::parse(format!("{wrong} refreq reply;").as_bytes()).unwrap();
        assert!(!rec.is_on(&game));
    }

    #[test]
    fn an_en_passant_square_is_compared_as_the_legal_moves_see_it() {
        // 1. e4: §4.4 writes e3, though no black pawn can take.
        let game = after(&["e4"]);
        let with = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 refreq reply; sm e5;";
        let without = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - refreq reply; sm e5;";
        for line in [with, without] {
            assert!(
                ClientRecord::parse(line.as_bytes()).unwrap().is_on(&game),
                "{line}"
            );
        }
        // Where a capture is possible the square matters.
        let game = after(&["e4", "a6", "e5", "d5"]);
        let fields = "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq";
        let on = |ep: &str| {
            ClientRecord::parse(format!("{fields} {ep} fmvn 3; hmvc 0; refreq reply;").as_bytes())
                .unwrap()
                .is_on(&game)
        };
        assert!(on("d6"));
        assert!(!on("-"));
    }

    #[test]
    fn the_referee_writes_the_en_passant_square_after_every_double_advance() {
        let before = after(&[]);
        let e4 = "e4".parse::<San>().unwrap().to_move(&before).unwrap();
        let pos = after(&["e4"]);
        assert_eq!(double_advance_square(&pos, e4), "e3".parse().ok());
        let r = RefereeRecord::new(Command::Conclude, pos.clone()).reached_by(Some(e4));
        let line = r.to_line();
        assert!(
            line.starts_with(
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 fmvn 1; hmvc 0;"
            ),
            "{line}"
        );
        let (rec, warnings) = Record::parse(line.as_bytes(), Mode::Strict).unwrap();
        assert!(warnings.is_empty() && rec.validate(Mode::Strict).is_empty());
        assert_eq!(RefereeRecord::parse(line.as_bytes()).unwrap(), r);
        // No square after another move, nor when the move is not known.
        let nf3 = after(&["Nf3"]);
        let m = "Nf3".parse::<San>().unwrap().to_move(&before).unwrap();
        assert_eq!(double_advance_square(&nf3, m), None);
        let line = RefereeRecord::new(Command::Conclude, nf3)
            .reached_by(Some(m))
            .to_line();
        assert!(line.contains(" b KQkq - "), "{line}");
        let line = RefereeRecord::new(Command::Conclude, pos)
            .reached_by(None)
            .to_line();
        assert!(line.contains(" b KQkq - "), "{line}");
        // A single advance, and a double one by Black.
        let e3 = after(&["e3"]);
        let m = "e3".parse::<San>().unwrap().to_move(&before).unwrap();
        assert_eq!(double_advance_square(&e3, m), None);
        let c5 = after(&["e4", "c5"]);
        let m = "c5"
            .parse::<San>()
            .unwrap()
            .to_move(&after(&["e4"]))
            .unwrap();
        assert_eq!(double_advance_square(&c5, m), "c6".parse().ok());
    }

    #[test]
    fn inform_tags_round_trip() {
        let mut r = RefereeRecord::new(Command::Inform, Position::startpos());
        r.tags = vec![
            ("Event".into(), "Test \"quoted\"".into()),
            ("TimeControl".into(), "40/60+0.6".into()),
        ];
        let back = RefereeRecord::parse(r.to_line().as_bytes()).unwrap();
        assert_eq!(back.tag("Event"), Some("Test \"quoted\""));
        assert_eq!(back.tag("TimeControl"), Some("40/60+0.6"));
    }
}
