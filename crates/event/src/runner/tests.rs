//! The runner's unit tests: journal, queue, outputs and standings of
//! small events.

use super::*;
use crate::schedule::Pairing;
use rookery_game::record::{GameOutcome, Termination};

fn setup(dir: &Path, rounds: usize) -> RunnerSetup {
    RunnerSetup {
        kind: EventKind::Match,
        players: vec!["A".into(), "B".into()],
        schedule: Schedule::new(2, Pairing::RoundRobin, rounds, 2).unwrap(),
        openings: Openings::standard(),
        journal: Some(dir.join("m.journal")),
        durability: Durability::Written,
        pgn: Some(dir.join("m.pgn")),
        epd: None,
        sprt: None,
        driver: serde_json::json!({"engines": 2}),
        resume_base: None,
        shard: None,
        pool: None,
    }
}

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rookery-runner-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fin(a: &Assignment, outcome: GameOutcome, stop: Option<Stop>) -> FinishedGame {
    FinishedGame {
        record: GameRecord {
            number: a.game.number,
            event: "e".into(),
            site: "s".into(),
            round: a.game.round.to_string(),
            white: "A".into(),
            black: "B".into(),
            white_tc: Default::default(),
            black_tc: Default::default(),
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            moves: Vec::new(),
            outcome,
            termination: if outcome == GameOutcome::Unfinished {
                Termination::Unterminated
            } else {
                Termination::Normal
            },
            reason: "test".into(),
            started: ("2026.01.01".into(), "00:00:00".into()),
            date: None,
            duration_ms: 0,
        },
        faults: [None, None],
        overheads: vec![Duration::from_micros(100)],
        stop,
    }
}

fn games_in(pgn: &Path) -> usize {
    std::fs::read_to_string(pgn)
        .unwrap_or_default()
        .matches("[Event ")
        .count()
}

