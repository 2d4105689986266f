//! Snapshot tests: a text checked against a file kept in the repository.
//!
//! [`assert_snapshot`] compares with `DIR/NAME.snap` and fails with a line
//! diff when they differ. To accept new output, run the tests with
//! `UPDATE_SNAPSHOTS=1` (the files are rewritten, the tests pass), then
//! review the change with `git diff` like any other. A missing snapshot
//! fails too (it is written only under `UPDATE_SNAPSHOTS`), so a test can
//! never pass by writing its own expectation unseen.
//!
//! [`json_shape`] turns a JSON document into its shape (keys kept, values
//! replaced by their type), for snapshots of `--json` output whose numbers
//! (times, node counts) change from run to run.

use crate::cmd::assert_text_eq;
use std::path::Path;

/// The environment variable that turns checks into rewrites.
pub const UPDATE_VAR: &str = "UPDATE_SNAPSHOTS";

/// Checks `actual` against the snapshot `dir/name.snap`.
///
/// # Panics
/// If they differ (with a line diff) or the snapshot is missing, unless
/// [`UPDATE_VAR`] is set, in which case the snapshot is (re)written.
#[track_caller]
pub fn assert_snapshot(dir: &Path, name: &str, actual: &str) {
    let path = dir.join(format!("{name}.snap"));
    if std::env::var_os(UPDATE_VAR).is_some_and(|v| !v.is_empty() && v != "0") {
        let old = std::fs::read_to_string(&path).ok();
        if old.as_deref() != Some(actual) {
            std::fs::create_dir_all(dir)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
            std::fs::write(&path, actual)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            eprintln!("note: snapshot {} written", path.display());
        }
        return;
    }
    let Ok(expected) = std::fs::read_to_string(&path) else {
        panic!(
            "snapshot {} is missing: run the test with {UPDATE_VAR}=1 to write it, then review it\n\
             --- actual ---\n{actual}",
            path.display()
        );
    };
    assert_text_eq(
        &expected,
        actual,
        &format!(
            "snapshot {} ({UPDATE_VAR}=1 accepts the new output)",
            path.display()
        ),
    );
}

/// The shape of a JSON document, pretty-printed: objects keep their keys
/// (sorted), arrays show the shapes of their elements once each (in the
/// order first seen), and every value becomes its type: `"<string>"`,
/// `"<number>"`, `"<bool>"`, `null`.
pub fn json_shape(value: &serde_json::Value) -> String {
    let shaped = shape(value);
    serde_json::to_string_pretty(&shaped).unwrap_or_default() + "\n"
}

/// The shape of each line of a JSON Lines text, one shape per distinct
/// line shape, in the order first seen (invalid lines as `"<not JSON>"`).
pub fn json_lines_shape(text: &str) -> String {
    let mut seen: Vec<serde_json::Value> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let s = serde_json::from_str::<serde_json::Value>(line)
            .map_or_else(|_| serde_json::Value::from("<not JSON>"), |v| shape(&v));
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    seen.iter()
        .map(|v| serde_json::to_string(v).unwrap_or_default() + "\n")
        .collect()
}

fn shape(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Null => Value::Null,
        Value::Bool(_) => Value::from("<bool>"),
        Value::Number(_) => Value::from("<number>"),
        Value::String(_) => Value::from("<string>"),
        Value::Array(items) => {
            let mut shapes: Vec<Value> = Vec::new();
            for s in items.iter().map(shape) {
                if !shapes.contains(&s) {
                    shapes.push(s);
                }
            }
            Value::Array(shapes)
        }
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_keep_keys_and_drop_values() {
        let v: serde_json::Value = serde_json::from_str(
            r#"{"b": 1, "a": [{"x": "s"}, {"x": "t"}, {"x": 2}], "c": null, "d": true}"#,
        )
        .unwrap();
        let s = json_shape(&v);
        assert!(s.contains("\"b\": \"<number>\""), "{s}");
        assert!(s.contains("\"x\": \"<string>\""), "{s}");
        assert!(s.contains("\"x\": \"<number>\""), "{s}");
        assert!(s.contains("\"d\": \"<bool>\""), "{s}");
        assert_eq!(s.matches("<string>").count(), 1, "{s}");
        let lines = json_lines_shape("{\"a\":1}\n{\"a\":2}\n{\"b\":\"x\"}\nnot json\n");
        assert_eq!(
            lines,
            "{\"a\":\"<number>\"}\n{\"b\":\"<string>\"}\n\"<not JSON>\"\n"
        );
    }

    #[test]
    fn a_snapshot_that_differs_fails_with_a_diff() {
        let dir = crate::TempDir::new("snapshot");
        std::fs::write(dir.join("one.snap"), "line 1\nline 2\n").unwrap();
        assert_snapshot(dir.path(), "one", "line 1\nline 2\n");
        // Not under UPDATE_SNAPSHOTS (the test harness of this crate does
        // not set it): a difference and a missing file both fail.
        if std::env::var_os(UPDATE_VAR).is_none() {
            let err = std::panic::catch_unwind(|| {
                assert_snapshot(dir.path(), "one", "line 1\nline two\n")
            })
            .unwrap_err();
            let msg = err.downcast_ref::<String>().unwrap();
            assert!(
                msg.contains("- line 2") && msg.contains("+ line two"),
                "{msg}"
            );
            assert!(std::panic::catch_unwind(|| assert_snapshot(dir.path(), "none", "x")).is_err());
        }
    }
}
