//! Reading and writing move operands against a position, without allocating:
//! one legal-move list per position is enough to resolve every SAN operand
//! of a record, and canonical SAN is written into a small stack buffer.

use rookery_core::attacks::{aligned, attacks, between, pawn_attacks};
use rookery_core::{
    Bitboard, CastlingSide, Color, Move, MoveKind, MoveList, Position, Rank, Role, San, SanPlus,
    Square, UciMove,
};

/// A short text on the stack (a SAN move is at most 7 bytes, e.g. `Qh4xe1#`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SanBuf {
    len: u8,
    bytes: [u8; 15],
}

impl SanBuf {
    fn push(&mut self, c: u8) {
        if usize::from(self.len) < self.bytes.len() {
            self.bytes[usize::from(self.len)] = c;
            self.len += 1;
        }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII is ever pushed.
        core::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

/// The legal moves of one position, generated on first use.
pub(crate) struct Legal {
    list: MoveList,
    ready: bool,
}

impl Legal {
    pub(crate) fn new() -> Legal {
        Legal {
            list: MoveList::new(),
            ready: false,
        }
    }

    pub(crate) fn reset(&mut self) {
        self.ready = false;
    }

    fn get(&mut self, pos: &Position) -> &MoveList {
        if !self.ready {
            self.list.clear();
            pos.legal_moves_into(&mut self.list);
            self.ready = true;
        }
        &self.list
    }
}

/// Why a move operand could not be read, and how it was written.
pub(crate) enum MoveRead {
    /// Canonical SAN (suffixes aside).
    San(Move),
    /// A legal move written otherwise (UCI, long algebraic, lower-case
    /// promotion, extra disambiguation...): the canonical SAN is given.
    NotSan(Move, SanBuf),
    /// Not a move here; the reason.
    Bad(String),
}

fn is_uci_shape(t: &[u8]) -> bool {
    (t.len() == 4 || t.len() == 5)
        && (b'a'..=b'h').contains(&t[0])
        && (b'1'..=b'8').contains(&t[1])
        && (b'a'..=b'h').contains(&t[2])
        && (b'1'..=b'8').contains(&t[3])
        && (t.len() == 4 || matches!(t[4], b'q' | b'r' | b'b' | b'n' | b'Q' | b'R' | b'B' | b'N'))
}

/// Strips `+`, `#`, `!` and `?` from the end.
fn strip_suffix(mut t: &[u8]) -> &[u8] {
    while let [rest @ .., b'+' | b'#' | b'!' | b'?'] = t {
        t = rest;
    }
    t
}

/// Resolves a move operand as written.
pub(crate) fn read_move(pos: &Position, legal: &mut Legal, text: &[u8]) -> MoveRead {
    if is_uci_shape(text) {
        return match UciMove::from_ascii(text).map(|u| u.to_move(pos)) {
            Ok(Ok(m)) => MoveRead::NotSan(m, san_text(pos, m, true)),
            Ok(Err(e)) => MoveRead::Bad(e.to_string()),
            Err(e) => MoveRead::Bad(e.to_string()),
        };
    }
    let san = match SanPlus::from_ascii(text) {
        Ok(sp) => sp.san,
        Err(e) => return MoveRead::Bad(e.to_string()),
    };
    if let Some((m, canonical)) = fast_resolve(pos, san) {
        return if canonical.as_bytes() == strip_suffix(text) {
            MoveRead::San(m)
        } else {
            MoveRead::NotSan(m, san_text(pos, m, true))
        };
    }
    let found = match san {
        San::Castle(side) => {
            let mut hit = None;
            for &m in legal.get(pos).iter() {
                if m.is_castle() && castle_side(m) == side {
                    hit = Some(m);
                }
            }
            hit
        }
        San::Normal {
            role,
            file,
            rank,
            to,
            promotion,
            ..
        } => {
            let mut hit = None;
            let mut count = 0;
            for &m in legal.get(pos).iter() {
                if m.to() == to
                    && !m.is_castle()
                    && m.promotion() == promotion
                    && file.is_none_or(|f| f == m.from().file())
                    && rank.is_none_or(|r| r == m.from().rank())
                    && pos.role_at(m.from()) == Some(role)
                {
                    hit = Some(m);
                    count += 1;
                }
            }
            if count == 1 {
                hit
            } else {
                None
            }
        }
        San::Null => None,
    };
    let m = match found {
        Some(m) => m,
        // The core reader knows the odd cases (a king move written for
        // castling) and words the errors.
        None => match san.to_move(pos) {
            Ok(m) => m,
            Err(e) => return MoveRead::Bad(e.to_string()),
        },
    };
    let canonical = san_text_with(pos, m, false, Some(legal.get(pos)));
    if canonical.as_bytes() == strip_suffix(text) {
        MoveRead::San(m)
    } else {
        MoveRead::NotSan(m, san_text(pos, m, true))
    }
}

/// What limits the moves of pieces other than the king: checkers and pins.
struct Checks {
    king: Square,
    checkers: Bitboard,
    pinned: Bitboard,
}

impl Checks {
    fn new(pos: &Position) -> Checks {
        Checks {
            king: pos.king(pos.turn()),
            checkers: pos.checkers(),
            pinned: pos.pinned(),
        }
    }

    /// Whether a piece (not the king) of the side to move may go from `from`
    /// to `to`, given that it can reach `to` on an empty board and `to` holds
    /// no piece of its own (en passant excluded).
    fn allows(&self, pos: &Position, from: Square, to: Square) -> bool {
        if pos.by_color(pos.turn()).contains(to) {
            return false;
        }
        if self.pinned.contains(from) && !aligned(self.king, from, to) {
            return false;
        }
        match self.checkers.single_square() {
            None if self.checkers.nonempty() => false,
            None => true,
            Some(checker) => to == checker || between(self.king, checker).contains(to),
        }
    }
}

/// Resolves a piece or pawn move (not the king, not en passant, not in
/// double check) from attack tables, pins and checks, without generating
/// every legal move. Returns the move and its canonical SAN (no suffix);
/// `None` when the slow path must decide (including every error).
fn fast_resolve(pos: &Position, san: San) -> Option<(Move, SanBuf)> {
    let San::Normal {
        role,
        file,
        rank,
        to,
        promotion,
        ..
    } = san
    else {
        return None;
    };
    if role == Role::King || pos.checkers().more_than_one() {
        return None;
    }
    let us = pos.turn();
    let occ = pos.occupied();
    let theirs = pos.by_color(us.other());
    let mut origins = match role {
        Role::Pawn => {
            if Some(to) == pos.ep_square() {
                return None;
            }
            let mut o = Bitboard::EMPTY;
            if theirs.contains(to) {
                o = pawn_attacks(us.other(), to) & pos.pieces(us, Role::Pawn);
            } else if !occ.contains(to) {
                let back = if us == Color::White { -8 } else { 8 };
                if let Some(one) = to.offset(back) {
                    if pos.pieces(us, Role::Pawn).contains(one) {
                        o = o.with(one);
                    } else if !occ.contains(one) && to.rank() == Rank::Fourth.relative_to(us) {
                        if let Some(two) = one.offset(back) {
                            if pos.pieces(us, Role::Pawn).contains(two) {
                                o = o.with(two);
                            }
                        }
                    }
                }
            }
            o
        }
        _ => attacks(us, role, to, occ) & pos.pieces(us, role),
    };
    let checks = Checks::new(pos);
    origins = origins.filter(|&o| checks.allows(pos, o, to)).collect();
    let chosen: Bitboard = origins
        .filter(|o| file.is_none_or(|f| f == o.file()) && rank.is_none_or(|r| r == o.rank()))
        .collect();
    let from = chosen.single_square()?;
    let last_rank = role == Role::Pawn && to.rank() == Rank::Eighth.relative_to(us);
    let m = match (last_rank, promotion) {
        (true, Some(p @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen))) => {
            Move::new(from, to, MoveKind::Promotion(p))
        }
        (false, None) => Move::normal(from, to),
        _ => return None,
    };
    // Canonical SAN from the same facts.
    let mut b = SanBuf::default();
    let capture = theirs.contains(to);
    if role == Role::Pawn {
        if capture {
            b.push(from.file().char() as u8);
        }
    } else {
        b.push(role.upper_char() as u8);
        let others = origins.without(from);
        if others.nonempty() {
            let file_clash = others.intersects(Bitboard::file(from.file()));
            let rank_clash = others.intersects(Bitboard::rank(from.rank()));
            if !file_clash {
                b.push(from.file().char() as u8);
            } else if !rank_clash {
                b.push(from.rank().char() as u8);
            } else {
                b.push(from.file().char() as u8);
                b.push(from.rank().char() as u8);
            }
        }
    }
    if capture {
        b.push(b'x');
    }
    b.push(to.file().char() as u8);
    b.push(to.rank().char() as u8);
    if let Some(p) = m.promotion() {
        b.push(b'=');
        b.push(p.upper_char() as u8);
    }
    Some((m, b))
}

fn castle_side(m: Move) -> CastlingSide {
    if m.to().file() > m.from().file() {
        CastlingSide::KingSide
    } else {
        CastlingSide::QueenSide
    }
}

/// The canonical SAN of a legal move: minimal disambiguation, `x` for
/// captures, `=Q` promotions, and `+`/`#` if `suffix`.
pub(crate) fn san_text(pos: &Position, m: Move, suffix: bool) -> SanBuf {
    san_text_with(pos, m, suffix, None)
}

/// [`san_text`], using the position's legal moves for disambiguation when
/// they are at hand.
fn san_text_with(pos: &Position, m: Move, suffix: bool, legal: Option<&MoveList>) -> SanBuf {
    let mut b = SanBuf::default();
    if m.is_null() {
        b.push(b'-');
        b.push(b'-');
        return b;
    }
    if m.is_castle() {
        for &c in match castle_side(m) {
            CastlingSide::KingSide => b"O-O".as_slice(),
            CastlingSide::QueenSide => b"O-O-O".as_slice(),
        } {
            b.push(c);
        }
    } else {
        let from = m.from();
        let to = m.to();
        let role = pos.role_at(from).unwrap_or(Role::Pawn);
        let capture = pos.is_capture(m);
        if role == Role::Pawn {
            if capture {
                b.push(from.file().char() as u8);
            }
        } else {
            b.push(role.upper_char() as u8);
            if role != Role::King {
                let us = pos.turn();
                let others =
                    (attacks(us, role, to, pos.occupied()) & pos.pieces(us, role)).without(from);
                let mut file_clash = false;
                let mut rank_clash = false;
                let mut any = false;
                for o in others {
                    let legal_move = match legal {
                        Some(list) => list.iter().any(|x| x.from() == o && x.to() == to),
                        None => Checks::new(pos).allows(pos, o, to),
                    };
                    if legal_move {
                        any = true;
                        file_clash |= o.file() == from.file();
                        rank_clash |= o.rank() == from.rank();
                    }
                }
                if any {
                    if !file_clash {
                        b.push(from.file().char() as u8);
                    } else if !rank_clash {
                        b.push(from.rank().char() as u8);
                    } else {
                        b.push(from.file().char() as u8);
                        b.push(from.rank().char() as u8);
                    }
                }
            }
        }
        if capture {
            b.push(b'x');
        }
        b.push(to.file().char() as u8);
        b.push(to.rank().char() as u8);
        if let Some(p) = m.promotion() {
            b.push(b'=');
            b.push(p.upper_char() as u8);
        }
    }
    if suffix && gives_check(pos, m) {
        let after = pos.after(m);
        b.push(if after.has_legal_move() { b'+' } else { b'#' });
    }
    b
}

/// Whether a legal move gives check, without making it: the pieces of the
/// side to move that attack the enemy king once the move is on the board.
fn gives_check(pos: &Position, m: Move) -> bool {
    if m.is_null() || m.is_castle() || m.is_en_passant() {
        // Rare: play it out.
        return pos.after(m).is_check();
    }
    let us = pos.turn();
    let king = pos.king(us.other());
    let (from, to) = (m.from(), m.to());
    let occ = pos.occupied().without(from).with(to);
    let role = m
        .promotion()
        .or_else(|| pos.role_at(from))
        .unwrap_or(Role::Pawn);
    // The moved piece from its new square.
    if attacks(us, role, to, occ).contains(king) {
        return true;
    }
    // Any other piece of ours, through the new occupancy (discovered checks);
    // a captured piece on `to` is theirs and no longer counts.
    (pos.attackers(king, us, occ).without(from).without(to)).nonempty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(fen: &str) {
        let pos = Position::from_fen(fen).unwrap();
        let mut legal = Legal::new();
        for &m in pos.legal_moves().iter() {
            let ours = san_text(&pos, m, true);
            let core = SanPlus::from_move(&pos, m).to_string();
            assert_eq!(ours.as_str(), core, "{fen}");
            match read_move(&pos, &mut legal, core.as_bytes()) {
                MoveRead::San(back) => assert_eq!(back, m),
                _ => panic!("{core} not read back in {fen}"),
            }
        }
    }

    #[test]
    fn san_agrees_with_core() {
        check("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        check("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        check("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
        check("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1");
        check("k7/8/8/8/1Q1Q4/8/1Q1Q4/7K w - - 0 1");
        check("3k4/1P6/8/8/8/8/8/4K2R w K - 0 1");
    }

    /// Every SAN-like text (each role, target, disambiguation, promotion)
    /// resolves to what core's reader says, in positions along random games.
    #[test]
    fn fast_resolution_agrees_with_core() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
            "3k4/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
        ];
        let mut seed = 99u64;
        let mut checked = 0;
        for fen in starts {
            let mut pos = Position::from_fen(fen).unwrap();
            for _ in 0..60 {
                let mut legal = Legal::new();
                for role in "PNBRQ".chars() {
                    for to in Square::all() {
                        for dis in ["", "a", "b", "c", "d", "e", "f", "g", "h", "1", "2", "7"] {
                            for promo in ["", "=Q", "=N"] {
                                let p = if role == 'P' {
                                    String::new()
                                } else {
                                    role.to_string()
                                };
                                let text = format!("{p}{dis}{to}{promo}");
                                let Ok(sp) = SanPlus::from_ascii(text.as_bytes()) else {
                                    continue;
                                };
                                let core = sp.san.to_move(&pos).ok();
                                let ours = match read_move(&pos, &mut legal, text.as_bytes()) {
                                    MoveRead::San(m) | MoveRead::NotSan(m, _) => Some(m),
                                    MoveRead::Bad(_) => None,
                                };
                                assert_eq!(ours, core, "{text} in {}", pos.fen());
                                checked += 1;
                            }
                        }
                    }
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                pos.play_unchecked(moves[(seed >> 33) as usize % moves.len()]);
            }
        }
        assert!(checked > 100_000);
    }

    #[test]
    fn non_san_forms_are_recognised() {
        let pos = Position::startpos();
        let mut legal = Legal::new();
        assert!(
            matches!(read_move(&pos, &mut legal, b"e2e4"), MoveRead::NotSan(_, s) if s.as_str() == "e4")
        );
        assert!(
            matches!(read_move(&pos, &mut legal, b"Ng1-f3"), MoveRead::NotSan(_, s) if s.as_str() == "Nf3")
        );
        assert!(matches!(
            read_move(&pos, &mut legal, b"Nf3+"),
            MoveRead::San(_)
        ));
        assert!(matches!(
            read_move(&pos, &mut legal, b"Nf4"),
            MoveRead::Bad(_)
        ));
        assert!(matches!(
            read_move(&pos, &mut legal, b"e2e5"),
            MoveRead::Bad(_)
        ));
    }
}
