"""Whether boxes placed at a pose meet a mesh: the faces binned on a grid of the mesh's frame
(each in every cell its bounds overlap; faces over many cells kept in a list of their own), and
one compiled pass over the cells each box's bounds overlap that sorts each face there by the
separating-axis test with a margin: apart, meeting, or too close to call in doubles (the
open-gripper check, engine.grasp.sampler, decides those few with its own test; a 16k-face
scan's pose took 1-14 ms with a pass over every face)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

# Cells along the mesh's longest side.
CELLS_ALONG = 48
# A face overlapping more cells than this is kept in the list of large faces, tried against
# every box, instead of in each cell (a CAD part's long sliver would fill thousands).
MAX_CELLS_PER_FACE = 64


@dataclass(frozen=True)
class FaceGrid:
    """A mesh's triangles (m, its frame) binned on a uniform grid by their bounds."""

    tris: np.ndarray  # (n, 3, 3)
    centres: np.ndarray  # (n, 3)
    radii: np.ndarray  # (n,) each face's bounding sphere about its centre
    origin: np.ndarray  # (3,) the grid's lowest corner
    cell_m: float
    dims: np.ndarray  # (3,) cells per axis
    start: np.ndarray  # (cells + 1,) where each cell's faces start in `members`
    members: np.ndarray  # face ids, cell by cell
    large: np.ndarray  # ids of the faces over more than MAX_CELLS_PER_FACE cells

    @classmethod
    def of(cls, vertices: np.ndarray, faces: np.ndarray) -> FaceGrid:
        """The grid of a mesh's faces (vertices (k, 3) m, faces (n, 3))."""
        tris = np.ascontiguousarray(np.asarray(vertices, dtype=np.float64)[faces])
        centres = tris.mean(axis=1)
        radii = np.linalg.norm(tris - centres[:, None], axis=2).max(axis=1)
        lo, hi = tris.min(axis=(0, 1)), tris.max(axis=(0, 1))
        cell = max(float((hi - lo).max()) / CELLS_ALONG, 1e-6)
        dims = np.maximum(1, np.ceil((hi - lo) / cell).astype(np.int64) + 1)
        start, members, large = _bin_faces(tris, lo, cell, dims)
        return cls(tris, centres, radii, lo, cell, dims, start, members, large)

    def meets(
        self, pose: np.ndarray, boxes: np.ndarray, margin_m: float
    ) -> tuple[bool, np.ndarray, np.ndarray]:
        """(True, -, -) when a face surely meets one of `boxes` ((b, 2, 3) lower and upper
        corners in the frame of `pose`, a 4x4 from that frame to the mesh's); else (False,
        faces, their boxes): the faces within margin_m of meeting a box, which need an exact
        test, each with that box's index, by box then face. A face left out is apart from
        every box by more than the rounding of any test in doubles."""
        rot = np.ascontiguousarray(pose[:3, :3], dtype=np.float64)
        t = np.ascontiguousarray(pose[:3, 3], dtype=np.float64)
        return _meets(
            self.tris, self.centres, self.radii, self.origin, self.cell_m, self.dims,
            self.start, self.members, self.large, rot, t,
            np.ascontiguousarray(boxes, dtype=np.float64), float(margin_m),
        )  # fmt: skip


