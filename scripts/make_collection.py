#!/usr/bin/env python3
"""Builds a large benchmark PGN collection from real games, reproducibly.

    scripts/make_collection.py OUT.pgn [--size-mb 1024] [--seed 1]
        [--dup-every 50] [SOURCE.pgn ...]

The sources (by default the shared twic0920 and TCEC superfinal files in
../shared/data/pgn) are read once; their mainlines are written again and
again until OUT reaches --size-mb. So that the copies are different games
(not duplicates of each other, which would make a dedupe benchmark
meaningless), copy r of a game is cut r plies before its end (copies that
would get shorter than 20 plies are skipped); its tags are drawn again from
the seed: players, Elo ratings (1800-2850), event, site, date, round.
Mainline comments are kept (TCEC's evaluations and clock times, as a
lichess dump's [%clk] comments); NAGs and variations are dropped; a cut
game's result is "*".

Every --dup-every-th game written is instead a duplicate of an earlier one:
the same moves under new tags and with a comment, at a place the manifest
(OUT + ".dups.json") records as [kept, dropped] pairs of 0-based game
numbers. Two sources that share their first 20 or more moves can still
give an accidental duplicate the manifest does not list: check a dedupe
against pgn-extract -D, with the manifest as a lower bound. Sources with a FEN
tag are skipped (their copies could not be cut without replaying them).

No dependency beyond the standard library; the output is the same for the
same sources, size and seed.
"""

import argparse
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "data", "pgn")
DEFAULT_SOURCES = [
    os.path.join(SHARED, "twic0920.pgn"),
    os.path.join(SHARED, "tcec-superfinals-s6-s18.pgn"),
]

TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}
FIRST = ["Magnus", "Hikaru", "Alireza", "Fabiano", "Ian", "Ding", "Anish",
         "Wesley", "Maxime", "Levon", "Judit", "Hou", "Ju", "Aleksandra"]
LAST = ["Carlsen", "Nakamura", "Firouzja", "Caruana", "Nepomniachtchi",
        "Liren", "Giri", "So", "Vachier", "Aronian", "Polgar", "Yifan",
        "Wenjun", "Goryachkina", "Stockfish", "Leela", "Komodo", "Ethereal"]
EVENTS = ["Olympiad", "Open", "Championship", "Rapid", "Blitz", "Cup",
          "Masters", "Invitational", "League", "Memorial"]


def games(path):
    """(tags, sans, result) of each game of `path`, mainline only."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    tags, body = {}, []

    def flush():
        if tags or body:
            sans, result = moves(" ".join(body))
            if sans is not None:
                yield_list.append((dict(tags), sans, result))

    yield_list = []
    in_moves = False
    for line in text.splitlines():
        m = TAG.match(line)
        if m and (in_moves or not body):
            if in_moves:
                flush()
                tags, body, in_moves = {}, [], False
            tags[m.group(1)] = m.group(2)
        elif line.strip():
            in_moves = True
            body.append(line)
    flush()
    return yield_list


def moves(movetext):
    """The mainline SAN moves (each with the comment after it, or None) and
    the result of `movetext`."""
    out, depth, i, n = [], 0, 0, len(movetext)
    result = "*"
    while i < n:
        c = movetext[i]
        if c == "{":
            j = movetext.find("}", i)
            if not depth and out and j > i:
                # A mainline comment stays with the move before it.
                san, _ = out[-1]
                out[-1] = (san, " ".join(movetext[i + 1:j].split()))
            i = n if j < 0 else j + 1
            continue
        if c == ";":
            j = movetext.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if c == "(":
            depth += 1
            i += 1
            continue
        if c == ")":
            depth = max(0, depth - 1)
            i += 1
            continue
        if c.isspace():
            i += 1
            continue
        j = i
        while j < n and not movetext[j].isspace() and movetext[j] not in "{}();":
            j += 1
        tok = movetext[i:j]
        i = j
        if depth:
            continue
        if tok in RESULTS:
            result = tok
            continue
        tok = re.sub(r"^\d+\.+", "", tok)
        if not tok or tok.startswith("$") or tok[0].isdigit():
            continue
        out.append((tok.rstrip("!?"), None))
    return out, result


def movetext(sans, result):
    words = []
    for k, (san, comment) in enumerate(sans):
        if k % 2 == 0 or (k > 0 and sans[k - 1][1]):
            words.append(f"{k // 2 + 1}." if k % 2 == 0 else f"{k // 2 + 1}...")
        words.append(san)
        if comment:
            words.extend(("{" + comment + "}").split(" "))
    words.append(result)
    lines, line = [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > 79:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    return "\n".join(lines)


def game_text(rng, number, sans, result, comment=None):
    white = f"{rng.choice(LAST)}, {rng.choice(FIRST)}"
    black = f"{rng.choice(LAST)}, {rng.choice(FIRST)}"
    year = rng.randint(1990, 2025)
    tags = [
        ("Event", f"{rng.choice(EVENTS)} {year}"),
        ("Site", f"City {rng.randint(1, 400)}"),
        ("Date", f"{year}.{rng.randint(1, 12):02}.{rng.randint(1, 28):02}"),
        ("Round", str(rng.randint(1, 13))),
        ("White", white),
        ("Black", black),
        ("Result", result),
        ("WhiteElo", str(rng.randint(1800, 2850))),
        ("BlackElo", str(rng.randint(1800, 2850))),
        ("GameId", str(number)),
    ]
    head = "\n".join(f'[{k} "{v}"]' for k, v in tags)
    body = movetext(sans, result)
    if comment:
        body = "{" + comment + "} " + body
    return f"{head}\n\n{body}\n\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("sources", nargs="*")
    ap.add_argument("--size-mb", type=float, default=1024)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dup-every", type=int, default=50)
    a = ap.parse_args()
    sources = a.sources or DEFAULT_SOURCES
    pool = []
    for s in sources:
        pool.extend((sans, res) for tags, sans, res in games(s)
                    if "FEN" not in tags and len(sans) >= 10)
    if not pool:
        sys.exit("no usable games in the sources")
    rng = random.Random(a.seed)
    limit = int(a.size_mb * 1024 * 1024)
    written, number, copy = 0, 0, 0
    dups, kept = [], []  # kept: (number, sans, result) of games written
    with open(a.out, "w", encoding="utf-8") as out:
        while written < limit:
            progressed = False
            for sans, result in pool:
                if written >= limit:
                    break
                if a.dup_every and number % a.dup_every == a.dup_every - 1 and kept:
                    orig, osans, ores = kept[rng.randrange(len(kept))]
                    text = game_text(rng, number, osans, ores,
                                     comment=f"copy of game {orig}")
                    dups.append([orig, number])
                else:
                    cut = len(sans) - copy
                    if cut < 20:
                        continue
                    gsans = sans[:cut]
                    gres = result if copy == 0 else "*"
                    text = game_text(rng, number, gsans, gres)
                    if len(kept) < 100000:
                        kept.append((number, gsans, gres))
                    elif rng.random() < 0.01:
                        kept[rng.randrange(len(kept))] = (number, gsans, gres)
                out.write(text)
                written += len(text.encode())
                number += 1
                progressed = True
            copy += 1
            if not progressed:
                break
    with open(a.out + ".dups.json", "w") as f:
        json.dump({"games": number, "duplicates": dups}, f)
    print(f"{a.out}: {number} games, {written / 1e6:.1f} MB, "
          f"{len(dups)} duplicates (pairs in {a.out}.dups.json)")


if __name__ == "__main__":
    main()
