//! Compressed input and output through `rookery_io`: every format told by
//! its bytes, formats one after the other, skippable frames, and damaged
//! data (cut short, a bad checksum, an unknown format after good data)
//! ending the text at the last whole line before the damage, told after it.

use rookery_io::input::{Format, Input, InputError};
use rookery_io::output::{resume_sources, Output};
use rookery_testkit::compress::{bzip2, gzip, zstd};
use std::io::{self, BufRead, Read, Write};
use std::path::PathBuf;

/// `n` lines of text, each different.
fn lines(n: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for i in 0..n {
        writeln!(
            v,
            "[Event \"line {i} of {n}\"] 1. e4 e5 2. Nf3 Nc6 {{{}}}",
            i * 7919 % 1000
        )
        .unwrap();
    }
    v
}

/// A zstd skippable frame (magic 0x184D2A5x) holding `content`.
fn skippable(nibble: u8, content: &[u8]) -> Vec<u8> {
    let mut v = vec![0x50 | nibble, 0x2a, 0x4d, 0x18];
    v.extend_from_slice(&u32::try_from(content.len()).unwrap().to_le_bytes());
    v.extend_from_slice(content);
    v
}

/// A reader giving at most one byte a read: every boundary in the data
/// falls at the end of a buffer once.
struct Trickle(io::Cursor<Vec<u8>>);

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(1);
        self.0.read(&mut buf[..n])
    }
}

/// The text read from `data` and the damage told after it.
fn read(name: &str, data: Vec<u8>) -> (Vec<u8>, Option<InputError>) {
    let mut input = Input::from_reader(name, io::Cursor::new(data)).unwrap();
    let damage = input.damage();
    let mut text = Vec::new();
    input.read_to_end(&mut text).unwrap();
    (text, damage.take())
}

fn newlines(b: &[u8]) -> u64 {
    b.iter().filter(|&&c| c == b'\n').count() as u64
}

#[test]
fn each_format_is_told_by_its_bytes_and_read_whole() {
    let text = lines(20_000);
    for (data, format) in [
        (zstd(&text), Format::Zstd),
        (gzip(&text), Format::Gzip),
        (bzip2(&text, 1), Format::Bzip2),
        (text.clone(), Format::Plain),
    ] {
        let input = Input::from_reader("x", io::Cursor::new(data.clone())).unwrap();
        assert_eq!(input.format(), format);
        let (got, damage) = read("x", data);
        assert!(damage.is_none(), "{format}: {damage:?}");
        assert!(
            got == text,
            "{format}: {} bytes of {}",
            got.len(),
            text.len()
        );
    }
}

#[test]
fn formats_one_after_another_read_as_their_texts_one_after_another() {
    let (a, b, c, d) = (lines(3000), lines(50), lines(7000), lines(10));
    let mut data = zstd(&a);
    data.extend(gzip(&b));
    data.extend(bzip2(&c, 1));
    data.extend(zstd(&a));
    // Plain text after compressed data is text.
    data.extend(&d);
    let want = [&a[..], &b, &c, &a, &d].concat();
    let (got, damage) = read("cat", data.clone());
    assert!(damage.is_none(), "{damage:?}");
    assert!(got == want, "{} bytes of {}", got.len(), want.len());
    // The same, the boundaries at the ends of buffers.
    let mut input = Input::from_reader("trickle", Trickle(io::Cursor::new(data))).unwrap();
    let damage = input.damage();
    let mut got = Vec::new();
    input.read_to_end(&mut got).unwrap();
    assert!(damage.take().is_none());
    assert!(
        got == want,
        "trickled: {} bytes of {}",
        got.len(),
        want.len()
    );
}

