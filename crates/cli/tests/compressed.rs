//! Compressed inputs and outputs end to end: zstd, gzip and bzip2 told by
//! their bytes for the PGN and EPD verbs, stdin included, one after the
//! other on stdin; `-o NAME.zst|.gz|.bz2` compresses; and hostile inputs (cut
//! short, a bad checksum, a bomb, an empty archive, a misnamed file), each
//! told naming the file, the games before the damage kept.

use crate::common::{rookery, s, text, ROOKERY};
use rookery_testkit::compress::{bzip2, gzip, zstd};
use rookery_testkit::TempDir;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../pgn/tests/data")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap()
}

/// The text of a compressed file, by the crates (not by rookery).
fn unpack(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match bytes {
        [0x28, 0xb5, 0x2f, 0xfd, ..] => {
            zstd::stream::read::Decoder::new(bytes)
                .unwrap()
                .read_to_end(&mut out)
                .unwrap();
        }
        [0x1f, 0x8b, ..] => {
            flate2::read::MultiGzDecoder::new(bytes)
                .read_to_end(&mut out)
                .unwrap();
        }
        [b'B', b'Z', b'h', ..] => {
            bzip2::read::MultiBzDecoder::new(bytes)
                .read_to_end(&mut out)
                .unwrap();
        }
        _ => panic!("not compressed: {:?}", &bytes[..bytes.len().min(8)]),
    }
    out
}

/// `pgn stats --json` of `args`, without the name of the file of the
/// longest game (stdin is named `<stdin>`).
fn stats(args: &[&str], stdin: &[u8]) -> (serde_json::Value, i32) {
    let mut argv = vec!["pgn", "stats", "--json"];
    argv.extend_from_slice(args);
    let out = rookery(&argv, stdin);
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        out.describe()
    );
    let mut v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", out.describe()));
    if let Some(longest) = v["longest"].as_object_mut() {
        longest.remove("file");
    }
    (v, out.code().unwrap())
}

/// Several games, a few hundred kilobytes: enough for several chunks, and
/// after each file a game with a comment of random letters, so that the
/// compressed data is spread over the whole text (a cut in the middle of
/// it is a cut in the middle of the text).
fn collection() -> Vec<u8> {
    let mut v = Vec::new();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for round in 0..6 {
        for name in [
            "lichess_db_10k.pgn",
            "twic1599_10k.pgn",
            "pe-fischer.pgn",
            "kasparov-deep-blue-1997.pgn",
            "pe-repetition.pgn",
            "pe-seventyfive.pgn",
        ] {
            v.extend(read(name));
            write!(v, "\n[Event \"filler {round}\"]\n\n{{").unwrap();
            for _ in 0..4000 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                v.push(b'a' + (seed % 26) as u8);
            }
            v.extend(b"} *\n\n");
        }
    }
    v
}

#[test]
fn cat_of_compressed_files_on_stdin_equals_the_plain_files() {
    let dir = TempDir::new("compressed-cat");
    let a = read("lichess_db_10k.pgn");
    let b = read("kasparov-deep-blue-1997.pgn");
    let pa = dir.write("a.pgn", &a);
    let pb = dir.write("b.pgn", &b);
    let (plain, code) = stats(&[s(&pa), s(&pb)], b"");
    assert_eq!(code, 0);
    assert!(plain["games"].as_u64().unwrap() > 6, "{plain}");
    // `cat a.pgn.zst b.pgn.gz | rookery pgn stats -`, on one thread and two.
    // (Stdin is one input: its games are numbered on from a's.)
    let piped = [zstd(&a), gzip(&b)].concat();
    let (whole, _) = stats(&[s(&dir.write("ab.pgn", [&a[..], &b].concat()))], b"");
    for jobs in ["1", "2"] {
        let (got, code) = stats(&["--jobs", jobs, "--chunk-bytes", "2000", "-"], &piped);
        assert_eq!(code, 0);
        assert_eq!(got, whole, "--jobs {jobs}");
        let mut got = got;
        got["longest"]["game"] = plain["longest"]["game"].clone();
        assert_eq!(got, plain, "--jobs {jobs}");
    }
    // And as files, bzip2 among them.
    let za = dir.write("a.pgn.zst", zstd(&a));
    let bb = dir.write("b.pgn.bz2", bzip2(&b, 9));
    let (got, code) = stats(&["--jobs", "2", s(&za), s(&bb)], b"");
    assert_eq!(code, 0);
    assert_eq!(got, plain);
}

