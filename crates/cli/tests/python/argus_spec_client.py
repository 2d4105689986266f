"""A client of an EPD referee written from the spec's text alone
(Edwards 1995, §4, §5, §6 and §8): raw sockets, python-chess for the rules
of chess only (legal moves, SAN, FEN), no rookery code.

Usage:
  argus_spec_client.py HOST:PORT NAME TOKEN [--seed N]
      [--white-moves SAN,SAN,...] [--black-moves SAN,SAN,...]
      [--resign-at N] [--offer-draw-at N] [--accept-draw]
      [--illegal-at N] [--sleep-at N --sleep SECS] [--log FILE]

It sends only what the spec requires. Signing on names the program with
`tcsi` and authenticates with the referee's private `Token` opcode (§5.3:
an upper-case opcode is private; the spec does not say how a referee knows
who signs on, and this is the one thing not from the spec). A reply is the
four data fields of the position moved from and `refreq reply` with `sm`
(or `resign`, or `draw_accept`), plus `draw_offer` when offering: no
`hmvc`, no `fmvn` (§8.1 has the referee send them; EPD records usually
omit them, §6.14, §6.15), no `tcsi`.

§8.1 as it is written: every record the referee sends (but `disconnect`,
whose position is irrelevant, and `fault`) carries the current position;
if it is not the client's own (the four data fields, and the halfmove clock
and fullmove number where the record has them), the client takes the
referee's position with no game history. A supplied move is played from
the record's position. The client keeps its own halfmove clock and
fullmove number and its own position, with the en passant square written
as §4.4 says (given if and only if the last move was a double pawn
advance).

Each own move N (1 = the client's first move of a game) can be scripted:
the moves of `--white-moves` / `--black-moves` (by the colour it has in
that game) come first, then random legal moves from `--seed`; `--resign-at
N` resigns instead of move N, `--offer-draw-at N` offers a draw with it,
`--illegal-at N` sends a move that is not legal instead, `--sleep-at N`
sleeps `--sleep` seconds before sending it; `--accept-draw` accepts every
draw offered.

It plays until `disconnect` (or the connection closes), checking every
record it receives against §4 and §5, then prints one JSON object on
stdout: per game, the tags of the closing `inform`, the position of every
record after the game's last move (as a FEN with the record's own clocks),
whether it was the client's own position, and every time the client had to
take the referee's position in mid-game. Any record that is not valid EPD
is listed in `invalid`; a `fault` in `faults`; a record that could not be
sent (the referee gone) in `send_failures`.

  argus_spec_client.py --finals GAMES.pgn

prints the final position of every game of a PGN file as a JSON list of
FENs (en passant square as §4.4 writes it), to compare with what the
referee sent.
"""
import argparse
import json
import random
import re
import socket
import sys
import time

import chess

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
COMMANDS = {"conclude", "disconnect", "execute", "fault", "inform", "reset", "respond"}
OPCODE = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,14}$")
IDENT = re.compile(r"[A-Za-z0-9_]{1,15}$")
CLOCK = re.compile(r"\d{3}:([01]\d|2[0-3]):[0-5]\d:[0-5]\d$")
PLACEMENT_ROW = re.compile(r"[1-8pnbrqkPNBRQK]+$")


class NotEpd(Exception):
    pass


def clock_seconds(text):
    """A clock operand (§5.2.7, ddd:hh:mm:ss) in seconds."""
    d, h, m, s = (int(x) for x in text.split(":"))
    return ((d * 24 + h) * 60 + m) * 60 + s


