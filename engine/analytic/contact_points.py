"""Object geometry seen from the jaws, and Soft Point contacts by ray casting.

Every jaw-relative computation works in the jaw's pad frame (a, b, n): n is the closing
direction, the open contact face is the plane n = 0 and the object lies at n > 0. The ray of a
point contact is the pad-frame n axis (a = b = 0), so casting it is a 2-D point-in-triangle test
on the projected triangles, vectorised over the whole mesh.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.analytic.contact_patch import ContactPoint
from engine.analytic.result import FAILURE_REASONS
from engine.errors import GraspError
from engine.gripper.jaws import JawPlacement
from engine.gripper.pad_geometry import PadOutline
from engine.scene.mesh_surface import undirected_edges
from engine.scene.resting import RestingObject

# Two hits closer than this along a ray are the same surface point (a ray through an edge).
_SAME_HIT_M = 1e-9


class ContactFailure(GraspError):
    """A grasp that fails for a geometric reason; `reason` is one of FAILURE_REASONS."""

    def __init__(self, reason: str, detail: str = "") -> None:
        assert reason in FAILURE_REASONS, reason
        self.reason, self.detail = reason, detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


@dataclass(frozen=True, eq=False)
class ObjectGeometry:
    """What the contact finders need of a resting object (resting frame, read-only arrays)."""

    vertices: np.ndarray  # (n,3) m
    faces: np.ndarray  # (m,3) int
    face_normals: np.ndarray  # (m,3) unit, outward
    face_centres: np.ndarray  # (m,3) m, vertex mean
    face_radii: np.ndarray  # (m,) m, largest distance from the centre to a corner
    center_of_mass: np.ndarray  # (3,) m
    mass_kg: float
    scale_m: float  # bounding-box diagonal, for tolerances


def object_geometry(obj: RestingObject) -> ObjectGeometry:
    """Face normals and tolerances of `obj`; raises ContactFailure("invalid input") if not closed."""
    v = np.asarray(obj.vertices, dtype=float)
    f = np.asarray(obj.faces, dtype=np.int64)
    if f.ndim != 2 or f.shape[1] != 3 or len(f) == 0 or not np.isfinite(v).all():
        raise ContactFailure("invalid input", "object mesh has no triangles or non-finite vertices")
    _, _, counts = undirected_edges(f)
    if not np.all(counts == 2):
        raise ContactFailure(
            "invalid input",
            f"object mesh is not watertight ({int(np.sum(counts != 2))} open or non-manifold "
            "edges); repair it (e.g. trimesh.repair.fill_holes)",
        )
    tri = v[f]
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    norm = np.linalg.norm(cross, axis=1, keepdims=True)
    normals = np.divide(cross, norm, out=np.zeros_like(cross), where=norm > 0)
    centres = tri.mean(axis=1)
    return ObjectGeometry(
        vertices=v,
        faces=f,
        face_normals=normals,
        face_centres=centres,
        face_radii=np.linalg.norm(tri - centres[:, None], axis=2).max(axis=1),
        center_of_mass=np.asarray(obj.center_of_mass, dtype=float),
        mass_kg=float(obj.mass_kg),
        scale_m=float(np.linalg.norm(v.max(axis=0) - v.min(axis=0))),
    )


@dataclass(frozen=True, eq=False)
class JawView:
    """The object faces near one jaw, in the jaw's pad frame."""

    jaw: JawPlacement
    face_ids: np.ndarray  # (k,) object faces kept (the others cannot reach the pads)
    triangles: np.ndarray  # (k,3,3) those faces in (a, b, n) coordinates
    lower: np.ndarray  # (k,3) per-triangle bounding box, pad coordinates
    upper: np.ndarray  # (k,3)
    face_normals: np.ndarray  # (k,3) outward normals in (a, b, n) coordinates
    world_normals: np.ndarray  # (k,3) outward normals in the resting frame

    def to_world(self, local: np.ndarray) -> np.ndarray:
        """Pad-frame (a, b, n) points (..., 3) in m to the resting (world) frame, m."""
        return local @ self.jaw.rotation.T + self.jaw.origin


def jaw_view(geom: ObjectGeometry, jaw: JawPlacement, faces: np.ndarray | None = None) -> JawView:
    """Express the object's faces (all, or the ids `faces`) in the jaw's pad frame."""
    ids = np.arange(len(geom.faces)) if faces is None else np.asarray(faces, dtype=np.int64)
    # Transform only the vertices the kept faces use (a culled view touches a fraction).
    used, inverse = np.unique(geom.faces[ids], return_inverse=True)
    local = (geom.vertices[used] - jaw.origin) @ jaw.rotation
    tri = local[inverse.reshape(-1, 3)]
    return JawView(
        jaw=jaw,
        face_ids=ids,
        triangles=tri,
        lower=np.minimum(np.minimum(tri[:, 0], tri[:, 1]), tri[:, 2]),
        upper=np.maximum(np.maximum(tri[:, 0], tri[:, 1]), tri[:, 2]),
        face_normals=geom.face_normals[ids] @ jaw.rotation,
        world_normals=geom.face_normals[ids],
    )


