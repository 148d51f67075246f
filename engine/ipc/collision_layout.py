"""The collision geometry of a grasp: two pads' surfaces and the object's surface as one set of
collision vertices, who owns each, the ipctk collision mesh with the ground, and distance
queries between two bodies.

`CollisionLayout` is built from world positions alone (no masses, no elasticity): the placement
checks of an open gripper (engine.grasp.placement_checks) use it as it is, and GraspSystem
(engine.ipc.system) extends it with the DOFs that move those vertices.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np
from numba import njit

from engine.gripper.pad_geometry import PadMesh
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.candidate_cover import CandidateCover
from engine.scene.mesh_rays import perpendicular_pair

PAD_OWNER = (0, 1)
OBJECT_OWNER = 2

# Room a pair cover leaves the bodies' relative motion, in units of the pair radius.
PAIR_COVER_MARGIN = 1.0
# How much further each of closest_gap's searches looks than the last. A search's pairs (and
# memory) grow with its radius cubed: doubling landed on 31.8 mm for a 16.1 mm gap between the
# Robotiq's pad and the YCB banana (1 M pairs, a 474 MB process); half again, 328 MB, with the
# same gaps and trial times within the run-to-run spread.
GAP_SEARCH_GROWTH = 1.5


def stacked_surfaces(
    pads: tuple[PadMesh, PadMesh], object_faces: np.ndarray, n_object_vertices: int
) -> tuple[np.ndarray, np.ndarray, list[slice]]:
    """The collision faces (int32, rows into the stacked vertices), each collision vertex's
    owner (pad 0, pad 1, OBJECT_OWNER) and each pad's rows: pad 0's surface vertices, pad 1's,
    then the object's vertices."""
    faces, owners, rows = [], [], []
    crow = 0
    for k, mesh in enumerate(pads):
        s = np.asarray(mesh.surface_vertices, dtype=np.int64)
        remap = -np.ones(len(mesh.vertices), dtype=np.int64)
        remap[s] = np.arange(len(s)) + crow
        faces.append(remap[mesh.surface_faces])
        owners.append(np.full(len(s), k, dtype=np.int8))
        rows.append(slice(crow, crow + len(s)))
        crow += len(s)
    faces.append(np.asarray(object_faces, dtype=np.int64) + crow)
    owners.append(np.full(n_object_vertices, OBJECT_OWNER, dtype=np.int8))
    collision_faces = np.ascontiguousarray(np.vstack(faces), dtype=np.int32)
    return collision_faces, np.concatenate(owners), rows


