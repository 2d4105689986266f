//! Local matches and tournaments (`rookery match`): a [`MatchPlan`] run by
//! [`run_match`] over the game core, with games in parallel, a journal that
//! resumes mid-game, PGN and EPD output, statistics and SPRT.
//!
//! Worker threads take games from the schedule in order; each keeps its own
//! engine processes (started on first use, restarted per game with
//! `restart=on` and after a crash or stall with `recover`). Every move is in
//! the journal before the next is asked for and every finished game is in it
//! before it reaches the PGN, so the PGN can always be rebuilt from the
//! journal: a resumed match writes each game exactly once.

use crate::adjudicate::Rules;
use crate::game::{play_game, Fault, FinishedGame, GameError, GameSetup};
use crate::journal::{Entry, Journal, JournalError, JournalState};
use crate::player::{EngineConfig, EngineLog, Player, PlayerError, UciPlayer};
use crate::record::{GameOutcome, GameRecord, RecordError, Termination};
use crate::schedule::{self, BookConfig, BookOrder, Opening, Pairing, Scheduled};
use crate::stats::{Outcome, Sprt, SprtConfig, SprtState, Tally, Wdl};
use rookery_uci::host::Timeouts;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Everything a match needs: written whole into the journal's first line,
/// so `--resume` needs nothing else.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchPlan {
    /// The engines, in command-line order.
    pub engines: Vec<EngineConfig>,
    /// How they are paired.
    pub pairing: Pairing,
    /// Rounds.
    pub rounds: usize,
    /// Games per encounter and round (2: colours reversed on one opening).
    pub games: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// The opening book (none: the standard start or random Chess960 starts).
    pub book: Option<BookConfig>,
    /// Chess960 (random starts when there is no book).
    pub chess960: bool,
    /// The seed of random opening order and Chess960 starts.
    pub seed: u64,
    /// Adjudication.
    pub rules: Rules,
    /// SPRT words (`elo0=0 elo1=5 alpha=0.05 beta=0.05`), two engines only.
    pub sprt: Option<String>,
    /// Restart a crashed or stalled engine and go on.
    pub recover: bool,
    /// The `Event` tag.
    pub event: String,
    /// The `Site` tag.
    pub site: String,
    /// The PGN output.
    pub pgn_out: Option<PathBuf>,
    /// Bytes the PGN output had before this match (kept when it is rebuilt).
    pub pgn_offset: u64,
    /// Final positions as EPD.
    pub epd_out: Option<PathBuf>,
    /// Bytes the EPD output had before this match.
    pub epd_offset: u64,
    /// Every line to and from every engine.
    pub log: Option<PathBuf>,
    /// The journal.
    pub journal: Option<PathBuf>,
    /// Sync every journal entry to disk (survives power loss).
    pub sync: bool,
    /// How long a move without a clock may take before the engine is stalled.
    pub stall_timeout: Duration,
    /// Time for the UCI handshake and for `readyok`.
    pub handshake_timeout: Duration,
}

impl MatchPlan {
    /// A plan for `engines` with defaults: one round of one game, round-robin,
    /// no output files.
    pub fn new(engines: Vec<EngineConfig>) -> MatchPlan {
        MatchPlan {
            engines,
            pairing: Pairing::RoundRobin,
            rounds: 1,
            games: 1,
            concurrency: 1,
            book: None,
            chess960: false,
            seed: 0,
            rules: Rules::default(),
            sprt: None,
            recover: false,
            event: "rookery match".to_string(),
            site: "?".to_string(),
            pgn_out: None,
            pgn_offset: 0,
            epd_out: None,
            epd_offset: 0,
            log: None,
            journal: None,
            sync: true,
            stall_timeout: Duration::from_secs(60),
            handshake_timeout: Duration::from_secs(10),
        }
    }

    /// The number of games in the schedule.
    pub fn total_games(&self) -> usize {
        schedule::schedule(self.engines.len(), self.pairing, self.rounds, self.games).len()
    }
}

