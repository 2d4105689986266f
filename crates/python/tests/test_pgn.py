"""rookery.pgn against python-chess 1.11.2 on the repository's PGN files:
the same games, tags, moves, results, comments, NAGs, clocks, evaluations
and FEN at every ply; errors with line and column; several threads and
compressed input giving the same games."""

import bz2
import gzip
import io

import pytest

import rookery
import rookery.pgn
from conftest import PGN_DATA, TWIC, TWIC_FULL, need_python_chess, squash, text_of

# Files python-chess reads by other rules than rookery's reader, on purpose:
# the malformed files are listed with the reason in DIVERGENT of
# crates/pgn/tests/python_chess.rs (python-chess is line-oriented where the
# standard is token-oriented; pgn-extract reads them as rookery does), which
# checks them with the same reader these bindings call; then variants rookery
# does not play, and a file nested 100,000 deep.
OTHER_RULES = {
    "pe-nobadresults.pgn": "see crates/pgn/tests/python_chess.rs",
    "pe-fuzzydepth.pgn": "see crates/pgn/tests/python_chess.rs",
    "pe-stalemate.pgn": "see crates/pgn/tests/python_chess.rs",
    "pe-checkmate.pgn": "see crates/pgn/tests/python_chess.rs",
    "chessjs-0-br-newlines.pgn": "see crates/pgn/tests/python_chess.rs",
    "pe-nested-comment.pgn": "see crates/pgn/tests/python_chess.rs",
    "pgn_test.pgn": "see crates/pgn/tests/python_chess.rs",
    "antichess-programfox.pgn": "antichess: python-chess plays the variant, rookery reports it",
    "crazyhouse-knightvuillaume-jannlee.pgn": "crazyhouse: likewise",
    "nested-100000.pgn": "100,000 nested variations exceed python-chess's recursion",
}

FILES = [TWIC] + sorted(p for p in PGN_DATA.glob("**/*.pgn") if p.name not in OTHER_RULES)


def python_chess_games(chess, path):
    stream = io.StringIO(text_of(path))
    games = []
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            return games
        games.append(game)


def expected(chess, pc):
    """What rookery should say of python-chess's game `pc`."""
    nodes = list(pc.mainline())
    board = pc.board()
    fens = [board.fen()]
    for node in nodes:
        board.push(node.move)
        fens.append(board.fen())
    evals = []
    for node in nodes:
        e = node.eval()
        evals.append(None if e is None else e.white().score(mate_score=rookery.MATE_SCORE))
    return {
        "moves": [n.move.uci() for n in nodes],
        "sans": [n.san() for n in nodes],
        "fens": fens,
        "comments": [squash(n.comment) for n in nodes],
        "nags": [sorted(n.nags) for n in nodes],
        "clocks": [n.clock() for n in nodes],
        "evals": evals,
        "error": bool(pc.errors),
    }


def actual(game):
    return {
        "moves": game.moves,
        "sans": game.sans,
        "fens": game.fens(),
        "comments": game.comments,
        "nags": [sorted(n) for n in game.nags],
        "clocks": game.clocks,
        "evals": game.evals,
        "error": bool(game.errors),
    }


def same_tags(pc, game):
    """python-chess's headers: the file's tags, the Seven Tag Roster filled
    in, and a missing or `*` Result tag set from the termination marker."""
    mine = dict(game.headers)
    if mine.get("Result", "*") == "*":
        mine["Result"] = game.result
    return list(pc.headers.items()) == list(mine.items())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_same_games_as_python_chess(path):
    chess = need_python_chess()
    theirs = python_chess_games(chess, path)
    ours = list(rookery.pgn.read_games(path))
    assert len(ours) == len(theirs)
    for pc, game in zip(theirs, ours):
        assert same_tags(pc, game), (game.index, dict(pc.headers), game.headers)
        assert actual(game) == expected(chess, pc), game.index


def test_every_game_of_twic0920():
    """The whole issue, when the shared data are beside the repository."""
    if not TWIC_FULL.exists():
        pytest.skip(f"{TWIC_FULL} not here (the every-tenth subset is tested above)")
    test_same_games_as_python_chess(TWIC_FULL)