def parse_record(line):
    """A line as §4 and §5 write it: the four data fields and the
    operations as [(opcode, [operands])], operands as ('id', text) or
    ('str', text). Raises NotEpd naming the rule broken."""
    if len(line) > 4096:
        raise NotEpd("longer than 4096 characters (§4)")
    if any(not (" " <= c <= "~") for c in line):
        raise NotEpd("a character that is not printing ASCII")
    parts = line.split(" ", 4)
    if len(parts) < 4:
        raise NotEpd("fewer than four data fields (§4)")
    placement, color, castling, ep = parts[:4]
    rows = placement.split("/")
    if len(rows) != 8:
        raise NotEpd("the placement does not have eight ranks (§4.1)")
    for row in rows:
        if not PLACEMENT_ROW.match(row):
            raise NotEpd(f"rank {row!r} (§4.1)")
        if sum(int(c) if c.isdigit() else 1 for c in row) != 8:
            raise NotEpd(f"rank {row!r} is not eight squares (§4.1)")
    if color not in ("w", "b"):
        raise NotEpd(f"active colour {color!r} (§4.2)")
    if castling != "-" and (
        not castling or any(c not in "KQkq" for c in castling)
        or "".join(sorted(castling, key="KQkq".index)) != castling
        or len(set(castling)) != len(castling)
    ):
        raise NotEpd(f"castling {castling!r} (§4.3)")
    if ep != "-" and not (
        len(ep) == 2 and ep[0] in "abcdefgh" and ep[1] == ("3" if color == "b" else "6")
    ):
        raise NotEpd(f"en passant square {ep!r} (§4.4)")
    ops = []
    rest = parts[4] if len(parts) > 4 else ""
    i = 0
    while i < len(rest):
        j = i
        while j < len(rest) and rest[j] not in " ;":
            j += 1
        opcode = rest[i:j]
        if not OPCODE.match(opcode):
            raise NotEpd(f"opcode {opcode!r} (§5.1)")
        operands = []
        if j < len(rest) and rest[j] == " ":
            j += 1
            while True:
                if j < len(rest) and rest[j] == '"':
                    k = rest.find('"', j + 1)
                    if k < 0:
                        raise NotEpd(f"an unterminated string in {opcode} (§5.1)")
                    if k - j - 1 >= 256:
                        raise NotEpd(f"a string of 256 bytes or more in {opcode} (§5.1)")
                    operands.append(("str", rest[j + 1:k]))
                    j = k + 1
                else:
                    k = j
                    while k < len(rest) and rest[k] not in " ;":
                        k += 1
                    if k == j:
                        raise NotEpd(f"an empty operand in {opcode} (§5.1)")
                    operands.append(("id", rest[j:k]))
                    j = k
                if j < len(rest) and rest[j] == " ":
                    j += 1
                    continue
                break
        if j >= len(rest) or rest[j] != ";":
            raise NotEpd(f"operation {opcode} not ended by a semicolon (§5)")
        j += 1
        ops.append((opcode, operands))
        if j < len(rest):
            if rest[j] != " " or j + 1 >= len(rest) or rest[j + 1] == " ":
                raise NotEpd("operations not separated by a single space (§5)")
            j += 1
        i = j
    names = [o for o, _ in ops]
    if len(set(names)) != len(names):
        raise NotEpd("an opcode twice on one record (§5.1)")
    if names != sorted(names):
        raise NotEpd("operations not in ASCII order of their opcodes (§5.1)")
    return (placement, color, castling, ep), ops


def check_operands(fields, ops):
    """The operands of the opcodes this client reads, by their basetypes
    (§5.2, §6)."""
    o = dict(ops)
    board = chess.Board(" ".join(fields) + " 0 1")
    if not board.is_valid():
        raise NotEpd(f"not a legal position: {board.status()!r}")

    def ints(name, lo):
        v = o[name]
        if len(v) != 1 or v[0][0] != "id" or not re.fullmatch(r"\d+", v[0][1]) or int(v[0][1]) < lo:
            raise NotEpd(f"{name} {v!r} (§6)")
    if "hmvc" in o:
        ints("hmvc", 0)
    if "fmvn" in o:
        ints("fmvn", 1)
    if "cc" in o:
        v = o["cc"]
        if len(v) != 2 or any(t != "id" or not CLOCK.match(s) for t, s in v):
            raise NotEpd(f"cc {v!r} (§6.6, §5.2.7)")
    if "refcom" in o:
        v = o["refcom"]
        if len(v) != 1 or v[0][0] != "id" or v[0][1] not in COMMANDS:
            raise NotEpd(f"refcom {v!r} (§6.23)")
    else:
        raise NotEpd("no refcom on a record of the referee (§8.1)")
    if "ptp" in o:
        v = o["ptp"]
        if len(v) % 2 or any(
            v[i][0] != "id" or not IDENT.match(v[i][1]) or v[i + 1][0] != "str"
            for i in range(0, len(v), 2)
        ):
            raise NotEpd(f"ptp {v!r} (§6.20)")
        names = [v[i][1] for i in range(0, len(v), 2)]
        if len(set(names)) != len(names):
            raise NotEpd("a tag twice in ptp (§6.20)")
    for name in ("tcri", "tcsi"):
        if name in o and (len(o[name]) != 2 or any(t != "str" for t, _ in o[name])):
            raise NotEpd(f"{name} {o[name]!r} (§6.29, §6.30)")
    for name in ("draw_offer", "draw_accept", "draw_reject", "draw_claim", "resign"):
        if name in o and o[name]:
            raise NotEpd(f"{name} takes no operands (§6)")
    if "sm" in o:
        v = o["sm"]
        if len(v) != 1 or v[0][0] != "id":
            raise NotEpd(f"sm {v!r} (§6.26)")
        try:
            board.parse_san(v[0][1])
        except ValueError:
            raise NotEpd(f"sm {v[0][1]} is not a legal move of the position (§6.26)")
    return o


