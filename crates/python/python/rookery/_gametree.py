"""python-chess's PGN model: ``Headers``, the game tree (``Game``,
``GameNode``, ``ChildNode``), visitors (``BaseVisitor``, ``GameBuilder``,
``HeadersBuilder``, ``BoardBuilder``, ``SkipVisitor``, ``StringExporter``,
``FileExporter``) and ``read_game`` / ``skip_game`` / ``read_headers`` on a
text handle, one game at a time, the handle left right after the game.

Moves are resolved by ``Board.parse_san`` (rookery-core). The batch readers
(``read_games(path, jobs=N)``, ``positions``) are in the extension and do not
build trees. Re-exported by ``rookery.pgn``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import MutableMapping as _MutableMapping

# typing's names for annotations only (strings here): importing typing costs
# milliseconds of every script's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, MutableMapping,  # noqa: F401
                        Optional, Set, Tuple, Union)
    from typing import TypeVar
    T = TypeVar("T")

from ._board import Board, STARTING_FEN
from ._rookery import Move
from ._squares import SQUARE_NAMES, WHITE, Color, Square



def __getattr__(name: str) -> Any:
    # ``LOGGER`` (python-chess's ``chess.pgn.LOGGER``) is made when first
    # asked for: importing ``logging`` costs a few milliseconds of every
    # script's start, and most never log.
    if name == "LOGGER":
        return _logger()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _logger() -> Any:
    """The ``rookery.pgn`` logger that reading errors go to."""
    import logging
    return logging.getLogger("rookery.pgn")

NAG_NULL = 0
NAG_GOOD_MOVE = 1
NAG_MISTAKE = 2
NAG_BRILLIANT_MOVE = 3
NAG_BLUNDER = 4
NAG_SPECULATIVE_MOVE = 5
NAG_DUBIOUS_MOVE = 6
NAG_FORCED_MOVE = 7
NAG_SINGULAR_MOVE = 8
NAG_WORST_MOVE = 9
NAG_DRAWISH_POSITION = 10
NAG_QUIET_POSITION = 11
NAG_ACTIVE_POSITION = 12
NAG_UNCLEAR_POSITION = 13
NAG_WHITE_SLIGHT_ADVANTAGE = 14
NAG_BLACK_SLIGHT_ADVANTAGE = 15
NAG_WHITE_MODERATE_ADVANTAGE = 16
NAG_BLACK_MODERATE_ADVANTAGE = 17
NAG_WHITE_DECISIVE_ADVANTAGE = 18
NAG_BLACK_DECISIVE_ADVANTAGE = 19
NAG_WHITE_ZUGZWANG = 22
NAG_BLACK_ZUGZWANG = 23
NAG_WHITE_MODERATE_COUNTERPLAY = 132
NAG_BLACK_MODERATE_COUNTERPLAY = 133
NAG_WHITE_DECISIVE_COUNTERPLAY = 134
NAG_BLACK_DECISIVE_COUNTERPLAY = 135
NAG_WHITE_MODERATE_TIME_PRESSURE = 136
NAG_BLACK_MODERATE_TIME_PRESSURE = 137
NAG_WHITE_SEVERE_TIME_PRESSURE = 138
NAG_BLACK_SEVERE_TIME_PRESSURE = 139
NAG_NOVELTY = 146

# Move suffixes read as NAGs.
_SUFFIX_NAGS = {"!": NAG_GOOD_MOVE, "?": NAG_MISTAKE, "!!": NAG_BRILLIANT_MOVE, "??": NAG_BLUNDER,
                "!?": NAG_SPECULATIVE_MOVE, "?!": NAG_DUBIOUS_MOVE}

TAG_ROSTER = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
_TAG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_+#=:-]*\Z")
_TAG_LINE = re.compile(r'^\s*\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+"(.*)"\s*\]\s*$')

_CLOCK = re.compile(r"\[%clk\s+(\d+):(\d+):(\d+(?:\.\d*)?)\]")
_EMT = re.compile(r"\[%emt\s+(\d+):(\d+):(\d+(?:\.\d*)?)\]")
_EVAL = re.compile(r"\[%eval\s+(?:#([+-]?\d+)|([+-]?(?:\d{0,10}\.\d{1,2}|\d{1,10}\.?)))(?:,(\d+))?\]")
_ARROWS = re.compile(r"\[%(?:csl|cal)\s+([RGYB][a-h][1-8](?:[a-h][1-8])?(?:,[RGYB][a-h][1-8](?:[a-h][1-8])?)*)\]")


class SkipType(enum.Enum):
    """The value a visitor returns to skip headers or a variation."""
    SKIP = None


SKIP = SkipType.SKIP


_SEVEN_TAGS = (("Event", "?"), ("Site", "?"), ("Date", "????.??.??"), ("Round", "?"),
               ("White", "?"), ("Black", "?"), ("Result", "*"))


class Headers(_MutableMapping):
    """PGN tags: the Seven Tag Roster first (in its order), then the others
    in the order they were set. Tag names are checked.

    >>> Headers(White="A")["White"], list(Headers())[:2]
    ('A', ['Event', 'Site'])
    """

    def __init__(self, data: Union[Mapping[str, str], Iterable[Tuple[str, str]], None] = None,
                 **kwargs: str) -> None:
        self._others: Dict[str, str] = {}
        if data is None:
            # The seven tags of the roster, set directly (what update sets).
            self._tag_roster: Dict[str, str] = dict(_SEVEN_TAGS)
            if kwargs:
                self.update(**kwargs)
            return
        self._tag_roster = {}
        self.update(data, **kwargs)

    def is_chess960(self) -> bool:
        return self.get("Variant", "").lower() in (
            "chess960", "chess 960", "fischerandom", "fischerrandom", "fischer random")

    def is_wild(self) -> bool:
        return self.get("Variant", "").lower() in (
            "wild/0", "wild/1", "wild/2", "wild/3", "wild/4", "wild/5", "wild/6", "wild/7", "wild/8", "wild/8a")

    def variant(self) -> type:
        """The board class of the game (rookery plays standard chess and
        Chess960 only); ValueError for other variants."""
        variant = self.get("Variant")
        if not variant or self.is_chess960() or self.is_wild() or variant.lower() in (
                "standard", "chess", "classical", "normal", "illegal", "from position"):
            return Board
        raise ValueError(f"rookery does not play variant {variant!r}")

    def board(self) -> Board:
        others = self._others
        if "FEN" not in others and "Variant" not in others:
            return Board()  # the standard start (standard castling rights)
        chess960 = self.is_chess960()
        fen = self.get("FEN", STARTING_FEN)
        board = self.variant()(fen, chess960=chess960)
        board.chess960 = board.chess960 or board.has_chess960_castling_rights()
        return board

    def __setitem__(self, key: str, value: str) -> None:
        if key in TAG_ROSTER:
            self._tag_roster[key] = value
        elif not _TAG_NAME.match(key):
            raise ValueError(f"non-alphanumeric pgn header tag: {key!r}")
        elif "\n" in value or "\r" in value:
            raise ValueError(f"line break in pgn header {key}: {value!r}")
        else:
            self._others[key] = value

    def __getitem__(self, key: str) -> str:
        if key in TAG_ROSTER:
            return self._tag_roster[key]
        return self._others[key]

    def __delitem__(self, key: str) -> None:
        if key in TAG_ROSTER:
            del self._tag_roster[key]
        else:
            del self._others[key]

    def __iter__(self) -> Iterator[str]:
        for key in TAG_ROSTER:
            if key in self._tag_roster:
                yield key
        yield from self._others

    def __len__(self) -> int:
        return len(self._tag_roster) + len(self._others)

    def copy(self) -> "Headers":
        return type(self)(self)

    def __copy__(self) -> "Headers":
        return self.copy()

    def __repr__(self) -> str:
        pairs = ", ".join(f"{key}={value!r}" for key, value in self.items())
        return f"{type(self).__name__}({pairs})"

    @classmethod
    def builder(cls) -> "HeadersBuilder":
        return HeadersBuilder(Headers=cls)


class Arrow:
    """An arrow (or a marked square, when ``tail == head``) of a comment's
    ``[%cal]`` / ``[%csl]`` command."""

    def __init__(self, tail: Square, head: Square, *, color: str = "green") -> None:
        self.tail, self.head, self.color = tail, head, color

    def pgn(self) -> str:
        letter = {"red": "R", "yellow": "Y", "blue": "B"}.get(self.color, "G")
        if self.tail == self.head:
            return letter + SQUARE_NAMES[self.tail]
        return letter + SQUARE_NAMES[self.tail] + SQUARE_NAMES[self.head]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Arrow) and (self.tail, self.head, self.color) == (other.tail, other.head, other.color)

    def __repr__(self) -> str:
        return f"Arrow({SQUARE_NAMES[self.tail]}, {SQUARE_NAMES[self.head]}, color={self.color!r})"


def _hms(seconds: float) -> str:
    seconds = max(0, round(seconds, 3))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    whole = int(s)
    frac = round(s - whole, 3)
    text = f"{int(h)}:{int(m):02}:{whole:02}"
    if frac:
        text += f"{frac:.3f}"[1:].rstrip("0")
    return text


def _set_command(comment: str, pattern: "re.Pattern[str]", command: Optional[str]) -> str:
    """``comment`` with the command ``pattern`` matches replaced by
    ``command`` (appended if absent, removed if None)."""
    if command is None:
        return pattern.sub("", comment).strip().replace("  ", " ")
    if pattern.search(comment):
        return pattern.sub(lambda _m: command, comment, count=1)
    return (comment + " " + command).strip() if comment else command


class GameNode:
    """A node of a game tree: the move that led here (None at the root),
    the variations that go on (the main one first), comments and NAGs."""

    parent: Optional["GameNode"]
    move: Optional[Move]
    variations: List["ChildNode"]
    comment: str
    starting_comment: str
    nags: Set[int]

    def __init__(self, *, comment: str = "") -> None:
        self.parent = None
        self.move = None
        self.variations = []
        self.comment = comment
        self.starting_comment = ""
        self.nags = set()

    # --- position -------------------------------------------------------
    def board(self) -> Board:
        """The position at this node (replayed from the root)."""
        moves = []
        node: GameNode = self
        while node.parent is not None:
            moves.append(node.move)
            node = node.parent
        board = node.game().board()
        for move in reversed(moves):
            board.push(move)
        return board

    def ply(self) -> int:
        depth = 0
        node: GameNode = self
        while node.parent is not None:
            depth += 1
            node = node.parent
        return node.game().board().ply() + depth if isinstance(node, Game) else depth

    def turn(self) -> Color:
        return self.ply() % 2 == 0

    def root(self) -> "GameNode":
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def game(self) -> "Game":
        root = self.root()
        assert isinstance(root, Game), "the root of a game tree is a Game"
        return root

    def end(self) -> "GameNode":
        node = self
        while node.variations:
            node = node.variations[0]
        return node

    def is_end(self) -> bool:
        return not self.variations

    def starts_variation(self) -> bool:
        return self.parent is not None and bool(self.parent.variations) and self.parent.variations[0] is not self

    def is_mainline(self) -> bool:
        node = self
        while node.parent is not None:
            if node.parent.variations[0] is not node:
                return False
            node = node.parent
        return True

    def is_main_variation(self) -> bool:
        return self.parent is None or self.parent.variations[0] is self

    # --- variations -----------------------------------------------------
    def __getitem__(self, move: Union[int, Move, "GameNode"]) -> "ChildNode":
        if isinstance(move, int):
            return self.variations[move]
        for variation in self.variations:
            if variation.move == move or variation is move:
                return variation
        raise KeyError(move)

    def __contains__(self, move: Union[int, Move, "GameNode"]) -> bool:
        try:
            self[move]
        except (KeyError, IndexError):
            return False
        return True

    def variation(self, move: Union[int, Move, "GameNode"]) -> "ChildNode":
        return self[move]

    def has_variation(self, move: Union[int, Move, "GameNode"]) -> bool:
        return move in self

    def promote_to_main(self, move: Union[int, Move, "GameNode"]) -> None:
        variation = self[move]
        self.variations.remove(variation)
        self.variations.insert(0, variation)

    def promote(self, move: Union[int, Move, "GameNode"]) -> None:
        variation = self[move]
        i = self.variations.index(variation)
        if i > 0:
            self.variations[i - 1], self.variations[i] = self.variations[i], self.variations[i - 1]

    def demote(self, move: Union[int, Move, "GameNode"]) -> None:
        variation = self[move]
        i = self.variations.index(variation)
        if i < len(self.variations) - 1:
            self.variations[i + 1], self.variations[i] = self.variations[i], self.variations[i + 1]

    def remove_variation(self, move: Union[int, Move, "GameNode"]) -> None:
        self.variations.remove(self.variation(move))

    def add_variation(self, move: Move, *, comment: str = "", starting_comment: str = "",
                      nags: Iterable[int] = ()) -> "ChildNode":
        return ChildNode(self, move, comment=comment, starting_comment=starting_comment, nags=nags)

    def add_main_variation(self, move: Move, *, comment: str = "", nags: Iterable[int] = ()) -> "ChildNode":
        node = self.add_variation(move, comment=comment, nags=nags)
        self.variations.insert(0, self.variations.pop())
        return node

    def next(self) -> Optional["ChildNode"]:
        return self.variations[0] if self.variations else None

    def mainline(self) -> "Mainline[ChildNode]":
        return Mainline(self, lambda node: node)

    def mainline_moves(self) -> "Mainline[Move]":
        return Mainline(self, _move_of)

    def add_line(self, moves: Iterable[Move], *, comment: str = "", starting_comment: str = "",
                 nags: Iterable[int] = ()) -> "GameNode":
        node: GameNode = self
        for move in moves:
            node = node.add_variation(move, starting_comment=starting_comment)
            starting_comment = ""
        node.comment = comment
        node.nags.update(nags)
        return node

    # --- comment commands -------------------------------------------------
    def clock(self) -> Optional[float]:
        match = _CLOCK.search(self.comment)
        if match is None:
            return None
        return int(match.group(1)) * 3600 + int(match.group(2)) * 60 + float(match.group(3))

    def set_clock(self, seconds: Optional[float]) -> None:
        command = None if seconds is None else f"[%clk {_hms(seconds)}]"
        self.comment = _set_command(self.comment, _CLOCK, command)

    def emt(self) -> Optional[float]:
        match = _EMT.search(self.comment)
        if match is None:
            return None
        return int(match.group(1)) * 3600 + int(match.group(2)) * 60 + float(match.group(3))

    def set_emt(self, seconds: Optional[float]) -> None:
        command = None if seconds is None else f"[%emt {_hms(seconds)}]"
        self.comment = _set_command(self.comment, _EMT, command)

    def eval(self) -> "Optional[PovScore]":
        """The ``[%eval]`` of the comment, from White's point of view
        (pawns to centipawns; ``#n`` a mate), or None."""
        from .engine import Cp, Mate, PovScore
        match = _EVAL.search(self.comment)
        if match is None:
            return None
        if match.group(1) is not None:
            mate = int(match.group(1))
            return PovScore(Mate(mate) if mate else Mate(0), WHITE)
        return PovScore(Cp(int(round(float(match.group(2)) * 100))), WHITE)

    def set_eval(self, score: "Optional[PovScore]", depth: Optional[int] = None) -> None:
        """Writes ``score`` as the comment's ``[%eval]`` (None removes it)."""
        command = None
        if score is not None:
            white = score.white()
            mate = white.mate()
            text = f"#{mate}" if mate is not None else f"{white.score() / 100:.2f}"
            command = f"[%eval {text}{'' if depth is None else f',{depth}'}]"
        self.comment = _set_command(self.comment, _EVAL, command)

    def eval_depth(self) -> Optional[int]:
        match = _EVAL.search(self.comment)
        return int(match.group(3)) if match and match.group(3) else None

    def arrows(self) -> List[Arrow]:
        out = []
        for match in _ARROWS.finditer(self.comment):
            for group in match.group(1).split(","):
                color = {"R": "red", "G": "green", "Y": "yellow", "B": "blue"}[group[0]]
                tail = SQUARE_NAMES.index(group[1:3])
                head = SQUARE_NAMES.index(group[3:5]) if len(group) == 5 else tail
                out.append(Arrow(tail, head, color=color))
        return out

    def set_arrows(self, arrows: Iterable[Union[Arrow, Tuple[Square, Square]]]) -> None:
        csl, cal = [], []
        for arrow in arrows:
            if not isinstance(arrow, Arrow) and not hasattr(arrow, "pgn"):
                tail, head = arrow  # type: ignore[misc]
                arrow = Arrow(tail, head)
            (csl if arrow.tail == arrow.head else cal).append(arrow.pgn())
        self.comment = _ARROWS.sub("", self.comment).strip()
        prefix = ""
        if csl:
            prefix += f"[%csl {','.join(csl)}]"
        if cal:
            prefix += f"[%cal {','.join(cal)}]"
        if prefix:
            self.comment = prefix + (" " + self.comment if self.comment else "")

    # --- visiting -----------------------------------------------------------
    def accept(self, visitor: "BaseVisitor") -> Any:
        """Walks the game from this node's move on (the whole game from the
        root), calling ``visitor``; returns its result."""
        if self.parent is None:
            return self.game().accept(visitor)
        board = self.parent.board()
        _visit_move(self, board, visitor)  # type: ignore[arg-type]
        _run([("children", (self, None))], board, visitor)
        return visitor.result()

    def accept_subgame(self, visitor: "BaseVisitor") -> Any:
        """Walks the tree below this node as a game of its own that starts
        at this node's position (FEN and SetUp tags)."""
        game = self.game()
        board = self.board()
        dummy = Game.without_tag_roster()
        dummy.headers.update(game.headers)
        dummy.setup(board)
        visitor.begin_game()
        if visitor.begin_headers() is not SKIP:
            for name, value in dummy.headers.items():
                visitor.visit_header(name, value)
        if visitor.end_headers() is not SKIP:
            visitor.visit_board(board)
            if self.variations:
                _run([("children", (self, None))], board, visitor)
            visitor.visit_result(game.headers.get("Result", "*"))
        visitor.end_game()
        return visitor.result()

    def __str__(self) -> str:
        return self.accept(StringExporter(columns=None))


def _run(stack: List[Tuple[str, Any]], board: Board, visitor: "BaseVisitor") -> None:
    """Visits the tree below the nodes of a work stack, in PGN order: a
    node's main move, its side variations (each from the position before
    the main move), then on along the main line. The main line is a loop
    over the stack, not a recursion, so that long games do not overflow;
    only nested variations recurse. ``board`` is left as it was."""
    while stack:
        kind, data = stack.pop()
        if kind == "pop":
            board.pop()
            continue
        if kind == "end_variation":
            board.pop()
            visitor.end_variation()
            continue
        parent, _ = data
        if not parent.variations:
            continue
        main = parent.variations[0]
        _visit_move(main, board, visitor)
        stack.append(("pop", None))
        stack.append(("children", (main, None)))
        for side in parent.variations[1:]:
            board.pop()
            if visitor.begin_variation() is SKIP:
                board.push(main.move)
                continue
            _visit_move(side, board, visitor)
            _run([("end_variation", None), ("children", (side, None))], board, visitor)
            board.push(main.move)


def _visit_move(node: "ChildNode", board: Board, visitor: "BaseVisitor") -> None:
    """Visits ``node``'s starting comment, move, NAGs and comment, and plays
    the move on ``board``."""
    if node.starting_comment:
        visitor.visit_comment(node.starting_comment)
    visitor.visit_move(board, node.move)
    board.push(node.move)
    visitor.visit_board(board)
    for nag in sorted(node.nags):
        visitor.visit_nag(nag)
    if node.comment:
        visitor.visit_comment(node.comment)




class Mainline:
    """The main line from a node: iterable (forwards and ``reversed``),
    true if not empty, ``str`` in SAN with move numbers."""

    def __init__(self, start: GameNode, f: Callable[["ChildNode"], T]) -> None:
        self.start = start
        self.f = f

    def __bool__(self) -> bool:
        return bool(self.start.variations)

    def __iter__(self) -> Iterator[T]:
        lazy = self.start.__dict__.get("_lazy")
        if lazy is not None and self.f is _move_of:
            # A game read but not yet looked into: its moves as read.
            if isinstance(lazy, tuple):
                return iter(lazy[0] if lazy[2] is None else lazy[2])
            return iter(lazy.mainline())
        return self._walk()

    def _walk(self) -> Iterator[T]:
        node = self.start
        while node.variations:
            node = node.variations[0]
            yield self.f(node)

    def __reversed__(self) -> Iterator[T]:
        node = self.start.end()
        while node.parent is not None and node is not self.start:
            yield self.f(node)  # type: ignore[arg-type]
            node = node.parent

    def __str__(self) -> str:
        return self.start.board().variation_san(node.move for node in Mainline(self.start, lambda n: n))

    def __repr__(self) -> str:
        return f"<Mainline at {id(self):#x} ({self})>"


def _move_of(node: "ChildNode") -> Move:
    return node.move  # type: ignore[return-value]


class ChildNode(GameNode):
    """A node reached by a move: appended to ``parent``'s variations."""

    def __init__(self, parent: GameNode, move: Move, *, comment: str = "", starting_comment: str = "",
                 nags: Iterable[int] = ()) -> None:
        super().__init__(comment=comment)
        self.parent = parent
        self.move = move
        self.parent.variations.append(self)
        self.nags.update(nags)
        self.starting_comment = starting_comment

    def san(self) -> str:
        return self.parent.board().san(self.move)  # type: ignore[union-attr,arg-type]

    def uci(self, *, chess960: Optional[bool] = None) -> str:
        return self.parent.board().uci(self.move, chess960=chess960)  # type: ignore[union-attr,arg-type]

    def end(self) -> "ChildNode":
        return super().end()  # type: ignore[return-value]

    def __repr__(self) -> str:
        try:
            parent_board = self.parent.board()  # type: ignore[union-attr]
            text = parent_board.variation_san([self.move])  # type: ignore[list-item]
        except ValueError:
            text = self.move.uci() if self.move else "--"
        return f"<{type(self).__name__} at {id(self):#x} ({text} ...)>"


class Game(GameNode):
    """The root of a game tree: the tags (``headers``), the errors met
    while reading, and the start position (``FEN``, ``SetUp``,
    ``Variant`` tags)."""

    # The movetext ``read_game`` read (a ``rookery._rookery.ParsedMovetext``,
    # or its description, a tuple, once pickled), until its nodes are
    # first asked for.
    _lazy: Any = None

    def __init__(self, headers: Union[Mapping[str, str], Iterable[Tuple[str, str]], None] = None) -> None:
        super().__init__()
        self.headers = Headers(headers)
        self.errors: List[Exception] = []

    @property  # type: ignore[override]
    def variations(self) -> List["ChildNode"]:  # type: ignore[override]
        lazy = self._lazy
        if lazy is not None:
            self._lazy = None
            # A list of its own: a copy (copy.copy) of the game not yet
            # looked into shares the empty one and makes its own nodes.
            self._variations = []
            _make_nodes(self, lazy if isinstance(lazy, tuple) else lazy.description())
        return self._variations

    @variations.setter
    def variations(self, value: List["ChildNode"]) -> None:
        self._lazy = None
        self._variations = value

    @property  # type: ignore[override]
    def comment(self) -> str:  # type: ignore[override]
        if self._lazy is not None:
            self.variations
        return self._comment

    @comment.setter
    def comment(self, value: str) -> None:
        self._comment = value

    @property  # type: ignore[override]
    def nags(self) -> Set[int]:  # type: ignore[override]
        if self._lazy is not None:
            self.variations
        return self._nags

    @nags.setter
    def nags(self, value: Set[int]) -> None:
        self._nags = value

    def board(self) -> Board:
        return self.headers.board()

    def ply(self) -> int:
        return self.board().ply()

    def setup(self, board: Union[Board, str]) -> None:
        """Sets the start position (FEN and SetUp tags; Variant for Chess960)."""
        try:
            fen = board.fen(shredder=False)  # type: ignore[union-attr]
            setup_board = board
        except AttributeError:
            setup_board = Board(board)  # type: ignore[arg-type]
            setup_board.chess960 = setup_board.has_chess960_castling_rights()
            fen = setup_board.fen()
        if fen == STARTING_FEN and not getattr(setup_board, "chess960", False):
            self.headers.pop("FEN", None)
            self.headers.pop("SetUp", None)
        else:
            self.headers["FEN"] = fen
            self.headers["SetUp"] = "1"
        if getattr(setup_board, "chess960", False):
            self.headers["Variant"] = "Chess960"
        else:
            self.headers.pop("Variant", None)

    def accept(self, visitor: "BaseVisitor") -> Any:
        visitor.begin_game()
        if visitor.begin_headers() is not SKIP:
            for name, value in self.headers.items():
                visitor.visit_header(name, value)
        if visitor.end_headers() is not SKIP:
            board = self.board()
            visitor.visit_board(board)
            if self.comment:
                visitor.visit_comment(self.comment)
            if self.variations:
                _run([("children", (self, None))], board, visitor)
            visitor.visit_result(self.headers.get("Result", "*"))
        visitor.end_game()
        return visitor.result()

    def time_control(self) -> "TimeControl":
        return parse_time_control(self.headers.get("TimeControl", ""))

    @classmethod
    def from_board(cls, board: Board) -> "Game":
        """A game of the moves that led to ``board`` from its root, with the
        result if the game is over."""
        game = cls()
        game.setup(board.root())
        node: GameNode = game
        for move in board.move_stack:
            node = node.add_variation(move)
        game.headers["Result"] = board.result()
        return game

    @classmethod
    def without_tag_roster(cls) -> "Game":
        return cls(headers={})

    @classmethod
    def builder(cls) -> "GameBuilder":
        return GameBuilder(Game=cls)

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} at {id(self):#x} ({self.headers.get('White', '?')!r} vs. "
                f"{self.headers.get('Black', '?')!r}, {self.headers.get('Date', '????.??.??')!r})>")


