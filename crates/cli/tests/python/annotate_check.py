"""Checks `rookery pgn annotate` output against its input with python-chess.

usage: annotate_check.py INPUT.pgn OUTPUT.pgn BOOK_PLIES

For every game python-chess reads without errors from the input:
  - the output game has the same mainline, every input tag with its value,
    every input NAG, the input variations (same moves, first), and every
    input comment (our text comes first in a comment, so the input's comment
    ends the output's);
  - every mainline move has an evaluation node.eval() parses;
  - the judgement of every move after the book, recomputed here from the
    written [%eval]s alone (winning chances 100 / (1 + exp(-0.00368208 cp)),
    cp capped at +-1000, a mate 100 or 0; drops of 5 / 10 / 15 points), is the
    NAG written (unless the input had its own move-assessment NAG there); so
    every ?? is a move after which the mover's chances fell by >= 15 points;
  - the figure tags (ACPL, accuracy, counts) equal the values recomputed
    here from the written evaluations;
  - a game that ends in checkmate has '#' evaluations at its end.
Prints one JSON line of counts; exits 1 with the reasons on failure.
"""

import json
import math
import re
import sys

import chess
import chess.pgn

CEIL = 1000
SLOPE = 0.00368208
DROPS = [(15.0, 4), (10.0, 2), (5.0, 6)]  # blunder, mistake, inaccuracy
EVAL_RE = re.compile(r"\[%eval ([^\]]*)\]")

failures = []
counts = {"games": 0, "moves": 0, "judged": 0, "blunders": 0, "mistakes": 0,
          "inaccuracies": 0, "mate_games": 0, "variations_added": 0}


def fail(msg):
    failures.append(msg)


def white_view(node):
    """(cp or None, mate winner or None) from White's view, parsed by python-chess."""
    pov = node.eval()
    if pov is None:
        return None
    w = pov.white()
    if w.is_mate():
        m = w.mate()
        if m == 0:
            # '#0': the side to move is mated.
            board = node.board()
            return ("mate", not board.turn)
        return ("mate", chess.WHITE if m > 0 else chess.BLACK)
    return ("cp", w.score())


def cp_for(ev, side):
    kind, v = ev
    if kind == "mate":
        return CEIL if v == side else -CEIL
    c = max(-CEIL, min(CEIL, v))
    return c if side == chess.WHITE else -c


def win(ev, side):
    if ev[0] == "mate":
        return 100.0 if ev[1] == side else 0.0
    return 100.0 / (1.0 + math.exp(-SLOPE * cp_for(ev, side)))


