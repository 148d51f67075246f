"""The default grasp says when it cannot carry the object's weight and which preset's can.

A 40 mm steel cube (0.5 kg, 4.9 N) at mu = 0.1, grasped through its centre: Coulomb's two
contacts hold 2 mu F, so the Soft Point margin is 2 mu F / (m g): 0.82 with the YuMi's 20 N
(below 1: it will slip), 2.9 with the Franka Hand's 70 N and 9.6 with the Robotiq 2F-85's 235 N.
"""

from __future__ import annotations

import pytest

from engine.analytic.ranking import default_grasp_for
from engine.grasp.default_grasp import THROUGH_CENTRE
from engine.grasp.params import SimulationParams
from engine.scene.object_mesh import builtin_cube
from engine.scene.resting import rest_object

MASS_KG = 0.5
MU = 0.1


@pytest.fixture(scope="module")
def cube():
    return rest_object(builtin_cube(size_m=0.04), 0, mass_kg=MASS_KG)


def test_a_default_grasp_that_cannot_hold_names_the_presets_that_can(cube):
    params = SimulationParams.for_gripper("yumi", mu=MU)
    chosen = default_grasp_for(cube, params)
    assert chosen.how == THROUGH_CENTRE
    weight = MASS_KG * 9.81
    assert chosen.margin == pytest.approx(2 * MU * 20.0 / weight, rel=0.02)
    assert chosen.weak is not None
    names = [s.value for s in chosen.weak.settings]
    assert names == ["franka_hand", "robotiq_2f85"]
    text = str(chosen.weak)
    assert "holds only 0.82 times the object's weight" in text
    assert "--gripper robotiq_2f85 (Robotiq 2F-85, 235 N: margin 9.6)" in text


def test_a_default_grasp_that_holds_says_nothing(cube):
    chosen = default_grasp_for(cube, SimulationParams.for_gripper("franka_hand", mu=MU))
    assert chosen.margin == pytest.approx(2 * MU * 70.0 / (MASS_KG * 9.81), rel=0.02)
    assert chosen.weak is None


def test_no_grasp_error_says_sampled_grasps_were_refused_and_why(cube, monkeypatch):
    """When antipodal grasps within the opening exist but the simulator's checks refuse them
    all, the error says so with the best one's reason, not that no pair exists."""
    import engine.grasp.default_grasp as dg
    from engine.errors import GraspError

    monkeypatch.setattr(dg, "_accepted", lambda obj, grasp, params: "pad 1 would touch a rim")
    with pytest.raises(GraspError) as info:
        dg.choose_default_grasp(cube, SimulationParams.for_gripper("yumi"))
    text = str(info.value)
    assert f"all {dg.CHECKED} best sampled grasps within the opening fail the simulator's " in text
    assert "(the best: pad 1 would touch a rim)" in text
    assert "no antipodal pair" not in text
