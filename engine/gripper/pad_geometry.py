"""Gripper pad geometry: outline presets and linear-tet meshes of the extruded pad.

Pad frame, stored as columns (a, b, n), right-handed: a along the approach direction (+a is the
fingertip end), b lateral, n the pad normal pointing toward the grasped object. The contact face
is n = 0 and the pad fills n in [-thickness, 0]; the back face n = -thickness is glued to the
rigid jaw plate.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.errors import MeshError, ParameterError
from engine.gripper.pad_names import PAD_PRESETS as PAD_PRESETS  # re-exported

MIN_TETS = 8
MAX_TETS = 200_000

# YuMi gripper pad (IPC-GraspSim paper): 27.5 x 20 mm, 3 mm thick.
_A_MIN_M = -0.0175
_A_MAX_M = 0.010
_HALF_WIDTH_M = 0.010
_TIP_RADIUS_M = 0.010
_THICKNESS_M = 0.003
_DEFAULT_EDGE_M = 0.003
_MIN_ARC_SEGMENTS = 16

# Lattice points closer than this (in edge lengths) to the outline are dropped.
_BOUNDARY_CLEARANCE = 0.5
# Triangles below this area (in edge_length^2) count as degenerate.
_SLIVER_AREA = 1e-9


@dataclass(frozen=True, eq=False)
class PadOutline:
    """A pad's 2D outline in the (a, b) plane, extruded through thickness_m along -n."""

    name: str
    polygon: np.ndarray  # (k,2) float64 metres, counter-clockwise in (a, b), simple
    thickness_m: float

    def __post_init__(self) -> None:
        poly = np.array(self.polygon, dtype=np.float64)
        _check_polygon(self.name, poly)
        t = float(self.thickness_m)
        if not (math.isfinite(t) and t > 0):
            raise ParameterError(f"pad '{self.name}': thickness_m must be finite and > 0, got {t}")
        poly.setflags(write=False)
        object.__setattr__(self, "polygon", poly)
        object.__setattr__(self, "thickness_m", t)

    @property
    def area_m2(self) -> float:
        """Polygon area (m^2)."""
        return _signed_area(self.polygon)


@dataclass(frozen=True, eq=False)
class PadMesh:
    """Linear-tet mesh of a pad in the pad frame (columns a, b, n)."""

    outline: PadOutline
    vertices: np.ndarray  # (n,3) float64 rest positions
    tets: np.ndarray  # (t,4) int64, positive signed volume
    rest_volumes: np.ndarray  # (t,) float64 > 0
    surface_faces: np.ndarray  # (f,3) int64, outward-oriented
    surface_vertices: np.ndarray  # (s,) int64 sorted unique boundary vertex ids
    glued: np.ndarray  # (n,) bool, back face n = -thickness
    contact_face: np.ndarray  # (n,) bool, front face n = 0


def pad_outline(name: str, edge_length_m: float = _DEFAULT_EDGE_M) -> PadOutline:
    """Preset outline by name (see PAD_PRESETS).

    edge_length_m only matters for "rounded": its tip arc gets enough segments that the chord
    error is below edge_length_m / 20 and no segment is longer than edge_length_m (at least 16).
    """
    edge = _check_edge(edge_length_m)
    w = _HALF_WIDTH_M
    if name == "rectangular":
        poly = np.array([[_A_MIN_M, -w], [_A_MAX_M, -w], [_A_MAX_M, w], [_A_MIN_M, w]])
    elif name == "rounded":
        arc = _tip_arc(edge)
        poly = np.vstack([[[_A_MIN_M, -w]], arc, [[_A_MIN_M, w]]])
    else:
        raise ParameterError(f"unknown pad preset '{name}'; choose one of {', '.join(PAD_PRESETS)}")
    return PadOutline(name=name, polygon=poly, thickness_m=_THICKNESS_M)


