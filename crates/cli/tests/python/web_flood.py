"""Strangers on an open network, for the spectator page's limits: raw TCP
connections that never send a byte, and Server-Sent-Events subscribers that
send one request and never read. Standard library only; nothing of rookery.

Usage: web_flood.py HOST:PORT IDLE STREAMS [STREAM_PATH [SOURCE/COUNT]]

It raises its own descriptor limit (soft, up to the hard one) to hold every
connection, or prints {"skip": WHY} and exits 3 when the hard limit is too
low. It opens IDLE silent connections, then STREAMS connections that each
send `GET STREAM_PATH` (default /api/stream) with a small receive buffer
and never read (SOURCE/COUNT: from COUNT local addresses SOURCE,
SOURCE+1, ..., in turn, e.g. 127.0.0.2/40 on Linux's loopback; by default
the system picks), and prints one JSON line:
{"idle": OPENED, "streams": OPENED, "failed": NOT_CONNECTED}.
Then it reads commands on stdin, one a line:
  count  prints {"idle_closed": N, "streams_closed": M}: how many of each the
         server has closed so far (the peer's FIN or RST, seen by poll)
  close  closes every connection, prints {"closed": true} and exits
and exits on end of input too. A connection is opened with a non-blocking
connect; one not established within 20 s counts as failed.
"""
import json
import resource
import select
import socket
import sys
import time

HOST, PORT = sys.argv[1].rsplit(":", 1)
PORT = int(PORT)
IDLE = int(sys.argv[2])
STREAMS = int(sys.argv[3])
PATH = sys.argv[4] if len(sys.argv) > 4 else "/api/stream"
SOURCES = []
if len(sys.argv) > 5:
    first, count = sys.argv[5].split("/")
    base = int.from_bytes(socket.inet_aton(first), "big")
    SOURCES = [socket.inet_ntoa((base + i).to_bytes(4, "big")) for i in range(int(count))]
OPENED = [0]
# Connections opened at a time: the server's queues are finite, and a
# SYN it drops is only sent again after a second.
BATCH = 100
CONNECT_WAIT = 20.0


def raise_limit(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= need:
        return
    if hard != resource.RLIM_INFINITY and hard < need:
        print(json.dumps({"skip": f"descriptor hard limit {hard} < {need}"}), flush=True)
        sys.exit(3)
    resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))


def open_batch(n, rcvbuf):
    """Starts n non-blocking connects; returns the sockets established."""
    pending = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if SOURCES:
            s.bind((SOURCES[OPENED[0] % len(SOURCES)], 0))
            OPENED[0] += 1
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.setblocking(False)
        s.connect_ex((HOST, PORT))
        pending.append(s)
    done = []
    poller = select.poll()
    by_fd = {s.fileno(): s for s in pending}
    for fd in by_fd:
        poller.register(fd, select.POLLOUT)
    deadline = time.monotonic() + CONNECT_WAIT
    while by_fd and time.monotonic() < deadline:
        for fd, _ in poller.poll(200):
            s = by_fd.pop(fd, None)
            if s is None:
                continue
            poller.unregister(fd)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                done.append(s)
            else:
                s.close()
    for s in by_fd.values():
        s.close()
    return done


def open_many(n, rcvbuf=0, request=None):
    out = []
    while len(out) < n:
        batch = open_batch(min(BATCH, n - len(out)), rcvbuf)
        if request:
            for s in batch:
                try:
                    s.send(request)
                except OSError:
                    pass
        if not batch:
            break
        out.extend(batch)
    return out


def closed_by_server(socks):
    poller = select.poll()
    for s in socks:
        poller.register(s.fileno(), select.POLLRDHUP)
    return sum(1 for _, ev in poller.poll(0) if ev & (select.POLLRDHUP | select.POLLHUP | select.POLLERR))


def main():
    raise_limit(IDLE + STREAMS + 64)
    idle = open_many(IDLE)
    request = f"GET {PATH} HTTP/1.1\r\nHost: {HOST}:{PORT}\r\n\r\n".encode()
    streams = open_many(STREAMS, rcvbuf=1024, request=request)
    failed = IDLE + STREAMS - len(idle) - len(streams)
    print(json.dumps({"idle": len(idle), "streams": len(streams), "failed": failed}), flush=True)
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "count":
            print(json.dumps({"idle_closed": closed_by_server(idle),
                              "streams_closed": closed_by_server(streams)}), flush=True)
        elif cmd == "close":
            break
    for s in idle + streams:
        s.close()
    print(json.dumps({"closed": True}), flush=True)


main()
