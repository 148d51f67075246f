"""The resting poses as the app lists them: one choice per group of look-alike poses
(engine.scene.pose_groups), each with a side-view silhouette for its thumbnail. Qt-free: the
reading worker computes them with the stable poses; the view only paints the triangles."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.scene.object_mesh import ObjectMesh
from engine.scene.pose_groups import PoseGroup, pose_groups
from engine.scene.resting import StablePose

SILHOUETTE_CELLS = 96
"""The side view's vertices are snapped to a grid of this many cells across its larger side
(twice a 48 px thumbnail's resolution): the many small triangles of a fine mesh collapse and
are dropped, so a 500k-face scan paints a few thousand triangles."""

MAX_TRIANGLES = 20_000
"""At most this many silhouette triangles (a coarser grid beyond)."""


@dataclass(frozen=True, eq=False)
class PoseChoice:
    """One line of the resting-pose list: a group of look-alike stable poses and its side view."""

    group: PoseGroup
    # Side view of the object resting in the group's pose: (k, 3, 2) triangles in metres,
    # horizontal along the footprint's longer side (centred on the hull), up = z, the ground
    # at 0; every triangle counter-clockwise, so a winding fill paints their union.
    silhouette: np.ndarray

    def probability_text(self) -> str:
        """'94.9 %', never '0.0 %': '< 0.1 %' for a pose that rarely happens."""
        p = 100.0 * self.group.probability
        return "< 0.1 %" if p < 0.05 else f"{p:.1f} %"

    def aspect(self) -> float:
        """Width / height of the side view."""
        pts = self.silhouette.reshape(-1, 2)
        if len(pts) == 0:
            return 1.0
        w, h = np.ptp(pts, axis=0)
        return float(w / max(h, 1e-12))


def pose_choices(mesh: ObjectMesh, poses: list[StablePose]) -> list[PoseChoice]:
    """The pose list of `mesh` (its `poses` from stable_poses): one choice per pose group, most
    probable first."""
    groups = pose_groups(mesh, poses)
    vertices = np.asarray(mesh.vertices, dtype=np.float64)
    faces = np.asarray(mesh.faces, dtype=np.int64)
    # What picks the view direction: at most VIEW_POINTS vertices (every k-th of a fine mesh).
    hull = vertices[:: max(1, len(vertices) // VIEW_POINTS)]
    return [
        PoseChoice(g, side_view(vertices, faces, poses[g.index].transform[:3, :3], hull))
        for g in groups
    ]


VIEW_DIRECTIONS = 12
"""Horizontal directions tried for the side view (every 180 / 12 = 15 degrees)."""

VIEW_POINTS = 4000
"""At most this many of the mesh's vertices choose the side view's direction (its convex
hull's area seen from each direction; a 300k-face scan's hull took seconds)."""


def side_view(
    vertices: np.ndarray, faces: np.ndarray, rotation: np.ndarray, hull: np.ndarray
) -> np.ndarray:
    """The triangles of the object rotated by `rotation` (mesh -> resting frame) seen from the
    side that shows the most of it: projected on the vertical plane, among VIEW_DIRECTIONS
    through the footprint's longer principal axis, on which the convex hull of `hull` (points
    of the object, mesh frame) covers the largest area (a lying mug is seen along its length,
    a standing one with its handle in profile)."""
    r = np.asarray(rotation, dtype=np.float64)
    h = hull @ r.T
    xy = h[:, :2] - h[:, :2].mean(axis=0)
    _, vectors = np.linalg.eigh(np.cov(xy.T) if len(xy) > 2 else np.eye(2))
    start = float(np.arctan2(vectors[1, -1], vectors[0, -1]))  # the footprint's longer axis
    angles = start + np.pi * np.arange(VIEW_DIRECTIONS) / VIEW_DIRECTIONS
    areas = [_hull_area(np.column_stack([xy @ [np.cos(a), np.sin(a)], h[:, 2]])) for a in angles]
    best = angles[int(np.argmax(np.round(areas, 12)))]  # ties: the first (the longer axis)
    p = vertices @ r.T
    along = p[:, :2] @ np.array([np.cos(best), np.sin(best)])
    flat = np.column_stack([along - 0.5 * (along.min() + along.max()), p[:, 2] - p[:, 2].min()])
    size = max(float(np.ptp(flat, axis=0).max()), 1e-12)
    cells = SILHOUETTE_CELLS
    while True:
        tri = _snapped(flat, faces, size / cells)
        if len(tri) <= MAX_TRIANGLES or cells <= 12:
            break
        cells //= 2
    return (tri * (size / cells)).astype(np.float32)


def _hull_area(points: np.ndarray) -> float:
    """Area of the convex hull of 2D `points` (0 when they are on a line)."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        return float(ConvexHull(points).volume)
    except (QhullError, ValueError):
        return 0.0


def _snapped(flat: np.ndarray, faces: np.ndarray, cell: float) -> np.ndarray:
    """The projected triangles with their corners on a grid of `cell`, degenerate ones and
    duplicates dropped, all counter-clockwise: (k, 3, 2) in grid units."""
    q = np.round(flat / cell).astype(np.int64)
    tri = q[faces]  # (m, 3, 2)
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    cross = (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    tri = tri[cross != 0]
    cw = cross[cross != 0] < 0
    tri[cw] = tri[cw][:, ::-1]  # counter-clockwise
    codes = tri[:, :, 0] * (1 << 21) + tri[:, :, 1]  # grid points fit 20 bits each way
    order = np.argsort(codes, axis=1)
    _, keep = np.unique(np.take_along_axis(codes, order, axis=1), axis=0, return_index=True)
    return tri[np.sort(keep)].astype(np.float64)
