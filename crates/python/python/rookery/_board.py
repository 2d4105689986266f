"""``Board`` (a position and its history) with python-chess's names,
attributes and semantics; ``BaseBoard`` (pieces on squares) is in
``_baseboard``.

The piece placement, side to move, castling rights (a mask of the rooks that
may castle), en passant square and clocks are plain attributes, as
python-chess's, so that scripts may read and set them. The rules run in
rookery-core through the extension: legal moves, SAN, check, mate, material
and keys come from a ``rookery._rookery.Board`` built from the position (one
per position, kept until the position changes), attacks from
``rookery._rookery.attacks_mask``. Only a board rookery-core refuses (no
king, two kings, ...) gets its moves from the pseudo-legal moves here,
filtered by the attacks on the king.

>>> import rookery as chess
>>> board = chess.Board()
>>> board.push_san("e4")
Move.from_uci('e2e4')
>>> board.ep_square == chess.E3, board.fen()
(True, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1')
>>> board.legal_moves.count()
20
"""

from __future__ import annotations

import enum
import re
# typing's names for annotations only (strings here): importing typing costs
# milliseconds of every script's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple  # noqa: F401

from ._errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from ._rookery import Board as _Rules
from ._rookery import Move, between, ray
from ._baseboard import BaseBoard, _attacks
from ._squares import (
    BB_ALL, BB_EMPTY, BB_FILES, BB_RANK_1, BB_RANK_8, BB_RANKS, BB_SQUARES, BISHOP, BLACK,
    COLORS, FILE_NAMES, KING, KNIGHT, PAWN, PIECE_SYMBOLS, QUEEN, ROOK,
    SQUARE_NAMES, WHITE, Bitboard, Color, Piece, PieceType, Square,
    SquareSet, flip_vertical, lsb, msb, popcount, scan_forward, scan_reversed, square_file,
    square_rank,
)

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

BB_A1, BB_C1, BB_D1, BB_E1, BB_F1, BB_G1, BB_H1 = (BB_SQUARES[s] for s in (0, 2, 3, 4, 5, 6, 7))
BB_A8, BB_E8, BB_H8 = BB_SQUARES[56], BB_SQUARES[60], BB_SQUARES[63]
BB_BACKRANKS = BB_RANK_1 | BB_RANK_8

STATUS_VALID = 0
STATUS_NO_WHITE_KING = 1 << 0
STATUS_NO_BLACK_KING = 1 << 1
STATUS_TOO_MANY_KINGS = 1 << 2
STATUS_TOO_MANY_WHITE_PAWNS = 1 << 3
STATUS_TOO_MANY_BLACK_PAWNS = 1 << 4
STATUS_PAWNS_ON_BACKRANK = 1 << 5
STATUS_TOO_MANY_WHITE_PIECES = 1 << 6
STATUS_TOO_MANY_BLACK_PIECES = 1 << 7
STATUS_BAD_CASTLING_RIGHTS = 1 << 8
STATUS_INVALID_EP_SQUARE = 1 << 9
STATUS_OPPOSITE_CHECK = 1 << 10
STATUS_EMPTY = 1 << 11
STATUS_RACE_CHECK = 1 << 12
STATUS_RACE_OVER = 1 << 13
STATUS_RACE_MATERIAL = 1 << 14
STATUS_TOO_MANY_CHECKERS = 1 << 15
STATUS_IMPOSSIBLE_CHECK = 1 << 16

_SQUARES_SAN = re.compile(r"^([a-h][1-8])[\-x]?([a-h][1-8])(=?[nbrqNBRQ])?[\+#]?\Z")
_SAN_RE = re.compile(r"^([NBKRQ])?([a-h])?([1-8])?[\-x]?([a-h][1-8])(=?[nbrqkNBRQK])?[\+#]?\Z")


class Termination(enum.Enum):
    """Why a game ended."""
    CHECKMATE = enum.auto()
    STALEMATE = enum.auto()
    INSUFFICIENT_MATERIAL = enum.auto()
    SEVENTYFIVE_MOVES = enum.auto()
    FIVEFOLD_REPETITION = enum.auto()
    FIFTY_MOVES = enum.auto()
    THREEFOLD_REPETITION = enum.auto()
    VARIANT_WIN = enum.auto()
    VARIANT_LOSS = enum.auto()
    VARIANT_DRAW = enum.auto()


