//! Drives `rookery-engine` with python-chess's `chess.engine`, a real UCI
//! client: handshake and options, MultiPV analysis, a game on a 1s+0.01s
//! clock, pondering and ponderhit, stop during infinite analysis, mate
//! scores, Chess960 castling. The checks live in python/uci_client.py.
//!
//! Needs python3 with python-chess: fails when `CI` is set and they are
//! missing, skips with a note otherwise.

use std::process::Command;

fn python_chess_available() -> bool {
    Command::new("python3")
        .args(["-c", "import chess.engine"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn python_chess_drives_the_engine() {
    if !python_chess_available() {
        if std::env::var_os("CI").is_some() {
            panic!("CI is set but python3 with python-chess is not available");
        }
        eprintln!("note: python3 with python-chess not found; skipping");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/uci_client.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_rookery-engine"))
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
