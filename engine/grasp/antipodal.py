"""Antipodal grasp completion: from one picked surface point to a full parallel-jaw grasp.

The picked point is jaw 0's contact; the closing axis is the inward surface normal there, and
the opposite contact is where a ray along that axis last leaves the object within the
gripper's opening (the outermost surface the closing jaw 1 meets first). Used by the app's
click-to-place tool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import trimesh

from engine.errors import GraspError
from engine.grasp.grasp import Grasp
from engine.gripper.presets import GRIPPERS
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
    open_width_m: float | None = None,
    clearance_m: float = 0.0,
) -> AntipodalGrasp:
    """Complete a grasp whose jaw 0 touches `point` (on the surface, resting frame).

    The ray from `point` along the inward normal crosses the object; every surface where it
    leaves the material is a possible jaw 1 contact. Hits within a small tolerance of the
    picked point are the picked face itself and are ignored. Jaw 1 takes the outermost exit
    that fits between the open jaws (`open_width_m` less `clearance_m` on each side; any
    width when None), so a mug is grasped across when it fits and by its wall otherwise.

    A point a hair off the surface (a picker's point near a facet's edge) is moved onto it.
    On a sharp convex edge (a bowl's rim) the ray along either face's normal leaves the
    material at once; there the closing axis is the edge's normal (the mean of the normals of
    the faces meeting at the point), which pinches the material behind the edge.
    Raises GraspError, naming what to try, when the point is not on the surface, the normal
    is degenerate, or no opposite surface lies within the opening.
    """
    p = np.asarray(point, dtype=float).reshape(3)
    n = np.asarray(outward_normal, dtype=float).reshape(3)
    length = float(np.linalg.norm(n))
    if not (np.all(np.isfinite(p)) and math.isfinite(length) and length > 1e-12):
        raise GraspError("the picked point has no usable surface normal; pick another point")
    axis = -n / length
    mesh = trimesh.Trimesh(np.asarray(obj.vertices), np.asarray(obj.faces), process=False)
    diagonal = float(np.linalg.norm(mesh.extents))
    # A picker's point lies on the plane of the face it hit, which near an edge of a faceted
    # surface can be a hair outside the neighbouring face: put it on the surface.
    closest, distance, _ = trimesh.proximity.closest_point(mesh, p[None])
    if float(distance[0]) > 1e-3 * diagonal:
        raise GraspError(
            f"the picked point is {float(distance[0]) * 1e3:.1f} mm off the object's surface, "
            "so there is no opposite surface to grasp: pick a point on the object"
        )
    p = closest[0]
    reach, entering = _crossings(mesh, p, axis, diagonal)
    if len(reach) == 0 or entering[0]:
        # No hit at all, or the ray starts outside the material.
        raise GraspError(
            "no opposite surface along the normal at the picked point: pick a point on the "
            "object's surface"
        )
    exits = reach[~entering]
    # A point on a convex edge with the normal of one of its faces (a bowl's rim): the ray
    # grazes the other face and leaves the material at once; a jaw there would pinch nothing.
    # Close along the edge's normal instead, into the material behind the edge.
    sliver = 1e-3 * diagonal
    if exits[-1] <= sliver:
        edge_axis = _edge_axis(mesh, p, 10.0 * 1e-5 * diagonal)
        if edge_axis is not None:
            reach, entering = _crossings(mesh, p, edge_axis, diagonal)
            if len(reach) and not entering[0] and reach[~entering][-1] > sliver:
                axis, exits = edge_axis, reach[~entering]
        if exits[-1] <= sliver:
            raise GraspError(
                f"the picked point is on an edge: along its normal the object is only "
                f"{float(exits[-1]) * 1e3:.2f} mm thick there; pick a point away from the edge"
            )
    exits = exits[exits > sliver]
    limit = math.inf if open_width_m is None else open_width_m - 2.0 * clearance_m
    fitting = exits[exits <= limit]
    if len(fitting) == 0:
        raise GraspError(
            _too_wide_message(float(exits[0]), float(open_width_m or 0.0), clearance_m)
        )
    q = p + float(fitting[-1]) * axis
    center = 0.5 * (p + q)
    return AntipodalGrasp(Grasp(center, axis, approach_angle_rad), p.copy(), q)


def _edge_axis(mesh: trimesh.Trimesh, p: np.ndarray, tol: float) -> np.ndarray | None:
    """The inward normal of the edge (or corner) at surface point `p`: minus the mean of the
    distinct normals of the faces within `tol` of it; None when only one plane meets there."""
    tri = mesh.triangles
    near = np.all(tri.min(axis=1) <= p + tol, axis=1) & np.all(tri.max(axis=1) >= p - tol, axis=1)
    faces = np.nonzero(near)[0]
    if len(faces) == 0:
        return None
    closest = trimesh.triangles.closest_point(tri[faces], np.repeat(p[None], len(faces), axis=0))
    touching = faces[np.linalg.norm(closest - p, axis=1) <= tol]
    normals: list[np.ndarray] = []
    for n in mesh.face_normals[touching]:
        if all(float(n @ m) < 1.0 - 1e-6 for m in normals):  # one per plane
            normals.append(n)
    if len(normals) < 2:
        return None
    mean = np.sum(normals, axis=0)
    length = float(np.linalg.norm(mean))
    return None if length < 1e-9 else -mean / length


def _crossings(
    mesh: trimesh.Trimesh, p: np.ndarray, axis: np.ndarray, diagonal: float
) -> tuple[np.ndarray, np.ndarray]:
    """Where the ray from `p` along `axis` crosses the surface: distances from `p` (sorted)
    and whether the ray enters the material there. Hits closer than a tolerance (the picked
    face, found again at distance ~1e-19) are dropped; hits at one distance (an edge or a
    vertex shared by several faces) count once. A ray through an edge that finds an odd
    number of crossings is cast again from points a hair's width aside."""
    tol = 1e-5 * diagonal
    # Start behind the point so that the picked face itself is always hit, then dropped.
    start = p - 10.0 * tol * axis
    side = np.cross(axis, [1.0, 0.0, 0.0] if abs(axis[0]) < 0.9 else [0.0, 1.0, 0.0])
    side /= np.linalg.norm(side)
    other = np.cross(axis, side)
    best: tuple[np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0, dtype=bool))
    for shift in (np.zeros(3), side, other, -side, -other):
        origin = start + 1e-4 * diagonal * shift
        locations, _, tri = mesh.ray.intersects_location(origin[None], axis[None])
        # No hit at all comes back as a flat empty array (a ray from an edge into the open).
        locations = np.asarray(locations, dtype=float).reshape(-1, 3)
        tri = np.asarray(tri, dtype=np.int64).reshape(-1)
        reach = (locations - p) @ axis
        entering = mesh.face_normals[tri] @ axis < 0.0
        keep = reach > tol
        reach, entering = reach[keep], entering[keep]
        order = np.argsort(reach, kind="stable")
        reach, entering = reach[order], entering[order]
        # One crossing per distance (shared edges and vertices report each of their faces).
        distinct = np.ones(len(reach), dtype=bool)
        distinct[1:] = np.diff(reach) > tol
        reach, entering = reach[distinct], entering[distinct]
        alternating = len(reach) > 0 and bool(np.all(entering[1:] != entering[:-1]))
        if alternating and not entering[0] and not entering[-1]:
            return reach, entering
        if len(best[0]) == 0:
            best = (reach, entering)
    return best


