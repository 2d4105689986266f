"""Drives the page of `rookery db serve` in headless Chromium over the
DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ending in
a NUL byte on descriptors 3 and 4), as spectator_cdp.py drives the spectator
page. Standard library only.

Usage: db_page_cdp.py CHROMIUM URL PROFILE_DIR [WAIT_SECONDS [QUERY]]

It opens URL, waits for the explorer's table, clicks its first move (a
click on the row), waits for the position to change, then plays the first
move of the new table on the board with the mouse (a press on the piece's
square, then on its target square) and waits again. With QUERY (a
Scoutfish query), it then types it into the search form's query field,
submits the form, waits for the games found, clicks the first and waits
for the board to show that game's position. It prints one JSON object:
{"first": SEEN, "second": SEEN, "third": SEEN, "board_move": UCI,
"found": [ROW TEXT, ...], "found_id": ID, "at_found": SEEN}, SEEN being the
FEN the page shows, its table's moves (UCI) and the squares of its board;
or {"error": ...} and exits 1 when a wait runs out.
"""
import json
import os
import sys

from cdp_pipe import look_and_report, poll

CHROMIUM, URL, PROFILE = sys.argv[1:4]
WAIT = float(sys.argv[4]) if len(sys.argv) > 4 else 30.0
QUERY = sys.argv[5] if len(sys.argv) > 5 else None

SEE = r"""
(() => JSON.stringify({
  fen: document.body.dataset.fen || null,
  rows: Array.from(document.querySelectorAll('#moves tr.move-row')).map(r => r.dataset.uci),
  squares: document.querySelectorAll('#board .sq').length,
  top_games: document.querySelectorAll('#top-games tr.game-row').length,
}))()
"""


def look(b, out):
    session = b.open(URL, 1400)

    def evaluate(expr):
        return b.evaluate(session, expr)

    def see():
        v = evaluate(SEE)
        return json.loads(v) if v else None

    def wait_for(ok, what):
        return poll(see, ok, what, WAIT)

    def click_square(sq):
        rect = json.loads(evaluate(
            "JSON.stringify(document.querySelector('[data-square=\"%s\"]').getBoundingClientRect())" % sq))
        x, y = rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2
        for kind in ("mousePressed", "mouseReleased"):
            b.call("Input.dispatchMouseEvent",
                   {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}, session)

    first = wait_for(lambda s: s["fen"] and s["rows"] and s["squares"] == 64, "the explorer's table")
    out["first"] = first
    evaluate("document.querySelector('#moves tr.move-row').click(); true")
    second = wait_for(lambda s: s["fen"] and s["fen"] != first["fen"], "the position after a click on a move")
    out["second"] = second
    if second["rows"]:
        uci = second["rows"][0]
        out["board_move"] = uci
        click_square(uci[:2])
        click_square(uci[2:4])
        out["third"] = wait_for(lambda s: s["fen"] != second["fen"], "the position after a move on the board")
    if QUERY is not None:
        before = see()
        evaluate("document.querySelector('#search input[name=query]').value = %s; "
                 "document.querySelector('#search button[type=submit]').click(); true" % json.dumps(QUERY))
        rows = poll(lambda: json.loads(evaluate(
            "JSON.stringify(Array.from(document.querySelectorAll('#found tr.game-row'))"
            ".map(r => [r.dataset.id, r.textContent]))")), bool, "the games the query found", WAIT)
        out["found"] = [text for _, text in rows]
        out["found_id"] = rows[0][0]
        evaluate("document.querySelector('#found tr.game-row').click(); true")
        out["at_found"] = wait_for(lambda s: s["fen"] != before["fen"], "the board at the game found")


look_and_report(CHROMIUM, PROFILE, look)
