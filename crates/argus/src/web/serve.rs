//! The page's HTTP server and what a stranger can cost it.
//!
//! axum's own `serve` takes every connection and gives a silent one all
//! the time it wants, so the page runs its own accept loop over hyper's
//! HTTP/1 connection with these limits ([`WebLimits`]):
//!
//! - **Connections**: at most `max_connections` open, never more than a
//!   quarter of the descriptors the process may open (`RLIMIT_NOFILE`), so
//!   the player port, the journal, the logs and the players' programs keep
//!   the rest; at most `per_address` from one address. A connection over a
//!   limit takes the place of the one idle longest (no request in progress:
//!   a silent stranger, a slow request head, a kept-alive connection between
//!   requests), or, if there is none, is closed at once.
//! - **Time**: a request's head must arrive within `header_timeout`, and a
//!   kept-alive connection waiting for its next request is closed after as
//!   long (hyper's header timer); a response the client stops reading for
//!   `write_stall` is abandoned and the connection closed.
//! - **Bytes**: hyper buffers at most [`BUFFER`] bytes of a response ahead
//!   of the socket; the streams share one rendering of each view and are
//!   at most `max_streams` at once (more are answered 503).

use super::view::Feed;
use axum::body::{Body, Bytes};
use axum::response::Response;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::Sleep;

/// The most connections the page holds by default.
pub const MAX_CONNECTIONS: usize = 512;
/// The page holds at most 1/`DESCRIPTOR_SHARE` of the descriptors the
/// process may open.
const DESCRIPTOR_SHARE: u64 = 4;
/// How long a request's head may take, and a kept-alive connection may
/// wait for the next one.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a response may wait for the client to read before the
/// connection is closed.
pub const WRITE_STALL: Duration = Duration::from_secs(20);
/// The most a connection buffers of a request or of a response (hyper's
/// `max_buf_size`; the least it takes is 8 KiB).
pub const BUFFER: usize = 32 * 1024;
/// When `accept` fails (the process is out of descriptors), the next try
/// waits this long.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);
/// Connections the kernel queues for the page before it accepts them: a
/// burst of new connections is taken in (and sorted out) rather than made
/// to send their first packet again a second later.
const BACKLOG: u32 = 1024;
/// How long a new connection waits for the idle one it displaces to close.
const EVICT_WAIT: Duration = Duration::from_secs(1);

/// What the page allows its clients (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once from one address.
    pub per_address: usize,
    /// Event streams (`/api/stream`, `/games/N/stream`) open at once.
    pub max_streams: usize,
    /// How long a request's head may take to arrive, and a kept-alive
    /// connection may wait for the next request.
    pub header_timeout: Duration,
    /// How long a response may wait for the client to read.
    pub write_stall: Duration,
}

impl WebLimits {
    /// Limits for `max_connections` connections (at least 1): a quarter of
    /// them from one address, half of them streams, and the default times.
    pub fn new(max_connections: usize) -> WebLimits {
        let max_connections = max_connections.max(1);
        WebLimits {
            max_connections,
            per_address: (max_connections / 4).max(1),
            max_streams: (max_connections / 2).max(1),
            header_timeout: HEADER_TIMEOUT,
            write_stall: WRITE_STALL,
        }
    }

    /// The limits for this process: [`MAX_CONNECTIONS`], or a quarter of
    /// its descriptor limit (`RLIMIT_NOFILE`) when that is less (256 under
    /// `ulimit -n 1024`).
    pub fn for_this_process() -> WebLimits {
        let share = descriptor_limit()
            .map(|n| usize::try_from(n / DESCRIPTOR_SHARE).unwrap_or(usize::MAX))
            .unwrap_or(MAX_CONNECTIONS);
        WebLimits::new(MAX_CONNECTIONS.min(share))
    }
}

/// The process's soft limit on open descriptors, if it has one.
#[cfg(unix)]
fn descriptor_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the rlimit it is given, which lives
    // on this stack frame for the whole call.
    let r = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    #[allow(clippy::useless_conversion)] // rlim_t is u64 on most targets, not all
    (r == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then(|| u64::from(limit.rlim_cur))
}

#[cfg(not(unix))]
fn descriptor_limit() -> Option<u64> {
    None
}

/// One open connection.
struct Conn {
    address: IpAddr,
    /// Requests whose answer is not all out yet.
    busy: usize,
    /// When it last became idle (opened, or its last answer ended), on the
    /// table's clock.
    idle_since: u64,
    /// Told to close, to make room.
    leaving: bool,
    evict: Arc<Notify>,
}

