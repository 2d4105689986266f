"""docs/python.md's python-chess script (examples/python/opening_report.py),
run as it is with python-chess and with `import rookery as chess` in place of
its two imports: the same output, line for line."""

import subprocess
import sys

from conftest import PGN_DATA, REPO, TWIC, need_python_chess

SCRIPT = REPO / "examples" / "python" / "opening_report.py"
IMPORTS = "import chess\nimport chess.pgn\n"


def run(script, *args):
    done = subprocess.run([sys.executable, str(script), *map(str, args)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_python_chess_script_runs_unchanged_on_rookery(tmp_path):
    need_python_chess()
    source = SCRIPT.read_text(encoding="utf-8")
    assert source.count(IMPORTS) == 1
    ported = tmp_path / "opening_report.py"
    ported.write_text(source.replace(IMPORTS, "import rookery as chess\n"), encoding="utf-8")
    for args in ([TWIC, "--min-elo", "2300"], [PGN_DATA / "lichess_db_10k.pgn", "--min-elo", "0"]):
        expected = run(SCRIPT, *args)
        # Something was counted: games, openings and endings.
        assert not expected.startswith("0 games"), expected
        assert len(expected.splitlines()) > 4, expected
        assert run(ported, *args) == expected
