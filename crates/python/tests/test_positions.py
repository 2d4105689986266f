"""rookery.pgn.positions against python-chess 1.11.2: the same positions
(piece masks, side to move, castling rights), with each game's result and
the [%eval]/[%clk] of the move that led there."""

import math

import pytest

import rookery
import rookery.pgn
from conftest import PGN_DATA, TWIC, need_python_chess

np = pytest.importorskip("numpy")

LICHESS = PGN_DATA / "lichess_db_10k.pgn"
SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def expected_rows(chess, path, every=1):
    rows = []
    with open(path, encoding="utf-8") as f:
        index = 0
        while (game := chess.pgn.read_game(f)) is not None:
            index += 1
            if game.errors:
                continue
            board = game.board()
            result = SCORES.get(game.headers.get("Result"), math.nan)
            nodes = list(game.mainline())
            for ply in range(len(nodes) + 1):
                if ply:
                    board.push(nodes[ply - 1].move)
                if ply % every:
                    continue
                masks = [int(board.pieces_mask(pt, color)) for color in (chess.WHITE, chess.BLACK) for pt in range(1, 7)]
                node = nodes[ply - 1] if ply else None
                e = node.eval() if node else None
                c = node.clock() if node else None
                rows.append((masks, board.turn, int(board.castling_rights), ply, index, result,
                             math.nan if e is None else float(e.white().score(mate_score=rookery.MATE_SCORE)),
                             math.nan if c is None else c))
    return rows


def same_float(a, b):
    return (math.isnan(a) and math.isnan(b)) or np.float32(a) == np.float32(b)


@pytest.mark.parametrize("every", [1, 3])
def test_positions_as_python_chess(every):
    chess = need_python_chess()
    rows = expected_rows(chess, LICHESS, every)
    chunks = list(rookery.pgn.positions(LICHESS, every, chunk=20))
    assert len(chunks) > 1  # chunks of about 20 positions
    got = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
    assert got["bitboards"].dtype == np.uint64 and got["bitboards"].shape == (len(rows), 12)
    for i, (masks, turn, castling, ply, index, result, ev, clk) in enumerate(rows):
        assert [int(x) for x in got["bitboards"][i]] == masks, i
        assert bool(got["turn"][i]) == turn
        assert int(got["castling"][i]) == castling
        assert (int(got["ply"][i]), int(got["game"][i])) == (ply, index)
        assert same_float(result, got["result"][i])
        assert same_float(ev, got["eval"][i]), (i, ev, got["eval"][i])
        assert same_float(clk, got["clock"][i]), (i, clk, got["clock"][i])
    assert not np.isnan(got["eval"]).all() and not np.isnan(got["clock"]).all()


def test_planes_filter_and_skipped():
    chunk = next(rookery.pgn.positions(TWIC, planes=True, chunk=1000))
    planes, bitboards = chunk["planes"], chunk["bitboards"]
    assert planes.shape == (len(bitboards), 12, 64) and planes.dtype == np.uint8
    unpacked = np.unpackbits(bitboards.view(np.uint8).reshape(-1, 12, 8), axis=2, bitorder="little")
    assert (planes == unpacked).all()
    whites = set()
    reader = rookery.pgn.positions(TWIC, filter=lambda h: whites.add(h["White"]) or h["Result"] == "1-0")
    results = np.concatenate([c["result"] for c in reader])
    assert len(whites) > 10 and len(results) > 0 and (results == 1.0).all()
    with pytest.raises(ValueError):
        rookery.pgn.positions(TWIC, every=0)


def test_many_readers_alive_at_once():
    """Readers hold 32-byte-aligned SIMD state, more than Python's allocator
    aligns an object: kept inline, some of them crashed (a misaligned load)
    depending on where Python put the object. Many alive at once land at
    many alignments."""
    readers = [rookery.pgn.positions(LICHESS, chunk=20) for _ in range(64)]
    readers += [rookery.pgn.read_headers(LICHESS) for _ in range(64)]
    readers += [rookery.pgn.read_games(LICHESS) for _ in range(64)]
    counts = {len(list(r)) for r in readers[:64]}
    assert len(counts) == 1
    assert {len(list(r)) for r in readers[64:]} == {5}


def test_jobs_give_the_same_rows_in_order(tmp_path):
    # Large enough to be read on threads (a small file is read on one).
    text = TWIC.read_bytes()
    path = tmp_path / "big.pgn"
    path.write_bytes(text * (5 * 2**20 // len(text) + 1))
    one = list(rookery.pgn.positions(path))
    two = list(rookery.pgn.positions(path, jobs=2))
    assert len(two) > 1
    for key in one[0]:
        a = np.concatenate([c[key] for c in one])
        b = np.concatenate([c[key] for c in two])
        assert a.dtype == b.dtype and a.shape == b.shape, key
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), key
