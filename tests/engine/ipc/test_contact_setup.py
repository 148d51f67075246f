"""Contact and friction set-up (engine.ipc.ipctk_gateway, engine.grasp.params) on a scene small
enough to work by hand: the ground plane z = 0, an object triangle 0.5 dhat above it and a pad
triangle 0.6 dhat above the object (three face-vertex pairs, three plane-vertex pairs).

- The barrier: ipctk's log barrier on squared distances, b(s) = -(s - s_hat)^2 ln(s / s_hat)
  with s = d^2 and s_hat = dhat^2 (IPC, Li et al. 2020, Eq. 6 in ipctk's squared-distance
  form), so one pair's normal force is kappa |db/ds| 2 d; computed here in closed form.
- Coulomb: a contact that slides (far beyond the smoothing threshold eps_v h) resists with
  mu N; the pad-object pairs take mu, the object-ground pairs their own mu_ground.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.grasp.params import SimulationParams
from engine.ipc import ipctk_gateway as ipc

DHAT = 1e-4  # m


def _normal_force(d: float, dhat: float, kappa: float) -> float:
    s, s_hat = d * d, dhat * dhat
    db_ds = -2.0 * (s - s_hat) * math.log(s / s_hat) - (s - s_hat) ** 2 / s
    return -kappa * db_ds * 2.0 * d


def _scene():
    x = np.array(
        [
            [-0.01, -0.01, 0.5 * DHAT],  # object
            [0.02, -0.01, 0.5 * DHAT],
            [-0.01, 0.02, 0.5 * DHAT],
            [0.0, 0.0, 1.1 * DHAT],  # pad
            [0.001, 0.0, 1.1 * DHAT],
            [0.0, 0.001, 1.1 * DHAT],
        ]
    )
    faces = np.array([[0, 1, 2], [3, 4, 5]])
    owner = np.array([1, 1, 1, 0, 0, 0])
    return ipc.collision_mesh(x, faces, owner, ground=True), x


def _kinds(collisions) -> list[bool]:
    return sorted(ipc.is_plane_vertex(c) for c in collisions)


def test_ground_pairs_are_active_up_to_dhat():
    """ipctk 1.6.1 builds plane-vertex pairs only below dhat/2; the contact set must hold the
    object's three vertices at exactly 0.5 dhat above the ground, and the pad's three above
    the object (0.6 dhat), but no pad-ground pair (1.1 dhat)."""
    mesh, x = _scene()
    c = ipc.active_collisions(mesh, x, DHAT)
    assert _kinds(c) == [False, False, False, True, True, True]
    # Moved 1.2 dhat up, the object leaves the ground's barrier zone: only the pad pairs stay.
    lifted = x.copy()
    lifted[:, 2] += 0.7 * DHAT
    assert _kinds(ipc.active_collisions(mesh, lifted, DHAT)) == [False, False, False]


def test_contact_only_between_different_bodies():
    """Vertices of one body never collide with its own faces (owner filter): a pad vertex
    0.6 dhat above the object collides, the object's own vertices with the object do not."""
    mesh, x = _scene()
    within = ipc.collisions_within(mesh, x, 2.0 * DHAT)
    # Each pair's ids, not the pairs: ipctk hands out references into its list, and one
    # released after the list crashes the interpreter.
    face_vertex = [
        set(np.asarray(c.vertex_ids(mesh.edges, mesh.faces)).tolist()) - {-1}
        for c in within
        if not ipc.is_plane_vertex(c)
    ]
    assert len(face_vertex) == 3
    for ids in face_vertex:
        assert ids & {0, 1, 2} and ids & {3, 4, 5}
    assert ipc.minimum_distance(within, mesh, x) == pytest.approx(0.5 * DHAT, rel=1e-12)
    assert ipc.minimum_squared_distance(within, mesh, x) == pytest.approx(0.25 * DHAT**2, rel=1e-12)
    apart = x.copy()
    apart[:3, 2] += 0.5  # the object 0.5 m up, the pad 1 m up: nothing within dhat
    apart[3:, 2] += 1.0
    empty = ipc.collisions_within(mesh, apart, DHAT)
    assert len(empty) == 0
    assert ipc.minimum_distance(empty, mesh, apart) == math.inf
    assert ipc.minimum_squared_distance(empty, mesh, apart) == math.inf


