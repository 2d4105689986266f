"""``BaseBoard``: pieces on squares, with python-chess's names, attributes
(``pawns`` .. ``kings``, ``occupied_co``, ``occupied``, ``promoted``: 64-bit
masks) and semantics; attacks from rookery-core (``attacks_mask`` of the
extension). ``Board`` (``_board``) adds the side to move and the history.

>>> BaseBoard().piece_at(4)
Piece.from_symbol('K')
"""

from __future__ import annotations

# typing's names for annotations only (strings here): importing typing costs
# milliseconds of every script's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Dict, Optional  # noqa: F401

from ._rookery import BoardState as _BoardState
from ._rookery import attacks_mask, between, ray
from ._squares import (
    BB_ALL, BB_EMPTY, BB_RANKS, BB_SQUARES, BISHOP, BLACK, FILE_NAMES, KING, KNIGHT, PAWN,
    PIECE_SYMBOLS, ROOK, STARTING_BOARD_FEN, WHITE, Bitboard, Color, Piece, PieceType,
    Square, SquareSet, COLORS, PIECE_TYPES, flip_vertical, msb, scan_forward, scan_reversed,
)


def _attacks(piece_type: PieceType, color: Color, square: Square, occupied: Bitboard) -> Bitboard:
    return attacks_mask(piece_type, color, square, occupied)


