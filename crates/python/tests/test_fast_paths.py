"""The Rust paths under python-chess's API (issue 46): ``read_game`` reading
a game's lines and movetext in Rust (its nodes made when first asked for),
``Board.push`` and the repetition counts in Rust. Each is checked against
python-chess 1.11.2 and against rookery's own Python implementations (the
Python tokenizer of ``read_game``, ``Board._push_python``,
``Board._history_keys``), and each test checks that the Rust path was the
one taken, so that it fails if that path is taken away."""

import io
import logging
import random

import pytest

import rookery
import rookery._board
import rookery.pgn
from conftest import TWIC, need_python_chess, text_of


@pytest.fixture(autouse=True)
def quiet_errors():
    """The readers log the errors they meet; the tests count them."""
    logging.disable(logging.ERROR)
    yield
    logging.disable(logging.NOTSET)


class _Python(rookery.pgn.GameBuilder):
    """GameBuilder under another name: read_game then reads the movetext
    with its Python tokenizer (the Rust parse is for GameBuilder itself)."""


# Games each of which takes one of the cases of the readers: plain ones,
# comments before, after and inside variations, NAGs and suffixes, illegal,
# ambiguous and invalid moves (in the main line and in variations), and the
# movetext the Rust parse leaves to the Python tokenizer (`;` comments, null
# moves, `0-0`, square-to-square moves, text after the result, a bracket
# with no move before it, a comment left open, a FEN).
CASES = """\
[Event "plain"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "comments"]

{ before } 1. e4 { after e4 } { and again } e5 ( { starts } 1... c5 { sicilian }
2. Nf3 ) ( 1... e6 $2 ) 2. Nf3!? $14 Nc6?? ( 2... d6! { philidor } ) *

[Event "illegal in the main line"]

1. e4 e5 2. Ke3 ( 2. Nf3 ) Nc6 3. d4 1/2-1/2

[Event "illegal in a variation"]
[Result "0-1"]

1. d4 ( 1. e4 e5 2. Qxf7 Nc6 ) 1... d5 ( 1... Nf6 2. c4 ) 2. c4 0-1

[Event "illegal before a variation in a variation"]

1. d4 ( 1. e4 e5 2. Qxf7 ( 2. Nf3 ) Nc6 ) 1... d5 2. c4 *

[Event "ambiguous"]
[FEN "4k3/8/8/8/8/8/8/2N1K1N1 w - - 0 1"]

1. Ne2 Kd7 *

[Event "ambiguous, standard start"]

1. e4 e5 2. Nc3 Nc6 3. Ne2 Nf6 *

[Event "invalid san"]

1. e4 e5 2. Bb8=Q Nc6 *

[Event "line comment"]

1. e4 ; e5 {not a comment
e5 2. Nf3 *

[Event "null move"]

1. e4 -- 2. d4 Z0 3. c4 *

[Event "castling with zeros"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0 0-0 *

[Event "squares"]

1. e2e4 e7e5 2. g1f3 *

[Event "after the result"]

1. e4 e5 1-0 2. Nf3 Nc6

[Event "stray bracket"]

( 1. d4 ) 1. e4 e5 *

[Event "next game without an empty line"]

1. e4 e5
[Event "the next game"]

1. d4 d5 *

[Event "long comment"]

1. e4 { a comment

over empty lines
[and a bracket] } e5 2. Nf3 *

[Event "escape lines"]

% an escape
1. e4
% another
e5 *

[Event "open comment"]

1. e4 e5 { never closed
"""


# A game whose movetext runs into the next game's tags: rookery starts the
# next game there; python-chess reads the tags as movetext (test_game_tree.py's
# DIVERGENT, pe-stalemate.pgn), so it is left out of the comparison with it.
NO_EMPTY_LINE = """\
[Event "next game without an empty line"]

1. e4 e5
[Event "the next game"]

1. d4 d5 *

"""
assert NO_EMPTY_LINE in CASES


def read_all(text, **kwargs):
    handle = io.StringIO(text)
    games = []
    while True:
        game = rookery.pgn.read_game(handle, **kwargs)
        if game is None:
            return games
        games.append((game, handle.tell()))


