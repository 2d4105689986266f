//! The one game loop: the rules and clock authority for every game rookery
//! plays, whoever the players are.
//!
//! [`play_game`] asks each [`Player`] in turn for a move, times it, checks
//! it against `rookery-core`'s rules, punches the clock, records it, hands
//! the record to an observer (the journal writes it before the next move is
//! asked for) and ends the game by the first rule that applies: checkmate,
//! stalemate, insufficient material, threefold repetition, the fifty-move
//! rule, adjudication, a time forfeit (a draw when the opponent cannot mate),
//! an illegal move, a crash, a stall or a protocol violation, and the
//! players' own word: a resignation, a draw offer accepted, a draw claim (an
//! invalid claim is refused, or loses when the rules say so). Both players
//! are told the game is over ([`Player::game_over`]).

use crate::adjudicate::{self, Rules};
use crate::clock::{Clock, TimeControl};
use crate::player::{MoveRequest, Offer, Player, PlayerError, ThinkLimits};
use crate::record::{
    san_of, Clocks, GameOutcome, GameRecord, MoveRecord, Termination, ILLEGAL_MOVE_WORDS,
};
use rookery_core::{CastlingMode, Color, Game, Move, Position, Termination as Rule, UciMove};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Everything a game needs besides its players.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The game's number in its match or event (0-based).
    pub number: usize,
    /// Event name.
    pub event: String,
    /// Site.
    pub site: String,
    /// Round as written in the PGN.
    pub round: String,
    /// The starting position.
    pub start: Position,
    /// Opening moves played from it before the engines take over.
    pub opening: Vec<Move>,
    /// White's and Black's time controls.
    pub tc: [TimeControl; 2],
    /// White's and Black's time margins.
    pub margin: [Duration; 2],
    /// Adjudication.
    pub rules: Rules,
    /// How long a move without a clock may take before the player is
    /// declared stalled.
    pub stall_timeout: Duration,
    /// The event's date for the PGN `Date` tag (`YYYY.MM.DD`); the day the
    /// game started when `None`.
    pub date: Option<String>,
    /// When a resumed game first started (UTC date and time), and the wall
    /// time it was played before it was cut off, in milliseconds: its
    /// `GameStartTime` and `GameDuration` count from its real start.
    pub history: Option<((String, String), u64)>,
    /// How the supervisor (or the user) stops the game before its end.
    pub stop: StopSignal,
}

impl GameSetup {
    /// Game `number` at the time controls `tc` (White's, Black's), with
    /// what an event that says nothing more gets: event and site `?`, round
    /// `number + 1`, the standard start and no opening, no time margin, the
    /// default adjudication rules, a minute before a move without a clock
    /// is stalled, dated the day it starts, not resumed, not stopped. Set
    /// the fields an event does say.
    pub fn new(number: usize, tc: [TimeControl; 2]) -> GameSetup {
        GameSetup {
            number,
            event: "?".into(),
            site: "?".into(),
            round: (number + 1).to_string(),
            start: Position::startpos(),
            opening: Vec::new(),
            tc,
            margin: [Duration::ZERO; 2],
            rules: Rules::default(),
            stall_timeout: Duration::from_secs(60),
            date: None,
            history: None,
            stop: StopSignal::new(),
        }
    }
}

impl GameRecord {
    /// The record of `setup`'s game between `white` and `black` before its
    /// first move: no moves, unfinished, started now (a resumed game when
    /// it first started, its time so far its duration), dated as `setup`
    /// says. The one place a setup's fields become a record's.
    pub fn begun(setup: &GameSetup, white: &str, black: &str) -> GameRecord {
        let (started, played_ms) = setup.history.clone().unwrap_or_else(|| (utc_now(), 0));
        GameRecord {
            number: setup.number,
            event: setup.event.clone(),
            site: setup.site.clone(),
            round: setup.round.clone(),
            white: white.to_string(),
            black: black.to_string(),
            white_tc: setup.tc[0],
            black_tc: setup.tc[1],
            start_fen: rookery_core::Fen::from_position(&setup.start).to_string(),
            moves: Vec::new(),
            outcome: GameOutcome::Unfinished,
            termination: Termination::Unterminated,
            reason: String::new(),
            started,
            date: setup.date.clone(),
            duration_ms: played_ms,
        }
    }
}

