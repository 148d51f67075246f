"""Antipodal contact pairs on a mesh, for the grasp sampler (engine.grasp.sampler).

Surface points are drawn area-weighted; from each a ray is cast into the object along its
inward normal, along a direction tilted within the friction cone and (where that lies in the
cone) horizontally, and paired with the outermost surface where the ray leaves the material
within the opening. A pair is antipodal when the closing axis lies within both contacts'
friction cones (half-angle atan(mu)).
"""

from __future__ import annotations

import math

import numpy as np
import trimesh


def _surface_samples(
    mesh: trimesh.Trimesh, count: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """`count` area-weighted points on the surface and their faces' outward normals."""
    area = np.asarray(mesh.area_faces, dtype=float)
    faces = rng.choice(len(area), size=count, p=area / area.sum())
    r = rng.random((count, 2))
    flip = r.sum(axis=1) > 1.0
    r[flip] = 1.0 - r[flip]
    tri = np.asarray(mesh.triangles)[faces]
    points = tri[:, 0] + r[:, :1] * (tri[:, 1] - tri[:, 0]) + r[:, 1:] * (tri[:, 2] - tri[:, 0])
    return points, np.asarray(mesh.face_normals)[faces]


def _tilted(directions: np.ndarray, max_angle: float, rng: np.random.Generator) -> np.ndarray:
    """Each unit direction tilted by a random angle below `max_angle`, random azimuth."""
    helper = np.where(np.abs(directions[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    u = np.cross(directions, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = np.cross(directions, u)
    phi = rng.random(len(directions)) * 2.0 * np.pi
    theta = rng.random(len(directions)) * max_angle
    side = np.cos(phi)[:, None] * u + np.sin(phi)[:, None] * w
    return np.cos(theta)[:, None] * directions + np.sin(theta)[:, None] * side


def _segment_hits(
    mesh: trimesh.Trimesh, origins: np.ndarray, directions: np.ndarray, length: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each segment origin + t direction, 0 < t <= length, crosses a face: (points,
    segment index, face index). Candidate faces come from the faces' R-tree (the segment's
    bounding box, not the whole ray's), then a vectorised Moller-Trumbore test."""
    ends = origins + length * directions
    lo, hi = np.minimum(origins, ends), np.maximum(origins, ends)
    ids, counts = mesh.triangles_tree.intersection_v(lo, hi)
    rays = np.repeat(np.arange(len(origins)), np.asarray(counts, dtype=np.int64))
    tris = np.asarray(ids, dtype=np.int64)
    if len(tris) == 0:
        return np.zeros((0, 3)), rays, tris
    tri = np.asarray(mesh.triangles)[tris]
    o, d = origins[rays], directions[rays]
    e1, e2 = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    p = np.cross(d, e2)
    det = np.einsum("ij,ij->i", e1, p)
    ok = np.abs(det) > 1e-18
    inv = np.divide(1.0, det, out=np.zeros_like(det), where=ok)
    tv = o - tri[:, 0]
    u = np.einsum("ij,ij->i", tv, p) * inv
    q = np.cross(tv, e1)
    v = np.einsum("ij,ij->i", d, q) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    ok &= (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0) & (t > 0.0) & (t <= length)
    return o[ok] + t[ok, None] * d[ok], rays[ok], tris[ok]


def antipodal_pairs(
    mesh: trimesh.Trimesh,
    mu: float,
    open_width_m: float,
    clearance_m: float,
    count: int,
    rng: np.random.Generator,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]]:
    """(p, q, axis, n_p, n_q, cone angle) of antipodal pairs within the opening, best first:
    from `count` surface points, friction coefficient `mu`, an opening of `open_width_m` less
    `clearance_m` on each side."""
    diagonal = float(np.linalg.norm(mesh.extents))
    points, normals = _surface_samples(mesh, count, rng)
    cone = math.atan(mu)
    inward = -normals
    # Also the horizontal closing direction nearest each inward normal, where it lies in the
    # friction cone: the axis of most top-down grasps (a ring's rim, a bar lying flat).
    flat = inward * np.array([1.0, 1.0, 0.0])
    length = np.linalg.norm(flat, axis=1)
    level = length > math.cos(cone)
    flat = flat[level] / length[level, None]
    directions = np.vstack([inward, _tilted(inward, cone, rng), flat])
    starts = np.vstack([points, points, points[level]])
    src_normals = np.vstack([normals, normals, normals[level]])
    tol = 1e-6 * diagonal
    origins = starts + tol * directions
    locations, ray, tri = _segment_hits(mesh, origins, directions, open_width_m)
    if len(ray) == 0:
        return []
    reach = np.einsum("ij,ij->i", locations - starts[ray], directions[ray])
    hit_normals = np.asarray(mesh.face_normals)[tri]
    leaving = np.einsum("ij,ij->i", hit_normals, directions[ray]) > 0.0
    limit = open_width_m - 2.0 * clearance_m
    usable = leaving & (reach > 10 * tol) & (reach <= limit)
    if not usable.any():
        return []
    # The outermost exit within the opening of each ray.
    idx = np.flatnonzero(usable)
    order = np.lexsort((-reach[idx], ray[idx]))
    idx = idx[order]
    _, first = np.unique(ray[idx], return_index=True)
    best = idx[first]
    rays = ray[best]
    p = starts[rays]
    q = locations[best]
    axis = directions[rays]
    n_p = src_normals[rays]
    n_q = hit_normals[best]
    angle_p = np.arccos(np.clip(-np.einsum("ij,ij->i", n_p, axis), -1.0, 1.0))
    angle_q = np.arccos(np.clip(np.einsum("ij,ij->i", n_q, axis), -1.0, 1.0))
    worst = np.maximum(angle_p, angle_q)
    keep = worst <= cone
    out = []
    for k in np.flatnonzero(keep)[np.argsort(worst[keep], kind="stable")]:
        a, b, x, na, nb = p[k], q[k], axis[k], n_p[k], n_q[k]
        # One axis sign per line, so a grasp and its jaw-swapped twin are the same candidate.
        if float(np.dot(x, [1.0, 1e-3, 1e-6])) < 0.0:
            a, b, x, na, nb = b, a, -x, nb, na
        out.append((a, b, x, na, nb, float(worst[k])))
    return out
