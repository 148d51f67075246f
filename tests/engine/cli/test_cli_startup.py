"""`ipcgrasp --help`, `--version` and `ipcgrasp CMD --help` start instantly.

The top-level command imports no command module and none of the heavy libraries (trimesh, numba,
scipy, cvxpy, ipctk, Qt, numpy); a command's `--help` imports its own module and none of the
heavy libraries either, numpy included (the parameter dataclasses its flags come from, TrialSpec
and AnalyticParams, import numpy only where they compute). Import sets, not times, are tested
(times: benchmarks/bench_cli_startup.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("trimesh", "numba", "scipy", "cvxpy", "ipctk", "PySide6", "mujoco", "numpy")
# Also kept out of every `CMD --help` (they load with the solver, the plots or the Ray backend).
HEAVY_FOR_HELP = (*HEAVY, "networkx", "matplotlib", "ray", "osqp", "clarabel")

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
    out = _run_child(argv, HEAVY)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == [], f"ipcgrasp {' '.join(argv)} imported {loaded}"


def _run_child(argv: list[str], heavy: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD.format(argv=argv, heavy=list(heavy))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )


def _commands() -> list[str]:
    from engine.cli.commands import COMMANDS

    return list(COMMANDS)


@pytest.mark.parametrize("name", _commands())
def test_command_help_imports_nothing_heavy(name):
    from engine.cli.commands import COMMANDS

    out = _run_child([name, "--help"], HEAVY_FOR_HELP)
    lines = out.stdout.strip().splitlines()
    # The command's own parser answered (its usage line), not the top-level one.
    assert lines[0].startswith(f"usage: ipcgrasp {name} "), lines[0]
    loaded = json.loads(lines[-1])
    own = COMMANDS[name][0]
    others = [m for m in loaded if m.split(".")[0] != "engine"]
    assert others == [], f"ipcgrasp {name} --help imported {others}"
    assert own in loaded, f"ipcgrasp {name} --help did not use {own}"


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