/// Why a match cannot run or had to stop.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The plan is not playable.
    #[error("{0}")]
    Plan(String),
    /// The opening book cannot be read.
    #[error(transparent)]
    Book(#[from] schedule::BookError),
    /// The journal cannot be read or written.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// An output file cannot be written.
    #[error("{}: {error}", .path.display())]
    Output {
        /// The file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// A journaled game does not replay.
    #[error("{0}")]
    Game(#[from] GameError),
    /// A journaled record does not replay.
    #[error(transparent)]
    Record(#[from] crate::record::RecordError),
}

/// What the match tells its caller as it goes.
#[derive(Debug)]
pub enum MatchEvent<'a> {
    /// A game began.
    Started {
        /// Its number (0-based).
        number: usize,
        /// White's name.
        white: &'a str,
        /// Black's name.
        black: &'a str,
        /// Whether it continues a game cut off earlier.
        resumed: bool,
    },
    /// A game ended.
    Finished {
        /// Its record.
        record: &'a GameRecord,
        /// The standings after it.
        standings: &'a Standings,
    },
    /// Something the user should know (a restart, a stop).
    Note(String),
}

/// Results so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Standings {
    /// Engine names (as the engines report them once started).
    pub names: Vec<String>,
    /// Each engine's results, from its own view.
    pub engines: Vec<Wdl>,
    /// The first engine's games against each other engine (index 0 unused),
    /// with pentanomial counts of complete pairs (blocks of two games on one
    /// opening).
    pub versus: Vec<Tally>,
    /// Games finished.
    pub games: usize,
    /// Games lost on time.
    pub time_forfeits: usize,
    /// Games lost by a crash, stall, illegal move or protocol violation.
    pub failures: usize,
}

/// How the match ended.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    /// The final standings.
    pub standings: Standings,
    /// The SPRT's verdict, when one ran.
    pub sprt: Option<String>,
    /// Why the match stopped before the schedule's end, if it did.
    pub stopped: Option<String>,
    /// Games of the schedule not played.
    pub unplayed: usize,
    /// The referee's time between a move and the next request: median and
    /// 99th percentile, in microseconds.
    pub overhead_us: Option<(u64, u64)>,
}

/// A player that could not be started: it forfeits at the start of the game.
struct Absent {
    name: String,
    reason: String,
}

impl Player for Absent {
    fn name(&self) -> &str {
        &self.name
    }
    fn new_game(&mut self, _: bool) -> Result<(), PlayerError> {
        Err(PlayerError::Start {
            name: self.name.clone(),
            reason: self.reason.clone(),
        })
    }
    fn request_move(
        &mut self,
        _: &crate::player::MoveRequest<'_>,
    ) -> Result<crate::player::MoveReply, PlayerError> {
        Err(PlayerError::Crashed("not running".into()))
    }
    fn restart(&mut self) -> Result<(), PlayerError> {
        Ok(())
    }
    fn quit(&mut self) {}
}

enum Msg {
    Started {
        number: usize,
        white: String,
        black: String,
        resumed: bool,
    },
    Finished(Box<FinishedGame>, [usize; 2]),
    Note(String),
    Fatal(String),
}

/// Shared between the workers.
struct Shared<'a> {
    plan: &'a MatchPlan,
    openings: Vec<Opening>,
    opening_of_block: Vec<usize>,
    queue: Mutex<VecDeque<(Scheduled, Option<Vec<crate::record::MoveRecord>>)>>,
    stop: AtomicBool,
    journal: Option<Mutex<Journal>>,
    log: Option<EngineLog>,
    /// Consecutive start failures per engine.
    start_failures: Mutex<Vec<u32>>,
}

/// How many times in a row an engine may fail to start before the match stops.
const MAX_START_FAILURES: u32 = 3;

fn output_err(path: &Path) -> impl Fn(io::Error) -> MatchError + '_ {
    move |error| MatchError::Output {
        path: path.to_path_buf(),
        error,
    }
}

/// Opens a game output of the match, if it has one: cut back to `offset`,
/// where the journal says it ended, when resuming (then the games finished
/// before are written again, each as `text` gives it), else kept as it is
/// (a new match appends).
fn reopen_output(
    path: &Option<PathBuf>,
    offset: Option<u64>,
    finished: &[GameRecord],
    text: impl Fn(&GameRecord) -> Result<String, RecordError>,
) -> Result<Option<(File, PathBuf)>, MatchError> {
    let Some(p) = path else { return Ok(None) };
    let mut f = open_output(p, offset.unwrap_or_else(|| file_len(p)))?;
    for r in finished {
        f.write_all(text(r)?.as_bytes()).map_err(output_err(p))?;
    }
    Ok(Some((f, p.clone())))
}