def _make_nodes(game: "Game", lazy: tuple) -> None:
    """Makes the nodes of a game ``read_game`` read: ``lazy`` is the
    description ``rookery._rookery.parse_movetext`` gives."""
    moves, parents, _mainline, comments, starting_comments, nags = lazy[:6]
    new = object.__new__
    nodes: List[GameNode] = [game]
    append = nodes.append
    variations = game._variations
    parent: GameNode = game
    for i, move in enumerate(moves):
        node = new(ChildNode)
        if parents is not None:
            parent = nodes[parents[i]]
            variations = parent._variations if parent is game else parent.variations
        node.parent = parent
        node.move = move
        node.variations = []
        node.comment = ""
        node.starting_comment = ""
        node.nags = set()
        variations.append(node)
        append(node)
        parent, variations = node, node.variations
    for i, text in comments:
        nodes[i].comment = text
    for i, text in starting_comments:
        nodes[i].starting_comment = text
    for i, nag in nags:
        nodes[i].nags.add(nag)


class TimeControlType(enum.Enum):
    UNKNOWN = 0
    UNLIMITED = 1
    STANDARD = 2
    RAPID = 3
    BLITZ = 4
    BULLET = 5


class TimeControlPart:
    """A stage of a time control: ``moves`` (0 for the rest of the game) in
    ``time`` seconds, ``increment`` and ``delay`` seconds a move."""

    def __init__(self, moves: int = 0, time: float = 0, increment: float = 0, delay: float = 0) -> None:
        self.moves, self.time, self.increment, self.delay = moves, time, increment, delay

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TimeControlPart) and (
            self.moves, self.time, self.increment, self.delay) == (other.moves, other.time, other.increment, other.delay)

    def __repr__(self) -> str:
        return f"TimeControlPart({self.moves}, {self.time}, {self.increment}, {self.delay})"


