//! Chess960 starting positions by their standard number (0 to 959).

use crate::position::Position;

/// Where the two knights stand among the five squares left after the
/// bishops and the queen, for knight codes 0 to 9.
const KNIGHTS: [(usize, usize); 10] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (1, 2),
    (1, 3),
    (1, 4),
    (2, 3),
    (2, 4),
    (3, 4),
];

/// The back rank of Chess960 position `n` (0..960), as piece letters from
/// the a-file to the h-file, in the standard numbering: `n mod 4` places the
/// light-squared bishop (b, d, f, h), the next base-4 digit the dark-squared
/// one (a, c, e, g), the next base-6 digit the queen on the free squares, the
/// rest (0 to 9) the knights; the king stands between the rooks.
pub fn back_rank(n: u32) -> Option<[u8; 8]> {
    if n >= 960 {
        return None;
    }
    let mut rank = [0u8; 8];
    let mut n = n as usize;
    rank[2 * (n % 4) + 1] = b'B';
    n /= 4;
    rank[2 * (n % 4)] = b'B';
    n /= 4;
    let nth_free = |rank: &[u8; 8], k: usize| {
        // Always found: each piece is placed while enough squares are free.
        rank.iter()
            .enumerate()
            .filter(|(_, &p)| p == 0)
            .nth(k)
            .map_or(0, |(i, _)| i)
    };
    let q = nth_free(&rank, n % 6);
    rank[q] = b'Q';
    n /= 6;
    let (a, b) = KNIGHTS[n];
    let (ka, kb) = (nth_free(&rank, a), nth_free(&rank, b));
    rank[ka] = b'N';
    rank[kb] = b'N';
    for p in [b'R', b'K', b'R'] {
        let i = nth_free(&rank, 0);
        rank[i] = p;
    }
    Some(rank)
}

impl Position {
    /// Chess960 starting position number `n` (0 to 959; 518 is the standard
    /// position), with castling rights for both rooks of each side.
    pub fn chess960(n: u32) -> Option<Position> {
        let rank = back_rank(n)?;
        let white: String = rank.iter().map(|&b| b as char).collect();
        let black = white.to_ascii_lowercase();
        let rooks: Vec<char> = rank
            .iter()
            .enumerate()
            .filter(|(_, &p)| p == b'R')
            .map(|(i, _)| (b'A' + i as u8) as char)
            .collect();
        let castling: String = rooks
            .iter()
            .rev()
            .chain(rooks.iter().rev())
            .enumerate()
            .map(|(i, c)| if i < 2 { *c } else { c.to_ascii_lowercase() })
            .collect();
        let fen = format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {castling} - 0 1");
        // Every arrangement above is a legal position with legal rights.
        Position::from_fen(&fen).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Fen;

    #[test]
    fn numbering() {
        assert_eq!(&back_rank(518).unwrap(), b"RNBQKBNR");
        assert_eq!(&back_rank(0).unwrap(), b"BBQNNRKR");
        assert_eq!(&back_rank(959).unwrap(), b"RKRNNQBB");
        assert!(back_rank(960).is_none());
        let std = Position::chess960(518).unwrap();
        assert_eq!(
            Fen::from_position(&std).to_string(),
            Fen::from_position(&Position::startpos()).to_string()
        );
    }

    #[test]
    fn all_960_are_distinct_legal_positions() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..960 {
            let r = back_rank(n).unwrap();
            let b = r.iter().position(|&p| p == b'B').unwrap();
            let b2 = r.iter().rposition(|&p| p == b'B').unwrap();
            assert_ne!(b % 2, b2 % 2, "{n}: bishops on one colour");
            let k = r.iter().position(|&p| p == b'K').unwrap();
            assert!(r[..k].contains(&b'R') && r[k..].contains(&b'R'), "{n}");
            assert!(seen.insert(r));
            let pos = Position::chess960(n).unwrap();
            // Both rooks of both sides keep their castling rights.
            assert_eq!(pos.castling_rooks().count(), 4, "{n}");
        }
    }
}
