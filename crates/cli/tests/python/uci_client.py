"""Drive a UCI engine with python-chess (a real UCI client) and check it.

Usage: python3 uci_client.py ENGINE_PATH
Prints one line per check; exits non-zero on the first failure.
"""

import contextlib
import subprocess
import sys
import time

import chess
import chess.engine

EXPECTED_OPTIONS = [
    "Hash", "Threads", "MultiPV", "Ponder", "Clear Hash", "Move Overhead",
    "UCI_Chess960", "UCI_ShowCurrLine", "UCI_ShowRefutations",
    "UCI_LimitStrength", "UCI_Elo", "UCI_AnalyseMode", "UCI_Opponent",
    "UCI_EngineAbout",
]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


@contextlib.contextmanager
def engine(path):
    """The engine at `path` for one check, told to quit when the check ends."""
    eng = chess.engine.SimpleEngine.popen_uci(path)
    try:
        yield eng
    finally:
        eng.quit()


def handshake(path):
    with engine(path) as eng:
        check(eng.id.get("name", "").startswith("rookery"), f"id name: {eng.id}")
        check("author" in eng.id, "id author missing")
        for name in EXPECTED_OPTIONS:
            check(name in eng.options, f"option {name} missing")
        check(eng.options["Hash"].type == "spin", "Hash is a spin")
        check(eng.options["Clear Hash"].type == "button", "Clear Hash is a button")
        eng.configure({"Hash": 32, "Threads": 2, "Move Overhead": 20,
                       "UCI_Opponent": "GM 2800 human Gary Kasparov"})
        eng.configure({"Clear Hash": None})
        eng.ping()
        print("ok handshake and options")


def multipv(path):
    with engine(path) as eng:
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        infos = eng.analyse(board, chess.engine.Limit(depth=8), multipv=3)
        check(len(infos) == 3, f"3 lines, got {len(infos)}")
        firsts = [i["pv"][0] for i in infos]
        check(len(set(firsts)) == 3, f"distinct first moves {firsts}")
        scores = [i["score"].relative.score(mate_score=100000) for i in infos]
        check(scores == sorted(scores, reverse=True), f"lines ordered {scores}")
        for i in infos:
            check(i.get("multipv") in (1, 2, 3), "multipv field")
            b = board.copy()
            for m in i["pv"]:
                check(m in b.legal_moves, f"legal pv move {m}")
                b.push(m)
        print("ok analyse multipv 3")


def clock_game(path, plies=40):
    """Engine against itself at 1s + 0.01s; the clock is kept here."""
    with engine(path) as eng:
        board = chess.Board()
        clock = {chess.WHITE: 1.0, chess.BLACK: 1.0}
        inc = 0.01
        while not board.is_game_over() and board.ply() < plies:
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=inc, black_inc=inc)
            t0 = time.monotonic()
            res = eng.play(board, limit)
            spent = time.monotonic() - t0
            clock[board.turn] -= spent
            check(clock[board.turn] > 0, f"flagged at ply {board.ply()} ({clock})")
            clock[board.turn] += inc
            check(res.move in board.legal_moves, f"legal move {res.move}")
            board.push(res.move)
        print(f"ok clock game {board.ply()} plies, clocks left {clock[True]:.3f}s/{clock[False]:.3f}s")


