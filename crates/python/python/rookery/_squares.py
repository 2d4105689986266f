"""Colours, piece types, squares, bitboard masks, ``Piece`` and ``SquareSet``
with python-chess's names and numbers (square ``a1`` = 0 .. ``h8`` = 63,
bit ``i`` of a mask = square ``i``; pawn = 1 .. king = 6; ``WHITE`` = True).

>>> import rookery as chess
>>> chess.square_name(chess.E4), chess.parse_square("e4") == chess.E4
('e4', True)
>>> chess.SquareSet(chess.BB_RANK_1 & chess.BB_FILE_E)
SquareSet(0x0000_0000_0000_0010)
"""

from __future__ import annotations

# typing's names for annotations only (strings here): importing typing costs
# milliseconds of every script's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Iterator, List, Optional, SupportsInt, Union  # noqa: F401

Color = bool
WHITE: Color = True
BLACK: Color = False
COLORS = [WHITE, BLACK]
COLOR_NAMES = ["black", "white"]

PieceType = int
PIECE_TYPES = [PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING] = range(1, 7)
PIECE_SYMBOLS = [None, "p", "n", "b", "r", "q", "k"]
PIECE_NAMES = [None, "pawn", "knight", "bishop", "rook", "queen", "king"]
UNICODE_PIECE_SYMBOLS = {
    "R": "♖", "r": "♜", "N": "♘", "n": "♞", "B": "♗", "b": "♝",
    "Q": "♕", "q": "♛", "K": "♔", "k": "♚", "P": "♙", "p": "♟",
}

FILE_NAMES = ["a", "b", "c", "d", "e", "f", "g", "h"]
RANK_NAMES = ["1", "2", "3", "4", "5", "6", "7", "8"]

STARTING_BOARD_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"

Square = int
SQUARES = list(range(64))
SQUARE_NAMES = [f + r for r in RANK_NAMES for f in FILE_NAMES]
for _i, _name in enumerate(SQUARE_NAMES):
    globals()[_name.upper()] = _i
SQUARES_180 = [sq ^ 0x38 for sq in SQUARES]

Bitboard = int
BB_EMPTY = 0
BB_ALL = 0xFFFF_FFFF_FFFF_FFFF
BB_SQUARES = [1 << sq for sq in SQUARES]
for _i, _name in enumerate(SQUARE_NAMES):
    globals()["BB_" + _name.upper()] = 1 << _i
BB_CORNERS = BB_SQUARES[0] | BB_SQUARES[7] | BB_SQUARES[56] | BB_SQUARES[63]
BB_CENTER = BB_SQUARES[27] | BB_SQUARES[28] | BB_SQUARES[35] | BB_SQUARES[36]
BB_LIGHT_SQUARES = 0x55AA_55AA_55AA_55AA
BB_DARK_SQUARES = 0xAA55_AA55_AA55_AA55
BB_FILES = [0x0101_0101_0101_0101 << i for i in range(8)]
BB_RANKS = [0xFF << (8 * i) for i in range(8)]
for _i in range(8):
    globals()["BB_FILE_" + FILE_NAMES[_i].upper()] = BB_FILES[_i]
    globals()["BB_RANK_" + RANK_NAMES[_i]] = BB_RANKS[_i]
BB_BACKRANKS = BB_RANKS[0] | BB_RANKS[7]
del _i, _name


def parse_square(name: str) -> Square:
    """The square ``name`` names (``"e4"``); ValueError otherwise."""
    return SQUARE_NAMES.index(name)


def square_name(square: Square) -> str:
    return SQUARE_NAMES[square]


def square(file_index: int, rank_index: int) -> Square:
    return rank_index * 8 + file_index


def square_file(square: Square) -> int:
    return square & 7


def square_rank(square: Square) -> int:
    return square >> 3


def square_distance(a: Square, b: Square) -> int:
    """King steps from ``a`` to ``b``."""
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


