//! What a shard says about its part (`OUT.shard-K-of-N.json`, beside the
//! part `OUT.shard-K-of-N`), and the checks `rookery merge` makes before
//! it puts the parts together.
//!
//! A [`Manifest`] names the verb and the arguments that decide the output,
//! the input (its name, size, and a [`Fingerprint`] of its bytes), the
//! shard, the items of its part, how many are done, whether the part is
//! finished, and the verb's summary numbers (so that the merge prints the
//! summary one run prints). It is written atomically (a partial file
//! renamed over it) when the shard starts, now and then while it runs,
//! and when it is done.
//!
//! [`gather`] finds every part of an output and refuses — naming the
//! files — parts of a different N, two parts claiming the same shard, a
//! part of another command or input, a part without manifest, a part that
//! is not done, and a missing shard: a merge writes nothing then.
//!
//! ```
//! use rookery_io::manifest::{gather, Fingerprint, Manifest, State};
//! use rookery_io::shard::Shard;
//!
//! let dir = std::env::temp_dir().join(format!("rookery-manifest-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let out = dir.join("out.epd");
//! let input = Fingerprint { size: 4, head_crc32: 1, tail_crc32: 1 };
//! for k in 0..2 {
//!     let shard = Shard::new(k, 2)?;
//!     let mut m = Manifest::new("epd normalize", vec![], "in.epd", input, shard, "lines", 4);
//!     std::fs::write(shard.part_path(&out), "x\ny\n")?;
//!     m.finish(4, serde_json::Value::Null);
//!     m.write(&shard.part_path(&out))?;
//! }
//! let parts = gather(&out)?;
//! assert_eq!(parts.len(), 2);
//! assert_eq!(parts[1].manifest.state, State::Done);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::shard::Shard;

/// The `format` of a manifest this version writes and reads.
pub const FORMAT: &str = "rookery-shard/1";

/// Bytes at each end of the input that the [`Fingerprint`] hashes.
pub const FINGERPRINT_BYTES: u64 = 1 << 20;

/// Which input a shard read: its size in bytes and the CRC-32 of its
/// first and its last MiB ([`FINGERPRINT_BYTES`]), as stored (compressed
/// for a compressed file). Two reads of 2 MiB at most, whatever the size:
/// each of a thousand shards pays it, where hashing every byte would read
/// the whole input once more on every task. It tells another file (or one
/// changed at either end or in length) from the same; a change in the
/// middle that keeps the size is not seen, though the shards also agree
/// on the number of items counted over the whole input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Size in bytes.
    pub size: u64,
    /// CRC-32 of the first MiB (all of a smaller file).
    pub head_crc32: u32,
    /// CRC-32 of the last MiB (all of a smaller file).
    pub tail_crc32: u32,
}

impl Fingerprint {
    /// The fingerprint of the file at `path`.
    ///
    /// # Errors
    /// I/O errors opening or reading it.
    pub fn of_file(path: &Path) -> io::Result<Fingerprint> {
        let mut file = fs::File::open(path)?;
        let size = file.metadata()?.len();
        let mut crc = |from: u64| -> io::Result<u32> {
            file.seek(SeekFrom::Start(from))?;
            crc32_of((&mut file).take(FINGERPRINT_BYTES))
        };
        let head_crc32 = crc(0)?;
        let tail_crc32 = crc(size.saturating_sub(FINGERPRINT_BYTES))?;
        Ok(Fingerprint {
            size,
            head_crc32,
            tail_crc32,
        })
    }
}

