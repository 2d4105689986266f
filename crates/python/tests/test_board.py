"""rookery.Board against python-chess 1.11.2: legal moves, SAN, FEN, EPD,
game-ending checks, repetition claims and keys along random games from the
perft suite's positions; perft against the suite's own counts."""

import random

import pytest

import rookery
from conftest import REPO, need_python_chess, random_walks

PERFT = REPO / "crates" / "core" / "tests" / "data" / "perft" / "perftsuite.epd"


def perft_cases():
    """(FEN, depth, nodes) from the suite: `FEN ;D1 20 ;D2 400 ...`."""
    for line in PERFT.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, *depths = line.split(";")
        for d in depths:
            name, nodes = d.split()
            yield fen.strip(), int(name[1:]), int(nodes)


CASES = [c for c in perft_cases() if c[2] <= 200_000]


@pytest.mark.parametrize("fen,depth,nodes", CASES[:60])
def test_perft_counts_of_the_suite(fen, depth, nodes):
    assert rookery.Board(fen).perft(depth) == nodes


def test_random_games_agree_with_python_chess():
    chess = need_python_chess()
    rng = random.Random(920)
    fens = sorted({c[0] for c in CASES})
    checked = 0
    for fen in fens:
        if not chess.Board(fen).is_valid():
            # An impossible position (a check no legal move gives): read,
            # and flagged invalid, as python-chess does; rookery-core does
            # not play it.
            assert rookery.Board(fen).status() == chess.Board(fen).status()
            assert not rookery.Board(fen).is_valid()
            continue
        for _ in range(3):
            ours, theirs = rookery.Board(fen), chess.Board(fen)
            for _ in range(120):
                legal = sorted(m.uci() for m in ours.legal_moves)
                assert legal == sorted(m.uci() for m in theirs.legal_moves), theirs.fen()
                assert ours.fen() == theirs.fen()
                assert ours.epd() == theirs.epd()
                assert ours.turn == theirs.turn
                assert ours.is_check() == theirs.is_check()
                assert ours.is_checkmate() == theirs.is_checkmate()
                assert ours.is_stalemate() == theirs.is_stalemate()
                assert ours.is_insufficient_material() == theirs.is_insufficient_material()
                assert ours.can_claim_threefold_repetition() == theirs.can_claim_threefold_repetition()
                assert ours.polyglot_key() == chess.polyglot.zobrist_hash(theirs)
                checked += 1
                if not legal:
                    break
                uci = rng.choice(legal)
                san = theirs.san(chess.Move.from_uci(uci))
                assert ours.san(uci) == san
                # Half the moves by SAN, half by UCI.
                if rng.random() < 0.5:
                    assert ours.push_san(san).uci() == uci
                else:
                    assert ours.push_uci(uci).uci() == uci
                theirs.push_uci(uci)
    assert checked > 1000


def test_threefold_claims_as_python_chess():
    chess = need_python_chess()
    ours, theirs = rookery.Board(), chess.Board()
    claims = []
    for san in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]:
        ours.push_san(san)
        theirs.push_san(san)
        claims.append(ours.can_claim_threefold_repetition())
        assert claims[-1] == theirs.can_claim_threefold_repetition()
    # A claim is possible one move before the third occurrence (by the move).
    assert claims == [False, False, False, False, False, False, True, True]


def test_to_python_chess_keeps_the_history():
    chess = need_python_chess()
    board = rookery.Board()
    for san in ["e4", "e5", "Nf3", "Nc6", "Ng1", "Nb8", "Nf3", "Nc6", "Ng1"]:
        board.push_san(san)
    pc = board.to_python_chess()
    assert isinstance(pc, chess.Board)
    assert pc.fen() == board.fen()
    assert [m.uci() for m in pc.move_stack] == [m.uci() for m in board.move_stack]
    assert pc.can_claim_threefold_repetition() == board.can_claim_threefold_repetition()
    back = rookery.Board(pc.fen())
    assert back.fen() == board.fen() and back.zobrist() == rookery.Board(board.fen()).zobrist()


