//! Which part of a job this task does: shard K of N (`--shard K/N`), given
//! on the command line or read from the scheduler that started the task.
//!
//! A [`Shard`] is numbered from 1 on the command line and in messages
//! (`--shard 1/3` .. `--shard 3/3`); [`Shard::index`] is the same number
//! from 0. The part of a job a shard does is [`Shard::part`] of its items:
//! a contiguous run, so that the shards' outputs put one after the other
//! in shard order are the items in input order, and balanced (the parts
//! differ by at most one item).
//!
//! Under a scheduler `--shard auto` (or no flag at all, where the verb
//! says so; `--shard none` then does the whole job) takes the numbers
//! from the environment ([`Shard::from_env`]):
//! - a Slurm job array: `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN`,
//!   `SLURM_ARRAY_TASK_COUNT` (and `SLURM_ARRAY_TASK_STEP` when the array
//!   has one: `--array=0-30:10` is 4 tasks);
//! - a Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (from 0), with the
//!   count from `--shards N` or from [`SHARDS_VAR`], which the manifest
//!   sets (Kubernetes does not tell a pod how many there are).
//!
//! ```
//! use rookery_io::shard::Shard;
//!
//! let shard: Shard = "2/3".parse()?;
//! assert_eq!((shard.index(), shard.count()), (1, 3));
//! assert_eq!(shard.to_string(), "2/3");
//! // 10 records: 3, 3 and 4 of them, in order.
//! assert_eq!(shard.part(10), 3..6);
//!
//! // Task 5 of a Slurm array --array=4-6.
//! let env = |name: &str| match name {
//!     "SLURM_ARRAY_TASK_ID" => Some("5".to_string()),
//!     "SLURM_ARRAY_TASK_MIN" => Some("4".to_string()),
//!     "SLURM_ARRAY_TASK_COUNT" => Some("3".to_string()),
//!     _ => None,
//! };
//! assert_eq!(Shard::from_env(env, None)?, Some(shard));
//! # Ok::<(), rookery_io::shard::ShardError>(())
//! ```

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The variable a Kubernetes manifest sets to the number of shards (the
/// Indexed Job's `completions`), read when `--shards` is not given.
pub const SHARDS_VAR: &str = "ROOKERY_SHARDS";

/// Shard `index + 1` of `count`: the part of a job one task does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    index: u32,
    count: u32,
}

/// A shard that cannot be: a malformed `K/N`, K outside 1..=N, or a
/// scheduler's environment that does not say which task this is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not of the form `K/N` with two whole numbers.
    #[error(
        "bad shard {text:?}: expected K/N, shard K of N counted from 1 (as 1/4 .. 4/4), auto or none"
    )]
    Syntax {
        /// The text given.
        text: String,
    },
    /// N is 0, or K is not in 1..=N.
    #[error("bad shard {k}/{n}: K counts from 1 to N (1/{n} .. {n}/{n}), and N is at least 1")]
    OutOfRange {
        /// K as given (from 1).
        k: u64,
        /// N as given.
        n: u64,
    },
    /// A variable of the scheduler is not a whole number (or not there
    /// when another of its variables is).
    #[error("bad scheduler environment for a shard: {name}={value:?} ({why})")]
    Environment {
        /// The variable.
        name: &'static str,
        /// Its value (empty when unset).
        value: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// `--shard auto` where no scheduler says which task this is.
    #[error(
        "--shard auto: no scheduler's shard in the environment (neither SLURM_ARRAY_TASK_ID of a \
         Slurm job array nor JOB_COMPLETION_INDEX of a Kubernetes Indexed Job)"
    )]
    NoScheduler,
}

