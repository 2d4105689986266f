//! `rookery show FEN`: the board, the game state and every legal move.

use crate::output::{self, Status};
use anyhow::Context;
use rookery_core::{CastlingMode, Mode, Position, SanPlus, Setup, UciMove};
use serde::Serialize;
use std::io::Write;

/// Flags of `rookery show`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  rookery show 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'"
)]
pub struct Args {
    /// The position as FEN (quote it: it contains spaces); default: the standard start.
    fen: Option<String>,
    /// Write castling as king-takes-rook (UCI_Chess960).
    #[arg(long)]
    chess960: bool,
    /// Machine-readable output: one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Shown {
    fen: String,
    turn: &'static str,
    castling: String,
    en_passant: Option<String>,
    halfmoves: u32,
    fullmoves: u32,
    check: bool,
    checkers: Vec<String>,
    checkmate: bool,
    stalemate: bool,
    insufficient_material: bool,
    fifty_moves: bool,
    seventy_five_moves: bool,
    moves: Vec<ShownMove>,
}

#[derive(Serialize)]
struct ShownMove {
    uci: String,
    san: String,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<Status> {
    let (pos, warnings) = match &args.fen {
        Some(fen) => Setup::from_fen(fen, Mode::Lenient)
            .map_err(anyhow::Error::from)
            .and_then(|s| Ok(s.into_position(Mode::Lenient)?))
            .with_context(|| format!("invalid FEN {fen:?}"))?,
        None => (Position::startpos(), Vec::new()),
    };
    for (w, off) in &warnings {
        eprintln!("rookery: warning: FEN byte {off}: {w} (ignored)");
    }
    let mode = if args.chess960 || pos.is_chess960_castling() {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let fen = pos.fen();
    let mut fields = fen.split(' ').skip(2);
    let castling = fields.next().unwrap_or("-").to_string();
    let moves: Vec<ShownMove> = pos
        .legal_moves()
        .iter()
        .map(|&m| ShownMove {
            uci: UciMove::from_move(&pos, m, mode).to_string(),
            san: SanPlus::from_move(&pos, m).to_string(),
        })
        .collect();
    let shown = Shown {
        turn: if pos.turn() == rookery_core::Color::White {
            "white"
        } else {
            "black"
        },
        castling,
        en_passant: pos.ep_square().map(|s| s.to_string()),
        halfmoves: pos.halfmoves(),
        fullmoves: pos.fullmoves(),
        check: pos.is_check(),
        checkers: pos.checkers().map(|s| s.to_string()).collect(),
        checkmate: pos.is_checkmate(),
        stalemate: pos.is_stalemate(),
        insufficient_material: pos.is_insufficient_material(),
        fifty_moves: pos.is_fifty_moves(),
        seventy_five_moves: pos.is_seventy_five_moves(),
        moves,
        fen,
    };
    let mut out = output::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &shown)?;
        writeln!(out)?;
    } else {
        for (i, line) in pos.board_string().lines().enumerate() {
            writeln!(out, "{}  {line}", 8 - i)?;
        }
        writeln!(out, "   a b c d e f g h\n")?;
        writeln!(out, "fen         {}", shown.fen)?;
        writeln!(out, "to move     {}", shown.turn)?;
        writeln!(out, "castling    {}", shown.castling)?;
        writeln!(
            out,
            "en passant  {}",
            shown.en_passant.as_deref().unwrap_or("-")
        )?;
        writeln!(
            out,
            "clocks      halfmove {}, fullmove {}",
            shown.halfmoves, shown.fullmoves
        )?;
        let state = if shown.checkmate {
            "checkmate".to_string()
        } else if shown.stalemate {
            "stalemate".to_string()
        } else if shown.check {
            format!("check by {}", shown.checkers.join(", "))
        } else {
            "-".to_string()
        };
        writeln!(out, "state       {state}")?;
        let mut draws = Vec::new();
        if shown.insufficient_material {
            draws.push("insufficient material");
        }
        if shown.seventy_five_moves {
            draws.push("75-move rule");
        } else if shown.fifty_moves {
            draws.push("50-move rule (claimable)");
        }
        writeln!(
            out,
            "draw        {}",
            if draws.is_empty() {
                "-".into()
            } else {
                draws.join(", ")
            }
        )?;
        writeln!(out, "moves       {}", shown.moves.len())?;
        for m in &shown.moves {
            writeln!(out, "  {:<8} {}", m.san, m.uci)?;
        }
    }
    out.flush()?;
    Ok(Status::Ok)
}
