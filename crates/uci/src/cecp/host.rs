//! The host side of CECP: starting an xboard engine, agreeing on features,
//! and exchanging typed lines with it under timeouts.
//!
//! A [`CecpHost`] talks through the crate's [`Transport`] seam (a
//! [`ProcessTransport`] for a real program), with the same [`Timeouts`] and
//! [`HostError`]s as the UCI host. It knows the protocol only: which side an
//! engine plays, clocks and moves are its caller's business.

use super::command::{Command, EditCommand};
use super::feature::{Feature, Features};
use super::message::Message;
use crate::host::{
    crashed, EngineSpec, HostError, Incoming, ProcessTransport, Timeouts, Transport,
};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How long an engine has to send its features before it is taken for a
/// protocol version 1 engine (CECP §9: two seconds after `protover 2`;
/// here after its first line, as GNU Chess 6 on a busy machine may take
/// longer to say anything at all), unless it said `done=0` (then it has
/// [`Timeouts::handshake`] to say `done=1`).
pub const FEATURE_WAIT: Duration = Duration::from_secs(2);

/// How long an engine may be silent during the feature wait before it is
/// sent an empty line. GNU Chess 6 prints its features only as input
/// arrives (its first ones not at all until then), and the engines tried
/// (Fairy-Max, Phalanx, GNU Chess) ignore empty lines.
pub const NUDGE_AFTER: Duration = Duration::from_millis(250);

/// How many lines that are no CECP message are kept for diagnostics.
const NOTES: usize = 100;

/// A running CECP (xboard / WinBoard protocol 2) engine.
pub struct CecpHost {
    spec: EngineSpec,
    timeouts: Timeouts,
    transport: Box<dyn Transport>,
    features: Features,
    /// 2 once the engine has sent a feature, 1 before.
    version: u32,
    /// The program's file name.
    name: String,
    next_ping: u64,
    notes: VecDeque<String>,
    /// Options of the spec the engine does not have, skipped.
    skipped: Vec<String>,
}

impl CecpHost {
    /// Starts the program of `spec` and agrees on features with it
    /// ([`CecpHost::with_transport`]).
    ///
    /// # Errors
    /// [`HostError::Spawn`], and those of [`CecpHost::with_transport`].
    pub fn start(spec: EngineSpec, timeouts: Timeouts) -> Result<CecpHost, HostError> {
        let transport = Box::new(ProcessTransport::spawn(&spec)?);
        CecpHost::with_transport(spec, timeouts, transport)
    }

    /// Agrees on features with an engine on `transport`: sends `xboard` and
    /// `protover 2`, answers every feature `accepted` or `rejected`, and
    /// waits for `done=1` (or [`FEATURE_WAIT`] from its first line when it
    /// sent no `done=0`: a version 1 engine sends no features at all; an
    /// engine that says nothing is waited for up to [`Timeouts::handshake`]),
    /// sending an empty line whenever it is silent for [`NUDGE_AFTER`]. Then
    /// sets the options of `spec` ([`CecpHost::set_option`]; one the engine
    /// does not have is skipped when [`EngineSpec::skip_unknown_options`]
    /// says so, and listed by [`CecpHost::skipped_options`]).
    ///
    /// # Errors
    /// [`HostError::Timeout`] (no `done=1` after `done=0`),
    /// [`HostError::Crashed`], and the option errors of
    /// [`CecpHost::set_option`].
    pub fn with_transport(
        spec: EngineSpec,
        timeouts: Timeouts,
        transport: Box<dyn Transport>,
    ) -> Result<CecpHost, HostError> {
        let name = spec.path.file_name().map_or_else(
            || "engine".to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let mut host = CecpHost {
            spec,
            timeouts,
            transport,
            features: Features::default(),
            version: 1,
            name,
            next_ping: 1,
            notes: VecDeque::new(),
            skipped: Vec::new(),
        };
        host.handshake()?;
        Ok(host)
    }

    fn handshake(&mut self) -> Result<(), HostError> {
        self.send(&Command::Xboard)?;
        self.send(&Command::Protover(2))?;
        // Silent, the engine may still be starting: the protocol's wait
        // counts from its first line (as long as a handshake may take).
        let mut deadline = Instant::now() + self.timeouts.handshake.max(FEATURE_WAIT);
        let mut heard = false;
        let mut waiting_for_done = false;
        'features: loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = self.recv(left.min(NUDGE_AFTER))?;
            if msg.is_some() && !heard {
                heard = true;
                deadline = Instant::now() + FEATURE_WAIT;
            }
            match msg {
                None if !left.is_zero() => self.send_line("")?,
                None if waiting_for_done => {
                    return Err(HostError::Timeout {
                        waiting_for: "feature done=1",
                        after: self.timeouts.handshake,
                    })
                }
                None => break,
                Some(Message::Feature(list)) => {
                    for f in &list {
                        match f {
                            Feature::Done(true) => break 'features,
                            Feature::Done(false) => {
                                waiting_for_done = true;
                                deadline = Instant::now() + self.timeouts.handshake;
                            }
                            _ => {}
                        }
                    }
                }
                Some(_) => {}
            }
        }
        for (name, value) in self.spec.options.clone() {
            match self.set_option(&name, value.as_deref()) {
                Err(HostError::UnknownOption(n)) if self.spec.skip_unknown_options => {
                    self.skipped.push(n);
                }
                r => r?,
            }
        }
        Ok(())
    }

