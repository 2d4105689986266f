//! `rookery pgn tree`: the opening explorer (`rookery_pgn::explorer`) over
//! the games of the inputs, printed as a table or JSON.

use super::reading::{print_diag, progress};
use super::stream::{status, Common};
use crate::output::display_name;
use crate::output::{self, Status};
use rookery_core::{Color, Position};
use rookery_pgn::explorer::{self, Branch, Explorer, Tally, Tree};
use rookery_pgn::source::Source;
use rookery_pgn::stream::{Part, Plan, Stats, Task};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Flags of `rookery pgn tree`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "For each move from the position: the games that played it, how many White \
won, drew and Black won (in percent of the games with a result; games without one are counted \
apart), the average Elo of the player who moved and that player's performance. The position is \
found in every game's mainline, whatever the move order (transpositions included), and so is \
every position of the tree (a game counts once per position: for the last move it played from \
it). Performance = the opponents' average Elo + the FIDE rating difference dp for the score \
percentage (FIDE Handbook B.02, interpolated between whole percents), over the games in which the \
opponent's Elo is known; the average Elo is over the games in which the mover's is known.\n\n\
Examples:\n  rookery pgn tree games.pgn\n  rookery pgn tree games.pgn --fen \
'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1' --depth 3\n  rookery pgn tree \
--json --jobs 2 big.pgn"
)]
pub struct TreeArgs {
    /// Input files (`-` for stdin).
    #[arg(default_value = "-")]
    inputs: Vec<PathBuf>,
    /// The position to explore from (default: the standard start).
    #[arg(long, value_name = "FEN")]
    fen: Option<String>,
    /// Plies of moves shown: 1 is the moves from the position, 2 adds the
    /// replies to each, and so on.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,
    /// Machine-readable output (one JSON object, moves nested).
    #[arg(long)]
    json: bool,
    /// Stop at the first game with an error.
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    common: Common,
}

/// Runs `rookery pgn tree`.
pub fn run(a: TreeArgs) -> anyhow::Result<Status> {
    let root = match &a.fen {
        None => Position::startpos(),
        Some(fen) => Position::from_fen(fen.trim())
            .map_err(|e| output::usage(format!("--fen {fen:?}: {e}")))?,
    };
    let plan = a.common.plan(Task::Stats, a.strict);
    let mut found = Explorer::new(root, a.depth as usize);
    let mut total = Stats::default();
    let mut diag = std::io::stderr();
    for path in &a.inputs {
        if !output::is_std(path) {
            if let Some(refused) = crate::input::unreadable(path) {
                eprintln!("rookery: error: {refused}");
                total.missing_files += 1;
                continue;
            }
        }
        let file = display_name(path);
        let mut stopped = false;
        let got = collect(&plan, &found, path, &mut |part: Part| {
            for d in &part.diags {
                print_diag(&mut diag, &file, d, false)?;
            }
            stopped |= part.stopped;
            total.merge(part.stats);
            Ok(())
        })?;
        found.merge(got);
        if stopped {
            break;
        }
    }
    let tree = found.tree();
    let mut out = output::stdout();
    if a.json {
        writeln!(out, "{}", tree_json(&tree))?;
    } else {
        print_tree(&mut out, &tree)?;
    }
    out.flush()?;
    Ok(status(&total, false))
}

/// Counts the games of one input into an explorer like `like`.
fn collect(
    plan: &Plan,
    like: &Explorer,
    path: &Path,
    sink: &mut dyn FnMut(Part) -> anyhow::Result<()>,
) -> anyhow::Result<Explorer> {
    let file = display_name(path);
    let pb = progress(path);
    let mut progress = |bytes: u64| {
        if let Some(pb) = &pb {
            pb.set_position(bytes);
        }
    };
    let empty = like.empty_like();
    let input = crate::input::open_input_raw(path)?;
    let name = file.clone();
    let source = Source::input(input).on_latin1(move |line| crate::input::warn_latin1(&name, line));
    let done = explorer::run(plan, &empty, source, &mut progress, sink);
    let found = done.map_err(|e| super::reading::read_failure(e, &file))?;
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok(found)
}

/// `n` as a percentage of the tally's finished games, or `-`.
fn percent(t: &Tally, n: u64) -> String {
    t.percent(n).map_or("-".into(), |p| format!("{p:.1}%"))
}

fn or_dash<T: ToString>(v: Option<T>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

pub(crate) fn print_tree(out: &mut dyn Write, tree: &Tree) -> std::io::Result<()> {
    let t = &tree.tally;
    writeln!(out, "position  {}", tree.fen)?;
    write!(
        out,
        "games     {} (white {}, draws {}, black {}",
        t.games(),
        percent(t, t.white),
        percent(t, t.draws),
        percent(t, t.black)
    )?;
    if t.unfinished > 0 {
        write!(out, "; {} without a result", t.unfinished)?;
    }
    writeln!(out, ")")?;
    if tree.moves.is_empty() {
        return writeln!(out, "no game plays a move from this position");
    }
    writeln!(
        out,
        "\n{:<20} {:>8} {:>6} {:>7} {:>7} {:>7} {:>7} {:>6}",
        "move", "games", "share", "white", "draws", "black", "avg Elo", "perf"
    )?;
    print_branches(out, &tree.moves, 0)
}

fn print_branches(out: &mut dyn Write, moves: &[Branch], level: usize) -> std::io::Result<()> {
    let all: u64 = moves.iter().map(|b| b.tally.games()).sum();
    for b in moves {
        let t = &b.tally;
        let number = match b.turn {
            Color::White => format!("{}.", b.number),
            Color::Black => format!("{}...", b.number),
        };
        let name = format!("{:indent$}{number}{}", "", b.san, indent = 2 * level);
        let share = 100.0 * t.games() as f64 / all.max(1) as f64;
        writeln!(
            out,
            "{name:<20} {:>8} {:>5.1}% {:>7} {:>7} {:>7} {:>7} {:>6}",
            t.games(),
            share,
            percent(t, t.white),
            percent(t, t.draws),
            percent(t, t.black),
            or_dash(t.average_elo()),
            or_dash(t.performance()),
        )?;
        print_branches(out, &b.moves, level + 1)?;
    }
    Ok(())
}

fn tally_json(t: &Tally) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    m.insert("games".into(), t.games().into());
    m.insert("white".into(), t.white.into());
    m.insert("draws".into(), t.draws.into());
    m.insert("black".into(), t.black.into());
    m.insert("unfinished".into(), t.unfinished.into());
    m.insert("average_elo".into(), t.average_elo().into());
    m.insert(
        "average_opponent_elo".into(),
        t.average_opponent_elo().into(),
    );
    m.insert("performance".into(), t.performance().into());
    m
}

fn branches_json(moves: &[Branch]) -> serde_json::Value {
    moves
        .iter()
        .map(|b| {
            let mut m = serde_json::Map::new();
            m.insert("uci".into(), b.uci.clone().into());
            m.insert("san".into(), b.san.clone().into());
            m.extend(tally_json(&b.tally));
            m.insert("moves".into(), branches_json(&b.moves));
            serde_json::Value::Object(m)
        })
        .collect()
}

pub(crate) fn tree_json(tree: &Tree) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("fen".into(), tree.fen.clone().into());
    let t = &tree.tally;
    for (k, v) in [
        ("games", t.games()),
        ("white", t.white),
        ("draws", t.draws),
        ("black", t.black),
        ("unfinished", t.unfinished),
    ] {
        m.insert(k.into(), v.into());
    }
    m.insert("moves".into(), branches_json(&tree.moves));
    serde_json::Value::Object(m)
}