class Client:
    def __init__(self, args):
        self.a = args
        self.rng = random.Random(args.seed)
        host, port = args.address.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=args.timeout)
        self.f = self.s.makefile("rb")
        self.log = open(args.log, "w") if args.log else None
        self.board = None  # the current position, None after reset
        self.tags = {}
        self.games = []
        self.game = None
        self.invalid = []
        self.faults = []
        self.errors = []
        self.send_failures = []
        self.records = 0

    def write_log(self, way, line):
        if self.log:
            self.log.write(f"{way} {line}\n")
            self.log.flush()

    def send(self, line):
        self.write_log(">", line)
        try:
            self.s.sendall(line.encode() + b"\n")
        except OSError as e:
            # A reply sent too late may find the referee gone (the event
            # over): what it sent before is still to be read.
            self.send_failures.append(f"{e}: {line}")

    def own(self):
        """The four data fields of the own position, en passant as §4.4."""
        return self.board.epd(en_passant="fen")

    def new_game_summary(self):
        return {
            "tags": {},  # of the last inform (ptp)
            "my_moves": [],  # what the client sent, move by move
            "moves": [],  # the game's moves since the position last taken
            "resyncs": [],  # mid-game records not on the client's position
            "ended": False,  # the result is known
            "after_last_move": [],  # records after the game's last move
            "clocks": None,  # time used by White and Black (cc), seconds
        }

    def take(self, kind, fields, o):
        """§8.1: take the referee's position if it is not the own one."""
        four = " ".join(fields)
        h = o.get("hmvc")
        f = o.get("fmvn")
        h = int(h[0][1]) if h else None
        f = int(f[0][1]) if f else None
        if self.board is not None:
            same = self.own() == four
            if h is not None and h != self.board.halfmove_clock:
                same = False
            if f is not None and f != self.board.fullmove_number:
                same = False
            if same:
                return
            if self.game is not None and not self.game["ended"] and kind in ("respond", "execute"):
                self.game["resyncs"].append({
                    "record": kind,
                    "own": self.board.fen(en_passant="fen"),
                    "referee": f"{four} {h} {f}",
                })
        # A different position: no game history. A clock the record does not
        # carry is kept where the position is the own one but for it.
        if h is None:
            h = self.board.halfmove_clock if self.board is not None else 0
        if f is None:
            f = self.board.fullmove_number if self.board is not None else 1
        self.board = chess.Board(f"{four} {h} {f}")
        if self.game is not None:
            self.game["moves"] = []

    def play_supplied(self, o):
        san = o["sm"][0][1]
        move = self.board.parse_san(san)
        if self.game is not None:
            self.game["moves"].append(self.board.san(move))
        self.board.push(move)

    def illegal_san(self):
        for sq in chess.SQUARE_NAMES:
            san = "K" + sq
            try:
                self.board.parse_san(san)
            except ValueError:
                return san
        return "Ka9"

    def reply(self, o):
        g = self.game
        n = len(g["my_moves"]) + 1
        board = self.board
        four = self.own()
        if self.a.sleep_at == n:
            time.sleep(self.a.sleep)
        if "draw_offer" in o and self.a.accept_draw:
            g["my_moves"].append("draw_accept")
            self.send(f"{four} draw_accept; refreq reply;")
            return
        if self.a.resign_at == n:
            g["my_moves"].append("resign")
            self.send(f"{four} refreq reply; resign;")
            return
        if self.a.illegal_at == n:
            san = self.illegal_san()
            g["my_moves"].append(san)
            self.send(f"{four} refreq reply; sm {san};")
            return
        script = self.a.white_moves if board.turn == chess.WHITE else self.a.black_moves
        move = None
        if n <= len(script):
            move = board.parse_san(script[n - 1])
        else:
            move = self.rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
        san = board.san(move)
        offer = "draw_offer; " if self.a.offer_draw_at == n else ""
        g["my_moves"].append(san)
        g["moves"].append(san)
        self.send(f"{four} {offer}refreq reply; sm {san};")
        board.push(move)

    def end_record(self, kind, fields, o):
        """A record after the game's last move: its position is the game's
        final position (§8.1.1)."""
        g = self.game
        h = o.get("hmvc")
        f = o.get("fmvn")
        entry = {
            "record": kind,
            "fen": " ".join(fields)
            + f" {h[0][1] if h else '-'} {f[0][1] if f else '-'}",
            "own": self.board.fen(en_passant="fen") if self.board is not None else None,
        }
        self.take(kind, fields, o)
        entry["own_position"] = entry["own"] == self.board.fen(en_passant="fen")
        g["after_last_move"].append(entry)

    def run(self):
        self.send(f'{START} Token "{self.a.token}"; refreq sign_on; tcsi "{self.a.host_id}" "{self.a.name}";')
        while True:
            try:
                raw = self.f.readline()
            except ConnectionResetError:
                break
            if not raw:
                break
            line = raw.decode("ascii", "replace").rstrip("\r\n")
            self.write_log("<", line)
            self.records += 1
            try:
                fields, ops = parse_record(line)
                o = check_operands(fields, ops)
            except NotEpd as e:
                self.invalid.append({"line": line, "why": str(e)})
                continue
            kind = o["refcom"][0][1]
            if "cc" in o and self.game is not None:
                # §8.1: the client's clocks are set from cc.
                self.game["clocks"] = [clock_seconds(c) for _, c in o["cc"]]
            if "ptp" in o:
                v = o["ptp"]
                self.tags.update({v[i][1]: v[i + 1][1] for i in range(0, len(v), 2)})
            if kind == "disconnect":
                break
            if kind == "fault":
                self.faults.append(o["c0"][0][1] if o.get("c0") else line)
                continue
            if kind == "reset":
                self.board = None
                self.tags = {}
                self.game = None
                self.take(kind, fields, o)
                continue
            # A game begins with `reset` (§8.1.6) and ends with `conclude`,
            # after which nothing about it is sent (§8.1.1).
            if self.game is None:
                self.game = self.new_game_summary()
                self.games.append(self.game)
            g = self.game
            if g.get("closed"):
                self.errors.append(f"{kind} after conclude, without reset: {line}")
                continue
            if kind == "inform":
                g["tags"] = dict(self.tags)
                if self.tags.get("Result", "*") != "*":
                    g["ended"] = True
                    self.end_record(kind, fields, o)
                else:
                    self.take(kind, fields, o)
            elif kind == "conclude":
                g["ended"] = True
                g["conclude_note"] = o["c0"][0][1] if o.get("c0") else None
                g["conclude_has_clocks"] = "hmvc" in o and "fmvn" in o
                self.end_record(kind, fields, o)
                g["closed"] = True
            elif kind in ("respond", "execute"):
                if g["ended"]:
                    self.errors.append(f"{kind} after the end of a game: {line}")
                    continue
                self.take(kind, fields, o)
                if "sm" in o:
                    self.play_supplied(o)
                if kind == "respond":
                    self.reply(o)
        for g in self.games:
            white, black = g["tags"].get("White"), g["tags"].get("Black")
            g["color"] = "white" if white == self.a.name else "black" if black == self.a.name else None
        return {
            "name": self.a.name,
            "records": self.records,
            "games": self.games,
            "invalid": self.invalid,
            "faults": self.faults,
            "errors": self.errors,
            "send_failures": self.send_failures,
        }


def finals(path):
    from pgn_games import read_games

    out = []
    with open(path) as f:
        for game in read_games(f):
            board = game.end().board()
            out.append(board.fen(en_passant="fen"))
    print(json.dumps(out))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--finals":
        finals(sys.argv[2])
        return
    p = argparse.ArgumentParser()
    p.add_argument("address")
    p.add_argument("name")
    p.add_argument("token")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--white-moves", default="")
    p.add_argument("--black-moves", default="")
    p.add_argument("--resign-at", type=int)
    p.add_argument("--offer-draw-at", type=int)
    p.add_argument("--accept-draw", action="store_true")
    p.add_argument("--illegal-at", type=int)
    p.add_argument("--sleep-at", type=int)
    p.add_argument("--sleep", type=float, default=0.0)
    p.add_argument("--log")
    p.add_argument("--timeout", type=float, default=60.0)
    a = p.parse_args()
    a.white_moves = re.split(r"[,\s]+", a.white_moves.strip()) if a.white_moves.strip() else []
    a.black_moves = re.split(r"[,\s]+", a.black_moves.strip()) if a.black_moves.strip() else []
    a.host_id = "spec-client"
    c = Client(a)
    try:
        out = c.run()
    finally:
        c.s.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
