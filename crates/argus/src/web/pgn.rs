//! The recorded games' PGN, read from the event's PGN file.
//!
//! The referee appends every recorded game to the event's PGN file (the
//! game's text and a blank line) and then tells the page
//! ([`super::Spectators::finished`]). The page does not keep the text: it
//! checks that the file ends with that game and keeps its place (offset and
//! length), so that a recorded game costs the page a few dozen bytes however
//! long the event runs. `/games.pgn`, `/live.pgn` and `/games/N.pgn` read
//! those places back, a chunk at a time. A game the page cannot find there
//! (the file was not written, or not last) is kept as text instead.

use axum::body::Bytes;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// At most this many bytes of the PGN file are read (and held) at a time
/// for one response.
pub(super) const CHUNK: usize = 64 * 1024;

/// Where a game's PGN is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Stored {
    /// In the event's PGN file: `len` bytes at `at` (its blank line
    /// included).
    Disk {
        /// The offset.
        at: u64,
        /// The length.
        len: u64,
    },
    /// Kept here.
    Text(Arc<str>),
}

/// Where `text` (a game's PGN in export format, ending with a blank line)
/// is in `file`, when the file ends with it, as the referee writes it.
pub(super) fn locate(file: &Path, text: &str) -> Option<Stored> {
    let mut f = File::open(file).ok()?;
    let len = u64::try_from(text.len()).ok()?;
    let at = f.metadata().ok()?.len().checked_sub(len)?;
    f.seek(SeekFrom::Start(at)).ok()?;
    let mut tail = Vec::with_capacity(text.len());
    f.take(len).read_to_end(&mut tail).ok()?;
    (tail == text.as_bytes()).then_some(Stored::Disk { at, len })
}

/// Bytes `at..at + len` of `file`.
fn read_range(file: &Path, at: u64, len: u64) -> std::io::Result<Vec<u8>> {
    let mut f = File::open(file)?;
    f.seek(SeekFrom::Start(at))?;
    let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(CHUNK));
    f.take(len).read_to_end(&mut out)?;
    if u64::try_from(out.len()).ok() != Some(len) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("{} is shorter than the games it held", file.display()),
        ));
    }
    Ok(out)
}

/// The bytes of `pieces` (stored games, in order): a disk range or a text
/// each, neighbouring disk ranges read as one (up to [`CHUNK`] bytes).
pub(super) async fn load(file: PathBuf, pieces: Vec<Stored>) -> std::io::Result<Bytes> {
    tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        let mut run: Option<(u64, u64)> = None;
        let flush = |run: &mut Option<(u64, u64)>, out: &mut Vec<u8>| {
            if let Some((at, len)) = run.take() {
                out.extend(read_range(&file, at, len)?);
            }
            Ok::<(), std::io::Error>(())
        };
        for p in pieces {
            match p {
                Stored::Disk { at, len } => match &mut run {
                    Some((start, n)) if *start + *n == at => *n += len,
                    _ => {
                        flush(&mut run, &mut out)?;
                        run = Some((at, len));
                    }
                },
                Stored::Text(t) => {
                    flush(&mut run, &mut out)?;
                    out.extend_from_slice(t.as_bytes());
                }
            }
        }
        flush(&mut run, &mut out)?;
        Ok(Bytes::from(out))
    })
    .await
    .map_err(std::io::Error::other)?
}

/// How many of `pieces` (from the first) to read for one chunk: at least
/// one, then while they stay under [`CHUNK`] bytes.
pub(super) fn chunk_len(pieces: &[Stored]) -> usize {
    let mut bytes = 0u64;
    let mut n = 0;
    for p in pieces {
        bytes += match p {
            Stored::Disk { len, .. } => *len,
            Stored::Text(t) => t.len() as u64 + 1,
        };
        if n > 0 && bytes > CHUNK as u64 {
            break;
        }
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_is_found_at_the_end_of_the_file_and_read_back() {
        let dir = std::env::temp_dir().join(format!("rookery-web-pgn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("g.pgn");
        let one = "[Event \"a\"]\n\n1. e4 *\n\n";
        let two = "[Event \"b\"]\n\n1. d4 *\n\n";
        std::fs::write(&file, format!("earlier games\n{one}")).unwrap();
        let a = locate(&file, one).unwrap();
        assert_eq!(
            a,
            Stored::Disk {
                at: 14,
                len: one.len() as u64
            }
        );
        assert_eq!(locate(&file, two), None, "not the file's last game");
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap();
        std::io::Write::write_all(&mut f, two.as_bytes()).unwrap();
        let b = locate(&file, two).unwrap();
        let kept = Stored::Text(Arc::from("[Event \"c\"]\n\n*\n\n"));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let all = rt
            .block_on(load(file.clone(), vec![a.clone(), b, kept]))
            .unwrap();
        assert_eq!(
            std::str::from_utf8(&all).unwrap(),
            format!("{one}{two}[Event \"c\"]\n\n*\n\n")
        );
        // The file lost its games: the read says so.
        std::fs::write(&file, "short").unwrap();
        assert!(rt.block_on(load(file.clone(), vec![a])).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn chunks_hold_at_least_one_game() {
        let big = Stored::Disk {
            at: 0,
            len: CHUNK as u64 * 2,
        };
        let small = Stored::Disk { at: 0, len: 10 };
        assert_eq!(chunk_len(&[big.clone(), small.clone()]), 1);
        assert_eq!(chunk_len(&[small.clone(), small.clone(), big]), 2);
        assert_eq!(chunk_len(&[]), 0);
    }
}
