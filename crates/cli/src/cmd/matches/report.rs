//! What `rookery match` prints as the games go, in one of three formats
//! (`--output`): rookery's own, or the lines cutechess-cli or fastchess
//! print, so that a script written to read theirs reads rookery's. Every
//! figure comes from rookery's statistics (`rookery_event::stats` through
//! the standings): this module only writes them.
//!
//! cutechess-cli (its `enginematch.cpp` and `tournament.cpp`): `Started
//! game N of M (W vs B)`, `Finished game N (W vs B): 1-0 {reason}`, for two
//! engines `Score of A vs B: W - L - D  [0.500] N` after every game, every
//! `--ratinginterval` games and at the end the results (two engines: the
//! first engine's games with White and with Black, `Elo difference: X +/-
//! Y, LOS: Z %, DrawRatio: W %` from the game counts, `SPRT: llr ...
//! (P%), lbound L, ubound U` and whether a hypothesis was accepted; more:
//! the ranking), and `Finished match`.
//!
//! fastchess (its `output_fastchess.hpp`): the same game lines, and every
//! `--ratinginterval` game pairs (games, with `--report penta=false`) the
//! block `Results of A vs B (tc, threads, hash, book):` with `Elo:`,
//! `nElo:`, `LOS:`, `DrawRatio:`, `PairsRatio:`, `Games:`, `Ptnml(0-2):`
//! and `LLR:` lines between dashes; at the end `Tournament finished` or
//! `SPRT ([E0, E1]) completed - H0 was accepted`. fastchess adds the ratio
//! of a win and a loss to two draws after `Ptnml(0-2)`; rookery counts both
//! as one-point pairs, so that part is left out.

use super::result_format::{outcome_lines, ResultFormat};
use rookery_event::knockout::KnockoutReport;
use rookery_event::runner::SprtReport;
use rookery_event::schedule::Pairing;
use rookery_event::standings::Standings;
use rookery_event::stats::{EloEstimate, Sprt, SprtState, SprtStatus, Wdl};
use rookery_event::tournament::{MatchPlan, MatchStop, MatchSummary};
use rookery_game::player::EngineConfig;
use rookery_game::pvcheck::PvReport;
use rookery_game::record::GameRecord;

/// The output format (`--output`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rookery's own lines.
    #[default]
    Rookery,
    /// cutechess-cli's lines.
    Cutechess,
    /// fastchess's lines.
    Fastchess,
}

/// A line to print: on standard output (the commentary), or standard error
/// (what a script reading a peer's output does not expect there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Say {
    /// Standard output.
    Out(String),
    /// Standard error.
    Err(String),
}

/// Writes the match as it goes.
pub struct Printer<'a> {
    format: Format,
    plan: &'a MatchPlan,
    total: usize,
    /// Print the statistics every this many games (fastchess: pairs); 0:
    /// only at the end.
    rating_interval: u64,
    /// cutechess-cli's score line every this many games; 0: only at the end.
    score_interval: u64,
    /// fastchess's statistics of game pairs (`--report penta=true`).
    penta: bool,
    sprt: Option<Sprt>,
    /// Games counted when the statistics were last printed.
    printed_at: Option<u64>,
    /// Pairs counted when fastchess's block was last printed.
    pairs_printed: u64,
    /// cutechess-cli's result table of three or more engines.
    result_format: ResultFormat,
    /// cutechess-cli's outcome list every this many games and at the end;
    /// 0: never.
    outcome_interval: u64,
    /// The players' time controls (the table's `TC`).
    tcs: Vec<String>,
}

