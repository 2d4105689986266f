//! One client's connection: admission ([`gate`]), reading records,
//! signing on, faults, following the journal, and the writer, which keeps
//! the quiet period.
//!
//! The quiet period (§8.1.1, §8.1.6) is kept by each connection's writer:
//! once a `reset` or `conclude` is written, every later record to that
//! client, `disconnect` and faults included, waits until
//! `quiet_period` has passed. No caller can forget it.
//!
//! A connection's read side ends on end of stream, a read error, too many
//! faults, the handshake deadline (not signed on within
//! `handshake_timeout`), silence out of play (`idle_timeout` since the last
//! record, while no game of the player runs), or a [`gate::Kill`]: closed
//! for a newer connection at a limit, or replaced by a new sign-on of the
//! same player after [`REPLACE_AFTER_SILENCE`] of silence (its game then
//! ends as on a drop). TCP keepalive (and, on Linux, a limit on data left
//! unacknowledged) ends a connection whose peer is gone.
//!
//! What a client costs: every bad or unexpected record is a fault, and so
//! is each `refreq fault` beyond [`FREE_CLIENT_FAULTS`]; at [`MAX_FAULTS`]
//! the connection is closed. Before sign-on the logs and the console get a
//! ration ([`gate::Gate::may_log_unsigned`]); client text in a notice is
//! cut to [`NOTICE_TEXT`] characters (and escaped where it is printed).

mod gate;

pub(super) use gate::Gate;
use gate::{same_secret, Bucket, Caps, Kill, Ticket, BACKOFF_LAST, EVICTED};

use super::{Notice, Shared, HEARTBEAT};
use crate::log::{Direction, LogHealth};
use crate::net::Inbound;
use crate::protocol::{
    ClientRecord, Command, RefereeRecord, Request, JOURNAL_OPCODE, MAX_RECORD, REFUSED_CREDENTIALS,
};
use rookery_core::Position;
use rookery_epd::Operation;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// A connection that gathers this many faults is closed.
pub(super) const MAX_FAULTS: u32 = 16;

/// `refreq fault` records a signed-on client may send before each further
/// one counts as a fault.
pub(super) const FREE_CLIENT_FAULTS: u32 = 3;

/// A signed-on player whose connection has been silent this long is
/// replaced by a new sign-on with its token (a frozen or half-open
/// connection); before that the new sign-on is refused.
pub(super) const REPLACE_AFTER_SILENCE: Duration = Duration::from_secs(2);

/// The end of the event waits this long beyond the quiet period for the
/// players' writers to send `disconnect`.
pub(super) const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// A write to a client that takes longer ends its connection.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// How often a connection whose player is in a game looks whether it still
/// is (the idle limit applies out of play only).
const RECHECK: Duration = Duration::from_secs(1);

/// TCP keepalive: the first probe after this much silence...
const KEEPALIVE_IDLE: Duration = Duration::from_secs(30);

/// ...then one every...
#[cfg(target_os = "linux")]
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(10);

/// ...and the connection ends after this many unanswered.
#[cfg(target_os = "linux")]
const KEEPALIVE_PROBES: u32 = 3;

/// Data left unacknowledged this long ends the connection (Linux's
/// `TCP_USER_TIMEOUT`).
#[cfg(target_os = "linux")]
const UNACKED_LIMIT: Duration = Duration::from_secs(60);

/// A record of a connection not signed on that is longer than this is
/// logged as its length and its start only.
const UNSIGNED_LOG_BYTES: usize = 512;

/// Client text in a notice (a note, a reason) is cut at this many
/// characters.
pub(super) const NOTICE_TEXT: usize = 200;

/// Compared with a token given for a name that is not a player's, so that
/// the answer takes the same time as for a player's name.
const NOT_A_PLAYER: &[u8] = b"not a player: no token is this one";

/// A signed-on client.
pub(super) struct Session {
    pub(super) id: u64,
    pub(super) address: String,
    pub(super) tx: UnboundedSender<Out>,
    pub(super) inbox: Option<std::sync::mpsc::Sender<Inbound>>,
    pub(super) awaiting: Arc<AtomicBool>,
    pub(super) busy: Arc<AtomicBool>,
    pub(super) free_at: Instant,
    /// Ends the connection (a new sign-on replaces it).
    pub(super) kill: Arc<Kill>,
    /// When a record was last read from the client.
    pub(super) heard: Arc<Mutex<Instant>>,
}

