"""The closest faces of two bodies: a box hierarchy over each body's faces and a branch-and-bound
search over both (numba).

CollisionLayout.pair_distance asks how far a pad is from the object before a long closing step.
Listing every primitive pair within that distance (the broad phase contact sets use) grows
with the gap: a Robotiq pad 16 mm from a 16k-face scan meets ~1 M pairs, and the query took
0.14-0.40 s, a third of such a trial. Here each body's faces sit in a hierarchy of
boxes (built once per body, its boxes refitted to the current positions at each query), and
a search over pairs of boxes keeps the smallest distance found so far and skips every pair of
boxes further apart than it: the work follows the few faces near the closest point.

The distances here are this module's own (a face pair's: the smallest of its vertex-face and
edge-edge distances, as ipctk's contact pairs measure); the caller takes the face pairs within
a relative CLOSE_REL of the smallest and lets ipctk measure their primitive pairs, so the
answer is ipctk's to the bit. Where many face pairs tie (a finely meshed flat face exactly
parallel to a pad), all of them are within the margin and go to ipctk, as every pair within
the radius did before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from engine.ipc.primitive_distance import point_triangle_d2, segment_segment_d2

# Faces per leaf of a hierarchy.
LEAF_FACES = 4
# The face pairs a search returns: those within this relative distance of the closest one
# (distances here and ipctk's agree to ~1e-15; the margin only has to cover that).
CLOSE_REL = 1e-6


@dataclass(frozen=True)
class FaceTree:
    """A box hierarchy over faces (rows of `faces`, vertex ids into the positions queried).

    Node k's children are left[k] and right[k] (> k), or it is a leaf (left[k] < 0) holding
    faces order[first[k]:first[k] + count[k]]."""

    faces: np.ndarray
    order: np.ndarray
    left: np.ndarray
    right: np.ndarray
    first: np.ndarray
    count: np.ndarray

    @classmethod
    def of(cls, faces: np.ndarray, x: np.ndarray) -> FaceTree:
        """The hierarchy of `faces` at positions x (n, 3): the faces in Morton order of their
        centroids, each node's range halved (a median split with one sort for the whole tree);
        queries refit its boxes to their positions."""
        faces = np.ascontiguousarray(faces, dtype=np.int64).reshape(-1, 3)
        order = _morton_order(np.asarray(x, dtype=float)[faces].mean(axis=1))
        return cls(faces, order, *_halving_nodes(len(faces), LEAF_FACES))

    def boxes(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every node's box (lo, hi: (nodes, 3)) at positions x."""
        return _refit(
            np.ascontiguousarray(x, dtype=float), self.faces, self.order, self.left,
            self.right, self.first, self.count,
        )  # fmt: skip


def close_face_pairs(
    x: np.ndarray, a: FaceTree, b: FaceTree, radius: float
) -> tuple[np.ndarray, np.ndarray]:
    """(rows of a.faces, rows of b.faces) of the face pairs whose distance at positions x (n, 3)
    is within CLOSE_REL of the smallest one, if that is below `radius` (m) give or take the
    margin (ipctk's measure of their pairs decides); empty otherwise.

    A face pair's distance is the smallest over its vertex-face and edge-edge pairs, so the
    primitive pair closest between the bodies lies in one of the returned face pairs."""
    x = np.ascontiguousarray(x, dtype=float)
    if not len(a.faces) or not len(b.faces):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    lo_a, hi_a = a.boxes(x)
    lo_b, hi_b = b.boxes(x)
    return _closest_pairs(
        x, a.faces, a.order, a.left, a.right, a.first, a.count, lo_a, hi_a,
        b.faces, b.order, b.left, b.right, b.first, b.count, lo_b, hi_b,
        float(radius) ** 2, CLOSE_REL,
    )  # fmt: skip


def _morton_order(centroids: np.ndarray) -> np.ndarray:
    """The centroids' indices in Morton (Z) order: 10 bits per axis over their bounding cube."""
    lo = centroids.min(axis=0)
    span = max(float((centroids.max(axis=0) - lo).max()), 1e-300)
    q = np.clip(((centroids - lo) / span * 1023.0).astype(np.int64), 0, 1023)
    code = np.zeros(len(q), dtype=np.int64)
    for k in range(3):
        v = q[:, k]
        v = (v | (v << 16)) & 0x30000FF
        v = (v | (v << 8)) & 0x300F00F
        v = (v | (v << 4)) & 0x30C30C3
        v = (v | (v << 2)) & 0x9249249
        code |= v << k
    return np.argsort(code, kind="stable").astype(np.int64)


