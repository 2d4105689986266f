//! Games of an event: handing the players' links to the game loop, and
//! the players' programs the referee starts.

use super::conn::Out;
use super::{Notice, Shared};
use crate::net::{Inbound, Latencies, Link, NetPlayer};
use rookery_event::book::Opening;
use rookery_event::journal::{Entry, StartedProcess, RUN_ENV};
use rookery_event::runner::Assignment;
use rookery_event::schedule::Scheduled;
use rookery_game::clock::Clock;
use rookery_game::game::{play_game, FinishedGame, GameError, GameSetup, StopSignal};
use rookery_game::player::Offer;
use rookery_game::record::{Clocks, MoveRecord};
use std::process::{Child, Stdio};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;

pub(super) struct Running {
    pub(super) sched: Scheduled,
    pub(super) stop: StopSignal,
}

/// Whether both players are signed on and free (out of their quiet period).
pub(super) fn links_free(shared: &Shared, names: [&String; 2]) -> bool {
    let Ok(sessions) = shared.sessions.lock() else {
        return false;
    };
    let now = Instant::now();
    names.iter().all(|n| {
        sessions
            .get(*n)
            .is_some_and(|s| !s.busy.load(Ordering::SeqCst) && s.free_at <= now)
    })
}

/// Both players' links, if both are signed on and free; marks them busy.
pub(super) fn take_links(shared: &Arc<Shared>, names: [&String; 2]) -> Option<[Link; 2]> {
    let mut sessions = shared.sessions.lock().ok()?;
    let now = Instant::now();
    for n in names {
        let s = sessions.get(n)?;
        if s.busy.load(Ordering::SeqCst) || s.free_at > now {
            return None;
        }
    }
    let mut out = Vec::with_capacity(2);
    for n in names {
        let s = sessions.get_mut(n)?;
        let (tx, rx) = std::sync::mpsc::channel();
        s.inbox = Some(tx);
        s.busy.store(true, Ordering::SeqCst);
        let out_tx = s.tx.clone();
        out.push(Link {
            name: n.clone(),
            address: s.address.clone(),
            send: Box::new(move |r| out_tx.send(Out::Record(Box::new(r))).is_ok()),
            inbox: rx,
            awaiting: s.awaiting.clone(),
        });
    }
    let b = out.pop()?;
    let w = out.pop()?;
    Some([w, b])
}

/// Frees the players of a finished game after the quiet period (§8.1.1).
pub(super) fn release(shared: &Arc<Shared>, names: [&String; 2]) {
    if let Ok(mut sessions) = shared.sessions.lock() {
        for n in names {
            if let Some(s) = sessions.get_mut(n) {
                s.inbox = None;
                s.awaiting.store(false, Ordering::SeqCst);
                s.busy.store(false, Ordering::SeqCst);
                s.free_at = Instant::now() + shared.cfg.quiet_period;
            }
        }
    }
    let shared = shared.clone();
    let quiet = shared.cfg.quiet_period;
    tokio::spawn(async move {
        tokio::time::sleep(quiet).await;
        shared.wake.notify_one();
    });
}

/// Ends the wait of both players of a game.
pub(super) fn interrupt(shared: &Shared, g: &Scheduled, why: &str) {
    if let Ok(sessions) = shared.sessions.lock() {
        for p in [g.white, g.black] {
            if let Some(tx) = sessions
                .get(&shared.cfg.players[p].name)
                .and_then(|s| s.inbox.as_ref())
            {
                let _ = tx.send(Inbound::Gone(why.to_string()));
            }
        }
    }
}

/// What a game starts from besides its players and its assignment.
pub(super) struct GameStart {
    /// The event's date, for the PGN and the clients.
    pub(super) date: String,
    /// How the supervisor stops it.
    pub(super) stop: StopSignal,
}

