//! [`UciPlayer`]: a UCI engine, external or the built-in one, as a
//! [`Player`], through `rookery-uci`'s host. It tells the engine the game
//! (`position`, in the castling notation the engine is in), asks for a move
//! within the limits (`go`), keeps the principal variations for the checks,
//! and ponders when the configuration and the engine both say so.

use crate::player::{
    EngineCommand, EngineConfig, EngineLog, MoveReply, MoveRequest, Player, PlayerError,
    ThinkLimits, STOP_GRACE,
};
use crate::process::{builtin_transport, EngineProcess};
use rookery_core::{CastlingMode, Fen, Move, Position, UciMove};
use rookery_uci::host::{
    EngineHost, HostError, ProcessTransport, SearchEvent, Timeouts, Transport,
};
use rookery_uci::{GoParams, Info, PositionStart};
use std::time::{Duration, Instant};
/// A UCI engine (external or built-in) as a [`Player`].
pub struct UciPlayer {
    engine: EngineProcess<EngineHost>,
    chess960: Option<bool>,
    skipped: Vec<String>,
    /// Options whose values the engine does not take, skipped: (option,
    /// value).
    refused: Vec<(String, String)>,
    /// The engine ponders: [`EngineConfig::ponder`] and it declares `Ponder`.
    can_ponder: bool,
    /// The game the ponder search in progress expects at the next request.
    pondering: Option<Expected>,
    /// The game whose position the engine was given by [`Player::prepare`].
    prepared: Option<Expected>,
}

/// A game as the engine was given it: the start and every move (for a
/// ponder search, the reply it expects last).
struct Expected {
    start: Position,
    moves: Vec<Move>,
}

/// The most info lines with a PV kept from one search for the checks: an
/// engine that floods its output does not grow the referee's memory.
const MAX_PV_LINES: usize = 1024;

impl UciPlayer {
    /// Starts the engine of `config` as a UCI engine (whatever its `proto=`;
    /// [`EngineConfig::start`] starts it in its own protocol).
    ///
    /// # Errors
    /// [`PlayerError::Start`].
    pub fn start(
        config: EngineConfig,
        timeouts: Timeouts,
        log: Option<EngineLog>,
    ) -> Result<UciPlayer, PlayerError> {
        let mut p = UciPlayer {
            engine: EngineProcess::new(config, timeouts, log),
            chess960: None,
            skipped: Vec::new(),
            refused: Vec::new(),
            can_ponder: false,
            pondering: None,
            prepared: None,
        };
        p.restart()?;
        Ok(p)
    }

    /// Ends the ponder search in progress, if one is: `stop`, and its
    /// `bestmove` read and dropped.
    ///
    /// # Errors
    /// [`PlayerError::Timeout`] (not responsive) when no `bestmove` comes
    /// within [`STOP_GRACE`]; a crash.
    /// Whether the ponder search in progress assumed `req`'s game.
    fn ponder_hit(&self, req: &MoveRequest<'_>) -> bool {
        self.pondering
            .as_ref()
            .is_some_and(|p| p.start == *req.start && p.moves == req.moves)
    }

    /// `req`'s game as UCI says it: the start, the moves in the castling
    /// notation the engine is in, the position reached, and that notation.
    fn position_of(
        &self,
        req: &MoveRequest<'_>,
    ) -> (PositionStart, Vec<UciMove>, Position, CastlingMode) {
        let mode = if self.chess960 == Some(true) || req.start.is_chess960_castling() {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let mut pos = req.start.clone();
        let mut moves = Vec::with_capacity(req.moves.len());
        for &m in req.moves {
            moves.push(UciMove::from_move(&pos, m, mode));
            pos.play_unchecked(m);
        }
        let start = if *req.start == Position::startpos() {
            PositionStart::StartPos
        } else {
            PositionStart::Fen(Fen::from_position(req.start).to_string())
        };
        (start, moves, pos, mode)
    }

    fn stop_pondering(&mut self) -> Result<(), PlayerError> {
        if self.pondering.take().is_none() {
            return Ok(());
        }
        let host = self.host()?;
        host.stop().map_err(PlayerError::from_host)?;
        let grace = Instant::now() + STOP_GRACE;
        loop {
            let left = grace.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(PlayerError::Timeout {
                    after: STOP_GRACE,
                    responsive: false,
                });
            }
            // A bestmove with no move that can be read ends the search too.
            match host.next_event(left) {
                Ok(Some(SearchEvent::BestMove(_))) | Err(HostError::Protocol(_)) => return Ok(()),
                Ok(_) => {}
                Err(e) => return Err(PlayerError::from_host(e)),
            }
        }
    }

