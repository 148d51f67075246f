"""The Qt-free contract of the worker processes names the package app.workers, not a list of
modules: a worker body added to the package is checked without editing pyproject.toml."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def test_a_new_worker_body_that_imports_qt_breaks_the_contract(tmp_path):
    """lint-imports on a copy of the code with one new module in app/workers that imports Qt:
    the app-workers-qt-free contract fails and names that module's import."""
    ignore = shutil.ignore_patterns("__pycache__")
    for package in ("engine", "app"):
        shutil.copytree(REPO / package, tmp_path / package, ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "app" / "workers" / "new_body.py").write_text(
        '"""A new worker body."""\n\nfrom PySide6.QtCore import QTimer\n\nTIMER = QTimer\n'
    )
    lint = Path(sys.executable).with_name("lint-imports")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))  # the copy before the editable install
    result = subprocess.run(
        [str(lint), "--no-logo", "--no-cache", "--contract", "app-workers-qt-free"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode != 0, result.stdout
    assert "app.workers.new_body -> PySide6" in result.stdout, result.stdout