class TimeControl:
    """A parsed TimeControl tag: its stages and how fast it is."""

    def __init__(self, parts: Optional[List[TimeControlPart]] = None,
                 type: TimeControlType = TimeControlType.UNKNOWN) -> None:
        self.parts = parts or []
        self.type = type

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TimeControl) and (self.parts, self.type) == (other.parts, other.type)

    def __repr__(self) -> str:
        return f"TimeControl({self.parts!r}, {self.type})"


def _number(text: str) -> float:
    if not re.fullmatch(r"\d+(\.\d+)?", text):
        raise ValueError(f"invalid time control number: {text!r}")
    value = float(text)
    return int(value) if value.is_integer() else value


def parse_time_control(time_control: str) -> TimeControl:
    """Reads a TimeControl tag (``40/7200:3600``, ``300+2``, ``-``, ``?``);
    ValueError for other text. The type comes from the estimated time for
    60 moves (the first stage's base plus 60 increments)."""
    tc = TimeControl()
    if not time_control:
        return tc
    if time_control.startswith("?"):
        return tc
    if time_control.startswith("-"):
        tc.type = TimeControlType.UNLIMITED
        return tc
    for part in time_control.split(":"):
        moves = 0
        if "/" in part:
            moves_text, part = part.split("/", 1)
            if not moves_text.isdigit():
                raise ValueError(f"invalid time control: {time_control!r}")
            moves = int(moves_text)
        elif tc.parts:
            pass
        delay = 0.0
        if "+" in part:
            base_text, inc_text = part.split("+", 1)
            if inc_text.startswith("+") or "+" in inc_text:
                raise ValueError(f"invalid time control: {time_control!r}")
            time, increment = _number(base_text), _number(inc_text)
        else:
            time, increment = _number(part), 0
        if tc.parts and tc.parts[-1].moves == 0:
            raise ValueError(f"a stage after a sudden-death stage: {time_control!r}")
        tc.parts.append(TimeControlPart(moves, time, increment, delay))
    if len(tc.parts) > 1 and tc.parts[-1].moves != 0:
        raise ValueError(f"the last stage of {time_control!r} is not for the rest of the game")
    first = tc.parts[0]
    estimate = first.time + 60 * first.increment
    if estimate < 3 * 60:
        tc.type = TimeControlType.BULLET
    elif estimate < 15 * 60:
        tc.type = TimeControlType.BLITZ
    elif estimate < 60 * 60:
        tc.type = TimeControlType.RAPID
    else:
        tc.type = TimeControlType.STANDARD
    return tc


