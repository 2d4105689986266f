//! Round trips: generated game trees (variations, comments, NAGs, null moves,
//! set-up positions) written and read back are the same tree; every test file
//! written and read back gives the same games.

use proptest::prelude::*;
use rookery_core::{Move, Position};
use rookery_pgn::game::fen_of;
use rookery_pgn::{game_to_string, Game, GameResult, Games, Line, Nag, Node, Tags, WarningKind};

/// A small deterministic generator driven by proptest's seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

const WORDS: &[&str] = &[
    "good",
    "[Event \"x\"]",
    "[Site",
    "%escape",
    "[%clk 0:01:02]",
    "[%eval 0.31]",
    "a;b",
    "(x)",
    "100%",
    "$1",
    "\"q\"",
    "back\\slash",
    "e4",
    "1-0",
    "{",
    "}",
    "ünïcödé",
    "averyveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryveryverylongword",
];

fn comment(rng: &mut Rng) -> String {
    let n = rng.below(6);
    (0..n)
        .map(|_| WORDS[rng.below(WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

fn comments(rng: &mut Rng, one_in: usize) -> Vec<String> {
    if rng.chance(one_in) {
        (0..1 + rng.below(2)).map(|_| comment(rng)).collect()
    } else {
        Vec::new()
    }
}

fn gen_line(rng: &mut Rng, start: &Position, depth: usize) -> Line {
    let mut pos = start.clone();
    let mut line = Line::default();
    let len = rng.below(if depth == 0 { 30 } else { 6 });
    for i in 0..len {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = if !pos.is_check() && rng.chance(30) {
            Move::NULL
        } else {
            legal[rng.below(legal.len())]
        };
        let mut node = Node::new(mv);
        // Comments before a move are only distinguishable at the start of a
        // line or after a variation.
        let prev_has_vars = line.nodes.last().is_some_and(|n| !n.variations.is_empty());
        if i == 0 || prev_has_vars {
            node.comments_before = comments(rng, 4);
        }
        if rng.chance(4) {
            node.nags = (0..1 + rng.below(2))
                .map(|_| Nag(rng.below(256) as u8))
                .collect();
        }
        node.comments_after = comments(rng, 3);
        if depth < 2 && rng.chance(5) {
            node.variations = (0..1 + rng.below(2))
                .map(|_| gen_line(rng, &pos, depth + 1))
                .collect();
        }
        pos.play_unchecked(mv);
        line.nodes.push(node);
    }
    if line.nodes.last().is_none_or(|n| !n.variations.is_empty()) {
        line.trailing_comments = comments(rng, 3);
    }
    line
}

fn gen_game(seed: u64) -> Game {
    let mut rng = Rng(seed | 1);
    let mut tags = Tags::default();
    for (name, _) in rookery_pgn::game::SEVEN_TAG_ROSTER {
        tags.insert(
            name,
            format!(
                "{name} \"{}\" \\ {}",
                rng.below(100),
                WORDS[rng.below(WORDS.len())]
            ),
        );
    }
    let mut start = Position::startpos();
    if rng.chance(3) {
        for _ in 0..rng.below(30) {
            let legal = start.legal_moves();
            if legal.is_empty() {
                break;
            }
            start.play_unchecked(legal[rng.below(legal.len())]);
        }
        tags.insert("SetUp", "1".into());
        tags.insert("FEN", fen_of(&start));
    }
    if rng.chance(2) {
        tags.insert("Annotator", comment(&mut rng).replace(['{', '}'], ""));
    }
    let mainline = gen_line(&mut rng, &start, 0);
    let result = [
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
        GameResult::Unknown,
    ][rng.below(4)];
    tags.insert("Result", result.as_str().into());
    Game {
        tags,
        start,
        mainline,
        result,
    }
}

fn read_one(text: &str) -> rookery_pgn::ReadGame {
    let mut games = Games::new(text.as_bytes());
    let g = games.next().expect("one game").expect("no I/O error");
    assert!(games.next().is_none(), "more than one game in:\n{text}");
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn generated_trees_survive_write_and_read(seed in any::<u64>()) {
        let game = gen_game(seed);
        let text = game_to_string(&game);
        let read = read_one(&text);
        prop_assert!(read.error.is_none(), "{:?}\n{}", read.error, text);
        prop_assert_eq!(&read.game.tags, &game.tags);
        prop_assert_eq!(&read.game.start, &game.start);
        prop_assert_eq!(read.game.result, game.result);
        if read.game.mainline != game.mainline {
            prop_assert!(false, "trees differ:\n{}\n---\n{}", text, game_to_string(&read.game));
        }
        for line in text.lines() {
            // Lines stay within 80 characters unless one token is longer (or a
            // comment holding `}` had to be written as a `;` comment).
            prop_assert!(
                line.chars().count() <= 80 || !line.contains(' ') || line.starts_with('[')
                    || line.split(' ').any(|t| t.trim_start_matches('(').starts_with(';')),
                "long line {:?}", line
            );
        }
        // Writing again gives the same text.
        prop_assert_eq!(game_to_string(&read.game), text);
    }
}

/// A comment that quotes tag pairs (`[Event "x"]`) or holds a word
/// starting with `%`, wherever the lines wrap, is read back as the one
/// comment of the one game: no line of the comment starts as a tag (a
/// reader takes `[Event ` at the start of a line in a comment for the next
/// game, as a cut-off comment would need) or as an escape line (`%`).
#[test]
fn comments_quoting_tags_stay_comments_wherever_lines_wrap() {
    for quote in [
        "[Event \"cr\"] [Site \"cr\"]",
        "[Round \"?\"]",
        "%not an escape",
    ] {
        for pad in 0..90 {
            let text = format!("{}{quote} and more", "x ".repeat(pad));
            let mut game = Game::new();
            let mv = "e4"
                .parse::<rookery_core::San>()
                .unwrap()
                .to_move(&game.start)
                .unwrap();
            let mut node = Node::new(mv);
            node.comments_after.push(text.clone());
            game.mainline.nodes.push(node);
            let written = game_to_string(&game);
            let again = read_one(&written);
            assert!(
                again.error.is_none() && again.warnings.is_empty(),
                "{:?}\n{written}",
                again.warnings
            );
            assert_eq!(
                again.game.mainline.nodes[0].comments_after,
                [text],
                "{written}"
            );
            for line in written.lines().skip_while(|l| l.starts_with('[')).skip(1) {
                assert!(!line.starts_with(['[', '%']), "{line:?} in\n{written}");
            }
        }
    }
}

#[test]
fn every_test_file_survives_normalize() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "pgn") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        for g in Games::new(&bytes[..]) {
            let g = g.unwrap();
            if g.error.is_some() {
                continue;
            }
            let text = game_to_string(&g.game);
            let again = read_one(&text);
            assert!(
                again.error.is_none(),
                "{}: {:?}",
                path.display(),
                again.error
            );
            assert_eq!(
                again.game.mainline,
                g.game.mainline,
                "{}\n{text}",
                path.display()
            );
            assert_eq!(
                again.game.tags,
                g.game.exported_tags(),
                "{}",
                path.display()
            );
            assert_eq!(again.game.start, g.game.start);
            assert_eq!(again.game.result, g.game.result);
            // Normalize keeps the results as they were: what was said of
            // them may be said again.
            let unexpected: Vec<_> = again
                .warnings
                .iter()
                .filter(|w| {
                    !matches!(
                        w.kind,
                        WarningKind::ResultMismatch { .. } | WarningKind::ResultContradicted { .. }
                    )
                })
                .collect();
            assert!(
                unexpected.is_empty(),
                "{}: {unexpected:?}\n{text}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 150, "only {checked} games checked");
}

#[test]
fn move_numbers_after_comments_and_variations() {
    let g = read_one("1. e4 e5 {c} 2. Nf3 (2. f4 exf4) 2... Nc6 3. Bb5 $1 a6 *");
    let text = game_to_string(&g.game);
    let movetext: Vec<&str> = text.lines().skip(8).collect();
    assert_eq!(
        movetext,
        vec![
            "1. e4 e5 {c} 2. Nf3 (2. f4 exf4) 2... Nc6 3. Bb5 $1 a6 *",
            ""
        ]
    );
    let g = read_one("1. e4 {c} e5 (1... c5 {x}) {y} 2. d4 *");
    let text = game_to_string(&g.game);
    assert!(
        text.contains("1. e4 {c} 1... e5 (1... c5 {x}) {y} 2. d4 *"),
        "{text}"
    );
}

#[test]
fn long_movetext_wraps_at_80() {
    let mut pgn = String::new();
    for _ in 0..20 {
        pgn.push_str("Nf3 Nf6 Ng1 Ng8 ");
    }
    pgn.push_str(
        "{ a comment that goes on and on and on and on and on and on and on and on and on } *",
    );
    let g = read_one(&pgn);
    let text = game_to_string(&g.game);
    let lines: Vec<&str> = text.lines().skip(8).collect();
    assert!(lines.len() > 3);
    for l in &lines {
        assert!(l.len() <= 80, "{l:?}");
    }
    // Lines are filled: the next token would not have fitted.
    for w in lines.windows(2) {
        let next = w[1].split(' ').next().unwrap_or("");
        if !next.is_empty() {
            assert!(w[0].len() + 1 + next.len() > 80, "{w:?}");
        }
    }
}
