//! A standby referee (§3.2 duty 10): follows the primary referee's journal
//! over the network and tells its caller when to take over.
//!
//! The stream: the standby connects to the primary's own address and sends
//! one record, `refreq sign_on; tcsi "ADDRESS" "standby"; Token
//! "OBSERVER_TOKEN"; Journal N;` where `N` is the number of journal bytes
//! it already holds (0 at first). The primary answers with the bytes of its
//! journal from offset `N` (JSON lines, [`rookery_event::journal`]), then every entry
//! as soon as it is durable, and an empty line every 200 ms (the server's
//! `HEARTBEAT`) while nothing else happens. A refusal is a
//! `refcom fault` record. The standby keeps an exact copy of the journal
//! (whole lines only, made durable as they arrive); when the link drops it
//! connects again and asks for the rest from the length of its copy.
//!
//! When nothing (not even a heartbeat) has come from the primary for the
//! configured time, [`follow`] returns: the caller resumes the event from
//! the copy exactly as `rookery referee serve --resume` would, on its own
//! address, and the clients' adapters fail over to it.

use super::protocol::{ClientRecord, RefereeRecord, Request, JOURNAL_OPCODE};
use rookery_core::Position;
use rookery_epd::{Operation, RawOperand};
use rookery_event::journal::Entry;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What to follow and when to take over.
#[derive(Clone, Debug)]
pub struct Standby {
    /// The primary referee, `HOST:PORT`.
    pub primary: String,
    /// The event's `observer_token`.
    pub token: String,
    /// Where the copy of the journal goes (replaced).
    pub journal: PathBuf,
    /// Take over after this long without a word from the primary.
    pub takeover_after: Duration,
}

/// What the standby tells its caller while it follows.
#[derive(Clone, Debug)]
pub enum StandbyEvent {
    /// Connected to the primary, following from this byte.
    Following(u64),
    /// The link to the primary dropped (why).
    Lost(String),
}

/// Why following stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum StandbyError {
    /// The copy of the journal cannot be written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The copy.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The primary refused to stream its journal.
    #[error("the primary refused: {0}")]
    Refused(String),
    /// The primary sent something that is not a journal entry.
    #[error("the primary sent a line that is not a journal entry: {0}")]
    Bad(String),
    /// No journal came from the primary before the time was up: there is
    /// nothing to take over.
    #[error("no journal from the primary at {address} within {after:?}: {why}")]
    NeverReached {
        /// The primary.
        address: String,
        /// The time allowed.
        after: Duration,
        /// The last reason.
        why: String,
    },
}

/// The primary has gone quiet: time to take over.
#[derive(Clone, Debug)]
pub struct Takeover {
    /// When the last word (an entry or a heartbeat) came from the primary.
    pub last_contact: Instant,
    /// Journal entries copied.
    pub entries: usize,
    /// Bytes of journal copied.
    pub bytes: u64,
}

/// How long one wait for the primary's bytes lasts before the silence is
/// measured again.
const POLL: Duration = Duration::from_millis(50);

/// Follows the primary's journal until it has been silent for
/// `takeover_after`, keeping the copy at `journal`.
///
/// # Errors
/// [`StandbyError`]: the copy cannot be written, the primary refused or
/// sent something else than its journal, or no journal ever came.
pub fn follow(
    s: &Standby,
    on_event: &mut dyn FnMut(StandbyEvent),
) -> Result<Takeover, StandbyError> {
    let io_err = |source| StandbyError::Io {
        path: s.journal.clone(),
        source,
    };
    if let Some(dir) = s.journal.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io_err)?;
    }
    let mut copy = std::fs::File::create(&s.journal).map_err(io_err)?;
    let mut len = 0u64;
    let mut entries = 0usize;
    let mut have_plan = false;
    let mut last_contact = Instant::now();
    let mut why = "not connected".to_string();
    loop {
        let silent = last_contact.elapsed();
        if silent >= s.takeover_after {
            if have_plan {
                return Ok(Takeover {
                    last_contact,
                    entries,
                    bytes: len,
                });
            }
            return Err(StandbyError::NeverReached {
                address: s.primary.clone(),
                after: s.takeover_after,
                why,
            });
        }
        let left = s.takeover_after - silent;
        let stream = s
            .primary
            .to_socket_addrs()
            .map_err(|e| e.to_string())
            .and_then(|mut a| a.next().ok_or_else(|| "no address".to_string()))
            .and_then(|a| {
                TcpStream::connect_timeout(&a, left.min(Duration::from_secs(1)))
                    .map_err(|e| e.to_string())
            });
        let mut stream = match stream {
            Ok(st) => st,
            Err(e) => {
                why = e;
                std::thread::sleep(left.min(POLL));
                continue;
            }
        };
        let me = stream
            .local_addr()
            .map_or_else(|_| "unknown".to_string(), |a| a.to_string());
        let mut on = ClientRecord::new(Request::SignOn, Position::startpos());
        on.sender = Some((me, "standby".into()));
        on.token = Some(s.token.clone());
        on.other.push(Operation::Raw {
            opcode: JOURNAL_OPCODE.into(),
            operands: vec![RawOperand::Token(len.to_string())],
        });
        if let Err(e) = stream
            .write_all(format!("{}\n", on.to_line()).as_bytes())
            .and_then(|()| stream.set_read_timeout(Some(POLL)))
        {
            why = e.to_string();
            continue;
        }
        on_event(StandbyEvent::Following(len));
        let mut pending: Vec<u8> = Vec::new();
        let mut chunk = [0u8; 8192];
        let lost = loop {
            let n = match stream.read(&mut chunk) {
                Ok(0) => break "the primary closed the connection".to_string(),
                Ok(n) => n,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    if last_contact.elapsed() >= s.takeover_after {
                        break "the primary is silent".to_string();
                    }
                    continue;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => break e.to_string(),
            };
            last_contact = Instant::now();
            pending.extend_from_slice(&chunk[..n]);
            let mut wrote = false;
            while let Some(i) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=i).collect();
                if line == b"\n" {
                    continue;
                }
                if line.first() != Some(&b'{') {
                    let text = String::from_utf8_lossy(&line).trim_end().to_string();
                    let note = RefereeRecord::parse(text.as_bytes())
                        .ok()
                        .and_then(|r| r.note);
                    return Err(StandbyError::Refused(note.unwrap_or(text)));
                }
                let entry: Entry = serde_json::from_slice(&line).map_err(|e| {
                    StandbyError::Bad(format!(
                        "{e}: {}",
                        String::from_utf8_lossy(&line[..line.len().min(120)])
                    ))
                })?;
                if matches!(entry, Entry::Plan { .. }) {
                    if len != 0 {
                        return Err(StandbyError::Bad("a second plan".into()));
                    }
                    have_plan = true;
                }
                copy.write_all(&line).map_err(io_err)?;
                len += line.len() as u64;
                entries += 1;
                wrote = true;
            }
            if wrote {
                copy.sync_data().map_err(io_err)?;
            }
        };
        on_event(StandbyEvent::Lost(lost.clone()));
        why = lost;
    }
}
