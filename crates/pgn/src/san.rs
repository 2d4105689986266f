//! Fast SAN resolution for the reader: finds the move without generating every
//! legal move, and defers to [`San::to_move`] for anything unusual (en
//! passant, castling, errors), so the answers are the same.

use rookery_core::attacks::{
    aligned, between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks,
};
use rookery_core::san::ParseSanError;
use rookery_core::{
    Bitboard, CastlingSide, File, Move, MoveKind, Position, Rank, Role, San, SanError, SanPlus,
    Square, Suffix,
};

/// Reads SAN as [`SanPlus::from_ascii`] does, with a fast path for the
/// standard spellings (`e4`, `exd5`, `Nbd2`, `R1e2`, `Qh4e1`, `e8=Q+`, `O-O#`).
///
/// # Errors
/// [`ParseSanError`] if the text is not a move.
#[inline]
pub fn parse(s: &[u8]) -> Result<SanPlus, ParseSanError> {
    match parse_fast(s) {
        Some(san) => Ok(san),
        None => SanPlus::from_ascii(s),
    }
}

#[inline]
fn parse_fast(s: &[u8]) -> Option<SanPlus> {
    let (body, suffix) = match s {
        [rest @ .., b'+'] => (rest, Some(Suffix::Check)),
        [rest @ .., b'#'] => (rest, Some(Suffix::Checkmate)),
        _ => (s, None),
    };
    let san = match body {
        b"O-O" => San::Castle(CastlingSide::KingSide),
        b"O-O-O" => San::Castle(CastlingSide::QueenSide),
        _ => {
            let (b, promotion) = match body {
                [rest @ .., b'=', p @ (b'N' | b'B' | b'R' | b'Q')] => {
                    (rest, Role::from_char(*p as char))
                }
                _ => (body, None),
            };
            let [rest @ .., f @ b'a'..=b'h', r @ b'1'..=b'8'] = b else {
                return None;
            };
            let to = Square::from_coords(
                File::new(u32::from(f - b'a')),
                Rank::new(u32::from(r - b'1')),
            );
            let (rest, capture) = match rest {
                [r @ .., b'x'] => (r, true),
                _ => (rest, false),
            };
            let (role, rest) = match rest {
                [c @ (b'N' | b'B' | b'R' | b'Q' | b'K'), r @ ..] => {
                    (Role::from_char(*c as char)?, r)
                }
                _ => (Role::Pawn, rest),
            };
            let (file, rank) = match rest {
                [] => (None, None),
                [f @ b'a'..=b'h'] => (Some(File::new(u32::from(f - b'a'))), None),
                [r @ b'1'..=b'8'] if role != Role::Pawn => {
                    (None, Some(Rank::new(u32::from(r - b'1'))))
                }
                [f @ b'a'..=b'h', r @ b'1'..=b'8'] if role != Role::Pawn => (
                    Some(File::new(u32::from(f - b'a'))),
                    Some(Rank::new(u32::from(r - b'1'))),
                ),
                _ => return None,
            };
            if promotion.is_some() && role != Role::Pawn {
                return None;
            }
            San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            }
        }
    };
    Some(SanPlus { san, suffix })
}

/// The legal move `san` stands for in `pos`.
///
/// # Errors
/// [`SanError`] if no legal move or more than one matches.
#[inline]
pub fn resolve(pos: &Position, san: &San) -> Result<Move, SanError> {
    match fast(pos, san) {
        Some(m) => Ok(m),
        None => san.to_move(pos),
    }
}