/// Why a game was stopped before its end by someone other than the
/// players: the supervisor of an Argus event, or the user of a match.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// It is to be played again from its first move (recorded as `*`).
    Adjourn,
    /// It ends with this result, decided by the supervisor.
    Adjudicate(GameOutcome),
    /// The event stops: the game is cut off where it stands (recorded as
    /// `*`) and a resume continues it from its last move.
    Shutdown,
    /// A player's program is restarted: the game resumes from its last move
    /// once it is back; the players are not told the game is over.
    Hold,
}

/// A [`Stop`] handed to a game in progress from another thread. The game
/// loop looks at it before every move and when a player fails, so a stop
/// is never mistaken for the player's fault: the players are told the
/// result the PGN records. Cheap to clone; every clone is the same signal.
#[derive(Clone, Debug, Default)]
pub struct StopSignal(Arc<Mutex<Option<Stop>>>);

impl StopSignal {
    /// A signal nobody has given.
    pub fn new() -> StopSignal {
        StopSignal::default()
    }

    /// Gives the signal (a later one replaces an earlier one).
    pub fn stop(&self, why: Stop) {
        // A poisoned lock still holds a usable slot.
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *slot = Some(why);
    }

    /// The stop given, if any.
    pub fn get(&self) -> Option<Stop> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What went wrong with a player during a game, so the caller can restart it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// It crashed or its connection closed.
    Crashed,
    /// It stopped answering (even `stop`).
    Stalled,
    /// It broke the protocol or played an illegal move.
    Misbehaved,
}

/// A finished game and what the referee noticed about the players.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    /// The record.
    pub record: GameRecord,
    /// White's and Black's faults, if any.
    pub faults: [Option<Fault>; 2],
    /// The referee's own time between a move arriving and the next request
    /// going out, one sample per engine move after the first.
    pub overheads: Vec<Duration>,
    /// The stop that ended the game, if it was stopped from outside.
    pub stop: Option<Stop>,
}

/// The observer's error ends the game: the record could not be kept.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The observer (the journal) failed.
    #[error("cannot record the game: {0}")]
    Observer(#[from] std::io::Error),
    /// A journaled move does not replay.
    #[error("the journaled game does not replay: {0}")]
    Resume(String),
}

fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The civil (proleptic Gregorian) date of `days` since 1970-01-01 as
/// `(year, month, day)`, by the era-based method: 400-year eras of 146,097
/// days.
pub fn civil_date(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Today's UTC date and time as `YYYY.MM.DD` and `HH:MM:SS`.
pub fn utc_now() -> (String, String) {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_date(days as i64);
    (
        format!("{year:04}.{month:02}.{day:02}"),
        format!("{:02}:{:02}:{:02}", rem / 3600, rem / 60 % 60, rem % 60),
    )
}

struct Ending {
    outcome: GameOutcome,
    termination: Termination,
    reason: String,
}

/// The ending a stop gives a game.
fn stopped(stop: Stop) -> Ending {
    let cut = |reason: &str| Ending {
        outcome: GameOutcome::Unfinished,
        termination: Termination::Unterminated,
        reason: reason.to_string(),
    };
    match stop {
        Stop::Adjudicate(outcome) => Ending {
            outcome,
            termination: Termination::Adjudication,
            reason: "adjudicated by the supervisor".to_string(),
        },
        Stop::Adjourn => cut("adjourned by the supervisor: the game is played again later"),
        Stop::Shutdown => cut("interrupted: the game continues from its last move on resume"),
        Stop::Hold => cut("held while a player's program restarts"),
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Plays one game between `white` and `black`, or finishes one: `resume`
/// holds the moves already played (opening moves included, with the clocks
/// after each), which are replayed without asking anyone and with the
/// clocks restored from them. `on_move` sees every new move before the next
/// one is asked for.
///
/// # Errors
/// [`GameError`] if `on_move` fails or `resume` does not replay; every
/// failure of a player is a game result, not an error.
pub fn play_game(
    setup: &GameSetup,
    white: &mut dyn Player,
    black: &mut dyn Player,
    resume: Option<&[MoveRecord]>,
    on_move: &mut dyn FnMut(&MoveRecord) -> std::io::Result<()>,
) -> Result<FinishedGame, GameError> {
    let begun = GameRecord::begun(setup, white.name(), black.name());
    let t_start = Instant::now();
    let mut table = Table::set(setup, resume.unwrap_or(&[]), on_move)?;
    let mut players: [&mut dyn Player; 2] = [white, black];
    let ending = 'game: {
        if let Some(end) = table.begin(&mut players) {
            break 'game end;
        }
        loop {
            if let Some(end) = table.over() {
                break 'game end;
            }
            let player = &mut *players[idx(table.game.position().turn())];
            if let Some(end) = table.turn(player, on_move)? {
                break 'game end;
            }
        }
    };
    let [white, black] = players;
    let record = GameRecord {
        // The names the players give at the end: an engine may say its own
        // only in its handshake.
        white: white.name().to_string(),
        black: black.name().to_string(),
        moves: table.records,
        outcome: ending.outcome,
        termination: ending.termination,
        reason: ending.reason,
        duration_ms: begun.duration_ms.saturating_add(ms(t_start.elapsed())),
        ..begun
    };
    let stop = table.stopped_by;
    // A held game is not over: it resumes once the player is back.
    if stop != Some(Stop::Hold) {
        white.game_over(&record, table.game.position());
        black.game_over(&record, table.game.position());
    }
    Ok(FinishedGame {
        record,
        faults: table.faults,
        overheads: table.overheads,
        stop,
    })
}

/// A game in progress as the game loop keeps it: the position and the
/// moves, the clocks, and what it has learned of the players.
struct Table<'s> {
    setup: &'s GameSetup,
    /// How castling moves are told (Chess960's king-takes-rook or not).
    mode: CastlingMode,
    game: Game,
    records: Vec<MoveRecord>,
    clocks: [Clock; 2],
    faults: [Option<Fault>; 2],
    /// The referee's time between one reply and the next request.
    overheads: Vec<Duration>,
    /// When the last reply came.
    last_reply: Option<Instant>,
    /// Time each side has used, as the `cc` of EPD reports it.
    used_total: [Duration; 2],
    /// The side to move was offered a draw with the opponent's last move.
    draw_offered: bool,
    /// The stop that ended the game, if one did.
    stopped_by: Option<Stop>,
}

impl<'s> Table<'s> {
    /// The table of `setup` with the moves of `done` replayed (the clocks
    /// restored from them), then the opening moves not yet played (all of
    /// them in a new game; the rest of them when a game was cut off inside
    /// its opening), each told to `on_move`.
    fn set(
        setup: &'s GameSetup,
        done: &[MoveRecord],
        on_move: &mut dyn FnMut(&MoveRecord) -> std::io::Result<()>,
    ) -> Result<Table<'s>, GameError> {
        let mode = if setup.start.is_chess960_castling() {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let mut table = Table {
            setup,
            mode,
            game: Game::new(setup.start.clone()),
            records: Vec::new(),
            clocks: [
                Clock::new(&setup.tc[0], setup.margin[0]),
                Clock::new(&setup.tc[1], setup.margin[1]),
            ],
            faults: [None, None],
            overheads: Vec::new(),
            last_reply: None,
            used_total: [Duration::ZERO; 2],
            draw_offered: false,
            stopped_by: None,
        };
        let mut made = [0u32; 2];
        let mut replayed = Clocks::default();
        for r in done {
            let pos = table.game.position();
            let m = r
                .uci
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(pos).ok())
                .ok_or_else(|| GameError::Resume(format!("move {} is not legal", r.uci)))?;
            let side = idx(pos.turn());
            made[side] += u32::from(!r.book);
            replayed.charge(side, r);
            table
                .game
                .play(m)
                .map_err(|e| GameError::Resume(e.to_string()))?;
            table.records.push(r.clone());
        }
        table.used_total = replayed.used();
        for (s, clock) in table.clocks.iter_mut().enumerate() {
            if made[s] > 0 {
                let rem = replayed.clock_ms[s].map_or_else(
                    || clock.remaining().unwrap_or_default(),
                    Duration::from_millis,
                );
                clock.restore(rem, made[s]);
            }
        }
        if done.iter().all(|r| r.book) {
            for &m in setup.opening.iter().skip(done.len()) {
                let r = MoveRecord::book(table.game.position(), m, mode);
                table
                    .game
                    .play(m)
                    .map_err(|e| GameError::Resume(format!("opening move: {e}")))?;
                on_move(&r)?;
                table.records.push(r);
            }
        }
        Ok(table)
    }

    /// The ending of a stop the supervisor (or the user) asked for, if one
    /// was: noted as what ended the game.
    fn stop(&mut self) -> Option<Ending> {
        let stop = self.setup.stop.get()?;
        self.stopped_by = Some(stop);
        Some(stopped(stop))
    }

    /// Tells both players a game begins: the ending when one cannot.
    fn begin(&mut self, players: &mut [&mut dyn Player; 2]) -> Option<Ending> {
        let chess960 = self.mode == CastlingMode::Chess960;
        for c in [Color::White, Color::Black] {
            if let Err(e) = players[idx(c)].new_game(chess960) {
                if let Some(end) = self.stop() {
                    return Some(end);
                }
                self.faults[idx(c)] = Some(fault_of(&e));
                return Some(forfeit(c, &e, "new game", None));
            }
        }
        None
    }

    /// The ending before the next move: a stop, a rule, an adjudication.
    fn over(&mut self) -> Option<Ending> {
        if let Some(end) = self.stop() {
            return Some(end);
        }
        if let Some(rule) = self.game.status() {
            return Some(by_rule(rule, self.game.position().turn()));
        }
        adjudicate::adjudicate(&self.setup.rules, &self.setup.start, &self.records).map(|v| {
            Ending {
                outcome: v.outcome,
                termination: Termination::Adjudication,
                reason: v.reason,
            }
        })
    }

    /// The side to move's limits as the clocks stand.
    fn limits(&self, s: usize) -> ThinkLimits {
        let clock = &self.clocks[s];
        let tc = clock.time_control();
        ThinkLimits {
            wtime: self.clocks[0].remaining(),
            btime: self.clocks[1].remaining(),
            winc: self.clocks[0].increment(),
            binc: self.clocks[1].increment(),
            movestogo: clock.moves_to_go(),
            movetime: tc.movetime,
            nodes: tc.nodes,
            depth: tc.depth,
        }
    }

    /// One move of the side to move, asked of `player`, timed, checked and
    /// played (and told to `on_move`): the ending when it ends the game.
    fn turn(
        &mut self,
        player: &mut dyn Player,
        on_move: &mut dyn FnMut(&MoveRecord) -> std::io::Result<()>,
    ) -> Result<Option<Ending>, GameError> {
        let pos = self.game.position().clone();
        let side = pos.turn();
        let s = idx(side);
        let has_clock = self.clocks[s].limit().is_some();
        let request = MoveRequest {
            start: self.game.start(),
            moves: self.game.moves(),
            limits: self.limits(s),
            deadline: self.clocks[s].limit().unwrap_or(self.setup.stall_timeout),
            used: self.used_total,
            draw_offered: self.draw_offered,
        };
        if let Some(t) = self.last_reply {
            self.overheads.push(t.elapsed());
        }
        // What the player does to get ready is not on its clock.
        let prepared = player.prepare(&request);
        let t0 = Instant::now();
        let reply = prepared.and_then(|()| player.request_move(&request));
        let used = t0.elapsed();
        self.last_reply = Some(Instant::now());
        let reply = match reply {
            Ok(r) => r,
            Err(e) => return Ok(Some(self.failed(side, &e, has_clock))),
        };
        let offered = std::mem::take(&mut self.draw_offered);
        if let Err(flag) = self.clocks[s].punch(used) {
            return Ok(Some(flag_fell(&pos, &flag)));
        }
        self.used_total[s] += used;
        if let Some(end) = self.answered(side, reply.offer, offered) {
            return Ok(Some(end));
        }
        let Ok(m) = reply.mv.to_move(&pos) else {
            self.faults[s] = Some(Fault::Misbehaved);
            return Ok(Some(Ending {
                outcome: GameOutcome::win_for(side.other()),
                termination: Termination::IllegalMove,
                reason: format!("{} {ILLEGAL_MOVE_WORDS}{}", side_name(side), reply.mv),
            }));
        };
        let r = MoveRecord {
            uci: UciMove::from_move(&pos, m, self.mode).to_string(),
            san: san_of(&pos, m),
            book: false,
            time_ms: ms(used),
            clock_ms: self.clocks[s].remaining().map(ms),
            score: reply.score,
            depth: reply.depth,
            nodes: reply.nodes,
            seldepth: reply.seldepth,
            info_strings: reply.info_strings,
            // Checked here, with the clock stopped.
            pv_warnings: crate::pvcheck::check_search(
                &self.game,
                &reply.infos,
                reply.mv,
                self.setup.rules.check_mate_pvs,
            ),
        };
        // The move is legal: `to_move` found it among the legal moves.
        if let Err(e) = self.game.play(m) {
            return Ok(Some(Ending {
                outcome: GameOutcome::Unfinished,
                termination: Termination::Unterminated,
                reason: format!("internal error: {e}"),
            }));
        }
        on_move(&r)?;
        self.records.push(r);
        Ok(self.after_move(side, reply.offer))
    }

    /// The ending when the player of `side` fails to move: none of its
    /// fault when a stop interrupted it.
    fn failed(&mut self, side: Color, e: &PlayerError, has_clock: bool) -> Ending {
        if let Some(end) = self.stop() {
            return end;
        }
        let s = idx(side);
        self.faults[s] = match e {
            PlayerError::Timeout {
                responsive: true, ..
            } => None,
            e => Some(fault_of(e)),
        };
        let opponent_can_mate = !self.game.position().has_insufficient_material(side.other());
        forfeit(side, e, "move", Some((has_clock, opponent_can_mate)))
    }

    /// What `side` said with its move before it is played: a resignation,
    /// a draw accepted (a fault when none was offered).
    fn answered(&mut self, side: Color, offer: Option<Offer>, offered: bool) -> Option<Ending> {
        match offer {
            Some(Offer::Resign) => Some(Ending {
                outcome: GameOutcome::win_for(side.other()),
                termination: Termination::Normal,
                reason: format!("{} resigns", side_name(side)),
            }),
            Some(Offer::Accept) if offered => Some(Ending {
                outcome: GameOutcome::Draw,
                termination: Termination::Normal,
                reason: "Draw by agreement".to_string(),
            }),
            Some(Offer::Accept) => {
                self.faults[idx(side)] = Some(Fault::Misbehaved);
                let e = PlayerError::Protocol("accepts a draw that was not offered".into());
                Some(forfeit(side, &e, "move", None))
            }
            Some(Offer::Draw | Offer::Claim | Offer::Reject) | None => None,
        }
    }

    /// What `side` said with its move once it is played: a draw offered to
    /// the opponent, or a claim (a valid one is a draw by rule, which the
    /// next [`Table::over`] finds; one the rules do not support is refused).
    fn after_move(&mut self, side: Color, offer: Option<Offer>) -> Option<Ending> {
        match offer {
            Some(Offer::Draw) => {
                self.draw_offered = true;
                None
            }
            Some(Offer::Claim)
                if self.setup.rules.invalid_claim_loses
                    && !self.game.status().is_some_and(|r| r != Rule::Checkmate) =>
            {
                self.faults[idx(side)] = Some(Fault::Misbehaved);
                Some(Ending {
                    outcome: GameOutcome::win_for(side.other()),
                    termination: Termination::RulesInfraction,
                    reason: format!("{} claims a draw the rules do not give", side_name(side)),
                })
            }
            _ => None,
        }
    }
}

