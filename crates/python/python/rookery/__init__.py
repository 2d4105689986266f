"""rookery: chess data at Rust speed, with python-chess's names.

>>> import rookery
>>> board = rookery.Board()
>>> board.push_san("e4")
Move.from_uci('e2e4')
>>> board.fen()
'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'

Games: ``rookery.pgn.read_games(path, jobs=4)``; headers only:
``rookery.pgn.read_headers``; NumPy batches: ``rookery.pgn.positions``;
EPD: ``rookery.epd.read`` / ``rookery.epd.write``.
"""

from ._errors import IllegalMoveError, InternalError, ParseError
from ._rookery import MATE_SCORE, STARTING_FEN, Board, Move, __version__
from . import epd, pgn

WHITE = True
BLACK = False

__all__ = [
    "BLACK",
    "Board",
    "IllegalMoveError",
    "InternalError",
    "MATE_SCORE",
    "Move",
    "ParseError",
    "STARTING_FEN",
    "WHITE",
    "__version__",
    "epd",
    "pgn",
]
