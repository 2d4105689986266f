//! `rookery referee serve|observe|connect`: the Argus network referee, its
//! standby, and the client adapter that makes any UCI engine (or the
//! built-in one) its client.

use crate::output::{usage, Status};
use anyhow::Context;
use rookery_analysis::select::{EngineCommand, OptionWord};
use rookery_argus::client::{Client, ClientConfig, ClientEvent, Judgement, Target};
use rookery_argus::config::{EventConfig, TOKEN_ENV};
use rookery_argus::protocol::printable;
use rookery_argus::server::ServeError;
use rookery_argus::server::{BindOptions, Control, Event, EventStart, Notice};
use rookery_argus::standby::{self, Standby, StandbyEvent};
use rookery_argus::web::{self, WebServer};
use rookery_event::runner::RunnerError;
use rookery_event::standings;
use rookery_game::player::EngineConfig;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Flags of `rookery referee`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Run an event: listen for clients, pair them, referee every game.
    Serve(ServeArgs),
    /// Stand by: follow a running referee's journal and take the event over
    /// when it stops answering.
    Observe(ObserveArgs),
    /// Connect an engine to a referee as a client.
    Connect(ConnectArgs),
}

/// Flags of `rookery referee serve`.
#[derive(clap::Args, Debug)]
struct ServeArgs {
    /// The event file (TOML: `[event]` and `[[player]]` tables).
    #[arg(long)]
    config: PathBuf,
    /// Address to listen on (overrides the event file; port 0 picks one).
    #[arg(long, value_name = "ADDR:PORT")]
    listen: Option<String>,
    /// Unattended: no console, no commands; exit when the event is over.
    #[arg(long)]
    background: bool,
    /// Continue the event from its journal (after a crash or kill): games
    /// finished stay, games in progress resume from their last move.
    #[arg(long, conflicts_with = "fresh")]
    resume: bool,
    /// Start the event again over an unfinished one's journal: the old
    /// journal is kept as JOURNAL.1 and the games it wrote to the PGN as
    /// PGN.1.
    #[arg(long)]
    fresh: bool,
    /// Play over these character devices (serial lines, pseudo-terminals)
    /// instead of TCP, one client on each: DEV1,DEV2.
    #[arg(long, value_name = "DEV1,DEV2", value_delimiter = ',', num_args = 1..)]
    serial: Vec<PathBuf>,
    /// Address of the live spectator page (default: the referee's host, a free port).
    #[arg(long, value_name = "ADDR:PORT", conflicts_with = "no_web")]
    web: Option<String>,
    /// Serve no spectator page.
    #[arg(long)]
    no_web: bool,
}

/// Flags of `rookery referee observe`.
#[derive(clap::Args, Debug)]
struct ObserveArgs {
    /// The primary referee to follow.
    #[arg(long, value_name = "HOST:PORT")]
    primary: String,
    /// The event file (the same event; its `observer_token` is sent to the
    /// primary, its pgn, log_dir and journal are this referee's own).
    #[arg(long)]
    config: PathBuf,
    /// The address to listen on after taking over (overrides the event file).
    #[arg(long, value_name = "ADDR:PORT")]
    listen: Option<String>,
    /// Take over when the primary has been silent this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    takeover_after: f64,
    /// Unattended after taking over: no console, no commands.
    #[arg(long)]
    background: bool,
    /// Address of the live spectator page after taking over (default: the referee's host, a free port).
    #[arg(long, value_name = "ADDR:PORT", conflicts_with = "no_web")]
    web: Option<String>,
    /// Serve no spectator page.
    #[arg(long)]
    no_web: bool,
}

