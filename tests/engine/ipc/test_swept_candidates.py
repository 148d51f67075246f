"""One broad phase (engine.ipc.candidate_cover.CandidateCover: swept over a Newton step's move, with room
around it) serves the CCD queries and line-search contact sets of the time step while the
iterates stay covered. Contact sets built from it must give what a full build gives (the same
barrier energy, gradient and closest distance): every pair within dhat at a covered position,
the ground's included (workaround 1 of engine.ipc.ipctk_gateway), is a candidate; pairs that
stay further apart inside the cover are not. The CCD answer is the plain query's."""

from __future__ import annotations

import numpy as np
import pytest

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.candidate_cover import CandidateCover
from engine.ipc.contact_term import ContactTerm

DHAT = 1e-4


def _two_triangles(gap_m: float) -> tuple[ipc.CollisionMesh, np.ndarray]:
    """A triangle at z = 0.01 and a second one gap_m above it (different bodies), no ground."""
    tri = np.array([[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.01, 0.0]])
    x = np.vstack([tri, tri + np.array([0.002, 0.002, gap_m])])
    x[:, 2] += 0.01
    faces = np.array([[0, 1, 2], [3, 4, 5]])
    return ipc.collision_mesh(x, faces, np.array([0, 0, 0, 1, 1, 1]), ground=False), x


def test_pairs_entering_the_barrier_zone_mid_move_are_candidates():
    # The upper triangle falls from 5 dhat to 0.5 dhat: its pairs come within the candidates'
    # 2 dhat only after 2/3 of the move, and the plain swept boxes (no inflation) of the first
    # third of the move never overlap.
    mesh, x0 = _two_triangles(5 * DHAT)
    x1 = x0.copy()
    x1[3:, 2] -= 4.5 * DHAT
    candidates = ipc.swept_candidates(mesh, x0, x1, DHAT)
    for a in np.linspace(0.0, 1.0, 11):
        x = x0 + a * (x1 - x0)
        _assert_same_barrier(ipc.active_collisions_among(candidates, mesh, x, DHAT), mesh, x)
    assert ipc.barrier(DHAT, 1.0)(ipc.active_collisions(mesh, x1, DHAT), mesh, x1) > 0
    # The test can fail: candidates of the first third of the move miss the end's pairs.
    early = ipc.swept_candidates(mesh, x0, x0 + (x1 - x0) / 3.0, DHAT)
    with pytest.raises(AssertionError):
        _assert_same_barrier(ipc.active_collisions_among(early, mesh, x1, DHAT), mesh, x1)
    assert ipc.candidates_stepsize(candidates, mesh, x0, x1) == ipc.collision_free_stepsize(
        mesh, x0, x1
    )


def _assert_same_barrier(got: ipc.NormalCollisions, mesh: ipc.CollisionMesh, x: np.ndarray) -> None:
    """got gives the barrier energy, gradient and closest distance of a full build at x."""
    dhat = DHAT
    direct = ipc.active_collisions(mesh, x, dhat)
    barrier = ipc.barrier(dhat, 1.0)
    assert barrier(got, mesh, x) == pytest.approx(barrier(direct, mesh, x), rel=1e-12, abs=0)
    np.testing.assert_allclose(
        barrier.gradient(got, mesh, x), barrier.gradient(direct, mesh, x), rtol=1e-12, atol=0
    )
    # To round-off as the energy: the closest pair may come as another primitive pair type
    # (REACH grasp 5: 9.654200917761734e-10 against ...685e-10 m^2).
    assert ipc.minimum_squared_distance(got, mesh, x) == pytest.approx(
        ipc.minimum_squared_distance(direct, mesh, x), rel=1e-12, abs=0
    )


