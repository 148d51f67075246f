"""A resting object starts where the ground's barrier carries its weight (engine.ipc.ground_rest).

Law: at rest the ground's normal forces balance the weight (Newton's first law), so the first
time steps of a grasp, before a pad touches, leave the object where it is. Placed at dhat/2
instead, the barrier (stiff enough for a 20 N grip) launched the 3 g cube upwards.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.constants import GRAVITY_M_S2
from engine.grasp.simulation import GraspSimulation
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.ground_rest import equilibrium_lift
from engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG
from tests.conftest import yumi_cube_simulation


def _cube_simulation(vertices: int) -> GraspSimulation:
    return yumi_cube_simulation(vertices, mass_kg=BUILTIN_CUBE_MASS_KG)


def _ground_force_on_object(sim: GraspSimulation, u: np.ndarray) -> float:
    """Upward force (N) of the ground's barrier on the object at u, from ipctk's own gradient."""
    s = sim.system
    x = s.collision_vertices(u)
    dhat = sim.params.dhat_m
    mesh = s.ground_mesh
    pairs = ipc.active_collisions(mesh, x, dhat)
    g = ipc.barrier(dhat, sim.stepper.state.kappa).gradient(pairs, mesh, x).reshape(-1, 3)
    return float(-g[s.object_rows, 2].sum())


@pytest.mark.parametrize("vertices", [8, 98])
def test_the_ground_barrier_carries_the_resting_objects_weight(vertices):
    sim = _cube_simulation(vertices)
    weight = GRAVITY_M_S2 * sim.system.object.mass_kg
    assert _ground_force_on_object(sim, sim.stepper.state.u) == pytest.approx(weight, rel=1e-3)
    # Inside the barrier's layer, and not at dhat/2, where it was put before.
    z = sim.system.collision_vertices(sim.stepper.state.u)[sim.system.object_rows, 2].min()
    assert 0.0 < z < sim.params.dhat_m
    # At dhat/2 the barrier pushed with several times the weight (6x on 8 vertices, 37x on 98).
    assert _ground_force_on_object(sim, sim.system.u_initial) > 5 * weight


def test_the_first_steps_before_a_pad_touches_leave_the_object_in_place():
    sim = _cube_simulation(98)
    dhat = sim.params.dhat_m
    # A frame's object pose is relative to the rested object (its lowest point on z = 0).
    start = sim.system.collision_vertices(sim.stepper.state.u)[sim.system.object_rows, 2].min()
    frames = sim.frames()
    for _ in range(3):  # free-flight closing steps: the pads are centimetres away
        frame = next(frames)
        assert frame.grip_force_n == (0.0, 0.0)
        assert abs(frame.object_pose[2, 3] - start) < 1e-3 * dhat
        # Not turned (the affine body's own compression under its weight is ~1e-8).
        assert np.abs(frame.object_pose[:3, :3] - np.eye(3)).max() < 1e-6
    frames.close()


def test_equilibrium_lift_balances_the_forces_it_sums():
    heights = np.array([0.0, 0.0, 2e-5, 5e-3])  # two on the ground, one slightly up, one far
    dhat, kappa, weight = 1e-4, 1e10, 0.02
    lift = equilibrium_lift(heights, weight, dhat, kappa)
    d = heights + lift
    forces = ipc.barrier_pair_forces(d[d < dhat], dhat, kappa)
    assert forces.sum() == pytest.approx(weight, rel=1e-4)
    assert 0.0 < d.min() < dhat
    # A heavier body sits lower in the layer.
    assert equilibrium_lift(heights, 10 * weight, dhat, kappa) < lift