pub(super) enum Out {
    Record(Box<RefereeRecord>),
    /// Bytes as they are (journal lines for a follower), not logged.
    Raw(Arc<[u8]>),
    /// Kept by the writer until it ends: the end of the event waits for it.
    Hold(gate::WriterHold),
    Close,
}

/// Opens a character device for a client, non-blocking and watched by the
/// runtime like a socket: one handle to read, one to write.
#[cfg(unix)]
pub(super) fn open_serial(
    dev: &std::path::Path,
) -> std::io::Result<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    let mut o = tokio::net::unix::pipe::OpenOptions::new();
    // Not a FIFO: a serial line or a pseudo-terminal.
    o.unchecked(true);
    Ok((o.open_receiver(dev)?, o.open_sender(dev)?))
}

pub(super) enum Line {
    Record(Vec<u8>),
    TooLong(usize),
    Eof,
}

/// Reads lines, keeping at most [`MAX_RECORD`] bytes of each. Cancel-safe:
/// a line read in part is kept for the next call.
pub(super) struct LineReader<R> {
    r: BufReader<R>,
    buf: Vec<u8>,
    total: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(r: R) -> LineReader<R> {
        LineReader {
            r: BufReader::with_capacity(512, r),
            buf: Vec::new(),
            total: 0,
        }
    }

    /// The next line (without its end).
    async fn next(&mut self) -> std::io::Result<Line> {
        loop {
            let avail = self.r.fill_buf().await?;
            if avail.is_empty() {
                let total = std::mem::take(&mut self.total);
                return Ok(if total == 0 {
                    Line::Eof
                } else if total > MAX_RECORD + 1 {
                    Line::TooLong(total)
                } else {
                    Line::Record(std::mem::take(&mut self.buf))
                });
            }
            let (chunk, found) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (&avail[..i], Some(i)),
                None => (avail, None),
            };
            self.total += chunk.len();
            if self.total <= MAX_RECORD + 1 {
                self.buf.extend_from_slice(chunk);
            }
            let used = found.map_or(avail.len(), |i| i + 1);
            self.r.consume(used);
            if found.is_some() {
                let mut total = std::mem::take(&mut self.total);
                if self.buf.last() == Some(&b'\r') {
                    self.buf.pop();
                    total -= 1;
                }
                let line = std::mem::take(&mut self.buf);
                return Ok(if total > MAX_RECORD {
                    Line::TooLong(total)
                } else {
                    Line::Record(line)
                });
            }
        }
    }
}

pub(super) struct Gauge<'a>(&'a Shared);

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `text` cut to [`NOTICE_TEXT`] characters.
fn clip(text: &str) -> String {
    match text.char_indices().nth(NOTICE_TEXT) {
        Some((i, _)) => format!("{}... ({} bytes)", &text[..i], text.len()),
        None => text.to_string(),
    }
}

/// What the logs report, as the supervisor's notices.
pub(super) fn log_health_notices(
    notices: UnboundedSender<Notice>,
) -> impl Fn(LogHealth) + Send + 'static {
    move |h| {
        let why = match h {
            LogHealth::Failed(e) => format!("cannot write the logs: {e}"),
            LogHealth::Recovered { lines_lost } => {
                format!("the logs are written again; {lines_lost} lines were lost")
            }
        };
        let _ = notices.send(Notice::Fault("event log".into(), why));
    }
}

/// Accepts TCP connections: each is admitted by the gate (or refused at
/// once, cheaply) before anything is spawned for it.
pub(super) async fn listen(shared: Arc<Shared>, listener: TcpListener) {
    let caps = Caps {
        total: shared.cfg.max_connections,
        pending: shared.cfg.max_pending,
        per_address: shared.cfg.max_pending_per_address,
    };
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(_) => {
                // Most likely out of descriptors: the oldest connection not
                // signed on makes room.
                shared.gate.evict_oldest();
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        match shared.gate.admit(peer.ip(), caps) {
            Ok(ticket) => {
                tokio::spawn(tcp_connection(shared.clone(), stream, peer, ticket));
            }
            Err(why) => refuse(&shared, &stream, &peer.to_string(), why),
        }
    }
}