/// The PGN and EPD verbs read compressed files, and their output is the
/// output of the plain file.
#[test]
fn every_verb_reads_compressed_input() {
    let dir = TempDir::new("compressed-verbs");
    let pgn = collection();
    let plain = dir.write("c.pgn", &pgn);
    let packed = [
        dir.write("c.zst", zstd(&pgn)),
        dir.write("c.gz", gzip(&pgn)),
        dir.write("c.bz2", bzip2(&pgn, 9)),
    ];
    for verb in [
        &["pgn", "normalize", "--jobs", "2"][..],
        &["pgn", "validate"],
        &["pgn", "to-epd"],
    ] {
        let want = rookery(&[verb, &[s(&plain)]].concat(), b"");
        for p in &packed {
            let got = rookery(&[verb, &[s(p)]].concat(), b"");
            assert_eq!(got.code(), want.code(), "{}", got.describe());
            // The same, but for the file's name in the messages.
            let named = |t: &[u8]| text(t).replace(s(p), "FILE").replace(s(&plain), "FILE");
            assert_eq!(named(&got.stdout), named(&want.stdout), "{verb:?}");
            assert_eq!(named(&got.stderr), named(&want.stderr), "{verb:?}");
        }
    }
    let epd = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../epd/tests/data/suites/bk.epd"),
    )
    .unwrap();
    let plain = dir.write("bk.epd", &epd);
    let packed = dir.write("bk.epd.zst", zstd(&epd));
    for verb in [&["epd", "normalize"][..], &["epd", "validate"]] {
        let want = rookery(&[verb, &[s(&plain)]].concat(), b"");
        want.assert_code(0);
        let named = |t: &[u8]| {
            text(t)
                .replace(s(&packed), "FILE")
                .replace(s(&plain), "FILE")
                .replace("<stdin>", "FILE")
        };
        let got = rookery(&[verb, &[s(&packed)]].concat(), b"");
        got.assert_code(0);
        assert_eq!(named(&got.stdout), named(&want.stdout), "{verb:?}");
        // From stdin too.
        let got = rookery(&[verb, &["-"]].concat(), &gzip(&epd));
        got.assert_code(0);
        assert_eq!(named(&got.stdout), named(&want.stdout), "{verb:?} -");
    }
}

#[test]
fn outputs_named_zst_gz_bz2_are_compressed() {
    let dir = TempDir::new("compressed-out");
    let pgn = dir.write("in.pgn", collection());
    let want = rookery(&["pgn", "normalize", s(&pgn)], b"");
    want.assert_code(0);
    for name in ["out.pgn.zst", "out.pgn.gz", "out.pgn.bz2"] {
        let out = dir.join(name);
        rookery(&["pgn", "normalize", s(&pgn), "-o", s(&out)], b"").assert_code(0);
        let bytes = std::fs::read(&out).unwrap();
        assert!(unpack(&bytes) == want.stdout, "{name}");
        assert!(bytes.len() < want.stdout.len() / 2, "{name} not compressed");
        // Read back by rookery itself.
        let again = rookery(&["pgn", "normalize", s(&out)], b"");
        assert!(again.stdout == want.stdout, "{name} read back");
    }
    // In place: the file stays compressed, its games normalized.
    let gzipped = dir.write("in.pgn.gz", gzip(&std::fs::read(&pgn).unwrap()));
    let args = [
        "pgn",
        "normalize",
        s(&gzipped),
        "-o",
        s(&gzipped),
        "--in-place",
    ];
    rookery(&args, b"").assert_code(0);
    assert!(unpack(&std::fs::read(&gzipped).unwrap()) == want.stdout);
}

