"""A broad phase between bodies: the primitive pairs of different bodies whose boxes overlap.

ipctk's LBVH (engine.ipc.ipctk_gateway) builds a hierarchy over every primitive of the mesh
for each query: ~5 ms per query on the cut of a 16k-face scan, a fifth of a trial's time
(benchmarks/results/real_mesh_profile.md). Here only primitives that can meet another body
take part: each body's primitives whose boxes reach another body's box (the pads' few
hundred, and the part of the object between them), paired by sweep and prune along the axis
where their boxes spread most. The candidates are ipctk's for the same move: edge-edge and
face-vertex pairs of different bodies (ipctk's vertex-patch filter) whose boxes, swept over
the move and inflated by the radius (rounded outward, as ipctk rounds), overlap; vertex-vertex
pairs of codimensional vertices (no edge) of different bodies; and plane-vertex pairs of each
vertex within the radius of a plane at either end of the move (a radius of its own: a pair of
boxes inflated by r each reaches pairs within 2 r, a vertex's box a plane only within r). The
intersection test pairs edges and faces of different bodies the same way.
"""

from __future__ import annotations

from collections.abc import Callable

import ipctk
import numpy as np
from numba import njit

# Handing candidates to ipctk costs ~0.5 us each (a Python object apiece), its LBVH ~0.45 us
# per primitive of the mesh: beyond this many candidates per primitive the LBVH is sooner
# (a cover of a 16k-face scan's cut: ~450 candidates over 14,500 primitives, 0.7 against 4.6
# ms; a 235 N grip of a coarse CAD part: ~8,400 over 5,200, 4.6 against 2.3 ms).
CANDIDATES_PER_PRIMITIVE = 0.9


# Candidates a pool keeps before it starts afresh (~150 bytes each).
POOL_MAX = 100_000


class _CandidatePool(dict[int, object]):
    """ipctk candidate objects by their id pair, made once: ipctk copies a list's candidates
    into its own arrays, so one object serves every build that finds its pair (a pybind11
    object takes ~1.1 us to make, a lookup ~65 ns; a REACH cube trial hands ipctk ~26,000
    candidates over ~110 builds, mostly the same pairs again)."""

    def __init__(self, make: Callable[[int, int], object], stride: int) -> None:
        super().__init__()
        self.make = make
        self.stride = stride  # keys are first id * stride + second id

    def __missing__(self, key: int) -> object:
        first, second = divmod(key, self.stride)
        made = self[key] = self.make(first, second)
        return made

    def take(self, pairs: np.ndarray) -> list:
        """The candidates of the id pairs (k, 2), in their order."""
        if len(self) > POOL_MAX:
            self.clear()
        keys = pairs[:, 0] * self.stride + pairs[:, 1]
        return list(map(self.__getitem__, keys.tolist()))


