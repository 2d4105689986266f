"""Reads an Argus event's PGN with python-chess and checks each game
against the event log: the same moves as the clients' replies (`refreq
reply; sm ...`) between the game's first `inform` and its `conclude`, and
a result that fits the final position and the Termination tag.
Usage: argus_pgn_check.py GAMES.pgn EVENT.log"""
import re
import sys

import chess

from pgn_games import read_games

pgn_path, log_path = sys.argv[1], sys.argv[2]

# The moves of each game from the log, in order.
logged, current, concluded = [], None, 0
for line in open(log_path):
    if "Logdir sent;" in line and "refcom inform;" in line and 'Result "*"' in line:
        if current is None:
            current = []
    elif "Logdir received;" in line and "refreq reply;" in line:
        m = re.search(r" sm ([^;]+);", line)
        if m and current is not None:
            current.append(m.group(1))
    elif "Logdir sent;" in line and "refcom conclude;" in line and current is not None:
        concluded += 1
        if concluded == 2:  # both players told
            logged.append(current)
            current, concluded = None, 0

games = []
with open(pgn_path) as f:
    for g in read_games(f):
        assert not g.errors, g.errors
        games.append(g)
assert len(games) == len(logged), (len(games), len(logged))

for g, moves in zip(games, logged):
    board = g.board()
    sans = []
    for mv in g.mainline_moves():
        sans.append(board.san(mv))
        board.push(mv)
    assert sans == moves, (sans, moves)
    result, term = g.headers["Result"], g.headers["Termination"]
    outcome = board.outcome(claim_draw=True)
    if board.is_checkmate():
        assert result == ("1-0" if board.turn == chess.BLACK else "0-1"), result
        assert term == "normal"
    elif term == "time forfeit":
        # The side to move lost on time (or drew when the other cannot mate).
        loser_white = board.turn == chess.WHITE
        assert result in (("0-1" if loser_white else "1-0"), "1/2-1/2"), result
    elif term == "normal" and outcome is not None:
        assert result == outcome.result(), (result, outcome)
    else:
        assert result in ("1-0", "0-1", "1/2-1/2"), result
print(f"{len(games)} games ok")
