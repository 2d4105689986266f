"""Finds what `rookery db search` finds by a scan, independently, with python-chess.

usage: scan_check.py QUERY GAMES.pgn...

QUERY is a JSON object: "sub-fen", "material", "imbalance", "move" (lists,
one of each enough), "stm" ("white"/"black"), "moved", "captured" (piece
letters), "result" (a list). Reads
every game's mainline with python-chess (the files in order, games
numbered from 1 across them) and prints, for each game with a ply at which
every test given holds at once, `NUMBER ply P1,P2,...` (ply 0: the start
position; a move test holds at the position the move is played from):

  - sub-fen: every piece of the partial board stands on its square;
  - material: each side's count of Q R B N P equals the signature's
    (`KRPkr`: White's in capitals; `KRPvKR`: White's, v, Black's);
  - imbalance: for each kind, White's count less Black's equals the
    signature's (`vPP`: White two pawns down);
  - move: the SAN pattern (piece, destination, `x` for a capture,
    promotion; a disambiguating file/rank, if written, is the origin's);
    `O-O`/`O-O-O` castling;
  - moved: the move played moves one of these kinds of piece (the king,
    for castling);
  - captured: the move played takes one of these kinds ("": takes none;
    en passant takes a pawn);
  - result: the game's Result tag.
"""

import json
import re
import sys

import chess

from pgn_games import read_games

KINDS = [chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN]
LETTERS = {"Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def signature(text):
    """White's and Black's counts (dicts by piece type) of a signature."""
    counts = [{k: 0 for k in KINDS}, {k: 0 for k in KINDS}]
    if "v" in text or "V" in text:
        at = text.lower().index("v")
        sides = [(0, c.upper()) for c in text[:at]] + [(1, c.upper()) for c in text[at + 1:]]
    else:
        sides = [(1 if c.islower() else 0, c.upper()) for c in text]
    for side, c in sides:
        if c != "K":
            counts[side][LETTERS[c]] += 1
    return counts


def counts_of(board):
    return [
        {k: len(board.pieces(k, chess.WHITE)) for k in KINDS},
        {k: len(board.pieces(k, chess.BLACK)) for k in KINDS},
    ]


SAN = re.compile(r"^([NBRQK]?)([a-h]?)([1-8]?)(x?)([a-h][1-8])(=([NBRQ]))?$")


def move_test(pattern):
    """A test of (board, move) for a SAN pattern."""
    p = pattern.rstrip("+#")
    if p in ("O-O", "O-O-O"):
        def castle(board, move):
            if not board.is_castling(move):
                return False
            return board.is_kingside_castling(move) == (p == "O-O")
        return castle
    m = SAN.match(p)
    assert m, pattern
    role = LETTERS.get(m.group(1), chess.PAWN) if m.group(1) != "K" else chess.KING
    file_ = m.group(2)
    rank = m.group(3)
    capture = m.group(4) == "x"
    to = chess.parse_square(m.group(5))
    promotion = LETTERS[m.group(7)] if m.group(7) else None

    def test(board, move):
        return (
            move.to_square == to
            and not board.is_castling(move)
            and board.piece_type_at(move.from_square) == role
            and move.promotion == promotion
            and (not file_ or chess.square_file(move.from_square) == ord(file_) - ord("a"))
            and (not rank or chess.square_rank(move.from_square) == int(rank) - 1)
            and board.is_capture(move) == capture
        )
    return test


def main():
    query = json.loads(sys.argv[1])
    sub_fens = [chess.BaseBoard(f.split()[0]).piece_map() for f in query.get("sub-fen", [])]
    materials = [signature(m) for m in query.get("material", [])]
    imbalances = []
    for text in query.get("imbalance", []):
        w, b = signature(text)
        imbalances.append({k: w[k] - b[k] for k in KINDS})
    moves = [move_test(m) for m in query.get("move", [])]
    stm = query.get("stm")
    moved = query.get("moved")
    captured = query.get("captured")

    def pieces_hold(board, move):
        if moved is None and captured is None:
            return True
        if move is None:
            return False
        kind = chess.piece_symbol(board.piece_type_at(move.from_square)).upper()
        if moved is not None and kind not in moved.upper():
            return False
        if captured is not None:
            if not board.is_capture(move) or board.is_castling(move):
                return captured == ""
            took = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
            return chess.piece_symbol(took).upper() in captured.upper()
        return True

    results = query.get("result", [])
    number = 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for game in read_games(handle):
                number += 1
                if results and game.headers.get("Result") not in results:
                    continue
                board = game.board()
                line = list(game.mainline_moves())
                plies = []
                for ply in range(len(line) + 1):
                    move = line[ply] if ply < len(line) else None
                    c = counts_of(board)
                    ok = (
                        (stm is None or board.turn == (stm == "white"))
                        and (not sub_fens or any(
                            all(board.piece_at(sq) == pc for sq, pc in s.items()) for s in sub_fens))
                        and (not materials or c in materials)
                        and (not imbalances or any(
                            all(c[0][k] - c[1][k] == d[k] for k in KINDS) for d in imbalances))
                        and (not moves or (move is not None and any(t(board, move) for t in moves)))
                        and pieces_hold(board, move)
                    )
                    if ok:
                        plies.append(ply)
                    if move is not None:
                        board.push(move)
                if plies:
                    print(f"{number} ply {','.join(map(str, plies))}")


main()
