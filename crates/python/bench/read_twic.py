"""Reading a PGN file with rookery and with python-chess, side by side.

Same work for both: every game read, every mainline move (and every move in
variations) parsed and played on a board, so checked; then the moves are
counted in Python. python-chess by its `chess.pgn.read_game` loop; rookery by
`rookery.pgn.read_games`, on one thread and on `--jobs` threads; and, when it
is installed (`pip install rust-pgn-reader-python-binding`), that package's
`parse_games_from_strings` (the file read and cut into games in Python, as it
takes games as strings; every move checked and every position stored as
arrays), on one thread and on `--jobs`.

    python crates/python/bench/read_twic.py [FILE.pgn] [--jobs N] [--repeat R]

The file defaults to The Week in Chess 920 (../shared/data/pgn/twic0920.pgn,
2,250 games) when the shared data are beside the checkout, else to the
repository's every-tenth-game sample of it. Figures: the best of R runs, wall
and CPU seconds (the machine may be shared: CPU time is the steadier one).
"""

import argparse
import time
from pathlib import Path

import re

import chess.pgn

import rookery.pgn

HERE = Path(__file__).resolve()
REPO = HERE.parents[3]
CANDIDATES = [
    REPO.parent / "shared" / "data" / "pgn" / "twic0920.pgn",
    REPO.parent.parent / "shared" / "data" / "pgn" / "twic0920.pgn",
    REPO / "crates" / "cli" / "tests" / "data" / "eco" / "twic0920-every10th.pgn",
]


def with_python_chess(path):
    games = moves = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games += 1
            moves += sum(1 for _ in game.mainline_moves())
    return games, moves


def with_rookery(path, jobs=None):
    games = moves = 0
    for game in rookery.pgn.read_games(path, jobs=jobs):
        games += 1
        moves += len(game)
    return games, moves


def with_rust_pgn_reader(path, threads):
    import rust_pgn_reader_python_binding as peer

    with open(path, encoding="utf-8", errors="replace") as f:
        games = re.split(r"\n\s*\n(?=\[Event )", f.read())
    parsed = peer.parse_games_from_strings(games, num_threads=threads)
    return parsed.num_games, parsed.num_moves


def best_of(repeat, run):
    best = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        out = run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if best is None or wall < best[1]:
            best = (out, wall, cpu)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="?", type=Path, default=next((p for p in CANDIDATES if p.exists()), None))
    parser.add_argument("--jobs", type=int, default=2, help="threads for the parallel rookery run (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each reader; the best counts (default 3)")
    args = parser.parse_args()
    print(f"file: {args.pgn} ({args.pgn.stat().st_size / 1e6:.2f} MB)")
    runs = [
        ("python-chess 1.11.2 read_game loop", lambda: with_python_chess(args.pgn)),
        ("rookery.pgn.read_games", lambda: with_rookery(args.pgn)),
        (f"rookery.pgn.read_games(jobs={args.jobs})", lambda: with_rookery(args.pgn, args.jobs)),
    ]
    try:
        import rust_pgn_reader_python_binding  # noqa: F401

        runs += [
            ("rust-pgn-reader-python-binding, 1 thread", lambda: with_rust_pgn_reader(args.pgn, 1)),
            (f"rust-pgn-reader-python-binding, {args.jobs}", lambda: with_rust_pgn_reader(args.pgn, args.jobs)),
        ]
    except ImportError:
        print("(rust-pgn-reader-python-binding is not installed: not compared)")
    results = []
    for name, run in runs:
        (games, moves), wall, cpu = best_of(args.repeat, run)
        results.append((name, games, moves, wall, cpu))
        print(f"{name:40} {games:6} games {moves:8} moves  {wall:7.3f} s wall {cpu:7.3f} s CPU  "
              f"{games / wall:10.0f} games/s")
    base = results[0]
    assert all(r[1:3] == base[1:3] for r in results), "the readers disagree on games or moves"
    for name, _, _, wall, _ in results[1:]:
        print(f"{name}: {base[3] / wall:.1f}x python-chess (wall)")


if __name__ == "__main__":
    main()
