"""Object-ground friction obeys its own coefficient (Coulomb: a box sliding on the ground under a
pushing pad needs F = mu_ground m g once it moves steadily)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.constants import GRAVITY_M_S2
from engine.grasp.default_grasp import default_grasp
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object

MASS_KG = 0.1


def _push_force(mu_ground: float) -> tuple[float, float]:
    """Mean force of pad 1 while it alone pushes a 100 g cube along the ground, and the
    distance (m) the cube slid meanwhile.

    The grasp centre is 8 mm off the cube's centre towards jaw 2, so jaw 1 reaches the cube
    first (2 mm gap) and pushes it for ~16 mm before jaw 2 arrives (both close at 0.1 m/s).
    """
    obj = rest_object(builtin_cube(), 0, mass_kg=MASS_KG)
    params = SimulationParams(mu=0.4, mu_ground=mu_ground, squeeze_force_n=5.0)
    pad = build_pad(params)
    g = default_grasp(obj, pad.outline)
    axis = np.asarray(g.axis, dtype=float)
    grasp = Grasp(np.asarray(g.center) + 0.008 * axis, axis, g.approach_angle_rad)
    sim = GraspSimulation(obj, grasp.pose(), params, pad=pad)
    forces, positions = [], []
    for frame in sim.frames():
        if frame.contacts["contacts_pad2_object"]:
            break
        # From pad 1's first touch on (frictionless, the cube glides ahead of it at times).
        if forces or frame.contacts["contacts_pad1_object"]:
            forces.append(frame.grip_force_n[0])
            positions.append(frame.object_pose[:3, 3].copy())
    assert len(forces) >= 5, f"pad 1 pushed alone for only {len(forces)} frames"
    # The first contact frames accelerate the cube to the plate speed: leave them out.
    steady = forces[2:]
    slid = float(np.linalg.norm(positions[-1] - positions[0]))
    return float(np.mean(steady)), slid


@pytest.mark.slow
@pytest.mark.parametrize("mu_ground", [0.0, 0.3, 0.6])
def test_sliding_on_the_ground_takes_mu_ground_times_the_weight(mu_ground):
    force, slid = _push_force(mu_ground)
    weight = MASS_KG * GRAVITY_M_S2
    assert slid > 0.005  # it slides: kinetic friction, F = mu_ground m g
    # Smoothed friction (eps_v = 1 mm/s) against 100 mm/s sliding: within a few percent; the
    # allowance also covers the barrier's discrete contact force at 0.01 s steps.
    assert force == pytest.approx(mu_ground * weight, abs=0.05 * weight)
