"""The file formats a simulated trial's frames can be exported to, declared once.

Each format is a `TrialExport` line: its name, the words the app's File menu and save dialog
use, and its writer as a "module:function" path imported on first use (so this table loads
nothing heavy). A writer takes `(path, TrialFrames, *, overwrite)` and returns the path it
wrote; it refuses an existing file unless `overwrite` (the app asked first). The app builds its
File > Export actions and their dialogs from `trial_exports()`, so a new format is two files:
its writer module in engine/io and its line in `_BUILT_IN` (or `register(...)` at run time).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import ParameterError
from engine.grasp.frames import Frame


@dataclass(frozen=True, eq=False)
class TrialFrames:
    """What an export writes: one trial's frames, the object's mesh in its resting frame
    (moved by each frame's object pose), the pads' surface triangles, and per frame the pads'
    strain energy density per vertex (J/m^3; None when not computed)."""

    frames: Sequence[Frame]
    object_vertices: np.ndarray
    object_faces: np.ndarray
    pad_faces: np.ndarray
    energy: Sequence[tuple[np.ndarray, np.ndarray]] | None = None


Writer = Callable[..., Path]


@dataclass(frozen=True)
class TrialExport:
    """One export format: `name` (a key), `label` ("VTK series": the menu says "Export VTK
    series…"), `description` (the menu's tooltip), the save dialog's `file_filter` and
    `suffix`, and `writer`, the "module:function" that writes it."""

    name: str
    label: str
    description: str
    file_filter: str
    suffix: str
    writer: str

    def write(self, path: str | Path, trial: TrialFrames, *, overwrite: bool = False) -> Path:
        """Write `trial` to `path` with this format's writer; returns the path written."""
        module_name, _, function = self.writer.partition(":")
        fn: Any = getattr(importlib.import_module(module_name), function, None)
        if not callable(fn):
            raise ParameterError(f"the {self.label} export's writer {self.writer} is not found")
        return Path(fn(path, trial, overwrite=overwrite))


_BUILT_IN = (
    TrialExport(
        "vtk", "VTK series", "Frames of the selected trial as a ParaView .pvd series",
        "ParaView series (*.pvd)", ".pvd", "engine.io.vtk_series:write_trial",
    ),
)  # fmt: skip
_REGISTERED: dict[str, TrialExport] = {f.name: f for f in _BUILT_IN}


def trial_exports() -> tuple[TrialExport, ...]:
    """Every export format, built-in first, then those registered, in order."""
    return tuple(_REGISTERED.values())


def register(fmt: TrialExport) -> None:
    """Add (or replace) an export format at run time (a format of your own outside the tree)."""
    if not fmt.name or not fmt.suffix.startswith("."):
        raise ParameterError(
            f"an export format needs a name and a suffix starting with '.', got {fmt.name!r} "
            f"and {fmt.suffix!r}"
        )
    _REGISTERED[fmt.name] = fmt


def unregister(name: str) -> None:
    """Remove a format registered at run time (the built-in ones stay)."""
    if name not in {f.name for f in _BUILT_IN}:
        _REGISTERED.pop(name, None)
