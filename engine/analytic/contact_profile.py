"""Contact profile of a jaw (design note 1.5): clipped surface, linear pressure in depth.

Per jaw, in its pad frame (a, b, n): the object triangles facing the pad are clipped against the
side planes of the convex outline prism (Sutherland-Hodgman, batched over all triangles), the
first contact s is the smallest n of the clipped surface, the pad is pushed in to
z_f = s + silicone depth, the surface is clipped to n <= z_f, fan-triangulated and long
elements are bisected. Pressure is linear in the depth d = z_f - n per covered pad area (see
_patch), so each element's force and centre of pressure are exact integrals; each jaw's
pressure is scaled so its total is the closing force.

Before closing, check_clearance refuses open pads (or the finger behind them) that intersect the
object: "approach collision" for one jaw, "too wide" for both.

Polygons travel as padded arrays: (m, W, 3) corners, (m,) corner counts and (m,) source faces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.analytic.contact_patch import ContactPatch
from engine.analytic.contact_points import (
    ContactFailure,
    JawView,
    ObjectGeometry,
    is_inside,
    ray_hits,
)
from engine.errors import ParameterError
from engine.gripper.pad_geometry import PadOutline

# Finger body behind the pad that must also clear the object (m).
BACKING_DEPTH_M = 0.01
# Surface closer than this behind the open contact face counts as touching, not colliding.
_CLEARANCE_TOL_M = 1e-6
# Elements carrying less than this fraction of a jaw's force are dropped.
_NEGLIGIBLE = 1e-9
# Bisection stops adding elements beyond this many per jaw.
_MAX_ELEMENTS = 4000


@dataclass(frozen=True, eq=False)
class Polygons:
    """Convex polygons as padded corner arrays."""

    corners: np.ndarray  # (m, W, 3)
    counts: np.ndarray  # (m,)
    faces: np.ndarray  # (m,) source object face

    def __len__(self) -> int:
        return len(self.counts)

    def take(self, keep: np.ndarray) -> Polygons:
        """The polygons selected by `keep` (boolean mask or indices), in order."""
        return Polygons(self.corners[keep], self.counts[keep], self.faces[keep])

    def valid(self) -> np.ndarray:
        """(m, W) mask of real corners."""
        return np.arange(self.corners.shape[1]) < self.counts[:, None]


def outline_planes(outline: PadOutline) -> tuple[np.ndarray, np.ndarray]:
    """Half-planes nu . (a, b) <= offset of a convex CCW outline: ((K,3) nu with n = 0, (K,))."""
    p = np.asarray(outline.polygon, dtype=float)
    e = np.roll(p, -1, axis=0) - p
    turn = e[:, 0] * np.roll(e, -1, axis=0)[:, 1] - e[:, 1] * np.roll(e, -1, axis=0)[:, 0]
    if np.any(turn < -1e-12 * np.max(np.abs(e)) ** 2):
        raise ParameterError(
            f"pad outline '{outline.name}' is not convex; the contact profile clips against a "
            "convex prism (use rounded, rectangular or reach_hexagon)"
        )
    nu = np.column_stack([e[:, 1], -e[:, 0], np.zeros(len(e))])
    nu /= np.linalg.norm(nu, axis=1, keepdims=True)
    return nu, np.einsum("ij,ij->i", nu[:, :2], p)


def clip(poly: Polygons, nu: np.ndarray, offset: float) -> Polygons:
    """Keep the part of every polygon where nu . x <= offset (one Sutherland-Hodgman pass)."""
    return clip_rows(poly, nu, offset)[0]


def clip_rows(poly: Polygons, nu: np.ndarray, offset: float) -> tuple[Polygons, np.ndarray]:
    """clip(), also returning which input row each output row came from."""
    rows = np.arange(len(poly))
    if len(poly) == 0:
        return poly, rows
    d = poly.corners @ nu - offset
    valid = poly.valid()
    outside = (d > 0) & valid
    any_out = outside.any(axis=1)
    if not any_out.any():
        return poly, rows
    all_in = ~any_out
    cross = any_out & (valid & ~outside).any(axis=1)
    # Only straddling polygons are cut; the others are kept or dropped whole.
    q, dq, cq, real = poly.corners[cross], d[cross], poly.counts[cross], valid[cross]
    r, w = dq.shape
    idx = np.arange(w)
    nxt = np.where(idx + 1 < cq[:, None], idx + 1, 0)
    ri = np.arange(r)[:, None]
    qn, dn = q[ri, nxt], dq[ri, nxt]
    ins = dq <= 0
    emit = np.empty((r, 2 * w), dtype=bool)
    emit[:, 0::2] = ins & real  # the corner itself
    crossing = (ins != (dn <= 0)) & real
    emit[:, 1::2] = crossing  # where the edge to the next corner crosses the plane
    vals = np.empty((r, 2 * w, 3))
    vals[:, 0::2] = q
    t = dq / np.where(crossing, dq - dn, 1.0)
    vals[:, 1::2] = q + t[:, :, None] * (qn - q)
    counts = emit.sum(axis=1)
    width = max(w, int(counts.max(initial=0)))  # no straddling polygon: every one is out
    n_kept = int(all_in.sum())
    corners = np.zeros((n_kept + r, width, 3))
    corners[:n_kept, :w] = poly.corners[all_in]
    er, ec = np.nonzero(emit)
    corners[n_kept + er, (np.cumsum(emit, axis=1) - 1)[er, ec]] = vals[er, ec]
    counts = np.concatenate([poly.counts[all_in], counts])
    faces = np.concatenate([poly.faces[all_in], poly.faces[cross]])
    source = np.concatenate([rows[all_in], rows[cross]])
    ok = counts >= 3
    return Polygons(corners[ok], counts[ok], faces[ok]), source[ok]


def clip_prism(poly: Polygons, nu: np.ndarray, offsets: np.ndarray) -> Polygons:
    """Clip against all side planes of a convex prism.

    Clipping only shrinks a polygon inside its own convex hull, so a plane that none of its
    original corners violate never cuts it: each pass touches only the polygons that violate
    that plane, and polygons wholly inside skip every pass.
    """
    if len(poly) == 0:
        return poly
    d = poly.corners @ nu.T - offsets  # (m, W, K)
    valid = poly.valid()[:, :, None]
    violates = ((d > 0) & valid).any(axis=1)  # (m, K)
    outside_one = ((d > 0) | ~valid).all(axis=1).any(axis=1)
    done = poly.take(~violates.any(axis=1))
    todo = violates.any(axis=1) & ~outside_one
    rest, violates = poly.take(todo), violates[todo]
    for k in np.flatnonzero(violates.any(axis=0)):
        hit = violates[:, k]
        cut, source = clip_rows(rest.take(hit), nu[k], offsets[k])
        rest = concat(rest.take(~hit), cut)
        violates = np.concatenate([violates[~hit], violates[hit][source]])
    return concat(done, rest)


def concat(a: Polygons, b: Polygons) -> Polygons:
    """a's polygons followed by b's, padded to the wider corner count."""
    w = max(a.corners.shape[1], b.corners.shape[1])
    corners = np.zeros((len(a) + len(b), w, 3))
    corners[: len(a), : a.corners.shape[1]] = a.corners
    corners[len(a) :, : b.corners.shape[1]] = b.corners
    return Polygons(
        corners, np.concatenate([a.counts, b.counts]), np.concatenate([a.faces, b.faces])
    )


def fan(poly: Polygons) -> tuple[np.ndarray, np.ndarray]:
    """Fan-triangulate convex polygons: ((k,3,3) triangles, (k,) source faces)."""
    w = poly.corners.shape[1]
    if len(poly) == 0 or w < 3:
        return np.zeros((0, 3, 3)), np.zeros(0, dtype=np.int64)
    i = np.arange(1, w - 1)
    keep = i[None, :] + 1 < poly.counts[:, None]  # (m, W-2)
    first = np.broadcast_to(poly.corners[:, :1], (len(poly), w - 2, 3))
    tri = np.stack([first, poly.corners[:, 1:-1], poly.corners[:, 2:]], axis=2)
    src = np.broadcast_to(poly.faces[:, None], keep.shape)
    return tri[keep], src[keep]


def bisect_long_edges(
    tri: np.ndarray, src: np.ndarray, max_edge_m: float, max_elements: int = _MAX_ELEMENTS
) -> tuple[np.ndarray, np.ndarray]:
    """Split triangles at the midpoint of their longest edge until no edge exceeds max_edge_m.

    Friction is modelled per element (or per cell of elements) at its centre of pressure, so
    long slivers of a coarse or fan-triangulated mesh would understate the torsion a patch
    resists. Bisection keeps the pressure integrals exact (the depth stays linear on every
    child); only triangles already clipped to the contact are split.
    """
    for _ in range(48):
        e = tri[:, [1, 2, 0]] - tri  # edge k: corner k -> k+1
        edges = np.einsum("kij,kij->ki", e, e)
        longest = np.argmax(edges, axis=1)
        sel = edges[np.arange(len(tri)), longest] > max_edge_m * max_edge_m
        n_sel = int(sel.sum())
        if n_sel == 0 or len(tri) + n_sel > max_elements:
            break
        order = (longest[sel, None] + np.arange(3)) % 3
        q = tri[np.flatnonzero(sel)[:, None], order]
        mid = 0.5 * (q[:, 0] + q[:, 1])
        children = np.empty((2 * n_sel, 3, 3))
        children[:n_sel, 0], children[:n_sel, 1], children[:n_sel, 2] = q[:, 0], mid, q[:, 2]
        children[n_sel:, 0], children[n_sel:, 1], children[n_sel:, 2] = mid, q[:, 1], q[:, 2]
        tri = np.concatenate([tri[~sel], children])
        src = np.concatenate([src[~sel], src[sel], src[sel]])
    return tri, src


def _slab_blocked(geom: ObjectGeometry, view: JawView, outline: PadOutline) -> bool:
    """True if the object enters the open pad plus its backing (n in [-(t + backing), 0))."""
    back = outline.thickness_m + BACKING_DEPTH_M
    nu, off = outline_planes(outline)
    tri = view.triangles
    lo, hi = view.lower, view.upper
    amin, bmin = outline.polygon.min(axis=0)
    amax, bmax = outline.polygon.max(axis=0)
    cand = (
        (hi[:, 0] >= amin)
        & (lo[:, 0] <= amax)
        & (hi[:, 1] >= bmin)
        & (lo[:, 1] <= bmax)
        & (hi[:, 2] >= -back)
        & (lo[:, 2] <= -_CLEARANCE_TOL_M)
    )
    idx = np.flatnonzero(cand)
    if len(idx):
        poly = Polygons(tri[idx], np.full(len(idx), 3), idx)
        poly = clip(poly, np.array([0.0, 0.0, 1.0]), -_CLEARANCE_TOL_M)
        poly = clip(poly, np.array([0.0, 0.0, -1.0]), back)
        poly = clip_prism(poly, nu, off)
        if len(poly):
            t, _ = fan(poly)
            area = 0.5 * np.linalg.norm(np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]), axis=1)
            if area.sum() > _CLEARANCE_TOL_M**2:
                return True
    # No surface crosses the pad volume: it is either clear or wholly inside the object.
    centre = np.append(outline.polygon.mean(axis=0), -0.5 * back)
    return is_inside(view, centre)


def check_clearance(
    geom: ObjectGeometry, views: tuple[JawView, JawView], outline: PadOutline, open_width_m: float
) -> None:
    """Raise ContactFailure if an open pad (or its backing) intersects the object."""
    blocked = [_slab_blocked(geom, v, outline) for v in views]
    if all(blocked):
        raise ContactFailure(
            "too wide",
            f"the object is wider than the {open_width_m * 1e3:g} mm opening at the jaws; "
            "grasp a narrower part",
        )
    if any(blocked):
        k = blocked.index(True)
        raise ContactFailure(
            "approach collision",
            f"open jaw {k}'s pad or finger intersects the object; move the grasp centre away "
            "from that side or change the approach angle",
        )


def jaw_patch(
    geom: ObjectGeometry,
    view: JawView,
    jaw_index: int,
    outline: PadOutline,
    silicone_depth_m: float,
    closing_force_n: float,
    open_width_m: float,
    max_edge_m: float,
) -> ContactPatch:
    """One jaw's contact patch (see the module docstring)."""
    nu, off = outline_planes(outline)
    tri, lo, hi = view.triangles, view.lower, view.upper
    box_lo, box_hi = outline.polygon.min(axis=0), outline.polygon.max(axis=0)
    cand = (
        (view.face_normals[:, 2] < -1e-9)  # facing the pad
        & (hi[:, :2] >= box_lo).all(axis=1)
        & (lo[:, :2] <= box_hi).all(axis=1)
        & (hi[:, 2] >= 0.0)
        & (lo[:, 2] <= open_width_m)
    )
    idx = np.flatnonzero(cand)
    # The centre ray's first hit is a surface point inside the pad prism, so the first contact
    # is no deeper: triangles beyond it plus the silicone depth can never be reached.
    centre = outline.polygon.mean(axis=0)
    hits, _ = ray_hits(view, float(centre[0]), float(centre[1]), idx)
    hits = hits[hits >= 0.0]
    if len(hits):
        idx = idx[lo[idx, 2] <= hits.min() + silicone_depth_m]
    poly = Polygons(tri[idx], np.full(len(idx), 3), idx)
    poly = clip(poly, np.array([0.0, 0.0, -1.0]), 0.0)  # ahead of the open face
    poly = clip_prism(poly, nu, off)
    if len(poly) == 0:
        raise ContactFailure(
            "no contact on a jaw",
            f"jaw {jaw_index}'s pad meets no object surface when it closes; move the grasp "
            "centre onto the object",
        )
    first = float(poly.corners[poly.valid()][:, 2].min())
    if first > open_width_m:
        raise ContactFailure(
            "no contact on a jaw", f"jaw {jaw_index} closes fully without touching the object"
        )
    z_f = first + silicone_depth_m
    poly = clip(poly, np.array([0.0, 0.0, 1.0]), z_f)
    tri, src = bisect_long_edges(*fan(poly), max_edge_m)
    return _patch(geom, view, jaw_index, tri, src, z_f, closing_force_n)