    /// The engine's name: its `myname` feature (which may come late), or
    /// its program's file name.
    pub fn name(&self) -> &str {
        match &self.features.myname {
            Some(n) if !n.trim().is_empty() => n.trim(),
            _ => &self.name,
        }
    }

    /// Options of the spec the engine does not have, skipped at the
    /// handshake ([`EngineSpec::skip_unknown_options`]).
    pub fn skipped_options(&self) -> &[String] {
        &self.skipped
    }

    /// The features agreed on.
    pub fn features(&self) -> &Features {
        &self.features
    }

    /// 2 if the engine sent any feature (protocol version 2), 1 otherwise.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The timeouts.
    pub fn timeouts(&self) -> &Timeouts {
        &self.timeouts
    }

    /// The last lines (at most 100) the engine sent that are no CECP
    /// message, kept for diagnostics.
    pub fn notes(&self) -> impl Iterator<Item = &str> {
        self.notes.iter().map(String::as_str)
    }

    /// Sends a command.
    ///
    /// # Errors
    /// [`HostError::Crashed`] if the engine is gone.
    pub fn send(&mut self, cmd: &Command) -> Result<(), HostError> {
        let line = cmd.to_string();
        self.send_line(&line)
    }

    /// Sends an edit-mode subcommand (after [`Command::Edit`]).
    ///
    /// # Errors
    /// [`HostError::Crashed`] if the engine is gone.
    pub fn send_edit(&mut self, cmd: &EditCommand) -> Result<(), HostError> {
        let line = cmd.to_string();
        self.send_line(&line)
    }

    fn send_line(&mut self, line: &str) -> Result<(), HostError> {
        match self.transport.send_line(line) {
            Ok(()) => Ok(()),
            Err(_) => Err(crashed(self.transport.as_mut())),
        }
    }

    /// The next message within `timeout` (`None` if the engine said nothing
    /// in that time). Features are answered here, `accepted` or `rejected`
    /// (engines may declare options at any time), and returned too; lines
    /// that are no message are also kept as notes.
    ///
    /// # Errors
    /// [`HostError::Crashed`] if the engine closed its output.
    pub fn recv(&mut self, timeout: Duration) -> Result<Option<Message>, HostError> {
        let line = match self.transport.recv_line(timeout) {
            None => return Ok(None),
            Some(Incoming::Closed) => return Err(crashed(self.transport.as_mut())),
            Some(Incoming::Line(line)) => line,
        };
        let msg = Message::parse(&line);
        match &msg {
            Message::Feature(list) => {
                self.version = 2;
                for f in list {
                    let reply = if self.features.apply(f) {
                        Command::Accepted(f.name().to_string())
                    } else {
                        Command::Rejected(rejected_name(f))
                    };
                    self.send(&reply)?;
                }
            }
            Message::Unknown(text) if !text.is_empty() => {
                if self.notes.len() == NOTES {
                    self.notes.pop_front();
                }
                self.notes.push_back(text.clone());
            }
            _ => {}
        }
        Ok(Some(msg))
    }

    /// Every message the engine has already sent, without waiting.
    ///
    /// # Errors
    /// [`HostError::Crashed`] if the engine closed its output.
    pub fn drain(&mut self) -> Result<Vec<Message>, HostError> {
        let mut out = Vec::new();
        while let Some(m) = self.recv(Duration::ZERO)? {
            out.push(m);
        }
        Ok(out)
    }

