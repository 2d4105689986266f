//! The byte-level FEN writer (`FenDisplay::append_to` and `append_bytes`, which `Display` and
//! `Position::fen` share) and the FEN reader against shakmaty, on every
//! position of the perft suites and along seeded random games from each:
//! the text must be shakmaty's to the byte (six fields and the four of EPD),
//! Shredder-FEN castling must name the castling rooks' files, and what we
//! write must read back (ours strictly, and shakmaty's) to the same position.

mod common;

use rookery_core::{CastlingNotation, Color, Fen, Mode, Position, Setup};
use shakmaty::fen::Fen as SFen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _};

/// splitmix64, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// The Shredder-FEN castling field, from first principles: the files of the
/// castling rooks, white's in upper case first, each side from the h-file down.
fn shredder_castling(pos: &Position) -> String {
    let mut out = String::new();
    for color in [Color::White, Color::Black] {
        let mut files: Vec<char> = pos
            .castling_rooks()
            .filter(|sq| sq.rank() == color.back_rank())
            .map(|sq| sq.file().char())
            .collect();
        files.sort_unstable_by(|a, b| b.cmp(a));
        for f in files {
            out.push(if color == Color::White {
                f.to_ascii_uppercase()
            } else {
                f
            });
        }
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

/// Checks every way of writing `pos` against shakmaty's FEN of the same position.
fn check(pos: &Position, theirs: &Chess, checked: &mut usize) {
    let expected = SFen::from_position(theirs, EnPassantMode::Legal).to_string();

    let mut appended = String::from("prefix ");
    Fen::from_position(pos).append_to(&mut appended);
    assert_eq!(appended, format!("prefix {expected}"), "append_to");
    assert_eq!(pos.fen(), expected, "Position::fen");
    assert_eq!(Fen::from_position(pos).to_string(), expected, "Display");

    let four: Vec<&str> = expected.split(' ').take(4).collect();
    let mut epd = String::new();
    Fen::from_position(pos).epd().append_to(&mut epd);
    assert_eq!(epd, four.join(" "), "EPD fields");
    let mut bytes = b"x ".to_vec();
    Fen::from_position(pos).epd().append_bytes(&mut bytes);
    assert_eq!(bytes, format!("x {epd}").into_bytes(), "append_bytes");

    let mut shredder = String::new();
    Fen::from_position(pos)
        .castling(CastlingNotation::Shredder)
        .append_to(&mut shredder);
    let fields: Vec<&str> = shredder.split(' ').collect();
    let mut want: Vec<&str> = expected.split(' ').collect();
    let castling = shredder_castling(pos);
    want[2] = &castling;
    assert_eq!(fields, want, "Shredder-FEN");

    // What we write reads back: ours strictly (the hash included), and
    // shakmaty's reader to its own position.
    let reread = Position::from_fen(&expected).unwrap_or_else(|e| panic!("{expected}: {e}"));
    assert_eq!(&reread, pos, "{expected}: read back");
    let shredder_back = Setup::from_fen(&shredder, Mode::Strict)
        .map_err(|e| e.to_string())
        .and_then(|s| s.into_position(Mode::Strict).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| panic!("{shredder}: {e}"))
        .0;
    assert_eq!(&shredder_back, pos, "{shredder}: Shredder-FEN read back");
    *checked += 1;
}

#[test]
fn fen_writer_and_reader_agree_with_shakmaty() {
    let suites = [
        "perft/standard.epd",
        "perft/perftsuite.epd",
        "perft/fischer.epd",
        "perft/chess960.perft",
        "perft/random.perft",
        "perft/tricky.perft",
    ];
    let mut rng = Rng(0x5eed_f3e1);
    let mut checked = 0usize;
    let mut starts = 0usize;
    for suite in suites {
        for case in common::read_suite(suite) {
            // Judge the position strictly; a few suite lines carry no clocks.
            let Ok((mut pos, _)) = Setup::from_fen(&case.fen, Mode::Lenient)
                .map_err(|e| e.to_string())
                .and_then(|s| s.into_position(Mode::Strict).map_err(|e| e.to_string()))
            else {
                continue;
            };
            let mode = if pos.is_chess960_castling() {
                CastlingMode::Chess960
            } else {
                CastlingMode::Standard
            };
            let Ok(mut theirs) = case
                .fen
                .parse::<SFen>()
                .expect("shakmaty reads the suite")
                .into_position::<Chess>(mode)
                .or_else(|e| e.ignore_too_much_material().map_err(|e| e.kinds()))
            else {
                continue;
            };
            starts += 1;
            for _ in 0..60 {
                check(&pos, &theirs, &mut checked);
                let legal = theirs.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = &legal[rng.below(legal.len())];
                let uci = m.to_uci(mode).to_string();
                let ours = rookery_core::UciMove::from_ascii(uci.as_bytes())
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
                    .unwrap_or_else(|| panic!("{}: {uci} not ours", pos.fen()));
                pos.play_unchecked(ours);
                theirs.play_unchecked(*m);
            }
        }
    }
    // Every suite contributed, and the games went somewhere.
    assert!(starts > 100, "only {starts} start positions");
    assert!(checked > 20 * starts, "only {checked} positions checked");
}

/// What the full reader makes of the four EPD fields at the start of
/// `text` in `mode`: the position and bytes used, if it reads them without
/// an error or a warning.
fn full_read(text: &str, mode: Mode) -> Option<(Position, usize)> {
    let (setup, used) = Setup::from_epd_prefix(text.as_bytes(), mode).ok()?;
    let (pos, warnings) = setup.into_position(mode).ok()?;
    warnings.is_empty().then_some((pos, used))
}

/// `Position::from_plain_epd_fields` against the full reader, on the EPD
/// fields of every position the games above reach and on variants of them
/// (whitespace, castling letters, en-passant squares, side to move, digits
/// in a row, text glued to the fields): where the plain reader answers, the
/// full one reads the same position from the same bytes without a word in
/// both modes, and the writer writes those very bytes; and it answers for every plain text we write ourselves
/// that the full reader takes without a word.
#[test]
fn plain_epd_reader_agrees_with_the_full_reader() {
    let mut rng = Rng(0x0e9d_f1e1);
    let mut plain = 0usize;
    let mut texts = 0usize;
    for suite in [
        "perft/standard.epd",
        "perft/perftsuite.epd",
        "perft/fischer.epd",
    ] {
        for case in common::read_suite(suite) {
            let Ok((mut pos, _)) = Position::from_fen_lenient(&case.fen) else {
                continue;
            };
            for _ in 0..30 {
                let mut epd = String::new();
                Fen::from_position(&pos).epd().append_to(&mut epd);
                let fields: Vec<String> = epd.split(' ').map(str::to_owned).collect();
                let with = |k: usize, v: &str| {
                    let mut f = fields.clone();
                    f[k] = v.to_owned();
                    f.join(" ")
                };
                let mut variants = vec![
                    epd.clone(),
                    epd.replacen(' ', "  ", 1),
                    epd.replacen(' ', "\t", 1),
                    format!(" {epd}"),
                    format!("{epd}bm"),
                    fields[0].replacen('8', "44", 1) + &epd[fields[0].len()..],
                    fields[0].replacen('/', "", 1) + &epd[fields[0].len()..],
                    with(1, if fields[1] == "w" { "b" } else { "w" }),
                    with(1, "W"),
                ];
                for c in [
                    "-", "K", "Q", "k", "q", "KQ", "QK", "kq", "KQkq", "qk", "Kk", "HAha", "A",
                    "KK", "-K",
                ] {
                    variants.push(with(2, c));
                }
                for ep in ["e3", "d6", "a6", "h3", "E3", "e4"] {
                    variants.push(with(3, ep));
                }
                for text in variants {
                    texts += 1;
                    let line = format!("{text} bm e4; id \"x\";");
                    let fast = Position::from_plain_epd_fields(line.as_bytes());
                    if let Some((p, used)) = &fast {
                        plain += 1;
                        // Plain fields are canonical: the writer gives back
                        // the very bytes read (the EPD verbs copy them).
                        let mut written = String::new();
                        Fen::from_position(p).epd().append_to(&mut written);
                        assert_eq!(written, line[..*used], "{line:?}: not as written");
                        for mode in [Mode::Strict, Mode::Lenient] {
                            let (q, u) = full_read(&line, mode).unwrap_or_else(|| {
                                panic!("{line:?}: plain, but not to the full reader ({mode:?})")
                            });
                            assert_eq!(&q, p, "{line:?} ({mode:?})");
                            assert_eq!(u, *used, "{line:?} ({mode:?})");
                        }
                    }
                    // What we write without an en-passant square or Chess960
                    // castling is the plain case, unless the position itself
                    // is something to warn about (an impossible check).
                    if text == epd
                        && pos.ep_square().is_none()
                        && !pos.is_chess960_castling()
                        && full_read(&line, Mode::Strict).is_some()
                    {
                        assert!(fast.is_some(), "{line:?}: not read as plain");
                    }
                }
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                pos.play_unchecked(legal[rng.below(legal.len())]);
            }
        }
    }
    assert!(
        plain > 1000 && plain < texts,
        "{plain} of {texts} texts read as plain"
    );
}

/// The clocks are written in decimal, at both ends of their range and
/// around the powers of ten.
#[test]
fn fen_clocks_are_written_in_decimal() {
    let mut values = vec![0u32, 1, u32::MAX - 1, u32::MAX];
    let mut p = 1u32;
    while let Some(next) = p.checked_mul(10) {
        values.extend([p - 1, p, p + 1]);
        p = next;
    }
    let mut pos = Position::startpos();
    for v in values {
        pos.set_clocks(v, v.max(1));
        let want = format!(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - {v} {}",
            v.max(1)
        );
        assert_eq!(pos.fen(), want);
        assert_eq!(Fen::from_position(&pos).to_string(), want);
    }
}
