"""From a PGN file to a NumPy training set, then evaluation against move number.

    python examples/python/training_set.py [FILE.pgn[.zst|.gz|.bz2]] [--every N] [--out eval.png]

Needs the rookery package (`pip install ./crates/python numpy`); the plot needs
matplotlib and is skipped with a message without it. The default file is the
lichess sample of the repository's tests, whose games carry [%eval] and [%clk].
"""

import argparse
import sys
from pathlib import Path

import numpy as np

import rookery
import rookery.pgn

REPO = Path(__file__).resolve().parents[2]
DEFAULT = REPO / "crates" / "pgn" / "tests" / "data" / "lichess_db_10k.pgn"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("pgn", nargs="?", type=Path, default=DEFAULT)
parser.add_argument("--every", type=int, default=1, help="keep one position in N plies")
parser.add_argument("--out", type=Path, default=Path("eval-by-move.png"))
args = parser.parse_args()

# 1. The positions, a chunk of arrays at a time: one loop, no object per position.
#    Only finished games (a filter on the headers).
finished = lambda headers: headers["Result"] != "*"  # noqa: E731
chunks = list(rookery.pgn.positions(args.pgn, args.every, filter=finished, planes=True))
if not chunks:
    sys.exit(f"{args.pgn}: no finished games")
data = {key: np.concatenate([c[key] for c in chunks]) for key in chunks[0]}

# 2. The training set: 12x64 piece planes plus the side to move as input; the
#    game's result (White's score) as target; positions with an eval kept apart.
X = np.concatenate([data["planes"].reshape(len(data["planes"]), -1), data["turn"][:, None]], axis=1).astype(np.float32)
y = data["result"]
evaluated = ~np.isnan(data["eval"])
print(f"{len(X)} positions from {len(np.unique(data['game']))} games: X {X.shape} {X.dtype}, y {y.shape}")
print(f"{evaluated.sum()} positions with an [%eval]; results: "
      f"{(y == 1).sum()} White wins, {(y == 0.5).sum()} draws, {(y == 0).sum()} Black wins")

# 3. Evaluation against move number: the mean over the games, mates clipped to ±10 pawns.
move = (data["ply"][evaluated] + 1) // 2
pawns = np.clip(data["eval"][evaluated] / 100.0, -10, 10)
numbers = np.unique(move)
means = np.array([pawns[move == m].mean() for m in numbers])
for m, v in list(zip(numbers, means))[:10]:
    print(f"move {m:3}: {v:+.2f}")

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot (pip install matplotlib)")
else:
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.scatter(move, pawns, s=4, alpha=0.3, label="positions")
    ax.plot(numbers, means, color="black", label="mean")
    ax.set_xlabel("move number")
    ax.set_ylabel("evaluation (pawns, White's view)")
    ax.set_title(f"{args.pgn.name}: [%eval] by move (rookery {rookery.__version__})")
    ax.legend()
    fig.savefig(args.out, dpi=100, bbox_inches="tight")
    print(f"plot written to {args.out}")