def mesh_pad(
    outline: PadOutline, edge_length_m: float = _DEFAULT_EDGE_M, layers: int | None = None
) -> PadMesh:
    """Tet mesh of the outline extruded through its thickness.

    The outline is triangulated with target edge edge_length_m, extruded in `layers` layers
    (default max(2, round(thickness / edge))) and each prism split into 3 tets.
    """
    edge = _check_edge(edge_length_m)
    n_layers = _check_layers(layers, outline.thickness_m, edge)
    _check_budget(outline, edge, layers, _predicted_tets(outline, edge, n_layers))

    points, tris = triangulate_outline(outline.polygon, edge)
    vertices, tets = _extrude(points, tris, outline.thickness_m, n_layers)
    _check_budget(outline, edge, layers, len(tets))
    volumes = _signed_volumes(vertices, tets)
    if volumes.min() <= 1e-12 * edge**2 * outline.thickness_m / n_layers:
        raise MeshError(
            f"pad '{outline.name}': degenerate tet (volume {volumes.min():.3g} m^3); "
            "try another edge_length_m"
        )
    faces = _boundary_faces(tets, len(vertices))
    n = vertices[:, 2]
    return PadMesh(
        outline=outline,
        vertices=_frozen(vertices),
        tets=_frozen(tets),
        rest_volumes=_frozen(volumes),
        surface_faces=_frozen(faces),
        surface_vertices=_frozen(np.unique(faces)),
        glued=_frozen(n == -outline.thickness_m),
        contact_face=_frozen(n == 0.0),
    )


def pad_resolution_summary(mesh: PadMesh) -> dict[str, int]:
    """Element and vertex counts of a pad mesh."""
    return {
        "vertices": len(mesh.vertices),
        "tets": len(mesh.tets),
        "surface_vertices": len(mesh.surface_vertices),
        "surface_faces": len(mesh.surface_faces),
        "glued_vertices": int(mesh.glued.sum()),
        "contact_vertices": int(mesh.contact_face.sum()),
    }