    /// After a move `best` chosen in `request`'s position (the game so far
    /// as `moves`, in `mode`'s notation) with `ponder` as the expected reply:
    /// starts the ponder search on the position after both, with the clocks
    /// as they will stand (the engine's time less `elapsed`, plus its
    /// increment; a new period's time when this move ended one). Nothing
    /// when either move is not legal, or the reply ends the game.
    fn start_pondering(
        &mut self,
        req: &MoveRequest<'_>,
        moves: &[UciMove],
        start: &PositionStart,
        (best, ponder): (UciMove, UciMove),
        elapsed: Duration,
        mode: CastlingMode,
    ) -> Result<(), PlayerError> {
        let mut pos = req.start.clone();
        for &m in req.moves {
            pos.play_unchecked(m);
        }
        let me = pos.turn();
        let Ok(best) = best.to_move(&pos) else {
            return Ok(());
        };
        let mut after = pos.clone();
        after.play_unchecked(best);
        let Ok(reply) = ponder.to_move(&after) else {
            return Ok(());
        };
        let best_uci = UciMove::from_move(&pos, best, mode);
        let reply_uci = UciMove::from_move(&after, reply, mode);
        after.play_unchecked(reply);
        if after.legal_moves().is_empty() {
            return Ok(());
        }
        let limits = &req.limits;
        if limits == &ThinkLimits::default() {
            // No limit at all: the search would never end by itself.
            return Ok(());
        }
        let mut next = limits.clone();
        let (time, inc) = match me {
            rookery_core::Color::White => (&mut next.wtime, limits.winc),
            rookery_core::Color::Black => (&mut next.btime, limits.binc),
        };
        if let Some(t) = time.as_mut() {
            *t = t.saturating_sub(elapsed) + inc.unwrap_or_default();
        }
        next.movestogo = match limits.movestogo {
            Some(n) if n > 1 => Some(n - 1),
            Some(_) => {
                // The move ended a period: the next one's time is added.
                let period = self.engine.config.tc.clock;
                if let (Some(t), Some(p)) = (time.as_mut(), period) {
                    *t += p.base;
                }
                period.and_then(|p| p.moves)
            }
            None => None,
        };
        let mut go = UciPlayer::go_params(&next);
        go.ponder = true;
        let mut line = moves.to_vec();
        line.push(best_uci);
        line.push(reply_uci);
        self.host()?
            .go(start, &line, &go)
            .map_err(PlayerError::from_host)?;
        let mut expected = req.moves.to_vec();
        expected.push(best);
        expected.push(reply);
        self.pondering = Some(Expected {
            start: req.start.clone(),
            moves: expected,
        });
        Ok(())
    }

    fn host(&mut self) -> Result<&mut EngineHost, PlayerError> {
        self.engine.host()
    }

    fn connect(&self) -> Result<EngineHost, HostError> {
        let spec = self.engine.spec();
        let transport: Box<dyn Transport> = match &self.engine.config.command {
            EngineCommand::Builtin => builtin_transport(),
            EngineCommand::External { .. } => Box::new(ProcessTransport::spawn(&spec)?),
        };
        EngineHost::with_transport(spec, self.engine.timeouts, self.engine.logged(transport))
    }

    /// Options of its configuration the engine does not declare, skipped
    /// when it started (unless [`EngineConfig::strict_options`]).
    pub fn skipped_options(&self) -> &[String] {
        &self.skipped
    }

    /// Options of its configuration set to a value the engine does not
    /// take, skipped when it started (unless
    /// [`EngineConfig::strict_options`]): (option, value).
    pub fn refused_values(&self) -> &[(String, String)] {
        &self.refused
    }

    fn go_params(limits: &ThinkLimits) -> GoParams {
        let ms = |d: Option<Duration>| d.map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        GoParams {
            wtime: ms(limits.wtime),
            btime: ms(limits.btime),
            winc: ms(limits.winc),
            binc: ms(limits.binc),
            movestogo: limits.movestogo,
            movetime: ms(limits.movetime),
            nodes: limits.nodes,
            depth: limits.depth,
            infinite: limits == &ThinkLimits::default(),
            ..GoParams::default()
        }
    }
}

impl Player for UciPlayer {
    fn name(&self) -> &str {
        &self.engine.name
    }