impl<'a> Printer<'a> {
    /// A printer for `plan`'s match.
    pub fn new(
        format: Format,
        plan: &'a MatchPlan,
        rating_interval: u64,
        score_interval: u64,
        penta: bool,
    ) -> Printer<'a> {
        Printer {
            format,
            plan,
            total: plan.total_games(),
            rating_interval,
            score_interval,
            penta: penta && plan.games == 2,
            sprt: plan.sprt,
            printed_at: None,
            pairs_printed: 0,
            result_format: ResultFormat::default(),
            outcome_interval: 0,
            tcs: plan.engines.iter().map(|e| e.tc.to_string()).collect(),
        }
    }

    /// With cutechess-cli's lines: the result table's columns
    /// (`-resultformat`) and the outcome list every `outcome_interval`
    /// games and at the end (`-outcomeinterval`; 0: never).
    pub fn cutechess_tables(mut self, format: ResultFormat, outcome_interval: u64) -> Printer<'a> {
        self.result_format = format;
        self.outcome_interval = outcome_interval;
        self
    }

    /// cutechess-cli's outcome list, after an empty line as it prints it.
    fn outcomes(s: &Standings) -> Vec<Say> {
        std::iter::once(String::new())
            .chain(outcome_lines(s))
            .map(Say::Out)
            .collect()
    }

    fn two(&self) -> bool {
        self.plan.engines.len() == 2
    }

    /// A game began (or went on from where it was cut off).
    pub fn started(&self, number: usize, white: &str, black: &str, resumed: bool) -> Vec<Say> {
        let verb = if resumed && self.format == Format::Rookery {
            "Resumed"
        } else {
            "Started"
        };
        // A knockout's number of games is known only at its end.
        if self.plan.pairing == Pairing::Knockout && self.format == Format::Rookery {
            return vec![Say::Out(format!(
                "{verb} game {} ({white} vs {black})",
                number + 1
            ))];
        }
        vec![Say::Out(format!(
            "{verb} game {} of {} ({white} vs {black})",
            number + 1,
            self.total
        ))]
    }

    /// A game ended; `standings` and `sprt` (the match's SPRT, if one
    /// runs) count it.
    pub fn finished(
        &mut self,
        record: &GameRecord,
        standings: &Standings,
        sprt: Option<&SprtReport>,
    ) -> Vec<Say> {
        let sprt = sprt.map(SprtReport::shown);
        let mut out = Vec::new();
        if let (Format::Fastchess, Some((loser, mv))) = (self.format, record.illegal_move()) {
            // fastchess's warning (fishtest stops a task on it).
            out.push(Say::Out(format!(
                "Warning; Illegal move {mv} played by {loser}"
            )));
        }
        out.push(Say::Out(format!(
            "Finished game {} ({} vs {}): {} {{{}}}",
            record.number + 1,
            record.white,
            record.black,
            record.outcome.as_str(),
            record.reason
        )));
        let games = standings.games();
        let every = |n: u64| every_n(games, n);
        let mut after = Vec::new();
        let statistics = match self.format {
            Format::Rookery => {
                if self.two() {
                    out.push(Say::Out(score_line(standings)));
                }
                every(self.rating_interval).then(|| self.rookery_statistics(standings))
            }
            Format::Cutechess => {
                if self.two() && every(self.score_interval) {
                    out.push(Say::Out(score_line(standings)));
                }
                if self.outcome_interval > 0 && every(self.outcome_interval) {
                    // After the ranking, as cutechess-cli prints them.
                    after = Self::outcomes(standings);
                }
                every(self.rating_interval).then(|| self.cutechess_results(standings, sprt))
            }
            Format::Fastchess => {
                let due = if self.penta && self.two() {
                    // Every N pairs, when a pair completes.
                    let pairs = standings.versus(0, 1).ptnml.pairs();
                    let due = pairs != self.pairs_printed && every_n(pairs, self.rating_interval);
                    if due {
                        self.pairs_printed = pairs;
                    }
                    due
                } else {
                    every(self.rating_interval)
                };
                due.then(|| self.fastchess_results(standings, sprt))
            }
        };
        if let Some(lines) = statistics {
            out.extend(lines);
            self.printed_at = Some(games);
        }
        out.extend(after);
        out
    }

    /// The SPRT decided (no new game starts).
    pub fn decided(&self, report: &SprtReport) -> Vec<Say> {
        match self.format {
            Format::Rookery => decision_text(report).map(Say::Out).into_iter().collect(),
            // The peers say it with the results at the end.
            Format::Cutechess | Format::Fastchess => Vec::new(),
        }
    }

    /// An engine does not have an option its configuration sets: fastchess's
    /// warning line in fastchess's lines (fishtest stops a task on it),
    /// else a note.
    pub fn missing_option(&self, engine: &str, option: &str) -> Vec<Say> {
        match self.format {
            Format::Fastchess => vec![Say::Out(format!(
                "Warning; {engine} doesn't have option {option}"
            ))],
            Format::Rookery | Format::Cutechess => self.note(&format!(
                "Warning: engine {engine} has no option {option:?}: it is not set"
            )),
        }
    }

    /// An engine's option was set to a value it does not take: fastchess's
    /// warning line in fastchess's lines (fishtest stops a task on it),
    /// else a note.
    pub fn refused_value(&self, engine: &str, option: &str, value: &str) -> Vec<Say> {
        match self.format {
            Format::Fastchess => vec![Say::Out(format!(
                "Warning; Invalid value for option {option}; {value}"
            ))],
            Format::Rookery | Format::Cutechess => self.note(&format!(
                "Warning: engine {engine}'s option {option:?} does not take {value:?}: it is not set"
            )),
        }
    }

    /// An engine's PV was wrong for its game: fastchess's warning line in
    /// fastchess's lines (fishtest and OpenBench read them), else a note.
    pub fn pv_warning(&self, game: usize, engine: &str, report: &PvReport) -> Vec<Say> {
        match self.format {
            Format::Fastchess => vec![Say::Out(report.fastchess_line(engine))],
            Format::Rookery | Format::Cutechess => vec![Say::Err(format!(
                "warning: game {}: {engine}: {} ({})",
                game + 1,
                report.warning,
                report.info
            ))],
        }
    }

    /// Something the user should know.
    pub fn note(&self, text: &str) -> Vec<Say> {
        match self.format {
            Format::Rookery => vec![Say::Out(text.to_string())],
            Format::Cutechess | Format::Fastchess => vec![Say::Err(text.to_string())],
        }
    }

    /// The match is over (or stopped): the final statistics, unless the
    /// last game's periodic ones said them, and how it ended.
    pub fn end(&mut self, summary: &MatchSummary) -> Vec<Say> {
        let s = &summary.standings;
        let said = s.games() > 0 && self.printed_at == Some(s.games());
        let decision = summary
            .sprt
            .as_ref()
            .and_then(|r| r.decision.as_ref())
            .map(|d| d.status);
        let shown = summary.sprt.as_ref().map(SprtReport::shown);
        let mut out = Vec::new();
        match self.format {
            Format::Rookery => {
                if self.two() && s.games() == 0 {
                    out.push(Say::Out(score_line(s)));
                }
                if !said {
                    out.extend(self.rookery_statistics(s));
                }
                if let Some(report) = &summary.sprt {
                    out.extend(sprt_end_text(report, s).into_iter().map(Say::Out));
                }
            }
            Format::Cutechess => {
                if self.two() && s.games() > 0 && !every_n(s.games(), self.score_interval) {
                    out.push(Say::Out(score_line(s)));
                }
                if !said || decision.is_some() {
                    out.extend(self.cutechess_results(s, shown));
                }
                if self.outcome_interval > 0
                    && (s.games() == 0 || !every_n(s.games(), self.outcome_interval))
                {
                    out.extend(Self::outcomes(s));
                }
            }
            Format::Fastchess => {
                // Once: the block of the last game stands when it was
                // printed (it was printed twice when the SPRT stopped).
                if !said {
                    out.extend(self.fastchess_results(s, shown));
                }
            }
        }
        if let Some(k) = &summary.knockout {
            out.extend(bracket_lines(k).into_iter().map(Say::Out));
        }
        if let Some((median, p99)) = summary.overhead_us {
            out.push(Say::Out(format!(
                "Referee time per move: median {median} us, 99th percentile {p99} us; time forfeits: {}",
                s.time_forfeits()
            )));
        }
        match &summary.stopped {
            Some(MatchStop::EngineFailure(why)) => out.push(Say::Out(format!(
                "Stopped: {why} ({} games not played)",
                summary.unplayed
            ))),
            Some(MatchStop::Interrupted) => out.push(Say::Out(format!(
                "Interrupted: {} games not played; `rookery match --resume JOURNAL` finishes the match",
                summary.unplayed
            ))),
            _ => {}
        }
        match self.format {
            Format::Rookery => {}
            Format::Cutechess => out.push(Say::Out("Finished match".into())),
            Format::Fastchess => out.push(Say::Out(match (decision, &self.sprt) {
                (Some(d), Some(sprt)) => format!(
                    "SPRT ({}) completed - {} was accepted",
                    elo_bounds(sprt),
                    if d.state == SprtState::AcceptH0 {
                        "H0"
                    } else {
                        "H1"
                    }
                ),
                _ => "Tournament finished".into(),
            })),
        }
        if self.format == Format::Fastchess {
            // fastchess's last line (fishtest's worker waits for it).
            out.push(Say::Out("Finished match".into()));
        }
        out
    }

    /// rookery's statistics: the summary line of two engines, or the table.
    fn rookery_statistics(&self, s: &Standings) -> Vec<Say> {
        if self.two() {
            vec![Say::Out(format!(
                "{}",
                s.versus(0, 1).summary(self.sprt.as_ref())
            ))]
        } else {
            vec![Say::Out(table(s).trim_end().to_string())]
        }
    }

    /// cutechess-cli's results: for two engines the first one's games by
    /// colour, the Elo line and the SPRT line; for more, the ranking.
    fn cutechess_results(&self, s: &Standings, sprt: Option<SprtStatus>) -> Vec<Say> {
        if !self.two() {
            return vec![Say::Out(
                self.result_format
                    .table(s, &self.tcs)
                    .trim_end()
                    .to_string(),
            )];
        }
        let mut out = Vec::new();
        let name = &s.names()[0];
        let (white, black) = (s.player_as(0, true), s.player_as(0, false));
        let ratio = |half_points: u64, games: u64| half_points as f64 / (2 * games) as f64;
        for (side, w) in [("White", white), ("Black", black)] {
            if w.games() > 0 {
                out.push(Say::Out(format!(
                    "...      {name} playing {side}: {} - {} - {}  [{:.3}] {}",
                    w.wins,
                    w.losses,
                    w.draws,
                    ratio(2 * w.wins + w.draws, w.games()),
                    w.games()
                )));
            }
        }
        let games = white.games() + black.games();
        if games > 0 {
            // The side with White against the side with Black.
            let (ww, wl) = (white.wins + black.losses, white.losses + black.wins);
            let draws = white.draws + black.draws;
            out.push(Say::Out(format!(
                "...      White vs Black: {ww} - {wl} - {draws}  [{:.3}] {games}",
                ratio(2 * ww + draws, games)
            )));
        }
        let tally = s.versus(0, 1);
        if let Some(e) = tally.wdl.estimate() {
            out.push(Say::Out(format!(
                "Elo difference: {:.1} +/- {:.1}, LOS: {:.1} %, DrawRatio: {:.1} %",
                e.elo,
                e.elo_error(),
                100.0 * e.los,
                100.0 * tally.wdl.draw_ratio().unwrap_or(0.0)
            )));
        }
        if let Some(st) = sprt {
            let verdict = match st.state {
                SprtState::AcceptH0 => " - H0 was accepted",
                SprtState::AcceptH1 => " - H1 was accepted",
                SprtState::Continue => "",
            };
            out.push(Say::Out(format!(
                "SPRT: llr {} ({:.1}%), lbound {}, ubound {}{verdict}",
                fmt_g3(st.llr),
                100.0 * st.llr / st.upper,
                fmt_g3(st.lower),
                fmt_g3(st.upper)
            )));
        }
        out
    }

    /// fastchess's block of results between dashes.
    fn fastchess_results(&self, s: &Standings, status: Option<SprtStatus>) -> Vec<Say> {
        const RULE: &str = "--------------------------------------------------";
        let mut out = vec![Say::Out(RULE.into())];
        if !self.two() {
            out.push(Say::Out(fastchess_ranking(s).trim_end().to_string()));
            out.push(Say::Out(RULE.into()));
            return out;
        }
        let tally = s.versus(0, 1);
        let pairs = self.penta && tally.ptnml.pairs() > 0;
        let estimate: Option<EloEstimate> = if pairs {
            tally.ptnml.estimate()
        } else {
            tally.wdl.estimate()
        };
        let names = s.names();
        let engines = &self.plan.engines;
        let both = |f: &dyn Fn(&EngineConfig) -> String| {
            let (a, b) = (f(&engines[0]), f(&engines[1]));
            if a == b {
                a
            } else {
                format!("{a} - {b}")
            }
        };
        let book = self
            .plan
            .book
            .as_ref()
            .and_then(|b| b.file.file_name())
            .map(|n| format!(", {}", n.to_string_lossy()))
            .unwrap_or_default();
        out.push(Say::Out(format!(
            "Results of {} vs {} ({}, {}, {}{book}):",
            names[0],
            names[1],
            both(&limit_text),
            both(&|e| option_text(e, "Threads", "t")),
            both(&|e| option_text(e, "Hash", "MB")),
        )));
        let nan = "nan".to_string();
        let (elo, nelo, los) = match &estimate {
            Some(e) => (
                format!("{:.2} +/- {:.2}", e.elo, e.elo_error()),
                e.nelo
                    .map_or(nan.clone(), |n| format!("{n:.2} +/- {:.2}", e.nelo_error)),
                format!("{:.2} %", 100.0 * e.los),
            ),
            None => (nan.clone(), nan.clone(), nan.clone()),
        };
        out.push(Say::Out(format!("Elo: {elo}, nElo: {nelo}")));
        let percent = |x: Option<f64>| x.map_or(nan.clone(), |x| format!("{:.2}", 100.0 * x));
        if pairs {
            out.push(Say::Out(format!(
                "LOS: {los}, DrawRatio: {} %, PairsRatio: {}",
                percent(tally.ptnml.draw_ratio()),
                tally
                    .ptnml
                    .pairs_ratio()
                    .map_or(nan.clone(), |r| format!("{r:.2}"))
            )));
        } else {
            out.push(Say::Out(format!(
                "LOS: {los}, DrawRatio: {} %",
                percent(tally.wdl.draw_ratio())
            )));
        }
        // A pentanomial report counts the games of complete pairs only, as
        // fastchess's does (fishtest checks `games == 2 * sum(ptnml)`).
        let w: Wdl = if pairs {
            s.versus_paired(0, 1)
        } else {
            tally.wdl
        };
        out.push(Say::Out(format!(
            "Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({} %)",
            w.games(),
            w.wins,
            w.losses,
            w.draws,
            w.wins as f64 + 0.5 * w.draws as f64,
            percent(w.score())
        )));
        if pairs {
            let [a, b, c, d, e] = tally.ptnml.counts;
            out.push(Say::Out(format!("Ptnml(0-2): [{a}, {b}, {c}, {d}, {e}]")));
        }
        if let (Some(st), Some(sprt)) = (status, &self.sprt) {
            let fraction = if st.llr >= 0.0 {
                st.llr / st.upper
            } else {
                -st.llr / st.lower
            };
            out.push(Say::Out(format!(
                "LLR: {:.2} ({:.1}%) ({:.2}, {:.2}) {}",
                // `+ 0.0`: no `-0.00` for a zero LLR.
                st.llr + 0.0,
                100.0 * fraction,
                st.lower,
                st.upper,
                elo_bounds(sprt)
            )));
        }
        out.push(Say::Out(RULE.into()));
        out
    }
}

