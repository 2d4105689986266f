//! Drives `rookery-engine` with python-chess's `chess.engine`, a real UCI
//! client: handshake and options, MultiPV analysis, a game on a 1s+0.01s
//! clock, pondering and ponderhit, stop during infinite analysis, mate
//! scores, Chess960 castling. The checks live in python/uci_client.py.
//!
//! Needs python3 with python-chess 1.11.2 on PATH: fails when `CI` is set
//! and they are missing, skips with a note otherwise.

use crate::common::ROOKERY_ENGINE;
use std::process::Command;

#[test]
fn python_chess_drives_the_engine() {
    let Some(python) = rookery_testkit::peer::python_chess() else {
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/uci_client.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(ROOKERY_ENGINE)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "python-chess checks failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("all ok"), "{stdout}");
}
