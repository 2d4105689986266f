"""Make the match openings: positions after 8-12 plies of master games, kept
only if Stockfish at a fixed depth calls them roughly balanced.

Usage: python3 make_openings.py GAMES.pgn OUT.epd [--count 150] [--depth 12]
                                [--max-cp 60] [--stockfish PATH] [--seed 1]

Games are read in file order; for each game a ply in 8..12 is drawn with a
seeded generator, so the output is reproducible. A position is kept if its
first four FEN fields were not seen before, it is not a finished game, and
|score| <= max-cp. Each line is an EPD record: the four FEN fields, then
`ce` (Stockfish's score, side to move, centipawns) and `c0` naming the game.
"""

import argparse
import random
import sys

import chess
import chess.engine
import chess.pgn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pgn")
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--max-cp", type=int, default=60)
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    seen = set()
    kept = []
    sf = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    try:
        with open(args.pgn, encoding="utf-8", errors="replace") as f:
            while len(kept) < args.count:
                game = chess.pgn.read_game(f)
                if game is None:
                    break
                if game.headers.get("Variant", "Standard") != "Standard" or "FEN" in game.headers:
                    continue
                ply = rng.randint(8, 12)
                board = game.board()
                moves = list(game.mainline_moves())
                if len(moves) < ply + 2:
                    continue
                for m in moves[:ply]:
                    board.push(m)
                key = " ".join(board.fen().split()[:4])
                if key in seen or board.is_game_over():
                    continue
                seen.add(key)
                info = sf.analyse(board, chess.engine.Limit(depth=args.depth))
                cp = info["score"].relative.score(mate_score=100000)
                if abs(cp) > args.max_cp:
                    continue
                name = f"{game.headers.get('White', '?')} - {game.headers.get('Black', '?')}, " \
                       f"{game.headers.get('Event', '?')} {game.headers.get('Date', '?')}, ply {ply}"
                name = name.replace('"', "'")
                kept.append(f'{key} ce {cp}; c0 "{name}";')
    finally:
        sf.quit()
    with open(args.out, "w") as out:
        for line in kept:
            print(line, file=out)
    print(f"{len(kept)} positions written to {args.out}", file=sys.stderr)
    return 0 if len(kept) == args.count else 1


if __name__ == "__main__":
    sys.exit(main())