@njit(cache=True)
def _halving_nodes(m: int, leaf: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(left, right, first, count) of the tree that halves the range [0, m) down to `leaf`."""
    size = max(2 * m, 1)
    left = np.full(size, -1, dtype=np.int64)
    right = np.full(size, -1, dtype=np.int64)
    first = np.zeros(size, dtype=np.int64)
    count = np.zeros(size, dtype=np.int64)
    stack = np.empty((size, 3), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, 0, m
    top, nodes = 1, 1
    while top > 0:
        top -= 1
        node, s, e = stack[top, 0], stack[top, 1], stack[top, 2]
        first[node], count[node] = s, e - s
        if e - s <= leaf:
            continue
        mid = (s + e) // 2
        left[node], right[node] = nodes, nodes + 1
        stack[top, 0], stack[top, 1], stack[top, 2] = nodes + 1, mid, e
        stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2] = nodes, s, mid
        top += 2
        nodes += 2
    return left[:nodes].copy(), right[:nodes].copy(), first[:nodes].copy(), count[:nodes].copy()


@njit(cache=True)
def _refit(
    x: np.ndarray,
    faces: np.ndarray,
    order: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    nodes = len(left)
    lo = np.empty((nodes, 3))
    hi = np.empty((nodes, 3))
    for node in range(nodes - 1, -1, -1):
        if left[node] < 0:
            for k in range(3):
                lo[node, k], hi[node, k] = np.inf, -np.inf
            for i in range(first[node], first[node] + count[node]):
                for c in range(3):
                    v = faces[order[i], c]
                    for k in range(3):
                        lo[node, k] = min(lo[node, k], x[v, k])
                        hi[node, k] = max(hi[node, k], x[v, k])
        else:
            l, r = left[node], right[node]
            for k in range(3):
                lo[node, k] = min(lo[l, k], lo[r, k])
                hi[node, k] = max(hi[l, k], hi[r, k])
    return lo, hi


@njit(cache=True)
def _box_d2(
    lo1: np.ndarray, hi1: np.ndarray, i: int, lo2: np.ndarray, hi2: np.ndarray, j: int
) -> float:
    d2 = 0.0
    for k in range(3):
        gap = max(lo1[i, k] - hi2[j, k], lo2[j, k] - hi1[i, k], 0.0)
        d2 += gap * gap
    return d2


@njit(cache=True)
def _face_pair_d2(x: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> float:
    """The smallest squared distance over the vertex-face and edge-edge pairs of faces fa, fb."""
    d2 = np.inf
    for one, other in ((fa, fb), (fb, fa)):
        o0, o1, o2 = other[0], other[1], other[2]
        for k in range(3):
            v = one[k]
            d2 = min(
                d2,
                point_triangle_d2(
                    x[v, 0], x[v, 1], x[v, 2],
                    x[o0, 0], x[o0, 1], x[o0, 2],
                    x[o1, 0], x[o1, 1], x[o1, 2],
                    x[o2, 0], x[o2, 1], x[o2, 2],
                ),
            )  # fmt: skip
    for i in range(3):
        p, q = fa[i], fa[(i + 1) % 3]
        for j in range(3):
            r, t = fb[j], fb[(j + 1) % 3]
            d2 = min(
                d2,
                segment_segment_d2(
                    x[p, 0], x[p, 1], x[p, 2],
                    x[q, 0], x[q, 1], x[q, 2],
                    x[r, 0], x[r, 1], x[r, 2],
                    x[t, 0], x[t, 1], x[t, 2],
                ),
            )  # fmt: skip
    return d2


@njit(cache=True)
def _face_box(x: np.ndarray, face: np.ndarray, lo: np.ndarray, hi: np.ndarray, row: int) -> None:
    for k in range(3):
        a, b, c = x[face[0], k], x[face[1], k], x[face[2], k]
        lo[row, k] = min(a, b, c)
        hi[row, k] = max(a, b, c)


@njit(cache=True)
def _grown(
    a: np.ndarray, b: np.ndarray, d2: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a2 = np.empty(2 * n, dtype=np.int64)
    b2 = np.empty(2 * n, dtype=np.int64)
    d22 = np.empty(2 * n)
    for k in range(n):
        a2[k], b2[k], d22[k] = a[k], b[k], d2[k]
    return a2, b2, d22


@njit(cache=True)
def _grown_stack(stack: np.ndarray, top: int) -> np.ndarray:
    grown = np.empty((2 * stack.shape[0], 2), dtype=np.int64)
    for k in range(top):
        grown[k, 0], grown[k, 1] = stack[k, 0], stack[k, 1]
    return grown


@njit(cache=True)
def _closest_pairs(
    x: np.ndarray,
    faces_a: np.ndarray,
    order_a: np.ndarray,
    left_a: np.ndarray,
    right_a: np.ndarray,
    first_a: np.ndarray,
    count_a: np.ndarray,
    lo_a: np.ndarray,
    hi_a: np.ndarray,
    faces_b: np.ndarray,
    order_b: np.ndarray,
    left_b: np.ndarray,
    right_b: np.ndarray,
    first_b: np.ndarray,
    count_b: np.ndarray,
    lo_b: np.ndarray,
    hi_b: np.ndarray,
    radius2: float,
    rel: float,
) -> tuple[np.ndarray, np.ndarray]:
    widen = (1.0 + rel) ** 2
    best = radius2  # the smallest face-pair distance found (squared), or the radius's
    stack = np.empty((64, 2), dtype=np.int64)
    stack[0, 0], stack[0, 1] = 0, 0
    top = 1
    found_a = np.empty(16, dtype=np.int64)
    found_b = np.empty(16, dtype=np.int64)
    found_d2 = np.empty(16)
    n = 0
    leaf_cap = LEAF_FACES  # b's leaves hold at most this many; row leaf_cap holds a's face
    box_lo = np.empty((leaf_cap + 1, 3))
    box_hi = np.empty((leaf_cap + 1, 3))
    while top > 0:
        top -= 1
        i, j = stack[top, 0], stack[top, 1]
        if _box_d2(lo_a, hi_a, i, lo_b, hi_b, j) > best * widen:
            continue
        leaf_a, leaf_b = left_a[i] < 0, left_b[j] < 0
        if leaf_a and leaf_b:
            # Each face's own box first: most pairs of a leaf pair are further apart than the
            # closest pair found (two near-parallel surfaces keep whole leaves within reach).
            nb = count_b[j]
            for t in range(nb):
                _face_box(x, faces_b[order_b[first_b[j] + t]], box_lo, box_hi, t)
            for p in range(first_a[i], first_a[i] + count_a[i]):
                _face_box(x, faces_a[order_a[p]], box_lo, box_hi, leaf_cap)
                for t in range(nb):
                    if _box_d2(box_lo, box_hi, leaf_cap, box_lo, box_hi, t) > best * widen:
                        continue
                    q = first_b[j] + t
                    d2 = _face_pair_d2(x, faces_a[order_a[p]], faces_b[order_b[q]])
                    if d2 > best * widen:
                        continue
                    if n == len(found_d2):
                        found_a, found_b, found_d2 = _grown(found_a, found_b, found_d2, n)
                    found_a[n], found_b[n], found_d2[n] = order_a[p], order_b[q], d2
                    n += 1
                    best = min(best, d2)
            continue
        if top + 2 > stack.shape[0]:
            stack = _grown_stack(stack, top)
        # Open the larger node (by face count); the nearer child pair is searched first.
        if leaf_b or (not leaf_a and count_a[i] >= count_b[j]):
            _push_nearer_last(stack, top, lo_a, hi_a, lo_b, hi_b, left_a[i], j, right_a[i], j)
        else:
            _push_nearer_last(stack, top, lo_a, hi_a, lo_b, hi_b, i, left_b[j], i, right_b[j])
        top += 2
    # Pairs near the radius are kept too: ipctk's own measure decides which lie within it.
    return _within(found_a, found_b, found_d2, n, best * widen)


@njit(cache=True)
def _push_nearer_last(
    stack: np.ndarray,
    top: int,
    lo_a: np.ndarray,
    hi_a: np.ndarray,
    lo_b: np.ndarray,
    hi_b: np.ndarray,
    i1: int,
    j1: int,
    i2: int,
    j2: int,
) -> None:
    """Push node pairs (i1, j1) and (i2, j2) at stack[top], the one whose boxes are nearer last
    (popped first)."""
    if _box_d2(lo_a, hi_a, i1, lo_b, hi_b, j1) < _box_d2(lo_a, hi_a, i2, lo_b, hi_b, j2):
        i1, j1, i2, j2 = i2, j2, i1, j1
    stack[top, 0], stack[top, 1] = i1, j1
    stack[top + 1, 0], stack[top + 1, 1] = i2, j2


@njit(cache=True)
def _within(
    found_a: np.ndarray, found_b: np.ndarray, found_d2: np.ndarray, n: int, limit: float
) -> tuple[np.ndarray, np.ndarray]:
    """The first n found pairs whose squared distance is at most `limit`."""
    kept = 0
    for k in range(n):
        if found_d2[k] <= limit:
            found_a[kept], found_b[kept] = found_a[k], found_b[k]
            kept += 1
    return found_a[:kept].copy(), found_b[:kept].copy()
