"""Drawable gripper geometry in the gripper frame: both pads and their backing plates.

The engine moves the plates kinematically (closing travel along each jaw normal, lift along
world z), so a plate's world matrix is a translation of the open gripper pose; the pads are
drawn from each frame's vertex positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.gripper.jaws import place_jaws
from engine.gripper.pad_geometry import PadMesh

# Backing plate around the pad's back face (drawing only): margin around the outline, plate
# thickness behind the pad, and a finger that continues towards the palm (-a).
PLATE_MARGIN_M = 0.001
PLATE_THICKNESS_M = 0.004
FINGER_LENGTH_M = 0.030


def _box(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """8 corners and 12 outward triangles of the axis-aligned box [lo, hi]."""
    corners = np.array(
        [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    )
    faces = np.array(
        [
            [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
            [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],
        ]
    )  # fmt: skip
    return corners, faces


@dataclass(frozen=True, eq=False)
class GripperShapes:
    """Pad and plate meshes of both jaws in the gripper frame, for a given opening."""

    pad_faces: np.ndarray  # (f,3) surface triangles indexing the pad's vertices
    pad_local: tuple[np.ndarray, np.ndarray]  # (n,3) open pad vertices, gripper frame
    plate_local: tuple[np.ndarray, np.ndarray]  # (8,3) plate box corners, gripper frame
    plate_faces: np.ndarray  # (12,3)
    normals: tuple[np.ndarray, np.ndarray]  # closing direction of each jaw, gripper frame
    open_width_m: float

    @classmethod
    def build(cls, pad: PadMesh, open_width_m: float) -> GripperShapes:
        """Shapes for `pad` with the jaws `open_width_m` apart."""
        jaws = place_jaws(np.eye(4), open_width_m)
        poly = np.asarray(pad.outline.polygon)
        t = pad.outline.thickness_m
        lo = np.array([poly[:, 0].min() - FINGER_LENGTH_M, poly[:, 1].min() - PLATE_MARGIN_M])
        hi = np.array([poly[:, 0].max() + PLATE_MARGIN_M, poly[:, 1].max() + PLATE_MARGIN_M])
        corners, faces = _box(
            np.array([lo[0], lo[1], -t - PLATE_THICKNESS_M]), np.array([hi[0], hi[1], -t])
        )
        pads = tuple(j.to_world(np.asarray(pad.vertices)) for j in jaws)
        plates = tuple(j.to_world(corners) for j in jaws)
        # A jaw frame is a rotation, so mirrored winding cannot occur; keep faces as they are.
        return cls(
            pad_faces=np.asarray(pad.surface_faces),
            pad_local=pads,  # type: ignore[arg-type]
            plate_local=plates,  # type: ignore[arg-type]
            plate_faces=faces,
            normals=(jaws[0].normal.copy(), jaws[1].normal.copy()),
            open_width_m=float(open_width_m),
        )

    def plate_matrix(
        self, jaw: int, gripper_pose: np.ndarray, travel_m: float, lift_m: float
    ) -> np.ndarray:
        """4x4 world matrix of a plate drawn from `plate_local`: the gripper pose plus the
        plate's closing travel (along its world normal) and lift (world z)."""
        pose = np.array(gripper_pose, dtype=float)
        n_world = pose[:3, :3] @ self.normals[jaw]
        pose[:3, 3] += travel_m * n_world + np.array([0.0, 0.0, lift_m])
        return pose