class BaseBoard(_BoardState):
    """Pieces on squares, without side to move or history.

    The masks are held in Rust (``rookery._rookery.BoardState``, whose
    properties are python-chess's attributes; ``occupied_co`` is a two-item
    list-like view written through to the board)."""

    def __init__(self, board_fen: Optional[str] = STARTING_BOARD_FEN) -> None:
        self.occupied_co = [BB_EMPTY, BB_EMPTY]
        if board_fen is None:
            self._clear_board()
        else:
            self._set_board_fen(board_fen)

    # --- placement -----------------------------------------------------
    def _clear_board(self) -> None:
        self.pawns = self.knights = self.bishops = self.rooks = self.queens = self.kings = BB_EMPTY
        self.promoted = BB_EMPTY
        self.occupied_co[WHITE] = self.occupied_co[BLACK] = BB_EMPTY
        self.occupied = BB_EMPTY

    def clear_board(self) -> None:
        self._clear_board()

    def reset_board(self) -> None:
        self._set_board_fen(STARTING_BOARD_FEN)

    def pieces_mask(self, piece_type: PieceType, color: Color) -> Bitboard:
        return self._mask_of(piece_type) & self.occupied_co[color]

    def _mask_of(self, piece_type: PieceType) -> Bitboard:
        return (self.pawns, self.knights, self.bishops, self.rooks, self.queens, self.kings)[piece_type - 1]

    def pieces(self, piece_type: PieceType, color: Color) -> SquareSet:
        return SquareSet(self.pieces_mask(piece_type, color))

    def piece_type_at(self, square: Square) -> Optional[PieceType]:
        mask = BB_SQUARES[square]
        if not self.occupied & mask:
            return None
        for pt, bb in enumerate((self.pawns, self.knights, self.bishops, self.rooks, self.queens), 1):
            if bb & mask:
                return pt
        return KING

    def color_at(self, square: Square) -> Optional[Color]:
        mask = BB_SQUARES[square]
        if self.occupied_co[WHITE] & mask:
            return WHITE
        if self.occupied_co[BLACK] & mask:
            return BLACK
        return None

    def piece_at(self, square: Square) -> Optional[Piece]:
        pt = self.piece_type_at(square)
        if pt is None:
            return None
        return Piece(pt, bool(self.occupied_co[WHITE] & BB_SQUARES[square]))

    def king(self, color: Color) -> Optional[Square]:
        """The square of ``color``'s king (one that is not promoted), or None."""
        mask = self.occupied_co[color] & self.kings & ~self.promoted
        return msb(mask) if mask else None

    def _remove_piece_at(self, square: Square) -> Optional[PieceType]:
        pt = self.piece_type_at(square)
        if pt is None:
            return None
        mask = ~BB_SQUARES[square]
        self._set_mask(pt, self._mask_of(pt) & mask)
        self.occupied &= mask
        self.occupied_co[WHITE] &= mask
        self.occupied_co[BLACK] &= mask
        self.promoted &= mask
        return pt

    def remove_piece_at(self, square: Square) -> Optional[Piece]:
        color = bool(self.occupied_co[WHITE] & BB_SQUARES[square])
        pt = self._remove_piece_at(square)
        return Piece(pt, color) if pt else None

    def _set_mask(self, piece_type: PieceType, mask: Bitboard) -> None:
        name = ("pawns", "knights", "bishops", "rooks", "queens", "kings")[piece_type - 1]
        setattr(self, name, mask)

    def _set_piece_at(self, square: Square, piece_type: PieceType, color: Color, promoted: bool = False) -> None:
        self._remove_piece_at(square)
        mask = BB_SQUARES[square]
        self._set_mask(piece_type, self._mask_of(piece_type) | mask)
        self.occupied ^= mask
        self.occupied_co[color] ^= mask
        if promoted:
            self.promoted ^= mask

    def set_piece_at(self, square: Square, piece: Optional[Piece], promoted: bool = False) -> None:
        if piece is None:
            self._remove_piece_at(square)
        else:
            self._set_piece_at(square, piece.piece_type, piece.color, promoted)

    def piece_map(self, *, mask: Bitboard = BB_ALL) -> Dict[Square, Piece]:
        return {sq: self.piece_at(sq) for sq in scan_reversed(self.occupied & mask)}  # type: ignore[misc]

    def set_piece_map(self, pieces: Dict[Square, Piece]) -> None:
        self._clear_board()
        for sq, piece in pieces.items():
            self._set_piece_at(sq, piece.piece_type, piece.color)

    # --- attacks -------------------------------------------------------
    def attacks_mask(self, square: Square) -> Bitboard:
        pt = self.piece_type_at(square)
        if pt is None:
            return BB_EMPTY
        return _attacks(pt, bool(self.occupied_co[WHITE] & BB_SQUARES[square]), square, self.occupied)

    def attacks(self, square: Square) -> SquareSet:
        return SquareSet(self.attacks_mask(square))

    def _attackers_mask(self, color: Color, square: Square, occupied: Bitboard) -> Bitboard:
        queens_and_rooks = self.queens | self.rooks
        queens_and_bishops = self.queens | self.bishops
        attackers = (
            (_attacks(KING, WHITE, square, 0) & self.kings)
            | (_attacks(KNIGHT, WHITE, square, 0) & self.knights)
            | (_attacks(ROOK, WHITE, square, occupied) & queens_and_rooks)
            | (_attacks(BISHOP, WHITE, square, occupied) & queens_and_bishops)
            | (_attacks(PAWN, not color, square, 0) & self.pawns)
        )
        return attackers & self.occupied_co[color]

    def attackers_mask(self, color: Color, square: Square) -> Bitboard:
        return self._attackers_mask(color, square, self.occupied)

    def is_attacked_by(self, color: Color, square: Square) -> bool:
        return bool(self.attackers_mask(color, square))

    def attackers(self, color: Color, square: Square) -> SquareSet:
        return SquareSet(self.attackers_mask(color, square))

    def pin_mask(self, color: Color, square: Square) -> Bitboard:
        king = self.king(color)
        if king is None:
            return BB_ALL
        square_mask = BB_SQUARES[square]
        for pt in (ROOK, BISHOP):
            rays = _attacks(pt, WHITE, king, 0)
            if rays & square_mask:
                snipers = rays & (self._mask_of(pt) | self.queens) & self.occupied_co[not color]
                for sniper in scan_reversed(snipers):
                    if between(sniper, king) & (self.occupied | square_mask) == square_mask:
                        return ray(king, sniper)
                break
        return BB_ALL

    def pin(self, color: Color, square: Square) -> SquareSet:
        return SquareSet(self.pin_mask(color, square))

    def is_pinned(self, color: Color, square: Square) -> bool:
        return self.pin_mask(color, square) != BB_ALL

    # --- FEN -----------------------------------------------------------
    def board_fen(self, *, promoted: Optional[bool] = False) -> str:
        cells = [""] * 64
        for color in COLORS:
            ours = self.occupied_co[color]
            for pt in PIECE_TYPES:
                symbol = PIECE_SYMBOLS[pt].upper() if color else PIECE_SYMBOLS[pt]  # type: ignore[union-attr]
                for sq in scan_forward(self._mask_of(pt) & ours):
                    cells[sq] = symbol
        if promoted:
            for sq in scan_forward(self.promoted & self.occupied):
                cells[sq] += "~"
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for cell in cells[rank * 8:rank * 8 + 8]:
                if not cell:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += cell
            if empty:
                row += str(empty)
            rows.append(row)
        return "/".join(rows)

    def _set_board_fen(self, fen: str) -> None:
        fen = fen.strip()
        if " " in fen:
            raise ValueError(f"expected position part of fen, got multiple parts: {fen!r}")
        rows = fen.split("/")
        if len(rows) != 8:
            raise ValueError(f"expected 8 rows in position part of fen: {fen!r}")
        placed = []
        for i, row in enumerate(rows):
            rank = 7 - i
            file = 0
            previous_digit = previous_piece = False
            for c in row:
                if c in "12345678":
                    if previous_digit:
                        raise ValueError(f"two subsequent digits in position part of fen: {fen!r}")
                    file += int(c)
                    previous_digit, previous_piece = True, False
                elif c == "~":
                    if not previous_piece:
                        raise ValueError(f"'~' not after piece in position part of fen: {fen!r}")
                    placed[-1] = (placed[-1][0], placed[-1][1], True)
                    previous_digit = previous_piece = False
                elif c.lower() in PIECE_SYMBOLS[1:]:
                    if file > 7:
                        raise ValueError(f"expected 8 columns per row in position part of fen: {fen!r}")
                    placed.append((rank * 8 + file, Piece.from_symbol(c), False))
                    file += 1
                    previous_digit, previous_piece = False, True
                else:
                    raise ValueError(f"invalid character in position part of fen: {fen!r}")
            if file != 8:
                raise ValueError(f"expected 8 columns per row in position part of fen: {fen!r}")
        self._clear_board()
        for sq, piece, promoted in placed:
            self._set_piece_at(sq, piece.piece_type, piece.color, promoted)

    def set_board_fen(self, fen: str) -> None:
        self._set_board_fen(fen)

    # --- Chess960 start positions ----------------------------------------
    def chess960_pos(self) -> Optional[int]:
        """The Chess960 start position number (0..959) of the placement, or
        None if it is not one."""
        if self.occupied_co[WHITE] != BB_RANKS[0] | BB_RANKS[1]:
            return None
        if self.occupied_co[BLACK] != BB_RANKS[6] | BB_RANKS[7]:
            return None
        if self.pawns != BB_RANKS[1] | BB_RANKS[6] or self.promoted:
            return None
        back = "".join(self.piece_at(sq).symbol().lower() for sq in range(8))  # type: ignore[union-attr]
        if "".join(self.piece_at(sq).symbol() for sq in range(56, 64)) != back:  # type: ignore[union-attr]
            return None
        return _chess960_numbers().get(back)

    def set_chess960_pos(self, scharnagl: int) -> None:
        back = _chess960_back_rank(scharnagl)
        self._clear_board()
        for f, letter in enumerate(back):
            self._set_piece_at(f, PIECE_SYMBOLS.index(letter), WHITE)
            self._set_piece_at(56 + f, PIECE_SYMBOLS.index(letter), BLACK)
            self._set_piece_at(8 + f, PAWN, WHITE)
            self._set_piece_at(48 + f, PAWN, BLACK)

    @classmethod
    def from_chess960_pos(cls, scharnagl: int):
        board = cls.empty()
        board.set_chess960_pos(scharnagl)
        return board

    @classmethod
    def empty(cls):
        return cls(None)

    # --- transforms ----------------------------------------------------
    def _transform_placement(self, f: Callable[[Bitboard], Bitboard]) -> None:
        for name in ("pawns", "knights", "bishops", "rooks", "queens", "kings", "promoted", "occupied"):
            setattr(self, name, f(getattr(self, name)))
        self.occupied_co = [f(self.occupied_co[0]), f(self.occupied_co[1])]

    def apply_transform(self, f: Callable[[Bitboard], Bitboard]) -> None:
        self._transform_placement(f)

    def transform(self, f: Callable[[Bitboard], Bitboard]):
        board = self.copy()
        board.apply_transform(f)
        return board

    def apply_mirror(self) -> None:
        self._transform_placement(flip_vertical)
        self.occupied_co[WHITE], self.occupied_co[BLACK] = self.occupied_co[BLACK], self.occupied_co[WHITE]

    def mirror(self):
        board = self.copy()
        board.apply_mirror()
        return board

    def copy(self):
        board = type(self).empty()
        board._copy_placement_from(self)
        return board

    def _copy_placement_from(self, other: "BaseBoard") -> None:
        self.pawns, self.knights, self.bishops = other.pawns, other.knights, other.bishops
        self.rooks, self.queens, self.kings = other.rooks, other.queens, other.kings
        self.occupied_co = list(other.occupied_co)
        self.occupied, self.promoted = other.occupied, other.promoted

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        board = self.copy()
        memo[id(self)] = board
        return board

    def __reduce__(self):
        return (_rebuild_base_board, (type(self), self._placement()), self.__dict__ or None)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, BaseBoard):
            return self._placement()[:8] == other._placement()[:8]
        return NotImplemented

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.board_fen()!r})"

    def __str__(self) -> str:
        rows = []
        for rank in range(7, -1, -1):
            row = []
            for file in range(8):
                piece = self.piece_at(rank * 8 + file)
                row.append(piece.symbol() if piece else ".")
            rows.append(" ".join(row))
        return "\n".join(rows)

    def unicode(self, *, invert_color: bool = False, borders: bool = False,
                empty_square: str = "⭘", orientation: Color = WHITE) -> str:
        out = []
        ranks = range(7, -1, -1) if orientation else range(8)
        for rank in ranks:
            if borders:
                out.append("  " + "-" * 17 + "\n" + RANK_LABELS[rank] + " ")
            cells = []
            files = range(8) if orientation else range(7, -1, -1)
            for file in files:
                piece = self.piece_at(rank * 8 + file)
                cell = piece.unicode_symbol(invert_color=invert_color) if piece else empty_square
                cells.append(("|" + cell) if borders else cell)
            line = ("".join(cells) + "|") if borders else " ".join(cells)
            out.append(line + "\n")
        if borders:
            out.append("  " + "-" * 17 + "\n")
            out.append("   " + " ".join(FILE_NAMES if orientation else reversed(FILE_NAMES)))
            return "".join(out)
        return "".join(out).rstrip("\n")