/// The unique legal move for a plain piece or pawn move, or `None` when the
/// general (slower) resolution must decide.
#[inline]
fn fast(pos: &Position, san: &San) -> Option<Move> {
    let San::Normal {
        role,
        file,
        rank,
        to,
        promotion,
        ..
    } = *san
    else {
        return None;
    };
    let us = pos.turn();
    let them = us.other();
    if pos.by_color(us).contains(to) {
        return None;
    }
    let occ = pos.occupied();
    let last = Rank::Eighth.relative_to(us);
    let mut cands = match role {
        Role::Pawn => {
            if promotion.is_some() != (to.rank() == last) {
                return None;
            }
            let pawns = pos.pieces(us, Role::Pawn);
            if pos.by_color(them).contains(to) {
                pawn_attacks(them, to) & pawns
            } else {
                if pos.ep_square() == Some(to) {
                    return None;
                }
                let back = if us == rookery_core::Color::White {
                    -8
                } else {
                    8
                };
                let one = to.offset(back)?;
                if pawns.contains(one) {
                    Bitboard::from_square(one)
                } else if !occ.contains(one) && to.rank() == Rank::Fourth.relative_to(us) {
                    let two = one.offset(back)?;
                    pawns & Bitboard::from_square(two)
                } else {
                    Bitboard::EMPTY
                }
            }
        }
        Role::King => {
            if promotion.is_some() {
                return None;
            }
            king_attacks(to) & pos.pieces(us, Role::King)
        }
        Role::Knight => {
            if promotion.is_some() {
                return None;
            }
            knight_attacks(to) & pos.pieces(us, Role::Knight)
        }
        _ => {
            if promotion.is_some() {
                return None;
            }
            // Sliders: pieces on a ray through `to` with nothing between
            // (small tables instead of the big magic ones).
            let rays = match role {
                Role::Rook => rook_rays(to),
                Role::Bishop => bishop_rays(to),
                _ => rook_rays(to) | bishop_rays(to),
            };
            let mut reach = Bitboard::EMPTY;
            for from in pos.pieces(us, role) & rays {
                if (between(from, to) & occ).is_empty() {
                    reach.add(from);
                }
            }
            reach
        }
    };
    if let Some(f) = file {
        cands &= Bitboard::file(f);
    }
    if let Some(r) = rank {
        cands &= Bitboard::rank(r);
    }
    if cands.is_empty() {
        return None;
    }
    let king = pos.king(us);
    let checkers = checkers(pos, king, us, occ);
    if role != Role::King && checkers.more_than_one() {
        return None;
    }
    let mut pinned: Option<Bitboard> = None;
    let mut found = None;
    for from in cands {
        let legal = if role == Role::King {
            !pos.is_attacked(to, them, occ ^ Bitboard::from_square(from))
        } else {
            let blocks = checkers
                .into_iter()
                .next()
                .is_none_or(|c: Square| c == to || between(king, c).contains(to));
            blocks && {
                // Only a piece on a line with its king and an enemy slider
                // that moves along that line can be pinned.
                let l = line(king, from);
                let sliders = if king.file() == from.file() || king.rank() == from.rank() {
                    pos.pieces(them, Role::Rook) | pos.pieces(them, Role::Queen)
                } else {
                    pos.pieces(them, Role::Bishop) | pos.pieces(them, Role::Queen)
                };
                !l.intersects(sliders) || {
                    let p = *pinned.get_or_insert_with(|| pos.pinned());
                    !p.contains(from) || aligned(king, from, to)
                }
            }
        };
        if legal {
            if found.is_some() {
                return None;
            }
            found = Some(match promotion {
                Some(p) => Move::new(from, to, MoveKind::Promotion(p)),
                None => Move::normal(from, to),
            });
        }
    }
    found
}

/// Squares on the same file or rank as `sq` (not `sq` itself).
#[inline]
fn rook_rays(sq: Square) -> Bitboard {
    (Bitboard::file(sq.file()) | Bitboard::rank(sq.rank())).without(sq)
}

/// Squares on the diagonals through `sq`: the empty-board bishop attacks
/// (one entry per square, so it stays in cache).
#[inline]
fn bishop_rays(sq: Square) -> Bitboard {
    bishop_attacks(sq, Bitboard::EMPTY)
}

