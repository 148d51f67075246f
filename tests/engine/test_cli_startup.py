"""`ipcgrasp --help` and `--version` start instantly: the top-level command imports no command
module and none of the heavy libraries (trimesh, numba, scipy, cvxpy, ipctk, Qt, numpy)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("trimesh", "numba", "scipy", "cvxpy", "ipctk", "PySide6", "mujoco", "numpy")

CHILD = """
import json, sys
from engine.cli.commands import COMMANDS
from engine.cli.main import main
try:
    main({argv!r})
except SystemExit:
    pass
modules = {{m for m, _ in COMMANDS.values()}}
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r} or m in modules)))
"""


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_top_level_cli_imports_nothing_heavy(argv):
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(argv=argv, heavy=list(HEAVY))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == [], f"ipcgrasp {' '.join(argv)} imported {loaded}"


def test_every_command_is_listed_and_runs_its_own_parser(capsys):
    from engine.cli.commands import COMMANDS
    from engine.cli.main import build_parser, main

    text = build_parser([]).format_help()
    for name, (_, help_text) in COMMANDS.items():
        assert name in text and help_text.split()[0] in text
    # A command's own --help comes from its module (its arguments), not the placeholder.
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "--labels" in capsys.readouterr().out
