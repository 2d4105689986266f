"""rookery.db against python-chess: a database imported from a sample of The
Week in Chess answers the explorer, the bucket filters, search and games as
python-chess counts and reads the same file; its errors are Python's."""

import pytest

import rookery.db

from conftest import TWIC, need_python_chess

RATING_GROUPS = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("db")
    db = rookery.db.open(folder / "twic.rdb", create=True)
    report = db.import_pgn([TWIC])
    return db, report, folder


@pytest.fixture(scope="module")
def games():
    """The sample's games as python-chess reads them: headers and mainline."""
    chess = need_python_chess()
    out = []
    with open(TWIC, encoding="utf-8", errors="replace") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            out.append((game.headers, list(game.mainline_moves()), game.errors))
    return out


def elo(headers, name):
    try:
        v = int(headers.get(name, "").strip())
    except ValueError:
        return None
    return v if v > 0 else None


def month(headers):
    """`year * 12 + month - 1` of the Date tag, or None when either is unknown."""
    parts = headers.get("Date", "").split(".")
    try:
        year, mon = int(parts[0]), int(parts[1])
    except (ValueError, IndexError):
        return None
    return year * 12 + mon - 1 if year > 0 and 1 <= mon <= 12 else None


def explorer_counts(games, admit=lambda headers: True):
    """Per position (python-chess's EPD: an en passant square only when a
    capture is legal): the games through it by result, and per move played
    from it (a game counted once, for the last move it played there)."""
    chess = need_python_chess()
    through, moves = {}, {}
    for headers, mainline, _ in games:
        if not admit(headers):
            continue
        result = headers.get("Result", "*")
        board = chess.Board()
        last = {}
        seen = [board.epd()]
        for move in mainline:
            last[board.epd()] = (move.uci(), board.fen())
            board.push(move)
            seen.append(board.epd())
        for key in set(seen):
            through.setdefault(key, {"1-0": 0, "1/2-1/2": 0, "0-1": 0, "*": 0})[result] += 1
        for key, (uci, _) in last.items():
            per = moves.setdefault(key, {}).setdefault(uci, {"1-0": 0, "1/2-1/2": 0, "0-1": 0, "*": 0})
            per[result] += 1
    fens = {}
    for headers, mainline, _ in games:
        board = chess.Board()
        for move in mainline:
            fens.setdefault(board.epd(), board.fen())
            board.push(move)
    return through, moves, fens


def as_lichess(tally):
    return (tally["1-0"], tally["1/2-1/2"], tally["0-1"])


def answer_of(db, fen, **filters):
    a = db.explore(fen=fen, **filters)
    return (a["white"], a["draws"], a["black"]), {m["uci"]: (m["white"], m["draws"], m["black"]) for m in a["moves"]}


