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


def ground_size(object_vertices: np.ndarray) -> float:
    """The side of the ground square drawn around the object: at least 12 cm, 3 diagonals."""
    v = np.asarray(object_vertices)
    return max(0.12, 3.0 * float(np.linalg.norm(np.ptp(v, axis=0))))


def ground_plane(object_vertices: np.ndarray) -> pv.PolyData:
    """A square of ground around the object (at least 12 cm, 3 object diagonals)."""
    size = ground_size(object_vertices)
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
UNKNOWN_COLOR = "#9aa0a6"  # a data-set grasp whose outcome is not known
DATASET_SELECTED_COLOR = "#1f3a93"  # the data-set grasp shown
GHOST_COLOR = "#8e44ad"  # a pinned trial's pads and object, outlined (compare runs)


def gripper_glyphs(
    poses: np.ndarray,
    widths: np.ndarray,
    values: np.ndarray,
    index_name: str = "glyph",
    value_name: str = "value",
) -> pv.PolyData:
    """Line glyphs of small grippers: `poses` (N,4,4) gripper frames, `widths` (N,) contact
    widths (m), 4 segments each, with cell data `index_name` (the glyph's index) and
    `value_name` (its value, for colouring)."""
    poses = np.asarray(poses, dtype=float).reshape(-1, 4, 4)
    n = len(poses)
    tip, back = (v * 1e-3 for v in GLYPH_FINGER_MM)
    stem = back - GLYPH_STEM_MM * 1e-3
    half = 0.5 * np.asarray(widths, dtype=float).reshape(n) + GLYPH_MARGIN_MM * 1e-3
    local = np.zeros((n, 6, 3))
    local[:, 0] = np.c_[-half, np.zeros(n), np.full(n, tip)]
    local[:, 1] = np.c_[-half, np.zeros(n), np.full(n, back)]
    local[:, 2] = np.c_[half, np.zeros(n), np.full(n, tip)]
    local[:, 3] = np.c_[half, np.zeros(n), np.full(n, back)]
    local[:, 4, 2] = back
    local[:, 5, 2] = stem
    world = np.einsum("nij,nkj->nki", poses[:, :3, :3], local) + poses[:, None, :3, 3]
    segments = np.array([(0, 1), (2, 3), (1, 3), (4, 5)])
    ends = 6 * np.arange(n)[:, None, None] + segments[None]  # (n, 4, 2)
    lines = np.concatenate([np.full((n, 4, 1), 2), ends], axis=2).ravel()
    poly = pv.PolyData(world.reshape(-1, 3), lines=lines.astype(np.int64))
    poly.cell_data[index_name] = np.repeat(np.arange(n, dtype=np.int64), 4)
    poly.cell_data[value_name] = np.repeat(np.asarray(values, dtype=float).reshape(n), 4)
    return poly


def candidate_glyphs(candidates: list) -> pv.PolyData:
    """Line glyphs of engine GraspCandidates: 4 segments each, with cell data `candidate`
    (its index) and `quality` (its margin; NaN drawn as the lowest)."""
    values = np.asarray([float(c.quality) for c in candidates], dtype=float)
    finite = np.isfinite(values)
    low = float(values[finite].min()) if finite.any() else 0.0
    return gripper_glyphs(
        np.array([c.grasp.pose() for c in candidates]),
        np.array([c.width_m for c in candidates]),
        np.where(finite, values, low),
        index_name="candidate",
        value_name="quality",
    )
