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


def _crossings(vertices: np.ndarray, faces: np.ndarray) -> list[tuple[int, int]]:
    """(edge index into ipctk.edges(faces), face index) of every edge passing through a face
    it does not share a vertex with."""
    edges = ipctk.edges(faces)
    broad = ipctk.LBVH()
    broad.build(np.asfortranarray(vertices), edges, faces, 0.0)
    out = []
    for cand in broad.detect_edge_face_candidates():
        e, f = edges[cand.edge_id], faces[cand.face_id]
        if e[0] in f or e[1] in f:
            continue
        a, b, c = vertices[f]
        if ipctk.is_edge_intersecting_triangle(vertices[e[0]], vertices[e[1]], a, b, c):
            out.append((int(cand.edge_id), int(cand.face_id)))
    return out


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
