"""Newton's two shortcuts for the grip-strength test's load steps (engine.grasp.disturbance):

- `watch`: a solve stops at the first iterate the caller's test flags (an object already
  sliding away: the rest of the iterations would only resolve the slide), and a watch that
  never fires changes nothing;
- `first_factor`: objectives that differ by a linear term only (another load on the same start)
  share their Hessian, so a kept first factor gives the same first iterate without an
  assembly: the same minimiser in the same iterations.

Checked on E(u) = sum_i k_i u_i^2 / 2 + b u_i^4 / 4 - f . u, a stiffening spring under a load f
(its minimiser solves k u + b u^3 = f), which Newton takes several iterates to minimise.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from engine.ipc.newton import Hints, newton_solve
from engine.ipc.pattern_ldl import PatternLdl
from tests.engine.toy_objectives import ToyObjective

TOL_M, FORCE_TOL_N = 1e-9, 1e-6


class Quartic(ToyObjective):
    """sum_i k_i u_i^2 / 2 + b u_i^4 / 4 - f . u, counting its Hessian assemblies."""

    def __init__(self, k: np.ndarray, b: float, load: np.ndarray) -> None:
        self.k, self.b, self.f = np.asarray(k, dtype=float), b, np.asarray(load, dtype=float)
        self.assemblies = 0

    def energy(self, u: np.ndarray) -> float:
        return float((0.5 * self.k * u**2 + 0.25 * self.b * u**4 - self.f * u).sum())

    def gradient(self, u: np.ndarray) -> np.ndarray:
        return np.asarray(self.k * u + self.b * u**3 - self.f)

    def gradient_hessian(self, u: np.ndarray, project: bool) -> tuple[np.ndarray, sp.csr_matrix]:
        self.assemblies += 1
        return self.gradient(u), sp.csr_matrix(np.diag(self.k + 3 * self.b * u**2))


K = np.array([1.0, 2.0, 3.0])  # N/m
B = 1e4  # N/m^3
START = np.full(3, 0.01)
LOAD = np.array([1250.0, -640.0, 270.0])  # N: minimiser near (0.5, -0.4, 0.3), far from START


def solve(objective: Quartic, ldl: PatternLdl | None = None, **hints):
    return newton_solve(
        objective,
        START,
        TOL_M,
        100,
        ldl or PatternLdl(),
        force_tol=FORCE_TOL_N,
        hints=Hints(**hints),
    )


def balanced(objective: Quartic, u: np.ndarray) -> bool:
    return bool(np.abs(objective.gradient(u)).max() < FORCE_TOL_N)


def test_a_watched_solve_stops_at_the_first_iterate_the_watch_flags():
    plain = solve(Quartic(K, B, LOAD))
    assert plain.iterations >= 5 and not plain.stopped
    assert balanced(Quartic(K, B, LOAD), plain.u)
    path: list[float] = []  # each iterate's largest |u_i|, as a watch sees them
    solve(Quartic(K, B, LOAD), watch=lambda u: path.append(float(np.abs(u).max())) is not None)
    first_out = next(k for k, x in enumerate(path, start=1) if x > 0.1)
    assert first_out < plain.iterations - 1  # the test below stops early
    watched = solve(Quartic(K, B, LOAD), watch=lambda u: bool(np.abs(u).max() > 0.1))
    assert watched.stopped
    assert watched.iterations == first_out  # iterates 1..first_out were taken, no more
    assert np.abs(watched.u).max() > 0.1


def test_a_watch_that_never_fires_changes_nothing():
    plain = solve(Quartic(K, B, LOAD))
    watched = solve(Quartic(K, B, LOAD), watch=lambda u: False)
    assert not watched.stopped and watched.iterations == plain.iterations
    np.testing.assert_array_equal(watched.u, plain.u)


def test_a_kept_first_factor_serves_another_load_from_the_same_start():
    first = solve(Quartic(K, B, LOAD), keep_first=True)
    assert first.first_factor is not None
    other = 0.7 * LOAD
    fresh = Quartic(K, B, other)
    reference = solve(fresh)
    reused = Quartic(K, B, other)
    res = solve(reused, first_factor=first.first_factor)
    assert res.iterations == reference.iterations
    np.testing.assert_array_equal(res.u, reference.u)  # the same matrix: the same iterates
    assert balanced(reused, res.u)
    assert reused.assemblies == fresh.assemblies - 1  # the first iterate assembled nothing


def test_the_kept_factor_outlives_the_next_factorization():
    ldl = PatternLdl()
    kept = solve(Quartic(K, B, LOAD), ldl, keep_first=True).first_factor
    assert kept is not None
    rhs = np.array([1.0, 2.0, 3.0])
    before = kept.solve(rhs)
    np.testing.assert_allclose(before, rhs / (K + 3 * B * START**2), rtol=1e-12)  # at START
    solve(Quartic(2 * K, B, -LOAD), ldl)  # refactorizes the same pattern with other numbers
    np.testing.assert_array_equal(kept.solve(rhs), before)
