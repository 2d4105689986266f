//! Differential test against shakmaty: random legal playouts from the start
//! position and from the perft-suite positions (Chess960 ones in shakmaty's
//! Chess960 castling mode). At every position reached, both libraries must
//! agree on the legal move set, each move's SAN (with `+`/`#`), the FEN after
//! each move (en-passant square only when a legal capture exists), and the
//! check / checkmate / stalemate / insufficient-material flags. Every SAN and
//! UCI string we write must parse back (ours and shakmaty's) to the same move.
//!
//! `ROOKERY_DIFF_SCALE=N` multiplies the number of playouts.

mod common;

use rookery_core::fen::PositionProblem;
use rookery_core::{
    CastlingMode, Fen, FenError, Mode, Move, Position, Role, San, SanPlus, Setup, UciMove,
};
use shakmaty::fen::Fen as SFen;
use shakmaty::san::SanPlus as SSanPlus;
use shakmaty::uci::UciMove as SUciMove;
use shakmaty::{
    CastlingMode as SCastlingMode, Chess, EnPassantMode, Move as SMove, Position as _,
    PositionErrorKinds,
};
use std::collections::BTreeMap;

/// splitmix64: a small seeded generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// The position after up to `plies` random legal moves from the start
    /// (fewer if the game ends first).
    fn walk(&mut self, plies: usize) -> Position {
        let mut pos = Position::startpos();
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[self.below(moves.len())]);
        }
        pos
    }
}

#[derive(Default, Debug)]
struct Stats {
    positions: usize,
    moves: usize,
    checks: usize,
    mates: usize,
    stalemates: usize,
    insufficient: usize,
    castles: usize,
    en_passant: usize,
    promotions: usize,
    rejected_starts: usize,
}

/// Both libraries read the start position strictly; they must agree on
/// whether it is legal. `None` if it is not (then there is nothing to play).
fn both_from_fen(
    fen: &str,
    mode: SCastlingMode,
    stats: &mut Stats,
) -> Option<(Position, Chess, SCastlingMode)> {
    let f: SFen = fen
        .parse()
        .unwrap_or_else(|e| panic!("shakmaty cannot parse {fen:?}: {e}"));
    // The standard suites hold a few Chess960 positions: shakmaty needs to be told.
    let mode = match Position::from_fen_lenient(fen) {
        Ok((p, _)) if p.is_chess960_castling() => SCastlingMode::Chess960,
        _ => mode,
    };
    // rookery does not count material (a suite position has 30 queens).
    let theirs = f
        .into_position::<Chess>(mode)
        .or_else(|e| e.ignore_too_much_material().map_err(|e| e.kinds()));
    // Some suite lines are EPD (no clocks): read the text leniently, judge the position strictly.
    let ours = Setup::from_fen(fen, Mode::Lenient)
        .map_err(FenError::Parse)
        .and_then(|s| s.into_position(Mode::Strict).map_err(FenError::Position))
        .map(|(p, _)| p);
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => Some((ours, theirs, mode)),
        (Err(FenError::Position(e)), Err(se)) => {
            // The suites hold a few positions with a check no legal move gives.
            assert!(
                se.contains(PositionErrorKinds::IMPOSSIBLE_CHECK)
                    && e.problems
                        .iter()
                        .any(|(p, _)| *p == PositionProblem::ImpossibleCheck),
                "{fen}: both reject, for different reasons: {e} / {se:?}"
            );
            stats.rejected_starts += 1;
            None
        }
        (ours, theirs) => panic!(
            "{fen}: rookery says {:?}, shakmaty says {:?}",
            ours.err(),
            theirs.err()
        ),
    }
}