def _too_wide_message(width_m: float, open_width_m: float, clearance_m: float) -> str:
    wider = [
        f"{g.label} ({g.stroke_m * 1e3:.0f} mm)"
        for g in GRIPPERS.values()
        if g.stroke_m > max(width_m + 2.0 * clearance_m, open_width_m)
    ]
    hint = f", or choose a gripper that opens wider: {', '.join(wider)}" if wider else ""
    return (
        f"the object is {width_m * 1e3:.1f} mm thick along the normal there and the gripper "
        f"opens {open_width_m * 1e3:.0f} mm: pick a point where it is narrower (e.g. on a "
        f"side rather than an end){hint}"
    )


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


def contacts_along_axis(
    obj: RestingObject, grasp: Grasp, open_width_m: float | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Where the line through the jaw centre along the axis first meets the object from each
    jaw (the two jaw contacts of a rigid closing), or None when it misses. With
    `open_width_m`, only the part of the line between the open jaws counts: a pinch of a mug's
    wall meets the wall, not the far side of the mug beyond the jaw."""
    mesh = trimesh.Trimesh(np.asarray(obj.vertices), np.asarray(obj.faces), process=False)
    reach = 2.0 * float(np.linalg.norm(mesh.extents)) + 1.0
    start = grasp.center - reach * grasp.axis
    found, _, _ = mesh.ray.intersects_location(start[None], grasp.axis[None])
    locations = np.asarray(found, dtype=float).reshape(-1, 3)
    s = (locations - start) @ grasp.axis
    if open_width_m is not None:
        between = np.abs(s - reach) <= 0.5 * open_width_m
        locations, s = locations[between], s[between]
    if len(locations) == 0:
        return None
    return locations[int(np.argmin(s))].copy(), locations[int(np.argmax(s))].copy()
