"""One set of placement checks: `check_grasp` (the app's and the CLI's validity check) gives the
simulation's own verdict on every kind of pose, without building a simulation, and the MuJoCo
baseline uses the same ground check and pad rays."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import GraspError
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.placement_checks import inside_polygon, pad_face_points
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.grasp.trials import check_grasp
from engine.gripper.pad_geometry import pad_outline
from engine.ipc.system import GraspSystem
from engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, builtin_cube
from engine.scene.resting import rest_object

# The built-in 30 mm cube rests on z = 0, centred on the z axis; the YuMi opens 50 mm.
POSES = {
    "fits": (Grasp(center=[0.0, 0.0, 0.015], axis=[1.0, 0.0, 0.0]), {}),
    "misses": (Grasp(center=[0.0, 0.045, 0.015], axis=[1.0, 0.0, 0.0]), {}),
    "below ground": (Grasp(center=[0.0, 0.0, 0.004], axis=[1.0, 0.0, 0.0]), {}),
    "off centre: a pad inside": (Grasp(center=[0.02, 0.0, 0.015], axis=[1.0, 0.0, 0.0]), {}),
    "touching": (Grasp(center=[0.00995, 0.0, 0.015], axis=[1.0, 0.0, 0.0]), {}),
    "auto-open clears it": (
        Grasp(center=[0.00995, 0.0, 0.015], axis=[1.0, 0.0, 0.0]),
        {"auto_open_m": 0.02},
    ),
}


@pytest.fixture(scope="module")
def cube():
    return rest_object(builtin_cube(), 0, mass_kg=BUILTIN_CUBE_MASS_KG)


def _verdict(action) -> str:
    try:
        action()
    except GraspError as exc:
        return str(exc)
    return "valid"


@pytest.mark.parametrize("name", list(POSES))
def test_check_grasp_gives_the_simulations_verdict_without_a_system(cube, name, monkeypatch):
    grasp, given = POSES[name]
    params = SimulationParams.from_values(**given)
    pad = build_pad(params)
    expected = _verdict(lambda: GraspSimulation(cube, grasp.pose(), params, pad=pad))

    def no_system(*args, **kwargs):
        raise AssertionError("check_grasp built a GraspSystem")

    monkeypatch.setattr(GraspSystem, "__init__", no_system)
    assert _verdict(lambda: check_grasp(cube, grasp, params, pad)) == expected
    # Every kind of pose above is met: the valid ones and each refusal.
    if name in ("fits", "auto-open clears it"):
        assert expected == "valid"
    else:
        assert expected != "valid"


def test_the_pad_rays_start_inside_the_outline():
    """The rays that test whether closing meets the object start on the pad's face: every
    grid point kept lies inside the outline (even-odd rule), and on a fine grid the kept share
    is the outline's area over its bounding box's."""
    outline = pad_outline("rounded")
    polygon = np.asarray(outline.polygon, dtype=float)
    assert inside_polygon(pad_face_points(outline), polygon).all()
    fine = (400, 300)
    lo, hi = polygon.min(axis=0), polygon.max(axis=0)
    share = len(pad_face_points(outline, fine)) / (fine[0] * fine[1])
    assert share == pytest.approx(outline.area_m2 / float(np.prod(hi - lo)), abs=0.01)
    # A point outside the outline's box is outside.
    assert not inside_polygon(np.array([hi + 1e-3]), polygon).any()