/// Enemy pieces giving check to `us`, computed with small tables.
#[inline]
fn checkers(pos: &Position, king: Square, us: rookery_core::Color, occ: Bitboard) -> Bitboard {
    let them = us.other();
    let mut c = (knight_attacks(king) & pos.pieces(them, Role::Knight))
        | (pawn_attacks(us, king) & pos.pieces(them, Role::Pawn));
    let queens = pos.pieces(them, Role::Queen);
    let sliders = ((pos.pieces(them, Role::Rook) | queens) & rook_rays(king))
        | ((pos.pieces(them, Role::Bishop) | queens) & bishop_rays(king));
    for s in sliders {
        if (between(king, s) & occ).is_empty() {
            c.add(s);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::SanPlus;

    /// Every legal move's SAN, and every plausible SAN spelling, resolves as the core does.
    fn agree(pos: &Position) {
        for m in pos.legal_moves().iter().copied() {
            let san = San::from_move(pos, m);
            assert_eq!(resolve(pos, &san), Ok(m), "{pos:?} {san}");
        }
        for sq in Square::all() {
            for role in Role::ALL {
                for promotion in [None, Some(Role::Queen), Some(Role::Knight)] {
                    for file in [None, Some(rookery_core::File::E)] {
                        let san = San::Normal {
                            role,
                            file,
                            rank: None,
                            capture: false,
                            to: sq,
                            promotion,
                        };
                        assert_eq!(resolve(pos, &san), san.to_move(pos), "{pos:?} {san}");
                    }
                }
            }
        }
    }

    #[test]
    fn agrees_with_core_on_tricky_positions() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2",
            "1k6/8/8/8/1N3N2/8/1N3N2/4K3 w - - 0 1",
            "3k4/8/8/q7/8/2N5/3N4/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/3r4/R3K2R w KQ - 0 1",
            "8/1P6/8/8/8/8/k6K/8 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            agree(&pos);
        }
    }

    #[test]
    fn fast_parse_agrees_with_core() {
        let mut texts: Vec<String> = Vec::new();
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "1k6/8/8/8/1N3N2/8/1N3N2/4K3 w - - 0 1",
            "8/1P6/8/8/8/8/k6K/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for m in pos.legal_moves().iter().copied() {
                texts.push(SanPlus::from_move(&pos, m).to_string());
                texts.push(San::from_move(&pos, m).to_string());
            }
        }
        for t in [
            "e4", "exd5", "Nbd2", "R1e2", "Qh4e1", "e8=Q+", "O-O#", "O-O-O", "Kxe2", "e8Q", "e2e4",
            "Pe4", "e8=K", "Nf3+#", "0-0", "Nxf3!", "e1=Q#", "bxa8=N", "h9", "i4", "Ng1f3", "Bb",
            "x", "", "+", "=Q", "Qxx4", "Rd1d2", "exd", "e4e5",
        ] {
            texts.push(t.to_owned());
        }
        for t in &texts {
            if let Some(fast) = parse_fast(t.as_bytes()) {
                assert_eq!(Ok(fast), SanPlus::from_ascii(t.as_bytes()), "{t}");
            }
            assert_eq!(
                parse(t.as_bytes()),
                SanPlus::from_ascii(t.as_bytes()),
                "{t}"
            );
        }
    }

    #[test]
    fn agrees_with_core_along_random_games() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20 {
            let mut pos = Position::startpos();
            for _ in 0..120 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                assert_eq!(
                    checkers(&pos, pos.king(pos.turn()), pos.turn(), pos.occupied()),
                    pos.checkers()
                );
                for m in legal.iter().copied() {
                    let san = San::from_move(&pos, m);
                    assert_eq!(resolve(&pos, &san), Ok(m), "{pos:?} {san}");
                }
                let m = legal[(next() % legal.len() as u64) as usize];
                pos.play_unchecked(m);
            }
        }
    }

    #[test]
    fn resolves_written_text() {
        let pos = Position::startpos();
        let m = resolve(&pos, &SanPlus::from_ascii(b"Nf3").unwrap().san).unwrap();
        assert_eq!(SanPlus::from_move(&pos, m).to_string(), "Nf3");
        assert!(resolve(&pos, &SanPlus::from_ascii(b"Nd2").unwrap().san).is_err());
    }
}
