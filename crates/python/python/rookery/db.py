"""The indexed game database of ``rookery db``: import once, then ask in milliseconds.

``open(path)`` gives a ``Database``: ``import_pgn`` (plain or compressed PGN,
one transaction), ``explore`` (the opening explorer, as a dict in the shape of
lichess's explorer API), ``search`` (the numbers of the games that pass
``rookery pgn filter``'s tests), ``scout`` (a Scoutfish query, sequences and
streaks among them: the games and the plies it is met at), ``pgn`` (a game as
PGN text), and ``games`` /
``game`` (python-chess-shaped games, as ``rookery.pgn.read_game`` reads them).
The files are ``rookery db``'s (the same Rust code writes and reads them):
a database imported on the command line opens here, and the other way round.

>>> import builtins, os, tempfile, rookery.db
>>> folder = tempfile.mkdtemp()
>>> pgn = os.path.join(folder, "two.pgn")
>>> with builtins.open(pgn, "w") as f:
...     _ = f.write('[White "Ann"]\\n[Black "Bob"]\\n[Result "1-0"]\\n\\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\\n\\n'
...                 '[White "Bob"]\\n[Black "Ann"]\\n[Result "0-1"]\\n\\n1. e4 c5 0-1\\n')
>>> db = rookery.db.open(os.path.join(folder, "games.rdb"), create=True)
>>> db.import_pgn([pgn])["games"]
2
>>> answer = db.explore()
>>> answer["white"], answer["black"], [m["san"] for m in answer["moves"]]
(1, 1, ['e4'])
>>> sorted(m["uci"] for m in db.explore(play=["e2e4"])["moves"])
['c7c5', 'e7e5']
>>> db.search(player="ann", result="1-0")
[1]
>>> db.scout({"sequence": [{"white-move": "Qh5"}, {"black-move": "Nf6"}], "result-type": "mate"})
[(1, [2, 5])]
>>> game = db.game(1)
>>> game.headers["White"], len(list(game.mainline_moves()))
('Ann', 7)
"""

import io
import os
from typing import Iterable, Iterator, List, Optional, Union

from ._rookery import Database as _Database

__all__ = ["Database", "open"]


class Database(_Database):
    """An indexed game database (see the module): ``len(db)`` games,
    ``info()``, ``import_pgn``, ``explore``, ``search``, ``scout``, ``pgn``, and the
    games python-chess-shaped."""

    def game(self, id: int):  # noqa: A002 - python-chess's word
        """Game number ``id`` (from 1) as a python-chess-shaped game
        (``rookery.pgn.Game``: headers, mainline, ``board()``); ``None``
        if there is none."""
        from . import pgn

        text = self.pgn(id)
        if text is None:
            return None
        return pgn.read_game(io.StringIO(text))

    def games(self, ids: Optional[Iterable[int]] = None) -> Iterator:
        """The games numbered ``ids`` (default: every game, in order) as
        python-chess-shaped games; ``KeyError`` for a number with no game.
        ``db.games(db.search(player="Carlsen"))`` reads the games a search
        found."""
        numbers = range(1, len(self) + 1) if ids is None else ids
        for number in numbers:
            game = self.game(number)
            if game is None:
                raise KeyError(number)
            yield game

    def search_games(self, **tests) -> List:
        """The games that pass ``search``'s tests (its keyword arguments),
        as python-chess-shaped games."""
        return list(self.games(self.search(**tests)))


def open(path: Union[str, "os.PathLike[str]"], *, create: bool = False) -> Database:  # noqa: A001 - the module's verb
    """The database at ``path``; ``create=True`` makes an empty one if there
    is none (else ``FileNotFoundError``)."""
    return Database(os.fspath(path), create=create)
