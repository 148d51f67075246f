"""Closing is force-limited from the first contact of either pad, as on the hardware: a pad that
reaches the object first pushes it with at most the gripper's force F until the other pad
arrives. A 40 mm lead cube (0.72 kg) touched first by one YuMi pad (F = 20 N):
- on a rubber mat (mu_ground = 3) the ground holds it with up to mu_g m g = 21.2 N > F: the
  pad presses with F and no more, the jaws stall, and the trial ends with that reason within
  a bounded number of steps (position-driven closing pressed on without bound);
- on a table (mu_ground = 0.4, mu_g m g = 2.8 N < F) the pad pushes it until the other pad
  arrives, and it is lifted.
"""

from __future__ import annotations

import pytest

from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation
from engine.grasp.squeeze import ONE_PAD_STALLED, STALL_STEPS
from engine.grasp.squeeze_rules import FORCE_STOP_TOL
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object

LEAD_CUBE_KG = 0.72  # 40 mm of lead (11,340 kg/m^3)
# Off-centre by 4 mm: one pad is 1 mm from the cube, the other 9 mm.
GRASP = Grasp(center=[-0.004, 0.0, 0.02], axis=[1.0, 0.0, 0.0])


def _run(mu_ground: float):
    obj = rest_object(builtin_cube(size_m=0.04), 0, mass_kg=LEAD_CUBE_KG)
    params = SimulationParams.from_values(mu_ground=mu_ground)
    sim = GraspSimulation(obj, GRASP.pose(), params)
    frames = list(sim.frames())
    return sim.result, frames, params


def test_a_pinned_object_is_pressed_with_the_grippers_force_and_no_more():
    result, frames, params = _run(3.0)
    cap = params.squeeze_force_cap_n * (1.0 + FORCE_STOP_TOL)
    assert 3.0 * LEAD_CUBE_KG * 9.81 > params.squeeze_force_cap_n  # the ground holds it
    assert max(max(f.grip_force_n) for f in frames) <= cap
    assert min(max(f.grip_force_n) for f in frames[-STALL_STEPS:]) >= 0.95 * cap
    assert result.reason == ONE_PAD_STALLED, result.error
    assert "pressed the object with the ABB YuMi smart gripper's 20 N" in result.error
    # Each frame's one pad pressed, the other never arrived; it ended within the stall steps
    # after the force was reached.
    assert all(min(f.grip_force_n) == 0.0 for f in frames)
    assert len(frames) < 40


@pytest.mark.slow
def test_an_object_the_pad_can_push_is_pushed_until_the_other_pad_arrives():
    result, frames, params = _run(0.4)
    assert 0.4 * LEAD_CUBE_KG * 9.81 < params.squeeze_force_cap_n
    assert max(max(f.grip_force_n) for f in frames) <= 1.05 * params.squeeze_force_cap_n
    assert result.success, result.reason
