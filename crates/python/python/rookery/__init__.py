"""rookery: chess data at Rust speed, with python-chess's names.

``import rookery as chess`` runs python-chess scripts: squares, pieces,
``SquareSet``, ``Move``, ``BaseBoard`` and ``Board`` (rules from rookery-core),
``rookery.pgn`` (game trees, visitors) and ``rookery.polyglot`` (books).

>>> import rookery
>>> board = rookery.Board()
>>> board.push_san("e4")
Move.from_uci('e2e4')
>>> board.fen()
'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'

Games in bulk: ``rookery.pgn.read_games(path, jobs=4)``; headers only:
``rookery.pgn.read_headers``; NumPy batches: ``rookery.pgn.positions``;
EPD: ``rookery.epd.read`` / ``rookery.epd.write``; an indexed database
(explorer, search): ``rookery.db.open``.
"""

from ._errors import AmbiguousMoveError, IllegalMoveError, InternalError, InvalidMoveError, ParseError
from ._rookery import MATE_SCORE, Move, __version__
from ._squares import *  # noqa: F401,F403 - python-chess's names
from ._squares import __all__ as _squares_all
from ._baseboard import BaseBoard
from ._board import *  # noqa: F401,F403
from ._board import __all__ as _board_all

_SUBMODULES = ("db", "engine", "epd", "pgn", "polyglot")


def __getattr__(name: str) -> object:
    # The submodules are imported when first used (``rookery.pgn``), as
    # ``import rookery.pgn`` would: ``import rookery`` alone stays light.
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    if name == "IntoSquareSet":  # a typing alias, made when asked for
        from ._squares import IntoSquareSet
        return IntoSquareSet
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AmbiguousMoveError",
    "IllegalMoveError",
    "InternalError",
    "InvalidMoveError",
    "MATE_SCORE",
    "Move",
    "ParseError",
    "__version__",
    "db",
    "engine",
    "epd",
    "pgn",
    "polyglot",
    "IntoSquareSet",
] + _squares_all + _board_all