#[test]
fn multi_member_gzip_multi_stream_bzip2_multi_frame_zstd() {
    let (a, b) = (lines(100), lines(200));
    let want = [&a[..], &b].concat();
    for (name, pack) in [
        ("zst", zstd as fn(&[u8]) -> Vec<u8>),
        ("gz", gzip),
        ("bz2", |t: &[u8]| bzip2(t, 1)),
    ] {
        let data = [pack(&a), pack(&b)].concat();
        let (got, damage) = read(name, data);
        assert!(damage.is_none(), "{name}: {damage:?}");
        assert!(got == want, "{name}: {} bytes of {}", got.len(), want.len());
    }
}

/// pzstd (the lichess dumps) writes a skippable frame before each frame; a
/// file may also start with one of its own.
#[test]
fn skippable_frames_are_passed_over() {
    let (a, b) = (lines(500), lines(700));
    let (fa, fb) = (zstd(&a), zstd(&b));
    let mut data = skippable(0xf, b"not text, never read");
    for f in [&fa, &fb] {
        data.extend(skippable(0, &u32::try_from(f.len()).unwrap().to_le_bytes()));
        data.extend(f);
    }
    let input = Input::from_reader("lichess", io::Cursor::new(data.clone())).unwrap();
    assert_eq!(input.format(), Format::Zstd);
    let (got, damage) = read("lichess", data);
    assert!(damage.is_none(), "{damage:?}");
    assert!(got == [&a[..], &b].concat(), "{} bytes", got.len());
}

/// Cut short anywhere: the text read is whole lines of the original, from
/// its start; the cut is told with the number of lines read.
#[test]
fn cut_short_reads_the_whole_lines_before_and_tells_the_cut() {
    let text = lines(60_000);
    for (name, data) in [
        ("zst", zstd(&text)),
        ("gz", gzip(&text)),
        ("bz2", bzip2(&text, 1)),
    ] {
        for cut in [data.len() * 7 / 10, data.len() - 1] {
            let (got, damage) = read(name, data[..cut].to_vec());
            assert!(text.starts_with(&got), "{name} cut at {cut}: not a prefix");
            assert!(
                got.is_empty() || got.ends_with(b"\n"),
                "{name}: part of a line"
            );
            let e = damage.unwrap_or_else(|| panic!("{name} cut at {cut}: not told"));
            match &e {
                InputError::Truncated { lines, .. } => assert_eq!(*lines, newlines(&got)),
                e => panic!("{name} cut at {cut}: {e}"),
            }
            let said = e.to_string();
            assert!(said.starts_with(&format!("cannot read {name}: ")), "{said}");
            assert!(said.contains("truncated"), "{said}");
        }
        // Most of the text was read before a cut at 70%.
        let (got, _) = read(name, data[..data.len() * 7 / 10].to_vec());
        assert!(got.len() > text.len() / 3, "{name}: {} bytes", got.len());
    }
}

