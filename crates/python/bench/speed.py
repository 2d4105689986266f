"""The batch readers' speed beside their peers, one run each, side by side.

    python crates/python/bench/speed.py [FILE.pgn ...] [--jobs N] [--python-chess-up-to MB]

Two tables, CPU seconds (user + system, every thread: the steady figure on a
shared machine) and wall seconds:

1. Positions to NumPy arrays (piece bitboards and side to move of every
   position of every game): ``rookery.pgn.positions`` on one thread and on
   ``--jobs``; rust-pgn-reader-python-binding's ``parse_games_from_strings``
   (``pip install rust-pgn-reader-python-binding``; it takes games as
   strings, so the file is read and cut into games in Python first: its
   figures include that, and the parse alone is given beside); python-chess
   (``chess.pgn.read_game``, ``board.pieces_mask`` after every move) on files
   up to ``--python-chess-up-to`` MB.
2. Games: ``rookery.pgn.read_games`` with ``jobs=1`` and ``jobs=N``.

Each reader runs once on each file (``--repeat R``: R times in turn, the run
with the least CPU shown), after one warm-up run on a small file (imports,
thread pools); differing position counts are flagged.
The default files are The Week in Chess 920 and the TCEC superfinals from the
shared data beside the checkout.
"""

import argparse
import os
import re
import time
from pathlib import Path

# NumPy's OpenBLAS starts a thread per core that spins after import: CPU
# that neither reader spends (no BLAS is called), a tenth of a small run's
# figure. One BLAS thread, unless the caller says otherwise.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import rookery.pgn

HERE = Path(__file__).resolve()
REPO = HERE.parents[3]
SHARED = next((d / "shared" / "data" / "pgn" for d in (REPO.parent, REPO.parent.parent)
               if (d / "shared" / "data" / "pgn").is_dir()), None)
SMALL = REPO / "crates" / "cli" / "tests" / "data" / "eco" / "twic0920-every10th.pgn"


def rookery_positions(path, jobs):
    rows = 0
    for chunk in rookery.pgn.positions(path, jobs=jobs):
        rows += len(chunk["turn"])
        assert chunk["bitboards"].shape == (len(chunk["turn"]), 12)
    return rows


def peer_positions(path, threads, parse_only):
    import rust_pgn_reader_python_binding as peer

    start = time.process_time()
    with open(path, encoding="utf-8", errors="replace") as f:
        games = re.split(r"\n\s*\n(?=\[Event )", f.read())
    cut = time.process_time() - start
    parsed = peer.parse_games_from_strings(games, num_threads=threads)
    rows = 0
    for chunk in parsed.chunks:
        rows += len(chunk.turn)
        assert chunk.boards.shape == (len(chunk.turn), 8, 8)
    parse_only.append(cut)
    return rows


def python_chess_positions(path):
    import chess.pgn

    rows = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            if game.errors:
                continue
            board = game.board()
            masks = [[board.pieces_mask(pt, c) for c in (True, False) for pt in range(1, 7)]]
            for move in game.mainline_moves():
                board.push(move)
                masks.append([board.pieces_mask(pt, c) for c in (True, False) for pt in range(1, 7)])
            np.array(masks, dtype=np.uint64)
            rows += len(masks)
    return rows


def rookery_games(path, jobs):
    return sum(1 for _ in rookery.pgn.read_games(path, jobs=jobs))


def timed(run):
    wall, cpu = time.perf_counter(), time.process_time()
    out = run()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="*", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--python-chess-up-to", type=float, default=4.0, metavar="MB")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each reader on each file, in turn; the least CPU counts (default 1)")
    args = parser.parse_args()
    files = args.pgn or [SHARED / "twic0920.pgn", SHARED / "tcec-superfinals-s6-s18.pgn"]
    try:
        import rust_pgn_reader_python_binding  # noqa: F401
        have_peer = True
    except ImportError:
        have_peer = False
        print("(rust-pgn-reader-python-binding is not installed: not compared)")

    # Each run: (name, function of the path and a list to put the time
    # spent cutting the file into games in).
    runs = [
        ("rookery positions, 1 thread", lambda p, cut: rookery_positions(p, None)),
        (f"rookery positions, jobs={args.jobs}", lambda p, cut: rookery_positions(p, args.jobs)),
    ]
    if have_peer:
        runs += [
            ("rust-pgn-reader-python-binding, 1 thread", lambda p, cut: peer_positions(p, 1, cut)),
            (f"rust-pgn-reader-python-binding, {args.jobs} threads",
             lambda p, cut: peer_positions(p, args.jobs, cut)),
        ]
    for _, run in runs:  # warm-up: imports, thread pools
        run(SMALL, [])

    print("\n| file | reader | positions | CPU s | wall s |")
    print("|---|---|---:|---:|---:|")
    for path in files:
        size = f"{path.name} ({path.stat().st_size / 1e6:.1f} MB)"
        counts = set()
        these = list(runs)
        if path.stat().st_size <= args.python_chess_up_to * 1e6:
            these.append(("python-chess 1.11.2", lambda p, cut: python_chess_positions(p)))
        best = {}
        for _ in range(args.repeat):
            for name, run in these:
                if name.startswith("python-chess") and name in best:
                    continue  # once is enough to see it
                cut = []
                rows, wall, cpu = timed(lambda: run(path, cut))
                if name not in best or cpu < best[name][2]:
                    best[name] = (rows, wall, cpu, cut)
        for name, _ in these:
            rows, wall, cpu, cut = best[name]
            counts.add(rows)
            note = f" (of which {cut[0]:.3f} s cutting the file in Python)" if cut else ""
            print(f"| {size} | {name} | {rows} | {cpu:.3f}{note} | {wall:.3f} |", flush=True)
        if len(counts) > 1:
            print(f"| {size} | (position counts differ: {sorted(counts)}; rookery skips games with an error) | | | |")

    print("\n| file | read_games | games | CPU s | wall s |")
    print("|---|---|---:|---:|---:|")
    rookery_games(SMALL, args.jobs)
    for path in files:
        size = f"{path.name} ({path.stat().st_size / 1e6:.1f} MB)"
        best = {}
        for _ in range(args.repeat):
            for jobs in (1, args.jobs):
                games, wall, cpu = timed(lambda: rookery_games(path, jobs))
                if jobs not in best or cpu < best[jobs][2]:
                    best[jobs] = (games, wall, cpu)
        for jobs, (games, wall, cpu) in best.items():
            print(f"| {size} | jobs={jobs} | {games} | {cpu:.3f} | {wall:.3f} |", flush=True)


if __name__ == "__main__":
    main()
