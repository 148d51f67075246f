"""Antipodal grasp completion: from one picked surface point to a full parallel-jaw grasp.

The picked point is jaw 0's contact; the closing axis is the inward surface normal there, and
the opposite contact is where a ray along that axis last leaves the object (the outermost
surface the closing jaw 1 meets first). Used by the app's click-to-place tool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import trimesh

from engine.errors import GraspError
from engine.grasp.grasp import Grasp
from engine.scene.resting import RestingObject

_WORLD_DOWN = np.array([0.0, 0.0, -1.0])


@dataclass(frozen=True)
class AntipodalGrasp:
    """A grasp completed from a picked point, with both contacts (resting frame, m)."""

    grasp: Grasp
    contact0: np.ndarray
    contact1: np.ndarray

    @property
    def width_m(self) -> float:
        """Distance between the two contacts along the closing axis."""
        return float(np.dot(self.contact1 - self.contact0, self.grasp.axis))


def antipodal_grasp(
    obj: RestingObject,
    point: np.ndarray,
    outward_normal: np.ndarray,
    approach_angle_rad: float = 0.0,
) -> AntipodalGrasp:
    """Complete a grasp whose jaw 0 touches `point` (on the surface, resting frame).

    Raises GraspError when the ray along the inward normal finds no opposite surface (the point
    is not on the object, or the normal is degenerate).
    """
    p = np.asarray(point, dtype=float).reshape(3)
    n = np.asarray(outward_normal, dtype=float).reshape(3)
    length = float(np.linalg.norm(n))
    if not (np.all(np.isfinite(p)) and math.isfinite(length) and length > 1e-12):
        raise GraspError("the picked point has no usable surface normal; pick another point")
    axis = -n / length
    mesh = trimesh.Trimesh(np.asarray(obj.vertices), np.asarray(obj.faces), process=False)
    diagonal = float(np.linalg.norm(mesh.extents))
    start = p + 1e-6 * diagonal * axis
    locations, _, index_tri = mesh.ray.intersects_location(start[None], axis[None])
    reach = (locations - p) @ axis if len(locations) else np.zeros(0)
    # From a point on the surface the ray starts inside the material, so the nearest hit leaves
    # the object; a nearest hit that enters it means the point was not on the surface.
    if len(locations) == 0 or np.dot(mesh.face_normals[index_tri[np.argmin(reach)]], axis) <= 0:
        raise GraspError(
            "no opposite surface along the normal at the picked point: pick a point on the "
            "object's surface"
        )
    q = locations[int(np.argmax(reach))]
    center = 0.5 * (p + q)
    return AntipodalGrasp(Grasp(center, axis, approach_angle_rad), p.copy(), q.copy())


def grasp_from_pose(pose: np.ndarray) -> Grasp:
    """Inverse of `Grasp.pose`: the grasp whose gripper frame is `pose` (4x4 world <- gripper).

    Only the closing axis (x), the approach direction (z) and the centre are used; z is
    re-orthogonalised against x, so a slightly sheared matrix (a gizmo drag) is accepted.
    """
    m = np.asarray(pose, dtype=float)
    x = m[:3, 0] / np.linalg.norm(m[:3, 0])
    z = m[:3, 2] - np.dot(m[:3, 2], x) * x
    z /= np.linalg.norm(z)
    # The reference direction of angle 0, exactly as Grasp.pose builds it.
    ref = _WORLD_DOWN if abs(x[2]) < 0.99 else np.array([-1.0, 0.0, 0.0])
    z0 = ref - np.dot(ref, x) * x
    z0 /= np.linalg.norm(z0)
    angle = math.atan2(float(np.dot(np.cross(x, z0), z)), float(np.dot(z0, z)))
    return Grasp(m[:3, 3].copy(), x, angle)


def contacts_along_axis(obj: RestingObject, grasp: Grasp) -> tuple[np.ndarray, np.ndarray] | None:
    """Where the line through the jaw centre along the axis enters and leaves the object
    (the two jaw contacts of a rigid closing), or None when it misses."""
    mesh = trimesh.Trimesh(np.asarray(obj.vertices), np.asarray(obj.faces), process=False)
    reach = 2.0 * float(np.linalg.norm(mesh.extents)) + 1.0
    start = grasp.center - reach * grasp.axis
    locations, _, _ = mesh.ray.intersects_location(start[None], grasp.axis[None])
    if len(locations) == 0:
        return None
    s = (locations - start) @ grasp.axis
    return locations[int(np.argmin(s))].copy(), locations[int(np.argmax(s))].copy()