def test_errors_are_python_chess_shaped():
    board = rookery.Board()
    with pytest.raises(rookery.IllegalMoveError):
        board.push_san("e5")
    with pytest.raises(ValueError):  # IllegalMoveError is a ValueError
        board.push_uci("e2e5")
    with pytest.raises(ValueError):
        board.push_uci("not a move")
    with pytest.raises(ValueError):
        rookery.Board("not a fen")
    with pytest.raises(IndexError):
        board.pop()
    board.push_san("e4")
    assert board.pop() == rookery.Move.from_uci("e2e4")
    assert board.fen() == rookery.STARTING_FEN


def test_move_and_epd_operations():
    m = rookery.Move.from_uci("e7e8q")
    assert (m.from_square, m.to_square, m.promotion) == (52, 60, 5)
    assert rookery.Board().epd(bm=rookery.Move.from_uci("e2e4"), id="start") == (
        'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; id "start";'
    )
    assert rookery.Board().perft(4) == 197_281


def test_a_panic_becomes_an_exception():
    """A Rust panic is caught at the boundary: InternalError (an Exception,
    unlike pyo3's default PanicException), and the interpreter goes on."""
    with pytest.raises(rookery.InternalError, match="boom 37"):
        rookery._rookery._panic_for_test("boom 37")
    assert isinstance(rookery.InternalError("x"), Exception)
    assert rookery.Board().perft(2) == 400


def test_fifty_move_claims_as_python_chess():
    """Issue 43: a claim may be made with the next move (python-chess looks
    one move ahead, as rookery's threefold claim does)."""
    chess = need_python_chess()
    fens = ["6R1/7k/8/8/1r3B2/5K2/8/8 w - - 99 119"]
    for fen in sorted({c[0] for c in CASES}):
        placement, turn, castling, ep = fen.split()[:4]
        for halfmoves in (98, 99, 100, 101):
            fens.append(f"{placement} {turn} {castling} {ep} {halfmoves} 80")
    by_next_move = 0
    for fen in fens:
        theirs = chess.Board(fen)
        if not theirs.is_valid():
            continue
        ours = rookery.Board(fen)
        assert ours.can_claim_fifty_moves() == theirs.can_claim_fifty_moves(), fen
        by_next_move += theirs.can_claim_fifty_moves() and not theirs.is_fifty_moves()
    assert rookery.Board(fens[0]).can_claim_fifty_moves()
    assert by_next_move > 10


def test_null_moves_as_python_chess():
    """Issue 43: the null move is pushed, parsed and popped as python-chess
    does (`--`, `Z0` in SAN, `0000` in UCI)."""
    chess = need_python_chess()
    ours, theirs = rookery.Board(), chess.Board()
    for san in ["e4", "--", "d4", "Z0", "c4"]:
        assert ours.push_san(san).uci() == theirs.push_san(san).uci()
        assert ours.fen() == theirs.fen()
    assert ours.parse_san("--") == rookery.Move.from_uci("0000")
    ours.push("0000")
    theirs.push(chess.Move.null())
    assert ours.fen() == theirs.fen()
    ours.push_uci("0000")
    theirs.push_uci("0000")
    assert ours.fen() == theirs.fen()
    assert ours.pop().uci() == theirs.pop().uci() == "0000"
    assert ours.fen() == theirs.fen()
    assert [m.uci() for m in ours.move_stack] == [m.uci() for m in theirs.move_stack]


def test_legal_moves_in_python_chess_order():
    """The same moves in the same order as python-chess generates them (in
    check too), so that a script taking the first move, or a seeded random
    one, plays the same game with either."""
    chess = need_python_chess()
    positions = 0
    for ours, theirs, legal in random_walks(chess, 7, 40, 150):
        assert [m.uci() for m in ours.legal_moves] == [m.uci() for m in legal], theirs.fen()
        positions += 1
    assert positions > 4000