RANK_LABELS = "12345678"


def _rebuild_base_board(cls, placement: tuple) -> BaseBoard:
    """A ``BaseBoard`` (of class ``cls``) of ``_placement()``'s masks, for
    unpickling."""
    board = cls.__new__(cls)
    (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
     white, black, board.promoted) = placement
    board.occupied_co = [black, white]
    board.occupied = white | black
    return board


def _chess960_back_rank(n: int) -> str:
    """The back rank of Chess960 start position ``n`` (Scharnagl's numbering),
    as lowercase letters from the a-file."""
    if not 0 <= n < 960:
        raise ValueError(f"chess960 position index not 0 <= {n!r} <= 959")
    rank = [""] * 8
    n, b1 = divmod(n, 4)
    rank[2 * b1 + 1] = "b"
    n, b2 = divmod(n, 4)
    rank[2 * b2] = "b"
    n, q = divmod(n, 6)
    free = [i for i in range(8) if not rank[i]]
    rank[free[q]] = "q"
    knights = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)][n]
    free = [i for i in range(8) if not rank[i]]
    for k in knights:
        rank[free[k]] = "n"
    free = [i for i in range(8) if not rank[i]]
    for i, letter in zip(free, "rkr"):
        rank[i] = letter
    return "".join(rank)


_CHESS960: Dict[str, int] = {}


def _chess960_numbers() -> Dict[str, int]:
    """The number of each Chess960 back rank (made when first asked for:
    not at import)."""
    if not _CHESS960:
        _CHESS960.update((_chess960_back_rank(n), n) for n in range(960))
    return _CHESS960


__all__ = ["BaseBoard"]
