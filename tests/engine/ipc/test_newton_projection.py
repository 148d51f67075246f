"""Newton's PSD projection is a fallback per iterate: where the exact Hessian of the incremental
potential is indefinite (an edge-edge contact pair, a compressed pad element), Newton projects
for that iterate and tries the exact Hessian again on the next one, where it usually factorizes
(on the 98-vertex Table V cube 9 of 112 iterates failed, while projecting for the rest of the
time step made 70 of them projected). Checked on a double well, E(x, y) = (x^2 - 1)^2 + y^2,
whose Hessian 12 x^2 - 4 is negative for |x| < 1/sqrt(3) and positive beyond."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from engine.ipc.newton import newton_solve
from engine.ipc.pattern_ldl import PatternLdl
from tests.engine.toy_objectives import ToyObjective


class DoubleWell(ToyObjective):
    """E(x, y) = (x^2 - 1)^2 + y^2."""

    def __init__(self) -> None:
        self.requests: list[bool] = []

    def energy(self, u: np.ndarray) -> float:
        return float((u[0] ** 2 - 1.0) ** 2 + u[1] ** 2)

    def gradient(self, u: np.ndarray) -> np.ndarray:
        return np.array([4.0 * u[0] * (u[0] ** 2 - 1.0), 2.0 * u[1]])

    def gradient_hessian(self, u: np.ndarray, project: bool) -> tuple[np.ndarray, sp.csr_matrix]:
        self.requests.append(project)
        hxx = 12.0 * u[0] ** 2 - 4.0
        if project:
            hxx = max(hxx, 1e-8)  # the clamp of a 1x1 block's eigenvalue
        return self.gradient(u), sp.csr_matrix(np.diag([hxx, 2.0]))

    def max_step(self, u: np.ndarray, du: np.ndarray) -> float:
        # At most 0.3 per iterate, like CCD stopping a step at a contact.
        return min(1.0, 0.3 / float(np.abs(du).max()))


@pytest.mark.parametrize("ldl", [None, PatternLdl()], ids=["factor_spd", "PatternLdl"])
def test_an_indefinite_iterate_is_projected_and_the_next_ones_try_the_exact_hessian(ldl):
    well = DoubleWell()
    # From x = 0.2 the exact Hessian is indefinite (12 * 0.04 - 4 < 0) until x > 0.577.
    res = newton_solve(well, np.array([0.2, 0.5]), tol=1e-12, max_iterations=50, ldl=ldl)
    np.testing.assert_allclose(res.u, [1.0, 0.0], atol=1e-10)  # the minimum at x = 1
    exact_tries = [p for p in well.requests if not p]
    assert len(exact_tries) == res.iterations  # every iterate asked for the exact Hessian first
    projected = well.requests.count(True)
    assert projected >= 1  # the indefinite start was projected
    # Once past the inflection point the exact Hessian factorizes: no more projections, so
    # Newton converges quadratically on the exact Hessian.
    assert projected < res.iterations
