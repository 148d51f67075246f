"""Place the two jaws of a parallel-jaw gripper in the world from a gripper pose.

Jaw 0 sits on the -x side of the gripper frame, jaw 1 on the +x side; each pad's normal n
points towards the other jaw. A pad's local (a, b, n) coordinates map to world as
a -> gripper z (approach), n -> +x for jaw 0 and -x for jaw 1, b = n x a.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.gripper.pad_geometry import PadMesh


@dataclass(frozen=True)
class JawPlacement:
    """World placement of one jaw when the gripper is open."""

    rotation: np.ndarray  # (3,3) pad frame -> world
    origin: (
        np.ndarray
    )  # (3,) world position of the pad-frame origin (centre of the contact face line)
    normal: np.ndarray  # (3,) unit, towards the other jaw (closing direction of this jaw)

    def to_world(self, pad_points: np.ndarray) -> np.ndarray:
        """Pad-frame points (..., 3) in m to world coordinates, m."""
        return pad_points @ self.rotation.T + self.origin


def place_jaws(gripper_pose: np.ndarray, open_width_m: float) -> tuple[JawPlacement, JawPlacement]:
    """Both jaws, opened so their contact faces are open_width_m apart."""
    x, z, c = gripper_pose[:3, 0], gripper_pose[:3, 2], gripper_pose[:3, 3]
    jaws = []
    for sign in (1.0, -1.0):
        n = sign * x
        b = np.cross(n, z)
        rot = np.column_stack([z, b, n])
        jaws.append(JawPlacement(rot, c - 0.5 * open_width_m * n, n))
    return jaws[0], jaws[1]


def open_pad_vertices(pad: PadMesh, jaw: JawPlacement) -> np.ndarray:
    """(n,3) world rest positions of a pad on an open jaw."""
    return jaw.to_world(pad.vertices)
