"""What Python users rely on, beside the chess: Ctrl-C stops a long read,
an exception a file object raises comes out as it is, an error's line is
counted from the start of the file whatever the handle had read, and a
comment of any length is kept (python-chess is the reference where it has
the feature)."""

import io
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import rookery.pgn
from conftest import TWIC, need_python_chess

# A long bound on purpose: the test asks whether Ctrl-C stops the read at
# all (without the fix it runs for as long as the input lasts), not how
# fast.
STOP_BOUND = 60

# The child reads an endless input (a named pipe a thread keeps writing
# The Week in Chess into) and says so on stdout; KeyboardInterrupt ends it
# with exit code 3.
CHILD = textwrap.dedent("""
    import os, sys, threading
    import rookery.pgn
    pipe, what, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]) or None
    text = open(sys.argv[4], encoding="utf-8").read()

    def feed():
        try:
            with open(pipe, "w", encoding="utf-8") as f:
                while True:
                    f.write(text)
        except OSError:
            pass

    threading.Thread(target=feed, daemon=True).start()
    if what == "games":
        reader = rookery.pgn.read_games(pipe, jobs=jobs)
    else:
        reader = rookery.pgn.positions(pipe, jobs=jobs)
    print("reading", flush=True)
    try:
        list(reader)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        os._exit(3)
    print("ended", flush=True)
    os._exit(0)
""")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("what", ["games", "positions"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_stops_a_long_read(tmp_path, what, jobs):
    if what == "positions":
        pytest.importorskip("numpy")
    pipe = tmp_path / "endless.pgn"
    os.mkfifo(pipe)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(pipe), what, str(jobs), str(TWIC)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout.readline().strip() == "reading"
        # Let the read get going, deep in a list() of an endless input.
        time.sleep(1.0)
        assert child.poll() is None, "the endless read ended by itself"
        child.send_signal(signal.SIGINT)
        try:
            code = child.wait(timeout=STOP_BOUND)
        except subprocess.TimeoutExpired:
            pytest.fail(f"Ctrl-C did not stop list({what}) within {STOP_BOUND} s")
        assert code == 3, f"the child ended with {code}, not by KeyboardInterrupt"
        assert child.stdout.read().strip() == "interrupted"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


GAME = '[Event "e"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 *\n\n'


class Boom(Exception):
    """An exception no reader knows."""


class FailingFile:
    """A file object whose `read()` gives `good` first, then raises Boom."""

    def __init__(self, good, text=False):
        self.left = good if text else good.encode()
        self.failed = False

    def read(self, n=-1):
        if not self.left:
            self.failed = True
            raise Boom("the disk is on fire")
        out, self.left = self.left[:n], self.left[n:]
        return out


@pytest.mark.parametrize("text", [False, True])
@pytest.mark.parametrize("good", ["", GAME * 3])
@pytest.mark.parametrize("reader", ["read_games", "read_games jobs=2", "positions", "read_headers"])
def test_an_exception_of_read_keeps_its_type(good, reader, text):
    if reader == "positions":
        pytest.importorskip("numpy")
    f = FailingFile(good, text)
    with pytest.raises(Boom, match="the disk is on fire"):
        if reader == "read_games":
            list(rookery.pgn.read_games(f))
        elif reader == "read_games jobs=2":
            list(rookery.pgn.read_games(f, jobs=2))
        elif reader == "positions":
            list(rookery.pgn.positions(f))
        else:
            list(rookery.pgn._read_headers_in_bulk(f))
    assert f.failed


class FailingLines(io.StringIO):
    """A text handle whose lines run out in an exception."""

    def readline(self, *args):
        line = super().readline(*args)
        if not line:
            raise Boom("the disk is on fire")
        return line


def test_read_game_lets_the_exception_through_as_python_chess():
    chess = need_python_chess()
    for read_game in (rookery.pgn.read_game, chess.pgn.read_game):
        handle = FailingLines(GAME + GAME.replace(" *\n", ""))
        assert read_game(handle) is not None
        with pytest.raises(Boom):
            read_game(handle)


# Three games; the third has an illegal move ("Bxe5" at line 17, column 14).
THREE = (
    '[Event "one"]\n[White "Ä"]\n[Result "*"]\n\n1. e4 e5 *\n\n'
    '[Event "two"]\n[White "é"]\n[Result "*"]\n\n1. d4 d5 *\n\n'
    '[Event "three"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6\n3. Bb5 a6 4. Bxe5 Nf6 *\n'
)


def where_the_error_is(text):
    """The line (from 1) and byte column (from 1) of "Bxe5" in `text`."""
    before = text[: text.index("Bxe5")].encode()
    line_start = before.rfind(b"\n") + 1
    return before.count(b"\n") + 1, len(before) - line_start + 1


def skip_a_game(handle):
    """Reads the first game's six lines, as a script that looked at it
    before handing the handle over would."""
    for _ in range(6):
        handle.readline()


@pytest.mark.parametrize("jobs", [None, 2])
@pytest.mark.parametrize("kind", ["binary file", "text file", "BytesIO", "StringIO"])
def test_error_lines_count_from_the_start_of_the_file(tmp_path, kind, jobs):
    path = tmp_path / "three.pgn"
    path.write_text(THREE, encoding="utf-8")
    line, column = where_the_error_is(THREE)
    assert (line, column) == (17, 14)
    handle = {
        "binary file": lambda: open(path, "rb"),
        "text file": lambda: open(path, encoding="utf-8"),
        "BytesIO": lambda: io.BytesIO(THREE.encode()),
        "StringIO": lambda: io.StringIO(THREE),
    }[kind]()
    with handle:
        skip_a_game(handle)
        games = list(rookery.pgn.read_games(handle, jobs=jobs))
    assert [g.headers["Event"] for g in games] == ["two", "three"]
    assert [g.line for g in games] == [7, 13]
    (err,) = games[1].errors
    assert (err.line, err.column) == (line, column)


def test_lines_count_from_where_an_unseekable_handle_stands():
    """A handle that cannot go back cannot be counted: its lines count from
    where it stood (the error still names the right line of what was read)."""

    class Unseekable(io.BytesIO):
        def seekable(self):
            return False

    handle = Unseekable(THREE.encode())
    skip_a_game(handle)
    games = list(rookery.pgn.read_games(handle))
    (err,) = games[1].errors
    assert err.line == 17 - 6


# A comment longer than the Rust reader's default bound on a token (16 MiB).
LONG = 17 << 20


def long_comment_game():
    words = "a long comment " * (LONG // 15 + 1)
    return f'[Event "long"]\n[Result "*"]\n\n1. e4 {{ {words}}} e5 *\n\n[Event "next"]\n[Result "*"]\n\n1. d4 *\n'


@pytest.mark.parametrize("jobs", [None, 2])
def test_a_comment_of_17_mib_is_kept_as_python_chess_keeps_it(tmp_path, jobs):
    chess = need_python_chess()
    text = long_comment_game()
    path = tmp_path / "long.pgn"
    path.write_text(text, encoding="utf-8")
    with open(path, encoding="utf-8") as f:
        expected = chess.pgn.read_game(f).next().comment
    assert len(expected) >= LONG
    games = list(rookery.pgn.read_games(path, jobs=jobs))
    assert [g.headers["Event"] for g in games] == ["long", "next"]
    assert games[0].comments == [expected, ""]
    assert games[0].sans == ["e4", "e5"] and games[0].errors == []
    # The one-game-at-a-time reader too.
    with open(path, encoding="utf-8") as f:
        assert rookery.pgn.read_game(f).next().comment == expected