/// The connections open.
#[derive(Default)]
struct Table {
    /// Counts connections opened and answers ended: the table's clock.
    next: u64,
    open: BTreeMap<u64, Conn>,
    per_address: HashMap<IpAddr, usize>,
}

/// Whether a new connection may stay.
enum Admit {
    Yes(u64, Arc<Notify>),
    /// An idle connection was told to close: try again once it has.
    Wait,
    No,
}

/// The page's connections and their limits.
pub(super) struct Conns {
    limits: WebLimits,
    table: Mutex<Table>,
    /// A connection closed.
    freed: Notify,
}

impl Conns {
    fn new(limits: WebLimits) -> Conns {
        Conns {
            limits,
            table: Mutex::new(Table::default()),
            freed: Notify::new(),
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        // The table is consistent after every statement: a panic elsewhere
        // leaves nothing half-done.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn try_admit(&self, address: IpAddr) -> Admit {
        let mut t = self.table();
        let from_here = t.per_address.get(&address).copied().unwrap_or(0);
        let address_full = from_here >= self.limits.per_address;
        if !address_full && t.open.len() < self.limits.max_connections {
            t.next += 1;
            let id = t.next;
            let evict = Arc::new(Notify::new());
            t.open.insert(
                id,
                Conn {
                    address,
                    busy: 0,
                    idle_since: id,
                    leaving: false,
                    evict: evict.clone(),
                },
            );
            *t.per_address.entry(address).or_insert(0) += 1;
            return Admit::Yes(id, evict);
        }
        // Room is made in the address's own connections when it is the
        // address that is full, else in any.
        let mine = |c: &Conn| !address_full || c.address == address;
        if t.open.values().any(|c| c.leaving && mine(c)) {
            return Admit::Wait;
        }
        // The one idle longest: not one that has just answered (its last
        // bytes may still be on their way).
        match t
            .open
            .values_mut()
            .filter(|c| c.busy == 0 && !c.leaving && mine(c))
            .min_by_key(|c| c.idle_since)
        {
            Some(victim) => {
                victim.leaving = true;
                victim.evict.notify_one();
                Admit::Wait
            }
            None => Admit::No,
        }
    }

    /// A place for a connection from `address`, or `None`: close it.
    async fn admit(self: &Arc<Self>, address: IpAddr) -> Option<Slot> {
        // At most two displacements (one for the address, one overall).
        for _ in 0..3 {
            let freed = self.freed.notified();
            match self.try_admit(address) {
                Admit::Yes(id, evict) => {
                    return Some(Slot {
                        conns: self.clone(),
                        id,
                        evict,
                    })
                }
                Admit::No => return None,
                Admit::Wait => {
                    let _ = tokio::time::timeout(EVICT_WAIT, freed).await;
                }
            }
        }
        None
    }

    /// How many connections are open.
    #[cfg(test)]
    fn open(&self) -> usize {
        self.table().open.len()
    }
}

/// A connection's place in the table, given back when dropped.
struct Slot {
    conns: Arc<Conns>,
    id: u64,
    evict: Arc<Notify>,
}

impl Slot {
    /// A request arrived: the connection is busy until the returned guard
    /// is dropped (with the answer's body, once it is all out).
    fn busy(self: &Arc<Self>) -> Busy {
        if let Some(c) = self.conns.table().open.get_mut(&self.id) {
            c.busy += 1;
        }
        Busy(self.clone())
    }
}

/// A request in progress on a connection.
struct Busy(Arc<Slot>);

impl Drop for Busy {
    fn drop(&mut self) {
        let mut t = self.0.conns.table();
        t.next += 1;
        let now = t.next;
        if let Some(c) = t.open.get_mut(&self.0.id) {
            c.busy = c.busy.saturating_sub(1);
            c.idle_since = now;
        }
    }
}

/// An answer's body, holding its request's [`Busy`] until it ends.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        {
            let mut t = self.conns.table();
            if let Some(c) = t.open.remove(&self.id) {
                if let Some(n) = t.per_address.get_mut(&c.address) {
                    *n -= 1;
                    if *n == 0 {
                        t.per_address.remove(&c.address);
                    }
                }
            }
        }
        self.conns.freed.notify_waiters();
    }
}

/// A socket that gives up when the client stops reading: a write that
/// cannot go out for the stall time fails (hyper then closes the
/// connection).
struct Guarded {
    io: TcpStream,
    stall: Duration,
    blocked: Option<Pin<Box<Sleep>>>,
}

