//! The client adapter: any UCI engine (or the built-in one) as a client of
//! an Argus referee (`rookery referee connect`).
//!
//! It signs on (`tcsi`, `Token`), keeps the game history from `reset`,
//! `execute` and `respond` records as §8.1 says (a position, halfmove clock
//! or fullmove number that differs from its own clears the history), turns
//! `respond` plus `cc` into the engine's `position` and `go wtime btime`
//! (`cc` is the time each side has *used*; the time left comes from it and
//! the `TimeControl` tag of `inform`, see [`Clock::replay`]), answers with
//! `refreq reply` and the move as `sm` in SAN (with the engine's score,
//! depth and nodes as `ce`, `acd`, `acn`; a move the game no longer wants
//! when the engine has it, because the game ended or another began
//! meanwhile, is dropped, never sent into the next game), resigns and offers or
//! accepts draws by the engine's score ([`Judgement`]), signs off when it
//! stops of its own accord, and reconnects with back-off when the link
//! drops. The engine is driven through [`EnginePlayer`] (UCI, or xboard by
//! its `proto=` word), the same machinery `rookery match` uses.
//!
//! Referees: a list of [`Target`]s (TCP addresses, or a serial device).
//! When the link drops the client signs on again, first where it was, then
//! at the next referee of the list (a standby that took over), round the
//! list with back-off ([`BACKOFF_FIRST`] doubling to [`BACKOFF_LAST`]) and
//! at most [`ClientConfig::max_attempts`] failed attempts in a row. A
//! referee that resumes a game sends `reset`, `inform`, the moves so far as
//! `execute` records and then `respond`: the history is rebuilt from them
//! and the engine asked from the restored position. An engine that crashes
//! during a move is restarted and asked again once.

use super::protocol::{
    ClientRecord, Command, ProtocolError, RefereeRecord, Request, SuppliedMove, MAX_RECORD,
    REDACTED_TOKEN, REFUSED_CREDENTIALS,
};
use rookery_core::{Color, Move, Position};
use rookery_game::clock::{Clock, TimeControl};
use rookery_game::engine::EnginePlayer;
use rookery_game::player::{
    EngineConfig, MoveReply, MoveRequest, Offer, Player, PlayerError, ThinkLimits,
};
use rookery_uci::host::Timeouts;
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When the client resigns, offers and accepts draws, by its engine's score
/// (centipawns from its own side).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// Resign after `resign_moves` own moves scored at or below −this.
    pub resign_cp: Option<i32>,
    /// See `resign_cp`.
    pub resign_moves: u32,
    /// Offer a draw after `draw_moves` own moves scored within ±this, from
    /// move `draw_from` on.
    pub draw_cp: Option<i32>,
    /// See `draw_cp`.
    pub draw_moves: u32,
    /// See `draw_cp`.
    pub draw_from: u32,
    /// Accept a draw offer when the score is at or below this.
    pub accept_cp: Option<i32>,
}

impl Default for Judgement {
    /// Resign at −10 pawns held for 3 moves; offer a draw within 0.10 pawn
    /// for 8 moves from move 40; accept an offer when not better than +0.10.
    fn default() -> Judgement {
        Judgement {
            resign_cp: Some(1000),
            resign_moves: 3,
            draw_cp: Some(10),
            draw_moves: 8,
            draw_from: 40,
            accept_cp: Some(10),
        }
    }
}

/// A referee to sign on at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Over TCP, `HOST:PORT`.
    Tcp(String),
    /// Over a character device (a serial line, a pseudo-terminal).
    Serial(PathBuf),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Tcp(a) => f.write_str(a),
            Target::Serial(d) => write!(f, "serial:{}", d.display()),
        }
    }
}

/// The first wait before connecting again.
pub const BACKOFF_FIRST: Duration = Duration::from_millis(250);

/// The longest wait before connecting again.
pub const BACKOFF_LAST: Duration = Duration::from_secs(5);

/// A byte stream to a referee.
trait Conn: Read + Write + Send {
    /// This end's address, for `tcsi`.
    fn me(&self) -> String;

    /// Makes reads return at once (`WouldBlock`) when nothing has arrived.
    fn set_nonblocking(&self, on: bool) -> io::Result<()>;
}

