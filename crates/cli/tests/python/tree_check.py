"""Counts what `rookery pgn tree --json` shows, independently, with python-chess.

usage: tree_check.py GAMES.pgn FEN DEPTH

Reads every game's mainline with python-chess and prints, as one JSON
object, the tree of moves from FEN, DEPTH plies deep, in the shape of
`rookery pgn tree --json` (moves sorted by UCI here; the caller compares):

  - a position is identified by python-chess's EPD (pieces, side to move,
    castling rights, an en passant square only when a capture is legal), so
    a game reaching it by any move order counts;
  - a game counts once for a position; if it passes through it more than
    once, for the last move it played from it;
  - per move: games, White wins, draws, Black wins, games without a result;
    the average Elo of the player who moved (finished games where the tag is a
    positive number); the performance: over finished games where the
    opponent's Elo is known, the opponents' average plus the FIDE rating
    difference for the score percentage (FIDE Handbook B.02 table 8.1.2),
    interpolated linearly between whole percents, rounded half up.
"""

import json
import math
import sys

import chess

from pgn_games import read_games

# FIDE Handbook B.02, 8.1.2: rating difference dp for p = 0..100 percent.
DP_HALF = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125,
    133, 141, 149, 158, 166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262,
    273, 284, 296, 309, 322, 336, 351, 366, 383, 401, 422, 444, 470, 501, 538,
    589, 677, 800,
]
DP = [-d for d in reversed(DP_HALF[1:])] + DP_HALF


def dp(percent):
    p = min(max(percent, 0.0), 100.0)
    below = math.floor(p)
    low = float(DP[below])
    high = float(DP[below + 1]) if below < 100 else low
    return low + (high - low) * (p - below)


def elo(headers, name):
    try:
        v = int(headers.get(name, "").strip())
    except ValueError:
        return None
    return v if v > 0 else None


def new_tally():
    return {"games": 0, "white": 0, "draws": 0, "black": 0, "unfinished": 0,
            "elo": [], "opp": [], "score": 0}


def add(t, result, mover_white, elos):
    t["games"] += 1
    if result == "1-0":
        t["white"] += 1
        halves = 2 if mover_white else 0
    elif result == "0-1":
        t["black"] += 1
        halves = 0 if mover_white else 2
    elif result == "1/2-1/2":
        t["draws"] += 1
        halves = 1
    else:
        t["unfinished"] += 1
        return
    mine, theirs = (elos[0], elos[1]) if mover_white else (elos[1], elos[0])
    if mine is not None:
        t["elo"].append(mine)
    if theirs is not None:
        t["opp"].append(theirs)
        t["score"] += halves


def half_up(x):
    return int(math.floor(x + 0.5))


def shown(t):
    out = {k: t[k] for k in ("games", "white", "draws", "black", "unfinished")}
    out["average_elo"] = half_up(sum(t["elo"]) / len(t["elo"])) if t["elo"] else None
    if t["opp"]:
        n = len(t["opp"])
        out["performance"] = half_up(sum(t["opp"]) / n + dp(50.0 * t["score"] / n))
    else:
        out["performance"] = None
    return out


def main():
    path, fen, depth = sys.argv[1], sys.argv[2], int(sys.argv[3])
    passing = {}  # epd -> tally of the games through the position
    played = {}  # epd -> {uci: tally}
    with open(path, encoding="utf-8", errors="replace") as f:
        for game in read_games(f):
            if game.errors:
                continue
            h = game.headers
            result = h.get("Result", "*")
            elos = (elo(h, "WhiteElo"), elo(h, "BlackElo"))
            board = game.board()
            last = {}  # epd -> (white to move, last move from it or None)
            for move in list(game.mainline_moves()) + [None]:
                key = board.epd()
                before = last.get(key)
                if move is None and before is not None:
                    move_uci = before[1]
                else:
                    move_uci = move.uci() if move is not None else None
                last[key] = (board.turn == chess.WHITE, move_uci)
                if move is not None:
                    board.push(move)
            for key, (white, uci) in last.items():
                add(passing.setdefault(key, new_tally()), result, white, elos)
                if uci is not None:
                    moves = played.setdefault(key, {})
                    add(moves.setdefault(uci, new_tally()), result, white, elos)

    def branches(board, left):
        if left == 0:
            return []
        out = []
        for uci, t in sorted(played.get(board.epd(), {}).items()):
            move = chess.Move.from_uci(uci)
            b = dict(shown(t), uci=uci, san=board.san(move))
            board.push(move)
            b["moves"] = branches(board, left - 1)
            board.pop()
            out.append(b)
        return out

    root = chess.Board(fen)
    tree = shown(passing.get(root.epd(), new_tally()))
    del tree["average_elo"], tree["performance"]
    tree["moves"] = branches(root, depth)
    print(json.dumps(tree, sort_keys=True))


main()
