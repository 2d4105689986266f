"""PGN: ``read_games`` (every move played and checked), ``read_headers``
(movetext skipped), ``positions`` (NumPy batches for training sets).

>>> import io, rookery.pgn
>>> game = next(rookery.pgn.read_games(io.StringIO('[White "A"]\\n\\n1. e4 {[%clk 0:03:00]} e5 1-0\\n')))
>>> game.headers["White"], game.moves, game.sans, game.clocks, game.result
('A', ['e2e4', 'e7e5'], ['e4', 'e5'], [180.0, None], '1-0')
"""

from ._rookery import Game, GameReader, HeaderReader, PositionReader, positions, read_headers, read_games

__all__ = ["Game", "GameReader", "HeaderReader", "PositionReader", "positions", "read_headers", "read_games"]
