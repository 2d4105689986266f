#!/usr/bin/env python3
"""Reference LLRs for tests/stats.rs, from fishtest's, fastchess's and
cutechess-cli's published formulas.

Written for rookery from the formulas, not from those programs' code; pure
Python (no numpy, no scipy), and by other numerical means than the crate
(bisection where the crate takes Newton steps).

The table's LLRs are the exact generalised LLRs that fishtest (LLRcalc.py
`LLR_logistic`, `LLR_normalized`) and fastchess (sprt.cpp) decide with:
the counts regularised as below, then N * sum p_i ln(q1_i / q0_i) with q_j
the maximum-likelihood distribution on the same values whose mean is s_j
(logistic) or whose t-value (mean - 1/2) / sd is t_j = nelo_j / (800 / ln 10)
per game, sqrt(2) times that per pair (normalized); see `llr_exact`.  For
single games the table also has cutechess-cli's LLR (model "bayesian"): 0
until there is a win, a loss and a draw, then the BayesElo likelihood ratio
at the sample's draw Elo (see `llr_cutechess`).

The quadratic approximation the crate used before, the row "Logistic (alt2)"
of fishtest's raw-statistics page (server/fishtest/templates/tests_stats.mak),
is kept for the --decide report:

* regularisation (fishtest server/fishtest/stats/LLRcalc.py, `regularize` and
  `results_to_pdf`): every count that is 0 becomes 1e-3; N is the sum of the
  regularised counts; the result values are i / (k - 1) for the k buckets
  (0, 1/2, 1 for [L, D, W]; 0, 1/4, ..., 1 for the pentanomial [0..2]);
* mean m and variance v of that distribution;
* the hypotheses' scores s0, s1: logistic 1 / (1 + 10^(-elo/400)); normalized
  1/2 + nelo / (800 / ln 10) * sigma, with sigma the per-game standard
  deviation sqrt(v) (trinomial) or sqrt(2 v) (pentanomial);
* LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v)  (LLRcalc.py `LLR_alt2`, from
  Van den Bergh, "A quick approximation of the GSPRT", GSPRT_approximation.pdf).

Usage:
  python3 fishtest_llr.py           prints data/fishtest_llr.txt (the table
                                    tests/stats.rs reads)
  python3 fishtest_llr.py --decide  prints, for one-sided matches, how many
                                    pairs (games) each method needs to decide
                                    (the approximation, then the exact LLR),
                                    for the report only.
"""

import math
import sys

EPSILON = 1e-3
NELO_PER_NT = 800 / math.log(10)


def regularised(counts):
    return [c if c != 0 else EPSILON for c in counts]


def distribution(counts):
    """N and the (value, probability) pairs of the regularised counts."""
    reg = regularised(counts)
    n = sum(reg)
    k = len(reg)
    return n, [(i / (k - 1), c / n) for i, c in enumerate(reg)]


def mean_var(dist):
    m = sum(p * a for a, p in dist)
    return m, sum(p * (a - m) ** 2 for a, p in dist)


def logistic_score(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def hypothesis_scores(counts, elo0, elo1, model):
    _, dist = distribution(counts)
    _, v = mean_var(dist)
    if model == "logistic":
        return logistic_score(elo0), logistic_score(elo1)
    sigma = math.sqrt(v * (2 if len(counts) == 5 else 1))
    return tuple(0.5 + e / NELO_PER_NT * sigma for e in (elo0, elo1))


def llr_alt2(counts, elo0, elo1, model):
    n, dist = distribution(counts)
    m, v = mean_var(dist)
    s0, s1 = hypothesis_scores(counts, elo0, elo1, model)
    return n * (s1 - s0) * (2 * m - s0 - s1) / (2 * v)


# ---------------------------------------------------------------------------
# Exact GLR (fishtest's and fastchess's decision statistic): the table.
# The MLE of a distribution on the same values with a constraint sum q_i b_i = 0
# is q_i = p_i / (1 + x b_i), x the root of sum p_i b_i / (1 + x b_i) = 0
# (decreasing in x on (-1/max b, -1/min b)); found here by bisection.


def constrained_mle(dist, b):
    lo, hi = -1 / max(b), -1 / min(b)

    def f(x):
        return sum(p * bi / (1 + x * bi) for (_, p), bi in zip(dist, b))

    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    return [p / (1 + x * bi) for (_, p), bi in zip(dist, b)]


def mle_mean(dist, s):
    return constrained_mle(dist, [a - s for a, _ in dist])


def mle_t(dist, ref, t):
    """MLE with (mean - ref) / sd = t, by fixed point on a linearised sd."""
    q = [1 / len(dist)] * len(dist)
    for _ in range(100):
        m = sum(qi * a for qi, (a, _) in zip(q, dist))
        sd = math.sqrt(sum(qi * (a - m) ** 2 for qi, (a, _) in zip(q, dist)))
        b = [a - ref - t * sd * (1 + ((a - m) / sd) ** 2) / 2 for a, _ in dist]
        new = constrained_mle(dist, b)
        done = max(abs(x - y) for x, y in zip(new, q)) < 1e-12
        q = new
        if done:
            break
    return q


def llr_exact(counts, elo0, elo1, model):
    n, dist = distribution(counts)
    if model == "logistic":
        q0, q1 = (mle_mean(dist, logistic_score(e)) for e in (elo0, elo1))
    else:
        scale = math.sqrt(2) if len(counts) == 5 else 1
        q0, q1 = (mle_t(dist, 0.5, e / NELO_PER_NT * scale) for e in (elo0, elo1))
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), a, b in zip(dist, q0, q1))