def pondering(path):
    with engine(path) as eng:
        board = chess.Board()
        res = eng.play(board, chess.engine.Limit(time=0.2), ponder=True)
        check(res.move in board.legal_moves, "ponder game move legal")
        board.push(res.move)
        if res.ponder is not None:
            check(res.ponder in board.legal_moves, "ponder move legal")
            board.push(res.ponder)
        res2 = eng.play(board, chess.engine.Limit(time=0.2))
        check(res2.move in board.legal_moves, "move after ponder legal")
        print("ok pondering (python-chess)")
    # ponderhit through the raw protocol: the search must turn into a timed one.
    p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write("uci\nposition startpos moves e2e4 e7e5\ngo ponder wtime 2000 btime 2000 winc 0 binc 0\n")
    p.stdin.flush()
    time.sleep(0.3)
    p.stdin.write("isready\n")
    p.stdin.flush()
    saw_ready = False
    while True:
        line = p.stdout.readline()
        check(line != "", "engine closed output while pondering")
        check(not line.startswith("bestmove"), "bestmove before ponderhit")
        if line.strip() == "readyok":
            saw_ready = True
            break
    check(saw_ready, "readyok while pondering")
    p.stdin.write("ponderhit\n")
    p.stdin.flush()
    t0 = time.monotonic()
    best = None
    while best is None:
        line = p.stdout.readline()
        check(line != "", "engine closed output after ponderhit")
        if line.startswith("bestmove"):
            best = line.split()[1]
    waited = time.monotonic() - t0
    check(waited < 2.0, f"bestmove within the clock after ponderhit ({waited:.2f}s)")
    b = chess.Board()
    b.push_uci("e2e4")
    b.push_uci("e7e5")
    check(chess.Move.from_uci(best) in b.legal_moves, f"legal bestmove {best}")
    p.stdin.write("quit\n")
    p.stdin.flush()
    check(p.wait(timeout=10) == 0, "exit status 0 after quit")
    print("ok ponderhit")


def stop_infinite(path):
    with engine(path) as eng:
        board = chess.Board()
        with eng.analysis(board) as analysis:
            seen = 0
            for info in analysis:
                if "pv" in info:
                    seen += 1
                if info.get("depth", 0) >= 6:
                    break
            check(seen > 0, "infinite analysis reports lines")
            analysis.stop()
            best = analysis.wait()
            check(best.move in board.legal_moves, f"legal bestmove after stop {best}")
        eng.ping()
        print("ok stop during infinite analysis")


def mate_scores(path):
    with engine(path) as eng:
        # Mate in 2 (Qxh7+? no: a classic back-rank mate in two).
        board = chess.Board("6k1/5ppp/8/8/8/8/1Q3PPP/1R4K1 w - - 0 1")
        info = eng.analyse(board, chess.engine.Limit(mate=2))
        mate = info["score"].relative.mate()
        check(mate is not None and 0 < mate <= 2, f"mate found: {info['score']}")
        # The mated side sees a negative mate.
        board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
        info = eng.analyse(board, chess.engine.Limit(depth=4))
        check(info["score"].relative.mate() == 1, f"mate in 1: {info['score']}")
        board.push(info["pv"][0])
        check(board.is_checkmate(), "pv mates")
        # Getting mated: black to move, mated next move whatever it does.
        board = chess.Board("7k/8/6KQ/8/8/8/8/8 b - - 0 1")
        info = eng.analyse(board, chess.engine.Limit(depth=5))
        check(info["score"].relative.mate() == -1, f"mated in 1: {info['score']}")
        # No mate in 1 here: the engine must not claim one.
        board = chess.Board()
        info = eng.analyse(board, chess.engine.Limit(mate=1))
        check(info["score"].relative.mate() is None, f"no false mate: {info['score']}")
        print("ok mate scores")


def chess960(path):
    with engine(path) as eng:
        # King b1, rooks a1 and h1: castling queen side means king takes rook a1.
        board = chess.Board("1r2k2r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1", chess960=True)
        castles = [m for m in board.legal_moves if board.is_castling(m)]
        check(castles, "castling available")
        for c in castles:
            res = eng.play(board, chess.engine.Limit(depth=3), root_moves=[c])
            check(res.move == c, f"engine played the castling move {board.uci(c)}: got {res.move}")
        info = eng.analyse(board, chess.engine.Limit(depth=6))
        b = board.copy()
        for m in info["pv"]:
            check(m in b.legal_moves, f"legal 960 pv move {m}")
            b.push(m)
        print("ok chess960 castling")


def main():
    path = sys.argv[1]
    for f in (handshake, multipv, stop_infinite, mate_scores, chess960, pondering, clock_game):
        f(path)
    print("all ok")


if __name__ == "__main__":
    main()
