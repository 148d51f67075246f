"""A newcomer's first simulations: everyday objects with their default grasp and no flags lift,
as the real gripper would (Coulomb: 2 mu F = 16 N of friction at the YuMi's 20 N and mu 0.4,
against weights of 0.3-1 N)."""

from __future__ import annotations

import pytest
import trimesh

from engine.grasp.default_grasp import default_grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import FORCE_STOP_TOL, build_pad
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
from engine.scene.object_mesh import load_object_mesh
from engine.scene.resting import rest_object

pytestmark = pytest.mark.slow


def _lying_bottle() -> trimesh.Trimesh:
    bottle = trimesh.creation.cylinder(radius=0.0125, height=0.09, sections=48)
    bottle.apply_transform(trimesh.transformations.rotation_matrix(1.5707963, [1, 0, 0]))
    return bottle


OBJECTS = {  # name: (mesh, mass in kg), sizes and masses of the physics issue's examples
    "can 40 x 80 mm, 100 g": (
        trimesh.creation.cylinder(radius=0.02, height=0.08, sections=48),
        0.1,
    ),
    "box 40 x 20 x 60 mm, 50 g": (trimesh.creation.box(extents=(0.04, 0.02, 0.06)), 0.05),
    "ball 35 mm, 30 g": (trimesh.creation.icosphere(subdivisions=3, radius=0.0175), 0.03),
    "lying bottle 25 x 90 mm, 60 g": (_lying_bottle(), 0.06),
}


@pytest.mark.parametrize("name", list(OBJECTS))
def test_everyday_object_lifts_with_the_defaults(name, tmp_path):
    mesh, mass = OBJECTS[name]
    path = tmp_path / "object.stl"
    mesh.export(path)
    obj = rest_object(load_object_mesh(path), 0, mass_kg=mass)
    params = SimulationParams()  # no flags: the YuMi, its 20 N grip, force-controlled hold
    pad = build_pad(params)
    (nominal,) = plan_trials(default_grasp(obj, pad.outline), TrialSpec())
    result = run_trial(obj, nominal, params, pad=pad)
    assert result.success, f"{name}: {result.reason} {result.error}"
    # The force-limited squeeze presses with the gripper's force (not 0.1 N), never more.
    f_max = params.preset.force_max_n
    assert (1 - FORCE_STOP_TOL) * f_max <= result.grip_force_n <= (1 + FORCE_STOP_TOL) * f_max
