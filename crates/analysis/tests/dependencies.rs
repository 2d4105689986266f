//! A library user of rookery-analysis does not compile a plotting stack
//! (issue 13, item 12): the HTML page and plotters are the report crate's
//! `html` feature, which only the `rookery` binary turns on; and the crate
//! depends on what it uses (rookery-pgn, for game annotation). Checked with `cargo
//! tree` on this workspace, offline.

use std::process::Command;

fn normal_dependencies(package: &str) -> String {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            package,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn has(tree: &str, name: &str) -> bool {
    tree.lines().any(|l| l.starts_with(&format!("{name} v")))
}

#[test]
fn analysis_builds_without_plotters() {
    let tree = normal_dependencies("rookery-analysis");
    assert!(has(&tree, "rookery-report"), "{tree}");
    assert!(
        !has(&tree, "plotters"),
        "plotters reaches library users:\n{tree}"
    );
    // rookery-pgn is used since game annotation came (crate::annotate).
    assert!(has(&tree, "rookery-pgn"), "{tree}");
    // The binary still has its HTML reports.
    assert!(has(&normal_dependencies("rookery"), "plotters"));
}

#[test]
fn manifests_are_tidy() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let cli = std::fs::read_to_string(format!("{root}/crates/cli/Cargo.toml")).unwrap();
    let serde_json = cli
        .lines()
        .filter(|l| l.trim_start().starts_with("serde_json"))
        .count();
    assert_eq!(
        serde_json, 1,
        "serde_json listed more than once in cli/Cargo.toml"
    );
    let engine = std::fs::read_to_string(format!("{root}/crates/engine/Cargo.toml")).unwrap();
    assert!(!engine.contains("work in progress"));
}
