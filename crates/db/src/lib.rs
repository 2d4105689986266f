//! rookery's indexed game database: games stored at about a byte a ply
//! ([`codec`]), header records with a name table ([`header`]), and the
//! opening explorer's index (position → the moves played from it, with
//! W/D/L, average ratings and performance, as `rookery pgn tree` counts
//! them), in one embedded store ([`Database`]). `rookery db` is its
//! command line.
//!
//! ```
//! use rookery_core::Position;
//! use rookery_db::{Database, ImportOptions};
//!
//! let dir = std::env::temp_dir().join(format!("rookery-db-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let db = Database::open(&dir.join("games.rdb"))?;
//! let pgn = "[White \"A\"] [Black \"B\"] [Result \"1-0\"] 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\
//!            [White \"B\"] [Black \"A\"] [Result \"1/2-1/2\"] 1. e4 c5 1/2-1/2\n";
//! let source = rookery_pgn::source::Source::reader(pgn.as_bytes());
//! let report = db.import(vec![("games.pgn".into(), source)], ImportOptions::default(), &mut |_| {})?;
//! assert_eq!(report.games, 2);
//! let (through, moves) = db.explore(&Position::startpos(), &Default::default())?.expect("indexed");
//! assert_eq!(through.games(), 2);
//! assert_eq!(moves.len(), 1); // 1. e4 twice
//! assert_eq!(db.game(1)?.expect("stored").moves.len(), 7);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod bucket;
pub mod codec;
pub mod entry;
pub mod header;
pub mod headers;
pub mod lichess;
pub mod scan;
pub mod scout;
pub mod segment;
#[cfg(feature = "serve")]
pub mod serve;
mod store;

pub use store::{
    BadGame, Database, DbError, Explored, Found, GameRef, ImportOptions, ImportReport, Info,
    StoredGame, GAMES_KEPT, HEADER_TAGS, RUN_POSITIONS,
};
