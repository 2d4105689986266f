//! `rookery referee serve|connect`: the Argus network referee and the client
//! adapter that makes any UCI engine (or the built-in one) its client.

use crate::output::{usage, Status};
use anyhow::Context;
use rookery_analysis::select::{EngineCommand, OptionWord};
use rookery_referee::argus::client::{Client, ClientConfig, ClientEvent, Judgement};
use rookery_referee::argus::config::EventConfig;
use rookery_referee::argus::server::{Control, Event, Notice};
use rookery_referee::player::EngineConfig;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

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
}

/// Flags of `rookery referee connect`.
#[derive(clap::Args, Debug)]
struct ConnectArgs {
    /// The referee.
    #[arg(value_name = "HOST:PORT")]
    address: String,
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
    /// The player's secret.
    #[arg(long)]
    token: String,
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
    /// Print every record sent (>) and received (<) on stderr.
    #[arg(long, short)]
    verbose: bool,
}

/// Runs `rookery referee`.
pub fn run(args: Args) -> anyhow::Result<Status> {
    match args.command {
        Sub::Serve(a) => serve(a),
        Sub::Connect(a) => connect(a),
    }
}

fn serve(a: ServeArgs) -> anyhow::Result<Status> {
    let cfg = EventConfig::read(&a.config).map_err(|e| usage(e.to_string()))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    let background = a.background;
    rt.block_on(async move {
        let (notice_tx, mut notices) = tokio::sync::mpsc::unbounded_channel::<Notice>();
        let (control_tx, controls) = tokio::sync::mpsc::unbounded_channel::<Control>();
        let event = Event::bind(cfg, a.listen, notice_tx).await?;
        {
            let mut out = std::io::stdout().lock();
            writeln!(out, "listening on {}", event.local_addr())?;
            out.flush()?;
        }
        let printer = tokio::spawn(async move {
            while let Some(n) = notices.recv().await {
                match n {
                    Notice::Status(s) => println!("{}", s.trim_end()),
                    n @ (Notice::GameOver(..) | Notice::Fault(..)) => eprintln!("{n}"),
                    n if !background => eprintln!("{n}"),
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
        let (w, d, l) = summary.games.iter().fold((0, 0, 0), |(w, d, l), g| match g.outcome.as_str() {
            "1-0" => (w + 1, d, l),
            "0-1" => (w, d, l + 1),
            "1/2-1/2" => (w, d + 1, l),
            _ => (w, d, l),
        });
        writeln!(
            out,
            "event over: {} games ({w} white wins, {d} draws, {l} black wins), {} unplayed, peak {} connections",
            summary.games.len(),
            summary.unplayed,
            summary.peak_connections
        )?;
        if let (Some(m), Some(p)) = (summary.latency(0.5), summary.latency(0.99)) {
            writeln!(
                out,
                "referee latency per move (reply read to respond sent): median {} us, p99 {} us, {} moves",
                m.as_micros(),
                p.as_micros(),
                summary.latencies.len()
            )?;
        }
        anyhow::Ok(Status::Ok)
    })
}

fn connect(a: ConnectArgs) -> anyhow::Result<Status> {
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
    let cfg = ClientConfig {
        address: a.address,
        engine,
        name: a.name,
        token: a.token,
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
        max_attempts: 20,
    };
    let mut client = Client::new(cfg)?;
    let stop = AtomicBool::new(false);
    let verbose = a.verbose;
    client.run(&stop, &mut |ev| match ev {
        ClientEvent::Record(sent, line) if verbose => {
            eprintln!("{} {line}", if sent { ">" } else { "<" })
        }
        ClientEvent::Record(..) => {}
        ClientEvent::SignedOn(at) => eprintln!("signed on at {at}"),
        ClientEvent::Fault(why) => eprintln!("referee fault: {why}"),
        ClientEvent::GameOver(r, why) => eprintln!("game over: {r} {why}"),
        ClientEvent::Retrying(why, after) => {
            eprintln!("link lost ({why}); retrying in {} ms", after.as_millis())
        }
    })?;
    Ok(Status::Ok)
}