def _patch(
    geom: ObjectGeometry,
    view: JawView,
    jaw_index: int,
    tri: np.ndarray,
    src: np.ndarray,
    z_f: float,
    closing_force_n: float,
) -> ContactPatch:
    """Exact integrals of the pressure p = k (z_f - n) cos(theta) over each element.

    theta is the angle between the element's normal and the closing direction: the pad pushes
    on the area it covers (the element's projection on the pad), so a face nearly parallel to
    the closing direction (a cube's top face under a slightly tilted pad) carries almost no
    load instead of a full depth-proportional pressure that would jump in when the tilt changes
    sign. On faces square to the pad cos(theta) = 1, the plain linear-depth model.
    """
    depth = np.maximum(z_f - tri[:, :, 2], 0.0)  # (k, 3)
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    cos = -view.face_normals[src, 2]
    sum_d = depth.sum(axis=1)
    force = area * sum_d * cos / 3.0
    total = float(force.sum())
    if not (np.isfinite(total) and total > 0):
        raise ContactFailure(
            "degenerate contact patch",
            f"jaw {jaw_index}'s patch has no area under pressure (total depth-area {total:.3g})",
        )
    # Slivers at the depth boundary carry ~no load; dropping them keeps the solvers small.
    keep = force > _NEGLIGIBLE * total
    tri, depth, area, sum_d, force, src = (
        tri[keep],
        depth[keep],
        area[keep],
        sum_d[keep],
        force[keep],
        src[keep],
    )
    total = float(force.sum())
    # First moment: integral of d x over a triangle = A/12 (sum_v d_v sum_w x_w + sum_v d_v x_v).
    cop = (sum_d[:, None] * tri.sum(axis=1) + np.einsum("kv,kvi->ki", depth, tri)) / (
        4.0 * sum_d[:, None]
    )
    world = view.to_world(tri.reshape(-1, 3)).reshape(tri.shape)
    patch = ContactPatch(
        jaw=jaw_index,
        triangles=world,
        centroids=world.mean(axis=1),
        normals=-view.world_normals[src],
        areas=area,
        forces=force * (closing_force_n / total),
        centers_of_pressure=view.to_world(cop),
        closing_direction=np.asarray(view.jaw.normal, dtype=float),
    )
    check_patch(patch)
    return patch


