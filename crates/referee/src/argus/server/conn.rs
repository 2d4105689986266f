//! One client's connection: reading records, signing on, faults, and
//! following the journal.

use super::{Notice, Shared, HEARTBEAT};
use crate::argus::log::Direction;
use crate::argus::net::Inbound;
use crate::argus::protocol::{
    ClientRecord, Command, RefereeRecord, Request, JOURNAL_OPCODE, MAX_RECORD,
};
use rookery_core::Position;
use rookery_epd::Operation;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

/// A connection that gathers this many faults is closed.
pub(super) const MAX_FAULTS: u32 = 16;

/// A signed-on client.
pub(super) struct Session {
    pub(super) id: u64,
    pub(super) address: String,
    pub(super) tx: UnboundedSender<Out>,
    pub(super) inbox: Option<std::sync::mpsc::Sender<Inbound>>,
    pub(super) awaiting: Arc<AtomicBool>,
    pub(super) busy: Arc<AtomicBool>,
    pub(super) free_at: Instant,
}

pub(super) enum Out {
    Record(Box<RefereeRecord>),
    /// Bytes as they are (journal lines for a follower), not logged.
    Raw(Arc<[u8]>),
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

/// Reads one line, keeping at most [`MAX_RECORD`] bytes of it.
pub(super) async fn read_line<R: AsyncRead + Unpin>(
    r: &mut BufReader<R>,
    buf: &mut Vec<u8>,
) -> std::io::Result<Line> {
    buf.clear();
    let mut total = 0usize;
    loop {
        let avail = r.fill_buf().await?;
        if avail.is_empty() {
            return Ok(if total == 0 {
                Line::Eof
            } else if total > MAX_RECORD + 1 {
                Line::TooLong(total)
            } else {
                Line::Record(std::mem::take(buf))
            });
        }
        let (chunk, found) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (&avail[..i], Some(i)),
            None => (avail, None),
        };
        total += chunk.len();
        if total <= MAX_RECORD + 1 {
            buf.extend_from_slice(chunk);
        }
        let used = found.map_or(avail.len(), |i| i + 1);
        r.consume(used);
        if found.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
                total -= 1;
            }
            return Ok(if total > MAX_RECORD {
                Line::TooLong(total)
            } else {
                Line::Record(std::mem::take(buf))
            });
        }
    }
}

pub(super) struct Gauge<'a>(&'a Shared);

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
    }
}

pub(super) async fn tcp_connection(shared: Arc<Shared>, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_nodelay(true);
    let (rd, wr) = stream.into_split();
    connection(shared, rd, wr, peer.to_string()).await;
}

/// Streams the journal to a follower from byte `from` (see the module
/// docs) until it goes away; returns why it ended.
pub(super) async fn follow_journal<R: AsyncRead + Unpin>(
    shared: &Shared,
    tx: &UnboundedSender<Out>,
    from: u64,
    reader: &mut BufReader<R>,
    buf: &mut Vec<u8>,
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
        match read_line(reader, buf).await {
            Ok(Line::Eof) => break "the follower left".to_string(),
            Err(e) => break format!("read error: {e}"),
            Ok(_) => {}
        }
    };
    heartbeat.abort();
    Ok(why)
}

