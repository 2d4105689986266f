//! cutechess-cli's result table of three or more engines in the columns its
//! `-resultformat` names, and its outcome list (`-outcomeinterval`).
//!
//! A format is a named one (`wide2`, `per-color`, ...) or a comma-separated
//! list of fields (`Rank,Name,Elo,Games,W,L,D`), in which a group name
//! (`WLDStats`, `DrawStats`, `Terminations`) stands for its fields. Each
//! field is a column with cutechess-cli's heading and width; the ending
//! columns (`Time`, `DRepet`, ...) count [`Ending`]s. cutechess-cli
//! accepts the fields `LOS`, `wElo`, `wError`, `wLOS`, `bElo`, `bError`
//! and prints nothing for them, and its groups name `wPoints` and `bPoints`,
//! which are no field: rookery does the same with both, so that a format
//! reads as it reads there. Any other word is refused by name.

use rookery_event::standings::{Ending, Standings};
use rookery_event::stats::Wdl;
use std::fmt::Write as _;

/// cutechess-cli's default format.
const DEFAULT: &str = "Rank,Name,Elo,Error,Games,Score,DScore";

/// cutechess-cli's named formats.
const NAMED: &[(&str, &str)] = &[
    ("concise", "Rank,Name,Elo,Error,Games"),
    ("default", DEFAULT),
    (
        "draws",
        "Rank,Name,Elo,Error,Games,W,L,D,Points,Score,DScore,DStale,DMater,DRepet,DMoves,DAdj,DAgree,OtherD",
    ),
    ("minimal", "Rank,Name"),
    ("ordo", "Rank,Name,Elo,Points,Games,Score"),
    (
        "per-color",
        "Rank,Name,Elo,Error,Games,W,L,D,Points,wW,wL,wD,wPoints,bW,bL,bD,bPoints",
    ),
    ("short", "Rank,Name,Elo,Games"),
    ("small", "Rank,Name,Games,Points"),
    (
        "term",
        "Rank,Name,Elo,Error,Games,Score,Time,Illegal,Discon,Stall,WrClaim",
    ),
    ("wide", "Rank,Name,Elo,Error,Games,W,L,D,Points,Score,DScore"),
    (
        "wide2",
        "Rank,Name,Elo,Error,Games,W,L,D,Points,Score,DScore,wScore,bScore",
    ),
    (
        "wide3",
        "Rank,Name,TC,Elo,Error,Games,WLDStats,DrawStats,Terminations",
    ),
    ("with-points", "Rank,Name,Elo,Error,Games,Points,Score,DScore"),
];

/// cutechess-cli's field groups.
const GROUPS: &[(&str, &str)] = &[
    (
        "DrawStats",
        "DScore,DStale,DMater,DRepet,DMoves,DAdj,DAgree,OtherD",
    ),
    ("Terminations", "Time,Illegal,Discon,Stall,WrClaim"),
    (
        "WLDStats",
        "W,L,D,Points,Score,wW,wL,wD,wPoints,wScore,bW,bL,bD,bPoints,bScore",
    ),
];

/// Words cutechess-cli takes in a format and prints nothing for.
const SILENT: &[&str] = &[
    "LOS", "wElo", "wError", "wLOS", "bElo", "bError", "wPoints", "bPoints",
];

/// One column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Field {
    Rank,
    Name,
    Elo,
    Error,
    Games,
    Wins,
    Losses,
    Draws,
    Points,
    Score,
    DrawScore,
    /// A side's score (`true`: White) or draw ratio.
    SideScore(bool),
    SideDrawScore(bool),
    /// A side's wins, losses or draws (`true`: White).
    SideWins(bool),
    SideLosses(bool),
    SideDraws(bool),
    /// Games of one ending.
    Count(Ending, &'static str),
    /// Draws by counting rules: those of variants rookery does not play, so
    /// none.
    CountingRules,
    /// The player's time control.
    TimeControl,
}

