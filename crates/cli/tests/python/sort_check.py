"""Checks `rookery pgn sort` output against its inputs with python-chess.

usage: sort_check.py FIELDS OUTPUT.pgn INPUT.pgn...

Reads every game of the inputs (in order) and of the output with
chess.pgn.read_game, sorts the input games here with Python's stable sort by
FIELDS (comma-separated tag names, `:desc` for largest first) under the
rules `pgn sort` documents, written here from its help text alone:
  - a tag whose name ends in "Date" and whose value is a date (YYYY, YYYY.MM
    or YYYY.MM.DD, with '.', '-' or '/' between the parts and '?'s for an
    unknown part) compares as a date, unknown parts first; a date whose year
    is unknown counts as missing; other values of it compare as text after
    the dates;
  - other values compare as text with the runs of digits as numbers (digits
    before other characters), ASCII letters without regard to case;
  - a missing tag, an empty value, "?" and values of only "?" and "." come
    last, ascending or descending;
then checks that the output holds the same games (tags and mainline moves)
in that order. Prints one JSON line of counts; exits 1 with the reasons.
"""

import json
import re
import sys

from pgn_games import read_games

DATE = re.compile(r"^(\d{4}|\?{4})(?:[./-](\d{1,2}|\?{1,2})(?:[./-](\d{1,2}|\?{1,2}))?)?$")


def read_all(path):
    games = []
    # Bytes that are not UTF-8 (a Latin-1 file) read as Latin-1, line by line
    # as rookery reads them; the sort's fields here are ASCII anyway.
    with open(path, "rb") as f:
        raw = f.read()
    lines = []
    for line in raw.split(b"\n"):
        try:
            lines.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(line.decode("latin-1"))
    import io

    handle = io.StringIO("\n".join(lines))
    for game in read_games(handle):
        if game.errors:
            continue
        moves = [m.uci() for m in game.mainline_moves()]
        games.append((dict(game.headers), moves))
    return games


def unknown(v):
    return v == "" or all(c in "?." for c in v)


def natural(v):
    runs = re.findall(r"\d+|\D+", v)
    key = []
    for r in runs:
        if r.isdigit():
            key.append((0, int(r)))
        else:
            key.append((1, r.lower() if r.isascii() else "".join(c.lower() if c.isascii() else c for c in r)))
    return tuple(key)


def value_key(name, value):
    """(known, key): known is False for a missing value."""
    if value is None:
        return (False, ())
    v = value.strip()
    if unknown(v):
        return (False, ())
    if name.endswith("Date"):
        m = DATE.match(v)
        if m:
            y, mo, d = (None if p is None or "?" in p else int(p) for p in m.groups())
            if (
                (y is None or y >= 1)
                and (mo is None or 1 <= mo <= 12)
                and (d is None or 1 <= d <= 31)
                and not (mo is None and d is not None)
            ):
                if y is None:
                    return (False, ())
                return (True, (0, (y, mo or 0, d or 0)))
    return (True, (1, natural(v)))


def main():
    fields = []
    for f in sys.argv[1].split(","):
        f = f.strip()
        desc = f.endswith(":desc")
        fields.append((f[:-5] if desc else f, desc))
    out_path = sys.argv[2]
    inputs = []
    for p in sys.argv[3:]:
        inputs.extend(read_all(p))
    output = read_all(out_path)
    expected = list(inputs)
    # Least significant field first; Python's sort is stable, also reversed.
    for name, desc in reversed(fields):
        known = [g for g in expected if value_key(name, g[0].get(name))[0]]
        missing = [g for g in expected if not value_key(name, g[0].get(name))[0]]
        known.sort(key=lambda g: value_key(name, g[0].get(name))[1], reverse=desc)
        expected = known + missing
    problems = []
    if len(output) != len(expected):
        problems.append(f"{len(output)} games written, {len(expected)} read")
    for i, (a, b) in enumerate(zip(output, expected)):
        if a != b:
            problems.append(
                f"game {i + 1} of the output: {a[0].get('Event')} {a[0].get('Date')} "
                f"{a[0].get('Round')}, expected {b[0].get('Event')} {b[0].get('Date')} {b[0].get('Round')}"
            )
            break
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"games": len(output)}))


if __name__ == "__main__":
    main()
