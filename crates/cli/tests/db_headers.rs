//! `rookery db search` on the header records (issue 47, header search):
//! every header criterion, alone, combined and inverted, keeps exactly the
//! games `rookery pgn filter` keeps of the same PGN, game by game, over
//! games with varied and odd headers (missing tags, `?`, unknown ratings,
//! partial dates, names in several cases) imported in three parts, so that
//! the header blocks are written, read back and continued.

use crate::common::{rookery_in, s, text};
use rookery_testkit::TempDir;

/// `n` games with varied headers (a fixed generator: the same games every
/// run), each with its number in its `Round` tag; split into three texts
/// (games 1 to `a`, to `b`, the rest).
fn odd_games(n: usize, a: usize, b: usize) -> [String; 3] {
    use rookery_core::{Position, SanPlus};
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |k: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % k.max(1)
    };
    // `None`: no such tag.
    const NAMES: [Option<&str>; 9] = [
        Some("Carlsen, Magnus"),
        Some("carlsen"),
        Some("Nakamura"),
        Some("NAKAMURA Hikaru"),
        Some("Ding Liren"),
        Some("Ölmez, Çağrı"),
        Some("de la Paz"),
        Some("?"),
        None,
    ];
    const ELOS: [Option<&str>; 9] = [
        Some("2700"),
        Some("2699"),
        Some("2701"),
        Some("2850"),
        Some("1500"),
        Some("?"),
        Some("-"),
        None,
        Some("2200"),
    ];
    const DATES: [Option<&str>; 10] = [
        Some("2024.01.15"),
        Some("2024.??.??"),
        Some("2024.01.??"),
        Some("????.??.??"),
        Some("2023.12.31"),
        Some("2024.02.29"),
        Some("1999.??.15"),
        Some("2024.02.01"),
        Some("?"),
        None,
    ];
    const ECOS: [Option<&str>; 9] = [
        Some("B20"),
        Some("B29"),
        Some("B19"),
        Some("B30"),
        Some("A00"),
        Some("E99"),
        Some("C42"),
        Some("?"),
        None,
    ];
    const EVENTS: [Option<&str>; 6] = [
        Some("Tata Steel"),
        Some("tata steel masters"),
        Some("World Blitz"),
        Some("?"),
        Some("Casual game"),
        None,
    ];
    const SITES: [Option<&str>; 3] = [Some("Wijk aan Zee"), Some("?"), None];
    let mut parts = [String::new(), String::new(), String::new()];
    for i in 1..=n {
        let mut pos = Position::startpos();
        let mut sans = Vec::new();
        // Mostly short games, some long ones (up to 120 plies).
        let plies = if next(4) == 0 { next(121) } else { next(40) };
        for _ in 0..plies {
            let legal: Vec<_> = pos.legal_moves().iter().copied().collect();
            if legal.is_empty() {
                break;
            }
            let m = legal[next(legal.len())];
            sans.push(SanPlus::from_move(&pos, m).to_string());
            pos.play_unchecked(m);
        }
        let result = if pos.is_checkmate() {
            if pos.turn() == rookery_core::Color::White {
                "0-1"
            } else {
                "1-0"
            }
        } else if pos.legal_moves().is_empty() {
            "1/2-1/2"
        } else {
            ["1-0", "0-1", "1/2-1/2", "*"][next(4)]
        };
        let mut text = String::new();
        let mut tag = |name: &str, value: Option<&str>| {
            if let Some(v) = value {
                text.push_str(&format!("[{name} \"{v}\"]\n"));
            }
        };
        tag("Event", EVENTS[next(EVENTS.len())]);
        tag("Site", SITES[next(SITES.len())]);
        tag("Date", DATES[next(DATES.len())]);
        tag("Round", Some(&i.to_string()));
        tag("White", NAMES[next(NAMES.len())]);
        tag("Black", NAMES[next(NAMES.len())]);
        tag("Result", Some(result));
        tag("WhiteElo", ELOS[next(ELOS.len())]);
        tag("BlackElo", ELOS[next(ELOS.len())]);
        tag("ECO", ECOS[next(ECOS.len())]);
        text.push('\n');
        for (k, san) in sans.iter().enumerate() {
            if k % 2 == 0 {
                text.push_str(&format!("{}. ", k / 2 + 1));
            }
            text.push_str(san);
            text.push(' ');
        }
        text.push_str(result);
        text.push_str("\n\n");
        let part = usize::from(i > a) + usize::from(i > b);
        parts[part].push_str(&text);
    }
    parts
}