class Outcome:
    """How a game ended: the termination and the winner (None for a draw).

    python-chess's dataclass, written out (``dataclasses`` costs
    milliseconds of every script's start): the same ``__init__``,
    ``repr``, ``==`` and no hash.

    >>> Outcome(Termination.CHECKMATE, True)
    Outcome(termination=<Termination.CHECKMATE: 1>, winner=True)
    """

    __match_args__ = ("termination", "winner")
    __hash__ = None  # type: ignore[assignment]
    termination: Termination
    winner: Optional[Color]

    def __init__(self, termination: Termination, winner: Optional[Color]) -> None:
        self.termination = termination
        self.winner = winner

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(termination={self.termination!r}, winner={self.winner!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.termination, self.winner) == (other.termination, other.winner)  # type: ignore[attr-defined]

    def result(self) -> str:
        """``1-0``, ``0-1`` or ``1/2-1/2``."""
        return "1/2-1/2" if self.winner is None else ("1-0" if self.winner else "0-1")


def _restore(board: "Board", state: tuple) -> None:
    """Puts back the state ``Board._state()`` took: ``(pawns, knights,
    bishops, rooks, queens, kings, white, black, occupied, promoted, turn,
    castling_rights, ep_square, halfmove_clock, fullmove_number)``."""
    board._set_state(state)


class Board(BaseBoard):
    """A position with side to move, castling rights, en passant square,
    clocks and the moves that led to it.

    ``Board(fen)``, ``Board(None)`` (empty), ``Board(fen, chess960=True)``.
    """

    aliases = ["Standard", "Chess", "Classical", "Normal", "Illegal", "From Position"]
    uci_variant: Optional[str] = "chess"
    xboard_variant: Optional[str] = "normal"
    starting_fen = STARTING_FEN
    tbw_suffix: Optional[str] = ".rtbw"
    tbz_suffix: Optional[str] = ".rtbz"
    connected_kings = False
    one_king = True
    captures_compulsory = False

    def __init__(self, fen: Optional[str] = STARTING_FEN, *, chess960: bool = False) -> None:
        BaseBoard.__init__(self, None)
        self.chess960 = chess960
        self.ep_square: Optional[Square] = None
        self.move_stack: List[Move] = []
        self._stack: List[tuple] = []
        self._rules_cache: Tuple[Optional[tuple], Optional[_Rules]] = (None, None)
        if fen is None:
            self.clear()
        elif fen == STARTING_FEN:
            self.reset()
        else:
            self.set_fen(fen)

    # --- state ---------------------------------------------------------
    # The state is held in Rust (``rookery._rookery.BoardState``, the base
    # of ``BaseBoard``): python-chess's attributes are its properties, and
    # ``push``, ``pop``, ``clear_stack``, ``_state`` (the state as a tuple)
    # are its methods.

    def reset(self) -> None:
        if _START_STATE is None:
            self.set_fen(STARTING_FEN)
        else:
            _restore(self, _START_STATE)
            self.clear_stack()

    def reset_board(self) -> None:
        BaseBoard.reset_board(self)
        self.clear_stack()

    def clear(self) -> None:
        self.turn = WHITE
        self.castling_rights = BB_EMPTY
        self.ep_square = None
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self.clear_board()

    def clear_board(self) -> None:
        BaseBoard.clear_board(self)
        self.clear_stack()

    def root(self) -> "Board":
        if self._stack_len():
            board = type(self)(None, chess960=self.chess960)
            _restore(board, self._stack_at(0))
            return board
        return self.copy(stack=False)

    def ply(self) -> int:
        """Half-moves since the start of the game (from the fullmove number)."""
        return 2 * (self.fullmove_number - 1) + (self.turn == BLACK)

    def copy(self, *, stack=True) -> "Board":
        board = type(self)(None, chess960=self.chess960)
        board._copy_state_from(self, None if stack is True else int(stack))
        board._rules_cache = self._rules_cache
        return board

    def __reduce__(self):
        return (_rebuild_board, (type(self), self.fen(shredder=True, en_passant="fen"), self.chess960,
                                 self.promoted, [m.uci() for m in self.move_stack],
                                 self.root().fen(shredder=True, en_passant="fen") if self.move_stack else None))

    # --- the rules, from rookery-core -------------------------------------
    def _rules(self) -> Optional[_Rules]:
        """rookery-core's view of the position, or None if it refuses it."""
        key = (self._placement(), self.turn, self.castling_rights, self.ep_square, self.chess960)
        cached_key, rules = self._rules_cache
        if cached_key == key:
            return rules
        # Built in Rust from the state (the en passant square where a capture
        # there is pseudo-legal, the castling rights that can be).
        rules = self._rules_board()
        self._rules_cache = (key, rules)
        return rules

    def _standard_castling(self) -> bool:
        rights = self.clean_castling_rights()
        return not rights & ~(BB_A1 | BB_H1 | BB_A8 | BB_H8) and (
            not rights & BB_RANK_1 or self.kings & self.occupied_co[WHITE] & BB_E1) and (
            not rights & BB_RANK_8 or self.kings & self.occupied_co[BLACK] & BB_E8)

    def _to_rules_move(self, move: Move) -> Move:
        """``move`` as the rules board writes it (castling king-takes-rook on
        a Chess960 board)."""
        if not self.chess960 and not self._standard_castling():
            return self._to_chess960(move)
        if self.chess960:
            return self._to_chess960(move)
        return self._from_chess960(move)

    def _from_rules_move(self, move: Move) -> Move:
        return move if self.chess960 else self._from_chess960(move)

    # --- moves -----------------------------------------------------------
    @property
    def legal_moves(self) -> "LegalMoveGenerator":
        return LegalMoveGenerator(self)

    @property
    def pseudo_legal_moves(self) -> "PseudoLegalMoveGenerator":
        return PseudoLegalMoveGenerator(self)

    def generate_legal_moves(self, from_mask: Bitboard = BB_ALL, to_mask: Bitboard = BB_ALL) -> Iterator[Move]:
        rules = self._rules()
        if rules is not None and from_mask == BB_ALL and to_mask == BB_ALL:
            yield from rules.legal_moves_in_order(self.chess960)
            return
        if rules is not None:
            evasions = rules.is_check()
            order = self._generation_order
            for m in sorted((self._from_rules_move(m) for m in rules.legal_moves),
                            key=(lambda m: (not self.kings & BB_SQUARES[m.from_square],) + order(m))
                            if evasions else order):
                if from_mask != BB_ALL and not BB_SQUARES[m.from_square] & from_mask:
                    continue
                # Castling is selected by its rook's square, as python-chess does.
                if to_mask != BB_ALL and not BB_SQUARES[self._to_chess960(m).to_square] & to_mask:
                    continue
                yield m
            return
        for m in self.generate_pseudo_legal_moves(from_mask, to_mask):
            if self._is_safe(m):
                yield m

    def _generation_order(self, move: Move) -> tuple:
        """Where python-chess's generator yields ``move``: pieces (from the
        highest square down), castling, pawn captures, single and double
        pawn steps (by target square, highest first), en passant; queen
        promotions before rook, bishop, knight (in check, king moves come
        first: see ``generate_legal_moves``). Scripts that take the first
        move or a seeded random one then play the same games."""
        frm, to = move.from_square, move.to_square
        promotion = -(move.promotion or 0)
        if not self.pawns & BB_SQUARES[frm]:
            if self.is_castling(move):
                return (1, -self._to_chess960(move).to_square, 0, 0)
            return (0, -frm, -to, 0)
        if square_file(frm) != square_file(to):
            if not self.occupied & BB_SQUARES[to]:
                return (5, -frm, 0, 0)
            return (2, -frm, -to, promotion)
        return (3 if abs(to - frm) == 8 else 4, -to, promotion, 0)

    def _is_safe(self, move: Move) -> bool:
        """Whether ``move`` leaves the mover's king unattacked (for boards
        rookery-core refuses)."""
        board = self.copy(stack=False)
        turn = board.turn
        board.push(move)
        king = board.kings & board.occupied_co[turn]
        return not any(board.is_attacked_by(not turn, k) for k in scan_forward(king))

    def generate_legal_captures(self, from_mask: Bitboard = BB_ALL, to_mask: Bitboard = BB_ALL) -> Iterator[Move]:
        for m in self.generate_legal_moves(from_mask, to_mask):
            if self.is_capture(m):
                yield m

    def generate_legal_ep(self, from_mask: Bitboard = BB_ALL, to_mask: Bitboard = BB_ALL) -> Iterator[Move]:
        for m in self.generate_pseudo_legal_ep(from_mask, to_mask):
            if self.is_legal(m):
                yield m

    def generate_castling_moves(self, from_mask: Bitboard = BB_ALL, to_mask: Bitboard = BB_ALL) -> Iterator[Move]:
        for m in self.generate_legal_moves(from_mask & self.kings, BB_ALL):
            if self.is_castling(m):
                # Selected by the rook's square, as python-chess selects them.
                if BB_SQUARES[self._to_chess960(m).to_square] & to_mask:
                    yield m

    def generate_pseudo_legal_moves(self, from_mask: Bitboard = BB_ALL, to_mask: Bitboard = BB_ALL) -> Iterator[Move]:
        """Moves that obey how the pieces move, whether or not they leave
        the king in check (python-chess's order: pieces, castling, pawns)."""
        us = self.occupied_co[self.turn]
        them = self.occupied_co[not self.turn]
        for sq in scan_reversed(us & ~self.pawns & from_mask):
            targets = self.attacks_mask(sq) & ~us & to_mask
            for to in scan_reversed(targets):
                yield Move(sq, to)
        if from_mask & self.kings:
            yield from self._pseudo_castling(from_mask, to_mask)
        pawns = self.pawns & us & from_mask
        if not pawns:
            return
        for sq in scan_reversed(pawns):
            targets = _attacks(PAWN, self.turn, sq, 0) & them & to_mask
            for to in scan_reversed(targets):
                yield from self._pawn_moves(sq, to)
        for sq in scan_reversed(pawns):
            step = 8 if self.turn else -8
            to = sq + step
            if not 0 <= to < 64 or self.occupied & BB_SQUARES[to]:
                continue
            if BB_SQUARES[to] & to_mask:
                yield from self._pawn_moves(sq, to)
            start = BB_RANKS[1] if self.turn else BB_RANKS[6]
            to2 = to + step
            if BB_SQUARES[sq] & start and not self.occupied & BB_SQUARES[to2] and BB_SQUARES[to2] & to_mask:
                yield Move(sq, to2)
        yield from self.generate_pseudo_legal_ep(from_mask, to_mask)

    def _pawn_moves(self, frm: Square, to: Square) -> Iterator[Move]:
        if square_rank(to) in (0, 7):
            for pt in (QUEEN, ROOK, BISHOP, KNIGHT):
                yield Move(frm, to, pt)
        else:
            yield Move(frm, to)

    def _pseudo_castling(self, from_mask: Bitboard, to_mask: Bitboard) -> Iterator[Move]:
        backrank = BB_RANK_1 if self.turn else BB_RANK_8
        king = self.occupied_co[self.turn] & self.kings & ~self.promoted & backrank & from_mask
        if not king:
            return
        king_sq = msb(king)
        for rook in scan_reversed(self.clean_castling_rights() & backrank & to_mask):
            a_side = rook < king_sq
            king_to = (2 if a_side else 6) + (0 if self.turn else 56)
            rook_to = (3 if a_side else 5) + (0 if self.turn else 56)
            path = (between(king_sq, king_to) | BB_SQUARES[king_to] | between(rook, rook_to)
                    | BB_SQUARES[rook_to]) & ~(BB_SQUARES[king_sq] | BB_SQUARES[rook])
            if path & self.occupied or between(king_sq, rook) & self.occupied:
                continue
            yield self._from_chess960(Move(king_sq, rook))

    def _pseudo_ep(self) -> bool:
        return any(True for _ in self.generate_pseudo_legal_ep())

    def generate_pseudo_legal_ep(self, from_mask: Bitboard = BB_ALL, to_mask: Bitboard = BB_ALL) -> Iterator[Move]:
        ep = self.ep_square
        if ep is None or not BB_SQUARES[ep] & to_mask or BB_SQUARES[ep] & self.occupied:
            return
        if square_rank(ep) != (5 if self.turn else 2):
            return
        behind = ep - 8 if self.turn else ep + 8
        if not self.pawns & self.occupied_co[not self.turn] & BB_SQUARES[behind]:
            return
        capturers = self.pawns & self.occupied_co[self.turn] & from_mask & _attacks(PAWN, not self.turn, ep, 0)
        for sq in scan_reversed(capturers):
            yield Move(sq, ep)

    def generate_pseudo_legal_captures(self, from_mask: Bitboard = BB_ALL, to_mask: Bitboard = BB_ALL) -> Iterator[Move]:
        for m in self.generate_pseudo_legal_moves(from_mask, to_mask):
            if self.is_capture(m):
                yield m

    def has_pseudo_legal_en_passant(self) -> bool:
        return self._pseudo_ep()

    def has_legal_en_passant(self) -> bool:
        return any(True for _ in self.generate_legal_ep())

    def is_pseudo_legal(self, move: Move) -> bool:
        if not move or move.drop:
            return False
        piece = self.piece_type_at(move.from_square)
        if piece is None or not self.occupied_co[self.turn] & BB_SQUARES[move.from_square]:
            return False
        if move.promotion and (piece != PAWN or square_rank(move.to_square) not in (0, 7)):
            return False
        return move in list(self.generate_pseudo_legal_moves(BB_SQUARES[move.from_square]))

    def is_legal(self, move: Move) -> bool:
        move = _as_move(move)
        if not move or move.drop:
            return False
        rules = self._rules()
        if rules is not None:
            return rules.is_legal(self._to_rules_move(move))
        return self.is_pseudo_legal(move) and self._is_safe(move)

    def find_move(self, from_square: Square, to_square: Square, promotion: Optional[PieceType] = None) -> Move:
        """The legal move from ``from_square`` to ``to_square`` (a pawn
        reaching the last rank becomes a queen unless ``promotion`` says);
        IllegalMoveError if there is none."""
        if promotion is None and self.pawns & BB_SQUARES[from_square] and square_rank(to_square) in (0, 7):
            promotion = QUEEN
        move = self._from_chess960(Move(from_square, to_square, promotion))
        if not self.is_legal(move):
            raise IllegalMoveError(f"no matching legal move for {move.uci()} "
                                   f"({SQUARE_NAMES[from_square]} -> {SQUARE_NAMES[to_square]}) in {self.fen()}")
        return move

    # --- castling notation -------------------------------------------------
    def _to_chess960(self, move: Move) -> Move:
        """A standard castling move (``e1g1``) as king-takes-rook (``e1h1``)."""
        if move.from_square in (4, 60) and self.kings & BB_SQUARES[move.from_square] and not self.promoted & BB_SQUARES[move.from_square]:
            rank = move.from_square - 4
            if move.to_square == rank + 6 and self.rooks & self.occupied_co[self.turn] & BB_SQUARES[rank + 7]:
                if not self.rooks & self.occupied_co[self.turn] & BB_SQUARES[rank + 6]:
                    return Move(move.from_square, rank + 7)
            if move.to_square == rank + 2 and self.rooks & self.occupied_co[self.turn] & BB_SQUARES[rank]:
                if not self.rooks & self.occupied_co[self.turn] & BB_SQUARES[rank + 2]:
                    return Move(move.from_square, rank)
        return move

    def _from_chess960(self, move: Move) -> Move:
        """King-takes-rook castling (``e1h1``) as written on a standard board."""
        if not self.chess960 and not move.promotion and not move.drop:
            if move.from_square == 4 and self.kings & BB_E1:
                if move.to_square == 7 and self.rooks & BB_H1:
                    return Move(4, 6)
                if move.to_square == 0 and self.rooks & BB_A1:
                    return Move(4, 2)
            elif move.from_square == 60 and self.kings & BB_E8:
                if move.to_square == 63 and self.rooks & BB_H8:
                    return Move(60, 62)
                if move.to_square == 56 and self.rooks & BB_A8:
                    return Move(60, 58)
        return move

    def is_castling(self, move: Move) -> bool:
        if not self.kings & BB_SQUARES[move.from_square]:
            return False
        diff = square_file(move.from_square) - square_file(move.to_square)
        return abs(diff) > 1 or bool(self.rooks & self.occupied_co[self.turn] & BB_SQUARES[move.to_square])

    def is_kingside_castling(self, move: Move) -> bool:
        return self.is_castling(move) and square_file(move.to_square) > square_file(move.from_square)

    def is_queenside_castling(self, move: Move) -> bool:
        return self.is_castling(move) and square_file(move.to_square) < square_file(move.from_square)

    # --- making moves ------------------------------------------------------
    def _push_python(self, move: Move) -> None:
        """``push`` in Python, python-chess's semantics written again: the
        reference the tests hold the Rust ``push`` to."""
        move = self._to_chess960(_as_move(move))
        self._stack_append(self._state())
        self.castling_rights = self.clean_castling_rights()  # as python-chess, after saving the state
        self.move_stack.append(self._from_chess960(move))
        ep_square = self.ep_square
        self.ep_square = None
        self.halfmove_clock += 1
        if self.turn == BLACK:
            self.fullmove_number += 1
        if not move:
            self.turn = not self.turn
            return
        if move.drop:
            self._set_piece_at(move.to_square, move.drop, self.turn)
            self.turn = not self.turn
            return
        if self.is_zeroing(move):
            self.halfmove_clock = 0
        from_bb, to_bb = BB_SQUARES[move.from_square], BB_SQUARES[move.to_square]
        promoted = bool(self.promoted & from_bb)
        piece_type = self._remove_piece_at(move.from_square)
        if piece_type is None:
            self.turn = not self.turn
            return
        backrank = BB_RANK_1 if self.turn else BB_RANK_8
        self.castling_rights &= ~to_bb & ~from_bb
        capture_square = move.to_square
        captured = self.piece_type_at(move.to_square)
        if piece_type == KING and not promoted:
            self.castling_rights &= ~backrank
        elif captured == KING and not self.promoted & to_bb:
            # A king taken (pushes are not checked): its side's rights go.
            if self.turn == WHITE and square_rank(move.to_square) == 7:
                self.castling_rights &= ~BB_RANK_8
            elif self.turn == BLACK and square_rank(move.to_square) == 0:
                self.castling_rights &= ~BB_RANK_1
        if piece_type == PAWN:
            diff = move.to_square - move.from_square
            if (diff == 16 and square_rank(move.from_square) == 1) or (
                    diff == -16 and square_rank(move.from_square) == 6):
                self.ep_square = move.from_square + diff // 2
            elif move.to_square == ep_square and abs(diff) in (7, 9) and not captured:
                capture_square = ep_square - 8 if self.turn else ep_square + 8
                self._remove_piece_at(capture_square)
        if move.promotion:
            promoted = True
            piece_type = move.promotion
        castling = piece_type == KING and self.occupied_co[self.turn] & to_bb
        if castling:
            a_side = square_file(move.to_square) < square_file(move.from_square)
            self._remove_piece_at(move.to_square)
            rank = 0 if self.turn else 56
            self._set_piece_at(rank + (2 if a_side else 6), KING, self.turn)
            self._set_piece_at(rank + (3 if a_side else 5), ROOK, self.turn)
        else:
            self._set_piece_at(move.to_square, piece_type, self.turn, promoted)
        self.turn = not self.turn

    def peek(self) -> Move:
        return self.move_stack[-1]

    def push_uci(self, uci: str) -> Move:
        move = self.parse_uci(uci)
        self.push(move)
        return move

    def parse_uci(self, uci: str) -> Move:
        """The legal move UCI text names (castling as the board writes it or
        king-takes-rook); InvalidMoveError or IllegalMoveError otherwise."""
        move = Move.from_uci(uci)
        if not move:
            return move
        move = self._to_chess960(move)
        move = self._from_chess960(move)
        if not self.is_legal(move):
            raise IllegalMoveError(f"illegal uci: {uci!r} in {self.fen()}")
        return move

    def push_san(self, san: str) -> Move:
        move = self.parse_san(san)
        self.push(move)
        return move

    def parse_san(self, san: str) -> Move:
        """The legal move a SAN names: InvalidMoveError for text that is not
        SAN, IllegalMoveError when no legal move matches, AmbiguousMoveError
        when more than one does."""
        if not isinstance(san, str) or not san or san != san.strip() or "\n" in san:
            raise InvalidMoveError(f"invalid san: {san!r}")
        if san in ("--", "Z0", "0000", "@@@@"):
            return Move.null()
        squares = _SQUARES_SAN.match(san)
        if squares:
            # Both squares given and no piece letter: any piece, as
            # python-chess reads it (UCI-like movetext, e1g1 castling).
            promotion = PIECE_SYMBOLS.index(squares.group(3)[-1].lower()) if squares.group(3) else None
            move = self.find_move(SQUARE_NAMES.index(squares.group(1)), SQUARE_NAMES.index(squares.group(2)),
                                  promotion)
            if move.promotion != promotion:
                raise IllegalMoveError(f"illegal san: {san!r} in {self.fen()}")
            return move
        rules = self._rules()
        if rules is None:
            return self._parse_san_fallback(san)
        try:
            move = rules.parse_san(san)
        except (IllegalMoveError, AmbiguousMoveError):
            raise
        except ValueError as err:
            raise InvalidMoveError(f"invalid san: {san!r}") from err
        return self._from_rules_move(move)

    def _parse_san_fallback(self, san: str) -> Move:
        if san.rstrip("+#") in ("O-O", "O-O-O", "0-0", "0-0-0"):
            long = san.rstrip("+#") in ("O-O-O", "0-0-0")
            for m in self.generate_castling_moves():
                if self.is_queenside_castling(m) == long:
                    return m
            raise IllegalMoveError(f"illegal san: {san!r} in {self.fen()}")
        match = _SAN_RE.match(san)
        if not match:
            raise InvalidMoveError(f"invalid san: {san!r}")
        to = SQUARE_NAMES.index(match.group(4))
        pt = PIECE_SYMBOLS.index(match.group(1).lower()) if match.group(1) else PAWN
        promotion = PIECE_SYMBOLS.index(match.group(5)[-1].lower()) if match.group(5) else None
        found = [m for m in self.generate_legal_moves(self.pieces_mask(pt, self.turn), BB_SQUARES[to])
                 if m.promotion == promotion
                 and (not match.group(2) or FILE_NAMES[square_file(m.from_square)] == match.group(2))
                 and (not match.group(3) or str(square_rank(m.from_square) + 1) == match.group(3))]
        if not found:
            raise IllegalMoveError(f"illegal san: {san!r} in {self.fen()}")
        if len(found) > 1:
            raise AmbiguousMoveError(f"ambiguous san: {san!r} in {self.fen()}")
        return found[0]

    def parse_xboard(self, xboard: str) -> Move:
        if xboard == "@@@@":
            return Move.null()
        if xboard in ("O-O", "O-O-O") or "@" in xboard:
            return self.parse_san(xboard)
        try:
            return self.parse_uci(xboard)
        except ValueError:
            return self.parse_san(xboard)

    def push_xboard(self, xboard: str) -> Move:
        move = self.parse_xboard(xboard)
        self.push(move)
        return move

    def xboard(self, move: Move, chess960: Optional[bool] = None) -> str:
        if not move:
            return "@@@@"
        if chess960 or (chess960 is None and self.chess960):
            if self.is_castling(move):
                return "O-O" if self.is_kingside_castling(move) else "O-O-O"
        return self._from_chess960(move).uci()

    def uci(self, move: Move, *, chess960: Optional[bool] = None) -> str:
        if chess960 is None:
            chess960 = self.chess960
        move = self._to_chess960(_as_move(move))
        return (move if chess960 else self._from_chess960(move)).uci()

    # --- notation ----------------------------------------------------------
    def san(self, move: Move) -> str:
        """``move`` in SAN with ``+`` or ``#``; ``--`` for the null move."""
        return self._algebraic(move)

    def lan(self, move: Move) -> str:
        """``move`` in long algebraic notation (``Ng1-f3``, ``e4xd5``)."""
        return self._algebraic(move, long=True)

    def san_and_push(self, move: Move) -> str:
        san = self.san(move)
        self.push(move)
        return san

    def _algebraic(self, move: Move, *, long: bool = False) -> str:
        move = _as_move(move)
        if not move:
            return "--"
        if move.drop:
            san = PIECE_SYMBOLS[move.drop].upper().replace("P", "") + "@" + SQUARE_NAMES[move.to_square]
            return san + self._check_suffix(move)
        rules = self._rules()
        if rules is None:
            raise IllegalMoveError(f"{move.uci()} in a position rookery does not play: {self.fen()}")
        try:
            san = rules.san(self._to_rules_move(move))
        except ValueError as err:
            raise IllegalMoveError(f"illegal move {move.uci()} in {self.fen()}") from err
        if not long or san.startswith("O-O"):
            return san
        suffix = san[-1] if san[-1] in "+#" else ""
        pt = self.piece_type_at(move.from_square)
        letter = "" if pt == PAWN else PIECE_SYMBOLS[pt].upper()  # type: ignore[index]
        out = letter + SQUARE_NAMES[move.from_square] + ("x" if self.is_capture(move) else "-")
        out += SQUARE_NAMES[move.to_square]
        if move.promotion:
            out += "=" + PIECE_SYMBOLS[move.promotion].upper()
        return out + suffix

    def _check_suffix(self, move: Move) -> str:
        board = self.copy(stack=False)
        board.push(move)
        if board.is_checkmate():
            return "#"
        return "+" if board.is_check() else ""

    def variation_san(self, variation: Iterable[Move]) -> str:
        """The moves in SAN with move numbers (``1. e4 e5 2. Nf3``);
        IllegalMoveError at the first move that is not legal."""
        board = self.copy(stack=False)
        out = []
        for move in variation:
            if not board.is_legal(move) and move:
                raise IllegalMoveError(f"illegal move {move} in position {board.fen()}")
            if board.turn == WHITE:
                out.append(f"{board.fullmove_number}. {board.san(move)}")
            elif not out:
                out.append(f"{board.fullmove_number}...{board.san(move)}")
            else:
                out.append(board.san(move))
            board.push(move)
        return " ".join(out)

    # --- move properties ---------------------------------------------------
    def is_en_passant(self, move: Move) -> bool:
        return (self.ep_square == move.to_square and bool(self.pawns & BB_SQUARES[move.from_square])
                and abs(move.to_square - move.from_square) in (7, 9)
                and not self.occupied & BB_SQUARES[move.to_square])

    def is_capture(self, move: Move) -> bool:
        touched = BB_SQUARES[move.to_square]
        return bool(touched & self.occupied_co[not self.turn]) or self.is_en_passant(move)

    def is_zeroing(self, move: Move) -> bool:
        touched = BB_SQUARES[move.from_square] ^ BB_SQUARES[move.to_square]
        return bool(touched & self.pawns or touched & self.occupied_co[not self.turn] or move.drop == PAWN)

    def is_irreversible(self, move: Move) -> bool:
        """Zeroing moves, moves that lose castling rights and moves that
        give up a legal en passant capture."""
        if not move:
            return False
        if self.is_zeroing(move):
            return True
        cr = self.clean_castling_rights()
        touched = BB_SQUARES[move.from_square] | BB_SQUARES[move.to_square]
        if cr & touched:
            return True
        if self.kings & BB_SQUARES[move.from_square] and cr & (BB_RANK_1 if self.turn else BB_RANK_8):
            return True
        return self.has_legal_en_passant()

    def gives_check(self, move: Move) -> bool:
        rules = self._rules()
        if rules is not None:
            try:
                return rules.gives_check(self._to_rules_move(move))
            except ValueError:
                pass
        board = self.copy(stack=False)
        board.push(move)
        return board.is_check()

    def is_into_check(self, move: Move) -> bool:
        return not self._is_safe(move)

    # --- check, mate and draws -------------------------------------------
    def checkers_mask(self) -> Bitboard:
        king = self.king(self.turn)
        return BB_EMPTY if king is None else self.attackers_mask(not self.turn, king)

    def checkers(self) -> SquareSet:
        return SquareSet(self.checkers_mask())

    def is_check(self) -> bool:
        return bool(self.checkers_mask())

    def _has_legal_move(self) -> bool:
        rules = self._rules()
        if rules is not None:
            return bool(rules.legal_moves)
        return any(True for _ in self.generate_legal_moves())

    def is_checkmate(self) -> bool:
        return self.is_check() and not self._has_legal_move()

    def is_stalemate(self) -> bool:
        return not self.is_check() and not self._has_legal_move()

    def is_insufficient_material(self) -> bool:
        return all(self.has_insufficient_material(c) for c in COLORS)

    def has_insufficient_material(self, color: Color) -> bool:
        rules = self._rules()
        if rules is not None:
            return rules.has_insufficient_material(color)
        ours = self.occupied_co[color]
        return not ours & (self.pawns | self.rooks | self.queens) and popcount(ours & (self.knights | self.bishops)) <= 1 and not (ours & self.knights and self.occupied_co[not color] & ~self.kings)

    def is_seventyfive_moves(self) -> bool:
        return self.halfmove_clock >= 150 and self._has_legal_move()

    def is_fifty_moves(self) -> bool:
        return self.halfmove_clock >= 100 and self._has_legal_move()

    def can_claim_fifty_moves(self) -> bool:
        if self.is_fifty_moves():
            return True
        if self.halfmove_clock >= 99:
            for move in self.generate_legal_moves():
                if not self.is_zeroing(move):
                    self.push(move)
                    try:
                        if self.is_fifty_moves():
                            return True
                    finally:
                        self.pop()
        return False

    def _transposition_key(self) -> tuple:
        return (self.pawns, self.knights, self.bishops, self.rooks, self.queens, self.kings,
                self.occupied_co[WHITE], self.occupied_co[BLACK], self.turn, self.clean_castling_rights(),
                self.ep_square if self.has_legal_en_passant() else None)

    def _history_keys(self) -> List[tuple]:
        """Keys of the positions back to the last irreversible move, the
        current one first (the board is put back as it was)."""
        current = self._state()
        keys = [self._transposition_key()]
        try:
            for i in range(self._stack_len() - 1, -1, -1):
                move = self.move_stack[i]
                _restore(self, self._stack_at(i))
                if self.is_irreversible(move):
                    break
                keys.append(self._transposition_key())
        finally:
            _restore(self, current)
        return keys

    def _repetition(self, claim: bool) -> Optional[Tuple[int, bool]]:
        """How many times the position stands in its history back to the
        last irreversible move, and (with ``claim``) whether a threefold
        repetition can be claimed, counted in Rust; None where rookery-core
        refuses a position on the way (``_history_keys`` counts then)."""
        try:
            return self._repetition_counts(claim)
        except (OverflowError, TypeError, IndexError):
            return None

    def is_repetition(self, count: int = 3) -> bool:
        counted = self._repetition(False)
        if counted is not None:
            return counted[0] >= count
        keys = self._history_keys()
        return keys.count(keys[0]) >= count

    def is_fivefold_repetition(self) -> bool:
        return self.is_repetition(5)

    def can_claim_threefold_repetition(self) -> bool:
        counted = self._repetition(True)
        if counted is not None:
            return counted[1]
        keys = self._history_keys()
        if keys.count(keys[0]) >= 3:
            return True
        counts: Dict[tuple, int] = {}
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
        for move in self.generate_legal_moves():
            if self.is_irreversible(move):
                continue
            self.push(move)
            try:
                if counts.get(self._transposition_key(), 0) >= 2:
                    return True
            finally:
                self.pop()
        return False

    def can_claim_draw(self) -> bool:
        return self.can_claim_fifty_moves() or self.can_claim_threefold_repetition()

    def is_variant_end(self) -> bool:
        return False

    def is_variant_win(self) -> bool:
        return False

    def is_variant_loss(self) -> bool:
        return False

    def is_variant_draw(self) -> bool:
        return False

    def outcome(self, *, claim_draw: bool = False) -> Optional[Outcome]:
        if self.is_checkmate():
            return Outcome(Termination.CHECKMATE, not self.turn)
        if self.is_insufficient_material():
            return Outcome(Termination.INSUFFICIENT_MATERIAL, None)
        if not self._has_legal_move():
            return Outcome(Termination.STALEMATE, None)
        if self.is_seventyfive_moves():
            return Outcome(Termination.SEVENTYFIVE_MOVES, None)
        if self.is_fivefold_repetition():
            return Outcome(Termination.FIVEFOLD_REPETITION, None)
        if claim_draw:
            if self.can_claim_fifty_moves():
                return Outcome(Termination.FIFTY_MOVES, None)
            if self.can_claim_threefold_repetition():
                return Outcome(Termination.THREEFOLD_REPETITION, None)
        return None

    def is_game_over(self, *, claim_draw: bool = False) -> bool:
        return self.outcome(claim_draw=claim_draw) is not None

    def result(self, *, claim_draw: bool = False) -> str:
        outcome = self.outcome(claim_draw=claim_draw)
        return outcome.result() if outcome else "*"

    # --- validity ---------------------------------------------------------
    def status(self) -> int:
        """The STATUS_* flags of what makes the position impossible
        (STATUS_VALID = 0 if nothing does)."""
        errors = STATUS_VALID
        if not self.occupied:
            errors |= STATUS_EMPTY
        if not self.occupied_co[WHITE] & self.kings:
            errors |= STATUS_NO_WHITE_KING
        if not self.occupied_co[BLACK] & self.kings:
            errors |= STATUS_NO_BLACK_KING
        if popcount(self.occupied & self.kings) > 2:
            errors |= STATUS_TOO_MANY_KINGS
        if popcount(self.occupied_co[WHITE]) > 16:
            errors |= STATUS_TOO_MANY_WHITE_PIECES
        if popcount(self.occupied_co[BLACK]) > 16:
            errors |= STATUS_TOO_MANY_BLACK_PIECES
        if popcount(self.occupied_co[WHITE] & self.pawns) > 8:
            errors |= STATUS_TOO_MANY_WHITE_PAWNS
        if popcount(self.occupied_co[BLACK] & self.pawns) > 8:
            errors |= STATUS_TOO_MANY_BLACK_PAWNS
        if self.pawns & BB_BACKRANKS:
            errors |= STATUS_PAWNS_ON_BACKRANK
        if self.castling_rights != self.clean_castling_rights():
            errors |= STATUS_BAD_CASTLING_RIGHTS
        valid_ep = self._valid_ep_square()
        if self.ep_square != valid_ep:
            errors |= STATUS_INVALID_EP_SQUARE
        them = self.king(not self.turn)
        if them is not None and self.attackers_mask(self.turn, them):
            errors |= STATUS_OPPOSITE_CHECK
        checkers = self.checkers_mask()
        our_king = self.king(self.turn)
        if popcount(checkers) > 2:
            errors |= STATUS_TOO_MANY_CHECKERS | STATUS_IMPOSSIBLE_CHECK
        elif checkers and our_king is not None:
            if valid_ep is not None:
                pushed_to = valid_ep ^ 8
                pushed_from = valid_ep ^ 24
                occupied_before = (self.occupied & ~BB_SQUARES[pushed_to]) | BB_SQUARES[pushed_from]
                if popcount(checkers) > 1 or (
                        msb(checkers) != pushed_to
                        and self._attacked_for_king(our_king, occupied_before)):
                    errors |= STATUS_IMPOSSIBLE_CHECK
            elif popcount(checkers) == 2:
                a, b = lsb(checkers), msb(checkers)
                if ray(a, b) & BB_SQUARES[our_king] and not between(a, b) & BB_SQUARES[our_king] or (
                        ray(a, our_king) and ray(a, our_king) == ray(b, our_king)):
                    errors |= STATUS_IMPOSSIBLE_CHECK
        return errors

    def _attacked_for_king(self, king: Square, occupied: Bitboard) -> bool:
        return bool(self._attackers_mask(not self.turn, king, occupied) & occupied)

    def _valid_ep_square(self) -> Optional[Square]:
        ep = self.ep_square
        if ep is None:
            return None
        rank, pawn_rank, start = (5, 4, 6) if self.turn else (2, 3, 1)
        if square_rank(ep) != rank:
            return None
        pushed = ep - 8 if self.turn else ep + 8
        if not self.pawns & self.occupied_co[not self.turn] & BB_SQUARES[pushed]:
            return None
        if self.occupied & BB_SQUARES[ep]:
            return None
        origin = ep + 8 if self.turn else ep - 8
        if self.occupied & BB_SQUARES[origin]:
            return None
        return ep

    def is_valid(self) -> bool:
        return self.status() == STATUS_VALID

    # --- castling rights ----------------------------------------------------
    # clean_castling_rights: in Rust (BoardState, push's own).

    def has_castling_rights(self, color: Color) -> bool:
        return bool(self.clean_castling_rights() & (BB_RANK_1 if color else BB_RANK_8))

    def _side_rights(self, color: Color, kingside: bool) -> bool:
        backrank = BB_RANK_1 if color else BB_RANK_8
        king = self.occupied_co[color] & self.kings & backrank & ~self.promoted
        if not king:
            return False
        k = msb(king)
        rights = self.clean_castling_rights() & backrank
        side = rights & ~((1 << (k + 1)) - 1) if kingside else rights & ((1 << k) - 1)
        return bool(side)

    def has_kingside_castling_rights(self, color: Color) -> bool:
        return self._side_rights(color, True)

    def has_queenside_castling_rights(self, color: Color) -> bool:
        return self._side_rights(color, False)

    def has_chess960_castling_rights(self) -> bool:
        chess960, self.chess960 = self.chess960, True
        try:
            rights = self.clean_castling_rights()
        finally:
            self.chess960 = chess960
        return bool(rights & ~(BB_A1 | BB_H1 | BB_A8 | BB_H8)) or bool(
            rights & BB_RANK_1 and not self.kings & self.occupied_co[WHITE] & BB_E1) or bool(
            rights & BB_RANK_8 and not self.kings & self.occupied_co[BLACK] & BB_E8)

    def _castling_fen(self, *, shredder: bool = False) -> str:
        out = []
        for color in COLORS:
            backrank = BB_RANK_1 if color else BB_RANK_8
            rooks = self.clean_castling_rights() & backrank
            king = self.king(color)
            for rook in scan_reversed(rooks):
                f = square_file(rook)
                letter = FILE_NAMES[f]
                if not shredder and king is not None:
                    same_side = self.rooks & self.occupied_co[color] & backrank
                    if rook > king and not same_side & ~((1 << (rook + 1)) - 1):
                        letter = "k"
                    elif rook < king and not same_side & ((1 << rook) - 1):
                        letter = "q"
                out.append(letter.upper() if color else letter)
        return "".join(out) or "-"

    def castling_shredder_fen(self) -> str:
        return self._castling_fen(shredder=True)

    def castling_xfen(self) -> str:
        return self._castling_fen()

    def set_castling_fen(self, castling_fen: str) -> None:
        if not castling_fen or castling_fen == "-":
            self.castling_rights = BB_EMPTY
            return
        if not re.fullmatch(r"[KQABCDEFGHkqabcdefgh]+", castling_fen):
            raise ValueError(f"invalid castling fen: {castling_fen!r}")
        rights = BB_EMPTY
        for flag in castling_fen:
            color = flag.isupper()
            f = flag.lower()
            backrank = BB_RANK_1 if color else BB_RANK_8
            rooks = self.occupied_co[color] & self.rooks & backrank
            king = self.king(color)
            if f == "q":
                if king is not None and lsb(rooks) < king and rooks:
                    rights |= rooks & -rooks
                else:
                    rights |= BB_FILES[0] & backrank
            elif f == "k":
                if king is not None and rooks and msb(rooks) > king:
                    rights |= BB_SQUARES[msb(rooks)]
                else:
                    rights |= BB_FILES[7] & backrank
            else:
                rights |= BB_FILES[FILE_NAMES.index(f)] & backrank
        self.castling_rights = rights
        self._clear_after_setup()

    # --- FEN and EPD ------------------------------------------------------
    def fen(self, *, shredder: bool = False, en_passant: str = "legal", promoted: Optional[bool] = None) -> str:
        return " ".join([self.epd(shredder=shredder, en_passant=en_passant, promoted=promoted),
                         str(self.halfmove_clock), str(self.fullmove_number)])

    def shredder_fen(self, *, en_passant: str = "legal", promoted: Optional[bool] = None) -> str:
        return self.fen(shredder=True, en_passant=en_passant, promoted=promoted)

    def _ep_field(self, en_passant: str) -> str:
        if self.ep_square is None:
            return "-"
        if en_passant == "fen":
            return SQUARE_NAMES[self.ep_square]
        if en_passant == "xfen":
            return SQUARE_NAMES[self.ep_square] if self.has_pseudo_legal_en_passant() else "-"
        return SQUARE_NAMES[self.ep_square] if self.has_legal_en_passant() else "-"

    def set_fen(self, fen: str) -> None:
        """Sets the position from FEN (the fields after the placement may be
        left out); ValueError for text that is not FEN."""
        parts = fen.split()
        if not parts:
            raise ValueError("empty fen")
        board_part = parts.pop(0)
        turn_part = parts.pop(0) if parts else "w"
        if turn_part not in ("w", "b"):
            raise ValueError(f"expected 'w' or 'b' for turn part of fen: {fen!r}")
        castling_part = parts.pop(0) if parts else "-"
        if not re.fullmatch(r"-|[KQABCDEFGHkqabcdefgh]+", castling_part):
            raise ValueError(f"invalid castling part in fen: {fen!r}")
        ep_part = parts.pop(0) if parts else "-"
        ep_square = None
        if ep_part != "-":
            if ep_part not in SQUARE_NAMES:
                raise ValueError(f"invalid en passant part in fen: {fen!r}")
            ep_square = SQUARE_NAMES.index(ep_part)
        try:
            halfmove = int(parts.pop(0)) if parts else 0
            fullmove = int(parts.pop(0)) if parts else 1
        except ValueError as err:
            raise ValueError(f"invalid clock in fen: {fen!r}") from err
        if halfmove < 0 or fullmove < 0:
            raise ValueError(f"negative clock in fen: {fen!r}")
        if parts:
            raise ValueError(f"fen string has more parts than expected: {fen!r}")
        self._set_board_fen(board_part)
        self.turn = turn_part == "w"
        self.set_castling_fen(castling_part)
        self.ep_square = ep_square
        self.halfmove_clock = halfmove
        self.fullmove_number = max(1, fullmove)
        self.clear_stack()

    def _clear_after_setup(self) -> None:
        self.clear_stack()

    def set_board_fen(self, fen: str) -> None:
        self._set_board_fen(fen)
        self.clear_stack()

    def set_piece_map(self, pieces: Dict[Square, Piece]) -> None:
        BaseBoard.set_piece_map(self, pieces)
        self.clear_stack()

    def set_chess960_pos(self, scharnagl: int) -> None:
        BaseBoard.set_chess960_pos(self, scharnagl)
        self.chess960 = True
        self.turn = WHITE
        self.castling_rights = self.rooks
        self.ep_square = None
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self.clear_stack()

    def chess960_pos(self, *, ignore_turn: bool = False, ignore_castling: bool = False,
                     ignore_counters: bool = True) -> Optional[int]:
        if self.ep_square is not None:
            return None
        if not ignore_turn and self.turn != WHITE:
            return None
        if not ignore_castling and self.clean_castling_rights() != self.rooks:
            return None
        if not ignore_counters and (self.fullmove_number != 1 or self.halfmove_clock != 0):
            return None
        return BaseBoard.chess960_pos(self)

    @classmethod
    def from_chess960_pos(cls, scharnagl: int) -> "Board":
        board = cls.empty(chess960=True)
        board.set_chess960_pos(scharnagl)
        return board

    @classmethod
    def empty(cls, *, chess960: bool = False) -> "Board":
        return cls(None, chess960=chess960)

    def epd(self, *, shredder: bool = False, en_passant: str = "legal", promoted: Optional[bool] = None,
            **operations) -> str:
        """The position's four EPD fields, then ``operations`` (a ``Move`` or
        a list of them is written in SAN, a variation for ``pv``)."""
        fields = [self.board_fen(promoted=promoted), "w" if self.turn else "b",
                  self._castling_fen(shredder=shredder), self._ep_field(en_passant)]
        epd = " ".join(fields)
        if operations:
            epd += " " + self._epd_operations(operations)
        return epd

    def _epd_operations(self, operations: Dict[str, object]) -> str:
        out = []
        for opcode, operand in operations.items():
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", opcode) or len(opcode) > 255:
                raise ValueError(f"invalid opcode: {opcode!r}")
            if operand is None:
                out.append(f"{opcode};")
            elif isinstance(operand, Move):
                out.append(f"{opcode} {self.san(operand)};")
            elif isinstance(operand, bool):
                raise ValueError(f"invalid operand for {opcode}: {operand!r}")
            elif isinstance(operand, int):
                out.append(f"{opcode} {operand};")
            elif isinstance(operand, float):
                if operand != operand or operand in (float("inf"), float("-inf")):
                    raise ValueError(f"expected finite float for {opcode}, got {operand!r}")
                out.append(f"{opcode} {operand};")
            elif isinstance(operand, str):
                text = operand.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "\\r").replace("\n", "\\n")
                out.append(f'{opcode} "{text}";')
            elif opcode == "pv":
                out.append(f"{opcode} {self._san_line(list(operand))};")  # type: ignore[arg-type]
            else:
                sans = sorted(self.san(m) for m in operand)  # type: ignore[union-attr]
                out.append(f"{opcode} {' '.join(sans)};")
        return " ".join(out)

    def _san_line(self, moves: List[Move]) -> str:
        board = self.copy(stack=False)
        out = []
        for m in moves:
            out.append(board.san(m))
            board.push(m)
        return " ".join(out)

    def set_epd(self, epd: str) -> Dict[str, object]:
        """Sets the position from EPD and returns its operations (moves as
        ``Move``, ``pv`` as a list, numbers as int or float, text as str)."""
        parts = epd.strip().rstrip(";").split(None, 4)
        if len(parts) < 4:
            raise ValueError(f"epd should have at least 4 parts: {epd!r}")
        ops_text = parts[4] if len(parts) > 4 else ""
        # A stray dash (a fifth position field some suites write) is no opcode.
        ops_text = re.sub(r"^(?:-\s+)+", "", ops_text)
        operations = _parse_epd_operations(ops_text, self._epd_position_board(parts[:4]))
        halfmove = operations.get("hmvc", 0)
        fullmove = operations.get("fmvn", 1)
        self.set_fen(" ".join(parts[:4]) + f" {int(halfmove) if isinstance(halfmove, (int, float)) else 0}"
                     f" {int(fullmove) if isinstance(fullmove, (int, float)) else 1}")
        return operations

    def _epd_position_board(self, fields: List[str]) -> "Board":
        board = type(self)(None, chess960=self.chess960)
        board.set_fen(" ".join(fields))
        return board

    @classmethod
    def from_epd(cls, epd: str, *, chess960: bool = False) -> Tuple["Board", Dict[str, object]]:
        board = cls.empty(chess960=chess960)
        return board, board.set_epd(epd)

    # --- keys ---------------------------------------------------------------
    def polyglot_key(self) -> int:
        rules = self._rules()
        if rules is None:
            raise ValueError(f"rookery cannot key this position: {self.fen()}")
        return rules.polyglot_key()

    def zobrist(self) -> int:
        rules = self._rules()
        if rules is None:
            raise ValueError(f"rookery cannot key this position: {self.fen()}")
        return rules.zobrist()

    def perft(self, depth: int) -> int:
        rules = self._rules()
        if rules is None:
            raise ValueError(f"rookery does not play this position: {self.fen()}")
        return rules.perft(depth)

    def bitboards(self) -> List[int]:
        """The pieces of each kind as 64-bit masks: White's pawn, knight,
        bishop, rook, queen, king, then Black's."""
        kinds = (self.pawns, self.knights, self.bishops, self.rooks, self.queens, self.kings)
        white, black = self.occupied_co[WHITE], self.occupied_co[BLACK]
        return [mask & white for mask in kinds] + [mask & black for mask in kinds]

    def to_python_chess(self):
        """The same position and moves as a ``chess.Board`` of python-chess
        (which must be installed)."""
        import importlib
        chess = importlib.import_module("chess")
        if chess.__name__ != "chess" or not hasattr(chess, "__author__"):
            raise ImportError("python-chess is not importable as chess")
        root = self.root()
        board = chess.Board(root.fen(shredder=self.chess960, en_passant="fen"), chess960=self.chess960)
        for m in self.move_stack:
            board.push(chess.Move.from_uci(m.uci()))
        return board

    # --- transforms, comparison -----------------------------------------
    def apply_transform(self, f: Callable[[Bitboard], Bitboard]) -> None:
        BaseBoard.apply_transform(self, f)
        self.clear_stack()
        self.ep_square = None if self.ep_square is None else msb(f(BB_SQUARES[self.ep_square]))
        self.castling_rights = f(self.castling_rights)

    def apply_mirror(self) -> None:
        BaseBoard.apply_mirror(self)
        self.turn = not self.turn
        self.clear_stack()
        if self.ep_square is not None:
            self.ep_square ^= 0x38
        self.castling_rights = flip_vertical(self.castling_rights)

    def mirror(self) -> "Board":
        board = self.copy(stack=False)
        board.apply_mirror()
        return board

    def transform(self, f: Callable[[Bitboard], Bitboard]) -> "Board":
        board = self.copy(stack=False)
        board.apply_transform(f)
        return board

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Board):
            return (self.halfmove_clock == other.halfmove_clock
                    and self.fullmove_number == other.fullmove_number
                    and type(self).uci_variant == type(other).uci_variant
                    and self._transposition_key() == other._transposition_key())
        return NotImplemented

    def __repr__(self) -> str:
        if not self.chess960:
            return f"{type(self).__name__}({self.fen()!r})"
        return f"{type(self).__name__}({self.fen()!r}, chess960=True)"


