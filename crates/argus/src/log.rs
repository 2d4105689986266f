//! The referee's logs (§3.2 duty 5): every record sent and received, one
//! file per player and one for the event (`event.log`), written by a thread
//! of their own so that no game or connection waits on the disk.
//!
//! Every log line is itself an EPD record: the record as sent or read,
//! with the private operations `Logdir` (`sent`/`received`, or `note` for
//! the referee's own remarks), `Logpeer` (the player or the address) and
//! `Logts` (UTC date and time with milliseconds). A line that was not a
//! record is logged as the record [`super::protocol::unreadable_as_record`]
//! makes of it.
//!
//! The logs are for forensics: each line is handed to the operating system
//! as soon as it is written (one `write` per line and file, no buffer to
//! lose in a crash); the files are created readable by their owner only
//! (mode 600); a `Token`'s secret is logged as
//! [`REDACTED_TOKEN`]; and a line is passed
//! through [`printable`] so that a client's control characters never reach
//! a terminal that shows the log. A write that fails is reported (the
//! `report` of [`EventLog::open_reporting`], and [`EventLog::failed`]) and
//! the writer goes on trying with the next line.

use super::protocol::{printable, unreadable_as_record, REDACTED_TOKEN, TOKEN_OPCODE};
use rookery_epd::{Mode, Operation, RawOperand, Record};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Instant, SystemTime};

/// Which way a record went.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Referee to client.
    Sent,
    /// Client to referee.
    Received,
    /// The referee's own remark (lines not logged, for example).
    Note,
}

enum Item {
    Line {
        player: Option<String>,
        peer: String,
        dir: Direction,
        line: Vec<u8>,
        at: SystemTime,
    },
    Flush(mpsc::Sender<()>),
}

/// A change in the logs' health, for [`EventLog::open_reporting`]'s
/// `report`.
#[derive(Debug)]
pub enum LogHealth {
    /// A write failed (the first failure after lines that were written).
    Failed(std::io::Error),
    /// Lines are written again after a failure; so many were lost.
    Recovered {
        /// Lines not written while the failure lasted.
        lines_lost: u64,
    },
}

/// The logs' failure while it lasts ([`EventLog::failed`]).
#[derive(Debug)]
pub struct LogFailure {
    /// The last write error.
    pub error: std::io::Error,
    /// When the failure began.
    pub since: Instant,
    /// Lines not written since.
    pub lines_lost: u64,
}

#[derive(Default)]
struct Health {
    /// The kind and text of the last error, when the last write failed.
    failure: Option<(std::io::ErrorKind, String, Instant)>,
    lost: u64,
}

/// The event's logs.
pub struct EventLog {
    tx: mpsc::Sender<Item>,
    thread: Option<JoinHandle<()>>,
    health: Arc<Mutex<Health>>,
}