    /// Waits until the engine has done everything it was sent: `ping N`,
    /// then every message up to `pong N` (returned, in order; a stale move
    /// of an earlier game is among them, never after). An engine without
    /// the `ping` feature cannot be synchronised: what it has sent so far
    /// is returned.
    ///
    /// # Errors
    /// [`HostError::Timeout`] if `pong N` does not come within
    /// [`Timeouts::ready`], [`HostError::Crashed`].
    pub fn sync(&mut self) -> Result<Vec<Message>, HostError> {
        if !self.features.ping {
            return self.drain();
        }
        let n = self.next_ping;
        self.next_ping += 1;
        self.send(&Command::Ping(n))?;
        let deadline = Instant::now() + self.timeouts.ready;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.recv(left)? {
                None => {
                    return Err(HostError::Timeout {
                        waiting_for: "pong",
                        after: self.timeouts.ready,
                    })
                }
                Some(Message::Pong(k)) if k == n => return Ok(before),
                Some(m) => before.push(m),
            }
        }
    }

    /// Sets an engine option: one the engine declared (`feature option=`;
    /// the name in any case, the value checked against the declaration)
    /// with `option NAME=VALUE`; else `Hash` or `memory` as `memory N` and
    /// `Threads` or `cores` as `cores N`, when the engine asked for those
    /// commands (features `memory` and `smp`).
    ///
    /// # Errors
    /// [`HostError::UnknownOption`], [`HostError::BadOptionValue`],
    /// [`HostError::Crashed`].
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), HostError> {
        let bad = |reason: String| HostError::BadOptionValue {
            name: name.to_string(),
            value: value.unwrap_or("").to_string(),
            reason,
        };
        if let Some(decl) = self
            .features
            .options
            .iter()
            .find(|o| o.name.trim().eq_ignore_ascii_case(name.trim()))
        {
            let cmd = Command::SetOption {
                name: decl.name.clone(),
                value: decl.value_for(value).map_err(bad)?,
            };
            return self.send(&cmd);
        }
        let number = || -> Result<u64, HostError> {
            value
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| bad("expected a whole number above 0".into()))
        };
        let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(name.trim()));
        if self.features.memory && is(&["Hash", "memory"]) {
            let mb = number()?;
            return self.send(&Command::Memory(mb));
        }
        if self.features.smp && is(&["Threads", "cores"]) {
            let n = u32::try_from(number()?).map_err(|_| bad("too many cores".into()))?;
            return self.send(&Command::Cores(n));
        }
        Err(HostError::UnknownOption(name.to_string()))
    }

    /// Ends the engine at once.
    pub fn kill(&mut self) {
        self.transport.kill();
    }

    /// Sends `quit`, waits the grace period, then kills the engine if it is
    /// still running. No signal is sent before that.
    pub fn quit(mut self) {
        let _ = self.transport.send_line(&Command::Quit.to_string());
        if self.transport.wait_exit(self.timeouts.quit_grace).is_none() {
            self.transport.kill();
        }
    }
}

