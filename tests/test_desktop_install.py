"""packaging/linux/install-desktop.sh: per-user desktop integration with the launcher's absolute
path (XDG_DATA_HOME and HOME in a temporary folder; nothing is written anywhere else)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "packaging" / "linux" / "install-desktop.sh"


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path / "home"))
    return subprocess.run(
        ["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def launcher(tmp_path: Path) -> Path:
    path = tmp_path / "opt" / "ipcgrasp" / "ipcgrasp"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_installs_per_user_with_the_launchers_absolute_path(tmp_path, launcher):
    (tmp_path / "home").mkdir()
    result = _run(tmp_path, str(launcher))
    assert result.returncode == 0, result.stderr
    data = tmp_path / "data"
    entry = (data / "applications" / "ipcgrasp.desktop").read_text()
    assert f"Exec={launcher} gui %f\n" in entry
    assert f"TryExec={launcher}\n" in entry
    assert "Icon=ipcgrasp" in entry
    assert (data / "icons/hicolor/scalable/apps/ipcgrasp.svg").is_file()
    assert (data / "mime/packages/ipcgrasp-session.xml").is_file()
    if shutil.which("update-mime-database"):  # the type is known to the user's MIME database
        assert "*.ipcgrasp.json" in (data / "mime" / "globs2").read_text()
    assert list((tmp_path / "home").iterdir()) == []  # only XDG_DATA_HOME was written
    validator = shutil.which("desktop-file-validate")
    if validator:
        check = subprocess.run(
            [validator, str(data / "applications" / "ipcgrasp.desktop")],
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0 and not check.stdout.strip(), check.stdout

    removed = _run(tmp_path, "--uninstall")
    assert removed.returncode == 0, removed.stderr
    assert not (data / "applications" / "ipcgrasp.desktop").exists()
    assert not (data / "mime/packages/ipcgrasp-session.xml").exists()
    assert not (data / "icons/hicolor/scalable/apps/ipcgrasp.svg").exists()


def test_defaults_to_home_local_share_without_xdg_data_home(tmp_path, launcher):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env["HOME"] = str(tmp_path / "home")
    result = subprocess.run(
        ["bash", str(SCRIPT), str(launcher)], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "home/.local/share/applications/ipcgrasp.desktop").is_file()


def test_refuses_a_missing_launcher(tmp_path):
    result = _run(tmp_path, str(tmp_path / "nowhere" / "ipcgrasp"))
    assert result.returncode == 2 and "no ipcgrasp launcher" in result.stderr
    assert not (tmp_path / "data").exists()


def test_refuses_a_path_the_entry_would_need_to_escape(tmp_path):
    odd = tmp_path / "with space" / "ipcgrasp"
    odd.parent.mkdir()
    odd.write_text("#!/bin/sh\n")
    odd.chmod(0o755)
    result = _run(tmp_path, str(odd))
    assert result.returncode == 2 and "escape" in result.stderr