def test_positions_near_the_move_are_covered_and_their_pairs_are_candidates():
    # The move ends 1.8 dhat apart; 0.9 dhat further down, inside the cover (margin dhat), the
    # triangles are 0.9 dhat apart: pairs a build over the move alone would not hold.
    mesh, x0 = _two_triangles(2.3 * DHAT)
    x1 = x0.copy()
    x1[3:, 2] -= 0.5 * DHAT
    cover = CandidateCover.of_move(mesh, x0, x1, DHAT, DHAT)
    inside = x1.copy()
    inside[3:, 2] -= 0.9 * DHAT
    assert cover.covers(x0) and cover.covers(x1) and cover.covers(inside)
    assert len(ipc.active_collisions(mesh, inside, DHAT)) > 0
    _assert_same_barrier(
        ipc.active_collisions_among(cover.candidates, mesh, inside, DHAT), mesh, inside
    )
    # The test can fail: the move's own candidates for pairs within dhat (boxes inflated by
    # dhat / 2, no margin) miss those pairs.
    bare = ipc.swept_candidates(mesh, x0, x1, 0.5 * DHAT)
    with pytest.raises(AssertionError):
        _assert_same_barrier(ipc.active_collisions_among(bare, mesh, inside, DHAT), mesh, inside)
    # The upper triangle 2.5 dhat sideways: 1.25 dhat from its box after the common
    # translation that centres the vertices, and the lower one as far the other way.
    outside = x1.copy()
    outside[3:, 0] += 2.5 * DHAT
    assert not cover.covers(outside)
    # One vertex 1.5 dhat sideways: 1.25 dhat after the common translation that centres the
    # six vertices (0.25 dhat), so no translation brings it inside.
    sideways = x0.copy()
    sideways[0, 0] += 1.5 * DHAT
    assert not cover.covers(sideways)


@pytest.mark.slow
def test_line_search_contact_sets_from_the_step_equal_full_builds(monkeypatch):
    """On a real squeeze and lift (REACH cube grasp 5), every contact set taken from a step's
    candidates (the line search's, and the next step's first one in ContactTerm.begin when its
    initial guess lies in the last cover) equals a full build at the same positions, and so does
    every CCD answer, to round-off (the line search's and, through ContactTerm.covered_stepsize or the guess
    cover of a move the last cover does not hold, the next step's initial guesses')."""
    from engine.grasp.params import SimulationParams
    from engine.grasp.trials import TrialSpec, plan_trials, run_trial
    from tests.conftest import reach_scene

    obj, grasp = reach_scene(5)
    (nominal,) = plan_trials(grasp, TrialSpec())
    params = SimulationParams.from_values(youngs_modulus_pa=1e8, mu=0.4, auto_open_m=0.02)
    checked = {"sets": 0, "ccd": 0, "plain ccd": 0}
    among, stepsize, plain = (
        ipc.active_collisions_among,
        ipc.candidates_stepsize,
        ipc.collision_free_stepsize,
    )

    inside = []  # non-empty within candidates_stepsize (whose fallback is the plain query)

    def counted_plain(mesh, x0, x1):
        checked["plain ccd"] += not inside
        return plain(mesh, x0, x1)

    def checked_among(candidates, mesh, x, dhat):
        assert dhat == DHAT
        got = among(candidates, mesh, x, dhat)
        _assert_same_barrier(got, mesh, x)
        checked["sets"] += 1
        return got

    def checked_stepsize(candidates, mesh, x0, x1):
        inside.append(True)
        got = stepsize(candidates, mesh, x0, x1)
        inside.pop()
        # The plain query's step, or (a stop in the move's first half, taken from the
        # candidates) the same to round-off.
        want = plain(mesh, x0, x1)
        assert got == want or (got < ipc.PLAIN_CCD_ABOVE and got == pytest.approx(want, rel=1e-9))
        checked["ccd"] += 1
        return got

    monkeypatch.setattr(ipc, "active_collisions_among", checked_among)
    monkeypatch.setattr(ipc, "candidates_stepsize", checked_stepsize)
    monkeypatch.setattr(ipc, "collision_free_stepsize", counted_plain)
    result = run_trial(obj, nominal, params)
    assert result.reason == "lifted", result.error
    assert checked["sets"] > 50 and checked["ccd"] > 10, checked
    # Every CCD of the trial, the initial guesses' included, is answered from a cover (the
    # last step's, or the guess cover of GraspSimulation._stepsize).
    assert checked["plain ccd"] == 0, checked
    assert ContactTerm  # the term under test takes these through engine.ipc.ipctk_gateway


