"""What the video export worker is sent (plain arrays, no VTK, no Qt): the trial to draw, and
the pinned trial drawn beside it when the view compares side by side (app.workers.video renders
it; app.controllers.exports and app.model.side_by_side build it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from app.gripper_shapes import GripperShapes
from app.model.forces import ForceView
from engine.grasp.frames import Frame


@dataclass(frozen=True, eq=False)
class SideFrame:
    """The pinned trial's frame drawn beside one shown frame (plain arrays)."""

    pad_vertices: tuple[np.ndarray, np.ndarray]
    object_pose: np.ndarray  # 4x4
    plate_matrices: tuple[np.ndarray, np.ndarray] | None  # None: its plates are not drawn
    fields: tuple[np.ndarray, np.ndarray] | None  # per pad vertex, on the shown trial's scale
    label: str  # its time, phase and grip forces


@dataclass(frozen=True, eq=False)
class SideBySide:
    """A pinned trial beside the shown one: its pads' triangles, the two halves' titles (shown,
    pinned) and its frame for each shown frame (None where it has none; at least one is not)."""

    pad_faces: np.ndarray
    titles: tuple[str, str]
    frames: list[SideFrame | None]


@dataclass(frozen=True, eq=False)
class VideoJob:
    """Everything the video process needs to draw one trial (plain arrays, no VTK)."""

    path: str
    object_vertices: np.ndarray
    object_faces: np.ndarray
    shapes: GripperShapes
    gripper_pose: np.ndarray
    frames: list[Frame]
    fields: list[tuple[np.ndarray, np.ndarray]] | None  # per frame, per pad (colour mode on)
    field_max: float
    camera_position: Any
    window_size: tuple[int, int]
    fps: int = 20
    title: str = ""
    view_angle_deg: float = 30.0  # the view's camera zoom (pyvista's zoom narrows the angle)
    field_title: str = ""  # the colour bar's title ("" without colours)
    forces: ForceView | None = None  # draw the contact forces as the view does (None: no)
    side: SideBySide | None = None  # a pinned trial in the right half (None: the whole frame)


def even_size(width: int, height: int, block: int = 16) -> tuple[int, int]:
    """Frame size rounded down to whole macro-blocks (H.264 needs even sizes; imageio would
    otherwise rescale to multiples of 16 with a warning)."""
    return max(block, width // block * block), max(block, height // block * block)
