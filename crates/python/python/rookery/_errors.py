"""The exceptions rookery raises (defined in Python so that they subclass the
built-in ones, as python-chess's do)."""

from __future__ import annotations

# typing's names for annotations only (strings here): importing typing costs
# milliseconds of every script's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional  # noqa: F401


class ParseError(ValueError):
    """Input that cannot be read as written: where (``path``, ``line`` and
    ``column``, from 1) and why (``message``, also ``str(error)``'s tail).

    >>> err = ParseError("illegal move", "games.pgn", 12, 5)
    >>> (err.path, err.line, err.column)
    ('games.pgn', 12, 5)
    >>> str(err)
    'games.pgn:12:5: illegal move'
    """

    def __init__(self, message: str, path: Optional[str] = None,
                 line: Optional[int] = None, column: Optional[int] = None) -> None:
        where = ":".join(str(p) for p in (path, line, column) if p is not None)
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column

    def __reduce__(self):  # picklable, as exceptions should be
        return (type(self), (self.message, self.path, self.line, self.column))


class InvalidMoveError(ValueError):
    """Text that is not a move (``Move.from_uci("z1g3")``), as python-chess's
    ``chess.InvalidMoveError``."""


class AmbiguousMoveError(ValueError):
    """A SAN that names more than one legal move, as python-chess's
    ``chess.AmbiguousMoveError``."""


class IllegalMoveError(ValueError):
    """A move that is not legal (or is ambiguous) in the position, as
    python-chess's ``chess.IllegalMoveError``."""


class InternalError(RuntimeError):
    """A bug in rookery: Rust code panicked. The panic was caught at the
    boundary; the interpreter goes on, the call that failed has no result."""