impl Conn for TcpStream {
    fn me(&self) -> String {
        self.local_addr()
            .map_or_else(|_| "unknown".to_string(), |a| a.to_string())
    }

    fn set_nonblocking(&self, on: bool) -> io::Result<()> {
        TcpStream::set_nonblocking(self, on)
    }
}

/// A character device opened twice: reads never hold up writes.
struct Serial {
    read: std::fs::File,
    write: std::fs::File,
    label: String,
}

impl Read for Serial {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read.read(buf)
    }
}

impl Write for Serial {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.write.flush()
    }
}

impl Conn for Serial {
    fn me(&self) -> String {
        self.label.clone()
    }

    #[cfg(unix)]
    fn set_nonblocking(&self, on: bool) -> io::Result<()> {
        use std::os::unix::io::AsRawFd;
        let fd = self.read.as_raw_fd();
        // SAFETY: fcntl(2) on a descriptor this value owns; no memory is
        // passed.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        let flags = if on {
            flags | libc::O_NONBLOCK
        } else {
            flags & !libc::O_NONBLOCK
        };
        // SAFETY: as above.
        if unsafe { libc::fcntl(fd, libc::F_SETFL, flags) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    #[cfg(not(unix))]
    fn set_nonblocking(&self, _on: bool) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

fn open(t: &Target) -> io::Result<Box<dyn Conn>> {
    match t {
        Target::Tcp(a) => {
            let s = TcpStream::connect(a)?;
            let _ = s.set_nodelay(true);
            Ok(Box::new(s))
        }
        Target::Serial(d) => Ok(Box::new(Serial {
            read: std::fs::File::options().read(true).open(d)?,
            write: std::fs::File::options().write(true).open(d)?,
            label: t.to_string(),
        })),
    }
}

/// How the client runs.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The referees, in the order to try them (at least one).
    pub targets: Vec<Target>,
    /// The engine.
    pub engine: EngineConfig,
    /// The registered name.
    pub name: String,
    /// The secret.
    pub token: String,
    /// Resigning and draws.
    pub judgement: Judgement,
    /// Sign off after this many games (none: play until `disconnect`).
    pub max_games: Option<usize>,
    /// Reconnect when the link drops (with back-off from [`BACKOFF_FIRST`]
    /// to [`BACKOFF_LAST`]).
    pub reconnect: bool,
    /// Give up after this many failed connection attempts in a row (over
    /// all targets).
    pub max_attempts: u32,
}

/// What the client tells its caller.
#[derive(Clone, Debug)]
pub enum ClientEvent {
    /// Signed on: the referee accepted the sign-on (its first record that
    /// is not a fault), at this target.
    SignedOn(String),
    /// A record sent (`true`) or received (a `Token`'s secret shown as
    /// [`REDACTED_TOKEN`]).
    Record(bool, String),
    /// The referee reported a fault, or sent something unreadable.
    Fault(String),
    /// A game ended: result and reason.
    GameOver(String, String),
    /// The engine's move was not sent: the game it was asked for ended (or
    /// the referee asked again) while it thought ([`LATE_MOVE`]).
    MoveDropped(String),
    /// The link dropped; retrying after the delay.
    Retrying(String, Duration),
}

/// Why the client stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The engine failed.
    #[error("engine: {0}")]
    Engine(#[from] PlayerError),
    /// The referee cannot be reached.
    #[error("cannot reach the referee at {address}: {reason}")]
    Connect {
        /// Where.
        address: String,
        /// Why.
        reason: String,
    },
    /// The referee refused the client's name and token
    /// ([`REFUSED_CREDENTIALS`]) before any game. Other refusals (a player
    /// still signed on, too many connections or failures) are passing: the
    /// client signs on again later.
    #[error("refused by the referee: {0}")]
    Refused(String),
}

/// The resolution of `cc` (whole seconds).
const CC_RESOLUTION: Duration = Duration::from_secs(1);

/// The least time left the engine is told of.
const MIN_THINK: Duration = Duration::from_millis(20);

/// How a session ended.
enum End {
    /// The referee sent `disconnect`, or the client is done.
    Done,
    /// The link dropped.
    Dropped(String),
}

/// Reads lines of at most [`MAX_RECORD`] bytes from a stream.
struct Lines {
    buf: Vec<u8>,
    start: usize,
}

impl Lines {
    fn new() -> Lines {
        Lines {
            buf: Vec::with_capacity(1024),
            start: 0,
        }
    }