/// The fields by their names in a format.
fn field(word: &str) -> Option<Field> {
    use Ending::*;
    use Field::*;
    Some(match word {
        "Rank" => Rank,
        "Name" => Name,
        "Elo" => Elo,
        "Error" => Error,
        "Games" => Games,
        "W" => Wins,
        "L" => Losses,
        "D" => Draws,
        "Points" => Points,
        "Score" => Score,
        "DScore" => DrawScore,
        "wScore" => SideScore(true),
        "bScore" => SideScore(false),
        "wDScore" => SideDrawScore(true),
        "bDScore" => SideDrawScore(false),
        "wW" => SideWins(true),
        "wL" => SideLosses(true),
        "wD" => SideDraws(true),
        "bW" => SideWins(false),
        "bL" => SideLosses(false),
        "bD" => SideDraws(false),
        "Time" => Count(TimeForfeit, "Time"),
        "Illegal" => Count(IllegalMove, "Illegal"),
        "Discon" => Count(Disconnection, "Discon"),
        "Stall" => Count(StalledConnection, "Stall"),
        "WrClaim" => Count(InvalidClaim, "WrClaim"),
        "RegulL" => Count(RegularLoss, "RegulL"),
        "RegulW" => Count(RegularWin, "RegulW"),
        "OtherW" => Count(OtherWin, "OtherW"),
        "DStale" => Count(Stalemate, "DStale"),
        "DMater" => Count(InsufficientMaterial, "DMater"),
        "DRepet" => Count(Repetition, "DRepet"),
        "DMoves" => Count(MovesRule, "DMoves"),
        "DCount" => CountingRules,
        "DAdj" => Count(Adjudicated, "DAdj"),
        "DAgree" => Count(Agreement, "DAgree"),
        "OtherD" => Count(OtherDraw, "OtherD"),
        "TC" => TimeControl,
        _ => return None,
    })
}

/// The columns of cutechess-cli's result table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultFormat {
    fields: Vec<Field>,
}

impl Default for ResultFormat {
    fn default() -> ResultFormat {
        DEFAULT.parse().expect("the default format reads")
    }
}

impl std::str::FromStr for ResultFormat {
    type Err = String;

    /// A named format or a list of fields, as `-resultformat` takes them.
    fn from_str(text: &str) -> Result<ResultFormat, String> {
        let text = text.trim();
        let list = NAMED
            .iter()
            .find(|(name, _)| *name == text)
            .map_or(text, |(_, list)| *list);
        let mut fields = Vec::new();
        for word in list.split(',').map(|w| w.replace(' ', "")) {
            if word.is_empty() {
                continue;
            }
            let words = GROUPS
                .iter()
                .find(|(name, _)| *name == word)
                .map_or(word.clone(), |(_, group)| (*group).to_string());
            for w in words.split(',') {
                match field(w) {
                    Some(f) => fields.push(f),
                    None if SILENT.contains(&w) => {}
                    None => {
                        return Err(format!(
                            "unknown result field {w:?} (`-resultformat help` lists the fields)"
                        ))
                    }
                }
            }
        }
        if fields.is_empty() {
            return Err(format!("no result field in {text:?}"));
        }
        Ok(ResultFormat { fields })
    }
}

/// A side's score: points per game.
fn score(w: &Wdl) -> f64 {
    w.score().unwrap_or(0.0)
}

impl ResultFormat {
    /// What `-resultformat help` prints: the named formats, the fields and
    /// the groups.
    pub fn help() -> String {
        let mut out = String::from(
            "-resultformat takes a comma-separated list of fields or one of these format names:\n",
        );
        for (name, list) in NAMED {
            let _ = writeln!(out, "  {name:<12} {list}");
        }
        out.push_str("\nFields:\n ");
        let mut words: Vec<&str> = [
            "Rank", "Name", "Elo", "Error", "Games", "W", "L", "D", "Points", "Score", "DScore",
            "wScore", "bScore", "wDScore", "bDScore", "wW", "wL", "wD", "bW", "bL", "bD", "Time",
            "Illegal", "Discon", "Stall", "WrClaim", "RegulL", "RegulW", "OtherW", "DStale",
            "DMater", "DRepet", "DMoves", "DCount", "DAdj", "DAgree", "OtherD", "TC",
        ]
        .to_vec();
        words.sort_unstable();
        for w in words {
            let _ = write!(out, " {w}");
        }
        out.push_str("\n\nGroups:\n");
        for (name, list) in GROUPS {
            let _ = writeln!(out, "  {name:<12} {list}");
        }
        out
    }