impl Guarded {
    fn check<T>(
        &mut self,
        cx: &mut Context<'_>,
        r: Poll<std::io::Result<T>>,
    ) -> Poll<std::io::Result<T>> {
        if r.is_ready() {
            self.blocked = None;
            return r;
        }
        let stall = self.stall;
        let timer = self
            .blocked
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(stall)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client stopped reading",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write(cx, buf);
        self.check(cx, r)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.check(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let r = Pin::new(&mut self.io).poll_flush(cx);
        self.check(cx, r)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The page's routes for one connection: the connection is busy from a
/// request's head to the end of its answer.
#[derive(Clone)]
struct Marked {
    slot: Arc<Slot>,
    inner: TowerToHyperService<axum::Router>,
}

type Answer = Pin<Box<dyn Future<Output = Result<Response<Tracked>, Infallible>> + Send>>;

impl hyper::service::Service<hyper::Request<Incoming>> for Marked {
    type Response = Response<Tracked>;
    type Error = Infallible;
    type Future = Answer;

    fn call(&self, req: hyper::Request<Incoming>) -> Answer {
        let busy = self.slot.busy();
        let answer = self.inner.call(req);
        Box::pin(async move {
            let r = answer.await?;
            Ok(r.map(|body| Tracked { body, _busy: busy }))
        })
    }
}

/// The spectator page's HTTP server, bound and ready to run.
pub struct WebServer {
    listener: tokio::net::TcpListener,
    address: SocketAddr,
    limits: WebLimits,
}

/// Why the page cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// The address cannot be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address.
        address: String,
        /// Why.
        source: std::io::Error,
    },
}

impl WebServer {
    /// Binds `address` (`HOST:PORT`; port 0 picks a free port), with the
    /// limits for this process ([`WebLimits::for_this_process`]).
    ///
    /// # Errors
    /// [`WebError::Bind`] if the address cannot be bound.
    pub async fn bind(address: &str) -> Result<WebServer, WebError> {
        let bind_error = |source| WebError::Bind {
            address: address.to_string(),
            source,
        };
        let listener = listen(address).await.map_err(bind_error)?;
        let address = listener.local_addr().map_err(bind_error)?;
        Ok(WebServer {
            listener,
            address,
            limits: WebLimits::for_this_process(),
        })
    }

    /// The same server with other limits.
    pub fn with_limits(self, limits: WebLimits) -> WebServer {
        WebServer { limits, ..self }
    }

    /// The limits it will serve with.
    pub fn limits(&self) -> &WebLimits {
        &self.limits
    }

    /// The address bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// Serves the spectator page from `feed` until the task is dropped.
    ///
    /// # Errors
    /// None so far: see [`WebServer::serve`].
    pub async fn run(self, feed: Feed) -> Result<(), WebError> {
        let routes = super::router(feed, &self.limits);
        self.serve(routes).await
    }

    /// Serves `routes` (the spectator page's, or a match's:
    /// [`super::match_router`]) with the server's limits until the task is
    /// dropped.
    ///
    /// # Errors
    /// None so far: a failed `accept` (the process out of descriptors) is
    /// waited out, a failed connection closes that connection only.
    pub async fn serve(self, routes: axum::Router) -> Result<(), WebError> {
        let conns = Arc::new(Conns::new(self.limits.clone()));
        let routes = TowerToHyperService::new(routes);
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(self.limits.header_timeout)
            .max_buf_size(BUFFER);
        loop {
            let (socket, peer) = match self.listener.accept().await {
                Ok(c) => c,
                Err(e) if is_connection_error(&e) => continue,
                Err(_) => {
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                    continue;
                }
            };
            let Some(slot) = conns.admit(peer.ip()).await else {
                drop(socket);
                continue;
            };
            let slot = Arc::new(slot);
            let evict = slot.evict.clone();
            let service = Marked {
                slot,
                inner: routes.clone(),
            };
            let io = TokioIo::new(Guarded {
                io: socket,
                stall: self.limits.write_stall,
                blocked: None,
            });
            let connection = http.serve_connection(io, service);
            tokio::spawn(async move {
                tokio::select! {
                    _ = connection => {}
                    () = evict.notified() => {}
                }
            });
        }
    }
}

/// A listener on the first address `address` resolves to that binds, with
/// an accept queue of [`BACKLOG`] connections.
async fn listen(address: &str) -> std::io::Result<tokio::net::TcpListener> {
    let mut last = None;
    for a in tokio::net::lookup_host(address).await? {
        let socket = match a {
            SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
            SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
        };
        // As std's TcpListener::bind does on Unix: a restarted referee can
        // bind its port again at once.
        #[cfg(unix)]
        socket.set_reuseaddr(true)?;
        match socket.bind(a).and_then(|()| socket.listen(BACKLOG)) {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the address resolves to nothing",
        )
    }))
}