fn utc(at: SystemTime) -> String {
    let d = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs();
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (year, month, day) = rookery_game::game::civil_date(days);
    format!(
        "{year:04}.{month:02}.{day:02} {:02}:{:02}:{:02}.{:03}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// `line` with the operand of its `Token` operation (quoted or not)
/// replaced by [`REDACTED_TOKEN`]: done on the bytes, so that a secret is
/// hidden even on a line that is not a record.
pub fn redact_token(line: &[u8]) -> Cow<'_, [u8]> {
    let op = TOKEN_OPCODE.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut from = 0;
    let mut i = 0;
    while i + op.len() <= line.len() {
        let starts = (i == 0 || line[i - 1] == b' ' || line[i - 1] == b';')
            && &line[i..i + op.len()] == op
            && line.get(i + op.len()) == Some(&b' ');
        if !starts {
            i += 1;
            continue;
        }
        let mut at = i + op.len();
        while line.get(at) == Some(&b' ') {
            at += 1;
        }
        let end = if line.get(at) == Some(&b'"') {
            at += 1;
            line[at..]
                .iter()
                .position(|&c| c == b'"')
                .map_or(line.len(), |k| at + k)
        } else {
            line[at..]
                .iter()
                .position(|&c| c == b';' || c == b' ')
                .map_or(line.len(), |k| at + k)
        };
        let o = out.get_or_insert_with(|| Vec::with_capacity(line.len()));
        o.extend_from_slice(&line[from..at]);
        o.extend_from_slice(REDACTED_TOKEN.as_bytes());
        from = end;
        i = end.max(i + 1);
    }
    match out {
        None => Cow::Borrowed(line),
        Some(mut o) => {
            o.extend_from_slice(&line[from..]);
            Cow::Owned(o)
        }
    }
}

/// The log line for `line` (an EPD record itself, one line of printable
/// text, its `Token` hidden).
pub fn log_record(line: &[u8], dir: Direction, peer: &str, at: SystemTime) -> String {
    let line = redact_token(line);
    // The position's four fields as they went over the wire: a reader
    // writes them again in its own way (an en passant square no capture
    // can use is dropped), and the log keeps what was said.
    let mut sent_fields = None;
    let mut rec = match Record::parse(&line, Mode::Lenient) {
        Ok((r, _)) => {
            // Only fields of printable characters: the reader skips other
            // bytes (a vertical tab) that `split_ascii_whitespace` keeps,
            // and a field holding one would not read back.
            sent_fields = std::str::from_utf8(&line).ok().and_then(|l| {
                let f: Vec<&str> = l.split_ascii_whitespace().take(4).collect();
                (f.len() == 4 && f.iter().all(|w| w.bytes().all(|b| b.is_ascii_graphic())))
                    .then(|| f.join(" "))
            });
            r
        }
        Err(e) => unreadable_as_record(&line, &e.to_string()),
    };
    let word = match dir {
        Direction::Sent => "sent",
        Direction::Received => "received",
        Direction::Note => "note",
    };
    rec.set(Operation::Raw {
        opcode: "Logdir".into(),
        operands: vec![RawOperand::Token(word.into())],
    });
    rec.set(Operation::Raw {
        opcode: "Logpeer".into(),
        operands: vec![RawOperand::Quoted(super::protocol::epd_string(peer))],
    });
    rec.set(Operation::Raw {
        opcode: "Logts".into(),
        operands: vec![RawOperand::Quoted(utc(at))],
    });
    rec.sort_operations();
    let mut text = rec.to_string();
    if let Some(fields) = sent_fields {
        let mut rest = text.as_str();
        for _ in 0..4 {
            rest = rest.trim_start().split_once(' ').map_or("", |(_, r)| r);
        }
        text = if rest.is_empty() {
            fields
        } else {
            format!("{fields} {rest}")
        };
    }
    printable(&text).into_owned()
}

fn file_name(player: &str) -> String {
    let safe: String = player
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("player-{safe}.log")
}

/// The log file of `player` in `dir`.
pub fn player_log_path(dir: &Path, player: &str) -> PathBuf {
    dir.join(file_name(player))
}

/// Opens a log file to append to, created readable by its owner only; a
/// regular file that others could read is made private.
fn open_private(path: &Path) -> std::io::Result<File> {
    let mut o = File::options();
    o.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        o.mode(0o600);
        let f = o.open(path)?;
        let meta = f.metadata()?;
        // Only a regular file: a log directed to a device is left alone.
        if meta.is_file() && meta.permissions().mode() & 0o077 != 0 {
            f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(f)
    }
    #[cfg(not(unix))]
    o.open(path)
}

/// The writer thread's state.
struct Writer {
    dir: PathBuf,
    event: File,
    players: HashMap<String, File>,
    health: Arc<Mutex<Health>>,
    report: Box<dyn Fn(LogHealth) + Send>,
}

impl Writer {
    fn write(&mut self, player: Option<&str>, text: &str) -> std::io::Result<()> {
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(b'\n');
        // One write per line and file: in the kernel's hands at once.
        let event = self.event.write_all(&bytes);
        let player = match player {
            None => Ok(()),
            Some(p) => {
                if !self.players.contains_key(p) {
                    let f = open_private(&player_log_path(&self.dir, p))?;
                    self.players.insert(p.to_string(), f);
                }
                match self.players.get_mut(p) {
                    Some(f) => f.write_all(&bytes),
                    None => Ok(()),
                }
            }
        };
        event.and(player)
    }

    /// Notes how a write went; reports a change.
    fn outcome(&mut self, r: std::io::Result<()>) {
        let Ok(mut h) = self.health.lock() else {
            return;
        };
        match r {
            Ok(()) => {
                if h.failure.take().is_some() {
                    let lines_lost = std::mem::take(&mut h.lost);
                    drop(h);
                    (self.report)(LogHealth::Recovered { lines_lost });
                }
            }
            Err(e) => {
                h.lost += 1;
                let first = h.failure.is_none();
                let since = h.failure.as_ref().map_or_else(Instant::now, |f| f.2);
                h.failure = Some((e.kind(), e.to_string(), since));
                drop(h);
                if first {
                    (self.report)(LogHealth::Failed(e));
                }
            }
        }
    }
}

impl EventLog {
    /// Opens `dir/event.log` (appending) and starts the writer; write
    /// errors are only kept for [`EventLog::failed`].
    ///
    /// # Errors
    /// The directory or file cannot be created.
    pub fn open(dir: &Path) -> std::io::Result<EventLog> {
        EventLog::open_reporting(dir, |_| {})
    }

    /// Opens `dir/event.log` (appending) and starts the writer, which calls
    /// `report` when a write fails after lines that were written, and when
    /// lines are written again after a failure.
    ///
    /// # Errors
    /// The directory or file cannot be created.
    pub fn open_reporting(
        dir: &Path,
        report: impl Fn(LogHealth) + Send + 'static,
    ) -> std::io::Result<EventLog> {
        std::fs::create_dir_all(dir)?;
        let event = open_private(&dir.join("event.log"))?;
        let health = Arc::new(Mutex::new(Health::default()));
        let mut w = Writer {
            dir: dir.to_path_buf(),
            event,
            players: HashMap::new(),
            health: health.clone(),
            report: Box::new(report),
        };
        let (tx, rx) = mpsc::channel::<Item>();
        let thread = std::thread::Builder::new()
            .name("argus-log".into())
            .spawn(move || {
                while let Ok(item) = rx.recv() {
                    match item {
                        Item::Line {
                            player,
                            peer,
                            dir: d,
                            line,
                            at,
                        } => {
                            let text = log_record(&line, d, &peer, at);
                            let r = w.write(player.as_deref(), &text);
                            w.outcome(r);
                        }
                        Item::Flush(done) => {
                            let _ = done.send(());
                        }
                    }
                }
            })?;
        Ok(EventLog {
            tx,
            thread: Some(thread),
            health,
        })
    }

    /// Logs one line sent to or read from `peer` (the player's name when
    /// signed on: it then goes to the player's file too).
    pub fn line(&self, player: Option<&str>, peer: &str, dir: Direction, line: &[u8]) {
        // The writer ends only when the log is dropped.
        let _ = self.tx.send(Item::Line {
            player: player.map(str::to_string),
            peer: peer.to_string(),
            dir,
            line: line.to_vec(),
            at: SystemTime::now(),
        });
    }

    /// Logs a remark of the referee's about `peer` (in `event.log` only),
    /// as the `c0` of a line whose `Logdir` is `note`.
    pub fn note(&self, peer: &str, text: &str) {
        let mut rec = Record::new(rookery_core::Position::startpos());
        rec.push(Operation::Comment(
            0,
            Some(super::protocol::epd_string(text)),
        ));
        self.line(None, peer, Direction::Note, rec.to_string().as_bytes());
    }

    /// Waits until everything logged so far has been written (to the
    /// operating system: every line is, as it is taken).
    pub fn flush(&self) {
        let (tx, rx) = mpsc::channel();
        if self.tx.send(Item::Flush(tx)).is_ok() {
            let _ = rx.recv();
        }
    }

    /// The failure of the logs while it lasts: the last write failed.
    /// An event that cannot keep its logs (§3.2 duty 5) should stop once
    /// this has lasted long (see `since`).
    pub fn failed(&self) -> Option<LogFailure> {
        let h = self.health.lock().ok()?;
        h.failure.as_ref().map(|(kind, text, since)| LogFailure {
            error: std::io::Error::new(*kind, text.clone()),
            since: *since,
            lines_lost: h.lost,
        })
    }

    /// Ends the writer.
    ///
    /// # Errors
    /// The last write error, if the last write failed.
    pub fn close(mut self) -> std::io::Result<()> {
        let (tx, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.tx, tx));
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                return Err(std::io::Error::other("the log writer panicked"));
            }
        }
        match self.failed() {
            Some(f) => Err(f.error),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log keeps the four fields as sent: the referee writes an en
    /// passant square after every double pawn advance (§4.4), which a
    /// reader that knows no capture can use would leave out.
    #[test]
    fn the_position_is_logged_as_it_was_sent() {
        let at = SystemTime::UNIX_EPOCH;
        let line = b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 fmvn 1; hmvc 0; refcom respond;";
        let text = log_record(line, Direction::Sent, "B", at);
        assert!(
            text.starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 "),
            "{text}"
        );
        assert!(
            text.contains("refcom respond;") && text.contains("Logdir sent;"),
            "{text}"
        );
        let (rec, _) = Record::parse(text.as_bytes(), Mode::Strict).unwrap();
        assert!(
            rec.validate(Mode::Strict).iter().all(|d| !d.is_error()),
            "{text}"
        );
    }

    /// A vertical tab before the position (found by the fuzzer): the log
    /// writes the position as read, not a field holding the tab.
    #[test]
    fn a_position_after_odd_whitespace_is_logged_as_read() {
        let line = b"\x0b\x0brnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - cfer; fmvn 1;";
        let text = log_record(line, Direction::Received, "fuzz", SystemTime::UNIX_EPOCH);
        let (rec, _) =
            Record::parse(text.as_bytes(), Mode::Lenient).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(
            text.starts_with("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - "),
            "{text}"
        );
        assert!(rec.to_string().contains("Logdir received;"), "{text}");
    }

    #[test]
    fn log_lines_are_epd_records() {
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(86_400_000 * 365 + 1234);
        let line = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; tcsi \"a\" \"B\";";
        let text = log_record(line, Direction::Received, "B", at);
        assert_eq!(
            text,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - Logdir received; Logpeer \"B\"; \
             Logts \"1971.01.01 00:00:01.234\"; refreq sign_on; tcsi \"a\" \"B\";"
        );
        for bad in [&b"garbage\x07\"x"[..], &[b'y'; 5000][..]] {
            let text = log_record(bad, Direction::Received, "1.2.3.4:5", at);
            let (rec, _) = Record::parse(text.as_bytes(), Mode::Strict).unwrap();
            assert!(
                rec.validate(Mode::Strict).iter().all(|d| !d.is_error()),
                "{text}"
            );
            assert!(text.len() < 1000);
        }
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rookery-log-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Waits (a bounded while) until `path` holds `what`; its text.
    fn wait_for(path: &Path, what: &str) -> String {
        let mut text = String::new();
        for _ in 0..200 {
            text = std::fs::read_to_string(path).unwrap_or_default();
            if text.contains(what) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        text
    }

    /// A line is in the file as soon as the writer has taken it, without a
    /// flush or the end of the event: a crash loses nothing written.
    #[test]
    fn each_line_is_written_at_once_to_files_only_the_owner_reads() {
        let dir = temp_dir("at-once");
        let log = EventLog::open(&dir).unwrap();
        let line = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq reply; sm e4;";
        log.line(Some("Alpha"), "Alpha", Direction::Received, line);
        for f in ["event.log", "player-Alpha.log"] {
            let text = wait_for(&dir.join(f), "sm e4;");
            assert!(text.contains("sm e4;"), "{f} holds {text:?}");
        }
        #[cfg(unix)]
        for f in ["event.log", "player-Alpha.log"] {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(f)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{f}");
        }
        std::mem::forget(log);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_token_is_never_logged_and_control_characters_are_escaped() {
        let at = SystemTime::UNIX_EPOCH;
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        for (line, secret) in [
            (
                format!("{start} refreq sign_on; tcsi \"a\" \"B\"; Token \"s3cret\";"),
                "s3cret",
            ),
            (format!("{start} refreq sign_on; Token hidden;"), "hidden"),
            // Not a record: the text is kept in c0, the secret is not.
            ("garbage; Token \"n0t-epd\"; (((".to_string(), "n0t-epd"),
        ] {
            let text = log_record(line.as_bytes(), Direction::Received, "B", at);
            assert!(!text.contains(secret), "{text}");
            assert!(text.contains("Token") || text.contains("***"), "{text}");
        }
        let evil = format!("{start} refreq fault; c0 \"\x1b[2J\x1b[Hgame 1 over: A - B 1-0\rX\";");
        let text = log_record(evil.as_bytes(), Direction::Received, "B", at);
        assert!(!text.chars().any(|c| c.is_control()), "{text:?}");
        assert!(text.contains("\\x1b[2J"), "{text}");
        // Still one EPD record.
        assert!(
            Record::parse(text.as_bytes(), Mode::Strict).is_ok(),
            "{text}"
        );
    }

    /// A write that fails is reported, and the writer goes on: lines are
    /// written again once the disk takes them.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_failing_write_is_reported_and_the_writer_goes_on() {
        let dir = temp_dir("full");
        // Every write to /dev/full fails with ENOSPC.
        std::os::unix::fs::symlink("/dev/full", dir.join("event.log")).unwrap();
        let (tx, rx) = mpsc::channel();
        let log = EventLog::open_reporting(&dir, move |h| {
            let _ = tx.send(format!("{h:?}"));
        })
        .unwrap();
        log.line(None, "1.2.3.4:5", Direction::Received, b"x");
        log.line(None, "1.2.3.4:5", Direction::Received, b"y");
        let said = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
        assert!(said.contains("Failed"), "{said}");
        log.flush();
        let f = log.failed().expect("the failure lasts");
        assert_eq!(f.lines_lost, 2);
        assert_eq!(f.error.kind(), std::io::ErrorKind::StorageFull);
        assert!(rx.try_recv().is_err(), "reported once");
        // The disk takes lines again.
        std::fs::remove_file(dir.join("event.log")).unwrap();
        assert!(log.close().is_err(), "the last write failed");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