/// Every header criterion of `db search` keeps the games `pgn filter`
/// keeps (by number: the games are stored in input order, and each one's
/// `Round` is its number), with `--count` the same; the database imported
/// in three parts (1,000 games, 30, then 1,070: a block continued twice
/// and a second block begun).
#[test]
fn header_search_keeps_what_pgn_filter_keeps() {
    let t = TempDir::new("db-headers");
    let db = t.join("g.rdb");
    let parts = odd_games(2100, 1000, 1030);
    let all = t.write("all.pgn", parts.concat());
    for (i, part) in parts.iter().enumerate() {
        let pgn = t.write(&format!("part{i}.pgn"), part);
        let import = rookery_in(t.path(), &["db", "import", s(&db), s(&pgn), "-q"], b"");
        assert_eq!(import.status.code(), Some(0), "{}", text(&import.stderr));
    }
    let tests: &[&[&str]] = &[
        // Players: either colour, a part of the name, any case.
        &["--player", "carlsen"],
        &["--player", "CARLSEN"],
        &["--player", "nakamura h"],
        &["--player", "LMEZ, ç"],
        &["--player", "ding", "--player", "de la"],
        &["--player", "carlsen", "--invert"],
        &["--player", "magnus", "--player", "nobody"],
        &["--player", "nobody"],
        // Ratings (both players), unknown ratings never within.
        &["--elo", "2700"],
        &["--elo", "2700..2800"],
        &["--elo", "..2699"],
        &["--elo", "1500..1500"],
        &["--elo", "2700", "--invert"],
        // Dates, partial ones too.
        &["--date", "2024"],
        &["--date", "2024.01"],
        &["--date", "2024.01.15"],
        &["--date", "2024.01..2024.02"],
        &["--date", "..2023.12.31"],
        &["--date", "1999"],
        &["--date", "2024.02.29..2024"],
        // ECO codes.
        &["--eco", "B20..B29"],
        &["--eco", "A00"],
        &["--eco", "C00..E99"],
        &["--eco", "..B19"],
        // Results and lengths.
        &["--result", "1/2-1/2"],
        &["--result", "1-0", "--result", "0-1"],
        &["--result", "*"],
        &["--plies", "100.."],
        &["--plies", "..20"],
        &["--plies", "0"],
        &["--plies", "10..40", "--invert"],
        // Event, site and other tags. (A stored game's missing name reads
        // `?` and an ECO of `?` is none, where `pgn filter` reads the tag
        // as it is: tests that a missing tag or `?` would pass one way
        // and not the other, `Site=?` or `ECO<B30`, are left out.)
        &["--tag", "Event=Tata Steel"],
        &["--tag", "Event~tata"],
        &["--tag", "Event!=?"],
        &["--tag", "Site=Wijk aan Zee"],
        &["--tag", "WhiteElo>2700"],
        &["--tag", "BlackElo<=1500"],
        &["--tag", "Date>=2024.01"],
        &["--tag", "Date<2024"],
        &["--tag", "ECO>B19"],
        &["--tag", "Round<=100"],
        &["--tag", "White~^carlsen$"],
        &["--tag", "Black~a"],
        &["--tag", "Result=1-0"],
        // (A tag the database does not keep, Annotator, is refused:
        // db_scan.rs.)
        // Combinations.
        &["--player", "carlsen", "--elo", "2700", "--result", "1-0"],
        &["--eco", "B20..B29", "--date", "2024", "--invert"],
        &[
            "--player",
            "naka",
            "--plies",
            "..30",
            "--tag",
            "Event~blitz",
        ],
        &[
            "--player", "carlsen", "--date", "2024.01", "--eco", "B20..B30", "--result", "1/2-1/2",
            "--result", "*",
        ],
        &[
            "--elo",
            "2200..",
            "--tag",
            "Site~wijk",
            "--plies",
            "1..",
            "--invert",
        ],
    ];
    let mut kept_some = 0;
    for test in tests {
        let listed = rookery_in(
            t.path(),
            &[&["db", "search", s(&db)][..], test].concat(),
            b"",
        );
        let from_db: Vec<u64> = text(&listed.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(
            listed.status.code(),
            Some(if from_db.is_empty() { 1 } else { 0 }),
            "{test:?}: {}",
            text(&listed.stderr)
        );
        let filtered = rookery_in(
            t.path(),
            &[&["pgn", "filter", s(&all), "-q"][..], test].concat(),
            b"",
        );
        let from_filter: Vec<u64> = text(&filtered.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("[Round \""))
            .map(|l| l.trim_end_matches("\"]").parse().unwrap())
            .collect();
        assert_eq!(from_db, from_filter, "{test:?}");
        let count = rookery_in(
            t.path(),
            &[&["db", "search", s(&db)][..], test, &["--count"]].concat(),
            b"",
        );
        assert_eq!(
            text(&count.stdout).trim(),
            from_db.len().to_string(),
            "{test:?}"
        );
        if !from_db.is_empty() && from_db.len() < 2100 {
            kept_some += 1;
        }
    }
    assert!(
        kept_some * 10 >= tests.len() * 8,
        "only {kept_some} tests kept some games and not all"
    );
}
