"""A step no start of which is intersection-free is refused (StepBlocked) with the largest
fraction of it that a tried start allows, which the squeeze retries at half.

A pad pushing the object carries it along, so what limits its step is the other pad's
approach; the pads alone (the object left where it is) can hardly move at all, because the
pushing pad touches it. Reported as the pads-alone fraction, a YCB power drill's push steps
with the Robotiq 2F-85 were retried at a twentieth of their length, 17 times in one squeeze."""

from __future__ import annotations

import numpy as np
import pytest

from engine.grasp.default_grasp import default_grasp
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.ipc.step_types import StepCommand
from engine.ipc.stepper import StepBlocked
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object


def _pad0_near_the_cube(near_m: float) -> GraspSimulation:
    """The YuMi (50 mm opening, 3 mm pads) on a 30 mm cube, the grasp moved along pad 0's
    closing direction until pad 0's contact face is near_m from the cube."""
    params = SimulationParams()
    obj = rest_object(builtin_cube(size_m=0.03), 0, mass_kg=0.003)
    base = default_grasp(obj, build_pad(params).outline)
    centred = GraspSimulation(obj, base.pose(), params)
    shift = (_gaps(centred)[0] - near_m) * centred.normals[0]
    axis = np.asarray(base.axis, dtype=float)
    grasp = Grasp(np.asarray(base.center) + shift, axis, base.approach_angle_rad)
    return GraspSimulation(obj, grasp.pose(), params)


def _gaps(sim: GraspSimulation) -> list[float]:
    """Each pad's contact face's distance to the cube along its closing direction (m)."""
    s = sim.system
    x = s.collision_vertices(sim.stepper.state.u)
    cube = x[s.object_rows]
    return [
        float(np.min(cube @ n) - np.max(x[blk.collision_rows] @ n))
        for blk, n in zip(s.pads, sim.normals, strict=True)
    ]


def test_a_refused_push_step_reports_what_carrying_the_object_along_allows():
    sim = _pad0_near_the_cube(2e-4)  # 0.2 mm (the open jaws' clearance: 0.1 mm)
    near, far = _gaps(sim)
    assert near == pytest.approx(2e-4, abs=1e-6)
    # A push step of 0.6 times the far gap: carried along, the cube meets pad 1 after about
    # 0.8 of it; left where it is, the cube stops pad 0 within 0.2 mm (under 2 % of it); the
    # pads cannot instead compress by 12 mm (they are 3 mm thick).
    delta = 0.6 * far
    command = StepCommand(travel_m=delta, object_shift=delta * sim.normals[0])
    with pytest.raises(StepBlocked) as refused:
        sim.stepper.step(command)
    assert 0.5 < refused.value.alpha < 1.0 / 1.2
    # Retried at half of that, as the squeeze does, the push step is taken.
    half = 0.5 * refused.value.alpha * delta
    new, _ = sim.stepper.step(StepCommand(travel_m=half, object_shift=half * sim.normals[0]))
    assert _gaps(sim)[0] == near  # stepper.step returns the new state without adopting it
    assert new.travel_m == pytest.approx(half)