    /// The next line (without its end), `Ok(None)` at end of stream; a line
    /// too long is returned cut, flagged.
    fn next<R: Read + ?Sized>(&mut self, s: &mut R) -> io::Result<Option<(Vec<u8>, bool)>> {
        loop {
            if let Some(i) = self.buf[self.start..].iter().position(|&b| b == b'\n') {
                let end = self.start + i;
                let mut line = self.buf[self.start..end].to_vec();
                self.start = end + 1;
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                let long = line.len() > MAX_RECORD;
                return Ok(Some((line, long)));
            }
            if self.start > 0 {
                self.buf.drain(..self.start);
                self.start = 0;
            }
            if self.buf.len() > 2 * MAX_RECORD {
                // No end of line in sight: give what there is as too long.
                let line = std::mem::take(&mut self.buf);
                return Ok(Some((line, true)));
            }
            let mut chunk = [0u8; 4096];
            let n = s.read(&mut chunk)?;
            if n == 0 {
                return Ok(None);
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// The game as the client knows it (§8.1).
struct History {
    start: Position,
    moves: Vec<Move>,
    current: Position,
}

impl History {
    fn new(pos: Position) -> History {
        History {
            start: pos.clone(),
            moves: Vec::new(),
            current: pos,
        }
    }

    /// Takes the referee's position: if it is not the current one (the
    /// four fields, `hmvc` and `fmvn`), the history starts afresh from it.
    fn sync(&mut self, pos: &Position) {
        let fen = |p: &Position| rookery_core::Fen::from_position(p).to_string();
        if fen(pos) != fen(&self.current) {
            *self = History::new(pos.clone());
        }
    }

    fn play(&mut self, m: Move) -> bool {
        if self.current.legal_moves().contains(m) {
            self.current.play_unchecked(m);
            self.moves.push(m);
            true
        } else {
            false
        }
    }
}

fn cp_of(s: Option<rookery_core::Score>) -> Option<i64> {
    s.map(rookery_core::Score::as_cp)
}

/// The client: one engine, one referee, reconnecting as needed.
pub struct Client {
    cfg: ClientConfig,
    engine: EnginePlayer,
    history: Option<History>,
    tc: Option<TimeControl>,
    scores: Vec<i64>,
    games: usize,
}

impl Client {
    /// Starts the engine.
    ///
    /// # Errors
    /// [`ClientError::Engine`] if it cannot be started.
    pub fn new(cfg: ClientConfig) -> Result<Client, ClientError> {
        let engine = cfg.engine.start(Timeouts::default(), None)?;
        Ok(Client {
            cfg,
            engine,
            history: None,
            tc: None,
            scores: Vec::new(),
            games: 0,
        })
    }

    /// Plays until the referee disconnects, the game limit is reached or
    /// `stop` is set; reconnects with back-off when the link drops.
    ///
    /// # Errors
    /// [`ClientError`]: the engine failed, the referee refused the client or
    /// cannot be reached.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        on_event: &mut dyn FnMut(ClientEvent),
    ) -> Result<(), ClientError> {
        let mut backoff = BACKOFF_FIRST;
        let mut attempts = 0;
        let n = self.cfg.targets.len().max(1);
        // The target tried next; a failed attempt moves on to the next one.
        let mut at = 0usize;
        loop {
            let Some(target) = self.cfg.targets.get(at % n).cloned() else {
                return Err(ClientError::Connect {
                    address: String::new(),
                    reason: "no referee address".into(),
                });
            };
            let stream = match open(&target) {
                Ok(s) => s,
                Err(e) => {
                    attempts += 1;
                    if !self.cfg.reconnect || attempts >= self.cfg.max_attempts {
                        return Err(ClientError::Connect {
                            address: target.to_string(),
                            reason: e.to_string(),
                        });
                    }
                    at += 1;
                    if at % n == 0 {
                        // Round the whole list: wait before the next round.
                        on_event(ClientEvent::Retrying(format!("{target}: {e}"), backoff));
                        std::thread::sleep(backoff);
                        backoff = (backoff * 2).min(BACKOFF_LAST);
                    } else {
                        on_event(ClientEvent::Retrying(
                            format!("{target}: {e}"),
                            Duration::ZERO,
                        ));
                    }
                    continue;
                }
            };
            attempts = 0;
            backoff = BACKOFF_FIRST;
            match self.session(stream, &target, stop, on_event)? {
                End::Done => {
                    self.engine.quit();
                    return Ok(());
                }
                End::Dropped(why) if self.cfg.reconnect && !stop.load(Ordering::SeqCst) => {
                    on_event(ClientEvent::Retrying(why, backoff));
                    std::thread::sleep(backoff);
                }
                End::Dropped(why) => {
                    return Err(ClientError::Connect {
                        address: target.to_string(),
                        reason: why,
                    })
                }
            }
        }
    }

    fn send(
        s: &mut dyn Conn,
        r: &ClientRecord,
        on_event: &mut dyn FnMut(ClientEvent),
    ) -> io::Result<()> {
        let line = r.to_line();
        let shown = if r.token.is_some() {
            let mut r = r.clone();
            r.token = Some(REDACTED_TOKEN.into());
            r.to_line()
        } else {
            line.clone()
        };
        on_event(ClientEvent::Record(true, shown));
        s.write_all(format!("{line}\n").as_bytes())
    }

    fn session(
        &mut self,
        mut s: Box<dyn Conn>,
        target: &Target,
        stop: &AtomicBool,
        on_event: &mut dyn FnMut(ClientEvent),
    ) -> Result<End, ClientError> {
        let s = &mut *s;
        let mut on = ClientRecord::new(Request::SignOn, Position::startpos());
        on.sender = Some((s.me(), self.cfg.name.clone()));
        on.token = Some(self.cfg.token.clone());
        if let Err(e) = Client::send(s, &on, on_event) {
            return Ok(End::Dropped(e.to_string()));
        }
        let mut lines = Lines::new();
        // Lines read while the engine thought, not handled yet.
        let mut backlog: VecDeque<(Vec<u8>, bool)> = VecDeque::new();
        let mut played_any = false;
        // Signed on once the referee answers with anything but a fault
        // (`reset`, §8 step 6), not when the request is sent.
        let mut accepted = false;
        loop {
            if stop.load(Ordering::SeqCst) || self.cfg.max_games.is_some_and(|n| self.games >= n) {
                let off = ClientRecord::new(
                    Request::SignOff,
                    self.history
                        .as_ref()
                        .map_or_else(Position::startpos, |h| h.current.clone()),
                );
                let _ = Client::send(s, &off, on_event);
                return Ok(End::Done);
            }
            let next = match backlog.pop_front() {
                Some(l) => Ok(Some(l)),
                None => lines.next(s),
            };
            let (line, long) = match next {
                Ok(Some(l)) => l,
                Ok(None) => return Ok(End::Dropped("the referee closed the connection".into())),
                Err(e) => return Ok(End::Dropped(e.to_string())),
            };
            on_event(ClientEvent::Record(
                false,
                String::from_utf8_lossy(&line).into_owned(),
            ));
            if long {
                on_event(ClientEvent::Fault(
                    ProtocolError::TooLong(line.len()).to_string(),
                ));
                continue;
            }
            let rec = match RefereeRecord::parse(&line) {
                Ok(r) => r,
                Err(e) => {
                    on_event(ClientEvent::Fault(e.to_string()));
                    continue;
                }
            };
            if !accepted && rec.command != Command::Fault {
                accepted = true;
                on_event(ClientEvent::SignedOn(target.to_string()));
            }
            if let Some(tc) = rec.tag("TimeControl").and_then(|t| t.parse().ok()) {
                self.tc = Some(tc);
            }
            match rec.command {
                Command::Reset => {
                    self.history = None;
                    self.scores.clear();
                    self.engine.new_game(false)?;
                }
                Command::Inform => {
                    if let Some(result) = rec.tag("Result").filter(|r| *r != "*") {
                        on_event(ClientEvent::GameOver(
                            result.to_string(),
                            rec.tag("Termination").unwrap_or("").to_string(),
                        ));
                    }
                }
                Command::Execute => self.take(&rec),
                Command::Respond => {
                    self.take(&rec);
                    let reply = self.think(&rec)?;
                    played_any = true;
                    // What came while the engine thought: a game that
                    // ended (or a newer request) does not want this move,
                    // and the next game must not get it.
                    arrived(s, &mut lines, &mut backlog);
                    if backlog.iter().any(|(l, long)| !*long && supersedes(l)) {
                        on_event(ClientEvent::MoveDropped(LATE_MOVE.into()));
                        continue;
                    }
                    if let Err(e) = Client::send(s, &reply, on_event) {
                        return Ok(End::Dropped(e.to_string()));
                    }
                }
                Command::Conclude => {
                    self.history = None;
                    self.games += 1;
                }
                Command::Disconnect => return Ok(End::Done),
                Command::Fault => {
                    let why = rec.note.clone().unwrap_or_else(|| "fault".into());
                    on_event(ClientEvent::Fault(why.clone()));
                    if !played_any
                        && self.games == 0
                        && self.history.is_none()
                        && why == REFUSED_CREDENTIALS
                    {
                        return Err(ClientError::Refused(why));
                    }
                }
            }
        }
    }

    /// Sets the position of a record and plays its supplied move (§8.1).
    fn take(&mut self, rec: &RefereeRecord) {
        let h = self
            .history
            .get_or_insert_with(|| History::new(rec.position.clone()));
        h.sync(&rec.position);
        if let Some(m) = rec.sm {
            if !h.play(m) {
                *h = History::new(rec.position.clone());
                h.play(m);
            }
        }
    }

    fn limits(&self, rec: &RefereeRecord, pos: &Position) -> ThinkLimits {
        let Some(tc) = self.tc else {
            return ThinkLimits::default();
        };
        let used = rec.cc.unwrap_or([Duration::ZERO; 2]);
        // Moves made by each side, from the fullmove number (games start at
        // move 1 with White to move).
        let f = pos.fullmoves().max(1);
        let made = match pos.turn() {
            Color::White => [f - 1, f - 1],
            Color::Black => [f, f - 1],
        };
        let w = Clock::replay(&tc, used[0], made[0]);
        let b = Clock::replay(&tc, used[1], made[1]);
        let mine = if pos.turn() == Color::White { &w } else { &b };
        // `cc` counts whole seconds (§6.6): up to a second more may be used
        // than it says, so that second is not counted on.
        let left = |c: &Clock| {
            c.remaining()
                .map(|r| r.saturating_sub(CC_RESOLUTION).max(MIN_THINK))
        };
        ThinkLimits {
            wtime: left(&w),
            btime: left(&b),
            winc: w.increment(),
            binc: b.increment(),
            movestogo: mine.moves_to_go(),
            movetime: tc.movetime,
            nodes: tc.nodes,
            depth: tc.depth,
        }
    }

    fn think(&mut self, rec: &RefereeRecord) -> Result<ClientRecord, ClientError> {
        let Some(h) = self.history.as_ref() else {
            return Ok(ClientRecord::new(Request::Fault, rec.position.clone()));
        };
        let pos = h.current.clone();
        let limits = self.limits(rec, &pos);
        let mine = limits
            .movetime
            .or(if pos.turn() == Color::White {
                limits.wtime
            } else {
                limits.btime
            })
            .unwrap_or(Duration::from_secs(3600));
        let request = MoveRequest {
            start: &h.start,
            moves: &h.moves,
            limits,
            deadline: mine + Duration::from_secs(5),
            used: rec.cc.unwrap_or_default(),
            draw_offered: rec.draw_offer,
        };
        let started = Instant::now();
        // An engine that crashes is restarted and asked again, once, from
        // the whole game (a restarted engine gets the history like a
        // resumed game); any other failure is reported to the referee.
        let reply: MoveReply = match self.engine.request_move(&request).or_else(|e| match e {
            PlayerError::Crashed(_) => {
                self.engine.restart()?;
                self.engine.new_game(false)?;
                self.engine.request_move(&request)
            }
            e => Err(e),
        }) {
            Ok(r) => r,
            Err(e) => {
                let _ = self.engine.restart();
                let mut f = ClientRecord::new(Request::Fault, pos);
                f.note = Some(format!("engine failed: {e} after {:?}", started.elapsed()));
                return Ok(f);
            }
        };
        let mut out = ClientRecord::new(Request::Reply, pos.clone());
        out.set_search(reply.score, reply.depth, reply.nodes);
        let cp = cp_of(reply.score);
        if let Some(c) = cp {
            self.scores.push(c);
        }
        let j = self.cfg.judgement;
        let last = |n: u32| -> Option<&[i64]> {
            let n = n as usize;
            (n > 0 && self.scores.len() >= n).then(|| &self.scores[self.scores.len() - n..])
        };
        if rec.draw_offer
            && j.accept_cp
                .is_some_and(|a| cp.is_some_and(|c| c <= i64::from(a)))
        {
            out.offer = Some(Offer::Accept);
            return Ok(out);
        }
        if let (Some(r), Some(s)) = (j.resign_cp, last(j.resign_moves)) {
            if s.iter().all(|&c| c <= -i64::from(r)) {
                out.offer = Some(Offer::Resign);
                return Ok(out);
            }
        }
        match reply.mv.to_move(&pos) {
            Ok(m) => {
                out.sm = Some(SuppliedMove::Legal(m));
                if let (Some(d), Some(s)) = (j.draw_cp, last(j.draw_moves)) {
                    if pos.fullmoves() >= j.draw_from && s.iter().all(|&c| c.abs() <= i64::from(d))
                    {
                        out.offer = Some(Offer::Draw);
                    }
                }
                if rec.draw_offer && out.offer.is_none() {
                    out.offer = Some(Offer::Reject);
                }
                if let Some(h) = self.history.as_mut() {
                    h.play(m);
                }
            }
            Err(_) => out.sm = Some(SuppliedMove::Illegal(reply.mv.to_string())),
        }
        Ok(out)
    }
}

/// What the client reports when it drops a move the referee no longer
/// wants.
pub const LATE_MOVE: &str = "the game moved on while the engine thought: its move is not sent";

/// Reads what has arrived without waiting for more: the lines go to
/// `backlog`. Nothing is read where the stream cannot be polled.
fn arrived(s: &mut dyn Conn, lines: &mut Lines, backlog: &mut VecDeque<(Vec<u8>, bool)>) {
    if s.set_nonblocking(true).is_err() {
        return;
    }
    // Up to the end of what arrived (`WouldBlock`), the end of the stream
    // (read again, blocking, by the caller) or an error (likewise).
    while let Ok(Some(l)) = lines.next(s) {
        backlog.push_back(l);
    }
    let _ = s.set_nonblocking(false);
}

/// Whether a record read after a `respond` makes the reply to it stale: the
/// game ended or another began, or the referee asks again.
fn supersedes(line: &[u8]) -> bool {
    RefereeRecord::parse(line).is_ok_and(|r| match r.command {
        Command::Conclude | Command::Reset | Command::Disconnect | Command::Respond => true,
        Command::Inform => r.tag("Result").is_some_and(|t| t != "*"),
        Command::Execute | Command::Fault => false,
    })
}

/// A stop flag for [`Client::run`].
pub fn stop_flag() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::San;

    #[test]
    fn history_follows_the_referee_and_restarts_on_a_different_position() {
        let mut h = History::new(Position::startpos());
        let e4 = "e4".parse::<San>().unwrap().to_move(&h.current).unwrap();
        h.sync(&Position::startpos());
        assert!(h.play(e4));
        let after = h.current.clone();
        h.sync(&after);
        assert_eq!(h.moves.len(), 1);
        // Same placement, another fullmove number: a new game history.
        let mut other = after.clone();
        other.set_clocks(0, 7);
        h.sync(&other);
        assert!(h.moves.is_empty());
        assert_eq!(h.start.fullmoves(), 7);
    }

    #[test]
    fn it_fails_over_to_the_next_referee_and_rebuilds_a_replayed_game() {
        use std::io::{BufRead, BufReader};
        // Nothing listens here.
        let dead = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .to_string();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let referee = std::thread::spawn(move || {
            let (s, _) = listener.accept().unwrap();
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            let send = |rec: RefereeRecord| {
                (&s).write_all(format!("{}\n", rec.to_line()).as_bytes())
                    .unwrap();
            };
            let mut pos = Position::startpos();
            send(RefereeRecord::new(Command::Reset, pos.clone()));
            let mut inform = RefereeRecord::new(Command::Inform, pos.clone());
            inform.tags = vec![("TimeControl".into(), "st=0.01".into())];
            send(inform);
            // A resumed game: e4 e5 as execute records, Nf3 on the respond.
            for san in ["e4", "e5"] {
                let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
                let mut e = RefereeRecord::new(Command::Execute, pos.clone());
                e.sm = Some(m);
                send(e);
                pos.play_unchecked(m);
            }
            let nf3 = "Nf3".parse::<San>().unwrap().to_move(&pos).unwrap();
            let mut respond = RefereeRecord::new(Command::Respond, pos.clone());
            respond.sm = Some(nf3);
            respond.cc = Some([Duration::from_secs(3), Duration::from_secs(4)]);
            send(respond);
            pos.play_unchecked(nf3);
            line.clear();
            r.read_line(&mut line).unwrap();
            send(RefereeRecord::new(Command::Disconnect, pos.clone()));
            (
                ClientRecord::parse(line.trim_end().as_bytes()).unwrap(),
                pos,
            )
        });
        let mut client = reconnecting_client(vec![Target::Tcp(dead), Target::Tcp(address)]);
        let mut failed_over = 0;
        client
            .run(&AtomicBool::new(false), &mut |e| {
                if let ClientEvent::Retrying(_, after) = e {
                    assert!(after.is_zero(), "the next referee is tried at once");
                    failed_over += 1;
                }
            })
            .unwrap();
        assert_eq!(failed_over, 1);
        let (reply, pos) = referee.join().unwrap();
        assert_eq!(reply.request, Request::Reply);
        assert_eq!(reply.position, pos, "the reply is on the restored position");
        assert!(matches!(reply.sm, Some(SuppliedMove::Legal(_))));
        let h = client.history.as_ref().unwrap();
        assert_eq!(h.start, Position::startpos(), "the whole game was rebuilt");
        assert_eq!(h.moves.len(), 4);
    }

    /// Alpha on the built-in engine, reconnecting up to three times.
    fn reconnecting_client(targets: Vec<Target>) -> Client {
        Client::new(ClientConfig {
            targets,
            engine: EngineConfig::builtin(),
            name: "Alpha".into(),
            token: "secret".into(),
            judgement: Judgement::default(),
            max_games: None,
            reconnect: true,
            max_attempts: 3,
        })
        .unwrap()
    }

    /// A refusal that passes (the player is still signed on from a frozen
    /// connection) is retried; a refusal of the credentials is final. What
    /// the client reports never shows its token.
    #[test]
    fn it_signs_on_again_after_a_passing_refusal_and_stops_at_wrong_credentials() {
        use std::io::{BufRead, BufReader};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let referee = std::thread::spawn(move || {
            let mut sign_ons = 0;
            for why in ["sign_on: Alpha is already signed on", REFUSED_CREDENTIALS] {
                let (s, _) = listener.accept().unwrap();
                let mut line = String::new();
                BufReader::new(s.try_clone().unwrap())
                    .read_line(&mut line)
                    .unwrap();
                assert!(line.contains("refreq sign_on"), "{line}");
                sign_ons += 1;
                let mut f = RefereeRecord::new(Command::Fault, Position::startpos());
                f.note = Some(why.into());
                (&s).write_all(format!("{}\n", f.to_line()).as_bytes())
                    .unwrap();
            }
            sign_ons
        });
        let mut client = reconnecting_client(vec![Target::Tcp(address)]);
        let mut shown = Vec::new();
        let mut signed_on = 0;
        let r = client.run(&AtomicBool::new(false), &mut |e| match e {
            ClientEvent::Record(true, line) => shown.push(line),
            ClientEvent::SignedOn(_) => signed_on += 1,
            _ => {}
        });
        assert_eq!(signed_on, 0, "refused both times: never signed on");
        assert!(
            matches!(&r, Err(ClientError::Refused(why)) if why == REFUSED_CREDENTIALS),
            "{r:?}"
        );
        assert_eq!(referee.join().unwrap(), 2);
        assert_eq!(shown.len(), 2);
        for line in shown {
            assert!(!line.contains("secret"), "{line}");
            assert!(
                line.contains(&format!("Token \"{REDACTED_TOKEN}\"")),
                "{line}"
            );
        }
    }

    /// A game that ends while the engine thinks (its time ran out, its
    /// opponent left) does not get the move, and neither does the next
    /// game: the reply sent is the next game's. "Signed on" is told once
    /// the referee has answered the sign-on, not before.
    #[test]
    fn a_move_for_a_game_that_ended_is_not_sent_into_the_next() {
        use std::io::{BufRead, BufReader};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let start = Position::startpos();
        let mut second = start.clone();
        second.play_unchecked("e4".parse::<San>().unwrap().to_move(&start).unwrap());
        let game2 = second.clone();
        let referee = std::thread::spawn(move || {
            let (s, _) = listener.accept().unwrap();
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            let mut inform = RefereeRecord::new(Command::Inform, start.clone());
            inform.tags = vec![("TimeControl".into(), "st=0.01".into())];
            let mut inform2 = inform.clone();
            inform2.position = second.clone();
            // Game 1 asks for a move and ends before it can come (one
            // write: it is all there when the engine has thought), game 2
            // begins and asks for its own.
            let mut text = String::new();
            for rec in [
                RefereeRecord::new(Command::Reset, start.clone()),
                inform,
                RefereeRecord::new(Command::Respond, start.clone()),
                RefereeRecord::new(Command::Conclude, start.clone()),
                RefereeRecord::new(Command::Reset, second.clone()),
                inform2,
                RefereeRecord::new(Command::Respond, second.clone()),
            ] {
                text.push_str(&format!("{}\n", rec.to_line()));
            }
            (&s).write_all(text.as_bytes()).unwrap();
            line.clear();
            r.read_line(&mut line).unwrap();
            let d = RefereeRecord::new(Command::Disconnect, second.clone());
            (&s).write_all(format!("{}\n", d.to_line()).as_bytes())
                .unwrap();
            ClientRecord::parse(line.trim_end().as_bytes()).unwrap()
        });
        let mut client = reconnecting_client(vec![Target::Tcp(address)]);
        let mut events = Vec::new();
        client
            .run(&AtomicBool::new(false), &mut |e| events.push(e))
            .unwrap();
        let reply = referee.join().unwrap();
        assert_eq!(reply.request, Request::Reply);
        assert_eq!(reply.position, game2, "the first reply is game 2's");
        assert!(
            events
                .iter()
                .any(|e| matches!(e, ClientEvent::MoveDropped(f) if f == LATE_MOVE)),
            "{events:?}"
        );
        let signed = events
            .iter()
            .position(|e| matches!(e, ClientEvent::SignedOn(_)))
            .expect("signed on");
        let reset = events
            .iter()
            .position(|e| matches!(e, ClientEvent::Record(false, l) if l.contains("refcom reset")))
            .expect("a reset");
        assert!(
            signed > reset,
            "signed on after the referee's reset: {events:?}"
        );
    }

    #[test]
    fn it_reconnects_after_a_drop_and_stops_at_disconnect() {
        use std::io::{BufRead, BufReader};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let referee = std::thread::spawn(move || {
            let mut sign_ons = Vec::new();
            for round in 0..2 {
                let (s, _) = listener.accept().unwrap();
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                r.read_line(&mut line).unwrap();
                sign_ons.push(ClientRecord::parse(line.trim_end().as_bytes()).unwrap());
                if round == 1 {
                    let d = RefereeRecord::new(Command::Disconnect, Position::startpos());
                    (&s).write_all(format!("{}\n", d.to_line()).as_bytes())
                        .unwrap();
                }
                // Dropping the stream closes the link.
            }
            sign_ons
        });
        let mut client = reconnecting_client(vec![Target::Tcp(address)]);
        let mut retries = 0;
        client
            .run(&AtomicBool::new(false), &mut |e| {
                if let ClientEvent::Retrying(..) = e {
                    retries += 1;
                }
            })
            .unwrap();
        let sign_ons = referee.join().unwrap();
        assert_eq!(retries, 1);
        assert_eq!(sign_ons.len(), 2);
        for r in sign_ons {
            assert_eq!(r.request, Request::SignOn);
            assert_eq!(r.token.as_deref(), Some("secret"));
            assert_eq!(r.sender.map(|s| s.1).as_deref(), Some("Alpha"));
        }
    }
}