/// Whether `count` is a multiple of `n` (never when `n` is 0).
fn every_n(count: u64, n: u64) -> bool {
    n > 0 && count % n == 0
}

/// `[E0, E1]` as fastchess writes an SPRT's bounds.
fn elo_bounds(sprt: &Sprt) -> String {
    let c = sprt.config();
    format!("[{:.2}, {:.2}]", c.elo0, c.elo1)
}

/// An engine's limits as fastchess writes them: `10+0.1`, `40/60`,
/// `0.5/move`, `12 plies`, `1000 nodes`.
fn limit_text(e: &EngineConfig) -> String {
    let tc = &e.tc;
    if let Some(c) = tc.clock {
        let moves = c.moves.map(|m| format!("{m}/")).unwrap_or_default();
        let inc = if c.increment.is_zero() {
            String::new()
        } else {
            format!("+{}", c.increment.as_secs_f64())
        };
        format!("{moves}{}{inc}", c.base.as_secs_f64())
    } else if let Some(t) = tc.movetime {
        format!("{}/move", t.as_secs_f64())
    } else if let Some(d) = tc.depth {
        format!("{d} plies")
    } else if let Some(n) = tc.nodes {
        format!("{n} nodes")
    } else {
        String::new()
    }
}

/// The value of a UCI option the engine is given, with `unit`, or `NULL`.
fn option_text(e: &EngineConfig, name: &str, unit: &str) -> String {
    e.options
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map_or_else(|| "NULL".to_string(), |(_, v)| format!("{v}{unit}"))
}