def described(game):
    """What a test compares of a game: export format, errors, root comment."""
    return (str(game), [(type(e).__name__, str(e)) for e in game.errors], game.comment,
            sorted(game.nags), [m.uci() for m in game.mainline_moves()])


def test_read_game_in_rust_as_in_python():
    """Every case read by the Rust parse (or left by it to the Python
    tokenizer) and by the Python tokenizer alone: the same trees, errors
    (with their messages) and handle positions."""
    fast, slow = read_all(CASES), read_all(CASES, Visitor=_Python)
    assert len(fast) == len(slow) == 19
    for (ours, at), (theirs, at_theirs) in zip(fast, slow):
        assert at == at_theirs
        assert described(ours) == described(theirs), ours.headers["Event"]
    parsed = {game.headers["Event"] for game, _ in read_all(CASES) if game._lazy is not None}
    assert parsed == {"plain", "comments", "illegal in the main line", "illegal in a variation",
                      "illegal before a variation in a variation",
                      "ambiguous, standard start", "next game without an empty line",
                      "the next game", "long comment", "escape lines"}


def test_read_game_in_rust_as_python_chess():
    """The cases against python-chess: export format, errors, handle
    positions, main lines (read before the tree is made). Two cases differ
    as test_game_tree.py's DIVERGENT says (pgn_test.pgn): after an illegal
    move in a variation, python-chess loses its place and drops the rest of
    the game; rookery skips the rest of the variation only (its Python
    tokenizer as its Rust parse)."""
    chess = need_python_chess()
    text = CASES.replace(NO_EMPTY_LINE, "")
    theirs = io.StringIO(text)
    for game, at in read_all(text):
        pc = chess.pgn.read_game(theirs)
        event = game.headers["Event"]
        if event in ("illegal in a variation", "illegal before a variation in a variation"):
            assert [m.uci() for m in game.mainline_moves()] == ["d2d4", "d7d5", "c2c4"]
            assert [m.uci() for m in pc.mainline_moves()] == ["d2d4"]
            continue
        assert theirs.tell() == at, event
        assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in pc.mainline_moves()], event
        assert str(game) == str(pc), event
        # As many errors (their kinds may differ: rookery calls `Bb8=Q`
        # invalid SAN, python-chess an illegal move).
        assert len(game.errors) == len(pc.errors), event
    assert chess.pgn.read_game(theirs) is None


def test_the_week_in_chess_parsed_in_rust():
    """A real file: nearly every game read by the Rust parse, its main line
    given before the nodes are made, then the tree as python-chess's."""
    chess = need_python_chess()
    text = text_of(TWIC)
    ours, theirs = io.StringIO(text), io.StringIO(text)
    games = parsed = 0
    while True:
        game, pc = rookery.pgn.read_game(ours), chess.pgn.read_game(theirs)
        if game is None or pc is None:
            assert game is None and pc is None
            break
        games += 1
        parsed += game._lazy is not None
        assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in pc.mainline_moves()]
        assert (str(game), len(game.errors), ours.tell()) == (str(pc), len(pc.errors), theirs.tell())
        assert game._lazy is None  # made by str()
    assert games > 200
    assert parsed >= games * 0.95


def test_lazy_nodes_behave_as_made_ones():
    """A game read by the Rust parse: nodes made on first use, changes to the
    tree seen by mainline_moves() afterwards."""
    game = rookery.pgn.read_game(io.StringIO("{ start } 1. e4 $1 e5 (1... c5) 2. Nf3 *"))
    assert game._lazy is not None
    assert game.comment == "start"
    assert game._lazy is None
    assert game.next().nags == {1}
    game.variations[0].promote_to_main(1)
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "c7c5"]
    game = rookery.pgn.read_game(io.StringIO("1. e4 e5 *"))
    game.add_main_variation(rookery.Move.from_uci("d2d4"))
    assert [m.uci() for m in game.mainline_moves()] == ["d2d4"]


def _attributes(board):
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            list(board.occupied_co), board.occupied, board.promoted, board.turn, board.castling_rights,
            board.ep_square, board.halfmove_clock, board.fullmove_number,
            [m.uci() for m in board.move_stack])


def _rust_push_taken():
    """Board's push and pop are the Rust ones (of the state class Board is
    built on), not Python's."""
    state = rookery._rookery.BoardState
    return (rookery.Board.push is state.push and rookery.Board.pop is state.pop
            and issubclass(rookery.Board, state) and type(state.__dict__["push"]).__name__ == "method_descriptor")


