//! Games of an event: handing the players' links to the game loop, and
//! the players' programs the referee starts.

use super::conn::Out;
use super::{Notice, Shared};
use crate::argus::net::{Inbound, Latencies, Link, NetPlayer};
use crate::clock::Clock;
use crate::game::{play_game, FinishedGame, GameError, GameSetup};
use crate::journal::Entry;
use crate::player::Offer;
use crate::record::{GameOutcome, MoveRecord};
use crate::schedule::Scheduled;
use rookery_core::Position;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    Adjourn,
    Adjudicate(GameOutcome),
    Shutdown,
    /// A player's program is restarted: the game resumes later.
    Hold,
}

pub(super) struct Running {
    pub(super) sched: Scheduled,
    pub(super) stop: Arc<Mutex<Option<Stop>>>,
    pub(super) hold: Arc<AtomicBool>,
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

/// What a game starts from besides its players.
pub(super) struct GameStart {
    pub(super) date: String,
    /// The moves already played (a resumed game).
    pub(super) resume: Vec<MoveRecord>,
    /// Set when the game is to be held rather than concluded.
    pub(super) hold: Arc<AtomicBool>,
}

pub(super) fn spawn_game(
    shared: &Arc<Shared>,
    g: Scheduled,
    links: [Link; 2],
    start: GameStart,
    latencies: Latencies,
    done: UnboundedSender<(Scheduled, Result<FinishedGame, GameError>)>,
) {
    let GameStart { date, resume, hold } = start;
    let cfg = &shared.cfg;
    let setup = GameSetup {
        number: g.number,
        event: cfg.name.clone(),
        site: cfg.site.clone(),
        round: g.round.to_string(),
        start: Position::startpos(),
        opening: Vec::new(),
        tc: [cfg.time_control; 2],
        margin: [cfg.time_margin; 2],
        rules: cfg.rules,
        stall_timeout: cfg.idle_timeout,
    };
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
    let white_to_move = n % 2 == 0;
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
    let mut used = [0u64; 2];
    let mut remaining = [full; 2];
    for (i, r) in resume.iter().enumerate() {
        if !r.book {
            used[i % 2] += r.time_ms;
            if r.clock_ms.is_some() {
                remaining[i % 2] = r.clock_ms;
            }
        }
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
        let (white, black) = match players {
            Ok((w, b)) => (w.holding(hold.clone()), b.holding(hold)),
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
            let side = ply % 2;
            ply += 1;
            if !r.book {
                used[side] += r.time_ms;
                if r.clock_ms.is_some() {
                    remaining[side] = r.clock_ms;
                }
            }
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
                    used_ms: used,
                    remaining_ms: remaining,
                    offer,
                },
            ])
        };
        let resume = (!resume.is_empty()).then_some(resume.as_slice());
        let finished = play_game(&setup, &mut white, &mut black, resume, &mut on_move);
        let _ = done.send((g, finished));
    });
}

/// Starts a player's local program (§3.2 duty 1).
pub(super) fn start_local(shared: &Shared, name: &str) -> Option<Child> {
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
    match std::process::Command::new(&argv[0])
        .args(&argv[1..])
        // The token where only the player's own user reads it.
        .env(crate::argus::config::TOKEN_ENV, &p.token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
    {
        Ok(c) => Some(c),
        Err(e) => {
            shared.notice(Notice::Fault(
                name.to_string(),
                format!("cannot start {}: {e}", argv[0]),
            ));
            None
        }
    }
}