@njit(cache=True)
def _cell_range(
    lo: np.ndarray,
    hi: np.ndarray,
    origin: np.ndarray,
    cell: float,
    dims: np.ndarray,
    spare: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The cells [c0, c1] per axis that the bounds [lo, hi] overlap, `spare` more each side
    (c0 > c1: none). A face is listed in the cells of its bounds; a box looks one cell
    further each side, which covers the rounding of both."""
    c0 = np.empty(3, dtype=np.int64)
    c1 = np.empty(3, dtype=np.int64)
    for a in range(3):
        c0[a] = max(0, int(np.floor((lo[a] - origin[a]) / cell)) - spare)
        c1[a] = min(dims[a] - 1, int(np.floor((hi[a] - origin[a]) / cell)) + spare)
    return c0, c1


@njit(cache=True)
def _bin_faces(
    tris: np.ndarray, origin: np.ndarray, cell: float, dims: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, members, large): each face listed in every cell its bounds overlap, unless
    that is more than MAX_CELLS_PER_FACE cells (then in `large`)."""
    n = len(tris)
    ncell = dims[0] * dims[1] * dims[2]
    counts = np.zeros(ncell + 1, dtype=np.int64)
    lows = np.empty((n, 3), dtype=np.int64)
    highs = np.empty((n, 3), dtype=np.int64)
    is_large = np.zeros(n, dtype=np.bool_)
    for f in range(n):
        lo = np.minimum(np.minimum(tris[f, 0], tris[f, 1]), tris[f, 2])
        hi = np.maximum(np.maximum(tris[f, 0], tris[f, 1]), tris[f, 2])
        c0, c1 = _cell_range(lo, hi, origin, cell, dims, 0)
        lows[f], highs[f] = c0, c1
        if (c1[0] - c0[0] + 1) * (c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1) > MAX_CELLS_PER_FACE:
            is_large[f] = True
            continue
        for i in range(c0[0], c1[0] + 1):
            for j in range(c0[1], c1[1] + 1):
                for k in range(c0[2], c1[2] + 1):
                    counts[(i * dims[1] + j) * dims[2] + k + 1] += 1
    for c in range(ncell):
        counts[c + 1] += counts[c]
    members = np.empty(counts[ncell], dtype=np.int64)
    fill = counts[:-1].copy()
    for f in range(n):
        if is_large[f]:
            continue
        for i in range(lows[f, 0], highs[f, 0] + 1):
            for j in range(lows[f, 1], highs[f, 1] + 1):
                for k in range(lows[f, 2], highs[f, 2] + 1):
                    c = (i * dims[1] + j) * dims[2] + k
                    members[fill[c]] = f
                    fill[c] += 1
    return counts, members, np.flatnonzero(is_large)


@njit(cache=True)
def _meets(
    tris: np.ndarray,
    centres: np.ndarray,
    radii: np.ndarray,
    origin: np.ndarray,
    cell: float,
    dims: np.ndarray,
    start: np.ndarray,
    members: np.ndarray,
    large: np.ndarray,
    rot: np.ndarray,
    t: np.ndarray,
    boxes: np.ndarray,
    margin: float,
) -> tuple[bool, np.ndarray, np.ndarray]:
    n = len(tris)
    seen = np.full(n, -1, dtype=np.int64)
    candidates = np.empty(n, dtype=np.int64)
    unsure = np.empty(n * len(boxes), dtype=np.int64)
    unsure_box = np.empty(n * len(boxes), dtype=np.int64)
    local = np.empty((3, 3))
    count = 0
    for b in range(len(boxes)):
        lo, hi = boxes[b, 0], boxes[b, 1]
        middle, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        # The box's corners in the mesh's frame, their bounds grown by the margin.
        wlo = np.full(3, np.inf)
        whi = np.full(3, -np.inf)
        for i in range(8):
            corner = np.array(
                [hi[0] if i & 1 else lo[0], hi[1] if i & 2 else lo[1], hi[2] if i & 4 else lo[2]]
            )
            w = rot @ corner + t
            wlo = np.minimum(wlo, w - 2.0 * margin)
            whi = np.maximum(whi, w + 2.0 * margin)
        c0, c1 = _cell_range(wlo, whi, origin, cell, dims, 1)
        # The faces listed in those cells, each once, and the large ones.
        near = 0
        for i in range(c0[0], c1[0] + 1):
            for j in range(c0[1], c1[1] + 1):
                for k in range(c0[2], c1[2] + 1):
                    c = (i * dims[1] + j) * dims[2] + k
                    for s in range(start[c], start[c + 1]):
                        f = members[s]
                        if seen[f] != b:
                            seen[f] = b
                            candidates[near] = f
                            near += 1
        candidates[near : near + len(large)] = large
        near += len(large)
        first = count
        for q in range(near):
            f = candidates[q]
            state = _state(
                tris[f], centres[f], radii[f], rot, t, lo, hi, middle, half, margin, local
            )
            if state == 1:
                return True, unsure[:0], unsure_box[:0]
            if state == 2:
                unsure[count] = f
                unsure_box[count] = b
                count += 1
        unsure[first:count] = np.sort(unsure[first:count])
    return False, unsure[:count].copy(), unsure_box[:count].copy()


@njit(cache=True)
def _state(
    tri: np.ndarray,
    centre: np.ndarray,
    radius: float,
    rot: np.ndarray,
    t: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    middle: np.ndarray,
    half: np.ndarray,
    margin: float,
    local: np.ndarray,
) -> int:
    """A face (mesh frame) against the box [lo, hi] (pose frame: x = rot^T (w - t)) of centre
    `middle` and half sizes `half`: 0 apart, 1 meeting, 2 too close to call. Its bounding
    sphere and its corners' bounds, grown by `margin`, first; then the separating-axis test
    (_separation) about the box's centre."""
    r = radius + margin
    for a in range(3):
        x = 0.0
        for b in range(3):
            x += (centre[b] - t[b]) * rot[b, a]
        if x - r > hi[a] or x + r < lo[a]:
            return 0
    for v in range(3):
        for a in range(3):
            x = 0.0
            for b in range(3):
                x += (tri[v, b] - t[b]) * rot[b, a]
            local[v, a] = x
    for a in range(3):
        low = min(local[0, a], min(local[1, a], local[2, a]))
        high = max(local[0, a], max(local[1, a], local[2, a]))
        if low - margin > hi[a] or high + margin < lo[a]:
            return 0
    for v in range(3):
        for a in range(3):
            local[v, a] -= middle[a]
    return _separation(local, half, margin)


@njit(cache=True, inline="always")
def _axis(low: float, high: float, reach: float, tol: float) -> int:
    """A separating-axis test: the triangle's projection [low, high] against the box's
    [-reach, reach], 0 apart, 1 overlapping, 2 within tol of either."""
    if low > reach + tol or high < -reach - tol:
        return 0
    if low > reach - tol or high < -reach + tol:
        return 2
    return 1


@njit(cache=True)
def _separation(p: np.ndarray, h: np.ndarray, margin: float) -> int:
    """The separating-axis test of a triangle (p: its corners relative to the box's centre)
    and a box of half sizes h: 0 apart, 1 meeting, 2 too close to call (some axis within
    the margin, scaled to its products' size). The axes: the box's three, the triangle's
    normal, and each edge crossed with each box axis."""
    size = 0.0
    for v in range(3):
        for a in range(3):
            size = max(size, abs(p[v, a]))
    size += max(h[0], max(h[1], h[2]))
    state = 1
    for a in range(3):
        s = _axis(min(p[0, a], min(p[1, a], p[2, a])), max(p[0, a], max(p[1, a], p[2, a])),
                  h[a], margin)  # fmt: skip
        if s == 0:
            return 0
        if s == 2:
            state = 2
    e = np.empty((3, 3))
    for a in range(3):
        e[0, a] = p[1, a] - p[0, a]
        e[1, a] = p[2, a] - p[1, a]
        e[2, a] = p[0, a] - p[2, a]
    n0 = e[0, 1] * e[1, 2] - e[0, 2] * e[1, 1]
    n1 = e[0, 2] * e[1, 0] - e[0, 0] * e[1, 2]
    n2 = e[0, 0] * e[1, 1] - e[0, 1] * e[1, 0]
    d = n0 * p[0, 0] + n1 * p[0, 1] + n2 * p[0, 2]
    r = abs(n0) * h[0] + abs(n1) * h[1] + abs(n2) * h[2]
    s = _axis(d, d, r, 3.0 * margin * (abs(n0) + abs(n1) + abs(n2) + size * size))
    if s == 0:
        return 0
    if s == 2:
        state = 2
    for i in range(3):
        ex, ey, ez = e[i, 0], e[i, 1], e[i, 2]
        tol = 3.0 * margin * (abs(ex) + abs(ey) + abs(ez) + size)
        # Axes e_i x (unit x, y, z): (0, ez, -ey), (-ez, 0, ex), (ey, -ex, 0).
        for k in range(3):
            lo, hi = np.inf, -np.inf
            for v in range(3):
                x, y, z = p[v, 0], p[v, 1], p[v, 2]
                if k == 0:
                    q = ez * y - ey * z
                elif k == 1:
                    q = ex * z - ez * x
                else:
                    q = ey * x - ex * y
                lo = min(lo, q)
                hi = max(hi, q)
            if k == 0:
                reach = abs(ez) * h[1] + abs(ey) * h[2]
            elif k == 1:
                reach = abs(ez) * h[0] + abs(ex) * h[2]
            else:
                reach = abs(ey) * h[0] + abs(ex) * h[1]
            s = _axis(lo, hi, reach, tol)
            if s == 0:
                return 0
            if s == 2:
                state = 2
    return state