/// The name in `rejected NAME`: the feature's name, the value too for an
/// option declaration that does not read (CECP §9), the first word of text
/// that is no feature.
fn rejected_name(f: &Feature) -> String {
    match f {
        Feature::Other { name, value } if name == "option" => format!("option {}", value.text()),
        Feature::Malformed(text) => text.split_whitespace().next().unwrap_or("").to_string(),
        f => f.name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::ExitStatus;
    use std::sync::mpsc::{self, Receiver, Sender};
    use std::sync::{Arc, Mutex};

    /// The engine of [`Scripted`]: the lines it answers to one it receives.
    type Answer = Box<dyn FnMut(&str) -> Vec<String> + Send>;

    /// A transport whose engine is a closure answering each line sent,
    /// after an opening speech; what the host sent is recorded.
    struct Scripted {
        sent: Arc<Mutex<Vec<String>>>,
        tx: Sender<Incoming>,
        rx: Receiver<Incoming>,
        answer: Answer,
    }

    impl Scripted {
        fn new(
            opening: &[&str],
            answer: impl FnMut(&str) -> Vec<String> + Send + 'static,
        ) -> (Scripted, Arc<Mutex<Vec<String>>>) {
            let (tx, rx) = mpsc::channel();
            for l in opening {
                tx.send(Incoming::Line(l.to_string())).unwrap();
            }
            let sent = Arc::new(Mutex::new(Vec::new()));
            (
                Scripted {
                    sent: Arc::clone(&sent),
                    tx,
                    rx,
                    answer: Box::new(answer),
                },
                sent,
            )
        }
    }

    impl Transport for Scripted {
        fn send_line(&mut self, line: &str) -> std::io::Result<()> {
            self.sent.lock().unwrap().push(line.to_string());
            for l in (self.answer)(line) {
                let _ = self.tx.send(Incoming::Line(l));
            }
            Ok(())
        }
        fn recv_line(&mut self, timeout: Duration) -> Option<Incoming> {
            self.rx.recv_timeout(timeout).ok()
        }
        fn wait_exit(&mut self, _: Duration) -> Option<ExitStatus> {
            None
        }
        fn kill(&mut self) {}
        fn stderr_tail(&self) -> Vec<String> {
            Vec::new()
        }
    }

    /// The lines sent, without the empty ones (the nudges of the wait).
    fn non_empty(sent: &Mutex<Vec<String>>) -> Vec<String> {
        let sent = sent.lock().unwrap();
        sent.iter().filter(|l| !l.is_empty()).cloned().collect()
    }

    fn quick() -> Timeouts {
        Timeouts {
            handshake: Duration::from_secs(10),
            ready: Duration::from_secs(5),
            ..Timeouts::default()
        }
    }

    /// The v2 handshake of Fairy-Max 5.0b: done=0 in the middle, options,
    /// a feature this crate does not know; every feature answered.
    #[test]
    fn features_are_answered_one_by_one_until_done() {
        let (t, sent) = Scripted::new(&[], |line| match line {
            "protover 2" => [
                "tellics say     Fairy-Max 5.0b",
                "[ white, 1 ]",
                "feature myname=\"Fairy-Max 5.0b\"",
                "feature memory=1 exclude=1",
                "feature setboard=0 xedit=1 ping=1 done=0",
                "feature option=\"Resign Threshold -spin 800 200 1200\"",
                "feature option=\"nonsense\"",
                "feature done=1",
            ]
            .map(String::from)
            .to_vec(),
            "ping 1" => vec!["pong 1".into()],
            _ => vec![],
        });
        let mut spec = EngineSpec::new("/usr/games/fairymax");
        spec.options = vec![
            ("resign threshold".into(), Some("900".into())),
            ("Hash".into(), Some("64".into())),
        ];
        let mut host = CecpHost::with_transport(spec, quick(), Box::new(t)).unwrap();
        assert_eq!(host.name(), "Fairy-Max 5.0b");
        assert_eq!(host.version(), 2);
        let f = host.features();
        assert!(f.ping && f.memory && f.exclude && !f.setboard);
        assert_eq!(f.options.len(), 1);
        assert_eq!(host.notes().collect::<Vec<_>>(), ["[ white, 1 ]"]);
        assert!(host.sync().unwrap().is_empty());
        assert_eq!(
            *sent.lock().unwrap(),
            [
                "xboard",
                "protover 2",
                "accepted myname",
                "accepted memory",
                "accepted exclude",
                "accepted setboard",
                "rejected xedit",
                "accepted ping",
                "accepted done",
                "accepted option",
                "rejected option nonsense",
                "accepted done",
                "option Resign Threshold=900",
                "memory 64",
                "ping 1",
            ]
        );
    }

    /// A version 1 engine says nothing: the host waits the two seconds of
    /// the protocol, then goes on with the defaults.
    #[test]
    fn a_version_1_engine_gets_the_defaults_after_the_wait() {
        let (t, sent) = Scripted::new(&["Chess"], |_| vec![]);
        let host =
            CecpHost::with_transport(EngineSpec::new("/x/oldchess"), quick(), Box::new(t)).unwrap();
        assert_eq!(host.version(), 1);
        assert_eq!(host.name(), "oldchess");
        assert_eq!(*host.features(), Features::default());
        assert_eq!(non_empty(&sent), ["xboard", "protover 2"]);
    }

    /// An engine that says nothing until input arrives (GNU Chess 6) is
    /// sent empty lines until it does.
    #[test]
    fn a_silent_engine_is_nudged_into_its_features() {
        let (t, sent) = Scripted::new(&[], |line| match line {
            "" => vec!["feature done=0".into(), "feature ping=1 setboard=1".into()],
            "accepted setboard" => vec!["feature done=1".into()],
            _ => vec![],
        });
        let host = CecpHost::with_transport(EngineSpec::new("e"), quick(), Box::new(t)).unwrap();
        assert!(host.features().ping && host.features().setboard);
        let sent = sent.lock().unwrap();
        assert_eq!(sent[..3], ["xboard", "protover 2", ""]);
        assert_eq!(sent.last().map(String::as_str), Some("accepted done"));
    }

    /// An engine that says nothing at all is waited for as long as a
    /// handshake may take (here: until its twelfth empty line, three
    /// seconds of nudges), then it is heard; one that never speaks is taken
    /// for a version 1 engine.
    #[test]
    fn a_silent_engine_is_waited_for() {
        let mut nudges = 0;
        let (t, _) = Scripted::new(&[], move |line| {
            if line.is_empty() {
                nudges += 1;
            }
            if line.is_empty() && nudges == 12 {
                vec!["Chess".into(), "feature done=0 ping=1".into()]
            } else if line == "accepted ping" {
                vec!["feature done=1".into()]
            } else {
                vec![]
            }
        });
        let host = CecpHost::with_transport(EngineSpec::new("slow"), quick(), Box::new(t)).unwrap();
        assert_eq!(host.version(), 2);
        assert!(host.features().ping);

        let (t, sent) = Scripted::new(&[], |_| vec![]);
        let timeouts = Timeouts {
            handshake: Duration::from_millis(2500),
            ..quick()
        };
        let host =
            CecpHost::with_transport(EngineSpec::new("mute"), timeouts, Box::new(t)).unwrap();
        assert_eq!(host.version(), 1);
        assert_eq!(non_empty(&sent), ["xboard", "protover 2"]);
    }

    /// Features without `done`: taken in the wait of the protocol.
    #[test]
    fn features_without_done_are_taken_in_the_wait() {
        let (t, sent) = Scripted::new(&[], |line| match line {
            "protover 2" => vec!["feature usermove=1 san=1".into()],
            _ => vec![],
        });
        let host = CecpHost::with_transport(EngineSpec::new("e"), quick(), Box::new(t)).unwrap();
        assert_eq!(host.version(), 2);
        assert!(host.features().usermove && host.features().san);
        assert_eq!(
            non_empty(&sent),
            ["xboard", "protover 2", "accepted usermove", "accepted san"]
        );
    }

    /// `done=0` then nothing: the handshake times out (after the handshake
    /// timeout, not the two seconds).
    #[test]
    fn done_0_without_done_1_times_out() {
        let (t, _) = Scripted::new(&[], |line| match line {
            "protover 2" => vec!["feature done=0 ping=1".into()],
            _ => vec![],
        });
        let timeouts = Timeouts {
            handshake: Duration::from_millis(2500),
            ..quick()
        };
        let err = CecpHost::with_transport(EngineSpec::new("slow"), timeouts, Box::new(t))
            .err()
            .unwrap();
        assert!(
            matches!(
                err,
                HostError::Timeout {
                    waiting_for: "feature done=1",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn options_are_checked_and_unknown_ones_refused() {
        let (t, sent) = Scripted::new(&[], |line| {
            match line {
            "protover 2" => vec![
                "feature smp=1 option=\"Style -combo Solid /// *Normal\" option=\"Clear -button\" done=1"
                    .into(),
            ],
            _ => vec![],
        }
        });
        let mut host =
            CecpHost::with_transport(EngineSpec::new("e"), quick(), Box::new(t)).unwrap();
        host.set_option("style", Some("solid")).unwrap();
        host.set_option("Clear", None).unwrap();
        host.set_option("Threads", Some("2")).unwrap();
        assert!(matches!(
            host.set_option("Style", Some("wild")),
            Err(HostError::BadOptionValue { .. })
        ));
        assert!(matches!(
            host.set_option("Hash", Some("64")),
            Err(HostError::UnknownOption(_))
        ));
        assert!(matches!(
            host.set_option("Threads", Some("0")),
            Err(HostError::BadOptionValue { .. })
        ));
        let sent = sent.lock().unwrap();
        assert_eq!(
            sent[sent.len() - 3..],
            ["option Style=Solid", "option Clear", "cores 2"]
        );
        assert!(host.features().smp);
        assert_eq!(host.features().options.len(), 2);
        assert!(!host.features().ping);
    }

    /// `sync` returns what came before the matching pong (a stale pong
    /// included) and times out without it.
    #[test]
    fn sync_waits_for_its_own_pong() {
        let (t, _) = Scripted::new(&[], |line| match line {
            "protover 2" => vec!["feature ping=1 done=1".into()],
            "ping 1" => vec!["move e2e4".into(), "pong 0".into(), "pong 1".into()],
            _ => vec![],
        });
        let timeouts = Timeouts {
            ready: Duration::from_millis(300),
            ..quick()
        };
        let mut host =
            CecpHost::with_transport(EngineSpec::new("e"), timeouts, Box::new(t)).unwrap();
        let before = host.sync().unwrap();
        assert_eq!(
            before,
            [Message::Move("e2e4".parse().unwrap()), Message::Pong(0)]
        );
        assert!(matches!(
            host.sync(),
            Err(HostError::Timeout {
                waiting_for: "pong",
                ..
            })
        ));
    }
}