def test_a_cover_holds_positions_translated_together_but_never_down_towards_the_ground():
    """Distances between bodies do not change under a common translation, and an upward or
    level one only moves vertices away from the ground: a cover holds such positions (a lift
    raises pads and object by ~1 mm per step, 10 dhat). A downward one would bring vertices
    to the ground that no candidate pairs with it."""
    tri = np.array([[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.01, 0.0]])
    x = np.vstack([tri, tri + np.array([0.002, 0.002, 3 * DHAT])])
    x[:, 2] += 5 * DHAT  # the lower triangle 5 dhat above the ground, the upper 3 dhat above it
    faces = np.array([[0, 1, 2], [3, 4, 5]])
    mesh = ipc.collision_mesh(x, faces, np.array([0, 0, 0, 1, 1, 1]), ground=True)
    cover = CandidateCover.of_move(mesh, x, x, DHAT, DHAT)
    lifted = x + np.array([1e-3, -2e-3, 1e-2])
    lifted[3:, 2] -= 1.8 * DHAT  # and the upper triangle 1.8 dhat nearer: 1.2 dhat apart
    assert cover.covers(lifted)
    _assert_same_barrier(
        ipc.active_collisions_among(cover.candidates, mesh, lifted, DHAT), mesh, lifted
    )
    # A move between two covered, differently translated positions: the plain CCD's answer.
    closer = x + np.array([0.0, 0.0, 2e-2])
    closer[3:, 2] -= 1.95 * DHAT  # 1.05 dhat apart
    assert cover.holds(lifted, closer)
    _assert_same_barrier(
        ipc.active_collisions_among(cover.candidates, mesh, closer, DHAT), mesh, closer
    )
    assert ipc.candidates_stepsize(
        cover.candidates, mesh, lifted, closer
    ) == ipc.collision_free_stepsize(mesh, lifted, closer)
    # Lowered by 4.5 dhat: the lower triangle 0.5 dhat above the ground, whose pairs the cover's
    # candidates lack (the test can fail), so it must not hold these positions.
    lowered = x - np.array([0.0, 0.0, 4.5 * DHAT])
    assert ipc.barrier(DHAT, 1.0)(ipc.active_collisions(mesh, lowered, DHAT), mesh, lowered) > 0
    with pytest.raises(AssertionError):
        _assert_same_barrier(
            ipc.active_collisions_among(cover.candidates, mesh, lowered, DHAT), mesh, lowered
        )
    assert not cover.covers(lowered)


def test_a_cover_holds_the_grounds_pairs_within_dhat_and_no_pairs_beyond_it():
    """A vertex that comes 0.95 dhat above the ground inside the cover (margin dhat), from
    1.9 dhat at the move's end, is a candidate: the plane is reached within dhat + margin, not
    only within a box's inflation for pairs of primitives (dhat / 2 + margin); two triangles
    that stay 0.3 dhat further apart than dhat + 2 margin inside it are not."""
    tri = np.array([[0, 1, 2]], dtype=np.int32)
    x0 = np.array([[0.0, 0.0, 2.4 * DHAT], [0.01, 0.0, 0.01], [0.0, 0.01, 0.01]])
    mesh = ipc.collision_mesh(x0, tri, np.zeros(3, dtype=np.int32), ground=True)
    x1 = x0.copy()
    x1[0, 2] = 1.9 * DHAT
    cover = CandidateCover.of_move(mesh, x0, x1, DHAT, DHAT)
    inside = x1.copy()
    inside[0, 2] = 0.95 * DHAT
    assert cover.covers(inside)
    _assert_same_barrier(
        ipc.active_collisions_among(cover.candidates, mesh, inside, DHAT), mesh, inside
    )
    assert len(ipc.active_collisions(mesh, inside, DHAT)) == 1
    # The test can fail: planes reached only within a box's inflation miss the pair.
    narrow = ipc.swept_candidates(mesh, x0, x1, 1.5 * DHAT, 1.5 * DHAT)
    with pytest.raises(AssertionError):
        _assert_same_barrier(ipc.active_collisions_among(narrow, mesh, inside, DHAT), mesh, inside)

    far, y0 = _two_triangles(3.3 * DHAT)  # dhat + 2 margin + 0.3 dhat apart
    far_cover = CandidateCover.of_move(far, y0, y0, DHAT, DHAT)
    assert len(far_cover.candidates) == 0
    assert len(CandidateCover.of_move(far, y0, y0, DHAT, 1.2 * DHAT).candidates) > 0
