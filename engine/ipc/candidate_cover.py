"""Broad-phase candidates reused while the bodies stay near where they were found.

A broad phase is most of a contact-set build (0.6-0.8 ms of 0.7-0.9 ms on the REACH cube
scenes). `CandidateCover` keeps one with the per-vertex boxes inside which it still holds every
pair a contact set or a CCD query needs, so later queries run the narrow phase only, over the
pairs near enough to matter (engine.ipc.near_pairs).

Distances between bodies do not change when every vertex moves by one common translation, so
a cover also holds positions that such a translation brings inside its boxes: a lift raises
the pads and the object together by a millimetre per time step while their contacts move by
microns. The ground is not translated; an upward (or level) translation only moves vertices
away from it, so its pairs stay held too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.near_pairs import NearPairs


@dataclass(frozen=True)
class CandidateCover:
    """Broad-phase candidates that hold every pair closer than dhat at any positions whose
    vertices all stay inside per-vertex boxes [lo, hi] (m), possibly after one common
    translation with no downward part, and every pair CCD must check on a straight move
    between two such positions.

    Built over a move x0 -> x1 with boxes inflated by dhat / 2 + margin (two boxes inflated by
    dhat / 2 meet for pairs within dhat) and planes reached within dhat + margin (a vertex's
    box meets a plane only within its own inflation): a vertex within `margin` of its box over
    the move keeps every primitive's box at a query inside that primitive's inflated swept
    box. Newton's later iterates of a time step move by far less than dhat, so
    one broad phase serves the step's CCD queries and line-search contact sets until an
    iterate leaves the cover.

    A move between two positions that translations t0 and t1 bring inside the boxes is, pair
    by pair, the move between the translated positions (the translation along the move is
    t0 + s (t1 - t0), common to every vertex), which stays inside the boxes (they are convex).
    """

    lo: np.ndarray  # (n, 3) m
    hi: np.ndarray  # (n, 3) m
    # The pairs as id arrays that queries prune (engine.ipc.near_pairs), or ipctk's candidates
    # where its LBVH built them (the body broad phase found too many, or the mesh has no bodies).
    pairs: NearPairs | ipc.Candidates

    @classmethod
    def of_move(
        cls, mesh: ipc.CollisionMesh, x0: np.ndarray, x1: np.ndarray, dhat: float, margin: float
    ) -> CandidateCover:
        """The cover of the move x0 -> x1 (n, 3) with `margin` (m) of room around it."""
        found = ipc.swept_candidate_pairs(mesh, x0, x1, 0.5 * dhat + margin, dhat + margin)
        if isinstance(found, ipc.Candidates):
            pairs: NearPairs | ipc.Candidates = found
        else:
            bodies, ids = found
            pairs = NearPairs(bodies, ids, dhat)
        inner = margin * (1.0 - 1e-6)  # round-off of the boxes' inflation stays inside
        return cls(np.minimum(x0, x1) - inner, np.maximum(x0, x1) + inner, pairs)

    @classmethod
    def holding(
        cls,
        cover: CandidateCover | None,
        mesh: ipc.CollisionMesh,
        x0: np.ndarray,
        x1: np.ndarray,
        dhat: float,
        margin: float,
    ) -> CandidateCover:
        """`cover` if it holds the move x0 -> x1, else a new cover of that move with `margin`
        (m) of room around it."""
        if cover is not None and cover.holds(x0, x1):
            return cover
        return cls.of_move(mesh, x0, x1, dhat, margin)

    @property
    def candidates(self) -> ipc.Candidates:
        """Every pair of the cover, as ipctk's candidates."""
        return self.pairs.all() if isinstance(self.pairs, NearPairs) else self.pairs

    def within(self, x: np.ndarray, radius: float) -> ipc.Candidates:
        """Candidates holding every pair closer than `radius` (m, at most the cover's dhat)
        at covered positions x (n, 3)."""
        return self.pairs.within(x, radius) if isinstance(self.pairs, NearPairs) else self.pairs

    def ccd_candidates(self, x0: np.ndarray, x1: np.ndarray) -> ipc.Candidates:
        """Candidates holding every pair additive CCD can stop on along the held move
        x0 -> x1: its step over them is its step over all the cover's pairs."""
        if isinstance(self.pairs, NearPairs):
            return self.pairs.may_stop(x0, x1)
        return self.pairs

    def covers(self, x: np.ndarray) -> bool:
        """Whether every vertex of x (n, 3) lies inside its box, as it is or after the common
        translation that brings the vertices' mean to the boxes' mean (its upward part kept
        only: a downward translation would bring vertices nearer the ground than any held)."""
        if _inside(x, self.lo, self.hi):
            return True
        shift = (x - 0.5 * (self.lo + self.hi)).mean(axis=0)
        shift[2] = max(shift[2], 0.0)
        return _inside(x - shift, self.lo, self.hi)

    def holds(self, x0: np.ndarray, x1: np.ndarray) -> bool:
        """Whether both ends of the move x0 -> x1 are covered (then every point of it is)."""
        return self.covers(x0) and self.covers(x1)


@njit(cache=True)
def _inside(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool:
    # A loop that stops at the first vertex outside: np.all over both comparisons cost
    # ~15 us per call, and a trial asks ~600 times.
    for i in range(x.shape[0]):
        for k in range(3):
            v = x[i, k]
            if not (v >= lo[i, k] and v <= hi[i, k]):  # NaN is outside
                return False
    return True
