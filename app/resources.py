"""Where the app's icon and desktop file live (repo checkout or installed wheel)."""

from __future__ import annotations

from pathlib import Path

_CANDIDATES = (
    Path(__file__).resolve().parents[1] / "resources",  # source checkout / editable install
    Path(__file__).resolve().parents[1] / "engine" / "_resources",  # wheel (force-include)
)


def resource_dir() -> Path | None:
    """The directory of the app's bundled resources."""
    for c in _CANDIDATES:
        if (c / "icons").is_dir():
            return c
    return None


def icon_path() -> Path | None:
    """The app icon, or None if it is missing."""
    d = resource_dir()
    if d is None:
        return None
    p = d / "icons" / "ipcgrasp.svg"
    return p if p.is_file() else None