# --- visitors -------------------------------------------------------------

class BaseVisitor:
    """What a reader or a tree walk calls, in order: ``begin_game``,
    ``begin_headers``, ``visit_header``..., ``end_headers`` (SKIP skips the
    movetext), ``visit_board`` (the start position), then for each move
    ``parse_san`` (reading only), ``visit_move``, ``visit_board``, with
    ``visit_comment``, ``visit_nag``, ``begin_variation`` (SKIP skips it),
    ``end_variation``; ``visit_result``, ``end_game``, ``result``."""

    def begin_game(self) -> Any:
        pass

    def begin_headers(self) -> Any:
        pass

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        pass

    def end_headers(self) -> Any:
        pass

    def begin_parse_san(self, board: Board, san: str) -> Any:
        pass

    def parse_san(self, board: Board, san: str) -> Move:
        """The move a SAN token names (castling as ``O-O`` or ``0-0``)."""
        if san in ("0-0", "0-0+", "0-0#"):
            san = san.replace("0", "O")
        elif san in ("0-0-0", "0-0-0+", "0-0-0#"):
            san = san.replace("0", "O")
        return board.parse_san(san)

    def visit_move(self, board: Board, move: Move) -> None:
        pass

    def visit_board(self, board: Board) -> None:
        pass

    def visit_comment(self, comment: str) -> None:
        pass

    def visit_nag(self, nag: int) -> None:
        pass

    def begin_variation(self) -> Any:
        pass

    def end_variation(self) -> None:
        pass

    def visit_result(self, result: str) -> None:
        pass

    def end_game(self) -> None:
        pass

    def result(self) -> Any:
        return None

    def handle_error(self, error: Exception) -> None:
        raise error


