//! [`XboardPlayer`]: an xboard engine (CECP, the xboard / WinBoard
//! protocol, version 2 or 1) as a [`Player`], driven through
//! `rookery-uci`'s [`CecpHost`].
//!
//! # How a game goes
//!
//! [`Player::new_game`] sends `new` (which also turns GNU Chess's random
//! mode off: `random` is never sent), `variant fischerandom` for Chess960,
//! `force`, `post` (thinking output, for the PGN's comments), `easy`
//! (pondering off) and the engine's time control, then synchronises with
//! `ping`/`pong`, so that nothing an engine says about an earlier game (a
//! late move, a result) is taken for this one. The first
//! [`Player::request_move`] sets up the start (`setboard FEN`, or the old
//! `edit` mode for engines without `setboard`, such as Fairy-Max), sends
//! the moves so far in force mode, the clocks and `go`; every later request
//! sends the clocks and the opponent's move (bare, or as `usermove`, in
//! coordinate notation or SAN as the engine asked), and the engine answers
//! with `move`. [`Player::game_over`] sends `result RESULT {reason}` and
//! `force`; [`Player::quit`] sends `quit` and kills the engine after the
//! grace period.
//!
//! # Time controls
//!
//! A clock is `level MPS BASE INC` (the base in whole seconds; the exact
//! time goes with every move in `time`/`otim`, in centiseconds). A fixed
//! time per move is `st` in whole seconds: the protocol has no fractions,
//! so `st=0.5` is sent as `st 0`, which engines take as "move at once";
//! GNU Chess uses all of `st 1` and a few milliseconds more, so give it
//! `timemargin=`. A depth limit is `sd`. A node limit is `st 1` with
//! `nps N` (a node rate of N per second makes one second N nodes), which
//! an engine that does not know `nps` cannot play (a start failure, not a
//! silent change). A clock, a fixed time and a node limit cannot be told
//! together. Pondering is always off (`easy`).
//!
//! # What an engine says
//!
//! `resign`, and a result claim that gives the game to the opponent, are
//! [`Offer::Resign`]; `offer draw` goes with the engine's next move as
//! [`Offer::Draw`], or accepts the opponent's offer (relayed with `draw`)
//! as [`Offer::Accept`]; `1/2-1/2 {...}` right after its move is
//! [`Offer::Claim`], judged by the game loop. An engine that claims a
//! result the rules do not give has declared that it plays no more (CECP
//! §9): asked for its next move, or claiming instead of moving, it loses by
//! a protocol violation. `Illegal move` about a move it was sent is a
//! protocol violation too. The thinking output gives the score (centipawns
//! from the engine's side; ±(100000 + N) is a mate in N moves), depth,
//! selective depth, nodes and PV of the last line before the move.
//!
//! # Signals
//!
//! No signal is ever sent: an engine that asks for SIGINT (`sigint=1`, the
//! protocol's default) to notice input while it thinks gets `?` without
//! one, and if it does not answer in time, the missed deadline is judged
//! like any other. After `quit` an engine has the quit grace period, then
//! it is killed.

use crate::clock::TimeControl;
use crate::player::{
    EngineCommand, EngineConfig, EngineLog, MoveReply, MoveRequest, Offer, Player, PlayerError,
    STOP_GRACE,
};
use crate::process::EngineProcess;
use crate::record::{GameOutcome, GameRecord};
use rookery_core::{
    CastlingMode, CastlingSide, Color, Fen, Move, Outcome, Position, Role, Square, UciMove,
};
use rookery_uci::cecp::host::CecpHost;
use rookery_uci::cecp::{
    CecpMove, Command, EditCommand, Features, Message, ResultClaim, Tell, Thinking,
};
use rookery_uci::host::{ProcessTransport, Timeouts};
use std::time::{Duration, Instant};

/// Where the engine's board and role stand in the current game.
#[derive(Clone, Debug, Default)]
struct GameState {
    /// A Chess960 game (`variant fischerandom`).
    chess960: bool,
    /// The start the engine's board began from (`None`: not known, set it
    /// up afresh).
    start: Option<Position>,
    /// How many moves of the game, from `start`, the engine has.
    known: usize,
    /// Whether the engine plays a side (after `go`) or is in force mode.
    playing: bool,
    /// A draw offer the engine made after its last move, for its next.
    offer: bool,
    /// A result the engine claimed that did not end the game: it plays no
    /// more.
    claim: Option<ResultClaim>,
}