def check_game(n, gin, gout, book):
    tag = f"game {n}"
    min_ = list(gin.mainline_moves())
    mout = list(gout.mainline_moves())
    if min_ != mout:
        fail(f"{tag}: mainline differs")
        return
    for k, v in gin.headers.items():
        if gout.headers.get(k) != v:
            fail(f"{tag}: tag {k} {v!r} became {gout.headers.get(k)!r}")
    # Comments, NAGs, variations of the input, node by node (the root included).
    nin, nout = gin, gout
    while True:
        # Line breaks in comments are not significant (the writer re-wraps).
        cin = " ".join(EVAL_RE.sub("", nin.comment).split())
        if cin and not " ".join(nout.comment.split()).endswith(cin):
            fail(f"{tag}: comment {cin!r} lost: {nout.comment!r}")
        if not set(nin.nags) <= set(nout.nags):
            fail(f"{tag}: NAGs {nin.nags} lost: {nout.nags}")
        vin = [v.move for v in nin.variations]
        vout = [v.move for v in nout.variations]
        if vout[:len(vin)] != vin:
            fail(f"{tag}: variations {vin} became {vout}")
        if nin.variations:
            for a, b in zip(nin.variations[1:], nout.variations[1:]):
                if list(a.mainline_moves()) != list(b.mainline_moves()):
                    fail(f"{tag}: variation {a.move} changed")
            counts["variations_added"] += len(vout) - len(vin)
        else:
            counts["variations_added"] += max(0, len(vout) - 1)
        if nin.is_end():
            break
        nin, nout = nin.variations[0], nout.variations[0]
    # Evaluations on every mainline move; judgements from them.
    nodes = list(gout.mainline())
    evals = [white_view(gout)] + [white_view(x) for x in nodes]
    for i, x in enumerate(nodes):
        counts["moves"] += 1
        if evals[i + 1] is None:
            fail(f"{tag}: ply {i + 1} ({x.san()}) has no evaluation: {x.comment!r}")
    if any(e is None for e in evals[1:]):
        return
    figures = {chess.WHITE: [0, 0, 0.0, 0, 0, 0], chess.BLACK: [0, 0, 0.0, 0, 0, 0]}
    in_nodes = list(gin.mainline())
    for i, x in enumerate(nodes):
        if i < book:
            if any(g in x.nags for g in (2, 4, 6)) and not set(x.nags) & set(in_nodes[i].nags):
                fail(f"{tag}: book ply {i + 1} judged")
            continue
        mover = x.parent.board().turn
        before, after = evals[i], evals[i + 1]
        if before is None:
            fail(f"{tag}: no evaluation of the start position to judge ply 1")
            return
        drop = max(0.0, win(before, mover) - win(after, mover))
        loss = max(0, cp_for(before, mover) - cp_for(after, mover))
        acc = max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))
        nag = next((g for t, g in DROPS if drop >= t), None)
        f = figures[mover]
        f[0] += 1
        f[1] += loss
        f[2] += acc
        if nag == 6:
            f[3] += 1
        elif nag == 2:
            f[4] += 1
        elif nag == 4:
            f[5] += 1
        counts["judged"] += 1
        human = [g for g in in_nodes[i].nags if 1 <= g <= 6]
        ours = [g for g in x.nags if 1 <= g <= 6 and g not in human]
        if human:
            if ours:
                fail(f"{tag}: ply {i + 1}: NAG {ours} added beside the input's {human}")
        elif ours != ([nag] if nag else []):
            fail(f"{tag}: ply {i + 1} {x.san()}: NAGs {ours}, the evaluations "
                 f"{before} -> {after} (drop {drop:.2f}) give {nag}")
        if 4 in ours:
            counts["blunders"] += 1
            if drop < 15.0:
                fail(f"{tag}: ?? at ply {i + 1} with a drop of only {drop:.2f}")
        if 2 in ours:
            counts["mistakes"] += 1
        if 6 in ours:
            counts["inaccuracies"] += 1
    for side, name in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
        moves, loss, acc, ina, mis, blu = figures[side]
        want = {f"{name}Inaccuracies": str(ina), f"{name}Mistakes": str(mis),
                f"{name}Blunders": str(blu)}
        if moves:
            want[f"{name}ACPL"] = str((2 * loss + moves) // (2 * moves))
        for k, v in want.items():
            if gout.headers.get(k) != v:
                fail(f"{tag}: tag {k} is {gout.headers.get(k)!r}, the evaluations give {v}")
        if moves:
            got = float(gout.headers.get(f"{name}Accuracy", "nan"))
            if not abs(got - acc / moves) <= 0.05 + 1e-9:
                fail(f"{tag}: {name}Accuracy {got}, the evaluations give {acc / moves:.3f}")
            if f"ACPL {want[name + 'ACPL']}," not in " ".join(gout.comment.split()):
                fail(f"{tag}: summary comment lacks {name}'s ACPL: {gout.comment!r}")
    # A game ending in mate.
    board = gout.end().board()
    if board.is_checkmate():
        counts["mate_games"] += 1
        last = EVAL_RE.search(nodes[-1].comment)
        prev = EVAL_RE.search(nodes[-2].comment) if len(nodes) > 1 else None
        if not last or not last.group(1).startswith("#"):
            fail(f"{tag}: mating move without a # evaluation: {nodes[-1].comment!r}")
        if not prev or not prev.group(1).startswith("#"):
            fail(f"{tag}: the position before mate has no # evaluation: {nodes[-2].comment!r}")


def main():
    inp, out, book = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(inp, encoding="utf-8", errors="strict") as fin, \
            open(out, encoding="utf-8", errors="strict") as fout:
        n = 0
        while True:
            gin = chess.pgn.read_game(fin)
            gout = chess.pgn.read_game(fout)
            if gin is None or gout is None:
                if (gin is None) != (gout is None):
                    fail(f"game count differs after game {n}")
                break
            n += 1
            if gin.errors:
                continue
            if gout.errors:
                fail(f"game {n}: python-chess reads the output with errors: {gout.errors}")
                continue
            counts["games"] += 1
            check_game(n, gin, gout, book)
    print(json.dumps(counts))
    if failures:
        for f in failures:
            print(f, file=sys.stderr)
        sys.exit(1)


main()