class GameBuilder(BaseVisitor):
    """Builds a ``Game`` (or the class given as ``Game``); errors are
    logged and kept in ``game.errors``."""

    def __init__(self, *, Game: type = Game) -> None:
        self.Game = Game

    def begin_game(self) -> None:
        self.game = self.Game()
        self.variation_stack: List[GameNode] = [self.game]
        self.starting_comment = ""
        self.in_variation = False

    def begin_headers(self) -> Headers:
        return self.game.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.game.headers[tagname] = tagvalue

    def visit_nag(self, nag: int) -> None:
        self.variation_stack[-1].nags.add(nag)

    def begin_variation(self) -> Any:
        parent = self.variation_stack[-1].parent
        assert parent is not None, "a variation needs a move to branch from"
        self.variation_stack.append(parent)
        self.starting_comment = ""
        self.in_variation = False

    def end_variation(self) -> None:
        self.variation_stack.pop()
        self.in_variation = True

    def visit_result(self, result: str) -> None:
        if self.game.headers.get("Result", "*") == "*":
            self.game.headers["Result"] = result

    def visit_comment(self, comment: str) -> None:
        if self.in_variation or (self.variation_stack[-1].parent is None and self.variation_stack[-1].is_end()):
            node = self.variation_stack[-1]
            node.comment = (node.comment + " " + comment) if node.comment else comment
        else:
            self.starting_comment = (self.starting_comment + " " + comment) if self.starting_comment else comment

    def visit_move(self, board: Board, move: Move) -> None:
        self.variation_stack[-1] = self.variation_stack[-1].add_variation(move)
        self.variation_stack[-1].starting_comment = self.starting_comment
        self.starting_comment = ""
        self.in_variation = True

    def handle_error(self, error: Exception) -> None:
        _logger().error("%s while parsing %r", error, self.game)
        self.game.errors.append(error)

    def result(self) -> Any:
        return self.game


