"""A CandidateCover hands ipctk only the pairs a query can need (engine.ipc.near_pairs): a pair's
distance changes by at most the sum of its vertices' moves (and not at all under a common
translation), and additive CCD stops on no pair with 0.9 d > l_p. The contact sets built from
those pairs must be the full cover's: the same pairs in the same order, so the same barrier
energy to the bit; the CCD step must be the full cover's, to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.candidate_cover import CandidateCover
from engine.ipc.near_pairs import NearPairs

DHAT = 1e-4
PAD_VERTICES = 25  # _scene's pad: the last vertices


def _sheet(n: int, size: float, z: float, shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """A flat n x n grid of squares (two triangles each), size m wide, at height z."""
    s = np.linspace(0.0, size, n + 1) + shift
    gx, gy = np.meshgrid(s, s, indexing="ij")
    x = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)])
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    v = (i * (n + 1) + j).ravel()
    faces = np.vstack(
        [np.column_stack([v, v + n + 1, v + 1]), np.column_stack([v + 1, v + n + 1, v + n + 2])]
    )
    return x, faces


def _scene(rng: np.random.Generator) -> tuple[ipc.CollisionMesh, np.ndarray]:
    """A finely meshed sheet (a scan's surface) with a coarser one (a pad) tilted onto it: one
    edge 0.1 to 1 dhat above it, the other 2 dhat higher; the vertices jittered; the ground."""
    obj, f_obj = _sheet(40, 0.02, 0.002)
    pad, f_pad = _sheet(4, 0.004, 0.002 + 0.5 * DHAT, shift=0.008)
    pad[:, 2] += 2.0 * DHAT * (pad[:, 0] - pad[:, 0].min()) / 0.004  # tilted: one edge lifted
    obj[:, 2] += rng.uniform(-0.4, 0.0, len(obj)) * DHAT
    pad[:, 2] += rng.uniform(0.0, 0.4, len(pad)) * DHAT
    x = np.vstack([obj, pad])
    faces = np.vstack([f_obj, f_pad + len(obj)])
    owner = np.repeat([0, 1], [len(obj), len(pad)])
    return ipc.collision_mesh(x, faces, owner, ground=True), x


def _pair_ids(collisions: ipc.NormalCollisions, mesh: ipc.CollisionMesh) -> list[tuple[int, ...]]:
    return [tuple(np.asarray(c.vertex_ids(mesh.edges, mesh.faces))) for c in collisions]


def _inside(
    cover: CandidateCover, x: np.ndarray, rng: np.random.Generator, size: float
) -> np.ndarray:
    """x with each vertex moved at random by up to `size` (m), kept inside the cover's boxes."""
    y = x + rng.uniform(-size, size, x.shape)
    return np.clip(y, cover.lo, cover.hi)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_contact_sets_from_the_near_pairs_are_the_whole_covers_to_the_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mesh, x = _scene(rng)
    cover = CandidateCover.of_move(mesh, x, x, DHAT, DHAT)
    assert isinstance(cover.pairs, NearPairs)
    barrier = ipc.barrier(DHAT, 1.0)
    pruned = 0
    for step in range(12):
        # Moves up to the cover's margin (the gaps are measured again), and small ones (a
        # converging Newton solve: the gaps measured before, less the moves) that press the
        # pad by a tenth of dhat.
        if step % 3 == 0:
            y = _inside(cover, x, rng, 0.6 * DHAT)
        else:
            y = _inside(cover, x, rng, 0.005 * DHAT)
            y[-PAD_VERTICES:, 2] -= 0.1 * DHAT * (step % 3 - 1)
        y[:, 2] += rng.uniform(0.0, 0.3) * DHAT  # a common lift: no distance between bodies changes
        assert cover.covers(y)
        near = cover.within(y, DHAT)
        whole = ipc.active_collisions_among(cover.candidates, mesh, y, DHAT)
        got = ipc.active_collisions_among(near, mesh, y, DHAT)
        assert len(whole) > 0
        assert _pair_ids(got, mesh) == _pair_ids(whole, mesh)
        assert barrier(got, mesh, y) == barrier(whole, mesh, y)
        pruned += len(near.ee_candidates) + len(near.fv_candidates) < len(
            cover.candidates.ee_candidates
        ) + len(cover.candidates.fv_candidates)
    assert pruned >= 3  # the small moves' queries left pairs out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_ccd_step_over_the_near_pairs_is_the_whole_covers_to_the_bit(seed: int) -> None:
    rng = np.random.default_rng(10 + seed)
    mesh, x = _scene(rng)
    cover = CandidateCover.of_move(mesh, x, x, DHAT, DHAT)
    stopped = pruned = 0
    for step in range(12):
        x0 = _inside(cover, x, rng, 0.01 * DHAT)
        # Jitters of 0.1 to 10 um, the pad pressed down onto the sheet by up to 0.95 dhat.
        x1 = x0 + rng.uniform(-1.0, 1.0, x0.shape) * 1e-7 * 10 ** (step % 3)
        x1[-PAD_VERTICES:, 2] -= 0.95 * DHAT * (step % 4) / 3
        x1 = np.clip(x1, cover.lo, cover.hi)
        assert cover.holds(x0, x1)
        near = cover.ccd_candidates(x0, x1)
        alpha = ipc.candidates_stepsize(near, mesh, x0, x1)
        assert alpha == ipc.candidates_stepsize(cover.candidates, mesh, x0, x1)
        stopped += alpha < 1.0
        pruned += len(near.ee_candidates) < len(cover.candidates.ee_candidates)
    assert stopped >= 3 and pruned >= 3  # both kinds of queries were asked


def test_the_bounds_can_fail_a_query_that_ignores_the_moves_loses_pairs() -> None:
    # The contact set after a move of the pad towards the sheet, from the gaps measured before
    # it without the moves' allowance: pairs that came within dhat are missing.
    rng = np.random.default_rng(5)
    mesh, x = _scene(rng)
    cover = CandidateCover.of_move(mesh, x, x, DHAT, DHAT)
    near = cover.pairs
    assert isinstance(near, NearPairs)
    near.within(x, DHAT)
    gap_ee, gap_fv = near._gap_ee.copy(), near._gap_fv.copy()  # measured at x
    y = x.copy()
    y[-PAD_VERTICES:, 2] -= 0.3 * DHAT
    whole = ipc.active_collisions_among(cover.candidates, mesh, y, DHAT)
    assert _pair_ids(ipc.active_collisions_among(near.within(y, DHAT), mesh, y, DHAT), mesh) == (
        _pair_ids(whole, mesh)
    )
    # The pairs within dhat by the gaps at x alone, no allowance for the move.
    ee, fv = gap_ee <= DHAT, gap_fv <= DHAT
    stale = near.bodies.candidates_of(near.ee[ee], near.fv[fv], near.vv, near.pv)
    assert len(ipc.active_collisions_among(stale, mesh, y, DHAT)) < len(whole)