/// The CRC-32 (IEEE, as zlib, gzip and fastchess's `-crc32` compute it) of
/// everything `reader` gives.
///
/// # Errors
/// I/O errors reading it.
pub fn crc32_of(mut reader: impl Read) -> io::Result<u32> {
    let mut c = flate2::Crc::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok(c.sum()),
            Ok(n) => c.update(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Whether a shard is still at work or finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Started, not finished (or killed).
    Running,
    /// Its part is complete.
    Done,
}

/// What a shard writes beside its part (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: String,
    /// The verb (`epd analyse`, `pgn to-epd`...).
    pub verb: String,
    /// The arguments that decide the output, as given (no shard, jobs or
    /// resume flags: those do not change the output).
    pub args: Vec<String>,
    /// The input's name, as given.
    pub input: String,
    /// Which input it is.
    pub fingerprint: Fingerprint,
    /// K, from 1.
    pub k: u32,
    /// N.
    pub n: u32,
    /// What the items are (`lines`, `games`).
    pub items: String,
    /// Items of the whole input.
    pub total: u64,
    /// The first item of the part (from 0).
    pub first: u64,
    /// Items in the part.
    pub count: u64,
    /// Items of the part done.
    pub done: u64,
    /// Running or done.
    pub state: State,
    /// Bytes of the finished part (to see a part changed afterwards).
    pub bytes: Option<u64>,
    /// The verb's summary numbers for its part.
    pub summary: serde_json::Value,
}

impl Manifest {
    /// The manifest of a shard that starts on its part: of `total` items,
    /// [`Shard::part`] of them.
    pub fn new(
        verb: &str,
        args: Vec<String>,
        input: &str,
        fingerprint: Fingerprint,
        shard: Shard,
        items: &str,
        total: u64,
    ) -> Manifest {
        let part = shard.part(total);
        Manifest {
            format: FORMAT.to_owned(),
            verb: verb.to_owned(),
            args,
            input: input.to_owned(),
            fingerprint,
            k: shard.number(),
            n: shard.count(),
            items: items.to_owned(),
            total,
            first: part.start,
            count: part.end - part.start,
            done: 0,
            state: State::Running,
            bytes: None,
            summary: serde_json::Value::Null,
        }
    }

    /// The shard it claims to be (`None` for impossible numbers).
    pub fn shard(&self) -> Option<Shard> {
        self.k
            .checked_sub(1)
            .and_then(|i| Shard::new(i, self.n).ok())
    }

    /// Marks the part done, `bytes` long, with the verb's summary.
    pub fn finish(&mut self, bytes: u64, summary: serde_json::Value) {
        self.state = State::Done;
        self.done = self.count;
        self.bytes = Some(bytes);
        self.summary = summary;
    }

    /// Where the manifest of the part at `part` lies: `PART.json`.
    pub fn path(part: &Path) -> PathBuf {
        let mut name = part.as_os_str().to_os_string();
        name.push(".json");
        PathBuf::from(name)
    }

    /// Writes the manifest of the part at `part` (atomically: a partial
    /// file renamed over the old one).
    ///
    /// # Errors
    /// I/O errors.
    pub fn write(&self, part: &Path) -> Result<(), crate::output::OutputError> {
        let mut text = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        text.push(b'\n');
        crate::output::write_whole(&Self::path(part), &text)
    }

    /// Reads the manifest of the part at `part`.
    ///
    /// # Errors
    /// [`MergeError::NoManifest`], [`MergeError::BadManifest`].
    pub fn read(part: &Path) -> Result<Manifest, MergeError> {
        let path = Self::path(part);
        let text = fs::read(&path).map_err(|source| MergeError::NoManifest {
            part: part.to_path_buf(),
            source,
        })?;
        let m: Manifest = serde_json::from_slice(&text).map_err(|e| MergeError::BadManifest {
            path: path.clone(),
            why: e.to_string(),
        })?;
        if m.format != FORMAT {
            return Err(MergeError::BadManifest {
                path,
                why: format!("format {:?}, not {FORMAT:?}", m.format),
            });
        }
        Ok(m)
    }

    /// What must be the same in every shard of one job.
    fn job(&self) -> (String, &[String], Fingerprint, &str, u64, u32) {
        (
            self.verb.clone(),
            &self.args,
            self.fingerprint,
            &self.items,
            self.total,
            self.n,
        )
    }
}

