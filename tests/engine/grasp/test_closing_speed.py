"""The jaws close at the gripper's closing speed until both pads grip: in free flight (one
long step across the gap) and while one pad pushes the object along the ground alone, the plate
travel over the elapsed time is the preset's speed (YuMi 25 mm/s). A squeeze that halved the
speed while pushing (as an earlier approach limit did) changes how far the object slides and
turns before the second pad arrives. So does a pad that dips towards the ground as it pushes."""

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


def _approach_frames(
    offset_m: float,
    params: SimulationParams | None = None,
    dip_deg: float = 0.0,
    mass_kg: float = 0.003,
) -> tuple[SimulationParams, list]:
    params = params or SimulationParams()
    obj = rest_object(builtin_cube(size_m=0.03), 0, mass_kg=mass_kg)
    base = default_grasp(obj, build_pad(params).outline)
    axis = np.asarray(base.axis, dtype=float)
    if dip_deg:
        axis = axis + np.array([0.0, 0.0, np.tan(np.radians(dip_deg))])
        axis /= np.linalg.norm(axis)
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


@pytest.mark.parametrize(("dip_deg", "offset_m"), [(2.0, -0.006), (-2.0, 0.006)])
def test_a_pad_that_dips_towards_the_ground_pushes_at_the_closing_speed(dip_deg, offset_m):
    """A closing axis 2 deg off level, the grasp 6 mm off centre so that the pad that meets the
    50 g cube first dips towards the ground as it pushes (a sampled grasp on a scan: YCB
    scissors, 1.9 deg). The initial guess carried the cube along the pad's closing direction,
    into the ground, CCD stopped it within the cube's ground gap, and every Robotiq 2F-85 push
    step (3 mm) was retried at a fortieth of its length: 100 push frames, the jaws closing at
    22 of the gripper's 150 mm/s. The ground carries the cube; it slides along it as it does
    under a level axis (2 push frames, 143 mm/s)."""
    params = SimulationParams.for_gripper("robotiq_2f85")
    _, frames = _approach_frames(offset_m, params, dip_deg, mass_kg=0.05)
    pushing = [f for f in frames if max(_touching(f)) > 0]
    assert 1 <= len(pushing) <= 5
    last = frames[-1]
    assert last.plate_travel_m / last.time_s > 0.8 * params.closing_speed_m_s


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