/// Cuts `path` back to `len` bytes (creating it if missing) and opens it for appending.
fn open_output(path: &Path, len: u64) -> Result<File, MatchError> {
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(output_err(path))?;
    f.set_len(len).map_err(output_err(path))?;
    drop(f);
    OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(output_err(path))
}

/// The current size of a file (0 when it does not exist).
pub fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Runs a match, or resumes one from its journal. `on_event` is called on
/// the caller's thread.
///
/// # Errors
/// [`MatchError`]: a bad plan, an unreadable book, a journal or output file
/// that cannot be written. Engines that fail are game results (and, without
/// `recover`, a stop reported in the summary), not errors.
pub fn run_match(
    plan: &MatchPlan,
    resume: Option<&JournalState>,
    on_event: &mut dyn FnMut(MatchEvent<'_>),
) -> Result<MatchSummary, MatchError> {
    if plan.engines.len() < 2 {
        return Err(MatchError::Plan(
            "a match needs at least two engines".into(),
        ));
    }
    if plan.rounds == 0 || plan.games == 0 || plan.concurrency == 0 {
        return Err(MatchError::Plan(
            "rounds, games and concurrency must be at least 1".into(),
        ));
    }
    let sprt = match &plan.sprt {
        Some(words) => {
            if plan.engines.len() != 2 {
                return Err(MatchError::Plan("SPRT needs exactly two engines".into()));
            }
            let cfg: SprtConfig = words
                .parse()
                .map_err(|e| MatchError::Plan(format!("{e}")))?;
            Some(Sprt::new(cfg).map_err(|e| MatchError::Plan(format!("{e}")))?)
        }
        None => None,
    };
    let games = schedule::schedule(plan.engines.len(), plan.pairing, plan.rounds, plan.games);
    let blocks = games.last().map_or(0, |g| g.block + 1);
    let (openings, opening_of_block) = match &plan.book {
        Some(book) => {
            let o = schedule::read_book(book)?;
            let order = schedule::opening_order(
                o.len(),
                book.start,
                book.order == BookOrder::Random,
                plan.seed,
                blocks,
            );
            (o, order)
        }
        None if plan.chess960 => (
            schedule::chess960_openings(plan.seed, blocks),
            (0..blocks).collect(),
        ),
        None => (
            vec![Opening {
                start: rookery_core::Position::startpos(),
                moves: Vec::new(),
            }],
            vec![0; blocks],
        ),
    };

    // The journal, and the outputs rebuilt from it on a resume.
    let journal = match (&plan.journal, resume) {
        (_, Some(state)) => Some(Journal::reopen(state, plan.sync)?),
        (Some(path), None) => {
            let value = serde_json::to_value(plan).map_err(|e| MatchError::Plan(e.to_string()))?;
            Some(Journal::create(path, &value, plan.sync)?)
        }
        (None, None) => None,
    };
    let finished_before: Vec<GameRecord> =
        resume.map_or_else(Vec::new, |s| s.finished().into_iter().cloned().collect());
    let resumed = resume.is_some();
    let mut pgn = reopen_output(
        &plan.pgn_out,
        resumed.then_some(plan.pgn_offset),
        &finished_before,
        |r| r.pgn_text(),
    )?;
    let mut epd = reopen_output(
        &plan.epd_out,
        resumed.then_some(plan.epd_offset),
        &finished_before,
        |r| Ok(format!("{}\n", r.epd_line()?)),
    )?;
    let log = match &plan.log {
        Some(p) => {
            let f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(output_err(p))?;
            let sink: Arc<Mutex<dyn Write + Send>> = Arc::new(Mutex::new(io::LineWriter::new(f)));
            Some(EngineLog {
                sink,
                label: String::new(),
                epoch: Instant::now(),
            })
        }
        None => None,
    };

    // The queue: games cut off mid-way first, then the unplayed ones in order.
    let mut queue = VecDeque::new();
    let mut later = VecDeque::new();
    for g in &games {
        match resume.and_then(|s| s.games.get(&g.number)) {
            Some(st) if st.end.is_some() => {}
            Some(st) => queue.push_back((*g, Some(st.moves.clone()))),
            None => later.push_back((*g, None)),
        }
    }
    queue.extend(later);
    let unplayed_at_start = queue.len();

    let mut standings = Standings {
        names: plan.engines.iter().map(EngineConfig::label).collect(),
        engines: vec![Wdl::default(); plan.engines.len()],
        versus: vec![Tally::default(); plan.engines.len()],
        ..Standings::default()
    };
    // Games of each block finished so far, for pentanomial pairs.
    let mut block_results: Vec<Vec<(usize, usize, GameOutcome)>> = vec![Vec::new(); blocks];
    let engines_of = |n: usize| games.get(n).map(|g| [g.white, g.black]);
    let mut sprt_state: Option<String> = None;
    let mut stopped: Option<String> = None;
    let mut overheads: Vec<Duration> = Vec::new();
    for r in &finished_before {
        if let Some(pair) = engines_of(r.number) {
            tally(
                &mut standings,
                &mut block_results,
                &games[r.number],
                pair,
                r,
            );
        }
    }

    let shared = Shared {
        plan,
        openings,
        opening_of_block,
        queue: Mutex::new(queue),
        stop: AtomicBool::new(false),
        journal: journal.map(Mutex::new),
        log,
        start_failures: Mutex::new(vec![0; plan.engines.len()]),
    };
    if let Some(s) = &sprt {
        if let Some(msg) = sprt_verdict(s, &standings.versus[1]) {
            shared.stop.store(true, Ordering::SeqCst);
            stopped = Some(msg.clone());
            sprt_state = Some(msg);
        }
    }

    let (tx, rx) = mpsc::channel::<Msg>();
    let mut played = 0usize;
    std::thread::scope(|scope| -> Result<(), MatchError> {
        let workers = plan.concurrency.min(unplayed_at_start.max(1));
        for w in 0..workers {
            let tx = tx.clone();
            let shared = &shared;
            scope.spawn(move || worker(w, shared, tx));
        }
        drop(tx);
        for msg in rx {
            match msg {
                Msg::Started {
                    number,
                    white,
                    black,
                    resumed,
                } => on_event(MatchEvent::Started {
                    number,
                    white: &white,
                    black: &black,
                    resumed,
                }),
                Msg::Note(n) => on_event(MatchEvent::Note(n)),
                Msg::Fatal(n) => {
                    shared.stop.store(true, Ordering::SeqCst);
                    if stopped.is_none() {
                        stopped = Some(n.clone());
                    }
                    on_event(MatchEvent::Note(n));
                }
                Msg::Finished(fin, pair) => {
                    played += 1;
                    overheads.extend(&fin.overheads);
                    let r = &fin.record;
                    standings.names[pair[0]].clone_from(&r.white);
                    standings.names[pair[1]].clone_from(&r.black);
                    tally(
                        &mut standings,
                        &mut block_results,
                        &games[r.number],
                        pair,
                        r,
                    );
                    if let Some((f, p)) = pgn.as_mut() {
                        f.write_all(r.pgn_text()?.as_bytes())
                            .map_err(output_err(p))?;
                        f.flush().map_err(output_err(p))?;
                    }
                    if let Some((f, p)) = epd.as_mut() {
                        writeln!(f, "{}", r.epd_line()?).map_err(output_err(p))?;
                    }
                    on_event(MatchEvent::Finished {
                        record: r,
                        standings: &standings,
                    });
                    if let Some(s) = &sprt {
                        if sprt_state.is_none() {
                            if let Some(msg) = sprt_verdict(s, &standings.versus[1]) {
                                shared.stop.store(true, Ordering::SeqCst);
                                stopped.get_or_insert_with(|| msg.clone());
                                on_event(MatchEvent::Note(msg.clone()));
                                sprt_state = Some(msg);
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    })?;

    if let Some(s) = &sprt {
        if sprt_state.is_none() {
            let st = s.status(&standings.versus[1]);
            sprt_state = Some(format!(
                "SPRT: LLR {:.2} ({:.2}, {:.2}): no decision yet",
                st.llr, st.lower, st.upper
            ));
        }
    }
    overheads.sort_unstable();
    let pct = |p: f64| overheads[((overheads.len() - 1) as f64 * p).round() as usize];
    let overhead_us = (!overheads.is_empty())
        .then(|| (pct(0.5).as_micros() as u64, pct(0.99).as_micros() as u64));
    Ok(MatchSummary {
        standings,
        sprt: sprt_state,
        stopped,
        unplayed: unplayed_at_start.saturating_sub(played),
        overhead_us,
    })
}

fn sprt_verdict(s: &Sprt, tally: &Tally) -> Option<String> {
    let st = s.status(tally);
    match st.state {
        SprtState::Continue => None,
        SprtState::AcceptH0 => Some(format!(
            "SPRT: H0 accepted (LLR {:.2} <= {:.2}): the change is not an improvement of the size tested",
            st.llr, st.lower
        )),
        SprtState::AcceptH1 => Some(format!(
            "SPRT: H1 accepted (LLR {:.2} >= {:.2})",
            st.llr, st.upper
        )),
    }
}

/// White's result as a [`Outcome`] from the first engine's view, when it plays.
fn first_view(white: usize, outcome: GameOutcome) -> Option<Outcome> {
    let o = match outcome {
        GameOutcome::WhiteWins => Outcome::Win,
        GameOutcome::BlackWins => Outcome::Loss,
        GameOutcome::Draw => Outcome::Draw,
        GameOutcome::Unfinished => return None,
    };
    Some(if white == 0 { o } else { o.reversed() })
}

/// Counts a finished game in the standings.
fn tally(
    s: &mut Standings,
    blocks: &mut [Vec<(usize, usize, GameOutcome)>],
    g: &Scheduled,
    pair: [usize; 2],
    r: &GameRecord,
) {
    let Some(white_view) = first_view(0, r.outcome) else {
        return;
    };
    s.games += 1;
    match r.termination {
        Termination::TimeForfeit => s.time_forfeits += 1,
        Termination::Abandoned
        | Termination::StalledConnection
        | Termination::IllegalMove
        | Termination::RulesInfraction => s.failures += 1,
        _ => {}
    }
    let [w, b] = pair;
    s.engines[w].add(white_view);
    s.engines[b].add(white_view.reversed());
    // The first engine's view of its encounters.
    if w == 0 || b == 0 {
        let opponent = if w == 0 { b } else { w };
        if let Some(o) = first_view(w, r.outcome) {
            s.versus[opponent].add_game(o);
        }
        if let Some(block) = blocks.get_mut(g.block) {
            block.push((w, b, r.outcome));
            // Every two games of a block (one opening, colours reversed) make a pair.
            let n = block.len();
            if n % 2 == 0 {
                if let (Some(x), Some(y)) = (
                    first_view(block[n - 2].0, block[n - 2].2),
                    first_view(block[n - 1].0, block[n - 1].2),
                ) {
                    s.versus[opponent].ptnml.add_pair(x, y);
                }
            }
        }
    }
}

fn start_player(shared: &Shared<'_>, e: usize, worker: usize) -> Box<dyn Player> {
    let cfg = &shared.plan.engines[e];
    let timeouts = Timeouts {
        handshake: shared.plan.handshake_timeout,
        ready: shared.plan.handshake_timeout,
        ..Timeouts::default()
    };
    let log = shared.log.as_ref().map(|l| EngineLog {
        label: format!("{}#{}.{}", cfg.label(), e + 1, worker + 1),
        ..l.clone()
    });
    match UciPlayer::start(cfg.clone(), timeouts, log) {
        Ok(p) => {
            if let Ok(mut f) = shared.start_failures.lock() {
                f[e] = 0;
            }
            Box::new(p)
        }
        Err(err) => Box::new(Absent {
            name: cfg.label(),
            reason: match err {
                PlayerError::Start { reason, .. } => reason,
                other => other.to_string(),
            },
        }),
    }
}

fn worker(id: usize, shared: &Shared<'_>, tx: mpsc::Sender<Msg>) {
    let plan = shared.plan;
    // A fatal failure stops the match before this worker takes another
    // game: the flag is set here, not when the caller reads the message.
    let fatal = |msg: String| {
        shared.stop.store(true, Ordering::SeqCst);
        let _ = tx.send(Msg::Fatal(msg));
    };
    let mut players: Vec<Option<Box<dyn Player>>> = (0..plan.engines.len()).map(|_| None).collect();
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        let next = match shared.queue.lock() {
            Ok(mut q) => q.pop_front(),
            Err(_) => None,
        };
        let Some((g, resume)) = next else { break };
        let pair = [g.white, g.black];
        for &e in &pair {
            let restart = plan.engines[e].restart;
            if restart {
                if let Some(mut p) = players[e].take() {
                    p.quit();
                }
            }
            if players[e].is_none() {
                players[e] = Some(start_player(shared, e, id));
            }
        }
        let [mut white, mut black] = [players[g.white].take(), players[g.black].take()];
        let (Some(w), Some(b)) = (white.as_mut(), black.as_mut()) else {
            break;
        };
        let opening = &shared.openings[shared.opening_of_block[g.block] % shared.openings.len()];
        let setup = GameSetup {
            number: g.number,
            event: plan.event.clone(),
            site: plan.site.clone(),
            round: (g.number + 1).to_string(),
            start: opening.start.clone(),
            opening: opening.moves.clone(),
            tc: [plan.engines[g.white].tc, plan.engines[g.black].tc],
            margin: [
                plan.engines[g.white].timemargin,
                plan.engines[g.black].timemargin,
            ],
            rules: plan.rules,
            stall_timeout: plan.stall_timeout,
        };
        let _ = tx.send(Msg::Started {
            number: g.number,
            white: w.name().to_string(),
            black: b.name().to_string(),
            resumed: resume.is_some(),
        });
        let journal = |e: &Entry| -> io::Result<()> {
            match &shared.journal {
                Some(j) => j
                    .lock()
                    .map_err(|_| io::Error::other("journal lock poisoned"))?
                    .append(e)
                    .map_err(io::Error::other),
                None => Ok(()),
            }
        };
        let result = journal(&Entry::Start { game: g.number })
            .map_err(GameError::Observer)
            .and_then(|()| {
                play_game(
                    &setup,
                    w.as_mut(),
                    b.as_mut(),
                    resume.as_deref(),
                    &mut |mv| {
                        journal(&Entry::Move {
                            game: g.number,
                            mv: mv.clone(),
                        })
                    },
                )
            });
        let fin = match result {
            Ok(f) => f,
            Err(e) => {
                fatal(format!("game {}: {e}", g.number + 1));
                break;
            }
        };
        if let Err(e) = journal(&Entry::End {
            game: g.number,
            record: Box::new(fin.record.clone()),
        }) {
            fatal(format!("game {}: cannot record the end: {e}", g.number + 1));
            break;
        }
        // Decide what to do with each player after the game.
        for (side, e) in pair.into_iter().enumerate() {
            let fault = fin.faults[side];
            let name = plan.engines[e].label();
            let never_started = fin.record.moves.iter().all(|m| m.book)
                && fin.record.termination == Termination::Abandoned
                && fault == Some(Fault::Crashed);
            if never_started {
                let n = shared
                    .start_failures
                    .lock()
                    .map_or(MAX_START_FAILURES, |mut f| {
                        f[e] += 1;
                        f[e]
                    });
                if !plan.recover {
                    fatal(format!(
                        "{name} could not play game {}: {} (use --recover to go on after engine failures)",
                        g.number + 1,
                        fin.record.reason
                    ));
                } else if n >= MAX_START_FAILURES {
                    fatal(format!(
                        "{name} failed to start {n} times in a row: stopping the match"
                    ));
                }
            } else if matches!(fault, Some(Fault::Crashed | Fault::Stalled)) {
                if plan.recover {
                    let _ = tx.send(Msg::Note(format!(
                        "{name} {} in game {}: restarting it for the next game",
                        if fault == Some(Fault::Crashed) {
                            "crashed"
                        } else {
                            "stalled"
                        },
                        g.number + 1
                    )));
                } else {
                    fatal(format!(
                        "{name} {} in game {}: stopping the match (use --recover to restart engines and go on)",
                        if fault == Some(Fault::Crashed) { "crashed" } else { "stalled" },
                        g.number + 1
                    ));
                }
            }
        }
        // A faulty player is dropped; the next game starts it afresh.
        players[g.white] = white.filter(|_| fin.faults[0].is_none_or(|f| f == Fault::Misbehaved));
        players[g.black] = black.filter(|_| fin.faults[1].is_none_or(|f| f == Fault::Misbehaved));
        let _ = tx.send(Msg::Finished(Box::new(fin), pair));
    }
    for p in players.iter_mut().flatten() {
        p.quit();
    }
}