def triangulate_outline(polygon: np.ndarray, edge: float) -> tuple[np.ndarray, np.ndarray]:
    """2D triangulation of a simple CCW polygon: ((p,2) points, (m,3) CCW triangles).

    Every polygon vertex is a mesh point, so the triangles cover exactly the polygon.
    """
    from scipy.spatial import Delaunay  # here, not at the top: the CLI's flags need PAD_PRESETS

    boundary, chains = _boundary_chains(polygon, edge)
    points = np.vstack([boundary, _interior_points(polygon, edge)])
    tris = _ccw(points, Delaunay(points).simplices.astype(np.int64))
    tris = tris[_inside(points[tris].mean(axis=1), polygon)]
    tris = _ccw(points, _conform_to_boundary(tris, chains, len(boundary)))
    used = np.unique(tris)
    remap = np.full(len(points), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    points, tris = points[used], remap[tris]
    areas, target = _tri_areas(points, tris), _signed_area(polygon)
    if abs(areas.sum() - target) > 1e-9 * target or areas.min() < _SLIVER_AREA * edge**2:
        raise MeshError(
            f"triangulation covers {areas.sum():.6g} m^2 (smallest triangle {areas.min():.3g} "
            f"m^2) but the outline has {target:.6g} m^2; try a smaller edge_length_m"
        )
    return points, tris


# --- outline ----------------------------------------------------------------------------------


def _tip_arc(edge: float) -> np.ndarray:
    """Semicircle of the rounded tip from (0, -r) through (r, 0) to (0, r)."""
    r = _TIP_RADIUS_M
    tol = edge / 20.0
    n_chord = math.ceil(math.pi / (2.0 * math.acos(1.0 - tol / r))) if tol < r else 1
    n = max(_MIN_ARC_SEGMENTS, n_chord, math.ceil(math.pi * r / edge))
    n += n % 2  # even, so the tip point (r, 0) is a vertex
    theta = -0.5 * math.pi + math.pi * np.arange(n + 1) / n
    arc = r * np.column_stack([np.cos(theta), np.sin(theta)])
    arc[0], arc[-1], arc[n // 2] = (0.0, -r), (0.0, r), (r, 0.0)
    return arc


def _check_polygon(name: str, poly: np.ndarray) -> None:
    if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
        raise ParameterError(f"pad '{name}': polygon must be (k,2) with k >= 3, got {poly.shape}")
    if not np.isfinite(poly).all():
        raise ParameterError(f"pad '{name}': polygon has non-finite coordinates")
    seg = np.roll(poly, -1, axis=0) - poly
    lengths = np.hypot(seg[:, 0], seg[:, 1])
    if lengths.min() <= 1e-12 * lengths.max():
        raise ParameterError(f"pad '{name}': polygon has repeated consecutive vertices")
    if _signed_area(poly) <= 0:
        raise ParameterError(f"pad '{name}': polygon must be counter-clockwise in (a, b)")
    if _self_intersects(poly):
        raise ParameterError(f"pad '{name}': polygon edges cross; it must be simple")


def _signed_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def _self_intersects(poly: np.ndarray) -> bool:
    k = len(poly)
    p, q = poly, np.roll(poly, -1, axis=0)
    i, j = np.triu_indices(k, 2)
    keep = (j - i) % k != k - 1  # first and last edges share a vertex
    i, j = i[keep], j[keep]

    def orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        u, v = b - a, c - a
        return np.sign(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0])

    d1, d2 = orient(p[i], q[i], p[j]), orient(p[i], q[i], q[j])
    d3, d4 = orient(p[j], q[j], p[i]), orient(p[j], q[j], q[i])
    # Proper crossings only; touching non-adjacent edges are rare in hand-made outlines.
    return bool(np.any((d1 * d2 < 0) & (d3 * d4 < 0)))


# --- 2D points ----------------------------------------------------------------------------------


def _boundary_chains(polygon: np.ndarray, edge: float) -> tuple[np.ndarray, list[np.ndarray]]:
    """Points along the outline, about `edge` apart, and for each polygon edge the ids of its
    points in order (both corners included)."""
    pieces, starts = [], [0]
    for p, q in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        m = max(1, round(float(np.hypot(*(q - p))) / edge))
        # p + t (q - p) keeps the shared coordinate of axis-aligned edges exact (collinear points).
        pieces.append(p + (np.arange(m)[:, None] / m) * (q - p))
        starts.append(starts[-1] + m)
    n = starts[-1]
    chains = [np.append(np.arange(a, b), b % n) for a, b in itertools.pairwise(starts)]
    return np.vstack(pieces), chains


def _interior_points(polygon: np.ndarray, edge: float) -> np.ndarray:
    """Equilateral lattice points inside the polygon, clear of its boundary."""
    lo, hi = polygon.min(axis=0), polygon.max(axis=0)
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    dy = edge * math.sqrt(3.0) / 2.0
    rows = np.arange(-math.ceil(half[1] / dy), math.ceil(half[1] / dy) + 1)
    cols = np.arange(-math.ceil(half[0] / edge) - 1, math.ceil(half[0] / edge) + 2)
    # Centred lattice with alternate rows offset by half an edge: symmetric in b.
    x = mid[0] + edge * (cols[None, :] + 0.5 * (rows[:, None] % 2))
    y = mid[1] + dy * np.broadcast_to(rows[:, None], x.shape)
    pts = np.column_stack([x.ravel(), y.ravel()])
    pts = pts[_inside(pts, polygon)]
    return pts[_distance_to_outline(pts, polygon) >= _BOUNDARY_CLEARANCE * edge]


def _inside(pts: np.ndarray, polygon: np.ndarray, chunk: int = 20_000) -> np.ndarray:
    """Even-odd point-in-polygon test."""
    p, q = polygon, np.roll(polygon, -1, axis=0)
    out = np.empty(len(pts), dtype=bool)
    for s in range(0, len(pts), chunk):
        x, y = pts[s : s + chunk, 0:1], pts[s : s + chunk, 1:2]
        straddle = (p[:, 1] > y) != (q[:, 1] > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            x_cross = p[:, 0] + (y - p[:, 1]) * (q[:, 0] - p[:, 0]) / (q[:, 1] - p[:, 1])
        out[s : s + chunk] = (np.count_nonzero(straddle & (x < x_cross), axis=1) % 2) == 1
    return out


def _distance_to_outline(pts: np.ndarray, polygon: np.ndarray, chunk: int = 20_000) -> np.ndarray:
    p, q = polygon, np.roll(polygon, -1, axis=0)
    d = q - p
    dd = np.einsum("ij,ij->i", d, d)
    out = np.empty(len(pts))
    for s in range(0, len(pts), chunk):
        rel = pts[s : s + chunk, None, :] - p[None]
        t = np.clip(np.einsum("mij,ij->mi", rel, d) / dd, 0.0, 1.0)
        diff = rel - t[..., None] * d[None]
        out[s : s + chunk] = np.sqrt(np.einsum("mij,mij->mi", diff, diff).min(axis=1))
    return out


# --- 2D triangles -------------------------------------------------------------------------------


def _tri_signed_areas(points: np.ndarray, tris: np.ndarray) -> np.ndarray:
    a, b, c = points[tris[:, 0]], points[tris[:, 1]], points[tris[:, 2]]
    u, v = b - a, c - a
    return 0.5 * (u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0])


def _tri_areas(points: np.ndarray, tris: np.ndarray) -> np.ndarray:
    return np.abs(_tri_signed_areas(points, tris))


def _ccw(points: np.ndarray, tris: np.ndarray) -> np.ndarray:
    tris = tris.copy()
    cw = _tri_signed_areas(points, tris) < 0
    tris[cw] = tris[cw][:, [0, 2, 1]]
    return tris


def _conform_to_boundary(tris: np.ndarray, chains: list[np.ndarray], n_boundary: int) -> np.ndarray:
    """Make the triangulation use every boundary point.

    Points split from a slanted polygon edge are collinear only up to rounding, so Delaunay may
    add zero-area slivers between them and then connect two non-neighbouring points (c_i, c_j)
    of the edge. Slivers (all three points on one polygon edge) are dropped and a triangle on
    (c_i, c_j) is fanned into (c_k, c_k+1, x), k = i..j-1.
    """
    where: dict[int, dict[int, int]] = {}  # boundary point id -> {chain: position}
    for c, ids in enumerate(chains):
        for pos, i in enumerate(ids):
            where.setdefault(int(i), {})[c] = pos
    near = np.count_nonzero(tris < n_boundary, axis=1) >= 2
    out = [tris[~near]]
    todo = [tuple(int(v) for v in t) for t in tris[near]]
    while todo:
        t = todo.pop()
        common = set(where.get(t[0], {})) & set(where.get(t[1], {})) & set(where.get(t[2], {}))
        if common:
            continue  # sliver
        for r in range(3):
            u, v, x = t[r], t[(r + 1) % 3], t[(r + 2) % 3]
            shared = set(where.get(u, {})) & set(where.get(v, {}))
            long = [c for c in shared if abs(where[u][c] - where[v][c]) > 1]
            if long:
                c = long[0]
                lo, hi = sorted((where[u][c], where[v][c]))
                ids = chains[c][lo : hi + 1]
                todo.extend((int(a), int(b), x) for a, b in itertools.pairwise(ids))
                break
        else:
            out.append(np.array([t], dtype=np.int64))
    return np.concatenate(out)


# --- extrusion ----------------------------------------------------------------------------------


def _extrude(
    points: np.ndarray, tris: np.ndarray, thickness: float, layers: int
) -> tuple[np.ndarray, np.ndarray]:
    """Stack layers+1 copies of the 2D points from n = -thickness to 0; 3 tets per prism.

    With the triangle's ids sorted (i < j < k), the tets (i,j,k,k'), (i,j,j',k'), (i,i',j',k')
    split every side quad along the diagonal from the lower id at the bottom to the higher id
    at the top. That depends only on the two ids of the quad's edge, so neighbouring prisms
    agree and the mesh is conforming.
    """
    n2 = len(points)
    levels = np.linspace(-thickness, 0.0, layers + 1)
    vertices = np.empty(((layers + 1) * n2, 3))
    vertices[:, :2] = np.tile(points, (layers + 1, 1))
    vertices[:, 2] = np.repeat(levels, n2)
    vertices[:n2, 2], vertices[-n2:, 2] = -thickness, 0.0  # exact glued / contact flags

    i, j, k = np.sort(tris, axis=1).T
    one = np.stack(
        [
            np.column_stack([i, j, k, k + n2]),
            np.column_stack([i, j, j + n2, k + n2]),
            np.column_stack([i, i + n2, j + n2, k + n2]),
        ],
        axis=1,
    ).reshape(-1, 4)
    tets = np.concatenate([one + layer * n2 for layer in range(layers)]).astype(np.int64)
    negative = _signed_volumes(vertices, tets) < 0
    tets[negative] = tets[negative][:, [0, 1, 3, 2]]
    return vertices, tets


def _signed_volumes(vertices: np.ndarray, tets: np.ndarray) -> np.ndarray:
    x0 = vertices[tets[:, 0]]
    d = vertices[tets[:, 1:]] - x0[:, None, :]
    return np.einsum("ti,ti->t", d[:, 0], np.cross(d[:, 1], d[:, 2])) / 6.0


def _boundary_faces(tets: np.ndarray, n_vertices: int) -> np.ndarray:
    """Triangles used by exactly one tet, wound so their normals point out of the mesh."""
    # Face opposite vertex m of a positive tet, wound outward.
    local = np.array([[1, 2, 3], [0, 3, 2], [0, 1, 3], [0, 2, 1]])
    faces = tets[:, local].reshape(-1, 3)
    s = np.sort(faces, axis=1)
    key = (s[:, 0] * n_vertices + s[:, 1]) * n_vertices + s[:, 2]
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    if counts.max() > 2:
        raise MeshError("pad mesh is not conforming: a triangle is shared by more than 2 tets")
    return faces[counts[inverse] == 1]


# --- validation ---------------------------------------------------------------------------------


def _check_edge(edge_length_m: float) -> float:
    e = float(edge_length_m)
    if not (math.isfinite(e) and e > 0):
        raise ParameterError(f"edge_length_m must be finite and > 0, got {edge_length_m}")
    return e


def _check_layers(layers: int | None, thickness: float, edge: float) -> int:
    if layers is None:
        return max(2, round(thickness / edge))
    if isinstance(layers, bool) or int(layers) != layers or layers < 1:
        raise ParameterError(f"layers must be an integer >= 1, got {layers}")
    return int(layers)


def _predicted_tets(outline: PadOutline, edge: float, layers: int) -> int:
    """Tet count from the 2D point set alone (no Delaunay): a triangulated simple polygon with
    n points, b of them on its boundary, has 2n - b - 2 triangles (Euler)."""
    # Guard the point generation against absurdly small edges.
    rough = 3 * layers * outline.area_m2 / (math.sqrt(3.0) / 4.0 * edge**2)
    if rough > 50 * MAX_TETS:
        return round(rough)
    b = len(_boundary_chains(outline.polygon, edge)[0])
    n = b + len(_interior_points(outline.polygon, edge))
    return 3 * layers * (2 * n - b - 2)


def _check_budget(outline: PadOutline, edge: float, layers: int | None, n_tets: int) -> None:
    if MIN_TETS <= n_tets <= MAX_TETS:
        return
    lo, hi = _edge_range(outline, layers)
    setting = "default layers" if layers is None else f"layers={layers}"
    if hi is None:
        fix = f"use edge_length_m >= about {lo:.3g} m"
    elif hi < lo:
        fix = f"no edge length works with {setting}; use more layers"
    else:
        fix = f"use edge_length_m between about {lo:.3g} and {hi:.3g} m"
    raise ParameterError(
        f"pad '{outline.name}': edge_length_m={edge:.4g} m with {setting} gives {n_tets} tets, "
        f"outside [{MIN_TETS}, {MAX_TETS}]; {fix}"
    )


def _edge_range(outline: PadOutline, layers: int | None) -> tuple[float, float | None]:
    """Approximate edge lengths (smallest, largest or None) that stay within the tet budget."""

    def count(e: float) -> int:
        return _predicted_tets(outline, e, _check_layers(layers, outline.thickness_m, e))

    def bisect(lo: float, hi: float, ok_at_hi: bool, ok: Callable[[int], bool]) -> float:
        for _ in range(40):
            mid = math.sqrt(lo * hi)
            if ok(count(mid)) == ok_at_hi:
                hi = mid
            else:
                lo = mid
        return hi if ok_at_hi else lo

    size = float(np.ptp(outline.polygon, axis=0).max())
    e_min = bisect(size * 1e-4, size * 10, True, lambda n: n <= MAX_TETS)
    if count(size * 10) >= MIN_TETS:
        return e_min, None
    return e_min, bisect(e_min, size * 10, False, lambda n: n >= MIN_TETS)


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a
