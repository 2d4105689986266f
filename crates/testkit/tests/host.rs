//! The UCI host against the mock engine (crashes, hangs, garbage, silence)
//! and against a real engine when one is installed.

use rookery_uci::host::{EngineHost, EngineSpec, HostError, Timeouts};
use rookery_uci::{GoParams, PositionStart};
use std::time::Duration;

fn mock(args: &[&str]) -> EngineSpec {
    let mut spec = EngineSpec::new(env!("CARGO_BIN_EXE_rookery-mock-engine"));
    spec.args = args.iter().map(|s| s.to_string()).collect();
    spec
}

fn quick() -> Timeouts {
    Timeouts {
        handshake: Duration::from_millis(1500),
        ready: Duration::from_millis(1500),
        search_margin: Duration::from_millis(300),
        quit_grace: Duration::from_millis(200),
        silence: Duration::from_millis(400),
    }
}

fn go_ms(ms: i64) -> GoParams {
    GoParams {
        movetime: Some(ms),
        ..GoParams::default()
    }
}

#[test]
fn handshake_options_and_search() {
    let mut e = EngineHost::start(mock(&[]), quick()).unwrap();
    assert_eq!(e.name(), "rookery-mock");
    assert_eq!(e.author(), "rookery tests");
    assert_eq!(e.options().len(), 4);
    e.set_option("hash", Some("64")).unwrap();
    e.set_option("Clear Hash", None).unwrap();
    e.set_option("style", Some("risky")).unwrap();
    for (name, value) in [
        ("Hash", "0"),
        ("Hash", "many"),
        ("Style", "wild"),
        ("Ponder", "maybe"),
    ] {
        assert!(
            matches!(
                e.set_option(name, Some(value)),
                Err(HostError::BadOptionValue { .. })
            ),
            "{name}={value}"
        );
    }
    assert!(matches!(
        e.set_option("Contempt", Some("1")),
        Err(HostError::UnknownOption(_))
    ));
    e.is_ready().unwrap();
    let mut infos = 0;
    let r = e
        .search(&PositionStart::StartPos, &[], &go_ms(50), |_| infos += 1)
        .unwrap();
    assert_eq!(r.best.to_string(), "a2a3");
    assert_eq!(infos, 1);
    assert_eq!(r.lines.len(), 1);
    assert!(!r.stopped_by_host);
    e.quit();
}

#[test]
fn garbage_is_skipped_and_kept() {
    let mut e = EngineHost::start(mock(&["--garbage"]), quick()).unwrap();
    let r = e
        .search(&PositionStart::StartPos, &[], &go_ms(10), |_| {})
        .unwrap();
    assert_eq!(r.best.to_string(), "a2a3");
    assert!(e.garbage().any(|g| g.contains("mock garbage")));
}

#[test]
fn no_uciok_times_out() {
    let t0 = std::time::Instant::now();
    let err = EngineHost::start(mock(&["--no-uciok"]), quick())
        .err()
        .expect("must fail");
    assert!(
        matches!(
            err,
            HostError::Timeout {
                waiting_for: "uciok",
                ..
            }
        ),
        "{err}"
    );
    assert!(t0.elapsed() < Duration::from_secs(5));
}

#[test]
fn crash_is_reported_with_status_and_stderr_then_restart() {
    let mut e = EngineHost::start(mock(&["--crash-on-go", "2"]), quick()).unwrap();
    e.search(&PositionStart::StartPos, &[], &go_ms(10), |_| {})
        .unwrap();
    let err = e
        .search(&PositionStart::StartPos, &[], &go_ms(10), |_| {})
        .unwrap_err();
    match &err {
        HostError::Crashed {
            status,
            stderr_tail,
        } => {
            assert_eq!(status.and_then(|s| s.code()), Some(3), "{err}");
            assert!(
                stderr_tail.iter().any(|l| l.contains("crashing on go 2")),
                "{err}"
            );
        }
        other => panic!("expected a crash, got {other}"),
    }
    // A restarted engine counts its searches afresh.
    e.restart().unwrap();
    let r = e
        .search(&PositionStart::StartPos, &[], &go_ms(10), |_| {})
        .unwrap();
    assert_eq!(r.best.to_string(), "a2a3");
}

