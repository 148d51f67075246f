"""Colours and mesh conversion shared by the interactive view and the off-screen exporter
(no Qt here, so the export process does not load it)."""

from __future__ import annotations

import numpy as np
import pyvista as pv

OBJECT_COLOR = "#c9b28f"
OBJECT_EDGE_COLOR = "#8c7a5e"
PAD_COLOR = "#4f7fbf"
PLATE_COLOR = "#a3a9b1"
WARNING_COLOR = "#e0473a"
GROUND_COLOR = "#dfe3e8"
GRID_COLOR = "#b9c0c9"
CONTACT_COLOR = "#f5b700"
BACKGROUND = ("#fbfbfd", "#d7dde6")  # bottom, top gradient


def polydata(vertices: np.ndarray, faces: np.ndarray) -> pv.PolyData:
    """A triangle PolyData from (n,3) vertices and (m,3) faces."""
    faces = np.asarray(faces, dtype=np.int64)
    cells = np.hstack([np.full((len(faces), 1), 3, dtype=np.int64), faces]).ravel()
    return pv.PolyData(np.asarray(vertices, dtype=float), cells)


def ground_plane(object_vertices: np.ndarray) -> pv.PolyData:
    """A square of ground around the object (at least 12 cm, 3 object diagonals)."""
    v = np.asarray(object_vertices)
    size = max(0.12, 3.0 * float(np.linalg.norm(np.ptp(v, axis=0))))
    return pv.Plane(
        center=(0, 0, -1e-5), direction=(0, 0, 1), i_size=size, j_size=size,
        i_resolution=12, j_resolution=12,
    )  # fmt: skip


def contact_mesh(contact: object) -> tuple[pv.PolyData, dict]:
    """Mesh and add_mesh options of one analytic contact: a pressure-coloured patch (area
    contact models) or an arrow along the contact normal (point contact models)."""
    if hasattr(contact, "triangles"):
        tris = np.asarray(contact.triangles, dtype=float).reshape(-1, 3)
        poly = polydata(tris, np.arange(len(tris)).reshape(-1, 3))
        poly.cell_data["pressure"] = np.asarray(contact.pressure_pa, dtype=float)  # type: ignore[attr-defined]
        return poly, {"scalars": "pressure", "cmap": "plasma", "show_scalar_bar": False}
    normal = np.asarray(contact.normal)  # type: ignore[attr-defined]
    start = np.asarray(contact.position) - 0.006 * normal  # type: ignore[attr-defined]
    return pv.Arrow(start=start, direction=normal, scale=0.006), {"color": CONTACT_COLOR}


# Sampled-grasp glyphs (Edit > Sample grasps): a small gripper per candidate, in mm of the
# gripper frame (x closes, z approaches): two fingers just outside the contacts, the palm bar
# behind them and a stem towards the arm.
GLYPH_FINGER_MM = (5.0, -12.0)  # finger from the tip (+z) back to the palm
GLYPH_STEM_MM = 10.0
GLYPH_MARGIN_MM = 2.0  # fingers this far outside the contacts
CANDIDATE_CMAP = "RdYlGn"  # red: lowest quality, green: highest


def candidate_glyphs(candidates: list) -> pv.PolyData:
    """Line glyphs of engine GraspCandidates: 4 segments each, with cell data `candidate`
    (its index) and `quality` (its margin; NaN drawn as the lowest)."""
    tip, back = (v * 1e-3 for v in GLYPH_FINGER_MM)
    stem = back - GLYPH_STEM_MM * 1e-3
    points: list[np.ndarray] = []
    lines: list[int] = []
    index: list[int] = []
    quality: list[float] = []
    for k, c in enumerate(candidates):
        pose = c.grasp.pose()
        half = 0.5 * c.width_m + GLYPH_MARGIN_MM * 1e-3
        local = np.array(
            [[-half, 0, tip], [-half, 0, back], [half, 0, tip], [half, 0, back],
             [0, 0, back], [0, 0, stem]]
        )  # fmt: skip
        world = local @ pose[:3, :3].T + pose[:3, 3]
        base = 6 * k
        points.append(world)
        for a, b in ((0, 1), (2, 3), (1, 3), (4, 5)):
            lines += [2, base + a, base + b]
            index.append(k)
            quality.append(float(c.quality))
    poly = pv.PolyData(np.vstack(points), lines=np.asarray(lines))
    values = np.asarray(quality, dtype=float)
    finite = np.isfinite(values)
    low = float(values[finite].min()) if finite.any() else 0.0
    poly.cell_data["candidate"] = np.asarray(index, dtype=np.int64)
    poly.cell_data["quality"] = np.where(finite, values, low)
    return poly
