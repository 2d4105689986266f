"""rookery.pgn's game trees (read_game, one game at a time from a text
handle) against python-chess 1.11.2's on the repository's PGN files: the
same games in export format (tags, moves, variations, comments, NAGs), the
same number of errors, the handle left at the same place."""

import io
import logging

import pytest

import rookery.pgn
from conftest import PGN_DATA, TWIC, need_python_chess, text_of
from test_pgn import OTHER_RULES

# Games per file compared (the two 10,000-game files would take minutes).
GAMES_PER_FILE = 400

FILES = [TWIC] + sorted(p for p in PGN_DATA.glob("**/*.pgn") if p.name not in OTHER_RULES)

# Where python-chess's line-oriented recovery differs from rookery's
# reader, by file: the games (counted from 0) that differ, and why.
DIVERGENT = {
    # A game whose result is followed at once by the next game's tags
    # (no empty line): python-chess reads those tags as movetext and loses
    # them; rookery starts the next game there.
    "pe-stalemate.pgn": {0, 1},
    # An illegal move in a variation inside a variation (7. Bc4 (Bb3?)):
    # python-chess loses its place and drops the rest of the game (three
    # errors); rookery skips the rest of the inner variation only (one).
    "pgn_test.pgn": {1},
}


def differences(chess, path):
    """The games of `path` that python-chess and rookery read differently."""
    text = text_of(path)
    theirs, ours = io.StringIO(text), io.StringIO(text)
    differ = set()
    for index in range(GAMES_PER_FILE):
        pc = chess.pgn.read_game(theirs)
        game = rookery.pgn.read_game(ours)
        if pc is None or game is None:
            assert (pc is None) == (game is None), f"{path.name}: game count differs at {index}"
            break
        if (str(game), len(game.errors), ours.tell()) != (str(pc), len(pc.errors), theirs.tell()):
            differ.add(index)
    return differ


@pytest.fixture(autouse=True)
def quiet_errors():
    """Both readers log the errors they meet; the tests count them."""
    logging.disable(logging.ERROR)
    yield
    logging.disable(logging.NOTSET)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_same_trees_as_python_chess(path):
    chess = need_python_chess()
    assert differences(chess, path) == set()


@pytest.mark.parametrize("name", sorted(DIVERGENT))
def test_where_the_readers_diverge(name):
    chess = need_python_chess()
    assert differences(chess, PGN_DATA / name) == DIVERGENT[name]


def test_a_tree_round_trips_through_export():
    text = "1. e4 { best } e5 ( 1... c5 2. Nf3 $1 ) 2. Nf3 Nc6 *"
    game = rookery.pgn.read_game(io.StringIO(text))
    again = rookery.pgn.read_game(io.StringIO(str(game)))
    assert str(again) == str(game)
    assert game.accept(rookery.pgn.StringExporter(headers=False)) == (
        "1. e4 { best } 1... e5 ( 1... c5 2. Nf3 $1 ) 2. Nf3 Nc6 *")
