//! A panic in an analyst (a bug) ends a parallel verb run with an error
//! instead of hanging it (issue 13, item 4): the ordered receiver must not
//! wait for the result that never comes.

use std::sync::mpsc;
use std::time::Duration;

use rookery_analysis::{
    run_verb, Analysis, AnalysisLimits, Analyst, AnalystError, Extras, Verb, VerbOptions,
};
use rookery_core::Position;

/// Liveness bound (not a speed assertion): the run takes milliseconds.
const PATIENCE: Duration = Duration::from_secs(120);

/// Plays the first legal move, and panics on the position with Black's king on h8.
struct Buggy;

impl Analyst for Buggy {
    fn name(&self) -> String {
        "buggy".into()
    }

    fn analyse(
        &mut self,
        pos: &Position,
        _limits: &AnalysisLimits,
    ) -> Result<Analysis, AnalystError> {
        assert!(!pos.fen().starts_with("7k/"), "a bug in the analyst");
        let best = pos.legal_moves().first().copied();
        Ok(Analysis {
            depth: 1,
            nodes: 1,
            ..Analysis::line(best.into_iter().collect(), None)
        })
    }

    fn new_game(&mut self) -> Result<(), AnalystError> {
        Ok(())
    }
}

fn run(workers: usize) -> Result<String, String> {
    let mut input = String::new();
    for i in 0..40 {
        if i == 5 {
            input.push_str("7k/8/8/8/8/8/8/K7 w - - id \"boom\";\n");
        } else {
            input.push_str("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"start\";\n");
        }
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let analysts: Vec<Box<dyn Analyst>> = (0..workers)
            .map(|_| Box::new(Buggy) as Box<dyn Analyst>)
            .collect();
        let opts = VerbOptions {
            verb: Verb::Target,
            limits: AnalysisLimits::default(),
            extras: Extras::default(),
            solution_opcodes: false,
            keep_as: None,
        };
        let mut out = Vec::new();
        let r = run_verb(
            input.as_bytes(),
            &mut out,
            analysts,
            &opts,
            false,
            &mut [],
            |_| {},
        );
        let _ = tx.send(
            r.map(|_| String::from_utf8_lossy(&out).into_owned())
                .map_err(|e| e.to_string()),
        );
    });
    rx.recv_timeout(PATIENCE)
        .unwrap_or_else(|_| panic!("run_verb with {workers} workers hung after a panic"))
}

#[test]
fn a_panicking_analyst_is_an_error_not_a_hang() {
    for workers in [1, 2, 3] {
        let err = run(workers).expect_err("the run must fail");
        assert!(err.contains("a bug in the analyst"), "{err}");
    }
}