def sample_positions(through, fens, n=40):
    """Positions reached by more than one game (transpositions among them),
    and some reached once, in a fixed order."""
    shared = sorted(k for k, t in through.items() if sum(t.values()) > 1 and k in fens)
    single = sorted(k for k, t in through.items() if sum(t.values()) == 1 and k in fens)
    step = max(1, len(shared) // n)
    return shared[::step][:n] + single[:: max(1, len(single) // 10)][:10]


def test_import_stores_every_game_python_chess_reads(built, games):
    db, report, _ = built
    clean = [g for g in games if not g[2]]
    assert report["games"] == len(clean) == len(db) == 225
    assert report["duplicates"] == 0 and report["bad"] == []
    info = db.info()
    assert info["games"] == 225 and info["positions"] > 10_000 and info["segments"] >= 1


def test_a_second_import_with_dedupe_leaves_every_game_out(tmp_path):
    db = rookery.db.open(tmp_path / "d.rdb", create=True)
    assert db.import_pgn([TWIC])["games"] == 225
    again = db.import_pgn([TWIC], dedupe=True)
    assert (again["games"], again["duplicates"]) == (0, 225)
    assert len(db) == 225
    assert len(db.info()["imports"]) == 2


def test_explorer_counts_what_python_chess_counts(built, games):
    db, _, _ = built
    through, moves, fens = explorer_counts(games)
    positions = sample_positions(through, fens)
    assert len(positions) >= 30
    for key in positions:
        totals, per_move = answer_of(db, fens[key])
        assert totals == as_lichess(through[key]), fens[key]
        expected = {uci: as_lichess(t) for uci, t in moves.get(key, {}).items()}
        assert per_move == expected, fens[key]


def test_explorer_from_the_start_by_play_is_the_fen(built, games):
    db, _, _ = built
    chess = need_python_chess()
    board = chess.Board()
    for uci in ["d2d4", "g8f6", "c2c4"]:
        board.push_uci(uci)
    by_play = db.explore(play=["d2d4", "g8f6", "c2c4"])
    assert by_play == db.explore(play="d2d4,g8f6,c2c4")
    assert (by_play["white"], by_play["draws"], by_play["black"]) == answer_of(db, board.fen())[0]
    assert by_play["opening"]["eco"].startswith("A")
    # The start: every game, its moves most played first.
    start = db.explore()
    assert start["white"] + start["draws"] + start["black"] == sum(
        1 for h, _, _ in games if h.get("Result") in ("1-0", "0-1", "1/2-1/2"))
    counts = [m["white"] + m["draws"] + m["black"] for m in start["moves"]]
    assert counts == sorted(counts, reverse=True)
    assert len(start["topGames"]) <= 4 and len(start["recentGames"]) <= 4
    assert len(db.explore(top_games=15, recent_games=0)["topGames"]) == 15


def test_rating_and_month_filters_count_what_python_chess_counts(built, games):
    db, _, _ = built

    def group(headers):
        w, b = elo(headers, "WhiteElo"), elo(headers, "BlackElo")
        if w is None or b is None:
            return None
        avg = (w + b) // 2
        return max(g for g in RATING_GROUPS if avg >= g)

    groups = [2200, 2500]
    through, moves, fens = explorer_counts(games, lambda h: group(h) in groups)
    months = sorted({m for h, _, _ in games if (m := month(h)) is not None})
    assert len(months) >= 2, "the sample spans one month only"
    cut = months[len(months) // 2]
    since_text = f"{cut // 12}-{cut % 12 + 1:02d}"
    after, after_moves, _ = explorer_counts(games, lambda h: (m := month(h)) is not None and m >= cut)
    all_through, _, all_fens = explorer_counts(games)
    for key in sample_positions(all_through, all_fens, n=20):
        fen = all_fens[key]
        totals, per_move = answer_of(db, fen, ratings=groups)
        assert totals == as_lichess(through.get(key, {"1-0": 0, "1/2-1/2": 0, "0-1": 0})), fen
        assert per_move == {u: as_lichess(t) for u, t in moves.get(key, {}).items()}, fen
        totals, per_move = answer_of(db, fen, since=since_text)
        assert totals == as_lichess(after.get(key, {"1-0": 0, "1/2-1/2": 0, "0-1": 0})), fen
        assert per_move == {u: as_lichess(t) for u, t in after_moves.get(key, {}).items()}, fen
    # A filter no game passes.
    nobody = db.explore(until="1900-01")
    assert (nobody["white"], nobody["draws"], nobody["black"], nobody["moves"]) == (0, 0, 0, [])


def test_scout_finds_the_plies_python_chess_finds(built, games):
    """Scoutfish's queries: a sequence of moves, a streak of quiet moves
    around a queen taken, a result; the first ply each condition is met at,
    as a python-chess walk over the same games finds them."""
    chess = need_python_chess()
    db, _, _ = built

    def first_run(game_moves, tests, after=0):
        """The first ply >= after from which tests[j] holds at ply + j."""
        board = chess.Board()
        boards = []
        for move in game_moves:
            boards.append((board.copy(stack=False), move))
            board.push(move)
        for start in range(after, len(boards) - len(tests) + 1):
            if all(t(*boards[start + j]) for j, t in enumerate(tests)):
                return start
        return None

    def moved(piece, to, white):
        """A move as a SAN pattern without a disambiguation reads it: the
        piece, the square, no capture (Nf6 is Nbf6 too)."""
        return lambda b, m: (b.turn == white and b.piece_type_at(m.from_square) == piece
                             and m.to_square == to and not b.is_capture(m))

    def quiet(b, m):
        return not b.is_capture(m)

    def takes_queen(b, m):
        return b.turn == chess.WHITE and b.piece_type_at(m.to_square) == chess.QUEEN

    want_seq, want_streak = [], []
    for i, (headers, mainline, _) in enumerate(games):
        a = first_run(mainline, [moved(chess.PAWN, chess.D4, True)])
        b = None if a is None else first_run(mainline, [moved(chess.KNIGHT, chess.F6, False)], a + 1)
        if b is not None and headers.get("Result") in ("1-0", "0-1"):
            want_seq.append((i + 1, [a, b]))
        s = first_run(mainline, [quiet, takes_queen, quiet])
        if s is not None:
            want_streak.append((i + 1, [s, s + 1, s + 2]))
    got = db.scout({"sequence": [{"white-move": "d4"}, {"black-move": "Nf6"}], "result": ["1-0", "0-1"]})
    assert got == want_seq and len(got) > 5
    assert db.scout('{"sequence": [{"white-move": "d4"}, {"black-move": "Nf6"}], "result": ["1-0", "0-1"]}',
                    jobs=2) == want_seq
    streak = {"streak": [{"captured": ""}, {"stm": "white", "captured": "Q"}, {"captured": ""}]}
    assert db.scout(streak) == want_streak and want_streak
    assert db.scout(dict(streak, skip=1, limit=2)) == want_streak[1:3]
    with pytest.raises(ValueError, match=r"sequence\[1\]: fen"):
        db.scout({"sequence": [{"pass": ""}, {"fen": "8/8/8/8/8/8/8/8"}]})


def test_search_finds_what_python_chess_finds(built, games):
    db, _, _ = built

    def ids(test):
        return [i + 1 for i, (h, moves, _) in enumerate(games) if test(h, moves)]

    names = sorted({h["White"] for h, _, _ in games})
    player = names[len(names) // 3].split(",")[0][:5].lower()
    assert db.search(player=player) == ids(
        lambda h, _: player in h["White"].lower() or player in h["Black"].lower())
    assert db.search(result="1-0") == ids(lambda h, _: h["Result"] == "1-0")
    assert db.search(result=["1-0", "0-1"], elo="2600") == ids(
        lambda h, _: h["Result"] in ("1-0", "0-1")
        and all((elo(h, t) or 0) >= 2600 for t in ("WhiteElo", "BlackElo")))
    assert db.search(plies="..40") == ids(lambda _, m: len(m) <= 40)
    assert db.search(eco="B20..B99") == ids(lambda h, _: "B20" <= h.get("ECO", "") <= "B99")
    assert db.search(result="1-0", invert=True) == ids(lambda h, _: h["Result"] != "1-0")
    assert db.search(result="1-0", limit=3) == ids(lambda h, _: h["Result"] == "1-0")[:3]
    assert db.search(player="no such player anywhere") == []
    # A tag the database does not keep: refused, never "no game".
    for tests in ({"termination": "time forfeit"}, {"tag": "TimeControl=180+0"}):
        with pytest.raises(ValueError, match="does not keep"):
            db.search(**tests)


def test_games_are_the_games_python_chess_reads(built, games):
    db, _, _ = built
    chess = need_python_chess()
    read = list(db.games())
    assert len(read) == len(games)
    for game, (headers, mainline, _) in zip(read, games):
        assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in mainline]
        for tag in ("White", "Black", "Result", "Date", "WhiteElo", "BlackElo", "ECO"):
            assert game.headers.get(tag) == headers.get(tag), tag
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
        expected = chess.Board()
        for move in mainline:
            expected.push(move)
        assert board.fen() == expected.fen()
    found = db.search_games(result="0-1")
    assert [g.headers["Result"] for g in found] == ["0-1"] * len(found) and found
    assert db.game(len(games) + 1) is None and db.pgn(0) is None
    with pytest.raises(KeyError):
        list(db.games([len(games) + 1]))


def test_errors_are_pythons(built, tmp_path):
    db, _, folder = built
    with pytest.raises(FileNotFoundError):
        rookery.db.open(tmp_path / "missing.rdb")
    assert not (tmp_path / "missing.rdb").exists()
    with pytest.raises(OSError, match="nowhere.pgn"):
        db.import_pgn([tmp_path / "nowhere.pgn"])
    assert len(db) == 225
    with pytest.raises(ValueError, match="fen"):
        db.explore(fen="not a fen")
    with pytest.raises(ValueError, match="e2e5"):
        db.explore(play="e2e5")
    with pytest.raises(ValueError, match="speeds"):
        db.explore(speeds="hyperbullet")
    with pytest.raises(ValueError, match="ratings"):
        db.explore(ratings=[2100])
    with pytest.raises(ValueError, match="color"):
        db.explore(player="Carlsen")
    with pytest.raises(ValueError):
        db.explore(top_games=16)
    with pytest.raises(ValueError, match="range"):
        db.search(elo="strong")
    with pytest.raises(ValueError, match="result"):
        db.search(result="2-0")
    assert repr(db).startswith("<rookery.db.Database")