/// Cut short: the games of the whole lines before the cut are read (the
/// same stats as for that text, plain, but for the game the cut ended in:
/// an error, its moves and result not counted), and the cut is told
/// naming the file.
#[test]
fn a_truncated_zst_keeps_the_games_before_the_cut_and_says_so() {
    let dir = TempDir::new("compressed-cut");
    let pgn = collection();
    let whole = zstd(&pgn);
    let cut = &whole[..whole.len() * 3 / 5];
    let file = dir.write("cut.pgn.zst", cut);
    // What zstd itself gives of it, up to its last whole line.
    let mut before = Vec::new();
    let _ = zstd::stream::read::Decoder::new(cut)
        .unwrap()
        .read_to_end(&mut before);
    let end = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    before.truncate(end);
    assert!(
        !before.is_empty() && before.len() < pgn.len(),
        "{} bytes of {} before the cut",
        before.len(),
        pgn.len()
    );
    let prefix = dir.write("prefix.pgn", &before);
    // The games before the one the cut ended in.
    let last = before
        .windows(8)
        .rposition(|w| w == b"[Event \"")
        .expect("a game before the cut");
    let whole_games = dir.write("whole-games.pgn", &before[..last]);
    let (mut want, _) = stats(&[s(&prefix)], b"");
    let (before_last, _) = stats(&[s(&whole_games)], b"");
    want["moves"] = before_last["moves"].clone();
    want["results"] = before_last["results"].clone();
    want["eco"] = before_last["eco"].clone();
    want["errors"] = serde_json::json!(want["errors"].as_u64().unwrap() + 1);
    for jobs in ["1", "2"] {
        let out = rookery(&["pgn", "stats", "--json", "--jobs", jobs, s(&file)], b"");
        out.assert_code(1);
        let said = text(&out.stderr);
        assert!(!said.contains("panicked"), "{said}");
        assert!(
            said.contains(&format!(
                "rookery: error: cannot read {}: the zstd data is truncated",
                s(&file)
            )),
            "{said}"
        );
        let mut got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        got["longest"].as_object_mut().unwrap().remove("file");
        assert_eq!(got, want, "--jobs {jobs}");
    }
    // A verb that copies: the games before the cut are written, the cut told.
    let out = dir.join("out.pgn");
    let run = rookery(&["pgn", "normalize", s(&file), "-o", s(&out)], b"");
    run.assert_code(1);
    assert!(
        text(&run.stderr).contains("truncated"),
        "{}",
        run.describe()
    );
    let want = rookery(&["pgn", "normalize", s(&whole_games)], b"");
    assert!(std::fs::read(&out).unwrap() == want.stdout);
    // An EPD verb, from stdin.
    let epd = rookery(&["pgn", "to-epd", s(&prefix)], b"").stdout;
    let packed = gzip(&epd);
    let run = rookery(&["epd", "validate", "-"], &packed[..packed.len() - 20]);
    run.assert_code(1);
    assert!(
        text(&run.stderr).contains("cannot read <stdin>: the gzip data is truncated"),
        "{}",
        run.describe()
    );
}

