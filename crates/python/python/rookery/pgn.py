"""PGN with python-chess's names, and rookery's batch readers.

One game at a time, as python-chess: ``read_game(handle)`` builds a game
tree (``Game``, ``ChildNode``; variations, comments, NAGs) and leaves the
handle right after the game; ``read_headers(handle)`` and
``skip_game(handle)`` skip the movetext; visitors (``GameBuilder``,
``StringExporter``, ``FileExporter``, ...) walk games as they are read or
built; ``str(game)`` is the export format.

In bulk, in Rust: ``read_games(path_or_file, jobs=N)`` (every move played and
checked, ``GameRecord``s), ``read_headers(path)`` (an iterator of tag dicts
when given a path), ``positions`` (NumPy batches for training sets).

>>> import io, rookery.pgn
>>> game = rookery.pgn.read_game(io.StringIO('[White "A"]\\n\\n1. e4 { best } e5 (1... c5) 1-0\\n'))
>>> game.headers["White"], game.next().comment, [m.uci() for m in game.mainline_moves()]
('A', 'best', ['e2e4', 'e7e5'])
>>> print(game.accept(rookery.pgn.StringExporter(headers=False)))
1. e4 { best } 1... e5 ( 1... c5 ) 1-0
>>> record = next(rookery.pgn.read_games(io.StringIO('[White "A"]\\n\\n1. e4 {[%clk 0:03:00]} e5 1-0\\n')))
>>> record.headers["White"], record.moves, record.sans, record.clocks, record.result
('A', ['e2e4', 'e7e5'], ['e4', 'e5'], [180.0, None], '1-0')
"""

from __future__ import annotations

import os
import re
# typing's names for annotations only (strings here): importing typing costs
# milliseconds of every script's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Optional, TextIO, Union  # noqa: F401

from ._board import Board
from ._gametree import *  # noqa: F401,F403 - python-chess's names
from ._errors import AmbiguousMoveError as _AmbiguousMoveError
from ._errors import IllegalMoveError as _IllegalMoveError
from ._errors import InvalidMoveError as _InvalidMoveError
from ._gametree import (
    SKIP, TAG_ROSTER, BaseVisitor, Game, GameBuilder, Headers, HeadersBuilder, SkipVisitor, _SUFFIX_NAGS, _logger,
)
from ._rookery import Game as GameRecord
from ._rookery import GameReader, HeaderReader, PositionReader, positions, read_games
from ._rookery import read_game_parsed as _read_game_parsed
from ._rookery import read_game_text as _read_game_text
from ._rookery import read_headers as _read_headers_in_bulk

