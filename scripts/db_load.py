"""A small load client for `rookery db serve`: THREADS kept-alive HTTP/1.1
connections ask the explorer (`/lichess?play=...`) for positions picked in
turn from the lines given, for SECONDS seconds, and it prints the requests
answered per second and the answers that were not 200. Standard library
only; the client's own cost is in the figure (Python on the same cores).

Usage: db_load.py HOST:PORT SECONDS THREADS [PATH...]
(default paths: the start and a few opening lines).
"""
import http.client
import sys
import threading
import time

HOST, PORT = sys.argv[1].rsplit(":", 1)
SECONDS = float(sys.argv[2])
THREADS = int(sys.argv[3])
PATHS = sys.argv[4:] or [
    "/lichess",
    "/lichess?play=e2e4",
    "/lichess?play=d2d4,g8f6",
    "/lichess?play=e2e4,c7c5,g1f3",
    "/lichess?play=c2c4",
]
done = [0] * THREADS
bad = [0] * THREADS


def work(i):
    c = http.client.HTTPConnection(HOST, int(PORT))
    end = time.monotonic() + SECONDS
    n = i
    while time.monotonic() < end:
        c.request("GET", PATHS[n % len(PATHS)])
        r = c.getresponse()
        r.read()
        if r.status != 200:
            bad[i] += 1
        done[i] += 1
        n += 1


start = time.monotonic()
threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
took = time.monotonic() - start
print(f"{sum(done)} requests in {took:.1f} s: {sum(done) / took:.0f} requests/s, {sum(bad)} not 200")