#[test]
fn a_bad_checksum_is_damage_told_after_the_text() {
    let text = lines(5000);
    let mut data = gzip(&text);
    // The CRC-32 is the trailer's first four bytes.
    let at = data.len() - 8;
    data[at] ^= 0x55;
    let (got, damage) = read("bad.gz", data);
    assert!(text.starts_with(&got) && got.ends_with(b"\n"));
    match damage {
        Some(e @ InputError::Damaged { .. }) => {
            let said = e.to_string();
            assert!(
                said.starts_with("cannot read bad.gz: the gzip data is damaged"),
                "{said}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Bytes changed inside a zstd frame.
    let mut data = zstd::stream::encode_all(&text[..], 3).unwrap();
    let mid = data.len() / 2;
    data[mid] ^= 0xff;
    data[mid + 1] ^= 0xff;
    let (got, damage) = read("bad.zst", data);
    assert!(text.starts_with(&got));
    assert!(damage.is_some(), "a damaged zstd frame read as whole");
}

#[test]
fn an_unknown_format_after_good_data_is_damage() {
    let text = lines(100);
    let mut data = gzip(&text);
    data.extend_from_slice(b"\xfd7zXZ\0 the rest of an xz file");
    let (got, damage) = read("mixed", data);
    assert!(got == text);
    let said = damage.expect("told").to_string();
    assert!(said.contains("followed by xz data"), "{said}");
}

#[test]
fn empty_archives_are_empty_texts() {
    for (name, data) in [
        ("zst", zstd(b"")),
        ("gz", gzip(b"")),
        ("bz2", bzip2(b"", 1)),
        ("plain", Vec::new()),
    ] {
        let (got, damage) = read(name, data);
        assert!(got.is_empty(), "{name}");
        assert!(damage.is_none(), "{name}: {damage:?}");
    }
}

/// A scratch directory, removed at the end.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("rookery-io-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn files_are_told_by_bytes_not_names() {
    let dir = Dir::new("names");
    let text = lines(50);
    let plain = dir.0.join("plain.pgn.zst");
    std::fs::write(&plain, &text).unwrap();
    let packed = dir.0.join("packed.pgn");
    std::fs::write(&packed, gzip(&text)).unwrap();
    let input = Input::open(&plain).unwrap();
    assert_eq!(input.format(), Format::Plain);
    assert!(
        input.file().is_some(),
        "plain text keeps its positional reads"
    );
    assert_eq!(rookery_io::input::read_all(&plain).unwrap(), text);
    let input = Input::open(&packed).unwrap();
    assert_eq!(input.format(), Format::Gzip);
    assert!(input.file().is_none());
    assert_eq!(rookery_io::input::read_all(&packed).unwrap(), text);
    // A file of another compression is refused, naming it.
    let xz = dir.0.join("games.xz");
    std::fs::write(&xz, b"\xfd7zXZ\0\0\0").unwrap();
    let e = Input::open(&xz).unwrap_err().to_string();
    assert!(e.contains("games.xz") && e.contains("xz-compressed"), "{e}");
    // UTF-16 text inside gzip is refused like UTF-16 text.
    let wide = dir.0.join("wide.pgn.gz");
    std::fs::write(&wide, gzip(b"\xff\xfe[\0E\0v\0")).unwrap();
    let e = Input::open(&wide).unwrap_err();
    assert!(matches!(e, InputError::Wide { .. }), "{e}");
}

#[test]
fn outputs_are_compressed_by_their_names_and_read_back() {
    let dir = Dir::new("out");
    let text = lines(3000);
    for (name, format) in [
        ("o.pgn.zst", Format::Zstd),
        ("o.pgn.gz", Format::Gzip),
        ("o.pgn.bz2", Format::Bzip2),
        ("o.pgn", Format::Plain),
    ] {
        let path = dir.0.join(name);
        let mut out = Output::create(&path, &[], false).unwrap();
        out.write_all(&text).unwrap();
        out.commit().unwrap();
        let mut head = [0; 6];
        std::fs::File::open(&path)
            .unwrap()
            .read_exact(&mut head)
            .unwrap();
        assert_eq!(Format::sniff(&head).unwrap(), format, "{name}");
        assert!(
            rookery_io::input::read_all(&path).unwrap() == text,
            "{name}"
        );
    }
}

/// A killed run leaves a compressed partial file cut inside a frame;
/// `--resume` reads its whole lines back.
#[test]
fn resume_reads_a_compressed_partial_file_cut_short() {
    let dir = Dir::new("resume");
    let target = dir.0.join("r.pgn.gz");
    let text = lines(20_000);
    let packed = gzip(&text);
    let partial = rookery_io::output::partial_path(&target);
    std::fs::write(&partial, &packed[..packed.len() / 2]).unwrap();
    let sources = resume_sources(&target).unwrap();
    assert_eq!(sources.len(), 1);
    let mut got = Vec::new();
    for line in sources.into_iter().next().unwrap().split(b'\n') {
        got.extend(line.unwrap());
        got.push(b'\n');
    }
    assert!(
        got.len() > 1000 && text.starts_with(&got),
        "{} bytes",
        got.len()
    );
    rookery_io::output::resume_done(&target);
}