/// Why the parts of an output cannot be merged. Every variant names the
/// files.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No part of the output is there.
    #[error("no shard parts of {} found (looked for {}.shard-K-of-N)", .out.display(), .out.display())]
    NoParts {
        /// The output.
        out: PathBuf,
    },
    /// The directory cannot be listed.
    #[error("cannot list {}: {source}", .dir.display())]
    List {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Parts made with different N.
    #[error("parts of different shard counts: {} (the others are of {expected})", list(.parts))]
    MixedCount {
        /// The parts whose N is not that of most parts.
        parts: Vec<PathBuf>,
        /// The N of most parts.
        expected: u32,
    },
    /// A part without its manifest.
    #[error("{} has no manifest {}: {source}", .part.display(), Manifest::path(.part).display())]
    NoManifest {
        /// The part.
        part: PathBuf,
        /// Why it cannot be read.
        source: io::Error,
    },
    /// A manifest that cannot be read.
    #[error("{}: not a shard manifest ({why})", .path.display())]
    BadManifest {
        /// The manifest.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A part whose manifest claims another shard than its name (a copied
    /// or renamed file): two parts would claim the same K.
    #[error("{} is named shard {named} but its manifest says shard {claims}: a copied or renamed part", .part.display())]
    Misnamed {
        /// The part.
        part: PathBuf,
        /// The shard its name says.
        named: Shard,
        /// The shard its manifest says (`K/N`).
        claims: String,
    },
    /// Parts of another command or input than most parts.
    #[error("{} not of the same job as the others ({why})", list(.parts))]
    Foreign {
        /// The parts.
        parts: Vec<PathBuf>,
        /// What differs.
        why: String,
    },
    /// Shards missing.
    #[error("shards missing: {} (each task of the job writes one; run the missing ones)", list(.parts))]
    Missing {
        /// The parts not there.
        parts: Vec<PathBuf>,
    },
    /// Parts not finished.
    #[error("shards not done: {} (run them, with --resume to continue a killed one)", .parts.iter().map(|(p, d, c)| format!("{} ({d} of {c})", p.display())).collect::<Vec<_>>().join(", "))]
    Incomplete {
        /// The parts, with items done and items of the part.
        parts: Vec<(PathBuf, u64, u64)>,
    },
    /// A finished part of another size than its manifest says.
    #[error("{} is {actual} bytes, its manifest says {expected}: changed after its shard finished", .part.display())]
    Changed {
        /// The part.
        part: PathBuf,
        /// Bytes now.
        actual: u64,
        /// Bytes the manifest says.
        expected: u64,
    },
}

impl MergeError {
    /// Whether the parts were refused (rather than unreadable).
    pub fn is_refusal(&self) -> bool {
        !matches!(self, MergeError::List { .. })
    }
}

fn list(parts: &[PathBuf]) -> String {
    parts
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A part found beside an output.
#[derive(Clone, Debug)]
pub struct Part {
    /// Its path.
    pub path: PathBuf,
    /// Its shard, as its name says.
    pub shard: Shard,
    /// Its manifest.
    pub manifest: Manifest,
}

/// The parts beside `out` (`OUT.shard-K-of-N`), each with its manifest,
/// in order of K, whatever their state.
///
/// # Errors
/// As [`gather`], but for parts not done or missing.
pub fn find(out: &Path) -> Result<Vec<Part>, MergeError> {
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!("{name}.shard-");
    let entries = fs::read_dir(&dir).map_err(|source| MergeError::List {
        dir: dir.clone(),
        source,
    })?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| MergeError::List {
            dir: dir.clone(),
            source,
        })?;
        let file = entry.file_name();
        let Some(file) = file.to_str() else { continue };
        if !file.starts_with(&prefix) || file.ends_with(".json") {
            continue;
        }
        let path = out.with_file_name(file);
        if let Some((_, shard)) = Shard::of_part_path(&path) {
            found.push((path, shard));
        }
    }
    if found.is_empty() {
        return Err(MergeError::NoParts {
            out: out.to_path_buf(),
        });
    }
    found.sort_by_key(|(p, s)| (s.count(), s.index(), p.clone()));
    // One N: that of most parts.
    let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
    for (_, s) in &found {
        *counts.entry(s.count()).or_default() += 1;
    }
    let expected = counts
        .iter()
        .max_by_key(|(n, c)| (**c, std::cmp::Reverse(**n)))
        .map_or(1, |(n, _)| *n);
    let odd: Vec<PathBuf> = found
        .iter()
        .filter(|(_, s)| s.count() != expected)
        .map(|(p, _)| p.clone())
        .collect();
    if !odd.is_empty() {
        return Err(MergeError::MixedCount {
            parts: odd,
            expected,
        });
    }
    let mut parts = Vec::new();
    for (path, shard) in found {
        let manifest = Manifest::read(&path)?;
        if manifest.shard() != Some(shard) {
            return Err(MergeError::Misnamed {
                part: path,
                named: shard,
                claims: format!("{}/{}", manifest.k, manifest.n),
            });
        }
        parts.push(Part {
            path,
            shard,
            manifest,
        });
    }
    // One job: that of most parts.
    let mut jobs: Vec<(usize, usize)> = Vec::new(); // (first part of the job, parts)
    for (i, p) in parts.iter().enumerate() {
        match jobs
            .iter_mut()
            .find(|(j, _)| parts[*j].manifest.job() == p.manifest.job())
        {
            Some((_, c)) => *c += 1,
            None => jobs.push((i, 1)),
        }
    }
    if jobs.len() > 1 {
        let (main, _) = *jobs
            .iter()
            .max_by_key(|(j, c)| (*c, std::cmp::Reverse(*j)))
            .unwrap_or(&(0, 0));
        let m = &parts[main].manifest;
        let odd: Vec<&Part> = parts
            .iter()
            .filter(|p| p.manifest.job() != m.job())
            .collect();
        let o = &odd[0].manifest;
        let why = if o.fingerprint != m.fingerprint || o.total != m.total {
            format!(
                "another input: {} ({} bytes, {} {}) against {} ({} bytes, {} {})",
                o.input,
                o.fingerprint.size,
                o.total,
                o.items,
                m.input,
                m.fingerprint.size,
                m.total,
                m.items
            )
        } else if o.verb != m.verb {
            format!("another verb: {} against {}", o.verb, m.verb)
        } else {
            format!(
                "other arguments: {} against {}",
                o.args.join(" "),
                m.args.join(" ")
            )
        };
        return Err(MergeError::Foreign {
            parts: odd.iter().map(|p| p.path.clone()).collect(),
            why,
        });
    }
    // A part whose range is not its shard's.
    for p in &parts {
        let want = p.shard.part(p.manifest.total);
        if p.manifest.first != want.start || p.manifest.count != want.end - want.start {
            return Err(MergeError::BadManifest {
                path: Manifest::path(&p.path),
                why: format!(
                    "items {}..{} are not shard {}'s part {}..{} of {}",
                    p.manifest.first,
                    p.manifest.first + p.manifest.count,
                    p.shard,
                    want.start,
                    want.end,
                    p.manifest.total
                ),
            });
        }
    }
    Ok(parts)
}

