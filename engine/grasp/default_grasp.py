"""A sensible grasp when the user gives none: antipodal through the centre of mass."""

from __future__ import annotations

import numpy as np

from engine.errors import GraspError
from engine.grasp.grasp import Grasp
from engine.gripper.pad_geometry import PadOutline
from engine.scene.resting import RestingObject


def narrowest_horizontal_axis(vertices: np.ndarray, steps: int = 360) -> tuple[np.ndarray, float]:
    """Unit horizontal direction along which the object is narrowest, and that width (m)."""
    theta = np.linspace(0.0, np.pi, steps, endpoint=False)
    dirs = np.column_stack([np.cos(theta), np.sin(theta), np.zeros_like(theta)])
    proj = vertices @ dirs.T
    widths = proj.max(axis=0) - proj.min(axis=0)
    k = int(np.argmin(widths))
    return dirs[k], float(widths[k])


def default_grasp(obj: RestingObject, outline: PadOutline, clearance_m: float = 0.002) -> Grasp:
    """Top-down grasp through the centre of mass, closing along the narrowest horizontal extent.

    The centre is raised when needed so the open pads' fingertips clear the ground.
    """
    axis, _ = narrowest_horizontal_axis(np.asarray(obj.vertices))
    tip = float(outline.polygon[:, 0].max())  # pad extent beyond the jaw centre, towards the tips
    top = float(np.asarray(obj.vertices)[:, 2].max())
    z = max(float(obj.center_of_mass[2]), tip + clearance_m)
    if z >= top:
        raise GraspError(
            f"the object is only {top * 1e3:.1f} mm tall: a top-down grasp cannot reach it without "
            "the pad tips hitting the ground; give a grasp with a tilted approach angle"
        )
    return Grasp(center=np.array([0.0, 0.0, z]), axis=axis, approach_angle_rad=0.0)
