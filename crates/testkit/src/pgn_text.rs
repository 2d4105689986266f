//! PGN read as plain text, with no help from rookery's own reader: the
//! end-to-end tests check what the binaries write (games, tags, moves)
//! without trusting the code under test to read it back.
//!
//! ```
//! use rookery_testkit::pgn_text::{games, sans, tag};
//!
//! let pgn = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 {best} e5 2. Qh5 1-0\n\n[Event \"b\"]\n\n*\n";
//! let games = games(pgn);
//! assert_eq!(games.len(), 2);
//! assert_eq!(tag(&games[0], "Result"), Some("1-0"));
//! assert_eq!(sans(&games[0]), ["e4", "e5", "Qh5"]);
//! ```

/// The games of a PGN text, each from its `[Event` tag on (text before the
/// first `[Event` that is not blank counts as a game too).
pub fn games(pgn: &str) -> Vec<String> {
    pgn.split("[Event ")
        .filter(|g| !g.trim().is_empty())
        .map(|g| format!("[Event {g}"))
        .collect()
}

/// The value of the tag `name` in `game` (the first, if it stands twice).
pub fn tag<'a>(game: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("[{name} \"");
    let at = game.find(&key)? + key.len();
    let len = game[at..].find('"')?;
    Some(&game[at..at + len])
}

/// The moves of a game's movetext as written (SAN with any `+`/`#`): the
/// tag pairs before it, comments, move numbers and the result left out.
pub fn sans(game: &str) -> Vec<String> {
    let movetext: Vec<&str> = game
        .lines()
        .skip_while(|l| l.starts_with('[') || l.trim().is_empty())
        .collect();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut word = String::new();
    for c in movetext.join("\n").chars().chain([' ']) {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            c if depth == 0 && c.is_whitespace() => {
                let w = std::mem::take(&mut word);
                if ["*", "1-0", "0-1", "1/2-1/2"].contains(&w.as_str()) {
                    continue;
                }
                let w = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                if !w.is_empty() {
                    out.push(w.to_string());
                }
            }
            c if depth == 0 => word.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_may_wrap_onto_a_line_that_looks_like_a_tag() {
        let game = "[Event \"x\"]\n[White \"A\"]\n\n1. e4 {a long\n[%clk 0:01:00] comment} 1... c5 2. Nf3\n{} Nc6 1/2-1/2\n";
        assert_eq!(sans(game), ["e4", "c5", "Nf3", "Nc6"]);
        assert_eq!(tag(game, "White"), Some("A"));
        assert_eq!(tag(game, "Black"), None);
    }

    #[test]
    fn games_split_at_each_event_tag() {
        let pgn = "[Event \"1\"]\n\n1. d4 *\n\n[Event \"2\"]\n\n1. e4 *\n";
        let g = games(pgn);
        assert_eq!(g.len(), 2);
        assert_eq!(tag(&g[1], "Event"), Some("2"));
        assert_eq!(sans(&g[1]), ["e4"]);
        assert!(games("\n \n").is_empty());
    }
}