/// A game the damage cuts is not a game: the verbs that copy games leave it
/// out as an error naming it (or copy it with --keep-bad), and copy every
/// game before it as it was.
#[test]
fn a_game_cut_by_the_damage_is_rejected_not_copied() {
    let dir = TempDir::new("compressed-cut-game");
    let whole_games = read("pe-fischer.pgn");
    // One long game, its comment on many lines over several of zstd's
    // 128 KB blocks: half of its compressed bytes give some of its lines,
    // never its end.
    let mut long = b"[Event \"long\"]\n[Result \"*\"]\n\n1. e4 {".to_vec();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..600_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        long.push(if i % 60 == 59 {
            b'\n'
        } else {
            b'a' + (seed % 26) as u8
        });
    }
    long.extend(b"} e5 *\n");
    let packed_long = zstd(&long);
    let mut file = zstd(&whole_games);
    file.extend_from_slice(&packed_long[..packed_long.len() / 2]);
    let cut = dir.write("cut.pgn.zst", &file);
    let plain = dir.write("whole.pgn", &whole_games);
    let want = rookery(&["pgn", "cat", s(&plain)], b"");
    want.assert_code(0);
    let games = want.stdout.windows(8).filter(|w| w == b"[Event \"").count() as u64;
    assert!(games > 1, "{}", want.describe());
    for verb in ["filter", "cat", "dedupe"] {
        let out = dir.join(format!("{verb}.pgn"));
        let run = rookery(&["pgn", verb, "--json", s(&cut), "-o", s(&out)], b"");
        assert_cut_short(&run, games + 1, verb);
        assert!(
            text(&run.stderr).contains("the zstd data is truncated"),
            "{verb}: {}",
            run.describe()
        );
        let v: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(
            (&v["games"], &v["written"], &v["rejected"], &v["errors"]),
            (&(games + 1).into(), &games.into(), &1.into(), &1.into()),
            "{verb}: {v}"
        );
        assert!(
            std::fs::read(&out).unwrap() == want.stdout,
            "{verb}: the games before the cut, as they were"
        );
    }
    // --keep-bad: the lines of it that were read, after the whole games.
    let out = dir.join("kept.pgn");
    rookery(
        &["pgn", "filter", "--keep-bad", s(&cut), "-o", s(&out)],
        b"",
    )
    .assert_code(1);
    let kept = std::fs::read(&out).unwrap();
    assert!(kept.starts_with(&want.stdout) && kept.len() > want.stdout.len() + 60);
    assert!(kept[want.stdout.len()..].starts_with(b"\n[Event \"long\"]"));
    // A cut game with an error before the cut: one rejected game, counted
    // once.
    let bad_long = String::from_utf8(long.clone())
        .unwrap()
        .replacen("1. e4 {", "1. e4 Ke3 {", 1);
    let packed_bad = zstd(bad_long.as_bytes());
    let mut file = zstd(&whole_games);
    file.extend_from_slice(&packed_bad[..packed_bad.len() / 2]);
    let cut_bad = dir.write("cut-bad.pgn.zst", &file);
    let out = dir.join("bad.pgn");
    let run = rookery(
        &["pgn", "filter", "--json", s(&cut_bad), "-o", s(&out)],
        b"",
    );
    run.assert_code(1);
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(
        (
            &v["games"],
            &v["written"],
            &v["rejected"],
            &v["errors"],
            &v["left_out"]
        ),
        (
            &(games + 1).into(),
            &games.into(),
            &1.into(),
            &1.into(),
            &0.into()
        ),
        "{}",
        run.describe()
    );
    assert!(std::fs::read(&out).unwrap() == want.stdout);
    // The converting verbs too: the cut game is an error, not written as
    // if whole; the output is that of the games before it.
    for verb in [
        &["normalize"][..],
        &["to-epd"],
        &["eco"],
        &["normalize", "--jobs", "2", "--chunk-bytes", "4096"],
    ] {
        let from_plain = dir.join("plain.out");
        let from_cut = dir.join("cut.out");
        let args = |input: &Path, out: &Path| -> Vec<String> {
            let mut a = vec!["pgn".to_string(), verb[0].to_string()];
            a.extend(verb[1..].iter().map(|w| w.to_string()));
            a.extend([s(input).to_string(), "-o".into(), s(out).to_string()]);
            a
        };
        rookery(&args(&plain, &from_plain), b"").assert_code(0);
        let run = rookery(&args(&cut, &from_cut), b"");
        assert_cut_short(&run, games + 1, &format!("{verb:?}"));
        assert!(
            std::fs::read(&from_cut).unwrap() == std::fs::read(&from_plain).unwrap(),
            "{verb:?}: the output of the games before the cut"
        );
    }
    let stats = |input: &Path| -> serde_json::Value {
        let run = rookery(&["pgn", "stats", "--json", s(input)], b"");
        serde_json::from_slice(&run.stdout).unwrap()
    };
    let (whole, cut_stats) = (stats(&plain), stats(&cut));
    assert_eq!(
        cut_stats["games"],
        serde_json::json!(games + 1),
        "{cut_stats}"
    );
    assert_eq!(cut_stats["errors"], serde_json::json!(1), "{cut_stats}");
    for field in ["moves", "results", "eco"] {
        assert_eq!(cut_stats[field], whole[field], "{field}: {cut_stats}");
    }
    assert_eq!(
        cut_stats["longest"]["plies"], whole["longest"]["plies"],
        "{cut_stats}"
    );
    // pgn eco's counts: those of the whole games, and one error.
    let eco = |input: &Path| -> serde_json::Value {
        let run = rookery(
            &[
                "pgn",
                "eco",
                "--json",
                s(input),
                "-o",
                s(&dir.join("e.pgn")),
            ],
            b"",
        );
        let said = text(&run.stderr);
        let last = said.lines().last().unwrap_or_default().to_string();
        serde_json::from_str(&last).unwrap_or_else(|e| panic!("{e}: {}", run.describe()))
    };
    let (whole, cut_eco) = (eco(&plain), eco(&cut));
    assert_eq!(cut_eco["games"], serde_json::json!(games + 1), "{cut_eco}");
    assert_eq!(cut_eco["errors"], serde_json::json!(1), "{cut_eco}");
    for field in ["named", "kept", "unnamed", "eco"] {
        assert_eq!(cut_eco[field], whole[field], "{field}: {cut_eco}");
    }
    // book build: the cut game's moves are not counted (they were: "0
    // with errors", its moves in the book).
    let book = |input: &Path, name: &str| -> (rookery_testkit::cmd::Run, Vec<u8>) {
        let out = dir.join(name);
        let run = rookery(
            &[
                "book",
                "build",
                "--min-games",
                "1",
                "--json",
                s(input),
                "-o",
                s(&out),
            ],
            b"",
        );
        (run, std::fs::read(&out).unwrap_or_default())
    };
    let (whole_run, whole_book) = book(&plain, "whole.bin");
    whole_run.assert_code(0);
    let (cut_run, cut_book) = book(&cut, "cut.bin");
    assert_cut_short(&cut_run, games + 1, "book build");
    let (w, c): (serde_json::Value, serde_json::Value) = (
        serde_json::from_slice(&whole_run.stdout).unwrap(),
        serde_json::from_slice(&cut_run.stdout).unwrap(),
    );
    assert_eq!(
        (&c["games"], &c["used"], &c["errors"], &c["left_out"]),
        (&(games + 1).into(), &games.into(), &1.into(), &1.into()),
        "{c}"
    );
    assert_eq!(c["positions_counted"], w["positions_counted"], "{c}");
    assert!(cut_book == whole_book, "the book of the whole games");
}