/// One client's session over any byte stream: a TCP connection or a
/// character device (`address` names it in the logs).
pub(super) async fn connection<R, W>(shared: Arc<Shared>, rd: R, mut wr: W, address: String)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let open = shared.open.fetch_add(1, Ordering::SeqCst) + 1;
    let _gauge = Gauge(&shared);
    shared.peak.fetch_max(open, Ordering::SeqCst);
    let (tx, mut rx) = unbounded_channel::<Out>();
    // The name once signed on, for the logs.
    let who: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let writer = {
        let shared = shared.clone();
        let who = who.clone();
        let address = address.clone();
        tokio::spawn(async move {
            while let Some(out) = rx.recv().await {
                match out {
                    Out::Record(r) => {
                        let line = r.to_line();
                        let name = who.lock().ok().and_then(|w| w.clone());
                        shared.log.line(
                            name.as_deref(),
                            name.as_deref().unwrap_or(&address),
                            Direction::Sent,
                            line.as_bytes(),
                        );
                        let mut bytes = line.into_bytes();
                        bytes.push(b'\n');
                        if wr.write_all(&bytes).await.is_err() || wr.flush().await.is_err() {
                            break;
                        }
                    }
                    Out::Raw(bytes) => {
                        if wr.write_all(&bytes).await.is_err() || wr.flush().await.is_err() {
                            break;
                        }
                    }
                    Out::Close => break,
                }
            }
            let _ = wr.shutdown().await;
        })
    };
    let fault = |why: &str, pos: Position| {
        let mut r = RefereeRecord::new(Command::Fault, pos);
        r.note = Some(why.to_string());
        let _ = tx.send(Out::Record(Box::new(r)));
    };
    if open > shared.cfg.max_connections {
        fault("too many connections", Position::startpos());
        shared.notice(Notice::Refused(
            address.clone(),
            "too many connections".into(),
        ));
        let _ = tx.send(Out::Close);
        let _ = writer.await;
        return;
    }
    let mut reader = BufReader::with_capacity(512, rd);
    let mut buf = Vec::new();
    let mut faults = 0u32;
    let mut me: Option<(String, u64, Arc<AtomicBool>, Arc<AtomicBool>)> = None;
    let why_closed: String = loop {
        let timeout = match &me {
            None => shared.cfg.handshake_timeout,
            Some((_, _, _, busy)) if busy.load(Ordering::SeqCst) => {
                Duration::from_secs(86_400 * 365)
            }
            Some(_) => shared.cfg.idle_timeout,
        };
        let line = match tokio::time::timeout(timeout, read_line(&mut reader, &mut buf)).await {
            Err(_) => {
                let why = if me.is_none() {
                    "no sign_on in time"
                } else {
                    "idle too long"
                };
                fault(why, Position::startpos());
                break why.to_string();
            }
            Ok(Err(e)) => break format!("read error: {e}"),
            Ok(Ok(Line::Eof)) => break "connection closed".to_string(),
            Ok(Ok(l)) => l,
        };
        let name = me.as_ref().map(|m| m.0.clone());
        let peer_name = name.clone().unwrap_or_else(|| address.clone());
        let rec = match line {
            Line::TooLong(n) => {
                shared.log.line(
                    name.as_deref(),
                    &peer_name,
                    Direction::Received,
                    format!("(a line of {n} bytes)").as_bytes(),
                );
                Err(format!("record of {n} bytes: at most {MAX_RECORD} allowed"))
            }
            Line::Record(bytes) => {
                shared
                    .log
                    .line(name.as_deref(), &peer_name, Direction::Received, &bytes);
                ClientRecord::parse(&bytes).map_err(|e| e.to_string())
            }
            Line::Eof => break "connection closed".to_string(),
        };
        let rec = match rec {
            Ok(r) => r,
            Err(why) => {
                faults += 1;
                fault(&why, Position::startpos());
                shared.notice(Notice::Fault(peer_name, why));
                if faults >= MAX_FAULTS {
                    break "too many faults".to_string();
                }
                if me.is_none() {
                    break "no sign_on".to_string();
                }
                continue;
            }
        };
        let follow = rec.other.iter().find_map(|op| match op {
            Operation::Raw { opcode, operands } if opcode == JOURNAL_OPCODE => Some(
                operands
                    .first()
                    .map_or(Some(0), |o| o.text().parse::<u64>().ok()),
            ),
            _ => None,
        });
        match (&me, rec.request) {
            (None, Request::SignOn) if follow.is_some() => {
                let allowed = shared
                    .cfg
                    .observer_token
                    .as_deref()
                    .is_some_and(|t| rec.token.as_deref() == Some(t));
                if !allowed {
                    let why = "sign_on: following the journal needs the observer token".to_string();
                    fault(&why, Position::startpos());
                    break why;
                }
                let Some(from) = follow.flatten() else {
                    let why = "sign_on: Journal takes a byte offset".to_string();
                    fault(&why, Position::startpos());
                    break why;
                };
                shared.notice(Notice::SignedOn(
                    "a journal follower".into(),
                    address.clone(),
                ));
                match follow_journal(&shared, &tx, from, &mut reader, &mut buf).await {
                    Ok(why) => break why,
                    Err(why) => {
                        fault(&why, Position::startpos());
                        break why;
                    }
                }
            }
            (None, Request::SignOn) => {
                let claimed = rec
                    .sender
                    .as_ref()
                    .map(|(_, n)| n.clone())
                    .unwrap_or_default();
                let player = shared.cfg.players.iter().find(|p| p.name == claimed);
                let ok = player.is_some_and(|p| rec.token.as_deref() == Some(p.token.as_str()));
                if !ok || shared.closing.load(Ordering::SeqCst) {
                    let why = if player.is_none() {
                        format!("sign_on: {claimed:?} is not a registered player")
                    } else {
                        "sign_on: wrong or missing token".to_string()
                    };
                    fault(&why, Position::startpos());
                    break why;
                }
                let id = shared.next_id.fetch_add(1, Ordering::SeqCst) as u64;
                let awaiting = Arc::new(AtomicBool::new(false));
                let busy = Arc::new(AtomicBool::new(false));
                let taken = match shared.sessions.lock() {
                    Ok(mut s) if !s.contains_key(&claimed) => {
                        s.insert(
                            claimed.clone(),
                            Session {
                                id,
                                address: address.clone(),
                                tx: tx.clone(),
                                inbox: None,
                                awaiting: awaiting.clone(),
                                busy: busy.clone(),
                                free_at: Instant::now() + shared.cfg.quiet_period,
                            },
                        );
                        false
                    }
                    _ => true,
                };
                if taken {
                    let why = format!("sign_on: {claimed} is already signed on");
                    fault(&why, Position::startpos());
                    break why;
                }
                if let Ok(mut w) = who.lock() {
                    *w = Some(claimed.clone());
                }
                // §8 step 6: a reset for the new client.
                let mut r = RefereeRecord::new(Command::Reset, Position::startpos());
                r.receiver = Some((address.clone(), claimed.clone()));
                let _ = tx.send(Out::Record(Box::new(r)));
                shared.notice(Notice::SignedOn(claimed.clone(), address.clone()));
                me = Some((claimed, id, awaiting, busy));
                let shared = shared.clone();
                let quiet = shared.cfg.quiet_period;
                tokio::spawn(async move {
                    tokio::time::sleep(quiet).await;
                    shared.wake.notify_one();
                });
            }
            (None, _) => {
                let why = "the first record must be refreq sign_on".to_string();
                fault(&why, Position::startpos());
                break why;
            }
            (Some(_), Request::SignOn) => {
                faults += 1;
                fault("already signed on", rec.position.clone());
            }
            (Some(_), Request::SignOff) => break "signed off".to_string(),
            (Some((n, ..)), Request::Fault) => {
                shared.notice(Notice::Fault(
                    n.clone(),
                    rec.note.clone().unwrap_or_else(|| "client fault".into()),
                ));
            }
            (Some((n, _, awaiting, _)), Request::Reply) => {
                if awaiting.swap(false, Ordering::SeqCst) {
                    let inbox = shared
                        .sessions
                        .lock()
                        .ok()
                        .and_then(|s| s.get(n).and_then(|s| s.inbox.clone()));
                    match inbox {
                        Some(tx) => {
                            let _ = tx.send(Inbound::Reply(Box::new(rec), Instant::now()));
                        }
                        None => fault("reply out of turn: no game", rec.position.clone()),
                    }
                } else {
                    faults += 1;
                    fault(
                        "reply out of turn: no respond is outstanding",
                        rec.position.clone(),
                    );
                    shared.notice(Notice::Fault(n.clone(), "reply out of turn".into()));
                }
                if faults >= MAX_FAULTS {
                    break "too many faults".to_string();
                }
            }
        }
    };
    if let Some((name, id, ..)) = &me {
        let inbox = match shared.sessions.lock() {
            Ok(mut s) if s.get(name).is_some_and(|s| s.id == *id) => {
                s.remove(name).and_then(|s| s.inbox)
            }
            _ => None,
        };
        if let Some(tx) = inbox {
            let _ = tx.send(Inbound::Gone(format!("{name}: {why_closed}")));
        }
        shared.notice(Notice::SignedOff(name.clone(), why_closed.clone()));
    } else if why_closed != "connection closed" {
        shared.notice(Notice::Refused(address.clone(), why_closed.clone()));
    }
    let _ = tx.send(Out::Close);
    drop(tx);
    let _ = writer.await;
}
