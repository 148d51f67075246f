"""Self-intersecting surfaces refused at load, with where they cross.

A surface that passes through itself encloses no well-defined solid: its volume, mass and
centre of mass are wrong (a 12-triangle cube whose faces point at the wrong corners has its
centre of mass outside its own convex hull) and nothing computed from it can be trusted. ipctk
finds the crossings (`has_intersections`; the edge-face pairs through its LBVH broad phase).

Scanned meshes often cross themselves in a few tiny folds (the YCB mustard bottle in one spot
of 0.005 % of its surface, the Dex-Net mount2 over 4 %); those are kept with a warning in the
log. A surface whose crossing faces cover more than MAX_CROSSING_AREA_FRACTION of its area is
refused.
"""

from __future__ import annotations

import logging

import ipctk
import numpy as np

from engine.errors import MeshError, literal
from engine.scene.mesh_surface import plural

log = logging.getLogger(__name__)

MAX_CROSSING_AREA_FRACTION = 0.10
"""Largest share of a surface's area that faces crossing another face may cover."""


# Shewchuk's bound on the rounding error of orient3d evaluated in doubles (his o3derrboundA,
# "Adaptive precision floating-point arithmetic", 1997), doubled for margin: beyond it the
# sign of the float determinant is the exact one.
_ORIENT3D_BOUND = 2.0 * (7.0 + 56.0 * 2.0**-53) * 2.0**-53


def orientation_signs(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """(n,) sign of orient3d(a, b, c, d) per row of the (n, 3) arrays where double precision
    settles it exactly (+1 or -1, the sign of det[a - d, b - d, c - d]), else 0 (coplanar or
    too close to call)."""
    ad, bd, cd = a - d, b - d, c - d
    p1 = bd[:, 0] * cd[:, 1], cd[:, 0] * bd[:, 1]
    p2 = cd[:, 0] * ad[:, 1], ad[:, 0] * cd[:, 1]
    p3 = ad[:, 0] * bd[:, 1], bd[:, 0] * ad[:, 1]
    det = ad[:, 2] * (p1[0] - p1[1]) + bd[:, 2] * (p2[0] - p2[1]) + cd[:, 2] * (p3[0] - p3[1])
    permanent = (
        (np.abs(p1[0]) + np.abs(p1[1])) * np.abs(ad[:, 2])
        + (np.abs(p2[0]) + np.abs(p2[1])) * np.abs(bd[:, 2])
        + (np.abs(p3[0]) + np.abs(p3[1])) * np.abs(cd[:, 2])
    )
    bound = _ORIENT3D_BOUND * permanent
    return np.where(det > bound, 1, np.where(det < -bound, -1, 0))


def _crossings(vertices: np.ndarray, faces: np.ndarray) -> list[tuple[int, int]]:
    """(edge index into ipctk.edges(faces), face index) of every edge passing through a face
    it does not share a vertex with, in increasing order (ipctk's candidates come in an order
    that varies between runs).

    ipctk's test first rejects an edge whose ends lie strictly on one side of the face's plane
    (exact orient3d). That rejection is made here for all candidates at once wherever doubles
    settle both signs, and ipctk decides the rest: on the CAD parts measured, three quarters of
    the 200k candidates end there (a gearbox's 3.9 s of one call per candidate in Python)."""
    edges = ipctk.edges(faces)
    broad = ipctk.LBVH()
    broad.build(np.asfortranarray(vertices), edges, faces, 0.0)
    found = broad.detect_edge_face_candidates()
    pairs = np.array([(c.edge_id, c.face_id) for c in found], dtype=np.int64).reshape(-1, 2)
    e, f = np.asarray(edges)[pairs[:, 0]], np.asarray(faces)[pairs[:, 1]]
    apart = ~((e[:, :1] == f).any(axis=1) | (e[:, 1:] == f).any(axis=1))
    a, b, c = vertices[f[:, 0]], vertices[f[:, 1]], vertices[f[:, 2]]
    s0 = orientation_signs(a, b, c, vertices[e[:, 0]])
    s1 = orientation_signs(a, b, c, vertices[e[:, 1]])
    out = []
    for k in np.flatnonzero(apart & ~((s0 != 0) & (s0 == s1))):
        if ipctk.is_edge_intersecting_triangle(
            vertices[e[k, 0]], vertices[e[k, 1]], a[k], b[k], c[k]
        ):
            out.append((int(pairs[k, 0]), int(pairs[k, 1])))
    return sorted(out)


def check_self_intersections(vertices: np.ndarray, faces: np.ndarray, where: str) -> None:
    """Raise MeshError when the closed surface crosses itself over more than
    MAX_CROSSING_AREA_FRACTION of its area (naming where, in mm, and the fix); log smaller
    crossings."""
    v = np.ascontiguousarray(vertices, dtype=np.float64)
    f = np.ascontiguousarray(faces, dtype=np.int32)
    mesh = ipctk.CollisionMesh(np.asfortranarray(v), ipctk.edges(f), f)
    if not ipctk.has_intersections(mesh, np.asfortranarray(v)):
        return
    crossings = _crossings(v, f)
    if not crossings:
        return
    edges = ipctk.edges(f)
    crossing_faces = {fi for _, fi in crossings}
    ends = {tuple(sorted(edges[ei])) for ei, _ in crossings}
    for k, tri in enumerate(f):  # the faces on each side of a crossing edge
        for a, b in ((tri[0], tri[1]), (tri[1], tri[2]), (tri[2], tri[0])):
            if (min(a, b), max(a, b)) in ends:
                crossing_faces.add(k)
    area = 0.5 * np.linalg.norm(np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]]), axis=1)
    share = float(area[sorted(crossing_faces)].sum() / max(float(area.sum()), 1e-300))
    ei = crossings[0][0]
    at = v[edges[ei]].mean(axis=0) * 1e3
    place = (
        f"{plural(len(crossings), 'edge')} {'passes' if len(crossings) == 1 else 'pass'} "
        "through faces, the first near "
        f"({at[0]:.3g}, {at[1]:.3g}, {at[2]:.3g}) mm in the file's frame; the crossing faces "
        f"cover {100 * share:.2g} % of the surface"
    )
    if share <= MAX_CROSSING_AREA_FRACTION:
        log.warning("%s intersects itself (kept: %s)", where, place)
        return
    raise MeshError(
        f"{literal(where)} intersects itself ({literal(place)}, more than "
        f"{MAX_CROSSING_AREA_FRACTION:.0%}): it encloses no well-defined solid, so its volume, "
        "mass and resting poses would be wrong. Faces that index the wrong vertices (a "
        "duplicated or missing 'v' line in an OBJ) do this. Repair the mesh (e.g. MeshLab: "
        "Filters > Cleaning and Repairing > Select Self Intersecting Faces, then remesh) or "
        "re-export it"
    )