/// An xboard (CECP) engine as a [`Player`].
pub struct XboardPlayer {
    engine: EngineProcess<CecpHost>,
    game: GameState,
    /// Games begun by this process (an engine with `reuse=0` gets a new
    /// process for each).
    games: u32,
}

impl XboardPlayer {
    /// Starts the engine of `config` and agrees on features with it, and
    /// checks that it takes the configuration's limits: a game is begun
    /// with them, and an engine that refuses them (`nodes=` told with `nps`
    /// to an engine that does not understand it) is refused here, before
    /// any game, rather than losing every game it is given.
    ///
    /// # Errors
    /// [`PlayerError::Start`]: the program cannot be run, it is the
    /// built-in engine (which speaks UCI), the handshake fails, or the
    /// engine cannot take the limits.
    pub fn start(
        config: EngineConfig,
        timeouts: Timeouts,
        log: Option<EngineLog>,
    ) -> Result<XboardPlayer, PlayerError> {
        let mut p = XboardPlayer {
            engine: EngineProcess::new(config, timeouts, log),
            game: GameState::default(),
            games: 0,
        };
        p.restart()?;
        p.begin(false)?;
        p.check_limits()?;
        Ok(p)
    }

    /// Options of its configuration the engine does not have, skipped when
    /// it started (unless [`EngineConfig::strict_options`]).
    pub fn skipped_options(&self) -> &[String] {
        self.engine
            .host
            .as_ref()
            .map_or(&[], CecpHost::skipped_options)
    }

    /// The features the engine asked for (`None` when it is not running).
    pub fn features(&self) -> Option<&Features> {
        self.engine.host.as_ref().map(CecpHost::features)
    }

    fn host(&mut self) -> Result<&mut CecpHost, PlayerError> {
        self.engine.host()
    }

    /// Waits for the engine to have read the commands of [`Self::begin`],
    /// and refuses it when it did not take the limits (an error for `nps`).
    fn check_limits(&mut self) -> Result<(), PlayerError> {
        let needs_nps = self.engine.config.tc.nodes.is_some();
        let host = self.host()?;
        let before = match host.sync() {
            Ok(before) => before,
            // An engine that dies on `nps` (Fairy-Max 5.0b can, where it
            // reads it just after `st`) did not take the limits either:
            // refused as one that says so, naming the word and the end.
            Err(e) if needs_nps => {
                return Err(self.start_error(format!(
                    "nodes={} is told with nps, and it ended on it ({})",
                    self.engine.config.tc.nodes.unwrap_or(0),
                    PlayerError::from_host(e)
                )))
            }
            Err(e) => return Err(PlayerError::from_host(e)),
        };
        if needs_nps {
            let refused = before.iter().any(|m| match m {
                Message::Error { command, .. } => command.split_whitespace().next() == Some("nps"),
                Message::IllegalMove { mv: Some(mv), .. } => mv.starts_with("nps"),
                _ => false,
            });
            if refused {
                return Err(self.start_error(format!(
                    "nodes={} is told with nps, which it does not understand",
                    self.engine.config.tc.nodes.unwrap_or(0)
                )));
            }
        }
        Ok(())
    }

    fn start_error(&self, reason: String) -> PlayerError {
        self.engine.start_error(reason)
    }

    fn connect(&self) -> Result<CecpHost, PlayerError> {
        if let EngineCommand::Builtin = self.engine.config.command {
            return Err(self.start_error(
                "the built-in engine speaks UCI, not xboard: give it proto=uci".into(),
            ));
        }
        let spec = self.engine.spec();
        ProcessTransport::spawn(&spec)
            .and_then(|t| {
                let transport = self.engine.logged(Box::new(t));
                CecpHost::with_transport(spec, self.engine.timeouts, transport)
            })
            .map_err(|e| self.engine.start_failed(e))
    }

