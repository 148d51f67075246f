"""The candidate pairs of a broad phase that a contact set or a CCD query can need.

A CandidateCover's broad phase holds every pair that comes within dhat anywhere inside its
boxes, so Newton's iterates reuse it; but near a grip most of its pairs are far from touching.
A 235 N grip of a 16k-face scan: ~6,600 pairs for ~300 contacts, ~11,000 for a CCD query
that stops on none of them, and ipctk measures each one on every query (0.9 and 2.8 ms).
Here each edge-edge and face-vertex pair's distance is measured once (its gap), and a query
hands ipctk only the pairs that can matter:

- a contact set at x within radius r: the pairs whose gap, less twice the largest move of a
  vertex since the gaps were measured, is below r (a pair's distance changes by at most the
  sum of its vertices' moves; a common translation changes no distance between bodies);
- a CCD query x0 -> x1 (additive CCD, Li et al. 2021): the pairs additive CCD can stop on. It
  rules out a pair in its first step when 0.9 d > l_p, with d the pair's distance at x0 and
  l_p the sum of the two primitives' largest moves about the pair's mean move (ipctk 1.6.1,
  additive_ccd.cpp), which is at most 4 times the largest move about any common vector.

Both keep every pair that could change ipctk's answer, in the broad phase's order, so the
contact set (its pairs and their order) and the step are ipctk's over all pairs, to the bit.
The bounds are widened by SLACK_REL: far above the round-off of the distances here and of
ipctk's. Vertex-vertex and plane-vertex pairs (few) are always kept.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.ipc.body_broad_phase import BodyBroadPhase
from engine.ipc.ipctk_gateway import Candidates
from engine.ipc.primitive_distance import point_triangle_d2, segment_segment_d2

# The gaps are measured again once a vertex has moved by more than this share of the scale
# (the cover's dhat) since they were: the bounds loosen by twice that move.
REMEASURE_SHARE = 0.125
# Relative widening of every bound (distances here and ipctk's agree to ~1e-15; a nearly
# parallel edge pair's line distance in ipctk to ~1e-6 above its parallel threshold).
SLACK_REL = 1e-3
# Additive CCD's conservative rescaling (ipctk's default): its first step is 0.9 d / l_p.
ACCD_RESCALING = 0.9
# Above this share of all pairs, a query gets all of them (one ipctk object, made once)
# instead of a new subset (a Python object per pair).
SUBSET_MAX_SHARE = 0.5
# A broad phase of fewer pairs is handed over whole: ipctk measures a pair in ~0.1 us (CCD
# ~0.25 us), and a pruned query's bounds and subset cost ~40-60 us.
PRUNE_MIN_PAIRS = 500


class NearPairs:
    """A broad phase's candidate pairs as id arrays, with the gaps that prune them per query."""

    def __init__(
        self,
        bodies: BodyBroadPhase,
        pairs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        scale_m: float,
    ) -> None:
        """`pairs`: edge-edge, (face, vertex), vertex-vertex and (plane, vertex) id pairs of
        `bodies`' mesh; `scale_m`: the distances queries ask about (dhat)."""
        self.bodies = bodies
        self.ee, self.fv, self.vv, self.pv = pairs
        self.scale_m = float(scale_m)
        # The vertices of the edge-edge and face-vertex pairs (their moves bound the gaps'),
        # found at the first query.
        self._vertices: np.ndarray | None = None
        self._x_ref: np.ndarray | None = None
        self._gap_ee = np.zeros(0)
        self._gap_fv = np.zeros(0)
        self._all: Candidates | None = None
        # The last subset handed out: its edge-edge and face-vertex masks, size, candidates.
        self._last: tuple[np.ndarray, np.ndarray, int, Candidates] | None = None

    def __len__(self) -> int:
        return len(self.ee) + len(self.fv) + len(self.vv) + len(self.pv)

    def all(self) -> Candidates:
        """Every pair, as ipctk's candidates (made once)."""
        if self._all is None:
            self._all = self.bodies.candidates_of(self.ee, self.fv, self.vv, self.pv)
        return self._all

    def within(self, x: np.ndarray, radius: float) -> Candidates:
        """The pairs that may be closer than `radius` (m) at positions x (n, 3)."""
        if len(self) < PRUNE_MIN_PAIRS:
            return self.all()
        moved = self._moved_since_measured(x)
        return self._nearer_than((radius + 2.0 * moved) * (1.0 + SLACK_REL))

    def may_stop(self, x0: np.ndarray, x1: np.ndarray) -> Candidates:
        """The pairs additive CCD may stop on along the straight move x0 -> x1 (n, 3)."""
        if len(self) < PRUNE_MIN_PAIRS:
            return self.all()
        moved = self._moved_since_measured(x0)
        step = float(_largest_relative_move(x1, x0, self._pair_vertices()))
        return self._nearer_than((2.0 * moved + 4.0 * step / ACCD_RESCALING) * (1.0 + SLACK_REL))

    def _moved_since_measured(self, x: np.ndarray) -> float:
        """The largest move (m) of a vertex about a common translation since the gaps were
        measured; they are measured at x (0) when that is over REMEASURE_SHARE of the scale."""
        x = np.ascontiguousarray(x, dtype=float)
        if self._x_ref is not None:
            moved = float(_largest_relative_move(x, self._x_ref, self._pair_vertices()))
            if moved <= REMEASURE_SHARE * self.scale_m:
                return moved
        b = self.bodies
        self._gap_ee, self._gap_fv = _gaps(x, b.edges, b.faces, self.ee, self.fv)
        self._x_ref = x.copy()
        return 0.0

    def _pair_vertices(self) -> np.ndarray:
        if self._vertices is None:
            b = self.bodies
            self._vertices = _vertices_of(len(b.owner), b.edges, b.faces, self.ee, self.fv)
        return self._vertices

    def _nearer_than(self, limit: float) -> Candidates:
        """The pairs whose gap is at most `limit` (m), or a superset of them in the same order
        (the last subset, while it holds them all and is at most twice as large)."""
        ee = self._gap_ee <= limit
        fv = self._gap_fv <= limit
        kept = int(ee.sum()) + int(fv.sum()) + len(self.vv) + len(self.pv)
        if kept > SUBSET_MAX_SHARE * len(self):
            return self.all()
        last = self._last
        if (
            last is not None
            and last[2] <= 2 * kept
            and not (ee & ~last[0]).any()
            and not (fv & ~last[1]).any()
        ):
            return last[3]
        subset = self.bodies.candidates_of(self.ee[ee], self.fv[fv], self.vv, self.pv)
        self._last = (ee, fv, kept, subset)
        return subset


