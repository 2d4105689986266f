"""Polyglot opening books with python-chess's names: ``open_reader(path)``
gives a ``MemoryMappedReader`` whose ``find_all(board)`` yields the book's
``Entry``s of a position, heaviest first. Keys come from rookery-core
(``zobrist_hash``, the published Random64 scheme).

>>> import rookery as chess, rookery.polyglot
>>> hex(chess.polyglot.zobrist_hash(chess.Board()))
'0x463b96181691fc9c'
"""

import mmap
import os
import struct

from typing import Callable, Container, Iterator, NamedTuple, Optional, Union

from ._board import Board
from ._rookery import Move

ENTRY_STRUCT = struct.Struct(">QHHI")


class Entry(NamedTuple):
    """One book entry: the position's key, the move as stored and decoded,
    its weight and learn value."""

    key: int
    raw_move: int
    weight: int
    learn: int
    move: Move


def zobrist_hash(board: Board, *, _hasher: Optional[Callable[[Board], int]] = None) -> int:
    """The Polyglot key of ``board`` (from rookery-core)."""
    if _hasher is not None:
        return _hasher(board)
    return board.polyglot_key()


def _decode(raw: int) -> Move:
    """The move a Polyglot move code writes (castling as king-takes-rook)."""
    to_square = raw & 0x3F
    from_square = (raw >> 6) & 0x3F
    promotion = (raw >> 12) & 0x7
    if not raw:
        return Move.null()
    return Move(from_square, to_square, promotion + 1 if promotion else None)


class MemoryMappedReader:
    """A book file mapped into memory (an empty file is an empty book).

    Entries are sorted by key, so ``find_all`` is a binary search.
    """

    def __init__(self, filename: Union[str, bytes, os.PathLike]) -> None:
        self.fd = os.open(filename, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            self.mmap: Optional[mmap.mmap] = mmap.mmap(self.fd, 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):
            self.mmap = None  # an empty file cannot be mapped

    def __enter__(self) -> "MemoryMappedReader":
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def __len__(self) -> int:
        return 0 if self.mmap is None else self.mmap.size() // ENTRY_STRUCT.size

    def __getitem__(self, index: int) -> Entry:
        if self.mmap is None:
            raise IndexError()
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError()
        key, raw, weight, learn = ENTRY_STRUCT.unpack_from(self.mmap, index * ENTRY_STRUCT.size)
        return Entry(key, raw, weight, learn, _decode(raw))

    def __iter__(self) -> Iterator[Entry]:
        for i in range(len(self)):
            yield self[i]

    def __reversed__(self) -> Iterator[Entry]:
        for i in range(len(self) - 1, -1, -1):
            yield self[i]

    def bisect_key_left(self, key: int) -> int:
        lo, hi = 0, len(self)
        while lo < hi:
            mid = (lo + hi) // 2
            mid_key, = struct.unpack_from(">Q", self.mmap, mid * ENTRY_STRUCT.size)  # type: ignore[arg-type]
            if mid_key < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def __contains__(self, entry: object) -> bool:
        return isinstance(entry, Entry) and any(e == entry for e in self.find_all(entry.key, minimum_weight=0))

    def find_all(self, board: Union[Board, int], *, minimum_weight: int = 1,
                 exclude_moves: Container[Move] = ()) -> Iterator[Entry]:
        """The entries of a position (a board or a key) in book order,
        moves as the board writes them."""
        if isinstance(board, int):
            key, position = board, None
        else:
            key, position = zobrist_hash(board), board
        i = self.bisect_key_left(key)
        while i < len(self):
            entry = self[i]
            i += 1
            if entry.key != key:
                break
            if entry.weight < minimum_weight:
                continue
            move = entry.move
            if position is not None:
                move = position._from_chess960(position._to_chess960(move))
                if not position.chess960 and not position.is_legal(move):
                    chess960_move = position._to_chess960(move)
                    if position.is_legal(chess960_move):
                        move = chess960_move
                entry = Entry(entry.key, entry.raw_move, entry.weight, entry.learn, move)
            if move in exclude_moves:
                continue
            if position is not None and not position.is_legal(move):
                continue
            yield entry

    def find(self, board: Union[Board, int], *, minimum_weight: int = 1,
             exclude_moves: Container[Move] = ()) -> Entry:
        """The heaviest entry; IndexError if there is none."""
        try:
            return max(self.find_all(board, minimum_weight=minimum_weight, exclude_moves=exclude_moves),
                       key=lambda e: e.weight)
        except ValueError:
            raise IndexError() from None

    def get(self, board: Union[Board, int], default: Optional[Entry] = None, *, minimum_weight: int = 1,
            exclude_moves: Container[Move] = ()) -> Optional[Entry]:
        try:
            return self.find(board, minimum_weight=minimum_weight, exclude_moves=exclude_moves)
        except IndexError:
            return default

    def choice(self, board: Union[Board, int], *, minimum_weight: int = 1,
               exclude_moves: Container[Move] = (), random=None) -> Entry:
        """A uniformly random entry; IndexError if there is none."""
        entries = list(self.find_all(board, minimum_weight=minimum_weight, exclude_moves=exclude_moves))
        if not entries:
            raise IndexError()
        if random is None:
            import random as random_module
            random = random_module
        return entries[random.randint(0, len(entries) - 1)]

    def weighted_choice(self, board: Union[Board, int], *, exclude_moves: Container[Move] = (),
                        random=None) -> Entry:
        """An entry drawn with probability proportional to its weight."""
        entries = list(self.find_all(board, minimum_weight=0, exclude_moves=exclude_moves))
        total = sum(e.weight for e in entries)
        if not entries or not total:
            raise IndexError()
        if random is None:
            import random as random_module
            random = random_module
        draw = random.randint(0, total - 1)
        for entry in entries:
            draw -= entry.weight
            if draw < 0:
                return entry
        return entries[-1]

    def close(self) -> None:
        if self.mmap is not None:
            self.mmap.close()
            self.mmap = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def open_reader(path: Union[str, bytes, os.PathLike]) -> MemoryMappedReader:
    """Opens a Polyglot book (use it as a context manager)."""
    return MemoryMappedReader(path)


__all__ = ["Entry", "MemoryMappedReader", "open_reader", "zobrist_hash"]
