//! Property tests: records generated with every opcode and every operand
//! basetype survive write -> read (strict) -> equal; the reader never panics
//! on arbitrary bytes or on mutated records.

use proptest::prelude::*;
use rookery_core::{Move, Position};
use rookery_epd::{
    Clock, Date, Float, Identifier, Mode, Operation, RawOperand, Record, Refcom, Refreq, TimeOfDay,
};

fn play_random(choices: &[u16]) -> Position {
    let mut pos = Position::startpos();
    for &c in choices {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[usize::from(c) % legal.len()];
        pos.play_unchecked(m);
    }
    pos
}

fn pick(pos: &Position, c: u16) -> Option<Move> {
    let legal = pos.legal_moves();
    (!legal.is_empty()).then(|| legal[usize::from(c) % legal.len()])
}

fn line(pos: &Position, choices: &[u16]) -> Vec<Move> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for &c in choices {
        let Some(m) = pick(&p, c) else { break };
        p.play_unchecked(m);
        out.push(m);
    }
    out
}

fn set(pos: &Position, choices: &[u16]) -> Vec<Move> {
    let mut out: Vec<Move> = choices.iter().filter_map(|&c| pick(pos, c)).collect();
    out.sort_by_key(|m| m.to_u16());
    out.dedup();
    out
}

/// Raw material for one operation; turned into an `Operation` against the position.
#[derive(Clone, Debug)]
struct Spec {
    kind: u8,
    n: i64,
    u: u64,
    s1: String,
    s2: String,
    moves: Vec<u16>,
    raw_name: String,
    raw: Vec<(bool, String)>,
    tags: Vec<(String, String)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        (0u8..45, any::<i64>(), any::<u64>()),
        ("[ -~é✓]{0,40}", "[ -~]{0,20}"),
        prop::collection::vec(any::<u16>(), 0..8),
        "[A-Z][A-Za-z0-9_]{0,14}",
        prop::collection::vec((any::<bool>(), "[!#-:<-~][!-:<-~]{0,9}"), 0..4),
        prop::collection::vec(("[A-Za-z0-9_]{1,15}", "[ -~]{0,12}"), 0..4),
    )
        .prop_map(
            |((kind, n, u), (s1, s2), moves, raw_name, raw, tags)| Spec {
                kind,
                n,
                u,
                s1,
                s2,
                moves,
                raw_name,
                raw,
                tags,
            },
        )
}

fn build(pos: &Position, s: &Spec) -> Option<Operation> {
    let i32v = s.n as i32;
    let small = |m: u64| (s.u % m) as u8;
    let opt = |x: &str| (s.n % 2 == 0).then(|| x.to_owned());
    let clock = |v: u64| Clock::from_seconds(v % (1000 * 86_400)).unwrap();
    Some(match s.kind {
        0 => Operation::Acn(s.u),
        1 => Operation::Acs(s.u >> 3),
        2 => Operation::Am(set(pos, &s.moves)),
        3 => Operation::Bm(set(pos, &s.moves)),
        4 => Operation::Comment(small(10), opt(&s.s1)),
        5 => Operation::Cc(clock(s.u), clock(s.u / 7)),
        6 => Operation::Ce(i32v),
        7 => Operation::Dm(i32v),
        8 => Operation::DrawAccept,
        9 => Operation::DrawClaim,
        10 => Operation::DrawOffer,
        11 => Operation::DrawReject,
        12 => Operation::Eco(opt(&s.s1)),
        13 => Operation::Fmvn(i32v),
        14 => Operation::Hmvc(i32v),
        15 => Operation::Id(s.s1.clone()),
        16 => Operation::Nic(opt(&s.s2)),
        17 => Operation::Noop(raw_ops(s)),
        18 => Operation::Pm(pick(pos, s.moves.first().copied().unwrap_or(0))?),
        19 => {
            let mut pairs: Vec<(Identifier, String)> = Vec::new();
            for (t, v) in &s.tags {
                let id: Identifier = t.parse().unwrap();
                if !pairs.iter().any(|(p, _)| *p == id) {
                    pairs.push((id, v.clone()));
                }
            }
            Operation::Ptp(pairs)
        }
        20 => Operation::Pv(line(pos, &s.moves)),
        21 => Operation::Rc(i32v),
        22 => Operation::Refcom(Refcom::ALL[usize::from(small(7))]),
        23 => Operation::Refreq(Refreq::ALL[usize::from(small(4))]),
        24 => Operation::Resign,
        25 => Operation::Sm(pick(pos, s.moves.first().copied().unwrap_or(0))?),
        26 => Operation::Sv(line(pos, &s.moves)),
        27 => Operation::Tcgs(i32v),
        28 => Operation::Tcri(s.s1.clone(), s.s2.clone()),
        29 => Operation::Tcsi(s.s2.clone(), s.s1.clone()),
        30 => Operation::Ts(
            Date {
                year: (s.u % 9999 + 1) as u16,
                month: (s.u % 12 + 1) as u8,
                day: (s.u % 31 + 1) as u8,
            },
            TimeOfDay {
                hour: small(24),
                minute: small(60),
                second: (s.n.unsigned_abs() % 60) as u8,
            },
        ),
        31 => Operation::Variation(small(10), opt(&s.s2)),
        _ => Operation::Raw {
            opcode: s.raw_name.clone(),
            operands: raw_ops(s),
        },
    })
}