_START_STATE: Optional[tuple] = None


def _as_move(move) -> Move:
    """A ``Move``, or UCI text read as one (rookery's boards took text
    before they took python-chess's ``Move`` only)."""
    return Move.from_uci(move) if isinstance(move, str) else move


def _rebuild_board(cls, fen, chess960, promoted, moves, root_fen):
    board = cls(root_fen or fen, chess960=chess960)
    for uci in moves:
        board.push(Move.from_uci(uci))
    board.promoted = promoted
    return board


def _parse_epd_operations(text: str, board: Board) -> Dict[str, object]:
    """The operations of an EPD record, opcode -> value: None without
    operand, a quoted operand as str, ``bm``/``am`` as a list of moves,
    ``pv`` as a line of moves, else an int, a float, a move (SAN) or the
    text. ValueError for an opcode that is not one."""
    ops: Dict[str, object] = {}
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t;":
            i += 1
        if i >= n:
            break
        j = i
        while j < n and text[j] not in " \t;":
            j += 1
        opcode = text[i:j]
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", opcode):
            raise ValueError(f"invalid opcode in epd operations: {opcode!r}")
        operands: List[str] = []
        quoted: Optional[str] = None
        i = j
        while i < n and text[i] != ";":
            if text[i] in " \t":
                i += 1
            elif text[i] == '"':
                # A quoted operand runs to the closing quote (or the end of
                # the record), semicolons and escapes included.
                j = i + 1
                buf = []
                while j < n and text[j] != '"':
                    if text[j] == "\\" and j + 1 < n:
                        buf.append({"n": "\n", "r": "\r"}.get(text[j + 1], text[j + 1]))
                        j += 2
                    else:
                        buf.append(text[j])
                        j += 1
                quoted = "".join(buf)
                i = j + 1
                while i < n and text[i] != ";":
                    i += 1
            else:
                j = i
                while j < n and text[j] not in " \t;":
                    j += 1
                operands.append(text[i:j])
                i = j
        i += 1
        if quoted is not None:
            ops[opcode] = quoted
        elif not operands:
            ops[opcode] = None
        elif opcode == "pv":
            position = board.copy(stack=False)
            line = []
            for san in operands:
                move = position.parse_san(san)
                line.append(move)
                position.push(move)
            ops[opcode] = line
        elif opcode in ("bm", "am"):
            ops[opcode] = [board.parse_san(san) for san in operands]
        else:
            ops[opcode] = _epd_value(" ".join(operands), board)
    return ops


