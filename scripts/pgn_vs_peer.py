"""Whole-process speed of the `rookery pgn` verbs that write neither
variations nor comments (stats, validate, to-epd), side by side with the
peer program: pgn-reader 0.29 + shakmaty 0.30 reading the same file and
resolving and playing every mainline SAN (crates/pgn/examples/pgn_reader_peer.rs).
For to-epd there are two peers: the same reader (`peer`), and the reader
writing the same EPD records as rookery (`peer --epd`, its output is
byte-identical on the shared corpora).

The machine's own limit for two threads is printed first: two single-thread
rookery processes at once against one after the other (`2 at once`, 2.00x on
two free cores). On a shared virtual machine it can be far lower; `--jobs 2`
cannot beat it.

usage: python3 scripts/pgn_vs_peer.py FILE.pgn... [--runs N] [--jobs 1,2]
           [--rookery target/release/rookery]
           [--peer target/release/examples/pgn_reader_peer]

Build first:
  cargo build --release -p rookery
  cargo build --release -p rookery-pgn --example pgn_reader_peer

Each command runs as one process; rookery and the peer alternate (A, B, A,
B, ...) so that a busy machine slows both alike. Prints the median wall
time of each and the ratio peer/rookery (>= 1.0: rookery is as fast or
faster). Output goes to /dev/null.
"""

import argparse
import os
import statistics
import subprocess
import time


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def timed_all(cmds):
    """Wall time of `cmds` started together, until the last one ends."""
    start = time.perf_counter()
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in cmds]
    for p in procs:
        p.wait()
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--rookery", default="target/release/rookery")
    ap.add_argument("--peer", default="target/release/examples/pgn_reader_peer")
    args = ap.parse_args()
    verbs = [
        ("stats", ["pgn", "stats"]),
        ("validate", ["pgn", "validate", "-q"]),
        ("to-epd", ["pgn", "to-epd", "-q", "-o", os.devnull]),
    ]
    for path in args.files:
        one = [args.rookery, "pgn", "stats", "--jobs", "1", path]
        serial, together = [], []
        for _ in range(args.runs):
            serial.append(timed_all([one]) + timed_all([one]))
            together.append(timed_all([one, one]))
        ceiling = statistics.median(serial) / statistics.median(together)
        print(f"{os.path.basename(path)}: 2 at once {ceiling:.2f}x one after the other")
    print(f"{'file':<32} {'verb':<9} {'jobs':>4} {'peer':<11} {'rookery s':>10} {'peer s':>8} {'peer/rookery':>13}")
    for path in args.files:
        name = os.path.basename(path)
        for verb, argv in verbs:
            peers = [("peer", [args.peer, path])]
            if verb == "to-epd":
                peers.append(("peer --epd", [args.peer, "--epd", path]))
            for jobs in args.jobs.split(","):
                for peer_name, b in peers:
                    a = [args.rookery, *argv, "--jobs", jobs, path]
                    ta, tb = [], []
                    for _ in range(args.runs):
                        ta.append(timed(a))
                        tb.append(timed(b))
                    ma, mb = statistics.median(ta), statistics.median(tb)
                    print(
                        f"{name:<32} {verb:<9} {jobs:>4} {peer_name:<11} {ma:>10.3f} {mb:>8.3f} {mb / ma:>12.2f}x"
                    )


if __name__ == "__main__":
    main()