class HeadersBuilder(BaseVisitor):
    """Collects the tags of a game and skips its movetext."""

    def __init__(self, *, Headers: type = Headers) -> None:
        self.Headers = Headers

    def begin_headers(self) -> Headers:
        self.headers = self.Headers({})
        return self.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def end_headers(self) -> SkipType:
        return SKIP

    def result(self) -> Headers:
        return self.headers


class BoardBuilder(BaseVisitor):
    """The position at the end of the main line."""

    def begin_game(self) -> None:
        self.skip_variation_depth = 0

    def begin_variation(self) -> SkipType:
        return SKIP

    def visit_board(self, board: Board) -> None:
        self.board = board.copy(stack=True)

    def result(self) -> Board:
        return self.board


class SkipVisitor(BaseVisitor):
    """Skips a game (headers and movetext): ``skip_game``."""

    def end_headers(self) -> SkipType:
        return SKIP

    def begin_variation(self) -> SkipType:
        return SKIP

    def result(self) -> bool:
        return True


class StringExporter(BaseVisitor):
    """The game in PGN export format: tags, a blank line, the movetext
    wrapped at ``columns`` (None: one line); ``headers``, ``comments`` and
    ``variations`` may be left out."""

    def __init__(self, *, columns: Optional[int] = 80, headers: bool = True, comments: bool = True,
                 variations: bool = True) -> None:
        self.columns = columns
        self.headers = headers
        self.comments = comments
        self.variations = variations
        self.found_headers = False
        self.force_movenumber = True
        self.lines: List[str] = []
        self.current_line = ""
        self.variation_depth = 0

    def flush_current_line(self) -> None:
        if self.current_line:
            self.lines.append(self.current_line.rstrip())
        self.current_line = ""

    def write_token(self, token: str) -> None:
        if self.columns is not None and self.columns - len(self.current_line) < len(token):
            self.flush_current_line()
        self.current_line += token

    def write_line(self, line: str = "") -> None:
        self.flush_current_line()
        self.lines.append(line.rstrip())

    def begin_game(self) -> None:
        self.found_headers = False
        self.force_movenumber = True
        self.variation_depth = 0

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        if self.headers:
            self.found_headers = True
            # Values are written as they are kept (as read), as python-chess
            # writes them.
            self.write_line(f'[{tagname} "{tagvalue}"]')

    def end_headers(self) -> None:
        if self.found_headers:
            self.write_line()

    def begin_variation(self) -> Optional[SkipType]:
        if not self.variations:
            return SKIP
        self.variation_depth += 1
        self.write_token("( ")
        self.force_movenumber = True
        return None

    def end_variation(self) -> None:
        self.variation_depth -= 1
        if self.variations:
            self.write_token(") ")
            self.force_movenumber = True

    def visit_comment(self, comment: str) -> None:
        if self.comments and (self.variations or not self.variation_depth):
            self.write_token("{ " + comment.replace("}", "").strip() + " } ")
            self.force_movenumber = True

    def visit_nag(self, nag: int) -> None:
        if self.comments and (self.variations or not self.variation_depth):
            self.write_token("$" + str(nag) + " ")

    def visit_move(self, board: Board, move: Move) -> None:
        if self.variations or not self.variation_depth:
            if board.turn == WHITE:
                self.write_token(f"{board.fullmove_number}. ")
            elif self.force_movenumber:
                self.write_token(f"{board.fullmove_number}... ")
            self.write_token(board.san(move) + " ")
            self.force_movenumber = False

    def visit_result(self, result: str) -> None:
        self.write_token(result + " ")

    def result(self) -> str:
        if self.current_line:
            return "\n".join(self.lines + [self.current_line.rstrip()]).rstrip()
        return "\n".join(self.lines).rstrip()

    def __str__(self) -> str:
        return self.result()


class FileExporter(StringExporter):
    """As ``StringExporter``, written to a text handle (each game followed
    by an empty line); ``result()`` is the number of characters written."""

    def __init__(self, handle: Any, *, columns: Optional[int] = 80, headers: bool = True,
                 comments: bool = True, variations: bool = True) -> None:
        super().__init__(columns=columns, headers=headers, comments=comments, variations=variations)
        self.handle = handle
        self.written = 0

    def begin_game(self) -> None:
        super().begin_game()
        self.written = 0
        self.lines = []
        self.current_line = ""

    def end_game(self) -> None:
        text = StringExporter.result(self) + "\n\n"
        self.written += self.handle.write(text) or 0

    def result(self) -> int:  # type: ignore[override]
        return self.written

    def __repr__(self) -> str:
        return f"<FileExporter at {id(self):#x}>"