def test_barrier_force_of_one_pair_is_the_closed_form():
    for d, kappa in ((0.5 * DHAT, 1.0), (0.1 * DHAT, 3.0), (0.9 * DHAT, 2.0)):
        assert ipc.barrier_pair_force(d, DHAT, kappa) == pytest.approx(
            _normal_force(d, DHAT, kappa), rel=1e-9
        )


class _Slide:
    """The friction gradient of a 1 mm slide along x of the `moved` vertices, with the friction
    pairs. Holds ipctk's mesh and containers: their pairs live only as long as they do."""

    def __init__(self, mu: float, mu_ground: float, moved: slice) -> None:
        self.mesh, x = _scene()
        self.collisions = ipc.active_collisions(self.mesh, x, DHAT)
        self.pairs = ipc.lagged_friction(
            self.mesh, x, self.collisions, ipc.barrier(DHAT, 1.0), mu, mu_ground
        )
        u = np.zeros_like(x)
        u[moved, 0] = 1e-3  # 100x the smoothing threshold eps_v h = 1e-5 m below
        self.friction = ipc.friction(1e-5)
        self.g = np.asarray(self.friction.gradient(self.pairs, self.mesh, u)).reshape(-1, 3)

    def coefficients(self) -> list[tuple[bool, float, float]]:
        return sorted((ipc.is_plane_vertex(p), p.mu_s, p.mu_k) for p in self.pairs)


def test_the_ground_resists_a_slide_with_its_own_coulomb_coefficient():
    """Object and pad slide together 1 mm along x: no pad-object slip, so each object vertex
    feels the ground's mu_ground N = 0.8 x N(0.5 dhat), against the motion (the gradient of the
    dissipative potential points along it)."""
    slide = _Slide(0.4, 0.8, slice(0, 6))
    n_ground = _normal_force(0.5 * DHAT, DHAT, 1.0)
    np.testing.assert_allclose(slide.g[:3, 0], 0.8 * n_ground, rtol=1e-6)
    np.testing.assert_allclose(slide.g[3:], 0.0, atol=1e-25)
    assert slide.coefficients() == [(False, 0.4, 0.4)] * 3 + [(True, 0.8, 0.8)] * 3


def test_the_pads_grip_with_mu():
    """Only the pad slides: each pad vertex feels mu N = 0.4 x N(0.6 dhat), the object the
    opposite (Newton's third law)."""
    slide = _Slide(0.4, 0.8, slice(3, 6))
    n_pad = _normal_force(0.6 * DHAT, DHAT, 1.0)
    np.testing.assert_allclose(slide.g[3:, 0], 0.4 * n_pad, rtol=1e-6)
    assert slide.g[:3, 0].sum() == pytest.approx(-3 * 0.4 * n_pad, rel=1e-6)


def test_one_coefficient_for_all_pairs_or_none():
    slide = _Slide(0.5, 0.5, slice(0, 3))
    assert slide.coefficients() == [(False, 0.5, 0.5)] * 3 + [(True, 0.5, 0.5)] * 3
    # A ground without friction (mu_ground 0) under grippy pads: the object slides freely on it.
    free = _Slide(0.5, 0.0, slice(0, 6))
    np.testing.assert_allclose(free.g, 0.0, atol=1e-25)
    # Friction on the ground only (pads without friction) still builds the ground's pairs.
    ground = _Slide(0.0, 0.8, slice(0, 6))
    n_ground = _normal_force(0.5 * DHAT, DHAT, 1.0)
    np.testing.assert_allclose(ground.g[:3, 0], 0.8 * n_ground, rtol=1e-6)
    assert len(_Slide(0.0, 0.0, slice(0, 6)).pairs) == 0