/// The parts of `out`, all N of them, all done and of one job, in order
/// (see the module documentation): what a merge puts together.
///
/// # Errors
/// A [`MergeError`] naming the files when the parts are not all there,
/// not all done, or not all of one job.
pub fn gather(out: &Path) -> Result<Vec<Part>, MergeError> {
    let parts = find(out)?;
    let n = parts[0].shard.count();
    let missing: Vec<PathBuf> = (0..n)
        .filter(|i| !parts.iter().any(|p| p.shard.index() == *i))
        .filter_map(|i| Shard::new(i, n).ok())
        .map(|s| s.part_path(out))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing { parts: missing });
    }
    let running: Vec<(PathBuf, u64, u64)> = parts
        .iter()
        .filter(|p| p.manifest.state != State::Done)
        .map(|p| (p.path.clone(), p.manifest.done, p.manifest.count))
        .collect();
    if !running.is_empty() {
        return Err(MergeError::Incomplete { parts: running });
    }
    for p in &parts {
        let actual = fs::metadata(&p.path).map(|m| m.len()).unwrap_or(0);
        if Some(actual) != p.manifest.bytes {
            return Err(MergeError::Changed {
                part: p.path.clone(),
                actual,
                expected: p.manifest.bytes.unwrap_or(0),
            });
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check value of CRC-32/ISO-HDLC: "123456789" is 0xCBF43926; in
    /// pieces smaller than the buffer as in one.
    #[test]
    fn crc32_of_the_check_string() {
        assert_eq!(crc32_of(&b"123456789"[..]).unwrap(), 0xCBF4_3926);
        assert_eq!(crc32_of(&b""[..]).unwrap(), 0);
        let long = vec![b'x'; 200_000];
        let chained = (&long[..100_001]).chain(&long[100_001..]);
        assert_eq!(crc32_of(chained).unwrap(), crc32_of(&long[..]).unwrap());
    }

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("rookery-manifest-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn part(out: &Path, k: u32, n: u32, size: u64, done: bool) {
        let shard = Shard::new(k - 1, n).unwrap();
        let fp = Fingerprint {
            size,
            head_crc32: 7,
            tail_crc32: 7,
        };
        let mut m = Manifest::new(
            "epd normalize",
            vec!["x".into()],
            "in",
            fp,
            shard,
            "lines",
            10,
        );
        fs::write(shard.part_path(out), "ab\n").unwrap();
        if done {
            m.finish(3, serde_json::Value::Null);
        }
        m.write(&shard.part_path(out)).unwrap();
    }

    #[test]
    fn refusals_name_the_files() {
        let d = dir("refusals");
        let out = d.join("o.epd");
        assert!(matches!(gather(&out), Err(MergeError::NoParts { .. })));
        part(&out, 1, 3, 5, true);
        part(&out, 3, 3, 5, false);
        let e = gather(&out).unwrap_err();
        assert!(e.to_string().contains("o.epd.shard-2-of-3"), "{e}");
        part(&out, 2, 3, 5, true);
        let e = gather(&out).unwrap_err();
        assert!(matches!(e, MergeError::Incomplete { .. }), "{e}");
        assert!(e.to_string().contains("o.epd.shard-3-of-3 (0 of"), "{e}");
        part(&out, 3, 3, 5, true);
        assert_eq!(gather(&out).unwrap().len(), 3);
        // Another input.
        part(&out, 2, 3, 6, true);
        let e = gather(&out).unwrap_err();
        assert!(matches!(e, MergeError::Foreign { .. }), "{e}");
        assert!(e.to_string().contains("o.epd.shard-2-of-3 "), "{e}");
        part(&out, 2, 3, 5, true);
        // A part of another N.
        part(&out, 1, 4, 5, true);
        let e = gather(&out).unwrap_err();
        assert!(e.to_string().contains("o.epd.shard-1-of-4"), "{e}");
        fs::remove_file(d.join("o.epd.shard-1-of-4")).unwrap();
        // A copied part: named 3, claims 2.
        fs::copy(
            d.join("o.epd.shard-2-of-3.json"),
            d.join("o.epd.shard-3-of-3.json"),
        )
        .unwrap();
        let e = gather(&out).unwrap_err();
        assert!(matches!(e, MergeError::Misnamed { .. }), "{e}");
        assert!(e.to_string().contains("o.epd.shard-3-of-3"), "{e}");
        fs::remove_dir_all(&d).unwrap();
    }
}
