"""Polyglot books of `rookery book` checked with python-chess 1.11.2.

    polyglot_check.py games SEED COUNT OUT.pgn [standard]
        COUNT random games (seeded), biased towards castling, double steps,
        en passant captures and promotions; a few start from FEN positions
        where a pawn beside a double step is pinned (the en passant file is
        hashed though the capture is illegal) or where only some castling
        rights are left (none with `standard`: Polyglot reads no FEN tag).
        Results are drawn at random (a few `*`).

    polyglot_check.py check GAMES.pgn BOOK.bin ROOKERY TMPDIR
        BOOK.bin was built by `rookery book build GAMES.pgn --min-games 1
        --weights played`. Every position of every game is hashed with
        chess.polyglot.zobrist_hash; the book must hold exactly the
        (key, move) pairs played, each weighted by how often it was played,
        sorted by key, and python-chess's reader must find the same moves in
        every position. Then `rookery book show FEN --json` is asked for the
        key and moves of sample positions (every one whose en passant file
        counts while the capture is illegal), on a copy of the book with
        learn values and other weights written here.

    polyglot_check.py walks BOOK.bin GAMES.pgn PLIES
        Prints the first PLIES moves of every game (one line a game) after
        checking that each is a move of weight > 0 in BOOK.bin.

Prints "all ok" at the end of a check; any failure is an AssertionError.
"""

import json
import random
import struct
import subprocess
import sys

import chess
import chess.pgn
import chess.polyglot

from pgn_games import read_games

# Starts besides the standard one: (FEN, first moves).
FEN_STARTS = [
    # c7-c5 beside the b5 pawn, pinned along the fifth rank by the h5 rook.
    ("4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1", ["c7c5"]),
    # The same, with the en passant square already in the FEN.
    ("4k3/8/8/KPp4r/8/8/8/8 w - c6 0 2", []),
    # e2-e4 beside the d4 pawn, pinned on the long diagonal by the b2
    # bishop against the h8 king: d4xe3 would leave the diagonal.
    ("7k/8/8/8/3p4/8/1B2P3/4K3 w - - 0 1", ["e2e4"]),
    # Some castling rights only.
    ("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w Kq - 0 1", []),
    ("r3k2r/1p4p1/8/8/8/8/1P4P1/R3K2R b KQk - 0 1", []),
]

RESULTS = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "1/2-1/2", "*"]


def pick(board, rng):
    moves = list(board.legal_moves)
    promos = [m for m in moves if m.promotion]
    if promos and rng.random() < 0.9:
        return rng.choice(promos)
    eps = [m for m in moves if board.is_en_passant(m)]
    if eps and rng.random() < 0.8:
        return rng.choice(eps)
    castles = [m for m in moves if board.is_castling(m)]
    if castles and rng.random() < 0.5:
        return rng.choice(castles)
    doubles = [
        m
        for m in moves
        if board.piece_type_at(m.from_square) == chess.PAWN
        and abs(m.to_square - m.from_square) == 16
    ]
    if doubles and rng.random() < 0.35:
        return rng.choice(doubles)
    return rng.choice(moves)


