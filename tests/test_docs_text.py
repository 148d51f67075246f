"""The README and the documentation pages read as documentation, not as a lab notebook, and the
commands they show exist.

No commit hashes, no dates or UTC time stamps, no words about how the work was organised
("issue 12", "this session", "the lead"): the history lives in git, CHANGELOG.md and
benchmarks/results/ (whose files may name the commit they measured). The README stays a front
door of at most 150 lines.

docs/real_meshes.md is left out: it pins the third-party repositories its meshes come from to
their commits, which is what makes that data set reproducible.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from tests.test_readme_commands import fenced_blocks, shell_commands

REPO = Path(__file__).resolve().parents[1]
NOT_CHECKED = {"docs/real_meshes.md": "pins its meshes' source repositories to their commits"}

FORBIDDEN = {
    "a commit hash": re.compile(r"(?<![#\w])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"),
    "a date": re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"),
    "a time stamp": re.compile(r"\b\d{1,2}:\d\d(?:-\d{1,2}:\d\d)? UTC\b"),
    "an issue number": re.compile(r"\bissues? \d+", re.I),
    "a work session": re.compile(
        r"\b(this|that|the previous|the next|another|other) sessions?\b(?!'s? (file|format))"
        r"|\bsession (start|by session)\b",
        re.I,
    ),
    "the lead": re.compile(r"\bthe lead\b", re.I),
}


def documentation_files() -> list[Path]:
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    return [f for f in files if f.relative_to(REPO).as_posix() not in NOT_CHECKED]


def findings(text: str) -> list[str]:
    """Each forbidden thing in `text`, as 'line N: what (match)'."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for what, pattern in FORBIDDEN.items():
            for match in pattern.finditer(line):
                found.append(f"line {number}: {what} ({match.group(0)!r})")
    return found


@pytest.mark.parametrize("path", documentation_files(), ids=lambda p: p.name)
def test_no_hashes_time_stamps_or_work_organisation(path: Path) -> None:
    assert findings(path.read_text(encoding="utf-8")) == [], path.relative_to(REPO)


def test_each_kind_is_found() -> None:
    text = (
        "at 3c198ed\nrun on 2026-11-29\nfrom 02:37-02:56 UTC\nissue 40 says\n"
        "in this session\nthe lead wrote\nsession by session\n"
    )
    assert len(findings(text)) == 7


def test_documentation_words_pass() -> None:
    text = (
        "a session file (NAME.ipcgrasp.json), colour #4c72b0, sha256 of the mesh, E = 1e8 Pa,\n"
        "0.44 s per trial at 98 vertices, the sessions' object fields, 1e-7 m\n"
    )
    assert findings(text) == []


def test_the_readme_is_a_front_door() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move detail into docs/"


def test_the_not_checked_files_exist() -> None:
    for name in NOT_CHECKED:
        assert (REPO / name).exists(), f"{name} is gone: drop it from NOT_CHECKED"


def documented_commands() -> list[tuple[str, str]]:
    """(file, command) for every `ipcgrasp CMD ...` line of a bash block in the README and docs/
    (`ipcgrasp gui` is the app's, not the engine parser's)."""
    found = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for block in fenced_blocks(path.read_text(encoding="utf-8"), "bash"):
            for command in shell_commands(block):
                words = shlex.split(command, comments=True)
                if len(words) >= 2 and words[0] == "ipcgrasp" and words[1] != "gui":
                    found.append((path.name, command))
    return found


def parse_error(command: str) -> str:
    """What `ipcgrasp` says about `command`'s arguments ('' when they parse)."""
    from engine.cli.main import build_parser

    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(shlex.split(command, comments=True)[1:])
    except SystemExit as exc:
        return stderr.getvalue().strip() or f"exit {exc.code}" if exc.code else ""
    return ""


def test_every_documented_command_parses() -> None:
    commands = documented_commands()
    assert len(commands) >= 20  # the README's tour, the guides, the validation report
    errors = [(name, command, parse_error(command)) for name, command in commands]
    assert [e for e in errors if e[2]] == []


def test_a_stale_flag_is_found() -> None:
    assert "unrecognized arguments: --no-such-flag" in parse_error(
        "ipcgrasp simulate --object cube --no-such-flag"
    )