@njit(cache=True)
def _gaps(
    x: np.ndarray, edges: np.ndarray, faces: np.ndarray, ee: np.ndarray, fv: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each edge-edge and face-vertex pair's distance (m) at x."""
    gee = np.empty(len(ee))
    for k in range(len(ee)):
        a, b = edges[ee[k, 0], 0], edges[ee[k, 0], 1]
        c, d = edges[ee[k, 1], 0], edges[ee[k, 1], 1]
        gee[k] = np.sqrt(
            segment_segment_d2(
                x[a, 0], x[a, 1], x[a, 2], x[b, 0], x[b, 1], x[b, 2],
                x[c, 0], x[c, 1], x[c, 2], x[d, 0], x[d, 1], x[d, 2],
            )
        )  # fmt: skip
    gfv = np.empty(len(fv))
    for k in range(len(fv)):
        p, q, r = faces[fv[k, 0], 0], faces[fv[k, 0], 1], faces[fv[k, 0], 2]
        v = fv[k, 1]
        gfv[k] = np.sqrt(
            point_triangle_d2(
                x[v, 0], x[v, 1], x[v, 2], x[p, 0], x[p, 1], x[p, 2],
                x[q, 0], x[q, 1], x[q, 2], x[r, 0], x[r, 1], x[r, 2],
            )
        )  # fmt: skip
    return gee, gfv


@njit(cache=True)
def _vertices_of(
    n: int, edges: np.ndarray, faces: np.ndarray, ee: np.ndarray, fv: np.ndarray
) -> np.ndarray:
    """The ids of the vertices of the edge-edge and face-vertex pairs (of n vertices)."""
    seen = np.zeros(n, dtype=np.bool_)
    for k in range(len(ee)):
        for j in range(2):
            seen[edges[ee[k, j], 0]] = True
            seen[edges[ee[k, j], 1]] = True
    for k in range(len(fv)):
        for j in range(3):
            seen[faces[fv[k, 0], j]] = True
        seen[fv[k, 1]] = True
    return np.flatnonzero(seen)


@njit(cache=True)
def _largest_relative_move(x: np.ndarray, x_ref: np.ndarray, vertices: np.ndarray) -> float:
    """The largest distance (m) of one of `vertices` from its reference position, about no
    common translation or about their mean move, whichever gives less."""
    n = len(vertices)
    if n == 0:
        return 0.0
    mean = np.zeros(3)
    for i in vertices:
        for k in range(3):
            mean[k] += x[i, k] - x_ref[i, k]
    mean /= n
    plain = 0.0
    about_mean = 0.0
    for i in vertices:
        s0 = 0.0
        s1 = 0.0
        for k in range(3):
            d = x[i, k] - x_ref[i, k]
            s0 += d * d
            s1 += (d - mean[k]) * (d - mean[k])
        plain = max(plain, s0)
        about_mean = max(about_mean, s1)
    return np.sqrt(min(plain, about_mean))
