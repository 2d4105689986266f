"""``import rookery`` stays light: its submodules, ``logging`` and
``dataclasses`` are imported when first used, and what they give is the same."""

import subprocess
import sys

import chess

import rookery


def test_import_leaves_heavy_modules_alone():
    code = ("import sys, rookery\n"
            "print(sorted(m for m in ('logging', 'dataclasses', 'typing', 'rookery.pgn', 'rookery.db', 'rookery.polyglot')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    code = "import sys, rookery.pgn\nprint(sorted(m for m in ('logging', 'dataclasses', 'typing') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_typing_alias_on_first_use():
    assert rookery.IntoSquareSet == chess.IntoSquareSet
    assert "IntoSquareSet" in rookery.__all__
    assert "annotations" not in rookery.__all__ and "TYPE_CHECKING" not in rookery.__all__
    assert "annotations" not in rookery.pgn.__all__ and "TYPE_CHECKING" not in rookery.pgn.__all__


def test_submodules_on_first_use():
    import rookery.db
    import rookery.epd
    import rookery.polyglot
    assert rookery.pgn.read_game is sys.modules["rookery.pgn"].read_game
    assert rookery.db is sys.modules["rookery.db"]
    assert {"pgn", "db", "epd", "engine", "polyglot"} <= set(rookery.__all__)
    try:
        rookery.no_such_name
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("an unknown name is an AttributeError")


def test_logger_on_first_use():
    import logging

    from rookery.pgn import LOGGER
    assert LOGGER is logging.getLogger("rookery.pgn") is rookery.pgn.LOGGER
    assert "LOGGER" in rookery.pgn.__all__


def test_outcome_as_python_chess_dataclass():
    for termination in rookery.Termination:
        for winner in (True, False, None):
            ours = rookery.Outcome(termination, winner)
            theirs = chess.Outcome(chess.Termination[termination.name], winner)
            assert repr(ours) == repr(theirs)
            assert ours == rookery.Outcome(termination, winner)
            assert ours != rookery.Outcome(termination, not winner)
            assert ours.result() == theirs.result()
    assert rookery.Outcome.__hash__ is None and chess.Outcome.__hash__ is None
    assert rookery.Outcome(rookery.Termination.CHECKMATE, True) != (rookery.Termination.CHECKMATE, True)
    assert rookery.Outcome.__match_args__ == chess.Outcome.__match_args__
