"""A hostile client of the Argus referee: raw sockets and python-chess, no
rookery code. Usage: argus_hostile.py HOST:PORT NAME TOKEN OPPONENT

It checks what the referee does with: a connection that never signs on,
garbage, a 5,000-byte line, a reply out of turn, a wrong token, an unknown
name, a second sign-on under a name in use; then, in a three-game event
(White, Black, White: colours alternate from round to round), plays random
legal moves and offers a draw (the opponent accepts), resigns in the second
game and sends an illegal move in the third. Prints "all ok" at the end; any failed check raises.
"""
import random
import socket
import sys

import chess

host, port = sys.argv[1].rsplit(":", 1)
NAME, TOKEN, OPPONENT = sys.argv[2], sys.argv[3], sys.argv[4]
START = chess.Board().epd()
random.seed(15)


class Conn:
    def __init__(self):
        self.s = socket.create_connection((host, int(port)), timeout=60)
        self.f = self.s.makefile("rb")

    def send(self, line):
        self.s.sendall(line.encode() + b"\n")

    def recv(self):
        line = self.f.readline()
        if not line:
            return None
        line = line.decode().rstrip("\r\n")
        assert len(line) <= 4096, len(line)
        return line

    def close(self):
        self.s.close()


def ops(line):
    """The operations of a record as {opcode: operand text}."""
    fields = line.split(" ", 4)
    rest = fields[4] if len(fields) > 4 else ""
    out, cur, quoted = {}, "", False
    for ch in rest:
        if ch == '"':
            quoted = not quoted
        if ch == ";" and not quoted:
            cur = cur.strip()
            if cur:
                op, _, arg = cur.partition(" ")
                out[op] = arg
            cur = ""
        else:
            cur += ch
    return out


def board_of(line):
    o = ops(line)
    epd4 = " ".join(line.split(" ")[:4])
    return chess.Board(f"{epd4} {o.get('hmvc', '0')} {o.get('fmvn', '1')}")


def rec(board, text):
    return f"{board.epd(en_passant='fen')} fmvn {board.fullmove_number}; hmvc {board.halfmove_clock}; {text}"


def expect_fault(c, why):
    line = c.recv()
    assert line is not None, f"no fault for {why}: connection closed"
    o = ops(line)
    assert o.get("refcom") == "fault", f"{why}: expected a fault, got {line}"
    return o.get("c0", "")


def expect_closed(c, why):
    line = c.recv()
    assert line is None, f"{why}: connection still open, got {line}"


# A connection that never signs on: a fault when the handshake time is up
# (2 s in the test's event file), then closed; read at the end of the checks.
silent = Conn()

# A wrong token: fault, then the connection is closed.
bad = Conn()
bad.send(f'{START} refreq sign_on; tcsi "py" "{NAME}"; Token "wrong";')
reason = expect_fault(bad, "wrong token")
assert "token" in reason, reason
expect_closed(bad, "wrong token")
bad.close()

# An unregistered name: the same.
bad = Conn()
bad.send(f'{START} refreq sign_on; tcsi "py" "Nobody"; Token "{TOKEN}";')
assert "registered" in expect_fault(bad, "unknown name")
expect_closed(bad, "unknown name")

me = Conn()
me.send(f'{START} refreq sign_on; tcsi "py" "{NAME}"; Token "{TOKEN}";')
first = me.recv()
assert ops(first).get("refcom") == "reset", first
assert ops(first).get("tcri") == f'"{me.s.getsockname()[0]}:{me.s.getsockname()[1]}" "{NAME}"', first

# Someone else under my name while I am signed on: refused, closed.
twin = Conn()
twin.send(f'{START} refreq sign_on; tcsi "py" "{NAME}"; Token "{TOKEN}";')
assert "already" in expect_fault(twin, "second sign-on")
expect_closed(twin, "second sign-on")

# Garbage, an over-long line, a reply out of turn: a fault each, the
# connection stays open.
me.send("garbage \x01\x02 not EPD at all")
assert "not an EPD record" in expect_fault(me, "garbage")
me.send(f'{START} refreq reply; c0 "{"x" * 5000}";')
assert "4096" in expect_fault(me, "5,000-byte line")
me.send(f"{START} refreq reply; sm e4;")
assert "out of turn" in expect_fault(me, "reply out of turn")

assert "in time" in expect_fault(silent, "handshake timeout")
expect_closed(silent, "handshake timeout")

# Done with what needs no game: the test now starts the opponent.
print("ready", file=sys.stderr, flush=True)

game = 0
results = []
moves_played = 0
while True:
    line = me.recv()
    if line is None:
        break
    o = ops(line)
    cmd = o.get("refcom")
    if cmd in ("respond", "inform", "conclude", "execute") and game > 0:
        assert "cc" in o, f"no cc on {line}"
    if cmd == "inform":
        if 'Result "*"' in o.get("ptp", ""):
            game += 1
            moves_played = 0
        else:
            results.append(o["ptp"].split('Result "')[1].split('"')[0])
    elif cmd == "respond":
        board = board_of(line)
        if "sm" in o:
            board.push_san(o["sm"])
        if game == 1:
            mv = random.choice(list(board.legal_moves))
            moves_played += 1
            offer = " draw_offer;" if moves_played == 4 else ""
            me.send(rec(board, f"refreq reply; sm {board.san(mv)};{offer}"))
        elif game == 2:
            me.send(rec(board, "refreq reply; resign;"))
        else:
            # An illegal move: a king to e5 from the start.
            me.send(rec(board, "refreq reply; sm Ke5;"))
    elif cmd == "disconnect":
        break
    elif cmd == "fault":
        raise AssertionError(f"unexpected fault: {line}")

assert results == ["1/2-1/2", "1-0", "0-1"], results
print("all ok")
