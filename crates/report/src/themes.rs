//! Breakdown of a run by theme: the `id` prefix (STS's
//! `"STS(v1.0) Undermine.001"` is theme `STS(v1.0) Undermine`), or the
//! string of an opcode such as `c1`.

use crate::model::{PositionResult, SuiteRun};
use rookery_epd::{Operation, RawOperand, Record};
use serde::Serialize;
use std::str::FromStr;

/// The theme of a line that could not be read.
pub const UNREADABLE: &str = "(unreadable)";
/// The theme of a position without an id (with [`ThemeSource::IdPrefix`]).
pub const NO_ID: &str = "(no id)";

/// Where a position's theme comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ThemeSource {
    /// The `id` without its trailing number: `WAC.001` -> `WAC`.
    #[default]
    IdPrefix,
    /// The operand(s) of this opcode (e.g. `c1`), as text. Only EPD input
    /// carries opcodes: runs read from JSON have no such theme.
    Opcode(String),
}

/// A theme source that is neither `id` nor a valid opcode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("theme {0:?}: expected `id` or an opcode such as `c1`")]
pub struct ParseThemeSourceError(pub String);

impl FromStr for ThemeSource {
    type Err = ParseThemeSourceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "id" {
            Ok(ThemeSource::IdPrefix)
        } else if rookery_epd::is_valid_opcode(s) {
            Ok(ThemeSource::Opcode(s.to_string()))
        } else {
            Err(ParseThemeSourceError(s.to_string()))
        }
    }
}

impl std::fmt::Display for ThemeSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ThemeSource::IdPrefix => f.write_str("id prefix"),
            ThemeSource::Opcode(op) => write!(f, "opcode {op}"),
        }
    }
}

/// The theme of an id: the id without its trailing digits and the
/// separators (`.`, space, `-`, `_`, `#`, `:`) before them; the whole id if
/// nothing would be left.
///
/// ```
/// use rookery_report::themes::id_theme;
/// assert_eq!(id_theme("STS(v1.0) Undermine.001"), "STS(v1.0) Undermine");
/// assert_eq!(id_theme("WAC.001"), "WAC");
/// assert_eq!(id_theme("Mate in 1 Test 3"), "Mate in 1 Test");
/// assert_eq!(id_theme("opening"), "opening");
/// ```
pub fn id_theme(id: &str) -> &str {
    let t = id
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim_end_matches(['.', ' ', '-', '_', '#', ':']);
    if t.is_empty() {
        id
    } else {
        t
    }
}

/// The theme of a position known only by its result (JSON input).
pub fn of_result(source: &ThemeSource, p: &PositionResult) -> String {
    match source {
        ThemeSource::IdPrefix => {
            p.id.as_deref()
                .map_or_else(|| NO_ID.to_string(), |id| id_theme(id).to_string())
        }
        ThemeSource::Opcode(op) => format!("(no {op})"),
    }
}

/// The theme of an EPD record.
pub fn of_record(source: &ThemeSource, rec: &Record) -> String {
    match source {
        ThemeSource::IdPrefix => rec
            .id()
            .map_or_else(|| NO_ID.to_string(), |id| id_theme(id).to_string()),
        ThemeSource::Opcode(op) => {
            let text = match rec.get(op) {
                Some(Operation::Comment(_, Some(s)) | Operation::Variation(_, Some(s))) => {
                    Some(s.clone())
                }
                Some(Operation::Id(s)) => Some(s.clone()),
                Some(Operation::Raw { operands, .. }) if !operands.is_empty() => Some(
                    operands
                        .iter()
                        .map(RawOperand::text)
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                Some(Operation::Comment(..) | Operation::Variation(..)) | None => None,
                Some(other) => {
                    // The operands as the record writes them: after the four
                    // fields and the opcode, without the final ';'.
                    let mut r = Record::new(rec.position().clone());
                    r.push(other.clone());
                    let written = r.to_string();
                    written
                        .splitn(6, ' ')
                        .nth(5)
                        .map(|v| v.trim_end_matches(';').to_string())
                }
            };
            text.filter(|t| !t.trim().is_empty())
                .unwrap_or_else(|| format!("(no {op})"))
        }
    }
}

/// Totals of one theme in one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThemeRow {
    /// The theme.
    pub theme: String,
    /// Positions that could be scored (errors included).
    pub positions: usize,
    /// Positions solved.
    pub solved: usize,
    /// Points scored.
    pub points: u64,
    /// Most points possible.
    pub max_points: u64,
}

impl ThemeRow {
    /// Solved positions as a percentage of the theme's positions.
    pub fn solved_percent(&self) -> f64 {
        if self.positions == 0 {
            0.0
        } else {
            100.0 * self.solved as f64 / self.positions as f64
        }
    }
}

/// One run's breakdown by theme.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThemeBreakdown {
    /// Index of the run in the report.
    pub run: usize,
    /// The run's engine and suite, in words.
    pub name: String,
    /// One row per theme, in order of first appearance in the suite.
    pub rows: Vec<ThemeRow>,
}

/// Totals per theme of `run`, `themes[i]` being the theme of position `i`
/// (positions past the end of `themes` get theme [`NO_ID`]). Positions that
/// ask for nothing are left out, as in [`crate::Summary`].
pub fn breakdown(index: usize, run: &SuiteRun, themes: &[String]) -> ThemeBreakdown {
    let mut rows: Vec<ThemeRow> = Vec::new();
    for (i, p) in run.positions.iter().enumerate() {
        if !p.is_scorable() {
            continue;
        }
        let theme = themes.get(i).map_or(NO_ID, String::as_str);
        let at = match rows.iter().position(|r| r.theme == theme) {
            Some(at) => at,
            None => {
                rows.push(ThemeRow {
                    theme: theme.to_string(),
                    positions: 0,
                    solved: 0,
                    points: 0,
                    max_points: 0,
                });
                rows.len() - 1
            }
        };
        let r = &mut rows[at];
        r.positions += 1;
        r.solved += usize::from(p.solved);
        r.points += u64::from(p.points);
        r.max_points += u64::from(p.max_points);
    }
    ThemeBreakdown {
        run: index,
        name: format!("{} on {}", run.engine, run.suite),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_themes() {
        assert_eq!(
            id_theme("STS(v3.0) Knight Outposts/Repositioning/Centralization.100"),
            "STS(v3.0) Knight Outposts/Repositioning/Centralization"
        );
        assert_eq!(id_theme("arasan2024.12"), "arasan2024");
        assert_eq!(id_theme("123"), "123");
    }

    #[test]
    fn opcode_themes() {
        let rec: Record = "4k3/8/8/8/8/8/8/4K3 w - - c1 \"endgame\"; Theme pawn_race; id \"x.1\";"
            .parse()
            .unwrap();
        assert_eq!(of_record(&"c1".parse().unwrap(), &rec), "endgame");
        assert_eq!(of_record(&"Theme".parse().unwrap(), &rec), "pawn_race");
        assert_eq!(of_record(&"c2".parse().unwrap(), &rec), "(no c2)");
        assert_eq!(of_record(&ThemeSource::IdPrefix, &rec), "x");
        assert!("no such".parse::<ThemeSource>().is_err());
    }
}
