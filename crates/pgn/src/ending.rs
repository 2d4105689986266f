//! What a game's last position says about its result.
//!
//! A game whose last move mates has been won by the side that moved; one
//! whose last move stalemates is drawn, whatever the file says. Any other
//! game may have ended any way (resignation, time, agreement, adjudication),
//! so its result is never questioned. [`Ending`] is what the last position
//! says; the reader ([`crate::GameBuilder`]) finds it for every game with at
//! least one mainline move and no error ([`crate::ReadGame::ending`]) and
//! warns where the Result tag or the game-termination marker says otherwise
//! ([`crate::WarningKind::ResultContradicted`]); [`Game::fix_result`]
//! corrects both, as `pgn-extract --fixresulttags` does.
//!
//! ```
//! use rookery_pgn::{Games, GameResult, WarningKind};
//! use rookery_pgn::ending::{Ending, ResultSource};
//! use rookery_core::Color;
//!
//! let pgn = "[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n";
//! let mut read = Games::new(pgn.as_bytes()).next().unwrap()?;
//! let ending = Ending::Checkmate { winner: Color::Black };
//! assert_eq!(read.ending, Some(ending));
//! // One warning for the tag and the marker that say the same wrong thing.
//! assert_eq!(
//!     read.warnings[0].kind,
//!     WarningKind::ResultContradicted {
//!         ending,
//!         stated: GameResult::WhiteWins,
//!         by: ResultSource::Tag,
//!     }
//! );
//! assert_eq!(
//!     read.warnings[0].kind.to_string(),
//!     "the final position is checkmate: Black won, but Result says 1-0"
//! );
//! assert!(read.game.fix_result(read.ending));
//! assert_eq!(read.game.tags.get("Result"), Some("0-1"));
//! assert_eq!(read.game.result, GameResult::BlackWins);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;

use rookery_core::{Color, Position};

use crate::game::Game;
use crate::types::GameResult;

/// How a game's last position ends it by the rules, when it does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// The side to move is checkmated.
    Checkmate {
        /// The side that gave mate.
        winner: Color,
    },
    /// The side to move has no legal move and is not in check.
    Stalemate,
}

impl Ending {
    /// What `pos` says: `None` while the side to move has a legal move.
    pub fn of(pos: &Position) -> Option<Ending> {
        if pos.has_legal_move() {
            return None;
        }
        Some(if pos.is_check() {
            Ending::Checkmate {
                winner: pos.turn().other(),
            }
        } else {
            Ending::Stalemate
        })
    }

    /// The one result this ending allows.
    pub fn result(self) -> GameResult {
        match self {
            Ending::Checkmate {
                winner: Color::White,
            } => GameResult::WhiteWins,
            Ending::Checkmate {
                winner: Color::Black,
            } => GameResult::BlackWins,
            Ending::Stalemate => GameResult::Draw,
        }
    }
}

/// `checkmate: White won`, `stalemate: a draw`.
impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Checkmate {
                winner: Color::White,
            } => f.write_str("checkmate: White won"),
            Ending::Checkmate {
                winner: Color::Black,
            } => f.write_str("checkmate: Black won"),
            Ending::Stalemate => f.write_str("stalemate: a draw"),
        }
    }
}

/// Where a game states its result.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ResultSource {
    /// The `Result` tag.
    Tag,
    /// The game-termination marker after the moves.
    Marker,
}

/// `Result`, `the game-termination marker`.
impl fmt::Display for ResultSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ResultSource::Tag => "Result",
            ResultSource::Marker => "the game-termination marker",
        })
    }
}

