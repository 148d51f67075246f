"""Self-intersection search: the vectorized plane-side rejection keeps ipctk's answer.

ipctk's edge-triangle test first rejects an edge whose two ends lie strictly on one side of
the triangle's plane, by exact orient3d. `orientation_signs` makes that rejection for many
pairs at once in doubles, only where Shewchuk's error bound settles the sign; every other pair
still goes to ipctk. So the crossings found are those of asking ipctk about every candidate.
"""

from __future__ import annotations

from fractions import Fraction

import ipctk
import numpy as np
import trimesh

from engine.scene.mesh_intersections import _crossings, orientation_signs


def _exact_sign(a, b, c, d) -> int:
    m = [[Fraction(float(p[i])) - Fraction(float(d[i])) for i in range(3)] for p in (a, b, c)]
    det = (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )
    return (det > 0) - (det < 0)


def test_a_settled_sign_is_the_exact_one_and_coplanar_points_are_left_open():
    rng = np.random.default_rng(3)
    n = 400
    a, b, c = (rng.normal(size=(n, 3)) for _ in range(3))
    # Half the fourth points on the plane (up to the rounding of the combination), half off it
    # by a few ulps to a few percent: the hard cases for doubles.
    w = rng.random((n, 2))
    d = a + w[:, :1] * (b - a) + w[:, 1:] * (c - a)
    normal = np.cross(b - a, c - a)
    d[n // 2 :] += normal[n // 2 :] * rng.choice([1e-16, 1e-13, 1e-8, 1e-2], n - n // 2)[:, None]
    signs = orientation_signs(a, b, c, d)
    exact = np.array([_exact_sign(a[k], b[k], c[k], d[k]) for k in range(n)])
    settled = signs != 0
    assert np.array_equal(signs[settled], exact[settled])
    assert settled.sum() > n // 4  # the clear cases are settled in doubles
    # Exactly coplanar (integer coordinates): never settled.
    q = rng.integers(-5, 5, size=(50, 4, 3)).astype(float)
    q[:, 3] = q[:, 0] + (q[:, 1] - q[:, 0]) - (q[:, 2] - q[:, 0])
    assert not orientation_signs(q[:, 0], q[:, 1], q[:, 2], q[:, 3]).any()


def _every_candidate(vertices, faces):
    """The crossings by ipctk's test on every candidate (the search before the rejection)."""
    edges = ipctk.edges(faces)
    broad = ipctk.LBVH()
    broad.build(np.asfortranarray(vertices), edges, faces, 0.0)
    out = []
    for cand in broad.detect_edge_face_candidates():
        e, f = edges[cand.edge_id], faces[cand.face_id]
        if e[0] in f or e[1] in f:
            continue
        if ipctk.is_edge_intersecting_triangle(vertices[e[0]], vertices[e[1]], *vertices[f]):
            out.append((int(cand.edge_id), int(cand.face_id)))
    return sorted(out)


def _union(*meshes):
    v = np.vstack([m.vertices for m in meshes])
    offsets = np.cumsum([0] + [len(m.vertices) for m in meshes[:-1]])
    f = np.vstack([m.faces + o for m, o in zip(meshes, offsets, strict=True)])
    return np.ascontiguousarray(v, float), np.ascontiguousarray(f, np.int32)


def test_the_crossings_are_those_of_asking_ipctk_about_every_candidate():
    # Two balls through each other (curved, like a scan's fold) and two boxes sharing face
    # planes (a CAD part's coplanar faces, where doubles settle nothing and ipctk decides).
    balls = _union(
        trimesh.creation.icosphere(3, radius=0.02),
        trimesh.creation.icosphere(3, radius=0.02).apply_translation([0.025, 0.004, 0.0]),
    )
    boxes = _union(
        trimesh.creation.box([0.03, 0.02, 0.01]),
        trimesh.creation.box([0.02, 0.03, 0.01]).apply_translation([0.01, 0.0, 0.0]),
    )
    for v, f in (balls, boxes):
        found = _crossings(v, f)
        assert found and found == _every_candidate(v, f)
