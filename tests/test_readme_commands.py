"""Every command of the README runs verbatim and succeeds.

The README's fenced `bash` blocks run in order as one bash script (`set -euo pipefail`: a
command that fails fails the test) in a fresh folder that holds a link to the checkout's .venv,
with the .venv's bin folder taken off PATH, so `source .venv/bin/activate` is what puts
`ipcgrasp` there, as for a reader. Its `python` blocks run with the .venv's Python in the same
folder. The commands are the README's own small inputs (the built-in cube, a few trials), so
this takes about half a minute.

Two commands are not run, each for the reason in NOT_RUN, and the test fails when one of them is
no longer in the README (the list cannot go stale).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

NOT_RUN = {
    "scripts/run": "installs the gui extra with pip (network) and opens the desktop app; the "
    "app's smoke test it runs without a display is run by scripts/test itself",
    "scripts/test": "runs the whole suite, this test included",
}

_FENCE = re.compile(r"^```(\w*)\s*\n(.*?)^```\s*$", re.M | re.S)


def fenced_blocks(text: str, language: str) -> list[str]:
    """The bodies of the fenced code blocks of `language` in `text`, in order."""
    return [body for lang, body in _FENCE.findall(text) if lang == language]


def shell_commands(block: str) -> list[str]:
    """The commands of a shell block: one per line, backslash continuations joined; comment-only
    and empty lines dropped (comments after a command stay: bash ignores them)."""
    commands, pending = [], ""
    for line in block.splitlines():
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        command = (pending + line).strip()
        pending = ""
        if command and not command.startswith("#"):
            commands.append(command)
    return commands


def _program(command: str) -> str:
    return command.split()[0]


def shell_script(commands: list[str]) -> str:
    """One bash script running `commands` in order, stopping at the first that fails; the ones
    in NOT_RUN are left out."""
    lines = ["set -euo pipefail"]
    for command in commands:
        if _program(command) in NOT_RUN:
            continue
        lines.append(f"echo {_quote('$ ' + command)} >&2")
        lines.append(command)
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def reader_environment() -> dict[str, str]:
    """The environment without the .venv on PATH (as a reader's shell before activating)."""
    env = dict(os.environ)
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and Path(p) != Path(venv_bin)
    )
    env.pop("VIRTUAL_ENV", None)
    env["MPLBACKEND"] = "Agg"
    return env


def run_readme(text: str, workdir: Path) -> None:
    """Run the README `text`'s bash blocks, then its python blocks, in `workdir`; raise
    AssertionError with the output when one fails."""
    venv = workdir / ".venv"
    if not venv.exists():
        venv.symlink_to(Path(sys.executable).parents[1], target_is_directory=True)
    commands = [c for block in fenced_blocks(text, "bash") for c in shell_commands(block)]
    done = subprocess.run(
        ["bash", "-c", shell_script(commands)],
        cwd=workdir,
        env=reader_environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, (
        f"a README command failed (exit {done.returncode}):\n{done.stderr[-4000:]}\n"
        f"{done.stdout[-2000:]}"
    )
    for block in fenced_blocks(text, "python"):
        done = subprocess.run(
            [sys.executable, "-c", block],
            cwd=workdir,
            env=reader_environment(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"a README python block failed:\n{block}\n{done.stderr}"


def test_the_not_run_commands_are_in_the_readme() -> None:
    commands = [c for b in fenced_blocks(README.read_text(), "bash") for c in shell_commands(b)]
    programs = {_program(c) for c in commands}
    assert set(NOT_RUN) <= programs, f"stale NOT_RUN entries: {set(NOT_RUN) - programs}"


def test_commands_are_extracted_verbatim() -> None:
    text = "x\n```bash\n# a comment\nipcgrasp sample cube \\\n    --n 5   # five\n\nls\n```\n"
    assert shell_commands(fenced_blocks(text, "bash")[0]) == [
        "ipcgrasp sample cube      --n 5   # five",
        "ls",
    ]


def test_a_failing_readme_command_fails(tmp_path: Path) -> None:
    text = (
        "```bash\nsource .venv/bin/activate\nipcgrasp simulate --object cube --no-such-flag\n"
        "echo never\n```\n"
    )
    with pytest.raises(AssertionError, match="no-such-flag"):
        run_readme(text, tmp_path)


def test_ipcgrasp_is_not_on_path_before_activating(tmp_path: Path) -> None:
    if shutil.which("ipcgrasp", path=reader_environment()["PATH"]):
        pytest.skip("an ipcgrasp outside this .venv is on PATH")
    with pytest.raises(AssertionError, match="ipcgrasp"):
        run_readme("```bash\nipcgrasp --help\n```\n", tmp_path)


@pytest.mark.slow
def test_every_readme_command_runs_verbatim(tmp_path: Path) -> None:
    run_readme(README.read_text(), tmp_path)
    assert (tmp_path / "out" / "results.csv").exists()
    assert (tmp_path / "out" / "pr.png").exists()