/// An error of one connection, not of the listener.
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::EventConfig;
    use crate::web::Spectators;
    use std::io::{Read, Write};

    /// How long a test waits for the server to do something at most.
    const BOUND: Duration = Duration::from_secs(10);

    /// A page served with short times, on a runtime of its own.
    fn page() -> (Spectators, SocketAddr, tokio::runtime::Runtime) {
        let text = "[event]\nname = \"Limits\"\ntime_control = \"60+1\"\npgn = \"g.pgn\"\n\
                    log_dir = \"logs\"\n[[player]]\nname = \"A\"\ntoken = \"a\"\n\
                    [[player]]\nname = \"B\"\ntoken = \"b\"\n";
        let cfg =
            EventConfig::from_toml(text, std::path::Path::new("/nonexistent-rookery-dir")).unwrap();
        let schedule =
            rookery_event::schedule::Schedule::new(2, cfg.pairing, cfg.rounds, cfg.games).unwrap();
        let spectators = Spectators::new(&cfg, schedule);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let mut limits = WebLimits::new(16);
        limits.header_timeout = Duration::from_millis(300);
        limits.write_stall = Duration::from_millis(300);
        let server = rt
            .block_on(WebServer::bind("127.0.0.1:0"))
            .unwrap()
            .with_limits(limits);
        let address = server.local_addr();
        rt.spawn(server.run(spectators.feed()));
        (spectators, address, rt)
    }

    fn connect(address: SocketAddr) -> std::net::TcpStream {
        let s = std::net::TcpStream::connect(address).unwrap();
        s.set_read_timeout(Some(BOUND)).unwrap();
        s
    }

    /// Reads until the server closes the connection; panics if it is still
    /// open after [`BOUND`] without a byte.
    fn read_to_close(s: &mut std::net::TcpStream) -> Vec<u8> {
        let mut all = Vec::new();
        let mut buf = [0u8; 65536];
        loop {
            match s.read(&mut buf) {
                Ok(0) => return all,
                Ok(n) => all.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return all,
                Err(e) => panic!("the server kept the connection open: {e}"),
            }
        }
    }

    /// Issue 33: a request whose head never ends (slowloris), a connection
    /// that never sends a byte, and one kept alive after its answer were
    /// held forever.
    #[test]
    fn silent_and_slow_requests_are_closed() {
        let (_spectators, address, _rt) = page();
        let mut slow = connect(address);
        slow.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
        let mut silent = connect(address);
        assert!(read_to_close(&mut slow).is_empty());
        assert!(read_to_close(&mut silent).is_empty());
        let mut kept = connect(address);
        kept.write_all(b"GET /api/event HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let answer = String::from_utf8(read_to_close(&mut kept)).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("\"name\":\"Limits\""), "{answer}");
    }

    /// An event stream is a long answer, not an idle connection: it stays
    /// open past the header timeout while the client reads; one the client
    /// stops reading is dropped.
    #[test]
    fn a_stream_lives_while_it_is_read_and_not_after() {
        let (spectators, address, _rt) = page();
        let mut reader = connect(address);
        reader
            .write_all(b"GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut buf = [0u8; 65536];
        let n = reader.read(&mut buf).unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).contains("200 OK"));
        let mut stalled = connect(address);
        stalled
            .write_all(b"GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        // Views keep coming for several header timeouts: the reader gets
        // them; the stalled client's socket fills and stays full.
        let setup = rookery_game::game::GameSetup {
            event: "Limits".into(),
            site: "here".into(),
            stall_timeout: Duration::from_secs(5),
            ..rookery_game::game::GameSetup::new(0, ["60+1".parse().unwrap(); 2])
        };
        // A game of 200 moves (knights out and back): views of tens of kB.
        let shuffle = [
            ("g1f3", "Nf3"),
            ("g8f6", "Nf6"),
            ("f3g1", "Ng1"),
            ("f6g8", "Ng8"),
        ];
        let played: Vec<rookery_game::record::MoveRecord> = (0..200)
            .map(|i| {
                let (uci, san) = shuffle[i % 4];
                rookery_game::record::MoveRecord {
                    time_ms: 100,
                    clock_ms: Some(60_000),
                    depth: Some(1),
                    ..rookery_game::record::MoveRecord::new(uci, san)
                }
            })
            .collect();
        spectators.started(&setup, "A", "B", &played);
        let start = std::time::Instant::now();
        let mut read = 0usize;
        reader
            .set_read_timeout(Some(Duration::from_millis(1)))
            .unwrap();
        while start.elapsed() < Duration::from_millis(1500) {
            // A move that does not play (the knight is not there): the view
            // is the same, its version new.
            spectators.moved(0, &played[1]);
            match reader.read(&mut buf) {
                Ok(0) => panic!("the reading client's stream was closed"),
                Ok(n) => read += n,
                Err(_) => {}
            }
        }
        assert!(read > 0);
        // No more views: the stalled client, reading now, finds its
        // stream closed (what was sent before, then the end).
        stalled.set_read_timeout(Some(BOUND)).unwrap();
        let got = read_to_close(&mut stalled);
        assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"));
        // The reader's stream is still open.
        reader
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        loop {
            match reader.read(&mut buf) {
                Ok(0) => panic!("the reading client's stream was closed"),
                Ok(_) => {}
                Err(e) => {
                    assert!(
                        matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ),
                        "{e}"
                    );
                    break;
                }
            }
        }
    }

    #[test]
    fn a_quarter_of_the_descriptors_at_most() {
        let l = WebLimits::new(256);
        assert_eq!((l.per_address, l.max_streams), (64, 128));
        assert_eq!(WebLimits::new(0).max_connections, 1);
        let here = WebLimits::for_this_process();
        assert!(here.max_connections <= MAX_CONNECTIONS);
        if let Some(n) = descriptor_limit() {
            assert!(here.max_connections as u64 <= n / 4, "{here:?} of {n}");
        }
    }

    #[test]
    fn the_longest_idle_makes_room_first() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut limits = WebLimits::new(2);
            limits.per_address = 2;
            let conns = Arc::new(Conns::new(limits));
            let a: IpAddr = "10.0.0.1".parse().unwrap();
            let first = Arc::new(conns.admit(a).await.unwrap());
            let second = Arc::new(conns.admit(a).await.unwrap());
            // The first answers a request now: the second, silent since it
            // opened, has been idle longer.
            drop(first.busy());
            let (told_first, told_second) = (first.evict.clone(), second.evict.clone());
            let conns2 = conns.clone();
            let newcomer = tokio::spawn(async move { conns2.admit(a).await.is_some() });
            tokio::time::timeout(BOUND, told_second.notified())
                .await
                .expect("the connection idle longest was not told to close");
            drop(second);
            assert!(newcomer.await.unwrap());
            assert!(
                tokio::time::timeout(Duration::from_millis(10), told_first.notified())
                    .await
                    .is_err(),
                "the connection that has just answered was told to close"
            );
        });
    }

    #[test]
    fn an_idle_stranger_makes_room_and_a_busy_one_does_not() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut limits = WebLimits::new(4);
            limits.per_address = 2;
            let conns = Arc::new(Conns::new(limits));
            let a: IpAddr = "10.0.0.1".parse().unwrap();
            let b: IpAddr = "10.0.0.2".parse().unwrap();
            let c: IpAddr = "10.0.0.3".parse().unwrap();
            // A connection's task: it closes when told to.
            let hold = |s: Slot| {
                let s = Arc::new(s);
                let evict = s.evict.clone();
                let held = s.clone();
                tokio::spawn(async move {
                    evict.notified().await;
                    drop(held);
                });
                s
            };
            let a1 = hold(conns.admit(a).await.unwrap());
            let _a1_busy = a1.busy();
            let a2 = hold(conns.admit(a).await.unwrap());
            drop(a2);
            // a is full: its idle connection makes room, its busy one stays.
            let a3 = hold(conns.admit(a).await.unwrap());
            let a3_busy = a3.busy();
            assert_eq!(conns.open(), 2);
            assert!(conns.admit(a).await.is_none(), "a's two are busy");
            let b1 = hold(conns.admit(b).await.unwrap());
            let b2 = hold(conns.admit(b).await.unwrap());
            let _b1_busy = b1.busy();
            let b2_busy = b2.busy();
            assert!(conns.admit(c).await.is_none(), "all four are busy");
            // An answer all out: its connection is idle again and makes
            // room for a newcomer.
            drop(b2_busy);
            drop(b2);
            let c1 = conns.admit(c).await;
            assert!(c1.is_some());
            assert_eq!(conns.open(), 4);
            drop((a3_busy, a3));
        });
    }
}
