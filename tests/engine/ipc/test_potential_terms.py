"""A time step's potential is the sum of its terms (engine.ipc.terms.Term): a term added to the
list adds exactly its energy, gradient and Hessian, and the step it admits bounds the step."""

from __future__ import annotations

import numpy as np
import pytest

from engine.ipc.terms import Assembly
from tests.conftest import yumi_cube_simulation

PULL_N = np.array([0.3, -0.2, 0.5])  # a constant force on the object's centre of mass


class _Pull:
    """E = -F . t (t the object's translation): a constant force on the object; its step is
    capped at `cap` to show that a term's max step bounds the potential's."""

    def __init__(self, system, cap: float = 1.0) -> None:
        self.system, self.cap = system, cap

    def _full(self) -> np.ndarray:
        g = np.zeros(self.system.ndof)
        g[self.system.obj_dof.start : self.system.obj_dof.start + 3] = -PULL_N
        return g

    def value(self, u):
        return float(self._full() @ u)

    def add_gradient(self, u, out: Assembly) -> None:
        out.add_full_gradient(self._full())

    def add_gradient_hessian(self, u, project, out: Assembly) -> None:
        out.add_full_gradient(self._full())  # linear: no curvature

    def max_step(self, u, du_free, du):
        return self.cap

    def begin(self, u):
        pass

    def accept(self, u):
        return False

    def structure(self):
        return None


@pytest.fixture(scope="module")
def potentials():
    """The first squeeze step's potential of the YuMi cube trial, and the same with _Pull."""
    sim = yumi_cube_simulation()
    stepper = sim.stepper
    st = stepper.state
    base = stepper._potential(st, stepper.settings.time_step_s, None, None)
    pulled = stepper._potential(st, stepper.settings.time_step_s, None, None)
    pulled.terms.append(_Pull(sim.system, cap=0.25))
    u = st.u.copy()
    for p in (base, pulled):
        p.begin(u)
    return sim, base, pulled, u


def test_a_term_adds_its_energy_gradient_and_nothing_to_the_hessian(potentials):
    sim, base, pulled, u = potentials
    pull = _Pull(sim.system)
    assert pulled.energy(u) == pytest.approx(base.energy(u) + pull.value(u), rel=0, abs=1e-15)
    g0, h0 = base.gradient_hessian(u, project=False)
    g1, h1 = pulled.gradient_hessian(u, project=False)
    extra = base.reduction.restrict(pull._full())
    np.testing.assert_allclose(g1 - g0, extra, rtol=0, atol=1e-12)
    assert abs(h1.tocsr() - h0.tocsr()).max() == 0.0
    np.testing.assert_allclose(pulled.gradient(u) - base.gradient(u), extra, rtol=0, atol=1e-12)
    # The object's translation unknowns carry the pull, nothing else does.
    obj = base.reduction.index[sim.system.obj_dof.start : sim.system.obj_dof.start + 3]
    np.testing.assert_allclose(extra[obj], -PULL_N)
    assert np.count_nonzero(extra) == 3


def test_the_smallest_max_step_of_the_terms_bounds_the_step(potentials):
    _, base, pulled, u = potentials
    du = np.zeros(base.reduction.n)
    assert base.max_step(u, du) == 1.0
    assert pulled.max_step(u, du) == 0.25