/// A number as C's `%.3g` (and Qt's `'g'` with precision 3) writes it:
/// three significant digits, trailing zeros dropped, an exponent below
/// 1e-4 and from 1e3.
pub fn fmt_g3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x == 0.0 { "0".into() } else { format!("{x}") };
    }
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    // The exponent after rounding to three significant digits.
    let sci = format!("{x:.2e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..3).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mantissa.to_string()), exp.abs());
    }
    let decimals = usize::try_from(2 - exp).unwrap_or(0);
    trim(format!("{x:.decimals$}"))
}

/// cutechess-cli's running score line: `Score of A vs B: W - L - D  [0.550] N`.
pub fn score_line(s: &Standings) -> String {
    let w = s.versus(0, 1).wdl;
    format!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
        s.names()[0],
        s.names()[1],
        w.wins,
        w.losses,
        w.draws,
        w.score().unwrap_or(0.0),
        w.games()
    )
}

/// fastchess's table of three or more engines.
fn fastchess_ranking(s: &Standings) -> String {
    let width = s
        .names()
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(25);
    let mut out = format!(
        "{:<4} {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
        "Rank", "Name", "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw"
    );
    for (rank, &i) in s.ranking().iter().enumerate() {
        let w = s.player(i);
        let e = w.estimate();
        out.push_str(&format!(
            "{:>4} {:<width$} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>10} {:>9.1}% {:>9.1}%\n",
            rank + 1,
            s.names()[i],
            e.map_or(f64::NAN, |e| e.elo),
            e.map_or(f64::NAN, |e| e.elo_error()),
            e.and_then(|e| e.nelo).unwrap_or(f64::NAN),
            e.map_or(f64::NAN, |e| e.nelo_error),
            w.games(),
            100.0 * w.score().unwrap_or(0.0),
            100.0 * w.draw_ratio().unwrap_or(0.0)
        ));
    }
    out
}