    /// The table: a heading and a line per player, best first; `tcs` are
    /// the players' time controls in the event's order.
    pub fn table(&self, s: &Standings, tcs: &[String]) -> String {
        let mut out = String::new();
        for f in &self.fields {
            let _ = match f {
                Field::Rank => write!(out, "{:>4} ", "Rank"),
                Field::Name => write!(out, "{:<25} ", "Name"),
                Field::Points => write!(out, "{:>8} ", "Points"),
                Field::TimeControl => write!(out, "{:>14} ", "TC"),
                f => write!(out, "{:>7} ", heading(*f)),
            };
        }
        out.push('\n');
        for (rank, &i) in s.ranking().iter().enumerate() {
            let w = s.player(i);
            let e = w.estimate();
            let side = |white: bool| s.player_as(i, white);
            for f in &self.fields {
                let _ = match *f {
                    Field::Rank => write!(out, "{:>4} ", rank + 1),
                    Field::Name => write!(out, "{:<25} ", s.names()[i]),
                    Field::Elo => write!(out, "{:>7.0} ", e.map_or(f64::NAN, |e| e.elo)),
                    Field::Error => {
                        write!(out, "{:>7.0} ", e.map_or(f64::NAN, |e| e.elo_error()))
                    }
                    Field::Games => write!(out, "{:>7} ", w.games()),
                    Field::Wins => write!(out, "{:>7} ", w.wins),
                    Field::Losses => write!(out, "{:>7} ", w.losses),
                    Field::Draws => write!(out, "{:>7} ", w.draws),
                    Field::Points => write!(out, "{:>8.1} ", s.points(i)),
                    Field::Score => write!(out, "{:>6.1}% ", 100.0 * score(&w)),
                    Field::DrawScore => {
                        write!(out, "{:>6.1}% ", 100.0 * w.draw_ratio().unwrap_or(0.0))
                    }
                    Field::SideScore(white) => {
                        write!(out, "{:>6.1}% ", 100.0 * score(&side(white)))
                    }
                    Field::SideDrawScore(white) => write!(
                        out,
                        "{:>6.1}% ",
                        100.0 * side(white).draw_ratio().unwrap_or(0.0)
                    ),
                    Field::SideWins(white) => write!(out, "{:>7} ", side(white).wins),
                    Field::SideLosses(white) => write!(out, "{:>7} ", side(white).losses),
                    Field::SideDraws(white) => write!(out, "{:>7} ", side(white).draws),
                    Field::Count(kind, _) => write!(out, "{:>7} ", s.endings(i).count(kind)),
                    Field::CountingRules => write!(out, "{:>7} ", 0),
                    Field::TimeControl => {
                        write!(out, "{:>14} ", tcs.get(i).map(String::as_str).unwrap_or(""))
                    }
                };
            }
            out.push('\n');
        }
        out
    }
}

/// A column's heading, as cutechess-cli writes it.
fn heading(f: Field) -> &'static str {
    match f {
        Field::Rank => "Rank",
        Field::Name => "Name",
        Field::Elo => "Elo",
        Field::Error => "+/-",
        Field::Games => "Games",
        Field::Wins => "Wins",
        Field::Losses => "Losses",
        Field::Draws => "Draws",
        Field::Points => "Points",
        Field::Score => "Score",
        Field::DrawScore => "Draw",
        Field::SideScore(true) => "White",
        Field::SideScore(false) => "Black",
        Field::SideDrawScore(true) => "WDraw",
        Field::SideDrawScore(false) => "BDraw",
        Field::SideWins(true) => "WWins",
        Field::SideLosses(true) => "WLoss.",
        Field::SideDraws(true) => "WDraws",
        Field::SideWins(false) => "BWins",
        Field::SideLosses(false) => "BLoss.",
        Field::SideDraws(false) => "BDraws",
        Field::Count(_, name) => name,
        Field::CountingRules => "DCount",
        Field::TimeControl => "TC",
    }
}

/// cutechess-cli's outcome list: for each player in the event's order,
/// `Player: NAME` and its games by the ending in words, sorted.
pub fn outcome_lines(s: &Standings) -> Vec<String> {
    let mut out = Vec::new();
    for (i, name) in s.names().iter().enumerate() {
        out.push(format!("Player: {name}"));
        for (words, n) in &s.endings(i).words {
            out.push(format!("   \"{words}\": {n}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_formats_and_groups_expand() {
        let wide2: ResultFormat = "wide2".parse().unwrap();
        assert_eq!(wide2.fields.len(), 13);
        let wide3: ResultFormat = "wide3".parse().unwrap();
        // 6 + 15 group words less wPoints and bPoints + 8 + 5.
        assert_eq!(wide3.fields.len(), 6 + 13 + 8 + 5);
        let listed: ResultFormat = " Rank, Name ,LOS,Games ".parse().unwrap();
        assert_eq!(listed.fields, [Field::Rank, Field::Name, Field::Games]);
        assert!("Rank,Nmae"
            .parse::<ResultFormat>()
            .unwrap_err()
            .contains("Nmae"));
        assert!("LOS".parse::<ResultFormat>().is_err());
    }
}
