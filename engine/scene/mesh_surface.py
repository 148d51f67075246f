"""Measures of a triangle surface that mesh repair decides on (edges and their use counts,
closedness, enclosed volume), and how its reports word counts, lengths and volumes."""

from __future__ import annotations

import numpy as np
import trimesh
from scipy.spatial import ConvexHull, QhullError


def plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def mm(length_m: float) -> str:
    return f"{length_m * 1e3:.3g} mm"


def cm3(volume_m3: float) -> str:
    return f"{volume_m3 * 1e6:.3g} cm^3"


def signed_volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    tri = vertices[faces]
    return float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6.0)


def undirected_edges(faces: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per face corner edge (3 per face): its unique-edge index, plus the unique edges and their
    use counts."""
    edges = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    # One integer key per edge, low * n + high: sorting keys is sorting the rows (low, high)
    # as np.unique(axis=0) does, in a fraction of its time (~5 ms on a 16k-face scan).
    n = int(edges.max()) + 1 if edges.size else 1
    keys = edges[:, 0].astype(np.int64) * n + edges[:, 1]
    first, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    unique = np.column_stack([first // n, first % n]).astype(edges.dtype, copy=False)
    return inverse.reshape(-1), unique, counts


def is_closed(faces: np.ndarray) -> bool:
    _, _, counts = undirected_edges(faces)
    return len(faces) > 0 and bool(np.all(counts == 2))


def enclosed_volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    """A closed piece's volume; an open piece's convex hull volume (0 if flat)."""
    if is_closed(faces):
        mesh = trimesh.Trimesh(vertices, faces, process=False)
        if not mesh.is_winding_consistent:
            trimesh.repair.fix_winding(mesh)
        return abs(signed_volume(np.asarray(mesh.vertices), np.asarray(mesh.faces)))
    points = vertices[np.unique(faces)]
    if len(points) < 4:
        return 0.0
    try:
        return float(ConvexHull(points).volume)
    except (QhullError, ValueError):
        return 0.0