def test_push_as_python_chess():
    """Board.push (in Rust, on the state held in Rust) on pseudo-legal moves
    (pins and checks ignored, as push ignores them), null moves, promotions,
    en passant, castling in standard and Chess960 positions: every attribute
    python-chess keeps is the same after each push, and after popping back;
    and the same as rookery's push in Python."""
    chess = need_python_chess()
    assert _rust_push_taken()
    rng = random.Random(46)
    starts = [(rookery.STARTING_FEN, False),
              ("r3k2r/pPpppppp/8/3Pp3/8/8/PPPP1PPP/R3K2R w KQkq e6 0 1", False),
              ("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1", True),
              ("rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1", True)]
    pushed = 0
    for fen, chess960 in starts:
        for _ in range(8):
            ours = rookery.Board(fen, chess960=chess960)
            python = rookery.Board(fen, chess960=chess960)
            theirs = chess.Board(fen, chess960=chess960)
            for _ in range(60):
                moves = list(theirs.pseudo_legal_moves)
                if not moves:
                    break
                move = rng.choice(moves) if rng.random() > 0.05 else chess.Move.null()
                ours.push(rookery.Move.from_uci(move.uci()))
                python._push_python(rookery.Move.from_uci(move.uci()))
                theirs.push(move)
                pushed += 1
                assert _attributes(ours) == _attributes(theirs) == _attributes(python), theirs.fen()
                assert ours._stack == python._stack
                if not (theirs.kings & theirs.occupied_co[chess.WHITE]
                        and theirs.kings & theirs.occupied_co[chess.BLACK]):
                    break
            while theirs.move_stack:
                assert ours.pop().uci() == theirs.pop().uci()
                assert _attributes(ours) == _attributes(theirs)
    assert pushed > 1000


def _set_attributes(boards, rng):
    """The same change, made by assigning attributes, on each of ``boards``
    (a rookery and a python-chess board): a piece moved or taken off, the
    occupied_co list changed in place or set anew, rights, en passant
    square, clocks, side to move."""
    first = boards[0]
    occupied = [sq for sq in range(64) if first.occupied & (1 << sq) and not first.kings & (1 << sq)]
    empty = [sq for sq in range(64) if not first.occupied & (1 << sq)]
    kind = rng.randrange(6)
    sq = rng.choice(occupied) if occupied else None
    to = rng.choice(empty)
    rights = rng.choice([0, 0xff, 0xff << 56, 0xffffffffffffffff])
    for board in boards:
        if kind == 0 and sq is not None:
            # A piece lifted: every mask written by hand, in place.
            mask = ~(1 << sq)
            white = bool(board.occupied_co[True] & (1 << sq))
            for name in ("pawns", "knights", "bishops", "rooks", "queens"):
                setattr(board, name, getattr(board, name) & mask)
            board.occupied &= mask
            board.occupied_co[white] &= mask
            board.promoted &= mask
        elif kind == 1 and sq is not None:
            # A piece moved to an empty square, occupied_co set anew.
            frm, dst = 1 << sq, 1 << to
            for name in ("pawns", "knights", "bishops", "rooks", "queens"):
                value = getattr(board, name)
                if value & frm:
                    setattr(board, name, (value & ~frm) | dst)
            white, black = board.occupied_co[True], board.occupied_co[False]
            if white & frm:
                white = (white & ~frm) | dst
            else:
                black = (black & ~frm) | dst
            board.occupied_co = [black, white]
            board.occupied = white | black
        elif kind == 2:
            board.castling_rights &= rights
        elif kind == 3:
            board.halfmove_clock, board.fullmove_number = 40, 17
        elif kind == 4:
            board.turn = not board.turn
            board.ep_square = None
        else:
            board.ep_square = to
    return kind