/// rookery's ranking of three or more engines: points, games, W/D/L and each
/// engine's Elo against the field with its 95% interval; then the
/// cross-table.
fn table(s: &Standings) -> String {
    let mut out = format!(
        "{:<4} {:<28} {:>7} {:>6} {:>14} {:>18}\n",
        "Rank", "Name", "Points", "Games", "W/D/L", "Elo (95%)"
    );
    for (rank, &i) in s.ranking().iter().enumerate() {
        let w = s.player(i);
        let elo = w.estimate().map_or_else(
            || "-".to_string(),
            |e| format!("{:+.0} +/- {:.0}", e.elo, e.elo_error()),
        );
        out.push_str(&format!(
            "{:<4} {:<28} {:>7.1} {:>6} {:>14} {:>18}\n",
            rank + 1,
            s.names()[i],
            s.points(i),
            w.games(),
            format!("{}/{}/{}", w.wins, w.draws, w.losses),
            elo
        ));
    }
    let order = s.ranking();
    out.push_str(&format!("\n{:<28}", "Cross-table"));
    for &j in &order {
        out.push_str(&format!(" {:>8}", abbreviate(&s.names()[j], 8)));
    }
    out.push('\n');
    for &i in &order {
        out.push_str(&format!("{:<28}", abbreviate(&s.names()[i], 28)));
        for &j in &order {
            let cell = s.cross_cell(i, j).unwrap_or_else(|| "x".into());
            out.push_str(&format!(" {cell:>8}"));
        }
        out.push('\n');
    }
    out
}

