//! The `[%clk ...]` and `[%eval ...]` commands embedded in comments (as
//! lichess, chess.com and ChessBase write them), read with python-chess's
//! rules: the first *valid* command of its kind in the text counts, one that
//! does not fit the form is passed over.
//!
//! ```
//! use rookery_pgn::commands::{clock, eval, CommentEval};
//!
//! let comment = "[%eval -0.35] [%clk 0:01:02.5] a slip";
//! assert_eq!(clock(comment), Some(62.5));
//! assert_eq!(eval(comment), Some(CommentEval::Centipawns(-35)));
//! assert_eq!(eval("[%eval #-3,22]"), Some(CommentEval::Mate(-3)));
//! assert_eq!(eval("[%eval 0.345]"), None); // at most two decimals
//! ```

/// An evaluation written as `[%eval ...]`, from White's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CommentEval {
    /// Centipawns: the pawns written (at most two decimals) times 100.
    Centipawns(i64),
    /// `#N`: mate in `N` moves, by White if positive, by Black if negative;
    /// `#0` means the side to move is checkmated.
    Mate(i64),
}

/// The time left on the mover's clock, in seconds, from the first valid
/// `[%clk H:MM:SS]` (seconds may have decimals: `[%clk 0:00:09.8]`) of
/// `comment`.
pub fn clock(comment: &str) -> Option<f64> {
    commands(comment, "[%clk").find_map(|rest| {
        let rest = rest.strip_prefix(|c: char| c.is_ascii_whitespace())?;
        let (hours, rest) = digits(rest)?;
        let (minutes, rest) = digits(rest.strip_prefix(':')?)?;
        let (whole, rest) = digits(rest.strip_prefix(':')?)?;
        let (seconds, rest) = match rest.strip_prefix('.') {
            Some(fraction) => {
                let end = fraction
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(fraction.len());
                let text = &rest[..end + 1];
                (format!("{whole}{text}"), &fraction[end..])
            }
            None => (whole.to_owned(), rest),
        };
        rest.strip_prefix(']')?;
        let hours: f64 = hours.parse().ok()?;
        let minutes: f64 = minutes.parse().ok()?;
        let seconds: f64 = seconds.parse().ok()?;
        Some(hours * 3600.0 + minutes * 60.0 + seconds)
    })
}

/// The first valid `[%eval ...]` of `comment`: pawns with at most two
/// decimals and at most ten digits before the point (`0.34`, `-1.5`, `3`,
/// `.5`), or `#N` / `#-N`, either maybe followed by `,DEPTH`.
pub fn eval(comment: &str) -> Option<CommentEval> {
    commands(comment, "[%eval").find_map(|rest| {
        let rest = rest.strip_prefix(|c: char| c.is_ascii_whitespace())?;
        let (value, rest) = match rest.strip_prefix('#') {
            Some(mate) => {
                let (negative, mate) = sign(mate);
                let (n, rest) = digits(mate)?;
                let n: i64 = n.parse().ok()?;
                (CommentEval::Mate(if negative { -n } else { n }), rest)
            }
            None => {
                let (negative, rest) = sign(rest);
                let (pawns, rest) = digits(rest).unwrap_or(("", rest));
                let (hundredths, rest) = match rest.strip_prefix('.') {
                    Some(after) => digits(after).unwrap_or(("", after)),
                    None => ("", rest),
                };
                // `\d{0,10}\.\d{1,2}` or `\d{1,10}\.?`.
                let fits = pawns.len() <= 10
                    && hundredths.len() <= 2
                    && (!hundredths.is_empty() || !pawns.is_empty());
                if !fits {
                    return None;
                }
                let whole: i64 = if pawns.is_empty() {
                    0
                } else {
                    pawns.parse().ok()?
                };
                let cents: i64 = match hundredths.len() {
                    0 => 0,
                    1 => hundredths.parse::<i64>().ok()? * 10,
                    _ => hundredths.parse().ok()?,
                };
                let cp = whole * 100 + cents;
                (
                    CommentEval::Centipawns(if negative { -cp } else { cp }),
                    rest,
                )
            }
        };
        let rest = match rest.strip_prefix(',') {
            Some(depth) => digits(depth)?.1,
            None => rest,
        };
        rest.strip_prefix(']')?;
        Some(value)
    })
}

/// What follows each `[%NAME` in `text` (`open`, which starts with `[`).
///
/// Found from each `[` (memchr): most comments have none, and a search for
/// the whole of `open` costs a searcher's set-up per comment (a fifth of
/// `positions()`'s time on engine-commented games, where every move has a
/// long comment).
fn commands<'a>(text: &'a str, open: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    debug_assert!(open.starts_with('['));
    memchr::memchr_iter(b'[', text.as_bytes())
        .filter(move |&i| text.as_bytes()[i..].starts_with(open.as_bytes()))
        .map(move |i| &text[i + open.len()..])
}

/// A leading run of ASCII digits (at least one) and the rest.
fn digits(s: &str) -> Option<(&str, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    (end > 0).then(|| s.split_at(end))
}

/// An optional `+` or `-`: whether it was `-`, and the rest.
fn sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

#[cfg(test)]
mod tests {
    use super::{clock, eval, CommentEval};

    #[test]
    fn clocks() {
        assert_eq!(clock("[%clk 1:02:03]"), Some(3723.0));
        assert_eq!(clock("x [%clk 0:00:09.8] y"), Some(9.8));
        assert_eq!(clock("[%clk 0:00:09.]"), Some(9.0));
        assert_eq!(clock("[%clk 0:00]"), None);
        assert_eq!(clock("[%clk  0:00:01]"), None);
        assert_eq!(clock("[%clk x] [%clk 0:00:01]"), Some(1.0));
        assert_eq!(clock("no clock"), None);
        assert_eq!(clock("[[%clk 0:00:02]"), Some(2.0));
        assert_eq!(clock("[%eval 1] [ [%clk 0:00:03] é"), Some(3.0));
    }

    #[test]
    fn evals() {
        assert_eq!(eval("[%eval 0.29]"), Some(CommentEval::Centipawns(29)));
        assert_eq!(eval("[%eval -.5]"), Some(CommentEval::Centipawns(-50)));
        assert_eq!(eval("[%eval 3.]"), Some(CommentEval::Centipawns(300)));
        assert_eq!(eval("[%eval +12,30]"), Some(CommentEval::Centipawns(1200)));
        assert_eq!(eval("[%eval #0]"), Some(CommentEval::Mate(0)));
        assert_eq!(eval("[%eval #+4]"), Some(CommentEval::Mate(4)));
        assert_eq!(eval("[%eval .]"), None);
        assert_eq!(eval("ü [[%eval -1.5]"), Some(CommentEval::Centipawns(-150)));
        assert_eq!(eval("[%eval 12345678901]"), None);
        assert_eq!(eval("[%eval 1,]"), None);
        assert_eq!(
            eval("[%eval x] [%eval 1]"),
            Some(CommentEval::Centipawns(100))
        );
    }
}
