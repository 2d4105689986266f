"""Play a match between two UCI engines with python-chess (a stand-in until
`rookery match` exists).

Usage: python3 match.py --engine CMD --opponent CMD --games N --openings FILE
                        [--tc SECONDS --inc SECONDS | --nodes N] [--concurrency N]
                        [--pgn OUT.pgn] [--option Name=Value ...] [--opponent-option Name=Value ...]
                        [--pause-file PATH]

Both engines are UCI commands, e.g. `target/release/rookery uci`; the
opponent may be another build of rookery (a saved baseline binary).
Openings: one FEN (or EPD) per line; each opening is played twice, colours
reversed. With --nodes both engines search a fixed number of nodes per move
(no clock), which makes results independent of machine load; such games
are deterministic, so each further pass over the openings adds 1% to the
node count (both engines alike) to get new games rather than repeats. Otherwise
clocks are kept here: the time a `play` call takes is charged to the engine,
which loses if its clock falls below zero. An illegal move loses too.
--concurrency N plays N games at once, each with its own pair of engine
processes. While the --pause-file exists no new game is started. Games end by
the rules (mate, stalemate, 50 moves, threefold, material), or by adjudication
when both engines agree (a win once the last 8 plies all score 10 pawns or more
for one side; a draw from move 40 once the last 16 plies all score within
0.1 pawn; --no-adjudication turns this off), or as a draw at 400 plies. Prints W/D/L from the first engine's
side and an Elo estimate with its 95% interval.
"""

import argparse
import math
import os
import queue
import shlex
import sys
import threading
import time

import chess
import chess.engine
import chess.pgn


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


RESIGN_CP, RESIGN_PLIES = 1000, 8
DRAW_FROM_PLY, DRAW_CP, DRAW_PLIES = 80, 10, 16


def adjudicate(scores, ply):
    """The result both engines' own scores agree on, or None.

    `scores` holds each move's score from White's side (None when the engine
    gave none). Like the usual tournament rules: a win when the last 8 plies
    (4 moves by each engine) all say at least 10 pawns for the same side; a
    draw from move 40 when the last 16 plies all say within 0.1 pawn.
    """
    last = scores[-RESIGN_PLIES:]
    if len(last) == RESIGN_PLIES and None not in last:
        if all(s >= RESIGN_CP for s in last):
            return "1-0"
        if all(s <= -RESIGN_CP for s in last):
            return "0-1"
    last = scores[-DRAW_PLIES:]
    if ply >= DRAW_FROM_PLY and len(last) == DRAW_PLIES and None not in last:
        if all(abs(s) <= DRAW_CP for s in last):
            return "1/2-1/2"
    return None


def play_game(engines, names, fen, tc, inc, white_first, nodes=None, adjudication=True):
    board = chess.Board(fen)
    clock = {chess.WHITE: tc, chess.BLACK: tc}
    order = {chess.WHITE: 0 if white_first else 1, chess.BLACK: 1 if white_first else 0}
    game = chess.pgn.Game()
    game.setup(board)
    game.headers["White"] = names[order[chess.WHITE]]
    game.headers["Black"] = names[order[chess.BLACK]]
    node = game
    reason = None
    scores = []
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = outcome.result()
            reason = outcome.termination.name.lower()
            break
        if board.ply() >= 400:
            result, reason = "1/2-1/2", "adjudicated (400 plies)"
            break
        side = board.turn
        eng = engines[order[side]]
        if nodes:
            limit = chess.engine.Limit(nodes=nodes)
        else:
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=inc, black_inc=inc)
        t0 = time.monotonic()
        try:
            res = eng.play(board, limit, game=game, info=chess.engine.INFO_SCORE)
        except chess.engine.EngineError as err:
            result = "0-1" if side == chess.WHITE else "1-0"
            reason = f"engine error: {err}"
            break
        spent = time.monotonic() - t0
        clock[side] -= spent
        if not nodes and clock[side] < 0:
            result = "0-1" if side == chess.WHITE else "1-0"
            reason = "time forfeit"
            break
        clock[side] += inc
        if res.move is None or res.move not in board.legal_moves:
            result = "0-1" if side == chess.WHITE else "1-0"
            reason = f"illegal move {res.move}"
            break
        board.push(res.move)
        node = node.add_variation(res.move)
        if not nodes:
            node.set_clock(max(clock[side], 0.0))
        score = res.info.get("score")
        scores.append(None if score is None else score.white().score(mate_score=100_000))
        verdict = adjudicate(scores, board.ply()) if adjudication else None
        if verdict is not None:
            result, reason = verdict, "adjudicated"
            break
    game.headers["Result"] = result
    game.headers["Termination"] = reason
    return result, reason, game


