"""The `ipcgrasp` console script: engine commands never load Qt; `gui` is the app."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

_PROBE = """
import json, sys
from app.launcher import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:  # argparse --help
    code = exc.code
gui = sorted(m for m in sys.modules if m.split('.')[0] in {'PySide6', 'pyvista', 'pyvistaqt', 'vtkmodules'})
print(json.dumps({'code': code, 'gui': gui}))
"""


def _probe(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_engine_commands_go_to_the_engine_cli_without_qt():
    assert _probe("simulate", "--help") == {"code": 0, "gui": []}
    assert _probe("--version") == {"code": 0, "gui": []}


def test_gui_without_a_display_explains_itself():
    env = {
        k: v for k, v in __import__("os").environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")
    }
    out = subprocess.run(
        [sys.executable, "-m", "app.launcher", "gui", "--smoke-test"],
        cwd=REPO, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    if sys.platform.startswith("linux"):
        assert out.returncode == 2
        assert "no display" in out.stderr and "xvfb-run" in out.stderr


def test_gui_help_lists_the_smoke_test():
    out = subprocess.run(
        [sys.executable, "-m", "app.launcher", "gui", "--help"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0 and "--smoke-test" in out.stdout


def test_desktop_file_and_icon():
    desktop = REPO / "resources" / "ipcgrasp.desktop"
    text = desktop.read_text()
    assert "Exec=ipcgrasp gui %f" in text and "Icon=ipcgrasp" in text
    ET.parse(REPO / "resources" / "icons" / "ipcgrasp.svg")
    ET.parse(REPO / "packaging" / "linux" / "ipcgrasp-session.xml")
    validator = shutil.which("desktop-file-validate")
    if validator is None:
        pytest.skip("desktop-file-validate is not installed")
    out = subprocess.run([validator, str(desktop)], capture_output=True, text=True)
    assert out.returncode == 0 and not out.stdout.strip(), out.stdout + out.stderr