def square_manhattan_distance(a: Square, b: Square) -> int:
    return abs((a & 7) - (b & 7)) + abs((a >> 3) - (b >> 3))


def square_knight_distance(a: Square, b: Square) -> int:
    """Knight moves from ``a`` to ``b`` on an empty board (breadth-first)."""
    seen = {a}
    frontier = [a]
    steps = 0
    while b not in seen:
        steps += 1
        nxt = []
        for sq in frontier:
            for to in scan_forward(_knight(sq)):
                if to not in seen:
                    seen.add(to)
                    nxt.append(to)
        frontier = nxt
    return steps


def _knight(sq: Square) -> Bitboard:
    from ._rookery import attacks_mask
    return attacks_mask(KNIGHT, WHITE, sq, 0)


def square_mirror(square: Square) -> Square:
    return square ^ 0x38


def piece_symbol(piece_type: PieceType) -> str:
    return PIECE_SYMBOLS[piece_type]


def piece_name(piece_type: PieceType) -> str:
    return PIECE_NAMES[piece_type]


def lsb(bb: Bitboard) -> int:
    return (bb & -bb).bit_length() - 1


def msb(bb: Bitboard) -> int:
    return bb.bit_length() - 1


def scan_forward(bb: Bitboard) -> Iterator[Square]:
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def scan_reversed(bb: Bitboard) -> Iterator[Square]:
    while bb:
        sq = bb.bit_length() - 1
        yield sq
        bb ^= 1 << sq


def popcount(bb: Bitboard) -> int:
    return bin(bb).count("1")


def flip_vertical(bb: Bitboard) -> Bitboard:
    return int.from_bytes(int(bb).to_bytes(8, "little"), "big")


def flip_horizontal(bb: Bitboard) -> Bitboard:
    bb = int(bb)
    out = 0
    for f in range(8):
        out |= ((bb >> f) & BB_FILES[0]) << (7 - f)
    return out


def flip_diagonal(bb: Bitboard) -> Bitboard:
    """Mirrors at the a1-h8 diagonal (square (f, r) goes to (r, f))."""
    bb = int(bb)
    return sum(1 << ((sq & 7) * 8 + (sq >> 3)) for sq in scan_forward(bb))


def flip_anti_diagonal(bb: Bitboard) -> Bitboard:
    """Mirrors at the a8-h1 diagonal."""
    bb = int(bb)
    return sum(1 << ((7 - (sq & 7)) * 8 + (7 - (sq >> 3))) for sq in scan_forward(bb))


def shift_down(b: Bitboard) -> Bitboard:
    return b >> 8


def shift_2_down(b: Bitboard) -> Bitboard:
    return b >> 16


def shift_up(b: Bitboard) -> Bitboard:
    return (b << 8) & BB_ALL


def shift_2_up(b: Bitboard) -> Bitboard:
    return (b << 16) & BB_ALL


def shift_right(b: Bitboard) -> Bitboard:
    return (b << 1) & ~BB_FILES[0] & BB_ALL


def shift_2_right(b: Bitboard) -> Bitboard:
    return (b << 2) & ~BB_FILES[0] & ~BB_FILES[1] & BB_ALL


def shift_left(b: Bitboard) -> Bitboard:
    return (b >> 1) & ~BB_FILES[7]


def shift_2_left(b: Bitboard) -> Bitboard:
    return (b >> 2) & ~BB_FILES[6] & ~BB_FILES[7]


def shift_up_left(b: Bitboard) -> Bitboard:
    return (b << 7) & ~BB_FILES[7] & BB_ALL


def shift_up_right(b: Bitboard) -> Bitboard:
    return (b << 9) & ~BB_FILES[0] & BB_ALL


def shift_down_left(b: Bitboard) -> Bitboard:
    return (b >> 9) & ~BB_FILES[7]


def shift_down_right(b: Bitboard) -> Bitboard:
    return (b >> 7) & ~BB_FILES[0]