/// The ending when the flag of the side to move in `pos` fell (`flag`
/// says how): a loss, or a draw when the opponent cannot mate.
fn flag_fell(pos: &Position, flag: &impl std::fmt::Display) -> Ending {
    let side = pos.turn();
    let name = side_name(side);
    if pos.has_insufficient_material(side.other()) {
        return Ending {
            outcome: GameOutcome::Draw,
            termination: Termination::TimeForfeit,
            reason: format!(
                "{name} loses on time ({flag}), but {} cannot mate: draw",
                side_name(side.other())
            ),
        };
    }
    Ending {
        outcome: GameOutcome::win_for(side.other()),
        termination: Termination::TimeForfeit,
        reason: format!("{name} loses on time ({flag})"),
    }
}

fn fault_of(e: &PlayerError) -> Fault {
    match e {
        PlayerError::Start { .. } | PlayerError::Crashed(_) => Fault::Crashed,
        PlayerError::Timeout { .. } => Fault::Stalled,
        PlayerError::Protocol(_) | PlayerError::IllegalMove(_) => Fault::Misbehaved,
    }
}

/// The ending when `side` fails: `clock` tells, for a failure to move,
/// whether a clock limited the move and whether the opponent can mate.
fn forfeit(side: Color, e: &PlayerError, during: &str, clock: Option<(bool, bool)>) -> Ending {
    let name = side_name(side);
    let win = GameOutcome::win_for(side.other());
    match e {
        PlayerError::Timeout { .. } if clock.is_some_and(|(has_clock, _)| has_clock) => {
            let can_mate = clock.is_some_and(|(_, m)| m);
            if can_mate {
                Ending {
                    outcome: win,
                    termination: Termination::TimeForfeit,
                    reason: format!("{name} loses on time ({e})"),
                }
            } else {
                Ending {
                    outcome: GameOutcome::Draw,
                    termination: Termination::TimeForfeit,
                    reason: format!(
                        "{name} loses on time ({e}), but {} cannot mate: draw",
                        side_name(side.other())
                    ),
                }
            }
        }
        PlayerError::Timeout { .. } => Ending {
            outcome: win,
            termination: Termination::StalledConnection,
            reason: format!("{name}'s connection stalls at {during} ({e})"),
        },
        PlayerError::Start { .. } | PlayerError::Crashed(_) => Ending {
            outcome: win,
            termination: Termination::Abandoned,
            reason: format!("{name} disconnects at {during}: {e}"),
        },
        PlayerError::IllegalMove(m) => Ending {
            outcome: win,
            termination: Termination::IllegalMove,
            reason: format!("{name} {ILLEGAL_MOVE_WORDS}{m}"),
        },
        PlayerError::Protocol(_) => Ending {
            outcome: win,
            termination: Termination::RulesInfraction,
            reason: format!("{name} breaks the protocol at {during}: {e}"),
        },
    }
}