def check_patch(patch: ContactPatch) -> None:
    """Raise "degenerate contact patch" unless the patch has finite, positive load and area."""
    arrays = (patch.forces, patch.areas, patch.centers_of_pressure, patch.normals)
    if len(patch) == 0 or not all(np.isfinite(a).all() for a in arrays):
        raise ContactFailure(
            "degenerate contact patch", f"jaw {patch.jaw}'s patch is empty or has NaN values"
        )
    if not (patch.forces.min() >= 0 and patch.total_force_n > 0 and patch.area_m2 > 0):
        raise ContactFailure(
            "degenerate contact patch",
            f"jaw {patch.jaw}'s patch carries no load (area {patch.area_m2:.3g} m^2, "
            f"force {patch.total_force_n:.3g} N)",
        )


def contact_profile(
    geom: ObjectGeometry,
    views: tuple[JawView, JawView],
    outline: PadOutline,
    silicone_depth_m: float,
    closing_force_n: float,
    open_width_m: float,
    max_edge_m: float,
) -> tuple[ContactPatch, ContactPatch]:
    """Both jaws' patches (clearance must have been checked with check_clearance)."""
    p0, p1 = (
        jaw_patch(geom, v, k, outline, silicone_depth_m, closing_force_n, open_width_m, max_edge_m)
        for k, v in enumerate(views)
    )
    return p0, p1


