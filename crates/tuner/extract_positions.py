"""Extract labelled, fairly quiet positions from PGN files for the Texel tuner.

Usage: python3 extract_positions.py OUT.txt GAMES.pgn [MORE.pgn ...]

Each output line is `FEN;result` with the result from White's side
(1.0, 0.5 or 0.0). From every finished game it takes up to PER_GAME positions
after the opening (ply >= MIN_PLY), skipping positions in check, positions
reached by a capture or a promotion, and positions where the side to move
can win material at once (a capture of a piece worth more than the capturer,
or of an undefended piece). Sampling is deterministic (seeded).
"""

import random
import sys

import chess

from pgn_games import read_games, white_score

MIN_PLY = 10
PER_GAME = 12
VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}


def tactical(board):
    for m in board.generate_legal_captures():
        attacker = board.piece_type_at(m.from_square)
        victim = board.piece_type_at(m.to_square) or chess.PAWN
        if VALUE[victim] > VALUE[attacker]:
            return True
        if not board.is_attacked_by(not board.turn, m.to_square):
            return True
    return False


def main():
    out_path, pgns = sys.argv[1], sys.argv[2:]
    rng = random.Random(20261122)
    n_games = n_pos = 0
    with open(out_path, "w") as out:
        for path in pgns:
            for game in read_games(path):
                res = white_score(game)
                if res is None:
                    continue
                board = game.board()
                candidates = []
                for ply, move in enumerate(game.mainline_moves()):
                    noisy = board.is_capture(move) or move.promotion is not None
                    board.push(move)
                    if ply + 1 < MIN_PLY or noisy or board.is_check() or board.is_game_over():
                        continue
                    if tactical(board):
                        continue
                    candidates.append(board.fen())
                n_games += 1
                for fen in rng.sample(candidates, min(PER_GAME, len(candidates))):
                    out.write(f"{fen};{res}\n")
                    n_pos += 1
    print(f"{n_games} games, {n_pos} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
