"""The jaws close at the gripper's closing speed until both pads grip: in free flight (one
long step across the gap) and while one pad pushes the object along the ground alone, the plate
travel over the elapsed time is the preset's speed (YuMi 25 mm/s). A squeeze that halved the
speed while pushing (as an earlier approach limit did) changes how far the object slides and
turns before the second pad arrives."""

from __future__ import annotations

import numpy as np
import pytest

from engine.grasp.default_grasp import default_grasp
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object

pytestmark = pytest.mark.slow


def _approach_frames(offset_m: float) -> tuple[SimulationParams, list]:
    params = SimulationParams()
    obj = rest_object(builtin_cube(size_m=0.03), 0, mass_kg=0.003)
    base = default_grasp(obj, build_pad(params).outline)
    axis = np.asarray(base.axis, dtype=float)
    grasp = Grasp(np.asarray(base.center) + offset_m * axis, axis, base.approach_angle_rad)
    sim = GraspSimulation(obj, grasp.pose(), params)
    frames = []
    for f in sim.frames():
        if min(_touching(f)) > 0:
            break  # both pads touch: the force-limited servo takes over
        frames.append(f)
    return params, frames


def _touching(frame) -> tuple[int, int]:
    return frame.contacts["contacts_pad1_object"], frame.contacts["contacts_pad2_object"]


@pytest.mark.parametrize("offset_m", [0.0, 0.006])
def test_the_jaws_close_at_the_closing_speed_until_both_pads_touch(offset_m):
    params, frames = _approach_frames(offset_m)
    assert frames, "the pads touched the object at the first frame"
    speed = np.array([f.plate_travel_m / f.time_s for f in frames])
    assert speed == pytest.approx(params.closing_speed_m_s, rel=1e-9)
    pushing = [f for f in frames if max(_touching(f)) > 0]
    if offset_m:
        # Off centre, one pad meets the cube ~6 mm before the other and pushes it alone.
        assert len(pushing) >= 3
        moved = np.linalg.norm(pushing[-1].object_pose[:3, 3] - frames[0].object_pose[:3, 3])
        assert moved > 0.003


def test_a_long_approach_step_that_ccd_cuts_short_is_not_retried_forever():
    """Additive CCD stops a motion at a fraction of its starting gap: a free-flight step that
    left 5 % of a 2.1 mm gap was cut to 95 % and retried at the same length until the step limit
    ("the squeeze did not finish within 2000 steps" after 2 frames). Seen in the E x mu grid on
    REACH grasp 20, perturbed trial 2 (seed 682350478), E = 1e7 Pa: it must squeeze and lift."""
    from engine.grasp.trials import TrialSpec, plan_trials, run_trial
    from tests.conftest import reach_scene

    obj, grasp = reach_scene(20)
    trial = plan_trials(grasp, TrialSpec(n_trials=5, seed=682350478))[2]
    params = SimulationParams.from_values(
        youngs_modulus_pa=1e7, mu=0.4, auto_open_m=0.02, squeeze_force_n=20.0
    )
    result = run_trial(obj, trial, params)
    assert result.reason == "lifted", result.error
    assert result.frames < 100
