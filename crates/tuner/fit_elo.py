"""Fit the strength of rookery's weakening levels from match results.

Usage: python3 fit_elo.py LEVEL:OPPONENT_ELO:FILE ...

Each FILE is the output of `rookery match` (or of the retired match.py) for
rookery at one weakening level (a
build whose UCI_Elo is the level itself, see crates/tuner/README.md) against
an opponent of known rating, e.g. Stockfish with UCI_LimitStrength at that
UCI_Elo. The last "W/D/L a/b/c" (or "W/D/L: a/b/c") in the file is used, so unfinished matches
count with the games they have.

For each level, all its matches are pooled and the rating R that maximises
the likelihood of the results (logistic Elo model, a draw counting as half a
win and half a loss) is printed with its 95% interval from the curvature of
the log-likelihood, and finally the lines of a `CALIBRATION` table for
crates/engine/src/strength.rs.
"""

import math
import re
import sys
from collections import defaultdict


def expected(r, opp):
    return 1.0 / (1.0 + 10 ** ((opp - r) / 400.0))


def loglik(r, games):
    total = 0.0
    for opp, w, d, l in games:
        p = min(max(expected(r, opp), 1e-12), 1 - 1e-12)
        total += (w + d / 2) * math.log(p) + (l + d / 2) * math.log(1 - p)
    return total


def fit(games):
    lo, hi = -1000.0, 5000.0
    for _ in range(200):
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        if loglik(a, games) < loglik(b, games):
            lo = a
        else:
            hi = b
    r = (lo + hi) / 2
    h = 1.0
    curv = (loglik(r + h, games) - 2 * loglik(r, games) + loglik(r - h, games)) / h**2
    err = 1.96 / math.sqrt(-curv) if curv < 0 else float("inf")
    return r, err


def last_wdl(path):
    found = None
    with open(path) as f:
        for line in f:
            m = re.search(r"W/D/L:? (\d+)/(\d+)/(\d+)", line)
            if m:
                found = tuple(map(int, m.groups()))
    return found


def main(args):
    if not args:
        print(__doc__.strip())
        return 2
    by_level = defaultdict(list)
    for arg in args:
        level, opp, path = arg.split(":", 2)
        wdl = last_wdl(path)
        if wdl is None:
            print(f"{path}: no W/D/L yet", file=sys.stderr)
            continue
        by_level[int(level)].append((float(opp), *wdl))
    rows = []
    for level in sorted(by_level):
        games = by_level[level]
        r, err = fit(games)
        n = sum(w + d + l for _, w, d, l in games)
        detail = ", ".join(f"vs {opp:.0f}: {w}/{d}/{l}" for opp, w, d, l in games)
        print(f"level {level}: {n} games ({detail}); rating {r:.0f} +- {err:.0f}")
        rows.append((round(r / 10) * 10, level))
    print("CALIBRATION:", ", ".join(f"({r}, {lv})" for r, lv in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