# One movetext token: a comment's start, a rest-of-line comment, variation
# brackets, a NAG, a result, a move suffix, a move (SAN-shaped: squares,
# castling, drops, null moves). Anything else (move numbers, check signs,
# stray words) is passed over a character at a time, as python-chess does.
_TOKEN = re.compile(r"""
    (?P<comment>\{)
  | (?P<line_comment>;.*)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$\d+)
  | (?P<result>1-0|0-1|1/2-1/2|\*)
  | (?P<suffix>[!?]{1,2})
  | (?P<san>[NBKRQ]?[a-h]?[1-8]?[-x]?[a-h][1-8](?:=?[nbrqkNBRQK])?
           |[PNBRQK]?@[a-h][1-8]|--|Z0|0000|@@@@|O-O(?:-O)?|0-0(?:-0)?)
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)


class _Lines:
    """The movetext lines of a game (read from its handle by
    ``_read_game_text`` or ``_read_game_parsed``), one at a time; the empty
    string at the end."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.lines.reverse()

    def read(self) -> str:
        return self.lines.pop() if self.lines else ""

    def unread(self) -> None:
        pass  # the handle was left where the game ends


_new = object.__new__
_MOVE_ERRORS = (_InvalidMoveError, _IllegalMoveError, _AmbiguousMoveError)


def read_game(handle: TextIO, *, Visitor: Callable[[], BaseVisitor] = GameBuilder) -> Any:
    """Reads the next game of a text handle into ``Visitor()`` (a game tree
    by default) and returns the visitor's result; None at the end of the
    input. The handle is left right after the game.

    A game's tags end at its movetext (an empty line between tags is
    allowed, two end them); its movetext ends at an empty line outside a
    comment or at the tags of the next game. Illegal or ambiguous moves go
    to the visitor's ``handle_error`` (``game.errors``, logged) and the rest
    of their variation is skipped.

    The lines are read in Rust; with the default visitor, the movetext of a
    game from the standard start position is parsed in Rust too, and the
    game's nodes are made when first asked for (``mainline_moves()`` of a
    game not yet looked into reads the moves without making them).
    """
    if Visitor is GameBuilder:
        got = _read_game_parsed(handle)
        if got is None:
            return None
        if got[2] is not None:
            return _lazy_game(got[0], got[1], got[2])
    else:
        got = _read_game_text(handle)
        if got is None:
            return None
    tag_pairs, movetext = got[0], got[1]
    visitor = Visitor()
    visitor.begin_game()
    skip_headers = visitor.begin_headers() is SKIP
    tags = {}
    for name, value in tag_pairs:
        tags[name] = value
        if not skip_headers:
            visitor.visit_header(name, value)

    skip_movetext = visitor.end_headers() is SKIP
    board: Optional[Board] = None
    if not skip_movetext:
        try:
            board = Headers(tags).board()
        except ValueError as error:
            visitor.handle_error(error)
            skip_movetext = True
    if board is not None:
        visitor.visit_board(board)
    if not skip_movetext:
        lines = _Lines(movetext)
        _Movetext(visitor, board, skip_movetext).run(lines, lines.read())
    visitor.end_game()
    return visitor.result()


def _lazy_game(roster: Dict[str, str], others: Dict[str, str], parsed: Any) -> Game:
    """The game ``GameBuilder`` builds, from the tags and the movetext as
    read (its nodes made when first asked for), as ``_read_game_parsed``
    gives them: the Seven Tag Roster and the other
    tags as the dicts ``Headers`` keeps (names and values as the tag-line
    pattern reads them, which ``Headers`` takes)."""
    headers = _new(Headers)
    headers._tag_roster = roster
    headers._others = others
    game = _new(Game)
    # What ``Game()`` sets, set directly.
    game.__dict__.update({
        "parent": None, "move": None, "_variations": [], "_comment": "", "starting_comment": "",
        "_nags": set(), "headers": headers, "errors": [], "_lazy": parsed})
    result, errors = parsed.result, parsed.errors
    for kind, message in errors:
        error = _MOVE_ERRORS[kind](message)
        _logger().error("%s while parsing %r", error, game)
        game.errors.append(error)
    if result is not None and roster["Result"] == "*":
        roster["Result"] = result
    return game


class _Movetext:
    """The movetext of one game, token by token, into a visitor."""

    def __init__(self, visitor: BaseVisitor, board: Optional[Board], skip: bool) -> None:
        self.visitor = visitor
        self.boards: List[Board] = [board] if board is not None else []
        self.skip_all = skip or board is None
        self.skip_variation = 0  # depth inside a variation the visitor skips
        self.error_skip = False  # the rest of the current variation, after an error
        self.error_depth = 0
        self.comment: Optional[List[str]] = None
        self.started = False

    def run(self, lines: _Lines, line: str) -> None:
        while line:
            if self.comment is not None:
                rest = self.in_comment(line)
                if rest is not None:
                    rest = self.tokens(rest)
                line = rest if rest is not None else lines.read()
                continue
            stripped = line.strip()
            if not stripped:
                if self.started and self.comment is None:
                    return
                line = lines.read()
                continue
            if stripped.startswith("%") and self.comment is None:
                line = lines.read()
                continue
            if stripped.startswith("[") and self.comment is None:
                lines.unread()
                return
            self.started = True
            rest = self.tokens(line)
            line = rest if rest is not None else lines.read()
        if self.comment is not None:
            # A comment the input ends in: kept, as python-chess keeps it.
            text = "".join(self.comment).strip(" \t")
            self.comment = None
            if not self.skipping():
                self.visitor.visit_comment(text)

    def in_comment(self, line: str) -> Optional[str]:
        """Adds ``line`` to the open comment; the rest of the line after the
        comment's end, or None if it goes on."""
        end = line.find("}")
        assert self.comment is not None
        if end < 0:
            self.comment.append(line)
            return None
        self.comment.append(line[:end])
        text = "".join(self.comment).strip(" \t")
        self.comment = None
        if not self.skipping():
            self.visitor.visit_comment(text)
        return line[end + 1:] or "\n"

    def skipping(self) -> bool:
        return self.skip_all or self.skip_variation > 0 or self.error_skip

    def tokens(self, line: str) -> Optional[str]:
        """Reads the tokens of a line; the rest of it if a comment ends on
        it, None when the line is done."""
        pos = 0
        while pos < len(line):
            match = _TOKEN.match(line, pos)
            assert match is not None, "the last alternative matches any character"
            kind, token = match.lastgroup, match.group()
            pos = match.end()
            if kind == "comment":
                self.comment = []
                rest = self.in_comment(line[pos:])
                if rest is None:
                    return None
                line, pos = rest, 0
            elif kind == "line_comment":
                return None
            elif kind == "open":
                self.open_variation()
            elif kind == "close":
                self.close_variation()
            elif self.skipping():
                continue
            elif kind == "nag":
                self.visitor.visit_nag(int(token[1:]))
            elif kind == "suffix":
                if token in _SUFFIX_NAGS:
                    self.visitor.visit_nag(_SUFFIX_NAGS[token])
            elif kind == "result":
                if len(self.boards) == 1:
                    self.visitor.visit_result(token)
            elif kind == "san":
                self.move(token)
        return None

    def open_variation(self) -> None:
        if self.skip_all:
            return
        if self.skip_variation:
            self.skip_variation += 1
            return
        if self.error_skip:
            self.error_depth += 1
            return
        board = self.boards[-1]
        if not board.move_stack:
            return  # nothing to branch from: a stray bracket
        if self.visitor.begin_variation() is SKIP:
            self.skip_variation = 1
            return
        before = board.copy()
        before.pop()
        self.boards.append(before)

    def close_variation(self) -> None:
        if self.skip_all:
            return
        if self.skip_variation:
            self.skip_variation -= 1
            return
        if self.error_skip:
            if self.error_depth:
                self.error_depth -= 1
                return
            self.error_skip = False
        if len(self.boards) > 1:
            self.boards.pop()
            self.visitor.end_variation()

    def move(self, san: str) -> None:
        board = self.boards[-1]
        if self.visitor.begin_parse_san(board, san) is SKIP:
            self.error_skip, self.error_depth = True, 0
            return
        try:
            move = self.visitor.parse_san(board, san)
        except ValueError as error:
            self.visitor.handle_error(error)
            self.error_skip, self.error_depth = True, 0
            return
        self.visitor.visit_move(board, move)
        board.push(move)
        self.visitor.visit_board(board)


def skip_game(handle: TextIO) -> bool:
    """Skips the next game of a text handle; False at the end of the input."""
    return bool(read_game(handle, Visitor=SkipVisitor))


def read_headers(handle: Union[TextIO, str, "os.PathLike[str]"]) -> Any:
    """python-chess's ``read_headers``: the tags of the next game of a text
    handle (``Headers``, None at the end of the input), the movetext skipped.

    Given a path, rookery's bulk reader instead: an iterator of the tag
    dicts of every game of the file (compressed files too), read in Rust.
    """
    if isinstance(handle, (str, bytes, os.PathLike)):
        return _read_headers_in_bulk(handle)
    return read_game(handle, Visitor=HeadersBuilder)


def __getattr__(name: str) -> Any:
    # ``LOGGER``, made when first asked for (see ``_gametree``).
    if name == "LOGGER":
        return _logger()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [name for name in dir() if not name.startswith("_") and name not in (
    "os", "re", "Any", "Callable", "Dict", "List", "Optional", "TextIO", "Union", "TYPE_CHECKING",
    "annotations")] + ["LOGGER"]
