"""A python-chess script, as people write them: the openings of the rated
games of a PGN file, how they scored, how the games ended.

    python examples/python/opening_report.py FILE.pgn [--min-elo 2000]

It is plain python-chess (`import chess`, `chess.pgn.read_game` in a loop,
`board.san`, `board.push`, `is_checkmate`, `Board.outcome`). With rookery
installed, the one line `import rookery as chess` in place of the two imports
below runs it unchanged, with the same output (docs/python.md;
crates/python/tests/test_example_script.py runs it both ways and compares).
"""

import argparse
import collections

import chess
import chess.pgn

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("pgn")
parser.add_argument("--min-elo", type=int, default=2000, help="both players at least this rated")
parser.add_argument("--plies", type=int, default=4, help="the opening is the first N plies")
args = parser.parse_args()


def rating(headers, tag):
    try:
        return int(headers.get(tag, "0"))
    except ValueError:
        return 0


openings = collections.Counter()
scores = collections.defaultdict(float)
endings = collections.Counter()
lengths = []
skipped = 0

with open(args.pgn, encoding="utf-8", errors="replace") as pgn:
    while True:
        game = chess.pgn.read_game(pgn)
        if game is None:
            break
        headers = game.headers
        if min(rating(headers, "WhiteElo"), rating(headers, "BlackElo")) < args.min_elo or game.errors:
            skipped += 1
            continue
        board = game.board()
        sans = []
        for move in game.mainline_moves():
            if len(sans) < args.plies:
                sans.append(board.san(move))
            board.push(move)
        opening = " ".join(sans)
        openings[opening] += 1
        scores[opening] += {"1-0": 1.0, "1/2-1/2": 0.5}.get(headers["Result"], 0.0)
        lengths.append(board.fullmove_number)
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            endings[outcome.termination.name.lower()] += 1
        elif board.is_check():
            endings["in check, unfinished"] += 1
        else:
            endings["resigned or agreed"] += 1

print(f"{sum(openings.values())} games rated {args.min_elo}+ ({skipped} others skipped)")
if lengths:
    print(f"average length: {sum(lengths) / len(lengths):.1f} moves")
for opening, n in openings.most_common(8):
    print(f"{n:5}  {scores[opening] / n:5.1%} for White  {opening}")
for ending, n in sorted(endings.items()):
    print(f"{n:5}  {ending}")