/// Refuses a connection: a fault if the socket takes it at once, then
/// closed (when `stream` is dropped).
fn refuse(shared: &Shared, stream: &TcpStream, address: &str, why: &str) {
    let mut r = RefereeRecord::new(Command::Fault, Position::startpos());
    r.note = Some(why.to_string());
    let line = r.to_line();
    let _ = stream.try_write(format!("{line}\n").as_bytes());
    if let Some(untold) = shared.gate.may_log_unsigned() {
        tell_untold(shared, untold);
        shared
            .log
            .line(None, address, Direction::Sent, line.as_bytes());
        shared.notice(Notice::Refused(address.to_string(), why.to_string()));
    }
}

/// Says how many records and refusals of connections not signed on were
/// neither logged nor shown.
fn tell_untold(shared: &Shared, n: u64) {
    if n > 0 {
        let text = format!(
            "{n} records and refusals of connections not signed on were not logged (too many)"
        );
        shared.log.note("-", &text);
        shared.notice(Notice::Refused("connections not signed on".into(), text));
    }
}

/// Keepalive and (on Linux) a limit on unacknowledged data: a connection
/// whose peer is gone ends, even in a game where the client is silent.
fn keep_alive(stream: &TcpStream) {
    let sock = socket2::SockRef::from(stream);
    let ka = socket2::TcpKeepalive::new().with_time(KEEPALIVE_IDLE);
    #[cfg(target_os = "linux")]
    let ka = ka
        .with_interval(KEEPALIVE_INTERVAL)
        .with_retries(KEEPALIVE_PROBES);
    let _ = sock.set_tcp_keepalive(&ka);
    #[cfg(target_os = "linux")]
    let _ = sock.set_tcp_user_timeout(Some(UNACKED_LIMIT));
}

async fn tcp_connection(shared: Arc<Shared>, stream: TcpStream, peer: SocketAddr, ticket: Ticket) {
    let _ = stream.set_nodelay(true);
    keep_alive(&stream);
    let (rd, wr) = stream.into_split();
    session(shared, rd, wr, peer.to_string(), ticket).await;
}

/// Streams the journal to a follower from byte `from` (see the module
/// docs) until it goes away; returns why it ended.
async fn follow_journal<R: AsyncRead + Unpin>(
    shared: &Shared,
    tx: &UnboundedSender<Out>,
    from: u64,
    reader: &mut LineReader<R>,
) -> Result<String, String> {
    // The journal so far and the subscription at once: no entry is missed
    // or sent twice.
    let journal = shared
        .journal
        .as_ref()
        .ok_or_else(|| "this event keeps no journal".to_string())?;
    let sink = tx.clone();
    let bytes = journal.follow(
        from,
        Box::new(move |line: &Arc<[u8]>| sink.send(Out::Raw(line.clone())).is_ok()),
    )?;
    if !bytes.is_empty() {
        let _ = tx.send(Out::Raw(bytes.into()));
    }
    let heartbeat = {
        let tx = tx.clone();
        tokio::spawn(async move {
            let beat: Arc<[u8]> = Arc::from(&b"\n"[..]);
            loop {
                tokio::time::sleep(HEARTBEAT).await;
                if tx.send(Out::Raw(beat.clone())).is_err() {
                    break;
                }
            }
        })
    };
    let why = loop {
        match reader.next().await {
            Ok(Line::Eof) => break "the follower left".to_string(),
            Err(e) => break format!("read error: {e}"),
            Ok(_) => {}
        }
    };
    heartbeat.abort();
    Ok(why)
}