/// A bad CRC is found at the end of the member: every game was read, and
/// the damage is still told.
#[test]
fn a_gz_with_a_bad_crc_is_told_after_its_games() {
    let dir = TempDir::new("compressed-crc");
    let pgn = collection();
    let mut bytes = gzip(&pgn);
    let crc = bytes.len() - 8;
    bytes[crc] ^= 0xa5;
    let file = dir.write("bad.pgn.gz", &bytes);
    let plain = dir.write("good.pgn", &pgn);
    let (want, _) = stats(&[s(&plain)], b"");
    let (got, code) = stats(&[s(&file)], b"");
    assert_eq!(code, 1);
    assert_eq!(got, want);
    let run = rookery(&["pgn", "validate", s(&file)], b"");
    run.assert_code(1);
    run.assert_stderr_contains(&format!(
        "cannot read {}: the gzip data is damaged",
        s(&file)
    ));
}

/// Empty archives are empty inputs; a file named `.zst` holding plain
/// text is read as text.
#[test]
fn empty_archives_and_misnamed_files() {
    let dir = TempDir::new("compressed-empty");
    for (name, bytes) in [
        ("e.pgn.zst", zstd(b"")),
        ("e.pgn.gz", gzip(b"")),
        ("e.pgn.bz2", bzip2(b"", 9)),
        ("e0.pgn.zst", Vec::new()),
    ] {
        let f = dir.write(name, bytes);
        let (got, code) = stats(&[s(&f)], b"");
        assert_eq!(code, 0, "{name}");
        assert_eq!(got["games"], 0, "{name}");
        rookery(&["epd", "validate", s(&f)], b"").assert_code(0);
    }
    let pgn = read("kasparov-deep-blue-1997.pgn");
    let misnamed = dir.write("plain.pgn.zst", &pgn);
    let plain = dir.write("plain.pgn", &pgn);
    assert_eq!(stats(&[s(&misnamed)], b""), stats(&[s(&plain)], b""));
}