fn raw_ops(s: &Spec) -> Vec<RawOperand> {
    s.raw
        .iter()
        .map(|(quoted, t)| {
            if *quoted {
                RawOperand::Quoted(t.clone())
            } else {
                RawOperand::Token(t.clone())
            }
        })
        .collect()
}

/// The record as it should read back: operations in ASCII order of opcode,
/// `bm`/`am` moves in ASCII order of their SAN.
fn canonical(r: &Record) -> Vec<Operation> {
    let mut ops: Vec<Operation> = r
        .operations()
        .map(|op| match op {
            Operation::Bm(ms) => Operation::Bm(sorted(r, ms)),
            Operation::Am(ms) => Operation::Am(sorted(r, ms)),
            other => other.clone(),
        })
        .collect();
    ops.sort_by(|a, b| a.opcode().cmp(b.opcode()));
    ops
}

fn sorted(r: &Record, ms: &[Move]) -> Vec<Move> {
    let mut ms = ms.to_vec();
    ms.sort_by_key(|m| r.san(*m));
    ms
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn write_read_equal(
        game in prop::collection::vec(any::<u16>(), 0..60),
        specs in prop::collection::vec(spec(), 0..12),
    ) {
        let pos = play_random(&game);
        let mut rec = Record::new(pos.clone());
        for s in &specs {
            if let Some(op) = build(&pos, s) {
                if !rec.contains(op.opcode()) {
                    rec.push(op);
                }
            }
        }
        let text = rec.to_string();
        let (back, diags) = Record::parse(text.as_bytes(), Mode::Strict)
            .map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        prop_assert!(diags.is_empty(), "{}\n{:?}", text, diags);
        prop_assert_eq!(back.position(), rec.position());
        prop_assert_eq!(canonical(&back), canonical(&rec), "{}", text);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn floats_round_trip(x in -1e12f64..1e12) {
        let text = Float(x).to_string();
        prop_assert_eq!(Float::from_ascii(text.as_bytes()).unwrap(), Float(x));
    }

    #[test]
    fn reader_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = Record::parse(&bytes, Mode::Strict);
        let _ = Record::parse(&bytes, Mode::Lenient);
    }

    #[test]
    fn reader_never_panics_on_mutated_records(
        idx in 0usize..40,
        cut in 0usize..200,
        insert in "[ -~\t]{0,6}",
    ) {
        const LINES: [&str; 4] = [
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 bm Bb5; pv Bb5 a6 Ba4; id \"x\\\"y\";",
            "4k3/8/8/8/8/8/8/4K3 w - - ptp Event \"e\" Site \"s\"; ts 1995.11.26 10:00:00; cc 001:00:00:00 000:00:59:59;",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - sm e4; sv e4 e5; draw_offer; c0 \"a\"; v1;",
            "8/8/8/8/8/8/k7/4K2R w K - bm #3; Xpriv 1 \"2\"; noop a \"b\" c; refcom respond; refreq sign_on;",
        ];
        let l = LINES[idx % LINES.len()];
        let cut = cut % (l.len() + 1);
        let mut s = l.as_bytes()[..cut].to_vec();
        s.extend_from_slice(insert.as_bytes());
        s.extend_from_slice(&l.as_bytes()[cut..]);
        for mode in [Mode::Strict, Mode::Lenient] {
            if let Ok((rec, _)) = Record::parse(&s, mode) {
                let _ = rec.validate(mode);
                let text = rec.to_string();
                // Whatever reads, reads back to the same text.
                let (again, _) = Record::parse(text.as_bytes(), Mode::Lenient)
                    .map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
                prop_assert_eq!(again.to_string(), text);
            }
        }
    }
}