    /// `new` and what a game begins with (no synchronisation).
    fn begin(&mut self, chess960: bool) -> Result<(), PlayerError> {
        let features = self.host()?.features().clone();
        let tc = tc_commands(&self.engine.config.tc, &features).map_err(|r| self.start_error(r))?;
        if chess960 && !features.plays("fischerandom") {
            let listed = features.variants.unwrap_or_default().join(",");
            return Err(
                self.start_error(format!("it does not play Chess960 (variants=\"{listed}\")"))
            );
        }
        let host = self.host()?;
        host.send(&Command::New).map_err(PlayerError::from_host)?;
        if chess960 {
            host.send(&Command::Variant("fischerandom".into()))
                .map_err(PlayerError::from_host)?;
        }
        for c in [Command::Force, Command::Post, Command::Easy]
            .into_iter()
            .chain(tc)
        {
            host.send(&c).map_err(PlayerError::from_host)?;
        }
        self.game = GameState {
            chess960,
            start: Some(Position::startpos()),
            ..GameState::default()
        };
        Ok(())
    }

    /// Puts the engine's board at `start` (after [`XboardPlayer::begin`]):
    /// `setboard`, or edit mode.
    fn set_up(&mut self, start: &Position) -> Result<(), PlayerError> {
        if *start == Position::startpos() {
            return Ok(());
        }
        let fen = Fen::from_position(start).to_string();
        let features = self.host()?.features().clone();
        if features.setboard {
            return self
                .host()?
                .send(&Command::SetBoard(fen))
                .map_err(PlayerError::from_host);
        }
        let notation = features.notation();
        if let Some(why) = edit_cannot_set(start, self.game.chess960) {
            return Err(self.start_error(format!(
                "it has no setboard, and its edit mode cannot set up {fen}: {why}"
            )));
        }
        let host = self.host()?;
        let send = |host: &mut CecpHost, e: EditCommand| {
            host.send_edit(&e).map_err(PlayerError::from_host)
        };
        if start.turn() == Color::Black {
            // CECP §8: edit keeps the side to move; a move first makes it Black's.
            let initial = Position::startpos();
            let a3 = "a2a3"
                .parse::<UciMove>()
                .ok()
                .and_then(|m| m.to_move(&initial).ok())
                .ok_or_else(|| PlayerError::Protocol("a2a3 is not legal at the start".into()))?;
            let m = CecpMove::from_move(&initial, a3, notation, false);
            host.send(&move_command(&features, m))
                .map_err(PlayerError::from_host)?;
        }
        host.send(&Command::Edit).map_err(PlayerError::from_host)?;
        send(host, EditCommand::Clear)?;
        for color in [Color::White, Color::Black] {
            if color == Color::Black {
                send(host, EditCommand::Color)?;
            }
            for sq in Square::all() {
                if let Some(p) = start.piece_at(sq).filter(|p| p.color == color) {
                    send(host, EditCommand::Place(p.role, sq))?;
                }
            }
        }
        send(host, EditCommand::Done)
    }

    /// Sends `time` and `otim` when the engine plays on a clock.
    fn send_clocks(&mut self, req: &MoveRequest<'_>, side: Color) -> Result<(), PlayerError> {
        let host = self.host()?;
        if !host.features().time {
            return Ok(());
        }
        let (own, other) = match side {
            Color::White => (req.limits.wtime, req.limits.btime),
            Color::Black => (req.limits.btime, req.limits.wtime),
        };
        let cs = |d: Duration| i64::try_from(d.as_millis() / 10).unwrap_or(i64::MAX);
        if let Some(own) = own {
            host.send(&Command::Time(cs(own)))
                .map_err(PlayerError::from_host)?;
            if let Some(other) = other {
                host.send(&Command::Otim(cs(other)))
                    .map_err(PlayerError::from_host)?;
            }
        }
        Ok(())
    }

    /// Takes what the engine said between moves: a resignation ends the
    /// request at once; a claim or draw offer is remembered.
    fn between_moves(&mut self, m: Message, side: Color) -> Option<MoveReply> {
        match m {
            Message::Resign => Some(offer_only(Offer::Resign)),
            Message::Result(c) if c.loses_for(side) => Some(offer_only(Offer::Resign)),
            Message::Result(c) => {
                self.game.claim = Some(c);
                None
            }
            Message::OfferDraw => {
                self.game.offer = true;
                None
            }
            _ => None,
        }
    }
}

