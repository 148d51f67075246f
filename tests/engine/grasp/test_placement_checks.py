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


def _ball_and_box(tmp_path, gap_m: float):
    """Issue 39: a 40 mm ball and a 30 mm box side by side, `gap_m` apart, kept as one rigid
    object (body "all"), resting."""
    import trimesh

    from engine.scene.object_mesh import load_object_mesh

    ball = trimesh.creation.icosphere(subdivisions=3, radius=0.02)
    ball.apply_translation([-0.02 - gap_m / 2, 0.0, 0.02])
    box = trimesh.creation.box(extents=[0.03] * 3)
    box.apply_translation([0.015 + gap_m / 2, 0.0, 0.015])
    path = tmp_path / "ball_and_box.stl"
    trimesh.util.concatenate([ball, box]).export(path)
    return rest_object(load_object_mesh(path, body="all"), 0, density_kg_m3=1000.0)


def test_a_grasp_between_two_parts_is_refused_and_the_default_avoids_it(tmp_path):
    """Issue 39: on a ball and a box 20 mm apart as one rigid object, the grasp through the
    centre of mass sits in the gap: the pads' rims reach the two parts, the closing line meets
    neither, and the simulation ended with the jaws closed on each other. The check refuses it
    and says why; the default grasp is a sampled one that the check accepts, whose closing line
    crosses the object."""
    from engine.grasp.antipodal import contacts_along_axis
    from engine.grasp.default_grasp import THROUGH_CENTRE, choose_default_grasp, default_grasp

    obj = _ball_and_box(tmp_path, 0.02)
    params = SimulationParams()
    centre = default_grasp(obj, pad_outline(params.pad, params.pad_edge_length_m))
    assert contacts_along_axis(obj, centre) is None  # the line through the centre misses
    with pytest.raises(GraspError, match="closing line passes through empty space") as err:
        check_grasp(obj, centre, params)
    assert "only with its rim" in str(err.value)
    assert "move the grasp centre onto the object" in str(err.value)
    chosen = choose_default_grasp(obj, params)
    assert chosen.how != THROUGH_CENTRE and "empty space" in chosen.centre_refusal
    check_grasp(obj, chosen.grasp, params)
    assert contacts_along_axis(obj, chosen.grasp) is not None


def test_a_grasp_beside_the_object_names_the_pad_and_the_fix(cube):
    """The grasp centre 45 mm beside the cube: pad 1's sweep meets nothing before the jaws
    meet; the reason names the pad, the object's bounds and what to do."""
    grasp, _ = POSES["misses"]
    with pytest.raises(GraspError, match="pad 1 would close on nothing") as err:
        check_grasp(cube, grasp, SimulationParams())
    assert "Move the grasp centre onto the object" in str(err.value)
    assert "right-click a point on it" in str(err.value)
