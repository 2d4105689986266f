"""What the page tests' scripts share: headless Chromium driven over the
DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ending
in a NUL byte on descriptors 3 and 4). Standard library only.
"""
import fcntl
import json
import os
import pathlib
import subprocess
import sys
import time

FLAGS = (pathlib.Path(__file__).resolve().parents[3] / "testkit" / "chromium-flags.txt").read_text().split()


def pipes():
    ends = os.pipe() + os.pipe()
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in ends]
    for fd in ends:
        os.close(fd)
    to_r, to_w, from_r, from_w = high
    os.dup2(to_r, 3)
    os.dup2(from_w, 4)
    os.close(to_r)
    os.close(from_w)
    return to_w, from_r


class Browser:
    """Headless Chromium on a DevTools pipe, with a fresh profile in
    `profile`; `call` sends one command and waits for its answer."""

    def __init__(self, chromium, profile):
        self.write_fd, self.read_fd = pipes()
        self.proc = subprocess.Popen(
            [chromium, *FLAGS, "--user-data-dir=" + profile, "--remote-debugging-pipe",
             "--window-size=1400,1000", "about:blank"],
            pass_fds=(3, 4), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
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

    def open(self, url, width):
        """Opens `url` in a new tab, in a window `width` by 1000 CSS
        pixels; returns the tab's session."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        self.call("Page.enable", {}, session)
        self.call("Page.navigate", {"url": url}, session)
        return session

    def evaluate(self, session, expression):
        """The value of the JavaScript `expression` in the tab of `session`."""
        r = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session
        )
        return r.get("result", {}).get("value")

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


def poll(look, ok, what, wait):
    """Calls `look` every 0.1 s until it returns something `ok` holds of,
    for at most `wait` seconds: returns that, or raises naming `what` and
    the last thing seen."""
    deadline = time.monotonic() + wait
    seen = None
    while time.monotonic() < deadline:
        seen = look()
        if seen and ok(seen):
            return seen
        time.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {what}; last seen: {seen}")


def look_and_report(chromium, profile, look):
    """Runs `look(browser, out)` on a Browser of its own, `look` filling the
    dict `out` with what it saw; then prints `out` as one JSON object and
    exits 0, or 1 with `out["error"]` saying what went wrong (the caller
    fails the test)."""
    b = Browser(chromium, profile)
    out = {}
    try:
        look(b, out)
    except Exception as e:  # reported; the caller fails the test
        out["error"] = str(e)
    finally:
        b.close()
    print(json.dumps(out))
    sys.exit(1 if "error" in out else 0)
