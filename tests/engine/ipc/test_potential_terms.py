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


def test_the_step_norm_is_the_largest_vertex_move_to_the_bit(potentials):
    """Newton's step norm (Reduction.largest_move, one numba pass) is the largest move of a
    collision vertex (J dz) or a pad vertex (the expanded full-DOF step), as numpy computes
    it, to the bit: position-driven plates and force-driven ones (the closing coordinate moves
    the glued vertices), steps of every scale, and one that moves a single pad DOF only."""
    from engine.ipc.reduction import Reduction

    sim, _, _, _ = potentials
    s = sim.system

    def numpy_norm(r: Reduction, dz: np.ndarray) -> float:
        dx = (r.jacobian @ dz).reshape(-1, 3)
        pad_dx = r.expand(dz)[: s.obj_dof.start].reshape(-1, 3)
        return float(max(np.sqrt((dx * dx).sum(1)).max(), np.sqrt((pad_dx * pad_dx).sum(1)).max()))

    rng = np.random.default_rng(5)
    for r in (Reduction(s), Reduction(s, sim.stepper.close_dir)):
        for scale in (1e-9, 1e-5, 1e-2):
            dz = rng.normal(0.0, scale, r.n)
            assert r.largest_move(dz).hex() == numpy_norm(r, dz).hex()
        interior = np.zeros(r.n)
        interior[0] = 3e-4  # a pad DOF
        assert r.largest_move(interior) == numpy_norm(r, interior) == 3e-4
        if r.force_driven:
            closing = np.zeros(r.n)
            closing[r.s_index] = 1e-4  # the glued back faces move, nothing else
            assert r.largest_move(closing) == numpy_norm(r, closing) > 0.0


def test_collision_vertices_are_scipys_product_to_the_bit(potentials):
    """GraspSystem.collision_vertices (engine.ipc.sparse_products.stacked_positions, from J's
    structure) is scipy's J @ u to the bit, for the trial's state and for states of every
    scale, a non-contiguous u and negative zeros included; and csr_times is scipy's product on
    random matrices, unsorted and repeated columns too."""
    import scipy.sparse as sp

    from engine.ipc.sparse_products import csr_times

    sim, _, _, u = potentials
    s = sim.system
    rng = np.random.default_rng(9)
    states = [u, u + rng.normal(0.0, 1e-3, u.shape), rng.normal(0.0, 1e3, u.shape)]
    states.append(np.repeat(states[1], 2)[::2])  # a strided view
    signed = np.where(rng.random(u.shape) < 0.3, -0.0, states[1])  # 0.0 + 1.0 * -0.0 is 0.0
    states.append(signed)
    for state in states:
        want = (s.jacobian @ state).reshape(-1, 3)
        got = s.collision_vertices(state)
        np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))
    for trial in range(10):
        m = sp.random(40, 30, density=0.2, random_state=trial, format="csr")
        if trial % 2:  # columns unsorted within rows, some repeated
            m = sp.csr_matrix((m.data[::-1], m.indices[::-1] % 7, m.indptr), shape=m.shape)
        v = rng.normal(0.0, 10.0 ** (trial - 5), 30)
        np.testing.assert_array_equal(csr_times(m, v).view(np.int64), (m @ v).view(np.int64))


def test_pads_share_their_rest_data_but_never_their_kept_hessians():
    """Both pads of a grasp, and every system built from the same pad mesh (a batch's trials),
    share the mesh's rest data and Hessian pattern (read-only, made once); each pad of each
    system keeps its own element Hessians, which a trial updates as its pads deform."""
    from engine.grasp.simulation import GraspSimulation
    from tests.conftest import yumi_cube_simulation

    first = yumi_cube_simulation()
    mesh = first.system.pads[0].mesh
    second = GraspSimulation(first.obj, first.gripper_pose, first.params, pad=mesh)
    pads = [*first.system.pads, *second.system.pads]
    assert all(p.mesh is mesh for p in pads)
    assert len({id(p.rest) for p in pads}) == 1
    assert len({id(p.assembler) for p in pads}) == 1
    assert not pads[0].rest.dm_inv.flags.writeable
    assert len({id(p.hessians) for p in pads}) == 4