def test_headers_as_python_chess():
    chess = need_python_chess()
    stream = io.StringIO(text_of(TWIC))
    theirs = []
    while (h := chess.pgn.read_headers(stream)) is not None:
        theirs.append(list(h.items()))
    ours = [list(h.items()) for h in rookery.pgn.read_headers(TWIC)]
    assert len(ours) == 225
    # read_headers leaves Result as the tag says (python-chess too: the
    # movetext, with its marker, is skipped).
    assert ours == theirs


def summary(games):
    return [(g.index, g.line, g.headers["White"], g.moves, g.result, [str(e) for e in g.errors]) for g in games]


@pytest.mark.parametrize("jobs", [2, 3])
def test_jobs_give_the_same_games_in_order(jobs):
    one = summary(rookery.pgn.read_games(TWIC))
    assert summary(rookery.pgn.read_games(TWIC, jobs=jobs)) == one
    # A file object cannot be read at any offset: the stream is cut instead.
    with open(TWIC, "rb") as f:
        assert summary(rookery.pgn.read_games(f, jobs=jobs)) == one


def test_compressed_and_file_objects(tmp_path):
    plain = TWIC.read_bytes()
    one = summary(rookery.pgn.read_games(TWIC))
    gz = tmp_path / "twic.pgn.gz"
    gz.write_bytes(gzip.compress(plain))
    bz = tmp_path / "twic.pgn.bz2"
    bz.write_bytes(bz2.compress(plain))
    assert summary(rookery.pgn.read_games(gz)) == one
    assert summary(rookery.pgn.read_games(str(bz), jobs=2)) == one
    with open(gz, "rb") as f:
        assert summary(rookery.pgn.read_games(f)) == one
    with open(TWIC, encoding="utf-8") as f:
        assert summary(rookery.pgn.read_games(f)) == one
    assert list(rookery.pgn.read_headers(gz)) == list(rookery.pgn.read_headers(TWIC))


