//! What the PGN reader's test files share.

/// The contents of every `.pgn` file in tests/data, in file-name order.
pub fn data_files() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    rookery_testkit::files_with_extension(dir, "pgn")
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect()
}
