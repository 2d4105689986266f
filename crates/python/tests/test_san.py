"""rookery.Board.parse_san reads SAN as python-chess 1.11.2 does, strictly
(issue 43, item 5): a pawn capture needs its file, `Kg1` is not castling,
and no spelling python-chess refuses is read. The PGN reader's lenient
reading (with warnings) is checked beside python-chess, over a few
thousand positions, by crates/pgn/tests/san_python_chess.rs."""

import rookery
from conftest import need_python_chess, random_walks

AFTER_E4_D5 = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
AFTER_C4_D5 = "rnbqkbnr/ppp1pppp/8/3p4/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 2"
CASTLING = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
PROMOTION = "8/1P6/8/8/8/8/k6K/8 w - - 0 1"
EN_PASSANT = "4k3/8/8/2KPp3/8/8/8/8 w - e6 0 2"
KNIGHTS = "1k6/8/8/8/1N3N2/8/1N3N2/4K3 w - - 0 1"

NEAR_MISSES = {
    AFTER_E4_D5: ["d5", "xd5", "exd5", "ed5", "e4d5", "e4xd5", "Pxd5", "pxd5", "Exd5", "Qxd7"],
    AFTER_C4_D5: ["c4", "xc4", "dxc4", "dc4", "d5c4", "Pc4"],
    CASTLING: ["O-O", "0-0", "o-o", "O-O-O", "0-0-0", "Kg1", "Kc1", "Ke1g1", "Kxh1", "O-O+"],
    PROMOTION: ["b8=Q", "b8Q", "b8q", "b8=q", "b8", "b8(Q)", "b8/Q", "Pb8=Q", "b8=K", "b7b8q"],
    EN_PASSANT: ["dxe6", "de6", "e6", "xe6", "d5e6", "dxe6e.p.", "dxe6 e.p."],
    KNIGHTS: ["Nd3", "Nbd3", "Nb2d3", "N2d3", "Nd5", "Nbd5", "nbd5", "NBd5", "Nxd5", "Nb4-d5"],
}


def read(board, text):
    try:
        return board.parse_san(text).uci()
    except ValueError:
        return None


def test_the_issue_s_pawn_capture_without_its_file_is_refused():
    for fen, text in [(AFTER_E4_D5, "d5"), (AFTER_C4_D5, "c4")]:
        assert read(rookery.Board(fen), text) is None, (fen, text)
    assert read(rookery.Board(AFTER_C4_D5), "dxc4") == "d5c4"


def test_near_misses_as_python_chess_reads_them():
    chess = need_python_chess()
    for fen, texts in NEAR_MISSES.items():
        for text in texts:
            theirs = read(chess.Board(fen), text)
            assert read(rookery.Board(fen), text) == theirs, (fen, text)


def test_every_move_and_its_near_misses_along_random_games():
    """Never a move python-chess refuses, never a different move."""
    chess = need_python_chess()
    texts = 0
    for ours, theirs, legal in random_walks(chess, 43, 12, 60):
        for m in legal:
            san = theirs.san(m)
            piece = san[0] if san[0] in "NBRQK" else ""
            body = san[len(piece):].rstrip("+#")
            for text in {san, san.replace("x", ""), piece + body[-2:], piece + "x" + body[-2:],
                         san.lower(), "P" + san, san.replace("=", "")}:
                texts += 1
                expected = read(theirs, text)
                got = read(ours, text)
                assert got == expected, (theirs.fen(), text)
    assert texts > 5000