impl Shard {
    /// Shard `index + 1` of `count` (`index` from 0).
    ///
    /// # Errors
    /// [`ShardError::OutOfRange`] unless `index < count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if index >= count {
            return Err(ShardError::OutOfRange {
                k: u64::from(index) + 1,
                n: u64::from(count),
            });
        }
        Ok(Shard { index, count })
    }

    /// The whole job as one shard (`1/1`).
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// This shard's number from 0 (`K - 1`).
    pub fn index(self) -> u32 {
        self.index
    }

    /// This shard's number from 1 (`K`), as the command line and messages
    /// give it.
    pub fn number(self) -> u32 {
        self.index + 1
    }

    /// How many shards the job has (`N`).
    pub fn count(self) -> u32 {
        self.count
    }

    /// Whether this is the whole job (`N = 1`).
    pub fn is_whole(self) -> bool {
        self.count == 1
    }

    /// The items this shard does of `total` items numbered from 0: a
    /// contiguous run, the runs of shards 1..=N one after the other cover
    /// `0..total` exactly once, and two runs differ in length by at most
    /// one.
    pub fn part(self, total: u64) -> Range<u64> {
        let at = |i: u32| -> u64 {
            // total * i / count without overflow: u128 holds the product.
            ((u128::from(total) * u128::from(i)) / u128::from(self.count)) as u64
        };
        at(self.index)..at(self.index + 1)
    }

    /// Whether item `i` of `total` is this shard's (as [`Shard::part`]).
    pub fn owns(self, i: u64, total: u64) -> bool {
        self.part(total).contains(&i)
    }

    /// Where this shard writes the part of output `out`: `OUT.shard-K-of-N`
    /// beside it (every task of a job array runs the same command line;
    /// the merge finds the parts by this name).
    pub fn part_path(self, out: &Path) -> PathBuf {
        let mut name = out.as_os_str().to_os_string();
        name.push(format!(".shard-{}-of-{}", self.number(), self.count));
        PathBuf::from(name)
    }

    /// The output and shard a part's path names ([`Shard::part_path`]
    /// read back): `None` for a path that is no part's.
    pub fn of_part_path(path: &Path) -> Option<(PathBuf, Shard)> {
        let text = path.to_str()?;
        let (out, tail) = text.rsplit_once(".shard-")?;
        let (k, n) = tail.split_once("-of-")?;
        if out.is_empty() || !k.bytes().chain(n.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let shard = format!("{k}/{n}").parse().ok()?;
        Some((PathBuf::from(out), shard))
    }

    /// The shard a scheduler gave this task, read through `var` (as
    /// `std::env::var(name).ok()`): a Slurm job array's task, or a
    /// Kubernetes Indexed Job's pod with `count` (from `--shards`) or
    /// [`SHARDS_VAR`] for the number of shards. `None` when no scheduler
    /// says (not under one, or a Slurm job that is not an array).
    ///
    /// # Errors
    /// [`ShardError::Environment`] when a variable is there but not a
    /// number, or the Kubernetes count is missing;
    /// [`ShardError::OutOfRange`] when the numbers do not make a shard.
    pub fn from_env(
        var: impl Fn(&str) -> Option<String>,
        count: Option<u32>,
    ) -> Result<Option<Shard>, ShardError> {
        let number = |name: &'static str| -> Result<Option<u64>, ShardError> {
            match var(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|_| ShardError::Environment {
                        name,
                        value: v,
                        why: "not a whole number",
                    }),
            }
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            let n = match count {
                Some(n) => u64::from(n),
                None => number("SLURM_ARRAY_TASK_COUNT")?.ok_or(ShardError::Environment {
                    name: "SLURM_ARRAY_TASK_COUNT",
                    value: String::new(),
                    why: "unset in a job array (Slurm older than 17.11?); give --shards N",
                })?,
            };
            let offset = id.checked_sub(min).ok_or(ShardError::Environment {
                name: "SLURM_ARRAY_TASK_ID",
                value: id.to_string(),
                why: "below SLURM_ARRAY_TASK_MIN",
            })?;
            if offset % step != 0 {
                return Err(ShardError::Environment {
                    name: "SLURM_ARRAY_TASK_ID",
                    value: id.to_string(),
                    why: "not on the array's step from its first task",
                });
            }
            return Self::checked(offset / step, n).map(Some);
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let n = match count {
                Some(n) => u64::from(n),
                None => number(SHARDS_VAR)?.ok_or(ShardError::Environment {
                    name: SHARDS_VAR,
                    value: String::new(),
                    why: "unset: a Kubernetes Indexed Job does not tell its pods how many there \
                          are; set it to the Job's completions in the manifest, or give --shards N",
                })?,
            };
            return Self::checked(index, n).map(Some);
        }
        Ok(None)
    }

    /// As [`Shard::from_env`] on this process's environment, for
    /// `--shard auto`: an error when no scheduler says.
    ///
    /// # Errors
    /// As [`Shard::from_env`], and [`ShardError::NoScheduler`].
    pub fn auto(count: Option<u32>) -> Result<Shard, ShardError> {
        Self::from_env(|name| std::env::var(name).ok(), count)?.ok_or(ShardError::NoScheduler)
    }

    /// Shard `index + 1` of `n`, from numbers that may be out of range.
    fn checked(index: u64, n: u64) -> Result<Shard, ShardError> {
        let out = ShardError::OutOfRange { k: index + 1, n };
        let count = u32::try_from(n).map_err(|_| out.clone())?;
        let index = u32::try_from(index).map_err(|_| out)?;
        Shard::new(index, count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.number(), self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// `K/N`, K counted from 1 (`auto` is not a shard: see
    /// [`ShardChoice`]).
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax {
            text: s.to_string(),
        };
        let (k, n) = s.trim().split_once('/').ok_or_else(syntax)?;
        let k: u64 = k.trim().parse().map_err(|_| syntax())?;
        let n: u64 = n.trim().parse().map_err(|_| syntax())?;
        if k == 0 {
            return Err(ShardError::OutOfRange { k, n });
        }
        Shard::checked(k - 1, n)
    }
}

