"""Watches the spectator page of `rookery referee serve` in headless Chromium,
driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages ending in a NUL byte on file descriptors 3 and 4). Standard library
only.

Usage: spectator_cdp.py CHROMIUM URL PROFILE_DIR SCREENSHOT.png [WAIT_SECONDS [OBSERVE.js]]

It opens URL once, waits until the page shows a game (a board SVG, both
clocks, at least one move), marks the page's window object, then waits until
the board shows another position, and takes a PNG screenshot. It prints one
JSON object: {"first": OBSERVATION, "later": OBSERVATION} (an observation is
what the page showed: see OBSERVE), or {"error": ...} and exits 1 when a wait
ran out. The caller judges the observations.

OBSERVE.js, if given, replaces the observation below with an expression of
another page that returns the same fields (mark, boards, fen, white_clock,
black_clock, moves) and its own: the match page's (match_observe.js) does.
"""
import base64
import json
import os
import pathlib
import sys

from cdp_pipe import look_and_report, poll

CHROMIUM, URL, PROFILE, SHOT = sys.argv[1:5]
# The flags the Rust tests start Chromium with (rookery_testkit::peer::chromium_flags).
WAIT = float(sys.argv[5]) if len(sys.argv) > 5 else 20.0
OBSERVE_FILE = sys.argv[6] if len(sys.argv) > 6 else None

# What the page shows of its first game in progress. `mark` survives only as
# long as the page is not reloaded.
OBSERVE = r"""
(() => {
  const g = document.querySelector('#live .game');
  const svg = g ? g.querySelector('svg.board') : null;
  const title = svg ? svg.querySelector('title') : null;
  const text = sel => { const e = g ? g.querySelector(sel) : null; return e ? e.textContent : null; };
  return JSON.stringify({
    mark: window.__spectatorMark || null,
    boards: document.querySelectorAll('#live svg.board').length,
    fen: title ? title.textContent : null,
    marked: svg ? svg.querySelectorAll('rect.marked').length : 0,
    white_clock: text('.clock.white'),
    black_clock: text('.clock.black'),
    running: g ? Array.from(g.querySelectorAll('.clock.running')).map(e => e.dataset.side) : [],
    evals: g ? Array.from(g.querySelectorAll('.eval')).map(e => e.textContent) : [],
    moves: g ? Array.from(g.querySelectorAll('.moves span')).map(e => e.textContent) : [],
    // The move list as a copy or a screen reader gets it.
    moves_text: g && g.querySelector('.moves') ? g.querySelector('.moves').innerText : null,
    schedule_pager: document.getElementById('schedule-pager') ? document.getElementById('schedule-pager').innerText : null,
    connection: document.getElementById('connection').textContent,
    standings: document.querySelectorAll('#standings tr').length,
    cross_table: document.querySelectorAll('#cross-table tr').length,
    scripts: Array.from(document.scripts).map(s => s.src),
  });
})()
"""
if OBSERVE_FILE:
    OBSERVE = pathlib.Path(OBSERVE_FILE).read_text()


def look(b, out):
    session = b.open(URL, 1280)

    def observe():
        value = b.evaluate(session, OBSERVE)
        return json.loads(value) if value else None

    def wait_for(ok, what):
        return poll(observe, ok, what, WAIT)

    first = wait_for(
        lambda o: o["boards"] >= 1
        and o["white_clock"]
        and o["black_clock"]
        and len(o["moves"]) >= 1,
        "a game with a board, both clocks and a move",
    )
    b.call(
        "Runtime.evaluate",
        {"expression": "window.__spectatorMark = 'first-load'; true"},
        session,
    )
    out["first"] = first
    out["later"] = wait_for(lambda o: o["fen"] != first["fen"], "another position")
    shot = b.call("Page.captureScreenshot", {"format": "png"}, session)
    with open(SHOT, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


look_and_report(CHROMIUM, PROFILE, look)