pub(super) fn spawn_game(
    shared: &Arc<Shared>,
    a: Assignment,
    links: [Link; 2],
    start: GameStart,
    latencies: Latencies,
    done: UnboundedSender<(Scheduled, Result<FinishedGame, GameError>)>,
) {
    let GameStart { date, stop } = start;
    let g = a.game;
    let cfg = &shared.cfg;
    let setup = GameSetup {
        number: g.number,
        event: cfg.name.clone(),
        site: cfg.site.clone(),
        round: g.round.to_string(),
        start: a.opening.start.clone(),
        opening: a.opening.moves.clone(),
        tc: [cfg.time_control; 2],
        margin: [cfg.time_margin; 2],
        rules: cfg.rules,
        stall_timeout: cfg.idle_timeout,
        date: Some(date.clone()),
        history: a.history.clone(),
        stop,
    };
    // The opening's moves are told to the clients as `execute` records, as
    // a resumed game's are; journaled first, so a resume replays them.
    let mut resume = a.resume;
    let mut journal_first = Vec::new();
    if resume.is_empty() && !a.opening.moves.is_empty() {
        resume = book_moves(&a.opening);
        for (i, mv) in resume.iter().enumerate() {
            journal_first.push(Entry::Move {
                game: g.number,
                mv: mv.clone(),
            });
            journal_first.push(Entry::Clocks {
                game: g.number,
                ply: i + 1,
                used_ms: [0, 0],
                remaining_ms: [None, None],
                offer: None,
            });
        }
    }
    let [wl, bl] = links;
    let tags = vec![
        ("Event".to_string(), cfg.name.clone()),
        ("Site".to_string(), cfg.site.clone()),
        ("Date".to_string(), date),
        ("Round".to_string(), g.round.to_string()),
        ("White".to_string(), wl.name.clone()),
        ("Black".to_string(), bl.name.clone()),
        ("Result".to_string(), "*".to_string()),
        ("TimeControl".to_string(), cfg.time_control.to_string()),
    ];
    let quiet = cfg.quiet_period;
    let last = Arc::new(Mutex::new(None));
    let offers: Arc<Mutex<Option<Offer>>> = Arc::new(Mutex::new(None));
    // The side to move is told the last move by `respond`; everything
    // before it (everything, for the other side) comes as `execute`.
    let n = resume.len();
    let white_to_move = (n % 2 == 0) == (setup.start.turn() == rookery_core::Color::White);
    let replay = |to_move: bool| if to_move { n.saturating_sub(1) } else { n };
    let players = NetPlayer::new(
        wl,
        setup.start.clone(),
        tags.clone(),
        quiet,
        last.clone(),
        latencies.clone(),
    )
    .replaying(&resume, replay(white_to_move))
    .and_then(|w| {
        NetPlayer::new(bl, setup.start.clone(), tags, quiet, last, latencies)
            .replaying(&resume, replay(!white_to_move))
            .map(|b| (w, b))
    });
    // Both clocks after every move, for the journal: time used, and left
    // where the time control has a clock.
    let full = Clock::new(&cfg.time_control, cfg.time_margin)
        .remaining()
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let mut clocks = Clocks::new([full; 2]);
    let first_side = usize::from(setup.start.turn() == rookery_core::Color::Black);
    for (i, r) in resume.iter().enumerate() {
        clocks.charge((first_side + i) % 2, r);
    }
    let journal = shared.clone();
    let spectators = shared.spectators.clone();
    spectators.started(
        &setup,
        &cfg.players[g.white].name,
        &cfg.players[g.black].name,
        &resume,
    );
    tokio::task::spawn_blocking(move || {
        if let Err(e) = journal.record(&journal_first) {
            let _ = done.send((g, Err(GameError::Observer(e))));
            return;
        }
        let (white, black) = match players {
            Ok(p) => p,
            Err(e) => {
                let _ = done.send((g, Err(e)));
                return;
            }
        };
        let mut white = white.reporting_offers(offers.clone());
        let mut black = black.reporting_offers(offers.clone());
        let mut ply = n;
        let number = setup.number;
        let mut on_move = |r: &MoveRecord| {
            spectators.moved(number, r);
            clocks.charge((first_side + ply) % 2, r);
            ply += 1;
            let offer = offers
                .lock()
                .ok()
                .and_then(|mut o| o.take())
                .map(|o| format!("{o:?}").to_lowercase());
            journal.record(&[
                Entry::Move {
                    game: g.number,
                    mv: r.clone(),
                },
                Entry::Clocks {
                    game: g.number,
                    ply,
                    used_ms: clocks.used_ms,
                    remaining_ms: clocks.clock_ms,
                    offer,
                },
            ])
        };
        let resume = (!resume.is_empty()).then_some(resume.as_slice());
        let finished = play_game(&setup, &mut white, &mut black, resume, &mut on_move);
        let _ = done.send((g, finished));
    });
}

/// An opening's moves as the records of book moves.
fn book_moves(opening: &Opening) -> Vec<MoveRecord> {
    let mode = if opening.start.is_chess960_castling() {
        rookery_core::CastlingMode::Chess960
    } else {
        rookery_core::CastlingMode::Standard
    };
    let mut pos = opening.start.clone();
    let mut out = Vec::with_capacity(opening.moves.len());
    for &m in &opening.moves {
        out.push(MoveRecord::book(&pos, m, mode));
        pos.play_unchecked(m);
    }
    out
}

