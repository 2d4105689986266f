//! Scoutfish's queries: a JSON object read into a scan's [`Pattern`] and
//! the tests it makes on whole games, so that a query written for
//! Scoutfish searches a rookery database unchanged.
//!
//! A condition is an object of rules, every one of which must hold at the
//! same ply (a rule given a list holds if one of its values does):
//!
//! | rule | value | holds at a ply where |
//! |---|---|---|
//! | `sub-fen` | board, or list | the pieces shown stand on their squares ([`SubFen`]) |
//! | `material` | signature, or list | the material is exactly this (`KRPkr`, `KRPvKR`, or Scoutfish's `KRPKR`: Black's from the second `K`) |
//! | `imbalance` | signature, or list | White's pieces less Black's are these (`vP`, `PPvN`) |
//! | `white-move`, `black-move` | SAN, or list | that side plays this move from the position |
//! | `moved`, `captured` | piece letters | the move played moves, takes one of these (`""`: takes nothing) |
//! | `stm` | `white`, `black` | that side is to move |
//! | `pass` | anything | always |
//!
//! and two rules on the whole game, wherever they are written: `result`
//! (`1-0`, `0-1`, `1/2-1/2`, `*`, or a list; of several `result` rules
//! every one must hold) and `result-type` (`mate` or `stalemate`: how the
//! game ends).
//!
//! The query is a condition, or `{"sequence": [...]}` (conditions met in
//! order, each at a later ply; an item may be `{"streak": [...]}`), or
//! `{"streak": [...]}` (conditions met at consecutive plies): see
//! [`Pattern::Sequence`]. Beside them the query may say `result`,
//! `result-type`, and Scoutfish's `skip` (matches passed over) and `limit`
//! (matches reported). As Scoutfish does, a query reports for each game
//! the first ply each condition is met at (a single condition: the first
//! ply it holds at).
//!
//! ```
//! use rookery_db::scout::ScoutQuery;
//!
//! let q: ScoutQuery = r#"{ "sequence": [
//!     { "sub-fen": "rnbqkb1r/pp1p1ppp/4pn2/2pP4/2P5/2N5/PP2PPPP/R1BQKBNR" },
//!     { "streak": [ { "white-move": "e5" }, { "black-move": "dxe5" }, { "white-move": "f5" } ] },
//!     { "white-move": "Ne4" } ], "result": "1-0" }"#.parse()?;
//! assert_eq!(q.limit, None);
//! # Ok::<(), rookery_db::scan::ScanError>(())
//! ```
//!
//! [`SubFen`]: crate::scan::SubFen

use std::str::FromStr;

use rookery_core::Color;
use rookery_pgn::filter::{Criteria, FilterError, Material};
use rookery_pgn::GameResult;
use serde_json::{Map, Value};

use crate::scan::{Hit, Pattern, Query, ScanError, ScanReport};
use crate::{Database, DbError};

/// A Scoutfish query read: what to look for at the plies, and the tests on
/// whole games.
#[derive(Clone, Debug)]
pub struct ScoutQuery {
    /// What to look for at the plies of each game.
    pub pattern: Pattern,
    /// Results, one of which the game must have (`None`: any); empty when
    /// the query's `result` rules have none in common.
    pub results: Option<Vec<GameResult>>,
    /// The game must end in checkmate (`"result-type": "mate"`).
    pub checkmate: bool,
    /// The game must end in stalemate (`"result-type": "stalemate"`).
    pub stalemate: bool,
    /// Games found passed over before the first reported.
    pub skip: u64,
    /// The most games reported (`None`: all).
    pub limit: Option<u64>,
}

impl ScoutQuery {
    /// Adds the query's tests on whole games to `criteria`; whether a game
    /// can then pass at all (not when the results asked for have none in
    /// common, nor when it must end in both checkmate and stalemate).
    pub fn add_to(&self, criteria: &mut Criteria) -> bool {
        criteria.checkmate |= self.checkmate;
        criteria.stalemate |= self.stalemate;
        if let Some(results) = &self.results {
            if criteria.results.is_empty() {
                criteria.results = results.clone();
            } else {
                criteria.results.retain(|r| results.contains(r));
            }
            if criteria.results.is_empty() {
                return false;
            }
        }
        !(criteria.checkmate && criteria.stalemate)
    }
}

