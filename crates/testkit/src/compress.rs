//! Compressed test data, made by the compression crates themselves and not
//! by the readers under test: what a test feeds `rookery-io`'s decoders
//! (and the command line's) comes from an independent writer.

use std::io::Write;

/// `text` as one zstd frame (level 3).
pub fn zstd(text: &[u8]) -> Vec<u8> {
    zstd::encode_all(text, 3).expect("zstd compresses a slice of memory")
}

/// `text` as one gzip member (the default level).
pub fn gzip(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text).expect("gzip writes to memory");
    e.finish().expect("gzip writes to memory")
}

/// `text` as bzip2 in blocks of `level` × 100 kB (1 to 9): level 1 makes a
/// few megabytes many blocks.
pub fn bzip2(text: &[u8], level: u32) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level));
    e.write_all(text).expect("bzip2 writes to memory");
    e.finish().expect("bzip2 writes to memory")
}