    fn new_game(&mut self, chess960: bool) -> Result<(), PlayerError> {
        self.stop_pondering()?;
        // A new game's first request sends its position afresh.
        self.prepared = None;
        let host = self.host()?;
        if host
            .options()
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case("UCI_Chess960"))
            && self.chess960 != Some(chess960)
        {
            let host = self.host()?;
            host.set_option(
                "UCI_Chess960",
                Some(if chess960 { "true" } else { "false" }),
            )
            .map_err(PlayerError::from_host)?;
            self.chess960 = Some(chess960);
        }
        self.host()?.new_game().map_err(PlayerError::from_host)
    }

    fn prepare(&mut self, req: &MoveRequest<'_>) -> Result<(), PlayerError> {
        self.prepared = None;
        if self.ponder_hit(req) {
            // The clock starts with `ponderhit`: nothing to send before it.
            return Ok(());
        }
        self.stop_pondering()?;
        let (start, moves, _, _) = self.position_of(req);
        self.host()?
            .set_position(&start, &moves)
            .map_err(PlayerError::from_host)?;
        self.prepared = Some(Expected {
            start: req.start.clone(),
            moves: req.moves.to_vec(),
        });
        Ok(())
    }

    fn request_move(&mut self, req: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        let (start, moves, pos, mode) = self.position_of(req);
        let t0 = Instant::now();
        let prepared = self
            .prepared
            .take()
            .is_some_and(|p| p.start == *req.start && p.moves == req.moves);
        if self.ponder_hit(req) {
            // The expected reply came: the ponder search is now the move.
            self.pondering = None;
            self.host()?.ponder_hit().map_err(PlayerError::from_host)?;
        } else if prepared {
            // The engine has the position (Player::prepare): only `go`.
            let go = UciPlayer::go_params(&req.limits);
            self.host()?
                .go_on_position(&go)
                .map_err(PlayerError::from_host)?;
        } else {
            self.stop_pondering()?;
            let go = UciPlayer::go_params(&req.limits);
            self.host()?
                .go(&start, &moves, &go)
                .map_err(PlayerError::from_host)?;
        }
        let white_pov = self.engine.config.white_pov && pos.turn() == rookery_core::Color::Black;
        let host = self.host()?;
        let deadline = t0 + req.deadline;
        let mut last: Option<Info> = None;
        // The lines with a PV, checked after the move (off its clock).
        let mut infos: Vec<Info> = Vec::new();
        let mut info_strings: Vec<String> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                // Missed the deadline: ask it to stop, and see whether it can.
                let mut responsive = false;
                if host.stop().is_ok() {
                    let grace = Instant::now() + STOP_GRACE;
                    while let Ok(Some(ev)) =
                        host.next_event(grace.saturating_duration_since(Instant::now()))
                    {
                        if let SearchEvent::BestMove(_) = ev {
                            responsive = true;
                            break;
                        }
                        if Instant::now() >= grace {
                            break;
                        }
                    }
                }
                return Err(PlayerError::Timeout {
                    after: req.deadline,
                    responsive,
                });
            }
            match host.next_event(left).map_err(PlayerError::from_host)? {
                Some(SearchEvent::Info(info)) => {
                    if info.string.is_some() {
                        if info_strings.len() == crate::record::MoveRecord::INFO_STRINGS {
                            info_strings.remove(0);
                        }
                        info_strings.push(info.to_string());
                    }
                    if info.pv.as_ref().is_some_and(|pv| !pv.is_empty())
                        && infos.len() < MAX_PV_LINES
                    {
                        infos.push((*info).clone());
                    }
                    if info.multipv.unwrap_or(1) <= 1 && (info.score.is_some() || info.pv.is_some())
                    {
                        last = Some(*info);
                    }
                }
                None => {}
                Some(SearchEvent::BestMove(result)) => {
                    let info = last.unwrap_or_default();
                    let reply = MoveReply {
                        mv: result.best,
                        score: info
                            .score
                            .map(|s| if white_pov { s.value.flip() } else { s.value }),
                        depth: info.depth,
                        seldepth: info.seldepth,
                        nodes: info.nodes,
                        pv: info.pv.unwrap_or_default(),
                        infos,
                        info_strings,
                        offer: None,
                    };
                    if let (true, Some(ponder)) = (self.can_ponder, result.ponder) {
                        // The move stands whatever happens to the ponder
                        // search: an engine gone now is found at the next
                        // request.
                        let elapsed = t0.elapsed();
                        let line = (reply.mv, ponder);
                        if self
                            .start_pondering(req, &moves, &start, line, elapsed, mode)
                            .is_err()
                        {
                            self.pondering = None;
                        }
                    }
                    return Ok(reply);
                }
            }
        }
    }

    fn restart(&mut self) -> Result<(), PlayerError> {
        self.engine.quit();
        self.chess960 = None;
        self.pondering = None;
        self.prepared = None;
        let host = self.connect().map_err(|e| self.engine.start_failed(e))?;
        self.skipped = host.skipped_options().to_vec();
        self.refused = host.refused_values().to_vec();
        self.engine.started(host);
        self.can_ponder = false;
        if self.engine.config.ponder {
            let host = self.host()?;
            let declared = host
                .options()
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case("Ponder"));
            if declared {
                host.set_option("Ponder", Some("true"))
                    .map_err(PlayerError::from_host)?;
                self.can_ponder = true;
            } else {
                // Reported as an option it lacks: it does not ponder.
                self.skipped.push("Ponder".into());
            }
        }
        Ok(())
    }

    fn game_over(&mut self, _record: &crate::record::GameRecord, _last: &Position) {
        // The game is over: a ponder search has nothing left to find. An
        // engine that does not stop is found out by the next request.
        let _ = self.stop_pondering();
    }

    fn quit(&mut self) {
        self.engine.quit();
    }
}

impl Drop for UciPlayer {
    fn drop(&mut self) {
        self.quit();
    }
}
