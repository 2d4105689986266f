"""What the python-chess checks share: the games of a PGN text, as
python-chess reads them."""
import chess.pgn


def read_games(handle):
    """The games python-chess reads from the open PGN text `handle`, one
    after the other to its end."""
    while (game := chess.pgn.read_game(handle)) is not None:
        yield game
