"""The examples in rookery's docstrings, run as doctests: the Python
modules' and the extension's (classes, their methods, functions)."""

import doctest
import importlib
import pytest

import rookery

MODULES = [
    "rookery",
    "rookery._errors",
    "rookery._squares",
    "rookery._baseboard",
    "rookery._board",
    "rookery._gametree",
    "rookery.pgn",
    "rookery.polyglot",
    "rookery.engine",
    "rookery.epd",
    "rookery.db",
]


def _tests():
    finder = doctest.DocTestFinder(exclude_empty=True)
    found = []
    for name in MODULES:
        module = importlib.import_module(name)
        # Objects of the extension re-exported here have no line number:
        # they are found below, once.
        found += [t for t in finder.find(module, name) if t.lineno is not None or t.name == name]
    # The extension's classes and functions are rookery's, not its
    # module's, to doctest's eye: found one by one.
    extension = rookery._rookery
    for name, obj in sorted(vars(extension).items()):
        if name.startswith("__") or not callable(obj):
            continue
        globs = {"rookery": rookery}
        found += finder.find(obj, f"rookery._rookery.{name}", module=False, globs=globs)
    unique = {}
    for test in found:
        if test.examples:
            unique.setdefault(test.name, test)
    return sorted(unique.values(), key=lambda t: t.name)


TESTS = _tests()


def test_docstrings_have_examples():
    assert len(TESTS) >= 16, [t.name for t in TESTS]


@pytest.mark.parametrize("test", TESTS, ids=[t.name for t in TESTS])
def test_docstring(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = []
    result = runner.run(test, out=out.append)
    assert result.failed == 0, "".join(out)