class BodyBroadPhase:
    """The primitives of a collision mesh by body: its edges and faces (rows of the mesh's,
    in its order), each vertex's body, and its planes."""

    def __init__(
        self, edges: np.ndarray, faces: np.ndarray, owner: np.ndarray, planes: list
    ) -> None:
        """`edges`, `faces`: the collision mesh's (its ids); `owner`: each vertex's body (vertices
        of one body never pair); `planes`: the mesh's ipctk.Hyperplane list."""
        self.edges = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
        self.faces = np.ascontiguousarray(faces, dtype=np.int64).reshape(-1, 3)
        self.owner = np.ascontiguousarray(owner, dtype=np.int64)
        self.planes = list(planes)
        in_edge = np.zeros(len(self.owner), dtype=bool)
        in_edge[self.edges.ravel()] = True
        self.codim = np.flatnonzero(~in_edge).astype(np.int64)
        if len(self.planes):
            self.plane_normals = np.array(
                [np.asarray(p.normal(), dtype=float) for p in self.planes]
            )
            self.plane_origins = np.array(
                [np.asarray(p.origin(), dtype=float) for p in self.planes]
            )
        else:
            self.plane_normals = self.plane_origins = np.zeros((0, 3))
        n = max(len(self.owner), 1)
        planes = self.planes
        self._pools = (
            _CandidatePool(ipctk.EdgeEdgeCandidate, max(len(self.edges), 1)),
            _CandidatePool(ipctk.FaceVertexCandidate, n),
            _CandidatePool(ipctk.VertexVertexCandidate, n),
            _CandidatePool(lambda k, v: ipctk.PlaneVertexCandidate(planes[k], v), n),
        )

    def too_many(self, pairs: tuple[np.ndarray, ...]) -> bool:
        """Whether ipctk's LBVH would build these pairs' candidates sooner than they are
        handed over (CANDIDATES_PER_PRIMITIVE)."""
        found = sum(len(p) for p in pairs)
        return found > CANDIDATES_PER_PRIMITIVE * (
            len(self.owner) + len(self.edges) + len(self.faces)
        )

    def candidates_of(
        self,
        ee: np.ndarray,
        fv: np.ndarray,
        vv: np.ndarray | None = None,
        pv: np.ndarray | None = None,
    ) -> ipctk.Candidates:
        """ipctk's candidates of id pairs: edge-edge, (face, vertex), vertex-vertex and
        (plane, vertex), each (k, 2)."""
        vv = np.zeros((0, 2), dtype=np.int64) if vv is None else vv
        pv = np.zeros((0, 2), dtype=np.int64) if pv is None else pv
        c = ipctk.Candidates()
        if len(ee):
            c.ee_candidates = self._pools[0].take(ee)
        if len(fv):
            c.fv_candidates = self._pools[1].take(fv)
        if len(vv):
            c.vv_candidates = self._pools[2].take(vv)
        if len(pv):
            c.pv_candidates = self._pools[3].take(pv)
        return c

    def drop_own_pairs(self, candidates: ipctk.Candidates) -> None:
        """Remove the vertex-vertex candidates of one body's own vertices from candidates
        ipctk built (its codim filter's defect, engine.ipc.ipctk_gateway workaround 4)."""
        vv = candidates.vv_candidates  # a copy of ipctk's list
        own = self.owner
        kept = [c for c in vv if own[c.vertex0_id] != own[c.vertex1_id]]
        if len(kept) != len(vv):
            candidates.vv_candidates = kept

    def has_intersections(self, x: np.ndarray) -> bool:
        """Whether an edge of one body crosses a face of another at x (n, 3): ipctk's
        has_intersections, its boxes inflated by the same 1e-6 of the bounding box's diagonal.

        A pair whose edge ends lie strictly on one side of the face's plane, or whose line
        passes beside the triangle, cannot cross: orientation tests with Shewchuk's error bound
        rule most pairs out exactly, and the rest go to ipctk's own edge-triangle test."""
        x = np.ascontiguousarray(x, dtype=float)
        radius = 1e-6 * float(np.linalg.norm(x.max(axis=0) - x.min(axis=0)))
        pairs = _may_cross(
            x,
            self.edges,
            self.faces,
            _edge_face_pairs(x, radius, self.edges, self.faces, self.owner),
        )
        for e, f in pairs.tolist():
            a, b = self.edges[e]
            i, j, k = self.faces[f]
            if ipctk.is_edge_intersecting_triangle(x[a], x[b], x[i], x[j], x[k]):
                return True
        return False

    def pairs(
        self, x0: np.ndarray, x1: np.ndarray, radius: float, plane_radius: float | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every pair of different bodies' primitives whose boxes, swept over the straight move
        x0 -> x1 (n, 3) and inflated by `radius` (m), overlap, and every vertex within
        `plane_radius` (default `radius`) of a plane at either end (ipctk's Candidates.build of
        that move, which has one radius for both), as id arrays: edge-edge (k, 2), face-vertex
        (k, 2), vertex-vertex (k, 2), (plane, vertex) (k, 2)."""
        x0 = np.ascontiguousarray(x0, dtype=float)
        x1 = np.ascontiguousarray(x1, dtype=float)
        planes = float(radius if plane_radius is None else plane_radius)
        return _pairs(
            x0, x1, float(radius), planes, self.edges, self.faces, self.owner, self.codim,
            self.plane_normals, self.plane_origins,
        )  # fmt: skip


@njit(cache=True)
def _push(buf: np.ndarray, n: int, a: int, b: int) -> np.ndarray:
    if n == buf.shape[0]:
        grown = np.empty((2 * buf.shape[0] + 16, 2), dtype=np.int64)
        grown[:n] = buf[:n]
        buf = grown
    buf[n, 0] = a
    buf[n, 1] = b
    return buf


@njit(cache=True)
def _element_boxes(
    lo: np.ndarray, hi: np.ndarray, elements: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    m, k = elements.shape
    elo = np.empty((m, 3))
    ehi = np.empty((m, 3))
    for i in range(m):
        for d in range(3):
            a = lo[elements[i, 0], d]
            b = hi[elements[i, 0], d]
            for j in range(1, k):
                a = min(a, lo[elements[i, j], d])
                b = max(b, hi[elements[i, j], d])
            elo[i, d] = a
            ehi[i, d] = b
    return elo, ehi


@njit(cache=True)
def _reaching(
    elo: np.ndarray, ehi: np.ndarray, body: np.ndarray, own: int, blo: np.ndarray, bhi: np.ndarray
) -> np.ndarray:
    """Ids of body `own`'s elements whose boxes overlap the box [blo, bhi]."""
    out = np.empty(elo.shape[0], dtype=np.int64)
    n = 0
    for i in range(elo.shape[0]):
        if body[i] != own:
            continue
        inside = True
        for d in range(3):
            if elo[i, d] > bhi[d] or ehi[i, d] < blo[d]:
                inside = False
                break
        if inside:
            out[n] = i
            n += 1
    return out[:n]


@njit(cache=True)
def _overlaps_on_other_axes(
    alo: np.ndarray, ahi: np.ndarray, i: int, blo: np.ndarray, bhi: np.ndarray, j: int, axis: int
) -> bool:
    for d in range(3):
        if d != axis and (alo[i, d] > bhi[j, d] or ahi[i, d] < blo[j, d]):
            return False
    return True


@njit(cache=True)
def _bodies_apart(body_lo: np.ndarray, body_hi: np.ndarray, a: int, b: int) -> bool:
    """Whether the boxes of bodies a and b are apart along an axis (an empty body's is)."""
    for d in range(3):
        if body_lo[a, d] > body_hi[b, d] or body_lo[b, d] > body_hi[a, d]:
            return True
    return False


@njit(cache=True)
def _sweep(
    alo: np.ndarray,
    ahi: np.ndarray,
    a_ids: np.ndarray,
    blo: np.ndarray,
    bhi: np.ndarray,
    b_ids: np.ndarray,
    out: np.ndarray,
    n: int,
) -> tuple[np.ndarray, int]:
    """Append (a, b) for every box a of a_ids and b of b_ids that overlap: sweep and prune
    along the axis where the boxes' lower corners spread most. An overlapping pair has b's
    lower end within [a.lo, a.hi] or a's within (b.lo, b.hi] along that axis, never both, so
    each pair is found once."""
    if len(a_ids) == 0 or len(b_ids) == 0:
        return out, n
    axis, spread = 0, -1.0
    for d in range(3):
        lo_d, hi_d = np.inf, -np.inf
        for i in a_ids:
            lo_d = min(lo_d, alo[i, d])
            hi_d = max(hi_d, alo[i, d])
        for j in b_ids:
            lo_d = min(lo_d, blo[j, d])
            hi_d = max(hi_d, blo[j, d])
        s = hi_d - lo_d
        if s > spread:
            axis, spread = d, s
    a_sorted = a_ids[np.argsort(alo[a_ids, axis], kind="mergesort")]
    b_sorted = b_ids[np.argsort(blo[b_ids, axis], kind="mergesort")]
    a_keys = alo[a_sorted, axis]
    b_keys = blo[b_sorted, axis]
    for i in a_sorted:
        k = np.searchsorted(b_keys, alo[i, axis], side="left")
        while k < len(b_sorted) and b_keys[k] <= ahi[i, axis]:
            j = b_sorted[k]
            if _overlaps_on_other_axes(alo, ahi, i, blo, bhi, j, axis):
                out = _push(out, n, i, j)
                n += 1
            k += 1
    for j in b_sorted:
        k = np.searchsorted(a_keys, blo[j, axis], side="right")
        while k < len(a_sorted) and a_keys[k] <= bhi[j, axis]:
            i = a_sorted[k]
            if _overlaps_on_other_axes(alo, ahi, i, blo, bhi, j, axis):
                out = _push(out, n, i, j)
                n += 1
            k += 1
    return out, n


@njit(cache=True)
def _boxes(
    x0: np.ndarray,
    x1: np.ndarray,
    radius: float,
    edges: np.ndarray,
    faces: np.ndarray,
    owner: np.ndarray,
) -> tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
    np.ndarray, np.ndarray, np.ndarray, np.ndarray,
]:  # fmt: skip
    """Boxes over the move x0 -> x1 inflated by radius and rounded outward (ipctk's
    conservative inflation): each vertex's, edge's and face's (lo, hi), each edge's and face's
    body, and each body's box."""
    nv = x0.shape[0]
    lo = np.empty((nv, 3))
    hi = np.empty((nv, 3))
    for i in range(nv):
        for d in range(3):
            lo[i, d] = np.nextafter(min(x0[i, d], x1[i, d]) - radius, -np.inf)
            hi[i, d] = np.nextafter(max(x0[i, d], x1[i, d]) + radius, np.inf)
    elo, ehi = _element_boxes(lo, hi, edges)
    flo, fhi = _element_boxes(lo, hi, faces)
    e_body = np.empty(edges.shape[0], dtype=np.int64)
    for i in range(edges.shape[0]):
        e_body[i] = owner[edges[i, 0]]
    f_body = np.empty(faces.shape[0], dtype=np.int64)
    for i in range(faces.shape[0]):
        f_body[i] = owner[faces[i, 0]]
    n_bodies = 0
    for i in range(nv):
        n_bodies = max(n_bodies, owner[i] + 1)
    body_lo = np.full((n_bodies, 3), np.inf)
    body_hi = np.full((n_bodies, 3), -np.inf)
    for i in range(nv):
        for d in range(3):
            body_lo[owner[i], d] = min(body_lo[owner[i], d], lo[i, d])
            body_hi[owner[i], d] = max(body_hi[owner[i], d], hi[i, d])
    return lo, hi, elo, ehi, flo, fhi, e_body, f_body, body_lo, body_hi


