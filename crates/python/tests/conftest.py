"""Shared helpers of the rookery pytest suite.

The data are the repository's own test files, read where the Rust tests keep
them (crates/*/tests/data, see the SOURCES.md there); nothing is copied.
python-chess 1.11.2 is the peer: CI installs exactly that version, and a test
that needs it fails under CI (the CI variable set) when it is missing, and is
skipped with a note otherwise.
"""

import os
import random
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PGN_DATA = REPO / "crates" / "pgn" / "tests" / "data"
EPD_SUITES = REPO / "crates" / "epd" / "tests" / "data" / "suites"
# Every tenth game of The Week in Chess 920 (225 games), kept for the CLI tests.
TWIC = REPO / "crates" / "cli" / "tests" / "data" / "eco" / "twic0920-every10th.pgn"
# The whole issue, where the shared data sit beside the checkout (not in it):
# ../shared/data, or ../../shared/data from a worktree.
TWIC_FULL = next(
    (d / "shared" / "data" / "pgn" / "twic0920.pgn" for d in (REPO.parent, REPO.parent.parent)
     if (d / "shared" / "data" / "pgn" / "twic0920.pgn").exists()),
    REPO.parent / "shared" / "data" / "pgn" / "twic0920.pgn",
)

PYTHON_CHESS = "1.11.2"


def need_python_chess():
    """python-chess, exactly the version the expectations were checked with."""
    try:
        import chess  # noqa: F401
        import chess.pgn  # noqa: F401
        import chess.polyglot  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("python-chess is not installed (CI is set: peers must be present)")
        pytest.skip("python-chess is not installed")
    import chess

    if chess.__version__ != PYTHON_CHESS:
        message = f"python-chess {chess.__version__} installed, the tests need {PYTHON_CHESS}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return chess


def random_walks(chess, seed, games, plies):
    """Seeded random games from the start, played side by side on a
    rookery Board and a python-chess Board (`chess`, the module): yields
    `(ours, theirs, legal)` at each position, `legal` being python-chess's
    legal moves there, then plays one of them drawn at random on both. A
    game ends after `plies` positions, or at one with no legal move."""
    import rookery

    rng = random.Random(seed)
    for _ in range(games):
        ours, theirs = rookery.Board(), chess.Board()
        for _ in range(plies):
            legal = list(theirs.legal_moves)
            yield ours, theirs, legal
            if not legal:
                break
            move = rng.choice(legal)
            ours.push_uci(move.uci())
            theirs.push(move)


@pytest.fixture
def chess():
    return need_python_chess()


def text_of(path):
    """The file as rookery reads it: UTF-8, a line that is not UTF-8 read
    as Latin-1, a byte order mark dropped."""
    lines = []
    for raw in path.read_bytes().splitlines(keepends=True):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(raw.decode("latin-1"))
    return "".join(lines).lstrip("\ufeff")


def squash(text):
    """Whitespace runs as one space, none at the ends (rookery normalises
    comments so; python-chess keeps line breaks)."""
    return " ".join(text.split())
