"""Judges a PGN file written by `rookery match`, for crates/cli/tests/match_cli.rs.

Usage: match_check.py GAMES.pgn [PGN_EXTRACT]

Reads every game with python-chess (chess==1.11.2), replays it move by move
(each move must be legal) and judges the final position independently of
rookery:

- a game with Termination "normal" ended by the players' word (a
  resignation, a draw agreed) must have the result those words give, in a
  position the rules have not ended; any other must end in a position where python-chess
  sees the ending rookery names (checkmate, stalemate, insufficient material,
  threefold repetition, fifty moves), and `board.outcome(claim_draw=True)`
  must give the game's result;
- no position before the last may already be over (mate, stalemate,
  insufficient material, threefold, fifty moves): the referee stops at the
  first ending;
- a time forfeit scored as a draw needs a winner who cannot mate;
- PlyCount must be the number of moves.

When PGN_EXTRACT is given, pgn-extract reads the same file on its own
(`--json -Wuci -F`) and must find the same games, the same moves, the same
final FEN and the same results; `--nobadresults` must keep every game.

Prints one JSON object: {"games": [...facts per game...], "problems": [...]}.
Exit status 0 even with problems (the Rust test reports them); 2 on usage.
"""

import json
import subprocess
import sys

from pgn_games import read_games


def reason_predicate(reason):
    """The python-chess test for the ending rookery names in its last comment."""
    r = reason.lower()
    if "mates" in r:
        return "checkmate", lambda b: b.is_checkmate()
    if "stalemate" in r:
        return "stalemate", lambda b: b.is_stalemate()
    if "insufficient" in r:
        return "insufficient material", lambda b: b.is_insufficient_material()
    if "3-fold" in r or "threefold" in r or "repetition" in r:
        return "threefold repetition", lambda b: b.is_repetition(3)
    if "fifty" in r:
        return "fifty moves", lambda b: b.halfmove_clock >= 100
    return None, None


def over(board):
    """Whether the game is already over here by a rule that ends it at once."""
    return (
        board.is_checkmate()
        or board.is_stalemate()
        or board.is_insufficient_material()
        or board.is_repetition(3)
        or board.halfmove_clock >= 100
    )


def judge(game, index, problems):
    h = game.headers
    where = "game %d (Round %s)" % (index + 1, h.get("Round", "?"))
    facts = {
        "round": h.get("Round"),
        "white": h.get("White"),
        "black": h.get("Black"),
        "result": h.get("Result"),
        "termination": h.get("Termination"),
        "plycount": h.get("PlyCount"),
        "fen_tag": h.get("FEN"),
        "errors": [str(e) for e in game.errors],
    }
    for e in game.errors:
        problems.append("%s: python-chess: %s" % (where, e))
    board = game.board()
    facts["start_fen"] = board.fen()
    moves = []
    early = None
    comment = ""
    for node in game.mainline():
        if early is None and over(board):
            early = len(moves)
        if node.move not in board.legal_moves:
            problems.append("%s: move %d %s is illegal in %s" % (where, len(moves) + 1, node.move, board.fen()))
            break
        moves.append(node.move.uci())
        board.push(node.move)
        comment = node.comment
    if not game.mainline_moves() and game.comment:
        comment = game.comment
    if early is not None:
        problems.append("%s: the game was already over after %d plies but went on" % (where, early))
    # The ending in words is the last comment after the last move (rookery
    # writes the engine comment, then the reason).
    reason = comment.split("}")[-1].strip() if comment else ""
    facts["reason"] = reason
    facts["moves"] = moves
    facts["final_fen"] = board.fen()
    facts["final_fen_faux_ep"] = board.fen(en_passant="fen")
    outcome = board.outcome(claim_draw=True)
    facts["python_outcome"] = None if outcome is None else {
        "termination": outcome.termination.name,
        "result": outcome.result(),
    }
    if h.get("PlyCount") != str(len(moves)):
        problems.append("%s: PlyCount %s but %d moves" % (where, h.get("PlyCount"), len(moves)))
    term = h.get("Termination")
    result = h.get("Result")
    words = " ".join(reason.split())
    if term == "normal" and ("resigns" in words or "Draw by agreement" in words):
        # The players' own word (xboard engines resign and agree draws): a
        # game the rules have not ended, with the result the words give.
        if outcome is not None:
            problems.append("%s: %r, but the game was already over (%s)" % (where, words, outcome.termination.name))
        want = "1/2-1/2" if "agreement" in words else ("0-1" if "White resigns" in words else "1-0")
        facts["ending"] = "agreement" if "agreement" in words else "resignation"
        if result != want:
            problems.append("%s: %r with result %s" % (where, words, result))
    elif term == "normal":
        if outcome is None:
            problems.append("%s: Termination normal, but python-chess sees no ending in %s" % (where, board.fen()))
        elif outcome.result() != result:
            problems.append(
                "%s: Result %s, python-chess says %s (%s)" % (where, result, outcome.result(), outcome.termination.name)
            )
        name, pred = reason_predicate(reason)
        facts["ending"] = name
        if pred is None:
            problems.append("%s: a normal ending with an unknown reason %r" % (where, reason))
        elif not pred(board):
            problems.append("%s: rookery says %r, python-chess does not see %s in %s" % (where, reason, name, board.fen()))
    elif term == "time forfeit" and result == "1/2-1/2":
        # The side that did not flag must be unable to mate.
        flagged = board.turn
        if not board.has_insufficient_material(not flagged):
            problems.append("%s: a time forfeit scored as a draw, but the opponent can mate" % where)
    elif term in ("abandoned", "stalled connection", "illegal move", "rules infraction", "time forfeit"):
        if result not in ("1-0", "0-1", "1/2-1/2"):
            problems.append("%s: %s with result %s" % (where, term, result))
    return facts