fn abbreviate(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        name.to_string()
    } else {
        name.chars()
            .take(width.saturating_sub(1))
            .chain(['~'])
            .collect()
    }
}

/// The SPRT's words on a decision.
fn decision_text(report: &SprtReport) -> Option<String> {
    let d = report.decision.as_ref()?;
    let st = &d.status;
    let w = &d.tally.wdl;
    let verdict = match st.state {
        SprtState::AcceptH0 => format!(
            "H0 accepted (LLR {:.2} <= {:.2}): the change is not an improvement of the size tested",
            st.llr, st.lower
        ),
        SprtState::AcceptH1 => format!("H1 accepted (LLR {:.2} >= {:.2})", st.llr, st.upper),
        SprtState::Continue => return None,
    };
    let pairs = d.tally.ptnml.counts;
    Some(format!(
        "SPRT: {verdict}, decided on {} games (W/D/L {}/{}/{}, Ptnml(0-2) [{}, {}, {}, {}, {}])",
        w.games(),
        w.wins,
        w.draws,
        w.losses,
        pairs[0],
        pairs[1],
        pairs[2],
        pairs[3],
        pairs[4]
    ))
}

/// rookery's last words on the SPRT.
fn sprt_end_text(report: &SprtReport, s: &Standings) -> Vec<String> {
    match decision_text(report) {
        Some(text) => {
            let mut out = vec![text];
            let counted = report.decision.as_ref().map_or(0, |d| d.tally.wdl.games());
            let played = s.versus(0, 1).wdl.games();
            if played > counted {
                out.push(format!(
                    "SPRT over all {played} games played (the games in progress when it decided finished after it): LLR {:.2} ({:.2}, {:.2})",
                    report.last.llr, report.last.lower, report.last.upper
                ));
            }
            out
        }
        None => vec![format!(
            "SPRT: LLR {:.2} ({:.2}, {:.2}): no decision yet",
            report.last.llr, report.last.lower, report.last.upper
        )],
    }
}