impl Game {
    /// The result that the Result tag and the game-termination marker
    /// ([`Game::result`]) should both state, when either must change;
    /// `ending` is what the last position says ([`crate::ReadGame::ending`]).
    ///
    /// As `pgn-extract --fixresulttags` decides: a mate or a stalemate
    /// gives the result. Otherwise, a tag and a marker that disagree, one
    /// of them `*`, are made to say what the marker says (a `*` marker
    /// included); two different decisive or drawn results are left as they
    /// are, since nothing says which is right. A missing tag needs no
    /// change (the writer writes the marker's result); a tag that is not a
    /// result (`1-0 (time)`) is replaced wherever the result is decided.
    pub fn corrected_result(&self, ending: Option<Ending>) -> Option<GameResult> {
        let tag = self.tags.get("Result").map(str::trim);
        let says = |t: &str| GameResult::from_ascii(t.as_bytes());
        let want = match ending {
            Some(e) => e.result(),
            None => {
                let stated = says(tag?);
                if stated == Some(self.result)
                    || (self.result != GameResult::Unknown && stated != Some(GameResult::Unknown))
                {
                    return None;
                }
                self.result
            }
        };
        let tag_right = tag.is_none_or(|t| says(t) == Some(want));
        (!tag_right || self.result != want).then_some(want)
    }

    /// Corrects the Result tag (when there is one) and the
    /// game-termination marker as [`Game::corrected_result`] says;
    /// returns whether anything changed.
    pub fn fix_result(&mut self, ending: Option<Ending>) -> bool {
        let Some(result) = self.corrected_result(ending) else {
            return false;
        };
        if self.tags.get("Result").is_some() {
            self.tags.insert("Result", result.as_str().to_owned());
        }
        self.result = result;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tags;

    fn game(tag: Option<&str>, marker: GameResult) -> Game {
        let mut g = Game::new();
        g.tags = Tags::from_iter(tag.map(|t| ("Result", t)));
        g.result = marker;
        g
    }

    const MATE_BY_BLACK: Option<Ending> = Some(Ending::Checkmate {
        winner: Color::Black,
    });

    #[test]
    fn endings_of_positions() {
        let pos = |fen: &str| Position::from_fen(fen).expect("a legal position");
        assert_eq!(Ending::of(&Position::startpos()), None);
        let mated = pos("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        assert_eq!(Ending::of(&mated), MATE_BY_BLACK);
        let stalemated = pos("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1");
        assert_eq!(Ending::of(&stalemated), Some(Ending::Stalemate));
        assert_eq!(Ending::Stalemate.result(), GameResult::Draw);
    }

    #[test]
    fn a_mate_or_stalemate_decides_tag_and_marker() {
        use GameResult::*;
        for (tag, marker) in [
            (Some("1-0"), WhiteWins),
            (Some("1/2-1/2"), Draw),
            (Some("*"), Unknown),
            (None, WhiteWins),
            (Some("0-1"), WhiteWins),
            (Some("1-0"), BlackWins),
            (Some("0-1 (time)"), BlackWins),
        ] {
            let mut g = game(tag, marker);
            assert!(g.fix_result(MATE_BY_BLACK), "{tag:?} {marker}");
            assert_eq!(g.result, BlackWins);
            assert_eq!(g.tags.get("Result"), tag.map(|_| "0-1"));
        }
        let mut right = game(Some("0-1"), BlackWins);
        assert!(!right.fix_result(MATE_BY_BLACK));
        let drawn = game(Some("½-½"), Draw);
        assert_eq!(drawn.corrected_result(Some(Ending::Stalemate)), None);
        assert!(game(Some("0-1"), BlackWins).fix_result(Some(Ending::Stalemate)));
    }

    #[test]
    fn without_an_ending_the_marker_wins_only_over_or_as_a_star() {
        use GameResult::*;
        let fixed = |tag: &str, marker| game(Some(tag), marker).corrected_result(None);
        assert_eq!(fixed("*", WhiteWins), Some(WhiteWins));
        assert_eq!(fixed("1-0", Unknown), Some(Unknown));
        assert_eq!(fixed("1-0 (time)", Unknown), Some(Unknown));
        assert_eq!(fixed("1-0", BlackWins), None);
        assert_eq!(fixed("1-0 (time)", BlackWins), None);
        assert_eq!(fixed("1-0", WhiteWins), None);
        assert_eq!(game(None, Unknown).corrected_result(None), None);
    }
}
