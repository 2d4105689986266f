//! Reading and writing move operands against a position, without
//! allocating. Moves are resolved and written by the core's SAN
//! ([`San::to_move`], [`San::from_move`], [`SanPlus::from_move`]); this
//! module only tells canonical SAN from the other spellings of a move and
//! keeps the text in a small stack buffer.

use core::fmt;

use rookery_core::{Move, Position, San, SanPlus, Suffix, UciMove};

/// A short text on the stack (a SAN move is at most 9 bytes, e.g. `Qh4xe1`
/// or `exd8=Q#`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SanBuf {
    len: u8,
    bytes: [u8; 15],
}

impl SanBuf {
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only whole UTF-8 strings are ever pushed (SAN is ASCII).
        core::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

impl fmt::Write for SanBuf {
    /// One byte for an ASCII character (all of SAN), without encoding it.
    fn write_char(&mut self, c: char) -> fmt::Result {
        let at = usize::from(self.len);
        if !c.is_ascii() || at >= self.bytes.len() {
            return self.write_str(c.encode_utf8(&mut [0; 4]));
        }
        self.bytes[at] = c as u8;
        self.len += 1;
        Ok(())
    }

    fn write_str(&mut self, s: &str) -> fmt::Result {
        let at = usize::from(self.len);
        let end = at + s.len();
        if end > self.bytes.len() {
            return Err(fmt::Error);
        }
        self.bytes[at..end].copy_from_slice(s.as_bytes());
        self.len += s.len() as u8;
        Ok(())
    }
}

/// How a move operand reads.
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
pub(crate) fn read_move(pos: &Position, text: &[u8]) -> MoveRead {
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
    let m = match san.to_move(pos) {
        Ok(m) => m,
        Err(e) => return MoveRead::Bad(e.to_string()),
    };
    let mut canonical = SanBuf::default();
    // A SAN move always fits the buffer.
    let _ = San::from_move(pos, m).write_to(&mut canonical);
    if canonical.as_bytes() == strip_suffix(text) {
        MoveRead::San(m)
    } else {
        MoveRead::NotSan(m, san_text(pos, m, true))
    }
}

/// The canonical SAN of a legal move: minimal disambiguation, `x` for
/// captures, `=Q` promotions, and `+`/`#` if `suffix`.
pub(crate) fn san_text(pos: &Position, m: Move, suffix: bool) -> SanBuf {
    let mut b = SanBuf::default();
    // Written straight into the buffer: going through `format_args!` and a
    // `Formatter` cost more than finding the SAN itself. A SAN move always
    // fits the buffer.
    if suffix {
        let sp = SanPlus::from_move(pos, m);
        let _ = sp.san.write_to(&mut b);
        let _ = fmt::Write::write_str(
            &mut b,
            match sp.suffix {
                Some(Suffix::Check) => "+",
                Some(Suffix::Checkmate) => "#",
                None => "",
            },
        );
    } else {
        let _ = San::from_move(pos, m).write_to(&mut b);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::Square;

    fn check(fen: &str) {
        let pos = Position::from_fen(fen).unwrap();
        for &m in pos.legal_moves().iter() {
            let ours = san_text(&pos, m, true);
            let core = SanPlus::from_move(&pos, m).to_string();
            assert_eq!(ours.as_str(), core, "{fen}");
            match read_move(&pos, core.as_bytes()) {
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
                                let ours = match read_move(&pos, text.as_bytes()) {
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
        assert!(matches!(read_move(&pos, b"e2e4"), MoveRead::NotSan(_, s) if s.as_str() == "e4"));
        assert!(
            matches!(read_move(&pos, b"Ng1-f3"), MoveRead::NotSan(_, s) if s.as_str() == "Nf3")
        );
        assert!(matches!(read_move(&pos, b"Nf3+"), MoveRead::San(_)));
        assert!(matches!(read_move(&pos, b"Nf4"), MoveRead::Bad(_)));
        assert!(matches!(read_move(&pos, b"e2e5"), MoveRead::Bad(_)));
    }
}