/// Flags of `rookery referee connect`.
#[derive(clap::Args, Debug)]
struct ConnectArgs {
    /// The referees, tried in order when the link drops (comma separated or
    /// several).
    #[arg(
        value_name = "HOST:PORT",
        value_delimiter = ',',
        required_unless_present = "serial"
    )]
    address: Vec<String>,
    /// Sign on over this character device instead of TCP.
    #[arg(long, value_name = "DEV", conflicts_with = "address")]
    serial: Option<PathBuf>,
    /// The engine: a UCI program, or `builtin`.
    #[arg(long)]
    engine: String,
    /// Arguments of the engine program (repeatable).
    #[arg(long = "engine-arg", value_name = "ARG")]
    engine_args: Vec<String>,
    /// A UCI option for the engine, NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// The registered player name.
    #[arg(long)]
    name: String,
    /// The player's secret (visible to every user of the machine in the
    /// process list: prefer --token-file or ROOKERY_TOKEN, which it
    /// overrides).
    #[arg(long, conflicts_with = "token_file")]
    token: Option<String>,
    /// A file whose first line is the player's secret (overrides
    /// ROOKERY_TOKEN).
    #[arg(long, value_name = "PATH")]
    token_file: Option<PathBuf>,
    /// Resign at this score against (centipawns) held for --resign-moves moves; 0 never resigns.
    #[arg(long, default_value_t = 1000)]
    resign_cp: i32,
    /// See --resign-cp.
    #[arg(long, default_value_t = 3)]
    resign_moves: u32,
    /// Offer a draw within this score (centipawns) held for --draw-moves moves from move --draw-from; 0 never offers.
    #[arg(long, default_value_t = 10)]
    draw_cp: i32,
    /// See --draw-cp.
    #[arg(long, default_value_t = 8)]
    draw_moves: u32,
    /// See --draw-cp.
    #[arg(long, default_value_t = 40)]
    draw_from: u32,
    /// Accept a draw offer at or below this score (centipawns).
    #[arg(long, default_value_t = 10, allow_negative_numbers = true)]
    accept_cp: i32,
    /// Never accept a draw offer.
    #[arg(long)]
    no_accept: bool,
    /// Sign off after this many games.
    #[arg(long)]
    games: Option<usize>,
    /// Do not reconnect when the link drops.
    #[arg(long)]
    no_reconnect: bool,
    /// Give up after this many failed connection attempts in a row.
    #[arg(long, default_value_t = 20)]
    max_attempts: u32,
    /// Print every record sent (>) and received (<) on stderr.
    #[arg(long, short)]
    verbose: bool,
}

/// Runs `rookery referee`.
pub fn run(args: Args) -> anyhow::Result<Status> {
    match args.command {
        Sub::Serve(a) => serve(a),
        Sub::Observe(a) => observe(a),
        Sub::Connect(a) => connect(a),
    }
}

fn serve(a: ServeArgs) -> anyhow::Result<Status> {
    let cfg = EventConfig::read(&a.config).map_err(|e| usage(e.to_string()))?;
    for w in cfg.warnings() {
        eprintln!("warning: {}: {w}", a.config.display());
    }
    if !a.serial.is_empty() && a.serial.len() != 2 {
        return Err(usage("--serial takes two devices: DEV1,DEV2"));
    }
    let opts = BindOptions {
        listen: a.listen,
        start: if a.resume {
            EventStart::Resume
        } else if a.fresh {
            EventStart::Fresh
        } else {
            EventStart::New
        },
        pgn_base: None,
        serial: a.serial,
    };
    let web = (!a.no_web).then_some(a.web);
    run_event(cfg, opts, a.background, web)
}

fn observe(a: ObserveArgs) -> anyhow::Result<Status> {
    let cfg = EventConfig::read(&a.config).map_err(|e| usage(e.to_string()))?;
    let Some(token) = cfg.observer_token.clone() else {
        return Err(usage(format!(
            "{}: the event has no observer_token to follow the primary with",
            a.config.display()
        )));
    };
    if !(a.takeover_after.is_finite() && a.takeover_after > 0.0) {
        return Err(usage(
            "--takeover-after must be a positive number of seconds",
        ));
    }
    // This referee's games begin where its PGN file ends now.
    let pgn_base = std::fs::metadata(&cfg.pgn).map_or(0, |m| m.len());
    let s = Standby {
        primary: a.primary.clone(),
        token,
        journal: cfg.journal.clone(),
        takeover_after: Duration::from_secs_f64(a.takeover_after),
    };
    println!(
        "following {} (journal copy {})",
        a.primary,
        s.journal.display()
    );
    let t = standby::follow(&s, &mut |e| match e {
        StandbyEvent::Following(from) => eprintln!("following the journal from byte {from}"),
        StandbyEvent::Lost(why) => eprintln!("link to the primary lost: {why}"),
    })?;
    println!(
        "taking over from {}: silent for {} ms, {} journal entries ({} bytes) copied",
        a.primary,
        t.last_contact.elapsed().as_millis(),
        t.entries,
        t.bytes
    );
    let opts = BindOptions {
        listen: a.listen,
        start: EventStart::Resume,
        pgn_base: Some(pgn_base),
        serial: Vec::new(),
    };
    let web = (!a.no_web).then_some(a.web);
    run_event(cfg, opts, a.background, web)
}