def open_engines(cmds, options):
    engines = [chess.engine.SimpleEngine.popen_uci(c) for c in cmds]
    for eng, opts in zip(engines, options):
        for opt in opts:
            k, v = opt.split("=", 1)
            eng.configure({k: v})
    return engines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", required=True)
    ap.add_argument("--opponent", required=True)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--tc", type=float, default=10.0)
    ap.add_argument("--inc", type=float, default=0.1)
    ap.add_argument("--nodes", type=int, help="fixed nodes per move for both engines (no clock)")
    ap.add_argument("--concurrency", type=int, default=1, help="games played at once")
    ap.add_argument("--pause-file", help="start no new game while this file exists")
    ap.add_argument("--openings", required=True)
    ap.add_argument("--no-adjudication", action="store_true",
                    help="play every game out (by default both engines' scores can end it)")
    ap.add_argument("--pgn")
    ap.add_argument("--option", action="append", default=[], help="Name=Value for the first engine")
    ap.add_argument("--opponent-option", action="append", default=[], help="Name=Value for the second engine")
    args = ap.parse_args()

    openings = []
    with open(args.openings) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 4:
                fen = " ".join(parts[:4]) + " 0 1"
                try:
                    chess.Board(fen)
                    openings.append(fen)
                except ValueError:
                    pass
    cmds = [shlex.split(args.engine), shlex.split(args.opponent)]
    options = [args.option, args.opponent_option]
    todo = queue.Queue()
    for g in range(args.games):
        todo.put(g)
    lock = threading.Lock()
    tally = {"w": 0, "d": 0, "l": 0}
    problems = []
    pgn_out = open(args.pgn, "w") if args.pgn else None

    def worker():
        engines = open_engines(cmds, options)
        names = [e.id.get("name", c[0]) for e, c in zip(engines, cmds)]
        if names[0] == names[1]:
            names = [names[0] + " (engine)", names[1] + " (opponent)"]
        try:
            while True:
                try:
                    g = todo.get_nowait()
                except queue.Empty:
                    return
                while args.pause_file and os.path.exists(args.pause_file):
                    time.sleep(20)
                fen = openings[(g // 2) % len(openings)]
                first_white = g % 2 == 0
                nodes = None
                if args.nodes:
                    nodes = args.nodes + args.nodes * (g // (2 * len(openings))) // 100
                result, reason, game = play_game(engines, names, fen, args.tc, args.inc, first_white,
                                                 nodes, not args.no_adjudication)
                game.headers["Round"] = str(g + 1)
                with lock:
                    if result == "1/2-1/2":
                        tally["d"] += 1
                    elif (result == "1-0") == first_white:
                        tally["w"] += 1
                    else:
                        tally["l"] += 1
                    if reason in ("time forfeit",) or reason.startswith("illegal") or reason.startswith("engine error"):
                        loser = names[0] if (result == "0-1") == first_white else names[1]
                        problems.append(f"game {g + 1}: {loser} {reason}")
                    if pgn_out:
                        print(game, file=pgn_out, end="\n\n")
                        pgn_out.flush()
                    print(f"game {g + 1}: {result} ({reason}); {names[0]} as {'white' if first_white else 'black'}; "
                          f"W/D/L {tally['w']}/{tally['d']}/{tally['l']}", flush=True)
                    worker.names = names
        finally:
            for e in engines:
                e.quit()

    worker.names = [c[0] for c in cmds]
    threads = [threading.Thread(target=worker) for _ in range(max(1, args.concurrency))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    names = worker.names
    w, d, l = tally["w"], tally["d"], tally["l"]
    n = w + d + l
    if n == 0:
        print("no games played")
        return 1
    score = (w + d / 2) / n
    var = (w * (1 - score) ** 2 + d * (0.5 - score) ** 2 + l * (0 - score) ** 2) / n
    se = math.sqrt(var / n)
    lo, hi = elo(score - 1.96 * se), elo(score + 1.96 * se)
    print(f"{names[0]} vs {names[1]}: {n} games, W/D/L {w}/{d}/{l}, score {score:.3f}, "
          f"Elo {elo(score):+.0f} (95% {lo:+.0f} .. {hi:+.0f})")
    for p in problems:
        print("problem:", p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