def jaw_views(
    geom: ObjectGeometry, jaws: tuple[JawPlacement, JawPlacement], outline: PadOutline
) -> tuple[JawView, JawView]:
    """Both jaws' views of the faces that can meet a pad.

    Both pads sweep the same footprint (the outline is symmetric in b; the box below covers
    either sign) along the closing axis, so a face whose bounding sphere misses that infinite
    box can neither touch a pad nor cross a pad's ray: only the others are transformed. The
    box is unbounded along the axis so the ray-parity inside test still sees every crossing.
    """
    approach, normal = jaws[0].rotation[:, 0], jaws[0].normal
    lateral = np.cross(approach, normal)
    centre = 0.5 * (jaws[0].origin + jaws[1].origin)
    rel = geom.face_centres - centre
    a, b = rel @ approach, rel @ lateral
    lo, hi = outline.polygon.min(axis=0), outline.polygon.max(axis=0)
    half_b = float(np.abs(outline.polygon[:, 1]).max())
    r = geom.face_radii
    keep = (a + r >= lo[0]) & (a - r <= hi[0]) & (np.abs(b) - r <= half_b)
    ids = np.flatnonzero(keep)
    return jaw_view(geom, jaws[0], ids), jaw_view(geom, jaws[1], ids)


def ray_hits(
    view: JawView, a0: float = 0.0, b0: float = 0.0, candidates: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Where the line (a0, b0, n) crosses the view's triangles (or the `candidates` subset).

    Returns (n at each hit, index of the hit triangle in the view). Triangles seen edge-on are
    skipped.
    """
    idx = np.arange(len(view.triangles)) if candidates is None else np.asarray(candidates)
    lo, hi = view.lower[idx], view.upper[idx]
    box = (lo[:, 0] <= a0) & (hi[:, 0] >= a0) & (lo[:, 1] <= b0) & (hi[:, 1] >= b0)
    idx = idx[box]
    tri = view.triangles[idx]
    p = tri[:, :, :2] - np.array([a0, b0])
    # Twice the signed areas of the sub-triangles opposite each corner (barycentric numerators).
    nxt, prv = p[:, [1, 2, 0]], p[:, [2, 0, 1]]
    w = nxt[:, :, 0] * prv[:, :, 1] - nxt[:, :, 1] * prv[:, :, 0]
    total = w.sum(axis=1)
    eps = (1e-12 * (np.abs(p).max(axis=(1, 2)) + 1e-30) ** 2)[:, None]
    ok = np.abs(total) > 1e3 * eps[:, 0]
    inside = ok & ((w >= -eps).all(axis=1) | (w <= eps).all(axis=1))
    idx, w, total, tri = idx[inside], w[inside], total[inside], tri[inside]
    n = np.sum(w * tri[:, :, 2], axis=1) / total
    return n, idx


def first_hit(view: JawView, max_n: float) -> tuple[float, int] | None:
    """First surface crossing of the jaw's centre ray at 0 <= n <= max_n: (n, face), or None."""
    n, idx = ray_hits(view)
    keep = (n >= -_SAME_HIT_M) & (n <= max_n)
    if not keep.any():
        return None
    n, idx = n[keep], idx[keep]
    k = int(np.argmin(n))
    return float(n[k]), int(idx[k])


def is_inside(view: JawView, point: np.ndarray) -> bool:
    """Ray-parity test of a pad-frame point against the closed object (hits along +n)."""
    n, _ = ray_hits(view, float(point[0]), float(point[1]))
    n = np.sort(n[n > point[2]])
    if len(n) == 0:
        return False
    distinct = 1 + int(np.sum(np.diff(n) > _SAME_HIT_M))  # a ray through an edge hits twice
    return distinct % 2 == 1


def find_contact_points(
    geom: ObjectGeometry, views: tuple[JawView, JawView], open_width_m: float
) -> tuple[ContactPoint, ContactPoint]:
    """Point contacts where each jaw's centre ray first meets the object within the opening."""
    points = []
    for k, view in enumerate(views):
        hit = first_hit(view, open_width_m)
        if hit is None:
            raise ContactFailure(
                "no contact on a jaw",
                f"jaw {k}'s closing ray misses the object within the {open_width_m * 1e3:g} mm "
                "opening; move the grasp centre onto the object",
            )
        n_hit, face = hit
        outward = view.world_normals[face]
        if np.dot(outward, view.jaw.normal) > 0:
            # The ray leaves the object first: the jaw face starts inside it.
            raise ContactFailure("approach collision", f"jaw {k} starts inside the object")
        position = view.jaw.origin + n_hit * view.jaw.normal
        points.append(ContactPoint(jaw=k, position=position, normal=-outward))
    return points[0], points[1]
