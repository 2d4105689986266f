#!/usr/bin/env python3
"""python-chess's own tests, run against rookery standing in for ``chess``.

python-chess 1.11.2's source distribution is fetched from PyPI when this runs
(``pip download``; its GPL code is never stored in this repository), its
``test.py`` is loaded with ``sys.modules["chess"]`` (and ``chess.pgn``,
``chess.polyglot``, ``chess.engine``) pointing at rookery, and the test
classes of the rules, PGN and Polyglot surface are run. Modules test.py
imports that those classes do not use (gaviota, svg, syzygy, variant) are
empty stand-ins.

Prints the passes of each class and every failure; the exit status is 1 when
fewer than ``--min-passed`` tests pass (CI's guard against regressions), 0
otherwise.

    python crates/python/tests/python_chess_suite.py [--sdist DIR] [--min-passed N] [-v]
"""

import argparse
import importlib.util
import logging
import os
import subprocess
import sys
import tarfile
import tempfile
import types
import unittest

VERSION = "1.11.2"

CLASSES = [
    "SquareTestCase",
    "MoveTestCase",
    "PieceTestCase",
    "BoardTestCase",
    "LegalMoveGeneratorTestCase",
    "BaseBoardTestCase",
    "SquareSetTestCase",
    "PolyglotTestCase",
    "PgnTestCase",
]

# rookery's modules under python-chess's names.
MODULES = ["pgn", "polyglot", "engine"]
# Imported by test.py at the top, used only by classes not run here (and by
# the few tests the README lists as failing).
STUBS = ["gaviota", "svg", "syzygy", "variant"]


def fetch_sdist(into: str) -> str:
    """Downloads and unpacks python-chess's sdist; returns its directory."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", f"chess=={VERSION}",
         "--no-deps", "--no-binary", ":all:", "-d", into],
        check=True,
    )
    archive = os.path.join(into, f"chess-{VERSION}.tar.gz")
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers()
                   if m.name.endswith("test.py") or "/data/" in m.name]
        tar.extractall(into, members=members)
    return os.path.join(into, f"chess-{VERSION}")


def alias_rookery() -> None:
    """Makes ``import chess`` (and its submodules) import rookery."""
    import rookery

    for name in list(sys.modules):
        if name == "chess" or name.startswith("chess."):
            del sys.modules[name]
    sys.modules["chess"] = rookery
    for name in MODULES:
        sys.modules[f"chess.{name}"] = importlib.import_module(f"rookery.{name}")
    for stub in STUBS:
        module = types.ModuleType(f"chess.{stub}")
        module.__doc__ = "an empty stand-in: rookery has no such module"
        # Class bodies name exceptions of these modules in decorators
        # (``@catchAndSkip(chess.syzygy.MissingTableError)``).
        module.__getattr__ = lambda attr: type(attr, (Exception,), {})
        sys.modules[f"chess.{stub}"] = module
        setattr(rookery, stub, module)


def load_tests(sdist: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("python_chess_test", os.path.join(sdist, "test.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sdist", help="an unpacked python-chess sdist (default: download it)")
    parser.add_argument("--min-passed", type=int, default=0,
                        help="fail (exit 1) when fewer tests pass")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each failure's traceback")
    parser.add_argument("-k", dest="only", help="run only tests whose id contains this")
    args = parser.parse_args()

    # The PGN reader logs the errors of malformed games; the tests count them.
    quiet = logging.getLogger("rookery.pgn")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    with tempfile.TemporaryDirectory() as tmp:
        sdist = args.sdist or fetch_sdist(tmp)
        alias_rookery()
        tests_module = load_tests(sdist)
        import chess  # noqa: the alias

        assert chess.__name__ == "rookery", chess.__name__
        os.chdir(sdist)  # test.py opens data/... relative to its directory
        loader = unittest.TestLoader()
        total_passed = total = 0
        failures = []
        for name in CLASSES:
            suite = loader.loadTestsFromTestCase(getattr(tests_module, name))
            tests = [t for t in suite if not args.only or args.only in t.id()]
            result = unittest.TestResult()
            for test in tests:
                test(result)
            failed = result.failures + result.errors + [(t, "skipped: " + r) for t, r in result.skipped]
            passed = len(tests) - len(failed)
            total_passed += passed
            total += len(tests)
            print(f"{name:28} {passed:3} / {len(tests)}")
            failures += failed
        print(f"{'total':28} {total_passed:3} / {total}")
        if failures:
            print("\nfailed:")
        for test, trace in failures:
            lines = trace.strip().splitlines()
            print(f"  {test.id().split('.', 1)[1]}: {lines[-1] if lines else ''}")
            if args.verbose:
                print("    " + "\n    ".join(lines))
    if total_passed < args.min_passed:
        print(f"\nonly {total_passed} passed; at least {args.min_passed} must", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
