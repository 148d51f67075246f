"""constraints.txt, the versions scripts/run and scripts/test install, against pyproject.toml.

Every dependency pyproject.toml names (the base ones and every extra's) must be pinned there with
`==`, at a version its range admits: otherwise a fresh install would pick that library's newest
release, and two machines would sample different grasps (as happened before the file existed).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _pins(text: str) -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==([^\s;]+)", line)
        assert match, f"constraints.txt: {line!r} is not a 'name==version' pin"
        pins[canonicalize_name(match.group(1))] = Version(match.group(2))
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        listed += extra
    return [r for r in map(Requirement, listed) if canonicalize_name(r.name) != "ipcgrasp"]


def test_every_dependency_is_pinned_within_its_range() -> None:
    pins = _pins((ROOT / "constraints.txt").read_text())
    problems = []
    for req in _requirements():
        pinned = pins.get(canonicalize_name(req.name))
        if pinned is None:
            problems.append(f"{req.name} is not pinned")
        elif not req.specifier.contains(pinned, prereleases=True):
            problems.append(f"{req.name}=={pinned} is outside pyproject.toml's {req.specifier}")
    assert not problems, "constraints.txt: " + "; ".join(problems) + " (see its header)"


def test_the_pin_check_flags_a_missing_and_an_out_of_range_pin() -> None:
    pins = _pins("numpy==1.20.0\n# a comment\nscipy==1.17.1  # trailing\n")
    assert pins[canonicalize_name("numpy")] == Version("1.20.0")
    numpy = next(r for r in _requirements() if r.name == "numpy")
    assert not numpy.specifier.contains(pins["numpy"])  # numpy>=1.26 refuses 1.20
    assert canonicalize_name("ipctk") not in pins