@dataclass(frozen=True, eq=False)
class FrictionCells:
    """A patch's friction elements merged into grid cells (what the solvers iterate over)."""

    positions: np.ndarray  # (c,3) force-weighted centre of pressure of each cell, m
    normals: np.ndarray  # (c,3) unit, force-weighted mean inward normal
    forces: np.ndarray  # (c,) N, sum of the member elements' normal forces

    def __len__(self) -> int:
        return len(self.forces)


def friction_cells(patch: ContactPatch, cell_m: float) -> FrictionCells:
    """Merge elements whose centres of pressure share a cubic cell of side cell_m.

    A cell transmits a tangential force of at most mu times its normal force at its centre of
    pressure: exact for sliding, and for twisting as accurate as elements of size cell_m. This
    bounds the solver size by the patch area instead of the mesh resolution (a 10k-face object
    gives thousands of elements per jaw; cells of 1.5 mm give ~200). cell_m = 0 keeps every
    element. The grid is anchored at the patch's pressure centre so symmetric patches give
    symmetric cells.
    """
    f, x, n = patch.forces, patch.centers_of_pressure, patch.normals
    if cell_m <= 0 or len(f) == 0:
        return FrictionCells(x, n, f)
    centre = f @ x / f.sum()
    keys = np.floor((x - centre) / cell_m).astype(np.int64)
    keys -= keys.min(axis=0)
    span = keys.max(axis=0) + 1
    flat = keys[:, 0] + span[0] * (keys[:, 1] + span[1] * keys[:, 2])
    _, cell = np.unique(flat, return_inverse=True)
    count = int(cell.max()) + 1
    force = np.bincount(cell, weights=f, minlength=count)

    def sums(v: np.ndarray) -> np.ndarray:
        return np.column_stack(
            [np.bincount(cell, weights=f * v[:, k], minlength=count) for k in range(3)]
        )

    normals = sums(n)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return FrictionCells(sums(x) / force[:, None], normals, force)
