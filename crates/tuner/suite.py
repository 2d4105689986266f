"""Run a test suite (EPD with bm/am) through UCI engines with python-chess
(a stand-in until `rookery suite` exists).

Usage: python3 suite.py SUITE.epd --time 0.2 ENGINE_CMD [ENGINE_CMD ...]

For each engine, every position is searched for the given time per position
(one thread); a position is solved when the engine's move is one of `bm`
(and none of `am`). Prints solved/total per engine and the ids unsolved.
"""

import argparse
import shlex

import chess
import chess.engine


def run(cmd, records, seconds, threads):
    eng = chess.engine.SimpleEngine.popen_uci(shlex.split(cmd))
    name = eng.id.get("name", cmd)
    if "Threads" in eng.options:
        eng.configure({"Threads": threads})
    solved = 0
    missed = []
    try:
        for i, (board, ops) in enumerate(records):
            res = eng.play(board, chess.engine.Limit(time=seconds), game=i)
            ok = True
            if "bm" in ops:
                ok = res.move in ops["bm"]
            if "am" in ops and res.move in ops["am"]:
                ok = False
            if ok:
                solved += 1
            else:
                missed.append(ops.get("id", str(i + 1)))
    finally:
        eng.quit()
    return name, solved, missed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suite")
    ap.add_argument("engines", nargs="+")
    ap.add_argument("--time", type=float, default=0.2)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    records = []
    with open(args.suite) as f:
        for line in f:
            if line.strip():
                board, ops = chess.Board.from_epd(line.strip())
                records.append((board, ops))
    for cmd in args.engines:
        name, solved, missed = run(cmd, records, args.time, args.threads)
        print(f"{name}: {solved}/{len(records)} solved at {args.time * 1000:.0f} ms/position")
        print(f"  unsolved: {' '.join(missed)}")


if __name__ == "__main__":
    main()