def test_truncated_compressed_input_is_an_oserror(tmp_path):
    gz = tmp_path / "cut.pgn.gz"
    data = gzip.compress(TWIC.read_bytes())
    gz.write_bytes(data[: len(data) // 2])
    with pytest.raises(OSError, match="truncated"):
        for _ in rookery.pgn.read_games(gz):
            pass


BROKEN = """[Event "ok"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 1-0

[Event "broken"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6
3. Bb5 a6 4. Bxe5 Nf6 *
"""


def test_a_broken_game_names_line_and_column(tmp_path):
    path = tmp_path / "broken.pgn"
    path.write_text(BROKEN)
    games = list(rookery.pgn.read_games(path))
    assert [g.headers["Event"] for g in games] == ["ok", "broken"]
    assert games[0].errors == []
    (err,) = games[1].errors
    assert isinstance(err, rookery.ParseError) and isinstance(err, ValueError)
    # "4. Bxe5": line 10, the B at column 14.
    assert (err.path, err.line, err.column) == (str(path), 10, 14)
    assert "Bxe5" in err.message
    assert str(err).startswith(f"{path}:10:14: ")
    # The moves before the error are kept.
    assert games[1].sans == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
    # strict: the first broken game raises.
    reader = rookery.pgn.read_games(path, strict=True)
    assert next(reader).headers["Event"] == "ok"
    with pytest.raises(rookery.ParseError) as raised:
        next(reader)
    assert (raised.value.line, raised.value.column) == (10, 14)


def test_python_chess_sees_the_broken_game_too():
    chess = need_python_chess()
    games = python_chess_games_from_text(chess, BROKEN)
    assert [bool(g.errors) for g in games] == [False, True]
    ours = list(rookery.pgn.read_games(io.StringIO(BROKEN)))
    assert [bool(g.errors) for g in ours] == [False, True]
    assert [m.uci() for m in games[1].mainline_moves()] == ours[1].moves


def python_chess_games_from_text(chess, text):
    stream = io.StringIO(text)
    out = []
    while (g := chess.pgn.read_game(stream)) is not None:
        out.append(g)
    return out


def test_to_python_chess_round_trips():
    chess = need_python_chess()
    for game in rookery.pgn.read_games(TWIC):
        pc = game.to_python_chess()
        assert isinstance(pc, chess.pgn.Game)
        assert [m.uci() for m in pc.mainline_moves()] == game.moves
        assert pc.headers["White"] == game.headers["White"]
        assert [squash(n.comment) for n in pc.mainline()] == game.comments
        assert pc.end().board().fen() == game.board_at(-1).fen()
        # and back: python-chess's export read by rookery is the same game.
        (again,) = rookery.pgn.read_games(io.StringIO(str(pc)))
        assert again.moves == game.moves and again.headers == game.headers


def test_board_at():
    game = next(rookery.pgn.read_games(TWIC))
    assert game.board_at(0).fen() == rookery.STARTING_FEN or game.board_at(0).fen() == game.fens()[0]
    for ply, fen in enumerate(game.fens()):
        assert game.board_at(ply).fen() == fen
    assert game.board_at(-1).fen() == game.fens()[-1]
    with pytest.raises(IndexError):
        game.board_at(len(game) + 1)


def test_clocks_and_evals_of_lichess():
    """Where the data are: the lichess sample has both commands."""
    games = list(rookery.pgn.read_games(PGN_DATA / "lichess_db_10k.pgn"))
    assert any(c is not None for g in games for c in g.clocks)
    assert any(e is not None for g in games for e in g.evals)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        rookery.pgn.read_games(tmp_path / "none.pgn")
    with pytest.raises(TypeError):
        rookery.pgn.read_games(42)


def test_result_header_from_the_marker_as_python_chess():
    """Issue 43: without a Result tag (or with `*`), python-chess's
    headers["Result"] is the game-termination marker."""
    chess = need_python_chess()
    for text in [
        "1. d4 1-0",
        "1. d4 *",
        "1. d4",
        '[Result "0-1"]\n\n1. d4 1-0',
        '[Result "*"]\n\n1. d4 0-1',
        '[Result "1/2-1/2"]\n\n1. d4 *',
    ]:
        (ours,) = rookery.pgn.read_games(io.StringIO(text))
        theirs = chess.pgn.read_game(io.StringIO(text))
        assert ours.headers["Result"] == theirs.headers["Result"], text
        assert dict(ours.headers) == dict(theirs.headers), text


def test_a_game_with_null_moves_as_python_chess():
    """Issue 43: a game with null moves (`--`, `Z0`) reads, and its boards
    are python-chess's."""
    chess = need_python_chess()
    text = "1. e4 -- 2. d4 Z0 3. c4 -- 4. Nf3 *\n"
    (ours,) = rookery.pgn.read_games(io.StringIO(text))
    theirs = chess.pgn.read_game(io.StringIO(text))
    assert ours.moves == [m.uci() for m in theirs.mainline_moves()]
    fens = [theirs.board().fen()] + [n.board().fen() for n in theirs.mainline()]
    assert [ours.board_at(ply).fen() for ply in range(len(ours) + 1)] == fens
    assert ours.board_at(-1).fen() == theirs.end().board().fen()
    assert ours.to_python_chess().end().board().fen() == theirs.end().board().fen()


def test_to_python_chess_keeps_comments_on_one_line():
    """Issue 43: the export text handed to python-chess broke comments
    across lines (`[%clk\\n0:05:01]` in python-chess); read from the
    original, python-chess sees no line break."""
    chess = need_python_chess()
    rng = __import__("random").Random(43)
    board = chess.Board()
    parts = []
    for ply in range(80):
        legal = list(board.legal_moves)
        if not legal:
            break
        m = rng.choice(legal)
        if board.turn == chess.WHITE:
            parts.append(f"{board.fullmove_number}.")
        parts.append(board.san(m))
        seconds = 300 - ply
        comment = f"[%eval 0.{ply:02}] [%clk 0:{seconds // 60:02}:{seconds % 60:02}]"
        if ply % 7 == 0:
            comment += " a longer remark that runs past the end of any eighty-column line" * 2
        parts.append("{" + comment + "}")
        board.push(m)
    text = " ".join(parts) + " *\n"
    (ours,) = rookery.pgn.read_games(io.StringIO(text))
    theirs = chess.pgn.read_game(io.StringIO(text))
    expected = [n.comment for n in theirs.mainline()]
    assert all("\n" not in c for c in expected)
    assert [n.comment for n in ours.to_python_chess().mainline()] == expected