/// Binds and runs an event, with the supervisor's console unless
/// `background`, and the spectator page unless `web` is `None` (at the
/// address it holds, or by default on the referee's host).
fn run_event(
    cfg: EventConfig,
    opts: BindOptions,
    background: bool,
    web: Option<Option<String>>,
) -> anyhow::Result<Status> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    let resume = opts.start == EventStart::Resume;
    // Over serial lines the referee has no network address of its own: the
    // page defaults to loopback.
    let serial = !opts.serial.is_empty();
    let result = rt.block_on(async move {
        let (notice_tx, mut notices) = tokio::sync::mpsc::unbounded_channel::<Notice>();
        let (control_tx, controls) = tokio::sync::mpsc::unbounded_channel::<Control>();
        // SIGINT or SIGTERM: the supervisor's `shutdown` (the games in
        // progress are cut, journaled, the players' programs ended); a
        // second one ends the process at once.
        let signalled = Arc::new(AtomicBool::new(false));
        {
            let signalled = signalled.clone();
            for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                signal_hook::flag::register_conditional_shutdown(signal, 130, signalled.clone())?;
                signal_hook::flag::register(signal, signalled.clone())?;
            }
            let control_tx = control_tx.clone();
            std::thread::spawn(move || {
                while !signalled.load(std::sync::atomic::Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                let _ = control_tx.send(Control::Shutdown);
            });
        }
        let bound = Instant::now();
        let event = match Event::bind_with(cfg, opts, notice_tx).await {
            Ok(e) => e,
            // An old journal in the way is the command line's to settle.
            Err(e @ ServeError::Runner(RunnerError::Unfinished { .. } | RunnerError::NotAJournal { .. } | RunnerError::Mismatch { .. })) => {
                return Err(usage(e.to_string()))
            }
            Err(e) => return Err(e.into()),
        };
        let page = match web {
            None => None,
            Some(addr) => {
                let addr = addr.unwrap_or_else(|| {
                    if serial {
                        "127.0.0.1:0".to_string()
                    } else {
                        web::default_address(event.local_addr())
                    }
                });
                Some(WebServer::bind(&addr).await?)
            }
        };
        {
            let mut out = std::io::stdout().lock();
            writeln!(out, "listening on {}", event.local_addr())?;
            if let Some((done, open)) = event.resumed_games().filter(|_| resume) {
                writeln!(
                    out,
                    "resumed from the journal: {done} games finished, {open} in progress (read in {} ms)",
                    bound.elapsed().as_millis()
                )?;
            }
            if let Some(p) = &page {
                writeln!(out, "spectator page: http://{}/", p.local_addr())?;
            }
            out.flush()?;
            if !serial {
                warn_if_open("players' port", event.local_addr());
            }
            if let Some(p) = &page {
                warn_if_open("spectator page", &p.local_addr().to_string());
            }
        }
        if let Some(p) = page {
            let feed = event.feed();
            tokio::spawn(async move {
                if let Err(e) = p.run(feed).await {
                    eprintln!("spectator page stopped: {e}");
                }
            });
        }
        let printer = tokio::spawn(async move {
            // A notice carries what clients sent: escaped, never raw.
            while let Some(n) = notices.recv().await {
                match n {
                    Notice::Status(s) => {
                        for line in s.trim_end().lines() {
                            println!("{}", printable(line));
                        }
                    }
                    n @ (Notice::GameOver(..) | Notice::Fault(..)) => {
                        eprintln!("{}", printable(&n.to_string()))
                    }
                    n if !background => eprintln!("{}", printable(&n.to_string())),
                    _ => {}
                }
            }
        });
        if !background {
            // The supervisor's console: one command per line on stdin.
            std::thread::spawn(move || {
                for line in std::io::stdin().lock().lines() {
                    let Ok(line) = line else { break };
                    if line.trim().is_empty() {
                        continue;
                    }
                    match line.parse::<Control>() {
                        Ok(c) => {
                            if control_tx.send(c).is_err() {
                                break;
                            }
                        }
                        Err(e) => eprintln!("{e}"),
                    }
                }
            });
        } else {
            drop(control_tx);
        }
        let summary = event.run(controls).await?;
        printer.abort();
        let mut out = std::io::stdout().lock();
        let st = &summary.standings;
        writeln!(
            out,
            "event over: {} games, {} unplayed, peak {} connections",
            st.games(),
            summary.unplayed,
            summary.peak_connections
        )?;
        for (rank, &i) in st.ranking().iter().enumerate() {
            let w = st.player(i);
            writeln!(
                out,
                "  {:>2}. {:<24} {:>5} of {:>3}  (+{} ={} -{})",
                rank + 1,
                st.names()[i],
                standings::points_text(2 * w.wins + w.draws),
                w.games(),
                w.wins,
                w.draws,
                w.losses
            )?;
        }
        if let (Some(m), Some(p)) = (summary.latency.quantile_us(0.5), summary.latency.quantile_us(0.99)) {
            writeln!(
                out,
                "referee latency per move (reply read to respond sent): median {m} us, p99 {p} us, {} moves",
                summary.latency.count()
            )?;
        }
        anyhow::Ok(if signalled.load(std::sync::atomic::Ordering::SeqCst) {
            Status::Interrupted
        } else {
            Status::Ok
        })
    });
    // A client's device may still be read by a blocking thread: do not
    // wait for it.
    rt.shutdown_timeout(Duration::from_secs(1));
    result
}