def llr_cutechess(counts, elo0, elo1):
    """cutechess-cli's SPRT on [L, D, W]: BayesElo at the sample's draw Elo."""
    losses, draws, wins = counts
    if wins == 0 or losses == 0 or draws == 0:
        return 0.0
    n = wins + draws + losses
    w, l = wins / n, losses / n
    drawelo = 200 * math.log10((1 - l) / l * (1 - w) / w)
    x = 10 ** (-drawelo / 400)
    scale = 4 * x / (1 + x) ** 2

    def probabilities(elo):
        pw = 1 / (1 + 10 ** ((drawelo - elo) / 400))
        pl = 1 / (1 + 10 ** ((drawelo + elo) / 400))
        return pw, pl, 1 - pw - pl

    p0, p1 = probabilities(elo0 / scale), probabilities(elo1 / scale)
    return sum(c * math.log(b / a) for c, a, b in zip((wins, losses, draws), p0, p1))


# ---------------------------------------------------------------------------

PTNML = [
    [1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [6, 0, 0, 0, 0], [12, 0, 0, 0, 0],
    [0, 0, 0, 0, 1], [0, 0, 0, 0, 2], [0, 0, 0, 0, 6], [0, 0, 0, 0, 12],
    [60, 400, 700, 300, 40], [30, 0, 0, 0, 0], [200, 0, 0, 0, 0], [0, 0, 1, 0, 0],
    [0, 0, 5, 0, 0], [0, 0, 0, 3, 0], [0, 4, 0, 0, 0], [1, 0, 0, 0, 1],
    [0, 3, 0, 1, 0], [147, 180, 0, 155, 298], [0, 10, 20, 10, 0],
    [13, 37, 50, 25, 3], [10, 50, 100, 60, 20], [40, 300, 700, 400, 60],
]
# [L, D, W]
TRINOMIAL = [
    [1, 0, 0], [3, 0, 0], [10, 0, 0], [24, 0, 0],
    [0, 0, 1], [0, 0, 3], [0, 0, 10], [0, 0, 24],
    [0, 10, 0], [1, 0, 2], [0, 1, 3], [0, 5, 5],
    [20, 40, 30], [400, 800, 600], [600, 800, 400], [100, 260, 120],
    [1, 1, 1], [3, 5, 2], [0, 3, 2], [120, 210, 150], [2, 50, 50],
]
TESTS = [(0, 5), (-5, 0), (0, 4), (-3, 1), (0, 10), (-1.75, 0.25), (0, 2.716)]


def table():
    print("# Generated by tests/fishtest_llr.py (do not edit): the exact generalised")
    print("# LLR on regularised counts (zeros -> 1e-3), and for games cutechess-cli's")
    print("# LLR (model bayesian).  Columns: counts (L,D,W or the pentanomial 0..2),")
    print("# elo0, elo1, model, LLR (repr, full precision).")
    for counts in PTNML + TRINOMIAL:
        for elo0, elo1 in TESTS:
            models = ["normalized", "logistic"] + (["bayesian"] if len(counts) == 3 else [])
            for model in models:
                if model == "bayesian":
                    llr = llr_cutechess(counts, elo0, elo1)
                else:
                    llr = llr_exact(counts, elo0, elo1, model)
                c = ",".join(str(x) for x in counts)
                print(f"{c} {elo0} {elo1} {model} {llr!r}")


def decide():
    bound = math.log(19)  # alpha = beta = 0.05
    for elo0, elo1 in [(0, 5), (-5, 0)]:
        for model in ("normalized", "logistic"):
            for name, make in [
                ("pairs 0-2", lambda k: [k, 0, 0, 0, 0]),
                ("pairs 2-0", lambda k: [0, 0, 0, 0, k]),
                ("games lost", lambda k: [k, 0, 0]),
                ("games won", lambda k: [0, 0, k]),
            ]:
                row = []
                for method in (llr_alt2, llr_exact):
                    first = None
                    for k in range(1, 2001):
                        llr = method(make(k), elo0, elo1, model)
                        if abs(llr) >= bound:
                            first = (k, llr)
                            break
                    row.append(first)
                one = llr_alt2(make(1), elo0, elo1, model)
                at12 = llr_alt2(make(12), elo0, elo1, model)
                print(f"[{elo0}, {elo1}] {model:10} {name:10} alt2: decides at {row[0]}, "
                      f"LLR(1) {one:.4f}, LLR(12) {at12:.4f}; exact: {row[1]}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--decide"]:
        decide()
    else:
        table()
