//! A Polyglot book read from any bytes: reading never panics; a book that
//! reads writes bytes that read back as the same entries, looks up the
//! start position, and merges with itself.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_core::Position;
use rookery_pgn::book::Book;

fuzz_target!(|data: &[u8]| {
    let Ok(book) = Book::from_bytes(data) else {
        return;
    };
    let again = Book::from_bytes(&book.to_bytes()).expect("our bytes read back");
    assert_eq!(again.entries(), book.entries());
    let _ = book.moves(&Position::startpos());
    let merged = book.merge(&again);
    assert!(merged.len() <= book.len());
});