/// Whether a bound `ADDR:PORT` is reached from the machine's network (it
/// is not loopback).
fn open_to_network(address: &str) -> bool {
    address
        .parse::<std::net::SocketAddr>()
        .map_or(true, |a| !a.ip().is_loopback())
}

/// Warns on stderr when `address` is reached from the network.
pub(crate) fn warn_if_open(what: &str, address: &str) {
    if open_to_network(address) {
        eprintln!(
            "warning: the {what} {address} is reachable from the network, not only from this machine"
        );
    }
}

/// The player's token: `--token`, else `--token-file` (its first line),
/// else the environment's `ROOKERY_TOKEN`.
fn token(flag: Option<String>, file: Option<PathBuf>) -> anyhow::Result<String> {
    let token = match (flag, file) {
        (Some(t), _) => t,
        (None, Some(path)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| usage(format!("--token-file {}: {e}", path.display())))?;
            text.lines().next().unwrap_or("").to_string()
        }
        (None, None) => std::env::var(TOKEN_ENV).map_err(|_| {
            usage(format!(
                "no token: give --token-file PATH, the environment variable {TOKEN_ENV}, or --token"
            ))
        })?,
    };
    if token.is_empty() {
        return Err(usage("the token is empty"));
    }
    Ok(token)
}

fn connect(a: ConnectArgs) -> anyhow::Result<Status> {
    let secret = token(a.token, a.token_file)?;
    let mut engine = EngineConfig::builtin();
    engine.command = a
        .engine
        .parse::<EngineCommand>()
        .and_then(|c| c.with_process(&a.engine_args, None))
        .map_err(|e| usage(format!("--engine {}: {e}", a.engine)))?;
    for o in &a.options {
        match o.parse::<OptionWord>() {
            Ok(OptionWord {
                name,
                value: Some(value),
            }) => engine.set_option(&name, &value),
            _ => return Err(usage(format!("--option {o:?}: expected NAME=VALUE"))),
        }
    }
    let nonzero = |v: i32| (v != 0).then_some(v);
    let targets = match a.serial {
        Some(dev) => vec![Target::Serial(dev)],
        None => a.address.into_iter().map(Target::Tcp).collect(),
    };
    let cfg = ClientConfig {
        targets,
        engine,
        name: a.name,
        token: secret,
        judgement: Judgement {
            resign_cp: nonzero(a.resign_cp),
            resign_moves: a.resign_moves,
            draw_cp: nonzero(a.draw_cp),
            draw_moves: a.draw_moves,
            draw_from: a.draw_from,
            accept_cp: (!a.no_accept).then_some(a.accept_cp),
        },
        max_games: a.games,
        reconnect: !a.no_reconnect,
        max_attempts: a.max_attempts.max(1),
    };
    let mut client = Client::new(cfg)?;
    let stop = AtomicBool::new(false);
    let verbose = a.verbose;
    // What the referee sends is escaped, never printed raw.
    client.run(&stop, &mut |ev| match ev {
        ClientEvent::Record(sent, line) if verbose => {
            eprintln!("{} {}", if sent { ">" } else { "<" }, printable(&line))
        }
        ClientEvent::Record(..) => {}
        ClientEvent::SignedOn(at) => eprintln!("signed on at {}", printable(&at)),
        ClientEvent::Fault(why) => eprintln!("referee fault: {}", printable(&why)),
        ClientEvent::MoveDropped(why) => eprintln!("{}", printable(&why)),
        ClientEvent::GameOver(r, why) => {
            eprintln!("game over: {} {}", printable(&r), printable(&why))
        }
        ClientEvent::Retrying(why, after) if after.is_zero() => {
            eprintln!(
                "cannot sign on ({}); trying the next referee",
                printable(&why)
            )
        }
        ClientEvent::Retrying(why, after) => eprintln!(
            "link lost ({}); retrying in {} ms",
            printable(&why),
            after.as_millis()
        ),
    })?;
    Ok(Status::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_are_closed_to_the_network() {
        for closed in ["127.0.0.1:7000", "127.0.0.2:1", "[::1]:7000"] {
            assert!(!open_to_network(closed), "{closed}");
        }
        for open in ["0.0.0.0:7000", "[::]:7000", "192.168.1.5:7000", "host:7000"] {
            assert!(open_to_network(open), "{open}");
        }
    }
}