/// A reply of no move, only an offer (a resignation, an acceptance).
fn offer_only(offer: Offer) -> MoveReply {
    MoveReply {
        offer: Some(offer),
        ..MoveReply::just(UciMove::Null)
    }
}

/// The command that sends a move: `usermove MOVE` or the bare move.
fn move_command(features: &Features, m: CecpMove) -> Command {
    if features.usermove {
        Command::UserMove(m)
    } else {
        Command::Move(m)
    }
}

/// The time-control commands for `tc`, or why CECP cannot say it.
fn tc_commands(tc: &TimeControl, features: &Features) -> Result<Vec<Command>, String> {
    let mut out = Vec::new();
    match (tc.clock, tc.movetime, tc.nodes) {
        (Some(c), None, None) => out.push(Command::Level {
            moves: c.moves.unwrap_or(0),
            base: Duration::from_secs(c.base.as_secs()),
            inc: c.increment,
        }),
        (None, Some(t), None) => out.push(Command::St(t.as_secs())),
        (None, None, Some(n)) => {
            if features.nps == Some(false) {
                return Err(format!(
                    "nodes={n} is told with nps, and it does not take nps (feature nps=0)"
                ));
            }
            out.push(Command::St(1));
            out.push(Command::Nps(n));
        }
        (None, None, None) => {}
        _ => {
            return Err(format!(
                "CECP cannot tell the time control {tc}: one of tc=, st= and nodes= at a time \
                 (depth= goes with any)"
            ))
        }
    }
    if let Some(d) = tc.depth {
        out.push(Command::Sd(d));
    }
    Ok(out)
}

/// Why edit mode cannot set up `pos`, if it cannot: it gives castling
/// rights to every king and rook on their home squares, never an
/// en-passant capture, and knows no Chess960.
fn edit_cannot_set(pos: &Position, chess960: bool) -> Option<&'static str> {
    if chess960 {
        return Some("Chess960 needs setboard");
    }
    if pos.ep_square().is_some() {
        return Some("an en-passant capture is possible, which edit mode cannot give");
    }
    let homes = [
        (Color::White, Square::E1, Square::H1, Square::A1),
        (Color::Black, Square::E8, Square::H8, Square::A8),
    ];
    for (color, king, h, a) in homes {
        let king_home = pos.piece_at(king)
            == Some(rookery_core::Piece {
                color,
                role: Role::King,
            });
        for (side, rook_sq) in [(CastlingSide::KingSide, h), (CastlingSide::QueenSide, a)] {
            let rook_home = pos.piece_at(rook_sq)
                == Some(rookery_core::Piece {
                    color,
                    role: Role::Rook,
                });
            let implied = king_home && rook_home;
            if implied != (pos.castling_rook(color, side) == Some(rook_sq)) {
                return Some("its castling rights differ from those edit mode gives");
            }
        }
    }
    None
}

/// The PV of a thinking line as moves from `pos`: coordinate or SAN words,
/// move numbers skipped, up to the first word that is no legal move.
fn pv_moves(pos: &Position, pv: &str, mode: CastlingMode) -> Vec<UciMove> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for w in pv.split_ascii_whitespace() {
        let number = w.trim_end_matches('.');
        if w.ends_with('.') && number.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let w = w.trim_end_matches(['?', '!']);
        let Some(m) = w.parse::<CecpMove>().ok().and_then(|m| m.to_move(&p).ok()) else {
            break;
        };
        out.push(UciMove::from_move(&p, m, mode));
        p.play_unchecked(m);
    }
    out
}

/// The reply for a legal move `m` of `pos`, with the last thinking line.
fn reply(pos: &Position, m: Move, mode: CastlingMode, last: Option<&Thinking>) -> MoveReply {
    let mut r = MoveReply::just(UciMove::from_move(pos, m, mode));
    if let Some(t) = last {
        r.score = Some(t.score());
        r.depth = Some(t.ply);
        r.seldepth = t.seldepth().and_then(|d| u32::try_from(d).ok());
        r.nodes = Some(t.nodes);
        r.pv = pv_moves(pos, &t.pv, mode);
    }
    r
}

