"""The command line's help and parsing never mislead: `gui` is listed, no option shows
"(default: None)" or two defaults, a negative number in scientific notation (as ipcgrasp prints
a grasp axis) is accepted after every option that takes numbers, and `python -m ipcgrasp` runs
the command from the checkout."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli.commands import COMMANDS
from engine.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[3]
# A default said in the help: "(default: X)", "default: X", "X by default", "'s default X".
SAYS_DEFAULT = re.compile(r"default:|by default|'s default\b", re.IGNORECASE)


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser([name])
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


def _option_entries(help_text: str) -> list[str]:
    """Each option's entry of a help text, on one line."""
    return [" ".join(e.split()) for e in re.split(r"\n(?=  -)", help_text)[1:]]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_no_option_shows_default_none_or_two_defaults(name):
    text = _subparser(name).format_help()
    entries = _option_entries(text)
    assert entries, text
    assert [e for e in entries if "(default: None)" in e or "(default: False)" in e] == []
    assert [e for e in entries if len(SAYS_DEFAULT.findall(e)) > 1] == []


def test_values_a_default_stands_for_are_still_shown():
    entries = _option_entries(_subparser("simulate").format_help())
    trials = next(e for e in entries if e.startswith("--trials"))
    assert "(default: 1)" in trials
    width = next(e for e in entries if e.startswith("--open-width"))
    assert "(default: the gripper's)" in width


def test_gui_is_in_the_command_list():
    text = build_parser([]).format_help()
    assert re.search(r"\n    gui +open the desktop app", text), text


def _takes_numbers(action: argparse.Action) -> bool:
    """A float option: `type=float`, or a schema flag's converter (engine.schema, named float)."""
    return bool(action.option_strings) and getattr(action.type, "__name__", "") == "float"


def _vector_options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if _takes_numbers(a) and isinstance(a.nargs, int)]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_numeric_option_takes_a_pasted_negative_number(name):
    sub = _subparser(name)
    # What the command requires anyway: its positional arguments and required options.
    required = ["x" for a in sub._actions if not a.option_strings and a.nargs is None]
    for a in sub._actions:
        if a.option_strings and a.required:
            required += [a.option_strings[0], "x"]
    numeric = [a for a in sub._actions if _takes_numbers(a)]
    for action in numeric:
        count = action.nargs if isinstance(action.nargs, int) else 1
        values = ["-8.6568e-05", *["1"] * (count - 1)]
        args = sub.parse_args([*required, action.option_strings[0], *values])
        got = getattr(args, action.dest)
        assert (got if isinstance(got, list) else [got])[0] == -8.6568e-05, action.option_strings


def test_a_printed_grasp_axis_pastes_back_into_simulate():
    args = build_parser(["simulate"]).parse_args(
        ["simulate", "--grasp-axis", "-8.6568e-05", "1", "0", "--grasp-center", "0", "0", "1.5E-2"]
    )
    assert args.grasp_axis == [-8.6568e-05, 1.0, 0.0]
    assert args.grasp_center == [0.0, 0.0, 0.015]
    assert _vector_options(_subparser("simulate"))  # the flags this is about


def test_an_option_is_still_an_option():
    with pytest.raises(SystemExit):
        build_parser(["simulate"]).parse_args(["simulate", "--grasp-axis", "1", "--trials", "2"])


def test_python_dash_m_ipcgrasp_runs_the_command_from_the_checkout(tmp_path):
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-m", "ipcgrasp", "--help"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: ipcgrasp") and "    gui " in out.stdout


def test_the_wheels_import_path_works_in_the_checkout(tmp_path):
    """`ipcgrasp.engine.*` (the installed wheel's import path) names the checkout's `engine.*`:
    the same module objects, so a class imported either way is one class."""
    code = (
        "from ipcgrasp.engine.grasp.params import SimulationParams as A\n"
        "from engine.grasp.params import SimulationParams as B\n"
        "import ipcgrasp.app.model, app.model, ipcgrasp.engine.schema as s, engine.schema\n"
        "assert A is B and ipcgrasp.app.model is app.model and s is engine.schema\n"
        "assert A(gripper='franka_hand').open_width_m == 0.08\n"
        "print('ok')\n"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
