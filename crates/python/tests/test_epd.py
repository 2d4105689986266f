"""rookery.epd against python-chess 1.11.2 on the EPD suites: the same
positions and operations (moves, numbers, strings); errors with line and
column; write then read gives the same records."""

import io

import pytest

import rookery
import rookery.epd
from conftest import EPD_SUITES, need_python_chess, text_of

# Suites every record of which python-chess reads (see the suites'
# SOURCES.md): not ccr-one-hour and nullmove-zugzwang (six-field FENs, which
# rookery reads leniently), nor mates2000 (`bm #N`, Chest's mate distances).
NOT_EPD_FOR_PYTHON_CHESS = {"ccr-one-hour.epd", "nullmove-zugzwang.epd", "mates2000.epd"}
SUITES = sorted(p for p in EPD_SUITES.glob("*.epd") if p.name not in NOT_EPD_FOR_PYTHON_CHESS)
MOVE_LISTS = ("bm", "am")


@pytest.mark.parametrize("path", SUITES, ids=lambda p: p.name)
def test_records_as_python_chess(path):
    chess = need_python_chess()
    records = list(rookery.epd.read(path))
    lines = [ln for ln in text_of(path).splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(records) == len(lines)
    for rec, line in zip(records, lines):
        board, ops = chess.Board.from_epd(line)
        # A castling right python-chess drops as bad (lct2 line 21: `q`
        # with the rook on c8) rookery reads as X-FEN, that rook's right.
        if board.status() == chess.STATUS_VALID:
            assert rec.board.epd() == board.epd(), rec.line
        mine = rec.ops
        for opcode in MOVE_LISTS:
            if opcode in ops:
                assert [m.uci() for m in mine[opcode]] == [m.uci() for m in ops[opcode]], (rec.line, opcode)
        for opcode in ("id", "ce", "acd", "dm", "c0"):
            if opcode in ops and opcode in mine:
                assert mine[opcode] == ops[opcode], (rec.line, opcode)
        if "pv" in ops:
            assert [m.uci() for m in mine["pv"]] == [m.uci() for m in ops["pv"]]


def test_typed_operations():
    text = '4k3/8/8/8/8/8/4P3/4K3 w - - bm e4 e3; ce -120; id "x"; pv e4 Kd7 e5; c0 "a b"; acn 1000; draw_offer;\n'
    (rec,) = rookery.epd.read(io.StringIO(text))
    ops = rec.ops
    assert [m.uci() for m in ops["bm"]] == ["e2e4", "e2e3"]
    assert [m.uci() for m in ops["pv"]] == ["e2e4", "e8d7", "e4e5"]
    assert (ops["ce"], ops["id"], ops["c0"], ops["acn"], ops["draw_offer"]) == (-120, "x", "a b", 1000, None)
    assert isinstance(ops["ce"], int)


BROKEN = """4k3/8/8/8/8/8/4P3/4K3 w - - id "one";
# a comment line

4k3/8/8/8/8/8/4P3/4K3 w - - bm e5; id "two";
4k3/8/8/8/8/8/4P3/4K3 w - - id "three";
"""


def test_a_broken_line_names_line_and_column(tmp_path):
    path = tmp_path / "broken.epd"
    path.write_text(BROKEN)
    reader = rookery.epd.read(path)
    assert next(reader).ops["id"] == "one"
    with pytest.raises(rookery.ParseError) as raised:
        next(reader)
    err = raised.value
    # "bm e5": e5 is not a legal move of the position; the operand at column 32.
    assert (err.path, err.line, err.column) == (str(path), 4, 32), str(err)
    skipping = rookery.epd.read(path, skip_errors=True)
    assert [r.ops["id"] for r in skipping] == ["one", "three"]
    assert [(e.line, e.column) for e in skipping.errors] == [(4, 32)]


def test_python_chess_rejects_the_broken_line_too():
    chess = need_python_chess()
    with pytest.raises(ValueError):
        chess.Board.from_epd(BROKEN.splitlines()[3])


def test_write_then_read(tmp_path):
    records = list(rookery.epd.read(EPD_SUITES / "wac.epd"))
    out = tmp_path / "wac-copy.epd"
    board = rookery.Board()
    n = rookery.epd.write(out, records + [(board, {"bm": board.parse_san("e4"), "id": "start"})])
    assert n == len(records) + 1
    again = list(rookery.epd.read(out, strict=True))
    assert [r.epd() for r in again[:-1]] == [r.epd() for r in records]
    assert again[-1].epd() == 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id "start";'
    buf = io.StringIO()
    rookery.epd.write(buf, records[:2])
    assert buf.getvalue().splitlines() == [r.epd() for r in records[:2]]


def test_lenient_reading_of_the_quirky_suites():
    """Six-field FENs and missing semicolons are read (each noted); CCR03's
    `am Ne5`, ambiguous, is the one error (as python-chess finds it)."""
    ccr = rookery.epd.read(EPD_SUITES / "ccr-one-hour.epd", skip_errors=True)
    assert len(list(ccr)) == 24
    assert [(e.line, "ambiguous" in e.message) for e in ccr.errors] == [(4, True)]
    zugzwang = list(rookery.epd.read(EPD_SUITES / "nullmove-zugzwang.epd"))
    assert zugzwang and all(r.warnings for r in zugzwang)