def _epd_value(value: str, board: Board) -> object:
    """An unquoted EPD operand: int, float, a move (SAN) or the text."""
    for convert in (int, float, board.parse_san):
        try:
            return convert(value)
        except ValueError:
            pass
    return value


class LegalMoveGenerator:
    """``board.legal_moves``: lazy, iterated afresh each time; ``count()``,
    ``in``, ``bool``."""

    def __init__(self, board) -> None:
        self.board = board

    def __bool__(self) -> bool:
        return any(True for _ in self.board.generate_legal_moves())

    def count(self) -> int:
        return len(list(self))

    def __iter__(self) -> Iterator[Move]:
        return self.board.generate_legal_moves()

    def __contains__(self, move: Move) -> bool:
        return self.board.is_legal(move)

    def __repr__(self) -> str:
        sans = ", ".join(self.board.san(m) for m in self)
        return f"<LegalMoveGenerator at {id(self):#x} ({sans})>"


class PseudoLegalMoveGenerator:
    """``board.pseudo_legal_moves``: as ``LegalMoveGenerator``, for moves
    that may leave the king in check."""

    def __init__(self, board) -> None:
        self.board = board

    def __bool__(self) -> bool:
        return any(True for _ in self.board.generate_pseudo_legal_moves())

    def count(self) -> int:
        return len(list(self))

    def __iter__(self) -> Iterator[Move]:
        return self.board.generate_pseudo_legal_moves()

    def __contains__(self, move: Move) -> bool:
        return self.board.is_pseudo_legal(move)

    def __repr__(self) -> str:
        builder = []
        for move in self:
            if self.board.is_legal(move):
                builder.append(self.board.san(move))
            else:
                builder.append(self.board.uci(move))
        return f"<PseudoLegalMoveGenerator at {id(self):#x} ({', '.join(builder)})>"


__all__ = [
    "BaseBoard", "Board", "LegalMoveGenerator", "Outcome", "PseudoLegalMoveGenerator", "STARTING_FEN",
    "Termination",
] + [name for name in dir() if name.startswith("STATUS_")]


# The starting position's state, that ``Board()`` copies (made by reading
# the FEN once).
_START_STATE = Board()._state()
