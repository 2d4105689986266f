"""What the extraction scripts share: reading the games of PGN files with
python-chess, and the result of a finished game of standard chess as the
label the tuner reads (from White's side).

Imported by extract_games.py and extract_positions.py (run from any
directory: Python puts the script's own directory on the import path).
"""

import chess.pgn

RESULT = {"1-0": "1.0", "0-1": "0.0", "1/2-1/2": "0.5"}


def read_games(path):
    """The games of the PGN file at `path`, in order (read as UTF-8, any
    byte that is not replaced)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                return
            yield game


def white_score(game):
    """"1.0", "0.5" or "0.0": the result from White's side of a finished game
    of standard chess; None for an unfinished game or another variant."""
    res = RESULT.get(game.headers.get("Result", "*"))
    if res is None or game.headers.get("Variant", "Standard") not in ("Standard", "Chess"):
        return None
    return res