@njit(cache=True)
def _pairs(
    x0: np.ndarray,
    x1: np.ndarray,
    radius: float,
    plane_radius: float,
    edges: np.ndarray,
    faces: np.ndarray,
    owner: np.ndarray,
    codim: np.ndarray,
    plane_normals: np.ndarray,
    plane_origins: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    nv = x0.shape[0]
    lo, hi, elo, ehi, flo, fhi, e_body, f_body, body_lo, body_hi = _boxes(
        x0, x1, radius, edges, faces, owner
    )
    n_bodies = body_lo.shape[0]
    codim_mark = np.zeros(nv, dtype=np.bool_)
    for v in codim:
        codim_mark[v] = True
    ee = np.empty((64, 2), dtype=np.int64)
    fv = np.empty((64, 2), dtype=np.int64)
    vv = np.empty((16, 2), dtype=np.int64)
    n_ee = n_fv = n_vv = 0
    for a in range(n_bodies):
        for b in range(a + 1, n_bodies):
            if _bodies_apart(body_lo, body_hi, a, b):
                continue
            ea = _reaching(elo, ehi, e_body, a, body_lo[b], body_hi[b])
            eb = _reaching(elo, ehi, e_body, b, body_lo[a], body_hi[a])
            ee, n_ee = _sweep(elo, ehi, ea, elo, ehi, eb, ee, n_ee)
            va = _reaching(lo, hi, owner, a, body_lo[b], body_hi[b])
            vb = _reaching(lo, hi, owner, b, body_lo[a], body_hi[a])
            fa = _reaching(flo, fhi, f_body, a, body_lo[b], body_hi[b])
            fb = _reaching(flo, fhi, f_body, b, body_lo[a], body_hi[a])
            fv, n_fv = _sweep(flo, fhi, fa, lo, hi, vb, fv, n_fv)
            fv, n_fv = _sweep(flo, fhi, fb, lo, hi, va, fv, n_fv)
            ca = va[codim_mark[va]]
            cb = vb[codim_mark[vb]]
            vv, n_vv = _sweep(lo, hi, ca, lo, hi, cb, vv, n_vv)
    pv = np.empty((16, 2), dtype=np.int64)
    n_pv = 0
    for k in range(plane_normals.shape[0]):
        for i in range(nv):
            d0 = 0.0
            d1 = 0.0
            for d in range(3):
                d0 += plane_normals[k, d] * (x0[i, d] - plane_origins[k, d])
                d1 += plane_normals[k, d] * (x1[i, d] - plane_origins[k, d])
            if d0 < plane_radius or d1 < plane_radius:
                pv = _push(pv, n_pv, k, i)
                n_pv += 1
    return ee[:n_ee], fv[:n_fv], vv[:n_vv], pv[:n_pv]


@njit(cache=True)
def _edge_face_pairs(
    x: np.ndarray, radius: float, edges: np.ndarray, faces: np.ndarray, owner: np.ndarray
) -> np.ndarray:
    """(edge, face) of different bodies whose boxes at x, inflated by radius, overlap."""
    _, _, elo, ehi, flo, fhi, e_body, f_body, body_lo, body_hi = _boxes(
        x, x, radius, edges, faces, owner
    )
    n_bodies = body_lo.shape[0]
    ef = np.empty((64, 2), dtype=np.int64)
    n = 0
    for a in range(n_bodies):
        for b in range(n_bodies):
            if a == b or _bodies_apart(body_lo, body_hi, a, b):
                continue
            ea = _reaching(elo, ehi, e_body, a, body_lo[b], body_hi[b])
            fb = _reaching(flo, fhi, f_body, b, body_lo[a], body_hi[a])
            ef, n = _sweep(elo, ehi, ea, flo, fhi, fb, ef, n)
    return ef[:n]


# Shewchuk's bound on orient3d's round-off (Robust Adaptive Floating-Point Geometric
# Predicates, 1997): a determinant larger than this times its permanent has its sign.
_EPS = 2.0**-53
_O3D_ERRBOUND = (7.0 + 56.0 * _EPS) * _EPS


@njit(cache=True)
def _orient3d_sign(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> int:
    """The sign of orient3d(a, b, c, d) where round-off cannot flip it, else 0 (unknown or
    coplanar)."""
    adx, ady, adz = a[0] - d[0], a[1] - d[1], a[2] - d[2]
    bdx, bdy, bdz = b[0] - d[0], b[1] - d[1], b[2] - d[2]
    cdx, cdy, cdz = c[0] - d[0], c[1] - d[1], c[2] - d[2]
    bdxcdy, cdxbdy = bdx * cdy, cdx * bdy
    cdxady, adxcdy = cdx * ady, adx * cdy
    adxbdy, bdxady = adx * bdy, bdx * ady
    det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady)
    permanent = (
        (abs(bdxcdy) + abs(cdxbdy)) * abs(adz)
        + (abs(cdxady) + abs(adxcdy)) * abs(bdz)
        + (abs(adxbdy) + abs(bdxady)) * abs(cdz)
    )
    bound = _O3D_ERRBOUND * permanent
    if det > bound:
        return 1
    if -det > bound:
        return -1
    return 0


@njit(cache=True)
def _may_cross(x: np.ndarray, edges: np.ndarray, faces: np.ndarray, ef: np.ndarray) -> np.ndarray:
    """The (edge, face) pairs of `ef` whose edge may cross the face: all but those whose edge
    ends lie strictly on one side of the face's plane, or whose line passes a side of the
    triangle (its orientations against the three sides differ), each where round-off cannot
    have decided it."""
    keep = np.zeros(ef.shape[0], dtype=np.bool_)
    for k in range(ef.shape[0]):
        e, f = ef[k, 0], ef[k, 1]
        p, q = x[edges[e, 0]], x[edges[e, 1]]
        a, b, c = x[faces[f, 0]], x[faces[f, 1]], x[faces[f, 2]]
        s0 = _orient3d_sign(a, b, c, p)
        s1 = _orient3d_sign(a, b, c, q)
        if s0 != 0 and s0 == s1:
            continue
        o1 = _orient3d_sign(p, q, a, b)
        o2 = _orient3d_sign(p, q, b, c)
        o3 = _orient3d_sign(p, q, c, a)
        if o1 != 0 and o2 != 0 and o3 != 0 and not (o1 == o2 and o2 == o3):
            continue
        keep[k] = True
    return ef[keep]