/// The peak resident memory (kB, VmHWM) of `rookery ARGS`, watched while it
/// runs; how it ended and what it wrote. Killed after a minute: never a hang.
fn peak_memory(args: &[&str]) -> (u64, std::process::ExitStatus, Vec<u8>) {
    let mut child = Command::new(ROOKERY)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Read on a thread of its own: a full pipe must not stop the child.
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let status_file = format!("/proc/{}/status", child.id());
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut peak = 0;
    let status = loop {
        if let Ok(st) = std::fs::read_to_string(&status_file) {
            if let Some(kb) = st
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rookery {args:?} still running after a minute");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (peak, status, reader.join().unwrap())
}

/// A bzip2 bomb (a few kilobytes that expand to 42 MB of games, 2,000 times
/// their size): every game is counted, and the memory used is that of a
/// small input.
#[test]
fn a_bzip2_bomb_is_read_in_flat_memory() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("note: no /proc; the memory of the bomb is not watched");
        return;
    }
    let dir = TempDir::new("compressed-bomb");
    let game = b"[Event \"b\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n";
    // One bzip2 stream of 20,000 games (one block), then that stream again
    // and again: a multi-stream file.
    let per_stream = 20_000;
    let stream = bzip2(&game.repeat(per_stream), 9);
    let big_streams = 50;
    let small = dir.write("small.pgn.bz2", &stream);
    let big = dir.write("big.pgn.bz2", stream.repeat(big_streams));
    let big_text = (per_stream * big_streams * game.len()) as u64;
    let big_len = std::fs::metadata(&big).unwrap().len();
    assert!(big_len * 1000 < big_text, "{big_len} bytes is no bomb");
    let (small_peak, st, _) = peak_memory(&["pgn", "stats", "--json", s(&small)]);
    assert!(st.success(), "{st}");
    let (big_peak, st, out) = peak_memory(&["pgn", "stats", "--json", s(&big)]);
    assert!(st.success(), "{st}");
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["games"], per_stream * big_streams);
    assert_eq!(v["errors"], 0);
    // 41 MB of text more than the small one (one stream); flat memory
    // holds a few chunks of it at a time.
    assert!(
        big_peak < small_peak + 16 * 1024,
        "peak {big_peak} kB for the bomb, {small_peak} kB for a small input"
    );
}

/// `run` failed (exit status 1) saying that game `game` was cut short by
/// the damage in the compressed data; `what` names the run in a failure.
fn assert_cut_short(run: &rookery_testkit::cmd::Run, game: u64, what: &str) {
    run.assert_code(1);
    assert!(
        text(&run.stderr).contains(&format!(
            "error: game {game}: cut short by the damage in the compressed data"
        )),
        "{what}: {}",
        run.describe()
    );
}