/// Writes what the connection is sent, in order: a record waits out the
/// quiet period after a `reset` or `conclude` written before it. Records to
/// a connection not signed on are logged only if `logging` is set (its
/// ration, see [`Peer::may_log`]).
async fn write_loop<W: AsyncWrite + Unpin>(
    shared: Arc<Shared>,
    mut rx: UnboundedReceiver<Out>,
    mut wr: W,
    who: Arc<Mutex<Option<String>>>,
    address: String,
    logging: Arc<AtomicBool>,
    kill: Arc<Kill>,
) {
    let quiet = shared.cfg.quiet_period;
    let mut quiet_until: Option<tokio::time::Instant> = None;
    let mut hold = None;
    while let Some(out) = rx.recv().await {
        let (bytes, quiets): (Vec<u8>, bool) = match out {
            Out::Record(r) => {
                if let Some(t) = quiet_until.take() {
                    tokio::time::sleep_until(t).await;
                }
                let line = r.to_line();
                let name = who.lock().ok().and_then(|w| w.clone());
                if name.is_some() || logging.load(Ordering::SeqCst) {
                    shared.log.line(
                        name.as_deref(),
                        name.as_deref().unwrap_or(&address),
                        Direction::Sent,
                        line.as_bytes(),
                    );
                }
                let mut bytes = line.into_bytes();
                bytes.push(b'\n');
                (
                    bytes,
                    matches!(r.command, Command::Reset | Command::Conclude),
                )
            }
            Out::Raw(bytes) => (bytes.to_vec(), false),
            Out::Hold(h) => {
                hold = Some(h);
                continue;
            }
            Out::Close => break,
        };
        let wrote = tokio::time::timeout(WRITE_TIMEOUT, async {
            wr.write_all(&bytes).await?;
            wr.flush().await
        })
        .await;
        if !matches!(wrote, Ok(Ok(()))) {
            kill.kill("the client does not take what it is sent");
            break;
        }
        if quiets {
            quiet_until = Some(tokio::time::Instant::now() + quiet);
        }
    }
    let _ = tokio::time::timeout(WRITE_TIMEOUT, wr.shutdown()).await;
    drop(hold);
}

/// One connection as the reader sees it: where records go, and what it
/// may log.
struct Peer {
    shared: Arc<Shared>,
    tx: UnboundedSender<Out>,
    address: String,
    /// Set once the connection may log (signed on, or its ration granted):
    /// read by the writer.
    logging: Arc<AtomicBool>,
    /// The ration of a connection not signed on, once asked for.
    ration: Option<bool>,
}

impl Peer {
    fn fault(&self, why: &str, pos: Position) {
        let mut r = RefereeRecord::new(Command::Fault, pos);
        r.note = Some(why.to_string());
        let _ = self.tx.send(Out::Record(Box::new(r)));
    }

    /// Whether this connection, not signed on, may log and be shown
    /// (asked once, then kept).
    fn may_log(&mut self) -> bool {
        if let Some(r) = self.ration {
            return r;
        }
        let r = match self.shared.gate.may_log_unsigned() {
            Some(untold) => {
                tell_untold(&self.shared, untold);
                true
            }
            None => false,
        };
        self.logging.store(r, Ordering::SeqCst);
        self.ration = Some(r);
        r
    }

    /// Logs the record a connection sent before it signed on, within its
    /// ration (a long one as its length and start).
    fn log_unsigned(&mut self, first: &[u8]) {
        if !self.may_log() {
            return;
        }
        if first.len() > UNSIGNED_LOG_BYTES {
            let start = String::from_utf8_lossy(&first[..120]);
            let text = format!(
                "(a record of {} bytes before sign-on, not logged whole) {start}",
                first.len()
            );
            self.shared
                .log
                .line(None, &self.address, Direction::Received, text.as_bytes());
        } else {
            self.shared
                .log
                .line(None, &self.address, Direction::Received, first);
        }
    }

    /// A notice about this connection, not signed on, within its ration.
    fn notice_unsigned(&mut self, n: Notice) {
        if self.may_log() {
            self.shared.notice(n);
        }
    }
}

/// The player a connection signed on as.
struct Me {
    name: String,
    id: u64,
    awaiting: Arc<AtomicBool>,
    busy: Arc<AtomicBool>,
    heard: Arc<Mutex<Instant>>,
}

/// One client's session over any byte stream that is not counted at the
/// gate: a character device (`address` names it in the logs).
pub(super) async fn connection<R, W>(shared: Arc<Shared>, rd: R, wr: W, address: String)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let ticket = Ticket::unlisted(&shared.gate);
    session(shared, rd, wr, address, ticket).await;
}

/// The longest a sign-on waits for its turn behind failed ones of the
/// same address and name (see [`gate::Gate::turn`]); refused after it.
const TURN_WAIT: Duration = Duration::from_secs(30);

/// The player's link is replaced by a new sign-on after this silence.
fn stale(s: &Session) -> bool {
    s.heard
        .lock()
        .map_or(true, |h| h.elapsed() >= REPLACE_AFTER_SILENCE)
}

