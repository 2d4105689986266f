"""Baseline for `rookery pgn annotate`'s overhead: python-chess analyses the
same positions (every mainline position of every game, once) with the same
engine and limit, the games spread over the same number of engine processes.

usage: python3 scripts/annotate_baseline.py FILE.pgn --engine PATH --depth N
           [--games N] [--jobs N]

Prints the games, positions and wall time. Needs python-chess (1.11.2).
"""

import argparse
import multiprocessing
import time

import chess
import chess.engine
import chess.pgn


def read_games(path, limit):
    games = []
    with open(path, encoding="utf-8", errors="replace") as f:
        while len(games) < limit:
            g = chess.pgn.read_game(f)
            if g is None:
                break
            games.append(g.accept(chess.pgn.StringExporter(headers=True, variations=False, comments=False)))
    return games


def work(args):
    engine_path, depth, chunk = args
    engine = chess.engine.SimpleEngine.popen_uci(engine_path)
    engine.configure({"Threads": 1})
    positions = 0
    for text in chunk:
        import io
        game = chess.pgn.read_game(io.StringIO(text))
        board = game.board()
        # A new game each time, as rookery sends ucinewgame per game.
        engine.analyse(board, chess.engine.Limit(depth=depth), game=object())
        positions += 1
        for move in game.mainline_moves():
            board.push(move)
            if not any(board.legal_moves):
                continue
            engine.analyse(board, chess.engine.Limit(depth=depth))
            positions += 1
    engine.quit()
    return positions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pgn")
    ap.add_argument("--engine", required=True)
    ap.add_argument("--depth", type=int, required=True)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    games = read_games(a.pgn, a.games)
    # Games dealt out round-robin to the workers, one engine each.
    chunks = [games[i::a.jobs] for i in range(a.jobs)]
    t0 = time.monotonic()
    with multiprocessing.Pool(a.jobs) as pool:
        counts = pool.map(work, [(a.engine, a.depth, c) for c in chunks])
    dt = time.monotonic() - t0
    print(f"games {len(games)} positions {sum(counts)} wall {dt:.1f} s "
          f"({1000 * dt / max(1, sum(counts)):.2f} ms per position per {a.jobs} engines)")


main()
