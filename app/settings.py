"""Persistent preferences (QSettings): recent files, window layout, dialogs not to show again,
view choices (contact forces off / per point / per patch, how a compared run is drawn), the
length unit, the body and the resting pose chosen for each mesh file opened."""

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


def choice(key: str, allowed: tuple[str, ...], default: str) -> str:
    """A view choice remembered between sessions (one of `allowed`; `default` when none was
    saved or the saved one is not allowed any more)."""
    value = settings().value(key, default)
    return str(value) if str(value) in allowed else default


def set_choice(key: str, value: str) -> None:
    """Remember a view choice."""
    settings().setValue(key, value)


# View choices remembered between sessions: key, allowed values, default.
CONTACT_FORCES = ("contact_forces", ("off", "points", "patches"), "off")
COMPARE_VIEW = ("compare_view", ("overlay", "side"), "overlay")


class FileChoice:
    """A choice the user made for one file, remembered across sessions (a QSettings group,
    keyed by a digest of the file's absolute path: keys may not hold path separators)."""

    def __init__(self, group: str) -> None:
        self.group = group

    def _key(self, path: str | Path) -> str:
        import hashlib

        return f"{self.group}/" + hashlib.sha1(str(Path(path).resolve()).encode()).hexdigest()

    def get(self, path: str | Path) -> str | None:
        """The value chosen for `path` when it was last opened, if any."""
        value = settings().value(self._key(path))
        return str(value) if value else None

    def set(self, path: str | Path, value: str | None) -> None:
        """Remember `value` for `path` (None forgets it)."""
        if value is None:
            settings().remove(self._key(path))
        else:
            settings().setValue(self._key(path), value)


# What is remembered per file: one declaration each.
MESH_UNIT = FileChoice("mesh_units")  # length unit of a mesh file: "m", "cm", "mm", "inch"
MESH_BODY = FileChoice("mesh_bodies")  # body of a file holding several: "0", "1", ... or "all"
# Resting pose chosen for a mesh file: "index/count", its stable-pose index and how many
# stable poses the object had (a changed file or another body has another count: ignored).
MESH_POSE = FileChoice("mesh_poses")


def remembered_pose(path: Path, n_poses: int) -> int | None:
    """The stable pose the user chose for mesh file `path` before (app.settings.MESH_POSE),
    None when none was, or when the file (or the body opened) now has another number of stable
    poses: the index would name another pose."""
    value = MESH_POSE.get(path)
    try:
        index, count = (int(v) for v in (value or "").split("/"))
    except ValueError:
        return None
    return index if count == n_poses and 0 <= index < n_poses else None


def remember_pose(path: Path, index: int, n_poses: int) -> None:
    """Remember stable pose `index` (of `n_poses`) as the user's choice for mesh file `path`."""
    MESH_POSE.set(path, f"{index}/{n_poses}")