/// `{` and `}` cannot be in a result comment.
fn comment_text(reason: &str) -> String {
    reason.replace('{', "(").replace('}', ")")
}

impl Player for XboardPlayer {
    fn name(&self) -> &str {
        // An engine's `myname` may come after the handshake (GNU Chess).
        match (&self.engine.config.name, &self.engine.host) {
            (None, Some(host)) => host.name(),
            _ => &self.engine.name,
        }
    }

    fn new_game(&mut self, chess960: bool) -> Result<(), PlayerError> {
        if self.games > 0 && !self.host()?.features().reuse {
            self.restart()?;
        }
        self.games += 1;
        self.begin(chess960)?;
        self.check_limits()
    }

    fn request_move(&mut self, req: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        let mut pos = req.start.clone();
        let mut before_last = pos.clone();
        for &m in req.moves {
            before_last = pos.clone();
            pos.play_unchecked(m);
        }
        let side = pos.turn();
        let mode = if self.game.chess960 || req.start.is_chess960_castling() {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let chess960 = mode == CastlingMode::Chess960;
        // What the engine said since its last move.
        for m in self.host()?.drain().map_err(PlayerError::from_host)? {
            if let Some(r) = self.between_moves(m, side) {
                return Ok(r);
            }
        }
        if let Some(c) = &self.game.claim {
            return Err(PlayerError::Protocol(format!(
                "claimed {c}, which the rules do not give, and plays no more"
            )));
        }
        // Bring the engine to the position and set it going.
        let in_step = self.game.playing
            && self.game.start.as_ref() == Some(req.start)
            && self.game.known + 1 == req.moves.len();
        let notation = self.host()?.features().notation();
        let mut sent: Vec<String> = Vec::new();
        let mut set_up = false;
        if in_step {
            if req.draw_offered && self.host()?.features().draw {
                self.host()?
                    .send(&Command::Draw)
                    .map_err(PlayerError::from_host)?;
            }
            self.send_clocks(req, side)?;
            let last = req.moves[self.game.known];
            let m = CecpMove::from_move(&before_last, last, notation, chess960);
            sent.push(m.to_string());
            let host = self.host()?;
            let cmd = move_command(host.features(), m);
            host.send(&cmd).map_err(PlayerError::from_host)?;
        } else {
            let fresh =
                self.game.start.as_ref() == Some(&Position::startpos()) && self.game.known == 0;
            if self.game.start.as_ref() != Some(req.start) || self.game.known > req.moves.len() {
                if !fresh {
                    let c960 = self.game.chess960;
                    self.begin(c960)?;
                }
                self.set_up(req.start)?;
                set_up = *req.start != Position::startpos();
                self.game.start = Some(req.start.clone());
                self.game.known = 0;
            }
            self.host()?
                .send(&Command::Force)
                .map_err(PlayerError::from_host)?;
            let mut p = req.start.clone();
            for (i, &m) in req.moves.iter().enumerate() {
                if i >= self.game.known {
                    let cm = CecpMove::from_move(&p, m, notation, chess960);
                    sent.push(cm.to_string());
                    let host = self.host()?;
                    let cmd = move_command(host.features(), cm);
                    host.send(&cmd).map_err(PlayerError::from_host)?;
                }
                p.play_unchecked(m);
            }
            if req.draw_offered && self.host()?.features().draw {
                self.host()?
                    .send(&Command::Draw)
                    .map_err(PlayerError::from_host)?;
            }
            self.send_clocks(req, side)?;
            self.host()?
                .send(&Command::Go)
                .map_err(PlayerError::from_host)?;
            self.game.playing = true;
        }
        self.game.known = req.moves.len();

        let deadline = Instant::now() + req.deadline;
        let mut last: Option<Thinking> = None;
        let mut offered = std::mem::take(&mut self.game.offer);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let host = self.host()?;
            if left.is_zero() {
                // Missed the deadline: ask it to move now, and see whether it can.
                let mut responsive = false;
                if host.send(&Command::MoveNow).is_ok() {
                    let grace = Instant::now() + STOP_GRACE;
                    while let Ok(Some(m)) =
                        host.recv(grace.saturating_duration_since(Instant::now()))
                    {
                        if let Message::Move(_) = m {
                            responsive = true;
                            break;
                        }
                    }
                }
                self.game.playing = false;
                return Err(PlayerError::Timeout {
                    after: req.deadline,
                    responsive,
                });
            }
            let Some(msg) = host.recv(left).map_err(PlayerError::from_host)? else {
                continue;
            };
            match msg {
                Message::Thinking(t) if !t.is_book() => last = Some(t),
                Message::Move(cm) => {
                    let m = cm
                        .to_move(&pos)
                        .map_err(|_| PlayerError::IllegalMove(cm.to_string()))?;
                    self.game.known = req.moves.len() + 1;
                    let mut r = reply(&pos, m, mode, last.as_ref());
                    if offered {
                        r.offer = Some(if req.draw_offered {
                            Offer::Accept
                        } else {
                            Offer::Draw
                        });
                    }
                    // What it says right after its move belongs to it.
                    for after in self.host()?.drain().map_err(PlayerError::from_host)? {
                        match after {
                            Message::Resign => r.offer = Some(Offer::Resign),
                            Message::Result(c) if c.loses_for(side) => {
                                r.offer = Some(Offer::Resign)
                            }
                            Message::Result(c) => {
                                if c.outcome == Some(Outcome::Draw)
                                    && r.offer != Some(Offer::Resign)
                                {
                                    r.offer = Some(Offer::Claim);
                                }
                                self.game.claim = Some(c);
                            }
                            Message::OfferDraw => self.game.offer = true,
                            _ => {}
                        }
                    }
                    return Ok(r);
                }
                Message::BadMove(w) => return Err(PlayerError::IllegalMove(w)),
                Message::Resign => return Ok(offer_only(Offer::Resign)),
                Message::OfferDraw if req.draw_offered => return Ok(offer_only(Offer::Accept)),
                Message::OfferDraw => offered = true,
                Message::Result(c) if c.loses_for(side) => return Ok(offer_only(Offer::Resign)),
                Message::Result(c) => {
                    self.game.claim = Some(c.clone());
                    return Err(PlayerError::Protocol(format!(
                        "claims {c} instead of moving, which the rules do not give"
                    )));
                }
                Message::IllegalMove { reason, mv } => {
                    let ours = match &mv {
                        Some(mv) => sent.iter().any(|s| s == mv),
                        None => !sent.is_empty(),
                    };
                    if ours {
                        let what = mv.or_else(|| sent.last().cloned()).unwrap_or_default();
                        let why = reason.map(|r| format!(" ({r})")).unwrap_or_default();
                        return Err(PlayerError::Protocol(format!(
                            "rejects the move {what} as illegal{why}"
                        )));
                    }
                }
                Message::Error { kind, command } => {
                    let ours = sent.iter().any(|s| {
                        command == *s || command.strip_prefix("usermove ") == Some(s.as_str())
                    }) || (set_up && command.starts_with("setboard"));
                    if ours {
                        return Err(PlayerError::Protocol(format!(
                            "answers {command:?} with an error ({kind})"
                        )));
                    }
                }
                Message::Tell {
                    kind: Tell::UserError,
                    text,
                } if set_up => {
                    return Err(PlayerError::Protocol(format!(
                        "refuses the starting position: {text}"
                    )));
                }
                _ => {}
            }
        }
    }

