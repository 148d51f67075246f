"""Resting poses as a person tells them apart: poses that differ only by a turn about the
vertical, or by a roll of a round object about its own axis, are one pose to a person.

trimesh's toppling analysis lists one pose per hull face an object can rest on: a bottle lying
on its side becomes ~64 poses of 1.5 % each (its rolled facets), so the standing pose (2.5 %)
comes first; an apple's facets read "0.0 %". `pose_groups` merges poses whose rested shapes
agree in what a turn about the vertical leaves unchanged (height, centre of mass height, the
footprint's extents along its principal axes, the radii of gyration about the vertical and in
the footprint's principal directions), within LENGTH_TOLERANCE of the object's size; each
group keeps the index of its most probable member (what `--stable-pose` and sessions use, so
existing grasp tables and REACH's indices keep their meaning) and the sum of its members'
probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import trimesh

from engine.scene.object_mesh import ObjectMesh
from engine.scene.resting import StablePose

LENGTH_TOLERANCE = 0.01
"""Two poses are one when every length of their signatures agrees within this share of the
object's bounding-box diagonal."""

UPRIGHT_TOLERANCE_DEG = 2.0
"""A pose is the file's own orientation when it keeps the file's +z up within this angle."""


@dataclass(frozen=True)
class PoseGroup:
    """Resting poses that look the same, most probable first."""

    index: int  # the pose to ask for (--stable-pose): the group's most probable member
    members: tuple[int, ...]  # every stable pose index in the group, most probable first
    probability: float  # the members' probabilities summed
    height_m: float
    footprint_m: tuple[float, float]  # extents on the table along its principal axes, larger first
    as_in_file: bool  # one member keeps the file's +z up

    def description(self) -> str:
        """'120 mm high on a 70 x 65 mm footprint, as in the file'."""
        length, width = (1e3 * v for v in self.footprint_m)
        text = f"{1e3 * self.height_m:.0f} mm high on a {length:.0f} x {width:.0f} mm footprint"
        return text + (", as in the file" if self.as_in_file else "")


def pose_groups(mesh: ObjectMesh, poses: list[StablePose]) -> list[PoseGroup]:
    """`poses` (stable_poses(mesh), most probable first) merged into groups that look the same,
    most probable group first."""
    tm = mesh.to_trimesh()
    points = np.asarray(tm.convex_hull.vertices, dtype=np.float64)
    props = trimesh.triangles.mass_properties(tm.triangles, density=1.0)
    center = np.asarray(props.center_mass, dtype=np.float64)
    # Second moment about the centre of mass per unit mass (m^2): S = tr(I)/2 Id - I.
    inertia = np.asarray(props.inertia) / max(float(props.mass), 1e-300)
    second = 0.5 * np.trace(inertia) * np.eye(3) - inertia
    tolerance = LENGTH_TOLERANCE * float(np.linalg.norm(np.ptp(points, axis=0)))
    signatures = [_signature(p.transform[:3, :3], points, center, second) for p in poses]
    groups: list[list[int]] = []
    for i, sig in enumerate(signatures):
        for group in groups:
            if np.all(np.abs(signatures[group[0]][0] - sig[0]) <= tolerance):
                group.append(i)
                break
        else:
            groups.append([i])
    out = []
    for group in groups:
        _, height, footprint = signatures[group[0]]
        out.append(
            PoseGroup(
                index=group[0],
                members=tuple(group),
                probability=float(sum(poses[i].probability for i in group)),
                height_m=height,
                footprint_m=footprint,
                as_in_file=any(_keeps_file_up(poses[i].transform) for i in group),
            )
        )
    return sorted(out, key=lambda g: (-g.probability, g.index))


def _signature(
    rotation: np.ndarray, points: np.ndarray, center: np.ndarray, second: np.ndarray
) -> tuple[np.ndarray, float, tuple[float, float]]:
    """(lengths a turn about the vertical leaves unchanged, height, footprint) of the hull
    points rested by `rotation` (mesh -> resting frame)."""
    p = (points - center) @ rotation.T
    low = p[:, 2].min()
    height = float(p[:, 2].max() - low)
    s = rotation @ second @ rotation.T
    values, vectors = np.linalg.eigh(s[:2, :2])
    along = p[:, :2] @ vectors  # footprint coordinates along its principal axes
    extents = np.ptp(along, axis=0)
    footprint = (float(extents.max()), float(extents.min()))
    lengths = np.array(
        [
            height,
            -low,  # the centre of mass's height
            *sorted(extents, reverse=True),
            np.sqrt(max(s[2, 2], 0.0)),
            *np.sqrt(np.clip(values[::-1], 0.0, None)),
        ]
    )
    return lengths, height, footprint


def _keeps_file_up(transform: np.ndarray) -> bool:
    """Whether the pose keeps the mesh file's +z axis up."""
    up_in_file = np.asarray(transform, dtype=np.float64)[2, :3]
    cos = up_in_file[2] / max(float(np.linalg.norm(up_in_file)), 1e-300)
    return bool(cos >= np.cos(np.radians(UPRIGHT_TOLERANCE_DEG)))