#[test]
fn a_new_event_over_an_unfinished_journal_is_refused_and_resume_writes_each_game_once() {
    let dir = tmp("refuse");
    let mut r = Runner::open(setup(&dir, 2), Start::New).unwrap();
    let a = r.next(|_| true).unwrap().unwrap();
    r.finish(&a.game, &fin(&a, GameOutcome::WhiteWins, None))
        .unwrap();
    let b = r.next(|_| true).unwrap().unwrap();
    drop(r); // killed with game 1 in progress
    assert_eq!(games_in(&dir.join("m.pgn")), 1);
    let e = Runner::open(setup(&dir, 2), Start::New).err().unwrap();
    assert!(
        matches!(
            e,
            RunnerError::Unfinished {
                done: 1,
                total: 4,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("--resume"), "{e}");
    // Resume: game 1 first, from its moves; the PGN holds game 0 once.
    let state = JournalState::read(&dir.join("m.journal")).unwrap();
    let mut r = Runner::open(setup(&dir, 2), Start::Resume(Box::new(state))).unwrap();
    assert_eq!(r.resumed(), Some((1, 1)));
    assert_eq!(games_in(&dir.join("m.pgn")), 1);
    let again = r.next(|_| true).unwrap().unwrap();
    assert_eq!(again.game, b.game);
    r.finish(&again.game, &fin(&again, GameOutcome::Draw, None))
        .unwrap();
    while let Some(a) = r.next(|_| true).unwrap() {
        r.finish(&a.game, &fin(&a, GameOutcome::Draw, None))
            .unwrap();
    }
    let s = r.close().unwrap();
    assert!(s.over);
    assert_eq!(s.standings.games(), 4);
    assert_eq!(games_in(&dir.join("m.pgn")), 4);
    // A finished event's journal is replaced by a new event; the PGN
    // is appended to.
    let mut r = Runner::open(setup(&dir, 1), Start::New).unwrap();
    let a = r.next(|_| true).unwrap().unwrap();
    r.finish(&a.game, &fin(&a, GameOutcome::Draw, None))
        .unwrap();
    drop(r);
    assert_eq!(games_in(&dir.join("m.pgn")), 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fresh_keeps_the_old_journal_and_moves_the_old_runs_games_aside() {
    let dir = tmp("fresh");
    std::fs::write(dir.join("m.pgn"), "[Event \"before\"]\n\n*\n\n").unwrap();
    let mut r = Runner::open(setup(&dir, 2), Start::New).unwrap();
    for _ in 0..2 {
        let a = r.next(|_| true).unwrap().unwrap();
        r.finish(&a.game, &fin(&a, GameOutcome::WhiteWins, None))
            .unwrap();
    }
    drop(r);
    assert_eq!(games_in(&dir.join("m.pgn")), 3);
    let r = Runner::open(setup(&dir, 2), Start::Fresh).unwrap();
    drop(r);
    assert!(dir.join("m.journal.1").exists());
    let kept = std::fs::read_to_string(dir.join("m.pgn")).unwrap();
    assert!(
        kept.contains("before") && games_in(&dir.join("m.pgn")) == 1,
        "{kept}"
    );
    assert_eq!(games_in(&dir.join("m.pgn.1")), 2);
    // The old journal still reads.
    assert_eq!(
        JournalState::read(&dir.join("m.journal.1"))
            .unwrap()
            .finished()
            .len(),
        2
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stops_queue_games_again_or_leave_them_to_a_resume() {
    let dir = tmp("stops");
    let mut r = Runner::open(setup(&dir, 2), Start::New).unwrap();
    let a = r.next(|_| true).unwrap().unwrap();
    assert_eq!(a.game.number, 0);
    // Adjourned: replayed after the unplayed games.
    assert_eq!(
        r.finish(
            &a.game,
            &fin(&a, GameOutcome::Unfinished, Some(Stop::Adjourn))
        )
        .unwrap(),
        Finished::Replayed
    );
    let mut held = false;
    let order: Vec<usize> = std::iter::from_fn(|| {
        let a = r.next(|_| true).unwrap()?;
        let n = a.game.number;
        // Game 2 is held once, at its first try.
        let stop = (n == 2 && !held).then_some(Stop::Hold);
        let f = r
            .finish(&a.game, &fin(&a, GameOutcome::Draw, stop))
            .unwrap();
        if stop.is_some() {
            held = true;
            assert_eq!(f, Finished::Held);
        }
        Some(n)
    })
    .take(10)
    .collect();
    // Held game 2 goes on at once; adjourned game 0 comes last.
    assert_eq!(order, [1, 2, 2, 3, 0]);
    assert_eq!(games_in(&dir.join("m.pgn")), 4);
    let s = r.close().unwrap();
    assert_eq!(s.standings.games(), 4);
    assert_eq!(s.latency.count(), 6);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_sprt_decides_once_and_reports_the_games_it_decided_on() {
    let dir = tmp("sprt");
    let mut su = setup(&dir, 50);
    su.sprt = Some("elo0=0 elo1=100 alpha=0.05 beta=0.05".parse().unwrap());
    let mut r = Runner::open(su, Start::New).unwrap();
    let mut in_flight = Vec::new();
    let mut decided_at = None;
    // Two games at a time; A wins every game.
    loop {
        while in_flight.len() < 2 {
            match r.next(|_| true).unwrap() {
                Some(a) => in_flight.push(a),
                None => break,
            }
        }
        let Some(a) = (!in_flight.is_empty()).then(|| in_flight.remove(0)) else {
            break;
        };
        let white_wins = a.game.white == 0;
        let o = if white_wins {
            GameOutcome::WhiteWins
        } else {
            GameOutcome::BlackWins
        };
        if let Finished::Decided(state) = r.finish(&a.game, &fin(&a, o, None)).unwrap() {
            assert_eq!(state, SprtState::AcceptH1);
            decided_at = Some(r.standings().games());
        }
    }
    let s = r.close().unwrap();
    let report = s.sprt.unwrap();
    let d = report.decision.unwrap();
    let decided_at = decided_at.expect("a one-sided match decides");
    assert_eq!(d.tally.wdl.games(), decided_at);
    // The game in flight at the decision was played and counted after it.
    assert_eq!(s.standings.games(), decided_at + 1);
    assert!(report.last.llr >= d.status.llr);
    assert!(s.over);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two shards of one match with a pool: shard 2 decides the pooled
/// SPRT while shard 1 has a pair in progress; shard 1 plays that pair's
/// other game and begins no other block, and its journal is over.
#[test]
fn a_pooled_decision_lets_the_pair_in_progress_finish_and_begins_no_other() {
    let dir = tmp("pool");
    let pool_dir = dir.join("pool");
    let su = |k: u32| {
        let shard = Shard::new(k, 2).unwrap();
        let mut s = setup(&dir, 50);
        s.sprt = Some("elo0=0 elo1=100 alpha=0.05 beta=0.05".parse().unwrap());
        s.journal = Some(dir.join(format!("m{k}.journal")));
        s.pgn = Some(dir.join(format!("m{k}.pgn")));
        s.shard = Some(shard);
        s.pool = Some(
            Pool::open(
                &pool_dir,
                &serde_json::json!({"match": "test"}),
                shard,
                s.schedule,
                s.players.clone(),
            )
            .unwrap(),
        );
        s
    };
    let a_wins = |a: &Assignment| {
        if a.game.white == 0 {
            GameOutcome::WhiteWins
        } else {
            GameOutcome::BlackWins
        }
    };
    let mut one = Runner::open(su(0), Start::New).unwrap();
    let first = one.next(|_| true).unwrap().unwrap();
    assert_eq!((first.game.number, first.game.block), (0, 0));
    // Shard 2 plays its blocks (1, 3, 5, ...), A winning every game,
    // until the pool decides.
    let mut two = Runner::open(su(1), Start::New).unwrap();
    let mut decided = false;
    while let Some(b) = two.next(|_| true).unwrap() {
        assert_eq!(b.game.block % 2, 1, "game {} is shard 1's", b.game.number);
        if let Finished::Decided(state) = two.finish(&b.game, &fin(&b, a_wins(&b), None)).unwrap() {
            assert_eq!(state, SprtState::AcceptH1);
            decided = true;
        }
    }
    assert!(decided);
    let pooled = two.pool().unwrap().len();
    assert!(two.close().unwrap().over);
    // Shard 1 learns of it when its game ends: the pair's other game is
    // still played, then nothing.
    let f = one.finish(&first.game, &fin(&first, a_wins(&first), None));
    assert!(matches!(f.unwrap(), Finished::Decided(SprtState::AcceptH1)));
    let second = one.next(|_| true).unwrap().unwrap();
    assert_eq!(second.game.number, 1);
    assert!(!one.has_work());
    one.finish(&second.game, &fin(&second, a_wins(&second), None))
        .unwrap();
    assert!(one.next(|_| true).unwrap().is_none());
    let s = one.close().unwrap();
    assert!(s.over, "its journal is over: the merge takes it");
    assert_eq!(s.standings.games(), 2);
    let last = s.sprt.unwrap().last;
    assert_eq!(last.basis.unwrap().samples as usize, pooled + 1);
    assert!(JournalState::read(&dir.join("m0.journal"))
        .unwrap()
        .over
        .is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_knockout_pairs_from_results_and_a_resume_rebuilds_its_bracket() {
    let dir = tmp("knockout");
    let ko = |dir: &Path| RunnerSetup {
        players: vec!["A".into(), "B".into(), "C".into()],
        schedule: Schedule::new(3, Pairing::Knockout, 1, 1)
            .unwrap()
            .with_seeding(crate::schedule::Seeding { seeded: 3, draw: 0 }),
        ..setup(dir, 1)
    };
    let mut r = Runner::open(ko(&dir), Start::New).unwrap();
    // A has the bye: B - C first, and nothing else until it ends.
    let a = r.next(|_| true).unwrap().unwrap();
    assert_eq!((a.game.number, a.game.white, a.game.black), (0, 1, 2));
    assert!(r.next(|_| true).unwrap().is_none());
    assert!(r.has_work());
    assert_eq!(r.in_progress(), 1);
    r.finish(&a.game, &fin(&a, GameOutcome::BlackWins, None))
        .unwrap();
    // C won: the final is A - C.
    let f = r.next(|_| true).unwrap().unwrap();
    assert_eq!(
        (f.game.number, f.game.round, f.game.white, f.game.black),
        (1, 2, 0, 2)
    );
    drop(r); // killed with the final in progress
    let state = JournalState::read(&dir.join("m.journal")).unwrap();
    assert!(
        Runner::open(ko(&dir), Start::New).is_err(),
        "an unfinished knockout's journal is kept"
    );
    let mut r = Runner::open(ko(&dir), Start::Resume(Box::new(state))).unwrap();
    assert_eq!(r.resumed(), Some((1, 1)));
    let again = r.next(|_| true).unwrap().unwrap();
    assert_eq!(again.game, f.game);
    r.finish(&again.game, &fin(&again, GameOutcome::WhiteWins, None))
        .unwrap();
    assert!(!r.has_work());
    let s = r.close().unwrap();
    assert!(s.over);
    let k = s.knockout.unwrap();
    assert_eq!(k.winner.as_deref(), Some("A"));
    assert_eq!(k.rounds.len(), 2);
    assert_eq!(games_in(&dir.join("m.pgn")), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn latency_quantiles_are_within_their_bucket() {
    let mut l = Latency::default();
    assert_eq!(l.quantile_us(0.5), None);
    let samples: Vec<Duration> = (1..=1000).map(Duration::from_micros).collect();
    l.add(&samples);
    let median = l.quantile_us(0.5).unwrap() as f64;
    let p99 = l.quantile_us(0.99).unwrap() as f64;
    assert!((median / 500.5 - 1.0).abs() < 0.025, "{median}");
    assert!((p99 / 990.0 - 1.0).abs() < 0.025, "{p99}");
}
