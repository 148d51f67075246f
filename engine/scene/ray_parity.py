"""Whether points lie inside a closed triangle mesh: the parity of a ray's crossings, in a
compiled loop (mesh loading's nested-body check, the open-pad check, the grasp sampler)."""

from __future__ import annotations

import numpy as np
from numba import njit

# Three generic directions (no face of a CAD part or grid-aligned scan is parallel to them), so
# a ray that grazes an edge or a vertex, counted twice or not at all, is outvoted by the others.
_PARITY_DIRECTIONS = np.array(
    [
        [0.5377, 0.6138, 0.5779],
        [-0.6741, 0.2803, 0.6835],
        [0.3319, -0.8121, 0.4799],
    ]
)


def points_inside(points: np.ndarray, vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """(n,) bool: whether each point lies inside the closed triangle mesh, by the parity of a
    ray's crossings (the majority of three rays).

    One pass over the faces per ray in a compiled loop: trimesh's `contains` took 1.2 s and
    ~500 MB per call on a 16k-face scan, and 4 s and 1 GB on a 15k-face nested part, through an
    R-tree of every triangle.
    """
    v = np.ascontiguousarray(vertices, dtype=np.float64)
    tris = np.ascontiguousarray(v[np.asarray(faces, dtype=np.int64)])
    pts = np.ascontiguousarray(np.atleast_2d(points), dtype=np.float64)
    votes = np.zeros(len(pts), dtype=np.int64)
    for d in _PARITY_DIRECTIONS:
        votes += _crossings(pts, d / np.linalg.norm(d), tris) % 2
    return np.asarray(votes >= 2)


@njit(cache=True)
def _crossings(origins: np.ndarray, d: np.ndarray, tris: np.ndarray) -> np.ndarray:
    count = np.zeros(len(origins), dtype=np.int64)
    for k in range(len(tris)):
        a = tris[k, 0]
        e1 = tris[k, 1] - a
        e2 = tris[k, 2] - a
        p = np.cross(d, e2)
        det = e1 @ p
        scale = np.sqrt((e1 @ e1) * (e2 @ e2))
        if abs(det) <= 1e-12 * scale:
            continue
        inv = 1.0 / det
        for i in range(len(origins)):
            s = origins[i] - a
            u = (s @ p) * inv
            if u < 0.0 or u > 1.0:
                continue
            q = np.cross(s, e1)
            w = (d @ q) * inv
            if w < 0.0 or u + w > 1.0:
                continue
            if (e2 @ q) * inv > 0.0:
                count[i] += 1
    return count
