"""Persistent preferences (QSettings): recent files, window layout, dialogs not to show again,
the length unit of each mesh file opened."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

MAX_RECENT = 8


def settings() -> QSettings:
    """The app's QSettings."""
    return QSettings("ipcgrasp", "ipcgrasp")


def recent_files() -> list[str]:
    """Recently opened files, newest first."""
    value = settings().value("recent_files", [])
    # QSettings gives a str for a one-element list on some back ends, None for an empty one.
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        return []
    return [str(v) for v in value if v]


def add_recent_file(path: str | Path) -> list[str]:
    """Put `path` first in the recent files; returns the new list."""
    p = str(Path(path).resolve())
    files = [p] + [f for f in recent_files() if f != p]
    files = files[:MAX_RECENT]
    settings().setValue("recent_files", files)
    return files


def clear_recent_files() -> None:
    """Forget the recent files."""
    settings().setValue("recent_files", [])


def ask_before_replacing_results() -> bool:
    """Whether Simulate asks before a new run replaces unsaved results (default yes)."""
    return str(settings().value("ask_before_replacing_results", "true")).lower() != "false"


def set_ask_before_replacing_results(ask: bool) -> None:
    """Remember whether Simulate asks before replacing unsaved results."""
    settings().setValue("ask_before_replacing_results", "true" if ask else "false")


def _file_key(path: str | Path) -> str:
    # QSettings keys may not hold path separators; a digest of the absolute path is one key.
    import hashlib

    return "mesh_units/" + hashlib.sha1(str(Path(path).resolve()).encode()).hexdigest()


def mesh_unit(path: str | Path) -> str | None:
    """The length unit chosen for the mesh file `path` when it was last opened, if any."""
    value = settings().value(_file_key(path))
    return str(value) if value else None


def set_mesh_unit(path: str | Path, unit: str | None) -> None:
    """Remember the length unit of the mesh file `path` (None forgets it)."""
    if unit is None:
        settings().remove(_file_key(path))
    else:
        settings().setValue(_file_key(path), unit)
