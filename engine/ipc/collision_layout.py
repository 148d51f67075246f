"""The collision geometry of a grasp: two pads' surfaces and the object's surface as one set of
collision vertices, who owns each, the ipctk collision mesh with the ground, and distance
queries between two bodies.

`CollisionLayout` is built from world positions alone (no masses, no elasticity): the placement
checks of an open gripper (engine.grasp.placement_checks) use it as it is, and GraspSystem
(engine.ipc.system) extends it with the DOFs that move those vertices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from engine.gripper.pad_geometry import PadMesh
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.body_broad_phase import BodyBroadPhase
from engine.ipc.candidate_cover import CandidateCover
from engine.ipc.face_tree import FaceTree, close_face_pairs
from engine.scene.mesh_rays import perpendicular_pair

PAD_OWNER = (0, 1)
OBJECT_OWNER = 2

# Room a pair cover leaves the bodies' relative motion, in units of the pair radius.
PAIR_COVER_MARGIN = 1.0


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
        return mesh, rows, ipc.collisions_within_among(cover.within(xs, radius), mesh, xs, radius)

    def pair_distance(self, a: int, b: int, x: np.ndarray, radius: float) -> float:
        """The smallest distance (m) between bodies a and b at collision positions x if it is
        below `radius`, else inf: the minimum over their contact pairs within `radius`, as
        ipctk measures it (a minimum needs no pair order).

        Only the face pairs that can hold the closest primitive pair (engine.ipc.face_tree, a
        branch-and-bound search over each body's box hierarchy) go to ipctk, not every pair
        within `radius`: a Robotiq pad 16 mm from a 16k-face scan has ~1 M of those."""
        mesh, rows = self.pair_mesh(a, b)
        xs = x[rows]
        if self._boxes_apart(a, b, xs, rows, radius):
            return float("inf")
        pair = self._face_pair(a, b)
        ia, ib = close_face_pairs(xs, pair.tree_a, pair.tree_b, radius)
        if not len(ia):
            return float("inf")
        collisions = ipc.collisions_within_among(pair.candidates(ia, ib), mesh, xs, radius)
        return ipc.minimum_distance(collisions, mesh, xs)

    def _face_pair(self, a: int, b: int) -> _FacePair:
        cache = self.__dict__.setdefault("_face_pairs", {})
        if (a, b) not in cache:
            mesh, rows = self.pair_mesh(a, b)
            owner = self.collision_owner[rows]
            cache[(a, b)] = _FacePair.of(mesh, owner, self.x_initial[rows], a, b)
        return cache[(a, b)]

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
        self, x: np.ndarray, pairs: list[tuple[int, int]], radius: float, axis: np.ndarray
    ) -> float:
        """Smallest distance (m) between the bodies of any pair, or inf if none is within radius.

        gap_bound bounds each pair's distance from below across `axis` (the closing direction):
        a pair at least `radius` apart needs no query."""
        gap = math.inf
        for a, b in pairs:
            if self.gap_bound(x, a, b, axis, radius) < radius:
                gap = min(gap, self.pair_distance(a, b, x, radius))
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


@dataclass(frozen=True)
class _FacePair:
    """Two bodies of a pair mesh as face_tree hierarchies, and how their face pairs become
    ipctk candidates. A body's vertices on no face (the cut object's ground slab: its lowest
    vertices, kept without their faces) enter its hierarchy as faces (v, v, v)."""

    tree_a: FaceTree
    tree_b: FaceTree
    faces: np.ndarray  # the pair mesh's faces (ids in the pair mesh)
    faces_to_edges: np.ndarray
    rows_a: np.ndarray  # per hierarchy face: its face row in the pair mesh, or -1 - vertex id
    rows_b: np.ndarray
    bodies: BodyBroadPhase

    @classmethod
    def of(
        cls, mesh: ipc.CollisionMesh, owner: np.ndarray, x0: np.ndarray, a: int, b: int
    ) -> _FacePair:
        """Bodies a and b of `mesh` (`owner`: its vertices' owners; `x0`: their positions when
        the hierarchies are built)."""
        faces = np.asarray(mesh.faces, dtype=np.int64).reshape(-1, 3)
        bodies = ipc.bodies_of(mesh)
        assert bodies is not None  # pair meshes come from ipc.collision_mesh
        face_owner = owner[faces[:, 0]]
        trees, rows = [], []
        for body in (a, b):
            own = np.flatnonzero(face_owner == body)
            loose = bodies.codim[owner[bodies.codim] == body]
            rows.append(np.concatenate([own, -1 - loose]))
            tree_faces = np.vstack([faces[own], np.repeat(loose[:, None], 3, axis=1)])
            trees.append(FaceTree.of(tree_faces, x0))
        f2e = np.asarray(mesh.faces_to_edges, dtype=np.int64).reshape(-1, 3)
        return cls(trees[0], trees[1], faces, f2e, rows[0], rows[1], bodies)

    def candidates(self, ia: np.ndarray, ib: np.ndarray) -> ipc.Candidates:
        """ipctk's candidates of every primitive pair of the hierarchy face pairs (ia, ib): each
        face with the other's vertices, their edges pairwise; a loose vertex with the other
        face, or with the other loose vertex."""
        ga, gb = self.rows_a[ia], self.rows_b[ib]
        fv = []
        for f, g in ((ga, gb), (gb, ga)):
            both = (f >= 0) & (g >= 0)
            fv.append(np.column_stack([np.repeat(f[both], 3), self.faces[g[both]].ravel()]))
            loose = (f >= 0) & (g < 0)
            fv.append(np.column_stack([f[loose], -1 - g[loose]]))
        both = (ga >= 0) & (gb >= 0)
        ea, eb = self.faces_to_edges[ga[both]], self.faces_to_edges[gb[both]]
        ee = np.column_stack([np.repeat(ea, 3, axis=1).ravel(), np.tile(eb, (1, 3)).ravel()])
        loose = (ga < 0) & (gb < 0)
        vv = np.column_stack([-1 - ga[loose], -1 - gb[loose]])
        return self.bodies.candidates_of(
            _unique_pairs([ee]), _unique_pairs(fv), _unique_pairs([vv])
        )


def _unique_pairs(parts: list[np.ndarray]) -> np.ndarray:
    """The distinct rows of the (k, 2) id pairs in `parts`."""
    pairs = np.concatenate([p.reshape(-1, 2) for p in parts]).astype(np.int64)
    return np.unique(pairs, axis=0) if len(pairs) else pairs
