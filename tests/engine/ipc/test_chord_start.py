"""A time step may start with a chord: Newton's first iterate steps along the factor of the
previous step's last Newton matrix instead of assembling and factorizing its own, when the
previous step converged in one iterate, the objective's structure is unchanged and the chord's
model moves little energy (the lift and hold of a held object: 1 Newton iteration per step at
5-6 ms of assembly and factorization each). Convergence stays that of Newton's method: the
force residual is exact, so a stale matrix can cost iterations but not accuracy beyond the
tolerances. Checked on quadratics E(u) = 1/2 (u - c)^T K (u - c), whose minimiser is c.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from engine.ipc.newton import CHORD_TEST_MAX_STEP, newton_solve
from engine.ipc.pattern_ldl import PatternLdl
from tests.engine.toy_objectives import ToyObjective

TOL_M, FORCE_TOL_N = 1e-7, 1e-3


class Quadratic(ToyObjective):
    """E(u) = 1/2 (u - c)^T K (u - c)."""

    def __init__(self, stiffness: np.ndarray, centre: np.ndarray, structure: object = "a") -> None:
        self.k = np.asarray(stiffness, dtype=float)
        self.c = np.asarray(centre, dtype=float)
        self.kind = structure
        self.assemblies = 0

    def energy(self, u: np.ndarray) -> float:
        d = u - self.c
        return float(0.5 * d @ self.k @ d)

    def gradient(self, u: np.ndarray) -> np.ndarray:
        return np.asarray(self.k @ (u - self.c))

    def gradient_hessian(self, u: np.ndarray, project: bool) -> tuple[np.ndarray, sp.csr_matrix]:
        self.assemblies += 1
        return self.gradient(u), sp.csr_matrix(self.k)


K = np.array([[2e4, 5e3, 0.0], [5e3, 1e4, 0.0], [0.0, 0.0, 3e4]])  # N/m, SPD


def solve(objective: Quadratic, u0: np.ndarray, ldl: PatternLdl, chord: bool = True):
    return newton_solve(objective, u0, TOL_M, 50, ldl, force_tol=FORCE_TOL_N, chord_start=chord)


def first_step(ldl: PatternLdl) -> np.ndarray:
    """A converged one-iterate solve that hands its factor on."""
    first = Quadratic(K, np.zeros(3))
    res = solve(first, np.full(3, 1e-6), ldl)
    assert res.iterations == 1 and first.assemblies == 1
    return res.u


def test_a_quasi_static_step_converges_on_the_previous_steps_factor_without_assembly():
    ldl = PatternLdl()
    u = first_step(ldl)
    # The next step's minimum moved by 0.4 um: a residual of ~8 mN, a chord model energy of
    # ~3e-9 J (below 100 x tol x force_tol = 1e-8 J).
    nxt = Quadratic(K, np.array([4e-7, -3e-7, 2e-7]))
    res = solve(nxt, u, ldl)
    assert nxt.assemblies == 0 and res.iterations == 1
    np.testing.assert_allclose(res.u, nxt.c, atol=1e-12)  # the same matrix: the exact step


def test_without_chord_start_or_with_another_structure_the_step_assembles_its_matrix():
    for chord, kind in ((False, "a"), (True, "b")):
        ldl = PatternLdl()
        u = first_step(ldl)
        nxt = Quadratic(K, np.array([4e-7, -3e-7, 2e-7]), structure=kind)
        res = solve(nxt, u, ldl, chord=chord)
        assert nxt.assemblies == 1 and res.iterations == 1


def test_a_step_that_moves_much_energy_assembles_its_matrix():
    ldl = PatternLdl()
    u = first_step(ldl)
    nxt = Quadratic(K, np.array([1e-4, 0.0, 0.0]))  # 2 N residual: the chord model ~1e-4 J
    res = solve(nxt, u, ldl)
    assert nxt.assemblies == res.iterations >= 1
    np.testing.assert_allclose(res.u, nxt.c, atol=TOL_M)


def test_a_stale_stiffer_matrix_costs_iterations_not_accuracy():
    # The previous step's matrix is 100 x stiffer (a contact that has since let go): its chord
    # steps are 100 x too short, but the exact force residual (20 mN > 1 mN) rejects them.
    ldl = PatternLdl()
    first = Quadratic(100.0 * K, np.zeros(3))
    u = solve(first, np.full(3, 1e-8), ldl).u
    nxt = Quadratic(K, np.array([1e-6, 0.0, 0.0]))
    res = solve(nxt, u, ldl)
    assert nxt.assemblies >= 1
    assert float(np.abs(K @ (res.u - nxt.c)).max()) < FORCE_TOL_N
    np.testing.assert_allclose(res.u, nxt.c, atol=TOL_M)


def test_a_failed_factorization_leaves_no_factor_to_reuse():
    ldl = PatternLdl()
    first_step(ldl)
    assert ldl.last_factor("a") is not None
    assert ldl.factor(sp.csr_matrix(-K)) is None  # indefinite: L and D partly overwritten
    assert ldl.last_factor("a") is None


def test_a_solve_of_several_iterates_does_not_hand_its_factor_on():
    ldl = PatternLdl()
    far = Quadratic(K, np.zeros(3))

    class Capped(Quadratic):
        def max_step(self, u: np.ndarray, du: np.ndarray) -> float:
            return min(1.0, 1e-5 / float(np.abs(du).max()))  # CCD-like: 10 um per iterate

    capped = Capped(K, np.zeros(3))
    res = solve(capped, np.full(3, 5e-5), ldl)
    assert res.iterations > 1
    assert ldl.last_factor("a") is None
    res = solve(far, np.full(3, 1e-9), ldl)
    assert far.assemblies == 1


def test_the_chord_test_follows_only_steps_newton_could_have_converged_with():
    """After a full step, the chord test (the step's factor applied to the new gradient) ends
    the solve when even that next step is below tol. It is tried only after steps of at most
    CHORD_TEST_MAX_STEP x tol: Newton on the incremental potential never shrinks its steps a
    hundredfold in one iterate, so after longer steps the test only cost a gradient and a
    solve. On a quadratic (one exact step reaches the minimum) a 5 um step ends on the test
    with one assembly; after a 50 um step the solve assembles once more to see it converged."""
    assert CHORD_TEST_MAX_STEP * TOL_M == pytest.approx(1e-5)
    for start, assemblies in ((5e-6, 1), (5e-5, 2)):
        quad = Quadratic(K, np.zeros(3))
        res = solve(quad, np.array([start, 0.0, 0.0]), PatternLdl(), chord=False)
        assert quad.assemblies == assemblies == res.iterations
        np.testing.assert_allclose(res.u, quad.c, atol=TOL_M)