impl ScoutQuery {
    /// Runs the query over `db` ([`Database::scan`] on `jobs` threads):
    /// the games that pass `criteria` (which must be
    /// [`scan::scannable`](crate::scan::scannable)) and the query, each
    /// with the ply each condition is met at, to `found` (which returns
    /// whether to go on), the first [`ScoutQuery::skip`] passed over and at
    /// most [`ScoutQuery::limit`] given.
    ///
    /// # Errors
    /// [`Database::scan`]'s.
    pub fn run(
        &self,
        db: &Database,
        criteria: &Criteria,
        jobs: usize,
        found: &mut dyn FnMut(Hit) -> bool,
    ) -> Result<ScanReport, DbError> {
        let mut criteria = criteria.clone();
        if !self.add_to(&mut criteria) || self.limit == Some(0) {
            return Ok(ScanReport::default());
        }
        let mut passed = 0;
        let mut given = 0;
        db.scan(&criteria, &self.pattern, jobs, &mut |hit| {
            if passed < self.skip {
                passed += 1;
                return true;
            }
            given += 1;
            found(hit) && self.limit.is_none_or(|l| given < l)
        })
    }
}

impl FromStr for ScoutQuery {
    type Err = ScanError;

    /// A query in JSON (see the module documentation).
    fn from_str(text: &str) -> Result<ScoutQuery, ScanError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ScanError::Query {
            at: "the query".into(),
            reason: format!("not JSON: {e}"),
        })?;
        let Value::Object(top) = value else {
            return Err(bad("the query", "expected a JSON object"));
        };
        let mut read = Reading::default();
        let mut skip = 0;
        let mut limit = None;
        let mut rest = Map::new();
        let mut shape = None;
        for (key, v) in top {
            match key.as_str() {
                "skip" | "limit" => {
                    let n = v
                        .as_u64()
                        .ok_or_else(|| bad(&key, "expected a number of games (0 or more)"))?;
                    if key == "skip" {
                        skip = n;
                    } else {
                        limit = Some(n);
                    }
                }
                "sequence" | "streak" => {
                    if shape.is_some() {
                        return Err(bad(&key, "a query has one sequence or streak"));
                    }
                    shape = Some((key, v));
                }
                _ => {
                    rest.insert(key, v);
                }
            }
        }
        let pattern = match shape {
            None => Pattern::sequence(vec![vec![read.condition("the query", &rest)?]])?,
            Some((key, v)) => {
                // Beside a sequence, only rules on the whole game.
                for (k, v) in &rest {
                    if !read.game_rule(k, v, k)? {
                        return Err(bad(
                            k,
                            &format!("a rule on one position goes inside the {key}'s conditions"),
                        ));
                    }
                }
                let items = list_of(&key, &v)?;
                if key == "streak" {
                    Pattern::sequence(vec![read.streak(&key, items)?])?
                } else {
                    let mut steps = Vec::new();
                    for (i, item) in items.iter().enumerate() {
                        let at = format!("sequence[{i}]");
                        let Value::Object(o) = item else {
                            return Err(bad(&at, "expected a condition (a JSON object)"));
                        };
                        match o.get("streak") {
                            Some(s) => {
                                if o.len() > 1 {
                                    return Err(bad(
                                        &at,
                                        "a streak's rules go inside its conditions",
                                    ));
                                }
                                let at = format!("{at}.streak");
                                steps.push(read.streak(&at, list_of(&at, s)?)?);
                            }
                            None if o.contains_key("sequence") => {
                                return Err(bad(&at, "a sequence does not nest"));
                            }
                            None => steps.push(vec![read.condition(&at, o)?]),
                        }
                    }
                    Pattern::sequence(steps)?
                }
            }
        };
        Ok(ScoutQuery {
            pattern,
            results: read.results,
            checkmate: read.checkmate,
            stalemate: read.stalemate,
            skip,
            limit,
        })
    }
}

/// A [`ScanError::Query`] at `at`.
fn bad(at: &str, reason: &str) -> ScanError {
    ScanError::Query {
        at: at.to_owned(),
        reason: reason.to_owned(),
    }
}

/// The items of a list that must not be empty.
fn list_of<'v>(at: &str, v: &'v Value) -> Result<&'v Vec<Value>, ScanError> {
    match v {
        Value::Array(items) if !items.is_empty() => Ok(items),
        Value::Array(_) => Err(bad(at, "expected at least one condition")),
        _ => Err(bad(at, "expected a list of conditions")),
    }
}

/// A rule's value, a string or a list of strings, as strings.
fn strings(at: &str, v: &Value) -> Result<Vec<String>, ScanError> {
    match v {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| bad(at, "expected strings"))
            })
            .collect(),
        _ => Err(bad(at, "expected a string or a list of strings")),
    }
}

/// A rule's value that must be one string.
fn one_string<'v>(at: &str, v: &'v Value) -> Result<&'v str, ScanError> {
    v.as_str().ok_or_else(|| bad(at, "expected a string"))
}