/// A random run id for a program the referee starts (32 hex digits).
fn run_id() -> String {
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if read.is_err() {
        // Randomly keyed hashes of the time and this process.
        use std::hash::{BuildHasher, Hasher};
        for half in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            h.write_u32(std::process::id());
            half.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether process `pid` was started with `run` as its run id
/// ([`RUN_ENV`] in `/proc/PID/environ`): the proof that the referee started
/// it. False where that cannot be read.
pub(super) fn holds_run(pid: u32, run: &str) -> bool {
    if run.is_empty() {
        return false;
    }
    let want = format!("{RUN_ENV}={run}");
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == want.as_bytes()))
}

/// Ends a program an earlier run of the event started, as its journal
/// recorded it, if it is still running and can be proved to be that
/// program: the same start time and the run id in its environment. An
/// entry that names another process (a hand-edited journal, a process id
/// used again) ends nothing. Returns whether there was one to end.
pub(super) fn end_leftover(p: &StartedProcess) -> bool {
    holds_run(p.pid, &p.run) && end_process_group(p.pid, p.since)
}

/// Starts a player's local program (§3.2 duty 1), with a run id of its own
/// in its environment ([`RUN_ENV`]); the program and what the journal
/// is to keep of it.
pub(super) fn start_local(shared: &Shared, name: &str) -> Option<(Child, StartedProcess)> {
    let p = shared.cfg.players.iter().find(|p| p.name == name)?;
    let argv: Vec<String> = p
        .command
        .as_ref()?
        .iter()
        .map(|a| {
            a.replace("{address}", &shared.address)
                .replace("{name}", &p.name)
                .replace("{token}", &p.token)
        })
        .collect();
    let stderr = std::fs::File::create(
        shared
            .cfg
            .log_dir
            .join(format!("{}.stderr", p.name.replace(['/', '\\'], "_"))),
    )
    .map(Stdio::from)
    .unwrap_or_else(|_| Stdio::null());
    let run = run_id();
    let mut command = std::process::Command::new(&argv[0]);
    command
        .args(&argv[1..])
        // The token where only the player's own user reads it.
        .env(crate::config::TOKEN_ENV, &p.token)
        .env(RUN_ENV, &run)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    // Its own process group: the referee ends the program and whatever it
    // started (an engine) together, now or in a later run.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    match command.spawn() {
        Ok(c) => {
            let started = StartedProcess {
                player: name.to_string(),
                pid: c.id(),
                since: process_start_ticks(c.id()),
                run,
            };
            Some((c, started))
        }
        Err(e) => {
            shared.notice(Notice::Fault(
                name.to_string(),
                format!("cannot start {}: {e}", argv[0]),
            ));
            None
        }
    }
}

/// When process `pid` started, in clock ticks since boot (field 22 of
/// `/proc/PID/stat`); 0 where that cannot be read.
pub(super) fn process_start_ticks(pid: u32) -> u64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    // The command name (field 2) is in parentheses and may hold spaces:
    // the fields after it are counted from its closing parenthesis.
    stat.rfind(')')
        .and_then(|i| stat[i + 1..].split_whitespace().nth(19))
        .and_then(|t| t.parse().ok())
        .unwrap_or(0)
}

/// Ends the process group `pid` started at `since` (clock ticks), if that
/// process is still the one that was started: SIGTERM, then SIGKILL after
/// a grace period. Returns whether there was one to end.
pub(super) fn end_process_group(pid: u32, since: u64) -> bool {
    #[cfg(unix)]
    {
        let Ok(id) = i32::try_from(pid) else {
            return false;
        };
        // A process id used again by another program is not ours.
        if id <= 1 || since == 0 || process_start_ticks(pid) != since {
            return false;
        }
        // SAFETY: kill(2) with a negative id signals a process group; it
        // reads no memory of ours.
        unsafe {
            libc::kill(-id, libc::SIGTERM);
        }
        let deadline = Instant::now() + PROCESS_GRACE;
        while Instant::now() < deadline && process_start_ticks(pid) == since && !zombie(pid) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // SAFETY: as above.
        unsafe {
            libc::kill(-id, libc::SIGKILL);
        }
        true
    }
    #[cfg(not(unix))]
    {
        let _ = (pid, since);
        false
    }
}

/// Whether process `pid` has exited and waits to be reaped.
fn zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .is_some_and(|i| stat[i + 1..].trim_start().starts_with('Z'))
    })
}

/// How long a player's program has to exit after SIGTERM.
const PROCESS_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Ends a player's program the referee started and reaps it: its whole
/// process group, SIGTERM then SIGKILL.
pub(super) fn end_child(c: &mut Child) {
    if let Ok(Some(_)) = c.try_wait() {
        return;
    }
    end_process_group(c.id(), process_start_ticks(c.id()));
    let _ = c.kill();
    let _ = c.wait();
}
