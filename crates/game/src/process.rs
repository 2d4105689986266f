//! The program behind an engine player, whichever protocol it speaks.
//!
//! [`EngineProcess`] is what [`crate::player::UciPlayer`] and
//! [`crate::xboard::XboardPlayer`] both keep of their engine: the
//! configuration it was started from, the limits on its answers, its log,
//! the running host and the name it plays under; it starts, names and
//! stops the program the same way for both. The transports are the ways a
//! host reaches its engine besides a process's pipes: every line copied to
//! an [`EngineLog`] ([`logged`]), and the built-in engine's UCI loop on a
//! thread of this process ([`builtin_transport`]).

use crate::player::{EngineConfig, EngineLog, PlayerError};
use rookery_uci::cecp::host::CecpHost;
use rookery_uci::host::{EngineHost, EngineSpec, HostError, Incoming, Timeouts, Transport};
use std::io::{self, BufRead, Read, Write};
use std::process::ExitStatus;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A protocol's host as an [`EngineProcess`] runs it: UCI's or xboard's.
pub(crate) trait Host {
    /// The name the engine gives itself (`id name`, `myname`).
    fn name(&self) -> &str;
    /// Ends the engine: `quit`, a grace period, then a kill.
    fn quit(self);
}

impl Host for EngineHost {
    fn name(&self) -> &str {
        EngineHost::name(self)
    }
    fn quit(self) {
        EngineHost::quit(self);
    }
}

impl Host for CecpHost {
    fn name(&self) -> &str {
        CecpHost::name(self)
    }
    fn quit(self) {
        CecpHost::quit(self);
    }
}

/// What an engine player keeps of its program, whichever the protocol.
pub(crate) struct EngineProcess<H: Host> {
    /// The configuration it is started from (and restarted from).
    pub(crate) config: EngineConfig,
    /// How long its answers may take.
    pub(crate) timeouts: Timeouts,
    /// Where its conversation is written, if anywhere.
    pub(crate) log: Option<EngineLog>,
    /// The running engine: `None` before the start, after a quit, and
    /// between a failed start and the next.
    pub(crate) host: Option<H>,
    /// The name it plays under: the configuration's, else the engine's own
    /// once it has said it.
    pub(crate) name: String,
}

impl<H: Host> EngineProcess<H> {
    /// Not running yet.
    pub(crate) fn new(config: EngineConfig, timeouts: Timeouts, log: Option<EngineLog>) -> Self {
        EngineProcess {
            name: config.label(),
            config,
            timeouts,
            log,
            host: None,
        }
    }

    /// The running engine.
    ///
    /// # Errors
    /// [`PlayerError::Crashed`] when it is not running.
    pub(crate) fn host(&mut self) -> Result<&mut H, PlayerError> {
        self.host
            .as_mut()
            .ok_or_else(|| PlayerError::Crashed(format!("{} is not running", self.name)))
    }

    /// How to start the program: the configuration's command and options,
    /// options the engine lacks skipped unless strict, its standard error
    /// where the configuration sends it.
    pub(crate) fn spec(&self) -> EngineSpec {
        let options: Vec<(String, Option<String>)> = self
            .config
            .options
            .iter()
            .map(|(n, v)| (n.clone(), Some(v.clone())))
            .collect();
        let mut spec = self.config.command.spec(&options);
        spec.skip_unknown_options = !self.config.strict_options;
        spec.stderr_file.clone_from(&self.config.stderr);
        spec
    }

    /// `transport`, every line written to the engine's log when it has one.
    pub(crate) fn logged(&self, transport: Box<dyn Transport>) -> Box<dyn Transport> {
        logged(transport, self.log.as_ref())
    }

    /// [`PlayerError::Start`] for this engine, saying why.
    pub(crate) fn start_error(&self, reason: impl Into<String>) -> PlayerError {
        PlayerError::Start {
            name: self.config.label(),
            reason: reason.into(),
        }
    }

    /// A host's failure to start the engine as [`PlayerError::Start`]: a
    /// program that cannot be run said as the system says it.
    pub(crate) fn start_failed(&self, e: HostError) -> PlayerError {
        self.start_error(match e {
            HostError::Spawn { source, .. } => source.to_string(),
            other => other.to_string(),
        })
    }

    /// Takes `host` as the running engine, named by the name it gives
    /// itself unless the configuration names it.
    pub(crate) fn started(&mut self, host: H) {
        if self.config.name.is_none() {
            self.name = host.name().to_string();
        }
        self.host = Some(host);
    }

    /// Ends the running engine, if one is.
    pub(crate) fn quit(&mut self) {
        if let Some(h) = self.host.take() {
            h.quit();
        }
    }
}

/// A transport that writes every line to an [`EngineLog`].
struct LoggedTransport {
    inner: Box<dyn Transport>,
    log: EngineLog,
}