def test_ground_friction_defaults_to_the_pad_coefficient():
    assert SimulationParams(mu=0.35).ground_mu == 0.35
    assert SimulationParams(mu=0.35, mu_ground=0.9).ground_mu == 0.9
    assert SimulationParams(mu=0.35, mu_ground=0.0).ground_mu == 0.0


def test_pads_keep_their_friction_on_a_frictionless_ground():
    slide = _Slide(0.5, 0.0, slice(3, 6))
    n_pad = _normal_force(0.6 * DHAT, DHAT, 1.0)
    np.testing.assert_allclose(slide.g[3:, 0], 0.5 * n_pad, rtol=1e-6)


def test_ccd_stops_a_pad_before_it_reaches_the_object():
    """The pad 0.6 dhat above the object, moved 1.2 dhat down, would touch it half-way: the
    collision-free fraction is below 0.5 (conservative) and above 0; moving up is free."""
    mesh, x = _scene()
    down = x.copy()
    down[3:, 2] -= 1.2 * DHAT
    alpha = ipc.collision_free_stepsize(mesh, x, down)
    assert 0.0 < alpha < 0.5
    up = x.copy()
    up[3:, 2] += 1.2 * DHAT
    assert ipc.collision_free_stepsize(mesh, x, up) == 1.0
    assert not ipc.has_intersections(mesh, x)
    through = x.copy()  # the pad's triangle moved down through the object's
    through[3, 2] = -0.001
    assert ipc.has_intersections(mesh, through)


def test_ipctk_threads_follow_the_environment(monkeypatch):
    import ipctk

    monkeypatch.setenv("IPCGRASP_IPCTK_THREADS", "2")
    ipc.configure_threads()
    assert ipctk.get_num_threads() == 2
    monkeypatch.delenv("IPCGRASP_IPCTK_THREADS")
    ipc.configure_threads()
    assert ipctk.get_num_threads() == 1


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_thread_count_that_is_not_one_or_more_names_the_variable(monkeypatch, value):
    monkeypatch.setenv("IPCGRASP_QUERY_THREADS", value)
    with pytest.raises(ValueError, match=r"IPCGRASP_QUERY_THREADS=.*set it to 1 or more"):
        ipc.configure_threads()
    monkeypatch.delenv("IPCGRASP_QUERY_THREADS")
    ipc.configure_threads()


def test_each_pairs_gradient_adds_up_to_the_whole():
    """The barrier and friction gradients over all pairs are the sums of each pair's share at
    its vertices (ipctk's whole-set gradient against engine.ipc.ipctk_gateway.pair_gradient)."""
    slide = _Slide(0.4, 0.8, slice(3, 6))
    _, x = _scene()
    barrier = ipc.barrier(DHAT, 1.0)
    whole = np.asarray(barrier.gradient(slide.collisions, slide.mesh, x)).reshape(-1, 3)
    summed = np.zeros_like(whole)
    for c in slide.collisions:
        ids, g = ipc.pair_gradient(barrier, c, slide.mesh, x)
        assert g.shape == (len(ids), 3)
        summed[ids] += g
    np.testing.assert_allclose(summed, whole, rtol=1e-12, atol=1e-30)
    assert np.all(whole[:3, 2] != 0.0)  # every object vertex feels the ground (vertex 0 too)
    u = np.zeros_like(x)
    u[3:, 0] = 1e-3
    summed = np.zeros_like(whole)
    for c in slide.pairs:
        ids, g = ipc.pair_gradient(slide.friction, c, slide.mesh, u)
        summed[ids] += g
    np.testing.assert_allclose(summed, slide.g, rtol=1e-12, atol=1e-30)