def pgn_extract_games(tool, path, problems):
    out = subprocess.run(
        [tool, "-s", "--json", "-Wuci", "-F", "--nocomments", path],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        problems.append("pgn-extract failed (%d): %s" % (out.returncode, out.stderr))
        return []
    try:
        return json.loads(out.stdout)
    except ValueError as e:
        problems.append("pgn-extract's JSON does not parse: %s\n%s" % (e, out.stdout[:2000]))
        return []


def pgn_extract_kept(tool, path):
    """Games pgn-extract keeps with --nobadresults (a result that contradicts the final position is dropped)."""
    out = subprocess.run(
        [tool, "-s", "--nobadresults", "-Wuci", path], capture_output=True, text=True, check=False
    )
    return sum(1 for line in out.stdout.splitlines() if line.startswith("[Event "))


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    path = sys.argv[1]
    problems = []
    games = []
    with open(path, encoding="utf-8") as f:
        for game in read_games(f):
            games.append(judge(game, len(games), problems))
    if len(sys.argv) == 3:
        tool = sys.argv[2]
        theirs = pgn_extract_games(tool, path, problems)
        if len(theirs) != len(games):
            problems.append("pgn-extract reads %d games, python-chess %d" % (len(theirs), len(games)))
        for i, (ours, pe) in enumerate(zip(games, theirs)):
            where = "game %d" % (i + 1)
            # pgn-extract writes promotions in upper case (e7e8Q); UCI's are lower case.
            pe_moves = [m["move"].lower() for m in pe.get("Moves", [])]
            ours["pgn_extract_moves"] = pe_moves
            if pe_moves != ours["moves"]:
                problems.append("%s: pgn-extract moves %s, python-chess %s" % (where, pe_moves, ours["moves"]))
            if pe_moves:
                pe_fen = pe["Moves"][-1].get("FEN")
                ours["pgn_extract_fen"] = pe_fen
                if pe_fen != ours["final_fen_faux_ep"]:
                    problems.append(
                        "%s: pgn-extract final FEN %s, python-chess %s" % (where, pe_fen, ours["final_fen_faux_ep"])
                    )
            for tag in ("Result", "Round", "White", "Black", "Termination"):
                if pe.get(tag) != ours[{"Result": "result", "Round": "round", "White": "white",
                                        "Black": "black", "Termination": "termination"}[tag]]:
                    problems.append("%s: pgn-extract %s tag %r differs" % (where, tag, pe.get(tag)))
        kept = pgn_extract_kept(tool, path)
        if kept != len(games):
            problems.append("pgn-extract --nobadresults keeps %d of %d games" % (kept, len(games)))
    print(json.dumps({"games": games, "problems": problems}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