/// Scoutfish writes a signature's two sides in capitals, Black's from the
/// second `K` (`KBNKP`); rookery's [`Material`] reads `KBNvKP`.
fn material_text(text: &str) -> String {
    let t = text.trim();
    if t.contains(['v', 'V']) || t.chars().any(|c| c.is_ascii_lowercase()) {
        return t.to_owned();
    }
    match t.char_indices().filter(|&(_, c)| c == 'K').nth(1) {
        Some((at, _)) => format!("{}v{}", &t[..at], &t[at..]),
        None => t.to_owned(),
    }
}

/// What reading a query gathers beside its conditions: the rules on the
/// whole game.
#[derive(Default)]
struct Reading {
    results: Option<Vec<GameResult>>,
    checkmate: bool,
    stalemate: bool,
}

impl Reading {
    /// Reads `key` if it is a rule on the whole game (whether it is).
    fn game_rule(&mut self, key: &str, v: &Value, at: &str) -> Result<bool, ScanError> {
        match key {
            "result" => {
                let mut these = Vec::new();
                for r in strings(at, v)? {
                    these.push(GameResult::from_ascii(r.trim().as_bytes()).ok_or_else(|| {
                        bad(at, &format!("{r:?} is not a result (1-0, 0-1, 1/2-1/2, *)"))
                    })?);
                }
                self.results = Some(match self.results.take() {
                    None => these,
                    Some(before) => before.into_iter().filter(|r| these.contains(r)).collect(),
                });
                Ok(true)
            }
            "result-type" => {
                match one_string(at, v)?.trim().to_ascii_lowercase().as_str() {
                    "mate" | "checkmate" => self.checkmate = true,
                    "stalemate" => self.stalemate = true,
                    other => {
                        return Err(bad(
                            at,
                            &format!("{other:?} is not a result type (mate, stalemate)"),
                        ))
                    }
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The conditions of a streak.
    fn streak(&mut self, at: &str, items: &[Value]) -> Result<Vec<Query>, ScanError> {
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let at = format!("{at}[{i}]");
                match item {
                    Value::Object(o) if o.contains_key("streak") || o.contains_key("sequence") => {
                        Err(bad(
                            &at,
                            "a streak holds conditions, not sequences or streaks",
                        ))
                    }
                    Value::Object(o) => self.condition(&at, o),
                    _ => Err(bad(&at, "expected a condition (a JSON object)")),
                }
            })
            .collect()
    }

    /// One condition: its rules on the position as a [`Query`].
    fn condition(&mut self, at: &str, rules: &Map<String, Value>) -> Result<Query, ScanError> {
        if rules.is_empty() {
            return Err(bad(
                at,
                "a condition with no rule (\"pass\": \"\" holds everywhere)",
            ));
        }
        let mut q = Query::default();
        let mut mover = None;
        for (key, v) in rules {
            let here = format!("{at}: {key}");
            if self.game_rule(key, v, &here)? {
                continue;
            }
            match key.as_str() {
                "sub-fen" => {
                    for s in strings(&here, v)? {
                        q.sub_fens.push(s.parse()?);
                    }
                }
                "material" => {
                    for s in strings(&here, v)? {
                        let m: Material = material_text(&s).parse().map_err(|e| {
                            let why = match e {
                                FilterError::Material { reason, .. } => reason.to_string(),
                                other => other.to_string(),
                            };
                            bad(&here, &format!("{s:?} is not a material signature: {why}"))
                        })?;
                        q.materials.push(m);
                    }
                }
                "imbalance" => {
                    for s in strings(&here, v)? {
                        q.imbalances.push(s.parse()?);
                    }
                }
                "white-move" | "black-move" => {
                    let side = if key == "white-move" {
                        Color::White
                    } else {
                        Color::Black
                    };
                    if mover.is_some_and(|m| m != side) {
                        return Err(bad(
                            at,
                            "white-move and black-move never hold at one ply (a streak finds one after the other)",
                        ));
                    }
                    mover = Some(side);
                    for s in strings(&here, v)? {
                        q.moves.push(s.parse()?);
                    }
                }
                "moved" => q.moved = Some(one_string(&here, v)?.parse()?),
                "captured" => q.captured = Some(one_string(&here, v)?.parse()?),
                "stm" => q.turn = Some(Query::parse_turn(one_string(&here, v)?)?),
                "pass" => {}
                "sequence" | "streak" => {
                    return Err(bad(
                        &here,
                        "a sequence or streak is not a rule of a condition",
                    ))
                }
                _ => {
                    return Err(bad(
                        &here,
                        "not a rule (sub-fen, material, imbalance, white-move, black-move, moved, \
                         captured, stm, pass, result, result-type)",
                    ))
                }
            }
        }
        if let Some(side) = mover {
            if q.turn.is_some_and(|t| t != side) {
                return Err(bad(
                    at,
                    "the side to move never plays the other side's move (stm and white-move/black-move)",
                ));
            }
            q.turn = Some(side);
        }
        Ok(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> ScoutQuery {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn steps(q: &ScoutQuery) -> Vec<usize> {
        match &q.pattern {
            Pattern::Sequence(s) => s.steps().iter().map(Vec::len).collect(),
            Pattern::Each(_) => panic!("a query reads as a sequence"),
        }
    }

    #[test]
    fn a_condition_is_a_sequence_of_one() {
        let q = read(r#"{"sub-fen": ["8/8/8/q7/8/8/8/8", "8/8/8/r7/8/8/8/8"], "stm": "WHITE"}"#);
        assert_eq!(steps(&q), [1]);
        let Pattern::Sequence(s) = &q.pattern else {
            unreachable!()
        };
        assert_eq!(s.steps()[0][0].sub_fens.len(), 2);
        assert_eq!(s.steps()[0][0].turn, Some(Color::White));
    }

    #[test]
    fn sequences_streaks_and_game_rules() {
        let q = read(
            r#"{ "sequence": [ { "sub-fen": "8/8/8/8/8/8/8/8", "result": ["1-0", "0-1"] },
                { "streak": [ { "white-move": "e5"}, { "black-move": "dxe5"}, { "white-move": "f5"} ] },
                { "white-move": "Ne4"} ], "result": "1-0", "skip": 5, "limit": 10 }"#,
        );
        assert_eq!(steps(&q), [1, 3, 1]);
        assert_eq!(q.results, Some(vec![GameResult::WhiteWins]));
        assert_eq!((q.skip, q.limit), (5, Some(10)));
        let Pattern::Sequence(s) = &q.pattern else {
            unreachable!()
        };
        assert_eq!(s.steps()[1][1].turn, Some(Color::Black));
        let q = read(
            r#"{"streak": [{"imbalance": "vP"}, {"imbalance": "vP"}], "result-type": "mate"}"#,
        );
        assert_eq!(steps(&q), [2]);
        assert!(q.checkmate && !q.stalemate);
        let mut c = Criteria::default();
        assert!(q.add_to(&mut c));
        assert!(c.checkmate);
        // Results with none in common: no game can pass.
        let q =
            read(r#"{"sequence": [{"pass": "", "result": "1-0"}, {"pass": "", "result": "0-1"}]}"#);
        assert_eq!(q.results, Some(vec![]));
        assert!(!q.add_to(&mut Criteria::default()));
    }

    #[test]
    fn scoutfish_material_reads_black_from_the_second_king() {
        let q = read(r#"{"material": ["KBNKNN", "KRPkr", "KQvK"]}"#);
        let Pattern::Sequence(s) = &q.pattern else {
            unreachable!()
        };
        let m = &s.steps()[0][0].materials;
        assert_eq!(m[0], "KBNvKNN".parse::<Material>().unwrap());
        assert_eq!(m[1], "KRPvKR".parse::<Material>().unwrap());
        assert_eq!(m[2], "KQvK".parse::<Material>().unwrap());
    }

    #[test]
    fn bad_queries_name_what_is_wrong() {
        for (text, names) in [
            ("[1, 2]", "expected a JSON object"),
            ("{\"sub-fen\": ", "not JSON"),
            ("{}", "no rule"),
            (r#"{"fen": "8/8/8/8/8/8/8/8"}"#, "fen"),
            (r#"{"sub-fen": "8/8/8"}"#, "8/8/8"),
            (r#"{"sequence": []}"#, "at least one"),
            (
                r#"{"sequence": [{"sequence": [{"pass": ""}]}]}"#,
                "sequence[0]",
            ),
            (r#"{"streak": [{"streak": [{"pass": ""}]}]}"#, "streak[0]"),
            (r#"{"sequence": [{"pass": ""}], "stm": "white"}"#, "stm"),
            (r#"{"white-move": "e4", "black-move": "e5"}"#, "never hold"),
            (r#"{"white-move": "e4", "stm": "black"}"#, "side to move"),
            (r#"{"result": "2-0"}"#, "2-0"),
            (r#"{"result-type": "resign"}"#, "resign"),
            (r#"{"pass": "", "limit": -1}"#, "limit"),
            (r#"{"material": "KXK"}"#, "KXK"),
        ] {
            let e = text.parse::<ScoutQuery>().expect_err(text).to_string();
            assert!(e.contains(names), "{text}: {e}");
        }
        let long = format!(
            r#"{{"streak": [{}]}}"#,
            vec![r#"{"pass": ""}"#; 65].join(",")
        );
        assert!(long.parse::<ScoutQuery>().is_err());
    }
}