/// The host gave up on an engine that did not answer `stop`.
fn assert_hung(err: &HostError) {
    assert!(
        matches!(
            err,
            HostError::Timeout {
                waiting_for: "bestmove",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn hang_is_stopped_then_reported() {
    let mut e = EngineHost::start(mock(&["--hang-on-go", "1"]), quick()).unwrap();
    let t0 = std::time::Instant::now();
    let err = e
        .search(&PositionStart::StartPos, &[], &go_ms(100), |_| {})
        .unwrap_err();
    assert_hung(&err);
    // movetime + margin, stop, margin again: well under two seconds.
    assert!(t0.elapsed() < Duration::from_secs(3));
}

/// Searches with `go` on a mock that takes `slow_ms` unless stopped; checks
/// that the host stopped it and the search still answered, and returns the
/// lines the mock received.
fn stopped_search(name: &str, slow_ms: &str, go: &GoParams) -> String {
    let dir = rookery_testkit::TempDir::new(name);
    let record = dir.join("received.txt");
    let mut e = EngineHost::start(
        mock(&["--slow", slow_ms, "--record", record.to_str().unwrap()]),
        quick(),
    )
    .unwrap();
    let r = e.search(&PositionStart::StartPos, &[], go, |_| {}).unwrap();
    assert!(r.stopped_by_host);
    let seen = std::fs::read_to_string(&record).unwrap();
    assert!(seen.lines().any(|l| l == "stop"), "{seen}");
    seen
}

#[test]
fn overrunning_engine_is_stopped() {
    let seen = stopped_search("host-overrun", "5000", &go_ms(20));
    assert!(seen.lines().any(|l| l == "go movetime 20"), "{seen}");
}

#[test]
fn missing_program_is_a_spawn_error() {
    let err = EngineHost::start(EngineSpec::new("/nonexistent/engine"), quick())
        .err()
        .unwrap();
    assert!(matches!(err, HostError::Spawn { .. }), "{err}");
}

/// Stockfish (found as [`rookery_testkit::peer::stockfish`] finds it, or
/// `None`: the test skips) started with `options` (name, value) and the
/// default timeouts.
fn stockfish(options: &[(&str, &str)]) -> Option<EngineHost> {
    let mut spec = EngineSpec::new(rookery_testkit::peer::stockfish()?);
    for (name, value) in options {
        spec.options
            .push((name.to_string(), Some(value.to_string())));
    }
    Some(EngineHost::start(spec, Timeouts::default()).unwrap())
}

#[test]
fn real_stockfish() {
    let Some(mut e) = stockfish(&[("Hash", "16"), ("MultiPV", "3")]) else {
        return;
    };
    assert!(e.name().starts_with("Stockfish"), "{}", e.name());
    // A back-rank mate in one.
    let start = PositionStart::Fen("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1".into());
    let r = e.search(&start, &[], &go_depth(8), |_| {}).unwrap();
    assert_eq!(r.best.to_string(), "d1d8");
    assert!(r.lines.len() >= 2, "multipv lines: {:?}", r.lines);
    let top = r.lines[0].score.expect("score");
    assert_eq!(top.value, rookery_uci::Score::Mate(1));
    e.quit();
}

#[test]
fn go_watch_then_stop() {
    use rookery_uci::host::SearchEvent;
    let mut e = EngineHost::start(mock(&["--slow", "5000"]), quick()).unwrap();
    e.go(
        &PositionStart::StartPos,
        &[],
        &GoParams {
            infinite: true,
            ..GoParams::default()
        },
    )
    .unwrap();
    // The mock thinks silently: nothing comes within 100 ms.
    assert_eq!(e.next_event(Duration::from_millis(100)).unwrap(), None);
    e.stop().unwrap();
    let r = e.wait_bestmove(None, |_| {}).unwrap();
    assert_eq!(r.best.to_string(), "a2a3");
    // No search runs any more.
    assert!(matches!(
        e.next_event(Duration::from_millis(10)),
        Err(HostError::Protocol(_))
    ));
    let _ = SearchEvent::Info(Box::default());
}

#[test]
fn stockfish_ponder_then_ponderhit() {
    use rookery_uci::host::SearchEvent;
    let Some(mut e) = stockfish(&[("Ponder", "true")]) else {
        return;
    };
    // Ponder on 1.e4 e5 (the expected reply), with a clock.
    let moves: Vec<rookery_core::UciMove> = ["e2e4", "e7e5"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let go = GoParams {
        ponder: true,
        wtime: Some(2000),
        btime: Some(2000),
        ..GoParams::default()
    };
    e.go(&PositionStart::StartPos, &moves, &go).unwrap();
    // While pondering, the engine must not answer bestmove on its own.
    let until = std::time::Instant::now() + Duration::from_millis(300);
    let mut infos = 0;
    while std::time::Instant::now() < until {
        match e.next_event(Duration::from_millis(50)).unwrap() {
            Some(SearchEvent::Info(_)) => infos += 1,
            Some(SearchEvent::BestMove(r)) => panic!("bestmove while pondering: {}", r.best),
            None => {}
        }
    }
    assert!(infos > 0, "no info while pondering");
    e.ponder_hit().unwrap();
    let r = e
        .wait_bestmove(Some(Duration::from_secs(3)), |_| {})
        .unwrap();
    assert!(
        !r.stopped_by_host,
        "after ponderhit the engine keeps its own clock"
    );
    assert_ne!(r.best, rookery_core::UciMove::Null);
    e.quit();
}

fn go_depth(depth: u32) -> GoParams {
    GoParams {
        depth: Some(depth),
        ..GoParams::default()
    }
}

#[test]
fn a_silent_engine_without_a_time_limit_is_stopped_then_reported() {
    // A depth search has no time limit: only the engine's silence tells a
    // hang from a long search.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut e = EngineHost::start(mock(&["--hang-on-go", "1"]), quick()).unwrap();
        let _ = tx.send(e.search(&PositionStart::StartPos, &[], &go_depth(30), |_| {}));
    });
    // Silence (0.4 s), stop, the margin (0.3 s); without the watch the host
    // would wait for an hour: a liveness bound, not a measurement.
    let err = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("the host still waits for a silent engine")
        .unwrap_err();
    assert_hung(&err);
}

#[test]
fn a_silent_depth_search_is_stopped_and_answers() {
    // 20 s to the mock's answer; the host's silence watch (0.4 s) stops it.
    let seen = stopped_search("host-silence", "20000", &go_depth(30));
    assert!(seen.lines().any(|l| l == "go depth 30"), "{seen}");
}

/// cutechess-cli's `stderr=FILE`: the engine's standard error is appended
/// to the file, across restarts (an old line stays), and the crash report
/// still has its last lines.
#[test]
fn standard_error_is_appended_to_its_file() {
    let dir = rookery_testkit::TempDir::new("host-stderr");
    let file = dir.join("engine.err");
    std::fs::write(&file, "an earlier line\n").unwrap();
    let mut spec = mock(&["--crash-on-go", "1"]);
    spec.stderr_file = Some(file.clone());
    for _ in 0..2 {
        let mut e = EngineHost::start(spec.clone(), quick()).unwrap();
        let err = e
            .search(&PositionStart::StartPos, &[], &go_ms(10), |_| {})
            .unwrap_err();
        assert!(err.to_string().contains("crashing on go 1"), "{err}");
    }
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        text,
        "an earlier line\nmock: crashing on go 1 as asked\nmock: crashing on go 1 as asked\n"
    );
    spec.stderr_file = Some(dir.join("no-such-dir").join("e.err"));
    assert!(EngineHost::start(spec, quick()).is_err());
}