fn s_fen(pos: &Chess) -> String {
    SFen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Compares everything at one position; returns the agreed moves for the playout.
fn compare(ours: &Position, theirs: &Chess, smode: SCastlingMode, stats: &mut Stats) -> Vec<Move> {
    let fen = ours.fen();
    assert_eq!(fen, s_fen(theirs), "FEN differs");
    let chess960 = smode == SCastlingMode::Chess960;

    // The FEN we write reads back strictly to the very same position (hash included).
    let reread = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: re-read: {e}"));
    assert_eq!(&reread, ours, "{fen}: FEN round trip");

    assert_eq!(ours.is_check(), theirs.is_check(), "{fen}: is_check");
    assert_eq!(
        ours.is_checkmate(),
        theirs.is_checkmate(),
        "{fen}: is_checkmate"
    );
    assert_eq!(
        ours.is_stalemate(),
        theirs.is_stalemate(),
        "{fen}: is_stalemate"
    );
    assert_eq!(
        ours.is_insufficient_material(),
        theirs.is_insufficient_material(),
        "{fen}: is_insufficient_material"
    );
    stats.positions += 1;
    stats.checks += usize::from(ours.is_check());
    stats.mates += usize::from(ours.is_checkmate());
    stats.stalemates += usize::from(ours.is_stalemate());
    stats.insufficient += usize::from(ours.is_insufficient_material());

    // Legal moves keyed by king-takes-rook UCI.
    let our_moves = ours.legal_moves();
    let mut mine: BTreeMap<String, Move> = BTreeMap::new();
    for &m in our_moves.iter() {
        let key = UciMove::from_move(ours, m, CastlingMode::Chess960).to_string();
        assert!(
            mine.insert(key.clone(), m).is_none(),
            "{fen}: duplicate move {key}"
        );
    }
    let mut theirs_map: BTreeMap<String, SMove> = BTreeMap::new();
    for m in theirs.legal_moves() {
        theirs_map.insert(m.to_uci(SCastlingMode::Chess960).to_string(), m);
    }
    let a: Vec<&String> = mine.keys().collect();
    let b: Vec<&String> = theirs_map.keys().collect();
    assert_eq!(a, b, "{fen}: legal move sets differ");
    assert_eq!(
        ours.has_legal_move(),
        !mine.is_empty(),
        "{fen}: has_legal_move"
    );

    // Standard-notation UCI strings; in Chess960 a castle may read like a king move.
    let mut standard_count: BTreeMap<String, usize> = BTreeMap::new();
    for &m in mine.values() {
        *standard_count
            .entry(UciMove::from_move(ours, m, CastlingMode::Standard).to_string())
            .or_default() += 1;
    }

    for (key, &m) in &mine {
        let sm = &theirs_map[key];
        stats.moves += 1;
        stats.castles += usize::from(m.is_castle());
        stats.en_passant += usize::from(m.is_en_passant());
        stats.promotions += usize::from(m.is_promotion());
        assert!(ours.is_legal(m), "{fen}: {key} not is_legal");

        // UCI: ours reads back, in both notations; shakmaty reads ours too.
        let parsed: UciMove = key.parse().unwrap_or_else(|e| panic!("{fen}: {key}: {e}"));
        assert_eq!(parsed.to_move(ours), Ok(m), "{fen}: UCI {key} read back");
        let std_uci = UciMove::from_move(ours, m, CastlingMode::Standard).to_string();
        assert_eq!(
            std_uci,
            sm.to_uci(SCastlingMode::Standard).to_string(),
            "{fen}: standard UCI of {key}"
        );
        if !chess960 || standard_count[&std_uci] == 1 {
            let parsed: UciMove = std_uci.parse().expect("standard UCI parses");
            assert_eq!(
                parsed.to_move(ours),
                Ok(m),
                "{fen}: UCI {std_uci} read back"
            );
        }
        let s_parsed: SUciMove = key.parse().expect("shakmaty parses our UCI");
        assert_eq!(
            s_parsed.to_move(theirs).ok().as_ref(),
            Some(sm),
            "{fen}: shakmaty reads {key}"
        );

        // SAN with suffix, compared, then read back by both.
        let san = SanPlus::from_move(ours, m).to_string();
        let s_san = SSanPlus::from_move(theirs.clone(), *sm).to_string();
        assert_eq!(san, s_san, "{fen}: SAN of {key}");
        let back =
            San::from_ascii(san.as_bytes()).unwrap_or_else(|e| panic!("{fen}: our SAN {san}: {e}"));
        assert_eq!(back.to_move(ours), Ok(m), "{fen}: SAN {san} read back");
        let back_plus = SanPlus::from_ascii(san.as_bytes()).expect("SanPlus parses");
        assert_eq!(
            back_plus.to_string(),
            san,
            "{fen}: SanPlus display of {san}"
        );
        let s_back: SSanPlus = san.parse().expect("shakmaty parses our SAN");
        assert_eq!(
            s_back.san.to_move(theirs).ok().as_ref(),
            Some(sm),
            "{fen}: shakmaty reads {san}"
        );

        // FEN after the move.
        let after = ours.after(m);
        let mut s_after = theirs.clone();
        s_after.play_unchecked(*sm);
        assert_eq!(
            after.fen(),
            s_fen(&s_after),
            "{fen}: FEN after {key} ({san})"
        );
    }
    mine.into_values().collect()
}

fn playout(start_fen: &str, smode: SCastlingMode, rng: &mut Rng, plies: usize, stats: &mut Stats) {
    let Some((mut ours, mut theirs, smode)) = both_from_fen(start_fen, smode, stats) else {
        return;
    };
    for _ in 0..=plies {
        let moves = compare(&ours, &theirs, smode, stats);
        if moves.is_empty() {
            break;
        }
        // Lean towards captures and promotions half the time, to reach endgames.
        let forcing: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|&m| ours.is_capture(m) || m.is_promotion())
            .collect();
        let m = if !forcing.is_empty() && rng.below(2) == 0 {
            forcing[rng.below(forcing.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        let key = UciMove::from_move(&ours, m, CastlingMode::Chess960).to_string();
        let sm = key
            .parse::<SUciMove>()
            .expect("uci")
            .to_move(&theirs)
            .expect("shakmaty move");
        ours.play_unchecked(m);
        theirs.play_unchecked(sm);
    }
}

fn scale() -> usize {
    std::env::var("ROOKERY_DIFF_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// Every `step`-th case of a suite.
fn suite_fens(path: &str, step: usize) -> Vec<String> {
    common::read_suite(path)
        .into_iter()
        .step_by(step)
        .map(|c| c.fen)
        .collect()
}

fn run(
    fens: &[String],
    smode: SCastlingMode,
    playouts_each: usize,
    plies: usize,
    seed: u64,
) -> Stats {
    let mut stats = Stats::default();
    let mut rng = Rng(seed);
    for fen in fens {
        for _ in 0..playouts_each * scale() {
            playout(fen, smode, &mut rng, plies, &mut stats);
        }
    }
    stats
}

#[test]
fn startpos_playouts() {
    let start = Fen::from_position(&Position::startpos()).to_string();
    let stats = run(&[start], SCastlingMode::Standard, 100, 120, 1);
    eprintln!("startpos: {stats:?}");
    assert!(stats.positions >= 4000, "{stats:?}");
    assert!(
        stats.castles > 0 && stats.promotions > 0 && stats.en_passant > 0,
        "{stats:?}"
    );
}

#[test]
fn standard_suite_playouts() {
    let mut fens = suite_fens("perft/standard.epd", 1);
    fens.extend(suite_fens("perft/perftsuite.epd", 4));
    fens.extend(suite_fens("perft/tricky.perft", 1));
    fens.extend(suite_fens("perft/random.perft", 25));
    let stats = run(&fens, SCastlingMode::Standard, 1, 40, 2);
    eprintln!("standard suites ({} starts): {stats:?}", fens.len());
    assert!(stats.positions >= 4000, "{stats:?}");
    assert!(stats.mates > 0 && stats.stalemates > 0, "{stats:?}");
}

#[test]
fn chess960_suite_playouts() {
    let mut fens = suite_fens("perft/fischer.epd", 4);
    fens.extend(suite_fens("perft/chess960.perft", 8));
    let stats = run(&fens, SCastlingMode::Chess960, 1, 30, 3);
    eprintln!("chess960 suites ({} starts): {stats:?}", fens.len());
    assert!(stats.positions >= 4000, "{stats:?}");
    assert!(stats.castles > 0, "{stats:?}");
}

/// SAN as people write it (over- or under-disambiguated, long algebraic,
/// with or without `x`, `P` for pawns): whenever shakmaty resolves a text we
/// resolve it leniently to the same move, and whenever we both resolve it we
/// agree. (We are more lenient: `-` in long algebraic and a king move
/// standing for castling are accepted. shakmaty is more lenient in one
/// thing we refuse on purpose, as python-chess and pgn-extract do: a pawn
/// capture written without the pawn's file, `xd5` or `d5` for `exd5`.)
#[test]
fn san_variants_agree() {
    let mut rng = Rng(4);
    let (mut texts, mut both, mut ours_only) = (0usize, 0usize, 0usize);
    let mut refused = 0usize;
    for game in 0..300 {
        let pos = rng.walk(game % 150);
        let fen = pos.fen();
        let theirs: Chess = fen
            .parse::<SFen>()
            .expect("our FEN")
            .into_position(SCastlingMode::Standard)
            .expect("legal");
        let mut variants = Vec::new();
        for &m in pos.legal_moves().iter() {
            let (from, to) = (m.from().to_string(), m.to().to_string());
            let piece = match pos.role_at(m.from()) {
                Some(Role::Pawn) | None => String::new(),
                Some(r) => r.upper_char().to_string(),
            };
            let promo = m
                .promotion()
                .map(|r| format!("={}", r.upper_char()))
                .unwrap_or_default();
            variants.extend([
                format!("{piece}{to}{promo}"),
                format!("{piece}x{to}{promo}"),
                format!("{piece}{}{to}{promo}", &from[..1]),
                format!("{piece}{}{to}{promo}", &from[1..]),
                format!("{piece}{from}{to}{promo}"),
                format!("{piece}{from}x{to}{promo}"),
                format!("{piece}{from}-{to}{promo}"),
                format!("{}x{to}{promo}", &from[..1]),
                format!("{piece}{to}"),
                format!("K{to}"),
                format!("P{to}{promo}"),
            ]);
        }
        variants.sort();
        variants.dedup();
        for text in variants {
            texts += 1;
            let san = San::from_ascii(text.as_bytes()).ok();
            let ours = san
                .and_then(|s| s.to_move_lenient(&pos).ok())
                .map(|(m, _)| UciMove::from_move(&pos, m, CastlingMode::Chess960).to_string());
            let peer = text
                .parse::<shakmaty::san::San>()
                .ok()
                .and_then(|s| s.to_move(&theirs).ok())
                .map(|m| m.to_uci(SCastlingMode::Chess960).to_string());
            match (&ours, &peer) {
                (Some(a), Some(b)) => {
                    assert_eq!(a, b, "{fen}: {text}");
                    both += 1;
                }
                (None, Some(b)) => {
                    let pawn_without_file = matches!(
                        san,
                        Some(San::Normal {
                            role: Role::Pawn,
                            file: None,
                            ..
                        })
                    );
                    // shakmaty's move is a capture: it leaves its file.
                    assert!(
                        pawn_without_file && b[..1] != b[2..3],
                        "{fen}: {text}: shakmaty plays {b}, we reject it"
                    );
                    refused += 1;
                }
                (Some(_), None) => ours_only += 1,
                (None, None) => {}
            }
        }
    }
    eprintln!(
        "SAN variants: {texts} texts, {both} resolved alike, {ours_only} only by us, \
         {refused} pawn captures without their file refused"
    );
    assert!(both > 10_000, "{both}");
    assert!(
        refused > 0,
        "the pawn captures without their file were tried"
    );
}

/// Random edits of real positions (a piece put or removed, side to move
/// flipped, castling or en-passant field replaced): our strict reader and
/// shakmaty's (Chess960 castling, material not counted) accept the same
/// setups, and for those write the same FEN and generate the same moves.
#[test]
fn mutated_setups_agree() {
    const PIECES: &[u8] = b"PNBRQKpnbrqk";
    const CASTLING: &[&str] = &[
        "-", "K", "Q", "k", "q", "KQkq", "Kk", "Qq", "A", "H", "Hh", "Bb", "Gc", "KQ", "kq",
    ];
    let mut rng = Rng(5);
    let (mut total, mut accepted) = (0usize, 0usize);
    for game in 0..20_000 {
        let pos = rng.walk(game % 80);
        // The board as 64 bytes, rank 8 first; '.' for empty.
        let mut board = [b'.'; 64];
        for (i, sq) in (0..64).map(|i| (i, (7 - i / 8) * 8 + i % 8)) {
            if let Some(p) = pos.piece_at(rookery_core::Square::new(sq)) {
                board[i as usize] = p.char() as u8;
            }
        }
        let fen = pos.fen();
        let fields: Vec<&str> = fen.split(' ').collect();
        let (mut turn, mut castling, mut ep) = (
            fields[1].to_string(),
            fields[2].to_string(),
            fields[3].to_string(),
        );
        for _ in 0..1 + rng.below(3) {
            match rng.below(6) {
                0 | 1 => board[rng.below(64)] = PIECES[rng.below(PIECES.len())],
                2 => board[rng.below(64)] = b'.',
                3 => turn = if turn == "w" { "b" } else { "w" }.to_string(),
                4 => castling = CASTLING[rng.below(CASTLING.len())].to_string(),
                _ => {
                    let file = (b'a' + rng.below(8) as u8) as char;
                    ep = format!("{file}{}", if rng.below(2) == 0 { 3 } else { 6 });
                }
            }
        }
        let mut placement = String::new();
        for (r, rank) in board.chunks(8).enumerate() {
            let mut empty = 0;
            for &c in rank {
                if c == b'.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        placement.push_str(&empty.to_string());
                        empty = 0;
                    }
                    placement.push(c as char);
                }
            }
            if empty > 0 {
                placement.push_str(&empty.to_string());
            }
            if r < 7 {
                placement.push('/');
            }
        }
        let text = format!("{placement} {turn} {castling} {ep} 0 1");
        total += 1;
        let ours = Position::from_fen(&text);
        let theirs = text
            .parse::<SFen>()
            .expect("well-formed")
            .into_position::<Chess>(SCastlingMode::Chess960)
            .or_else(|e| e.ignore_too_much_material().map_err(|e| e.kinds()));
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                accepted += 1;
                assert_eq!(ours.fen(), s_fen(&theirs), "{text}");
                let mut a: Vec<String> = ours
                    .legal_moves()
                    .iter()
                    .map(|&m| UciMove::from_move(&ours, m, CastlingMode::Chess960).to_string())
                    .collect();
                let mut b: Vec<String> = theirs
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_uci(SCastlingMode::Chess960).to_string())
                    .collect();
                a.sort();
                b.sort();
                assert_eq!(a, b, "{text}: legal moves");
            }
            (Err(_), Err(_)) => {}
            (ours, theirs) => panic!(
                "{text}: we say {:?}, shakmaty says {:?}",
                ours.err(),
                theirs.err()
            ),
        }
    }
    eprintln!("mutated setups: {total}, {accepted} accepted by both");
    assert!(accepted > total / 4, "{accepted} of {total}");
}