def test_push_after_attributes_set_as_python_chess():
    """Attributes assigned from Python (masks, ``occupied_co`` in place and
    anew, rights, clocks, turn, en passant square) and then moves pushed
    and popped: every attribute the same as python-chess's after each step,
    through the Rust push."""
    chess = need_python_chess()
    assert _rust_push_taken()
    rng = random.Random(4646)
    steps = kinds = 0
    for _ in range(60):
        ours, theirs = rookery.Board(), chess.Board()
        for _ in range(40):
            if rng.random() < 0.2:
                kinds |= 1 << _set_attributes([ours, theirs], rng)
                # Rights the placement no longer allows dropped by hand too:
                # python-chess's push keeps them once moves were played (its
                # clean_castling_rights trusts a game's rights), rookery's
                # drops them (as python-chess's does at the first move).
                ours.castling_rights = theirs.castling_rights = ours.clean_castling_rights()
                assert _attributes(ours) == _attributes(theirs)
            moves = sorted(theirs.pseudo_legal_moves, key=lambda m: m.uci())
            if not moves or not (theirs.kings & theirs.occupied_co[chess.WHITE]
                                 and theirs.kings & theirs.occupied_co[chess.BLACK]):
                break
            move = rng.choice(moves)
            ours.push(rookery.Move.from_uci(move.uci()))
            theirs.push(move)
            steps += 1
            assert _attributes(ours) == _attributes(theirs), theirs.fen()
            assert ours.fen() == theirs.fen()
        while theirs.move_stack:
            assert ours.pop().uci() == theirs.pop().uci()
            assert _attributes(ours) == _attributes(theirs)
    assert steps > 1000 and kinds == 0b111111


def test_games_pushed_as_python_chess():
    """The games of a PGN file pushed move by move and popped back to the
    start: every attribute python-chess keeps is the same after each push
    and pop, and a board of the rookery class copied, pickled and subclassed
    keeps them."""
    import copy
    import pickle
    chess = need_python_chess()
    import chess.pgn as chess_pgn
    assert _rust_push_taken()

    class Mine(rookery.Board):
        def __init__(self, *args, **kwargs):
            self.extra = "kept"
            super().__init__(*args, **kwargs)

    text = text_of(TWIC)
    handle = io.StringIO(text)
    games = pushed = 0
    while games < 150:
        game = chess_pgn.read_game(handle)
        if game is None:
            break
        games += 1
        ours, theirs, mine = rookery.Board(), game.board(), Mine()
        for move in game.mainline_moves():
            ours.push(rookery.Move.from_uci(move.uci()))
            mine.push(rookery.Move.from_uci(move.uci()))
            theirs.push(move)
            pushed += 1
            assert _attributes(ours) == _attributes(theirs) == _attributes(mine)
        for board in (ours.copy(), copy.deepcopy(ours), pickle.loads(pickle.dumps(ours)), mine.copy()):
            assert _attributes(board) == _attributes(theirs)
        assert type(mine.copy()) is Mine and mine.copy().extra == "kept"
        while theirs.move_stack:
            assert ours.pop() == rookery.Move.from_uci(theirs.pop().uci())
            assert _attributes(ours) == _attributes(theirs)
    assert games == 150 and pushed > 5000


def test_repetitions_as_python_chess():
    """Repetition counts and threefold claims (in Rust) on games that go back
    and forth (knights, kings, rooks that lose castling rights, double
    steps that give en passant): the same as python-chess's and as
    rookery's Python count, at every ply."""
    chess = need_python_chess()
    rng = random.Random(3)
    checked = claims = 0
    for fen in [rookery.STARTING_FEN, "r3k2r/8/8/8/1p6/8/P1P5/R3K2R w KQkq - 0 1",
                "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"]:
        for _ in range(6):
            ours, theirs = rookery.Board(fen), chess.Board(fen)
            for _ in range(50):
                legal = sorted(theirs.legal_moves, key=lambda m: m.uci())
                if not legal:
                    break
                # Often the move two plies back taken back, otherwise mostly
                # moves that can be taken back: positions repeat.
                back = None
                if len(theirs.move_stack) >= 2 and rng.random() < 0.6:
                    last = theirs.move_stack[-2]
                    back = chess.Move(last.to_square, last.from_square)
                if back in legal and not theirs.is_castling(back):
                    move = back
                else:
                    quiet = [m for m in legal if not theirs.is_irreversible(m)]
                    move = rng.choice(quiet if quiet and rng.random() < 0.9 else legal)
                ours.push(rookery.Move.from_uci(move.uci()))
                theirs.push(move)
                counted = ours._repetition(True)
                assert counted is not None
                keys = ours._history_keys()
                assert counted[0] == keys.count(keys[0])
                for n in (2, 3, 4, 5):
                    assert ours.is_repetition(n) == theirs.is_repetition(n), theirs.fen()
                claim = ours.can_claim_threefold_repetition()
                assert claim == theirs.can_claim_threefold_repetition(), theirs.fen()
                assert ours.is_fivefold_repetition() == theirs.is_fivefold_repetition()
                checked += 1
                claims += claim
    assert checked > 500 and claims > 20