/// A knockout's bracket: each round's encounters with their scores and who
/// went on, then the winner.
fn bracket_lines(k: &KnockoutReport) -> Vec<String> {
    let mut out = vec!["Knockout bracket:".to_string()];
    for (i, round) in k.rounds.iter().enumerate() {
        out.push(format!("  Round {}", i + 1));
        for e in round {
            let line = match &e.players {
                [Some(a), None] | [None, Some(a)] => format!("    {a} (bye)"),
                [Some(a), Some(b)] => {
                    let verdict = match &e.winner {
                        Some(w) => format!("{w} goes on"),
                        None => "undecided".to_string(),
                    };
                    format!(
                        "    {a} - {b}: {} - {} in {} game{}; {verdict}",
                        e.score[0],
                        e.score[1],
                        e.games,
                        if e.games == 1 { "" } else { "s" }
                    )
                }
                [None, None] => continue,
            };
            out.push(line);
        }
    }
    if let Some(w) = &k.winner {
        out.push(format!("Knockout winner: {w}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g3_as_c_writes_it() {
        for (x, want) in [
            (0.0, "0"),
            (2.944_438_979_166_44, "2.94"),
            (-2.944_438_979_166_44, "-2.94"),
            (0.123456, "0.123"),
            (1.0, "1"),
            (12.3456, "12.3"),
            (123.456, "123"),
            (999.6, "1e+03"),
            (1234.5, "1.23e+03"),
            (0.0001234, "0.000123"),
            (0.00001234, "1.23e-05"),
            (0.5, "0.5"),
            (-0.04, "-0.04"),
        ] {
            assert_eq!(fmt_g3(x), want, "{x}");
        }
    }
}