def games(seed, count, out, standard=False):
    rng = random.Random(seed)
    with open(out, "w") as f:
        for i in range(count):
            if i % 10 == 9 and not standard:
                fen, first = FEN_STARTS[(i // 10) % len(FEN_STARTS)]
                board = chess.Board(fen)
            else:
                board, first = chess.Board(), []
                # A few common first moves, so that positions repeat and
                # weights grow past 1.
                scratch = chess.Board()
                for _ in range(rng.randrange(0, 5)):
                    moves = sorted(scratch.legal_moves, key=lambda m: m.uci())[:3]
                    m = rng.choice(moves)
                    scratch.push(m)
                    first.append(m.uci())
            game = chess.pgn.Game()
            if board.fen() != chess.STARTING_FEN:
                game.setup(board)
            node = game
            for u in first:
                m = chess.Move.from_uci(u)
                node = node.add_variation(m)
                board.push(m)
            while not board.is_game_over() and board.ply() < 260:
                m = pick(board, rng)
                node = node.add_variation(m)
                board.push(m)
            outcome = board.outcome()
            game.headers["Result"] = outcome.result() if outcome else rng.choice(RESULTS)
            game.headers["Event"] = f"random {seed} {i}"
            print(game, file=f, end="\n\n")


def raw_move(board, move):
    """The move as a Polyglot book encodes it (castling: king takes rook)."""
    to = move.to_square
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        to = chess.square(7 if chess.square_file(to) > 4 else 0, rank)
    promo = move.promotion - 1 if move.promotion else 0
    return to | move.from_square << 6 | promo << 12


def read_entries(path):
    data = open(path, "rb").read()
    assert len(data) % 16 == 0, f"{path}: {len(data)} bytes"
    return [struct.unpack(">QHHI", data[i : i + 16]) for i in range(0, len(data), 16)]


def ep_hashed(board):
    """Whether zobrist_hash counts the en passant file (a pawn beside)."""
    h = chess.polyglot.ZobristHasher(chess.polyglot.POLYGLOT_RANDOM_ARRAY)
    return h.hash_ep_square(board) != 0


def check(pgn_path, book_path, rookery, tmp):
    expected = {}  # (key, raw move) -> times played
    boards = {}  # key -> (fen, set of moves)
    stats = dict(castling=0, en_passant=0, promotion=0, ep_hashed=0, ep_pinned=0, partial_rights=0)
    with open(pgn_path) as f:
        for game in read_games(f):
            assert not game.errors, game.errors
            board = game.board()
            for move in game.mainline_moves():
                key = chess.polyglot.zobrist_hash(board)
                pair = (key, raw_move(board, move))
                expected[pair] = expected.get(pair, 0) + 1
                fen, moves = boards.setdefault(key, (board.fen(en_passant="fen"), set()))
                assert fen.split()[:3] == board.fen().split()[:3], f"a key collision: {fen}, {board.fen()}"
                moves.add(move)
                stats["castling"] += board.is_castling(move)
                stats["en_passant"] += board.is_en_passant(move)
                stats["promotion"] += bool(move.promotion)
                if ep_hashed(board):
                    stats["ep_hashed"] += 1
                    if not board.has_legal_en_passant():
                        stats["ep_pinned"] += 1
                rights = bin(board.castling_rights).count("1")
                stats["partial_rights"] += 0 < rights < 4
                board.push(move)
    print("positions", len(boards), "pairs", len(expected), stats)
    assert len(boards) >= 10000, len(boards)
    for k, v in stats.items():
        assert v > 0, f"no {k} in the games"

    entries = read_entries(book_path)
    keys = [e[0] for e in entries]
    assert keys == sorted(keys), "the book is not sorted by key"
    got = {}
    for key, mv, weight, learn in entries:
        assert (key, mv) not in got, f"({key:016x}, {mv}) twice"
        assert learn == 0
        got[(key, mv)] = weight
    missing = [p for p in expected if p not in got]
    extra = [p for p in got if p not in expected]
    if missing or extra:
        for key, mv in (missing + extra)[:5]:
            fen = boards.get(key, ("(no position of ours has this key)",))[0]
            print(f"{'missing' if (key, mv) in expected else 'extra'} {key:016x} {mv}: {fen}", file=sys.stderr)
    assert not missing and not extra, f"{len(missing)} missing, {len(extra)} extra pairs"
    for pair, n in expected.items():
        assert got[pair] == n, f"{pair}: weight {got[pair]}, played {n}"

    # python-chess's own reader finds every position's moves.
    with chess.polyglot.open_reader(book_path) as reader:
        for key, (fen, moves) in boards.items():
            board = chess.Board(fen)
            found = {e.move for e in reader.find_all(board)}
            assert found == moves, f"{fen}: book {found}, played {moves}"

    # `rookery book show`: keys, moves, weights and learn values of sample
    # positions, on a copy of the book with other weights and learn values.
    rng = random.Random(7)
    learned = [(k, m, rng.randrange(0, 70000) % 65536, rng.randrange(0, 1 << 32)) for k, m, _, _ in entries]
    learned_path = f"{tmp}/learned.bin"
    with open(learned_path, "wb") as f:
        for e in learned:
            f.write(struct.pack(">QHHI", *e))
    fens = [fen for fen, _ in boards.values()]
    pinned = [f for f in fens if ep_hashed(chess.Board(f)) and not chess.Board(f).has_legal_en_passant()]
    sample = pinned + rng.sample(fens, 40) + ["4k3/8/8/8/8/8/8/4K3 w - - 0 1"]
    with chess.polyglot.open_reader(learned_path) as reader:
        for fen in sample:
            board = chess.Board(fen)
            out = subprocess.run(
                [rookery, "book", "show", learned_path, fen, "--json"],
                capture_output=True, text=True, check=True,
            ).stdout
            shown = json.loads(out)
            assert int(shown["key"], 16) == chess.polyglot.zobrist_hash(board), f"{fen}: {shown['key']}"
            want = [(e.move.uci(), e.weight, e.learn) for e in reader.find_all(board, minimum_weight=0)]
            have = [(m["uci"], m["weight"], m["learn"]) for m in shown["moves"]]
            assert sorted(have) == sorted(want), f"{fen}: {have} != {want}"
    print("pinned en passant positions asked of book show:", len(pinned))
    assert pinned, "no pinned en passant position"
    print("all ok")


def walks(book_path, pgn_path, plies):
    with chess.polyglot.open_reader(book_path) as reader, open(pgn_path) as f:
        for game in read_games(f):
            board = game.board()
            line = []
            for move in list(game.mainline_moves())[:plies]:
                weights = {e.move: e.weight for e in reader.find_all(board, minimum_weight=0)}
                assert weights.get(move, 0) > 0, f"{board.fen()}: {move} is not a book move ({weights})"
                line.append(move.uci())
                board.push(move)
            print(" ".join(line))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "games":
        games(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5:] == ["standard"])
    elif cmd == "check":
        check(*sys.argv[2:6])
    elif cmd == "walks":
        walks(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(f"unknown command {cmd}")