class CollisionLayout:
    """Collision vertices (pads' surfaces, then the object's), their owners and faces, the
    ipctk collision mesh (contacts between bodies and with the ground), and body-pair queries."""

    def __init__(self, x0: np.ndarray, faces: np.ndarray, owner: np.ndarray) -> None:
        """`x0`: (n, 3) initial positions; `faces`, `owner`: as stacked_surfaces gives them."""
        self.x_initial = x0
        self.collision_faces = faces
        self.collision_owner = owner
        self.n_collision = len(x0)
        first = int(np.argmax(owner == OBJECT_OWNER))
        self.object_rows = slice(first, self.n_collision)
        # Only contacts between bodies (ipc.collision_mesh filters same-body pairs), plus the ground.
        self.collision_mesh = ipc.collision_mesh(x0, faces, owner, ground=True)
        span = x0.max(axis=0) - x0.min(axis=0)
        self.bbox_diagonal = float(np.linalg.norm(span))

    @classmethod
    def of_placement(
        cls,
        pads: tuple[PadMesh, PadMesh],
        pad_world: tuple[np.ndarray, np.ndarray],
        object_vertices: np.ndarray,
        object_faces: np.ndarray,
    ) -> CollisionLayout:
        """The layout of pads whose vertices sit at `pad_world` and an object at
        `object_vertices` (world, m)."""
        faces, owner, _ = stacked_surfaces(pads, object_faces, len(object_vertices))
        parts = [
            np.asarray(w, dtype=float)[m.surface_vertices]
            for m, w in zip(pads, pad_world, strict=True)
        ]
        x0 = np.vstack([*parts, np.asarray(object_vertices, dtype=float)])
        return cls(x0, faces, owner)

    @cached_property
    def ground_mesh(self) -> ipc.CollisionMesh:
        """Every collision vertex and the ground, no edges or faces (ipc.ground_mesh)."""
        return ipc.ground_mesh(self.x_initial)

    def pair_mesh(self, a: int, b: int) -> tuple[ipc.CollisionMesh, np.ndarray]:
        """Collision mesh of two bodies only (owners a, b), no ground, and its collision rows.

        Building contacts on it counts exactly the a-b pairs without a Python loop.
        """
        cache = self.__dict__.setdefault("_pair_meshes", {})
        if (a, b) not in cache:
            rows = np.flatnonzero((self.collision_owner == a) | (self.collision_owner == b))
            remap = -np.ones(self.n_collision, dtype=np.int64)
            remap[rows] = np.arange(len(rows))
            faces = remap[self.collision_faces]
            faces = faces[(faces >= 0).all(axis=1)]
            x0 = self.x_initial[rows]
            mesh = ipc.collision_mesh(x0, faces, self.collision_owner[rows], ground=False)
            cache[(a, b)] = (mesh, rows)
        return cache[(a, b)]

    def pair_collisions(
        self, a: int, b: int, x: np.ndarray, radius: float
    ) -> tuple[ipc.CollisionMesh, np.ndarray, ipc.NormalCollisions]:
        """(pair_mesh(a, b), the a-b pairs closer than `radius` at collision positions x).

        Bodies whose bounding boxes are further apart than `radius` along an axis have no such
        pair: the set is then empty without a broad phase (~0.8 ms per build; the pads are
        almost always that far apart, and the object is from both pads in free flight)."""
        mesh, rows = self.pair_mesh(a, b)
        xs = x[rows]
        if self._boxes_apart(a, b, xs, rows, radius):
            return mesh, rows, ipc.NormalCollisions()
        # One broad phase per pair and radius while the bodies' relative positions hold it
        # (a lift moves them together): the narrow phase is ~0.1 of the 0.7 ms build.
        covers = self.__dict__.setdefault("_pair_covers", {})
        cover = covers.get((a, b, radius))
        if cover is None or not cover.covers(xs):
            margin = PAIR_COVER_MARGIN * radius
            cover = CandidateCover.of_move(mesh, xs, xs, radius, margin)
            covers[(a, b, radius)] = cover
        return mesh, rows, ipc.collisions_within_among(cover.candidates, mesh, xs, radius)

    def pair_distance(self, a: int, b: int, x: np.ndarray, radius: float) -> float:
        """The smallest distance (m) between bodies a and b at collision positions x if it is
        below `radius`, else inf: pair_collisions' minimum distance, its queries on
        ipctk_gateway's query threads (a count and a minimum need no pair order).

        The query runs over each body's faces whose boxes come within `radius` of the other
        body's box: a pair closer than `radius` has both primitives in such faces (a face's box
        holds its edges' and vertices'), so the pairs and their minimum are the whole bodies',
        without a broad phase over a 16k-face scan's far side (115 of ~120 ms per query)."""
        rows = self.pair_mesh(a, b)[1]
        xs = x[rows]
        if self._boxes_apart(a, b, xs, rows, radius):
            return float("inf")
        near_a = self._faces_near(x, a, b, radius)
        near_b = self._faces_near(x, b, a, radius)
        if not len(near_a) or not len(near_b):
            return float("inf")
        faces = np.concatenate([near_a, near_b])
        used = np.unique(faces)
        remap = np.full(self.n_collision, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        sub = ipc.collision_mesh(
            self.x_initial[used], remap[faces], self.collision_owner[used], ground=False
        )
        return ipc.distance_within(sub, x[used], radius)

    def _faces_near(self, x: np.ndarray, a: int, b: int, radius: float) -> np.ndarray:
        """Body a's faces (rows into x) whose boxes come within `radius` of body b's box."""
        pb = x[self.collision_owner == b]
        lo, hi = pb.min(axis=0) - radius, pb.max(axis=0) + radius
        faces = self.body_faces(a)
        fx = x[faces]  # (m, 3, 3)
        near = ((fx.max(axis=1) >= lo) & (fx.min(axis=1) <= hi)).all(axis=1)
        return faces[near]

    def _boxes_apart(self, a: int, b: int, xs: np.ndarray, rows: np.ndarray, radius: float) -> bool:
        """Whether bodies a and b (positions xs of the pair mesh's rows) have bounding boxes
        further apart than radius along an axis."""
        return bool(_boxes_apart(xs, self.collision_owner[rows], a, b, radius))

    def gap_bound(self, x: np.ndarray, a: int, b: int, axis: np.ndarray, radius: float) -> float:
        """A lower bound (m) on the distance between bodies a and b at collision positions x,
        or `radius` if they are at least that far apart.

        A point of b further than `radius` across `axis` from a's extent is further than that
        from a; every other point is at least its separation along `axis` from a. So only b's
        faces whose extent across the axis comes within `radius` of a's count: a pad facing
        a curved or tilted object is bounded by the part of the object in front of it, not by
        the whole object's extent along the axis."""
        axis = np.asarray(axis, dtype=float)
        pa = x[self.collision_owner == a]
        along_a = pa @ axis
        # The same axis every call of a trial (the closing direction): its pair once.
        cache = self.__dict__.setdefault("_across", {})
        key = axis.tobytes()
        if key not in cache:
            cache[key] = perpendicular_pair(axis)
        across = cache[key]
        lat_a = pa @ across.T
        lo, hi = lat_a.min(axis=0) - radius, lat_a.max(axis=0) + radius
        fx = x[self.body_faces(b)]  # (m, 3, 3)
        lat = fx @ across.T  # (m, 3, 2)
        near = ((lat.max(axis=1) >= lo) & (lat.min(axis=1) <= hi)).all(axis=1)
        if not near.any():
            return radius
        along = fx[near] @ axis  # (k, 3)
        gaps = np.maximum(along.min(axis=1) - along_a.max(), along_a.min() - along.max(axis=1))
        return float(min(radius, max(0.0, float(gaps.min()))))

    def body_faces(self, owner: int) -> np.ndarray:
        """The collision faces of one body (rows into the collision vertices)."""
        cache = self.__dict__.setdefault("_body_faces", {})
        if owner not in cache:
            first = self.collision_owner[self.collision_faces[:, 0]]
            cache[owner] = self.collision_faces[first == owner]
        return cache[owner]

    def closest_gap(
        self,
        x: np.ndarray,
        pairs: list[tuple[int, int]],
        radius: float,
        axis: np.ndarray,
        dhat: float,
    ) -> float:
        """Smallest distance (m) between the bodies of any pair, or inf if none is within radius.

        gap_bound bounds the bodies' distance from below. A pad approaching a face squarely is
        that far from it: the pairs just beyond it (one dhat) hold the closest one, and a tilted
        pad's are found a little further (a quarter more), then GAP_SEARCH_GROWTH times further
        each try, while the whole radius can hold millions of pairs (1.2 s and 1.3 GB per query
        for a Robotiq pad 40 mm from a 16k-face scan; 4-8 ms on the 98-vertex Table V cube
        against 1-2 ms). Each search is exact once it finds a pair: every pair outside it is
        further apart than its radius.
        """
        gap = math.inf
        for a, b in pairs:
            apart = self.gap_bound(x, a, b, axis, radius)
            if apart >= radius:
                continue
            reach = apart + dhat
            searches = [reach, 1.25 * apart + dhat]
            while searches[-1] < radius:
                searches.append(GAP_SEARCH_GROWTH * searches[-1])
            for reach in [r for r in searches if r < radius] + [radius]:
                d = self.pair_distance(a, b, x, reach)
                if d < math.inf or reach == radius:
                    gap = min(gap, d)
                    break
        return gap


@njit(cache=True)
def _boxes_apart(xs: np.ndarray, owners: np.ndarray, a: int, b: int, radius: float) -> bool:
    # One pass over the pair's vertices (masking and reducing each body with numpy took
    # ~50 us per call, ~140 calls per trial).
    lo = np.full((2, 3), np.inf)
    hi = np.full((2, 3), -np.inf)
    for i in range(xs.shape[0]):
        o = owners[i]
        j = 0 if o == a else 1 if o == b else -1
        if j < 0:
            continue
        for k in range(3):
            v = xs[i, k]
            lo[j, k] = min(lo[j, k], v)
            hi[j, k] = max(hi[j, k], v)
    for k in range(3):
        if lo[0, k] > hi[1, k] + radius or lo[1, k] > hi[0, k] + radius:
            return True
    return False