/// What `--shard` says: a shard, `auto` (the scheduler's), or `none`
/// (the whole job, even under a scheduler).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardChoice {
    /// `K/N`.
    Given(Shard),
    /// `auto`: from the environment ([`Shard::auto`]).
    Auto,
    /// `none`: the whole job, whatever the environment says.
    Whole,
}

impl ShardChoice {
    /// The shard this choice means, `count` being `--shards N` if given:
    /// `None` for [`ShardChoice::Whole`].
    ///
    /// # Errors
    /// As [`Shard::auto`] for `auto`.
    pub fn resolve(self, count: Option<u32>) -> Result<Option<Shard>, ShardError> {
        match self {
            ShardChoice::Given(shard) => Ok(Some(shard)),
            ShardChoice::Auto => Shard::auto(count).map(Some),
            ShardChoice::Whole => Ok(None),
        }
    }
}

impl FromStr for ShardChoice {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<ShardChoice, ShardError> {
        if s.trim().eq_ignore_ascii_case("auto") {
            Ok(ShardChoice::Auto)
        } else if s.trim().eq_ignore_ascii_case("none") {
            Ok(ShardChoice::Whole)
        } else {
            s.parse().map(ShardChoice::Given)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn parses_and_prints_from_one() {
        let s: Shard = "3/7".parse().unwrap();
        assert_eq!((s.index(), s.number(), s.count()), (2, 3, 7));
        assert_eq!(s.to_string(), "3/7");
        assert!(matches!(
            "0/3".parse::<Shard>(),
            Err(ShardError::OutOfRange { k: 0, n: 3 })
        ));
        assert!(matches!(
            "4/3".parse::<Shard>(),
            Err(ShardError::OutOfRange { k: 4, n: 3 })
        ));
        assert!(matches!(
            "1/0".parse::<Shard>(),
            Err(ShardError::OutOfRange { .. })
        ));
        for bad in ["", "3", "a/b", "1/2/3", "-1/3", "1/"] {
            assert!(
                matches!(bad.parse::<Shard>(), Err(ShardError::Syntax { .. })),
                "{bad}"
            );
        }
        assert_eq!("AUTO".parse::<ShardChoice>().unwrap(), ShardChoice::Auto);
        assert_eq!(
            "1/1".parse::<ShardChoice>().unwrap(),
            ShardChoice::Given(Shard::WHOLE)
        );
    }

    #[test]
    fn slurm_arrays_with_offsets_and_steps() {
        let e = env(&[
            ("SLURM_ARRAY_TASK_ID", "20"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "10"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            Shard::from_env(e, None).unwrap(),
            Some(Shard::new(2, 4).unwrap())
        );
        let off_step = env(&[
            ("SLURM_ARRAY_TASK_ID", "25"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "10"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(Shard::from_env(off_step, None).is_err());
        let no_count = env(&[("SLURM_ARRAY_TASK_ID", "1")]);
        assert!(matches!(
            Shard::from_env(&no_count, None),
            Err(ShardError::Environment {
                name: "SLURM_ARRAY_TASK_COUNT",
                ..
            })
        ));
        assert_eq!(
            Shard::from_env(&no_count, Some(2)).unwrap(),
            Some(Shard::new(1, 2).unwrap())
        );
        let beyond = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert!(matches!(
            Shard::from_env(beyond, None),
            Err(ShardError::OutOfRange { k: 4, n: 3 })
        ));
        let junk = env(&[("SLURM_ARRAY_TASK_ID", "x")]);
        assert!(matches!(
            Shard::from_env(junk, None),
            Err(ShardError::Environment { .. })
        ));
        // A Slurm job that is not an array, and no scheduler at all.
        assert_eq!(
            Shard::from_env(env(&[("SLURM_JOB_ID", "7")]), None).unwrap(),
            None
        );
    }

    #[test]
    fn kubernetes_needs_the_count() {
        let pod = env(&[("JOB_COMPLETION_INDEX", "0")]);
        assert!(matches!(
            Shard::from_env(&pod, None),
            Err(ShardError::Environment {
                name: SHARDS_VAR,
                ..
            })
        ));
        assert_eq!(
            Shard::from_env(&pod, Some(5)).unwrap(),
            Some(Shard::new(0, 5).unwrap())
        );
        let counted = env(&[("JOB_COMPLETION_INDEX", "4"), (SHARDS_VAR, "5")]);
        assert_eq!(
            Shard::from_env(counted, None).unwrap(),
            Some(Shard::new(4, 5).unwrap())
        );
    }

    #[test]
    fn part_paths_read_back() {
        let s = Shard::new(1, 12).unwrap();
        let part = s.part_path(Path::new("out/analysed.epd"));
        assert_eq!(part, Path::new("out/analysed.epd.shard-2-of-12"));
        assert_eq!(
            Shard::of_part_path(&part),
            Some((PathBuf::from("out/analysed.epd"), s))
        );
        for not in [
            "a.epd",
            "a.epd.shard-0-of-2",
            "a.shard-1-of-x",
            ".shard-1-of-2",
            "a.shard-+1-of-2",
        ] {
            assert_eq!(Shard::of_part_path(Path::new(not)), None, "{not}");
        }
    }

    proptest! {
        #[test]
        fn parts_cover_every_item_once_in_order(total in 0u64..10_000, n in 1u32..64) {
            let mut next = 0;
            for k in 0..n {
                let part = Shard::new(k, n).unwrap().part(total);
                prop_assert_eq!(part.start, next);
                let len = part.end - part.start;
                prop_assert!(len == total / u64::from(n) || len == total / u64::from(n) + 1);
                next = part.end;
            }
            prop_assert_eq!(next, total);
        }

        #[test]
        fn huge_totals_do_not_overflow(total in u64::MAX - 1000..=u64::MAX, n in 1u32..=u32::MAX) {
            let last = Shard::new(n - 1, n).unwrap().part(total);
            prop_assert_eq!(last.end, total);
        }
    }
}
