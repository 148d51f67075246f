"""A pad that meets a ball far off its centre pushes it out of the jaws: the contact normal at a
point y off the closing axis on a ball of radius r leans sin(theta) = y / r from that axis, and
once tan(theta) exceeds the friction coefficient the pad's push has a sideways part friction
cannot hold. A 40 mm ball of 20 g, grasped 17 mm beside its centre (theta = 58 deg, tan = 1.6)
at mu = 0.1, rolls and slides out along the ground and the jaws close on each other: the trial
says the object was pushed out, not that the jaws closed on nothing. Grasped through its centre
(theta = 0) the same ball is held.
"""

from __future__ import annotations

import pytest
import trimesh

from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation
from engine.grasp.squeeze_rules import PUSHED_OUT
from engine.scene.object_mesh import load_object_mesh
from engine.scene.resting import rest_object

PARAMS = SimulationParams.from_values(mu=0.1)


@pytest.fixture(scope="module")
def ball(tmp_path_factory):
    mesh = trimesh.creation.icosphere(subdivisions=3, radius=0.02)
    mesh.apply_translation([0.0, 0.0, 0.02])
    path = tmp_path_factory.mktemp("ball") / "ball.stl"
    mesh.export(path)
    return rest_object(load_object_mesh(path), 0, mass_kg=0.02)


@pytest.mark.parametrize("beside_m, pushed_out", [(0.017, True), (0.0, False)])
def test_a_pad_off_a_balls_centre_pushes_it_out_of_the_jaws(ball, beside_m, pushed_out):
    sim = GraspSimulation(ball, Grasp(center=[0.0, beside_m, 0.02], axis=[1, 0, 0]).pose(), PARAMS)
    for _ in sim.frames():
        pass
    r = sim.result
    assert (r.reason == PUSHED_OUT) is pushed_out, r.reason
    assert r.success is not pushed_out, r.reason
