"""read_game, read_headers and skip_game on files opened with open(): a
UTF-8 file is read as bytes from its buffer (rookery.pgn's fast path), other
handles and lines line by line. Both ways must give the same games and
leave the handle at the same place; here the file is read both ways, with
lines read by the script between games, in several encodings and newline
modes."""

import io

import pytest

import rookery.pgn
from conftest import TWIC

GAMES = (
    '[Event "A"]\n[White "Ré"]\n\n1. e4 { a comment\nover two lines } e5 2. Nf3 $1 (2. f4 exf4) 1-0\n\n'
    '% an escaped line\n[Event "B"]\n[Black "Ü"]\n\n1. d4 d5 2. c4 *\n'
    '[Event "C: no empty line before it"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\n\n'
    '[Event "D"]\n\n1. e4 ; a rest-of-line comment\ne5 2. Ke2 Zz9 0-1\n\n'
    '1. c4 { no tags } 1/2-1/2\n'
)

CONTENTS = {
    "lf": GAMES.encode(),
    "crlf": GAMES.replace("\n", "\r\n").encode(),
    "cr": GAMES.replace("\n", "\r").encode(),
    "bom": b"\xef\xbb\xbf" + GAMES.encode(),
    "latin-1": GAMES.encode("latin-1"),
    "twic": TWIC.read_bytes()[:200_000],
}

MODES = {
    "utf-8": {"encoding": "utf-8"},
    "newline='\\n'": {"encoding": "utf-8", "newline": "\n"},
    "newline='\\r'": {"encoding": "utf-8", "newline": "\r"},
    "newline='\\r\\n'": {"encoding": "utf-8", "newline": "\r\n"},
    "replace": {"encoding": "utf-8", "errors": "replace"},
    "newline=''": {"encoding": "utf-8", "errors": "replace", "newline": ""},
    "latin-1": {"encoding": "latin-1"},
    "utf-8-sig": {"encoding": "utf-8-sig", "errors": "replace"},
}


def _read_all(handle, read, between):
    """What ``read`` gives game after game, with a line read by the script
    after every ``between``-th game, and the rest of the handle at the end."""
    out = []
    n = 0
    while True:
        got = read(handle)
        if got is None or got is False:
            break
        out.append(str(got) if not isinstance(got, rookery.pgn.Game) else (str(got), [str(e) for e in got.errors]))
        n += 1
        if between and n % between == 0:
            out.append(("line", handle.readline()))
    out.append(("rest", handle.read()))
    return out


class _LineByLine:
    """A file seen through methods of its own: not an io.TextIOWrapper, so
    read line by line through its readline (the reference)."""

    def __init__(self, f):
        self.f = f

    def readline(self, *args):
        return self.f.readline(*args)

    def read(self, *args):
        return self.f.read(*args)

    def tell(self):
        return self.f.tell()

    def seek(self, *args):
        return self.f.seek(*args)

    def seekable(self):
        return self.f.seekable()


READERS = {
    "read_game": rookery.pgn.read_game,
    "read_headers": rookery.pgn.read_headers,
    "skip_game": rookery.pgn.skip_game,
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("between", [0, 2])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("content", CONTENTS)
def test_file_as_text(tmp_path, content, mode, between, reader):
    path = tmp_path / "games.pgn"
    path.write_bytes(CONTENTS[content])
    options = MODES[mode]
    try:
        with open(path, **options) as whole:
            whole.read()
    except UnicodeDecodeError:
        with open(path, **options) as f, pytest.raises(UnicodeDecodeError):
            _read_all(f, READERS[reader], between)
        return
    with open(path, **options) as f:
        expected = _read_all(_LineByLine(f), READERS[reader], between)
    with open(path, **options) as f:
        assert _read_all(f, READERS[reader], between) == expected


def test_handle_moved_by_the_script(tmp_path):
    """A handle read with readline() part-way through a game's line, or
    set back with seek(), is read from where it stands."""
    path = tmp_path / "games.pgn"
    path.write_bytes(CONTENTS["lf"])
    with open(path, encoding="utf-8") as f:
        first = rookery.pgn.read_game(f)
        place = f.tell()
        second = rookery.pgn.read_game(f)
        f.seek(place)
        assert str(rookery.pgn.read_game(f)) == str(second)
        f.seek(0)
        assert str(rookery.pgn.read_game(f)) == str(first)
        f.seek(0)
        f.read(3)  # inside the first tag line: read as text from there on
        assert rookery.pgn.read_game(f).headers["Event"] == "?"


def test_iterated_handle_raises_as_before(tmp_path):
    """A handle iterated with next() cannot tell: an OSError, as the line
    by line reader gives."""
    path = tmp_path / "games.pgn"
    path.write_bytes(CONTENTS["lf"])
    with open(path, encoding="utf-8") as f:
        next(f)
        with pytest.raises(OSError):
            rookery.pgn.read_game(f)


def test_game_not_looked_into_copied_and_pickled():
    """A game read but not yet looked into keeps its movetext in Rust; it
    is copied, deep-copied and pickled as a game made of nodes is."""
    import copy
    import pickle

    text = '[White "A"]\n\n1. e4 { best } e5 (1... c5 2. Nf3 $1) 2. Nf3 Nc6 1-0\n\n1. d4 d5 *\n'
    for index in range(2):
        handle = io.StringIO(text)
        for _ in range(index):
            rookery.pgn.read_game(handle)
        expected = rookery.pgn.read_game(io.StringIO(text[handle.tell():]))
        expected_text, expected_moves = str(expected), list(expected.mainline_moves())
        for make in (copy.copy, copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))):
            game = rookery.pgn.read_game(io.StringIO(text[handle.tell():]))
            other = make(game)
            assert list(other.mainline_moves()) == expected_moves
            assert str(other) == expected_text
            assert str(game) == expected_text
            other = make(rookery.pgn.read_game(io.StringIO(text[handle.tell():])))
            assert str(other) == expected_text
            assert list(other.mainline_moves()) == expected_moves
