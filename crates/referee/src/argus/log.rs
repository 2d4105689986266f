//! The referee's logs (§3.2 duty 5): every record sent and received, one
//! file per player and one for the event (`event.log`), written by a thread
//! of their own so that no game or connection waits on the disk.
//!
//! Every log line is itself an EPD record: the record as sent or read,
//! with the private operations `Logdir` (`sent`/`received`), `Logpeer` (the
//! player or the address) and `Logts` (UTC date and time with
//! milliseconds). A line that was not a record is logged as the record
//! [`super::protocol::unreadable_as_record`] makes of it.

use super::protocol::unreadable_as_record;
use rookery_epd::{Mode, Operation, RawOperand, Record};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::SystemTime;

/// Which way a record went.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Referee to client.
    Sent,
    /// Client to referee.
    Received,
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

/// The event's logs.
pub struct EventLog {
    tx: mpsc::Sender<Item>,
    thread: Option<JoinHandle<std::io::Result<()>>>,
}

fn utc(at: SystemTime) -> String {
    let d = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs();
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (year, month, day) = crate::game::civil_date(days);
    format!(
        "{year:04}.{month:02}.{day:02} {:02}:{:02}:{:02}.{:03}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// The log line for `line` (an EPD record itself).
pub fn log_record(line: &[u8], dir: Direction, peer: &str, at: SystemTime) -> String {
    let mut rec = match Record::parse(line, Mode::Lenient) {
        Ok((r, _)) => r,
        Err(e) => unreadable_as_record(line, &e.to_string()),
    };
    let word = match dir {
        Direction::Sent => "sent",
        Direction::Received => "received",
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
    rec.to_string()
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

impl EventLog {
    /// Opens `dir/event.log` (appending) and starts the writer.
    ///
    /// # Errors
    /// The directory or file cannot be created.
    pub fn open(dir: &Path) -> std::io::Result<EventLog> {
        std::fs::create_dir_all(dir)?;
        let open = |p: PathBuf| {
            File::options()
                .create(true)
                .append(true)
                .open(p)
                .map(BufWriter::new)
        };
        let mut event = open(dir.join("event.log"))?;
        let dir = dir.to_path_buf();
        let (tx, rx) = mpsc::channel::<Item>();
        let thread = std::thread::Builder::new().name("argus-log".into()).spawn(
            move || -> std::io::Result<()> {
                let mut players: HashMap<String, BufWriter<File>> = HashMap::new();
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
                            writeln!(event, "{text}")?;
                            if let Some(p) = player {
                                if !players.contains_key(&p) {
                                    let f = open(player_log_path(&dir, &p))?;
                                    players.insert(p.clone(), f);
                                }
                                if let Some(f) = players.get_mut(&p) {
                                    writeln!(f, "{text}")?;
                                }
                            }
                        }
                        Item::Flush(done) => {
                            event.flush()?;
                            for f in players.values_mut() {
                                f.flush()?;
                            }
                            let _ = done.send(());
                        }
                    }
                }
                event.flush()?;
                for f in players.values_mut() {
                    f.flush()?;
                }
                Ok(())
            },
        )?;
        Ok(EventLog {
            tx,
            thread: Some(thread),
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

    /// Waits until everything logged so far is on disk (the OS's buffers).
    pub fn flush(&self) {
        let (tx, rx) = mpsc::channel();
        if self.tx.send(Item::Flush(tx)).is_ok() {
            let _ = rx.recv();
        }
    }

    /// Ends the writer.
    ///
    /// # Errors
    /// The first write error.
    pub fn close(mut self) -> std::io::Result<()> {
        let (tx, _) = mpsc::channel();
        drop(std::mem::replace(&mut self.tx, tx));
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(std::io::Error::other("the log writer panicked")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