class Piece:
    """A piece type and a colour.

    >>> Piece.from_symbol("q")
    Piece.from_symbol('q')
    """

    __slots__ = ("piece_type", "color")

    def __init__(self, piece_type: PieceType, color: Color) -> None:
        self.piece_type = piece_type
        self.color = color

    def symbol(self) -> str:
        s = PIECE_SYMBOLS[self.piece_type]
        return s.upper() if self.color else s

    def unicode_symbol(self, *, invert_color: bool = False) -> str:
        s = self.symbol()
        return UNICODE_PIECE_SYMBOLS[s.swapcase() if invert_color else s]

    @classmethod
    def from_symbol(cls, symbol: str) -> "Piece":
        """The piece of a letter (``N`` white knight, ``q`` black queen);
        ValueError for any other text."""
        return cls(PIECE_SYMBOLS.index(symbol.lower()), symbol.isupper())

    def __hash__(self) -> int:
        return self.piece_type + (-1 if self.color else 5)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Piece):
            return (self.piece_type, self.color) == (other.piece_type, other.color)
        return NotImplemented

    def __repr__(self) -> str:
        return f"Piece.from_symbol({self.symbol()!r})"

    def __str__(self) -> str:
        return self.symbol()

    def __reduce__(self):
        return (Piece, (self.piece_type, self.color))


if TYPE_CHECKING:
    IntoSquareSet = Union[SupportsInt, Iterable[Square]]