/// What a sign-on with the observer token and `Journal` asks.
fn follow_request(rec: &ClientRecord) -> Option<Option<u64>> {
    rec.other.iter().find_map(|op| match op {
        Operation::Raw { opcode, operands } if opcode == JOURNAL_OPCODE => Some(
            operands
                .first()
                .map_or(Some(0), |o| o.text().parse::<u64>().ok()),
        ),
        _ => None,
    })
}

/// One client's session: sign-on, then its records until it ends.
async fn session<R, W>(shared: Arc<Shared>, rd: R, wr: W, address: String, mut ticket: Ticket)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let open = shared.open.fetch_add(1, Ordering::SeqCst) + 1;
    let _gauge = Gauge(&shared);
    shared.peak.fetch_max(open, Ordering::SeqCst);
    let (tx, rx) = unbounded_channel::<Out>();
    // The name once signed on, for the logs.
    let who: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let logging = Arc::new(AtomicBool::new(false));
    let kill = ticket.kill().clone();
    let writer = tokio::spawn(write_loop(
        shared.clone(),
        rx,
        wr,
        who.clone(),
        address.clone(),
        logging.clone(),
        kill.clone(),
    ));
    let mut peer = Peer {
        shared: shared.clone(),
        tx: tx.clone(),
        address: address.clone(),
        logging,
        ration: None,
    };
    let key = ticket.key();
    let cfg = &shared.cfg;
    let handshake_deadline = tokio::time::Instant::now() + cfg.handshake_timeout;
    // When the connection must have said something: none while its player
    // is in a game (the game's clock rules then).
    let deadline = |me: &Option<Me>| match me {
        None => Some(handshake_deadline),
        Some(m) if m.busy.load(Ordering::SeqCst) => None,
        Some(m) => Some(
            tokio::time::Instant::from_std(m.heard.lock().map_or_else(|_| Instant::now(), |h| *h))
                + cfg.idle_timeout,
        ),
    };
    let mut reader = LineReader::new(rd);
    let mut faults = 0u32;
    let mut client_faults = 0u32;
    let mut me: Option<Me> = None;
    let why_closed: String = loop {
        let wake = deadline(&me).unwrap_or_else(|| tokio::time::Instant::now() + RECHECK);
        let line = tokio::select! {
            why = kill.killed() => break why,
            r = reader.next() => r,
            () = tokio::time::sleep_until(wake) => {
                if deadline(&me).is_some_and(|d| d <= tokio::time::Instant::now()) {
                    let why = if me.is_none() {
                        peer.may_log();
                        "no sign_on in time"
                    } else {
                        "idle too long"
                    };
                    peer.fault(why, Position::startpos());
                    break why.to_string();
                }
                continue;
            }
        };
        let line = match line {
            Err(e) => break format!("read error: {e}"),
            Ok(Line::Eof) => break "connection closed".to_string(),
            Ok(l) => l,
        };
        if let Some(m) = &me {
            if let Ok(mut h) = m.heard.lock() {
                *h = Instant::now();
            }
        }
        let name = me.as_ref().map(|m| m.name.clone());
        let peer_name = name.clone().unwrap_or_else(|| address.clone());
        // What was read, as logged: the record before sign-on is logged
        // once the referee knows who sent it.
        let (text, rec) = match line {
            Line::TooLong(n) => (
                format!("(a line of {n} bytes)").into_bytes(),
                Err(format!("record of {n} bytes: at most {MAX_RECORD} allowed")),
            ),
            Line::Record(bytes) => {
                let rec = ClientRecord::parse(&bytes).map_err(|e| e.to_string());
                (bytes, rec)
            }
            Line::Eof => break "connection closed".to_string(),
        };
        if name.is_some() {
            shared
                .log
                .line(name.as_deref(), &peer_name, Direction::Received, &text);
        }
        let rec = match rec {
            Ok(r) => r,
            Err(why) => {
                faults += 1;
                if me.is_none() {
                    peer.log_unsigned(&text);
                    peer.fault(&why, Position::startpos());
                    break format!("no sign_on: {}", clip(&why));
                }
                peer.fault(&why, Position::startpos());
                shared.notice(Notice::Fault(peer_name, clip(&why)));
                if faults >= MAX_FAULTS {
                    break "too many faults".to_string();
                }
                continue;
            }
        };
        match (&me, rec.request) {
            (None, Request::SignOn) => {
                let follow = follow_request(&rec);
                let claimed = rec
                    .sender
                    .as_ref()
                    .map(|(_, n)| n.clone())
                    .unwrap_or_default();
                let player = cfg.players.iter().find(|p| p.name == claimed);
                let bucket = match (&follow, player) {
                    (Some(_), _) => Bucket::Observer,
                    (None, Some(p)) => Bucket::Player(p.name.clone()),
                    (None, None) => Bucket::Unknown,
                };
                // Checked in turn with the other sign-ons of this address
                // and name, after the delay of their last failure.
                let turn = tokio::select! {
                    why = kill.killed() => break why,
                    t = tokio::time::timeout(TURN_WAIT, shared.gate.turn(key, bucket.clone())) => t,
                };
                let Ok(turn) = turn else {
                    let why = format!(
                        "sign_on: too many failed sign-ons for this name from this address: try again in {} s",
                        BACKOFF_LAST.as_secs()
                    );
                    peer.log_unsigned(&text);
                    peer.fault(&why, Position::startpos());
                    break why;
                };
                if let Some(follow) = follow {
                    let given = rec.token.as_deref().unwrap_or("").as_bytes();
                    let allowed = cfg
                        .observer_token
                        .as_deref()
                        .is_some_and(|t| same_secret(given, t.as_bytes()));
                    if !allowed {
                        peer.log_unsigned(&text);
                        let delay = shared.gate.failed(key, bucket);
                        tokio::select! {
                            () = tokio::time::sleep(delay) => {}
                            why = kill.killed() => break why,
                        }
                        let why =
                            "sign_on: following the journal needs the observer token".to_string();
                        peer.fault(&why, Position::startpos());
                        break why;
                    }
                    drop(turn);
                    shared.log.line(None, &address, Direction::Received, &text);
                    let Some(from) = follow else {
                        let why = "sign_on: Journal takes a byte offset".to_string();
                        peer.logging.store(true, Ordering::SeqCst);
                        peer.fault(&why, Position::startpos());
                        break why;
                    };
                    if !ticket.signed_on() {
                        break EVICTED.to_string();
                    }
                    shared.notice(Notice::SignedOn(
                        "a journal follower".into(),
                        address.clone(),
                    ));
                    tokio::select! {
                        why = kill.killed() => break why,
                        r = follow_journal(&shared, &tx, from, &mut reader) => match r {
                            Ok(why) => break why,
                            Err(why) => {
                                peer.fault(&why, Position::startpos());
                                break why;
                            }
                        }
                    }
                }
                let given = rec.token.as_deref().unwrap_or("").as_bytes();
                // Both compared whether or not the name is a player's.
                let right = same_secret(given, player.map_or(NOT_A_PLAYER, |p| p.token.as_bytes()))
                    & player.is_some();
                if !right {
                    peer.log_unsigned(&text);
                    let delay = shared.gate.failed(key, bucket);
                    tokio::select! {
                        () = tokio::time::sleep(delay) => {}
                        why = kill.killed() => break why,
                    }
                    peer.fault(REFUSED_CREDENTIALS, Position::startpos());
                    break REFUSED_CREDENTIALS.to_string();
                }
                drop(turn);
                // The player's own: logged whole, in its file too.
                shared
                    .log
                    .line(Some(&claimed), &claimed, Direction::Received, &text);
                peer.logging.store(true, Ordering::SeqCst);
                if shared.closing.load(Ordering::SeqCst) {
                    let why = "sign_on: the event is over".to_string();
                    peer.fault(&why, Position::startpos());
                    break why;
                }
                if !ticket.signed_on() {
                    break EVICTED.to_string();
                }
                let id = shared.next_id.fetch_add(1, Ordering::SeqCst) as u64;
                let awaiting = Arc::new(AtomicBool::new(false));
                let busy = Arc::new(AtomicBool::new(false));
                let heard = Arc::new(Mutex::new(Instant::now()));
                let session = Session {
                    id,
                    address: address.clone(),
                    tx: tx.clone(),
                    inbox: None,
                    awaiting: awaiting.clone(),
                    busy: busy.clone(),
                    free_at: Instant::now() + cfg.quiet_period,
                    kill: kill.clone(),
                    heard: heard.clone(),
                };
                // A session silent long enough is replaced: its client is
                // frozen or gone, and this is its restart.
                let placed = match shared.sessions.lock() {
                    Ok(mut s) => match s.get(&claimed) {
                        Some(old) if !stale(old) => None,
                        _ => Some(s.insert(claimed.clone(), session)),
                    },
                    Err(_) => None,
                };
                let Some(replaced) = placed else {
                    let why = format!("sign_on: {claimed} is already signed on");
                    peer.fault(&why, Position::startpos());
                    break why;
                };
                if let Some(old) = replaced {
                    let why = format!("replaced by a new sign-on from {address}");
                    if let Some(inbox) = &old.inbox {
                        let _ = inbox.send(Inbound::Gone(format!("{claimed}: {why}")));
                    }
                    old.kill.kill(&why);
                }
                if let Ok(mut w) = who.lock() {
                    *w = Some(claimed.clone());
                }
                let _ = tx.send(Out::Hold(shared.gate.hold()));
                // §8 step 6: a reset for the new client.
                let mut r = RefereeRecord::new(Command::Reset, Position::startpos());
                r.receiver = Some((address.clone(), claimed.clone()));
                let _ = tx.send(Out::Record(Box::new(r)));
                shared.notice(Notice::SignedOn(claimed.clone(), address.clone()));
                me = Some(Me {
                    name: claimed,
                    id,
                    awaiting,
                    busy,
                    heard,
                });
                let shared = shared.clone();
                let quiet = shared.cfg.quiet_period;
                tokio::spawn(async move {
                    tokio::time::sleep(quiet).await;
                    shared.wake.notify_one();
                });
            }
            (None, _) => {
                let why = "the first record must be refreq sign_on".to_string();
                peer.log_unsigned(&text);
                peer.fault(&why, Position::startpos());
                break why;
            }
            (Some(_), Request::SignOn) => {
                faults += 1;
                peer.fault("already signed on", rec.position.clone());
            }
            (Some(_), Request::SignOff) => break "signed off".to_string(),
            (Some(m), Request::Fault) => {
                client_faults += 1;
                if client_faults > FREE_CLIENT_FAULTS {
                    faults += 1;
                }
                shared.notice(Notice::Fault(
                    m.name.clone(),
                    clip(rec.note.as_deref().unwrap_or("client fault")),
                ));
            }
            (Some(m), Request::Reply) => {
                let in_turn = m.awaiting.swap(false, Ordering::SeqCst);
                let inbox = if in_turn {
                    shared
                        .sessions
                        .lock()
                        .ok()
                        .and_then(|s| s.get(&m.name).and_then(|s| s.inbox.clone()))
                } else {
                    None
                };
                match inbox {
                    Some(tx) => {
                        let _ = tx.send(Inbound::Reply(Box::new(rec), Instant::now()));
                    }
                    None => {
                        faults += 1;
                        let why = if in_turn {
                            "reply out of turn: no game"
                        } else {
                            "reply out of turn: no respond is outstanding"
                        };
                        peer.fault(why, rec.position.clone());
                        shared.notice(Notice::Fault(m.name.clone(), why.into()));
                    }
                }
            }
        }
        if faults >= MAX_FAULTS {
            break "too many faults".to_string();
        }
    };
    if let Some(m) = &me {
        let inbox = match shared.sessions.lock() {
            Ok(mut s) if s.get(&m.name).is_some_and(|s| s.id == m.id) => {
                s.remove(&m.name).and_then(|s| s.inbox)
            }
            _ => None,
        };
        if let Some(tx) = inbox {
            let _ = tx.send(Inbound::Gone(format!("{}: {why_closed}", m.name)));
        }
        shared.notice(Notice::SignedOff(m.name.clone(), why_closed.clone()));
    } else if why_closed != "connection closed" {
        peer.notice_unsigned(Notice::Refused(address.clone(), why_closed.clone()));
    }
    drop(peer);
    if kill.is_killed() {
        // Closed at once: nothing more is owed to this client.
        writer.abort();
    } else {
        let _ = tx.send(Out::Close);
        drop(tx);
        let _ = writer.await;
    }
}