/// `transport`, writing every line to `log` when given.
pub(crate) fn logged(transport: Box<dyn Transport>, log: Option<&EngineLog>) -> Box<dyn Transport> {
    match log {
        Some(log) => Box::new(LoggedTransport {
            inner: transport,
            log: log.clone(),
        }),
        None => transport,
    }
}

impl Transport for LoggedTransport {
    fn send_line(&mut self, line: &str) -> io::Result<()> {
        self.log.write(" < ", line);
        self.inner.send_line(line)
    }
    fn recv_line(&mut self, timeout: Duration) -> Option<Incoming> {
        let r = self.inner.recv_line(timeout);
        match &r {
            Some(Incoming::Line(l)) => self.log.write(" > ", l),
            Some(Incoming::Closed) => self.log.write(" > ", "(end of output)"),
            None => {}
        }
        r
    }
    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        self.inner.wait_exit(timeout)
    }
    fn kill(&mut self) {
        self.inner.kill();
    }
    fn stderr_tail(&self) -> Vec<String> {
        self.inner.stderr_tail()
    }
}

/// Reads lines sent over a channel, as the engine's UCI loop reads stdin.
struct ChannelReader {
    rx: Receiver<String>,
    buf: Vec<u8>,
    at: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChannelReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at >= self.buf.len() {
            self.buf.clear();
            self.at = 0;
            // A closed channel is the end of input, which ends the loop.
            if let Ok(line) = self.rx.recv() {
                self.buf.extend_from_slice(line.as_bytes());
                self.buf.push(b'\n');
            }
        }
        Ok(&self.buf[self.at..])
    }
    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.buf.len());
    }
}

/// Splits what the engine writes into lines for the host.
struct ChannelWriter {
    tx: Sender<Incoming>,
    partial: Vec<u8>,
}

impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.partial.extend_from_slice(data);
        while let Some(i) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=i).collect();
            let text = String::from_utf8_lossy(&line[..i])
                .trim_end_matches('\r')
                .to_string();
            // The host may be gone (game over); the engine keeps running
            // until its input closes.
            let _ = self.tx.send(Incoming::Line(text));
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The built-in engine's UCI loop on a thread of this process.
struct BuiltinTransport {
    to_engine: Option<Sender<String>>,
    from_engine: Receiver<Incoming>,
    thread: Option<JoinHandle<()>>,
    closed: bool,
}

/// A transport to the built-in engine running its UCI loop on a thread of
/// this process: the same protocol, options and time management a GUI gets.
pub(crate) fn builtin_transport() -> Box<dyn Transport> {
    let (to_engine, rx) = mpsc::channel::<String>();
    let (tx, from_engine) = mpsc::channel::<Incoming>();
    let closer = tx.clone();
    let thread = std::thread::Builder::new()
        .name("rookery-builtin".into())
        .spawn(move || {
            let input = ChannelReader {
                rx,
                buf: Vec::new(),
                at: 0,
            };
            let output = ChannelWriter {
                tx,
                partial: Vec::new(),
            };
            // Errors come only from reading the channel, which cannot fail.
            let _ = rookery_engine::protocol::run(input, output);
            let _ = closer.send(Incoming::Closed);
        });
    match thread {
        Ok(handle) => Box::new(BuiltinTransport {
            to_engine: Some(to_engine),
            from_engine,
            thread: Some(handle),
            closed: false,
        }),
        // Without a thread there is no engine: a transport that is closed.
        Err(_) => {
            let (tx, from_engine) = mpsc::channel();
            let _ = tx.send(Incoming::Closed);
            Box::new(BuiltinTransport {
                to_engine: None,
                from_engine,
                thread: None,
                closed: true,
            })
        }
    }
}

fn success() -> ExitStatus {
    use std::os::unix::process::ExitStatusExt;
    ExitStatus::from_raw(0)
}

impl Transport for BuiltinTransport {
    fn send_line(&mut self, line: &str) -> io::Result<()> {
        match &self.to_engine {
            Some(tx) if !self.closed => tx
                .send(line.to_string())
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "engine thread ended")),
            _ => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "engine thread ended",
            )),
        }
    }
    fn recv_line(&mut self, timeout: Duration) -> Option<Incoming> {
        if self.closed {
            return Some(Incoming::Closed);
        }
        match self.from_engine.recv_timeout(timeout) {
            Ok(Incoming::Closed) | Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                Some(Incoming::Closed)
            }
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) => None,
        }
    }
    fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        while self.thread.as_ref().is_some_and(|t| !t.is_finished()) {
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        Some(success())
    }
    fn kill(&mut self) {
        // A thread cannot be killed: closing its input ends the loop (a
        // search in progress is stopped by the loop at end of input).
        self.to_engine = None;
        self.closed = true;
    }
    fn stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }
}