def __getattr__(name: str) -> object:
    # python-chess's ``IntoSquareSet``, a typing alias: made when asked for.
    if name == "IntoSquareSet":
        from typing import Iterable, SupportsInt, Union
        return Union[SupportsInt, Iterable[Square]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class SquareSet:
    """A set of squares over a 64-bit mask, with the operators of ``set``
    and of ``int``.

    >>> sorted(SquareSet(BB_A1 | BB_H8))
    [0, 63]
    """

    __slots__ = ("mask",)

    def __init__(self, squares: IntoSquareSet = BB_EMPTY) -> None:
        try:
            self.mask = squares.__int__() & BB_ALL
            return
        except AttributeError:
            self.mask = 0
        for sq in squares:
            self.add(sq)

    # Set.
    def __contains__(self, square: Square) -> bool:
        return bool(BB_SQUARES[square] & self.mask)

    def __iter__(self) -> Iterator[Square]:
        return scan_forward(self.mask)

    def __reversed__(self) -> Iterator[Square]:
        return scan_reversed(self.mask)

    def __len__(self) -> int:
        return popcount(self.mask)

    def add(self, square: Square) -> None:
        self.mask |= BB_SQUARES[square]

    def discard(self, square: Square) -> None:
        self.mask &= ~BB_SQUARES[square]

    def isdisjoint(self, other: IntoSquareSet) -> bool:
        return not bool(self & other)

    def issubset(self, other: IntoSquareSet) -> bool:
        return not bool(self & ~SquareSet(other))

    def issuperset(self, other: IntoSquareSet) -> bool:
        return not bool(~self & other)

    def union(self, other: IntoSquareSet) -> "SquareSet":
        return self | other

    def __or__(self, other: IntoSquareSet) -> "SquareSet":
        r = SquareSet(other)
        r.mask |= self.mask
        return r

    def intersection(self, other: IntoSquareSet) -> "SquareSet":
        return self & other

    def __and__(self, other: IntoSquareSet) -> "SquareSet":
        r = SquareSet(other)
        r.mask &= self.mask
        return r

    def difference(self, other: IntoSquareSet) -> "SquareSet":
        return self - other

    def __sub__(self, other: IntoSquareSet) -> "SquareSet":
        r = SquareSet(other)
        r.mask = self.mask & ~r.mask
        return r

    def symmetric_difference(self, other: IntoSquareSet) -> "SquareSet":
        return self ^ other

    def __xor__(self, other: IntoSquareSet) -> "SquareSet":
        r = SquareSet(other)
        r.mask ^= self.mask
        return r

    def copy(self) -> "SquareSet":
        return SquareSet(self.mask)

    def update(self, *others: IntoSquareSet) -> None:
        for other in others:
            self |= other

    def __ior__(self, other: IntoSquareSet) -> "SquareSet":
        self.mask |= SquareSet(other).mask
        return self

    def intersection_update(self, *others: IntoSquareSet) -> None:
        for other in others:
            self &= other

    def __iand__(self, other: IntoSquareSet) -> "SquareSet":
        self.mask &= SquareSet(other).mask
        return self

    def difference_update(self, other: IntoSquareSet) -> None:
        self -= other

    def __isub__(self, other: IntoSquareSet) -> "SquareSet":
        self.mask &= ~SquareSet(other).mask
        return self

    def symmetric_difference_update(self, other: IntoSquareSet) -> None:
        self ^= other

    def __ixor__(self, other: IntoSquareSet) -> "SquareSet":
        self.mask ^= SquareSet(other).mask
        return self

    def remove(self, square: Square) -> None:
        """Removes ``square``; KeyError if it is not in the set."""
        mask = BB_SQUARES[square]
        if not self.mask & mask:
            raise KeyError(square)
        self.mask ^= mask

    def pop(self) -> Square:
        """Removes and returns the lowest square; KeyError if empty."""
        if not self.mask:
            raise KeyError("pop from empty SquareSet")
        sq = lsb(self.mask)
        self.mask &= self.mask - 1
        return sq

    def clear(self) -> None:
        self.mask = BB_EMPTY

    # SquareSet.
    def carry_rippler(self) -> Iterator[Bitboard]:
        """Every subset of the set, as masks (the empty one first)."""
        subset = BB_EMPTY
        while True:
            yield subset
            subset = (subset - self.mask) & self.mask
            if not subset:
                break

    def mirror(self) -> "SquareSet":
        return SquareSet(flip_vertical(self.mask))

    def tolist(self) -> List[bool]:
        return [bool(self.mask >> sq & 1) for sq in SQUARES]

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __eq__(self, other: object) -> bool:
        try:
            return self.mask == SquareSet(other).mask  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return NotImplemented

    def __lshift__(self, shift: int) -> "SquareSet":
        return SquareSet((self.mask << shift) & BB_ALL)

    def __rshift__(self, shift: int) -> "SquareSet":
        return SquareSet(self.mask >> shift)

    def __ilshift__(self, shift: int) -> "SquareSet":
        self.mask = (self.mask << shift) & BB_ALL
        return self

    def __irshift__(self, shift: int) -> "SquareSet":
        self.mask >>= shift
        return self

    def __invert__(self) -> "SquareSet":
        return SquareSet(~self.mask & BB_ALL)

    def __int__(self) -> int:
        return self.mask

    def __index__(self) -> int:
        return self.mask

    __rand__ = __and__
    __ror__ = __or__
    __rxor__ = __xor__

    def __hash__(self) -> int:
        return hash(self.mask)

    def __repr__(self) -> str:
        return f"SquareSet({self.mask:#021_x})"

    def __str__(self) -> str:
        rows = []
        for rank in range(7, -1, -1):
            rows.append(" ".join("1" if self.mask >> (rank * 8 + f) & 1 else "." for f in range(8)))
        return "\n".join(rows)

    @classmethod
    def ray(cls, a: Square, b: Square) -> "SquareSet":
        from ._rookery import ray
        return cls(ray(a, b))

    @classmethod
    def between(cls, a: Square, b: Square) -> "SquareSet":
        from ._rookery import between
        return cls(between(a, b))

    @classmethod
    def from_square(cls, square: Square) -> "SquareSet":
        return cls(BB_SQUARES[square])


__all__ = [name for name in dir() if not name.startswith("_") and name not in (
    "Iterable", "Iterator", "List", "Optional", "SupportsInt", "Union", "TYPE_CHECKING", "annotations")]
