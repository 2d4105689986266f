"""`rookery epd normalize` beside its peer, whole process, in one run.

The input is the records of the test suites (crates/epd/tests/data/suites,
every record line, files in name order) cycled to N lines. rookery
normalizes all of them with one thread and with two, `-q -o /dev/null`;
python-chess (1.11.2) reads and writes a slice of the same records
(`chess.Board.from_epd`, then `board.epd(**operations)`, which writes the
moves back in SAN; a line it cannot read is copied), since at its speed
the whole file would take minutes. Records/s are comparable: the slice is a
whole number of cycles of the suites.

usage: python3 scripts/epd_normalize_peer.py [--rookery PATH] [--label NAME]
           [--records N] [--peer-records M] [--input FILE] [--stdout]

Prints one line per run: the tool, records, seconds, records/s and peak
memory (from /usr/bin/time). Build first: cargo build --release -p rookery.
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PEER = r"""
import sys
import chess
n = 0
with open(sys.argv[1], "rb") as f, open(os.devnull, "w") as out:
    for raw in f:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        try:
            board, ops = chess.Board.from_epd(line)
            out.write(board.epd(**ops) + "\n")
        except ValueError:
            out.write(line + "\n")
        n += 1
print(n)
"""


def suite_records():
    records = []
    for path in sorted(glob.glob(os.path.join(ROOT, "crates/epd/tests/data/suites/*.epd"))):
        with open(path, "rb") as f:
            for line in f.read().split(b"\n"):
                line = line.rstrip(b"\r")
                if line.strip() and not line.startswith(b"#"):
                    records.append(line)
    return records


def write_cycled(records, n, path):
    with open(path, "wb") as f:
        for i in range(n):
            f.write(records[i % len(records)] + b"\n")


def timed(cmd):
    """Runs cmd; returns (seconds, peak RSS in MB or None)."""
    timer = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []
    start = time.perf_counter()
    p = subprocess.run(timer + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    secs = time.perf_counter() - start
    # Exit status 1 means the input had errors (reported): the suites do.
    if p.returncode not in (0, 1):
        sys.exit(f"{cmd[0]} failed ({p.returncode}): {p.stderr.decode(errors='replace')[-500:]}")
    rss = None
    if timer:
        last = p.stderr.decode(errors="replace").strip().splitlines()[-1]
        rss = int(last) / 1024 if last.isdigit() else None
    return secs, rss


def report(tool, n, secs, rss):
    mem = f"{rss:.1f} MB" if rss is not None else "?"
    print(f"{tool:<34} {n:>9} records {secs:8.2f} s {n / secs:>11,.0f} records/s  peak {mem}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rookery", default=os.path.join(ROOT, "target/release/rookery"))
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--peer-records", type=int, default=0,
                    help="records for python-chess (default: two cycles of the suites)")
    ap.add_argument("--input", help="an existing file of --records cycled records")
    ap.add_argument("--stdout", action="store_true",
                    help="write to stdout (`-o -`, sent to /dev/null) instead of `-o /dev/null`: "
                         "builds before the fix of `-o` for devices replaced /dev/null with a file")
    ap.add_argument("--label", default="rookery", help="name of the rookery build in the table")
    args = ap.parse_args()
    records = suite_records()
    peer_n = args.peer_records or 2 * len(records)
    with tempfile.TemporaryDirectory(prefix="epd-peer-") as tmp:
        big = args.input
        if not big:
            big = os.path.join(tmp, "big.epd")
            write_cycled(records, args.records, big)
        small = os.path.join(tmp, "small.epd")
        write_cycled(records, peer_n, small)
        print(f"{len(records)} distinct records; rookery reads {args.records}, python-chess {peer_n}")
        out = "-" if args.stdout else "/dev/null"
        for jobs in (1, 2):
            secs, rss = timed([args.rookery, "epd", "normalize", "-q", "--jobs", str(jobs),
                               big, "-o", out])
            report(f"{args.label} epd normalize --jobs {jobs}", args.records, secs, rss)
        secs, rss = timed([sys.executable, "-c", "import os\n" + PEER, small])
        report("python-chess from_epd + epd", peer_n, secs, rss)


if __name__ == "__main__":
    main()
