//! A `{` comment that is never closed does not swallow the games after it:
//! the reader stops the comment before the next game's tags and reports an
//! error where the comment opened.

use rookery_pgn::{GameErrorKind, Games};

fn game(n: usize) -> String {
    format!("[Event \"g{n}\"]\n[Site \"?\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n")
}

#[test]
fn unclosed_comment_stops_at_the_next_event_tag() {
    let mut text = String::from(
        "[Event \"broken\"]\n[Result \"*\"]\n\n1. e4 {a comment that is never closed\n2. Nf3 *\n\n",
    );
    for n in 1..=6 {
        text.push_str(&game(n));
    }
    let games: Vec<_> = Games::new(text.as_bytes()).map(|g| g.unwrap()).collect();
    assert_eq!(games.len(), 7, "every game after the comment is read");
    let err = games[0]
        .error
        .as_ref()
        .expect("the broken game has an error");
    assert_eq!(
        (err.at.line, err.at.col),
        (4, 7),
        "where the comment opened"
    );
    assert!(
        matches!(err.kind, GameErrorKind::UnclosedComment { resumed_at: 7 }),
        "{err}"
    );
    for (i, g) in games[1..].iter().enumerate() {
        assert!(g.error.is_none(), "game {}: {:?}", i + 2, g.error);
        assert_eq!(
            g.game.tags.get("Event"),
            Some(format!("g{}", i + 1).as_str())
        );
        assert_eq!(g.game.mainline.nodes.len(), 7);
    }
}

#[test]
fn unclosed_comment_stops_at_a_tag_after_a_blank_line() {
    let text = "[Event \"a\"]\n\n1. e4 {open\n\n[Site \"x\"]\n[Result \"*\"]\n\n1. d4 *\n";
    let games: Vec<_> = Games::new(text.as_bytes()).map(|g| g.unwrap()).collect();
    assert_eq!(games.len(), 2);
    assert!(matches!(
        games[0].error.as_ref().map(|e| &e.kind),
        Some(GameErrorKind::UnclosedComment { resumed_at: 5 })
    ));
    assert_eq!(games[1].game.tags.get("Site"), Some("x"));
}

#[test]
fn a_bracket_inside_a_closed_comment_is_still_comment() {
    let text = "[Event \"a\"]\n\n1. e4 {see\n[Event \"b\"] in the book} e5 *\n";
    let games: Vec<_> = Games::new(text.as_bytes()).map(|g| g.unwrap()).collect();
    // A line starting `[Event ` inside a comment ends it: the recovery rule
    // trades this rare case for never losing whole games.
    assert_eq!(games.len(), 2);
}
