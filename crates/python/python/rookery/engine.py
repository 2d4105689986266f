"""Evaluations with python-chess's names (``chess.engine``'s score types):
``Cp`` (centipawns), ``Mate`` (mate in n moves, negative when mated),
``MateGiven``, and ``PovScore`` (a score from one side's point of view).
``rookery.pgn`` reads and writes them in ``[%eval]`` comments. rookery
drives engines from the ``rookery`` command, not from this module.

>>> from rookery.engine import Cp, Mate, PovScore
>>> PovScore(Cp(-80), True).black(), Mate(3).score(mate_score=100000)
(Cp(+80), 99997)
>>> sorted([Cp(50), Mate(-2), Mate(1), Mate(-1), Cp(-10), Mate(4)])
[Mate(-1), Mate(-2), Cp(-10), Cp(+50), Mate(+4), Mate(+1)]
"""

from typing import Optional

from ._squares import WHITE, Color


class Score:
    """A score from one side's point of view: centipawns or mate."""

    def score(self, *, mate_score: Optional[int] = None) -> Optional[int]:
        """Centipawns; a mate as ``mate_score`` less the moves to it (None
        without ``mate_score``)."""
        raise NotImplementedError

    def mate(self) -> Optional[int]:
        """Moves to mate (negative: to be mated), or None."""
        return None

    def is_mate(self) -> bool:
        return self.mate() is not None

    def __neg__(self) -> "Score":
        raise NotImplementedError

    def _key(self) -> tuple:
        mate = self.mate()
        if mate is None:
            return (1, self.score())
        # Mated now is worst, then mated later; mating sooner is best, and
        # a mate given best of all.
        if mate > 0 or isinstance(self, MateGivenType):
            return (2, -mate)
        return (0, -mate)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Score) and self._key() == other._key()

    def __lt__(self, other: "Score") -> bool:
        return self._key() < other._key()

    def __le__(self, other: "Score") -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: "Score") -> bool:
        return self._key() > other._key()

    def __ge__(self, other: "Score") -> bool:
        return self._key() >= other._key()

    def __hash__(self) -> int:
        return hash(self._key())


class Cp(Score):
    """A score in centipawns."""

    def __init__(self, cp: int) -> None:
        self.cp = cp

    def score(self, *, mate_score: Optional[int] = None) -> int:
        return self.cp

    def __neg__(self) -> "Cp":
        return Cp(-self.cp)

    def __repr__(self) -> str:
        return f"Cp({self.cp:+d})"

    def __str__(self) -> str:
        return f"{self.cp:+d}"


class Mate(Score):
    """Mate in ``moves`` (negative: mated in ``-moves``)."""

    def __init__(self, moves: int) -> None:
        self.moves = moves

    def mate(self) -> int:
        return self.moves

    def score(self, *, mate_score: Optional[int] = None) -> Optional[int]:
        if mate_score is None:
            return None
        return mate_score - self.moves if self.moves > 0 else -mate_score - self.moves

    def __neg__(self) -> Score:
        return MateGiven if not self.moves else Mate(-self.moves)

    def __repr__(self) -> str:
        return f"Mate({self.moves:+d})" if self.moves else "Mate(-0)"

    def __str__(self) -> str:
        return f"#{self.moves:+d}" if self.moves else "#-0"


class MateGivenType(Score):
    """The score of the side that has just mated (``-Mate(0)``)."""

    def mate(self) -> int:
        return 0

    def score(self, *, mate_score: Optional[int] = None) -> Optional[int]:
        return mate_score

    def __neg__(self) -> Score:
        return Mate(0)

    def __repr__(self) -> str:
        return "MateGiven"

    def __str__(self) -> str:
        return "#+0"


MateGiven = MateGivenType()


class PovScore:
    """``relative``, a score from the point of view of ``turn``."""

    def __init__(self, relative: Score, turn: Color) -> None:
        self.relative = relative
        self.turn = turn

    def white(self) -> Score:
        return self.pov(WHITE)

    def black(self) -> Score:
        return self.pov(not WHITE)

    def pov(self, color: Color) -> Score:
        return self.relative if self.turn == color else -self.relative

    def is_mate(self) -> bool:
        return self.relative.is_mate()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PovScore) and self.white() == other.white()

    def __repr__(self) -> str:
        return f"PovScore({self.relative!r}, {'WHITE' if self.turn else 'BLACK'})"

    def __str__(self) -> str:
        return str(self.relative)


__all__ = ["Cp", "Mate", "MateGiven", "PovScore", "Score"]
