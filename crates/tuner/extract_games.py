"""Extract every position after the opening from finished games, labelled
with the result and the game it came from, for the Texel tuner.

Usage: python3 extract_games.py OUT.txt GAMES.pgn [MORE.pgn ...] [--min-ply 8]

Each output line is `FEN;result;game` with the result from White's side
(1.0, 0.5 or 0.0) and `game` a running number over all input games, so the
tuner can split training and validation by game. Positions after ply
`--min-ply` (counted from the start) are all written, noisy or not:
`rookery-tune --resolve` turns each into the leaf of the engine's own
quiescence search. Games without a decisive or drawn result, games of other
variants or from set-up positions, and games python-chess reports errors in
are skipped and counted.
"""

import argparse
import sys

from pgn_games import read_games, white_score


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("pgns", nargs="+")
    ap.add_argument("--min-ply", type=int, default=8)
    args = ap.parse_args()
    n_games = n_pos = skipped = 0
    with open(args.out, "w") as out:
        for path in args.pgns:
            for game in read_games(path):
                res = white_score(game)
                if res is None or game.errors or "FEN" in game.headers:
                    skipped += 1
                    continue
                board = game.board()
                lines = []
                for ply, move in enumerate(game.mainline_moves()):
                    board.push(move)
                    if ply + 1 > args.min_ply and not board.is_game_over():
                        lines.append(f"{board.fen()};{res};{n_games}\n")
                out.writelines(lines)
                n_pos += len(lines)
                n_games += 1
            print(f"{path}: {n_games} games, {n_pos} positions so far, {skipped} skipped", file=sys.stderr)


if __name__ == "__main__":
    main()
