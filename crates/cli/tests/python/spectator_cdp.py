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
import fcntl
import json
import os
import pathlib
import subprocess
import sys
import time

CHROMIUM, URL, PROFILE, SHOT = sys.argv[1:5]
# The flags the Rust tests start Chromium with (rookery_testkit::peer::chromium_flags).
FLAGS = (pathlib.Path(__file__).resolve().parents[3] / "testkit" / "chromium-flags.txt").read_text().split()
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


def pipes():
    """Pipes on descriptors 3 (Chromium reads) and 4 (Chromium writes);
    returns the parent's ends (write, read)."""
    ends = os.pipe() + os.pipe()
    # Every end above 10 first, so that placing two on 3 and 4 clobbers none.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in ends]
    for fd in ends:
        os.close(fd)
    to_chrome_r, to_chrome_w, from_chrome_r, from_chrome_w = high
    os.dup2(to_chrome_r, 3)
    os.dup2(from_chrome_w, 4)
    os.close(to_chrome_r)
    os.close(from_chrome_w)
    return to_chrome_w, from_chrome_r


class Browser:
    def __init__(self):
        self.write_fd, self.read_fd = pipes()
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                *FLAGS,
                "--user-data-dir=" + PROFILE,
                "--remote-debugging-pipe",
                "--window-size=1280,1000",
                "about:blank",
            ],
            pass_fds=(3, 4),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(3)
        os.close(4)
        self.buf = b""
        self.next_id = 0

    def call(self, method, params=None, session=None, timeout=15.0):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.write_fd, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            if time.monotonic() > deadline:
                raise RuntimeError(f"{method}: no answer in {timeout} s")
            chunk = os.read(self.read_fd, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main():
    b = Browser()
    out = {}
    try:
        target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        b.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        b.call("Page.enable", {}, session)
        b.call("Page.navigate", {"url": URL}, session)

        def observe():
            r = b.call(
                "Runtime.evaluate", {"expression": OBSERVE, "returnByValue": True}, session
            )
            value = r.get("result", {}).get("value")
            return json.loads(value) if value else None

        def wait_for(ok, what):
            deadline = time.monotonic() + WAIT
            seen = None
            while time.monotonic() < deadline:
                seen = observe()
                if seen and ok(seen):
                    return seen
                time.sleep(0.1)
            raise RuntimeError(f"timed out waiting for {what}; last seen: {seen}")

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
    except Exception as e:  # report, the caller fails the test
        out["error"] = str(e)
    finally:
        b.close()
    print(json.dumps(out))
    sys.exit(1 if "error" in out else 0)


main()
