//! Polyglot opening books (`.bin`): the format is rookery-core's
//! ([`rookery_core::polyglot::book`], re-exported here: read from bytes,
//! look up, pick a move, merge, write to bytes); here the files ([`open`],
//! [`write()`]) and building books from games ([`build`]).
//!
//! ```
//! use rookery_core::Position;
//! use rookery_pgn::book::{build::{BuildOptions, Tally}, Book};
//! use rookery_pgn::GameResult;
//!
//! let opts = BuildOptions { min_games: 1, ..BuildOptions::default() };
//! let mut tally = Tally::new(opts);
//! let start = Position::startpos();
//! let e4 = rookery_core::UciMove::from_ascii(b"e2e4")?.to_move(&start)?;
//! tally.add_game(&start, [e4], GameResult::WhiteWins);
//! let book: Book = tally.into_book();
//! let bytes = book.to_bytes();
//! assert_eq!(bytes.len(), 16);
//! let again = Book::from_bytes(&bytes)?;
//! let moves = again.moves(&start);
//! assert_eq!((moves[0].mv, moves[0].weight), (e4, 2)); // a win counts 2
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod build;

pub use rookery_core::polyglot::book::{
    scale_position, Book, BookMove, Entry, LengthError, Summary, ENTRY_BYTES, MAX_WEIGHT,
};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A book file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file cannot be read.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// Its length is not a whole number of entries: not a Polyglot book,
    /// or a truncated one.
    #[error("{}: {error}", .path.display())]
    Length {
        /// The file.
        path: PathBuf,
        /// The length.
        error: LengthError,
    },
}

/// Reads the book file at `path` (whole, into memory).
///
/// # Errors
/// [`BookError::Io`] if it cannot be read, [`BookError::Length`] if its
/// length is not a multiple of 16.
pub fn open(path: &Path) -> Result<Book, BookError> {
    let bytes = std::fs::read(path).map_err(|error| BookError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    Book::from_bytes(&bytes).map_err(|error| BookError::Length {
        path: path.to_path_buf(),
        error,
    })
}

/// Writes `book`'s bytes to `w`.
///
/// # Errors
/// Errors of `w`.
pub fn write(book: &Book, w: &mut dyn Write) -> io::Result<()> {
    let mut buf = Vec::with_capacity(1 << 16);
    for chunk in book.entries().chunks(4096) {
        buf.clear();
        for e in chunk {
            buf.extend_from_slice(&e.to_bytes());
        }
        w.write_all(&buf)?;
    }
    Ok(())
}
