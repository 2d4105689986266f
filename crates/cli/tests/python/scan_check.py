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
  - result: the game's Result tag;
  - result-type: "mate" or "stalemate", how the game ends.

A QUERY of the form {"scout": Q} holds a Scoutfish query Q instead: a
condition (rules as above, with Scoutfish's names: "white-move" and
"black-move" in place of "move", a rule's value a string or a list,
"material" also as `KBNKP`, Black's from the second K, "pass" always
holds), or {"sequence": [...]} whose items are conditions or
{"streak": [...]}, or {"streak": [...]}; "result" and "result-type"
("mate", "stalemate") test the whole game wherever they stand, "skip" and
"limit" say which of the games found are printed. It is matched by brute
force: for each step in turn, the first ply after the step before from
which every condition of the step holds at consecutive plies; a game is
printed with the ply each condition was met at.
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


def make_test(query):
    """The test of (board, move) of a query in this script's own form."""
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

    def test(board, move):
        c = counts_of(board)
        return (
            (stm is None or board.turn == (stm == "white"))
            and (not sub_fens or any(
                all(board.piece_at(sq) == pc for sq, pc in s.items()) for s in sub_fens))
            and (not materials or c in materials)
            and (not imbalances or any(
                all(c[0][k] - c[1][k] == d[k] for k in KINDS) for d in imbalances))
            and (not moves or (move is not None and any(t(board, move) for t in moves)))
            and pieces_hold(board, move)
        )
    return test


def games():
    """Every game of the files, numbered from 1 across them."""
    number = 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for game in read_games(handle):
                number += 1
                yield number, game


def listed(v):
    return v if isinstance(v, list) else [v]


def scout_material(text):
    """Scoutfish's signature (KBNKP: Black's from the second K) as this script's."""
    if "v" in text.lower() or any(c.islower() for c in text):
        return text
    second = text.find("K", 1)
    return text if second < 0 else text[:second] + "v" + text[second:]


def condition(rules, game_rules):
    """The test of (board, move) of a Scoutfish condition; its rules on the
    whole game go to game_rules."""
    q = {}
    for key, v in rules.items():
        if key in ("result", "result-type"):
            game_rules.append((key, v))
        elif key in ("sub-fen", "imbalance"):
            q[key] = listed(v)
        elif key == "material":
            q[key] = [scout_material(m) for m in listed(v)]
        elif key in ("white-move", "black-move"):
            q["move"] = listed(v)
            q["stm"] = key.split("-")[0]
        elif key in ("moved", "captured"):
            q[key] = v
        elif key == "stm":
            q[key] = v.lower()
        elif key != "pass":
            raise SystemExit(f"unknown rule {key}")
    return make_test(q)


def scout_main(query):
    game_rules = []
    top = dict(query)
    skip = top.pop("skip", 0)
    limit = top.pop("limit", None)
    if "sequence" in top or "streak" in top:
        for key in ("result", "result-type"):
            if key in top:
                game_rules.append((key, top.pop(key)))
        if "streak" in top:
            steps = [[condition(c, game_rules) for c in top["streak"]]]
        else:
            steps = []
            for item in top["sequence"]:
                if "streak" in item:
                    steps.append([condition(c, game_rules) for c in item["streak"]])
                else:
                    steps.append([condition(item, game_rules)])
    else:
        steps = [[condition(top, game_rules)]]
    found = 0
    for number, game in games():
        if any(k == "result" and game.headers.get("Result") not in listed(v) for k, v in game_rules):
            continue
        board = game.board()
        line = list(game.mainline_moves())
        # Every condition's verdict at every ply.
        verdicts = [[] for _ in steps]
        for ply in range(len(line) + 1):
            move = line[ply] if ply < len(line) else None
            for i, step in enumerate(steps):
                verdicts[i].append([t(board, move) for t in step])
            if move is not None:
                board.push(move)
        ends = {"mate": board.is_checkmate(), "stalemate": board.is_stalemate()}
        if not all(ends[v] for k, v in game_rules if k == "result-type"):
            continue
        plies = []
        after = 0
        for i, step in enumerate(steps):
            k = len(step)
            start = next((s for s in range(after, len(line) + 2 - k)
                          if all(verdicts[i][s + j][j] for j in range(k))), None)
            if start is None:
                break
            plies.extend(range(start, start + k))
            after = start + k
        else:
            found += 1
            if skip < found and (limit is None or found <= skip + limit):
                print(f"{number} ply {','.join(map(str, plies))}")


def main():
    query = json.loads(sys.argv[1])
    if "scout" in query:
        scout_main(query["scout"])
        return
    test = make_test(query)
    results = query.get("result", [])
    ending = query.get("result-type")
    for number, game in games():
        if results and game.headers.get("Result") not in results:
            continue
        board = game.board()
        line = list(game.mainline_moves())
        plies = []
        for ply in range(len(line) + 1):
            move = line[ply] if ply < len(line) else None
            if test(board, move):
                plies.append(ply)
            if move is not None:
                board.push(move)
        if ending and not (board.is_checkmate() if ending == "mate" else board.is_stalemate()):
            continue
        if plies:
            print(f"{number} ply {','.join(map(str, plies))}")


main()