class _MyBaseBoard(rookery.BaseBoard):
    """A subclass (at module level: pickle finds it by name)."""


def test_base_board_state_pickled_copied_and_subclassed():
    """A BaseBoard (its masks held in Rust) and a subclass of it with an
    attribute of its own: pickled and deep-copied with the promoted mask and
    the attribute; ``occupied_co`` read as a list, compared with one, and
    changed in place."""
    import copy
    import pickle

    board = _MyBaseBoard("8/8/8/3k4/8/8/2Q~5/K7")
    board.tag = "kept"
    for other in (pickle.loads(pickle.dumps(board)), copy.deepcopy(board)):
        assert type(other) is _MyBaseBoard and other == board
        assert other.promoted == board.promoted != 0
        assert other.board_fen(promoted=True) == "8/8/8/3k4/8/8/2Q~5/K7"
    assert pickle.loads(pickle.dumps(board)).tag == "kept"
    co = board.occupied_co
    assert list(co) == [board.occupied_co[0], board.occupied_co[1]] == co
    co[rookery.WHITE] |= 1 << 63
    assert board.occupied_co[-1] == board.occupied_co[True] == co[1] and co[1] >> 63
    with pytest.raises(OverflowError):
        board.pawns = -1


def test_rules_board_built_in_rust_as_python_chess(monkeypatch):
    """The rookery-core board ``san``, legal moves, check and ``outcome`` ask
    for is built in Rust from the state (``BoardState._rules_board``): at
    every ply of games, and of random games from positions with en passant,
    castling rights that cannot be and Chess960 castling, the SAN, the legal
    moves in order, check and the outcome are python-chess's."""
    chess = need_python_chess()
    import chess.pgn as chess_pgn
    built = []
    rules_board = rookery._rookery.BoardState._rules_board

    def counted(self):
        built.append(1)
        return rules_board(self)

    monkeypatch.setattr(rookery.Board, "_rules_board", counted)

    def same(ours, theirs):
        legal = list(theirs.legal_moves)
        assert [m.uci() for m in ours.legal_moves] == [m.uci() for m in legal], theirs.fen()
        assert [ours.san(rookery.Move.from_uci(m.uci())) for m in legal] == [theirs.san(m) for m in legal]
        assert ours.is_check() == theirs.is_check()
        ours_outcome, theirs_outcome = ours.outcome(), theirs.outcome()
        assert (ours_outcome and (ours_outcome.termination.name, ours_outcome.winner)) == (
            theirs_outcome and (theirs_outcome.termination.name, theirs_outcome.winner))
        return legal

    handle = io.StringIO(text_of(TWIC))
    plies = 0
    for _ in range(40):
        game = chess_pgn.read_game(handle)
        ours, theirs = rookery.Board(), game.board()
        for move in game.mainline_moves():
            same(ours, theirs)
            ours.push(rookery.Move.from_uci(move.uci()))
            theirs.push(move)
            plies += 1
        same(ours, theirs)
    rng = random.Random(7)
    for fen, chess960 in [("r3k2r/pPp1pppp/8/3pP3/8/8/PPPP1PPP/R3K2R w KQkq d6 0 1", False),
                          ("rn2k1r1/ppp1pppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", False),
                          ("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1", True),
                          ("4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 1", False)]:
        for _ in range(5):
            ours, theirs = rookery.Board(fen, chess960=chess960), chess.Board(fen, chess960=chess960)
            for _ in range(40):
                legal = same(ours, theirs)
                if not legal:
                    break
                move = rng.choice(legal)
                ours.push(rookery.Move.from_uci(move.uci()))
                theirs.push(move)
                plies += 1
    assert plies > 2000 and len(built) >= plies