    fn restart(&mut self) -> Result<(), PlayerError> {
        self.engine.quit();
        self.game = GameState::default();
        self.games = 0;
        let host = self.connect()?;
        self.engine.started(host);
        Ok(())
    }

    fn quit(&mut self) {
        self.engine.quit();
    }

    fn game_over(&mut self, record: &GameRecord, _last: &Position) {
        let outcome = match record.outcome {
            GameOutcome::WhiteWins => Some(Outcome::Decisive {
                winner: Color::White,
            }),
            GameOutcome::BlackWins => Some(Outcome::Decisive {
                winner: Color::Black,
            }),
            GameOutcome::Draw => Some(Outcome::Draw),
            GameOutcome::Unfinished => None,
        };
        let claim = ResultClaim {
            outcome,
            comment: Some(comment_text(&record.reason)),
        };
        if let Some(host) = self.engine.host.as_mut() {
            // A failure here shows at the next game's start.
            let _ = host.send(&Command::Result(claim));
            let _ = host.send(&Command::Force);
        }
        self.game.playing = false;
    }
}

impl Drop for XboardPlayer {
    fn drop(&mut self) {
        self.quit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(words: &str) -> TimeControl {
        let mut t = TimeControl::default();
        for w in words.split_whitespace() {
            let (k, v) = w.split_once('=').unwrap();
            t.set(k, v).unwrap();
        }
        t
    }

    fn lines(v: Vec<Command>) -> Vec<String> {
        v.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn time_controls_in_cecp_words() {
        let f = Features::default();
        let ok = |w: &str| lines(tc_commands(&tc(w), &f).unwrap());
        assert_eq!(ok("tc=10+0.1"), ["level 0 0:10 0.1"]);
        assert_eq!(ok("tc=40/60+0.6"), ["level 40 1 0.6"]);
        assert_eq!(ok("tc=2.5+0.05"), ["level 0 0:02 0.05"]);
        assert_eq!(ok("tc=5+0.05 depth=6"), ["level 0 0:05 0.05", "sd 6"]);
        assert_eq!(ok("st=2"), ["st 2"]);
        assert_eq!(ok("st=0.5"), ["st 0"]);
        assert_eq!(ok("nodes=20000"), ["st 1", "nps 20000"]);
        assert_eq!(ok("depth=4"), ["sd 4"]);
        assert!(tc_commands(&tc("tc=10 st=1"), &f).is_err());
        assert!(tc_commands(&tc("tc=10 nodes=100"), &f).is_err());
        let no_nps = Features {
            nps: Some(false),
            ..Features::default()
        };
        assert!(tc_commands(&tc("nodes=100"), &no_nps).is_err());
    }

    #[test]
    fn edit_mode_limits() {
        let p = |fen: &str| Position::from_fen(fen).unwrap();
        assert_eq!(edit_cannot_set(&Position::startpos(), false), None);
        assert_eq!(
            edit_cannot_set(&p("4k3/8/8/8/8/8/8/4K2R w - - 0 1"), false),
            Some("its castling rights differ from those edit mode gives")
        );
        assert_eq!(
            edit_cannot_set(&p("4k3/8/8/8/8/8/8/4K2R w K - 0 1"), false),
            None
        );
        assert_eq!(
            edit_cannot_set(&p("r3k3/8/8/8/8/8/8/4K3 b q - 0 1"), false),
            None
        );
        assert!(edit_cannot_set(&p("r3k3/8/8/8/8/8/8/4K3 b - - 0 1"), false).is_some());
        assert!(
            edit_cannot_set(&p("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1"), false).is_some(),
            "a legal en-passant capture"
        );
        assert_eq!(
            edit_cannot_set(&p("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1"), false),
            None
        );
        assert!(edit_cannot_set(&Position::startpos(), true).is_some());
    }

    #[test]
    fn pv_in_either_notation_with_move_numbers() {
        let pos = Position::startpos();
        let m = |s: &str| s.parse::<UciMove>().unwrap();
        assert_eq!(
            pv_moves(&pos, "1. e4 e5 2. Nf3 Nc6?", CastlingMode::Standard),
            [m("e2e4"), m("e7e5"), m("g1f3"), m("b8c6")]
        );
        assert_eq!(
            pv_moves(&pos, "d2d4 d7d5 c2c4 zz e2e4", CastlingMode::Standard),
            [m("d2d4"), m("d7d5"), m("c2c4")]
        );
        assert!(pv_moves(&pos, "(e4 64%, d4 24%)", CastlingMode::Standard).is_empty());
        let black = pos.after(m("e2e4").to_move(&pos).unwrap());
        assert_eq!(
            pv_moves(&black, "1. ... e5 2. Nf3", CastlingMode::Standard),
            [m("e7e5"), m("g1f3")]
        );
    }

    #[test]
    fn result_comments_have_no_braces() {
        assert_eq!(comment_text("a {b} c"), "a (b) c");
    }
}