fn by_rule(rule: Rule, to_move: Color) -> Ending {
    let draw = |reason: &str| Ending {
        outcome: GameOutcome::Draw,
        termination: Termination::Normal,
        reason: reason.to_string(),
    };
    match rule {
        Rule::Checkmate => Ending {
            outcome: GameOutcome::win_for(to_move.other()),
            termination: Termination::Normal,
            reason: format!("{} mates", side_name(to_move.other())),
        },
        Rule::Stalemate => draw("Draw by stalemate"),
        Rule::InsufficientMaterial => draw("Draw by insufficient mating material"),
        Rule::FiftyMoves | Rule::SeventyFiveMoves => draw("Draw by fifty moves rule"),
        Rule::ThreefoldRepetition | Rule::FivefoldRepetition => draw("Draw by 3-fold repetition"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::MoveReply;
    use std::collections::VecDeque;

    /// A player that plays a script of UCI moves, or fails on cue. A move
    /// may carry a word: `e2e4 draw`, `g1f3 claim`, `e2e4 reject`, `resign`,
    /// `accept`. It notes what it was told.
    struct Script {
        name: String,
        moves: VecDeque<Result<&'static str, PlayerError>>,
        sleep: Duration,
        offered: Vec<bool>,
        used: Vec<[Duration; 2]>,
        over: Option<(String, String)>,
    }

    impl Player for Script {
        fn name(&self) -> &str {
            &self.name
        }
        fn new_game(&mut self, _: bool) -> Result<(), PlayerError> {
            Ok(())
        }
        fn request_move(&mut self, req: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
            self.offered.push(req.draw_offered);
            self.used.push(req.used);
            std::thread::sleep(self.sleep);
            let m = self
                .moves
                .pop_front()
                .unwrap_or(Err(PlayerError::Crashed("script ended".into())))?;
            let (m, word) = m.split_once(' ').unwrap_or((m, ""));
            let (m, offer) = match (m, word) {
                ("resign", _) => ("0000", Some(Offer::Resign)),
                ("accept", _) => ("0000", Some(Offer::Accept)),
                (m, "draw") => (m, Some(Offer::Draw)),
                (m, "claim") => (m, Some(Offer::Claim)),
                (m, "reject") => (m, Some(Offer::Reject)),
                (m, _) => (m, None),
            };
            Ok(MoveReply {
                offer,
                mv: m.parse().unwrap(),
                score: Some(rookery_core::Score::Cp(10)),
                depth: Some(3),
                seldepth: None,
                nodes: Some(100),
                pv: Vec::new(),
                infos: Vec::new(),
                info_strings: Vec::new(),
            })
        }
        fn restart(&mut self) -> Result<(), PlayerError> {
            Ok(())
        }
        fn quit(&mut self) {}
        fn game_over(&mut self, record: &GameRecord, last: &Position) {
            self.over = Some((
                record.outcome.as_str().to_string(),
                rookery_core::Fen::from_position(last).to_string(),
            ));
        }
    }

    fn script(name: &str, moves: &[&'static str]) -> Script {
        Script {
            name: name.into(),
            moves: moves.iter().map(|m| Ok(*m)).collect(),
            sleep: Duration::ZERO,
            offered: Vec::new(),
            used: Vec::new(),
            over: None,
        }
    }

    fn setup(tc: &str) -> GameSetup {
        GameSetup {
            event: "test".into(),
            site: "here".into(),
            stall_timeout: Duration::from_secs(5),
            ..GameSetup::new(0, [tc.parse().unwrap(), tc.parse().unwrap()])
        }
    }

    fn play(s: &GameSetup, w: &mut Script, b: &mut Script) -> FinishedGame {
        play_game(s, w, b, None, &mut |_| Ok(())).unwrap()
    }

    /// A game under `s` between two scripts playing `white` and `black`
    /// (see [`script`]); returns it and the players, for what they were told.
    fn scripted(
        s: &GameSetup,
        white: &[&'static str],
        black: &[&'static str],
    ) -> (FinishedGame, Script, Script) {
        let (mut w, mut b) = (script("w", white), script("b", black));
        let g = play(s, &mut w, &mut b);
        (g, w, b)
    }

    /// Checks how a game ended: its result, termination and reason.
    fn assert_ended(g: &FinishedGame, outcome: GameOutcome, termination: Termination, why: &str) {
        assert_eq!(g.record.outcome, outcome);
        assert_eq!(g.record.termination, termination);
        assert_eq!(g.record.reason, why);
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(59), (1970, 3, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(20_779), (2026, 11, 22));
    }

    #[test]
    fn fools_mate() {
        let (g, _, _) = scripted(&setup("nodes=1"), &["f2f3", "g2g4"], &["e7e5", "d8h4"]);
        assert_ended(
            &g,
            GameOutcome::BlackWins,
            Termination::Normal,
            "Black mates",
        );
        assert_eq!(g.record.moves.last().unwrap().san, "Qh4#");
        let pgn = g.record.pgn_text().unwrap();
        let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("2. g4 {+0.10/3 0s} 2... Qh4# {+0.10/3 0s} {Black mates} 0-1"),
            "{pgn}"
        );
        assert!(flat.contains("[Termination \"normal\"]"), "{pgn}");
    }

    #[test]
    fn illegal_and_null_moves_lose() {
        let (g, _, _) = scripted(&setup("nodes=1"), &["e2e5"], &[]);
        assert_eq!(g.record.outcome, GameOutcome::BlackWins);
        assert_eq!(g.record.termination, Termination::IllegalMove);
        assert_eq!(g.faults[0], Some(Fault::Misbehaved));
        let (g, _, _) = scripted(&setup("nodes=1"), &["e2e4"], &["0000"]);
        assert_eq!(g.record.outcome, GameOutcome::WhiteWins);
        assert_eq!(g.record.termination, Termination::IllegalMove);
    }

    #[test]
    fn crash_is_abandoned() {
        let (g, _, _) = scripted(&setup("nodes=1"), &["e2e4"], &[]);
        assert_eq!(g.record.termination, Termination::Abandoned);
        assert_eq!(g.record.outcome, GameOutcome::WhiteWins);
        assert_eq!(g.faults, [None, Some(Fault::Crashed)]);
    }

    #[test]
    fn a_slow_move_flags() {
        let mut w = script("w", &["e2e4"]);
        w.sleep = Duration::from_millis(60);
        let mut b = script("b", &[]);
        let g = play(&setup("st=0.02"), &mut w, &mut b);
        assert_eq!(g.record.termination, Termination::TimeForfeit);
        assert_eq!(g.record.outcome, GameOutcome::BlackWins);
        assert!(g.record.moves.is_empty());
    }

    #[test]
    fn flag_against_a_side_that_cannot_mate_is_a_draw() {
        // Black (king and rook) flags; White has a bare king and cannot mate.
        let mut s = setup("st=0.02");
        s.start = Position::from_fen("4k3/8/8/8/8/8/r7/4K3 b - - 0 1").unwrap();
        let mut w = script("w", &[]);
        let mut b = script("b", &["e8d7"]);
        b.sleep = Duration::from_millis(60);
        let g = play(&s, &mut w, &mut b);
        assert_eq!(g.record.termination, Termination::TimeForfeit);
        assert_eq!(g.record.outcome, GameOutcome::Draw);
        // The same flag with White able to mate loses.
        s.start = Position::from_fen("4k3/8/8/8/8/8/r7/4K2R b - - 0 1").unwrap();
        let mut b = script("b", &["e8d7"]);
        b.sleep = Duration::from_millis(60);
        let g = play(&s, &mut w, &mut b);
        assert_eq!(g.record.outcome, GameOutcome::WhiteWins);
    }

    #[test]
    fn threefold_repetition_ends_the_game() {
        let (g, _, _) = scripted(
            &setup("nodes=1"),
            &["g1f3", "f3g1", "g1f3", "f3g1"],
            &["g8f6", "f6g8", "g8f6", "f6g8"],
        );
        assert_eq!(g.record.outcome, GameOutcome::Draw);
        assert_eq!(g.record.reason, "Draw by 3-fold repetition");
        assert_eq!(g.record.moves.len(), 8);
    }

    #[test]
    fn resume_replays_and_restores_clocks() {
        let s = setup("2/10");
        let mut w = script("w", &["f2f3"]);
        let mut b = script("b", &["e7e5"]);
        let mut first = Vec::new();
        // Play one move each, then the script crashes: keep the records.
        let g = play_game(&s, &mut w, &mut b, None, &mut |r| {
            first.push(r.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!(g.record.moves.len(), 2);
        let mut w = script("w", &["g2g4"]);
        let mut b = script("b", &["d8h4"]);
        let g = play_game(&s, &mut w, &mut b, Some(&first), &mut |_| Ok(())).unwrap();
        assert_eq!(g.record.reason, "Black mates");
        assert_eq!(g.record.moves.len(), 4);
        assert_eq!(g.record.moves[..2], first[..]);
    }

    #[test]
    fn resignation_loses_and_both_players_are_told() {
        let (g, w, b) = scripted(&setup("nodes=1"), &["e2e4", "resign"], &["e7e5"]);
        assert_ended(
            &g,
            GameOutcome::BlackWins,
            Termination::Normal,
            "White resigns",
        );
        assert_eq!(g.record.moves.len(), 2);
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        for p in [&w, &b] {
            assert_eq!(p.over, Some(("0-1".to_string(), fen.to_string())));
        }
    }

    #[test]
    fn a_draw_offer_is_passed_on_and_can_be_accepted() {
        let (g, w, b) = scripted(
            &setup("nodes=1"),
            &["e2e4", "g1f3 draw"],
            &["e7e5", "accept"],
        );
        assert_ended(
            &g,
            GameOutcome::Draw,
            Termination::Normal,
            "Draw by agreement",
        );
        assert_eq!(g.record.moves.len(), 3);
        // Black was told of the offer with the request after it only.
        assert_eq!(b.offered, vec![false, true]);
        assert_eq!(w.offered, vec![false, false]);
    }

    #[test]
    fn accepting_an_offer_never_made_breaks_the_rules() {
        let (g, _, _) = scripted(
            &setup("nodes=1"),
            &["e2e4 draw", "g1f3"],
            &["e7e5 reject", "accept"],
        );
        assert_eq!(g.record.outcome, GameOutcome::WhiteWins);
        assert_eq!(g.record.termination, Termination::RulesInfraction);
        assert_eq!(g.faults[1], Some(Fault::Misbehaved));
    }

    #[test]
    fn an_invalid_claim_is_refused_or_loses_by_the_rules() {
        let mut s = setup("nodes=1");
        let (g, _, _) = scripted(
            &s,
            &["e2e4 claim", "f1c4", "d1h5", "h5f7"],
            &["e7e5", "b8c6", "g8f6"],
        );
        assert_eq!(g.record.reason, "White mates");
        s.rules.invalid_claim_loses = true;
        let (g, _, _) = scripted(&s, &["e2e4 claim"], &["e7e5"]);
        assert_eq!(g.record.outcome, GameOutcome::BlackWins);
        assert_eq!(g.record.termination, Termination::RulesInfraction);
        assert_eq!(g.record.moves.len(), 1);
        // A claim that the repetition supports ends the game as a draw even
        // when invalid claims lose.
        let (g, _, _) = scripted(
            &s,
            &["g1f3", "f3g1", "g1f3", "f3g1"],
            &["g8f6", "f6g8", "g8f6", "f6g8 claim"],
        );
        assert_eq!(g.record.outcome, GameOutcome::Draw);
        assert_eq!(g.record.reason, "Draw by 3-fold repetition");
    }

    #[test]
    fn requests_carry_the_time_each_side_has_used() {
        let mut w = script("w", &["f2f3", "g2g4"]);
        w.sleep = Duration::from_millis(30);
        let mut b = script("b", &["e7e5", "d8h4"]);
        let g = play(&setup("60+0"), &mut w, &mut b);
        assert_eq!(g.record.reason, "Black mates");
        assert_eq!(w.used[0], [Duration::ZERO; 2]);
        // White's second request: its own first move counted, Black's too.
        let white_first = Duration::from_millis(g.record.moves[0].time_ms);
        assert!(w.used[1][0] >= Duration::from_millis(30));
        assert_eq!(w.used[1][0].as_millis(), white_first.as_millis());
        // Black's first request comes after White's first move; its second
        // after White's second (records keep whole milliseconds).
        assert_eq!(b.used[0][0], w.used[1][0]);
        let two = u128::from(g.record.moves[0].time_ms + g.record.moves[2].time_ms);
        assert!(b.used[1][0].as_millis().abs_diff(two) <= 1);
        assert!(b.used[1][0] >= Duration::from_millis(60));
    }
}
